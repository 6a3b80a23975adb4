# vbrd's FPM server (frr/fpm) against a real zebra and against a fake one.
#
#   idc 10.1.0.2/24 ── lan 10.1.0.1/24 [vbrd] line1 172.16.1.1/24 ── eth0 172.16.1.2/24, 172.16.1.3/24
#                                                                  [rtr: FRR, AS 65001]
#                                                                  lo 10.2.0.1, 10.2.1.1, 10.2.2.1
#                      TAPs vb-lan, vb-line1 in cp [vbrd's FRR: zebra (FPM), bgpd, AS 65000]
#
# rtr announces 10.2.0.0/24, 10.2.1.0/24 and 10.2.2.0/24 and has a static
# route back to 10.1.0.0/24 (what idc's pings need does not hang on the
# FRR being restarted here). fpm.stale_ms is 500: after zebra reconnects,
# what it has not sent again once it has been quiet that long is swept.
#
# Part 1, real zebra: killed, vbrd forwards on the routes it holds;
# started again with bgpd (FRR 8.4's bgpd does not send its routes again
# to a zebra that restarted: bgp_zebra_connected() in bgpd/bgp_zebra.c
# says "TODO - What if we have peers and networks configured, do we have
# to kick-start them?"; here it reconnected ~10 s later and zebra's RIB
# kept no BGP route, so vbrd swept them all; watchfrr restarts every
# daemon when zebra dies), its replay keeps what FRR still has and a
# prefix withdrawn meanwhile is swept. A reload with a static route over a
# prefix zebra has: the config wins, and zebra's comes back when the
# static goes.
#
# Part 2, tools/fpm_fake.py: a fake zebra's next-hop objects and routes by
# hand (and show fpm's counters of them), a delete of a route vbrd does
# not hold, a route's delete and add in one frame, a replay that leaves a
# route out (and sends its next-hop object again: the sweep must still
# find the route stale), and malformed frames, each on its own connection.
# One connection at a time: zebra is stopped before part 2, or it would
# take the connection back 3 s after the fake took it.

source [file join [file dirname [info script]] harness frr.tcl]

set fpm_fake [file join [file dirname [file normalize [info script]]] tools fpm_fake.py]

# BGP keepalive and hold time, s: 30 s rides through a daemon's stall on
# a busy machine; nothing here is about detecting a dead peer (bgpd is
# stopped with a Cease)
set bgp_timers {10 30}

lab_host idc 10.1.0.2/24 10.1.0.1
lab_host rtr 172.16.1.2/24 ""
lab_exec rtr ip addr add 172.16.1.3/24 dev eth0
foreach a {10.2.0.1 10.2.1.1 10.2.2.1} {
    lab_exec rtr ip addr add $a/32 dev lo
}
lab_exec rtr ip route add 10.1.0.0/24 via 172.16.1.1

# cp: vbrd's control namespace (IPv6 on: the TAPs' link-local addresses)
set cpns [lab_netns cp]
lab_exec cp sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0

frr_start rtr [frr_bgp_conf 65001 172.16.1.2 -neighbors {
    {172.16.1.1 65000}
} -networks {10.2.0.0/24 10.2.1.0/24 10.2.2.0/24} -timers $bgp_timers] -daemons {zebra bgpd}

# vbrd's config; ROUTES: the text of a `routes` list's entries.
proc fpm_conf {{routes ""}} {
    set t [string map [list @cpns@ $::cpns] {
ports = (
  { name = "lan";  devargs = "net_af_packet0,iface=@idc@"; },
  { name = "line"; devargs = "net_af_packet1,iface=@rtr@"; }
);
interfaces = (
  { name = "lan";   port = "lan";  address = "10.1.0.1/24"; },
  { name = "line1"; port = "line"; address = "172.16.1.1/24"; }
);
cplane = { netns = "@cpns@"; };
fpm = { stale_ms = 500; };
}]
    if {$routes ne ""} { append t "routes = ( $routes );\n" }
    return $t
}

