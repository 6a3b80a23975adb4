#!/usr/bin/env python3
"""A paced stream of sequence-numbered UDP datagrams, to measure outages.

    seqstream.py send --dst IP --port P --pps N --seconds S [--flows K]
                      [--size B] [--sport BASE]
    seqstream.py recv --port P --seconds S [--bind ADDR] [--json]
    seqstream.py outage FILE   one line from recv's --json report in FILE:
                               received, lost, the longest gap (the labs)

The sender sends N datagrams per second for S seconds, each carrying a
64-bit sequence number (0, 1, 2, ... across all flows) and its send time
(time.perf_counter_ns, CLOCK_MONOTONIC), from K sockets bound to source
ports BASE..BASE+K-1 in turn (datagram i on flow i mod K), so that K flows
hash to different members of a load-balanced group. At the end it sends an
"end" marker (a few times, in case one is lost) that tells the receiver how
many datagrams were sent (SIGINT ends the stream early, the same way),
then prints one JSON line: sent, seconds, pps
(achieved), max_send_gap_ms (its own worst pause between two datagrams,
i.e. how much of a gap the sender alone could have caused).

The receiver counts what arrives until the end marker (and a short linger
for stragglers) or S seconds, then prints one JSON line (--json) or a
summary: received, sent (from the end marker, null if none came), lost,
duplicates, reordered, holes, max_gap_ms, max_loss_gap_ms, first_seq,
last_seq, rcvbuf_errors, end_marker, end_copies (of the 5 the sender
sends) and flows (per flow: flow, sport, received,
lost, max_gap_ms).

Only the standard library: Python has no sendmmsg, so the sender paces with
perf_counter_ns and sends every datagram that is due on each tick (a burst
of a few), sleeping when ahead; about 50 000 datagrams/s fit in one core
here.
"""

import argparse
import json
import os
import signal
import socket
import struct
import sys
import time
from array import array

MAGIC = 0x53514E31  # "SQN1"
FLAG_END = 1
# magic, stream id, seq, send time (ns), flow, flags
HDR = struct.Struct("!IIQQHH")
# An end marker's seq field holds the number of datagrams sent; after the
# header: the sender's worst pause between two sends (ns).
END_EXTRA = struct.Struct("!Q")

# When ahead of time the sender sleeps (a spinning sender would take a
# core from the receiver and bfdd on a 2-core machine); time.sleep() of
# less than this oversleeps by ~50 us anyway, so shorter waits sleep this.
MIN_SLEEP_S = 50e-6
# Most datagrams sent in one tick (a burst), so that a sender that fell
# behind (descheduled) catches up without flooding the line.
MAX_BURST = 64
END_COPIES = 5
END_GAP_S = 0.01
# After the end marker the receiver keeps reading this long, for datagrams
# still queued behind it (reordered).
LINGER_S = 0.2


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def cmd_send(a):
    fam = family_of(a.dst)
    size = max(a.size, HDR.size + END_EXTRA.size)
    socks = []
    for i in range(a.flows):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 21)
        s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0",
                a.sport + i if a.sport else 0))
        s.connect((a.dst, a.port))
        socks.append(s)
    sends = [s.send for s in socks]
    stream = int.from_bytes(os.urandom(4), "big")
    buf = bytearray(size)
    pack = HDR.pack_into
    clock = time.perf_counter_ns
    interval = 1e9 / a.pps
    total = int(a.pps * a.seconds)
    k = a.flows
    seq = 0
    errors = 0
    max_gap = 0
    stop = []
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    t0 = clock()
    last = t0
    while seq < total:
        if stop:
            total = seq
            break
        now = clock()
        due = min(total, int((now - t0) / interval) + 1)
        if due <= seq:
            wait = (t0 + seq * interval - now) / 1e9
            time.sleep(max(wait, MIN_SLEEP_S))
            continue
        burst_end = min(due, seq + MAX_BURST)
        while seq < burst_end:
            now = clock()
            flow = seq % k
            pack(buf, 0, MAGIC, stream, seq, now, flow, 0)
            try:
                sends[flow](buf)
            except OSError:
                # ENOBUFS/ECONNREFUSED (an ICMP error from an earlier
                # datagram): the datagram is lost, the stream goes on.
                errors += 1
            if now - last > max_gap:
                max_gap = now - last
            last = now
            seq += 1
    elapsed = clock() - t0
    end = bytearray(size)
    for _ in range(END_COPIES):
        # seq: datagrams sent; flow: number of flows.
        pack(end, 0, MAGIC, stream, total, clock(), k, FLAG_END)
        END_EXTRA.pack_into(end, HDR.size, max_gap)
        try:
            sends[0](end)
        except OSError:
            pass
        time.sleep(END_GAP_S)
    print(json.dumps({
        "sent": total,
        "seconds": round(elapsed / 1e9, 3),
        "pps": round(total / (elapsed / 1e9)) if elapsed else 0,
        "send_errors": errors,
        "max_send_gap_ms": round(max_gap / 1e6, 3),
        "stream": stream,
    }), flush=True)
    return 0


