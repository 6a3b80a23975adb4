/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The path-selection module (pathsel.h): builds each generation's selected
 * groups from section pathsel, keeps their probes across reloads,
 * turns the BFD worker's events into log lines and history, and chooses a
 * packet's path when a group has tiers by class.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ring.h>

#include "core/tsc.h"
#include "core/history.h"
#include "core/log.h"
#include "failover/bfd/bfd.h"
#include "failover/pathsel/pathsel.h"
#include "pipeline/local.h"
#include "pipeline/worker.h"
#include "qos/classify.h"
#include "qos/qos_config.h"

VBRD_LOG_TYPE(pathsel);

struct pathsel_plane_rt *pathsel_planes[PATHSEL_PLANE_SLOTS];
static struct pathsel_group_rt *pathsel_groups[2 * PATHSEL_MAX_GROUPS];
struct rte_ring *pathsel_events;
struct rte_ring *pathsel_rx_ring;
_Atomic uint64_t pathsel_events_lost;

_Atomic uint32_t pathsel_adopt_gen;

static struct pathsel_event_rec history_buf[PATHSEL_HISTORY];
static struct history history = HISTORY_INIT(history_buf);

unsigned pathsel_history_get(struct pathsel_event_rec *out, unsigned cap)
{
	return history_get(&history, out, cap);
}

/* ---- run-time objects ------------------------------------------------------ */

static void group_key(const struct vbrd_config *cfg, const struct cfg_ps_group *cg, char *key,
		      size_t len)
{
	const struct cfg_path_group *pg = &cfg->path_groups[cg->pg_index];
	int n = snprintf(key, len, "%s/%u", pg->name, cg->window);

	for (int k = 0; k < pg->nb_paths && n > 0 && (size_t)n < len; k++)
		n += snprintf(key + n, len - (size_t)n, "/%s:%d:%d", pg->paths[k].name,
			      pg->paths[k].plane, pg->paths[k].nb_planes);
}

static void plane_free(struct pathsel_plane_rt *p)
{
	if (p == NULL)
		return;
	free(p->mem);
	free(p);
}

static void group_free(struct pathsel_group_rt *g)
{
	/* The BFD worker finds planes by slot (a reply's port), whatever the
	 * generation: clear the slots, wait until every worker has passed a
	 * quiescent state, then free. */
	for (int k = 0; k < g->nb_paths; k++)
		for (int j = 0; j < g->paths[k].nb_planes; j++)
			if (g->paths[k].planes[j] != NULL)
				__atomic_store_n(&pathsel_planes[g->paths[k].planes[j]->slot], NULL,
						 __ATOMIC_RELEASE);
	if (dp.rcu != NULL)
		rte_rcu_qsbr_synchronize(dp.rcu, RTE_QSBR_THRID_INVALID);
	for (unsigned i = 0; i < g->nb_spread; i++)
		free(g->spread[i]);
	free(g->spread);
	for (int k = 0; k < g->nb_paths; k++)
		for (int j = 0; j < g->paths[k].nb_planes; j++)
			plane_free(g->paths[k].planes[j]);
	free(g);
}

static struct pathsel_plane_rt *plane_new(struct pathsel_group_rt *g, int path, int plane)
{
	struct pathsel_plane_rt *p = calloc(1, sizeof(*p));
	unsigned slot;

	if (p == NULL)
		return NULL;
	for (slot = 0; slot < PATHSEL_PLANE_SLOTS && pathsel_planes[slot] != NULL; slot++)
		;
	if (slot == PATHSEL_PLANE_SLOTS ||
	    (p->mem = calloc(1, pathsel_plane_mem_size(g->window))) == NULL) {
		free(p);
		return NULL;
	}
	p->slot = (uint16_t)slot;
	p->path = (uint8_t)path;
	p->plane = (uint8_t)plane;
	p->g = g;
	pathsel_plane_init(&p->m, p->mem, g->window);
	pathsel_planes[slot] = p;
	return p;
}

