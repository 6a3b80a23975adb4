#!/usr/bin/env python3
"""Who answers for an address on a LAN, over time: ARP (RFC 826) and,
optionally, IPv6 Neighbor Discovery (RFC 4861).

    arpwatch.py --iface eth0 --target 10.10.0.1 --seconds S [--interval-ms 10]
                [--src-ip 10.10.0.250] [--src-mac 02:00:00:00:a7:01]
                [--target6 2001:db8:10::1 --src-ip6 2001:db8:10::250]
                [--slot-ms 10]

Every INTERVAL ms for S seconds it sends, from a raw AF_PACKET socket, an
ARP request "who has TARGET" (and, with --target6, a Neighbor
Solicitation for TARGET6 to its solicited-node multicast address), and
records every ARP reply whose sender address is TARGET (every solicited
Neighbor Advertisement for TARGET6) with its kernel receive time
(SO_TIMESTAMPNS, the wall clock) and the answering MAC (the ARP sender
hardware address; for NA the target link-layer address option, else the
Ethernet source). Gratuitous ARPs for TARGET (sender = target address =
TARGET, RFC 5227 §3) and unsolicited NAs for TARGET6 are recorded too, as
announcements, apart from the answers.

The requests come from a made-up source (SRC-IP, SRC-MAC: a locally
administered MAC that is not the interface's), so that the replies are
not for the host's own kernel: they reach the interface (a veth does not
filter by MAC; the socket also asks for promiscuous mode) but the kernel
drops them as PACKET_OTHERHOST, and its neighbor entry for TARGET stays
as what the network told it (a gratuitous ARP, its own requests), which is
what a test looks at. SRC-IP must be an unused address of the subnet.

SIGHUP ends the watch early (the test's scenario is over): the report
covers the time until then.

At the end it prints one JSON line:

  target, target6, interval_ms, slot_ms, start_us, end_us (wall clock, us),
  requests (sent), send_errors, max_send_gap_ms (its own worst pause
  between two requests: how much a stalled watcher blurs the figures),
  arp, nd: one report per protocol (nd only with --target6), each:
    answers       replies in all
    macs          {MAC: {answers, first_us, last_us, announces,
                   first_announce_us, last_announce_us}}
    slots         [[SLOT, [MAC...]], ...]: for every SLOT-ms slot since
                  start_us (slot i = [start_us + i*slot, +slot)) in which
                  replies came, which MACs they came from
    periods       request periods (from one request to the next)
    answered      periods in which at least one reply came
    dual_periods  periods in which replies came from two or more MACs
    max_dual_ms   the longest stretch of consecutive dual periods, ms
                  (0: never two MACs "at once"; INTERVAL: one period)
    max_dual_periods  the same stretch in periods, whatever their length:
                  what a test bounds, since a watcher that is descheduled
                  makes a period longer than INTERVAL (max_send_gap_ms)
    dual          [[from_us, to_us, [MAC...]], ...] those stretches (first 20)
    max_silent_ms the longest stretch of consecutive periods without any reply
    max_silent_periods  the same stretch in periods
    announces     [[time_us, MAC, kind], ...] (first 200): kind "garp"
                  (gratuitous ARP request or reply) or "na" (unsolicited NA)

A reply is counted in the period in which it arrived, whichever request it
answers (ARP carries no request id): two MACs in one period means both
answered within one sampling period.

Only the standard library; needs CAP_NET_RAW (root).
"""

import argparse
import ipaddress
import json
import os
import select
import signal
import socket
import struct
import sys
import time

from inetcsum import inet_csum

ETH_P_ALL = 0x0003
ETH_P_ARP = 0x0806
ETH_P_IPV6 = 0x86DD
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_OUTGOING = 4
SO_TIMESTAMPNS = 35

ICMP6_NS = 135
ICMP6_NA = 136
NA_SOLICITED = 0x40


def mac_bytes(s):
    b = bytes.fromhex(s.replace(":", ""))
    if len(b) != 6:
        raise ValueError("bad MAC %r" % s)
    return b


def mac_str(b):
    return ":".join("%02x" % x for x in b)


def arp_request(src_mac, src_ip, target):
    eth = b"\xff" * 6 + src_mac + struct.pack("!H", ETH_P_ARP)
    arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1)
    arp += src_mac + src_ip + b"\0" * 6 + target
    return eth + arp + b"\0" * 18  # padded to 60 bytes


