# STAMP interoperability (RFC 8762): vbrd's session-reflector answers a
# session-sender built from the RFC's packet layout (tools/stamp_peer.py,
# scapy), and vbrd's session-sender measures a reflector built the same
# way, playing the remote gateway of a path group behind VXLAN.
#
#   h1 10.0.1.2 ── lan 10.0.1.1 [vbrd] line1 172.16.1.1 ══ impair ══ eth0 172.16.1.2 gw
#                               tunnel to-gw: local 192.168.100.1,      vxlan-reflector, answers
#                               remote 172.16.1.9, VNI 1000             ARP for 172.16.1.9
#                               path group gw: p-line1, planes 3
#
# gw's kernel owns 172.16.1.2 only: the tunnel's remote 172.16.1.9 exists
# in the reflector alone, so stopping it is a silent cut of the probes
# while the line still carries pings to 172.16.1.2. Expectations come
# from what the tests did: the sequence numbers, timestamps and TTL the
# sender chose, the delay set on the line, pings' RTT, the reflector's
# own count of what it answered.

source [file join [file dirname [file normalize [info script]]] harness impair.tcl]

set stamp_py [file join [file dirname [file normalize [info script]]] tools stamp_peer.py]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_netns gw
impair_line line1 -b gw -b_addr 172.16.1.2/24
lab_exec gw ip route add default via 172.16.1.1

set planes 3
set interval 40

