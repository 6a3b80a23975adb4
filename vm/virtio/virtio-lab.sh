#!/usr/bin/env bash
# make lab-virtio: the virtio lab. Two vbrds, an IDC edge and a region
# gateway, joined by two lines over vhost-user / virtio-user through Open
# vSwitch with DPDK (Debian's openvswitch-switch-dpdk, started here without
# systemd by vm/virtio/ovs.sh), a host behind each:
#
#   h1 (netns virtio-h1, 10.1.1.2/24)                     h2 (netns virtio-h2, 10.2.2.2/24)
#     └ vio-h1 ── lan [edge] line1 ══ OVS ══ line1 [region] lan ── vio-h2 ┘
#                            line2 ══ OVS ══ line2
#
# OVS (bridge virtio-br, netdev datapath; ovs-vswitchd in netns virtio-ovs) has a dpdkvhostuserclient port per
# vbrd line (edge-line1, region-line1, edge-line2, region-line2) and joins
# line N's two ports by in_port flows. The vbrds run on vm/virtio/edge.conf
# and region.conf (BFD on both lines, a failover group "uplink"), copied
# with their paths filled in. The script prints the time from nothing to
# the first ping through the lab, pings, the ports and the group, then cuts
# line1 silently (OpenFlow drop flows, both ways) under a 5000 datagrams/s
# stream, prints the outage the receiver saw and the group's history, heals
# the line and removes the lab. HOLD=1 keeps the lab up (after the cut and
# heal) until Ctrl-C. Needs root; run one at a time (fixed names).
#
#   vm/virtio/virtio-lab.sh clean   removes what a killed lab left (kill -9,
#                                   a lost session): its OVS, vbrds, hosts,
#                                   bridge TAP, DPDK runtime and work dirs
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/vm/virtio
# shellcheck source=vm/lab/lab-host.sh
. "$root/vm/lab/lab-host.sh"
vbrd=$root/build/app/vbrd
vbrctl=$root/build/app/vbrctl
ovs=$here/ovs.sh
seqstream=$root/tests/tcl/tools/seqstream.py
br=virtio-br
work=
pids=()
t0=$(date +%s.%N)

[ "$(id -u)" = 0 ] || { echo "make lab-virtio: needs root (network namespaces, veths, DPDK)" >&2; exit 1; }
[ -x "$vbrd" ] || { echo "make lab-virtio: $vbrd missing: run 'make build'" >&2; exit 1; }
[ -x /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk ] ||
	{ echo "make lab-virtio: Open vSwitch with DPDK missing: make deps (openvswitch-switch-dpdk)" >&2; exit 1; }

# the pids of the other virtio-lab.sh processes (a lab that runs), by one
# fork that execs pgrep (a subshell of ours would match too)
others=$(exec pgrep -f 'vm/virtio/virtio-lab\.sh') || true
others=$(echo "$others" | grep -vx "$$" | tr '\n' ' ') || true
clean_killed() { # what a killed lab left: its processes, hosts, TAP, dirs
	local d pid
	for d in /tmp/vbrd-virtio.*; do
		[ -d "$d" ] || continue
		# its vbrds, then its OVS (exit --cleanup takes the bridge's TAP)
		for pid in $(pgrep -f -- "-c $d/(edge|region)\.conf$" || true); do
			kill -TERM "$pid" 2>/dev/null || true
		done
		for pid in $(pgrep -f -- "-c $d/(edge|region)\.conf$" || true); do
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -KILL "$pid" 2>/dev/null || true
		done
		if [ -d "$d/ovs" ]; then "$ovs" stop "$d/ovs"; fi
		rm -rf "$d"
		echo "removed the lab of $d"
	done
	for h in h1 h2; do
		ip netns pids "virtio-$h" 2>/dev/null | xargs -r kill 2>/dev/null || true
		ip netns del "virtio-$h" 2>/dev/null || true
		ip link del "vio-$h" 2>/dev/null || true
	done
	ip netns del virtio-ovs 2>/dev/null || true   # ovs-vswitchd's (ovs.sh), with the bridge's TAP
	rm -rf /run/dpdk/virtio-edge /run/dpdk/virtio-region /run/dpdk/virtio-ovs
}
if [ "${1:-}" = clean ]; then
	if [ -n "$others" ]; then
		echo "virtio-lab.sh clean: a lab runs (pid ${others% }): end it (Ctrl-C) instead" >&2
		exit 1
	fi
	clean_killed
	exit 0
