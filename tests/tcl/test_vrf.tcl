# VRFs (issue 23; conf/README.md "VRFs"): two VPCs with the same prefix
# (10.1.0.0/16) behind two VNIs and two 802.1Q sub-interfaces, each
# reaching only its own side; a shared-services VRF with one prefix leaked
# into vpc-a; own addresses (ARP, a tunnel's address) and ICMP errors per
# VRF, the errors from the ingress interface's address; reloads that add
# and remove a VRF and move an interface between VRFs while the untouched
# VRFs' traffic flows; config errors with their lines; the example
# conf/examples/two-vpc.conf passes --check-config.
#
#   a1 10.1.1.2 ─ sw va ┐                                 ┌ vxa ─ ra 10.1.2.2        (VNI 1001)
#   b1 10.1.1.2 ─ sw vb ┼ VLAN 100/200/300 ═ trunk [vbrd] line1 172.16.1.1 ═ lx 172.16.1.2
#   c1 10.3.0.2 ─ sw vc ┘   (vlan_bridge.py in sw)        └ vxb ─ rb 10.1.2.2,       (VNI 1002)
#                                                                    10.1.3.2 (lo)
#                                         svc 10.200.0.1 ─ svc 10.200.0.2, 10.201.0.1 (lo)
#
#   VRF      table  interfaces                                 routes
#   vpc-a    100    a-lan (VLAN 100) 10.1.1.1/24               10.1.2.0/24 -> group ga (tunnel ta, VNI 1001)
#                   ta 10.1.250.1/30                           10.200.0.0/24 -> 10.200.0.2 in shared (the leak)
#   vpc-b    200    b-lan (VLAN 200) 10.1.1.254/24             10.1.2.0/24, 10.1.3.0/24 -> group gb (tb, VNI 1002)
#                   tb 10.1.250.5/30
#   shared   300    svc 10.200.0.1/24                          10.201.0.0/24 -> 10.200.0.2
#                                                              10.1.1.0/24 -> 10.1.1.2 in vpc-a (the way back)
#   default  254    line1 172.16.1.1/24 (both tunnels' underlay)
#   (c-lan, VLAN 300, 10.3.0.1/24: only in the reload test, in vpc-c, then vpc-b)
#
# The kernel here has no 802.1Q devices (sw's vlan_bridge.py plays the
# switch between the trunk and the untagged hosts) nor VRFs: ra and rb
# are separate namespaces, each with a VXLAN device made in lx and moved
# there (its UDP socket stays in lx, on the underlay). a1 and b1 have the
# same address; so do ra and rb.
#
# What reached a host is counted in its own namespace (/proc/net/snmp,
# lab_snmp): an echo request that went to the wrong VRF shows as an
# InEchos at the wrong host, whatever else the wires carry.

source [file join [file dirname [file normalize [info script]]] harness stream.tcl]

set vlan_bridge [file join [file dirname [file normalize [info script]]] tools vlan_bridge.py]

# --- the lab ---

lab_host sw "" ""
foreach {h addr gw} {a1 10.1.1.2/24 10.1.1.1  b1 10.1.1.2/24 10.1.1.254  c1 10.3.0.2/24 10.3.0.1} {
    lab_netns $h
    lab_wire sw v[string index $h 0] $h eth0
    lab_exec $h ip addr add $addr dev eth0
    lab_exec $h ip route add default via $gw
}
set bridge [lab_spawn sw {*}$::lab_tool_cpu python3 -u $vlan_bridge eth0 100:va 200:vb 300:vc]
wait_for_condition 100 50 {[string match "ready*" [lab_spawn_output $bridge]]} else {
    error "vlan_bridge.py did not start: [lab_spawn_output $bridge]"
}

lab_host svc 10.200.0.2/24 10.200.0.1
lab_exec svc ip addr add 10.201.0.1/32 dev lo

