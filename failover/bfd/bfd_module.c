/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The BFD module (bfd.h): builds each generation's sessions and
 * groups from the config, keeps their run-time objects across reloads,
 * and turns the BFD worker's events into log lines and history.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <arpa/inet.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "core/tsc.h"
#include "core/history.h"
#include "core/log.h"
#include "failover/bfd/bfd.h"
#include "pipeline/fib.h"
#include "pipeline/fwd.h"
#include "pipeline/nh_kind.h"

VBRD_LOG_TYPE(bfd);

struct bfd_session_rt *bfd_sessions[BFD_SLOTS];
static struct fgroup_rt *fgroup_rts[FGROUP_MAX];
struct rte_ring *bfd_changes;
struct rte_ring *bfd_rx_ring;
_Atomic uint64_t bfd_changes_lost;

static struct bfd_change history_buf[BFD_HISTORY];
static struct history history = HISTORY_INIT(history_buf);

const char *fgroup_reason_name(uint8_t reason)
{
	static const char *const names[] = { "none", "bfd_down", "failback", "restored",
					     "startup" };
	return reason < RTE_DIM(names) ? names[reason] : "unknown";
}

const char *fgroup_sel_name(uint32_t sel)
{
	return sel == FGROUP_SEL_0 ? "member0" : sel == FGROUP_SEL_1 ? "member1" : "both";
}

unsigned bfd_history_get(struct bfd_change *out, unsigned cap)
{
	return history_get(&history, out, cap);
}

/* ---- building a generation ------------------------------------------------- */

static void session_key(const struct vbrd_config *cfg, const struct cfg_bfd_session *cs,
			struct bfd_session_key *k)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", cs->name);
	k->kind = cs->kind;
	if (cs->kind == CFG_BFD_SINGLE_HOP)
		snprintf(k->where, sizeof(k->where), "%s", cfg->ifaces[cs->iface].name);
	else if (cs->kind == CFG_BFD_TUNNEL)
		snprintf(k->where, sizeof(k->where), "%s", cfg->path_groups[cs->path_group].name);
	k->local = cs->local;
	k->peer = cs->peer;
}

static bool addr_eq(const struct cfg_addr *a, const struct cfg_addr *b)
{
	if (a->family != b->family)
		return false;
	return a->family == AF_INET ? a->v4 == b->v4 : memcmp(a->v6, b->v6, 16) == 0;
}

static bool key_eq(const struct bfd_session_key *a, const struct bfd_session_key *b)
{
	return strcmp(a->name, b->name) == 0 && a->kind == b->kind &&
	       strcmp(a->where, b->where) == 0 && addr_eq(&a->local, &b->local) &&
	       addr_eq(&a->peer, &b->peer);
}

/* The run-time session for @p k: the running one, or a new one in Down. */
static struct bfd_session_rt *session_get(const struct bfd_session_key *k,
					  const struct bfd_params *p)
{
	int free_slot = -1;

	for (int i = 0; i < BFD_SLOTS; i++) {
		if (bfd_sessions[i] == NULL) {
			if (free_slot < 0)
				free_slot = i;
		} else if (key_eq(&bfd_sessions[i]->key, k)) {
			bfd_sessions[i]->refs++;
			return bfd_sessions[i];
		}
	}
	if (free_slot < 0)
		return NULL;
	struct bfd_session_rt *rt = calloc(1, sizeof(*rt));
	if (rt == NULL)
		return NULL;
	rt->key = *k;
	rt->slot = (uint16_t)free_slot;
	rt->sport = (uint16_t)(BFD_SPORT_MIN + free_slot);
	rt->refs = 1;
	/* RFC 5880 §6.3: unique and nonzero; the low 16 bits name the slot
	 * (the receive demultiplexer's index), the high 16 are random so a
	 * restarted vbrd does not reuse the discriminators of its last run */
	uint32_t hi = (uint32_t)(rte_rand() % 0xffff) + 1;
	uint32_t disc = hi << 16 | (uint32_t)(free_slot + 1);
	rt->seed = (uint32_t)rte_rand() | 1;
	bfd_session_init(&rt->s, p, disc, rt->seed, tsc_now_ns());
	rt->started = true;
	bfd_sessions[free_slot] = rt;
	return rt;
}

static void session_put(struct bfd_session_rt *rt)
{
	if (rt == NULL || --rt->refs > 0)
		return;
	bfd_sessions[rt->slot] = NULL;
	free(rt);
}

static void member_desc(const struct vbrd_config *cfg, const struct cfg_fgroup_member *cm,
			char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	const struct bfd_config *fc = bfd_config_get(cfg);
	const char *bfd = cm->bfd >= 0 ? fc->sessions[cm->bfd].name : "-";

	if (cm->kind == CFG_FG_TUNNEL) {
		snprintf(buf, len, "path_group %s bfd %s", cfg->path_groups[cm->path_group].name,
			 bfd);
		return;
	}
	a[0] = b[0] = '\0';
	if (cm->via.family == AF_INET)
		config_format_addr(&cm->via, a, sizeof(a));
	if (cm->via6.family == AF_INET6)
		config_format_addr(&cm->via6, b, sizeof(b));
	snprintf(buf, len, "%s via %s%s%s bfd %s", cfg->ifaces[cm->iface].name, a, *b ? " " : "", b,
		 bfd);
}

