# Path groups between two sites (harness/twosite.tcl): the outer UDP source
# port of each path (flow hash, or pinned by a plane), and switching a
# group's active path by hand with `vbrctl path set`.
#
#   h1 -- vbrd edge == line1 (p-line1) == vbrd region -- h2
#                   == line2 (p-line2) ==
#
# Wire facts come from tcpdump in a line's namespace and from the impair
# tool's frame counters of each line (a2b = edge -> region).

source [file join [file dirname [file normalize [info script]]] harness twosite.tcl]

set flows 50

# Capture the first COUNT tunnel packets the edge sends on line1 while h1
# sends COUNT UDP flows to h2; return the outer UDP source ports seen.
proc outer_source_ports {count} {
    # Warm up: neighbors resolved, so every flow leaves at once.
    assert_ping h1 10.2.2.2 2
    lassign [twosite_capture line1 ifa {udp and dst port 4789 and src host 192.168.100.1} $count] cap pcap
    udp_flows h1 10.2.2.2 9 $count 1000
    if {![lab_wait_exit $cap 8000]} {
        lab_kill $cap
        lab_wait_exit $cap 2000
    }
    set ports {}
    foreach {-> p} [regexp -all -inline -line \
                        {IP 192\.168\.100\.1\.(\d+) > 192\.168\.100\.2\.4789: } \
                        [twosite_pcap_text $pcap]] {
        lappend ports $p
    }
    if {[llength $ports] < $count} {
        fail "captured [llength $ports] tunnel packets on line1, want $count:\n[lab_spawn_output $cap]"
    }
    return $ports
}

start_twosite {type vxlan} {
    test "without a plane, $flows flows leave with >= 10 distinct outer source ports in 49152..65535" {
        set ports [outer_source_ports $flows]
        set distinct [lsort -unique -integer $ports]
        note "$flows packets, [llength $distinct] distinct outer source ports ([lindex $distinct 0]..[lindex $distinct end])"
        foreach p $ports {
            assert_range $p 49152 65535 "outer UDP source port (RFC 7348 §5)"
        }
        assert_morethan [llength $distinct] 9 "distinct outer source ports"
    }

    test {path set switches the edge's group to p-line2: traffic moves to line2, <= 2 of 300 pings lost} {
        assert_equal [dict get [twosite_group edge] active] p-line1 "active path before"
        set sw0 [dict get [twosite_group edge] switches]
        set l1_0 [twosite_line_frames line1 a2b]
        set l2_0 [twosite_line_frames line2 a2b]
        set tx2_0 [on_vbrd edge {iface_stat line2 tx_packets}]

        set ping [lab_spawn h1 ping -n -i 0.01 -c 300 -W 1 10.2.2.2]
        # Switch once ping is well under way on line1.
        wait_for_condition 100 50 {
            [twosite_line_frames line1 a2b] - $l1_0 >= 100 || [lab_exited $ping]
        } else {
            fail "ping does not reach line1: [lab_spawn_output $ping]"
        }
        set r [twosite_vbrctl edge path set region p-line2]
        assert_equal [dict get $r previous] p-line1 "path set: previous"
        assert_equal [dict get $r active] p-line2 "path set: active"
        set l2_at [twosite_line_frames line2 a2b]
        # What was in flight on line1 at the switch has left by now.
        after 200
        set l1_at [twosite_line_frames line1 a2b]

        if {![lab_wait_exit $ping 15000]} {
            fail "ping -c 300 -i 0.01 did not end in 15 s"
        }
        set st [ping_stats [lab_spawn_output $ping]]
        set l1 [expr {[twosite_line_frames line1 a2b] - $l1_at}]
        set l2 [expr {[twosite_line_frames line2 a2b] - $l2_at}]
        set before [expr {$l1_at - $l1_0}]
        set tx2 [expr {[on_vbrd edge {iface_stat line2 tx_packets}] - $tx2_0}]
        set lost [expr {[dict get $st transmitted] - [dict get $st received]}]
        note "line1 carried $before frames edge -> region before the switch, $l1 after it; line2 $l2 after it (vbrd line2 tx_packets +$tx2); ping lost $lost of [dict get $st transmitted]"
        assert_lessthan $l1 3 "frames edge -> region on line1 after the switch"
        assert_morethan $l2 [expr {300 - $before - 50}] "frames edge -> region on line2 after the switch"
        assert_morethan $tx2 [expr {300 - $before - 50}] "edge line2 tx_packets growth"
        assert_lessthan $lost 3 "echo requests lost"
        set g [twosite_group edge]
        assert_equal [dict get $g active] p-line2 "show paths: active"
        assert_equal [dict get $g switches] [expr {$sw0 + 1}] "show paths: switches"
        foreach p [dict get $g paths] {
            assert_equal [expr {[dict get $p active] ? 1 : 0}] [expr {[dict get $p name] eq "p-line2"}] \
                "path [dict get $p name] active flag"
        }
    }

    test {with line1 broken, the group on p-line2 still carries traffic; back to p-line1 it does not} {
        # Break line1 both ways: only the path choice decides whether pings pass.
        impair_set line1 loss 100
        # The region still answers over its own active path (p-line1): move it too.
        twosite_vbrctl region path set edge p-line2
        set code [catch {
            assert_ping h1 10.2.2.2 10
            twosite_vbrctl edge path set region p-line1
            lassign [ping_from h1 10.2.2.2 -c 5 -i 0.1 -W 1] rc out
            assert_equal [dict get [ping_stats $out] received] 0 "replies over the broken line1"
            twosite_vbrctl edge path set region p-line2
            assert_ping h1 10.2.2.2 5
        } result opts]
        impair_set line1 loss 0
        if {$code} { return -options $opts $result }
    }

    test {path set refuses an unknown group or path and changes nothing} {
        set before [dict get [twosite_group edge] active]
        lassign [on_vbrd edge {vbrctl_raw path set nosuch p-line1}] rc out
        assert_equal $rc 1 "exit status for an unknown group ($out)"
        assert_match "*nosuch*" $out
        lassign [on_vbrd edge {vbrctl_raw path set region p-nosuch}] rc out
        assert_equal $rc 1 "exit status for an unknown path ($out)"
        assert_match "*p-nosuch*" $out
        assert_equal [dict get [twosite_group edge] active] $before "active path"
    }
}

start_twosite {type vxlan plane1 7} {
    test "with plane 7, all $flows flows leave with outer source port 49159" {
        set p1 [lindex [dict get [twosite_group edge] paths] 0]
        assert_equal [dict get $p1 plane] 7 "show paths: plane of p-line1"
        set ports [outer_source_ports $flows]
        set distinct [lsort -unique -integer $ports]
        note "$flows packets, outer source ports: $distinct"
        assert_equal $distinct 49159 "distinct outer source ports"
    }

    test {the region decapsulates the pinned-port packets: all flows arrive} {
        set h2_0 [dict get [lab_link_stats h2] rx_packets]
        udp_flows h1 10.2.2.2 9 $::flows 1000
        wait_for_condition 30 100 {
            [dict get [lab_link_stats h2] rx_packets] - $h2_0 >= $::flows
        } else {
            fail "h2 received [expr {[dict get [lab_link_stats h2] rx_packets] - $h2_0}] of $::flows"
        }
    }
}
