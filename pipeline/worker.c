/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path: rx_burst → parse → local / route → rewrite → tx_burst.
 *
 * One burst is processed in two passes so the FIB is searched once for
 * the whole burst (rte_fib_lookup_bulk): pass 1 parses and validates,
 * pass 2 routes, rewrites and queues.
 */
#include <signal.h>
#include <string.h>
#include <time.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>

#include "pipeline/icmp.h"
#include "pipeline/ip6.h"
#include "pipeline/l2.h"
#include "pipeline/tunnel.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/parse.h"
#include "pipeline/worker.h"

DROP_REASON(drop_tx_full, "output", "tx_full", "TX queue full");
DROP_REASON(drop_control_ring_full, "output", "control_ring_full", "control thread ring full");
DROP_REASON(drop_no_mbuf, "output", "no_mbuf", "mempool empty while building a reply");
DROP_REASON(drop_no_headroom, "output", "no_headroom",
	    "no room in front of the packet for its new L2 or outer headers");

DROP_REASON(drop_ttl_expired, "ip", "ttl_expired",
	    "TTL or hop limit would reach 0 (ICMP time exceeded sent)");
DROP_REASON(drop_no_route, "ip", "no_route", "no FIB entry (ICMP destination unreachable sent)");
DROP_REASON(
	drop_mtu_exceeded, "ip", "mtu_exceeded",
	"larger than the egress MTU with DF set, or IPv6 (ICMP frag needed / packet too big sent)");
DROP_REASON(drop_unsupported_local, "ip", "unsupported_local",
	    "to an own address, but not a service vbrd offers");
DROP_REASON(drop_martian, "ip", "martian", "source or destination that must not be routed");
DROP_REASON(drop_directed_broadcast, "ip", "directed_broadcast",
	    "to a connected subnet's broadcast or network address (RFC 2644)");
DROP_REASON(drop_frag_failed, "ip", "frag_failed", "IPv4 fragmentation failed");
DROP_REASON(drop_ipv6_multicast, "ip", "ipv6_multicast",
	    "IPv6 multicast vbrd does not serve (MLD, router solicitation)");
DROP_REASON(drop_icmp_bad_checksum, "ip", "icmp_bad_checksum",
	    "ICMP or ICMPv6 message to an own address with a wrong checksum");

DROP_REASON(drop_unknown_ethertype, "eth", "unknown_ethertype",
	    "neither ARP, IPv4, IPv6 nor 802.1Q");
DROP_REASON(drop_unknown_vlan, "eth", "unknown_vlan", "no interface for this port and VLAN");
DROP_REASON(drop_not_for_us, "eth", "not_for_us", "unicast frame to another MAC");

struct dataplane dp;

void worker_tx(struct worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct tx_buffer *b = &w->tx[port];

	if (unlikely(b->n == WORKER_TXB)) {
		uint16_t sent = rte_eth_tx_burst(port, (uint16_t)w->id, b->pkts, b->n);
		for (uint16_t i = sent; i < b->n; i++)
			worker_drop(w, b->pkts[i], &drop_tx_full);
		w->stats.tx_packets += sent;
		b->n = 0;
	}
	b->pkts[b->n++] = m;
}

static void tx_flush(struct worker *w)
{
	for (uint16_t port = 0; port < dp.nb_port_ids; port++) {
		struct tx_buffer *b = &w->tx[port];
		if (b->n == 0)
			continue;
		uint16_t sent = rte_eth_tx_burst(port, (uint16_t)w->id, b->pkts, b->n);
		for (uint16_t i = sent; i < b->n; i++)
			worker_drop(w, b->pkts[i], &drop_tx_full);
		w->stats.tx_packets += sent;
		b->n = 0;
	}
}

