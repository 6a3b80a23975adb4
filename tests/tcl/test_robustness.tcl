# Robustness: hostile input must never stop vbrd, leak mbufs or vanish
# uncounted.
#
#   1. a pcap of broken frames (every layer vbrd parses: Ethernet, 802.1Q,
#      IPv4, IPv6, Neighbor Discovery, VXLAN, GENEVE, packets to its own
#      addresses) is replayed through a net_pcap port: every frame is
#      received, each is dropped under the reason the test wrote it for,
#      and the mempool returns to idle;
#   2. hostile control-socket clients (garbage, oversize and deeply nested
#      JSON, more connections than served, half-closed and reset sockets)
#      get errors or are closed, and vbrctl keeps working; 70 idle clients
#      do not lock vbrctl out and are closed after the idle timeout; extra
#      words are usage errors; error text stays UTF-8; a reload of a file
#      that includes a directory, a FIFO or /proc/self/mem is refused;
#   3. `vbrd --check-config` on hostile files (empty, binary, deep nesting,
#      include loops, huge numbers, FIFO/directory/unreadable includes)
#      exits 2 with FILE:LINE messages, fast;
#   4. a SIGHUP storm and bad-file reloads during a fast ping lose nothing.
#
# The frames are built here (no scapy): each `frames_*` proc returns a list
# of {REASON FRAME} pairs, REASON being the drop reason vbrd must count
# the frame under (app/README.md).

# --- frame building -------------------------------------------------------

# The MAC DPDK's net_pcap gives its first port (tests/perf/README.md).
set pcap_mac [binary format H* 027063617000]
set host_mac [binary format H* 020000000001]

source [file join [file dirname [file normalize [info script]]] harness frames.tcl]


proc eth {type payload {dst ""} {vlan ""}} {
    if {$dst eq ""} { set dst $::pcap_mac }
    set h "$dst$::host_mac"
    if {$vlan ne ""} { append h [be16 0x8100] [be16 $vlan] }
    return "$h[be16 $type]$payload"
}

# An IPv4 header (+ payload), checksum correct unless overridden.
# Options: -ttl -proto -ihl -total -frag -csum -opts BYTES
proc ipv4 {src dst payload args} {
    array set o {-ttl 64 -proto 17 -ihl "" -total "" -frag 0 -csum "" -opts ""}
    array set o $args
    set ihl [expr {$o(-ihl) ne "" ? $o(-ihl) : 5 + [string length $o(-opts)] / 4}]
    set total [expr {$o(-total) ne "" ? $o(-total)
                     : 20 + [string length $o(-opts)] + [string length $payload]}]
    set h [binary format cc [expr {0x40 | $ihl}] 0][be16 $total][be16 1][be16 $o(-frag)]
    append h [binary format cc $o(-ttl) $o(-proto)] [be16 0] [ip4 $src] [ip4 $dst] $o(-opts)
    set c [expr {$o(-csum) ne "" ? $o(-csum) : [inet_csum $h]}]
    set h "[string range $h 0 9][be16 $c][string range $h 12 end]"
    return "$h$payload"
}

proc udp {sport dport payload} {
    return "[be16 $sport][be16 $dport][be16 [expr {8 + [string length $payload]}]][be16 0]$payload"
}

# UDP datagram with its checksum over the pseudo-header of SRC -> DST
# (IPv4 RFC 768, or IPv6 RFC 8200 §8.1 when SRC has a colon). CSUM: good
# (a computed 0 goes out as 0xffff), bad (good one with bits flipped,
# never 0) or zero (none).
proc udp_csum {src dst sport dport payload csum} {
    set u [udp $sport $dport $payload]
    set n [string length $u]
    if {[string first : $src] >= 0} {
        set ph "[ip6 $src][ip6 $dst][be32 $n][binary format x3c 17]"
    } else {
        set ph "[ip4 $src][ip4 $dst][binary format xc 17][be16 $n]"
    }
    set c [inet_csum "$ph$u"]
    if {$c == 0} { set c 0xffff }
    switch -- $csum {
        good {}
        bad  { set c [expr {$c ^ 0x5a5a}] }
        zero { set c 0 }
        default { error "udp_csum: good, bad or zero" }
    }
    return "[string range $u 0 5][be16 $c][string range $u 8 end]"
}

# ICMPv6 message with a correct checksum over the RFC 8200 §8.1 pseudo-header.
proc icmp6 {src dst body} {
    set ph "[ip6 $src][ip6 $dst][be32 [string length $body]][binary format x3c 58]"
    set c [inet_csum "$ph[string range $body 0 1]\x00\x00[string range $body 4 end]"]
    return "[string range $body 0 1][be16 $c][string range $body 4 end]"
}

proc ipv6 {src dst nh payload args} {
    array set o {-hlim 64 -plen ""}
    array set o $args
    set plen [expr {$o(-plen) ne "" ? $o(-plen) : [string length $payload]}]
    return "[be32 0x60000000][be16 $plen][binary format cc $nh $o(-hlim)][ip6 $src][ip6 $dst]$payload"
}

proc vxlan {flags vni inner} {
    return "[binary format c $flags][binary format x3][be32 [expr {$vni << 8}]]$inner"
}

# A small inner Ethernet frame for tunnel tests.
proc inner_frame {} {
    set p [ipv4 10.99.0.2 198.19.1.1 [udp 7 9 xxxxxxxxxx]]
    return "[binary format H* 020000000001][binary format H* 020000000002][be16 0x0800]$p"
}

