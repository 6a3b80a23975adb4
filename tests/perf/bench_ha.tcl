# The HA part of tests/perf/bench-failover.sh, run by tests/tcl/run.tcl
# (the integration harness):
#
#   BENCH_HA_SCENARIOS="ha-kill9 ha-term" tclsh tests/tcl/run.tcl tests/perf/bench_ha.tcl
#
# The lab is harness/ha_lab.tcl's: nodes a and b on one LAN sharing a lease
# in one redis-server, h1 sending through the active to h2, with the ha
# section's defaults (failover/ha/ha_config.c: lease 40 ms, renew 8, guard
# 4, retry 2, Redis timeout 30, announce 3 x 20 ms; the config leaves them
# out). Every scenario runs
# in the same block, one after the other; BENCH_HA_ROUNDS (20) takeovers
# each:
#
#   ha-kill9  SIGKILL of the active: the standby takes the lease once it
#             has run out on the server
#   ha-term   SIGTERM of the active: it gives the lease back (DEL +
#             PUBLISH "released") and the standby, told, acquires at once
#
# Each round: ha_pair_up (one active, one standby that has read the
# lease); a redis-cli MONITOR on the server (every command with the
# server's wall clock, µs: the same clock as Tcl's); a seqstream h1 -> h2
# of BENCH_HA_PPS (2000) datagrams/s for 1.5 s; once h2 has received a
# third of them, read the lease's PTTL (redis-cli PTTL vbrd:PAIR:lease),
# note the wall clock K and send the signal (SIGKILL: wait for the exit;
# SIGTERM: wait for exit 0). Nothing polls the standby while the outage
# runs: the stream's end is awaited, then its role. Then the killed node
# is restarted by the next round's ha_pair_up. Per round it appends to
# BENCH_HA_OUT (default: the run dir's bench-ha.rounds)
#
#   SCENARIO ROUND FROM TO OUTAGE_MS LOSS_GAP_MS PTTL_MS FREE_MS ACQ_MS ACTIVE_MS GAP_MS RTT_MS ATTEMPTS LOST PAUSE_MS STATUS
#
#   OUTAGE_MS  the receiver's max_gap_ms (the longest stretch of sender
#              time between two datagrams that got through)
#   LOSS_GAP_MS  its max_loss_gap_ms (the same over stretches with loss
#              only: a sender's pause without loss is not in it)
#   PTTL_MS    the lease's PTTL read just before the signal
#   FREE_MS    when the lease became free on the server, ms after K: for
#              SIGKILL the old active's last successful renew (its PEXPIRE
#              in the MONITOR, in whole ms) + lease + 1 ms (Redis expires a
#              key once its whole-ms clock is past the expiry); for SIGTERM
#              its release (the DEL)
#   ACQ_MS     the new active's successful acquire on the server (the
#              script's INCR of the epoch), ms after K
#   ACTIVE_MS  the new active's `show ha` last_takeover time_us, ms after K
#   GAP_MS, RTT_MS   last_takeover's gap_ms (the lease free, as the node
#              knew it, to active) and acquire_rtt_ms
#   ATTEMPTS   the new active's acquires on the server after K, the
#              successful one included
#   LOST, PAUSE_MS   datagrams lost; the sender's own worst pause
#   STATUS     ok; void_stall (the new active's history has a "paused"
#              row in the round: the machine stalled it past its lease, so
#              the round measured the stall, not the takeover), void_early
#              (the lease moved before the signal); or why the round has
#              no figure, a miss (no_takeover, takeovers:N, exit:..., failed:...)
#
# and to BENCH_HA_TRACE (bench-ha.trace) the round's lease operations from
# the MONITOR, from 150 ms before K to 50 ms after the acquire:
#
#   SCENARIO ROUND T_MS NODE OP RESULT     (T_MS from K; OP acquire, renew,
#                                           release; RESULT ok or no)
#
# plus the marks "kill", "free" and "active" (show ha's time). "-" where a
# figure is missing.

set _here [file dirname [file normalize [info script]]]
source [file join $_here .. tcl harness ha_lab.tcl]

