#!/usr/bin/env python3
"""A fake zebra: connects to an FPM server (vbrd's) and sends frames built
by hand, valid or malformed, then reports whether the server closed the
connection.

    fpm_fake.py [--connect ADDR:PORT] [--hold-ms MS] FRAME...

Each FRAME is one FPM frame, sent in its own write: one message, or
several joined with "+" (all in the one frame, as zebra sends a route's
change: RTM_DELROUTE then RTM_NEWROUTE). Messages:

    nh:ID:IFINDEX:GW        RTM_NEWNEXTHOP: NHA_ID, NHA_GATEWAY, NHA_OIF (family of GW)
    nhdel:ID                RTM_DELNEXTHOP: NHA_ID
    route:PREFIX:NH_ID      RTM_NEWROUTE, proto 186 (bgp), table 254, RTA_DST,
                            RTA_PRIORITY 20, RTA_NH_ID (NLM_F_REPLACE for IPv4)
    delroute:PREFIX         RTM_DELROUTE, proto 186, table 254, RTA_DST only

and malformed frames (alone in their FRAME):

    bad:version             a valid route message in a frame of FPM version 2
    bad:len3                a header whose length is 3 (under the header's own 4)
    bad:nlhdr               a frame of 12 bytes: 8 of a 16-byte netlink header
    bad:overrun             RTM_NEWROUTE whose RTA_DST says 200 bytes, in a 40-byte message
    bad:plen33              RTM_NEWROUTE for 10.99.0.0 with rtm_dst_len 33

The layout is zebra 8.4's (zebra/dplane_fpm_nl.c, zebra/rt_netlink.c):
an FPM header (version 1, type 1 = netlink, 16-bit big-endian length of
the frame, header included), then netlink messages in host byte order,
each NLMSG_ALIGN'ed, attributes RTA_ALIGN'ed (rtnetlink(7),
linux/nexthop.h).

After the last frame it reads the socket for up to --hold-ms (default 0)
and closes; the server closing it first (EOF or reset) ends the wait.
Prints one JSON line: frames, bytes, closed_by_peer (true/false) and
close_ms (from the last frame sent to the close, null if none).
"""

import argparse
import ipaddress
import json
import select
import socket
import struct
import sys
import time

FPM_VERSION, FPM_NETLINK = 1, 1
RTM_NEWROUTE, RTM_DELROUTE, RTM_NEWNEXTHOP, RTM_DELNEXTHOP = 24, 25, 104, 105
NLM_F_REQUEST, NLM_F_REPLACE, NLM_F_CREATE = 0x1, 0x100, 0x400
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY, RTA_TABLE, RTA_NH_ID = 1, 4, 5, 6, 15, 30
NHA_ID, NHA_OIF, NHA_GATEWAY = 1, 5, 6
RTPROT_BGP, RTPROT_ZEBRA = 186, 11
RT_TABLE_MAIN, RTN_UNICAST, RT_SCOPE_UNIVERSE = 254, 1, 0
AF_INET, AF_INET6 = socket.AF_INET, socket.AF_INET6


def align4(n):
    return (n + 3) & ~3


def attr(kind, payload):
    """An rtattr/nlattr: length (header + payload), type, payload, padding."""
    a = struct.pack("=HH", 4 + len(payload), kind) + payload
    return a + b"\0" * (align4(len(a)) - len(a))


def nlmsg(kind, flags, body):
    """A netlink message: struct nlmsghdr (len type flags seq pid), body, padding."""
    m = struct.pack("=IHHII", 16 + len(body), kind, flags, 0, 0) + body
    return m + b"\0" * (align4(len(m)) - len(m))


def frame(payload, version=FPM_VERSION, length=None):
    """An FPM frame: version, type netlink, big-endian length (header included)."""
    if length is None:
        length = 4 + len(payload)
    return struct.pack("!BBH", version, FPM_NETLINK, length) + payload


def family_of(addr):
    return AF_INET6 if addr.version == 6 else AF_INET


def rtmsg(family, dst_len, kind):
    """struct rtmsg: family dst_len src_len tos table protocol scope type, flags."""
    return struct.pack("=BBBBBBBBI", family, dst_len, 0, 0, RT_TABLE_MAIN, RTPROT_BGP,
                       RT_SCOPE_UNIVERSE, kind, 0)


