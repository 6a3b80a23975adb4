# Helpers of the BFD tests that look at the wire: tools/bfd_peer.py (an
# independent BFD peer with RFC 5880 §6.7 authentication, for what FRR's
# bfdd lacks), tools/bfd_craft.py (hand-made control packets),
# tools/bfd_pcap.py (a capture's BFD packets, parsed from the bytes).
#
#   bfdpeer_start HOST LOCAL PEER ?OPTION VALUE ...?  -> handle (a dict)
#       bfd_peer.py in HOST; options as the script's (--auth, --key, --key-id,
#       --tx-ms, --rx-ms, --mult, --multihop 1)
#   bfdpeer_status HANDLE          its --status JSON as a dict ({} before the first)
#   bfdpeer_wait HANDLE KEY VALUE MS   until the status has KEY = VALUE
#   bfdpeer_stop HANDLE            SIGTERM, wait; -> the final status
#   bfd_capture HOST IF FILTER COUNT ?SECONDS?  -> {pid file}: tcpdump -w, listening
#   bfd_capture_wait CAP ?MS?      until it exited (COUNT packets or SECONDS)
#   bfd_pcap FILE                  the capture's BFD packets, a list of dicts
#   bfd_pkts_where PKTS KEY VALUE ...   those whose KEY is VALUE
#   bfd_craft HOST SRC DST ?-sport N? ?-ttl N? ?-count N? ?FIELD=VALUE ...?
#   bfd_drops                      dict: every bfd_* drop counter of `show stats`
#   bfd_session_drops NAME         dict: reason -> packets, of `show bfd counters`
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [info script]] harness bfdtest.tcl]

package require json

set ::bfdtest_tools [file join [file dirname [file dirname [file normalize [info script]]]] tools]

proc bfdpeer_start {host local peer args} {
    set status [lab_file bfdpeer-$local.json]
    set argv [list --local $local --peer $peer --status $status]
    foreach {k v} $args {
        if {$k eq "--multihop"} {
            if {$v} { lappend argv --multihop }
        } else {
            lappend argv $k $v
        }
    }
    set pid [lab_spawn $host python3 [file join $::bfdtest_tools bfd_peer.py] {*}$argv]
    set h [dict create pid $pid status $status host $host local $local]
    wait_for_condition 100 50 {[file exists $status] || [lab_exited $pid]} else {
        fail "bfd_peer.py $local did not start:\n[lab_spawn_output $pid]"
    }
    if {[lab_exited $pid]} {
        fail "bfd_peer.py $local exited:\n[lab_spawn_output $pid]"
    }
    return $h
}

proc bfdpeer_status {h} {
    set text [_lab_read [dict get $h status]]
    if {$text eq ""} { return {} }
    return [json::json2dict $text]
}

proc bfdpeer_wait {h key value ms} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[_bfdtest_get [bfdpeer_status $h] $key] ne $value} {
        if {[clock milliseconds] > $deadline} {
            fail "bfd_peer.py [dict get $h local]: $key not $value after $ms ms: [bfdpeer_status $h]"
        }
        after 20
    }
}

proc bfdpeer_stop {h} {
    lab_kill [dict get $h pid]
    if {![lab_wait_exit [dict get $h pid] 5000]} {
        fail "bfd_peer.py [dict get $h local] ignores SIGTERM"
    }
    return [bfdpeer_status $h]
}

proc bfd_capture {host ifname filter count {seconds 20}} {
    set file [lab_file bfd-$host.pcap]
    set pid [lab_spawn $host -lifetime $seconds \
                 tcpdump -i $ifname -nn -U -c $count -w $file {*}$filter]
    wait_for_condition 100 50 {
        [string match "*listening on*" [lab_spawn_output $pid]] || [lab_exited $pid]
    } else {
        fail "tcpdump in $host did not start:\n[lab_spawn_output $pid]"
    }
    if {[lab_exited $pid] && ![string match "*packets captured*" [lab_spawn_output $pid]]} {
        fail "tcpdump in $host exited:\n[lab_spawn_output $pid]"
    }
    return [list $pid $file]
}

proc bfd_capture_wait {cap {ms 20000}} {
    if {![lab_wait_exit [lindex $cap 0] $ms]} {
        fail "tcpdump still running after $ms ms:\n[lab_spawn_output [lindex $cap 0]]"
    }
}

proc bfd_pcap {file} {
    set out {}
    foreach line [split [lab_exec - python3 [file join $::bfdtest_tools bfd_pcap.py] $file] "\n"] {
        if {$line ne ""} { lappend out [json::json2dict $line] }
    }
    return $out
}

proc bfd_craft {host src dst args} {
    set argv [list --src $src --dst $dst]
    for {set i 0} {$i < [llength $args]} {incr i} {
        set a [lindex $args $i]
        if {[string match -* $a]} {
            lappend argv -$a [lindex $args [incr i]]
        } else {
            lappend argv $a
        }
    }
    return [lab_exec $host python3 [file join $::bfdtest_tools bfd_craft.py] {*}$argv]
}

proc bfd_drops {} {
    set out {}
    dict for {k v} [dict get [vbrctl show stats] drops] {
        if {[string match bfd_* $k]} { dict set out $k $v }
    }
    return $out
}

proc bfd_session_drops {name} {
    set out {}
    foreach r [dict get [vbrctl show bfd counters] drops] {
        if {[dict get $r session] eq $name} {
            dict set out [dict get $r reason] [dict get $r packets]
        }
    }
    return $out
}

proc _bfdtest_get {d key} {
    return [expr {[dict exists $d $key] ? [dict get $d $key] : ""}]
}

# The packets of PKTS (bfd_pcap's dicts) whose KEY is VALUE, for each KEY VALUE pair.
proc bfd_pkts_where {pkts args} {
    set out {}
    foreach p $pkts {
        set ok 1
        foreach {k v} $args {
            if {![dict exists $p $k] || [dict get $p $k] ne $v} { set ok 0; break }
        }
        if {$ok} { lappend out $p }
    }
    return $out
}
