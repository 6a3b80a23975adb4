/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMP (RFC 792) as a router answers it: echo replies for own addresses and
 * the error messages of RFC 1812 §4.3, rate-limited per worker.
 */
#ifndef VBRD_ICMP_H
#define VBRD_ICMP_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "pipeline/fwd.h"
#include "pipeline/parse.h"
#include "pipeline/ip4.h"

#define ICMP_ECHO_REPLY    0
#define ICMP_DEST_UNREACH  3
#define ICMP_ECHO_REQUEST  8
#define ICMP_TIME_EXCEEDED 11
#define ICMP_NET_UNREACH   0 /* code of ICMP_DEST_UNREACH */
#define ICMP_FRAG_NEEDED   4 /* code of ICMP_DEST_UNREACH (RFC 1191) */

/**
 * Take one token from the worker's ICMP error bucket (RFC 1812 §4.3.2.8,
 * RFC 4443 §2.4 (f)): icmp.rate_pps tokens a second, icmp.burst deep,
 * shared by ICMP and ICMPv6 errors. Counts icmp_rate_limited when empty.
 *
 * @param w  the worker
 * @return   true when an error may be sent now
 */
bool icmp_allow(struct worker *w);

/**
 * Turn an echo request to an own address into its reply in place and send
 * it back out of the interface it came in on (RFC 792, RFC 1122 §3.2.2.6);
 * a request that came out of a tunnel is answered by route (ip4_output_local).
 *
 * @param w     the worker
 * @param st    the forwarding state of this burst
 * @param m     the request; consumed (sent or dropped)
 * @param in    interface it arrived on
 * @param l2    its L2 header facts
 * @param ip    its IPv4 header facts
 */
void icmp_echo_reply(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		     const struct fwd_iface *in, const struct pkt_l2 *l2,
		     const struct pkt_ipv4 *ip);

/**
 * Send an ICMP error about @p m back towards its source, out of @p in
 * (RFC 1812 §4.3.2: quote as much of the datagram as fits in 576 bytes;
 * never about an ICMP error, a non-first fragment, or a multicast source
 * or destination; at most icmp.rate_pps per second). Never to a source
 * that is the limited broadcast or any connected subnet's directed
 * broadcast or network address (RFC 1812 §4.3.2.7, §5.3.7): those are
 * counted as icmp_suppressed_broadcast.
 *
 * Errors about traffic that came out of a tunnel are routed back
 * (ip4_output_local), not sent out of an interface.
 *
 * @param w      the worker
 * @param st     the forwarding state of this burst
 * @param m      the offending packet, not consumed
 * @param in     interface it arrived on (the reply's source address)
 * @param l2     its L2 header facts
 * @param ip     its IPv4 header facts
 * @param type   ICMP type (ICMP_DEST_UNREACH, ICMP_TIME_EXCEEDED)
 * @param code   ICMP code
 * @param mtu    next-hop MTU for ICMP_FRAG_NEEDED (RFC 1191 §4), bytes; else 0
 */
void icmp_error(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		const struct fwd_iface *in, const struct pkt_l2 *l2, const struct pkt_ipv4 *ip,
		uint8_t type, uint8_t code, uint16_t mtu);

#endif
