# Tunnels between two sites: h1 -- vbrd edge == line1/line2 == vbrd region -- h2
# (harness/twosite.tcl draws the lab). Inner traffic is routed into a path
# group whose active path (p-line1) carries a VXLAN or GENEVE tunnel over
# line1; the tests drive real traffic and check it on the wire (tcpdump in
# the line's namespace), at the hosts (kernel counters) and in both vbrds'
# `show tunnels`.

source [file join [file dirname [file normalize [info script]]] harness twosite.tcl]

set flows 200

# Tunnel rx/tx packet counters of both vbrds: dict edge {rx tx} region {rx tx}.
proc tunnel_counters {} {
    set d {}
    foreach side {edge region} {
        set t [twosite_tunnel $side]
        dict set d $side [list [dict get $t rx_packets] [dict get $t tx_packets]]
    }
    return $d
}

# The drop counters of vbrd SIDE that are not zero (REASON N ...).
proc nonzero_drops {side} {
    return [dict filter [dict get [twosite_vbrctl $side show stats] drops] value {[1-9]*}]
}

# Stop a server started by iperf_server (iperf3 -s outlives its client).
proc stop_server {pid} {
    lab_kill $pid
    lab_wait_exit $pid 3000
}

# Send COUNT UDP flows h1 -> DEST:9 (one datagram each) and return how many
# h2's eth0 received (kernel counter), waiting until all arrived or 3 s.
proc flows_received {dest count} {
    set h2_0 [dict get [lab_link_stats h2] rx_packets]
    udp_flows h1 $dest 9 $count 1000
    wait_for_condition 30 100 {
        [dict get [lab_link_stats h2] rx_packets] - $h2_0 >= $count
    } else {}
    return [expr {[dict get [lab_link_stats h2] rx_packets] - $h2_0}]
}

