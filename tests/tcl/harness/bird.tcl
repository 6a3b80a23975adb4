# BIRD 2 (Debian's bird2) as a BGP speaker in a lab host: a second BGP
# implementation next to FRR's bgpd, the "IDC router" that vbrd's FRR
# peers with. No systemd: each instance is a foreground `bird -f` of the
# test.
#
#   bird_start HOST CONFIG              bird in HOST with CONFIG (bird.conf text)
#   bird_conf ASN ROUTER_ID ?-neighbors SPECS? ?-routes PREFIXES?
#             ?-timers {KEEPALIVE HOLD}? ?-extra TEXT?
#                                       bird.conf text: BGP protocols, static
#                                       routes to announce (SPEC: {NAME ADDR AS
#                                       ?KEY VALUE ...?})
#   bird_configure HOST CONFIG          a new config, `birdc configure`
#   bird_announce HOST PREFIXES         static routes added to the config, reconfigured
#   bird_withdraw HOST PREFIXES         ... removed
#   birdc HOST CMD...                   birdc's output (raises on failure)
#   bird_proto_state HOST NAME          BGP state of protocol NAME: Established,
#                                       Active, Connect, Idle, OpenSent,
#                                       OpenConfirm; down (disabled); "" if none
#   bird_wait_state HOST NAME STATE TIMEOUT_MS   -> ms waited
#   bird_routes HOST ?-family ipv4|ipv6? ?-protocol NAME?
#                                       prefixes learned over BGP (or from NAME)
#   bird_stop HOST                      SIGTERM, wait, tidy up
#   bird_log HOST                       its log file
#
# Per-host instance in RUNDIR/bird-HOST: bird.conf, the control socket
# (-s bird.ctl), the pid file (-P), bird.log. bird runs as root (no -u), so
# it may bind port 179 of HOST's namespace; it runs under lab_spawn, so
# lab_cleanup kills it on any failure, and a lab_on_cleanup script stops it
# first with SIGTERM. Nothing uses /etc/bird or /run/bird, the Debian
# service's (which `make deps` disables: its bird.conf exports every route
# to the root namespace's kernel table).
#
# bird_conf's timers are made for tests: `connect delay time 1` (BIRD
# waits 5 s before its first connection attempt otherwise), `connect retry
# time 2` (120), `error wait time 1, 5` (60, 300: the wait after an error
# before the session may start again), hold time 9, keepalive 3.
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [info script]] harness bird.tcl]

namespace eval bird {
    variable bin /usr/sbin/bird
    variable birdc /usr/sbin/birdc
    # host -> dict: dir, conf (file), sock, spawn (lab_spawn pid), pid, text
    if {![info exists ::bird::inst]} {
        array set ::bird::inst {}
    }
    variable start_ms 10000     ;# ms bird may take to come up
}

proc bird_dir {host} {
    return [file join [lab_rundir] bird-$host]
}

# bird_start HOST CONFIG
#
# Start bird in HOST's namespace with CONFIG (bird.conf text, e.g. from
# bird_conf), a `log` to bird.log with millisecond timestamps prepended;
# return once it answers birdc. Starting a host again stops the running
# instance first.
proc bird_start {host config} {
    if {[info exists ::bird::inst($host)]} {
        bird_stop $host
    }
    set dir [bird_dir $host]
    file mkdir $dir
    foreach f [glob -nocomplain -directory $dir bird.ctl bird.pid] {
        file delete $f
    }
    set conf [file join $dir bird.conf]
    set sock [file join $dir bird.ctl]
    set pidf [file join $dir bird.pid]
    set ::bird::inst($host) [dict create dir $dir conf $conf sock $sock spawn {} pid {} text $config]
    _lab_write $conf [_bird_text $host $config]
    if {![info exists ::bird::hooked]} {
        set ::bird::hooked 1
        lab_on_cleanup {bird_stop_all}
    }
    # off the CPU of vbrd's worker, like FRR's daemons (frr.tcl)
    set cpu [expr {[exec nproc] > 1 ? {taskset -c 0} : {}}]
    set spawn [lab_spawn $host {*}$cpu $::bird::bin -f -c $conf -s $sock -P $pidf]
    dict set ::bird::inst($host) spawn $spawn
    set deadline [expr {[clock milliseconds] + $::bird::start_ms}]
    while {[catch {birdc $host show status} out] || ![string match "*Daemon is up and running*" $out]} {
        if {[lab_exited $spawn] || [clock milliseconds] > $deadline} {
            fail "bird in $host did not start: $out\n[lab_spawn_output $spawn]\n[bird_log $host]"
        }
        after 20
    }
    set pid [string trim [_lab_read $pidf]]
    if {![string is integer -strict $pid]} {
        fail "bird in $host: no pid in $pidf"
    }
    dict set ::bird::inst($host) pid $pid
}

