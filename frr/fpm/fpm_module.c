/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FPM server (fpm_config.h): zebra's routes and next-hop objects into
 * vbrd's FIB, in place, beside the configuration's routes.
 *
 * - One connection at a time, on the main lcore's event loop, in the
 *   control namespace. A new connection replaces the old one: zebra
 *   replays everything on each (dplane_fpm_nl has no end marker), and
 *   once the new connection has been quiet for fpm.stale_ms, the routes
 *   and next hops it did not send again are swept.
 * - Frames are applied whole (fpm_parse.h): zebra sends a route's change as
 *   RTM_DELROUTE then RTM_NEWROUTE in one frame, applied as one rte_fib_add
 *   over the prefix, so no packet sees it missing.
 * - A next hop names a TAP by its kernel ifindex (cplane.h); its gateway on
 *   that interface becomes a vbrd next hop (fwd_dyn_nexthop()), or, when
 *   the gateway is a failover group's member line, the group itself
 *   (nh_kind covers_nexthop): a line cut then moves every BGP route over it
 *   in the group's one store, before BGP has noticed.
 * - The configuration's routes, connected subnets and own addresses win
 *   over zebra's for the same prefix (administrative distance: static 1,
 *   eBGP 20); a reload that drops one falls back to zebra's (fib_overlay).
 * - A reload owns the FIB while it runs (fib_reload_running): frames wait
 *   in the socket meanwhile. A reload that builds a fresh FIB (interfaces
 *   renumbered, or the FIB outgrown) drops zebra's routes and resets the
 *   connection: zebra sends them again into the new one.
 * - What the FIB no longer names is released after an RCU grace period
 *   (a worker may still hold the value it looked up).
 * - Malformed input: counted, logged, and the connection is reset.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_rcu_qsbr.h>

#include "core/config_read.h"
#include "core/ctl.h"
#include "core/evloop.h"
#include "core/idtab.h"
#include "core/log.h"
#include "core/tsc.h"
#include "frr/cplane/cplane.h"
#include "frr/fpm/fpm_config.h"
#include "frr/fpm/fpm_parse.h"
#include "pipeline/control.h"
#include "pipeline/fib.h"
#include "pipeline/fwd.h"
#include "pipeline/nh_kind.h"
#include "pipeline/worker.h"

VBRD_LOG_TYPE(fpm);

#define FPM_BUF         (1u << 20) /* bytes read ahead of parsing */
#define FPM_FRAME_MSGS  16         /* messages a frame may hold (zebra: 1 or 2) */
#define FPM_TURN_NS     2000000u   /* frames applied per main-loop turn: at most 2 ms */
#define FPM_MAX_ROUTES  (1u << 24) /* prefixes held, both families */
#define FPM_MAX_NHS     (1u << 20) /* zebra's next-hop objects */
#define FPM_RESERVE_MAX (1u << 22) /* routes the tables make room for at start */

/* A route's key: family, length, table (its VRF's), address (IPv4: 4 bytes host order). */
struct rkey {
	uint8_t family, len, pad[2];
	uint32_t table;
	uint8_t addr[16];
};

/* What a route id holds (by idtab id of its prefix). */
struct rent {
	uint32_t value; /* FIB value; one reference held (fib_value_hold) */
	uint32_t nh_id; /* zebra's next-hop object, 0: its own next hops */
	uint32_t gen;   /* connection that sent it last */
	uint8_t proto;  /* rtm_protocol */
	bool shadowed;  /* the configuration has the prefix: not in the FIB */
	bool pending;   /* its next-hop object is unknown or unusable: not in the FIB */
	bool full;      /* the FIB refused it (full) */
};

/* A zebra next-hop object (by idtab id of its zebra id). */
struct nent {
	uint32_t zid;
	uint32_t value; /* FIB value; one reference; FIB_KIND_NONE when unusable */
	uint32_t gen;
	bool usable;
	struct fib_nh_key key; /* one next hop: its vbrd key (iface index, gateway) */
	bool retry;            /* unusable for want of a free next-hop slot: a reload makes room */
	int family;            /* of its next hop(s): AF_INET, AF_INET6; 0 (blackhole): any */
	uint16_t nb_group;
	uint32_t group[FPM_MAX_PATHS]; /* members' zebra ids (ECMP takes the first
	                                * CFG_MAX_ECMP usable ones) */
};

struct fpm_counters {
	uint64_t connections, resets, frames, bytes;
	uint64_t msgs[FPM_KIND_MAX];
	uint64_t route_adds, route_dels, replaces, nh_adds, nh_dels;
	uint64_t unknown_nexthop, unusable, other_table, fib_errors, unknown_route, connected;
	uint64_t swept_routes, swept_nhs, flushed, paused_turns, refused;
	uint64_t apply_ns; /* time spent applying frames (the FIB share of a load) */
};

static struct {
	bool enabled;
	struct ev_handler listen, conn;
	uint8_t *buf;
	size_t used;
	uint32_t gen;                     /* connection generation */
	bool sweep_pending;               /* a replay runs: sweep once quiet */
	bool retry_pending;               /* a reload made room: resolve what wanted a slot */
	bool eof;                         /* zebra closed: apply what is buffered, then close */
	bool sweeping;                    /* the sweep runs, a slice a turn */
	uint32_t sweep_pos, sweep_nh_pos; /* where it is: route id, next-hop object id */
	uint64_t sweep_from;              /* swept_routes when it began */
	uint64_t last_msg_ms;             /* of the current connection */
	uint64_t connected_ms;
	char peer[64];
	char last_error[256];
	struct idtab routes, nhs;
	struct idtab uses; /* zebra next-hop id → routes that name it (its refs) */
	struct rent *rents;
	uint32_t rcap;
	struct nent *nents;
	uint32_t ncap;
	uint32_t nb4, nb6;
	/* routes held per table id (a VRF's), for fib_overlay.count */
	struct tcount {
		uint32_t table, n4, n6;
	} tcount[CFG_MAX_VRFS];
	uint32_t nb_tcount;
	/* the VRFs' FIB pairs our routes are in, by table id, as last published */
	uint32_t nb_vrfs;
	uint32_t tables[CFG_MAX_VRFS];
	const struct fib_pair *fibs[CFG_MAX_VRFS];
	/* references to release after a grace period */
	struct defer {
		uint32_t value;
		uint64_t token;
	} * defer;
	uint32_t nb_defer, cap_defer, defer_head;
	struct fpm_counters c;
	struct fpm_msg msgs[FPM_FRAME_MSGS];
} fpm = { .listen = { .fd = -1 }, .conn = { .fd = -1 } };

