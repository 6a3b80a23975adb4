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
# Path-selection scenarios (tests/perf/bench_pathsel.tcl, harness/ps_lab.tcl:
# two vbrds, three lines through impair, 4 planes per path, STAMP probes
# with the default settings: interval 10 ms, window 100, lost_down 3, hold
# 100 ms), all four in one pair of vbrds; BENCH_PS_FAULTS faults each (10)
# on the line of the edge's gold path, one at a time, each healed and the
# metrics settled before the next:
#   ps-blackhole  loss 100 both ways            gold's switch   (goal: <= 50 ms)
#   ps-delay60    +60 ms round trip (30 each way) gold's switch (goal: <= 300 ms)
#   ps-loss5      5 % loss each way              gold's switch   (goal: <= 300 ms)
#   ps-plane      plane 1 (UDP port 49153) dropped both ways: its plane_down,
#                 and the path must not switch                   (goal: <= 300 ms)
# printed as
#
#   bench: SCENARIO faults N/M onset-to-switch median X ms max Y ms (goal <= G ms, every fault: met|missed) reasons R
#
# onset: the wall clock just before the fault's impair (nft) command, so
# the command's own latency (CTL_MS, a few ms) is in the figure; the
# switch: the event's time_us in `vbrctl show pathsel history` (vbrd's clock
# at the decision that moved the tier).
#
# HA pair scenarios (tests/perf/bench_ha.tcl, harness/ha_lab.tcl: nodes a
# and b sharing a lease in one redis-server, h1 -> h2 through the active,
# the ha section's defaults: lease 40 ms, renew 8, guard 4, retry 2),
# both in one lab; BENCH_HA_ROUNDS takeovers each (20) under a
# BENCH_HA_PPS (2000) seqstream, the killed node restarted and the pair
# back to one active + one standby that has read the lease before the next:
#   ha-kill9  SIGKILL of the active: outage  (goal: median <= 40 ms, max <= 80 ms)
#   ha-term   SIGTERM of the active (hand-over: it gives the lease back): outage
#   ha-redis-pause  Redis SIGSTOPped 4 times for each of 5..60 ms: the
#             role changes (what the lease rides through)
#   ha-ops    (tests/tcl/test_ha_scale.tcl) a pair with 1 000 000 routes: on
#             the active show routes, -j show routes, a reload changing one
#             route, one changing 100 000, 100 clients at once; per command
#             the slowest `show stats` meanwhile and the main loop's stall
#             meter (show stats main_loop), then the stream's loss and the
#             role changes (none expected)
# kill9 and term printed as a table: the outage's median and max (max_gap_ms) and the
# goal, the same over stretches with loss only, the lease's PTTL just
# before the signal, when the lease was free on the server (a redis-cli
# MONITOR: the dead node's last renew + lease, or the release) and when
# the new active took it, show ha's last_takeover gap_ms and
# acquire_rtt_ms, and the rounds whose outage was the sender's own pause.
#
# The run directory /tmp/vbrd-tests/PREFIX keeps the per-cut figures
# (cuts.txt: SCENARIO CUT OUTAGE_MS DETECT_US LOST SENDER_PAUSE_MS STATUS),
# the per-fault figures of path selection (faults.txt: SCENARIO FAULT PATH
# MS REASON DETECT_US CTL_MS STATUS), the per-takeover figures of the HA
# pair (ha.txt: SCENARIO ROUND FROM TO OUTAGE_MS LOSS_GAP_MS PTTL_MS
# FREE_MS ACQ_MS ACTIVE_MS GAP_MS RTT_MS ATTEMPTS LOST PAUSE_MS STATUS,
# times in ms after the signal; ha-trace.txt: each takeover's lease
# operations as the server logged them), each scenario's output and vbrd
# logs, and the summary (summary.txt). Not part of make test. Environment:
#   BUILD=build                 meson build dir
#   BENCH_FO_SCENARIOS="vbrd-5ms frr-10ms dr-5ms ps-blackhole ps-delay60 ps-loss5 ps-plane ha-kill9 ha-term ha-ops"
#   BENCH_FO_CUTS=20            cuts per scenario
#   BENCH_PS_FAULTS=10          faults per path-selection scenario
#   BENCH_HA_ROUNDS=20          takeovers per HA scenario
#   BENCH_FO_PPS=10000          the stream's datagrams/s (BFD failover scenarios)
#   BENCH_HA_PPS=2000           the stream's datagrams/s (HA scenarios)
#   VBRD_TEST_PREFIX=bfo<pid>   name prefix of namespaces, veths, vbrd instances
set -uo pipefail

cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SCENARIOS=${BENCH_FO_SCENARIOS:-vbrd-5ms frr-10ms dr-5ms ps-blackhole ps-delay60 ps-loss5 ps-plane ha-kill9 ha-term ha-redis-pause ha-ops}
export BENCH_FO_CUTS=${BENCH_FO_CUTS:-20}
export BENCH_PS_FAULTS=${BENCH_PS_FAULTS:-10}
export BENCH_HA_ROUNDS=${BENCH_HA_ROUNDS:-20}
export BENCH_FO_PPS=${BENCH_FO_PPS:-10000}
export BENCH_HA_PPS=${BENCH_HA_PPS:-2000}
prefix=${VBRD_TEST_PREFIX:-bfo$(($$ % 10000))}
export VBRD_TEST_PREFIX=$prefix
export VBRD_BUILD=$BUILD
rundir=/tmp/vbrd-tests/$prefix
export BENCH_FO_OUT=$rundir/cuts.txt
export BENCH_PS_OUT=$rundir/faults.txt
export BENCH_HA_OUT=$rundir/ha.txt
export BENCH_HA_TRACE=$rundir/ha-trace.txt

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
	echo "bench: interrupted; cleaned up $prefix (figures so far in $BENCH_FO_OUT, $BENCH_PS_OUT, $BENCH_HA_OUT)" >&2
	exit 130
}
trap on_signal INT TERM

rm -rf "$rundir"
mkdir -p "$rundir"
: >"$BENCH_FO_OUT"
: >"$BENCH_PS_OUT"
: >"$BENCH_HA_OUT"
: >"$BENCH_HA_TRACE"
ps_scens=""
ha_scens=""
for scen in $SCENARIOS; do
	case $scen in
	vbrd-5ms|frr-10ms|dr-5ms) ;;
	ps-blackhole|ps-delay60|ps-loss5|ps-plane) ps_scens="$ps_scens $scen" ;;
	ha-kill9|ha-term|ha-redis-pause) ha_scens="$ha_scens $scen" ;;
	ha-ops) ;;
	*) die "unknown scenario '$scen'" ;;
	esac
done
if [ -n "$ha_scens" ]; then
	for tool in redis-server redis-cli; do
		command -v "$tool" >/dev/null || die "'$tool' missing (make deps)"
	done
fi
t0=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
ps_done=0
ha_done=0
for scen in $SCENARIOS; do
	if [ "$scen" = ha-ops ]; then
		# tests/tcl/test_ha_scale.tcl: its "ops:" notes are the figures
		echo "bench: ha-ops: an HA pair with 1 000 000 routes, operator commands on the active ..." >&2
		timeout -k 10 600 tclsh tests/tcl/run.tcl tests/tcl/test_ha_scale.tcl >"$rundir/$scen.out" 2>&1 &
	elif [ "${scen#ha-}" != "$scen" ]; then
		# every HA scenario in one lab, at the first one's turn; the
		# harness's time bound: a round takes ~3-5 s (a node's restart)
		[ "$ha_done" = 0 ] || continue
		ha_done=1
		scen=ha
		n_ha=$(echo $ha_scens | wc -w)
		echo "bench: HA pair:$ha_scens: $BENCH_HA_ROUNDS takeovers each under $BENCH_HA_PPS pps ..." >&2
		BENCH_HA_SCENARIOS="${ha_scens# }" timeout -k 10 $((120 + 15 * BENCH_HA_ROUNDS * n_ha)) \
			tclsh tests/tcl/run.tcl tests/perf/bench_ha.tcl >"$rundir/$scen.out" 2>&1 &
	elif [ "${scen#ps-}" != "$scen" ]; then
		# every path-selection scenario in one lab, at the first one's turn
		[ "$ps_done" = 0 ] || continue
		ps_done=1
		scen=pathsel
		echo "bench: path selection:$ps_scens: $BENCH_PS_FAULTS faults each ..." >&2
		BENCH_PS_SCENARIOS="${ps_scens# }" timeout -k 10 480 tclsh tests/tcl/run.tcl \
			tests/perf/bench_pathsel.tcl >"$rundir/$scen.out" 2>&1 &
	else
		echo "bench: $scen: $BENCH_FO_CUTS cuts under $BENCH_FO_PPS pps ..." >&2
		BENCH_FO_SCENARIO=$scen timeout -k 10 480 tclsh tests/tcl/run.tcl tests/perf/bench_failover.tcl \
			>"$rundir/$scen.out" 2>&1 &
	fi
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

