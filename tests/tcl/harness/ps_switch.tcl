# Helpers of the path-selection switching tests (test_ps_switch*.tcl), on
# the three-line lab of harness/ps_lab.tcl (sourced here).
#
#   ps_group SIDE             -> SIDE's only entry of `show pathsel` (dict)
#   ps_tier SIDE TIER         -> the path TIER (gold, silver, bronze) uses on SIDE
#   ps_path SIDE PATH         -> the entry of path PATH in SIDE's `show pathsel`
#   ps_events SIDE ?SINCE_US? ?KEY VALUE ...?
#                             -> `show pathsel history` events of SIDE whose
#                                time_us >= SINCE_US and whose KEY is VALUE
#   ps_wait_settled PLANES TIERS ?TRIES?
#                             precondition of a test: on both sides every path
#                             has PLANES healthy planes, and the edge's tiers
#                             are on the paths of the dict TIERS
#                             ({gold p-line1 bronze p-line1}), and neither side
#                             logged an event for 300 ms; fails with both
#                             sides' `show pathsel` otherwise
#   ps_now_us                 wall-clock µs (what time_us of the history is in)
#   ps_flaps, ps_unexplained, ps_events_text: see "Hard failures nobody caused" below
#
#   ps_port_counters PORTS    count, on each line, the VXLAN frames the edge
#                             sends whose inner UDP destination port is in
#                             PORTS (nft counters on the ingress of the line's
#                             ifa: the frames as they enter the line, before
#                             the impair tool drops any)
#   ps_port_frames            -> dict line1 {PORT N ...} line2 {...} line3 {...}
#   ps_frames_delta A B       -> B - A per line and port (ps_port_frames dicts)
#
#   ps_flow_planes LINE PORT COUNT
#                             -> dict inner UDP source port -> list of outer
#                                UDP source ports (planes) seen, from COUNT
#                                VXLAN frames edge -> region on LINE whose
#                                inner destination port is PORT (tcpdump on
#                                the line's ifa)
#
# Everything lives in the lab's namespaces: lab_cleanup removes it.

source [file join [file dirname [file normalize [info script]]] ps_lab.tcl]

proc ps_group {side} { return [lindex [dict get [ps_paths $side] path_groups] 0] }

proc ps_tier {side tier} { return [dict get [ps_group $side] $tier] }

proc ps_path {side path} {
    foreach p [dict get [ps_group $side] paths] {
        if {[dict get $p name] eq $path} { return $p }
    }
    error "ps_path: $side has no path '$path'"
}

proc ps_events {side {since 0} args} {
    set out {}
    foreach e [dict get [twosite_vbrctl $side show pathsel history] events] {
        if {[dict get $e time_us] < $since} { continue }
        set ok 1
        foreach {k v} $args {
            if {[dict get $e $k] ne $v} { set ok 0; break }
        }
        if {$ok} { lappend out $e }
    }
    return $out
}

proc ps_now_us {} { return [clock microseconds] }

# One line per path of SIDE: name, healthy planes, the tiers, RTT, loss.
proc ps_paths_text {side} {
    set g [ps_group $side]
    set text "$side: gold [dict get $g gold] silver [dict get $g silver] bronze [dict get $g bronze]"
    foreach p [dict get $g paths] {
        append text "\n  [dict get $p name]: healthy_planes [dict get $p healthy_planes],\
            rtt_recent_us [dict get $p rtt_recent_us], loss_pct [dict get $p loss_pct]"
    }
    return $text
}

proc ps_settled {planes tiers} {
    # quiet: no event on either side for the last 300 ms
    set since [expr {[ps_now_us] - 300000}]
    foreach side {edge region} {
        if {[ps_events $side $since] ne ""} { return 0 }
    }
    foreach side {edge region} {
        foreach p [dict get [ps_group $side] paths] {
            if {[dict get $p healthy_planes] != $planes} { return 0 }
        }
    }
    dict for {tier path} $tiers {
        if {[ps_tier edge $tier] ne $path} { return 0 }
    }
    return 1
}

proc ps_wait_settled {planes tiers {tries 400}} {
    wait_for_condition $tries 100 {[ps_settled $planes $tiers]} else {
        fail "not settled (every path $planes healthy planes, edge tiers $tiers):\n[ps_paths_text edge]\n[ps_paths_text region]"
    }
}