static struct fwd_state *cur(void)
{
	/* the published state; its free next-hop slots are filled here
	 * (fwd_dyn_nexthop), which is why the const goes */
	return (struct fwd_state *)(uintptr_t)atomic_load(&fwd_current);
}

/* ---- releasing after a grace period ---------------------------------------- */

static void defer_put(uint32_t value)
{
	uint32_t kind = FIB_NH_KIND(value);

	if (kind != FIB_KIND_NEXTHOP && kind != FIB_KIND_ECMP)
		return;
	if (fpm.nb_defer == fpm.cap_defer) {
		/* compact, then grow */
		if (fpm.defer != NULL)
			memmove(fpm.defer, fpm.defer + fpm.defer_head,
				(fpm.nb_defer - fpm.defer_head) * sizeof(*fpm.defer));
		fpm.nb_defer -= fpm.defer_head;
		fpm.defer_head = 0;
		if (fpm.nb_defer == fpm.cap_defer) {
			uint32_t ncap = fpm.cap_defer ? 2 * fpm.cap_defer : 1024;
			struct defer *d = realloc(fpm.defer, ncap * sizeof(*d));
			if (d == NULL) {
				/* no memory: wait for the grace period here, once */
				rte_rcu_qsbr_synchronize(dp.rcu, RTE_QSBR_THRID_INVALID);
				fib_value_put(value);
				return;
			}
			fpm.defer = d;
			fpm.cap_defer = ncap;
		}
	}
	fpm.defer[fpm.nb_defer++] = (struct defer){ value, UINT64_MAX };
}

/* Stamp what was deferred this turn, release what every worker is past. */
static void defer_run(void)
{
	uint64_t token = 0;
	bool stamped = false;

	for (uint32_t i = fpm.defer_head; i < fpm.nb_defer; i++)
		if (fpm.defer[i].token == UINT64_MAX) {
			if (!stamped) {
				token = rte_rcu_qsbr_start(dp.rcu);
				stamped = true;
			}
			fpm.defer[i].token = token;
		}
	while (fpm.defer_head < fpm.nb_defer &&
	       rte_rcu_qsbr_check(dp.rcu, fpm.defer[fpm.defer_head].token, false) == 1)
		fib_value_put(fpm.defer[fpm.defer_head++].value);
	if (fpm.defer_head == fpm.nb_defer)
		fpm.defer_head = fpm.nb_defer = 0;
}

/* ---- the FIB ------------------------------------------------------------------ */

static void rkey_of(const struct cfg_prefix *p, uint32_t table, struct rkey *k)
{
	memset(k, 0, sizeof(*k));
	k->table = table;
	k->family = (uint8_t)p->addr.family;
	k->len = p->len;
	if (p->addr.family == AF_INET)
		memcpy(k->addr, &p->addr.v4, 4);
	else
		memcpy(k->addr, p->addr.v6, 16);
}

/* The VRF of @p st whose table id is @p table, or NULL: zebra's table ids name vbrd's VRFs. */
static const struct fwd_vrf *vrf_of(const struct fwd_state *st, uint32_t table)
{
	int v = fwd_vrf_by_table(st, table);

	if (v < 0 && table == cfg_fpm_get(&st->cfg)->table)
		v = CFG_VRF_DEFAULT; /* fpm.table: another table id for the VRF default */
	return v >= 0 ? &st->vrfs[v] : NULL;
}

static bool shadowed_by_config(const struct fwd_state *st, const struct rkey *k)
{
	const struct fwd_vrf *v = vrf_of(st, k->table);

	if (v == NULL)
		return true; /* its VRF is gone: in no FIB */
	if (k->family == AF_INET) {
		uint32_t a;
		memcpy(&a, k->addr, 4);
		return fib_table_find4(&v->routes, a, k->len) != NULL;
	}
	return fib_table_find6(&v->routes, k->addr, k->len) != NULL;
}

static int fib_set(struct fwd_state *st, const struct rkey *k, uint32_t value)
{
	const struct fwd_vrf *v = vrf_of(st, k->table);
	uint32_t a;

	if (v == NULL)
		return -ENOENT;
	if (k->family == AF_INET) {
		memcpy(&a, k->addr, 4);
		return fib_route_add4(v->fibs, a, k->len, value);
	}
	return fib_route_add6(v->fibs, k->addr, k->len, value);
}

static int fib_unset(struct fwd_state *st, const struct rkey *k)
{
	const struct fwd_vrf *v = vrf_of(st, k->table);
	uint32_t a;

	if (v == NULL)
		return -ENOENT;
	if (k->family == AF_INET) {
		memcpy(&a, k->addr, 4);
		return fib_route_del4(v->fibs, a, k->len);
	}
	return fib_route_del6(v->fibs, k->addr, k->len);
}

/* ---- next hops ------------------------------------------------------------------ */

/* A kind whose object has @p k as a member (a failover group's line). */
static bool covered(const struct fwd_state *st, const struct fib_nh_key *k, uint32_t *value)
{
	for (unsigned kind = FIB_KIND_FEATURE; kind < FIB_KIND_MAX; kind++) {
		const struct fwd_nh_kind *nk = fwd_nh_kinds[kind];
		uint32_t idx;
		if (nk != NULL && nk->covers_nexthop != NULL && nk->covers_nexthop(st, k, &idx)) {
			*value = (uint32_t)FIB_NH(kind, idx);
			return true;
		}
	}
	return false;
}

/* The vbrd key of one zebra next hop, or an error message. */
static const char *nh_key(int family, const struct cfg_addr *gw, uint32_t ifindex,
			  struct fib_nh_key *k)
{
	int iface = cplane_iface_by_ifindex(ifindex);

	if (iface < 0)
		return "its interface is not one of vbrd's TAPs";
	memset(k, 0, sizeof(*k));
	k->family = (uint32_t)family;
	k->iface = (uint32_t)iface;
	if (gw->family == 0)
		return NULL; /* on the link: the destination itself */
	if (gw->family != family)
		return "a gateway of the other family (RFC 5549) is not supported";
	if (family == AF_INET) {
		if ((gw->v4 >> 16) == 0xa9fe) /* 169.254/16: zebra's RFC 5549 stand-in */
			return "an IPv4 route over an IPv6 link-local next hop (RFC 5549)";
		k->gw = gw->v4;
	} else {
		memcpy(k->gw6, gw->v6, 16);
	}
	return NULL;
}

/* A FIB value for next hop @p k (a group that covers it, or a next hop); one reference. */
static int value_of_key(struct fwd_state *st, const struct fib_nh_key *k, uint32_t *value)
{
	if (covered(st, k, value))
		return 0;
	return fwd_dyn_nexthop(st, k, value);
}

