# FRR 8.4 in lab hosts, without systemd or watchfrr: bfdd as a BFD peer
# (RFC 5880/5881/5883), the reference implementation that vbrd's BFD must
# interoperate with, and bgpd + zebra as BGP speakers (RFC 4271, RFC 4760),
# zebra optionally with its Forwarding Plane Manager (dplane_fpm_nl).
#
#   frr_start HOST CONFIG ?-daemons {zebra bgpd bfdd}? ?-fpm ADDR:PORT?
#             ?-nhg on|off? ?-listen ADDRS? ?-extra {DAEMON TEXT ...}?
#                                       zebra + the daemons in HOST (default
#                                       zebra bfdd); CONFIG = bgpd.conf text
#                                       if bgpd runs, bfdd.conf text otherwise
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
#   frr_kill HOST ?DAEMON? ?SIGNAL?     SIGKILL bfdd (or zebra, bgpd; or SIGTERM)
#                                       -> ms of the kill
#   frr_restart HOST DAEMON             start a killed daemon again, same config
#   frr_stop HOST                       SIGTERM the daemons, wait, tidy up
#   frr_log HOST ?DAEMON?               a daemon's log file
#
# BGP (bgpd, with zebra; a neighbor's `bfd` needs bfdd in -daemons too):
#
#   frr_bgp_conf ASN ROUTER_ID ?-neighbors SPECS? ?-networks PREFIXES?
#                ?-redistribute {static connected}? ?-timers {KEEPALIVE HOLD}?
#                ?-extra TEXT?         bgpd.conf text (SPEC: {ADDR AS ?KEY VALUE ...?})
#   frr_bgp_neighbor_state HOST PEER    Established, Idle, Connect, Active,
#                                       OpenSent, OpenConfirm; "" if no such neighbor
#   frr_bgp_wait_state HOST PEER STATE TIMEOUT_MS   -> ms waited
#   frr_bgp_routes HOST ?-family ipv4|ipv6?         prefixes of bgpd's RIB
#   frr_zebra_routes HOST ?-family ipv4|ipv6? ?-protocol P?
#                                       zebra's RIB: dict prefix -> {protocol P
#                                       selected 0|1 installed 0|1 nexthops {...}}
#   frr_bgp_announce HOST PREFIXES      `network` statements (either family)
#   frr_bgp_withdraw HOST PREFIXES      `no network`
#
# Zebra's FPM (-fpm ADDR:PORT) and a server that records what it sends:
#
#   fpm_sink_start HOST ?-listen ADDR:PORT? ?-hex 0|1?  tools/fpm_sink.py
#                                       in HOST, listening -> SINK
#   fpm_sink_messages SINK ?-type T? ?-dst PREFIX? ?-match GLOB?
#                                       its lines as dicts (ms type KEY VALUE ...)
#   fpm_sink_prefixes SINK ?TYPE?       prefixes of its TYPE messages (fast)
#   fpm_sink_wait SINK TYPE DST TIMEOUT_MS   -> the first such message
#   fpm_sink_stop SINK
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
# BGP and the FPM in FRR 8.4.4 (Debian 12), as its source reads and as
# seen here (test_bgp_harness.tcl):
# - bgpd -l ADDR (repeatable) listens on port 179 of ADDR only. Its --help
#   says -l "implies -n" (no routes to zebra); the code does not: what it
#   learns still reaches zebra and the kernel. It runs as user frr and
#   binds 179 with CAP_NET_BIND_SERVICE, which it keeps as permitted and
#   raises for the bind.
# - FRR's connect-retry timer is 120 s: a neighbor whose first connection
#   is refused (the peer not up yet) would wait that long; frr_bgp_conf
#   sets 1 s. The eBGP advertisement interval is 0 in 8.4.
# - dplane_fpm_nl connects only once `fpm address` is configured (the older
#   `fpm` module tries 127.0.0.1:2620 unconfigured), 3 s after the config
#   is read (a timer: the docs' "immediately" is not so), and tries again
#   every 3 s while the server refuses or closes. Switching next-hop groups
#   on or off closes the connection; the next one comes 3 s later.
# - Each connection starts with the whole state: next-hop objects
#   (RTM_NEWNEXTHOP, protocol 11 "zebra", when next-hop groups are on),
#   then the selected route of every prefix (connected subnets with
#   protocol 2 "kernel", BGP's with 186), then each change as it happens:
#   a withdrawal is a lone RTM_DELROUTE without next hops, a next hop no
#   longer used an RTM_DELNEXTHOP, and (in the code) a changed route an
#   RTM_DELROUTE and an RTM_NEWROUTE in one FPM frame. IPv4 routes carry
#   NLM_F_REPLACE, IPv6 ones not. An IPv6 route learned from a directly
#   connected peer has the peer's link-local address as gateway. Zebra
#   reads what the server sends and drops it. It still installs every
#   route in its namespace's kernel table as well.
#
# Per-host instance: everything lives in RUNDIR/frr-HOST (owned by the frr
# user, whom the daemons switch to; as root they would refuse to start,
# since root is not in the frrvty group): config files, pid files (-i), the
# zserv socket (-z, shared by the daemons), the vty sockets
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
    # tests/tcl/tools (fpm_sink.py)
    variable tools [file join [file dirname [file dirname [file normalize [info script]]]] tools]
}

