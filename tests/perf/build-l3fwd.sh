#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Build DPDK's l3fwd example as the bench's reference router.
#
#   tests/perf/build-l3fwd.sh BUILD_DIR     -> BUILD_DIR/l3fwd
#
# The source is Debian's dpdk-doc copy (/usr/share/dpdk/examples, the same
# DPDK release as libdpdk-dev). It is copied to BUILD_DIR/l3fwd-src and
# changed in one way only, then built with its own Makefile against
# pkg-config libdpdk:
#
#   l3fwd asks every port for RTE_ETH_RX_OFFLOAD_CHECKSUM. Virtual devices
#   (net_pcap, net_null, net_af_packet) do not offer it, so
#   rte_eth_dev_configure() fails and l3fwd exits. The patch masks the
#   requested Rx offloads by the device's dev_info.rx_offload_capa, at the
#   port (rte_eth_dev_configure) and at each Rx queue (rte_eth_rx_queue_setup).
#   Nothing else changes; l3fwd never looks at checksum flags in its LPM
#   path anyway (RFC 1812 check 2 is "done in H/W" there).
#
# The copy is rebuilt only when missing or older than this script.
set -eu

BUILD_DIR=${1:?usage: build-l3fwd.sh BUILD_DIR}
EXAMPLES=${DPDK_EXAMPLES:-/usr/share/dpdk/examples}
SRC=$BUILD_DIR/l3fwd-src
OUT=$BUILD_DIR/l3fwd
SELF=$0

if [ -x "$OUT" ] && [ "$OUT" -nt "$SELF" ]; then
	exit 0
fi
if [ ! -f "$EXAMPLES/l3fwd/main.c" ]; then
	echo "build-l3fwd: $EXAMPLES/l3fwd not found (install dpdk-doc: make deps)" >&2
	exit 1
fi

rm -rf "$SRC"
mkdir -p "$SRC"
# l3fwd includes ../common/ (SIMD port-group helpers).
cp -r "$EXAMPLES/l3fwd" "$EXAMPLES/common" "$SRC/"
MAIN=$SRC/l3fwd/main.c

# Each anchor line must exist exactly once, or DPDK changed and the patch
# must be looked at again rather than silently not applied.
for anchor in 'local_port_conf.rx_adv_conf.rss_conf.rss_hf &=' \
	      'rxq_conf.offloads = port_conf.rxmode.offloads;'; do
	n=$(grep -cF "$anchor" "$MAIN" || true)
	if [ "$n" != 1 ]; then
		echo "build-l3fwd: '$anchor' found $n times in $MAIN; patch not applicable" >&2
		exit 1
	fi
done
sed -i \
	-e 's/^\([[:space:]]*\)local_port_conf\.rx_adv_conf\.rss_conf\.rss_hf &=/\1local_port_conf.rxmode.offloads \&= dev_info.rx_offload_capa; \/* vbrd bench *\/\n&/' \
	-e 's/rxq_conf\.offloads = port_conf\.rxmode\.offloads;/rxq_conf.offloads = port_conf.rxmode.offloads \& dev_info.rx_offload_capa; \/* vbrd bench *\//' \
	"$MAIN"
if [ "$(grep -c 'vbrd bench' "$MAIN")" != 2 ]; then
	echo "build-l3fwd: patching $MAIN failed" >&2
	exit 1
fi

echo "build-l3fwd: building $SRC/l3fwd" >&2
if ! make -C "$SRC/l3fwd" -j"$(nproc)" >"$SRC/build.log" 2>&1; then
	tail -20 "$SRC/build.log" >&2
	echo "build-l3fwd: build failed, log in $SRC/build.log" >&2
	exit 1
fi
cp "$SRC/l3fwd/build/l3fwd-shared" "$OUT"