void worker_punt(struct worker *w, struct rte_mbuf *m, enum punt_kind kind, uint16_t port,
		 uint16_t vlan, const void *nh)
{
	struct pkt_meta *pm = pkt_meta(m);

	pm->punt = kind;
	pm->port = port;
	pm->vlan = vlan;
	if (kind == PUNT_RESOLVE)
		pm->nh_ip = *(const uint32_t *)nh;
	else if (kind == PUNT_RESOLVE6)
		memcpy(pm->nh_ip6, nh, 16);
	if (rte_ring_enqueue(dp.to_control, m) != 0) {
		worker_drop(w, m, &drop_control_ring_full);
		return;
	}
	w->stats.to_control++;
}

void worker_output(struct worker *w, struct rte_mbuf *m, uint16_t in_l2,
		   const struct fwd_iface *out, uint64_t mac, int family, const void *gw)
{
	struct rte_ether_addr dmac;

	neigh_mac_to_ether(mac, &dmac);
	if (unlikely(l2_rewrite(m, in_l2, out, &dmac,
				family == AF_INET ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6) <
		     0)) {
		worker_drop(w, m, &drop_no_headroom);
		return;
	}
	w->stats.iface[out->slot].tx_packets++;
	w->stats.iface[out->slot].tx_bytes += rte_pktmbuf_pkt_len(m);
	w->stats.forwarded++;
	if (unlikely(mac == 0)) {
		/* the control thread holds it and writes the MAC once resolved */
		worker_punt(w, m, family == AF_INET ? PUNT_RESOLVE : PUNT_RESOLVE6, out->port,
			    out->vlan, gw);
		return;
	}
	worker_tx(w, out->port, m);
}

/* RFC 1812 §5.3.7 / §4.2.2.11: addresses that are never forwarded. */
static inline bool martian(uint32_t src, uint32_t dst)
{
	uint8_t s = (uint8_t)(src >> 24), d = (uint8_t)(dst >> 24);

	return s == 0 || s == 127 || s >= 224 || d == 0 || d == 127 || d >= 224;
}

/*
 * Fragment a datagram too large for @p out (RFC 791 §3.2, "Fragmentation
 * and Reassembly") with rte_ip_frag: each fragment is a new header mbuf
 * chained to the original payload (indirect mbufs, no copy).
 */
static void ip4_fragment(struct worker *w, struct rte_mbuf *m, uint16_t l2_len,
			 const struct fwd_iface *out, uint64_t mac, uint32_t gw)
{
	struct rte_mbuf *frags[128];
	int n;

	rte_pktmbuf_adj(m, l2_len);
	n = rte_ipv4_fragment_packet(m, frags, RTE_DIM(frags), out->mtu, dp.pool, dp.indirect_pool);
	rte_pktmbuf_free(m);
	if (n < 0) {
		w->stats.drops[drop_frag_failed.id]++;
		return;
	}
	for (int i = 0; i < n; i++) {
		struct rte_mbuf *f = frags[i];
		struct rte_ipv4_hdr *fh = rte_pktmbuf_mtod(f, struct rte_ipv4_hdr *);

		fh->hdr_checksum = 0;
		fh->hdr_checksum = rte_ipv4_cksum(fh);
		w->stats.fragments++;
		worker_output(w, f, 0, out, mac, AF_INET, &gw);
	}
}

static void local_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			const struct fwd_iface *in, const struct pkt_ctx *c)
{
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    c->l2.l2_len + c->ip.hdr_len);

	if (c->ip.proto == IPPROTO_ICMP && !c->ip.fragment &&
	    c->ip.total_len >= c->ip.hdr_len + 8 && l4[0] == ICMP_ECHO_REQUEST) {
		/* RFC 792: a reply built on a bad checksum would carry it on */
		if (unlikely(m->nb_segs == 1 &&
			     inet_checksum(l4, (uint32_t)(c->ip.total_len - c->ip.hdr_len)) != 0)) {
			worker_drop(w, m, &drop_icmp_bad_checksum);
			return;
		}
		icmp_echo_reply(w, st, m, in, &c->l2, &c->ip);
		return;
	}
	if (c->ip.proto == IPPROTO_UDP && !c->decapped && tunnel_input(w, st, m, c))
		return;
	worker_drop(w, m, &drop_unsupported_local);
}