# The tests every tunnel type and outer family must pass. TYPE vxlan or
# geneve; OUTER 4 or 6 (outer family, for the wire check).
proc tunnel_traffic_tests {type outer} {
    set port [expr {$type eq "vxlan" ? 4789 : 6081}]
    set tag "$type, outer IPv$outer"
    set a1 [twosite_addrs edge $outer]
    set r1 [twosite_addrs region $outer]

    test "$tag: both vbrds list the tunnel and the path group, p-line1 active" {
        foreach side {edge region} {
            set t [twosite_tunnel $side]
            set a [twosite_addrs $side $outer]
            assert_equal [dict get $t type] $type "$side tunnel type"
            assert_equal [dict get $t vni] 1000 "$side VNI"
            assert_equal [dict get $t udp_port] $port "$side UDP port"
            assert_equal [dict get $t local] [dict get $a local] "$side local"
            assert_equal [dict get $t remote] [dict get $a remote] "$side remote"
            set g [twosite_group $side]
            assert_equal [dict get $g active] p-line1 "$side active path"
            assert_equal [llength [dict get $g paths]] 2 "$side paths"
        }
    }

    test "$tag: ping h1 -> h2 crosses the tunnel on line1; both ends count it" {
        set c0 [tunnel_counters]
        set l1_0 [twosite_line_frames line1 a2b]
        set l2_0 [twosite_line_frames line2 a2b]
        lassign [twosite_capture line1 ifa [list udp dst port $port] 3] cap pcap
        lassign [ping_from h1 10.2.2.2 -c 10 -i 0.1 -W 2] rc out
        set st [ping_stats $out]
        if {[dict get $st received] != 10} {
            fail "ping 10.2.2.2 from h1: [dict get $st received]/10 replies; drops: edge {[nonzero_drops edge]} region {[nonzero_drops region]}"
        }
        lassign [ping_from h1 10.2.2.2 -c 1 -W 2] rc out
        # h2 answers with TTL 64; edge and region each take one.
        assert_match "*ttl=62 *" $out "two routers between h1 and h2"
        lab_wait_exit $cap 5000
        set txt [twosite_pcap_text $pcap -v]
        if {$type eq "vxlan"} {
            assert_match "*VXLAN*vni 1000*" $txt "tcpdump's decode of the outer packets"
        } else {
            assert_match "*Geneve*vni 0x3e8*" $txt "tcpdump's decode of the outer packets"
        }
        set src [dict get $a1 local]
        set dst [dict get $r1 local]
        assert_match "*$src.* > $dst.$port:*" $txt "outer addresses and port"
        if {$outer == 6} {
            # RFC 8200 §8.1: over IPv6 the outer UDP checksum is mandatory.
            assert_match "*udp sum ok*" $txt "outer UDP checksum (tcpdump's check)"
        }
        note "line1 (edge side): [string trim [lsearch -inline -glob [split $txt \n] "*$src.* > $dst.$port:*"]]"
        wait_for_condition 20 100 {
            [lindex [dict get [tunnel_counters] edge] 1] - [lindex [dict get $c0 edge] 1] >= 11
        } else {}
        set c1 [tunnel_counters]
        set d {}
        foreach side {edge region} {
            foreach i {0 1} k {rx tx} {
                dict set d $side $k [expr {[lindex [dict get $c1 $side] $i] - [lindex [dict get $c0 $side] $i]}]
            }
        }
        note "tunnel packets: edge tx [dict get $d edge tx] rx [dict get $d edge rx], region rx [dict get $d region rx] tx [dict get $d region tx]"
        foreach side {edge region} {
            foreach k {rx tx} {
                assert_range [dict get $d $side $k] 11 13 "$side tunnel ${k}_packets for 11 echoes"
            }
        }
        set l1 [expr {[twosite_line_frames line1 a2b] - $l1_0}]
        set l2 [expr {[twosite_line_frames line2 a2b] - $l2_0}]
        note "edge -> region frames: line1 $l1, line2 $l2"
        assert_morethan $l1 10 "frames on line1"
        assert_lessthan $l2 3 "frames on line2 (the standby path)"
    }

    if {$outer == 4} {
        test "$tag: TTL 2 from h1 expires at the region; time exceeded returns through the tunnel" {
            # edge spends one hop, the region finds TTL 1 on a packet that
            # came out of the tunnel: its ICMP error must be routed back
            # into the tunnel (RFC 1812 §4.3.2), from its tunnel address.
            set before [dict get [twosite_vbrctl region show stats] drops ttl_expired]
            lassign [ping_from h1 10.2.2.2 -c 1 -t 2 -W 2] rc out
            assert_match "*From [dict get $r1 local]*Time to live exceeded*" $out \
                "ping -t 2 output"
            assert_equal [expr {[dict get [twosite_vbrctl region show stats] drops ttl_expired] - $before}] 1 \
                "region ttl_expired"
        }
    }

    test "$tag: TCP h1 -> h2 through the tunnel (iperf3, 1 s)" {
        set srv [iperf_server h2]
        set code [catch {iperf_client h1 10.2.2.2 1} rep opts]
        stop_server $srv
        if {$code} { return -options $opts $rep }
        set bps [iperf_rx_bps $rep]
        set secs [dict get $rep end sum_received seconds]
        note [format "TCP: %.1f Mbit/s over %.1f s" [expr {$bps / 1e6}] $secs]
        assert_morethan $secs 0.8 "seconds the receiver counted"
        assert_morethan $bps 5e6 "TCP bits/s received by h2"
    }

    test "$tag: $::flows UDP flows h1 -> h2 arrive" {
        set got [flows_received 10.2.2.2 $::flows]
        note "h2 received $got of $::flows datagrams"
        assert_morethan $got [expr {$::flows * 98 / 100 - 1}] "datagrams received (>= 98%)"
    }

    test "$tag: no frame to a foreign MAC reached either vbrd (not_for_us)" {
        # Every link is point to point between a host and a vbrd or the two
        # vbrds: a unicast frame to another MAC means someone addressed it wrongly.
        set e [nonzero_drops edge]
        set r [nonzero_drops region]
        note "drops: edge {$e} region {$r}"
        foreach side {edge region} d [list $e $r] {
            assert_equal [expr {[dict exists $d not_for_us] ? [dict get $d not_for_us] : 0}] 0 "$side not_for_us"
        }
    }
}

