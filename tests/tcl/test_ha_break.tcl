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

# --- a flood of messages on the pair's channel ----------------------------------

# Every "NODE state" message on vbrd:PAIR:events made a node read
# state:NODE, each read an operation of the Redis client's 64; a flood
# filled the table and the active's renews failed with -ENOMEM until it
# stepped down at its deadline (and the standby took over): any client of
# the Redis server could make the pair fail over at will.
start_ha_lab {} {
    test {a flood of 2M 'evil state' messages on the pair's channel: no renew fails, no role changes} {
        if {![file executable /usr/bin/redis-benchmark]} { skip "no redis-benchmark (redis-tools)" }
        lassign [ha_pair_up] act sby
        set s0 [ha_show $act]
        set t0 [ha_now_us]
        ha_watch_reset
        set pid [lab_spawn - -lifetime 60 /usr/bin/redis-benchmark -p [redis_port] -n 2000000 \
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
        assert_morethan [expr {[dict get $s1 redis events_rx] - [dict get $s0 redis events_rx]}] 1000000 "events the active received"
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
