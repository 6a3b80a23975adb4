# Egress QoS across a reload (every qos setting is live): shares changed
# from 70/30 to 30/70 while both businesses are oversubscribed. The
# measured rates move to the new shares; the queues that stay (same
# interface, business and queue names) keep their packets and counters;
# nothing is dropped but at the full tails (no queue_removed); traffic
# keeps flowing through the reload, and routing and neighbors keep working.
#
#   h1 10.0.1.2 ── lan1 [vbrd] lan2 (40M line, businesses gold and bulk) ── h2 10.0.2.2
#                              lan3 (no policy)                          ── h3 10.0.3.2
#
# Classes: UDP to 5201 gold, to 5202 bulk. Load: tools/qos_udp.py, 1400-
# byte datagrams at 1.5x the line to each; nft counts at h2. The line's
# burst is 25 ms at its rate (qos_burst_ms in harness/qos.tcl says why).

source [file join [file dirname [file normalize [info script]]] harness qos.tcl]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1
lab_host h3 10.0.3.2/24 10.0.3.1

set len 1400
set frame [qos_udp_frame $len]
set line_bps 40000000
set line_pps [qos_wire_pps $line_bps $frame]

set conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; },
  { name = "p3"; devargs = "net_af_packet2,iface=@h3@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; },
  { name = "lan3"; port = "p3"; address = "10.0.3.1/24"; }
);
qos = {
  policies = (
    { name = "split"; default_business = "bulk";
      businesses = (
        { name = "gold"; guaranteed = "@G@%"; },
        { name = "bulk"; guaranteed = "@B@%";
          queues = ( { name = "default"; type = "default"; limit = @BL@; } ); }
      );
      classes = (
        { name = "to-gold"; priority = 10; protocol = "udp"; dst_port = 5201; business = "gold"; },
        { name = "to-bulk"; priority = 20; protocol = "udp"; dst_port = 5202; business = "bulk"; }
      ); }
  );
  interfaces = ( { interface = "lan2"; policy = "split"; rate = "@LINE@"; burst = @BURST@; } );
};
}
proc shares {g b {bulk_limit 256}} {
    return [string map [list @G@ $g @B@ $b @BL@ $bulk_limit @LINE@ $::line_bps \
        @BURST@ [qos_burst_bytes $::line_bps]] $::conf]
}

# Frames/s of gold and bulk over window W against shares G and B (percent).
proc assert_shares {w g b} {
    foreach name {gold bulk} pct [list $g $b] {
        set want [expr {$::line_pps * $pct / 100.0}]
        set got [qos_window_pps $w $name]
        note [format "%s %d%%: %.0f frames/s, expected %.0f (%s%%)" $name $pct $got $want [qos_pct $got $want]]
        assert_range $got [expr {0.95 * $want}] [expr {1.05 * $want}] "$name frames/s at $pct%"
    }
}

