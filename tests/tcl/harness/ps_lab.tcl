# The path-selection lab: the two-site lab (harness/twosite.tcl) with
# three lines, one path per line in each side's path group, the way the
# ZooRoute-style path selection (STAMP probes per path × plane, RFC 8762)
# will be tested.
#
#   h1 ── [edge] line1 ══ impair ══ line1 [region] ── h2   p-line1 cost 30 tier gold
#                line2 ══ impair ══ line2                  p-line2 cost 20 tier silver
#                line3 ══ impair ══ line3                  p-line3 cost 10 tier bronze
#
# edge: group "region" = p-line1, p-line2, p-line3; region: group "edge"
# likewise (p-line1 first: the active path until something switches).
# Every path has `planes = N` (outer UDP source ports 49152+0 .. 49152+N-1)
# when the option planes is > 0. Frames on a line are VXLAN over IPv4 in
# untagged Ethernet (no VLAN in this lab), 172.16.K.1 (edge) <-> .2.
#
#   ps_lab_opts ?KEY VALUE ...?   -> start_twosite options of the lab
#       planes N     planes per path (default 4; 0 = no `planes` key, what
#                    vbrd accepts until the key lands)
#       interval MS  probe interval of the default pathsel section
#                    (default 10)
#       ps_conf TEXT a pathsel section put into both vbrds: "" (the
#                    default) = none, "default" = pathsel = { groups
#                    = ( { path_group = GROUP; interval = MS; } ); }; any
#                    other text is used as it is, after replacing @group@
#                    with the side's group name ("region" on the edge,
#                    "edge" on the region) and @interval@ with MS
#       any start_twosite option (type, outer, inner, plane1 .., edge_extra,
#       region_extra ...) is passed on; edge_extra/region_extra follow the
#       pathsel section. pathK replaces the cost/tier text of p-lineK.
#
#   ps_impair LINE KEY VALUE ?KEY VALUE ...?   an impair setting on LINE in
#       both directions (impair's units: delay and jitter in ms ONE WAY, so
#       `delay 60` adds 120 ms to a round trip over LINE; loss in percent)
#   ps_heal LINE          delay, jitter and loss 0 both ways (plane drops stay)
#   ps_blackhole LINE     loss 100 both ways (a silent cut; ps_heal ends it)
#
#   ps_drop_plane LINE SPORTS   drop, on LINE in both directions, every frame
#       whose outer UDP source or destination port is in SPORTS (a port or a
#       list of ports, e.g. 49153 = plane 1); replaces the previous drop of
#       LINE; returns nothing. The counters restart at 0.
#   ps_undrop_plane LINE   stop dropping (the counters stay readable)
#   ps_plane_drops LINE    -> dict a2b N b2a N: frames dropped since the last
#       ps_drop_plane (a2b = edge -> region)
#
#   ps_stream_start PPS SECONDS ?PORT?   a seqstream (harness/stream.tcl)
#       h1 -> h2 (10.2.2.2, UDP PORT, default 5001): PPS sequence-numbered
#       datagrams/s for SECONDS -> handle (dict recv PID send PID)
#   ps_stream_result HANDLE   -> the receiver's report (received, lost,
#       reordered, max_gap_ms ...; see stream.tcl) with key sender: the
#       sender's report; waits for both to end
#   ps_stream_gap REPORT      -> max_gap_ms (the longest outage, sender time)
#   ps_stream_reordered REPORT -> reordered (datagrams that came after a
#       higher sequence number)
#
#   ps_paths SIDE         -> `vbrctl -j show pathsel` of SIDE (edge or region)
#       as a dict, whatever vbrd prints (today: path_groups {name active
#       switches paths {...}}; the path-selection fields come with it)
#   ps_history SIDE ?GROUP?  -> the events of `vbrctl -j show pathsel history
#       [GROUP]` of SIDE, oldest first: a list of dicts (time_us group event
#       tier old new plane reason ... detect_to_switch_ns batch)
#   ps_switches EVENTS ?FROM_US? ?TO_US?  -> the switch events of EVENTS
#       whose time_us (the wall clock, µs, as `clock microseconds` gives
#       it) is in [FROM_US, TO_US) (default: all). By time, not by batch: a
#       request can be answered before the control thread has taken the
#       latest events from the worker (app/main.c answers, then polls), so
#       "the last batch so far" may leave out an event that happened before
#       the request.
#
# Plane drops: nftables in the line's namespace, table PREFIX_ps_LINE
# (netdev family) with an EGRESS chain on each middle interface: ifb
# (frames the impair tool sends towards the region: a2b) and ifa (towards
# the edge: b2a). Not ingress: a packet socket, like the impair tool's,
# gets a frame before the ingress hook runs (__netif_receive_skb_core
# delivers to ptype_all taps first; see blackhole.tcl), so an ingress rule
# would count frames but not keep them from the tool. The egress hook
# (Linux >= 5.16) runs for frames sent from a packet socket too. A frame is
# dropped when its outer UDP source port OR destination port matches: the
# edge's probes of plane K leave with source port 49152+K, and a reflector
# that answers to the sender's port puts that port in the destination
# (vbrd's own replies keep the plane's port as their source). The impair
# tool still counts a dropped frame as rx and tx (it sends it; the kernel
# drops it after): count drops with ps_plane_drops, not impair_stats.
#
# Cleanup: all of it lives in lab namespaces and lab_spawn processes, which
# lab_cleanup (run.tcl, run-tests.sh) deletes even when a test fails.
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [file normalize [info script]]] harness ps_lab.tcl]

