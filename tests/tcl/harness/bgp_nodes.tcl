# Scale-out behind the IDC fabric: several vbrd nodes announce the same
# prefix over eBGP to the IDC router, which spreads flows over them by
# ECMP (bgpd maximum-paths, the kernel's L4 hash) and drops a node that
# dies as soon as its single-hop BFD session does (bgpd `neighbor X bfd`).
#
#   cli 10.9.0.2 ── cli 10.9.0.1 [rtr: zebra bgpd bfdd, AS 65001]
#                        la 172.16.1.2 ── line 172.16.1.1 [vbrd a] srv 10.6.1.1 ── sa 10.6.1.2 [srv]
#                        lb 172.16.2.2 ── line 172.16.2.1 [vbrd b] srv 10.6.2.1 ── sb 10.6.2.2  lo 10.5.0.1
#                    TAPs vb-line, vb-srv of node N in namespace cpN, with
#                    node N's FRR there: zebra (FPM to vbrd N), bgpd AS 65010
#
# rtr announces 10.9.0.0/24 (cli's subnet: it lands in each vbrd's FIB
# over FPM); each node's bgpd announces 10.5.0.0/24 (`network`, import
# check off), which each vbrd routes to srv by a static route. rtr's bgpd
# has `maximum-paths 8` (both nodes are in one AS: equal AS paths, no
# multipath-relax needed) and `neighbor X bfd profile scaleout`; its bfdd
# (at SCHED_FIFO, as fo_frr) has profile scaleout with the lab's interval
# and multiplier, and vbrd runs each node's end of the session in its data
# path (bfd section: session "rtr" on interface line). rtr's kernel hashes
# on L4 (fib_multipath_hash_policy 1). BGP timers are 10 s / 30 s on both
# sides: only BFD can drop a dead node quickly.
#
# Each node's vbrd runs in the root namespace like every vbrd of the
# suite, ports on veths whose root-namespace ends are PREFIX-rN (to rtr)
# and PREFIX-sN (to srv); its cplane namespace is its own (cpN), so the
# TAP names and the FPM address 127.0.0.1:2620 repeat across nodes.
#
#   bgpn_lab ?-interval MS? ?-multiplier N? ?-timers {KA HOLD}? ?-nodes {a b}?
#                          hosts, wires, rtr's FRR
#   bgpn_nodes BODY        start every node (vbrd, then its FRR), run BODY,
#                          then SIGTERM each running vbrd and check it exits 0
#                          within 5 s (one test each, as start_vbrd)
#   bgpn_start NODE        start NODE's vbrd and then its FRR (again after a kill)
#   bgpn_kill NODE         the node dies: SIGKILL its vbrd, then its bgpd and
#                          zebra -> [clock milliseconds] just before the signal
#                          ($::bgpn::kill_steps: ms until vbrd had exited, then
#                          ms from their signal until bgpd and zebra had)
#   bgpn_on NODE SCRIPT    SCRIPT with the harness's vbrd commands (vbrctl ...)
#                          aimed at NODE's vbrd
#   bgpn_up NODE           NODE ready: rtr's BFD session (as bgpd keys it once
#                          BGP is up) up, then its BGP session Established,
#                          vbrd's BFD Up, rtr's 10.9.0.0/24 in vbrd's FIB
#   bgpn_rtr_bfd_key NODE  {local ADDR interface IF}: rtr's BFD session to NODE
#                          among others to its address (frr_bfd_peer's filter)
#   bgpn_line NODE         rtr's address of NODE's line (BGP, BFD peer of vbrd)
#   bgpn_addr NODE         NODE's address on its line (rtr's neighbor)
#   bgpn_route NODE PREFIX NODE's `show routes` row for PREFIX, "" if none
#   bgpn_taps NODE         the TAP names (vb-*) in NODE's namespace now
#   bgpn_rtr_hops          rtr's zebra: next hops of 10.5.0.0/24, sorted ("" none)
#   bgpn_rtr_kernel_hops   rtr's kernel: gateways of 10.5.0.0/24, sorted
#   bgpn_hop NODE          NODE's next hop as rtr's zebra names it (ADDR%IF)
#   bgpn_sink PORT SPORTS  nft counters in srv: the stream's datagrams per
#                          interface (sa, sb) and per source port
#   bgpn_sink_counts       dict: sa N sb N {sa SPORT} N {sb SPORT} N
#   bgpn_stream PORT PPS SECONDS FLOWS ?MIDWAY SCRIPT?
#                          a seqstream cli -> 10.5.0.1 on FLOWS flows from
#                          source ports 41000..; SCRIPT runs once srv has
#                          accepted MIDWAY datagrams (SIGINT to
#                          $::bgpn::sender ends the stream early)
#                          -> {RECEIVER SENDER}
#   bgpn_log_times HOST DAEMON PATTERN   [clock milliseconds] of each line
#                          of the daemon's log matching the glob
#   bgpn_rtr_bfd_downs NODE SINCE ?UNTIL?   [clock milliseconds] of each time
#                          rtr's bfdd took NODE's session down (from its log)
#   bgpn_steal_ms          CPU time the hypervisor took from each vCPU so far (ms)
#   bgpn_loop_gap_ms NODE  NODE's BFD worker's longest time away from its loop (ms)
#   bgpn_flap_verdict WHAT DETECT_MS INTERVAL_MS STEAL0 GAPS   BFD sessions went down that
#                          nothing cut: skip when the machine stopped them, else fail
#   bgpn_rtr_monitor_start / bgpn_rtr_route_events PID
#                          `ip -ts monitor route nexthop` in rtr; its lines
#                          with their time, [clock milliseconds]
#   bgpn_rtr_moved PID NODE SINCE   the time of the monitor's first change of
#                          10.5.0.0/24 to NODE alone at or after SINCE, or ""
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [file normalize [info script]]] harness bgp_nodes.tcl]

