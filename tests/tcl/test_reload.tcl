# Reload is hitless: a route moved from one next hop to another while a
# 100-per-second ping runs through it loses no echo.
#
#   h1 ── lan1 [vbrd] lan2 ── h2 (10.40.0.1 on lo)
#                     lan3 ── h3 (10.40.0.1 on lo)

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1
lab_host h3 10.0.3.2/24 10.0.3.1
lab_exec h2 ip addr add 10.40.0.1/32 dev lo
lab_exec h3 ip addr add 10.40.0.1/32 dev lo

set conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; },
  { name = "p3"; devargs = "net_af_packet2,iface=@h3@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; },
  { name = "lan3"; port = "p3"; address = "10.0.3.1/24"; }
);
routes = (
  { prefix = "10.40.0.0/24"; via = "@NEXTHOP@"; }
);
}

proc rx {host} { return [dict get [lab_link_stats $host] rx_packets] }

start_vbrd [list conf [string map {@NEXTHOP@ 10.0.2.2} $conf]] {
    test {10.40.0.1 is reached via h2} {
        assert_ping h1 10.0.2.2 2
        assert_ping h1 10.0.3.2 2
        set h2 [rx h2]
        assert_ping h1 10.40.0.1 5
        assert_range [expr {[rx h2] - $h2}] 5 8 "packets h2 received"
    }

    test {reload moves 10.40.0.0/24 to h3 without losing a ping} {
        set gen [dict get [vbrctl show config] generation]
        # 300 echoes 10 ms apart: 3 s of traffic (more with ping's
        # overhead), of which the reload and the checks after it need ~1.5
        set ping [lab_spawn h1 ping -n -i 0.01 -c 300 -W 1 -w 30 10.40.0.1]
        set h2 [rx h2]
        wait_for_condition 50 100 {[rx h2] - $h2 >= 50} else {
            fail "the ping does not reach h2:\n[lab_spawn_output $ping]"
        }

        vbrd_rewrite_config [string map {@NEXTHOP@ 10.0.3.2} $conf]
        set h3 [rx h3]
        assert_equal [dict get [vbrctl reload] generation] [expr {$gen + 1}]

        wait_for_condition 50 100 {[rx h3] - $h3 >= 50} else {
            fail "after the reload the ping does not reach h3"
        }
        # Now h3 receives the echoes and h2 none (an ARP refresh at most).
        set h2 [rx h2]
        set h3 [rx h3]
        wait_for_condition 50 100 {[rx h3] - $h3 >= 50} else {
            fail "the ping stopped reaching h3"
        }
        assert_lessthan [expr {[rx h2] - $h2}] 3 "packets h2 received while h3 got 50"

        if {![lab_wait_exit $ping 30000]} {
            fail "ping did not finish"
        }
        set st [ping_stats [lab_spawn_output $ping]]
        note "ping: [dict get $st transmitted] sent, [dict get $st received] received"
        assert_equal [dict get $st transmitted] 300
        assert_equal [dict get $st received] [dict get $st transmitted] "echo replies"
    }
}
