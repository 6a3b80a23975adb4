# Starting vbrd and talking to it.
#
#   start_vbrd {conf TEXT-or-FILE ?args {EAL ARGS}? ?name NAME? ?stop_ms MS?} {body}
#
# writes the config to the run directory, starts build/vbrd -c FILE in the
# background (output to a log), waits until `vbrctl show ports` answers,
# runs BODY, then stops vbrd with SIGTERM and checks that it exits with
# status 0 within 5 s, or within stop_ms milliseconds when given (reported
# as one more test; with stop_ms, a note says how long it took). vbrd is
# killed whatever happens. If vbrd does not come up, every test in BODY
# fails with the tail of its log.
#
# In the config text, @HOST@ stands for HOST's veth (lab_if HOST),
# @rundir@ for the run directory, @instance@ and @socket@ for this vbrd's
# instance name and control socket. Unless the text sets them itself,
# `instance`, `control`, `eal` (512 MiB) and `workers` (CPU 1, napping
# when idle) settings are prepended.

package require json

namespace eval vbrd {
    variable root [file normalize [file join [file dirname [info script]] .. .. ..]]
    variable build [expr {[info exists ::env(VBRD_BUILD)] && $::env(VBRD_BUILD) ne ""
                          ? [file normalize $::env(VBRD_BUILD)]
                          : [file join $root build]}]
    # meson builds them in build/app/; `make build` may also link them to build/.
    variable bin     [lindex [concat [glob -nocomplain -type f [file join $build vbrd] \
                                        [file join $build app vbrd]] [file join $build vbrd]] 0]
    variable ctl_bin [lindex [concat [glob -nocomplain -type f [file join $build vbrctl] \
                                        [file join $build app vbrctl]] [file join $build vbrctl]] 0]
    variable cur {}       ;# dict of the running vbrd: pid fd conf log socket instance
    variable count 0
    # How long a start may take until vbrd answers, and a stop after
    # SIGTERM (ms): a million routes (test_ha_scale.tcl) take longer.
    variable start_ms 20000
    variable stop_ms 5000
}

proc start_vbrd {opts body} {
    lab_init
    set name [expr {[dict exists $opts name] ? [dict get $opts name]
                    : "$::runner::area[incr ::vbrd::count]"}]
    set instance "[lab_prefix]-$name"
    set sock [file join [lab_rundir] $name.sock]
    set conf [file join [lab_rundir] $name.conf]
    set log  [file join [lab_rundir] $name.log]
    vbrd_write_config $conf [dict get $opts conf] $instance $sock
    set eal [expr {[dict exists $opts args] ? [dict get $opts args] : {}}]
    set stop_ms [expr {[dict exists $opts stop_ms] ? [dict get $opts stop_ms] : $::vbrd::stop_ms}]
    set stop_test "$::runner::area: vbrd ($name) exits 0 on SIGTERM within [_vbrd_seconds $stop_ms] s"

    set saved_cur $::vbrd::cur
    set saved_broken $::runner::broken
    set ::vbrd::cur [dict create conf $conf log $log socket $sock instance $instance pid 0 fd ""]
    lappend ::lab::dpdk_prefixes $instance
    set started [vbrd_launch $eal]
    if {$started ne ""} {
        set ::runner::broken $started
    }
    set check {vbrd_died_check}
    lappend ::runner::after_checks $check

    set code [catch {uplevel 1 $body} result opts2]

    set ::runner::after_checks [lsearch -all -inline -not -exact $::runner::after_checks $check]
    set ::runner::broken $saved_broken
    if {$started eq ""} {
        set why [vbrd_stop $stop_ms]
        if {$why eq ""} {
            runner_report ok $stop_test
        } else {
            runner_report FAIL $stop_test $why
        }
        if {[dict exists $opts stop_ms] && [dict exists $::vbrd::cur stop_elapsed]} {
            note "vbrd ($name) exited [dict get $::vbrd::cur stop_elapsed] ms after SIGTERM"
        }
    } else {
        vbrd_kill
    }
    set ::vbrd::cur $saved_cur
    if {$code == 1} {
        return -options $opts2 $result
    }
    return
}

