# Path selection switching traffic (failover/pathsel/pathsel_decide.h, pathsel.h): a blackhole,
# gray failures (loss, delay) and one bad plane on the active path, and a
# reload, with sequence-numbered streams h1 -> h2 through both vbrds.
#
#   h1 -- [edge] line1  p-line1 cost  5  +0 ms  (cheapest and fastest)   [region] -- h2
#                line2  p-line2 cost 20  +2 ms one way (RTT +4 ms)
#                line3  p-line3 cost 10  +4 ms one way (RTT +8 ms)
#
# p-line1 is both gold's path (latency: the lowest RTT) and bronze's (cost:
# the cheapest); after it, gold's best is p-line2 (the next lowest RTT). The
# base delays are set before the vbrds start, so the start-up choice sees
# them. Tiers per packet: qos policy "tiers", UDP 5001 gold, 5003 bronze,
# anything else the group's tier (gold). Bronze may lose 10 %.
#
# Probe settings. Block 1 (blackhole, bad plane, reload, +60 ms): the
# defaults, 4 planes per path, interval 10 ms, window 100, lost_down 3,
# hold 100 ms. Block 2 (5 % loss): 8 planes, interval 5 ms. At the
# defaults 5 % loss on gold's path moves gold within 500 ms in only 177 of
# 200 simulated runs (tests/unit/test_pathsel.c's simulator with more
# seeds); at 5 ms x 8 planes in 1000 of 1000 (median 178 ms, max 430 ms;
# 993 within 390 ms, leaving ~110 ms for a stalled machine). Not used
# everywhere: it doubles the probe load, and with it the hiccups below.
# The issue's goals (blackhole < 100 ms outage, 5 % loss < 500 ms, a bad
# plane's flows moved < 300 ms) are noted next to each figure; `make
# bench-failover` measures them (bench_pathsel.tcl). Asserted are the
# switch (which tier, from which path to which, for which reason), the
# streams on the lines they should take, and a bound for stuck
# (assert_not_stuck: 1 to 2 s) that a busy machine or the sanitizers stay
# below. Times are measured from just before the impairment is set (the
# tool applies it to frames arriving after its control request) to the
# event's time_us in `show pathsel history`, both wall clock.
#
# Hiccups: on this shared machine a path now and then fails as a whole for
# a few ms (every plane lost lost_down probes in a row: a line's impair tool
# or a vbrd descheduled longer than the 15 ms probe timeout + lost_down
# intervals; both sides see it at once, on lines nobody impaired). The
# checks that a tier did NOT switch accept only such hard failures of the
# path it left (path_down in the same decision batch, ps_unexplained in
# harness/ps_switch.tcl) and returns to its path; they are printed. The
# reload check accepts none.
#
# Expectations come from what the tests did: the impairments set, the
# streams' own reports (seqstream.py), frames counted per line and inner
# UDP port by nft in the lines, outer ports seen by tcpdump on the line.
# +60 ms RTT: in this LAN lab (RTT < 1 ms) the step is above the probe
# timeout (max(15 ms, 3 x the median of the last 8 RTTs)), so p-line1 fails hard
# (every plane lost lost_down probes) before any slower reply comes back;
# the test checks that, and that gold stays off p-line1 once its planes
# answer again 60 ms slower. A step below the timeout (a WAN base RTT above
# 60 ms) would be judged on latency; no test here does that yet.
# dwell = 5000: after a switch for a fault a tier stays put for `dwell`
# (default 60 s); the tests start from the lab's home paths, which a
# machine stall that moved a tier (a whole-path hiccup, see above) would
# otherwise keep them from for a minute.

source [file join [file dirname [file normalize [info script]]] harness ps_switch.tcl]

# The ASan + UBSan build (make test-asan) runs every packet and probe
# several times slower on this 2-core VM: its recent RTTs reach 10-40 ms,
# which stretches the probe timeout (3 x the median) and so detection,
# up to 3 times the goals; the bounds for stuck hold there too.

