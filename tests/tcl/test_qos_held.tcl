# Egress QoS, what leaves a line without passing its classes:
#  - datagrams held while vbrd resolves the next hop (neigh_flush_held()
#    sends them through the control thread's inject ring, which bypasses the
#    scheduler for ARP/ND) must still be classified and remarked;
#  - the first fragment of a datagram vbrd fragments toward a smaller-MTU
#    line carries the UDP ports and must match a class by port.
#
#   h1 10.0.1.2 ── lan1 [vbrd] lan2 (line, mtu 1000) ── h2 10.0.2.2

source [file join [file dirname [file normalize [info script]]] harness qos.tcl]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

start_vbrd {conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; mtu = 1000; }
);
qos = {
  policies = (
    { name = "mark";
      businesses = ( { name = "all"; guaranteed = "100%"; } );
      classes = (
        { name = "ef"; priority = 10; protocol = "udp"; dst_port = 5601; business = "all"; set_dscp = 46; },
        { name = "af"; priority = 20; protocol = "udp"; dst_port = 5602; business = "all"; set_dscp = 10; }
      ); }
  );
  interfaces = ( { interface = "lan2"; policy = "mark"; rate = "100M"; } );
};
# all ten datagrams may wait for the ARP reply (the default holds 4)
neighbor = { hold_packets = 16; };
}} {
    qos_sink h2 {udp "udp dport 5601-5603"}

    test {datagrams held for an unresolved neighbor are classified and remarked like the rest} {
        # no ping first: h2's MAC is not known, the first datagrams wait for ARP
        set c0 [dict get [qos_class lan2 ef] packets]
        set pid [qos_sniff h2 10 10 {5601}]
        qos_burst h1 10.0.2.2 5601 10 100 0
        set got [lmap k [qos_sniffed $pid] { list [dict get $k dscp] [dict get $k count] }]
        set classified [expr {[dict get [qos_class lan2 ef] packets] - $c0}]
        assert_equal [list $got $classified] {{{46 10}} 10} "{dscp count} at h2, class ef packets"
    }

    test {the first fragment of a datagram vbrd fragments toward the line matches its class by port} {
        assert_ping h1 10.0.2.2 2
        set c0 [dict get [qos_class lan2 af] packets]
        set pid [qos_sniff h2 10 3 {5602}]
        # 1400-byte datagrams without DF (IP_PMTUDISC_DONT): vbrd fragments them at 1000
        lab_exec h1 /usr/bin/python3 -c {
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 10, 0)
for i in range(3):
    s.sendto(b"f" * 1400, ("10.0.2.2", 5602)); time.sleep(0.01)
}
        set got [lmap k [qos_sniffed $pid] { list [dict get $k dscp] [dict get $k count] }]
        set classified [expr {[dict get [qos_class lan2 af] packets] - $c0}]
        assert_equal [list $got $classified] {{{10 3}} 3} "{dscp count} of first fragments at h2, class af packets (first fragments)"
    }
}
