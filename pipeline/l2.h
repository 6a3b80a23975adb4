/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet II headers (with the interface's 802.1Q tag, IEEE 802.1Q §9.6)
 * for frames leaving by an interface: the one place that writes them.
 */
#ifndef VBRD_L2_H
#define VBRD_L2_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "pipeline/fwd.h"

/** Bytes of L2 header for leaving by @p out: 14, or 18 with a VLAN tag. */
static inline uint16_t l2_len_for(const struct fwd_iface *out)
{
	return out->vlan ? 18 : 14;
}

/**
 * Write the L2 header for leaving by @p out at @p p.
 *
 * @param p          l2_len_for(@p out) writable bytes
 * @param dst        destination MAC
 * @param ethertype  of the payload, host order (RTE_ETHER_TYPE_IPV4, ...)
 * @return           bytes written
 */
static inline uint16_t l2_write(uint8_t *p, const struct fwd_iface *out,
				const struct rte_ether_addr *dst, uint16_t ethertype)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;

	rte_ether_addr_copy(dst, &eth->dst_addr);
	rte_ether_addr_copy(&out->mac, &eth->src_addr);
	if (out->vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(out->vlan);
		vh->eth_proto = rte_cpu_to_be_16(ethertype);
		return 18;
	}
	eth->ether_type = rte_cpu_to_be_16(ethertype);
	return 14;
}

/**
 * Replace the @p in_l2 bytes @p m starts with (0, 14 or 18) by the L2
 * header for leaving by @p out.
 *
 * @return 0, or -ENOSPC when the mbuf has no headroom left
 */
static inline int l2_rewrite(struct rte_mbuf *m, uint16_t in_l2, const struct fwd_iface *out,
			     const struct rte_ether_addr *dst, uint16_t ethertype)
{
	uint16_t out_l2 = l2_len_for(out);
	uint8_t *p;

	if (out_l2 < in_l2)
		p = (uint8_t *)rte_pktmbuf_adj(m, in_l2 - out_l2);
	else if (out_l2 > in_l2)
		p = (uint8_t *)rte_pktmbuf_prepend(m, out_l2 - in_l2);
	else
		p = rte_pktmbuf_mtod(m, uint8_t *);
	if (unlikely(p == NULL))
		return -ENOSPC;
	l2_write(p, out, dst, ethertype);
	return 0;
}

/**
 * Precompute @p fi's l2_src4 / l2_tag4 from its MAC and VLAN (once, when
 * the forwarding state is built).
 */
static inline void l2_prepare(struct fwd_iface *fi)
{
	uint8_t b[12];

	memcpy(b, fi->mac.addr_bytes, 6);
	uint16_t et = rte_cpu_to_be_16(fi->vlan ? RTE_ETHER_TYPE_VLAN : RTE_ETHER_TYPE_IPV4);
	memcpy(b + 6, &et, 2);
	uint16_t tci = rte_cpu_to_be_16(fi->vlan), in = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memcpy(b + 8, &tci, 2);
	memcpy(b + 10, &in, 2);
	memcpy(&fi->l2_src4, b, 8);
	memcpy(&fi->l2_tag4, b + 8, 4);
}

/**
 * The untagged L2 header of an IPv4 frame at @p p: destination @p mac
 * (neigh.h encoding), then @p l2_src4 (fwd_iface.l2_src4: source MAC and
 * EtherType), in two overlapping 8-byte stores (14 bytes).
 */
static inline void l2_write4_untagged(uint8_t *p, uint64_t mac, uint64_t l2_src4)
{
	memcpy(p, &mac, 8); /* bytes 6, 7 are rewritten just below */
	memcpy(p + 6, &l2_src4, 8);
}

/**
 * Write the L2 header of an IPv4 frame leaving by @p out to neighbor
 * @p mac (neigh.h encoding) at @p p: three or four stores, no byte loop.
 *
 * @param p  l2_len_for(@p out) writable bytes, plus 2 more that the first
 *           8-byte store overwrites and the second rewrites (so at least 14)
 */
static inline void l2_write4_fast(uint8_t *p, const struct fwd_iface *out, uint64_t mac)
{
	l2_write4_untagged(p, mac, out->l2_src4);
	if (out->vlan)
		memcpy(p + 14, &out->l2_tag4, 4);
}

/** "aa:bb:cc:dd:ee:ff" of @p a into @p buf (RTE_ETHER_ADDR_FMT_SIZE bytes); returns @p buf. */
static inline char *l2_mac_str(const struct rte_ether_addr *a, char *buf)
{
	rte_ether_format_addr(buf, RTE_ETHER_ADDR_FMT_SIZE, a);
	return buf;
}

#endif
