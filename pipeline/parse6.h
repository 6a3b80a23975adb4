/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 header parsing for the data path (RFC 8200), the ICMPv6 checksum
 * (RFC 4443 §2.3) and the receive checks of Neighbor Discovery messages
 * (RFC 4861 §7.1).
 *
 * Pure functions on a byte buffer (no mbuf, no EAL), like parse.h, so they
 * are unit-tested alone (tests/unit/test_parse6.c).
 */
#ifndef VBRD_PARSE6_H
#define VBRD_PARSE6_H

#include <stdbool.h>
#include <stdint.h>

#include "pipeline/parse.h"

#define IPV6_HDR_LEN       40
#define IPV6_MIN_MTU       1280 /* RFC 8200 §5 */
#define IPPROTO_ICMPV6_NUM 58

/* ICMPv6 types (RFC 4443 §2.1, RFC 4861 §4) */
#define ICMP6_DEST_UNREACH   1
#define ICMP6_PACKET_TOO_BIG 2
#define ICMP6_TIME_EXCEEDED  3
#define ICMP6_PARAM_PROBLEM  4
#define ICMP6_ECHO_REQUEST   128
#define ICMP6_ECHO_REPLY     129
#define ICMP6_ROUTER_SOLICIT 133
#define ICMP6_ROUTER_ADVERT  134
#define ICMP6_NEIGH_SOLICIT  135
#define ICMP6_NEIGH_ADVERT   136
#define ICMP6_REDIRECT       137

/* codes of ICMP6_DEST_UNREACH (RFC 4443 §3.1) */
#define ICMP6_NO_ROUTE     0
#define ICMP6_BEYOND_SCOPE 2

/* Neighbor Discovery options (RFC 4861 §4.6) */
#define ND_OPT_SOURCE_LLADDR 1
#define ND_OPT_TARGET_LLADDR 2

/* NA flags, first byte after the checksum (RFC 4861 §4.4) */
#define ND_NA_ROUTER    0x80
#define ND_NA_SOLICITED 0x40
#define ND_NA_OVERRIDE  0x20

/** What parse_ipv6() learns from an IPv6 header. */
struct pkt_ipv6 {
	uint8_t src[16], dst[16]; /* network order */
	uint16_t payload_len;     /* bytes after the fixed header, from the header */
	uint16_t l4_off;          /* bytes from the IPv6 header to the upper-layer header */
	uint32_t flow_label;      /* 20 bits */
	uint8_t proto;            /* upper-layer protocol (after the extension headers
	                             * parse_ipv6() skips), or the header it stopped at */
	uint8_t hop_limit;
	bool fragment;         /* a Fragment header is present */
	uint16_t sport, dport; /* UDP/TCP ports, host order; 0 when absent */
};

/**
 * Validate an IPv6 header (RFC 8200 §3) and pick out the fields routing needs.
 *
 * Checks, in order: 40 bytes present (drop_truncated), version 6
 * (drop_bad_version), payload length within the frame (drop_bad_length; a
 * zero payload length with a Jumbo option, RFC 2675, is refused the same
 * way). Hop-by-Hop, Routing, Destination Options and Fragment headers
 * (RFC 8200 §4) are skipped to find the upper-layer protocol and, for UDP
 * and TCP in a first (or no) fragment, the ports; a chain that runs past
 * the payload stops the walk (proto is then the header it stopped at),
 * it does not drop the packet.
 *
 * @param p    start of the IPv6 header
 * @param len  bytes from @p p to the end of the frame
 * @param out  filled on success
 * @param why  drop reason when false is returned
 * @return     true when the packet may be processed
 */
bool parse_ipv6(const uint8_t *p, uint32_t len, struct pkt_ipv6 *out,
		const struct drop_reason **why);

/**
 * Hash of addresses, ports, protocol and flow label for ECMP next-hop
 * choice (RFC 2992, RFC 6438): the same flow always gets the same value.
 */
uint32_t flow_hash_ipv6(const struct pkt_ipv6 *ip);

/**
 * ICMPv6 checksum (RFC 4443 §2.3): one's complement sum over the IPv6
 * pseudo-header (RFC 8200 §8.1: source, destination, upper-layer length,
 * next header 58) and the ICMPv6 message, complemented.
 *
 * @param src, dst  IPv6 addresses, 16 bytes each, network order
 * @param icmp      the ICMPv6 message
 * @param len       its length, bytes
 * @return          the value to store in the checksum field (network order,
 *                  as rte_raw_cksum() sums), or 0 when verifying a message
 *                  whose checksum is right
 */
