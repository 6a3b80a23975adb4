# The path-selection harness on its own, with today's vbrd: the
# three-line lab (harness/ps_lab.tcl) and the STAMP peer
# (tools/stamp_peer.py, RFC 8762).
#
#   s1 eth0 10.0.0.1 ==veth== eth0 10.0.0.2 s2        STAMP sender vs reflector
#                                    (10.0.0.9)         and the vxlan-reflector
#
#   h1 -- [edge] line1 (p-line1, cost 30, gold)   [region] -- h2
#                line2 (p-line2, cost 20, silver)
#                line3 (p-line3, cost 10, bronze)
#
# Expectations come from what the tests did: pings and their RTT measured
# in h1, frames counted by the impair tools and by nft counters on the
# lines, sequence numbers the STAMP sender chose.

source [file join [file dirname [file normalize [info script]]] harness ps_lab.tcl]

set stamp_py [file join [file dirname [file normalize [info script]]] tools stamp_peer.py]

# --- the STAMP peer, plain UDP over a veth -----------------------------

lab_netns s1
lab_netns s2
lab_wire s1 eth0 s2 eth0
lab_exec s1 ip addr add 10.0.0.1/24 dev eth0
lab_exec s2 ip addr add 10.0.0.2/24 dev eth0

# Start a reflector in s2 (MODE stateful|stateless); return its pid once
# it listens.
proc stamp_reflector {mode} {
    set pid [lab_spawn s2 -lifetime 60 /usr/bin/python3 $::stamp_py reflector --mode $mode --seconds 50]
    wait_for_condition 100 50 {
        [string match "*stamp_peer: ready*" [lab_spawn_output $pid]] || [lab_exited $pid]
    } else {
        fail "STAMP reflector did not start:\n[lab_spawn_output $pid]"
    }
    if {[lab_exited $pid]} { fail "STAMP reflector exited:\n[lab_spawn_output $pid]" }
    return $pid
}

# The last JSON line a tool printed, as a dict.
proc json_report {out} {
    foreach line [lreverse [split $out "\n"]] {
        if {[string index $line 0] eq "\{"} { return [json::json2dict $line] }
    }
    fail "no JSON report in:\n$out"
}

# Run the sender in s1 (ARGS: more options); its report.
proc stamp_send {args} {
    return [json_report [lab_exec s1 /usr/bin/python3 $::stamp_py sender --dst 10.0.0.2 {*}$args]]
}

# Stop reflector PID; its report.
proc stamp_stop {pid} {
    lab_kill $pid
    if {![lab_wait_exit $pid 10000]} { fail "STAMP reflector did not exit on SIGTERM" }
    return [json_report [lab_spawn_output $pid]]
}

foreach mode {stateless stateful} {
    test "STAMP: 20 probes to a $mode reflector: none lost, RTT > 0, reflector sequence numbers $mode" {
        set r [stamp_reflector $mode]
        # Sender numbers from 1000: a stateful reflector's own count (0..19)
        # then differs from the copy a stateless one sends back.
        set opts [list --count 20 --interval 10 --src-port 40000 --first-seq 1000]
        if {$mode eq "stateless"} { lappend opts --stateless-check }
        set rep [stamp_send {*}$opts]
        set st [stamp_stop $r]
        note "rtt_ms [dict get $rep rtt_ms]; reflector [dict get $st answered] answered"
        assert_equal [dict get $rep sent] 20 "sent"
        assert_equal [dict get $rep lost] 0 "lost"
        assert_equal [dict get $st answered] 20 "reflector answered"
        set i 0
        foreach p [dict get $rep packets] {
            assert_equal [dict get $p seq] [expr {1000 + $i}] "sender seq of probe $i"
            assert_morethan [dict get $p rtt_ms] 0 "RTT of probe $i"
            # Sent with the default TTL 64, straight over the veth.
            assert_equal [dict get $p ttl] 64 "Session-Sender TTL of probe $i"
            set want [expr {$mode eq "stateless" ? 1000 + $i : $i}]
            assert_equal [dict get $p reflector_seq] $want "reflector seq of probe $i"
            incr i
        }
        assert_equal [dict get $rep stateless_ok] [expr {$mode eq "stateless" ? "true" : "false"}] \
            "stateless_ok"
        if {$mode eq "stateful"} { assert_equal [dict get $st sessions] 1 "sessions" }
    }
}

