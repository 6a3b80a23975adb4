# Hostile STAMP packets (RFC 8762) to vbrd's session-reflector (UDP 862
# of its address) and to its session-sender's ports (40960 + slot of the
# tunnel's local address), hand-made by tools/stamp_craft.py from a raw
# socket in h1 (any source address, any UDP Length): each is dropped and
# counted once under its own reason in `show stats`, the packet pool's
# mbufs in use come back to their idle value, and the probes of a live
# path (vbrd's sender against the scapy reflector of tools/stamp_peer.py
# behind VXLAN) stay healthy throughout.
#
#   h1 10.0.1.2 ── lan 10.0.1.1 [vbrd] line1 172.16.1.1 ══ impair ══ eth0 172.16.1.2 gw
#                          tunnel to-gw 192.168.100.1 -> 172.16.1.9      vxlan-reflector
#                          path group gw: p-line1, planes 2              (ARP for 172.16.1.9)

source [file join [file dirname [file normalize [info script]]] harness impair.tcl]

set tools [file join [file dirname [file normalize [info script]]] tools]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_netns gw
impair_line line1 -b gw -b_addr 172.16.1.2/24

set planes 2

# The last JSON line a tool printed, as a dict.
proc json_report {out} {
    foreach line [lreverse [split $out "\n"]] {
        if {[string index $line 0] eq "\{"} { return [json::json2dict $line] }
    }
    fail "no JSON report in:\n$out"
}

proc craft {args} {
    return [dict get [json_report [lab_exec h1 /usr/bin/python3 [file join $::tools stamp_craft.py] send {*}$args]] sent]
}

proc stamp_drops {} {
    set out {}
    dict for {k v} [dict get [vbrctl show stats] drops] {
        if {[string match stamp_* $k]} { dict set out $k $v }
    }
    return $out
}

proc in_use {} { return [dict get [vbrctl show mempool] in_use] }

proc planes {} { return [dict get [vbrctl show pathsel planes gw] planes] }

proc all_healthy {} {
    foreach p [planes] {
        if {![dict get $p healthy]} { return 0 }
    }
    return 1
}

proc rx_bad {} {
    set n 0
    foreach p [planes] { incr n [dict get $p rx_bad] }
    return $n
}

proc plane_downs_since {t0} {
    set n 0
    foreach e [dict get [vbrctl show pathsel history gw] events] {
        if {[dict get $e time_us] >= $t0 && [dict get $e event] in {plane_down path_down}} { incr n }
    }
    return $n
}

# The sender ports and current sequence numbers of vbrd's probes, read on
# the wire in gw: dict sport -> seq (the latest seen).
proc live_probes {} {
    set rep [json_report [lab_exec gw /usr/bin/python3 [file join $::tools stamp_craft.py] probes \
                              --iface eth0 --count [expr {4 * $::planes}]]]
    set out {}
    foreach p [dict get $rep probes] {
        assert_equal [list [dict get $p inner_src] [dict get $p inner_dst]] {192.168.100.1 172.16.1.9} \
            "a probe's inner addresses"
        dict set out [dict get $p sport] [dict get $p seq]
    }
    return $out
}

# A 44-byte datagram of 52 bytes on the wire (UDP header + 44); the UDP
# Length field is set apart from that. name reason {stamp_craft send args}
proc cases {port} {
    set refl {--src 10.0.1.2 --dst 10.0.1.1 --dport 862 --sport 40100}
    # replies to the sender come from the tunnel's remote (172.16.1.9),
    # here forged by h1 and routed to vbrd like any packet
    set peer {--src 172.16.1.9 --dst 192.168.100.1 --sport 862 --kind reply}
    return [list \
        "a 20-byte test packet to 862"                  stamp_short      [list {*}$refl --size 20] \
        "an empty datagram to 862"                      stamp_short      [list {*}$refl --size 0] \
        "a test packet to 862 with UDP Length 60 (past the datagram)" stamp_short [list {*}$refl --udp-len 60] \
        "a test packet to 862 with UDP Length 28 (20 bytes of STAMP)" stamp_short [list {*}$refl --udp-len 28] \
        "a reply to sender port 41960, which no probe uses" stamp_no_session [list {*}$peer --dport 41960 --seq 1] \
        "a reply to a live sender port with a sequence number no probe has" stamp_unexpected \
            [list {*}$peer --dport $port --seq 0x7ffffff0] \
        "a 20-byte reply to a live sender port"         stamp_short      [list {*}$peer --dport $port --size 20] \
        "a reply to a live sender port with UDP Length 60" stamp_short   [list {*}$peer --dport $port --udp-len 60] \
        "a reply to a live sender port from h1's address, not the peer's" stamp_no_session \
            [list --src 10.0.1.2 --dst 192.168.100.1 --sport 862 --kind reply --dport $port --seq 0x7ffffff0] \
    ]
}

