/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the header parsers (pipeline/parse.c): parse_l2, parse_ipv4,
 * flow_hash_ipv4, inet_checksum, udp4_checksum.
 *
 * Every frame is built here byte by byte, with its own checksum routine
 * (ref_checksum below), so a test never trusts the code it checks.
 * No EAL: parse.c only uses DPDK's inline headers.
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/parse.h"

/* ---- frame builders ------------------------------------------------------ */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/*
 * RFC 1071 checksum written the textbook way: big-endian 16-bit words,
 * 32-bit accumulator, end-around carry, complement. Returns the value in
 * host order; put16() stores it in a header.
 */
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

/* Ethernet II header: dst 02:00:00:00:00:01, src 02:00:00:00:00:02. */
static void put_eth(uint8_t *p, uint16_t ethertype)
{
	static const uint8_t macs[12] = { 0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02 };

	memcpy(p, macs, sizeof(macs));
	put16(p + 12, ethertype);
}

/* Fields of a test IPv4 header; ipv4_build() lays them out (RFC 791 §3.1). */
struct ip_spec {
	uint8_t version; /* 4 unless a test breaks it */
	uint8_t ihl;     /* 32-bit words */
	uint16_t total;  /* total length, bytes */
	uint16_t frag;   /* flags (DF 0x4000, MF 0x2000) | offset in 8-byte units */
	uint8_t ttl;
	uint8_t proto;
	uint32_t src, dst; /* host order */
	bool bad_csum;     /* store the right checksum + 1 */
};

static struct ip_spec ip_default(void)
{
	struct ip_spec s = {
		.version = 4,
		.ihl = 5,
		.total = 20,
		.frag = 0,
		.ttl = 64,
		.proto = IPPROTO_UDP,
		.src = 0x0a000001, /* 10.0.0.1 */
		.dst = 0xc0000207, /* 192.0.2.7 */
	};
	return s;
}

/*
 * Write the header of @s at @p (options, if any, are NOPs: type 1) and
 * its checksum. Returns the header length in bytes.
 */
static size_t ipv4_build(uint8_t *p, const struct ip_spec *s)
{
	size_t hlen = (size_t)s->ihl * 4;

	p[0] = (uint8_t)(s->version << 4 | s->ihl);
	p[1] = 0; /* DSCP/ECN */
	put16(p + 2, s->total);
	put16(p + 4, 0x1234); /* identification */
	put16(p + 6, s->frag);
	p[8] = s->ttl;
	p[9] = s->proto;
	put16(p + 10, 0);
	put32(p + 12, s->src);
	put32(p + 16, s->dst);
	for (size_t i = 20; i < hlen; i++)
		p[i] = 1; /* IPOPT_NOP */
	if (hlen >= 20) {
		uint16_t c = ref_checksum(p, hlen);
		put16(p + 10, s->bad_csum ? (uint16_t)(c + 1) : c);
	} else {
		put16(p + 10, ref_checksum(p, 20));
	}
	return hlen;
}

/* Run parse_ipv4 expecting a drop; returns the reason. */
static const struct drop_reason *ipv4_drop(const uint8_t *p, uint32_t len, bool csum_ok)
{
	struct pkt_ipv4 ip;
	const struct drop_reason *why = NULL;

	assert_false(parse_ipv4(p, len, csum_ok, &ip, &why));
	assert_non_null(why);
	return why;
}

/* Run parse_ipv4 expecting success. */
static struct pkt_ipv4 ipv4_ok(const uint8_t *p, uint32_t len, bool csum_ok)
{
	struct pkt_ipv4 ip;
	const struct drop_reason *why = NULL;

	memset(&ip, 0xa5, sizeof(ip));
	assert_true(parse_ipv4(p, len, csum_ok, &ip, &why));
	return ip;
}

/* ---- parse_l2 ------------------------------------------------------------ */

