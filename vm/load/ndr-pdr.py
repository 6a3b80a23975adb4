#!/usr/bin/env python3
"""RFC 2544 throughput search with TRex: NDR and PDR, as FD.io CSIT reports them.

  ndr-pdr.py --profile vm/load/trex/vbrd_64b.py --max-rate 14.88mpps
             [--server 127.0.0.1] [--port 0] [--rx-port 1] [-t size=64,flows=1000]
             [--trial-duration 30] [--initial-duration 1] [--precision 0.005]
             [--pdr-loss 0.005] [--min-rate 10kpps] [--frame-size 64] [--json FILE|-]

Runs trials (traffic for a fixed time, then the loss ratio: packets port
--port sent that --rx-port did not receive) and searches, like CSIT's
MLRsearch, for two targets at once: NDR (loss ratio 0) and PDR (loss ratio
at most --pdr-loss, 0.5 % by default). Each is reported as an interval:
LOWER, the highest rate measured at or under the target, and UPPER, the
lowest rate measured over it, with (UPPER - LOWER) / UPPER <= --precision.
The search has two phases: trials of --initial-duration narrow the
intervals to 4 x the precision, then trials of --trial-duration re-check
both bounds and narrow them to the precision, so the bounds that are
reported were measured at the full duration. Rates are the total of the
profile on --port (packets/s, both when given and reported). Needs TRex's
Python API on PYTHONPATH (trex_client's interactive/ folder) and a running
`t-rex-64 -i`. Tunables go to the profile like trex-console's -t.
"""

import argparse
import json
import sys


def parse_rate(text):
    """'14.88mpps', '500kpps', '1000pps' or '1000' -> packets/s."""
    t = str(text).strip().lower()
    for suffix, scale in (("mpps", 1e6), ("kpps", 1e3), ("pps", 1.0)):
        if t.endswith(suffix):
            return float(t[:-len(suffix)]) * scale
    return float(t)


class Trials:
    """Runs trials on a connected STLClient and keeps every result."""

    def __init__(self, client, tx, rx, log):
        self.client, self.tx, self.rx, self.log = client, tx, rx, log
        self.results = []

    def run(self, pps, duration):
        """One trial: offer PPS for DURATION s; return the loss ratio."""
        c = self.client
        c.clear_stats()
        c.start(ports=[self.tx], mult="%dpps" % int(round(pps)), duration=duration, force=True)
        c.wait_on_traffic(ports=[self.tx])
        st = c.get_stats()
        sent, got = st[self.tx]["opackets"], st[self.rx]["ipackets"]
        loss = max(0, sent - got) / sent if sent else 1.0
        self.results.append({"pps": pps, "duration": duration, "sent": sent,
                             "received": got, "loss_ratio": loss})
        self.log("trial %.0f pps %gs: sent %d received %d loss %.6f%%"
                 % (pps, duration, sent, got, 100 * loss))
        return loss


def search(trials, target, lo_rate, hi_rate, duration, width, bounds):
    """Narrow the interval of one loss-ratio TARGET at DURATION to WIDTH.

    BOUNDS is (lower, upper) from the previous phase (either may be None);
    both are measured again at this duration first. Returns the new bounds:
    lower passed (loss <= target), upper failed; upper is None when the
    maximum rate passed, lower is None when even the minimum failed."""
    lower, upper = bounds
    ok = lambda r: trials.run(r, duration) <= target  # noqa: E731
    if upper is not None and ok(upper):          # upper passes now: look higher
        lower, upper = upper, None
        step = width
        while upper is None and lower < hi_rate:
            r = min(hi_rate, lower * (1 + step))
            if ok(r):
                lower = r
            else:
                upper = r
            step *= 2
        if upper is None:
            return lower, None
    if lower is not None and not ok(lower):      # lower fails now: look lower
        upper = lower if upper is None or lower < upper else upper
        lower, step = None, width
        while lower is None:
            r = max(lo_rate, upper * (1 - step))
            if ok(r):
                lower = r
            elif r <= lo_rate:
                return None, r               # the minimum failed: it is the upper bound
            else:
                upper = r
            step *= 2
    if lower is None:
        if ok(lo_rate):
            lower = lo_rate
        else:
            return None, lo_rate
    while upper is not None and (upper - lower) / upper > width:
        mid = (lower + upper) / 2
        if ok(mid):
            lower = mid
        else:
            upper = mid
    return lower, upper


def main():
    """Parse the options, run the search, print CSIT-style lines."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", default="127.0.0.1")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--rx-port", type=int, default=1)
    ap.add_argument("-t", "--tunables", default="", help="k=v,k=v for the profile")
    ap.add_argument("--max-rate", required=True, help="e.g. 14.88mpps (line rate)")
    ap.add_argument("--min-rate", default="10kpps")
    ap.add_argument("--trial-duration", type=float, default=30.0)
    ap.add_argument("--initial-duration", type=float, default=1.0)
    ap.add_argument("--precision", type=float, default=0.005, help="relative width goal")
    ap.add_argument("--pdr-loss", type=float, default=0.005, help="PDR loss ratio (0.005 = 0.5%%)")
    ap.add_argument("--frame-size", type=float, help="frame bytes (with FCS) for the Gbit/s column")
    ap.add_argument("--json", help="write the result as JSON to FILE, or - for stdout")
    a = ap.parse_args()
    log = (lambda m: print(m, file=sys.stderr)) if a.json == "-" else print

    # here, not at the top: --help works without TRex
    try:
        from trex.stl.api import STLClient, STLProfile  # TRex >= 2.40
    except ImportError as e:
        sys.exit(f"ndr-pdr.py: TRex's Python API is not on PYTHONPATH ({e}); add "
                 "TRex's automation/trex_control_plane/interactive folder")

    tun = dict(kv.split("=", 1) for kv in a.tunables.split(",") if kv)
    hi, lo = parse_rate(a.max_rate), parse_rate(a.min_rate)
    profile = STLProfile.load_py(a.profile, direction=a.port % 2, port_id=a.port, **tun)
    c = STLClient(server=a.server)
    c.connect()
    try:
        c.reset(ports=[a.port, a.rx_port])
        c.add_streams(profile.get_streams(), ports=[a.port])
        trials = Trials(c, a.port, a.rx_port, log)
        first = trials.run(hi, a.initial_duration)
        res = {}
        for name, target in (("ndr", 0.0), ("pdr", a.pdr_loss)):
            b = (hi, None) if first <= target else (None, hi)
            if b[1] is not None:
                b = (lo, hi)
            for duration, width in ((a.initial_duration, 4 * a.precision),
                                    (a.trial_duration, a.precision)):
                b = search(trials, target, lo, hi, duration, width, b)
            res[name] = {"lower": b[0], "upper": b[1], "loss_target": target}
    finally:
        c.stop(ports=[a.port])
        c.disconnect()

    for name in ("ndr", "pdr"):
        r = res[name]
        for edge in ("lower", "upper"):
            v = r[edge]
            text = "none (the maximum rate passed)" if v is None and edge == "upper" else \
                "none (the minimum rate failed)" if v is None else "%.6f Mpps" % (v / 1e6)
            if v is not None and a.frame_size:
                text += ", %.4f Gbit/s L1" % (v * (a.frame_size + 20) * 8 / 1e9)
            log("%s_%s: %s" % (name.upper(), edge.upper(), text))
    out = dict(res, trials=len(trials.results), results=trials.results)
    if a.json == "-":
        print(json.dumps(out))
    elif a.json:
        json.dump(out, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
