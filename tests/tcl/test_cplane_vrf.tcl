# The control plane's VRF devices (frr/cplane, issue 23; conf/README.md
# "FRR per VRF"): for a VRF without a netns of its own, vbrd makes a
# kernel VRF device in cplane.netns (named after the VRF, its table) and
# enslaves the TAPs of the VRF's interfaces to it, so that one FRR peers
# per VRF (`router bgp ASN vrf NAME`).
#
#   h1 10.1.0.2/24 ── lan-a 10.1.0.1/24 (VRF vpc-a, table 100)  [vbrd]
#   h2 10.2.0.2/24 ── line1 10.2.0.1/24 (VRF default)
#                     TAPs vb-lan-a, vb-line1 in cp; device vpc-a there (if the kernel has VRFs)
#
# Which kernel this is decides what is asserted (never a skip): `ip link
# add ... type vrf` in a scratch namespace says whether it has the VRF
# driver.
#   - without it (this test machine's kernel): vbrd starts, the TAP
#     vb-lan-a is there unenslaved with its address, `show cplane` reports
#     the device of vpc-a as state "none" with the reason and counts the
#     refusal, the log has the one line for vpc-a, and a reload tries
#     again without a second line;
#   - with it (Debian 12's): the device vpc-a exists with table 100 and
#     vb-lan-a's master is it; a reload that moves lan-a to the VRF
#     default frees the TAP, one that changes vpc-a's table remakes the
#     device, one that removes vpc-a deletes it; vbrd's stop removes it.

lab_host h1 10.1.0.2/24 10.1.0.1
lab_host h2 10.2.0.2/24 10.2.0.1
set cpns [lab_netns cp]
set scratch [lab_netns vrfprobe]

set has_vrf [expr {![catch {exec ip -n $scratch link add vbrd-probe type vrf table 4242 2>@1}]}]
note [expr {$has_vrf ? "this kernel has VRF devices" : "this kernel has no VRF driver"}]

# vbrd's config: lan-a in VRF VRF (vpc-a or default), vpc-a's table TABLE (none: no vpc-a).
proc cvrf_conf {{vrf vpc-a} {table 100}} {
    set vrfs [expr {$table eq "none" ? "" : "vrfs = ( { name = \"vpc-a\"; table = $table; } );"}]
    return [string map [list @cpns@ $::cpns @vrfs@ $vrfs @vrf@ $vrf] {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; }
);
@vrfs@
interfaces = (
  { name = "lan-a"; port = "p1"; vrf = "@vrf@"; address = "10.1.0.1/24"; },
  { name = "line1"; port = "p2"; address = "10.2.0.1/24"; }
);
cplane = { netns = "@cpns@"; };
}]
}

# The row of `show cplane`'s LIST (taps, vrfs) whose KEY is VALUE, or {}.
proc cp_row {list key value} {
    foreach r [dict get [vbrctl show cplane] $list] {
        if {[dict get $r $key] eq $value} { return $r }
    }
    return {}
}

# `ip -d -j link show dev DEV` in the control namespace, as a dict ({} if none).
proc cp_link {dev} {
    if {[catch {exec ip -n $::cpns -d -j link show dev $dev 2>/dev/null} out]} { return {} }
    return [lindex [json::json2dict $out] 0]
}

# The master of DEV in the control namespace ("" for none).
proc cp_master {dev} {
    set l [cp_link $dev]
    return [expr {[dict exists $l master] ? [dict get $l master] : ""}]
}

# The VRF table of device DEV in the control namespace ("" if it is none).
proc cp_vrf_table {dev} {
    set l [cp_link $dev]
    if {![dict exists $l linkinfo info_kind] || [dict get $l linkinfo info_kind] ne "vrf"} {
        return ""
    }
    return [dict get $l linkinfo info_data table]
}

set no_driver_line "VRF vpc-a: the kernel has no VRF driver: its TAPs are not enslaved; give the VRF a netns (conf/README.md FRR per VRF)"