set tiers_conf {
qos = {
  policies = ( {
    name = "tiers";
    default_business = "all";
    businesses = ( { name = "all"; guaranteed = "100%"; } );
    classes = (
      { name = "gold"; priority = 10; protocol = "udp"; dst_port = 5001; business = "all"; tier = "gold"; },
      { name = "bronze"; priority = 20; protocol = "udp"; dst_port = 5003; business = "all"; tier = "bronze"; } );
  } );
};
pathsel = {
  tiers = { bronze = { objective = "cost"; max_loss = 10.0; }; };
  groups = ( { path_group = "@group@"; interval = @interval@; policy = "tiers"; tier = "gold";
               dwell = 5000; } );
};
}

twosite_lab 0 3
ps_impair line2 delay 2
ps_impair line3 delay 4

# Frames edge -> region per line of the streams' ports: 5001 gold, 5002
# gold by default (the plane test's flows), 5003 bronze.
ps_port_counters {5001 5002 5003}

# The settled state every test starts from (and the heal after it waits for).
set home {gold p-line1 bronze p-line1}

# Run BODY; then, whatever happened, SCRIPT (undo an impairment) and wait
# until the lab is settled again; BODY's error (if any) is raised after.
proc with_cleanup {body script} {
    set code [catch {uplevel 1 $body} result opts]
    uplevel 1 $script
    if {$code} { return -options $opts $result }
    ps_wait_settled $::planes $::home 300
}

# Fail if SIDE's tier TIER made a switch since SINCE_US that is not a
# hiccup of its path or a return to path HOME; note the hiccups.
proc assert_no_switch {side since tier home what} {
    set bad [ps_unexplained $side $since $tier $home]
    set flaps [ps_flaps $side $since]
    if {[llength $flaps]} {
        note "$side: hiccups (a whole path failed at once) since the start: [ps_events_text $flaps $since]"
    }
    assert_equal [ps_events_text $bad $since] "" "$side: $tier switches $what"
}

# Start a stream h1 -> h2 to PORT; return its handle once h2 received
# MIDWAY datagrams more than before.
proc stream_midway {pps seconds port midway {flows 1}} {
    # source ports 41000.. for 5001, 41100.. for 5002 ...: streams at once
    set sport [expr {41000 + ($port - 5001) * 100}]
    set rx0 [lab_rx_packets h2]
    set r [stream_recv h2 $port [expr {$seconds + 15}]]
    set s [stream_send h1 10.2.2.2 $port $pps $seconds $flows -sport $sport]
    wait_for_condition 500 10 {
        [lab_rx_packets h2] - $rx0 >= $midway || [lab_exited $s]
    } else {
        fail "h2 did not receive $midway datagrams of the stream to $port"
    }
    if {[lab_exited $s]} { fail "the stream to $port ended early:\n[lab_spawn_output $s]" }
    return [dict create recv $r send $s]
}

# The first switch event of TIER away from p-line1 on the edge since SINCE_US, or "".
proc first_switch {tier since} {
    return [lindex [ps_events edge $since event switch tier $tier old p-line1] 0]
}

proc ms_since {t_us since_us} { return [expr {($t_us - $since_us) / 1000.0}] }

