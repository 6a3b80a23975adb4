# Outages on demand: nftables rules in a netdev hook of an interface that
# drop all frames (ARP too) or a random share of them.
#
#   blackhole_prepare HOST IFNAME        -> table name (see below)
#   blackhole_on HOST IFNAME ?-hook ingress|egress|both? ?-loss PCT? ?-match EXPR?
#                                        -> table name
#   blackhole_off HOST IFNAME            -> packets it dropped (final count)
#   blackhole_drops HOST IFNAME          -> packets dropped so far
#
# HOST is a lab host or "-" for the root namespace. -hook: ingress (default)
# drops what arrives on IFNAME, egress (Linux >= 5.16) what leaves by it,
# both the two at one instant (one transaction: a line cut both ways).
# -loss PCT drops PCT % at random (`numgen random mod 100 < PCT`) instead of
# everything; -match EXPR drops only what matches the nft expression (e.g.
# "udp dport 3784", BFD control only). Turning a blackhole on again
# replaces it (either hook), counter included.
#
# Which end to cut: packet sockets see a frame *before* the ingress hook
# (__netif_receive_skb_core delivers to ptype_all taps first), so an
# ingress blackhole on the root end of a lab_host veth does NOT hide frames
# from vbrd's af_packet port (nor from tcpdump). To cut a host's line to
# vbrd, drop in the host: -hook egress on its eth0 (the egress hook runs in
# __dev_queue_xmit, before anything is sent), ingress on its eth0 for the
# other direction.
#
# One table per interface, netdev family, named PREFIX_bh_IFNAME (run prefix
# in front, so that tests/run-tests.sh can find the root namespace's tables
# of a run that was killed), with a named counter `dropped` that the drop
# rule counts in. blackhole_off flushes the chain (the drops stop at one
# instant) and keeps the table, so the count stays readable; lab_cleanup
# deletes the tables (those in a lab namespace would go with it anyway).
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [info script]] harness blackhole.tcl]

package require json

namespace eval blackhole {
    # "HOST IFNAME" of the blackholes whose tables exist
    variable on {}
}

proc blackhole_on {host ifname args} {
    set loss 100
    set match ""
    set hook ingress
    foreach {k v} $args {
        switch -- $k {
            -hook { set hook $v }
            -loss { set loss $v }
            -match { set match $v }
            default { error "blackhole_on: unknown option $k" }
        }
    }
    if {![string is integer -strict $loss] || $loss < 0 || $loss > 100} {
        error "blackhole_on: -loss wants 0..100, got '$loss'"
    }
    if {$hook ni {ingress egress both}} {
        error "blackhole_on: -hook wants ingress, egress or both, got '$hook'"
    }
    set table [blackhole_prepare $host $ifname]
    set rule "$match"
    if {$loss < 100} { append rule " numgen random mod 100 < $loss" }
    append rule " counter name dropped drop"
    # One transaction: the rule replaced and its counter zeroed at one
    # instant.
    set add ""
    foreach h [expr {$hook eq "both" ? {ingress egress} : [list $hook]}] {
        append add "add rule netdev $table $h $rule\n"
    }
    _blackhole_nft $host $table "flush chain netdev $table ingress
flush chain netdev $table egress
reset counter netdev $table dropped
$add"
    return $table
}

# Create the (empty) table and chains for IFNAME in HOST, unless they
# exist; return the table's name. blackhole_on does it when needed, but
# registering a hook costs the kernel an RCU grace period (tens of ms on a
# busy machine): a test that times its outage calls this first, so that
# blackhole_on only adds a rule.
proc blackhole_prepare {host ifname} {
    set table [_blackhole_table $ifname]
    if {[lsearch -exact $::blackhole::on [list $host $ifname]] >= 0} {
        return $table
    }
    if {![info exists ::blackhole::hooked]} {
        set ::blackhole::hooked 1
        lab_on_cleanup {blackhole_off_all}
    }
    lappend ::blackhole::on [list $host $ifname]
    # `table` before `delete table`: a left-over table of a killed run goes.
    _blackhole_nft $host $table "table netdev $table
delete table netdev $table
table netdev $table {
  counter dropped { }
  chain ingress {
    type filter hook ingress device \"$ifname\" priority 0; policy accept;
  }
  chain egress {
    type filter hook egress device \"$ifname\" priority 0; policy accept;
  }
}
"
    return $table
}

proc blackhole_off {host ifname} {
    set table [_blackhole_table $ifname]
    _blackhole_nft $host $table "flush chain netdev $table ingress
flush chain netdev $table egress
"
    return [blackhole_drops $host $ifname]
}

# Packets the blackhole on HOST's IFNAME has dropped since it was turned on.
proc blackhole_drops {host ifname} {
    set table [_blackhole_table $ifname]
    set j [json::json2dict [lab_exec $host nft -j list counter netdev $table dropped]]
    foreach item [dict get $j nftables] {
        if {[dict exists $item counter packets]} {
            return [dict get $item counter packets]
        }
    }
    error "no counter in table $table"
}

# Delete every blackhole table (lab_cleanup); never raises.
proc blackhole_off_all {} {
    unset -nocomplain ::blackhole::hooked
    foreach hi $::blackhole::on {
        lassign $hi host ifname
        catch {lab_exec $host nft delete table netdev [_blackhole_table $ifname]}
    }
    set ::blackhole::on {}
}

proc _blackhole_nft {host table text} {
    set f [lab_file nft-$table.conf]
    _lab_write $f $text
    lab_exec $host nft -f $f
}

proc _blackhole_table {ifname} {
    return "[lab_prefix]_bh_[regsub -all {[^A-Za-z0-9_]} $ifname _]"
}
