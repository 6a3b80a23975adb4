#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write one QoS bench scenario twice: as DPDK qos_sched's profile and as
vbrd's `qos` section, from the same numbers (tests/perf/bench-qos.sh).

  gen_qos_conf.py --qos-sched PROFILE.cfg --vbrd QOS.conf
                  [--businesses 64] [--queues 4] [--sparse 60]
                  [--line 100G] [--starved-rate RATE] [--interface out]
                  [--ecn-step-us US]

The hierarchy matches the traffic of `pcapgen qos` with the same
--businesses, --queues and --sparse: business b is qos_sched's pipe b
(one subport), its queue q is qos_sched's queue q of the pipe as
pcapgen steers it (index q of the queues the profile enables):

  queue 0            vbrd: "high", a priority queue (no cap)
                     qos_sched: traffic class 0 (strict priority)
  queues 1..Q-1      vbrd: weighted queues "w1".., the last one the
                     default queue, equal percents
                     qos_sched: the best-effort class's queues 0..Q-2,
                     equal WRR weights
  every queue        64 packets (vbrd: limit; qos_sched: queue size)

vbrd's classes, one per pcapgen class c = b * Q + q: protocol udp, DSCP
c mod 64, destination port 5000 + c / 64, priority c + 1; the classes of
queues 0 and 1 of every business have a trTCM policer (cir 10G, pir 20G,
1 and 2 MB bursts) that the bench's traffic never turns red: each class
carries less than a tenth of it, so the policers cost their work without
changing what leaves, and vbrd forwards what qos_sched does.

Rates (the line and qos_sched's port: --line; both count 24 bytes of
overhead per frame, preamble + SFD + gap + FCS):

  businesses --sparse..B-1 (most of the traffic): guaranteed 80% / their
      number, ceiling the line; qos_sched: pipe rate of that share (the
      pipe cannot borrow, but its traffic stays far below the share)
  businesses 0..--sparse-1 (one frame per class in the pcap):
      without --starved-rate ("unstarved"): guaranteed min(0.3%, 18% / S),
      ceiling the line; qos_sched: pipe rate of that share
      with --starved-rate R ("starved"): guaranteed = ceiling = R; qos_sched:
      pipe rate R, TC period long enough that a period's credit holds two
      1518-byte frames (rte_sched resets, not accumulates, TC credit each
      period: a smaller credit would block large frames for ever)

--ecn-step-us US: every vbrd queue marks ECN CE on ECT packets that find
US µs of the line's rate queued ahead (`ecn = { mode = "step"; ... }`);
qos_sched's profile is the same with or without it.

