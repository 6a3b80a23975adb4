# The BGP harness on its own, no vbrd: "vbrd's FRR" (zebra with the FPM
# module, bgpd, bfdd) between two "IDC routers", BIRD 2 and FRR, with
# zebra's FPM connection going to tools/fpm_sink.py.
#
#            fpm_sink.py 127.0.0.1:2620
#                 ^ FPM (TCP)
#   bd (BIRD, AS 65002)                fr (FRR, AS 65001)           fx (FRR, AS 65003)
#   eth0 10.0.1.2  ====== veth ======  eth0 10.0.1.1
#        fd00:1::2                          fd00:1::1
#                                      eth1 10.0.2.1 ==== veth ==== eth0 10.0.2.2
#
# Sessions: fr-bd over IPv4 (ipv4 unicast) and over IPv6 (ipv6 unicast),
# fr-fx over IPv4 with BFD. fr's bgpd listens on its three addresses only.

source [file join [file dirname [info script]] harness frr.tcl]
source [file join [file dirname [info script]] harness bird.tcl]

lab_netns fr
lab_netns bd
lab_netns fx
lab_wire fr eth0 bd eth0 -ipv6 1
lab_wire fr eth1 fx eth0
lab_exec fr ip addr add 10.0.1.1/24 dev eth0
lab_exec fr ip addr add fd00:1::1/64 dev eth0 nodad
lab_exec fr ip addr add 10.0.2.1/24 dev eth1
lab_exec bd ip addr add 10.0.1.2/24 dev eth0
lab_exec bd ip addr add fd00:1::2/64 dev eth0 nodad
lab_exec fx ip addr add 10.0.2.2/24 dev eth0

set bird_v4 {10.11.1.0/24 10.11.2.0/24 10.11.3.0/24}
set bird_v6 {2001:db8:11:1::/64 2001:db8:11:2::/64}

# The FPM server first: zebra connects to it 3 s after reading its config.
set sink [fpm_sink_start fr -listen 127.0.0.1:2620]

frr_start fr [frr_bgp_conf 65001 10.0.1.1 -neighbors {
    {10.0.1.2 65002}
    {fd00:1::2 65002}
    {10.0.2.2 65003 bfd 1}
}] -daemons {zebra bgpd bfdd} -fpm 127.0.0.1:2620 -nhg off \
    -listen {10.0.1.1 fd00:1::1 10.0.2.1}
frr_start fx [frr_bgp_conf 65003 10.0.2.2 -neighbors {
    {10.0.2.1 65001 bfd 1}
} -networks {10.33.1.0/24 10.33.2.0/24}] -daemons {zebra bgpd bfdd}
bird_start bd [bird_conf 65002 10.0.1.2 -neighbors {
    {frr4 10.0.1.1 65001 local 10.0.1.2}
    {frr6 fd00:1::1 65001 local fd00:1::2}
} -routes [concat $bird_v4 $bird_v6]]

# Prefixes of zebra's routes in HOST of FAMILY whose protocol is bgp and
# that are in the FIB.
proc zebra_bgp {host family} {
    set out {}
    dict for {p r} [frr_zebra_routes $host -family $family -protocol bgp] {
        if {[dict get $r installed]} { lappend out $p }
    }
    return [lsort $out]
}

test {bgpd listens on port 179 of the addresses it was given only} {
    set out [lab_exec fr ss -Htln sport = :179]
    set bound {}
    foreach line [split $out "\n"] {
        lappend bound [lindex [regexp -all -inline {\S+} $line] 3]
    }
    assert_equal [lsort $bound] [lsort {10.0.1.1:179 10.0.2.1:179 [fd00:1::1]:179}] \
        "listening sockets: $out"
}

test {FRR <-> BIRD: eBGP over IPv4 and over IPv6 come Established at both ends} {
    # BIRD's first attempt waits 1 s (connect delay), FRR retries every
    # 1 s: a few seconds when quiet; 60 s for a loaded machine.
    set ms [frr_bgp_wait_state fr 10.0.1.2 Established 60000]
    frr_bgp_wait_state fr fd00:1::2 Established 60000
    bird_wait_state bd frr4 Established 10000
    bird_wait_state bd frr6 Established 10000
    note "IPv4 session Established (fr's view) after $ms ms of waiting"
}

test {FRR <-> FRR: eBGP Established with BFD up on both sides} {
    frr_bgp_wait_state fr 10.0.2.2 Established 60000
    frr_bgp_wait_state fx 10.0.2.1 Established 10000
    frr_bfd_wait_state fr 10.0.2.2 up 30000
    frr_bfd_wait_state fx 10.0.2.1 up 30000
}

