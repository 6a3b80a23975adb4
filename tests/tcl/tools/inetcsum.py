"""The Internet checksum (RFC 1071), the one copy the lab tools import.

IPv4 headers (RFC 791), ICMP (RFC 792), ICMPv6 (RFC 4443 §2.3), UDP
(RFC 768) and TCP (RFC 9293) all carry it; for the last three the caller
puts the pseudo-header (RFC 768 / RFC 8200 §8.1) in front of the segment.
A tool in this folder imports it with `from inetcsum import inet_csum`
(Python puts the script's own folder first on sys.path); a script run with
`python3 -c` inserts this folder into sys.path first.
"""

import struct


def inet_csum(data):
    """The checksum of DATA (bytes): the 16-bit one's complement of the
    one's complement sum of its 16-bit big-endian words, an odd length
    padded with a zero byte (RFC 1071 §1).

    Summed over data whose checksum field is 0 it is the value to store
    there; summed over data that holds a right checksum it is 0. For UDP
    a computed 0 is sent as 0xFFFF (RFC 768): callers do `or 0xFFFF`."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF
