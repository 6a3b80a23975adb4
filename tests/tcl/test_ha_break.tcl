# Break tests of the HA pair (failover/README.md "HA pair", ha_role.h):
# what an operator of the pair runs into (reloads of the timings, Redis
# losing or refusing things, odd vbrctl arguments, bad config), each the
# reproduction of a finding; harness/ha_lab.tcl.

source [file join [file dirname [file normalize [info script]]] harness ha_lab.tcl]

# Rewrite NODE's config file with the block's options changed by OPTS
# (lease 300 renew 50 ...) and reload it -> vbrctl's answer. The block's
# options stay as they were.
proc hb_reload {node opts} {
    set saved $::ha::opts
    foreach {k v} $opts { dict set ::ha::opts $k $v }
    set text [ha_conf $node]
    set ::ha::opts $saved
    ha_on $node [list vbrd_rewrite_config $text]
    return [ha_vbrctl $node reload]
}

# Like hb_reload with the config TEXT given -> {EXIT OUTPUT} of vbrctl reload.
proc hb_reload_text {node text} {
    ha_on $node [list vbrd_rewrite_config $text]
    return [ha_on $node {vbrctl_raw reload}]
}

# The running nodes that say active now (show ha), and their
# lease_remaining_ms: dict node -> ms.
proc hb_actives {} {
    set out [dict create]
    foreach node [lsort [array names ::ha::state]] {
        if {$::ha::state($node) ne "up"} { continue }
        set s [ha_show $node]
        if {[dict get $s role] eq "active"} {
            dict set out $node [dict get $s lease_remaining_ms]
        }
    }
    return $out
}

proc hb_publish {msg} {
    return [redis_cli publish [ha_lease_key events] $msg]
}

# --- a reload that shortens the lease, on the active ---------------------------

start_ha_lab {lease 4000 renew 100 guard 400 retry 10} {
    test {a reload of the active to a shorter lease: its deadline follows the new lease (never two actives)} {
        lassign [ha_pair_up] act sby
        foreach n [list $act $sby] {
            hb_reload $n {lease 300 renew 50 guard 30}
        }
        # the active's renews now set the lease's expiry to 300 ms on the server
        wait_for_condition 200 10 {[redis_cli pttl [ha_lease_key]] <= 300} else {
            fail "the lease's PTTL after the reload: [redis_cli pttl [ha_lease_key]]"
        }
        set t_cut [ha_now_us]
        ha_cut_redis $act
        # the lease ends on the server at most 300 ms later
        wait_for_condition 200 10 {[redis_cli exists [ha_lease_key]] == 0} else {
            fail "the lease is still there after the cut"
        }
        set t_free [ha_now_us]
        # the standby tries at once (as on a release)
        hb_publish "x released"
        ha_watch_reset
        set w [ha_arpwatch_start 0.5]
        ha_watch 500
        set rep [ha_arpwatch_result $w]
        set ov [ha_overlap_ms]
        set s [ha_show $act]
        note [format "lease gone on the server %.0f ms after the cut; %s: role %s, lease_remaining_ms %s; arpwatch: %s; show ha overlap %.1f ms" \
            [expr {($t_free - $t_cut) / 1000.0}] $act [dict get $s role] [dict get $s lease_remaining_ms] \
            [lmap m [dict keys [dict get $rep arp macs]] {ha_node_of_mac $m}] $ov]
        assert_equal [dict get [ha_show $sby] role] active "$sby took the free lease"
        assert_equal [dict get $s role] standby "$act, cut off since a lease of 300 ms ran out on the server"
        assert_equal [dict keys [dict get $rep arp macs]] [list [ha_mac $sby]] "the MACs answering ARP for the service address"
        assert_lessthan $ov 2 "ms both nodes' show ha held them active"
    }
}

# --- Redis with a password ---------------------------------------------------------

# Redis's own checks: redis-cli (and the harness's PING) authenticate with it.
set ::env(REDISCLI_AUTH) s3cret