static void l2_untagged(void **state)
{
	uint8_t f[64] = { 0 };
	struct pkt_l2 l2;
	const struct drop_reason *why = NULL;

	(void)state;
	put_eth(f, ETHERTYPE_IPV4);
	/* exactly the header, and a minimum-size frame */
	assert_true(parse_l2(f, 14, &l2, &why));
	assert_int_equal(l2.ethertype, 0x0800);
	assert_int_equal(l2.vlan, 0);
	assert_int_equal(l2.l2_len, 14);

	put_eth(f, ETHERTYPE_ARP);
	assert_true(parse_l2(f, 60, &l2, &why));
	assert_int_equal(l2.ethertype, 0x0806);
	assert_int_equal(l2.vlan, 0);
	assert_int_equal(l2.l2_len, 14);
}

static void l2_tagged(void **state)
{
	uint8_t f[64] = { 0 };
	struct pkt_l2 l2;
	const struct drop_reason *why = NULL;

	(void)state;
	put_eth(f, ETHERTYPE_VLAN);
	/* TCI: PCP 5, DEI 0, VID 100 = 0xa064 (IEEE 802.1Q §9.6) */
	f[14] = 0xa0;
	f[15] = 0x64;
	put16(f + 16, ETHERTYPE_IPV4);
	assert_true(parse_l2(f, 18, &l2, &why));
	assert_int_equal(l2.ethertype, 0x0800);
	assert_int_equal(l2.vlan, 100);
	assert_int_equal(l2.l2_len, 18);

	/* PCP 7, DEI 1, VID 4094: only the 12 VID bits are the VLAN */
	f[14] = 0xff;
	f[15] = 0xfe;
	put16(f + 16, ETHERTYPE_ARP);
	assert_true(parse_l2(f, 60, &l2, &why));
	assert_int_equal(l2.ethertype, 0x0806);
	assert_int_equal(l2.vlan, 4094);
	assert_int_equal(l2.l2_len, 18);

	/* priority-tagged (VID 0) */
	f[14] = 0x20;
	f[15] = 0x00;
	assert_true(parse_l2(f, 18, &l2, &why));
	assert_int_equal(l2.vlan, 0);
	assert_int_equal(l2.l2_len, 18);

	/* at most one tag is removed: a second 802.1Q tag is the ethertype left */
	f[14] = 0x00;
	f[15] = 0x0a;
	put16(f + 16, ETHERTYPE_VLAN);
	assert_true(parse_l2(f, 60, &l2, &why));
	assert_int_equal(l2.ethertype, ETHERTYPE_VLAN);
	assert_int_equal(l2.vlan, 10);
	assert_int_equal(l2.l2_len, 18);
}

static void l2_truncated(void **state)
{
	uint8_t f[18] = { 0 };
	struct pkt_l2 l2;
	const struct drop_reason *why;

	(void)state;
	put_eth(f, ETHERTYPE_IPV4);
	for (uint32_t len = 0; len < 14; len++) {
		why = NULL;
		assert_false(parse_l2(f, len, &l2, &why));
		assert_ptr_equal(why, &drop_truncated);
	}
	put_eth(f, ETHERTYPE_VLAN);
	f[15] = 5;
	put16(f + 16, ETHERTYPE_IPV4);
	for (uint32_t len = 0; len < 18; len++) {
		why = NULL;
		assert_false(parse_l2(f, len, &l2, &why));
		assert_ptr_equal(why, &drop_truncated);
	}
	assert_true(parse_l2(f, 18, &l2, &why));
}

/* ---- parse_ipv4: good headers ------------------------------------------- */

static void ipv4_basic(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();

	(void)state;
	s.total = 28;
	s.ttl = 17;
	s.frag = 0;
	size_t h = ipv4_build(b, &s);
	put16(b + h, 5353);   /* UDP source port */
	put16(b + h + 2, 53); /* UDP destination port */

	struct pkt_ipv4 ip = ipv4_ok(b, 28, false);
	assert_int_equal(ip.src, 0x0a000001); /* host order: 10.0.0.1 */
	assert_int_equal(ip.dst, 0xc0000207); /* 192.0.2.7 */
	assert_int_equal(ip.hdr_len, 20);
	assert_int_equal(ip.total_len, 28);
	assert_int_equal(ip.proto, IPPROTO_UDP);
	assert_int_equal(ip.ttl, 17);
	assert_false(ip.df);
	assert_false(ip.fragment);
	assert_int_equal(ip.sport, 5353);
	assert_int_equal(ip.dport, 53);

	/* Ethernet padding after the datagram: buffer longer than total length */
	ip = ipv4_ok(b, 46, false);
	assert_int_equal(ip.total_len, 28);
	assert_int_equal(ip.sport, 5353);
}

