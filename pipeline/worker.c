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
#include <rte_debug.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>

#include "core/tsc.h"
#include "pipeline/decap_input.h"
#include "pipeline/icmp.h"
#include "pipeline/ip6.h"
#include "pipeline/fast4.h"
#include "pipeline/l2.h"
#include "pipeline/output.h"
#include "pipeline/local.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/nh_kind.h"
#include "pipeline/parse.h"
#include "pipeline/ip4.h"

DROP_REASON(drop_unknown_ethertype, "eth", "unknown_ethertype",
	    "neither ARP, IPv4, IPv6 nor 802.1Q");
DROP_REASON(drop_unknown_vlan, "eth", "unknown_vlan", "no interface for this port and VLAN");
DROP_REASON(drop_not_for_us, "eth", "not_for_us", "unicast frame to another MAC");

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
	/* the ingress tag is gone once the frame is rewritten: its TCI stays
	 * in the mbuf for egress classification (qos/classify.h); untagged
	 * frames keep the PMD's 0 */
	if (c->l2.l2_len == 18)
		m->vlan_tci = rte_be_to_cpu_16(*(const uint16_t *)(p + 14));
	const struct fwd_iface *in = &st->ifaces[c->iface];
	w->stats.iface[in->slot].rx_packets++;
	w->stats.iface[in->slot].rx_bytes += rte_pktmbuf_pkt_len(m);

	const struct rte_ether_addr *dst = (const struct rte_ether_addr *)p;
	bool to_us = rte_is_same_ether_addr(dst, &in->mac);
	/* a gate's MAC is ours while the gate is open (fwd_gate) */
	if (unlikely(in->rx_gate != NULL) && !to_us && in->rx_gate->has_mac &&
	    rte_is_same_ether_addr(dst, &in->rx_gate->mac) &&
	    fwd_gate_open(in->rx_gate, rte_get_tsc_cycles()))
		to_us = true;

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

/* The general path's packets of one run: IPv4 with one FIB lookup, IPv6 (ip6.c). */
struct general_run {
	unsigned n;
	struct rte_mbuf *pkts[WORKER_MAX_BURST];
	struct pkt_ctx ctx[WORKER_MAX_BURST];
	uint32_t dst[WORKER_MAX_BURST];
	struct ip6_burst b6;
};

/* classify() @p m into @p g: an IPv4 packet to route joins the run. */
static inline void general_add(struct worker *w, const struct fwd_state *st, struct general_run *g,
			       struct rte_mbuf *m)
{
	if (classify(w, st, m, &g->ctx[g->n], &g->b6)) {
		g->dst[g->n] = g->ctx[g->n].ip.dst;
		g->pkts[g->n++] = m;
	}
}

static void general_flush(struct worker *w, const struct fwd_state *st, struct general_run *g)
{
	uint64_t nh[WORKER_MAX_BURST];

	ip6_route_burst(w, st, &g->b6);
	g->b6.n = 0;
	if (g->n) {
		/* one lookup per run of packets of one VRF (the ingress
		 * interface's FIB): one run in the common burst */
		for (unsigned i = 0, j; i < g->n; i = j) {
			struct rte_fib *fib = st->ifaces[g->ctx[i].iface].fib;
			for (j = i + 1; j < g->n && st->ifaces[g->ctx[j].iface].fib == fib; j++)
				;
			rte_fib_lookup_bulk(fib, g->dst + i, nh + i, j - i);
		}
		for (unsigned i = 0; i < g->n; i++)
			ip4_forward(w, st, g->pkts[i], &g->ctx[i], nh[i]);
		g->n = 0;
	}
}

/* What one received burst has gathered so far (process_burst()). */
struct burst_acc {
	struct rte_mbuf *fast[WORKER_MAX_BURST];
	uint32_t fdst[WORKER_MAX_BURST];
	unsigned nb_fast, nb_fast_all;
	uint64_t fast_bytes;
	struct general_run g;
};

/*
 * process_burst()'s loop for a port with an untagged interface, @p csum_port
 * a constant (the port verifies IPv4 checksums), so that each of its two
 * copies tests nothing per packet it need not.
 */
