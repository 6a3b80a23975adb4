# Findings of a hostile review of BFD and failover groups (failover/),
# each a test that failed on the code it was written against and passes
# since its fix:
#
#   peer  10.9.0.2/24 (bfd_peer.py) ── line  10.9.0.1/24 [vbrd]
#   peer2 10.9.1.2/24 (bfd_peer.py) ── line2 10.9.1.1/24
#
# Group "g": member0 line via 10.9.0.2 (session a), member1 line2 via
# 10.9.1.2 (session b), active-standby, revertive, hold-down 300 ms.
# 100 ms x 5 on both ends (Python's timing on a shared 2-core machine).
#
# 1. A single-hop packet was demultiplexed by Your Discriminator alone: one
#    arriving on another interface (or from another address) was taken by
#    the session. Now the session's interface (single-hop, RFC 5881 §3) or
#    local address (multihop) and peer must match too.
# 2. A member whose peer signalled AdminDown stayed "peer AdminDown" for
#    ever when the peer then went silent. Now a peer silent for three of
#    its intervals (at least 3 s: it sends at least once a second while
#    not Up) is gone, and the member is down.
# 3. Run-time session slots were as many as a config's sessions (1024),
#    shared by the running and the new generation while a reload builds: a
#    config of 1024 could not be reloaded with one renamed. Now 2048.
# 4. A group's mode was not part of what makes it the same group across a
#    reload: a load-balance group reloaded as active-standby kept splitting
#    its flows, also onto a failed member. Now a new mode is a new group.
# 5. Telemetry /vbrd/bfd with 1024 sessions: DPDK's 16 KB reply held ~31
#    rows and said nothing of the rest. Now a table comes in pages.

source [file join [file dirname [file normalize [info script]]] harness bfdtest.tcl]

lab_host peer 10.9.0.2/24 10.9.0.1
lab_host peer2 10.9.1.2/24 10.9.1.1

set conf {
ports = (
  { name = "p0"; devargs = "net_af_packet0,iface=@peer@"; },
  { name = "p1"; devargs = "net_af_packet1,iface=@peer2@"; }
);
interfaces = (
  { name = "line";  port = "p0"; address = "10.9.0.1/24"; },
  { name = "line2"; port = "p1"; address = "10.9.1.1/24"; }
);
bfd = {
  transmit_interval = 100; receive_interval = 100; detect_multiplier = 5;
  sessions = (
    { name = "a"; interface = "line";  peer = "10.9.0.2"; },
    { name = "b"; interface = "line2"; peer = "10.9.1.2"; }
  );
};
failover_groups = (
  { name = "g"; mode = "@MODE@"; revertive = true; hold_down = 300;
    members = (
      { interface = "line";  via = "10.9.0.2"; bfd = "a"; },
      { interface = "line2"; via = "10.9.1.2"; bfd = "b"; }
    ); }
);
routes = ( { prefix = "10.2.0.0/24"; failover_group = "g"; } );
}

proc session {name} {
    return [lindex [dict get [vbrctl show bfd $name] sessions] 0]
}

proc group {} {
    return [lindex [dict get [vbrctl show fgroup g] groups] 0]
}

proc wait_session {name state ms} {
    wait_for_condition [expr {$ms / 50}] 50 {[dict get [session $name] state] eq $state} else {
        fail "session $name not $state after $ms ms: [session $name]"
    }
}

proc wait_group {key value ms} {
    wait_for_condition [expr {$ms / 50}] 50 {[dict get [group] $key] eq $value} else {
        fail "group g: $key not $value after $ms ms: [group]"
    }
}