static void ipv4_options_accepted(void **state)
{
	uint8_t b[80] = { 0 };
	struct ip_spec s = ip_default();

	(void)state;
	s.ihl = 6;
	s.proto = IPPROTO_TCP;
	s.total = 24 + 20;
	size_t h = ipv4_build(b, &s);
	assert_int_equal(h, 24);
	put16(b + 24, 40000); /* TCP ports after the options */
	put16(b + 26, 443);
	struct pkt_ipv4 ip = ipv4_ok(b, 44, false);
	assert_int_equal(ip.hdr_len, 24);
	assert_int_equal(ip.proto, IPPROTO_TCP);
	assert_int_equal(ip.sport, 40000);
	assert_int_equal(ip.dport, 443);

	/* the largest header: IHL 15 = 60 bytes */
	s.ihl = 15;
	s.total = 64;
	ipv4_build(b, &s);
	put16(b + 60, 1);
	put16(b + 62, 2);
	ip = ipv4_ok(b, 64, false);
	assert_int_equal(ip.hdr_len, 60);
	assert_int_equal(ip.sport, 1);
	assert_int_equal(ip.dport, 2);
}

static void ipv4_flags(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();
	struct pkt_ipv4 ip;

	(void)state;
	s.total = 28;

	s.frag = 0x4000; /* DF */
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 28, false);
	assert_true(ip.df);
	assert_false(ip.fragment);

	s.frag = 0x2000; /* MF, offset 0: first fragment */
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 28, false);
	assert_false(ip.df);
	assert_true(ip.fragment);

	s.frag = 0x00b9; /* last fragment, offset 185 * 8 bytes */
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 28, false);
	assert_false(ip.df);
	assert_true(ip.fragment);

	s.frag = 0x1fff; /* largest offset: 65528 + 7 bytes ends at 65535 */
	s.total = 27;
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 27, false);
	assert_true(ip.fragment);
	s.total = 28;

	s.frag = 0x8000; /* reserved bit alone: neither DF nor a fragment */
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 28, false);
	assert_false(ip.df);
	assert_false(ip.fragment);
}

/*
 * RFC 791 §3.2: a datagram is at most 65535 bytes, so a fragment whose
 * offset × 8 plus payload ends past that is refused (re-fragmenting it
 * would wrap the 13-bit offset into the flag bits).
 */
static void ipv4_fragment_past_64k(void **state)
{
	static uint8_t b[1500];
	struct ip_spec s = ip_default();
	struct pkt_ipv4 ip;

	(void)state;
	/* offset 8100 (64800 bytes) + 1380 bytes of payload: ends at 66180 */
	s.frag = 0x2000 | 8100;
	s.total = 1400;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 1400, false), &drop_frag_oversize);
	assert_ptr_equal(ipv4_drop(b, 1400, true), &drop_frag_oversize);

	/* the last fragment of the largest datagram: ends at exactly 65535 */
	s.frag = 8100;
	s.total = (uint16_t)(20 + 65535 - 64800);
	ipv4_build(b, &s);
	ip = ipv4_ok(b, s.total, false);
	assert_true(ip.fragment);

	/* one byte more: 65536 */
	s.total++;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, s.total, false), &drop_frag_oversize);

	/* largest offset with 8 bytes: 65528 + 8; DF set does not change it */
	s.frag = 0x4000 | 0x1fff;
	s.total = 28;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 28, false), &drop_frag_oversize);

	/* IP options count as header, not payload: 60-byte header, 7 bytes */
	s.ihl = 15;
	s.frag = 0x1fff;
	s.total = 67;
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 67, false);
	assert_int_equal(ip.hdr_len, 60);

	/* an unfragmented datagram of the largest size passes */
	static uint8_t big[65535];
	s = ip_default();
	s.total = 65535;
	ipv4_build(big, &s);
	ip = ipv4_ok(big, 65535, false);
	assert_false(ip.fragment);
}