set _ps_dir [file dirname [file normalize [info script]]]
source [file join $_ps_dir twosite.tcl]
source [file join $_ps_dir stream.tcl]
unset _ps_dir

namespace eval ps {
    # Paths of the lab in line order: cost and tier of p-line1 .. p-line3.
    variable paths {1 {30 gold} 2 {20 silver} 3 {10 bronze}}
    # line -> 1 once its nft table exists
    variable tables
    array set tables {}
}

proc ps_lab_opts {args} {
    set o [dict create planes 4 interval 10 ps_conf "" edge_extra "" region_extra ""]
    set pass {}
    foreach {k v} $args {
        if {[dict exists $o $k]} {
            dict set o $k $v
        } else {
            dict set pass $k $v
        }
    }
    if {[dict exists $pass lines]} {
        error "ps_lab_opts: the lab has three lines"
    }
    set planes [dict get $o planes]
    if {![string is integer -strict $planes] || $planes < 0 || $planes > 16} {
        error "ps_lab_opts: planes wants 0..16, got '$planes'"
    }
    set opts [dict create type vxlan lines 3]
    dict for {n ct} $::ps::paths {
        lassign $ct cost tier
        set text "cost = $cost; tier = \"$tier\";"
        if {$planes > 0} { append text " planes = $planes;" }
        dict set opts path$n $text
    }
    foreach side {edge region} group {region edge} {
        set ps [_ps_section [dict get $o ps_conf] $group [dict get $o interval]]
        dict set opts ${side}_extra "$ps\n[dict get $o ${side}_extra]"
    }
    return [dict merge $opts $pass]
}

