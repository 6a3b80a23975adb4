#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make bench: replay pcaps through vbrd and through DPDK's l3fwd, on the
# same devices, the same core and the same input, and print per scenario
#
#   bench: SCENARIO vbrd MPPS Mpps CYCLES cycles/pkt l3fwd MPPS Mpps ratio R
#
# and for the scale scenarios (issue 7), which compare vbrd with itself:
#
#   bench: ipv4-64-fib1m vbrd MPPS Mpps CYCLES cycles/pkt one-route table, same packets MPPS Mpps ratio R (target >= 0.95)
#   bench: ipv4-64-flows100k vbrd MPPS Mpps CYCLES cycles/pkt 1000 flows, same number of frames MPPS Mpps ratio R (target >= 0.85)
#
# (each against vbrd on the same replay with one route, or with 1000 flows
# in as many frames: what changes is the table or the flows, not net_pcap's
# footprint, which alone costs more cycles the larger its pcap)
#   bench: ipv4-64-2workers vbrd MPPS Mpps (1 worker MPPS Mpps) scaling raw S per-core S (target >= 1.9)
#
# and for path selection (vxlan-encap-ps-64: 3 paths x 4 planes probed
# every 10 ms, load spreading on), against vbrd's plain encap on the same
# replay, then where the difference goes (two probing-only setups):
#
#   bench: vxlan-encap-ps-64 vbrd MPPS Mpps CYCLES cycles/pkt plain encap (vxlan-encap-64), same packets MPPS Mpps ratio R (target >= 0.95)
#   bench: vxlan-encap-ps-64 where it goes: probing only (...) MPPS Mpps ratio R1 (+D1 cycles/pkt); probing with answers (...) MPPS Mpps ratio R2 (+D2 cycles/pkt); per-packet chooser (...) +D3 cycles/pkt
#
# where MPPS is the median packets/s leaving the null port, CYCLES is
# TSC Hz x busy cores / vbrd's pps, busy cores being the CPU time vbrd used
# per second (~1: one busy-polling worker; less when other work took the
# core), and R = l3fwd's cycles/pkt / vbrd's (vbrd's packets per core-second
# relative to l3fwd's; equal to the Mpps ratio on an otherwise idle core).
# See tests/perf/README.md for the method. Environment:
#   BUILD=build          meson build dir (vbrd, vbrctl, pcapgen, tsc-hz)
#   BENCH_RUNS=3         runs of each program per scenario (median of medians)
#   BENCH_SECONDS=6      one-second samples per run
#   BENCH_CORE=1         CPU of vbrd's worker and of l3fwd's lcore
#   BENCH_SCENARIOS="ipv4-64 ipv4-imix vxlan-encap-64 vxlan-encap-imix vxlan-decap
#                    vxlan-encap-ps-64 ipv4-64-fib1m ipv4-64-flows100k ipv4-64-2workers"
#                        (the ipv4-64-* ones need ipv4-64, run first)
#   BENCH_BUDGET_S=580   no run after the first of scenario k starts later
#                        than the share of this many seconds that the
#                        scenarios up to k have by their expected cost
#   BENCH_HUGEPAGES=1024 2 MiB hugepages to have free (reserved for the bench
#                        and given back when the machine has fewer); 0: run
#                        with --no-huge; ipv4-64-fib1m reserves what its FIB
#                        needs on top, for that scenario only
#   BENCH_FIB_ROUTES=1000000 BENCH_FIB_ROUTES6=200000 BENCH_FIB_PACKETS=8192
#                        ipv4-64-fib1m's table and pcap (one frame per destination)
#   BENCH_FLOWS=100000   ipv4-64-flows100k's flows (one frame each)
#   BENCH_CORE2          the second worker's CPU in ipv4-64-2workers (default:
#                        0, or 1 when BENCH_CORE is 0)
#   TSC_HZ               skip the TSC measurement
#   BENCH_INSTR=1 (with valgrind), BENCH_INSTR_S=3  also instructions per packet
#                        (callgrind) beside every ratio:
#     bench: SCENARIO instructions: vbrd V/pkt PEER P/pkt ratio P/V (callgrind, T s)[; target >= G MET|NOT MET (...)]
#                        a target is met when the instruction ratio meets it
#                        and the cycle ratio does (verdict)
#   BENCH_HUGE_WAIT_S=1800  how long to wait for another bench's hugepages
#                        (hugepages.sh: one bench at a time)
#
# Both programs run on hugepages, as in production: with --no-huge every
# mbuf access risks a TLB miss, which hides the difference between them
# (/work/shared/BENCH-NOTES.md). When the machine has fewer free hugepages
# than BENCH_HUGEPAGES, the bench raises /proc/sys/vm/nr_hugepages and sets
# it back on exit (also on failure or Ctrl-C), and mounts hugetlbfs at
# /dev/hugepages in a private mount namespace when none is mounted: other
# DPDK processes on the machine (a test suite's vbrd uses hugepages when it
# sees a mount) do not see it, so they neither take the bench's pages nor
# change mode. Without enough hugepages it runs with --no-huge. Each line
# ends with the mode the programs ran in, as read from their
# /proc/PID/smaps_rollup (Private_Hugetlb) while they ran.
set -euo pipefail