# --- the hostile frames, each with the reason vbrd must drop it for --------

proc frames_l2 {} {
    set out {}
    set good [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 [udp 1 2 [string repeat p 18]]]]
    foreach n {1 6 12 13} {
        lappend out truncated [string range $good 0 [expr {$n - 1}]]
    }
    set tagged [eth 0x0800 [ipv4 10.100.0.2 198.19.1.1 [udp 1 2 pppp]] "" 100]
    foreach n {14 15 17} {
        lappend out truncated [string range $tagged 0 [expr {$n - 1}]]
    }
    lappend out unknown_vlan [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 [udp 1 2 pp]] "" 200]
    lappend out unknown_vlan [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 [udp 1 2 pp]] "" 4095]
    # 802.1Q in 802.1Q on VLAN 100, and 802.1ad (0x88a8) outer tag
    lappend out unknown_ethertype [eth 0x8100 "[be16 5][be16 0x0800][ipv4 10.100.0.2 198.19.1.1 {}]" "" 100]
    lappend out unknown_ethertype [eth 0x88a8 "[be16 100][be16 0x0800][ipv4 10.0.0.2 198.19.1.1 {}]"]
    lappend out unknown_ethertype [eth 0x0000 [string repeat z 46]]
    lappend out unknown_ethertype [eth 0x05dc [string repeat z 46]]
    lappend out not_for_us [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 [udp 1 2 pp]] [binary format H* ffffffffffff]]
    lappend out not_for_us [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 [udp 1 2 pp]] [binary format H* 020000000099]]
    # ARP that is not Ethernet/IPv4 (RFC 826 hrd, pro, hln, pln), or cut short
    set body "$::host_mac[ip4 10.0.0.2][string repeat \0 6][ip4 10.0.0.1]"
    foreach {hrd pro hln pln} {6 0x0800 6 4  1 0x86dd 6 4  1 0x0800 8 4  1 0x0800 6 16} {
        lappend out bad_arp [eth 0x0806 "[be16 $hrd][be16 $pro][binary format cc $hln $pln][be16 1]$body"]
    }
    lappend out bad_arp [eth 0x0806 [string range "[be16 1][be16 0x0800][binary format cc 6 4][be16 1]$body" 0 19]]
    return $out
}

proc frames_ipv4 {} {
    set out {}
    set pl [udp 1000 2000 [string repeat q 20]]
    foreach ihl {0 1 4} {
        lappend out bad_ihl [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 $pl -ihl $ihl]]
    }
    lappend out bad_version [eth 0x0800 "[binary format c 0x65][string range [ipv4 10.0.0.2 198.19.1.1 $pl] 1 end]"]
    foreach n {1 10 19} {
        lappend out truncated [eth 0x0800 [string range [ipv4 10.0.0.2 198.19.1.1 $pl] 0 [expr {$n - 1}]]]
    }
    # IHL 15 (60 bytes) in a 40-byte frame body
    lappend out truncated [eth 0x0800 [string range [ipv4 10.0.0.2 198.19.1.1 $pl -ihl 15] 0 39]]
    foreach tot {0 19 65535} {
        lappend out bad_length [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 $pl -total $tot]]
    }
    # header longer than the total length (IHL 6, total 20)
    lappend out bad_length [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 $pl -opts "\x01\x01\x01\x01" -total 20]]
    lappend out bad_checksum [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 $pl -csum 0x1234]]
    foreach {src dst} {0.0.0.0 198.19.1.1  127.0.0.1 198.19.1.1  224.0.0.5 198.19.1.1
                       255.255.255.255 198.19.1.1  10.0.0.2 127.0.0.1  10.0.0.2 0.0.0.1
                       10.0.0.2 239.1.1.1  10.0.0.2 255.255.255.255  240.0.0.1 10.0.0.1} {
        lappend out martian [eth 0x0800 [ipv4 $src $dst $pl]]
    }
    # To an own address: protocols vbrd does not serve; ICMP too short or not echo.
    foreach proto {0 6 47 50 89 132 255} {
        lappend out unsupported_local [eth 0x0800 [ipv4 10.0.0.2 10.0.0.1 [string repeat r 16] -proto $proto]]
    }
    lappend out unsupported_local [eth 0x0800 [ipv4 10.0.0.2 10.0.0.1 "\x08" -proto 1]]
    lappend out unsupported_local [eth 0x0800 [ipv4 10.0.0.2 10.0.0.1 "\x08\x00\x00\x00\x00\x00\x00" -proto 1]]
    lappend out unsupported_local [eth 0x0800 [ipv4 10.0.0.2 10.0.0.1 "\x0d\x00\x00\x00\x00\x00\x00\x00" -proto 1]]
    # TTL 1 and 0 to a routed destination with IP options (the ICMP error quotes them)
    foreach ttl {0 1} {
        lappend out ttl_expired [eth 0x0800 [ipv4 10.0.0.2 198.19.1.1 $pl -ttl $ttl -opts "\x07\x07\x04\x00\x00\x00\x00\x00"]]
    }
    lappend out no_route [eth 0x0800 [ipv4 10.0.0.2 8.8.8.8 $pl]]
    return $out
}

