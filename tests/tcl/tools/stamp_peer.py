#!/usr/bin/env python3
"""A STAMP peer (RFC 8762, unauthenticated mode), for path-selection tests.

Written from the RFC's packet layout, not from vbrd's code, so that it can
judge vbrd's session-sender and session-reflector independently.

    stamp_peer.py sender --dst ADDR [--port 862] [--count 20] [--interval MS]
                         [--src-port N] [--bind ADDR] [--timeout S]
                         [--first-seq N] [--stateless-check] [--ttl N]
    stamp_peer.py reflector [--port 862] [--bind ADDR] [--mode stateful|stateless]
                            [--seconds S]
    stamp_peer.py vxlan-reflector --iface IF [--arp ADDR ...] [--vni N]
                                  [--port 862] [--mode stateful|stateless]
                                  [--seconds S]

sender: sends COUNT test packets (§4.2.1, 44 bytes), one every INTERVAL ms
(default 10), numbered FIRST-SEQ, FIRST-SEQ+1, ... (default 0; another
start tells a stateful reflector's numbering from a stateless one's),
from UDP source port N (default: any), with IP TTL --ttl (default: the
kernel's, 64), to ADDR:PORT, waits TIMEOUT seconds
(default 1) after the last for replies (§4.3.1), then prints one JSON line:
sent, received, lost, rtt_ms {min avg max}, stateless_ok (every reflector
Sequence Number equals the sender's; null with no reply), and packets: per
test packet seq, reflector_seq, ttl (the Session-Sender TTL the reflector
reported), echo_ok (the reflected Session-Sender Timestamp and Error
Estimate are the ones this packet was sent with, §4.3.1), rtt_ms = (T4 - T1) - (T3 - T2) (§4.2.1's timestamps: T1 sent,
T2 received by the reflector, T3 sent back by it, T4 received here), or
only seq for a lost one. --stateless-check makes it exit 1 when
stateless_ok is not true. Exit 0 otherwise (loss is reported, not fatal).

reflector: answers test packets arriving on UDP PORT (§4.3): stateless
copies the sender's Sequence Number (§4.3.1), stateful keeps one counter
per session, keyed by the sender's address and port, starting at 0
(§4.3: "the Session-Reflector ... counts the received test packets").
T2 is taken when the packet is read, T3 just before the reply is sent
(time.time()); the Session-Sender TTL is the received IP TTL (IP_RECVTTL).

vxlan-reflector: a remote gateway's reflector behind a VXLAN tunnel
(RFC 7348). It reads every frame on IF (a packet socket), answers ARP
requests for the --arp addresses with IF's MAC, and for a VXLAN frame
(UDP 4789) whose inner packet is a STAMP test packet to PORT (IPv4, UDP)
it sends back: outer Ethernet and IP swapped, outer UDP source port the
one the sender used (so a plane's reply comes back on the same plane),
destination port 4789, the same VNI; inner Ethernet, IP and UDP swapped
with the reflected packet, inner TTL 255. --vni limits it to one VNI.

Both reflectors print "stamp_peer: ready ..." on stderr once they listen,
run until SIGTERM/SIGINT or --seconds, and then print one JSON line on
stdout: answered, sessions (stateful: number of sessions), ignored
(datagrams that were no test packet: too short), and for vxlan-reflector
arp_replies, not_stamp (VXLAN frames with other inner packets) and
send_errors (replies the kernel refused, e.g. an nft egress drop).

Timestamps are NTP format (§4.2.1: 32-bit seconds since 1900, 32-bit
fraction), Error Estimate S=1 (synchronised: the ends share the clock of
one machine), Z=0 (NTP format), Scale 0, Multiplier 1 (RFC 4656 §4.1.2:
the multiplier MUST NOT be zero).
"""

import argparse
import json
import logging
import select
import signal
import socket
import struct
import sys
import time

# Before scapy's import: in a lab namespace it warns about lo on stderr.
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.arch import get_if_hwaddr  # noqa: E402
from scapy.config import conf  # noqa: E402
from scapy.fields import BitField, ByteField, IntField, LongField, ShortField, StrFixedLenField  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.l2 import ARP, Ether  # noqa: E402
from scapy.layers.vxlan import VXLAN  # noqa: E402
from scapy.packet import Packet  # noqa: E402

