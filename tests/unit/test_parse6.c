/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the IPv6 parsers (pipeline/parse6.c): parse_ipv6,
 * flow_hash_ipv6, icmp6_checksum, udp6_checksum, nd_validate, nd_find_lladdr and the
 * address-class helpers of parse6.h.
 *
 * Packets are built here byte by byte, with a textbook checksum
 * (ref_icmp6_checksum) so a test never trusts the code it checks.
 * No EAL: parse6.c only uses DPDK's inline headers.
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/parse6.h"

static const uint8_t SRC[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };
static const uint8_t DST[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 2 };

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* IPv6 header (RFC 8200 §3): version 6, flow label 0x12345, hop limit @p hl. */
static void put_ip6(uint8_t *p, uint16_t plen, uint8_t nh, uint8_t hl, const uint8_t *src,
		    const uint8_t *dst)
{
	p[0] = 0x60;
	p[1] = 0x01;
	p[2] = 0x23;
	p[3] = 0x45;
	put16(p + 4, plen);
	p[6] = nh;
	p[7] = hl;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
}

/*
 * RFC 4443 §2.3 checksum the textbook way: big-endian 16-bit words of the
 * pseudo-header (RFC 8200 §8.1) and the message, end-around carry,
 * complement. Host order; put16() stores it.
 */