static struct pathsel_group_rt *group_get(const struct vbrd_config *cfg,
					  const struct cfg_ps_group *cg)
{
	const struct cfg_path_group *pg = &cfg->path_groups[cg->pg_index];
	char key[sizeof(pathsel_groups[0]->key)];
	unsigned free_at = RTE_DIM(pathsel_groups);

	group_key(cfg, cg, key, sizeof(key));
	for (unsigned i = 0; i < RTE_DIM(pathsel_groups); i++) {
		if (pathsel_groups[i] == NULL) {
			if (free_at == RTE_DIM(pathsel_groups))
				free_at = i;
			continue;
		}
		if (strcmp(pathsel_groups[i]->key, key) == 0) {
			pathsel_groups[i]->refs++;
			return pathsel_groups[i];
		}
	}
	if (free_at == RTE_DIM(pathsel_groups))
		return NULL;
	struct pathsel_group_rt *g = calloc(1, sizeof(*g));
	if (g == NULL)
		return NULL;
	snprintf(g->name, sizeof(g->name), "%s", pg->name);
	snprintf(g->key, sizeof(g->key), "%s", key);
	g->window = cg->window;
	g->nb_paths = pg->nb_paths;
	g->next_decide = UINT64_MAX;
	for (int t = 0; t < PATHSEL_TIERS; t++)
		g->applied[t] = -1;
	for (int k = 0; k < pg->nb_paths; k++) {
		struct pathsel_path_rt *pr = &g->paths[k];
		snprintf(pr->name, sizeof(pr->name), "%s", pg->paths[k].name);
		pr->plane = pg->paths[k].plane;
		pr->nb_planes = (uint16_t)(pg->paths[k].nb_planes > 0 ? pg->paths[k].nb_planes : 1);
		pr->healthy_applied = (uint16_t)((1u << pr->nb_planes) - 1);
		for (int j = 0; j < pr->nb_planes; j++)
			if ((pr->planes[j] = plane_new(g, k, j)) == NULL) {
				group_free(g);
				return NULL;
			}
	}
	g->refs = 1;
	pathsel_groups[free_at] = g;
	return g;
}

static void group_put(struct pathsel_group_rt *g)
{
	if (g == NULL || --g->refs > 0)
		return;
	for (unsigned i = 0; i < RTE_DIM(pathsel_groups); i++)
		if (pathsel_groups[i] == g)
			pathsel_groups[i] = NULL;
	group_free(g);
}

/* ---- the per-packet chooser ------------------------------------------------- */

const struct fwd_path *pathsel_choose(struct worker *w, const struct fwd_state *st,
				      const struct fwd_path_group *g, struct rte_mbuf *m,
				      uint32_t hash)
{
	const struct pathsel_group *pg = g->choose_ctx;
	enum cfg_tier tier = pg->default_tier;

	(void)st;
	if (pg->classifier != NULL) {
		uint32_t cls;
		qos_classify_burst(pg->classifier, &m, 1, &cls);
		if (cls != 0)
			tier = pg->class_tier[cls - 1];
	}
	struct pathsel_group_rt *rt = pg->rt;
	if (pg->flowlet_gap_tsc != 0 && w->id < rt->nb_spread) {
		const struct spread_weights *sw =
			&rt->spread_w[tier][atomic_load_explicit(&rt->spread_cur[tier],
								 memory_order_acquire) &
					    1];
		int k = spread_pick(rt->spread[w->id], sw, hash, rte_pktmbuf_pkt_len(m), w->tsc,
				    pg->flowlet_gap_tsc);
		return k >= 0 && k < CFG_MAX_PATHS ? pg->path[k] : NULL;
	}
	return atomic_load_explicit(&pg->tier_active[tier], memory_order_acquire);
}

/* The index in the group of a tier's chosen path (FWD_NO_PATH: none). */
static uint8_t tier_path_index(const struct pathsel_group *pg, const struct fwd_path_group *g,
			       enum cfg_tier tier)
{
	const struct fwd_path *p = atomic_load_explicit(&pg->tier_active[tier],
							memory_order_acquire);

	for (unsigned k = 0; p != NULL && k < g->nb_paths && k < CFG_MAX_PATHS; k++)
		if (pg->path[k] == p)
			return (uint8_t)k;
	return FWD_NO_PATH;
}

/* The spread pick of @p n packets of one tier (pathsel_choose_burst()). */
static void spread_tier(struct worker *w, const struct pathsel_group *pg, enum cfg_tier tier,
			const uint32_t *hash, const uint32_t *len, unsigned n, uint8_t *path)
{
	struct pathsel_group_rt *rt = pg->rt;
	const struct spread_weights *sw =
		&rt->spread_w[tier]
			     [atomic_load_explicit(&rt->spread_cur[tier], memory_order_acquire) & 1];

	/* its path indexes are the group's (< CFG_MAX_PATHS), or FWD_NO_PATH */
	spread_pick_burst(rt->spread[w->id], sw, hash, len, n, w->tsc, pg->flowlet_gap_tsc, path);
}
_Static_assert(SPREAD_NO_PATH == FWD_NO_PATH && SPREAD_MAX_PATHS == CFG_MAX_PATHS,
	       "spread_pick_burst()'s paths are choose_burst()'s");

