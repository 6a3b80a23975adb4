# The two-site lab of the cross-region gateway: two vbrd instances joined
# by two lines (or up to four: option `lines`), a host behind each.
#
#   h1 10.1.1.2 ── lan [vbrd edge] line1 ══ impair ══ line1 [vbrd region] lan ── 10.2.2.2 h2
#                                  line2 ══ impair ══ line2
#
#   h1 eth0 10.1.1.2/24 (gw 10.1.1.1)     h2 eth0 10.2.2.2/24 (gw 10.2.2.1)
#   line1   172.16.1.1/24 edge  <->  172.16.1.2/24 region   (outer IPv6:
#   line2   172.16.2.1/24 edge  <->  172.16.2.2/24 region    2001:db8:a1::1/64,
#                                                            2001:db8:a2::1/64 ...)
#   lineN   172.16.N.1/24 edge  <->  172.16.N.2/24 region   (with `lines N`, N <= 4)
#   tunnel  edge local 192.168.100.1  <->  region local 192.168.100.2
#           (2001:db8:ff::1 / 2001:db8:ff::2 over IPv6), addresses on no
#           interface: the tunnel's `local` is what makes them own addresses.
#   edge:   tunnel to-region, path group "region" = p-line1, p-line2 (.. p-lineN),
#           route 10.2.2.0/24 (and 2001:db8:2::/64 with inner6) -> "region"
#   region: tunnel to-edge,   path group "edge"   = p-line1, p-line2 (.. p-lineN),
#           route 10.1.1.0/24 (and 2001:db8:1::/64 with inner6) -> "edge"
#
# Each line is an impair_line (harness/impair.tcl): a namespace PREFIX-lineN
# with interfaces ifa (towards the edge) and ifb (towards the region)
# bridged by tests/tools/impair, so a test can capture on a line (tcpdump
# in its namespace), read its counters (impair_stats: a2b = edge -> region)
# and break it (impair_set line1 loss 100).
#
#   start_twosite {?type vxlan|geneve? ?outer 4|6? ?inner6 0|1? ?lines N?
#                  ?plane1 N? ?plane2 N? ... ?path1 TEXT? ?path2 TEXT? ...
#                  ?inner 0|1? ?edge_routes TEXT? ?region_routes TEXT?
#                  ?edge_tunnels TEXT? ?region_tunnels TEXT?
#                  ?edge_groups TEXT? ?region_groups TEXT?
#                  ?edge_extra TEXT? ?region_extra TEXT?} {body}
#
# lines N (2..4, default 2): lines line1 .. lineN, vbrd ports and
# interfaces of those names on both sides, and one path p-lineK per line
# in each group, in line order (p-line1 first: the active path at start).
# planeK pins path p-lineK's plane (outer UDP source port 49152 + planeK)
# on both sides; pathK is extra config text put inside both sides' path
# p-lineK (e.g. {cost = 30; tier = "gold";}), "" for none.
#
# inner 1 gives the tunnels inner addresses (`address`: edge 10.99.0.1/30,
# region 10.99.0.2/30), what a BFD session through a path group runs
# between. edge_routes / region_routes replace the entries of that side's
# `routes` list (default: the far subnet to the path group), e.g. to route
# h2's subnet to a failover group put in edge_extra; "" keeps the default.
# edge_tunnels / region_tunnels and edge_groups / region_groups are more
# entries (config text, comma-separated) appended to that side's
# `tunnels` and `path_groups` lists, e.g. a second tunnel with another VNI
# and a path group over it (a section cannot be given twice, so extra
# cannot add them).
#
# starts both vbrds (start_vbrd names edgeN and regionN, N counting the
# blocks of the file: instances PREFIX-edgeN and PREFIX-regionN, own
# sockets and EAL file prefixes, worker on CPU 1 napping 100 µs when
# idle, main lcore on CPU 0, 512 MiB each), runs BODY, then
# stops both (each stop reported as a test, by start_vbrd). Inside BODY
# the plain harness commands (vbrctl, stat, drops, iface_stat ...) talk to
# the region (the innermost start_vbrd); `on_vbrd edge {script}` or
# `twosite_vbrctl edge ARGS` reach a given one.
#
# Hosts and lines are built once per test file (twosite_lab) and reused
# by every start_twosite block; a block with more lines than the blocks
# before it adds the missing ones.

