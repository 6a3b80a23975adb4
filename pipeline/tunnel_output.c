/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Encapsulation: one copy of the path's prebuilt outer headers, then the
 * length, checksum, TOS and source-port fields (RFC 7348 §5, RFC 8926 §3).
 */
/* rte_ipv6_udptcp_cksum_mbuf() is experimental in DPDK 22.11 */
#define ALLOW_EXPERIMENTAL_API
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_memcpy.h>
#include <rte_udp.h>

#include "pipeline/fast4.h"
#include "pipeline/icmp.h"
#include "pipeline/icmp6.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/nh_kind.h"
#include "pipeline/tunnel.h"

static void encap_one(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		      uint16_t inner_l2, const struct fwd_path *p, uint16_t sport, uint32_t hash,
		      uint8_t tos, uint16_t inner_ethertype, bool local)
{
	const struct fwd_iface *line = &st->ifaces[p->iface];
	const struct fwd_tunnel *t = &st->tunnels[p->tunnel];
	uint8_t *h;

	if (inner_l2)
		rte_pktmbuf_adj(m, inner_l2);
	uint32_t inner_len = rte_pktmbuf_pkt_len(m);
	h = (uint8_t *)rte_pktmbuf_prepend(m, p->hdr_len);
	if (unlikely(h == NULL)) {
		worker_drop(w, m, &drop_no_headroom);
		return;
	}
	rte_memcpy(h, p->hdr, p->hdr_len);

	uint8_t *l3 = h + p->l2_len;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(l3 + p->l3_len);
	uint16_t udp_len = (uint16_t)(p->hdr_len - p->l2_len - p->l3_len + inner_len);

	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dgram_len = rte_cpu_to_be_16(udp_len);
	*(uint16_t *)(h + p->hdr_len - 2) = rte_cpu_to_be_16(inner_ethertype);

	/* DSCP and ECN copied from the inner header (RFC 6040 §4.1, normal mode). */
	uint64_t mac;
	if (t->remote.family == AF_INET) {
		struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)l3;
		ih->type_of_service = tos;
		ih->total_length = rte_cpu_to_be_16((uint16_t)(p->l3_len + udp_len));
		ih->packet_id = w->ip_id++; /* worker.h: stored as it is */
		/* the template's sum plus the three fields just written (RFC 1071:
		 * the sum is order-independent, so each word is added once) */
		uint32_t sum = p->ip4_sum + rte_cpu_to_be_16((uint16_t)tos) + ih->total_length +
			       ih->packet_id;
		ih->hdr_checksum = (uint16_t)~__rte_raw_cksum_reduce(sum);
		/* UDP checksum zero over IPv4 (RFC 7348 §5) */
		mac = atomic_load_explicit(&p->mac, memory_order_acquire);
	} else {
		struct rte_ipv6_hdr *ih = (struct rte_ipv6_hdr *)l3;
		/* flow label from the inner flow (RFC 6438) */
		ih->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tos << 20 | (hash & 0xfffff));
		ih->payload_len = rte_cpu_to_be_16(udp_len);
		/* IPv6 needs a real UDP checksum (RFC 8200 §8.1; RFC 6935 zero is
		 * opt-in). A computed 0 goes out as 0xffff (RFC 768): a zero field
		 * would read as "no checksum", which the remote drops (RFC 6936 §5).
		 * DPDK 22.11's rte_ipv6_udptcp_cksum_mbuf() maps it already for
		 * UDP; vbrd does not rely on that. */
		udp->dgram_cksum = 0;
		uint16_t ck = rte_ipv6_udptcp_cksum_mbuf(m, ih, (uint16_t)(p->l2_len + p->l3_len));
		udp->dgram_cksum = ck != 0 ? ck : 0xffff;
		mac = atomic_load_explicit(&p->mac, memory_order_acquire);
	}

	const struct fwd_iface *tif = &st->ifaces[t->iface];
	w->stats.iface[tif->slot].tx_packets++;
	w->stats.iface[tif->slot].tx_bytes += inner_len;
	if (unlikely(mac == 0)) {
		/* it entered the tunnel (counted above); the line counts it, and
		 * forwarded too, when it leaves (worker_count_held()) */
		if (t->remote.family == AF_INET)
			worker_punt(w, m, PUNT_RESOLVE, line->port, line->vlan, &p->via.v4);
		else
			worker_punt(w, m, PUNT_RESOLVE6, line->port, line->vlan, p->via.v6);
		pkt_meta(m)->held_forwarded = !local;
		return;
	}
	w->stats.iface[line->slot].tx_packets++;
	w->stats.iface[line->slot].tx_bytes += rte_pktmbuf_pkt_len(m);
	if (!local)
		w->stats.forwarded++;
	neigh_mac_to_ether(mac, (struct rte_ether_addr *)h);
	worker_tx(w, line->port, m);
}

