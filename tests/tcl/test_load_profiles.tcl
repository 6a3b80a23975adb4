# The load-test profiles of vm/load/ replayed through vbrd, each on its
# paired config (vm/load/conf/NAME.conf with its `ports` section replaced
# by af_packet veths, its one-line instance/workers/eal settings dropped).
#
#   gen0 (TRex port 0)  eth0 02:00:00:00:01:02 ── p0 lan0 [vbrd] lan1 p1 ── eth0 02:00:00:00:02:02  gen1 (port 1)
#
# The hosts have no IP addresses: their MACs are the configs' static
# neighbors, so nothing ARPs. Each profile's streams are built through the
# TRex stand-in (tools/trex-standin, test-only) by tools/load_replay.py:
# a bounded number of frames per stream following its field engine and
# its share of the rate, sent raw from gen0 and counted per stream at gen1.
# Asserted per profile: every stream (pg_id) received what it sent, vbrd's
# interface counters saw exactly that, and where the profile is about
# classes, `show qos lan1` counted each class's packets, with no tail drop.
# Also: ndr-pdr.py against the stand-in's simulated DUT, and the pktgen Lua
# scripts (luac -p, then run against tools/pktgen_stub.lua).

set here [file dirname [file normalize [info script]]]
set load_dir [file join $::vbrd::root vm load]
set tool [file join $here tools load_replay.py]
set py /usr/bin/python3
set gen_mac {02:00:00:00:01:02 02:00:00:00:02:02}
set profiles {vbrd_64b vbrd_imix vbrd_roce_tcp vbrd_flows vbrd_vxlan vbrd_latency}

lab_host gen0 "" ""
lab_host gen1 "" ""
lab_exec gen0 ip link set eth0 address [lindex $gen_mac 0]
lab_exec gen1 ip link set eth0 address [lindex $gen_mac 1]

set plandir [file join [lab_rundir] load]
file mkdir $plandir
set plan_out [exec $py $tool plan $plandir 200 \
    {*}[lmap p $profiles {file join $load_dir trex $p.py}] 2>@1]

# NAME.conf with the veths as ports.
proc load_conf {name} {
    set text [_lab_read [file join $::load_dir conf $name.conf]]
    if {![regsub {\nports = \(.*?\n\);\n} $text "\nports = (\n  { name = \"p0\"; devargs = \"net_af_packet0,iface=@gen0@,framecnt=4096\"; },\n  { name = \"p1\"; devargs = \"net_af_packet1,iface=@gen1@,framecnt=4096\"; }\n);\n" text]} {
        error "$name.conf: no ports section"
    }
    regsub -all -line {^(instance|workers|eal) = .*;$} $text {} text
    return $text
}

# Send NAME's frames from gen0, count them at gen1; return the result dict.
proc load_replay {name} {
    set plan [file join $::plandir $name.json]
    set out [file join $::plandir $name.out.json]
    set rx [lab_spawn gen1 -lifetime 40 $::py $::tool recv eth0 $plan $out 15]
    wait_for_condition 100 50 {[string match "*ready*" [lab_spawn_output $rx]]} else {
        fail "the receiver did not start: [lab_spawn_output $rx]"
    }
    lab_exec gen0 $::py $::tool send eth0 $plan [lindex $::gen_mac 0] [port_stat p0 mac]
    if {![lab_wait_exit $rx 30000]} { fail "the receiver did not finish" }
    return [json::json2dict [_lab_read $out]]
}

proc qos_classes {} {
    set d {}
    foreach c [dict get [vbrctl show qos lan1] classes] {
        dict set d [dict get $c class] [dict get $c packets]
    }
    return $d
}

# Expected vbrd class of each stream (profiles about classes).
set class_of {
    vbrd_roce_tcp {rocev2 rocev2 cnp cnp tcp tcp}
    vbrd_latency {lat-ef ef load-ef ef lat-af41 af41 load-af41 af41 lat-af21 af21
                  load-af21 af21 lat-be - load-be -}
}