void pathsel_choose_burst(struct worker *w, const struct fwd_state *st,
			  const struct fwd_path_group *g, struct rte_mbuf **pkts,
			  const uint32_t *hash, const uint32_t *len, unsigned n, uint8_t *path)
{
	const struct pathsel_group *pg = g->choose_ctx;
	const bool spread = pg->flowlet_gap_tsc != 0 && w->id < pg->rt->nb_spread;

	(void)st;
	if (pg->classifier == NULL) {
		/* one tier for all: its weights, or its path, once */
		if (spread) {
			spread_tier(w, pg, pg->default_tier, hash, len, n, path);
			return;
		}
		uint8_t k = tier_path_index(pg, g, pg->default_tier);
		for (unsigned i = 0; i < n; i++)
			path[i] = k;
		return;
	}

	/* tiers by class: the burst classified in one call, then each tier's
	 * packets together (a burst's packets are simultaneous: the order in
	 * which the tiers' flowlets are scanned does not matter) */
	uint32_t cls[FWD_CHOOSE_BURST];
	uint8_t tier_of[FWD_CHOOSE_BURST];
	unsigned in_tier[PATHSEL_TIERS] = { 0 };

	qos_classify_burst(pg->classifier, pkts, n, cls);
	for (unsigned i = 0; i < n; i++) {
		enum cfg_tier t = cls[i] != 0 ? pg->class_tier[cls[i] - 1] : pg->default_tier;
		tier_of[i] = (uint8_t)t;
		in_tier[t]++;
	}
	for (int t = 0; t < PATHSEL_TIERS; t++) {
		if (in_tier[t] == 0)
			continue;
		if (!spread) {
			uint8_t k = tier_path_index(pg, g, (enum cfg_tier)t);
			for (unsigned i = 0; i < n; i++)
				if (tier_of[i] == t)
					path[i] = k;
			continue;
		}
		if (in_tier[t] == n) {
			spread_tier(w, pg, (enum cfg_tier)t, hash, len, n, path);
			continue;
		}
		uint32_t th[FWD_CHOOSE_BURST], tl[FWD_CHOOSE_BURST];
		uint8_t tpath[FWD_CHOOSE_BURST], at[FWD_CHOOSE_BURST];
		unsigned m = 0;
		for (unsigned i = 0; i < n; i++)
			if (tier_of[i] == t) {
				th[m] = hash[i];
				tl[m] = len[i];
				at[m++] = (uint8_t)i;
			}
		spread_tier(w, pg, (enum cfg_tier)t, th, tl, m, tpath);
		for (unsigned i = 0; i < m; i++)
			path[at[i]] = tpath[i];
	}
}

/* ---- one generation ----------------------------------------------------------- */

static void pathsel_state_free(struct fwd_state *st);

