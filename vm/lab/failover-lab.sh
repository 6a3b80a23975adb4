#!/usr/bin/env bash
# make run, failover step (run by run-lab.sh once its vbrd has stopped; h1
# is run-lab.sh's host, netns vbrd-h1): BGP + BFD + a failover group on two
# lines; a line fails silently and traffic moves to the other line of its
# failover group; the outage is measured by the receiver, in ms.
#
#   h1 10.0.1.2 ── lan1 [vbrd] line1 ── vbrd-rtr eth0 172.16.1.2 ┐ lo 10.2.0.1
#                              line2 ── vbrd-rtr eth1 172.16.2.2 ┘ (FRR bgpd, bfdd)
#                  TAPs in vbrd-cp (vbrd's FRR: bgpd, zebra with the FPM)
#
# vbrd-rtr plays the IDC router: FRR's zebra, bfdd and bgpd (Debian's frr,
# started here without systemd), BFD at 10 ms x 3 on both lines, eBGP over
# both announcing 10.2.0.0/24 and 10.3.0.0/16. vbrd's own FRR runs in
# vbrd-cp: bgpd peers with vbrd-rtr through vbrd's TAPs, zebra sends what
# it learns to vbrd over FPM, and vbrd's routes point at the failover group
# because their next hops are its member lines' gateways. h1 sends a
# sequence-numbered UDP stream (tests/tcl/tools/seqstream.py, 20 000
# packets/s) to 10.2.0.1; the receiver runs in vbrd-rtr. Mid-stream, nft
# rules in vbrd-rtr drop everything on line1 both ways: the port stays up,
# packets vanish. vbrd's BFD detects it (3 x 10 ms), the group moves to
# line2 in one step, and the receiver reports the longest gap in the
# sequence. Then line1 heals and the group fails back after its 1 s
# hold-down. Meanwhile line1's TAP loses its carrier, so bgpd in vbrd-cp
# drops its session over line1 at once (fast external failover) instead of
# after its hold time. Everything this script creates, it removes.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
vbrd=$root/build/app/vbrd
vbrctl=$root/build/app/vbrctl
seqstream=$root/tests/tcl/tools/seqstream.py
work=$(mktemp -d /tmp/vbrd-failover.XXXXXX)
frr=$work/frr
cpfrr=$work/frr-cp
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
	for ns in vbrd-cp vbrd-rtr; do
		ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
	done
	sleep 0.3
	for ns in vbrd-cp vbrd-rtr; do
		ip netns pids $ns 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
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

step "failover lab: an IDC router (netns vbrd-rtr, FRR bgpd and bfdd) behind two lines"
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
# eBGP (FRR's connect-retry is 120 s: 1 s, so that the first try does not
# wait for vbrd; hold time 30 s: only BFD explains a fast session drop)
bgpd_conf() { # ASN ROUTER-ID NETWORKS NEIGHBOR...
	local asn=$1 id=$2 nets=$3 n
	shift 3
	printf 'router bgp %s\n bgp router-id %s\n no bgp ebgp-requires-policy\n' "$asn" "$id"
	printf ' no bgp network import-check\n timers bgp 10 30\n'
	for n in "$@"; do
		printf ' neighbor %s remote-as %s\n neighbor %s timers connect 1\n' \
			"$n" "$((asn == 65000 ? 65001 : 65000))" "$n"
	done
	printf ' address-family ipv4 unicast\n'
	for n in $nets; do printf '  network %s\n' "$n"; done
	printf ' exit-address-family\n'
}
{ printf 'hostname rtr\nlog file %s/bgpd.log\n' "$frr"
  bgpd_conf 65001 172.16.1.2 "10.2.0.0/24 10.3.0.0/16" 172.16.1.1 172.16.2.1; } >"$frr/bgpd.conf"
