#!/usr/bin/python3
"""UDP load and capture for the QoS tests (tests/tcl/test_qos*.tcl).

  qos_udp.py send DEST PORT BPS LEN SECONDS [TOS [SPORT]]
      send LEN-byte UDP datagrams to DEST:PORT (IPv4 or IPv6) at BPS bits/s
      of UDP payload (as iperf3 -b counts), for SECONDS, paced every
      0.5 ms; TOS sets the IPv4 TOS byte / IPv6 traffic class, ECN bits
      included (IP_TOS, IPV6_TCLASS: the kernel keeps a UDP socket's ECN
      bits); SPORT binds the source port. No control channel: nothing of
      it crosses the shaped line but the datagrams. Prints "sent N errors E" at
      the end, or on SIGTERM (N datagrams the kernel took, E refused).
  qos_udp.py burst DEST PORT COUNT LEN TOS
      send COUNT LEN-byte datagrams to DEST:PORT with TOS (as for send),
      1 ms apart; prints "sent N errors E".
  qos_udp.py sniff IFACE SECONDS COUNT PORT [PORT...]
      capture on IFACE (AF_PACKET) the IPv4/IPv6 UDP frames to any PORT,
      tagged (802.1Q in the frame, or in PACKET_AUXDATA when the kernel
      took it out) or not; prints "ready" once listening, and after
      SECONDS or COUNT frames one line per distinct kind:
        port=P family=4|6 dscp=D ecn=E vlan=V|- pcp=P|- csum=ok|bad|- count=N
      csum is the IPv4 header checksum (RFC 1071) as received; IPv6 has
      none (-). vlan and pcp are the VLAN id and 802.1p priority of the
      frame's tag, - untagged.
  qos_udp.py frames IFACE SECONDS COUNT MARKER
      capture on IFACE the frames whose bytes hold MARKER (ASCII), as
      they came (a tag the kernel took out is not put back); prints
      "ready" once listening, and after SECONDS or COUNT frames each one
      in hex, a line each, in the order received.
"""
import select
import signal
import socket
import struct
import sys
import time

from inetcsum import inet_csum

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4


def send(dest, port, bps, length, seconds, tos=None, sport=None):
    fam = socket.AF_INET6 if ":" in dest else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    if tos is not None:
        if fam == socket.AF_INET:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
        else:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, tos)
    if sport is not None:
        s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", sport))
    s.connect((dest, port))
    payload = b"q" * length
    pps = bps / 8.0 / length
    t0 = time.monotonic()
    end = t0 + seconds
    sent = errors = 0
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    while not stop:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - t0) * pps)
        # after a long stall, do not catch up with more than 20 ms at once
        if due - sent > pps * 0.02 + 1:
            sent = due - int(pps * 0.02 + 1)
        while sent < due:
            try:
                s.send(payload)
            except OSError:
                errors += 1
            sent += 1
        time.sleep(0.0005)
    print("sent %d errors %d" % (sent - errors, errors), flush=True)


def sniff(iface, seconds, count, ports):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((iface, 0))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    print("ready", flush=True)
    kinds = {}
    got = 0
    deadline = time.time() + seconds
    while got < count:
        left = deadline - time.time()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            break
        data, anc, _flags, addr = s.recvmsg(65535, socket.CMSG_SPACE(32))
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        pcp = vid = "-"
        for level, kind, cdata in anc:
            if level == SOL_PACKET and kind == PACKET_AUXDATA and len(cdata) >= 18:
                status, _l, _s, _m, _n, tci = struct.unpack("IIIHHH", cdata[:18])
                if status & TP_STATUS_VLAN_VALID:
                    pcp, vid = str(tci >> 13), str(tci & 0xFFF)
        et = struct.unpack("!H", data[12:14])[0]
        p = data[14:]
        if et == 0x8100 and len(p) >= 4:
            tci = struct.unpack("!H", p[:2])[0]
            pcp, vid = str(tci >> 13), str(tci & 0xFFF)
            et = struct.unpack("!H", p[2:4])[0]
            p = p[4:]
        if et == 0x0800 and len(p) >= 28 and p[9] == 17:
            ihl = (p[0] & 0xF) * 4
            fam, tc = 4, p[1]
            csum = "ok" if inet_csum(p[:ihl]) == 0 else "bad"
            l4 = p[ihl:]
        elif et == 0x86DD and len(p) >= 48 and p[6] == 17:
            fam = 6
            tc = ((p[0] & 0xF) << 4) | (p[1] >> 4)
            csum = "-"
            l4 = p[40:]
        else:
            continue
        dport = struct.unpack("!H", l4[2:4])[0]
        if dport not in ports:
            continue
        key = (dport, fam, tc >> 2, tc & 3, vid, pcp, csum)
        kinds[key] = kinds.get(key, 0) + 1
        got += 1
    for (dport, fam, dscp, ecn, vid, pcp, csum), n in sorted(kinds.items()):
        print("port=%d family=%d dscp=%d ecn=%d vlan=%s pcp=%s csum=%s count=%d"
              % (dport, fam, dscp, ecn, vid, pcp, csum, n), flush=True)


def frames(iface, seconds, count, marker):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((iface, 0))
    print("ready", flush=True)
    got = []
    deadline = time.time() + seconds
    while len(got) < count:
        left = deadline - time.time()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            break
        data, addr = s.recvfrom(65535)
        if addr[2] != socket.PACKET_OUTGOING and marker in data:
            got.append(data)
    for data in got:
        print(data.hex(), flush=True)


def burst(dest, port, count, length, tos):
    fam = socket.AF_INET6 if ":" in dest else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if fam == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, tos)
    s.connect((dest, port))
    sent = errors = 0
    for _ in range(count):
        try:
            s.send(b"m" * length)
            sent += 1
        except OSError:
            errors += 1
        time.sleep(0.001)
    print("sent %d errors %d" % (sent, errors), flush=True)


def main(argv):
    if len(argv) >= 7 and argv[1] == "send":
        tos = int(argv[7], 0) if len(argv) > 7 else None
        sport = int(argv[8]) if len(argv) > 8 else None
        send(argv[2], int(argv[3]), float(argv[4]), int(argv[5]), float(argv[6]), tos, sport)
    elif len(argv) == 7 and argv[1] == "burst":
        burst(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), int(argv[6], 0))
    elif len(argv) >= 6 and argv[1] == "sniff":
        sniff(argv[2], float(argv[3]), int(argv[4]), {int(p) for p in argv[5:]})
    elif len(argv) == 6 and argv[1] == "frames":
        frames(argv[2], float(argv[3]), int(argv[4]), argv[5].encode())
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