/* A FIB value for a set of next hops: one group covering them all, or ECMP. */
static int value_of_set(struct fwd_state *st, const struct fib_nh_key *keys, int n, uint32_t *value)
{
	uint32_t v[CFG_MAX_ECMP], first;
	int ret = 0, i, got = 0;

	if (n == 1)
		return value_of_key(st, &keys[0], value);
	if (covered(st, &keys[0], &first)) {
		for (i = 1; i < n; i++)
			if (!covered(st, &keys[i], &v[0]) || v[0] != first)
				break;
		if (i == n) {
			*value = first;
			return 0;
		}
	}
	for (i = 0; i < n; i++) {
		ret = fwd_dyn_nexthop(st, &keys[i], &v[i]);
		if (ret < 0)
			break;
		got++;
	}
	if (ret == 0)
		ret = fwd_dyn_ecmp(st, v, n, value);
	/* the ECMP set holds its own references; these were never in the FIB */
	for (int j = 0; j < got; j++)
		fib_value_put(v[j]);
	return ret;
}

static struct nent *nent_find(uint32_t zid)
{
	int id = zid != 0 ? idtab_find(&fpm.nhs, &zid) : -ENOENT;
	return id >= 0 ? &fpm.nents[id] : NULL;
}

/* Routes that name zebra next-hop object @p zid (RTA_NH_ID), whether it exists or not. */
static uint32_t uses_of(uint32_t zid)
{
	int id = zid != 0 ? idtab_find(&fpm.uses, &zid) : -ENOENT;
	return id >= 0 ? fpm.uses.refs[id] : 0;
}

/* A route starts (+1) or stops (-1) naming @p zid. */
static void uses(uint32_t zid, int delta)
{
	bool created;
	int id;

	if (zid == 0)
		return;
	if (delta > 0) {
		if (idtab_get(&fpm.uses, &zid, &created) < 0)
			rte_panic("fpm: out of memory counting next-hop uses\n");
	} else if ((id = idtab_find(&fpm.uses, &zid)) >= 0) {
		idtab_put(&fpm.uses, (uint32_t)id);
	}
}

/* Resolve next-hop object @p n from its key or members (it keeps one reference). */
static void nent_resolve(struct fwd_state *st, struct nent *n, const struct fpm_nexthop *nh)
{
	uint32_t old = n->value;
	bool was = n->usable;

	int ret = -ENOENT;

	n->usable = false;
	n->retry = false;
	n->family = 0;
	n->value = (uint32_t)FIB_NH(FIB_KIND_NONE, 0);
	if (nh->blackhole) {
		n->usable = true;
	} else if (nh->nb_group > 0) {
		struct fib_nh_key keys[CFG_MAX_ECMP];
		int k = 0;
		n->nb_group = 0;
		for (int i = 0; i < nh->nb_group && i < FPM_MAX_PATHS; i++) {
			const struct nent *m = nent_find(nh->group[i].id);
			n->group[n->nb_group++] = nh->group[i].id;
			if (k < CFG_MAX_ECMP && m != NULL && m->usable && m->nb_group == 0 &&
			    FIB_NH_KIND(m->value) != FIB_KIND_NONE)
				keys[k++] = m->key;
		}
		if (k > 0)
			n->family = (int)keys[0].family;
		if (k > 0 && (ret = value_of_set(st, keys, k, &n->value)) == 0)
			n->usable = true;
	} else {
		n->nb_group = 0;
		const char *why = nh_key(nh->family, &nh->gw, nh->ifindex, &n->key);
		n->family = nh->family;
		if (why == NULL && (ret = value_of_key(st, &n->key, &n->value)) == 0)
			n->usable = true;
	}
	n->retry = ret == -ENOSPC;
	if (!n->usable)
		fpm.c.unusable++;
	if (was)
		defer_put(old);
}

/* ---- routes -------------------------------------------------------------------- */

static void rent_grow(uint32_t id)
{
	if (id < fpm.rcap)
		return;
	uint32_t ncap = fpm.rcap ? fpm.rcap : 4096;
	while (ncap <= id)
		ncap *= 2;
	struct rent *r = realloc(fpm.rents, ncap * sizeof(*r));
	if (r == NULL)
		rte_panic("fpm: out of memory for %u routes\n", ncap);
	fpm.rents = r;
	fpm.rcap = ncap;
}

/* The routes-held counters of table @p table (created at 0), or NULL when CFG_MAX_VRFS are in use. */
static struct tcount *tcount_of(uint32_t table, bool create)
{
	for (uint32_t i = 0; i < fpm.nb_tcount; i++)
		if (fpm.tcount[i].table == table)
			return &fpm.tcount[i];
	if (!create || fpm.nb_tcount == CFG_MAX_VRFS)
		return NULL;
	fpm.tcount[fpm.nb_tcount] = (struct tcount){ .table = table };
	return &fpm.tcount[fpm.nb_tcount++];
}

static void count_family(const struct rkey *k, int delta)
{
	struct tcount *t = tcount_of(k->table, true);

	if (k->family == AF_INET) {
		fpm.nb4 += (uint32_t)delta;
		if (t != NULL)
			t->n4 += (uint32_t)delta;
	} else {
		fpm.nb6 += (uint32_t)delta;
		if (t != NULL)
			t->n6 += (uint32_t)delta;
	}
}

static void fib_failed(int ret);

/*
 * Hold @p value (one reference, ours now) for @p k and put it in the FIB;
 * @p pending: the route waits for its next-hop object (not in the FIB).
 */
static void route_set(struct fwd_state *st, const struct rkey *k, uint32_t value, uint32_t nh_id,
		      uint8_t proto, bool pending)
{
	bool created, was_in = false;
	int id = idtab_get(&fpm.routes, k, &created);

	if (id < 0) {
		fpm.c.fib_errors++;
		defer_put(value);
		return;
	}
	rent_grow((uint32_t)id);
	struct rent *r = &fpm.rents[id];
	if (!created) {
		idtab_put(&fpm.routes, (uint32_t)id); /* one reference a prefix */
		was_in = !r->pending && !r->shadowed;
		defer_put(r->value);
		uses(r->nh_id, -1);
		fpm.c.replaces++;
	} else {
		count_family(k, 1);
	}
	*r = (struct rent){
		.value = value, .nh_id = nh_id, .gen = fpm.gen, .proto = proto, .pending = pending
	};
	uses(nh_id, 1);
	r->shadowed = shadowed_by_config(st, k);
	if (r->shadowed)
		return;
	if (!pending) {
		int ret = fib_set(st, k, value);
		if (ret < 0) {
			fib_failed(ret);
			r->full = true; /* not in the FIB: show routes says so */
		}
	} else if (was_in && fib_unset(st, k) < 0) {
		fpm.c.fib_errors++;
	}
}

