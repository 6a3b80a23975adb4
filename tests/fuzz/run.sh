#!/usr/bin/env bash
# Build the libFuzzer targets with clang and run each for SECONDS.
#
#   tests/fuzz/run.sh SECONDS [parse|config|qos_classify|bfd|stamp|fpm|all]     (default: all)
#
# Needs clang, libclang-rt-14-dev, nettle-dev and libmnl-dev (Debian 12); not part of `make test`.
# Environment: FUZZ_OUT (work dir, default /tmp/vbrd-fuzz): binaries, the
# growing corpus (corpus/TARGET) and crash/leak inputs (artifacts/TARGET/).
# Exits 1 when a target found a crash, a leak or a broken invariant; the
# input that triggered it is printed and kept under artifacts/.
set -euo pipefail

usage() { sed -n '2,10p' "$0"; exit 2; }
[ $# -ge 1 ] || usage
secs=$1
which=${2:-all}
case "$secs" in ''|*[!0-9]*|0) usage ;; esac  # 0 would mean "forever" to libFuzzer
case "$which" in
parse|config|qos_classify|bfd|stamp|fpm) targets=("$which") ;;
all) targets=(parse config qos_classify bfd stamp fpm) ;;
*) usage ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=${FUZZ_OUT:-/tmp/vbrd-fuzz}
CC=${CC:-clang}
mkdir -p "$out"

if ! command -v "$CC" >/dev/null; then
	echo "run.sh: $CC is missing: apt-get install clang libclang-rt-14-dev" >&2
	exit 1
fi

cflags=(-std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-Wall -Wextra -Werror
	-I"$src")

