# Jumbo frames: an 8000-byte ping across ports and veths of MTU 9000.
#
# DPDK's af_packet PMD copies each frame into one mbuf, and its default ring
# slot (2048 bytes) would cut jumbo frames: vbrd sizes the slots (framesz,
# blocksz) and its mbufs from the port MTU, so the devargs name only the
# interface. Without hugepages each jumbo mbuf takes 20 KiB: the 512 MiB the
# harness gives vbrd are too small (test_memory.tcl), so the file says 640.

lab_host h1 10.0.1.2/24 10.0.1.1 -mtu 9000
lab_host h2 10.0.2.2/24 10.0.2.1 -mtu 9000

start_vbrd {conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; mtu = 9000; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; mtu = 9000; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
eal = { memory_mb = 640; };
}} {
    test {ports and interfaces have MTU 9000} {
        assert_equal [port_stat p1 mtu] 9000
        assert_equal [iface_stat lan2 mtu] 9000
    }

    test {8000-byte ping h1 -> h2 with DF, unfragmented} {
        set before [dict get [lab_link_stats h2] rx_bytes]
        lassign [ping_from h1 10.0.2.2 -c 3 -i 0.2 -W 2 -M do -s 8000] rc out
        set st [ping_stats $out]
        assert_equal [dict get $st received] 3 "replies to 8000-byte pings:\n$out"
        assert_match "*8008 bytes from 10.0.2.2*" $out
        # Three requests of 8042 bytes (8000 + ICMP 8 + IPv4 20 + Ethernet 14)
        # reached h2 whole.
        set got [expr {[dict get [lab_link_stats h2] rx_bytes] - $before}]
        assert_morethan $got [expr {3 * 8042 - 1}] "bytes h2 received"
    }

    test {a full 9000-byte datagram (8972 bytes of ping data) passes with DF} {
        assert_ping h1 10.0.2.2 2 -M do -s 8972
    }
}