qos_sched's subport is the whole port, every enabled traffic class at the
port rate, 10 ms TC period.
"""
import argparse
import math

OVERHEAD = 24        # bytes per frame: preamble+SFD 8, gap 12, FCS 4
QSIZE = 64           # packets per queue
MAX_FRAME = 1518     # bytes incl. FCS
TC_BE = 12           # rte_sched's best-effort traffic class
N_TC = 13
DSCP_VALUES = 64
PORT_BASE = 5000

UNITS = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def rate_bps(s):
    """'100G', '1.5M', '800k' or an integer: bits/s (as vbrd parses them)."""
    unit = s[-1] if s[-1] in UNITS and not s[-1].isdigit() else ""
    num = s[:-1] if unit else s
    v = float(num) * UNITS[unit]
    if v <= 0 or v != int(v):
        raise argparse.ArgumentTypeError("rate %r is not a positive whole bits/s" % s)
    return int(v)


def rate_text(bps):
    """bits/s as vbrd's config writes them: '100G', '1M', or the integer."""
    for unit, mult in (("T", 10**12), ("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if bps % mult == 0:
            return "%d%s" % (bps // mult, unit)
    return "%d" % bps


def pct(x):
    """A percent as vbrd writes it: up to 4 decimals, trailing zeros cut."""
    return ("%.4f" % x).rstrip("0").rstrip(".") + "%"


ap = argparse.ArgumentParser(description=__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--qos-sched", required=True, help="qos_sched profile to write")
ap.add_argument("--vbrd", required=True, help="vbrd qos section to write (for @include)")
ap.add_argument("--businesses", type=int, default=64)
ap.add_argument("--queues", type=int, default=4)
ap.add_argument("--sparse", type=int, default=60)
ap.add_argument("--line", type=rate_bps, default=rate_bps("100G"))
ap.add_argument("--starved-rate", type=rate_bps, default=None)
ap.add_argument("--interface", default="out")
ap.add_argument("--ecn-step-us", type=int, default=None)
a = ap.parse_args()

B, Q, S = a.businesses, a.queues, a.sparse
if not (1 <= B <= 64) or B & (B - 1):
    ap.error("--businesses must be a power of 2 in 1..64 (vbrd: 64 at most; "
             "rte_sched: a power of 2 of pipes)")
if not 2 <= Q <= 5:
    ap.error("--queues must be 2..5 (traffic class 0 and the 4 best-effort queues)")
if not 0 <= S < B:
    ap.error("--sparse must be 0..businesses-1")

open_share = 80.0 / (B - S)                  # percent of the line, each
sparse_share = min(0.3, 18.0 / S) if S else 0.0
line_Bps = a.line // 8

names = ["high"] + ["w%d" % i for i in range(1, Q - 1)] + ["default"]


def business_rate_Bps(b):
    if b >= S:
        return int(line_Bps * open_share / 100)
    if a.starved_rate is not None:
        return a.starved_rate // 8
    return int(line_Bps * sparse_share / 100)


def summary(what):
    """The scenario in one line, for the files' first comment."""
    text = "%d %s x %d queues, line %s" % (B, what, Q, rate_text(a.line))
    if S:
        text += ", %s 0..%d sparse" % (what, S - 1)
        if a.starved_rate is not None:
            text += " and starved at %s" % rate_text(a.starved_rate)
    return text


# ---- qos_sched profile -----------------------------------------------------

def tc_lines(rate, enabled):
    return "".join("tc %d rate = %d\n" % (tc, rate if tc in enabled else 0)
                   for tc in range(N_TC))


enabled = {0, TC_BE}
qsizes = " ".join(str(QSIZE if tc in enabled else 0) for tc in range(N_TC))
weights = "1 1 1 1"                          # the unused ones too: rte_sched wants them > 0
profiles = []                                 # (rate B/s, tb size, tc period ms)
prof_of = {}
for b in range(B):
    r = business_rate_Bps(b)
    period = 10
    if b < S and a.starved_rate is not None:
        period = max(10, math.ceil(2 * (MAX_FRAME + OVERHEAD) * 1000 / r))
    key = (r, max(2 * (MAX_FRAME + OVERHEAD), min(1000000, r // 100)), period)
    if key not in profiles:
        profiles.append(key)
    prof_of[b] = profiles.index(key)

with open(a.qos_sched, "w") as f:
    f.write("; generated by tests/perf/gen_qos_conf.py: %s\n" % summary("pipes"))
    f.write("[port]\nframe overhead = %d\nnumber of subports per port = 1\n"
            "rate = %d ; bytes/s (vbrd bench patch)\n\n" % (OVERHEAD, line_Bps))
    f.write("[subport 0]\nnumber of pipes per subport = %d\nqueue sizes = %s\n" % (B, qsizes))
    b = 0
    while b < B:                              # runs of pipes with one profile
        e = b
        while e + 1 < B and prof_of[e + 1] == prof_of[b]:
            e += 1
        f.write("pipe %d-%d = %d\n" % (b, e, prof_of[b]))
        b = e + 1
    f.write("\n[subport profile 0]\ntb rate = %d\ntb size = 1000000\n" % line_Bps)
    f.write(tc_lines(line_Bps, range(N_TC)))
    f.write("tc period = 10\n")
    for i, (r, size, period) in enumerate(profiles):
        f.write("\n[pipe profile %d]\ntb rate = %d\ntb size = %d\n" % (i, r, size))
        f.write(tc_lines(r, enabled))
        f.write("tc period = %d\ntc 12 oversubscription weight = 1\n"
                "tc 12 wrr weights = %s\n" % (period, weights))

# ---- vbrd qos section --------------------------------------------------------


def business(b):
    if b >= S:
        g, ceil = pct(open_share), ""
    elif a.starved_rate is not None:
        g = rate_text(a.starved_rate)
        ceil = ' ceiling = "%s";' % g
    else:
        g, ceil = pct(sparse_share), ""
    ecn = ""
    if a.ecn_step_us is not None:
        ecn = ' ecn = { mode = "step"; threshold_us = %d; };' % a.ecn_step_us
    queues = ['{ name = "high"; type = "priority"; limit = %d;%s }' % (QSIZE, ecn)]
    w = 100 // (Q - 1)
    for i in range(1, Q - 1):
        queues.append('{ name = "w%d"; type = "weighted"; percent = %d; limit = %d;%s }'
                      % (i, w, QSIZE, ecn))
    queues.append('{ name = "default"; type = "default"; percent = %d; limit = %d;%s }'
                  % (100 - w * (Q - 2), QSIZE, ecn))
    return ('      { name = "b%d"; guaranteed = "%s";%s\n        queues = ( %s ); }'
            % (b, g, ceil, ",\n                   ".join(queues)))


def klass(c):
    b, q = divmod(c, Q)
    pol = ""
    if q in (0, 1):
        pol = ('\n        policer = { mode = "trtcm"; cir = "10G"; cbs = 1000000; '
               'pir = "20G"; pbs = 2000000; };')
    return ('      { name = "c%d"; priority = %d; protocol = "udp"; dscp = %d; dst_port = %d;\n'
            '        business = "b%d"; queue = "%s";%s }'
            % (c, c + 1, c % DSCP_VALUES, PORT_BASE + c // DSCP_VALUES, b, names[q], pol))


with open(a.vbrd, "w") as f:
    f.write("# generated by tests/perf/gen_qos_conf.py: %s\n" % summary("businesses"))
    f.write('qos = {\n  policies = ( {\n    name = "bench";\n'
            '    default_business = "b%d";\n    businesses = (\n' % (B - 1))
    f.write(",\n".join(business(b) for b in range(B)))
    f.write("\n    );\n    classes = (\n")
    f.write(",\n".join(klass(c) for c in range(B * Q)))
    f.write('\n    ); } );\n  interfaces = ( { interface = "%s"; policy = "bench"; '
            'rate = "%s"; } );\n};\n' % (a.interface, rate_text(a.line)))
