#!/usr/bin/env bash
# make run: a two-host lab on this machine, vbrd routing between the hosts.
#
#   h1 (netns vbrd-h1, 10.0.1.2/24) ──veth── vbrd ──veth── h2 (netns vbrd-h2, 10.0.2.2/24)
#                                 vbr-h1  lan1 10.0.1.1   lan2 10.0.2.1  vbr-h2
#
# vbrd runs on a copy of conf/vbrd.conf (ports are net_af_packet on the
# vbr-h* veth ends). The script shows ARP, ping, TCP and UDP iperf3 through
# vbrd and the counters vbrctl reports; then it adds vm/lab/qos-lab.conf to
# the copy, reloads, and shows two businesses sharing a 50 Mbit/s line
# under overload with their measured rates; then it stops vbrd and runs
# vm/lab/failover-lab.sh (a line failing silently under a stream, the
# outage it caused in ms), then vm/lab/pathsel-lab.sh (two vbrds over
# three probed lines: a gray failure on gold's line and the switch it
# caused, with the metrics), and removes the lab. Set HOLD=1 to keep the
# lab up until Ctrl-C, without the failover and path-selection steps (try
# `build/app/vbrctl show stats` meanwhile).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=vm/lab/lab-host.sh
. "$root/vm/lab/lab-host.sh"
vbrd=$root/build/app/vbrd
vbrctl=$root/build/app/vbrctl
src_conf=${VBRD_CONF:-$root/conf/vbrd.conf}
log=$(mktemp /tmp/vbrd-run.XXXXXX.log)
confdir=
pid=

[ "$(id -u)" = 0 ] || { echo "make run: needs root (network namespaces, raw sockets)" >&2; exit 1; }
[ -x "$vbrd" ] || { echo "make run: $vbrd missing: run 'make build'" >&2; exit 1; }

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
ctl() { echo "\$ vbrctl $*"; "$vbrctl" "$@"; }

cleanup() {
	local status=$?
	set +e
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
	fi
	for h in h1 h2; do
		ip netns pids "vbrd-$h" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "vbrd-$h" 2>/dev/null
		ip link del "vbr-$h" 2>/dev/null
	done
	# vbrd's DPDK runtime files (the instance is "vbrd", conf/vbrd.conf)
	rm -rf /run/dpdk/vbrd
	[ -n "$confdir" ] && rm -rf "$confdir"
	if [ "${status:-1}" -eq 0 ]; then
		rm -f "$log"
		echo "lab removed"
	else
		echo "lab removed (vbrd log kept: $log)"
	fi
}

if [ -S /run/vbrd/vbrd.sock ] && "$vbrctl" show config >/dev/null 2>&1; then
	echo "make run: a vbrd already answers on /run/vbrd/vbrd.sock (pid $(ss -xlpn 2>/dev/null | sed -n 's#.*/run/vbrd/vbrd.sock .*pid=\([0-9]*\).*#\1#p' | head -1));" \
	     "stop it first (kill PID: it removes its state on SIGTERM), then make run again" >&2
	exit 1
fi

# Interfaces of that name that are not this lab's leftovers belong to someone else.
for h in h1 h2; do
	if ip link show "vbr-$h" >/dev/null 2>&1 && ! ip netns list | grep -qw "vbrd-$h"; then
		echo "make run: interface vbr-$h exists and is not this lab's; remove it" \
		     "(ip link del vbr-$h) or free the name" >&2
		exit 1
	fi
done

# From here on, whatever happens, the lab is removed.
trap cleanup EXIT
trap 'exit 130' INT TERM
# vbrd runs on a copy, so that the QoS step can add to it and reload
confdir=$(mktemp -d /tmp/vbrd-run.XXXXXX)
conf=$confdir/vbrd.conf
cp "$src_conf" "$conf"

step "lab: two hosts in network namespaces, joined to vbrd by veth pairs"
for n in 1 2; do
	h=h$n
	lab_host "vbrd-$h" "vbr-$h" "10.0.$n.2/24" "10.0.$n.1"
	echo "  $h: netns vbrd-$h, eth0 10.0.$n.2/24, default via 10.0.$n.1 (vbrd), vbrd side vbr-$h"
done

step "vbrd -c $conf"
"$vbrd" -c "$conf" >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	"$vbrctl" show ports >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || { echo "vbrd exited:"; cat "$log"; exit 1; }
	sleep 0.1
done
"$vbrctl" show ports >/dev/null || { echo "vbrd did not answer:"; tail -20 "$log"; exit 1; }
grep -v '^EAL\|^TELEMETRY' "$log" || true
ctl show interfaces

step "ping h1 -> h2 through vbrd (vbrd resolves both hosts by ARP)"
ip netns exec vbrd-h1 ping -c 5 -i 0.2 10.0.2.2
ctl show neighbors

step "TCP: iperf3 h1 -> h2, 5 s"
ip netns exec vbrd-h2 iperf3 -s -1 -D
sleep 0.3
ip netns exec vbrd-h1 iperf3 -c 10.0.2.2 -t 5 | grep -E 'sender|receiver'

