#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make bench-vrf (and make bench): VRFs (issue 23). 64 VRFs of 10 000 IPv4
# routes each against one table of the same 640 000 routes, on the same
# pcap, devices, core, interfaces and next hops: only the VRF assignment
# differs. Prints
#
#   bench: vrf-64x10k vbrd X Mpps C cycles/pkt one table of 640000 routes, same packets Y Mpps D cycles/pkt ratio R (goal >= 0.95: met|missed) mode hugepages
#   bench: vrf-64x10k-instructions I1 instructions/pkt, one table I2: ratio R (callgrind, N1 and N2 packets, scalar FIB lookup)
#   bench: vrf-64x10k-startup exec to forwarding: 64 VRFs T1 s (control socket T1s s), one table T2 s (T2s s)
#   bench: vrf-64x10k-reload one route changed (vbrctl reload to its reply): 64 VRFs T1 s, one table T2 s
#   bench: vrf-64x10k-memory 64 VRFs: hugepages H1 MiB, RSS R1 MiB, fib_bytes per VRF ...; one table: hugepages H2 MiB, RSS R2 MiB, fib_bytes ...
#   bench: vrf-hugepages ...
#
# The two configs (gen_vrf.py writes both from one `pcapgen fib` table):
#   vrf  VRFs v0..v63, each with its 10 000 routes, an ingress sub-interface
#        i<k> (port "in", VLAN 100+k) and an egress one o<k> (port "out",
#        VLAN 100+k) whose gateway 10.2.k.2 all its routes go via;
#   one  the same 128 sub-interfaces, routes, gateways and neighbors, all in
#        the default VRF: one table of 640 000 routes.
# The pcap: 8192 tagged 64-byte (+4) UDP frames, round-robin over the 64
# VLANs (a burst of 32 spans 32 VRFs), each to a host of a route of its VRF,
# the routes evenly over each VRF's table. The same pcap for both.
#
# Figures (tests/perf/README.md, "bench-vrf.sh"):
#   Mpps, cycles/pkt   as bench.sh: median of per-second TX rates of "out",
#                      TSC Hz x busy cores / pps, median of BENCH_RUNS runs,
#                      the two configs alternating (order swapped each run)
#   ratio              one table's cycles/pkt / the VRFs' (goal: the VRFs
#                      cost at most 5 % more, ratio >= 0.95)
#   instructions       tests/perf/instructions.sh on each config: the
#                      worker's instructions per packet under callgrind
#                      (no hugepages, no AVX-512: rte_fib's scalar lookup;
#                      cache and TLB misses cost no instruction)
#   start-up           exec to `show stats` answering, and to the first
#                      packet forwarded (`forwarded` > 0), polled every 10 ms
#   reload             `vbrctl reload` to its reply with one route of v63
#                      changed to another gateway (checked with show fib
#                      [vrf v63] ADDRESS),
#                      the traffic running
#   memory             vbrd's hugetlb memory and VmRSS while it forwards;
#                      `show vrfs` fib_bytes per VRF
# Hugepages: as bench.sh, plus what --check-config says the larger config
# needs (+256 MiB); given back at the end, and the last line says so.
# Environment: bench.sh's BUILD, BENCH_RUNS, BENCH_SECONDS, BENCH_CORE,
# BENCH_HUGEPAGES, TSC_HZ, and
#   BENCH_VRFS=64 BENCH_VRF_ROUTES=10000   VRFs, IPv4 routes per VRF
#   BENCH_VRF_PACKETS=8192   frames in the pcap (destinations)
#   BENCH_VRF_RUN=1          frames in a row of one VRF (VLAN) in the pcap;
#                            32: most bursts are of one VRF
#   BENCH_VRF_INSTR=1        0: skip the callgrind part (needs valgrind)
#   BENCH_VRF_INSTR_SECONDS=10  callgrind's counting time per config
set -euo pipefail

# shellcheck source=tests/perf/bench.sh
source "$(dirname "$0")/bench.sh"

VRFS=${BENCH_VRFS:-64}
PER_VRF=${BENCH_VRF_ROUTES:-10000}
VRF_PACKETS=${BENCH_VRF_PACKETS:-8192}
VRF_RUN=${BENCH_VRF_RUN:-1}
VRF_INSTR=${BENCH_VRF_INSTR:-1}
VRF_INSTR_S=${BENCH_VRF_INSTR_SECONDS:-10}
TOTAL=$((VRFS * PER_VRF))
NAME=vrf-${VRFS}x$((PER_VRF / 1000))k
[ "$PER_VRF" -ge 1000 ] || NAME=vrf-${VRFS}x$PER_VRF
LAST=$((VRFS - 1))

