#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Control-plane scale: start-up and reload times with many routes, the
# control socket's latency during a reload, and the FIB's memory. Prints
#
#   bench: startup-100k-routes 0.62 s
#   bench: reload-100k-routes 0.41 s (10% changed)
#   bench: startup-1m-routes 3.9 s
#   bench: reload-1m-routes 3.1 s (10% changed)
#   bench: control-latency-during-reload-1m max 12 ms
#   bench: forwarding-during-reload-1m 164119584 forwarded, 0 dropped, longest gap between show stats answers that saw it advance 79 ms   (SCALE_TRAFFIC=1)
#   bench: fib-memory-1m-routes 420 MiB (tbl8 groups 140000)
#
# start-up: from exec to `show stats` answering; reload: from `vbrctl
# reload` to its reply, which comes once the new generation is fully
# applied (FIB changed in place); latency: the slowest of `show stats`
# asked every 10 ms while the 1M reload runs; with SCALE_TRAFFIC=1 a pcap
# replays 64-byte frames into the worker (net_pcap infinite_rx, to a /24
# route that is in both tables: the reload changes 10% of the routes, a
# burst of 100 000 changes at 1M, in place under RCU), and the longest time
# between two `show stats` answers that saw `forwarded` advance (bounded
# below by the control latency: the worker itself never waits for the
# reload), and vbrd's drops meanwhile; the busy worker slows the reload
# (1M: 6.7 s against 4.9 s without traffic, one run); memory: the FIB and FIB6
# as created (vbrctl show config: fib). vbrd runs on hugepages, as in
# production (tests/perf/bench.sh's reserve and restore), after one
# unreported warm-up start of the largest config. Environment:
#   BUILD=build          meson build dir (vbrd, vbrctl)
#   SCALE_SIZES="100k 1m"
#   SCALE_TRAFFIC=0      1: replay a pcap through the worker during each reload
#   SCALE_MEMORY_MB=2048 eal.memory_mb of the configs (what --check-config asks)
#   SCALE_HUGEPAGES=1024 2 MiB hugepages to have free (reserved for the run
#                        and given back when the machine has fewer); 0: --no-huge
set -euo pipefail