# Write the config file FILE from TEXT (or from the file TEXT names).
proc vbrd_write_config {file text instance sock} {
    if {[file exists $text] && [llength [split $text "\n"]] == 1} {
        set text [_lab_read $text]
    }
    set map [list @rundir@ [lab_rundir] @instance@ $instance @socket@ $sock]
    foreach host [array names ::lab::hosts] {
        lappend map "@$host@" [lab_if $host]
    }
    set text [string map $map $text]
    set head ""
    if {![regexp -line {^\s*instance\s*[=:]} $text]} {
        append head "instance = \"$instance\";\n"
    }
    if {![regexp -line {^\s*control\s*[=:]} $text]} {
        append head "control = { socket = \"$sock\"; };\n"
    }
    if {![regexp -line {^\s*eal\s*[=:]} $text]} {
        append head "eal = { memory_mb = 512; };\n"
    }
    # One worker on CPU 1 that naps when idle: the test machine has 2 cores
    # shared with the hosts' iperf3 and the kernel's veth work.
    if {![regexp -line {^\s*workers\s*[=:]} $text]} {
        append head "workers = { cores = \[ 1 \]; idle_sleep_us = 50; };\n"
    }
    _lab_write $file "$head$text\n"
}

# Start vbrd with the current config; return "" once it answers
# `vbrctl show ports`, or the reason why it does not (with its log tail).
proc vbrd_launch {eal {attempt 1}} {
    set conf [dict get $::vbrd::cur conf]
    set log  [dict get $::vbrd::cur log]
    if {![file executable $::vbrd::bin]} {
        return "no vbrd binary at $::vbrd::bin (run `make build`)"
    }
    set cmd [list $::vbrd::bin -c $conf]
    if {[llength $eal]} { lappend cmd -- {*}$eal }
    # A write-only pipe: vbrd's stdin is the pipe, its output goes to the log;
    # closing the channel later reaps vbrd and yields its exit status.
    set fd [open "|[join [lmap w $cmd {_vbrd_quote $w}]] >& [_vbrd_quote $log]" w]
    set pid [pid $fd]
    _lab_track $pid
    dict set ::vbrd::cur pid $pid
    dict set ::vbrd::cur fd $fd
    set deadline [expr {[clock milliseconds] + $::vbrd::start_ms}]
    while {1} {
        if {[lab_exited $pid]} {
            set status [vbrd_reap]
            # DPDK 22.11's af_packet PMD joins PACKET_FANOUT group
            # (pid XOR ifindex): two processes in one network namespace can
            # collide, and the kernel refuses the second (EINVAL). A new
            # process has a new pid: start again, at most twice.
            if {$attempt < 3 && [string match "*could not set PACKET_FANOUT*" \
                                     [_lab_read $log]]} {
                return [vbrd_launch $eal [incr attempt]]
            }
            return "vbrd exited at start-up ($status):\n[vbrd_log_tail]"
        }
        lassign [vbrctl_raw show ports] rc out
        if {$rc == 0} { return "" }
        if {[clock milliseconds] > $deadline} {
            return "vbrd did not answer `vbrctl show ports` within [expr {$::vbrd::start_ms / 1000}] s (last: $out):\n[vbrd_log_tail]"
        }
        # (vbrd answers ~0.4 s after its start: polled every 20 ms, not
        # 100, so ~150 starts in a suite do not wait 50 ms each for nothing)
        after 20
    }
}