proc _env {name default} {
    return [expr {[info exists ::env($name)] && $::env($name) ne "" ? $::env($name) : $default}]
}
set scens [_env BENCH_HA_SCENARIOS "ha-kill9 ha-term"]
set rounds [_env BENCH_HA_ROUNDS 20]
set pps [_env BENCH_HA_PPS 2000]
set out [_env BENCH_HA_OUT [file join [lab_rundir] bench-ha.rounds]]
set trace [_env BENCH_HA_TRACE [file join [lab_rundir] bench-ha.trace]]
foreach s $scens {
    if {$s ni {ha-kill9 ha-term ha-redis-pause}} {
        error "BENCH_HA_SCENARIOS: unknown scenario '$s' (ha-kill9 ha-term ha-redis-pause)"
    }
}

# ha-redis-pause: what the lease rides through. Redis is stopped (SIGSTOP)
# for MS ms and continued, four times per MS, a second apart; the role
# changes both nodes' histories show meanwhile are counted. One note per
# MS: "pause: MS ms x4: N role changes".
set ::bha(pauses) {5 10 20 25 30 35 40 60}
proc bha_redis_pause {} {
    set pid [redis_pid]
    foreach ms $::bha(pauses) {
        lassign [ha_pair_up] act sby
        set t0 [ha_now_us]
        for {set k 0} {$k < 4} {incr k} {
            lab_kill $pid STOP
            set until [expr {[clock microseconds] + $ms * 1000}]
            while {[clock microseconds] < $until} {}
            lab_kill $pid CONT
            after 1000
        }
        set changes 0
        foreach n {a b} {
            foreach r [ha_history $n] {
                if {[dict get $r time_us] >= $t0} { incr changes }
            }
        }
        note "pause: [format %2d $ms] ms x4: $changes role changes"
    }
}

set ::bha(seconds) 1.5

# --- the server's view: redis-cli MONITOR ---

proc bha_monitor_start {} {
    set pid [lab_spawn - -lifetime 120 redis-cli -h 127.0.0.1 -p [redis_port] monitor]
    wait_for_condition 300 10 {
        [string match "OK*" [lab_spawn_output $pid]] || [lab_exited $pid]
    } else {
        fail "redis-cli monitor did not start:\n[lab_spawn_output $pid]"
    }
    if {[lab_exited $pid]} { fail "redis-cli monitor exited:\n[lab_spawn_output $pid]" }
    return $pid
}

proc bha_monitor_stop {pid} {
    lab_kill $pid TERM
    lab_wait_exit $pid 5000
    return [lab_spawn_output $pid]
}

# The lease operations in a MONITOR's TEXT, oldest first: dicts t_us
# (the script's EVAL/EVALSHA as the server logged it), node, op (acquire,
# renew, release: ha_redis_op.c's scripts, told apart by their arguments)
# and ok (the script's own commands show the outcome: the INCR of the
# epoch for an acquire, the PEXPIRE for a renew, the DEL for a release),
# t_ok_us (that command's time; "" when not ok). A script's commands come
# right after its EVAL line, attributed to "lua".
proc bha_lease_ops {text} {
    set lease [ha_lease_key]
    set evs {}
    set cur -1
    foreach line [split $text "\n"] {
        if {![regexp {^(\d+)\.(\d{6}) \[\d+ ([^\]]+)\] (.*)$} $line -> s us who rest]} {
            continue
        }
        set t [expr {$s * 1000000 + [scan $us %d]}]
        set args {}
        foreach {- a} [regexp -all -inline {"((?:[^"\\]|\\.)*)"} $rest] { lappend args $a }
        set cmd [string toupper [lindex $args 0]]
        if {$who ne "lua"} {
            set cur -1
            if {$cmd in {EVAL EVALSHA} && [lindex $args 2] eq "2" && [lindex $args 3] eq $lease} {
                # KEYS lease, epoch; ARGV node, lease_ms (acquire) / node,
                # lease_ms, epoch (renew) / node, epoch, channel (release)
                set argv [lrange $args 5 end]
                if {[llength $argv] == 2} {
                    set op acquire
                } elseif {[string is entier -strict [lindex $argv 2]]} {
                    set op renew
                } else {
                    set op release
                }
                set cur [llength $evs]
                lappend evs [dict create t_us $t node [lindex $argv 0] op $op ok 0 t_ok_us ""]
            }
            continue
        }
        if {$cur < 0} { continue }
        set e [lindex $evs $cur]
        set mark [dict get {acquire INCR renew PEXPIRE release DEL} [dict get $e op]]
        if {$cmd eq $mark} {
            dict set e ok 1
            dict set e t_ok_us $t
            lset evs $cur $e
        }
    }
    return $evs
}

