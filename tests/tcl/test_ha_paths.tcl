# The HA pair's shared path choices (failover/ha/ha_config.h `share.path_groups`,
# ha_module.c adopt_shared, pathsel.h pathsel_adopt): at takeover the new active
# takes the old active's last per-tier path choice of each shared path
# group from Redis (vbrd:PAIR:shared) and applies it in the BFD worker's
# next turn, as a switch with reason ha_adopt, instead of choosing again
# from its own probes.
#
#   PREFIX-wan (bridge br0)
#     a wan 10.20.0.2 ─┤   tunnel to-h2: VXLAN VNI 1000, local = the node's
#     b wan 10.20.0.3 ─┤   wan address, remote 10.20.0.9 (next hop too)
#                      ├─ h2 eth0 10.20.0.100, and 10.20.0.9 played by
#                      │  tools/stamp_peer.py vxlan-reflector (stateless,
#                      │  SCHED_FIFO), which answers ARP for it and every
#                      │  STAMP probe inside VXLAN, keeping the outer UDP
#                      │  source port: a plane's reply comes back on it
#
# Each node: path group "region" with p1 (plane 0: outer UDP source port
# 49152, cost 10) and p2 (plane 1: port 49153, cost 20), both over wan to
# h2. Every tier's objective is "cost", so that a node's own choice is
# certain and probe noise never moves it: p1 (the cheaper) while it
# answers, p2 when p1 fails hard. hold 60 s and dwell 600 s: a node's own
# probes do not move a tier back during the test (ps_group_mem_adopt()
# starts the dwell as a fault switch does).
#
# Why a scapy reflector and not a Linux VXLAN device (as
# test_vxlan_interop.tcl): vbrd's probes are addressed to the tunnel's
# remote itself (inner destination = outer remote, pathsel_worker.c
# send_probe), and Linux's VXLAN device picks its own outer source port
# from the inner flow's hash, so the reply of a plane would not travel on
# that plane and a cut of one plane could only be one-way.
#
# The cut of a's p1: nftables in the wan namespace, egress hooks on the
# bridge's ports: towards h2 the frames from 10.20.0.2 with outer UDP
# source port 49152, towards a the replies with that source port (the
# reflector keeps it). b's p1 and a's p2 pass.
#
# Expectations come from what the test did and from the old active's
# shared state as Redis holds it: a's p1 cut -> a on p2 in every tier ->
# Redis says p2; b's own probes say p1 (healthy, cheaper). After the kill
# -9 of a, b on p2 can only come from the adoption (and every switch of b
# since the kill is an ha_adopt one: asserted). The ha_adopt switch's
# goal is the takeover + 20 ms (PATHSEL_STALL_NS: the longest a turn of the BFD
# worker may be late without counting as a stall), noted; asserted is
# that it comes at or after the takeover and within one probe window
# (100 x 10 ms), the bound for stuck, which a busy machine or ASan stays
# far below. Likewise a's switch reaches Redis after the switch and before
# the kill (its time is noted next to the 20 ms goal).
#
# Two tests: the issue's (default publish, 100 ms; b's kill comes once
# Redis holds a's new choices and b has read them), and a killed right
# after its switch with publish = 10000, so that only a publication on
# the change (ha_config.h: "and on every change") can bring the switch
# to b. Measured on the shared 2-core machine: the ha_adopt switches
# 0.2-2 ms after the takeover, a's switch in Redis 1-3 ms after it.

source [file join [file dirname [file normalize [info script]]] harness ha_lab.tcl]

set stamp_py [file join [file dirname [file normalize [info script]]] tools stamp_peer.py]

set remote 10.20.0.9
set plane_port {p1 49152 p2 49153}
set tiers {gold silver bronze}
set interval 10