foreach name $profiles {
    start_vbrd [list conf [load_conf $name]] {
        test "$name: every stream arrives whole through vbrd on $name.conf" {
            set r [load_replay $name]
            set total 0
            set lines {}
            foreach s [dict get $r streams] {
                incr total [dict get $s sent]
                lappend lines [format "%s (pg_id %s%s) sent %d received %d dropped %d" \
                    [dict get $s name] [dict get $s pg_id] \
                    [expr {[dict get $s latency] ? ", latency" : ""}] [dict get $s sent] \
                    [dict get $s received] [expr {[dict get $s sent] - [dict get $s received]}]]
            }
            note "$name: [join $lines {; }]"
            set ::result($name) $r
            assert_equal [dict get $r unmatched] 0 "frames at gen1 that no stream sent: [dict get $r unmatched_samples]"
            foreach s [dict get $r streams] {
                assert_equal [dict get $s received] [dict get $s sent] "stream [dict get $s name] received"
            }
            assert_equal [iface_stat lan0 rx_packets] $total "lan0 rx_packets"
            assert_equal [iface_stat lan1 tx_packets] $total "lan1 tx_packets"
            assert_equal [port_stat p1 tx_packets] $total "port p1 tx_packets"
        }

        if {[dict exists $class_of $name]} {
            test "$name: vbrd's per-class counters match what each class sent" {
                set r $::result($name)
                set want {}
                set unclassified 0
                foreach {stream cls} [dict get $class_of $name] {
                    foreach s [dict get $r streams] {
                        if {[dict get $s name] ne $stream} continue
                        if {$cls eq "-"} {
                            incr unclassified [dict get $s sent]
                        } else {
                            dict incr want $cls [dict get $s sent]
                        }
                    }
                }
                set got [qos_classes]
                set q [vbrctl show qos lan1]
                set qlines {}
                foreach row [dict get $q queues] {
                    lappend qlines "[dict get $row business]/[dict get $row queue] enqueued [dict get $row enqueued] sent [dict get $row packets] queue_full [dict get $row queue_full]"
                    assert_equal [dict get $row queue_full] 0 "queue_full of [dict get $row business]/[dict get $row queue]"
                }
                set line [lindex [dict get $q lines] 0]
                note "$name: vbrd classes $got, unclassified [dict get $line unclassified]; queues: [join $qlines {; }]"
                dict for {cls n} $want {
                    assert_equal [dict get $got $cls] $n "class $cls packets"
                }
                assert_equal [dict get $line unclassified] $unclassified "unclassified packets"
            }
        }

        if {$name eq "vbrd_vxlan"} {
            test "vbrd_vxlan: the tunnel decapsulated every packet" {
                set t [lindex [dict get [vbrctl show tunnels] tunnels] 0]
                set sent [dict get [lindex [dict get $::result($name) streams] 0] sent]
                assert_equal [dict get $t rx_packets] $sent "tunnel vx0 rx_packets"
            }
        }

        if {$name eq "vbrd_flows"} {
            test "vbrd_flows: the flows spread over both ECMP next hops" {
                set s [lindex [dict get $::result($name) streams] 0]
                set macs [dict get $s dst_macs]
                note "vbrd_flows: per next-hop MAC $macs"
                foreach m {02:00:00:00:02:02 02:00:00:00:02:03} {
                    set n [expr {[dict exists $macs $m] ? [dict get $macs $m] : 0}]
                    assert_morethan $n [expr {[dict get $s sent] / 5}] "frames to $m"
                }
            }
        }
    }
}

test {ndr-pdr.py finds the simulated DUT's NDR and PDR within its precision} {
    set out [exec env PYTHONDONTWRITEBYTECODE=1 TREX_STANDIN_DUT=ndr=1234567,pdr=1300000 \
        PYTHONPATH=[file join $here tools trex-standin] \
        $py [file join $load_dir ndr-pdr.py] --profile [file join $load_dir trex vbrd_64b.py] \
        --max-rate 10mpps --precision 0.005 --trial-duration 10 --json - 2>@1]
    set j [json::json2dict [lindex [split [string trim $out] "\n"] end]]
    note "ndr-pdr: NDR [dict get $j ndr lower]..[dict get $j ndr upper] PDR [dict get $j pdr lower]..[dict get $j pdr upper] pps in [dict get $j trials] trials"
    foreach {kind true} {ndr 1234567 pdr 1300000} {
        set lo [dict get $j $kind lower]
        set hi [dict get $j $kind upper]
        assert_range $true $lo $hi "$kind bounds"
        assert_lessthan [expr {($hi - $lo) / double($hi)}] 0.0050001 "$kind relative width"
    }
}