set _bgpn_dir [file dirname [file normalize [info script]]]
foreach _f {frr.tcl stream.tcl} {
    source [file join $_bgpn_dir $_f]
}
unset _bgpn_dir _f

namespace eval bgpn {
    variable nodes {a b}
    variable idx {a 1 b 2}
    variable rtr_asn 65001
    variable node_asn 65010
    variable timers {10 30}
    variable bfd {50 3}  ;# BFD interval (ms) and detect multiplier, both ends
    variable sport 41000
    variable inst        ;# node -> ::vbrd::cur-like dict of its vbrd
    array set inst {}
    variable state       ;# node -> up | down
    array set state {}
    variable launches    ;# node -> launches (log names)
    array set launches {}
    variable sink ""
    variable sender ""   ;# bgpn_stream's sender (lab_spawn pid): SIGINT ends it
    variable kill_steps {} ;# bgpn_kill's: vbrd MS bgpd MS zebra MS (see there)
}

proc bgpn_line {node} { return "172.16.[dict get $::bgpn::idx $node].2" }
proc bgpn_addr {node} { return "172.16.[dict get $::bgpn::idx $node].1" }
proc bgpn_hop {node} { return "[bgpn_addr $node]%l$node" }
proc _bgpn_srv_addr {node} { return "10.6.[dict get $::bgpn::idx $node].2" }

# A veth with one end IF in HOST and the other, ROOTIF, in the root
# namespace for a vbrd port (as lab_host's, but any name on both ends).
proc _bgpn_port_veth {rootif host ifname} {
    set ns [lab_ns $host]
    exec ip link add $rootif type veth peer name $ifname netns $ns
    lappend ::lab::links $rootif
    # the root kernel stays silent on vbrd's ports (no RS, no MLD)
    _lab_write /proc/sys/net/ipv6/conf/$rootif/disable_ipv6 1
    exec ip link set $rootif up
    exec ip -n $ns link set $ifname up
    # checksums filled in by the kernel, not left to an offload (lab_host)
    exec ip netns exec $ns ethtool -K $ifname tx off >/dev/null 2>@1
}

