# Byte-level building blocks for tests that craft their own frames (no
# scapy): big-endian integers, addresses, the RFC 1071 checksum.

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
