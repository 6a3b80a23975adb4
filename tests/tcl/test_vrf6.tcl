# VRFs over IPv6 (conf/README.md "VRFs"): two VRFs with the same interface
# address and the same routed prefix, each routed in its own IPv6 FIB
# (pipeline/ip6.c looks up the ingress interface's fib6), with Neighbor
# Discovery per interface and ICMPv6 errors from the ingress interface's
# address. test_vrf.tcl covers IPv4.
#
#   hx 2001:db8:1::2 ── x 2001:db8:1::1 (VRF a) ┐       ┌ (VRF a) z 2001:db8:5::1 ── hz 2001:db8:5::2, 2001:db8:99::1 (lo)
#                                               [vbrd]
#   hy 2001:db8:1::2 ── y 2001:db8:1::1 (VRF b) ┘       └ (VRF b) w 2001:db8:6::1 ── hw 2001:db8:6::2, 2001:db8:99::1 (lo)
#
#   VRF a (table 100): 2001:db8:99::/48 via 2001:db8:5::2 (hz)
#   VRF b (table 200): 2001:db8:99::/48 via 2001:db8:6::2 (hw)
#
# hx and hy have the same address, and so have hz and hw: what reached a
# host is counted in its own namespace (/proc/net/snmp6's Icmp6 counters),
# so a packet routed in the wrong VRF shows at the wrong host.


set hosts {hx hy hz hw}
# The hosts behind each VRF's interfaces (x z; y w).
set vrf_hosts {a {hx hz} b {hy hw}}
foreach {h addr gw} {
    hx 2001:db8:1::2/64 2001:db8:1::1
    hy 2001:db8:1::2/64 2001:db8:1::1
    hz 2001:db8:5::2/64 2001:db8:5::1
    hw 2001:db8:6::2/64 2001:db8:6::1
} {
    lab_host6 $h $addr $gw
}
foreach h {hz hw} { lab_exec $h ip -6 addr add 2001:db8:99::1/128 dev lo }

# --- helpers ---

# Icmp6 counters of HOST's namespace (/proc/net/snmp6, "Icmp6InEchos 3"):
# dict NAME -> value without the Icmp6 prefix (InEchos, InTimeExcds,
# InDestUnreachs, ...).
proc icmp6 {host} {
    set d [dict create]
    foreach {k v} [lab_exec $host cat /proc/net/snmp6] {
        if {[string match Icmp6* $k] && ![string match Icmp6*Type* $k]} {
            dict set d [string range $k 5 end] $v
        }
    }
    return $d
}

# Icmp6 counters of HOSTS: dict HOST -> counters.
proc icmp6_snap {hosts} {
    set s [dict create]
    foreach h $hosts { dict set s $h [icmp6 $h] }
    return $s
}

# Change of counter KEY of HOST between two icmp6_snap.
proc icmp6_delta {s0 s1 host key} {
    return [expr {[dict get $s1 $host $key] - [dict get $s0 $host $key]}]
}

# Ping DST from SRC COUNT times, every echo answered; WANT is a dict HOST
# -> echo requests it must have received (InEchos), 0 for the hosts that
# must have received none.
proc ping_reaches {src dst count want} {
    set s0 [icmp6_snap [dict keys $want]]
    assert_ping $src $dst $count
    set s1 [icmp6_snap [dict keys $want]]
    dict for {h n} $want {
        assert_equal [icmp6_delta $s0 $s1 $h InEchos] $n "echo requests $h received (ping $dst from $src)"
    }
}

# vbrd's `show vrfs` as a dict NAME -> row.
proc vrf_rows {} {
    set out [dict create]
    foreach v [dict get [vbrctl show vrfs] vrfs] { dict set out [dict get $v name] $v }
    return $out
}

# Frames vbrd's port of lab host HOST received (what HOST's eth0 sent) and
# sent (what it received), as the root-namespace veth counts them: {RX TX}.
proc wire_counts {host} {
    set d /sys/class/net/[lab_if $host]/statistics
    return [list [string trim [_lab_read $d/rx_packets]] [string trim [_lab_read $d/tx_packets]]]
}

# HOST's neighbor entry for ADDR on eth0: {STATE LLADDR} ({} when none).
proc host_neigh {host addr} {
    set j [json::json2dict [lab_exec $host ip -j -6 neigh show $addr dev eth0]]
    if {[llength $j] == 0} { return {} }
    set e [lindex $j 0]
    set mac [expr {[dict exists $e lladdr] ? [dict get $e lladdr] : ""}]
    return [list [lindex [dict get $e state] 0] $mac]
}

# vbrd's neighbor entry for ADDR on interface IFACE, or {}.
proc vbrd_neigh {iface addr} {
    foreach n [dict get [vbrctl show neighbors] neighbors] {
        if {[dict get $n interface] eq $iface && [dict get $n address] eq $addr} { return $n }
    }
    return {}
}

