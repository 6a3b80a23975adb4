/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>

#include "core/be.h"
#include "pipeline/parse6.h"

/* Extension headers parse_ipv6() walks over (RFC 8200 §4.1). */
#define EXT_HOP_BY_HOP 0
#define EXT_ROUTING    43
#define EXT_FRAGMENT   44
#define EXT_DEST_OPTS  60
#define EXT_MAX        8 /* headers walked before giving up */

bool parse_ipv6(const uint8_t *p, uint32_t len, struct pkt_ipv6 *out,
		const struct drop_reason **why)
{
	if (len < IPV6_HDR_LEN) {
		*why = &drop_truncated;
		return false;
	}
	if ((p[0] >> 4) != 6) {
		*why = &drop_bad_version;
		return false;
	}
	uint16_t plen = be16_get(p + 4);
	if (plen == 0 && p[6] == EXT_HOP_BY_HOP) {
		*why = &drop_bad_length; /* RFC 2675 jumbogram: not on our links */
		return false;
	}
	if ((uint32_t)plen + IPV6_HDR_LEN > len) {
		*why = &drop_bad_length;
		return false;
	}
	out->payload_len = plen;
	out->flow_label = ((uint32_t)(p[1] & 0x0f) << 16) | be16_get(p + 2);
	out->hop_limit = p[7];
	memcpy(out->src, p + 8, 16);
	memcpy(out->dst, p + 24, 16);
	out->fragment = false;
	out->sport = out->dport = 0;

	/* Walk the extension headers (RFC 8200 §4.1 order, but accept any). */
	uint8_t nh = p[6];
	uint32_t off = IPV6_HDR_LEN, end = IPV6_HDR_LEN + (uint32_t)plen;
	bool later_fragment = false;
	for (int i = 0; i < EXT_MAX; i++) {
		uint32_t hlen;

		if (nh != EXT_HOP_BY_HOP && nh != EXT_ROUTING && nh != EXT_DEST_OPTS &&
		    nh != EXT_FRAGMENT)
			break;
		if (off + 8 > end)
			break;
		if (nh == EXT_FRAGMENT) {
			out->fragment = true;
			/* offset in the high 13 bits of bytes 2..3 (RFC 8200 §4.5) */
			later_fragment = (be16_get(p + off + 2) & 0xfff8) != 0;
			hlen = 8;
		} else {
			hlen = 8 + 8u * p[off + 1];
		}
		if (off + hlen > end)
			break;
		nh = p[off];
		off += hlen;
		if (later_fragment)
			break;
	}
	out->proto = nh;
	out->l4_off = (uint16_t)off;
	if (!later_fragment && (nh == IPPROTO_UDP || nh == IPPROTO_TCP) && off + 4 <= end) {
		out->sport = be16_get(p + off);
		out->dport = be16_get(p + off + 2);
	}
	return true;
}

uint32_t flow_hash_ipv6(const struct pkt_ipv6 *ip)
{
	uint64_t a[4];

	/* struct pkt_ipv6 is only 4-byte aligned (in arrays of struct ip6_ctx,
	 * every other src sits at 4 mod 8): rte_hash_crc() would load 8 bytes
	 * at a time from a misaligned address. Copy, then hash the same words. */
	memcpy(a, ip->src, 16);
	memcpy(a + 2, ip->dst, 16);
	uint32_t h = rte_hash_crc_8byte(a[0], 0x5bd1e995);
	h = rte_hash_crc_8byte(a[1], h);
	h = rte_hash_crc_8byte(a[2], h);
	h = rte_hash_crc_8byte(a[3], h);
	h = rte_hash_crc_4byte((uint32_t)ip->sport << 16 | ip->dport, h);
	h = rte_hash_crc_4byte((uint32_t)ip->proto << 24 | ip->flow_label, h);
	return h ^ (h >> 16);
}

/* Sum of the RFC 8200 §8.1 pseudo-header: src, dst, 32-bit length, 3 zero bytes, next header. */
static uint32_t pseudo6_sum(const uint8_t *src, const uint8_t *dst, uint32_t len, uint8_t nh)
{
	uint8_t ph[40];

	memcpy(ph, src, 16);
	memcpy(ph + 16, dst, 16);
	ph[32] = (uint8_t)(len >> 24);
	ph[33] = (uint8_t)(len >> 16);
	ph[34] = (uint8_t)(len >> 8);
	ph[35] = (uint8_t)len;
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = nh;
	return __rte_raw_cksum(ph, sizeof(ph), 0);
}

uint16_t icmp6_checksum(const uint8_t *src, const uint8_t *dst, const void *icmp, uint32_t len)
{
	uint32_t sum = __rte_raw_cksum(icmp, len, pseudo6_sum(src, dst, len, IPPROTO_ICMPV6_NUM));

	return (uint16_t)~__rte_raw_cksum_reduce(sum);
}

uint16_t udp6_checksum(const uint8_t *src, const uint8_t *dst, const void *udp, uint32_t len)
{
	uint32_t sum = __rte_raw_cksum(udp, len, pseudo6_sum(src, dst, len, IPPROTO_UDP));
	uint16_t c = (uint16_t)~__rte_raw_cksum_reduce(sum);

	return c == 0 ? 0xffff : c; /* RFC 768: a computed 0 is sent as all ones */
}

bool udp6_checksum_ok(const uint8_t *src, const uint8_t *dst, const void *udp, uint32_t len)
{
	/* the sum over a datagram whose checksum is right is all ones (-0) */
	return __rte_raw_cksum_reduce(__rte_raw_cksum(
		       udp, len, pseudo6_sum(src, dst, len, IPPROTO_UDP))) == 0xffff;
}

/* Every option has a non-zero length and ends inside the message (§7.1.1). */
static bool nd_options_ok(const uint8_t *icmp, uint32_t len, uint32_t off, bool *has_slla)
{
	*has_slla = false;
	while (off < len) {
		if (off + 2 > len || icmp[off + 1] == 0)
			return false;
		uint32_t olen = 8u * icmp[off + 1];
		if (off + olen > len)
			return false;
		if (icmp[off] == ND_OPT_SOURCE_LLADDR)
			*has_slla = true;
		off += olen;
	}
	return true;
}

bool nd_validate(const struct pkt_ipv6 *ip, const uint8_t *icmp, uint32_t len)
{
	bool has_slla;

	if (ip->hop_limit != 255 || ip->l4_off != IPV6_HDR_LEN || len < 24 || icmp[1] != 0)
		return false;
	if (ipv6_is_multicast(icmp + 8))
		return false;
	if (!nd_options_ok(icmp, len, 24, &has_slla))
		return false;
	if (icmp[0] == ICMP6_NEIGH_SOLICIT) {
		if (ipv6_is_unspecified(ip->src) && (!ipv6_is_solicited_node(ip->dst) || has_slla))
			return false;
		return true;
	}
	if (icmp[0] == ICMP6_NEIGH_ADVERT) {
		if (ipv6_is_multicast(ip->dst) && (icmp[4] & ND_NA_SOLICITED))
			return false;
		return true;
	}
	return false;
}

const uint8_t *nd_find_lladdr(const uint8_t *icmp, uint32_t len, uint32_t off, uint8_t type)
{
	while (off + 2 <= len && icmp[off + 1] != 0) {
		uint32_t olen = 8u * icmp[off + 1];
		if (off + olen > len)
			break;
		if (icmp[off] == type && olen >= 8)
			return icmp + off + 2;
		off += olen;
	}
	return NULL;
}
