#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/perf/bench-ovs.sh: vbrd against Open vSwitch with DPDK (Debian's
# openvswitch-switch-dpdk, started here without systemd by
# vm/virtio/ovs.sh) on bench.sh's pcaps and virtual ports (issue 26), and
# print per scenario
#
#   bench: SCENARIO vbrd MPPS Mpps CYCLES cycles/pkt ovs-dpdk MPPS Mpps CYCLES cycles/pkt ratio R (target >= 1.5) MODE
#   bench: SCENARIO instructions: vbrd V/pkt ovs-dpdk O/pkt (PMD thread) ratio O/V (callgrind, T s); target >= 1.5 MET|NOT MET (instructions meet it|short, cycles meet it|short)
#
# (the second with valgrind and BENCH_INSTR=1, else "instructions: n/a (...)";
# the target is met when both ratios meet it: instr_ovs below)
#
# Scenarios (BENCH_OVS_SCENARIOS, default all three):
#   ipv4-64        bench.sh's ipv4-64 pcap; OVS: one bridge, the pcap port
#                  "gen" and the net_null port "sink", an OpenFlow rule
#                  ip,nw_dst=198.18.1.0/24 -> dec_ttl, mod_dl_src,
#                  mod_dl_dst, output:sink (what a router does), default drop
#   vxlan-encap-64 the same pcap; OVS: userspace VXLAN (tnl_push): bridge
#                  br-int (gen, the vxlan port "vx", remote 192.168.100.2,
#                  key 1000) and underlay br-phy (sink; its LOCAL port has
#                  10.1.0.1/24 in ovs-vswitchd's namespace, a tunnel route
#                  192.168.100.2 via 10.1.0.2 and a static ARP entry, as
#                  vbrd's config has); br-int's rule as in ipv4-64 but to vx
#   vxlan-decap    bench.sh's vxlan-decap pcap; OVS: gen on br-phy (MAC
#                  02:70:63:61:70:00, the pcap's destination, and address
#                  198.18.1.1), br-phy's rule in_port=gen -> LOCAL (there
#                  OVS pops the tunnel), br-int's rule on the inner packet
#                  in_port=vx,nw_dst=198.18.100.0/24 -> the router's
#                  actions, output:sink (sink on br-int)
# vbrd runs bench.sh's configs of the same scenario (route, encap, decap),
# with all its checks, and bench.sh's drop and tunnel checks.
#
# Method: bench.sh's (this script sources it): same pcaps, net_pcap with
# infinite_rx, net_null sink with no-rx=1, the sink's TX counter sampled
# each second (OVS: ovs-ofctl dump-ports, read from the device), the median
# of BENCH_SECONDS seconds, the median of BENCH_RUNS runs, the two programs
# alternated. OVS's one PMD thread runs on BENCH_CORE (vbrd's worker core),
# its main lcore on the other core (OVS_LCORE_CPU); OVS is started afresh
# for each run, so that its PMD never spins while vbrd runs. Flows and the
# default drop are installed BEFORE the pcap port is added: frames that
# arrive earlier go to the slow path (upcalls) and would be counted.
# CYCLES: TSC Hz x busy cores of the whole ovs-vswitchd process (PMD +
# main + handler threads) / pps, like l3fwd's in bench.sh; R is OVS's
# cycles/pkt over vbrd's. Environment: bench.sh's BUILD, BENCH_RUNS,
# BENCH_SECONDS, BENCH_CORE, BENCH_HUGEPAGES, TSC_HZ, and
#   BENCH_OVS_SCENARIOS="ipv4-64 vxlan-encap-64 vxlan-decap" (also: ipv4-imix,
#                        vxlan-encap-imix: bench.sh's IMIX pcap, same setups)
#   OVS_LCORE_CPU        ovs-vswitchd's main lcore (default: the core that
#                        is not BENCH_CORE)
#   BENCH_INSTR, BENCH_INSTR_S (bench.sh's), BENCH_OVS_INSTR_WARMUP_S=10: OVS's
#                        forwarding under callgrind before its count
set -euo pipefail

# bench.sh's settings, hugepages, vbrd_conf, run_vbrd, cycles, median,
# cleanup (it re-runs this script in a private mount namespace)
# shellcheck source=tests/perf/bench.sh
. "$(dirname "$0")/bench.sh"

