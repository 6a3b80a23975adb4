# Breaking path selection (failover/ps_*.c): findings of a breaker session
# as regression tests. Each test says whether it FAILS on the code it was
# written against (a bug to fix) or passes (vbrd handles it).
#
#   h1 -- [edge] line1..3 ══ impair ══ [region] -- h2   (harness/ps_lab.tcl)

source [file join [file dirname [file normalize [info script]]] harness ps_lab.tcl]

set tools [file join [file dirname [file normalize [info script]]] tools]

proc json_report {out} {
    foreach line [lreverse [split $out "\n"]] {
        if {[string index $line 0] eq "\{"} { return [json::json2dict $line] }
    }
    fail "no JSON report in:\n$out"
}

proc craft {host args} {
    return [dict get [json_report [lab_exec $host /usr/bin/python3 [file join $::tools stamp_craft.py] send {*}$args]] sent]
}

# Frames on LINE's edge side between two reflectors' port 862 (no tunnel).
proc refl_pingpong {line seconds} {
    lassign [twosite_capture $line ifa {udp src port 862 and udp dst port 862} 100000 $seconds] pid file
    lab_wait_exit $pid [expr {($seconds + 5) * 1000}]
    set n 0
    catch {set n [llength [split [string trim [twosite_pcap_text $file]] "\n"]]}
    return $n
}

# The edge's config with its path group (and route, and selection) renamed NAME.
proc edge_conf_named {opts name} {
    return [string map [list {"region"} "\"$name\""] [twosite_conf edge $opts]]
}

proc reload_edge {text} {
    on_vbrd edge {
        vbrd_rewrite_config $text
        lassign [vbrctl_raw reload] rc out
    }
    return [list $rc $out]
}

set opts16 [ps_lab_opts planes 16 interval 50 ps_conf default]
start_twosite $opts16 {
    # Passes. 16 planes x 3 paths = 48 probe slots a generation: 200 renames
    # of the group (a new run-time group each time) would use up the 8192
    # slots after ~170 if a reload leaked the old group's.
    test {200 reloads renaming the selected group leak no probe slot} {
        set t0 [clock milliseconds]
        for {set i 1} {$i <= 200} {incr i} {
            lassign [reload_edge [edge_conf_named $::opts16 r$i]] rc out
            if {$rc != 0} { fail "reload $i: exit $rc: $out" }
        }
        note "200 reloads in [expr {[clock milliseconds] - $t0}] ms"
        set n [llength [dict get [on_vbrd edge {vbrctl show pathsel planes r200}] planes]]
        assert_equal $n 48 "probe sessions of r200"
        lassign [on_vbrd edge {vbrctl_raw show pathsel planes r199}] rc out
        assert_equal $rc 1 "show pathsel planes of the group renamed away: $out"
    }

    # Passes. The planes of one live path change across reloads (16 -> 1 ->
    # no key -> 16): the group's probes follow, nothing crashes.
    test {changing a live path's planes across reloads: probes follow} {
        foreach planes {1 4 0 16} {
            set o [ps_lab_opts planes 16 interval 50 ps_conf default path1 \
                       [expr {$planes ? "cost = 30; tier = \"gold\"; planes = $planes;" : "cost = 30; tier = \"gold\";"}]]
            lassign [reload_edge [twosite_conf edge $o]] rc out
            if {$rc != 0} { fail "reload planes $planes: exit $rc: $out" }
            set n 0
            foreach p [dict get [on_vbrd edge {vbrctl show pathsel planes region}] planes] {
                if {[dict get $p path] eq "p-line1"} { incr n }
            }
            assert_equal $n [expr {$planes ? $planes : 1}] "probe sessions of p-line1 with planes $planes"
        }
    }

    # Passes. Bad control requests get an error reply; vbrd keeps answering.
    test {show pathsel planes/history with odd arguments: error replies, no crash} {
        lassign [on_vbrd edge {vbrctl_raw show pathsel planes NOSUCH}] rc out
        assert_equal $rc 1 "show pathsel planes NOSUCH: $out"
        assert_match "*no path selection for path group 'NOSUCH'*" $out
        set big [string repeat x 5000]
        foreach args [list [list show pathsel planes $big] [list show pathsel history $big] \
                          [list show pathsel history a b c d e f] [list show pathsel planes "" ""]] {
            lassign [on_vbrd edge [list vbrctl_raw {*}$args]] rc out
            note "[string range $args 0 40]...: exit $rc: [string range $out 0 80]"
        }
        assert_equal [llength [dict get [on_vbrd edge {vbrctl show pathsel planes}] planes]] 48 "still answering"
    }
}

start_twosite [ps_lab_opts planes 2 ps_conf default] {
    # FAILS before a fix. A test packet from UDP port 862 (a reflector's
    # own port) is answered to port 862: one forged packet with the source
    # of the other vbrd's line address starts a reflector ping-pong
    # between the two vbrds that never ends (RFC 8762 §4: the
    # Session-Sender's port is not the reflector's; the classic
    # echo/chargen loop). It should be dropped under a named counter.
    test {a STAMP test packet from port 862 starts no reflector ping-pong between two vbrds} {
        set sent [craft h1 --src 172.16.1.2 --dst 172.16.1.1 --sport 862 --dport 862 --kind test --count 1]
        assert_equal $sent 1 "crafted packets sent"
        # wait a while, then count what still runs between the two
        after 1000
        set n [refl_pingpong line1 2]
        note "frames 862 <-> 862 on line1 in 2 s, 1 s after one forged packet: $n"
        assert_lessthan $n 3 "frames between the reflectors"
    }
}
