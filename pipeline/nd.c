/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "pipeline/control.h"
#include "pipeline/fwd6.h"
#include "pipeline/ip6.h"
#include "pipeline/meta.h"
#include "pipeline/nd.h"
#include "pipeline/neigh.h"
#include "pipeline/parse6.h"
#include "pipeline/output.h"

#define ND_MSG_LEN 32 /* NS/NA (24 bytes) + one link-layer address option (8) */

struct nd_stats nd_stats;

static const struct fwd_iface *nd_iface(const struct fwd_state *st, uint16_t port, uint16_t vlan)
{
	if (port >= st->nb_port_ids || st->iface_by_vlan[port][vlan] == FWD_NO_IFACE)
		return NULL;
	return &st->ifaces[st->iface_by_vlan[port][vlan]];
}

/*
 * Build and send an NS or NA from @p fi: IPv6 hop limit 255 (RFC 4861 §7.1),
 * one link-layer address option (@p opt) with fi's MAC.
 */
static void nd_send(const struct fwd_iface *fi, const struct rte_ether_addr *dmac,
		    const uint8_t *src, const uint8_t *dst, uint8_t type, uint8_t flags,
		    const uint8_t *target, uint8_t opt, const struct rte_ether_addr *smac)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp.pool);

	if (m == NULL) {
		__atomic_fetch_add(&control_stats.drops[drop_no_mbuf.id], 1, __ATOMIC_RELAXED);
		return;
	}
	struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)rte_pktmbuf_append(m, IPV6_HDR_LEN +
										      ND_MSG_LEN);
	if (h == NULL) {
		control_drop(m, &drop_no_mbuf);
		return;
	}
	h->vtc_flow = rte_cpu_to_be_32(6u << 28);
	h->payload_len = rte_cpu_to_be_16(ND_MSG_LEN);
	h->proto = IPPROTO_ICMPV6_NUM;
	h->hop_limits = 255;
	memcpy(h->src_addr, src, 16);
	memcpy(h->dst_addr, dst, 16);

	uint8_t *ic = (uint8_t *)(h + 1);
	memset(ic, 0, ND_MSG_LEN);
	ic[0] = type;
	ic[4] = flags;
	memcpy(ic + 8, target, 16);
	ic[24] = opt;
	ic[25] = 1; /* option length in units of 8 bytes */
	memcpy(ic + 26, (smac != NULL ? smac : &fi->mac)->addr_bytes, 6);
	uint16_t ck = icmp6_checksum(h->src_addr, h->dst_addr, ic, ND_MSG_LEN);
	memcpy(ic + 2, &ck, 2);

	if (ip6_l2_write(m, 0, fi, dmac) < 0) {
		control_drop(m, &drop_no_mbuf);
		return;
	}
	if (smac != NULL) /* the frame's source too: bridges learn it there */
		rte_ether_addr_copy(smac, rte_pktmbuf_mtod_offset(m, struct rte_ether_addr *,
								  RTE_ETHER_ADDR_LEN));
	/* atomic: the HA thread announces (nd_announce) besides the main loop */
	__atomic_fetch_add(type == ICMP6_NEIGH_SOLICIT ? &nd_stats.solicits_tx
						       : &nd_stats.adverts_tx,
			   1, __ATOMIC_RELAXED);
	control_tx(m, fi->port);
}

/* RFC 2464 §7: the Ethernet address of an IPv6 multicast address. */
static void multicast_mac(const uint8_t *ip, struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(mac->addr_bytes + 2, ip + 12, 4);
}

/* Our address to solicit @p target from: one in its subnet, else the link-local one. */
static const uint8_t *nd_source_for(const struct fwd_iface *fi, const uint8_t *target)
{
	struct cfg_addr t = { .family = AF_INET6 };

	memcpy(t.v6, target, 16);
	if (!ipv6_is_link_local(target))
		for (int a = 0; a < fi->nb_addrs; a++)
			if (config_prefix_contains(&fi->addrs[a], &t))
				return fi->addrs[a].addr.v6;
	return fi->ll6;
}

void nd_solicit(const struct fwd_iface *fi, const uint8_t *target, const struct rte_ether_addr *mac)
{
	struct rte_ether_addr dmac;
	uint8_t dst[16];

	if (mac != NULL) {
		dmac = *mac;
		memcpy(dst, target, 16);
	} else {
		ipv6_solicited_node(target, dst);
		multicast_mac(dst, &dmac);
	}
	nd_send(fi, &dmac, nd_source_for(fi, target), dst, ICMP6_NEIGH_SOLICIT, 0, target,
		ND_OPT_SOURCE_LLADDR, NULL);
}

void nd_announce(const struct fwd_iface *fi, const uint8_t *target,
		 const struct rte_ether_addr *mac)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	struct rte_ether_addr dmac;

	multicast_mac(all_nodes, &dmac);
	nd_send(fi, &dmac, target, all_nodes, ICMP6_NEIGH_ADVERT, ND_NA_ROUTER | ND_NA_OVERRIDE,
		target, ND_OPT_TARGET_LLADDR, mac);
}

/* Learn or refresh a neighbor's MAC and send what waited for it. */
static void nd_learn(struct neigh *n, const uint8_t *lladdr)
{
	struct rte_ether_addr mac;

	memcpy(mac.addr_bytes, lladdr, 6);
	neigh_set_mac(n, &mac, NEIGH_REACHABLE);
	n->updated_ms = control_now_ms();
	neigh_flush_held(n);
}

