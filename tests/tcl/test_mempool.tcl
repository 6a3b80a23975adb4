# No mbuf leaks: after bursts of forwarded, held-and-dropped and locally
# answered traffic, the packet pool's in_use count returns to its idle value.

proc in_use {} { return [dict get [vbrctl show mempool] in_use] }

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
routes = (
  { prefix = "10.50.0.0/24"; via = "10.0.2.99"; }    # a next hop that never answers ARP
);
neighbor = { retries = 2; retry_ms = 200; hold_packets = 4; };
}} {
    test {mbufs in use return to the idle value after traffic} {
        assert_ping h1 10.0.2.2 2
        assert_ping h1 10.0.1.1 2
        # Idle: the value once two readings 100 ms apart agree.
        set idle [in_use]
        set prev -1
        for {set i 0} {$i < 20 && $idle != $prev} {incr i} {
            after 100
            set prev $idle
            set idle [in_use]
        }
        note "idle in_use $idle of [dict get [vbrctl show mempool] size]"

        set fwd0 [stat forwarded]
        # Forwarded: a flood ping of 2000 1000-byte echoes; and UDP at 200 Mbit/s.
        lab_run h1 ping -n -q -f -c 2000 -s 1000 -w 20 10.0.2.2
        iperf_server h2
        iperf_client h1 10.0.2.2 2 -u -b 200M
        # Local: a flood ping to vbrd itself.
        lab_run h1 ping -n -q -f -c 1000 -w 20 10.0.1.1
        # Held, then dropped: packets to a next hop whose ARP fails.
        udp_flows h1 10.50.0.1 9 50 100

        # The bursts did go through vbrd (2000 flood echoes and their replies).
        assert_morethan [expr {[stat forwarded] - $fwd0}] 4000 "packets forwarded by the bursts"

        wait_for_condition 100 100 {[in_use] <= $idle} else {
            fail "in_use [in_use] stays above the idle $idle"
        }
    }
}
