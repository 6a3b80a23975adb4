# Two workers: each port has two RX/TX queue pairs (af_packet qpairs=2, the
# kernel spreads flows over the queues by hash), the queues are shared out
# over two worker lcores, and every worker has its own TX queue per port.
#
#   h1 10.0.1.2 ── lan1 [vbrd, workers on CPUs 0 and 1] lan2 ── 10.0.2.2 h2

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

set flows 200

start_vbrd {conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@,qpairs=2"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@,qpairs=2"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
workers = { cores = [ 0, 1 ]; idle_sleep_us = 100; };
}} {
    test {two workers, each polling one RX queue of each port} {
        set ws [dict get [vbrctl show stats] workers]
        assert_equal [llength $ws] 2 "workers in show stats"
        foreach w $ws {
            assert_equal [dict get $w rx_queues] 2 "RX queues of worker [dict get $w id]"
        }
        foreach p [dict get [vbrctl show ports] ports] {
            assert_equal [dict get $p rx_queues] 2 "RX queues of port [dict get $p name]"
            assert_equal [dict get $p tx_queues] 2 "TX queues of port [dict get $p name]"
        }
    }

    test "$flows UDP flows h1 -> h2 all arrive and both workers carry some" {
        assert_ping h1 10.0.2.2 2
        set w0 [lmap w [dict get [vbrctl show stats] workers] {dict get $w rx_packets}]
        set h2_0 [dict get [lab_link_stats h2] rx_packets]
        udp_flows h1 10.0.2.2 9 $flows 1000
        wait_for_condition 30 100 {
            [dict get [lab_link_stats h2] rx_packets] - $h2_0 >= $flows
        } else {
            fail "h2 received [expr {[dict get [lab_link_stats h2] rx_packets] - $h2_0}] of $flows"
        }
        set w1 [lmap w [dict get [vbrctl show stats] workers] {dict get $w rx_packets}]
        set d [lmap a $w1 b $w0 {expr {$a - $b}}]
        note "packets per worker: $d"
        foreach n $d {
            # the kernel's fanout hash spreads 200 flows; each queue gets some
            assert_morethan $n [expr {$flows / 10}] "packets received by one worker"
        }
    }

    test {TCP h1 -> h2 with 4 streams over two workers (iperf3, 1 s)} {
        set srv [iperf_server h2]
        set code [catch {iperf_client h1 10.0.2.2 1 -P 4} rep opts]
        lab_kill $srv
        if {$code} { return -options $opts $rep }
        set bps [iperf_rx_bps $rep]
        note [format "TCP, 4 streams: %.1f Mbit/s" [expr {$bps / 1e6}]]
        assert_morethan $bps 5e6 "TCP bits/s received by h2"
    }
}
