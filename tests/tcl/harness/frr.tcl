# FRR's bfdd as a BFD peer (RFC 5880/5881/5883) in a lab host, without
# systemd or watchfrr: the reference implementation that vbrd's BFD must
# interoperate with.
#
#   frr_start HOST CONFIG               zebra + bfdd in HOST, CONFIG = bfdd.conf text
#   frr_bfd_conf PEERS ?-interval MS? ?-multiplier N?
#                                       bfdd.conf text: one `peer` block per spec
#   frr_vtysh HOST CMD ?CMD ...?        vtysh -c CMD ... against HOST's daemons
#   frr_bfd_peers HOST                  `show bfd peers json`, a list of dicts
#   frr_bfd_peer HOST PEER ?KEY VALUE ...?        that peer's dict ("" if none)
#   frr_bfd_peer_state HOST PEER ?KEY VALUE ...?  its status: up down init shutdown
#   frr_bfd_wait_state HOST PEER STATE TIMEOUT_MS ?KEY VALUE ...?  -> ms waited
#   frr_bfd_transitions HOST            state changes from bfdd's log, ms timestamps
#   frr_shutdown_peer HOST PEER ?KEY VALUE ...?   `shutdown` (AdminDown)
#   frr_noshutdown_peer HOST PEER ?KEY VALUE ...? `no shutdown`
#   frr_kill HOST ?DAEMON?              SIGKILL bfdd (or zebra) -> ms of the kill
#   frr_stop HOST                       SIGTERM both, wait, tidy up
#   frr_log HOST ?DAEMON?               a daemon's log file
#
# PEER is the peer address as `show bfd peers json` prints it; KEY VALUE
# pairs pick among sessions to the same address by other JSON fields
# (multihop true, interface eth0, local 10.0.0.1).
#
# Why zebra too: bfdd learns interfaces and addresses only from zebra. A
# peer with `interface IF` stays down without it ("session-enable:
# specified interface IF (VRF default) doesn't exist" in bfdd's log); the
# session is enabled once zebra has announced IF.
#
# Per-host instance: everything lives in RUNDIR/frr-HOST (owned by the frr
# user, whom the daemons switch to; as root they would refuse to start,
# since root is not in the frrvty group): config files, pid files (-i), the
# zserv socket (-z, shared by the two daemons), the vty sockets
# (--vty_socket), bfdd's control socket (--bfdctl) and logs (--log file:).
# -P 0 closes the TCP vty ports (2601, 2617), so no instance, in any
# namespace, binds a port. -f keeps the daemons away from /etc/frr (whose
# frr.conf is the integrated config of a system FRR). The daemons run in the
# foreground under lab_spawn, so lab_cleanup kills them on any failure; a
# lab_on_cleanup script stops them first with SIGTERM (frr_stop), which
# also removes the crash-log directories FRR keeps in /var/tmp/frr/DAEMON.PID
# (left behind by a SIGKILL otherwise).
#
# Authentication: FRR 8.4's bfdd has none. The peer node has no
# authentication command (only detect-multiplier, receive-interval,
# transmit-interval, echo-*, minimum-ttl, passive-mode, profile, shutdown)
# and it never sets the A bit. Debian's 8.4.4 does not look at the A bit
# either: it takes an authenticated packet as a plain one (a capture in
# test_bfd_auth.tcl shows it answering vbrd's keyed-SHA1 packets in Init
# with vbrd's discriminator). FRR's master discards such packets instead
# (bfd_check_auth() in bfdd/bfd_packet.c: "RFC5880 6.7: To be finshed").
# Either way vbrd's RFC 5880 §6.7 authentication cannot be tested against
# it: test_bfd_auth.tcl uses tools/bfd_peer.py.
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [info script]] harness frr.tcl]

package require json

namespace eval frr {
    variable bin /usr/lib/frr
    # host -> dict: dir, spawn (daemon -> lab_spawn pid), pid (daemon -> pid)
    if {![info exists ::frr::inst]} {
        array set ::frr::inst {}
    }
    variable start_ms 10000     ;# ms a daemon may take to come up
}

