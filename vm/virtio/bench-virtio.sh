#!/usr/bin/env bash
# make bench-virtio: what vbrd forwards through the virtio lab's path, in
# Mpps, at 64 B and at IMIX 7:4:1 (64/570/1518 B frames, FCS included):
#
#   OVS port gen (net_pcap, the pcap replayed from memory) ─flow─> in-vhost ══ in [vbrd] out ══ out-vhost ─flow─> OVS port sink (net_null)
#
# Open vSwitch with DPDK (vm/virtio/ovs.sh) owns the generator and the
# sink; vbrd (vm/virtio/bench.conf) routes between its
# two virtio-user ports. vbrd's rate is its ports' counters (vbrctl -j
# show ports: rx on "in", tx on "out") over BENCH_SECONDS, after 2 s of
# warm-up; BENCH_RUNS runs each, the median and the spread printed. For
# reference the same path with DPDK's testpmd (io forwarding, no lookup) in
# vbrd's place: the ceiling of the vhost-user path on this machine. OVS's
# own PMD statistics (dpif-netdev/pmd-perf-show) come with each run.
#
# CPU layout (2 cores): the forwarder's worker (vbrd's, or testpmd's
# forwarding lcore) alone on BENCH_CPU (default 0); OVS's PMD (the
# generator, both vhost-user copies and the sink), ovs-vswitchd's main
# thread and vbrd's main lcore on BENCH_PMD_CPU (default 1). With 2 cores
# the PMD and the forwarder each take one: the figures are this machine's,
# not a NIC's. ovs-vswitchd's main thread spins as long as the PMD is
# busy (seen here, OVS 3.1 on --no-huge): on the forwarder's CPU
# (BENCH_OVS_CPU=0) it took half of it and vbrd forwarded 0.3-0.7 Mpps
# instead of ~3. The forwarder's CPU time over the window is printed as
# "CPU of its process" in cores (all its threads; its worker alone is 1.00
# at most). Not part of make test.
#
# Memory: 2 MiB hugepages for both, as in production (tests/perf/hugepages.sh,
# shared with make bench): (1024 + 512) / 2 = 768 pages made free (nr_hugepages
# raised, set back at exit, also on failure or Ctrl-C), hugetlbfs mounted in
# a private mount namespace when none is; OVS with OVS_HUGE_MB=1024 (EAL
# --in-memory), the forwarder with --in-memory --single-file-segments (one
# vhost-user memory region per memseg list). Each run checks that both hold
# hugepages. Without them (BENCH_HUGEPAGES=0, or too few to be had) both run
# on 4 KiB pages and every result line says "4 KiB PAGES".
#
# The generator's OpenFlow flow is installed before its port (fixed port
# number) with an explicit table-miss drop: a flow added after the port left
# 2-3 runs in 6 at ~0.5 Mpps instead of ~4 (frames that missed the table went
# to ovs-vswitchd's slow path, whose main thread then took half the PMD's
# CPU); see vm/virtio/README.md. Measured 2026-12-06 on hugepages, median of
# 5 x 5 s: vbrd 4.72 Mpps at 64 B (spread 9 %, PMD 149-164 cycles/packet),
# 3.41 at IMIX; testpmd 4.41 and 3.55: the bottleneck is OVS's one PMD.
# Needs root.
#
# Environment: BUILD (build), BENCH_RUNS (5), BENCH_SECONDS (5),
# BENCH_CPU (0), BENCH_PMD_CPU (1), BENCH_OVS_CPU (= BENCH_PMD_CPU),
# BENCH_PMD_MAXSLEEP (500 µs; at full load the PMD never sleeps),
# BENCH_SIZES ("64 imix"), BENCH_FORWARDERS ("vbrd testpmd"),
# BENCH_HUGEPAGES (768 free 2 MiB pages wanted; 0: 4 KiB pages).
set -euo pipefail