OVS_SH=vm/virtio/ovs.sh
OVS_SCENARIOS=${BENCH_OVS_SCENARIOS:-ipv4-64 vxlan-encap-64 vxlan-decap}
OVS_LCORE=${OVS_LCORE_CPU:-$([ "$CORE" = 0 ] && echo 1 || echo 0)}
OVS_RUN=""                 # run dir of the OVS instance running now
GW_MAC=02:00:00:00:00:02   # vbrd's static neighbor 10.1.0.2 (bench.sh)

ovs_stop() {  # stop the OVS instance of OVS_RUN, if any
	[ -n "$OVS_RUN" ] || return 0
	"$OVS_SH" stop "$OVS_RUN" >/dev/null 2>&1 || true
	OVS_RUN=""
}
ovs_cleanup() {  # EXIT: OVS, then bench.sh's cleanup with the exit status
	local rc=$?
	ovs_stop
	if [ "$rc" = 0 ]; then cleanup; else (exit "$rc") || cleanup; fi
}
trap ovs_cleanup EXIT

ovs() { "$OVS_SH" "$@"; }

# ovs_setup KIND PCAP: bridges, ports and flows of KIND (route, encap,
# decap) in the running instance; the pcap port last. Sets OVS_BR (the
# bridge of the sink) and OVS_CHECK (the flow whose n_packets must grow:
# the forwarding rule, as ovs-ofctl dump-flows prints its match).
ovs_setup() {
	local kind=$1 pcap=$2 r=$OVS_RUN ns
	local gen_dev="net_pcap0,rx_pcap=$pcap,infinite_rx=1"
	local router="dec_ttl,mod_dl_src:$DUT_MAC,mod_dl_dst:$GW_MAC"
	ns=$(cat "$r/netns")
	# fail_mode=secure: no NORMAL flow when the flows are deleted
	br() { echo add-br "$1" -- set bridge "$1" datapath_type=netdev fail_mode=secure; }
	# the sink's MTU is vbrd's "out" line's in the tunnel scenarios
	# (1550: IMIX's 1518-byte frames fit in VXLAN); OVS drops what
	# exceeds a port's MTU
	sink() { echo add-port "$1" sink -- set Interface sink type=dpdk "options:dpdk-devargs=$NULL_DEV" \
		ofport_request=2 mtu_request=$ENCAP_LINE_MTU; }
	case $kind in
	route)
		# shellcheck disable=SC2046
		ovs vsctl "$r" $(br br0) -- $(sink br0)
		ovs ofctl "$r" del-flows br0
		ovs ofctl "$r" add-flows br0 - <<-EOF
			priority=0,actions=drop
			priority=1,in_port=1,actions=drop
			priority=10,ip,in_port=1,nw_dst=$DST_NET,actions=$router,output:2
		EOF
		OVS_BR=br0 gen_br=br0 ;;
	encap)
		# shellcheck disable=SC2046
		ovs vsctl "$r" $(br br-phy) other_config:hwaddr=02:70:63:61:70:01 -- $(sink br-phy)
		# shellcheck disable=SC2046
		ovs vsctl "$r" $(br br-int) -- add-port br-int vx -- set Interface vx type=vxlan \
			ofport_request=3 options:remote_ip=$ENCAP_REMOTE options:local_ip=10.1.0.1 \
			options:key=$VNI options:dst_port=4789
		ip -n "$ns" addr add 10.1.0.1/24 dev br-phy
		ip -n "$ns" link set br-phy up
		ovs appctl "$r" ovs/route/add "$ENCAP_REMOTE/32" br-phy 10.1.0.2 >/dev/null
		ovs appctl "$r" tnl/arp/set br-phy 10.1.0.2 "$GW_MAC" >/dev/null
		ovs ofctl "$r" del-flows br-phy
		ovs ofctl "$r" del-flows br-int
		ovs ofctl "$r" add-flows br-phy - <<-EOF
			priority=0,actions=drop
			priority=10,in_port=LOCAL,actions=output:2
		EOF
		ovs ofctl "$r" add-flows br-int - <<-EOF
			priority=0,actions=drop
			priority=1,in_port=1,actions=drop
			priority=10,ip,in_port=1,nw_dst=$DST_NET,actions=$router,output:3
		EOF
		OVS_BR=br-phy gen_br=br-int ;;
	decap)
		# br-phy has the pcap's destination MAC and the tunnel's local
		# address: OVS pops the tunnel of what br-phy sends to LOCAL
		# shellcheck disable=SC2046
		ovs vsctl "$r" $(br br-phy) other_config:hwaddr=$DUT_MAC
		# shellcheck disable=SC2046
		ovs vsctl "$r" $(br br-int) -- $(sink br-int) -- add-port br-int vx -- set Interface vx \
			type=vxlan ofport_request=3 options:remote_ip=$DECAP_REMOTE \
			options:local_ip=$DECAP_LOCAL options:key=$VNI options:dst_port=4789
		ip -n "$ns" addr add "$DECAP_LOCAL/24" dev br-phy
		ip -n "$ns" link set br-phy up
		ovs ofctl "$r" del-flows br-phy
		ovs ofctl "$r" del-flows br-int
		ovs ofctl "$r" add-flows br-phy - <<-EOF
			priority=0,actions=drop
			priority=1,in_port=1,actions=drop
			priority=10,in_port=1,actions=LOCAL
		EOF
		ovs ofctl "$r" add-flows br-int - <<-EOF
			priority=0,actions=drop
			priority=10,ip,in_port=3,nw_dst=$DECAP_INNER_NET,actions=$router,output:2
		EOF
		OVS_BR=br-int gen_br=br-phy ;;
	*) die "ovs_setup: unknown kind '$kind'" ;;
	esac
	ovs vsctl "$r" add-port "$gen_br" gen -- set Interface gen type=dpdk \
		"options:dpdk-devargs=$gen_dev" ofport_request=1
}