void tunnel_output(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		   struct pkt_ctx *c, const struct fwd_path_group *g)
{
	uint32_t hash = flow_hash_ipv4(&c->ip);
	const struct fwd_path *p = g->choose != NULL
					   ? g->choose(w, st, g, m, hash)
					   : atomic_load_explicit(&g->active, memory_order_acquire);
	const struct fwd_iface *in = &st->ifaces[c->iface];

	if (unlikely(p == NULL)) {
		worker_drop(w, m, &drop_no_path);
		return;
	}
	if (unlikely(c->ip.total_len > p->inner_mtu) && c->ip.df) {
		/* Tell the sender the tunnel's real inner MTU (RFC 1191 §4). */
		icmp_error(w, st, m, in, &c->l2, &c->ip, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED,
			   p->inner_mtu);
		worker_drop(w, m, &drop_mtu_exceeded);
		return;
	}

	struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, c->l2.l2_len);
	ip4_ttl_decrement(ih);
	uint8_t tos = ih->type_of_service;
	uint16_t sport = tunnel_source_port(p, hash);

	if (likely(c->ip.total_len <= p->inner_mtu)) {
		encap_one(w, st, m, c->l2.l2_len, p, sport, hash, tos, RTE_ETHER_TYPE_IPV4, false);
		return;
	}

	/* DF clear: fragment the inner packet (RFC 791), then encapsulate each. */
	struct rte_mbuf *frags[128];
	rte_pktmbuf_adj(m, c->l2.l2_len);
	int n = rte_ipv4_fragment_packet(m, frags, RTE_DIM(frags), p->inner_mtu, dp.pool,
					 dp.indirect_pool);
	rte_pktmbuf_free(m);
	if (n < 0) {
		w->stats.drops[drop_frag_failed.id]++;
		return;
	}
	for (int i = 0; i < n; i++) {
		struct rte_ipv4_hdr *fh = rte_pktmbuf_mtod(frags[i], struct rte_ipv4_hdr *);
		fh->hdr_checksum = 0;
		fh->hdr_checksum = rte_ipv4_cksum(fh);
		w->stats.fragments++;
		encap_one(w, st, frags[i], 0, p, sport, hash, tos, RTE_ETHER_TYPE_IPV4, false);
	}
}

void tunnel_output6(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		    const struct pkt_l2 *l2, const struct pkt_ipv6 *ip, const struct fwd_iface *in,
		    const struct fwd_path_group *g)
{
	uint32_t hash = flow_hash_ipv6(ip);
	const struct fwd_path *p = g->choose != NULL
					   ? g->choose(w, st, g, m, hash)
					   : atomic_load_explicit(&g->active, memory_order_acquire);

	if (unlikely(p == NULL)) {
		worker_drop(w, m, &drop_no_path);
		return;
	}
	/* IPv6 is never fragmented on the way: Packet Too Big with the
	 * tunnel's inner MTU (RFC 8200 §5, RFC 4443 §3.2). */
	if (unlikely((uint32_t)IPV6_HDR_LEN + ip->payload_len > p->inner_mtu)) {
		icmp6_error(w, m, in, l2, ip, ICMP6_PACKET_TOO_BIG, 0, p->inner_mtu);
		worker_drop(w, m, &drop_mtu_exceeded);
		return;
	}
	struct rte_ipv6_hdr *h = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, l2->l2_len);
	uint8_t tclass = (uint8_t)(rte_be_to_cpu_32(h->vtc_flow) >> 20);

	h->hop_limits--;
	encap_one(w, st, m, l2->l2_len, p, tunnel_source_port(p, hash), hash, tclass,
		  RTE_ETHER_TYPE_IPV6, false);
}

void tunnel_send_on_path(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			 const struct fwd_path *p, uint16_t sport, uint16_t ethertype, uint8_t tos)
{
	encap_one(w, st, m, 0, p, sport, 0, tos, ethertype, true);
}

static void path_group_output4(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			       struct pkt_ctx *c, uint32_t idx)
{
	tunnel_output(w, st, m, c, &st->path_groups[idx]);
}

static void path_group_output6(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			       const struct ip6_ctx *c, uint32_t idx)
{
	tunnel_output6(w, st, m, &c->l2, &c->ip, &st->ifaces[c->iface], &st->path_groups[idx]);
}