# --- IPv4 inner over IPv4 outer ---

# (vxlan over IPv4 and over IPv6 run further down, in the labs of the
# decapsulation checks: one lab start each instead of two)

start_twosite {type geneve} {
    tunnel_traffic_tests geneve 4
}

# --- IPv6 outer; IPv6 inner ---

# Whether this build has IPv6 Neighbor Discovery (`show nd` answers).
proc have_nd {} {
    return [expr {[lindex [vbrctl_raw show nd] 0] == 0}]
}


# IPv6 inner traffic (h1 2001:db8:1::2 -> h2 2001:db8:2::2) through the
# tunnel; TAG names the block.
proc inner6_tests {tag} {
    test "$tag, IPv6 inner: ping6 h1 -> h2 crosses the tunnel" {
        set c0 [tunnel_counters]
        lassign [ping_from h1 2001:db8:2::2 -c 10 -i 0.1 -W 2] rc out
        set st [ping_stats $out]
        set c1 [tunnel_counters]
        note "ping6: [dict get $st received]/10; edge tunnel tx +[expr {[lindex [dict get $c1 edge] 1] - [lindex [dict get $c0 edge] 1]}]; region tunnel rx +[expr {[lindex [dict get $c1 region] 0] - [lindex [dict get $c0 region] 0]}]"
        if {[dict get $st received] != 10} {
            fail "ping6 2001:db8:2::2: [dict get $st received]/10 replies; drops: edge {[nonzero_drops edge]} region {[nonzero_drops region]}"
        }
        # h2 answers with hop limit 64; edge and region each take one.
        assert_match "*ttl=62 *" $out "hop limit of the replies"
    }

    test "$tag, IPv6 inner: TCP h1 -> h2 (iperf3, 1 s)" {
        set srv [iperf_server h2 5203]
        set code [catch {iperf_client h1 2001:db8:2::2 1 -p 5203} rep opts]
        stop_server $srv
        if {$code} { return -options $opts $rep }
        set bps [iperf_rx_bps $rep]
        note [format "TCP over IPv6 inner: %.1f Mbit/s" [expr {$bps / 1e6}]]
        assert_morethan $bps 5e6 "TCP bits/s received by h2"
    }

    test "$tag: IPv4 inner still crosses next to IPv6" {
        assert_ping h1 10.2.2.2 5
    }
}

foreach opts {{type geneve inner6 1} {type vxlan outer 6 inner6 1}} {
    set tag "[dict get $opts type], outer IPv[expr {[dict exists $opts outer] ? 6 : 4}]"
    start_twosite $opts {
        if {![have_nd]} {
            test "$tag, IPv6 inner crosses" {
                skip "this build has no IPv6 Neighbor Discovery (`vbrctl show nd` unknown)"
            }
        } else {
            inner6_tests $tag
        }
    }
}

# --- what decapsulation refuses ---

# Send COUNT crafted frames from line1's namespace (interface ifa: the wire
# towards the edge) to DST_MAC, outer SRC -> DST (IPv4, or IPv6 when SRC
# has a colon), UDP DPORT, whose UDP payload is KIND: "vxlan VNI" (a VXLAN
# header and an inner IPv4/ICMP frame to 10.1.1.2) or "short N" (N bytes
# of zeros). CSUM is the outer UDP checksum: zero (none, the default),
# good (RFC 768 / RFC 8200 §8.1; a computed 0 is sent as 0xffff) or bad
# (the good one with bits flipped).
proc craft_send {dst_mac src dst dport kind count {csum zero}} {
    set py {
import socket, struct, sys
mac, src, dst, dport, kind, arg, count, ck, tools = sys.argv[1:10]
dport, arg, count = int(dport), int(arg), int(count)
v6 = ":" in src
sys.path.insert(0, tools)
from inetcsum import inet_csum as csum
def ip4(src, dst, proto, payload):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, 64, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload
def ip6(src, dst, proto, payload):
    return struct.pack("!IHBB", 0x60000000, len(payload), proto, 64) + \
        socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst) + payload
if kind == "vxlan":
    icmp = struct.pack("!BBHHH", 8, 0, 0, 1, 1) + b"x" * 16
    icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
    inner = b"\x02\0\0\0\0\x01" + b"\x02\0\0\0\0\x02" + b"\x08\x00" + ip4("10.2.2.2", "10.1.1.2", 1, icmp)
    payload = struct.pack("!BBHI", 0x08, 0, 0, arg << 8) + inner
else:
    payload = b"\0" * arg
udp = struct.pack("!HHHH", 50000, dport, 8 + len(payload), 0) + payload
if v6:
    ph = socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst) + \
        struct.pack("!IxxxB", len(udp), 17)