run_ovs() {  # run_ovs SCENARIO KIND PCAP RUN -> PPS (median packets/s), CORES (median busy cores)
	local scen=$1 kind=$2 pcap=$3 run=$4 res pid err
	OVS_RUN=$TMP/ovs-$scen-$run
	huge_ensure
	# hugepages: what one vbrd run had (bench.sh's MIN_PAGES); OVS
	# takes them with --in-memory and gives them back when it exits
	if [ "$MODE" = hugepages ]; then export OVS_HUGE_MB=$((MIN_PAGES * 2)); else export OVS_HUGE_MB=0 OVS_MEM_MB=1024; fi
	OVS_LCORE_CPU=$OVS_LCORE OVS_PMD_CPU=$CORE OVS_PMD_MAXSLEEP=0 \
		"$OVS_SH" start "$OVS_RUN" "$PREFIX-o$run" >"$OVS_RUN.start" 2>&1 ||
		{ cat "$OVS_RUN.start" >&2; die "OVS did not start ($OVS_RUN)"; }
	ovs_setup "$kind" "$pcap" >"$OVS_RUN.setup" 2>&1 ||
		{ cat "$OVS_RUN.setup" >&2; tail -5 "$OVS_RUN/ovs-vswitchd.log" >&2; die "OVS setup of $scen failed"; }
	pid=$(cat "$OVS_RUN/ovs-vswitchd.pid")
	res=$($PYTHON "$PERF/txrate.py" --seconds "$SECONDS_PER_RUN" --pid "$pid" \
		ovs "$OVS_RUN/$OVS_BR.mgmt" sink 2>"$TMP/txrate.err") ||
		{ cat "$TMP/txrate.err" >&2; ovs ofctl "$OVS_RUN" dump-flows "$OVS_BR" >&2 || true
		  tail -10 "$OVS_RUN/ovs-vswitchd.log" >&2; die "OVS forwarded nothing to sink in $scen"; }
	sed 's/^/bench:   ovs   /' "$TMP/txrate.err" >&2
	HUGE_KB=$(huge_kb "$pid")
	check_mode ovs-vswitchd
	# Every frame of the pcap must take the forwarding rules: the drop
	# rule of the pcap port (priority 1, under the forwarding rule) stays
	# at 0. (The priority-0 default drop catches what the bridges' own
	# TAPs send, IPv6 router solicitations: not counted.) The datapath
	# flows and the PMD's counters go to the log for a look.
	for b in br0 br-phy br-int; do
		[ -S "$OVS_RUN/$b.mgmt" ] || continue
		err=$(ovs ofctl "$OVS_RUN" dump-flows "$b" 2>/dev/null | grep ' priority=1,in_port=1 actions=drop' |
			sed -n 's/.*n_packets=\([0-9]*\),.*/\1/p') || err=""
		[ "${err:-0}" = 0 ] || log "warning: OVS dropped $err packets of the pcap on $b"
	done
	# and none may be lost on the sink (over its MTU, or its TX full)
	err=$(ovs ofctl "$OVS_RUN" dump-ports "$OVS_BR" sink 2>/dev/null |
		sed -n 's/.*tx pkts=.*drop=\([0-9]*\),.*/\1/p') || err=""
	[ "${err:-0}" = 0 ] || log "warning: OVS dropped $err packets on its sink port's TX"
	ovs appctl "$OVS_RUN" dpctl/dump-flows 2>/dev/null | grep -v '^flow-dump' |
		sed 's/^/bench:   ovs   datapath flow: /' | grep -v 'eth_type(0x86dd)' | head -3 >&2 || true
	ovs appctl "$OVS_RUN" dpif-netdev/pmd-stats-show 2>/dev/null |
		grep -E 'emc hits|megaflow hits|upcall|avg cycles per packet' | head -5 |
		sed 's/^ */bench:   ovs   pmd: /' >&2 || true
	ovs_stop
	read -r PPS CORES <<<"$res"
}

