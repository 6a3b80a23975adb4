# The IPv4 fast path (worker.c fast4_ok() / fast4_route(), the path group
# and VXLAN decapsulation fast variants) must give what the general path
# gives: the same frames on the wire, the same counters. Each vbrd below
# replays one pcap of mixed frames — packets the fast path takes, and
# packets it must hand to the general path (IP options, padding, TTL 2
# and 1, bad checksums, martians, MTU, no route, fragments, tunnel
# errors) — in one burst, and the test reads what it wrote (tx_pcap) and
# its counters.
#
#   mix:   in (rx in.pcap, tx in_tx.pcap) src 10.0.0.1/16 [vbrd]
#            out (tx out.pcap): dst 198.18.0.1/30 mtu 1000, 198.19.0.0/16 via .2
#                               dstv VLAN 100 198.18.1.1/30, 198.20.0.0/16 via .2
#   encap: in (rx, tx in_tx.pcap) src 10.0.0.1/16 [vbrd] line 172.16.1.1/24 (tx line.pcap)
#            10.60.0.0/16 -> path group g1 -> VXLAN t1 (VNI 1000) to 172.16.1.2
#   encap-ps: encap's, the group under path selection with spreading
#            (the fast path's burst chooser)
#   decap: line (rx line_in.pcap, tx line_tx.pcap) 172.16.1.1/24, tunnel t1
#            from 172.16.1.2 VNI 1000 [vbrd] out (tx out.pcap) dst, 198.19.0.0/16
#
# The frames are built and the written ones parsed by tools/fastpath.py
# (stdlib Python: the checks share no code with vbrd); every expected
# count and byte total is computed there from the frames generated.
# The frames go through pcap files so one file is one burst (each holds
# fewer than workers.burst = 32 frames: the fast path and the general path
# meet inside one burst, where order within a flow must hold) and
# fragments reach vbrd as they are (see test_fragments.tcl).

set fastpath_py [file join [file dirname [file normalize [info script]]] tools fastpath.py]

# fastpath.py gen|check SCENARIO in the run directory, its JSON as a dict.
proc fp {cmd scn} {
    return [json::json2dict [exec /usr/bin/python3 $::fastpath_py $cmd $scn [lab_rundir]]]
}

# Fail with the problems fastpath.py found under each of CHECKS (a list
# of messages each), if any.
proc assert_no_problems {result checks} {
    set msgs {}
    foreach c $checks {
        if {![dict exists $result problems $c]} {
            fail "fastpath.py ran no '$c' check"
        }
        foreach m [dict get $result problems $c] { lappend msgs "$c: $m" }
    }
    if {[llength $msgs]} {
        fail "[llength $msgs] problem(s):\n[join $msgs \n]"
    }
}

# Wait until port PORT received every frame of the pcap and every one of
# them has an outcome (forwarded, dropped, or handed to a service), and
# the tx pcaps hold the frames expected (they are flushed per burst).
proc fp_wait_done {scn port exp} {
    set n [dict get $exp counters rx_packets]
    wait_for_condition 100 100 {[port_stat $port rx_packets] == $n} else {
        fail "port $port rx_packets [port_stat $port rx_packets], want $n (frames in the pcap)"
    }
    set want [dict get $exp frames]
    wait_for_condition 50 100 {[dict get [fp check $scn] written] eq $want} else {
        fail "frames written [dict get [fp check $scn] written], want $want"
    }
    set out [expr {[dict get $exp counters forwarded] + [dict get $exp counters drops_total]}]
    wait_for_condition 50 100 {[stat forwarded] + [stat drops_total] >= $out} else {}
}

