# Fencing of the HA pair (failover/ha/ha_role.h): an active node that can no
# longer renew its lease, because it is cut off from Redis or frozen, must
# stop acting for the service address before the other node may start.
# harness/ha_lab.tcl; lease 300 ms, renew 50, guard 30, retry 10.
#
# "Two actives at once" is measured two ways, both must stay under the
# margin:
#   on the wire   tools/arpwatch.py in h1 asks for 10.10.0.1 (and
#                 2001:db8:10::1) every 10 ms; max_dual_periods is the
#                 longest stretch of request periods in which answers came
#                 from both nodes' MACs. Margin: one period, what one
#                 answer still in flight from the old active can make.
#                 Counted in periods, not ms: a watcher descheduled for a
#                 moment makes a period longer than 10 ms (10.4 ms made
#                 a one-period stretch fail a 10 ms bound on a busy
#                 machine), and a period is what the margin is about.
#                 A node that kept answering while cut would show the
#                 whole cut (tens of periods).
#   by show ha    both nodes sampled all along; ha_overlap_ms is the
#                 longest time both held themselves active by their own
#                 deadlines (lease_remaining_ms). Margin 2 ms (whole ms
#                 rounding of two samples); by design it is 0: the old
#                 active's deadline is its last renew's send time + lease
#                 - guard, before the server lets the lease go.
# Under ASan the waits (not the margins) are multiplied by [ha_slow]; the
# watch ends when the scenario does (ha_arpwatch_stop).

source [file join [file dirname [file normalize [info script]]] harness ha_lab.tcl]

proc wan_frames {node} {
    return [dict get [lab_link_stats wan $node] rx_packets]
}

# The rows of NODE's history at or after FROM_US.
proc rows_since {node from_us} {
    return [lmap r [ha_history $node] {
        expr {[dict get $r time_us] >= $from_us ? $r : [continue]}
    }]
}

# Samples of NODE (ha_samples) taken at or after FROM_US that say ROLE.
proc samples_with {node role from_us} {
    return [lmap s [ha_samples] {
        expr {[dict get $s node] eq $node && [dict get $s role] eq $role
              && [dict get $s t0_us] >= $from_us ? $s : [continue]}
    }]
}

proc note_arpwatch {rep} {
    foreach p {arp nd} {
        set d [dict get $rep $p]
        set macs {}
        dict for {m e} [dict get $d macs] {
            lappend macs [format "%s (%s) %d answers" [ha_node_of_mac $m] $m [dict get $e answers]]
        }
        note [format "arpwatch %s: %d/%d periods answered, dual %d periods, longest %d (%.1f ms), longest silence %.0f ms; its own worst pause %.1f ms; %s" \
            $p [dict get $d answered] [dict get $d periods] [dict get $d dual_periods] \
            [dict get $d max_dual_periods] [dict get $d max_dual_ms] [dict get $d max_silent_ms] \
            [dict get $rep max_send_gap_ms] [join $macs ", "]]
    }
}

# arpwatch's figures that hold in both tests: never two MACs at once for
# more than one request period.
proc check_no_dual {rep} {
    foreach p {arp nd} {
        assert_range [dict get $rep $p max_dual_periods] 0 1 "$p: longest stretch of request periods with both nodes answering"
    }
    set ov [ha_overlap_ms]
    note "show ha: [llength [ha_samples]] samples, both nodes active at once for $ov ms at most"
    assert_lessthan $ov 2 "longest time both nodes' show ha held them active (ms)"
}