if [ "${BENCH_MOUNT_NS:-}" = "" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	export BENCH_MOUNT_NS=1
	exec unshare --mount --propagation private -- "$0" "$@"
fi

cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
RUNS=${BENCH_RUNS:-3}
SECONDS_PER_RUN=${BENCH_SECONDS:-6}
CORE=${BENCH_CORE:-1}
SCENARIOS=${BENCH_SCENARIOS:-ipv4-64 ipv4-imix vxlan-encap-64 vxlan-encap-imix vxlan-decap vxlan-encap-ps-64 ipv4-64-fib1m ipv4-64-flows100k ipv4-64-2workers}
# Seven scenarios of 2 program runs x 3 runs x (6 s + ~2.5 s of start,
# warm-up and stop), plus the 1M-route one's 3 runs with a start-up of
# several seconds and its table's generation and check, is ~7 min, and
# vxlan-encap-ps-64's 4 vbrd setups x 3 runs ~1.7 min more; the budget
# keeps the whole under 11 min on a slow day.
BUDGET_S=${BENCH_BUDGET_S:-580}
CORE2=${BENCH_CORE2:-$([ "$CORE" = 0 ] && echo 1 || echo 0)}
FIB_ROUTES=${BENCH_FIB_ROUTES:-1000000}
FIB_ROUTES6=${BENCH_FIB_ROUTES6:-200000}
FIB_PACKETS=${BENCH_FIB_PACKETS:-8192}
BIG_FLOWS=${BENCH_FLOWS:-100000}
PERF=tests/perf
PYTHON=/usr/bin/python3

# Fixed by the setup below: DPDK probes the --vdev devices in order, so the
# pcap port is port 0 and the null sink port 1; net_pcap's first port has
# the MAC 02:70:63:61:70:00. Destinations 198.18.1.0/24: l3fwd's built-in
# LPM table sends them to port 1, vbrd's route below to "out".
DUT_MAC=02:70:63:61:70:00
DST_NET=198.18.1.0/24
SRC_NET=10.0.0.0/16
FLOWS=1000
PACKETS=3000      # 3 per flow; a multiple of 12 keeps IMIX exactly 7:4:1
# Tunnel scenarios (see write_vbrd_conf). vxlan-decap's pcap comes from the
# remote 198.18.1.2 to vbrd's tunnel address 198.18.1.1: inside 198.18.1.0/24,
# so that l3fwd, routing the outer header, also sends it to the sink. Its
# inner destinations are 198.18.100.0/24, which vbrd routes to "out".
VNI=1000
ENCAP_REMOTE=192.168.100.2
ENCAP_LINE_MTU=1550
DECAP_LOCAL=198.18.1.1
DECAP_REMOTE=198.18.1.2
DECAP_INNER_NET=198.18.100.0/24
# ipv4-64-fib1m: every route via the "out" gateway; "out" also has an IPv6
# subnet for the IPv6 routes' gateway (no IPv6 traffic is sent).
OUT_ADDR6=fd00:1::1/64
VIA6=fd00:1::2
# ipv4-64-2workers: the second RX queue's pcap has other sources (other
# 5-tuples), the same destinations.
SRC_NET2=10.0.128.0/17
# no-rx=1: without it net_null's Rx invents 64-byte frames, which the router
# under test would then spend cycles on (and l3fwd would send out again).
NULL_DEV=net_null0,no-rx=1
# vxlan-encap-ps-64: path selection's probe interval (ms), and the loop
# port of its probes-answered setup: a net_ring port (one ring is both its
# TX and its RX queue: what vbrd sends on it comes back to it). DPDK
# 22.11's net_ring has the MAC 00:00:00:00:00:00, so the static neighbor
# the loop's paths go via has that MAC, and the frames come back addressed
# to the port's own MAC.
PS_INTERVAL=${BENCH_PS_INTERVAL:-10}
# BENCH_INSTR (1 when valgrind is installed): count instructions per packet
# too (instructions.sh); BENCH_INSTR_S (3): the seconds counted per program
# (vbrd's counts are the same at any length; qos_sched's within 1.5 %, OVS's a
# few %; most of a count's time is start-up under valgrind, not the count)
INSTR=${BENCH_INSTR:-$(command -v valgrind >/dev/null && echo 1 || echo 0)}
INSTR_S=${BENCH_INSTR_S:-3}
LOOP_DEV=net_ring0
LOOP_MAC=00:00:00:00:00:00

die() { echo "bench: error: $*" >&2; exit 1; }
log() { echo "bench: $*" >&2; }

find_exe() {  # first executable among the arguments
	local f
	for f in "$@"; do [ -x "$f" ] && { echo "$f"; return 0; }; done
	return 1
}

VBRD=$(find_exe "$BUILD/vbrd" "$BUILD/app/vbrd") || die "vbrd not built in $BUILD (run make build)"
VBRCTL=$(find_exe "$BUILD/vbrctl" "$BUILD/app/vbrctl") || die "vbrctl not built in $BUILD"
PCAPGEN=$(find_exe "$BUILD/pcapgen" "$BUILD/$PERF/pcapgen") || die "pcapgen not built in $BUILD"
TSCHZ_EXE=$(find_exe "$BUILD/$PERF/tsc-hz") || die "tsc-hz not built in $BUILD"
[ -x "$PYTHON" ] || die "$PYTHON missing (make deps)"
[ "$(id -u)" = 0 ] || die "run as root (DPDK needs /var/run/dpdk)"

TSC_HZ=${TSC_HZ:-$("$TSCHZ_EXE")}

TMP=$(mktemp -d /tmp/vbrd-bench.XXXXXX)
PREFIX=vbrbench$$          # EAL file prefix stem, unique per bench run
CHILD=""                   # pid of the DPDK process running now
PPS=0 CORES=0              # results of run_vbrd / run_l3fwd
HUGE_KB=0                  # hugetlb memory the last program used, kB

# ---- hugepages ---------------------------------------------------------------

WANT_PAGES=${BENCH_HUGEPAGES:-1024}
MIN_PAGES=256              # 512 MiB: what one program needs, with room

# meminfo, huge_setup, huge_ensure, huge_raise, huge_lower, huge_restore, huge_kb
# shellcheck source=tests/perf/hugepages.sh
. "$PERF/hugepages.sh"

# EAL options of the mode: hugepage files unlinked once mapped (--huge-unlink),
# so that each run's pages go back when it exits; else 512 MiB of plain memory.
eal_mem_args() {
	if [ "$MODE" = hugepages ]; then echo "--huge-unlink"; else echo "--no-huge -m 512"; fi
}

# The program just measured must have run in MODE: a figure from the other
# mode would be mislabelled.
check_mode() {  # check_mode PROGRAM
	if [ "$MODE" = hugepages ] && [ "$HUGE_KB" -eq 0 ]; then
		die "$1 did not use hugepages although they were available (see $TMP)"
	fi
	if [ "$MODE" = no-huge ] && [ "$HUGE_KB" -gt 0 ]; then
		die "$1 used ${HUGE_KB} kB of hugepages in no-huge mode"
	fi
}

stop_child() {  # stop $CHILD with SIGTERM (SIGINT for l3fwd), SIGKILL after 10 s
	local sig=${1:-TERM}
	[ -n "$CHILD" ] || return 0
	kill -"$sig" "$CHILD" 2>/dev/null || true
	for _ in $(seq 100); do
		kill -0 "$CHILD" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$CHILD" 2>/dev/null; then
		log "pid $CHILD did not stop on SIG$sig in 10 s; killing it"
		kill -KILL "$CHILD" 2>/dev/null || true
	fi
	wait "$CHILD" 2>/dev/null || true
	CHILD=""
}

cleanup() {  # on failure the configs and logs stay for a look
	local rc=$?
	stop_child TERM
	huge_restore
	rm -rf /var/run/dpdk/"$PREFIX"-*
	if [ "$rc" = 0 ]; then
		rm -rf "$TMP"
	else
		rm -f "$TMP"/*.pcap "$TMP"/fib-routes.conf   # big; the configs and logs stay
		echo "bench: configs and logs kept in $TMP" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail_child() {  # the process under test misbehaved: say why, show its log
	local what=$1 logf=$2
	echo "bench: error: $what" >&2
	echo "---- error lines of $logf" >&2
	grep -iE 'error|fail|cannot|invalid|cause' "$logf" | tail -10 >&2 || true
	echo "---- last lines of $logf" >&2
	tail -15 "$logf" >&2 || true
	exit 1
}

# ---- vbrd --------------------------------------------------------------------

write_vbrd_conf() {  # write_vbrd_conf FILE INSTANCE SOCKET KIND IN_DEVARGS CORES MBUFS [EXTRA]
	# KIND: route, encap, decap, fib; CORES: the workers' CPUs ("1", "0, 1");
	# MBUFS: mempool.mbufs; EXTRA: more settings at the end (bench-qos.sh:
	# an @include of its qos section). eal.memory_mb is 512, or what
	# --check-config says the config needs when that is more.
	local kind=$4 out_mtu="" in_addr='address = "10.0.0.254/16";'
	local tunnels="" route='via = "10.1.0.2";' out_addr='address = "10.1.0.1/24";'
	local routes neigh6="" need=512 rxq loop_port="" loop_iface="" loop_neigh=""
	# one RX queue per rx_pcap file of net_pcap (each replays its own)
	rxq=$(grep -o 'rx_pcap=' <<<"$5" | wc -l)
	case $kind in
	route) ;;
	encap)
		# The route points at a path group whose one path is a VXLAN
		# tunnel out of "out" via 10.1.0.2 (the static neighbor below).
		# Underlay MTU 1550: the 1500-byte packets of IMIX's 1518-byte
		# frames fit the tunnel's inner MTU (1550 - 50) unfragmented,
		# as RFC 7348 §4.3 asks of a VXLAN deployment.
		out_mtu="mtu = $ENCAP_LINE_MTU;"
		route='path_group = "region";'
		tunnels="tunnels = (
  { name = \"to-region\"; type = \"vxlan\"; vni = $VNI; local = \"10.1.0.1\"; remote = \"$ENCAP_REMOTE\"; }
);
path_groups = (
  { name = \"region\"; paths = (
      { name = \"line\"; tunnel = \"to-region\"; interface = \"out\"; via = \"10.1.0.2\"; } ); }
);" ;;
	encap-ps|encap-psprobe|encap-psloop)
		# vxlan-encap-ps-64: the encap scenario's tunnel, but its group
		# "region" has 3 paths x 4 planes on "out" (distinct outer
		# source ports: planes 0-3, 4-7, 8-11), probed every 10 ms by
		# path selection, with load spreading (encap-ps: the fast path's
		# bursts through pathsel_choose_burst) or without it (encap-psprobe: the
		# group stays on the fast path, only the probing costs). No
		# remote answers on net_null: every plane goes hard down.
		# encap-psloop: the data take encap's one-path group; the
		# probed group "probed" is on "loop", a net_ring port whose TX
		# comes back on its own RX, and tunnel "back" (local = the
		# tunnel's remote) makes vbrd the remote: it reflects its own
		# probes (RFC 8762 session-reflector) and gets the replies, so
		# every plane is up and the probing runs in full.
		out_mtu="mtu = $ENCAP_LINE_MTU;"
		route='path_group = "region";'
		local pg=region pline=out spread=false
		case $kind in
		encap-ps) spread=true ;;
		encap-psloop)
			pg=probed pline=loop
			# the neighbor "10.2.0.2" is vbrd itself: its frames
			# must come back addressed to the ring port's MAC
			loop_port=",
  { name = \"loop\"; devargs = \"$LOOP_DEV\"; rx_queues = 1; $out_mtu }"
			loop_iface=",
  { name = \"loop\"; port = \"loop\"; address = \"10.2.0.1/24\"; $out_mtu }"
			loop_neigh=",
  { interface = \"loop\"; address = \"10.2.0.2\"; mac = \"$LOOP_MAC\"; }" ;;
		esac
		tunnels="tunnels = (
  { name = \"to-region\"; type = \"vxlan\"; vni = $VNI; local = \"10.1.0.1\"; remote = \"$ENCAP_REMOTE\"; }$([ "$kind" != encap-psloop ] || echo ",
  { name = \"back\"; type = \"vxlan\"; vni = $VNI; local = \"$ENCAP_REMOTE\"; remote = \"10.1.0.1\"; }")
);
path_groups = ($([ "$kind" != encap-psloop ] || echo "
  { name = \"region\"; paths = (
      { name = \"line\"; tunnel = \"to-region\"; interface = \"out\"; via = \"10.1.0.2\"; } ); },
  { name = \"back\"; paths = (
      { name = \"back\"; tunnel = \"back\"; interface = \"loop\"; via = \"10.2.0.2\"; } ); },")
  { name = \"$pg\"; paths = (
      { name = \"p1\"; tunnel = \"to-region\"; interface = \"$pline\"; via = \"10.$([ $pline = out ] && echo 1 || echo 2).0.2\"; cost = 30; tier = \"gold\"; plane = 0; planes = 4; },
      { name = \"p2\"; tunnel = \"to-region\"; interface = \"$pline\"; via = \"10.$([ $pline = out ] && echo 1 || echo 2).0.2\"; cost = 20; tier = \"silver\"; plane = 4; planes = 4; },
      { name = \"p3\"; tunnel = \"to-region\"; interface = \"$pline\"; via = \"10.$([ $pline = out ] && echo 1 || echo 2).0.2\"; cost = 10; tier = \"bronze\"; plane = 8; planes = 4; } ); }
);
pathsel = {
  groups = ( { path_group = \"$pg\"; interval = $PS_INTERVAL; spread = $spread; } );
};" ;;
	decap)
		# The tunnel's local address is on "in", inside l3fwd's
		# 198.18.1.0/24 (so l3fwd sends the outer packets to the sink);
		# the inner destinations are routed as in "route".
		in_addr="addresses = [ \"10.0.0.254/16\", \"$DECAP_LOCAL/24\" ];"
		tunnels="tunnels = (
  { name = \"from-region\"; type = \"vxlan\"; vni = $VNI; local = \"$DECAP_LOCAL\"; remote = \"$DECAP_REMOTE\"; }
);" ;;
	fibsmall) ;;  # ipv4-64-fib1m's packets through a one-route table
	fib)
		# "out" also has an IPv6 subnet, for the IPv6 routes' gateway.
		out_addr="addresses = [ \"10.1.0.1/24\", \"$OUT_ADDR6\" ];"
		neigh6=",
  { interface = \"out\"; address = \"$VIA6\"; mac = \"02:00:00:00:00:02\"; }" ;;
	*) die "write_vbrd_conf: unknown kind '$kind'" ;;
	esac
	if [ "$kind" = fib ]; then
		# pcapgen fib's routes list, next to this file (vbrd resolves
		# @include in the top file's directory)
		routes='@include "fib-routes.conf"'
	elif [ "$kind" = fibsmall ]; then
		routes="routes = (
  { prefix = \"0.0.0.0/0\"; $route }
);"
	else
		routes="routes = (
  { prefix = \"198.18.0.0/16\"; $route }
);"
	fi
	while :; do
		cat >"$1" <<EOF
# generated by tests/perf/bench.sh ($kind)
instance = "$2";
control = { socket = "$3"; };
ports = (
  { name = "in";  devargs = "$5"; rx_queues = $rxq; },
  { name = "out"; devargs = "$NULL_DEV"; rx_queues = 1; $out_mtu }$loop_port
);
interfaces = (
  { name = "in";  port = "in";  $in_addr },
  { name = "out"; port = "out"; $out_addr $out_mtu }$loop_iface
);
$tunnels
$routes
# net_null answers no ARP: the gateway's MAC is fixed.
neighbors = (
  { interface = "out"; address = "10.1.0.2"; mac = "02:00:00:00:00:02"; }$neigh6$loop_neigh
);
workers = { cores = [ $6 ]; burst = 32; idle_sleep_us = 0; };
mempool = { mbufs = $7; cache = 256; };
eal     = { hugepages = $([ "$MODE" = hugepages ] && echo true || echo false); memory_mb = $need; };
${8:-}
EOF
		"$VBRD" --check-config "$1" >"$1.check" 2>&1 && break
		# "FILE:LINE: eal.memory_mb: ... it needs at least N MiB (...)":
		# once more with N
		if [ "$need" = 512 ] && grep -q 'eal.memory_mb: .*it needs at least [0-9]* MiB' "$1.check"; then
			need=$(sed -n 's/.*it needs at least \([0-9]*\) MiB.*/\1/p' "$1.check" | head -1)
			mv "$1.check" "$1.check512"   # has the breakdown of the need
			continue
		fi
		cat "$1.check" >&2
		! grep -q 'larger than' "$1.check" ||
			log "vbrd's limit on the size of its config files (core/config_include.h) is below this table's; BENCH_FIB_ROUTES and BENCH_FIB_ROUTES6 make it smaller"
		die "the generated vbrd config $1 does not load"
	done
}

declare -A INST            # vbrd's instance (EAL file prefix) per config tag
NCONF=0
instr_of() {  # instr_of TAG: vbrd's instructions/pkt on $TMP/vbrd-TAG.conf (callgrind); the full output in $TMP/instr-TAG.out
	INSTR_STAGES=$PERF/stages.map BUILD=$BUILD "$PERF/instructions.sh" \
		"$TMP/vbrd-$1.conf" "$INSTR_S" >"$TMP/instr-$1.out" 2>"$TMP/instr-$1.err" ||
		die "instructions.sh failed on $1: $(tail -3 "$TMP/instr-$1.err")"
	sed -n 's/^instructions: \([0-9.]*\) per packet.*/\1/p' "$TMP/instr-$1.out"
}

instr_l3fwd() {  # instr_l3fwd SCENARIO PCAP: l3fwd's instructions/pkt (callgrind, no hugepages); output in $TMP/instr-l3fwd-SCENARIO.out
	# l3fwd sends each full burst of 32 in one rte_eth_tx_burst (infinite
	# replay: every RX burst is full); Debian's DPDK .so files have no
	# symbol for net_null's free
	INSTR_PACKETS_FN=rte_eth_tx_burst,32 BUILD=$BUILD "$PERF/instructions.sh" --cmd "l3fwd-$1" "$INSTR_S" "entering main loop" -- \
		"$L3FWD" --no-huge -m 512 --no-pci --file-prefix "$PREFIX-li" -l "$CORE" \
		--vdev "net_pcap0,rx_pcap=$2,infinite_rx=1" --vdev "$NULL_DEV" -- \
		-p 0x3 --config="(0,0,$CORE),(1,0,$CORE)" --parse-ptype \
		>"$TMP/instr-l3fwd-$1.out" 2>"$TMP/instr-l3fwd-$1.err" ||
		die "instructions.sh failed on l3fwd $1: $(tail -3 "$TMP/instr-l3fwd-$1.err")"
	rm -rf "/var/run/dpdk/$PREFIX-li"
	sed -n 's/^instructions: \([0-9.]*\) per packet.*/\1/p' "$TMP/instr-l3fwd-$1.out"
}

# verdict TARGET INSTR_RATIO CYCLE_RATIO: "target >= T MET|NOT MET (instructions
# meet it|short, cycles meet it|short)". Issue 26: a target is met when the
# instruction ratio meets it and the cycle ratio (median of the runs) does;
# each is compared as printed (instructions 3 decimals, cycles 2). An
# INSTR_RATIO that is not a number (n/a) judges nothing: "NOT JUDGED".
verdict() {
	awk -v g="$1" -v i="$2" -v c="$3" 'BEGIN {
		ci = sprintf("%.2f", c) + 0 >= g + 0
		if (i !~ /^[0-9.]+$/) {
			printf "target >= %s NOT JUDGED (instructions n/a, cycles %s)", g, ci ? "meet it" : "short"
			exit
		}
		ii = sprintf("%.3f", i) + 0 >= g + 0
		printf "target >= %s %s (instructions %s, cycles %s)", g, (ii && ci) ? "MET" : "NOT MET",
			ii ? "meet it" : "short", ci ? "meet it" : "short" }'
}

