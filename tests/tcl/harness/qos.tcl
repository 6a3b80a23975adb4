# Helpers of the QoS tests (tests/tcl/test_qos*.tcl): offered load, what
# the receiver counted, `vbrctl show qos` rows, the rates a line should
# deliver.
#
#   qos_send HOST DEST PORT BPS LEN SECONDS ?TOS?   paced UDP load (tools/qos_udp.py), pid
#   qos_stop PID...                 stop load generators, wait for them
#   qos_sink HOST {NAME MATCH ...} ?KEEP?  nft counters in HOST's input hook:
#                                   each NAME counts (and drops, unless in KEEP)
#                                   what MATCH matches
#   qos_sink_counts HOST            dict NAME -> {packets N bytes N}
#   qos_row SECTION IFACE KEY VALUE ...   one row of `vbrctl show qos IFACE`
#   qos_queue / qos_business / qos_class / qos_line_row   shorthands of it
#   qos_wire_pps RATE FRAME ?OVERHEAD?    frames/s a line of RATE bits/s sends
#   qos_burst_bytes RATE            a line's `burst`: qos_burst_ms at RATE bits/s
#   qos_window HOST IFACE MS        counters of the sink and of show qos at the
#                                   start and end of an MS-long window
#   qos_burst HOST DEST PORT COUNT LEN TOS   COUNT datagrams with TOS, 1 ms apart
#   qos_sniff HOST SECONDS COUNT PORTS       capture on HOST's eth0 (pid, once ready)
#   qos_sniffed PID                 what it saw: a list of dicts port family dscp
#                                   ecn vlan pcp csum count
#
# The load is tools/qos_udp.py, not iperf3: an iperf3 client opens a TCP
# control connection and a UDP handshake to its server across the line
# under test, and on a line another stream already overloads those are
# tail-dropped like any packet (a lost SYN costs 1 s, then 3 s more). The
# sender has no control channel; the receiver is an nft counter (a drop
# rule, so no socket and no ICMP port unreachable). Offered loads are
# 2..3x what the line or the share under test can send, so the sender's
# pacing precision does not matter; what the tests assert is what the
# receiver counted over a window of steady state.

package require json

set ::qos_udp_py [file join [file dirname [file dirname [file normalize [info script]]]] tools qos_udp.py]

# Start a paced UDP sender in HOST: LEN-byte datagrams to DEST:PORT at BPS
# bits/s of payload for SECONDS; TOS (the whole byte, ECN bits included)
# when given. Returns its pid.
proc qos_send {host dest port bps len seconds {tos ""}} {
    set cmd [list /usr/bin/python3 $::qos_udp_py send $dest $port $bps $len $seconds]
    if {$tos ne ""} { lappend cmd $tos }
    return [lab_spawn $host -lifetime [expr {int($seconds) + 30}] {*}$cmd]
}

# Stop the senders PIDS (SIGTERM) and wait until they have exited.
proc qos_stop {args} {
    foreach pid $args { lab_kill $pid }
    foreach pid $args {
        if {![lab_wait_exit $pid 5000]} { lab_kill $pid KILL; lab_wait_exit $pid 2000 }
    }
}

# Datagrams a sender said it sent ("sent N"); fails when it did not finish.
proc qos_sent {pid} {
    if {![lab_wait_exit $pid 30000]} { fail "sender $pid still running" }
    if {![regexp {sent (\d+)} [lab_spawn_output $pid] -> n]} {
        fail "sender $pid: no count in: [lab_spawn_output $pid]"
    }
    return $n
}

# qos_sink HOST {NAME MATCH NAME MATCH ...} ?KEEP?: a table `qos` in HOST's
# nft whose input chain counts each MATCH (nft syntax, e.g. "udp dport
# 5201") under NAME and drops it (first match wins, in the order given),
# or accepts it when NAME is in the list KEEP (a TCP receiver's traffic).
proc qos_sink {host rules {keep {}}} {
    set text "table inet qos {\n  chain in {\n    type filter hook input priority -10; policy accept;\n"
    foreach {name match} $rules {
        set verdict [expr {$name in $keep ? "accept" : "drop"}]
        append text "    $match counter $verdict comment \"$name\"\n"
    }
    append text "  }\n}\n"
    set f [lab_file nft-$host.conf]
    _lab_write $f $text
    catch {lab_exec $host nft delete table inet qos}
    lab_exec $host nft -f $f
}

