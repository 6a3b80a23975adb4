# The FRR harness on its own, no vbrd: bfdd against bfdd, in two hosts
# joined by a veth, at 10 ms x 3 (30 ms detection time).
#
#   b1 eth0 10.0.0.1 ==veth== eth0 10.0.0.2 b2      single hop (RFC 5881)
#        fd00::1                  fd00::2            single hop, IPv6
#   lo 10.255.0.1      (routes)     lo 10.255.0.2   multihop (RFC 5883)

source [file join [file dirname [info script]] harness frr.tcl]

lab_netns b1
lab_netns b2
lab_wire b1 eth0 b2 eth0 -ipv6 1
foreach {h me peer} {b1 1 2 b2 2 1} {
    lab_exec $h ip addr add 10.0.0.$me/24 dev eth0
    lab_exec $h ip addr add fd00::$me/64 dev eth0 nodad
    lab_exec $h ip addr add 10.255.0.$me/32 dev lo
    lab_exec $h ip route add 10.255.0.$peer/32 via 10.0.0.$peer
}

proc bfd_conf {me peer} {
    return [frr_bfd_conf [list \
        "10.0.0.$peer interface eth0" \
        "fd00::$peer interface eth0" \
        "10.255.0.$peer multihop local-address 10.255.0.$me"]]
}
frr_start b1 [bfd_conf 1 2]
frr_start b2 [bfd_conf 2 1]

test {single-hop sessions come up at both ends with 10 ms timers, multiplier 3} {
    foreach {h peer} {b1 10.0.0.2 b2 10.0.0.1} {
        frr_bfd_wait_state $h $peer up 10000
        set p [frr_bfd_peer $h $peer]
        assert_equal [dict get $p multihop] false
        assert_equal [dict get $p interface] eth0
        assert_equal [dict get $p remote-transmit-interval] 10 "$h: peer's transmit interval (ms)"
        assert_equal [dict get $p remote-receive-interval] 10 "$h: peer's receive interval (ms)"
        assert_equal [dict get $p remote-detect-multiplier] 3
        assert_equal [dict get $p diagnostic] ok
    }
}

test {IPv6 single-hop sessions come up} {
    frr_bfd_wait_state b1 fd00::2 up 10000
    frr_bfd_wait_state b2 fd00::1 up 10000
}

test {multihop sessions between loopback addresses come up} {
    foreach {h me peer} {b1 1 2 b2 2 1} {
        frr_bfd_wait_state $h 10.255.0.$peer up 10000 multihop true
        set p [frr_bfd_peer $h 10.255.0.$peer multihop true]
        assert_equal [dict get $p local] 10.255.0.$me
    }
}

test {shutdown at b1: b1 is AdminDown, b2 goes down, "neighbor signaled session down"} {
    frr_bfd_wait_state b2 10.0.0.1 up 10000
    frr_shutdown_peer b1 10.0.0.2
    set ms [frr_bfd_wait_state b2 10.0.0.1 down 2000]
    set p1 [frr_bfd_peer b1 10.0.0.2]
    set p2 [frr_bfd_peer b2 10.0.0.1]
    note "b2 down within $ms ms of the shutdown (as vtysh saw it)"
    assert_equal [dict get $p1 status] shutdown "b1's own session"
    assert_equal [dict get $p2 diagnostic] "neighbor signaled session down" "b2's diagnostic"
    # The other sessions are not touched.
    assert_equal [frr_bfd_peer_state b2 fd00::1] up
    assert_equal [frr_bfd_peer_state b2 10.255.0.1 multihop true] up
    frr_noshutdown_peer b1 10.0.0.2
    frr_bfd_wait_state b1 10.0.0.2 up 10000
    frr_bfd_wait_state b2 10.0.0.1 up 10000
}

test {kill -9 of b1's bfdd: every session of b2 goes down within 1 s, "control detection time expired"} {
    foreach peer {10.0.0.1 fd00::1} { frr_bfd_wait_state b2 $peer up 10000 }
    frr_bfd_wait_state b2 10.255.0.1 up 10000 multihop true
    set n0 [llength [frr_bfd_transitions b2]]
    set t_kill [frr_kill b1]
    set polled [frr_bfd_wait_state b2 10.0.0.1 down 1000]
    frr_bfd_wait_state b2 fd00::1 down 1000
    frr_bfd_wait_state b2 10.255.0.1 down 1000 multihop true
    foreach p [frr_bfd_peers b2] {
        assert_equal [dict get $p diagnostic] "control detection time expired" "[dict get $p peer]"
    }
    # When bfdd logged each change (ms timestamps), from the kill.
    set detect {}
    foreach tr [lrange [frr_bfd_transitions b2] $n0 end] {
        if {[dict get $tr from] eq "up" && [dict get $tr to] eq "down"} {
            dict set detect [dict get $tr peer] [expr {[dict get $tr ms] - $t_kill}]
        }
    }
    note "b2 down after (ms, bfdd's log): $detect; vtysh saw 10.0.0.1 down after $polled ms"
    assert_equal [dict size $detect] 3 "three up -> down changes logged: $detect"
    dict for {peer ms} $detect {
        # 30 ms detection time, plus the kill landing anywhere in a 10 ms
        # transmit interval: >= 20 ms, and well below 1 s when loaded.
        assert_range $ms 15 1000 "$peer: ms from kill to down"
    }
}

test {bfdd started again after the kill: the sessions come back up} {
    frr_start b1 [bfd_conf 1 2]
    frr_bfd_wait_state b2 10.0.0.1 up 10000
    frr_bfd_wait_state b1 10.0.0.2 up 10000
}