fi
[ $# -eq 0 ] || { sed -n '2,26p' "$0" >&2; exit 2; }
for n in virtio-edge virtio-region virtio-ovs; do
	if [ -d "/run/dpdk/$n" ] && fuser -s "/run/dpdk/$n/config" 2>/dev/null; then
		if [ -n "$others" ]; then
			echo "make lab-virtio: another lab runs (pid ${others% }); end it first" >&2
		else
			echo "make lab-virtio: a killed lab left processes on /run/dpdk/$n: run '$0 clean' first" >&2
		fi
		exit 1
	fi
done

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
elapsed() { awk -v t0="$t0" -v t="$(date +%s.%N)" 'BEGIN { printf "%.2f", t - t0 }'; }
ctl() { local side=$1; shift; echo "\$ vbrctl -s \$W/$side.sock $*   # $side"; "$vbrctl" -s "$work/$side.sock" "$@"; }
group_on() { # SIDE MEMBER: the group uplink of SIDE is on MEMBER
	"$vbrctl" -s "$work/$1.sock" -j show fgroup uplink 2>/dev/null |
		python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["groups"][0]["active"] == sys.argv[1] else 1)' "$2"
}
wait_for() { # TRIES(0.1 s) CMD...: poll until CMD succeeds
	local n=$1
	shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

cleanup() {
	local status=$?
	set +e
	trap - EXIT HUP INT TERM
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	done
	[ -n "$work" ] && "$ovs" stop "$work/ovs"
	for h in h1 h2; do
		ip netns pids "virtio-$h" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "virtio-$h" 2>/dev/null
		ip link del "vio-$h" 2>/dev/null
	done
	ip netns del virtio-ovs 2>/dev/null   # ovs-vswitchd's (ovs.sh), with the bridge's TAP
	rm -rf /run/dpdk/virtio-edge /run/dpdk/virtio-region /run/dpdk/virtio-ovs
	if [ "${status:-1}" -eq 0 ]; then
		[ -n "$work" ] && rm -rf "$work"
		echo "lab removed"
	else
		echo "lab removed (logs kept: $work)"
	fi
}
trap cleanup EXIT
trap 'exit 129' HUP   # a closed terminal: without it EXIT's cleanup would not run
trap 'exit 130' INT TERM
work=$(mktemp -d /tmp/vbrd-virtio.XXXXXX)
echo "work dir W=$work (vbrd configs and logs, OVS's database, logs and vhost-user sockets)"

step "hosts: two network namespaces, joined to the root namespace by veth pairs"
for n in 1 2; do
	h=h$n
	lab_host "virtio-$h" "vio-$h" "10.$n.$n.2/24" "10.$n.$n.1"
	echo "  $h: netns virtio-$h, eth0 10.$n.$n.2/24 via 10.$n.$n.1, vbrd's side vio-$h"
done

step "Open vSwitch with DPDK, no systemd: ovsdb-server and ovs-vswitchd-dpdk in \$W/ovs (R)"
echo "  no hugepages (--no-huge -m 512); main lcore CPU 0, PMD CPU 1 sleeping up to 500 µs when idle"
"$ovs" -v start "$work/ovs" virtio-ovs
echo "  [$(elapsed) s] ovs-vswitchd up, DPDK initialised"
"$ovs" -v bridge "$work/ovs" "$br" \
	edge-line1="$work/edge-line1.sock" region-line1="$work/region-line1.sock" \
	edge-line2="$work/edge-line2.sock" region-line2="$work/region-line2.sock"
"$ovs" -v link "$work/ovs" "$br" edge-line1 region-line1
"$ovs" -v link "$work/ovs" "$br" edge-line2 region-line2

step "vbrd edge and region (vm/virtio/edge.conf, region.conf): the lines are vhost-user servers"
start_vbrd() { # SIDE: start vbrd on $W/SIDE.conf; its pid in pids[]
	echo "\$ vbrd -c \$W/$1.conf"
	"$vbrd" -c "$work/$1.conf" >"$work/$1.log" 2>&1 &
	pids+=($!)
}
for side in edge region; do
	h=$([ $side = edge ] && echo h1 || echo h2)
	sed -e "s#@instance@#virtio-$side#" -e "s#@socket@#$work/$side.sock#" \
		-e "s#@rundir@#$work#g" -e "s#@$h@#vio-$h#" "$here/$side.conf" >"$work/$side.conf"
	start_vbrd $side
done
i=0
for side in edge region; do
	tries=1
	until "$vbrctl" -s "$work/$side.sock" show ports >/dev/null 2>&1; do
		i=$((i + 1))
		pid=${pids[$([ $side = edge ] && echo 0 || echo 1)]}
		if ! kill -0 "$pid" 2>/dev/null; then
			# DPDK 22.11's af_packet names its PACKET_FANOUT group pid XOR
			# ifindex: two processes can collide; a new pid does not
			if grep -q "could not set PACKET_FANOUT" "$work/$side.log" && [ "$tries" -lt 5 ]; then
				tries=$((tries + 1))
				rm -rf "/run/dpdk/virtio-$side"
				start_vbrd $side
				pids[$([ $side = edge ] && echo 0 || echo 1)]=${pids[-1]}
				unset 'pids[-1]'
				continue
			fi
			echo "vbrd $side exited:"; tail -20 "$work/$side.log"; exit 1
		fi
		[ "$i" -lt 200 ] || { echo "vbrd $side did not answer:"; tail -20 "$work/$side.log"; exit 1; }
		sleep 0.1
	done
done
echo "  [$(elapsed) s] both vbrds answer vbrctl"
wait_for 300 ip netns exec virtio-h1 ping -c 1 -W 0.2 10.2.2.2 >/dev/null ||
	{ echo "h1 cannot reach h2:"; tail -5 "$work/edge.log" "$work/region.log"; exit 1; }
up_s=$(elapsed)
echo "  [$up_s s] first ping h1 -> h2 through edge -> OVS -> region"

step "ping h1 -> h2 (lab up in $up_s s from nothing)"
ip netns exec virtio-h1 ping -c 5 -i 0.2 10.2.2.2
ctl edge show ports
echo "\$ ovs-ofctl dump-flows $br    # OVS: line N is an in_port pair"
"$ovs" ofctl "$work/ovs" dump-flows --names --no-stats "$br"
echo "\$ ovs-ofctl dump-ports $br"
"$ovs" ofctl "$work/ovs" dump-ports --names "$br" | grep -E 'port|pkts' | sed 's/^ *//'

step "BFD on both lines, the failover group uplink on line1"
wait_for 100 group_on edge member0 || true
wait_for 100 group_on region member0 || true
ctl edge show bfd
ctl edge show fgroup uplink

step "a silent cut: h1 streams 5000 datagrams/s to h2; after 1.5 s OVS drops all of line1, both ways"
ip netns exec virtio-h2 taskset -c 0 python3 "$seqstream" recv --port 9000 --seconds 10 --json >"$work/recv.json" &
rpid=$!
pids+=("$rpid")
sleep 0.5
ip netns exec virtio-h1 taskset -c 0 python3 "$seqstream" send --dst 10.2.2.2 --port 9000 --pps 5000 --seconds 4 >"$work/send.json" &
spid=$!
pids+=("$spid")
sleep 1.5
"$ovs" -v cut "$work/ovs" "$br" edge-line1 region-line1
echo "  $(date -u +%FT%T.%6NZ): line1 cut (vbrd's ports keep their link: only BFD can tell)"
wait "$spid" "$rpid"
python3 "$seqstream" outage "$work/recv.json"
ctl edge show fgroup uplink
ctl edge show fgroup history
ctl region show fgroup uplink

step "line1 heals: the groups return to it once l1 has been Up for the 1 s hold-down"
"$ovs" -v restore "$work/ovs" "$br" edge-line1 region-line1
wait_for 100 group_on edge member0 || echo "  (edge not back on line1 after 10 s)"
wait_for 100 group_on region member0 || echo "  (region not back on line1 after 10 s)"
ctl edge show fgroup uplink
ip netns exec virtio-h1 ping -c 3 -i 0.2 10.2.2.2 | tail -2
echo
echo "lab came up in $up_s s (from nothing to the first ping h1 -> h2)"

if [ "${HOLD:-0}" = 1 ]; then
	step "lab is up until Ctrl-C"
	echo "hosts: ip netns exec virtio-h1 ping 10.2.2.2 (h2: virtio-h2)"
	echo "vbrd:  $vbrctl -s $work/edge.sock show fgroup   (region: $work/region.sock)"
	echo "OVS:   $ovs ofctl $work/ovs dump-ports $br"
	echo "cut:   $ovs cut $work/ovs $br edge-line1 region-line1   (heal: restore, same arguments)"
	trap 'exit 0' HUP INT TERM   # Ctrl-C (or a closed terminal) is how a held lab ends: nothing to keep
	wait "${pids[0]}"
fi
