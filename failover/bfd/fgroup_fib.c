/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The failover group's next-hop kind: a route whose FIB value is a group
 * forwards to its selected member's FIB value (a line's next hop, or the
 * DR tunnel's path group), read with one atomic load per packet. The BFD
 * worker moves a group with one atomic store (bfd_worker.c); every route
 * and flow of the group follows at once. With both members selected
 * (load-balance) the flow hash picks one, so a flow stays on its member.
 */
#include <string.h>

#include <rte_mbuf.h>

#include "failover/bfd/bfd.h"
#include "pipeline/fwd.h"
#include "pipeline/ip4.h"
#include "pipeline/ip6.h"
#include "pipeline/nh_kind.h"
#include "pipeline/output.h"
#include "pipeline/parse.h"
#include "pipeline/parse6.h"
#include "pipeline/worker.h"

DROP_REASON(drop_fgroup_no_member, "bfd", "fgroup_no_member",
	    "routed to a failover group whose selected member has no next hop of the family");

/* Handed out by fwd_nh_kind_register() (nh_kind.h) at start-up. */
static unsigned fgroup_fib_kind;

static const struct fgroup *group_at(const struct fwd_state *st, uint32_t idx)
{
	const struct bfd_gen *fo = bfd_gen_of(st);
	return fo != NULL && idx < (uint32_t)fo->nb_groups ? &fo->groups[idx] : NULL;
}

/*
 * The member a packet of group @p idx with flow hash @p hash takes (the
 * flow hash picks one when both are in use): its FIB value of the family
 * (@p v6), or FGROUP_NO_VALUE when the group is gone or the member has none.
 */
static uint32_t fg_member_value(const struct fwd_state *st, uint32_t idx, bool v6, uint32_t hash)
{
	const struct fgroup *g = group_at(st, idx);
	uint32_t sel;

	if (unlikely(g == NULL))
		return FGROUP_NO_VALUE;
	sel = atomic_load_explicit(&g->rt->sel, memory_order_acquire);
	if (sel == FGROUP_SEL_BOTH)
		sel = hash & 1;
	return v6 ? g->m[sel].value6 : g->m[sel].value4;
}

static void fg_output4(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		       struct pkt_ctx *c, uint32_t idx)
{
	uint32_t v = fg_member_value(st, idx, false, flow_hash_ipv4(&c->ip));

	if (unlikely(v == FGROUP_NO_VALUE)) {
		worker_drop(w, m, &drop_fgroup_no_member);
		return;
	}
	ip4_forward(w, st, m, c, v);
}

static void fg_output6(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		       const struct ip6_ctx *c, uint32_t idx)
{
	uint32_t v = fg_member_value(st, idx, true, flow_hash_ipv6(&c->ip));

	if (unlikely(v == FGROUP_NO_VALUE)) {
		worker_drop(w, m, &drop_fgroup_no_member);
		return;
	}
	ip6_forward(w, st, m, c, v);
}

/* Group indexes keep their meaning when the old groups are a prefix of the new, by name. */
static bool fg_same_indexes(const struct vbrd_config *prev, const struct vbrd_config *next)
{
	const struct bfd_config *a = bfd_config_get(prev), *b = bfd_config_get(next);
	int na = a ? a->nb_groups : 0, nb = b ? b->nb_groups : 0;

	if (na > nb)
		return false;
	for (int i = 0; i < na; i++)
		if (strcmp(a->groups[i].name, b->groups[i].name) != 0)
			return false;
	return true;
}

/* The fast path's question: which member's next hop a packet of @p flow_hash takes. */
static uint64_t fg_resolve4(const struct fwd_state *st, uint32_t idx, uint32_t flow_hash)
{
	uint32_t v = fg_member_value(st, idx, false, flow_hash);

	/* none: the general path (output4) names the drop */
	return v == FGROUP_NO_VALUE ? FIB_NH(fgroup_fib_kind, idx) : v;
}

/* A group leaves by a member's interface: either member's, whichever is selected now. */
static bool fg_via_iface(const struct fwd_state *st, uint32_t idx, uint16_t iface)
{
	const struct fgroup *g = group_at(st, idx);

	for (int k = 0; g != NULL && k < 2; k++)
		if ((g->m[k].value4 != FGROUP_NO_VALUE &&
		     fwd_value_via_iface(st, g->m[k].value4, iface)) ||
		    (g->m[k].value6 != FGROUP_NO_VALUE &&
		     fwd_value_via_iface(st, g->m[k].value6, iface)))
			return true;
	return false;
}

/* Whether FIB value @p v of @p st is the next hop @p k. */
static bool value_is(const struct fwd_state *st, uint32_t v, const struct fib_nh_key *k)
{
	if (v == FGROUP_NO_VALUE || FIB_NH_KIND(v) != FIB_KIND_NEXTHOP ||
	    FIB_NH_INDEX(v) >= (uint32_t)st->nb_nexthops)
		return false;
	const struct fwd_nexthop *nh = &st->nexthops[FIB_NH_INDEX(v)];
	if (nh->iface != k->iface)
		return false;
	return k->family == AF_INET ? nh->gw == k->gw : memcmp(nh->gw6, k->gw6, 16) == 0;
}

/* A route through a member line's gateway follows the group: its first
 * group with that member (BGP over a group's line, frr/fpm). */
static bool fg_covers_nexthop(const struct fwd_state *st, const struct fib_nh_key *k, uint32_t *idx)
{
	const struct bfd_gen *fo = bfd_gen_of(st);

	for (int g = 0; fo != NULL && g < fo->nb_groups; g++)
		for (int i = 0; i < 2; i++)
			if (value_is(st,
				     k->family == AF_INET ? fo->groups[g].m[i].value4
							  : fo->groups[g].m[i].value6,
				     k)) {
				*idx = (uint32_t)g;
				return true;
			}
	return false;
}

static const char *fg_object_name(const struct fwd_state *st, uint32_t idx)
{
	const struct fgroup *g = group_at(st, idx);
	return g ? g->rt->name : NULL;
}

static const struct fwd_nh_kind fgroup_kind = {
	.object_name = fg_object_name,
	.resolve4 = fg_resolve4,
	.name = "failover_group",
	.output4 = fg_output4,
	.output6 = fg_output6,
	.same_indexes = fg_same_indexes,
	.via_iface = fg_via_iface,
	.covers_nexthop = fg_covers_nexthop,
};

__attribute__((constructor)) static void fgroup_fib_register(void)
{
	fgroup_fib_kind = fwd_nh_kind_register(&fgroup_kind);
}