# --- helpers ---

# vbrd's rows for PREFIX in `show routes` (a config's route and zebra's may both be there).
proc route_rows {prefix} {
    set out {}
    foreach r [dict get [vbrctl show routes] routes] {
        if {[dict get $r prefix] eq $prefix} { lappend out $r }
    }
    return $out
}

# The row for PREFIX whose source matches GLOB (default: any), "" if none.
proc route_row {prefix {glob *}} {
    foreach r [route_rows $prefix] {
        if {[string match $glob [dict get $r source]]} { return $r }
    }
    return ""
}

# {VIA INTERFACE} of a row's (or show fib's) only next hop.
proc row_nexthop {row} {
    set nhs [dict get $row next_hops]
    assert_equal [llength $nhs] 1 "one next hop: $row"
    set nh [lindex $nhs 0]
    return [list [dict get $nh via] [dict get $nh interface]]
}

proc fpm {key} { return [dict get [vbrctl show fpm] $key] }

# Wait up to MS for each of PREFIXES to be in vbrd's routes from FRR.
proc wait_routes {prefixes ms} {
    foreach p $prefixes {
        wait_for_condition [expr {$ms / 50}] 50 {[route_row $p bgp*] ne ""} else {
            fail "$p not in vbrd's routes from FRR after $ms ms: [vbrctl show fpm]"
        }
    }
}

# Ping DEST from idc COUNT times, 0.1 s apart, and fail unless each
# request got its reply (ping -w 20: a late reply is waited for, a lost one
# is a missing icmp_seq, ping_missing); the failure says what vbrd and rtr
# saw meanwhile (vbrd's drops that grew, rtr's eth0 counters, the FIB's
# answer, the neighbors).
proc ping_via {dest count} {
    set s0 [vbrctl show stats]
    set r0 [lab_link_stats rtr]
    lassign [ping_from idc $dest -c $count -i 0.1 -w 20] rc out
    set missing [ping_missing $out $count]
    if {$missing eq ""} { return }
    set s1 [vbrctl show stats]
    set r1 [lab_link_stats rtr]
    set grew {}
    dict for {k v} [dict get $s1 drops] {
        set was [expr {[dict exists $s0 drops $k] ? [dict get $s0 drops $k] : 0}]
        if {$v != $was} { lappend grew "$k +[expr {$v - $was}]" }
    }
    set rtr {}
    foreach k {rx_packets tx_packets} {
        lappend rtr "$k +[expr {[dict get $r1 $k] - [dict get $r0 $k]}]"
    }
    fail "ping $dest from idc: no reply to icmp_seq $missing of 1..$count; meanwhile vbrd's drops\
          [join $grew {, }], forwarded +[expr {[dict get $s1 forwarded] - [dict get $s0 forwarded]}];\
          rtr's eth0 [join $rtr {, }]; show fib: [vbrctl show fib $dest];\
          neighbors: [dict get [vbrctl show neighbors] neighbors]\n$out"
}

# Ping DEST from idc COUNT times, none answered; vbrd's no_route counts each.
proc assert_no_route {dest count} {
    set d0 [drops no_route]
    lassign [ping_from idc $dest -c $count -i 0.05 -W 1] rc out
    assert_equal [dict get [ping_stats $out] received] 0 "replies from $dest: $out"
    wait_for_condition 100 50 {[drops no_route] - $d0 >= $count} else {
        fail "no_route grew by [expr {[drops no_route] - $d0}] for $count pings to $dest"
    }
    assert_equal [expr {[drops no_route] - $d0}] $count "no_route's growth"
}

# Run the fake zebra in cp with ARGS (fpm_fake.py's); its JSON report as a dict.
proc fpm_fake {args} {
    return [json::json2dict [lab_exec cp python3 $::fpm_fake {*}$args]]
}

# --- part 1: FRR's zebra ---

