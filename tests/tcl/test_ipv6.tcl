# IPv6 through vbrd (RFC 8200): forwarding with rte_fib6, Neighbor Discovery
# (RFC 4861), echo replies and the ICMPv6 errors of RFC 4443, each with its
# drop counter.
#
#   h1 2001:db8:1::2 ── lan1 2001:db8:1::1 [vbrd] 2001:db8:2::1 lan2 (mtu 1400) ── 2001:db8:2::2 h2
#                                                      2001:db8:99::/64 via h2 (h2's lo: 2001:db8:99::1)
#
# Then: a static neighbor and an unanswered next hop (h3), ECMP over h2
# and h3, and ARP on a dual-stack interface (h4). In a UBSan build
# (meson -Db_sanitize=undefined) the log of vbrd is checked for reports.


# Wait until HOST's address on eth0 is usable (not tentative).
proc wait_ipv6_ready {host} {
    wait_for_condition 50 100 {
        ![string match "*tentative*" [lab_exec $host ip -6 addr show dev eth0]]
    } else {
        fail "IPv6 address of $host still tentative"
    }
}

# Whether the vbrd under test was built with UBSan.
proc vbrd_has_ubsan {} {
    return [expr {![catch {exec grep -q -a __ubsan_handle_ $::vbrd::bin}]}]
}

# UBSan reports ("FILE:LINE:COL: runtime error: ...") in the running
# vbrd's log about a source file matching PATTERN (glob).
proc ubsan_reports {pattern} {
    return [lsearch -all -inline -glob [split [vbrd_log] "\n"] "*$pattern*runtime error:*"]
}

lab_host6 h1 2001:db8:1::2/64 2001:db8:1::1
lab_host6 h2 2001:db8:2::2/64 2001:db8:2::1
lab_exec h2 ip -6 addr add 2001:db8:99::1/128 dev lo

