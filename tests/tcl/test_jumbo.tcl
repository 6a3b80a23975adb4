# Jumbo frames: an 8000-byte ping across ports and veths of MTU 9000.
#
# DPDK's af_packet PMD copies each frame into one mbuf, and its default ring
# frame (2048 bytes) would cut jumbo frames. The kernel puts a received frame
# 66 bytes into its ring slot, so a 9022-byte frame (9000 + Ethernet 14 +
# 802.1Q 4 + 4 spare) needs framesz >= 9088 (a multiple of 16) in a block of
# whole pages; the PMD then wants mbufs with >= framesz - 32 = 9056 bytes of
# data room.

lab_host h1 10.0.1.2/24 10.0.1.1 -mtu 9000
lab_host h2 10.0.2.2/24 10.0.2.1 -mtu 9000

start_vbrd {conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@,blocksz=12288,framesz=9088,framecnt=512"; mtu = 9000; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@,blocksz=12288,framesz=9088,framecnt=512"; mtu = 9000; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
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
