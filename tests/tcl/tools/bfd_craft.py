#!/usr/bin/env python3
"""Send hand-made BFD control packets (RFC 5880 §4.1) over UDP.

    bfd_craft.py --src ADDR --dst ADDR [--sport 49200] [--dport 3784]
                 [--ttl 255] [--count 1] [--payload HEX | FIELD=VALUE ...]

Fields of the mandatory section (defaults: a well-formed packet of a
session in Down that is looking for its peer): version=1 diag=0 state=1
(0 AdminDown, 1 Down, 2 Init, 3 Up) flags=0 (byte value, P 0x20 F 0x10
C 0x08 A 0x04 D 0x02 M 0x01) mult=3 length=24 (the Length field)
my_disc=0x1234 your_disc=0 tx_us=1000000 rx_us=1000000 echo_us=0;
size=N cuts or zero-pads the UDP payload to N bytes (default 24).
--payload HEX sends those bytes instead (a captured packet, replayed). An
ordinary UDP socket: the TTL and the source port are socket options, the
kernel writes the IP and UDP headers. Prints the number of packets sent.
"""

import argparse
import socket
import struct
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--sport", type=int, default=49200)
    ap.add_argument("--dport", type=int, default=3784)
    ap.add_argument("--ttl", type=int, default=255)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--payload")
    ap.add_argument("fields", nargs="*")
    a = ap.parse_args()
    f = dict(version=1, diag=0, state=1, flags=0, mult=3, length=24, my_disc=0x1234,
             your_disc=0, tx_us=1000000, rx_us=1000000, echo_us=0, size=24)
    for kv in a.fields:
        k, v = kv.split("=", 1)
        if k not in f:
            ap.error(f"unknown field {k}")
        f[k] = int(v, 0)
    p = struct.pack("!BBBBIIIII", f["version"] << 5 | f["diag"], f["state"] << 6 | f["flags"],
                    f["mult"], f["length"], f["my_disc"], f["your_disc"], f["tx_us"],
                    f["rx_us"], f["echo_us"])
    p = p[:f["size"]].ljust(f["size"], b"\0")
    if a.payload:
        p = bytes.fromhex(a.payload)
    v6 = ":" in a.dst
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
    if v6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, a.ttl)
    else:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, a.ttl)
    s.bind((a.src, a.sport))
    for _ in range(a.count):
        s.sendto(p, (a.dst, a.dport))
    print(a.count)


if __name__ == "__main__":
    sys.exit(main())
