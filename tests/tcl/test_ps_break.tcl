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