# SIGTERM vbrd; return "" if it exits with status 0 within MS milliseconds
# (default 5000), else why not (it is then killed). The time it took is
# left in the current vbrd's stop_elapsed (ms).
proc vbrd_stop {{ms 5000}} {
    set pid [dict get $::vbrd::cur pid]
    if {[lab_exited $pid]} {
        return "vbrd had already exited ([vbrd_reap]):\n[vbrd_log_tail]"
    }
    set t0 [clock milliseconds]
    lab_kill $pid TERM
    if {![lab_wait_exit $pid $ms]} {
        vbrd_kill
        return "vbrd still running [_vbrd_seconds $ms] s after SIGTERM (killed):\n[vbrd_log_tail]"
    }
    dict set ::vbrd::cur stop_elapsed [expr {[clock milliseconds] - $t0}]
    set status [vbrd_reap]
    if {$status ne "exit 0"} {
        return "vbrd stopped with $status:\n[vbrd_log_tail]"
    }
    return ""
}

proc vbrd_kill {} {
    set pid [dict get $::vbrd::cur pid]
    if {$pid == 0} { return }
    if {![lab_exited $pid]} {
        lab_kill $pid KILL
        lab_wait_exit $pid 2000
    }
    vbrd_reap
}

# Reap an exited vbrd; return "exit N" or "signal NAME".
proc vbrd_reap {} {
    set fd [dict get $::vbrd::cur fd]
    if {$fd eq ""} {
        return [expr {[dict exists $::vbrd::cur status] ? [dict get $::vbrd::cur status] : "unknown"}]
    }
    dict set ::vbrd::cur fd ""
    if {![catch {close $fd} msg opts]} {
        set status "exit 0"
    } else {
        set ec [dict get $opts -errorcode]
        switch -- [lindex $ec 0] {
            CHILDSTATUS { set status "exit [lindex $ec 2]" }
            CHILDKILLED { set status "signal [lindex $ec 2]" }
            default     { set status "unknown ($msg)" }
        }
    }
    dict set ::vbrd::cur status $status
    return $status
}

# The reason to fail a test after its body if vbrd died meanwhile, else "".
proc vbrd_died_check {} {
    if {[dict size $::vbrd::cur] == 0} { return "" }
    set pid [dict get $::vbrd::cur pid]
    if {$pid != 0 && [lab_exited $pid]} {
        set ::runner::broken "vbrd is no longer running"
        return "vbrd died during the test ([vbrd_reap]):\n[vbrd_log_tail]"
    }
    return ""
}

proc vbrd_pid {} { return [dict get $::vbrd::cur pid] }
proc vbrd_conf {} { return [dict get $::vbrd::cur conf] }
proc vbrd_socket {} { return [dict get $::vbrd::cur socket] }

# Rewrite the running vbrd's config file (for reload tests); same
# substitutions as start_vbrd.
proc vbrd_rewrite_config {text} {
    vbrd_write_config [vbrd_conf] $text [dict get $::vbrd::cur instance] [vbrd_socket]
}

# Rewrite the running vbrd's config to TEXT (as vbrd_rewrite_config) and
# `vbrctl reload` it; fails the test unless the reload answers with the
# next generation. Returns the reply (a dict).
proc vbrd_reload {text} {
    set gen [dict get [vbrctl show config] generation]
    vbrd_rewrite_config $text
    set r [vbrctl reload]
    assert_equal [dict get $r generation] [expr {$gen + 1}] "generation after the reload"
    return $r
}

# The last N lines of the running vbrd's log, indented.
proc vbrd_log_tail {{n 25}} {
    set lines [split [string trimright [_lab_read [dict get $::vbrd::cur log]]] "\n"]
    return [join [lrange $lines end-[expr {$n - 1}] end] "\n"]
}

# vbrctl ARGS...: run `vbrctl -s SOCKET -j ARGS` against the running vbrd and
# return its JSON output as a dict; raise an error with its output if it
# exits non-zero.
proc vbrctl {args} {
    lassign [vbrctl_raw {*}$args] rc out
    if {$rc != 0} {
        error "vbrctl $args: exit $rc: $out"
    }
    if {[catch {json::json2dict $out} d]} {
        error "vbrctl $args: not JSON: $out"
    }
    return $d
}

