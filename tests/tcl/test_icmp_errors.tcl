# ICMP errors vbrd sends for packets it cannot forward (RFC 792, RFC 1812
# §4.3), each with its drop counter, and those it must not send; an echo
# request with a bad ICMP checksum gets no reply (RFC 1812 §4.3.2.2:
# discarded; failed before 4536d4a).
#
#   h1 10.0.1.2 ── lan1 10.0.1.1 [vbrd] 10.0.2.1 lan2 (mtu 1400) ── 10.0.2.2 h2

source [file join [file dirname [file normalize [info script]]] harness frames.tcl]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

# A UDP datagram SRC -> DST with TTL 1 in an Ethernet frame from h1 to
# vbrd's lan1 (UDP checksum 0: none, RFC 768).
proc ttl1_frame {src dst} {
    set udp "[be16 40000][be16 33434][be16 16][be16 0]ttl-one!"
    set h [binary format cc 0x45 0][be16 [expr {20 + [string length $udp]}]][be16 1][be16 0]
    append h [binary format cc 1 17] [be16 0] [ip4 $src] [ip4 $dst]
    set h "[string range $h 0 9][be16 [inet_csum $h]][string range $h 12 end]"
    return "[mac [iface_stat lan1 mac]][mac [lab_mac h1]][be16 0x0800]$h$udp"
}

# Send FRAMES from h1's eth0 and return the destination addresses of the
# ICMP Time Exceeded messages h1 received in the next WAIT_MS ms.
proc time_exceeded_to {wait_ms frames} {
    set hex [lmap f $frames {binary encode hex $f}]
    set out {}
    foreach l [split [string trim [lab_exec h1 /usr/bin/python3 $::rawio eth0 $wait_ms {*}$hex]] "\n"] {
        set f [binary decode hex $l]
        binary scan $f @12Su type
        if {$type != 0x0800 || [string length $f] < 35} continue
        binary scan $f @23cu@30cucucucu@34cu proto d0 d1 d2 d3 icmp_type
        if {$proto == 1 && $icmp_type == 11} { lappend out "$d0.$d1.$d2.$d3" }
    }
    return $out
}

# ICMPv4 echo request; CSUM "" = the correct checksum.
proc icmp_echo {id seq data {csum ""}} {
    set m "\x08\x00\x00\x00[be16 $id][be16 $seq]$data"
    if {$csum eq ""} { set csum [inet_csum $m] }
    return "[string range $m 0 1][be16 $csum][string range $m 4 end]"
}

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

    test {no time exceeded to a source that is a subnet's broadcast or network address (RFC 1812 §4.3.2.7)} {
        # TTL 1 from lan2's broadcast and network address (the other
        # subnet), lan1's own, and last from h1 itself: only that one may
        # be answered, and it shows that answers do come back.
        set st0 [vbrctl show stats]
        set srcs {10.0.2.255 10.0.2.0 10.0.1.255 10.0.1.0 10.0.1.2}
        set got [time_exceeded_to 1500 [lmap a $srcs {ttl1_frame $a 10.0.2.2}]]
        note "time exceeded received by h1, to: $got"
        assert_equal $got {10.0.1.2} "destinations of the time exceeded messages"
        if {![dict exists $st0 icmp_suppressed_broadcast]} {
            fail "show stats has no icmp_suppressed_broadcast"
        }
        wait_for_condition 20 100 {
            [drops ttl_expired] - [dict get $st0 drops ttl_expired] >= 5
        } else {}
        set st [vbrctl show stats]
        foreach {k want} {icmp_suppressed_broadcast 4 icmp_errors 1} {
            assert_equal [expr {[dict get $st $k] - [dict get $st0 $k]}] $want $k
        }
        assert_equal [expr {[dict get $st drops ttl_expired] - [dict get $st0 drops ttl_expired]}] 5 \
            "drops ttl_expired"
    }

    test {a DF packet of exactly the egress MTU passes} {
        # 1372 + 8 (ICMP) + 20 (IPv4) = 1400 bytes
        assert_ping h1 10.0.2.2 3 -M do -s 1372
    }

    test {an echo request with a bad ICMP checksum gets no reply and counts icmp_bad_checksum} {
        set lan1_mac [mac [iface_stat lan1 mac]]
        set h1_mac [mac [lab_mac h1]]
        set data "regression-echo"
        set good [icmp_echo 0x5247 1 $data]
        binary scan [string range $good 2 3] Su c
        set bad [icmp_echo 0x5247 2 $data [expr {$c ^ 0x5a5a}]]
        set replies {}
        set bc0 [drops icmp_bad_checksum]
        foreach f [raw_exchange h1 1500 [list \
                [eth_frame $lan1_mac $h1_mac 0x0800 [ipv4_packet 10.0.1.2 10.0.1.1 1 $good]] \
                [eth_frame $lan1_mac $h1_mac 0x0800 [ipv4_packet 10.0.1.2 10.0.1.1 1 $bad]]]] {
            lassign [l3_of $f] type p
            if {$type == 0x0800 && [string index $p 9] eq "\x01" &&
                [string range $p 12 15] eq [ip4 10.0.1.1] && [string index $p 20] eq "\x00" &&
                [string range $p 24 25] eq [be16 0x5247]} {
                binary scan [string range $p 26 27] Su seq
                lappend replies $seq
            }
        }
        # the good one (sequence 1) shows that replies do come back
        assert_equal $replies {1} "sequence numbers of the echo replies"
        wait_for_condition 30 100 {[drops icmp_bad_checksum] - $bc0 >= 1} else {
            fail "icmp_bad_checksum did not count the echo request"
        }
        assert_equal [expr {[drops icmp_bad_checksum] - $bc0}] 1 "drops icmp_bad_checksum"
    }
}
