/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "pipeline/fib.h"
#include "pipeline/fwd.h"
#include "pipeline/l2.h"
#include "pipeline/nh_kind.h"
#include "pipeline/mem.h"
#include "pipeline/neigh.h"
#include "pipeline/local.h"
#include "pipeline/tunnel.h"
#include "pipeline/fwd6.h"

struct fwd_state *_Atomic fwd_current;

static uint32_t prefix_mask(uint8_t len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

int fwd_iface_for_subnet(const struct fwd_state *st, int vrf, uint32_t ip)
{
	for (int i = 0; i < st->nb_ifaces; i++) {
		const struct fwd_iface *fi = &st->ifaces[i];
		if (vrf >= 0 && fi->vrf != vrf)
			continue;
		for (int a = 0; a < fi->nb_addrs; a++) {
			const struct cfg_prefix *p = &fi->addrs[a];
			if (p->addr.family == AF_INET &&
			    ((p->addr.v4 ^ ip) & prefix_mask(p->len)) == 0)
				return i;
		}
	}
	return -1;
}

/*
 * Slots keep an interface's counters across reloads: same name, same slot.
 * A new interface takes a slot no interface of the previous state held,
 * so it does not inherit a removed interface's counters; only when none is
 * left does it reuse a removed one's.
 */
static int assign_slots(struct fwd_state *st, const struct fwd_state *prev)
{
	bool used[VBRD_MAX_IFACE_SLOTS] = { false };
	bool held_before[VBRD_MAX_IFACE_SLOTS] = { false };

	for (int j = 0; prev && j < prev->nb_ifaces; j++)
		held_before[prev->ifaces[j].slot] = true;
	for (int i = 0; i < st->nb_ifaces; i++) {
		st->ifaces[i].slot = FWD_NO_IFACE;
		/* the common reload keeps the order: the same index first */
		if (prev && i < prev->nb_ifaces &&
		    strcmp(prev->ifaces[i].name, st->ifaces[i].name) == 0) {
			st->ifaces[i].slot = prev->ifaces[i].slot;
			used[prev->ifaces[i].slot] = true;
			continue;
		}
		for (int j = 0; prev && j < prev->nb_ifaces; j++) {
			if (strcmp(prev->ifaces[j].name, st->ifaces[i].name) == 0) {
				st->ifaces[i].slot = prev->ifaces[j].slot;
				used[prev->ifaces[j].slot] = true;
			}
		}
	}
	for (int i = 0; i < st->nb_ifaces; i++) {
		if (st->ifaces[i].slot != FWD_NO_IFACE)
			continue;
		int pick = -1;
		for (int k = 0; k < VBRD_MAX_IFACE_SLOTS && pick < 0; k++)
			if (!used[k] && !held_before[k])
				pick = k;
		for (int k = 0; k < VBRD_MAX_IFACE_SLOTS && pick < 0; k++)
			if (!used[k])
				pick = k;
		if (pick < 0)
			return -ENOSPC;
		st->ifaces[i].slot = (uint16_t)pick;
		used[pick] = true;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * st->bcast4: the network and broadcast address of every IPv4 prefix of
 * length <= 30 on every interface (physical and tunnel), sorted and
 * without duplicates, so that the data path asks with a binary search.
 */
static int bcast4_build(struct fwd_state *st)
{
	int n = 0;

	for (int i = 0; i < st->nb_ifaces; i++)
		n += 2 * st->ifaces[i].nb_addrs;
	st->bcast4 = calloc((size_t)n + 1, sizeof(*st->bcast4));
	if (st->bcast4 == NULL)
		return -ENOMEM;
	n = 0;
	for (int i = 0; i < st->nb_ifaces; i++) {
		const struct fwd_iface *fi = &st->ifaces[i];
		for (int a = 0; a < fi->nb_addrs; a++) {
			const struct cfg_prefix *p = &fi->addrs[a];
			if (p->addr.family != AF_INET || p->len > 30)
				continue;
			uint32_t net = p->addr.v4 & prefix_mask(p->len);
			st->bcast4[n++] = net;
			st->bcast4[n++] = net | ~prefix_mask(p->len);
		}
	}
	qsort(st->bcast4, (size_t)n, sizeof(*st->bcast4), cmp_u32);
	int k = 0;
	for (int j = 0; j < n; j++)
		if (k == 0 || st->bcast4[k - 1] != st->bcast4[j])
			st->bcast4[k++] = st->bcast4[j];
	st->nb_bcast4 = k;
	return 0;
}

/* One reference on the next hop (@p iface, @p gw), as a FIB value. */
static int nexthop4_value(uint16_t iface, uint32_t gw, uint32_t *value)
{
	struct fib_nh_key k = { .family = AF_INET, .iface = iface, .gw = gw };
	int id = fib_nexthop_get(&k);

	if (id < 0)
		return id;
	*value = FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)id);
	return 0;
}

int fwd_ecmp_value(const struct cfg_route *cr, uint32_t *value)
{
	uint16_t nh[CFG_MAX_ECMP];
	int k, ret = 0;

	for (k = 0; k < cr->nb_nexthops; k++) {
		const struct cfg_nexthop *n = &cr->nexthops[k];
		struct fib_nh_key key = { .family = cr->prefix.addr.family,
					  .iface = (uint16_t)n->iface };

		if (key.family == AF_INET)
			key.gw = n->via.v4;
		else
			memcpy(key.gw6, n->via.v6, 16);
		ret = fib_nexthop_get(&key);
		if (ret < 0)
			break;
		nh[k] = (uint16_t)ret;
	}
	if (ret >= 0)
		ret = fib_ecmp_get(nh, cr->nb_nexthops);
	else
		while (k-- > 0)
			fib_value_put(FIB_NH(FIB_KIND_NEXTHOP, nh[k]));
	if (ret < 0)
		return ret;
	*value = FIB_NH(FIB_KIND_ECMP, (uint32_t)ret);
	return 0;
}

void fwd_fib_conf(const struct vbrd_config *cfg, struct rte_fib_conf *fc)
{
	struct fib_capacity cap;

	fib_capacity_for_config(cfg, &cap);
	*fc = (struct rte_fib_conf){
		.type = RTE_FIB_DIR24_8,
		.default_nh = FIB_NH(FIB_KIND_NONE, 0),
		.max_routes = (int)cap.routes4,
		.dir24_8 = { .nh_sz = RTE_FIB_DIR24_8_4B, .num_tbl8 = cap.tbl8_4 },
	};
}

/* rte_fib's own structures (struct rte_fib, struct dir24_8_tbl, tailq
 * entries): internal to DPDK, a few hundred bytes; counted generously. */
#define FIB_STRUCTS_BYTES 4096
/* struct rte_rib_node (DPDK 22.11 lib/rib/rte_rib.c, not public): three
 * pointers, ip, depth, flag, nh */
#define RIB_NODE_BYTES 40

uint64_t fwd_fib_memsize(const struct rte_fib_conf *fc, size_t page_size)
{
	/* lib/fib/dir24_8.c dir24_8_create(): tbl24 2^24 next hops, tbl8
	 * groups of 256 (one spare), their bitmap; lib/rib: 2 nodes a route */
	uint64_t nh = 1u << fc->dir24_8.nh_sz;
	uint64_t tbl8 = RTE_ALIGN_CEIL(fc->dir24_8.num_tbl8, 64);

	return (1ull << 24) * nh + 256 * nh * (tbl8 + 1) + tbl8 / 8 +
	       mem_mempool_size(2 * (uint32_t)fc->max_routes, RIB_NODE_BYTES, 0, 0, page_size) +
	       FIB_STRUCTS_BYTES;
}

/* st->nexthops[] and st->ecmp[] by id: every live id, the previous
 * generation's included (its FIB entries stay until fwd_state_commit()). */
static int nexthops_fill(struct fwd_state *st)
{
	uint32_t nb_nh = fib_nexthop_ids(), nb_ecmp = fib_ecmp_ids();
	/* free slots for the next hops a routing protocol adds before the
	 * next reload (fwd_dyn_nexthop()): all zero until then */
	uint32_t cap_nh = RTE_MIN(nb_nh + FWD_DYN_NEXTHOPS, FIB_MAX_NEXTHOPS + 1);
	uint32_t cap_ecmp = RTE_MIN(nb_ecmp + FWD_DYN_ECMP, FIB_MAX_ECMP);

	st->nexthops = calloc(cap_nh, sizeof(*st->nexthops));
	st->ecmp = calloc(cap_ecmp, sizeof(*st->ecmp));
	if (st->nexthops == NULL || st->ecmp == NULL)
		return -ENOMEM;
	st->nb_nexthops = (int)cap_nh;
	st->nexthops_used = (int)nb_nh;
	st->nb_ecmp = (int)cap_ecmp;
	for (uint32_t id = 0; id < nb_nh; id++) {
		struct fib_nh_key k;
		struct fwd_nexthop *nh = &st->nexthops[id];

		/* an id the previous generation used on an interface this one
		 * lacks can only be in a FIB this state does not read */
		if (!fib_nexthop_key(id, &k) || k.iface >= (uint32_t)st->nb_ifaces)
			continue;
		nh->family = (int)k.family;
		nh->iface = (uint16_t)k.iface;
		nh->gw = k.gw;
		memcpy(nh->gw6, k.gw6, 16);
	}
	for (uint32_t id = 0; id < nb_ecmp; id++) {
		struct fwd_ecmp *e = &st->ecmp[id];

		if (!fib_ecmp_members(id, &e->nb, e->nh))
			e->nb = 0;
	}
	return 0;
}

/* Whether FIB values of @p prev (interface and path-group indexes) mean
 * the same in @p st: prev's lists are a prefix of st's, by name. */
static bool indexes_kept(const struct fwd_state *st, const struct vbrd_config *cfg,
			 const struct fwd_state *prev)
{
	for (unsigned k = 0; k < FIB_KIND_MAX; k++)
		if (fwd_nh_kinds[k] != NULL && fwd_nh_kinds[k]->same_indexes != NULL &&
		    !fwd_nh_kinds[k]->same_indexes(&prev->cfg, cfg))
			return false;
	if (prev->nb_ifaces > st->nb_ifaces || prev->nb_path_groups > st->nb_path_groups)
		return false;
	for (int i = 0; i < prev->nb_ifaces; i++)
		if (strcmp(prev->ifaces[i].name, st->ifaces[i].name) != 0 ||
		    prev->ifaces[i].port != st->ifaces[i].port)
			return false;
	for (int g = 0; g < prev->nb_path_groups; g++)
		if (strcmp(prev->path_groups[g].name, st->path_groups[g].name) != 0)
			return false;
	return true;
}

/* Fill next hop @p id's slot of @p st from its key (a slot a worker may
 * read once a FIB entry names it: written before that entry). */
static void dyn_slot_fill(struct fwd_state *st, uint32_t id, const struct fib_nh_key *k)
{
	struct fwd_nexthop *nh = &st->nexthops[id];
	const struct fwd_iface *fi = &st->ifaces[k->iface];
	uint64_t mac;

	if (nh->family == (int)k->family && nh->iface == k->iface && nh->gw == k->gw &&
	    memcmp(nh->gw6, k->gw6, 16) == 0)
		return; /* live with this content already */
	nh->family = (int)k->family;
	nh->iface = (uint16_t)k->iface;
	nh->gw = k->gw;
	memcpy(nh->gw6, k->gw6, 16);
	if (k->family == AF_INET6)
		mac = fwd_neigh_mac(st, fi->port, fi->vlan, AF_INET6, k->gw6);
	else
		mac = k->gw != 0 ? fwd_neigh_mac(st, fi->port, fi->vlan, AF_INET, &k->gw) : 0;
	atomic_store_explicit(&nh->mac, mac, memory_order_release);
}

int fwd_dyn_nexthop(struct fwd_state *st, const struct fib_nh_key *k, uint32_t *value)
{
	if (k->iface >= (uint32_t)st->nb_ifaces)
		return -EINVAL;
	int id = fib_nexthop_get(k);
	if (id < 0)
		return id;
	if (id >= st->nb_nexthops) {
		fib_value_put(FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)id));
		return -ENOSPC;
	}
	dyn_slot_fill(st, (uint32_t)id, k);
	if (id >= st->nexthops_used)
		st->nexthops_used = id + 1;
	*value = FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)id);
	return 0;
}

