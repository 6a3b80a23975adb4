# Egress QoS, queues inside a business (qos/sched.h): a strict-priority
# queue with a cap is served first, best effort gets what it leaves; the
# weighted queues and the default queue share the rest by percent (DRR),
# with small and with large frames.
#
#   h1 10.0.1.2 ── lan1 [vbrd] lan2 (20M line, policy "queues") ── h2 10.0.2.2
#
# One business "site", 100%: queue High (priority, cap 10M), w50
# (weighted 50%), w30 (weighted 30%), default (the 20% left). Classes by
# UDP destination port: 5401 High, 5402 w50, 5403 w30; 5404 is
# unclassified and goes to the default queue.
#
# Load: tools/qos_udp.py from h1, counted by nft in h2 (harness/qos.tcl);
# rates over 3 s of steady state. The line's burst is 25 ms at its rate
# (qos_burst_ms in harness/qos.tcl says why).

source [file join [file dirname [file normalize [info script]]] harness qos.tcl]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

set line_bps 20000000
set cap_bps 10000000
array set pct {w50 50 w30 30 default 20}

start_vbrd [list conf [string map [list @LINE@ $line_bps @CAP@ $cap_bps @BURST@ [qos_burst_bytes $line_bps] \
        @W50@ $pct(w50) @W30@ $pct(w30)] {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
qos = {
  policies = (
    { name = "queues";
      businesses = (
        { name = "site"; guaranteed = "100%";
          queues = (
            { name = "High"; type = "priority"; cap = "@CAP@"; },
            { name = "w50"; type = "weighted"; percent = @W50@; },
            { name = "w30"; type = "weighted"; percent = @W30@; }
          ); }
      );
      classes = (
        { name = "high"; priority = 10; protocol = "udp"; dst_port = 5401; business = "site"; queue = "High"; },
        { name = "w50"; priority = 20; protocol = "udp"; dst_port = 5402; business = "site"; queue = "w50"; },
        { name = "w30"; priority = 30; protocol = "udp"; dst_port = 5403; business = "site"; queue = "w30"; }
      ); }
  );
  interfaces = ( { interface = "lan2"; policy = "queues"; rate = "@LINE@"; burst = @BURST@; } );
};
}]] {
    qos_sink h2 {High "udp dport 5401" w50 "udp dport 5402" w30 "udp dport 5403" default "udp dport 5404"}
    assert_ping h1 10.0.2.2 2

    test {the default queue holds the percent the weighted ones leave} {
        set d [qos_queue lan2 site default]
        assert_equal [dict get $d type] default
        assert_equal [dict get $d share] "$pct(default)%"
        assert_equal [dict get [qos_queue lan2 site High] type] priority
    }

    test {High at half its cap is never dropped while best effort offers 3x the line} {
        set len 1400
        set frame [qos_udp_frame $len]
        # High: 5 Mbit/s of payload, 5.24M on the wire: half the cap
        set high_bps [expr {$cap_bps / 2}]
        set q0 [qos_queue lan2 site High]
        set r0 [qos_sink_packets h2 High]
        set m0 [port_stat p1 rx_missed]
        set pbe [qos_send h1 10.0.2.2 5404 [expr {3 * $line_bps}] $len 8]
        qos_wait_overload h2 default {{lan2 site default}}
        set ph [qos_send h1 10.0.2.2 5401 $high_bps $len 4]
        wait_for_condition 50 100 {[qos_sink_packets h2 High] > $r0} else {
            fail "High traffic does not arrive"
        }
        set w [qos_window h2 lan2 3000]
        set sent [qos_sent $ph]
        qos_stop $pbe
        qos_wait_drained lan2
        # the queue is empty once its last frame went to the port's TX
        # ring; the frames the ring still holds reach h2 a moment later
        set q [qos_queue lan2 site High]
        set enq [expr {[dict get $q enqueued] - [dict get $q0 enqueued]}]
        wait_for_condition 20 100 {[qos_sink_packets h2 High] - $r0 >= $enq} else {}
        set got [expr {[qos_sink_packets h2 High] - $r0}]
        set full [expr {[dict get $q queue_full] - [dict get $q0 queue_full]}]
        set be [qos_window_pps $w default]
        # best effort: what the line has left after High's frames
        set high_pps [expr {$high_bps / 8.0 / $len}]
        set be_want [expr {[qos_wire_pps $line_bps $frame] - $high_pps}]
        note [format "High: sent %d, received %d, queue_full %d; best effort %.0f frames/s, expected %.0f (%s%%)" \
            $sent $got $full $be $be_want [qos_pct $be $be_want]]
        assert_morethan $sent 1000 "High datagrams sent"
        assert_equal $full 0 "High queue_full"
        # every High datagram vbrd took left it and reached h2; what the
        # sender's kernel sent but vbrd never got (its RX ring full on a
        # loaded host: rx_missed) is the only loss allowed
        set missed [expr {[port_stat p1 rx_missed] - $m0}]
        assert_equal [expr {[dict get $q packets] - [dict get $q0 packets]}] $enq "High packets of show qos = enqueued"
        assert_equal $got $enq "High datagrams received = enqueued"
        assert_range $got [expr {$sent - $missed}] $sent "High datagrams received, $missed missed at vbrd's RX"
        assert_range $be [expr {0.95 * $be_want}] [expr {1.05 * $be_want}] "best effort frames/s"
        assert_morethan [qos_window_delta $w queue_full queues interface lan2 business site queue default] 0 \
            "best effort tail drops"
    }

    # On a loaded machine this test found the cap's bucket 2 ms deep
    # whatever the line's burst (fixed in main's 1953c2f, as the ceiling).
    test {High offered twice its cap is held at its cap +-5%, best effort gets the rest} {
        set len 1400
        set frame [qos_udp_frame $len]
        set ph [qos_send h1 10.0.2.2 5401 [expr {2 * $cap_bps}] $len 6]
        set pbe [qos_send h1 10.0.2.2 5404 [expr {2 * $line_bps}] $len 6]
        qos_wait_overload h2 {High default} {{lan2 site High} {lan2 site default}}
        set w [qos_window h2 lan2 3000]
        qos_stop $ph $pbe
        qos_wait_drained lan2
        # the cap counts the frame and its overhead, as the line does
        set want [qos_wire_pps $cap_bps $frame]
        set be_want [expr {[qos_wire_pps $line_bps $frame] - $want}]
        set got [qos_window_pps $w High]
        set be [qos_window_pps $w default]
        note [format "High: %.0f frames/s, cap %.0f (%s%%); best effort %.0f, expected %.0f (%s%%)" \
            $got $want [qos_pct $got $want] $be $be_want [qos_pct $be $be_want]]
        assert_range $got [expr {0.95 * $want}] [expr {1.05 * $want}] "High frames/s"
        assert_range $be [expr {0.95 * $be_want}] [expr {1.05 * $be_want}] "best effort frames/s"
    }

    # 50/30/20 of the line when all three are oversubscribed; each is
    # offered 0.8x the line's payload rate (1.6x its largest share).
    foreach len {200 1400} {
        test "weighted 50/30/20 under overload with $len-byte datagrams: each its share +-5%" {
            set frame [qos_udp_frame $len]
            array unset wgot
            set pids {}
            foreach port {5402 5403 5404} {
                lappend pids [qos_send h1 10.0.2.2 $port [expr {0.8 * $line_bps}] $len 6]
            }
            qos_wait_overload h2 {w50 w30 default} {{lan2 site w50} {lan2 site w30} {lan2 site default}}
            set w [qos_window h2 lan2 3000]
            qos_stop {*}$pids
            qos_wait_drained lan2
            set line_pps [qos_wire_pps $line_bps $frame]
            set total 0
            foreach q {w50 w30 default} {
                set want [expr {$line_pps * $pct($q) / 100.0}]
                set wgot($q) [qos_window_pps $w $q]
                set total [expr {$total + $wgot($q)}]
                note [format "%s: %.0f frames/s, expected %.0f (%s%%)" $q $wgot($q) $want [qos_pct $wgot($q) $want]]
            }
            note [format "total %.0f frames/s of %.0f (%s%%)" $total $line_pps [qos_pct $total $line_pps]]
            foreach q {w50 w30 default} {
                set want [expr {$line_pps * $pct($q) / 100.0}]
                assert_range $wgot($q) [expr {0.95 * $want}] [expr {1.05 * $want}] "$q frames/s"
            }
        }
    }
}