test {STAMP: a stateful reflector counts each session (sender address and port) on its own} {
    set r [stamp_reflector stateful]
    set a [stamp_send --count 5 --interval 5 --src-port 40001]
    set b [stamp_send --count 3 --interval 5 --src-port 40002 --first-seq 77]
    set st [stamp_stop $r]
    assert_equal [lmap p [dict get $a packets] {dict get $p reflector_seq}] {0 1 2 3 4} "session 40001"
    assert_equal [lmap p [dict get $b packets] {dict get $p reflector_seq}] {0 1 2} "session 40002"
    assert_equal [dict get $st sessions] 2 "sessions"
}

test {STAMP: the sender counts probes nobody answers as lost and exits 0} {
    set rep [stamp_send --count 3 --interval 5 --timeout 0.3]
    assert_equal [dict get $rep lost] 3 "lost"
    assert_equal [dict get $rep received] 0 "received"
}

# A remote gateway's reflector behind VXLAN: s1 plays the tunnel's
# sender with kernel sockets (a VXLAN datagram from source port 49155 to
# 10.0.0.9:4789, an address only the reflector answers ARP for) and reads
# the reply on its own port 4789.
set vxlan_probe {
import json, socket, sys
sys.path.insert(0, sys.argv[1])
import stamp_peer as sp
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.layers.vxlan import VXLAN
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(("0.0.0.0", 4789))
rx.settimeout(5)
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
tx.bind(("0.0.0.0", 49155))
out = []
for seq in (500, 501, 502):
    inner = (Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") /
             IP(src="10.99.0.1", dst="10.99.0.2", ttl=64) / UDP(sport=40000, dport=862) /
             sp.StampTest(seq=seq, timestamp=sp.ntp_now()))
    tx.sendto(bytes(VXLAN(vni=1000) / inner), ("10.0.0.9", 4789))
    data, (addr, port) = rx.recvfrom(2048)
    v = VXLAN(data)
    e = v.payload
    r = sp.StampReflected(bytes(e[UDP].payload))
    out.append(dict(outer_src=addr, outer_sport=port, vni=v.vni, inner_src=e[IP].src,
                    inner_dst=e[IP].dst, sport=e[UDP].sport, dport=e[UDP].dport,
                    eth_dst=e[Ether].dst, seq=r.seq, sender_seq=r.sender_seq, ttl=r.sender_ttl))
print(json.dumps(out))
}

test {STAMP: the vxlan-reflector answers inside VXLAN, same VNI and outer source port, inner swapped} {
    set r [lab_spawn s2 -lifetime 60 /usr/bin/python3 $::stamp_py vxlan-reflector --iface eth0 \
               --arp 10.0.0.9 --seconds 50]
    wait_for_condition 100 50 {
        [string match "*stamp_peer: ready*" [lab_spawn_output $r]] || [lab_exited $r]
    } else {
        fail "vxlan-reflector did not start:\n[lab_spawn_output $r]"
    }
    set code [catch {
        lab_exec s1 /usr/bin/python3 -c $::vxlan_probe [file dirname $::stamp_py]
    } out]
    set st [stamp_stop $r]
    if {$code} { fail "probe: $out\nreflector: [lab_spawn_output $r]" }
    set replies [json::json2dict $out]
    note "reflector: $st"
    assert_equal [llength $replies] 3 "replies"
    set i 0
    foreach p $replies {
        assert_equal [dict get $p outer_src] 10.0.0.9 "outer source address"
        assert_equal [dict get $p outer_sport] 49155 "outer source port (the sender's)"
        assert_equal [dict get $p vni] 1000 "VNI"
        assert_equal [list [dict get $p inner_src] [dict get $p inner_dst]] {10.99.0.2 10.99.0.1} "inner addresses"
        assert_equal [list [dict get $p sport] [dict get $p dport]] {862 40000} "inner ports"
        assert_equal [dict get $p eth_dst] 02:00:00:00:00:01 "inner destination MAC"
        assert_equal [dict get $p sender_seq] [expr {500 + $i}] "Session-Sender Sequence Number"
        assert_equal [dict get $p seq] $i "stateful reflector seq"
        assert_equal [dict get $p ttl] 64 "Session-Sender TTL (the inner TTL)"
        incr i
    }
    assert_equal [dict get $st answered] 3 "answered"
    assert_morethan [dict get $st arp_replies] 0 "ARP replies for 10.0.0.9"
}

# --- ps_lab_opts, as config text -----------------------------------------

