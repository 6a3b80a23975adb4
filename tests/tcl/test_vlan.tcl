# 802.1Q sub-interfaces: two VLANs on one port, routed to each other and to
# an untagged port; frames of a VLAN vbrd does not serve are dropped and
# counted.
#
#   h1 10.0.1.2 ── p1 lan1 10.0.1.1 [vbrd] p2 ══ trunk ══ h2 eth0 (no address)
#                            v100 10.0.100.1 (VLAN 100)    10.0.100.2 on VLAN 100
#                            v200 10.0.200.1 (VLAN 200)    10.0.200.2 on VLAN 200
#
# The test kernel has no 802.1Q devices, so h2's tagged hosts are played by
# tools/vlan_host.py with a raw socket on its eth0.

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 "" ""

start_vbrd {conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "v100"; port = "p2"; vlan = 100; address = "10.0.100.1/24"; },
  { name = "v200"; port = "p2"; vlan = 200; address = "10.0.200.1/24"; }
);
}} {
    test {vbrd answers ARP and ping on each VLAN} {
        assert_equal [vlan_host_ping h2 100 10.0.100.2 10.0.100.1 10.0.100.1 3] {3 3} "VLAN 100 {sent received}"
        assert_equal [vlan_host_ping h2 200 10.0.200.2 10.0.200.1 10.0.200.1 3] {3 3} "VLAN 200 {sent received}"
    }

    test {untagged h1 reaches the hosts on VLAN 100 and VLAN 200} {
        vlan_host_serve h2 100:10.0.100.2 200:10.0.200.2
        assert_ping h1 10.0.100.2 3
        assert_ping h1 10.0.200.2 3
    }

    test {ping from VLAN 100 to VLAN 200 on the same port} {
        set tx0 [iface_stat v200 tx_packets]
        set rx0 [iface_stat v100 rx_packets]
        assert_equal [vlan_host_ping h2 100 10.0.100.2 10.0.100.1 10.0.200.2 5] {5 5} "{sent received}"
        # The requests came in on v100 and left tagged 200 on v200.
        assert_morethan [expr {[iface_stat v100 rx_packets] - $rx0}] 4 "v100 rx_packets growth"
        assert_morethan [expr {[iface_stat v200 tx_packets] - $tx0}] 4 "v200 tx_packets growth"
    }

    test {frames on unconfigured VLAN 300 are counted as unknown_vlan} {
        set d0 [drops unknown_vlan]
        set out [lab_exec h2 /usr/bin/python3 $::vlan_host_py arp eth0 300 10.0.30.2 10.0.30.1 6]
        assert_equal [string trim $out] "sent 6"
        wait_for_condition 30 100 {[drops unknown_vlan] - $d0 == 6} else {
            fail "unknown_vlan grew by [expr {[drops unknown_vlan] - $d0}], want 6 (frames sent on VLAN 300)"
        }
    }
}