if [ "${SCALE_MOUNT_NS:-}" = "" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	export SCALE_MOUNT_NS=1
	exec unshare --mount --propagation private -- "$0" "$@"
fi

cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
TRAFFIC=${SCALE_TRAFFIC:-0}
SIZES=${SCALE_SIZES:-100k 1m}
VBRD=$BUILD/app/vbrd
VBRCTL=$BUILD/app/vbrctl
PYTHON=/usr/bin/python3
TMP=$(mktemp -d /tmp/vbrd-scale.XXXXXX)
INSTANCE=vbrscale$$
SOCK=$TMP/vbrd.sock
CHILD=""

log() { echo "scale: $*" >&2; }
die() { log "$*"; exit 1; }

# ---- hugepages (as tests/perf/bench.sh) ---------------------------------------

# huge_lock, huge_unlock: one bench at a time holds the hugepages (the rest of
# hugepages.sh is redefined below)
# shellcheck source=tests/perf/hugepages.sh
. tests/perf/hugepages.sh
WANT_PAGES=${SCALE_HUGEPAGES:-1024}
MIN_PAGES=512
HUGE_MNT=/dev/hugepages
HUGE_PREV="" HUGE_MOUNTED=0
MODE=no-huge MODE_WHY=""

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

huge_setup() {
	local total free
	[ "$WANT_PAGES" != 0 ] || { MODE_WHY="SCALE_HUGEPAGES=0"; return; }
	[ "$(meminfo Hugepagesize)" = 2048 ] || { MODE_WHY="hugepage size not 2 MiB"; return; }
	huge_lock
	if ! awk '$3 == "hugetlbfs" { found = 1 } END { exit !found }' /proc/mounts; then
		[ "${SCALE_MOUNT_NS:-}" = 1 ] || { MODE_WHY="no hugetlbfs mounted"; return; }
		mkdir -p "$HUGE_MNT"
		mount -t hugetlbfs -o pagesize=2M nodev "$HUGE_MNT" || { MODE_WHY="cannot mount"; return; }
		HUGE_MOUNTED=1
	fi
	total=$(meminfo HugePages_Total) free=$(meminfo HugePages_Free)
	if [ "$free" -lt "$WANT_PAGES" ]; then
		HUGE_PREV=$(cat /proc/sys/vm/nr_hugepages)
		echo $((total - free + WANT_PAGES)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		free=$(meminfo HugePages_Free)
		log "hugepages: nr_hugepages $HUGE_PREV -> $(cat /proc/sys/vm/nr_hugepages), $free free"
	fi
	[ "$free" -ge "$MIN_PAGES" ] || { MODE_WHY="only $free free hugepages"; return; }
	MODE=hugepages
}

huge_restore() {
	if [ -n "$HUGE_PREV" ]; then
		echo "$HUGE_PREV" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		log "hugepages: nr_hugepages back to $(cat /proc/sys/vm/nr_hugepages)"
		HUGE_PREV=""
	fi
	if [ "$HUGE_MOUNTED" = 1 ]; then umount "$HUGE_MNT" 2>/dev/null || true; fi
	huge_unlock
}

stop_child() {
	[ -n "$CHILD" ] || return 0
	kill -TERM "$CHILD" 2>/dev/null || true
	for _ in $(seq 100); do kill -0 "$CHILD" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$CHILD" 2>/dev/null || true
	wait "$CHILD" 2>/dev/null || true
	CHILD=""
}

cleanup() {
	local rc=$?
	stop_child
	huge_restore
	rm -rf /var/run/dpdk/"$INSTANCE"
	if [ "$rc" = 0 ]; then rm -rf "$TMP"; else log "configs and logs kept in $TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ms() { date +%s%3N; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1000 }'; }

# With SCALE_TRAFFIC=1, a second port replays a pcap into the worker.
traffic_port() {  # traffic_port N
	[ "$TRAFFIC" = 1 ] || return 0
	printf ',\n { name = "in"; devargs = "net_pcap0,rx_pcap=%s,infinite_rx=1"; }' "$TMP/in-$1.pcap"
}
traffic_iface() {
	[ "$TRAFFIC" = 1 ] || return 0
	printf ',\n { name = "in"; port = "in"; address = "10.0.0.254/16"; }'
}

# The config of SIZE routes (CHANGE% changed): a net_null lab.
make_conf() {  # make_conf OUT N CHANGE
	local head=$TMP/head.conf
	cat >"$head" <<-EOF
		instance = "$INSTANCE";
		control = { socket = "$SOCK"; };
		ports = ( { name = "p0"; devargs = "net_null0,no-rx=1"; }$(traffic_port "$2") );
		interfaces = ( { name = "lan0"; port = "p0"; addresses = [ "10.1.0.1/16", "2001:db8:1::1/64" ]; }$(traffic_iface) );
		neighbors = ( $(for g in $(seq 2 17); do printf '{ interface = "lan0"; address = "10.1.0.%d"; mac = "02:00:00:00:01:%02x"; }, ' $g $g; done | sed 's/, $//') );
		eal = { hugepages = $([ "$MODE" = hugepages ] && echo true || echo false); memory_mb = ${SCALE_MEMORY_MB:-2048}; };
		workers = { cores = [ 1 ]; idle_sleep_us = 50; };
	EOF
	$PYTHON tests/perf/gen_routes.py "$1" "$2" --head "$head" --change "$3"
}

# `show stats` every 10 ms until FILE exists; print the slowest answer, ms,
# the longest stretch between two answers that saw `forwarded` advance, ms,
# the packets dropped meanwhile and those forwarded.
latency_until() {  # latency_until DONEFILE
	$PYTHON - "$SOCK" "$1" <<-'EOF'
		import json, os, socket, sys, time
		sock, done = sys.argv[1], sys.argv[2]
		def stats():
		    s = socket.socket(socket.AF_UNIX)
		    s.connect(sock)
		    s.sendall(b'{"argv": ["show", "stats"]}\n')
		    buf = b""
		    while not buf.endswith(b"\n"):
		        d = s.recv(65536)
		        if not d:
		            break
		        buf += d
		    s.close()
		    r = json.loads(buf)
		    r = r["data"]
		    return r["forwarded"], sum(r["drops"].values())
		worst = stall = 0.0
		fwd0, drops0 = stats()
		last_fwd, last_t = fwd0, time.monotonic()
		while not os.path.exists(done):
		    t = time.monotonic()
		    fwd, drops = stats()
		    now = time.monotonic()
		    worst = max(worst, now - t)
		    if fwd > last_fwd:
		        stall = max(stall, now - last_t)
		        last_fwd, last_t = fwd, now
		    time.sleep(0.01)
		stall = max(stall, time.monotonic() - last_t)
		print(int(worst * 1000 + 0.5), int(stall * 1000 + 0.5), drops - drops0, fwd - fwd0)
	EOF
}

# Start vbrd on CONF and wait until it answers (or die).
start_vbrd() {  # start_vbrd CONF LOG
	local t0
	t0=$(now_ms)
	"$VBRD" -c "$1" -- $([ "$MODE" = hugepages ] && echo --huge-unlink) >"$2" 2>&1 &
	CHILD=$!
	until "$VBRCTL" -s "$SOCK" -t 1000 show stats >/dev/null 2>&1; do
		kill -0 "$CHILD" 2>/dev/null || die "vbrd exited: $(tail -3 "$2")"
		[ $(($(now_ms) - t0)) -lt 120000 ] || die "vbrd did not answer in 120 s"
		sleep 0.02
	done
}

run_size() {  # run_size LABEL N
	local label=$1 n=$2 a=$TMP/$1-a.conf b=$TMP/$1-b.conf conf=$TMP/$1.conf t0 t1 lat
	cp "$a" "$conf"
	t0=$(now_ms)
	start_vbrd "$conf" "$TMP/$label.log"
	t1=$(now_ms)
	echo "bench: startup-$label-routes $(secs $((t1 - t0))) s"
	cp "$b" "$conf"
	rm -f "$TMP/done"
	latency_until "$TMP/done" >"$TMP/latency" &
	local lat_pid=$!
	t0=$(now_ms)
	"$VBRCTL" -s "$SOCK" -t 120000 reload >/dev/null || die "reload failed: $(tail -3 "$TMP/$label.log")"
	t1=$(now_ms)
	touch "$TMP/done"
	wait "$lat_pid"
	echo "bench: reload-$label-routes $(secs $((t1 - t0))) s (10% changed)"
	local lat stall lost fwd
	read -r lat stall lost fwd <"$TMP/latency"
	echo "bench: control-latency-during-reload-$label max $lat ms"
	[ "$TRAFFIC" != 1 ] ||
		echo "bench: forwarding-during-reload-$label $fwd forwarded, $lost dropped, longest gap between show stats answers that saw it advance $stall ms"
	"$VBRCTL" -s "$SOCK" -j show config >"$TMP/config.json"
	$PYTHON - "$label" "$TMP/config.json" <<-'EOF'
		import json, sys
		f = json.load(open(sys.argv[2]))["fib"]
		print("bench: fib-memory-%s-routes %d MiB (tbl8 groups %d used of %d)" % (
		    sys.argv[1], (f["bytes"] + (1 << 20) - 1) >> 20, f["ipv4_tbl8_used"], f["ipv4_tbl8"]))
	EOF
	grep -h "start-up:\|reload: built\|reload: config" "$TMP/$label.log" | sed 's/^/scale:   /' >&2 || true
	stop_child
}

[ -x "$VBRD" ] && [ -x "$VBRCTL" ] || die "no $VBRD / $VBRCTL: build first"
huge_setup
[ "$MODE" = hugepages ] || log "warning: running with --no-huge: $MODE_WHY"
routes_of() {  # routes_of SIZE
	case $1 in
	100k) echo 100000 ;;
	1m) echo 1000000 ;;
	*) die "unknown size $1 (100k, 1m)" ;;
	esac
}
last=""
for size in $SIZES; do
	make_conf "$TMP/$size-a.conf" "$(routes_of "$size")" 0
	make_conf "$TMP/$size-b.conf" "$(routes_of "$size")" 10
	last=$size