STAMP_PORT = 862  # RFC 8762 §4.1
VXLAN_PORT = 4789  # RFC 7348 §5
NTP_EPOCH_OFFSET = 2208988800  # seconds from 1900-01-01 to 1970-01-01
ERROR_ESTIMATE = 0x8001  # S=1, Z=0, Scale=0, Multiplier=1
TEST_LEN = 44

IP_RECVTTL = getattr(socket, "IP_RECVTTL", 12)


class StampTest(Packet):
    """Session-Sender test packet, unauthenticated (RFC 8762 §4.2.1)."""
    name = "STAMP test"
    fields_desc = [
        IntField("seq", 0),
        LongField("timestamp", 0),
        ShortField("error_estimate", ERROR_ESTIMATE),
        StrFixedLenField("mbz", b"\0" * 30, 30),
    ]


class StampReflected(Packet):
    """Session-Reflector test packet, unauthenticated (RFC 8762 §4.3.1)."""
    name = "STAMP reflected"
    fields_desc = [
        IntField("seq", 0),
        LongField("timestamp", 0),
        ShortField("error_estimate", ERROR_ESTIMATE),
        ShortField("mbz1", 0),
        LongField("receive_timestamp", 0),
        IntField("sender_seq", 0),
        LongField("sender_timestamp", 0),
        ShortField("sender_error_estimate", 0),
        ShortField("mbz2", 0),
        ByteField("sender_ttl", 0),
        BitField("mbz3", 0, 24),
    ]


assert len(StampTest()) == TEST_LEN and len(StampReflected()) == TEST_LEN


def ntp_now():
    """The wall clock as a 64-bit NTP timestamp (§4.2.1)."""
    return to_ntp(time.time())


def to_ntp(t):
    sec = int(t)
    frac = int((t - sec) * (1 << 32)) & 0xFFFFFFFF
    return ((sec + NTP_EPOCH_OFFSET) & 0xFFFFFFFF) << 32 | frac


def ntp_seconds(ts):
    return (ts >> 32) - NTP_EPOCH_OFFSET + (ts & 0xFFFFFFFF) / (1 << 32)


def log(msg):
    print("stamp_peer: " + msg, file=sys.stderr, flush=True)


class Reflection:
    """Sequence numbering of a reflector (§4.3.1): stateless copies the
    sender's, stateful counts per session."""

    def __init__(self, mode):
        self.mode = mode
        self.counters = {}
        self.answered = 0
        self.ignored = 0

    def reflect(self, data, session, ttl, t2):
        """The reflected packet (bytes) for test packet DATA from SESSION
        (a hashable key) received at T2 (NTP) with IP TTL TTL, or None."""
        if len(data) < TEST_LEN:
            self.ignored += 1
            return None
        test = StampTest(data[:TEST_LEN])
        if self.mode == "stateless":
            seq = test.seq
        else:
            seq = self.counters.get(session, 0)
            self.counters[session] = (seq + 1) & 0xFFFFFFFF
        r = StampReflected(seq=seq, receive_timestamp=t2, sender_seq=test.seq,
                           sender_timestamp=test.timestamp,
                           sender_error_estimate=test.error_estimate, sender_ttl=ttl)
        r.timestamp = ntp_now()  # T3, as late as scapy lets us
        self.answered += 1
        return bytes(r)

    def stats(self):
        s = dict(answered=self.answered, ignored=self.ignored, mode=self.mode)
        if self.mode == "stateful":
            s["sessions"] = len(self.counters)
        return s


class Stop(BaseException):
    """SIGTERM/SIGINT. Not an Exception: scapy's dissectors catch those,
    and a signal that lands in one (a busy vxlan-reflector) would be lost."""


def on_signal(signum, frame):
    # once: a second SIGTERM (the harness may send more than one) must not
    # interrupt the report the first one leads to
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise Stop()


def deadline_of(seconds):
    return time.monotonic() + seconds if seconds else None