/* A FIB change refused (-ENOSPC: the FIB is full): counted, logged once a minute. */
static void fib_failed(int ret)
{
	static uint64_t last_ms;
	uint64_t now = control_now_ms();

	fpm.c.fib_errors++;
	if (last_ms == 0 || now - last_ms >= 60000) {
		last_ms = now;
		LOG(WARNING,
		    "a route from zebra does not fit the FIB (%s, %" PRIu64
		    " so far): size it for FRR's routes with the fib section",
		    strerror(-ret), fpm.c.fib_errors);
	}
}

static void route_unset(struct fwd_state *st, const struct rkey *k)
{
	int id = idtab_find(&fpm.routes, k);

	if (id < 0) {
		fpm.c.unknown_route++;
		return;
	}
	struct rent *r = &fpm.rents[id];
	if (!r->shadowed && !r->pending && !r->full && fib_unset(st, k) < 0)
		fpm.c.fib_errors++;
	defer_put(r->value);
	uses(r->nh_id, -1);
	count_family(k, -1);
	idtab_put(&fpm.routes, (uint32_t)id);
}

#define RTPROT_KERNEL_NUM 2 /* rtnetlink.h RTPROT_KERNEL: the kernel's connected routes */

/* fe80::/10 and multicast: never routed. */
static bool link_scope(const struct cfg_prefix *p)
{
	if (p->addr.family == AF_INET)
		return p->len >= 4 && (p->addr.v4 >> 28) == 0xe;
	return p->len >= 8 && (p->addr.v6[0] == 0xff || (p->len >= 10 && p->addr.v6[0] == 0xfe &&
							 (p->addr.v6[1] & 0xc0) == 0x80));
}

static void route_add(struct fwd_state *st, const struct fpm_route *rt)
{
	const struct cfg_fpm *f = cfg_fpm_get(&st->cfg);
	struct rkey k;
	uint32_t value = (uint32_t)FIB_NH(FIB_KIND_NONE, 0);
	int ret = 0;

	rkey_of(&rt->dst, rt->table, &k);
	(void)f;
	if (vrf_of(st, rt->table) == NULL) {
		fpm.c.other_table++; /* no VRF has the table */
		return;
	}
	if (rt->protocol == RTPROT_KERNEL_NUM || link_scope(&rt->dst)) {
		/* the kernel's connected routes of the TAPs' addresses, and
		 * link-local prefixes: vbrd has its own. zebra now selects
		 * this one for the prefix: a route of ours for it goes */
		fpm.c.connected++;
		if (idtab_find(&fpm.routes, &k) >= 0)
			route_unset(st, &k);
		return;
	}
	fpm.c.route_adds++;
	if (rt->blackhole) {
		/* FIB_KIND_NONE: dropped as no_route */
	} else if (rt->nh_id != 0) {
		const struct nent *n = nent_find(rt->nh_id);
		if (n == NULL || !n->usable) {
			/* held until zebra's next-hop object is (usable): its
			 * members may come after it */
			if (n == NULL)
				fpm.c.unknown_nexthop++;
			route_set(st, &k, (uint32_t)FIB_NH(FIB_KIND_NONE, 0), rt->nh_id,
				  rt->protocol, true);
			return;
		}
		if (n->family != 0 && n->family != rt->dst.addr.family) {
			/* an IPv4 route over an IPv6 next hop (RFC 5549): not taken */
			fpm.c.unusable++;
			route_set(st, &k, (uint32_t)FIB_NH(FIB_KIND_NONE, 0), rt->nh_id,
				  rt->protocol, true);
			return;
		}
		value = n->value;
		fib_value_hold(value);
	} else {
		struct fib_nh_key keys[CFG_MAX_ECMP];
		int n = 0;
		for (int i = 0; i < rt->nb_nh && n < CFG_MAX_ECMP; i++)
			if (nh_key(rt->dst.addr.family, &rt->nh[i].gw, rt->nh[i].ifindex,
				   &keys[n]) == NULL)
				n++;
		ret = n > 0 ? value_of_set(st, keys, n, &value) : -ENOENT;
		if (ret < 0) {
			fpm.c.unusable++;
			route_unset(st, &k);
			return;
		}
	}
	route_set(st, &k, value, rt->nh_id, rt->protocol, false);
}

static void route_del(struct fwd_state *st, const struct fpm_route *rt)
{
	struct rkey k;

	if (vrf_of(st, rt->table) == NULL) {
		fpm.c.other_table++;
		return;
	}
	if (rt->protocol == RTPROT_KERNEL_NUM || link_scope(&rt->dst))
		return;
	fpm.c.route_dels++;
	rkey_of(&rt->dst, rt->table, &k);
	route_unset(st, &k);
}

/* Next-hop object @p zid is new or changed: its routes and the groups it is in follow. */
static void nh_changed(struct fwd_state *st, uint32_t zid, int depth)
{
	uint32_t left = uses_of(zid);

	for (uint32_t id = 0; left > 0 && id < fpm.routes.high; id++) {
		const struct rent *r = &fpm.rents[id];
		if (fpm.routes.refs[id] == 0 || r->nh_id != zid)
			continue;
		left--;
		const struct nent *n = nent_find(zid);
		struct rkey k = *(const struct rkey *)idtab_key(&fpm.routes, id);
		/* the route was not sent again: it keeps its connection, or a
		 * replay's sweep would never find it stale */
		uint32_t gen = r->gen;
		if (n == NULL || !n->usable || (n->family != 0 && n->family != k.family)) {
			route_set(st, &k, (uint32_t)FIB_NH(FIB_KIND_NONE, 0), zid, r->proto, true);
		} else {
			fib_value_hold(n->value);
			route_set(st, &k, n->value, zid, r->proto, false);
		}
		fpm.rents[id].gen = gen;
	}
	if (depth > 0)
		return;
	for (uint32_t id = 0; id < fpm.nhs.high; id++) {
		struct nent *g = &fpm.nents[id];
		if (fpm.nhs.refs[id] == 0 || g->nb_group == 0)
			continue;
		for (int i = 0; i < g->nb_group; i++)
			if (g->group[i] == zid) {
				struct fpm_nexthop nh = { .id = g->zid, .nb_group = g->nb_group };
				for (int j = 0; j < g->nb_group; j++)
					nh.group[j].id = g->group[j];
				nent_resolve(st, g, &nh);
				nh_changed(st, g->zid, depth + 1);
				break;
			}
	}
}