# dict NAME -> {packets N bytes N} of HOST's qos_sink rules.
proc qos_sink_counts {host} {
    set j [json::json2dict [lab_exec $host nft -j list table inet qos]]
    set out {}
    foreach item [dict get $j nftables] {
        if {![dict exists $item rule]} { continue }
        set r [dict get $item rule]
        if {![dict exists $r comment]} { continue }
        foreach e [dict get $r expr] {
            if {[dict exists $e counter]} {
                dict set out [dict get $r comment] [dict get $e counter]
            }
        }
    }
    return $out
}

# Packets of sink rule NAME in HOST.
proc qos_sink_packets {host name} {
    return [dict get [qos_sink_counts $host] $name packets]
}

# The row of SECTION (lines, businesses, queues, classes) of SHOW (a `show
# qos` dict) whose keys have the values given; fails if there is none.
proc qos_row_of {show section args} {
    foreach row [dict get $show $section] {
        set ok 1
        foreach {k v} $args {
            if {[dict get $row $k] ne $v} { set ok 0; break }
        }
        if {$ok} { return $row }
    }
    fail "no $section row with $args in `show qos`"
}

proc qos_row {section iface args} {
    return [qos_row_of [vbrctl show qos $iface] $section interface $iface {*}$args]
}
proc qos_queue {iface business queue} { return [qos_row queues $iface business $business queue $queue] }
proc qos_business {iface business} { return [qos_row businesses $iface business $business] }
proc qos_class {iface class} { return [qos_row classes $iface class $class] }
proc qos_line_row {iface} { return [qos_row lines $iface] }

# The lines of the rate tests are given a bucket of this many ms at their
# rate (`burst`; the default is 2 ms). The test machine's two cores are
# shared by vbrd's worker, the load generators, the receivers and
# whatever else runs: a worker that waits longer than its line's bucket
# holds for its CPU finds the bucket full and loses the rest of that
# time's rate for good (with two busy loops beside it, a 40M line with
# the default burst delivered 84-96% of its rate).
set ::qos_burst_ms 25

proc qos_burst_bytes {rate} {
    return [expr {$rate / 8 * $::qos_burst_ms / 1000}]
}

# Frames/s a line of RATE bits/s sends of FRAME-byte frames (length as sent,
# L2 header included), each counted with OVERHEAD bytes more.
proc qos_wire_pps {rate frame {overhead 24}} {
    return [expr {$rate / 8.0 / ($frame + $overhead)}]
}

# Bytes of the frame that carries a LEN-byte UDP payload: IPv4 + UDP
# headers (28, IPv6 48) and Ethernet (14, 18 tagged).
proc qos_udp_frame {len {family 4} {tagged 0}} {
    return [expr {$len + ($family == 6 ? 48 : 28) + ($tagged ? 18 : 14)}]
}

# Sample the sink counters of HOST and `show qos IFACE`, wait MS ms, sample
# again. Returns a dict: sink_dt, qos_dt (s between the two samples of
# each, taken at the middle of each read), sink0 sink1 (qos_sink_counts),
# qos0 qos1 (show qos dicts).
proc qos_window {host iface ms} {
    # The sink's counters are the kernel's (nft in HOST), which count a
    # frame when the softirq gets to it: on a loaded machine HOST's
    # backlog lags, then catches up inside a window, which then holds
    # more frames than vbrd sent in it (137 % of a shaped rate in one CI
    # run with a busy loop on a core). The frames are interleaved, so
    # such a window still has the right mix: its rates are scaled to
    # what vbrd's own counters say left the line in it (show qos: the
    # businesses' packets), and a note says so. A sink that counts less
    # than the line sent (rules for part of the traffic) is left as is.
    set w [_qos_window $host $iface $ms]
    set sink 0
    dict for {name c} [dict get $w sink1] {
        if {[dict exists $w sink0 $name]} {
            set sink [expr {$sink + [dict get $c packets] - [dict get $w sink0 $name packets]}]
        }
    }
    set sent 0
    foreach r1 [dict get $w qos1 businesses] {
        foreach r0 [dict get $w qos0 businesses] {
            if {[dict get $r0 business] eq [dict get $r1 business]} {
                set sent [expr {$sent + [dict get $r1 packets] - [dict get $r0 packets]}]
            }
        }
    }
    set sink_pps [expr {$sink / [dict get $w sink_dt]}]
    set sent_pps [expr {$sent / [dict get $w qos_dt]}]
    dict set w scale 1.0
    if {$sent_pps > 0 && $sink_pps > 1.03 * $sent_pps} {
        dict set w scale [expr {$sent_pps / $sink_pps}]
        note [format "qos_window: %s counted %.0f frames/s, vbrd sent %.0f: its backlog caught up inside the window; rates scaled by %.3f" \
                  $host $sink_pps $sent_pps [dict get $w scale]]
    }
    return $w
}

