# The HA lab: two vbrd nodes, a and b, on one LAN, sharing a lease in Redis
# (failover/ha/ha_config.h, ha_role.h): the active one answers ARP and ND for
# the LAN's service address and forwards what the LAN sends it.
#
#                   PREFIX-lan (bridge br0)                 PREFIX-wan (bridge br0)
#   h1 10.10.0.100 ─┤                      ├─ lan [vbrd a] wan ─┤
#      gw 10.10.0.1 │                      ├─ lan [vbrd b] wan ─├─ h2 10.20.0.100
#
#   h1  eth0 10.10.0.100/24, default via 10.10.0.1 (the service address)
#            2001:db8:10::100/64, default via 2001:db8:10::1
#   a   lan 10.10.0.2/24 2001:db8:10::2/64 (port PREFIX-la)  wan 10.20.0.2/24 (PREFIX-wa)
#   b   lan 10.10.0.3/24 2001:db8:10::3/64 (port PREFIX-lb)  wan 10.20.0.3/24 (PREFIX-wb)
#   h2  eth0 10.20.0.100/24 (no route back to 10.10.0.0/24: the lab's
#       traffic is one way, h1 -> h2, a seqstream that measures the outage)
#   service address 10.10.0.1 and 2001:db8:10::1 on interface "lan"
#
# The two bridges are Linux bridges in their own namespaces (STP and
# multicast snooping off: ports forward at once, NS to solicited-node
# groups flood). Each node's ports are veths whose root-namespace ends
# (PREFIX-la ...) vbrd opens as net_af_packet ports; both nodes run in the
# root namespace, like every vbrd of the suite. A stream from h1 to h2
# takes whichever node h1's ARP entry for 10.10.0.1 names: h1's neighbor
# settings are the kernel's defaults (no locktime 0), so what moves the
# entry to a new active is its gratuitous ARP (RFC 5227 §3; Linux
# overrides the locktime for one, net/ipv4/arp.c arp_is_garp()).
#
# Redis: one redis-server (harness/redis.tcl) per start_ha_lab block,
# bound to 127.0.0.1, 127.0.0.2 and 127.0.0.3. Node a reaches it at
# 127.0.0.2:PORT, node b at 127.0.0.3:PORT, so that ha_cut_redis can cut
# one node off with nftables in the root namespace: a table PREFIX_ha_NODE
# (inet family) whose chain on the output hook drops TCP to that address
# and port and from it. On loopback every packet, both directions, is
# locally sent and passes the output hook (no input-only path to cover):
# the client's SYNs and data (daddr NODE-ADDR, dport PORT) and the
# server's answers (saddr NODE-ADDR, sport PORT). Dropped, not rejected:
# a silent cut, as a dead link looks. With option sentinel 1 the block
# runs a Sentinel lab instead (master, replica, three sentinels on
# 127.0.0.1) and both nodes name the sentinels (cutting is then not
# offered).
#
#   start_ha_lab {?KEY VALUE ...?} BODY
#       ha 1|0        with the ha section (default 1); 0: two plain routers
#                     (what vbrd runs before the HA daemon exists)
#       nodes {a b}   nodes to start (in this order; a first, so that a
#                     takes the lease and b finds it)
#       lease 100 renew 20 guard 10 retry 10 timeout 50 announce 3
#       announce_interval 20   the ha section's settings (ms; timeout is
#                     redis.timeout); "" for lease, renew, guard, retry or
#                     timeout leaves it out: vbrd's default
#       vmac MAC      service.mac: the pair's virtual MAC ("" none, the default)
#       ha_extra TEXT more settings inside both nodes' ha section
#       a_extra TEXT, b_extra TEXT   more top-level config of that node
#       sentinel 0|1  Redis Sentinel instead of one server
#       persist 0|1   the Redis server keeps an append-only file (fsync
#                     always): a SIGKILL and restart loses no key
#       wait 1|0      before BODY, wait until a is active and b standby
#                     (with ha 1)
#       redis 1|0     start Redis (default: as ha; the harness's own test
#                     runs Redis without vbrd: ha 0 nodes {} redis 1)
#       redis_conf TEXT   more lines of the Redis server's config
#                     (requirepass ...)
#       redis_extra TEXT  more settings inside both nodes' ha.redis group
#                     (password = "...";)
#       ids {NODE ID ...}  the ha.node a node is configured with (default:
#                     its name)
#   runs BODY, then SIGTERMs the nodes still running and checks that each
#   exits 0 within 5 s (one test each, as start_vbrd does), and stops Redis.
#   The pair's name is unique per block and run: PREFIX-PID-N.
#
#   ha_vbrctl NODE ARGS    `vbrctl -j ARGS` against NODE, as a dict
#   ha_on NODE SCRIPT      SCRIPT with the harness's vbrd commands (vbrctl,
#                          vbrd_log_tail ...) aimed at NODE
#   ha_show NODE           `show ha` as a dict
#   ha_history NODE        `show ha history` rows, a list of dicts
#   ha_role NODE           its role, or "down" (not running) / "frozen" (SIGSTOPped)
#   ha_wait_role NODE ROLE MS   wait until NODE's role is ROLE -> ms waited
#   ha_active_nodes        the running nodes whose show ha says active
#   ha_pair_up ?MS?        bring the pair back to one active and one standby
#                          that has read the active's lease (holder and
#                          epoch: CONT a frozen node, restart a dead one,
#                          heal cuts) -> {ACTIVE STANDBY}
#   ha_kill NODE ?SIG?     KILL (default: waits for the exit), TERM (sends it;
#                          ha_wait_exit NODE MS -> "exit 0" ...), STOP, CONT
#   ha_restart NODE        start NODE again (killing it first if it runs)
#   ha_mac NODE            the MAC of NODE's lan port
#   ha_node_of_mac MAC     a, b or ""
#   ha_host_arp            h1's neighbor entry for 10.10.0.1: dict mac state node
#   ha_host_nd             the same for 2001:db8:10::1
#   ha_redis_addr NODE     the HOST:PORT NODE uses (single server)
#   ha_cut_redis NODE / ha_heal_redis NODE / ha_cut_drops NODE (packets dropped)
#   ha_lease               the lease as Redis holds it: dict holder pttl epoch
#                          (read at 127.0.0.1, or at the master the
#                          sentinels name now)
#   ha_lease_key ?NAME?    "vbrd:PAIR:NAME" (default lease)
#   ha_lease_end_us        the earliest wall-clock time (µs) the lease Redis
#                          holds now can end (time asked + PTTL); "" if none
#   ha_lease_window        {LO HI}: its end by a PTTL read between LO-PTTL
#                          and HI-PTTL
#   ha_stream_start PPS SECONDS ?PORT? / ha_stream_result HANDLE
#                          a seqstream h1 -> h2 (harness/stream.tcl)
#   ha_arpwatch_start SECONDS ?-interval MS? ?-ipv6 0|1? ?-target A? ?-target6 A?
#                          tools/arpwatch.py in h1 asking for the service
#                          address (or A; -target6 implies -ipv6 1) every
#                          MS (default 10) -> pid, once it runs; ha_arpwatch_result PID
#                          -> its report (see the tool) at its end;
#                          ha_arpwatch_stop PID: ends it now, -> its report
#   ha_arp_macs REPORT ?FROM_US? ?TO_US? ?-proto arp|nd?  the MACs that answered
#                          in slots that overlap [FROM_US, TO_US)
#   ha_watch MS ?UNTIL?    sample every running node's show ha for MS ms, or
#                          until the expression UNTIL (in the caller) is true;
#                          samples are appended to the block's record
#                          -> 1 if UNTIL came true (or none given), else 0
#   ha_samples / ha_watch_reset   the record (dicts node t0_us t1_us role
#                          epoch remaining_ms) / empty it
#   ha_overlap_ms ?SAMPLES?  the longest time two nodes were active at once
#                          by their own show ha (see the proc)
#   ha_now_us              the wall clock, µs (what history rows and
#                          arpwatch use)
#   ha_opt KEY             an option of the current block (lease, renew ...)
#   ha_slow                the factor waits are made longer by: 3 under
#                          ASan (vbrd and its control thread run ~2-3x
#                          slower), else 1
#
# Cleanup: namespaces, veths and processes go with lab_cleanup; the nft
# tables are deleted by a lab_on_cleanup script (and by tests/lab-cleanup.sh
# after a killed run: PREFIX_* tables).
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [file normalize [info script]]] harness ha_lab.tcl]