static void nh_add(struct fwd_state *st, const struct fpm_nexthop *nh)
{
	bool created;
	int id = idtab_get(&fpm.nhs, &nh->id, &created);

	fpm.c.nh_adds++;
	if (id < 0) {
		fpm.c.fib_errors++;
		return;
	}
	if ((uint32_t)id >= fpm.ncap) {
		uint32_t ncap = fpm.ncap ? 2 * fpm.ncap : 256;
		while (ncap <= (uint32_t)id)
			ncap *= 2;
		struct nent *n = realloc(fpm.nents, ncap * sizeof(*n));
		if (n == NULL)
			rte_panic("fpm: out of memory for %u next hops\n", ncap);
		fpm.nents = n;
		fpm.ncap = ncap;
	}
	struct nent *n = &fpm.nents[id];
	bool was_usable = false;
	uint32_t was_value = 0;
	if (created) {
		*n = (struct nent){ .zid = nh->id };
	} else {
		idtab_put(&fpm.nhs, (uint32_t)id);
		was_usable = n->usable;
		was_value = n->value;
	}
	n->gen = fpm.gen;
	nent_resolve(st, n, nh);
	/* the same object again (zebra's replay after a reconnection sends
	 * every one first): its routes and groups stay as they are, and a
	 * million of them are not set again in one main-loop turn */
	if (!created && n->usable == was_usable && n->value == was_value)
		return;
	/* its routes (held while it was unknown, too) and the groups it is in */
	nh_changed(st, nh->id, 0);
}

static void nh_del(struct fwd_state *st, uint32_t zid)
{
	int id = idtab_find(&fpm.nhs, &zid);

	(void)st;
	fpm.c.nh_dels++;
	if (id < 0)
		return;
	struct nent *n = &fpm.nents[id];
	if (n->usable)
		defer_put(n->value);
	idtab_put(&fpm.nhs, (uint32_t)id);
	/* routes that still name it keep their own reference until zebra
	 * changes them (it deletes the routes first) */
}

/* ---- frames ------------------------------------------------------------------- */

static bool same_prefix(const struct fpm_route *a, const struct fpm_route *b)
{
	return a->table == b->table && a->dst.len == b->dst.len &&
	       cfg_addr_equal(&a->dst.addr, &b->dst.addr);
}

static void apply(struct fwd_state *st, const struct fpm_msg *m, unsigned nb)
{
	for (unsigned i = 0; i < nb; i++) {
		fpm.c.msgs[m[i].kind]++;
		switch (m[i].kind) {
		case FPM_ROUTE_DEL: {
			/* a delete and an add of one prefix in one frame: the add
			 * replaces it in one store */
			bool readded = false;
			for (unsigned j = i + 1; j < nb && !readded; j++)
				readded = m[j].kind == FPM_ROUTE_ADD &&
					  same_prefix(&m[i].route, &m[j].route);
			if (!readded)
				route_del(st, &m[i].route);
			break;
		}
		case FPM_ROUTE_ADD:
			route_add(st, &m[i].route);
			break;
		case FPM_NH_ADD:
			nh_add(st, &m[i].nh);
			break;
		case FPM_NH_DEL:
			nh_del(st, m[i].nh.id);
			break;
		case FPM_UNSUPPORTED:
			/* what we held for it no longer holds */
			if (m[i].op == FPM_ROUTE_ADD || m[i].op == FPM_ROUTE_DEL) {
				if (m[i].route.dst.addr.family == AF_INET ||
				    m[i].route.dst.addr.family == AF_INET6)
					route_del(st, &m[i].route);
			} else if (m[i].op == FPM_NH_ADD || m[i].op == FPM_NH_DEL) {
				nh_del(st, m[i].nh.id);
			}
			LOG(DEBUG, "unsupported: %s", m[i].why);
			break;
		default:
			break;
		}
	}
}

static void conn_close(const char *why)
{
	if (fpm.conn.fd < 0)
		return;
	if (!fpm.eof)
		ev_del(&fpm.conn);
	close(fpm.conn.fd);
	fpm.conn.fd = -1;
	fpm.used = 0;
	fpm.eof = false;
	if (why != NULL) {
		fpm.c.resets++;
		snprintf(fpm.last_error, sizeof(fpm.last_error), "%s", why);
		LOG(WARNING, "connection from zebra reset: %s", why);
	} else {
		LOG(NOTICE, "zebra closed the FPM connection; its routes stay until it is back");
	}
}

/* Apply the whole frames in the buffer, for at most FPM_TURN_NS. @return frames applied. */
static unsigned drain(void)
{
	struct fwd_state *st = cur();
	uint64_t t0 = tsc_now_ns();
	size_t off = 0;
	unsigned frames = 0;
	char err[256];

	if (atomic_load(&fib_reload_running)) {
		fpm.c.paused_turns++;
		return 0;
	}
	while (off < fpm.used) {
		long len = fpm_frame_len(fpm.buf + off, fpm.used - off, err, sizeof(err));
		if (len == 0)
			break;
		if (len < 0) {
			conn_close(err);
			return frames;
		}
		unsigned nb;
		if (fpm_frame_parse(fpm.buf + off, (size_t)len, fpm.msgs, FPM_FRAME_MSGS, &nb, err,
				    sizeof(err)) < 0) {
			conn_close(err);
			return frames;
		}
		apply(st, fpm.msgs, nb);
		fpm.c.frames++;
		off += (size_t)len;
		frames++;
		if ((frames & 63) == 0 && tsc_now_ns() - t0 > FPM_TURN_NS)
			break;
	}
	if (off > 0) {
		memmove(fpm.buf, fpm.buf + off, fpm.used - off);
		fpm.used -= off;
		fpm.last_msg_ms = control_now_ms();
	}
	fpm.c.apply_ns += tsc_now_ns() - t0;
	return frames;
}

/*
 * zebra closed the connection: what it sent is still applied (a stop of
 * FRR sends its deletes, then closes), a slice a turn (fpm_poll), before
 * the connection is closed.
 */
static void conn_eof(void)
{
	if (fpm.eof)
		return;
	fpm.eof = true;
	ev_del(&fpm.conn); /* nothing more to read; a HUP would fire on and on */
}

static void conn_readable(struct ev_handler *h, uint32_t events)
{
	(void)h;
	if (fpm.eof)
		return;
	if (events & (EPOLLERR | EPOLLHUP) && !(events & EPOLLIN)) {
		conn_eof();
		return;
	}
	if (fpm.used < FPM_BUF) {
		ssize_t n = read(fpm.conn.fd, fpm.buf + fpm.used, FPM_BUF - fpm.used);
		if (n == 0) {
			conn_eof();
			drain();
			return;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				conn_close(strerror(errno));
			return;
		}
		fpm.used += (size_t)n;
		fpm.c.bytes += (uint64_t)n;
	}
	drain();
	/* a full buffer: stop reading until drain makes room (TCP pushes back) */
	if (fpm.conn.fd >= 0 && !fpm.eof)
		ev_mod(&fpm.conn, fpm.used < FPM_BUF ? EPOLLIN : 0);
}

