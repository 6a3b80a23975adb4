#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a vbrd config with many static routes (tests/perf/scale.sh, tests/tcl/test_fib_scale.tcl).

  gen_routes.py OUT N [--v6 N6] [--change PCT] [--seed S] [--head FILE] [--memory-mb M]
                [--body-only] [--gw A.B.C.] [--samples FILE]

Routes are distinct prefixes of 11.0.0.0/8..126.0.0.0/8, lengths as in a
full table (about 60% /24, 30% /16../23, 10% /25../32), spread over 16
gateways 10.1.0.2..17 on one interface. --change PCT rewrites PCT% of the
routes: a third get another gateway, a third are deleted, a third replaced
by new prefixes. The same seed gives the same table. --head FILE is
written before the routes (ports, interfaces, eal); else a net_null lab.
--body-only writes only the route entries, comma-separated, for an
@include inside a `routes = ( ... )` list. --gw sets the gateways' first
three bytes (default 10.1.0.). --samples FILE lists, for --change, up to
50 changed, deleted and added routes whose network address no more
specific route covers (in the old or the new table), one per line:
"changed PREFIX NEWGW", "deleted PREFIX", "added PREFIX GW".
"""
import argparse
import random

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("n", type=int)
p.add_argument("--v6", type=int, default=0)
p.add_argument("--change", type=float, default=0.0)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--head", default=None)
p.add_argument("--memory-mb", type=int, default=1024)
p.add_argument("--body-only", action="store_true")
p.add_argument("--gw", default="10.1.0.")
p.add_argument("--samples", default=None)
a = p.parse_args()

rng = random.Random(a.seed)


def prefix4(r):
    x = r.random()
    if x < 0.6:
        ln = 24
    elif x < 0.9:
        ln = r.randint(16, 23)
    else:
        ln = r.randint(25, 32)
    addr = r.randint(11 << 24, (127 << 24) - 1)
    addr &= (0xFFFFFFFF << (32 - ln)) & 0xFFFFFFFF
    return addr, ln


def fmt4(addr, ln):
    return "%d.%d.%d.%d/%d" % (addr >> 24, (addr >> 16) & 255, (addr >> 8) & 255, addr & 255, ln)


def table(r, n, seen):
    out = []
    while len(out) < n:
        pf = prefix4(r)
        if pf in seen:
            continue
        seen.add(pf)
        out.append([pf, 2 + r.randint(0, 15)])
    return out


seen = set()
routes = table(rng, a.n, seen)
routes6 = []
seen6 = set()
while len(routes6) < a.v6:
    ln = rng.choice((32, 40, 48, 48, 48, 56, 64))
    hi = rng.getrandbits(ln) << (128 - ln)
    hi |= 0x2400 << 112
    hi &= ((1 << 128) - 1) ^ ((1 << (128 - ln)) - 1)
    if (hi, ln) in seen6:
        continue
    seen6.add((hi, ln))
    routes6.append([(hi, ln), 2 + rng.randint(0, 15)])

samples = []
if a.change > 0:
    old = set(pf for pf, _ in routes)
    crng = random.Random(a.seed + 1000)
    k = int(len(routes) * a.change / 100)
    idx = crng.sample(range(len(routes)), k)
    third = k // 3
    for i in idx[:third]:
        routes[i][1] = 2 + (routes[i][1] - 2 + 1 + crng.randint(0, 14)) % 16
    changed = [tuple(routes[i]) for i in idx[:third]]
    dead = set(idx[third:2 * third])
    deleted = [routes[j][0] for j in dead]
    routes = [rt for j, rt in enumerate(routes) if j not in dead]
    added = table(crng, k - 2 * third, seen)
    routes += added
    new = set(pf for pf, _ in routes)

    def clean(pf):
        addr, ln = pf
        for l in range(ln + 1, 33):
            m = addr & ((0xFFFFFFFF << (32 - l)) & 0xFFFFFFFF)
            if (m, l) in old or (m, l) in new:
                return False
        return True

    samples += ["changed %s %s%d" % (fmt4(*pf), a.gw, gw) for pf, gw in changed if clean(pf)][:50]
    samples += ["deleted %s" % fmt4(*pf) for pf in deleted if clean(pf)][:50]
    samples += ["added %s %s%d" % (fmt4(*pf), a.gw, gw) for pf, gw in added if clean(pf)][:50]
if a.samples:
    with open(a.samples, "w") as f:
        f.write("\n".join(samples) + "\n")

with open(a.out, "w") as f:
    if a.body_only:
        pass
    elif a.head:
        f.write(open(a.head).read())
    else:
        f.write('ports = ( { name = "p0"; devargs = "net_null0"; } );\n'
                'interfaces = ( { name = "lan0"; port = "p0"; addresses = [ "10.1.0.1/16", '
                '"2001:db8:1::1/64" ]; } );\n'
                'eal = { hugepages = true; memory_mb = %d; };\n' % a.memory_mb)
    if not a.body_only:
        f.write("routes = (\n")
    lines = ['  { prefix = "%s"; via = "%s%d"; }' % (fmt4(*pf), a.gw, gw) for pf, gw in routes]
    for (hi, ln), gw in routes6:
        h = "%032x" % hi
        addr = ":".join(h[i:i + 4] for i in range(0, 32, 4))
        lines.append('  { prefix = "%s/%d"; via = "2001:db8:1::%x"; }' % (addr, ln, gw))
    f.write(",\n".join(lines))
    f.write("\n" if a.body_only else "\n);\n")
