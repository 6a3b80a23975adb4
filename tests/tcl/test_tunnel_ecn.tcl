# Decapsulation and ECN (RFC 6040 §4.2, RFC 1624): an outer CE
# mark over an ECT inner IPv4 packet whose header checksum is wrong. RFC
# 6040 decapsulation sets CE in the inner header, and the checksum is
# updated incrementally, so a corrupt header stays corrupt and is dropped
# as bad_checksum (a recomputed checksum used to make it valid and
# forwarded). CE packets take tunnel_decap() on either path.

set ce_py [file join [file dirname [file normalize [info script]]] tools tunnel_ecn.py]
exec /usr/bin/python3 $ce_py gen [lab_rundir]

start_vbrd {conf {
workers = { cores = [ 1 ]; burst = 32; idle_sleep_us = 50; };
ports = (
  { name = "line"; devargs = "net_pcap0,rx_pcap=@rundir@/ce-in.pcap,tx_pcap=@rundir@/ce-line_tx.pcap"; },
  { name = "out"; devargs = "net_pcap1,tx_pcap=@rundir@/ce-out.pcap"; }
);
interfaces = (
  { name = "line"; port = "line"; address = "172.16.1.1/24"; },
  { name = "dst"; port = "out"; address = "198.18.0.1/30"; }
);
routes = ( { prefix = "198.19.0.0/16"; via = "198.18.0.2"; } );
neighbors = (
  { interface = "dst"; address = "198.18.0.2"; mac = "02:00:00:00:00:99"; },
  { interface = "line"; address = "172.16.1.2"; mac = "02:00:00:00:00:77"; }
);
tunnels = ( { name = "t1"; type = "vxlan"; vni = 1000; local = "172.16.1.1"; remote = "172.16.1.2"; } );
}} {
    test {decap: outer CE over an ECT(0) inner packet with a wrong header checksum is dropped as bad_checksum, not forwarded with a recomputed one} {
        wait_for_condition 100 100 {[port_stat line rx_packets] == 4} else {
            fail "port line rx_packets [port_stat line rx_packets], want 4"
        }
        wait_for_condition 50 100 {[lindex [exec /usr/bin/python3 $::ce_py check [lab_rundir]] 0] == 1} else {
            fail "the control packet (right checksum) was not forwarded"
        }
        lassign [exec /usr/bin/python3 $::ce_py check [lab_rundir]] n17 n18 n19
        assert_equal $n18 0 "frames forwarded to 198.19.0.18 (corrupt inner header checksum)"
        assert_equal [dict get [vbrctl show stats] drops bad_checksum] 1 "drops bad_checksum"
    }

    test {decap: an inner frame with an 802.1Q tag is discarded (RFC 7348 §6.1), with or without CE} {
        wait_for_condition 50 100 {[dict get [vbrctl show stats] drops tunnel_inner_vlan] == 2} else {
            fail "drops tunnel_inner_vlan [dict get [vbrctl show stats] drops tunnel_inner_vlan], want 2"
        }
        lassign [exec /usr/bin/python3 $::ce_py check [lab_rundir]] n17 n18 n19
        assert_equal $n19 0 "tagged inner frames forwarded"
    }
}