# lx: the underlay end of both tunnels; ra and rb: the two VPCs' far sides.
lab_host lx 172.16.1.2/24 ""
lab_netns ra
lab_netns rb
lassign [lab_run lx ip link add vxa type vxlan id 1001 local 172.16.1.2 remote 172.16.1.1 \
             dstport 4789] vx_rc vx_out
if {$vx_rc == 0} {
    lab_exec lx ip link add vxb type vxlan id 1002 local 172.16.1.2 remote 172.16.1.1 dstport 4789
    foreach {r vx} {ra vxa rb vxb} {
        lab_exec lx ip link set $vx netns [lab_ns $r]
        lab_exec $r ip addr add 10.1.2.2/24 dev $vx
        lab_exec $r ip link set $vx up
        # vbrd answers no ARP inside a tunnel: its inner MAC, by hand
        lab_exec $r ip neigh add 10.1.2.1 lladdr 02:00:00:00:99:01 dev $vx nud permanent
        lab_exec $r ip route add default via 10.1.2.1 dev $vx
    }
    lab_exec rb ip addr add 10.1.3.2/32 dev lo
    set vx_mac(a) [lab_mac ra vxa]
    set vx_mac(b) [lab_mac rb vxb]
}

# --- configs ---

# The lab's config; @VRF_C@ and @IF_C@ take more entries of vrfs and
# interfaces (vrf_conf).
set conf_template {
eal = { memory_mb = 1536; };
ports = (
  { name = "trunk"; devargs = "net_af_packet0,iface=@sw@"; },
  { name = "line1"; devargs = "net_af_packet1,iface=@lx@"; },
  { name = "svc";   devargs = "net_af_packet2,iface=@svc@"; }
);
vrfs = (
  { name = "vpc-a"; table = 100; },
  { name = "vpc-b"; table = 200; },
  { name = "shared"; table = 300; }@VRF_C@
);
interfaces = (
  { name = "a-lan"; port = "trunk"; vlan = 100; address = "10.1.1.1/24"; vrf = "vpc-a"; },
  { name = "b-lan"; port = "trunk"; vlan = 200; address = "10.1.1.254/24"; vrf = "vpc-b"; },
  { name = "line1"; port = "line1"; address = "172.16.1.1/24"; },
  { name = "svc"; port = "svc"; address = "10.200.0.1/24"; vrf = "shared"; }@IF_C@
);
tunnels = (
  { name = "ta"; type = "vxlan"; vni = 1001; vrf = "vpc-a"; local = "172.16.1.1"; remote = "172.16.1.2";
    address = "10.1.250.1/30"; inner_mac = "@VXA_MAC@"; },
  { name = "tb"; type = "vxlan"; vni = 1002; vrf = "vpc-b"; local = "172.16.1.1"; remote = "172.16.1.2";
    address = "10.1.250.5/30"; inner_mac = "@VXB_MAC@"; }
);
path_groups = (
  { name = "ga"; paths = ( { name = "pa"; tunnel = "ta"; interface = "line1"; via = "172.16.1.2"; } ); },
  { name = "gb"; paths = ( { name = "pb"; tunnel = "tb"; interface = "line1"; via = "172.16.1.2"; } ); }
);
routes = (
  { vrf = "vpc-a"; prefix = "10.1.2.0/24"; path_group = "ga"; },
  { vrf = "vpc-a"; prefix = "10.200.0.0/24"; nexthop_vrf = "shared"; via = "10.200.0.2"; },
  { vrf = "vpc-b"; prefix = "10.1.2.0/24"; path_group = "gb"; },
  { vrf = "vpc-b"; prefix = "10.1.3.0/24"; path_group = "gb"; },
  { vrf = "shared"; prefix = "10.201.0.0/24"; via = "10.200.0.2"; },
  { vrf = "shared"; prefix = "10.1.1.0/24"; nexthop_vrf = "vpc-a"; via = "10.1.1.2"; }
);
# no re-confirmation of learned neighbors while the tests count
neighbor = { reachable_s = 3600; };
}

