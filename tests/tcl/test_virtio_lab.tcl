# The virtio lab (vm/virtio, `make lab-virtio`): two vbrds joined over
# vhost-user / virtio-user through Open vSwitch with DPDK, on the lab's own
# configs (vm/virtio/edge.conf and region.conf, paths filled in) and OVS
# started by the lab's own script (vm/virtio/ovs.sh, through harness/ovs.tcl).
#
#   h1 ── lan [edge] line1 ══ OVS (edge-line1 <-> region-line1) ══ line1 [region] lan ── h2
#                    line2 ══ OVS (edge-line2 <-> region-line2) ══ line2
#
# Traffic h1 <-> h2 goes by the virtio ports (vbrctl's port counters, OVS's
# own), then line1 is cut silently (OpenFlow drop flows, both directions)
# under a UDP stream: BFD l1 goes down on both sides, the edge's group moves
# to line2 for l1's detection expiry, the stream resumes by line2 (counted by
# vbrd and OVS); the cut healed, l1 comes back and the group returns (it is
# revertive). Checked: states, counts and order, not durations.
#
# Skipped when Debian's openvswitch-switch-dpdk is not installed.

set _d [file dirname [file normalize [info script]]]
source [file join $_d harness fo_twosite.tcl]
source [file join $_d harness ovs.tcl]
set virtio_dir [file normalize [file join $_d .. .. vm virtio]]
unset _d

if {[set why [ovs_unavailable]] ne ""} {
    test "virtio lab through OVS-DPDK" { skip $why }
    return
}

lab_host h1 10.1.1.2/24 10.1.1.1
lab_host h2 10.2.2.2/24 10.2.2.1
ovs_start
set lines {}
foreach side {edge region} {
    foreach n {1 2} {
        lappend lines $side-line$n [file join [lab_rundir] $side-line$n.sock]
    }
}
ovs_bridge $lines
ovs_link edge-line1 region-line1
ovs_link edge-line2 region-line2

# The sum of KEY over the vbrd ports NAMES of SIDE's `show ports`.
proc ports_sum {side key names} {
    set n 0
    foreach p [dict get [twosite_vbrctl $side show ports] ports] {
        if {[dict get $p name] in $names} { incr n [dict get $p $key] }
    }
    return $n
}

proc port_row {side name} {
    foreach p [dict get [twosite_vbrctl $side show ports] ports] {
        if {[dict get $p name] eq $name} { return $p }
    }
    error "$side: no port $name"
}

