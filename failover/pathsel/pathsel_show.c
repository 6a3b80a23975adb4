/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path selection in `vbrctl`: `show pathsel [GROUP]` (each selected path
 * group: each tier's path, each path's metrics over its healthy planes),
 * `show pathsel planes [GROUP]` (every probe session) and `show pathsel
 * history [GROUP]` (every switch and plane change with the metrics that
 * decided it). Telemetry /vbrd/pathsel and /vbrd/pathsel/planes (the
 * history is longer than a telemetry reply). `show paths` (pipeline/) has
 * the path groups themselves: their paths, tunnels and counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/ctl.h"
#include "failover/bfd/bfd.h"
#include "failover/pathsel/pathsel.h"
#include "pipeline/tunnel.h"

static double pct(uint32_t ppm)
{
	return (double)ppm / 10000.0;
}

static json_int_t us(uint64_t ns)
{
	return (json_int_t)(ns / 1000);
}

static void metrics_json(json_t *o, const struct pathsel_metrics *m)
{
	json_object_set_new(o, "rtt_min_us", json_integer(us(m->rtt_min_ns)));
	json_object_set_new(o, "rtt_mean_us", json_integer(us(m->rtt_mean_ns)));
	json_object_set_new(o, "rtt_p99_us", json_integer(us(m->rtt_p99_ns)));
	json_object_set_new(o, "rtt_recent_us", json_integer(us(m->rtt_recent_ns)));
	json_object_set_new(o, "jitter_us", json_integer(us(m->jitter_ns)));
	json_object_set_new(o, "loss_pct", json_real(pct(m->loss_ppm)));
	json_object_set_new(o, "stateful", json_boolean(m->stateful));
	json_object_set_new(o, "loss_fwd_pct", json_real(pct(m->fwd_loss_ppm)));
	json_object_set_new(o, "loss_rev_pct", json_real(pct(m->rev_loss_ppm)));
	json_object_set_new(o, "probes_judged", json_integer(m->sent));
	json_object_set_new(o, "probes_lost", json_integer(m->lost));
}

/* One selected group: each tier's path, each path's metrics and health. */
static json_t *group_json(const struct fwd_state *st, const struct pathsel_group *g)
{
	const struct fwd_path_group *pg = &st->path_groups[g->pg];
	const struct fwd_path *active = atomic_load(&pg->active);
	json_t *o = json_pack("{s:s, s:s}", "name", g->rt->name, "active",
			      active != NULL ? active->name : "");
	json_t *paths = json_array();

	for (int t = 0; t < PATHSEL_TIERS; t++) {
		const struct fwd_path *p = atomic_load(&g->tier_active[t]);
		json_object_set_new(o, config_tier_name((enum cfg_tier)t),
				    json_string(p ? p->name : ""));
	}
	json_object_set_new(o, "default_tier", json_string(config_tier_name(g->default_tier)));
	json_object_set_new(o, "interval_us", json_integer(g->cfg->interval_us));
	json_object_set_new(o, "decisions", json_integer((json_int_t)g->rt->decisions));
	json_object_set_new(o, "switches", json_integer((json_int_t)g->rt->switches));
	/* spreading's counters, the workers' tables summed (read while they
	 * run: each counter is one aligned 64-bit word, never torn) */
	struct spread_stats sp = { 0 };
	const bool spread = g->flowlet_gap_tsc != 0 && g->rt->nb_spread > 0;
	for (unsigned wk = 0; spread && wk < g->rt->nb_spread; wk++) {
		struct spread_stats one;
		spread_stats(g->rt->spread[wk], &one);
		sp.flowlets += one.flowlets;
		sp.moved += one.moved;
		sp.failover += one.failover;
		sp.collisions += one.collisions;
		for (int k = 0; k < SPREAD_MAX_PATHS; k++) {
			sp.packets[k] += one.packets[k];
			sp.bytes[k] += one.bytes[k];
		}
	}
	if (spread)
		json_object_set_new(o, "spread",
				    json_pack("{s:I, s:I, s:I, s:I}", "flowlets",
					      (json_int_t)sp.flowlets, "moved",
					      (json_int_t)sp.moved, "failover",
					      (json_int_t)sp.failover, "collisions",
					      (json_int_t)sp.collisions));
	for (int k = 0; k < g->rt->nb_paths; k++) {
		const struct pathsel_path_rt *pr = &g->rt->paths[k];
		const struct fwd_path *fp = g->path[k];
		struct pathsel_metrics planes[PATHSEL_MAX_PLANES], m;
		uint16_t mask = pr->healthy_applied;
		bool carries = false;

		for (int j = 0; j < pr->nb_planes; j++)
			pathsel_plane_metrics(&pr->planes[j]->m, &planes[j], true);
		pathsel_path_metrics(planes, pr->nb_planes, mask, &m);
		for (int t = 0; t < PATHSEL_TIERS; t++)
			carries |= atomic_load(&g->tier_active[t]) == fp;
		json_t *po = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:b}", "name", pr->name,
				       "interface", st->ifaces[fp->iface].name, "tier",
				       config_tier_name(fp->tier), "cost", (int)fp->cost, "plane",
				       fp->plane, "planes", pr->nb_planes, "healthy_planes",
				       __builtin_popcount(mask), "carries", carries);
		metrics_json(po, &m);
		if (spread && k < SPREAD_MAX_PATHS) {
			/* what spreading chose for it: packets and bytes (frames as they came in) */
			json_object_set_new(po, "spread_packets",
					    json_integer((json_int_t)sp.packets[k]));
			json_object_set_new(po, "spread_bytes",
					    json_integer((json_int_t)sp.bytes[k]));
		}
		json_array_append_new(paths, po);
	}
	json_object_set_new(o, "paths", paths);
	return o;
}