def route_add(prefix, nh_id):
    net = ipaddress.ip_network(prefix)
    fam = family_of(net)
    body = rtmsg(fam, net.prefixlen, RTN_UNICAST)
    body += attr(RTA_DST, net.network_address.packed)
    body += attr(RTA_PRIORITY, struct.pack("=I", 20))
    body += attr(RTA_NH_ID, struct.pack("=I", nh_id))
    flags = NLM_F_REQUEST | NLM_F_CREATE | (NLM_F_REPLACE if fam == AF_INET else 0)
    return nlmsg(RTM_NEWROUTE, flags, body)


def route_del(prefix):
    net = ipaddress.ip_network(prefix)
    body = rtmsg(family_of(net), net.prefixlen, 0)  # zebra's deletes: RTN_UNSPEC
    body += attr(RTA_DST, net.network_address.packed)
    return nlmsg(RTM_DELROUTE, NLM_F_REQUEST, body)


def nh_add(nh_id, ifindex, gw):
    gw = ipaddress.ip_address(gw)
    # struct nhmsg: family scope protocol resvd, flags
    body = struct.pack("=BBBBI", family_of(gw), 0, RTPROT_ZEBRA, 0, 0)
    body += attr(NHA_ID, struct.pack("=I", nh_id))
    body += attr(NHA_GATEWAY, gw.packed)
    body += attr(NHA_OIF, struct.pack("=I", ifindex))
    return nlmsg(RTM_NEWNEXTHOP, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE, body)


def nh_del(nh_id):
    body = struct.pack("=BBBBI", 0, 0, RTPROT_ZEBRA, 0, 0) + attr(NHA_ID, struct.pack("=I", nh_id))
    return nlmsg(RTM_DELNEXTHOP, NLM_F_REQUEST, body)


def bad(kind):
    if kind == "version":
        return frame(route_add("10.99.0.0/24", 1), version=2)
    if kind == "len3":
        return struct.pack("!BBH", FPM_VERSION, FPM_NETLINK, 3)
    if kind == "nlhdr":
        # 8 bytes where a 16-byte nlmsghdr should be: length 12, type, flags
        return frame(struct.pack("=IHH", 16, RTM_NEWROUTE, NLM_F_REQUEST))
    if kind == "overrun":
        body = rtmsg(AF_INET, 24, RTN_UNICAST)
        body += struct.pack("=HH", 200, RTA_DST) + bytes([10, 99, 0, 0])
        body += attr(RTA_NH_ID, struct.pack("=I", 1))
        return frame(nlmsg(RTM_NEWROUTE, NLM_F_REQUEST | NLM_F_CREATE, body))
    if kind == "plen33":
        body = rtmsg(AF_INET, 33, RTN_UNICAST)
        body += attr(RTA_DST, bytes([10, 99, 0, 0]))
        body += attr(RTA_NH_ID, struct.pack("=I", 1))
        return frame(nlmsg(RTM_NEWROUTE, NLM_F_REQUEST | NLM_F_CREATE, body))
    raise SystemExit(f"unknown malformed frame bad:{kind}")


def message(spec):
    w = spec.split(":")
    if w[0] == "nh" and len(w) >= 4:
        return nh_add(int(w[1]), int(w[2]), ":".join(w[3:]))
    if w[0] == "nhdel" and len(w) == 2:
        return nh_del(int(w[1]))
    if w[0] == "route" and len(w) >= 3:
        return route_add(":".join(w[1:-1]), int(w[-1]))
    if w[0] == "delroute" and len(w) >= 2:
        return route_del(":".join(w[1:]))
    raise SystemExit(f"unknown message '{spec}'")


def build(spec):
    if spec.startswith("bad:"):
        return bad(spec[4:])
    return frame(b"".join(message(m) for m in spec.split("+")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--connect", default="127.0.0.1:2620")
    ap.add_argument("--hold-ms", type=int, default=0)
    ap.add_argument("frames", nargs="+")
    a = ap.parse_args()
    frames = [build(f) for f in a.frames]
    host, port = a.connect.rsplit(":", 1)
    s = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sent = 0
    closed = False
    for f in frames:
        try:
            s.sendall(f)
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        sent += 1
    t_last = time.monotonic()
    close_ms = 0.0 if closed else None
    deadline = t_last + a.hold_ms / 1000.0
    while not closed:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        r, _, _ = select.select([s], [], [], left)
        if not r:
            continue
        try:
            data = s.recv(4096)  # zebra ignores what the server sends
        except ConnectionResetError:
            data = b""
        if not data:
            closed = True
            close_ms = round((time.monotonic() - t_last) * 1000, 1)
    s.close()
    print(json.dumps({"frames": sent, "bytes": sum(len(f) for f in frames[:sent]),
                      "closed_by_peer": closed, "close_ms": close_ms}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
