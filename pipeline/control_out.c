/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the control thread's packet work (ARP in control.c, ND in nd.c)
 * sends and drops through: the inject ring of worker 0, the control
 * thread's own counters, the release of packets held for a neighbor.
 * Below both, so neither calls the other for it.
 */
#include <time.h>

#include <rte_ether.h>

#include "pipeline/control.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/output.h"

struct arp_stats arp_stats;
struct worker_stats control_stats;

uint64_t control_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void control_drop(struct rte_mbuf *m, const struct drop_reason *why)
{
	/* atomic: the HA thread sends announcements too (control_tx) */
	__atomic_fetch_add(&control_stats.drops[why->id], 1, __ATOMIC_RELAXED);
	rte_pktmbuf_free(m);
}

void control_tx(struct rte_mbuf *m, uint16_t port)
{
	pkt_meta(m)->port = port;
	if (rte_ring_enqueue(dp.workers[0].inject, m) != 0)
		control_drop(m, &drop_tx_full);
}

void neigh_flush_held(struct neigh *n)
{
	struct rte_ether_addr mac;

	neigh_mac_to_ether(atomic_load(&n->mac), &mac);
	for (uint16_t i = 0; i < n->nb_held; i++) {
		struct rte_mbuf *m = n->held[i];
		rte_ether_addr_copy(&mac, &rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr);
		arp_stats.resolved_sent++;
		control_tx(m, n->key.port);
	}
	neigh_tbl.held_total -= n->nb_held;
	n->nb_held = 0;
}