proc _qos_window {host iface ms} {
    set a [clock microseconds]
    set s0 [qos_sink_counts $host]
    set b [clock microseconds]
    set q0 [vbrctl show qos $iface]
    set c [clock microseconds]
    after $ms
    set d [clock microseconds]
    set s1 [qos_sink_counts $host]
    set e [clock microseconds]
    set q1 [vbrctl show qos $iface]
    set f [clock microseconds]
    return [dict create sink_dt [expr {(($d + $e) - ($a + $b)) / 2e6}] \
        qos_dt [expr {(($e + $f) - ($b + $c)) / 2e6}] \
        sink0 $s0 sink1 $s1 qos0 $q0 qos1 $q1]
}

# Packets/s of sink rule NAME over window W.
proc qos_window_pps {w name} {
    set n [expr {[dict get $w sink1 $name packets] - [dict get $w sink0 $name packets]}]
    set scale [expr {[dict exists $w scale] ? [dict get $w scale] : 1.0}]
    return [expr {$scale * $n / [dict get $w sink_dt]}]
}

# Growth of KEY of a show-qos row over window W (SECTION and the row's keys as qos_row_of).
proc qos_window_delta {w key section args} {
    set r0 [qos_row_of [dict get $w qos0] $section {*}$args]
    set r1 [qos_row_of [dict get $w qos1] $section {*}$args]
    return [expr {[dict get $r1 $key] - [dict get $r0 $key]}]
}

# Wait until every sink rule of NAMES in HOST counts packets and every
# queue of QUEUES ({IFACE BUSINESS QUEUE} ...) drops at its full tail
# (the share under test is oversubscribed): the steady state to measure.
proc qos_wait_overload {host names queues} {
    set c0 [qos_sink_counts $host]
    set q0 {}
    foreach q $queues { lappend q0 [dict get [qos_queue {*}$q] queue_full] }
    wait_for_condition 100 100 {[_qos_all_grew $host $names $c0 $queues $q0]} else {
        fail "the load did not reach the receiver and overload its queues:\
              sink [qos_sink_counts $host], show qos [vbrctl show qos]"
    }
}

proc _qos_all_grew {host names c0 queues q0} {
    set c [qos_sink_counts $host]
    foreach n $names {
        if {[dict get $c $n packets] <= [dict get $c0 $n packets]} { return 0 }
    }
    foreach q $queues full0 $q0 {
        if {[dict get [qos_queue {*}$q] queue_full] <= $full0} { return 0 }
    }
    return 1
}

# Wait until line IFACE holds no packet (after the load stopped).
proc qos_wait_drained {iface} {
    wait_for_condition 50 100 {[dict get [qos_line_row $iface] backlog] == 0} else {
        fail "line $iface still holds [dict get [qos_line_row $iface] backlog] packets"
    }
}

# "12.34" of VALUE / EXPECTED in percent.
proc qos_pct {value expected} {
    return [format %.2f [expr {100.0 * $value / $expected}]]
}

# Send COUNT LEN-byte datagrams from HOST to DEST:PORT with TOS (the whole
# byte: DSCP << 2 | ECN), 1 ms apart; fails unless the kernel took them all.
proc qos_burst {host dest port count len tos} {
    set out [lab_exec $host /usr/bin/python3 $::qos_udp_py burst $dest $port $count $len $tos]
    if {![regexp {sent (\d+) errors 0} $out -> n] || $n != $count} {
        fail "qos_burst $dest $port: $out"
    }
}

# Capture on HOST's eth0 the UDP frames to PORTS (a list) for at most
# SECONDS or COUNT frames; returns the pid once the socket listens.
proc qos_sniff {host seconds count ports} {
    set pid [lab_spawn $host /usr/bin/python3 $::qos_udp_py sniff eth0 $seconds $count {*}$ports]
    wait_for_condition 50 100 {
        [string match "*ready*" [lab_spawn_output $pid]] || [lab_exited $pid]
    } else {
        fail "qos_udp.py sniff did not start"
    }
    if {[lab_exited $pid]} { fail "qos_udp.py sniff exited: [lab_spawn_output $pid]" }
    return $pid
}

# What sniffer PID saw, once it has exited (it stops after its COUNT
# frames or SECONDS): a list of dicts, one per kind of frame.
proc qos_sniffed {pid} {
    if {![lab_wait_exit $pid 30000]} { fail "sniffer $pid still running" }
    set out {}
    foreach l [split [lab_spawn_output $pid] "\n"] {
        if {![string match "port=*" $l]} { continue }
        set d {}
        foreach kv [split $l] {
            lassign [split $kv =] k v
            dict set d $k $v
        }
        lappend out $d
    }
    return $out
}
