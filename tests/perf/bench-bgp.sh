#!/bin/bash
# make bench-bgp (issue 22): a peer announces a full table - 1 000 000 IPv4
# and 200 000 IPv6 prefixes of realistic lengths (pcapgen fib) - and we
# measure how fast it reaches vbrd's FIB. Three parts, one vbrd lab:
#
#   fpm     vbrd's FPM server alone (tests/perf/fpm_load.c, no FRR): the
#           table as zebra would send it, as fast as TCP takes it; wall
#           time and vbrd's own apply time -> routes/s; then a delete of
#           all, and a replay on a new connection with the stale sweep
#   e2e     BIRD 2 in an "IDC router" namespace announces the table (static
#           routes) over eBGP to FRR (bgpd + zebra -M dplane_fpm_nl) in
#           vbrd's control namespace, over a veth that vbrd's af_packet
#           port owns: BGP Established -> every route in vbrd's FIB;
#           memory; a 10 000 pps stream through vbrd meanwhile (its longest
#           gap); `show stats` latency; the main loop's stall meter
#   kernel  the reference, same run: zebra alone (no FPM) and bgpd in a
#           namespace of their own, peering with the same BIRD: BGP
#           Established -> every route in that namespace's kernel
#
# Prints `bench:` lines; logs and per-part details on stderr. Needs root.
# tests/perf/README.md ("make bench-bgp") has the method and figures.
#
# Environment: BUILD (build), BGP_PARTS ("fpm e2e kernel"), BGP_ROUTES
# (1000000), BGP_ROUTES6 (200000), BGP_PPS (10000), BGP_TIMEOUT_S (600, per
# load), BGP_HUGEPAGES (1: reserve what vbrd needs; 0: --no-huge),
# VBRD_TEST_PREFIX (bgp<pid>: names every namespace, veth and run dir).
set -euo pipefail

