/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: arbitrary bytes as an Ethernet frame through the data
 * path's parsers (pipeline/parse.c), as worker.c calls them: parse_l2, then
 * parse_ipv4 on what follows the L2 header, then flow_hash_ipv4.
 *
 * Besides memory errors (ASan) and undefined behaviour (UBSan), it traps
 * when a parser breaks its documented contract:
 *   - parse_l2: l2_len is 14 or 18 and within the frame; VLAN < 4096;
 *   - parse_ipv4: hdr_len in 20..60 and equal to IHL*4, hdr_len <= total_len
 *     <= the bytes given; the checksum verifies unless csum_ok; no fragment
 *     ends past 65535 bytes (offset * 8 + payload, RFC 791 §3.2); ports are 0
 *     unless a first-fragment UDP/TCP datagram holds 4 bytes of them;
 *   - inet_checksum agrees with a textbook RFC 1071 sum;
 *   - flow_hash_ipv4 is a function of the 5-tuple only;
 *   - the fast path's test (pipeline/fast4.h fast4_ok) accepts only frames
 *     the general path would route the same way: parse_l2 and parse_ipv4
 *     accept them (untagged, 20-byte header, not a fragment), TTL above 1,
 *     no martian address (ip4.c), and the padding it trims is exactly what
 *     ip4_input_check trims.
 * Each header is also parsed from a copy of exactly its length, so a read
 * past the end is an ASan heap overflow, not a silent read of the next bytes.
 */
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/fast4.h"
#include "pipeline/parse.h"

/* A broken invariant: say which, then abort so libFuzzer keeps the input. */
#define CHECK(c)                                                                                  \
	do {                                                                                      \
		if (!(c)) {                                                                       \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

/* RFC 1071, big-endian words, end-around carry; host-order result. */
static uint16_t ref_checksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void check_ipv4(const uint8_t *p, uint32_t len, bool csum_ok)
{
	struct pkt_ipv4 ip;
	const struct drop_reason *why = NULL;

	if (!parse_ipv4(p, len, csum_ok, &ip, &why)) {
		CHECK(why == &drop_truncated || why == &drop_bad_version || why == &drop_bad_ihl ||
		      why == &drop_bad_length || (why == &drop_bad_checksum && !csum_ok) ||
		      (why == &drop_frag_oversize &&
		       (rd16(p + 6) & 0x1fff) * 8u + rd16(p + 2) - (p[0] & 0x0fu) * 4 > 65535));
		return;
	}
	CHECK(len >= 20 && (p[0] >> 4) == 4);
	CHECK(ip.hdr_len == (p[0] & 0x0f) * 4 && ip.hdr_len >= 20 && ip.hdr_len <= 60);
	CHECK(ip.hdr_len <= ip.total_len && ip.total_len <= len);
	CHECK(ip.total_len == rd16(p + 2));
	if (!csum_ok)
		CHECK(ref_checksum(p, ip.hdr_len) == 0);
	CHECK(ip.ttl == p[8] && ip.proto == p[9]);

	uint16_t frag = rd16(p + 6);
	CHECK((frag & 0x1fff) * 8u + ip.total_len - ip.hdr_len <= 65535);
	CHECK(ip.df == ((frag & 0x4000) != 0));
	CHECK(ip.fragment == ((frag & 0x3fff) != 0));
	bool ports = (frag & 0x1fff) == 0 && (ip.proto == IPPROTO_UDP || ip.proto == IPPROTO_TCP) &&
		     ip.total_len >= ip.hdr_len + 4;
	if (ports) {
		CHECK(ip.sport == rd16(p + ip.hdr_len) && ip.dport == rd16(p + ip.hdr_len + 2));
	} else {
		CHECK(ip.sport == 0 && ip.dport == 0);
	}

	/* the hash depends on the 5-tuple alone */
	struct pkt_ipv4 same = { .src = ip.src,
				 .dst = ip.dst,
				 .sport = ip.sport,
				 .dport = ip.dport,
				 .proto = ip.proto,
				 .ttl = (uint8_t)~ip.ttl,
				 .total_len = 1,
				 .hdr_len = 2,
				 .df = !ip.df };
	CHECK(flow_hash_ipv4(&ip) == flow_hash_ipv4(&same));
}

/* RFC 1812 §5.3.7 as ip4.c martian() has it */
static bool ref_martian(uint32_t a)
{
	uint8_t o = (uint8_t)(a >> 24);

	return o == 0 || o == 127 || o >= 224;
}

/* fast4_ok() against the general path's parsers, on a one-segment mbuf */
static void check_fast4(const uint8_t *data, size_t size)
{
	struct rte_mbuf m;
	uint64_t mac = 0;

	if (size < 6 || size > UINT16_MAX)
		return;
	memset(&m, 0, sizeof(m));
	m.data_len = (uint16_t)size;
	m.pkt_len = (uint32_t)size;
	m.nb_segs = 1;
	memcpy(&mac, data, 6); /* to us: the check of the MAC passes */
	if (!fast4_ok(data, &m, mac, 0xffffffffffffull, false))
		return;

	struct pkt_l2 l2;
	struct pkt_ipv4 ip;
	const struct drop_reason *why = NULL;
	CHECK(parse_l2(data, (uint32_t)size, &l2, &why));
	CHECK(l2.ethertype == ETHERTYPE_IPV4 && l2.l2_len == 14 && l2.vlan == 0);
	CHECK(parse_ipv4(data + 14, (uint32_t)size - 14, false, &ip, &why));
	CHECK(ip.hdr_len == 20 && !ip.fragment && ip.ttl > 1);
	CHECK(!ref_martian(ip.src) && !ref_martian(ip.dst));
	CHECK(m.pkt_len == 14u + ip.total_len && m.data_len == m.pkt_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkt_l2 l2;
	const struct drop_reason *why = NULL;

	if (size > 65535 + 18)
		return -1; /* larger than any frame; not worth the time */

	/* the checksum routine against the reference, at every alignment */
	for (size_t off = 0; off < 2 && off <= size; off++) {
		uint16_t v = inet_checksum(data + off, (uint32_t)(size - off));
		uint8_t got[2], want[2];
		uint16_t r = ref_checksum(data + off, size - off);

		memcpy(got, &v, 2);
		want[0] = (uint8_t)(r >> 8);
		want[1] = (uint8_t)r;
		CHECK(got[0] == want[0] && got[1] == want[1]);
	}

	if (!parse_l2(data, (uint32_t)size, &l2, &why)) {
		CHECK(why == &drop_truncated &&
		      (size < 14 || (rd16(data + 12) == ETHERTYPE_VLAN && size < 18)));
	} else {
		CHECK(l2.l2_len == 14 || l2.l2_len == 18);
		CHECK(l2.l2_len <= size && l2.vlan < 4096);
		CHECK(l2.ethertype == rd16(data + l2.l2_len - 2));

		/* the L3 header alone, in a buffer of exactly its length */
		uint32_t l3len = (uint32_t)(size - l2.l2_len);
		uint8_t *l3 = malloc(l3len ? l3len : 1);
		if (l3 == NULL)
			return 0;
		memcpy(l3, data + l2.l2_len, l3len);
		/* worker.c parses IPv4 only under its ethertype; the parser itself
		 * must be safe on anything, so try it on every frame */
		check_ipv4(l3, l3len, false);
		check_ipv4(l3, l3len, true);
		free(l3);
	}

	check_fast4(data, size);

	/* the raw input as an IPv4 header too (tunnel decap re-parses inner headers) */
	check_ipv4(data, (uint32_t)size, false);
	check_ipv4(data, (uint32_t)size, true);
	return 0;
}
