#!/usr/bin/env bash
# make run, path-selection step (run by run-lab.sh at the end, or on its
# own): two vbrds, an edge and a remote region, joined by three lines of
# different quality; every path x plane is probed with STAMP (RFC 8762)
# every 10 ms; a gray failure (5 % loss each way, nothing goes down) hits the
# line gold traffic uses, and gold moves; the switch is shown with the
# metrics that decided it.
#
#   ps-h1 10.1.1.2 ── lan [edge vbrd] line1 ══ ps-l1 (impair) ══ line1 [region vbrd] lan ── 10.2.2.2 ps-h2
#                                     line2 ══ ps-l2 (impair) ══ line2
#                                     line3 ══ ps-l3 (impair) ══ line3
#
# Each line is a namespace ps-lN in which tests/tools/impair forwards frames
# between two veths (it can add delay and loss, as netem would). The edge
# tunnels h2's subnet to the region (VXLAN, path group "region": p-line1
# cost 30, p-line2 cost 20, p-line3 cost 10, 4 planes each = outer UDP
# source ports 49152..49155); the region does the same back. Gold traffic
# takes the path with the lowest latency, bronze the cheapest that loses
# little enough. Everything this script creates, it removes.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
vbrd=$build/app/vbrd
vbrctl=$build/app/vbrctl
impair=$build/tests/tools/impair
seqstream=$root/tests/tcl/tools/seqstream.py
work=$(mktemp -d /tmp/vbrd-pathsel.XXXXXX)
pids=()

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
ctl() {
	local side=$1
	shift
	echo "\$ vbrctl -i ps-$side $*"
	"$vbrctl" -i "ps-$side" "$@"
}

cleanup() {
	local status=$?
	set +e
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	done
	for ns in ps-h1 ps-h2 ps-l1 ps-l2 ps-l3; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	for l in psa-lan psb-lan psa-l1 psa-l2 psa-l3 psb-l1 psb-l2 psb-l3; do
		ip link del "$l" 2>/dev/null
	done
	rm -rf /run/dpdk/ps-edge /run/dpdk/ps-region
	if [ "${status:-1}" -eq 0 ]; then
		rm -rf "$work"
	else
		echo "path-selection lab removed (logs kept in $work)"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ -x "$impair" ] || { echo "pathsel-lab.sh: $impair missing: make" >&2; exit 1; }

step "path selection lab: an edge and a region vbrd, three lines through impair (netns ps-l1..3)"
veth_ns() { # veth ROOT_END NS NS_END
	ip link del "$1" 2>/dev/null || true
	ip link add "$1" type veth peer name "$3" netns "$2"
	ip link set "$1" up
	ip -n "$2" link set "$3" up
	ip netns exec "$2" ethtool -K "$3" tx off >/dev/null
	ethtool -K "$1" tx off >/dev/null 2>&1 || true
}
for ns in ps-h1 ps-h2 ps-l1 ps-l2 ps-l3; do
	ip netns del "$ns" 2>/dev/null || true
	ip netns add "$ns"
	ip -n "$ns" link set lo up
done
veth_ns psa-lan ps-h1 eth0
veth_ns psb-lan ps-h2 eth0
ip -n ps-h1 addr add 10.1.1.2/24 dev eth0
ip -n ps-h1 route add default via 10.1.1.1
ip -n ps-h2 addr add 10.2.2.2/24 dev eth0
ip -n ps-h2 route add default via 10.2.2.1
for n in 1 2 3; do
	veth_ns "psa-l$n" "ps-l$n" ifa
	veth_ns "psb-l$n" "ps-l$n" ifb
	ip netns exec "ps-l$n" taskset -c 0 "$impair" --a ifa --b ifb --ctl "$work/l$n.sock" \
		>"$work/impair$n.log" 2>&1 &
	pids+=($!)
done
for n in 1 2 3; do
	for _ in $(seq 100); do grep -q "impair: ready" "$work/impair$n.log" && break; sleep 0.1; done
done
echo "  line1, line2, line3: 172.16.N.1 (edge) <-> 172.16.N.2 (region), each through its impair"