static void ipv4_ports_first_fragment_only(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();
	struct pkt_ipv4 ip;

	(void)state;
	s.total = 28;
	s.frag = 0x2000; /* MF, offset 0: the first fragment has the ports */
	ipv4_build(b, &s);
	put16(b + 20, 1111);
	put16(b + 22, 2222);
	ip = ipv4_ok(b, 28, false);
	assert_int_equal(ip.sport, 1111);
	assert_int_equal(ip.dport, 2222);

	s.frag = 0x2000 | 3; /* a later fragment: its first bytes are payload */
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 28, false);
	assert_int_equal(ip.sport, 0);
	assert_int_equal(ip.dport, 0);

	s.frag = 0x0001; /* the last fragment */
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 28, false);
	assert_int_equal(ip.sport, 0);
	assert_int_equal(ip.dport, 0);

	s.frag = 0x4000; /* DF only: not a fragment */
	s.proto = IPPROTO_TCP;
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 28, false);
	assert_int_equal(ip.sport, 1111);
	assert_int_equal(ip.dport, 2222);
}

static void ipv4_ports_need_four_bytes(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();
	struct pkt_ipv4 ip;

	(void)state;
	for (uint16_t extra = 0; extra < 4; extra++) {
		s.total = (uint16_t)(20 + extra);
		ipv4_build(b, &s);
		put16(b + 20, 7);
		put16(b + 22, 8);
		/* the bytes are in the buffer, but beyond the datagram */
		ip = ipv4_ok(b, 64, false);
		assert_int_equal(ip.sport, 0);
		assert_int_equal(ip.dport, 0);
	}
	s.total = 24;
	ipv4_build(b, &s);
	ip = ipv4_ok(b, 24, false);
	assert_int_equal(ip.sport, 7);
	assert_int_equal(ip.dport, 8);
}

static void ipv4_ports_only_udp_tcp(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();
	static const uint8_t others[] = { IPPROTO_ICMP, IPPROTO_GRE, IPPROTO_ESP, 132 /* SCTP */ };

	(void)state;
	s.total = 28;
	for (size_t i = 0; i < sizeof(others); i++) {
		s.proto = others[i];
		ipv4_build(b, &s);
		put16(b + 20, 0x0800);
		put16(b + 22, 0xabcd);
		struct pkt_ipv4 ip = ipv4_ok(b, 28, false);
		assert_int_equal(ip.proto, others[i]);
		assert_int_equal(ip.sport, 0);
		assert_int_equal(ip.dport, 0);
	}
}

/* ---- parse_ipv4: malformed headers --------------------------------------- */

static void ipv4_truncated(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();

	(void)state;
	ipv4_build(b, &s);
	for (uint32_t len = 0; len < 20; len++)
		assert_ptr_equal(ipv4_drop(b, len, false), &drop_truncated);
	/* truncation is checked before the version */
	s.version = 6;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 19, false), &drop_truncated);

	/* IHL 6 with only the first 20 bytes present */
	s = ip_default();
	s.ihl = 6;
	s.total = 24;
	ipv4_build(b, &s);
	for (uint32_t len = 20; len < 24; len++)
		assert_ptr_equal(ipv4_drop(b, len, false), &drop_truncated);
	ipv4_ok(b, 24, false);

	/* IHL 15 with 59 bytes */
	s.ihl = 15;
	s.total = 60;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 59, false), &drop_truncated);
	ipv4_ok(b, 60, false);
}