proc bgpn_lab {args} {
    set o [dict merge {-interval 50 -multiplier 3 -timers {10 30} -nodes {a b}} $args]
    set ::bgpn::timers [dict get $o -timers]
    set ::bgpn::bfd [list [dict get $o -interval] [dict get $o -multiplier]]
    set ::bgpn::nodes [dict get $o -nodes]
    foreach h {cli rtr srv} { lab_netns $h }
    lab_wire cli eth0 rtr cli
    lab_exec cli ip addr add 10.9.0.2/24 dev eth0
    lab_exec cli ip route add default via 10.9.0.1
    lab_exec rtr ip addr add 10.9.0.1/24 dev cli
    lab_exec rtr sysctl -qw net.ipv4.ip_forward=1 net.ipv4.fib_multipath_hash_policy=1
    lab_exec srv ip addr add 10.5.0.1/32 dev lo
    foreach node $::bgpn::nodes {
        set i [dict get $::bgpn::idx $node]
        _bgpn_port_veth "[lab_prefix]-r$node" rtr l$node
        lab_exec rtr ip addr add [bgpn_line $node]/30 dev l$node
        _bgpn_port_veth "[lab_prefix]-s$node" srv s$node
        lab_exec srv ip addr add [_bgpn_srv_addr $node]/30 dev s$node
        # the node's control namespace: TAPs and its FRR (IPv6 on: the
        # TAPs' link-local addresses)
        set ns [lab_netns cp$node]
        exec ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
            net.ipv6.conf.default.disable_ipv6=0
    }
    # srv has no route back: the stream arrives on either interface for
    # an address on lo
    foreach i [concat {all default} [lmap n $::bgpn::nodes {set _ s$n}]] {
        lab_exec srv sysctl -qw net.ipv4.conf.$i.rp_filter=0
    }
    set t $::bgpn::timers
    set neighbors {}
    foreach node $::bgpn::nodes {
        lappend neighbors [list [bgpn_addr $node] $::bgpn::node_asn timers $t \
                               options {"bfd profile scaleout"}]
    }
    set conf [frr_bgp_conf $::bgpn::rtr_asn 10.9.0.1 -neighbors $neighbors \
                  -networks {10.9.0.0/24} -timers $t]
    # multipath for eBGP (FRR's default is 1 path)
    set n [regsub "\n address-family ipv4 unicast\n" $conf \
               "\n address-family ipv4 unicast\n  maximum-paths 8\n" conf]
    if {$n != 1} { error "bgpn_lab: no ipv4 unicast address family in:\n$conf" }
    set profile "bfd\n profile scaleout\n  receive-interval [dict get $o -interval]\n"
    append profile "  transmit-interval [dict get $o -interval]\n"
    append profile "  detect-multiplier [dict get $o -multiplier]\n !\n!\n"
    # zebra's log says when bgpd's change reached it and when it told
    # the kernel (bgpn_log_times)
    frr_start rtr $conf -daemons {zebra bfdd bgpd} \
        -extra [list bfdd $profile zebra "debug zebra rib\ndebug zebra kernel"]
    # as fo_frr: a normal-priority bfdd on a loaded machine flaps
    exec chrt -a -f -p 10 [dict get $::frr::inst(rtr) pid bfdd]
}

# vbrd's config of NODE.
#
# The ports' af_packet TX rings are larger than net_af_packet's 512 frames
# (failover.tcl's fo_conf says why: a frame sent to a veth stays in use
# until the receiving socket's reader has the datagram, and the PMD waits
# in poll(), with no timeout, for a free frame; the worker, and the BFD
# session it runs, stop meanwhile). Toward srv the ring holds 16384
# frames: 4 s of the whole stream when one node carries it all and srv's
# receiver, on a CPU shared with a busy loop, lags.
proc bgpn_conf {node} {
    set i [dict get $::bgpn::idx $node]
    lassign $::bgpn::bfd iv mult
    return [string map [list @CP@ [lab_ns cp$node] @R@ "[lab_prefix]-r$node" \
        @S@ "[lab_prefix]-s$node" @I@ $i @SRV@ [_bgpn_srv_addr $node] @IV@ $iv @MULT@ $mult] {
cplane = { netns = "@CP@"; };
fpm = { };
ports = (
  { name = "p0"; devargs = "net_af_packet0,iface=@R@,framecnt=4096"; },
  { name = "p1"; devargs = "net_af_packet1,iface=@S@,framecnt=16384"; }
);
interfaces = (
  { name = "line"; port = "p0"; address = "172.16.@I@.1/30"; },
  { name = "srv";  port = "p1"; address = "10.6.@I@.1/30"; }
);
bfd = {
  transmit_interval = @IV@; receive_interval = @IV@; detect_multiplier = @MULT@;
  sessions = ( { name = "rtr"; interface = "line"; peer = "172.16.@I@.2"; } );
};
routes = (
  { prefix = "10.5.0.0/24"; via = "@SRV@"; }
);
}]
}