set _ha_dir [file dirname [file normalize [info script]]]
source [file join $_ha_dir redis.tcl]
source [file join $_ha_dir stream.tcl]
set ::arpwatch_py [file join [file dirname $_ha_dir] tools arpwatch.py]
unset _ha_dir

namespace eval ha {
    variable built 0
    variable nodes {a b}
    variable lan4 {a 10.10.0.2 b 10.10.0.3}
    variable lan6 {a 2001:db8:10::2 b 2001:db8:10::3}
    variable wan4 {a 10.20.0.2 b 10.20.0.3}
    variable redis_ip {a 127.0.0.2 b 127.0.0.3}
    variable vip4 10.10.0.1
    variable vip6 2001:db8:10::1
    variable h1_4 10.10.0.100
    variable h1_6 2001:db8:10::100
    variable h2_4 10.20.0.100
    variable opts {}
    variable blocks 0
    variable pair ""
    variable inst        ;# node -> ::vbrd::cur-like dict of its vbrd
    array set inst {}
    variable state       ;# node -> up | down | stopping | frozen
    array set state {}
    variable launches    ;# node -> launches in this block (log names)
    array set launches {}
    variable macs        ;# node -> MAC of its lan port
    array set macs {}
    variable cuts        ;# node -> 1 once its nft table exists
    array set cuts {}
    variable samples {}
    variable cleanup_set 0
}

