# Reload under load: 100 reloads during a full-rate pcap replay lose no
# packet, and no packet to a neighbor the reload keeps (static or learned
# by ARP) takes the control path because of a reload.
#
#   net_pcap "in" (pcapgen flows, replayed from memory forever)
#       ── [vbrd] ── "out" net_null, static neighbor 10.1.0.2 (198.18.0.0/16)
#   h1 ── lan1 [vbrd] lan2 ── h2 (10.40.0.1 on lo): next hop learned by ARP
#                     lan3 ── h3 (10.41.0.1 on lo): static neighbor

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1
lab_host h3 10.0.3.2/24 10.0.3.1
lab_exec h2 ip addr add 10.40.0.1/32 dev lo
lab_exec h3 ip addr add 10.41.0.1/32 dev lo

set reloads 100
set pcap [file join [lab_rundir] flows.pcap]
set gen_err ""
if {[catch {exec [build_tool pcapgen] flows $pcap --flows 1000 --size 64 --packets 3000 2>@1} out]} {
    set gen_err $out
}

# One config; the two files of the reload loop differ by an extra route
# (EXTRA), so every reload builds and publishes a different state.
#
# "out" comes first, so it has the lowest DPDK port id (see in_minus_out).
set conf {
ports = (
  { name = "out"; devargs = "net_null0,no-rx=1"; },
  { name = "in"; devargs = "net_pcap0,rx_pcap=@rundir@/flows.pcap,infinite_rx=1"; },
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; },
  { name = "p3"; devargs = "net_af_packet2,iface=@h3@"; }
);
interfaces = (
  { name = "out"; port = "out"; address = "10.1.0.1/24"; },
  { name = "in"; port = "in"; address = "10.0.0.254/16"; },
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; },
  { name = "lan3"; port = "p3"; address = "10.0.3.1/24"; }
);
routes = (
  { prefix = "198.18.0.0/16"; via = "10.1.0.2"; },
  { prefix = "10.40.0.0/24"; via = "10.0.2.2"; },
  { prefix = "10.41.0.0/24"; via = "10.0.3.2"; }
  @EXTRA@
);
neighbors = (
  # net_null answers no ARP
  { interface = "out"; address = "10.1.0.2"; mac = "02:00:00:00:00:02"; }
  @H3@
);
# No re-confirmation of learned neighbors while the test runs.
neighbor = { reachable_s = 3600; };
workers = { cores = [ 1 ]; burst = 32; idle_sleep_us = 50; };
}

# The config text with EXTRA routes and h3's static entry (MAC, or "" for none).
proc reload_conf {extra h3mac} {
    set h3 [expr {$h3mac eq "" ? ""
                  : ",\n  \{ interface = \"lan3\"; address = \"10.0.3.2\"; mac = \"$h3mac\"; \}"}]
    return [string map [list @EXTRA@ $extra @H3@ $h3] $::conf]
}

set extra_route {, { prefix = "192.0.2.0/24"; via = "10.1.0.2"; }}