# Config of NODE besides ha_lab's: the tunnel, the path group, its selection.
proc node_extra {node} {
    set local [dict get $::ha::wan4 $node]
    return "
tunnels = (
  { name = \"to-h2\"; type = \"vxlan\"; vni = 1000; local = \"$local\"; remote = \"$::remote\"; }
);
path_groups = (
  { name = \"region\";
    paths = (
      { name = \"p1\"; tunnel = \"to-h2\"; interface = \"wan\"; via = \"$::remote\"; plane = 0; cost = 10; },
      { name = \"p2\"; tunnel = \"to-h2\"; interface = \"wan\"; via = \"$::remote\"; plane = 1; cost = 20; }
    ); }
);
pathsel = {
  tiers = { gold = { objective = \"cost\"; }; silver = { objective = \"cost\"; }; bronze = { objective = \"cost\"; }; };
  groups = ( { path_group = \"region\"; interval = $::interval; lost_down = 5; hold = 60000; dwell = 600000; } );
};
"
}

# NODE's group "region" in `show pathsel`.
proc region {node} {
    foreach g [dict get [ha_vbrctl $node show pathsel] path_groups] {
        if {[dict get $g name] eq "region"} { return $g }
    }
    fail "node $node has no path group region"
}

# NODE's path per tier: {gold P silver P bronze P}.
proc tier_paths {node} {
    set g [region $node]
    return [concat {*}[lmap t $::tiers {list $t [dict get $g $t]}]]
}

proc all_on {node path} {
    foreach {t p} [tier_paths $node] {
        if {$p ne $path} { return 0 }
    }
    return 1
}

# NODE's probe sessions (`show pathsel planes region`), by path name.
proc planes {node} {
    set out [dict create]
    foreach p [dict get [ha_vbrctl $node show pathsel planes region] planes] {
        dict set out [dict get $p path] $p
    }
    return $out
}

# Every plane of NODE healthy with at least N replies.
proc planes_answered {node n} {
    dict for {path p} [planes $node] {
        if {![dict get $p healthy] || [dict get $p rx] < $n} { return 0 }
    }
    return 1
}

# NODE's switch events of group region.
proc switches {node} {
    return [lmap e [dict get [ha_vbrctl $node show pathsel history region] events] {
        expr {[dict get $e event] eq "switch" ? $e : [continue]}
    }]
}

# The ha_adopt switches among the switch events EVENTS.
proc ha_adopts {events} {
    return [lmap e $events {expr {[dict get $e reason] eq "ha_adopt" ? $e : [continue]}}]
}

# The pair's shared state as Redis holds it (a dict; {} when none), and
# its region entries as {tier path ...}.
proc shared_state {} {
    set s [redis_cli get [ha_lease_key shared]]
    if {$s eq ""} { return {} }
    return [json::json2dict $s]
}

proc shared_region {state} {
    set out [dict create]
    if {![dict exists $state paths]} { return $out }
    foreach e [dict get $state paths] {
        if {[dict get $e group] eq "region"} { dict set out [dict get $e tier] [dict get $e path] }
    }
    return $out
}

# --- a's p1 cut in the wan namespace ---

proc cut_table {} { return "[lab_prefix]_hp_cut" }

# Cut NODE's plane of PATH both ways (in place of an earlier cut), with a
# counter per direction; heal_planes takes the cut away; cut_drops ->
# dict to_h2 N to_node N (packets dropped).
proc cut_plane {node path} {
    set ip [dict get $::ha::wan4 $node]
    set port [dict get $::plane_port $path]
    set t [cut_table]
    heal_planes
    set f [lab_file nft-hp-cut.conf]
    _lab_write $f "table netdev $t {
  counter to_h2 { }
  counter to_node { }
  chain to_h2 {
    type filter hook egress device \"h2\" priority 0; policy accept;
    ip saddr $ip udp sport $port counter name to_h2 drop
  }
  chain to_node {
    type filter hook egress device \"$node\" priority 0; policy accept;
    ip daddr $ip udp sport $port counter name to_node drop
  }
}
"
    lab_exec wan nft -f $f
}

proc heal_planes {} {
    lassign [lab_run wan nft list table netdev [cut_table]] rc
    if {$rc == 0} { lab_exec wan nft delete table netdev [cut_table] }
}

proc cut_drops {} {
    set out [dict create]
    set j [json::json2dict [lab_exec wan nft -j list counters table netdev [cut_table]]]
    foreach item [dict get $j nftables] {
        if {[dict exists $item counter name]} {
            dict set out [dict get $item counter name] [dict get $item counter packets]
        }
    }
    return $out
}

lab_on_cleanup {catch {heal_planes}}

# --- the steps of the tests ---

# The pair up with a active, both nodes' probes answered on both planes
# (a window's quarter at least: start-up is over, their choices are their
# own probes') and every tier of both on p1.
proc pair_on_p1 {} {
    lassign [ha_pair_up] act sby
    assert_equal $act a "the node started first took the lease"
    foreach n {a b} {
        wait_for_condition 300 20 {[planes_answered $n 50]} else {
            fail "node $n's planes are not all healthy with 50 replies: [planes $n]"
        }
        if {[tier_paths $n] ne {gold p1 silver p1 bronze p1}} {
            fail "node $n's choices with both paths up: [tier_paths $n], not p1 in every tier; its history: [dict get [ha_vbrctl $n show pathsel history region] events]; planes [planes $n]"
        }
    }
}

# Cut a's p1: every tier of a moves to p2 (one hard_failure switch each)
# -> a's switch events.
proc cut_a_p1 {} {
    set t_cut [ha_now_us]
    cut_plane a p1
    wait_for_condition 200 5 {[all_on a p2]} else {
        fail "a's tiers did not leave p1 after its cut: [tier_paths a]; planes [planes a]"
    }
    set a_sw [switches a]
    foreach t $::tiers {
        set e [lmap x $a_sw {expr {[dict get $x tier] eq $t ? $x : [continue]}}]
        assert_equal [llength $e] 1 "a's switches of $t: $a_sw"
        set e [lindex $e 0]
        assert_equal [list [dict get $e old] [dict get $e new] [dict get $e reason]] \
            {p1 p2 hard_failure} "a's switch of $t"
    }
    note [format "a's switches to p2 %.1f ms after the cut" \
        [expr {([dict get [lindex $a_sw 0] time_us] - $t_cut) / 1000.0}]]
    assert_morethan [dict get [cut_drops] to_h2] 0 "probes of a's p1 dropped towards h2"
    return $a_sw
}

# Wait (up to MS) for Redis's shared state to say p2 in every tier -> it.
proc wait_shared_p2 {ms} {
    set t_end [expr {[clock milliseconds] + $ms}]
    while {[shared_region [set st [shared_state]]] ne {gold p2 silver p2 bronze p2}} {
        if {[clock milliseconds] > $t_end} {
            fail "Redis's shared state does not say p2 after $ms ms: $st"
        }
        after 2
    }
    assert_equal [dict get $st node] a "the shared state's writer"
    return $st
}

# kill -9 of a while b is standby; sample b as fast as vbrctl answers: its
# choices first (then its role, so that a sample with role standby was
# taken while it was standby), and once active its choices again. SIGKILL
# alone first: ha_kill waits for the exit (the kernel's teardown of a
# DPDK process can outlast the lease), then records it.
# -> dict t_kill, shared (Redis's shared state right after the kill, the
#    old active's last: b's own comes only with its takeover, a lease
#    later), before {T0 CHOICES} (the last sample as standby, "" if none),
#    t_after, after (the first as active), show (b's show ha then)
proc kill_a_sample_b {} {
    set t_kill [ha_now_us]
    lab_kill [dict get $::ha::inst(a) pid] KILL
    set shared [shared_state]
    set before ""
    while {1} {
        set t0 [ha_now_us]
        set p [tier_paths b]
        set s [ha_show b]
        if {[dict get $s role] eq "active"} { break }
        set before [list $t0 $p]
        if {[ha_now_us] - $t_kill > 3000000 * [ha_slow]} {
            fail "b is [dict get $s role], not active, 3 s after the kill: $s"
        }
        after 1
    }
    set t_after [ha_now_us]
    set after_p [tier_paths b]
    ha_kill a KILL
    return [dict create t_kill $t_kill shared $shared before $before t_after $t_after \
                after $after_p show [ha_show b]]
}

# What b did at the takeover (R from kill_a_sample_b), against WANT (the
# old active's last choices: {tier path ...}), SW0 (b's switch events
# before) and K0 (its takeovers before).
proc check_adoption {r want sw0 k0} {
    set s [dict get $r show]
    set tk [dict get $s last_takeover]
    set t_tk [dict get $tk time_us]
    set before [dict get $r before]
    # the switches of the adoption, once there (a late one is judged by
    # its time below, not missed)
    wait_for_condition 100 10 {[llength [ha_adopts [lrange [switches b] $sw0 end]]] >= [dict size $want]} else {}
    set new_sw [lrange [switches b] $sw0 end]
    set adopts [ha_adopts $new_sw]

    note [format "b took over %.1f ms after the kill; last sample as standby %s ms before the takeover: %s; first as active %.1f ms after it: %s" \
        [expr {($t_tk - [dict get $r t_kill]) / 1000.0}] \
        [expr {$before eq "" ? "-" : [format %.1f [expr {($t_tk - [lindex $before 0]) / 1000.0}]]}] \
        [lindex $before 1] [expr {([dict get $r t_after] - $t_tk) / 1000.0}] [dict get $r after]]
    foreach e $adopts {
        note [format "ha_adopt %s %s -> %s %d us after the takeover" [dict get $e tier] \
            [dict get $e old] [dict get $e new] [expr {[dict get $e time_us] - $t_tk}]]
    }
    note "last_takeover: $tk"

    assert_equal [dict get $s takeovers] [expr {$k0 + 1}] "b's takeovers"
    assert_equal [dict get $tk from] a "the takeover's previous holder"
    assert_true {$before ne ""} "a sample of b as standby after the kill"
    assert_equal [lindex $before 1] {gold p1 silver p1 bronze p1} "b's choices in its last sample as standby"
    assert_equal [dict get $tk adopted_paths] [dict size $want] "last_takeover adopted_paths"
    assert_equal [llength $adopts] [dict size $want] "b's ha_adopt switches: $new_sw"
    assert_equal [llength $new_sw] [llength $adopts] "b's switches since the kill, all ha_adopt: $new_sw"
    foreach e $adopts {
        set t [dict get $e tier]
        assert_equal [list [dict get $e old] [dict get $e new]] [list p1 [dict get $want $t]] "b's ha_adopt switch of $t"
        # the worker's clock read of the turn may precede the control
        # thread's takeover stamp by a few µs (both fo_wall_us)
        assert_morethan [dict get $e time_us] [expr {$t_tk - 1000}] \
            "time of b's ha_adopt switch of $t (µs) vs. its takeover at $t_tk"
        assert_not_stuck [expr {([dict get $e time_us] - $t_tk) / 1000.0}] 20 1000 \
            "b's ha_adopt switch of $t after its takeover"
    }
    assert_equal [dict get $r after] $want "b's choices in its first sample as active = a's last choices"
}

# --- the remote gateway: started before the nodes, so that their first
# probes are answered ---

ha_topology
set refl [lab_spawn h2 -lifetime 200 chrt -f 10 /usr/bin/python3 $stamp_py vxlan-reflector \
              --iface eth0 --arp $remote --vni 1000 --mode stateless --seconds 180]
wait_for_condition 100 50 {
    [string match "*stamp_peer: ready*" [lab_spawn_output $refl]] || [lab_exited $refl]
} else {
    fail "vxlan-reflector did not start:\n[lab_spawn_output $refl]"
}

set share {share = { path_groups = [ "region" ]; };}

start_ha_lab [list ha_extra $share a_extra [node_extra a] b_extra [node_extra b]] {
    test {after takeover the new active's path choices equal the old active's last choices without waiting for new probes} {
        if {[lab_exited $refl]} { fail "vxlan-reflector exited:\n[lab_spawn_output $refl]" }
        pair_on_p1
        # the old active loses p1: every tier moves to p2, and so does the
        # pair's shared state
        set a_sw [cut_a_p1]
        set shared [wait_shared_p2 2000]
        note [format "a's switch in Redis's shared state written %.1f ms after it" \
            [expr {([dict get $shared time_us] - [dict get [lindex $a_sw 0] time_us]) / 1000.0}]]
        # b has read it: a publishes its own state, then the shared part,
        # and b reads each on its message, on one connection, in order;
        # so once b holds a's own state of a later round than the shared
        # state we read, its read of that shared state is answered
        wait_for_condition 100 20 {
            [dict exists [ha_show b] partner time_us]
            && [dict get [ha_show b] partner time_us] > [dict get $shared time_us]
        } else {
            fail "b has not read a's state since the shared state [dict get $shared time_us]: [dict get [ha_show b] partner]"
        }
        # b's own probes still say p1
        assert_equal [planes_answered b 50] 1 "b's planes healthy: [planes b]"
        assert_equal [tier_paths b] {gold p1 silver p1 bronze p1} "b's choices before the takeover"
        set sw0 [llength [switches b]]
        set k0 [dict get [ha_show b] takeovers]

        set r [kill_a_sample_b]
        assert_equal [dict get [dict get $r shared] node] a "the shared state's writer at the kill"
        assert_equal [shared_region [dict get $r shared]] [shared_region $shared] "Redis's shared state at the kill"
        check_adoption $r [shared_region $shared] $sw0 $k0

        # and b's own probes over a whole window since (100 probes per
        # plane, p1 healthy and cheaper) did not take it back
        set tx0 [dict get [planes b] p1 tx]
        wait_for_condition 300 20 {[dict get [planes b] p1 tx] >= $tx0 + 100} else {
            fail "b's p1 probes do not go on: [planes b]"
        }
        assert_equal [planes_answered b 50] 1 "b's planes healthy: [planes b]"
        assert_equal [tier_paths b] [shared_region $shared] "b's choices a probe window after the takeover"
        assert_equal [llength [switches b]] [expr {$sw0 + 3}] "b's switches: [lrange [switches b] $sw0 end]"
    }
}

# a's p1 whole again before the nodes start (a node that starts with it
# cut stays on p2: the dwell after that fault)
heal_planes

# publish = 10000 (the most), state_ttl 60 s, and a killed right after its
# switch: a's periodic publications come at its takeover and 10 s later,
# after this test, so a change that waited for them would not be in Redis
# and b would take over with a's choices of before the cut (p1); one
# published on the change is there within a few ms (ha_timer runs every
# ms): bound 20 ms. (With a shorter period the lab's own timing, the same
# every run, decides where the switch falls in it: not a random draw.)
start_ha_lab [list ha_extra "$share\npublish = 10000;\nstate_ttl = 60000;" \
                  a_extra [node_extra a] b_extra [node_extra b]] {
    test {a switch the active made just before a kill -9 is the one the new active adopts (published on the change, not every 10 s)} {
        if {[lab_exited $refl]} { fail "vxlan-reflector exited:\n[lab_spawn_output $refl]" }
        pair_on_p1
        set sw0 [llength [switches b]]
        set k0 [dict get [ha_show b] takeovers]
        set a_sw [cut_a_p1]
        # a's last choices, and one more round trip to a's control thread
        # (its ha timer runs every ms) before the kill
        set last [tier_paths a]
        ha_show a
        set r [kill_a_sample_b]
        set shared [dict get $r shared]
        note [format "a killed %.1f ms after its switch; the shared state Redis held then: written %.1f ms after the switch, %s" \
            [expr {([dict get $r t_kill] - [dict get [lindex $a_sw 0] time_us]) / 1000.0}] \
            [expr {([dict get $shared time_us] - [dict get [lindex $a_sw 0] time_us]) / 1000.0}] \
            [shared_region $shared]]
        assert_equal $last {gold p2 silver p2 bronze p2} "a's last choices"
        assert_equal [dict get $shared node] a "the shared state's writer"
        assert_equal [shared_region $shared] $last "Redis's shared state at the kill"
        # written on the change: after a's switch, before the kill (a
        # publication every 10 s would hardly fall in that window)
        assert_range [dict get $shared time_us] [dict get [lindex $a_sw 0] time_us] [dict get $r t_kill] \
            "time of the shared state at the kill (µs) vs. a's switch and the kill"
        assert_not_stuck [expr {([dict get $shared time_us] - [dict get [lindex $a_sw 0] time_us]) / 1000.0}] 20 1000 \
            "the shared state written after a's switch"
        check_adoption $r $last $sw0 $k0
    }
}

lab_kill $refl
lab_wait_exit $refl 5000