start_vbrd [list conf [fpm_conf]] {
    frr_start cp [frr_bgp_conf 65000 172.16.1.1 -neighbors {
        {172.16.1.2 65001}
    } -timers $bgp_timers] -daemons {zebra bgpd} -fpm 127.0.0.1:2620

    test {zebra's BGP routes reach vbrd's FIB over FPM; idc reaches the region through them} {
        frr_bgp_wait_state cp 172.16.1.2 Established 60000
        wait_routes {10.2.0.0/24 10.2.1.0/24 10.2.2.0/24} 30000
        foreach p {10.2.0.0/24 10.2.1.0/24 10.2.2.0/24} {
            assert_equal [dict get [route_row $p] source] bgp "$p's source"
            assert_equal [row_nexthop [route_row $p]] {172.16.1.2 line1} "$p's next hop"
        }
        assert_equal [dict get [vbrctl show fib 10.2.1.1] source] bgp
        set f [vbrctl show fpm]
        assert_equal [dict get $f state] connected
        assert_equal [dict get $f routes4] 3 "IPv4 routes from zebra: $f"
        ping_via 10.2.0.1 3
        ping_via 10.2.1.1 3
    }

    test {zebra killed: vbrd keeps forwarding on the routes it holds, show fpm says listening, routes4 unchanged} {
        set r4 [fpm routes4]
        frr_kill cp zebra
        wait_for_condition 100 50 {[fpm state] eq "listening"} else {
            fail "show fpm: state [fpm state] after zebra was killed"
        }
        assert_equal [fpm routes4] $r4 "routes4"
        foreach p {10.2.0.0/24 10.2.1.0/24 10.2.2.0/24} {
            assert_true {[route_row $p bgp] ne ""} "$p still in vbrd's routes"
        }
        ping_via 10.2.0.1 5
        ping_via 10.2.1.1 5
        # bgpd runs on and learns that rtr withdrew a prefix; with no zebra,
        # nobody tells vbrd
        frr_bgp_withdraw rtr 10.2.1.0/24
        wait_for_condition 200 50 {"10.2.1.0/24" ni [frr_bgp_routes cp]} else {
            fail "cp's bgpd still has 10.2.1.0/24 10 s after rtr withdrew it"
        }
        assert_true {[route_row 10.2.1.0/24 bgp] ne ""} "vbrd holds 10.2.1.0/24 while zebra is away"
        assert_equal [fpm routes4] $r4 "routes4"
    }

    test {zebra started again (with bgpd): after its replay FRR's routes are there, the prefix withdrawn meanwhile is swept once the connection is quiet} {
        set f0 [vbrctl show fpm]
        # FRR 8.4's bgpd never sends a restarted zebra its routes (see
        # the header): stop it (a Cease to rtr) and start both, zebra first
        set t0 [clock milliseconds]
        frr_kill cp bgpd TERM
        frr_restart cp zebra
        frr_restart cp bgpd
        # zebra connects 3 s after reading its config; the sweep comes
        # stale_ms after its replay; 30 s for a loaded machine
        set t_est ""
        set t_conn ""
        set c0 [dict get $f0 connections]
        while 1 {
            set f [vbrctl show fpm]
            set now [expr {[clock milliseconds] - $t0}]
            if {$t_est eq "" && [frr_bgp_neighbor_state cp 172.16.1.2] eq "Established"} {
                set t_est $now
            }
            if {$t_conn eq "" && [dict get $f connections] > $c0} { set t_conn $now }
            if {[dict get $f connections] > $c0 && ![dict get $f replaying]} { break }
            if {$now > 30000} { fail "no replay done 30 s after zebra's restart: $f" }
            after 50
        }
        set t_swept [expr {[clock milliseconds] - $t0}]
        note "after the restart: BGP Established at $t_est ms, zebra's FPM connection at $t_conn ms, its replay swept at $t_swept ms (polled)"
        assert_equal [dict get $f state] connected
        # only the prefix FRR no longer has went: had the replay come
        # before bgpd's routes, vbrd would have swept the live ones too
        assert_equal [expr {[dict get $f swept_routes] - [dict get $f0 swept_routes]}] 1 \
            "routes swept (BGP Established at $t_est ms, FPM connection at $t_conn ms): $f"
        assert_equal [route_rows 10.2.1.0/24] {} "10.2.1.0/24 in vbrd's routes"
        foreach p {10.2.0.0/24 10.2.2.0/24} {
            assert_equal [row_nexthop [route_row $p bgp]] {172.16.1.2 line1} "$p"
        }
        assert_equal [dict get $f routes4] [expr {[dict get $f0 routes4] - 1}] "routes4"
        assert_equal [dict get $f resets] 0 "resets: [dict get $f last_error]"
        ping_via 10.2.0.1 5
        assert_no_route 10.2.1.1 5
    }

    test {a reload with a static route over zebra's prefix: the config wins, zebra's is marked; without it zebra's is back; FRR's routes kept, no ping lost} {
        set f0 [vbrctl show fpm]
        set gen [dict get [vbrctl show routes] generation]
        # pings to 10.2.0.1 and 10.2.2.1 for ~4 s, over both reloads
        set p0 [lab_spawn idc ping -n -c 40 -i 0.1 -w 30 10.2.0.1]
        set p2 [lab_spawn idc ping -n -c 40 -i 0.1 -w 30 10.2.2.1]

        vbrd_rewrite_config [fpm_conf {{ prefix = "10.2.2.0/24"; via = "172.16.1.3"; }}]
        assert_equal [dict get [vbrctl reload] generation] [expr {$gen + 1}]
        set cfg [route_row 10.2.2.0/24 config]
        assert_true {$cfg ne ""} "the config's route: [route_rows 10.2.2.0/24]"
        assert_equal [row_nexthop $cfg] {172.16.1.3 line1}
        set z [route_row 10.2.2.0/24 bgp*]
        assert_equal [dict get $z source] "bgp (config wins)" "zebra's row"
        assert_equal [row_nexthop $z] {172.16.1.2 line1} "zebra's row"
        set fib [vbrctl show fib 10.2.2.1]
        assert_equal [dict get $fib source] config "show fib 10.2.2.1: $fib"
        assert_equal [row_nexthop $fib] {172.16.1.3 line1} "show fib 10.2.2.1"
        assert_equal [fpm routes4] [dict get $f0 routes4] "routes4 after the first reload"

        vbrd_rewrite_config [fpm_conf]
        assert_equal [dict get [vbrctl reload] generation] [expr {$gen + 2}]
        assert_equal [route_row 10.2.2.0/24 config] "" "the config's route is gone"
        assert_equal [dict get [route_row 10.2.2.0/24] source] bgp
        set fib [vbrctl show fib 10.2.2.1]
        assert_equal [dict get $fib source] bgp "show fib 10.2.2.1: $fib"
        assert_equal [row_nexthop $fib] {172.16.1.2 line1} "show fib 10.2.2.1"

        foreach pid [list $p0 $p2] {
            assert_true {[lab_wait_exit $pid 40000]} "ping ended"
            set out [lab_spawn_output $pid]
            assert_equal [ping_missing $out 40] {} "pings without a reply across the reloads: $out"
        }
        set f [vbrctl show fpm]
        foreach k {routes4 connections resets flushed} {
            assert_equal [dict get $f $k] [dict get $f0 $k] "show fpm $k across the reloads"
        }
    }

    # zebra before the fake one below: it would take the FPM connection back
    frr_stop cp
}

