# Bad configuration: `vbrd --check-config` reports every error with its
# line; a bad file given to a running vbrd (reload, SIGHUP) is rejected
# whole and the running config keeps forwarding.

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1
lab_exec h2 ip addr add 10.20.0.1/32 dev lo

# lines_marked and error_locations: harness/vbrd.tcl.

set good {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
routes = (
  { prefix = "10.20.0.0/16"; via = "10.0.2.2"; }
);
}

# Three independent errors, each on its own line (marked ERR).
set bad {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; colour = "red"; },    # ERR unknown setting
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; },
  { name = "lan3"; port = "p2"; vlan = 5000; address = "10.0.3.1/24"; }       # ERR vlan out of range
);
routes = (
  { prefix = "10.20.0.0/16"; via = "10.0.2.2"; },
  { prefix = "10.21.0.1/16"; via = "10.0.2.2"; }                               # ERR host bits set
);
}

test {app/README.md lists exactly the drop reasons the code registers} {
    lassign [vbrd_run --drop-reasons] rc table
    assert_equal $rc 0 "vbrd --drop-reasons: $table"
    set readme [_lab_read app/README.md]
    regexp {<!-- drop-reasons: begin[^\n]*\n(.*?)<!-- drop-reasons: end} $readme -> doc
    assert_equal [string trim $doc] [string trim $table] "README table (make docs rewrites it)"
    assert_morethan [regexp -all -line {^\| `} $table] 30 "reasons listed"
}

test {--check-config passes a good file} {
    set f [lab_file good.conf]
    vbrd_write_config $f $good check [file join [lab_rundir] check.sock]
    lassign [vbrd_run --check-config $f] rc out
    assert_equal $rc 0 "exit status; output: $out"
}

test {--check-config reports three errors with their lines and exits 2} {
    set f [lab_file bad.conf]
    vbrd_write_config $f $bad check [file join [lab_rundir] check.sock]
    set text [_lab_read $f]
    set want [lines_marked $text "# ERR"]
    assert_equal [llength $want] 3
    lassign [vbrd_run --check-config $f] rc out
    assert_equal $rc 2 "exit status; output: $out"
    assert_equal [error_locations $f $out] $want "lines of the FILE:LINE: messages in:\n$out"
}

start_vbrd [list conf $good] {
    test {routes of the good config work} {
        assert_ping h1 10.20.0.1 3
    }

    test {`vbrctl reload` of a bad file is rejected with every error; old routes still work} {
        set gen [dict get [vbrctl show config] generation]
        vbrd_rewrite_config $bad
        set want [lines_marked [_lab_read [vbrd_conf]] "# ERR"]
        lassign [vbrctl_raw reload] rc out
        assert_equal $rc 1 "vbrctl reload exit status; output: $out"
        foreach n $want {
            assert_match "*[vbrd_conf]:$n: *" $out
        }
        assert_equal [dict get [vbrctl show config] generation] $gen "generation after a rejected reload"
        assert_ping h1 10.20.0.1 3
    }

    test {SIGHUP with a bad file keeps the running config} {
        set gen [dict get [vbrctl show config] generation]
        set log0 [string length [vbrd_log]]
        lab_kill [vbrd_pid] HUP
        # vbrd logs why it rejected the file.
        wait_for_condition 50 100 {
            [string first "[vbrd_conf]:" [string range [vbrd_log] $log0 end]] >= 0
        } else {
            fail "no FILE:LINE error in vbrd's log after SIGHUP:\n[vbrd_log_tail 10]"
        }
        assert_equal [dict get [vbrctl show config] generation] $gen
        assert_ping h1 10.20.0.1 3
    }

    test {a good file reloads: generation grows} {
        set gen [dict get [vbrctl show config] generation]
        vbrd_rewrite_config $good
        set r [vbrctl reload]
        assert_equal [dict get $r generation] [expr {$gen + 1}]
        assert_equal [dict get [vbrctl show config] generation] [expr {$gen + 1}]
        assert_ping h1 10.20.0.1 3
    }

    # Each setting is live or needs a restart; none is silently ignored.
    foreach {what text setting} {
        {mempool.mbufs} {mempool = { mbufs = 4095; };} mempool.mbufs
        {icmp.rate_pps} {icmp = { rate_pps = 7; };} icmp.rate_pps
        {eal.memory_mb} {eal = { memory_mb = 600; };} eal.memory_mb
        {workers.cores} {workers = { cores = [ 0 ]; idle_sleep_us = 50; };} workers.cores
        {a port's rx_desc} {} ports.p1.rx_desc
        {a port's devargs} {} ports.p2.devargs
        {the order of the ports} {} {ports\[0\]}
    } {
        test "a reload that changes $what is refused, naming it; the running config stays" {
            set gen [dict get [vbrctl show config] generation]
            set conf $good
            if {$text ne ""} {
                set conf "$text\n$good"
            } elseif {$setting eq {ports\[0\]}} {
                set conf [string map {{{ name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }} {{ name = "p2"; devargs = "net_af_packet1,iface=@h2@"; },
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; }}} $good]
            } elseif {$setting eq "ports.p1.rx_desc"} {
                set conf [string map {{devargs = "net_af_packet0,iface=@h1@";} {devargs = "net_af_packet0,iface=@h1@"; rx_desc = 512;}} $good]
            } else {
                set conf [string map {net_af_packet1,iface=@h2@ net_af_packet1,iface=@h2@,qpairs=1} $good]
            }
            vbrd_rewrite_config $conf
            lassign [vbrctl_raw reload] rc out
            assert_equal $rc 1 "vbrctl reload exit status; output: $out"
            assert_match "*[vbrd_conf]:*$setting: changed from *restart vbrd to apply it*" $out
            assert_equal [dict get [vbrctl show config] generation] $gen "generation after a refused reload"
            assert_ping h1 10.20.0.1 2
        }
    }

    test {workers.burst and workers.idle_sleep_us are live: a reload applies them} {
        set gen [dict get [vbrctl show config] generation]
        vbrd_rewrite_config "workers = { cores = \[ 1 \]; idle_sleep_us = 20; burst = 8; };\n$good"
        set r [vbrctl reload]
        assert_equal [dict get $r generation] [expr {$gen + 1}]
        assert_ping h1 10.20.0.1 3
        vbrd_rewrite_config $good
        vbrctl reload
    }
}

