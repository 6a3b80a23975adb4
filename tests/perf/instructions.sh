#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# instructions.sh CONFIG [SECONDS]: instructions per packet of vbrd's worker,
# counted by callgrind (valgrind), and the functions they go to.
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
# e.g. to see whether a QoS scenario marked ECN.
set -euo pipefail
CONF=$1
S=${2:-10}
BUILD=${BUILD:-build}
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 2; }
T=$(mktemp -d /tmp/vbrd-instr.XXXXXX)
VP=
trap 'kill -9 $VP 2>/dev/null || true; rm -rf "$T" /var/run/dpdk/vbrdinstr$$' EXIT
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
valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes \
	--callgrind-out-file="$T/out.%p" "$BUILD/app/vbrd" -c "$T/vbrd.conf" > "$T/log" 2>&1 &
VP=$!
for _ in $(seq $((${INSTR_START_S:-60} * 5))); do
	"$BUILD/app/vbrctl" -s "$T/s.sock" -j show stats >/dev/null 2>&1 && break
	kill -0 $VP 2>/dev/null || { cat "$T/log" >&2; exit 1; }
	sleep 0.2
done
callgrind_control -i on $VP >/dev/null 2>&1
sleep 2
callgrind_control -z $VP >/dev/null 2>&1
sleep "$S"
callgrind_control -d $VP >/dev/null 2>&1
if [ -n "${INSTR_SHOW:-}" ]; then
	# shellcheck disable=SC2086  # INSTR_SHOW is words of a vbrctl command
	"$BUILD/app/vbrctl" -s "$T/s.sock" -t 60000 -j $INSTR_SHOW >"${INSTR_SHOW_OUT:-/dev/stderr}" ||
		echo "instructions.sh: no answer to '$INSTR_SHOW'" >&2
fi
sleep 1
python3 - "$T"/out.*-* <<'PY'
import collections, re, sys
def parse(path):
    names, self_ir, calls = {}, collections.Counter(), collections.Counter()
    cur = cfn = None
    pending = False
    def name(s):
        m = re.match(r'\((\d+)\)(?: (.*))?', s)
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), m.group(1))
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('fn='):
            cur = name(line[3:])
        elif line.startswith('cfn='):
            cfn = name(line[4:])
        elif line.startswith('calls='):
            calls[cfn] += int(line[6:].split()[0])
            pending = True
        elif line and (line[0].isdigit() or line[0] in '+-*'):
            if pending:
                pending = False  # the inclusive cost of the call just named
            else:
                self_ir[cur] += int(line.split()[-1])
    return self_ir, calls
# the worker's thread: the one that freed the packets
self_ir, calls = max((parse(p) for p in sys.argv[1:]), key=lambda r: r[1]['rte_pktmbuf_free'])
n = calls['rte_pktmbuf_free']
if n == 0:
    sys.exit('instructions.sh: no packet left vbrd (no calls to rte_pktmbuf_free)')
total = sum(self_ir.values())
print('instructions: %.1f per packet (%d packets)' % (total / n, n))
for fn, v in self_ir.most_common(12):
    if v / n >= 0.5:
        print('%8.1f  %s' % (v / n, fn))
PY