static uint16_t ref_icmp6_checksum(const uint8_t *src, const uint8_t *dst, const uint8_t *msg,
				   uint32_t len)
{
	uint32_t sum = 0;
	uint32_t i;

	for (i = 0; i < 16; i += 2)
		sum += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	sum += len >> 16;
	sum += len & 0xffff;
	sum += 58;
	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)msg[i] << 8 | msg[i + 1];
	if (len & 1)
		sum += (uint32_t)msg[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* ---- parse_ipv6 ------------------------------------------------------------ */

static void test_udp_fields(void **state)
{
	uint8_t p[40 + 8 + 4] = { 0 };
	struct pkt_ipv6 ip;
	const struct drop_reason *why;

	(void)state;
	put_ip6(p, 12, IPPROTO_UDP, 64, SRC, DST);
	put16(p + 40, 5000);
	put16(p + 42, 53);
	assert_true(parse_ipv6(p, sizeof(p), &ip, &why));
	assert_memory_equal(ip.src, SRC, 16);
	assert_memory_equal(ip.dst, DST, 16);
	assert_int_equal(ip.payload_len, 12);
	assert_int_equal(ip.l4_off, 40);
	assert_int_equal(ip.proto, IPPROTO_UDP);
	assert_int_equal(ip.hop_limit, 64);
	assert_int_equal(ip.flow_label, 0x12345);
	assert_int_equal(ip.sport, 5000);
	assert_int_equal(ip.dport, 53);
	assert_false(ip.fragment);
}

static void test_truncated(void **state)
{
	uint8_t p[40] = { 0 };
	struct pkt_ipv6 ip;
	const struct drop_reason *why = NULL;

	(void)state;
	put_ip6(p, 0, IPPROTO_ICMPV6_NUM, 64, SRC, DST);
	assert_false(parse_ipv6(p, 39, &ip, &why));
	assert_ptr_equal(why, &drop_truncated);
	assert_true(parse_ipv6(p, 40, &ip, &why));
}

static void test_bad_version(void **state)
{
	uint8_t p[40] = { 0 };
	struct pkt_ipv6 ip;
	const struct drop_reason *why = NULL;

	(void)state;
	put_ip6(p, 0, IPPROTO_UDP, 64, SRC, DST);
	p[0] = 0x45;
	assert_false(parse_ipv6(p, sizeof(p), &ip, &why));
	assert_ptr_equal(why, &drop_bad_version);
}

static void test_payload_length(void **state)
{
	uint8_t p[60] = { 0 };
	struct pkt_ipv6 ip;
	const struct drop_reason *why = NULL;

	(void)state;
	/* longer than the frame */
	put_ip6(p, 21, IPPROTO_UDP, 64, SRC, DST);
	assert_false(parse_ipv6(p, sizeof(p), &ip, &why));
	assert_ptr_equal(why, &drop_bad_length);
	/* shorter than the frame: Ethernet padding, fine */
	put_ip6(p, 8, IPPROTO_UDP, 64, SRC, DST);
	assert_true(parse_ipv6(p, sizeof(p), &ip, &why));
	assert_int_equal(ip.payload_len, 8);
	/* RFC 2675 jumbogram: payload length 0 with a Hop-by-Hop header */
	why = NULL;
	put_ip6(p, 0, 0, 64, SRC, DST);
	assert_false(parse_ipv6(p, sizeof(p), &ip, &why));
	assert_ptr_equal(why, &drop_bad_length);
}

static void test_extension_headers_skipped(void **state)
{
	/* Hop-by-Hop (8 bytes) → Destination Options (16 bytes) → TCP */
	uint8_t p[40 + 8 + 16 + 20] = { 0 };
	struct pkt_ipv6 ip;
	const struct drop_reason *why;

	(void)state;
	put_ip6(p, 8 + 16 + 20, 0, 64, SRC, DST);
	p[40] = 60; /* next: Destination Options */
	p[41] = 0;  /* 8 bytes */
	p[48] = IPPROTO_TCP;
	p[49] = 1; /* 16 bytes */
	put16(p + 64, 40000);
	put16(p + 66, 443);
	assert_true(parse_ipv6(p, sizeof(p), &ip, &why));
	assert_int_equal(ip.proto, IPPROTO_TCP);
	assert_int_equal(ip.l4_off, 64);
	assert_int_equal(ip.sport, 40000);
	assert_int_equal(ip.dport, 443);
}

static void test_fragments(void **state)
{
	uint8_t p[40 + 8 + 8] = { 0 };
	struct pkt_ipv6 ip;
	const struct drop_reason *why;

	(void)state;
	/* first fragment: ports are there */
	put_ip6(p, 16, 44, 64, SRC, DST);
	p[40] = IPPROTO_UDP;
	put16(p + 42, 0x0001); /* offset 0, M=1 */
	put16(p + 48, 1234);
	put16(p + 50, 4321);
	assert_true(parse_ipv6(p, sizeof(p), &ip, &why));
	assert_true(ip.fragment);
	assert_int_equal(ip.proto, IPPROTO_UDP);
	assert_int_equal(ip.sport, 1234);
	assert_int_equal(ip.dport, 4321);
	/* later fragment: the bytes after the header are data, not ports */
	put16(p + 42, 0x0008 << 3);
	assert_true(parse_ipv6(p, sizeof(p), &ip, &why));
	assert_true(ip.fragment);
	assert_int_equal(ip.sport, 0);
	assert_int_equal(ip.dport, 0);
}

static void test_extension_past_payload(void **state)
{
	/* a Destination Options header claiming 16 bytes in an 8-byte payload */
	uint8_t p[48] = { 0 };
	struct pkt_ipv6 ip;
	const struct drop_reason *why;

	(void)state;
	put_ip6(p, 8, 60, 64, SRC, DST);
	p[40] = IPPROTO_UDP;
	p[41] = 1;
	assert_true(parse_ipv6(p, sizeof(p), &ip, &why));
	assert_int_equal(ip.proto, 60);
	assert_int_equal(ip.l4_off, 40);
	assert_int_equal(ip.sport, 0);
}

/* ---- flow_hash_ipv6 ------------------------------------------------------- */

static void test_flow_hash(void **state)
{
	struct pkt_ipv6 a = { .proto = IPPROTO_UDP, .sport = 1000, .dport = 53 };
	unsigned buckets[8] = { 0 };

	(void)state;
	memcpy(a.src, SRC, 16);
	memcpy(a.dst, DST, 16);
	struct pkt_ipv6 b = a;
	assert_int_equal(flow_hash_ipv6(&a), flow_hash_ipv6(&b));
	b.sport = 1001;
	assert_int_not_equal(flow_hash_ipv6(&a), flow_hash_ipv6(&b));
	/* 4096 flows over 8 next hops the way fwd_nexthop_select() maps them */
	for (unsigned i = 0; i < 4096; i++) {
		b.sport = (uint16_t)(10000 + i);
		buckets[((uint64_t)flow_hash_ipv6(&b) * 8) >> 32]++;
	}
	for (int k = 0; k < 8; k++)
		assert_in_range(buckets[k], 512 - 128, 512 + 128);
}

/*
 * struct pkt_ipv6 is only 4-byte aligned: in an array of struct ip6_ctx
 * every other one has its addresses at 4 mod 8. The hash must not load 8
 * bytes from there (this file is built with -fsanitize=alignment and no
 * recovery: a misaligned load aborts the test), and must not depend on
 * where the struct lies.
 */
static void test_flow_hash_misaligned(void **state)
{
	struct {
		uint32_t pad;
		struct pkt_ipv6 ip;
	} _Alignas(8) odd;
	struct pkt_ipv6 a = {
		.proto = IPPROTO_UDP, .sport = 1000, .dport = 53, .flow_label = 0x12345
	};

	(void)state;
	memcpy(a.src, SRC, 16);
	memcpy(a.dst, DST, 16);
	odd.ip = a;
	assert_int_equal((uintptr_t)odd.ip.src % 8, 4);
	assert_int_equal(flow_hash_ipv6(&odd.ip), flow_hash_ipv6(&a));
}

/* ---- icmp6_checksum ------------------------------------------------------- */

static void test_icmp6_checksum(void **state)
{
	uint8_t msg[8 + 13];

	(void)state;
	for (unsigned len = 8; len <= sizeof(msg); len++) { /* odd lengths too */
		memset(msg, 0, sizeof(msg));
		msg[0] = ICMP6_ECHO_REQUEST;
		put16(msg + 4, 0x1234);
		put16(msg + 6, (uint16_t)len);
		for (unsigned i = 8; i < len; i++)
			msg[i] = (uint8_t)(i * 37);
		uint16_t ck = icmp6_checksum(SRC, DST, msg, len);
		uint8_t want[2];
		put16(want, ref_icmp6_checksum(SRC, DST, msg, len));
		assert_memory_equal(&ck, want, 2);
		memcpy(msg + 2, &ck, 2);
		assert_int_equal(icmp6_checksum(SRC, DST, msg, len), 0);
		msg[len - 1] ^= 1;
		assert_int_not_equal(icmp6_checksum(SRC, DST, msg, len), 0);
	}
}

/* ---- udp6_checksum, udp6_checksum_ok ------------------------------------- */

/* RFC 8200 §8.1 with next header 17, the textbook way (as ref_icmp6_checksum). */
static uint16_t ref_udp6_checksum(const uint8_t *src, const uint8_t *dst, const uint8_t *udp,
				  uint32_t len)
{
	uint32_t sum = 0;
	uint32_t i;

	for (i = 0; i < 16; i += 2)
		sum += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	sum += len >> 16;
	sum += len & 0xffff;
	sum += IPPROTO_UDP;
	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)udp[i] << 8 | udp[i + 1];
	if (len & 1)
		sum += (uint32_t)udp[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void test_udp6_checksum(void **state)
{
	uint8_t u[8 + 45];

	(void)state;
	for (uint32_t len = 8; len <= sizeof(u); len++) { /* odd lengths too */
		memset(u, 0, sizeof(u));
		put16(u, 49152);
		put16(u + 2, 4789);
		put16(u + 4, (uint16_t)len);
		for (uint32_t i = 8; i < len; i++)
			u[i] = (uint8_t)(i * 29 + 1);
		uint16_t ck = udp6_checksum(SRC, DST, u, len);
		uint8_t want[2];
		put16(want, ref_udp6_checksum(SRC, DST, u, len));
		assert_memory_equal(&ck, want, 2);
		memcpy(u + 6, &ck, 2);
		assert_true(udp6_checksum_ok(SRC, DST, u, len));
		u[len - 1] ^= 0x80;
		assert_false(udp6_checksum_ok(SRC, DST, u, len));
		u[len - 1] ^= 0x80;
		/* the pseudo-header counts: another destination fails */
		assert_false(udp6_checksum_ok(SRC, SRC, u, len));
	}
}

/* RFC 768: a computed 0 goes out as 0xffff, never as 0 ("none", RFC 6936). */
static void test_udp6_checksum_zero_is_ffff(void **state)
{
	uint8_t u[8 + 10] = { 0 };
	uint16_t ck;

	(void)state;
	put16(u, 49152);
	put16(u + 2, 4789);
	put16(u + 4, sizeof(u));
	/* the last word is the complement of the sum of the rest */
	put16(u + sizeof(u) - 2, ref_udp6_checksum(SRC, DST, u, sizeof(u)));
	assert_int_equal(ref_udp6_checksum(SRC, DST, u, sizeof(u)), 0);
	assert_int_equal(udp6_checksum(SRC, DST, u, sizeof(u)), 0xffff);
	ck = 0xffff;
	memcpy(u + 6, &ck, 2);
	assert_true(udp6_checksum_ok(SRC, DST, u, sizeof(u)));
}

/* ---- nd_validate, nd_find_lladdr ----------------------------------------- */

/* A Neighbor Solicitation for DST from @p src with (when @p slla) a source link-layer option. */
static uint32_t build_ns(uint8_t *m, bool slla)
{
	memset(m, 0, 32);
	m[0] = ICMP6_NEIGH_SOLICIT;
	memcpy(m + 8, DST, 16);
	if (!slla)
		return 24;
	m[24] = ND_OPT_SOURCE_LLADDR;
	m[25] = 1;
	memcpy(m + 26, "\x02\x00\x00\x00\x00\x07", 6);
	return 32;
}

static struct pkt_ipv6 nd_ip(const uint8_t *src, const uint8_t *dst)
{
	struct pkt_ipv6 ip = { .hop_limit = 255, .l4_off = 40, .proto = IPPROTO_ICMPV6_NUM };

	memcpy(ip.src, src, 16);
	memcpy(ip.dst, dst, 16);
	return ip;
}

static void test_nd_validate_ns(void **state)
{
	static const uint8_t unspec[16];
	uint8_t snm[16], m[40];
	struct pkt_ipv6 ip;
	uint32_t len;

	(void)state;
	ipv6_solicited_node(DST, snm);
	ip = nd_ip(SRC, snm);
	len = build_ns(m, true);
	assert_true(nd_validate(&ip, m, len));

	ip.hop_limit = 254; /* came through a router */
	assert_false(nd_validate(&ip, m, len));
	ip.hop_limit = 255;

	m[1] = 1; /* code */
	assert_false(nd_validate(&ip, m, len));
	m[1] = 0;

	assert_false(nd_validate(&ip, m, 23)); /* shorter than the fixed part */

	m[25] = 0; /* zero-length option */
	assert_false(nd_validate(&ip, m, len));
	m[25] = 2; /* option past the end */
	assert_false(nd_validate(&ip, m, len));
	m[25] = 1;

	m[8] = 0xff; /* multicast target */
	assert_false(nd_validate(&ip, m, len));
	m[8] = DST[0];

	ip.l4_off = 48; /* extension headers: not accepted */
	assert_false(nd_validate(&ip, m, len));
	ip.l4_off = 40;

	/* DAD (RFC 4862 §5.4.2): from :: to the solicited-node group, no SLLA */
	ip = nd_ip(unspec, snm);
	assert_false(nd_validate(&ip, m, len));
	len = build_ns(m, false);
	assert_true(nd_validate(&ip, m, len));
	ip = nd_ip(unspec, DST);
	assert_false(nd_validate(&ip, m, len));
}

static void test_nd_validate_na(void **state)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	uint8_t m[32] = { 0 };
	struct pkt_ipv6 ip = nd_ip(DST, SRC);

	(void)state;
	m[0] = ICMP6_NEIGH_ADVERT;
	m[4] = ND_NA_SOLICITED | ND_NA_OVERRIDE;
	memcpy(m + 8, DST, 16);
	m[24] = ND_OPT_TARGET_LLADDR;
	m[25] = 1;
	assert_true(nd_validate(&ip, m, 32));
	/* solicited advertisements are unicast (RFC 4861 §7.1.2) */
	ip = nd_ip(DST, all_nodes);
	assert_false(nd_validate(&ip, m, 32));
	m[4] = ND_NA_OVERRIDE;
	assert_true(nd_validate(&ip, m, 32));
	/* other ICMPv6 types are not ND messages for nd_validate() */
	m[0] = ICMP6_ROUTER_ADVERT;
	assert_false(nd_validate(&ip, m, 32));
}

static void test_nd_find_lladdr(void **state)
{
	uint8_t m[48];
	uint32_t len = build_ns(m, true);

	(void)state;
	const uint8_t *a = nd_find_lladdr(m, len, 24, ND_OPT_SOURCE_LLADDR);
	assert_non_null(a);
	assert_memory_equal(a, "\x02\x00\x00\x00\x00\x07", 6);
	assert_null(nd_find_lladdr(m, len, 24, ND_OPT_TARGET_LLADDR));
	/* found after another option (a nonce, RFC 3971 type 14, 8 bytes) */
	memmove(m + 32, m + 24, 8);
	memset(m + 24, 0, 8);
	m[24] = 14;
	m[25] = 1;
	assert_ptr_equal(nd_find_lladdr(m, 40, 24, ND_OPT_SOURCE_LLADDR), m + 34);
	len = build_ns(m, false);
	assert_null(nd_find_lladdr(m, len, 24, ND_OPT_SOURCE_LLADDR));
}

/* ---- address classes ----------------------------------------------------- */

static void test_address_classes(void **state)
{
	static const uint8_t ll[16] = { 0xfe, 0x80, [15] = 1 };
	static const uint8_t lo[16] = { [15] = 1 };
	static const uint8_t unspec[16];
	static const uint8_t want[16] = { 0xff, 0x02, [11] = 0x01, 0xff, 0, 0, 0x02 };
	uint8_t snm[16];

	(void)state;
	assert_true(ipv6_is_link_local(ll));
	assert_false(ipv6_is_link_local(SRC));
	assert_true(ipv6_is_loopback(lo));
	assert_false(ipv6_is_loopback(unspec));
	assert_true(ipv6_is_unspecified(unspec));
	assert_false(ipv6_is_unspecified(lo));
	ipv6_solicited_node(DST, snm);
	assert_memory_equal(snm, want, 16);
	assert_true(ipv6_is_solicited_node(snm));
	assert_true(ipv6_is_multicast(snm));
	assert_false(ipv6_is_solicited_node(DST));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_fields),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_version),
		cmocka_unit_test(test_payload_length),
		cmocka_unit_test(test_extension_headers_skipped),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_extension_past_payload),
		cmocka_unit_test(test_flow_hash),
		cmocka_unit_test(test_flow_hash_misaligned),
		cmocka_unit_test(test_icmp6_checksum),
		cmocka_unit_test(test_udp6_checksum),
		cmocka_unit_test(test_udp6_checksum_zero_is_ffff),
		cmocka_unit_test(test_nd_validate_ns),
		cmocka_unit_test(test_nd_validate_na),
		cmocka_unit_test(test_nd_find_lladdr),
		cmocka_unit_test(test_address_classes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
