/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>

#include "core/be.h"
#include "pipeline/parse.h"

DROP_REASON(drop_truncated, "parse", "truncated", "frame ends inside a header");
DROP_REASON(drop_bad_version, "parse", "bad_version",
	    "IP version field does not match the ethertype");
DROP_REASON(drop_bad_ihl, "parse", "bad_ihl", "IPv4 header length below 5 words");
DROP_REASON(drop_bad_checksum, "parse", "bad_checksum", "IPv4 header checksum wrong");

DROP_REASON(drop_bad_length, "parse", "bad_length",
	    "IP total length larger than the frame or below the header");
DROP_REASON(drop_frag_oversize, "parse", "frag_oversize",
	    "IPv4 fragment whose offset x 8 plus payload ends past 65535 bytes (RFC 791 §3.2)");

const uint8_t ipv4_martian_octet[256] = {
	[0] = 1,
	[127] = 1,
	[224 ... 255] = 1,
};

bool parse_l2(const uint8_t *p, uint32_t len, struct pkt_l2 *out, const struct drop_reason **why)
{
	if (len < 14) {
		*why = &drop_truncated;
		return false;
	}
	out->ethertype = be16_get(p + 12);
	out->vlan = 0;
	out->l2_len = 14;
	if (out->ethertype == ETHERTYPE_VLAN) {
		if (len < 18) {
			*why = &drop_truncated;
			return false;
		}
		out->vlan = be16_get(p + 14) & 0x0fff;
		out->ethertype = be16_get(p + 16);
		out->l2_len = 18;
	}
	return true;
}

bool parse_ipv4(const uint8_t *p, uint32_t len, bool csum_ok, struct pkt_ipv4 *out,
		const struct drop_reason **why)
{
	if (len < 20) {
		*why = &drop_truncated;
		return false;
	}
	if ((p[0] >> 4) != 4) {
		*why = &drop_bad_version;
		return false;
	}
	uint16_t hlen = (uint16_t)((p[0] & 0x0f) * 4);
	if (hlen < 20) {
		*why = &drop_bad_ihl;
		return false;
	}
	if (len < hlen) {
		*why = &drop_truncated;
		return false;
	}
	uint16_t total = be16_get(p + 2);
	if (total < hlen || total > len) {
		*why = &drop_bad_length;
		return false;
	}
	if (!csum_ok && (hlen == 20 ? ipv4_hdr_sum20(p) : inet_checksum(p, hlen)) != 0) {
		*why = &drop_bad_checksum;
		return false;
	}
	uint16_t frag = be16_get(p + 6);
	/* RFC 791 §3.2: a datagram holds at most 65535 bytes, so no fragment
	 * may end past that; one that does cannot be reassembled, and
	 * re-fragmenting it would wrap the 13-bit offset into the flags. */
	if ((uint32_t)(frag & 0x1fff) * 8 + (uint32_t)(total - hlen) > 65535) {
		*why = &drop_frag_oversize;
		return false;
	}
	out->hdr_len = hlen;
	out->total_len = total;
	out->ttl = p[8];
	out->proto = p[9];
	out->src = be32_get(p + 12);
	out->dst = be32_get(p + 16);
	out->df = (frag & 0x4000) != 0;
	out->fragment = (frag & 0x3fff) != 0;
	out->sport = out->dport = 0;
	if ((frag & 0x1fff) == 0 && (out->proto == IPPROTO_UDP || out->proto == IPPROTO_TCP) &&
	    total >= hlen + 4) {
		out->sport = be16_get(p + hlen);
		out->dport = be16_get(p + hlen + 2);
	}
	return true;
}

uint16_t inet_checksum(const void *p, uint32_t len)
{
	uint16_t s = rte_raw_cksum(p, len);
	return (uint16_t)~s;
}

/* Sum of the RFC 768 pseudo-header: source, destination, zero, protocol 17, UDP length. */
static uint32_t udp4_pseudo_sum(uint32_t src, uint32_t dst, uint32_t len)
{
	uint8_t ph[12] = {
		(uint8_t)(src >> 24), (uint8_t)(src >> 16), (uint8_t)(src >> 8),
		(uint8_t)src,         (uint8_t)(dst >> 24), (uint8_t)(dst >> 16),
		(uint8_t)(dst >> 8),  (uint8_t)dst,         0,
		IPPROTO_UDP,          (uint8_t)(len >> 8),  (uint8_t)len,
	};

	return __rte_raw_cksum(ph, sizeof(ph), 0);
}

uint16_t udp4_checksum(uint32_t src, uint32_t dst, const void *udp, uint32_t len)
{
	uint32_t sum = __rte_raw_cksum(udp, len, udp4_pseudo_sum(src, dst, len));
	uint16_t c = (uint16_t)~__rte_raw_cksum_reduce(sum);

	return c == 0 ? 0xffff : c; /* RFC 768: a computed 0 is sent as all ones */
}

bool udp4_checksum_ok(uint32_t src, uint32_t dst, const void *udp, uint32_t len)
{
	/* the sum over a datagram whose checksum is right is all ones (-0) */
	return __rte_raw_cksum_reduce(__rte_raw_cksum(udp, len, udp4_pseudo_sum(src, dst, len))) ==
	       0xffff;
}