static void listen_readable(struct ev_handler *h, uint32_t events)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	int fd = accept4(h->fd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

	(void)events;
	if (fd < 0)
		return;
	if (fpm.conn.fd >= 0 && !fpm.eof) {
		/* one zebra at a time: a second client (a port check, a second
		 * zebra) must not replace it and sweep its routes */
		close(fd);
		fpm.c.refused++;
		return;
	}
	if (fpm.conn.fd >= 0) {
		while (fpm.used > 0 && !atomic_load(&fib_reload_running) && drain() > 0)
			;
		conn_close(NULL);
	}
	fpm.conn.fd = fd;
	fpm.conn.cb = conn_readable;
	if (ev_add(&fpm.conn, EPOLLIN) < 0) {
		close(fd);
		fpm.conn.fd = -1;
		return;
	}
	fpm.gen++;
	fpm.sweep_pending = true;
	fpm.sweeping = false; /* a sweep of the older connection: this one's replay decides */
	fpm.c.connections++;
	fpm.connected_ms = fpm.last_msg_ms = control_now_ms();
	if (sa.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, fpm.peer,
			  sizeof(fpm.peer));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, fpm.peer,
			  sizeof(fpm.peer));
	LOG(NOTICE,
	    "zebra connected from %s (connection %u): routes it does not send again "
	    "go once it is quiet for %u ms",
	    fpm.peer, fpm.gen, cfg_fpm_get(&atomic_load(&fwd_current)->cfg)->stale_ms);
}

/* ---- sweeping, flushing ------------------------------------------------------ */

/*
 * Drop the routes of older connections (@p all: every route, and without
 * touching the FIB: a fresh FIB that never held them).
 */
static void sweep(struct fwd_state *st, bool all)
{
	for (uint32_t id = 0; id < fpm.routes.high; id++)
		if (fpm.routes.refs[id] != 0 && (all || fpm.rents[id].gen != fpm.gen)) {
			struct rkey k = *(const struct rkey *)idtab_key(&fpm.routes, id);
			if (all)
				fpm.rents[id].pending = true; /* not in this FIB */
			route_unset(st, &k);
			fpm.c.swept_routes += !all;
		}
	for (uint32_t id = 0; id < fpm.nhs.high; id++)
		if (fpm.nhs.refs[id] != 0 && (all || fpm.nents[id].gen != fpm.gen)) {
			nh_del(st, fpm.nents[id].zid);
			fpm.c.swept_nhs += !all;
		}
}

/* Next-hop objects that wanted a free slot, after a reload made room. */
static void retry_unusable(struct fwd_state *st)
{
	for (uint32_t id = 0; id < fpm.nhs.high; id++) {
		struct nent *n = &fpm.nents[id];
		if (fpm.nhs.refs[id] == 0 || !n->retry)
			continue;
		if (n->nb_group == 0) {
			/* its key is known: resolve it as nent_resolve() would */
			if (value_of_key(st, &n->key, &n->value) == 0) {
				n->usable = true;
				n->retry = false;
				nh_changed(st, n->zid, 0);
			}
			continue;
		}
		struct fpm_nexthop nh = { .id = n->zid, .nb_group = n->nb_group };
		for (int j = 0; j < n->nb_group; j++)
			nh.group[j].id = n->group[j];
		nent_resolve(st, n, &nh);
		if (n->usable)
			nh_changed(st, n->zid, 0);
	}
}

static unsigned sweep_poll(void);

/* A partial frame left at EOF: it will never be whole. */
static bool drain_stuck(void)
{
	char err[8];
	return !atomic_load(&fib_reload_running) &&
	       fpm_frame_len(fpm.buf, fpm.used, err, sizeof(err)) == 0;
}

static unsigned fpm_poll(void)
{
	unsigned work = 0;

	if (!fpm.enabled)
		return 0;
	if (fpm.retry_pending && !atomic_load(&fib_reload_running)) {
		fpm.retry_pending = false;
		retry_unusable(cur());
	}
	if (fpm.conn.fd >= 0 && fpm.used > 0) {
		work = drain();
		if (fpm.conn.fd >= 0 && !fpm.eof && fpm.used < FPM_BUF)
			ev_mod(&fpm.conn, EPOLLIN);
	}
	if (fpm.conn.fd >= 0 && fpm.eof && (fpm.used == 0 || drain_stuck()))
		conn_close(NULL);
	work += sweep_poll();
	/* fib.c's ids are the reload's while it runs (one writer at a time) */
	if (fpm.nb_defer > fpm.defer_head && !atomic_load(&fib_reload_running))
		defer_run();
	return work;
}

/*
 * One slice of the replay's sweep: the routes, then the next-hop objects,
 * of older connections, for at most FPM_TURN_NS (120 000 stale routes in
 * one go held the main loop 0.6 s, bench-bgp). @return true once done.
 */
static bool sweep_slice(struct fwd_state *st)
{
	uint64_t t0 = tsc_now_ns();
	unsigned n = 0;

	for (; fpm.sweep_pos < fpm.routes.high; fpm.sweep_pos++) {
		uint32_t id = fpm.sweep_pos;
		if ((++n & 255) == 0 && tsc_now_ns() - t0 > FPM_TURN_NS)
			return false;
		if (fpm.routes.refs[id] == 0 || fpm.rents[id].gen == fpm.gen)
			continue;
		struct rkey k = *(const struct rkey *)idtab_key(&fpm.routes, id);
		route_unset(st, &k);
		fpm.c.swept_routes++;
	}
	for (; fpm.sweep_nh_pos < fpm.nhs.high; fpm.sweep_nh_pos++) {
		uint32_t id = fpm.sweep_nh_pos;
		if (fpm.nhs.refs[id] != 0 && fpm.nents[id].gen != fpm.gen) {
			nh_del(st, fpm.nents[id].zid);
			fpm.c.swept_nhs++;
		}
	}
	return true;
}

static void fpm_timer(uint64_t now)
{
	struct fwd_state *st = cur();

	if (!fpm.enabled || !fpm.sweep_pending || fpm.sweeping || atomic_load(&fib_reload_running))
		return;
	if (fpm.conn.fd >= 0 && fpm.used == 0 &&
	    now - fpm.last_msg_ms >= cfg_fpm_get(&st->cfg)->stale_ms) {
		/* quiet: sweep, a slice a turn (fpm_poll) */
		fpm.sweeping = true;
		fpm.sweep_pos = fpm.sweep_nh_pos = 0;
		fpm.sweep_from = fpm.c.swept_routes;
	}
}