# hugetlbfs is mounted in a private mount namespace (as bench.sh does):
# other DPDK processes on the machine do not see it.
if [ "${BENCH_MOUNT_NS:-}" = "" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	export BENCH_MOUNT_NS=1
	exec unshare --mount --propagation private -- "$0" "$@"
fi

cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PARTS=${BGP_PARTS:-fpm e2e kernel}
R4=${BGP_ROUTES:-1000000}
R6=${BGP_ROUTES6:-200000}
PPS=${BGP_PPS:-10000}
TIMEOUT_S=${BGP_TIMEOUT_S:-600}
FPM_STEPS=${BGP_FPM_STEPS:-add,replay,del,add}
HUGE=${BGP_HUGEPAGES:-1}
P=${VBRD_TEST_PREFIX:-bgp$$}
RUN=/tmp/vbrd-bgp/$P
PYTHON=/usr/bin/python3
VBRD=$BUILD/app/vbrd
VBRCTL=$BUILD/app/vbrctl
PCAPGEN=$BUILD/tests/perf/pcapgen
FPM_LOAD=$BUILD/tests/perf/fpm_load
WATCH=tests/perf/bgp_watch.py
SEQ=tests/tcl/tools/seqstream.py
TOTAL=$((R4 + R6))

# Namespaces: CP vbrd's control plane (its TAPs, FRR with FPM), RTR the IDC
# router (BIRD; the stream's receiver), H a host behind vbrd (the stream's
# sender), REF the reference FRR (zebra into its own kernel).
CP=$P-cp RTR=$P-rtr H=$P-h REF=$P-ref
# vbrd's ports: veths whose other ends are eth0 in RTR and in H.
VR=$P-r VH=$P-h
SOCK=$RUN/ctl.sock
STREAM_DST=10.99.0.1   # on RTR's lo; vbrd routes 10.99.0.0/24 by a config static route
STREAM_PORT=9000

die() { echo "bench: error: $*" >&2; exit 1; }
log() { echo "bench: $*" >&2; }
now_s() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
rss_mib() { awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo -; }
huge_mib() {
	awk '/^(Private|Shared)_Hugetlb:/ { kb += $2 } END { printf "%.0f", kb / 1024 }' \
		"/proc/$1/smaps_rollup" 2>/dev/null || echo 0
}
jq_py() { $PYTHON -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

[ "$(id -u)" = 0 ] || die "needs root (namespaces, veths, DPDK, hugepages)"
for f in "$VBRD" "$VBRCTL" "$PCAPGEN" "$FPM_LOAD"; do
	[ -x "$f" ] || die "no $f (make build)"
done
for tool in ip ethtool bird birdc /usr/lib/frr/zebra /usr/lib/frr/bgpd /usr/bin/vtysh; do
	command -v "$tool" >/dev/null || die "'$tool' missing (make deps)"
done

# ---- cleanup: always ------------------------------------------------------------

# shellcheck source=tests/lab-cleanup.sh
. tests/lab-cleanup.sh
HUGE_MNT=/dev/hugepages HUGE_PREV="" HUGE_MOUNTED=0 HUGE_MKDIR=0
VBRD_PID=""
frr_pids=""
cleanup() {
	local rc=$? pid d
	trap - EXIT INT TERM
	[ -z "$VBRD_PID" ] || kill -TERM "$VBRD_PID" 2>/dev/null || true
	for _ in $(seq 50); do
		[ -n "$VBRD_PID" ] && kill -0 "$VBRD_PID" 2>/dev/null || break
		sleep 0.1
	done
	[ -z "$VBRD_PID" ] || kill -KILL "$VBRD_PID" 2>/dev/null || true
	# FRR and BIRD run in the namespaces: lab_cleanup_run kills what is in them
	lab_cleanup_run "$P" "$RUN" 2>/dev/null || true
	# FRR's crash-log buffers: /var/tmp/frr/DAEMON.N, N the pid before it
	# daemonized; the daemon's own pid names a logbuf file inside
	for pid in $frr_pids; do
		for d in /var/tmp/frr/*/logbuf."$pid"; do
			[ -e "$d" ] && rm -rf "$(dirname "$d")"
		done
	done
	if [ -n "$HUGE_PREV" ]; then
		echo "$HUGE_PREV" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		log "hugepages: nr_hugepages back to $(cat /proc/sys/vm/nr_hugepages)"
	fi
	[ "$HUGE_MOUNTED" = 0 ] || umount "$HUGE_MNT" 2>/dev/null || true
	[ "$HUGE_MKDIR" = 0 ] || rmdir "$HUGE_MNT" 2>/dev/null || true
	rm -f "$RUN"/routes.conf "$RUN"/bird.conf "$RUN"/fib.pcap
	if [ "$rc" = 0 ] && [ -z "${BGP_KEEP:-}" ]; then
		rm -rf "$RUN"
	else
		log "logs kept in $RUN"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$RUN"
mkdir -p "$RUN"
: >"$RUN/pids"
t_bench=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the table -------------------------------------------------------------------

log "table: $R4 IPv4 + $R6 IPv6 routes (pcapgen fib) ..."
"$PCAPGEN" fib "$RUN/fib.pcap" --conf "$RUN/routes.conf" --routes "$R4" --routes6 "$R6" \
	--via 172.16.1.2 --via6 2001:db8:1::2 --packets 16 >/dev/null 2>"$RUN/pcapgen.log" ||
	die "pcapgen fib failed: $(cat "$RUN/pcapgen.log")"
# BIRD's static routes from the same table: blackholes (BGP sends its own
# address as next hop whatever the route's)
awk -F'"' '/prefix=/ { p = $2; if (p ~ /:/) print "route " p " blackhole;" > F6; else print "route " p " blackhole;" > F4 }' \
	F4="$RUN/static4.conf" F6="$RUN/static6.conf" "$RUN/routes.conf"
touch "$RUN/static4.conf" "$RUN/static6.conf"

# ---- hugepages ------------------------------------------------------------------

# FIB sizes for the table (conf/README.md "FIB sizing"): pcapgen's table
# has ~10.1 % of IPv4 /24s holding a longer prefix, and its IPv6 table
# needs ~2.6 trie tbl8 groups a route (519 820 for 200 000); 5-8 % more.
FIB="fib = { ipv4_routes = $((R4 * 105 / 100 + 1024)); ipv4_tbl8 = $((R4 * 11 / 100 + 256));"
FIB="$FIB ipv6_routes = $((R6 * 105 / 100 + 1024)); ipv6_tbl8 = $((R6 * 28 / 10 + 256)); };"

write_conf() {  # write_conf MEMORY_MB HUGEPAGES(true|false)
	cat >"$RUN/vbrd.conf" <<-EOF
	instance = "$P";
	control = { socket = "$SOCK"; };
	eal = { hugepages = $2; memory_mb = $1; };
	workers = { cores = [ 1 ]; idle_sleep_us = 50; };
	ports = ( { name = "p1"; devargs = "net_af_packet1,iface=$VR"; },
	          { name = "p2"; devargs = "net_af_packet2,iface=$VH"; } );
	interfaces = ( { name = "line1"; port = "p1"; addresses = [ "172.16.1.1/24", "2001:db8:1::1/64" ]; },
	               { name = "lan"; port = "p2"; address = "10.50.0.1/24"; } );
	routes = ( { prefix = "10.99.0.0/24"; via = "172.16.1.2"; } );
	cplane = { netns = "$CP"; };
	fpm = { stale_ms = 500; };
	$FIB
	EOF
}
write_conf 512 true
need=$({ "$VBRD" --check-config "$RUN/vbrd.conf" 2>&1 || true; } |
	sed -n 's/.*needs at least \([0-9]*\) MiB.*/\1/p' | head -1)
MEM_MB=${need:-512}
MODE=hugepages
if [ "$HUGE" = 1 ] && [ "$(meminfo Hugepagesize)" = 2048 ]; then
	if ! awk '$3 == "hugetlbfs" { f = 1 } END { exit !f }' /proc/mounts; then
		[ -d "$HUGE_MNT" ] || { mkdir "$HUGE_MNT" && HUGE_MKDIR=1; }
		mount -t hugetlbfs -o pagesize=2M nodev "$HUGE_MNT" && HUGE_MOUNTED=1
	fi
	want=$(((MEM_MB + 256) / 2))
	free=$(meminfo HugePages_Free)
	if [ "$free" -lt "$want" ]; then
		HUGE_PREV=$(cat /proc/sys/vm/nr_hugepages)
		echo $(($(meminfo HugePages_Total) - free + want)) >/proc/sys/vm/nr_hugepages || true
		log "hugepages: nr_hugepages $HUGE_PREV -> $(cat /proc/sys/vm/nr_hugepages)"
	fi
	[ "$(meminfo HugePages_Free)" -ge "$want" ] || { MODE="no-huge (only $(meminfo HugePages_Free) free hugepages of $want)"; }
else
	MODE="no-huge (BGP_HUGEPAGES=$HUGE or not 2 MiB pages)"
fi
[ "$MODE" = hugepages ] && write_conf "$MEM_MB" true || write_conf "$MEM_MB" false
"$VBRD" --check-config "$RUN/vbrd.conf" >"$RUN/check.log" 2>&1 || die "config refused: $(cat "$RUN/check.log")"
log "vbrd: $MEM_MB MiB, $MODE; $FIB"

# ---- the lab ----------------------------------------------------------------------

for ns in $CP $RTR $H $REF; do
	ip netns add "$ns"
	ip -n "$ns" link set lo up
done
ip link add "$VR" type veth peer name eth0 netns "$RTR"
ip link add "$VH" type veth peer name eth0 netns "$H"
ip link add eth1 netns "$RTR" type veth peer name eth0 netns "$REF"
for l in "$VR" "$VH"; do
	ip link set "$l" up
	ethtool -K "$l" tx off >/dev/null 2>&1 || true
done
for ns in $RTR $H $REF; do
	ip -n "$ns" link set eth0 up
	ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null 2>&1 || true
	ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
done
ip -n "$RTR" link set eth1 up
ip -n "$RTR" addr add 172.16.1.2/24 dev eth0
ip -n "$RTR" addr add 2001:db8:1::2/64 dev eth0 nodad
ip -n "$RTR" addr add 172.16.2.2/24 dev eth1
ip -n "$RTR" addr add 2001:db8:2::2/64 dev eth1 nodad
ip -n "$RTR" addr add $STREAM_DST/32 dev lo
ip -n "$RTR" route add 10.50.0.0/24 via 172.16.1.1
ip -n "$REF" addr add 172.16.2.1/24 dev eth0
ip -n "$REF" addr add 2001:db8:2::1/64 dev eth0 nodad
ip -n "$H" addr add 10.50.0.2/24 dev eth0
ip -n "$H" route add default via 10.50.0.1

start_vbrd() {  # start_vbrd TAG
	local t0=$SECONDS
	"$VBRD" -c "$RUN/vbrd.conf" -- $([ "$MODE" = hugepages ] && echo --huge-unlink) \
		>"$RUN/vbrd-$1.log" 2>&1 &
	VBRD_PID=$!
	echo "$VBRD_PID" >>"$RUN/pids"
	until "$VBRCTL" -s "$SOCK" -t 1000 show stats >/dev/null 2>&1; do
		kill -0 "$VBRD_PID" 2>/dev/null || die "vbrd exited: $(tail -5 "$RUN/vbrd-$1.log")"
		[ $((SECONDS - t0)) -lt 120 ] || die "vbrd did not answer in 120 s"
		sleep 0.1
	done
	[ "$MODE" != hugepages ] || [ "$(huge_mib "$VBRD_PID")" -gt 0 ] ||
		die "vbrd took no hugepages although they were there"
}
stop_vbrd() {
	[ -n "$VBRD_PID" ] || return 0
	kill -TERM "$VBRD_PID" 2>/dev/null || true
	for _ in $(seq 100); do kill -0 "$VBRD_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$VBRD_PID" 2>/dev/null || true
	wait "$VBRD_PID" 2>/dev/null || true
	VBRD_PID=""
}
ctl() { "$VBRCTL" -s "$SOCK" -j "$@"; }
tap_ifindex() {
	ctl show cplane | jq_py '[t["ifindex"] for t in d["taps"] if t["interface"] == "line1"][0]'
}

# ---- FRR and BIRD -----------------------------------------------------------------

frr_start() {  # frr_start NS NAME AS ROUTER_ID PEER4 PEER6 PEER_AS FPM(0|1)
	local ns=$1 name=$2 as=$3 id=$4 p4=$5 p6=$6 pas=$7 fpm=$8 d=$RUN/frr-$2 dm
	mkdir -p "$d"
	cat >"$d/zebra.conf" <<-EOF
	hostname $name
	log file $d/zebra.log informational
	log timestamp precision 3
	$([ "$fpm" = 1 ] && echo "fpm address 127.0.0.1 port 2620")
	EOF
	cat >"$d/bgpd.conf" <<-EOF
	hostname $name
	log file $d/bgpd.log informational
	log timestamp precision 3
	router bgp $as
	 bgp router-id $id
	 bgp log-neighbor-changes
	 no bgp ebgp-requires-policy
	 neighbor $p4 remote-as $pas
	 neighbor $p6 remote-as $pas
	 address-family ipv4 unicast
	  no neighbor $p6 activate
	 exit-address-family
	 address-family ipv6 unicast
	  neighbor $p6 activate
	 exit-address-family
	EOF
	chown -R frr:frr "$d"
	# -s: the netlink buffer Debian's /etc/frr/daemons gives zebra (a
	# million routes' notifications overrun the default)
	ip netns exec "$ns" /usr/lib/frr/zebra -d -f "$d/zebra.conf" -i "$d/zebra.pid" \
		--vty_socket "$d" -P 0 -z "$d/zserv.api" -s 90000000 \
		$([ "$fpm" = 1 ] && echo "-M dplane_fpm_nl") >>"$d/start.log" 2>&1
	ip netns exec "$ns" /usr/lib/frr/bgpd -d -f "$d/bgpd.conf" -i "$d/bgpd.pid" \
		--vty_socket "$d" -P 0 -z "$d/zserv.api" -p 179 >>"$d/start.log" 2>&1
	for dm in zebra bgpd; do
		for _ in $(seq 50); do [ -s "$d/$dm.pid" ] && break; sleep 0.1; done
		[ -s "$d/$dm.pid" ] || die "FRR $name: $dm did not start"
		frr_pids="$frr_pids $(cat "$d/$dm.pid")"
	done
}
frr_pid() { cat "$RUN/frr-$1/$2.pid"; }
frr_stop() {  # frr_stop NAME: SIGKILL (zebra would take its million routes out one by one)
	local dm
	for dm in bgpd zebra; do
		kill -KILL "$(frr_pid "$1" $dm)" 2>/dev/null || true
	done
}
# The first "%ADJCHANGE ... Up" of NAME's bgpd log, as CLOCK_REALTIME seconds.
frr_established() {
	local line
	line=$(grep -m1 'ADJCHANGE.* Up' "$RUN/frr-$1/bgpd.log" 2>/dev/null) || return 1
	date -d "$(echo "$line" | awk '{ gsub("/", "-", $1); print $1 " " $2 }')" +%s.%N
}

bird_start() {
	{
		echo "router id 172.16.1.2;"
		echo "log \"$RUN/bird.log\" { info, warning, error, auth, remote, fatal, bug };"
		echo "timeformat log \"%F %T.%3f\";"
		echo "protocol device { }"
		echo "protocol static s4 { ipv4;"
		cat "$RUN/static4.conf"
		echo "}"
		echo "protocol static s6 { ipv6;"
		cat "$RUN/static6.conf"
		echo "}"
		for s in "vb 172.16.1 2001:db8:1 65000" "ref 172.16.2 2001:db8:2 65002"; do
			set -- $s
			echo "protocol bgp ${1}4 { disabled; local $2.2 as 65001; neighbor $2.1 as $4; ipv4 { import none; export all; }; }"
			echo "protocol bgp ${1}6 { disabled; local $3::2 as 65001; neighbor $3::1 as $4; ipv6 { import none; export all; }; }"
		done
	} >"$RUN/bird.conf"
	rm -f "$RUN/static4.conf" "$RUN/static6.conf"
	local t0=$SECONDS n
	ip netns exec "$RTR" bird -c "$RUN/bird.conf" -s "$RUN/bird.ctl" -P "$RUN/bird.pid" ||
		die "bird refused its config (see $RUN/bird.log)"
	while :; do
		n=$(birdc -s "$RUN/bird.ctl" show route count 2>/dev/null |
			awk '/routes for/ { n += $1 } END { print n + 0 }')
		[ "$n" -ge "$TOTAL" ] && break
		[ $((SECONDS - t0)) -lt 300 ] || die "BIRD holds $n of $TOTAL routes after 300 s"
		sleep 1
	done
	log "BIRD: $n static routes in $((SECONDS - t0)) s, RSS $(rss_mib "$(cat "$RUN/bird.pid")") MiB"
}
birdc_() { birdc -s "$RUN/bird.ctl" "$@" >/dev/null; }

# ---- part 1: FPM alone -------------------------------------------------------------

declare -A F  # fpm_load's figures: F[step.key]
part_fpm() {
	local out line step kv k v
	start_vbrd fpm
	local ifx s0 s1
	ifx=$(tap_ifindex)
	s0=$(ctl show stats)
	log "fpm: fpm_load in $CP, TAP ifindex $ifx: steps $FPM_STEPS ..."
	local perf=""
	if [ -n "${BGP_PERF:-}" ]; then
		# where vbrd's main thread goes (cpu-clock: the VM has no cycle counters)
		perf record -e cpu-clock -F ${BGP_PERF_HZ:-4000} ${BGP_PERF_G:+--call-graph $BGP_PERF_G} -t "$VBRD_PID" -o "$RUN/perf.data" \
			>/dev/null 2>"$RUN/perf.err" &
		perf=$!
	fi
	ip netns exec "$CP" "$FPM_LOAD" --routes "$RUN/routes.conf" --ifindex "$ifx" \
		--gw4 172.16.1.2 --gw6 2001:db8:1::2 --ctl "$SOCK" --steps "$FPM_STEPS" ${BGP_FPM_SORTED:+--sorted} --pid "$VBRD_PID" \
		--timeout-s "$TIMEOUT_S" >"$RUN/fpm_load.out" 2>"$RUN/fpm_load.err" ||
		log "warning: fpm_load: exit status $? ($(tail -2 "$RUN/fpm_load.err"))"
	s1=$(ctl show stats)
	if [ -n "$perf" ]; then
		kill -INT "$perf"
		wait "$perf" || true
		perf report -i "$RUN/perf.data" --no-children --sort sym --stdio ${BGP_PERF_G:+-G} 2>/dev/null >"$RUN/perf-full.txt" || true
		grep -v "^#" "$RUN/perf-full.txt" |
			grep -v '^#' | grep -v '^$' | head -40 >"$RUN/perf.txt" || true
		log "perf of vbrd's main thread during the load: $RUN/perf.txt"
		sed 's/^/bench:   perf: /' "$RUN/perf.txt" | head -25 >&2
	fi
	sed 's/^/bench:   fpm_load: /' "$RUN/fpm_load.out" >&2
	local n=0
	while read -r line; do
		n=$((n + 1))
		step=$(echo "$line" | sed 's/^step=\([a-z]*\).*/\1/')$n
		for kv in $line; do
			k=${kv%%=*} v=${kv#*=}
			F[$step.$k]=$v
		done
	done <"$RUN/fpm_load.out"
	[ -n "${F[add1.wall_ms]:-}" ] || die "fpm_load gave no figures ($RUN/fpm_load.err)"
	local goal=met
	awk -v r="${F[add1.apply_rate]}" 'BEGIN { exit !(r < 1000000) }' && goal=missed
	echo "bench: bgp-fpm-add $((R4 + R6)) routes (IPv4 $R4, IPv6 $R6) first byte to all in the FIB ${F[add1.wall_ms]} ms = ${F[add1.wall_rate]} routes/s; vbrd's own apply ${F[add1.apply_ms]} ms = ${F[add1.apply_rate]} routes/s (goal >= 1000000: $goal), its main thread's CPU ${F[add1.cpu_ms]} ms = ${F[add1.cpu_rate]} routes/s; sent in ${F[add1.send_ms]} ms, ${F[add1.bytes]} bytes; fib_errors ${F[add1.fib_errors]} resets ${F[add1.resets]}; again after the delete: wall ${F[add4.wall_ms]:-?} ms = ${F[add4.wall_rate]:-?} routes/s, apply ${F[add4.apply_ms]:-?} ms = ${F[add4.apply_rate]:-?} routes/s, fib_errors ${F[add4.fib_errors]:-?} (DPDK's tbl8 reservation count, see README); $MODE"
	echo "bench: bgp-fpm-del ${F[del3.routes]:-?} route deletes (of routes held after the replay's sweep, ${F[del3.unknown_route]:-?} already gone) until none is held: wall ${F[del3.wall_ms]:-?} ms = ${F[del3.wall_rate]:-?} routes/s; apply ${F[del3.apply_ms]:-?} ms = ${F[del3.apply_rate]:-?} routes/s, CPU ${F[del3.cpu_ms]:-?} ms = ${F[del3.cpu_rate]:-?} routes/s; fib_errors ${F[del3.fib_errors]:-?}"
	echo "bench: bgp-fpm-replay a new connection sends ${F[replay2.routes]:-?} of the routes again: wall ${F[replay2.wall_ms]:-?} ms = ${F[replay2.wall_rate]:-?} routes/s, apply ${F[replay2.apply_ms]:-?} ms = ${F[replay2.apply_rate]:-?} routes/s, CPU ${F[replay2.cpu_ms]:-?} ms = ${F[replay2.cpu_rate]:-?} routes/s; fib_errors ${F[replay2.fib_errors]:-?}; stale sweep: ${F[replay2.swept]:-?} routes swept ${F[replay2.sweep_ms]:-?} ms after the last frame (fpm.stale_ms 500 of it), ${F[replay2.held]:-?} held"
	echo "bench: bgp-fpm-stall $(stall_line "$s0" "$s1")"
	stop_vbrd
}

# The main loop's stall meter between two `show stats` (JSON in $1, $2).
stall_line() {
	echo "$1" >"$RUN/stall-a.json"
	echo "$2" >"$RUN/stall-b.json"
	$PYTHON -c '
import json, sys
a, b = (json.load(open(f))["main_loop"] for f in sys.argv[1:3])
new = b["longest_turn_at_us"] != a["longest_turn_at_us"]
print("main loop: longest turn %s, turns over 1 ms %d, over 10 ms %d, over 100 ms %d" % (
    "%.1f ms (CPU %.1f ms)" % (b["longest_turn_ms"], b["longest_turn_cpu_ms"]) if new
    else "under %.1f ms (the longest since start-up, before the load)" % b["longest_turn_ms"],
    b["turns_over_1ms"] - a["turns_over_1ms"], b["turns_over_10ms"] - a["turns_over_10ms"],
    b["turns_over_100ms"] - a["turns_over_100ms"]))' "$RUN/stall-a.json" "$RUN/stall-b.json"
}

# ---- part 2: end to end ---------------------------------------------------------------

part_e2e() {
	start_vbrd e2e
	frr_start "$CP" vb 65000 172.16.1.1 172.16.1.2 2001:db8:1::2 65001 1
	local t0=$SECONDS
	until [ "$(ctl show fpm | jq_py 'd["state"]')" = connected ]; do
		[ $((SECONDS - t0)) -lt 30 ] || die "zebra did not connect to vbrd's FPM server in 30 s"
		sleep 0.2
	done
	# the stream: H -> vbrd -> RTR, started before the load, on a path whose
	# neighbors are resolved (H's ARP of vbrd, vbrd's of the router)
	ip netns exec "$H" ping -c 3 -i 0.2 -W 1 $STREAM_DST >/dev/null 2>&1 ||
		log "warning: no ping through vbrd before the stream"
	ip netns exec "$RTR" $PYTHON "$SEQ" recv --port $STREAM_PORT --seconds $((TIMEOUT_S + 60)) \
		--json >"$RUN/stream-recv.json" 2>"$RUN/stream-recv.err" &
	local recv=$!
	sleep 0.5
	ip netns exec "$H" $PYTHON "$SEQ" send --dst $STREAM_DST --port $STREAM_PORT --pps "$PPS" \
		--seconds $((TIMEOUT_S + 30)) >"$RUN/stream-send.json" 2>"$RUN/stream-send.err" &
	local send=$!
	sleep 2
	$PYTHON "$WATCH" vbrd --ctl "$SOCK" --target "$TOTAL" --kernel-ns "$CP" --vtysh "$RUN/frr-vb" --tail 1 \
		--timeout "$TIMEOUT_S" >"$RUN/watch-e2e.json" 2>"$RUN/watch-e2e.err" &
	local watch=$!
	sleep 0.3
	log "e2e: BIRD's sessions to vbrd's FRR enabled; waiting for $TOTAL routes in vbrd's FIB ..."
	birdc_ enable vb4
	birdc_ enable vb6
	wait "$watch" || log "warning: bgp_watch: $(tail -2 "$RUN/watch-e2e.err")"
	local zr br vr vh fibb fpm
	zr=$(rss_mib "$(frr_pid vb zebra)") br=$(rss_mib "$(frr_pid vb bgpd)")
	vr=$(rss_mib "$VBRD_PID") vh=$(huge_mib "$VBRD_PID")
	fibb=$(ctl show config | jq_py 'round(d["fib"]["bytes"] / 1048576)')
	kill -INT "$send" 2>/dev/null || true
	wait "$send" || true
	wait "$recv" || true
	local est w
	est=$(frr_established vb) || die "vbrd's bgpd never logged Established ($RUN/frr-vb/bgpd.log)"
	w=$(cat "$RUN/watch-e2e.json")
	E_MS=$(echo "$w" | jq_py "'-' if d['t_full'] is None else round((d['t_full'] - $est) * 1000)")
	local k_ms b_ms
	k_ms=$(echo "$w" | jq_py "'-' if d['kernel_t_full'] is None else round((d['kernel_t_full'] - $est) * 1000)")
	b_ms=$(echo "$w" | jq_py "'-' if d['bgp_t_full'] is None else round((d['bgp_t_full'] - $est) * 1000)")
	echo "bench: bgp-e2e BIRD -> eBGP -> FRR bgpd -> zebra -> FPM -> vbrd: BGP Established to $TOTAL routes in vbrd's FIB $E_MS ms = $(rate "$E_MS") routes/s (bgpd had received them all at $b_ms ms; zebra's own kernel install in the control namespace done at $k_ms ms; samples every 100/500/500 ms); $(echo "$w" | jq_py '"fib_errors %d resets %d apply %d ms" % (d["fpm"]["fib_errors"] - d["fpm0"]["fib_errors"], d["fpm"]["resets"] - d["fpm0"]["resets"], (d["fpm"]["apply_us"] - d["fpm0"]["apply_us"]) / 1000)') (vbrd's FPM apply, wall clock) $MODE"
	echo "bench: bgp-e2e-memory vbrd RSS $vr MiB + hugepages $vh MiB (FIB pair as sized: $fibb MiB); zebra RSS $zr MiB, bgpd RSS $br MiB; BIRD RSS $(rss_mib "$(cat "$RUN/bird.pid")") MiB"
	echo "bench: bgp-e2e-stream $(stream_line)"
	echo "bench: bgp-e2e-control $(echo "$w" | jq_py '"show stats during the load: median %.1f ms, max %.1f ms (%d calls)" % (d["latency_ms"]["median"], d["latency_ms"]["max"], d["latency_ms"]["count"])'); $(stall_line "$(echo "$w" | jq_py 'json.dumps({"main_loop": d["main_loop0"]})')" "$(echo "$w" | jq_py 'json.dumps({"main_loop": d["main_loop"]})')")"
	birdc_ disable vb4
	birdc_ disable vb6
	frr_stop vb
	stop_vbrd
}
rate() { [ "$1" = - ] && echo - || awk -v ms="$1" -v n="$TOTAL" 'BEGIN { printf "%.0f", n / ms * 1000 }'; }
stream_line() {
	$PYTHON - "$RUN/stream-send.json" "$RUN/stream-recv.json" "$PPS" <<-'EOF'
	import json, sys
	try:
	    s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
	    r = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
	except Exception as e:
	    print("no figures (%s)" % e); sys.exit(0)
	print("%s pps H -> vbrd -> the router (config static route) during the load: longest gap %.1f ms "
	      "(sender's own longest pause %.1f ms; longest gap with loss %.1f ms), lost %s of %s "
	      "(%s before the first that arrived), %.1f s" % (sys.argv[3],
	      r["max_gap_ms"], s["max_send_gap_ms"], r["max_loss_gap_ms"], r["lost"], r["sent"],
	      r["first_seq"], s["seconds"]))
	EOF
}

# ---- part 3: the kernel reference --------------------------------------------------------

part_kernel() {
	frr_start "$REF" ref 65002 172.16.2.1 172.16.2.2 2001:db8:2::2 65001 0
	sleep 1
	$PYTHON "$WATCH" kernel --ns "$REF" --target "$TOTAL" --timeout "$TIMEOUT_S" \
		>"$RUN/watch-ref.json" 2>"$RUN/watch-ref.err" &
	local watch=$!
	sleep 0.3
	log "kernel: BIRD's sessions to the reference FRR enabled; waiting for $TOTAL routes in $REF's kernel ..."
	birdc_ enable ref4
	birdc_ enable ref6
	wait "$watch" || log "warning: bgp_watch: $(tail -2 "$RUN/watch-ref.err")"
	local zr br est w n4 n6
	zr=$(rss_mib "$(frr_pid ref zebra)") br=$(rss_mib "$(frr_pid ref bgpd)")
	est=$(frr_established ref) || die "the reference bgpd never logged Established"
	w=$(cat "$RUN/watch-ref.json")
	K_MS=$(echo "$w" | jq_py "'-' if d['t_full'] is None else round((d['t_full'] - $est) * 1000)")
	n4=$(ip -n "$REF" -4 route show | wc -l) n6=$(ip -n "$REF" -6 route show | wc -l)
	echo "bench: bgp-kernel BIRD -> eBGP -> FRR bgpd -> zebra -> Linux (no FPM): BGP Established to $TOTAL routes in the kernel $K_MS ms = $(rate "$K_MS") routes/s (ip route show: $n4 IPv4, $n6 IPv6 lines); zebra RSS $zr MiB, bgpd RSS $br MiB"
	birdc_ disable ref4
	birdc_ disable ref6
	frr_stop ref
}

bird_start
E_MS=- K_MS=-
for part in $PARTS; do
	case $part in
	fpm) part_fpm ;;
	e2e) part_e2e ;;
	kernel) part_kernel ;;
	*) die "unknown part '$part' (fpm e2e kernel)" ;;
	esac
done
if [ "$E_MS" != - ] && [ "$K_MS" != - ]; then
	echo "bench: bgp-e2e-vs-kernel vbrd $E_MS ms, kernel $K_MS ms: ratio $(awk -v a="$E_MS" -v b="$K_MS" 'BEGIN { printf "%.2f", a / b }') (goal <= 1.00: $(awk -v a="$E_MS" -v b="$K_MS" 'BEGIN { print a <= b ? "met" : "missed" }'))"
fi
echo "bench: bgp bench $(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(date +%s) - t_bench)) s, $(nproc) CPUs, load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; HA pair part: not implemented"
