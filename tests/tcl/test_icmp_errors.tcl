# ICMP errors vbrd sends for packets it cannot forward (RFC 792, RFC 1812
# §4.3), each with its drop counter.
#
#   h1 10.0.1.2 ── lan1 10.0.1.1 [vbrd] 10.0.2.1 lan2 (mtu 1400) ── 10.0.2.2 h2

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

start_vbrd {conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; mtu = 1400; }
);
}} {
    test {h1 reaches h2 (so that no later test depends on ARP timing)} {
        assert_ping h1 10.0.2.2 2
    }

    test {TTL 1: time exceeded from 10.0.1.1, ttl_expired counts it} {
        set before [drops ttl_expired]
        lassign [ping_from h1 10.0.2.2 -c 1 -t 1 -W 2] rc out
        assert_match "*From 10.0.1.1 icmp_seq=1 Time to live exceeded*" $out
        wait_for_condition 20 100 {[drops ttl_expired] - $before == 1} else {
            fail "ttl_expired grew by [expr {[drops ttl_expired] - $before}], want 1"
        }
    }

    test {no route: net unreachable from 10.0.1.1, no_route counts each packet} {
        set before [drops no_route]
        lassign [ping_from h1 10.99.0.1 -c 3 -i 0.2 -W 2] rc out
        set n [regexp -all {From 10\.0\.1\.1 icmp_seq=\d+ Destination Net Unreachable} $out]
        assert_equal $n 3 "net unreachable replies in: $out"
        wait_for_condition 20 100 {[drops no_route] - $before >= 3} else {
            fail "no_route grew by [expr {[drops no_route] - $before}], want >= 3"
        }
    }

    test {DF packet over the egress MTU: frag needed with next-hop MTU 1400} {
        set before [drops mtu_exceeded]
        # 1450 bytes of ICMP data: a 1478-byte datagram, h1's own MTU is 1500.
        lassign [ping_from h1 10.0.2.2 -c 1 -M do -s 1450 -W 2] rc out
        assert_match "*From 10.0.1.1 icmp_seq=1 Frag needed and DF set (mtu = 1400)*" $out
        wait_for_condition 20 100 {[drops mtu_exceeded] - $before == 1} else {
            fail "mtu_exceeded grew by [expr {[drops mtu_exceeded] - $before}], want 1"
        }
        # h1's kernel learnt the path MTU from vbrd's message (RFC 1191).
        assert_match "*mtu 1400*" [lab_exec h1 ip route get 10.0.2.2]
    }

    test {UDP to an own address on a port nobody serves: port unreachable, udp_port_unreachable counts it} {
        set before [drops udp_port_unreachable]
        set refused [udp_probe h1 10.0.1.1 9999 3]
        assert_equal $refused 3 "datagrams answered with port unreachable"
        wait_for_condition 20 100 {[drops udp_port_unreachable] - $before == 3} else {
            fail "udp_port_unreachable grew by [expr {[drops udp_port_unreachable] - $before}], want 3"
        }
        # and to the address of the other interface, reached across vbrd
        assert_equal [udp_probe h1 10.0.2.1 4789 1] 1 "no tunnel here: 4789 is closed too"
    }

    test {a DF packet of exactly the egress MTU passes} {
        # 1372 + 8 (ICMP) + 20 (IPv4) = 1400 bytes
        assert_ping h1 10.0.2.2 3 -M do -s 1372
    }
}
