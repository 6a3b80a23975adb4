# The impairment tool itself (tests/tools/impair), between two plain hosts,
# no vbrd:
#
#   h1 10.0.9.1 eth0 ==veth== [ l1: ifa <-> impair <-> ifb ] ==veth== eth0 10.0.9.2 h2
#
# Each test sets what it needs and puts the line back to no impairment.
# Margins hold on a loaded 2-core machine; the measured values are printed.

source [file join [file dirname [file normalize [info script]]] harness impair.tcl]

lab_netns h1
lab_netns h2
impair_line l1 -a h1 -b h2 -a_addr 10.0.9.1/24 -b_addr 10.0.9.2/24 -seed 1

# Round-trip times (ms) of each reply in ping's output, in order.
proc ping_rtts {out} {
    set rtts {}
    foreach {-> ms} [regexp -all -inline {time=([\d.]+) ms} $out] {
        lappend rtts $ms
    }
    return $rtts
}

proc median {values} {
    set s [lsort -real $values]
    return [lindex $s [expr {[llength $s] / 2}]]
}

# icmp_seq of each reply, in the order they arrived.
proc ping_seqs {out} {
    set seqs {}
    foreach {-> seq} [regexp -all -inline {icmp_seq=(\d+) } $out] {
        lappend seqs $seq
    }
    return $seqs
}

test {without impairment the line forwards both ways and counts every frame} {
    impair_clear l1
    set h1_0 [lab_link_stats h1]
    set h2_0 [lab_link_stats h2]
    assert_ping h1 10.0.9.2 10
    set h1_1 [lab_link_stats h1]
    set h2_1 [lab_link_stats h2]
    set st [impair_stats l1]
    # What h1 sent is what the tool read on a and wrote on b, and what h2 got.
    set sent [expr {[dict get $h1_1 tx_packets] - [dict get $h1_0 tx_packets]}]
    set got [expr {[dict get $h2_1 rx_packets] - [dict get $h2_0 rx_packets]}]
    assert_equal [dict get $st a2b rx] $sent "a2b rx = frames h1 sent"
    assert_equal [dict get $st a2b tx] $got "a2b tx = frames h2 received"
    assert_equal $got $sent "no frame lost"
    set back [expr {[dict get $h2_1 tx_packets] - [dict get $h2_0 tx_packets]}]
    assert_equal [dict get $st b2a rx] $back "b2a rx = frames h2 sent"
}

test {delay 20 ms each way: median ping RTT within 35..80 ms} {
    impair_set l1 delay 20
    lassign [ping_from h1 10.0.9.2 -c 20 -i 0.05 -W 2] rc out
    impair_set l1 delay 0
    set rtts [ping_rtts $out]
    assert_morethan [llength $rtts] 17 "replies to 20 pings"
    set med [median $rtts]
    note [format "RTT median %.1f ms (min %.1f, max %.1f) over %d replies" $med \
        [tcl::mathfunc::min {*}$rtts] [tcl::mathfunc::max {*}$rtts] [llength $rtts]]
    assert_range $med 35 80 "median RTT, ms"
    # Without delay the RTT is back below a few ms.
    lassign [ping_from h1 10.0.9.2 -c 5 -i 0.05 -W 2] rc out
    assert_lessthan [median [ping_rtts $out]] 10 "median RTT after delay 0, ms"
}

test {jitter 15 ms on a 20 ms delay does not reorder echo requests} {
    impair_set l1 delay 20 jitter 15
    lassign [ping_from h1 10.0.9.2 -c 100 -i 0.01 -W 2] rc out
    impair_set l1 delay 0 jitter 0
    set seqs [ping_seqs $out]
    assert_morethan [llength $seqs] 95 "replies to 100 pings"
    set rtts [ping_rtts $out]
    note [format "RTT min %.1f median %.1f max %.1f ms" [tcl::mathfunc::min {*}$rtts] \
        [median $rtts] [tcl::mathfunc::max {*}$rtts]]
    assert_equal $seqs [lsort -integer $seqs] "replies in icmp_seq order"
    # Jitter shows: the RTTs spread over more than 10 ms.
    assert_morethan [expr {[tcl::mathfunc::max {*}$rtts] - [tcl::mathfunc::min {*}$rtts]}] 10
}

test {loss 30% on a2b: ping loss between 15% and 45% over 200 pings} {
    impair_clear l1
    impair_set l1 loss-a2b 30
    lassign [ping_from h1 10.0.9.2 -c 200 -i 0.01 -W 1] rc out
    impair_set l1 loss-a2b 0
    set st [ping_stats $out]
    set lost [expr {[dict get $st transmitted] - [dict get $st received]}]
    set dropped [dict get [impair_stats l1] a2b dropped_loss]
    note "ping: [dict get $st received]/[dict get $st transmitted] replies,\
          [dict get $st loss_pct]% lost; impair dropped $dropped on a2b"
    assert_equal [dict get $st transmitted] 200
    assert_range [dict get $st loss_pct] 15 45 "ping loss, %"
    # Every lost echo was a loss drop of the tool; h1's ARP probes, lost
    # and repeated, may add a few.
    assert_range $dropped $lost [expr {$lost + 8}] "a2b dropped_loss"
}

test {rate 10 Mbit/s: iperf3 UDP sent at 50 Mbit/s arrives at 7..11 Mbit/s} {
    # 100 frames at 10 Mbit/s: 120 ms of queue, small against the 3 s test.
    impair_set l1 rate 10 limit 100
    iperf_server h2
    set rep [iperf_client h1 10.0.9.2 3 -u -b 50M]
    impair_set l1 rate 0 limit 1000
    set bps [iperf_rx_bps $rep]
    set st [impair_stats l1]
    note [format "UDP: %.2f Mbit/s received; impair a2b dropped_queue %d, tx %d" \
        [expr {$bps / 1e6}] [dict get $st a2b dropped_queue] [dict get $st a2b tx]]
    assert_range [expr {$bps / 1e6}] 7 11 "Mbit/s received by h2"
    assert_morethan [dict get $st a2b dropped_queue] 0 "frames dropped at the full queue"
}

test {set loss 100 blackholes the line, set loss 0 restores it} {
    impair_set l1 loss 100
    lassign [ping_from h1 10.0.9.2 -c 5 -i 0.1 -W 1] rc out
    assert_equal [dict get [ping_stats $out] received] 0 "replies while blackholed"
    impair_set l1 loss 0
    assert_ping h1 10.0.9.2 5
}

test {loss-b2a 100 blackholes only the way back} {
    impair_clear l1
    impair_set l1 loss-b2a 100
    lassign [ping_from h1 10.0.9.2 -c 5 -i 0.1 -W 1] rc out
    impair_set l1 loss-b2a 0
    set st [impair_stats l1]
    assert_equal [dict get [ping_stats $out] received] 0 "replies"
    assert_morethan [dict get $st a2b tx] 4 "echo requests forwarded a2b"
    assert_morethan [dict get $st b2a dropped_loss] 4 "echo replies dropped b2a"
    assert_equal [dict get $st a2b dropped_loss] 0 "a2b drops"
}

test {the control socket rejects unknown settings and out-of-range values} {
    foreach req {{set bogus 1} {set loss 101} {set delay -1} {set rate x} {frob}} {
        set code [catch {exec [impair_bin] ctl [dict get $::impair::lines(l1) ctl] {*}$req} out]
        assert_equal $code 1 "exit status of `$req`"
        assert_match "error: *" $out
    }
    set show [impair_show l1]
    assert_equal [dict get $show a2b loss_pct] 0 "loss after the rejected requests"
    assert_equal [dict get $show seed] 1
}
