# Multihop BFD (RFC 5883, UDP 4784) between vbrd and FRR's bfdd, across a
# router: neither end's address is on a subnet the two share, so every
# packet is routed (rtr's kernel forwards it and takes one off its TTL).
#
#   idc 10.1.0.2/24 ── lan 10.1.0.1/24 [vbrd] line1 172.16.1.1/30 ── eth0 172.16.1.2/30 [rtr] eth1 10.3.0.1/30 ── eth0 10.3.0.2/30 [region]
#                      (session local)                                                                           lo 10.2.0.1/32 (bfdd)
#
# vbrd: route 10.2.0.0/24 via 172.16.1.2, session { multihop; local
# 10.1.0.1; peer 10.2.0.1 }. bfdd: peer 10.1.0.1 multihop local-address
# 10.2.0.1. rtr routes 10.1.0.0/24 back to vbrd and 10.2.0.1 to region.
#
# vbrd sends its multihop packets with TTL 255 straight to the route's next
# hop (not routed like a forwarded packet, which would take one off): they
# arrive at region with 254, what bfdd's default minimum-ttl (254, one hop)
# wants. (Before, they left with 254 and bfdd discarded every one.)

source [file join [file dirname [file normalize [info script]]] harness frr.tcl]
source [file join [file dirname [file normalize [info script]]] harness blackhole.tcl]
source [file join [file dirname [file normalize [info script]]] harness bfdtest.tcl]

lab_host idc 10.1.0.2/24 10.1.0.1
lab_host rtr 172.16.1.2/30 ""
lab_netns region
lab_wire rtr eth1 region eth0
lab_exec rtr ip addr add 10.3.0.1/30 dev eth1
lab_exec rtr sysctl -qw net.ipv4.ip_forward=1
lab_exec rtr ip route add 10.1.0.0/24 via 172.16.1.1
lab_exec rtr ip route add 10.2.0.1/32 via 10.3.0.2
lab_exec region ip addr add 10.3.0.2/30 dev eth0
lab_exec region ip addr add 10.2.0.1/32 dev lo
lab_exec region ip route add default via 10.3.0.1

frr_start region [frr_bfd_conf [list "10.1.0.1 multihop local-address 10.2.0.1"] \
                      -interval 50 -multiplier 5]

proc mh {} {
    return [lindex [dict get [vbrctl show bfd mh] sessions] 0]
}