proc frames_ipv6 {} {
    set out {}
    set me 2001:db8:1::1
    set h 2001:db8:1::2
    set echo [icmp6 $h $me "\x80\x00\x00\x00\x00\x01\x00\x01"]
    foreach n {1 20 39} {
        lappend out truncated [eth 0x86dd [string range [ipv6 $h $me 58 $echo] 0 [expr {$n - 1}]]]
    }
    lappend out bad_version [eth 0x86dd "[binary format c 0x40][string range [ipv6 $h $me 58 $echo] 1 end]"]
    lappend out bad_length [eth 0x86dd [ipv6 $h $me 58 $echo -plen 500]]
    # plen 0 with a hop-by-hop header: a jumbogram (RFC 2675)
    lappend out bad_length [eth 0x86dd [ipv6 $h $me 0 "\x3a\x00[string repeat \x00 6]$echo" -plen 0]]
    foreach {src dst} [list ::1 $me  ff02::1 $me  $h ::  $h ::1] {
        lappend out martian [eth 0x86dd [ipv6 $src $dst 17 [udp 1 2 pp]]]
    }
    # Neighbor Solicitations failing RFC 4861 §7.1: hop limit, code,
    # option length 0, option past the end, multicast target, too short.
    set sll "\x01\x01$::host_mac"
    set ns "\x87\x00\x00\x00\x00\x00\x00\x00[ip6 $me]"
    lappend out bad_nd [eth 0x86dd [ipv6 $h $me 58 [icmp6 $h $me "$ns$sll"] -hlim 64]]
    lappend out bad_nd [eth 0x86dd [ipv6 $h $me 58 [icmp6 $h $me "\x87\x01[string range $ns 2 end]$sll"] -hlim 255]]
    lappend out bad_nd [eth 0x86dd [ipv6 $h $me 58 [icmp6 $h $me "$ns\x01\x00[string repeat \x00 6]"] -hlim 255]]
    lappend out bad_nd [eth 0x86dd [ipv6 $h $me 58 [icmp6 $h $me "$ns\x01\x02[string repeat \x00 6]"] -hlim 255]]
    lappend out bad_nd [eth 0x86dd [ipv6 $h $me 58 [icmp6 $h $me "\x87\x00\x00\x00\x00\x00\x00\x00[ip6 ff02::1]$sll"] -hlim 255]]
    lappend out bad_nd [eth 0x86dd [ipv6 $h $me 58 "\x88\x00\x00\x00[string repeat \x00 16]" -hlim 255]]
    lappend out icmp_bad_checksum [eth 0x86dd [ipv6 $h $me 58 "\x80\x00\x12\x34\x00\x01\x00\x01"]]
    lappend out ttl_expired [eth 0x86dd [ipv6 $h 2001:db8:2::2 17 [udp 1 2 pp] -hlim 1]]
    lappend out ttl_expired [eth 0x86dd [ipv6 $h 2001:db8:2::2 17 [udp 1 2 pp] -hlim 0]]
    lappend out no_route [eth 0x86dd [ipv6 $h 2001:db8:77::2 17 [udp 1 2 pp]]]
    lappend out ipv6_multicast [eth 0x86dd [ipv6 $h ff02::2 58 [icmp6 $h ff02::2 "\x85\x00\x00\x00\x00\x00\x00\x00"] -hlim 255] [binary format H* 333300000002]]
    return $out
}