# The VRFs and interfaces of the base config, as configured.
set base_vrfs {default 254 vpc-a 100 vpc-b 200 shared 300}
set base_ifaces {a-lan vpc-a b-lan vpc-b line1 default svc shared ta vpc-a tb vpc-b}

# The lab's config: with c_vrf "vpc-c", VRF vpc-c (table 400) is there too;
# with c_iface VRF, interface c-lan (VLAN 300, 10.3.0.1/24) in VRF.
proc vrf_conf {{c_vrf ""} {c_iface ""}} {
    set vrf [expr {$c_vrf eq "" ? "" : ",\n  \{ name = \"$c_vrf\"; table = 400; \}"}]
    set if [expr {$c_iface eq "" ? ""
                  : ",\n  \{ name = \"c-lan\"; port = \"trunk\"; vlan = 300; address = \"10.3.0.1/24\"; vrf = \"$c_iface\"; \}"}]
    set macs [expr {[info exists ::vx_mac(a)] ? [list $::vx_mac(a) $::vx_mac(b)]
                    : {02:00:00:00:00:0a 02:00:00:00:00:0b}}]
    return [string map [list @VRF_C@ $vrf @IF_C@ $if @VXA_MAC@ [lindex $macs 0] \
                            @VXB_MAC@ [lindex $macs 1]] $::conf_template]
}

# Write TEXT as a config file and run `vbrd --check-config` on it: {EXIT
# OUTPUT FILE}.
proc check_config {name text} {
    set f [lab_file $name.conf]
    vbrd_write_config $f $text check [file join [lab_rundir] check.sock]
    lassign [vbrd_run --check-config $f] rc out
    return [list $rc $out $f]
}

# --- helpers ---

# Icmp counters (lab_snmp) of HOSTS: dict HOST -> counters.
proc icmp_snap {hosts} {
    set s [dict create]
    foreach h $hosts { dict set s $h [lab_snmp $h Icmp] }
    return $s
}

# Ping DST from SRC COUNT times, every echo answered, and check where the
# requests went: WANT is a dict HOST -> echo requests it must have received
# (InEchos), 0 for the hosts that must have received none.
proc ping_reaches {src dst count want} {
    set s0 [icmp_snap [dict keys $want]]
    assert_ping $src $dst $count
    set s1 [icmp_snap [dict keys $want]]
    dict for {h n} $want {
        assert_equal [expr {[dict get $s1 $h InEchos] - [dict get $s0 $h InEchos]}] $n \
            "echo requests $h received (ping $dst from $src)"
    }
}

# Ping DST from SRC COUNT times; each request must draw a Destination Net
# Unreachable from FROM (vbrd's address in SRC's VRF), and none of the
# hosts NONE may receive a request.
proc ping_unreachable {src dst count from none} {
    set s0 [icmp_snap $none]
    lassign [ping_from $src $dst -c $count -i 0.2 -W 1] rc out
    set re "From [string map {. \\.} $from] icmp_seq=\\d+ Destination Net Unreachable"
    assert_equal [regexp -all $re $out] $count "net unreachable from $from (ping $dst from $src): $out"
    set s1 [icmp_snap $none]
    foreach h $none {
        assert_equal [expr {[dict get $s1 $h InEchos] - [dict get $s0 $h InEchos]}] 0 \
            "echo requests $h received (ping $dst from $src)"
    }
}

# State of HOST's neighbor entry for ADDR on eth0 (REACHABLE, INCOMPLETE,
# FAILED, ...; "" when none).
proc host_neigh_state {host addr} {
    set j [json::json2dict [lab_exec $host ip -j neigh show $addr dev eth0]]
    if {[llength $j] == 0} { return "" }
    return [lindex [dict get [lindex $j 0] state] 0]
}