conf() { # conf SIDE ME PEER LAN HOST_NET FAR_NET GROUP TUNNEL
	local side=$1 me=$2 peer=$3 lan=$4 far=$5 group=$6 tunnel=$7 x=$8
	cat <<EOF
instance = "ps-$side";
eal = { hugepages = false; memory_mb = 512; };
workers = { cores = [ 1 ]; idle_sleep_us = 100; };
ports = (
  { name = "lan";   devargs = "net_af_packet0,iface=ps$x-lan"; },
  { name = "line1"; devargs = "net_af_packet1,iface=ps$x-l1"; },
  { name = "line2"; devargs = "net_af_packet2,iface=ps$x-l2"; },
  { name = "line3"; devargs = "net_af_packet3,iface=ps$x-l3"; }
);
interfaces = (
  { name = "lan";   port = "lan";   address = "$lan"; },
  { name = "line1"; port = "line1"; address = "172.16.1.$me/24"; },
  { name = "line2"; port = "line2"; address = "172.16.2.$me/24"; },
  { name = "line3"; port = "line3"; address = "172.16.3.$me/24"; }
);
tunnels = (
  { name = "$tunnel"; type = "vxlan"; vni = 1000;
    local = "192.168.100.$me"; remote = "192.168.100.$peer"; }
);
path_groups = (
  { name = "$group";
    paths = (
      { name = "p-line1"; tunnel = "$tunnel"; interface = "line1"; via = "172.16.1.$peer"; cost = 30; planes = 4; },
      { name = "p-line2"; tunnel = "$tunnel"; interface = "line2"; via = "172.16.2.$peer"; cost = 20; planes = 4; },
      { name = "p-line3"; tunnel = "$tunnel"; interface = "line3"; via = "172.16.3.$peer"; cost = 10; planes = 4; }
    ); }
);
# every path x plane probed every 10 ms; gold: lowest latency, bronze:
# cheapest within 5 % loss; a candidate must be 10 % (at least 2 ms) better
# for 100 ms before traffic moves
pathsel = {
  groups = ( { path_group = "$group"; interval = 10; } );
};
routes = ( { prefix = "$far"; path_group = "$group"; } );
EOF
}
conf edge 1 2 10.1.1.1/24 10.2.2.0/24 region to-region a >"$work/edge.conf"
conf region 2 1 10.2.2.1/24 10.1.1.0/24 edge to-edge b >"$work/region.conf"
sed -n '/^path_groups/,/^);/p;/^pathsel/,/^};/p' "$work/edge.conf"