# a private mount namespace, where tests/perf/hugepages.sh may mount hugetlbfs
# unseen by other DPDK processes (as tests/perf/bench.sh does)
if [ "${BENCH_MOUNT_NS:-}" = "" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	export BENCH_MOUNT_NS=1
	exec unshare --mount --propagation private -- "$0" "$@"
fi

root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/vm/virtio
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
vbrd=$BUILD/app/vbrd
vbrctl=$BUILD/app/vbrctl
pcapgen=$BUILD/tests/perf/pcapgen
ovs=$here/ovs.sh
runs=${BENCH_RUNS:-5}
secs=${BENCH_SECONDS:-5}
cpu=${BENCH_CPU:-0}
pmd=${BENCH_PMD_CPU:-1}
br=virtio-bbr
work=
fwd_pid=
ovs_mb=1024   # OVS's DPDK memory (per-port mempools of 4 ports and the generator's)
fwd_mb=512    # the forwarder's (vbrd's eal.memory_mb, testpmd's -m)

[ "$(id -u)" = 0 ] || { echo "bench-virtio: needs root (DPDK)" >&2; exit 1; }
for f in "$vbrd" "$vbrctl" "$pcapgen"; do
	[ -x "$f" ] || { echo "bench-virtio: $f missing: make build" >&2; exit 1; }
done
[ -x /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk ] ||
	{ echo "bench-virtio: Open vSwitch with DPDK missing: make deps (openvswitch-switch-dpdk)" >&2; exit 1; }

stop_fwd() {
	[ -n "$fwd_pid" ] || return 0
	kill -TERM "$fwd_pid" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$fwd_pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$fwd_pid" 2>/dev/null || true
	wait "$fwd_pid" 2>/dev/null || true
	fwd_pid=
	rm -rf /run/dpdk/virtio-bench /run/dpdk/virtio-bench-tp
}
cleanup() {
	local status=$?
	set +e
	trap - EXIT HUP INT TERM
	stop_fwd
	[ -n "$work" ] && "$ovs" stop "$work/ovs"
	ip netns del virtio-bovs 2>/dev/null   # ovs-vswitchd's (ovs.sh), with the bridge's TAP
	rm -rf /run/dpdk/virtio-bovs
	huge_restore
	if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "bench-virtio: logs kept in $work"; fi
}
trap cleanup EXIT
trap 'exit 129' HUP   # a closed terminal: without it EXIT's cleanup would not run
trap 'exit 130' INT TERM
work=$(mktemp -d /tmp/vbrd-bench-virtio.XXXXXX)

# --- hugepages: OVS's and the forwarder's, else 4 KiB pages for both -----
log() { echo "bench-virtio: $*" >&2; }
TMP=$work
WANT_PAGES=${BENCH_HUGEPAGES:-$(((ovs_mb + fwd_mb) / 2))}
MIN_PAGES=$(((ovs_mb + fwd_mb) / 2))
[ "$WANT_PAGES" = 0 ] || [ "$WANT_PAGES" -ge "$MIN_PAGES" ] || WANT_PAGES=$MIN_PAGES
# shellcheck source=tests/perf/hugepages.sh
. "$root/tests/perf/hugepages.sh"
huge_setup
if [ "$MODE" = hugepages ]; then
	mode_text="2 MiB hugepages"
else
	mode_text="4 KiB pages, NO HUGEPAGES: $MODE_WHY"
	log "warning: running on 4 KiB pages (--no-huge): $MODE_WHY"
fi

# --- the pcaps: 64 B, and IMIX 7:4:1 of 64/570/1518 interleaved ---------
gen() { "$pcapgen" flows "$1" --size "$2" --packets "$3" --flows 1000 \
	--dst-mac 02:76:69:00:00:01 --dst-net 198.18.1.0/24 --src-net 10.0.0.0/16 >/dev/null; }
gen "$work/64.pcap" 64 3000
gen "$work/i64.pcap" 64 2100
gen "$work/i570.pcap" 570 1200
gen "$work/i1518.pcap" 1518 300
python3 - "$work/imix.pcap" "$work/i64.pcap" "$work/i570.pcap" "$work/i1518.pcap" <<'EOF'
# 300 rounds of 12 frames: 7 x 64, 4 x 570, 1 x 1518, spread over the round
import struct, sys
def records(path):
    d = open(path, "rb").read()
    out, off = [], 24
    while off < len(d):
        n = struct.unpack_from("<I", d, off + 8)[0]
        out.append(d[off:off + 16 + n]); off += 16 + n
    return d[:24], out
hdr, a = records(sys.argv[2]); _, b = records(sys.argv[3]); _, c = records(sys.argv[4])
order = "ABAABAcABAAB".replace("c", "C")
it = {"A": iter(a), "B": iter(b), "C": iter(c)}
with open(sys.argv[1], "wb") as f:
    f.write(hdr)
    for _ in range(300):
        for k in order:
            f.write(next(it[k]))
EOF

# --- OVS: generator, sink and the two vhost-user ports ------------------
ovs_cpu=${BENCH_OVS_CPU:-$pmd}
echo "bench-virtio: CPU layout: the forwarder's worker on CPU $cpu; OVS's PMD (generator, vhost-user" \
     "copies, sink) on CPU $pmd; ovs-vswitchd's main thread on CPU $ovs_cpu; vbrd's main lcore on the" \
     "CPU its worker leaves ($(nproc) CPUs: with 2, the PMD and the forwarder each take one);" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)"