# tx_packets of vbrd's tunnel NAME.
proc tunnel_tx {name} {
    foreach t [dict get [vbrctl show tunnels] tunnels] {
        if {[dict get $t name] eq $name} { return [dict get $t tx_packets] }
    }
    error "no tunnel $name in show tunnels"
}

# vbrd's `show vrfs` as a dict NAME -> row.
proc vrf_rows {} {
    set out [dict create]
    foreach v [dict get [vbrctl show vrfs] vrfs] {
        dict set out [dict get $v name] $v
    }
    return $out
}

# {NAME TABLE ...} of `show vrfs`, sorted by name.
proc vrf_tables {} {
    set out {}
    dict for {n v} [vrf_rows] { lappend out [list $n [dict get $v table]] }
    return [concat {*}[lsort -index 0 $out]]
}

# {NAME VRF ...} of `show interfaces`, sorted by name.
proc iface_vrfs {} {
    set out {}
    foreach i [dict get [vbrctl show interfaces] interfaces] {
        lappend out [list [dict get $i name] [dict get $i vrf]]
    }
    return [concat {*}[lsort -index 0 $out]]
}

proc sorted_pairs {pairs} {
    set l {}
    foreach {a b} $pairs { lappend l [list $a $b] }
    return [concat {*}[lsort -index 0 $l]]
}

# The prefixes of the configured routes (source "config") of `show
# routes vrf VRF`, sorted (vbrctl reads every page).
proc vrf_prefixes {vrf} {
    set out {}
    foreach row [dict get [vbrctl show routes vrf $vrf] routes] {
        if {[dict get $row source] eq "config"} { lappend out [dict get $row prefix] }
    }
    return [lsort $out]
}

# {PREFIX VRF ...} of VRF's config routes whose next hop names a VRF (a leak's,
# of another VRF than the route's), sorted.
proc vrf_leaks {vrf} {
    set out {}
    foreach row [dict get [vbrctl show routes vrf $vrf] routes] {
        if {[dict get $row source] ne "config"} continue
        foreach nh [dict get $row next_hops] {
            if {[dict exists $nh vrf]} { lappend out [list [dict get $row prefix] [dict get $nh vrf]] }
        }
    }
    return [concat {*}[lsort -index 0 $out]]
}

# Whether OUT holds WORD as a word of its own (not inside a longer name or
# address).
proc has_word {out word} {
    set re "(^|\[^A-Za-z0-9_.-\])[string map {. \\.} $word](?!\[A-Za-z0-9_-\]|\\.\\d)"
    return [regexp -- $re $out]
}

# --- config checks (no vbrd running) ---

test {the example conf/examples/two-vpc.conf passes --check-config} {
    set f [file join $::vbrd::root conf examples two-vpc.conf]
    lassign [vbrd_run --check-config $f] rc out
    assert_equal $rc 0 "exit status; output: $out"
}

test {the lab's config passes --check-config, and so does b-lan with vpc-a's address 10.1.1.1} {
    lassign [check_config lab [vrf_conf]] rc out
    assert_equal $rc 0 "exit status; output: $out"
    # an address on two interfaces of different VRFs is allowed
    set same [string map {10.1.1.254/24 10.1.1.1/24} [vrf_conf]]
    lassign [check_config same-address $same] rc out
    assert_equal $rc 0 "exit status with 10.1.1.1/24 on a-lan (vpc-a) and b-lan (vpc-b); output: $out"
}

# Each bad config is the lab's with one change, marked "# ERR": `replace
# FROM TO` (the text FROM by TO), or `before ANCHOR LINE` (LINE inserted
# before the line holding ANCHOR). --check-config must exit 2 with FILE:LINE
# errors at the marked line only, and a message naming WORD.
proc bad_conf {op a b} {
    set good [vrf_conf]
    if {[string first $a $good] < 0} { error "test bug: '$a' is not in the config" }
    if {$op ni {replace before}} { error "bad_conf: unknown op $op" }
    if {$op eq "replace"} { set good [string map [list $a $b] $good] }
    set out {}
    foreach l [split $good "\n"] {
        if {$op eq "before" && [string first $a $l] >= 0} {
            lappend out "$b   # ERR"
        } elseif {$op eq "replace" && [string first $b $l] >= 0} {
            append l "   # ERR"
        }
        lappend out $l
    }
    return [join $out "\n"]
}

