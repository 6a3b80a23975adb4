#!/usr/bin/env python3
"""Paced UDP over many distinct flows, from a raw IPv4 socket.

    manyflows.py --target DST:FLOWS:PPS [--target ...] --port P --seconds S
                 [--src ADDR] [--sport BASE] [--ports N] [--size B]

Each target gets PPS datagrams/s to DST:P for S seconds, cycling through
FLOWS distinct flows in order: flow i has source port BASE + i mod N and
source address ADDR + i div N (ADDR, ADDR+1, ...), so 100000 flows with
N = 50000 come from two addresses. The datagrams are built here (IPv4 with
IP_HDRINCL: the kernel fills in the header checksum, total length and ID;
UDP checksum 0, "none", RFC 768), so the source addresses need not be the
host's and no socket per flow is needed. Targets are interleaved, each on
its own schedule (datagram k of a target is due k / PPS s after the
start); a sender that fell behind catches up in bursts of at most 256.

Prints one JSON line at the end (after S seconds, or at SIGTERM): seconds, and per target (in the order
given) dst, flows, sent, errors (sendto refused, e.g. ENOBUFS), pps
(achieved), cycles (complete passes over its flows). Only the standard
library.
"""

import argparse
import json
import signal
import socket
import struct
import sys
import time

MAX_BURST = 256
MIN_SLEEP_S = 100e-6


def frames(dst, flows, port, src, sport, nports, size):
    """The datagrams of a target's flows, flow order."""
    d = socket.inet_aton(dst)
    base = struct.unpack("!I", socket.inet_aton(src))[0]
    payload = bytes(max(0, size - 28))
    udp_len = 8 + len(payload)
    out = []
    for i in range(flows):
        s = struct.pack("!I", base + i // nports)
        # version/IHL, TOS, total length (kernel), ID (kernel), flags/frag,
        # TTL, protocol UDP, checksum (kernel), source, destination
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 0, 0, 0, 64, 17, 0, s, d)
        udp = struct.pack("!HHHH", sport + i % nports, port, udp_len, 0)
        out.append(ip + udp + payload)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", action="append", required=True, help="DST:FLOWS:PPS")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--sport", type=int, default=10000)
    ap.add_argument("--ports", type=int, default=50000)
    ap.add_argument("--size", type=int, default=64, help="IP datagram bytes")
    a = ap.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    targets = []
    for t in a.target:
        dst, flows, pps = t.split(":")
        flows, pps = int(flows), float(pps)
        targets.append(dict(dst=dst, addr=(dst, 0), flows=flows, pps=pps,
                            pkts=frames(dst, flows, a.port, a.src, a.sport,
                                        min(a.ports, flows), a.size),
                            sent=0, errors=0, next=0))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    print("manyflows: sending", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    end = t0 + a.seconds
    sendto = sock.sendto
    while True:
        now = time.perf_counter()
        if now >= end or stop:
            break
        idle = True
        for t in targets:
            due = int((now - t0) * t["pps"]) + 1
            n = min(due - t["next"], MAX_BURST)
            if n <= 0:
                continue
            idle = False
            pkts, flows, addr, k = t["pkts"], t["flows"], t["addr"], t["next"]
            for _ in range(n):
                try:
                    sendto(pkts[k % flows], addr)
                    t["sent"] += 1
                except OSError:
                    t["errors"] += 1
                k += 1
            t["next"] = k
        if idle:
            time.sleep(MIN_SLEEP_S)
    secs = time.perf_counter() - t0
    rep = dict(seconds=round(secs, 3), targets=[
        dict(dst=t["dst"], flows=t["flows"], sent=t["sent"], errors=t["errors"],
             pps=round(t["sent"] / secs), cycles=t["next"] // t["flows"])
        for t in targets])
    print(json.dumps(rep), flush=True)


if __name__ == "__main__":
    main()