start_ha_lab {redis_conf "requirepass s3cret\n" redis_extra {password = "s3cret";}} {
    test {Redis with requirepass, the right password: a active, b standby, the lease and the states written} {
        lassign [ha_pair_up] act sby
        assert_equal [dict get [ha_lease] holder] $act "Redis: the lease's holder"
        # (publish 100 ms: within a few of them)
        wait_for_condition 100 10 {
            [string match "*\"node\":\"$sby\"*" [redis_cli get [ha_lease_key state:$sby]]]
            && [string match "*\"node\":\"$act\"*" [redis_cli get [ha_lease_key shared]]]
        } else {
            fail "Redis: $sby's state '[redis_cli get [ha_lease_key state:$sby]]', the shared state '[redis_cli get [ha_lease_key shared]]'"
        }
        assert_equal [dict get [ha_show $sby] partner node] $act "$sby's partner (read from Redis)"
    }
}

# A Redis ACL user for the pair (conf/README.md, HA pair): it may run what
# vbrd sends (and its scripts' commands) on the pair's keys and channel,
# and nothing else: it can neither FLUSHALL, nor write another key, nor
# reconfigure Redis.
proc redis_cli_as {user pw args} {
    set rc [catch {exec timeout 10 $::redis::cli_bin -h 127.0.0.1 -p [redis_port] \
                       --user $user --pass $pw --no-auth-warning {*}$args 2>@1} out]
    return [list $rc $out]
}
set acl_user "user vbrd on >vbrdpw resetkeys ~vbrd:* resetchannels &vbrd:* -@all +auth +role +get +set +del +incr +exists +pexpire +pttl +time +eval +evalsha +script|load +publish +subscribe"
start_ha_lab [list redis_conf "requirepass s3cret\n$acl_user\n" \
                  redis_extra {user = "vbrd"; password = "vbrdpw";}] {
    test {Redis with a pair's ACL user: a active, b standby, takeover on SIGTERM; the user can do nothing else} {
        lassign [ha_pair_up] act sby
        assert_equal [dict get [ha_lease] holder] $act "Redis: the lease's holder"
        # the states, written and read through the user's scripts and GET
        wait_for_condition 100 10 {[dict exists [ha_show $sby] partner node]} else {
            fail "$sby never read its partner's state: [dict get [ha_show $sby] partner]"
        }
        assert_equal [dict get [ha_show $sby] partner node] $act "$sby's partner (read from Redis)"
        foreach cmd {{flushall} {set other:key x} {config set maxmemory 1} {keys *}} {
            lassign [redis_cli_as vbrd vbrdpw {*}$cmd] rc out
            assert_match "*NOPERM*" $out "the pair's user: $cmd"
        }
        ha_kill $act TERM
        wait_for_condition [expr {200 * [ha_slow]}] 10 {[ha_role $sby] eq "active"} else {
            fail "$sby not active after $act's SIGTERM"
        }
    }
}

# A link that never comes up reported nothing: the nodes stood by with
# reason redis_down, link down, and neither show ha nor the log said why
# (WRONGPASS, NOAUTH ...). Now show ha's redis.last_error says it, and the
# log once per new reason.
proc hb_check_link_error {pattern} {
    foreach n {a b} {
        set s [ha_show $n]
        assert_equal [dict get $s role] standby "$n's role"
        assert_equal [dict get $s reason] redis_down "$n's reason"
        assert_equal [dict get $s redis link] down "$n's Redis link"
        assert_match $pattern [dict get $s redis last_error] "$n's show ha redis.last_error"
        assert_match "*Redis not reachable: $pattern" [ha_on $n {vbrd_log}] "$n's log"
        set k [regexp -all {Redis not reachable} [ha_on $n {vbrd_log}]]
        assert_range $k 1 2 "$n's log lines about it (one per new reason)"
    }
}

start_ha_lab {redis_conf "requirepass s3cret\n" redis_extra {password = "wrong";} wait 0} {
    test {Redis with requirepass, a wrong password: both stand by, show ha and the log say WRONGPASS} {
        after [expr {1500 * [ha_slow]}]
        hb_check_link_error "*AUTH: WRONGPASS*"
    }
}

start_ha_lab {redis_conf "requirepass s3cret\n" wait 0} {
    test {Redis with requirepass, no password configured: both stand by, show ha and the log say NOAUTH} {
        after [expr {1500 * [ha_slow]}]
        hb_check_link_error "*NOAUTH*"
    }
}

unset ::env(REDISCLI_AUTH)

