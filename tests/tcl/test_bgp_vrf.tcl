# eBGP per VRF with FRR: one FRR instance (zebra with FPM, bgpd) per VRF,
# each in the VRF's own namespace (vrfs[].netns), each with its own FPM
# connection to vbrd. This kernel has no VRF devices: FRR 8.4 does per-VRF
# BGP here only as one instance per namespace, whose routes all say table
# 254; vbrd knows their VRF by the listener (the namespace) they came on.
#
#                 [vbrd] trunk ══ sw eth0 (tools/vlan_bridge.py)
#   VRF vpc-a (table 100, netns va: TAPs vb-lan-a, vb-line-a; FRR AS 65000)
#     lan-a  VLAN 101 10.1.0.1/24   ── sw v101 ── ha eth0 10.1.0.2/24
#     line-a VLAN 100 172.16.0.1/29 ── sw v100 ── ra eth0 172.16.0.2/29
#                                       [ra: FRR AS 65001] 198.51.100.0/24, 10.2.0.0/24
#   VRF vpc-b (table 200, netns vb: TAPs vb-lan-b, vb-line-b; FRR AS 65000)
#     lan-b  VLAN 201 10.1.0.1/24   ── sw v201 ── hb eth0 10.1.0.2/24
#     line-b VLAN 200 172.16.0.1/29 ── sw v200 ── rb eth0 172.16.0.3/29
#                                       [rb: FRR AS 65002] 198.51.100.0/24, 10.3.0.0/24
#
# The VRFs overlap: the same LAN, the same line subnet and vbrd address,
# and both peers announce 198.51.100.0/24 (each has 198.51.100.1 on lo).
# Each VRF must hold its own peer's routes, with its own next hop, and
# not the other's. The kernel here has no 802.1Q devices: sw plays the
# switch between the tagged trunk and the untagged hosts.

source [file join [file dirname [info script]] harness frr.tcl]

set vlan_bridge [file join [file dirname [file normalize [info script]]] tools vlan_bridge.py]
set bgp_timers {10 30}

# --- the lab ---

lab_host sw "" ""
foreach {h vlan} {ha 101 ra 100 hb 201 rb 200} {
    lab_netns $h
    lab_wire sw v$vlan $h eth0
}
foreach h {ha hb} {
    lab_exec $h ip addr add 10.1.0.2/24 dev eth0
    lab_exec $h ip route add default via 10.1.0.1
}
foreach {h addr own} {ra 172.16.0.2 10.2.0.1 rb 172.16.0.3 10.3.0.1} {
    lab_exec $h ip addr add $addr/29 dev eth0
    lab_exec $h ip addr add $own/32 dev lo
    lab_exec $h ip addr add 198.51.100.1/32 dev lo
}
set bridge [lab_spawn sw {*}[expr {[exec nproc] > 1 ? {taskset -c 0} : {}}] \
                python3 -u $vlan_bridge eth0 100:v100 101:v101 200:v200 201:v201]
wait_for_condition 100 50 {[string match "ready*" [lab_spawn_output $bridge]]} else {
    fail "vlan_bridge.py did not start: [lab_spawn_output $bridge]"
}

# the control namespace (the VRF default's, unused here) and one a VRF
set cpns [lab_netns cp]
set vans [lab_netns va]
set vbns [lab_netns vb]
foreach h {cp va vb} {
    lab_exec $h sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0
}

# the IDC routers: each the same prefix, and one of its own
frr_start ra [frr_bgp_conf 65001 172.16.0.2 -neighbors {{172.16.0.1 65000}} \
    -networks {198.51.100.0/24 10.2.0.0/24} -timers $bgp_timers] -daemons {zebra bgpd}
frr_start rb [frr_bgp_conf 65002 172.16.0.3 -neighbors {{172.16.0.1 65000}} \
    -networks {198.51.100.0/24 10.3.0.0/24} -timers $bgp_timers] -daemons {zebra bgpd}

# --- helpers ---

# VRF's row for PREFIX in `show routes vrf VRF`, "" when none.
proc vrf_route {vrf prefix} {
    foreach r [dict get [vbrctl show routes vrf $vrf] routes] {
        if {[dict get $r prefix] eq $prefix} { return $r }
    }
    return ""
}