# Directory of HOST's instance.
proc frr_dir {host} {
    return [file join [lab_rundir] frr-$host]
}

# frr_start HOST CONFIG ?-daemons LIST? ?-fpm ADDR:PORT? ?-nhg on|off?
#           ?-listen ADDRS? ?-extra {DAEMON TEXT ...}?
#
# Start zebra, then the other daemons of LIST (default {zebra bfdd}; any of
# zebra bfdd staticd bgpd, zebra always, started first; bgpd last) in
# HOST's namespace; return once each of bfdd and bgpd answers vtysh.
# CONFIG is the text of bgpd.conf when bgpd runs, of bfdd.conf otherwise
# (of staticd.conf when only staticd is left); -extra adds text to the
# config of any daemon (zebra: interface or `ip forwarding` lines; bfdd:
# profiles). Every config starts with `log file`, `log timestamp precision
# 3`; bfdd's with `debug bfd peer` too, so that its log has every state
# change with a millisecond timestamp (frr_bfd_transitions), bgpd's with
# `debug bgp neighbor-events`.
#
# -fpm ADDR:PORT loads zebra's dplane_fpm_nl module (`-M dplane_fpm_nl`)
# and writes `fpm address ADDR port PORT` into zebra.conf: zebra then
# connects to that FPM server (over TCP from HOST's namespace, so 127.0.0.1
# is HOST's own loopback) and sends it its whole RIB, then every change.
# -nhg off adds `no fpm use-next-hop-groups` (routes carry their next hops,
# RTA_GATEWAY/RTA_MULTIPATH); on (FRR 8.4's default) sends RTM_NEWNEXTHOP
# objects and routes that name them (RTA_NH_ID).
#
# -listen ADDRS gives bgpd one `-l ADDR` per address: it listens on port
# 179 of those addresses only. Without it bgpd listens on 0.0.0.0 and ::
# of HOST's namespace, whose ports are its own: instances in different
# namespaces never clash either way.
#
# Starting a host whose daemons were killed starts them anew with the new
# CONFIG.
proc frr_start {host config args} {
    set daemons {zebra bfdd}
    set fpm ""
    set nhg ""
    set listen {}
    set extra {}
    foreach {k v} $args {
        switch -- $k {
            -daemons { set daemons $v }
            -fpm { set fpm $v }
            -nhg { set nhg $v }
            -listen { set listen $v }
            -extra { set extra $v }
            default { error "frr_start: unknown option $k" }
        }
    }
    foreach d $daemons {
        if {$d ni {zebra bfdd staticd bgpd}} {
            error "frr_start: daemon '$d' is not one of zebra bfdd staticd bgpd"
        }
    }
    # zebra first (the others connect to its zserv socket), bgpd last (its
    # `neighbor bfd` registers with bfdd through zebra).
    set order {zebra}
    foreach d {bfdd staticd bgpd} {
        if {$d in $daemons} { lappend order $d }
    }
    set main ""
    foreach d {bgpd bfdd staticd} {
        if {$d in $order} { set main $d; break }
    }
    if {$main eq "" && [string trim $config] ne ""} {
        error "frr_start: a CONFIG but only zebra to run"
    }
    if {$nhg ni {"" on off}} {
        error "frr_start: -nhg on|off, not '$nhg'"
    }
    if {$nhg ne "" && $fpm eq ""} {
        error "frr_start: -nhg without -fpm"
    }

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
    foreach daemon $order {
        set text "hostname $host\nlog file [file join $dir $daemon.log] debugging\nlog timestamp precision 3\n"
        switch -- $daemon {
            zebra {
                if {$fpm ne ""} {
                    lassign [_frr_addr_port $fpm] addr port
                    append text "fpm address $addr port $port\n"
                    if {$nhg eq "off"} {
                        append text "no fpm use-next-hop-groups\n"
                    }
                }
            }
            bfdd { append text "debug bfd peer\n" }
            bgpd { append text "debug bgp neighbor-events\n" }
        }
        if {$daemon eq $main} { append text "$config\n" }
        if {[dict exists $extra $daemon]} { append text "[dict get $extra $daemon]\n" }
        _frr_write [file join $dir $daemon.conf] $text
    }
    set ::frr::inst($host) [dict create dir $dir spawn {} pid {} fpm $fpm]
    if {[llength [info procs lab_on_cleanup]] && ![info exists ::frr::hooked]} {
        set ::frr::hooked 1
        lab_on_cleanup {frr_stop_all}
    }

    set zserv [list -z [file join $dir zserv.api]]
    foreach daemon $order {
        switch -- $daemon {
            zebra {
                set opts {}
                if {$fpm ne ""} { lappend opts -M dplane_fpm_nl }
                _frr_spawn $host zebra {*}$zserv {*}$opts
            }
            bfdd {
                _frr_spawn $host bfdd {*}$zserv --bfdctl [file join $dir bfdd.sock]
            }
            staticd { _frr_spawn $host staticd {*}$zserv }
            bgpd {
                set opts {}
                foreach a $listen { lappend opts -l $a }
                _frr_spawn $host bgpd {*}$zserv {*}$opts
            }
        }
    }
    # bfdd and bgpd answer vtysh (their vty sockets exist before their
    # configs are read).
    set deadline [expr {[clock milliseconds] + $::frr::start_ms}]
    if {"bfdd" in $order} {
        while {[catch {frr_bfd_peers $host} err]} {
            if {[clock milliseconds] > $deadline} {
                fail "bfdd in $host does not answer vtysh: $err\n[frr_log $host bfdd]"
            }
            after 20
        }
    }
    if {"bgpd" in $order} {
        while {[catch {_frr_vtysh_daemon $host bgpd "show bgp summary json"} err]} {
            if {[clock milliseconds] > $deadline} {
                fail "bgpd in $host does not answer vtysh: $err\n[frr_log $host bgpd]"
            }
            after 20
        }
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

# Kill HOST's DAEMON (bfdd, zebra or bgpd, default bfdd) with SIGKILL: it
# sends nothing more, its peers must detect it. SIGNAL TERM stops it the
# way it stops itself instead (bgpd sends its peers a Cease first), KILL
# after 5 s. Returns [clock milliseconds] of the moment just before the
# signal, once the daemon has exited.
proc frr_kill {host {daemon bfdd} {signal KILL}} {
    set inst [_frr_inst $host]
    set pid [dict get $inst pid $daemon]
    set spawn [dict get $inst spawn $daemon]
    set t [clock milliseconds]
    exec kill -$signal $pid
    if {![lab_wait_exit $spawn 5000]} {
        catch {exec kill -KILL $pid}
        lab_wait_exit $spawn 2000
    }
    file delete -force /var/tmp/frr/$daemon.$pid
    return $t
}

# Start HOST's DAEMON again, after frr_kill, with the config file and
# options it had (zebra its FPM module, bgpd its -l addresses); return
# once its pid file and vty socket exist (and, for bfdd and bgpd, once it
# answers vtysh). The others keep running. What FRR 8.4 does then
# (test_fpm.tcl): bgpd reconnects to a restarted zebra by itself (its
# zclient retries, ~10 s later here) but never sends it its routes again
# (bgp_zebra_connected() in bgpd/bgp_zebra.c: "TODO - What if we have
# peers and networks configured, do we have to kick-start them?"), so
# zebra's RIB, and what it sends an FPM server, has no BGP route: restart
# bgpd after zebra (frr_kill HOST bgpd TERM, then frr_restart both), as
# watchfrr restarts every daemon when zebra dies. zebra connects to the
# FPM server 3 s after reading its config, as at a first start.
proc frr_restart {host daemon} {
    set inst [_frr_inst $host]
    if {![dict exists $inst args $daemon]} {
        error "frr_restart: $daemon never ran in $host"
    }
    set spawn [dict get $inst spawn $daemon]
    if {![lab_exited $spawn]} {
        error "frr_restart: $daemon in $host is running (frr_kill it first)"
    }
    set dir [dict get $inst dir]
    # _frr_spawn waits for these: the dead daemon's must not count
    file delete [file join $dir $daemon.pid] [file join $dir $daemon.vty]
    _frr_spawn $host $daemon {*}[dict get $inst args $daemon]
    set deadline [expr {[clock milliseconds] + $::frr::start_ms}]
    if {$daemon in {bgpd bfdd}} {
        set cmd [expr {$daemon eq "bgpd" ? "show bgp summary json" : "show bfd peers json"}]
        while {[catch {_frr_vtysh_daemon $host $daemon $cmd} err]} {
            if {[clock milliseconds] > $deadline} {
                fail "$daemon in $host does not answer vtysh after a restart: $err\n[frr_log $host $daemon]"
            }
            after 20
        }
    }
}

# Stop HOST's daemons (SIGTERM, then SIGKILL after 5 s), the last started
# first; never raises.
#
# A zebra with the FPM module is told `no fpm address` first and then
# stopped: FRR 8.4's zebra hangs for good on SIGTERM when its FPM thread is
# re-making the connection at that moment (the server just closed it, or
# a retry every 3 s is failing). Its main thread, shutting down, waits in
# fpm_nl_finish_early() for the FPM thread to cancel its tasks while the
# FPM thread waits in fpm_reconnect() for the main thread to cancel its
# own (thread_cancel_async both ways; FRR PR 17504 fixed it in 2024). Here
# it hung in 8 of 12 stops with the server killed at the same time.
# Disabled, the FPM thread never reconnects again.
proc frr_stop {host} {
    if {![info exists ::frr::inst($host)]} { return }
    set inst $::frr::inst($host)
    if {[dict get $inst fpm] ne "" && [dict exists $inst spawn zebra]
        && ![lab_exited [dict get $inst spawn zebra]]} {
        catch {_frr_fpm_disable $host}
    }
    foreach daemon [lreverse [dict keys [dict get $inst spawn]]] {
        set spawn [dict get $inst spawn $daemon]
        # no pid if it died before writing its pid file: the lab_spawn
        # wrapper (timeout) passes the signal on
        set pid $spawn
        if {[dict exists $inst pid $daemon]} { set pid [dict get $inst pid $daemon] }
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

# Log of HOST's DAEMON (bfdd, zebra, bgpd, staticd), "" if none yet.
proc frr_log {host {daemon bfdd}} {
    return [_lab_read [file join [frr_dir $host] $daemon.log]]
}

# --- BGP ---

# frr_bgp_conf ASN ROUTER_ID ?-neighbors SPECS? ?-networks PREFIXES?
#              ?-redistribute LIST? ?-timers {KEEPALIVE HOLD}? ?-extra TEXT?
#
# bgpd.conf text: `router bgp ASN` with router-id ROUTER_ID, `no bgp
# ebgp-requires-policy` (RFC 8212's default would keep eBGP routes in and
# out until a policy says otherwise), `no bgp network import-check` (a
# `network` is announced whether or not zebra has a route for it), `no bgp
# default ipv4-unicast` (each neighbor activated in its families only),
# `timers bgp KEEPALIVE HOLD` (s, default 3 9), and both address families
# ipv4 and ipv6 unicast, each with its `network` lines (PREFIXES of that
# family; 10 000+ are fine here, faster than frr_bgp_announce), `redistribute
# X` for each X of LIST, and `neighbor ADDR activate` of its neighbors.
#
# A neighbor SPEC is {ADDR AS ?KEY VALUE ...?}:
#   families {ipv4 ipv6}  address families to activate (default: ADDR's)
#   bfd 1                 `neighbor ADDR bfd` (needs bfdd in -daemons)
#   connect S             connect-retry timer, s (default 1; FRR's 120
#                         would leave a first refused connection idle 2 min)
#   timers {KA HOLD}      the neighbor's own keepalive and hold time, s
#   options LIST          more `neighbor ADDR ...` lines, words after ADDR
#                         (e.g. {"ebgp-multihop 2" "update-source lo"})
# -extra TEXT goes after the router node, at the config's top level.
proc frr_bgp_conf {asn router_id args} {
    set neighbors {}
    set networks {}
    set redistribute {}
    set timers {3 9}
    set extra ""
    foreach {k v} $args {
        switch -- $k {
            -neighbors { set neighbors $v }
            -networks { set networks $v }
            -redistribute { set redistribute $v }
            -timers { set timers $v }
            -extra { set extra $v }
            default { error "frr_bgp_conf: unknown option $k" }
        }
    }
    set t "router bgp $asn\n bgp router-id $router_id\n"
    append t " no bgp ebgp-requires-policy\n no bgp network import-check\n"
    append t " no bgp default ipv4-unicast\n bgp log-neighbor-changes\n"
    append t " timers bgp [lindex $timers 0] [lindex $timers 1]\n"
    set active {ipv4 {} ipv6 {}}
    foreach spec $neighbors {
        set addr [lindex $spec 0]
        set o [dict merge [dict create families [_frr_family $addr] bfd 0 \
                               connect 1 timers {} options {}] [lrange $spec 2 end]]
        append t " neighbor $addr remote-as [lindex $spec 1]\n"
        append t " neighbor $addr timers connect [dict get $o connect]\n"
        if {[dict get $o timers] ne ""} {
            append t " neighbor $addr timers [join [dict get $o timers]]\n"
        }
        if {[dict get $o bfd]} { append t " neighbor $addr bfd\n" }
        foreach line [dict get $o options] {
            append t " neighbor $addr $line\n"
        }
        foreach f [dict get $o families] {
            if {$f ni {ipv4 ipv6}} { error "frr_bgp_conf: family '$f'" }
            dict lappend active $f $addr
        }
    }
    foreach f {ipv4 ipv6} {
        append t " !\n address-family $f unicast\n"
        foreach p $networks {
            if {[_frr_family $p] eq $f} { append t "  network $p\n" }
        }
        foreach r $redistribute { append t "  redistribute $r\n" }
        foreach a [dict get $active $f] { append t "  neighbor $a activate\n" }
        append t " exit-address-family\n"
    }
    append t "exit\n!\n$extra"
    return $t
}

# State of HOST's BGP session to PEER (an address) as bgpd names it (RFC
# 4271 §8.2.2): Idle Connect Active OpenSent OpenConfirm Established; ""
# if bgpd has no such neighbor.
proc frr_bgp_neighbor_state {host peer} {
    set out [_frr_vtysh_daemon $host bgpd "show bgp neighbors $peer json"]
    if {[regexp {"bgpState":\s*"([A-Za-z]+)"} $out -> state]} { return $state }
    return ""
}

# Wait up to TIMEOUT_MS for the session to reach STATE; return the ms
# waited (an upper bound: each look is a vtysh run). Fails the test with
# what bgpd says of the neighbor (last reset, its reason) and the tail of
# its log.
proc frr_bgp_wait_state {host peer state timeout_ms} {
    set t0 [clock milliseconds]
    set deadline [expr {$t0 + $timeout_ms}]
    while 1 {
        set s [frr_bgp_neighbor_state $host $peer]
        if {$s eq $state} {
            return [expr {[clock milliseconds] - $t0}]
        }
        if {[clock milliseconds] > $deadline} { break }
        after 50
    }
    set why ""
    catch {
        set out [_frr_vtysh_daemon $host bgpd "show bgp neighbors $peer json"]
        foreach k {lastResetDueTo lastErrorCodeSubcode lastNotificationReason connectionsEstablished} {
            if {[regexp "\"$k\":\\s*(\"\[^\"\]*\"|\[0-9\]+)" $out -> v]} { append why " $k=$v" }
        }
    }
    set log [lrange [split [string trim [frr_log $host bgpd]] "\n"] end-15 end]
    fail "BGP session $host -> $peer is '$s', not $state, after $timeout_ms ms:$why\n[join $log \n]"
}

# Prefixes in HOST's BGP table (`show bgp FAMILY unicast json`), every
# path's, best or not, sorted. FAMILY ipv4 (default) or ipv6.
proc frr_bgp_routes {host args} {
    set family ipv4
    foreach {k v} $args {
        switch -- $k {
            -family { set family $v }
            default { error "frr_bgp_routes: unknown option $k" }
        }
    }
    # Python's json reads 10 000 routes' JSON in a blink; tcllib's takes
    # seconds.
    set script {
import json, sys
d = json.loads(sys.stdin.read() or "{}")
print("\n".join(sorted(d.get("routes", {}))))
}
    return [_frr_vtysh_json $host bgpd "show bgp $family unicast json" $script]
}

# Zebra's RIB in HOST (`show ip route json`, `show ipv6 route json` for
# -family ipv6): a dict prefix -> dict protocol (bgp, connected, kernel,
# static ...), selected 0|1, installed 0|1 (in the FIB: the kernel's table
# and what the FPM is told), nexthops (a list of "ADDR" / "ADDR%IFNAME" /
# "IFNAME") of the selected route, or of the first if none is. -protocol P
# keeps the prefixes whose route is P's.
proc frr_zebra_routes {host args} {
    set family ipv4
    set proto ""
    foreach {k v} $args {
        switch -- $k {
            -family { set family $v }
            -protocol { set proto $v }
            default { error "frr_zebra_routes: unknown option $k" }
        }
    }
    set cmd [expr {$family eq "ipv6" ? "show ipv6 route json" : "show ip route json"}]
    set script {
import json, sys
d = json.loads(sys.stdin.read() or "{}")
for p, entries in d.items():
    e = next((x for x in entries if x.get("selected")), entries[0])
    hops = []
    for n in e.get("nexthops", []):
        a = n.get("ip", "")
        i = n.get("interfaceName", "")
        hops.append(a + "%" + i if a and i else a or i or "-")
    print(p, e.get("protocol", "-"), int(bool(e.get("selected"))),
          int(bool(e.get("installed"))), ",".join(hops) or "-")
}
    set routes [dict create]
    foreach line [_frr_vtysh_json $host zebra $cmd $script] {
        lassign [split $line " "] p pr sel inst hops
        if {$proto ne "" && $pr ne $proto} { continue }
        set hops [expr {$hops eq "-" ? {} : [split $hops ,]}]
        dict set routes $p [dict create protocol $pr selected $sel installed $inst nexthops $hops]
    }
    return $routes
}

# Announce PREFIXES (IPv4 and IPv6 mixed) from HOST's bgpd: a `network`
# statement each in the address family of the prefix (the router's config
# has `no bgp network import-check`, as frr_bgp_conf writes it, so no
# route to it is needed). Up to ~100 through vtysh -c; more as a file of
# commands through `vtysh -f` (one vtysh run: ~10 000 lines in a few
# seconds). For a large table from the start, frr_bgp_conf -networks is
# the fastest.
proc frr_bgp_announce {host prefixes} {
    _frr_bgp_networks $host $prefixes ""
}

# Withdraw PREFIXES (`no network`).
proc frr_bgp_withdraw {host prefixes} {
    _frr_bgp_networks $host $prefixes "no "
}

# --- the FPM server ---

# fpm_sink_start HOST ?-listen ADDR:PORT? ?-hex 0|1?
#
# Start tools/fpm_sink.py in HOST's namespace, listening at ADDR:PORT
# (default 127.0.0.1:2620, FPM's port), and return a handle for the other
# fpm_sink_ procs once it listens. It records every netlink message zebra
# sends, one line each (see the tool); -hex 1 adds the bytes.
proc fpm_sink_start {host args} {
    set listen 127.0.0.1:2620
    set hex 0
    foreach {k v} $args {
        switch -- $k {
            -listen { set listen $v }
            -hex { set hex $v }
            default { error "fpm_sink_start: unknown option $k" }
        }
    }
    set file [lab_file fpm-$host.txt]
    set tool [file join $::frr::tools fpm_sink.py]
    set cmd [list python3 $tool --listen $listen --out $file]
    if {$hex} { lappend cmd --hex }
    set pid [lab_spawn $host {*}$cmd]
    set sink [dict create host $host pid $pid file $file listen $listen]
    set deadline [expr {[clock milliseconds] + $::frr::start_ms}]
    while {![string match "* listening *" [_lab_read $file]]} {
        if {[lab_exited $pid] || [clock milliseconds] > $deadline} {
            fail "fpm_sink.py in $host did not start: [lab_spawn_output $pid]"
        }
        after 20
    }
    return $sink
}

# The sink's lines so far as dicts: ms (Unix time), type (RTM_NEWROUTE,
# RTM_DELROUTE, RTM_NEWNEXTHOP, RTM_DELNEXTHOP, OTHER, listening, connect,
# close, ...) and the line's KEY=VALUE fields (frame family dst proto table
# rtype gw oif nh_id id group ...; connect and close have peer). Filters:
# -type T, -dst PREFIX, -match GLOB (on the raw line). A dict per line
# costs ~0.1 ms: for thousands of routes, fpm_sink_prefixes.
proc fpm_sink_messages {sink args} {
    set type ""
    set dst ""
    set glob *
    foreach {k v} $args {
        switch -- $k {
            -type { set type $v }
            -dst { set dst $v }
            -match { set glob $v }
            default { error "fpm_sink_messages: unknown option $k" }
        }
    }
    set out {}
    foreach line [split [_lab_read [dict get $sink file]] "\n"] {
        if {$line eq "" || ![string match $glob $line]} { continue }
        if {$dst ne "" && [string first " dst=$dst " "$line "] < 0} { continue }
        if {$type ne "" && [string first " $type" $line] < 0} { continue }
        set words [split $line " "]
        set t [lindex $words 1]
        if {$type ne "" && $t ne $type} { continue }
        set m [list ms [lindex $words 0] type $t]
        foreach w [lrange $words 2 end] {
            set eq [string first = $w]
            if {$eq > 0} {
                lappend m [string range $w 0 $eq-1] [string range $w $eq+1 end]
            } else {
                lappend m peer $w
            }
        }
        lappend out [dict create {*}$m]
    }
    return $out
}

# The prefixes (dst) of the sink's messages of TYPE (default
# RTM_NEWROUTE), sorted, each once: for large tables, where
# fpm_sink_messages (a dict per line) is slow.
proc fpm_sink_prefixes {sink {type RTM_NEWROUTE}} {
    set out {}
    foreach line [split [_lab_read [dict get $sink file]] "\n"] {
        if {![string match "* $type *" $line]} { continue }
        set i [string first " dst=" $line]
        if {$i < 0} { continue }
        set j [string first " " $line [incr i 5]]
        lappend out [string range $line $i [expr {$j < 0 ? "end" : $j - 1}]]
    }
    return [lsort -unique $out]
}

# Wait up to TIMEOUT_MS for a message TYPE about DST (a prefix as zebra
# sends it: 10.0.0.0/24, 2001:db8::/64) and return the first; fails with
# the sink's last lines otherwise.
proc fpm_sink_wait {sink type dst timeout_ms} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while 1 {
        set m [fpm_sink_messages $sink -type $type -dst $dst]
        if {[llength $m]} { return [lindex $m 0] }
        if {[clock milliseconds] > $deadline} { break }
        after 50
    }
    set tail [lrange [split [string trim [_lab_read [dict get $sink file]]] "\n"] end-10 end]
    fail "no $type for $dst from zebra within $timeout_ms ms; the sink's last lines:\n[join $tail \n]"
}

# Stop the sink (zebra sees the connection close and retries every 3 s).
proc fpm_sink_stop {sink} {
    set pid [dict get $sink pid]
    lab_kill $pid TERM
    lab_wait_exit $pid 5000
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
    dict set ::frr::inst($host) args $daemon $args
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

# Run one vtysh command against one of HOST's daemons; raises on failure.
proc _frr_vtysh_daemon {host daemon cmd} {
    set dir [dict get [_frr_inst $host] dir]
    return [lab_exec - env VTYSH_PAGER=cat vtysh --vty_socket $dir -d $daemon -c $cmd]
}

# A JSON `show` command of DAEMON piped into the Python SCRIPT: its lines.
proc _frr_vtysh_json {host daemon cmd script} {
    set dir [dict get [_frr_inst $host] dir]
    set out [exec env VTYSH_PAGER=cat timeout $::lab::exec_timeout \
                 vtysh --vty_socket $dir -d $daemon -c $cmd \
                 | python3 -c $script]
    return [split [string trim $out] "\n"]
}

# `no fpm address` in HOST's zebra, and wait (up to 2 s) until its FPM
# thread has taken it (the counter user-disables moves before the thread
# closes the connection and cancels its tasks on the main thread: one more
# command afterwards gives the main thread a turn to run those).
proc _frr_fpm_disable {host} {
    # 5 s at most per vtysh: a stopped (SIGSTOP) zebra would not answer
    set vtysh [list timeout 5 env VTYSH_PAGER=cat vtysh --vty_socket [dict get [_frr_inst $host] dir] -d zebra]
    exec {*}$vtysh -c "configure terminal" -c "no fpm address"
    set deadline [expr {[clock milliseconds] + 2000}]
    while {[clock milliseconds] < $deadline} {
        set out [exec {*}$vtysh -c "show fpm counters json"]
        if {[regexp {"user-disables":\s*([1-9])} $out]} { break }
        after 20
    }
    exec {*}$vtysh -c "show fpm counters json"
}

# ipv4 or ipv6, from an address or prefix.
proc _frr_family {addr} {
    return [expr {[string first : $addr] >= 0 ? "ipv6" : "ipv4"}]
}

# {ADDR PORT} of "ADDR:PORT", "[V6ADDR]:PORT" or "V6ADDR:PORT".
proc _frr_addr_port {s} {
    set i [string last : $s]
    set port [string range $s $i+1 end]
    set addr [string trim [string range $s 0 $i-1] {[]}]
    if {![string is integer -strict $port] || $addr eq ""} {
        error "'$s' is not ADDR:PORT"
    }
    return [list $addr $port]
}

# `network P` (NEG "") or `no network P` (NEG "no ") for each prefix, in
# its address family of HOST's `router bgp`.
proc _frr_bgp_networks {host prefixes neg} {
    set lines {}
    foreach f {ipv4 ipv6} {
        set mine {}
        foreach p $prefixes {
            if {[_frr_family $p] eq $f} { lappend mine " ${neg}network $p" }
        }
        if {[llength $mine]} {
            lappend lines "address-family $f unicast" {*}$mine "exit-address-family"
        }
    }
    if {![llength $lines]} { return }
    if {[llength $prefixes] <= 100} {
        set cmds [list "configure terminal" "router bgp"]
        foreach l $lines { lappend cmds [string trim $l] }
        frr_vtysh $host {*}$cmds
        return
    }
    # vtysh -f reads a file of config lines as if typed in config mode.
    set file [file join [dict get [_frr_inst $host] dir] networks.conf]
    _frr_write $file "router bgp\n[join $lines \n]\nexit\n"
    set dir [dict get [_frr_inst $host] dir]
    set out [lab_exec - env VTYSH_PAGER=cat vtysh --vty_socket $dir -f $file]
    if {[regexp -line {^(% .*|line \d+: .*)$} $out bad]} {
        error "vtysh -f $file in $host: $bad"
    }
}