test {ps_lab_opts: three paths with cost and tier, planes = N only when N > 0, pathsel per side} {
    set e [twosite_conf edge [ps_lab_opts]]
    foreach {n cost tier} {1 30 gold 2 20 silver 3 10 bronze} {
        assert_match "*name = \"p-line$n\"; tunnel = \"to-region\"; interface = \"line$n\";*cost = $cost; tier = \"$tier\"; planes = 4; *" $e
    }
    assert_equal [regexp {pathsel} $e] 0 "no pathsel without ps_conf"
    set e0 [twosite_conf edge [ps_lab_opts planes 0]]
    assert_equal [regexp {planes} $e0] 0 "planes 0: no planes key"
    set o [ps_lab_opts planes 0 ps_conf default interval 5]
    assert_match "*pathsel = \{*path_group = \"region\"; interval = 5;*" [twosite_conf edge $o]
    assert_match "*pathsel = \{*path_group = \"edge\"; interval = 5;*" [twosite_conf region $o]
    set o [ps_lab_opts planes 0 ps_conf {pathsel = { groups = ( { path_group = "@group@"; window = 50; } ); };}]
    assert_match "*path_group = \"edge\"; window = 50;*" [twosite_conf region $o]
}

# --- the three-line lab ----------------------------------------------------

# Minimum RTT (ms) of COUNT pings h1 -> h2, and how many were answered.
proc min_rtt {count} {
    lassign [ping_from h1 10.2.2.2 -c $count -i 0.05 -W 2] rc out
    set st [ping_stats $out]
    if {![regexp {rtt min/avg/max/mdev = ([\d.]+)/} $out -> min]} {
        fail "no RTT in ping's output ([dict get $st received]/$count answered):\n$out"
    }
    return [list $min [dict get $st received]]
}

# Put both sides' groups on path p-lineN.
proc use_line {n} {
    twosite_vbrctl edge path set region p-line$n
    twosite_vbrctl region path set edge p-line$n
}

# planes 0: vbrd rejects the key until it lands.
start_twosite [ps_lab_opts planes 0] {
    test {ps lab: three paths on both sides, p-line1 first and active, cost and tier as configured} {
        foreach side {edge region} group {region edge} {
            set g [lindex [dict get [twosite_vbrctl $side show paths] path_groups] 0]
            assert_equal [dict get $g name] $group "$side group"
            assert_equal [dict get $g active] p-line1 "$side active path"
            set got {}
            foreach p [dict get $g paths] {
                lappend got [dict get $p name] [dict get $p interface] [dict get $p cost] [dict get $p tier]
            }
            assert_equal $got {p-line1 line1 30 gold p-line2 line2 20 silver p-line3 line3 10 bronze} \
                "$side paths"
        }
    }

    test {ps lab: each of the three lines carries h1 <-> h2 when both groups are on it} {
        foreach n {1 2 3} {
            use_line $n
            set f0 [dict create]
            foreach l {line1 line2 line3} {
                dict set f0 $l [list [twosite_line_frames $l a2b] [twosite_line_frames $l b2a]]
            }
            assert_ping h1 10.2.2.2 5
            foreach l {line1 line2 line3} {
                lassign [dict get $f0 $l] a0 b0
                set a [expr {[twosite_line_frames $l a2b] - $a0}]
                set b [expr {[twosite_line_frames $l b2a] - $b0}]
                if {$l eq "line$n"} {
                    assert_morethan $a 4 "$l frames edge -> region"
                    assert_morethan $b 4 "$l frames region -> edge"
                } else {
                    assert_lessthan $a 3 "$l frames edge -> region while on line$n"
                }
            }
        }
        use_line 1
    }

    test {ps lab: a numbered stream h1 -> h2 goes over the active path p-line1} {
        set l0 [lmap l {line1 line2 line3} {twosite_line_frames $l a2b}]
        set s [ps_stream_start 1000 2]
        set rep [ps_stream_result $s]
        set d [lmap l {line1 line2 line3} x $l0 {expr {[twosite_line_frames $l a2b] - $x}}]
        note "received [dict get $rep received] of [dict get $rep sent], lost [dict get $rep lost], longest gap [ps_stream_gap $rep] ms, reordered [ps_stream_reordered $rep]; edge -> region frames per line: $d"
        assert_equal [dict get $rep end_marker] true "end marker"
        set sent [dict get $rep sent]
        assert_morethan [dict get $rep received] [expr {$sent * 99 / 100}] "datagrams received"
        assert_equal [ps_stream_reordered $rep] 0 "reordered over one path"
        assert_morethan [lindex $d 0] [expr {[dict get $rep received] - 1}] "line1 frames"
        assert_lessthan [lindex $d 1] 3 "line2 frames"
        assert_lessthan [lindex $d 2] 3 "line3 frames"
    }

    test {ps_impair line1 delay 60 adds 120 ms to the RTT (60 ms each way); ps_heal takes it away} {
        lassign [min_rtt 10] base n
        assert_equal $n 10 "answered before"
        ps_impair line1 delay 60
        set code [catch {
            lassign [min_rtt 10] slow n
            assert_equal $n 10 "answered with the delay"
            set sh [impair_show line1]
            assert_range [dict get $sh a2b delay_ms] 60 60 "delay a2b"
            assert_range [dict get $sh b2a delay_ms] 60 60 "delay b2a"
        } result opts]
        ps_heal line1
        if {$code} { return -options $opts $result }
        lassign [min_rtt 10] healed n
        note "min RTT: $base ms, with delay 60: $slow ms, healed: $healed ms"
        # The minimum of 10 pings: a stall adds to some, not to all.
        assert_range [expr {$slow - $base}] 119 160 "RTT added by delay 60"
        assert_lessthan [expr {$healed - $base}] 30 "RTT added after ps_heal"
    }

    test {ps_blackhole line2 cuts it both ways; ps_heal restores it} {
        use_line 2
        set code [catch {
            ps_blackhole line2
            lassign [ping_from h1 10.2.2.2 -c 3 -i 0.1 -W 1] rc out
            assert_equal [dict get [ping_stats $out] received] 0 "replies through the blackhole"
            set sh [impair_show line2]
            assert_range [dict get $sh a2b loss_pct] 100 100 "loss a2b"
            assert_range [dict get $sh b2a loss_pct] 100 100 "loss b2a"
            ps_heal line2
            assert_ping h1 10.2.2.2 5
        } result opts]
        ps_heal line2
        use_line 1
        if {$code} { return -options $opts $result }
    }
}