# One line per path-selection scenario from the faults file: median and
# max onset-to-event of the measured faults (status ok or switched), the
# goal judged on every fault (the max; a fault with no event within
# BENCH_PS_WAIT_MS misses it, and so does a plane fault that moved the path), the events' reasons, and the fault
# command's median latency (part of each figure).
ps_summary() {
	awk -v wait="${BENCH_PS_WAIT_MS:-3000}" '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	{ s = $1; if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
	  if ($9 == "not_ready") { nvoid[s]++; next }
	  tot[s]++
	  if ($7 != "-") { c = ++nc[s]; ctl[s, c] = $7 }
	  if ($9 == "ok" || $9 == "switched") {
		k = ++n[s]; ms[s, k] = $4
		if (!((s, $5) in rc)) rlist[s] = rlist[s] (rlist[s] == "" ? "" : " ") $5
		rc[s, $5]++
		if ($9 == "switched") sw[s]++
	  } else none[s]++ }
	END {
		for (i = 1; i <= ns; i++) {
			s = order[i]; m = n[s] + 0
			goal = s == "ps-blackhole" ? 50 : 300
			what = s == "ps-plane" ? "onset-to-plane_down" : "onset-to-switch"
			if (m == 0) {
				printf "%s faults 0/%d %s - (goal <= %d ms, every fault: missed)", s, tot[s] + 0, what, goal
			} else {
				delete a; mx = 0
				for (k = 1; k <= m; k++) { a[k] = ms[s, k]; if (a[k] > mx) mx = a[k] }
				r = ""; split(rlist[s], rl, " ")
				for (j = 1; j in rl; j++) r = r (j > 1 ? ", " : "") rl[j] " " rc[s, rl[j]]
				printf "%s faults %d/%d %s median %.1f ms max %.1f ms (goal <= %d ms, every fault: %s) reasons %s", \
					s, m, tot[s], what, med(a, m), mx, goal, mx <= goal && m == tot[s] && !sw[s] ? "met" : "missed", r
			}
			if (none[s]) printf "; no event within %d ms: %d", wait, none[s]
			if (s == "ps-plane" && m) printf "; path switched %d of %d", sw[s] + 0, m
			if (nc[s]) { delete a; for (k = 1; k <= nc[s]; k++) a[k] = ctl[s, k]; printf "; fault command median %.1f ms (included)", med(a, nc[s]) }
			if (nvoid[s]) printf "; void (not settled): %d", nvoid[s]
			printf "\n"
		}
	}' "$BENCH_PS_OUT"
}