# NODE's FRR in its namespace: zebra with the FPM to its vbrd, bgpd.
proc bgpn_frr {node} {
    set t $::bgpn::timers
    frr_start cp$node [frr_bgp_conf $::bgpn::node_asn [bgpn_addr $node] \
        -neighbors [list [list [bgpn_line $node] $::bgpn::rtr_asn timers $t]] \
        -networks {10.5.0.0/24} -timers $t] \
        -daemons {zebra bgpd} -fpm 127.0.0.1:2620
}

proc bgpn_nodes {body} {
    set saved_broken $::runner::broken
    set why ""
    foreach node $::bgpn::nodes {
        if {[catch {bgpn_start $node} msg]} {
            set why $msg
            break
        }
    }
    if {$why ne ""} { set ::runner::broken $why }
    set check {_bgpn_died_check}
    lappend ::runner::after_checks $check

    set code [catch {uplevel 1 $body} result ropts]

    set ::runner::after_checks [lsearch -all -inline -not -exact $::runner::after_checks $check]
    set ::runner::broken $saved_broken
    foreach node $::bgpn::nodes { _bgpn_stop_node $node }
    if {$code == 1} { return -options $ropts $result }
    return
}

proc bgpn_start {node} {
    if {[info exists ::bgpn::state($node)] && $::bgpn::state($node) eq "up"} {
        error "bgpn_start: node $node runs"
    }
    set n [incr ::bgpn::launches($node)]
    set name "$::runner::area-$node"
    set instance "[lab_prefix]-$name"
    set sock [file join [lab_rundir] $name.sock]
    set conf [file join [lab_rundir] $name.conf]
    set log [file join [lab_rundir] [expr {$n == 1 ? "$name.log" : "$name-$n.log"}]]
    vbrd_write_config $conf [bgpn_conf $node] $instance $sock
    if {$instance ni $::lab::dpdk_prefixes} { lappend ::lab::dpdk_prefixes $instance }
    set saved $::vbrd::cur
    set ::vbrd::cur [dict create conf $conf log $log socket $sock instance $instance pid 0 fd ""]
    set why [vbrd_launch {}]
    set ::bgpn::inst($node) $::vbrd::cur
    set ::vbrd::cur $saved
    set ::bgpn::state($node) [expr {$why eq "" ? "up" : "down"}]
    if {$why ne ""} { fail "node $node: $why" }
    # vbrd made the TAPs: now the node's FRR can see them
    bgpn_frr $node
}

proc bgpn_kill {node} {
    set pid [dict get $::bgpn::inst($node) pid]
    set t [clock milliseconds]
    lab_kill $pid KILL
    if {![lab_wait_exit $pid 10000]} { fail "node $node's vbrd still running 10 s after SIGKILL" }
    set steps [list vbrd [expr {[clock milliseconds] - $t}]]
    bgpn_on $node {vbrd_reap}
    set ::bgpn::state($node) down
    # The rest of the node: its routing daemons die with it, after its
    # vbrd (their TAPs went with it: what their sockets' teardown sends
    # goes nowhere), both at once (frr_kill's way, without waiting for
    # one before killing the other: on a loaded machine a daemon's exit
    # sits for seconds in the kernel's teardown of its sockets).
    set inst [_frr_inst cp$node]
    set t0 [clock milliseconds]
    foreach d {bgpd zebra} { catch {exec kill -KILL [dict get $inst pid $d]} }
    foreach d {bgpd zebra} {
        lab_wait_exit [dict get $inst spawn $d] 5000
        lappend steps $d [expr {[clock milliseconds] - $t0}]
        file delete -force /var/tmp/frr/$d.[dict get $inst pid $d]
    }
    set ::bgpn::kill_steps $steps
    return $t
}

