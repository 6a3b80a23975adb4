#!/usr/bin/env python3
"""A BFD peer built from RFC 5880's packet layout, for interop tests.

FRR 8.4's bfdd has no authentication, so vbrd's simple-password and keyed
SHA1 authentication are tested against this peer instead: asynchronous
mode (RFC 5880 §6.8), single-hop (RFC 5881: UDP 3784, TTL 255, source
port 49152-65535) or multihop (RFC 5883: UDP 4784), IPv4, with the
authentication of §6.7.2 (simple password) and §6.7.4 (keyed and
meticulous keyed SHA1). Written from the RFC, not from vbrd's code.

    bfd_peer.py --local 172.16.1.2 --peer 172.16.1.1 [--multihop]
                [--tx-ms 50] [--rx-ms 50] [--mult 3]
                [--auth none|simple|keyed-sha1|meticulous-sha1]
                [--key-id 1] [--key secret] [--status FILE] [--seconds N]

It runs until --seconds pass or SIGTERM; SIGUSR1 toggles AdminDown
(§6.8.16). --status FILE is rewritten as JSON on every change of state
and of a counter (at most every 20 ms) and at exit: state, remote_state,
local_disc, remote_disc, diag, remote_diag, rx, tx, auth_failures (with
auth_reasons: mismatch, type, key_id, bad, seq, length), bad (packets
discarded by the checks of §6.8.6 before authentication), ups, downs,
xmit_seq (the last Sequence Number sent) and rcv_seq (bfd.RcvAuthSeq, null
while bfd.AuthSeqKnown is 0).
"""

import argparse
import hashlib
import hmac
import json
import os
import random
import select
import signal
import socket
import struct
import sys
import time

ADMIN_DOWN, DOWN, INIT, UP = 0, 1, 2, 3
NAMES = {ADMIN_DOWN: "AdminDown", DOWN: "Down", INIT: "Init", UP: "Up"}
AUTH = {"none": 0, "simple": 1, "keyed-sha1": 4, "meticulous-sha1": 5}
F_POLL, F_FINAL, F_AUTH, F_MULTI = 0x20, 0x10, 0x04, 0x01


# Linux <linux/in.h>: Python's socket module has IP_TTL but not IP_RECVTTL;
# the TTL arrives as a cmsg of type IP_TTL.
IP_RECVTTL = getattr(socket, "IP_RECVTTL", 12)


def now_us():
    return time.monotonic_ns() // 1000