# --- part 2: a fake zebra ---

start_vbrd [list conf [fpm_conf]] {
    foreach t [dict get [vbrctl show cplane] taps] {
        if {[dict get $t interface] eq "line1"} { set ifx [dict get $t ifindex] }
    }
    # what the fake sends on each connection first, as zebra replays:
    # next hops 1 (172.16.1.2) and 2 (172.16.1.3) on line1's TAP, and
    # 10.2.0.0/24 and 10.2.2.0/24 through 1
    set replay [list nh:1:$ifx:172.16.1.2 nh:2:$ifx:172.16.1.3 route:10.2.0.0/24:1 route:10.2.2.0/24:1]

    test {a fake zebra's next-hop objects and routes (RTA_NH_ID): in show routes, show fib and show fpm nexthops; idc reaches 10.2.0.1} {
        assert_true {$ifx > 0} "line1's TAP ifindex: [vbrctl show cplane]"
        set r [fpm_fake --hold-ms 300 {*}$replay]
        assert_equal [dict get $r closed_by_peer] false "vbrd closed the connection: $r, [vbrctl show fpm]"
        set f [vbrctl show fpm]
        assert_equal [dict get $f resets] 0 "resets: [dict get $f last_error]"
        assert_equal [dict get $f routes4] 2
        assert_equal [dict get $f nexthops] 2
        # what the fake sent, counted: 1 connection, 4 frames, 2 + 2 messages
        foreach {k n} [list connections 1 frames 4 bytes [dict get $r bytes] route_adds 2 nh_adds 2] {
            assert_equal [dict get $f $k] $n "show fpm $k"
        }
        foreach p {10.2.0.0/24 10.2.2.0/24} {
            set row [route_row $p]
            assert_equal [dict get $row source] bgp "$p"
            assert_equal [row_nexthop $row] {172.16.1.2 line1} "$p"
        }
        set fib [vbrctl show fib 10.2.0.1]
        assert_equal [dict get $fib prefix] 10.2.0.0/24
        assert_equal [dict get $fib source] bgp
        assert_equal [row_nexthop $fib] {172.16.1.2 line1} "show fib 10.2.0.1"
        set nhs {}
        foreach n [dict get [vbrctl show fpm nexthops] nexthops] {
            lappend nhs [list [dict get $n id] [dict get $n usable] [dict get $n interface] \
                             [dict get $n via] [dict get $n routes]]
        }
        assert_equal [lsort $nhs] {{1 true line1 172.16.1.2 2} {2 true line1 172.16.1.3 0}} \
            "show fpm nexthops"
        # the fake closed: routes stay
        assert_equal [fpm state] listening
        ping_via 10.2.0.1 5
    }

    test {a delete of a prefix vbrd does not hold is counted as unknown_route, and changes nothing} {
        set f0 [vbrctl show fpm]
        set r [fpm_fake --hold-ms 300 {*}$replay delroute:10.7.0.0/24]
        assert_equal [dict get $r closed_by_peer] false "vbrd closed the connection: [vbrctl show fpm]"
        set f [vbrctl show fpm]
        assert_equal [expr {[dict get $f unknown_route] - [dict get $f0 unknown_route]}] 1 "unknown_route"
        assert_equal [dict get $f routes4] [dict get $f0 routes4] "routes4"
        assert_equal [dict get $f resets] 0 "resets: [dict get $f last_error]"
    }

    test {a route's delete and add in one frame replace it: its FIB value and next hop change, no unknown_route} {
        set f0 [vbrctl show fpm]
        set v0 [dict get [vbrctl show fib 10.2.0.1] value]
        set r [fpm_fake --hold-ms 300 {*}$replay "delroute:10.2.0.0/24+route:10.2.0.0/24:2"]
        assert_equal [dict get $r closed_by_peer] false "vbrd closed the connection: [vbrctl show fpm]"
        set f [vbrctl show fpm]
        set fib [vbrctl show fib 10.2.0.1]
        assert_true {[dict get $fib value] != $v0} "FIB value of 10.2.0.1: $v0 before, [dict get $fib value] after"
        assert_equal [row_nexthop $fib] {172.16.1.3 line1} "show fib 10.2.0.1"
        assert_equal [row_nexthop [route_row 10.2.0.0/24]] {172.16.1.3 line1} "show routes"
        assert_equal [dict get $f unknown_route] [dict get $f0 unknown_route] "unknown_route"
        # the delete was read (a route_del message) and folded into the
        # add's replace: no delete applied
        assert_equal [expr {[dict get $f messages route_del] - [dict get $f0 messages route_del]}] 1 \
            "route_del messages"
        assert_equal [expr {[dict get $f route_dels] - [dict get $f0 route_dels]}] 0 "route_dels applied"
        assert_morethan [expr {[dict get $f replaces] - [dict get $f0 replaces]}] 0 "replaces"
        assert_equal [dict get $f routes4] 2
        assert_equal [dict get $f resets] 0 "resets: [dict get $f last_error]"
        ping_via 10.2.0.1 5
    }

    test {a new connection's replay: a route not sent again is swept once the connection is quiet, also when its next-hop object is sent again} {
        # now: 10.2.0.0/24 through next hop 2, 10.2.2.0/24 through 1; the
        # new connection sends both next hops and 10.2.0.0/24 only, and
        # stays open (the sweep is for a connection quiet for stale_ms)
        set f0 [vbrctl show fpm]
        assert_equal [row_nexthop [route_row 10.2.2.0/24 bgp]] {172.16.1.2 line1} "10.2.2.0/24 before"
        set pid [lab_spawn cp python3 $fpm_fake --hold-ms 20000 \
                     nh:1:$ifx:172.16.1.2 nh:2:$ifx:172.16.1.3 route:10.2.0.0/24:2]
        wait_for_condition 200 50 {
            [dict get [set f [vbrctl show fpm]] connections] > [dict get $f0 connections]
            && ![dict get $f replaying]
        } else {
            lab_kill $pid
            fail "no sweep 10 s after the fake's replay: $f"
        }
        lab_kill $pid
        lab_wait_exit $pid 5000
        assert_equal [expr {[dict get $f swept_routes] - [dict get $f0 swept_routes]}] 1 "routes swept: $f"
        assert_equal [route_rows 10.2.2.0/24] {} "10.2.2.0/24 in vbrd's routes"
        assert_equal [row_nexthop [route_row 10.2.0.0/24 bgp]] {172.16.1.3 line1} "10.2.0.0/24"
        assert_equal [dict get $f routes4] 1 "routes4"
        ping_via 10.2.0.1 3
        assert_no_route 10.2.2.1 3
    }

    test {malformed frames: each resets the connection, last_error says why; vbrd keeps forwarding and keeps the routes} {
        set f0 [vbrctl show fpm]
        set v0 [dict get [vbrctl show fib 10.2.0.1] value]
        assert_morethan [dict get $f0 routes4] 0 "routes from the fake to keep"
        set n 0
        foreach {bad why} {
            version  {*FPM version 2*}
            len3     {*length 3*}
            nlhdr    {*8 bytes*netlink header*}
            overrun  {*RTM_NEWROUTE*overruns*}
            plen33   {*RTM_NEWROUTE*prefix length 33*}
        } {
            incr n
            set r [fpm_fake --hold-ms 5000 bad:$bad]
            assert_equal [dict get $r closed_by_peer] true "bad:$bad: vbrd did not close the connection: $r"
            set f [vbrctl show fpm]
            assert_equal [dict get $f resets] [expr {[dict get $f0 resets] + $n}] "resets after bad:$bad"
            assert_match $why [dict get $f last_error] "last_error after bad:$bad"
            note "bad:$bad -> [dict get $f last_error]"
            assert_equal [dict get $f routes4] [dict get $f0 routes4] "routes4 after bad:$bad"
            assert_equal [dict get [vbrctl show fib 10.2.0.1] value] $v0 "10.2.0.1's FIB value after bad:$bad"
            ping_via 10.2.0.1 3
        }
        assert_equal [dict get $f frames] [dict get $f0 frames] "frames applied"
        assert_equal [dict get $f state] listening
        assert_equal [row_nexthop [route_row 10.2.0.0/24 bgp]] {172.16.1.3 line1} "10.2.0.0/24"
    }
}