vbrd_conf() {  # vbrd_conf TAG KIND IN_DEVARGS CORES MBUFS [EXTRA]: write and check $TMP/vbrd-TAG.conf
	# instance names have at most 31 characters: a number, not the tag
	NCONF=$((NCONF + 1))
	INST[$1]=$PREFIX-v$NCONF
	write_vbrd_conf "$TMP/vbrd-$1.conf" "${INST[$1]}" "$TMP/$1.sock" "$2" "$3" "$4" "$5" "${6:-}"
}

run_vbrd() {  # run_vbrd TAG RUN KIND [START_S] -> PPS (median packets/s), CORES (median busy cores)
	# runs vbrd on $TMP/vbrd-TAG.conf (vbrd_conf), waiting at most START_S
	# (default 15) seconds for its control socket
	local tag=$1 run=$2 kind=$3 start_s=${4:-15} inst=${INST[$1]}
	local conf=$TMP/vbrd-$1.conf sock=$TMP/$1.sock
	local logf=$TMP/vbrd-$1-$2.log res mac t0
	huge_ensure
	# shellcheck disable=SC2046
	"$VBRD" -c "$conf" -- $([ "$MODE" = hugepages ] && eal_mem_args) >"$logf" 2>&1 &
	CHILD=$! t0=$(date +%s.%N)
	for _ in $(seq $((start_s * 10))); do
		kill -0 "$CHILD" 2>/dev/null || fail_child "vbrd exited during start-up ($conf)" "$logf"
		"$VBRCTL" -s "$sock" -j show ports >/dev/null 2>&1 && break
		sleep 0.1
	done
	"$VBRCTL" -s "$sock" -j show ports >"$TMP/ports.json" 2>&1 ||
		fail_child "vbrd's control socket $sock did not answer within $start_s s" "$logf"
	[ "$start_s" -le 15 ] ||
		log "$tag run $run: vbrd answered $(awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", t1 - t0 }') s after its start"
	mac=$($PYTHON -c 'import json,sys; print(next(p["mac"] for p in json.load(open(sys.argv[1]))["ports"] if p["name"]=="in").lower())' "$TMP/ports.json") || mac='?'
	[ "$mac" = "$DUT_MAC" ] || log "warning: port 'in' has MAC $mac, the pcap is addressed to $DUT_MAC"
	res=$($PYTHON "$PERF/txrate.py" --seconds "$SECONDS_PER_RUN" --pid "$CHILD" \
		vbrctl "$VBRCTL" "$sock" out 2>"$TMP/txrate.err") ||
		{ cat "$TMP/txrate.err" >&2; "$VBRCTL" -s "$sock" show stats >&2 || true
		  fail_child "vbrd forwarded nothing to port 'out' in $tag" "$logf"; }
	sed 's/^/bench:   vbrd  /' "$TMP/txrate.err" >&2
	HUGE_KB=$(huge_kb "$CHILD")
	[ "$start_s" -le 15 ] || log "$tag run $run: vbrd holds $((HUGE_KB / 1024)) MiB of hugepages"
	check_mode vbrd
	# Every frame of the pcap is valid and routed: any drop is a bug (or a
	# wrong setup) that would make the figure meaningless. In the tunnel
	# scenarios the tunnel must have carried the packets (encap: its TX,
	# decap: its RX), or the figure is of something else.
	# shellcheck disable=SC2015  # a failed read or check only loses the warnings
	: >"$TMP/drops.txt"
	"$VBRCTL" -s "$sock" -j show stats >"$TMP/stats.json" 2>/dev/null &&
	"$VBRCTL" -s "$sock" -j show tunnels >"$TMP/tunnels.json" 2>/dev/null &&
	$PYTHON - "$TMP/stats.json" "$TMP/tunnels.json" "$kind" <<'PY' >&2 || true