# The HA scenarios' table from the rounds file: the outage (max_gap_ms)
# median and max of the measured (status ok) rounds and the goal (ha-kill9:
# median <= 40 ms and max <= 80 ms, judged on every round but the void
# ones, void_*: a round without a figure misses it), the same with loss
# only, the lease's PTTL before the
# signal, the lease free on the server and the new active's acquire there
# (ms after the signal), acquire minus free, show ha's gap_ms and
# acquire_rtt_ms, and the rounds whose outage was the sender's own pause
# (its worst pause within 1 ms of the outage).
ha_summary() {
	awk '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	function mx(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	# column c of scenario s'"'"'s ok rounds into a[]; -> how many
	function col(s, c, a,   k, m) { delete a; m = 0; for (k = 1; k <= n[s]; k++) if (v[s, k, c] != "-") a[++m] = v[s, k, c]; return m }
	{ s = $1; if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
	  tot[s]++
	  if ($16 ~ /^void_/) nvoid[s]++
	  if ($16 == "ok") { k = ++n[s]; for (c = 5; c <= 15; c++) v[s, k, c] = $c
	                     v[s, k, 17] = $9 != "-" && $8 != "-" ? $9 - $8 : "-"
	                     if ($15 >= $5 - 1) paused[s]++ } }
	END {
		printf "%-9s %7s %10s %7s %-22s %10s %7s %9s %9s %8s %9s %7s %8s %7s %8s %6s %4s\n", \
			"scenario", "rounds", "outage med", "max ms", "goal", "loss med", "max", \
			"pttl med", "free med", "acq med", "free-acq", "max", "gap_ms", "max", "rtt med", "paused", "void"
		for (i = 1; i <= ns; i++) {
			s = order[i]; m = n[s] + 0
			if (m == 0) { printf "%-9s %3d/%-3d %10s\n", s, 0, tot[s], "-"; continue }
			col(s, 5, a); om = med(a, m); ox = mx(a, m)
			if (s == "ha-kill9")
				goal = (om <= 40 && ox <= 80 && m == tot[s] - nvoid[s]) ? "med<=40 max<=80 met" : "med<=40 max<=80 MISS"
			else
				goal = "(none set)"
			printf "%-9s %3d/%-3d %10.1f %7.1f %-22s", s, m, tot[s], om, ox, goal
			col(s, 6, a); printf " %10.1f %7.1f", med(a, m), mx(a, m)
			k = col(s, 7, a); printf " %9s", k ? sprintf("%.1f", med(a, k)) : "-"
			k = col(s, 8, a); printf " %9s", k ? sprintf("%.1f", med(a, k)) : "-"
			k = col(s, 9, a); printf " %8s", k ? sprintf("%.1f", med(a, k)) : "-"
			k = col(s, 17, a); printf " %9s %7s", k ? sprintf("%.1f", med(a, k)) : "-", k ? sprintf("%.1f", mx(a, k)) : "-"
			k = col(s, 11, a); printf " %8s %7s", k ? sprintf("%.1f", med(a, k)) : "-", k ? sprintf("%.1f", mx(a, k)) : "-"
			k = col(s, 12, a); printf " %8s", k ? sprintf("%.1f", med(a, k)) : "-"
			printf " %6d %4d\n", paused[s], nvoid[s]
		}
	}' "$BENCH_HA_OUT"
}

{
	echo "failover bench $(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(date +%s) - t0)) s, $(nproc) CPUs, load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end$([ -s "$BENCH_FO_OUT" ] && echo ", $BENCH_FO_PPS pps")"
	[ ! -s "$BENCH_FO_OUT" ] || summary
	if [ -n "$ps_scens" ]; then
		echo "path selection: 3 lines x 4 planes, probes every 10 ms (window 100, lost_down 3, hold 100 ms: the defaults), faults on gold's line"
		ps_summary
	fi
	if [ -n "$ha_scens" ]; then
		echo "HA pair: lease 40 ms, renew 8, guard 4, retry 2 (the ha section's defaults), $BENCH_HA_PPS pps h1 -> h2; ms after the signal: pttl (before it), free (on the server), acq (the new active's acquire there)"
		ha_summary
	fi
	if grep -q "pause: " "$rundir/ha.out" 2>/dev/null; then
		echo "HA pair, the defaults: Redis stopped (SIGSTOP) for a while, four times: the role changes of both nodes"
		sed -n 's/^ *pause: //p' "$rundir/ha.out"
	fi
	if [ -s "$rundir/ha-ops.out" ]; then
		echo "HA pair with 1 000 000 routes (lease 100 ms, renew 20, guard 10), a 1000 pps stream through the active; per operator command on the active:"
		sed -n 's/^ *ops: //p' "$rundir/ha-ops.out"
	fi
} >"$rundir/summary.txt"
sed 's/^/bench: /' "$rundir/summary.txt"
echo "bench: per-cut figures $BENCH_FO_OUT, per-fault figures $BENCH_PS_OUT, per-takeover figures $BENCH_HA_OUT (trace $BENCH_HA_TRACE), summary $rundir/summary.txt"
