# Open vSwitch with DPDK in a test (the virtio lab, vm/virtio/README.md):
# one ovs-vswitchd per test file, without systemd, through vm/virtio/ovs.sh
# (the script `make lab-virtio` uses), so the lab users get is the tested one.
#
#   ovs_unavailable            "" or why OVS-DPDK cannot run here (for skip)
#   ovs_start                  ovsdb-server + ovs-vswitchd-dpdk, run dir
#                              /tmp/vbrd-tests/PREFIX/ovs, EAL file prefix and
#                              network namespace (where its TAPs are: ovs-netdev
#                              and the bridge's) PREFIX-ovs, --no-huge 512 MiB, main lcore CPU 0,
#                              PMD CPU 1 sleeping up to 500 µs when idle
#   ovs_bridge {PORT SOCKET ...}   bridge PREFIX-br (netdev), a dpdkvhostuserclient
#                              port per PORT (vbrd serves SOCKET), no flow
#   ovs_link A B               A <-> B by in_port flows: one line
#   ovs_cut A B / ovs_restore A B   priority-100 drop flows on what A and B send
#                              (a silent cut: vbrd's ports keep their link)
#   ovs_cut_packets A          n_packets of A's drop flow (OVS adds to it the packets of
#                              the datapath flow it replaced: an upper bound)
#   ovs_port_stats PORT        OVS's counters of PORT (ovs-ofctl dump-ports): dict
#                              rx_packets rx_bytes rx_dropped tx_packets tx_bytes tx_dropped
#   ovs_wait_port_up PORT MS   wait until the vhost-user port's link is up
#   ovs_stop                   exit --cleanup, runtime dir removed (lab_cleanup runs it)
#
# ovs_start registers ovs_stop with lab_on_cleanup, the daemons' pids with
# the run's pid file and PREFIX-ovs with ::lab::dpdk_prefixes, so that
# run-tests.sh's cleanup also finds what a killed run left (the namespace
# PREFIX-ovs too: it goes with the run's other PREFIX-* namespaces).
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [info script]] harness ovs.tcl]

namespace eval ovs {
    variable script [file normalize [file join [file dirname [info script]] .. .. .. vm virtio ovs.sh]]
    variable vswitchd /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk
    variable dir ""
    variable bridge ""
}

proc ovs_unavailable {} {
    if {![file executable $::ovs::vswitchd]} {
        return "$::ovs::vswitchd missing (Debian's openvswitch-switch-dpdk, packages.txt)"
    }
    foreach tool {ovsdb-server ovsdb-tool ovs-vsctl ovs-ofctl ovs-appctl} {
        if {[auto_execok $tool] eq ""} { return "$tool missing (openvswitch-common)" }
    }
    return ""
}

proc ovs_start {} {
    set ::ovs::dir [file join [lab_rundir] ovs]
    set prefix "[lab_prefix]-ovs"
    lappend ::lab::dpdk_prefixes $prefix
    lab_on_cleanup ovs_stop
    _ovs start $prefix
    foreach d {ovsdb-server ovs-vswitchd} {
        set pid [string trim [_lab_read [file join $::ovs::dir $d.pid]]]
        if {[string is integer -strict $pid]} { _lab_track $pid }
    }
}

proc ovs_bridge {ports} {
    set ::ovs::bridge "[lab_prefix]-br"
    set args {}
    foreach {port sock} $ports { lappend args "$port=$sock" }
    _ovs bridge $::ovs::bridge {*}$args
}

proc ovs_link {a b} { _ovs link $::ovs::bridge $a $b }
proc ovs_cut {a b} { _ovs cut $::ovs::bridge $a $b }
proc ovs_restore {a b} { _ovs restore $::ovs::bridge $a $b }

proc ovs_cut_packets {a} {
    foreach line [split [_ovs ofctl dump-flows $::ovs::bridge "in_port=$a"] "\n"] {
        if {[regexp {n_packets=(\d+).*priority=100,} $line -> n]} { return $n }
    }
    return 0
}

proc ovs_port_stats {port} {
    # live counters (the Interface table's statistics lag up to 5 s):
    # "port  2: rx pkts=N, bytes=N, drop=N, errs=N, ..." and "tx pkts=N, ..."
    set out [_ovs ofctl dump-ports $::ovs::bridge $port]
    set d [dict create]
    foreach dir {rx tx} {
        if {![regexp "$dir pkts=(\\d+), bytes=(\\d+), drop=(\\d+)" $out -> p b dr]} {
            error "ovs_port_stats $port: no $dir counters in: $out"
        }
        dict set d ${dir}_packets $p
        dict set d ${dir}_bytes $b
        dict set d ${dir}_dropped $dr
    }
    return $d
}

proc ovs_wait_port_up {port ms} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[set s [string trim [_ovs vsctl get Interface $port link_state]]] ne "up"} {
        if {[clock milliseconds] > $deadline} {
            fail "OVS port $port: link $s after $ms ms (vbrd's vhost-user server not connected)"
        }
        after 50
    }
}

proc ovs_stop {} {
    if {$::ovs::dir eq ""} { return }
    catch {exec $::ovs::script stop $::ovs::dir 2>@1}
    set ::ovs::dir ""
}

# vm/virtio/ovs.sh CMD RUNDIR ARGS...: its stdout, or a test failure with its output
proc _ovs {cmd args} {
    if {[catch {exec $::ovs::script $cmd $::ovs::dir {*}$args 2>@1} out]} {
        regsub {\n?child process exited abnormally$} $out {} out
        error "ovs.sh $cmd [join $args]: $out"
    }
    return $out
}
