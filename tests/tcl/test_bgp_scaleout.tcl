# Scale-out behind the IDC fabric's BGP ECMP (harness/bgp_nodes.tcl): two
# vbrd nodes, a and b, each with its own control namespace and FRR (zebra
# with the FPM to its vbrd, bgpd), announce 10.5.0.0/24 (srv's service
# address 10.5.0.1 behind both) to the IDC router rtr over eBGP. rtr's
# bgpd takes both paths (maximum-paths), its kernel spreads flows over
# them by an L4 hash, and each session has single-hop BFD, vbrd's data
# path at one end and rtr's bfdd at the other (50 ms x 3), so that rtr's
# bgpd (`neighbor X bfd`) drops a node that dies within BFD's detection
# time, not its 30 s hold time.
#
#   cli ── rtr ─┬─ [vbrd a] ─┬─ srv (lo 10.5.0.1)
#               └─ [vbrd b] ─┘
#
# A node that dies is SIGKILLed (its vbrd, then its bgpd and zebra): it
# says no goodbye, rtr must notice by BFD. The time the flows it carried
# stop (the longest gap of those flows, sender time) is noted next to its
# expectation: BFD's detection time (3 x 50 ms) plus rtr's own reaction,
# bfdd -> bgpd -> zebra -> kernel, each step's time from the daemons' logs
# and the kernel's route events; asserted are the behaviour (the flows
# moved, to b, for BFD's reason, the route has b alone) and a bound only a
# node that rtr never dropped, or dropped by its hold time, reaches. Then
# a comes back (its vbrd and FRR anew) and the flows spread again.
#
# BFD at 50 ms x 3 lets a loaded 2-core machine take sessions down that
# nothing cut (a node's worker off its CPU for 100 ms is enough): a test
# whose window saw that is skipped when the nodes' BFD workers or the
# vCPUs were stopped that long, and fails otherwise (bgpn_flap_verdict).

source [file join [file dirname [file normalize [info script]]] harness bgp_nodes.tcl]

set bfd_ms 50
set bfd_mult 3
set hold_s 30
set pps 4000
# 32 flows: a node with fewer than 4 of them (1/8) is a chance of 5 in
# 2 000 000 per stream of a fair hash, 16 flows would leave it at 1 in 250
set flows 32
set min_flows 4
# The flows' outage: rtr's BFD detection time (3 x 50 ms after a's last
# packet) plus rtr's reaction, ~70 ms with FRR 8.4 (bgpd clears the peer
# in a work queue, ~10 ms, and runs the best path in another that holds
# 50 ms before it runs: bgp_route.c process_main_queue, spec.hold = 50;
# zebra and the kernel take under a ms), plus a flow's spacing (8 ms).
set goal_gap_ms [expr {$bfd_ms * $bfd_mult + 150}]
set stuck_gap_ms 10000

bgpn_lab -interval $bfd_ms -multiplier $bfd_mult -timers [list 10 $hold_s]

# The flows (source ports) srv counted on its interface with NODE between
# two sink snapshots.
proc flows_of {c0 c1 node} {
    set out {}
    for {set i 0} {$i < $::flows} {incr i} {
        set sp [expr {$::bgpn::sport + $i}]
        set n [expr {[dict get $c1 [list s$node $sp]] - [dict get $c0 [list s$node $sp]]}]
        if {$n > 0} { lappend out $sp }
    }
    return $out
}

# The flows of FLOWS that srv has counted fewer than N datagrams of over b
# since the snapshot C.
proc not_moved {flows c n} {
    set now [bgpn_sink_counts]
    set out {}
    foreach sp $flows {
        if {[dict get $now [list sb $sp]] - [dict get $c [list sb $sp]] < $n} { lappend out $sp }
    }
    return $out
}

proc sink_zero {} {
    set z {}
    foreach node $::bgpn::nodes {
        dict set z s$node 0
        for {set i 0} {$i < $::flows} {incr i} {
            dict set z [list s$node [expr {$::bgpn::sport + $i}]] 0
        }
    }
    return $z
}