/* @p a is link-local or inside one of @p fi's IPv6 prefixes (on-link, RFC 4861 §2.1). */
static bool nd_on_link(const struct fwd_iface *fi, const uint8_t *a)
{
	struct cfg_addr addr = { .family = AF_INET6 };

	if (ipv6_is_link_local(a))
		return true;
	memcpy(addr.v6, a, 16);
	for (int i = 0; i < fi->nb_addrs; i++)
		if (fi->addrs[i].addr.family == AF_INET6 &&
		    config_prefix_contains(&fi->addrs[i], &addr))
			return true;
	return false;
}

/* RFC 4861 §7.2.3, §7.2.4 */
static void ns_input(const struct fwd_iface *fi, const struct pkt_meta *pm,
		     const struct rte_ether_hdr *eth, const struct rte_ipv6_hdr *h,
		     const uint8_t *ic, uint32_t len)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	const uint8_t *target = ic + 8;
	const uint8_t *slla = nd_find_lladdr(ic, len, 24, ND_OPT_SOURCE_LLADDR);
	struct rte_ether_addr dmac;

	nd_stats.solicits_rx++;
	struct rte_ether_addr own = fi->mac; /* what we answer with */
	bool claimed = false;
	if (!fwd6_iface_owns(fi, target) &&
	    !(claimed = control_addr_claimed(fi, AF_INET6, target, &own))) {
		nd_stats.ignored++;
		return;
	}
	if (ipv6_is_unspecified(h->src_addr)) {
		/* Duplicate address detection by another node: tell all nodes (§7.2.4). */
		multicast_mac(all_nodes, &dmac);
		nd_send(fi, &dmac, target, all_nodes, ICMP6_NEIGH_ADVERT,
			ND_NA_ROUTER | ND_NA_OVERRIDE, target, ND_OPT_TARGET_LLADDR,
			claimed ? &own : NULL);
		return;
	}
	/* Learn on-link senders only (link-local, or in one of the interface's
	 * prefixes), and as STALE until confirmed (RFC 4861 §7.2.3). */
	if (slla != NULL && !(slla[0] & 1) && nd_on_link(fi, h->src_addr)) {
		struct neigh_key k = neigh_key6(pm->port, pm->vlan, h->src_addr);
		struct neigh *n = neigh_get_key(&k);
		if (n != NULL && n->state != NEIGH_STATIC) {
			struct rte_ether_addr mac;
			memcpy(mac.addr_bytes, slla, 6);
			neigh_learn(n, &mac, control_now_ms());
			neigh_flush_held(n);
		}
	}
	if (slla != NULL)
		memcpy(dmac.addr_bytes, slla, 6);
	else
		dmac = eth->src_addr;
	nd_send(fi, &dmac, target, h->src_addr, ICMP6_NEIGH_ADVERT,
		ND_NA_ROUTER | ND_NA_SOLICITED | ND_NA_OVERRIDE, target, ND_OPT_TARGET_LLADDR,
		claimed ? &own : NULL);
}

/* RFC 4861 §7.2.5 */
static void na_input(const struct pkt_meta *pm, const uint8_t *ic, uint32_t len)
{
	const uint8_t *target = ic + 8;
	const uint8_t *tlla = nd_find_lladdr(ic, len, 24, ND_OPT_TARGET_LLADDR);
	uint8_t flags = ic[4];
	struct neigh_key k = neigh_key6(pm->port, pm->vlan, target);
	struct neigh *n = neigh_find_key(&k);

	nd_stats.adverts_rx++;
	if (n == NULL || n->state == NEIGH_STATIC) {
		nd_stats.ignored++; /* unsolicited, for nothing we track */
		return;
	}
	uint64_t cur = atomic_load(&n->mac);
	if (tlla != NULL && !(tlla[0] & 1)) {
		struct rte_ether_addr e;
		memcpy(e.addr_bytes, tlla, 6);
		/* Without Override, a different address does not replace a known one. */
		if (cur == 0 || (flags & ND_NA_OVERRIDE) || cur == neigh_ether_to_mac(&e)) {
			nd_learn(n, tlla);
			return;
		}
	} else if (cur != 0 && (flags & ND_NA_SOLICITED)) {
		/* Reachability confirmation of the address we have (§7.3.3). */
		n->state = NEIGH_REACHABLE;
		n->probes = 0;
		n->updated_ms = control_now_ms();
		return;
	}
	nd_stats.ignored++;
}

void nd_input(const struct fwd_state *st, struct rte_mbuf *m)
{
	struct pkt_meta *pm = pkt_meta(m);
	const struct fwd_iface *fi = nd_iface(st, pm->port, pm->vlan);
	uint16_t l2 = pm->l2_len;

	if (fi == NULL) {
		control_drop(m, &drop_unknown_vlan);
		return;
	}
	/* The worker checked the lengths, hop limit and checksum (RFC 4861 §7.1). */
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *h = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, l2);
	const uint8_t *ic = (const uint8_t *)(h + 1);
	uint32_t len = rte_be_to_cpu_16(h->payload_len);

	if (ic[0] == ICMP6_NEIGH_SOLICIT)
		ns_input(fi, pm, eth, h, ic, len);
	else
		na_input(pm, ic, len);
	rte_pktmbuf_free(m);
}

__attribute__((constructor)) static void nd_punt_register(void)
{
	control_punt_register(PUNT_ND, nd_input);
}
