# BFD authentication (RFC 5880 §6.7): simple password (§6.7.2), keyed and
# meticulous keyed SHA1 (§6.7.4), against tools/bfd_peer.py, a peer written
# from the RFC (FRR 8.4's bfdd has no authentication: the last test shows
# it on the wire). Every session is single-hop on one line to host `peer`,
# whose eth0 has one address per session, each with its own bfd_peer.py;
# 100 ms x 5 on both ends (Python's timing on a shared 2-core machine).
#
#   peer 10.9.0.2/24 + .11 .. .25 ── line 10.9.0.1/24 [vbrd] line2 10.9.1.1/24 ── 10.9.1.2/24 frr (bfdd)
#
# session   vbrd's auth                   the peer's
# simple    simple 1 "pass-one"           the same             -> Up
# keyed     keyed-sha1 2 "sha1-key-two"   the same             -> Up
# metic     meticulous-sha1 3 "metic-3"   the same             -> Up
# simple_x  simple 1 "pass-one"           "pass-two"           -> bfd_auth_bad
# keyed_x   keyed-sha1 2 "sha1-key-two"   "sha1-key-2"         -> bfd_auth_bad
# metic_x   meticulous-sha1 3 "metic-3"   "metic-4"            -> bfd_auth_bad
# keyid_x   meticulous-sha1 5 "metic-3"   key id 6, same key   -> bfd_auth_key_id
# none_x    keyed-sha1 2 "sha1-key-two"   no auth              -> bfd_auth_mismatch
# frr       keyed-sha1 1 "frr-key"        FRR: no auth         -> bfd_auth_mismatch

source [file join [file dirname [file normalize [info script]]] harness frr.tcl]
source [file join [file dirname [file normalize [info script]]] harness bfdtest.tcl]

# name  peer address  vbrd's auth {type key_id key}  the peer's (bfd_peer.py options)
set sessions {
    simple   10.9.0.11 {simple 1 pass-one}           {--auth simple --key-id 1 --key pass-one}
    keyed    10.9.0.12 {keyed-sha1 2 sha1-key-two}   {--auth keyed-sha1 --key-id 2 --key sha1-key-two}
    metic    10.9.0.13 {meticulous-sha1 3 metic-3}   {--auth meticulous-sha1 --key-id 3 --key metic-3}
    simple_x 10.9.0.21 {simple 1 pass-one}           {--auth simple --key-id 1 --key pass-two}
    keyed_x  10.9.0.22 {keyed-sha1 2 sha1-key-two}   {--auth keyed-sha1 --key-id 2 --key sha1-key-2}
    metic_x  10.9.0.23 {meticulous-sha1 3 metic-3}   {--auth meticulous-sha1 --key-id 3 --key metic-4}
    keyid_x  10.9.0.24 {meticulous-sha1 5 metic-3}   {--auth meticulous-sha1 --key-id 6 --key metic-3}
    none_x   10.9.0.25 {keyed-sha1 2 sha1-key-two}   {--auth none}
}

lab_host peer 10.9.0.2/24 10.9.0.1
lab_host frr 10.9.1.2/24 10.9.1.1
set rows ""
foreach {name addr auth -} $sessions {
    lab_exec peer ip addr add $addr/24 dev eth0
    lassign $auth type id key
    append rows "    { name = \"$name\"; interface = \"line\"; peer = \"$addr\";\n"
    append rows "      auth = { type = \"$type\"; key_id = $id; key = \"$key\"; }; },\n"
}
append rows {    { name = "frr"; interface = "line2"; peer = "10.9.1.2";
      auth = { type = "keyed-sha1"; key_id = 1; key = "frr-key"; }; }}

set conf [string map [list @ROWS@ $rows] {
ports = (
  { name = "p0"; devargs = "net_af_packet0,iface=@peer@"; },
  { name = "p1"; devargs = "net_af_packet1,iface=@frr@"; }
);
interfaces = (
  { name = "line";  port = "p0"; address = "10.9.0.1/24"; },
  { name = "line2"; port = "p1"; address = "10.9.1.1/24"; }
);
bfd = {
  transmit_interval = 100; receive_interval = 100; detect_multiplier = 5;
  sessions = (
@ROWS@
  );
};
}]