static int pathsel_state_build(struct fwd_state *st, const struct fwd_state *prev, char *err,
			       size_t errlen)
{
	const struct vbrd_config *cfg = &st->cfg;
	const struct cfg_pathsel *pc = pathsel_config_get(cfg);
	const struct pathsel_state *old = prev ? pathsel_state_of(prev) : NULL;
	struct pathsel_state *ps = calloc(1, sizeof(*ps));

	if (ps == NULL)
		goto nomem;
	st->feature[pathsel_module.id] = ps;
	ps->cfg = pc;
	ps->reflector = pc->reflector; /* off without the section */
	if (pc->present)
		memcpy(ps->tiers, pc->tiers, sizeof(ps->tiers));
	else
		pathsel_tier_defaults(ps->tiers);
	if (!pc->present || pc->nb_groups == 0)
		return 0;
	ps->groups = calloc((size_t)pc->nb_groups, sizeof(*ps->groups));
	if (ps->groups == NULL)
		goto nomem;

	const struct qos_config *qc = qos_config_get(cfg);
	uint16_t port_ids[CFG_MAX_IFACES];
	for (int i = 0; i < cfg->nb_ifaces && i < CFG_MAX_IFACES; i++)
		port_ids[cfg->ifaces[i].port] = st->ifaces[i].port;

	for (int i = 0; i < pc->nb_groups; i++) {
		const struct cfg_ps_group *cg = &pc->groups[i];
		struct pathsel_group *g = &ps->groups[i];
		struct fwd_path_group *fpg = &st->path_groups[cg->pg_index];

		g->rt = group_get(cfg, cg);
		if (g->rt == NULL) {
			snprintf(err, errlen,
				 "%s:%d: path selection for %s: no memory, or no probe slot left "
				 "(%d: the running probes and this config's together)",
				 cfg->file, cg->line, cg->path_group, PATHSEL_PLANE_SLOTS);
			return -ENOMEM;
		}
		ps->nb_groups = i + 1;
		g->cfg = cg;
		g->pg = (uint16_t)cg->pg_index;
		g->interval_ns = (uint64_t)cg->interval_us * 1000u;
		pathsel_group_params_init(&g->params, cg);
		g->default_tier = cg->default_tier;
		for (int k = 0; k < CFG_MAX_PATHS; k++)
			g->bfd[k] = -1;
		for (int k = 0; k < cg->nb_paths; k++)
			g->bfd[cg->paths[k].path_index] = cg->paths[k].bfd_index;
		for (int k = 0; k < fpg->nb_paths; k++)
			g->path[k] = &st->paths[fpg->paths[k]];

		/* the choice each tier had: carried over, else the group's active path */
		const struct pathsel_group *og = NULL;
		for (int j = 0; old && j < old->nb_groups; j++)
			if (old->groups[j].rt == g->rt)
				og = &old->groups[j];
		for (int t = 0; t < PATHSEL_TIERS; t++) {
			struct fwd_path *p = atomic_load(&fpg->active);
			if (og != NULL) {
				const struct fwd_path *op = atomic_load(&og->tier_active[t]);
				p = NULL;
				for (int k = 0; op && k < fpg->nb_paths; k++)
					if (strcmp(g->path[k]->name, op->name) == 0)
						p = g->path[k];
			}
			atomic_store(&g->tier_active[t], p);
		}
		atomic_store(&fpg->active, atomic_load(&g->tier_active[g->default_tier]));

		if (cg->policy >= 0 && qc != NULL) {
			const struct qos_policy_conf *pol = &qc->policies[cg->policy];
			char name[64];
			snprintf(name, sizeof(name), "ps%" PRIu64 "-%d", st->generation, i);
			g->classifier = qos_classifier_build(cfg, pol, port_ids, name, err, errlen);
			if (g->classifier == NULL)
				return -EINVAL;
			enum cfg_tier *tiers = calloc((size_t)pol->nb_classes + 1, sizeof(*tiers));
			if (tiers == NULL)
				goto nomem;
			for (int c = 0; c < pol->nb_classes; c++)
				tiers[c] = pol->classes[c].tier;
			g->class_tier = tiers;
		}
		for (int k = 0; k < CFG_MAX_PATHS; k++)
			g->share[k] = 1;
		for (int k = 0; k < cg->nb_paths; k++)
			if (cg->paths[k].capacity_bps > 0) {
				/* shares in kbit/s: 32 bits reach 4 Tbit/s */
				uint64_t kbps = cg->paths[k].capacity_bps / 1000;
				g->share[cg->paths[k].path_index] = (uint32_t)(kbps == 0 ? 1
									       : kbps > UINT32_MAX
										       ? UINT32_MAX
										       : kbps);
			}
		if (cg->spread) {
			struct pathsel_group_rt *rt = g->rt;
			if (rt->spread == NULL) {
				rt->spread = calloc(dp.nb_workers, sizeof(*rt->spread));
				if (rt->spread == NULL)
					goto nomem;
				for (unsigned wk = 0; wk < dp.nb_workers; wk++) {
					rt->spread[wk] = calloc(
						1, spread_table_size(PATHSEL_SPREAD_ENTRIES));
					if (rt->spread[wk] == NULL)
						goto nomem;
					spread_table_init(rt->spread[wk], PATHSEL_SPREAD_ENTRIES);
					rt->nb_spread = wk + 1;
				}
			}
			/* until the BFD worker fills them: each tier's path alone */
			for (int t = 0; t < PATHSEL_TIERS; t++)
				for (int b = 0; b < 2; b++)
					for (int k = 0; k < fpg->nb_paths; k++)
						if (rt->spread_w[t][b].nb == 0 &&
						    g->path[k] == atomic_load(&g->tier_active[t])) {
							rt->spread_w[t][b].nb = 1;
							rt->spread_w[t][b].path[0] = (uint8_t)k;
							rt->spread_w[t][b].share[0] = 1;
						}
			g->flowlet_gap_tsc = (uint64_t)cg->flowlet_gap_us * tsc_hz() / 1000000;
			if (g->flowlet_gap_tsc == 0)
				g->flowlet_gap_tsc = 1;
		}
		if (g->classifier != NULL || cg->spread) {
			fpg->choose = pathsel_choose;
			fpg->choose_burst = pathsel_choose_burst;
			fpg->choose_ctx = g;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "path selection: out of memory building the forwarding state");
	return -ENOMEM;
}

static void pathsel_state_free(struct fwd_state *st)
{
	struct pathsel_state *ps = st->feature[pathsel_module.id];

	if (ps == NULL)
		return;
	for (int i = 0; i < ps->nb_groups; i++) {
		group_put(ps->groups[i].rt);
		qos_classifier_free((struct qos_classifier *)(uintptr_t)ps->groups[i].classifier);
		free((void *)(uintptr_t)ps->groups[i].class_tier);
	}
	free(ps->groups);
	free(ps);
	st->feature[pathsel_module.id] = NULL;
}

/* ---- events ------------------------------------------------------------------ */

static void log_event(const struct pathsel_event_rec *r)
{
	const struct pathsel_event *e = &r->ev;

	if (e->kind == PATHSEL_EV_SWITCH)
		LOG(NOTICE,
		    "path group %s, tier %s: %s -> %s (%s): rtt %.3f -> %.3f ms, loss %.2f -> "
		    "%.2f %%, detection to switch %.1f us",
		    r->group, config_tier_name((enum cfg_tier)e->tier),
		    r->old_path[0] ? r->old_path : "none", r->new_path[0] ? r->new_path : "none",
		    pathsel_reason_name((enum pathsel_reason)e->reason),
		    (double)e->old_rtt_ns / 1e6, (double)e->new_rtt_ns / 1e6,
		    (double)e->old_loss_ppm / 1e4, (double)e->new_loss_ppm / 1e4,
		    r->t_done > r->t_detect ? (double)(r->t_done - r->t_detect) / 1e3 : 0.0);
	else if (e->plane >= 0)
		LOG(NOTICE, "path group %s: path %s plane %d: %s (%s)", r->group, r->new_path,
		    e->plane, pathsel_event_kind_name((enum pathsel_event_kind)e->kind),
		    pathsel_reason_name((enum pathsel_reason)e->reason));
	else /* a path's event: plane -1 */
		LOG(NOTICE, "path group %s: path %s: %s (%s)", r->group, r->new_path,
		    pathsel_event_kind_name((enum pathsel_event_kind)e->kind),
		    pathsel_reason_name((enum pathsel_reason)e->reason));
}

static unsigned pathsel_poll(void)
{
	struct pathsel_event_rec ev[16];
	unsigned n, total = 0;

	if (pathsel_events == NULL)
		return 0;
	while ((n = rte_ring_dequeue_burst_elem(pathsel_events, ev, sizeof(ev[0]), RTE_DIM(ev),
						NULL)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			log_event(&ev[i]);
			history_push(&history, &ev[i]);
		}
		total += n;
	}
	return total;
}

/* ---- lifecycle ------------------------------------------------------------------ */

static int pathsel_init(const struct vbrd_config *cfg)
{
	(void)cfg;
	pathsel_events = rte_ring_create_elem("pathsel_events", sizeof(struct pathsel_event_rec),
					      1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	pathsel_rx_ring = rte_ring_create("pathsel_rx", 2048, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (pathsel_events == NULL || pathsel_rx_ring == NULL) {
		LOG(ERR, "cannot create the path-selection rings: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/* No fini, as for bfd_module.c: the rings are the BFD worker's. */

int pathsel_adopt(const char *group, const char *tier, const char *path)
{
	static const char *const tiers[PATHSEL_TIERS] = {
		[CFG_TIER_GOLD] = "gold", [CFG_TIER_SILVER] = "silver", [CFG_TIER_BRONZE] = "bronze"
	};
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct pathsel_state *ps = st != NULL ? pathsel_state_of(st) : NULL;
	int t = -1;

	for (int i = 0; i < PATHSEL_TIERS; i++)
		if (strcmp(tier, tiers[i]) == 0)
			t = i;
	if (t < 0)
		return -EINVAL;
	for (int i = 0; ps != NULL && i < ps->nb_groups; i++) {
		struct pathsel_group_rt *rt = ps->groups[i].rt;
		if (strcmp(rt->name, group) != 0)
			continue;
		for (int k = 0; k < rt->nb_paths; k++)
			if (strcmp(rt->paths[k].name, path) == 0) {
				atomic_store_explicit(&rt->adopt[t], (int8_t)(k + 1),
						      memory_order_release);
				atomic_fetch_add_explicit(&pathsel_adopt_gen, 1,
							  memory_order_acq_rel);
				return 0;
			}
	}
	return -ENOENT;
}

struct vbrd_module pathsel_module = {
	.name = "pathsel",
	.depends_on = (const char *const[]){ "bfd", "qos", NULL },
	.init = pathsel_init,
	.state_build = pathsel_state_build,
	.state_free = pathsel_state_free,
	.start = pathsel_show_start,
	.poll = pathsel_poll,
};
VBRD_MODULE(pathsel_module);
