#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench-vrf.sh's inputs: one route table split into V VRFs, or kept whole,
and one pcap of 802.1Q-tagged frames that both configs route alike.

  gen_vrf.py ROUTES OUTDIR [--vrfs V] [--packets P] [--run R] [--vlan-base B]
             [--dst-mac M] [--src-mac M]

ROUTES is a `pcapgen fib` routes file (IPv4 only: its length mix, /8../32,
mostly /24, 10 % longer than /24). Its N routes are cut into V groups of
N / V consecutive routes (the file's order is random, so each group is a
random sample of the table, with its length mix). Group i is VRF "v<i>" in
the VRF config and part of the one default table in the other; either way
its routes go via 10.2.<i>.2 on sub-interface "o<i>" (port "out", VLAN
B + i, 10.2.<i>.1/24), and its traffic comes in on sub-interface "i<i>"
(port "in", VLAN B + i, 10.0.<i>.1/24). The two configs differ only in the
`vrf` settings: the same interfaces, neighbors, routes and next hops.

The first route of the last group is written to a file of its own, once as
it is and once via 10.2.<V-1>.3 (a second static neighbor of o<V-1>): a
reload that changes one route.

Frames: P frames of 64 bytes plus the 4-byte tag (68 bytes incl. FCS;
UDP/IPv4, correct checksums), round-robin over the VRFs in runs of R
frames (default 1: frame q on VLAN B + q mod V, a burst of 32 spans 32
VRFs; R = 32: most bursts are of one VRF), each to a random host of a route
of its group, the routes evenly over the group. Written to OUTDIR:

  net-one.conf, net-vrf.conf         interfaces and neighbors (+ vrfs)
  routes-one.conf, routes-vrf.conf   the routes but one, each followed by ","
  change-one.conf, change-vrf.conf   the one route
  change-one-b.conf, change-vrf-b.conf   the one route via the other gateway
  vrf.pcap