step "vbrd -c edge.conf, vbrd -c region.conf"
# DPDK 22.11's af_packet PMD names its PACKET_FANOUT group after pid XOR
# ifindex: two vbrds in one network namespace can collide, and the kernel
# refuses the second. A new process has a new pid: start it again.
start_vbrd() {
	local side=$1 p
	for _attempt in 1 2 3 4 5; do
		"$vbrd" -c "$work/$side.conf" >"$work/$side.log" 2>&1 &
		p=$!
		for _ in $(seq 200); do
			"$vbrctl" -i "ps-$side" show ports >/dev/null 2>&1 && { pids+=("$p"); return 0; }
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		wait "$p" 2>/dev/null || true
		grep -q "could not set PACKET_FANOUT" "$work/$side.log" || break
	done
	echo "vbrd ($side) did not start:"
	tail -20 "$work/$side.log"
	exit 1
}
start_vbrd edge
start_vbrd region
healthy() { # every path of SIDE has its 4 planes healthy
	"$vbrctl" -j -i "ps-$1" show pathsel | python3 -c '
import json, sys
g = json.load(sys.stdin)["path_groups"][0]
sys.exit(0 if all(p.get("healthy_planes") == 4 and p.get("probes_judged", 0) >= 200 for p in g["paths"]) else 1)'
}
for _ in $(seq 150); do healthy edge && healthy region && break; sleep 0.1; done
healthy edge || { echo "the edge's paths did not come up:"; "$vbrctl" -i ps-edge show pathsel planes; exit 1; }
# the first probes' RTTs include both vbrds starting up: wait until the
# window (100 probes per plane, 1 s) holds none of them
settled() {
	"$vbrctl" -j -i ps-edge show pathsel | python3 -c '
import json, sys
g = json.load(sys.stdin)["path_groups"][0]
sys.exit(0 if all(p.get("rtt_p99_us", 1e9) < 20000 for p in g["paths"]) else 1)'
}
for _ in $(seq 50); do settled && break; sleep 0.1; done
gold() { "$vbrctl" -j -i ps-edge show pathsel | python3 -c 'import json,sys; print(json.load(sys.stdin)["path_groups"][0]["gold"])'; }
paths() { # the edge's paths and their metrics, one line each
	echo "\$ vbrctl -j -i ps-edge show pathsel   # as a table"
	"$vbrctl" -j -i ps-edge show pathsel | python3 -c '
import json, sys
g = json.load(sys.stdin)["path_groups"][0]
print("  group %s: gold -> %s, silver -> %s, bronze -> %s" % (g["name"], g["gold"], g["silver"], g["bronze"]))
print("  %-8s %5s %6s %11s %11s %11s %10s %8s" % ("path", "cost", "planes", "rtt_min_ms", "rtt_mean_ms", "rtt_p99_ms", "jitter_ms", "loss_%"))
for p in g["paths"]:
    print("  %-8s %5d %6d %11.3f %11.3f %11.3f %10.3f %8.2f" % (p["name"], p["cost"], p["healthy_planes"],
          p["rtt_min_us"] / 1e3, p["rtt_mean_us"] / 1e3, p["rtt_p99_us"] / 1e3, p["jitter_us"] / 1e3, p["loss_pct"]))'
}
paths
g0=$(gold)
line=${g0#p-}
echo "gold traffic takes $g0: the lowest recent RTT (the median of each plane's last 8 probes, not the"
echo "mean or p99 above), and another path must be 10 % and 2 ms better for 100 ms to take over, so"
echo "lines this equal keep the first one; bronze takes the cheapest path within its 5 % loss bound"

step "h1 streams 5000 packets/s to h2 (gold traffic); after 2 s, a gray failure: $line loses 5 % of its frames each way, nothing goes down"
ip netns exec ps-h2 taskset -c 0 python3 "$seqstream" recv --port 9000 --seconds 9 --json >"$work/recv.json" &
rpid=$!
sleep 0.5
ip netns exec ps-h1 taskset -c 0 python3 "$seqstream" send --dst 10.2.2.2 --port 9000 --pps 5000 --seconds 6 >"$work/send.json" &
spid=$!
sleep 2
t0=$(date +%s%6N)
"$impair" ctl "$work/l${line#line}.sock" set loss 5 >/dev/null
echo "  $(date -u +%FT%T.%6NZ): $line loses 5 % (impair in ps-l${line#line}: loss 5, both ways)"
wait "$spid" "$rpid"

step "the switch, with the metrics that decided it (vbrctl show pathsel history)"
"$vbrctl" -j -i ps-edge show pathsel history | python3 -c '
import json, sys
t0 = int(sys.argv[1])
for e in json.load(sys.stdin)["events"]:
    if e["event"] == "switch" and e["time_us"] >= t0:
        print("  %.0f ms after the loss began: tier %s %s -> %s (%s): loss %.1f -> %.1f %%, RTT %.2f -> %.2f ms, jitter %.2f -> %.2f ms"
              % ((e["time_us"] - t0) / 1000, e["tier"], e["old"], e["new"], e["reason"],
                 e["old_loss_pct"], e["new_loss_pct"], e["old_rtt_us"] / 1000, e["new_rtt_us"] / 1000,
                 e["old_jitter_us"] / 1000, e["new_jitter_us"] / 1000))
' "$t0"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("  receiver: %d of %d datagrams, %d lost (%.2f %%), %d reordered"
      % (r["received"], r["sent"], r["lost"], 100.0 * r["lost"] / max(r["sent"], 1), r.get("reordered", 0)))
' "$work/recv.json"
paths
echo "(loss_% is the round trip's, over each plane's last 100 probes (1 s): 5 % each way loses about"
echo " 9.75 % of the probes once the window is all lossy. At the switch the window still held mostly"
echo " probes from before the loss began: the switch came from the last 25 probes per plane, whose"
echo " loss was surely above gold's 1 % bound (a confidence bound, failover/pathsel/pathsel_decide.h), held 100 ms."
echo " Reordered datagrams are those still in flight on $line when the next ones took the new path.)"
"$impair" ctl "$work/l${line#line}.sock" set loss 0 >/dev/null