foreach {name op a b word} {
    {a path over an interface of another VRF than its tunnel's underlay}
    replace {{ name = "pa"; tunnel = "ta"; interface = "line1"; via = "172.16.1.2"; }}
    {{ name = "pa"; tunnel = "ta"; interface = "svc"; via = "10.200.0.2"; }}
    svc

    {two VRFs with one table id}
    replace {{ name = "vpc-b"; table = 200; },} {{ name = "vpc-b"; table = 100; },}
    100

    {a route in a VRF that does not exist}
    replace {{ vrf = "vpc-b"; prefix = "10.1.3.0/24"; path_group = "gb"; },}
    {{ vrf = "vpc-z"; prefix = "10.1.3.0/24"; path_group = "gb"; },}
    vpc-z

    {a route whose nexthop_vrf does not exist}
    replace {prefix = "10.200.0.0/24"; nexthop_vrf = "shared";} {prefix = "10.200.0.0/24"; nexthop_vrf = "shard";}
    shard

    {two VRFs with one name}
    before {{ name = "shared"; table = 300; }} {  { name = "vpc-a"; table = 400; },}
    vpc-a

    {a VRF named default in vrfs}
    before {{ name = "shared"; table = 300; }} {  { name = "default"; table = 400; },}
    default

    {a VRF with the reserved table 254}
    before {{ name = "shared"; table = 300; }} {  { name = "vpc-c"; table = 254; },}
    254

    {an interface in a VRF that does not exist}
    before {name = "line1"; port = "line1";}
    {  { name = "x-lan"; port = "trunk"; vlan = 400; address = "10.9.0.1/24"; vrf = "vpc-z"; },}
    vpc-z

    {a tunnel in a VRF that does not exist}
    before {name = "tb"; type = "vxlan";}
    {  { name = "tx"; type = "vxlan"; vni = 1009; vrf = "vpc-z"; local = "172.16.1.1"; remote = "172.16.1.2"; },}
    vpc-z

    {a gateway in another VRF's subnet without nexthop_vrf}
    before {vrf = "vpc-b"; prefix = "10.1.3.0/24";}
    {  { vrf = "vpc-b"; prefix = "10.9.9.0/24"; via = "10.200.0.2"; },}
    10.200.0.2

    {a route to another VRF's path group without nexthop_vrf}
    before {vrf = "vpc-b"; prefix = "10.1.3.0/24";}
    {  { vrf = "vpc-b"; prefix = "10.1.9.0/24"; path_group = "ga"; },}
    ga

    {a path group over tunnels of two VRFs}
    replace {{ name = "pb"; tunnel = "tb"; interface = "line1"; via = "172.16.1.2"; }}
    {{ name = "pb"; tunnel = "tb"; interface = "line1"; via = "172.16.1.2"; }, { name = "pb2"; tunnel = "ta"; interface = "line1"; via = "172.16.1.2"; }}
    ta

    {the same address twice in one VRF}
    replace {{ name = "svc"; port = "svc"; address = "10.200.0.1/24"; vrf = "shared"; }}
    {{ name = "svc"; port = "svc"; address = "10.200.0.1/24"; vrf = "shared"; }, { name = "x-lan"; port = "trunk"; vlan = 400; address = "10.200.0.1/24"; vrf = "shared"; }}
    10.200.0.1
} {
    test "--check-config: $name is an error at its line" [list apply {{op a b word} {
        lassign [check_config bad [bad_conf $op $a $b]] rc out f
        set want [lines_marked [_lab_read $f] "# ERR"]
        assert_equal [llength $want] 1 "marked lines"
        assert_equal $rc 2 "exit status; output: $out"
        assert_equal [lsort -unique [error_locations $f $out]] $want "lines of the FILE:LINE: messages in:\n$out"
        assert_true {[has_word $out $word]} "the message names $word: $out"
    }} $op $a $b $word]
}

# --- traffic ---

if {$vx_rc != 0} {
    test {VPCs behind VXLAN: the lab} {
        skip "the kernel cannot create a VXLAN device: $vx_out"
    }
    return
}

start_vbrd [list conf [vrf_conf]] {
    test {show vrfs and show interfaces name each VRF and table as configured} {
        assert_equal [vrf_tables] [sorted_pairs $base_vrfs] "show vrfs: name, table"
        assert_equal [iface_vrfs] [sorted_pairs $base_ifaces] "show interfaces: name, vrf"
        assert_equal [vrf_prefixes vpc-a] [lsort {10.1.2.0/24 10.200.0.0/24}] "show routes vrf vpc-a"
        assert_equal [vrf_prefixes vpc-b] [lsort {10.1.2.0/24 10.1.3.0/24}] "show routes vrf vpc-b"
        assert_equal [vrf_prefixes shared] [lsort {10.201.0.0/24 10.1.1.0/24}] "show routes vrf shared"
        # the leaks, and only they, name the VRF of their next hop
        assert_equal [vrf_leaks vpc-a] {10.200.0.0/24 shared} "show routes vrf vpc-a: leaked next hops"
        assert_equal [vrf_leaks vpc-b] {} "show routes vrf vpc-b: leaked next hops"
        assert_equal [vrf_leaks shared] {10.1.1.0/24 vpc-a} "show routes vrf shared: leaked next hops"
    }

    test {each VPC's host reaches 10.1.2.2 on its own side only (VNI 1001 / 1002)} {
        set ta0 [tunnel_tx ta]
        set tb0 [tunnel_tx tb]
        ping_reaches a1 10.1.2.2 5 {ra 5 rb 0}
        assert_equal [expr {[tunnel_tx ta] - $ta0}] 5 "tunnel ta tx_packets (a1's requests)"
        assert_equal [expr {[tunnel_tx tb] - $tb0}] 0 "tunnel tb tx_packets (a1's requests)"
        ping_reaches b1 10.1.2.2 5 {ra 0 rb 5}
        assert_equal [expr {[tunnel_tx ta] - $ta0}] 5 "tunnel ta tx_packets (after b1's requests)"
        assert_equal [expr {[tunnel_tx tb] - $tb0}] 5 "tunnel tb tx_packets (b1's requests)"
    }

    test {each far side reaches 10.1.2.2's peer 10.1.1.2 in its own VPC only (a1 / b1)} {
        ping_reaches ra 10.1.1.2 5 {a1 5 b1 0}
        ping_reaches rb 10.1.1.2 5 {a1 0 b1 5}
    }

    test {vpc-a's host to 10.1.3.0/24 (vpc-b only): net unreachable from 10.1.1.1, no_route in vpc-a, nothing at rb} {
        set st0 [vbrctl show stats]
        set v0 [vrf_rows]
        set tb0 [tunnel_tx tb]
        ping_unreachable a1 10.1.3.2 3 10.1.1.1 {ra rb b1}
        wait_for_condition 20 100 {[drops no_route] - [dict get $st0 drops no_route] >= 3} else {}
        assert_equal [expr {[drops no_route] - [dict get $st0 drops no_route]}] 3 "drops no_route"
        set v1 [vrf_rows]
        assert_equal [expr {[dict get $v1 vpc-a no_route] - [dict get $v0 vpc-a no_route]}] 3 "vpc-a no_route"
        foreach k {rx_packets tx_packets no_route} {
            assert_equal [expr {[dict get $v1 vpc-b $k] - [dict get $v0 vpc-b $k]}] 0 "vpc-b $k"
        }
        assert_equal [expr {[tunnel_tx tb] - $tb0}] 0 "tunnel tb tx_packets"
        # and the prefix is there in vpc-b
        ping_reaches b1 10.1.3.2 3 {rb 3 ra 0}
    }

    test {own addresses and ARP are per VRF: 10.1.1.254 answers on VLAN 200 only, 10.1.1.1 on VLAN 100 only} {
        assert_ping a1 10.1.1.1 2
        assert_ping b1 10.1.1.254 2
        foreach {h addr} {a1 10.1.1.254 b1 10.1.1.1} {
            lassign [ping_from $h $addr -c 1 -W 1] rc out
            assert_equal [dict get [ping_stats $out] received] 0 "replies to $h from $addr: $out"
            set state [host_neigh_state $h $addr]
            assert_true {$state ni {REACHABLE STALE DELAY PROBE PERMANENT}} \
                "$h resolved $addr (the other VRF's address): $state"
        }
    }

    test {own addresses routed to are per VRF: a tunnel's address answers in its VRF only, the underlay's in none} {
        assert_ping a1 10.1.250.1 2
        assert_ping b1 10.1.250.5 2
        ping_unreachable a1 10.1.250.5 2 10.1.1.1 {}
        ping_unreachable b1 10.1.250.1 2 10.1.1.254 {}
        # line1's address (VRF default, the tunnels' local end)
        ping_unreachable a1 172.16.1.1 2 10.1.1.1 {}
        ping_unreachable svc 172.16.1.1 2 10.200.0.1 {}
    }

    test {ICMP errors come from the ingress VRF's address: TTL 1 from a1 -> 10.1.1.1, from b1 -> 10.1.1.254} {
        set te0 [drops ttl_expired]
        lassign [ping_from a1 10.1.2.2 -c 1 -t 1 -W 2] rc out
        assert_match "*From 10.1.1.1 icmp_seq=1 Time to live exceeded*" $out
        lassign [ping_from b1 10.1.2.2 -c 1 -t 1 -W 2] rc out
        assert_match "*From 10.1.1.254 icmp_seq=1 Time to live exceeded*" $out
        wait_for_condition 20 100 {[drops ttl_expired] - $te0 == 2} else {
            fail "ttl_expired grew by [expr {[drops ttl_expired] - $te0}], want 2"
        }
    }

    test {ICMP errors to a tunnel come back through it from the tunnel's address: ra -> 10.1.250.1, rb -> 10.1.250.5} {
        lassign [ping_from ra 10.1.1.2 -c 1 -t 1 -W 2] rc out
        assert_match "*From 10.1.250.1 icmp_seq=1 Time to live exceeded*" $out
        lassign [ping_from rb 10.1.1.2 -c 1 -t 1 -W 2] rc out
        assert_match "*From 10.1.250.5 icmp_seq=1 Time to live exceeded*" $out
        # no route in vpc-b for the leaked prefix of vpc-a
        ping_unreachable rb 10.200.0.2 2 10.1.250.5 {svc}
    }

    test {the leak: vpc-a reaches 10.200.0.0/24 in shared and shared answers it; vpc-b does not} {
        ping_reaches a1 10.200.0.2 3 {svc 3}
        ping_reaches svc 10.1.1.2 3 {a1 3 b1 0}
        ping_unreachable b1 10.200.0.2 3 10.1.1.254 {svc}
    }

    test {nothing else crosses: shared's other prefix and vpc-a's tunnel prefix stay out of reach} {
        # 10.201.0.0/24 is shared's, not leaked
        ping_unreachable a1 10.201.0.1 3 10.1.1.1 {svc}
        # shared's way back is 10.1.1.0/24 only: not vpc-a's far side, nor vpc-b's
        ping_unreachable svc 10.1.2.2 3 10.200.0.1 {ra rb}
        ping_unreachable svc 10.1.3.2 3 10.200.0.1 {rb}
    }

    test {reloads add vpc-c, move c-lan from vpc-c to vpc-b, remove vpc-c: vpc-a's and shared's streams lose nothing} {
        # warm: every neighbor on the streams' ways is resolved
        assert_ping a1 10.1.2.2 1
        assert_ping svc 10.1.1.2 1
        set pps 300
        set ra_rx0 [dict get [lab_snmp ra Udp] InDatagrams]
        set a1_rx0 [dict get [lab_snmp a1 Udp] InDatagrams]
        set r1 [stream_recv ra 5001 60]
        set r2 [stream_recv a1 5002 60]
        set s1 [stream_send a1 10.1.2.2 5001 $pps 30]
        set s2 [stream_send svc 10.1.1.2 5002 $pps 30]
        set code [catch {
            wait_for_condition 100 100 {
                [dict get [lab_snmp ra Udp] InDatagrams] - $ra_rx0 >= 100 &&
                [dict get [lab_snmp a1 Udp] InDatagrams] - $a1_rx0 >= 100
            } else {
                fail "the streams do not arrive (ra +[expr {[dict get [lab_snmp ra Udp] InDatagrams] - $ra_rx0}], a1 +[expr {[dict get [lab_snmp a1 Udp] InDatagrams] - $a1_rx0}])"
            }

            # 1. a VRF added, with an interface
            vbrd_reload [vrf_conf vpc-c vpc-c]
            assert_equal [vrf_tables] [sorted_pairs [concat $base_vrfs {vpc-c 400}]] "show vrfs after adding vpc-c"
            assert_equal [iface_vrfs] [sorted_pairs [concat $base_ifaces {c-lan vpc-c}]] "show interfaces"
            assert_ping c1 10.3.0.1 2
            ping_unreachable c1 10.1.3.2 2 10.3.0.1 {rb ra}

            # 2. the interface moved to vpc-b: routed in vpc-b's FIB now
            vbrd_reload [vrf_conf vpc-c vpc-b]
            assert_equal [iface_vrfs] [sorted_pairs [concat $base_ifaces {c-lan vpc-b}]] "show interfaces"
            ping_reaches c1 10.1.3.2 3 {rb 3}
            ping_reaches c1 10.1.2.2 3 {rb 3 ra 0}

            # 3. the VRF removed
            vbrd_reload [vrf_conf "" vpc-b]
            assert_equal [vrf_tables] [sorted_pairs $base_vrfs] "show vrfs after removing vpc-c"
            ping_reaches c1 10.1.3.2 2 {rb 2}

            # 4. the interface removed: the base config again
            vbrd_reload [vrf_conf]
            assert_equal [iface_vrfs] [sorted_pairs $base_ifaces] "show interfaces"
            if {[lab_exited $s1] || [lab_exited $s2]} {
                fail "a stream ended before the reloads did (30 s)"
            }
        } res opts]
        lab_kill $s1 INT
        lab_kill $s2 INT
        if {$code} { return -options $opts $res }
        foreach {what s r} [list "a1 -> ra (vpc-a, over VNI 1001)" $s1 $r1 \
                                "svc -> a1 (shared -> vpc-a)" $s2 $r2] {
            set sent [stream_result $s]
            set got [stream_result $r]
            note "$what: sent [dict get $sent sent], received [dict get $got received], lost [dict get $got lost], reordered [dict get $got reordered], longest gap [dict get $got max_gap_ms] ms"
            assert_equal [dict get $got sent] [dict get $sent sent] "$what: the receiver's count of sent (end marker)"
            assert_equal [dict get $got lost] 0 "$what: datagrams lost"
            assert_equal [dict get $got received] [dict get $sent sent] "$what: datagrams received"
        }
    }
}