# bird_conf ASN ROUTER_ID ?-neighbors SPECS? ?-routes PREFIXES?
#           ?-timers {KEEPALIVE HOLD}? ?-extra TEXT?
#
# bird.conf text: `router id`, `protocol device`, two static protocols,
# static4 and static6, holding PREFIXES (blackhole routes: what is
# announced), and a BGP protocol per neighbor SPEC {NAME ADDR AS ?KEY
# VALUE ...?}: local AS ASN, neighbor ADDR as AS, each of its channels with
# `import all` (everything learned goes into the table: bird_routes) and
# `export where source = RTS_STATIC` (the static routes only).
#   families {ipv4 ipv6}  channels (default: ADDR's family)
#   local ADDR            the session's source address
#   options LIST          more lines in the protocol block (without ";")
#   channel {FAMILY LIST ...}  more lines in a channel's block, e.g. {ipv4
#                         {"next hop address 10.0.0.2"}} for IPv4 routes
#                         over a session between IPv6 addresses
# KEEPALIVE HOLD: s, default 3 9. EXTRA goes at the end.
proc bird_conf {asn router_id args} {
    set neighbors {}
    set routes {}
    set timers {3 9}
    set extra ""
    foreach {k v} $args {
        switch -- $k {
            -neighbors { set neighbors $v }
            -routes { set routes $v }
            -timers { set timers $v }
            -extra { set extra $v }
            default { error "bird_conf: unknown option $k" }
        }
    }
    set t "router id $router_id;\n\n"
    # The device protocol tells BGP which neighbors are directly connected.
    append t "protocol device {\n\tscan time 10;\n}\n\n"
    foreach f {ipv4 ipv6} s {static4 static6} {
        append t "protocol static $s {\n\t$f;\n"
        foreach p $routes {
            if {[_bird_family $p] eq $f} { append t "\troute $p blackhole;\n" }
        }
        append t "}\n\n"
    }
    foreach spec $neighbors {
        lassign $spec name addr peer_as
        set o [dict merge [dict create families [_bird_family $addr] local "" options {} \
                               channel {}] [lrange $spec 3 end]]
        append t "protocol bgp $name {\n\tlocal"
        if {[dict get $o local] ne ""} { append t " [dict get $o local]" }
        append t " as $asn;\n\tneighbor $addr as $peer_as;\n"
        append t "\tkeepalive time [lindex $timers 0];\n\thold time [lindex $timers 1];\n"
        append t "\tconnect delay time 1;\n\tconnect retry time 2;\n\terror wait time 1, 5;\n"
        foreach line [dict get $o options] { append t "\t$line;\n" }
        foreach f [dict get $o families] {
            append t "\t$f \{\n\t\timport all;\n\t\texport where source = RTS_STATIC;\n"
            if {[dict exists $o channel $f]} {
                foreach line [dict get $o channel $f] { append t "\t\t$line;\n" }
            }
            append t "\t\};\n"
        }
        append t "}\n\n"
    }
    append t $extra
    return $t
}

# Replace HOST's config with CONFIG and have bird take it (`birdc
# configure`: protocols whose options changed restart, static routes
# added or removed are announced or withdrawn at once).
proc bird_configure {host config} {
    set inst [_bird_inst $host]
    _lab_write [dict get $inst conf] [_bird_text $host $config]
    set out [birdc $host configure]
    if {![regexp {Reconfigured|Reconfiguration in progress} $out]} {
        fail "bird in $host did not take the new config: $out"
    }
    dict set ::bird::inst($host) text $config
}

# Add PREFIXES (IPv4 and IPv6 mixed) to the static4/static6 protocols of
# HOST's config (bird_conf's) and reconfigure: bird announces them.
proc bird_announce {host prefixes} {
    set text [dict get [_bird_inst $host] text]
    foreach p $prefixes {
        set f [_bird_family $p]
        set s [expr {$f eq "ipv4" ? "static4" : "static6"}]
        set head "protocol static $s \{\n\t$f;\n"
        set i [string first $head $text]
        if {$i < 0} { error "bird_announce: no static protocol $s in $host's config" }
        set at [expr {$i + [string length $head]}]
        set text "[string range $text 0 $at-1]\troute $p blackhole;\n[string range $text $at end]"
    }
    bird_configure $host $text
}

# Remove PREFIXES' static routes from HOST's config and reconfigure: bird
# withdraws them.
proc bird_withdraw {host prefixes} {
    set text [dict get [_bird_inst $host] text]
    foreach p $prefixes {
        set line "\troute $p blackhole;\n"
        set i [string first $line $text]
        if {$i < 0} { error "bird_withdraw: $p is not announced by $host" }
        set text [string replace $text $i [expr {$i + [string length $line] - 1}]]
    }
    bird_configure $host $text
}

