# The DR tunnel as a failover member (harness/fo_twosite.tcl, the DR
# design): the edge's group "dr" = member0 line2 (plain routed packets to
# h2's router, the region; single-hop BFD l2), member1 the VXLAN tunnel to
# the HA partner (the region) over line1, watched by a tunnel BFD session
# (RFC 5883 multihop between the inner addresses 10.99.0.1 and 10.99.0.2,
# sent through the path group), 5 ms x 3 everywhere.
#
#   h1 ── [edge] line1 ══ impair ══ line1 [region] ── h2    tunnel + bfd dr (member1)
#                line2 ══ impair ══ line2               bfd l2 (member0)
#
# What is measured: BFD packets inside the tunnel on line1 (tcpdump in the
# line's namespace decodes VXLAN); the outage as h2's seqstream receiver
# saw it; the frames each line carried (impair's counters) against the
# datagrams h2 received. The outage and detect-to-switch time are noted
# next to their goals (100 ms, 1 ms: `make bench-failover` measures them)
# and fail only past a bound for stuck (assert_not_stuck).

source [file join [file dirname [file normalize [info script]]] harness fo_twosite.tcl]

start_twosite [fo2_dr_opts interval 5 hold_down 200] {
    test "the tunnel session dr comes Up on both sides, inside the tunnel on line1; l2 Up; group on member0" {
        foreach side {edge region} {
            fo2_wait_session $side dr Up 10000
            fo2_wait_session $side l2 Up 10000
        }
        set e [on_vbrd edge {fo_session dr}]
        set r [on_vbrd region {fo_session dr}]
        assert_equal [dict get $e kind] [dict get $r kind] "the session's kind on both sides"
        assert_equal [dict get $e local] 10.99.0.1 "edge's local: its tunnel's inner address"
        assert_equal [dict get $r local] 10.99.0.2 "region's local"
        assert_equal [dict get $e remote_disc] [dict get $r local_disc] "edge's remote = region's local"
        assert_equal [dict get $r remote_disc] [dict get $e local_disc] "region's remote = edge's local"
        assert_equal [dict get $e detect_time_us] 15000 "5 ms x 3"
        fo2_wait_active edge dr member0 2000
        # on the wire: VXLAN from the edge's tunnel address to the region's,
        # carrying BFD multihop (UDP 4784) between the inner addresses
        lassign [twosite_capture line1 ifa {udp dst port 4789 and src host 192.168.100.1} 20 5] cap pcap
        lab_wait_exit $cap 6000
        set text [twosite_pcap_text $pcap]
        assert_match "*VXLAN*10.99.0.1.* > 10.99.0.2.4784: *BFD*" $text
    }

    test "line2 (member0) cut silently under 10 kpps: the stream goes on through the DR tunnel, decapsulated at the region" {
        set l1_0 [twosite_line_frames line1 a2b]
        set l2_0 [dict get [impair_stats line2] a2b tx]
        set rx0 [dict get [twosite_tunnel region] rx_packets]
        try {
            lassign [stream_during h1 10.2.2.2 h2 7301 10000 3 8000 {
                fo2_wait_active edge dr member0 2000
                set t_cut [fo2_now_us]
                fo2_cut line2
                fo2_wait_active edge dr member1 2000
            }] rep snd
            set sw ""
            foreach e [fo2_group_events edge dr $t_cut] {
                if {[dict get $e from] eq "member0"} { set sw $e; break }
            }
            assert_true {$sw ne ""} "a switch from member0 after the cut"
        } finally {
            fo2_heal line2
        }
        set via2 [expr {[dict get [impair_stats line2] a2b tx] - $l2_0}]
        set via1 [expr {[twosite_line_frames line1 a2b] - $l1_0}]
        set decap [expr {[dict get [twosite_tunnel region] rx_packets] - $rx0}]
        set got [dict get $rep received]
        note [format "outage %.1f ms, %d of %d lost, detect to switch %.1f us; line2 passed %d frames, line1 carried %d, region decapsulated %d" \
            [dict get $rep max_gap_ms] [dict get $rep lost] [dict get $rep sent] \
            [expr {[dict get $sw detect_to_switch_ns] / 1000.0}] $via2 $via1 $decap]
        assert_equal [dict get $rep end_marker] true "the end marker arrived"
        assert_not_stuck [dict get $rep max_gap_ms] 100 1000 "outage"
        assert_equal [dict get $sw to] member1
        assert_equal [dict get $sw reason] control_detect_expired "l2's diag"
        assert_not_stuck [dict get $sw detect_to_switch_ns] 1000000 1000000000 "detect to switch" ns
        # what h2 got beyond what line2 let through came in the tunnel:
        # line1 carried it and the region decapsulated it (BFD and ARP
        # make the line counts larger, never smaller)
        set tunnelled [expr {$got - $via2}]
        assert_morethan $tunnelled 15000 "datagrams h2 received that line2 did not pass"
        assert_morethan $via1 $tunnelled "frames line1 carried edge -> region"
        assert_morethan $decap $tunnelled "packets the region's tunnel decapsulated"
    }

    test "line1 (the DR tunnel's line) cut: the tunnel session goes Down on both sides, the group stays on member0" {
        fo2_wait_active edge dr member0 5000
        fo2_wait_session edge dr Up 5000
        set sw0 [dict get [on_vbrd edge {fo_group dr}] switches]
        fo2_cut line1
        try {
            fo2_wait_session edge dr Down 2000
            fo2_wait_session region dr Down 2000
            foreach side {edge region} {
                assert_equal [dict get [on_vbrd $side {fo_session dr}] diag] control_detect_expired "$side: dr's diag"
            }
            set g [on_vbrd edge {fo_group dr}]
            assert_equal [dict get $g member1_state] Down
            assert_equal [dict get $g active] member0 "the group on member0"
            assert_equal [dict get $g switches] $sw0 "no switch"
        } finally {
            fo2_heal line1
        }
        fo2_wait_session edge dr Up 5000
        fo2_wait_session region dr Up 5000
    }
}
