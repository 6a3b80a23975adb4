# Sequence-numbered UDP streams (tools/seqstream.py) between lab hosts, to
# measure an outage (failover) as the receiver saw it.
#
#   stream_recv HOST PORT SECONDS ?-bind ADDR?      -> pid, once it listens
#   stream_send HOST DST PORT PPS SECONDS ?FLOWS? ?-size B? ?-sport BASE?  -> pid
#   stream_result PID ?TIMEOUT_MS?                  -> dict (its JSON report)
#   stream_during SRC DST RHOST PORT PPS SECONDS MIDWAY SCRIPT ?-if IF?
#                                                   -> {receiver sender} reports
#
# The receiver's report (see the tool's docstring): received, sent, lost,
# duplicates, reordered, holes, max_gap_ms (the outage: the longest stretch
# of *sender* time between two consecutively numbered datagrams that got
# through), max_loss_gap_ms (the same, counting only stretches with loss),
# sender_max_send_gap_ms (the sender's own worst pause: on this 2-core VM
# 10-20 ms happen now and then even at SCHED_FIFO, so a bound on an outage
# needs that much margin), rcvbuf_errors (datagrams the receiving kernel
# dropped because the receiver was too slow: not the path's fault),
# first_seq, last_seq, end_marker, and flows: a list of dicts flow, sport,
# received, lost, max_gap_ms. The sender's report: sent, seconds, pps
# (achieved), send_errors, max_send_gap_ms.
#
# The receiver ends at the sender's end marker (plus 200 ms for
# stragglers) or after SECONDS; give it the sender's SECONDS plus a margin
# for start-up. Both are lab_spawn processes: lab_cleanup kills them.
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [info script]] harness stream.tcl]

package require json

# The lab's traffic tools run on CPU 0, off the CPU of vbrd's worker (1 in
# every test config), as a production box keeps its dataplane cores to
# itself: the stream then measures vbrd, not the scheduler sharing a core.
set ::lab_tool_cpu [expr {[exec nproc] > 1 ? {taskset -c 0} : {}}]

set ::seqstream_py [file join [file dirname [file dirname [file normalize [info script]]]] tools seqstream.py]

proc stream_recv {host port seconds args} {
    set bind 0.0.0.0
    foreach {k v} $args {
        switch -- $k {
            -bind { set bind $v }
            default { error "stream_recv: unknown option $k" }
        }
    }
    set pid [lab_spawn $host -lifetime [expr {int($seconds) + 30}] \
        {*}$::lab_tool_cpu /usr/bin/python3 $::seqstream_py recv --port $port --seconds $seconds \
        --bind $bind --json]
    wait_for_condition 500 20 {
        [string match "*seqstream: ready*" [lab_spawn_output $pid]] || [lab_exited $pid]
    } else {
        fail "seqstream receiver in $host did not start:\n[lab_spawn_output $pid]"
    }
    if {[lab_exited $pid]} {
        fail "seqstream receiver in $host exited:\n[lab_spawn_output $pid]"
    }
    return $pid
}

proc stream_send {host dst port pps seconds {flows 1} args} {
    set opts {}
    foreach {k v} $args {
        switch -- $k {
            -size { lappend opts --size $v }
            -sport { lappend opts --sport $v }
            default { error "stream_send: unknown option $k" }
        }
    }
    return [lab_spawn $host -lifetime [expr {int($seconds) + 30}] \
        {*}$::lab_tool_cpu /usr/bin/python3 $::seqstream_py send --dst $dst --port $port \
        --pps $pps --seconds $seconds --flows $flows {*}$opts]
}

# Wait up to TIMEOUT_MS (default 30 s) for a stream_recv or stream_send
# process to end and return its JSON report as a dict; fails the test if
# it does not end or prints no report.
proc stream_result {pid {timeout_ms 30000}} {
    if {![lab_wait_exit $pid $timeout_ms]} {
        fail "seqstream $pid still running after $timeout_ms ms:\n[lab_spawn_output $pid]"
    }
    set out [lab_spawn_output $pid]
    foreach line [lreverse [split $out "\n"]] {
        if {[string index $line 0] eq "\{"} {
            return [json::json2dict $line]
        }
    }
    fail "seqstream $pid printed no report:\n$out"
}

# Frames IF of HOST received (stream_during, for an IF other than eth0).
proc _stream_if_rx {host ifname} {
    return [dict get [lab_link_stats $host $ifname] rx_packets]
}

# stream_during SRC DST RHOST PORT PPS SECONDS MIDWAY SCRIPT ?-if IF?
#
# A stream of PPS datagrams/s for SECONDS from host SRC to address DST,
# received in host RHOST on PORT; once RHOST's interface IF (default eth0)
# has received MIDWAY packets more than at the start, run SCRIPT in the
# caller. Returns {RECEIVER-REPORT SENDER-REPORT} (stream_result's dicts).
proc stream_during {src dst rhost port pps seconds midway script args} {
    set ifname eth0
    foreach {k v} $args {
        switch -- $k {
            -if { set ifname $v }
            default { error "stream_during: unknown option $k" }
        }
    }
    # (eth0: read without a process, lab_rx_packets: a busy machine's
    # slow polls once let a 3 s stream end before its midway point)
    set rx [expr {$ifname eq "eth0" ? [list lab_rx_packets $rhost]
                  : [list _stream_if_rx $rhost $ifname]}]
    set rx0 [{*}$rx]
    set r [stream_recv $rhost $port [expr {$seconds + 15}]]
    set s [stream_send $src $dst $port $pps $seconds]
    wait_for_condition 1000 10 {
        [{*}$rx] - $rx0 >= $midway || [lab_exited $s]
    } else {
        fail "$rhost did not receive $midway packets of the stream"
    }
    if {[lab_exited $s]} {
        fail "the stream ended before $rhost received $midway packets of it:\n[lab_spawn_output $s]"
    }
    uplevel 1 $script
    set sent [stream_result $s]
    return [list [stream_result $r] $sent]
}
