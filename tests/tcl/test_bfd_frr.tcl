# BFD interop with FRR's bfdd (Debian frr 8.4) at 10 ms x 3, single-hop
# (RFC 5881) on two lines (harness/failover.tcl draws the lab): both ends
# come Up and agree on discriminators and intervals; FRR shutting a
# session (AdminDown) and FRR being killed are told apart by vbrd.

source [file join [file dirname [file normalize [info script]]] harness failover.tcl]

fo_lab
fo_frr

start_vbrd [list conf [fo_conf]] {
    test "both single-hop sessions come Up with FRR at 10 ms x 3" {
        fo_wait_session l1 Up 10000
        fo_wait_session l2 Up 10000
        frr_bfd_wait_state rtr 172.16.1.1 up 5000
        frr_bfd_wait_state rtr 172.16.2.1 up 5000
        # a member's first Up needs no hold-down: the group is on member0
        wait_for_condition 50 20 {[dict get [fo_group] active] eq "member0"} else {
            fail "group not on member0 once both are Up: [fo_group]"
        }
    }

    test "vbrd and FRR agree on discriminators, intervals and multiplier" {
        foreach {name peer} {l1 172.16.1.1 l2 172.16.2.1} {
            set v [fo_session $name]
            set f [frr_bfd_peer rtr $peer]
            assert_equal [dict get $v remote_disc] [dict get $f id] "$name: vbrd's remote = FRR's local"
            assert_equal [dict get $v local_disc] [dict get $f remote-id] "$name: vbrd's local = FRR's remote"
            # 10 ms both ways (FRR's JSON is in ms, vbrd's in µs)
            assert_equal [dict get $v tx_interval_us] 10000 "$name: agreed TX interval"
            assert_equal [dict get $v remote_min_rx_us] 10000 "$name: FRR's required min RX"
            assert_equal [dict get $v detect_time_us] 30000 "$name: detection time 3 x 10 ms"
            assert_equal [dict get $v remote_detect_mult] 3 "$name: FRR's multiplier"
            assert_equal [dict get $f transmit-interval] 10 "$name: FRR's TX interval"
        }
    }

    test "vbrd's packet counters match what FRR counted on the other end" {
        wait_for_condition 100 20 {[dict get [fo_session l1] tx] > 150} else {
            fail "l1 sent few packets: [fo_session l1]"
        }
        # vtysh takes tens of ms: the two reads are apart by a few packets
        set v0 [fo_session l1]
        set f [json::json2dict [frr_vtysh rtr "show bfd peer 172.16.1.1 interface eth0 local-address 172.16.1.2 counters json"]]
        set v1 [fo_session l1]
        set in [dict get $f control-packet-input]
        set out [dict get $f control-packet-output]
        assert_morethan $in 100 "FRR received vbrd's packets"
        assert_range $in [expr {[dict get $v0 tx] - 20}] [expr {[dict get $v1 tx] + 20}] "vbrd tx vs FRR input"
        assert_range $out [expr {[dict get $v0 rx] - 20}] [expr {[dict get $v1 rx] + 20}] "vbrd rx vs FRR output"
    }

    test "FRR shuts l1 (AdminDown): vbrd goes Down with diag neighbor_down, and the group stays on line1" {
        # a flap of the machine's (see fo_flap_verdict) may have moved the
        # group: start from both Up and the group back on member0
        fo_wait_session l2 Up 5000
        wait_for_condition 150 20 {[dict get [fo_group] active] eq "member0"} else {
            fail "the group is not back on member0: [fo_group]"
        }
        set steal0 [fo_steal_ms]
        set l2flaps [dict get [fo_session l2] flaps]
        set sw0 [dict get [fo_group] switches]
        frr_shutdown_peer rtr 172.16.1.1
        try {
            fo_wait_session l1 Down 5000
            set s [fo_session l1]
            assert_equal [dict get $s remote_state] AdminDown "the peer's state"
            assert_equal [dict get $s diag] neighbor_down "vbrd's diag (RFC 5880 §6.8.6)"
            # well past a detection time: still nothing moved
            after 300
            set g [fo_group]
            if {[dict get [fo_session l2] flaps] != $l2flaps} {
                fo_flap_verdict "l2 flapped while l1's peer was AdminDown (nothing touched line2)" 30 $steal0
            }
            assert_equal [dict get $g member0_state] "peer AdminDown"
            assert_equal [dict get $g active] member0 "RFC 5882 §3.2: AdminDown is not a failure"
            assert_equal [dict get $g switches] $sw0 "no switch"
        } finally {
            frr_noshutdown_peer rtr 172.16.1.1
        }
        fo_wait_session l1 Up 10000
        # its return (the peer's Down, our Init) is no failure either
        set g [fo_group]
        assert_equal [dict get $g switches] $sw0 "no switch while the peer came back"
        assert_equal [dict get $g active] member0 "still on member0"
    }

    test "FRR killed: both sessions go Down with diag control_detect_expired (a failure)" {
        set disc0 [dict get [fo_session l1] remote_disc]
        set flaps0 [dict get [fo_session l1] flaps]
        frr_kill rtr bfdd
        fo_wait_session l1 Down 5000
        fo_wait_session l2 Down 5000
        foreach name {l1 l2} {
            set s [fo_session $name]
            assert_equal [dict get $s diag] control_detect_expired "$name: diag of a silent peer"
        }
        assert_equal [dict get [fo_session l1] flaps] [expr {$flaps0 + 1}] "l1 flap count"
        set ::disc0 $disc0
    }

    test "FRR restarted with new discriminators: the sessions come Up again and learn them" {
        fo_frr
        fo_wait_session l1 Up 10000
        fo_wait_session l2 Up 10000
        set f [frr_bfd_peer rtr 172.16.1.1]
        assert_equal [dict get [fo_session l1] remote_disc] [dict get $f id] "new remote discriminator"
        wait_for_condition 100 20 {[dict get [fo_group] active] eq "member0"} else {
            fail "the group does not fail back to member0 after the hold-down: [fo_group]"
        }
    }
}
