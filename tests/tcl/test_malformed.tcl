# Malformed IPv4 input (RFC 1812 §5.2.2 checks) from a pcap file: each bad
# frame is dropped and counted under its reason, and vbrd goes on serving.
#
# build/.../pcapgen malformed FILE writes the frames and prints how many it
# wrote per reason ("truncated 7", ...): those counts are the expectation.

set count 7
set pcap [file join [lab_rundir] malformed.pcap]
set gen_out ""
set gen_err ""
if {[catch {exec [build_tool pcapgen] malformed $pcap --count $count 2>@1} gen_out]} {
    set gen_err $gen_out
}
set expect [dict create]
foreach line [split $gen_out "\n"] {
    if {[regexp {^(\w+) (\d+)$} $line -> reason n]} {
        dict set expect $reason $n
    }
}

start_vbrd {conf {
ports = (
  { name = "in"; devargs = "net_pcap0,rx_pcap=@rundir@/malformed.pcap"; }
);
interfaces = (
  { name = "src"; port = "in"; address = "10.0.0.1/16"; }
);
}} {
    test {pcapgen wrote the malformed pcap} {
        assert_equal $gen_err "" "pcapgen failed"
        foreach r {truncated bad_ihl bad_version bad_checksum} {
            assert_true {[dict exists $expect $r]} "pcapgen printed no count for $r: $gen_out"
            assert_equal [dict get $expect $r] $count "pcapgen's count for $r"
        }
    }

    test {every frame of the pcap is received} {
        set total 0
        dict for {r n} $expect { incr total $n }
        wait_for_condition 50 100 {[port_stat in rx_packets] == $total} else {
            fail "port rx_packets [port_stat in rx_packets], want $total (frames in the pcap)"
        }
    }

    test {each malformed frame is counted under its drop reason} {
        dict for {r n} $expect {
            if {$r eq "valid"} continue
            assert_equal [drops $r] $n "drops.$r"
        }
    }

    test {vbrd still answers after the malformed input} {
        assert_equal [port_stat in link] up
        set st [vbrctl show stats]
        assert_morethan [dict get $st drops_total] 0
    }
}