# show stats: forwarded, fragments, icmp_errors and every drop reason
# (those the scenario does not expect must be 0).
proc assert_stats {exp} {
    set st [vbrctl show stats]
    set c [dict get $exp counters]
    foreach k {forwarded fragments icmp_errors drops_total} {
        assert_equal [dict get $st $k] [dict get $c $k] "show stats $k"
    }
    set want [dict get $c drops]
    set bad {}
    dict for {reason n} [dict get $st drops] {
        set w [expr {[dict exists $want $reason] ? [dict get $want $reason] : 0}]
        if {$n != $w} { lappend bad "$reason $n (want $w)" }
    }
    dict for {reason n} $want {
        if {![dict exists $st drops $reason]} { lappend bad "$reason missing" }
    }
    if {[llength $bad]} { fail "drop counters: [join $bad {, }]" }
}

# {rx_packets rx_bytes tx_packets tx_bytes} of interface NAME in show interfaces.
proc iface_counters {name} {
    foreach i [dict get [vbrctl show interfaces] interfaces] {
        if {[dict get $i name] eq $name} {
            return [list [dict get $i rx_packets] [dict get $i rx_bytes] \
                        [dict get $i tx_packets] [dict get $i tx_bytes]]
        }
    }
    fail "no interface '$name' in show interfaces"
}

# tx {packets bytes} the scenario expects on IFACE ({0 0} when none).
proc exp_tx {exp iface} {
    set tx [dict get $exp counters tx]
    return [expr {[dict exists $tx $iface] ? [dict get $tx $iface] : {0 0}}]
}

# The entry of tunnel NAME in show tunnels.
proc tunnel_entry {name} {
    foreach t [dict get [vbrctl show tunnels] tunnels] {
        if {[dict get $t name] eq $name} { return $t }
    }
    fail "no tunnel '$name' in show tunnels"
}

set fwd_checks {forwarded nothing_else ttl ip_checksum header payload length l2}

# --- forwarding: the mixed burst ---

set exp [fp gen mix]
set nmix [dict get $exp counters rx_packets]

start_vbrd {conf {
workers = { cores = [ 1 ]; burst = 32; idle_sleep_us = 50; };   # each pcap is one burst
ports = (
  { name = "in"; devargs = "net_pcap0,rx_pcap=@rundir@/mix-in.pcap,tx_pcap=@rundir@/mix-in_tx.pcap"; },
  { name = "out"; devargs = "net_pcap1,tx_pcap=@rundir@/mix-out.pcap"; }
);
interfaces = (
  { name = "src"; port = "in"; address = "10.0.0.1/16"; },
  { name = "dst"; port = "out"; address = "198.18.0.1/30"; mtu = 1000; },
  { name = "dstv"; port = "out"; vlan = 100; address = "198.18.1.1/30"; }
);
routes = (
  { prefix = "198.19.0.0/16"; via = "198.18.0.2"; },
  { prefix = "198.20.0.0/16"; via = "198.18.1.2"; }
);
neighbors = (
  { interface = "dst"; address = "198.18.0.2"; mac = "02:00:00:00:00:99"; },
  { interface = "dstv"; address = "198.18.1.2"; mac = "02:00:00:00:00:98"; }
);
}} {
    test "mix: all $nmix frames are received and each has its outcome" {
        fp_wait_done mix in $exp
    }
    set res [fp check mix]

    test {mix: each forwarded frame: neighbor MAC, egress port MAC, TTL - 1, right checksum, header (IP options too) and payload as sent, no padding} {
        assert_no_problems $res $fwd_checks
    }

    test {mix: the sender's fragments leave as they came; 1400 bytes without DF leave as fragments of the MTU (1000)} {
        assert_no_problems $res fragments
    }

    test {mix: packets of one flow leave in the order they came (fast ones and ones with IP options alike)} {
        assert_no_problems $res order
    }

    test {mix: TTL 1, DF over the MTU and no route get their ICMP error (MTU 1000 in frag needed) out of the ingress port} {
        assert_no_problems $res icmp
    }

    test {mix: VLAN egress: frames to the VLAN 100 interface carry VID 100, ethertype IPv4, datagram + 18 bytes} {
        assert_no_problems $res vlan
        lassign [iface_counters dstv] rxp rxb txp txb
        assert_equal [list $txp $txb] [exp_tx $exp dstv] "dstv {tx_packets tx_bytes}"
    }

    test {mix: show stats: forwarded, fragments, icmp_errors and every drop reason exact} {
        assert_stats $exp
    }

    test {mix: show interfaces: rx and tx packets exact on every interface} {
        lassign [iface_counters src] rxp rxb txp txb
        assert_equal $rxp $nmix "src rx_packets"
        assert_equal $txp [lindex [exp_tx $exp src] 0] "src tx_packets (ICMP errors)"
        assert_equal [lindex [iface_counters dst] 2] [lindex [exp_tx $exp dst] 0] "dst tx_packets"
        assert_equal [lindex [iface_counters dstv] 2] [lindex [exp_tx $exp dstv] 0] "dstv tx_packets"
        assert_equal [lrange [iface_counters dst] 0 1] {0 0} "dst rx"
    }

    test {mix: show interfaces: tx bytes = the frames written, rx bytes = the frames received (Ethernet padding included, as the port counts it)} {
        assert_equal [lindex [iface_counters dst] 3] [lindex [exp_tx $exp dst] 1] "dst tx_bytes"
        assert_equal [lindex [iface_counters src] 3] [lindex [exp_tx $exp src] 1] "src tx_bytes"
        assert_equal [port_stat in rx_bytes] [dict get $exp counters rx_bytes] "port in rx_bytes"
        assert_equal [lindex [iface_counters src] 1] [dict get $exp counters rx_bytes] "src rx_bytes"
    }
}