int fwd_dyn_ecmp(struct fwd_state *st, const uint32_t *values, int nb, uint32_t *value)
{
	uint16_t nh[CFG_MAX_ECMP];

	if (nb < 2 || nb > CFG_MAX_ECMP)
		return -EINVAL;
	for (int i = 0; i < nb; i++) {
		if (FIB_NH_KIND(values[i]) != FIB_KIND_NEXTHOP)
			return -EINVAL;
		nh[i] = (uint16_t)FIB_NH_INDEX(values[i]);
		fib_value_hold(values[i]); /* fib_ecmp_get() consumes one each */
	}
	int id = fib_ecmp_get(nh, nb);
	if (id < 0)
		return id;
	if (id >= st->nb_ecmp) {
		fib_value_put(FIB_NH(FIB_KIND_ECMP, (uint32_t)id));
		return -ENOSPC;
	}
	struct fwd_ecmp *e = &st->ecmp[id];
	if (e->nb != nb || memcmp(e->nh, nh, (size_t)nb * sizeof(nh[0])) != 0) {
		/* a free slot (nb 0): members first, then the count workers test */
		memcpy(e->nh, nh, (size_t)nb * sizeof(nh[0]));
		atomic_store_explicit((_Atomic uint16_t *)&e->nb, (uint16_t)nb,
				      memory_order_release);
	}
	*value = FIB_NH(FIB_KIND_ECMP, (uint32_t)id);
	return 0;
}