# instr_ovs SCENARIO KIND PCAP: ovs-vswitchd's instructions per packet under
# callgrind (instructions.sh --vg and --attach): OVS started as for a run but
# under valgrind (--fair-sched=yes: its threads take turns, so that its main
# thread answers ovs-vsctl while the PMD spins) and --no-huge, the same
# bridges and flows, then, after BENCH_OVS_INSTR_WARMUP_S (10) s of traffic,
# its PMD thread (the busiest) counted for BENCH_INSTR_S seconds. Packets:
# 32 x the PMD's calls into net_pcap (its RX: the binary is stripped and
# net_pcap and net_null have no symbols; OVS asks for bursts of 32, and the
# infinite replay always has them; every packet goes out, as the cycle
# runs check). The first seconds cost more per packet (flow set-up: 1260
# against 880-970 later, ipv4-64), hence the warm-up.
instr_ovs() {  # runs in $(...), without the EXIT trap: stops OVS itself on failure
	local scen=$1 kind=$2 pcap=$3 dir=$TMP/ovs-instr-$1 pid pfx=$PREFIX-oi
	mkdir -p "$dir"
	OVS_RUN=$TMP/ovs-$scen-instr
	OVS_VSWITCHD_PREFIX="$(INSTR_VG_OPTS=--fair-sched=yes "$PERF/instructions.sh" --vg "$dir")" OVS_HUGE_MB=0 OVS_MEM_MB=1024 \
	OVS_LCORE_CPU=$OVS_LCORE OVS_PMD_CPU=$CORE OVS_PMD_MAXSLEEP=0 OVS_VSCTL_TIMEOUT=300 \
		"$OVS_SH" start "$OVS_RUN" "$pfx" >"$OVS_RUN.start" 2>&1 ||
		{ cat "$OVS_RUN.start" >&2; ovs_stop; die "OVS under valgrind did not start ($OVS_RUN)"; }
	OVS_VSCTL_TIMEOUT=300 ovs_setup "$kind" "$pcap" >"$OVS_RUN.setup" 2>&1 ||
		{ cat "$OVS_RUN.setup" >&2; tail -5 "$OVS_RUN/ovs-vswitchd.log" >&2; ovs_stop; die "OVS setup of $scen under valgrind failed"; }
	pid=$(cat "$OVS_RUN/ovs-vswitchd.pid")
	sleep "${BENCH_OVS_INSTR_WARMUP_S:-10}"
	INSTR_PACKETS_FN=ob:librte_net_pcap,32 BUILD=$BUILD "$PERF/instructions.sh" --attach "ovs-$scen" "$INSTR_S" "$pid" "$dir" \
		>"$TMP/instr-ovs-$scen.out" 2>"$TMP/instr-ovs-$scen.err" ||
		{ ovs_stop; die "instructions.sh failed on OVS $scen: $(tail -3 "$TMP/instr-ovs-$scen.err")"; }
	ovs_stop
	rm -rf "$dir" "/var/run/dpdk/$pfx"
	sed -n 's/^instructions: \([0-9.]*\) per packet.*/\1/p' "$TMP/instr-ovs-$scen.out"
}

