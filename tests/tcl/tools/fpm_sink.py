#!/usr/bin/env python3
"""An FPM server that only listens: it accepts zebra's Forwarding Plane
Manager connection (FRR's dplane_fpm_nl module) and writes one line per
netlink message it receives, decoded.

    fpm_sink.py --listen ADDR:PORT --out FILE [--hex]

FPM framing (FRR zebra/dplane_fpm_nl.c, doc/developer/fpm.rst): each frame
is a 4-byte header -- version (1), message type (1 = netlink), length
(16 bits, network order, header included) -- and the payload. zebra packs
one or two netlink messages into a frame: a route update is RTM_DELROUTE
followed by RTM_NEWROUTE in the same frame. Netlink headers and attributes
are in host byte order (rtnetlink(7)).

Lines of FILE (flushed as written; MS is Unix time in milliseconds):

    MS listening ADDR:PORT
    MS connect PEER
    MS RTM_NEWROUTE frame=N family=ipv4 dst=10.0.2.0/24 proto=186 table=254
       rtype=1 [metric=N] [gw=A] [oif=N] [nh_id=N] [multipath=GW@OIF,...]
       [prefsrc=A] flags=0x...
    MS RTM_DELROUTE frame=N family=... dst=... proto=...
    MS RTM_NEWNEXTHOP frame=N family=ipv4 id=N proto=N [gw=A] [oif=N]
       [group=ID/WEIGHT,...] [blackhole=1]
    MS RTM_DELNEXTHOP frame=N id=N
    MS OTHER frame=N nl_type=N len=N
    MS bad-frame frame=N version=V type=T len=L
    MS close PEER
(one line each; wrapped here). --hex adds hex=... with the message's bytes.
rtype is rtm_type (1 unicast, 6 blackhole), proto rtm_protocol (186 = bgp, 196 = static, 2 = kernel, zebra's
routes: zebra2proto() in zebra/rt_netlink.c). It serves one connection at
a time and takes the next one when zebra reconnects; SIGTERM ends it.
"""

import argparse
import signal
import socket
import struct
import sys
import time

NLMSG_HDR = struct.Struct("=IHHII")
RTMSG = struct.Struct("=BBBBBBBBI")
NHMSG = struct.Struct("=BBBBI")
RTATTR = struct.Struct("=HH")

MSG_NAMES = {
    24: "RTM_NEWROUTE",
    25: "RTM_DELROUTE",
    28: "RTM_NEWNEIGH",
    29: "RTM_DELNEIGH",
    104: "RTM_NEWNEXTHOP",
    105: "RTM_DELNEXTHOP",
}
FAMILIES = {2: "ipv4", 10: "ipv6", 7: "bridge", 28: "mpls", 0: "unspec"}

# rtnetlink attribute types (linux/rtnetlink.h, linux/nexthop.h)
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY, RTA_PREFSRC = 1, 4, 5, 6, 7
RTA_MULTIPATH, RTA_TABLE, RTA_NH_ID = 9, 15, 30
NHA_ID, NHA_GROUP, NHA_BLACKHOLE, NHA_OIF, NHA_GATEWAY = 1, 2, 4, 5, 6


def ms():
    return int(time.time() * 1000)


def attrs(buf):
    """(type, payload) of each rtattr in buf."""
    off = 0
    while off + RTATTR.size <= len(buf):
        alen, atype = RTATTR.unpack_from(buf, off)
        if alen < RTATTR.size or off + alen > len(buf):
            break
        yield atype & 0x3FFF, buf[off + RTATTR.size : off + alen]
        off += (alen + 3) & ~3


def addr(family, b):
    if family == 2 and len(b) == 4:
        return socket.inet_ntop(socket.AF_INET, b)
    if family == 10 and len(b) == 16:
        return socket.inet_ntop(socket.AF_INET6, b)
    return b.hex()


def u32(b):
    return struct.unpack("=I", b[:4])[0] if len(b) >= 4 else -1