"""
import argparse
import os
import random
import re
import struct

p = argparse.ArgumentParser()
p.add_argument("routes")
p.add_argument("outdir")
p.add_argument("--vrfs", type=int, default=64)
p.add_argument("--packets", type=int, default=8192)
p.add_argument("--run", type=int, default=1)
p.add_argument("--vlan-base", type=int, default=100)
p.add_argument("--dst-mac", default="02:70:63:61:70:00")
p.add_argument("--src-mac", default="02:00:00:00:00:01")
a = p.parse_args()
V = a.vrfs
if not 1 <= V <= 250 or a.vlan_base + V > 4095:
    raise SystemExit("gen_vrf.py: --vrfs 1..250, VLANs within 1..4094")

pat = re.compile(r'prefix="([0-9.]+)/([0-9]+)"')
routes = []
for line in open(a.routes):
    m = pat.search(line)
    if m:
        o = [int(x) for x in m.group(1).split(".")]
        routes.append(((o[0] << 24) | (o[1] << 16) | (o[2] << 8) | o[3], int(m.group(2))))
per = len(routes) // V
if per < 1:
    raise SystemExit("gen_vrf.py: %d routes for %d VRFs" % (len(routes), V))
routes = routes[:per * V]


def ip4(x):
    return "%d.%d.%d.%d" % (x >> 24, (x >> 16) & 255, (x >> 8) & 255, x & 255)


def route(i, r, vrf, gw=2):
    net, ln = r
    v = ' vrf="v%d";' % i if vrf else ""
    return '{prefix="%s/%d"; via="10.2.%d.%d";%s}' % (ip4(net), ln, i, gw, v)


for kind, vrf in (("one", False), ("vrf", True)):
    with open(os.path.join(a.outdir, "net-%s.conf" % kind), "w") as f:
        if vrf:
            f.write("vrfs = (\n%s\n);\n" % ",\n".join(
                '  { name = "v%d"; table = %d; }' % (i, 1000 + i) for i in range(V)))
        ifs = []
        for i in range(V):
            v = ' vrf = "v%d";' % i if vrf else ""
            ifs.append('  { name = "i%d"; port = "in"; vlan = %d; address = "10.0.%d.1/24";%s }'
                       % (i, a.vlan_base + i, i, v))
            ifs.append('  { name = "o%d"; port = "out"; vlan = %d; address = "10.2.%d.1/24";%s }'
                       % (i, a.vlan_base + i, i, v))
        f.write("interfaces = (\n%s\n);\n" % ",\n".join(ifs))
        nb = ['  { interface = "o%d"; address = "10.2.%d.2"; mac = "02:00:00:00:02:%02x"; }'
              % (i, i, i) for i in range(V)]
        nb.append('  { interface = "o%d"; address = "10.2.%d.3"; mac = "02:00:00:00:03:%02x"; }'
                  % (V - 1, V - 1, V - 1))
        f.write("# net_null answers no ARP: the gateways' MACs are fixed.\n"
                "neighbors = (\n%s\n);\n" % ",\n".join(nb))
    one = (V - 1) * per  # the route that the reload changes
    with open(os.path.join(a.outdir, "routes-%s.conf" % kind), "w") as f:
        for k, r in enumerate(routes):
            if k != one:
                f.write(route(k // per, r, vrf) + ",\n")
    with open(os.path.join(a.outdir, "change-%s.conf" % kind), "w") as f:
        f.write(route(V - 1, routes[one], vrf) + "\n")
    with open(os.path.join(a.outdir, "change-%s-b.conf" % kind), "w") as f:
        f.write(route(V - 1, routes[one], vrf, gw=3) + "\n")


def cksum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


rng = random.Random(23)
dst_mac, src_mac = mac(a.dst_mac), mac(a.src_mac)
if a.run < 1 or a.packets % (V * a.run):
    raise SystemExit("gen_vrf.py: --packets must be a multiple of --vrfs x --run")
rounds = a.packets // V
# /24s that hold a longer prefix: a destination there is resolved in a tbl8
# group (DIR-24-8), in the one table or in its VRF's
t8_all = set(net >> 8 for net, ln in routes if ln > 24)
t8_vrf = set((k // per, net >> 8) for k, (net, ln) in enumerate(routes) if ln > 24)
in_t8_all = in_t8_vrf = 0
with open(os.path.join(a.outdir, "vrf.pcap"), "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))  # DLT_EN10MB
    for q in range(a.packets):
        j = q // a.run  # the run
        i, k = j % V, (j // V) * a.run + q % a.run
        net, ln = routes[i * per + k * per // rounds]
        host = 0 if ln == 32 else rng.getrandbits(32 - ln)
        dst = net | host
        in_t8_all += (dst >> 8) in t8_all
        in_t8_vrf += (i, dst >> 8) in t8_vrf
        src = (10 << 24) | (i << 8) | (2 + k % 250)
        payload = bytes((0x5A + j) & 255 for j in range(18))  # 64-byte frame's UDP payload
        udp_len = 8 + len(payload)
        sport, dport = 1024 + q % 60000, 5000 + q % 16
        pseudo = struct.pack("!IIBBH", src, dst, 0, 17, udp_len)
        udp = struct.pack("!HHHH", sport, dport, udp_len, 0) + payload
        uc = cksum(pseudo + udp) or 0xFFFF
        udp = udp[:6] + struct.pack("!H", uc) + udp[8:]
        iph = struct.pack("!BBHHHBBHII", 0x45, 0, 20 + udp_len, q & 0xFFFF, 0, 64, 17, 0, src, dst)
        iph = iph[:10] + struct.pack("!H", cksum(iph)) + iph[12:]
        frame = dst_mac + src_mac + struct.pack("!HHH", 0x8100, a.vlan_base + i, 0x0800) + iph + udp
        f.write(struct.pack("<IIII", q // 1000000, q % 1000000, len(frame), len(frame)))
        f.write(frame)
print("gen_vrf.py: %d routes in %d groups of %d; %d frames of 64 bytes + tag (+ FCS) round-robin "
      "over VLANs %d..%d in runs of %d; destinations resolved in a tbl8 group: %.1f %% in the one "
      "table, %.1f %% in their VRF's" % (per * V, V, per, a.packets, a.vlan_base, a.vlan_base + V - 1,
                                         a.run, 100.0 * in_t8_all / a.packets,
                                         100.0 * in_t8_vrf / a.packets))