# Like vbrctl, but return {EXIT_STATUS OUTPUT} (stdout and stderr together)
# without parsing or raising.
proc vbrctl_raw {args} {
    set code [catch {exec timeout 10 $::vbrd::ctl_bin -s [vbrd_socket] -j {*}$args 2>@1} out opts]
    if {!$code} { return [list 0 $out] }
    regsub {\n?child process exited abnormally$} $out {} out
    set ec [dict get $opts -errorcode]
    if {[lindex $ec 0] eq "CHILDSTATUS"} {
        return [list [lindex $ec 2] $out]
    }
    return [list -1 "$out ($ec)"]
}

# --- counters, read through vbrctl ---

# Top-level counter of `show stats`: stat forwarded
proc stat {name} {
    return [dict get [vbrctl show stats] $name]
}

# Drop counter of `show stats`: drops no_route
proc drops {reason} {
    return [dict get [vbrctl show stats] drops $reason]
}

# A key of one entry of `show interfaces`: iface_stat lan0 tx_packets
proc iface_stat {iface key} {
    foreach i [dict get [vbrctl show interfaces] interfaces] {
        if {[dict get $i name] eq $iface} { return [dict get $i $key] }
    }
    error "no interface '$iface' in `vbrctl show interfaces`"
}

# A key of one entry of `show ports`: port_stat p0 rx_packets
proc port_stat {port key} {
    foreach p [dict get [vbrctl show ports] ports] {
        if {[dict get $p name] eq $port} { return [dict get $p $key] }
    }
    error "no port '$port' in `vbrctl show ports`"
}

# The entry of `show neighbors` for ADDRESS, or {} if none.
proc neighbor {address} {
    foreach n [dict get [vbrctl show neighbors] neighbors] {
        if {[dict get $n address] eq $address} { return $n }
    }
    return {}
}

# 5000 -> 5, 3500 -> 3.5
proc _vbrd_seconds {ms} {
    return [expr {$ms % 1000 ? $ms / 1000.0 : $ms / 1000}]
}

proc _vbrd_quote {w} {
    if {[regexp {[\s"\\{}\[\]$;]} $w]} {
        error "unsupported character in command word '$w'"
    }
    return $w
}

# The running vbrd's whole log.
proc vbrd_log {} {
    return [_lab_read [dict get $::vbrd::cur log]]
}

# Path of a tool built with vbrd (pcapgen, tsc-hz): build/NAME or
# build/tests/perf/NAME. Fails the test if it was not built.
proc build_tool {name} {
    foreach d [list $::vbrd::build [file join $::vbrd::build app] [file join $::vbrd::build tests perf]] {
        set f [file join $d $name]
        if {[file executable $f]} { return $f }
    }
    fail "$name is not built (looked in $::vbrd::build and its tests/perf)"
}

# --- config errors (`FILE:LINE: message`) ---

# Line numbers of the lines of TEXT that hold MARK (e.g. a comment "# ERR"
# on each line that must draw an error).
proc lines_marked {text mark} {
    set out {}
    set n 0
    foreach l [split $text "\n"] {
        incr n
        if {[string first $mark $l] >= 0} { lappend out $n }
    }
    return $out
}

# Line numbers of the "FILE:LINE: message" lines of OUT that name FILE,
# sorted (a line with two errors is there twice).
proc error_locations {file out} {
    set locs {}
    foreach l [split $out "\n"] {
        if {[regexp {^(.*?):(\d+): } $l -> f n] && $f eq $file} {
            lappend locs $n
        }
    }
    return [lsort -integer $locs]
}

# Run `vbrd ARGS` in the foreground (for --check-config); return
# {EXIT_STATUS OUTPUT} with stdout and stderr together.
proc vbrd_run {args} {
    set code [catch {exec timeout -k 5 30 $::vbrd::bin {*}$args 2>@1} out opts]
    if {!$code} { return [list 0 $out] }
    regsub {\n?child process exited abnormally$} $out {} out
    set ec [dict get $opts -errorcode]
    if {[lindex $ec 0] eq "CHILDSTATUS"} {
        return [list [lindex $ec 2] $out]
    }
    return [list -1 "$out ($ec)"]
}