#define FWD_LOCAL_ADDRS_MAX 4
static const struct fwd_local_addrs *local_addrs[FWD_LOCAL_ADDRS_MAX];
static unsigned nb_local_addrs;

void fwd_local_addrs_register(const struct fwd_local_addrs *la)
{
	if (nb_local_addrs == FWD_LOCAL_ADDRS_MAX)
		rte_panic("local addresses: registry full at %s\n", la->name);
	local_addrs[nb_local_addrs++] = la;
}

/* The features' own addresses (fwd_local_addrs) as host routes to LOCAL, in their interface's VRF. */
static int local_addrs_add(struct fwd_state *st, const struct vbrd_config *cfg, char *err,
			   size_t errlen)
{
	for (unsigned k = 0; k < nb_local_addrs; k++) {
		struct cfg_addr addr[8];
		char iface[8][CFG_NAME_MAX];
		int n = local_addrs[k]->get(cfg, addr, iface, 8);
		for (int a = 0; a < n; a++) {
			int i, ret;
			for (i = 0; i < st->nb_ifaces; i++)
				if (strcmp(st->ifaces[i].name, iface[a]) == 0)
					break;
			if (i == st->nb_ifaces) {
				snprintf(err, errlen, "%s: no interface '%s'", local_addrs[k]->name,
					 iface[a]);
				return -ENOENT;
			}
			struct fib_table *t = &st->vrfs[st->ifaces[i].vrf].routes;
			ret = addr[a].family == AF_INET
				      ? fib_table_add4(t, addr[a].v4, 32,
						       FIB_NH(FIB_KIND_LOCAL, (uint32_t)i), 0)
				      : fib_table_add6(t, addr[a].v6, 128,
						       FIB_NH(FIB_KIND_LOCAL, (uint32_t)i), 0);
			if (ret < 0) {
				snprintf(err, errlen, "%s: %s", local_addrs[k]->name,
					 strerror(-ret));
				return ret;
			}
		}
	}
	return 0;
}