# --- one round ---

proc bha_ms {t_us k_us} {
    if {$t_us eq ""} { return - }
    return [format %.1f [expr {($t_us - $k_us) / 1000.0}]]
}

# One takeover; the line for BENCH_HA_OUT without scenario and number.
proc bha_round {scen i} {
    lassign [ha_pair_up 30000] act sby
    set t_round [ha_now_us]
    set sig [expr {$scen eq "ha-kill9" ? "KILL" : "TERM"}]
    set k0 [dict get [ha_show $sby] takeovers]
    set mon [bha_monitor_start]
    set port [expr {($scen eq "ha-kill9" ? 5200 : 5300) + $i}]
    set midway [expr {int($::pps * $::bha(seconds) / 3)}]
    set rx0 [dict get [lab_link_stats h2] rx_packets]
    set h [ha_stream_start $::pps $::bha(seconds) $port]
    set status ok
    set k_us ""
    set pttl -
    set code [catch {
        wait_for_condition 1000 10 {
            [dict get [lab_link_stats h2] rx_packets] - $rx0 >= $midway || [lab_exited [dict get $h send]]
        } else {
            fail "h2 did not receive $midway datagrams of the stream"
        }
        if {[lab_exited [dict get $h send]]} { fail "the stream ended before the signal" }
        set pttl [redis_cli -port [redis_port] pttl [ha_lease_key]]
        set k_us [ha_now_us]
        if {$sig eq "KILL"} {
            ha_kill $act KILL
        } else {
            ha_kill $act TERM
            set st [ha_wait_exit $act 5000]
            if {$st ne "exit 0"} { set status "exit:[string map {" " _} $st]" }
        }
        set rep [ha_stream_result $h]
    } err]
    set text [bha_monitor_stop $mon]
    if {$code} {
        note "$scen round $i: $err"
        return "$act $sby - - $pttl - - - - - - - - failed:[string map {" " _ "\n" _} [string range $err 0 60]]"
    }
    # the stream has ended: the standby has had the rest of it (a second)
    if {[catch {ha_wait_role $sby active 3000}]} {
        set status no_takeover
    }
    set s [ha_show $sby]
    if {[dict get $s takeovers] != $k0 + 1 && $status eq "ok"} { set status "takeovers:[dict get $s takeovers]" }
    set lt [dict get $s last_takeover]
    set t_act [expr {$status eq "no_takeover" || ![dict exists $lt time_us] ? "" : [dict get $lt time_us]}]
    set gap [expr {[dict exists $lt gap_ms] && [string is double -strict [dict get $lt gap_ms]] ? [format %.1f [dict get $lt gap_ms]] : "-"}]
    set rtt [expr {[dict exists $lt acquire_rtt_ms] ? [format %.1f [dict get $lt acquire_rtt_ms]] : "-"}]

    # the server's view: when the lease became free, when sby took it
    set ops [bha_lease_ops $text]
    set t_free ""
    set t_acq ""
    set attempts 0
    foreach e $ops {
        set n [dict get $e node]
        if {$n eq $act && [dict get $e ok]} {
            if {$sig eq "KILL" && [dict get $e op] eq "renew"} {
                # PEXPIRE sets the expiry to the server's whole ms + lease
                # and a key counts as expired once the whole ms is past it
                # (Redis 7.0 expire.c, db.c keyIsExpired: now > when): free
                # from that ms + lease + 1 on
                set t_free [expr {([dict get $e t_ok_us] / 1000 + $::lease_ms + 1) * 1000}]
            } elseif {$sig eq "TERM" && [dict get $e op] eq "release"} {
                set t_free [dict get $e t_ok_us]
            }
        }
        if {$n eq $sby && [dict get $e op] eq "acquire" && [dict get $e t_us] >= $k_us && $t_acq eq ""} {
            incr attempts
            if {[dict get $e ok]} { set t_acq [dict get $e t_ok_us] }
        }
    }
    if {$t_acq eq ""} { set attempts - }
    # void: the machine stalled a node past its lease in this round (its
    # history says paused: whatever moved the lease was not the signal),
    # or the lease moved before the signal (the active had stalled)
    set paused {}
    foreach r [ha_history $sby] {
        if {[dict get $r time_us] >= $t_round && [dict get $r reason] eq "paused"} { lappend paused $r }
    }
    if {[llength $paused]} {
        set status void_stall
        note "$scen round $i: $sby paused (a stall past its lease) during the round, [bha_ms [dict get [lindex $paused 0] time_us] $k_us] ms after the signal: $paused"
    } elseif {$t_acq ne "" && $t_acq < $k_us} {
        set status void_early
    }
    # the trace: the lease operations around the takeover
    set until [expr {$t_acq ne "" ? $t_acq + 50000 : $k_us + 1000000}]
    set fd [open $::trace a]
    puts $fd "$scen $i 0.0 $act kill $sig"
    foreach e $ops {
        if {[dict get $e t_us] < $k_us - 150000 || [dict get $e t_us] > $until} { continue }
        puts $fd "$scen $i [bha_ms [dict get $e t_us] $k_us] [dict get $e node] [dict get $e op] [expr {[dict get $e ok] ? "ok" : "no"}]"
    }
    if {$t_free ne ""} { puts $fd "$scen $i [bha_ms $t_free $k_us] $act free -" }
    if {$t_act ne ""} { puts $fd "$scen $i [bha_ms $t_act $k_us] $sby active gap_ms=$gap,acquire_rtt_ms=$rtt" }
    close $fd

    set outage [format %.1f [dict get $rep max_gap_ms]]
    set lgap [format %.1f [dict get $rep max_loss_gap_ms]]
    set lost [dict get $rep lost]
    set pause [format %.1f [dict get $rep sender max_send_gap_ms]]
    if {[dict get $rep end_marker] ne "true" && $status eq "ok"} { set status no_end_marker }
    note [format "%s round %d: %s -> %s outage %s ms (with loss %s, sender pause %s); lease PTTL %s ms before the signal, free at %s ms, acquired at %s ms (%s attempts), active at %s ms; gap_ms %s acquire_rtt_ms %s" \
        $scen $i $act $sby $outage $lgap $pause $pttl [bha_ms $t_free $k_us] [bha_ms $t_acq $k_us] $attempts [bha_ms $t_act $k_us] $gap $rtt]
    return "$act $sby $outage $lgap $pttl [bha_ms $t_free $k_us] [bha_ms $t_acq $k_us] [bha_ms $t_act $k_us] $gap $rtt $attempts $lost $pause $status"
}

proc bha_run {scen} {
    set fd [open $::out a]
    set ok 0
    for {set i 1} {$i <= $::rounds} {incr i} {
        set line [bha_round $scen $i]
        if {[lindex $line end] eq "ok"} { incr ok }
        puts $fd "$scen $i $line"
        flush $fd
    }
    close $fd
    note "$scen: $ok of $::rounds takeovers measured"
}

# The ha section's timings left out: what vbrd does by default.
start_ha_lab {lease "" renew "" guard "" retry "" timeout ""} {
    test "HA lab up: a active, b standby having read the lease" {
        lassign [ha_pair_up] act sby
        set s [ha_show $act]
        set ::lease_ms [dict get $s lease_ms]
        note "lease [dict get $s lease_ms] ms, renew [dict get $s renew_ms], guard [dict get $s guard_ms], retry [dict get $s retry_ms]; $::pps pps"
    }
    foreach scen $scens {
        if {$scen eq "ha-redis-pause"} {
            test "$scen: Redis stopped 4 times for each of $::bha(pauses) ms" {
                bha_redis_pause
            }
            continue
        }
        test "$scen: $rounds takeovers under $pps pps" {
            bha_run $scen
        }
    }
}
