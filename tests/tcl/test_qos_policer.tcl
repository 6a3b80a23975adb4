# Egress QoS, policers (rte_meter, colour-blind): red is dropped, yellow
# passes, remarked to yellow_dscp when the policer has one. Rates are bits/s
# of frames as sent (L2 header included, no line overhead), bursts bytes.
#
#   h1 10.0.1.2 ── lan1 [vbrd] lan2 (100M line, policy "police") ── h2 10.0.2.2
#
# Three policers side by side, together a quarter of the line, whose
# queues hold 1024 frames and whose bucket is 25 ms deep (the line never
# drops: what the receiver sees is the policers' doing, even when a
# policer lets its bucket through at once after the worker was off its
# CPU):
#
#   UDP to 5501  class "tr"   trTCM (RFC 2698)  cir 8M  pir 12M  yellow_dscp 10
#   UDP to 5502  class "sr"   srTCM (RFC 2697)  cir 6M  (yellow keeps its DSCP)
#   UDP to 5503  business "metered": RFC 4115  cir 4M  eir 3M  yellow_dscp 12
#
# What rte_meter does under sustained overload (offered 3x):
#   trTCM: a green frame takes tokens from both buckets, a yellow one from
#     the peak bucket only: green = cir, yellow = pir - cir, red the rest.
#   srTCM: the excess bucket fills only from the committed bucket's
#     overflow, which never happens while the committed one is drained:
#     after the first ebs bytes, green = cir and nothing is yellow.
#   RFC 4115: the two buckets fill independently: green = cir, yellow = eir.
# The receiver tells green from yellow by the DSCP (sent as 0): nft counts
# each DSCP per port. Bursts are 64000 bytes (43..128 ms at these rates):
# a meter sees the frames when the worker does, and a worker kept off its
# shared CPU for longer than a bucket lasts would lose that rate.

source [file join [file dirname [file normalize [info script]]] harness qos.tcl]

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1

set len 1000
set frame [qos_udp_frame $len]
set tr_cir 8000000
set tr_pir 12000000
set sr_cir 6000000
set t4_cir 4000000
set t4_eir 3000000

set conf {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; }
);
qos = {
  policies = (
    { name = "police"; default_business = "plain";
      businesses = (
        { name = "plain"; guaranteed = "50%"; queues = ( { name = "default"; type = "default"; limit = 1024; } ); },
        { name = "metered"; guaranteed = "50%"; queues = ( { name = "default"; type = "default"; limit = 1024; } );
          policer = { mode = "rfc4115"; cir = "@T4CIR@"; cbs = 64000; eir = "@T4EIR@"; ebs = 64000;
                      yellow_dscp = 12; }; }
      );
      classes = (
        { name = "tr"; priority = 10; protocol = "udp"; dst_port = 5501; business = "plain";
          policer = { mode = "trtcm"; cir = "@TRCIR@"; cbs = 64000; pir = "@TRPIR@"; pbs = 64000;
                      yellow_dscp = 10; }; },
        { name = "sr"; priority = 20; protocol = "udp"; dst_port = 5502; business = "plain";
          policer = { mode = "srtcm"; cir = "@SRCIR@";
                      cbs = @SRCBS@;
                      ebs = 64000; }; },
        { name = "t4"; priority = 30; protocol = "udp"; dst_port = 5503; business = "metered"; }
      ); }
  );
  interfaces = ( { interface = "lan2"; policy = "police"; rate = "100M"; burst = 312500; } );
};
}
set conf [string map [list @TRCIR@ $tr_cir @TRPIR@ $tr_pir @SRCIR@ $sr_cir \
    @T4CIR@ $t4_cir @T4EIR@ $t4_eir] $conf]

test {--check-config refuses a policer burst smaller than a frame, at the cbs's FILE:LINE} {
    set f [lab_file small-burst.conf]
    # 1000 bytes: below the 1514-byte frames of lan2 (MTU 1500 + 14)
    vbrd_write_config $f [string map {@SRCBS@ "1000 /* SMALL */"} $conf] check [file join [lab_rundir] check.sock]
    set n 0
    foreach l [split [_lab_read $f] "\n"] {
        incr n
        if {[string match "*/\* SMALL*" $l]} { set want $n }
    }
    lassign [vbrd_run --check-config $f] rc out
    assert_equal $rc 2 "exit status; output: $out"
    assert_regexp "(^|\n)[string map {. \\.} $f]:$want: \[^\n\]*cbs\[^\n\]*1000 bytes is below the 1514-byte frames" $out
}

