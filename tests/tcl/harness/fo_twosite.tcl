# Failover between two vbrds: the two-site lab (harness/twosite.tcl) with
# BFD between the vbrds and a failover group on the edge. Two designs:
#
# Two lines (fo2_lines_opts): every line carries a single-hop session
# (RFC 5881) on each side, l1 and l2, and the edge routes h2's subnet to
# group "uplink" = member0 line1 via 172.16.1.2 (bfd l1), member1 line2
# via 172.16.2.2 (bfd l2); plain routed packets, no tunnel. The region
# routes back by its path group (the tunnel), as twosite does.
#
#   h1 ── [edge] line1 ══ impair ══ line1 [region] ── h2     l1 (member0)
#                line2 ══ impair ══ line2                    l2 (member1)
#
# The DR tunnel (fo2_dr_opts): the region is also the edge's HA partner.
# The edge's group "dr" = member0 line2 via 172.16.2.2 (bfd l2, single-hop,
# plain routed packets to h2's router), member1 path group "region" = the
# VXLAN tunnel to the region over line1 (its first and active path), with
# a tunnel session "dr" (RFC 5883 multihop between the tunnel's inner
# addresses 10.99.0.1 and 10.99.0.2, sent through the path group). When
# line2 fails, the edge encapsulates h2's traffic to the region, which
# decapsulates it and routes it to h2 like any packet. The region being
# both h2's router and the partner is the smallest lab with that property:
# what the test proves is that the partner decapsulates and delivers.
#
#   h1 ── [edge] line1 ══ impair ══ line1 [region] ── h2     tunnel, bfd dr (member1)
#                line2 ══ impair ══ line2                    bfd l2 (member0)
#
# A line fails silently with impair loss 100 both ways (fo2_cut): vbrd's
# af_packet ports see no link change, only BFD can tell.
#
#   fo2_lines_opts ?KEY VALUE ...?  start_twosite options of the two-line design
#   fo2_dr_opts ?KEY VALUE ...?     those of the DR design
#       keys: interval (ms, both sides, default 5), mult (3), hold_down
#       (ms, default 200), revertive (true)
#   fo2_cut LINE / fo2_heal LINE    impair loss 100 / 0 on line1|line2
#   fo2_wait_active SIDE GROUP MEMBER MS   wait until SIDE's GROUP is on MEMBER -> ms
#   fo2_wait_session SIDE NAME STATE MS    fo_wait_session on SIDE -> ms
#   fo2_group_events SIDE GROUP ?SINCE_US?   group GROUP's events in SIDE's
#                                   history (at or after SINCE_US, µs since the epoch)
#   fo2_now_us                      the wall clock in µs, to compare with SINCE_US
#
# On this shared 2-core VM, sessions at 5 ms x 3 flap by themselves now
# and then (both vbrds and the impair tools stalled together: 100+ ms
# without a packet in `show bfd`'s rx_gap_max_us), so a test picks a cut's
# switch by time, not by counting history entries (the history keeps only
# the last 64 events, which flaps fill quickly).
#
# Needs twosite.tcl and failover.tcl (sourced here).

set _fo2_dir [file dirname [file normalize [info script]]]
source [file join $_fo2_dir twosite.tcl]
source [file join $_fo2_dir failover.tcl]
unset _fo2_dir

proc _fo2_opts {args} {
    return [dict merge {interval 5 mult 3 hold_down 200 revertive true} $args]
}

# The bfd section of SIDE with SESSIONS (a list of libconfig session groups).
proc _fo2_bfd {o sessions} {
    return "bfd = {
  transmit_interval = [dict get $o interval]; receive_interval = [dict get $o interval];
  detect_multiplier = [dict get $o mult];
  sessions = (
    [join $sessions ",\n    "]
  );
};"
}

proc _fo2_group {o name m0 m1} {
    return "failover_groups = (
  { name = \"$name\"; mode = \"active-standby\"; revertive = [dict get $o revertive];
    hold_down = [dict get $o hold_down];
    members = (
      $m0,
      $m1
    ); }
);"
}

proc fo2_lines_opts {args} {
    set o [_fo2_opts {*}$args]
    set edge [_fo2_bfd $o {
        {{ name = "l1"; interface = "line1"; peer = "172.16.1.2"; }}
        {{ name = "l2"; interface = "line2"; peer = "172.16.2.2"; }}
    }]
    append edge "\n" [_fo2_group $o uplink \
        {{ interface = "line1"; via = "172.16.1.2"; bfd = "l1"; }} \
        {{ interface = "line2"; via = "172.16.2.2"; bfd = "l2"; }}]
    set region [_fo2_bfd $o {
        {{ name = "l1"; interface = "line1"; peer = "172.16.1.1"; }}
        {{ name = "l2"; interface = "line2"; peer = "172.16.2.1"; }}
    }]
    return [list type vxlan \
                edge_routes {  { prefix = "10.2.2.0/24"; failover_group = "uplink"; }} \
                edge_extra $edge region_extra $region]
}

proc fo2_dr_opts {args} {
    set o [_fo2_opts {*}$args]
    set edge [_fo2_bfd $o {
        {{ name = "l2"; interface = "line2"; peer = "172.16.2.2"; }}
        {{ name = "dr"; path_group = "region"; peer = "10.99.0.2"; }}
    }]
    append edge "\n" [_fo2_group $o dr \
        {{ interface = "line2"; via = "172.16.2.2"; bfd = "l2"; }} \
        {{ path_group = "region"; bfd = "dr"; }}]
    set region [_fo2_bfd $o {
        {{ name = "l2"; interface = "line2"; peer = "172.16.2.1"; }}
        {{ name = "dr"; path_group = "edge"; peer = "10.99.0.1"; }}
    }]
    return [list type vxlan inner 1 \
                edge_routes {  { prefix = "10.2.2.0/24"; failover_group = "dr"; }} \
                edge_extra $edge region_extra $region]
}

# Cut LINE silently, both directions / heal it.
proc fo2_cut {line} { impair_set $line loss 100 }
proc fo2_heal {line} { impair_set $line loss 0 }

proc fo2_wait_active {side group member ms} {
    set t0 [clock milliseconds]
    while {[set a [dict get [on_vbrd $side [list fo_group $group]] active]] ne $member} {
        if {[clock milliseconds] - $t0 > $ms} {
            fail "$side: group $group on $a, not $member, after $ms ms: [on_vbrd $side [list fo_group $group]]"
        }
        after 5
    }
    return [expr {[clock milliseconds] - $t0}]
}

proc fo2_wait_session {side name state ms} {
    return [on_vbrd $side [list fo_wait_session $name $state $ms]]
}

proc fo2_group_events {side group {since_us 0}} {
    set out {}
    foreach e [on_vbrd $side [list fo_events $group]] {
        if {[dict get $e object] eq "fgroup" && [fo_time_us [dict get $e time]] >= $since_us} {
            lappend out $e
        }
    }
    return $out
}

proc fo2_now_us {} { return [clock microseconds] }