import json, sys
st = json.load(open(sys.argv[1]))
drops = {k: v for k, v in st["drops"].items() if v}
# qos-starved (bench-qos.sh): the starved queues' excess is tail-dropped
# (drop reason queue_full of feature qos)
expected = {"queue_full"} if sys.argv[3] == "qos-starved" else set()
if drops and set(drops) <= expected:
    print("bench:   vbrd  dropped %d of %d packets, as the scenario must: %s"
          % (st["drops_total"], st["rx_packets"], drops))
elif drops:
    print("bench: warning: vbrd dropped %d of %d packets: %s"
          % (st["drops_total"], st["rx_packets"], drops))
    with open(sys.argv[1].replace("stats.json", "drops.txt"), "w") as f:
        f.write("dropped %.0f %% of its packets (%s)\n" % (100.0 * st["drops_total"] / max(st["rx_packets"], 1),
                ", ".join("%s %d" % kv for kv in sorted(drops.items(), key=lambda kv: -kv[1]))))
workers = st.get("workers", [])
if len(workers) > 1:
    print("bench:   vbrd  rx_packets per worker: %s"
          % " ".join("%d (%d queues)" % (w["rx_packets"], w["rx_queues"]) for w in workers))
    if min(w["rx_packets"] for w in workers) == 0:
        print("bench: warning: a vbrd worker received nothing")
