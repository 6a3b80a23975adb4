# VXLAN interoperability: vbrd's tunnel against a Linux kernel VXLAN device.
#
#   h1 10.1.1.2 ── lan [vbrd] line1 172.16.1.1 ── eth0 172.16.1.2 lx
#                   tunnel local 192.168.100.1          vx0 (vxlan id 1000, local 172.16.1.2,
#                   remote 172.16.1.2, VNI 1000           remote 192.168.100.1, port 4789)
#                   route 10.99.0.0/24 -> group linux     10.99.0.2/24
#
# vbrd does not answer ARP inside a tunnel, so lx has a static neighbor for
# its inner next hop 10.99.0.1, and vbrd sends inner frames to vx0's MAC
# (the tunnel's inner_mac).

lab_host h1 10.1.1.2/24 10.1.1.1
lab_host lx 172.16.1.2/24 ""

# The kernel may lack the vxlan module: then the tests say so and skip.
lassign [lab_run lx ip link add vx0 type vxlan id 1000 local 172.16.1.2 \
             remote 192.168.100.1 dstport 4789] vx_rc vx_out
if {$vx_rc == 0} {
    lab_exec lx ip route add 192.168.100.1/32 via 172.16.1.1
    lab_exec lx ip addr add 10.99.0.2/24 dev vx0
    lab_exec lx ip link set vx0 up
    lab_exec lx ip neigh add 10.99.0.1 lladdr 02:00:00:00:99:01 dev vx0 nud permanent
    lab_exec lx ip route add 10.1.1.0/24 via 10.99.0.1 dev vx0
    set vx_mac [lab_mac lx vx0]
}

# Tunnel packet counters of vbrd: {rx tx}.
proc tunnel_rx_tx {} {
    set t [lindex [dict get [vbrctl show tunnels] tunnels] 0]
    return [list [dict get $t rx_packets] [dict get $t tx_packets]]
}

if {$vx_rc != 0} {
    test {vbrd <-> Linux VXLAN: ping both ways} {
        skip "the kernel cannot create a VXLAN device: $vx_out"
    }
} else {
start_vbrd [list conf "
ports = (
  { name = \"lan\";   devargs = \"net_af_packet0,iface=@h1@\"; },
  { name = \"line1\"; devargs = \"net_af_packet1,iface=@lx@\"; }
);
interfaces = (
  { name = \"lan\";   port = \"lan\";   address = \"10.1.1.1/24\"; },
  { name = \"line1\"; port = \"line1\"; address = \"172.16.1.1/24\"; }
);
tunnels = (
  { name = \"to-linux\"; type = \"vxlan\"; vni = 1000;
    local = \"192.168.100.1\"; remote = \"172.16.1.2\"; inner_mac = \"$vx_mac\"; }
);
path_groups = (
  { name = \"linux\";
    paths = ( { name = \"p-line1\"; tunnel = \"to-linux\"; interface = \"line1\"; via = \"172.16.1.2\"; } ); }
);
routes = (
  { prefix = \"10.99.0.0/24\"; path_group = \"linux\"; }
);
"] {
    test {h1 pings the Linux VXLAN namespace (10.99.0.2) through vbrd's tunnel} {
        lassign [tunnel_rx_tx] rx0 tx0
        set vx0 [lab_link_stats lx vx0]
        assert_ping h1 10.99.0.2 10
        set vx1 [lab_link_stats lx vx0]
        lassign [tunnel_rx_tx] rx1 tx1
        set vrx [expr {[dict get $vx1 rx_packets] - [dict get $vx0 rx_packets]}]
        set vtx [expr {[dict get $vx1 tx_packets] - [dict get $vx0 tx_packets]}]
        note "Linux vx0 rx +$vrx tx +$vtx; vbrd tunnel tx +[expr {$tx1 - $tx0}] rx +[expr {$rx1 - $rx0}]"
        # Linux counts on vx0 what it decapsulated and what it encapsulated.
        assert_range $vrx 10 12 "frames vx0 received (decapsulated by Linux)"
        assert_range $vtx 10 12 "frames vx0 sent"
        assert_range [expr {$rx1 - $rx0}] 10 12 "vbrd tunnel rx_packets"
    }

    test {the Linux VXLAN namespace pings h1 (10.1.1.2) through vbrd's tunnel} {
        lassign [tunnel_rx_tx] rx0 tx0
        set h1_0 [dict get [lab_link_stats h1] rx_packets]
        assert_ping lx 10.1.1.2 10
        lassign [tunnel_rx_tx] rx1 tx1
        set h1rx [expr {[dict get [lab_link_stats h1] rx_packets] - $h1_0}]
        note "h1 received $h1rx; vbrd tunnel rx +[expr {$rx1 - $rx0}] tx +[expr {$tx1 - $tx0}]"
        assert_morethan $h1rx 9 "echo requests h1 received"
        assert_range [expr {$rx1 - $rx0}] 10 12 "vbrd tunnel rx_packets (requests from Linux)"
        assert_range [expr {$tx1 - $tx0}] 10 12 "vbrd tunnel tx_packets (replies to Linux)"
    }

    test {TCP h1 -> Linux VXLAN namespace (iperf3, 1 s)} {
        set srv [iperf_server lx]
        set code [catch {iperf_client h1 10.99.0.2 1} rep opts]
        lab_kill $srv
        lab_wait_exit $srv 3000
        if {$code} { return -options $opts $rep }
        set bps [iperf_rx_bps $rep]
        note [format "TCP: %.1f Mbit/s" [expr {$bps / 1e6}]]
        assert_morethan $bps 5e6 "TCP bits/s received by lx"
    }
}
}
