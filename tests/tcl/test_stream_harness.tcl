# The outage-measuring harness on its own, no vbrd: tools/seqstream.py
# (harness/stream.tcl) between two hosts joined by a veth, and nftables
# blackholes (harness/blackhole.tcl) that make outages of a known length.
#
#   s1 eth0 10.0.0.1 ==veth== eth0 10.0.0.2 s2     (fd00::1, fd00::2)

source [file join [file dirname [info script]] harness stream.tcl]
source [file join [file dirname [info script]] harness blackhole.tcl]

lab_netns s1
lab_netns s2
lab_wire s1 eth0 s2 eth0 -ipv6 1
lab_exec s1 ip addr add 10.0.0.1/24 dev eth0
lab_exec s2 ip addr add 10.0.0.2/24 dev eth0
lab_exec s1 ip addr add fd00::1/64 dev eth0 nodad
lab_exec s2 ip addr add fd00::2/64 dev eth0 nodad

# Run a stream s1 -> s2 of PPS for SECONDS on FLOWS flows; run SCRIPT (in
# the caller) once s2 has received MIDWAY packets of it; return {RECEIVER
# SENDER} reports.
proc stream_with {port pps seconds flows midway script} {
    set rx0 [dict get [lab_link_stats s2] rx_packets]
    set r [stream_recv s2 $port [expr {$seconds + 15}]]
    set s [stream_send s1 10.0.0.2 $port $pps $seconds $flows]
    wait_for_condition 500 10 {
        [dict get [lab_link_stats s2] rx_packets] - $rx0 >= $midway || [lab_exited $s]
    } else {
        fail "s2 did not receive $midway packets of the stream"
    }
    uplevel 1 $script
    set sent [stream_result $s]
    return [list [stream_result $r] $sent]
}

test {10 kpps on 4 flows over a clean veth: every datagram arrives once, in order} {
    lassign [stream_with 7001 10000 2 4 0 {}] rep snd
    note [format "sender: %d sent in %.2f s = %d pps, worst pause %.1f ms" \
        [dict get $snd sent] [dict get $snd seconds] [dict get $snd pps] \
        [dict get $snd max_send_gap_ms]]
    assert_equal [dict get $rep end_marker] true "the end marker arrived"
    assert_equal [dict get $rep sent] 20000
    assert_equal [dict get $rep received] 20000
    assert_equal [dict get $rep lost] 0
    assert_equal [dict get $rep duplicates] 0
    assert_equal [dict get $rep reordered] 0
    assert_equal [dict get $rep holes] 0
    assert_equal [dict get $rep first_seq] 0
    assert_equal [dict get $rep last_seq] 19999
    assert_morethan [dict get $snd pps] 9500 "achieved pps"
    # Without loss the largest gap is the sender's own largest pause.
    assert_lessthan [dict get $rep max_gap_ms] [expr {[dict get $rep sender_max_send_gap_ms] + 0.01}]
    set sports {}
    foreach f [dict get $rep flows] {
        assert_equal [dict get $f received] 5000 "flow [dict get $f flow]"
        assert_equal [dict get $f lost] 0 "flow [dict get $f flow]"
        lappend sports [dict get $f sport]
    }
    assert_equal [llength [lsort -unique $sports]] 4 "four flows, four source ports: $sports"
}

test {a 200 ms blackhole mid-stream is a gap of 200 ms in the receiver's report} {
    blackhole_prepare s2 eth0
    lassign [stream_with 7002 10000 3 4 5000 {
        set t1 [clock milliseconds]
        blackhole_on s2 eth0
        set t2 [clock milliseconds]
        after 200  ;# the outage itself
        set t3 [clock milliseconds]
        set dropped [blackhole_off s2 eth0]
        set t4 [clock milliseconds]
    }] rep snd
    # The rule was in force at least from the end of `nft` turning it on to
    # the start of `nft` turning it off, at most from the start of one to
    # the end of the other.
    set dmin [expr {$t3 - $t2}]
    set dmax [expr {$t4 - $t1}]
    note [format "blackhole %d..%d ms, %d dropped; receiver: gap %.1f ms, lost %d, sender's worst pause %.1f ms" \
        $dmin $dmax $dropped [dict get $rep max_gap_ms] [dict get $rep lost] \
        [dict get $rep sender_max_send_gap_ms]]
    assert_equal [dict get $rep sent] 30000
    # Every datagram is accounted for: received, dropped by the rule, or
    # dropped by s2's kernel for a slow receiver.
    assert_equal [expr {[dict get $rep received] + $dropped + [dict get $rep rcvbuf_errors]}] 30000 \
        "received + blackholed + rcvbuf errors"
    assert_equal [dict get $rep holes] 1 "one outage"
    # Lower bound: all that was sent while the rule was in force is lost,
    # less the few ms a datagram may spend between the sender's clock read
    # and the ingress hook on a loaded machine, and less a pause of the
    # sender between a clock read and its send (a datagram stamped inside
    # the window that leaves after it: the pause shows in the sender's
    # worst pause, the gap between two stamps). Upper bound: the rule's
    # longest possible time, the two datagrams around the hole (0.1 ms
    # each at 10 kpps), and a pause of the sender that may fall inside it.
    set pause [dict get $rep sender_max_send_gap_ms]
    set min_ms [expr {$dmin - 5 - $pause}]
    set max_ms [expr {$dmax + 20 + $pause}]
    assert_range [dict get $rep max_gap_ms] $min_ms $max_ms "max_gap_ms"
    assert_range [dict get $rep max_loss_gap_ms] $min_ms $max_ms "max_loss_gap_ms"
    foreach f [dict get $rep flows] {
        # Each flow sees the outage, stretched by at most its own spacing.
        assert_range [dict get $f max_gap_ms] $min_ms [expr {$max_ms + 1}] \
            "flow [dict get $f flow] max_gap_ms"
    }
}

test {random loss of 20% at s1's egress: the receiver counts the datagrams the rule dropped} {
    blackhole_on s1 eth0 -hook egress -loss 20 -match {udp dport 7003}
    lassign [stream_with 7003 10000 1 1 0 {}] rep snd
    set dropped [blackhole_off s1 eth0]
    note "lost [dict get $rep lost] of [dict get $rep sent], rule dropped $dropped"
    # The end marker is sent 5 times: some copies may be dropped too.
    assert_equal [dict get $rep end_marker] true "an end marker arrived"
    assert_equal [expr {[dict get $rep lost] + [dict get $rep rcvbuf_errors]}] \
        [expr {$dropped - (5 - [dict get $rep end_copies])}] "lost = dropped data datagrams"
    # 10 000 draws of p = 0.2: sd 40, so 15..25 % is > 12 sd.
    assert_range [dict get $rep lost] 1500 2500
    assert_morethan [dict get $rep holes] 1000
}

test {an IPv6 stream} {
    set r [stream_recv s2 7004 15 -bind ::]
    set s [stream_send s1 fd00::2 7004 2000 1 2]
    stream_result $s
    set rep [stream_result $r]
    assert_equal [dict get $rep received] 2000
    assert_equal [dict get $rep lost] 0
}