start_ha_lab {lease 300 renew 50 guard 30 retry 10} {
    test {the active cut off from Redis: never two actives, the standby takes over after the lease, the old one stays standby after the heal} {
        lassign [ha_pair_up] act sby
        set lease [ha_opt lease]
        set e0 [dict get [ha_show $act] epoch]
        ha_watch_reset
        set w [ha_arpwatch_start [expr {5.0 * [ha_slow]}] -ipv6 1]
        # h1 has entries for both service addresses (a gratuitous ARP or
        # an unsolicited NA updates an entry, it creates none): on $act
        lab_run h1 ping -c 1 -W 0.3 $::ha::vip4
        lab_run h1 ping -6 -c 1 -W 0.3 $::ha::vip6
        wait_for_condition 100 10 {
            [dict get [ha_host_arp] node] eq $act && [dict get [ha_host_nd] node] eq $act
        } else {
            fail "h1's entries before the cut: [ha_host_arp] / [ha_host_nd]"
        }
        ha_watch 300
        set t_cut [ha_now_us]
        ha_cut_redis $act
        # the cut is in force by now (the nft command can take a while on
        # a busy machine: what depends on when it took effect counts from
        # here, not from t_cut)
        set t_cut_done [ha_now_us]
        # the lease's end on the server: $act can no longer renew it
        lassign [ha_lease_window] end_lo end_hi
        if {![ha_watch [expr {3000 * [ha_slow]}] {[ha_role $sby] eq "active"}]} {
            fail "$sby not active 3 s after $act was cut off: [ha_show $sby]"
        }
        set t_took [ha_now_us]
        # a lease more with the cut: the old active must not come back
        ha_watch $lease
        set drops [ha_cut_drops $act]
        set t_heal [ha_now_us]
        ha_heal_redis $act
        if {![ha_watch [expr {5000 * [ha_slow]}] {[dict get [ha_show $act] redis link] eq "up"}]} {
            fail "$act's Redis link not up 5 s after the heal: [ha_show $act]"
        }
        set t_up [ha_now_us]
        ha_watch [expr {3 * $lease}]
        set rep [ha_arpwatch_stop $w]
        note_arpwatch $rep
        set first_sby [dict get $rep arp macs [ha_mac $sby] first_us]
        set last_act [dict get $rep arp macs [ha_mac $act] last_us]
        note [format "after the cut: the lease ended on the server at +%.1f..%.1f ms; %s's last ARP answer at +%.1f ms, %s's first at +%.1f ms; %s active by its show ha at +%.1f ms; %d packets dropped; link up again %.0f ms after the heal" \
            [expr {($end_lo - $t_cut) / 1000.0}] [expr {($end_hi - $t_cut) / 1000.0}] \
            $act [expr {($last_act - $t_cut) / 1000.0}] $sby [expr {($first_sby - $t_cut) / 1000.0}] \
            $sby [expr {($t_took - $t_cut) / 1000.0}] $drops [expr {($t_up - $t_heal) / 1000.0}]]
        assert_morethan $drops 0 "packets the cut dropped"
        check_no_dual $rep
        # the old active stopped by its deadline, a guard before the
        # lease's end on the server (10 ms: the answer to a request just
        # before it), and by the cut + lease - guard (its last renew was
        # sent before the cut was in force)
        set guard [ha_opt guard]
        assert_lessthan $last_act [expr {$end_hi - 1000 * ($guard - 10)}] \
            "$act's last ARP answer vs. the lease's end on the server less the guard ($guard ms)"
        assert_lessthan [expr {($last_act - $t_cut_done) / 1000.0}] \
            [expr {($lease - $guard + 10) * [ha_slow]}] "ms from the cut (done) to $act's last ARP answer"
        assert_lessthan $last_act $first_sby "$act's last answer came before $sby's first"
        # the standby took over once the lease ran out on the server, not
        # before (safety, asserted); the goal is by the cut + lease + retry
        # and some 100 ms for a loaded machine (noted; stuck at 3 s)
        assert_morethan $first_sby $end_lo "$sby's first ARP answer vs. the lease's end on the server"
        assert_not_stuck [expr {($first_sby - $t_cut) / 1000.0}] \
            [expr {$lease + [ha_opt retry] + 100}] 3000 "from the cut to $sby's first ARP answer"
        foreach p {arp nd} {
            # (from a lease and 20 ms, a 10 ms slot after the bound above)
            assert_equal [ha_arp_macs $rep [expr {$t_cut_done + 1000 * ($lease + 20) * [ha_slow]}] "" -proto $p] [list [ha_mac $sby]] \
                "$p: the MACs answering from a lease after the cut"
        }
        assert_equal [samples_with $act active $t_took] {} "$act's samples saying active after $sby took over"
        set s [ha_show $act]
        assert_equal [dict get $s role] standby "$act's role after the heal"
        assert_equal [dict get $s holder] $sby "$act's holder after the heal"
        set ss [ha_show $sby]
        assert_equal [dict get $ss role] active "$sby's role"
        assert_morethan [dict get $ss epoch] $e0 "$sby's epoch"
        assert_equal [dict get $s epoch] [dict get $ss epoch] "$act knows the new epoch"
        set down [lindex [rows_since $act $t_cut] 0]
        assert_equal [dict get $down old] active "$act's first row after the cut: from active"
        assert_true {[dict get $down reason] in {deadline lost}} "$act stepped down for [dict get $down reason]"
        assert_equal [dict get [ha_host_arp] node] $sby "h1's ARP entry for $::ha::vip4"
        assert_equal [dict get [ha_host_nd] node] $sby "h1's neighbor entry for $::ha::vip6"
    }

    test {the active frozen (SIGSTOP) for 3 leases, then SIGCONT: it finds the other's lease, never answers ARP or forwards again} {
        lassign [ha_pair_up] act sby
        set lease [ha_opt lease]
        ha_watch_reset
        set w [ha_arpwatch_start [expr {3.5 * [ha_slow]}] -ipv6 1]
        set rx0 [lab_rx_packets h2]
        set h [ha_stream_start 2000 [expr {3 * [ha_slow]}] 5201]
        wait_for_condition 500 10 {[lab_rx_packets h2] - $rx0 >= 600} else {
            fail "h2 did not receive 600 datagrams of the stream"
        }
        set t_stop [ha_now_us]
        ha_kill $act STOP
        if {![ha_watch [expr {3000 * [ha_slow]}] {[ha_role $sby] eq "active"}]} {
            fail "$sby not active 3 s after $act was frozen: [ha_show $sby]"
        }
        set t_took [ha_now_us]
        # frozen for 3 leases, and at least one lease after the takeover
        set until [expr {max($t_stop + 3000 * $lease, $t_took + 1000 * $lease)}]
        ha_watch [expr {($until - [ha_now_us]) / 1000}]
        set f0 [wan_frames $act]
        set t_cont [ha_now_us]
        ha_kill $act CONT
        ha_wait_role $act standby [expr {2000 * [ha_slow]}]
        ha_watch [expr {3 * $lease}]
        set f_after [expr {[wan_frames $act] - $f0}]
        set rep [ha_arpwatch_stop $w]
        set srep [ha_stream_result $h]
        note_arpwatch $rep
        note [format "frozen %.0f ms; %s active by its show ha %.0f ms after the SIGSTOP; stream: outage %.1f ms, %d lost, %d reordered, %d duplicates; %s sent %d frames on wan after the SIGCONT" \
            [expr {($t_cont - $t_stop) / 1000.0}] $sby [expr {($t_took - $t_stop) / 1000.0}] \
            [dict get $srep max_gap_ms] [dict get $srep lost] [dict get $srep reordered] \
            [dict get $srep duplicates] $act $f_after]
        check_no_dual $rep
        foreach p {arp nd} {
            assert_equal [ha_arp_macs $rep $t_cont "" -proto $p] [list [ha_mac $sby]] \
                "$p: the MACs answering after the SIGCONT"
            foreach a [dict get $rep $p announces] {
                lassign $a t mac kind
                if {$t >= $t_cont && [string equal -nocase $mac [ha_mac $act]]} {
                    fail "$p: $act announced the service address after the SIGCONT ($kind at +[expr {($t - $t_cont) / 1000}] ms)"
                }
            }
        }
        assert_equal [samples_with $act active $t_cont] {} "$act's samples saying active after the SIGCONT"
        # what waited in its receive ring during the freeze (some 600
        # datagrams came for it until the gratuitous ARP) is not
        # forwarded: counted on the wan bridge's port of the node, where
        # anything it sends shows (20: room for its own ARP on wan). Not
        # by the stream's reordering: vbrd reorders a few datagrams by
        # itself when it starts forwarding to a neighbor it had to
        # resolve (the held ones go out after newer ones), at the
        # stream's start and at the takeover.
        assert_lessthan $f_after 20 "frames $act sent on wan after the SIGCONT"
        assert_equal [dict get $srep duplicates] 0 "duplicated datagrams"
        set s [ha_show $act]
        assert_equal [dict get $s role] standby "$act's role"
        assert_equal [dict get $s holder] $sby "$act's holder"
        set row [lindex [rows_since $act $t_stop] 0]
        assert_equal [dict get $row old] active "$act's first row after the freeze: from active"
        assert_equal [dict get $row reason] paused "$act's first row after the freeze: reason"
        assert_equal [dict get [ha_host_arp] node] $sby "h1's ARP entry for $::ha::vip4"
    }
}