static void ipv4_bad_version(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();

	(void)state;
	/* an IPv6 packet under ethertype 0x0800 */
	static const uint8_t v6[40] = { 0x60, 0, 0, 0, 0, 0, 17, 64 };
	assert_ptr_equal(ipv4_drop(v6, sizeof(v6), false), &drop_bad_version);
	assert_ptr_equal(ipv4_drop(v6, sizeof(v6), true), &drop_bad_version);

	/* version 6 with an otherwise good IPv4 header and checksum */
	s.version = 6;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 20, false), &drop_bad_version);

	for (uint8_t v = 0; v < 16; v++) {
		if (v == 4)
			continue;
		s.version = v;
		ipv4_build(b, &s);
		assert_ptr_equal(ipv4_drop(b, 20, true), &drop_bad_version);
	}
}

static void ipv4_bad_ihl(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();

	(void)state;
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		s.ihl = ihl;
		ipv4_build(b, &s);
		assert_ptr_equal(ipv4_drop(b, 64, false), &drop_bad_ihl);
		assert_ptr_equal(ipv4_drop(b, 64, true), &drop_bad_ihl);
	}
}

static void ipv4_bad_length(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();

	(void)state;
	/* total length larger than the buffer */
	s.total = 29;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 28, false), &drop_bad_length);
	assert_ptr_equal(ipv4_drop(b, 28, true), &drop_bad_length);
	s.total = 0xffff;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 64, false), &drop_bad_length);

	/* total length below IHL*4 */
	s.total = 19;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 64, false), &drop_bad_length);
	s.total = 0;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 64, false), &drop_bad_length);
	s.ihl = 6;
	s.total = 20;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 64, false), &drop_bad_length);

	/* the boundaries themselves are fine */
	s.total = 24;
	ipv4_build(b, &s);
	ipv4_ok(b, 24, false);
}

static void ipv4_bad_checksum(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();

	(void)state;
	s.total = 28;
	s.bad_csum = true;
	ipv4_build(b, &s);
	assert_ptr_equal(ipv4_drop(b, 28, false), &drop_bad_checksum);
	/* the port verified the checksum (e.g. RTE_MBUF_F_RX_IP_CKSUM_GOOD) */
	struct pkt_ipv4 ip = ipv4_ok(b, 28, true);
	assert_int_equal(ip.src, 0x0a000001);

	/* a wrong checksum over the options is caught too */
	s.ihl = 6;
	s.total = 24;
	s.bad_csum = false;
	ipv4_build(b, &s);
	ipv4_ok(b, 24, false);
	b[21] ^= 0x40; /* flip a bit of an option byte */
	assert_ptr_equal(ipv4_drop(b, 24, false), &drop_bad_checksum);

	/* any single-bit flip in a 20-byte header is detected */
	s = ip_default();
	s.total = 20;
	ipv4_build(b, &s);
	for (int bit = 0; bit < 160; bit++) {
		uint8_t c[20];
		memcpy(c, b, 20);
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		struct pkt_ipv4 ip2;
		const struct drop_reason *why = NULL;
		assert_false(parse_ipv4(c, 20, false, &ip2, &why));
	}
}

/* ---- inet_checksum (RFC 1071) -------------------------------------------- */

/* Store the returned value as a header field would hold it: as is, no swap. */
static void store(uint8_t out[2], uint16_t v)
{
	memcpy(out, &v, 2);
}