static struct fgroup_rt *group_get(const struct vbrd_config *cfg, const struct cfg_fgroup *cg)
{
	char d[2][160];
	int free_slot = -1;

	for (int i = 0; i < 2; i++)
		member_desc(cfg, &cg->members[i], d[i], sizeof(d[i]));
	for (int i = 0; i < FGROUP_MAX; i++) {
		struct fgroup_rt *g = fgroup_rts[i];
		if (g == NULL) {
			if (free_slot < 0)
				free_slot = i;
		} else if (strcmp(g->name, cg->name) == 0 && strcmp(g->members[0], d[0]) == 0 &&
			   strcmp(g->members[1], d[1]) == 0 && g->mode == cg->mode) {
			g->refs++;
			return g;
		}
	}
	if (free_slot < 0)
		return NULL;
	struct fgroup_rt *g = calloc(1, sizeof(*g));
	if (g == NULL)
		return NULL;
	snprintf(g->name, sizeof(g->name), "%s", cg->name);
	memcpy(g->members, d, sizeof(d));
	g->mode = cg->mode;
	g->refs = 1;
	atomic_store(&g->sel, cg->mode == CFG_FG_LOAD_BALANCE ? FGROUP_SEL_BOTH : FGROUP_SEL_0);
	fgroup_rts[free_slot] = g;
	return g;
}

static void group_put(struct fgroup_rt *g)
{
	if (g == NULL || --g->refs > 0)
		return;
	for (int i = 0; i < FGROUP_MAX; i++)
		if (fgroup_rts[i] == g)
			fgroup_rts[i] = NULL;
	free(g);
}

static int hold_value(struct bfd_gen *fo, uint32_t value)
{
	fo->held[fo->nb_held++] = value;
	return 0;
}

/* A line member's next hop of @p family: a stable id, held by @p fo. */
static int member_nexthop(struct bfd_gen *fo, const struct cfg_fgroup_member *cm, int family,
			  uint32_t *value)
{
	struct fib_nh_key k = { .family = (uint32_t)family, .iface = (uint32_t)cm->iface };
	int id;

	if (family == AF_INET)
		k.gw = cm->via.v4;
	else
		memcpy(k.gw6, cm->via6.v6, 16);
	id = fib_nexthop_get(&k);
	if (id < 0)
		return id;
	*value = FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)id);
	return hold_value(fo, *value);
}

static void bfd_gen_free(struct fwd_state *st);

static int bfd_gen_prepare(struct fwd_state *st, const struct vbrd_config *cfg,
			   const struct fwd_state *prev, char *err, size_t errlen)
{
	const struct bfd_config *fc = bfd_config_get(cfg);
	struct bfd_gen *fo;
	int ret = -ENOMEM;

	(void)prev;
	fo = calloc(1, sizeof(*fo));
	if (fo == NULL)
		goto nomem;
	st->feature[bfd_module.id] = fo;
	memset(fo->sess_by_slot, 0xff, sizeof(fo->sess_by_slot));
	if (fc == NULL)
		return 0;
	fo->sess = calloc((size_t)fc->nb_sessions + 1, sizeof(*fo->sess));
	fo->groups = calloc((size_t)fc->nb_groups + 1, sizeof(*fo->groups));
	fo->held = calloc((size_t)fc->nb_groups * 4 + 1, sizeof(*fo->held));
	if (fo->sess == NULL || fo->groups == NULL || fo->held == NULL)
		goto nomem;

	for (int i = 0; i < fc->nb_sessions; i++) {
		const struct cfg_bfd_session *cs = &fc->sessions[i];
		struct bfd_sess *s = &fo->sess[i];
		struct bfd_session_key k;

		session_key(cfg, cs, &k);
		s->rt = session_get(&k, &cs->params);
		if (s->rt == NULL) {
			snprintf(err, errlen,
				 "%s:%d: bfd session %s: no run-time slot left (%d: the running "
				 "sessions and this config's together) or no memory",
				 cfg->file, cs->line, cs->name, BFD_SLOTS);
			goto fail;
		}
		fo->nb_sess = i + 1;
		s->params = cs->params;
		s->kind = cs->kind;
		s->local = cs->local;
		s->peer = cs->peer;
		s->dport = cs->kind == CFG_BFD_SINGLE_HOP ? BFD_PORT_SINGLE : BFD_PORT_MULTI;
		s->min_ttl = cs->min_ttl;
		if (cs->kind == CFG_BFD_SINGLE_HOP) {
			s->iface = (uint16_t)cs->iface;
		} else if (cs->kind == CFG_BFD_TUNNEL) {
			const struct cfg_path_group *pg = &cfg->path_groups[cs->path_group];
			s->path_group = (uint16_t)cs->path_group;
			s->iface = st->tunnels[pg->paths[0].tunnel].iface;
		} else {
			s->iface = FWD_NO_IFACE;
		}
		fo->sess_by_slot[s->rt->slot] = (uint16_t)i;
	}
	for (int i = 0; i < fc->nb_groups; i++) {
		const struct cfg_fgroup *cg = &fc->groups[i];
		struct fgroup *g = &fo->groups[i];

		g->rt = group_get(cfg, cg);
		if (g->rt == NULL) {
			snprintf(err, errlen, "failover group %s: no memory", cg->name);
			goto fail;
		}
		fo->nb_groups = i + 1;
		g->mode = cg->mode;
		g->revertive = cg->revertive;
		g->hold_down_ns = (uint64_t)cg->hold_down_ms * 1000000ull;
		for (int m = 0; m < 2; m++) {
			const struct cfg_fgroup_member *cm = &cg->members[m];
			struct fgroup_member *fm = &g->m[m];

			fm->value4 = fm->value6 = FGROUP_NO_VALUE;
			fm->sess = cm->bfd;
			if (cm->kind == CFG_FG_TUNNEL) {
				fm->value4 = fm->value6 = FIB_NH(FIB_KIND_PATHGRP,
								 (uint32_t)cm->path_group);
				continue;
			}
			if (cm->via.family == AF_INET &&
			    (ret = member_nexthop(fo, cm, AF_INET, &fm->value4)) < 0)
				goto ids;
			if (cm->via6.family == AF_INET6 &&
			    (ret = member_nexthop(fo, cm, AF_INET6, &fm->value6)) < 0)
				goto ids;
		}
	}
	return 0;

ids:
	snprintf(err, errlen, "failover groups: %s",
		 ret == -ENOSPC ? "no next-hop id left" : "no memory");
	return ret;
nomem:
	snprintf(err, errlen, "failover: out of memory building the forwarding state");
fail:
	return -ENOMEM;
}