static int show_groups(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct pathsel_state *ps = pathsel_state_of(st);
	json_t *rows = json_array();
	bool found = argc == 0;

	for (int i = 0; ps && i < ps->nb_groups; i++) {
		const struct pathsel_group *g = &ps->groups[i];
		if (argc > 0 && strcmp(argv[0], g->rt->name) != 0)
			continue;
		found = true;
		json_array_append_new(rows, group_json(st, g));
	}
	if (!found) {
		json_decref(rows);
		snprintf(err, errlen, "no path selection for path group '%s'", argv[0]);
		return -ENOENT;
	}
	json_t *from = json_array();
	char p[INET6_ADDRSTRLEN + 4];
	for (int i = 0; ps && i < ps->cfg->nb_reflect_from; i++)
		json_array_append_new(from, json_string(config_format_prefix(
						    &ps->cfg->reflect_from[i], p, sizeof(p))));
	const struct pathsel_reflector_stats *rs = &pathsel_reflector_stats;
	json_t *refl = json_pack("{s:s, s:o, s:i, s:I, s:I, s:I}", "mode",
				 ps ? pathsel_reflector_name(ps->reflector) : "off", "reflect_from",
				 from, "reflect_rate", ps ? (int)ps->cfg->reflect_rate : 0,
				 "answered", (json_int_t)rs->answered, "sessions",
				 (json_int_t)rs->sessions, "evicted", (json_int_t)rs->evicted);
	*data = json_pack("{s:o, s:o}", "path_groups", rows, "reflector", refl);
	return 0;
}

static int show_planes(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct pathsel_state *ps = pathsel_state_of(st);
	json_t *rows = json_array();
	bool found = argc == 0;

	for (int i = 0; ps && i < ps->nb_groups; i++) {
		const struct pathsel_group *g = &ps->groups[i];
		if (argc > 0 && strcmp(argv[0], g->rt->name) != 0)
			continue;
		found = true;
		for (int k = 0; k < g->rt->nb_paths; k++) {
			const struct pathsel_path_rt *pr = &g->rt->paths[k];
			for (int j = 0; j < pr->nb_planes; j++) {
				const struct pathsel_plane_rt *pl = pr->planes[j];
				struct pathsel_metrics m;
				pathsel_plane_metrics(&pl->m, &m, true);
				json_t *o = json_pack(
					"{s:s, s:s, s:i, s:i, s:b, s:I, s:I, s:I, s:I}", "group",
					g->rt->name, "path", pr->name, "plane", j, "sport",
					CFG_PLANE_BASE + (pr->plane < 0 ? 0 : pr->plane) + j,
					"healthy", (pr->healthy_applied >> j) & 1, "tx",
					(json_int_t)pl->tx, "rx", (json_int_t)pl->rx, "rx_bad",
					(json_int_t)pl->rx_bad, "tx_errors",
					(json_int_t)pl->tx_errors);
				json_object_set_new(o, "tx_unresolved",
						    json_integer((json_int_t)pl->tx_unresolved));
				metrics_json(o, &m);
				json_object_set_new(o, "consecutive_lost",
						    json_integer(m.consecutive_lost));
				json_array_append_new(rows, o);
			}
		}
	}
	if (!found) {
		json_decref(rows);
		snprintf(err, errlen, "no path selection for path group '%s'", argv[0]);
		return -ENOENT;
	}
	*data = json_pack("{s:o, s:I}", "planes", rows, "worker_stalls",
			  (json_int_t)pathsel_worker_stalls);
	return 0;
}