mbufs_for() {  # as bench.sh's: net_pcap keeps every frame of its file in an mbuf
	local n=16383
	while [ "$n" -lt $(($1 + 16383)) ]; do n=$((n * 2 + 1)); done
	echo "$n"
}

# Without the big route files on failure: the configs and logs stay.
vrf_cleanup() {
	local rc=$?
	rm -f "$TMP"/routes-*.conf "$TMP"/fib-routes.conf "$TMP"/*.pcap
	(exit "$rc")
	cleanup
}
trap vrf_cleanup EXIT

# ---- inputs ------------------------------------------------------------------

log "$NAME: generating $TOTAL IPv4 routes, $VRFS groups of $PER_VRF, $VRF_PACKETS frames"
"$PCAPGEN" fib "$TMP/fib.pcap" --conf "$TMP/fib-routes.conf" --routes "$TOTAL" \
	--via 10.1.0.2 --packets 1 --size 64 --dst-mac "$DUT_MAC" \
	>/dev/null 2>"$TMP/fib.err" || { cat "$TMP/fib.err" >&2; die "pcapgen fib failed"; }
sed -n 's/^pcapgen: [^:]*: \([0-9]* IPv4 routes.*\); IPv6.*/bench:   the table: \1/p' "$TMP/fib.err" >&2
$PYTHON "$PERF/gen_vrf.py" "$TMP/fib-routes.conf" "$TMP" --vrfs "$VRFS" \
	--packets "$VRF_PACKETS" --run "$VRF_RUN" --dst-mac "$DUT_MAC" >&2 || die "gen_vrf.py failed"
rm -f "$TMP/fib-routes.conf" "$TMP/fib.pcap"
# the route that the reload changes: its prefix's network address
CHANGED=$(sed -n 's/{prefix="\([0-9.]*\)\/.*/\1/p' "$TMP/change-vrf.conf")

declare -A NEED   # eal.memory_mb per config: what --check-config says it needs
write_conf() {  # write_conf TAG (one, vrf)
	local f=$TMP/vbrd-$1.conf
	cp "$TMP/change-$1.conf" "$TMP/change-$1-cur.conf"
	cat >"$f" <<-EOF
		# generated by tests/perf/bench-vrf.sh ($1)
		instance = "$PREFIX-$1";
		control = { socket = "$TMP/$1.sock"; };
		ports = (
		  { name = "in";  devargs = "net_pcap0,rx_pcap=$TMP/vrf.pcap,infinite_rx=1"; rx_queues = 1; },
		  { name = "out"; devargs = "$NULL_DEV"; rx_queues = 1; }
		);
		@include "net-$1.conf"
		routes = (
		@include "routes-$1.conf"
		@include "change-$1-cur.conf"
		);
		workers = { cores = [ $CORE ]; burst = 32; idle_sleep_us = 0; };
		mempool = { mbufs = $(mbufs_for "$VRF_PACKETS"); cache = 256; };
		eal     = { hugepages = $([ "$MODE" = hugepages ] && echo true || echo false); memory_mb = $2; };
	EOF
}

check_conf() {  # check_conf TAG -> NEED[TAG] (MiB)
	local need=512 f=$TMP/vbrd-$1.conf
	while :; do
		write_conf "$1" "$need"
		"$VBRD" --check-config "$f" >"$f.check" 2>&1 && break
		if [ "$need" = 512 ] && grep -q 'eal.memory_mb: .*it needs at least [0-9]* MiB' "$f.check"; then
			need=$(sed -n 's/.*it needs at least \([0-9]*\) MiB.*/\1/p' "$f.check" | head -1)
			cp "$f.check" "$f.check512"
			continue
		fi
		head -5 "$f.check" >&2
		die "the generated config $f does not load (vbrd without VRFs? see $f.check)"
	done
	log "$NAME $1: --check-config: $(head -1 "$f.check512" 2>/dev/null || head -1 "$f.check")"
	NEED[$1]=$need
}

huge_setup
huge_mode_text
check_conf one
check_conf vrf
HUGE_NOTE=""
if [ "$MODE" = hugepages ]; then
	# the larger config's need, which includes the mempool, plus 256 MiB
	pages=$(( ( (NEED[vrf] > NEED[one] ? NEED[vrf] : NEED[one]) + 256 + 1) / 2 ))
	before=${HUGE_PREV:-$(cat /proc/sys/vm/nr_hugepages)}   # huge_setup may have raised it
	huge_raise "$pages"
	[ "$(meminfo HugePages_Free)" -ge "$pages" ] ||
		die "$NAME needs $pages free 2 MiB hugepages, only $(meminfo HugePages_Free) could be had"
	HUGE_NOTE="nr_hugepages $before -> $(cat /proc/sys/vm/nr_hugepages) for this bench ($pages free wanted: the VRF config needs ${NEED[vrf]} MiB, the one table ${NEED[one]} MiB, + 256)"
	echo "bench: vrf-hugepages $HUGE_NOTE"
fi

# ---- one run -----------------------------------------------------------------

# Start-up: seconds from T0 (epoch) to the control socket's first answer and
# to the first packet forwarded, polling `show stats` every 10 ms.
startup_poll() {  # startup_poll SOCKET T0 PID -> "T_SOCKET T_FORWARDING"
	$PYTHON - "$@" <<-'EOF'
		import json, os, socket, sys, time
		path, t0, pid = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
		def stats():
		    s = socket.socket(socket.AF_UNIX)
		    s.settimeout(5)
		    s.connect(path)
		    s.sendall(b'{"argv": ["show", "stats"]}\n')
		    buf = b""
		    while not buf.endswith(b"\n"):
		        d = s.recv(65536)
		        if not d:
		            break
		        buf += d
		    s.close()
		    return json.loads(buf)["data"]["forwarded"]
		t_sock = None
		while time.time() - t0 < 300:
		    try:
		        os.kill(pid, 0)
		    except OSError:
		        sys.exit("vbrd exited during start-up")
		    try:
		        fwd = stats()
		    except (OSError, ValueError, KeyError):
		        time.sleep(0.01)
		        continue
		    now = time.time()
		    if t_sock is None:
		        t_sock = now - t0
		    if fwd > 0:
		        print("%.3f %.3f" % (t_sock, now - t0))
		        sys.exit(0)
		    time.sleep(0.01)
		sys.exit("vbrd forwarded nothing in 300 s")
	EOF
}

declare -A R   # R[tag,what] = space-separated per-run figures
run_one() {  # run_one TAG RUN
	local tag=$1 run=$2 conf=$TMP/vbrd-$1.conf sock=$TMP/$1.sock
	local logf=$TMP/vbrd-$1-$2.log t0 st res pps cores t1 via vrfarg=""
	[ "$tag" = one ] || vrfarg="vrf v$LAST"
	cp "$TMP/change-$tag.conf" "$TMP/change-$tag-cur.conf"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2046
	"$VBRD" -c "$conf" -- $([ "$MODE" = hugepages ] && eal_mem_args) >"$logf" 2>&1 &
	CHILD=$!
	st=$(startup_poll "$sock" "$t0" "$CHILD" 2>"$TMP/poll.err") ||
		fail_child "$tag: $(cat "$TMP/poll.err")" "$logf"
	res=$($PYTHON "$PERF/txrate.py" --seconds "$SECONDS_PER_RUN" --pid "$CHILD" \
		vbrctl "$VBRCTL" "$sock" out 2>"$TMP/txrate.err") ||
		{ cat "$TMP/txrate.err" >&2; fail_child "vbrd forwarded nothing to 'out' ($tag)" "$logf"; }
	sed 's/^/bench:   vbrd  /' "$TMP/txrate.err" >&2
	read -r pps cores <<<"$res"
	HUGE_KB=$(huge_kb "$CHILD")
	check_mode "vbrd ($tag)"
	R[$tag,pps]+=" $pps" R[$tag,cy]+=" $(cycles "$pps" "$cores")"
	R[$tag,sock]+=" ${st% *}" R[$tag,fwd]+=" ${st#* }"
	R[$tag,huge]+=" $((HUGE_KB / 1024))"
	R[$tag,rss]+=" $(awk '/^VmRSS:/ { printf "%d", $2 / 1024 }' "/proc/$CHILD/status")"
	"$VBRCTL" -s "$sock" -j show stats >"$TMP/stats-$tag.json"
	"$VBRCTL" -s "$sock" -j show vrfs >"$TMP/vrfs-$tag.json" 2>"$TMP/vrfs.err" ||
		log "warning: show vrfs: $(cat "$TMP/vrfs.err")"
	"$VBRCTL" -s "$sock" -j show config >"$TMP/config-$tag.json"
	$PYTHON - "$TMP/stats-$tag.json" "$TMP/vrfs-$tag.json" "$tag" <<-'EOF' >&2 || true
		import json, sys
		st = json.load(open(sys.argv[1]))
		drops = {k: v for k, v in st["drops"].items() if v}
		if drops:
		    print("bench: warning: vbrd (%s) dropped %d of %d packets: %s"
		          % (sys.argv[3], st["drops_total"], st["rx_packets"], drops))
		try:
		    vrfs = [v for v in json.load(open(sys.argv[2]))["vrfs"] if v["name"] != "default"]
		except (OSError, ValueError, KeyError):
		    vrfs = []
		if vrfs:
		    rx = [v["rx_packets"] for v in vrfs]
		    print("bench:   vbrd  (%s) rx_packets per VRF: min %d max %d (%d VRFs)%s"
		          % (sys.argv[3], min(rx), max(rx), len(rx),
		             "" if min(rx) > 0 else "; warning: a VRF received nothing"))
		    # each VRF's packets leave by its own egress interface (its
		    # routes' only gateway): what a lookup in the wrong VRF breaks
		    off = [v["name"] for v in vrfs if abs(v["tx_packets"] - v["rx_packets"]) > 256]
		    print("bench:   vbrd  (%s) tx_packets per VRF = rx_packets within a burst: %s"
		          % (sys.argv[3], "yes" if not off else "NO, for " + " ".join(off[:8])))
	EOF
	# the reload: one route of the last VRF to the other gateway
	cp "$TMP/change-$tag-b.conf" "$TMP/change-$tag-cur.conf"
	t0=$(date +%s%N)
	"$VBRCTL" -s "$sock" -t 120000 reload >"$TMP/reload.out" 2>&1 ||
		fail_child "$tag: reload failed: $(cat "$TMP/reload.out")" "$logf"
	t1=$(date +%s%N)
	R[$tag,reload]+=" $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
	# shellcheck disable=SC2086
	via=$("$VBRCTL" -s "$sock" -j show fib $vrfarg "$CHANGED" 2>&1 |
		$PYTHON -c 'import json,sys; r=json.load(sys.stdin); print(",".join(h["via"] for h in r["next_hops"]))' 2>&1) || true
	[ "$via" = "10.2.$LAST.3" ] ||
		log "warning: $tag: after the reload show fib $vrfarg $CHANGED gives '$via', not 10.2.$LAST.3"
	grep -h "start-up:\|reload: built\|reload: config" "$logf" | sed "s/^/bench:   vbrd  ($tag) /" >&2 || true
	stop_child TERM
	rm -rf "/var/run/dpdk/$PREFIX-$tag"
	log "$NAME run $run $tag: $pps pps $(cycles "$pps" "$cores") cycles/pkt, start-up ${st% *} s (socket) ${st#* } s (forwarding), reload ${R[$tag,reload]##* } s, hugepages $((HUGE_KB / 1024)) MiB"
}

# Warm-up, not reported (as scale.sh's): the first process to fault in pages
# just added to the hugepage pool takes seconds longer; the VRF config's
# start-up would pay it in its first run only.
if [ "$MODE" = hugepages ]; then
	cp "$TMP/change-vrf.conf" "$TMP/change-vrf-cur.conf"
	# shellcheck disable=SC2046
	"$VBRD" -c "$TMP/vbrd-vrf.conf" -- $(eal_mem_args) >"$TMP/warmup.log" 2>&1 &
	CHILD=$!
	st=$(startup_poll "$TMP/vrf.sock" "$(date +%s.%N)" "$CHILD" 2>"$TMP/poll.err") ||
		fail_child "warm-up: $(cat "$TMP/poll.err")" "$TMP/warmup.log"
	log "$NAME: warm-up start of the VRF config (not reported): ${st#* } s to forwarding"
	stop_child TERM
	rm -rf "/var/run/dpdk/$PREFIX-vrf"
fi

START=$(date +%s)
log "TSC $TSC_HZ Hz, core $CORE, $RUNS run(s) x $SECONDS_PER_RUN s per config, $MODE_TEXT, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$RUNS"); do
	# swap the order every run: a drift of the host hits both alike
	if [ $((run % 2)) = 1 ]; then order="vrf one"; else order="one vrf"; fi
	for tag in $order; do run_one "$tag" "$run"; done
