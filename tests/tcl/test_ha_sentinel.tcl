# The HA pair on Redis Sentinel (failover/ha/ha_redis.h): both nodes name the
# three sentinels of harness/redis.tcl's Sentinel lab (master, replica,
# quorum 2) instead of a server, and the lab fails the master over to the
# replica (SENTINEL FAILOVER) while the pair runs.
#
# What must hold: the pair keeps its roles (the same active, the same
# epoch: no node lost or took the lease), and the lease goes on being
# renewed, now on the new master. Renewals are seen from Redis itself: the
# lease key's PTTL, sampled every 10 ms, goes back up at each renew; a
# lease nobody renews only goes down.
#
# The lease is 3000 ms here: from SENTINEL FAILOVER to the sentinels'
# +switch-master (what tells a client to move) takes ~1.2 s on this
# machine (harness/redis.tcl's own test), and the old master stays a
# writable master for some 8 s more (Sentinel turns it into a replica only
# then). A node that followed only a dropped link, not +switch-master,
# would renew on the old master while the lease ran out on the new one,
# and the standby would take it there: two actives. Under ASan the time
# bounds are multiplied by [ha_slow].

source [file join [file dirname [file normalize [info script]]] harness ha_lab.tcl]

# PTTL of the lease key at ADDR every 10 ms for MS: -> dict rises N (times
# it went up: renewals) min MS max MS absent N (samples without the key).
proc pttl_watch {addr ms} {
    set key [ha_lease_key]
    set prev ""
    set rises 0
    set absent 0
    set min ""
    set max ""
    set t_end [expr {[clock milliseconds] + $ms}]
    while {[clock milliseconds] < $t_end} {
        set p [redis_cli -addr $addr pttl $key]
        if {$p < 0} {
            incr absent
        } else {
            if {$prev ne "" && $p > $prev} { incr rises }
            set min [expr {$min eq "" ? $p : min($min, $p)}]
            set max [expr {$max eq "" ? $p : max($max, $p)}]
            set prev $p
        }
        after 10
    }
    return [dict create rises $rises min $min max $max absent $absent]
}

start_ha_lab {sentinel 1 lease 3000 renew 100 guard 300 retry 50 timeout 100} {
    test {Sentinel fails Redis over to the replica: same active, same epoch, renewals go on at the new master} {
        lassign [ha_pair_up 15000] act sby
        set lease [ha_opt lease]
        set old [sentinel_master]
        set before [dict create]
        foreach n [list $act $sby] {
            set s [ha_show $n]
            assert_equal [dict get $s redis master] $old "$n uses the master the sentinels name"
            dict set before $n [dict create epoch [dict get $s epoch] history [ha_history $n]]
        }
        set p0 [pttl_watch $old 1000]
        note "before: at $old the lease's PTTL rose [dict get $p0 rises] times in 1 s, [dict get $p0 min]..[dict get $p0 max] ms"
        assert_morethan [dict get $p0 rises] 4 "renewals at the old master in 1 s (renew = [ha_opt renew] ms)"

        ha_watch_reset
        ha_watch 200
        set f [sentinel_failover]
        set new [dict get $f to]
        set t0 [clock milliseconds]
        if {![ha_watch [expr {10000 * [ha_slow]}] {
                [dict get [ha_show $act] redis master] eq $new && [dict get [ha_show $sby] redis master] eq $new}]} {
            fail "the nodes did not move to $new: [ha_show $act] / [ha_show $sby]"
        }
        set moved_ms [expr {[clock milliseconds] - $t0}]
        ha_watch 500
        set p1 [pttl_watch $new 1000]
        ha_watch 200
        note "failover $old -> $new: sentinels agreed after [dict get $f ms] ms, both nodes on $new $moved_ms ms later"
        note "after: at $new the lease's PTTL rose [dict get $p1 rises] times in 1 s, [dict get $p1 min]..[dict get $p1 max] ms"

        assert_morethan [dict get $p1 rises] 4 "renewals at the new master in 1 s"
        assert_equal [dict get $p1 absent] 0 "samples without the lease key at the new master"
        assert_morethan [dict get $p1 min] [expr {$lease / 2}] "the lease's least PTTL at the new master (ms)"
        assert_equal [redis_cli -addr $new get [ha_lease_key]] $act "the lease's holder at the new master"
        foreach n [list $act $sby] {
            set s [ha_show $n]
            assert_equal [dict get $s role] [expr {$n eq $act ? "active" : "standby"}] "$n's role"
            assert_equal [dict get $s holder] $act "$n's holder"
            assert_equal [dict get $s epoch] [dict get $before $n epoch] "$n's epoch"
            assert_equal [ha_history $n] [dict get $before $n history] "$n's history"
        }
        assert_equal [redis_cli -addr $new get [ha_lease_key epoch]] [dict get $before $act epoch] "the epoch at the new master"
        foreach smp [ha_samples] {
            set want [expr {[dict get $smp node] eq $act ? "active" : "standby"}]
            if {[dict get $smp role] ne $want} {
                fail "[dict get $smp node] was [dict get $smp role] at [dict get $smp t0_us] (during the failover)"
            }
        }
        assert_lessthan [ha_overlap_ms] 2 "longest time both nodes' show ha held them active (ms)"
    }
}
