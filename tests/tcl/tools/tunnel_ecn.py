#!/usr/bin/env python3
"""gen DIR: VXLAN frames, outer CE, inner ECT(0): one with a corrupt header
checksum, a control frame with a right one, and one whose inner frame has an
802.1Q tag (RFC 7348 §6.1: discarded), both without CE (fast path) and with
(general path). check DIR: print the number of frames written to out.pcap
whose IPv4 destination is 198.19.0.17 (the control), 198.19.0.18 (corrupt:
must be 0) and 198.19.0.19 (tagged: must be 0)."""
import os, struct, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fastpath import mac, ipv4, udp, eth, write_pcap, read_pcap, PCAP_MAC

R, L, S = "172.16.1.2", "172.16.1.1", "10.1.0.2"

def vx(inner_dg, outer_tos, vid=0):
    if vid:
        inner = eth("02:00:00:00:00:55", "02:00:00:00:00:44", 0x8100,
                    struct.pack("!HH", vid, 0x0800) + inner_dg, pad=False)
    else:
        inner = eth("02:00:00:00:00:55", "02:00:00:00:00:44", 0x0800, inner_dg, pad=False)
    v = struct.pack("!B3xI", 0x08, 1000 << 8) + inner
    o = ipv4(R, L, 17, udp(R, L, 49999, 4789, v, cks=False), tos=outer_tos)
    return eth(PCAP_MAC[0], "02:00:00:00:00:77", 0x0800, o)

def U(dst, **kw):
    return ipv4(S, dst, 17, udp(S, dst, 1234, 5678, b"x" * 20), **kw)

cmd, d = sys.argv[1], sys.argv[2]
if cmd == "gen":
    write_pcap(os.path.join(d, "ce-in.pcap"),
               [vx(U("198.19.0.17", tos=2), 3), vx(U("198.19.0.18", tos=2, bad_csum=True), 3),
                vx(U("198.19.0.19", tos=2), 0, vid=5), vx(U("198.19.0.19", tos=2), 3, vid=5)])
else:
    n = {17: 0, 18: 0, 19: 0}
    for f in read_pcap(os.path.join(d, "ce-out.pcap")):
        for k in n:
            if f[30:34] == bytes([198, 19, 0, k]): n[k] += 1
            if f[34:38] == bytes([198, 19, 0, k]): n[k] += 1  # tagged
    print(n[17], n[18], n[19])
