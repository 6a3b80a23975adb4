# ECMP: a route with two next hops on two interfaces spreads flows over both.
#
#   h1 10.0.1.2 ── lan1 [vbrd] lan2 ── 10.0.2.2 h2
#                          lan3 ── 10.0.3.2 h3
#   10.30.0.0/24 via [10.0.2.2, 10.0.3.2]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1
lab_host h3 10.0.3.2/24 10.0.3.1

set flows 200

# Send COUNT datagrams of one flow (source port SPORT) from h1 to 10.30.0.7,
# every other one with IP options when OPTIONS is 1; wait until h2 and h3
# received them all, and return how many each got: {h2 h3}.
proc flow_split {sport count options} {
    set h2_0 [dict get [lab_link_stats h2] rx_packets]
    set h3_0 [dict get [lab_link_stats h3] rx_packets]
    lab_exec h1 /usr/bin/python3 -c [string map [list @SPORT@ $sport @N@ $count @OPT@ $options] {
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", @SPORT@))
for i in range(@N@):
    if @OPT@:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, b"\x01\x01\x01\x00" if i % 2 else b"")
    s.sendto(b"y" * 64, ("10.30.0.7", 9))
    time.sleep(0.002)
}]
    wait_for_condition 30 100 {
        [dict get [lab_link_stats h2] rx_packets] - $h2_0 +
        [dict get [lab_link_stats h3] rx_packets] - $h3_0 >= $count
    } else {
        fail "the $count datagrams of flow $sport did not arrive"
    }
    list [expr {[dict get [lab_link_stats h2] rx_packets] - $h2_0}] \
        [expr {[dict get [lab_link_stats h3] rx_packets] - $h3_0}]
}

start_vbrd {conf {
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
  { prefix = "10.30.0.0/24"; via = [ "10.0.2.2", "10.0.3.2" ]; }
);
}} {
    test {the route has both next hops} {
        set found 0
        foreach r [dict get [vbrctl show routes] routes] {
            if {[dict get $r prefix] ne "10.30.0.0/24"} continue
            set found 1
            set vias [lsort [lmap nh [dict get $r next_hops] {dict get $nh via}]]
            assert_equal $vias {10.0.2.2 10.0.3.2}
        }
        assert_equal $found 1 "10.30.0.0/24 in show routes"
    }

    test "$flows UDP flows to 10.30.0.0/24 are spread over both next hops" {
        # Resolve both next hops first: flows must not wait for ARP.
        assert_ping h1 10.0.2.2 2
        assert_ping h1 10.0.3.2 2
        set h2_0 [dict get [lab_link_stats h2] rx_packets]
        set h3_0 [dict get [lab_link_stats h3] rx_packets]
        set lan2_0 [iface_stat lan2 tx_packets]
        set lan3_0 [iface_stat lan3 tx_packets]

        # One datagram per flow: source ports 20000..20199, 1 ms apart.
        udp_flows h1 10.30.0.7 9 $flows 1000

        wait_for_condition 30 100 {
            [dict get [lab_link_stats h2] rx_packets] - $h2_0 +
            [dict get [lab_link_stats h3] rx_packets] - $h3_0 >= $flows
        } else {
            fail "h2 and h3 received [expr {[dict get [lab_link_stats h2] rx_packets] - $h2_0}] + [expr {[dict get [lab_link_stats h3] rx_packets] - $h3_0}] packets, want >= $flows"
        }
        set h2 [expr {[dict get [lab_link_stats h2] rx_packets] - $h2_0}]
        set h3 [expr {[dict get [lab_link_stats h3] rx_packets] - $h3_0}]
        set lan2 [expr {[iface_stat lan2 tx_packets] - $lan2_0}]
        set lan3 [expr {[iface_stat lan3 tx_packets] - $lan3_0}]
        note "h2 received $h2, h3 received $h3; vbrd lan2 tx $lan2, lan3 tx $lan3"
        set quarter [expr {$flows / 4}]
        assert_morethan $h2 [expr {$quarter - 1}] "packets h2 received"
        assert_morethan $h3 [expr {$quarter - 1}] "packets h3 received"
        assert_morethan $lan2 [expr {$quarter - 1}] "lan2 tx_packets growth"
        assert_morethan $lan3 [expr {$quarter - 1}] "lan3 tx_packets growth"
    }

    test {one flow sticks to one next hop} {
        lassign [flow_split 31000 50 0] h2 h3
        # All 50 on one side (a stray ARP refresh may add one or two).
        assert_true {min($h2, $h3) <= 2} "one flow split: h2 $h2, h3 $h3"
    }

    test {a flow keeps its next hop whether a packet takes the fast or the general path} {
        # IP options (IHL 6) send every other datagram to the general path
        # (pipeline/README.md): both must pick the member by one flow hash.
        # Eight flows, one at a time: a hash that differed between the paths
        # would split a flow with probability 1/2 each, so 1/256 to miss.
        foreach sport {31001 31002 31003 31004 31005 31006 31007 31008} {
            lassign [flow_split $sport 20 1] h2 h3
            assert_true {min($h2, $h3) <= 2} "flow $sport split between the paths: h2 $h2, h3 $h3"
        }
    }
}