proc frames_tunnel {} {
    set out {}
    set in [inner_frame]
    set to_us {{src payload {dport 4789}} {
        eth 0x0800 [ipv4 $src 10.0.0.1 [udp 50000 $dport $payload]]
    }}
    lappend out tunnel_unknown_remote [apply $to_us 10.0.0.9 [vxlan 0x08 1000 $in]]
    lappend out tunnel_bad_vni [apply $to_us 10.0.0.2 [vxlan 0x08 1001 $in]]
    lappend out tunnel_bad_header [apply $to_us 10.0.0.2 [vxlan 0x00 1000 $in]]
    lappend out tunnel_truncated [apply $to_us 10.0.0.2 [vxlan 0x08 1000 [string range $in 0 9]]]
    lappend out tunnel_truncated [apply $to_us 10.0.0.2 ""]
    # the inner frame: only an Ethernet header, or a cut IPv4 header
    lappend out truncated [apply $to_us 10.0.0.2 [vxlan 0x08 1000 [string range $in 0 13]]]
    lappend out truncated [apply $to_us 10.0.0.2 [vxlan 0x08 1000 [string range $in 0 23]]]
    set gen "\x00\x00\x65\x58[be32 [expr {2000 << 8}]]"
    lappend out tunnel_bad_header [apply $to_us 10.0.0.3 "\x40[string range $gen 1 end]$in" 6081]
    lappend out tunnel_bad_header [apply $to_us 10.0.0.3 "\x00\x80[string range $gen 2 end]$in" 6081]
    lappend out tunnel_bad_header [apply $to_us 10.0.0.3 "\x00\x00\x08\x00[string range $gen 4 end]$in" 6081]
    # 63 option words (252 bytes) announced, a 52-byte inner frame follows
    lappend out tunnel_truncated [apply $to_us 10.0.0.3 "\x3f[string range $gen 1 end]$in" 6081]
    # inner packets that fail like outer ones
    set bad [string range $in 0 13][ipv4 127.0.0.1 198.19.1.1 [udp 1 2 pp]]
    lappend out martian [apply $to_us 10.0.0.2 [vxlan 0x08 1000 $bad]]
    set bad [string range $in 0 13][ipv4 10.99.0.2 198.19.1.1 [udp 1 2 pp] -csum 1]
    lappend out bad_checksum [apply $to_us 10.0.0.2 [vxlan 0x08 1000 $bad]]
    set bad [string range $in 0 11][be16 0x0806][string repeat a 28]
    lappend out unknown_ethertype [apply $to_us 10.0.0.2 [vxlan 0x08 1000 $bad]]

    # The outer UDP checksum (RFC 768, RFC 8200 §8.1, RFC 6935/6936). A
    # frame that passes the checks carries an inner martian, so that it
    # is dropped (as martian) only after decapsulation.
    set martian [string range $in 0 13][ipv4 127.0.0.1 198.19.1.1 [udp 1 2 pp]]
    set ck4 {{src csum vni inner} {
        eth 0x0800 [ipv4 $src 10.0.0.1 [udp_csum $src 10.0.0.1 50000 4789 [vxlan 0x08 $vni $inner] $csum]]
    }}
    set ck6 {{src csum vni inner} {
        eth 0x86dd [ipv6 $src 2001:db8:1::1 17 [udp_csum $src 2001:db8:1::1 50000 4789 [vxlan 0x08 $vni $inner] $csum]]
    }}
    lappend out tunnel_bad_checksum [apply $ck4 10.0.0.2 bad 1000 $in]
    lappend out martian [apply $ck4 10.0.0.2 good 1000 $martian]
    # t6 (2001:db8:1::3, VNI 3000): checksum required
    lappend out tunnel_bad_checksum [apply $ck6 2001:db8:1::3 bad 3000 $in]
    lappend out martian [apply $ck6 2001:db8:1::3 good 3000 $martian]
    lappend out tunnel_zero_checksum6 [apply $ck6 2001:db8:1::3 zero 3000 $in]
    # t6z (2001:db8:1::4, VNI 3001): udp_zero_checksum6 = true
    lappend out martian [apply $ck6 2001:db8:1::4 zero 3001 $martian]
    lappend out tunnel_bad_checksum [apply $ck6 2001:db8:1::4 bad 3001 $in]
    # a UDP length past the IP payload; one below it (the rest is padding)
    set u [udp 50000 4789 [vxlan 0x08 1000 $in]]
    set long "[string range $u 0 3][be16 [expr {[string length $u] + 1}]][string range $u 6 end]"
    lappend out tunnel_truncated [eth 0x0800 [ipv4 10.0.0.2 10.0.0.1 $long]]
    set u [udp 50000 4789 [vxlan 0x08 1000 $martian]]
    lappend out martian [eth 0x0800 [ipv4 10.0.0.2 10.0.0.1 "[string range $u 0 3][be16 [string length $u]][string range $u 6 end]\0\0\0\0"]]
    # GENEVE (RFC 8926 §3.4): C bit set (critical option present), with
    # and without the option itself; a non-critical option is skipped
    set opt "[be16 0x0103][binary format cc 0x80 1][be32 0]"
    lappend out tunnel_critical_option [apply $to_us 10.0.0.3 "\x02\x40[string range $gen 2 end]$opt$in" 6081]
    lappend out tunnel_critical_option [apply $to_us 10.0.0.3 "\x00\x40[string range $gen 2 end]$in" 6081]
    set opt "[be16 0x0103][binary format cc 0x00 1][be32 0]"
    lappend out martian [apply $to_us 10.0.0.3 "\x02\x00[string range $gen 2 end]$opt$martian" 6081]
    return $out
}

set cases [concat [frames_l2] [frames_ipv4] [frames_ipv6] [frames_tunnel]]
set expect [dict create]
set frames {}
foreach {reason frame} $cases {
    dict incr expect $reason
    lappend frames $frame
}
set nframes [llength $frames]
write_pcap [file join [lab_rundir] hostile.pcap] $frames

