#!/usr/bin/env python3
# fastpath.py gen|check SCENARIO DIR: the frames of test_fastpath.tcl and
# the checks of what vbrd wrote (stdlib only: the byte layouts of RFC 791,
# 768, 793, 792, 7348 and IEEE 802.1Q, written out here so the check does
# not share code with vbrd).
#
#   gen SCENARIO DIR    writes DIR/SCENARIO-*.pcap (vbrd's rx_pcap files) and
#                       DIR/SCENARIO-model.json; prints the expectations as
#                       JSON: {"frames": {PCAP: N}, "counters": {...}}
#   check SCENARIO DIR  reads the model and vbrd's tx_pcap files; prints JSON
#                       {"written": {PCAP: N}, "problems": {CHECK: [MSG...]}}
#
# SCENARIO: mix (forwarding, drops, ICMP errors, VLAN egress), encap (VXLAN
# through a path group), decap (VXLAN decapsulation).
#
# Every expectation is computed here from the frames generated (lengths,
# TTLs, fragment sizes from the MTU, ICMP sizes from RFC 1812 §4.3.2.3's
# 576 bytes, encapsulation overhead from RFC 7348), never from vbrd.
import json
import os
import struct
import sys

from inetcsum import inet_csum

HOST_MAC = "02:00:00:00:00:01"      # the sender in front of vbrd
GW_MAC = "02:00:00:00:00:99"        # static neighbor 198.18.0.2 (untagged egress)
GWV_MAC = "02:00:00:00:00:98"       # static neighbor 198.18.1.2 (VLAN 100 egress)
LINE_GW_MAC = "02:00:00:00:00:77"   # static neighbor 172.16.1.2 (underlay)
INNER_MAC = "02:00:00:00:00:55"     # tunnel inner_mac
PCAP_MAC = ["02:70:63:61:70:%02x" % i for i in range(4)]  # net_pcapN's MAC
VLAN = 100
MTU_DST = 1000
VNI = 1000
VXLAN_PORT = 4789
# RFC 7348: outer IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14
VXLAN_OVERHEAD = 50
INNER_MTU = 1500 - VXLAN_OVERHEAD
ICMP_MAX_IP = 576  # RFC 1812 §4.3.2.3


def mac(s):
    return bytes.fromhex(s.replace(":", ""))


def ip4(a):
    return bytes(int(x) for x in a.split("."))


def ip4s(b):
    return ".".join(str(x) for x in b)


def ipv4(src, dst, proto, payload, ttl=64, tos=0, ident=1, flags=0, options=b"",
         bad_csum=False, total=None):
    """flags: DF 0x4000, MF 0x2000, | offset in 8-byte units"""
    ihl = 5 + len(options) // 4
    assert len(options) % 4 == 0
    tl = total if total is not None else ihl * 4 + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, tl, ident, flags, ttl, proto, 0,
                    ip4(src), ip4(dst)) + options
    c = inet_csum(h)
    if bad_csum:
        c ^= 0x5a5a
    return h[:10] + struct.pack("!H", c) + h[12:] + payload


def l4_pseudo(src, dst, proto, seg):
    return ip4(src) + ip4(dst) + struct.pack("!BBH", 0, proto, len(seg))


def udp(src, dst, sport, dport, data, cks=True, bad=False):
    seg = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    c = 0
    if cks:
        c = inet_csum(l4_pseudo(src, dst, 17, seg) + seg) or 0xffff
        if bad:
            c ^= 0x1234
    return seg[:6] + struct.pack("!H", c) + seg[8:]


