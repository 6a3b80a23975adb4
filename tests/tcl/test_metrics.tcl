# The Prometheus endpoint (metrics/): Debian's Prometheus server scrapes
# vbrd every second while traffic flows, and what its query API answers
# matches what the test sent and what vbrctl shows: interface and port
# counters, a drop reason after malformed frames, a BFD session's state, a
# failover group's member, the FIB of each VRF. The page passes `promtool
# check metrics`. Wrong paths and methods are refused and counted; clients
# that never finish their request do not hold the control loop; a reload
# moves the endpoint, and one whose address cannot be bound is refused
# with FILE:LINE and changes nothing.
#
#   h1 10.0.1.2 ── p1 lan1 10.0.1.1 [vbrd] 10.0.2.1 lan2 p2 ── 10.0.2.2 h2
#                                         10.9.0.1 blue1 (VLAN 100 of p2, VRF blue)
#   Prometheus (127.0.0.1, own port) ──scrapes──► vbrd /metrics (127.0.0.1, own port)

source [file join [file dirname [file normalize [info script]]] harness frames.tcl]
source [file join [file dirname [file normalize [info script]]] harness prometheus.tcl]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

set mport [free_tcp_port]

# METRICS: the metrics section's text
proc metrics_conf {metrics} {
    return [string map [list @METRICS@ $metrics] {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
vrfs = ( { name = "blue"; table = 100; } );
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; },
  { name = "blue1"; port = "p2"; vlan = 100; vrf = "blue"; address = "10.9.0.1/24"; }
);
routes = (
  { prefix = "10.99.0.0/16"; vrf = "blue"; via = "10.9.0.2"; },
  { prefix = "10.98.0.0/16"; vrf = "blue"; via = "10.9.0.2"; }
);
# h2 runs no BFD: the session stays Down, and the group sends on member 1
bfd = { sessions = ( { name = "to-h2"; interface = "lan2"; peer = "10.0.2.2"; } ); };
failover_groups = (
  { name = "up"; members = (
      { interface = "lan2"; via = "10.0.2.2"; bfd = "to-h2"; },
      { interface = "lan1"; via = "10.0.1.2"; } ); }
);
@METRICS@
}]
}