kind = sys.argv[3]
if kind.startswith("encap") or kind == "decap":
    key = "rx_packets" if kind == "decap" else "tx_packets"
    carried = sum(t[key] for t in json.load(open(sys.argv[2]))["tunnels"])
    print("bench:   vbrd  forwarded %d, tunnel %s %d" % (st["forwarded"], key, carried))
    # read one after the other while the worker runs: allow a little skew
    if carried < st["forwarded"] * 0.99:
        print("bench: warning: vbrd's tunnel %s (%d) is below its forwarded count (%d): "
              "packets took another way" % (key, carried, st["forwarded"]))
PY
	# vxlan-encap-ps-64: what path selection made of the probes
	if [ "${kind#encap-ps}" != "$kind" ]; then
		# shellcheck disable=SC2015
		"$VBRCTL" -s "$sock" -j show pathsel >"$TMP/paths.json" 2>/dev/null &&
		$PYTHON - "$TMP/paths.json" <<'PY' >&2 || true
import json, sys
for g in json.load(open(sys.argv[1]))["path_groups"]:
    print("bench:   vbrd  path selection %s: healthy planes %s, gold %s, %d decisions"
          % (g["name"], " ".join("%s:%d" % (p["name"], p["healthy_planes"]) for p in g["paths"]),
             g["gold"] or "-", g["decisions"]))
PY
	fi
	stop_child TERM
	rm -rf "/var/run/dpdk/$inst"
	read -r PPS CORES <<<"$res"
	DROPS=$(cat "$TMP/drops.txt" 2>/dev/null)
}

# ---- l3fwd -------------------------------------------------------------------

run_l3fwd() {  # run_l3fwd SCENARIO PCAP RUN -> PPS (median packets/s), CORES (median busy cores)
	local scen=$1 pcap=$2 run=$3 pfx="$PREFIX-l$3"
	local logf=$TMP/l3fwd-$scen-$run.log res
	local tsock=/var/run/dpdk/$pfx/dpdk_telemetry.v2
	huge_ensure
	# One lcore (the main one) on $CORE polls both ports; --parse-ptype
	# because virtual devices set no packet type.
	# shellcheck disable=SC2046
	"$L3FWD" $(eal_mem_args) --no-pci --file-prefix "$pfx" -l "$CORE" \
		--vdev "net_pcap0,rx_pcap=$pcap,infinite_rx=1" --vdev "$NULL_DEV" -- \
		-p 0x3 --config="(0,0,$CORE),(1,0,$CORE)" --parse-ptype >"$logf" 2>&1 &
	CHILD=$!
	for _ in $(seq 150); do
		kill -0 "$CHILD" 2>/dev/null || fail_child "l3fwd exited during start-up" "$logf"
		[ -S "$tsock" ] && grep -q "entering main loop" "$logf" && break
		sleep 0.1
	done
	grep -q "entering main loop" "$logf" || fail_child "l3fwd did not start within 15 s" "$logf"
	res=$($PYTHON "$PERF/txrate.py" --seconds "$SECONDS_PER_RUN" --pid "$CHILD" \
		telemetry "$tsock" 1 2>"$TMP/txrate.err") ||
		{ cat "$TMP/txrate.err" >&2; fail_child "l3fwd forwarded nothing to port 1 in $scen" "$logf"; }
	sed 's/^/bench:   l3fwd /' "$TMP/txrate.err" >&2
	HUGE_KB=$(huge_kb "$CHILD")
	check_mode l3fwd
	stop_child INT   # l3fwd quits cleanly on SIGINT/SIGTERM
	rm -rf "/var/run/dpdk/$pfx"
	read -r PPS CORES <<<"$res"
}

cycles() {  # cycles PPS CORES -> TSC cycles per packet: TSC Hz x busy cores / pps
	awk -v p="$1" -v c="$2" -v hz="$TSC_HZ" 'BEGIN { printf "%.0f\n", hz * c / p }'
}

median() {  # median of the arguments
	printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {
		if (NR % 2) print v[(NR+1)/2]; else printf "%.0f\n", (v[NR/2]+v[NR/2+1])/2 }'
}

mbufs_for() {  # mempool.mbufs for pcaps of N frames in all: net_pcap's infinite_rx
	# keeps every frame of its files in an mbuf of the port's pool
	local n=16383
	while [ "$n" -lt $(($1 + 16383)) ]; do n=$((n * 2 + 1)); done
	echo "$n"
}

pcap_flows() {  # pcap_flows OUT SIZE [pcapgen options]: flows pcap to $DST_NET from $SRC_NET
	local out=$1 size=$2
	shift 2
	"$PCAPGEN" flows "$out" --flows $FLOWS --packets $PACKETS --size "$size" \
		--dst-mac $DUT_MAC --dst-net $DST_NET --src-net $SRC_NET "$@" 2>/dev/null ||
		die "pcapgen failed for $out"
}

