# Malformed and hostile BFD control packets (RFC 5880 §6.8.6, RFC 5881
# §4-5) to vbrd's line address, UDP 3784, hand-made by tools/bfd_craft.py
# (one field wrong each, from a second address of the host): each is
# dropped and counted once under its own reason in `show stats`, while a
# live session to FRR's bfdd on the same line stays Up, and the packet
# pool's mbufs in use come back to their idle value.
#
#   peer 10.9.0.2/24 (bfdd) + 10.9.0.3 (bfd_craft.py) ── line 10.9.0.1/24 [vbrd]

source [file join [file dirname [file normalize [info script]]] harness frr.tcl]
source [file join [file dirname [file normalize [info script]]] harness bfdtest.tcl]

lab_host peer 10.9.0.2/24 10.9.0.1
lab_exec peer ip addr add 10.9.0.3/24 dev eth0
frr_start peer [frr_bfd_conf {"10.9.0.1 interface eth0 local-address 10.9.0.2"} \
                    -interval 50 -multiplier 10]

proc live {} {
    return [lindex [dict get [vbrctl show bfd live] sessions] 0]
}

proc in_use {} { return [dict get [vbrctl show mempool] in_use] }

# A well-formed packet of a session in Down looking for its peer, but for
# one field; `bfd_craft.py --help` for the fields. name reason {craft args}
proc cases {disc} {
    return [list \
        "TTL 254 (single-hop wants 255, RFC 5881 §5)"        bfd_bad_ttl          {-ttl 254} \
        "source port 1234 (RFC 5881 §4: 49152-65535)"       bfd_bad_sport        {-sport 1234} \
        "version 2"                                          bfd_bad_version      {version=2} \
        "a 20-byte datagram"                                 bfd_truncated        {size=20 length=20} \
        "Length 30 in a 24-byte datagram"                    bfd_truncated        {length=30} \
        "Length 20"                                          bfd_bad_length       {length=20} \
        "A bit with Length 24 (no room for an auth section)" bfd_bad_length       {flags=0x04} \
        "Detect Mult 0"                                      bfd_zero_detect_mult {mult=0} \
        "M bit"                                              bfd_multipoint       {flags=0x01} \
        "My Discriminator 0"                                 bfd_zero_my_disc     {my_disc=0} \
        "Your Discriminator 0 in state Up"                   bfd_zero_your_disc   {state=3} \
        "Your Discriminator of no session"                   bfd_no_session       {your_disc=0xfffffff0 state=3} \
        "the live session's slot with other high bits"       bfd_no_session       [list your_disc=[expr {$disc ^ 0x10000}] state=3] \
        "the live session's discriminator on the multihop port" bfd_no_session    [list -dport 4784 your_disc=$disc state=3] \
        "a well-formed packet from a stranger's address"     bfd_no_session       {} \
    ]
}

start_vbrd {conf {
ports = ( { name = "p0"; devargs = "net_af_packet0,iface=@peer@"; } );
interfaces = ( { name = "line"; port = "p0"; address = "10.9.0.1/24"; } );
bfd = {
  transmit_interval = 50; receive_interval = 50; detect_multiplier = 10;
  sessions = ( { name = "live"; interface = "line"; peer = "10.9.0.2"; } );
};
}} {
    test "the live session to FRR comes Up" {
        wait_for_condition 300 50 {[dict get [live] state] eq "Up"} else {
            fail "live not Up: [live]"
        }
        frr_bfd_wait_state peer 10.9.0.1 up 5000
        set ::flaps0 [dict get [live] flaps]
        set ::disc [dict get [live] local_disc]
    }

    if {![info exists ::disc]} { set ::disc 0x10001; set ::flaps0 0 }
    foreach {what reason args} [cases $::disc] {
        test "$what: dropped once as $reason, nothing else counted" {
            set before [bfd_drops]
            bfd_craft peer 10.9.0.3 10.9.0.1 {*}$args
            wait_for_condition 100 20 {[dict get [bfd_drops] $reason] > [dict get $before $reason]} else {
                fail "$reason did not count the packet: [bfd_drops]"
            }
            set after [bfd_drops]
            dict incr before $reason
            assert_equal $after $before "bfd_* drops: $reason +1, the others unchanged"
        }
    }

    test "200 of each: counted 200 times each, the mbufs come back, the session stayed Up" {
        # idle: the most mbufs in use over half a second of the live session alone
        set idle 0
        for {set i 0} {$i < 10} {incr i} {
            set n [in_use]
            if {$n > $idle} { set idle $n }
            after 50
        }
        set cap [bfd_capture peer eth0 {udp dst port 3784 and src host 10.9.0.1} 100000 60]
        set before [bfd_drops]
        set want $before
        set sent 0
        foreach {what reason args} [cases $::disc] {
            incr sent [bfd_craft peer 10.9.0.3 10.9.0.1 -count 200 {*}$args]
            dict incr want $reason 200
        }
        wait_for_condition 100 50 {[bfd_drops] eq $want} else {
            fail "drops [bfd_drops], want $want"
        }
        lab_kill [lindex $cap 0]
        bfd_capture_wait $cap
        set prev 0; set gap 0
        foreach p [bfd_pcap [lindex $cap 1]] {
            set t [dict get $p t_us]
            if {$prev && $t - $prev > $gap} { set gap [expr {$t - $prev}] }
            set prev $t
        }
        note "longest gap between vbrd's packets to FRR $gap us, between FRR's packets at vbrd [dict get [live] rx_gap_max_us] us"
        note "$sent packets; mbufs in use idle $idle of [dict get [vbrctl show mempool] size]"
        wait_for_condition 100 50 {[in_use] <= $idle} else {
            fail "in_use [in_use] stays above the idle $idle: a leak"
        }
        set s [live]
        assert_equal [dict get $s state] Up "live session"
        assert_equal [dict get $s flaps] $::flaps0 "live session flaps (the longest gap between vbrd's packets to FRR was $gap us)"
        assert_equal [dict get $s rx_dropped] 0 "the live session dropped none of FRR's packets"
        assert_equal [frr_bfd_peer_state peer 10.9.0.1] up "FRR's view"
    }
}
