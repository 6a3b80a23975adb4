#!/usr/bin/env bash
# make run, failover step (run by run-lab.sh once its vbrd has stopped; h1
# is run-lab.sh's host, netns vbrd-h1): a line fails silently and traffic
# moves to the other line of its failover group; the outage is measured by
# the receiver, in ms.
#
#   h1 10.0.1.2 ── lan1 [vbrd] line1 ── vbrd-rtr eth0 172.16.1.2 ┐ lo 10.2.0.1
#                              line2 ── vbrd-rtr eth1 172.16.2.2 ┘ (FRR bfdd)
#
# vbrd-rtr plays the IDC router: FRR's zebra and bfdd (Debian's frr, started
# here without systemd), BFD at 10 ms x 3 on both lines. h1 sends a
# sequence-numbered UDP stream (tests/tcl/tools/seqstream.py, 20 000
# packets/s) to 10.2.0.1; the receiver runs in vbrd-rtr. Mid-stream, nft
# rules in vbrd-rtr drop everything on line1 both ways: the port stays up,
# packets vanish. vbrd's BFD detects it (3 x 10 ms), the group moves to
# line2 in one step, and the receiver reports the longest gap in the
# sequence. Then line1 heals and the group fails back after its 1 s
# hold-down. Everything this script creates, it removes.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
vbrd=$root/build/app/vbrd
vbrctl=$root/build/app/vbrctl
seqstream=$root/tests/tcl/tools/seqstream.py
work=$(mktemp -d /tmp/vbrd-failover.XXXXXX)
frr=$work/frr
log=$work/vbrd.log
pid=

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
	ip netns pids vbrd-rtr 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del vbrd-rtr 2>/dev/null
	ip link del vbr-l1 2>/dev/null
	ip link del vbr-l2 2>/dev/null
	rm -rf /run/dpdk/vbrd
	if [ "${status:-1}" -eq 0 ]; then
		rm -rf "$work"
	else
		echo "failover lab removed (logs kept in $work)"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns list | grep -qw vbrd-h1 || { echo "failover-lab.sh: run by run-lab.sh (needs its h1)" >&2; exit 1; }
command -v /usr/lib/frr/bfdd >/dev/null || { echo "failover-lab.sh: FRR missing: make deps" >&2; exit 1; }

step "failover lab: an IDC router (netns vbrd-rtr, FRR bfdd) behind two lines"
ip netns del vbrd-rtr 2>/dev/null || true
ip netns add vbrd-rtr
ip -n vbrd-rtr link set lo up
for n in 1 2; do
	ip link del "vbr-l$n" 2>/dev/null || true
	ip link add "vbr-l$n" type veth peer name "eth$((n - 1))" netns vbrd-rtr
	ip link set "vbr-l$n" up
	ip -n vbrd-rtr link set "eth$((n - 1))" up
	ip -n vbrd-rtr addr add "172.16.$n.2/30" dev "eth$((n - 1))"
	ip netns exec vbrd-rtr ethtool -K "eth$((n - 1))" tx off >/dev/null
done
ip -n vbrd-rtr addr add 10.2.0.1/32 dev lo
ip -n vbrd-rtr route add 10.0.1.0/24 via 172.16.1.1
for i in all default eth0 eth1; do ip netns exec vbrd-rtr sysctl -qw "net.ipv4.conf.$i.rp_filter=0"; done
chmod 755 "$work"
mkdir -p "$frr"
chown frr:frr "$frr"
printf 'hostname rtr\nlog file %s/zebra.log\n' "$frr" >"$frr/zebra.conf"
cat >"$frr/bfdd.conf" <<EOF
hostname rtr
log file $frr/bfdd.log
bfd
 peer 172.16.1.1 interface eth0 local-address 172.16.1.2
  receive-interval 10
  transmit-interval 10
  detect-multiplier 3
 !
 peer 172.16.2.1 interface eth1 local-address 172.16.2.2
  receive-interval 10
  transmit-interval 10
  detect-multiplier 3
 !
