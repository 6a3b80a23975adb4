# Egress QoS with two workers (qos/README.md, "Threads and reloads"): a
# line's scheduler is owned by one worker; the other hands its packets to
# the owner through the port's multi-producer ring. The shares hold over
# traffic that both workers receive.
#
#   h1 10.0.1.2 ── lan1 [vbrd, workers on CPUs 0 and 1] lan2 (40M line) ── 10.0.2.2 h2
#
# Both ports have two RX/TX queue pairs (af_packet qpairs=2: the kernel
# spreads flows over the queues by hash); eight senders per business give
# both workers some of each business's flows.

source [file join [file dirname [file normalize [info script]]] harness qos.tcl]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

set len 1400
set frame [qos_udp_frame $len]
set line_bps 40000000
set gold_pct 70
set bulk_pct 30
set senders 8

start_vbrd [list conf [string map [list @LINE@ $line_bps @LBURST@ [qos_burst_bytes $line_bps] \
        @G@ $gold_pct @B@ $bulk_pct] {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@,qpairs=2"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@,qpairs=2"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
workers = { cores = [ 0, 1 ]; idle_sleep_us = 100; };
qos = {
  policies = (
    { name = "split"; default_business = "bulk";
      businesses = (
        { name = "gold"; guaranteed = "@G@%"; },
        { name = "bulk"; guaranteed = "@B@%"; }
      );
      classes = (
        { name = "to-gold"; priority = 10; protocol = "udp"; dst_port = 5201; business = "gold"; },
        { name = "to-bulk"; priority = 20; protocol = "udp"; dst_port = 5202; business = "bulk"; }
      ); }
  );
  interfaces = ( { interface = "lan2"; policy = "split"; rate = "@LINE@"; burst = @LBURST@; } );
};
}]] {
    qos_sink h2 {gold "udp dport 5201" bulk "udp dport 5202"}
    assert_ping h1 10.0.2.2 2
    set line_pps [qos_wire_pps $line_bps $frame]

    test {two workers: gold 70% and bulk 30% hold over flows both workers receive, through the owner's ring} {
        set owner [dict get [qos_line_row lan2] worker]
        set w0 [lmap k [dict get [vbrctl show stats] workers] {dict get $k rx_packets}]
        set pids {}
        for {set i 0} {$i < $senders} {incr i} {
            lappend pids [qos_send h1 10.0.2.2 5201 [expr {1.5 * $line_bps / $senders}] $len 7]
            lappend pids [qos_send h1 10.0.2.2 5202 [expr {1.5 * $line_bps / $senders}] $len 7]
        }
        qos_wait_overload h2 {gold bulk} {{lan2 gold default} {lan2 bulk default}}
        set w [qos_window h2 lan2 3000]
        qos_stop {*}$pids
        qos_wait_drained lan2
        set w1 [lmap k [dict get [vbrctl show stats] workers] {dict get $k rx_packets}]
        set per_worker [lmap a $w1 b $w0 {expr {$a - $b}}]
        note "owner: worker $owner; packets received per worker: $per_worker"
        # the flows reached both workers: the one that does not own lan2
        # handed its share to the owner
        foreach n $per_worker {
            assert_morethan $n 1000 "packets one worker received"
        }
        foreach b {gold bulk} pct [list $gold_pct $bulk_pct] {
            set want [expr {$line_pps * $pct / 100.0}]
            set got [qos_window_pps $w $b]
            note [format "%s: %.0f frames/s received, %.0f expected (%s%%)" $b $got $want [qos_pct $got $want]]
            assert_range $got [expr {0.95 * $want}] [expr {1.05 * $want}] "$b frames/s received"
        }
        assert_equal [drops ring_full] 0 "ring_full drops at 3x a 40M line"
    }
}
