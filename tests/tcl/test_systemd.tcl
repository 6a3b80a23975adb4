# vbrd under systemd (Type=notify, app/systemd_notify.h): with NOTIFY_SOCKET
# set it says READY=1 once its ports forward, RELOADING=1 then READY=1 around
# a reload (applied or rejected), STOPPING=1 on SIGTERM, each with a STATUS=
# line. systemd itself is not needed: tools/notify_listen.py plays its
# socket and, the moment READY=1 arrives, asks vbrctl for the ports and
# pings h2 from h1 through vbrd, so the record says what was true then.
# Also the units' command line: --instance and --reserve-hugepages.
#
#   h1 ── lan1 [vbrd] lan2 ── h2

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

set conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
}

# Start the listener on SOCKET (a path or @NAME); return the file it writes.
# On READY=1 it runs `vbrctl -j show ports` on SOCK and one ping h1 -> h2.
proc notify_listen {socket sock} {
    set out [lab_file notify.jsonl]
    set ping "ip netns exec [lab_ns h1] ping -n -c 1 -W 2 10.0.2.2"
    set ports "$::vbrd::ctl_bin -s $sock -j show ports"
    set pid [exec timeout -k 5 120 python3 \
                 [file join $::vbrd::root tests tcl tools notify_listen.py] $socket $out \
                 --on-ready $ports --on-ready $ping >& [lab_file notify.log] &]
    _lab_track $pid
    wait_for_condition 50 100 {[file exists $out] && [file size $out] > 0} else {
        fail "notify_listen.py did not start"
    }
    return $out
}

# The datagrams received so far: a list of dicts (t_ms msg on_ready).
proc notifications {out} {
    set recs {}
    foreach l [split [string trim [_lab_read $out]] "\n"] {
        set d [json::json2dict $l]
        if {[dict exists $d msg]} { lappend recs $d }
    }
    return $recs
}

# The messages' KEY values in order, e.g. {1 {} 1} for READY.
proc notified {out key} {
    lmap r [notifications $out] {
        expr {[dict exists $r msg $key] ? [dict get $r msg $key] : ""}
    }
}

# Where NOTIFY_SOCKET points: the listener's path in the run directory (as
# systemd's /run/systemd/notify).
set nsock [file join [lab_rundir] notify.sock]
set nout [notify_listen $nsock [file join [lab_rundir] notify1.sock]]
set ::env(NOTIFY_SOCKET) $nsock
start_vbrd [list name notify1 conf $conf] {
    unset ::env(NOTIFY_SOCKET)

    test {READY=1 comes once the ports are up and a packet forwards} {
        wait_for_condition 100 100 {"1" in [notified $nout READY]} else {
            fail "no READY=1: [notifications $nout]"
        }
        set r [lindex [notifications $nout] 0]
        assert_equal [dict get $r msg READY] 1 "the first datagram is READY=1"
        lassign [dict get $r on_ready] ports ping
        assert_equal [dict get $ports rc] 0 "vbrctl show ports at READY=1: [dict get $ports out]"
        foreach p [dict get [json::json2dict [dict get $ports out]] ports] {
            assert_equal [dict get $p link] up "port [dict get $p name] at READY=1"
        }
        assert_equal [dict get $ping rc] 0 "ping h1 -> h2 at READY=1: [dict get $ping out]"
        assert_match "running: 2 ports, 2 interfaces, 1 workers*" [dict get $r msg STATUS]
    }

    test {a reload: RELOADING=1, then READY=1 with the new generation} {
        set n [llength [notifications $nout]]
        set gen [dict get [vbrctl reload] generation]
        wait_for_condition 50 100 {[llength [notifications $nout]] >= $n + 2} else {
            fail "no RELOADING=1 and READY=1 after the reload: [notifications $nout]"
        }
        lassign [lrange [notifications $nout] $n end] a b
        assert_equal [dict get $a msg RELOADING] 1 "first: RELOADING=1 ($a)"
        assert_true {[dict exists $a msg MONOTONIC_USEC]} "RELOADING=1 carries MONOTONIC_USEC"
        assert_equal [dict get $b msg READY] 1 "then READY=1 ($b)"
        assert_equal [dict get $b msg STATUS] "running: generation $gen, reloaded"
    }

    test {a rejected reload: vbrctl exits 1, READY=1 says so, the old config forwards} {
        set n [llength [notifications $nout]]
        set good [_lab_read [vbrd_conf]]
        _lab_write [vbrd_conf] "$good\nroutes = ( { prefix = \"10.9.0.0/16\"; via = \"192.0.2.9\"; } );\n"
        lassign [vbrctl_raw reload] rc out
        _lab_write [vbrd_conf] $good
        assert_equal $rc 1 "vbrctl reload of a bad file: $out"
        wait_for_condition 50 100 {[llength [notifications $nout]] >= $n + 2} else {
            fail "no RELOADING=1 and READY=1 after the reload: [notifications $nout]"
        }
        lassign [lrange [notifications $nout] $n end] a b
        assert_equal [dict get $a msg RELOADING] 1 "first: RELOADING=1 ($a)"
        assert_equal [dict get $b msg READY] 1 "then READY=1 ($b)"
        assert_match "running: generation *, reload rejected: *[file tail [vbrd_conf]]:*" \
            [dict get $b msg STATUS]
        assert_ping h1 10.0.2.2 1
    }
}

test {SIGTERM: STOPPING=1 is the last datagram} {
    wait_for_condition 50 100 {"1" in [notified $nout STOPPING]} else {
        fail "no STOPPING=1: [notifications $nout]"
    }
    set last [lindex [notifications $nout] end]
    assert_equal [dict get $last msg STOPPING] 1 "last: $last"
    assert_equal [llength [lsearch -all [notified $nout READY] 1]] 3 \
        "READY=1 at start and after each reload, never after STOPPING=1"
}