# {VIA INTERFACE} of a row's only next hop.
proc only_nexthop {row} {
    set nhs [dict get $row next_hops]
    assert_equal [llength $nhs] 1 "one next hop: $row"
    return [list [dict get [lindex $nhs 0] via] [dict get [lindex $nhs 0] interface]]
}

# Ping DEST from HOST 10 times; return the growth of vbrd's tx_packets on
# line-a and line-b meanwhile; every request must get its reply.
proc ping_lines {host dest} {
    set a [iface_stat line-a tx_packets]
    set b [iface_stat line-b tx_packets]
    lassign [ping_from $host $dest -c 10 -i 0.05 -w 20] rc out
    set missing [ping_missing $out 10]
    if {$missing ne ""} {
        fail "ping $dest from $host: no reply to icmp_seq $missing;\
              [frr_bgp_neighbor_state va 172.16.0.2], [frr_bgp_neighbor_state vb 172.16.0.3]\n$out"
    }
    return [list [expr {[iface_stat line-a tx_packets] - $a}] \
                 [expr {[iface_stat line-b tx_packets] - $b}]]
}

# The session of `show fpm` for VRF ("" the control namespace's).
proc fpm_session {vrf} {
    foreach s [dict get [vbrctl show fpm] sessions] {
        if {[dict get $s vrf] eq $vrf} { return $s }
    }
    return ""
}

# vbrd's config; VBNETNS: vpc-b's netns setting ("" none)
proc conf {vbnetns} {
    return [subst {
ports = ( { name = "trunk"; devargs = "net_af_packet0,iface=@sw@"; } );
vrfs = (
  { name = "vpc-a"; table = 100; netns = "$::vans"; },
  { name = "vpc-b"; table = 200; $vbnetns }
);
interfaces = (
  { name = "lan-a";  port = "trunk"; vlan = 101; vrf = "vpc-a"; address = "10.1.0.1/24"; },
  { name = "line-a"; port = "trunk"; vlan = 100; vrf = "vpc-a"; address = "172.16.0.1/29"; },
  { name = "lan-b";  port = "trunk"; vlan = 201; vrf = "vpc-b"; address = "10.1.0.1/24"; },
  { name = "line-b"; port = "trunk"; vlan = 200; vrf = "vpc-b"; address = "172.16.0.1/29"; }
);
cplane = { netns = "$::cpns"; };
fpm = { };
}]
}

