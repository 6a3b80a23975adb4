#!/usr/bin/env python3
"""Watch a route load until a table holds every route (bench-bgp.sh).

    bgp_watch.py vbrd --ctl SOCKET --target N [--kernel-ns NS] [--tail S]
                      [--timeout S] [--stats-ms 50] [--fpm-ms 100]
    bgp_watch.py kernel --ns NS --target N [--timeout S] [--every-ms 200]

vbrd: asks vbrd's control socket (core/ctl.h, one connection a request)
`show stats` every --stats-ms and `show fpm` every --fpm-ms, until
`show fpm` has routes4 + routes6 >= N, then --tail seconds more of
`show stats`. Each `show stats` is timed (request written to reply read:
what a vbrctl call waits, without vbrctl's own start). With --kernel-ns it
also counts the routes in that namespace's kernel (below) every 500 ms
(the control namespace, where zebra installs them too), to show which of
the two got them first; with --vtysh DIR, bgpd's received prefixes
(`show bgp summary json`, pfxRcd of every peer, through vtysh on the vty
sockets in DIR) every 500 ms: when bgpd had them all.

kernel: counts the routes in namespace NS's kernel every --every-ms until
the count over the first sample's (the namespace's own routes) is >= N:
IPv4 prefixes of the main table from /proc/net/fib_triestat ("Main:" ...
"Prefixes:"), IPv6 routes from /proc/net/rt6_stats (its fourth field,
fib_rt_entries), both read in the namespace with `ip netns exec`. Both are
kept by the kernel itself, so one sample costs a few ms, where `ip route
show | wc -l` of a million routes takes seconds.

Prints one JSON line: t_full (CLOCK_REALTIME, s, the first sample that
showed the table full; null on timeout), samples, and for vbrd: the
`show stats` latencies (median, max, count), main_loop before and at the
end, fpm at the end, the kernel's t_full when asked.
"""

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time


def ctl(path, *argv):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(path)
    s.sendall(json.dumps({"argv": list(argv)}).encode() + b"\n")
    buf = b""
    while not buf.endswith(b"\n"):
        d = s.recv(1 << 16)
        if not d:
            break
        buf += d
    s.close()
    r = json.loads(buf)
    if not r.get("ok"):
        raise RuntimeError(r.get("error"))
    return r["data"]


def kernel_count(ns):
    """IPv4 main-table prefixes + IPv6 routes in namespace ns's kernel."""
    out = subprocess.run(["ip", "netns", "exec", ns, "sh", "-c",
                          "cat /proc/net/fib_triestat; echo ===; cat /proc/net/rt6_stats"],
                         capture_output=True, text=True, check=True).stdout
    tries, rt6 = out.split("===")
    v4 = 0
    table = None
    for line in tries.splitlines():
        line = line.strip()
        if line.endswith(":") and not line.startswith("Prefixes"):
            table = line[:-1]
        elif line.startswith("Prefixes:") and table == "Main":
            v4 = int(line.split()[1])
    v6 = int(rt6.split()[3], 16)
    return v4, v6


def bgp_received(vty_dir):
    out = subprocess.run(["vtysh", "--vty_socket", vty_dir, "-c", "show bgp summary json"],
                         capture_output=True, text=True, timeout=30).stdout
    d = json.loads(out)
    return sum(p.get("pfxRcd", 0) for af in d.values() if isinstance(af, dict)
               for p in af.get("peers", {}).values())


def watch_vbrd(a):
    lat = []
    fpm0 = ctl(a.ctl, "show", "fpm")
    stats0 = ctl(a.ctl, "show", "stats")
    t_full = t_kfull = None
    k0 = kernel_count(a.kernel_ns) if a.kernel_ns else None
    t_start = time.time()
    next_fpm = next_k = next_b = 0.0
    t_bfull = None
    samples = 0
    fpm = fpm0
    while True:
        now = time.time()
        if t_full is None and now - t_start > a.timeout:
            break
        if t_full is not None and now - t_full >= a.tail:
            break
        t0 = time.monotonic()
        stats = ctl(a.ctl, "show", "stats")
        lat.append((time.monotonic() - t0) * 1e3)
        if t_full is None and now >= next_fpm:
            fpm = ctl(a.ctl, "show", "fpm")
            samples += 1
            if fpm["routes4"] + fpm["routes6"] >= a.target:
                t_full = time.time()
            next_fpm = now + a.fpm_ms / 1e3
        if k0 is not None and t_kfull is None and now >= next_k:
            v4, v6 = kernel_count(a.kernel_ns)
            if v4 - k0[0] + v6 - k0[1] >= a.target:
                t_kfull = time.time()
            next_k = now + 0.5
        if a.vtysh and t_bfull is None and now >= next_b:
            try:
                if bgp_received(a.vtysh) >= a.target:
                    t_bfull = time.time()
            except (ValueError, subprocess.SubprocessError):
                pass
            next_b = now + 0.5
        time.sleep(a.stats_ms / 1e3)
    fpm = ctl(a.ctl, "show", "fpm")
    print(json.dumps({
        "t_start": t_start, "t_full": t_full, "samples": samples,
        "kernel_t_full": t_kfull, "bgp_t_full": t_bfull,
        "latency_ms": {"median": statistics.median(lat), "max": max(lat), "count": len(lat)},
        "main_loop0": stats0["main_loop"], "main_loop": stats["main_loop"],
        "fpm0": {k: v for k, v in fpm0.items() if not isinstance(v, dict)},
        "fpm": {k: v for k, v in fpm.items() if not isinstance(v, dict)},
    }))


def watch_kernel(a):
    k0 = kernel_count(a.ns)
    t_start = time.time()
    t_full = None
    samples = 0
    got = 0
    while time.time() - t_start < a.timeout:
        v4, v6 = kernel_count(a.ns)
        samples += 1
        got = v4 - k0[0] + v6 - k0[1]
        if got >= a.target:
            t_full = time.time()
            break
        time.sleep(a.every_ms / 1e3)
    print(json.dumps({"t_start": t_start, "t_full": t_full, "samples": samples,
                      "routes": got, "base": k0}))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    v = sub.add_parser("vbrd")
    v.add_argument("--ctl", required=True)
    v.add_argument("--target", type=int, required=True)
    v.add_argument("--kernel-ns")
    v.add_argument("--vtysh")
    v.add_argument("--tail", type=float, default=1.0)
    v.add_argument("--timeout", type=float, default=600)
    v.add_argument("--stats-ms", type=float, default=50)
    v.add_argument("--fpm-ms", type=float, default=100)
    k = sub.add_parser("kernel")
    k.add_argument("--ns", required=True)
    k.add_argument("--target", type=int, required=True)
    k.add_argument("--timeout", type=float, default=600)
    k.add_argument("--every-ms", type=float, default=200)
    a = p.parse_args()
    if a.mode == "vbrd":
        watch_vbrd(a)
    else:
        watch_kernel(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
