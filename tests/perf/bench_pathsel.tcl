# The path-selection part of tests/perf/bench-failover.sh, run by
# tests/tcl/run.tcl (the integration harness):
#
#   BENCH_PS_SCENARIOS="ps-blackhole ps-delay60 ps-loss5 ps-plane" \
#       tclsh tests/tcl/run.tcl tests/perf/bench_pathsel.tcl
#
# The lab is harness/ps_lab.tcl's: two vbrds joined by three lines through
# impair, one path per line (p-line1 cost 30, p-line2 20, p-line3 10), 4
# planes per path, path selection on both sides with the default probe
# settings (interval 10 ms, window 100, lost_down 3, margin 10 % / 2 ms,
# hold 100 ms, plane_max_loss 1 %; gold tier: lowest latency, max_loss 1 %;
# failover/pathsel/pathsel_config.h). Every scenario runs in the same pair of vbrds,
# one after the other; the edge's group "region" is measured.
#
# Scenarios (the fault, always on the line of the edge's gold path):
#   ps-blackhole  ps_blackhole LINE (loss 100 both ways)       event: gold's switch
#   ps-delay60    ps_impair LINE delay 30 (+60 ms round trip)  event: gold's switch
#   ps-loss5      ps_impair LINE loss 5 (each way)             event: gold's switch
#   ps-plane      ps_drop_plane LINE 49153 (plane 1 of the     event: that plane's plane_down;
#                 path, both ways)                                    the path must not switch
#
# Each fault: wait until the edge's group has settled (below), read gold's
# path, note the wall clock in µs (before the impair/nft command: the
# command's own latency is in the figure, and logged as CTL_MS), apply the
# fault, poll `show pathsel history region` until the event comes (at most
# BENCH_PS_WAIT_MS, 3000), then for ps-plane hold the fault 300 ms more and
# check that no gold switch left the path; heal (ps_heal / ps_undrop_plane).
# The figure is the event's time_us (vbrd's clock at the decision) minus
# the onset. Settled means, on every path of the edge's group: all planes
# healthy, at least 90 % of a full window judged, the window's loss at most
# BENCH_PS_SETTLE_LOSS % (0.5) and its RTT p99 below 20 ms, i.e. the window
# holds no probe of the previous fault (a condition on `show pathsel`, no
# fixed sleep; the probes of a fault leave the window one window, 1 s,
# after the heal). A fault that does not settle in 15 s is void
# (not_ready).
#
# Per fault it appends to BENCH_PS_OUT (default: the run dir's
# bench-pathsel.faults)
#
#   SCENARIO FAULT PATH MS REASON DETECT_US CTL_MS CAND_LOST STATUS
#
# PATH gold's path at the onset, MS the onset-to-event time, REASON the
# switch's reason (plane_down's for ps-plane), DETECT_US the event's
# detect_to_switch_ns / 1000 (the worker's probe event to the data path's
# store), CTL_MS how long the fault command took, CAND_LOST the lost
# probes in the other paths' windows at the onset (a candidate with any
# may not "meet" gold's 1 % bound: 0 of 400 judged probes gives a Wilson
# upper bound of 0.8 %, 1 of 400 already 1.25 %), STATUS ok, switched
# (ps-plane: the path switched anyway; measured, and counted apart),
# no_event (no event within BENCH_PS_WAIT_MS: a miss, not void) or
# not_ready (void). BENCH_PS_FAULTS (10) faults per scenario.

set _here [file dirname [file normalize [info script]]]
source [file join $_here .. tcl harness ps_lab.tcl]

proc _env {name default} {
    return [expr {[info exists ::env($name)] && $::env($name) ne "" ? $::env($name) : $default}]
}
set scens [_env BENCH_PS_SCENARIOS "ps-blackhole ps-delay60 ps-loss5 ps-plane"]
set faults [_env BENCH_PS_FAULTS 10]
set wait_ms [_env BENCH_PS_WAIT_MS 3000]
set settle_loss [_env BENCH_PS_SETTLE_LOSS 0.5]
set out [_env BENCH_PS_OUT [file join [lab_rundir] bench-pathsel.faults]]
foreach s $scens {
    if {$s ni {ps-blackhole ps-delay60 ps-loss5 ps-plane}} {
        error "BENCH_PS_SCENARIOS: unknown scenario '$s' (ps-blackhole ps-delay60 ps-loss5 ps-plane)"
    }
}

set ::bps(planes) 4
set ::bps(window) 100

# The edge's group "region" as `show pathsel` has it.
proc bps_group {} { return [lindex [dict get [ps_paths edge] path_groups] 0] }

# "" when the edge's group has settled, else what is not yet.
proc bps_unsettled {} {
    set g [bps_group]
    foreach p [dict get $g paths] {
        set n [dict get $p name]
        if {[dict get $p healthy_planes] != $::bps(planes)} {
            return "$n: [dict get $p healthy_planes] healthy planes"
        }
        if {[dict get $p probes_judged] < $::bps(planes) * $::bps(window) * 9 / 10} {
            return "$n: [dict get $p probes_judged] probes judged"
        }
        if {[dict get $p loss_pct] > $::settle_loss} {
            return "$n: loss [dict get $p loss_pct] %"
        }
        if {[dict get $p rtt_p99_us] >= 20000} {
            return "$n: rtt p99 [dict get $p rtt_p99_us] us"
        }
    }
    return ""
}

