#!/usr/bin/python3
"""Write a pcap of frames addressed to one of vbrd's own addresses, in the
three punt classes that are not BGP from a peer (frr/cplane): TCP SYNs to
port 179 and 22 from sources off the interface's subnet (class tcp), ICMP
timestamp requests (class icmp: vbrd answers only echo itself) and UDP to
ports no vbrd service holds (class other), interleaved.

  punt_flood.py OUT.pcap DST_MAC DST_IP COUNT

Sources are 198.51.100.0/24 (RFC 5737), source MAC 02:00:00:00:00:01.
Replayed by net_pcap with infinite_rx=1 it is a flood as fast as the
worker polls the port.
"""
import struct
import sys

from inetcsum import inet_csum


def ipv4(src, dst, proto, payload):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, 64, proto, 0, src, dst)
    return hdr[:10] + struct.pack("!H", inet_csum(hdr)) + hdr[12:] + payload


def l4_csum(src, dst, proto, seg):
    pseudo = src + dst + struct.pack("!BBH", 0, proto, len(seg))
    return inet_csum(pseudo + seg)


def tcp_syn(src, dst, sport, dport):
    seg = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x02, 8192, 0, 0)
    return seg[:16] + struct.pack("!H", l4_csum(src, dst, 6, seg)) + seg[18:]


def udp(src, dst, sport, dport):
    seg = struct.pack("!HHHH", sport, dport, 8 + 18, 0) + b"\0" * 18
    return seg[:6] + struct.pack("!H", l4_csum(src, dst, 17, seg)) + seg[8:]


def icmp_timestamp(ident):
    msg = struct.pack("!BBHHHIII", 13, 0, 0, ident, 1, 0, 0, 0)
    return msg[:2] + struct.pack("!H", inet_csum(msg)) + msg[4:]


def main():
    out, dmac, dip, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    dmac = bytes.fromhex(dmac.replace(":", ""))
    smac = bytes.fromhex("020000000001")
    dst = bytes(int(x) for x in dip.split("."))
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(count):
            src = bytes([198, 51, 100, 1 + i % 250])
            kind = i % 4
            if kind == 0:
                pkt = ipv4(src, dst, 6, tcp_syn(src, dst, 1024 + i % 60000, 179))
            elif kind == 1:
                pkt = ipv4(src, dst, 6, tcp_syn(src, dst, 1024 + i % 60000, 22))
            elif kind == 2:
                pkt = ipv4(src, dst, 1, icmp_timestamp(i & 0xFFFF))
            else:
                pkt = ipv4(src, dst, 17, udp(src, dst, 1024 + i % 60000, 40000 + i % 1000))
            frame = dmac + smac + struct.pack("!H", 0x0800) + pkt
            frame = frame.ljust(60, b"\0")
            f.write(struct.pack("<IIII", 0, i, len(frame), len(frame)) + frame)


if __name__ == "__main__":
    main()
