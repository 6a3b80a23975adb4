/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Next-hop kinds that features own. A FIB entry's value carries a kind
 * (fwd.h FIB_KIND_*): direct and ECMP next hops, local and broadcast
 * addresses are the core's; a route to a path group (pipeline/tunnel) or
 * a failover group (failover/bfd) resolves through the handler of its
 * kind, so IPv4 and IPv6 forwarding never name the feature. A feature
 * gets its kind's number from fwd_nh_kind_register(); a route names it
 * through the route target of the same name (core/config.h
 * route_target_register()).
 */
#ifndef VBRD_NH_KIND_H
#define VBRD_NH_KIND_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "pipeline/fwd.h"
#include "pipeline/ip4.h"
#include "pipeline/ip6.h"

#define FIB_KIND_MAX 8 /* FIB_NH_KIND() is 3 bits */

/** How packets routed to a next hop of this kind leave (data path). */
struct fwd_nh_kind {
	const char *name; /* "path_group": for a feature's kind, its route target's key too */
	/**
	 * An IPv4 packet whose TTL is checked (not yet decremented) and whose
	 * route gave this kind with index @p idx; the handler owns @p m.
	 */
	void (*output4)(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			struct pkt_ctx *c, uint32_t idx);
	/**
	 * Optional: the same for @p n packets of the IPv4 fast path at once
	 * (worker.c fast4_ok(): untagged, a 20-byte header, no fragment, TTL
	 * above 1, the frame exactly its total length; no per-packet context),
	 * so that counters and TX are summed per burst. @p fibnh holds each
	 * packet's FIB value, this kind's for the first one. The handler
	 * takes packets in order and stops, leaving it untouched, at the
	 * first whose FIB kind is another (the caller routes it) or that it
	 * leaves for the general path (output4() with its context: ICMP
	 * errors, fragmentation, drops). What it took is queued for TX before
	 * it returns, so no packet of a flow overtakes another.
	 *
	 * @return  how many leading packets of @p pkts it took (0..n)
	 */
	unsigned (*output4_burst)(struct worker *w, const struct fwd_state *st,
				  struct rte_mbuf **pkts, const uint64_t *fibnh, unsigned n);
	/** The same for IPv6 (hop limit checked, not decremented). */
	void (*output6)(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			const struct ip6_ctx *c, uint32_t idx);
	/**
	 * Optional: whether every index of this kind that a FIB value of
	 * configuration @p prev carries names the same object in @p next
	 * (prev's objects a prefix of next's, by name). When it is not, a
	 * reload builds a fresh FIB rather than changing the running one in
	 * place (fwd_state_build()).
	 */
	bool (*same_indexes)(const struct vbrd_config *prev, const struct vbrd_config *next);
	/**
	 * Optional: a kind that only picks another FIB value for a packet (a
	 * failover group picks its active member's next hop) says which, so
	 * that the IPv4 fast path routes the packet to it as to any direct
	 * next hop. @p flow_hash is the packet's (fast4_flow_hash()). The
	 * fast path takes a FIB_KIND_NEXTHOP or FIB_KIND_ECMP result; any
	 * other sends the packet to output4() as without this hook.
	 */
	uint64_t (*resolve4)(const struct fwd_state *st, uint32_t idx, uint32_t flow_hash);
	/**
	 * Optional: whether packets routed to object @p idx of @p st can leave
	 * by interface @p iface (fwd_route_via_iface()). A kind without it is
	 * never an interface's.
	 */
	bool (*via_iface)(const struct fwd_state *st, uint32_t idx, uint16_t iface);
	/**
	 * Optional: whether a next hop that a routing protocol installs routes
	 * through (frr/fpm) is a member of one of this kind's objects - a
	 * failover group's line and its gateway: the routes then point at the
	 * object (its index into @p idx), so that its one-store switch moves
	 * them too. Main lcore.
	 * @param k  family, interface index of @p st, gateway
	 */
	bool (*covers_nexthop)(const struct fwd_state *st, const struct fib_nh_key *k,
			       uint32_t *idx);
	/** Optional: the name of object @p idx of @p st (show routes), or NULL. */
	const char *(*object_name)(const struct fwd_state *st, uint32_t idx);
};

/** Kinds by number; NULL for the core's own and unused ones. */
extern const struct fwd_nh_kind *fwd_nh_kinds[FIB_KIND_MAX];

/**
 * Give a feature a FIB kind of its own (from a constructor).
 * @return the kind's number (FIB_KIND_FEATURE..FIB_KIND_MAX-1), for its
 *         FIB_NH() values. Aborts when every kind is taken or the name is
 *         a registered kind's (programming errors).
 */
unsigned fwd_nh_kind_register(const struct fwd_nh_kind *k);

/** Set the handler of the pipeline's own kind @p kind (FIB_KIND_PATHGRP). Aborts when taken. */
void fwd_nh_kind_set(unsigned kind, const struct fwd_nh_kind *k);

/**
 * Whether FIB value @p value of @p st sends packets out by interface
 * @p iface: a next hop's interface, any member of an ECMP set, any path of
 * a path group (its tunnel's interface: what comes back through the
 * tunnel arrives there), a feature kind's via_iface. Any thread that
 * holds @p st.
 */
bool fwd_value_via_iface(const struct fwd_state *st, uint64_t value, uint16_t iface);

/**
 * A reverse-path check: whether the route to @p addr in @p st leaves by
 * interface @p iface, so that a packet from @p addr that came in by it
 * came the way its sender is reached (RFC 3704 §2.2, strict; BFD multihop
 * uses it, RFC 5883 §5). One FIB lookup.
 * @param family  AF_INET or AF_INET6
 * @param addr    IPv4: a uint32_t in host order; IPv6: 16 bytes, network
 *                order (as struct local_pkt's src)
 */
bool fwd_route_via_iface(const struct fwd_state *st, int family, const void *addr, uint16_t iface);

/**
 * The kind registered as @p name (a route's target key, core/config.h).
 * @return its number, or -ENOENT
 */
int fwd_nh_kind_find(const char *name);

#endif