# At SCHED_FIFO, as the failover lab's bfdd: the hostile packets' senders
# are Python too, and must not starve the live path's reflector.
set refl [lab_spawn gw -lifetime 200 chrt -f 10 /usr/bin/python3 [file join $tools stamp_peer.py] vxlan-reflector \
              --iface eth0 --arp 172.16.1.9 --vni 1000 --mode stateful --seconds 180]
wait_for_condition 100 50 {
    [string match "*stamp_peer: ready*" [lab_spawn_output $refl]] || [lab_exited $refl]
} else {
    fail "vxlan-reflector did not start:\n[lab_spawn_output $refl]"
}

start_vbrd [list conf "
ports = (
  { name = \"lan\";   devargs = \"net_af_packet0,iface=@h1@\"; },
  { name = \"line1\"; devargs = \"net_af_packet1,iface=[lab_prefix]-line1\"; }
);
interfaces = (
  { name = \"lan\";   port = \"lan\";   address = \"10.0.1.1/24\"; },
  { name = \"line1\"; port = \"line1\"; address = \"172.16.1.1/24\"; }
);
tunnels = (
  { name = \"to-gw\"; type = \"vxlan\"; vni = 1000; local = \"192.168.100.1\"; remote = \"172.16.1.9\"; }
);
path_groups = (
  { name = \"gw\";
    paths = ( { name = \"p-line1\"; tunnel = \"to-gw\"; interface = \"line1\"; via = \"172.16.1.9\";
                planes = $planes; } ); }
);
routes = ( { prefix = \"10.99.0.0/24\"; path_group = \"gw\"; } );
# lost_down 10 (400 ms): a stall of the lab's Python reflector is no
# failure of the path; what is tested is that hostile packets change nothing
pathsel = { reflect_from = \[ \"10.0.1.0/24\" \]; groups = ( { path_group = \"gw\"; interval = 40; window = 50; lost_down = 10; } ); };
"] {
    test "the live path's $planes planes come up against the scapy reflector" {
        wait_for_condition 200 50 {[all_healthy]} else { fail "planes not healthy: [planes]" }
        set ::probes [live_probes]
        note "sender ports and sequence numbers on the wire: $::probes"
        assert_equal [dict size $::probes] $planes "sender ports (one per plane)"
        set ::port [lindex [dict keys $::probes] 0]
        assert_range $::port 40960 49151 "a sender port"
    }
    if {![info exists ::port]} { set ::port 40960 }

    foreach {what reason args} [cases $::port] {
        test "$what: dropped once as $reason, nothing else counted" {
            set before [stamp_drops]
            craft {*}$args
            wait_for_condition 100 20 {[dict get [stamp_drops] $reason] > [dict get $before $reason]} else {
                fail "$reason did not count the packet: [stamp_drops]"
            }
            set after [stamp_drops]
            dict incr before $reason
            assert_equal $after $before "stamp_* drops: $reason +1, the others unchanged"
        }
    }

    test {replies forged from h1's address for a plane whose own replies are cut: none taken as an answer (the peer's address: taken)} {
        # the line drops the reflector's replies of plane 1 (outer source
        # port 49153) on their way to vbrd (egress of the line's ifa): its
        # probes stay unanswered, in the window as lost, where a late
        # reply would still count
        set t [lab_prefix]_stamp
        set f [lab_file nft-stamp.conf]
        _lab_write $f "table netdev $t {
  chain out { type filter hook egress device \"ifa\" priority 0; policy accept; udp sport 49153 counter drop; }
}
"
        lab_exec line1 nft -f $f
        set code [catch {
            wait_for_condition 200 50 {![dict get [lindex [planes] 1] healthy]} else {
                fail "plane 1 stays healthy with its replies dropped: [planes]"
            }
            set port ""
            foreach p [dict get [json_report [lab_exec gw /usr/bin/python3 [file join $::tools stamp_craft.py] probes \
                                                  --iface eth0 --count 6]] probes] {
                if {[dict get $p outer_sport] == 49153} {
                    set port [dict get $p sport]; set seq [dict get $p seq]
                }
            }
            if {$port eq ""} { fail "no probe of plane 1 seen" }
            set before [stamp_drops]
            set rx0 [dict get [lindex [planes] 1] rx]
            # the last 30 probes' numbers: all in the window (50), lost
            set first [expr {max(0, $seq - 29)}]
            set count [expr {$seq - $first + 1}]
            set n [craft --src 10.0.1.2 --dst 192.168.100.1 --sport 862 --kind reply --dport $port \
                       --seq $first --seq-step 1 --count $count --pps 2000]
            wait_for_condition 100 50 {[dict get [stamp_drops] stamp_no_session] - [dict get $before stamp_no_session] >= $n} else {
                fail "stamp_no_session grew by [expr {[dict get [stamp_drops] stamp_no_session] - [dict get $before stamp_no_session]}], want $n; drops [stamp_drops] (before $before); plane 1 rx [expr {[dict get [lindex [planes] 1] rx] - $rx0}] more"
            }
            dict incr before stamp_no_session $n
            assert_equal [stamp_drops] $before "stamp_* drops: stamp_no_session +$n, the others unchanged"
            assert_equal [dict get [lindex [planes] 1] rx] $rx0 "plane 1's replies"
            # the same replies from the peer's address: the lost probes'
            # are answers (late ones), what the forged ones would have been
            # without the check; those answered before the cut are duplicates
            set u0 [dict get [stamp_drops] stamp_unexpected]
            set n [craft --src 172.16.1.9 --dst 192.168.100.1 --sport 862 --kind reply --dport $port \
                       --seq $first --seq-step 1 --count $count --pps 2000]
            wait_for_condition 100 50 {
                [dict get [lindex [planes] 1] rx] - $rx0 + [dict get [stamp_drops] stamp_unexpected] - $u0 >= $n
            } else {
                fail "of $n replies from the peer's address plane 1 took [expr {[dict get [lindex [planes] 1] rx] - $rx0}], stamp_unexpected [expr {[dict get [stamp_drops] stamp_unexpected] - $u0}]"
            }
            set took [expr {[dict get [lindex [planes] 1] rx] - $rx0}]
            note "plane 1 took $took of $n replies from the peer's address (the others: duplicates of answered probes)"
            # lost_down (10) lost probes in a row took the plane down: at least those
            assert_morethan $took 9 "replies from the peer's address taken"
        } result opts]
        lab_exec line1 nft delete table netdev $t
        if {$code} { return -options $opts $result }
        wait_for_condition 200 50 {[all_healthy]} else { fail "planes not healthy again: [planes]" }
    }

    test {a flood of 3006 (each of the 9 cases 334 times, ~2000/s): each counted, the mbufs come back, the live probes stay healthy} {
        set idle 0
        for {set i 0} {$i < 10} {incr i} {
            set n [in_use]
            if {$n > $idle} { set idle $n }
            after 50
        }
        set t0 [clock microseconds]
        set rx0 [lmap p [planes] {dict get $p rx}]
        set bad0 [rx_bad]
        set want [stamp_drops]
        set sent 0
        foreach {what reason args} [cases $::port] {
            incr sent [craft {*}$args --count 334 --pps 2000]
            dict incr want $reason 334
        }
        wait_for_condition 100 50 {[stamp_drops] eq $want} else {
            fail "drops [stamp_drops], want $want"
        }
        note "$sent packets; mbufs in use idle $idle of [dict get [vbrctl show mempool] size]"
        wait_for_condition 100 50 {[in_use] <= $idle} else {
            fail "in_use [in_use] stays above the idle $idle: a leak"
        }
        set rx1 [lmap p [planes] {dict get $p rx}]
        foreach p [planes] {
            note "plane [dict get $p plane]: rx [dict get $p rx], rx_bad [dict get $p rx_bad], loss [dict get $p loss_pct] %, rtt min/mean [dict get $p rtt_min_us]/[dict get $p rtt_mean_us] us"
            assert_equal [dict get $p healthy] true "plane [dict get $p plane] healthy"
        }
        # the live port's unexpected, short and lying replies, from the peer's address
        assert_equal [expr {[rx_bad] - $bad0}] [expr {3 * 334}] "replies the planes rejected"
        foreach a $rx0 b $rx1 {
            assert_morethan [expr {$b - $a}] 50 "a plane's replies during the flood"
        }
        assert_equal [plane_downs_since $t0] 0 "plane_down / path_down events during the flood"
        if {[lab_exited $refl]} { fail "the reflector died:\n[lab_spawn_output $refl]" }
    }
}
