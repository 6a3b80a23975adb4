#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make bench-failover: how long a silent line cut interrupts traffic, and
# how fast the failover group moves once BFD has detected it. Per
# scenario, BENCH_FO_CUTS cuts (20) of member0's line under a 10 kpps
# seqstream, each followed by a heal and the failback (revertive, hold-down
# 200 ms); prints per scenario
#
#   bench: SCENARIO cuts N/M outage median X ms max Y ms detect-to-switch median A us max B us (goal median <= G ms: met|missed) flaps F
#
# outage: the seqstream receiver's max_gap_ms of each cut (the longest
# stretch of sender time between two datagrams that got through: detection
# plus the switch, or the sender's own worst pause when that is longer);
# detect-to-switch: the switch's detect_to_switch_ns in `vbrctl show fgroup
# history` (from the BFD worker's detection to the one store that moves
# the group); N of M cuts measured: a cut is void when a session flap of
# its own had moved the group before the cut, or when no switch came
# (listed in the cuts file); flaps: BFD sessions' Down transitions during
# the scenario that the cuts did not cause (this VM stalls every process
# for 15+ ms several times a second, /work/shared/BENCH-NOTES.md).
#
# Scenarios (tests/perf/bench_failover.tcl, on the integration harness):
#   vbrd-5ms   vbrd <-> vbrd, single-hop BFD 5 ms x 3 on both two-site lines  (goal: median <= 20 ms)
#   frr-10ms   vbrd <-> FRR bfdd, 10 ms x 3 (harness/failover.tcl's lab)     (goal: median <= 40 ms)
#   dr-5ms     member0 a line, member1 the DR tunnel to the HA partner,
#              5 ms x 3 (tunnel BFD between inner addresses)                  (goal: median <= 20 ms)
#
# The run directory /tmp/vbrd-tests/PREFIX keeps the per-cut figures
# (cuts.txt: SCENARIO CUT OUTAGE_MS DETECT_US LOST SENDER_PAUSE_MS STATUS),
# each scenario's output and vbrd logs, and the summary (summary.txt).
# Not part of make test. Environment:
#   BUILD=build                 meson build dir
#   BENCH_FO_SCENARIOS="vbrd-5ms frr-10ms dr-5ms"
#   BENCH_FO_CUTS=20            cuts per scenario
#   BENCH_FO_PPS=10000          the stream's datagrams/s
#   VBRD_TEST_PREFIX=bfo<pid>   name prefix of namespaces, veths, vbrd instances
set -uo pipefail

cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SCENARIOS=${BENCH_FO_SCENARIOS:-vbrd-5ms frr-10ms dr-5ms}
export BENCH_FO_CUTS=${BENCH_FO_CUTS:-20}
export BENCH_FO_PPS=${BENCH_FO_PPS:-10000}
prefix=${VBRD_TEST_PREFIX:-bfo$(($$ % 10000))}
export VBRD_TEST_PREFIX=$prefix
export VBRD_BUILD=$BUILD
rundir=/tmp/vbrd-tests/$prefix
export BENCH_FO_OUT=$rundir/cuts.txt

die() { echo "bench: error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (network namespaces, veths, DPDK)"
for tool in tclsh ip ethtool timeout nft; do
	command -v "$tool" >/dev/null || die "'$tool' missing (make deps)"
done
[ -x "$BUILD/app/vbrd" ] || die "no $BUILD/app/vbrd (make build)"
[ -x "$BUILD/tests/tools/impair" ] || die "no $BUILD/tests/tools/impair (make build)"

# What a killed scenario left behind, of this prefix only (run.tcl's
# lab_cleanup does the same on a normal end).
# shellcheck source=tests/lab-cleanup.sh
. tests/lab-cleanup.sh
cleanup() {
	lab_cleanup_run "$prefix" "$rundir"
	return 0
}
child=
on_signal() {
	trap - INT TERM
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" 2>/dev/null
	cleanup
	echo "bench: interrupted; cleaned up $prefix (figures so far in $BENCH_FO_OUT)" >&2
	exit 130
}
trap on_signal INT TERM

rm -rf "$rundir"
mkdir -p "$rundir"
: >"$BENCH_FO_OUT"
t0=$(date +%s)
for scen in $SCENARIOS; do
	case $scen in vbrd-5ms|frr-10ms|dr-5ms) ;; *) die "unknown scenario '$scen'" ;; esac
	echo "bench: $scen: $BENCH_FO_CUTS cuts under $BENCH_FO_PPS pps ..." >&2
	BENCH_FO_SCENARIO=$scen timeout -k 10 480 tclsh tests/tcl/run.tcl tests/perf/bench_failover.tcl \
		>"$rundir/$scen.out" 2>&1 &
	child=$!
	wait "$child"
	rc=$?
	child=
	sed 's/^/bench:   /' "$rundir/$scen.out" | grep -v '^bench:   \[ok\]' >&2
	[ "$rc" -eq 0 ] || echo "bench: $scen: the harness exited with status $rc (see $rundir/$scen.out)" >&2
	cleanup
done

# One line per scenario from the cuts file: medians and maxima of the
# measured (status ok) cuts.
summary() {
	awk -v cuts="$BENCH_FO_CUTS" '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	function mx(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	/^#/ { flaps[$2] = $4; next }
	{ s = $1; if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
	  tot[s]++
	  if ($7 == "ok") { k = ++n[s]; gap[s, k] = $3; det[s, k] = $4 } }
	END {
		printf "%-9s %7s %14s %11s %18s %15s %9s %6s\n", "scenario", "cuts", "outage med ms", "max ms", "detect-switch med us", "max us", "goal ms", "flaps"
		for (i = 1; i <= ns; i++) {
			s = order[i]; m = n[s] + 0
			goal = s ~ /frr/ ? 40 : 20
			if (m == 0) { printf "%-9s %3d/%-3d %14s\n", s, 0, tot[s], "-"; continue }
			delete g; delete d
			for (k = 1; k <= m; k++) { g[k] = gap[s, k]; d[k] = det[s, k] }
			gm = med(g, m); dm = med(d, m)
			printf "%-9s %3d/%-3d %14.1f %11.1f %18.1f %15.1f %5s %s %6s\n", s, m, tot[s], gm, mx(g, m), dm, mx(d, m), "<=" goal, gm <= goal ? "met   " : "MISSED", flaps[s]
		}
	}' "$BENCH_FO_OUT"
}

{
	echo "failover bench $(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(date +%s) - t0)) s, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $BENCH_FO_PPS pps"
	summary
} >"$rundir/summary.txt"
sed 's/^/bench: /' "$rundir/summary.txt"
echo "bench: per-cut figures $BENCH_FO_OUT, summary $rundir/summary.txt"