/* The VRF of @p prev named @p name, or NULL. */
static const struct fwd_vrf *prev_vrf(const struct fwd_state *prev, const char *name)
{
	int v = prev != NULL ? fwd_vrf_find(prev, name) : -1;

	return v >= 0 ? &prev->vrfs[v] : NULL;
}

/* The size VRF @p v of @p cfg asks its FIB to be created with. */
static const struct cfg_fib_size *vrf_fib_size(const struct vbrd_config *cfg, int v)
{
	return v == CFG_VRF_DEFAULT || v >= cfg->nb_vrfs ? &cfg->fib : &cfg->vrfs[v].fib;
}

/*
 * Give VRF @p v of @p st its FIB pair: the pair of @p prev's VRF of the
 * same name, changed in place later, when it can hold both tables at once
 * (fib_apply() deletes first, so the larger of the two) and its values
 * keep their meaning; else a fresh pair, filled now.
 */
static int fib_attach(struct fwd_state *st, int v, const struct vbrd_config *cfg,
		      const struct fwd_state *prev, bool kept, char *err, size_t errlen)
{
	static const struct fib_table empty;
	struct fwd_vrf *vrf = &st->vrfs[v];
	const struct fwd_vrf *pv = prev_vrf(prev, vrf->name);
	const struct cfg_fib_size *size = vrf_fib_size(cfg, v);
	struct fib_capacity need, need_old, cap;

	fib_table_need(&vrf->routes, &need);
	/* a routing protocol's routes share the FIB (fib_overlay): room for
	 * them too (their tbl8 groups are not counted: fib.ipv4_tbl8 sizes
	 * a FIB for a full table) */
	const struct fib_overlay *ov = fib_overlay_get();
	if (ov != NULL) {
		uint32_t n4 = 0, n6 = 0;
		ov->count(vrf->table, &n4, &n6);
		need.routes4 += n4;
		need.routes6 += n6;
	}
	if (pv != NULL && pv->fibs != NULL) {
		fib_table_need(&pv->routes, &need_old);
		struct fib_capacity peak = {
			RTE_MAX(need.routes4, need_old.routes4),
			RTE_MAX(need.tbl8_4, need_old.tbl8_4),
			RTE_MAX(need.routes6, need_old.routes6),
			RTE_MAX(need.tbl8_6, need_old.tbl8_6),
		};
		if (fib_capacity_fits(&peak, &pv->fibs->cap) && kept) {
			vrf->fibs = pv->fibs;
			fib_pair_get(vrf->fibs);
			vrf->fib = vrf->fibs->fib;
			vrf->fib6 = vrf->fibs->fib6;
			vrf->fib_pending = true;
			return 0;
		}
	}
	/* start-up, a new VRF, or a reload the running FIB cannot take in place */
	cap = need;
	fib_capacity_headroom(&cap);
	cap.routes4 = RTE_MAX(cap.routes4, size->ipv4_routes);
	cap.tbl8_4 = RTE_MAX(cap.tbl8_4, size->ipv4_tbl8);
	cap.routes6 = RTE_MAX(cap.routes6, size->ipv6_routes);
	cap.tbl8_6 = RTE_MAX(cap.tbl8_6, size->ipv6_tbl8);
	if (pv != NULL && pv->fibs != NULL) {
		/* never shrink below what the running FIB was created with */
		const struct fib_capacity *o = &pv->fibs->cap;
		cap.routes4 = RTE_MAX(cap.routes4, o->routes4);
		cap.tbl8_4 = RTE_MAX(cap.tbl8_4, o->tbl8_4);
		cap.routes6 = RTE_MAX(cap.routes6, o->routes6);
		cap.tbl8_6 = RTE_MAX(cap.tbl8_6, o->tbl8_6);
	}
	char why[384];
	vrf->fibs = fib_pair_create(&cap, why, sizeof(why));
	if (vrf->fibs == NULL) {
		if (pv != NULL && pv->fibs != NULL)
			snprintf(err, errlen,
				 "VRF '%s' needs %u IPv4 routes / %u tbl8 groups and %u IPv6 "
				 "routes / %u tbl8 groups; its running FIB holds %u / %u and %u / "
				 "%u "
				 "(fib.ipv4_routes, fib.ipv4_tbl8, fib.ipv6_routes, fib.ipv6_tbl8 "
				 "at start-up, or the VRF's own fib%s), and a new one cannot be "
				 "allocated beside it: %s",
				 vrf->name, need.routes4, need.tbl8_4, need.routes6, need.tbl8_6,
				 pv->fibs->cap.routes4, pv->fibs->cap.tbl8_4, pv->fibs->cap.routes6,
				 pv->fibs->cap.tbl8_6,
				 kept ? "" : "; interfaces or path groups renumbered too", why);
		else
			snprintf(err, errlen, "VRF '%s': %s", vrf->name, why);
		return -ENOSPC;
	}
	vrf->fib = vrf->fibs->fib;
	vrf->fib6 = vrf->fibs->fib6;
	struct fib_apply_stats stats;
	int ret = fib_apply(vrf->fibs, &empty, &vrf->routes, &stats);
	if (ret < 0) {
		snprintf(err, errlen, "VRF '%s': FIB add failed for %u entries: %s", vrf->name,
			 stats.failed, strerror(-ret));
		return ret;
	}
	/* filled: may the data path read its DIR24_8 tables itself? */
	fib_pair_verify(vrf->fibs, &vrf->routes);
	return 0;
}