static inline __attribute__((always_inline)) void burst_loop(
	struct worker *w, const struct fwd_state *st, struct rte_mbuf **pkts, uint16_t n,
	uint16_t in_iface, uint64_t in_mac, const bool csum_port, struct burst_acc *a)
{
	bool general = false; /* a.g may hold packets */
	/* in registers, not through @p a (the calls below could change it) */
	unsigned nb_fast = 0;
	uint64_t fast_bytes = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t rx_len = m->pkt_len; /* as received: padding counts */

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		if (likely(fast4_ok(p, m, in_mac, 0xffffffffffffull,
				    csum_port && (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
							 RTE_MBUF_F_RX_IP_CKSUM_GOOD))) {
			uint32_t d;
			if (unlikely(general)) {
				general_flush(w, st, &a->g);
				general = false;
			}
			memcpy(&d, p + 30, 4);
			a->fdst[nb_fast] = rte_be_to_cpu_32(d);
			a->fast[nb_fast++] = m;
			fast_bytes += rx_len;
			continue;
		}
		if (nb_fast) {
			fast4_route(w, st, a->fast, a->fdst, nb_fast, in_iface, NULL);
			a->nb_fast_all += nb_fast;
			nb_fast = 0;
		}
		general = true;
		general_add(w, st, &a->g, m);
	}
	a->nb_fast = nb_fast;
	a->fast_bytes = fast_bytes;
}

/*
 * One received burst. Fast packets (fast4_ok()) and the general path's
 * are handled in runs of consecutive packets, each run routed with one
 * FIB lookup, so that no packet overtakes an earlier one of its flow (a
 * flow whose packets take both paths: IP options, fragments, TTL).
 */
static void process_burst(struct worker *w, const struct fwd_state *st, uint16_t port,
			  struct rte_mbuf **pkts, uint16_t n)
{
	struct burst_acc a;
	uint16_t in_iface = port < st->nb_port_ids ? st->iface_by_vlan[port][0] : FWD_NO_IFACE;

	a.nb_fast = a.nb_fast_all = 0; /* burst_loop() sets nb_fast and fast_bytes */
	a.fast_bytes = 0;
	a.g.n = 0;
	a.g.b6.n = 0;
	w->stats.rx_packets += n;
	/* a gated interface reads the TSC afresh: w->tsc is the turn's, and a
	 * node stopped (SIGSTOP) between the two must not forward by it */
	if (in_iface == FWD_NO_IFACE ||
	    unlikely(st->ifaces[in_iface].rx_gate != NULL &&
		     !fwd_gate_open(st->ifaces[in_iface].rx_gate, rte_get_tsc_cycles()))) {
		/* no untagged interface: 802.1Q sub-interfaces, or none; or the
		 * interface's gate is closed: ip4_forward() and ip6_forward()
		 * drop its transit, and what is for vbrd passes */
		for (uint16_t i = 0; i < n; i++)
			general_add(w, st, &a.g, pkts[i]);
	} else {
		uint64_t in_mac = 0;
		const struct fwd_gate *g = st->ifaces[in_iface].rx_gate;
		/* an open gate with a MAC: the fast path takes the frames to that
		 * one (the hosts' gateway); those to the port's own go the general way */
		memcpy(&in_mac,
		       (g != NULL && g->has_mac ? &g->mac : &st->ifaces[in_iface].mac)->addr_bytes,
		       6);
		/* the port verified the checksum of every packet it flags good */
		if (dp.rx_ipv4_cksum[port])
			burst_loop(w, st, pkts, n, in_iface, in_mac, true, &a);
		else
			burst_loop(w, st, pkts, n, in_iface, in_mac, false, &a);
		if (a.nb_fast) {
			fast4_route(w, st, a.fast, a.fdst, a.nb_fast, in_iface, NULL);
			a.nb_fast_all += a.nb_fast;
		}
		if (a.nb_fast_all) {
			struct iface_counters *ic = &w->stats.iface[st->ifaces[in_iface].slot];
			ic->rx_packets += a.nb_fast_all;
			ic->rx_bytes += a.fast_bytes;
		}
	}
	general_flush(w, st, &a.g);
	if (w->decap.n)
		decap_flush(w, st);
}

