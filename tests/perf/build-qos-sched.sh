#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Build DPDK's qos_sched example as the QoS bench's reference scheduler.
#
#   tests/perf/build-qos-sched.sh BUILD_DIR     -> BUILD_DIR/qos_sched
#
# The source is Debian's dpdk-doc copy (/usr/share/dpdk/examples, the same
# DPDK release as libdpdk-dev). It is copied to BUILD_DIR/qos_sched-src and
# changed in one way only, then built with its own Makefile against
# pkg-config libdpdk:
#
#   qos_sched sets the scheduler's port rate from the TX port's link speed
#   (init.c, app_init_sched_port: link_speed Mbit/s / 8). Virtual devices
#   report a made-up speed (net_null and net_pcap: 10 Gbit/s, always), and
#   rte_sched refuses subport and pipe rates above the port rate, so on
#   them the scheduler could never be configured faster than 10 Gbit/s:
#   14.9 Mpps of 64-byte frames, but only 3.3 Mpps of IMIX, which is below
#   what the example forwards on this machine, so every IMIX figure would
#   be the shaper's limit and not the scheduler's cost. The patch lets the
#   profile give the rate, in bytes/s, as `rate` in its [port] section
#   (cfg_file.c, cfg_load_port); without that entry the rate comes from the
#   link as before.
#
# Nothing else changes. What needs no patch, because the command line can
# say it (tests/perf/README.md, bench-qos.sh): the mempool (--msz; the
# default of 2M mbufs is ~4.6 GB) and the core layout (--lcores, --mnc).
# qos_sched installs no signal handler: stop it with SIGTERM (a background
# job of a script ignores SIGINT) and remove its /var/run/dpdk/PREFIX.
#
# The copy is rebuilt only when missing or older than this script.
set -eu

BUILD_DIR=${1:?usage: build-qos-sched.sh BUILD_DIR}
EXAMPLES=${DPDK_EXAMPLES:-/usr/share/dpdk/examples}
SRC=$BUILD_DIR/qos_sched-src
OUT=$BUILD_DIR/qos_sched
SELF=$0

if [ -x "$OUT" ] && [ "$OUT" -nt "$SELF" ]; then
	exit 0
fi
if [ ! -f "$EXAMPLES/qos_sched/init.c" ]; then
	echo "build-qos-sched: $EXAMPLES/qos_sched not found (install dpdk-doc: make deps)" >&2
	exit 1
fi

rm -rf "$SRC"
mkdir -p "$SRC"
cp -r "$EXAMPLES/qos_sched" "$SRC/"
INIT=$SRC/qos_sched/init.c
CFG=$SRC/qos_sched/cfg_file.c

# Each anchor line must exist exactly once, or DPDK changed and the patch
# must be looked at again rather than silently not applied.
check_anchor() {  # check_anchor FILE TEXT
	n=$(grep -cF "$2" "$1" || true)
	if [ "$n" != 1 ]; then
		echo "build-qos-sched: '$2' found $n times in $1; patch not applicable" >&2
		exit 1
	fi
}
check_anchor "$INIT" 'port_params.rate = (uint64_t) link.link_speed * 1000 * 1000 / 8;'
check_anchor "$INIT" '#include "cfg_file.h"'
check_anchor "$CFG" 'uint32_t n_active_queues;'
check_anchor "$CFG" 'entry = rte_cfgfile_get_entry(cfg, "port", "number of subports per port");'

# init.c: the profile's rate when it has one, else the link's.
sed -i \
	-e 's|^#include "cfg_file.h"|&\nextern uint64_t app_port_rate; /* vbrd bench: [port] rate of the profile, 0 = none */|' \
	-e 's|port_params\.rate = (uint64_t) link\.link_speed \* 1000 \* 1000 / 8;|port_params.rate = app_port_rate ? app_port_rate : /* vbrd bench */\n\t\t(uint64_t) link.link_speed * 1000 * 1000 / 8;|' \
	"$INIT"
# cfg_file.c: [port] rate = BYTES_PER_SECOND.
sed -i \
	-e 's|^uint32_t n_active_queues;|&\nuint64_t app_port_rate; /* vbrd bench */|' \
	-e 's|^\([[:space:]]*\)entry = rte_cfgfile_get_entry(cfg, "port", "number of subports per port");|\1entry = rte_cfgfile_get_entry(cfg, "port", "rate"); /* vbrd bench */\n\1if (entry \&\& parse_u64(entry, \&app_port_rate) != 0) /* vbrd bench */\n\1\treturn -1; /* vbrd bench */\n\n&|' \
	"$CFG"
if [ "$(grep -c 'vbrd bench' "$INIT")" != 2 ] || [ "$(grep -c 'vbrd bench' "$CFG")" != 4 ]; then
	echo "build-qos-sched: patching $INIT and $CFG failed" >&2
	exit 1
fi

echo "build-qos-sched: building $SRC/qos_sched" >&2
if ! make -C "$SRC/qos_sched" -j"$(nproc)" >"$SRC/build.log" 2>&1; then
	tail -20 "$SRC/build.log" >&2
	echo "build-qos-sched: build failed, log in $SRC/build.log" >&2
	exit 1
fi
cp "$SRC/qos_sched/build/qos_sched-shared" "$OUT"
