# The HA lab's tools on their own, no vbrd: Redis started, killed and
# restarted (harness/redis.tcl), a Sentinel failover, the nftables cut of
# one node's Redis address on loopback (harness/ha_lab.tcl), and
# tools/arpwatch.py against kernel hosts on the lab's LAN that answer for
# the service address, one, both at once, then the other.
#
#   h1 10.10.0.100 ── PREFIX-lan br0 ── k1, k2 (kernel hosts; 10.10.0.1 and
#                                       2001:db8:10::1 put on and taken off)

source [file join [file dirname [file normalize [info script]]] harness ha_lab.tcl]

# A kernel host on the lab's LAN bridge, IPv6 on without DAD.
proc lan_kernel_host {name} {
    lab_netns $name
    lab_wire $name eth0 lan $name
    lab_exec lan ip link set dev $name master br0
    lab_exec $name sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
        net.ipv6.conf.default.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0 \
        net.ipv6.conf.eth0.accept_dad=0 net.ipv6.conf.eth0.accept_ra=0 \
        net.ipv6.conf.eth0.router_solicitations=0
}

# HOST takes (op add) or drops (op del) the service addresses.
proc service_addr {host op} {
    lab_exec $host ip addr $op $::ha::vip4/24 dev eth0
    lab_exec $host ip -6 addr $op $::ha::vip6/64 dev eth0 nodad
}

# What CHAN (non-blocking) receives within MS ms, or until it holds
# PATTERN (glob): its lines joined by spaces ("" if nothing came).
proc read_within {chan ms {pattern ""}} {
    set deadline [expr {[clock milliseconds] + $ms}]
    set got {}
    while {[clock milliseconds] < $deadline} {
        if {[gets $chan line] >= 0} {
            lappend got [string trimright $line "\r"]
            if {$pattern ne "" && [string match $pattern [join $got]]} { break }
        } else {
            after 5
        }
    }
    return [join $got]
}