step "UDP: iperf3 h1 -> h2, 200 Mbit/s for 3 s"
ip netns exec vbrd-h2 iperf3 -s -1 -D
sleep 0.3
rcvbuf() { ip netns exec vbrd-h2 awk '/^Udp:/ { if (h) print $(i); else for (i = 1; i <= NF; i++) if ($i == "RcvbufErrors") h = 1 }' /proc/net/snmp; }
rb0=$(rcvbuf)
ip netns exec vbrd-h1 iperf3 -c 10.0.2.2 -u -b 200M -t 3 | grep -E 'sender|receiver'
# iperf3's loss counts datagrams its socket never got: say how many the
# receiving host's own socket buffer dropped (vbrd's drops are in "counters")
echo "h2's kernel dropped $(( $(rcvbuf) - rb0 )) datagrams for a full socket buffer (UDP RcvbufErrors)"

step "ICMP from vbrd: TTL 1 (time exceeded) and an unroutable destination (net unreachable)"
ip netns exec vbrd-h1 ping -c 1 -t 1 10.0.2.2 | grep -E 'From|exceeded' || true
ip netns exec vbrd-h1 ping -c 1 -W 1 192.0.2.1 | grep -E 'From|Unreachable' || true

step "counters"
ctl show interfaces
ctl show stats
ctl show mempool

step "QoS: lan2 becomes a 50 Mbit/s line shared 70/30 by two businesses (vbrctl reload, no restart)"
sed -n 's/^# \{0,1\}//p' "$root/vm/lab/qos-lab.conf" | sed -n '2,4p'
cat "$root/vm/lab/qos-lab.conf" >>"$conf"
ctl reload
step "QoS: both businesses overload the line: inference (port 5201) and training (port 5202), 60 Mbit/s each for 5 s"
for p in 5201 5202; do ip netns exec vbrd-h2 iperf3 -s -1 -D -p $p; done
sleep 0.3
rb0=$(rcvbuf)
ip netns exec vbrd-h1 iperf3 -c 10.0.2.2 -p 5201 -u -b 60M -l 1400 -t 5 -J >"$confdir/inference.json" &
c1=$!
ip netns exec vbrd-h1 iperf3 -c 10.0.2.2 -p 5202 -u -b 60M -l 1400 -t 5 -J >"$confdir/training.json" &
c2=$!
sleep 4
ctl show qos lan2
wait "$c1" "$c2"
rx_mbps() { python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]; print("%.1f" % (e["sum"]["bits_per_second"] * (1 - e["sum"]["lost_percent"] / 100) / 1e6))' "$1"; }
inf=$(rx_mbps "$confdir/inference.json"); trn=$(rx_mbps "$confdir/training.json")
echo "h2 received: inference $inf Mbit/s, training $trn Mbit/s of UDP payload" \
     "(the line is 50 Mbit/s of frames plus 24 bytes each: 1400-byte payloads" \
     "make it $(python3 -c 'print("%.1f" % (50 * 1400 / 1466))') Mbit/s of payload in all;" \
     "h2's own socket buffers dropped $(( $(rcvbuf) - rb0 )) datagrams)"
python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print("share: inference %.0f%%, training %.0f%% (configured 70/30)" % (100 * a / (a + b), 100 * b / (a + b)))' "$inf" "$trn"

if [ "${HOLD:-0}" != 1 ]; then
	step "failover: this vbrd stops; one with BGP over two lines in a failover group starts (vm/lab/failover-lab.sh)"
	kill -TERM "$pid"
	wait "$pid" || true
	pid=
	rm -rf /run/dpdk/vbrd
	"$root/vm/lab/failover-lab.sh"
	step "path selection: two vbrds, three lines probed per plane; a gray failure on gold's line (vm/lab/pathsel-lab.sh)"
	"$root/vm/lab/pathsel-lab.sh"
fi

if [ "${HOLD:-0}" = 1 ]; then
	step "lab is up: hosts vbrd-h1/vbrd-h2 (ip netns exec vbrd-h1 ...), vbrctl in $root/build/app. Ctrl-C ends it."
	echo "vbrd runs on $conf (conf/vbrd.conf plus vm/lab/qos-lab.conf): edit that file and"
	echo "run vbrctl reload to change it; it is deleted when the lab ends."
	echo "The QoS overload again (servers first):"
	echo "  for p in 5201 5202; do ip netns exec vbrd-h2 iperf3 -s -1 -D -p \$p; done"
	echo "  ip netns exec vbrd-h1 iperf3 -c 10.0.2.2 -p 5201 -u -b 60M -l 1400 -t 5 &"
	echo "  ip netns exec vbrd-h1 iperf3 -c 10.0.2.2 -p 5202 -u -b 60M -l 1400 -t 5; $root/build/app/vbrctl show qos lan2"
	wait "$pid"
fi