start_vbrd [list conf [conf "netns = \"$vbns\";"]] {
    # each VRF's FRR, in its namespace, to vbrd's FPM listener there
    foreach {h peer as} {va 172.16.0.2 65001 vb 172.16.0.3 65002} {
        frr_start $h [frr_bgp_conf 65000 172.16.0.1 -neighbors [list [list $peer $as]] \
            -networks {10.1.0.0/24} -timers $bgp_timers] -daemons {zebra bgpd} \
            -fpm 127.0.0.1:2620
    }

    test {each VRF's TAPs are in its own namespace, with the same addresses} {
        set cp [vbrctl show cplane]
        foreach t [dict get $cp taps] {
            set want [expr {[string match *-a [dict get $t interface]] ? $vans : $vbns}]
            assert_equal [dict get $t netns] $want "namespace of [dict get $t tap]"
            assert_equal [dict get $t error] "" "TAP of [dict get $t interface]"
        }
        foreach ns {va vb} {
            set links [lab_exec $ns ip -br addr]
            assert_match "*172.16.0.1/29*" $links "the line's address in $ns: $links"
        }
        assert_equal [lab_exec cp ip -br link show type tun] "" "no TAP in the control namespace"
    }

    test {sessions Established, each VRF's FRR with its own peer} {
        set ms [frr_bgp_wait_state va 172.16.0.2 Established 60000]
        frr_bgp_wait_state vb 172.16.0.3 Established 60000
        frr_bgp_wait_state ra 172.16.0.1 Established 10000
        frr_bgp_wait_state rb 172.16.0.1 Established 10000
        note "vpc-a's session Established after $ms ms of waiting"
    }

    test {each VRF holds its own peer's prefixes, the shared one through its own next hop, not the other's} {
        foreach {vrf own other nh} {
            vpc-a 10.2.0.0/24 10.3.0.0/24 {172.16.0.2 line-a}
            vpc-b 10.3.0.0/24 10.2.0.0/24 {172.16.0.3 line-b}
        } {
            foreach p [list 198.51.100.0/24 $own] {
                wait_for_condition 300 100 {[vrf_route $vrf $p] ne ""} else {
                    fail "$p not in $vrf's routes: [vbrctl show fpm]"
                }
                set r [vrf_route $vrf $p]
                assert_equal [dict get $r source] bgp "$vrf $p's source"
                assert_equal [dict get $r vrf] $vrf "$vrf $p's vrf"
                assert_equal [only_nexthop $r] $nh "$vrf $p"
            }
            assert_equal [vrf_route $vrf $other] "" "$other in $vrf"
            set f [vbrctl show fib vrf $vrf 198.51.100.1]
            assert_equal [dict get $f prefix] 198.51.100.0/24 "show fib vrf $vrf: $f"
            assert_equal [only_nexthop $f] $nh "show fib vrf $vrf 198.51.100.1"
            set o [vbrctl show fib vrf $vrf [string map {.0/24 .1} $other]]
            assert_equal [dict get $o prefix] "" "show fib vrf $vrf for the other VRF's prefix: $o"
        }
        # nothing of theirs in the VRF default
        foreach p {198.51.100.0/24 10.2.0.0/24 10.3.0.0/24} {
            assert_equal [vrf_route default $p] "" "$p in the VRF default"
        }
    }

    test {show fpm: one session a VRF, connected in its namespace, its routes; the control namespace's listening} {
        foreach {vrf ns} [list vpc-a $vans vpc-b $vbns] {
            set s [fpm_session $vrf]
            assert_equal [dict get $s netns] $ns "$vrf's session: $s"
            assert_equal [dict get $s state] connected "$vrf's session: $s"
            assert_equal [dict get $s peer] 127.0.0.1
            assert_equal [dict get $s routes4] 2 "$vrf's routes (198.51.100.0/24 and its own): $s"
            assert_equal [dict get $s resets] 0 "$vrf's resets: [dict get $s last_error]"
            assert_equal [dict get $s other_table] 0
        }
        # zebra's next-hop objects are per connection: each VRF's through
        # its own peer (the two zebras number theirs alike: ids collide)
        set ids {}
        foreach n [dict get [vbrctl show fpm nexthops] nexthops] {
            # those BGP routes use (zebra sends its connected ones' too)
            if {[dict get $n routes] == 0} { continue }
            set want [dict get {vpc-a {172.16.0.2 line-a} vpc-b {172.16.0.3 line-b}} [dict get $n vrf]]
            assert_equal [list [dict get $n via] [dict get $n interface]] $want "next-hop object $n"
            dict lappend ids [dict get $n vrf] [dict get $n id]
        }
        assert_equal [lsort [dict keys $ids]] {vpc-a vpc-b} "next-hop objects: $ids"
        note "zebra's next-hop ids: $ids"
        set c [fpm_session ""]
        assert_equal [dict get $c state] listening "the control namespace's: $c"
        assert_equal [dict get $c netns] $cpns
        set f [vbrctl show fpm]
        assert_equal [dict get $f routes4] 4 "all routes: $f"
        assert_equal [dict get $f fib_errors] 0
        set v [dict get [vbrctl show vrfs] vrfs]
        foreach row $v {
            if {[dict get $row name] in {vpc-a vpc-b}} {
                assert_equal [dict get $row frr4] 2 "show vrfs: $row"
            }
        }
    }

    test {a packet per VRF: ha's to 198.51.100.1 leaves by line-a to ra, hb's by line-b to rb} {
        lassign [ping_lines ha 198.51.100.1] a b
        assert_morethan $a 9 "line-a tx_packets growth (10 echo requests from ha)"
        assert_lessthan $b 10 "line-b tx_packets growth while ha pings"
        lassign [ping_lines hb 198.51.100.1] a b
        assert_morethan $b 9 "line-b tx_packets growth (10 echo requests from hb)"
        assert_lessthan $a 10 "line-a tx_packets growth while hb pings"
        # each reaches its own peer's own prefix
        ping_lines ha 10.2.0.1
        ping_lines hb 10.3.0.1
    }

    test {a withdrawal in vpc-a leaves vpc-b's same prefix in place} {
        frr_bgp_withdraw ra 198.51.100.0/24
        wait_for_condition 500 20 {[vrf_route vpc-a 198.51.100.0/24] eq ""} else {
            fail "198.51.100.0/24 still in vpc-a 10 s after its withdrawal"
        }
        assert_equal [dict get [vbrctl show fib vrf vpc-a 198.51.100.1] prefix] "" \
            "show fib vrf vpc-a 198.51.100.1"
        assert_equal [only_nexthop [vrf_route vpc-b 198.51.100.0/24]] {172.16.0.3 line-b}
        assert_true {[vrf_route vpc-a 10.2.0.0/24] ne ""} "vpc-a's own prefix stays"
        ping_lines hb 198.51.100.1
        frr_bgp_announce ra 198.51.100.0/24
        wait_for_condition 500 20 {[vrf_route vpc-a 198.51.100.0/24] ne ""} else {
            fail "198.51.100.0/24 not back in vpc-a 10 s after it was announced again"
        }
        assert_equal [only_nexthop [vrf_route vpc-a 198.51.100.0/24]] {172.16.0.2 line-a}
    }

    test {a reload takes vpc-b's namespace away: its listener closes, its routes go, vpc-a's stay; given back, they return} {
        vbrd_reload [conf ""]
        wait_for_condition 100 50 {[fpm_session vpc-b] eq ""} else {
            fail "vpc-b's FPM session still there: [fpm_session vpc-b]"
        }
        assert_equal [lab_exec vb ss -Htln sport = :2620] "" "a listener on port 2620 in vb"
        wait_for_condition 100 50 {[vrf_route vpc-b 198.51.100.0/24] eq ""} else {
            fail "vpc-b's 198.51.100.0/24 stayed after its namespace went"
        }
        assert_equal [vrf_route vpc-b 10.3.0.0/24] "" "vpc-b's 10.3.0.0/24"
        # vpc-b's TAPs are in the control namespace now
        assert_match "*vb-line-b*" [lab_exec cp ip -br link] "vb-line-b in cp"
        assert_equal [only_nexthop [vrf_route vpc-a 198.51.100.0/24]] {172.16.0.2 line-a}
        set t0 [clock milliseconds]
        vbrd_reload [conf "netns = \"$::vbns\";"]
        wait_for_condition 300 100 {[vrf_route vpc-b 10.3.0.0/24] ne ""
                                    && [vrf_route vpc-b 198.51.100.0/24] ne ""} else {
            fail "vpc-b's routes not back 30 s after its namespace was: [fpm_session vpc-b];\
                  [frr_bgp_neighbor_state vb 172.16.0.3]"
        }
        note "vpc-b's routes back [expr {[clock milliseconds] - $t0}] ms after the reload"
        assert_equal [only_nexthop [vrf_route vpc-b 198.51.100.0/24]] {172.16.0.3 line-b}
        ping_lines hb 198.51.100.1
    }

    test {a second client on a VRF's listener is refused, the session stays} {
        set r0 [dict get [fpm_session vpc-a] refused]
        catch {lab_exec va python3 -c "import socket; s = socket.create_connection(('127.0.0.1', 2620)); s.recv(1)"}
        wait_for_condition 100 50 {[dict get [fpm_session vpc-a] refused] > $r0} else {
            fail "not refused: [fpm_session vpc-a]"
        }
        assert_equal [dict get [fpm_session vpc-a] state] connected
        assert_morethan [dict get [fpm_session vpc-a] routes4] 1
    }
}

test {vbrd stopped: no TAP and no FPM listener left in the VRFs' namespaces} {
    foreach ns {va vb} {
        assert_equal [lab_exec $ns ip -br link show type tun] "" "TAPs left in $ns"
        assert_equal [lab_exec $ns ss -Htln sport = :2620] "" "a listener on port 2620 in $ns"
    }
}
