# Egress QoS, the RoCEv2/TCP example (conf/examples/qos-roce-tcp.conf):
# its policy as written -- business roce guaranteed 80% at priority 0
# with a 1024-packet queue, business tcp 20% (the default business),
# classes UDP to 4791 -> roce and TCP -> tcp -- on a 40 Mbit/s line
# instead of the example's 10G (with a burst), and the lab's 1500-byte MTU.
#
#   h1 10.0.1.2 ── lan1 [vbrd] lan2 (40M line "roce-tcp") ── h2 10.0.2.2
#
# Load: one iperf3 TCP flow h1 -> h2 (started first: its control
# connection and handshake cross an idle line) and RoCE played by UDP to
# port 4791 at 2x the line (tools/qos_udp.py; RoCE's own congestion
# control is not played). TCP backs off at every loss, so what it gets
# depends on its window as well as on vbrd: the test asserts that RoCE is
# held at 80% of the line +-5% (it would get more if TCP left its 20%
# idle, since a busy business lends nothing) and that TCP, competing
# with a 2x overload, still gets at least 15% of the line. The rates are
# the receiver's (nft counters in h2), in wire bits: frame + 24 bytes.
# The line's burst is 25 ms at its rate (qos_burst_ms in harness/qos.tcl).

source [file join [file dirname [file normalize [info script]]] harness qos.tcl]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

set line_bps 40000000
set len 1400

# The example's qos section with the line's interface and rate replaced.
set example [_lab_read [file join $::vbrd::root conf examples qos-roce-tcp.conf]]
if {![regexp {\nqos = \{.*?\n\};\n} $example qos]} {
    error "no qos section in conf/examples/qos-roce-tcp.conf"
}
regexp {guaranteed = "(\d+)%"; priority = 0;} $qos -> roce_pct
regexp {name = "tcp"; guaranteed = "(\d+)%"} $qos -> tcp_pct
set qos [string map [list {interface = "line1"} {interface = "lan2"} \
    {rate = "10G"} "rate = \"$line_bps\"; burst = [qos_burst_bytes $line_bps]"] $qos]

start_vbrd [list conf [string cat {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
} $qos]] {
    qos_sink h2 {roce "udp dport 4791" tcp "tcp dport 5201"} {tcp}
    assert_ping h1 10.0.2.2 2

    test {the example's policy is in force: roce 80% priority 0, tcp 20%, ECN on roce's queue} {
        assert_equal $roce_pct 80 "roce's guarantee in the example"
        assert_equal $tcp_pct 20 "tcp's guarantee in the example"
        set r [qos_business lan2 roce]
        assert_equal [dict get $r guaranteed_bps] [expr {$line_bps * $roce_pct / 100}]
        assert_equal [dict get $r priority] 0
        assert_equal [dict get [qos_queue lan2 roce rdma] limit] 1024
        # RoCE's queue marks ECN CE (a ramp); its load here is Not-ECT
        assert_equal [dict get [qos_queue lan2 roce rdma] ecn] ramp
    }

    test {RoCEv2 at 2x the line and one TCP flow: RoCE holds 80% +-5% of the line, TCP at least 15%} {
        iperf_server h2 5201
        set tcp [lab_spawn h1 -lifetime 40 iperf3 -c 10.0.2.2 -p 5201 -t 9 -J --connect-timeout 3000]
        set t0 [qos_sink_packets h2 tcp]
        wait_for_condition 50 100 {[qos_sink_packets h2 tcp] - $t0 > 200} else {
            fail "the TCP flow does not start:\n[lab_spawn_output $tcp]"
        }
        set roce [qos_send h1 10.0.2.2 4791 [expr {2 * $line_bps}] $len 7]
        qos_wait_overload h2 roce {{lan2 roce rdma}}
        # one more second for TCP to recover from its first losses
        after 1000
        set w [qos_window h2 lan2 3000]
        qos_stop $roce
        if {![lab_wait_exit $tcp 20000]} { fail "iperf3 did not finish" }
        qos_wait_drained lan2
        set dt [dict get $w sink_dt]
        # wire bits/s: each frame is its IP packet + 14 bytes of Ethernet + 24
        foreach name {roce tcp} {
            set p [expr {[dict get $w sink1 $name packets] - [dict get $w sink0 $name packets]}]
            set b [expr {[dict get $w sink1 $name bytes] - [dict get $w sink0 $name bytes]}]
            set wire($name) [expr {[dict get $w scale] * ($b + $p * 38) * 8 / $dt}]
        }
        set rep [json::json2dict [lab_spawn_output $tcp]]
        note [format "roce %.2fM (%s%% of the line), tcp %.2fM (%s%%) on the wire; iperf3 TCP receiver %.2f Mbit/s over its 9 s" \
            [expr {$wire(roce) / 1e6}] [qos_pct $wire(roce) $line_bps] \
            [expr {$wire(tcp) / 1e6}] [qos_pct $wire(tcp) $line_bps] [expr {[iperf_rx_bps $rep] / 1e6}]]
        set want [expr {$line_bps * $roce_pct / 100.0}]
        assert_range $wire(roce) [expr {0.95 * $want}] [expr {1.05 * $want}] "RoCE wire bits/s"
        assert_morethan $wire(tcp) [expr {0.15 * $line_bps}] "TCP wire bits/s"
        # RoCE was oversubscribed all along
        assert_morethan [qos_window_delta $w queue_full queues interface lan2 business roce queue rdma] 0 "roce tail drops"
    }
}