start_ha_lab {redis_extra {password = "s3cret";} wait 0} {
    test {a password configured, Redis without one: both stand by, show ha and the log say why} {
        after [expr {1500 * [ha_slow]}]
        hb_check_link_error "*AUTH*without any password configured*"
    }
}

# --- Redis unreachable at start-up -----------------------------------------------------

redis_start -bind {127.0.0.1 127.0.0.2 127.0.0.3}
redis_kill KILL
start_ha_lab {redis 0 wait 0} {
    test {Redis down at start-up: both stand by (redis_down, connect refused said), one active within 2 s of Redis' start} {
        after [expr {500 * [ha_slow]}]
        hb_check_link_error "*refused*"
        assert_equal [ha_active_nodes] {} "active nodes while Redis is down"
        set t0 [clock milliseconds]
        redis_restart
        wait_for_condition [expr {200 * [ha_slow]}] 10 {[llength [ha_active_nodes]] == 1} else {
            fail "no node active 2 s after Redis started: [ha_show a] / [ha_show b]"
        }
        note "one node active [expr {[clock milliseconds] - $t0}] ms after Redis started"
        lassign [ha_pair_up] act sby
        assert_equal [dict get [ha_lease] holder] $act "Redis: the lease's holder"
        ha_watch_reset
        ha_watch [expr {3 * [ha_opt lease]}]
        assert_equal [ha_active_nodes] [list $act] "active nodes 3 leases later"
    }
}

# --- a bad ha section on reload; SIGHUPs ------------------------------------------

# NODE's config with the block's options changed by OPTS.
proc hb_conf_with {node opts} {
    set saved $::ha::opts
    foreach {k v} $opts { dict set ::ha::opts $k $v }
    set text [ha_conf $node]
    set ::ha::opts $saved
    return $text
}

start_ha_lab {} {
    test {a bad ha section on reload: refused with FILE:LINE: message, the running config and the role kept} {
        lassign [ha_pair_up] act sby
        set good [ha_conf $act]
        set s0 [ha_show $act]
        set f [ha_on $act {vbrd_conf}]
        set cases [list \
            [hb_conf_with $act {lease 10}] "$f:*: ha.lease: 10 ms is out of range 20..60000 ms" \
            [hb_conf_with $act {renew 60}] "$f:*: ha.renew: 60 ms is out of range 1..50 ms*" \
            [hb_conf_with $act {guard 95}] "$f:*: ha.guard: 95 ms is out of range 1..79 ms*" \
            [hb_conf_with $act {retry 0}] "$f:*: ha.retry: 0 ms is out of range*" \
            [string map {"lease = 100;" "lease = \"100\";"} $good] "$f:*: ha.lease: expected an integer, got a string" \
            [hb_conf_with $act {ha_extra "state_ttl = 100; publish = 100;"}] "$f:*: ha.state_ttl: 100 ms is not longer than publish*" \
            [hb_conf_with $act {ha_extra "partner_bfd = \"nope\";"}] "$f:*: ha.partner_bfd: unknown BFD session 'nope'" \
            [hb_conf_with $act {ha_extra "share = { path_groups = \[ \"nope\" \]; };"}] "$f:*: ha.share.path_groups?0?: unknown path group 'nope'" \
            [hb_conf_with $act {ha_extra "leas = 100;"}] "$f:*: unknown setting 'ha.leas'" \
            [string map [list "node = \"$act\";" "node = \"c\";"] $good] "$f:*: ha.node: changed from '$act' to 'c': restart vbrd to apply it" \
            [hb_conf_with $act {timeout 60}] "$f:*: ha.redis.timeout: changed from '50' to '60': restart*" \
            [hb_conf_with $act {ha 0}] "*ha.redis.server: removed*restart vbrd*" \
            [string map [list "ipv4 = \"$::ha::vip4\"" "ipv4 = \"[dict get $::ha::lan4 $act]\""] $good] "$f:*: ha.service.ipv4: * is an address of interface 'lan'*" \
            ]
        foreach {text want} $cases {
            lassign [hb_reload_text $act $text] rc out
            assert_equal $rc 1 "vbrctl reload's exit for a config that wants '$want'"
            assert_match "*$want*" $out "vbrctl reload's message"
            set s [ha_show $act]
            foreach k {role epoch lease_ms renew_ms guard_ms retry_ms step_downs} {
                assert_equal [dict get $s $k] [dict get $s0 $k] "show ha $k after the refused reload ($want)"
            }
        }
        # and the good one still applies
        assert_morethan [dict get [hb_reload $act {lease 200 renew 40}] generation] 1 "the generation of a good reload"
        assert_equal [dict get [ha_show $act] lease_ms] 200 "lease_ms after the good reload"
        assert_equal [dict get [ha_show $act] role] active "$act's role after it"
        assert_equal [dict get [ha_show $act] step_downs] [dict get $s0 step_downs] "$act's step-downs"
    }

    test {20 SIGHUPs in a second on the active and 20 on the standby: no role change} {
        lassign [ha_pair_up] act sby
        set s0 [dict create $act [ha_show $act] $sby [ha_show $sby]]
        ha_watch_reset
        for {set i 0} {$i < 20} {incr i} {
            foreach n [list $act $sby] { lab_kill [dict get $::ha::inst($n) pid] HUP }
            ha_watch 50
        }
        ha_watch [expr {3 * [ha_opt lease]}]
        foreach n [list $act $sby] {
            set s [ha_show $n]
            assert_equal [dict get $s role] [dict get $s0 $n role] "$n's role"
            assert_equal [dict get $s epoch] [dict get $s0 $n epoch] "$n's epoch"
            assert_equal [dict get $s step_downs] [dict get $s0 $n step_downs] "$n's step-downs"
            assert_morethan [dict get [ha_vbrctl $n show config] generation] 1 "$n reloaded"
        }
        foreach smp [ha_samples] {
            set want [expr {[dict get $smp node] eq $act ? "active" : "standby"}]
            assert_equal [dict get $smp role] $want "[dict get $smp node]'s role during the SIGHUPs"
        }
    }
}