[ -x /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk ] ||
	die "openvswitch-switch-dpdk is not installed (apt-get install openvswitch-switch-dpdk)"
huge_setup
huge_mode_text
START=$(date +%s)
log "TSC $TSC_HZ Hz, core $CORE (OVS's main lcore $OVS_LCORE), $RUNS run(s) x $SECONDS_PER_RUN s, $MODE_TEXT"
RESULTS=()
for scen in $OVS_SCENARIOS; do
	pcap=$TMP/$scen.pcap
	in_dev="net_pcap0,rx_pcap=$pcap,infinite_rx=1"
	case $scen in
	ipv4-64) kind=route; pcap_flows "$pcap" 64 ;;
	ipv4-imix) kind=route; pcap_flows "$pcap" imix ;;
	vxlan-encap-64) kind=encap; pcap_flows "$pcap" 64 ;;
	vxlan-encap-imix) kind=encap; pcap_flows "$pcap" imix ;;
	vxlan-decap)
		kind=decap
		pcap_decap "$pcap" ;;
	*) die "unknown scenario '$scen' (ipv4-64, ipv4-imix, vxlan-encap-64, vxlan-encap-imix, vxlan-decap)" ;;
	esac
	vbrd_conf "$scen" "$kind" "$in_dev" "$CORE" "$(mbufs_for "$PACKETS")"
	v=() vc=() o=() oc=()
	for run in $(seq "$RUNS"); do
		run_vbrd "$scen" "$run" "$kind"
		v+=("$PPS") vc+=("$(cycles "$PPS" "$CORES")")
		run_ovs "$scen" "$kind" "$pcap" "$run"
		o+=("$PPS") oc+=("$(cycles "$PPS" "$CORES")")
		log "$scen run $run: vbrd ${v[-1]} pps ${vc[-1]} cycles/pkt, ovs-dpdk ${o[-1]} pps ${oc[-1]} cycles/pkt"
	done
	vcy=$(median "${vc[@]}") ocy=$(median "${oc[@]}")
	RESULTS+=("$(awk -v s="$scen" -v v="$(median "${v[@]}")" -v vc="$vcy" \
		-v l="$(median "${o[@]}")" -v lc="$ocy" -v m="$MODE_TEXT" 'BEGIN {
		printf "bench: %s vbrd %.2f Mpps %.0f cycles/pkt ovs-dpdk %.2f Mpps %.0f cycles/pkt ratio %.2f (raw Mpps %.2f, target >= 1.5) %s\n",
			s, v / 1e6, vc, l / 1e6, lc, lc / vc, v / l, m }')")
	# instructions per packet (callgrind): vbrd's worker, OVS's PMD thread;
	# the verdict from both ratios
	cr=$(awk -v a="$vcy" -v b="$ocy" 'BEGIN { print b / a }')
	if [ "$INSTR" = 1 ]; then
		t0=$(date +%s)
		vi=$(instr_of "$scen") oi=$(instr_ovs "$scen" "$kind" "$pcap")
		ir=$(awk -v a="$vi" -v b="$oi" 'BEGIN { print b / a }')
		RESULTS+=("$(awk -v s="$scen" -v a="$vi" -v b="$oi" -v t=$(( $(date +%s) - t0 )) 'BEGIN {
			printf "bench: %s instructions: vbrd %.1f/pkt ovs-dpdk %.1f/pkt (PMD thread) ratio %.3f (callgrind, %d s); ", s, a, b, b / a, t }')$(
			verdict 1.5 "$ir" "$cr")")
	else
		RESULTS+=("bench: $scen instructions: n/a (BENCH_INSTR=0 or valgrind missing); $(verdict 1.5 n/a "$cr")")
	fi
done
printf '%s\n' "${RESULTS[@]}"
log "done in $(( $(date +%s) - START )) s; cycles/pkt = TSC Hz x busy cores (measured CPU time) / pps"
