# Egress QoS counters across reloads (qos/README.md, "Threads and reloads"):
# a line with a backlog and an owner worker that sleeps 200 ms when idle is
# reloaded six times; the queue's counters continue (the owner moves them
# into each new generation, and `vbrctl reload` answers once it has), no
# packet is counted as enqueued twice, and rate_bps never shows the
# counters' history as one second's rate.
source [file join [file dirname [file normalize [info script]]] harness qos.tcl]
lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1
set conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
workers = { cores = [ 0 ]; idle_sleep_us = 200000; };
qos = {
  policies = ( { name = "p"; default_business = "b";
      businesses = ( { name = "b"; guaranteed = "@G@%";
          queues = ( { name = "default"; type = "default"; limit = 1000; } ); } ); } );
  interfaces = ( { interface = "lan2"; policy = "p"; rate = "@R@"; } );
};
}
proc cfg {g r} { return [string map [list @G@ $g @R@ $r] $::conf] }
proc inv {q} { return [list enq [dict get $q enqueued] tx [dict get $q packets] depth [dict get $q depth] \
        full [dict get $q queue_full] rem [dict get $q queue_removed]] }
start_vbrd [list conf [cfg 100 2M]] {
    qos_sink h2 {d "udp dport 5201"}
    assert_ping h1 10.0.2.2 2
    test {counters across reloads with a backlog: no reset, enqueued == packets + depth, rate_bps sane} {
        qos_burst h1 10.0.2.2 5201 300 1400 0
        set bad {}
        set maxrate 0
        for {set i 0} {$i < 6} {incr i} {
            set q0 [qos_queue lan2 b default]
            vbrd_rewrite_config [cfg [expr {90 + $i}] [expr {2000000 + $i * 1000}]]
            vbrctl reload
            set q1 [qos_queue lan2 b default]
            note "reload $i: before [inv $q0] after [inv $q1]"
            if {[dict get $q1 packets] < [dict get $q0 packets]} { lappend bad "reload $i: packets went back" }
            for {set k 0} {$k < 12} {incr k} {
                set q [qos_queue lan2 b default]
                set maxrate [expr {max($maxrate, [dict get $q rate_bps])}]
                after 100
            }
        }
        qos_wait_drained lan2
        set q [qos_queue lan2 b default]
        note "end: [inv $q] max rate_bps $maxrate received [qos_sink_packets h2 d]"
        set e [dict get $q enqueued]
        set acct [expr {[dict get $q packets] + [dict get $q depth] + [dict get $q queue_removed]}]
        if {$e != $acct} { lappend bad "enqueued $e != packets+depth+removed $acct" }
        if {$maxrate > 2100000} { lappend bad "rate_bps $maxrate on a 2M line" }
        assert_equal $bad {} "counter defects"
    }
}