proc _bgpn_stop_node {node} {
    if {![info exists ::bgpn::state($node)]} { return }
    if {$::bgpn::state($node) eq "up"} {
        set test "$::runner::area: vbrd node $node exits 0 on SIGTERM within [expr {$::vbrd::stop_ms / 1000}] s"
        set why [bgpn_on $node {vbrd_stop $::vbrd::stop_ms}]
        if {$why eq ""} {
            runner_report ok $test
        } else {
            runner_report FAIL $test $why
        }
    } else {
        bgpn_on $node {vbrd_kill}
    }
    unset ::bgpn::inst($node) ::bgpn::state($node)
}

proc _bgpn_died_check {} {
    foreach node [array names ::bgpn::state] {
        if {$::bgpn::state($node) ne "up"} { continue }
        if {[lab_exited [dict get $::bgpn::inst($node) pid]]} {
            set ::bgpn::state($node) down
            return "vbrd node $node died during the test ([bgpn_on $node {vbrd_reap}]):\n[bgpn_on $node {vbrd_log_tail}]"
        }
    }
    return ""
}

proc bgpn_on {node script} {
    if {![info exists ::bgpn::inst($node)]} {
        error "bgpn_on: no node '$node'"
    }
    set saved $::vbrd::cur
    set ::vbrd::cur $::bgpn::inst($node)
    set code [catch {uplevel 1 $script} result opts]
    set ::bgpn::inst($node) $::vbrd::cur
    set ::vbrd::cur $saved
    return -options $opts $result
}

proc bgpn_route {node prefix} {
    foreach r [dict get [bgpn_on $node {vbrctl show routes}] routes] {
        if {[dict get $r prefix] eq $prefix} { return $r }
    }
    return ""
}

proc bgpn_up {node {ms 30000}} {
    # FRR 8.4's bgpd registers the BFD session before the BGP session is
    # up, without local address and interface, and again with them once
    # it is Established: a new session in bfdd, which starts Down, and
    # bgpd takes that for BFD going down (Cease/BFD Down): every session
    # comes up twice, ~1 s apart (FRR issue 17337, fixed after 8.4). The
    # node is ready once the second BFD session is up and BGP Established
    # after it.
    frr_bfd_wait_state rtr [bgpn_addr $node] up $ms {*}[bgpn_rtr_bfd_key $node]
    frr_bgp_wait_state rtr [bgpn_addr $node] Established $ms
    set t0 [clock milliseconds]
    while {[set s [dict get [lindex [dict get [bgpn_on $node {vbrctl show bfd rtr}] sessions] 0] state]] ne "Up"} {
        if {[clock milliseconds] - $t0 > $ms} {
            fail "node $node's BFD session to rtr is $s after $ms ms"
        }
        after 20
    }
    wait_for_condition [expr {$ms / 50}] 50 {[bgpn_route $node 10.9.0.0/24] ne ""} else {
        fail "rtr's 10.9.0.0/24 not in node $node's routes: [bgpn_on $node {vbrctl show fpm}]"
    }
}

# The KEY VALUE pairs of rtr's BFD session to NODE as bgpd keys it once
# BGP is up (frr_bfd_peer's filter).
proc bgpn_rtr_bfd_key {node} {
    return [list local [bgpn_line $node] interface l$node]
}

proc bgpn_taps {node} {
    set out {}
    foreach l [json::json2dict [lab_exec cp$node ip -j link show]] {
        if {[string match vb-* [dict get $l ifname]]} { lappend out [dict get $l ifname] }
    }
    return [lsort $out]
}

proc bgpn_rtr_hops {} {
    set r [frr_zebra_routes rtr]
    if {![dict exists $r 10.5.0.0/24]} { return "" }
    return [lsort [dict get $r 10.5.0.0/24 nexthops]]
}