start_vbrd [list conf [cvrf_conf]] {
    test "the TAPs are made in cplane.netns, lan-a's with its address" {
        wait_for_condition 100 50 {[cp_link vb-lan-a] ne {} && [cp_link vb-line1] ne {}} else {
            fail "no TAPs in $cpns: [exec ip -n $cpns link]"
        }
        wait_for_condition 100 50 {
            [string match "*10.1.0.1/24*" [exec ip -n $cpns addr show dev vb-lan-a]]
        } else {
            fail "vb-lan-a has not its address: [exec ip -n $cpns addr show dev vb-lan-a]"
        }
        assert_equal [dict get [cp_row taps interface lan-a] netns] $cpns "lan-a's TAP namespace"
    }

    if {!$has_vrf} {
        test "no VRF driver: vpc-a's device is 'none' with the reason, counted, logged once; the TAP unenslaved" {
            set r [cp_row vrfs vrf vpc-a]
            assert_true {$r ne {}} "show cplane has a vrfs row for vpc-a: [vbrctl show cplane]"
            note "show cplane vrfs: $r"
            assert_equal [dict get $r state] none "state"
            assert_equal [dict get $r device] vpc-a "device"
            assert_equal [dict get $r table] 100 "table"
            assert_match "*the kernel has no VRF driver*give the VRF a netns*" [dict get $r error] "error"
            assert_equal [cp_link vpc-a] {} "no device vpc-a in $cpns"
            assert_equal [cp_master vb-lan-a] "" "vb-lan-a's master"
            assert_equal [dict get [cp_row taps interface lan-a] master] "" "show cplane: lan-a's master"
            set c [vbrctl show cplane]
            assert_morethan [dict get $c vrf_no_driver] 0 "vrf_no_driver counts the refusal"
            assert_equal [dict get $c vrf_errors] 0 "vrf_errors"
            assert_equal [llength [lsearch -all [split [vbrd_log] "\n"] "*$no_driver_line"]] 1 \
                "the log's no-driver line for vpc-a"
        }

        test "no VRF driver: a reload tries again, counts it, logs nothing more; the TAP keeps its address" {
            set n0 [dict get [vbrctl show cplane] vrf_no_driver]
            vbrd_reload [cvrf_conf]
            assert_equal [dict get [vbrctl show cplane] vrf_no_driver] [expr {$n0 + 1}] "vrf_no_driver"
            assert_equal [dict get [cp_row vrfs vrf vpc-a] state] none "state"
            assert_equal [llength [lsearch -all [split [vbrd_log] "\n"] "*$no_driver_line"]] 1 \
                "the no-driver line, still once"
            assert_match "*10.1.0.1/24*" [exec ip -n $cpns addr show dev vb-lan-a] "vb-lan-a's address"
            # lan-a to the VRF default, vpc-a removed: no row, no line
            vbrd_reload [cvrf_conf default none]
            assert_equal [cp_row vrfs vrf vpc-a] {} "vpc-a's row after its removal"
            assert_equal [cp_master vb-lan-a] "" "vb-lan-a's master"
        }
    } else {
        test "VRF driver: device vpc-a with table 100, up; vb-lan-a enslaved to it, vb-line1 not" {
            wait_for_condition 100 50 {[cp_vrf_table vpc-a] ne ""} else {
                fail "no VRF device vpc-a in $cpns: [exec ip -n $cpns -d link]"
            }
            assert_equal [cp_vrf_table vpc-a] 100 "vpc-a's table"
            assert_equal [cp_master vb-lan-a] vpc-a "vb-lan-a's master"
            assert_equal [cp_master vb-line1] "" "vb-line1's master"
            set r [cp_row vrfs vrf vpc-a]
            note "show cplane vrfs: $r"
            assert_equal [dict get $r state] up "state"
            assert_equal [dict get $r error] "" "error"
            assert_equal [dict get [cp_row taps interface lan-a] master] vpc-a "show cplane: lan-a's master"
            # enslaving cycled the TAP: its address is set again
            wait_for_condition 100 50 {
                [string match "*10.1.0.1/24*" [exec ip -n $cpns addr show dev vb-lan-a]]
            } else {
                fail "vb-lan-a lost its address: [exec ip -n $cpns addr show dev vb-lan-a]"
            }
        }

        test "VRF driver: reloads free the TAP, remake the device with a new table, delete it" {
            vbrd_reload [cvrf_conf default 100]
            assert_equal [cp_master vb-lan-a] "" "vb-lan-a's master after moving to default"
            assert_equal [cp_vrf_table vpc-a] 100 "vpc-a kept"
            vbrd_reload [cvrf_conf vpc-a 101]
            assert_equal [cp_vrf_table vpc-a] 101 "vpc-a's new table"
            assert_equal [cp_master vb-lan-a] vpc-a "vb-lan-a enslaved again"
            assert_match "*10.1.0.1/24*" [exec ip -n $cpns addr show dev vb-lan-a] "vb-lan-a's address"
            vbrd_reload [cvrf_conf default none]
            assert_equal [cp_link vpc-a] {} "vpc-a deleted with the VRF"
            vbrd_reload [cvrf_conf]
            assert_equal [cp_vrf_table vpc-a] 100 "vpc-a made again"
        }
    }
}

test "vbrd's stop leaves no VRF device and no TAP in cplane.netns" {
    assert_equal [cp_link vpc-a] {} "vpc-a"
    assert_equal [cp_link vb-lan-a] {} "vb-lan-a"
}
