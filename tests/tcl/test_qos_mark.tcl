# Egress QoS, marking: a class's set_dscp rewrites the DSCP and keeps the
# two ECN bits (RFC 2474 §3, RFC 3168 §5), with the IPv4 header checksum
# still right (RFC 1624); on a VLAN line the 802.1p priority of the tag
# follows the (remarked) DSCP through the line's dscp_to_pcp map.
#
#   h1 10.0.1.2, 2001:db8:1::2 ── lan1 [vbrd] lan2 (line) ── h2 10.0.2.2, 2001:db8:2::2
#                                           v100 (line, VLAN 100 on p3) ══ h3 (10.0.100.2, played
#                                                                          by tools/vlan_host.py)
#
# Classes by UDP destination port: 5601 "ef" set_dscp 46, 5602 "af" set_dscp
# 10, 5603 "keep" no remark. v100's map: 46 -> 5, 24-31 -> 3, 8/10/12/14 -> 1,
# others PCP 0. h1 sends datagrams with every ECN codepoint (IP_TOS /
# IPV6_TCLASS); tools/qos_udp.py sniff reads each frame's DSCP, ECN, tag
# and IPv4 header checksum at the receiver. The lines are fast (100M) and
# the traffic small: nothing queues, nothing is dropped.

source [file join [file dirname [file normalize [info script]]] harness qos.tcl]

lab_host46 h1 10.0.1.2/24 10.0.1.1 2001:db8:1::2/64 2001:db8:1::1
lab_host46 h2 10.0.2.2/24 10.0.2.1 2001:db8:2::2/64 2001:db8:2::1
lab_host h3 "" ""

# DSCPs of the classes and the map (the expectations come from these)
set ef 46
set af 10
array set pcp_of {46 5 24 3 25 3 26 3 27 3 28 3 29 3 30 3 31 3 8 1 10 1 12 1 14 1}
proc pcp_for {dscp} {
    return [expr {[info exists ::pcp_of($dscp)] ? $::pcp_of($dscp) : 0}]
}

start_vbrd [list conf [string map [list @EF@ $ef @AF@ $af] {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; },
  { name = "p3"; devargs = "net_af_packet2,iface=@h3@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; addresses = [ "10.0.1.1/24", "2001:db8:1::1/64" ]; },
  { name = "lan2"; port = "p2"; addresses = [ "10.0.2.1/24", "2001:db8:2::1/64" ]; },
  { name = "v100"; port = "p3"; vlan = 100; address = "10.0.100.1/24"; }
);
qos = {
  policies = (
    { name = "mark";
      businesses = ( { name = "all"; guaranteed = "100%"; } );
      classes = (
        { name = "ef"; priority = 10; protocol = "udp"; dst_port = 5601; business = "all"; set_dscp = @EF@; },
        { name = "af"; priority = 20; protocol = "udp"; dst_port = 5602; business = "all"; set_dscp = @AF@; },
        { name = "keep"; priority = 30; protocol = "udp"; dst_port = 5603; business = "all"; }
      ); }
  );
  interfaces = (
    { interface = "lan2"; policy = "mark"; rate = "100M"; },
    { interface = "v100"; policy = "mark"; rate = "100M";
      dscp_to_pcp = ( { dscp = 46; pcp = 5; }, { dscp = "24-31"; pcp = 3; },
                      { dscp = [ 8, 10, 12, 14 ]; pcp = 1; } ); }
  );
};
}]] {
    qos_sink h2 {udp "udp dport 5601-5603"}
    vlan_host_serve h3 100:10.0.100.2
    assert_ping h1 10.0.2.2 2
    assert_ping h1 10.0.100.2 2
    lassign [ping_from h1 2001:db8:2::2 -c 2 -i 0.2 -W 2] rc out
    assert_equal [dict get [ping_stats $out] received] 2 "IPv6 echo replies from h2: $out"

    # Send N datagrams of each {port tos} in CASES from h1 to DEST while
    # HOST captures; return the sniffed kinds as sorted "port dscp ecn vlan
    # pcp csum count" strings.
    proc send_and_sniff {host dest cases n} {
        set ports [lsort -unique [lmap c $cases {lindex $c 0}]]
        set pid [qos_sniff $host 10 [expr {$n * [llength $cases]}] $ports]
        foreach c $cases {
            lassign $c port tos
            qos_burst h1 $dest $port $n 100 $tos
        }
        return [lsort [lmap k [qos_sniffed $pid] {
            join [lmap f {port dscp ecn vlan pcp csum count} {dict get $k $f}]
        }]]
    }

    # The DSCP a datagram to PORT sent with TOS should leave with.
    proc remarked {port tos} {
        return [dict get [list 5601 $::ef 5602 $::af 5603 [expr {$tos >> 2}]] $port]
    }

    # {port tos} for every ECN codepoint: to ef from DSCP 0, to af from
    # AF41 (34), to keep with AF21 (18).
    set cases {}
    foreach ecn {0 1 2 3} {
        lappend cases [list 5601 $ecn] [list 5602 [expr {34 << 2 | $ecn}]] [list 5603 [expr {18 << 2 | $ecn}]]
    }

    test {IPv4: set_dscp rewrites the DSCP, keeps each ECN codepoint, and the header checksum is right} {
        set c0 [qos_class lan2 ef]
        set got [send_and_sniff h2 10.0.2.2 $cases 5]
        set want {}
        foreach c $cases {
            lassign $c port tos
            set dscp [remarked $port $tos]
            lappend want "$port $dscp [expr {$tos & 3}] - - ok 5"
        }
        assert_equal $got [lsort $want] "port dscp ecn vlan pcp csum count at h2"
        assert_equal [expr {[dict get [qos_class lan2 ef] packets] - [dict get $c0 packets]}] 20 "class ef packets"
    }

    test {IPv6: set_dscp rewrites the traffic class's DSCP and keeps each ECN codepoint} {
        set c0 [qos_class lan2 af]
        set got [send_and_sniff h2 2001:db8:2::2 $cases 5]
        set want {}
        foreach c $cases {
            lassign $c port tos
            set dscp [remarked $port $tos]
            lappend want "$port $dscp [expr {$tos & 3}] - - - 5"
        }
        assert_equal $got [lsort $want] "port dscp ecn vlan pcp csum count at h2"
        assert_equal [expr {[dict get [qos_class lan2 af] packets] - [dict get $c0 packets]}] 20 "class af packets"
    }

    test {VLAN line: the tag's PCP follows the remarked DSCP through dscp_to_pcp, unmapped DSCPs send PCP 0} {
        # ef (-> 46), af (-> 10), keep with 26 and ECT(1), keep with 46, keep with 0, keep with 34 (unmapped)
        set vcases [list {5601 0} [list 5602 [expr {34 << 2}]] [list 5603 [expr {26 << 2 | 1}]] \
            [list 5603 [expr {46 << 2 | 2}]] {5603 0} [list 5603 [expr {34 << 2 | 3}]]]
        set got [send_and_sniff h3 10.0.100.2 $vcases 4]
        set want {}
        foreach c $vcases {
            lassign $c port tos
            set dscp [remarked $port $tos]
            lappend want "$port $dscp [expr {$tos & 3}] 100 [pcp_for $dscp] ok 4"
        }
        assert_equal $got [lsort $want] "port dscp ecn vlan pcp csum count at h3"
    }
}
