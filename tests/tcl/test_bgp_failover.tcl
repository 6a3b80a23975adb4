# BGP + BFD + a failover group on each line, the plan for every site: the
# IDC router (FRR bgpd + bfdd in rtr) announces 10.2.0.0/24 over both
# lines; vbrd's FRR (bgpd + zebra with FPM, in vbrd's control namespace)
# learns it over both and zebra hands it to vbrd. Its next hops are the
# gateways of the failover group's member lines, so vbrd's route points at
# the group: a silent cut of the active line moves the stream in the
# group's one store (BFD, tens of ms), and the line's TAP loses its carrier,
# so bgpd drops the session over it at once (fast external failover)
# instead of after its hold time (30 s here); zebra re-points the prefix at
# line2 behind it, and vbrd's route stays on the group.
#
#   idc 10.1.0.2 ── lan [vbrd] line1 172.16.1.1 ── eth0 172.16.1.2 [rtr: bgpd, bfdd]
#                             line2 172.16.2.1 ── eth1 172.16.2.2        lo 10.2.0.1
#                    TAPs vb-line1, vb-line2 in cp [vbrd's FRR: zebra (FPM), bgpd]
#
# Outages are noted next to their goal (make bench-failover measures
# them); asserted are the behaviour and bounds only a failover that never
# happened reaches (test_failover.tcl says why).

source [file join [file dirname [file normalize [info script]]] harness fo_bgp.tcl]

set interval_ms 10
set mult 5
set pps 10000
set max_outage_ms 100
set stuck_outage_ms 1000
set hold_s 30

fob_lab -interval $interval_ms -multiplier $mult -timers [list 10 $hold_s]

proc cp_state {peer} { return [frr_bgp_neighbor_state cp $peer] }

start_vbrd [list conf [fob_conf mult $mult]] {
    # vbrd made the TAPs: now vbrd's FRR can see them
    fob_frr

    test "BGP over both lines through the TAPs; zebra's route to the region points at the failover group" {
        fob_ready
        set r [fob_route 10.2.0.0/24]
        assert_equal [dict get $r source] bgp "learnt from FRR"
        assert_equal [dict get $r type] failover_group "through a member line's gateway: the group"
        assert_equal [dict get [lindex [dict get $r next_hops] 0] interface] uplink
        set f [vbrctl show fib 10.2.0.1]
        assert_equal [dict get $f type] failover_group "what the data path's lookup gives"
        assert_equal [dict get $f source] bgp "show fib: the same source as show routes"
        foreach l {line1 line2} {
            set t [fob_tap $l]
            assert_equal [dict get $t carrier] up "$l's TAP"
            assert_morethan [dict get $t to_kernel] 0 "BGP punted to $l's TAP"
            assert_morethan [dict get $t from_kernel] 0 "BGP from $l's TAP routed out"
        }
        set c [lindex [dict get [vbrctl show cplane] classes] 0]
        assert_equal [dict get $c class] bgp
        assert_morethan [dict get $c punted] 0 "BGP punted in class bgp"
        assert_equal [dict get $c policed] 0 "nothing policed"
        fo_wait_group active member0 2000
    }

    test "line1 dies silently mid-stream: the group moves the BGP route at once, the TAP goes down, bgpd drops the session long before its hold time" {
        set sw0 [dict get [fo_group] switches]
        try {
            lassign [fo_stream 7201 $pps 4 [expr {$pps / 2}] {
                set t_cut [clock milliseconds]
                fo_cut 1
                fo_wait_session l1 Down 2000
                wait_for_condition 200 10 {[dict get [fo_sink_counts] eth1] >= 1000} else {
                    fail "the stream does not arrive on rtr's eth1 (line2): [fo_sink_counts]"
                }
                wait_for_condition 200 10 {[dict get [fob_tap line1] carrier] eq "down"} else {
                    fail "line1's TAP keeps its carrier: [fob_tap line1]"
                }
                set t_down [clock milliseconds]
                wait_for_condition 200 25 {[cp_state 172.16.1.2] ne "Established"} else {
                    fail "bgpd keeps its session over line1 ([cp_state 172.16.1.2]) 5 s after the cut"
                }
                set t_bgp [clock milliseconds]
            }] rep snd
            note [format "gap %.1f ms (with loss %.1f ms), lost %d of %d; TAP down %d ms and BGP session down %d ms after the cut (hold time %d s)" \
                [dict get $rep max_gap_ms] [dict get $rep max_loss_gap_ms] [dict get $rep lost] \
                [dict get $rep sent] [expr {$t_down - $t_cut}] [expr {$t_bgp - $t_cut}] $hold_s]
            assert_equal [dict get $rep end_marker] true "the stream ended normally"
            assert_not_stuck [dict get $rep max_loss_gap_ms] $max_outage_ms $stuck_outage_ms "the outage (max_loss_gap_ms)"
            assert_not_stuck [expr {1000.0 * [dict get $rep lost] / $pps}] $max_outage_ms $stuck_outage_ms "ms of the stream lost"
            set g [fo_group]
            assert_equal [dict get $g active] member1
            assert_equal [dict get $g switches] [expr {$sw0 + 1}] "one switch"
            # zebra re-points the prefix at line2 alone; vbrd's route stays on the group
            wait_for_condition 200 50 {
                [dict get [dict get [frr_zebra_routes cp] 10.2.0.0/24] nexthops] eq "172.16.2.2%vb-line2"
            } else {
                fail "zebra's route did not move to line2: [dict get [frr_zebra_routes cp] 10.2.0.0/24]"
            }
            set r [fob_route 10.2.0.0/24]
            assert_equal [dict get $r type] failover_group "still the group"
            assert_equal [dict get [lindex [dict get $r next_hops] 0] interface] uplink
        } finally {
            fo_heal 1
        }
    }

    test "line1 heals: BFD Up, the TAP's carrier back, the session over line1 Established again" {
        fo_wait_session l1 Up 10000
        wait_for_condition 200 10 {[dict get [fob_tap line1] carrier] eq "up"} else {
            fail "line1's TAP stays down: [fob_tap line1]"
        }
        # the carrier went down and up for the cut's Down of l1, and for any
        # flap a loaded machine adds (a flap shorter than the 1 ms look may
        # go unseen): it follows the line's BFD, and ends up
        set flaps [dict get [fo_session l1] flaps]
        set changes [dict get [fob_tap line1] carrier_changes]
        assert_range $changes 2 [expr {2 * $flaps}] "line1's carrier: down and up at most once per Down of l1 ($flaps)"
        assert_equal [expr {$changes % 2}] 0 "line1's carrier ended up as it began"
        assert_range [dict get [fob_tap line2] carrier_changes] 0 [expr {2 * [dict get [fo_session l2] flaps]}] "line2's carrier moved only with l2"
        frr_bgp_wait_state cp 172.16.1.2 Established 30000
        assert_equal [dict get [fob_route 10.2.0.0/24] type] failover_group
        set f [vbrctl show fpm]
        assert_equal [dict get $f resets] 0 "no FPM reset"
        assert_equal [dict get $f fib_errors] 0
    }
}