OVS_LCORE_CPU=$ovs_cpu OVS_PMD_CPU=$pmd OVS_PMD_MAXSLEEP=${BENCH_PMD_MAXSLEEP:-500} OVS_MEM_MB=$ovs_mb \
	OVS_HUGE_MB=$([ "$MODE" = hugepages ] && echo "$ovs_mb" || echo 0) "$ovs" start "$work/ovs" virtio-bovs
ovs_pid=$(cat "$work/ovs/ovs-vswitchd.pid")
"$ovs" bridge "$work/ovs" "$br" vin="$work/bench-in.sock" vout="$work/bench-out.sock"
"$ovs" vsctl "$work/ovs" add-port "$br" sink -- set Interface sink type=dpdk options:dpdk-devargs=net_null0
"$ovs" ofctl "$work/ovs" add-flow "$br" in_port=vout,actions=output:sink
# The generator's flow exists before the generator (each run adds the port
# with OpenFlow port number $gen_ofport), and a table miss is an explicit
# drop. Else the first frames of a run, before a flow added after the port,
# miss the table: OVS's default miss sends them to the controller (there is
# none) through the slow path, and in some runs (2-3 in 6 here) the datapath
# kept sending a share of the generator's frames to ovs-vswitchd's main
# thread (coverage/show: ~65k/s flow_extract, datapath_drop_userspace_action_error,
# packet_in_overflow), which then took ~0.45 of the PMD's CPU (40k involuntary
# context switches a second of the PMD thread): the PMD fell to ~1500
# cycles/packet and the run to ~0.5 Mpps, whatever the forwarder or the pages.
gen_ofport=10
"$ovs" ofctl "$work/ovs" add-flow "$br" "in_port=$gen_ofport,actions=output:vin"
"$ovs" ofctl "$work/ovs" add-flow "$br" "priority=0,actions=drop"

start_fwd() { # FORWARDER: vbrd or testpmd on the two vhost-user sockets
	case $1 in
	vbrd)
		sed -e "s#@instance@#virtio-bench#" -e "s#@socket@#$work/bench.sock#" \
			-e "s#@rundir@#$work#g" -e "s#@cpu@#$cpu#" -e "s#@memory_mb@#$fwd_mb#" \
			-e "s#@hugepages@#$([ "$MODE" = hugepages ] && echo true || echo false)#" \
			"$here/bench.conf" >"$work/bench.conf"
		# --in-memory --single-file-segments (--huge-unlink, which vbrd adds, refuses
		# --single-file-segments without --in-memory): one memfd, one vhost-user region, per
		# memseg list; else the table virtio-user sends OVS on each dynamic
		# allocation has too many regions ("Failed to set memory table")
		# shellcheck disable=SC2046
		"$vbrd" -c "$work/bench.conf" -- $([ "$MODE" = hugepages ] && echo --in-memory --single-file-segments) \
			>"$work/vbrd.log" 2>&1 &
		fwd_pid=$! ;;
	testpmd)
		# io forwarding: in's frames out of out, unchanged; --stats-period
		# keeps it running without a terminal until SIGTERM
		# shellcheck disable=SC2046
		dpdk-testpmd --file-prefix=virtio-bench-tp --no-pci -m "$fwd_mb" \
			$([ "$MODE" = hugepages ] && echo --in-memory --single-file-segments || echo --no-huge) \
			--lcores="0@$pmd,1@$cpu" --main-lcore=0 \
			--vdev="net_virtio_user0,path=$work/bench-in.sock,server=1,queues=1,mac=02:76:69:00:00:01" \
			--vdev="net_virtio_user1,path=$work/bench-out.sock,server=1,queues=1" \
			-- --forward-mode=io --nb-cores=1 --rxq=1 --txq=1 --burst=32 --total-num-mbufs=16384 \
			--auto-start --stats-period=10 </dev/null >"$work/testpmd.log" 2>&1 &
		fwd_pid=$! ;;
	esac
	local n=200
	until [ "$("$ovs" vsctl "$work/ovs" get Interface vin link_state)" = up ] &&
	      [ "$("$ovs" vsctl "$work/ovs" get Interface vout link_state)" = up ]; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || { echo "bench-virtio: $1's vhost-user ports not up" >&2; exit 1; }
		sleep 0.1
	done
	if [ "$1" = vbrd ]; then
		n=100
		until "$vbrctl" -s "$work/bench.sock" show ports >/dev/null 2>&1; do
			n=$((n - 1)); [ "$n" -gt 0 ] || { tail "$work/vbrd.log"; exit 1; }; sleep 0.1
		done
	fi
}

