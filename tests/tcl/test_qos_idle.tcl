# Egress QoS with an owner worker that sleeps when idle (idle_sleep_us
# 200000): a line waiting for tokens counts as work, so its backlog drains
# at the line rate (200 frames of 1442 bytes on a 2M line: about 1.2 s),
# not a frame or two per wake-up.
source [file join [file dirname [file normalize [info script]]] harness qos.tcl]
lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1
proc in_use {} { return [dict get [vbrctl show mempool] in_use] }
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
      businesses = ( { name = "b"; guaranteed = "100%";
          queues = ( { name = "default"; type = "default"; limit = 1000; } ); } ); } );
  interfaces = ( { interface = "lan2"; policy = "p"; rate = "2M"; } );
};
}
start_vbrd [list conf $conf] {
    qos_sink h2 {d "udp dport 5201"}
    assert_ping h1 10.0.2.2 2
    test {backlog of 200 frames on a 2M line drains in ~1.2 s with idle_sleep_us 200000} {
        set idle [in_use]
        qos_burst h1 10.0.2.2 5201 200 1400 0
        set t0 [clock milliseconds]
        set bl [dict get [qos_line_row lan2] backlog]
        note "backlog after the burst: $bl"
        set ok 0
        for {set i 0} {$i < 300} {incr i} {
            if {[dict get [qos_line_row lan2] backlog] == 0} { set ok 1; break }
            after 100
        }
        set dt [expr {[clock milliseconds] - $t0}]
        note "drained=$ok after $dt ms; received [qos_sink_packets h2 d]; in_use [in_use] idle $idle"
        assert_equal $ok 1 "drained within 30 s"
        assert_lessthan $dt 4000 "drain time ms"
    }
}
