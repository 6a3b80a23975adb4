# One scenario of tests/perf/bench-failover.sh, run by tests/tcl/run.tcl
# (the integration harness: labs, vbrd, FRR, seqstream, cleanup):
#
#   BENCH_FO_SCENARIO=vbrd-5ms|frr-10ms|dr-5ms tclsh tests/tcl/run.tcl tests/perf/bench_failover.tcl
#
# Scenarios (the labs of the integration tests):
#   vbrd-5ms  vbrd <-> vbrd, single-hop BFD at 5 ms x 3 on both two-site
#             lines (harness/fo_twosite.tcl, two lines); cut line1
#   frr-10ms  vbrd <-> FRR bfdd at 10 ms x 3 (harness/failover.tcl); cut
#             line1 at the router (nft, both directions)
#   dr-5ms    a line and the DR tunnel to the HA partner, 5 ms x 3
#             (fo_twosite.tcl, DR design); cut line2, member0
#
# Each cut: wait until the group is on member0 and both members are Up;
# start a seqstream of BENCH_FO_PPS (10000) datagrams/s for 1.2 s; once the
# receiver has 3000 of them, cut member0's line silently and wait for the
# group to move; when the stream has ended, heal the line and wait for
# the failback (revertive, hold-down 200 ms). Per cut it appends a line
#
#   SCENARIO CUT OUTAGE_MS DETECT_US LOST SENDER_MAX_PAUSE_MS STATUS
#
# to BENCH_FO_OUT: OUTAGE_MS the receiver's max_gap_ms (the longest stretch
# of sender time between two datagrams that got through), DETECT_US the
# switch's detect_to_switch_ns / 1000 from `show fgroup history`, STATUS ok
# or why the cut has no figure (no switch, stream failed). At the end, one
# line "# SCENARIO flaps N extra_switches M" (sessions' Down transitions
# beyond one per cut, and group switches beyond the measured cuts' two
# each: what the machine's stalls did by themselves). BENCH_FO_CUTS (20) cuts.

set _here [file dirname [file normalize [info script]]]
source [file join $_here .. tcl harness fo_twosite.tcl]

set scen [expr {[info exists ::env(BENCH_FO_SCENARIO)] ? $::env(BENCH_FO_SCENARIO) : "vbrd-5ms"}]
set cuts [expr {[info exists ::env(BENCH_FO_CUTS)] ? $::env(BENCH_FO_CUTS) : 20}]
set pps [expr {[info exists ::env(BENCH_FO_PPS)] ? $::env(BENCH_FO_PPS) : 10000}]
set out [expr {[info exists ::env(BENCH_FO_OUT)] ? $::env(BENCH_FO_OUT) : [file join [lab_rundir] bench-failover.cuts]}]

# What a scenario provides: where its group lives, how its line fails.
# bench_on SCRIPT runs SCRIPT against the vbrd that has the group.
proc bench_on {script} {
    if {$::bench(side) eq ""} { return [uplevel 1 $script] }
    return [uplevel 1 [list on_vbrd $::bench(side) $script]]
}

proc bench_active {} {
    return [dict get [bench_on [list fo_group $::bench(group)]] active]
}

proc bench_wait_active {member ms} {
    set t0 [clock milliseconds]
    set ::bench(polls) {}
    while {[set a [bench_active]] ne $member} {
        lappend ::bench(polls) [expr {[clock milliseconds] - $t0}] $a
        if {[clock milliseconds] - $t0 > $ms} { return 0 }
        after 5
    }
    return 1
}

# 1 once the expression COND (evaluated in the caller) holds, 0 after MS.
proc bench_until {ms cond} {
    set t0 [clock milliseconds]
    while {![uplevel 1 [list expr $cond]]} {
        if {[clock milliseconds] - $t0 > $ms} { return 0 }
        after 10
    }
    return 1
}

proc bench_sessions_up {} {
    foreach n $::bench(sessions) {
        if {[dict get [bench_on [list fo_session $n]] state] ne "Up"} { return 0 }
    }
    return 1
}

proc bench_flaps {} {
    set n 0
    foreach s $::bench(sessions) {
        incr n [dict get [bench_on [list fo_session $s]] flaps]
    }
    return $n
}