def tcp(src, dst, sport, dport, seq, data=b"", flags=0x10):
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, 1, 5 << 4, flags, 65535, 0, 0) + data
    c = inet_csum(l4_pseudo(src, dst, 6, seg) + seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def eth(dst, src, etype, payload, pad=True):
    f = mac(dst) + mac(src) + struct.pack("!H", etype) + payload
    if pad and len(f) < 60:
        f += b"\0" * (60 - len(f))   # IEEE 802.3: minimum frame, FCS not counted
    return f


def filler(n, seed):
    return bytes((seed * 7 + i * 13) & 0xff for i in range(n))


# --- pcap files ---

def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1, i, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    try:
        data = open(path, "rb").read()
    except OSError:
        return []
    if len(data) < 24:
        return []
    magic = struct.unpack("<I", data[:4])[0]
    e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    out, off = [], 24
    while off + 16 <= len(data):
        caplen = struct.unpack(e + "I", data[off + 8:off + 12])[0]
        end = off + 16 + caplen
        if end > len(data):
            break
        out.append(data[off + 16:end])
        off = end
    return out


# --- parsing what vbrd wrote ---

def parse_eth(f):
    d = {"dst": f[0:6].hex(":"), "src": f[6:12].hex(":"), "vlan": None}
    et = struct.unpack("!H", f[12:14])[0]
    off = 14
    if et == 0x8100:
        tci, et = struct.unpack("!HH", f[14:18])
        d["vlan"] = tci & 0xfff
        d["pcp"] = tci >> 13
        off = 18
    d["type"] = et
    d["l3"] = f[off:]
    d["l2_len"] = off
    return d


def parse_ip(b):
    if len(b) < 20 or b[0] >> 4 != 4:
        return None
    ihl = (b[0] & 15) * 4
    tl, ident, ff = struct.unpack("!HHH", b[2:8])
    return {"ihl": ihl, "tos": b[1], "total": tl, "id": ident, "df": ff >> 14 & 1,
            "mf": ff >> 13 & 1, "off": (ff & 0x1fff) * 8, "ttl": b[8], "proto": b[9],
            "src": ip4s(b[12:16]), "dst": ip4s(b[16:20]), "hdr": b[:ihl],
            "csum_ok": inet_csum(b[:ihl]) == 0, "datagram": b[:tl], "payload": b[ihl:tl],
            "len_ok": len(b) == tl, "rawlen": len(b)}


def same_but_ttl(a_hdr, b_hdr, ttl_delta=1, tos=None):
    """b's header = a's with TTL - ttl_delta (and TOS, when given); checksums aside"""
    if len(a_hdr) != len(b_hdr):
        return "header %d bytes, sent %d" % (len(b_hdr), len(a_hdr))
    exp = bytearray(a_hdr)
    exp[8] = (exp[8] - ttl_delta) & 0xff
    if tos is not None:
        exp[1] = tos
    got = bytearray(b_hdr)
    exp[10:12] = got[10:12] = b"\0\0"
    if exp != got:
        return "header %s, want %s" % (bytes(got).hex(), bytes(exp).hex())
    return None


def fragment_model(datagram, mtu):
    """RFC 791 §3.2: the fragments of DATAGRAM (DF clear) at MTU: [(offset, len, mf)]"""
    ihl = (datagram[0] & 15) * 4
    tl = struct.unpack("!H", datagram[2:4])[0]
    ff = struct.unpack("!H", datagram[6:8])[0]
    base = (ff & 0x1fff) * 8
    mf_in = ff >> 13 & 1
    data = tl - ihl
    if tl <= mtu:
        return [(base, data, mf_in)]
    step = (mtu - ihl) & ~7
    out, off = [], 0
    while off < data:
        n = min(step, data - off)
        last = off + n >= data
        out.append((base + off, n, mf_in if last else 1))
        off += n
    return out


# --- scenarios ---
#
# Each input packet is a record: {"frame": hex, "ip": hex datagram (as
# vbrd must see it, padding off), "expect": KIND, "flow": NAME or "",
# ...}. KIND: fwd (one frame out, TTL - 1), frag (fragments out), icmp
# (an ICMP error back out of the ingress port, nothing forwarded), drop
# (nothing out), decapped_drop (decapsulated, then dropped).

SRC = "10.0.0.2"


class Gen:
    def __init__(self):
        self.recs = []
        self.ident = 0x1000

    def add(self, frame, dgram, expect, flow="", **kw):
        r = {"frame": frame.hex(), "ip": dgram.hex(), "expect": expect, "flow": flow}
        r.update(kw)
        self.recs.append(r)
        return r

    def next_id(self):
        self.ident += 1
        return self.ident


def gen_mix(g):
    inmac = PCAP_MAC[0]

    def send(dgram, expect, flow="", pad=True, **kw):
        return g.add(eth(inmac, HOST_MAC, 0x0800, dgram, pad), dgram, expect, flow, **kw)

    def u(dst, sport, dport, n, flow, expect="fwd", ttl=64, tos=0, flags=0, options=b"",
          bad=False, egress="dst", **kw):
        i = g.next_id()
        d = ipv4(SRC, dst, 17, udp(SRC, dst, sport, dport, filler(n, i)), ttl=ttl, tos=tos,
                 ident=i, flags=flags, options=options, bad_csum=bad)
        return send(d, expect, flow, egress=egress, **kw)

    def ack(dst, sport, seq, flow, egress="dst"):
        i = g.next_id()
        d = ipv4(SRC, dst, 6, tcp(SRC, dst, sport, 80, seq), ident=i, flags=0x4000)
        return send(d, "fwd", flow, egress=egress)   # 54-byte frame padded to 60

    A, B = "198.19.1.1", "198.19.1.2"
    # flow U1 (UDP 1000 -> 198.19.1.1:2000): fast packets, one with IP
    # options in the middle (general path), one with TTL 2, sizes mixed
    u(A, 1000, 2000, 100, "U1")
    ack(B, 3000, 1, "T1")
    u(A, 1000, 2000, 1, "U1")                       # 29-byte datagram, padded frame
    u(A, 1000, 2000, 300, "U1", options=b"\x01\x01\x01\x00")   # IHL 6: general path
    ack(B, 3000, 2, "T1")
    u(A, 1000, 2000, 60, "U1", ttl=2)               # leaves with TTL 1
    u(A, 1000, 2000, MTU_DST - 28, "U1", flags=0x4000)   # exactly the MTU, DF: fits
    ack(B, 3000, 3, "T1")
    u(A, 1000, 2000, 500, "U1", tos=0xb8)
    # errors and drops
    u(A, 1001, 2000, 40, "", "icmp", ttl=1, icmp=(11, 0, 0), drop="ttl_expired")
    u(A, 1002, 2000, 40, "", "drop", bad=True, drop="bad_checksum")
    for s, d in (("127.0.0.5", A), ("0.1.2.3", A), (SRC, "224.1.1.1")):
        i = g.next_id()
        dg = ipv4(s, d, 17, udp(s, d, 1003, 2000, filler(20, i)), ident=i)
        send(dg, "drop", drop="martian")
    u("198.19.1.3", 1004, 2000, MTU_DST - 27, "", "icmp", flags=0x4000,
      icmp=(3, 4, MTU_DST), drop="mtu_exceeded")     # one byte over the MTU, DF
    u("198.19.1.3", 1005, 2000, 1372, "F", "frag")   # 1400 bytes, DF clear
    u("203.0.113.1", 1006, 2000, 40, "", "icmp", icmp=(3, 0, 0), drop="no_route")
    # fragments made by the sender: a first (MF, offset 0) and a later one
    i = g.next_id()
    body = udp(SRC, A, 1007, 2000, filler(400, i))
    send(ipv4(SRC, A, 17, body[:200], ident=i, flags=0x2000), "fwd", "FR")
    send(ipv4(SRC, A, 17, body[200:], ident=i, flags=25), "fwd", "FR")
    u(A, 1000, 2000, 700, "U1")
    ack(B, 3000, 4, "T1")
    # VLAN egress (198.20.0.0/16 via 198.18.1.2 on VLAN 100)
    V = "198.20.1.1"
    u(V, 1100, 2000, 200, "V1", egress="dstv")
    ack(V, 3100, 1, "V2", egress="dstv")
    u(V, 1100, 2000, 1472, "V1", egress="dstv", flags=0x4000)   # 1500 = the VLAN's MTU
    u(V, 1100, 2000, 30, "V1", egress="dstv", options=b"\x01\x01\x01\x00")


def gen_encap(g, many=False):
    inmac = PCAP_MAC[0]
    D = "10.60.0.1"

    def send(dgram, expect, flow="", **kw):
        return g.add(eth(inmac, HOST_MAC, 0x0800, dgram), dgram, expect, flow, **kw)

    # flow E1: many sizes and TOS values (the outer checksum is incremental)
    sizes = [1, 17, 64, 100, 255, 256, 511, 512, 999, 1000, 1300, INNER_MTU - 28]
    toses = [0, 1, 2, 3, 0x10, 0x28, 0xb8, 0xfc, 0xff, 0x2e, 0x88, 0x61]
    for k, (n, t) in enumerate(zip(sizes, toses)):
        i = g.next_id()
        send(ipv4(SRC, D, 17, udp(SRC, D, 5000, 6000, filler(n, i)), ident=i, tos=t,
                  flags=0x4000 if k % 2 else 0), "fwd", "E1")
        if k == 5:   # one of the flow with IP options: the general path, same flow hash
            i = g.next_id()
            send(ipv4(SRC, D, 17, udp(SRC, D, 5000, 6000, filler(90, i)), ident=i, tos=0x20,
                      options=b"\x01\x01\x01\x00"), "fwd", "E1")
        if k == 8:   # DF clear, larger than the inner MTU: fragmented, then encapsulated
            i = g.next_id()
            send(ipv4(SRC, D, 17, udp(SRC, D, 5000, 6000, filler(INNER_MTU - 18, i)),
                      ident=i, tos=0x48), "frag", "E1")
    # flow E2: TCP ACKs (padded frames) and data, TOS varying
    for k in range(6):
        i = g.next_id()
        send(ipv4(SRC, "10.60.0.2", 6, tcp(SRC, "10.60.0.2", 7000, 80, k, filler(k * 97, i)),
                  ident=i, tos=k * 41 & 0xff, flags=0x4000), "fwd", "E2")
    # DF and one byte over the tunnel's inner MTU: frag needed with the inner MTU
    i = g.next_id()
    send(ipv4(SRC, D, 17, udp(SRC, D, 5001, 6000, filler(INNER_MTU - 27, i)), ident=i,
              flags=0x4000), "icmp", icmp=(3, 4, INNER_MTU), drop="mtu_exceeded")
    # other flows: outer source port per flow (different, most likely)
    for f in range(8):
        i = g.next_id()
        send(ipv4(SRC, D, 17, udp(SRC, D, 5100 + f, 6000, filler(50 + f, i)), ident=i),
             "fwd", "X%d" % f)
    if many:
        # 160 more of 10 flows interleaved: the burst (256) beyond the
        # chooser's 64, and a general-path packet (IP options) of flow Y3
        # inside it, so the chunks end at 64 and elsewhere
        for k in range(160):
            f = k % 10
            i = g.next_id()
            opts = b"\x01\x01\x01\x00" if k == 93 else b""
            send(ipv4(SRC, D, 17, udp(SRC, D, 5200 + f, 6000, filler(20 + k, i)), ident=i,
                      options=opts), "fwd", "Y%d" % f)


def vxlan_frame(outer_src, inner_frame, vni=VNI, cks=False, bad_cks=False, outer_tos=0,
                ident=1, flags=0x08):
    vx = struct.pack("!B3xI", flags, vni << 8) + inner_frame
    u = udp(outer_src, "172.16.1.1", 49999, VXLAN_PORT, vx, cks=cks, bad=bad_cks)
    o = ipv4(outer_src, "172.16.1.1", 17, u, tos=outer_tos, ident=ident)
    return eth(PCAP_MAC[0], LINE_GW_MAC, 0x0800, o), o


def gen_decap(g):
    R = "172.16.1.2"
    ISRC = "10.50.0.2"
    A = "198.19.2.1"

    def inner(dst, n, tos=0, options=b"", flow_sport=8000, pad=False, tcp_ack=False):
        i = g.next_id()
        if tcp_ack:
            d = ipv4(ISRC, dst, 6, tcp(ISRC, dst, flow_sport, 80, i), ident=i, tos=tos)
        else:
            d = ipv4(ISRC, dst, 17, udp(ISRC, dst, flow_sport, 9000, filler(n, i)), ident=i,
                     tos=tos, options=options)
        # inner Ethernet: to the tunnel's inner MAC; padded only when asked
        return eth(INNER_MAC, "02:00:00:00:00:44", 0x0800, d, pad=pad), d, i

    def send(outer_src, inner_t, expect, flow="", **kw):
        fr, d, i = inner_t
        vkw = {k: kw.pop(k) for k in list(kw) if k in ("vni", "cks", "bad_cks", "outer_tos")}
        frame, _ = vxlan_frame(outer_src, fr, ident=i, **vkw)
        return g.add(frame, d, expect, flow, inner_len=len(fr), **kw)

    send(R, inner(A, 100), "fwd", "D1", tunnel_rx=True)
    # right behind it, in the same burst: a datagram of another IP protocol
    # (253, then TCP) from the remote shaped like VXLAN: not a tunnel packet
    for proto in (253, 6):
        fr, _, i = inner(A, 80)
        vx = struct.pack("!B3xI", 0x08, VNI << 8) + fr
        o = ipv4(R, "172.16.1.1", proto,
                 udp(R, "172.16.1.1", 49999, VXLAN_PORT, vx, cks=False), ident=i)
        g.add(eth(PCAP_MAC[0], LINE_GW_MAC, 0x0800, o), o, "drop", drop="unsupported_local")
    send(R, inner(A, 1), "fwd", "D1", tunnel_rx=True)
    send(R, inner(A, 0, tcp_ack=True, pad=True, flow_sport=8100), "fwd", "D2",
         tunnel_rx=True)                                   # inner frame padded to 60
    send(R, inner(A, 200, options=b"\x01\x01\x01\x00"), "fwd", "D1", tunnel_rx=True)
    send(R, inner(A, 300), "fwd", "D1", tunnel_rx=True)
    send(R, inner(A, 50), "drop", vni=VNI + 1, drop="tunnel_bad_vni")
    send("172.16.1.3", inner(A, 50), "drop", drop="tunnel_unknown_remote")
    send(R, inner(A, 400), "fwd", "D1", cks=True, tunnel_rx=True)      # valid UDP checksum
    send(R, inner(A, 50), "drop", cks=True, bad_cks=True, drop="tunnel_bad_checksum")
    send(R, inner(A, 60, tos=0x02, flow_sport=8200), "fwd", "D3", outer_tos=0x03,
         tunnel_rx=True, tos_out=0x03)                     # CE over ECT(0): CE inside
    send(R, inner(A, 61, tos=0x01, flow_sport=8200), "fwd", "D3", outer_tos=0x03,
         tunnel_rx=True, tos_out=0x03)                     # CE over ECT(1)
    send(R, inner(A, 62, tos=0x00, flow_sport=8200), "drop", outer_tos=0x03,
         drop="ecn_not_ect")                               # CE over not-ECT
    send(R, inner(A, 63, tos=0x02, flow_sport=8200), "fwd", "D3", outer_tos=0x02,
         tunnel_rx=True, tos_out=0x02)                     # ECT outer, no mark
    # VXLAN inside VXLAN, to vbrd's own tunnel address from the remote with
    # the right VNI: decapsulated once, then not served (unsupported_local)
    deep, _, _ = inner(A, 70)
    i = g.next_id()
    vx = struct.pack("!B3xI", 0x08, VNI << 8) + deep
    mid = ipv4(R, "172.16.1.1", 17, udp(R, "172.16.1.1", 49998, VXLAN_PORT, vx, cks=False),
               ident=i)
    mid_frame = eth(INNER_MAC, "02:00:00:00:00:44", 0x0800, mid, pad=False)
    frame, _ = vxlan_frame(R, mid_frame, ident=i)
    g.add(frame, mid, "decapped_drop", "", inner_len=len(mid_frame), tunnel_rx=True,
          drop="unsupported_local")
    send(R, inner(A, 500), "fwd", "D1", tunnel_rx=True)
    send(R, inner(A, 0, tcp_ack=True, pad=True, flow_sport=8100), "fwd", "D2",
         tunnel_rx=True)


def expectations(scn, recs):
    """The counters and frame counts the scenario must produce."""
    scn = base_of(scn)
    c = {"rx_packets": len(recs), "rx_bytes": sum(len(r["frame"]) // 2 for r in recs),
         "forwarded": 0, "fragments": 0, "icmp_errors": 0, "drops": {}, "tx": {},
         "tunnel_rx_packets": 0, "tunnel_rx_bytes": 0, "tunnel_tx_packets": 0,
         "tunnel_tx_bytes": 0}
    frames = {}

    def tx(iface, n):
        p, b = c["tx"].get(iface, (0, 0))
        c["tx"][iface] = (p + 1, b + n)

    for r in recs:
        d = bytes.fromhex(r["ip"])
        if "drop" in r:
            c["drops"][r["drop"]] = c["drops"].get(r["drop"], 0) + 1
        if r.get("tunnel_rx"):
            c["tunnel_rx_packets"] += 1
            c["tunnel_rx_bytes"] += r["inner_len"]
        if r["expect"] == "icmp":
            c["icmp_errors"] += 1
            tx("src", 14 + 20 + 8 + min(len(d), ICMP_MAX_IP - 28))
        if r["expect"] not in ("fwd", "frag"):
            continue
        if scn == "encap":
            pieces = fragment_model(d, INNER_MTU) if r["expect"] == "frag" else None
            ihl = (d[0] & 15) * 4
            lens = [ihl + n for _, n, _ in pieces] if pieces else [len(d)]
            if pieces:
                c["fragments"] += len(pieces)
            for n in lens:
                c["forwarded"] += 1
                c["tunnel_tx_packets"] += 1
                c["tunnel_tx_bytes"] += n       # the inner datagram
                tx("line", 14 + VXLAN_OVERHEAD + n)
            continue
        egress = r.get("egress", "dst")
        l2 = 18 if egress == "dstv" else 14
        if r["expect"] == "frag":
            ihl = (d[0] & 15) * 4
            pieces = fragment_model(d, MTU_DST)
            c["fragments"] += len(pieces)
            for _, n, _ in pieces:
                c["forwarded"] += 1
                tx(egress, l2 + ihl + n)
        else:
            c["forwarded"] += 1
            tx(egress, l2 + len(d))
    c["drops_total"] = sum(c["drops"].values())
    out = {"mix": ("out", "in_tx"), "encap": ("line", "in_tx"), "decap": ("out", "line_tx")}
    iface_of = {"mix": {"out": ("dst", "dstv"), "in_tx": ("src",)},
                "encap": {"line": ("line",), "in_tx": ("src",)},
                "decap": {"out": ("dst",), "line_tx": ("line",)}}
    for f in out[scn]:
        frames[f] = sum(c["tx"].get(i, (0, 0))[0] for i in iface_of[scn][f])
    c["tx"] = {k: list(v) for k, v in c["tx"].items()}
    return {"frames": frames, "counters": c}


def base_of(scn):
    """encap-ps (path selection's burst chooser on the group) is encap's scenario."""
    return "encap" if scn == "encap-ps" else scn


def gen(scn, d):
    g = Gen()
    if scn == "encap-ps":
        gen_encap(g, many=True)
    else:
        {"mix": gen_mix, "encap": gen_encap, "decap": gen_decap}[scn](g)
    name = {"mix": "in", "encap": "in", "decap": "line_in"}[base_of(scn)]
    write_pcap(os.path.join(d, "%s-%s.pcap" % (scn, name)),
               [bytes.fromhex(r["frame"]) for r in g.recs])
    json.dump(g.recs, open(os.path.join(d, "%s-model.json" % scn), "w"))
    print(json.dumps(expectations(scn, g.recs)))


# --- checks ---

class Problems:
    def __init__(self):
        self.p = {}

    def add(self, check, msg):
        lst = self.p.setdefault(check, [])
        if len(lst) < 8:
            lst.append(msg)

    def need(self, *checks):
        for c in checks:
            self.p.setdefault(c, [])


def check_icmp(P, recs, frames, in_mac, router):
    """ICMP errors back out of the ingress port, one per 'icmp' record; they
    may leave in any order (different flows), each is matched to the packet
    it quotes."""
    want = {}
    for r in recs:
        if r["expect"] == "icmp":
            d = bytes.fromhex(r["ip"])
            want[struct.unpack("!H", d[4:6])[0]] = r
    seen = set()
    for f in frames:
        e = parse_eth(f)
        ip = parse_ip(e["l3"]) if e["type"] == 0x0800 else None
        if ip is None or ip["proto"] != 1 or len(ip["payload"]) < 28:
            P.add("icmp", "unexpected frame on the ingress port: %s" % f[:64].hex())
            continue
        m = ip["payload"]
        qid = struct.unpack("!H", m[8 + 4:8 + 6])[0]
        r = want.get(qid)
        tag = "ICMP about id 0x%04x" % qid
        if r is None or qid in seen:
            P.add("icmp", "%s: no such error expected (or a second one)" % tag)
            continue
        seen.add(qid)
        d = bytes.fromhex(r["ip"])
        t, code, mtu = r["icmp"]
        if e["dst"] != HOST_MAC or e["src"] != in_mac or e["vlan"] is not None:
            P.add("icmp", "%s: MACs %s <- %s, want %s <- %s" % (tag, e["dst"], e["src"],
                                                                HOST_MAC, in_mac))
        if ip["src"] != router or ip["dst"] != ip4s(d[12:16]) or not ip["csum_ok"]:
            P.add("icmp", "%s: %s -> %s csum_ok %s" % (tag, ip["src"], ip["dst"],
                                                       ip["csum_ok"]))
        quote = d[:min(len(d), ICMP_MAX_IP - 28)]
        if len(f) != e["l2_len"] + 28 + len(quote) or not ip["len_ok"]:
            P.add("icmp", "%s: frame %d bytes, want %d" % (tag, len(f),
                                                           e["l2_len"] + 28 + len(quote)))
        if m[0] != t or m[1] != code or inet_csum(m) != 0:
            P.add("icmp", "%s: type %d code %d csum_ok %s, want %d/%d" % (
                tag, m[0], m[1], inet_csum(m) == 0, t, code))
        if struct.unpack("!H", m[6:8])[0] != mtu:
            P.add("icmp", "%s: next-hop MTU %d, want %d" % (
                tag, struct.unpack("!H", m[6:8])[0], mtu))
        if m[8:] != quote:
            P.add("icmp", "%s: quotes %s..., want the datagram as received %s..." % (
                tag, m[8:40].hex(), quote[:32].hex()))
    for qid in sorted(set(want) - seen):
        P.add("icmp", "no ICMP error about id 0x%04x (%s)" % (qid, want[qid].get("drop")))


def check_forwarded(P, recs, outs, ttl_delta=1):
    """outs: [(key, ip dict, extra)] in written order. Checks per input record."""
    by_id = {}
    for k, (key, ip, extra) in enumerate(outs):
        by_id.setdefault((ip["src"], ip["id"]), []).append((k, ip, extra))
    used = set()
    order = {}
    for r in recs:
        d = bytes.fromhex(r["ip"])
        sent = parse_ip(d)
        key = (sent["src"], sent["id"])
        got = [o for o in by_id.get(key, []) if o[0] not in used
               and (sent["mf"] or sent["off"] or r["expect"] == "frag" or True)]
        # sender's fragments share an id: pick the one at the same offset
        if r["expect"] == "fwd":
            got = [o for o in got if o[1]["off"] == sent["off"]][:1]
        tag = "id 0x%04x (%s, %d bytes)" % (sent["id"], r["flow"] or r["expect"], len(d))
        if r["expect"] not in ("fwd", "frag"):
            if got:
                P.add("nothing_else", "%s: written although it must not leave (%s)" % (
                    tag, r.get("drop", r["expect"])))
            continue
        for o in got:
            used.add(o[0])
        if not got:
            P.add("forwarded", "%s: not written" % tag)
            continue
        order.setdefault(r["flow"], []).append((got[0][0], sent["id"], sent["off"]))
        if r["expect"] == "frag":
            mtu = r.get("frag_mtu", MTU_DST)
            want = fragment_model(d, mtu)
            have = sorted((o[1]["off"], len(o[1]["payload"]), o[1]["mf"]) for o in got)
            if have != sorted(want):
                P.add("fragments", "%s: fragments %s, want %s" % (tag, have, want))
            data = b"".join(o[1]["payload"] for o in sorted(got, key=lambda o: o[1]["off"]))
            if data != sent["payload"]:
                P.add("fragments", "%s: fragments do not reassemble to what was sent" % tag)
            for _, ip, extra in got:
                if ip["ttl"] != sent["ttl"] - ttl_delta or not ip["csum_ok"] or \
                        ip["total"] > mtu or ip["df"]:
                    P.add("fragments", "%s: fragment ttl %d csum_ok %s total %d df %d" % (
                        tag, ip["ttl"], ip["csum_ok"], ip["total"], ip["df"]))
                for msg in extra(r, ip):
                    P.add("l2", "%s: %s" % (tag, msg))
            continue
        _, ip, extra = got[0]
        if ip["ttl"] != sent["ttl"] - ttl_delta:
            P.add("ttl", "%s: TTL %d, want %d" % (tag, ip["ttl"], sent["ttl"] - ttl_delta))
        if not ip["csum_ok"]:
            P.add("ip_checksum", "%s: header checksum wrong (%s)" % (tag, ip["hdr"].hex()))
        why = same_but_ttl(sent["hdr"], ip["hdr"], ttl_delta, r.get("tos_out"))
        if why:
            P.add("ecn" if "tos_out" in r else "header", "%s: %s" % (tag, why))
        if ip["payload"] != sent["payload"]:
            P.add("payload", "%s: payload changed" % tag)
        if not ip["len_ok"]:
            P.add("length", "%s: %d bytes after L2, the datagram is %d (padding?)" % (
                tag, ip["rawlen"], ip["total"]))
        for msg in extra(r, ip):
            P.add("vlan" if r.get("egress") == "dstv" else "l2", "%s: %s" % (tag, msg))
    if len(used) != len(outs):
        extra_ids = ["0x%04x" % o[1]["id"] for k, o in enumerate(outs) if k not in used][:8]
        P.add("nothing_else", "%d frames written that match no packet sent: ids %s" % (
            len(outs) - len(used), extra_ids))
    for flow, seq in order.items():
        if flow == "" or flow == "FR":
            continue
        pos = [s[0] for s in seq]
        if pos != sorted(pos):
            P.add("order", "flow %s: written in the order %s, sent %s" % (
                flow, ["0x%04x" % s[1] for s in sorted(seq)], ["0x%04x" % s[1] for s in seq]))


def check(scn, d):
    recs = json.load(open(os.path.join(d, "%s-model.json" % scn)))
    P = Problems()
    P.need("forwarded", "nothing_else", "ttl", "ip_checksum", "header", "payload", "length",
           "l2", "vlan", "ecn", "order", "fragments", "icmp")
    written = {}
    if scn in ("mix", "decap"):
        out_mac = PCAP_MAC[1]
        frames = read_pcap(os.path.join(d, "%s-out.pcap" % scn))
        written["out"] = len(frames)
        outs = []
        for f in frames:
            e = parse_eth(f)
            ip = parse_ip(e["l3"]) if e["type"] == 0x0800 else None
            if ip is None:
                P.add("nothing_else", "not an IPv4 frame: %s" % f[:64].hex())
                continue

            def l2check(r, ip, e=e):
                msgs = []
                vlan = r.get("egress") == "dstv"
                want_dst = GWV_MAC if vlan else GW_MAC
                if e["dst"] != want_dst or e["src"] != out_mac:
                    msgs.append("MACs %s <- %s, want %s <- %s" % (e["dst"], e["src"],
                                                                  want_dst, out_mac))
                if vlan and (e["vlan"] != VLAN or e["pcp"] != 0):
                    msgs.append("802.1Q VID %s PCP %s, want VID %d PCP 0" % (
                        e["vlan"], e.get("pcp"), VLAN))
                if not vlan and e["vlan"] is not None:
                    msgs.append("tagged VID %d, want untagged" % e["vlan"])
                if e["l2_len"] + ip["total"] != e["l2_len"] + ip["rawlen"]:
                    msgs.append("frame %d bytes, want %d + %d" % (e["l2_len"] + ip["rawlen"],
                                                                 ip["total"], e["l2_len"]))
                return msgs
            outs.append((None, ip, l2check))
        check_forwarded(P, recs, outs)
        if scn == "mix":
            icmp_frames = read_pcap(os.path.join(d, "mix-in_tx.pcap"))
            written["in_tx"] = len(icmp_frames)
            check_icmp(P, recs, icmp_frames, PCAP_MAC[0], "10.0.0.1")
        else:
            back = read_pcap(os.path.join(d, "decap-line_tx.pcap"))
            written["line_tx"] = len(back)
            for f in back:
                P.add("nothing_else", "frame written on the line: %s" % f[:64].hex())
    else:
        P.need("outer", "outer_checksum", "source_port")
        line_mac = PCAP_MAC[1]
        frames = read_pcap(os.path.join(d, "%s-line.pcap" % scn))
        if scn == "encap-ps":
            # path selection's probes on the line: VXLAN with inner UDP to
            # STAMP's port (RFC 8762), not the scenario's traffic
            def probe(f):
                e = parse_eth(f)
                o = parse_ip(e["l3"]) if e["type"] == 0x0800 else None
                if o is None or o["proto"] != 17:
                    return False
                ie = parse_eth(e["l3"][o["ihl"] + 16:])
                ip = parse_ip(ie["l3"]) if ie["type"] == 0x0800 else None
                return ip is not None and ip["proto"] == 17 and \
                    struct.unpack("!H", ie["l3"][ip["ihl"] + 2:ip["ihl"] + 4])[0] == 862
            frames = [f for f in frames if not probe(f)]
        written["line"] = len(frames)
        outs, sports = [], {}
        flow_of = {}
        for r in recs:
            s = parse_ip(bytes.fromhex(r["ip"]))
            flow_of[(s["src"], s["id"])] = r["flow"]
        for f in frames:
            e = parse_eth(f)
            o = parse_ip(e["l3"]) if e["type"] == 0x0800 else None
            if o is None or o["proto"] != 17:
                P.add("outer", "not a UDP/IPv4 frame: %s" % f[:64].hex())
                continue
            ob = e["l3"]
            uh = ob[o["ihl"]:o["ihl"] + 8]
            sp, dp, ulen, uck = struct.unpack("!HHHH", uh)
            vx = ob[o["ihl"] + 8:o["ihl"] + 16]
            ie = parse_eth(ob[o["ihl"] + 16:])
            ip = parse_ip(ie["l3"])
            if ip is None:
                P.add("outer", "no inner IPv4: %s" % f[:80].hex())
                continue
            tag = "inner id 0x%04x" % ip["id"]
            msgs = []
            if e["dst"] != LINE_GW_MAC or e["src"] != line_mac or e["vlan"] is not None:
                msgs.append("outer MACs %s <- %s" % (e["dst"], e["src"]))
            if not o["csum_ok"]:
                P.add("outer_checksum", "%s (outer TOS 0x%02x, total %d): outer checksum "
                      "0x%s wrong" % (tag, o["tos"], o["total"], o["hdr"][10:12].hex()))
            if o["src"] != "172.16.1.1" or o["dst"] != "172.16.1.2" or o["ttl"] != 64 or \
                    o["ihl"] != 20 or o["df"] or o["mf"] or o["off"]:
                msgs.append("outer header %s" % o["hdr"].hex())
            if o["total"] != len(ob) or o["total"] != 20 + 8 + 8 + 14 + ip["total"]:
                msgs.append("outer total length %d, frame carries %d, want 50 + %d" % (
                    o["total"], len(ob), ip["total"]))
            if ulen != 8 + 8 + 14 + ip["total"] or uck != 0 or dp != VXLAN_PORT:
                msgs.append("UDP length %d (want %d) checksum 0x%04x port %d" % (
                    ulen, 30 + ip["total"], uck, dp))
            if o["tos"] != ip["tos"]:
                msgs.append("outer TOS 0x%02x, inner 0x%02x (RFC 6040: copied)" % (
                    o["tos"], ip["tos"]))
            if vx != struct.pack("!B3xI", 0x08, VNI << 8):
                msgs.append("VXLAN header %s" % vx.hex())
            if ie["dst"] != INNER_MAC or ie["src"] != line_mac or ie["type"] != 0x0800:
                msgs.append("inner Ethernet %s <- %s type 0x%04x" % (ie["dst"], ie["src"],
                                                                    ie["type"]))
            if not 49152 <= sp <= 65535:
                msgs.append("outer source port %d outside 49152..65535" % sp)
            for m in msgs:
                P.add("outer", "%s: %s" % (tag, m))
            fl = flow_of.get((ip["src"], ip["id"]))
            if fl:
                sports.setdefault(fl, set()).add(sp)
            outs.append((None, ip, lambda r, ip: []))
        for r in recs:
            if r["expect"] == "frag":
                r["frag_mtu"] = INNER_MTU
        check_forwarded(P, recs, outs)
        for fl, s in sorted(sports.items()):
            if len(s) != 1:
                P.add("source_port", "flow %s: outer UDP source ports %s, want one" % (
                    fl, sorted(s)))
        icmp_frames = read_pcap(os.path.join(d, "%s-in_tx.pcap" % scn))
        written["in_tx"] = len(icmp_frames)
        check_icmp(P, recs, icmp_frames, PCAP_MAC[0], "10.0.0.1")
        distinct = len(set(min(s) for s in sports.values()))
        print(json.dumps({"written": written, "problems": P.p, "flows": len(sports),
                          "distinct_ports": distinct}))
        return
    print(json.dumps({"written": written, "problems": P.p}))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("gen", "check") or \
            sys.argv[2] not in ("mix", "encap", "encap-ps", "decap"):
        sys.exit("usage: fastpath.py gen|check mix|encap|encap-ps|decap DIR")
    (gen if sys.argv[1] == "gen" else check)(sys.argv[2], sys.argv[3])