start_ha_lab {ha 0 nodes {} redis 1} {
    test {redis_start on 127.0.0.1-3, SIGKILL + restart: without persistence the keys are gone} {
        set port [redis_port]
        foreach ip {127.0.0.1 127.0.0.2 127.0.0.3} {
            assert_equal [redis_cli -addr $ip:$port ping] PONG "PING at $ip"
        }
        assert_equal [redis_cli set k1 v1] OK
        set pid0 [redis_pid]
        set t0 [clock milliseconds]
        redis_kill KILL
        assert_equal [redis_running] 0 "the server is gone after SIGKILL"
        set rc [catch {redis_cli -addr 127.0.0.2:$port ping} out]
        assert_true {$rc != 0} "nothing answers at 127.0.0.2:$port while it is down: $out"
        redis_restart
        note "SIGKILL to PONG again: [expr {[clock milliseconds] - $t0}] ms"
        assert_true {[redis_pid] != $pid0} "a new process"
        assert_equal [redis_port] $port "the same port"
        assert_equal [redis_cli exists k1] 0 "save '' and no AOF: the key is gone"
    }

    test {nft cut of 127.0.0.2:PORT: a's connection hears nothing either way, b's (127.0.0.3) works, heal resumes it} {
        set port [redis_port]
        set ca [socket 127.0.0.2 $port]
        set cb [socket 127.0.0.3 $port]
        foreach c [list $ca $cb] { fconfigure $c -blocking 0 -buffering line -translation {auto crlf} }
        # a subscribes: what the server pushes to it goes server -> client
        puts $ca "SUBSCRIBE hach"
        assert_match "*subscribe*hach*:1*" [read_within $ca 2000 "*subscribe*hach*:1*"] "a's SUBSCRIBE answered before the cut"
        ha_cut_redis a
        try {
            # client -> server: b's PING passes, a's connection is cut
            puts $cb "PING"
            assert_equal [read_within $cb 2000 "+PONG"] "+PONG" "b's PING through 127.0.0.3"
            # server -> client: a PUBLISH (from 127.0.0.1) must not reach a
            assert_equal [redis_cli publish hach m1] 1 "the server has a's subscription"
            assert_equal [read_within $ca 500] "" "a heard nothing during the cut"
            # a new connection to 127.0.0.2 does not get through either
            set rc [catch {exec timeout 2 redis-cli -h 127.0.0.2 -p $port ping} out]
            assert_true {$rc != 0} "a new connection to 127.0.0.2 during the cut: $out"
            set drops [ha_cut_drops a]
            note "cut: $drops packets dropped"
            assert_morethan $drops 0 "packets the cut dropped"
        } finally {
            ha_heal_redis a
        }
        # TCP retransmits what was dropped: the message arrives after all
        set t0 [clock milliseconds]
        assert_match "*message*hach*m1*" [read_within $ca 10000 "*message*hach*m1*"] "the pushed message reaches a after the heal"
        note "the message came [expr {[clock milliseconds] - $t0}] ms after the heal (TCP retransmission)"
        close $ca
        close $cb
        assert_equal [redis_cli -addr 127.0.0.2:$port ping] PONG "127.0.0.2 after the heal"
    }

    test {-persist 1: a SIGKILLed server comes back with its keys and their expiry} {
        redis_kill TERM
        redis_start -bind {127.0.0.1 127.0.0.2 127.0.0.3} -persist 1
        assert_equal [redis_cli set k2 v2 px 20000] OK
        redis_kill KILL
        redis_restart
        assert_equal [redis_cli get k2] v2 "the key after SIGKILL and restart"
        assert_range [redis_cli pttl k2] 1 20000 "its expiry (ms left)"
    }

    test {arpwatch: one kernel host answers, then both at once, then only the other; h1's own ARP entry untouched} {
        lan_kernel_host k1
        lan_kernel_host k2
        set mac1 [lab_mac k1]
        set mac2 [lab_mac k2]
        service_addr k1 add
        set arp0 [ha_host_arp]
        set w [ha_arpwatch_start 1.6 -ipv6 1]
        # the watch runs 1.6 s: k2 joins after ~0.5 s, k1 leaves ~0.5 s
        # later (ha_watch with no node running just lets the time pass)
        set t_start [ha_now_us]
        ha_watch 500
        set t_add [ha_now_us]
        service_addr k2 add
        set t_add_done [ha_now_us]
        ha_watch 500
        set t_del [ha_now_us]
        service_addr k1 del
        # the ip command's own time (10-20 ms on a loaded machine, more
        # with a busy core): k1 may answer until it has run; every change
        # is bracketed by the times before and after its command
        set t_del_done [ha_now_us]
        set rep [ha_arpwatch_result $w]
        service_addr k2 del
        set arp [dict get $rep arp]
        set nd [dict get $rep nd]
        note [format "arpwatch: %d requests, %d ARP answers, %d NA; dual %.0f ms (ARP), %.0f ms (ND) for %.0f ms of both; own worst pause %.1f ms" \
            [dict get $rep requests] [dict get $arp answers] [dict get $nd answers] \
            [dict get $arp max_dual_ms] [dict get $nd max_dual_ms] \
            [expr {($t_del - $t_add) / 1000.0}] [dict get $rep max_send_gap_ms]]
        assert_morethan [dict get $rep requests] 100 "requests sent in 1.6 s at 10 ms"
        # What the watcher can resolve: whole request periods (10 ms), each
        # end of a stretch a period off at most, and its own worst pause
        # (a descheduled watcher stretches a period), in µs.
        set res [expr {round(1000 * (2 * [dict get $rep interval_ms] + [dict get $rep max_send_gap_ms]))}]
        foreach p [list $arp $nd] proto {ARP ND} {
            assert_equal [lsort [dict keys [dict get $p macs]]] [lsort [list $mac1 $mac2]] "$proto: the MACs that answered"
            set both_lo [expr {($t_del - $t_add_done) / 1000.0}]
            set both_hi [expr {($t_del_done - $t_add) / 1000.0}]
            assert_range [dict get $p max_dual_ms] [expr {$both_lo - 40 - $res / 1000.0}] [expr {$both_hi + 40 + $res / 1000.0}] \
                "$proto: the stretch with two MACs at once, vs. [format %.0f..%.0f $both_lo $both_hi] ms both had the address"
            # every request is answered: a reply that arrives after the
            # next request leaves one period silent, a pause another
            assert_lessthan [dict get $p max_silent_periods] 3 "$proto: longest stretch of request periods without an answer"
            set m1 [dict get $p macs $mac1]
            set m2 [dict get $p macs $mac2]
            assert_lessthan [dict get $m1 first_us] [expr {max($t_start, [dict get $rep start_us]) + 10000 + $res}] "$proto: k1 answered from the start"
            assert_range [dict get $m2 first_us] [expr {$t_add - 15000}] [expr {$t_add_done + 20000 + $res}] "$proto: k2's first answer, after it took the address"
            assert_range [dict get $m1 last_us] [expr {$t_del - 40000 - $res}] [expr {$t_del_done + 15000}] "$proto: k1's last answer, before it dropped the address"
            # (slots are 10 ms: a window ends a slot before the change, or
            # starts a slot after the 15 ms k1's last answer may take)
            assert_equal [ha_arp_macs $rep "" [expr {$t_add - 10000}] -proto [string tolower $proto]] $mac1 "$proto: before k2 took it, only k1"
            assert_equal [ha_arp_macs $rep [expr {$t_del_done + 30000}] "" -proto [string tolower $proto]] $mac2 "$proto: after k1 dropped it, only k2"
        }
        # the requests' made-up source: h1's kernel neither answered nor learnt
        assert_equal [ha_host_arp] $arp0 "h1's neighbor entry for $::ha::vip4"
    }

    test {arpwatch records a gratuitous ARP as an announcement, not as an answer} {
        set mac [lab_mac k2]
        set m [string map {: ""} $mac]
        set ip [format %08x [expr {(10 << 24) | (10 << 16) | 1}]]
        set garp "ffffffffffff${m}08060001080006040001${m}${ip}000000000000${ip}"
        set w [ha_arpwatch_start 0.5]
        lab_exec k2 python3 [file join [file dirname $::arpwatch_py] rawio.py] eth0 0 $garp
        set rep [ha_arpwatch_result $w]
        set arp [dict get $rep arp]
        assert_equal [dict get $arp answers] 0 "nobody holds the address: no answers"
        assert_equal [llength [dict get $arp announces]] 1 "one announcement: [dict get $arp announces]"
        lassign [lindex [dict get $arp announces] 0] t amac kind
        assert_equal $amac $mac
        assert_equal $kind garp
    }
}

start_ha_lab {ha 0 nodes {} redis 1 sentinel 1} {
    test {Sentinel lab: SENTINEL FAILOVER moves the master to the replica; keys survive} {
        set old [sentinel_master]
        assert_equal [sentinel_server_of $old] master "the sentinels start with the master"
        assert_equal [redis_cli -addr $old set k3 v3] OK
        wait_for_condition 200 10 {[redis_cli -name replica get k3] eq "v3"} else {
            fail "the write did not reach the replica"
        }
        set f [sentinel_failover]
        note "failover [dict get $f from] -> [dict get $f to]: the sentinels agreed after [dict get $f ms] ms"
        assert_equal [sentinel_server_of [dict get $f to]] replica "the replica is the master now"
        assert_equal [sentinel_masters] [lrepeat 3 [dict get $f to]] "all three sentinels"
        assert_equal [redis_role [dict get $f to]] master
        assert_equal [redis_cli -addr [dict get $f to] get k3] v3 "the key on the new master"
        # (the old master becomes a replica only ~8 s later, Sentinel's own
        # doing that no test relies on: sentinel_wait_demoted waits for it
        # by hand; make test saves the 8 s)
    }
}