# Directory of HOST's instance.
proc frr_dir {host} {
    return [file join [lab_rundir] frr-$host]
}

# frr_start HOST CONFIG
#
# Start zebra, then bfdd with CONFIG (the text of bfdd.conf), in HOST's
# namespace; return once bfdd answers vtysh. A `log timestamp precision 3`
# and `debug bfd peer` are prepended, so that bfdd's log has every state
# change with a millisecond timestamp (frr_bfd_transitions). Starting a
# host whose daemons were killed starts them anew with the new CONFIG.
proc frr_start {host config} {
    set dir [frr_dir $host]
    if {[info exists ::frr::inst($host)]} {
        frr_stop $host
    }
    file mkdir $dir
    exec chown frr:frr $dir
    # Start-up probes below treat an existing socket as a live daemon; the
    # logs of an earlier instance, kept as NAME.log.old, would not be
    # writable by the frr user.
    foreach f [glob -nocomplain -directory $dir *.log] {
        file rename -force $f $f.old
    }
    foreach f [glob -nocomplain -directory $dir *.vty *.api *.sock *.pid] {
        file delete $f
    }
    foreach daemon {zebra bfdd} {
        set log($daemon) "hostname $host\nlog file [file join $dir $daemon.log] debugging\nlog timestamp precision 3\n"
    }
    _frr_write [file join $dir zebra.conf] $log(zebra)
    _frr_write [file join $dir bfdd.conf] "$log(bfdd)debug bfd peer\n$config\n"
    set ::frr::inst($host) [dict create dir $dir spawn {} pid {}]
    if {[llength [info procs lab_on_cleanup]] && ![info exists ::frr::hooked]} {
        set ::frr::hooked 1
        lab_on_cleanup {frr_stop_all}
    }

    _frr_spawn $host zebra -z [file join $dir zserv.api]
    _frr_spawn $host bfdd -z [file join $dir zserv.api] \
        --bfdctl [file join $dir bfdd.sock]
    # bfdd answers vtysh (its vty socket exists before its config is read).
    set deadline [expr {[clock milliseconds] + $::frr::start_ms}]
    while {[catch {frr_bfd_peers $host} err]} {
        if {[clock milliseconds] > $deadline} {
            fail "bfdd in $host does not answer vtysh: $err\n[frr_log $host bfdd]"
        }
        after 20
    }
}

# bfdd.conf text: a `bfd` node with one `peer` block per spec in PEERS (the
# words after `peer`: "10.0.0.2 interface eth0", "10.0.9.2 multihop
# local-address 10.0.9.1"), each with receive and transmit interval MS
# (default 10) and detect multiplier N (default 3).
proc frr_bfd_conf {peers args} {
    set ms 10
    set mult 3
    foreach {k v} $args {
        switch -- $k {
            -interval { set ms $v }
            -multiplier { set mult $v }
            default { error "frr_bfd_conf: unknown option $k" }
        }
    }
    set t "bfd\n"
    foreach p $peers {
        append t " peer $p\n  receive-interval $ms\n  transmit-interval $ms\n"
        append t "  detect-multiplier $mult\n !\n"
    }
    append t "!\n"
    return $t
}

# Run vtysh against HOST's daemons, one -c per CMD (so "configure terminal"
# "bfd" "peer ..." "shutdown" is one session); return its output. Raises
# when vtysh fails (unknown command, daemon gone).
proc frr_vtysh {host args} {
    set dir [dict get [_frr_inst $host] dir]
    set cmd [list vtysh --vty_socket $dir]
    foreach c $args { lappend cmd -c $c }
    return [lab_exec - env VTYSH_PAGER=cat {*}$cmd]
}

# `show bfd peers json` of HOST's bfdd: a list of dicts with FRR's keys
# (peer, multihop, interface, local, status, diagnostic, remote-diagnostic,
# id, remote-id, receive-interval, ...; intervals in ms).
proc frr_bfd_peers {host} {
    set dir [dict get [_frr_inst $host] dir]
    set out [lab_exec - env VTYSH_PAGER=cat vtysh --vty_socket $dir -d bfdd \
                 -c "show bfd peers json"]
    return [json::json2dict $out]
}