static int show_history(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	static struct pathsel_event_rec ev[PATHSEL_HISTORY];
	unsigned n = pathsel_history_get(ev, PATHSEL_HISTORY);
	json_t *rows = json_array();

	if (argc > 0) {
		const struct pathsel_state *ps = pathsel_state_of(atomic_load(&fwd_current));
		bool known = false;
		for (int i = 0; ps && i < ps->nb_groups; i++)
			known |= strcmp(ps->groups[i].rt->name, argv[0]) == 0;
		for (unsigned i = 0; !known && i < n; i++)
			known = strcmp(ev[i].group, argv[0]) == 0;
		if (!known) {
			json_decref(rows);
			snprintf(err, errlen, "no path selection for path group '%s'", argv[0]);
			return -ENOENT;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		const struct pathsel_event_rec *r = &ev[i];
		const struct pathsel_event *e = &r->ev;
		if (argc > 0 && strcmp(argv[0], r->group) != 0)
			continue;
		json_t *o = json_pack(
			"{s:I, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:I, s:I, s:f, s:f, s:I, s:I, "
			"s:I, s:I}",
			"time_us", (json_int_t)tsc_wall_us(e->t), "group", r->group, "event",
			pathsel_event_kind_name((enum pathsel_event_kind)e->kind), "tier",
			e->kind == PATHSEL_EV_SWITCH ? config_tier_name((enum cfg_tier)e->tier)
						     : "",
			"old", r->old_path, "new", r->new_path, "plane", (int)e->plane, "reason",
			pathsel_reason_name((enum pathsel_reason)e->reason), "old_rtt_us",
			us(e->old_rtt_ns), "new_rtt_us", us(e->new_rtt_ns), "old_loss_pct",
			pct(e->old_loss_ppm), "new_loss_pct", pct(e->new_loss_ppm), "old_jitter_us",
			us(e->old_jitter_ns), "new_jitter_us", us(e->new_jitter_ns),
			"detect_to_switch_ns",
			(json_int_t)(r->t_done > r->t_detect ? r->t_done - r->t_detect : 0),
			"batch", (json_int_t)r->batch);
		json_array_append_new(rows, o);
	}
	*data = json_pack("{s:o, s:I}", "events", rows, "events_lost",
			  (json_int_t)atomic_load(&pathsel_events_lost));
	return 0;
}

int pathsel_show_start(void)
{
	int ret;

	if ((ret = ctl_register("show pathsel",
				"show pathsel [GROUP]: each tier's path and each path's metrics "
				"per selected path group",
				show_groups)) < 0 ||
	    (ret = ctl_register("show pathsel planes",
				"show pathsel planes [GROUP]: every probe session (path x plane) "
				"and its metrics",
				show_planes)) < 0 ||
	    (ret = ctl_register("show pathsel history",
				"show pathsel history [GROUP]: path switches and plane changes, "
				"with the metrics that decided them",
				show_history)) < 0 ||
	    (ret = ctl_export("show pathsel", "/vbrd/pathsel",
			      "Path selection: each tier's path and each path's metrics")) < 0 ||
	    (ret = ctl_export(
		     "show pathsel planes", "/vbrd/pathsel/planes",
		     "Path selection: every probe session (path x plane) and its metrics")) < 0)
		return ret;
	return 0;
}