proc bgpn_rtr_kernel_hops {} {
    set j [json::json2dict [lab_exec rtr ip -j route show 10.5.0.0/24]]
    set out {}
    foreach r $j {
        if {[dict exists $r nexthops]} {
            foreach h [dict get $r nexthops] { lappend out [dict get $h gateway] }
        } elseif {[dict exists $r gateway]} {
            lappend out [dict get $r gateway]
        }
    }
    return [lsort $out]
}

proc bgpn_sink {port sports} {
    set t "[lab_prefix]_bgpn_sink"
    set text "table inet $t\ndelete table inet $t\ntable inet $t {\n"
    set rules ""
    foreach node $::bgpn::nodes {
        set if s$node
        append text "  counter $if { }\n"
        append rules "    iifname \"$if\" udp dport $port counter name \"$if\"\n"
        foreach sp $sports {
            append text "  counter ${if}_$sp { }\n"
            append rules "    iifname \"$if\" udp dport $port udp sport $sp counter name \"${if}_$sp\"\n"
        }
    }
    append text "  chain pre {\n    type filter hook prerouting priority 0; policy accept;\n"
    append text "$rules  }\n}\n"
    set f [lab_file nft-$t.conf]
    _lab_write $f $text
    lab_exec srv nft -f $f
    set ::bgpn::sink $t
}

proc bgpn_sink_counts {} {
    set j [json::json2dict [lab_exec srv nft -j list counters table inet $::bgpn::sink]]
    set out {}
    foreach item [dict get $j nftables] {
        if {![dict exists $item counter]} { continue }
        set c [dict get $item counter]
        dict set out [split [dict get $c name] _] [dict get $c packets]
    }
    return $out
}

# The total the sink has counted over every node's interface.
proc _bgpn_sink_total {c} {
    set n 0
    foreach node $::bgpn::nodes { incr n [dict get $c s$node] }
    return $n
}

proc bgpn_stream {port pps seconds flows args} {
    set sports {}
    for {set i 0} {$i < $flows} {incr i} { lappend sports [expr {$::bgpn::sport + $i}] }
    bgpn_sink $port $sports
    set r [stream_recv srv $port [expr {$seconds + 15}] -bind 10.5.0.1]
    set s [stream_send cli 10.5.0.1 $port $pps $seconds $flows -sport $::bgpn::sport]
    set ::bgpn::sender $s
    if {[llength $args] == 2} {
        lassign $args midway script
        wait_for_condition 1000 10 {
            [_bgpn_sink_total [bgpn_sink_counts]] >= $midway || [lab_exited $s]
        } else {
            fail "srv did not accept $midway datagrams of the stream: [bgpn_sink_counts]"
        }
        if {[lab_exited $s]} {
            fail "the sender ended before $midway datagrams got through: [lab_spawn_output $s]"
        }
        uplevel 1 $script
    }
    set snd [stream_result $s [expr {int($seconds * 1000) + 30000}]]
    return [list [stream_result $r] $snd]
}

# [clock milliseconds] of each line of HOST's DAEMON log that matches GLOB
# (FRR's `log timestamp precision 3`: "2026/12/01 22:17:30.123 ...").
proc bgpn_log_times {host daemon glob} {
    set out {}
    foreach line [split [frr_log $host $daemon] "\n"] {
        if {![string match $glob $line]} { continue }
        if {![regexp {^(\d+/\d+/\d+ \d+:\d+:\d+)\.(\d+) } $line -> ts frac]} { continue }
        scan [string range "${frac}000" 0 2] %d frac_ms
        lappend out [expr {[clock scan $ts -format {%Y/%m/%d %H:%M:%S}] * 1000 + $frac_ms}]
    }
    return $out
}

# `ip -ts monitor route nexthop` in rtr: every change of its kernel's
# routes and next-hop objects, with the time the monitor read it.
proc bgpn_rtr_monitor_start {} {
    set pid [lab_spawn rtr ip -ts monitor route nexthop]
    # It prints nothing until a change, and subscribes some time after
    # its start: make changes of our own until it shows one.
    set t0 [clock milliseconds]
    while {![string match "*198.51.100.0/24*" [lab_spawn_output $pid]]} {
        if {[clock milliseconds] - $t0 > 10000 || [lab_exited $pid]} {
            fail "ip monitor in rtr saw no change in 10 s: [lab_spawn_output $pid]"
        }
        lab_exec rtr ip route replace 198.51.100.0/24 dev cli metric [expr {[clock milliseconds] % 1000}]
        after 50
    }
    lab_exec rtr ip route flush 198.51.100.0/24
    return $pid
}