def ns_request(src_mac, src_ip6, target6):
    # RFC 4861 §4.3, to the solicited-node multicast address (RFC 4291 §2.7.1)
    dst = bytes.fromhex("ff0200000000000000000001ff") + target6[13:]
    assert len(dst) == 16
    dmac = b"\x33\x33" + dst[12:]
    icmp = struct.pack("!BBHI", ICMP6_NS, 0, 0, 0) + target6 + bytes([1, 1]) + src_mac
    pseudo = src_ip6 + dst + struct.pack("!I", len(icmp)) + b"\0\0\0" + bytes([58])
    c = inet_csum(pseudo + icmp)
    icmp = icmp[:2] + struct.pack("!H", c) + icmp[4:]
    ip6 = struct.pack("!IHBB", 6 << 28, len(icmp), 58, 255) + src_ip6 + dst
    eth = dmac + src_mac + struct.pack("!H", ETH_P_IPV6)
    return eth + ip6 + icmp


class Proto:
    """Answers and announcements of one protocol."""

    def __init__(self):
        self.events = []      # (time_us, mac) answers
        self.announces = []   # (time_us, mac, kind)

    def report(self, start_us, end_us, sends_us, slot_ms):
        macs = {}
        for t, m in self.events:
            e = macs.setdefault(m, {"answers": 0, "first_us": t, "last_us": t,
                                    "announces": 0, "first_announce_us": None,
                                    "last_announce_us": None})
            e["answers"] += 1
            e["first_us"] = min(e["first_us"], t)
            e["last_us"] = max(e["last_us"], t)
        for t, m, _ in self.announces:
            e = macs.setdefault(m, {"answers": 0, "first_us": None, "last_us": None,
                                    "announces": 0, "first_announce_us": None,
                                    "last_announce_us": None})
            e["announces"] += 1
            if e["first_announce_us"] is None or t < e["first_announce_us"]:
                e["first_announce_us"] = t
            if e["last_announce_us"] is None or t > e["last_announce_us"]:
                e["last_announce_us"] = t
        slot_us = slot_ms * 1000
        slots = {}
        for t, m in self.events:
            i = (t - start_us) // slot_us
            slots.setdefault(i, set()).add(m)
        # request periods: [sends[k], sends[k+1]), the last up to end_us
        bounds = list(sends_us) + [end_us]
        per = [set() for _ in sends_us]
        k = 0
        for t, m in sorted(self.events):
            while k + 1 < len(sends_us) and t >= bounds[k + 1]:
                k += 1
            if sends_us and t >= bounds[0]:
                per[k].add(m)
        dual = []
        run = None
        max_silent_us = 0
        silent_from = None
        silent_n = max_silent_n = 0
        for k, ms in enumerate(per):
            a, b = bounds[k], bounds[k + 1]
            if len(ms) >= 2:
                if run is None:
                    run = [a, b, set(ms), 1]
                else:
                    run[1] = b
                    run[2] |= ms
                    run[3] += 1
            elif run is not None:
                dual.append(run)
                run = None
            if not ms:
                if silent_from is None:
                    silent_from = a
                silent_n += 1
                max_silent_us = max(max_silent_us, b - silent_from)
                max_silent_n = max(max_silent_n, silent_n)
            else:
                silent_from = None
                silent_n = 0
        if run is not None:
            dual.append(run)
        return {
            "answers": len(self.events),
            "macs": macs,
            "slots": [[i, sorted(slots[i])] for i in sorted(slots)],
            "periods": len(per),
            "answered": sum(1 for ms in per if ms),
            "dual_periods": sum(1 for ms in per if len(ms) >= 2),
            "max_dual_ms": max([(b - a) / 1000.0 for a, b, _, _ in dual], default=0.0),
            "max_dual_periods": max([n for _, _, _, n in dual], default=0),
            "dual": [[a, b, sorted(ms)] for a, b, ms, _ in dual[:20]],
            "max_silent_ms": max_silent_us / 1000.0,
            "max_silent_periods": max_silent_n,
            "announces": [[t, m, k] for t, m, k in self.announces[:200]],
        }


def parse_arp(frame, target):
    if len(frame) < 42 or frame[12:14] != b"\x08\x06":
        return
    htype, ptype, hlen, plen, op = struct.unpack("!HHBBH", frame[14:22])
    if htype != 1 or ptype != 0x0800 or hlen != 6 or plen != 4:
        return
    sha, spa, tpa = frame[22:28], frame[28:32], frame[38:42]
    if spa != target:
        return
    return op, sha, tpa


def parse_na(frame, target6):
    if len(frame) < 14 + 40 + 24 or frame[12:14] != b"\x86\xdd":
        return
    ip6 = frame[14:54]
    if ip6[6] != 58:
        return
    icmp = frame[54:]
    if icmp[0] != ICMP6_NA or icmp[8:24] != target6:
        return
    flags = icmp[4]
    mac = frame[6:12]
    opts = icmp[24:]
    while len(opts) >= 8 and opts[1]:
        ln = opts[1] * 8
        if opts[0] == 2 and ln >= 8:  # target link-layer address
            mac = opts[2:8]
        opts = opts[ln:]
    return bool(flags & NA_SOLICITED), mac


