# BFD timing that load cannot break: for 15 s, the worker that runs BFD
# also forwards a pcap replayed at full speed (net_pcap, infinite_rx),
# while the control side reloads a 100 000-route config 7 times (every
# 2 s) and a loop floods the control socket with requests. The two
# single-hop sessions to FRR's bfdd never flap: not in vbrd's counters,
# not in FRR's log, and the group never switches; and the BFD worker's
# longest time away from its loop under all that is noted next to the
# figure on an idle lab.
#
# 15 s, not the minute this file ran before: the load is as heavy (a
# reload every 2 s, before every 3, while the replay and the flood run),
# 1500 packets from FRR on each session under it, and make test is the place for
# "it holds", not for a soak: VBRD_SOAK_S=60 runs a minute (30 reloads)
# by hand.
#
# At 10 ms x 5 (50 ms), not x 3: on this 2-core VM any thread is off its
# CPU for up to ~20 ms now and then with nothing running (measured below
# as the idle phase), which a 30 ms detection time does not cover over a
# minute; the loaded/idle comparison of the loop gap is what shows that
# vbrd's own load adds nothing (test_failover.tcl says more): the worker's
# longest time away from its loop is reported after 2 s of the replay
# alone and again after the soak with reloads and the flood.
#
#   idc ── lan [vbrd] line1/line2 ── rtr (FRR bfdd)
#   in (net_pcap, 1000 flows of 64-byte frames) → [same worker] → out (net_null)

source [file join [file dirname [file normalize [info script]]] harness failover.tcl]

fo_lab
fo_frr -multiplier 5

set seconds [expr {[info exists ::env(VBRD_SOAK_S)] ? $::env(VBRD_SOAK_S) : 15}]
set reloads [expr {$seconds / 2}]
set pcap [file join [lab_rundir] flows.pcap]
set gen [file join $::vbrd::root tests perf gen_routes.py]
set inc_a [lab_file routes-a.inc]
set inc_b [lab_file routes-b.inc]
exec [build_tool pcapgen] flows $pcap --flows 1000 --size 64 --packets 3000 2>@1
# Under ASan and UBSan (make test-asan) a reload of 100 000 routes takes
# longer than vbrctl waits; there the file checks memory safety on these
# paths, not timing, with 10 000 routes.
set nroutes [expr {[catch {exec grep -q -a __asan_init $::vbrd::bin}] ? 100000 : 10000}]
exec python3 $gen $inc_a $nroutes --body-only --gw 10.9.0. 2>@1
exec python3 $gen $inc_b $nroutes --body-only --change 10 --gw 10.9.0. 2>@1

# The failover lab's config (fo_conf) with the replay's ports and
# interfaces first in their lists, and INC's 100 000 routes.
proc stab_conf {inc} {
    set ports {{ name = "out"; devargs = "net_null0,no-rx=1"; },
  { name = "in"; devargs = "net_pcap0,rx_pcap=@rundir@/flows.pcap,infinite_rx=1"; },
}
    set ifaces {{ name = "out"; port = "out"; address = "10.9.0.1/16"; },
  { name = "in"; port = "in"; address = "10.0.0.254/16"; },
}
    set routes ",\n  \{ prefix = \"198.18.0.0/16\"; via = \"10.9.0.2\"; \},\n@include \"$inc\"\n);"
    set c [fo_conf mult 5 extra {
neighbors = ( { interface = "out"; address = "10.9.0.2"; mac = "02:00:00:00:00:02"; } );
neighbor = { reachable_s = 3600; };
eal = { memory_mb = 1024; };
}]
    regsub {ports = \(\n} $c "ports = (\n  $ports" c
    regsub {interfaces = \(\n} $c "interfaces = (\n  $ifaces" c
    regsub {(failover_group = "uplink"; \})\n\);} $c "\\1$routes" c
    return $c
}

