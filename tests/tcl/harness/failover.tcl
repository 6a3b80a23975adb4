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
#   fo_wait_group KEY VALUE MS   wait until the group's KEY (active...) is VALUE
#   fo_group_events / fo_bfd_events NAME   `show fgroup history` rows, oldest first
#   fo_time_us TIME              a history row's time as Unix µs
#   fo_sink PORT ?SPORTS?        count a stream's datagrams as rtr accepts them, per line
#   fo_sink_counts               those counts: dict eth0 N eth1 N ?"eth0 SPORT" N ...?
#   fo_stream PORT PPS SECONDS ?-flows N? ?-sport BASE? MIDWAY SCRIPT
#                                a seqstream idc -> 10.2.0.1 that runs SCRIPT
#                                midway; -> {receiver sender} reports
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [info script]] harness failover.tcl]

set _fo_dir [file dirname [file normalize [info script]]]
foreach _f {frr.tcl stream.tcl blackhole.tcl} {
    source [file join $_fo_dir $_f]
}
unset _fo_dir _f

namespace eval fo {
    variable sink ""   ;# the fo_sink table
}

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
    # the cut's hooks registered now, so that fo_cut only adds rules
    # (blackhole.tcl: a new hook costs an RCU grace period)
    blackhole_prepare rtr eth0
    blackhole_prepare rtr eth1
}

# Root-namespace end of rtr's line N (what vbrd's port opens).
proc fo_line_if {n} {
    return [expr {$n == 1 ? [lab_if rtr] : "[lab_prefix]-rtr2"}]
}

# Config text. Keys: interval (ms, both sessions, default 10), mult
# (default 3), mode (active-standby), revertive (true), hold_down (ms,
# default 1000), auth (a libconfig auth group for both sessions, or ""),
# extra (text appended), bfd2 (0: member1 has no BFD session), frames
# (the lines' af_packet TX ring, frames; see below), route (0: no static
# route to the group: BGP brings 10.2.0.0/24, test_bgp_failover.tcl).
#
# The lines' TX rings are 4096 frames, not net_af_packet's 512: a frame
# sent to a veth stays in use until the receiving socket's reader has the
# datagram (the skb points into the ring), and the PMD waits in poll(),
# with no timeout, for a free frame. With 512 frames, a stream receiver in
# rtr that lags 50 ms at 10 kpps (a loaded 2-core machine) stopped vbrd's
# worker, and with it every BFD session of every line. A NIC has no such
# coupling.
proc fo_conf {args} {
    set o [dict merge {interval 10 mult 3 mode active-standby revertive true
                       hold_down 1000 auth "" extra "" bfd2 1 frames 4096 route 1} $args]
    set auth [expr {[dict get $o auth] ne "" ? "auth = [dict get $o auth];" : ""}]
    set m1bfd [expr {[dict get $o bfd2] ? {bfd = "l2";} : ""}]
    return [string map [list @IDC@ [lab_if idc] @L1@ [fo_line_if 1] @L2@ [fo_line_if 2] \
        @IV@ [dict get $o interval] @MULT@ [dict get $o mult] @MODE@ [dict get $o mode] \
        @REV@ [dict get $o revertive] @HOLD@ [dict get $o hold_down] @AUTH@ $auth \
        @M1BFD@ $m1bfd @EXTRA@ [dict get $o extra] \
        @ROUTES@ [expr {[dict get $o route] ? {{ prefix = "10.2.0.0/24"; failover_group = "uplink"; }} : ""}] \
        @FRAMES@ ",framecnt=[dict get $o frames]"] {
ports = (
  { name = "p0"; devargs = "net_af_packet0,iface=@IDC@"; },
  { name = "p1"; devargs = "net_af_packet1,iface=@L1@@FRAMES@"; },
  { name = "p2"; devargs = "net_af_packet2,iface=@L2@@FRAMES@"; }
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
  @ROUTES@
);
@EXTRA@
}]
}