!
EOF
chown frr:frr "$frr"/*.conf
for d in zebra bfdd; do
	extra=()
	[ $d = bfdd ] && extra=(--bfdctl "$frr/bfdd.sock")
	ip netns exec vbrd-rtr taskset -c 0 /usr/lib/frr/$d -f "$frr/$d.conf" -i "$frr/$d.pid" \
		--vty_socket "$frr" -P 0 -z "$frr/zserv.api" "${extra[@]}" >"$frr/$d.out" 2>&1 &
	for _ in $(seq 50); do [ -S "$frr/$d.vty" ] && break; sleep 0.1; done
done
echo "  vbrd-rtr: eth0 172.16.1.2/30 (line1), eth1 172.16.2.2/30 (line2), lo 10.2.0.1;" \
     "bfdd peers 172.16.1.1 and 172.16.2.1 at 10 ms x 3"

step "vbrd -c vm/lab/failover-lab.conf: route 10.2.0.0/24 -> failover group uplink (line1, else line2)"
sed -n '/^bfd = {/,$p' "$root/vm/lab/failover-lab.conf" | sed -n '1,/^routes/p' | sed '$d'
"$vbrd" -c "$root/vm/lab/failover-lab.conf" >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	"$vbrctl" show ports >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || { echo "vbrd exited:"; cat "$log"; exit 1; }
	sleep 0.1
done
up() { "$vbrctl" -j show fgroup uplink | python3 -c 'import json,sys; g=json.load(sys.stdin)["groups"][0]; sys.exit(0 if g["member0_state"] == "Up" and g["member1_state"] == "Up" and g["active"] == "member0" else 1)'; }
for _ in $(seq 100); do up && break; sleep 0.1; done
up || { echo "BFD did not come up:"; "$vbrctl" show bfd; tail -20 "$log"; exit 1; }
ctl show bfd
echo "\$ vtysh -c 'show bfd peers brief'   # FRR's side, in vbrd-rtr"
ip netns exec vbrd-rtr vtysh --vty_socket "$frr" -c 'show bfd peers brief'
ctl show fgroup

step "a silent failure: h1 streams 20 000 packets/s to 10.2.0.1; after 1.5 s vbrd-rtr drops all of line1, both ways"
ip netns exec vbrd-rtr taskset -c 0 python3 "$seqstream" recv --port 9000 --seconds 8 --json >"$work/recv.json" &
rpid=$!
sleep 0.5
ip netns exec vbrd-h1 taskset -c 0 python3 "$seqstream" send --dst 10.2.0.1 --port 9000 --pps 20000 --seconds 4 >"$work/send.json" &
spid=$!
sleep 1.5
ip netns exec vbrd-rtr nft -f - <<'EOF'
table netdev cut {
	chain in { type filter hook ingress device eth0 priority 0; policy drop; }
	chain out { type filter hook egress device eth0 priority 0; policy drop; }
}
EOF
echo "  $(date -u +%FT%T.%6NZ): line1 cut (nft in vbrd-rtr: ingress and egress of eth0 drop)"
wait "$spid" "$rpid"
python3 - "$work/recv.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print("  receiver: %d of %d datagrams, %d lost; longest gap in the sequence %.1f ms"
      " (the outage the cut caused; the sender's own worst pause was %.1f ms)"
      % (r["received"], r["sent"], r["lost"], r["max_gap_ms"], r.get("sender_max_send_gap_ms", 0)))
EOF
ctl show fgroup
ctl show fgroup history
ctl show bfd l1
echo "(l1 is Down: it sends once a second until it is Up again, RFC 5880 §6.8.3: DESIRED_MIN_TX_US 1000000)"

step "line1 heals: the group returns to it once l1 has been Up for the 1 s hold-down"
ip netns exec vbrd-rtr nft delete table netdev cut
back() { "$vbrctl" -j show fgroup uplink | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["groups"][0]["active"] == "member0" else 1)'; }
for _ in $(seq 100); do back && break; sleep 0.1; done
ctl show fgroup history