start_vbrd {conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "2001:db8:1::1/64"; },
  { name = "lan2"; port = "p2"; address = "2001:db8:2::1/64"; mtu = 1400; }
);
routes = (
  { prefix = "2001:db8:99::/64"; via = "2001:db8:2::2"; }
);
}} {
    wait_ipv6_ready h1
    wait_ipv6_ready h2

    test {h1 pings vbrd's own address 2001:db8:1::1} {
        set before [stat local]
        assert_ping h1 2001:db8:1::1 3
        assert_morethan [expr {[stat local] - $before}] 2
    }

    test {UDP to an own IPv6 address on a closed port: port unreachable (RFC 4443 §3.1 code 4)} {
        set before [drops udp_port_unreachable]
        assert_equal [udp_probe h1 2001:db8:1::1 9999 2] 2 "datagrams answered with port unreachable"
        wait_for_condition 20 100 {[drops udp_port_unreachable] - $before == 2} else {
            fail "udp_port_unreachable grew by [expr {[drops udp_port_unreachable] - $before}], want 2"
        }
    }

    test {h1 pings h2 through vbrd; both hosts are learnt by Neighbor Discovery} {
        set before [stat forwarded]
        assert_ping h1 2001:db8:2::2 3
        # 3 requests and 3 replies
        assert_morethan [expr {[stat forwarded] - $before}] 5
        set n [neighbor 2001:db8:2::2]
        assert_equal [dict get $n interface] lan2
        assert_equal [string tolower [dict get $n mac]] [lab_mac h2]
        set n [neighbor 2001:db8:1::2]
        assert_equal [string tolower [dict get $n mac]] [lab_mac h1]
    }

    test {h1 pings vbrd's link-local address (EUI-64 of lan1's MAC)} {
        # RFC 4291 App. A: flip the universal/local bit, insert ff:fe.
        set mac [dict get [lindex [dict get [vbrctl show interfaces] interfaces] 0] mac]
        lassign [lmap x [split $mac :] {scan $x %x}] a b c d e f
        set ll [format "fe80::%x:%x:%x:%x" [expr {(($a ^ 2) << 8) | $b}] \
                    [expr {($c << 8) | 0xff}] [expr {0xfe00 | $d}] [expr {($e << 8) | $f}]]
        assert_ping h1 "$ll%eth0" 2
    }

    test {a static IPv6 route via h2 reaches 2001:db8:99::1} {
        assert_ping h1 2001:db8:99::1 3
    }

    test {hop limit 1: time exceeded from 2001:db8:1::1, ttl_expired counts it} {
        set before [drops ttl_expired]
        lassign [ping_from h1 2001:db8:2::2 -c 1 -t 1 -W 2] rc out
        assert_match "*From 2001:db8:1::1 icmp_seq=1 Time exceeded: Hop limit*" $out
        wait_for_condition 20 100 {[drops ttl_expired] - $before == 1} else {
            fail "ttl_expired grew by [expr {[drops ttl_expired] - $before}], want 1"
        }
    }

    test {no route: destination unreachable (no route), no_route counts each packet} {
        set before [drops no_route]
        lassign [ping_from h1 2001:db8:77::1 -c 3 -i 0.2 -W 2] rc out
        set n [regexp -all {From 2001:db8:1::1 icmp_seq=\d+ Destination unreachable: No route} $out]
        assert_equal $n 3 "no-route replies in: $out"
        wait_for_condition 20 100 {[drops no_route] - $before >= 3} else {
            fail "no_route grew by [expr {[drops no_route] - $before}], want >= 3"
        }
    }

    test {larger than the egress MTU: packet too big with mtu 1400 (routers never fragment)} {
        set before [drops mtu_exceeded]
        # 1450 bytes of data: a 1498-byte packet, h1's own MTU is 1500.
        lassign [ping_from h1 2001:db8:2::2 -c 1 -M do -s 1450 -W 2] rc out
        assert_match "*From 2001:db8:1::1 icmp_seq=1 Packet too big: mtu=1400*" $out
        wait_for_condition 20 100 {[drops mtu_exceeded] - $before == 1} else {
            fail "mtu_exceeded grew by [expr {[drops mtu_exceeded] - $before}], want 1"
        }
        # h1's kernel learnt the path MTU from vbrd's message (RFC 8201).
        assert_match "*mtu 1400*" [lab_exec h1 ip -6 route get 2001:db8:2::2]
    }

    test {a packet of exactly the egress MTU passes} {
        # 1352 + 8 (ICMPv6) + 40 (IPv6) = 1400 bytes
        assert_ping h1 2001:db8:2::2 3 -M do -s 1352
    }

    test {iperf3 TCP over IPv6 from h1 to h2} {
        iperf_server h2
        set rep [iperf_client h1 2001:db8:2::2 1]
        set bps [iperf_rx_bps $rep]
        note "TCP over IPv6: [format %.0f [expr {$bps / 1e6}]] Mbit/s"
        assert_morethan $bps 1000000
    }

    test {multicast vbrd does not serve (MLD) counts as ipv6_multicast, ND passes validation} {
        # An MLD report of h1's kernel: it sends one when a socket joins a
        # group (RFC 3810 §6.1), to ff02::16. (The reports of the hosts'
        # addresses coming up can all leave before vbrd runs: a start-up
        # slower than the kernel's report delay, under ASan, missed them.)
        set m0 [drops ipv6_multicast]
        lab_exec h1 /usr/bin/python3 -c {
import socket, struct, time
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
g = socket.inet_pton(socket.AF_INET6, "ff02::1:4242")
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, g + struct.pack("@I", socket.if_nametoindex("eth0")))
time.sleep(0.2)
}
        wait_for_condition 50 100 {[drops ipv6_multicast] > $m0} else {
            fail "ipv6_multicast did not count h1's MLD report ([drops ipv6_multicast])"
        }
        assert_equal [drops bad_nd] 0
        assert_morethan [dict get [vbrctl show nd] adverts_tx] 0
    }

    test {show routes lists the IPv6 connected, local and static routes} {
        set prefixes [lmap r [dict get [vbrctl show routes] routes] {dict get $r prefix}]
        foreach p {2001:db8:1::/64 2001:db8:1::1/128 2001:db8:99::/64} {
            assert_true {[lsearch -exact $prefixes $p] >= 0} "$p not in $prefixes"
        }
    }
}