/* What one path's run shares, loaded once (path_group_output4_burst()). */
struct encap4_run {
	const uint8_t *hdr;
	uint16_t hdr_len, l2_len, grow, udp_base;
	uint32_t ip4_sum;
	int32_t plane;
	uint16_t nb_planes;
	uint64_t plane_tab;
	uint8_t head[32]; /* the template's first 32 bytes, the next hop's MAC merged */
};

static inline void encap4_run_init(struct encap4_run *r, const struct fwd_path *p, uint64_t mac)
{
	r->hdr = p->hdr;
	r->hdr_len = p->hdr_len;
	r->l2_len = p->l2_len;
	r->grow = (uint16_t)(p->hdr_len - 14);
	r->udp_base = (uint16_t)(p->hdr_len - p->l2_len - 20);
	r->ip4_sum = p->ip4_sum;
	r->plane = p->plane;
	r->nb_planes = p->nb_planes;
	r->plane_tab = atomic_load_explicit(&p->plane_tab, memory_order_relaxed);
	memcpy(r->head, p->hdr, 32);
	neigh_mac_to_ether(mac, (struct rte_ether_addr *)r->head);
}

/*
 * One packet of the fast path into the run's path (IPv4 underlay): the
 * inner Ethernet header gives way to the whole template, copied in
 * 32-byte pieces; the outer IPv4 checksum from the template's sum (RFC
 * 1624), and the TOS, length, ID and source-port (@p sport) fields. The
 * caller checked the inner MTU and the headroom. @return the inner
 * length, bytes.
 */
static inline uint32_t encap4_one(const struct encap4_run *r, struct rte_mbuf *m, uint16_t sport,
				  uint16_t *ip_id)
{
	const uint32_t inner_len = m->pkt_len - 14;
	const uint16_t hdr_len = r->hdr_len;
	uint8_t *ih = rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
	ip4_ttl_decrement((struct rte_ipv4_hdr *)ih);
	const uint8_t tos = ih[1];

	m->data_off = (uint16_t)(m->data_off - r->grow);
	m->data_len = (uint16_t)(m->data_len + r->grow);
	m->pkt_len += r->grow;
	uint8_t *h = ih - hdr_len;
	memcpy(h, r->head, 32);
	memcpy(h + 32, r->hdr + 32, 32);
	if (unlikely(hdr_len > 64))
		memcpy(h + hdr_len - 32, r->hdr + hdr_len - 32, 32);

	uint8_t *oh = h + r->l2_len;
	const uint16_t udp_len = (uint16_t)(r->udp_base + inner_len);
	const uint16_t total_be = rte_cpu_to_be_16((uint16_t)(20 + udp_len));
	const uint16_t id_be = (*ip_id)++; /* worker.h: stored as it is */
	const uint16_t tos_be = rte_cpu_to_be_16((uint16_t)tos);
	/* version/IHL and TOS; total length and ID; UDP source port; UDP length */
	const uint16_t w0 = (uint16_t)(0x45 | (uint16_t)tos << 8);
	const uint32_t w1 = (uint32_t)total_be | (uint32_t)id_be << 16;
	const uint16_t sport_be = rte_cpu_to_be_16(sport);
	const uint16_t udp_len_be = rte_cpu_to_be_16(udp_len);
	memcpy(oh, &w0, 2);
	memcpy(oh + 2, &w1, 4);
	memcpy(oh + 20, &sport_be, 2);
	memcpy(oh + 24, &udp_len_be, 2);
	const uint16_t ck = (uint16_t)~__rte_raw_cksum_reduce(r->ip4_sum + tos_be + total_be +
							      id_be);
	memcpy(oh + 10, &ck, 2);
	*(uint16_t *)(h + hdr_len - 2) = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	return inner_len;
}

/* @p k packets of @p p sent, @p inner_bytes of inner packets in all: counters and TX */
static inline void encap4_flush(struct worker *w, const struct fwd_state *st,
				const struct fwd_path *p, struct rte_mbuf **pkts, unsigned k,
				uint64_t inner_bytes)
{
	const struct fwd_iface *line = &st->ifaces[p->iface];
	const struct fwd_iface *tif = &st->ifaces[st->tunnels[p->tunnel].iface];

	w->stats.iface[tif->slot].tx_packets += k;
	w->stats.iface[tif->slot].tx_bytes += inner_bytes;
	w->stats.iface[line->slot].tx_packets += k;
	w->stats.iface[line->slot].tx_bytes += inner_bytes + (uint64_t)k * p->hdr_len;
	w->stats.forwarded += k;
	worker_tx_bulk(w, line->port, pkts, k);
}