test {ndr-pdr.py: a minimum rate that passes short trials and fails long ones is the upper bound} {
    # 10 kpps loses 1 in 150000 here: nothing in 1 s trials, 2 in 30 s
    set out [exec env PYTHONDONTWRITEBYTECODE=1 TREX_STANDIN_DUT=ndr=5000,pdr=5000000 \
        PYTHONPATH=[file join $here tools trex-standin] \
        $py [file join $load_dir ndr-pdr.py] --profile [file join $load_dir trex vbrd_64b.py] \
        --max-rate 10mpps --min-rate 10kpps --json - 2>@1]
    set j [json::json2dict [lindex [split [string trim $out] "\n"] end]]
    assert_equal [dict get $j ndr lower] null "NDR lower (the minimum failed)"
    assert_equal [dict get $j ndr upper] 10000.0 "NDR upper: the lowest rate that failed"
    set lost {}
    foreach t [dict get $j results] {
        if {[dict get $t pps] == 10000.0 && [dict get $t duration] == 30.0} {
            lappend lost [dict get $t loss_ratio]
        }
    }
    assert_true {[llength $lost] > 0 && [::tcl::mathfunc::min {*}$lost] > 0} "loss in each 30 s trial at 10 kpps: $lost"
}

test {the pktgen-dpdk Lua scripts parse and run against a stub of pktgen's API} {
    set luac [auto_execok luac5.4]
    if {$luac eq ""} { skip "luac5.4 not installed (package lua5.4)" }
    foreach f [lsort [glob [file join $load_dir pktgen *.lua]]] {
        exec {*}$luac -p $f
        set out [exec lua5.4 [file join $here tools pktgen_stub.lua] $f 2>@1]
        assert_match "*stub: * calls, ok*" $out "[file tail $f] under the stub"
    }
}

test {every paired config passes vbrd --check-config as shipped (PCI ports)} {
    foreach f [lsort [glob [file join $load_dir conf *.conf]]] {
        lassign [vbrd_run --check-config $f] rc out
        assert_equal $rc 0 "[file tail $f]: $out"
    }
    assert_equal [llength [glob [file join $load_dir conf *.conf]]] [llength $profiles] "one config per profile"
}

test {the TRex stand-in loads a profile as TRex 2.89+ does: tunables also as an argparse list} {
    set standin [file join $here tools trex-standin]
    set prof [file join [lab_rundir] strict_prof.py]
    _lab_write $prof "from trex.stl.api import *\n\nclass P:\n    def get_streams(self, direction=0, port_id=0, size=64):\n        return \[\]\n\ndef register():\n    return P()\n"
    lassign [lab_run - env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$standin $py -c "from trex.stl.api import *\nSTLProfile.load_py('$prof', size=128)"] rc out
    assert_equal $rc 1 "exit status, a get_streams without **kwargs: $out"
    assert_match "*unexpected keyword argument 'tunables'*" $out "the error"
    set files [lmap name $profiles {file join $load_dir trex $name.py}]
    lassign [lab_run - env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$standin $py -c "import sys\nfrom trex.stl.api import *\nfor f in sys.argv\[1:\]: print(len(STLProfile.load_py(f).get_streams()))" {*}$files] rc out
    assert_equal $rc 0 "the profiles load with tunables=\[\]: $out"
    assert_equal [llength $out] [llength $profiles] "profiles loaded: $out"
}

test {the TRex stand-in refuses what it does not implement} {
    set standin [file join $here tools trex-standin]
    foreach {code want} {
        {STLStream(packet=STLPktBuilder(pkt=Ether()/IP()), dummy_stream=True)}
        {*NotImplementedError: TRex stand-in: STLStream: unsupported argument(s) dummy_stream*}
        {STLVmFlowVar(name="x", min_value=0, max_value=9, size=2, op="inc", value_list=[1])}
        {*NotImplementedError: TRex stand-in: STLVmFlowVar: unsupported argument(s) value_list*}
        {STLVmTupleGen(name="t", ip_min="16.0.0.1", ip_max="16.0.0.9")}
        {*NameError: name 'STLVmTupleGen' is not defined*}
        {STLPktBuilder(pkt=Ether()/IP(), vm=[STLVmWrFlowVar(fv_name="x", pkt_offset="IP.src")])}
        {*STLError: STLVmWrFlowVar: no flow variable 'x'*}
    } {
        lassign [lab_run - env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$standin $py -c "from trex.stl.api import *\n$code"] rc out
        assert_equal [expr {$rc != 0}] 1 "exit status of $code"
        assert_match $want $out
    }
}
