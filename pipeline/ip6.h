/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 data path (RFC 8200 §3, RFC 4861 for what a router receives):
 * validate, punt Neighbor Discovery to the control thread, answer echo
 * requests to own addresses, route with rte_fib6 (one bulk lookup per
 * burst), decrement the hop limit, rewrite L2 and queue; ICMPv6 errors
 * (icmp6.h) for what cannot be forwarded.
 *
 * worker.c calls ip6_classify() for every IPv6 frame of a burst, then
 * ip6_route_burst() once.
 */
#ifndef VBRD_IP6_H
#define VBRD_IP6_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "pipeline/fwd.h"
#include "pipeline/meta.h"
#include "pipeline/parse.h"
#include "pipeline/parse6.h"
#include "pipeline/ip4.h"

/** Facts about one IPv6 packet of a burst. */
struct ip6_ctx {
	struct pkt_l2 l2;
	struct pkt_ipv6 ip;
	uint16_t iface; /* ingress interface index */
	bool decapped;  /* came out of a tunnel: never decapsulated again */
};

/** The IPv6 packets of a burst waiting for one rte_fib6_lookup_bulk(). */
struct ip6_burst {
	unsigned n;
	struct rte_mbuf *pkts[WORKER_MAX_BURST];
	struct ip6_ctx ctx[WORKER_MAX_BURST];
	uint8_t dst[WORKER_MAX_BURST][RTE_FIB6_IPV6_ADDR_SIZE];
	uint64_t nh[WORKER_MAX_BURST];
};

/**
 * Pass 1 for an IPv6 frame: accept it when it is for the interface's MAC
 * or an IPv6 multicast MAC (33:33:xx, RFC 2464 §7); validate the header
 * (parse_ipv6()); drop martians (multicast, loopback or, but for DAD, the
 * unspecified source; loopback or unspecified destination); punt valid
 * Neighbor Solicitations and Advertisements (PUNT_ND); drop other multicast
 * (ipv6_multicast); answer echo requests to the link-local address; queue
 * the rest in @p b for the FIB.
 *
 * @param w      the worker
 * @param st     the forwarding state of this burst
 * @param m      the frame; consumed, or queued in @p b
 * @param l2     its L2 facts (ethertype 0x86dd)
 * @param in     its ingress interface
 * @param to_us  the destination MAC is @p in's MAC
 * @param b      the burst's IPv6 queue
 */
void ip6_classify(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		  const struct pkt_l2 *l2, const struct fwd_iface *in, bool to_us,
		  struct ip6_burst *b);

/**
 * Pass 2: one rte_fib6_lookup_bulk() for the queued packets, then each is
 * answered locally (FIB_KIND_LOCAL), refused with an ICMPv6 error (no
 * route: Destination Unreachable code 0; hop limit <= 1: Time Exceeded;
 * larger than the egress MTU: Packet Too Big, RFC 8200 §5 — routers never
 * fragment), or forwarded: hop limit decremented, L2 rewritten with the
 * next hop's MAC, or punted (PUNT_RESOLVE6) while it resolves. Empties @p b.
 */
void ip6_route_burst(struct worker *w, const struct fwd_state *st, struct ip6_burst *b);

/**
 * Route one IPv6 packet whose FIB lookup gave @p fibnh, as ip6_route_burst()
 * does each of its packets (a feature's next-hop kind that resolves to
 * another FIB value, the failover group, calls it with the member's).
 */
void ip6_forward(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 const struct ip6_ctx *c, uint64_t fibnh);

/**
 * Write the L2 header for leaving by @p out (14 bytes, or 18 with its
 * 802.1Q tag; ethertype IPv6) in place of the @p in_l2 bytes @p m starts
 * with (0 for a packet that has none yet).
 *
 * @param m      packet starting at its L2 header (or its IPv6 header when @p in_l2 is 0)
 * @param in_l2  bytes of L2 header now in front of the IPv6 header: 0, 14 or 18
 * @param out    egress interface (source MAC and VLAN)
 * @param dst    destination MAC
 * @return       0, or -ENOSPC when the mbuf has no headroom left
 */
int ip6_l2_write(struct rte_mbuf *m, uint16_t in_l2, const struct fwd_iface *out,
		 const struct rte_ether_addr *dst);

#endif