start_vbrd [list conf [file join $virtio_dir edge.conf] name edge] {
    set ::twosite::inst(edge) $::vbrd::cur
    start_vbrd [list conf [file join $virtio_dir region.conf] name region] {
        set ::twosite::inst(region) $::vbrd::cur

        test "the lines are virtio-user ports connected to OVS's vhost-user clients" {
            foreach p {edge-line1 edge-line2 region-line1 region-line2} {
                ovs_wait_port_up $p 10000
            }
            foreach side {edge region} {
                foreach name {line1 line2} {
                    wait_for_condition 100 50 {[dict get [port_row $side $name] link] eq "up"} else {
                        fail "$side $name: link not up: [port_row $side $name]"
                    }
                    assert_equal [dict get [port_row $side $name] driver] net_virtio_user "$side $name's driver"
                }
            }
        }

        test "BFD l1 and l2 Up on both sides over OVS, the edge's group on line1" {
            foreach side {edge region} {
                fo2_wait_session $side l1 Up 10000
                fo2_wait_session $side l2 Up 10000
            }
            fo2_wait_active edge uplink member0 3000
            fo2_wait_active region uplink member0 3000
        }

        test "h1 pings h2: edge -> OVS -> region over line1, counted by vbrd and OVS" {
            set e0 [port_row edge line1]
            set r0 [port_row region line1]
            set o0 [ovs_port_stats edge-line1]
            set echos0 [dict get [lab_snmp h2 Icmp] InEchos]
            assert_ping h1 10.2.2.2 20
            assert_morethan [expr {[dict get [lab_snmp h2 Icmp] InEchos] - $echos0}] 19 "echo requests h2 received"
            set e1 [port_row edge line1]
            set r1 [port_row region line1]
            set o1 [ovs_port_stats edge-line1]
            # BFD at 10 ms adds its own packets: at least the 20 echoes each way
            foreach {what a b} [list "edge line1 tx" [dict get $e0 tx_packets] [dict get $e1 tx_packets] \
                                    "edge line1 rx" [dict get $e0 rx_packets] [dict get $e1 rx_packets] \
                                    "region line1 rx" [dict get $r0 rx_packets] [dict get $r1 rx_packets] \
                                    "region line1 tx" [dict get $r0 tx_packets] [dict get $r1 tx_packets] \
                                    "OVS edge-line1 rx (from the edge)" [dict get $o0 rx_packets] [dict get $o1 rx_packets]] {
                assert_morethan [expr {$b - $a}] 19 $what
            }
        }

        test "line1 cut silently under a UDP stream: BFD down, the group moves to line2, the stream resumes" {
            set l2_0 [dict get [port_row edge line2] tx_packets]
            set ovs2_0 [dict get [ovs_port_stats region-line2] tx_packets]
            try {
                lassign [stream_during h1 10.2.2.2 h2 7201 5000 3 4000 {
                    set t_cut [fo2_now_us]
                    ovs_cut edge-line1 region-line1
                    fo2_wait_active edge uplink member1 5000
                    fo2_wait_active region uplink member1 5000
                }] rep snd
                set dropped [ovs_cut_packets edge-line1]
            } finally {
                ovs_restore edge-line1 region-line1
            }
            # (the drop flow's n_packets also takes the packets of the
            # datapath flow it replaced since that one's last revalidation:
            # more than it dropped; > 0 says it was hit)
            note [format "outage %.1f ms (max_gap_ms), %d of %d lost; the edge-line1 drop flow counted %d" \
                      [dict get $rep max_gap_ms] [dict get $rep lost] [dict get $rep sent] $dropped]
            assert_equal [dict get $rep end_marker] true "the end marker arrived"
            assert_morethan [dict get $rep lost] 0 "datagrams lost while BFD detects (the cut was real)"
            assert_morethan $dropped 0 "packets of the edge-line1 drop flow"
            # the cut came after 4000 of 15000: the rest went by line2
            set l2 [expr {[dict get [port_row edge line2] tx_packets] - $l2_0}]
            set ovs2 [expr {[dict get [ovs_port_stats region-line2] tx_packets] - $ovs2_0}]
            assert_morethan $l2 8000 "frames the edge sent on line2"
            assert_morethan $ovs2 8000 "frames OVS passed to the region's line2"
            assert_morethan [dict get $rep received] [expr {[dict get $rep sent] - 3000}] "datagrams h2 received"
            set sw ""
            foreach e [fo2_group_events edge uplink $t_cut] {
                if {[dict get $e from] eq "member0" && [dict get $e to] eq "member1"} { set sw $e; break }
            }
            assert_true {$sw ne ""} "a switch member0 -> member1 in the edge's history after the cut"
            assert_equal [dict get $sw reason] control_detect_expired "the reason: l1's detection time expired"
        }

        test "line1 restored: l1 Up again on both sides, both groups back on line1, ping" {
            foreach side {edge region} {
                fo2_wait_session $side l1 Up 10000
            }
            fo2_wait_active edge uplink member0 5000
            fo2_wait_active region uplink member0 5000
            set l1_0 [dict get [port_row edge line1] tx_packets]
            assert_ping h1 10.2.2.2 5
            assert_morethan [expr {[dict get [port_row edge line1] tx_packets] - $l1_0}] 4 "echoes back on line1"
        }
    }
}