static void checksum_rfc1071_example(void **state)
{
	/*
	 * RFC 1071 §3: the bytes 00 01 f2 03 f4 f5 f6 f7 add up (one's
	 * complement, big-endian words) to 0x0001 + 0xf203 + 0xf4f5 + 0xf6f7
	 * = 0x2ddf0 → 0xddf0 + 0x2 = 0xddf2; the checksum is ~0xddf2 = 0x220d.
	 */
	static const uint8_t rfc[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	uint8_t got[2];

	(void)state;
	store(got, inet_checksum(rfc, sizeof(rfc)));
	assert_int_equal(got[0], 0x22);
	assert_int_equal(got[1], 0x0d);
}

static void checksum_ipv4_header(void **state)
{
	/*
	 * 45 00 001c 1234 4000 4011 [csum] 0a000001 0a000002
	 * 0x4500 + 0x001c + 0x1234 + 0x4000 + 0x4011 + 0x0a00 + 0x0001
	 *   + 0x0a00 + 0x0002 = 0xeb64 (no carry); ~0xeb64 = 0x149b.
	 */
	uint8_t h[28] = { 0x45, 0x00, 0x00, 0x1c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11,
			  0x00, 0x00, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02 };
	uint8_t got[2];

	(void)state;
	store(got, inet_checksum(h, 20));
	assert_int_equal(got[0], 0x14);
	assert_int_equal(got[1], 0x9b);
	assert_int_equal(ref_checksum(h, 20), 0x149b);

	/* with the checksum in place, verifying gives 0 */
	h[10] = 0x14;
	h[11] = 0x9b;
	assert_int_equal(inet_checksum(h, 20), 0);
	struct pkt_ipv4 ip = ipv4_ok(h, 28, false); /* total length 28 */
	assert_int_equal(ip.dst, 0x0a000002);
	assert_true(ip.df);
}

static void checksum_odd_and_empty(void **state)
{
	/* odd length: the last byte is padded with a zero byte (RFC 1071 §4.1):
	 * 0x0102 + 0x0300 = 0x0402; ~ = 0xfbfd */
	static const uint8_t odd[3] = { 0x01, 0x02, 0x03 };
	uint8_t got[2];

	(void)state;
	store(got, inet_checksum(odd, 3));
	assert_int_equal(got[0], 0xfb);
	assert_int_equal(got[1], 0xfd);

	/* nothing to add: the complement of 0 */
	assert_int_equal(inet_checksum(odd, 0), 0xffff);

	/* end-around carry: ff ff + 00 01 = 0x10000 → 0x0001; ~ = 0xfffe */
	static const uint8_t carry[4] = { 0xff, 0xff, 0x00, 0x01 };
	store(got, inet_checksum(carry, 4));
	assert_int_equal(got[0], 0xff);
	assert_int_equal(got[1], 0xfe);
}

static void checksum_matches_reference(void **state)
{
	uint8_t buf[1501];
	uint32_t x = 2463534242u;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
	for (size_t len = 0; len <= sizeof(buf); len += 37) {
		uint8_t got[2], want[2];
		store(got, inet_checksum(buf, (uint32_t)len));
		put16(want, ref_checksum(buf, len));
		assert_memory_equal(got, want, 2);
	}
}

/* ipv4_hdr_sum20() (the fast path's verification) agrees with the textbook
 * sum on random headers, on headers whose checksum field is right, and on
 * the all-ones and carry-heavy corner cases. */
static void checksum_hdr20_matches_reference(void **state)
{
	uint8_t h[20];
	uint32_t x = 88675123u;

	(void)state;
	for (int n = 0; n < 200000; n++) {
		for (size_t i = 0; i < sizeof(h); i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			h[i] = (uint8_t)(n % 7 == 0 ? 0xff : n % 11 == 0 ? (x & 1) * 0xff : x);
		}
		uint8_t got[2], want[2];
		store(got, ipv4_hdr_sum20(h)); /* a field's value, in memory order */
		put16(want, ref_checksum(h, sizeof(h)));
		assert_memory_equal(got, want, 2);
		/* with the checksum filled in, the header verifies */
		h[10] = h[11] = 0;
		put16(h + 10, ref_checksum(h, sizeof(h)));
		assert_int_equal(ipv4_hdr_sum20(h), 0);
	}
}

/* ---- udp4_checksum, udp4_checksum_ok -------------------------------------- */

/* RFC 768 the textbook way: pseudo-header and datagram as big-endian words. */
static uint16_t ref_udp4(uint32_t src, uint32_t dst, const uint8_t *udp, size_t len)
{
	uint8_t buf[12 + 1500];

	put32(buf, src);
	put32(buf + 4, dst);
	buf[8] = 0;
	buf[9] = IPPROTO_UDP;
	put16(buf + 10, (uint16_t)len);
	memcpy(buf + 12, udp, len);
	return ref_checksum(buf, 12 + len);
}

/* A UDP datagram 1000 -> 4789 of @p len bytes (>= 8) with some payload. */
static void udp_build(uint8_t *u, size_t len)
{
	put16(u, 1000);
	put16(u + 2, 4789);
	put16(u + 4, (uint16_t)len);
	put16(u + 6, 0);
	for (size_t i = 8; i < len; i++)
		u[i] = (uint8_t)(i * 41 + 3);
}

static void udp4_checksums(void **state)
{
	const uint32_t src = 0x0a000001, dst = 0xc0000207;
	uint8_t u[8 + 51];

	(void)state;
	for (size_t len = 8; len <= sizeof(u); len++) { /* odd lengths too */
		uint8_t got[2], want[2];

		udp_build(u, len);
		store(got, udp4_checksum(src, dst, u, (uint32_t)len));
		put16(want, ref_udp4(src, dst, u, len));
		assert_memory_equal(got, want, 2);
		memcpy(u + 6, got, 2);
		assert_true(udp4_checksum_ok(src, dst, u, (uint32_t)len));
		/* a flipped bit anywhere, in the data or the pseudo-header */
		u[len - 1] ^= 0x10;
		assert_false(udp4_checksum_ok(src, dst, u, (uint32_t)len));
		u[len - 1] ^= 0x10;
		assert_false(udp4_checksum_ok(src ^ 1, dst, u, (uint32_t)len));
		assert_false(udp4_checksum_ok(src, dst ^ 0x100, u, (uint32_t)len));
	}
}

/* RFC 768: a computed 0 is sent as 0xffff (0 in the field means none). */
static void udp4_checksum_zero_is_ffff(void **state)
{
	const uint32_t src = 0x0a000001, dst = 0xc0000207;
	uint8_t u[8 + 16], ck[2];

	(void)state;
	udp_build(u, sizeof(u));
	put16(u + sizeof(u) - 2, 0);
	/* make the last word the complement of the rest: the sum is then all ones */
	put16(u + sizeof(u) - 2, ref_udp4(src, dst, u, sizeof(u)));
	assert_int_equal(ref_udp4(src, dst, u, sizeof(u)), 0);
	assert_int_equal(udp4_checksum(src, dst, u, sizeof(u)), 0xffff);
	store(ck, 0xffff);
	memcpy(u + 6, ck, 2);
	assert_true(udp4_checksum_ok(src, dst, u, sizeof(u)));
}

/* ---- flow_hash_ipv4 ------------------------------------------------------ */

static uint32_t xorshift32(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void flow_hash_stable(void **state)
{
	uint8_t b[64] = { 0 };
	struct ip_spec s = ip_default();
	struct pkt_ipv4 a, c;

	(void)state;
	s.total = 28;
	ipv4_build(b, &s);
	put16(b + 20, 1234);
	put16(b + 22, 80);
	a = ipv4_ok(b, 28, false);

	/* the same 5-tuple with other TTL, length and id: the same hash */
	s.ttl = 3;
	s.total = 40;
	ipv4_build(b, &s);
	b[4] = 0x99;
	put16(b + 10, 0);
	put16(b + 10, ref_checksum(b, 20));
	put16(b + 20, 1234);
	put16(b + 22, 80);
	c = ipv4_ok(b, 64, false);
	assert_int_equal(flow_hash_ipv4(&a), flow_hash_ipv4(&c));
	assert_int_equal(flow_hash_ipv4(&a), flow_hash_ipv4(&a));

	/* every field of the 5-tuple takes part */
	c = a;
	c.src ^= 1;
	assert_int_not_equal(flow_hash_ipv4(&a), flow_hash_ipv4(&c));
	c = a;
	c.dst ^= 0x100;
	assert_int_not_equal(flow_hash_ipv4(&a), flow_hash_ipv4(&c));
	c = a;
	c.sport++;
	assert_int_not_equal(flow_hash_ipv4(&a), flow_hash_ipv4(&c));
	c = a;
	c.dport++;
	assert_int_not_equal(flow_hash_ipv4(&a), flow_hash_ipv4(&c));
	c = a;
	c.proto = IPPROTO_TCP;
	assert_int_not_equal(flow_hash_ipv4(&a), flow_hash_ipv4(&c));
}

/* fwd_nexthop_select's mapping: multiply-shift of the hash onto [0, n). */
static unsigned bucket(uint32_t hash, unsigned n)
{
	return (unsigned)(((uint64_t)hash * n) >> 32);
}

static void flow_hash_spread(void **state)
{
	enum { FLOWS = 10000 };
	unsigned two[2] = { 0 }, three[3] = { 0 };
	uint32_t x = 0x9e3779b9;

	(void)state;
	for (int i = 0; i < FLOWS; i++) {
		struct pkt_ipv4 ip = { 0 };
		ip.src = 0x0a000000 | (xorshift32(&x) & 0xffff); /* 10.0.0.0/16 */
		ip.dst = 0xc6120000 | (xorshift32(&x) & 0xff);   /* 198.18.0.0/24 */
		ip.sport = (uint16_t)xorshift32(&x);
		ip.dport = (uint16_t)(xorshift32(&x) & 1 ? 443 : 80);
		ip.proto = xorshift32(&x) & 1 ? IPPROTO_UDP : IPPROTO_TCP;
		uint32_t h = flow_hash_ipv4(&ip);
		two[bucket(h, 2)]++;
		three[bucket(h, 3)]++;
	}
	print_message("2 buckets: %u %u; 3 buckets: %u %u %u\n", two[0], two[1], three[0], three[1],
		      three[2]);
	for (int i = 0; i < 2; i++) {
		assert_in_range(two[i], FLOWS * 45 / 100, FLOWS * 55 / 100);
	}
	for (int i = 0; i < 3; i++)
		assert_in_range(three[i], FLOWS * 28 / 100, FLOWS * 39 / 100);
}

/* Flows that differ only in the source port (one host, many connections). */
static void flow_hash_spread_ports(void **state)
{
	unsigned two[2] = { 0 };

	(void)state;
	for (uint32_t port = 10000; port < 20000; port++) {
		struct pkt_ipv4 ip = { .src = 0x0a000001,
				       .dst = 0x0a000002,
				       .sport = (uint16_t)port,
				       .dport = 4791, /* RoCEv2 */
				       .proto = IPPROTO_UDP };
		two[bucket(flow_hash_ipv4(&ip), 2)]++;
	}
	print_message("source ports over 2 buckets: %u %u\n", two[0], two[1]);
	assert_in_range(two[0], 4500, 5500);
	assert_in_range(two[1], 4500, 5500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(l2_untagged),
		cmocka_unit_test(l2_tagged),
		cmocka_unit_test(l2_truncated),
		cmocka_unit_test(ipv4_basic),
		cmocka_unit_test(ipv4_options_accepted),
		cmocka_unit_test(ipv4_flags),
		cmocka_unit_test(ipv4_fragment_past_64k),
		cmocka_unit_test(ipv4_ports_first_fragment_only),
		cmocka_unit_test(ipv4_ports_need_four_bytes),
		cmocka_unit_test(ipv4_ports_only_udp_tcp),
		cmocka_unit_test(ipv4_truncated),
		cmocka_unit_test(ipv4_bad_version),
		cmocka_unit_test(ipv4_bad_ihl),
		cmocka_unit_test(ipv4_bad_length),
		cmocka_unit_test(ipv4_bad_checksum),
		cmocka_unit_test(checksum_rfc1071_example),
		cmocka_unit_test(checksum_ipv4_header),
		cmocka_unit_test(checksum_odd_and_empty),
		cmocka_unit_test(checksum_matches_reference),
		cmocka_unit_test(checksum_hdr20_matches_reference),
		cmocka_unit_test(udp4_checksums),
		cmocka_unit_test(udp4_checksum_zero_is_ffff),
		cmocka_unit_test(flow_hash_stable),
		cmocka_unit_test(flow_hash_spread),
		cmocka_unit_test(flow_hash_spread_ports),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