# Ping DST from SRC COUNT times; each request must draw "Destination
# unreachable: No route" from FROM. Checks that only SRC got the errors
# (of HOSTS) and that none of HOSTS received an echo request; VRF's
# no_route and the global one grow by COUNT, OTHER's counters not at all.
proc ping_no_route {src dst count from vrf other} {
    set quiet [lsearch -all -inline -not -exact $::hosts $src]
    # the wires' counts first and last: they bracket vbrd's
    set w0 [dict create]
    foreach h $::hosts { dict set w0 $h [wire_counts $h] }
    set v0 [vrf_rows]
    set nr0 [drops no_route]
    set s0 [icmp6_snap $::hosts]
    lassign [ping_from $src $dst -c $count -i 0.2 -W 1] rc out
    set re "From [string map {. \\.} $from] icmp_seq=\\d+ Destination unreachable: No route"
    assert_equal [regexp -all $re $out] $count "no-route errors from $from (ping $dst from $src): $out"
    wait_for_condition 50 100 {[dict get [vrf_rows] $vrf no_route] - [dict get $v0 $vrf no_route] >= $count} else {}
    set s1 [icmp6_snap $::hosts]
    set v1 [vrf_rows]
    set w1 [dict create]
    foreach h $::hosts { dict set w1 $h [wire_counts $h] }
    assert_equal [icmp6_delta $s0 $s1 $src InDestUnreachs] $count "destination unreachables $src received"
    foreach h $::hosts {
        assert_equal [icmp6_delta $s0 $s1 $h InEchos] 0 "echo requests $h received (ping $dst from $src)"
    }
    foreach h $quiet {
        assert_equal [icmp6_delta $s0 $s1 $h InDestUnreachs] 0 "destination unreachables $h received"
    }
    assert_equal [expr {[dict get $v1 $vrf no_route] - [dict get $v0 $vrf no_route]}] $count "VRF $vrf no_route"
    assert_equal [expr {[drops no_route] - $nr0}] $count "drops no_route"
    assert_equal [expr {[dict get $v1 $other no_route] - [dict get $v0 $other no_route]}] 0 "VRF $other no_route"
    # The other VRF's packet counters: at most what its own hosts' wires
    # carried meanwhile (read before and after vbrd's), so none of SRC's
    # packets was counted there. Its hosts are idle: ND or MLD of their own
    # is all they may send.
    set rx 0
    set tx 0
    foreach i [dict get $::vrf_hosts $other] {
        lassign [dict get $w0 $i] r0 t0
        lassign [dict get $w1 $i] r1 t1
        incr rx [expr {$r1 - $r0}]
        incr tx [expr {$t1 - $t0}]
    }
    assert_range [expr {[dict get $v1 $other rx_packets] - [dict get $v0 $other rx_packets]}] 0 $rx \
        "VRF $other rx_packets (its hosts sent $rx frames meanwhile)"
    assert_range [expr {[dict get $v1 $other tx_packets] - [dict get $v0 $other tx_packets]}] 0 $tx \
        "VRF $other tx_packets (its hosts received $tx frames meanwhile)"
}

