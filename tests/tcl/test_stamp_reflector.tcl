# The STAMP session-reflector (RFC 8762 §4.3) answers nobody unless the
# config says so: without a pathsel section it is off; with one it answers
# test packets that come out of a configured tunnel (a remote gateway of
# ours) and plain ones only from pathsel.reflect_from; at most
# reflect_rate replies a second; and its stateful session table evicts the
# session seen longest ago instead of refusing new ones, so that a flood
# of spoofed senders cannot silence a legitimate one.
#
#   h1 10.0.1.2 ── lan 10.0.1.1 [vbrd]
#
# The senders: tools/stamp_peer.py sender (a real Session-Sender on h1,
# counting the answers) and tools/stamp_craft.py send (raw test packets,
# spoofed sources with --src-count).

set tools [file join [file dirname [file normalize [info script]]] tools]
lab_host h1 10.0.1.2/24 10.0.1.1

proc conf {pathsel} {
    return "
ports = ( { name = \"p0\"; devargs = \"net_af_packet0,iface=@h1@\"; } );
interfaces = ( { name = \"lan\"; port = \"p0\"; address = \"10.0.1.1/24\"; } );
$pathsel
"
}

proc reload_with {pathsel} {
    vbrd_rewrite_config [conf $pathsel]
    vbrctl reload
}

# The last JSON line a tool printed, as a dict.
proc json_report {out} {
    foreach line [lreverse [split $out "\n"]] {
        if {[string index $line 0] eq "\{"} { return [json::json2dict $line] }
    }
    fail "no JSON report in:\n$out"
}

# A real Session-Sender on h1: COUNT probes, its report (sent, lost, packets).
proc probe {count} {
    return [json_report [lab_exec h1 /usr/bin/python3 [file join $::tools stamp_peer.py] sender \
                             --dst 10.0.1.1 --count $count --interval 10 --src-port 41000 --timeout 1]]
}

proc craft {args} {
    return [dict get [json_report [lab_exec h1 /usr/bin/python3 [file join $::tools stamp_craft.py] \
                                       send --dst 10.0.1.1 {*}$args]] sent]
}

proc refl {key} { return [dict get [dict get [vbrctl show pathsel] reflector] $key] }

start_vbrd [list conf [conf ""]] {
    test {no pathsel section: the reflector is off; 10 test packets are dropped as stamp_reflector_off, none answered} {
        assert_equal [refl mode] off "reflector mode"
        set d0 [drops stamp_reflector_off]
        assert_equal [craft --src 10.0.1.2 --count 10] 10 "sent"
        wait_for_condition 50 20 {[drops stamp_reflector_off] - $d0 == 10} else {
            fail "stamp_reflector_off counted [expr {[drops stamp_reflector_off] - $d0}] of 10"
        }
        set rep [probe 5]
        assert_equal [dict get $rep lost] 5 "probes answered by a reflector that is off"
        assert_equal [refl answered] 0 "answered"
    }

    test {a pathsel section without reflect_from: a plain sender is not answered (stamp_reflector_denied)} {
        reload_with {pathsel = { reflector = "stateful"; };}
        assert_equal [refl mode] stateful "reflector mode"
        set d0 [drops stamp_reflector_denied]
        set rep [probe 5]
        assert_equal [dict get $rep lost] 5 "probes answered"
        wait_for_condition 50 20 {[drops stamp_reflector_denied] - $d0 == 5} else {
            fail "stamp_reflector_denied counted [expr {[drops stamp_reflector_denied] - $d0}] of 5"
        }
    }

    test {reflect_from 10.0.0.0/16: the sender on h1 gets every answer} {
        reload_with {pathsel = { reflector = "stateful"; reflect_from = [ "10.0.0.0/16" ]; };}
        assert_equal [dict get [vbrctl show pathsel] reflector reflect_from] {10.0.0.0/16} "reflect_from shown"
        set rep [probe 20]
        assert_equal [dict get $rep lost] 0 "lost"
        set want {}
        for {set i 0} {$i < 20} {incr i} { lappend want $i }
        assert_equal [lmap p [dict get $rep packets] {dict get $p reflector_seq}] $want \
            "stateful numbering of the session"
    }

    test {6000 spoofed senders fill the 4096-session table: it evicts, and the legitimate sender still gets 20 of 20} {
        reload_with {pathsel = { reflector = "stateful"; reflect_from = [ "10.0.0.0/16" ]; reflect_rate = 1000000; };}
        set e0 [refl evicted]
        set s0 [refl sessions]
        # 10.0.100.0 .. 10.0.123.111: within reflect_from, each its own session
        assert_equal [craft --src 10.0.100.0 --src-count 6000 --count 6000 --sport 40001] 6000 "sent"
        wait_for_condition 100 50 {[refl sessions] - $s0 >= 5900} else {
            fail "sessions begun: [expr {[refl sessions] - $s0}] of 6000"
        }
        set ev [expr {[refl evicted] - $e0}]
        note "sessions begun [expr {[refl sessions] - $s0}], evicted $ev"
        assert_morethan $ev 1000 "sessions evicted (4096 slots for 6000 senders)"
        set rep [probe 20]
        assert_equal [dict get $rep lost] 0 "the legitimate sender's probes lost after the flood"
    }

    test {reflect_rate 500: a flood of 5000 test packets gets at most 500 a second and a burst, the rest dropped as stamp_reflector_rate} {
        reload_with {pathsel = { reflector = "stateless"; reflect_from = [ "10.0.0.0/16" ]; reflect_rate = 500; };}
        set a0 [refl answered]
        set d0 [drops stamp_reflector_rate]
        set t0 [clock milliseconds]
        assert_equal [craft --src 10.0.1.2 --count 5000] 5000 "sent"
        wait_for_condition 100 50 {[refl answered] - $a0 + [drops stamp_reflector_rate] - $d0 == 5000} else {
            fail "answered [expr {[refl answered] - $a0}] + dropped [expr {[drops stamp_reflector_rate] - $d0}] != 5000"
        }
        set secs [expr {([clock milliseconds] - $t0) / 1000.0}]
        set answered [expr {[refl answered] - $a0}]
        note "answered $answered of 5000 in [format %.2f $secs] s"
        # the upper bound only: a slow machine answers fewer, never more
        assert_lessthan $answered [expr {int(500 * $secs) + 50 + 1}] "answered (500/s over the flood, 50 of burst)"
        assert_morethan [expr {[drops stamp_reflector_rate] - $d0}] 0 "stamp_reflector_rate"
    }
}