# Run birdc against HOST's bird; return its output without the "BIRD
# x.y.z ready." greeting. Raises when birdc fails (no daemon, bad command).
proc birdc {host args} {
    set sock [dict get [_bird_inst $host] sock]
    set out [lab_exec - $::bird::birdc -s $sock {*}$args]
    regsub {^BIRD [^\n]* ready\.\n?} $out {} out
    return $out
}

# The BGP state of HOST's protocol NAME from `birdc show protocols NAME`
# (the Info column: Established, Active, Connect, Idle, OpenSent,
# OpenConfirm); its State column (down, start) when Info is empty; "" if
# bird has no such protocol.
proc bird_proto_state {host name} {
    if {[catch {birdc $host show protocols $name} out]} { return "" }
    # Name  Proto  Table  State  Since  Info
    # frr4  BGP    ---    up     12:00:01.123  Established
    foreach line [split $out "\n"] {
        set w [regexp -all -inline {\S+} $line]
        if {[lindex $w 0] ne $name} { continue }
        set info [lindex $w 5]
        if {$info ne ""} { return $info }
        return [lindex $w 3]
    }
    return ""
}

# Wait up to TIMEOUT_MS for HOST's protocol NAME to reach STATE; return
# the ms waited. Fails with `show protocols all NAME` and the log's tail.
proc bird_wait_state {host name state timeout_ms} {
    set t0 [clock milliseconds]
    set deadline [expr {$t0 + $timeout_ms}]
    while 1 {
        set s [bird_proto_state $host $name]
        if {$s eq $state} {
            return [expr {[clock milliseconds] - $t0}]
        }
        if {[clock milliseconds] > $deadline} { break }
        after 50
    }
    set detail ""
    catch {set detail [birdc $host show protocols all $name]}
    set log [lrange [split [string trim [bird_log $host]] "\n"] end-10 end]
    fail "BIRD protocol $name in $host is '$s', not $state, after $timeout_ms ms:\n$detail\n[join $log \n]"
}

# Prefixes in HOST's table of FAMILY (ipv4: master4, the default; ipv6:
# master6) that BGP brought in (`show route where source = RTS_BGP`), or
# those of protocol NAME (-protocol NAME), sorted.
proc bird_routes {host args} {
    set family ipv4
    set proto ""
    foreach {k v} $args {
        switch -- $k {
            -family { set family $v }
            -protocol { set proto $v }
            default { error "bird_routes: unknown option $k" }
        }
    }
    set table [expr {$family eq "ipv6" ? "master6" : "master4"}]
    if {$proto ne ""} {
        set out [birdc $host show route table $table protocol $proto]
    } else {
        set out [birdc $host show route table $table where source = RTS_BGP]
    }
    # Table master4:
    # 10.11.1.0/24         unicast [frr4 12:00:01.123] * (100) [AS65001i]
    #         via 10.0.1.1 on eth0
    # A prefix starts its line; further routes to it are indented.
    set prefixes {}
    foreach line [split $out "\n"] {
        if {[regexp {^([0-9a-fA-F.:]+/[0-9]+)\s} $line -> p]} {
            lappend prefixes $p
        }
    }
    return [lsort -unique $prefixes]
}

# Stop HOST's bird (SIGTERM, SIGKILL after 5 s); never raises.
proc bird_stop {host} {
    if {![info exists ::bird::inst($host)]} { return }
    set inst $::bird::inst($host)
    set spawn [dict get $inst spawn]
    set pid [dict get $inst pid]
    if {$pid eq ""} { set pid $spawn }
    if {$spawn ne "" && ![lab_exited $spawn]} {
        catch {exec kill -TERM $pid}
        if {![lab_wait_exit $spawn 5000]} {
            catch {exec kill -KILL $pid}
            lab_wait_exit $spawn 2000
        }
    }
    unset ::bird::inst($host)
}

proc bird_stop_all {} {
    unset -nocomplain ::bird::hooked
    foreach host [array names ::bird::inst] {
        catch {bird_stop $host}
    }
}

# HOST's bird log, "" if none yet.
proc bird_log {host} {
    return [_lab_read [file join [bird_dir $host] bird.log]]
}

# --- internals ---

proc _bird_inst {host} {
    if {![info exists ::bird::inst($host)]} {
        error "no bird started in $host"
    }
    return $::bird::inst($host)
}

# The config file's text: a log with ms timestamps, then CONFIG.
proc _bird_text {host config} {
    set log [file join [bird_dir $host] bird.log]
    return "log \"$log\" all;\ntimeformat log iso long ms;\n\n$config\n"
}

proc _bird_family {addr} {
    return [expr {[string first : $addr] >= 0 ? "ipv6" : "ipv4"}]
}