# The first session of HOST to PEER whose JSON fields match the KEY VALUE
# pairs (e.g. multihop true); "" if there is none.
proc frr_bfd_peer {host peer args} {
    foreach p [frr_bfd_peers $host] {
        if {[dict get $p peer] ne $peer} { continue }
        set ok 1
        foreach {k v} $args {
            if {![dict exists $p $k] || [dict get $p $k] ne $v} { set ok 0 }
        }
        if {$ok} { return $p }
    }
    return ""
}

# Status of that session as FRR names it: up, down, init, shutdown (our
# side AdminDown); "" if there is no such session.
proc frr_bfd_peer_state {host peer args} {
    set p [frr_bfd_peer $host $peer {*}$args]
    if {$p eq ""} { return "" }
    return [dict get $p status]
}

# Wait up to TIMEOUT_MS for the session to reach STATE; return the ms
# waited. Each look costs a vtysh run (~60 ms on a 2-core VM), so the
# figure is an upper bound of when the change happened: for a precise time
# use frr_bfd_transitions. Fails the test with the session's JSON if the
# state is not reached.
proc frr_bfd_wait_state {host peer state timeout_ms args} {
    set t0 [clock milliseconds]
    set deadline [expr {$t0 + $timeout_ms}]
    while 1 {
        set p [frr_bfd_peer $host $peer {*}$args]
        if {$p ne "" && [dict get $p status] eq $state} {
            return [expr {[clock milliseconds] - $t0}]
        }
        if {[clock milliseconds] > $deadline} { break }
        after 10
    }
    fail "BFD session $host -> $peer $args is not $state after $timeout_ms ms: [_frr_peer_summary $p]"
}

# State changes of HOST's sessions from bfdd's log (`debug bfd peer`): a
# list of dicts ms (Unix time in ms, as [clock milliseconds]), peer, from,
# to, oldest first.
proc frr_bfd_transitions {host} {
    set out {}
    # 2026/12/01 22:17:30.123 BFD: [XXXXX-XXXXX] state-change: [mhop:no
    #   peer:10.0.0.2 local:10.0.0.1 ...] up -> down reason:control-expired
    foreach line [split [frr_log $host bfdd] "\n"] {
        if {![regexp {^(\d+/\d+/\d+ \d+:\d+:\d+)\.(\d+) .*state-change: \[([^\]]*)\] (\S+) -> (\S+)} \
                  $line -> ts frac tags from to]} {
            continue
        }
        regexp {peer:(\S+)} $tags -> peer
        scan [string range "${frac}000" 0 2] %d frac_ms
        set ms [expr {[clock scan $ts -format {%Y/%m/%d %H:%M:%S}] * 1000 + $frac_ms}]
        lappend out [dict create ms $ms peer $peer from $from to $to line $line]
    }
    return $out
}

# `shutdown` on HOST's session to PEER: it goes AdminDown and tells the
# peer so (RFC 5880 §6.8.16), which goes down with diagnostic "neighbor
# signaled session down".
proc frr_shutdown_peer {host peer args} {
    frr_vtysh $host "configure terminal" bfd [_frr_peer_line $host $peer $args] shutdown
}

# `no shutdown`: the session starts again from Down.
proc frr_noshutdown_peer {host peer args} {
    frr_vtysh $host "configure terminal" bfd [_frr_peer_line $host $peer $args] "no shutdown"
}

# Kill HOST's DAEMON (bfdd or zebra, default bfdd) with SIGKILL: it sends
# nothing more, its peers must detect it. Returns [clock milliseconds] of
# the moment just before the signal.
proc frr_kill {host {daemon bfdd}} {
    set inst [_frr_inst $host]
    set pid [dict get $inst pid $daemon]
    set t [clock milliseconds]
    exec kill -KILL $pid
    lab_wait_exit [dict get $inst spawn $daemon] 5000
    file delete -force /var/tmp/frr/$daemon.$pid
    return $t
}