chown frr:frr "$frr"/*.conf
# FRR's DAEMON in NS with the files of DIR (its own vty and zserv sockets)
frr_run() { # NS DIR DAEMON EXTRA...
	local ns=$1 dir=$2 d=$3
	shift 3
	ip netns exec "$ns" taskset -c 0 /usr/lib/frr/"$d" -f "$dir/$d.conf" -i "$dir/$d.pid" \
		--vty_socket "$dir" -P 0 -z "$dir/zserv.api" "$@" >"$dir/$d.out" 2>&1 &
	for _ in $(seq 50); do [ -S "$dir/$d.vty" ] && break; sleep 0.1; done
}
frr_run vbrd-rtr "$frr" zebra
frr_run vbrd-rtr "$frr" bfdd --bfdctl "$frr/bfdd.sock"
# bfdd at SCHED_FIFO (as the tests run it): at 10 ms x 3, a bfdd that the
# scheduler holds off for 30 ms (bgpd and zebra starting on the same CPU)
# takes a healthy session down
chrt -a -f -p 10 "$(cat "$frr/bfdd.pid")" >/dev/null 2>&1 || true
frr_run vbrd-rtr "$frr" bgpd
echo "  vbrd-rtr: eth0 172.16.1.2/30 (line1), eth1 172.16.2.2/30 (line2), lo 10.2.0.1;" \
     "bfdd peers 172.16.1.1 and 172.16.2.1 at 10 ms x 3;" \
     "bgpd AS 65001 announces 10.2.0.0/24 and 10.3.0.0/16 to both"

# vbrd's control namespace: vbrd makes its TAPs here, its FRR runs here
ip netns del vbrd-cp 2>/dev/null || true
ip netns add vbrd-cp
ip -n vbrd-cp link set lo up

step "vbrd -c vm/lab/failover-lab.conf: a failover group uplink (line1, else line2), TAPs in vbrd-cp, an FPM server"
sed -n '/^bfd = {/,$p' "$root/vm/lab/failover-lab.conf" | sed -n '1,/^workers/p' | sed '$d'
"$vbrd" -c "$root/vm/lab/failover-lab.conf" >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	"$vbrctl" show ports >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || { echo "vbrd exited:"; cat "$log"; exit 1; }
	sleep 0.1
done
up() { "$vbrctl" -j show fgroup uplink | python3 -c 'import json,sys; g=json.load(sys.stdin)["groups"][0]; sys.exit(0 if g["member0_state"] == "Up" and g["member1_state"] == "Up" and g["active"] == "member0" else 1)'; }
for _ in $(seq 300); do up && break; sleep 0.1; done
up || { echo "BFD did not come up:"; "$vbrctl" show bfd; tail -20 "$log"; exit 1; }
ctl show bfd
echo "\$ vtysh -c 'show bfd peers brief'   # FRR's side, in vbrd-rtr"
ip netns exec vbrd-rtr vtysh --vty_socket "$frr" -c 'show bfd peers brief'
ctl show fgroup

step "vbrd's FRR in vbrd-cp: bgpd over the TAPs, zebra's routes to vbrd over FPM"
mkdir -p "$cpfrr"
chown frr:frr "$cpfrr"
printf 'hostname vbrd\nlog file %s/zebra.log\nfpm address 127.0.0.1 port 2620\n' "$cpfrr" >"$cpfrr/zebra.conf"
{ printf 'hostname vbrd\nlog file %s/bgpd.log\n' "$cpfrr"
  bgpd_conf 65000 172.16.1.1 "10.0.1.0/24" 172.16.1.2 172.16.2.2; } >"$cpfrr/bgpd.conf"
chown frr:frr "$cpfrr"/*.conf
frr_run vbrd-cp "$cpfrr" zebra -M dplane_fpm_nl
frr_run vbrd-cp "$cpfrr" bgpd
ctl show cplane
bgp_up() { ip netns exec vbrd-cp vtysh --vty_socket "$cpfrr" -c 'show bgp summary json' | python3 -c 'import json,sys; p=json.load(sys.stdin)["ipv4Unicast"]["peers"]; sys.exit(0 if all(v["state"] == "Established" for v in p.values()) and len(p) == 2 else 1)'; }
routes_in() { "$vbrctl" -j show routes | python3 -c 'import json,sys; r=[x for x in json.load(sys.stdin)["routes"] if x["source"] == "bgp"]; sys.exit(0 if len(r) >= 2 else 1)'; }
for _ in $(seq 300); do bgp_up && routes_in && break; sleep 0.1; done
echo "\$ vtysh -c 'show bgp summary'   # in vbrd-cp"
ip netns exec vbrd-cp vtysh --vty_socket "$cpfrr" -c 'show bgp summary' | sed -n '/^Neighbor/,/^$/p'
ctl show routes
echo "(the BGP routes' next hops are the group's member lines' gateways: they point at the group)"

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
python3 "$seqstream" outage "$work/recv.json"
ctl show fgroup
ctl show fgroup history
ctl show bfd l1
echo "(l1 is Down: it sends once a second until it is Up again, RFC 5880 §6.8.3: DESIRED_MIN_TX_US 1000000)"
ctl show cplane
echo "\$ vtysh -c 'show bgp summary'   # in vbrd-cp: line1's TAP lost its carrier, bgpd dropped the session"
ip netns exec vbrd-cp vtysh --vty_socket "$cpfrr" -c 'show bgp summary' | sed -n '/^Neighbor/,/^$/p'
ctl show routes

step "line1 heals: the group returns to it once l1 has been Up for the 1 s hold-down"
ip netns exec vbrd-rtr nft delete table netdev cut
back() { "$vbrctl" -j show fgroup uplink | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["groups"][0]["active"] == "member0" else 1)'; }
for _ in $(seq 100); do back && break; sleep 0.1; done
ctl show fgroup history
for _ in $(seq 300); do bgp_up && break; sleep 0.1; done
echo "\$ vtysh -c 'show bgp summary'   # in vbrd-cp: BGP over line1 is back"
ip netns exec vbrd-cp vtysh --vty_socket "$cpfrr" -c 'show bgp summary' | sed -n '/^Neighbor/,/^$/p'

