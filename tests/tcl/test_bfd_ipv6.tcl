# Single-hop BFD over IPv6 (RFC 5881 §5: hop limit 255) with FRR's bfdd,
# beside an IPv4 session on the same line: both come Up, vbrd resolves the
# IPv6 neighbor by ND (RFC 4861), FRR's check of the hop limit passes, and
# the IPv6 session goes and comes on its own.
#
#   line 172.16.1.1/30 fd00:1::1/64 [vbrd] ── eth0 172.16.1.2/30 fd00:1::2/64 [rtr] (bfdd)

source [file join [file dirname [file normalize [info script]]] harness frr.tcl]
source [file join [file dirname [file normalize [info script]]] harness bfdtest.tcl]

lab_host rtr 172.16.1.2/30 ""
# lab_netns turns IPv6 off: on for eth0 only, no DAD, RS or RA
lab_exec rtr sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0 \
    net.ipv6.conf.eth0.accept_dad=0 net.ipv6.conf.eth0.accept_ra=0 \
    net.ipv6.conf.eth0.router_solicitations=0
lab_exec rtr ip -6 addr add fd00:1::2/64 dev eth0 nodad
frr_start rtr [frr_bfd_conf {
    "172.16.1.1 interface eth0 local-address 172.16.1.2"
    "fd00:1::1 interface eth0 local-address fd00:1::2"
} -interval 50 -multiplier 5]

proc session {name} {
    return [lindex [dict get [vbrctl show bfd $name] sessions] 0]
}

proc wait_session {name state ms} {
    wait_for_condition [expr {$ms / 50}] 50 {[dict get [session $name] state] eq $state} else {
        fail "session $name not $state after $ms ms: [session $name]"
    }
}

start_vbrd {conf {
ports = ( { name = "p0"; devargs = "net_af_packet0,iface=@rtr@"; } );
interfaces = (
  { name = "line"; port = "p0"; addresses = [ "172.16.1.1/30", "fd00:1::1/64" ]; }
);
bfd = {
  transmit_interval = 50; receive_interval = 50; detect_multiplier = 5;
  sessions = (
    { name = "l4"; interface = "line"; peer = "172.16.1.2"; },
    { name = "l6"; interface = "line"; peer = "fd00:1::2"; }
  );
};
}} {
    test "the IPv6 session comes Up with FRR, beside the IPv4 one, discriminators agreed" {
        wait_session l6 Up 15000
        wait_session l4 Up 15000
        frr_bfd_wait_state rtr fd00:1::1 up 5000
        set v [session l6]
        set f [frr_bfd_peer rtr fd00:1::1]
        assert_equal [list [dict get $v local] [dict get $v peer]] {fd00:1::1 fd00:1::2} "vbrd's addresses"
        assert_equal [dict get $v remote_disc] [dict get $f id] "vbrd's remote = FRR's local"
        assert_equal [dict get $v local_disc] [dict get $f remote-id] "vbrd's local = FRR's remote"
        assert_equal [dict get $v detect_time_us] 250000 "detection time 5 x 50 ms"
        assert_equal [dict get $f local] fd00:1::2 "FRR's local address"
    }

    test "vbrd resolved fd00:1::2 by ND: rtr's MAC" {
        set n [neighbor fd00:1::2]
        assert_true {$n ne ""} "fd00:1::2 in show neighbors"
        assert_equal [string tolower [dict get $n mac]] [string tolower [lab_mac rtr]] "the neighbor's MAC"
    }

    test "on the wire: vbrd's IPv6 packets to UDP 3784 with hop limit 255 from fd00:1::1" {
        set cap [bfd_capture rtr eth0 {ip6 and udp dst port 3784 and src host fd00:1::1} 10]
        bfd_capture_wait $cap
        set pkts [bfd_pcap [lindex $cap 1]]
        assert_equal [llength $pkts] 10 "packets captured"
        foreach p $pkts {
            assert_equal [dict get $p ttl] 255 "hop limit (RFC 5881 §5)"
            assert_equal [dict get $p dst] fd00:1::2 "destination"
            assert_equal [dict get $p state] 3 "state Up"
            assert_range [dict get $p sport] 49152 65535 "source port (RFC 5881 §4)"
        }
    }

    test "show bfd's tx counts each packet on the wire once" {
        # the capture's 40 packets fall between the two readings; what
        # else is sent between them is a few packets of 50 ms, never 40
        set tx0 [dict get [session l6] tx]
        set cap [bfd_capture rtr eth0 {ip6 and udp dst port 3784 and src host fd00:1::1} 40]
        bfd_capture_wait $cap
        set tx1 [dict get [session l6] tx]
        assert_equal [llength [bfd_pcap [lindex $cap 1]]] 40 "packets captured"
        assert_range [expr {$tx1 - $tx0}] 40 59 "tx counted while the capture saw 40"
    }

    test "IPv6 hop limit 254 (RFC 5881 §5): dropped once as bfd_bad_ttl, l6 stays Up" {
        set before [bfd_drops]
        set flaps6 [dict get [session l6] flaps]
        bfd_craft rtr fd00:1::2 fd00:1::1 -ttl 254 -sport 49201
        wait_for_condition 100 20 {[dict get [bfd_drops] bfd_bad_ttl] > [dict get $before bfd_bad_ttl]} else {
            fail "bfd_bad_ttl did not count the packet: [bfd_drops]"
        }
        dict incr before bfd_bad_ttl
        assert_equal [bfd_drops] $before "bfd_* drops: bfd_bad_ttl +1, the others unchanged"
        set s [session l6]
        assert_equal [list [dict get $s state] [dict get $s flaps]] [list Up $flaps6] "l6: state, flaps"
    }

    test "FRR shuts the IPv6 session: l6 Down with neighbor_down, l4 stays Up; back Up after no shutdown" {
        set flaps4 [dict get [session l4] flaps]
        frr_shutdown_peer rtr fd00:1::1
        try {
            wait_session l6 Down 5000
            assert_equal [dict get [session l6] remote_state] AdminDown "the peer's state"
            assert_equal [dict get [session l6] diag] neighbor_down "vbrd's diag"
            set s4 [session l4]
            assert_equal [list [dict get $s4 state] [dict get $s4 flaps]] [list Up $flaps4] "l4: state, flaps"
        } finally {
            frr_noshutdown_peer rtr fd00:1::1
        }
        wait_session l6 Up 15000
        assert_equal [dict get [session l6] remote_disc] [dict get [frr_bfd_peer rtr fd00:1::1] id] "FRR's discriminator"
    }
}
