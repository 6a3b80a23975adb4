#!/usr/bin/env bash
# Capture what zebra sends an FPM server (FRR's dplane_fpm_nl): the source
# of the test vectors in tests/unit/test_fpm_parse.c.
#
#   tests/tools/fpm-capture.sh OUT [STEP ...]
#
# In a namespace of its own (two veth links: d0 10.0.0.1/24 2001:db8::1/64,
# d1 10.0.1.1/24 2001:db8:1::1/64), starts a listener on 127.0.0.1:2620,
# then zebra (-M dplane_fpm_nl, `fpm address 127.0.0.1 port 2620`) and
# staticd as the frr user with their own directory, as
# tests/tcl/harness/frr.tcl runs them. Each STEP is vtysh configuration,
# commands separated by ';' ("ip route 192.0.2.0/24 10.0.0.2; ip route
# 198.51.100.0/24 blackhole"), run one second after the previous one;
# "sleep N" waits N s more (zebra reconnects 3 s after `[no] fpm
# use-next-hop-groups`, then sends everything again).
# OUT gets one line per frame, "CONNECTION UNIX-TIME HEX", and
# "# step STEP" / "# connect N" / "# close N" lines. Everything started is
# stopped and the namespace deleted on exit. Needs root and frr.
set -euo pipefail

[ $# -ge 1 ] || { sed -n '2,19p' "$0"; exit 2; }
out=$(realpath "$1")
shift
[ "$(id -u)" = 0 ] || { echo "fpm-capture.sh: needs root (ip netns)" >&2; exit 1; }

ns=fpmcap-$$
dir=$(mktemp -d /tmp/fpm-capture.XXXXXX)
listener=
cleanup() {
	local d pid
	for d in staticd zebra; do
		if [ -s "$dir/$d.pid" ]; then
			pid=$(cat "$dir/$d.pid")
			kill "$pid" 2>/dev/null || true
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.2
			done
			rm -rf "/var/tmp/frr/$d.$pid"
		fi
	done
	if [ -n "$listener" ]; then
		kill "$listener" 2>/dev/null || true
	fi
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT

ip netns add "$ns"
ip -n "$ns" link set lo up
i=0
for l in d0 d1; do
	ip -n "$ns" link add "$l" type veth peer name "${l}p"
	ip -n "$ns" link set "${l}p" up
	ip -n "$ns" link set "$l" up
	ip -n "$ns" addr add "10.0.$i.1/24" dev "$l"
	ip -n "$ns" addr add "2001:db8:$i::1/64" dev "$l" nodad
	i=$((i + 1))
done

: >"$out"
# The listener: frames cut by their FPM header, one line each.
ip netns exec "$ns" python3 -u -c '
import socket, sys, time
out = open(sys.argv[1], "a", buffering=1)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 2620))
s.listen(1)
conn = 0
while True:
    c, _ = s.accept()
    conn += 1
    out.write("# connect %d\n" % conn)
    buf = b""
    while True:
        d = c.recv(65536)
        if not d:
            out.write("# close %d\n" % conn)
            break
        buf += d
        while len(buf) >= 4 and len(buf) >= (buf[2] << 8 | buf[3]) >= 4:
            n = buf[2] << 8 | buf[3]
            out.write("%d %.6f %s\n" % (conn, time.time(), buf[:n].hex()))
            buf = buf[n:]
' "$out" &
listener=$!

chown frr:frr "$dir"
printf 'hostname %s\nlog file %s/zebra.log debugging\ndebug zebra fpm\nfpm address 127.0.0.1 port 2620\n' \
	"$ns" "$dir" >"$dir/zebra.conf"
printf 'hostname %s\nlog file %s/staticd.log\n' "$ns" "$dir" >"$dir/staticd.conf"
chmod 644 "$dir"/*.conf
for d in zebra staticd; do
	extra=()
	[ "$d" = zebra ] && extra=(-M dplane_fpm_nl)
	ip netns exec "$ns" "/usr/lib/frr/$d" -d "${extra[@]}" -f "$dir/$d.conf" -i "$dir/$d.pid" \
		--vty_socket "$dir" -P 0 -z "$dir/zserv.api"
done

# zebra connects 3 s after `fpm address` (its reconnect timer)
for _ in $(seq 100); do
	grep -q '^# connect' "$out" && break
	sleep 0.1
done
grep -q '^# connect' "$out" || { echo "fpm-capture.sh: zebra did not connect" >&2; exit 1; }
sleep 1

for step in "$@"; do
	echo "# step $step" >>"$out"
	if [[ $step =~ ^sleep\ ([0-9]+)$ ]]; then
		sleep "${BASH_REMATCH[1]}"
		continue
	fi
	args=(-c "configure terminal")
	IFS=';' read -ra cmds <<<"$step"
	for c in "${cmds[@]}"; do
		args+=(-c "$c")
	done
	ip netns exec "$ns" env VTYSH_PAGER=cat vtysh --vty_socket "$dir" "${args[@]}"
	sleep 1
done