else:
    ph = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!xBH", 17, len(udp))
c = csum(ph + udp) or 0xffff
c = {"zero": 0, "good": c, "bad": c ^ 0x5a5a}[ck]
udp = udp[:6] + struct.pack("!H", c) + udp[8:]
l3 = b"\x86\xdd" + ip6(src, dst, 17, udp) if v6 else b"\x08\x00" + ip4(src, dst, 17, udp)
frame = bytes.fromhex(mac.replace(":", "")) + b"\x02\x00\x00\xaa\xbb\xcc" + l3
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("ifa", 0))
for i in range(count):
    s.send(frame)
print("sent", count)
}
    lassign $kind k arg
    return [lab_exec line1 /usr/bin/python3 -c $py $dst_mac $src $dst $dport $k $arg $count $csum \
                [file dirname $::rawio]]
}

# Wait until edge's drop counter REASON grew from BEFORE by at least N; return the growth.
proc edge_drop_growth {reason before n} {
    wait_for_condition 30 100 {
        [on_vbrd edge [list drops $reason]] - $before >= $n
    } else {}
    return [expr {[on_vbrd edge [list drops $reason]] - $before}]
}

# Decapsulation and the outer UDP checksum (RFC 768, RFC 8200 §8.1): from
# the known remote SRC to the edge's tunnel address DST, COUNT crafted
# VXLAN packets each with a good, a bad and (over IPv4) no checksum.
proc crafted_checksum_tests {src dst count} {
    set fam [expr {[string first : $src] >= 0 ? "IPv6" : "IPv4"}]
    test "$fam outer: a wrong UDP checksum is dropped as tunnel_bad_checksum, nothing reaches h1" {
        set mac [on_vbrd edge {iface_stat line1 mac}]
        set known [dict exists [twosite_vbrctl edge show stats] drops tunnel_bad_checksum]
        set b0 [expr {$known ? [on_vbrd edge {drops tunnel_bad_checksum}] : 0}]
        set h1_0 [dict get [lab_link_stats h1] rx_packets]
        set rx0 [lindex [dict get [tunnel_counters] edge] 0]
        craft_send $mac $src $dst 4789 {vxlan 1000} $count bad
        wait_for_condition 30 100 {
            ($known && [on_vbrd edge {drops tunnel_bad_checksum}] - $b0 >= $count) ||
            [dict get [lab_link_stats h1] rx_packets] - $h1_0 >= $count
        } else {}
        assert_lessthan [expr {[dict get [lab_link_stats h1] rx_packets] - $h1_0}] 2 "frames h1 received"
        assert_lessthan [expr {[lindex [dict get [tunnel_counters] edge] 0] - $rx0}] 2 "edge tunnel rx_packets growth"
        if {!$known} { fail "show stats has no drops.tunnel_bad_checksum" }
        set d [expr {[on_vbrd edge {drops tunnel_bad_checksum}] - $b0}]
        note "sent $count with a bad checksum: tunnel_bad_checksum +$d"
        assert_equal $d $count "tunnel_bad_checksum growth"
    }

    test "$fam outer: the same packets with a right UDP checksum are decapsulated to h1" {
        set mac [on_vbrd edge {iface_stat line1 mac}]
        set h1_0 [dict get [lab_link_stats h1] rx_packets]
        craft_send $mac $src $dst 4789 {vxlan 1000} $count good
        wait_for_condition 30 100 {
            [dict get [lab_link_stats h1] rx_packets] - $h1_0 >= $count
        } else {
            fail "h1 received [expr {[dict get [lab_link_stats h1] rx_packets] - $h1_0}] of $count decapsulated echo requests; edge drops {[nonzero_drops edge]}"
        }
    }
}