build() { # TARGET
	case "$1" in
	parse)
		# parse.c uses DPDK's inline headers (CRC32, raw checksum); the
		# CRC's CPU-feature probe is in librte_eal (no EAL init needed).
		# shellcheck disable=SC2046
		"$CC" "${cflags[@]}" $(pkg-config --cflags libdpdk) \
			"$here/fuzz_parse.c" "$src/pipeline/parse.c" "$src/core/drop.c" -o "$out/fuzz_parse" \
			$(pkg-config --libs libdpdk) ;;
	config)
		# The reader and every feature's section loader (FOLDER/*_config.c,
		# failover/FEATURE/*_config.c, frr/FEATURE/*_config.c):
		# each registers itself, so all of them are linked.
		# shellcheck disable=SC2046
		"$CC" "${cflags[@]}" $(pkg-config --cflags libconfig) \
			"$here/fuzz_config.c" "$src"/core/config_*.c "$src"/*/*_config.c "$src"/failover/*/*_config.c "$src"/frr/*/*_config.c "$src"/frr/cplane/tap_name.c \
			-o "$out/fuzz_config" $(pkg-config --libs libconfig) ;;
	qos_classify)
		# qos/classify_frame.h: static inline on DPDK's inline headers
		# (byte order, Ethernet); no EAL, no rte_acl.
		# shellcheck disable=SC2046
		"$CC" "${cflags[@]}" $(pkg-config --cflags libdpdk) \
			"$here/fuzz_qos_classify.c" -o "$out/fuzz_qos_classify" ;;
	bfd)
		# failover/bfd/bfd_proto.c: plain C, SHA1 from libnettle.
		# shellcheck disable=SC2046
		"$CC" "${cflags[@]}" $(pkg-config --cflags nettle) \
			"$here/fuzz_bfd.c" "$src/failover/bfd/bfd_proto.c" -o "$out/fuzz_bfd" \
			$(pkg-config --libs nettle) ;;
	stamp)
		# failover/pathsel/stamp_proto.c: plain C, HMAC-SHA-256 from libnettle.
		# shellcheck disable=SC2046
		"$CC" "${cflags[@]}" $(pkg-config --cflags nettle) \
			"$here/fuzz_stamp.c" "$src/failover/pathsel/stamp_proto.c" -o "$out/fuzz_stamp" \
			$(pkg-config --libs nettle) -lm ;;
	fpm)
		# frr/fpm/: plain C on libmnl (itself not instrumented: the
		# parser checks every length before libmnl reads a header).
		# shellcheck disable=SC2046
		"$CC" "${cflags[@]}" $(pkg-config --cflags libmnl) \
			"$here/fuzz_fpm.c" "$src/frr/fpm/fpm_parse.c" "$src/frr/fpm/fpm_encode.c" \
			-o "$out/fuzz_fpm" $(pkg-config --libs libmnl) ;;
	esac
}

hex2bin() { printf '%b' "$(echo "$1" | sed 's/../\\x&/g')"; }

seed() { # TARGET: fill corpus/TARGET with valid inputs to start from
	local c=$out/corpus/$1
	mkdir -p "$c"
	case "$1" in
	parse)
		# Untagged UDP 10.0.0.1:5000 -> 10.0.0.2:53, header checksum 0x149b.
		hex2bin "020000000001020000000002""0800"\
"4500001c12344000401114""9b0a0000010a000002""1388003500080000" >"$c/seed-udp"
		# 802.1Q VLAN 100, IHL 6 (NOP options), MF set, TCP 40000 -> 443.
		hex2bin "020000000001020000000002""8100""0064""0800"\
"46000030abcd2000400696910a6400020a00010201010101"\
"9c4001bb""0000000000000000000000000000000000000000" >"$c/seed-tcp-vlan" ;;
	qos_classify)
		# ingress port 3, TCI PCP 5 VLAN 100, mark 0x5a; then the frame:
		# UDP 10.0.0.1:5000 -> 10.0.0.2:4791, TOS 0xb8, checksum 0x13e3
		hex2bin "0003""a064""5a""020000000001020000000002""0800"\
"45b8001c123440004011""13e3""0a000001""0a000002""138812b700080000" >"$c/seed-udp"
		# 802.1Q VLAN 7, IPv6 TCP 2001:db8::1:40000 -> 2001:db8::2:443
		hex2bin "0001""0000""17""020000000001020000000002""8100""0007""86dd"\
"6b812345001406402001""0db8000000000000000000000001"\
"20010db8000000000000000000000002""9c4001bb0000000000000000500200000000""0000" >"$c/seed-tcp6-vlan" ;;
	bfd)
		# No auth, 10 ms x 3: the peer's Down (fixed up), a build, the
		# peer's Init (Your Discriminator fixed up), a timer 51.2 ms later.
		hex2bin "5003""010000""18""20400318""0000000b""00000000""000f4240""00002710""00000000"\
"030001""010000""18""20800318""0000000b""00000001""00002710""00002710""00000000""020200" >"$c/seed-none"
		# Keyed SHA1: the peer's Down with an auth section (digest fixed up), a build.
		hex2bin "5203""010000""34""20440334""0000000b""00000000""000f4240""00002710""00000000"\
"041c0700""00000010""0000000000000000000000000000000000000000""030001" >"$c/seed-sha1" ;;
	stamp)
		# Header: flags, Error Estimate 0x0a20, TTL 61, t2 = epoch + 2 s + 1 unit.
		# Unauthenticated test packet (RFC 8762 §4.2.1): seq 0x01020304,
		# t1 = epoch + 1.5 s, Error Estimate 0x8105, 30 bytes MBZ.
		hex2bin "00""0a20""3d""83aa7e8200000001""01020304""83aa7e8180000000""8105"\
"$(printf '00%.0s' {1..30})" >"$c/seed-unauth"
		# Authenticated (§4.2.2), HMAC fixed up (flag bit 0): seq 7, 12 MBZ,
		# t1, Error Estimate, 70 MBZ, 16 bytes of HMAC.
		hex2bin "01""0a20""3d""83aa7e8200000001""00000007""$(printf '00%.0s' {1..12})"\
"83aa7e8180000000""8105""$(printf '00%.0s' {1..70})""$(printf '00%.0s' {1..16})" >"$c/seed-auth"
		# 44 bytes and a 16-byte tail (an RFC 8972 TLV), also run as a
		# session-table script (flag bit 1).
		hex2bin "02""0a20""3d""83aa7e8200000001""01020304""83aa7e8180000000""8105"\
"$(printf '00%.0s' {1..30})""0001000c""$(printf 'c5%.0s' {1..12})" >"$c/seed-tlv" ;;
	fpm)
		# Frames captured from zebra 8.4.4 (tests/unit/test_fpm_parse.c):
		# mode byte 00 (a stream), then the frames. A route update
		# (RTM_DELROUTE + RTM_NEWROUTE) behind a next-hop group:
		hex2bin "00""010100383400000068000105000000003e41cb8900000b0000000000080001001400000014000200"\
"10000000000000001500000000000000""010100642c00000019000104000000003e41cb8902180000fec400000000"\
"000008000100c000020008000600140000003400000018000105000000003e41cb8902180000fec4000100000000"\
"08000100c0000200080006001400000008001e0015000000" >"$c/seed-nhg-update"
		# An IPv6 route over RTA_MULTIPATH, a blackhole, a next-hop delete:
		hex2bin "00""010100787400000018000104000000003e41cb890a300000fec40001000000001400010020010db8"\
"01000000000000000000000008000600140000003c0009801c000000030000001400050020010db80000000000000000"\
"000000021c000000050000001400050020010db8000100000000000000000002""0101003c3800000018000104000000"\
"003e41cb890a300000fec40006000000001400010020010db8dead000000000000000000000800060014000000"\
"010100242000000069000104000000003e41cb8900000000000000000800010014000000" >"$c/seed-multipath"
		# Mode byte 01 (messages, header made right): a next hop with a
		# gateway, an IPv4 route in table 1000 over RTA_NH_ID, a blackhole
		# next hop.
		hex2bin "01""3000000068000105000000003e41cb8902000b00000000000800010010000000080006000a000002"\
"08000500030000003c00000018000105000000003e41cb890219000000c400010000000008000100c000028008000600"\
"1400000008000f00e803000008001e0010000000""2400000068000105000000003e41cb8902000b000000000008000100"\
"1f00000004000400" >"$c/seed-messages" ;;
	config)
		cp "$src"/tests/unit/configs/*.conf "$src"/conf/*.conf "$src"/conf/examples/*.conf "$c/" \
			2>/dev/null || true ;;
	esac
}

status=0
for t in "${targets[@]}"; do
	echo "== fuzz_$t: build"
	build "$t"
	seed "$t"
	art=$out/artifacts/$t
	mkdir -p "$art"
	dict=()
	[ -f "$here/$t.dict" ] && dict=(-dict="$here/$t.dict")
	echo "== fuzz_$t: ${secs}s"
	log=$out/fuzz_$t.log
	set +e
	# Leak detection stays on whatever the caller's environment says (the
	# last setting of an option wins): the one known libconfig leak is
	# suppressed by name in lsan.supp, not by turning detection off.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1 \
	LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/lsan.supp \
	"$out/fuzz_$t" "${dict[@]}" -detect_leaks=1 -max_total_time="$secs" -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/" \
		"$out/corpus/$t" >"$log" 2>&1
	rc=$?
	set -e
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' "$log" || true
	if [ "$rc" -ne 0 ]; then
		status=1
		echo "== fuzz_$t: FAILED (exit $rc); log $log"
		grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -n 10
		for f in "$art"/*; do
			[ -f "$f" ] || continue
			echo "-- input $f:"
			od -A d -c "$f" | head -n 20
		done
	else
		echo "== fuzz_$t: no crash, leak or broken invariant; corpus $out/corpus/$t" \
		     "($(find "$out/corpus/$t" -type f | wc -l) inputs)"
	fi
done
exit "$status"