# Block 1: the default probe settings (4 planes, 10 ms).
set planes 4
start_twosite [ps_lab_opts planes $planes interval 10 ps_conf $tiers_conf \
                   path1 "cost = 5; tier = \"gold\"; planes = $planes;"] {
    test {start-up: gold and bronze both on p-line1 (lowest RTT, lowest cost), every plane healthy} {
        ps_wait_settled $planes $home
        note [ps_paths_text edge]
    }

    test {blackhole on gold's path: gold switches to p-line2 and the stream goes on over it} {
        ps_wait_settled $planes $home
        set rx_start [lab_rx_packets h2]
        set s [stream_midway 2000 3 5001 1000]
        with_cleanup {
            set t0 [ps_now_us]
            ps_blackhole line1
            set rx_cut [lab_rx_packets h2]
            set f_cut [ps_port_frames]
            set rep [ps_stream_result $s]
            set f1 [ps_port_frames]
            set sw [first_switch gold $t0]
        } { ps_heal line1 }
        set after_cut [ps_frames_delta $f_cut $f1]
        set received [dict get $rep received]
        # datagrams h2 got after the cut (its eth0 counts a few ARPs too)
        set got_after [expr {$received - ($rx_cut - $rx_start)}]
        set t_sw [expr {$sw eq "" ? "none" : [ms_since [dict get $sw time_us] $t0]}]
        note "lost [expr {[dict get $rep lost] / 2.0}] ms of traffic ([dict get $rep lost] of\
              [dict get $rep sent]), longest gap with loss [dict get $rep max_loss_gap_ms] ms, any\
              [ps_stream_gap $rep] ms (the sender's own pause [dict get $rep sender max_send_gap_ms] ms);\
              gold switch at $t_sw ms ([expr {$sw eq "" ? "-" : [dict get $sw reason]}]);\
              frames of 5001 after the cut: [lmap l {line1 line2 line3} {dict get $after_cut $l 5001}],\
              h2 got $got_after after it"
        assert_equal [dict get $rep end_marker] true "the stream's end marker arrived"
        # the outage: the traffic lost, 2000 datagrams/s (max_gap_ms and
        # max_loss_gap_ms hold the sender's own pauses too, 200 ms and
        # more at times here)
        set lost_ms [expr {[dict get $rep lost] * 1000.0 / 2000}]
        assert_not_stuck $lost_ms 100 1000 "the gold stream lost"
        assert_true {$sw ne ""} "a gold switch in the edge's history"
        assert_equal [list [dict get $sw old] [dict get $sw new]] {p-line1 p-line2} "gold's switch"
        # After the cut line1 drops everything: what h2 got came over
        # p-line2, the best remaining path for gold, not p-line3.
        assert_morethan [dict get $after_cut line2 5001] [expr {$got_after * 95 / 100}] \
            "gold frames on line2 after the cut (h2 got $got_after)"
    }

    test {one bad plane (outer port 49153): only its flows move, p-line1 stays gold's} {
        ps_wait_settled $planes $home
        set flows 32
        set s [stream_midway 1600 5 5002 500 $flows]
        with_cleanup {
            set before [ps_flow_planes line1 5002 640]
            set t0 [ps_now_us]
            ps_drop_plane line1 49153
            wait_for_condition 100 20 {
                [ps_events edge $t0 event plane_down new p-line1 plane 1] ne ""
            } else {
                fail "no plane_down of p-line1 plane 1 within 2 s:\n[ps_paths_text edge]"
            }
            set down [lindex [ps_events edge $t0 event plane_down new p-line1 plane 1] 0]
            set p1 [ps_path edge p-line1]
            set gold [ps_tier edge gold]
            set after [ps_flow_planes line1 5002 640]
            set rep [ps_stream_result $s]
            set p1_events [ps_events edge $t0 new p-line1]
        } { ps_undrop_plane line1 }
        set on1 {}
        set moved {}
        dict for {sport outer} $before {
            assert_equal [llength $outer] 1 "planes of flow $sport before the fault ($outer)"
            if {$outer == 49153} { lappend on1 $sport }
        }
        set used [lsort -unique [concat {*}[dict values $before]]]
        note "plane_down at [ms_since [dict get $down time_us] $t0] ms ([dict get $down reason]);\
              [dict size $before] flows on outer ports $used; on 49153: $on1"
        assert_equal [dict size $before] $flows "flows seen on line1 before the fault"
        assert_morethan [llength $on1] 0 "flows on plane 1 (49153) before the fault"
        assert_equal [llength $used] $::planes "planes used by the flows before the fault"
        assert_not_stuck [ms_since [dict get $down time_us] $t0] 300 2000 "from the drop to plane_down"
        dict for {sport outer} $after {
            set was [dict get $before $sport]
            if {$sport in $on1} {
                assert_true {49153 ni $outer} "flow $sport still on 49153 after plane_down ($outer)"
                assert_equal [llength $outer] 1 "planes of moved flow $sport after plane_down ($outer)"
                assert_range $outer 49152 [expr {49152 + $::planes - 1}] "moved flow $sport's port"
                lappend moved "$sport:$outer"
            } else {
                assert_equal $outer $was "outer port of flow $sport (not on plane 1)"
            }
        }
        assert_equal [dict size $after] $flows "flows seen on line1 after plane_down"
        # A moved flow's outage: its datagrams lost, each 1/50 s of it (1600
        # datagrams/s over 32 flows); its max_gap_ms holds the sender's own
        # pauses too.
        set gaps {}
        foreach f [dict get $rep flows] {
            if {[dict get $f sport] in $on1} {
                set out_ms [expr {[dict get $f lost] * 1000.0 * $flows / 1600}]
                lappend gaps "[dict get $f sport]:$out_ms (max_gap [dict get $f max_gap_ms])"
                assert_lessthan $out_ms 2000 "outage of moved flow [dict get $f sport], ms (stuck; the goal is 300, noted below)"
            }
        }
        note "moved: $moved; their outages (ms; goal < 300): $gaps; stream gap [ps_stream_gap $rep] ms,\
              lost [dict get $rep lost]; p-line1 events: [ps_events_text $p1_events $t0]"
        # the path stays active: every flow on line1 after plane_down (above),
        # and no switch of gold but hiccups
        note "right after plane_down: gold on $gold, p-line1 healthy_planes\
              [dict get $p1 healthy_planes], carries [dict get $p1 carries]"
        assert_no_switch edge $t0 gold p-line1 "after the plane's fault"
    }

    test {reload with the same config mid-stream keeps probes and choices} {
        ps_wait_settled $planes $home
        set f0 [ps_port_frames]
        set s [stream_midway 1000 3 5001 500]
        set pl0 [dict get [twosite_vbrctl edge show pathsel planes] planes]
        set t0 [ps_now_us]
        foreach side {edge region} { twosite_vbrctl $side reload }
        set t1 [ps_now_us]
        set pl1 [dict get [twosite_vbrctl edge show pathsel planes] planes]
        set settled [ps_settled $::planes $::home]
        set text [ps_paths_text edge]
        # events of the reloads: until 200 ms after both answered (a probe
        # pause would fail planes within lost_down intervals, 30 ms)
        after 200
        set t2 [ps_now_us]
        set ev [ps_events edge $t0]
        set evr [ps_events region $t0]
        set rep [ps_stream_result $s]
        set d [ps_frames_delta $f0 [ps_port_frames]]
        set later [concat [ps_events edge $t2 event switch] [ps_events region $t2 event switch]]
        note "reloads took [ms_since $t1 $t0] ms; stream gap [ps_stream_gap $rep] ms,\
              lost [dict get $rep lost]; 5001 per line [lmap l {line1 line2 line3} {dict get $d $l 5001}];\
              switches later in the stream: [ps_events_text $later $t0]"
        assert_equal [ps_events_text $ev $t0] "" "edge events during the reload"
        assert_equal [ps_events_text $evr $t0] "" "region events during the reload"
        assert_true {$settled} "settled right after the reload:\n$text"
        # the same probe sessions, counting on: tx and rx of each plane grew
        # from where they were (a new session would start at 0); right after
        # the reload, the first probes of new ones would not be answered yet
        assert_equal [llength $pl1] [llength $pl0] "probe sessions"
        foreach a $pl0 b $pl1 {
            set what "[dict get $b path] plane [dict get $b plane]"
            assert_equal [list [dict get $b path] [dict get $b plane]] \
                [list [dict get $a path] [dict get $a plane]] "session order"
            assert_morethan [dict get $b tx] [dict get $a tx] "$what tx"
            assert_morethan [dict get $b rx] [dict get $a rx] "$what rx"
            assert_equal [dict get $b healthy] true "$what healthy"
        }
        assert_equal [dict get $rep end_marker] true "the stream's end marker"
        assert_morethan [dict get $d line1 5001] [expr {[dict get $rep received] * 95 / 100}] \
            "gold frames on line1 (of [dict get $rep received] received)"
    }

    test {+60 ms RTT on gold's path (30 ms each way, above the 15 ms probe timeout): gold moves, stays off once p-line1 answers slower} {
        ps_wait_settled $planes $home
        set base [dict get [ps_path edge p-line1] rtt_recent_us]
        set s [stream_midway 1000 4 5001 300]
        with_cleanup {
            set t0 [ps_now_us]
            ps_impair line1 delay 30
            wait_for_condition 100 20 {[first_switch gold $t0] ne ""} else {
                fail "gold did not move within 2 s:\n[ps_paths_text edge]"
            }
            set f_sw [ps_port_frames]
            # p-line1's planes come back once their (slower) replies do
            wait_for_condition 100 50 {
                [llength [ps_events edge $t0 event plane_up new p-line1]] >= $::planes
            } else {
                fail "p-line1's planes did not come back with the delay:\n[ps_paths_text edge]"
            }
            set up_at [ps_now_us]
            # gold stays on its new path for as long as the stream runs
            set gold_seen {}
            while {![lab_exited [dict get $s send]]} {
                lappend gold_seen [ps_tier edge gold]
                after 200
            }
            set rep [ps_stream_result $s]
            set d [ps_frames_delta $f_sw [ps_port_frames]]
            set sw [first_switch gold $t0]
            set gold_back [ps_unexplained edge [expr {[dict get $sw time_us] + 1}] gold p-line2]
            set ups [ps_events edge $t0 event plane_up new p-line1]
            set p1 [ps_path edge p-line1]
        } { ps_heal line1 }
        set up_rtts [lmap e $ups {dict get $e new_rtt_us}]
        note "base RTT $base us; gold switch at [ms_since [dict get $sw time_us] $t0] ms\
              ([dict get $sw reason], old_rtt_us [dict get $sw old_rtt_us], new_rtt_us [dict get $sw new_rtt_us]);\
              p-line1 planes up again with rtt_us $up_rtts; p-line1 now rtt_recent_us [dict get $p1 rtt_recent_us];\
              stream gap [ps_stream_gap $rep] ms; 5001 per line after the switch\
              [lmap l {line1 line2 line3} {dict get $d $l 5001}]"
        assert_not_stuck [ms_since [dict get $sw time_us] $t0] 500 2000 "from the delay to gold's switch"
        assert_equal [list [dict get $sw old] [dict get $sw new]] {p-line1 p-line2} "gold's switch"
        assert_equal [ps_events_text $gold_back $t0] "" "gold switches after its first, while the delay lasts"
        assert_morethan [llength $gold_seen] 3 "samples of gold's path"
        assert_true {"p-line1" ni $gold_seen} "gold back on p-line1 after its planes came back: $gold_seen"
        # the history shows p-line1 60 ms slower when its planes came back
        foreach r $up_rtts {
            assert_morethan [expr {$r - $base}] 55000 "p-line1 plane's RTT added (us) at plane_up"
        }
        assert_morethan [dict get $d line2 5001] 1000 "gold frames on line2 after the switch"
        assert_lessthan [dict get $d line1 5001] 5 "gold frames on line1 after the switch"
    }
}

