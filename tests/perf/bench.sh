#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make bench: replay pcaps through vbrd and through DPDK's l3fwd, on the
# same devices, the same core and the same input, and print per scenario
#
#   bench: SCENARIO vbrd MPPS Mpps CYCLES cycles/pkt l3fwd MPPS Mpps ratio R
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
#   BENCH_SCENARIOS="ipv4-64 ipv4-imix vxlan-encap-64 vxlan-encap-imix vxlan-decap"
#   BENCH_BUDGET_S=270   no run after the first of scenario k of N starts
#                        later than k/N of this many seconds
#   BENCH_HUGEPAGES=1024 2 MiB hugepages to have free (reserved for the bench
#                        and given back when the machine has fewer); 0: run
#                        with --no-huge
#   TSC_HZ               skip the TSC measurement
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
SCENARIOS=${BENCH_SCENARIOS:-ipv4-64 ipv4-imix vxlan-encap-64 vxlan-encap-imix vxlan-decap}
# Five scenarios x 2 programs x 3 runs x (6 s + ~2.5 s of start, warm-up
# and stop) is ~4.3 min; the budget keeps the whole under 5 min on a slow day.
BUDGET_S=${BENCH_BUDGET_S:-270}
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
# no-rx=1: without it net_null's Rx invents 64-byte frames, which the router
# under test would then spend cycles on (and l3fwd would send out again).
NULL_DEV=net_null0,no-rx=1

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

"$PERF/build-l3fwd.sh" "$BUILD" || die "could not build l3fwd"
L3FWD=$BUILD/l3fwd

TSC_HZ=${TSC_HZ:-$("$TSCHZ_EXE")}

TMP=$(mktemp -d /tmp/vbrd-bench.XXXXXX)
PREFIX=vbrbench$$          # EAL file prefix stem, unique per bench run
CHILD=""                   # pid of the DPDK process running now
PPS=0 CORES=0              # results of run_vbrd / run_l3fwd
HUGE_KB=0                  # hugetlb memory the last program used, kB

# ---- hugepages ---------------------------------------------------------------

WANT_PAGES=${BENCH_HUGEPAGES:-1024}
MIN_PAGES=256              # 512 MiB: what one program needs, with room
HUGE_MNT=/dev/hugepages
HUGE_PREV=""               # nr_hugepages before the bench raised it
HUGE_MOUNTED=0 HUGE_MKDIR=0
MODE=no-huge               # how the programs run: hugepages or no-huge
MODE_WHY=""                # why no-huge

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