# --- encapsulation through a path group ---

set exp [fp gen encap]
set nenc [dict get $exp counters rx_packets]

start_vbrd {conf {
workers = { cores = [ 1 ]; burst = 32; idle_sleep_us = 50; };   # each pcap is one burst
ports = (
  { name = "in"; devargs = "net_pcap0,rx_pcap=@rundir@/encap-in.pcap,tx_pcap=@rundir@/encap-in_tx.pcap"; },
  { name = "line"; devargs = "net_pcap1,tx_pcap=@rundir@/encap-line.pcap"; }
);
interfaces = (
  { name = "src"; port = "in"; address = "10.0.0.1/16"; },
  { name = "line"; port = "line"; address = "172.16.1.1/24"; }
);
neighbors = (
  { interface = "line"; address = "172.16.1.2"; mac = "02:00:00:00:00:77"; }
);
tunnels = (
  { name = "t1"; type = "vxlan"; vni = 1000; local = "172.16.1.1"; remote = "172.16.1.2";
    inner_mac = "02:00:00:00:00:55"; }
);
path_groups = (
  { name = "g1"; paths = ( { name = "p1"; tunnel = "t1"; interface = "line"; via = "172.16.1.2"; } ); }
);
routes = (
  { prefix = "10.60.0.0/16"; path_group = "g1"; }
);
}} {
    test "encap: all $nenc frames are received and each has its outcome" {
        fp_wait_done encap in $exp
    }
    set res [fp check encap]

    test {encap: outer headers: MACs, 172.16.1.1 -> .2, TTL 64, lengths (IP, UDP = inner + 50 / 30), UDP checksum 0, VNI, inner MAC, TOS copied} {
        assert_no_problems $res outer
    }

    test {encap: the outer IPv4 checksum is right for every packet (12 TOS values, 29 lengths)} {
        assert_no_problems $res outer_checksum
    }

    test {encap: one outer UDP source port per flow (IP options and fragmented packets of the flow too)} {
        assert_no_problems $res source_port
        # 10 flows: a constant source port would pass the check above
        assert_morethan [dict get $res distinct_ports] 1 "distinct outer source ports over [dict get $res flows] flows"
    }

    test {encap: inner packet: TTL - 1, right checksum, header and payload as sent, no padding} {
        assert_no_problems $res $fwd_checks
    }

    test {encap: without DF, larger than the inner MTU (1450): fragmented, each fragment encapsulated} {
        assert_no_problems $res fragments
    }

    test {encap: DF and larger than the inner MTU: ICMP frag needed with the inner MTU 1450, nothing sent} {
        assert_no_problems $res icmp
    }

    test {encap: packets of one flow leave in the order they came} {
        assert_no_problems $res order
    }

    test {encap: show stats: forwarded, fragments, icmp_errors and every drop reason exact} {
        assert_stats $exp
    }

    test {encap: show interfaces / show tunnels: packets and bytes exact (line: frames written; t1: inner datagrams)} {
        lassign [iface_counters src] rxp rxb txp txb
        assert_equal [list $rxp $txp $txb] [list $nenc {*}[exp_tx $exp src]] "src {rx_packets tx_packets tx_bytes}"
        assert_equal [lrange [iface_counters line] 2 3] [exp_tx $exp line] "line {tx_packets tx_bytes}"
        set t [tunnel_entry t1]
        assert_equal [list [dict get $t tx_packets] [dict get $t tx_bytes]] \
            [list [dict get $exp counters tunnel_tx_packets] [dict get $exp counters tunnel_tx_bytes]] \
            "t1 {tx_packets tx_bytes}"
    }

    test {encap: show interfaces: src rx bytes = the frames received (Ethernet padding included)} {
        assert_equal [lindex [iface_counters src] 1] [dict get $exp counters rx_bytes] "src rx_bytes"
    }
}

