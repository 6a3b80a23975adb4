#!/usr/bin/env python3
"""Many UDP flows with per-flow sequence numbers: bursty elephants and mice.

    multiflow.py send --dst IP --port P --seconds S [--elephants 3]
                      [--burst 40] [--burst-gap-ms 20] [--mice 100]
                      [--mouse-interval-ms 100] [--size 1000] [--sport 20000]
    multiflow.py recv --port P --seconds S [--bind ADDR]

send: flow i is a socket bound to source port SPORT+i: the elephants
(flows 0..E-1) send bursts of BURST datagrams back to back, then stay idle
BURST-GAP-MS (each elephant starts at a random offset within one gap), the
mice (the next M flows) send one datagram every MOUSE-INTERVAL-MS (random
offset too). Every datagram is SIZE bytes of UDP payload: magic, flow,
that flow's sequence number (0, 1, 2, ...), flags. At the end each flow
sends an end marker (three copies) carrying how many it sent, and one
JSON line is printed: sent (total), bytes, flows (per flow: flow, sport,
kind, sent), max_idle_in_burst_ms (the longest pause inside a burst, the
sender's own doing: a stall can split a burst into two flowlets).

recv: counts what arrives until every flow's end marker came (and 0.3 s
more) or S seconds, then prints one JSON line: received, flows (per flow:
flow, received, sent (from its end marker, null if none came), lost,
reordered (datagrams with a lower sequence number than one that came
before them in that flow), duplicates), and the totals lost, reordered,
duplicates, flows_without_end.

Only the standard library.
"""

import argparse
import heapq
import json
import random
import socket
import struct
import sys
import time

MAGIC = 0x4D464C31  # "MFL1"
FLAG_END = 1
HDR = struct.Struct("!IIQH")  # magic, flow, seq (or count sent, in an end marker), flags
END_COPIES = 3


def cmd_send(a):
    nflows = a.elephants + a.mice
    socks = []
    for i in range(nflows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 21)
        s.bind(("0.0.0.0", a.sport + i))
        s.connect((a.dst, a.port))
        socks.append(s)
    size = max(a.size, HDR.size)
    pad = b"\0" * (size - HDR.size)
    seq = [0] * nflows
    gap = a.burst_gap_ms / 1000.0
    mouse = a.mouse_interval_ms / 1000.0
    start = time.monotonic()
    end = start + a.seconds
    heap = []
    for i in range(nflows):
        off = random.uniform(0, gap if i < a.elephants else mouse)
        heapq.heappush(heap, (start + off, i))
    sent = 0
    nbytes = 0
    max_idle = 0.0
    while heap:
        t, i = heap[0]
        if t >= end:
            break
        now = time.monotonic()
        if t > now:
            time.sleep(t - now)
        heapq.heappop(heap)
        if i < a.elephants:
            last = time.monotonic()
            for _ in range(a.burst):
                socks[i].send(HDR.pack(MAGIC, i, seq[i], 0) + pad)
                seq[i] += 1
                now = time.monotonic()
                max_idle = max(max_idle, now - last)
                last = now
            sent += a.burst
            nbytes += a.burst * size
            heapq.heappush(heap, (time.monotonic() + gap, i))
        else:
            socks[i].send(HDR.pack(MAGIC, i, seq[i], 0) + pad)
            seq[i] += 1
            sent += 1
            nbytes += size
            heapq.heappush(heap, (t + mouse, i))
    for _ in range(END_COPIES):
        time.sleep(0.01)
        for i in range(nflows):
            socks[i].send(HDR.pack(MAGIC, i, seq[i], FLAG_END))
    flows = [dict(flow=i, sport=a.sport + i, kind="elephant" if i < a.elephants else "mouse",
                  sent=seq[i]) for i in range(nflows)]
    print(json.dumps(dict(sent=sent, bytes=nbytes, seconds=round(time.monotonic() - start, 3),
                          max_idle_in_burst_ms=round(max_idle * 1000, 3), flows=flows)),
          flush=True)
    return 0


def cmd_recv(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)
    s.bind((a.bind, a.port))
    print("multiflow: ready", file=sys.stderr, flush=True)
    flows = {}
    deadline = time.monotonic() + a.seconds
    linger_until = None
    received = 0
    while True:
        now = time.monotonic()
        stop = deadline if linger_until is None else min(deadline, linger_until)
        if now >= stop:
            break
        s.settimeout(stop - now)
        try:
            data = s.recv(65536)
        except socket.timeout:
            break
        if len(data) < HDR.size:
            continue
        magic, flow, seq, flags = HDR.unpack_from(data)
        if magic != MAGIC:
            continue
        f = flows.setdefault(flow, dict(flow=flow, received=0, sent=None, reordered=0,
                                        duplicates=0, max_seq=-1, seen=set()))
        if flags & FLAG_END:
            if f["sent"] is None:
                f["sent"] = seq
                if linger_until is None and flows and all(x["sent"] is not None for x in flows.values()) \
                        and len(flows) >= a.expect_flows:
                    linger_until = time.monotonic() + 0.3
            continue
        received += 1
        if seq in f["seen"]:
            f["duplicates"] += 1
            continue
        f["seen"].add(seq)
        f["received"] += 1
        if seq < f["max_seq"]:
            f["reordered"] += 1
        else:
            f["max_seq"] = seq
    out = []
    for flow in sorted(flows):
        f = flows[flow]
        lost = None if f["sent"] is None else f["sent"] - f["received"]
        out.append(dict(flow=flow, received=f["received"], sent=f["sent"], lost=lost,
                        reordered=f["reordered"], duplicates=f["duplicates"]))
    rep = dict(received=received, flows=out,
               lost=sum(f["lost"] or 0 for f in out),
               reordered=sum(f["reordered"] for f in out),
               duplicates=sum(f["duplicates"] for f in out),
               flows_without_end=sum(1 for f in out if f["sent"] is None))
    print(json.dumps(rep), flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description="bursty multi-flow UDP with per-flow sequence numbers")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--seconds", type=float, required=True)
    s.add_argument("--elephants", type=int, default=3)
    s.add_argument("--burst", type=int, default=40)
    s.add_argument("--burst-gap-ms", type=float, default=20)
    s.add_argument("--mice", type=int, default=100)
    s.add_argument("--mouse-interval-ms", type=float, default=100)
    s.add_argument("--size", type=int, default=1000)
    s.add_argument("--sport", type=int, default=20000)
    r = sub.add_parser("recv")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--seconds", type=float, required=True)
    r.add_argument("--bind", default="0.0.0.0")
    r.add_argument("--expect-flows", type=int, default=1,
                   help="end markers of this many flows end the run")
    a = ap.parse_args()
    return cmd_send(a) if a.cmd == "send" else cmd_recv(a)


if __name__ == "__main__":
    sys.exit(main())
