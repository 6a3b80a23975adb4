#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# instructions.sh CONFIG [SECONDS]: instructions per packet of vbrd's worker,
# counted by callgrind (valgrind), and the functions they go to.
# instructions.sh --cmd NAME SECONDS READY -- COMMAND...: the same for another
# DPDK program forwarding into net_null (l3fwd), ready once its output
# matches the regex READY; NAME names it for INSTR_KEEP.
#
# The bench's cycle figures move by +-15 % with the host; instruction counts
# do not, so they show what a change to the data path saves. CONFIG is a
# vbrd config whose first port replays a pcap (net_pcap, infinite_rx=1) into
# net_null, as the bench's are; it runs with --no-huge (valgrind) and its
# own instance and socket. Packets are counted as the calls to
# rte_pktmbuf_free (net_null frees each one). Under valgrind the CPU shows
# no AVX-512, so rte_fib takes its scalar lookup. Needs valgrind
# (apt-get install valgrind). INSTR_START_S (60): how long to wait for vbrd's
# control socket under valgrind (a config of many routes or VRFs takes
# minutes there). INSTR_SHOW="show qos" (any vbrctl command): its JSON
# (vbrctl -j) at the end of the count, into INSTR_SHOW_OUT (default stderr),
# e.g. to see whether a QoS scenario marked ECN. INSTR_STAGES=MAP: also the instructions per packet of each
# stage, MAP's table of function regexes to stages (stages.map;
# callgrind_pkt.py). INSTR_KEEP=DIR: keep callgrind's files in DIR/CONF's
# name (for callgrind_annotate, or callgrind_pkt.py again). INSTR_PACKETS_FN=
# FN,K: count K packets per call of FN instead of rte_pktmbuf_free (l3fwd:
# DPDK's shared libraries have no symbol for net_null's free).
# instructions.sh --vg DIR: print the valgrind command words (callgrind files
# into DIR) for a program that the caller starts itself, e.g. a daemon;
# instructions.sh --attach NAME SECONDS PID DIR: count that running program
# (PID; its files in DIR), the caller stopping it afterwards (ovs-vswitchd).
# INSTR_THREADS=sum: the busy threads summed
# (each >= 1 % of the busiest; qos_sched's two lcores, vbrd's two workers).
# INSTR_VG_OPTS: more valgrind options (--fair-sched=yes: threads take
# turns, for programs whose lcores feed each other: qos_sched, OVS).
set -euo pipefail
BUILD=${BUILD:-build}
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 2; }
T=$(mktemp -d /tmp/vbrd-instr.XXXXXX)
VP=
trap 'kill -9 $VP 2>/dev/null || true; rm -rf "$T" /var/run/dpdk/vbrdinstr$$' EXIT
# shellcheck disable=SC2206  # INSTR_VG_OPTS is words of valgrind options
VG=(valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes ${INSTR_VG_OPTS:-} --callgrind-out-file="$T/out.%p")
if [ "${1:-}" = --vg ]; then
	echo "valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes ${INSTR_VG_OPTS:-} --callgrind-out-file=$2/out.%p"
	exit 0
elif [ "${1:-}" = --attach ]; then
	# instructions.sh --attach NAME SECONDS PID DIR: a program the caller
	# started under `instructions.sh --vg DIR` and will stop
	CONF=$2 S=$3 VP=$4
	rm -rf "$T"
	T=$5
	trap '' EXIT
	rm -f "$T"/out.*.*-*  # an earlier count's dumps
elif [ "${1:-}" = --cmd ]; then
	# instructions.sh --cmd NAME SECONDS READY -- COMMAND...: another DPDK
	# program (l3fwd), ready when its output matches the regex READY;
	# it must run with --no-huge and its own --file-prefix
	CONF=$2 S=$3 READY=$4
	shift 5
	"${VG[@]}" "$@" >"$T/log" 2>&1 &
	VP=$!
	for _ in $(seq $((${INSTR_START_S:-60} * 5))); do
		grep -qE "$READY" "$T/log" && break
		kill -0 $VP 2>/dev/null || { cat "$T/log" >&2; exit 1; }
		sleep 0.2
	done
else
	CONF=$1
	S=${2:-10}
	sed -e 's/hugepages = true/hugepages = false/' -e "s/instance = \"[^\"]*\"/instance = \"vbrdinstr$$\"/" \
		-e "s#socket = \"[^\"]*\"#socket = \"$T/s.sock\"#" "$CONF" > "$T/vbrd.conf"
	# vbrd resolves @include in the top file's directory: copy the included files
	# (those of the top file) next to the copy
	{ grep -o '^@include "[^"]*"' "$CONF" || true; } | sed 's/^@include "\(.*\)"$/\1/' | while read -r inc; do
		mkdir -p "$T/$(dirname "$inc")"
		cp "$(dirname "$CONF")/$inc" "$T/$inc"
	done
	grep -q 'instance' "$T/vbrd.conf" || sed -i "1i instance = \"vbrdinstr$$\";" "$T/vbrd.conf"
	grep -q 'socket' "$T/vbrd.conf" || sed -i "1i control = { socket = \"$T/s.sock\"; };" "$T/vbrd.conf"
	"${VG[@]}" "$BUILD/app/vbrd" -c "$T/vbrd.conf" > "$T/log" 2>&1 &
	VP=$!
	for _ in $(seq $((${INSTR_START_S:-60} * 5))); do
		"$BUILD/app/vbrctl" -s "$T/s.sock" -j show stats >/dev/null 2>&1 && break
		kill -0 $VP 2>/dev/null || { cat "$T/log" >&2; exit 1; }
		sleep 0.2
	done
fi
callgrind_control -i on "$VP" >/dev/null 2>&1
sleep 2
callgrind_control -z "$VP" >/dev/null 2>&1
sleep "$S"
callgrind_control -d "$VP" >/dev/null 2>&1
if [ -n "${INSTR_SHOW:-}" ]; then
	# shellcheck disable=SC2086  # INSTR_SHOW is words of a vbrctl command
	"$BUILD/app/vbrctl" -s "$T/s.sock" -t 60000 -j $INSTR_SHOW >"${INSTR_SHOW_OUT:-/dev/stderr}" ||
		echo "instructions.sh: no answer to '$INSTR_SHOW'" >&2
fi
sleep 1
if [ -n "${INSTR_KEEP:-}" ]; then
	mkdir -p "$INSTR_KEEP/$(basename "$CONF" .conf)"
	cp "$T"/out.* "$INSTR_KEEP/$(basename "$CONF" .conf)/"
fi
SUM=()
[ "${INSTR_THREADS:-}" != sum ] || SUM=(--sum-threads)
python3 "$(dirname "$0")/callgrind_pkt.py" ${INSTR_STAGES:+--stages "$INSTR_STAGES"} \
	${INSTR_PACKETS_FN:+--packets-fn "$INSTR_PACKETS_FN"} \
	"${SUM[@]}" "$T"/out.*-*