/* A slice of the sweep, when one runs; its end logged. @return work done. */
static unsigned sweep_poll(void)
{
	if (!fpm.sweeping || atomic_load(&fib_reload_running))
		return 0;
	if (!sweep_slice(cur()))
		return 1;
	fpm.sweeping = false;
	fpm.sweep_pending = false;
	LOG(NOTICE,
	    "replay of connection %u done: %" PRIu64 " stale routes swept, %u "
	    "IPv4 and %u IPv6 routes held",
	    fpm.gen, fpm.c.swept_routes - fpm.sweep_from, fpm.nb4, fpm.nb6);
	return 1;
}

/* Which FIB pair each VRF of @p st has, for fpm_state_published() to compare. */
static void fpm_vrfs_keep(const struct fwd_state *st)
{
	fpm.nb_vrfs = (uint32_t)st->nb_vrfs;
	for (int v = 0; v < st->nb_vrfs; v++) {
		fpm.tables[v] = st->vrfs[v].table;
		fpm.fibs[v] = st->vrfs[v].fibs;
	}
}

static void fpm_state_published(const struct fwd_state *st)
{
	if (!fpm.enabled)
		return;
	/* A VRF with a fresh FIB (without our routes, perhaps with other
	 * indexes), or VRFs added or removed (tables zebra's routes were not
	 * taken for, or whose FIB is gone): forget the routes, and have zebra
	 * send them again. */
	bool fresh = fpm.nb_vrfs != (uint32_t)st->nb_vrfs;
	for (int v = 0; !fresh && v < st->nb_vrfs; v++)
		fresh = fpm.tables[v] != st->vrfs[v].table || fpm.fibs[v] != st->vrfs[v].fibs;
	if (fresh && fpm.nb_vrfs > 0 && fpm.routes.live + fpm.nhs.live > 0) {
		sweep((struct fwd_state *)(uintptr_t)st, true);
		fpm.c.flushed++;
		conn_close("the reload built a fresh FIB or changed the VRFs: zebra sends its "
			   "routes again");
	}
	fpm_vrfs_keep(st);
	/* next-hop objects that wanted a free slot: the new state has room,
	 * once the reload has finished with the FIB (fpm_poll) */
	fpm.retry_pending = true;
	/* the configuration's prefixes may have changed: what they hide */
	for (uint32_t id = 0; id < fpm.routes.high; id++)
		if (fpm.routes.refs[id] != 0)
			fpm.rents[id].shadowed = shadowed_by_config(st, idtab_key(&fpm.routes, id));
}

/* ---- the overlay: what a dropped config prefix falls back to ----------------- */

static bool ov_find(const struct rkey *k, uint32_t *value)
{
	int id = idtab_find(&fpm.routes, k);

	if (id < 0 || fpm.rents[id].pending || fpm.rents[id].full)
		return false;
	*value = fpm.rents[id].value;
	return true;
}

static bool ov_find4(uint32_t table, uint32_t addr, uint8_t len, uint32_t *value)
{
	struct rkey k = { .family = AF_INET, .len = len, .table = table };

	memcpy(k.addr, &addr, 4);
	return ov_find(&k, value);
}

static bool ov_find6(uint32_t table, const uint8_t *addr, uint8_t len, uint32_t *value)
{
	struct rkey k = { .family = AF_INET6, .len = len, .table = table };

	memcpy(k.addr, addr, 16);
	return ov_find(&k, value);
}

static void ov_count(uint32_t table, uint32_t *n4, uint32_t *n6)
{
	const struct tcount *t = tcount_of(table, false);

	*n4 = t != NULL ? t->n4 : 0;
	*n6 = t != NULL ? t->n6 : 0;
}

static uint32_t ov_rows(void)
{
	return fpm.routes.high;
}

static bool ov_row(uint32_t row, struct fib_overlay_route *r)
{
	if (row >= fpm.routes.high || fpm.routes.refs[row] == 0)
		return false;
	const struct rkey *k = idtab_key(&fpm.routes, row);
	const struct rent *e = &fpm.rents[row];
	r->table = k->table;
	r->family = k->family;
	r->len = k->len;
	memcpy(r->addr, k->addr, 16);
	r->value = e->value;
	r->protocol = e->proto;
	r->active = !e->shadowed && !e->pending && !e->full;
	r->pending = e->pending;
	r->full = e->full;
	return true;
}

static bool ov_route(uint32_t table, int family, const void *addr, uint8_t len,
		     struct fib_overlay_route *r)
{
	struct rkey k = { .family = (uint8_t)family, .len = len, .table = table };

	memcpy(k.addr, addr, family == AF_INET ? 4 : 16);
	int id = idtab_find(&fpm.routes, &k);
	return id >= 0 && ov_row((uint32_t)id, r);
}

static const struct fib_overlay fpm_overlay = {
	.route = ov_route,
	.name = "fpm",
	.find4 = ov_find4,
	.find6 = ov_find6,
	.count = ov_count,
	.rows = ov_rows,
	.row = ov_row,
};

/* ---- start, show ------------------------------------------------------------------- */

struct listen_arg {
	const struct cfg_fpm *f;
	char *err;
	size_t errlen;
};

/* `lo` up in the calling thread's namespace (a new one's is down, and
 * zebra connects to 127.0.0.1 there). */
static void loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) == 0)
			LOG(INFO, "set lo up in the control namespace");
	}
	close(s);
}

static int open_listener(void *arg)
{
	const struct listen_arg *la = arg;
	const struct cfg_fpm *f = la->f;
	struct sockaddr_storage sa = { 0 };
	socklen_t sl;
	int one = 1, fd;

	loopback_up();

	if (f->address.family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(f->port);
		s4->sin_addr.s_addr = htonl(f->address.v4);
		sl = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(f->port);
		memcpy(&s6->sin6_addr, f->address.v6, 16);
		sl = sizeof(*s6);
	}
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sl) < 0 || listen(fd, 4) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