start_twosite {type vxlan} {
    tunnel_traffic_tests vxlan 4

    set n 7
    test {decapsulation drops packets from an unknown remote (tunnel_unknown_remote)} {
        assert_ping h1 10.2.2.2 2
        set mac [on_vbrd edge {iface_stat line1 mac}]
        set b0 [on_vbrd edge {drops tunnel_unknown_remote}]
        set h1_0 [dict get [lab_link_stats h1] rx_packets]
        craft_send $mac 192.168.100.99 192.168.100.1 4789 {vxlan 1000} $n
        set d [edge_drop_growth tunnel_unknown_remote $b0 $n]
        note "sent $n from 192.168.100.99: tunnel_unknown_remote +$d"
        assert_equal $d $n "tunnel_unknown_remote growth"
        # Nothing of it was decapsulated towards h1 (an echo request to h1 would be).
        assert_lessthan [expr {[dict get [lab_link_stats h1] rx_packets] - $h1_0}] 2 "frames h1 received"
    }

    test {decapsulation drops a known remote's packets with another VNI (tunnel_bad_vni)} {
        set mac [on_vbrd edge {iface_stat line1 mac}]
        set b0 [on_vbrd edge {drops tunnel_bad_vni}]
        set u0 [on_vbrd edge {drops tunnel_unknown_remote}]
        craft_send $mac 192.168.100.2 192.168.100.1 4789 {vxlan 1001} $n
        set d [edge_drop_growth tunnel_bad_vni $b0 $n]
        note "sent $n with VNI 1001 from 192.168.100.2: tunnel_bad_vni +$d"
        assert_equal $d $n "tunnel_bad_vni growth"
        assert_equal [expr {[on_vbrd edge {drops tunnel_unknown_remote}] - $u0}] 0 "tunnel_unknown_remote growth"
    }

    test {decapsulation drops truncated tunnel packets (tunnel_truncated)} {
        set mac [on_vbrd edge {iface_stat line1 mac}]
        set b0 [on_vbrd edge {drops tunnel_truncated}]
        craft_send $mac 192.168.100.2 192.168.100.1 4789 {short 10} $n
        set d [edge_drop_growth tunnel_truncated $b0 $n]
        note "sent $n UDP datagrams to 4789 with 10 bytes of payload: tunnel_truncated +$d"
        assert_equal $d $n "tunnel_truncated growth"
    }

    test {a crafted packet from the known remote with the right VNI is decapsulated to h1} {
        # The positive control of the three above: same frame, good fields.
        set mac [on_vbrd edge {iface_stat line1 mac}]
        set rx0 [lindex [dict get [tunnel_counters] edge] 0]
        set h1_0 [dict get [lab_link_stats h1] rx_packets]
        craft_send $mac 192.168.100.2 192.168.100.1 4789 {vxlan 1000} $n
        wait_for_condition 30 100 {
            [dict get [lab_link_stats h1] rx_packets] - $h1_0 >= $n
        } else {
            fail "h1 received [expr {[dict get [lab_link_stats h1] rx_packets] - $h1_0}] of $n decapsulated echo requests"
        }
        assert_range [expr {[lindex [dict get [tunnel_counters] edge] 0] - $rx0}] $n [expr {$n + 2}] "edge tunnel rx_packets growth"
    }

    crafted_checksum_tests 192.168.100.2 192.168.100.1 $n

    test {vbrd still forwards through the tunnel afterwards} {
        assert_ping h1 10.2.2.2 5
        set got [flows_received 10.2.2.2 50]
        assert_morethan $got 48 "UDP datagrams h2 received of 50"
    }
}

# --- what decapsulation refuses, outer IPv6 (RFC 8200 §8.1, RFC 6935, RFC 6936) ---