pcap_decap() {  # pcap_decap OUT: VXLAN from the region to vbrd, 64-byte inner frames in 114-byte outer ones
	"$PCAPGEN" vxlan "$1" --flows $FLOWS --packets $PACKETS --size 64 \
		--vni $VNI --outer-src $DECAP_REMOTE --outer-dst $DECAP_LOCAL \
		--dst-mac $DUT_MAC --dst-net $DECAP_INNER_NET --src-net $SRC_NET 2>/dev/null ||
		die "pcapgen failed for $1"
}

# bench-qos.sh and bench-ovs.sh source this file for what is above (settings,
# hugepages, vbrd's configs and runs, pcaps, cleanup) and runs its own scenarios.
if (return 0 2>/dev/null); then
	return 0
fi

# ---- scenarios ---------------------------------------------------------------

"$PERF/build-l3fwd.sh" "$BUILD" || die "could not build l3fwd"
L3FWD=$BUILD/l3fwd

# The scale scenarios of issue 7 compare vbrd with its own ipv4-64 figure
# of the same bench run: ipv4-64 runs first whenever one of them is chosen.
SCALE_SCENARIOS="ipv4-64-fib1m ipv4-64-flows100k ipv4-64-2workers"
ALL_SCENARIOS="ipv4-64 ipv4-imix vxlan-encap-64 vxlan-encap-imix vxlan-decap vxlan-encap-ps-64 $SCALE_SCENARIOS"
for scen in $SCENARIOS; do
	grep -qw -- "$scen" <<<"$ALL_SCENARIOS" ||
		die "unknown scenario '$scen' (${ALL_SCENARIOS// /, })"
done

# Expected cost of one run of a scenario, seconds: the time budget is
# shared out by it.
run_cost() {
	case $1 in
	ipv4-64-fib1m) echo $((2 * SECONDS_PER_RUN + 6 + FIB_ROUTES / 200000)) ;;  # start-up
	vxlan-encap-ps-64) echo $((4 * SECONDS_PER_RUN + 10)) ;;                   # four vbrd setups
	*) echo $((2 * SECONDS_PER_RUN + 5)) ;;                                   # two programs
	esac
}