# --- one thread alone stopped ---------------------------------------------------

set ::threadstop_py [file join [file dirname [file normalize [info script]]] tools threadstop.py]

# The thread id of NODE's thread named NAME ("vbrd-ha": the role machine
# and its Redis links; the main thread: the pid, the control loop).
proc hb_tid {node name} {
    set pid [dict get $::ha::inst($node) pid]
    foreach f [glob -nocomplain /proc/$pid/task/*/comm] {
        set fd [open $f]
        set comm [string trim [read $fd]]
        close $fd
        if {$comm eq $name} { return [file tail [file dirname $f]] }
    }
    fail "$node (pid $pid) has no thread named $name"
}

# Stop thread TID of NODE for MS ms, the others running on -> pid of
# threadstop.py, once the thread is stopped.
proc hb_stop_thread {node tid ms} {
    set p [lab_spawn - -lifetime [expr {int($ms / 1000) + 30}] /usr/bin/python3 $::threadstop_py --tid $tid --ms $ms]
    wait_for_condition 200 5 {
        [string match "*threadstop: stopped*" [lab_spawn_output $p]] || [lab_exited $p]
    } else {
        fail "threadstop did not stop $node's thread $tid:\n[lab_spawn_output $p]"
    }
    if {![string match "*threadstop: stopped*" [lab_spawn_output $p]]} {
        fail "threadstop:\n[lab_spawn_output $p]"
    }
    return $p
}

# --- Redis refusing or tampered with ------------------------------------------------

# The longest time two nodes were active at once by their histories since
# FROM_US (a row is stamped when the node's role machine changed: right for
# nodes that ran all along, not for a frozen one).
proc hb_history_overlap_ms {from_us} {
    set now [ha_now_us]
    set iv [dict create]
    foreach node [lsort [array names ::ha::state]] {
        if {$::ha::state($node) ne "up"} { continue }
        set start ""
        set rows [ha_history $node]
        foreach r $rows {
            if {[dict get $r time_us] < $from_us} {
                set start [expr {[dict get $r new] eq "active" ? $from_us : ""}]
            }
        }
        set l {}
        foreach r $rows {
            set t [dict get $r time_us]
            if {$t < $from_us} { continue }
            if {[dict get $r new] eq "active"} {
                set start $t
            } elseif {[dict get $r old] eq "active" && $start ne ""} {
                lappend l [list $start $t]
                set start ""
            }
        }
        if {$start ne ""} { lappend l [list $start $now] }
        dict set iv $node $l
    }
    set best 0
    foreach x [dict keys $iv] {
        foreach y [dict keys $iv] {
            if {[string compare $x $y] >= 0} { continue }
            foreach i [dict get $iv $x] {
                foreach j [dict get $iv $y] {
                    set o [expr {min([lindex $i 1], [lindex $j 1]) - max([lindex $i 0], [lindex $j 0])}]
                    if {$o > $best} { set best $o }
                }
            }
        }
    }
    return [expr {$best / 1000.0}]
}

# One pair for the tests below that need the default options and leave
# the pair as they found it (each starts from ha_pair_up): one lab start
# instead of four.
start_ha_lab {} {
    # --- a flood of messages on the pair's channel

    # Every "NODE state" message on vbrd:PAIR:events made a node read
    # state:NODE, each read an operation of the Redis client's 64; a flood
    # filled the table and the active's renews failed with -ENOMEM until it
    # stepped down at its deadline (and the standby took over): any client of
    # the Redis server could make the pair fail over at will.
    test {a flood of 500 000 'evil state' messages on the pair's channel: no renew fails, no role changes} {
        if {![file executable /usr/bin/redis-benchmark]} { skip "no redis-benchmark (redis-tools)" }
        lassign [ha_pair_up] act sby
        set s0 [ha_show $act]
        set t0 [ha_now_us]
        ha_watch_reset
        set pid [lab_spawn - -lifetime 60 /usr/bin/redis-benchmark -p [redis_port] -n 500000 \
                     -P 64 -c 2 -q publish [ha_lease_key events] "evil state"]
        if {![ha_watch [expr {30000 * [ha_slow]}] {[lab_exited $pid]}]} {
            fail "redis-benchmark still running after 30 s"
        }
        ha_watch [expr {3 * [ha_opt lease]}]
        set s1 [ha_show $act]
        note [format "flood of %.1f s: %s renews, %s failed; %s Redis operations; %s events received" \
            [expr {([ha_now_us] - $t0) / 1e6}] \
            [expr {[dict get $s1 renews] - [dict get $s0 renews]}] \
            [expr {[dict get $s1 renew_failures] - [dict get $s0 renew_failures]}] \
            [expr {[dict get $s1 redis ops] - [dict get $s0 redis ops]}] \
            [expr {[dict get $s1 redis events_rx] - [dict get $s0 redis events_rx]}]]
        assert_morethan [expr {[dict get $s1 redis events_rx] - [dict get $s0 redis events_rx]}] 200000 "events the active received (Redis drops a subscriber that falls 32 MB behind: ASan reads slower)"
        assert_equal [dict get $s1 step_downs] [dict get $s0 step_downs] "$act's step-downs"
        assert_equal [dict get $s1 renew_failures] [dict get $s0 renew_failures] "$act's failed renews"
        assert_equal [dict get $s1 role] active "$act's role"
        foreach smp [ha_samples] {
            set want [expr {[dict get $smp node] eq $act ? "active" : "standby"}]
            if {[dict get $smp role] ne $want} {
                fail "[dict get $smp node] was [dict get $smp role] at +[expr {([dict get $smp t0_us] - $t0) / 1000}] ms of the flood"
            }
        }
    }

    # --- the HA thread alone stopped

    test {the active's HA thread (vbrd-ha) alone stopped for 1 s under 2000 pps: its workers stop forwarding by the deadline, the standby takes over, no dual answers; resumed, it stands by} {
        lassign [ha_pair_up] act sby
        set lease [ha_opt lease]
        set w [ha_arpwatch_start [expr {2.5 * [ha_slow]}]]
        lab_run h1 ping -c 1 -W 0.3 $::ha::vip4
        set rx0 [lab_rx_packets h2]
        set h [ha_stream_start 2000 [expr {2 * [ha_slow]}] 5301]
        wait_for_condition 500 10 {[lab_rx_packets h2] - $rx0 >= 400} else {
            fail "h2 did not receive 400 datagrams of the stream"
        }
        set d0 [dict get [ha_vbrctl $act show stats] drops]
        set t_stop [ha_now_us]
        set p [hb_stop_thread $act [hb_tid $act vbrd-ha] 1000]
        # the thread stopped between t_stop and now (threadstop said so):
        # on a busy machine that can be a while after t_stop
        set t_stopped [ha_now_us]
        # by a lease after the stop its deadline has passed: what it sends
        # on wan from then on is what its gate let through
        after $lease
        set f1 [dict get [lab_link_stats wan $act] rx_packets]
        wait_for_condition [expr {300 * [ha_slow]}] 10 {[ha_role $sby] eq "active"} else {
            fail "$sby not active 3 s after $act's HA thread stopped: [ha_show $sby]"
        }
        set t_took [ha_now_us]
        if {![lab_wait_exit $p 5000]} { fail "threadstop still running" }
        set f2 [dict get [lab_link_stats wan $act] rx_packets]
        set t_cont [ha_now_us]
        ha_wait_role $act standby [expr {2000 * [ha_slow]}]
        set s [ha_show $act]
        set d1 [dict get [ha_vbrctl $act show stats] drops]
        set rep [ha_arpwatch_result $w]
        set srep [ha_stream_result $h]
        set dropped [expr {[dict get $d1 ha_standby] - [dict get $d0 ha_standby]}]
        note [format "%s took over %.0f ms after the stop; %s sent %d frames on wan from a lease after the stop to the resume; its gate dropped %d; stream: outage %.1f ms, %d lost; arpwatch: longest dual %.0f ms, answers from %s" \
            $sby [expr {($t_took - $t_stop) / 1000.0}] $act [expr {$f2 - $f1}] $dropped \
            [dict get $srep max_gap_ms] [dict get $srep lost] [dict get $rep arp max_dual_ms] \
            [lmap m [dict keys [dict get $rep arp macs]] {ha_node_of_mac $m}]]
        assert_lessthan [expr {$f2 - $f1}] 5 "frames $act forwarded on wan from a lease after its HA thread stopped"
        assert_morethan $dropped 0 "transit $act's gate dropped meanwhile"
        # in request periods, not ms: one period of margin however long a
        # busy machine made it (test_ha_fence.tcl)
        assert_range [dict get $rep arp max_dual_periods] 0 1 "longest stretch of ARP request periods with both nodes answering"
        set last_act [dict get $rep arp macs [ha_mac $act] last_us]
        assert_lessthan $last_act [expr {$t_stopped + 1000 * $lease}] "$act's last ARP answer vs. the stop + a lease"
        assert_equal [dict get $s holder] $sby "$act's holder after the resume"
        set row [lindex [lmap r [ha_history $act] {expr {[dict get $r time_us] >= $t_stop ? $r : [continue]}}] 0]
        assert_equal [dict get $row old] active "$act's first row after the stop: from active"
        assert_equal [dict get $row reason] paused "$act's first row after the stop: reason"
    }

    # --- the main thread (the control loop) alone stopped

    test {the active's control loop (main thread) alone stopped for 1.5 s under 2000 pps: the HA thread renews on, no role changes, the stream goes on} {
        lassign [ha_pair_up] act sby
        set lease [ha_opt lease]
        set s0 [dict create $act [ha_show $act] $sby [ha_show $sby]]
        lab_run h1 ping -c 1 -W 0.3 $::ha::vip4
        set rx0 [lab_rx_packets h2]
        set h [ha_stream_start 2000 [expr {3 * [ha_slow]}] 5303]
        wait_for_condition 500 10 {[lab_rx_packets h2] - $rx0 >= 400} else {
            fail "h2 did not receive 400 datagrams of the stream"
        }
        set t_stop [ha_now_us]
        # 1.5 s: fifteen leases of the test pair, each missed renewal a
        # failover under the old design (the role machine on this loop)
        set p [hb_stop_thread $act [dict get $::ha::inst($act) pid] 1500]
        wait_for_condition 500 10 {[lab_exited $p]} else { fail "threadstop still running" }
        set srep [ha_stream_result $h]
        set s1 [dict create $act [ha_show $act] $sby [ha_show $sby]]
        note [format "%s's control loop stopped for 1.5 s: stream %d sent, %d lost, longest gap %.1f ms; %s renewals meanwhile" \
            $act [dict get $srep sent] [dict get $srep lost] [dict get $srep max_gap_ms] \
            [expr {[dict get $s1 $act renews] - [dict get $s0 $act renews]}]]
        assert_equal [ha_role $act] active "$act's role after its control loop resumed"
        assert_equal [ha_role $sby] standby "$sby's role"
        foreach n [list $act $sby] {
            assert_equal [dict get $s1 $n epoch] [dict get $s0 $n epoch] "$n's epoch"
            assert_equal [dict get $s1 $n step_downs] [dict get $s0 $n step_downs] "$n's step-downs"
        }
        assert_morethan [expr {[dict get $s1 $act renews] - [dict get $s0 $act renews]}] 10 "$act's renewals while its control loop was stopped"
        foreach r [ha_history $act] {
            if {[dict get $r time_us] >= $t_stop} { fail "$act changed role after the stop: $r" }
        }
        # the stream crosses the workers, which never stopped: no loss
        # beyond the normal (a busy 2-core machine drops a datagram or two)
        assert_lessthan [dict get $srep lost] [expr {[dict get $srep sent] / 100 + 3}] "datagrams lost"
    }

    # --- Redis refusing or tampered with

    test {SCRIPT FLUSH: the next operations find no script (NOSCRIPT), send it with EVAL: no role change} {
        lassign [ha_pair_up] act sby
        set s0 [ha_show $act]
        redis_cli script flush
        ha_watch_reset
        ha_watch [expr {5 * [ha_opt lease]}]
        set s1 [ha_show $act]
        assert_equal [dict get $s1 role] active "$act's role"
        assert_equal [dict get $s1 step_downs] [dict get $s0 step_downs] "$act's step-downs"
        assert_equal [dict get $s1 renew_failures] [dict get $s0 renew_failures] "$act's failed renews"
        assert_morethan [dict get $s1 renews] [dict get $s0 renews] "$act renewed"
        assert_lessthan [ha_overlap_ms] 2 "ms both held themselves active"
    }

    test {maxmemory 1 (noeviction): the renews go on (no new memory), the state writes are refused (publish_errors); no role change} {
        lassign [ha_pair_up] act sby
        set s0 [ha_show $act]
        redis_cli config set maxmemory 1
        try {
            ha_watch_reset
            ha_watch [expr {5 * [ha_opt lease]}]
        } finally {
            redis_cli config set maxmemory 0
        }
        set s1 [ha_show $act]
        assert_equal [dict get $s1 role] active "$act's role"
        assert_equal [dict get $s1 step_downs] [dict get $s0 step_downs] "$act's step-downs"
        assert_morethan [dict get $s1 publish_errors] [dict get $s0 publish_errors] "$act's refused publications"
        assert_equal [dict get [ha_show $sby] role] standby "$sby's role"
    }

    test {garbage on the channel and in state:NODE and shared: no crash, show ha keeps a JSON object, no role change} {
        lassign [ha_pair_up] act sby
        set s0 [ha_show $act]
        foreach m [list "" "nospace" " state" "[string repeat x 200] state" "evil state" "evil shared" \
                       "evil released" "\xff\xfe state" "$act state" "$act released"] {
            hb_publish $m
        }
        foreach v [list "\{garbage" "\[1,2\]" "null" "\{\"node\":\"evil\",\"paths\":\"x\"\}" [string repeat "\{\"a\":" 50]] {
            redis_cli set [ha_lease_key state:evil] $v
            redis_cli set [ha_lease_key shared] $v
            hb_publish "evil state"
            hb_publish "evil shared"
            after 20
            set s [ha_show $act]
            assert_true {[dict exists $s partner]} "show ha has a partner object with state:evil = $v"
        }
        ha_watch_reset
        ha_watch [expr {3 * [ha_opt lease]}]
        foreach n [list $act $sby] {
            assert_equal [dict get [ha_show $n] role] [expr {$n eq $act ? "active" : "standby"}] "$n's role"
        }
        assert_equal [dict get [ha_show $act] step_downs] [dict get $s0 step_downs] "$act's step-downs"
        assert_equal [dict get [ha_show $sby] partner node] $act "$sby's partner once $act published again"
    }

    test {SET vbrd:PAIR:lease other (no expiry): both stand by (holder other, ttl -1) until it is deleted, then one takes it} {
        lassign [ha_pair_up] act sby
        set t0 [ha_now_us]
        redis_cli set [ha_lease_key] other
        ha_watch_reset
        ha_watch [expr {5 * [ha_opt lease]}]
        foreach n [list $act $sby] {
            set s [ha_show $n]
            assert_equal [dict get $s role] standby "$n's role"
            assert_equal [dict get $s holder] other "$n's holder"
            assert_equal [dict get $s holder_ttl_ms] -1 "$n's holder_ttl_ms"
            # a holder that is no node of the pair is shown, counted, logged
            assert_equal [dict get $s lease foreign_holder] other "$n's lease.foreign_holder"
            assert_morethan [dict get $s lease foreign] 0 "$n's lease.foreign"
            assert_match "*the lease is held by 'other', neither this node*" [ha_on $n {vbrd_log}] "$n's log"
        }
        redis_cli del [ha_lease_key]
        wait_for_condition [expr {100 * [ha_slow]}] 10 {[llength [ha_active_nodes]] == 1} else {
            fail "nobody active 1 s after the DEL"
        }
        assert_lessthan [hb_history_overlap_ms $t0] 1 "ms both were active by their histories"
    }

    # The lease set to bytes that are no UTF-8: show ha had no holder key any
    # more, and show ha history silently left out every row naming that holder
    # (the active's step-down among them): json_string() refuses such bytes.
    test {the lease SET to non-UTF-8 bytes: show ha names the holder (as ?), show ha history keeps the rows} {
        lassign [ha_pair_up] act sby
        set f [lab_file lease.bin]
        set fd [open $f wb]
        puts -nonewline $fd "\xff\xfe-x"
        close $fd
        exec sh -c "/usr/bin/redis-cli -p [redis_port] -x set [ha_lease_key] < $f"
        wait_for_condition [expr {100 * [ha_slow]}] 10 {[ha_active_nodes] eq {}} else {
            fail "still active: [ha_active_nodes]"
        }
        # (the standby reads the lease again when the one it read can have ended)
        foreach n [list $act $sby] {
            wait_for_condition [expr {100 * [ha_slow]}] 10 {
                ![dict exists [ha_show $n] holder] || [dict get [ha_show $n] holder] ne $act
            } else {
                fail "$n's holder: [ha_show $n]"
            }
            set s [ha_show $n]
            assert_true {[dict exists $s holder]} "$n's show ha has a holder"
            assert_equal [dict get $s holder] "??-x" "$n's show ha holder"
        }
        set last [lindex [ha_history $act] end]
        assert_equal [list [dict get $last old] [dict get $last new] [dict get $last reason] [dict get $last holder]] \
            {active standby lost ??-x} "$act's last history row"
        redis_cli del [ha_lease_key]
        wait_for_condition [expr {100 * [ha_slow]}] 10 {[llength [ha_active_nodes]] == 1} else {
            fail "nobody active 1 s after the DEL"
        }
    }

    test {show ha and show ha history with arguments: refused with the usage, exit 1} {
        foreach args {{show ha foo} {show ha history 5} {show ha history -1 x} {show ha history ""} {show ha history history}} {
            lassign [ha_on a [list vbrctl_raw {*}$args]] rc out
            assert_equal $rc 1 "vbrctl $args: exit"
            assert_match "*unexpected argument*usage: show ha*" $out "vbrctl $args: message"
        }
        assert_equal [dict get [ha_show a] enabled] true "show ha after them"
    }
}

# Two nodes configured with one node id: the lease script never takes a
# lease that names its caller as held, so the second waits as for any
# holder (show ha says holder x on both) and takes over on the first one's
# SIGTERM. (Neither notices the other: see the report.)
start_ha_lab {ids {a x b x} wait 0} {
    test {both nodes configured node = x: one active, never two; a SIGTERM hands over} {
        wait_for_condition [expr {300 * [ha_slow]}] 10 {[llength [ha_active_nodes]] == 1 && [ha_role b] eq "standby"} else {
            fail "roles: [ha_role a] [ha_role b]"
        }
        set t0 [ha_now_us]
        ha_watch_reset
        ha_watch [expr {10 * [ha_opt lease]}]
        assert_lessthan [hb_history_overlap_ms $t0] 1 "ms both were active by their histories"
        assert_lessthan [ha_overlap_ms] 2 "ms both held themselves active (show ha)"
        set act [lindex [ha_active_nodes] 0]
        set sby [expr {$act eq "a" ? "b" : "a"}]
        ha_kill $act TERM
        assert_equal [ha_wait_exit $act 5000] "exit 0" "$act's exit"
        ha_wait_role $sby active [expr {1000 * [ha_slow]}]
    }
}