void ip4_forward(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 struct pkt_ctx *c, uint64_t fibnh)
{
	const struct fwd_iface *in = &st->ifaces[c->iface];
	uint32_t kind = FIB_NH_KIND(fibnh), idx = FIB_NH_INDEX(fibnh);

	if (kind == FIB_KIND_LOCAL) {
		local_input(w, st, m, in, c);
		return;
	}
	if (unlikely(kind == FIB_KIND_BCAST)) {
		worker_drop(w, m, &drop_directed_broadcast);
		return;
	}
	if (kind == FIB_KIND_NONE) {
		icmp_error(w, st, m, in, &c->l2, &c->ip, ICMP_DEST_UNREACH, ICMP_NET_UNREACH, 0);
		worker_drop(w, m, &drop_no_route);
		return;
	}
	if (c->ip.ttl <= 1) {
		icmp_error(w, st, m, in, &c->l2, &c->ip, ICMP_TIME_EXCEEDED, 0, 0);
		worker_drop(w, m, &drop_ttl_expired);
		return;
	}
	if (kind == FIB_KIND_PATHGRP) {
		tunnel_output(w, st, m, c, &st->path_groups[idx]);
		return;
	}
	idx = fwd_nexthop_select(st, fibnh, kind == FIB_KIND_ECMP ? flow_hash_ipv4(&c->ip) : 0);
	const struct fwd_nexthop *nh = &st->nexthops[idx];
	const struct fwd_iface *out = &st->ifaces[nh->iface];

	if (unlikely(c->ip.total_len > out->mtu)) {
		if (c->ip.df) {
			icmp_error(w, st, m, in, &c->l2, &c->ip, ICMP_DEST_UNREACH,
				   ICMP_FRAG_NEEDED, out->mtu);
			worker_drop(w, m, &drop_mtu_exceeded);
			return;
		}
	}

	struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, c->l2.l2_len);
	ip4_ttl_decrement(ih);

	uint32_t gw = nh->gw ? nh->gw : c->ip.dst;
	uint64_t mac = nh->gw ? atomic_load_explicit(&nh->mac, memory_order_acquire)
			      : neigh_lookup(out->port, out->vlan, gw);
	if (unlikely(c->ip.total_len > out->mtu)) {
		ip4_fragment(w, m, c->l2.l2_len, out, mac, gw);
		return;
	}
	worker_output(w, m, c->l2.l2_len, out, mac, AF_INET, &gw);
}

/* IPv4 checks of pass 1 (after L2). Returns false when the packet was consumed. */
static bool classify_ip4(struct worker *w, struct rte_mbuf *m, struct pkt_ctx *c)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	bool csum_ok = !c->decapped &&
		       (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	const struct drop_reason *why;

	if (unlikely(!parse_ipv4(p + c->l2.l2_len, len - c->l2.l2_len, csum_ok, &c->ip, &why)))
		goto drop;
	if (unlikely(martian(c->ip.src, c->ip.dst))) {
		why = &drop_martian;
		goto drop;
	}
	/* Ethernet pads short frames (IEEE 802.3 §3.2.8): drop the padding. */
	uint32_t frame = c->l2.l2_len + c->ip.total_len;
	if (rte_pktmbuf_pkt_len(m) > frame &&
	    unlikely(rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - frame) < 0)) {
		/* more trailing bytes than the last segment holds: not padding */
		why = &drop_bad_length;
		goto drop;
	}
	return true;
drop:
	worker_drop(w, m, why);
	return false;
}