# Block 2: 8 planes, 5 ms (see the top: what the 500 ms goal for 5 % loss
# needs; with the defaults gold moves later now and then, and the wait
# for its switch allows 2 s).
set planes 8
start_twosite [ps_lab_opts planes $planes interval 5 ps_conf $tiers_conf \
                   path1 "cost = 5; tier = \"gold\"; planes = $planes;"] {
    test {start-up: gold and bronze both on p-line1 (lowest RTT, lowest cost), every plane healthy} {
        ps_wait_settled $planes $home
        note [ps_paths_text edge]
    }

    test {5 % loss on gold's path (edge -> region): gold moves for loss, bronze (max_loss 10) stays on p-line1} {
        # One way, the streams' way: the probes see it once per round trip,
        # as the streams do (5 % each way would be ~9.75 % per round trip,
        # at bronze's bound).
        ps_wait_settled $planes $home
        set g [stream_midway 1000 5 5001 300]
        set b [stream_midway 1000 4 5003 300]
        with_cleanup {
            set t0 [ps_now_us]
            impair_set line1 loss-a2b 5
            wait_for_condition 100 20 {[ps_unexplained edge $t0 gold p-line1] ne ""} else {
                fail "gold did not move within 2 s:\n[ps_paths_text edge]"
            }
            set seen [ps_now_us]
            set f_sw [ps_port_frames]
            # bronze, sampled while the loss lasts (the streams' remaining ~3.5 s)
            set bronze_seen {}
            while {![lab_exited [dict get $b send]]} {
                lappend bronze_seen [ps_tier edge bronze]
                after 200
            }
            set rg [ps_stream_result $g]
            set rb [ps_stream_result $b]
            set f1 [ps_port_frames]
            set t_end [ps_now_us]
            set sw [lindex [ps_unexplained edge $t0 gold p-line1] 0]
            set bronze_end [ps_tier edge bronze]
            set p1 [ps_path edge p-line1]
        } { ps_heal line1 }
        set d [ps_frames_delta $f_sw $f1]
        set bloss [expr {100.0 * [dict get $rb lost] / [dict get $rb sent]}]
        set gloss [expr {100.0 * [dict get $rg lost] / [dict get $rg sent]}]
        note "gold switch at [ms_since [dict get $sw time_us] $t0] ms ([dict get $sw reason],\
              loss [dict get $sw old_loss_pct] -> [dict get $sw new_loss_pct] %),\
              seen by the test at [ms_since $seen $t0] ms; gold stream lost [format %.2f $gloss] %,\
              bronze stream lost [format %.2f $bloss] % (p-line1 probes: [dict get $p1 loss_pct] %);\
              after the switch, 5001 per line [lmap l {line1 line2 line3} {dict get $d $l 5001}],\
              5003 per line [lmap l {line1 line2 line3} {dict get $d $l 5003}]"
        assert_not_stuck [ms_since [dict get $sw time_us] $t0] 500 2000 "from the loss to gold's switch"
        assert_equal [dict get $sw reason] loss "gold's switch reason"
        assert_equal [dict get $sw old] p-line1 "gold's old path"
        assert_match {p-line[23]} [dict get $sw new] "gold's new path"
        set new [string range [dict get $sw new] 2 end]
        # gold's stream after the switch: on its new line, not on line1
        assert_morethan [dict get $d $new 5001] 1000 "gold frames on $new after the switch"
        # (a hiccup of every path brings gold back to the first path that
        # answers again, lossy or not, until the loss moves it again)
        set gsum [expr {[dict get $d line1 5001] + [dict get $d line2 5001] + [dict get $d line3 5001]}]
        assert_lessthan [dict get $d line1 5001] [expr {$gsum / 10}] \
            "gold frames on line1 after the switch (of $gsum)"
        # bronze: no switch at all while the loss lasted, its stream on line1
        note "bronze's path sampled every 200 ms during the loss: $bronze_seen"
        assert_no_switch edge $t0 bronze p-line1 "during the loss"
        assert_equal $bronze_end p-line1 "bronze's path at the end of the loss"
        assert_morethan [llength $bronze_seen] 5 "samples of bronze's path"
        set bsum [expr {[dict get $d line1 5003] + [dict get $d line2 5003] + [dict get $d line3 5003]}]
        assert_morethan $bsum 2000 "bronze frames after gold's switch"
        # (a hiccup of p-line1 sends some elsewhere for a few ms)
        assert_morethan [dict get $d line1 5003] [expr {$bsum * 90 / 100}] \
            "bronze frames on line1 during the loss (of $bsum)"
        # its loss (both directions impaired, the stream one way: ~5 %) within its bound
        assert_lessthan $bloss 10 "bronze stream's loss, %"
        assert_morethan $bloss 2 "bronze stream's loss, % (the impairment was there)"
    }
}
