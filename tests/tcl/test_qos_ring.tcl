# Egress QoS with two workers and a reload storm (qos/README.md): QoS is
# removed and put back on a line overloaded 3x, many times; packets that a
# worker still on the old generation put on the port's ring to the owner
# leave, and no mbuf stays in use once the traffic stops.
source [file join [file dirname [file normalize [info script]]] harness qos.tcl]
lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1
proc in_use {} { return [dict get [vbrctl show mempool] in_use] }
set base {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@,qpairs=2"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@,qpairs=2"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
workers = { cores = [ 0, 1 ]; idle_sleep_us = @SLEEP@; };
}
set qos {
qos = {
  policies = ( { name = "p"; default_business = "b";
      businesses = ( { name = "g"; guaranteed = "@G@%"; }, { name = "b"; guaranteed = "@B@%"; } );
      classes = ( { name = "c"; priority = 10; protocol = "udp"; dst_port = 5201; business = "g"; } ); } );
  interfaces = ( { interface = "lan2"; policy = "p"; rate = "20M"; } );
};
}
set sleep [expr {[info exists ::env(BRK_SLEEP)] ? $::env(BRK_SLEEP) : 100}]
proc cfg {withqos {g 50} {b 50}} {
    set t [string map [list @SLEEP@ $::sleep] $::base]
    if {$withqos} { append t [string map [list @G@ $g @B@ $b] $::qos] }
    return $t
}
start_vbrd [list conf [cfg 1]] {
    qos_sink h2 {g "udp dport 5201" b "udp dport 5202"}
    assert_ping h1 10.0.2.2 2
    test {reload storm removing and re-adding qos under 3x overload, 2 workers: in_use returns to idle} {
        set idle [in_use]
        set pids {}
        for {set i 0} {$i < 8} {incr i} {
            lappend pids [qos_send h1 10.0.2.2 5201 [expr {60e6 / 8}] 1400 40]
            lappend pids [qos_send h1 10.0.2.2 5202 [expr {60e6 / 8}] 1400 40]
        }
        wait_for_condition 50 100 {[qos_sink_packets h2 g] > 100 && [qos_sink_packets h2 b] > 100} else {
            fail "the load did not reach h2: [qos_sink_counts h2]"
        }
        # an odd count: the storm ends with the qos section removed
        set n 21
        set maxms 0
        for {set i 0} {$i < $n} {incr i} {
            vbrd_rewrite_config [cfg [expr {$i % 2}] [expr {10 + $i}] [expr {90 - $i}]]
            set t0 [clock milliseconds]
            vbrctl reload
            set maxms [expr {max($maxms, [clock milliseconds] - $t0)}]
            after 150
        }
        note "last config: qos=[expr {($n - 1) % 2}]; max reload ms $maxms"
        qos_stop {*}$pids
        wait_for_condition 50 100 {[in_use] == $idle} else {
            fail "mempool in_use [in_use] after the storm, $idle before: packets left on a ring or queue"
        }
        assert_ping h1 10.0.2.2 2
    }
}