static int fpm_start(void)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct cfg_fpm *f = cfg_fpm_get(&st->cfg);
	struct listen_arg la = { f, NULL, 0 };
	char a[64];

	fpm.enabled = f->enabled;
	if (!fpm.enabled)
		return 0;
	fpm.routes.key_size = sizeof(struct rkey);
	fpm.routes.max = FPM_MAX_ROUTES;
	fpm.nhs.key_size = sizeof(uint32_t);
	fpm.nhs.max = FPM_MAX_NHS;
	fpm.uses.key_size = sizeof(uint32_t);
	fpm.uses.max = FPM_MAX_NHS;
	/* room for as many routes as the FIB holds (up to 4M), so that a full
	 * table's load never rehashes a million keys in one main-loop turn */
	uint32_t room = 0;
	for (int v = 0; v < st->nb_vrfs; v++)
		room += st->vrfs[v].fibs->cap.routes4 + st->vrfs[v].fibs->cap.routes6;
	room = RTE_MIN(room, FPM_RESERVE_MAX);
	if (idtab_reserve(&fpm.routes, room) < 0)
		return -ENOMEM;
	rent_grow(room > 0 ? room - 1 : 0);
	fpm.buf = aligned_alloc(64, FPM_BUF);
	if (fpm.buf == NULL)
		return -ENOMEM;
	int fd = cplane_in_netns(open_listener, &la);
	if (fd < 0) {
		LOG(ERR, "cannot listen on %s port %u for zebra: %s",
		    config_format_addr(&f->address, a, sizeof(a)), f->port, strerror(-fd));
		return fd;
	}
	fpm.listen.fd = fd;
	fpm.listen.cb = listen_readable;
	fpm_vrfs_keep(st);
	fib_overlay_set(&fpm_overlay);
	LOG(INFO, "FPM server on %s port %u", config_format_addr(&f->address, a, sizeof(a)),
	    f->port);
	return ev_add(&fpm.listen, EPOLLIN);
}

static int show_fpm(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fpm_counters *c = &fpm.c;
	json_t *msgs = json_object();

	(void)argc, (void)argv, (void)err, (void)errlen;
	for (int k = 0; k < FPM_KIND_MAX; k++)
		json_object_set_new(msgs, fpm_msg_kind_name(k),
				    json_integer((json_int_t)c->msgs[k]));
	json_t *o = json_object();
#define SET(k, v) json_object_set_new(o, k, v)
#define CNT(k, v) SET(k, json_integer((json_int_t)(v)))
	SET("enabled", json_boolean(fpm.enabled));
	SET("state", json_string(fpm.conn.fd >= 0 ? "connected" : "listening"));
	SET("peer", json_string(fpm.conn.fd >= 0 ? fpm.peer : ""));
	CNT("connection", fpm.gen);
	SET("replaying", json_boolean(fpm.sweep_pending));
	CNT("routes4", fpm.nb4);
	CNT("routes6", fpm.nb6);
	CNT("nexthops", fpm.nhs.live);
	CNT("connections", c->connections);
	CNT("refused", c->refused);
	CNT("resets", c->resets);
	CNT("frames", c->frames);
	CNT("bytes", c->bytes);
	SET("messages", msgs);
	CNT("route_adds", c->route_adds);
	CNT("route_dels", c->route_dels);
	CNT("replaces", c->replaces);
	CNT("nh_adds", c->nh_adds);
	CNT("nh_dels", c->nh_dels);
	CNT("unknown_nexthop", c->unknown_nexthop);
	CNT("unusable", c->unusable);
	CNT("other_table", c->other_table);
	CNT("connected_skipped", c->connected);
	CNT("fib_errors", c->fib_errors);
	CNT("unknown_route", c->unknown_route);
	CNT("swept_routes", c->swept_routes);
	CNT("swept_nexthops", c->swept_nhs);
	CNT("flushed", c->flushed);
	CNT("paused_turns", c->paused_turns);
	CNT("apply_us", c->apply_ns / 1000);
	SET("last_error", json_string(fpm.last_error));
#undef SET
#undef CNT
	*data = o;
	return 0;
}

/* `show fpm nexthops`: zebra's next-hop objects and what vbrd made of each. */
static int show_fpm_nexthops(int argc, const char *const *argv, json_t **data, char *err,
			     size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	json_t *rows = json_array();
	char gw[64];

	(void)argc, (void)argv, (void)err, (void)errlen;
	for (uint32_t id = 0; id < fpm.nhs.high; id++) {
		const struct nent *n = &fpm.nents[id];
		if (fpm.nhs.refs[id] == 0)
			continue;
		json_t *members = json_array();
		for (int i = 0; i < n->nb_group; i++)
			json_array_append_new(members, json_integer(n->group[i]));
		uint32_t kind = FIB_NH_KIND(n->value);
		struct cfg_addr a = { .family = (int)n->key.family };
		if (a.family == AF_INET)
			a.v4 = n->key.gw;
		else
			memcpy(a.v6, n->key.gw6, 16);
		bool one = n->nb_group == 0 && n->usable && kind != FIB_KIND_NONE;
		json_array_append_new(
			rows, json_pack("{s:I, s:b, s:s, s:s, s:s, s:o, s:I}", "id",
					(json_int_t)n->zid, "usable", n->usable, "type",
					fwd_nh_kinds[kind]      ? fwd_nh_kinds[kind]->name
					: kind == FIB_KIND_ECMP ? "ecmp"
					: kind == FIB_KIND_NONE ? (n->usable ? "blackhole" : "-")
								: "next_hop",
					"interface",
					one && n->key.iface < (uint32_t)st->nb_ifaces
						? st->ifaces[n->key.iface].name
						: "",
					"via",
					one && (a.family == AF_INET ? a.v4 != 0 : true)
						? config_format_addr(&a, gw, sizeof(gw))
						: "",
					"members", members, "routes", (json_int_t)uses_of(n->zid)));
	}
	*data = json_pack("{s:o}", "nexthops", rows);
	return 0;
}

static int fpm_module_start(void)
{
	int ret = ctl_register(
		"show fpm", "show fpm: the FPM server's connection, routes and counters", show_fpm);
	if (ret == 0)
		ret = ctl_register(
			"show fpm nexthops",
			"show fpm nexthops: zebra's next-hop objects and what vbrd made of each",
			show_fpm_nexthops);
	if (ret == 0)
		ret = ctl_export("show fpm", "/vbrd/fpm", "routes from FRR over FPM");
	if (ret == 0)
		ret = fpm_start();
	return ret;
}

static void fpm_fini(void)
{
	fib_overlay_set(NULL);
	conn_close(NULL);
	if (fpm.listen.fd >= 0) {
		ev_del(&fpm.listen);
		close(fpm.listen.fd);
		fpm.listen.fd = -1;
	}
	free(fpm.buf);
	fpm.buf = NULL;
	/* the FIB goes with the process: no references to give back one by one */
	idtab_free(&fpm.routes);
	idtab_free(&fpm.nhs);
	idtab_free(&fpm.uses);
	free(fpm.rents);
	free(fpm.nents);
	free(fpm.defer);
}

static struct vbrd_module fpm_module = {
	.name = "fpm",
	.depends_on = (const char *const[]){ "cplane", "bfd", NULL },
	.state_published = fpm_state_published,
	.start = fpm_module_start,
	.poll = fpm_poll,
	.timer = fpm_timer,
	.timer_ms = 50,
	.fini = fpm_fini,
};
VBRD_MODULE(fpm_module);
