/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 Neighbor Discovery (RFC 4861) on the control thread: answer
 * Neighbor Solicitations for own addresses, learn neighbors from
 * solicitations and advertisements, and solicit next hops that workers
 * punted (PUNT_RESOLVE6). Entries live in the shared neighbor table and
 * follow control.c's state machine (retries, hold queue, re-probing).
 */
#ifndef VBRD_ND_H
#define VBRD_ND_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "pipeline/fwd.h"

struct nd_stats {
	uint64_t solicits_rx, adverts_rx, solicits_tx, adverts_tx;
	uint64_t ignored; /* target not ours (NS), or no entry waiting for it (NA) */
};

extern struct nd_stats nd_stats;

/**
 * Process a Neighbor Solicitation or Advertisement a worker validated
 * (RFC 4861 §7.1) and punted (PUNT_ND). A solicitation for an own address
 * (global or link-local) is answered with a solicited advertisement
 * (Router, Solicited and Override flags, target link-layer address option;
 * §7.2.4) and its sender learnt from the source link-layer address option;
 * an advertisement updates the entry of its target, if there is one
 * (§7.2.5), and sends the packets held for it.
 *
 * @param st  the running forwarding state
 * @param m   the frame (pkt_meta: ingress port and VLAN); consumed
 */
void nd_input(const struct fwd_state *st, struct rte_mbuf *m);

/**
 * Announce @p target (16 bytes) on @p fi: an unsolicited Neighbor
 * Advertisement to all-nodes (ff02::1) with the Override flag and @p mac
 * (NULL: fi's MAC) as target link-layer address and frame source (RFC 4861
 * §7.2.6), so that every node updates its entry. Control thread.
 */
void nd_announce(const struct fwd_iface *fi, const uint8_t *target,
		 const struct rte_ether_addr *mac);

/**
 * Send a Neighbor Solicitation for @p target out of @p fi (RFC 4861 §7.2.2)
 * with a source link-layer address option: to the target's solicited-node
 * multicast address, or to the target itself at @p mac when re-confirming
 * a known neighbor (§7.3.3). The source is an own address in the target's
 * subnet, else the link-local address.
 *
 * @param fi      interface to send on
 * @param target  address to resolve, 16 bytes, network order
 * @param mac     known MAC for a unicast probe, or NULL for multicast
 */
void nd_solicit(const struct fwd_iface *fi, const uint8_t *target,
		const struct rte_ether_addr *mac);

#endif