uint16_t icmp6_checksum(const uint8_t *src, const uint8_t *dst, const void *icmp, uint32_t len);

/**
 * UDP checksum over IPv6 (RFC 768, RFC 8200 §8.1): one's complement sum
 * of the pseudo-header (source, destination, upper-layer length, next
 * header 17) and the datagram, complemented. A result of 0 is returned as
 * 0xffff (RFC 768): over IPv6 a zero field means no checksum, which only
 * tunnels that allow it accept (RFC 6935 §5, RFC 6936 §5).
 *
 * @param src, dst  IPv6 addresses, 16 bytes each, network order (dst: the
 *                  final destination)
 * @param udp       the UDP datagram, header first, its checksum field 0
 * @param len       its length, bytes (the UDP length field's value)
 * @return          the value to store in the checksum field (network order,
 *                  as rte_raw_cksum() sums: store it with memcpy), never 0
 */
uint16_t udp6_checksum(const uint8_t *src, const uint8_t *dst, const void *udp, uint32_t len);

/**
 * Verify the non-zero checksum of a received UDP datagram over IPv6
 * (RFC 8200 §8.1). The caller decides about a zero checksum field.
 *
 * @param src, dst  IPv6 addresses, 16 bytes each, network order
 * @param udp       the UDP datagram as received, header first
 * @param len       its length, bytes (the UDP length field's value)
 * @return          true when the checksum is right
 */
bool udp6_checksum_ok(const uint8_t *src, const uint8_t *dst, const void *udp, uint32_t len);

/**
 * Receive checks of a Neighbor Solicitation or Advertisement (RFC 4861
 * §7.1.1, §7.1.2), except the checksum: hop limit 255, code 0, message at
 * least 24 bytes, target not multicast, every option with a non-zero
 * length inside the message; a solicitation from the unspecified address
 * must go to a solicited-node multicast address and carry no source
 * link-layer address option; an advertisement to a multicast address must
 * not have the Solicited flag.
 *
 * @param ip    the packet's IPv6 facts (ip->l4_off must be 40: no extension headers)
 * @param icmp  the ICMPv6 message (type 135 or 136)
 * @param len   its length, bytes
 * @return      true when the message is valid
 */
bool nd_validate(const struct pkt_ipv6 *ip, const uint8_t *icmp, uint32_t len);

/**
 * Find a link-layer address option (RFC 4861 §4.6.1) of type @p type
 * (ND_OPT_SOURCE_LLADDR or ND_OPT_TARGET_LLADDR) in the options that start
 * @p off bytes into an ND message of @p len bytes.
 *
 * @return  the 6-byte Ethernet address in the option, or NULL when absent
 */
const uint8_t *nd_find_lladdr(const uint8_t *icmp, uint32_t len, uint32_t off, uint8_t type);

/** ff00::/8 (RFC 4291 §2.7). */
static inline bool ipv6_is_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

/** fe80::/10 (RFC 4291 §2.5.6). */
static inline bool ipv6_is_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/** :: (RFC 4291 §2.5.2). */
static inline bool ipv6_is_unspecified(const uint8_t *a)
{
	for (int i = 0; i < 16; i++)
		if (a[i])
			return false;
	return true;
}

/** ::1 (RFC 4291 §2.5.3). */
static inline bool ipv6_is_loopback(const uint8_t *a)
{
	for (int i = 0; i < 15; i++)
		if (a[i])
			return false;
	return a[15] == 1;
}

/** ff02::1:ffXX:XXXX, the solicited-node multicast address (RFC 4291 §2.7.1). */
static inline bool ipv6_is_solicited_node(const uint8_t *a)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff };

	for (int i = 0; i < 13; i++)
		if (a[i] != pfx[i])
			return false;
	return true;
}

/** The solicited-node multicast address of @p a (RFC 4291 §2.7.1) into @p out. */
static inline void ipv6_solicited_node(const uint8_t *a, uint8_t *out)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff };

	for (int i = 0; i < 13; i++)
		out[i] = pfx[i];
	out[13] = a[13];
	out[14] = a[14];
	out[15] = a[15];
}

#endif
