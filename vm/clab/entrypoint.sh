#!/bin/bash
# The vbrd image's entrypoint (in the image: /usr/lib/vbrd/clab-entrypoint).
#
# Usage: clab-entrypoint            (no arguments; containerlab starts it)
#
# 1. Waits until the data interfaces eth1..eth$CLAB_INTFS exist and are up
#    (containerlab creates them after the container has started).
# 2. Turns their offloads off: TX checksum (required: a veth otherwise hands
#    af_packet TCP/UDP frames whose checksum was never filled in), TSO, GSO,
#    GRO, LRO (vbrd must see frames as they are on the wire), and IPv6 (the
#    kernel's own router solicitations and MLD reports would be sent on
#    vbrd's lines).
# 3. Writes clab.conf beside the config: one vbrd port per data interface,
#    named like it (port "eth1" is net_af_packet1,iface=eth1, ...), and the
#    `eal` section unless the config has its own. The config names ports
#    eth1, eth2 ... and must `@include "clab.conf"` (vbrd resolves includes
#    in the config's directory).
# 4. Starts FRR when VBRD_FRR=1, then runs vbrd in the foreground (exec: it
#    gets the container's signals; `docker stop` is a clean SIGTERM).
#
# Environment:
#   CLAB_INTFS      number of data interfaces (containerlab sets it): 1..16
#   VBRD_CONF       the config, default /etc/vbrd/vbrd.conf (bind it)
#   VBRD_WAIT_S     seconds to wait for the interfaces, default 60
#   VBRD_HUGEPAGES  auto (default) | yes | no: eal.hugepages in clab.conf.
#                   auto takes hugepages when hugetlbfs is mounted in the
#                   container and VBRD_MEMORY_MB of them are free, else runs
#                   without (--no-huge: enough for a lab)
#   VBRD_MEMORY_MB  eal.memory_mb in clab.conf, default 512
#   VBRD_FRR        1: start FRR (/usr/lib/frr/frrinit.sh start) first,
#                   with the /etc/frr you bind; default 0
#   VBRD_BIN        the vbrd binary, default /usr/sbin/vbrd
set -euo pipefail

die() {
	echo "vbrd-clab: $*" >&2
	exit 1
}

conf=${VBRD_CONF:-/etc/vbrd/vbrd.conf}
wait_s=${VBRD_WAIT_S:-60}
huge=${VBRD_HUGEPAGES:-auto}
memory_mb=${VBRD_MEMORY_MB:-512}
frr=${VBRD_FRR:-0}
vbrd=${VBRD_BIN:-/usr/sbin/vbrd}
n=${CLAB_INTFS:-}

[[ -n $n ]] || die "CLAB_INTFS is not set: containerlab sets it to the number of data interfaces (set it by hand elsewhere)"
if ! [[ $n =~ ^[1-9][0-9]?$ ]] || ((n > 16)); then
	die "CLAB_INTFS='$n': want 1..16 (vbrd has at most 16 ports)"
fi
[[ $wait_s =~ ^[0-9]+$ ]] || die "VBRD_WAIT_S='$wait_s': want a number of seconds"
[[ $memory_mb =~ ^[0-9]+$ ]] || die "VBRD_MEMORY_MB='$memory_mb': want a number of MiB"
[[ $huge =~ ^(auto|yes|no)$ ]] || die "VBRD_HUGEPAGES='$huge': want auto, yes or no"
[[ $frr =~ ^[01]$ ]] || die "VBRD_FRR='$frr': want 0 or 1"
[[ -x $vbrd ]] || die "no vbrd binary at $vbrd"
[[ -f $conf ]] || die "no config at $conf: bind one (topology: binds: [\"edge.conf:/etc/vbrd/vbrd.conf\"])"
grep -Eq '^[[:space:]]*@include[[:space:]]+"clab\.conf"' "$conf" ||
	die "$conf does not @include \"clab.conf\" (the ports eth1..eth$n this entrypoint writes)"
# Its own ports would be a "duplicate setting name" in clab.conf for vbrd.
if grep -Eq '^[[:space:]]*ports[[:space:]]*[=:]' "$conf"; then
	die "$conf has its own ports: remove them (clab.conf, which it @includes, has eth1..eth$n)"
fi

# 1. eth1..ethN present and up (operstate up: both ends of the veth are up).
missing() {
	local i
	for ((i = 1; i <= n; i++)); do
		if [[ "$(cat "/sys/class/net/eth$i/operstate" 2>/dev/null)" != up ]]; then
			echo "eth$i"
			return
		fi
	done
}
deadline=$((SECONDS + wait_s))
while [[ -n "$(missing)" ]]; do
	if ((SECONDS >= deadline)); then
		m=$(missing)
		state=$(cat "/sys/class/net/$m/operstate" 2>/dev/null || echo "missing")
		die "after ${wait_s} s, $m is $state (CLAB_INTFS=$n: eth1..eth$n wanted; present: $(cd /sys/class/net && echo *))"
	fi
	sleep 0.1
done
echo "vbrd-clab: eth1..eth$n up"

# 2. Offloads off. TX checksum must go; the others are turned off where the
# driver lets them change (a veth has them all).
for ((i = 1; i <= n; i++)); do
	ethtool -K "eth$i" tx off >/dev/null 2>&1 || die "ethtool -K eth$i tx off failed (the container needs CAP_NET_ADMIN)"
	for f in tso gso gro lro; do
		ethtool -K "eth$i" "$f" off >/dev/null 2>&1 || true
	done
	if ! echo 1 >"/proc/sys/net/ipv6/conf/eth$i/disable_ipv6" 2>/dev/null; then
		echo "vbrd-clab: cannot turn IPv6 off on eth$i (read-only /proc/sys?): the kernel may send on it" >&2
	fi
done

# 3. clab.conf: ports, and eal unless the config has it.
inc="$(dirname "$conf")/clab.conf"
{
	echo "# Written by vbrd's clab entrypoint at container start: do not edit."
	echo "ports = ("
	for ((i = 1; i <= n; i++)); do
		sep=$([[ $i -lt $n ]] && echo "," || true)
		echo "  { name = \"eth$i\"; devargs = \"net_af_packet$i,iface=eth$i\"; }$sep"
	done
	echo ");"
	if ! grep -Eq '^[[:space:]]*eal[[:space:]]*[=:]' "$conf"; then
		use=false
		if [[ $huge == yes ]]; then
			use=true
		elif [[ $huge == auto ]] && grep -q ' hugetlbfs ' /proc/mounts; then
			free=$(awk '/^HugePages_Free:/ { f = $2 } /^Hugepagesize:/ { s = $2 } END { print int(f * s / 1024) }' /proc/meminfo)
			((free >= memory_mb)) && use=true
		fi
		echo "eal = { hugepages = $use; memory_mb = $memory_mb; };"
	fi
} >"$inc.tmp" || die "cannot write $inc.tmp (is $(dirname "$conf") writable?)"
mv "$inc.tmp" "$inc"
echo "vbrd-clab: $inc: ports eth1..eth$n$(grep -o 'hugepages = [a-z]*' "$inc" | sed 's/^/, /')"

# 4. FRR, then vbrd.
if [[ $frr == 1 ]]; then
	[[ -x /usr/lib/frr/frrinit.sh ]] || die "VBRD_FRR=1 but FRR is not installed (/usr/lib/frr/frrinit.sh)"
	/usr/lib/frr/frrinit.sh start || die "FRR did not start (/usr/lib/frr/frrinit.sh start)"
fi
exec "$vbrd" -c "$conf"