# The page as vbrd serves it now: {STATUS CONTENT-TYPE BODY}
proc scrape {{port ""}} {
    if {$port eq ""} { set port $::mport }
    return [http_get http://127.0.0.1:$port/metrics]
}

# One sample of a page: NAME{LABELS} exactly as written, or "" when absent.
proc page_value {page series} {
    foreach line [split $page "\n"] {
        if {[string first "$series " $line] == 0} {
            return [lindex $line end]
        }
    }
    return ""
}

start_vbrd [list conf [metrics_conf "metrics = { port = $mport; };"]] {
    test {the page is text format 0.0.4 and promtool check metrics finds nothing wrong} {
        lassign [scrape] code type page
        assert_equal $code 200 "HTTP status of GET /metrics"
        assert_equal $type "text/plain; version=0.0.4; charset=utf-8"
        lassign [promtool_check_metrics $page] rc out
        assert_equal $rc 0 "promtool's exit status ($out)"
        assert_equal [string trim $out] "" "promtool's findings"
        # a family of each area is on the page
        foreach s {vbrd_port_rx_packets_total vbrd_interface_rx_bytes_total
                   vbrd_dropped_packets_total vbrd_fib_routes vbrd_bfd_session_state
                   vbrd_failover_group_member_active vbrd_ha_enabled vbrd_main_loop_turns_total} {
            assert_match "*\n# TYPE $s *" $page
        }
        # labels are names, never addresses (10.0.x.x is in the gateways and peers)
        assert_true {![regexp {\{[^\}]*10\.0\.} $page]} "no address in a label"
    }

    test {Prometheus scrapes vbrd: the target is up} {
        prom_start 127.0.0.1:$::mport
        wait_for_condition 100 100 {[prom_value {up{job="vbrd"}}] eq "1"} else {
            fail "up{job=\"vbrd\"} is '[prom_value {up{job="vbrd"}}]': [prom_target_health]"
        }
    }

    test {an interface's received packets in Prometheus are vbrctl's, after pings the test sent} {
        set before [iface_stat lan1 rx_packets]
        assert_ping h1 10.0.2.2 20
        # vbrd counted at least the 20 echo requests h1 sent (ARP besides)
        wait_for_condition 50 100 {[iface_stat lan1 rx_packets] - $before >= 20} else {
            fail "lan1 rx_packets grew by [expr {[iface_stat lan1 rx_packets] - $before}], want >= 20"
        }
        set want [iface_stat lan1 rx_packets]
        set q {vbrd_interface_rx_packets_total{interface="lan1",vrf="default"}}
        wait_for_condition 100 100 {[prom_value $q] eq $want} else {
            fail "Prometheus has $q = '[prom_value $q]', vbrctl $want"
        }
        # the port under it counted the same frames
        set want [port_stat p1 rx_packets]
        set q {vbrd_port_rx_packets_total{port="p1"}}
        wait_for_condition 100 100 {[prom_value $q] eq $want} else {
            fail "Prometheus has $q = '[prom_value $q]', vbrctl $want"
        }
        note "lan1 received $want packets, in Prometheus within a scrape"
    }

    test {a drop reason's counter rises by the malformed frames sent} {
        set lan1_mac [mac [iface_stat lan1 mac]]
        set h1_mac [mac [lab_mac h1]]
        set q {vbrd_dropped_packets_total{reason="bad_checksum",feature="parse"}}
        set before [drops bad_checksum]
        wait_for_condition 100 100 {[prom_value $q] eq $before} else {
            fail "Prometheus has $q = '[prom_value $q]', vbrctl $before"
        }
        # 5 IPv4 packets to h2 whose header checksum is wrong (RFC 1812 §5.2.2)
        set frames {}
        for {set i 0} {$i < 5} {incr i} {
            set p [ipv4_packet 10.0.1.2 10.0.2.2 17 [string repeat x 16]]
            binary scan [string range $p 10 11] Su c
            set p "[string range $p 0 9][be16 [expr {$c ^ 0x1234}]][string range $p 12 end]"
            lappend frames [eth_frame $lan1_mac $h1_mac 0x0800 $p]
        }
        raw_exchange h1 100 $frames
        set want [expr {$before + 5}]
        wait_for_condition 100 100 {[prom_value $q] eq $want} else {
            fail "Prometheus has $q = '[prom_value $q]', want $want (vbrctl: [drops bad_checksum])"
        }
        assert_equal [drops bad_checksum] $want "vbrctl's bad_checksum"
    }

    test {the BFD session, the failover group and the VRFs' FIBs read as vbrctl shows them} {
        set s [lindex [dict get [vbrctl show bfd to-h2] sessions] 0]
        assert_equal [dict get $s state] Down "vbrctl: to-h2 (h2 runs no BFD)"
        set g [lindex [dict get [vbrctl show fgroup up] groups] 0]
        assert_equal [dict get $g active] member1 "vbrctl: group up's active member"
        set v [dict create]
        foreach r [dict get [vbrctl show vrfs] vrfs] { dict set v [dict get $r name] $r }
        foreach {q want} [list \
                {vbrd_bfd_session_state{session="to-h2",where="lan2",state="Down"}} 1 \
                {vbrd_bfd_session_state{session="to-h2",where="lan2",state="Up"}} 0 \
                {vbrd_bfd_session_up{session="to-h2"}} 0 \
                {vbrd_failover_group_member_active{group="up",member="0"}} 0 \
                {vbrd_failover_group_member_active{group="up",member="1"}} 1 \
                {vbrd_failover_group_member_up{group="up",member="0"}} 0 \
                {vbrd_failover_group_member_up{group="up",member="1"}} 1 \
                {vbrd_fib_routes{vrf="blue",family="ipv4",source="config"}} \
                    [dict get $v blue routes4] \
                {vbrd_fib_routes{vrf="default",family="ipv4",source="config"}} \
                    [dict get $v default routes4] \
                {vbrd_fib_memory_bytes{vrf="blue"}} [dict get $v blue fib_bytes] \
                {vbrd_ha_enabled} 0] {
            wait_for_condition 50 100 {[prom_value $q] eq $want} else {
                fail "Prometheus has $q = '[prom_value $q]', want $want"
            }
        }
        # the VRF blue holds its two routes besides its interface's own
        assert_morethan [dict get $v blue routes4] 2
    }

    test {wrong paths and methods are refused and counted; so are scrapes} {
        set m0 [vbrctl show metrics]
        assert_equal [lindex [http_get http://127.0.0.1:$mport/] 0] 404 "GET /"
        assert_equal [lindex [http_get http://127.0.0.1:$mport/metrics -method POST -body x=1] 0] \
            405 "POST /metrics"
        assert_equal [lindex [scrape] 0] 200 "GET /metrics"
        set m [vbrctl show metrics]
        assert_equal [dict get $m state] serving
        assert_equal [dict get $m listen] 127.0.0.1:$mport
        assert_equal [expr {[dict get $m rejected] - [dict get $m0 rejected]}] 2 "rejected"
        assert_morethan [expr {[dict get $m scrapes] - [dict get $m0 scrapes]}] 0 "scrapes"
        assert_equal [dict get $m scrape_errors] 0 "scrape errors"
        assert_equal [dict get $m render_errors] 0 "commands that failed in a page"
        # Prometheus's own scrapes are counted on the page it reads
        set q {vbrd_metrics_scrapes_total}
        wait_for_condition 50 100 {[prom_value $q] ne "" && [prom_value $q] >= 3} else {
            fail "Prometheus has $q = '[prom_value $q]'"
        }
        note "a page: [dict get $m last_render_bytes] bytes, [dict get $m last_render_samples] samples, rendered in [format %.2f [dict get $m last_render_ms]] ms"
    }

    test {clients that never finish their request hold neither the control loop nor other scrapes} {
        set socks {}
        for {set i 0} {$i < 4} {incr i} {
            set s [socket 127.0.0.1 $mport]
            fconfigure $s -blocking 0
            puts -nonewline $s "GET /metr"
            flush $s
            lappend socks $s
        }
        set t0 [clock milliseconds]
        lassign [scrape] code
        set ms [expr {[clock milliseconds] - $t0}]
        assert_equal $code 200 "a scrape beside 4 half-sent requests"
        assert_equal [dict get [lindex [dict get [vbrctl show ports] ports] 0] link] up \
            "vbrctl answers"
        assert_not_stuck $ms 100 3000 "scrape beside stalled clients" ms
        foreach s $socks { close $s }
    }

    test {a reload to another port moves the endpoint} {
        set old $mport
        set ::mport [free_tcp_port]
        vbrd_reload [metrics_conf "metrics = { port = $::mport; };"]
        assert_equal [lindex [scrape] 0] 200 "GET /metrics on the new port"
        assert_equal [lindex [scrape $old] 0] 0 "the old port is closed"
        assert_equal [dict get [vbrctl show metrics] listen] 127.0.0.1:$::mport
    }

    test {a reload to a port in use is refused with FILE:LINE, and the endpoint stays} {
        set busy [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
        set bport [lindex [fconfigure $busy -sockname] 2]
        set gen [dict get [vbrctl show config] generation]
        set text [metrics_conf "metrics = {\n  port = $bport;  # MARK\n};"]
        vbrd_rewrite_config $text
        lassign [vbrctl_raw reload] rc out
        close $busy
        assert_equal $rc 1 "vbrctl reload's exit status ($out)"
        set line [lines_marked [_lab_read [vbrd_conf]] MARK]
        assert_match "*[file tail [vbrd_conf]]:$line: metrics.port: cannot listen on 127.0.0.1:$bport: Address already in use*" $out
        assert_equal [dict get [vbrctl show config] generation] $gen "generation"
        assert_equal [lindex [scrape] 0] 200 "the endpoint still serves on $::mport"
    }

    test {a reload without the section closes the endpoint} {
        # (not vbrd_reload: the refused build above took a generation number)
        set gen [dict get [vbrctl show config] generation]
        vbrd_rewrite_config [metrics_conf ""]
        assert_morethan [dict get [vbrctl reload] generation] $gen "generation after the reload"
        assert_equal [dict get [vbrctl show metrics] state] off
        assert_equal [lindex [scrape] 0] 0 "nothing listens on $::mport"
    }
}

test {start-up with the endpoint's port in use fails, naming the setting} {
    set busy [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
    set bport [lindex [fconfigure $busy -sockname] 2]
    set f [lab_file busy.conf]
    set instance "[lab_prefix]-busy"
    lappend ::lab::dpdk_prefixes $instance
    vbrd_write_config $f "ports = ( { name = \"p1\"; devargs = \"net_null0,no-rx=1\"; } );
interfaces = ( { name = \"lan1\"; port = \"p1\"; address = \"10.0.1.1/24\"; } );
metrics = { port = $bport; };  # MARK" $instance [lab_file busy.sock]
    set line [lines_marked [_lab_read $f] MARK]
    lassign [vbrd_run -c $f] rc out
    close $busy
    assert_equal $rc 1 "vbrd's exit status"
    assert_match "*vbrd: $f:$line: metrics.port: cannot listen on 127.0.0.1:$bport: Address already in use*" $out
}