/* Every VRF's FIB pair (fib_attach()), then each interface's FIB pointers. */
static int fibs_attach(struct fwd_state *st, const struct vbrd_config *cfg,
		       const struct fwd_state *prev, char *err, size_t errlen)
{
	bool kept = prev != NULL && indexes_kept(st, cfg, prev);

	for (int v = 0; v < st->nb_vrfs; v++) {
		int ret = fib_attach(st, v, cfg, prev, kept, err, errlen);
		if (ret < 0)
			return ret;
		st->vrfs[v].tbl24 = st->vrfs[v].fibs->tbl24;
		st->vrfs[v].tbl8 = st->vrfs[v].fibs->tbl8;
	}
	st->default_iface = 0;
	for (int i = st->nb_ifaces - 1; i >= 0; i--) {
		struct fwd_iface *fi = &st->ifaces[i];
		fi->fib = st->vrfs[fi->vrf].fib;
		fi->fib6 = st->vrfs[fi->vrf].fib6;
		if (fi->vrf == CFG_VRF_DEFAULT)
			st->default_iface = (uint16_t)i;
	}
	return 0;
}

/* st->vrfs from @p cfg: vrfs[0] is "default" (also for a config without `vrfs`). */
static int vrfs_init(struct fwd_state *st, const struct vbrd_config *cfg)
{
	st->nb_vrfs = cfg->nb_vrfs > 0 ? cfg->nb_vrfs : 1;
	st->vrfs = calloc((size_t)st->nb_vrfs, sizeof(*st->vrfs));
	if (st->vrfs == NULL)
		return -ENOMEM;
	for (int v = 0; v < st->nb_vrfs; v++) {
		snprintf(st->vrfs[v].name, sizeof(st->vrfs[v].name), "%s", config_vrf_name(cfg, v));
		st->vrfs[v].table = v < cfg->nb_vrfs ? cfg->vrfs[v].table : CFG_TABLE_DEFAULT;
		st->vrfs[v].routes.table = st->vrfs[v].table;
	}
	return 0;
}

uint32_t fwd_fib_entries(const struct fwd_state *st)
{
	uint32_t n = 0;

	for (int v = 0; v < st->nb_vrfs; v++)
		n += st->vrfs[v].routes.nb4 + st->vrfs[v].routes.nb6;
	return n;
}

int fwd_vrf_find(const struct fwd_state *st, const char *name)
{
	for (int v = 0; v < st->nb_vrfs; v++)
		if (strcmp(st->vrfs[v].name, name) == 0)
			return v;
	return -1;
}

int fwd_vrf_by_table(const struct fwd_state *st, uint32_t table)
{
	for (int v = 0; v < st->nb_vrfs; v++)
		if (st->vrfs[v].table == table)
			return v;
	return -1;
}

int fwd_state_build(struct vbrd_config *cfg, const uint16_t *port_ids, const struct fwd_state *prev,
		    struct fwd_state **out, char *err, size_t errlen)
{
	static uint64_t generation;
	struct fwd_state *st;
	int ret = -ENOMEM;

	st = calloc(1, sizeof(*st));
	if (st == NULL)
		goto fail_msg;
	st->generation = ++generation;
	local_state_init(st);
	if (vrfs_init(st, cfg) < 0)
		goto fail_msg;
	st->loaded_at = time(NULL);

	st->nb_ifaces = cfg->nb_ifaces;
	/* physical interfaces first, then one per tunnel (tunnel_state_build) */
	st->ifaces = calloc(cfg->nb_ifaces + cfg->nb_tunnels + 1, sizeof(*st->ifaces));
	if (st->ifaces == NULL)
		goto fail_msg;