# The spread between two snapshots: each flow on exactly one node, and
# neither node carrying (almost) all: each at least min_flows of them;
# -> dict node -> its flows.
proc assert_spread {c0 c1} {
    set on {}
    foreach node $::bgpn::nodes {
        dict set on $node [flows_of $c0 $c1 $node]
    }
    set fa [dict get $on a]
    set fb [dict get $on b]
    set na [expr {[dict get $c1 sa] - [dict get $c0 sa]}]
    set nb [expr {[dict get $c1 sb] - [dict get $c0 sb]}]
    note "flows on a: [llength $fa] ($na datagrams), on b: [llength $fb] ($nb datagrams)"
    foreach sp $fa {
        assert_true {$sp ni $fb} "flow $sp arrived over both nodes: the L4 hash keeps a flow on one"
    }
    assert_equal [expr {[llength $fa] + [llength $fb]}] $::flows "every flow arrived"
    assert_true {[llength $fa] >= $::min_flows} "a carries [llength $fa] of $::flows flows"
    assert_true {[llength $fb] >= $::min_flows} "b carries [llength $fb] of $::flows flows"
    return $on
}

# BFD sessions of the nodes in NODES that rtr's bfdd took down in
# [SINCE, UNTIL) though nothing cut them: fail, or skip when the machine
# stopped them (bgpn_flap_verdict). GAPS: dict node -> bgpn_loop_gap_ms.
proc check_no_flap {nodes since until steal0 gaps} {
    set flaps {}
    foreach node $nodes {
        foreach ms [bgpn_rtr_bfd_downs $node $since $until] {
            lappend flaps "$node at +[expr {$ms - $since}] ms"
        }
    }
    if {[llength $flaps]} {
        bgpn_flap_verdict "rtr's BFD sessions went down by themselves ([join $flaps {, }])" \
            [expr {$::bfd_ms * $::bfd_mult}] $::bfd_ms $steal0 $gaps
    }
}

# A stream of SECONDS over the nodes, checked for BFD flaps -> {RECEIVER SENDER COUNTS}.
proc spread_stream {port seconds} {
    set t0 [clock milliseconds]
    set steal0 [bgpn_steal_ms]
    lassign [bgpn_stream $port $::pps $seconds $::flows] rep snd
    set c [bgpn_sink_counts]
    check_no_flap $::bgpn::nodes $t0 "" $steal0 \
        [dict create a [bgpn_loop_gap_ms a] b [bgpn_loop_gap_ms b]]
    return [list $rep $snd $c]
}

