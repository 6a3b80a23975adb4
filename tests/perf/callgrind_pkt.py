#!/usr/bin/python3
"""callgrind_pkt.py [--stages MAP] OUT...: instructions per packet from
callgrind output files (one per thread, instructions.sh).

The worker's thread is the one with the most calls to rte_pktmbuf_free
(net_null frees each packet), or, for l3fwd (--packets-fn FN,K), K x the
calls to FN (ob:REGEX: calls into any function of an object matching
REGEX, e.g. net_null's TX, which has no symbol). --sum-threads: all busy threads (each >= 1 % of the busiest one's
instructions) summed, their packets too (qos_sched's RX and worker
lcores, vbrd's two workers), with one 'thread' line each.
Prints 'instructions: X per packet (N packets)', then the
functions of most self cost. With --stages MAP (lines 'REGEX STAGE'),
prints each stage's instructions per packet (stage_costs): a function's
cost goes to the innermost stage it runs in, '(rest)' is outside any.
"""
import argparse
import collections
import re
import sys


def parse(path):
    """Self cost per function, call edges (caller, callee) -> (calls,
    inclusive Ir), and self cost per (function, source file): a file
    other than the function's is code inlined from it (a -g build)."""
    names = {}
    files = {}
    objs = {}
    ob = cob = None
    by_file = collections.Counter()
    fl = src = None
    self_ir = collections.Counter()
    calls = collections.Counter()
    edges = collections.defaultdict(lambda: [0, 0])
    cur = cfn = None
    pending = False

    def name(s, table=names):
        m = re.match(r'\((\d+)\)(?: (.*))?', s)
        if m is None:
            return s
        if m.group(2):
            table[m.group(1)] = m.group(2)
        return table.get(m.group(1), m.group(1))

    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('ob='):
            ob = name(line[3:], objs)
        elif line.startswith('cob='):
            cob = name(line[4:], objs)
        elif line.startswith('fl='):
            fl = src = name(line[3:], files)
        elif line.startswith(('fi=', 'fe=')):
            src = name(line[3:], files)
        elif line.startswith(('cfi=', 'cfl=')):
            name(line[4:], files)
        elif line.startswith('fn='):
            cur = name(line[3:])
            src = fl
        elif line.startswith('cfn='):
            cfn = name(line[4:])
        elif line.startswith('calls='):
            n = int(line[6:].split()[0])
            calls[cfn] += n
            if cob is not None and cob != ob:  # a call into another object
                calls['ob:' + cob] += n
            cob = None
            edges[(cur, cfn)][0] += n
            pending = True
        elif line and (line[0].isdigit() or line[0] in '+-*'):
            v = int(line.split()[-1])
            if pending:
                pending = False  # the inclusive cost of the call just named
                edges[(cur, cfn)][1] += v
            else:
                self_ir[cur] += v
                by_file[(cur, src)] += v
    return self_ir, calls, edges, by_file


def load_map(path):
    """The stage map: (compiled regex, stage) in file order; first match wins."""
    out = []
    for line in open(path):
        line = line.split('#', 1)[0].strip()
        if line:
            rx, stage = line.split()
            out.append((re.compile(rx + r'$'), stage))
    return out


def stage_of(fn, smap, cache={}):
    if fn not in cache:
        cache[fn] = next((s for rx, s in smap if rx.match(fn)), None)
    return cache[fn]