# bfdd runs at SCHED_FIFO (all its threads): at 10 ms x 3 a peer that the
# scheduler holds off for 30 ms declares the session down, and so does
# vbrd when nothing comes; on a shared 2-core machine (compilers, other
# test runs) a normal-priority bfdd does that several times a minute,
# which is noise, not what the tests test. bfdd needs ~1 % of a core.
proc fo_frr {args} {
    set o [dict merge {-interval 10 -multiplier 3} $args]
    frr_start rtr [frr_bfd_conf {
        "172.16.1.1 interface eth0 local-address 172.16.1.2"
        "172.16.2.1 interface eth1 local-address 172.16.2.2"
    } -interval [dict get $o -interval] -multiplier [dict get $o -multiplier]]
    exec chrt -a -f -p 10 [dict get $::frr::inst(rtr) pid bfdd]
}

# Cut line N silently: rtr drops what arrives on it and what it would
# send, both from one instant (one nft transaction), as a line that dies
# does: the stream and rtr's BFD packets stop together. vbrd's port sees
# no link change.
proc fo_cut {n} {
    blackhole_on rtr [_fo_rtr_if $n] -hook both
}

# Heal line N; returns the packets the cut dropped.
proc fo_heal {n} {
    return [blackhole_off rtr [_fo_rtr_if $n]]
}

