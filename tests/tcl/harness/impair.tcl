# Impaired lines: delay, jitter, loss and rate limits between two lab
# endpoints, played by tests/tools/impair (the test kernel has no netem).
#
#   impair_line NAME ?options?        create a line and start the tool
#   impair_set NAME KEY VALUE ...     change settings at run time
#   impair_stats NAME                 counters (dict a2b {...} b2a {...})
#   impair_show NAME                  settings (dict)
#   impair_clear NAME                 zero the counters
#   impair_if NAME a|b                interface name of an end
#
# A line is a namespace PREFIX-NAME (a lab host named NAME, so lab_exec NAME
# works) holding interfaces `ifa` and `ifb`, each the inner end of a veth pair:
#
#   end a ==veth== [ PREFIX-NAME: ifa <-> impair <-> ifb ] ==veth== end b
#
# Each outer end goes either into a lab host's namespace (-a HOST, named
# eth0 unless -a_if says otherwise; TX checksum offload off) or stays in
# the root namespace for vbrd's af_packet ports (-a -, the default): the
# root end of side a is PREFIX-NAME, so @NAME@ in a start_vbrd config names
# it, and that of side b PREFIX-NAME-b. GRO, GSO and TSO are off on the
# inner ends, so the tool sees (and shapes) MTU-sized frames.
#
# Cleanup needs nothing of the caller: the namespace, the root-namespace
# veths and the tool's process are registered with lab.tcl, whose
# lab_cleanup (run.tcl, at the end of every file) deletes them.
#
# Not sourced by helpers.tcl (yet): a test file that uses it does
#   source [file join [file dirname [info script]] harness impair.tcl]

package require json

namespace eval impair {
    # name -> dict: ns pid ctl a b (each end: dict host if)
    if {![info exists ::impair::lines]} {
        array set ::impair::lines {}
    }
}

# Path of the built tool (tests/tools/impair in the build directory).
proc impair_bin {} {
    set f [file join $::vbrd::build tests tools impair]
    if {![file executable $f]} {
        fail "impair is not built (looked for $f; run ninja)"
    }
    return $f
}

# impair_line NAME ?-a HOST? ?-b HOST? ?-a_if IF? ?-b_if IF?
#              ?-a_addr ADDR/LEN? ?-b_addr ADDR/LEN? ?-mtu BYTES?
#              ?-lifetime S? ?-SETTING VALUE ...?
#
# Create line NAME and start the tool on it. -a/-b: the lab host (made with
# lab_netns or lab_host) that gets that end, or - for the root namespace.
# -a_if/-b_if: the end's interface name in that host (default eth0).
# -a_addr/-b_addr: an address for the end (hosts only). -mtu: MTU of all
# four veth ends (bytes, default 1500). -lifetime: seconds after which the
# tool is killed (default 300). Any other -KEY VALUE is a setting of the
# tool (delay, jitter, loss, rate, limit, each optionally -a2b/-b2a; seed;
# reorder 1): -delay 20 -loss-a2b 5 -seed 7.
#
# Returns a dict: ns (namespace), pid (of lab_spawn's `timeout` wrapper: to
# signal the tool itself, use the pid `ip netns pids NS` gives), ctl
# (control socket), a and b (each a dict: host, "-" for the root namespace,
# and if, the end's interface).
proc impair_line {name args} {
    lab_init
    set opt [dict create -a - -b - -a_if eth0 -b_if eth0 -a_addr "" -b_addr "" \
                 -mtu 1500 -lifetime 300]
    set tool {}
    foreach {k v} $args {
        if {[dict exists $opt $k]} {
            dict set opt $k $v
        } elseif {$k eq "-reorder"} {
            if {$v} { lappend tool --reorder }
        } elseif {[regexp {^-[a-z]} $k]} {
            lappend tool "-$k" $v
        } else {
            error "impair_line: bad option '$k'"
        }
    }
    set bin [impair_bin]
    set mtu [dict get $opt -mtu]
    set ns [lab_netns $name]
    set line [dict create ns $ns]
    foreach side {a b} {
        set host [dict get $opt -$side]
        set inner if$side
        if {$host eq "-"} {
            set outer [expr {$side eq "a" ? "[lab_prefix]-$name" : "[lab_prefix]-$name-b"}]
            if {[string length $outer] > 15} {
                error "impair_line: '$outer' too long for an interface name"
            }
            exec ip link add $outer type veth peer name $inner netns $ns
            lappend ::lab::links $outer
            _lab_write /proc/sys/net/ipv6/conf/$outer/disable_ipv6 1
            exec ip link set $outer mtu $mtu up
            if {[dict get $opt -${side}_addr] ne ""} {
                error "impair_line: -${side}_addr needs -$side HOST"
            }
        } else {
            set hns [lab_ns $host]
            set outer [dict get $opt -${side}_if]
            exec ip -n $ns link add $inner type veth peer name $outer netns $hns
            exec ip -n $hns link set $outer mtu $mtu up
            # Checksums computed by the sender, not left to an offload that
            # af_packet readers (vbrd) would see undone.
            exec ip netns exec $hns ethtool -K $outer tx off >/dev/null 2>@1
            if {[dict get $opt -${side}_addr] ne ""} {
                exec ip -n $hns addr add [dict get $opt -${side}_addr] dev $outer
            }
        }
        exec ip -n $ns link set $inner mtu $mtu up
        exec ip netns exec $ns ethtool -K $inner gro off gso off tso off >/dev/null 2>@1
        dict set line $side [dict create host $host if $outer]
    }
    set ctl [file join [lab_rundir] $name-impair.sock]
    set pid [lab_spawn $name -lifetime [dict get $opt -lifetime] \
                 $bin --a ifa --b ifb --ctl $ctl {*}$tool]
    dict set line pid $pid
    dict set line ctl $ctl
    wait_for_condition 50 100 {
        [string match "*impair: ready*" [lab_spawn_output $pid]] || [lab_exited $pid]
    } else {
        fail "impair on line $name did not start:\n[lab_spawn_output $pid]"
    }
    if {[lab_exited $pid]} {
        fail "impair on line $name exited:\n[lab_spawn_output $pid]"
    }
    set ::impair::lines($name) $line
    lappend ::runner::after_checks [list impair_died_check $name]
    return $line
}