start_twosite {type vxlan outer 6} {
    if {![have_nd]} {
        test {vxlan, outer IPv6: IPv4 inner crosses; the UDP checksum is checked} {
            skip "this build has no IPv6 Neighbor Discovery (`vbrctl show nd` unknown)"
        }
    } else {
        test {vxlan, outer IPv6: the edge resolves the region's line1 address by ND} {
            # Traffic into the tunnel makes the edge resolve its path's next hop.
            ping_from h1 10.2.2.2 -c 2 -i 0.2 -W 1
            wait_for_condition 30 100 {
                [dict size [on_vbrd edge {neighbor 2001:db8:a1::2}]] > 0 &&
                [dict get [on_vbrd edge {neighbor 2001:db8:a1::2}] state] eq "reachable"
            } else {
                fail "edge neighbor 2001:db8:a1::2: [on_vbrd edge {neighbor 2001:db8:a1::2}]"
            }
        }
        tunnel_traffic_tests vxlan 6

        set n 7
        test {outer IPv6: the edge reaches h2 through the tunnel (setup)} {
            assert_ping h1 10.2.2.2 2
        }

        crafted_checksum_tests 2001:db8:ff::2 2001:db8:ff::1 $n

        test {outer IPv6: a zero UDP checksum is dropped as tunnel_zero_checksum6 on a tunnel without udp_zero_checksum6} {
            set mac [on_vbrd edge {iface_stat line1 mac}]
            set z0 [expr {[dict exists [twosite_vbrctl edge show stats] drops tunnel_zero_checksum6]
                          ? [on_vbrd edge {drops tunnel_zero_checksum6}] : 0}]
            set h1_0 [dict get [lab_link_stats h1] rx_packets]
            craft_send $mac 2001:db8:ff::2 2001:db8:ff::1 4789 {vxlan 1000} $n zero
            wait_for_condition 30 100 {
                [dict exists [twosite_vbrctl edge show stats] drops tunnel_zero_checksum6] &&
                [on_vbrd edge {drops tunnel_zero_checksum6}] - $z0 >= $n
            } else {}
            assert_lessthan [expr {[dict get [lab_link_stats h1] rx_packets] - $h1_0}] 2 "frames h1 received"
            if {![dict exists [twosite_vbrctl edge show stats] drops tunnel_zero_checksum6]} {
                fail "show stats has no drops.tunnel_zero_checksum6"
            }
            assert_equal [expr {[on_vbrd edge {drops tunnel_zero_checksum6}] - $z0}] $n \
                "tunnel_zero_checksum6 growth"
        }

        test {outer IPv6: after a reload with udp_zero_checksum6 = true the zero UDP checksum is accepted} {
            set text [string map {"vni = 1000;" "vni = 1000; udp_zero_checksum6 = true;"} \
                          [twosite_conf edge {type vxlan outer 6}]]
            set gen [on_vbrd edge {vbrd_rewrite_config $text; dict get [vbrctl reload] generation}]
            note "edge config generation $gen"
            set mac [on_vbrd edge {iface_stat line1 mac}]
            set z0 [on_vbrd edge {drops tunnel_zero_checksum6}]
            set h1_0 [dict get [lab_link_stats h1] rx_packets]
            craft_send $mac 2001:db8:ff::2 2001:db8:ff::1 4789 {vxlan 1000} $n zero
            wait_for_condition 30 100 {
                [dict get [lab_link_stats h1] rx_packets] - $h1_0 >= $n
            } else {
                fail "h1 received [expr {[dict get [lab_link_stats h1] rx_packets] - $h1_0}] of $n decapsulated echo requests; edge drops {[nonzero_drops edge]}"
            }
            assert_equal [expr {[on_vbrd edge {drops tunnel_zero_checksum6}] - $z0}] 0 \
                "tunnel_zero_checksum6 growth"
            # the setting does not turn the check of a checksum that is there off
            set b0 [on_vbrd edge {drops tunnel_bad_checksum}]
            craft_send $mac 2001:db8:ff::2 2001:db8:ff::1 4789 {vxlan 1000} $n bad
            assert_equal [edge_drop_growth tunnel_bad_checksum $b0 $n] $n "tunnel_bad_checksum growth"
        }

        test {outer IPv6: vbrd still forwards through the tunnel afterwards} {
            assert_ping h1 10.2.2.2 5
        }
    }
}
