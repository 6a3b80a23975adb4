# Thousands of tunnels and path groups: a cross-region gateway with many
# remote VPCs (a VNI each) must not stop at 64 tunnels and 64 path groups,
# and decapsulation finds a tunnel in one hash lookup wherever it is in
# the list (tunnel_lookup(), pipeline/tunnel.h).
#
#   h1 -- vbrd edge == line1 == vbrd region -- h2 (harness/twosite.tcl)
#
# Both sides get 3000 more tunnels to each other (VNIs 2000..4999), the
# edge one path group each; the last one carries 10.2.2.128/25 (h2's
# second address 10.2.2.200) from the edge to the region, which finds
# VNI 4999 among 3001 tunnels of one remote.

source [file join [file dirname [file normalize [info script]]] harness twosite.tcl]

set n 3000
set edge_t {}; set region_t {}; set edge_g {}
for {set i 0} {$i < $n} {incr i} {
    set vni [expr {2000 + $i}]
    lappend edge_t "  { name = \"e$i\"; type = \"vxlan\"; vni = $vni; local = \"192.168.100.1\"; remote = \"192.168.100.2\"; }"
    lappend region_t "  { name = \"r$i\"; type = \"vxlan\"; vni = $vni; local = \"192.168.100.2\"; remote = \"192.168.100.1\"; }"
    lappend edge_g "  { name = \"g$i\"; paths = ( { name = \"p$i\"; tunnel = \"e$i\"; interface = \"line1\"; via = \"172.16.1.2\"; } ); }"
}
set last [expr {$n - 1}]

start_twosite [list edge_tunnels [join $edge_t ",\n"] region_tunnels [join $region_t ",\n"] \
                   edge_groups [join $edge_g ",\n"] \
                   edge_routes "  { prefix = \"10.2.2.0/24\"; path_group = \"region\"; },
  { prefix = \"10.2.2.128/25\"; path_group = \"g$last\"; }"] {
    test "$n + 1 tunnels and path groups load and show" {
        assert_equal [llength [dict get [twosite_vbrctl edge show tunnels] tunnels]] [expr {$n + 1}] "edge tunnels"
        assert_equal [llength [dict get [twosite_vbrctl region show tunnels] tunnels]] [expr {$n + 1}] "region tunnels"
        assert_equal [llength [dict get [twosite_vbrctl edge show paths] path_groups]] [expr {$n + 1}] "edge path groups"
    }

    test "ping over the last tunnel (VNI [expr {2000 + $last}]): the region decapsulates it among $n + 1 tunnels of one remote" {
        lab_exec h2 ip addr add 10.2.2.200/24 dev eth0
        assert_ping h1 10.2.2.200 5
        set rx 0
        foreach t [dict get [twosite_vbrctl region show tunnels] tunnels] {
            if {[dict get $t name] eq "r$last"} { set rx [dict get $t rx_packets] }
        }
        assert_morethan $rx 4 "packets decapsulated by r$last"
        assert_equal [dict get [twosite_vbrctl region show stats] drops tunnel_bad_vni] 0 "tunnel_bad_vni at the region"
    }
}

test {more than 4096 tunnels: refused with FILE:LINE, naming the limit} {
    set f [file join [lab_rundir] many-tunnels.conf]
    set t {}
    for {set i 0} {$i < 4097} {incr i} {
        lappend t "{ name = \"t$i\"; type = \"vxlan\"; vni = [expr {$i + 1}]; local = \"10.0.0.1\"; remote = \"10.0.0.2\"; }"
    }
    _lab_write $f "ports = ( { name = \"p\"; devargs = \"net_null0\"; } );
interfaces = ( { name = \"i\"; port = \"p\"; address = \"10.0.0.1/24\"; } );
tunnels = (
[join $t ",\n"]
);
"
    lassign [vbrd_run --check-config $f] rc out
    assert_equal $rc 2 "exit status: $out"
    assert_match "$f:3: tunnels: 4097 *4096*" [string trim $out]
}