# Stop HOST's daemons (SIGTERM, then SIGKILL after 5 s); never raises.
proc frr_stop {host} {
    if {![info exists ::frr::inst($host)]} { return }
    set inst $::frr::inst($host)
    foreach daemon {bfdd zebra} {
        if {![dict exists $inst spawn $daemon]} { continue }
        set spawn [dict get $inst spawn $daemon]
        set pid [dict get $inst pid $daemon]
        if {![lab_exited $spawn]} {
            catch {exec kill -TERM $pid}
            if {![lab_wait_exit $spawn 5000]} {
                catch {exec kill -KILL $pid}
                lab_wait_exit $spawn 2000
            }
        }
        catch {file delete -force /var/tmp/frr/$daemon.$pid}
    }
    unset ::frr::inst($host)
}

proc frr_stop_all {} {
    unset -nocomplain ::frr::hooked
    foreach host [array names ::frr::inst] {
        catch {frr_stop $host}
    }
}

# Log of HOST's DAEMON (bfdd or zebra), "" if none yet.
proc frr_log {host {daemon bfdd}} {
    return [_lab_read [file join [frr_dir $host] $daemon.log]]
}

# --- internals ---

proc _frr_inst {host} {
    if {![info exists ::frr::inst($host)]} {
        error "no FRR started in $host"
    }
    return $::frr::inst($host)
}

# Start DAEMON in HOST's namespace in the foreground with the instance's
# files and EXTRA options; wait for its pid file and vty socket.
proc _frr_spawn {host daemon args} {
    set dir [dict get $::frr::inst($host) dir]
    set pidf [file join $dir $daemon.pid]
    set vty [file join $dir $daemon.vty]
    # off the CPU of vbrd's worker, like the stream tools (stream.tcl)
    set cpu [expr {[exec nproc] > 1 ? {taskset -c 0} : {}}]
    set spawn [lab_spawn $host {*}$cpu [file join $::frr::bin $daemon] \
        -f [file join $dir $daemon.conf] -i $pidf --vty_socket $dir -P 0 \
        {*}$args]
    dict set ::frr::inst($host) spawn $daemon $spawn
    set deadline [expr {[clock milliseconds] + $::frr::start_ms}]
    while {!([file exists $pidf] && [file exists $vty])} {
        if {[lab_exited $spawn] || [clock milliseconds] > $deadline} {
            fail "$daemon in $host did not start:\n[lab_spawn_output $spawn]\n[frr_log $host $daemon]"
        }
        after 10
    }
    # The pid file may exist before the pid is written into it.
    while {![string is integer -strict [set pid [string trim [_lab_read $pidf]]]]} {
        if {[clock milliseconds] > $deadline} {
            fail "$daemon in $host: no pid in $pidf"
        }
        after 10
    }
    dict set ::frr::inst($host) pid $daemon $pid
}

# The `peer ...` line that enters the node of HOST's session to PEER, from
# its JSON (the node's key: address, multihop, local address, interface, VRF).
proc _frr_peer_line {host peer filter} {
    set p [frr_bfd_peer $host $peer {*}$filter]
    if {$p eq ""} {
        fail "no BFD session $host -> $peer $filter"
    }
    set line "peer $peer"
    if {[dict get $p multihop] eq "true"} { append line " multihop" }
    if {[dict exists $p local]} { append line " local-address [dict get $p local]" }
    if {[dict exists $p interface]} { append line " interface [dict get $p interface]" }
    if {[dict exists $p vrf] && [dict get $p vrf] ne "default"} {
        append line " vrf [dict get $p vrf]"
    }
    return $line
}

proc _frr_peer_summary {p} {
    if {$p eq ""} { return "no such session" }
    set s {}
    foreach k {status diagnostic remote-diagnostic id remote-id} {
        if {[dict exists $p $k]} { lappend s "$k=[dict get $p $k]" }
    }
    return [join $s " "]
}

# Write a config file the frr user can read.
proc _frr_write {file text} {
    _lab_write $file $text
    file attributes $file -permissions 0644
}