def rcvbuf_errors():
    """UDP/UDP6 RcvbufErrors of this network namespace (/proc/net/snmp*)."""
    n = 0
    try:
        with open("/proc/net/snmp") as f:
            rows = [l.split() for l in f if l.startswith("Udp:")]
        n += int(rows[1][rows[0].index("RcvbufErrors")])
    except (OSError, IndexError, ValueError):
        pass
    try:
        with open("/proc/net/snmp6") as f:
            for l in f:
                w = l.split()
                if len(w) == 2 and w[0] == "Udp6RcvbufErrors":
                    n += int(w[1])
    except (OSError, ValueError):
        pass
    return n


def analyse(seqs, tss, flows, sports, sent, nflows, end_info):
    """The report of what arrived: seqs/tss/flows in arrival order."""
    n = len(seqs)
    rep = {"received": 0, "sent": sent, "lost": None, "duplicates": 0,
           "reordered": 0, "holes": 0, "max_gap_ms": 0.0,
           "max_loss_gap_ms": 0.0, "first_seq": None, "last_seq": None,
           "flows": []}
    if end_info is not None:
        rep["sender_max_send_gap_ms"] = round(end_info / 1e6, 3)
    if n == 0:
        rep["lost"] = sent
        return rep
    seen = bytearray(max(seqs) + 1)
    order = []  # indices of first copies, arrival order
    hi = -1
    for i in range(n):
        s = seqs[i]
        if seen[s]:
            rep["duplicates"] += 1
            continue
        seen[s] = 1
        # A datagram that arrives after one with a higher sequence number.
        if s < hi:
            rep["reordered"] += 1
        else:
            hi = s
        order.append(i)
    if rep["reordered"]:
        order.sort(key=lambda i: seqs[i])
    uniq = len(order)
    rep["received"] = uniq
    rep["first_seq"] = seqs[order[0]]
    rep["last_seq"] = seqs[order[-1]]
    expected = sent if sent is not None else rep["last_seq"] + 1
    rep["lost"] = expected - uniq

    # The gap: walk the received sequence numbers in order; for each two
    # consecutive ones, s < s' (s' - s - 1 datagrams lost between them,
    # maybe none), the gap is ts(s') - ts(s), the sender's clock between
    # the last datagram that got through before a hole and the first one
    # after it. A path that drops everything from time A to time B makes a
    # gap >= B - A (every datagram sent in [A, B] is missing), and at most
    # B - A plus two sending intervals (plus a pause of the sender itself,
    # see sender_max_send_gap_ms). Sender time, not arrival time: queueing
    # after the outage (a burst released at once) does not shrink it, and
    # the receiver's own scheduling delays do not stretch it. Without loss
    # the gap is the sending interval (the burst spacing), so max_gap_ms is
    # always defined; max_loss_gap_ms counts only gaps with loss in them.
    max_gap = max_loss_gap = 0
    holes = 0
    per = {}
    prev_s = prev_t = None
    for i in order:
        s, t, f = seqs[i], tss[i], flows[i]
        if prev_s is not None:
            g = t - prev_t
            if g > max_gap:
                max_gap = g
            if s != prev_s + 1:
                holes += 1
                if g > max_loss_gap:
                    max_loss_gap = g
        prev_s, prev_t = s, t
        st = per.get(f)
        if st is None:
            per[f] = st = {"flow": f, "sport": sports.get(f), "received": 0,
                           "max_gap_ns": 0, "last_t": t}
        elif t - st["last_t"] > st["max_gap_ns"]:
            st["max_gap_ns"] = t - st["last_t"]
        st["received"] += 1
        st["last_t"] = t
    rep["holes"] = holes
    rep["max_gap_ms"] = round(max_gap / 1e6, 3)
    rep["max_loss_gap_ms"] = round(max_loss_gap / 1e6, 3)
    # The end marker tells the number of flows; without it, count those seen.
    if nflows is None:
        nflows = max(per) + 1
    for f in range(max(nflows, max(per) + 1)):
        st = per.get(f, {"sport": None, "received": 0, "max_gap_ns": 0})
        # Flow f carries the sequence numbers f, f + K, f + 2K ...
        want = len(range(f, expected, nflows))
        rep["flows"].append({"flow": f, "sport": st["sport"],
                             "received": st["received"],
                             "lost": want - st["received"],
                             "max_gap_ms": round(st["max_gap_ns"] / 1e6, 3)})
    return rep


