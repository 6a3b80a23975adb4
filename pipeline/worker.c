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
#include "pipeline/local.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/parse.h"
#include "pipeline/ip4.h"

DROP_REASON(drop_unknown_ethertype, "eth", "unknown_ethertype",
	    "neither ARP, IPv4, IPv6 nor 802.1Q");
DROP_REASON(drop_unknown_vlan, "eth", "unknown_vlan", "no interface for this port and VLAN");
DROP_REASON(drop_not_for_us, "eth", "not_for_us", "unicast frame to another MAC");

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
		if (!ip4_input_check(w, m, &c))
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
		return ip4_input_check(w, m, c);
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
						      (uint16_t)st->cfg.workers.burst);
			if (n) {
				process_burst(w, st, pkts, n);
				total += n;
			}
		}
		drain_inject(w);
		worker_tx_flush(w);
		/* st may be freed once this worker reports quiescence: read first */
		uint32_t idle_sleep_us = st->cfg.workers.idle_sleep_us;
		rte_rcu_qsbr_quiescent(dp.rcu, w->id);

		/* On a lab machine shared with hosts and tools, an idle worker
		 * backs off (grows to idle_sleep_us) instead of spinning. */
		if (total == 0 && idle_sleep_us) {
			if (++idle > 64) {
				struct timespec ts = { 0, (long)idle_sleep_us * 1000 };
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