start_vbrd [list conf [shares 70 30]] {
    qos_sink h2 {gold "udp dport 5201" bulk "udp dport 5202"}
    assert_ping h1 10.0.2.2 2
    assert_ping h1 10.0.3.2 2

    test {reload 70/30 -> 30/70 under overload: rates follow, counters continue, no queue_removed, traffic and routing go on} {
        set mac0 [dict get [neighbor 10.0.2.2] mac]
        set st0 [vbrctl show stats]
        set qos0 [vbrctl show qos lan2]
        set pg [qos_send h1 10.0.2.2 5201 [expr {1.5 * $line_bps}] $len 15]
        set pb [qos_send h1 10.0.2.2 5202 [expr {1.5 * $line_bps}] $len 15]
        qos_wait_overload h2 {gold bulk} {{lan2 gold default} {lan2 bulk default}}
        set w [qos_window h2 lan2 3000]
        assert_shares $w 70 30

        # The reload, inside a window of its own; a ping to h3 (lan3, no
        # policy) runs across it, 100 a second.
        set gen [dict get [vbrctl show config] generation]
        set ping [lab_spawn h1 ping -n -i 0.01 -c 150 -W 1 10.0.3.2]
        set ta [clock microseconds]
        set sa [qos_sink_counts h2]
        set qa [vbrctl show qos lan2]
        after 300
        vbrd_rewrite_config [shares 30 70]
        set r0 [clock milliseconds]
        assert_equal [dict get [vbrctl reload] generation] [expr {$gen + 1}] "generation after the reload"
        set reload_ms [expr {[clock milliseconds] - $r0}]
        set qb [vbrctl show qos lan2]
        after 300
        set sb [qos_sink_counts h2]
        set tb [clock microseconds]
        set got [expr {[dict get $sb gold packets] + [dict get $sb bulk packets]
                       - [dict get $sa gold packets] - [dict get $sa bulk packets]}]
        set cap [expr {$line_pps * ($tb - $ta) / 1e6}]
        note [format "reload took %d ms; the line delivered %d frames in the %.2f s around it, %s%% of what it can send" \
            $reload_ms $got [expr {($tb - $ta) / 1e6}] [qos_pct $got $cap]]
        assert_morethan $got [expr {0.9 * $cap}] "frames delivered across the reload"
        # the new generation reports the new guarantee, the old counters
        assert_equal [dict get [qos_row_of $qb businesses interface lan2 business gold] guaranteed_bps] \
            [expr {$line_bps * 30 / 100}] "gold guaranteed_bps after the reload"
        foreach b {gold bulk} {
            set before [dict get [qos_row_of $qa queues interface lan2 business $b queue default] packets]
            set after [dict get [qos_row_of $qb queues interface lan2 business $b queue default] packets]
            assert_morethan $after $before "$b/default packets after the reload (before: $before)"
        }

        # let the new buckets settle, then the new shares
        wait_for_condition 50 100 {[dict get [qos_business lan2 gold] rate_bps] <
                                    0.45 * $line_bps} else {
            fail "gold's rate did not fall towards 30%: [qos_business lan2 gold]"
        }
        set w [qos_window h2 lan2 3000]
        assert_shares $w 30 70
        qos_stop $pg $pb
        qos_wait_drained lan2

        if {![lab_wait_exit $ping 20000]} { fail "ping did not finish" }
        set ps [ping_stats [lab_spawn_output $ping]]
        assert_equal [dict get $ps received] 150 "echo replies from h3 across the reload"

        set st1 [vbrctl show stats]
        set qos1 [vbrctl show qos lan2]
        # nothing was dropped but at the tails of the full queues
        set full [expr {[dict get $st1 drops queue_full] - [dict get $st0 drops queue_full]}]
        assert_morethan $full 0 "queue_full drops"
        assert_equal [expr {[dict get $st1 drops_total] - [dict get $st0 drops_total]}] $full \
            "all drops of the test are queue_full"
        assert_equal [dict get $st1 drops queue_removed] 0 "drops queue_removed"
        foreach q [dict get $qos1 queues] {
            assert_equal [dict get $q queue_removed] 0 "queue_removed of [dict get $q business]/[dict get $q queue]"
        }
        # the counters continued through the reload: each queue sent, since
        # before the load, every datagram h2 received of its class
        foreach b {gold bulk} {
            set sent [expr {[dict get [qos_row_of $qos1 queues interface lan2 business $b queue default] packets]
                            - [dict get [qos_row_of $qos0 queues interface lan2 business $b queue default] packets]}]
            assert_equal $sent [qos_sink_packets h2 $b] "$b/default packets since the load began = datagrams h2 received"
        }
        set c [qos_row_of $qos1 classes interface lan2 class to-gold]
        assert_morethan [dict get $c packets] [dict get [qos_row_of $qos0 classes interface lan2 class to-gold] packets] \
            "class to-gold packets"
        # neighbors and routes as before
        assert_equal [dict get [neighbor 10.0.2.2] mac] $mac0 "neighbor 10.0.2.2"
        assert_ping h1 10.0.2.2 3
        assert_ping h1 10.0.3.2 3
    }

    test {reload lowering a full queue's limit from 256 to 16 drops the excess as queue_removed, on the queue and in drops} {
        set d0 [drops queue_removed]
        set pb [qos_send h1 10.0.2.2 5202 [expr {3 * $line_bps}] $len 8]
        qos_wait_overload h2 bulk {{lan2 bulk default}}
        # at 3x the queue refills between dequeues of at most 32 frames
        wait_for_condition 50 20 {[dict get [qos_queue lan2 bulk default] depth] >= 200} else {
            fail "bulk/default not full under 3x: [qos_queue lan2 bulk default]"
        }
        set r0 [dict get [qos_queue lan2 bulk default] queue_removed]
        vbrd_rewrite_config [shares 30 70 16]
        vbrctl reload
        set q [qos_queue lan2 bulk default]
        set removed [expr {[dict get $q queue_removed] - $r0}]
        note "queue_removed $removed (the queue held 256 at most, keeps 16)"
        assert_equal [dict get $q limit] 16 "limit after the reload"
        assert_range $removed 150 [expr {256 - 16}] "frames over the new limit dropped as queue_removed"
        assert_equal [expr {[drops queue_removed] - $d0}] $removed "drops queue_removed"
        # the queue goes on, within its new limit
        set p0 [dict get $q packets]
        wait_for_condition 50 100 {[dict get [qos_queue lan2 bulk default] packets] > $p0 + 100} else {
            fail "bulk/default stopped sending after the reload"
        }
        assert_lessthan [dict get [qos_queue lan2 bulk default] depth] 17 "depth after the reload"
        qos_stop $pb
        qos_wait_drained lan2
    }
}