/*
 * The packets of a group with choose_burst (path selection), of one FIB
 * value, in chunks of up to FWD_CHOOSE_BURST: their flow hashes (the
 * outer source port's entropy too: hashed once), one choose_burst() call
 * for the chunk, then the packets grouped by path (per-path lists of
 * packets and hashes, order kept within a path: a flow's packets of one
 * burst share a path), each path's group encapsulated and queued as one
 * run. A packet any path of the group takes on the fast path (inner
 * MTU, headroom: the group's fast4_mtu and fast4_grow) is chosen for here
 * once; the first that is not stops it, before being chosen for, and is
 * the general path's. Every chosen packet is handled here: sent, dropped
 * as no_path, or, when its path's next hop is not resolved, encapsulated
 * by encap_one(), which holds it for resolution as the general path does.
 *
 * @return  how many leading packets of @p pkts it took (0..n)
 */
static unsigned path_group_output4_chosen(struct worker *w, const struct fwd_state *st,
					  const struct fwd_path_group *g, struct rte_mbuf **pkts,
					  const uint64_t *fibnh, unsigned n)
{
	const uint64_t v = fibnh[0];
	const uint32_t mtu = g->fast4_mtu;
	const uint16_t grow = g->fast4_grow;
	const unsigned nb_paths = g->nb_paths < CFG_MAX_PATHS ? g->nb_paths : CFG_MAX_PATHS;
	unsigned i = 0;

	while (i < n) {
		uint32_t hash[FWD_CHOOSE_BURST], len[FWD_CHOOSE_BURST];
		uint8_t path[FWD_CHOOSE_BURST];
		/* each path's packets and their hashes, in order */
		struct rte_mbuf *out[CFG_MAX_PATHS][FWD_CHOOSE_BURST];
		uint32_t out_hash[CFG_MAX_PATHS][FWD_CHOOSE_BURST];
		unsigned cnt[CFG_MAX_PATHS] = { 0 };
		struct rte_mbuf **c = pkts + i;
		unsigned e = 0;
		const unsigned lim = n - i < FWD_CHOOSE_BURST ? n - i : FWD_CHOOSE_BURST;

		for (; e < lim && fibnh[i + e] == v; e++) {
			const struct rte_mbuf *m = c[e];
			if (unlikely(m->pkt_len - 14 > mtu || m->data_off < grow))
				break;
			len[e] = m->pkt_len;
			hash[e] = fast4_flow_hash(m);
		}
		if (e == 0)
			break;
		g->choose_burst(w, st, g, c, hash, len, e, path);
		for (unsigned j = 0; j < e; j++) {
			const unsigned k = path[j];
			if (unlikely(k >= nb_paths)) {
				worker_drop(w, c[j], &drop_no_path);
				continue;
			}
			out[k][cnt[k]] = c[j];
			out_hash[k][cnt[k]++] = hash[j];
		}
		for (unsigned k = 0; k < nb_paths; k++) {
			const unsigned nk = cnt[k];
			if (nk == 0)
				continue;
			const struct fwd_path *p = &st->paths[g->paths[k]];
			const uint64_t mac = atomic_load_explicit(&p->mac, memory_order_acquire);
			if (unlikely(mac == 0)) {
				/* as tunnel_output(): held until the line's neighbor resolves */
				for (unsigned j = 0; j < nk; j++) {
					struct rte_mbuf *m = out[k][j];
					const uint32_t h = out_hash[k][j];
					struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(
						m, struct rte_ipv4_hdr *, 14);
					ip4_ttl_decrement(ih);
					encap_one(w, st, m, 14, p, tunnel_source_port(p, h), h,
						  ih->type_of_service, RTE_ETHER_TYPE_IPV4, false);
				}
				continue;
			}
			struct encap4_run r;
			uint16_t ip_id = w->ip_id;
			uint64_t inner_bytes = 0;
			encap4_run_init(&r, p, mac);
			struct rte_mbuf **ok = out[k];
			const uint32_t *oh = out_hash[k];
			if (r.plane >= 0 && r.nb_planes > 1) {
				/* planes: the flow's bucket in the plane table (tunnel_plane_port()) */
				const uint32_t first = CFG_PLANE_BASE + (uint32_t)r.plane;
				for (unsigned j = 0; j < nk; j++) {
					const uint32_t b = (oh[j] & 15) * 4;
					inner_bytes += encap4_one(
						&r, ok[j],
						(uint16_t)(first +
							   ((uint32_t)(r.plane_tab >> b) & 15u)),
						&ip_id);
				}
			} else {
				for (unsigned j = 0; j < nk; j++)
					inner_bytes += encap4_one(
						&r, ok[j],
						tunnel_plane_port(r.plane, r.nb_planes, r.plane_tab,
								  oh[j]),
						&ip_id);
			}
			w->ip_id = ip_id;
			encap4_flush(w, st, p, ok, nk, inner_bytes);
		}
		i += e;
		if (e < lim)
			break; /* stopped by another FIB value or a packet for the general path */
	}
	return i;
}