proc conf {reflector} {
    return "
ports = (
  { name = \"lan\";   devargs = \"net_af_packet0,iface=@h1@\"; },
  { name = \"line1\"; devargs = \"net_af_packet1,iface=[lab_prefix]-line1\"; }
);
interfaces = (
  { name = \"lan\";   port = \"lan\";   address = \"10.0.1.1/24\"; },
  { name = \"line1\"; port = \"line1\"; address = \"172.16.1.1/24\"; }
);
tunnels = (
  { name = \"to-gw\"; type = \"vxlan\"; vni = 1000; local = \"192.168.100.1\"; remote = \"172.16.1.9\"; }
);
path_groups = (
  { name = \"gw\";
    paths = ( { name = \"p-line1\"; tunnel = \"to-gw\"; interface = \"line1\"; via = \"172.16.1.9\";
                planes = $::planes; } ); }
);
routes = ( { prefix = \"10.99.0.0/24\"; path_group = \"gw\"; } );
pathsel = {
  reflector = \"$reflector\";
  reflect_from = \[ \"10.0.1.0/24\" \];
  groups = ( { path_group = \"gw\"; interval = $::interval; window = 50; } );
};
"
}

# The last JSON line a tool printed, as a dict.
proc json_report {out} {
    foreach line [lreverse [split $out "\n"]] {
        if {[string index $line 0] eq "\{"} { return [json::json2dict $line] }
    }
    fail "no JSON report in:\n$out"
}

# stamp_peer.py sender in h1 to vbrd's 10.0.1.1:862 (ARGS: more options).
proc stamp_send {args} {
    return [json_report [lab_exec h1 /usr/bin/python3 $::stamp_py sender --dst 10.0.1.1 {*}$args]]
}

# Reflected sequence numbers of a sender report.
proc refl_seqs {rep} {
    return [lmap p [dict get $rep packets] {
        expr {[dict exists $p reflector_seq] ? [dict get $p reflector_seq] : "lost"}
    }]
}

proc reload_reflector {mode} {
    vbrd_rewrite_config [conf $mode]
    vbrctl reload
}

# `show pathsel planes gw` rows.
proc planes {} { return [dict get [vbrctl show pathsel planes gw] planes] }

proc plane_sum {key} {
    set n 0
    foreach p [planes] { incr n [dict get $p $key] }
    return $n
}

proc all_planes {expr} {
    foreach p [planes] {
        dict with p {}
        if {![expr $expr]} { return 0 }
    }
    return 1
}

# Minimum RTT (ms) of COUNT pings h1 -> gw's kernel (172.16.1.2).
proc min_ping_ms {count} {
    lassign [ping_from h1 172.16.1.2 -c $count -i 0.05 -W 2] rc out
    if {![regexp {rtt min/avg/max/mdev = ([\d.]+)/} $out -> min]} {
        fail "no RTT in ping's output:\n$out"
    }
    return $min
}

proc history {} { return [dict get [vbrctl show pathsel history gw] events] }

# The remote gateway's reflector runs before vbrd starts: its numbering
# of each plane's session starts with vbrd's first probe.
# At SCHED_FIFO, as the failover lab's bfdd: on a busy 2-core machine a
# reflector in Python otherwise queues probes for a second or more.
set refl [lab_spawn gw -lifetime 200 chrt -f 10 /usr/bin/python3 $stamp_py vxlan-reflector --iface eth0 \
              --arp 172.16.1.9 --vni 1000 --mode stateful --seconds 180]
wait_for_condition 100 50 {
    [string match "*stamp_peer: ready*" [lab_spawn_output $refl]] || [lab_exited $refl]
} else {
    fail "vxlan-reflector did not start:\n[lab_spawn_output $refl]"
}

start_vbrd [list conf [conf stateful]] {
    test "vbrd's sender: $planes planes of p-line1 answered by the scapy reflector behind VXLAN, RTT > 0, no loss" {
        if {[lab_exited $refl]} { fail "vxlan-reflector exited:\n[lab_spawn_output $refl]" }
        # a window of 50 probes at 40 ms: 2 s after the first reply
        wait_for_condition 200 50 {[all_planes {$healthy && $rx > 60}]} else {
            fail "planes not all healthy with 110 replies: [planes]"
        }
        set rx0 [plane_sum rx]
        wait_for_condition 100 50 {[plane_sum rx] >= $rx0 + 10 * $planes} else {
            fail "rx does not grow: [planes]"
        }
        foreach p [planes] {
            note "plane [dict get $p plane] sport [dict get $p sport]: tx [dict get $p tx] rx [dict get $p rx] rx_bad [dict get $p rx_bad], rtt min/mean/p99 [dict get $p rtt_min_us]/[dict get $p rtt_mean_us]/[dict get $p rtt_p99_us] us, loss [dict get $p loss_pct] % (fwd [dict get $p loss_fwd_pct], rev [dict get $p loss_rev_pct]), stateful [dict get $p stateful]"
            assert_equal [dict get $p sport] [expr {49152 + [dict get $p plane]}] "outer source port of plane [dict get $p plane]"
            assert_morethan [dict get $p rtt_min_us] 0 "RTT of plane [dict get $p plane]"
            # a scapy reflector on a shared 2-core machine: slow, but not 100 ms slow
            assert_lessthan [dict get $p rtt_min_us] 100000 "min RTT of plane [dict get $p plane], us"
            assert_equal [dict get $p probes_lost] 0 "probes lost in the window, plane [dict get $p plane]"
            assert_equal [dict get $p loss_pct] 0.0 "loss, plane [dict get $p plane]"
            # a reply later than the window (50 probes, 2 s) is rejected:
            # only a reflector stalled that long sends one
            assert_lessthan [dict get $p rx_bad] [expr {[dict get $p rx] / 50 + 1}] "bad replies, plane [dict get $p plane]"
            assert_equal [dict get $p tx_errors] 0 "tx errors, plane [dict get $p plane]"
        }
    }

    test {vbrd's sender: 20 ms more each way on the line raises every plane's RTT by what pings see (40 ms)} {
        set ping0 [min_ping_ms 10]
        set rtt0 [lmap p [planes] {dict get $p rtt_min_us}]
        set t0 [clock microseconds]
        impair_set line1 delay 20
        set code [catch {
            # every probe of the window sent after the step: its minimum has risen
            wait_for_condition 300 50 {[all_planes {$healthy && $rtt_min_us > 30000}]} else {
                fail "RTT did not rise on every plane: [planes]"
            }
            set ping1 [min_ping_ms 10]
            set rtt1 [lmap p [planes] {dict get $p rtt_min_us}]
            set evs [lmap e [history] {
                if {[dict get $e time_us] < $t0} continue
                list [dict get $e event] [dict get $e plane] [dict get $e reason]
            }]
        } result opts]
        impair_set line1 delay 0
        if {$code} { return -options $opts $result }
        set dping [expr {$ping1 - $ping0}]
        note "ping min RTT $ping0 -> $ping1 ms (+$dping); planes' min RTT $rtt0 -> $rtt1 us"
        note "events since the step: $evs"
        assert_range $dping 39 50 "ping RTT added by delay 20"
        foreach a $rtt0 b $rtt1 {
            set d [expr {($b - $a) / 1000.0}]
            # both measure the same 40 ms; a stall adds to some probes, not to
            # the minimum, but the window's minimum is of its last second only
            # (100 probes), against ping's best of 10 answered by the kernel,
            # not by a Python reflector: up to 10 ms more on this loaded machine
            assert_range $d [expr {$dping - 5}] [expr {$dping + 10}] "a plane's RTT added (ms)"
        }
        wait_for_condition 300 50 {[all_planes {$healthy && $rtt_min_us < 20000}]} else {
            fail "RTT did not come back: [planes]"
        }
    }

    test {vbrd's reflector: every probe of a scapy sender answered, its fields echoed, TTL as sent, stateful numbering per session} {
        set rep [stamp_send --count 20 --interval 10 --src-port 41000 --first-seq 1000 --ttl 255]
        note "rtt_ms [dict get $rep rtt_ms], unexpected [dict get $rep unexpected]"
        assert_equal [dict get $rep sent] 20 "sent"
        assert_equal [dict get $rep lost] 0 "lost"
        assert_equal [dict get $rep unexpected] 0 "unexpected replies"
        set i 0
        foreach p [dict get $rep packets] {
            assert_equal [dict get $p seq] [expr {1000 + $i}] "Session-Sender Sequence Number echoed, probe $i"
            assert_equal [dict get $p echo_ok] true "Session-Sender Timestamp and Error Estimate echoed, probe $i"
            # h1 is on vbrd's link: the packet arrives with the TTL it left with
            assert_equal [dict get $p ttl] 255 "Ses-Sender TTL, probe $i"
            assert_morethan [dict get $p rtt_ms] 0 "RTT of probe $i"
            assert_equal [dict get $p reflector_seq] $i "stateful reflector seq of probe $i"
            incr i
        }
        set b [stamp_send --count 3 --interval 10 --src-port 41001 --first-seq 77 --ttl 64]
        assert_equal [refl_seqs $b] {0 1 2} "a second session (port 41001) counts from 0"
        assert_equal [lmap p [dict get $b packets] {dict get $p ttl}] {64 64 64} "Ses-Sender TTL 64"
        set c [stamp_send --count 3 --interval 10 --src-port 41000 --first-seq 5000]
        assert_equal [refl_seqs $c] {20 21 22} "the first session (port 41000) goes on from 20"
    }

    test {vbrd's reflector after a reload to "stateless": the reflector's seq is the sender's} {
        reload_reflector stateless
        set rep [stamp_send --count 20 --interval 10 --src-port 41000 --first-seq 1000]
        assert_equal [dict get $rep lost] 0 "lost"
        assert_equal [refl_seqs $rep] [lmap p [dict get $rep packets] {dict get $p seq}] \
            "reflector seq = sender seq"
        assert_equal [dict get $rep stateless_ok] true "stateless_ok"
        foreach p [dict get $rep packets] {
            assert_equal [dict get $p echo_ok] true "fields echoed, seq [dict get $p seq]"
        }
    }

    test {vbrd's reflector "off": no answers, each test packet dropped as stamp_reflector_off} {
        reload_reflector off
        set d0 [dict get [vbrctl show stats] drops]
        set bad0 [plane_sum rx_bad]
        set rep [stamp_send --count 10 --interval 10 --timeout 0.5]
        assert_equal [dict get $rep received] 0 "answers"
        wait_for_condition 50 50 {[drops stamp_reflector_off] - [dict get $d0 stamp_reflector_off] >= 10} else {
            fail "stamp_reflector_off grew by [expr {[drops stamp_reflector_off] - [dict get $d0 stamp_reflector_off]}], want 10"
        }
        set d1 [dict get [vbrctl show stats] drops]
        # a plane's reply later than its window, if the reflector stalled:
        # each one a plane's rx_bad
        dict incr d0 stamp_unexpected [expr {[plane_sum rx_bad] - $bad0}]
        dict for {k v} $d1 {
            if {[string match stamp_* $k]} {
                set want [expr {[dict get $d0 $k] + ($k eq "stamp_reflector_off" ? 10 : 0)}]
                assert_equal $v $want "drops $k"
            }
        }
        # vbrd's own probes are no test packets to its reflector: they go on
        set rx0 [plane_sum rx]
        wait_for_condition 100 50 {[plane_sum rx] >= $rx0 + 10 * $planes} else {
            fail "the planes' replies stopped with the reflector off: [planes]"
        }
        reload_reflector stateful
        set rep [stamp_send --count 5 --interval 10 --src-port 41002]
        assert_equal [refl_seqs $rep] {0 1 2 3 4} "stateful again"
    }

    test {vbrd's sender: the reflector's count matches vbrd's; with the reflector gone every plane goes down (hard failure)} {
        set t0 [clock microseconds]
        set tx0 [plane_sum tx]
        set t_kill [clock microseconds]
        lab_kill $refl
        if {![lab_wait_exit $refl 10000]} { fail "vxlan-reflector did not exit on SIGTERM" }
        set st [json_report [lab_spawn_output $refl]]
        set tx1 [plane_sum tx]
        wait_for_condition 100 50 {[all_planes {!$healthy}]} else {
            fail "planes still healthy: [planes]"
        }
        set rx [plane_sum rx]
        set bad [plane_sum rx_bad]
        note "reflector: $st; vbrd: tx $tx0..$tx1, rx $rx, rx_bad $bad"
        assert_equal [dict get $st sessions] $planes "reflector sessions (one per plane)"
        assert_equal [dict get $st not_stamp] 0 "VXLAN frames that were no STAMP test packet"
        set answered [dict get $st answered]
        # a reply in flight when the reflector stopped is the only difference
        assert_range [expr {$answered - $rx - $bad}] 0 $planes "answered by the reflector - received by vbrd"
        assert_lessthan $bad [expr {$answered / 50 + 1}] "replies vbrd rejected (later than the window)"
        # what vbrd sent up to the kill, but for the probes of the last
        # ~200 ms (in flight, queued in the reflector's socket, the kill's
        # own delay on a busy machine)
        assert_range $answered [expr {$tx0 - 10 * $planes}] $tx1 "answered vs vbrd's probes sent"
        set evs {}
        set down {}
        foreach e [history] {
            if {[dict get $e time_us] >= $t0} {
                lappend evs [list [dict get $e event] [dict get $e plane] [dict get $e reason]]
                if {[dict get $e event] eq "plane_down"} {
                    lappend down [expr {([dict get $e time_us] - $t_kill) / 1000}]
                }
            }
        }
        note "events: $evs; plane_down [join $down {, }] ms after the kill"
        # a hard failure: lost_down (3) probes lost in a row, each plane
        for {set j 0} {$j < $planes} {incr j} {
            assert_true {[lsearch -exact $evs [list plane_down $j plane_lost]] >= 0} \
                "plane_down of plane $j (plane_lost) in the history: $evs"
        }
        assert_true {[lsearch -exact $evs {path_down -1 plane_lost}] >= 0} \
            "path_down (plane_lost) in the history: $evs"
        # the group's only path is down: no tier switches (there is nowhere
        # to go), each keeps the path, as `show pathsel` says
        assert_equal [llength [lsearch -all -index 0 -exact $evs switch]] 0 "switch events: $evs"
        set g [lindex [dict get [vbrctl show pathsel] path_groups] 0]
        foreach t {gold silver bronze} {
            assert_equal [dict get $g $t] [dict get [lindex [dict get $g paths] 0] name] "tier $t's path"
        }
        foreach ms $down { assert_lessthan $ms 1000 "ms from the kill to a plane_down" }
        # the line itself still works
        assert_ping h1 172.16.1.2 3
    }
}