done

# hugepages back before the callgrind runs, which take the configs' memory
# without them
HUGE_WAS=$HUGE_PREV
huge_restore
[ -z "$HUGE_NOTE" ] || HUGE_NOTE="$HUGE_NOTE; given back: nr_hugepages $(cat /proc/sys/vm/nr_hugepages)${HUGE_WAS:+ (was $HUGE_WAS)}"

# shellcheck disable=SC2086
med() { median ${R[$1]:-0}; }
declare -A I   # I[tag] = "instructions/pkt packets"
for tag in vrf one; do
	I[$tag]="- 0"
	[ "$VRF_INSTR" = 1 ] || continue
	command -v valgrind >/dev/null || { log "no valgrind: instructions not counted"; break; }
	log "$NAME $tag: callgrind, $VRF_INSTR_S s (start-up under valgrind takes minutes)"
	if BUILD=$BUILD INSTR_START_S=600 "$PERF/instructions.sh" "$TMP/vbrd-$tag.conf" "$VRF_INSTR_S" \
		>"$TMP/instr-$tag.txt" 2>&1; then
		sed "s/^/bench:   ($tag) /" "$TMP/instr-$tag.txt" >&2
		I[$tag]=$(sed -n 's/^instructions: \([0-9.]*\) per packet (\([0-9]*\) packets).*/\1 \2/p' "$TMP/instr-$tag.txt")
	else
		tail -5 "$TMP/instr-$tag.txt" >&2
		log "warning: instructions.sh failed on $tag"
	fi