# The monitor's lines so far: a list of {MS LINE}, MS as [clock milliseconds].
proc bgpn_rtr_route_events {pid} {
    set out {}
    foreach line [split [lab_spawn_output $pid] "\n"] {
        # [2026-12-06T12:30:09.123456] 10.5.0.0/24 nhid 17 proto bgp ...
        if {![regexp {^\[(\d+-\d+-\d+T\d+:\d+:\d+)\.(\d+)\] ?(.*)$} $line -> ts frac rest]} { continue }
        scan [string range "${frac}000" 0 2] %d frac_ms
        lappend out [list [expr {[clock scan $ts -format {%Y-%m-%dT%H:%M:%S}] * 1000 + $frac_ms}] $rest]
    }
    return $out
}

# The times rtr's bfdd took NODE's session down, at or after SINCE and
# before UNTIL (ms, [clock milliseconds]; "" no end).
proc bgpn_rtr_bfd_downs {node since {until ""}} {
    set out {}
    foreach e [frr_bfd_transitions rtr] {
        if {[dict get $e peer] ne [bgpn_addr $node] || [dict get $e to] ne "down"} { continue }
        set ms [dict get $e ms]
        if {$ms >= $since && ($until eq "" || $ms < $until)} { lappend out $ms }
    }
    return $out
}

# CPU time the hypervisor took from each vCPU so far (/proc/stat's steal,
# USER_HZ ticks of 10 ms): a list, one per CPU, in ms.
proc bgpn_steal_ms {} {
    set out {}
    foreach line [split [exec cat /proc/stat] "\n"] {
        if {[regexp {^cpu[0-9]+ } $line]} {
            lappend out [expr {[lindex $line 8] * 10}]
        }
    }
    return $out
}

# The longest time NODE's BFD worker was away from its loop since its
# start (`show bfd counters`), ms.
proc bgpn_loop_gap_ms {node} {
    set c [bgpn_on $node {vbrctl show bfd counters}]
    return [expr {[dict get $c worker loop_gap_max_us] / 1000.0}]
}

# Call when BFD sessions that nothing cut went down (WHAT says which and
# when). A node's BFD worker away from its loop for G ms sends nothing
# meanwhile: up to G plus its transmit interval between two of its
# packets, so G >= DETECT_MS - INTERVAL_MS can expire rtr's detection
# time (GAPS: dict node -> bgpn_loop_gap_ms, read while it ran); so can
# the hypervisor taking that long from a vCPU since STEAL0 (bgpn_steal_ms).
# Then the machine stopped them and the test is skipped saying so (as
# failover.tcl's fo_flap_verdict); otherwise it fails.
proc bgpn_flap_verdict {what detect_ms interval_ms steal0 gaps} {
    set gap 0
    dict for {node g} $gaps { set gap [expr {max($gap, $g)}] }
    set stolen 0
    foreach a $steal0 b [bgpn_steal_ms] { set stolen [expr {max($stolen, $b - $a)}] }
    set bound [expr {$detect_ms - $interval_ms}]
    set why "the nodes' BFD workers were off their loop (descheduled, or waiting on a full TX ring) for up to $gap ms ($gaps), the hypervisor took up to $stolen ms from a vCPU meanwhile; $bound ms of either can expire the $detect_ms ms detection time"
    if {$gap >= $bound || $stolen >= $bound} {
        skip "$what, but this machine stopped them: $why"
    }
    fail "$what: $why"
}

# The time (ms) ip monitor PID saw rtr's route to 10.5.0.0/24 become
# NODE's next hop alone, at or after SINCE; "" if not yet.
proc bgpn_rtr_moved {pid node since} {
    foreach ev [bgpn_rtr_route_events $pid] {
        lassign $ev ms line
        if {$ms >= $since && [string match "10.5.0.0/24 *via [bgpn_addr $node] dev l$node *" $line]} {
            return $ms
        }
    }
    return ""
}