/* ARP, or ICMPv6 neighbor discovery (RS, RA, NS, NA, redirect: types
 * 133..137, RFC 4861 §4), tagged or not: what bypasses an egress scheduler. */
static bool inject_is_control(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), l2 = 14;

	if (len < 14)
		return true;
	if (p[12] == 0x81 && p[13] == 0x00)
		l2 = 18;
	if (len < l2)
		return true;
	uint16_t et = (uint16_t)(p[l2 - 2] << 8 | p[l2 - 1]);
	if (et == RTE_ETHER_TYPE_ARP)
		return true;
	if (et != RTE_ETHER_TYPE_IPV6 || len < l2 + 41)
		return false;
	return p[l2 + 6] == IPPROTO_ICMPV6 && p[l2 + 40] >= 133 && p[l2 + 40] <= 137;
}

/*
 * A packet the control thread held for its next hop's MAC (neigh_flush_held())
 * leaves now: count it on the interface of its port and VLAN, and as
 * forwarded when it was (pkt_meta.held_forwarded). A held packet the
 * resolution gives up on is counted as a drop only (arp_unresolved, ...).
 */
static void count_held(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m)
{
	const struct pkt_meta *pm = pkt_meta(m);
	uint16_t i;

	if (pm->port >= st->nb_port_ids || pm->vlan >= 4096 ||
	    (i = st->iface_by_vlan[pm->port][pm->vlan]) == FWD_NO_IFACE)
		return;
	w->stats.iface[st->ifaces[i].slot].tx_packets++;
	w->stats.iface[st->ifaces[i].slot].tx_bytes += rte_pktmbuf_pkt_len(m);
	w->stats.forwarded += pm->held_forwarded;
}

static void drain_inject(struct worker *w, const struct fwd_state *st)
{
	struct rte_mbuf *pkts[64];
	unsigned n = rte_ring_dequeue_burst(w->inject, (void **)pkts, RTE_DIM(pkts), NULL);

	/* control traffic (ARP, ND) leaves at once, around any egress
	 * scheduler: a line overloaded with data must not starve its neighbors.
	 * Data the control thread held for a neighbor (neigh_flush_held())
	 * takes the egress point like any routed packet: a QoS line classifies,
	 * remarks, polices and shapes it. */
	for (unsigned i = 0, j; i < n; i = j) {
		uint16_t port = pkt_meta(pkts[i])->port;
		if (!inject_is_control(pkts[i])) {
			count_held(w, st, pkts[i]);
			worker_tx(w, port, pkts[i]);
			j = i + 1;
			continue;
		}
		for (j = i + 1;
		     j < n && pkt_meta(pkts[j])->port == port && inject_is_control(pkts[j]); j++)
			;
		worker_tx_now(w, port, pkts + i, j - i);
	}
}

static const struct worker_hook *hooks[WORKER_MAX_HOOKS];
static unsigned nb_hooks;

void worker_hook_register(const struct worker_hook *h)
{
	if (nb_hooks == WORKER_MAX_HOOKS)
		rte_panic("worker hook %s: more than %d hooks\n", h->name, WORKER_MAX_HOOKS);
	hooks[nb_hooks++] = h;
}

int worker_main(void *arg)
{
	struct worker *w = arg;
	struct rte_mbuf *pkts[WORKER_MAX_BURST];
	unsigned idle = 0;

	w->thread = pthread_self();
	atomic_store(&w->thread_known, true);
	w->icmp_last_tsc = rte_get_tsc_cycles();
	w->icmp_tokens = w->icmp_depth * tsc_hz();
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
				w->tsc = rte_get_tsc_cycles();
				process_burst(w, st, w->rxq[q].port, pkts, n);
				total += n;
			}
		}
		drain_inject(w, st);
		worker_tx_flush(w);
		for (unsigned h = 0; h < nb_hooks; h++)
			total += hooks[h]->poll(w, st);
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