void ip4_output_local(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		      uint16_t iface)
{
	struct pkt_ctx c = { .iface = iface, .decapped = true };
	const struct drop_reason *why;
	uint64_t nh;

	c.l2.l2_len = 14;
	c.l2.ethertype = ETHERTYPE_IPV4;
	if (unlikely(!parse_ipv4(rte_pktmbuf_mtod_offset(m, const uint8_t *, 14),
				 rte_pktmbuf_data_len(m) - 14, true, &c.ip, &why))) {
		worker_drop(w, m, why);
		return;
	}
	/* Routed like a received packet: it leaves with TTL 63, one hop
	 * spent on the way out of vbrd, which traceroute does not mind. */
	rte_fib_lookup_bulk(st->fib, &c.ip.dst, &nh, 1);
	ip4_forward(w, st, m, &c, nh);
}

void worker_input_decapped(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			   uint16_t iface)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct fwd_iface *in = &st->ifaces[iface];
	struct pkt_ctx c = { .iface = iface, .decapped = true };
	const struct drop_reason *why;
	uint64_t nh;

	w->stats.iface[in->slot].rx_packets++;
	w->stats.iface[in->slot].rx_bytes += rte_pktmbuf_pkt_len(m);
	if (unlikely(!parse_l2(p, rte_pktmbuf_data_len(m), &c.l2, &why))) {
		worker_drop(w, m, why);
		return;
	}
	switch (c.l2.ethertype) {
	case ETHERTYPE_IPV4:
		if (!classify_ip4(w, m, &c))
			return;
		rte_fib_lookup_bulk(st->fib, &c.ip.dst, &nh, 1);
		ip4_forward(w, st, m, &c, nh);
		return;
	case ETHERTYPE_IPV6: {
		/* a burst of one: decapsulation happens packet by packet */
		static __thread struct ip6_burst one;
		one.n = 0;
		ip6_classify(w, st, m, &c.l2, in, true, &one);
		if (one.n == 1)
			one.ctx[0].decapped = true;
		ip6_route_burst(w, st, &one);
		return;
	}
	default:
		worker_drop(w, m, &drop_unknown_ethertype);
	}
}

/* Pass 1: parse and validate. Returns false when the packet was consumed. */
static bool classify(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		     struct pkt_ctx *c, struct ip6_burst *b6)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	const struct drop_reason *why;

	if (unlikely(!parse_l2(p, len, &c->l2, &why)))
		goto drop;
	if (unlikely(m->port >= st->nb_port_ids ||
		     (c->iface = st->iface_by_vlan[m->port][c->l2.vlan]) == FWD_NO_IFACE)) {
		why = &drop_unknown_vlan;
		goto drop;
	}
	const struct fwd_iface *in = &st->ifaces[c->iface];
	w->stats.iface[in->slot].rx_packets++;
	w->stats.iface[in->slot].rx_bytes += rte_pktmbuf_pkt_len(m);

	const struct rte_ether_addr *dst = (const struct rte_ether_addr *)p;
	bool to_us = rte_is_same_ether_addr(dst, &in->mac);

	c->decapped = false;
	switch (c->l2.ethertype) {
	case ETHERTYPE_IPV4:
		if (unlikely(!to_us)) {
			why = &drop_not_for_us;
			goto drop;
		}
		return classify_ip4(w, m, c);
	case ETHERTYPE_IPV6:
		ip6_classify(w, st, m, &c->l2, in, to_us, b6);
		return false;
	case ETHERTYPE_ARP:
		if (!to_us && !rte_is_broadcast_ether_addr(dst)) {
			why = &drop_not_for_us;
			goto drop;
		}
		pkt_meta(m)->l2_len = (uint8_t)c->l2.l2_len;
		worker_punt(w, m, PUNT_ARP, m->port, c->l2.vlan, NULL);
		return false;
	default:
		why = &drop_unknown_ethertype;
		goto drop;
	}
drop:
	worker_drop(w, m, why);
	return false;
}