done

vp=$(med vrf,pps) vcy=$(med vrf,cy) op=$(med one,pps) ocy=$(med one,cy)
awk -v n="$NAME" -v v="$vp" -v vc="$vcy" -v o="$op" -v oc="$ocy" -v t="$TOTAL" -v m="$MODE_TEXT" 'BEGIN {
	r = oc / vc
	printf "bench: %s vbrd %.2f Mpps %.0f cycles/pkt one table of %d routes, same packets %.2f Mpps %.0f cycles/pkt ratio %.2f (goal >= 0.95: %s) %s\n",
		n, v / 1e6, vc, t, o / 1e6, oc, r, (r >= 0.95 ? "met" : "missed"), m }'
read -r vi vn <<<"${I[vrf]}"
read -r oi on <<<"${I[one]}"
if [ "$vi" != - ] && [ "$oi" != - ]; then
	awk -v n="$NAME" -v vi="$vi" -v oi="$oi" -v vn="$vn" -v on="$on" 'BEGIN {
		printf "bench: %s-instructions %.1f instructions/pkt, one table %.1f: ratio %.3f (callgrind, %d and %d packets, scalar FIB lookup)\n",
			n, vi, oi, oi / vi, vn, on }'
else
	echo "bench: $NAME-instructions not measured (BENCH_VRF_INSTR=$VRF_INSTR; see the log)"