start_vbrd [list conf [string map {@SRCBS@ 64000} $conf]] {
    qos_sink h2 {
        tr_green "udp dport 5501 ip dscp 0" tr_yellow "udp dport 5501 ip dscp 10" tr_other "udp dport 5501"
        sr_green "udp dport 5502 ip dscp 0" sr_other "udp dport 5502"
        t4_green "udp dport 5503 ip dscp 0" t4_yellow "udp dport 5503 ip dscp 12" t4_other "udp dport 5503"
    }
    assert_ping h1 10.0.2.2 2
    # what the queues had sent before the load (echo requests)
    set sent0 0
    foreach r [dict get [vbrctl show qos lan2] queues] { incr sent0 [dict get $r packets] }

    test {under 3x overload each policer passes its committed rate green +-3%, trTCM and RFC 4115 their excess yellow and remarked} {
        set pids [list \
            [qos_send h1 10.0.2.2 5501 [expr {3 * $tr_pir}] $len 7] \
            [qos_send h1 10.0.2.2 5502 [expr {3 * $sr_cir}] $len 7] \
            [qos_send h1 10.0.2.2 5503 [expr {3 * ($t4_cir + $t4_eir)}] $len 7]]
        # steady state: every policer drops red
        wait_for_condition 100 100 {
            [dict get [qos_class lan2 tr] policer_red] > 0 && [dict get [qos_class lan2 sr] policer_red] > 0
            && [dict get [qos_business lan2 metered] policer_red] > 0
        } else {
            fail "the policers do not drop: [vbrctl show qos lan2]"
        }
        # srTCM's excess bucket (64000 bytes) is spent within the first
        # 50 ms; wait a little past it before the window
        after 500
        set w [qos_window h2 lan2 3000]
        qos_stop {*}$pids
        qos_wait_drained lan2
        # trTCM: green at the cir, green + yellow at the pir (the peak
        # bucket is what limits both); srTCM: green at the cir; RFC 4115:
        # green at the cir, yellow at the eir (two independent buckets)
        set tr_total [expr {[qos_window_pps $w tr_green] + [qos_window_pps $w tr_yellow]}]
        foreach {name got rate} [list \
                tr_green [qos_window_pps $w tr_green] $tr_cir \
                tr_green+yellow $tr_total $tr_pir \
                sr_green [qos_window_pps $w sr_green] $sr_cir \
                t4_green [qos_window_pps $w t4_green] $t4_cir \
                t4_yellow [qos_window_pps $w t4_yellow] $t4_eir] {
            set want [expr {$rate / 8.0 / $frame}]
            note [format "%-16s %6.0f frames/s, expected %6.0f (%s%%)" $name $got $want [qos_pct $got $want]]
            assert_range $got [expr {0.97 * $want}] [expr {1.03 * $want}] "$name frames/s"
        }
        note [format "tr_yellow        %6.0f frames/s (pir - cir: %.0f)" [qos_window_pps $w tr_yellow] \
            [expr {($tr_pir - $tr_cir) / 8.0 / $frame}]]
        assert_morethan [qos_window_pps $w tr_yellow] 0 "trTCM yellow frames/s, remarked to DSCP 10"
        set sr_yellow [qos_window_pps $w sr_other]
        note [format "sr yellow (DSCP kept, so counted with any other DSCP) %.1f frames/s" $sr_yellow]
        assert_lessthan $sr_yellow 2 "srTCM frames/s not green under sustained overload"
        foreach o {tr_other t4_other} {
            assert_equal [expr {[dict get $w sink1 $o packets] - [dict get $w sink0 $o packets]}] 0 "$o frames (neither DSCP 0 nor the yellow DSCP)"
        }
        # the line never queued: no tail drop, only red
        foreach q [dict get [vbrctl show qos lan2] queues] {
            assert_equal [dict get $q queue_full] 0 "queue_full of [dict get $q business]/[dict get $q queue]"
        }
    }

    test {policer counters: green + yellow + red = classified, red = the queue's policer_red = drops policer_red} {
        set q [vbrctl show qos lan2]
        set sum_red 0
        foreach c {tr sr} {
            set r [qos_row_of $q classes interface lan2 class $c]
            assert_equal [expr {[dict get $r policer_green] + [dict get $r policer_yellow] + [dict get $r policer_red]}] \
                [dict get $r packets] "class $c green + yellow + red"
            incr sum_red [dict get $r policer_red]
        }
        # tr and sr both go to plain's default queue
        set pq [qos_row_of $q queues interface lan2 business plain queue default]
        assert_equal [dict get $pq policer_red] $sum_red "plain/default policer_red = red of classes tr and sr"
        set yellow [expr {[dict get [qos_row_of $q classes interface lan2 class tr] policer_yellow] +
                          [dict get [qos_row_of $q classes interface lan2 class sr] policer_yellow]}]
        assert_equal [dict get $pq yellow] $yellow "plain/default yellow = yellow of classes tr and sr"
        set mq [qos_row_of $q queues interface lan2 business metered queue default]
        assert_morethan [dict get $mq yellow] 0 "metered/default yellow"
        set total 0
        foreach r [dict get $q queues] { incr total [dict get $r policer_red] }
        assert_equal [drops policer_red] $total "drops policer_red = sum of the queues' policer_red"
        # what h2 received is what the queues sent
        set rcvd 0
        dict for {name c} [qos_sink_counts h2] { incr rcvd [dict get $c packets] }
        set sent 0
        foreach r [dict get $q queues] { incr sent [dict get $r packets] }
        assert_equal $rcvd [expr {$sent - $sent0}] "datagrams h2 counted = packets the queues sent since the load began"
    }
}