class Peer:
    def __init__(self, a):
        self.a = a
        self.state = DOWN
        self.remote_state = DOWN
        self.local_disc = random.randint(1, 0xFFFFFFFF)
        self.remote_disc = 0
        self.diag = 0
        self.remote_diag = 0
        self.remote_min_rx = 1  # §6.8.1: bfd.RemoteMinRxInterval starts at 1 µs
        self.remote_tx = 0
        self.remote_mult = 0
        self.desired_tx = 1000000  # §6.8.3: at least 1 s while not Up
        self.required_rx = a.rx_ms * 1000
        self.poll = False
        self.final_due = False
        self.detect_deadline = 0
        self.next_tx = 0
        self.xmit_seq = random.randint(0, 0xFFFFFFFF)
        self.rcv_seq = None  # bfd.RcvAuthSeq; None: bfd.AuthSeqKnown is 0
        self.last_rx = 0
        self.detect_us = 0  # the detection time now (§6.8.4), µs
        self.stats = dict(rx=0, tx=0, auth_failures=0, ups=0, downs=0, bad=0)
        self.auth_reasons = dict(mismatch=0, type=0, key_id=0, bad=0, seq=0, length=0)
        self.key = a.key.encode()
        self.auth = AUTH[a.auth]

    # ---- packets -------------------------------------------------------
    def auth_section(self, seq):
        if self.auth == 1:
            return struct.pack("!BBB", 1, 3 + len(self.key), self.a.key_id) + self.key
        if self.auth in (4, 5):
            return struct.pack("!BBBBI", self.auth, 28, self.a.key_id, 0, seq) + self.key.ljust(20, b"\0")
        return b""

    def build(self):
        # §6.8.7: "A BFD Control packet MUST NOT have both the Poll (P) and
        # Final (F) bits set": a Final goes alone, the Poll in the next one.
        flags = F_FINAL if self.final_due else (F_POLL if self.poll else 0)
        self.final_due = False
        if self.auth:
            flags |= F_AUTH
            if self.auth == 5 or self.auth == 4:
                self.xmit_seq = (self.xmit_seq + 1) & 0xFFFFFFFF
        auth = self.auth_section(self.xmit_seq)
        length = 24 + len(auth)
        body = struct.pack("!BBBBIIIII", (1 << 5) | self.diag, (self.state << 6) | flags,
                           self.a.mult, length, self.local_disc, self.remote_disc,
                           self.desired_tx, self.required_rx, 0) + auth
        if self.auth in (4, 5):
            digest = hashlib.sha1(body).digest()
            body = body[:-20] + digest
        self.stats["tx"] += 1
        return body

    def check_auth(self, pkt, a_bit, mult):
        """§6.7 and §6.8.6 on PKT (Length bytes): None if accepted, else the
        reason (a key of auth_reasons). MULT is the packet's Detect Mult."""
        if bool(a_bit) != bool(self.auth):
            return "mismatch"
        if not self.auth:
            return None
        if len(pkt) < 26:
            return "length"
        atype, alen = pkt[24], pkt[25]
        if 24 + alen > len(pkt):
            return "length"
        if atype != self.auth:
            return "type"
        if self.auth == 1:
            # §4.2: Type, Len, Key ID, a password of 1..16 bytes
            if not 4 <= alen <= 19:
                return "length"
            if pkt[26] != self.a.key_id:
                return "key_id"
            if not hmac.compare_digest(pkt[27:24 + alen], self.key):
                return "bad"
            return None
        # §4.4: Type, Len 28, Key ID, Reserved, Sequence Number, 20-byte digest
        if alen != 28:
            return "length"
        if pkt[26] != self.a.key_id:
            return "key_id"
        seq = struct.unpack("!I", pkt[28:32])[0]
        if self.rcv_seq is not None:
            # §6.7.4, circular 32-bit: keyed RcvAuthSeq..RcvAuthSeq+3*M,
            # meticulous RcvAuthSeq+1..RcvAuthSeq+3*M, both inclusive
            lo = (self.rcv_seq + (1 if self.auth == 5 else 0)) & 0xFFFFFFFF
            hi = (self.rcv_seq + 3 * mult) & 0xFFFFFFFF
            if (seq - lo) & 0xFFFFFFFF > (hi - lo) & 0xFFFFFFFF:
                return "seq"
        got = pkt[32:52]
        want = hashlib.sha1(pkt[:32] + self.key.ljust(20, b"\0") + pkt[52:]).digest()
        if not hmac.compare_digest(got, want):
            return "bad"
        self.rcv_seq = seq
        return None

    def tx_interval(self):
        return max(self.desired_tx, self.remote_min_rx)

    def set_state(self, st, diag):
        if st == self.state:
            return
        if st == UP:
            self.stats["ups"] += 1
            # now the real interval: a Poll sequence announces it (§6.8.3)
            self.desired_tx = self.a.tx_ms * 1000
            self.poll = True
        elif self.state == UP:
            self.stats["downs"] += 1
        if st != UP:
            self.desired_tx = 1000000
        self.state = st
        self.diag = diag
        self.changed = True

    def receive(self, pkt, ttl):
        # §6.8.6, in its order; RFC 5881 §5 for the TTL
        if len(pkt) < 24:
            self.stats["bad"] += 1
            return
        vd, sf, mult, length, my, your, dtx, rrx, _ = struct.unpack("!BBBBIIIII", pkt[:24])
        st, flags = sf >> 6, sf & 0x3F
        if (vd >> 5 != 1 or length < (26 if flags & F_AUTH else 24) or length > len(pkt)
                or mult == 0 or flags & F_MULTI or my == 0):
            self.stats["bad"] += 1
            return
        if not self.a.multihop and ttl is not None and ttl != 255:
            self.stats["bad"] += 1
            return
        if your != 0 and your != self.local_disc:
            self.stats["bad"] += 1
            return
        if your == 0 and st not in (DOWN, ADMIN_DOWN):
            self.stats["bad"] += 1
            return
        # A discarded packet changes nothing: the remote variables are
        # learnt only from an authenticated one.
        why = self.check_auth(pkt[:length], flags & F_AUTH, mult)
        if why is not None:
            self.stats["auth_failures"] += 1
            self.auth_reasons[why] += 1
            return
        self.stats["rx"] += 1
        self.remote_mult = mult
        self.remote_disc = my
        self.remote_state = st
        self.remote_diag = vd & 0x1F
        self.remote_tx = dtx
        # 0 is meaningful: the peer wants no periodic packets (§6.8.7)
        self.remote_min_rx = rrx
        self.last_rx = now_us()
        if flags & F_FINAL:
            self.poll = False
        self.detect_us = mult * max(self.required_rx, dtx)
        self.detect_deadline = now_us() + self.detect_us
        if self.state == ADMIN_DOWN:
            return
        if st == ADMIN_DOWN:
            if self.state != DOWN:
                self.set_state(DOWN, 3)
        elif self.state == DOWN:
            if st == DOWN:
                self.set_state(INIT, 0)
            elif st == INIT:
                self.set_state(UP, 0)
        elif self.state == INIT:
            if st in (INIT, UP):
                self.set_state(UP, 0)
        elif st == DOWN:
            self.set_state(DOWN, 3)
        if flags & F_POLL:
            self.final_due = True
            self.next_tx = 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--local", required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--multihop", action="store_true")
    ap.add_argument("--tx-ms", type=int, default=50)
    ap.add_argument("--rx-ms", type=int, default=50)
    ap.add_argument("--mult", type=int, default=3)
    ap.add_argument("--auth", choices=sorted(AUTH), default="none")
    ap.add_argument("--key-id", type=int, default=1)
    ap.add_argument("--key", default="")
    ap.add_argument("--sport", type=int, default=49999)
    ap.add_argument("--status")
    ap.add_argument("--seconds", type=float, default=3600)
    a = ap.parse_args()
    # §4.2: a password of 1..16 bytes; §4.4: a SHA1 key of up to 20 bytes
    if a.auth == "simple" and not 1 <= len(a.key.encode()) <= 16:
        ap.error("--key: a simple password has 1..16 bytes")
    if a.auth in ("keyed-sha1", "meticulous-sha1") and not 1 <= len(a.key.encode()) <= 20:
        ap.error("--key: a SHA1 key has 1..20 bytes")

    port = 4784 if a.multihop else 3784
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    rx.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
    rx.bind((a.local, port))
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 255)
    tx.bind((a.local, a.sport))

    p = Peer(a)
    p.changed = True
    admin = {"toggle": False}
    running = {"on": True}
    signal.signal(signal.SIGUSR1, lambda *_: admin.__setitem__("toggle", True))
    signal.signal(signal.SIGTERM, lambda *_: running.__setitem__("on", False))
    end = time.monotonic() + a.seconds
    last_status = 0
    written = {}

    def status():
        if not a.status:
            return
        d = dict(state=NAMES[p.state], remote_state=NAMES[p.remote_state],
                 local_disc=p.local_disc, remote_disc=p.remote_disc, diag=p.diag,
                 remote_diag=p.remote_diag, auth=a.auth, key_id=a.key_id,
                 xmit_seq=p.xmit_seq if p.auth in (4, 5) else None, rcv_seq=p.rcv_seq,
                 auth_reasons=dict(p.auth_reasons), **p.stats)
        tmp = a.status + ".tmp"
        with open(tmp, "w") as f:
            json.dump(d, f)
        os.replace(tmp, a.status)
        written.clear()
        written.update(p.stats)

    while running["on"] and time.monotonic() < end:
        t = now_us()
        if admin["toggle"]:
            admin["toggle"] = False
            if p.state == ADMIN_DOWN:
                p.state = DOWN
                p.diag = 0
            else:
                if p.state == UP:
                    p.stats["downs"] += 1
                p.state = ADMIN_DOWN
                p.diag = 7
                p.desired_tx = 1000000
            p.changed = True
            p.next_tx = 0
        if p.state in (INIT, UP) and p.detect_deadline and t > p.detect_deadline:
            p.set_state(DOWN, 1)
            p.remote_disc = 0
            p.detect_deadline = 0
        # §6.8.1 bfd.AuthSeqKnown: back to 0 after twice the detection
        # time without an authenticated packet
        if p.rcv_seq is not None and p.last_rx and t - p.last_rx > 2 * p.detect_us:
            p.rcv_seq = None
        # §6.8.7: no periodic packets while the peer's RequiredMinRxInterval is 0
        if t >= p.next_tx and p.remote_min_rx > 0:
            tx.sendto(p.build(), (a.peer, port))
            iv = p.tx_interval()
            p.next_tx = t + int(iv * random.uniform(0.75, 0.9 if a.mult == 1 else 1.0))
        wait = 5000 if p.remote_min_rx == 0 else min(p.next_tx - now_us(), 5000)
        wait = max(0, wait) / 1e6
        r, _, _ = select.select([rx], [], [], wait)
        if r:
            data, anc, _, _ = rx.recvmsg(256, socket.CMSG_SPACE(4))
            ttl = None
            for lvl, typ, val in anc:
                if lvl == socket.IPPROTO_IP and typ == socket.IP_TTL:
                    ttl = struct.unpack("i", val[:4])[0]
            p.receive(data, ttl)
        dirty = written != p.stats and time.monotonic() - last_status > 0.02
        if p.changed or dirty or time.monotonic() - last_status > 1:
            p.changed = False
            last_status = time.monotonic()
            status()
    status()


if __name__ == "__main__":
    sys.exit(main())