huge_setup
huge_mode_text
START=$(date +%s)
log "TSC $TSC_HZ Hz, core $CORE, $RUNS run(s) x $SECONDS_PER_RUN s per program and scenario, $MODE_TEXT"
RESULTS=()
COST_ALL=0
for scen in $SCENARIOS; do COST_ALL=$((COST_ALL + $(run_cost "$scen"))); done
COST_DONE=0
BASE_PPS="" BASE_CY=""    # vbrd's ipv4-64 figures of this run
for scen in $SCENARIOS; do
	# Scenario k gets the budget up to its share by cost: a slow start
	# costs every scenario a run or two alike, not the last ones all.
	COST_DONE=$((COST_DONE + $(run_cost "$scen")))
	scen_budget=$(( BUDGET_S * COST_DONE / COST_ALL ))
	pcap=$TMP/$scen.pcap
	in_dev="net_pcap0,rx_pcap=$pcap,infinite_rx=1" alt_dev="" altkind=""
	peer=l3fwd start_s=15 frames=$PACKETS   # frames: in all the pcaps of "in"
	case $scen in
	ipv4-64)          kind=route; pcap_flows "$pcap" 64 ;;
	ipv4-imix)        kind=route; pcap_flows "$pcap" imix ;;
	vxlan-encap-64)   kind=encap; pcap_flows "$pcap" 64 ;;
	vxlan-encap-imix) kind=encap; pcap_flows "$pcap" imix ;;
	vxlan-encap-ps-64)
		# path selection (3 paths x 4 planes, probes every PS_INTERVAL
		# ms) with load spreading, against plain encap (vxlan-encap-64's
		# config) on the same replay, and the two probing-only setups
		# that say where the difference goes (write_vbrd_conf)
		kind=encap-ps peer=ps what="plain encap (vxlan-encap-64), same packets" target=0.95
		pcap_flows "$pcap" 64 ;;
	vxlan-decap)
		kind=decap
		pcap_decap "$pcap" ;;
	ipv4-64-fib1m)
		# FIB_ROUTES IPv4 + FIB_ROUTES6 IPv6 routes via the "out"
		# gateways; FIB_PACKETS 64-byte frames, one per destination,
		# spread over the IPv4 routes.
		kind=fib peer=alt altkind=fibsmall what="one-route table, same packets" target=0.95 start_s=60 frames=$FIB_PACKETS
		log "$scen: generating $FIB_ROUTES IPv4 + $FIB_ROUTES6 IPv6 routes"
		"$PCAPGEN" fib "$pcap" --conf "$TMP/fib-routes.conf" --routes "$FIB_ROUTES" \
			--routes6 "$FIB_ROUTES6" --via 10.1.0.2 --via6 $VIA6 --packets "$FIB_PACKETS" \
			--size 64 --dst-mac $DUT_MAC --src-net $SRC_NET \
			>"$TMP/fib.out" 2>"$TMP/fib.err" || { cat "$TMP/fib.err" >&2; die "pcapgen fib failed"; }
		sed 's/^pcapgen: /bench:   /' "$TMP/fib.err" >&2 ;;
	ipv4-64-flows100k)
		# BIG_FLOWS flows, one frame each, over the small table's /16;
		# against FLOWS flows in as many frames (the same replay
		# footprint for net_pcap, whose cost grows with its pcap)
		kind=route peer=alt altkind=route what="$FLOWS flows, same number of frames" target=0.85 frames=$BIG_FLOWS
		"$PCAPGEN" flows "$pcap" --flows "$BIG_FLOWS" --packets "$BIG_FLOWS" --size 64 \
			--dst-mac $DUT_MAC --dst-net 198.18.0.0/16 --src-net $SRC_NET 2>/dev/null ||
			die "pcapgen failed for $scen"
		"$PCAPGEN" flows "$TMP/$scen-few.pcap" --flows "$FLOWS" --packets "$BIG_FLOWS" --size 64 \
			--dst-mac $DUT_MAC --dst-net 198.18.0.0/16 --src-net $SRC_NET 2>/dev/null ||
			die "pcapgen failed for $scen"
		alt_dev="net_pcap0,rx_pcap=$TMP/$scen-few.pcap,infinite_rx=1" ;;
	ipv4-64-2workers)
		# one net_pcap port, two RX queues (one rx_pcap each: net_pcap
		# has no RSS), one worker per queue; against one worker polling
		# both queues. Each worker has its own TX queue on "out".
		kind=route peer=1worker frames=$((2 * PACKETS))
		pcap_flows "$pcap" 64
		pcap_flows "$TMP/$scen-2.pcap" 64 --src-net $SRC_NET2
		in_dev="net_pcap0,rx_pcap=$pcap,rx_pcap=$TMP/$scen-2.pcap,infinite_rx=1" ;;
	esac
	[ "$peer" != ipv4-64 ] || [ -n "$BASE_CY" ] || die "$scen: no ipv4-64 figure to compare with"
	if [ "$peer" = alt ]; then
		vbrd_conf "$scen" "$kind" "$in_dev" "$CORE" "$(mbufs_for "$frames")"
		vbrd_conf "$scen-alt" "$altkind" "${alt_dev:-$in_dev}" "$CORE" "$(mbufs_for "$frames")"
	elif [ "$peer" = ps ]; then
		vbrd_conf "$scen" "$kind" "$in_dev" "$CORE" "$(mbufs_for "$frames")"
		vbrd_conf "$scen-plain" encap "$in_dev" "$CORE" "$(mbufs_for "$frames")"
		vbrd_conf "$scen-probe" encap-psprobe "$in_dev" "$CORE" "$(mbufs_for "$frames")"
		vbrd_conf "$scen-loop" encap-psloop "$in_dev" "$CORE" "$(mbufs_for "$frames")"
	elif [ "$peer" = 1worker ]; then
		vbrd_conf "$scen" "$kind" "$in_dev" "$CORE, $CORE2" "$(mbufs_for "$frames")"
		vbrd_conf "$scen-1w" "$kind" "$in_dev" "$CORE" "$(mbufs_for "$frames")"
	else
		vbrd_conf "$scen" "$kind" "$in_dev" "$CORE" "$(mbufs_for "$frames")"
	fi
	if [ "$kind" = fib ]; then
		# Hugepages for what start-up allocates: the config's need less
		# the second forwarding state, which only a reload builds
		# ("FIB and FIB6 N x 2 for a reload", pipeline/mem.c), plus
		# 256 MiB; the whole need when the message does not say so.
		need=$(sed -n 's/.*needs \([0-9]*\) of [0-9]* MiB.*/\1/p' "$TMP/vbrd-$scen.conf.check")
		[ -n "$need" ] || die "$scen: vbrd --check-config printed no 'needs N of M MiB'"
		log "$scen: vbrd --check-config: $(cat "$TMP/vbrd-$scen.conf.check")"
		fib=$(sed -n 's/.*FIB and FIB6 \([0-9]*\) x 2 .*/\1/p' "$TMP/vbrd-$scen.conf.check512" 2>/dev/null) || fib=""
		if [ "$MODE" = hugepages ]; then
			fib_pages=$(( (need - ${fib:-0} + 256 + 1) / 2 ))
			log "$scen: reserving $fib_pages hugepages ($need MiB needed${fib:+, less $fib MiB for a reload})"
			huge_raise "$fib_pages"
			[ "$(meminfo HugePages_Free)" -ge "$fib_pages" ] ||
				die "$scen needs $fib_pages free 2 MiB hugepages for its ${need} MiB, only $(meminfo HugePages_Free) could be had"
		fi
	fi
	v=() vc=() l=() lc=() pr=() prc=() lo=() loc=() vdrops=""
	for run in $(seq "$RUNS"); do
		if [ "$run" -gt 1 ] && [ $(( $(date +%s) - START )) -gt "$scen_budget" ]; then
			log "time budget reached: $scen stops after $((run - 1)) run(s)"
			break
		fi
		run_vbrd "$scen" "$run" "$kind" "$start_s"
		v+=("$PPS") vc+=("$(cycles "$PPS" "$CORES")")
		[ -z "$DROPS" ] || vdrops="run $run: $DROPS"
		# Alternate the two programs (or vbrd's two setups) so that
		# noise from other work on the machine hits both alike. The
		# scenarios compared with ipv4-64 use its figures instead.
		case $peer in
		l3fwd)   run_l3fwd "$scen" "$pcap" "$run" ;;
		1worker) run_vbrd "$scen-1w" "$run" "$kind" ;;
		alt)     run_vbrd "$scen-alt" "$run" "$altkind" ;;
		ps)
			run_vbrd "$scen-probe" "$run" encap-psprobe
			pr+=("$PPS") prc+=("$(cycles "$PPS" "$CORES")")
			run_vbrd "$scen-loop" "$run" encap-psloop
			lo+=("$PPS") loc+=("$(cycles "$PPS" "$CORES")")
			log "$scen run $run: probing only ${pr[-1]} pps ${prc[-1]} cycles/pkt, probes answered ${lo[-1]} pps ${loc[-1]} cycles/pkt"
			run_vbrd "$scen-plain" "$run" encap ;;
		*)       PPS=$BASE_PPS CORES="" ;;
		esac
		if [ -n "$CORES" ]; then
			l+=("$PPS") lc+=("$(cycles "$PPS" "$CORES")")
			log "$scen run $run: vbrd ${v[-1]} pps ${vc[-1]} cycles/pkt, $peer ${l[-1]} pps ${lc[-1]} cycles/pkt"
		else
			log "$scen run $run: vbrd ${v[-1]} pps ${vc[-1]} cycles/pkt"
		fi
	done
	vp=$(median "${v[@]}") vcy=$(median "${vc[@]}")
	if [ ${#l[@]} -gt 0 ]; then
		lp=$(median "${l[@]}") lcy=$(median "${lc[@]}")
	else
		lp=$BASE_PPS lcy=$BASE_CY
	fi
	[ "$scen" != ipv4-64 ] || BASE_PPS=$vp BASE_CY=$vcy
	log "$scen: $peer $lcy cycles/pkt; raw Mpps ratio $(awk -v a="$vp" -v b="$lp" 'BEGIN { printf "%.2f", a / b }')"
	# ratio: vbrd's packets per busy core-second over the peer's, i.e.
	# the peer's cycles/pkt over vbrd's. It equals the Mpps ratio when both
	# had their core to themselves, and stays put when they did not.
	case $peer in
	l3fwd)
		RESULTS+=("$(awk -v s="$scen" -v v="$vp" -v l="$lp" -v vc="$vcy" -v lc="$lcy" -v m="$MODE_TEXT" 'BEGIN {
			printf "bench: %s vbrd %.2f Mpps %.0f cycles/pkt l3fwd %.2f Mpps ratio %.2f %s\n",
				s, v / 1e6, vc, l / 1e6, lc / vc, m }')") ;;
	ps)
		prp=$(median "${pr[@]}") prcy=$(median "${prc[@]}") lop=$(median "${lo[@]}") locy=$(median "${loc[@]}")
		RESULTS+=("$(awk -v s="$scen" -v v="$vp" -v l="$lp" -v vc="$vcy" -v lc="$lcy" -v w="$what" -v t="$target" -v m="$MODE_TEXT" 'BEGIN {
			printf "bench: %s vbrd %.2f Mpps %.0f cycles/pkt %s %.2f Mpps ratio %.2f (target >= %s) %s\n",
				s, v / 1e6, vc, w, l / 1e6, lc / vc, t, m }')")
		# a figure of dropped packets is no forwarding cost: say so on its line
		[ -z "$vdrops" ] || RESULTS+=("bench: $scen: NOT A FORWARDING FIGURE: vbrd with spreading $vdrops")
		RESULTS+=("$(awk -v s="$scen" -v vc="$vcy" -v lc="$lcy" -v pp="$prp" -v pc="$prcy" -v op="$lop" -v oc="$locy" -v dropped="$vdrops" 'BEGIN {
			printf "bench: %s where it goes: probing only (spread = false, fast path, probes unanswered) %.2f Mpps ratio %.2f (%+.0f cycles/pkt); probing with answers (the probed group carries no data) %.2f Mpps ratio %.2f (%+.0f cycles/pkt); chooser (pathsel_choose_burst + spread_pick_burst, fast path) ",
				s, pp / 1e6, lc / pc, pc - lc, op / 1e6, lc / oc, oc - lc
			if (dropped != "") print "not measured (the drops above)"; else printf "%+.0f cycles/pkt\n", vc - pc }')")
		RESULTS+=("bench: $scen: probes every $PS_INTERVAL ms on 3 paths x 4 planes; on net_null nobody answers them, so in the first and the probing-only setups every plane is hard down and no path is usable; the answered probes run over a net_ring loop where vbrd is its own reflector (the data on a plain group)") ;;
	alt|ipv4-64)
		# a table or flow count other than the scenario's name says
		if [ "$kind" = fib ] && [ "$FIB_ROUTES/$FIB_ROUTES6" != 1000000/200000 ]; then
			what="$what (here $FIB_ROUTES + $FIB_ROUTES6 routes)"
		elif [ "$kind" = route ] && [ "$BIG_FLOWS" != 100000 ]; then
			what="$what (here $BIG_FLOWS flows)"
		fi
		RESULTS+=("$(awk -v s="$scen" -v v="$vp" -v l="$lp" -v vc="$vcy" -v lc="$lcy" -v w="$what" -v t="$target" -v m="$MODE_TEXT" 'BEGIN {
			printf "bench: %s vbrd %.2f Mpps %.0f cycles/pkt %s %.2f Mpps ratio %.2f (target >= %s) %s\n",
				s, v / 1e6, vc, w, l / 1e6, lc / vc, t, m }')") ;;
	1worker)
		# raw: the Mpps ratio; per-core: the same with each setup's
		# packets per busy core-second, times the two workers, i.e. the
		# scaling had each worker a core of its own.
		RESULTS+=("$(awk -v s="$scen" -v v="$vp" -v l="$lp" -v vc="$vcy" -v lc="$lcy" -v m="$MODE_TEXT" 'BEGIN {
			printf "bench: %s vbrd %.2f Mpps %.0f cycles/pkt (1 worker %.2f Mpps %.0f cycles/pkt) scaling raw %.2f per-core %.2f (target >= 1.9) %s\n",
				s, v / 1e6, vc, l / 1e6, lc, v / l, 2 * lc / vc, m }')") ;;
	esac
	# Instructions per packet beside the cycles (instructions.sh, callgrind):
	# they do not move with the host: every scenario (l3fwd's, ps, the
	# scale ones below).
	ILINES=()
	if [ "$INSTR" = 1 ] && [ "$peer" = l3fwd ]; then
		t0=$(date +%s)
		vi=$(instr_of "$scen") li=$(instr_l3fwd "$scen" "$pcap")
		ILINES+=("$(awk -v s="$scen" -v a="$vi" -v b="$li" -v t=$(( $(date +%s) - t0 )) 'BEGIN {
			printf "bench: %s instructions: vbrd %.1f/pkt l3fwd %.1f/pkt ratio %.3f (callgrind, %d s)\n", s, a, b, b / a, t }')")
	fi
	if [ "$INSTR" = 1 ] && [ "$peer" = ps ]; then
		t0=$(date +%s)
		vi=$(instr_of "$scen") pi=$(instr_of "$scen-plain")
		# the target is met when the instruction ratio meets it and the
		# cycle ratio (median of the runs) does
		ILINES+=("$(awk -v s="$scen" -v a="$vi" -v b="$pi" -v t=$(( $(date +%s) - t0 )) 'BEGIN {
			printf "bench: %s instructions: vbrd %.1f/pkt plain encap %.1f/pkt ratio %.3f (callgrind, %d s); ", s, a, b, b / a, t }')$(
			verdict "$target" "$(awk -v a="$vi" -v b="$pi" 'BEGIN { print b / a }')" "$(awk -v a="$vcy" -v b="$lcy" 'BEGIN { print b / a }')")")
		sed -n 's/^stage /bench: '"$scen"' stage /p' "$TMP/instr-$scen.out" >"$TMP/instr-$scen.stages"
		while read -r line; do ILINES+=("$line"); done <"$TMP/instr-$scen.stages"
	fi
	if [ "$INSTR" = 1 ] && [ "$peer" = alt ]; then
		# fib1m, flows100k: vbrd against itself on the same replay, as
		# the cycles. fib1m's 1M routes take minutes to load under valgrind.
		t0=$(date +%s)
		vi=$(INSTR_START_S=900 instr_of "$scen") ai=$(INSTR_START_S=900 instr_of "$scen-alt")
		ILINES+=("$(awk -v s="$scen" -v a="$vi" -v b="$ai" -v w="$what" -v t=$(( $(date +%s) - t0 )) 'BEGIN {
			printf "bench: %s instructions: vbrd %.1f/pkt %s %.1f/pkt ratio %.3f (callgrind, %d s); ", s, a, w, b, b / a, t }')$(
			verdict "$target" "$(awk -v a="$vi" -v b="$ai" 'BEGIN { print b / a }')" "$(awk -v a="$vcy" -v b="$lcy" 'BEGIN { print b / a }')")")
	fi
	if [ "$INSTR" = 1 ] && [ "$peer" = 1worker ]; then
		# both workers' threads summed, packets of both (INSTR_THREADS=sum);
		# per-core scaling in instructions: 2 x 1 worker's / 2 workers'
		t0=$(date +%s)
		vi=$(INSTR_THREADS=sum instr_of "$scen") ai=$(instr_of "$scen-1w")
		ILINES+=("$(awk -v s="$scen" -v a="$vi" -v b="$ai" -v t=$(( $(date +%s) - t0 )) 'BEGIN {
			printf "bench: %s instructions: vbrd 2 workers %.1f/pkt (both threads) 1 worker %.1f/pkt per-core scaling %.3f (callgrind, %d s); ", s, a, b, 2 * b / a, t }')$(
			verdict 1.9 "$(awk -v a="$vi" -v b="$ai" 'BEGIN { print 2 * b / a }')" "$(awk -v a="$vcy" -v b="$lcy" 'BEGIN { print 2 * b / a }')")")
		grep '^thread ' "$TMP/instr-$scen.out" | sed "s/^/bench:   $scen 2 workers: /" >&2 || true
	fi
	[ ${#ILINES[@]} -eq 0 ] || RESULTS+=("${ILINES[@]}")
	[ "$kind" != fib ] || { huge_lower "$WANT_PAGES"; rm -f "$TMP/fib-routes.conf"; }
done
printf '%s\n' "${RESULTS[@]}"
log "done in $(( $(date +%s) - START )) s; cycles/pkt = TSC Hz x busy cores (measured CPU time) / pps"
