# shellcheck shell=bash
# lab_host: one host of a lab (make run, make lab-virtio), sourced by their
# scripts. A network namespace NS holding eth0 (ADDR, default route via
# GATEWAY), joined by a veth pair to the root namespace's end VETH, which
# vbrd's af_packet port opens. Whatever an earlier run left under the same
# names is deleted first.
#
#   lab_host NS VETH ADDR/LEN GATEWAY
lab_host() {
	local ns=$1 veth=$2 addr=$3 gw=$4
	ip netns del "$ns" 2>/dev/null || true
	ip link del "$veth" 2>/dev/null || true
	ip netns add "$ns"
	ip link add "$veth" type veth peer name eth0 netns "$ns"
	# the root namespace's end carries vbrd's traffic only: no IPv6 of its own
	echo 1 >"/proc/sys/net/ipv6/conf/$veth/disable_ipv6"
	ip link set "$veth" up
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
	ip -n "$ns" addr add "$addr" dev eth0
	ip -n "$ns" route add default via "$gw"
	# af_packet hands frames over as they are: let the kernel fill checksums
	ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null
}