# Counting exactly while the replay runs: the worker is stopped (ptrace,
# one thread; the control thread keeps answering vbrctl) when it enters
# sendto(2). It makes that call only in rte_eth_tx_burst() of an af_packet
# port (p1..p3, the pings' frames), in tx_flush() at the end of its loop,
# which flushes ports in id order: out (the lowest id) was flushed just
# before and the next rx burst of "in" has not happened. So at that instant
# every frame in's RX counter holds has been sent by out, dropped (counted),
# or punted (counted as to_control) -- nothing of in's is in flight in the
# worker, and in's RX minus out's TX is exactly what went missing.
set stopper [file join [lab_rundir] stop_at_syscall.py]
_lab_write $stopper {
import ctypes, os, signal, sys
tid, nr = int(sys.argv[1]), int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
SEIZE, INTERRUPT, SYSCALL, GET_SYSCALL_INFO = 0x4206, 0x4207, 24, 0x420e
def pt(req, addr=None, data=None):
    if libc.ptrace(req, tid, addr, data) < 0:
        e = ctypes.get_errno()
        sys.exit("ptrace %#x: %s" % (req, os.strerror(e)))
signal.alarm(10)  # exiting detaches the thread, which then runs on
pt(SEIZE, None, 1)  # PTRACE_O_TRACESYSGOOD
pt(INTERRUPT)
info = ctypes.create_string_buffer(88)
sig = 0
while True:
    _, st = os.waitpid(tid, 0x40000000)  # __WALL
    if os.WIFEXITED(st) or os.WIFSIGNALED(st):
        sys.exit("thread gone")
    s = os.WSTOPSIG(st)
    if s == signal.SIGTRAP | 0x80:
        pt(GET_SYSCALL_INFO, ctypes.c_void_p(88), info)
        # struct ptrace_syscall_info: op (1 = entry) ... entry.nr at byte 24
        if info.raw[0] == 1 and int.from_bytes(info.raw[24:32], "little") == nr:
            break
    elif st >> 16 == 0 and s != signal.SIGTRAP:
        sig = s  # a signal for the thread: deliver it
    pt(SYSCALL, None, sig)
    sig = 0
print("stopped", flush=True)
sys.stdin.readline()
}