test {BIRD's 3 IPv4 and 2 IPv6 prefixes are in FRR's zebra, protocol bgp, installed} {
    wait_for_condition 150 100 {[lsearch -all -inline [zebra_bgp fr ipv4] 10.11.*] eq $bird_v4} else {
        fail "zebra's IPv4 bgp routes: [zebra_bgp fr ipv4], want $bird_v4"
    }
    wait_for_condition 150 100 {[zebra_bgp fr ipv6] eq [lsort $bird_v6]} else {
        fail "zebra's IPv6 bgp routes: [zebra_bgp fr ipv6], want $bird_v6"
    }
    set r [dict get [frr_zebra_routes fr] 10.11.1.0/24]
    assert_equal [dict get $r nexthops] {10.0.1.2%eth0} "next hop of 10.11.1.0/24"
    # and so in the namespace's kernel table
    assert_match "*10.11.1.0/24*via 10.0.1.2 dev eth0 proto bgp*" [lab_exec fr ip route]
    assert_equal [frr_bgp_routes fr -family ipv6] [lsort $bird_v6] "bgpd's IPv6 table"
}

test {a prefix BIRD withdraws leaves FRR's zebra} {
    wait_for_condition 150 100 {"10.11.3.0/24" in [zebra_bgp fr ipv4]} else {
        fail "10.11.3.0/24 never came"
    }
    set t0 [clock milliseconds]
    bird_withdraw bd 10.11.3.0/24
    wait_for_condition 300 20 {"10.11.3.0/24" ni [zebra_bgp fr ipv4]} else {
        fail "10.11.3.0/24 still in zebra 30 s after BIRD withdrew it"
    }
    set ms [expr {[clock milliseconds] - $t0}]
    assert_not_stuck $ms 2000 30000 "withdrawn in BIRD to gone from zebra (polled)"
    assert_equal [lsearch -all -inline [zebra_bgp fr ipv4] 10.11.*] {10.11.1.0/24 10.11.2.0/24}
    assert_true {"10.11.3.0/24" ni [frr_bgp_routes fr]} "gone from bgpd's table too"
}

test {FRR announces an IPv4 and an IPv6 prefix (network statements): BIRD learns them} {
    frr_bgp_announce fr {10.44.1.0/24 2001:db8:44::/48}
    wait_for_condition 150 100 {"10.44.1.0/24" in [bird_routes bd]} else {
        fail "BIRD's IPv4 BGP routes: [bird_routes bd]"
    }
    wait_for_condition 150 100 {"2001:db8:44::/48" in [bird_routes bd -family ipv6]} else {
        fail "BIRD's IPv6 BGP routes: [bird_routes bd -family ipv6]"
    }
    # fr passes fx's prefixes on, and BIRD's own to fx
    set want [lsort {10.44.1.0/24 10.33.1.0/24 10.33.2.0/24}]
    wait_for_condition 150 100 {[bird_routes bd -protocol frr4] eq $want} else {
        fail "BIRD's frr4 session brought [bird_routes bd -protocol frr4], want $want"
    }
    wait_for_condition 150 100 {
        [lsearch -all -inline [zebra_bgp fx ipv4] 10.11.*] eq {10.11.1.0/24 10.11.2.0/24}
    } else {
        fail "fx's bgp routes (BIRD's, through fr): [zebra_bgp fx ipv4]"
    }
    frr_bgp_withdraw fr {10.44.1.0/24}
    wait_for_condition 150 100 {"10.44.1.0/24" ni [bird_routes bd]} else {
        fail "10.44.1.0/24 still in BIRD after FRR's withdrawal"
    }
}

test {zebra's FPM gets RTM_NEWROUTE, proto bgp, gateway on it (-nhg off), for a prefix learned by BGP} {
    set m [fpm_sink_wait $sink RTM_NEWROUTE 10.33.1.0/24 30000]
    assert_equal [dict get $m proto] 186 "rtm_protocol (RTPROT_BGP)"
    assert_equal [dict get $m family] ipv4
    assert_equal [dict get $m gw] 10.0.2.2
    assert_true {![dict exists $m nh_id]} "no next-hop object id: $m"
    assert_equal [fpm_sink_messages $sink -type RTM_NEWNEXTHOP] {} "no next-hop objects"
    set conn [fpm_sink_messages $sink -type connect]
    assert_equal [llength $conn] 1 "one connection: $conn"
    # BIRD's prefixes too, the IPv6 ones with a link-local gateway
    fpm_sink_wait $sink RTM_NEWROUTE 10.11.1.0/24 10000
    set m6 [fpm_sink_wait $sink RTM_NEWROUTE 2001:db8:11:1::/64 10000]
    assert_match fe80::* [dict get $m6 gw] "IPv6 next hop: $m6"
}

