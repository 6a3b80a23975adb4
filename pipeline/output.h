/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The output layer (output.c): every packet bound for a port leaves
 * through worker_tx(), every packet for the control thread through
 * worker_punt(), every dropped one through worker_drop().
 */
#ifndef VBRD_OUTPUT_H
#define VBRD_OUTPUT_H

#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "core/drop.h"
#include "pipeline/fwd.h"
#include "pipeline/meta.h"
#include "pipeline/worker.h"

DROP_REASON_DECLARE(drop_tx_full);
DROP_REASON_DECLARE(drop_control_ring_full);
DROP_REASON_DECLARE(drop_no_mbuf);
DROP_REASON_DECLARE(drop_no_headroom);

/**
 * Transmit what @p w buffered for @p port now (a full buffer; the flush).
 * A port in w->sched_ports hands its packets to the egress scheduler instead.
 */
void worker_tx_send(struct worker *w, uint16_t port);

/**
 * Transmit @p n packets on @p port at once, bypassing TX buffers and any
 * egress scheduler (rte_eth_tx_burst() on @p w's queue); what the queue
 * does not take is dropped as tx_full.
 * @return packets sent
 */
unsigned worker_tx_now(struct worker *w, uint16_t port, struct rte_mbuf **pkts, unsigned n);

/**
 * An egress scheduler: takes (owns) the @p n packets @p w would transmit
 * on @p port, a port in w->sched_ports.
 */
typedef void (*worker_egress_fn)(struct worker *w, uint16_t port, struct rte_mbuf **pkts,
				 unsigned n);

/** Install the egress scheduler (qos/, from a constructor); one only, aborts on a second. */
void worker_egress_register(worker_egress_fn fn);

_Static_assert(RTE_MAX_ETHPORTS <= 32, "worker.tx_dirty has one bit per port");

/**
 * worker_tx() of @p n packets for one @p port at once (the fast path's
 * whole burst): one copy into the TX buffer, sent when it fills.
 */
static inline void worker_tx_bulk(struct worker *w, uint16_t port, struct rte_mbuf **pkts,
				  unsigned n)
{
	struct tx_buffer *b = &w->tx[port];

	w->tx_dirty |= 1u << port;
	while (n) {
		if (b->n == WORKER_TXB)
			worker_tx_send(w, port);
		unsigned k = RTE_MIN(n, (unsigned)(WORKER_TXB - b->n)), at = b->n;
		memcpy(&b->pkts[at], pkts, k * sizeof(*pkts));
		b->n = (uint16_t)(at + k);
		pkts += k;
		n -= k;
	}
}

/**
 * The egress point: buffer @p m for transmission on @p port by @p w; the
 * buffer goes to rte_eth_tx_burst() when full and at the end of each turn
 * of the poll loop (worker_tx_flush()). A full TX queue drops as tx_full.
 */
static inline void worker_tx(struct worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct tx_buffer *b = &w->tx[port];

	if (unlikely(b->n == WORKER_TXB))
		worker_tx_send(w, port);
	b->pkts[b->n++] = m;
	w->tx_dirty |= 1u << port; /* port < RTE_MAX_ETHPORTS (32) */
}

/** Transmit every buffered packet of @p w (end of a poll-loop turn). */
void worker_tx_flush(struct worker *w);

/**
 * Hand @p m to the control thread (a ring: never blocks; a full ring drops
 * it as control_ring_full). @p nh is the next hop to resolve: a uint32_t in
 * host order for PUNT_RESOLVE, 16 bytes for PUNT_RESOLVE6, else NULL.
 */
void worker_punt(struct worker *w, struct rte_mbuf *m, enum punt_kind kind, uint16_t port,
		 uint16_t vlan, const void *nh);

/**
 * Send a routed packet out of @p out: its @p in_l2 leading bytes (0, 14 or
 * 18) become @p out's L2 header, it is counted as forwarded and on @p out,
 * then queued, or punted while next hop @p gw resolves (@p mac 0).
 *
 * @param mac     next hop MAC, neigh.h encoding; 0 = unresolved
 * @param family  AF_INET (@p gw a uint32_t, host order) or AF_INET6 (16 bytes)
 */
void worker_output(struct worker *w, struct rte_mbuf *m, uint16_t in_l2,
		   const struct fwd_iface *out, uint64_t mac, int family, const void *gw);

/** Count and free a packet dropped for @p why. */
static inline void worker_drop(struct worker *w, struct rte_mbuf *m, const struct drop_reason *why)
{
	w->stats.drops[why->id]++;
	rte_pktmbuf_free(m);
}

#endif
