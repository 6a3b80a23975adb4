#!/usr/bin/python3
"""Hosts on 802.1Q VLANs, played from one interface with a raw socket.

The test machine's kernel has no 802.1Q support (no eth0.100 devices), so
this tool stands in for tagged hosts behind a trunk port (IEEE 802.1Q tags,
ARP per RFC 826, ICMP echo per RFC 792):

  vlan_host.py serve IFACE VID:ADDR [VID:ADDR ...]
      answer ARP requests for, and ICMP echo requests to, each ADDR on its
      VLAN VID; prints "ready" once listening, runs until killed.
  vlan_host.py ping IFACE VID SRC GW DST COUNT
      as host SRC on VLAN VID: resolve the gateway GW by ARP, send COUNT
      echo requests to DST 0.1 s apart; prints "sent N received M"; exit 0
      when every echo got its reply, else 1.
  vlan_host.py arp IFACE VID SRC TARGET COUNT
      send COUNT ARP requests for TARGET on VLAN VID; prints "sent COUNT".

Frames are sent with the tag in the frame; received tags are read from the
frame or, when the kernel took the tag out, from PACKET_AUXDATA.
"""
import socket
import struct
import sys
import time

from inetcsum import inet_csum

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ETH_P_ARP = 0x0806
ETH_P_8021Q = 0x8100
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4
BROADCAST = b"\xff" * 6


class Port:
    """A raw socket on IFACE that sends and receives tagged frames."""

    def __init__(self, iface):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.sock.bind((iface, 0))
        self.sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        with open("/sys/class/net/%s/address" % iface) as f:
            self.mac = bytes.fromhex(f.read().strip().replace(":", ""))

    def send(self, dst, vid, ethertype, payload):
        frame = dst + self.mac + struct.pack("!HHH", ETH_P_8021Q, vid, ethertype) + payload
        self.sock.send(frame.ljust(64, b"\0"))

    def recv(self, timeout):
        """Return (vid, src_mac, ethertype, payload) of the next incoming frame, or None."""
        self.sock.settimeout(timeout)
        try:
            data, anc, _flags, addr = self.sock.recvmsg(65535, socket.CMSG_SPACE(32))
        except socket.timeout:
            return None
        if addr[2] == socket.PACKET_OUTGOING:
            return None
        vid = 0
        for level, kind, cdata in anc:
            if level == SOL_PACKET and kind == PACKET_AUXDATA and len(cdata) >= 20:
                status, _l, _s, _m, _n, tci = struct.unpack("IIIHHH", cdata[:18])
                if status & TP_STATUS_VLAN_VALID:
                    vid = tci & 0xFFF
        ethertype = struct.unpack("!H", data[12:14])[0]
        payload = data[14:]
        if ethertype == ETH_P_8021Q:
            vid = struct.unpack("!H", payload[:2])[0] & 0xFFF
            ethertype = struct.unpack("!H", payload[2:4])[0]
            payload = payload[4:]
        return vid, data[6:12], ethertype, payload


def arp(op, sha, spa, tha, tpa):
    return struct.pack("!HHBBH6s4s6s4s", 1, ETH_P_IP, 6, 4, op, sha, spa, tha, tpa)


def ipv4(src, dst, proto, payload, ttl=64):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0x4000, ttl, proto, 0, src, dst)
    hdr = hdr[:10] + struct.pack("!H", inet_csum(hdr)) + hdr[12:]
    return hdr + payload


def icmp_echo(kind, ident, seq, data):
    msg = struct.pack("!BBHHH", kind, 0, 0, ident, seq) + data
    return msg[:2] + struct.pack("!H", inet_csum(msg)) + msg[4:]


def serve(port, hosts):
    """hosts: {(vid, addr_bytes)}. Answer ARP and echo for them forever."""
    print("ready", flush=True)
    while True:
        f = port.recv(1.0)
        if f is None:
            continue
        vid, src, ethertype, p = f
        if ethertype == ETH_P_ARP and len(p) >= 28:
            op, sha, spa, tpa = struct.unpack("!6xH6s4s6x4s", p[:28])
            if op == 1 and (vid, tpa) in hosts:
                port.send(src, vid, ETH_P_ARP, arp(2, port.mac, tpa, sha, spa))
        elif ethertype == ETH_P_IP and len(p) >= 28 and p[9] == 1:
            ihl = (p[0] & 0xF) * 4
            sip, dip = p[12:16], p[16:20]
            icmp = p[ihl:struct.unpack("!H", p[2:4])[0]]
            if (vid, dip) in hosts and icmp[:1] == b"\x08":
                ident, seq = struct.unpack("!HH", icmp[4:8])
                reply = icmp_echo(0, ident, seq, icmp[8:])
                port.send(src, vid, ETH_P_IP, ipv4(dip, sip, 1, reply))


def resolve(port, vid, src, gw):
    """MAC of gw on VLAN vid, by ARP (3 tries, 1 s each)."""
    for _ in range(3):
        port.send(BROADCAST, vid, ETH_P_ARP, arp(1, port.mac, src, b"\0" * 6, gw))
        deadline = time.time() + 1.0
        while time.time() < deadline:
            f = port.recv(0.1)
            if f and f[0] == vid and f[2] == ETH_P_ARP:
                op, sha, spa = struct.unpack("!6xH6s4s", f[3][:18])
                if op == 2 and spa == gw:
                    return sha
    sys.exit("no ARP reply from %s on VLAN %d" % (socket.inet_ntoa(gw), vid))


def ping(port, vid, src, gw, dst, count):
    gwmac = resolve(port, vid, src, gw)
    ident = 0x7600 + (vid & 0xFF)
    got = set()
    for seq in range(1, count + 1):
        req = icmp_echo(8, ident, seq, b"vlan-host-ping".ljust(56, b"."))
        port.send(gwmac, vid, ETH_P_IP, ipv4(src, dst, 1, req))
        deadline = time.time() + (0.1 if seq < count else 1.0)
        while time.time() < deadline and not (seq == count and len(got) == count):
            f = port.recv(0.05)
            if not f or f[0] != vid or f[2] != ETH_P_IP:
                continue
            p = f[3]
            ihl = (p[0] & 0xF) * 4
            if p[9] == 1 and p[12:16] == dst and p[16:20] == src and p[ihl] == 0:
                r_ident, r_seq = struct.unpack("!HH", p[ihl + 4:ihl + 8])
                if r_ident == ident:
                    got.add(r_seq)
    print("sent %d received %d" % (count, len(got)), flush=True)
    return 0 if len(got) == count else 1


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    mode, iface = argv[1], argv[2]
    port = Port(iface)
    a = argv[3:]
    ip = socket.inet_aton
    if mode == "serve":
        hosts = set()
        for spec in a:
            vid, addr = spec.split(":")
            hosts.add((int(vid), ip(addr)))
        serve(port, hosts)
    elif mode == "ping" and len(a) == 5:
        return ping(port, int(a[0]), ip(a[1]), ip(a[2]), ip(a[3]), int(a[4]))
    elif mode == "arp" and len(a) == 4:
        vid, src, target, count = int(a[0]), ip(a[1]), ip(a[2]), int(a[3])
        for _ in range(count):
            port.send(BROADCAST, vid, ETH_P_ARP, arp(1, port.mac, src, b"\0" * 6, target))
            time.sleep(0.01)
        print("sent %d" % count, flush=True)
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