start_vbrd [list conf [string map {@MODE@ active-standby} $conf]] {
    set pa [bfdpeer_start peer 10.9.0.2 10.9.0.1 --tx-ms 100 --rx-ms 100 --mult 5]
    set pb [bfdpeer_start peer2 10.9.1.2 10.9.1.1 --tx-ms 100 --rx-ms 100 --mult 5]

    test "both sessions Up, the group on member0" {
        wait_session a Up 10000
        wait_session b Up 10000
        wait_group active member0 3000
    }

    test "a packet with session a's discriminator arriving on line2 is not a's (RFC 5881 §3)" {
        set s [session a]
        set disc [dict get $s local_disc]
        set flaps [dict get $s flaps]
        set rx [dict get $s rx]
        set sw0 [dict get [group] switches]
        set before [dict get [bfd_drops] bfd_no_session]
        # from peer2, the host on line2: TTL 255, a valid source port, a's
        # discriminator, state Down ("the neighbor went down")
        bfd_craft peer2 10.9.1.2 10.9.1.1 your_disc=$disc my_disc=0x4242 state=1
        wait_for_condition 50 20 {
            [dict get [bfd_drops] bfd_no_session] > $before ||
            [dict get [session a] flaps] > $flaps
        } else {
            fail "the packet was neither dropped nor taken: [session a] [bfd_drops]"
        }
        set s [session a]
        assert_equal [dict get $s flaps] $flaps \
            "session a's flaps (it went [dict get $s state], diag [dict get $s diag], on a packet of line2)"
        # (since the packet: the start-up may have switched, when b came
        # Up before a: seen in a sanitizer run, 2 switches at start-up)
        assert_equal [dict get [group] switches] $sw0 "group switches"
        assert_equal [dict get [bfd_drops] bfd_no_session] [expr {$before + 1}] "bfd_no_session"
    }

    test "a peer that signals AdminDown, then goes silent: the member is Down, the group moves" {
        # back to the start: a Up, the group on member0
        wait_session a Up 10000
        wait_group active member0 5000
        # bfd_peer.py's SIGUSR1 toggles AdminDown; lab_spawn's pid is
        # timeout(1)'s, which SIGUSR1 would kill: signal its child
        exec kill -USR1 [exec pgrep -P [dict get $pa pid]]
        wait_session a Down 3000
        wait_group member0_state "peer AdminDown" 1000
        # RFC 5882 §3.2: no failure, nothing moves
        assert_equal [dict get [group] active] member0 "active while the peer is AdminDown"
        # now the peer dies: nothing more arrives from it
        bfdpeer_stop $pa
        # its last packet said Detect Mult 5 x 1 s (slow TX while not Up):
        # the detection time is 5 s at the most (7 s: room for a busy machine)
        wait_for_condition 350 20 {[dict get [group] member0_state] eq "Down"} else {}
        set g [group]
        assert_equal [dict get $g member0_state] Down \
            "member0 after a detection time without a packet ([session a])"
        assert_equal [dict get $g active] member1 "the group's active member"
    }
    catch {bfdpeer_stop $pb}
}

start_vbrd [list conf [string map {@MODE@ load-balance} $conf]] {
    set pa [bfdpeer_start peer 10.9.0.2 10.9.0.1 --tx-ms 100 --rx-ms 100 --mult 5]
    set pb [bfdpeer_start peer2 10.9.1.2 10.9.1.1 --tx-ms 100 --rx-ms 100 --mult 5]

    test "load-balance reloaded as active-standby: one member active, not both" {
        wait_session a Up 10000
        wait_session b Up 10000
        wait_group active both 3000
        vbrd_rewrite_config [string map {@MODE@ active-standby} $::conf]
        vbrctl reload
        assert_equal [dict get [group] mode] active-standby "mode after the reload"
        after 500
        assert_equal [dict get [group] active] member0 \
            "active member of the active-standby group, both members Up"
    }

    test "... and member1 failing then takes no flow to the dead member" {
        bfdpeer_stop $pb
        wait_session b Down 3000
        after 200
        set g [group]
        assert_equal [dict get $g member1_state] Down "member1"
        # "both": half the flows (the flow hash) still go to line2
        assert_equal [dict get $g active] member0 "active member with member1 Down"
    }
    catch {bfdpeer_stop $pa}
    catch {bfdpeer_stop $pb}
}

