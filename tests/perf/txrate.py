#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Measure the transmit rate of one port: sample its TX packet counter once
per second and print the median of the per-second rates, packets/s.

  txrate.py telemetry SOCKET PORT_ID [--seconds N] [--warmup N]
      a DPDK process's telemetry socket (/var/run/dpdk/PREFIX/dpdk_telemetry.v2),
      counter "opackets" of "/ethdev/stats,PORT_ID"
  txrate.py vbrctl VBRCTL CTL_SOCKET PORT_NAME [--seconds N] [--warmup N]
      vbrd through `VBRCTL -s CTL_SOCKET -j show ports`, "tx_packets" of the
      port named PORT_NAME
  txrate.py ovs MGMT_SOCKET PORT_NAME [--seconds N] [--warmup N]
      Open vSwitch through `ovs-ofctl dump-ports unix:MGMT_SOCKET PORT_NAME`
      (the bridge's RUNDIR/BRIDGE.mgmt), "tx pkts" of that port: read from
      the device on each call, unlike the Interface table's statistics,
      which ovs-vswitchd refreshes only every 5 s

  --pid PID   also read the CPU time of process PID (all its threads, from
              /proc/PID/stat) each second: how many cores it kept busy.
  --thread NAME  and that of its thread named NAME (/proc/PID/task/*/comm),
              e.g. a DPDK lcore "rte-worker-1".

stdout: one line "MEDIAN_PPS MEDIAN_CORES" (cores: median of the per-second
CPU shares, 0 without --pid), with --thread a third field, the thread's
median share; stderr: the per-second figures.
Exit status 1 when the counter cannot be read or never moves.
The median, not the mean, because the VM's vCPUs are shared and a second
of lost CPU should not move the figure (tests/perf/README.md).
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time


class Telemetry:
    """DPDK telemetry v2 client: JSON over a SOCK_SEQPACKET UNIX socket."""

    def __init__(self, path, port_id):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.connect(path)
        hello = json.loads(self.sock.recv(65536))
        self.max_len = int(hello.get("max_output_len", 16384))
        self.cmd = "/ethdev/stats,%d" % port_id

    def tx_packets(self):
        self.sock.send(self.cmd.encode())
        reply = json.loads(self.sock.recv(self.max_len))
        stats = reply.get("/ethdev/stats")
        if not isinstance(stats, dict):
            raise RuntimeError("telemetry: no stats in %r" % reply)
        return int(stats["opackets"])


class Vbrctl:
    """vbrd's CLI: `show ports` lists tx_packets per port name."""

    def __init__(self, vbrctl, ctl_socket, port_name):
        self.argv = [vbrctl, "-s", ctl_socket, "-j", "show", "ports"]
        self.port = port_name

    def tx_packets(self):
        out = subprocess.run(self.argv, capture_output=True, text=True, timeout=5)
        if out.returncode != 0:
            raise RuntimeError("vbrctl exit %d: %s" % (out.returncode, out.stderr.strip()))
        for p in json.loads(out.stdout)["ports"]:
            if p["name"] == self.port:
                return int(p["tx_packets"])
        raise RuntimeError("vbrctl: no port named %r" % self.port)


class OvsOfctl:
    """Open vSwitch: `ovs-ofctl dump-ports` prints "tx pkts=N" per port."""

    def __init__(self, mgmt_socket, port_name):
        self.argv = ["ovs-ofctl", "dump-ports", "unix:" + mgmt_socket, port_name]

    def tx_packets(self):
        out = subprocess.run(self.argv, capture_output=True, text=True, timeout=5)
        if out.returncode != 0:
            raise RuntimeError("ovs-ofctl exit %d: %s" % (out.returncode, out.stderr.strip()))
        for line in out.stdout.splitlines():
            line = line.strip()
            if line.startswith("tx pkts="):
                return int(line.split("=", 1)[1].split(",", 1)[0])
        raise RuntimeError("ovs-ofctl: no 'tx pkts' in %r" % out.stdout)


TICK_HZ = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid, tid=None):
    """utime + stime of every thread of @pid (or of its thread @tid),
    seconds (proc(5): fields 14, 15)."""
    if pid is None:
        return 0.0
    path = "/proc/%d/stat" % pid if tid is None else "/proc/%d/task/%d/stat" % (pid, tid)
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK_HZ


def thread_id(pid, name):
    """The id of @pid's thread named @name."""
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
            if f.read().strip() == name:
                return int(tid)
    raise RuntimeError("process %d has no thread named %r" % (pid, name))


def measure(source, seconds, warmup, pid, tid=None):
    """Per-second TX rates (packets/s) and CPU shares (cores) of the process
    and of thread @tid over @seconds seconds, after @warmup seconds."""
    time.sleep(warmup)
    rates, cores, tcores = [], [], []
    t0, c0, u0 = time.monotonic(), source.tx_packets(), cpu_seconds(pid)
    w0 = cpu_seconds(pid, tid) if tid else 0.0
    next_t = t0 + 1.0
    while len(rates) < seconds:
        time.sleep(max(0.0, next_t - time.monotonic()))
        t1, c1, u1 = time.monotonic(), source.tx_packets(), cpu_seconds(pid)
        w1 = cpu_seconds(pid, tid) if tid else 0.0
        rates.append((c1 - c0) / (t1 - t0))
        cores.append((u1 - u0) / (t1 - t0))
        tcores.append((w1 - w0) / (t1 - t0))
        t0, c0, u0, w0 = t1, c1, u1, w1
        next_t += 1.0
    return rates, cores, tcores


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=10, help="samples, one per second")
    ap.add_argument("--warmup", type=float, default=1.0, help="seconds before sampling")
    ap.add_argument("--pid", type=int, help="process whose CPU time to sample")
    ap.add_argument("--thread", help="also the CPU time of its thread of this name")
    sub = ap.add_subparsers(dest="source", required=True)
    t = sub.add_parser("telemetry")
    t.add_argument("socket")
    t.add_argument("port_id", type=int)
    v = sub.add_parser("vbrctl")
    v.add_argument("vbrctl")
    v.add_argument("ctl_socket")
    v.add_argument("port_name")
    o = sub.add_parser("ovs")
    o.add_argument("mgmt_socket")
    o.add_argument("port_name")
    args = ap.parse_args()

    try:
        if args.source == "telemetry":
            src = Telemetry(args.socket, args.port_id)
        elif args.source == "ovs":
            src = OvsOfctl(args.mgmt_socket, args.port_name)
        else:
            src = Vbrctl(args.vbrctl, args.ctl_socket, args.port_name)
        tid = thread_id(args.pid, args.thread) if args.thread and args.pid else None
        rates, cores, tcores = measure(src, args.seconds, args.warmup, args.pid, tid)
    except (OSError, RuntimeError, ValueError, KeyError, subprocess.SubprocessError) as e:
        print("txrate: %s" % e, file=sys.stderr)
        return 1
    print("txrate: per-second pps: " + " ".join("%.0f" % r for r in rates), file=sys.stderr)
    if args.pid is not None:
        print("txrate: per-second cores: " + " ".join("%.2f" % c for c in cores),
              file=sys.stderr)
    if tid:
        print("txrate: per-second cores of %s: " % args.thread
              + " ".join("%.2f" % c for c in tcores), file=sys.stderr)
    med = statistics.median(rates)
    if med <= 0:
        print("txrate: the TX counter did not move", file=sys.stderr)
        return 1
    if tid:
        print("%.0f %.3f %.3f" % (med, statistics.median(cores), statistics.median(tcores)))
    else:
        print("%.0f %.3f" % (med, statistics.median(cores)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