static void process_burst(struct worker *w, const struct fwd_state *st, struct rte_mbuf **pkts,
			  uint16_t n)
{
	struct pkt_ctx ctx[WORKER_MAX_BURST];
	struct rte_mbuf *ok[WORKER_MAX_BURST];
	uint32_t dst[WORKER_MAX_BURST];
	uint64_t nh[WORKER_MAX_BURST];
	unsigned nb_ok = 0;
	struct ip6_burst b6;

	b6.n = 0;

	w->stats.rx_packets += n;
	for (uint16_t i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		if (classify(w, st, pkts[i], &ctx[nb_ok], &b6)) {
			dst[nb_ok] = ctx[nb_ok].ip.dst;
			ok[nb_ok++] = pkts[i];
		}
	}
	ip6_route_burst(w, st, &b6);
	if (nb_ok == 0)
		return;
	rte_fib_lookup_bulk(st->fib, dst, nh, nb_ok);
	for (unsigned i = 0; i < nb_ok; i++)
		ip4_forward(w, st, ok[i], &ctx[i], nh[i]);
}

static void drain_inject(struct worker *w)
{
	struct rte_mbuf *pkts[64];
	unsigned n = rte_ring_dequeue_burst(w->inject, (void **)pkts, RTE_DIM(pkts), NULL);

	for (unsigned i = 0; i < n; i++)
		worker_tx(w, pkt_meta(pkts[i])->port, pkts[i]);
}

int worker_main(void *arg)
{
	struct worker *w = arg;
	struct rte_mbuf *pkts[WORKER_MAX_BURST];
	unsigned idle = 0;

	w->thread = pthread_self();
	atomic_store(&w->thread_known, true);
	w->icmp_last_tsc = rte_get_tsc_cycles();
	w->icmp_tokens = w->icmp_depth * rte_get_tsc_hz();
	rte_rcu_qsbr_thread_register(dp.rcu, w->id);
	rte_rcu_qsbr_thread_online(dp.rcu, w->id);

	while (!atomic_load_explicit(&dp.stop, memory_order_relaxed)) {
		const struct fwd_state *st = atomic_load_explicit(&fwd_current,
								  memory_order_acquire);
		unsigned total = 0;

		for (uint16_t q = 0; q < w->nb_rxq; q++) {
			uint16_t n = rte_eth_rx_burst(w->rxq[q].port, w->rxq[q].queue, pkts,
						      (uint16_t)w->burst);
			if (n) {
				process_burst(w, st, pkts, n);
				total += n;
			}
		}
		drain_inject(w);
		tx_flush(w);
		rte_rcu_qsbr_quiescent(dp.rcu, w->id);

		/* On a lab machine shared with hosts and tools, an idle worker
		 * backs off (grows to idle_sleep_us) instead of spinning. */
		if (total == 0 && w->idle_sleep_us) {
			if (++idle > 64) {
				struct timespec ts = { 0, (long)w->idle_sleep_us * 1000 };
				rte_rcu_qsbr_thread_offline(dp.rcu, w->id);
				nanosleep(&ts, NULL);
				rte_rcu_qsbr_thread_online(dp.rcu, w->id);
			}
		} else {
			idle = 0;
		}
	}
	rte_rcu_qsbr_thread_offline(dp.rcu, w->id);
	rte_rcu_qsbr_thread_unregister(dp.rcu, w->id);
	atomic_store(&w->returned, true);
	return 0;
}

/* SIGUSR1 only interrupts a worker's blocking system call (EINTR). */
static void on_poke(int sig)
{
	(void)sig;
}

unsigned worker_stop_all(void)
{
	struct sigaction sa;
	struct timespec poke = { 0, WORKER_STOP_POKE_MS * 1000000L };
	unsigned waited = 0;

	atomic_store(&dp.stop, true);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_poke; /* no SA_RESTART: the call returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (;;) {
		bool all = true;

		for (unsigned i = 0; i < dp.nb_workers; i++) {
			struct worker *w = &dp.workers[i];
			if (atomic_load(&w->returned))
				continue;
			all = false;
			/* not yet in worker_main: it will see dp.stop at once */
			if (atomic_load(&w->thread_known))
				pthread_kill(w->thread, SIGUSR1);
		}
		if (all)
			return waited;
		nanosleep(&poke, NULL);
		waited += WORKER_STOP_POKE_MS;
	}
}