# One cut; returns the line for BENCH_FO_OUT (without the scenario and number).
proc bench_cut {i} {
    # ready: both members Up, the group on member0 (a flap of its own may
    # have moved it: then the hold-down brings it back)
    if {![bench_until 5000 {[bench_sessions_up] && [bench_active] eq "member0"}]} {
        return "- - - - not_ready"
    }
    set t_cut 0
    set switched 0
    set code [catch {
        lassign [stream_during {*}$::bench(stream) [expr {7400 + $i}] $::bench(pps) 1.2 3000 {
            set t_cut [clock microseconds]
            {*}$::bench(cut)
            incr ::bench(done)
            set switched [bench_wait_active member1 2000]
        } {*}$::bench(rxif)] rep snd
    } err]
    {*}$::bench(heal)
    if {$code} {
        return "- - - - stream_failed:[string map {" " _ "\n" _} [string range $err 0 60]]"
    }
    # the cut's switch: the group's first event after the cut, from
    # member0; the cut is void when a flap of its own had moved the group
    # before it (the last event before the cut leaves member0)
    set sw ""
    set before ""
    foreach e [bench_on [list fo_events $::bench(group)]] {
        if {[dict get $e object] ne "fgroup"} { continue }
        if {[fo_time_us [dict get $e time]] < $t_cut} {
            set before $e
        } elseif {$sw eq ""} {
            set sw $e
        }
    }
    set gap [format %.1f [dict get $rep max_gap_ms]]
    # without the end marker (lost too) the sender's own report says it
    set lost [expr {[dict get $snd sent] - [dict get $rep received]}]
    set pause [format %.1f [dict get $snd max_send_gap_ms]]
    if {$before ne "" && [dict get $before to] ne "member0"} {
        return "$gap - $lost $pause void_flap"
    }
    if {$sw ne "" && [dict get $sw from] ne "member0"} {
        return "$gap - $lost $pause void_flap"
    }
    if {!$switched || $sw eq ""} {
        note "cut $i: no switch within 2 s: [bench_on [list fo_group $::bench(group)]]"
        note "polls: $::bench(polls)"
        foreach e [bench_on {fo_events}] {
            if {[fo_time_us [dict get $e time]] >= $t_cut - 1000000} { note "  [expr {[fo_time_us [dict get $e time]] - $t_cut}] us: $e" }
        }
        return "$gap - $lost $pause no_switch"
    }
    if {[dict get $rep end_marker] ne "true"} {
        note "cut $i: the end marker did not arrive: $rep"
    }
    set det [format %.1f [expr {[dict get $sw detect_to_switch_ns] / 1000.0}]]
    # back to member0 for the next cut: session Up, then the hold-down
    bench_until 5000 {[bench_active] eq "member0"}
    return "$gap $det $lost $pause ok"
}

proc bench_run {} {
    set fd [open $::out a]
    set flaps0 [bench_flaps]
    set sw0 [dict get [bench_on [list fo_group $::bench(group)]] switches]
    set ok 0
    for {set i 1} {$i <= $::cuts} {incr i} {
        set line [bench_cut $i]
        if {[lindex $line end] eq "ok"} { incr ok }
        puts $fd "$::scen $i $line"
        flush $fd
    }
    # member0's session goes Down once per cut: the rest are the machine's
    set flaps [expr {[bench_flaps] - $flaps0 - $::bench(done)}]
    set sw [expr {[dict get [bench_on [list fo_group $::bench(group)]] switches] - $sw0 - 2 * $ok}]
    puts $fd "# $::scen flaps $flaps extra_switches $sw"
    close $fd
    note "$::scen: $ok of $::cuts cuts measured; $flaps session flaps, $sw group switches beyond the cuts'"
}

set ::bench(pps) $pps
set ::bench(done) 0
set ::bench(rxif) {}
switch -- $scen {
    vbrd-5ms - dr-5ms {
        if {$scen eq "vbrd-5ms"} {
            set opts [fo2_lines_opts interval 5 hold_down 200]
            array set ::bench {side edge group uplink sessions {l1 l2}
                cut {fo2_cut line1} heal {fo2_heal line1}}
        } else {
            set opts [fo2_dr_opts interval 5 hold_down 200]
            array set ::bench {side edge group dr sessions {l2 dr}
                cut {fo2_cut line2} heal {fo2_heal line2}}
        }
        set ::bench(stream) {h1 10.2.2.2 h2}
        start_twosite $opts {
            test "$scen: $cuts silent cuts under $pps pps" {
                foreach side {edge region} {
                    foreach n $::bench(sessions) { fo2_wait_session $side $n Up 10000 }
                }
                bench_run
            }
        }
    }
    frr-10ms {
        array set ::bench {side "" group uplink sessions {l1 l2}
            cut {fo_cut 1} heal {fo_heal 1} stream {idc 10.2.0.1 rtr}}
        fo_lab
        fo_frr -interval 10 -multiplier 3
        start_vbrd [list conf [fo_conf interval 10 mult 3 hold_down 200]] {
            test "$scen: $cuts silent cuts under $pps pps" {
                fo_wait_session l1 Up 10000
                fo_wait_session l2 Up 10000
                bench_run
            }
        }
    }
    default {
        error "BENCH_FO_SCENARIO: unknown scenario '$scen' (vbrd-5ms, frr-10ms, dr-5ms)"
    }
}
