/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header parsing for the data path: Ethernet, 802.1Q, IPv4, UDP/TCP ports.
 *
 * Pure functions on a byte buffer (no mbuf, no EAL) so they are unit-tested
 * and fuzzed alone. Each returns whether the packet may go on and, when it
 * may not, the drop reason to count.
 */
#ifndef VBRD_PARSE_H
#define VBRD_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_hash_crc.h>
#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

#include "core/drop.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP  0x0806
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_IPV6 0x86dd

DROP_REASON_DECLARE(drop_truncated);
DROP_REASON_DECLARE(drop_bad_version);
DROP_REASON_DECLARE(drop_bad_ihl);
DROP_REASON_DECLARE(drop_bad_checksum);
DROP_REASON_DECLARE(drop_bad_length);
DROP_REASON_DECLARE(drop_frag_oversize);

/**
 * 1 for the first octet of an IPv4 address that is never routed as source
 * or destination: 0 (this network), 127 (loopback), 224..255 (multicast,
 * reserved, limited broadcast) (RFC 1812 §5.3.7, §4.2.2.11); else 0.
 */
extern const uint8_t ipv4_martian_octet[256];

/**
 * RFC 1071 checksum of an option-less IPv4 header (the common case): five
 * 32-bit words summed in 64 bits, folded (RFC 1071 §2 (B), (C)).
 *
 * @param p  20 bytes of IPv4 header, any alignment
 * @return   0 when the header's checksum is right; else the complemented sum
 */
static inline uint16_t ipv4_hdr_sum20(const uint8_t *p)
{
	uint32_t w0, w1, w2, w3, w4;
	uint64_t sum;

	/* five loads straight from the packet (an array copy would be staged
	 * through the stack, and its wide store would not forward to the
	 * narrow loads) */
	memcpy(&w0, p, 4);
	memcpy(&w1, p + 4, 4);
	memcpy(&w2, p + 8, 4);
	memcpy(&w3, p + 12, 4);
	memcpy(&w4, p + 16, 4);
	sum = (uint64_t)w0 + w1 + w2 + w3 + w4;
	/* fold with the end-around carry in one rotate-and-add per halving:
	 * the high half of x + rotate(x, half) is the one's complement sum of
	 * x's two halves */
	sum += sum << 32 | sum >> 32;
	uint32_t x = (uint32_t)(sum >> 32);
	x += x << 16 | x >> 16;
	return (uint16_t) ~(x >> 16);
}

/** What parse_l2() learns from an Ethernet frame. */
struct pkt_l2 {
	uint16_t ethertype; /* of the payload, host order (after any 802.1Q tag) */
	uint16_t vlan;      /* 802.1Q VLAN id, 0 when untagged */
	uint16_t l2_len;    /* bytes of Ethernet + tag headers: 14 or 18 */
};

/**
 * Parse an Ethernet II frame with at most one 802.1Q tag (IEEE 802.1Q-2018 §9.6).
 *
 * @param p     frame, starting at the destination MAC
 * @param len   bytes in @p p (without FCS)
 * @param out   filled when the header is complete
 * @param why   drop reason when false is returned (drop_truncated)
 * @return      true when the L2 header is complete
 */
bool parse_l2(const uint8_t *p, uint32_t len, struct pkt_l2 *out, const struct drop_reason **why);

/** What parse_ipv4() learns from an IPv4 header. */
struct pkt_ipv4 {
	uint32_t src, dst;  /* host order */
	uint16_t hdr_len;   /* bytes, 20..60 */
	uint16_t total_len; /* bytes, from the header */
	uint8_t proto;
	uint8_t ttl;
	bool df;               /* Don't Fragment set */
	bool fragment;         /* MF set or offset != 0 */
	uint16_t sport, dport; /* UDP/TCP ports, host order; 0 when absent */
};

/**
 * Validate an IPv4 header (RFC 791 §3.1; RFC 1812 §5.2.2 checks a router
 * must make before forwarding) and pick out the fields routing needs.
 *
 * Checks, in order: 20 bytes present (drop_truncated), version 4
 * (drop_bad_version), IHL >= 5 (drop_bad_ihl), the whole header present
 * (drop_truncated), total length within [IHL*4, len] (drop_bad_length),
 * header checksum (drop_bad_checksum, skipped when @p csum_ok is true:
 * the NIC verified it), fragment offset × 8 + payload (total length minus
 * header) at most 65535 bytes, the largest datagram (drop_frag_oversize,
 * RFC 791 §3.2).
 *
 * @param p        start of the IPv4 header
 * @param len      bytes from @p p to the end of the frame
 * @param csum_ok  the port already verified the header checksum
 * @param out      filled on success; ports are read for the first fragment
 *                 of UDP/TCP when present
 * @param why      drop reason when false is returned
 * @return         true when the packet may be processed
 */
bool parse_ipv4(const uint8_t *p, uint32_t len, bool csum_ok, struct pkt_ipv4 *out,
		const struct drop_reason **why);

/** One CRC32-C step of the flow hashes: @p data (4 bytes) into @p init. */
static inline uint32_t flow_hash_crc(uint32_t data, uint32_t init)
{
#ifdef __SSE4_2__
	/* what rte_hash_crc_4byte() computes (CRC32-C), without its test of
	 * the CPU flag on every call: the build already requires SSE4.2 */
	return _mm_crc32_u32(init, data);
#else
	return rte_hash_crc_4byte(data, init);
#endif
}

/**
 * Hash of the 5-tuple for ECMP next-hop choice (RFC 2992): the same flow
 * always gets the same value, different flows spread evenly.
 */
static inline uint32_t flow_hash_ipv4(const struct pkt_ipv4 *ip)
{
	uint32_t h = flow_hash_crc(ip->src, 0x5bd1e995);

	h = flow_hash_crc(ip->dst, h);
	h = flow_hash_crc((uint32_t)ip->sport << 16 | ip->dport, h);
	h = flow_hash_crc(ip->proto, h);
	return h ^ (h >> 16);
}

/**
 * Internet checksum (RFC 1071) of @p len bytes, folded and complemented:
 * the value to store in a checksum field (0 when verifying a correct one).
 */
uint16_t inet_checksum(const void *p, uint32_t len);

/**
 * UDP checksum over IPv4 (RFC 768): one's complement sum of the
 * pseudo-header (source, destination, zero, protocol 17, UDP length) and
 * the datagram, complemented. A result of 0 is returned as 0xffff, its
 * equivalent in one's complement: 0 in the field means "no checksum".
 *
 * @param src, dst  IPv4 addresses, host order
 * @param udp       the UDP datagram, header first, its checksum field 0
 * @param len       its length, bytes (the UDP length field's value)
 * @return          the value to store in the checksum field (network order,
 *                  as rte_raw_cksum() sums: store it with memcpy), never 0
 */
uint16_t udp4_checksum(uint32_t src, uint32_t dst, const void *udp, uint32_t len);

/**
 * Verify the non-zero checksum of a received UDP datagram over IPv4
 * (RFC 768). The caller decides what a zero checksum field means (over
 * IPv4: none was sent).
 *
 * @param src, dst  IPv4 addresses, host order
 * @param udp       the UDP datagram as received, header first
 * @param len       its length, bytes (the UDP length field's value)
 * @return          true when the checksum is right
 */
bool udp4_checksum_ok(uint32_t src, uint32_t dst, const void *udp, uint32_t len);

#endif