# NOTIFY_SOCKET in the abstract namespace (@NAME), as a container manager
# may give it.
set nout2 [notify_listen "@[lab_prefix]-vbrd-notify" [file join [lab_rundir] notify2.sock]]
set ::env(NOTIFY_SOCKET) "@[lab_prefix]-vbrd-notify"
start_vbrd [list name notify2 conf $conf] {
    unset ::env(NOTIFY_SOCKET)
    test {READY=1 through an abstract NOTIFY_SOCKET (@NAME)} {
        wait_for_condition 100 100 {"1" in [notified $nout2 READY]} else {
            fail "no READY=1: [notifications $nout2]"
        }
    }
}

# A NOTIFY_SOCKET whose reader never reads: its queue fills after
# net.unix.max_dgram_qlen datagrams (10 by default). A blocking send then
# never returned, on the control loop: vbrctl stopped answering, and SIGTERM
# did nothing (STOPPING=1 came before the stop watchdog).
set deaf [file join [lab_rundir] deaf.sock]
set deaf_pid [exec timeout -k 5 120 python3 -c \
    "import socket,sys,time; s=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM); s.bind(sys.argv\[1\]); time.sleep(110)" \
    $deaf &]
_lab_track $deaf_pid
wait_for_condition 50 100 {[file exists $deaf]} else { fail "the deaf listener did not start" }
set ::env(NOTIFY_SOCKET) $deaf
start_vbrd [list name notify3 conf $conf] {
    unset ::env(NOTIFY_SOCKET)
    test {a NOTIFY_SOCKET that is never read does not stop the control loop} {
        for {set i 0} {$i < 12} {incr i} {
            lassign [vbrctl_raw reload] rc out
            assert_equal $rc 0 "reload $i: $out"
        }
        assert_equal [dict get [vbrctl show metrics] state] off "vbrctl still answers"
    }
}

# --- the units' command line ------------------------------------------------

test {--instance: a file without `instance` takes the name; one naming another is refused} {
    set f [file join [lab_rundir] inst.conf]
    _lab_write $f "ports = ( { name = \"p0\"; devargs = \"net_null0,no-rx=1\"; } );\n"
    lassign [vbrd_run --instance edge1 --check-config $f] rc out
    assert_equal $rc 0 $out
    _lab_write $f "instance = \"edge2\";\nports = ( { name = \"p0\"; devargs = \"net_null0,no-rx=1\"; } );\n"
    lassign [vbrd_run --instance edge1 --check-config $f] rc out
    assert_equal $rc 2 $out
    assert_match "*$f:1: instance: \"edge2\", but vbrd runs as instance \"edge1\"*" $out
    _lab_write $f "control = { socket = \"/tmp/x.sock\"; };\nports = ( { name = \"p0\"; devargs = \"net_null0,no-rx=1\"; } );\n"
    lassign [vbrd_run --instance edge1 --check-config $f] rc out
    assert_equal $rc 2 $out
    assert_match "*$f:1: control.socket: *answers on /run/vbrd/edge1.sock*" $out
    lassign [vbrd_run --instance bad/name --check-config $f] rc out
    assert_equal $rc 2 $out
    # "." and ".." passed the character rule, and DPDK's runtime directory
    # /var/run/dpdk/NAME became /var/run/dpdk or /var/run itself
    foreach name {. .. .hidden} {
        lassign [vbrd_run --instance $name --check-config $f] rc out
        assert_equal $rc 2 "--instance $name: $out"
        _lab_write $f "instance = \"$name\";\nports = ( { name = \"p0\"; devargs = \"net_null0,no-rx=1\"; } );\n"
        lassign [vbrd_run --check-config $f] rc out
        assert_equal $rc 2 "instance = \"$name\": $out"
        assert_match "*$f:1: instance: \"$name\" begins with '.'*" $out
    }
}

test {--reserve-hugepages with eal.hugepages = false reserves nothing} {
    set f [file join [lab_rundir] nohuge.conf]
    _lab_write $f "eal = { hugepages = false; };\nports = ( { name = \"p0\"; devargs = \"net_null0,no-rx=1\"; } );\n"
    set before [exec cat /proc/sys/vm/nr_hugepages]
    lassign [vbrd_run --reserve-hugepages $f] rc out
    assert_equal $rc 0 $out
    assert_match "*eal.hugepages is false: no hugepages reserved*" $out
    assert_equal [exec cat /proc/sys/vm/nr_hugepages] $before
}

# The kernel turns what it can into hugepages and the pool is never lowered:
# a memory_mb beyond the machine's memory took all of it.
test {--reserve-hugepages of more than the machine has raises nothing} {
    set f [file join [lab_rundir] bighuge.conf]
    _lab_write $f "eal = { hugepages = true; memory_mb = 1048576; };\nports = ( { name = \"p0\"; devargs = \"net_null0,no-rx=1\"; } );\n"
    set before [exec cat /proc/sys/vm/nr_hugepages]
    lassign [vbrd_run --reserve-hugepages $f] rc out
    assert_equal $rc 1 $out
    assert_match "*MiB of memory available: the pool is not raised*" $out
    assert_equal [exec cat /proc/sys/vm/nr_hugepages] $before
}

test {the packaged default config is good and answers nobody} {
    set f [file join $::vbrd::root debian conf vbrd.conf]
    lassign [vbrd_run --instance vbrd --check-config $f] rc out
    assert_equal $rc 0 $out
    assert_match "*ok (1 ports, 1 interfaces, 0 routes*" $out
    assert_match "*devargs = \"net_null0,no-rx=1\"*" [_lab_read $f]
}