start_vbrd {conf {
eal = { memory_mb = 1024; };
ports = (
  { name = "px"; devargs = "net_af_packet0,iface=@hx@"; },
  { name = "py"; devargs = "net_af_packet1,iface=@hy@"; },
  { name = "pz"; devargs = "net_af_packet2,iface=@hz@"; },
  { name = "pw"; devargs = "net_af_packet3,iface=@hw@"; }
);
vrfs = (
  { name = "a"; table = 100; },
  { name = "b"; table = 200; }
);
interfaces = (
  { name = "x"; port = "px"; address = "2001:db8:1::1/64"; vrf = "a"; },
  { name = "y"; port = "py"; address = "2001:db8:1::1/64"; vrf = "b"; },
  { name = "z"; port = "pz"; address = "2001:db8:5::1/64"; vrf = "a"; },
  { name = "w"; port = "pw"; address = "2001:db8:6::1/64"; vrf = "b"; }
);
routes = (
  { vrf = "a"; prefix = "2001:db8:99::/48"; via = "2001:db8:5::2"; },
  { vrf = "b"; prefix = "2001:db8:99::/48"; via = "2001:db8:6::2"; }
);
# no re-confirmation of learned neighbors while the tests count
neighbor = { reachable_s = 3600; };
}} {
    test {show routes vrf b: 2001:db8:99::/48 via 2001:db8:6::2 on w; show fib vrf a 2001:db8:99::1: via 2001:db8:5::2 on z} {
        set found {}
        foreach r [dict get [vbrctl show routes vrf b] routes] {
            if {[dict get $r prefix] eq "2001:db8:99::/48"} { lappend found $r }
        }
        assert_equal [llength $found] 1 "2001:db8:99::/48 in show routes vrf b: $found"
        set r [lindex $found 0]
        assert_equal [dict get $r vrf] b "its vrf"
        assert_equal [dict get $r source] config "its source"
        assert_equal [dict get $r next_hops] {{via 2001:db8:6::2 interface w}} "its next hops"
        set f [vbrctl show fib vrf a 2001:db8:99::1]
        assert_equal [dict get $f vrf] a "show fib vrf a 2001:db8:99::1: $f"
        assert_equal [dict get $f prefix] 2001:db8:99::/48 "show fib vrf a 2001:db8:99::1: $f"
        assert_equal [dict get $f next_hops] {{via 2001:db8:5::2 interface z}} "show fib vrf a 2001:db8:99::1"
        set f [vbrctl show fib vrf b 2001:db8:99::1]
        assert_equal [dict get $f next_hops] {{via 2001:db8:6::2 interface w}} "show fib vrf b 2001:db8:99::1"
    }

    test {own address per VRF: hx and hy each ping 2001:db8:1::1, answered by x and y, ND resolves per interface} {
        set s0 [icmp6_snap {hx hy}]
        assert_ping hx 2001:db8:1::1 3
        assert_ping hy 2001:db8:1::1 3
        set s1 [icmp6_snap {hx hy}]
        foreach h {hx hy} {
            assert_equal [icmp6_delta $s0 $s1 $h InEchoReplies] 3 "echo replies $h received"
            # the host's entry: the MAC of its own port (the root end of its veth)
            lassign [host_neigh $h 2001:db8:1::1] state mac
            assert_true {$state in {REACHABLE STALE DELAY PROBE}} "$h's neighbor 2001:db8:1::1: $state"
            assert_equal [string tolower $mac] [lab_mac - [lab_if $h]] "$h's neighbor 2001:db8:1::1: MAC"
        }
        # vbrd's: 2001:db8:1::2 twice, once per interface, each the MAC of its host
        foreach {iface h} {x hx y hy} {
            set n [vbrd_neigh $iface 2001:db8:1::2]
            assert_true {$n ne {}} "vbrd's neighbor 2001:db8:1::2 on $iface: none"
            assert_true {[dict get $n state] in {reachable stale}} "vbrd's neighbor 2001:db8:1::2 on $iface: $n"
            assert_equal [string tolower [dict get $n mac]] [lab_mac $h] "vbrd's neighbor 2001:db8:1::2 on $iface: MAC"
        }
    }

    test {the same prefix in two VRFs: hx's ping6 to 2001:db8:99::1 reaches hz only, hy's hw only} {
        ping_reaches hx 2001:db8:99::1 5 {hz 5 hw 0 hy 0}
        ping_reaches hy 2001:db8:99::1 5 {hz 0 hw 5 hx 0}
        # and back: hz and hw reach 2001:db8:1::2 in their own VRF
        ping_reaches hz 2001:db8:1::2 3 {hx 3 hy 0}
        ping_reaches hw 2001:db8:1::2 3 {hx 0 hy 3}
    }

    test {hop limit 1 from hx: Time Exceeded from 2001:db8:1::1 at hx only} {
        set all {hx hy hz hw}
        set s0 [icmp6_snap $all]
        set te0 [drops ttl_expired]
        lassign [ping_from hx 2001:db8:99::1 -c 1 -t 1 -W 2] rc out
        assert_match "*From 2001:db8:1::1 icmp_seq=1 Time exceeded: Hop limit*" $out
        wait_for_condition 20 100 {[drops ttl_expired] - $te0 >= 1} else {}
        set s1 [icmp6_snap $all]
        assert_equal [icmp6_delta $s0 $s1 hx InTimeExcds] 1 "time exceeded hx received"
        foreach h {hy hz hw} {
            assert_equal [icmp6_delta $s0 $s1 $h InTimeExcds] 0 "time exceeded $h received"
            assert_equal [icmp6_delta $s0 $s1 $h InEchos] 0 "echo requests $h received"
        }
        assert_equal [expr {[drops ttl_expired] - $te0}] 1 "drops ttl_expired"
    }

    test {a prefix of VRF b only: hx to 2001:db8:6::2 gets no route from 2001:db8:1::1, VRF a no_route +3, VRF b unmoved} {
        ping_no_route hx 2001:db8:6::2 3 2001:db8:1::1 a b
        # and the other way: hy to VRF a's 2001:db8:5::2
        ping_no_route hy 2001:db8:5::2 3 2001:db8:1::1 b a
    }
}
