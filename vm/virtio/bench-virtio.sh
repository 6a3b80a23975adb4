#!/usr/bin/env bash
# make bench-virtio: what vbrd forwards through the virtio lab's path, in
# Mpps, at 64 B and at IMIX 7:4:1 (64/570/1518 B frames, FCS included):
#
#   OVS port gen (net_pcap, the pcap replayed from memory) ─flow─> in-vhost ══ in [vbrd] out ══ out-vhost ─flow─> OVS port sink (net_null)
#
# Open vSwitch with DPDK (vm/virtio/ovs.sh, no hugepages) owns the
# generator and the sink; vbrd (vm/virtio/bench.conf) routes between its
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
# Needs root.
#
# Environment: BUILD (build), BENCH_RUNS (5), BENCH_SECONDS (5),
# BENCH_CPU (0), BENCH_PMD_CPU (1), BENCH_OVS_CPU (= BENCH_PMD_CPU),
# BENCH_PMD_MAXSLEEP (500 µs; at full load the PMD never sleeps),
# BENCH_SIZES ("64 imix"), BENCH_FORWARDERS ("vbrd testpmd").
set -euo pipefail

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
	if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "bench-virtio: logs kept in $work"; fi
}
trap cleanup EXIT
trap 'exit 129' HUP   # a closed terminal: without it EXIT's cleanup would not run
trap 'exit 130' INT TERM
work=$(mktemp -d /tmp/vbrd-bench-virtio.XXXXXX)

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
OVS_LCORE_CPU=$ovs_cpu OVS_PMD_CPU=$pmd OVS_PMD_MAXSLEEP=${BENCH_PMD_MAXSLEEP:-500} OVS_MEM_MB=1024 \
	"$ovs" start "$work/ovs" virtio-bovs
"$ovs" bridge "$work/ovs" "$br" vin="$work/bench-in.sock" vout="$work/bench-out.sock"
"$ovs" vsctl "$work/ovs" add-port "$br" sink -- set Interface sink type=dpdk options:dpdk-devargs=net_null0
"$ovs" ofctl "$work/ovs" add-flow "$br" in_port=vout,actions=output:sink

start_fwd() { # FORWARDER: vbrd or testpmd on the two vhost-user sockets
	case $1 in
	vbrd)
		sed -e "s#@instance@#virtio-bench#" -e "s#@socket@#$work/bench.sock#" \
			-e "s#@rundir@#$work#g" -e "s#@cpu@#$cpu#" "$here/bench.conf" >"$work/bench.conf"
		"$vbrd" -c "$work/bench.conf" >"$work/vbrd.log" 2>&1 &
		fwd_pid=$! ;;
	testpmd)
		# io forwarding: in's frames out of out, unchanged; --stats-period
		# keeps it running without a terminal until SIGTERM
		dpdk-testpmd --file-prefix=virtio-bench-tp --no-pci --no-huge -m 512 \
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

# one run: prints "FWD_MPPS SINK_MPPS IN_RX_MPPS BUSY_CORES"
measure() { # FORWARDER SIZE
	local pcap=$work/$2.pcap a b s0 s1 t0 t1 c0 c1
	"$ovs" vsctl "$work/ovs" add-port "$br" gen -- set Interface gen type=dpdk \
		"options:dpdk-devargs=net_pcap_$2_$RANDOM,rx_pcap=$pcap,infinite_rx=1"
	"$ovs" ofctl "$work/ovs" add-flow "$br" in_port=gen,actions=output:vin
	sleep 2
	"$ovs" appctl "$work/ovs" dpif-netdev/pmd-stats-clear >/dev/null
	c0=$(cpu_ticks "$fwd_pid")
	t0=$(date +%s.%N); s0=$(sink_tx)
	[ "$1" = vbrd ] && a=$(vbrd_ports)
	sleep "$secs"
	t1=$(date +%s.%N); s1=$(sink_tx)
	c1=$(cpu_ticks "$fwd_pid")
	[ "$1" = vbrd ] && b=$(vbrd_ports)
	"$ovs" appctl "$work/ovs" dpif-netdev/pmd-perf-show >"$work/pmd-$1-$2.txt" 2>&1 || true
	"$ovs" ofctl "$work/ovs" del-flows "$br" in_port=gen
	"$ovs" vsctl "$work/ovs" del-port "$br" gen
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

summary() { # LABEL VALUES...: median and spread
	python3 - "$@" <<'EOF'
import statistics, sys
label, v = sys.argv[1], [float(x) for x in sys.argv[2:]]
m = statistics.median(v)
print("bench-virtio: %s %.2f Mpps (median of %d runs: %s; spread %.0f %%)"
      % (label, m, len(v), ", ".join("%.2f" % x for x in v), 100 * (max(v) - min(v)) / m if m else 0))
EOF
}

for fwd in ${BENCH_FORWARDERS:-vbrd testpmd}; do
	for size in ${BENCH_SIZES:-64 imix}; do
		res=()
		for r in $(seq "$runs"); do
			start_fwd "$fwd"
			read -r f s i busy < <(measure "$fwd" "$size")
			stop_fwd
			echo "  $fwd $size run $r: forwarded $f Mpps (sink $s Mpps$([ "$fwd" = vbrd ] && echo ", vbrd rx $i Mpps"));" \
			     "CPU of $fwd's process $busy cores;" \
			     "PMD: $(grep -m1 -E 'Rx packets' "$work/pmd-$fwd-$size.txt" | sed 's/^ *//;s/  */ /g')," \
			     "$(grep -m1 -E 'Busy iterations' "$work/pmd-$fwd-$size.txt" | sed 's/^ *//;s/  */ /g')"
			res+=("$f")
		done
		label="$fwd $([ "$size" = imix ] && echo 'IMIX 7:4:1 (64/570/1518 B)' || echo "$size B"):"
		summary "$label" "${res[@]}"
	done
done
