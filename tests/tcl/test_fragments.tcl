# IPv4 fragmentation on the way (RFC 791 §3.2): vbrd fragments a datagram
# (or a fragment) larger than the egress MTU when DF is clear, and refuses
# a fragment whose offset × 8 plus payload ends past 65535 bytes — the
# largest datagram — instead of re-fragmenting it into offsets that wrap
# into the flag bits.
#
#   in (net_pcap rx: fragments.pcap) ── src 10.0.0.1/16 [vbrd] dst 198.18.0.1/30 (mtu 1000)
#                                          ── out (net_pcap tx: out.pcap), 198.19.0.0/16 via 198.18.0.2
#
# The fragments go through pcap files, not veths: DPDK's af_packet PMD
# joins a PACKET_FANOUT group with the defragment flag, so the kernel
# would reassemble (or hold back) fragments before vbrd saw them.

source [file join [file dirname [file normalize [info script]]] harness frames.tcl]

set pcap_mac [binary format H* 027063617000] ;# net_pcap's first port (tests/perf/README.md)
set host_mac [binary format H* 020000000001]

# An IPv4 packet 10.0.0.2 -> DST, protocol UDP, identification ID, flags
# and offset FO (offset in 8-byte units, MF 0x2000, DF 0x4000), TOTAL
# bytes long (header included; the payload is filler: a non-first
# fragment has no UDP header), in an Ethernet frame to vbrd.
proc fragment {dst id fo total} {
    set h [binary format cc 0x45 0][be16 $total][be16 $id][be16 $fo]
    append h [binary format cc 64 17] [be16 0] [ip4 10.0.0.2] [ip4 $dst]
    set h "[string range $h 0 9][be16 [inet_csum $h]][string range $h 12 end]"
    return "$::pcap_mac$::host_mac[be16 0x0800]$h[string repeat f [expr {$total - 20}]]"
}

# The IPv4 frames of out.pcap with identification ID, each as
# "offset=BYTES mf=0|1 df=0|1 rsv=0|1 payload=BYTES".
proc sent_with_id {id} {
    set out {}
    foreach f [read_pcap [file join [lab_rundir] out.pcap]] {
        binary scan $f @12Su type
        if {$type != 0x0800} continue
        binary scan $f @14cuc@16Su@18Su@20Su vhl - total ident fo
        if {$ident != $id} continue
        lappend out [format "offset=%d mf=%d df=%d rsv=%d payload=%d" \
                         [expr {($fo & 0x1fff) * 8}] [expr {$fo >> 13 & 1}] \
                         [expr {$fo >> 14 & 1}] [expr {$fo >> 15}] \
                         [expr {$total - ($vhl & 15) * 4}]]
    }
    return $out
}

# Replayed once, at start. Each: identification, destination, flags|offset, total length.
set frags {
    0x4201 198.19.1.1 0x3d4c 1400
    0x4202 198.19.1.1 0x3fa4 1400
    0x4203 198.19.1.1 0x1fa4 755
    0x4204 10.0.0.1   0x3fa4 1400
    0x4205 198.19.1.1 0x1fff 28
}
# 0x3d4c = MF | 7500 (60000 bytes), 0x3fa4 = MF | 8100 (64800 bytes),
# 0x1fa4 = 8100, 0x1fff = the largest offset (65528 bytes)
write_pcap [file join [lab_rundir] fragments.pcap] [lmap {id dst fo total} $frags {
    fragment $dst $id $fo $total
}]
set nframes [expr {[llength $frags] / 4}]

start_vbrd {conf {
ports = (
  { name = "in"; devargs = "net_pcap0,rx_pcap=@rundir@/fragments.pcap"; },
  { name = "out"; devargs = "net_pcap1,tx_pcap=@rundir@/out.pcap"; }
);
interfaces = (
  { name = "src"; port = "in"; address = "10.0.0.1/16"; },
  { name = "dst"; port = "out"; address = "198.18.0.1/30"; mtu = 1000; }
);
routes = (
  { prefix = "198.19.0.0/16"; via = "198.18.0.2"; }
);
neighbors = (
  { interface = "dst"; address = "198.18.0.2"; mac = "02:00:00:00:00:99"; }
);
}} {
    test "all $nframes fragments are received" {
        wait_for_condition 50 100 {[port_stat in rx_packets] == $nframes} else {
            fail "port rx_packets [port_stat in rx_packets], want $nframes (frames in the pcap)"
        }
        # the worker may still hold the last ones: wait for their outcome
        wait_for_condition 50 100 {
            [stat forwarded] + [stat drops_total] >= $nframes
        } else {}
    }

    test {a 1400-byte fragment at offset 60000 leaves (MTU 1000) as two fragments with the right offsets and flags} {
        # The control of the next test: same size, an offset that fits.
        # 1380 bytes of payload at 60000 end at 61380; at MTU 1000 a
        # fragment carries 976 bytes (a multiple of 8), and both keep MF.
        assert_equal [sent_with_id 0x4201] [list "offset=60000 mf=1 df=0 rsv=0 payload=976" \
                                                "offset=60976 mf=1 df=0 rsv=0 payload=404"] \
            "frames written to out.pcap"
        assert_equal [stat fragments] 2 "show stats fragments"
    }

    test {a fragment ending past 65535 bytes is dropped as frag_oversize; nothing of it leaves} {
        # 1380 bytes at offset 64800 would end at 66180: no datagram is
        # that long (RFC 791 §3.2), and its re-fragments' offsets would
        # wrap past 13 bits into the flags. Also one that needs no
        # re-fragmenting (8 bytes at 65528), and one to vbrd's own address.
        foreach id {0x4202 0x4205} {
            set sent [sent_with_id $id]
            if {[llength $sent]} {
                fail "frames with identification $id written to out.pcap: [join $sent {; }]"
            }
        }
        set st [vbrctl show stats]
        if {![dict exists $st drops frag_oversize]} {
            fail "show stats has no drops.frag_oversize"
        }
        assert_equal [dict get $st drops frag_oversize] 3 "drops frag_oversize"
        assert_equal [dict get $st drops unsupported_local] 0 "drops unsupported_local"
    }

    test {the last fragment of a 65535-byte datagram (ending at exactly 65535) is still forwarded} {
        # 64800 + 735 = 65535
        assert_equal [sent_with_id 0x4203] [list "offset=64800 mf=0 df=0 rsv=0 payload=735"] \
            "frames written to out.pcap"
    }

    test {every fragment is accounted for: 3 forwarded (two of them fragments of one), 3 dropped} {
        set st [vbrctl show stats]
        assert_equal [dict get $st forwarded] 3 "forwarded"
        assert_equal [dict get $st drops_total] 3 "drops_total"
        assert_equal [llength [read_pcap [file join [lab_rundir] out.pcap]]] 3 "frames in out.pcap"
    }
}