# A next hop that never answers: its packets wait, then count as nd_unresolved.
lab_host6 h3 2001:db8:3::2/64 2001:db8:3::1

start_vbrd {conf {
ports = (
  { name = "p3"; devargs = "net_af_packet0,iface=@h3@"; }
);
interfaces = (
  { name = "lan3"; port = "p3"; address = "2001:db8:3::1/64"; }
);
neighbors = (
  { interface = "lan3"; address = "2001:db8:3::50"; mac = "02:00:00:00:00:50"; }
);
routes = (
  { prefix = "2001:db8:88::/64"; via = "2001:db8:3::99"; },
  { prefix = "2001:db8:55::/64"; via = "2001:db8:3::50"; }
);
neighbor = { retries = 2; retry_ms = 200; };
}} {
    wait_ipv6_ready h3

    test {a static IPv6 neighbor is used without solicitation} {
        set n [neighbor 2001:db8:3::50]
        assert_equal [dict get $n state] static
        set fwd0 [stat forwarded]
        set ns0 [dict get [vbrctl show nd] solicits_tx]
        set rx0 [dict get [lab_link_stats h3] rx_packets]
        lab_run h3 ping -n -c 3 -i 0.1 -W 1 2001:db8:55::1
        wait_for_condition 20 100 {[stat forwarded] - $fwd0 >= 3} else {
            fail "forwarded grew by [expr {[stat forwarded] - $fwd0}], want 3"
        }
        # The packets went back out to h3's link, to the static MAC.
        wait_for_condition 20 100 {[dict get [lab_link_stats h3] rx_packets] - $rx0 >= 3} else {
            fail "h3 received [expr {[dict get [lab_link_stats h3] rx_packets] - $rx0}] packets"
        }
        assert_equal [dict get [vbrctl show nd] solicits_tx] $ns0
    }

    test {an unanswered next hop: held packets dropped as nd_unresolved, state failed} {
        set before [drops nd_unresolved]
        lassign [ping_from h3 2001:db8:88::1 -c 2 -i 0.2 -W 1] rc out
        wait_for_condition 30 100 {[drops nd_unresolved] - $before == 2} else {
            fail "nd_unresolved grew by [expr {[drops nd_unresolved] - $before}], want 2"
        }
        assert_equal [dict get [neighbor 2001:db8:3::99] state] failed
    }
}

# ECMP as for IPv4: a route with two next hops spreads flows over both.
#
#   h1 ── lan1 [vbrd] lan2 ── 2001:db8:2::2 h2
#                     lan3 ── 2001:db8:3::2 h3
#   2001:db8:30::/64 via [2001:db8:2::2, 2001:db8:3::2]

start_vbrd {conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; },
  { name = "p3"; devargs = "net_af_packet2,iface=@h3@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "2001:db8:1::1/64"; },
  { name = "lan2"; port = "p2"; address = "2001:db8:2::1/64"; },
  { name = "lan3"; port = "p3"; address = "2001:db8:3::1/64"; }
);
routes = (
  { prefix = "2001:db8:30::/64"; via = [ "2001:db8:2::2", "2001:db8:3::2" ]; }
);
}} {
    test {200 UDP flows to 2001:db8:30::/64 are spread over both next hops} {
        set flows 200
        # Resolve both next hops first: flows must not wait for ND.
        assert_ping h1 2001:db8:2::2 2
        assert_ping h1 2001:db8:3::2 2
        set h2_0 [dict get [lab_link_stats h2] rx_packets]
        set h3_0 [dict get [lab_link_stats h3] rx_packets]
        lab_exec h1 /usr/bin/python3 -c {
import socket, sys, time
socks = []
for i in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind(("::", 20000 + i))
    s.sendto(b"x" * 64, ("2001:db8:30::7", 9))
    socks.append(s)
    time.sleep(0.001)
} $flows
        wait_for_condition 30 100 {
            [dict get [lab_link_stats h2] rx_packets] - $h2_0 +
            [dict get [lab_link_stats h3] rx_packets] - $h3_0 >= $flows
        } else {
            fail "h2 and h3 received fewer than $flows packets"
        }
        set h2 [expr {[dict get [lab_link_stats h2] rx_packets] - $h2_0}]
        set h3 [expr {[dict get [lab_link_stats h3] rx_packets] - $h3_0}]
        note "h2 received $h2, h3 received $h3"
        assert_morethan $h2 [expr {$flows / 4 - 1}] "packets h2 received"
        assert_morethan $h3 [expr {$flows / 4 - 1}] "packets h3 received"
    }

    test {UBSan reports no misaligned load in the IPv6 flow hash in vbrd's log} {
        # struct pkt_ipv6 is 4-byte aligned: every other packet of a burst
        # has its addresses at 4 mod 8, where 8-byte loads are misaligned.
        if {![vbrd_has_ubsan]} {
            skip "not a UBSan build ([file tail $::vbrd::bin] has no __ubsan_handle_ symbols)"
        }
        set r [concat [ubsan_reports rte_hash_crc.h] [ubsan_reports parse6.c]]
        if {[llength $r]} { fail "UBSan in vbrd's log:\n[join $r \n]" }
    }
}

