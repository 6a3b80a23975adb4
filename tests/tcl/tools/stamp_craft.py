#!/usr/bin/env python3
"""Hand-made STAMP packets (RFC 8762, unauthenticated), for hostile-input tests.

    stamp_craft.py send --src ADDR --dst ADDR [--sport N] [--dport 862]
                        [--kind test|reply] [--seq N] [--size N] [--udp-len N]
                        [--ttl 64] [--count 1] [--pps 0] [--seq-step 0]
                        [--age-ms 100]
    stamp_craft.py probes --iface IF [--count 3] [--timeout 5]

send: COUNT IPv4 datagrams from ADDR:N (default 40000) to ADDR:PORT from
a raw socket (IP_HDRINCL: the source address is the one given, any the
host may not own). The UDP payload is a Session-Sender test packet
(§4.2.1, --kind test, the default) or a Session-Reflector test packet
(§4.3.1, --kind reply, as a reflector answers a probe numbered --seq:
Sequence Number and Session-Sender Sequence Number both SEQ, Session-Sender
Timestamp --age-ms ago (default 100), Receive Timestamp and Timestamp
half-way since), 44 bytes, cut or zero-padded to --size bytes. --udp-len sets the UDP
Length field to N whatever the payload (a lying length; the IP Total Length
stays the real one, and the UDP checksum is 0, "none" for IPv4, RFC 768);
otherwise the checksum is computed. --seq-step K numbers the packets SEQ,
SEQ+K, SEQ+2K, ... (default 0: all SEQ). --src-count N sends packet i from
ADDR + (i mod N) (N spoofed senders, each a session of its own). --pps
paces the packets (0: as fast as the socket takes them). Prints one JSON
line: sent.

probes: reads frames on IF until COUNT VXLAN (UDP 4789) frames carrying a
STAMP test packet (inner IPv4 UDP to port 862) came by, or TIMEOUT
seconds, and prints one JSON line: probes, a list of outer_src, outer_dst,
outer_sport, inner_src, inner_dst, sport (the sender's port, where its
replies go), seq.

Layouts from the RFC, not from vbrd's code (see stamp_peer.py, whose
packet classes it uses).
"""

import argparse
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import stamp_peer as sp  # noqa: E402
from inetcsum import inet_csum  # noqa: E402


def datagram(a, payload):
    src, dst = socket.inet_aton(a.src), socket.inet_aton(a.dst)
    real_len = 8 + len(payload)
    udp_len = a.udp_len if a.udp_len is not None else real_len
    udp = struct.pack("!HHHH", a.sport, a.dport, udp_len & 0xFFFF, 0) + payload
    if a.udp_len is None:
        c = inet_csum(src + dst + struct.pack("!BBH", 0, socket.IPPROTO_UDP, real_len) + udp) or 0xFFFF
        udp = udp[:6] + struct.pack("!H", c) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, a.ttl,
                     socket.IPPROTO_UDP, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", inet_csum(ip)) + ip[12:]
    return ip + udp


def payload_of(a, seq):
    seq &= 0xFFFFFFFF
    now = sp.ntp_now()
    if a.kind == "test":
        p = bytes(sp.StampTest(seq=seq, timestamp=now))
    else:
        # T1 --age-ms ago, T2 = T3 half-way: a reply whose RTT is positive
        # however the receiver's clock lags this host's by less than that
        t = time.time()
        t1 = sp.to_ntp(t - a.age_ms / 1000.0)
        t23 = sp.to_ntp(t - a.age_ms / 2000.0)
        p = bytes(sp.StampReflected(seq=seq, timestamp=t23, receive_timestamp=t23,
                                    sender_seq=seq, sender_timestamp=t1,
                                    sender_error_estimate=sp.ERROR_ESTIMATE, sender_ttl=255))
    size = len(p) if a.size is None else a.size
    return p[:size].ljust(size, b"\0")


def cmd_send(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 21)
    pkt = datagram(a, payload_of(a, a.seq))
    first = struct.unpack("!I", socket.inet_aton(a.src))[0]
    payload = payload_of(a, a.seq)
    start = time.monotonic()
    for i in range(a.count):
        if a.seq_step:
            pkt = datagram(a, payload_of(a, (a.seq + i * a.seq_step) & 0xFFFFFFFF))
        elif a.src_count > 1:
            a.src = socket.inet_ntoa(struct.pack("!I", (first + i % a.src_count) & 0xFFFFFFFF))
            pkt = datagram(a, payload)
        if a.pps:
            wait = start + i / a.pps - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        s.sendto(pkt, (a.dst, 0))
    print(json.dumps(dict(sent=a.count)), flush=True)
    return 0


def cmd_probes(a):
    from scapy.layers.inet import IP, UDP
    from scapy.layers.vxlan import VXLAN
    from scapy.sendrecv import sniff

    got = []

    def keep(f):
        if VXLAN not in f:
            return False
        inner = f[VXLAN].payload
        if IP not in inner or UDP not in inner[IP] or inner[IP][UDP].dport != sp.STAMP_PORT:
            return False
        t = sp.StampTest(bytes(inner[IP][UDP].payload)[:sp.TEST_LEN])
        got.append(dict(outer_src=f[IP].src, outer_dst=f[IP].dst, outer_sport=f[UDP].sport,
                        inner_src=inner[IP].src, inner_dst=inner[IP].dst,
                        sport=inner[IP][UDP].sport, seq=t.seq))
        return True

    sniff(iface=a.iface, filter="udp dst port 4789", lfilter=keep, count=a.count,
          timeout=a.timeout, store=False)
    print(json.dumps(dict(probes=got)), flush=True)
    return 0 if len(got) >= a.count else 1


def main():
    ap = argparse.ArgumentParser(description="hand-made STAMP packets")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("--src", required=True)
    s.add_argument("--dst", required=True)
    s.add_argument("--sport", type=int, default=40000)
    s.add_argument("--dport", type=int, default=sp.STAMP_PORT)
    s.add_argument("--kind", choices=("test", "reply"), default="test")
    s.add_argument("--seq", type=lambda v: int(v, 0), default=0)
    s.add_argument("--size", type=int)
    s.add_argument("--udp-len", type=int)
    s.add_argument("--ttl", type=int, default=64)
    s.add_argument("--count", type=int, default=1)
    s.add_argument("--pps", type=float, default=0)
    s.add_argument("--seq-step", type=int, default=0)
    s.add_argument("--src-count", type=int, default=1)
    s.add_argument("--age-ms", type=float, default=100,
                   help="reply: Session-Sender Timestamp this long ago")
    p = sub.add_parser("probes")
    p.add_argument("--iface", required=True)
    p.add_argument("--count", type=int, default=3)
    p.add_argument("--timeout", type=float, default=5)
    a = ap.parse_args()
    return cmd_send(a) if a.cmd == "send" else cmd_probes(a)


if __name__ == "__main__":
    sys.exit(main())