# Run SCRIPT while vbrd's worker is stopped as described above.
proc with_worker_stopped {script} {
    set tid ""
    foreach t [glob -nocomplain /proc/[vbrd_pid]/task/*] {
        if {[string match "*worker*" [_lab_read $t/comm]]} { set tid [file tail $t] }
    }
    if {$tid eq ""} { fail "no worker thread in /proc/[vbrd_pid]/task" }
    set nr [expr {$::tcl_platform(machine) eq "aarch64" ? 206 : 44}]  ;# sendto
    set fd [open "|python3 $::stopper $tid $nr 2>@1" r+]
    set line [gets $fd]
    if {$line ne "stopped"} {
        catch {close $fd}
        fail "could not stop the worker at sendto: $line"
    }
    set code [catch {uplevel 1 $script} res opts]
    puts $fd ""
    flush $fd
    catch {close $fd}
    return -options $opts $res
}

# in's RX minus out's TX as DPDK counts them, with the worker stopped
# between two loops (with_worker_stopped): what is missing, exactly.
proc in_minus_out {} {
    with_worker_stopped {
        set p [dict create]
        foreach port [dict get [vbrctl show ports] ports] {
            dict set p [dict get $port name] $port
        }
    }
    return [expr {[dict get $p in rx_packets] - [dict get $p out tx_packets]}]
}

# Packets held for unresolved neighbors, over the whole table.
proc held_packets {} {
    set n 0
    foreach e [dict get [vbrctl show neighbors] neighbors] {
        incr n [dict get $e held_packets]
    }
    return $n
}

# Drop reasons that moved between two `show stats` dicts, as "reason N".
proc drops_moved {before after} {
    set moved {}
    dict for {r n} [dict get $after drops] {
        set d [expr {$n - [dict get $before drops $r]}]
        if {$d != 0} { lappend moved "$r $d" }
    }
    return $moved
}

# Echo sequence numbers that got no reply in the output of a ping stopped
# with SIGINT -- all but the last one sent, which may still be on its way.
proc missing_echoes {out} {
    set got [dict create]
    foreach {- seq} [regexp -all -inline {bytes from [^:]*: icmp_seq=(\d+)} $out] {
        dict set got $seq 1
    }
    set sent [dict get [ping_stats $out] transmitted]
    set missing {}
    for {set i 1} {$i < $sent} {incr i} {
        if {![dict exists $got $i]} { lappend missing $i }
    }
    return $missing
}

# A host's MAC in upper case, as vbrctl prints MACs.
proc host_mac {host} { return [string toupper [lab_mac $host]] }

start_vbrd [list conf [reload_conf "" [host_mac h3]]] {
    test {the replay runs: every frame of the pcap is forwarded to out} {
        assert_equal $gen_err "" "pcapgen failed"
        assert_equal [port_stat in mac] 02:70:63:61:70:00 "in's MAC (pcapgen's default destination)"
        foreach port {in p1 p2 p3} {
            assert_lessthan [port_stat out id] [port_stat $port id] "port id of out, below $port's"
        }
        set rx0 [port_stat in rx_packets]
        wait_for_condition 50 100 {[port_stat in rx_packets] - $rx0 > 100000} else {
            fail "in received [expr {[port_stat in rx_packets] - $rx0}] frames in 5 s"
        }
        set st [vbrctl show stats]
        assert_equal [dict get $st drops_total] 0 "drops_total ([dict get $st drops])"
    }

    # The hosts know vbrd's MACs for good: no ARP from them reaches vbrd's
    # control path while the test counts to_control.
    foreach {h addr port} {h1 10.0.1.1 p1 h2 10.0.2.1 p2 h3 10.0.3.1 p3} {
        lab_exec $h ip neigh replace $addr lladdr [port_stat $port mac] dev eth0 nud permanent
    }

    test {h1 reaches h2 (next hop learned by ARP) and h3 (static neighbor)} {
        assert_ping h1 10.40.0.1 3
        assert_ping h1 10.41.0.1 3
        set n [neighbor 10.0.2.2]
        assert_equal [dict get $n state] reachable "state of 10.0.2.2 (learned by ARP)"
        assert_equal [dict get $n mac] [host_mac h2] "MAC of 10.0.2.2"
        assert_equal [dict get [neighbor 10.0.3.2] state] static "state of 10.0.3.2"
    }

    test "$reloads reloads during the full-rate replay lose no packet and divert none" {
        # pings through the learned and the static next hop all along (and
        # the frames whose sendto(2) in_minus_out waits for)
        set ping2 [lab_spawn h1 ping -n -i 0.02 -c 100000 -W 1 10.40.0.1]
        set ping3 [lab_spawn h1 ping -n -i 0.02 -c 100000 -W 1 10.41.0.1]
        wait_for_condition 50 100 {[regexp -all {bytes from} [lab_spawn_output $ping3]] >= 3} else {
            fail "the pings do not get through:\n[lab_spawn_output $ping3]"
        }
        set learned_t0 [clock milliseconds]
        set age0 [dict get [neighbor 10.0.2.2] age_s]
        set arp0 [vbrctl show arp]
        set gap0 [in_minus_out]
        set st0 [vbrctl show stats]
        set rx0 [port_stat in rx_packets]
        set t0 [clock milliseconds]

        set mac3 [host_mac h3]
        for {set i 0} {$i < $reloads} {incr i} {
            vbrd_reload [reload_conf [expr {$i % 2 ? "" : $::extra_route}] $mac3]
        }
        set ms [expr {[clock milliseconds] - $t0}]
        # what a reload made vbrd hold is sent or dropped before the count
        wait_for_condition 50 100 {[held_packets] == 0} else {
            fail "packets still held for neighbors: [held_packets]"
        }
        set rx1 [port_stat in rx_packets]
        set gap1 [in_minus_out]
        set st1 [vbrctl show stats]
        lab_kill $ping2 INT
        lab_kill $ping3 INT
        lab_wait_exit $ping2 5000
        lab_wait_exit $ping3 5000
        set p2 [ping_stats [lab_spawn_output $ping2]]
        set p3 [ping_stats [lab_spawn_output $ping3]]
        set arp1 [vbrctl show arp]
        set n [neighbor 10.0.2.2]

        set diverted [expr {[dict get $st1 to_control] - [dict get $st0 to_control]}]
        note [format "%d reloads in %.1f s, replay %.2f Mpps; in rx - out tx: %d before, %d after" \
                  $reloads [expr {$ms / 1000.0}] [expr {($rx1 - $rx0) / ($ms * 1000.0)}] $gap0 $gap1]
        note [format "to_control +%d (%.1f per reload); drops: {%s}" $diverted \
                  [expr {double($diverted) / $reloads}] [drops_moved $st0 $st1]]
        note "pings via 10.0.2.2 (ARP): [dict get $p2 transmitted] sent, [dict get $p2 received]\
              answered; via 10.0.3.2 (static): [dict get $p3 transmitted] sent,\
              [dict get $p3 received] answered"
        note "10.0.2.2: [dict get $n state], age [dict get $n age_s] s (was $age0 s);\
              ARP requests sent: +[expr {[dict get $arp1 requests_tx] - [dict get $arp0 requests_tx]}]"

        assert_morethan [expr {$rx1 - $rx0}] 100000 "frames replayed during the reloads"
        assert_equal $gap0 0 "in rx_packets - out tx_packets before the reloads"
        assert_equal $diverted 0 "packets sent to the control path (to_control) during the reloads"
        foreach r {tx_full control_ring_full arp_unresolved arp_hold_full} {
            assert_equal [expr {[dict get $st1 drops $r] - [dict get $st0 drops $r]}] 0 "$r drops"
        }
        assert_equal [drops_moved $st0 $st1] {} "drop counters that moved"
        assert_equal $gap1 0 "in rx_packets - out tx_packets after $reloads reloads (packets lost)"
        assert_equal [missing_echoes [lab_spawn_output $ping2]] {} "echoes via 10.0.2.2 not answered"
        assert_equal [missing_echoes [lab_spawn_output $ping3]] {} "echoes via 10.0.3.2 not answered"

        # The learned next hop was kept, not resolved again: still reachable,
        # its age grew with the time (not confirmed anew), no ARP request.
        assert_equal [dict get $n state] reachable "state of 10.0.2.2 after the reloads"
        assert_equal [dict get $n mac] [host_mac h2] "MAC of 10.0.2.2 after the reloads"
        set elapsed [expr {([clock milliseconds] - $learned_t0) / 1000}]
        assert_true {[dict get $n age_s] >= $age0 + $elapsed - 1} \
            "age of 10.0.2.2 [dict get $n age_s] s, want >= $age0 + $elapsed - 1 (not refreshed)"
        assert_equal [dict get $arp1 requests_tx] [dict get $arp0 requests_tx] "ARP requests sent"
    }

    test {a reload applies a static neighbor's new MAC at once, and removes a dropped one} {
        set c0 [stat to_control]
        # a MAC h3 does not own: h3 discards the echoes
        vbrd_reload [reload_conf "" 02:00:00:00:00:33]
        assert_equal [dict get [neighbor 10.0.3.2] mac] 02:00:00:00:00:33 "MAC of 10.0.3.2"
        lassign [ping_from h1 10.41.0.1 -c 2 -i 0.2 -W 1] rc out
        assert_true {$rc != 0} "ping to 10.41.0.1 answered with a wrong static MAC: $out"
        # h3's own MAC again: the first echo gets through, without ARP
        vbrd_reload [reload_conf "" [host_mac h3]]
        assert_ping h1 10.41.0.1 1
        assert_equal [stat to_control] $c0 "packets to the control path"

        # No entry in the config: the static one goes; h3 is resolved by ARP.
        set req0 [dict get [vbrctl show arp] requests_tx]
        vbrd_reload [reload_conf "" ""]
        set n [neighbor 10.0.3.2]
        assert_true {$n eq {} || [dict get $n state] ne "static"} "10.0.3.2 still static: $n"
        assert_ping h1 10.41.0.1 2
        assert_morethan [dict get [vbrctl show arp] requests_tx] $req0 "ARP requests sent for 10.0.3.2"
        assert_equal [dict get [neighbor 10.0.3.2] state] reachable "state of 10.0.3.2"
    }
}
