#!/usr/bin/env python3
"""BFD control packets (RFC 5880 §4) of a pcap file, as JSON lines.

    bfd_pcap.py FILE

One line per IPv4 or IPv6 UDP datagram to port 3784 or 4784 in FILE
(classic libpcap, Ethernet link type, as `tcpdump -w` writes), oldest
first (a capture still being written is read up to its last whole
record): src, dst, ttl (IPv4 TTL / IPv6 hop limit), sport, dport, udp_len,
payload (the UDP payload in hex),
version, diag, state, flags (P F C A D M as letters, "" for none), a
(the A bit, 0/1), mult, length (the Length field), my_disc, your_disc,
and with the A bit: auth_type, auth_len, key_id, and for the SHA1 and
MD5 types seq (the Sequence Number). Parsed from the bytes here, not by
tcpdump's dissector. Last, t_us: the capture time, µs since the epoch.
"""

import ipaddress
import json
import struct
import sys

ETH_IPV4, ETH_IPV6, ETH_VLAN = 0x0800, 0x86DD, 0x8100


def packets(f):
    hdr = f.read(24)
    if len(hdr) < 24:
        return  # tcpdump has not written its header yet
    magic = struct.unpack("<I", hdr[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        e = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        e = ">"
    else:
        raise SystemExit("not a libpcap file")
    if struct.unpack(e + "I", hdr[20:24])[0] != 1:
        raise SystemExit("link type is not Ethernet")
    while True:
        rec = f.read(16)
        if len(rec) < 16:
            return
        sec, usec, incl, _ = struct.unpack(e + "IIII", rec)
        frame = f.read(incl)
        if len(frame) < incl:
            return  # a record tcpdump is still writing
        yield sec * 1000000 + usec, frame


def bfd(frame):
    etype = struct.unpack("!H", frame[12:14])[0]
    off = 14
    if etype == ETH_VLAN:
        etype = struct.unpack("!H", frame[16:18])[0]
        off = 18
    if etype == ETH_IPV4:
        ihl = (frame[off] & 0x0F) * 4
        ttl, proto = frame[off + 8], frame[off + 9]
        src = str(ipaddress.IPv4Address(frame[off + 12:off + 16]))
        dst = str(ipaddress.IPv4Address(frame[off + 16:off + 20]))
        l4 = off + ihl
    elif etype == ETH_IPV6:
        proto, ttl = frame[off + 6], frame[off + 7]
        src = str(ipaddress.IPv6Address(frame[off + 8:off + 24]))
        dst = str(ipaddress.IPv6Address(frame[off + 24:off + 40]))
        l4 = off + 40
    else:
        return None
    if proto != 17:
        return None
    sport, dport, ulen = struct.unpack("!HHH", frame[l4:l4 + 6])
    if dport not in (3784, 4784):
        return None
    p = frame[l4 + 8:l4 + ulen]
    d = dict(src=src, dst=dst, ttl=ttl, sport=sport, dport=dport, udp_len=ulen, payload=p.hex())
    if len(p) < 24:
        d["short"] = len(p)
        return d
    vd, sf, mult, length, my, your = struct.unpack("!BBBBII", p[:12])
    flags = "".join(c for c, bit in zip("PFCADM", (0x20, 0x10, 0x08, 0x04, 0x02, 0x01))
                    if sf & bit)
    d.update(version=vd >> 5, diag=vd & 0x1F, state=sf >> 6, flags=flags,
             a=1 if sf & 0x04 else 0, mult=mult, length=length, my_disc=my, your_disc=your)
    if sf & 0x04 and len(p) >= 27:
        d.update(auth_type=p[24], auth_len=p[25], key_id=p[26])
        if p[24] in (2, 3, 4, 5) and len(p) >= 32:
            d["seq"] = struct.unpack("!I", p[28:32])[0]
    return d


def main():
    with open(sys.argv[1], "rb") as f:
        for t_us, frame in packets(f):
            d = bfd(frame)
            if d is not None:
                d["t_us"] = t_us
                print(json.dumps(d))


if __name__ == "__main__":
    sys.exit(main())