# The pathsel section for the group GROUP from the ps_conf option.
proc _ps_section {conf group interval} {
    if {$conf eq ""} { return "" }
    if {$conf eq "default"} {
        return "pathsel = {
  groups = ( { path_group = \"$group\"; interval = $interval; } );
};"
    }
    return [string map [list @group@ $group @interval@ $interval] $conf]
}

proc ps_impair {line args} {
    if {[llength $args] == 0 || [llength $args] % 2} {
        error "usage: ps_impair LINE KEY VALUE ?KEY VALUE ...?"
    }
    foreach {k v} $args {
        if {$k ni {delay jitter loss}} {
            error "ps_impair: KEY is delay, jitter or loss, got '$k'"
        }
        # Without a suffix the tool sets both directions.
        impair_set $line $k $v
    }
}

proc ps_heal {line} { impair_set $line delay 0 jitter 0 loss 0 }

proc ps_blackhole {line} { impair_set $line loss 100 }

proc ps_drop_plane {line sports} {
    foreach p $sports {
        if {![string is integer -strict $p] || $p < 1 || $p > 65535} {
            error "ps_drop_plane: '$p' is not a UDP port"
        }
    }
    set table [_ps_table $line]
    set set "{ [join $sports ", "] }"
    # One transaction (rules and counters replaced at one instant; `reset
    # counter` would run outside it, before the rules change).
    set text [_ps_table_text $line]
    append text "flush chain netdev $table a2b
flush chain netdev $table b2a
delete counter netdev $table a2b
delete counter netdev $table b2a
add counter netdev $table a2b
add counter netdev $table b2a
"
    foreach dir {a2b b2a} {
        append text "add rule netdev $table $dir udp sport $set counter name $dir drop
add rule netdev $table $dir udp dport $set counter name $dir drop
"
    }
    _ps_nft $line $table $text
}

proc ps_undrop_plane {line} {
    set table [_ps_table $line]
    if {![info exists ::ps::tables($line)]} { return }
    _ps_nft $line $table "flush chain netdev $table a2b
flush chain netdev $table b2a
"
}

proc ps_plane_drops {line} {
    set table [_ps_table $line]
    set out [dict create a2b 0 b2a 0]
    if {![info exists ::ps::tables($line)]} { return $out }
    set j [json::json2dict [lab_exec $line nft -j list counters table netdev $table]]
    foreach item [dict get $j nftables] {
        if {[dict exists $item counter name]} {
            dict set out [dict get $item counter name] [dict get $item counter packets]
        }
    }
    return $out
}

# The text creating LINE's table (the first time only): a2b on ifb's
# egress (towards the region), b2a on ifa's (towards the edge).
proc _ps_table_text {line} {
    if {[info exists ::ps::tables($line)]} { return "" }
    set table [_ps_table $line]
    return "table netdev $table {
  counter a2b { }
  counter b2a { }
  chain a2b {
    type filter hook egress device \"ifb\" priority 0; policy accept;
  }
  chain b2a {
    type filter hook egress device \"ifa\" priority 0; policy accept;
  }
}
"
}

proc _ps_nft {line table text} {
    set f [lab_file nft-$table.conf]
    _lab_write $f $text
    lab_exec $line nft -f $f
    set ::ps::tables($line) 1
}

proc _ps_table {line} { return "[lab_prefix]_ps_$line" }

proc ps_stream_start {pps seconds {port 5001}} {
    # The receiver outlives the sender by a margin for start-up on a
    # stalled machine; it ends at the sender's end marker anyway.
    set r [stream_recv h2 $port [expr {$seconds + 15}]]
    set s [stream_send h1 10.2.2.2 $port $pps $seconds]
    return [dict create recv $r send $s]
}

proc ps_stream_result {handle} {
    set sent [stream_result [dict get $handle send]]
    set rep [stream_result [dict get $handle recv]]
    dict set rep sender $sent
    return $rep
}

proc ps_stream_gap {rep} { return [dict get $rep max_gap_ms] }

proc ps_stream_reordered {rep} { return [dict get $rep reordered] }

proc ps_paths {side} { return [twosite_vbrctl $side show pathsel] }

proc ps_history {side {group ""}} {
    set args [list show pathsel history]
    if {$group ne ""} { lappend args $group }
    return [dict get [twosite_vbrctl $side {*}$args] events]
}

proc ps_switches {events {from ""} {to ""}} {
    set out {}
    foreach e $events {
        set t [dict get $e time_us]
        if {[dict get $e event] ne "switch"} { continue }
        if {$from ne "" && $t < $from} { continue }
        if {$to ne "" && $t >= $to} { continue }
        lappend out $e
    }
    return $out
}