start_vbrd {conf {
ports = (
  { name = "p0"; devargs = "net_af_packet0,iface=@idc@"; },
  { name = "p1"; devargs = "net_af_packet1,iface=@rtr@"; }
);
interfaces = (
  { name = "lan";   port = "p0"; address = "10.1.0.1/24"; },
  { name = "line1"; port = "p1"; address = "172.16.1.1/30"; }
);
routes = ( { prefix = "10.2.0.0/24"; via = "172.16.1.2"; } );
bfd = {
  transmit_interval = 50; receive_interval = 50; detect_multiplier = 5;
  sessions = ( { name = "mh"; multihop = true; local = "10.1.0.1"; peer = "10.2.0.1"; } );
};
}} {
    test "the multihop session comes Up at both ends and they agree on discriminators" {
        wait_for_condition 300 50 {[dict get [mh] state] eq "Up"} else {
            fail "mh not Up: [mh]\n[frr_bfd_peer region 10.1.0.1 multihop true]"
        }
        frr_bfd_wait_state region 10.1.0.1 up 5000 multihop true
        set v [mh]
        set f [frr_bfd_peer region 10.1.0.1 multihop true]
        assert_equal [dict get $v kind] multihop "vbrd's kind"
        assert_equal [list [dict get $v local] [dict get $v peer]] {10.1.0.1 10.2.0.1} "vbrd's addresses"
        assert_equal [dict get $v remote_disc] [dict get $f id] "vbrd's remote = FRR's local"
        assert_equal [dict get $v local_disc] [dict get $f remote-id] "vbrd's local = FRR's remote"
        assert_equal [dict get $v tx_interval_us] 50000 "agreed TX interval"
        assert_equal [dict get $v detect_time_us] 250000 "detection time 5 x 50 ms"
        assert_equal [dict get $f local] 10.2.0.1 "FRR's local address"
    }

    test "on the wire at region: UDP 4784 both ways between 10.1.0.1 and 10.2.0.1, nothing else" {
        set cap [bfd_capture region eth0 {udp port 4784} 20]
        bfd_capture_wait $cap
        set pkts [bfd_pcap [lindex $cap 1]]
        set from_vbrd [bfd_pkts_where $pkts src 10.1.0.1 dst 10.2.0.1 dport 4784]
        set from_frr [bfd_pkts_where $pkts src 10.2.0.1 dst 10.1.0.1 dport 4784]
        assert_morethan [llength $from_vbrd] 3 "vbrd's packets"
        assert_morethan [llength $from_frr] 3 "FRR's packets"
        assert_equal [expr {[llength $from_vbrd] + [llength $from_frr]}] 20 "nothing else on 4784"
        set disc [dict get [mh] local_disc]
        foreach p $from_vbrd {
            assert_equal [list [dict get $p state] [dict get $p my_disc]] [list 3 $disc] "vbrd's state and discriminator"
            assert_range [dict get $p sport] 49152 65535 "vbrd's source port (RFC 5881 §4, RFC 5883 §3)"
        }
        foreach p $from_frr {
            assert_equal [dict get $p ttl] 255 "TTL of FRR's packet as it leaves region"
        }
        set ::mh_vbrd_ttl [lsort -unique [lmap p $from_vbrd {dict get $p ttl}]]
    }

    test "vbrd's multihop packets leave with TTL 255: 254 at region, one routed hop on" {
        # 255 from the originator is what bfdd's default minimum-ttl 254
        # (one hop) and GTSM-style checks (RFC 5082) count on
        assert_equal $::mh_vbrd_ttl 254 "TTL of vbrd's packets at region, after rtr"
    }

    # RFC 5883 §5: an unauthenticated multihop session checks the TTL of
    # what it receives against a minimum (FRR's default 254: one hop), and
    # vbrd takes a session's packets only from the interface its peer is
    # routed through. A LAN host forges the peer's Down with Your
    # Discriminator 0 (demultiplexed by the address pair, RFC 5880 §6.3);
    # before, one such packet took the session Down.
    foreach {ttl reason why} {
        1   bfd_low_ttl     "TTL 1, below minimum_ttl 254"
        255 bfd_wrong_iface "TTL 255, but from lan, and 10.2.0.1 is routed by line1"
    } {
        test "a forged Down from a LAN host ($why) is dropped as $reason; the session stays Up" {
            set s0 [mh]
            assert_equal [dict get $s0 state] Up "before"
            set d0 [drops $reason]
            lab_exec idc ip addr add 10.2.0.1/32 dev lo
            try {
                bfd_craft idc 10.2.0.1 10.1.0.1 -dport 4784 -ttl $ttl -count 5 \
                    state=1 your_disc=0 my_disc=0x777
            } finally {
                lab_exec idc ip addr del 10.2.0.1/32 dev lo
            }
            wait_for_condition 50 20 {[drops $reason] - $d0 == 5} else {
                fail "$reason counted [expr {[drops $reason] - $d0}] of the 5 forged packets"
            }
            set s1 [mh]
            assert_equal [dict get $s1 state] Up "after"
            assert_equal [dict get $s1 flaps] [dict get $s0 flaps] "no flap"
            assert_equal [dict get $s1 remote_disc] [dict get $s0 remote_disc] "the peer's discriminator kept"
        }
    }

    test "cut at rtr (both directions): both ends Down, vbrd with diag control_detect_expired" {
        set flaps0 [dict get [mh] flaps]
        blackhole_prepare rtr eth0
        blackhole_prepare rtr eth1
        blackhole_on rtr eth0 -hook ingress
        blackhole_on rtr eth1 -hook ingress
        try {
            wait_for_condition 100 20 {[dict get [mh] state] eq "Down"} else {
                fail "mh not Down: [mh]"
            }
            set s [mh]
            assert_equal [dict get $s diag] control_detect_expired "vbrd's diag (RFC 5880 §6.8.4)"
            assert_equal [dict get $s flaps] [expr {$flaps0 + 1}] "one flap"
            frr_bfd_wait_state region 10.1.0.1 down 5000 multihop true
            assert_equal [dict get [frr_bfd_peer region 10.1.0.1 multihop true] diagnostic] \
                "control detection time expired" "FRR's diag"
            assert_morethan [blackhole_drops rtr eth0] 0 "vbrd's packets dropped at rtr"
            assert_morethan [blackhole_drops rtr eth1] 0 "FRR's packets dropped at rtr"
        } finally {
            blackhole_off rtr eth0
            blackhole_off rtr eth1
        }
    }

    test "healed: the session comes Up again" {
        wait_for_condition 300 50 {[dict get [mh] state] eq "Up"} else {
            fail "mh not Up again: [mh]"
        }
        frr_bfd_wait_state region 10.1.0.1 up 5000 multihop true
        assert_equal [dict get [mh] remote_disc] [dict get [frr_bfd_peer region 10.1.0.1 multihop true] id] "FRR's discriminator"
    }
}
