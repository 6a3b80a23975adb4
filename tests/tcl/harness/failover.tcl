# The failover lab: an IDC host behind vbrd, and an IDC router (FRR bfdd)
# reached by two lines that form one failover group.
#
#   idc 10.1.0.2/24 ── lan  10.1.0.1/24 [vbrd] line1 172.16.1.1/30 ── eth0 172.16.1.2/30 [rtr]
#                                               line2 172.16.2.1/30 ── eth1 172.16.2.2/30 [rtr]
#                                                                        lo 10.2.0.1/32 (the "region")
#
# vbrd routes 10.2.0.0/24 to failover group "uplink" (member0 line1 via
# 172.16.1.2, member1 line2 via 172.16.2.2), each member with a
# single-hop BFD session (RFC 5881) to rtr's bfdd. A stream from idc to
# 10.2.0.1 reaches rtr by whichever line is active; the receiver runs in
# rtr. A line fails silently when rtr drops everything on its end, both
# ways (blackhole ingress + egress on eth0 or eth1: vbrd's af_packet port
# never sees a link change).
#
#   fo_lab                       hosts idc and rtr, rtr's second line
#   fo_conf ?KEY VALUE ...?      vbrd's config text (see the keys below)
#   fo_frr ?-interval MS? ?-multiplier N?   start bfdd in rtr with both peers
#   fo_cut LINE / fo_heal LINE   blackhole line1|line2 at rtr, both directions
#   fo_group ?NAME?              the row of `show fgroup` (dict)
#   fo_session NAME              the row of `show bfd` (dict)
#   fo_wait_session NAME STATE MS   wait until vbrd's session is in STATE
#   fo_group_events              the group events of `show fgroup history`, oldest first
#   fo_events ?NAME?             all its events (of session or group NAME), oldest first
#   fo_time_us TIME              µs since the epoch of a history or show time
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [info script]] harness failover.tcl]

set _fo_dir [file dirname [file normalize [info script]]]
foreach _f {frr.tcl stream.tcl blackhole.tcl} {
    source [file join $_fo_dir $_f]
}
unset _fo_dir _f

proc fo_lab {} {
    lab_host idc 10.1.0.2/24 10.1.0.1
    set ns [lab_host rtr 172.16.1.2/30 ""]
    # rtr's second line: a veth of our own (lab_host makes eth0 only)
    set rootif "[lab_prefix]-rtr2"
    exec ip link add $rootif type veth peer name eth1 netns $ns
    lappend ::lab::links $rootif
    catch {exec sysctl -qw net.ipv6.conf.$rootif.disable_ipv6=1}
    exec ip link set $rootif up
    exec ip -n $ns link set eth1 up
    exec ip netns exec $ns ethtool -K eth1 tx off >/dev/null 2>@1
    exec ip -n $ns addr add 172.16.2.2/30 dev eth1
    exec ip -n $ns addr add 10.2.0.1/32 dev lo
    # the stream arrives on either line for an address on lo
    foreach i {all default eth0 eth1} {
        exec ip netns exec $ns sysctl -qw net.ipv4.conf.$i.rp_filter=0
    }
    exec ip -n $ns route add 10.1.0.0/24 via 172.16.1.1
}

# Root-namespace end of rtr's line N (what vbrd's port opens).
proc fo_line_if {n} {
    return [expr {$n == 1 ? [lab_if rtr] : "[lab_prefix]-rtr2"}]
}