def stage_costs(self_ir, edges, smap):
    """Instructions per stage: each function's inclusive cost split by
    stage, bottom-up over the call graph. A function's own cost goes to
    its stage; what it spends in a callee is split as the callee's
    inclusive cost is on average (callgrind keeps no stacks); the part
    of no stage goes to the caller's stage. Stage None: the rest."""
    callees = collections.defaultdict(list)
    callers = set()
    for (f, g), (_, ir) in edges.items():
        if f != g:
            callees[f].append((g, ir))
            callers.add(g)
    memo = {}
    onstack = set()

    def mix(f):
        if f in memo:
            return memo[f]
        onstack.add(f)
        m = collections.Counter({None: self_ir.get(f, 0)})
        for g, ir in callees[f]:
            if g in onstack:  # recursion: keep it with the caller
                m[None] += ir
                continue
            mg = mix(g)
            tot = sum(mg.values())
            for s, v in mg.items():
                if tot:
                    m[s] += ir * v / tot
        onstack.discard(f)
        s = stage_of(f, smap)
        if s:
            m[s] += m.pop(None, 0)
        memo[f] = m
        return m

    out = collections.Counter()
    fns = set(self_ir) | set(callees)
    for f in fns:
        if f not in callers:  # the roots: the thread's entry points
            out.update(mix(f))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stages')
    ap.add_argument('--packets-fn', default='rte_pktmbuf_free,1')
    ap.add_argument('--sum-threads', action='store_true',
                    help='sum the busy threads, not the one thread of most packets')
    ap.add_argument('--top', type=int, default=12)
    ap.add_argument('--by-file', action='store_true',
                    help='also the top (function, source file) self costs')
    ap.add_argument('files', nargs='+')
    a = ap.parse_args()
    pfn, k = a.packets_fn.rsplit(',', 1)
    k = int(k)

    def pcalls(c):
        """calls of the packet function, or with 'ob:REGEX' calls from
        another object into any function of an object matching REGEX
        (qos_sched: net_null's TX, which has no symbol)"""
        if pfn.startswith('ob:'):
            rx = re.compile(pfn[3:])
            return sum(v for key, v in c.items() if key.startswith('ob:') and rx.search(key[3:]))
        return c[pfn]
    runs = [(p,) + parse(p) for p in a.files]
    if a.sum_threads:
        busiest = max(sum(r[1].values()) for r in runs)
        busy = [r for r in runs if sum(r[1].values()) >= busiest / 100]
        self_ir, calls, by_file = collections.Counter(), collections.Counter(), collections.Counter()
        edges = collections.defaultdict(lambda: [0, 0])
        for _, s, c, e, b in busy:
            self_ir.update(s)
            calls.update(c)
            by_file.update(b)
            for key, (nc, ir) in e.items():
                edges[key][0] += nc
                edges[key][1] += ir
    else:
        busy = [max(runs, key=lambda r: pcalls(r[2]))]
        _, self_ir, calls, edges, by_file = busy[0]
    n = pcalls(calls) * k
    if n == 0:
        sys.exit('callgrind_pkt.py: no packets (no calls to %s)' % pfn)
    total = sum(self_ir.values())
    print('instructions: %.1f per packet (%d packets)' % (total / n, n))
    if a.sum_threads:
        for p, s, c, _, _ in busy:
            top = s.most_common(1)[0][0] if s else '-'
            tn = pcalls(c) * k
            own = ', %.1f per packet of its own' % (sum(s.values()) / tn) if tn else ''
            print('thread %s %.1f per packet of all (%d packets%s; most in %s)'
                  % (p.rsplit('-', 1)[-1], sum(s.values()) / n, tn, own, top))
    for fn, v in self_ir.most_common(a.top):
        if v / n >= 0.5:
            print('%8.1f  %s' % (v / n, fn))
    if a.by_file:
        for (fn, src), v in by_file.most_common(a.top):
            if v / n >= 0.5:
                print('file %8.1f  %-28s %s' % (v / n, fn, src))
    if not a.stages:
        return
    smap = load_map(a.stages)
    st = stage_costs(self_ir, edges, smap)
    gap = total - sum(st.values())  # a cycle with no root: the rest
    if abs(gap) > total / 100:
        print('callgrind_pkt.py: %.1f %% of the cost not reached from a root' % (100 * gap / total), file=sys.stderr)
    st[None] += gap
    seen = []
    for _, s in smap:
        if s not in seen:
            seen.append(s)
    for s in seen:
        print('stage %-10s %8.1f' % (s, st[s] / n))
    print('stage %-10s %8.1f' % ('(rest)', st.get(None, 0) / n))


sys.setrecursionlimit(10000)
main()