sink_tx() { "$ovs" ofctl "$work/ovs" dump-ports "$br" sink | sed -n 's/.*tx pkts=\([0-9]*\).*/\1/p'; }
vbrd_ports() { # "IN_RX OUT_TX"
	"$vbrctl" -s "$work/bench.sock" -j show ports |
		python3 -c 'import json,sys; p={x["name"]: x for x in json.load(sys.stdin)["ports"]}; print(p["in"]["rx_packets"], p["out"]["tx_packets"])'
}

cpu_ticks() { # PID: its user + system CPU time, clock ticks
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# one run: prints "FWD_MPPS SINK_MPPS IN_RX_MPPS BUSY_CORES FWD_HUGE_MB OVS_HUGE_MB"
measure() { # FORWARDER SIZE RUN
	local pcap=$work/$2.pcap a b s0 s1 t0 t1 c0 c1 hf ho
	"$ovs" vsctl "$work/ovs" add-port "$br" gen -- set Interface gen type=dpdk "ofport_request=$gen_ofport" \
		"options:dpdk-devargs=net_pcap_$2_$RANDOM,rx_pcap=$pcap,infinite_rx=1"
	sleep 2
	"$ovs" appctl "$work/ovs" dpif-netdev/pmd-stats-clear >/dev/null
	c0=$(cpu_ticks "$fwd_pid")
	t0=$(date +%s.%N); s0=$(sink_tx)
	[ "$1" = vbrd ] && a=$(vbrd_ports)
	sleep "$secs"
	t1=$(date +%s.%N); s1=$(sink_tx)
	c1=$(cpu_ticks "$fwd_pid")
	[ "$1" = vbrd ] && b=$(vbrd_ports)
	hf=$(huge_kb "$fwd_pid") ho=$(huge_kb "$ovs_pid")
	"$ovs" appctl "$work/ovs" dpif-netdev/pmd-perf-show >"$work/pmd-$1-$2-$3.txt" 2>&1 || true
	"$ovs" vsctl "$work/ovs" del-port "$br" gen
	printf '%s ' $((hf / 1024)) $((ho / 1024))
	python3 - "$t0" "$t1" "$s0" "$s1" "${a:-0 0}" "${b:-0 0}" "$((c1 - c0))" "$(getconf CLK_TCK)" <<'EOF'
import sys
t = float(sys.argv[2]) - float(sys.argv[1])
sink = (int(sys.argv[4]) - int(sys.argv[3])) / t / 1e6
a = [int(x) for x in sys.argv[5].split()]; b = [int(x) for x in sys.argv[6].split()]
rx, tx = (b[0] - a[0]) / t / 1e6, (b[1] - a[1]) / t / 1e6
busy = int(sys.argv[7]) / int(sys.argv[8]) / t
print("%.3f %.3f %.3f %.2f" % (tx if a != b else sink, sink, rx, busy))
EOF
}

summary() { # LABEL MODE VALUES...: median and spread
	python3 - "$@" <<'EOF'
import statistics, sys
label, mode, v = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3:]]
m = statistics.median(v)
print("bench-virtio: %s %.2f Mpps (median of %d runs: %s; spread %.0f %%) on %s"
      % (label, m, len(v), ", ".join("%.2f" % x for x in v), 100 * (max(v) - min(v)) / m if m else 0, mode))
EOF
}

for fwd in ${BENCH_FORWARDERS:-vbrd testpmd}; do
	for size in ${BENCH_SIZES:-64 imix}; do
		res=()
		for r in $(seq "$runs"); do
			start_fwd "$fwd"
			read -r hf ho f s i busy < <(measure "$fwd" "$size" "$r")
			stop_fwd
			if [ "$MODE" = hugepages ] && { [ "$hf" = 0 ] || [ "$ho" = 0 ]; }; then
				echo "bench-virtio: $fwd ($hf MiB) or OVS ($ho MiB) ran without hugepages although they were reserved" >&2
				exit 1
			fi
			echo "  $fwd $size run $r: forwarded $f Mpps (sink $s Mpps$([ "$fwd" = vbrd ] && echo ", vbrd rx $i Mpps"));" \
			     "CPU of $fwd's process $busy cores;" \
			     "PMD: $(grep -m1 -E 'Rx packets' "$work/pmd-$fwd-$size-$r.txt" | sed 's/^ *//;s/  */ /g')," \
			     "$(grep -m1 -i 'busy iterations' "$work/pmd-$fwd-$size-$r.txt" | sed 's/^ *//;s/  */ /g');" \
			     "$([ "$MODE" = hugepages ] && echo "hugepages ($fwd $hf MiB, OVS $ho MiB)" || echo "4 KiB PAGES")"
			res+=("$f")
		done
		label="$fwd $([ "$size" = imix ] && echo 'IMIX 7:4:1 (64/570/1518 B)' || echo "$size B"):"
		summary "$label" "$mode_text" "${res[@]}"
	done
done
