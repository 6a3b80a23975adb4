# The HA pair with a virtual MAC (service.mac, failover/ha/ha_config.h): the
# active answers ARP and ND for the service address with the virtual MAC
# and takes the frames sent to it, so h1's entry for 10.10.0.1 never
# changes; a takeover moves the virtual MAC in the LAN bridge only (its
# gratuitous ARP's source), as VRRP's virtual router MAC does.
#
# The kill -9 outage is noted next to its goal of 300 ms, as in
# test_ha.tcl (lease 100 ms; the bridge learns the new port from the first
# announcement), and fails only past 3 s (assert_not_stuck).

source [file join [file dirname [file normalize [info script]]] harness ha_lab.tcl]

set vmac 02:00:5e:00:01:0a

proc wan_frames {node} {
    return [dict get [lab_link_stats wan $node] rx_packets]
}

start_ha_lab [list vmac $vmac] {
    test {with a virtual MAC, the active answers ARP and NS with it and forwards what is sent to it} {
        lassign [ha_pair_up] act sby
        set sa [ha_show $act]
        assert_equal [string tolower [dict get $sa service mac]] $::vmac "show ha: service mac"
        set w [ha_arpwatch_start 1 -ipv6 1]
        set arp [ha_arpwatch_result $w]
        foreach p {arp nd} {
            assert_equal [dict keys [dict get $arp $p macs]] [list $::vmac] "$p: the MACs answering for the service address"
            assert_morethan [dict get $arp $p answered] [expr {0.9 * [dict get $arp $p periods]}] "$p: periods answered"
        }
        set f0 [wan_frames $act]
        set hf0 [ha_on $act {drops arp_hold_full}]
        set h [ha_stream_start 2000 1 5110]
        set rep [ha_stream_result $h]
        set fa [expr {[wan_frames $act] - $f0}]
        set hf [expr {[ha_on $act {drops arp_hold_full}] - $hf0}]
        note "stream through the virtual MAC: [dict get $rep received] of [dict get $rep sent] received, $act forwarded $fa on wan"
        assert_equal [dict get [ha_host_arp] mac] $::vmac "h1's ARP entry for the service address"
        assert_morethan $fa [expr {[dict get $rep received] - 1}] "frames $act forwarded to h2 (all h2 received)"
        # as in test_ha.tcl: what is lost while the active resolves h2 is
        # dropped as arp_hold_full; fewer than 10 otherwise
        note "datagrams lost: [dict get $rep lost], $act's arp_hold_full drops meanwhile: $hf"
        assert_lessthan [expr {[dict get $rep lost] - $hf}] 10 "datagrams lost but not dropped as arp_hold_full"
        assert_lessthan [dict get $rep lost] 200 "datagrams lost"
    }

    test {kill -9 of the active with a virtual MAC: the standby takes over, h1's ARP entry stays the virtual MAC} {
        lassign [ha_pair_up] act sby
        set f0 [wan_frames $sby]
        set fa0 [wan_frames $act]
        set h [ha_stream_start 2000 3 5111]
        wait_for_condition 1000 10 {[wan_frames $act] - $fa0 > 1000} else {
            fail "the stream does not go through $act ([expr {[wan_frames $act] - $fa0}] frames on wan; h1's entry: [ha_host_arp])"
        }
        ha_kill $act KILL
        ha_wait_role $sby active [expr {3000 * [ha_slow]}]
        set rep [ha_stream_result $h]
        note [format "kill -9 of %s: outage %.1f ms, %d of %d lost; %s forwarded %d on wan" $act \
            [dict get $rep max_gap_ms] [dict get $rep lost] [dict get $rep sent] $sby \
            [expr {[wan_frames $sby] - $f0}]]
        assert_equal [dict get [ha_host_arp] mac] $::vmac "h1's ARP entry for the service address"
        assert_not_stuck [dict get $rep max_gap_ms] 300 3000 "outage"
        assert_morethan [expr {[wan_frames $sby] - $f0}] 2000 "frames $sby forwarded after the takeover"
        assert_equal [dict get $rep end_marker] true "the end marker arrived"
        set w [ha_arpwatch_start 1]
        set arp [ha_arpwatch_result $w]
        assert_equal [dict keys [dict get $arp arp macs]] [list $::vmac] "the MAC answering after the takeover"
    }
}

# The service address is the active's own: h1 can ping its gateway, with
# and without a virtual MAC; the standby does not answer for it (what
# reaches it, by a stale entry, is dropped as ha_standby).
proc ping_vip {family} {
    set addr [expr {$family == 4 ? $::ha::vip4 : $::ha::vip6}]
    lassign [lab_run h1 ping -$family -c 3 -i 0.2 -W 1 $addr] rc out
    if {[regexp {(\d+) received} $out -> n]} { return $n }
    return 0
}

foreach v [list "" $vmac] {
    start_ha_lab [list vmac $v] {
        test "h1 pings the service address (IPv4, IPv6) and the active answers[expr {$v ne {} ? { (virtual MAC)} : {}}]" {
            lassign [ha_pair_up] act sby
            assert_equal [ping_vip 4] 3 "echo replies from $::ha::vip4"
            assert_equal [ping_vip 6] 3 "echo replies from $::ha::vip6"
            ha_kill $act KILL
            ha_wait_role $sby active [expr {3000 * [ha_slow]}]
            # h1's entry moves with the announcements (or stays the virtual MAC)
            wait_for_condition 100 20 {[ping_vip 4] == 3} else {
                fail "no echo replies from $::ha::vip4 after the takeover by $sby"
            }
            assert_equal [ping_vip 6] 3 "echo replies from $::ha::vip6 after the takeover"
        }
    }
}

start_ha_lab {} {
    test {the standby drops what reaches it for the service address (a host's stale entry)} {
        lassign [ha_pair_up] act sby
        set d0 [ha_on $sby {drops ha_standby}]
        # h1's entry for the service address pointed at the standby's MAC
        lab_exec h1 ip neigh replace $::ha::vip4 lladdr [ha_mac $sby] dev eth0 nud permanent
        lab_on_cleanup {catch {lab_exec h1 ip neigh del $::ha::vip4 dev eth0}}
        assert_equal [ping_vip 4] 0 "echo replies from the standby"
        assert_morethan [expr {[ha_on $sby {drops ha_standby}] - $d0}] 2 "$sby's ha_standby drops"
        lab_exec h1 ip neigh del $::ha::vip4 dev eth0
    }
}