fi
echo "bench: $NAME-startup exec to forwarding: $VRFS VRFs $(med vrf,fwd) s (control socket $(med vrf,sock) s), one table $(med one,fwd) s ($(med one,sock) s)"
echo "bench: $NAME-reload one route changed (vbrctl reload to its reply): $VRFS VRFs $(med vrf,reload) s, one table $(med one,reload) s"
$PYTHON - "$TMP/vrfs-vrf.json" "$TMP/vrfs-one.json" "$TMP/config-one.json" "$NAME" "$VRFS" \
	"$(med vrf,huge)" "$(med vrf,rss)" "$(med one,huge)" "$(med one,rss)" <<-'EOF'
	import json, statistics, sys
	fv, fo, fc, name, nv, hv, rv, ho, ro = sys.argv[1:]
	MiB = 1 << 20
	def vrfs(path):
	    try:
	        return json.load(open(path))["vrfs"]
	    except (OSError, ValueError, KeyError):
	        return []
	v = vrfs(fv)
	per = [x["fib_bytes"] for x in v if x["name"] != "default"]
	dflt = [x["fib_bytes"] for x in v if x["name"] == "default"]
	if per:
	    vt = ("fib_bytes per VRF min %.1f median %.1f max %.1f MiB (%d VRFs, sum %.0f MiB; default VRF %.1f MiB)"
	          % (min(per) / MiB, statistics.median(per) / MiB, max(per) / MiB, len(per),
	             sum(per) / MiB, (dflt[0] if dflt else 0) / MiB))
	else:
	    vt = "fib_bytes: show vrfs gave none"
	o = [x["fib_bytes"] for x in vrfs(fo) if x["name"] == "default"]
	if not o:  # vbrd without show vrfs: the FIB pair as sized
	    try:
	        o = [json.load(open(fc))["fib"]["bytes"]]
	    except (OSError, ValueError, KeyError):
	        o = [0]
	print("bench: %s-memory %s VRFs: hugepages %s MiB, RSS %s MiB, %s; one table: hugepages %s MiB, RSS %s MiB, fib_bytes %.0f MiB"
	      % (name, nv, hv, rv, vt, ho, ro, o[0] / MiB))
	EOF
echo "bench: vrf-hugepages ${HUGE_NOTE:-none reserved ($MODE_TEXT)}"
log "done in $(( $(date +%s) - START )) s"