def remaining(deadline):
    if deadline is None:
        return 1.0
    return max(0.0, deadline - time.monotonic())


# ---- sender -----------------------------------------------------------

def cmd_sender(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if a.ttl:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, a.ttl)
    s.bind((a.bind, a.src_port))
    s.connect((a.dst, a.port))
    t1 = {}  # seq -> T1 (NTP)
    replies = {}  # sender seq -> dict
    late = 0

    def drain(until):
        nonlocal late
        while True:
            wait = until - time.monotonic()
            if wait <= 0:
                return
            r, _, _ = select.select([s], [], [], wait)
            if not r:
                return
            try:
                data = s.recv(2048)
            except ConnectionRefusedError:
                continue  # an ICMP port unreachable: counted as loss
            t4 = ntp_now()
            if len(data) < TEST_LEN:
                continue
            p = StampReflected(data[:TEST_LEN])
            if p.sender_seq not in t1 or p.sender_seq in replies:
                late += 1
                continue
            rtt = ((ntp_seconds(t4) - ntp_seconds(t1[p.sender_seq]))
                   - (ntp_seconds(p.timestamp) - ntp_seconds(p.receive_timestamp)))
            echo_ok = (p.sender_timestamp == t1[p.sender_seq]
                       and p.sender_error_estimate == ERROR_ESTIMATE)
            replies[p.sender_seq] = dict(seq=p.sender_seq, reflector_seq=p.seq,
                                         ttl=p.sender_ttl, echo_ok=echo_ok,
                                         rtt_ms=round(rtt * 1000, 3))

    start = time.monotonic()
    seqs = [(a.first_seq + i) & 0xFFFFFFFF for i in range(a.count)]
    for i, seq in enumerate(seqs):
        drain(start + i * a.interval / 1000.0)
        ts = ntp_now()
        t1[seq] = ts
        s.send(bytes(StampTest(seq=seq, timestamp=ts)))
    drain(time.monotonic() + a.timeout)

    packets = [replies.get(seq, dict(seq=seq)) for seq in seqs]
    rtts = [p["rtt_ms"] for p in packets if "rtt_ms" in p]
    got = [p for p in packets if "reflector_seq" in p]
    stateless_ok = all(p["reflector_seq"] == p["seq"] for p in got) if got else None
    rep = dict(sent=a.count, received=len(got), lost=a.count - len(got), unexpected=late,
               rtt_ms=dict(min=min(rtts), avg=round(sum(rtts) / len(rtts), 3), max=max(rtts))
               if rtts else None,
               stateless_ok=stateless_ok, packets=packets)
    print(json.dumps(rep), flush=True)
    if a.stateless_check and stateless_ok is not True:
        return 1
    return 0


# ---- reflector (plain UDP) -------------------------------------------