# --- topology ---

proc ha_port_if {node seg} {
    return "[lab_prefix]-[string index $seg 0]$node"
}

proc ha_topology {} {
    if {$::ha::built} { return }
    foreach seg {lan wan} {
        lab_netns $seg
        lab_exec $seg ip link add br0 type bridge stp_state 0 forward_delay 0 mcast_snooping 0
        lab_exec $seg ip link set br0 up
    }
    lab_netns h1
    lab_wire h1 eth0 lan h1
    lab_exec lan ip link set dev h1 master br0
    lab_exec h1 ip addr add $::ha::h1_4/24 dev eth0
    lab_exec h1 ip route add default via $::ha::vip4
    lab_exec h1 sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
        net.ipv6.conf.default.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0 \
        net.ipv6.conf.lo.disable_ipv6=0 net.ipv6.conf.eth0.accept_dad=0 \
        net.ipv6.conf.eth0.accept_ra=0 net.ipv6.conf.eth0.router_solicitations=0
    lab_exec h1 ip -6 addr add $::ha::h1_6/64 dev eth0 nodad
    lab_exec h1 ip -6 route add default via $::ha::vip6 dev eth0
    lab_netns h2
    lab_wire h2 eth0 wan h2
    lab_exec wan ip link set dev h2 master br0
    lab_exec h2 ip addr add $::ha::h2_4/24 dev eth0
    foreach node $::ha::nodes {
        foreach seg {lan wan} {
            set rootif [ha_port_if $node $seg]
            exec ip link add $rootif type veth peer name $node netns [lab_ns $seg]
            lappend ::lab::links $rootif
            # the root kernel stays silent on vbrd's ports (no RS, no MLD)
            _lab_write /proc/sys/net/ipv6/conf/$rootif/disable_ipv6 1
            exec ip link set $rootif up
            lab_exec $seg ip link set dev $node master br0
            lab_exec $seg ip link set dev $node up
        }
        set ::ha::macs($node) [lab_mac - [ha_port_if $node lan]]
    }
    set ::ha::built 1
}

# --- config ---

proc _ha_opts {opts} {
    set o [dict create ha 1 nodes {a b} lease 100 renew 20 guard 10 retry 10 timeout 50 \
               announce 3 announce_interval 20 vmac "" ha_extra "" a_extra "" b_extra "" \
               sentinel 0 persist 0 wait 1 redis "" redis_conf "" redis_extra "" ids {}]
    foreach {k v} $opts {
        if {![dict exists $o $k]} { error "start_ha_lab: unknown option '$k'" }
        dict set o $k $v
    }
    foreach n [dict get $o nodes] {
        if {$n ni $::ha::nodes} { error "start_ha_lab: no node '$n' (a, b)" }
    }
    if {[dict get $o redis] eq ""} { dict set o redis [dict get $o ha] }
    return $o
}

# "KEY = VALUE;", or nothing for VALUE "" (vbrd's default then).
proc _ha_setting {key value} {
    return [expr {$value eq "" ? "" : "$key = $value;"}]
}