test {a withdrawal reaches the FPM as RTM_DELROUTE} {
    frr_bgp_withdraw fx 10.33.2.0/24
    set m [fpm_sink_wait $sink RTM_DELROUTE 10.33.2.0/24 30000]
    assert_equal [dict get $m proto] 186
}

test {fpm use-next-hop-groups: zebra reconnects and sends RTM_NEWNEXTHOP objects, routes by nh_id} {
    set before [llength [fpm_sink_messages $sink -type connect]]
    frr_vtysh fr "configure terminal" "fpm use-next-hop-groups"
    # FRR 8.4 closes the connection and connects again 3 s later
    wait_for_condition 150 100 {[llength [fpm_sink_messages $sink -type connect]] > $before} else {
        fail "zebra did not reconnect"
    }
    set conn [lindex [fpm_sink_messages $sink -type connect] end]
    wait_for_condition 150 100 {
        [llength [fpm_sink_messages $sink -type RTM_NEWROUTE -dst 10.33.1.0/24]] >= 2
    } else {
        fail "no second RTM_NEWROUTE for 10.33.1.0/24"
    }
    set m [lindex [fpm_sink_messages $sink -type RTM_NEWROUTE -dst 10.33.1.0/24] end]
    assert_true {[dict exists $m nh_id] && ![dict exists $m gw]} "route by next-hop id: $m"
    set nh {}
    foreach n [fpm_sink_messages $sink -type RTM_NEWNEXTHOP] {
        if {[dict get $n id] == [dict get $m nh_id]} { set nh $n }
    }
    assert_true {$nh ne ""} "an RTM_NEWNEXTHOP with id [dict get $m nh_id]"
    assert_equal [dict get $nh gw] 10.0.2.2
    assert_true {[dict get $nh ms] >= [dict get $conn ms]} "sent after the new connection"
}

test {10 000 prefixes announced through vtysh -f reach the other bgpd, its zebra and the FPM} {
    set n 10000
    set prefixes {}
    for {set i 0} {$i < $n} {incr i} {
        lappend prefixes 10.[expr {100 + $i / 256}].[expr {$i % 256}].0/24
    }
    set t0 [clock milliseconds]
    frr_bgp_announce fx $prefixes
    set t_conf [expr {[clock milliseconds] - $t0}]
    wait_for_condition 300 100 {[llength [frr_bgp_routes fx]] >= $n + 3} else {
        fail "fx's bgpd has [llength [frr_bgp_routes fx]] routes"
    }
    wait_for_condition 300 100 {[llength [frr_bgp_routes fr]] >= $n + 3} else {
        fail "fr's bgpd has [llength [frr_bgp_routes fr]] routes"
    }
    set t_bgp [expr {[clock milliseconds] - $t0}]
    wait_for_condition 300 100 {[llength [zebra_bgp fr ipv4]] >= $n + 3} else {
        fail "fr's zebra has [llength [zebra_bgp fr ipv4]] bgp routes"
    }
    set got {}
    wait_for_condition 300 100 {
        [llength [set got [lsearch -all -inline [fpm_sink_prefixes $sink] 10.1??.*]]] >= $n
    } else {
        fail "the FPM got [llength $got] of the $n prefixes"
    }
    assert_equal $got [lsort $prefixes] "the prefixes the FPM got"
    note "$n prefixes: vtysh -f took $t_conf ms, in fr's bgpd after $t_bgp ms, at the FPM after [expr {[clock milliseconds] - $t0}] ms"
}

test {frr_stop and bird_stop end every daemon and leave no /var/tmp/frr directory} {
    set pids {}
    foreach h {fr fx} {
        dict for {d pid} [dict get $::frr::inst($h) pid] { lappend pids $d.$pid }
    }
    lappend pids bird.[dict get $::bird::inst(bd) pid]
    # zebra before its FPM server (see frr_stop)
    foreach h {fx fr} { frr_stop $h }
    fpm_sink_stop $sink
    bird_stop bd
    foreach dp $pids {
        lassign [split $dp .] d pid
        assert_true {![file exists /proc/$pid]} "$d ($pid) has exited"
        assert_true {![file exists /var/tmp/frr/$dp]} "/var/tmp/frr/$dp is gone"
    }
    foreach h {fr fx bd} {
        assert_equal [lab_exec - ip netns pids [lab_ns $h]] "" "processes left in $h"
    }
}
