#!/usr/bin/python3
"""An 802.1Q trunk to access ports, played with raw sockets.

The test machine's kernel has no 802.1Q devices, so a lab host (an FRR
router in a namespace) cannot be on a VLAN. This tool stands in for the
switch port between them (IEEE 802.1Q):

  vlan_bridge.py TRUNK VID:ACCESS [VID:ACCESS ...]

A frame received on the trunk interface TRUNK with tag VID leaves untagged
by ACCESS; a frame received on ACCESS leaves by TRUNK with tag VID
(priority 0). Untagged frames on the trunk and other VIDs are dropped.
Prints "ready" once its sockets are bound; runs until killed. Tags are read
from the frame or, when the kernel took them out, from PACKET_AUXDATA.
"""
import select
import socket
import struct
import sys

ETH_P_ALL = 0x0003
ETH_P_8021Q = 0x8100
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4


def open_raw(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    return s


def recv(sock):
    """(frame, vid or None) of the next frame received (not sent) by sock, or None."""
    data, anc, _flags, addr = sock.recvmsg(65535, socket.CMSG_SPACE(32))
    if addr[2] == socket.PACKET_OUTGOING:
        return None
    for level, kind, cdata in anc:
        if level == SOL_PACKET and kind == PACKET_AUXDATA and len(cdata) >= 20:
            status, _l, _s, _m, _n, tci = struct.unpack("IIIHHH", cdata[:18])
            if status & TP_STATUS_VLAN_VALID:
                return data, tci & 0xFFF  # the kernel took the tag out
    if len(data) >= 18 and struct.unpack("!H", data[12:14])[0] == ETH_P_8021Q:
        vid = struct.unpack("!H", data[14:16])[0] & 0xFFF
        return data[:12] + data[16:], vid
    return data, None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    trunk = open_raw(sys.argv[1])
    by_vid, by_sock = {}, {}
    for spec in sys.argv[2:]:
        vid, iface = spec.split(":", 1)
        s = open_raw(iface)
        by_vid[int(vid)] = s
        by_sock[s] = int(vid)
    print("ready", flush=True)
    socks = [trunk] + list(by_sock)
    while True:
        ready, _, _ = select.select(socks, [], [])
        for s in ready:
            got = recv(s)
            if got is None:
                continue
            frame, vid = got
            if s is trunk:
                out = by_vid.get(vid)
                if out is not None:
                    out.send(frame)
            else:
                tag = struct.pack("!HH", ETH_P_8021Q, by_sock[s])
                trunk.send(frame[:12] + tag + frame[12:])


if __name__ == "__main__":
    main()