proc session {name} {
    return [lindex [dict get [vbrctl show bfd $name] sessions] 0]
}

proc wait_session {name state ms} {
    wait_for_condition [expr {$ms / 50}] 50 {[dict get [session $name] state] eq $state} else {
        fail "session $name not $state after $ms ms: [session $name]"
    }
}

start_vbrd [list conf $conf] {
    foreach {name addr - opts} $sessions {
        set peer($name) [bfdpeer_start peer $addr 10.9.0.1 --tx-ms 100 --rx-ms 100 --mult 5 {*}$opts]
    }

    test "simple, keyed-sha1 and meticulous-sha1 with the same key: both ends Up, discriminators agreed" {
        foreach name {simple keyed metic} {
            wait_session $name Up 15000
            bfdpeer_wait $peer($name) state Up 5000
        }
        foreach name {simple keyed metic} {
            set v [session $name]
            set p [bfdpeer_status $peer($name)]
            assert_equal [dict get $v auth] [dict get {simple simple keyed keyed-sha1 metic meticulous-sha1} $name] "$name: vbrd's auth type"
            assert_equal [dict get $v remote_disc] [dict get $p local_disc] "$name: vbrd's remote = the peer's local"
            assert_equal [dict get $p remote_disc] [dict get $v local_disc] "$name: the peer's remote = vbrd's local"
            assert_equal [dict get $p remote_state] Up "$name: the peer sees vbrd Up"
            assert_equal [dict get $p auth_failures] 0 "$name: the peer rejected none of vbrd's packets"
            assert_equal [bfd_session_drops $name] {} "$name: vbrd dropped none of the peer's packets"
        }
    }

    test "capture: vbrd's packets carry the A bit and the auth section of the session's type, key id and length" {
        set cap [bfd_capture peer eth0 {udp and src host 10.9.0.1 and dst port 3784} 120]
        bfd_capture_wait $cap
        set pkts [bfd_pcap [lindex $cap 1]]
        assert_equal [llength $pkts] 120 "packets in the capture"
        foreach {name addr want} {simple 10.9.0.11 {1 11 1} keyed 10.9.0.12 {4 28 2}
                                  metic 10.9.0.13 {5 28 3}} {
            lassign $want type alen kid
            set mine [bfd_pkts_where $pkts dst $addr]
            assert_morethan [llength $mine] 10 "$name: vbrd's packets captured"
            set seqs {}
            foreach p $mine {
                assert_equal [dict get $p ttl] 255 "$name: TTL (RFC 5881 §5)"
                assert_equal [dict get $p a] 1 "$name: A bit"
                assert_equal [dict get $p auth_type] $type "$name: Auth Type (§4.1)"
                # simple: 3 + the 8-byte password (§4.2); SHA1: 28 (§4.4)
                assert_equal [dict get $p auth_len] $alen "$name: Auth Len"
                assert_equal [dict get $p key_id] $kid "$name: Auth Key ID"
                assert_equal [dict get $p length] [expr {24 + $alen}] "$name: Length"
                assert_equal [dict get $p udp_len] [expr {8 + 24 + $alen}] "$name: UDP length"
                if {[dict exists $p seq]} { lappend seqs [dict get $p seq] }
            }
            if {$name eq "metic"} {
                # §6.7.4: meticulous "MUST be incremented" on every packet
                for {set i 1} {$i < [llength $seqs]} {incr i} {
                    set d [expr {([lindex $seqs $i] - [lindex $seqs $i-1]) & 0xffffffff}]
                    assert_equal $d 1 "meticulous sequence step at packet $i of $seqs"
                }
                note "meticulous: [llength $seqs] packets, sequence [lindex $seqs 0]..[lindex $seqs end]"
            }
        }
    }

    test "meticulous SHA1: a replayed packet of the peer is dropped as bfd_auth_seq, a forged one (its sequence number moved into the window) as bfd_auth_bad" {
        set cap [bfd_capture peer eth0 {udp and src host 10.9.0.13 and dst port 3784} 1]
        bfd_capture_wait $cap
        set p [lindex [bfd_pcap [lindex $cap 1]] 0]
        assert_equal [list [dict get $p auth_type] [dict get $p a]] {5 1} "a meticulous packet of the peer"
        set pay [dict get $p payload]
        # wait until vbrd has taken a later one: RcvAuthSeq is past it
        set rx0 [dict get [session metic] rx]
        wait_for_condition 100 20 {[dict get [session metic] rx] > $rx0 + 1} else {
            fail "metic receives nothing: [session metic]"
        }
        # a forgery: a Sequence Number (bytes 28-31) inside the window
        # (RcvAuthSeq+1 .. RcvAuthSeq+15 at 5 x 100 ms), 12 ahead of the
        # peer's last (which goes on sending: the forgery must arrive
        # before 12 more, 0.9 s at least), and the old digest
        set seq [expr {([dict get [bfdpeer_status $peer(metic)] xmit_seq] + 12) & 0xffffffff}]
        set tampered [string replace $pay 56 63 [format %08x $seq]]
        set before [bfd_drops]
        set flaps [dict get [session metic] flaps]
        # from another source port (the digest covers the BFD packet only)
        bfd_craft peer 10.9.0.13 10.9.0.1 -sport 49998 -payload $tampered
        bfd_craft peer 10.9.0.13 10.9.0.1 -sport 49998 -payload $pay
        wait_for_condition 100 20 {
            [llength [bfd_session_drops metic]] == 4
        } else {
            fail "replay and forgery not both counted: [bfd_session_drops metic]"
        }
        dict incr before bfd_auth_seq
        dict incr before bfd_auth_bad
        # the refused sessions' peers still send (bfd_auth_bad, _key_id, _mismatch)
        foreach r {bfd_auth_bad bfd_auth_key_id bfd_auth_mismatch} { dict unset before $r }
        set after [bfd_drops]
        foreach r {bfd_auth_bad bfd_auth_key_id bfd_auth_mismatch} { dict unset after $r }
        assert_equal $after $before "bfd_* drops: bfd_auth_seq +1 (and bfd_auth_bad +1), the others unchanged"
        assert_equal [lsort -stride 2 [bfd_session_drops metic]] {auth_bad 1 auth_seq 1} "metic's drops"
        set s [session metic]
        assert_equal [list [dict get $s state] [dict get $s flaps]] [list Up $flaps] "metic: state, flaps"
        set ::crafted {bfd_auth_seq 1 bfd_auth_bad 1}
    }

    # name -> {vbrd's reason, the peer's reason}
    set refused {simple_x {auth_bad bad} keyed_x {auth_bad bad} metic_x {auth_bad bad}
                 keyid_x {auth_key_id key_id} none_x {auth_mismatch mismatch}}

    test "wrong key, wrong key id, no auth: vbrd stays Down and drops every packet of the peer under its reason" {
        dict for {name why} $refused {
            lassign $why vreason preason
            wait_for_condition 100 100 {
                [dict exists [bfd_session_drops $name] $vreason] &&
                [dict get [bfdpeer_status $peer($name)] auth_reasons $preason] >= 2
            } else {
                fail "$name: no $vreason drops in vbrd ([bfd_session_drops $name]) or $preason in the peer ([bfdpeer_status $peer($name)])"
            }
        }
        set want_total {}
        dict for {name why} $refused {
            lassign $why vreason preason
            set p [bfdpeer_stop $peer($name)]
            # every packet the peer sent, and nothing else, is in vbrd's count
            wait_for_condition 50 50 {
                [dict get [bfd_session_drops $name] $vreason] >= [dict get $p tx]
            } else {
                fail "$name: vbrd counted [bfd_session_drops $name], the peer sent [dict get $p tx]"
            }
            assert_equal [bfd_session_drops $name] [list $vreason [dict get $p tx]] "$name: vbrd's drops = the peer's packets"
            dict incr want_total bfd_$vreason [dict get $p tx]
            set v [session $name]
            assert_equal [dict get $v state] Down "$name: vbrd's state"
            assert_equal [dict get $v ups] 0 "$name: never Up"
            assert_equal [dict get $v rx] 0 "$name: no packet accepted"
            assert_equal [dict get $v remote_disc] 0 "$name: the peer's discriminator never learnt"
            assert_equal [dict get $p state] Down "$name: the peer's state"
            assert_equal [dict get $p rx] 0 "$name: the peer accepted none of vbrd's packets"
            assert_equal [dict get $p auth_failures] [dict get $p auth_reasons $preason] "$name: the peer's reason is $preason"
            assert_morethan [dict get $p auth_failures] 1 "$name: the peer refused vbrd's packets"
        }
        set ::want_total $want_total
    }

    test "show stats counts the refused packets under bfd_auth_bad, bfd_auth_key_id, bfd_auth_mismatch" {
        set d [bfd_drops]
        set want $::want_total
        # and the replayed and the forged packet of the test above
        if {[info exists ::crafted]} {
            dict for {reason n} $::crafted { dict incr want $reason $n }
        }
        dict for {reason n} $want {
            assert_equal [dict get $d $reason] $n "drops $reason"
        }
        foreach reason {bfd_auth_type bfd_auth_unsupported bfd_bad_length} {
            assert_equal [dict get $d $reason] 0 "drops $reason"
        }
    }

    # FRR 8.4.4's bfdd has no authentication code at all: it neither sets
    # the A bit nor looks at it, so it takes vbrd's authenticated packets
    # as plain ones (it learns vbrd's discriminator and goes Init), while
    # vbrd refuses FRR's unauthenticated ones (RFC 5880 §6.8.6): the
    # session never comes Up.
    test "FRR's bfdd (no authentication) sends no A bit: vbrd drops its packets as bfd_auth_mismatch, the session never comes Up" {
        set cap [bfd_capture frr eth0 {udp port 3784} 10000 60]
        frr_start frr [frr_bfd_conf {"10.9.1.1 interface eth0 local-address 10.9.1.2"} \
                           -interval 100 -multiplier 5]
        wait_for_condition 100 100 {
            [dict exists [bfd_session_drops frr] auth_mismatch] &&
            [dict get [bfd_session_drops frr] auth_mismatch] >= 3
        } else {
            fail "vbrd dropped no FRR packet as auth_mismatch: [bfd_session_drops frr] [session frr]"
        }
        set fst [frr_bfd_peer_state frr 10.9.1.1]
        assert_true {$fst in {down init}} "FRR's view: $fst (never up)"
        frr_kill frr bfdd
        # a marker after FRR's last packet: once it is in the capture, so is all of FRR's
        bfd_craft frr 10.9.1.2 10.9.1.1 -sport 49333 my_disc=0
        wait_for_condition 100 50 {
            [llength [bfd_pkts_where [bfd_pcap [lindex $cap 1]] sport 49333]] == 1
        } else {
            fail "the marker is not in the capture"
        }
        lab_kill [lindex $cap 0]
        set frr_pkts {}
        set vbrd_pkts {}
        foreach p [bfd_pcap [lindex $cap 1]] {
            if {[dict get $p src] eq "10.9.1.2" && [dict get $p sport] != 49333} {
                lappend frr_pkts $p
            } elseif {[dict get $p src] eq "10.9.1.1"} {
                lappend vbrd_pkts $p
            }
        }
        set vdisc [dict get [session frr] local_disc]
        set frr_init 0
        foreach p $frr_pkts {
            assert_equal [dict get $p a] 0 "FRR's A bit"
            assert_true {[dict get $p state] != 3} "FRR never sends Up"
            if {[dict get $p state] == 2 && [dict get $p your_disc] == $vdisc} { incr frr_init }
            assert_equal [dict get $p length] 24 "FRR's Length: no auth section"
            assert_equal [dict get $p udp_len] 32 "FRR's UDP length"
        }
        foreach p $vbrd_pkts {
            assert_equal [list [dict get $p a] [dict get $p auth_type] [dict get $p auth_len]] {1 4 28} "vbrd's A bit, Auth Type, Auth Len"
        }
        note "captured [llength $frr_pkts] FRR packets (A bit 0, Length 24; $frr_init of them Init with vbrd's discriminator: FRR ignores the A bit), [llength $vbrd_pkts] vbrd packets (A bit 1, keyed SHA1)"
        assert_morethan [llength $frr_pkts] 2 "FRR's packets captured"
        assert_equal [bfd_session_drops frr] [list auth_mismatch [llength $frr_pkts]] "vbrd's drops = FRR's packets"
        set v [session frr]
        assert_equal [list [dict get $v state] [dict get $v ups] [dict get $v rx]] {Down 0 0} "vbrd's session: state, ups, rx"
    }
}