done
# Each size's replay: 64 flows to a /24 that both its tables route the
# same way (the reload changes others around it), from 10.0.0.0/16 to
# net_pcap0's MAC.
for size in $SIZES; do
	[ "$TRAFFIC" = 1 ] || break
	dst_net=$($PYTHON - "$TMP/$size-a.conf" "$TMP/$size-b.conf" <<-'EOF'
		import re, sys
		pat = re.compile(r'prefix = "([0-9.]+/24)"; via = "([0-9.]+)"')
		def table(path):
		    return dict(pat.findall(open(path).read()))
		a, b = table(sys.argv[1]), table(sys.argv[2])
		print(next(p for p, gw in a.items() if b.get(p) == gw))
	EOF
	) || die "no /24 route common to both $size tables"
	"$BUILD/tests/perf/pcapgen" flows "$TMP/in-$(routes_of "$size").pcap" --flows 64 \
		--packets 256 --size 64 --dst-mac 02:70:63:61:70:00 --dst-net "$dst_net" \
		--src-net 10.0.0.0/16 2>/dev/null || die "pcapgen failed"
done
# Warm-up, not reported: the first process to fault in pages just added to
# the hugepage pool takes seconds longer (the kernel finds and clears
# them); every later start-up reuses them, as a router's restarts do.
if [ "$MODE" = hugepages ] && [ -n "$last" ]; then
	start_vbrd "$TMP/$last-a.conf" "$TMP/warmup.log"
	stop_child
fi
for size in $SIZES; do
	run_size "$size" "$(routes_of "$size")"
done
