# Forwarding between two hosts on two ports: ARP, ICMP echo, TCP and UDP;
# a connected subnet's broadcast and network addresses are not routed
# (RFC 2644) and vbrd does not ARP for them (failed before 4536d4a).
#
#   h1 10.0.1.2 ── p1 lan1 10.0.1.1 [vbrd] 10.0.2.1 lan2 p2 ── 10.0.2.2 h2

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

start_vbrd {conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
# a second neighbor on lan1 (beside h1), so that telemetry rows must be
# told apart by more than the interface
neighbors = ( { interface = "lan1"; address = "10.0.1.99"; mac = "02:00:00:00:00:99"; } );
}} {
    test {vbrd answers ARP and ping for its own address} {
        assert_ping h1 10.0.1.1 3
        # The MAC h1 learnt for 10.0.1.1 is the one of the port's veth.
        set n [lindex [json::json2dict [lab_exec h1 ip -j neigh show 10.0.1.1 dev eth0]] 0]
        assert_equal [dict get $n lladdr] [lab_mac - [lab_if h1]] "h1's ARP entry for 10.0.1.1"
    }

    test {ping h1 -> h2 is routed, TTL decremented, every packet counted as forwarded} {
        set before [stat forwarded]
        set st [assert_ping h1 10.0.2.2 5]
        lassign [ping_from h1 10.0.2.2 -c 1 -W 2] rc out
        # h2 answers with TTL 64; one router on the way takes 1.
        assert_match "*ttl=63 *" $out
        set sent [expr {2 * ([dict get $st received] + 1)}]
        wait_for_condition 20 100 {[stat forwarded] - $before >= $sent} else {
            fail "forwarded grew by [expr {[stat forwarded] - $before}], want >= $sent (echo requests and replies)"
        }
    }

    test {vbrd resolves h2: neighbor entry with h2's MAC} {
        set n [neighbor 10.0.2.2]
        assert_true {[dict size $n] > 0} "no neighbor 10.0.2.2 in show neighbors"
        assert_equal [string tolower [dict get $n mac]] [lab_mac h2] "MAC (case-insensitive)"
        assert_equal [dict get $n state] reachable
        assert_equal [dict get $n interface] lan2
    }

    test {TCP through vbrd (iperf3, 1 s)} {
        iperf_server h2
        set rep [iperf_client h1 10.0.2.2 1]
        set bps [iperf_rx_bps $rep]
        note [format "TCP: %.1f Mbit/s" [expr {$bps / 1e6}]]
        assert_morethan $bps 20e6 "TCP bits/s received by h2"
    }

    # What h2's own kernel dropped because iperf3's socket buffer was full
    # (UDP RcvbufErrors in /proc/net/snmp): not a loss through vbrd. On this
    # 2-core VM iperf3 in h2 is descheduled for tens of ms at times, and
    # 50 Mbit/s fills its buffer then.
    proc rcvbuf_errors {host} {
        return [dict get [lab_snmp $host Udp] RcvbufErrors]
    }

    test {UDP at 50 Mbit/s through vbrd loses less than 1% (h2's own socket-buffer drops aside)} {
        iperf_server h2 5202
        set rb0 [rcvbuf_errors h2]
        set rep [iperf_client h1 10.0.2.2 3 -p 5202 -u -b 50M]
        set rb [expr {[rcvbuf_errors h2] - $rb0}]
        set sum [dict get $rep end sum]
        set n [dict get $sum packets]
        set lost [dict get $sum lost_packets]
        note [format "UDP: %.1f Mbit/s, %s of %s datagrams lost, %s of them in h2's full socket buffer" \
            [expr {[dict get $sum bits_per_second] / 1e6}] $lost $n $rb]
        assert_morethan $n 1000 "datagrams sent"
        assert_lessthan [expr {100.0 * ($lost - $rb) / $n}] 1.0 "UDP loss % not in h2's socket buffer"
    }

    test {UDP to lan2's broadcast and network address is dropped as directed_broadcast, never ARPed for} {
        # ARP requests for the two addresses (target protocol address at
        # byte 24 of the ARP header: 10.0.2.255, 10.0.2.0), as h2 on lan2
        # sees them: vbrd's requests_tx also counts the refresh of a live
        # neighbor, which a slow (ASan) run can bring into the window
        set filter {arp and (arp[24:4] = 0x0a0002ff or arp[24:4] = 0x0a000200)}
        set cap [lab_spawn h2 -lifetime 20 tcpdump -i eth0 -nn -l $filter]
        wait_for_condition 100 50 {
            [string match "*listening on*" [lab_spawn_output $cap]] || [lab_exited $cap]
        } else {
            fail "tcpdump in h2 did not start:\n[lab_spawn_output $cap]"
        }
        set st0 [vbrctl show stats]
        foreach dst {10.0.2.255 10.0.2.0} {
            udp_send h1 $dst 9 regress
        }
        # an ARP request, had one been due, would leave within a second
        for {set i 0} {$i < 10} {incr i} {
            if {[string match "*Request*" [lab_spawn_output $cap]]} {
                lab_kill $cap
                fail "vbrd sent ARP requests for them after the datagrams:\n[lab_spawn_output $cap]"
            }
            after 100
        }
        lab_kill $cap
        assert_equal [neighbor 10.0.2.255] {} "neighbor entry for 10.0.2.255"
        assert_equal [neighbor 10.0.2.0] {} "neighbor entry for 10.0.2.0"
        if {![dict exists $st0 drops directed_broadcast]} {
            fail "show stats has no drops.directed_broadcast"
        }
        set d0 [dict get $st0 drops directed_broadcast]
        wait_for_condition 30 100 {[drops directed_broadcast] - $d0 >= 2} else {}
        assert_equal [expr {[drops directed_broadcast] - $d0}] 2 "drops directed_broadcast"
        assert_equal [stat forwarded] [dict get $st0 forwarded] "forwarded"
    }

    test {DPDK telemetry serves the same counters as vbrctl (/vbrd/stats, /vbrd/drops)} {
        regexp {instance = "([^"]+)"} [_lab_read [vbrd_conf]] -> inst
        set sock /var/run/dpdk/$inst/dpdk_telemetry.v2
        assert_true {[file exists $sock]} "telemetry socket $sock"
        set py {
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
json.loads(s.recv(65536))
out = {}
for cmd in sys.argv[2:]:
    s.send(cmd.encode())
    out[cmd] = json.loads(s.recv(1 << 20))[cmd]
print(json.dumps(out))
}
        set before [stat rx_packets]
        assert_ping h1 10.0.2.2 2
        set got [exec python3 -c $py $sock /vbrd/stats /vbrd/drops /vbrd/neighbors]
        regexp {"rx_packets": (\d+)} $got -> tel_rx
        assert_true {$tel_rx >= $before + 4} "telemetry rx_packets $tel_rx, vbrctl said $before before 4 more"
        assert_match {*"reason": "udp_port_unreachable"*} $got
        # one row per neighbor, as vbrctl lists them
        set nb [llength [dict get [vbrctl show neighbors] neighbors]]
        set py2 {
import json, sys
t = json.loads(sys.stdin.read())["/vbrd/neighbors"]
assert t["_rows"] == len([k for k in t if not k.startswith("_")]) and "_next" not in t
print(len([k for k in t if not k.startswith("_")]))
}
        assert_equal [exec python3 -c $py2 << $got] $nb "neighbors in telemetry"
        # keyed INTERFACE_ADDRESS whatever the table holds (here one
        # neighbor per interface, where a first-member key would do)
        set want {}
        foreach n [dict get [vbrctl show neighbors] neighbors] {
            lappend want [regsub -all {[^A-Za-z0-9_/]} \
                "[dict get $n interface]_[dict get $n address]" _]
        }
        set py3 {
import json, sys
print(" ".join(sorted(k for k in json.loads(sys.stdin.read())["/vbrd/neighbors"] if not k.startswith("_"))))
}
        assert_equal [exec python3 -c $py3 << $got] [lsort $want] "telemetry neighbor keys"
    }

    # A packet held for its next hop's MAC counts as sent when it leaves,
    # not when the resolution begins: one the resolution gives up on is a
    # drop (arp_hold_full, arp_unresolved), never tx_packets or forwarded.
    test {datagrams to a neighbor that never answers ARP: dropped and counted as drops, not as sent or forwarded} {
        set tx0 [iface_stat lan2 tx_packets]
        set fw0 [stat forwarded]
        set d0 [expr {[drops arp_hold_full] + [drops arp_unresolved]}]
        udp_flows h1 10.0.2.77 9 10
        # 4 held (neighbor.hold_packets), 6 over; the 4 go when the
        # resolution fails (3 retries of 1 s)
        wait_for_condition 100 100 {[drops arp_hold_full] + [drops arp_unresolved] - $d0 == 10} else {
            fail "drops arp_hold_full + arp_unresolved grew by [expr {[drops arp_hold_full] + [drops arp_unresolved] - $d0}], want 10"
        }
        assert_equal [iface_stat lan2 tx_packets] $tx0 "lan2 tx_packets"
        assert_equal [stat forwarded] $fw0 "forwarded"
    }

    test {datagrams held while a new neighbor is resolved count once each, when they leave} {
        # a second address of h2: vbrd has no entry for it yet
        lab_exec h2 ip addr add 10.0.2.3/24 dev eth0
        assert_equal [dict size [neighbor 10.0.2.3]] 0 "a neighbor entry for 10.0.2.3 before"
        set tx0 [iface_stat lan2 tx_packets]
        set back0 [iface_stat lan1 tx_packets]
        set fw0 [stat forwarded]
        udp_flows h1 10.0.2.3 9 3
        wait_for_condition 50 100 {[iface_stat lan2 tx_packets] - $tx0 == 3} else {
            fail "lan2 tx_packets grew by [expr {[iface_stat lan2 tx_packets] - $tx0}], want 3"
        }
        # h2's port unreachable errors come back by lan1: forwarded is both ways
        set back [expr {[iface_stat lan1 tx_packets] - $back0}]
        assert_equal [expr {[stat forwarded] - $fw0}] [expr {3 + $back}] "forwarded (3 held, $back ICMP errors back)"
    }
}