proc _fo_rtr_if {n} {
    return [expr {$n == 1 ? "eth0" : "eth1"}]
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

# Wait until the row of `show fgroup` has VALUE at KEY; return ms waited.
proc fo_wait_group {key value ms {name uplink}} {
    set t0 [clock milliseconds]
    while {[dict get [fo_group $name] $key] ne $value} {
        if {[clock milliseconds] - $t0 > $ms} {
            fail "group $name: $key not $value after $ms ms: [fo_group $name]"
        }
        after 20
    }
    return [expr {[clock milliseconds] - $t0}]
}

# The group events of `show fgroup history` (dicts: time, from, to,
# reason, detect_to_switch_ns), oldest first. The history keeps the last
# 64 events of sessions and groups together.
proc fo_group_events {} {
    return [_fo_events fgroup ""]
}

# The state changes of BFD session NAME in `show fgroup history`, oldest first.
proc fo_bfd_events {name} {
    return [_fo_events bfd $name]
}

proc _fo_events {object name} {
    set out {}
    foreach e [dict get [vbrctl show fgroup history] history] {
        if {[dict get $e object] eq $object && ($name eq "" || [dict get $e name] eq $name)} {
            lappend out $e
        }
    }
    return $out
}

# "2026-12-01T22:31:07.123456Z" (a history row's time, UTC) as Unix µs.
proc fo_time_us {t} {
    if {![regexp {^(\d+-\d+-\d+T\d+:\d+:\d+)\.(\d{6})Z$} $t -> sec us]} {
        error "fo_time_us: not a history time: '$t'"
    }
    return [expr {[clock scan $sec -format {%Y-%m-%dT%H:%M:%S} -gmt 1] * 1000000 + [scan $us %d]}]
}

# Count the datagrams to UDP PORT that rtr's stack accepts, per line
# (iifname eth0 = line1, eth1 = line2), and per source port in SPORTS.
# Counted in an inet prerouting chain, i.e. after the cut's netdev
# ingress drop: only what got through. Replaces an earlier sink.
proc fo_sink {port {sports {}}} {
    set t "[lab_prefix]_fo_sink"
    set text "table inet $t\ndelete table inet $t\ntable inet $t {\n"
    set rules ""
    foreach if {eth0 eth1} {
        append text "  counter $if { }\n"
        append rules "    iifname \"$if\" udp dport $port counter name \"$if\"\n"
        foreach sp $sports {
            append text "  counter ${if}_$sp { }\n"
            append rules "    iifname \"$if\" udp dport $port udp sport $sp counter name \"${if}_$sp\"\n"
        }
    }
    append text "  chain pre {\n    type filter hook prerouting priority 0; policy accept;\n"
    append text "$rules  }\n}\n"
    set f [lab_file nft-$t.conf]
    _lab_write $f $text
    lab_exec rtr nft -f $f
    set ::fo::sink $t
}

# The sink's counts now: dict with keys eth0, eth1 and "eth0 SPORT",
# "eth1 SPORT" (packets).
proc fo_sink_counts {} {
    set j [json::json2dict [lab_exec rtr nft -j list counters table inet $::fo::sink]]
    set out {}
    foreach item [dict get $j nftables] {
        if {![dict exists $item counter]} { continue }
        set c [dict get $item counter]
        set key [split [dict get $c name] _]
        dict set out $key [dict get $c packets]
    }
    return $out
}

# A seqstream from idc to 10.2.0.1:PORT (receiver in rtr bound to it) of
# PPS for SECONDS, on -flows N flows from source ports -sport BASE.. (default
# 1 flow, base 40000), counted by fo_sink; once rtr has accepted MIDWAY of
# its datagrams, SCRIPT runs in the caller. Returns {RECEIVER SENDER}, the
# two reports (stream.tcl).
proc fo_stream {port pps seconds args} {
    set script [lindex $args end]
    set midway [lindex $args end-1]
    set o [dict merge {-flows 1 -sport 40000} [lrange $args 0 end-2]]
    set flows [dict get $o -flows]
    set base [dict get $o -sport]
    set sports {}
    for {set i 0} {$i < $flows} {incr i} { lappend sports [expr {$base + $i}] }
    fo_sink $port $sports
    set r [stream_recv rtr $port [expr {$seconds + 15}] -bind 10.2.0.1]
    set s [stream_send idc 10.2.0.1 $port $pps $seconds $flows -sport $base]
    wait_for_condition 1000 10 {
        [dict get [set c [fo_sink_counts]] eth0] + [dict get $c eth1] >= $midway || [lab_exited $s]
    } else {
        fail "rtr did not accept $midway datagrams of the stream: [fo_sink_counts]"
    }
    if {[lab_exited $s]} {
        fail "the sender ended before $midway datagrams got through: [lab_spawn_output $s]"
    }
    uplevel 1 $script
    set snd [stream_result $s [expr {int($seconds * 1000) + 30000}]]
    return [list [stream_result $r] $snd]
}

# Every event of `show fgroup history` (dicts: time object name from to
# reason detect_to_switch_ns), or those of session or group NAME, oldest first.
proc fo_events {{name ""}} {
    if {$name eq ""} {
        return [dict get [vbrctl show fgroup history] history]
    }
    return [dict get [vbrctl show fgroup history $name] history]
}

# CPU time the hypervisor took from each vCPU so far (/proc/stat's steal,
# USER_HZ ticks of 10 ms): a list, one per CPU, in ms.
proc fo_steal_ms {} {
    set out {}
    foreach line [split [exec cat /proc/stat] "\n"] {
        if {[regexp {^cpu[0-9]+ } $line]} {
            lappend out [expr {[lindex $line 8] * 10}]
        }
    }
    return $out
}

# Call when a session that nothing cut has flapped. When vbrd's BFD worker
# was itself away from its loop for at least DETECT_MS (`show bfd counters`
# loop_gap_max_us), or the hypervisor took at least DETECT_MS from a vCPU
# since STEAL0 (fo_steal_ms: this shared VM's vCPUs stop now and then, and
# a stopped bfdd or worker misses its peer's packets), the flap measures the
# machine and the test is skipped saying so; otherwise it fails with WHAT.
proc fo_flap_verdict {what detect_ms {steal0 {}}} {
    set gap [dict get [vbrctl show bfd counters] worker loop_gap_max_us]
    set stolen 0
    if {$steal0 ne ""} {
        foreach a $steal0 b [fo_steal_ms] { set stolen [expr {max($stolen, $b - $a)}] }
    }
    if {$gap >= $detect_ms * 1000 || $stolen >= $detect_ms} {
        skip "$what, but this machine stopped it: vbrd's BFD worker was off its loop for up to [expr {$gap / 1000.0}] ms and the hypervisor took $stolen ms from a vCPU meanwhile (the detection time is $detect_ms ms)"
    }
    fail "$what (the BFD worker's longest time away from its loop was [expr {$gap / 1000.0}] ms, the hypervisor took $stolen ms from a vCPU: under the $detect_ms ms detection time)"
}