def recv_time_us(anc):
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS and len(data) >= 16:
            sec, nsec = struct.unpack("qq", data[:16])
            return sec * 1000000 + nsec // 1000
    return time.time_ns() // 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iface", default="eth0")
    ap.add_argument("--target", required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--interval-ms", type=float, default=10.0)
    ap.add_argument("--slot-ms", type=int, default=10)
    ap.add_argument("--src-ip", default=None,
                    help="source address of the requests (default: TARGET's subnet .250)")
    ap.add_argument("--src-mac", default="02:00:00:00:a7:01")
    ap.add_argument("--target6", default=None)
    ap.add_argument("--src-ip6", default=None,
                    help="source address of the solicitations (default: TARGET6's ::250)")
    a = ap.parse_args()

    target = socket.inet_aton(a.target)
    src_ip = socket.inet_aton(a.src_ip) if a.src_ip else target[:3] + bytes([250])
    src_mac = mac_bytes(a.src_mac)
    target6 = src_ip6 = None
    if a.target6:
        target6 = ipaddress.IPv6Address(a.target6).packed
        src_ip6 = (ipaddress.IPv6Address(a.src_ip6).packed if a.src_ip6
                   else target6[:14] + b"\x02\x50")

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((a.iface, 0))
    ifindex = socket.if_nametoindex(a.iface)
    mreq = struct.pack("iHH8s", ifindex, PACKET_MR_PROMISC, 0, b"")
    s.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.setblocking(False)

    req4 = arp_request(src_mac, src_ip, target)
    req6 = ns_request(src_mac, src_ip6, target6) if target6 else None
    arp_p, nd_p = Proto(), Proto()
    interval_ns = int(a.interval_ms * 1e6)
    sends_us = []
    send_errors = 0
    max_send_gap_ns = 0
    stop = []
    signal.signal(signal.SIGHUP, lambda *_: stop.append(1))
    print("arpwatch: ready", file=sys.stderr, flush=True)

    t0 = time.monotonic_ns()
    start_us = time.time_ns() // 1000
    end_ns = t0 + int(a.seconds * 1e9)
    next_ns = t0
    last_send_ns = None
    while True:
        now = time.monotonic_ns()
        if now >= end_ns or stop:
            break
        if now >= next_ns:
            if last_send_ns is not None:
                max_send_gap_ns = max(max_send_gap_ns, now - last_send_ns)
            last_send_ns = now
            sends_us.append(time.time_ns() // 1000)
            for f in (req4, req6):
                if f is None:
                    continue
                try:
                    s.send(f)
                except OSError:
                    send_errors += 1
            # the next slot on the grid; skip those a stall let pass
            next_ns += interval_ns * max(1, (now - next_ns) // interval_ns + 1)
        wait = max(0.0, (min(next_ns, end_ns) - time.monotonic_ns()) / 1e9)
        r, _, _ = select.select([s], [], [], wait)
        if not r:
            continue
        while True:
            try:
                data, anc, _, addr = s.recvmsg(2048, socket.CMSG_SPACE(16))
            except BlockingIOError:
                break
            if addr[2] == PACKET_OUTGOING:
                continue
            t = recv_time_us(anc)
            arp = parse_arp(data, target)
            if arp:
                op, sha, tpa = arp
                if tpa == target:  # gratuitous: sender = target = TARGET
                    arp_p.announces.append((t, mac_str(sha), "garp"))
                elif op == 2:
                    arp_p.events.append((t, mac_str(sha)))
                continue
            if target6:
                na = parse_na(data, target6)
                if na:
                    solicited, mac = na
                    if solicited:
                        nd_p.events.append((t, mac_str(mac)))
                    else:
                        nd_p.announces.append((t, mac_str(mac), "na"))
    end_us = time.time_ns() // 1000
    out = {
        "target": a.target,
        "target6": a.target6,
        "interval_ms": a.interval_ms,
        "slot_ms": a.slot_ms,
        "start_us": start_us,
        "end_us": end_us,
        "requests": len(sends_us),
        "send_errors": send_errors,
        "max_send_gap_ms": max_send_gap_ns / 1e6,
        "arp": arp_p.report(start_us, end_us, sends_us, a.slot_ms),
    }
    if target6:
        out["nd"] = nd_p.report(start_us, end_us, sends_us, a.slot_ms)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