# Pinned planes (today's `plane = N`): p-line1 leaves with outer UDP source
# port 49153 on both sides; p-line2 has none (flow hash ports).
start_twosite [ps_lab_opts planes 0 plane1 1] {
    # Ping COUNT times; {replies, h2's eth0 rx growth, drops dict}.
    proc dropped_ping {line count} {
        set h2_0 [dict get [lab_link_stats h2] rx_packets]
        lassign [ping_from h1 10.2.2.2 -c $count -i 0.1 -W 1] rc out
        set h2 [expr {[dict get [lab_link_stats h2] rx_packets] - $h2_0}]
        return [list [dict get [ping_stats $out] received] $h2 [ps_plane_drops $line]]
    }

    test {ps_drop_plane line1 49153 drops the plane-1 frames edge -> region; another port drops nothing} {
        assert_ping h1 10.2.2.2 3
        set code [catch {
            ps_drop_plane line1 49153
            lassign [dropped_ping line1 5] rx h2 drops
            note "port 49153: replies $rx, h2 received $h2, drops $drops"
            assert_equal $rx 0 "replies"
            # (an ARP of the region towards h2 may come by)
            assert_lessthan $h2 2 "frames at h2"
            assert_equal [dict get $drops a2b] 5 "frames dropped edge -> region"
            assert_equal [dict get $drops b2a] 0 "frames dropped region -> edge"

            ps_drop_plane line1 49154
            lassign [dropped_ping line1 5] rx h2 drops
            note "port 49154: replies $rx, drops $drops"
            assert_equal $rx 5 "replies while dropping another port"
            assert_equal $drops {a2b 0 b2a 0} "drops of port 49154"
        } result opts]
        ps_undrop_plane line1
        if {$code} { return -options $opts $result }
    }

    test {ps_drop_plane drops the region's plane-1 replies too (region -> edge), and ps_undrop_plane ends it} {
        # The edge sends over line2 (hash ports), the region replies over
        # line1 from port 49153: only the replies meet the drop.
        twosite_vbrctl edge path set region p-line2
        set code [catch {
            ps_drop_plane line1 49153
            lassign [dropped_ping line1 5] rx h2 drops
            note "replies $rx, h2 received $h2, drops $drops"
            assert_equal $rx 0 "replies"
            assert_morethan $h2 4 "echo requests at h2"
            assert_equal [dict get $drops a2b] 0 "frames dropped edge -> region"
            assert_equal [dict get $drops b2a] 5 "frames dropped region -> edge"
            ps_undrop_plane line1
            assert_ping h1 10.2.2.2 5
            assert_equal [ps_plane_drops line1] $drops "drops after ps_undrop_plane"
        } result opts]
        ps_undrop_plane line1
        twosite_vbrctl edge path set region p-line1
        if {$code} { return -options $opts $result }
    }
}
