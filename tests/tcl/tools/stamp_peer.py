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

from inetcsum import inet_csum

# Before scapy's import: in a lab namespace it warns about lo on stderr.
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.arch import get_if_hwaddr  # noqa: E402
from scapy.config import conf  # noqa: E402
from scapy.fields import BitField, ByteField, IntField, LongField, ShortField, StrFixedLenField  # noqa: E402
from scapy.layers.l2 import ARP, Ether  # noqa: E402
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


# StampReflected's fields, for struct (seq, T3, error estimate, MBZ, T2,
# sender's seq, timestamp and error estimate, MBZ, sender's TTL, MBZ)
REFLECTED_FMT = "!IQHHQIQHHB3s"
assert len(StampTest()) == TEST_LEN and len(StampReflected()) == TEST_LEN
assert struct.calcsize(REFLECTED_FMT) == TEST_LEN


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
        # struct, not scapy: a reflector behind VXLAN answers hundreds of
        # probes a second, and scapy's dissection and build cost ~5 ms each
        # (the queue grew to 700 ms of RTT on a loaded machine)
        sender_seq, sender_ts, sender_err = struct.unpack_from("!IQH", data)
        if self.mode == "stateless":
            seq = sender_seq
        else:
            seq = self.counters.get(session, 0)
            self.counters[session] = (seq + 1) & 0xFFFFFFFF
        self.answered += 1
        # the layout of StampReflected; T3 as late as we can
        return struct.pack(REFLECTED_FMT, seq, ntp_now(), ERROR_ESTIMATE, 0, t2,
                           sender_seq, sender_ts, sender_err, 0, ttl & 0xFF, b"")

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

def ipv4_header(src, dst, ttl, payload_len):
    """A 20-byte IPv4 header (RFC 791) for a UDP payload of PAYLOAD_LEN
    bytes from SRC to DST (4 bytes each), checksum filled in."""
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, 0, 0x4000, ttl, 17, 0, src, dst)
    return h[:10] + struct.pack("!H", inet_csum(h)) + h[12:]


def vxlan_stamp_reply(frame, mymac, vni, port, refl, t2):
    """The reply to FRAME (bytes, Ethernet) if it is a VXLAN frame (RFC 7348)
    to MYMAC (6 bytes) whose inner packet is a STAMP test packet to PORT:
    bytes to send; b"" for a VXLAN frame with another inner packet; None for
    anything else (not ours, another VNI, no test packet). Parsed by hand,
    not by scapy: see Reflection.reflect."""
    if len(frame) < 14 + 20 + 8 + 8 or frame[0:6] != mymac or frame[12:14] != b"\x08\x00":
        return None
    ihl = (frame[14] & 0x0F) * 4
    if frame[14] >> 4 != 4 or ihl < 20 or frame[23] != 17:
        return None
    o_ip = frame[14:14 + ihl]
    u = 14 + ihl
    o_sport, o_dport = struct.unpack_from("!HH", frame, u)
    if o_dport != VXLAN_PORT or len(frame) < u + 16:
        return None
    vx_flags, vx_vni = struct.unpack_from("!I I", frame, u + 8)
    if not vx_flags & 0x08000000:
        return None  # I flag: the VNI is valid (RFC 7348 §5)
    if vni is not None and vx_vni >> 8 != vni:
        return None
    e = u + 16  # the inner Ethernet frame
    if len(frame) < e + 14 + 20 + 8 or frame[e + 12:e + 14] != b"\x08\x00":
        return b""
    i = e + 14
    iihl = (frame[i] & 0x0F) * 4
    if frame[i] >> 4 != 4 or iihl < 20 or frame[i + 9] != 17 or len(frame) < i + iihl + 8:
        return b""
    iu = i + iihl
    i_sport, i_dport, i_len = struct.unpack_from("!HHH", frame, iu)
    if i_dport != port:
        return b""
    data = frame[iu + 8:iu + max(8, i_len)]
    out = refl.reflect(data, (vx_vni >> 8, frame[i + 12:i + 16], i_sport), frame[i + 8], t2)
    if out is None:
        return None
    inner_udp = struct.pack("!HHHH", i_dport, i_sport, 8 + len(out), 0) + out  # checksum 0: none (RFC 768)
    inner = (frame[e + 6:e + 12] + frame[e:e + 6] + b"\x08\x00" +
             ipv4_header(frame[i + 16:i + 20], frame[i + 12:i + 16], 255, len(inner_udp)) + inner_udp)
    # the sender's outer source port back as ours: the reply of a plane
    # travels on the same plane (same 5-tuple hash)
    outer_udp = struct.pack("!HHHH", o_sport, VXLAN_PORT, 16 + len(inner), 0) + frame[u + 8:u + 16] + inner
    return (frame[6:12] + mymac + b"\x08\x00" +
            ipv4_header(o_ip[16:20], o_ip[12:16], 64, len(outer_udp)) + outer_udp)


def cmd_vxlan_reflector(a):
    mymac = get_if_hwaddr(a.iface)
    mymac_b = bytes.fromhex(mymac.replace(":", ""))
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
            frame = sock.ins.recv(65535)
            t2 = ntp_now()
            if len(frame) < 14:
                continue
            if frame[12:14] == b"\x08\x06":
                f = Ether(frame)  # ARP: rare, scapy is fast enough
                arp = f[ARP] if ARP in f else None
                if arp is not None and arp.op == 1 and arp.pdst in a.arp:
                    sock.send(Ether(src=mymac, dst=arp.hwsrc) /
                              ARP(op=2, hwsrc=mymac, psrc=arp.pdst, hwdst=arp.hwsrc, pdst=arp.psrc))
                    arp_replies += 1
                continue
            reply = vxlan_stamp_reply(frame, mymac_b, a.vni, a.port, refl, t2)
            if reply is None:
                continue
            if reply == b"":
                not_stamp += 1
                continue
            try:
                sock.outs.send(reply)
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