def decode_route(body):
    (fam, dst_len, _src_len, _tos, table, proto, _scope, rtype,
     flags) = RTMSG.unpack_from(body)
    f = {"family": FAMILIES.get(fam, str(fam))}
    dst = "0.0.0.0" if fam == 2 else "::"
    extra = []
    for atype, p in attrs(body[RTMSG.size:]):
        if atype == RTA_DST:
            dst = addr(fam, p)
        elif atype == RTA_TABLE:
            table = u32(p)
        elif atype == RTA_GATEWAY:
            extra.append(("gw", addr(fam, p)))
        elif atype == RTA_OIF:
            extra.append(("oif", u32(p)))
        elif atype == RTA_NH_ID:
            extra.append(("nh_id", u32(p)))
        elif atype == RTA_PREFSRC:
            extra.append(("prefsrc", addr(fam, p)))
        elif atype == RTA_PRIORITY:
            extra.append(("metric", u32(p)))
        elif atype == RTA_MULTIPATH:
            hops = []
            off = 0
            while off + 8 <= len(p):
                rlen, _fl, _hops, ifindex = struct.unpack_from("=HBBi", p, off)
                if rlen < 8:
                    break
                gw = ""
                for t2, p2 in attrs(p[off + 8 : off + rlen]):
                    if t2 == RTA_GATEWAY:
                        gw = addr(fam, p2)
                hops.append(f"{gw}@{ifindex}")
                off += (rlen + 3) & ~3
            extra.append(("multipath", ",".join(hops)))
    f["dst"] = f"{dst}/{dst_len}"
    f["proto"] = proto
    f["table"] = table
    f["rtype"] = rtype
    f.update(extra)
    return f


def decode_nexthop(body):
    fam, _scope, proto, _resvd, _flags = NHMSG.unpack_from(body)
    f = {"family": FAMILIES.get(fam, str(fam)), "proto": proto}
    for atype, p in attrs(body[NHMSG.size:]):
        if atype == NHA_ID:
            f["id"] = u32(p)
        elif atype == NHA_GATEWAY:
            f["gw"] = addr(fam, p)
        elif atype == NHA_OIF:
            f["oif"] = u32(p)
        elif atype == NHA_BLACKHOLE:
            f["blackhole"] = 1
        elif atype == NHA_GROUP:
            grp = []
            for off in range(0, len(p) - 7, 8):
                gid, weight = struct.unpack_from("=IB", p, off)
                grp.append(f"{gid}/{weight + 1}")
            f["group"] = ",".join(grp)
    return f


def lines_of_frame(payload, frame, want_hex):
    """One line per netlink message in an FPM frame's payload."""
    off = 0
    while off + NLMSG_HDR.size <= len(payload):
        nlen, ntype, nflags, _seq, _pid = NLMSG_HDR.unpack_from(payload, off)
        if nlen < NLMSG_HDR.size or off + nlen > len(payload):
            yield f"bad-netlink frame={frame} len={nlen} at={off}"
            return
        msg = payload[off : off + nlen]
        body = msg[NLMSG_HDR.size:]
        name = MSG_NAMES.get(ntype)
        fields = {"frame": frame}
        try:
            if ntype in (24, 25):
                fields.update(decode_route(body))
                fields["flags"] = hex(nflags)
            elif ntype in (104, 105):
                fields.update(decode_nexthop(body))
            else:
                name = "OTHER"
                fields.update({"nl_type": ntype, "len": nlen})
        except struct.error:
            name = "OTHER"
            fields.update({"nl_type": ntype, "len": nlen, "truncated": 1})
        if want_hex:
            fields["hex"] = msg.hex()
        yield name + " " + " ".join(f"{k}={v}" for k, v in fields.items())
        off += (nlen + 3) & ~3


def recv_exact(conn, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def serve(conn, peer, out, want_hex, frame):
    out.write(f"{ms()} connect {peer}\n")
    out.flush()
    while True:
        hdr = recv_exact(conn, 4)
        if hdr is None:
            break
        version, ftype, flen = struct.unpack("!BBH", hdr)
        if version != 1 or flen < 4:
            out.write(f"{ms()} bad-frame frame={frame} version={version} "
                      f"type={ftype} len={flen}\n")
            out.flush()
            break
        payload = recv_exact(conn, flen - 4)
        if payload is None:
            break
        t = ms()
        if ftype == 1:
            for line in lines_of_frame(payload, frame, want_hex):
                out.write(f"{t} {line}\n")
        else:
            out.write(f"{t} OTHER frame={frame} fpm_type={ftype} len={flen}\n")
        out.flush()
        frame += 1
    out.write(f"{ms()} close {peer}\n")
    out.flush()
    return frame


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--listen", required=True, help="ADDR:PORT")
    ap.add_argument("--out", required=True)
    ap.add_argument("--hex", action="store_true")
    a = ap.parse_args()
    host, _, port = a.listen.rpartition(":")
    host = host.strip("[]")
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    srv = socket.socket(fam, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, int(port)))
    srv.listen(1)
    frame = 0
    with open(a.out, "w", buffering=1 << 16) as out:
        out.write(f"{ms()} listening {a.listen}\n")
        out.flush()
        while True:
            conn, peer = srv.accept()
            with conn:
                frame = serve(conn, f"{peer[0]}:{peer[1]}", out, a.hex, frame)


if __name__ == "__main__":
    main()
