/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 input and forwarding (ip4.c). */
#ifndef VBRD_IP4_H
#define VBRD_IP4_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "pipeline/fwd.h"
#include "pipeline/output.h"
#include "pipeline/worker.h"

DROP_REASON_DECLARE(drop_ttl_expired);
DROP_REASON_DECLARE(drop_no_route);
DROP_REASON_DECLARE(drop_mtu_exceeded);
DROP_REASON_DECLARE(drop_unsupported_local);
DROP_REASON_DECLARE(drop_martian);
DROP_REASON_DECLARE(drop_directed_broadcast);
DROP_REASON_DECLARE(drop_frag_failed);
DROP_REASON_DECLARE(drop_ipv6_multicast);
DROP_REASON_DECLARE(drop_icmp_bad_checksum);

/**
 * IPv4 checks of pass 1, after L2 (RFC 1812 §5.2.2): header (parse_ipv4),
 * martian source or destination (RFC 1812 §5.3.7), Ethernet padding trimmed.
 * @p c->l2, c->iface and c->decapped are set by the caller; c->ip is filled.
 * @return true when the packet may be routed; false when it was dropped
 */
bool ip4_input_check(struct worker *w, struct rte_mbuf *m, struct pkt_ctx *c);

/**
 * Route an IPv4 packet whose FIB lookup gave @p fibnh: deliver locally,
 * answer with an ICMP error, or rewrite and queue it (RFC 1812 §5.2).
 */
void ip4_forward(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 struct pkt_ctx *c, uint64_t fibnh);

/**
 * Send an IPv4 packet vbrd originates (an echo reply or ICMP error about
 * traffic that came out of a tunnel) by route, as if received on @p iface:
 * @p m starts with 14 spare bytes for the L2 header, then the IPv4 header.
 */
void ip4_output_local(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		      uint16_t iface);

/** TTL decrement with the incremental checksum update of RFC 1624 §3. */
static inline void ip4_ttl_decrement(struct rte_ipv4_hdr *ih)
{
	uint32_t sum = (uint32_t)ih->hdr_checksum + rte_cpu_to_be_16(0x0100);

	ih->time_to_live--;
	ih->hdr_checksum = (uint16_t)(sum + (sum >> 16));
}

#endif