	uint16_t max_port = 0;
	for (int i = 0; i < cfg->nb_ports; i++)
		max_port = RTE_MAX(max_port, port_ids[i]);
	st->nb_port_ids = max_port + 1;
	st->iface_by_vlan = malloc(sizeof(*st->iface_by_vlan) * st->nb_port_ids);
	if (st->iface_by_vlan == NULL)
		goto fail_msg;
	memset(st->iface_by_vlan, 0xff, sizeof(*st->iface_by_vlan) * st->nb_port_ids);

	for (int i = 0; i < cfg->nb_ifaces; i++) {
		const struct cfg_iface *ci = &cfg->ifaces[i];
		struct fwd_iface *fi = &st->ifaces[i];

		snprintf(fi->name, sizeof(fi->name), "%s", ci->name);
		fi->vrf = (uint16_t)ci->vrf;
		fi->port = port_ids[ci->port];
		fi->vlan = ci->vlan;
		fi->mtu = ci->mtu;
		rte_eth_macaddr_get(fi->port, &fi->mac);
		l2_prepare(fi);
		fi->nb_addrs = ci->nb_addrs;
		memcpy(fi->addrs, ci->addrs, sizeof(fi->addrs));
		for (int a = 0; a < ci->nb_addrs; a++) {
			if (ci->addrs[a].addr.family == AF_INET && fi->addr4 == 0) {
				fi->addr4 = ci->addrs[a].addr.v4;
				fi->plen4 = ci->addrs[a].len;
			}
		}
		st->iface_by_vlan[fi->port][fi->vlan] = (uint16_t)i;
	}
	ret = tunnel_state_build(st, cfg, prev, err, errlen);
	if (ret < 0)
		goto fail;
	ret = assign_slots(st, prev);
	if (ret < 0) {
		snprintf(err, errlen, "more than %d interfaces", VBRD_MAX_IFACE_SLOTS);
		goto fail;
	}
	ret = bcast4_build(st);
	if (ret < 0)
		goto fail_msg;

	/* Every FIB entry of this generation, each holding its next hop's id,
	 * in the table of its VRF: connected subnets, then own addresses as /32
	 * (RFC 1812 §5.2.4.3). */
	for (int i = 0; i < st->nb_ifaces; i++) {
		const struct fwd_iface *fi = &st->ifaces[i];
		struct fib_table *t = &st->vrfs[fi->vrf].routes;
		st->vrfs[fi->vrf].nb_ifaces++;
		for (int a = 0; a < fi->nb_addrs; a++) {
			const struct cfg_prefix *p = &fi->addrs[a];
			uint32_t value;
			if (p->addr.family != AF_INET)
				continue;
			ret = 0;
			/* A tunnel's inner addresses are local only: its traffic is
			 * routed to a path group, never to neighbors on a link. */
			if (fi->port != FWD_NO_PORT) {
				uint32_t net = p->addr.v4 & prefix_mask(p->len);
				ret = nexthop4_value((uint16_t)i, 0, &value);
				if (ret == 0 &&
				    (ret = fib_table_add4(t, net, p->len, value, 0)) < 0)
					fib_value_put(value);
				/* RFC 2644: directed broadcasts are not forwarded (nor the
				 * old all-zeros form, RFC 1812 §4.2.3.1); /31 and /32 have none */
				if (ret == 0 && p->len <= 30)
					ret = fib_table_add4(t, net, 32, FIB_NH(FIB_KIND_BCAST, i),
							     0);
				if (ret == 0 && p->len <= 30)
					ret = fib_table_add4(t, net | ~prefix_mask(p->len), 32,
							     FIB_NH(FIB_KIND_BCAST, i), 0);
			}
			if (ret == 0)
				ret = fib_table_add4(t, p->addr.v4, 32,
						     FIB_NH(FIB_KIND_LOCAL, (uint32_t)i), 0);
			if (ret < 0)
				goto fail_ids;
		}
	}
	/* Tunnel endpoints: an own address that decapsulation answers on. */
	for (int i = 0; i < st->nb_tunnels; i++) {
		const struct fwd_tunnel *tu = &st->tunnels[i];
		if (tu->local.family != AF_INET)
			continue;
		struct fib_table *t = &st->vrfs[tu->underlay_vrf].routes;
		ret = fib_table_add4(t, tu->local.v4, 32, FIB_NH(FIB_KIND_LOCAL, tu->iface), 0);
		if (ret < 0)
			goto fail_ids;
	}
	/* Routes; the last route's next hop is reused as is (tables list
	 * many routes via one gateway: no hash lookup for those). */
	uint32_t last_value = 0;
	const struct cfg_nexthop *last_nh = NULL;
	for (int r = 0; r < cfg->nb_routes; r++) {
		const struct cfg_route *cr = &cfg->routes[r];
		uint32_t value;

		if (cr->prefix.addr.family != AF_INET)
			continue; /* IPv6 routes: fwd6_build() */
		if (cr->target_kind != NULL) {
			ret = fwd_nh_kind_find(cr->target_kind);
			if (ret < 0) { /* a route target whose data path is not built in */
				snprintf(err, errlen, "no next-hop kind '%s' for a route",
					 cr->target_kind);
				goto fail;
			}
			value = FIB_NH((unsigned)ret, cr->target);
		} else if (cr->path_group >= 0) {
			value = FIB_NH(FIB_KIND_PATHGRP, (uint32_t)cr->path_group);
		} else if (cr->nb_nexthops == 1) {
			const struct cfg_nexthop *n = &cr->nexthops[0];
			if (last_nh != NULL && last_nh->iface == n->iface &&
			    last_nh->via.v4 == n->via.v4) {
				value = last_value;
				fib_value_hold(value);
			} else {
				ret = nexthop4_value((uint16_t)n->iface, n->via.v4, &value);
				if (ret < 0)
					goto fail_ids;
				last_nh = n;
				last_value = value;
			}
		} else {
			ret = fwd_ecmp_value(cr, &value);
			if (ret < 0)
				goto fail_ids;
		}
		ret = fib_table_add4(&st->vrfs[cr->vrf].routes, cr->prefix.addr.v4, cr->prefix.len,
				     value, FIB_ROUTE_STATIC);
		if (ret < 0) {
			fib_value_put(value);
			goto fail_ids;
		}
		st->vrfs[cr->vrf].nb_routes4++;
	}