def cmd_recv(a):
    fam = family_of(a.bind)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    # Room for a second of a fast stream while the receiver is not
    # scheduled (a loaded 2-core machine); capped by net.core.rmem_max
    # unless root (SO_RCVBUFFORCE).
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, 1 << 23)  # SO_RCVBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)
    s.bind((a.bind, a.port))
    s.settimeout(0.05)
    errs0 = rcvbuf_errors()
    print(f"seqstream: ready port {a.port}", file=sys.stderr, flush=True)

    seqs, tss, flows = array("Q"), array("Q"), array("H")
    sports = {}
    stream = None
    sent = None
    nflows = None
    end_info = None
    end_copies = 0
    buf = bytearray(65536)
    unpack = HDR.unpack_from
    recv = s.recvfrom_into
    deadline = time.monotonic() + a.seconds
    while True:
        now = time.monotonic()
        if now >= deadline:
            break
        try:
            nbytes, addr = recv(buf)
        except socket.timeout:
            continue
        if nbytes < HDR.size:
            continue
        magic, sid, seq, ts, flow, flags = unpack(buf)
        if magic != MAGIC:
            continue
        # The first datagram fixes the stream; a straggler of an earlier
        # run to the same port is ignored.
        if stream is None:
            stream = sid
        elif sid != stream:
            continue
        if flags & FLAG_END:
            end_copies += 1
            if sent is None:
                sent = seq
                nflows = flow
                end_info = END_EXTRA.unpack_from(buf, HDR.size)[0]
                deadline = min(deadline, time.monotonic() + LINGER_S)
            continue
        seqs.append(seq)
        tss.append(ts)
        flows.append(flow)
        if flow not in sports:
            sports[flow] = addr[1]
    rep = analyse(seqs, tss, flows, sports, sent, nflows, end_info)
    rep["rcvbuf_errors"] = rcvbuf_errors() - errs0
    rep["end_marker"] = sent is not None
    rep["end_copies"] = end_copies
    if a.json:
        print(json.dumps(rep), flush=True)
    else:
        print(f"received {rep['received']} sent {rep['sent']} lost {rep['lost']} "
              f"dup {rep['duplicates']} reordered {rep['reordered']} "
              f"max_gap_ms {rep['max_gap_ms']}", flush=True)
    return 0


def cmd_outage(a):
    """Print the labs' one-line outage summary of recv's JSON report."""
    with open(a.file, encoding="utf-8") as f:
        r = json.load(f)
    print("  receiver: %d of %d datagrams, %d lost; longest gap in the sequence %.1f ms"
          " (the outage the cut caused; the sender's own worst pause was %.1f ms)"
          % (r["received"], r["sent"], r["lost"], r["max_gap_ms"],
             r.get("sender_max_send_gap_ms", 0)))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    ps = sub.add_parser("send")
    ps.add_argument("--dst", required=True)
    ps.add_argument("--port", type=int, required=True)
    ps.add_argument("--pps", type=float, required=True)
    ps.add_argument("--seconds", type=float, required=True)
    ps.add_argument("--flows", type=int, default=1)
    ps.add_argument("--size", type=int, default=64, help="UDP payload bytes")
    ps.add_argument("--sport", type=int, default=0,
                    help="first source port (default: ephemeral ports)")
    pr = sub.add_parser("recv")
    pr.add_argument("--port", type=int, required=True)
    pr.add_argument("--seconds", type=float, required=True)
    pr.add_argument("--bind", default="0.0.0.0")
    pr.add_argument("--json", action="store_true")
    po = sub.add_parser("outage")
    po.add_argument("file")
    a = p.parse_args()
    if a.cmd == "outage":
        return cmd_outage(a)
    if a.cmd == "send":
        if a.pps <= 0 or a.flows < 1 or a.flows > 65535:
            p.error("want --pps > 0 and 1 <= --flows <= 65535")
        return cmd_send(a)
    return cmd_recv(a)


if __name__ == "__main__":
    sys.exit(main())