/*
 * The fast path's packets (nh_kind.h output4_burst), in runs of one FIB
 * value, so one path: what the run shares is loaded once into locals
 * (every store into a packet is a byte store the compiler must assume
 * aliases any struct field), the template's first 32 bytes with the
 * line's next-hop MAC are merged once per run. Per packet: the flow hash
 * (unless the path has a fixed plane) and TOS straight from the
 * option-less header, the template copied in 32-byte pieces, the outer
 * IPv4 checksum from the template's sum (RFC 1624), and the length, ID
 * and source-port fields. Counters and TX per run, from @p pkts itself.
 * It stops at a packet of another FIB kind (the caller's), and at anything
 * unusual (no path, over the inner MTU, an IPv6 underlay, the line's
 * neighbor unresolved, no headroom): that packet is the general path's.
 * A group with choose_burst and only IPv4 underlays takes
 * path_group_output4_chosen(); another group with a chooser is the
 * general path's (which chooses for each packet once).
 */
static unsigned path_group_output4_burst(struct worker *w, const struct fwd_state *st,
					 struct rte_mbuf **pkts, const uint64_t *fibnh, unsigned n)
{
	uint16_t ip_id = w->ip_id;
	unsigned i = 0;

	while (i < n) {
		const uint64_t v = fibnh[i];
		if (FIB_NH_KIND(v) != FIB_KIND_PATHGRP)
			break; /* the caller's: a run of another kind */
		const struct fwd_path_group *g = &st->path_groups[FIB_NH_INDEX(v)];
		const struct fwd_path *p;
		if (g->choose_burst != NULL && g->fast4) {
			w->ip_id = ip_id;
			const unsigned k = path_group_output4_chosen(w, st, g, pkts + i, fibnh + i,
								     n - i);
			ip_id = w->ip_id;
			i += k;
			if (k == 0 || (i < n && fibnh[i] == v))
				break; /* a packet for the general path */
			continue;
		}
		/* A chooser without choose_burst, or with a path the fast path
		 * cannot take (an IPv6 underlay): the general path chooses, once.
		 * Choosing here first, then handing the packet over when its path
		 * is not the fast path's, chose twice (counted twice: a path's
		 * recent bytes, the deficit's measure, doubled). */
		if (g->choose != NULL)
			break;
		p = atomic_load_explicit(&g->active, memory_order_acquire);
		if (unlikely(p == NULL || p->l3_len != 20))
			break;
		uint64_t mac = atomic_load_explicit(&p->mac, memory_order_acquire);
		if (unlikely(mac == 0))
			break;

		/* IPv4 underlay: hdr_len is 64 (VXLAN) or more, up to FWD_PATH_HDR_MAX */
		struct encap4_run r;
		encap4_run_init(&r, p, mac);
		const uint16_t inner_mtu = p->inner_mtu;

		const unsigned start = i;
		uint64_t inner_bytes = 0;
		for (; i < n && fibnh[i] == v; i++) {
			struct rte_mbuf *m = pkts[i];
			uint32_t hash = 0;

			if (r.plane < 0 || r.nb_planes > 1)
				hash = fast4_flow_hash(m);
			if (unlikely(m->pkt_len - 14 > inner_mtu || m->data_off < r.grow))
				break;
			inner_bytes += encap4_one(
				&r, m, tunnel_plane_port(r.plane, r.nb_planes, r.plane_tab, hash),
				&ip_id);
		}
		const unsigned k = i - start;
		if (k)
			encap4_flush(w, st, p, pkts + start, k, inner_bytes);
		if (i < n && fibnh[i] == v)
			break; /* stopped inside the run */
	}
	w->ip_id = ip_id;
	return i;
}

static const struct fwd_nh_kind path_group_kind = {
	.name = "path_group",
	.output4 = path_group_output4,
	.output4_burst = path_group_output4_burst,
	.output6 = path_group_output6,
};

__attribute__((constructor)) static void path_group_kind_register(void)
{
	fwd_nh_kind_set(FIB_KIND_PATHGRP, &path_group_kind);
}
