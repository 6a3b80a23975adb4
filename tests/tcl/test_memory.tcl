# eal.memory_mb, the memory vbrd runs in without hugepages, is checked
# against what the config needs (pipeline/mem.c): the packet mempool, the
# indirect one, rings and the neighbor table, and ONE FIB and FIB6 (a
# 64 MiB table each): a reload changes them in place (pipeline/fib.h).
# Below that, --check-config and start-up refuse the file and say how much
# it needs; at that figure vbrd runs and takes reloads, and a reload that
# would need a second FIB (it outgrows the first) is refused, naming the
# limit, with the running config kept.
#
# The config is the reported one: two af_packet ports of MTU 9000 with IPv6
# addresses; it needed more than its 512 MiB when a reload built a second
# FIB, and fits now: 400 MiB is too small. Each jumbo mbuf takes 20 KiB of
# 4 KiB pages.

lab_host h1 10.0.1.2/24 10.0.1.1 -mtu 9000
lab_host h2 10.0.2.2/24 10.0.2.1 -mtu 9000

proc mem_conf {mb {routes ""}} {
    if {$routes eq ""} {
        set routes {{ prefix = "2001:db8:9::/48"; via = "2001:db8:1::2"; }}
    }
    return [string map [list @mb@ $mb @routes@ $routes] {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; mtu = 9000; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; mtu = 9000; }
);
interfaces = (
  { name = "lan1"; port = "p1"; addresses = [ "10.0.1.1/24", "2001:db8:1::1/64" ]; },
  { name = "lan2"; port = "p2"; addresses = [ "10.0.2.1/24", "2001:db8:2::1/64" ]; }
);
routes = ( @routes@ );
eal = { hugepages = false;
        memory_mb = @mb@; };
}]
}

# Write the config with MB MiB to a file of the run directory; return
# {FILE LINE}, LINE being the line of memory_mb in it.
proc mem_file {mb} {
    set f [lab_file mem$mb.conf]
    vbrd_write_config $f [mem_conf $mb] "[lab_prefix]-memchk" [file join [lab_rundir] memchk.sock]
    set n 0
    foreach l [split [_lab_read $f] "\n"] {
        incr n
        if {[string match "*memory_mb = $mb;*" $l]} { return [list $f $n] }
    }
    error "no memory_mb line in $f"
}

# Check that `vbrd ARGS FILE` refuses MB MiB in FILE (at LINE); return the
# MiB the message says the config needs.
proc assert_refused {mb args} {
    lassign [mem_file $mb] f line
    lassign [vbrd_run {*}$args $f] rc out
    assert_equal $rc 2 "vbrd $args with memory_mb $mb: exit status (output: $out)"
    set re "^[string map {. \\.} $f]:$line: eal.memory_mb: $mb MiB is too small for this config: it needs at least (\\d+) MiB \\(packet mbufs \\d+ x 20 KiB = \\d+, .*\\)$"
    if {![regexp -line $re $out -> need]} {
        fail "vbrd $args: no \"$f:$line: eal.memory_mb: $mb MiB is too small ...\" line in:\n$out"
    }
    return $need
}

set need 0

test {--check-config refuses memory_mb 400 with MTU 9000 and IPv6, saying how much it needs} {
    set ::need [assert_refused 400 --check-config]
    # the jumbo mbufs alone: 16383 x 20 KiB = 320 MiB; one FIB pair 128 MiB
    assert_morethan $::need [expr {320 + 128}] "MiB needed"
    assert_lessthan $::need 512 "MiB needed: the reported config fits its 512 MiB"
    note "needs $::need MiB"
}

test {one MiB below that is refused by --check-config and at start-up} {
    if {$::need == 0} { skip "no figure from the previous test" }
    assert_equal [assert_refused [expr {$::need - 1}] --check-config] $::need
    assert_equal [assert_refused [expr {$::need - 1}] -c] $::need
}

if {$need > 0} {
    start_vbrd [list conf [mem_conf $need]] {
        test {at that figure vbrd forwards and takes 3 reloads} {
            assert_ping h1 10.0.2.2 2
            set gen [dict get [vbrctl show config] generation]
            for {set i 1} {$i <= 3} {incr i} {
                lassign [vbrctl_raw reload] rc out
                assert_equal $rc 0 "reload $i at $::need MiB: $out"
            }
            assert_equal [dict get [vbrctl show config] generation] [expr {$gen + 3}]
            assert_ping h1 10.0.2.2 2
        }

        test {a reload that outgrows the FIB and has no memory for a second one is refused, naming the limit} {
            # 300 /32s in distinct /24s: more tbl8 groups than the FIB's
            # headroom (256); refused by the FIB sizing, or already by the
            # memory check when the larger FIB tips the MiB figure over
            set rs {}
            for {set i 0} {$i < 300} {incr i} {
                lappend rs "{ prefix = \"100.[expr {$i / 256}].[expr {$i % 256}].1/32\"; via = \"10.0.1.2\"; }"
            }
            set gen [dict get [vbrctl show config] generation]
            vbrd_rewrite_config [mem_conf $::need [join $rs ",\n"]]
            lassign [vbrctl_raw reload] rc out
            assert_equal $rc 1 "reload past the FIB's capacity: $out"
            assert_regexp {fib\.ipv4_tbl8.*cannot be allocated|eal\.memory_mb: \d+ MiB is too small} $out
            assert_equal [dict get [vbrctl show config] generation] $gen
            assert_ping h1 10.0.2.2 2
        }
    }
}