	ret = fwd6_build(st, cfg, err, errlen);
	if (ret < 0)
		goto fail;
	ret = local_addrs_add(st, cfg, err, errlen);
	if (ret < 0)
		goto fail;
	for (int v = 0; v < st->nb_vrfs; v++)
		if ((ret = fib_table_sort(&st->vrfs[v].routes)) < 0)
			goto fail_msg;
	/* features take the ids of their own next hops before the fill */
	ret = modules_state_prepare(st, cfg, prev, err, errlen);
	if (ret < 0)
		goto fail;
	ret = nexthops_fill(st);
	if (ret < 0)
		goto fail_msg;
	ret = fibs_attach(st, cfg, prev, err, errlen);
	if (ret < 0)
		goto fail;

	/* the routes are in the VRFs' tables now: the parsed array goes */
	free(cfg->routes);
	cfg->routes = NULL;
	cfg->nb_routes = 0;
	st->cfg = *cfg;
	memset(cfg, 0, sizeof(*cfg));
	/* after the move: the fill reads the static neighbors of st->cfg */
	fwd_neigh_fill(st);
	/* features (qos/, ...) add theirs from the finished state */
	ret = modules_state_build(st, prev, err, errlen);
	if (ret < 0)
		goto fail;
	*out = st;
	return 0;

fail_ids:
	if (ret == -ENOSPC)
		snprintf(err, errlen, "more than %u distinct next hops or %u ECMP sets",
			 FIB_MAX_NEXTHOPS, FIB_MAX_ECMP);
	else
		snprintf(err, errlen, "out of memory building the forwarding state");
	goto fail;
fail_msg:
	snprintf(err, errlen, "out of memory building the forwarding state");
fail:
	if (st) {
		fwd_state_free(st);
	}
	return ret;
}

void fwd_state_free(struct fwd_state *st)
{
	if (st == NULL)
		return;
	modules_state_free(st);
	for (int v = 0; st->vrfs != NULL && v < st->nb_vrfs; v++) {
		fib_table_free(&st->vrfs[v].routes);
		fib_pair_put(st->vrfs[v].fibs);
	}
	free(st->vrfs);
	free(st->ifaces);
	free(st->iface_by_vlan);
	free(st->nexthops);
	free(st->ecmp);
	free(st->bcast4);
	tunnel_state_free(st);
	config_free(&st->cfg);
	free(st);
}

struct fwd_state *fwd_state_swap(struct fwd_state *st, struct rte_rcu_qsbr *qsv)
{
	struct fwd_state *old = atomic_exchange(&fwd_current, st);

	/* Every worker reports a quiescent state after each burst, so this
	 * waits for at most one burst per worker (RCU, rte_rcu_qsbr). */
	if (old != NULL)
		rte_rcu_qsbr_synchronize(qsv, RTE_QSBR_THRID_INVALID);
	return old;
}

int fwd_state_commit(struct fwd_state *st, struct fwd_state *old, struct fib_apply_stats *stats)
{
	static const struct fib_table empty;
	int ret = 0;

	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	for (int v = 0; v < st->nb_vrfs; v++) {
		struct fwd_vrf *vrf = &st->vrfs[v];
		if (!vrf->fib_pending)
			continue;
		/* the pair is the old VRF's of the same name (fib_attach()) */
		const struct fwd_vrf *ov = prev_vrf(old, vrf->name);
		struct fib_apply_stats one;
		int r = fib_apply(vrf->fibs, ov ? &ov->routes : &empty, &vrf->routes, &one);
		if (r < 0 && ret == 0)
			ret = r;
		if (stats != NULL) {
			stats->added += one.added;
			stats->changed += one.changed;
			stats->deleted += one.deleted;
			stats->failed += one.failed;
			if (stats->first_error == 0)
				stats->first_error = one.first_error;
		}
		vrf->fib_pending = false;
	}
	fwd_state_free(old);
	return ret;
}