# Inner UDP destination port of a VXLAN frame: outer UDP header 8 + VXLAN
# 8 + inner Ethernet 14 + inner IPv4 20 (no options) + 2 bytes into the
# inner UDP header = byte 52 after the outer UDP header, bit 416.
proc ps_port_counters {ports} {
    set ::ps::counted_ports $ports
    foreach line {line1 line2 line3} {
        set table "[lab_prefix]_ports_$line"
        set text "table netdev $table {\n"
        foreach p $ports { append text "  counter p$p { }\n" }
        append text "  chain in {\n    type filter hook ingress device \"ifa\" priority 0; policy accept;\n"
        foreach p $ports {
            append text "    udp dport 4789 @th,416,16 $p counter name p$p\n"
        }
        append text "  }\n}\n"
        set f [lab_file nft-$table.conf]
        _lab_write $f $text
        lab_exec $line nft -f $f
    }
}

proc ps_port_frames {} {
    set out [dict create]
    foreach line {line1 line2 line3} {
        set table "[lab_prefix]_ports_$line"
        set j [json::json2dict [lab_exec $line nft -j list counters table netdev $table]]
        set d [dict create]
        foreach item [dict get $j nftables] {
            if {[dict exists $item counter name]} {
                dict set d [string range [dict get $item counter name] 1 end] \
                    [dict get $item counter packets]
            }
        }
        dict set out $line $d
    }
    return $out
}

proc ps_frames_delta {a b} {
    set out [dict create]
    dict for {line ports} $b {
        dict for {p n} $ports {
            dict set out $line $p [expr {$n - [dict get $a $line $p]}]
        }
    }
    return $out
}

proc ps_flow_planes {line port count} {
    # -T vxlan: tcpdump would decode port 49152 (plane 0) as BCM-LI-SHIM.
    lassign [twosite_capture $line ifa "udp dst port 4789 and udp\[52:2\] = $port" $count 10] pid file
    if {![lab_wait_exit $pid 15000]} {
        fail "tcpdump on $line saw fewer than $count frames of port $port"
    }
    set text [twosite_pcap_text $file -T vxlan]
    set out [dict create]
    set re "IP \[0-9.\]+\\.(\\d+) > \[0-9.\]+\\.4789: VXLAN\[^\\n\]*\\n\\s*IP 10\\.1\\.1\\.2\\.(\\d+) > 10\\.2\\.2\\.2\\.$port:"
    foreach {- outer inner} [regexp -all -inline $re $text] {
        if {![dict exists $out $inner] || $outer ni [dict get $out $inner]} {
            dict lappend out $inner $outer
        }
    }
    if {[dict size $out] == 0} {
        fail "no VXLAN frame of port $port decoded on $line:\n[string range $text 0 2000]"
    }
    return $out
}

# Hard failures nobody caused: on this shared 2-core machine a line's
# impair tool or a vbrd is now and then descheduled for 20-110 ms; a hiccup
# longer than the probe timeout (15 ms) plus lost_down intervals fails
# every plane of the paths it touches at once (path_down, plane_lost) and
# their tiers switch for hard_failure, then back. Such a switch is a real
# decision of vbrd, but not one the test's impairment caused:
#
#   ps_flaps SIDE SINCE_US    -> the path_down events of SIDE since SINCE_US
#   ps_unexplained SIDE SINCE_US TIER HOME
#       -> the switches of TIER since SINCE_US that are neither a hard
#          failure of the path it left (hard_failure or no_path, with a
#          path_down of that path in the same decision batch), nor the
#          first path back after no_path (from none, restored), nor a
#          return to path HOME
proc ps_flaps {side since} { return [ps_events $side $since event path_down] }

proc ps_unexplained {side since tier home} {
    set all [ps_events $side $since]
    set out {}
    foreach e $all {
        if {[dict get $e event] ne "switch" || [dict get $e tier] ne $tier} { continue }
        if {[dict get $e new] eq $home} { continue }
        if {[dict get $e old] eq "" && [dict get $e reason] eq "restored"} { continue }
        set down 0
        if {[dict get $e reason] in {hard_failure no_path}} {
            foreach d $all {
                if {[dict get $d event] eq "path_down" && [dict get $d batch] == [dict get $e batch]
                    && [dict get $d new] eq [dict get $e old]} {
                    set down 1
                }
            }
        }
        if {!$down} { lappend out $e }
    }
    return $out
}

# "PATH at +MS" for each of EVENTS, relative to SINCE_US.
proc ps_events_text {events since} {
    return [join [lmap e $events {
        format "%s %s%s %s->%s (%s) at %+.1f ms" [dict get $e event] [dict get $e tier] [expr {[dict get $e plane] >= 0 ? "plane [dict get $e plane]" : ""}] \
            [dict get $e old] [dict get $e new] [dict get $e reason] \
            [expr {([dict get $e time_us] - $since) / 1000.0}]
    }] "; "]
}