# ARP on an interface whose first address is IPv6 (dual stack): ARP input
# checks that the sender is on one of the interface's IPv4 subnets and
# must skip the IPv6 prefix — building a 32-bit mask from its length 64
# was a shift by -32 (undefined, C11 §6.5.7). In a build with UBSan
# (meson -Db_sanitize=undefined) vbrd's log must hold no report about it.
#
#   h4 10.0.4.2 ── lan4 2001:db8:4::1/64, 10.0.4.1/24 [vbrd]

lab_host h4 10.0.4.2/24 10.0.4.1

start_vbrd {conf {
ports = (
  { name = "p4"; devargs = "net_af_packet0,iface=@h4@"; }
);
interfaces = (
  { name = "lan4"; port = "p4"; addresses = [ "2001:db8:4::1/64", "10.0.4.1/24" ]; }
);
}} {
    test {ARP on an interface with an IPv6 address first: vbrd answers and learns the sender} {
        set rx0 [dict get [vbrctl show arp] requests_rx]
        # h4's kernel asks for 10.0.4.1 before its first echo request
        assert_ping h4 10.0.4.1 2
        assert_morethan [dict get [vbrctl show arp] requests_rx] $rx0 "show arp requests_rx"
        set n [neighbor 10.0.4.2]
        assert_equal [string tolower [dict get $n mac]] [lab_mac h4] "neighbor 10.0.4.2"
        assert_equal [dict get $n interface] lan4 "neighbor 10.0.4.2 interface"
    }

    test {an ARP request from an off-subnet sender on it is not learnt} {
        # From 192.0.2.7, on no subnet of lan4: every prefix is tried.
        set rx0 [dict get [vbrctl show arp] requests_rx]
        lab_exec h4 /usr/bin/python3 -c {
import socket, sys
mac = bytes.fromhex(open("/sys/class/net/eth0/address").read().strip().replace(":", ""))
arp = bytes.fromhex("0001080006040001") + mac + socket.inet_aton("192.0.2.7") + \
    b"\0" * 6 + socket.inet_aton("10.0.4.1")
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
s.send(b"\xff" * 6 + mac + b"\x08\x06" + arp)
}
        wait_for_condition 20 100 {[dict get [vbrctl show arp] requests_rx] > $rx0} else {
            fail "vbrd did not count the ARP request"
        }
        assert_equal [neighbor 192.0.2.7] {} "neighbor entry for 192.0.2.7"
    }

    test {UBSan reports nothing about ARP input (control.c) in vbrd's log} {
        if {![vbrd_has_ubsan]} {
            skip "not a UBSan build ([file tail $::vbrd::bin] has no __ubsan_handle_ symbols)"
        }
        set r [ubsan_reports control.c]
        if {[llength $r]} { fail "UBSan in vbrd's log:\n[join $r \n]" }
    }
}