# Send one request to line NAME's tool; return the reply. Fails the test if
# the tool answers with an error.
proc impair_ctl {name args} {
    set line [_impair_line $name]
    set code [catch {exec [impair_bin] ctl [dict get $line ctl] {*}$args 2>@1} out]
    if {$code} {
        regsub {\n?child process exited abnormally$} $out {} out
        fail "impair $name: `[join $args]`: $out"
    }
    return $out
}

# impair_set NAME KEY VALUE ?KEY VALUE ...?: change settings of a running
# line, e.g. impair_set l1 delay 50 loss-a2b 100. Units as the tool's
# options: ms, percent, Mbit/s (0 = unlimited), frames; reorder on/off.
proc impair_set {name args} {
    if {[llength $args] == 0 || [llength $args] % 2} {
        error "usage: impair_set NAME KEY VALUE ?KEY VALUE ...?"
    }
    foreach {k v} $args {
        impair_ctl $name set $k $v
    }
}

# Counters of line NAME: dict a2b {rx tx dropped_loss dropped_queue
# tx_errors rx_bytes tx_bytes queued rx_kernel_drops} and b2a {...}
# (frames; bytes of Ethernet frames).
proc impair_stats {name} {
    return [json::json2dict [impair_ctl $name stats]]
}

# Settings of line NAME: dict a2b {delay_ms jitter_ms loss_pct rate_mbit
# limit} b2a {...} reorder seed.
proc impair_show {name} {
    return [json::json2dict [impair_ctl $name show]]
}

# Zero line NAME's counters.
proc impair_clear {name} {
    impair_ctl $name clear
}

# Interface name of end SIDE (a or b) of line NAME, in its host's
# namespace or (host "-") in the root namespace.
proc impair_if {name side} {
    return [dict get [_impair_line $name] $side if]
}

# After every test: "" while line NAME's tool runs, else why it is gone.
proc impair_died_check {name} {
    if {![info exists ::impair::lines($name)]} { return "" }
    set pid [dict get $::impair::lines($name) pid]
    if {![lab_exited $pid]} { return "" }
    unset ::impair::lines($name)
    return "impair on line $name died during the test:\n[lab_spawn_output $pid]"
}

proc _impair_line {name} {
    if {![info exists ::impair::lines($name)]} {
        error "no impair line '$name'"
    }
    return $::impair::lines($name)
}
