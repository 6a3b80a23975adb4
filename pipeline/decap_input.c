/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A frame that came out of a tunnel re-enters the pipeline here, below
 * tunnel_input.c (decap_input.h): the common IPv4 packet waits in the
 * worker's decap queue for the burst's end, the rest is validated and
 * routed at once, like a received frame but never decapsulated again.
 */
#include <rte_fib.h>

#include "pipeline/decap_input.h"
#include "pipeline/fast4.h"
#include "pipeline/ip4.h"
#include "pipeline/ip6.h"
#include "pipeline/output.h"
#include "pipeline/parse.h"

void decap_flush(struct worker *w, const struct fwd_state *st)
{
	unsigned nd = w->decap.n;

	w->decap.n = 0; /* before routing: nothing they do queues here again */
	fast4_route(w, st, w->decap.pkts, w->decap.dst, nd, 0, w->decap.iface);
}

void decap_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m, uint16_t iface)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct fwd_iface *in = &st->ifaces[iface];
	struct pkt_ctx c;
	const struct drop_reason *why;
	uint64_t nh;

	/* The common packet waits for the burst's end. */
	uint32_t rx_len = m->pkt_len; /* as received: padding counts */
	if (likely(fast4_decap_queue(w, m, iface))) {
		w->stats.iface[in->slot].rx_packets++;
		w->stats.iface[in->slot].rx_bytes += rx_len;
		return;
	}
	/* a packet of the general path after queued ones of its tunnel: they go first */
	if (w->decap.n)
		decap_flush(w, st);
	c.iface = iface;
	c.decapped = true;
	w->stats.iface[in->slot].rx_packets++;
	w->stats.iface[in->slot].rx_bytes += rte_pktmbuf_pkt_len(
		m); /* fast4_ok() failed: untrimmed */
	if (unlikely(!parse_l2(p, rte_pktmbuf_data_len(m), &c.l2, &why))) {
		worker_drop(w, m, why);
		return;
	}
	switch (c.l2.ethertype) {
	case ETHERTYPE_IPV4:
		if (!ip4_input_check(w, m, &c))
			return;
		rte_fib_lookup_bulk(in->fib, &c.ip.dst, &nh, 1);
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