void fwd_state_publish(struct fwd_state *st, struct rte_rcu_qsbr *qsv)
{
	fwd_state_commit(st, fwd_state_swap(st, qsv), NULL);
}

static bool gw_matches(int family, uint32_t gw4, const uint8_t *gw6, int qfamily, const void *addr)
{
	if (family != qfamily)
		return false;
	if (family == AF_INET)
		return gw4 != 0 && gw4 == *(const uint32_t *)addr;
	return memcmp(gw6, addr, 16) == 0;
}

void fwd_neigh_changed(struct fwd_state *st, uint16_t port, uint16_t vlan, int family,
		       const void *addr, uint64_t mac)
{
	if (st == NULL)
		return;
	/* the slots in use, not the free ones after them (a neighbor flood
	 * calls this for every entry it learns) */
	for (int i = 0; i < st->nexthops_used; i++) {
		struct fwd_nexthop *nh = &st->nexthops[i];
		const struct fwd_iface *fi = &st->ifaces[nh->iface];
		int fam = nh->family ? nh->family : AF_INET;
		if (fi->port == port && fi->vlan == vlan &&
		    gw_matches(fam, nh->gw, nh->gw6, family, addr))
			atomic_store_explicit(&nh->mac, mac, memory_order_release);
	}
	for (int i = 0; i < st->nb_paths; i++) {
		struct fwd_path *p = &st->paths[i];
		const struct fwd_iface *fi = &st->ifaces[p->iface];
		if (fi->port == port && fi->vlan == vlan &&
		    gw_matches(p->via.family, p->via.v4, p->via.v6, family, addr))
			atomic_store_explicit(&p->mac, mac, memory_order_release);
	}
}

/* Whether static neighbor @p cn of @p st is (port, VLAN, family, address). */
static bool static_neigh_is(const struct fwd_state *st, const struct cfg_neighbor *cn,
			    uint16_t port, uint16_t vlan, int family, const void *addr)
{
	const struct fwd_iface *fi = &st->ifaces[cn->iface];

	if (fi->port != port || fi->vlan != vlan || cn->addr.family != family)
		return false;
	if (family == AF_INET)
		return cn->addr.v4 == *(const uint32_t *)addr;
	return memcmp(cn->addr.v6, addr, 16) == 0;
}

const struct cfg_neighbor *fwd_static_neigh(const struct fwd_state *st, uint16_t port,
					    uint16_t vlan, int family, const void *addr)
{
	for (int i = 0; i < st->cfg.nb_neighbors; i++)
		if (static_neigh_is(st, &st->cfg.neighbors[i], port, vlan, family, addr))
			return &st->cfg.neighbors[i];
	return NULL;
}

uint64_t fwd_neigh_mac(const struct fwd_state *st, uint16_t port, uint16_t vlan, int family,
		       const void *addr)
{
	const struct cfg_neighbor *cn = fwd_static_neigh(st, port, vlan, family, addr);

	if (cn != NULL) {
		struct rte_ether_addr mac;

		memcpy(mac.addr_bytes, cn->mac, RTE_ETHER_ADDR_LEN);
		return neigh_ether_to_mac(&mac);
	}
	struct neigh_key k = family == AF_INET6 ? neigh_key6(port, vlan, addr)
						: neigh_key4(port, vlan, *(const uint32_t *)addr);
	const struct neigh *n = neigh_find_key(&k);

	/* A static entry that st's configuration no longer has is removed once
	 * st is published (control_state_changed): st never uses its MAC. */
	if (n == NULL || n->state == NEIGH_STATIC)
		return 0;
	return atomic_load_explicit(&n->mac, memory_order_acquire);
}

void fwd_neigh_fill(struct fwd_state *st)
{
	for (int i = 0; i < st->nexthops_used; i++) {
		struct fwd_nexthop *nh = &st->nexthops[i];
		const struct fwd_iface *fi = &st->ifaces[nh->iface];
		uint64_t mac = 0;

		if (nh->family == AF_INET6)
			mac = fwd_neigh_mac(st, fi->port, fi->vlan, AF_INET6, nh->gw6);
		else if (nh->gw != 0)
			mac = fwd_neigh_mac(st, fi->port, fi->vlan, AF_INET, &nh->gw);
		atomic_store(&nh->mac, mac);
	}
	for (int i = 0; i < st->nb_paths; i++) {
		struct fwd_path *p = &st->paths[i];
		const struct fwd_iface *fi = &st->ifaces[p->iface];
		const void *via = p->via.family == AF_INET ? (const void *)&p->via.v4
							   : (const void *)p->via.v6;

		atomic_store(&p->mac, fwd_neigh_mac(st, fi->port, fi->vlan, p->via.family, via));
	}
}