bgpn_nodes {
    test "rtr learns 10.5.0.0/24 from both nodes over BGP with BFD: two next hops in zebra and in the kernel" {
        foreach node $::bgpn::nodes { bgpn_up $node }
        wait_for_condition 200 50 {[bgpn_rtr_hops] eq [lsort [list [bgpn_hop a] [bgpn_hop b]]]} else {
            fail "rtr's zebra: 10.5.0.0/24 via [bgpn_rtr_hops], not both nodes"
        }
        assert_equal [bgpn_rtr_kernel_hops] {172.16.1.1 172.16.2.1} "the kernel's route"
        foreach node $::bgpn::nodes {
            set p [frr_bfd_peer rtr [bgpn_addr $node] {*}[bgpn_rtr_bfd_key $node]]
            note "rtr's BFD session to $node: [dict get $p status], detect-multiplier\
                  [dict get $p detect-multiplier], receive [dict get $p receive-interval] ms,\
                  transmit [dict get $p transmit-interval] ms; remote tx\
                  [dict get $p remote-transmit-interval] ms, remote multiplier\
                  [dict get $p remote-detect-multiplier]"
            # zebra's FPM connection comes 3 s after its start, then the route
            wait_for_condition 600 50 {[bgpn_route $node 10.9.0.0/24] ne ""} else {
                fail "node $node: rtr's 10.9.0.0/24 not in vbrd's routes: [bgpn_on $node {vbrctl show fpm}]"
            }
            set r [bgpn_route $node 10.9.0.0/24]
            assert_equal [dict get $r source] bgp "node $node: rtr's prefix learnt from its FRR"
            set f [bgpn_on $node {vbrctl show fpm}]
            assert_equal [dict get $f state] connected "node $node's zebra on its FPM"
            assert_equal [dict get $f fib_errors] 0
            assert_equal [bgpn_taps $node] {vb-line vb-srv} "node $node's TAPs in its namespace"
        }
    }

    test "a $flows-flow stream to 10.5.0.1 reaches srv over both nodes, each flow over one" {
        lassign [spread_stream 7301 2] rep snd c
        note [format "received %d of %d (lost %d), sender %.0f pps" [dict get $rep received] \
                  [dict get $rep sent] [dict get $rep lost] [dict get $snd pps]]
        assert_equal [dict get $rep end_marker] true "the stream ended normally"
        assert_spread [sink_zero] $c
        # (srv's counters see the end markers and what its socket had no room for, too)
        assert_true {[dict get $c sa] + [dict get $c sb] >= [dict get $rep received]} \
            "srv's counters cover what the receiver got: $c"
    }

    test "node a dies (SIGKILL): rtr's BFD drops it, bgpd withdraws its path long before the hold time, its flows move to b" {
        set mon [bgpn_rtr_monitor_start]
        set t_test [clock milliseconds]
        set steal0 [bgpn_steal_ms]
        # long enough for the stuck bound; ended (SIGINT) once a's flows
        # have come back over b
        lassign [bgpn_stream 7302 $pps 60 $flows [expr {$pps * 3 / 2}] {
            set c0 [bgpn_sink_counts]
            set fa [flows_of [sink_zero] $c0 a]
            set gap_a [bgpn_loop_gap_ms a]
            set t_kill [bgpn_kill a]
            # (the kernel's route as ip monitor saw it change: no process
            # to start per look, on a machine whose CPU 0 may be taken)
            while {[set kernel [bgpn_rtr_moved $mon b $t_kill]] eq ""} {
                if {[clock milliseconds] - $t_kill > $::stuck_gap_ms} {
                    fail "rtr's kernel keeps 10.5.0.0/24 via [bgpn_rtr_kernel_hops] [expr {$::stuck_gap_ms / 1000}] s after a died (BGP hold time $::hold_s s); zebra: [bgpn_rtr_hops]"
                }
                after 20
            }
            set c1 [bgpn_sink_counts]
            # every flow a carried arrives over b again (50 datagrams: 0.4 s of a flow)
            wait_for_condition 100 100 {[llength [not_moved $fa $c1 50]] == 0} else {
                fail "a's flows [not_moved $fa $c1 50] not over b 10 s after rtr dropped a"
            }
            lab_kill $::bgpn::sender INT
        }] rep snd
        # a's session before the kill and b's throughout went down by
        # themselves: what follows would measure that
        check_no_flap a $t_test $t_kill $steal0 [dict create a $gap_a b [bgpn_loop_gap_ms b]]
        check_no_flap b $t_test "" $steal0 [dict create a $gap_a b [bgpn_loop_gap_ms b]]
        set on [assert_spread [sink_zero] $c0]
        set fb [dict get $on b]
        assert_equal [dict get $rep end_marker] true "the stream ended normally"

        # the right reason: BFD, not the hold time; bgpd tells a so
        # (RFC 9384: Cease, subcode 10 BFD Down), to no avail
        set st [frr_bgp_neighbor_state rtr [bgpn_addr a]]
        assert_true {$st ne "Established"} "rtr's session to a is $st"
        set out [frr_vtysh rtr "show bgp neighbors [bgpn_addr a] json"]
        set why ""
        regexp {"lastNotificationReason":\s*"([^"]*)"} $out -> why
        assert_match "*BFD Down*" $why "why rtr's bgpd dropped a: [string range $out 0 1500]"
        assert_equal [bgpn_rtr_kernel_hops] {172.16.2.1} "the kernel's route: b alone"
        assert_equal [frr_bgp_neighbor_state rtr [bgpn_addr b]] Established "rtr's session to b"

        # the chain after the kill: bfdd took a's session down, then
        # bgpd sent a its Cease/BFD Down, then the kernel's route lost a
        set bfd_down [lindex [bgpn_rtr_bfd_downs a $t_kill] 0]
        assert_true {$bfd_down ne ""} "rtr's bfdd took a's session down after the kill"
        set bgp_down ""
        foreach ms [bgpn_log_times rtr bgpd "*NOTIFICATION*sent to neighbor [bgpn_addr a] *BFD Down*"] {
            if {$ms >= $bfd_down} { set bgp_down $ms; break }
        }
        assert_true {$bgp_down ne ""} "rtr's bgpd sent a Cease/BFD Down after bfdd's down: [frr_log rtr bgpd]"
        assert_true {$bgp_down <= $kernel} "the kernel's route lost a ($kernel) after bgpd's Cease ($bgp_down)"
        assert_equal [bgpn_rtr_hops] [list [bgpn_hop b]] "rtr's zebra: b alone"
        lab_kill $mon
        # (zebra's debug log, for the figures only: FRR 8.4's wording)
        set z_in [lindex [lmap ms [bgpn_log_times rtr zebra "*process_subq_early_route_add*10.5.0.0/24*"] {
            expr {$ms >= $bgp_down ? $ms : [continue]}}] 0]
        set z_out [lindex [lmap ms [bgpn_log_times rtr zebra "*RTM_NEWROUTE 10.5.0.0/24 *"] {
            expr {$ms >= $bgp_down ? $ms : [continue]}}] 0]

        # the figures
        set gap_a 0.0
        set gap_b 0.0
        foreach f [dict get $rep flows] {
            set g [dict get $f max_gap_ms]
            if {[dict get $f sport] in $fa} {
                set gap_a [expr {max($gap_a, $g)}]
            } else {
                set gap_b [expr {max($gap_b, $g)}]
            }
        }
        note [format "a's %d flows: longest gap %.1f ms (b's %d: %.1f ms; the sender's own longest pause %.1f ms); lost %d of %d" \
                  [llength $fa] $gap_a [llength $fb] $gap_b [dict get $snd max_send_gap_ms] \
                  [dict get $rep lost] [dict get $rep sent]]
        set rel [lmap t [list $bfd_down $bgp_down $z_in $z_out $kernel] {
            expr {$t eq "" ? "?" : $t - $t_kill}}]
        note [format "after the kill (ms; a's vbrd exited in %s, then its bgpd and zebra in %s):\
                      rtr's bfdd down +%s (detection %d ms after a's last packet), bgpd's\
                      Cease/BFD Down +%s, zebra has bgpd's new path +%s and sends it to the\
                      kernel +%s, the kernel's route seen changed +%s (rtr's reaction %d ms\
                      after bfdd)" [dict get $::bgpn::kill_steps vbrd] \
                  [join [lrange [dict values $::bgpn::kill_steps] 1 end] /] [lindex $rel 0] \
                  [expr {$::bfd_ms * $::bfd_mult}] {*}[lrange $rel 1 4] [expr {$kernel - $bfd_down}]]
        assert_not_stuck $gap_a $::goal_gap_ms $::stuck_gap_ms "a's flows' outage (longest gap, sender time)"
        # (the kernel unregisters a TAP whose fd closed in its own time:
        # seconds on a loaded machine, whose RCU grace periods drag)
        wait_for_condition 100 100 {[bgpn_taps a] eq ""} else {
            fail "the dead vbrd's TAPs are left in its namespace: [bgpn_taps a]"
        }
    }

    test "with a dead, srv receives every flow over b" {
        set t0 [clock milliseconds]
        set steal0 [bgpn_steal_ms]
        lassign [bgpn_stream 7303 $pps 2 $flows] rep snd
        check_no_flap b $t0 "" $steal0 [dict create b [bgpn_loop_gap_ms b]]
        set c [bgpn_sink_counts]
        assert_equal [dict get $c sa] 0
        assert_true {[dict get $c sb] >= [dict get $rep received]} "srv's counters cover what the receiver got: $c"
        note [format "received %d of %d (lost %d)" [dict get $rep received] [dict get $rep sent] [dict get $rep lost]]
        # (a flow still hashed to a would lose all of it; a loaded
        # machine loses a few datagrams of a healthy stream)
        foreach f [dict get $rep flows] {
            set want [expr {[dict get $f received] + [dict get $f lost]}]
            assert_true {[dict get $f received] >= 0.9 * $want} \
                "flow [dict get $f sport]: [dict get $f received] of $want received"
        }
    }

    test "node a restarts: BFD and BGP come back, rtr has both next hops again, the flows spread again" {
        set t0 [clock milliseconds]
        bgpn_start a
        bgpn_up a
        wait_for_condition 200 50 {[bgpn_rtr_hops] eq [lsort [list [bgpn_hop a] [bgpn_hop b]]]} else {
            fail "rtr's zebra: 10.5.0.0/24 via [bgpn_rtr_hops], not both nodes"
        }
        note "a back in rtr's route [expr {[clock milliseconds] - $t0}] ms after its start"
        assert_equal [bgpn_rtr_kernel_hops] {172.16.1.1 172.16.2.1} "the kernel's route"
        lassign [spread_stream 7304 2] rep snd c
        assert_spread [sink_zero] $c
    }
}