huge_setup() {  # have WANT_PAGES free 2 MiB pages and hugetlbfs mounted, or set MODE_WHY
	local total free
	if [ "$WANT_PAGES" = 0 ]; then
		MODE_WHY="BENCH_HUGEPAGES=0"; return
	fi
	if [ "$(meminfo Hugepagesize)" != 2048 ]; then
		MODE_WHY="default hugepage size is $(meminfo Hugepagesize) kB, not 2048"; return
	fi
	if ! awk '$3 == "hugetlbfs" { found = 1 } END { exit !found }' /proc/mounts; then
		if [ "${BENCH_MOUNT_NS:-}" != 1 ]; then
			MODE_WHY="no hugetlbfs mounted, and no private mount namespace to mount one in"
			return
		fi
		[ -d "$HUGE_MNT" ] || { mkdir "$HUGE_MNT" && HUGE_MKDIR=1; } ||
			{ MODE_WHY="cannot create $HUGE_MNT"; return; }
		mount -t hugetlbfs -o pagesize=2M nodev "$HUGE_MNT" 2>"$TMP/mount.err" ||
			{ MODE_WHY="cannot mount hugetlbfs: $(cat "$TMP/mount.err")"; return; }
		HUGE_MOUNTED=1
	fi
	total=$(meminfo HugePages_Total) free=$(meminfo HugePages_Free)
	if [ "$free" -lt "$WANT_PAGES" ]; then
		HUGE_PREV=$(cat /proc/sys/vm/nr_hugepages)
		echo $((total - free + WANT_PAGES)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		free=$(meminfo HugePages_Free)
		log "hugepages: nr_hugepages $HUGE_PREV -> $(cat /proc/sys/vm/nr_hugepages), $free free"
	fi
	if [ "$free" -lt "$MIN_PAGES" ]; then
		MODE_WHY="only $free free hugepages, $MIN_PAGES needed"; return
	fi
	MODE=hugepages
}

huge_restore() {  # give back what huge_setup took (cleanup calls it)
	if [ -n "$HUGE_PREV" ]; then
		echo "$HUGE_PREV" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		log "hugepages: nr_hugepages back to $(cat /proc/sys/vm/nr_hugepages)" \
		    "(asked $HUGE_PREV; pages still in use stay until freed)"
		HUGE_PREV=""
	fi
	if [ "$HUGE_MOUNTED" = 1 ]; then
		umount "$HUGE_MNT" 2>/dev/null || log "warning: cannot unmount $HUGE_MNT"
		HUGE_MOUNTED=0
	fi
	if [ "$HUGE_MKDIR" = 1 ]; then
		rmdir "$HUGE_MNT" 2>/dev/null || true
		HUGE_MKDIR=0
	fi
}

# EAL options of the mode: hugepage files unlinked once mapped (--huge-unlink),
# so that each run's pages go back when it exits; else 512 MiB of plain memory.
eal_mem_args() {
	if [ "$MODE" = hugepages ]; then echo "--huge-unlink"; else echo "--no-huge -m 512"; fi
}

huge_kb() {  # hugetlb memory of process $1, kB (0 when it has none or is gone)
	awk '/^(Private|Shared)_Hugetlb:/ { kb += $2 } END { print kb + 0 }' \
		"/proc/$1/smaps_rollup" 2>/dev/null || echo 0
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
	local sig=${1:-TERM} i
	[ -n "$CHILD" ] || return 0
	kill -"$sig" "$CHILD" 2>/dev/null || true
	for i in $(seq 100); do
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
		rm -f "$TMP"/*.pcap
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

write_vbrd_conf() {  # write_vbrd_conf FILE INSTANCE PCAP SOCKET KIND (route, encap, decap)
	local kind=$5 out_mtu="" in_addr='address = "10.0.0.254/16";'
	local tunnels="" route='via = "10.1.0.2";'
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
	decap)
		# The tunnel's local address is on "in", inside l3fwd's
		# 198.18.1.0/24 (so l3fwd sends the outer packets to the sink);
		# the inner destinations are routed as in "route".
		in_addr="addresses = [ \"10.0.0.254/16\", \"$DECAP_LOCAL/24\" ];"
		tunnels="tunnels = (
  { name = \"from-region\"; type = \"vxlan\"; vni = $VNI; local = \"$DECAP_LOCAL\"; remote = \"$DECAP_REMOTE\"; }
);" ;;
	*) die "write_vbrd_conf: unknown kind '$kind'" ;;
	esac
	cat >"$1" <<EOF
# generated by tests/perf/bench.sh ($kind)
instance = "$2";
control = { socket = "$4"; };
ports = (
  { name = "in";  devargs = "net_pcap0,rx_pcap=$3,infinite_rx=1"; rx_queues = 1; },
  { name = "out"; devargs = "$NULL_DEV"; rx_queues = 1; $out_mtu }
);
interfaces = (
  { name = "in";  port = "in";  $in_addr },
  { name = "out"; port = "out"; address = "10.1.0.1/24"; $out_mtu }
);
$tunnels
routes = (
  { prefix = "198.18.0.0/16"; $route }
);
# net_null answers no ARP: the gateway's MAC is fixed.
neighbors = (
  { interface = "out"; address = "10.1.0.2"; mac = "02:00:00:00:00:02"; }
);
workers = { cores = [ $CORE ]; burst = 32; idle_sleep_us = 0; };
eal     = { hugepages = $([ "$MODE" = hugepages ] && echo true || echo false); memory_mb = 512; };
EOF
	"$VBRD" --check-config "$1" >"$1.check" 2>&1 ||
		{ cat "$1.check" >&2; die "the generated vbrd config $1 does not load"; }
}

run_vbrd() {  # run_vbrd SCENARIO PCAP RUN KIND -> PPS (median packets/s), CORES (median busy cores)
	local scen=$1 pcap=$2 run=$3 kind=$4 inst="$PREFIX-v$run"
	local conf=$TMP/vbrd-$scen-$run.conf sock=$TMP/vbrd-$run.sock
	local logf=$TMP/vbrd-$scen-$run.log i res mac
	write_vbrd_conf "$conf" "$inst" "$pcap" "$sock" "$kind"
	# shellcheck disable=SC2046
	"$VBRD" -c "$conf" -- $([ "$MODE" = hugepages ] && eal_mem_args) >"$logf" 2>&1 &
	CHILD=$!
	for i in $(seq 150); do
		kill -0 "$CHILD" 2>/dev/null || fail_child "vbrd exited during start-up ($conf)" "$logf"
		"$VBRCTL" -s "$sock" -j show ports >/dev/null 2>&1 && break
		sleep 0.1
	done
	"$VBRCTL" -s "$sock" -j show ports >"$TMP/ports.json" 2>&1 ||
		fail_child "vbrd's control socket $sock did not answer within 15 s" "$logf"
	mac=$($PYTHON -c 'import json,sys; print(next(p["mac"] for p in json.load(open(sys.argv[1]))["ports"] if p["name"]=="in").lower())' "$TMP/ports.json") || mac=?
	[ "$mac" = "$DUT_MAC" ] || log "warning: port 'in' has MAC $mac, the pcap is addressed to $DUT_MAC"
	res=$($PYTHON "$PERF/txrate.py" --seconds "$SECONDS_PER_RUN" --pid "$CHILD" \
		vbrctl "$VBRCTL" "$sock" out 2>"$TMP/txrate.err") ||
		{ cat "$TMP/txrate.err" >&2; "$VBRCTL" -s "$sock" show stats >&2 || true
		  fail_child "vbrd forwarded nothing to port 'out' in $scen" "$logf"; }
	sed 's/^/bench:   vbrd  /' "$TMP/txrate.err" >&2
	HUGE_KB=$(huge_kb "$CHILD")
	check_mode vbrd
	# Every frame of the pcap is valid and routed: any drop is a bug (or a
	# wrong setup) that would make the figure meaningless. In the tunnel
	# scenarios the tunnel must have carried the packets (encap: its TX,
	# decap: its RX), or the figure is of something else.
	"$VBRCTL" -s "$sock" -j show stats >"$TMP/stats.json" 2>/dev/null &&
	"$VBRCTL" -s "$sock" -j show tunnels >"$TMP/tunnels.json" 2>/dev/null &&
	$PYTHON - "$TMP/stats.json" "$TMP/tunnels.json" "$kind" <<'PY' >&2 || true
import json, sys
st = json.load(open(sys.argv[1]))
drops = {k: v for k, v in st["drops"].items() if v}
if drops:
    print("bench: warning: vbrd dropped %d of %d packets: %s"
          % (st["drops_total"], st["rx_packets"], drops))
kind = sys.argv[3]
if kind in ("encap", "decap"):
    key = "tx_packets" if kind == "encap" else "rx_packets"
    carried = sum(t[key] for t in json.load(open(sys.argv[2]))["tunnels"])
    print("bench:   vbrd  forwarded %d, tunnel %s %d" % (st["forwarded"], key, carried))
    # read one after the other while the worker runs: allow a little skew
    if carried < st["forwarded"] * 0.99:
        print("bench: warning: vbrd's tunnel %s (%d) is below its forwarded count (%d): "
              "packets took another way" % (key, carried, st["forwarded"]))
PY
	stop_child TERM
	rm -rf "/var/run/dpdk/$inst"
	read -r PPS CORES <<<"$res"
}

# ---- l3fwd -------------------------------------------------------------------

run_l3fwd() {  # run_l3fwd SCENARIO PCAP RUN -> PPS (median packets/s), CORES (median busy cores)
	local scen=$1 pcap=$2 run=$3 pfx="$PREFIX-l$run"
	local logf=$TMP/l3fwd-$scen-$run.log i res
	local tsock=/var/run/dpdk/$pfx/dpdk_telemetry.v2
	# One lcore (the main one) on $CORE polls both ports; --parse-ptype
	# because virtual devices set no packet type.
	# shellcheck disable=SC2046
	"$L3FWD" $(eal_mem_args) --no-pci --file-prefix "$pfx" -l "$CORE" \
		--vdev "net_pcap0,rx_pcap=$pcap,infinite_rx=1" --vdev "$NULL_DEV" -- \
		-p 0x3 --config="(0,0,$CORE),(1,0,$CORE)" --parse-ptype >"$logf" 2>&1 &
	CHILD=$!
	for i in $(seq 150); do
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

# ---- scenarios ---------------------------------------------------------------

huge_setup
if [ "$MODE" = hugepages ]; then
	MODE_TEXT="mode hugepages"
else
	MODE_TEXT="mode no-huge ($MODE_WHY)"
	log "warning: running with --no-huge: $MODE_WHY"
fi
START=$(date +%s)
log "TSC $TSC_HZ Hz, core $CORE, $RUNS run(s) x $SECONDS_PER_RUN s per program and scenario, $MODE_TEXT"
RESULTS=()
NSCEN=$(wc -w <<<"$SCENARIOS") k=0
for scen in $SCENARIOS; do
	# Scenario k of N gets the budget up to k/N of it: a slow start
	# costs every scenario a run or two alike, not the last ones all.
	k=$((k + 1)) scen_budget=$(( BUDGET_S * k / NSCEN ))
	case $scen in
	ipv4-64)          gen=flows size=64   kind=route ;;
	ipv4-imix)        gen=flows size=imix kind=route ;;
	vxlan-encap-64)   gen=flows size=64   kind=encap ;;
	vxlan-encap-imix) gen=flows size=imix kind=encap ;;
	vxlan-decap)      gen=vxlan size=64   kind=decap ;;
	*) die "unknown scenario '$scen' (ipv4-64, ipv4-imix, vxlan-encap-64, vxlan-encap-imix, vxlan-decap)" ;;
	esac
	pcap=$TMP/$scen.pcap
	if [ "$gen" = flows ]; then
		"$PCAPGEN" flows "$pcap" --flows $FLOWS --packets $PACKETS --size $size \
			--dst-mac $DUT_MAC --dst-net $DST_NET --src-net $SRC_NET 2>/dev/null
	else
		# 64-byte inner frames in 114-byte outer ones
		"$PCAPGEN" vxlan "$pcap" --flows $FLOWS --packets $PACKETS --size $size \
			--vni $VNI --outer-src $DECAP_REMOTE --outer-dst $DECAP_LOCAL \
			--dst-mac $DUT_MAC --dst-net $DECAP_INNER_NET --src-net $SRC_NET 2>/dev/null
	fi || die "pcapgen failed for $scen"
	v=() vc=() l=() lc=()
	for run in $(seq "$RUNS"); do
		if [ "$run" -gt 1 ] && [ $(( $(date +%s) - START )) -gt "$scen_budget" ]; then
			log "time budget reached: $scen stops after $((run - 1)) run(s)"
			break
		fi
		# Alternate the two programs so that noise from other work on
		# the machine hits both alike.
		run_vbrd "$scen" "$pcap" "$run" "$kind"
		v+=("$PPS") vc+=("$(cycles "$PPS" "$CORES")")
		run_l3fwd "$scen" "$pcap" "$run"
		l+=("$PPS") lc+=("$(cycles "$PPS" "$CORES")")
		log "$scen run $run: vbrd ${v[-1]} pps ${vc[-1]} cycles/pkt, l3fwd ${l[-1]} pps ${lc[-1]} cycles/pkt"
	done
	vp=$(median "${v[@]}") vcy=$(median "${vc[@]}")
	lp=$(median "${l[@]}") lcy=$(median "${lc[@]}")
	log "$scen: l3fwd $lcy cycles/pkt; raw Mpps ratio $(awk -v a="$vp" -v b="$lp" 'BEGIN { printf "%.2f", a / b }')"
	# ratio: vbrd's packets per busy core-second over l3fwd's, i.e. l3fwd's
	# cycles/pkt over vbrd's. It equals the Mpps ratio when both programs
	# had their core to themselves, and stays put when they did not.
	RESULTS+=("$(awk -v s="$scen" -v v="$vp" -v l="$lp" -v vc="$vcy" -v lc="$lcy" -v m="$MODE_TEXT" 'BEGIN {
		printf "bench: %s vbrd %.2f Mpps %.0f cycles/pkt l3fwd %.2f Mpps ratio %.2f %s\n",
			s, v / 1e6, vc, l / 1e6, lc / vc, m }')")
done
printf '%s\n' "${RESULTS[@]}"
log "done in $(( $(date +%s) - START )) s; cycles/pkt = TSC Hz x busy cores (measured CPU time) / pps"