start_vbrd {conf {
ports = (
  { name = "in"; devargs = "net_pcap0,rx_pcap=@rundir@/hostile.pcap"; },
  { name = "out"; devargs = "net_null0,no-rx=1"; }
);
interfaces = (
  { name = "src"; port = "in"; addresses = [ "10.0.0.1/16", "2001:db8:1::1/64" ]; },
  { name = "v100"; port = "in"; vlan = 100; addresses = [ "10.100.0.1/24" ]; },
  { name = "dst"; port = "out"; addresses = [ "198.18.0.1/30", "2001:db8:2::1/64" ]; }
);
routes = (
  { prefix = "198.19.0.0/16"; via = "198.18.0.2"; },
  { prefix = "2001:db8:9::/48"; via = "2001:db8:2::2"; }
);
neighbors = (
  { interface = "dst"; address = "198.18.0.2"; mac = "02:00:00:00:00:99"; },
  { interface = "dst"; address = "2001:db8:2::2"; mac = "02:00:00:00:00:98"; }
);
tunnels = (
  { name = "tv"; type = "vxlan"; vni = 1000; local = "10.0.0.1"; remote = "10.0.0.2"; address = "10.99.0.1/30"; },
  { name = "tg"; type = "geneve"; vni = 2000; local = "10.0.0.1"; remote = "10.0.0.3"; address = "10.98.0.1/30"; },
  { name = "t6"; type = "vxlan"; vni = 3000; local = "2001:db8:1::1"; remote = "2001:db8:1::3"; },
  { name = "t6z"; type = "vxlan"; vni = 3001; local = "2001:db8:1::1"; remote = "2001:db8:1::4";
    udp_zero_checksum6 = true; }
);
}} {
    test "every one of the $nframes hostile frames is received" {
        wait_for_condition 50 100 {[port_stat in rx_packets] == $nframes} else {
            fail "port rx_packets [port_stat in rx_packets], want $nframes (frames in the pcap)"
        }
    }

    test {each hostile frame is dropped under the reason it was written for} {
        # the last frames may still be in the worker: wait for the total first
        wait_for_condition 50 100 {[stat drops_total] >= $nframes} else {}
        set st [vbrctl show stats]
        set wrong {}
        dict for {r n} $expect {
            set got [expr {[dict exists $st drops $r] ? [dict get $st drops $r] : "(no such reason)"}]
            if {$got ne $n} { lappend wrong "$r: $got, want $n" }
        }
        dict for {r n} [dict get $st drops] {
            if {$n != 0 && ![dict exists $expect $r]} { lappend wrong "$r: $n, want 0" }
        }
        if {[llength $wrong]} { fail "drop counters: [join $wrong {; }]" }
    }

    test {nothing vanishes: drops_total equals the frames sent, none forwarded} {
        set st [vbrctl show stats]
        assert_equal [dict get $st drops_total] $nframes "drops_total"
        assert_equal [dict get $st rx_packets] $nframes "rx_packets"
        assert_equal [dict get $st forwarded] 0 "forwarded"
        assert_equal [dict get $st local] 0 "local (no echo among the frames)"
    }

    test {the mempool returns to idle after the hostile frames (no mbuf leak)} {
        wait_for_condition 50 100 {[dict get [vbrctl show mempool] in_use] == 0} else {
            fail "mempool in_use [dict get [vbrctl show mempool] in_use] after the replay, want 0"
        }
    }

    test {vbrd still answers every show command} {
        foreach what {ports interfaces routes neighbors stats nd mempool config tunnels paths} {
            lassign [vbrctl_raw show $what] rc out
            assert_equal $rc 0 "vbrctl show $what: $out"
        }
    }

    # --- the control socket ---------------------------------------------

    test {hostile control-socket clients get errors, vbrctl keeps working} {
        set py [file join [lab_rundir] ctl_hostile.py]
        _lab_write $py {
import json, socket, sys, time
path = sys.argv[1]
def conn():
    # A socket with a timeout is non-blocking: on a full listen backlog
    # connect() fails with EAGAIN at once where a blocking client would wait.
    deadline = time.time() + 5
    while True:
        s = socket.socket(socket.AF_UNIX); s.settimeout(5)
        try:
            s.connect(path); return s
        except BlockingIOError:
            s.close()
            if time.time() > deadline: raise
            time.sleep(0.01)
def ask(data):
    s = conn(); s.sendall(data); out = b""
    try:
        while not out.endswith(b"\n"):
            d = s.recv(65536)
            if not d: break
            out += d
    except socket.timeout:
        out += b"TIMEOUT"
    s.close(); return out
def reply_ok(out):
    try: return json.loads(out.split(b"\n")[0])["ok"]
    except Exception: return None
bad = [b"\n", b"garbage\n", b"{}\n", b"[]\n", b'{"argv":null}\n', b'{"argv":[1,2]}\n',
       b'{"argv":[]}\n', b'{"argv":["show"]}\n', b'{"argv":["\xff\xfe"]}\n',
       b'{"argv":["show","\\u0000ports"]}\n', b'{"argv":' + b"[" * 5000 + b"]" * 5000 + b"}\n",
       b'{"argv":["' + b"A" * 100000 + b'"]}\n', b'{"argv":' + json.dumps(["x"] * 100).encode() + b"}\n",
       b'{"argv":["path","set"]}\n', b'{"argv":["path","set","nogroup","nopath"]}\n',
       b'{"argv":["show","ports"],"argv":["reload"]}\n']
for b in bad:
    r = ask(b)
    if reply_ok(r) is not False:
        print("NOT-AN-ERROR", repr(b[:40]), repr(r[:100])); sys.exit(1)
# 2 MiB without a newline: an error, then the connection is closed
s = conn()
try:
    for i in range(2): s.sendall(b"x" * (1 << 20))
except OSError:
    pass
s.close()
# more clients than served at once, all idle, then closed
held = []
for i in range(100):
    try: held.append(conn())
    except OSError: break
for s in held: s.close()
# half-closed: the request, then EOF; the reply must still come. vbrd may
# not have reaped the closed clients yet (it serves 64 at once; a new one
# evicts the longest idle): retry, bounded, if it is closed on.
for attempt in range(50):
    try:
        s = conn(); s.sendall(b'{"argv":["show","stats"]}\n'); s.shutdown(socket.SHUT_WR)
        r = b""
        while True:
            d = s.recv(65536)
            if not d: break
            r += d
        s.close()
        break
    except ConnectionResetError:
        s.close(); time.sleep(0.02)
if reply_ok(r) is not True: print("HALF-CLOSED", repr(r[:100])); sys.exit(1)
# a client that sends requests and never reads the replies, then resets
s = conn(); s.setblocking(False)
for i in range(20000):
    try: s.send(b'{"argv":["show","neighbors"]}\n')
    except BlockingIOError: break
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0"); s.close()
# one byte at a time
s = conn()
for c in b'{"argv":["show","ports"]}\n': s.send(bytes([c])); time.sleep(0.001)
r = s.recv(65536)
while not r.endswith(b"\n"): r += s.recv(65536)
s.close()
if reply_ok(r) is not True: print("SLOW", repr(r[:100])); sys.exit(1)
print("OK")
}
        set fds0 [llength [glob -nocomplain /proc/[vbrd_pid]/fd/*]]
        lassign [lab_run - python3 $py [vbrd_socket]] rc out
        assert_equal $rc 0 "hostile client script: $out"
        wait_for_condition 50 100 {[lindex [vbrctl_raw show ports] 0] == 0} else {
            fail "vbrctl show ports fails after the hostile clients: [vbrctl_raw show ports]"
        }
        # every client connection was closed again
        wait_for_condition 50 100 {[llength [glob -nocomplain /proc/[vbrd_pid]/fd/*]] <= $fds0} else {
            fail "vbrd holds [llength [glob -nocomplain /proc/[vbrd_pid]/fd/*]] fds, $fds0 before"
        }
    }

    test {64 idle control connections: vbrctl still gets in at once, vbrd closes idle ones after 5 s} {
        # 70 idle clients (more than the 64 served), each timing when vbrd
        # closes it; meanwhile an operator's vbrctl must be answered.
        set py [file join [lab_rundir] ctl_idle.py]
        _lab_write $py {
import json, select, socket, sys, time
path, n = sys.argv[1], int(sys.argv[2])
def conn():
    deadline = time.time() + 5
    while True:
        s = socket.socket(socket.AF_UNIX); s.settimeout(5)
        try:
            s.connect(path); return s
        except BlockingIOError:
            s.close()
            if time.time() > deadline: raise
            time.sleep(0.01)
socks, t_conn = [], []
for i in range(n):
    socks.append(conn()); t_conn.append(time.monotonic())
print("READY", flush=True)
closed = [None] * n
deadline = time.monotonic() + 20
while None in closed and time.monotonic() < deadline:
    still = [s for i, s in enumerate(socks) if closed[i] is None]
    for s in select.select(still, [], [], 0.2)[0]:
        i = socks.index(s)
        try: d = s.recv(1)
        except OSError: d = b""
        if not d: closed[i] = round(time.monotonic() - t_conn[i], 3)
print(json.dumps(closed), flush=True)
}
        set n 70
        set pid [lab_spawn - python3 $py [vbrd_socket] $n]
        wait_for_condition 100 100 {[string match "*READY*" [lab_spawn_output $pid]]} else {
            fail "the idle clients did not connect: [lab_spawn_output $pid]"
        }
        set t0 [clock milliseconds]
        lassign [vbrctl_raw show stats] rc out
        set ms [expr {[clock milliseconds] - $t0}]
        if {$rc != 0} { lab_kill $pid } ;# do not hold the slots for the next tests
        assert_equal $rc 0 "vbrctl -j show stats with $n idle clients: $out"
        note "vbrctl -j show stats answered in $ms ms with $n idle clients connected"
        assert_lessthan $ms 3000
        if {![lab_wait_exit $pid 30000]} { fail "the idle client script did not finish" }
        set closed [json::json2dict [lindex [split [string trim [lab_spawn_output $pid]] "\n"] end]]
        set late 0
        set never 0
        set max 0
        foreach t $closed {
            if {$t eq "null"} { incr never; continue }
            if {$t >= 4.5} { incr late }
            if {$t > $max} { set max $t }
        }
        note "idle clients: $late closed by the idle timeout, [expr {$n - $late - $never}] evicted earlier, $never never, last after $max s"
        assert_equal $never 0 "idle clients vbrd never closed (of $n)"
        # 64 served, one evicted for vbrctl: 63 stay until the timeout
        assert_morethan $late 59 "idle clients closed by the timeout (5 s)"
        assert_lessthan $max 15
    }

    test {a command given extra words is a usage error: vbrctl reload x exits 1} {
        set gen0 [dict get [vbrctl show config] generation]
        lassign [vbrctl_raw reload x] rc out
        assert_equal $rc 1 "vbrctl reload x: $out"
        assert_match "*reload: unexpected argument 'x' (usage: reload)*" $out
        assert_equal [dict get [vbrctl show config] generation] $gen0 "generation after reload x"
        lassign [vbrctl_raw show stats now] rc out
        assert_equal $rc 1 "vbrctl show stats now: $out"
        assert_match "*(usage: show stats)*" $out
        lassign [vbrctl_raw path set onlygroup] rc out
        assert_equal $rc 1 "vbrctl path set onlygroup: $out"
        assert_match "*missing argument (usage: path set GROUP PATH)*" $out
    }

    test {an unknown command of multi-byte characters gets an error in valid UTF-8} {
        set py [file join [lab_rundir] ctl_utf8.py]
        _lab_write $py {
import json, socket, sys
for ch in ["\u00e9", "\u20ac", "\U0001f600"]:
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
    s.sendall(json.dumps({"argv": [ch * 300]}).encode() + b"\n")
    raw = b""
    while not raw.endswith(b"\n"):
        d = s.recv(65536)
        if not d: break
        raw += d
    s.close()
    try:
        err = json.loads(raw.decode("utf-8", errors="strict"))["error"]
    except Exception as e:
        print("NOT-UTF8-JSON", repr(raw[:300]), e); sys.exit(1)
    echo = err[len("unknown command '"):err.find("...' (try 'help')")]
    if not err.startswith("unknown command '" + ch * 10) or set(echo) != {ch}:
        print("BAD-MESSAGE", repr(err)); sys.exit(1)
print("OK")
}
        lassign [lab_run - python3 $py [vbrd_socket]] rc out
        assert_equal $rc 0 "utf-8 client: $out"
    }

    test {a reload of a file including a directory, a FIFO or /proc/self/mem is refused with FILE:LINE; vbrd keeps answering} {
        # @include names are relative to the config file's directory
        set d [lab_rundir]
        file mkdir [file join $d inc.d]
        exec mkfifo [file join $d inc.fifo]
        file link -symbolic [file join $d inc.mem] /proc/self/mem
        set good [_lab_read [vbrd_conf]]
        set line [expr {[regexp -all "\n" $good] + 1}]
        set gen0 [dict get [vbrctl show config] generation]
        foreach {name what} {inc.d "a directory, not a regular file"
                             inc.fifo "a FIFO, not a regular file"
                             inc.mem "cannot read: Input/output error"} {
            _lab_write [vbrd_conf] "$good@include \"$name\"\n"
            set t0 [clock milliseconds]
            lassign [vbrctl_raw reload] rc out
            set ms [expr {[clock milliseconds] - $t0}]
            assert_equal $rc 1 "reload with @include \"$name\": $out"
            assert_match "*[vbrd_conf]:$line: @include \"$name\" (*): $what*" $out
            assert_lessthan $ms 5000
            assert_true {![lab_exited [vbrd_pid]]} "vbrd exited on a reload with @include \"$name\""
            assert_equal [dict get [vbrctl show config] generation] $gen0 "generation"
        }
        _lab_write [vbrd_conf] $good
        lassign [vbrctl_raw reload] rc out
        assert_equal $rc 0 "reload of the good file again: $out"
        assert_equal [dict get [vbrctl show config] generation] [expr {$gen0 + 1}] "generation"
    }
}

# --- hostile config files ----------------------------------------------------

test {--check-config on hostile files: exit 2, FILE:LINE messages, no hang} {
    set dir [file join [lab_rundir] hostile-conf]
    file mkdir $dir
    set files [dict create \
        empty.conf "" \
        binary.conf "\x00\x01\x02\xff\xfe[string repeat \x7f\x00 500]" \
        unterminated.conf "ports = (\n  \{ name = \"p\";\n" \
        deep.conf "a = [string repeat "\{ b = " 20000]1;[string repeat " \};" 20000]\n" \
        deeplist.conf "a = [string repeat ( 20000][string repeat ) 20000];\n" \
        self.conf "@include \"self.conf\"\n" \
        loop-a.conf "@include \"loop-b.conf\"\n" \
        loop-b.conf "@include \"loop-a.conf\"\n" \
        devzero.conf "@include \"/dev/zero\"\n" \
        missing.conf "@include \"no-such-file.conf\"\n" \
        hugenum.conf "ports = ( \{ name = \"p\"; devargs = \"net_null0\"; rx_desc = 99999999999999999999999; \} );\n" \
        float.conf "ports = ( \{ name = \"p\"; devargs = \"net_null0\"; mtu = 1e308; \} );\n" \
        longstr.conf "ports = ( \{ name = \"p\"; devargs = \"[string repeat x 100000]\"; \} );\n" \
    ]
    set many {}
    for {set i 0} {$i < 1000} {incr i} {
        lappend many [format {{ name = "p%d"; devargs = "net_null%d"; }} $i $i]
    }
    dict set files manyports.conf "ports = ([join $many ,]);\n"
    foreach {name text} $files {
        set fd [open [file join $dir $name] wb]
        puts -nonewline $fd $text
        close $fd
    }
    set problems {}
    foreach name [lsort [dict keys $files]] {
        set f [file join $dir $name]
        set t0 [clock milliseconds]
        lassign [vbrd_run --check-config $f] rc out
        set ms [expr {[clock milliseconds] - $t0}]
        if {$rc != 2} {
            lappend problems "$name: exit $rc, want 2 ($out)"
        } elseif {$ms > 5000} {
            lappend problems "$name: took $ms ms"
        } elseif {![regexp -line {^[^:\n]+:\d+: } $out] && ![regexp -line "^\\S*$name: " $out]} {
            lappend problems "$name: no FILE:LINE or FILE: message in: $out"
        }
    }
    if {[llength $problems]} { fail [join $problems "\n"] }
}

test {--check-config returns at once with FILE:LINE on a FIFO, directory or /proc/self/mem include, and on a FIFO file} {
    set dir [file join [lab_rundir] include-conf]
    file mkdir [file join $dir conf.d]
    exec mkfifo [file join $dir pipe] [file join $dir top.fifo]
    file link -symbolic [file join $dir mem] /proc/self/mem
    set head "ports = ( \{ name = \"p\"; devargs = \"net_null0\"; \} );\n"
    set cases [list \
        fifo-inc.conf pipe "a FIFO, not a regular file" \
        dir-inc.conf conf.d "a directory, not a regular file" \
        mem-inc.conf mem "cannot read: Input/output error"]
    set problems {}
    foreach {name inc what} $cases {
        set f [file join $dir $name]
        _lab_write $f "$head@include \"$inc\"\n"
        set t0 [clock milliseconds]
        lassign [vbrd_run --check-config $f] rc out
        set ms [expr {[clock milliseconds] - $t0}]
        set want "$f:2: @include \"$inc\" ([file join $dir $inc]): $what"
        if {$rc != 2 || $ms > 5000 || [string trim $out] ne $want} {
            lappend problems "$name: exit $rc after $ms ms: $out (want exit 2: $want)"
        }
    }
    set f [file join $dir top.fifo]
    lassign [vbrd_run --check-config $f] rc out
    if {$rc != 2 || [string trim $out] ne "$f:1: a FIFO, not a regular file"} {
        lappend problems "top.fifo: exit $rc: $out"
    }
    if {[llength $problems]} { fail [join $problems "\n"] }
}

test {vbrctl says that vbrd closed the connection when it does, not "Broken pipe"} {
    # A stand-in for a daemon that closes every connection at once.
    set sock [file join [lab_rundir] closer.sock]
    set py [file join [lab_rundir] closer.py]
    _lab_write $py {
import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(16)
while True:
    c, _ = s.accept(); c.close()
}
    set pid [lab_spawn - -lifetime 60 python3 $py $sock]
    wait_for_condition 50 100 {[file exists $sock]} else { fail "the stand-in did not start" }
    set problems {}
    for {set i 0} {$i < 5} {incr i} {
        set code [catch {exec timeout 10 $::vbrd::ctl_bin -s $sock show stats 2>@1} out opts]
        set rc [expr {$code ? [lindex [dict get $opts -errorcode] 2] : 0}]
        if {$rc != 2 || ![string match "*vbrd closed the connection on $sock without answering*" $out]} {
            lappend problems "exit $rc: $out"
        }
    }
    lab_kill $pid
    if {[llength $problems]} { fail [join $problems "\n"] }
}

test {vbrctl stops on a paged reply that does not move on or changes shape, with a clear error} {
    # A stand-in daemon answering every page of show routes: MODE stuck
    # gives the same cursor again and again; shape, a page whose routes
    # are no array; gen, a page of another generation.
    set sock [file join [lab_rundir] pager.sock]
    set py [file join [lab_rundir] pager.py]
    _lab_write $py {
import json, os, socket, sys
path, mode = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(16)
while True:
    c, _ = s.accept(); f = c.makefile("rwb"); n = 0
    for line in f:
        n += 1
        data = {"routes": [{"prefix": "10.0.0.%d/32" % n}] * 50, "generation": 1, "cursor": "1:%d" % (50 * n)}
        if mode == "stuck":
            data["cursor"] = "1:5"
        elif mode == "shape" and n == 3:
            data["routes"] = {"oops": 1}
        elif mode == "gen" and n == 3:
            data["generation"] = 2
        f.write((json.dumps({"ok": True, "data": data}) + "\n").encode()); f.flush()
    c.close()
}
    set problems {}
    foreach {mode want} {stuck "the same cursor twice" shape "a page unlike the first" gen "a page of another generation"} {
        file delete $sock
        set pid [lab_spawn - -lifetime 60 python3 $py $sock $mode]
        wait_for_condition 50 100 {[file exists $sock]} else { fail "the stand-in did not start" }
        set code [catch {exec timeout 10 $::vbrd::ctl_bin -s $sock -j show routes 2>@1} out opts]
        set rc [expr {$code ? [lindex [dict get $opts -errorcode] 2] : 0}]
        if {$rc != 2 || ![string match "*vbrctl: paged reply: $want; stopped*" $out]} {
            lappend problems "$mode: exit $rc: [string range $out 0 300]"
        }
        lab_kill $pid
    }
    if {[llength $problems]} { fail [join $problems "\n"] }
}

# --- reloads during traffic ----------------------------------------------------

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

set lab_conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
}

start_vbrd [list conf $lab_conf] {
    test {a SIGHUP storm and bad-file reloads during a 100 pps ping lose nothing} {
        assert_ping h1 10.0.2.2 2
        set gen0 [dict get [vbrctl show config] generation]
        set ping [lab_spawn h1 ping -i 0.01 -c 400 -W 1 10.0.2.2]
        for {set i 0} {$i < 100} {incr i} {
            lab_kill [vbrd_pid] HUP
            after 10
        }
        # now a broken file: reloads must be refused while the ping goes on
        set good [_lab_read [vbrd_conf]]
        _lab_write [vbrd_conf] "$good\nports = ( \{ name = \"p1\"; \n"
        for {set i 0} {$i < 10} {incr i} {
            lassign [vbrctl_raw reload] rc out
            assert_equal $rc 1 "reload of a broken file: $out"
            lab_kill [vbrd_pid] HUP
            after 20
        }
        _lab_write [vbrd_conf] "\x00\x01\x02garbage\xff"
        lassign [vbrctl_raw reload] rc out
        assert_equal $rc 1 "reload of a binary file: $out"
        _lab_write [vbrd_conf] $good
        if {![lab_wait_exit $ping 15000]} { fail "ping did not finish" }
        set st [ping_stats [lab_spawn_output $ping]]
        assert_equal [dict get $st received] 400 "ping replies during the reloads"
        assert_morethan [dict get [vbrctl show config] generation] $gen0
        assert_ping h1 10.0.2.2 2
    }
}