def cmd_reflector(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
    s.bind((a.bind, a.port))
    refl = Reflection(a.mode)
    deadline = deadline_of(a.seconds)
    log(f"ready reflector {a.bind}:{a.port} mode={a.mode}")
    try:
        while deadline is None or remaining(deadline) > 0:
            r, _, _ = select.select([s], [], [], remaining(deadline))
            if not r:
                continue
            data, anc, _, addr = s.recvmsg(2048, socket.CMSG_SPACE(4))
            t2 = ntp_now()
            ttl = 0
            for level, typ, val in anc:
                if level == socket.IPPROTO_IP and typ in (socket.IP_TTL, IP_RECVTTL):
                    ttl = struct.unpack("i", val[:4])[0] if len(val) >= 4 else val[0]
            out = refl.reflect(data, addr, ttl, t2)
            if out is not None:
                s.sendto(out, addr)
    except Stop:
        pass
    print(json.dumps(refl.stats()), flush=True)
    return 0


# ---- reflector behind VXLAN ---------------------------------------------

def cmd_vxlan_reflector(a):
    mymac = get_if_hwaddr(a.iface)
    # In the kernel, not in Python: the frames it answers (ARP, VXLAN to
    # IF's MAC), not its own replies nor other traffic on the line.
    sock = conf.L2socket(iface=a.iface,
                         filter=f"arp or (ether dst {mymac} and udp dst port {VXLAN_PORT})")
    refl = Reflection(a.mode)
    arp_replies = 0
    not_stamp = 0
    send_errors = 0
    deadline = deadline_of(a.seconds)
    log(f"ready vxlan-reflector iface={a.iface} mac={mymac} arp={a.arp} mode={a.mode}")
    try:
        while deadline is None or remaining(deadline) > 0:
            r, _, _ = select.select([sock], [], [], remaining(deadline))
            if not r:
                continue
            f = sock.recv()
            if f is None:
                continue
            t2 = ntp_now()
            if ARP in f:
                arp = f[ARP]
                if arp.op == 1 and arp.pdst in a.arp:
                    sock.send(Ether(src=mymac, dst=arp.hwsrc) /
                              ARP(op=2, hwsrc=mymac, psrc=arp.pdst, hwdst=arp.hwsrc, pdst=arp.psrc))
                    arp_replies += 1
                continue
            if IP not in f or UDP not in f or f[UDP].dport != VXLAN_PORT or VXLAN not in f:
                continue
            if f[Ether].dst != mymac:
                continue  # ours only (the packet socket is promiscuous)
            vx = f[VXLAN]
            if a.vni is not None and vx.vni != a.vni:
                continue
            inner = vx.payload
            if not (isinstance(inner, Ether) and IP in inner and UDP in inner[IP]
                    and inner[UDP].dport == a.port):
                not_stamp += 1
                continue
            ii, iu = inner[IP], inner[IP][UDP]
            out = refl.reflect(bytes(iu.payload), (vx.vni, ii.src, iu.sport), ii.ttl, t2)
            if out is None:
                continue
            o_ip, o_udp = f[IP], f[UDP]
            reply = (Ether(src=mymac, dst=f[Ether].src) /
                     IP(src=o_ip.dst, dst=o_ip.src, ttl=64) /
                     # The sender's source port back as ours: the reply of a
                     # plane travels on the same plane (same 5-tuple hash).
                     UDP(sport=o_udp.sport, dport=VXLAN_PORT) /
                     VXLAN(vni=vx.vni, flags=vx.flags) /
                     Ether(src=inner[Ether].dst, dst=inner[Ether].src) /
                     IP(src=ii.dst, dst=ii.src, ttl=255) /
                     UDP(sport=iu.dport, dport=iu.sport) / out)
            try:
                sock.send(reply)
            except OSError:
                send_errors += 1  # e.g. EPERM from an nft egress drop
    except Stop:
        pass
    st = refl.stats()
    st.update(arp_replies=arp_replies, not_stamp=not_stamp, send_errors=send_errors)
    print(json.dumps(st), flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description="STAMP (RFC 8762) sender and reflectors")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sender")
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, default=STAMP_PORT)
    s.add_argument("--count", type=int, default=20)
    s.add_argument("--interval", type=float, default=10.0, help="ms between test packets")
    s.add_argument("--src-port", type=int, default=0)
    s.add_argument("--bind", default="0.0.0.0")
    s.add_argument("--timeout", type=float, default=1.0, help="s to wait after the last")
    s.add_argument("--first-seq", type=int, default=0)
    s.add_argument("--stateless-check", action="store_true")
    s.add_argument("--ttl", type=int, default=0, help="IP TTL of the test packets (0: the kernel's)")
    for name in ("reflector", "vxlan-reflector"):
        r = sub.add_parser(name)
        r.add_argument("--port", type=int, default=STAMP_PORT)
        r.add_argument("--mode", choices=("stateful", "stateless"), default="stateful")
        r.add_argument("--seconds", type=float, default=0, help="0: until SIGTERM")
        if name == "reflector":
            r.add_argument("--bind", default="0.0.0.0")
        else:
            r.add_argument("--iface", required=True)
            r.add_argument("--arp", action="append", default=[])
            r.add_argument("--vni", type=int)
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if a.cmd == "sender":
        return cmd_sender(a)
    if a.cmd == "reflector":
        return cmd_reflector(a)
    return cmd_vxlan_reflector(a)


if __name__ == "__main__":
    sys.exit(main())