# 1023 passive multihop sessions (and "ghost"): passive ones send nothing until the
# peer is heard (RFC 5880 §6.1), so the lab stays quiet.
proc many_conf {first} {
    set rows {}
    for {set i 0} {$i < 1023} {incr i} {
        set n [expr {$i == 0 ? $first : "s$i"}]
        lappend rows [format {{ name = "%s"; multihop = true; local = "10.9.0.1"; peer = "10.50.%d.%d"; passive = true; }} \
                          $n [expr {$i / 250}] [expr {$i % 250 + 1}]]
    }
    # and one active session to a neighbor that never answers ARP: its
    # packets wait for the control thread's resolution (tx_unresolved)
    # when vbrd stops (start_vbrd checks the SIGTERM)
    lappend rows {{ name = "ghost"; interface = "line"; peer = "10.9.0.77"; transmit_interval = 10; }}
    return [string map [list @ROWS@ [join $rows ",\n    "]] {
ports = ( { name = "p0"; devargs = "net_af_packet0,iface=@peer@"; } );
interfaces = ( { name = "line"; port = "p0"; address = "10.9.0.1/24"; } );
bfd = {
  sessions = (
    @ROWS@
  );
};
}]
}

start_vbrd [list conf [many_conf s0]] {
    test "ghost's packets wait for a neighbor that never answers (then SIGTERM with them held)" {
        wait_for_condition 60 50 {[dict get [session ghost] tx_unresolved] >= 2} else {
            fail "ghost: [session ghost]"
        }
    }

    # DPDK's telemetry reply is at most 16 KB (lib/telemetry MAX_OUTPUT_LEN)
    # and 256 entries, and DPDK leaves out what does not fit without a
    # word. vbrd pages a table: each reply says the table's rows (_rows) and
    # where the next page starts (_next, asked for with ",from=N").
    test "telemetry /vbrd/bfd with 1024 sessions: every session, page by page (_rows, _next); /vbrd/fgroup with none" {
        regexp {instance = "([^"]+)"} [_lab_read [vbrd_conf]] -> inst
        set py {
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
json.loads(s.recv(65536))
def ask(cmd):
    s.send(cmd.encode())
    return json.loads(s.recv(1 << 22))[cmd.split(",")[0]]
names, pages, nxt, rows = [], 0, 0, None
while nxt is not None and pages < 100:
    page = ask("/vbrd/bfd,from=%d" % nxt)
    pages += 1
    rows = page.pop("_rows")
    assert page.pop("_from") == nxt
    nxt = page.pop("_next", None)
    names += [r["name"] for r in page.values()]
g = ask("/vbrd/fgroup")
print(json.dumps(dict(names=names, pages=pages, rows=rows, fgroup_rows=g.get("_rows"))))
}
        set r [json::json2dict [exec python3 -c $py /var/run/dpdk/$inst/dpdk_telemetry.v2]]
        note "telemetry /vbrd/bfd: [llength [dict get $r names]] sessions in [dict get $r pages] pages"
        assert_equal [dict get $r rows] 1024 "_rows"
        set want [lsort [lmap s [dict get [vbrctl show bfd] sessions] {dict get $s name}]]
        assert_equal [llength $want] 1024 "sessions in vbrctl -j show bfd"
        assert_equal [lsort [dict get $r names]] $want "the sessions of every page, each once"
        assert_morethan [dict get $r pages] 1 "pages"
        assert_equal [dict get $r fgroup_rows] 0 "/vbrd/fgroup: _rows"
    }

    test "1024 sessions (the limit): a reload that renames one of them is applied" {
        assert_equal [llength [dict get [vbrctl show bfd] sessions]] 1024 "sessions running"
        set gen [dict get [vbrctl show config] generation]
        vbrd_rewrite_config [many_conf renamed]
        lassign [vbrctl_raw reload] rc out
        assert_equal $rc 0 "vbrctl reload exit status; output: $out"
        assert_equal [dict get [vbrctl show config] generation] [expr {$gen + 1}] "generation"
        assert_equal [dict get [session renamed] state] Down "the renamed session"
    }
}