proc bps_wait_settled {ms} {
    set t0 [clock milliseconds]
    while {[set why [bps_unsettled]] ne ""} {
        if {[clock milliseconds] - $t0 > $ms} { return $why }
        after 50
    }
    return ""
}

# The edge's history events of the group since T0_US (wall clock, µs).
proc bps_events {t0_us} {
    set evs {}
    foreach e [dict get [twosite_vbrctl edge show pathsel history region] events] {
        if {[dict get $e time_us] >= $t0_us} { lappend evs $e }
    }
    return $evs
}

# The first event since T0_US matching the scenario's: gold's switch away
# from PATH, or PATH's plane 1 going down; "" when none yet.
proc bps_match {scen path t0_us} {
    foreach e [bps_events $t0_us] {
        if {$scen eq "ps-plane"} {
            if {[dict get $e event] eq "plane_down" && [dict get $e new] eq $path
                && [dict get $e plane] == 1} { return $e }
        } elseif {[dict get $e event] eq "switch" && [dict get $e tier] eq "gold"
                  && [dict get $e old] eq $path} {
            return $e
        }
    }
    return ""
}

proc bps_fault {scen line} {
    switch -- $scen {
        ps-blackhole { ps_blackhole $line }
        ps-delay60   { ps_impair $line delay 30 }
        ps-loss5     { ps_impair $line loss 5 }
        ps-plane     { ps_drop_plane $line 49153 }
    }
}

proc bps_heal {scen line} {
    if {$scen eq "ps-plane"} { ps_undrop_plane $line } else { ps_heal $line }
}

# One fault; the line for BENCH_PS_OUT without scenario and number.
proc bps_one {scen i} {
    if {[set why [bps_unsettled]] ne ""} {
        set why [bps_wait_settled 15000]
    }
    if {$why ne ""} {
        note "$scen fault $i: not settled after 15 s ($why)"
        return "- - - - - - not_ready"
    }
    set g [bps_group]
    set path [dict get $g gold]
    if {![regexp {^p-(line\d)$} $path -> line]} {
        note "$scen fault $i: gold is on '$path'"
        return "$path - - - - - not_ready"
    }
    # lost probes in the other paths' windows: a candidate must look clean
    # to take over for loss (pathsel.h, Part 2), so say what they held
    set cand 0
    foreach p [dict get $g paths] {
        if {[dict get $p name] ne $path} { incr cand [dict get $p probes_lost] }
    }
    set t0 [clock microseconds]
    bps_fault $scen $line
    set ctl [format %.1f [expr {([clock microseconds] - $t0) / 1000.0}]]
    set code [catch {
        set e ""
        set tw [clock milliseconds]
        while {[set e [bps_match $scen $path $t0]] eq ""} {
            if {[clock milliseconds] - $tw > $::wait_ms} {
                # what the edge saw at the end of the wait, for the log
                set seen [bps_group]
                break
            }
            after 10
        }
        set moved 0
        if {$e ne "" && $scen eq "ps-plane"} {
            # the plane is out; the path must stay gold's
            after 300
            foreach x [bps_events $t0] {
                if {[dict get $x event] eq "switch" && [dict get $x tier] eq "gold"
                    && [dict get $x old] eq $path} {
                    set moved 1
                    note "$scen fault $i: $path switched anyway: $x"
                }
            }
        }
    } err opts]
    bps_heal $scen $line
    if {$code} { return -options $opts $err }
    if {$e eq ""} {
        note "$scen fault $i: no event within $::wait_ms ms on $path (gold: [dict get $seen gold]); paths then:"
        foreach p [dict get $seen paths] {
            note "  [dict get $p name]: healthy planes [dict get $p healthy_planes], loss [dict get $p loss_pct] % ([dict get $p probes_lost] of [dict get $p probes_judged]), rtt mean [dict get $p rtt_mean_us] us p99 [dict get $p rtt_p99_us] us"
        }
        note "  events since the onset:"
        foreach x [bps_events $t0] {
            note "  [expr {([dict get $x time_us] - $t0) / 1000.0}] ms: [dict get $x event] [dict get $x tier] [dict get $x old] -> [dict get $x new] plane [dict get $x plane] ([dict get $x reason])"
        }
        return "$path - - - $ctl $cand no_event"
    }
    set ms [format %.1f [expr {([dict get $e time_us] - $t0) / 1000.0}]]
    set det [format %.1f [expr {[dict get $e detect_to_switch_ns] / 1000.0}]]
    return "$path $ms [dict get $e reason] $det $ctl $cand [expr {$moved ? "switched" : "ok"}]"
}

proc bps_run {scen} {
    set fd [open $::out a]
    set ok 0
    for {set i 1} {$i <= $::faults} {incr i} {
        set line [bps_one $scen $i]
        if {[lindex $line end] in {ok switched}} { incr ok }
        puts $fd "$scen $i $line"
        flush $fd
    }
    close $fd
    note "$scen: $ok of $::faults faults measured"
}

start_twosite [ps_lab_opts planes $::bps(planes) ps_conf default interval 10] {
    test "path selection lab up: every path of the edge healthy and settled" {
        set why [bps_wait_settled 30000]
        if {$why ne ""} { fail "the edge's group did not settle in 30 s: $why" }
        set g [bps_group]
        note "probing: interval [dict get $g interval_us] us, $::bps(planes) planes x [llength [dict get $g paths]] paths, window $::bps(window), defaults otherwise; gold on [dict get $g gold]"
    }
    foreach scen $scens {
        test "$scen: $faults faults on gold's line" {
            bps_run $scen
        }
    }
}