source [file join [file dirname [file normalize [info script]]] impair.tcl]

namespace eval twosite {
    variable built 0    ;# h1 and h2 exist
    variable lines 0    ;# line1 .. line$lines exist
    variable max_lines 4
    variable inner6 0
    # name (edge, region) -> the start_vbrd state dict (::vbrd::cur) of it
    variable inst
    array set inst {}
    variable blocks 0   ;# start_twosite blocks so far: names edge1, region1, edge2 ...
}

# Build h1, h2 and line1 .. lineLINES (each once per file). With INNER6
# also give the hosts IPv6 addresses (2001:db8:1::2/64 via ::1,
# 2001:db8:2::2/64 via ::1).
proc twosite_lab {{inner6 0} {lines 2}} {
    if {!$::twosite::built} {
        lab_host h1 10.1.1.2/24 10.1.1.1
        lab_host h2 10.2.2.2/24 10.2.2.1
        set ::twosite::built 1
    }
    while {$::twosite::lines < $lines} {
        # Both ends in the root namespace: PREFIX-lineN (edge), PREFIX-lineN-b (region).
        impair_line line[incr ::twosite::lines]
    }
    if {$inner6 && !$::twosite::inner6} {
        foreach {h a gw} {h1 2001:db8:1::2/64 2001:db8:1::1 h2 2001:db8:2::2/64 2001:db8:2::1} {
            lab_exec $h sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
                net.ipv6.conf.default.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0
            # No DAD: the address must work at once.
            lab_exec $h ip -6 addr add $a dev eth0 nodad
            lab_exec $h ip -6 route add default via $gw dev eth0
        }
        set ::twosite::inner6 1
    }
}

# Defaults of start_twosite's options.
proc _twosite_opts {opts} {
    set o [dict create type vxlan outer 4 inner6 0 lines 2 \
               inner 0 edge_routes "" region_routes "" edge_extra "" region_extra "" \
               edge_tunnels "" region_tunnels "" edge_groups "" region_groups ""]
    for {set n 1} {$n <= $::twosite::max_lines} {incr n} {
        dict set o plane$n ""
        dict set o path$n ""
    }
    foreach {k v} $opts {
        if {![dict exists $o $k]} {
            error "start_twosite: unknown option '$k'"
        }
        dict set o $k $v
    }
    set lines [dict get $o lines]
    if {![string is integer -strict $lines] || $lines < 2 || $lines > $::twosite::max_lines} {
        error "start_twosite: lines must be 2..$::twosite::max_lines, got '$lines'"
    }
    for {set n [expr {$lines + 1}]} {$n <= $::twosite::max_lines} {incr n} {
        if {[dict get $o plane$n] ne "" || [dict get $o path$n] ne ""} {
            error "start_twosite: plane$n/path$n given, but only $lines lines"
        }
    }
    if {[dict get $o type] ni {vxlan geneve}} {
        error "start_twosite: type must be vxlan or geneve"
    }
    if {[dict get $o outer] ni {4 6}} {
        error "start_twosite: outer must be 4 or 6"
    }
    if {[dict get $o inner] ni {0 1}} {
        error "start_twosite: inner must be 0 or 1"
    }
    return $o
}

# Outer (underlay) addresses of SIDE (edge or region) for family OUTER:
# dict line1 ADDR/LEN .. line4 ADDR/LEN (of each line a lab may have),
# via1 PEER .. via4 PEER, local ADDR, remote ADDR.
proc twosite_addrs {side outer} {
    set me [expr {$side eq "edge" ? 1 : 2}]
    set peer [expr {3 - $me}]
    set a [dict create]
    for {set n 1} {$n <= $::twosite::max_lines} {incr n} {
        if {$outer == 4} {
            dict set a line$n 172.16.$n.$me/24
            dict set a via$n 172.16.$n.$peer
        } else {
            dict set a line$n 2001:db8:a${n}::$me/64
            dict set a via$n 2001:db8:a${n}::$peer
        }
    }
    if {$outer == 4} {
        return [dict merge $a [dict create local 192.168.100.$me remote 192.168.100.$peer]]
    }
    return [dict merge $a [dict create local 2001:db8:ff::$me remote 2001:db8:ff::$peer]]
}