# --- the same through path selection's burst chooser ---
#
# The encap scenario's burst again, the group now under path selection
# with spreading (pathsel_choose_burst(), path_group_output4_chosen()):
# the fast path's packets of E1 chosen as a burst and the general path's
# (IP options, fragmented, over the MTU) in between, so order within a
# flow, one outer source port per flow and the counters must hold across
# both. 160 more datagrams of 10 flows make the one burst (workers.burst
# 256) longer than the chooser's 64, with a general-path packet inside. Nobody answers the probes here: the group's one path carries
# everything (spread over the tier's path alone); fastpath.py leaves the
# probes' frames (inner UDP to port 862) out of the line's.

set exp [fp gen encap-ps]
set nenc [dict get $exp counters rx_packets]

start_vbrd {conf {
workers = { cores = [ 1 ]; burst = 256; idle_sleep_us = 50; };   # the pcap is one burst
ports = (
  { name = "in"; devargs = "net_pcap0,rx_pcap=@rundir@/encap-ps-in.pcap,tx_pcap=@rundir@/encap-ps-in_tx.pcap"; },
  { name = "line"; devargs = "net_pcap1,tx_pcap=@rundir@/encap-ps-line.pcap"; }
);
interfaces = (
  { name = "src"; port = "in"; address = "10.0.0.1/16"; },
  { name = "line"; port = "line"; address = "172.16.1.1/24"; }
);
neighbors = (
  { interface = "line"; address = "172.16.1.2"; mac = "02:00:00:00:00:77"; }
);
tunnels = (
  { name = "t1"; type = "vxlan"; vni = 1000; local = "172.16.1.1"; remote = "172.16.1.2";
    inner_mac = "02:00:00:00:00:55"; }
);
path_groups = (
  { name = "g1"; paths = ( { name = "p1"; tunnel = "t1"; interface = "line"; via = "172.16.1.2"; } ); }
);
routes = (
  { prefix = "10.60.0.0/16"; path_group = "g1"; }
);
pathsel = { groups = ( { path_group = "g1"; interval = 1000; spread = true; } ); };
}} {
    test "encap-ps: all $nenc frames are received and each has its outcome" {
        fp_wait_done encap-ps in $exp
    }
    set res [fp check encap-ps]

    test {encap-ps: outer headers and checksums, inner packets as sent, fragments, ICMP frag needed, as without path selection} {
        assert_no_problems $res [list outer outer_checksum fragments icmp {*}$fwd_checks]
    }

    test {encap-ps: one outer UDP source port per flow, packets of one flow in the order they came (chosen as a burst or on the general path)} {
        assert_no_problems $res {source_port order}
        assert_morethan [dict get $res distinct_ports] 1 "distinct outer source ports over [dict get $res flows] flows"
    }

    test {encap-ps: show stats exact; show pathsel: every forwarded datagram chosen for once} {
        assert_stats $exp
        set g [lindex [dict get [vbrctl show pathsel g1] path_groups] 0]
        set p [lindex [dict get $g paths] 0]
        # a fragmented datagram is chosen for once, forwarded as its
        # fragments; the one with DF over the MTU is chosen for, then
        # answered with frag needed (tunnel_output() chooses the path
        # whose MTU it checks)
        set c [dict get $exp counters]
        set chosen [expr {[dict get $c forwarded] - [dict get $c fragments] + 1 + [dict get $c icmp_errors]}]
        assert_equal [dict get $p spread_packets] $chosen "p1 spread_packets"
    }
}