# Config text. Keys: interval (ms, both sessions, default 10), mult
# (default 3), mode (active-standby), revertive (true), hold_down (ms,
# default 1000), auth (a libconfig auth group for both sessions, or ""),
# extra (text appended), bfd2 (0: member1 has no BFD session).
proc fo_conf {args} {
    set o [dict merge {interval 10 mult 3 mode active-standby revertive true
                       hold_down 1000 auth "" extra "" bfd2 1} $args]
    set auth [expr {[dict get $o auth] ne "" ? "auth = [dict get $o auth];" : ""}]
    set m1bfd [expr {[dict get $o bfd2] ? {bfd = "l2";} : ""}]
    return [string map [list @IDC@ [lab_if idc] @L1@ [fo_line_if 1] @L2@ [fo_line_if 2] \
        @IV@ [dict get $o interval] @MULT@ [dict get $o mult] @MODE@ [dict get $o mode] \
        @REV@ [dict get $o revertive] @HOLD@ [dict get $o hold_down] @AUTH@ $auth \
        @M1BFD@ $m1bfd @EXTRA@ [dict get $o extra]] {
ports = (
  { name = "p0"; devargs = "net_af_packet0,iface=@IDC@"; },
  { name = "p1"; devargs = "net_af_packet1,iface=@L1@"; },
  { name = "p2"; devargs = "net_af_packet2,iface=@L2@"; }
);
interfaces = (
  { name = "lan";   port = "p0"; address = "10.1.0.1/24"; },
  { name = "line1"; port = "p1"; address = "172.16.1.1/30"; },
  { name = "line2"; port = "p2"; address = "172.16.2.1/30"; }
);
bfd = {
  transmit_interval = @IV@; receive_interval = @IV@; detect_multiplier = @MULT@;
  sessions = (
    { name = "l1"; interface = "line1"; peer = "172.16.1.2"; @AUTH@ },
    { name = "l2"; interface = "line2"; peer = "172.16.2.2"; @AUTH@ }
  );
};
failover_groups = (
  { name = "uplink"; mode = "@MODE@"; revertive = @REV@; hold_down = @HOLD@;
    members = (
      { interface = "line1"; via = "172.16.1.2"; bfd = "l1"; },
      { interface = "line2"; via = "172.16.2.2"; @M1BFD@ }
    ); }
);
routes = (
  { prefix = "10.2.0.0/24"; failover_group = "uplink"; }
);
@EXTRA@
}]
}

proc fo_frr {args} {
    set o [dict merge {-interval 10 -multiplier 3} $args]
    frr_start rtr [frr_bfd_conf {
        "172.16.1.1 interface eth0 local-address 172.16.1.2"
        "172.16.2.1 interface eth1 local-address 172.16.2.2"
    } -interval [dict get $o -interval] -multiplier [dict get $o -multiplier]]
}

# Cut line N silently: rtr drops what arrives on it and what it would
# send, both from one instant (one nft transaction on a table whose hooks
# exist already: registering a hook costs an RCU grace period, tens of ms
# here, that would otherwise separate the two directions and lengthen the
# outage by that much).
proc fo_cut {n} {
    set if [expr {$n == 1 ? "eth0" : "eth1"}]
    blackhole_prepare rtr $if
    blackhole_on rtr $if -hook both
}

proc fo_heal {n} {
    set if [expr {$n == 1 ? "eth0" : "eth1"}]
    blackhole_off rtr $if
}

proc fo_group {{name uplink}} {
    return [lindex [dict get [vbrctl show fgroup $name] groups] 0]
}

proc fo_session {name} {
    return [lindex [dict get [vbrctl show bfd $name] sessions] 0]
}

# Wait until vbrd's session NAME is in STATE ("Up", "Down"...); return ms waited.
proc fo_wait_session {name state ms} {
    set t0 [clock milliseconds]
    while {[dict get [fo_session $name] state] ne $state} {
        if {[clock milliseconds] - $t0 > $ms} {
            fail "bfd session $name not $state after $ms ms: [fo_session $name]"
        }
        after 20
    }
    return [expr {[clock milliseconds] - $t0}]
}

# The group events of `show fgroup history` (dicts), oldest first.
proc fo_group_events {} {
    set out {}
    foreach e [dict get [vbrctl show fgroup history] history] {
        if {[dict get $e object] eq "fgroup"} {
            lappend out $e
        }
    }
    return $out
}

# Every event of `show fgroup history` (dicts: time object name from to
# reason detect_to_switch_ns), or those of session or group NAME, oldest first.
proc fo_events {{name ""}} {
    if {$name eq ""} {
        return [dict get [vbrctl show fgroup history] history]
    }
    return [dict get [vbrctl show fgroup history $name] history]
}

# Microseconds since the epoch of a time as vbrd shows it
# ("2026-12-01T22:31:07.123456Z", UTC).
proc fo_time_us {t} {
    if {![regexp {^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{6})Z$} $t -> sec frac]} {
        error "fo_time_us: not a vbrd time: '$t'"
    }
    return [expr {[clock scan $sec -format {%Y-%m-%dT%H:%M:%S} -gmt 1] * 1000000
                  + [scan $frac %d]}]
}
