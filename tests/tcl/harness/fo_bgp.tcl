# The failover lab (failover.tcl) with BGP on both lines: rtr runs bgpd
# next to bfdd and announces 10.2.0.0/24; vbrd's control plane (its TAPs,
# frr/cplane) lives in lab host "cp", where vbrd's FRR (zebra with the FPM
# pointed at vbrd, and bgpd) runs once vbrd has made the TAPs.
#
#   idc 10.1.0.2 ── lan [vbrd] line1 172.16.1.1 ── eth0 172.16.1.2 [rtr: bgpd, bfdd]
#                             line2 172.16.2.1 ── eth1 172.16.2.2        lo 10.2.0.1
#                    TAPs vb-line1, vb-line2 in cp [vbrd's FRR: zebra (FPM), bgpd]
#
#   fob_lab ?-interval MS? ?-multiplier N? ?-timers {KEEPALIVE HOLD}?
#                           fo_lab, rtr's FRR (bfdd at SCHED_FIFO, bgpd with
#                           the sessions' timers, s, default 10 30), the
#                           namespace cp
#   fob_conf ?KEY VALUE ...?  vbrd's config: fo_conf's keys, no static route
#                           to the region, and the cplane and fpm sections
#   fob_frr                 vbrd's FRR in cp (call once vbrd runs)
#   fob_ready               both sessions Established, the region in vbrd's FIB
#   fob_tap IFACE           the row of `show cplane`'s taps for IFACE
#   fob_route PREFIX        the row of `show routes` for PREFIX, "" if none
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [info script]] harness fo_bgp.tcl]

source [file join [file dirname [file normalize [info script]]] failover.tcl]

namespace eval fob {
    variable timers {10 30}
}

proc fob_lab {args} {
    set o [dict merge {-interval 10 -multiplier 5 -timers {10 30}} $args]
    set ::fob::timers [dict get $o -timers]
    fo_lab
    # vbrd's control namespace: TAPs and vbrd's FRR (IPv6 on: the TAPs'
    # link-local addresses)
    set ns [lab_netns cp]
    exec ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
        net.ipv6.conf.default.disable_ipv6=0
    set t $::fob::timers
    frr_start rtr [frr_bgp_conf 65001 172.16.1.2 \
        -neighbors [list [list 172.16.1.1 65000 timers $t] [list 172.16.2.1 65000 timers $t]] \
        -networks {10.2.0.0/24}] \
        -daemons {zebra bfdd bgpd} \
        -extra [list bfdd [frr_bfd_conf {
            "172.16.1.1 interface eth0 local-address 172.16.1.2"
            "172.16.2.1 interface eth1 local-address 172.16.2.2"
        } -interval [dict get $o -interval] -multiplier [dict get $o -multiplier]]]
    # as fo_frr: a normal-priority bfdd on a loaded machine flaps
    exec chrt -a -f -p 10 [dict get $::frr::inst(rtr) pid bfdd]
}

proc fob_conf {args} {
    set extra "cplane = { netns = \"[lab_ns cp]\"; };\nfpm = { };\n"
    if {[dict exists $args extra]} {
        append extra [dict get $args extra]
    }
    return [fo_conf {*}[dict merge $args [dict create route 0 extra $extra]]]
}

proc fob_frr {} {
    set t $::fob::timers
    frr_start cp [frr_bgp_conf 65000 172.16.1.1 \
        -neighbors [list [list 172.16.1.2 65001 timers $t] [list 172.16.2.2 65001 timers $t]] \
        -networks {10.1.0.0/24}] \
        -daemons {zebra bgpd} -fpm 127.0.0.1:2620
}

proc fob_ready {} {
    frr_bgp_wait_state cp 172.16.1.2 Established 30000
    frr_bgp_wait_state cp 172.16.2.2 Established 30000
    fo_wait_session l1 Up 10000
    fo_wait_session l2 Up 10000
    wait_for_condition 300 50 {[fob_route 10.2.0.0/24] ne ""} else {
        fail "10.2.0.0/24 not in vbrd's routes: [vbrctl show fpm]"
    }
}

proc fob_tap {iface} {
    foreach t [dict get [vbrctl show cplane] taps] {
        if {[dict get $t interface] eq $iface} { return $t }
    }
    fail "no TAP row for $iface: [vbrctl show cplane]"
}

proc fob_route {prefix} {
    foreach r [dict get [vbrctl show routes] routes] {
        if {[dict get $r prefix] eq $prefix} { return $r }
    }
    return ""
}