# --- VXLAN decapsulation ---

set exp [fp gen decap]
set ndec [dict get $exp counters rx_packets]

start_vbrd {conf {
workers = { cores = [ 1 ]; burst = 32; idle_sleep_us = 50; };   # each pcap is one burst
ports = (
  { name = "line"; devargs = "net_pcap0,rx_pcap=@rundir@/decap-line_in.pcap,tx_pcap=@rundir@/decap-line_tx.pcap"; },
  { name = "out"; devargs = "net_pcap1,tx_pcap=@rundir@/decap-out.pcap"; }
);
interfaces = (
  { name = "line"; port = "line"; address = "172.16.1.1/24"; },
  { name = "dst"; port = "out"; address = "198.18.0.1/30"; }
);
neighbors = (
  { interface = "dst"; address = "198.18.0.2"; mac = "02:00:00:00:00:99"; }
);
tunnels = (
  { name = "t1"; type = "vxlan"; vni = 1000; local = "172.16.1.1"; remote = "172.16.1.2";
    inner_mac = "02:00:00:00:00:55"; }
);
routes = (
  { prefix = "198.19.0.0/16"; via = "198.18.0.2"; }
);
}} {
    test "decap: all $ndec frames are received and each has its outcome" {
        fp_wait_done decap line $exp
    }
    set res [fp check decap]

    test {decap: inner packets leave with TTL - 1, neighbor and port MACs, right checksum, as sent, no padding; nothing else leaves} {
        assert_no_problems $res $fwd_checks
    }

    test {decap: outer CE over ECT(0)/ECT(1) marks the inner packet CE (RFC 6040), checksum updated} {
        assert_no_problems $res ecn
    }

    test {decap: packets of one flow leave in the order they came} {
        assert_no_problems $res order
    }

    test {decap: wrong VNI, unknown remote, bad UDP checksum, CE over not-ECT, VXLAN in VXLAN: each dropped under its reason; every other drop 0} {
        assert_stats $exp
    }

    test {decap: show interfaces / show tunnels: packets exact (line rx, t1 rx: decapsulated once, dst tx)} {
        assert_equal [lindex [iface_counters line] 0] $ndec "line rx_packets"
        assert_equal [lindex [iface_counters line] 1] [dict get $exp counters rx_bytes] "line rx_bytes"
        assert_equal [lrange [iface_counters dst] 2 3] [exp_tx $exp dst] "dst {tx_packets tx_bytes}"
        set t [tunnel_entry t1]
        assert_equal [dict get $t rx_packets] [dict get $exp counters tunnel_rx_packets] "t1 rx_packets"
    }

    test {decap: show tunnels: t1 rx bytes = the inner frames as carried (inner Ethernet padding included)} {
        set t [tunnel_entry t1]
        assert_equal [dict get $t rx_bytes] [dict get $exp counters tunnel_rx_bytes] "t1 rx_bytes"
    }
}