# The config text of SIDE (edge or region) for the options dict OPTS
# (see start_twosite).
proc twosite_conf {side opts} {
    set o [_twosite_opts $opts]
    set a [twosite_addrs $side [dict get $o outer]]
    if {$side eq "edge"} {
        set host h1; set lan 10.1.1.1/24; set lan6 2001:db8:1::1/64
        set far 10.2.2.0/24; set far6 2001:db8:2::/64
        set tunnel to-region; set group region; set sfx ""; set inner 10.99.0.1/30
    } else {
        set host h2; set lan 10.2.2.1/24; set lan6 2001:db8:2::1/64
        set far 10.1.1.0/24; set far6 2001:db8:1::/64
        set tunnel to-edge; set group edge; set sfx "-b"; set inner 10.99.0.2/30
    }
    set inneraddr [expr {[dict get $o inner] ? " address = \"$inner\";" : ""}]
    set routes [dict get $o ${side}_routes]
    if {$routes eq ""} {
        set routes "  { prefix = \"$far\"; path_group = \"$group\"; }"
        if {[dict get $o inner6]} {
            append routes ",\n  { prefix = \"$far6\"; path_group = \"$group\"; }"
        }
    }
    set lanaddr [expr {[dict get $o inner6]
                       ? "addresses = \[ \"$lan\", \"$lan6\" \];"
                       : "address = \"$lan\";"}]
    set more_tunnels [dict get $o ${side}_tunnels]
    if {$more_tunnels ne ""} { set more_tunnels ",\n$more_tunnels" }
    set more_groups [dict get $o ${side}_groups]
    if {$more_groups ne ""} { set more_groups ",\n$more_groups" }
    set pfx [lab_prefix]
    set ports {}; set ifaces {}; set paths {}
    for {set n 1} {$n <= [dict get $o lines]} {incr n} {
        set p [dict get $o plane$n]
        set plane [expr {$p eq "" ? "" : " plane = $p;"}]
        set extra [dict get $o path$n]
        if {$extra ne ""} { set extra " $extra" }
        lappend ports "  { name = \"line$n\"; devargs = \"net_af_packet$n,iface=$pfx-line$n$sfx\"; }"
        lappend ifaces "  { name = \"line$n\"; port = \"line$n\"; address = \"[dict get $a line$n]\"; }"
        lappend paths "      { name = \"p-line$n\"; tunnel = \"$tunnel\"; interface = \"line$n\"; via = \"[dict get $a via$n]\";$plane$extra }"
    }
    set text "
workers = { cores = \[ 1 \]; idle_sleep_us = 100; };
ports = (
  { name = \"lan\";   devargs = \"net_af_packet0,iface=@$host@\"; },
[join $ports ",\n"]
);
interfaces = (
  { name = \"lan\";   port = \"lan\";   $lanaddr },
[join $ifaces ",\n"]
);
tunnels = (
  { name = \"$tunnel\"; type = \"[dict get $o type]\"; vni = 1000;
    local = \"[dict get $a local]\"; remote = \"[dict get $a remote]\";$inneraddr }$more_tunnels
);
path_groups = (
  { name = \"$group\";
    paths = (
[join $paths ",\n"]
    ); }$more_groups
);
routes = (
$routes
);
[dict get $o ${side}_extra]
"
    return $text
}

# start_twosite OPTS BODY: see the top of this file.
proc start_twosite {opts body} {
    set o [_twosite_opts $opts]
    twosite_lab [dict get $o inner6] [dict get $o lines]
    set econf [twosite_conf edge $o]
    set rconf [twosite_conf region $o]
    set check {twosite_died_check edge}
    set n [incr ::twosite::blocks]
    start_vbrd [list conf $econf name edge$n] {
        set ::twosite::inst(edge) $::vbrd::cur
        lappend ::runner::after_checks $check
        set code [catch {
            start_vbrd [list conf $rconf name region$n] {
                set ::twosite::inst(region) $::vbrd::cur
                uplevel 1 $body
            }
        } result ropts]
        set ::runner::after_checks [lsearch -all -inline -not -exact $::runner::after_checks $check]
        unset -nocomplain ::twosite::inst(region)
        if {$code == 1} { return -options $ropts $result }
    }
    unset -nocomplain ::twosite::inst(edge)
}

# on_vbrd NAME SCRIPT: run SCRIPT in the caller with the harness's vbrd
# commands (vbrctl, stat, drops, iface_stat, vbrd_log_tail ...) aimed at
# vbrd NAME (edge or region); return its result.
proc on_vbrd {name script} {
    if {![info exists ::twosite::inst($name)]} {
        error "on_vbrd: no running vbrd '$name'"
    }
    set saved $::vbrd::cur
    set mine [expr {[dict get $saved instance] eq [dict get $::twosite::inst($name) instance]}]
    if {!$mine} { set ::vbrd::cur $::twosite::inst($name) }
    set code [catch {uplevel 1 $script} result opts]
    if {!$mine} {
        set ::twosite::inst($name) $::vbrd::cur
        set ::vbrd::cur $saved
    }
    return -options $opts $result
}

# twosite_vbrctl NAME ARGS...: `vbrctl -j ARGS` against vbrd NAME, as a dict.
proc twosite_vbrctl {name args} {
    return [on_vbrd $name [list vbrctl {*}$args]]
}

# The entry of NAME's `show tunnels` (its only tunnel): dict name type vni
# local remote udp_port mtu rx_packets rx_bytes tx_packets tx_bytes.
proc twosite_tunnel {name} {
    return [lindex [dict get [twosite_vbrctl $name show tunnels] tunnels] 0]
}

# The entry of NAME's `show paths` (its only path group): dict name active
# switches paths {...}.
proc twosite_group {name} {
    return [lindex [dict get [twosite_vbrctl $name show paths] path_groups] 0]
}

# Frames line LINE carried in direction DIR (a2b = edge -> region, b2a =
# region -> edge), as the impair tool counted them (read on its side).
proc twosite_line_frames {line dir} {
    return [dict get [impair_stats $line] $dir rx]
}

# After every test: "" while vbrd NAME runs, else why it is gone (the
# innermost vbrd, the region, is checked by start_vbrd itself).
proc twosite_died_check {name} {
    if {![info exists ::twosite::inst($name)]} { return "" }
    set pid [dict get $::twosite::inst($name) pid]
    if {$pid == 0 || ![lab_exited $pid]} { return "" }
    set ::runner::broken "vbrd $name is no longer running"
    return "vbrd $name died during the test:\n[on_vbrd $name {vbrd_log_tail}]"
}

# twosite_capture LINE IF FILTER COUNT ?SECONDS?: start tcpdump in line
# LINE's namespace on IF (ifa: edge side, ifb: region side) writing at most
# COUNT packets matching FILTER to a pcap; return {pid file} once it listens.
# It exits after COUNT packets or SECONDS (default 10).
proc twosite_capture {line ifname filter count {seconds 10}} {
    set file [lab_file $line.pcap]
    set pid [lab_spawn $line -lifetime $seconds \
                 tcpdump -i $ifname -nn -U -c $count -w $file {*}$filter]
    wait_for_condition 50 100 {
        [string match "*listening on*" [lab_spawn_output $pid]] || [lab_exited $pid]
    } else {
        fail "tcpdump on $line $ifname did not start:\n[lab_spawn_output $pid]"
    }
    if {[lab_exited $pid]} {
        fail "tcpdump on $line $ifname exited:\n[lab_spawn_output $pid]"
    }
    return [list $pid $file]
}

# Decoded lines of a pcap (tcpdump -nn -r FILE ARGS).
proc twosite_pcap_text {file args} {
    return [lab_exec - tcpdump -nn -r $file {*}$args]
}
