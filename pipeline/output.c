/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The output layer: the one egress point every stage sends through (TX
 * buffering per port, per-interface TX counters, the L2 header of routed
 * packets) and the punt to the control thread. The egress scheduler of
 * the QoS feature sits here.
 */
#include <string.h>
#include <sys/socket.h>

#include <rte_debug.h>
#include <rte_ethdev.h>

#include "pipeline/l2.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/output.h"

DROP_REASON(drop_tx_full, "output", "tx_full", "TX queue full");
DROP_REASON(drop_control_ring_full, "output", "control_ring_full", "control thread ring full");
DROP_REASON(drop_no_mbuf, "output", "no_mbuf", "mempool empty while building a reply");
DROP_REASON(drop_no_headroom, "output", "no_headroom",
	    "no room in front of the packet for its new L2 or outer headers");

static worker_egress_fn egress_sched;

void worker_egress_register(worker_egress_fn fn)
{
	if (egress_sched != NULL)
		rte_panic("a second egress scheduler\n");
	egress_sched = fn;
}

unsigned worker_tx_now(struct worker *w, uint16_t port, struct rte_mbuf **pkts, unsigned n)
{
	uint16_t sent = rte_eth_tx_burst(port, (uint16_t)w->id, pkts, (uint16_t)n);

	if (unlikely(sent < n)) {
		w->stats.drops[drop_tx_full.id] += n - sent;
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	}
	w->stats.tx_packets += sent;
	return sent;
}

void worker_tx_send(struct worker *w, uint16_t port)
{
	struct tx_buffer *b = &w->tx[port];

	if (unlikely(w->sched_ports & (1u << port)))
		egress_sched(w, port, b->pkts, b->n);
	else
		worker_tx_now(w, port, b->pkts, b->n);
	b->n = 0;
}

void worker_tx_flush(struct worker *w)
{
	uint32_t dirty = w->tx_dirty;

	w->tx_dirty = 0;
	while (dirty) {
		uint16_t port = (uint16_t)__builtin_ctz(dirty);
		dirty &= dirty - 1;
		if (w->tx[port].n)
			worker_tx_send(w, port);
	}
}

void worker_punt(struct worker *w, struct rte_mbuf *m, enum punt_kind kind, uint16_t port,
		 uint16_t vlan, const void *nh)
{
	struct pkt_meta *pm = pkt_meta(m);

	pm->punt = kind;
	pm->held_forwarded = 0;
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
	if (unlikely(mac == 0)) {
		/* the control thread holds it and writes the MAC once resolved;
		 * it counts as sent when it leaves (worker_count_held()), not
		 * when a resolution that may fail begins */
		worker_punt(w, m, family == AF_INET ? PUNT_RESOLVE : PUNT_RESOLVE6, out->port,
			    out->vlan, gw);
		pkt_meta(m)->held_forwarded = 1;
		return;
	}
	w->stats.iface[out->slot].tx_packets++;
	w->stats.iface[out->slot].tx_bytes += rte_pktmbuf_pkt_len(m);
	w->stats.forwarded++;
	worker_tx(w, out->port, m);
}