proc ha_conf {node} {
    set o $::ha::opts
    set text "
workers = { cores = \[ 1 \]; idle_sleep_us = 100; };
ports = (
  { name = \"lan\"; devargs = \"net_af_packet0,iface=[ha_port_if $node lan]\"; },
  { name = \"wan\"; devargs = \"net_af_packet1,iface=[ha_port_if $node wan]\"; }
);
interfaces = (
  { name = \"lan\"; port = \"lan\"; addresses = \[ \"[dict get $::ha::lan4 $node]/24\", \"[dict get $::ha::lan6 $node]/64\" \]; },
  { name = \"wan\"; port = \"wan\"; address = \"[dict get $::ha::wan4 $node]/24\"; }
);
"
    if {[dict get $o ha]} {
        if {[dict get $o sentinel]} {
            set s $::redis::sentinel
            set sl [join [lmap a [dict get $s sentinels] {format {"%s"} $a}] ", "]
            set redis "master = \"[dict get $s master_name]\"; sentinels = \[ $sl \];"
        } else {
            set redis "server = \"[ha_redis_addr $node]\";"
        }
        set id [expr {[dict exists [dict get $o ids] $node] ? [dict get $o ids $node] : $node}]
        append text "ha = {
  pair = \"$::ha::pair\";
  node = \"$id\";
  redis = { $redis [_ha_setting timeout [dict get $o timeout]] [dict get $o redis_extra] };
  [_ha_setting lease [dict get $o lease]]
  [_ha_setting renew [dict get $o renew]]
  [_ha_setting guard [dict get $o guard]]
  [_ha_setting retry [dict get $o retry]]
  service = {
    interface = \"lan\";
    ipv4 = \"$::ha::vip4\";
    ipv6 = \"$::ha::vip6\";
    announce = [dict get $o announce];
    announce_interval = [dict get $o announce_interval];[expr {[dict get $o vmac] ne "" ? "\n    mac = \"[dict get $o vmac]\";" : ""}]
  };
[dict get $o ha_extra]
};
"
    }
    append text [dict get $o ${node}_extra] "\n"
    return $text
}

# --- the block ---

proc start_ha_lab {opts body} {
    set o [_ha_opts $opts]
    ha_topology
    if {!$::ha::cleanup_set} {
        lab_on_cleanup {_ha_delete_tables}
        set ::ha::cleanup_set 1
    }
    set n [incr ::ha::blocks]
    set ::ha::opts $o
    set ::ha::pair "[lab_prefix]-[pid]-$n"
    set ::ha::samples {}
    array unset ::ha::launches
    array set ::ha::launches {}
    set saved_broken $::runner::broken
    set why ""
    if {[dict get $o redis]} {
        if {[catch {
            if {[dict get $o sentinel]} {
                sentinel_lab_start
            } else {
                redis_start -bind {127.0.0.1 127.0.0.2 127.0.0.3} -persist [dict get $o persist] \
                    -conf [dict get $o redis_conf]
            }
        } msg]} {
            set why "Redis did not start: $msg"
        }
    }
    foreach node [dict get $o nodes] {
        if {$why ne ""} { break }
        set why [_ha_launch $node]
        if {$why eq "" && [dict get $o ha] && [dict get $o wait]} {
            set want [expr {$node eq [lindex [dict get $o nodes] 0] ? "active" : "standby"}]
            if {[catch {ha_wait_role $node $want 10000} msg]} {
                set why "node $node did not become $want: $msg\n[ha_on $node {vbrd_log_tail}]"
            }
        }
    }
    if {$why ne ""} { set ::runner::broken $why }
    set check {_ha_died_check}
    lappend ::runner::after_checks $check

    set code [catch {uplevel 1 $body} result ropts]

    set ::runner::after_checks [lsearch -all -inline -not -exact $::runner::after_checks $check]
    set ::runner::broken $saved_broken
    foreach node [dict get $o nodes] {
        _ha_heal_quiet $node
        _ha_stop_node $node
    }
    _ha_stop_redis
    if {$code == 1} { return -options $ropts $result }
    return
}

proc _ha_launch {node} {
    set n [incr ::ha::launches($node)]
    set name "ha$::ha::blocks$node"
    set instance "[lab_prefix]-$name"
    set sock [file join [lab_rundir] $name.sock]
    set conf [file join [lab_rundir] $name.conf]
    set log [file join [lab_rundir] [expr {$n == 1 ? "$name.log" : "$name-$n.log"}]]
    vbrd_write_config $conf [ha_conf $node] $instance $sock
    if {$instance ni $::lab::dpdk_prefixes} { lappend ::lab::dpdk_prefixes $instance }
    set saved $::vbrd::cur
    set ::vbrd::cur [dict create conf $conf log $log socket $sock instance $instance pid 0 fd ""]
    set why [vbrd_launch {}]
    set ::ha::inst($node) $::vbrd::cur
    set ::vbrd::cur $saved
    set ::ha::state($node) [expr {$why eq "" ? "up" : "down"}]
    if {$why ne ""} { return "node $node: $why" }
    return ""
}

proc _ha_stop_node {node} {
    if {![info exists ::ha::state($node)]} { return }
    set st $::ha::state($node)
    set test "$::runner::area: vbrd node $node (ha$::ha::blocks$node) exits 0 on SIGTERM within [expr {$::vbrd::stop_ms / 1000}] s"
    if {$st eq "frozen"} {
        lab_kill [dict get $::ha::inst($node) pid] CONT
        set st up
    }
    if {$st eq "up"} {
        set why [ha_on $node {vbrd_stop $::vbrd::stop_ms}]
        if {$why eq ""} {
            runner_report ok $test
        } else {
            runner_report FAIL $test $why
        }
    } else {
        ha_on $node {vbrd_kill}
    }
    set ::ha::state($node) down
    unset ::ha::inst($node)
    unset ::ha::state($node)
}

proc _ha_stop_redis {} {
    foreach name [array names ::redis::servers] {
        if {[redis_running $name]} {
            catch {redis_kill TERM $name}
        }
    }
}

proc _ha_died_check {} {
    foreach node [array names ::ha::state] {
        if {$::ha::state($node) ne "up"} { continue }
        set pid [dict get $::ha::inst($node) pid]
        if {[lab_exited $pid]} {
            set ::ha::state($node) down
            return "vbrd node $node died during the test ([ha_on $node {vbrd_reap}]):\n[ha_on $node {vbrd_log_tail}]"
        }
    }
    return ""
}

# --- talking to a node ---

proc ha_on {node script} {
    if {![info exists ::ha::inst($node)]} {
        error "ha_on: no node '$node' in this block"
    }
    set saved $::vbrd::cur
    set ::vbrd::cur $::ha::inst($node)
    set code [catch {uplevel 1 $script} result opts]
    set ::ha::inst($node) $::vbrd::cur
    set ::vbrd::cur $saved
    return -options $opts $result
}

proc ha_vbrctl {node args} {
    if {[info exists ::ha::state($node)] && $::ha::state($node) ne "up"} {
        error "ha_vbrctl: node $node is $::ha::state($node)"
    }
    return [ha_on $node [list vbrctl {*}$args]]
}

proc ha_show {node} { return [ha_vbrctl $node show ha] }

proc ha_history {node} { return [dict get [ha_vbrctl $node show ha history] rows] }

proc ha_role {node} {
    if {![info exists ::ha::state($node)]} { return down }
    if {$::ha::state($node) ne "up"} {
        return [expr {$::ha::state($node) eq "frozen" ? "frozen" : "down"}]
    }
    return [dict get [ha_show $node] role]
}

proc ha_wait_role {node role ms} {
    set t0 [clock milliseconds]
    while {1} {
        set r [ha_role $node]
        if {$r eq $role} { return [expr {[clock milliseconds] - $t0}] }
        if {[clock milliseconds] - $t0 > $ms} {
            set show [expr {$r in {down frozen} ? $r : [ha_show $node]}]
            fail "node $node is $r, not $role, after $ms ms: $show"
        }
        after 5
    }
}

proc ha_active_nodes {} {
    set out {}
    foreach node [lsort [array names ::ha::state]] {
        if {[ha_role $node] eq "active"} { lappend out $node }
    }
    return $out
}

proc ha_pair_up {{ms 10000}} {
    foreach node [dict get $::ha::opts nodes] {
        _ha_heal_quiet $node
        switch -- $::ha::state($node) {
            frozen { ha_kill $node CONT }
            down - stopping { ha_restart $node }
        }
    }
    set t0 [clock milliseconds]
    while {1} {
        set roles [lmap n [dict get $::ha::opts nodes] {ha_role $n}]
        if {[lsort $roles] eq {active standby}} {
            set act [lindex [dict get $::ha::opts nodes] [lsearch $roles active]]
            set sby [lindex [dict get $::ha::opts nodes] [lsearch $roles standby]]
            # a standby that has read the lease (not one that is standby
            # because Redis was not reachable yet: reason redis_down)
            set s [ha_show $sby]
            if {[dict get $s holder] eq $act && [dict get $s epoch] == [dict get [ha_show $act] epoch]} {
                return [list $act $sby]
            }
        }
        if {[clock milliseconds] - $t0 > $ms} {
            fail "the pair is not one active and one standby that knows it after $ms ms: roles $roles"
        }
        after 10
    }
}

proc ha_kill {node {sig KILL}} {
    set pid [dict get $::ha::inst($node) pid]
    switch -- $sig {
        KILL - 9 {
            lab_kill $pid KILL
            if {![lab_wait_exit $pid 5000]} { fail "node $node still running after SIGKILL" }
            ha_on $node {vbrd_reap}
            set ::ha::state($node) down
        }
        TERM - 15 {
            lab_kill $pid TERM
            set ::ha::state($node) stopping
        }
        STOP {
            lab_kill $pid STOP
            set ::ha::state($node) frozen
        }
        CONT {
            lab_kill $pid CONT
            set ::ha::state($node) up
        }
        default { error "ha_kill: SIG is KILL, TERM, STOP or CONT" }
    }
}

# After ha_kill NODE TERM: wait up to MS for the exit -> "exit 0", "signal
# ..."; fails if NODE still runs.
proc ha_wait_exit {node ms} {
    set pid [dict get $::ha::inst($node) pid]
    if {![lab_wait_exit $pid $ms]} {
        fail "node $node still running $ms ms after SIGTERM"
    }
    set st [ha_on $node {vbrd_reap}]
    set ::ha::state($node) down
    return $st
}

proc ha_restart {node} {
    if {$::ha::state($node) in {up frozen stopping}} {
        ha_kill $node KILL
    }
    set why [_ha_launch $node]
    if {$why ne ""} { fail $why }
}

# --- the LAN as h1 sees it ---

proc ha_mac {node} { return $::ha::macs($node) }

proc ha_node_of_mac {mac} {
    foreach node [array names ::ha::macs] {
        if {[string equal -nocase $::ha::macs($node) $mac]} { return $node }
    }
    return ""
}

proc _ha_neigh {addr} {
    set out [string trim [lab_exec h1 ip -j neigh show $addr dev eth0]]
    set j [expr {$out eq "" ? {} : [json::json2dict $out]}]
    if {[llength $j] == 0} { return [dict create mac "" state "" node ""] }
    set e [lindex $j 0]
    set mac [expr {[dict exists $e lladdr] ? [dict get $e lladdr] : ""}]
    return [dict create mac $mac state [join [dict get $e state]] node [ha_node_of_mac $mac]]
}

proc ha_host_arp {} { return [_ha_neigh $::ha::vip4] }
proc ha_host_nd {} { return [_ha_neigh $::ha::vip6] }

# --- Redis ---

proc ha_redis_addr {node} {
    return "[dict get $::ha::redis_ip $node]:[redis_port]"
}

proc ha_lease_key {{name lease}} { return "vbrd:$::ha::pair:$name" }

proc ha_lease {} {
    if {[dict get $::ha::opts sentinel]} {
        set at [list -addr [sentinel_master]]
    } else {
        set at [list -port [redis_port]]
    }
    return [dict create holder [redis_cli {*}$at get [ha_lease_key]] \
                pttl [redis_cli {*}$at pttl [ha_lease_key]] \
                epoch [redis_cli {*}$at get [ha_lease_key epoch]]]
}

# The earliest time (wall clock, µs) the lease as Redis holds it now can
# end: the time before asking + its PTTL; "" when there is no lease. A
# renew after the question only makes the end later.
proc ha_lease_end_us {} {
    return [lindex [ha_lease_window] 0]
}

# The lease's end as Redis sees it now, as a window {LO HI} (wall clock,
# µs): the PTTL read between LO - PTTL and HI - PTTL. Nothing can end it
# sooner than LO; after a cut of its holder, nothing renews it past HI
# unless a renew sent before the cut was still queued in the server.
# {} when there is no lease.
proc ha_lease_window {} {
    set at [expr {[dict get $::ha::opts sentinel] ? [list -addr [sentinel_master]]
                  : [list -port [redis_port]]}]
    set t0 [clock microseconds]
    set pttl [redis_cli {*}$at pttl [ha_lease_key]]
    set t1 [clock microseconds]
    if {$pttl < 0} { return {} }
    return [list [expr {$t0 + 1000 * $pttl}] [expr {$t1 + 1000 * $pttl}]]
}

proc _ha_table {node} { return "[lab_prefix]_ha_$node" }

proc ha_cut_redis {node} {
    if {[dict get $::ha::opts sentinel]} { error "ha_cut_redis: not with sentinel 1" }
    lassign [_redis_split [ha_redis_addr $node]] ip port
    set t [_ha_table $node]
    # one transaction: both directions cut at one instant, the counter
    # new (`reset counter` would run outside the transaction)
    if {![info exists ::ha::cuts($node)]} {
        set text "table inet $t {
  counter dropped { }
  chain out {
    type filter hook output priority 0; policy accept;
  }
}
"
    } else {
        set text "flush chain inet $t out
delete counter inet $t dropped
add counter inet $t dropped
"
    }
    append text "add rule inet $t out oifname \"lo\" ip daddr $ip tcp dport $port counter name dropped drop
add rule inet $t out oifname \"lo\" ip saddr $ip tcp sport $port counter name dropped drop
"
    _ha_nft $text
    set ::ha::cuts($node) 1
}

proc ha_heal_redis {node} {
    if {![info exists ::ha::cuts($node)]} { return }
    _ha_nft "flush chain inet [_ha_table $node] out\n"
}

proc ha_cut_drops {node} {
    if {![info exists ::ha::cuts($node)]} { return 0 }
    set j [json::json2dict [exec nft -j list counter inet [_ha_table $node] dropped]]
    foreach item [dict get $j nftables] {
        if {[dict exists $item counter packets]} { return [dict get $item counter packets] }
    }
    return 0
}

proc _ha_heal_quiet {node} { catch {ha_heal_redis $node} }

proc _ha_nft {text} {
    set f [lab_file nft-ha.conf]
    _lab_write $f $text
    exec nft -f $f
}

proc _ha_delete_tables {} {
    foreach node [array names ::ha::cuts] {
        catch {exec nft delete table inet [_ha_table $node]}
    }
    array unset ::ha::cuts
    array set ::ha::cuts {}
}

# --- traffic ---

proc ha_stream_start {pps seconds {port 5001}} {
    set r [stream_recv h2 $port [expr {$seconds + 15}]]
    set s [stream_send h1 $::ha::h2_4 $port $pps $seconds]
    return [dict create recv $r send $s]
}

proc ha_stream_result {handle} {
    set sent [stream_result [dict get $handle send]]
    set rep [stream_result [dict get $handle recv]]
    dict set rep sender $sent
    return $rep
}

proc ha_arpwatch_start {seconds args} {
    set interval 10
    set ipv6 0
    set target $::ha::vip4
    set target6 $::ha::vip6
    foreach {k v} $args {
        switch -- $k {
            -interval { set interval $v }
            -ipv6 { set ipv6 $v }
            -target { set target $v }
            -target6 { set target6 $v; set ipv6 1 }
            default { error "ha_arpwatch_start: unknown option $k" }
        }
    }
    set cmd [list /usr/bin/python3 $::arpwatch_py --iface eth0 --target $target \
                 --seconds $seconds --interval-ms $interval]
    if {$ipv6} { lappend cmd --target6 $target6 }
    set pid [lab_spawn h1 -lifetime [expr {int($seconds) + 30}] {*}$::lab_tool_cpu {*}$cmd]
    wait_for_condition 1000 10 {
        [string match "*arpwatch: ready*" [lab_spawn_output $pid]] || [lab_exited $pid]
    } else {
        fail "arpwatch did not start:\n[lab_spawn_output $pid]"
    }
    if {[lab_exited $pid]} { fail "arpwatch exited:\n[lab_spawn_output $pid]" }
    return $pid
}

proc ha_arpwatch_result {pid {timeout_ms 60000}} {
    if {![lab_wait_exit $pid $timeout_ms]} {
        fail "arpwatch still running after $timeout_ms ms"
    }
    foreach line [lreverse [split [lab_spawn_output $pid] "\n"]] {
        if {[string index $line 0] eq "\{"} { return [json::json2dict $line] }
    }
    fail "arpwatch printed no report:\n[lab_spawn_output $pid]"
}

# End the watch of PID now (the scenario it watched is over) and return
# its report, as ha_arpwatch_result: SIGHUP, which timeout (lab_spawn)
# passes on to arpwatch.py; the watch's SECONDS are then only its longest.
proc ha_arpwatch_stop {pid {timeout_ms 10000}} {
    lab_kill $pid HUP
    return [ha_arpwatch_result $pid $timeout_ms]
}

proc ha_arp_macs {rep {from ""} {to ""} args} {
    set proto arp
    foreach {k v} $args {
        switch -- $k {
            -proto { set proto $v }
            default { error "ha_arp_macs: unknown option $k" }
        }
    }
    set start [dict get $rep start_us]
    set slot [expr {[dict get $rep slot_ms] * 1000}]
    set out {}
    foreach s [dict get $rep $proto slots] {
        lassign $s i macs
        set a [expr {$start + $i * $slot}]
        set b [expr {$a + $slot}]
        if {$from ne "" && $b <= $from} { continue }
        if {$to ne "" && $a >= $to} { continue }
        lappend out {*}$macs
    }
    return [lsort -unique $out]
}

# --- watching both nodes ---

proc ha_watch {ms {until ""}} {
    set t_end [expr {[clock milliseconds] + $ms}]
    while {1} {
        foreach node [lsort [array names ::ha::state]] {
            if {$::ha::state($node) ne "up"} { continue }
            set t0 [clock microseconds]
            if {[catch {ha_show $node} s]} { continue }
            set t1 [clock microseconds]
            lappend ::ha::samples [dict create node $node t0_us $t0 t1_us $t1 \
                role [dict get $s role] epoch [dict get $s epoch] \
                remaining_ms [dict get $s lease_remaining_ms]]
        }
        if {$until ne "" && [uplevel 1 [list expr $until]]} { return 1 }
        if {[clock milliseconds] >= $t_end} { return [expr {$until eq ""}] }
        after 2
    }
}

proc ha_samples {} { return $::ha::samples }
proc ha_watch_reset {} { set ::ha::samples {} }

# The longest time, ms, that two nodes were both active by what their own
# `show ha` said, from two kinds of interval per node:
#   deadline  a sample read between t0 and t1 that says active with
#             lease_remaining_ms R: active at the moment it answered (in
#             [t0, t1]) and, by its own deadline, until that moment + R;
#             so at least over [t1, t0 + R]
#   run       consecutive samples of the node that all say active, the
#             first read in [a0, a1], the last in [b0, b1]: active over
#             [a1, b0] as far as sampling can tell (a node that is active,
#             stops and is active again between two samples is not seen)
# Overlaps of two nodes' intervals are times both held themselves active;
# the result is the longest (0 when none). The intervals are the shortest
# the samples allow, so a figure above 0 is a real overlap (to the ms the
# nodes round their deadlines to).
proc ha_overlap_ms {{samples ""}} {
    if {$samples eq ""} { set samples $::ha::samples }
    set iv [dict create]
    set run [dict create]   ;# node -> {a1 b0} of its current run of active samples
    foreach s $samples {
        set n [dict get $s node]
        if {[dict get $s role] ne "active"} {
            if {[dict exists $run $n]} {
                dict lappend iv $n [dict get $run $n]
                dict unset run $n
            }
            continue
        }
        set a [dict get $s t1_us]
        set b [expr {[dict get $s t0_us] + 1000 * [dict get $s remaining_ms]}]
        if {$b > $a} { dict lappend iv $n [list $a $b] }
        if {[dict exists $run $n]} {
            dict set run $n [list [lindex [dict get $run $n] 0] [dict get $s t0_us]]
        } else {
            dict set run $n [list $a $a]
        }
    }
    dict for {n r} $run { dict lappend iv $n $r }
    set best 0
    set nodes [dict keys $iv]
    foreach x $nodes {
        foreach y $nodes {
            if {[string compare $x $y] >= 0} { continue }
            foreach i [dict get $iv $x] {
                foreach j [dict get $iv $y] {
                    set o [expr {min([lindex $i 1], [lindex $j 1]) - max([lindex $i 0], [lindex $j 0])}]
                    if {$o > $best} { set best $o }
                }
            }
        }
    }
    return [expr {$best / 1000.0}]
}

proc ha_now_us {} { return [clock microseconds] }

# An option of the current block (lease, renew ...).
proc ha_opt {key} { return [dict get $::ha::opts $key] }

proc ha_slow {} {
    if {![info exists ::ha::slow]} {
        set ::ha::slow [expr {[catch {exec grep -q -a __asan_init $::vbrd::bin}] ? 1 : 3}]
    }
    return $::ha::slow
}
