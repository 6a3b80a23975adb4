# Byte-level building blocks for tests that craft their own frames (no
# scapy): big-endian integers, addresses, the RFC 1071 checksum, Ethernet
# and IPv4 headers, a raw-socket exchange from a lab host, and pcap files
# (what a net_pcap port replays and what it writes).

proc be16 {v} { return [binary format S [expr {$v & 0xffff}]] }
proc be32 {v} { return [binary format I [expr {$v & 0xffffffff}]] }

# "02:00:00:00:00:01" -> 6 bytes
proc mac {s} { return [binary format H* [string map {: ""} $s]] }

# "10.0.0.1" -> 4 bytes
proc ip4 {a} {
    set o 0
    foreach b [split $a .] { set o [expr {($o << 8) | $b}] }
    return [be32 $o]
}

# "2001:db8:1::1" -> 16 bytes (full "::" expansion, no IPv4 tail).
proc ip6 {a} {
    set halves [split [string map {:: |} $a] |]
    set head [expr {[lindex $halves 0] eq "" ? {} : [split [lindex $halves 0] :]}]
    set tail {}
    if {[llength $halves] > 1 && [lindex $halves 1] ne ""} {
        set tail [split [lindex $halves 1] :]
    }
    set groups [concat $head [lrepeat [expr {8 - [llength $head] - [llength $tail]}] 0] $tail]
    set out ""
    foreach g $groups { append out [be16 [scan $g %x]] }
    return $out
}

# RFC 1071 checksum of BYTES (a byte string).
proc inet_csum {bytes} {
    if {[string length $bytes] % 2} { append bytes \x00 }
    binary scan $bytes Su* words
    set s 0
    foreach w $words { incr s $w }
    while {$s >> 16} { set s [expr {($s & 0xffff) + ($s >> 16)}] }
    return [expr {~$s & 0xffff}]
}

# Ethernet frame DST SRC (6 bytes each) of ethertype TYPE; VLAN "" =
# untagged, else an 802.1Q tag with that VID (0: a priority tag).
proc eth_frame {dst src type payload {vlan ""}} {
    set h "$dst$src"
    if {$vlan ne ""} { append h [be16 0x8100] [be16 $vlan] }
    return "$h[be16 $type]$payload"
}

# IPv4 header (no options, TTL 64, checksum correct) + payload.
proc ipv4_packet {src dst proto payload} {
    set h [binary format cc 0x45 0][be16 [expr {20 + [string length $payload]}]][be16 1][be16 0]
    append h [binary format cc 64 $proto] [be16 0] [ip4 $src] [ip4 $dst]
    return "[string range $h 0 9][be16 [inet_csum $h]][string range $h 12 end]$payload"
}

# {ETHERTYPE PAYLOAD} of FRAME, past any 802.1Q tags.
proc l3_of {frame} {
    set off 12
    binary scan $frame @${off}Su type
    while {$type == 0x8100} {
        incr off 4
        binary scan $frame @${off}Su type
    }
    return [list $type [string range $frame [expr {$off + 2}] end]]
}

# Send FRAMES (byte strings) from HOST's eth0 with a raw socket
# (tools/rawio.py), return the frames it received during the next
# WAIT_MS ms.
proc raw_exchange {host wait_ms frames} {
    set hex [lmap f $frames {binary encode hex $f}]
    set out [lab_exec $host /usr/bin/python3 $::rawio eth0 $wait_ms {*}$hex]
    return [lmap l [split [string trim $out] "\n"] {
        if {$l eq ""} continue
        binary decode hex $l
    }]
}

# Write FRAMES (byte strings) to a pcap file (libpcap format, LINKTYPE_ETHERNET).
proc write_pcap {file frames} {
    set fd [open $file wb]
    puts -nonewline $fd [binary format issiiii 0xa1b2c3d4 2 4 0 0 65535 1]
    set t 0
    foreach f $frames {
        set n [string length $f]
        puts -nonewline $fd [binary format iiii 1 [incr t] $n $n]
        puts -nonewline $fd $f
    }
    close $fd
}

# The frames of a pcap file (libpcap format, either byte order, as DPDK's
# net_pcap writes it with tx_pcap=FILE), as a list of byte strings; {} when
# the file is missing or empty. A record cut short at the end (the writer
# is still at it) is left out.
proc read_pcap {file} {
    if {[catch {open $file rb} fd]} { return {} }
    set data [read $fd]
    close $fd
    if {[string length $data] < 24} { return {} }
    binary scan $data iu magic
    # 0xa1b2c3d4 (µs) or 0xa1b23c4d (ns) in our byte order, else swapped
    set le [expr {$magic == 0xa1b2c3d4 || $magic == 0xa1b23c4d}]
    set fmt [expr {$le ? "iu" : "Iu"}]
    set out {}
    set off 24
    while {$off + 16 <= [string length $data]} {
        binary scan $data @[expr {$off + 8}]$fmt caplen
        set end [expr {$off + 16 + $caplen}]
        if {$end > [string length $data]} { break }
        lappend out [string range $data [expr {$off + 16}] [expr {$end - 1}]]
        set off $end
    }
    return $out
}