static void bfd_gen_free(struct fwd_state *st)
{
	struct bfd_gen *fo = st->feature[bfd_module.id];

	if (fo == NULL)
		return;
	for (int i = 0; i < fo->nb_sess; i++)
		session_put(fo->sess[i].rt);
	for (int i = 0; i < fo->nb_groups; i++)
		group_put(fo->groups[i].rt);
	for (int i = 0; i < fo->nb_held; i++)
		fib_value_put(fo->held[i]);
	free(fo->sess);
	free(fo->groups);
	free(fo->held);
	free(fo);
	st->feature[bfd_module.id] = NULL;
}

/* ---- events ------------------------------------------------------------ */

static void log_event(const struct bfd_change *e)
{
	if (e->type == BFD_CHANGE_SESSION) {
		LOG(NOTICE, "bfd session %s: %s -> %s (diag %s, peer %s)", e->name,
		    bfd_state_name(e->old), bfd_state_name(e->new), bfd_diag_name(e->diag),
		    bfd_state_name(e->remote_state));
		return;
	}
	LOG(NOTICE, "failover group %s: %s -> %s (%s%s%s), detection to switch %.1f us", e->name,
	    fgroup_sel_name(e->old), fgroup_sel_name(e->new), fgroup_reason_name(e->reason),
	    e->reason == FGROUP_REASON_DOWN ? ": " : "",
	    e->reason == FGROUP_REASON_DOWN ? bfd_diag_name(e->diag) : "",
	    e->t_detect && e->t >= e->t_detect ? (double)(e->t - e->t_detect) / 1000.0 : 0.0);
}

static unsigned bfd_poll(void)
{
	struct bfd_change ev[32];
	unsigned n, total = 0;

	if (bfd_changes == NULL)
		return 0;
	while ((n = rte_ring_dequeue_burst_elem(bfd_changes, ev, sizeof(ev[0]), RTE_DIM(ev),
						NULL)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			log_event(&ev[i]);
			history_push(&history, &ev[i]);
		}
		total += n;
	}
	return total;
}

/* ---- lifecycle ------------------------------------------------------------- */

static int bfd_init(const struct vbrd_config *cfg)
{
	(void)cfg;
	bfd_changes = rte_ring_create_elem("bfd_changes", sizeof(struct bfd_change), 4096,
					   SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	bfd_rx_ring = rte_ring_create("bfd_rx", 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (bfd_changes == NULL || bfd_rx_ring == NULL) {
		LOG(ERR, "cannot create the BFD rings: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/* No fini: the rings are the BFD worker's, and a module's fini runs before
 * the workers module's (reverse dependency order), which is what stops the
 * workers. The rings and any mbuf left on them go with the EAL's memory. */

struct vbrd_module bfd_module = {
	.name = "bfd",
	.depends_on = (const char *const[]){ "workers", NULL },
	.init = bfd_init,
	.state_prepare = bfd_gen_prepare,
	.state_free = bfd_gen_free,
	.start = bfd_show_start,
	.poll = bfd_poll,
};
VBRD_MODULE(bfd_module);