start_vbrd [list conf [stab_conf [file tail $inc_a]]] {
    test "both sessions Up with FRR at 10 ms x 5, the replay runs through the BFD worker" {
        fo_wait_session l1 Up 10000
        fo_wait_session l2 Up 10000
        wait_for_condition 50 20 {[dict get [fo_group] active] eq "member0"} else {
            fail "group not on member0: [fo_group]"
        }
        set rx0 [port_stat in rx_packets]
        wait_for_condition 50 100 {[port_stat in rx_packets] - $rx0 > 100000} else {
            fail "the pcap replay does not run: in rx_packets [port_stat in rx_packets]"
        }
    }

    test "2 s of the replay alone: the BFD worker's longest time away from its loop" {
        set f0 [dict get [fo_session l1] flaps]
        set steal0 [fo_steal_ms]
        after 2000  ;# the replay's duration: the stimulus, not a wait for a result
        set ::gap_replay [dict get [vbrctl show bfd counters] worker loop_gap_max_us]
        note "replay alone: the worker was away from its loop for up to $::gap_replay µs"
        if {[dict get [fo_session l1] flaps] != $f0} {
            fo_flap_verdict "l1 flapped during the replay" 50 $steal0
        }
    }

    test "$seconds s of full-speed replay, $reloads reloads of $nroutes routes, a control-socket flood: no flap" {
        set before {}
        foreach s {l1 l2} { dict set before $s [fo_session $s] }
        set sw0 [dict get [fo_group] switches]
        set frr0 [llength [frr_bfd_transitions rtr]]
        set rx0 [port_stat in rx_packets]
        set gen0 [dict get [vbrctl show config] generation]
        # the flood: vbrctl requests back to back for the whole soak
        # like every lab tool, off the worker's CPU (harness/stream.tcl)
        set flood [lab_spawn - {*}$::lab_tool_cpu bash -c "end=\$((SECONDS + $seconds)); n=0; while \[ \$SECONDS -lt \$end \]; do $::vbrd::ctl_bin -s [vbrd_socket] show stats >/dev/null; n=\$((n + 1)); done; echo \$n"]
        set steal0 [fo_steal_ms]
        set t0 [clock milliseconds]
        set done 0
        set worst_ms 0
        while {[clock milliseconds] - $t0 < $seconds * 1000} {
            if {$done < $reloads && [clock milliseconds] - $t0 >= $done * $seconds * 1000 / $reloads} {
                vbrd_rewrite_config [stab_conf [file tail [expr {$done % 2 ? $inc_a : $inc_b}]]]
                set r0 [clock milliseconds]
                vbrctl reload
                set worst_ms [expr {max($worst_ms, [clock milliseconds] - $r0)}]
                incr done
            }
            foreach s {l1 l2} {
                set st [dict get [fo_session $s] state]
                if {$st ne "Up" || [dict get [fo_session $s] flaps] != [dict get $before $s flaps]} {
                    fo_flap_verdict "session $s flapped (now $st) at [expr {[clock milliseconds] - $t0}] ms, after $done reloads" 50 $steal0
                }
            }
            after 200
        }
        lab_wait_exit $flood 10000
        set requests [string trim [lab_spawn_output $flood]]
        assert_equal [expr {[dict get [vbrctl show config] generation] - $gen0}] $reloads "reloads applied"
        foreach s {l1 l2} {
            set a [dict get $before $s]
            set b [fo_session $s]
            assert_equal [dict get $b flaps] [dict get $a flaps] "$s flaps"
            assert_equal [dict get $b ups] [dict get $a ups] "$s transitions to Up"
            assert_morethan [dict get $b uptime_us] [expr {[dict get $a uptime_us] + ($seconds - 5) * 1000000}] "$s uptime"
            note "$s: longest gap between two packets from FRR while Up: [expr {[dict get $b rx_gap_max_us] / 1000.0}] ms (detection time 50 ms)"
        }
        assert_equal [dict get [fo_group] switches] $sw0 "group switches"
        assert_equal [llength [frr_bfd_transitions rtr]] $frr0 "state changes in FRR's log"
        set frames [expr {[port_stat in rx_packets] - $rx0}]
        note "with the reloads and the flood too: up to [dict get [vbrctl show bfd counters] worker loop_gap_max_us] µs (replay alone: $::gap_replay µs)"
        note "replayed $frames frames ([expr {$frames / $seconds / 1000}] kpps), $done reloads of $nroutes routes (slowest answered in $worst_ms ms), $requests control requests"
        assert_morethan $frames [expr {$seconds * 100000}] "frames the BFD worker forwarded meanwhile"
    }
}
