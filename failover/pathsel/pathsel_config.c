/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "pathsel" (pathsel_config.h): which path of a path
 * group carries each tier of traffic, judged from STAMP probes (RFC 8762)
 * on every plane of every path, and how this router reflects the peer's
 * probes. Every setting is live.
 *
 * It loads after "tunnels" (the path groups it names), "qos" (a group's
 * `policy`, through qos_policy_index()) and "bfd" (a path's `bfd`, through
 * bfd_session_index()). The struct cfg_pathsel is allocated even when
 * the file has no such section, so that a loaded config always has one.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/config_read.h"
#include "failover/bfd/bfd_config.h"
#include "failover/pathsel/pathsel_config.h"
#include "qos/qos_config.h"

#define PATHSEL_INTERVAL_MIN_MS 1
#define PATHSEL_INTERVAL_MAX_MS 1000
#define PATHSEL_MIN_WINDOW      10
#define PATHSEL_MAX_LOST_DOWN   255
#define PATHSEL_MS_MAX          60000 /* margin_min, hold */
#define PATHSEL_FLOWLET_MIN_MS  0.01
#define PATHSEL_FLOWLET_MAX_MS  1000
#define PATHSEL_PERCENT_MAX     100

/* The defaults of pathsel_config.h's top comment; every tier has silver's weights. */
#define PATHSEL_WEIGHTS \
	.latency_weight = 1.0, .jitter_weight = 1.0, .loss_weight = 10.0, .cost_weight = 0.1
#define PATHSEL_TIER_DEFAULTS                                            \
	{                                                                \
		[CFG_TIER_GOLD] = { .objective = PATHSEL_OBJ_LATENCY,    \
				    .max_loss_ppm = 10000,               \
				    PATHSEL_WEIGHTS },                   \
		[CFG_TIER_SILVER] = { .objective = PATHSEL_OBJ_WEIGHTED, \
				      .max_loss_ppm = 20000,             \
				      PATHSEL_WEIGHTS },                 \
		[CFG_TIER_BRONZE] = {                                    \
			.objective = PATHSEL_OBJ_COST,                   \
			.max_loss_ppm = 50000,                           \
			PATHSEL_WEIGHTS                                  \
		}                                                        \
	}

static int pathsel_load(struct cfg_reader *ld, const config_setting_t *root,
			struct vbrd_config *cfg);
static void pathsel_free(struct vbrd_config *cfg);
static void pathsel_summary(const struct vbrd_config *cfg, char *buf, size_t len);

static struct config_section pathsel_section = {
	.name = "pathsel",
	.also = (const char *const[]){ "path_selection", NULL }, /* its old name: refused */
	.after = (const char *const[]){ "tunnels", "qos", "bfd", NULL },
	.load = pathsel_load,
	.free = pathsel_free,
	.summary = pathsel_summary,
};
CONFIG_SECTION(pathsel_section);

const struct cfg_pathsel *pathsel_config_get(const struct vbrd_config *cfg)
{
	static const struct cfg_pathsel empty = { .tiers = PATHSEL_TIER_DEFAULTS };
	const struct cfg_pathsel *ps = config_section_get(cfg, &pathsel_section);

	return ps != NULL ? ps : &empty;
}

const struct cfg_ps_group *pathsel_config_group(const struct vbrd_config *cfg, int pg_index)
{
	const struct cfg_pathsel *ps = pathsel_config_get(cfg);

	for (int i = 0; pg_index >= 0 && i < ps->nb_groups; i++)
		if (ps->groups[i].pg_index == pg_index)
			return &ps->groups[i];
	return NULL;
}

const struct cfg_ps_path *pathsel_config_path(const struct cfg_ps_group *g, int path_index)
{
	for (int i = 0; g != NULL && path_index >= 0 && i < g->nb_paths; i++)
		if (g->paths[i].path_index == path_index)
			return &g->paths[i];
	return NULL;
}

void pathsel_tier_defaults(struct cfg_ps_tier *t)
{
	static const struct cfg_ps_tier def[PATHSEL_TIERS] = PATHSEL_TIER_DEFAULTS;

	memcpy(t, def, sizeof(def));
}

const char *pathsel_objective_name(enum pathsel_objective o)
{
	static const char *const names[] = { "latency", "weighted", "cost" };
	return (unsigned)o < 3 ? names[o] : "?";
}

const char *pathsel_reflector_name(enum pathsel_reflector_mode m)
{
	static const char *const names[] = { "stateful", "stateless", "off" };
	return (unsigned)m < 3 ? names[m] : "?";
}

/* The section being built, for the list callbacks (cfg_load_list()). */
static struct cfg_pathsel *building(struct cfg_reader *ld)
{
	return config_section_get(ld->cfg, &pathsel_section);
}

/* ---- numbers -------------------------------------------------------------- */

/* How a number setting is written and checked (get_number()). */
struct num_spec {
	double min, max;  /* inclusive; max INFINITY: only finite */
	const char *unit; /* after the value in messages: " ms", "%", "" */
	const char *what; /* "milliseconds", "a percent", "a number" */
};

static const struct num_spec interval_ms = { PATHSEL_INTERVAL_MIN_MS, PATHSEL_INTERVAL_MAX_MS,
					     " ms", "milliseconds" };
static const struct num_spec any_ms = { 0, PATHSEL_MS_MAX, " ms", "milliseconds" };
static const struct num_spec flowlet_ms = { PATHSEL_FLOWLET_MIN_MS, PATHSEL_FLOWLET_MAX_MS, " ms",
					    "milliseconds" };
static const struct num_spec percent = { 0, PATHSEL_PERCENT_MAX, "%", "a percent" };
static const struct num_spec weight = { 0, INFINITY, "", "a number" };

/*
 * Member @p name of @p grp as a number, an integer or one with decimals
 * ("2.5"), within @p spec, into *@p out.
 */
static int get_number(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		      const struct num_spec *spec, double *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	double v;

	if (s == NULL)
		return CFG_VAL_ABSENT;
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		v = (double)config_setting_get_int64(s);
		break;
	case CONFIG_TYPE_FLOAT:
		v = config_setting_get_float(s);
		break;
	default:
		cfg_err(ld, s, "expected %s (an integer or a number like 2.5), got %s", spec->what,
			cfg_type_name(s));
		return CFG_VAL_BAD;
	}
	/* written so that NaN fails too */
	if (isinf(spec->max) && !(v >= spec->min && isfinite(v))) {
		cfg_err(ld, s, "%g: expected a finite number >= %g", v, spec->min);
		return CFG_VAL_BAD;
	}
	if (!(v >= spec->min && v <= spec->max)) {
		if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
			cfg_err(ld, s, "%g%s is out of range %g..%g%s", v, spec->unit, spec->min,
				spec->max, spec->unit);
		else
			cfg_err(ld, s, "%lld%s is out of range %g..%g%s",
				(long long)config_setting_get_int64(s), spec->unit, spec->min,
				spec->max, spec->unit);
		return CFG_VAL_BAD;
	}
	*out = v;
	return CFG_VAL_OK;
}

/* As get_number(), milliseconds into *@p us (to the nearest µs). */
static int get_ms(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		  const struct num_spec *spec, uint32_t *us)
{
	double ms;
	int rc = get_number(ld, grp, name, spec, &ms);

	if (rc == CFG_VAL_OK)
		*us = (uint32_t)(ms * 1000.0 + 0.5); /* ms >= 0 */
	return rc;
}

/* As get_number(), a percent 0..100 into *@p ppm (parts per million). */
static int get_percent(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		       uint32_t *ppm)
{
	double pct;
	int rc = get_number(ld, grp, name, &percent, &pct);

	if (rc == CFG_VAL_OK)
		*ppm = (uint32_t)(pct * 10000.0 + 0.5);
	return rc;
}

/* Member @p name of @p grp as a rate in bits/s, as qos reads one; a
 * percent (of what? a path has no line rate here) gets its own error. */
static int get_rate(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		    uint64_t *bps)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	struct qos_rate r;
	int rc;

	if (s != NULL && config_setting_type(s) == CONFIG_TYPE_STRING &&
	    strchr(config_setting_get_string(s), '%') != NULL) {
		cfg_err(ld, s, "'%s': a percent; a path's capacity is bits/s (\"1G\")",
			config_setting_get_string(s));
		return CFG_VAL_BAD;
	}
	rc = qos_cfg_get_rate(ld, grp, name, false, &r);
	if (rc == CFG_VAL_OK)
		*bps = r.bps;
	return rc;
}

/* ---- tiers ---------------------------------------------------------------- */

static void load_tier(struct cfg_reader *ld, const config_setting_t *s, struct cfg_ps_tier *t)
{
	static const char *const keys[] = {
		"objective",   "max_loss", "latency_weight", "jitter_weight", "loss_weight",
		"cost_weight", NULL
	};
	const char *v;

	if (config_setting_type(s) != CONFIG_TYPE_GROUP) {
		cfg_err(ld, s, "expected a group { objective = ...; }, got %s", cfg_type_name(s));
		return;
	}
	cfg_check_members(ld, s, keys);
	if (cfg_get_string(ld, s, "objective", &v) == CFG_VAL_OK) {
		if (strcmp(v, "latency") == 0)
			t->objective = PATHSEL_OBJ_LATENCY;
		else if (strcmp(v, "weighted") == 0)
			t->objective = PATHSEL_OBJ_WEIGHTED;
		else if (strcmp(v, "cost") == 0)
			t->objective = PATHSEL_OBJ_COST;
		else
			cfg_err(ld, config_setting_get_member(s, "objective"),
				"unknown objective '%s' (latency, weighted or cost)", v);
	}
	get_percent(ld, s, "max_loss", &t->max_loss_ppm);
	get_number(ld, s, "latency_weight", &weight, &t->latency_weight);
	get_number(ld, s, "jitter_weight", &weight, &t->jitter_weight);
	get_number(ld, s, "loss_weight", &weight, &t->loss_weight);
	get_number(ld, s, "cost_weight", &weight, &t->cost_weight);
}

/* `tiers = { gold = { ... }; silver = { ... }; bronze = { ... }; }`, each optional. */
static void load_tiers(struct cfg_reader *ld, const config_setting_t *g, struct cfg_pathsel *ps)
{
	static const char *const keys[] = { "gold", "silver", "bronze", NULL };
	const config_setting_t *ts = cfg_get_typed(ld, g, "tiers", CONFIG_TYPE_GROUP);

	if (ts == NULL)
		return;
	cfg_check_members(ld, ts, keys);
	for (int i = 0; i < PATHSEL_TIERS; i++) {
		const config_setting_t *s = config_setting_get_member(ts, keys[i]);

		if (s != NULL)
			load_tier(ld, s, &ps->tiers[i]);
	}
}

/* ---- groups --------------------------------------------------------------- */

/* `bfd = "NAME"` of a path: a session that watches this path. */
static void load_path_bfd(struct cfg_reader *ld, const config_setting_t *s,
			  const struct cfg_ps_group *g, struct cfg_ps_path *pp)
{
	const struct vbrd_config *cfg = ld->cfg;
	const config_setting_t *bs = config_setting_get_member(s, "bfd");
	const struct cfg_bfd_session *b;
	const struct cfg_path *p;

	if (cfg_get_name(ld, s, "bfd", pp->bfd, NULL) != CFG_VAL_OK)
		return;
	if ((pp->bfd_index = bfd_session_index(cfg, pp->bfd)) < 0) {
		cfg_err(ld, bs, "unknown BFD session '%s'", pp->bfd);
		return;
	}
	if (pp->path_index < 0)
		return;
	b = &bfd_config_get(cfg)->sessions[pp->bfd_index];
	p = &cfg->path_groups[g->pg_index].paths[pp->path_index];
	if (b->kind == CFG_BFD_SINGLE_HOP && b->iface >= 0 && p->iface >= 0 && b->iface != p->iface)
		cfg_err(ld, bs,
			"BFD session '%s' (line %d) is single-hop on interface '%s'; path '%s' "
			"runs over '%s'",
			b->name, b->line, cfg->ifaces[b->iface].name, p->name,
			cfg->ifaces[p->iface].name);
	else if (b->kind == CFG_BFD_TUNNEL && b->path_group >= 0 && b->path_group != g->pg_index)
		cfg_err(ld, bs,
			"BFD session '%s' (line %d) runs through path group '%s', not this "
			"group's '%s'",
			b->name, b->line, cfg->path_groups[b->path_group].name, g->path_group);
}

/* One element of a group's `paths`: { path; bfd; capacity; }. */
static void load_ps_path(struct cfg_reader *ld, const config_setting_t *s, struct cfg_ps_group *g,
			 int k)
{
	static const char *const keys[] = { "path", "bfd", "capacity", NULL };
	struct cfg_ps_path *pp = &g->paths[k];
	int rc;

	pp->line = cfg_line(s);
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "path", pp->path, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "path");
	if (rc == CFG_VAL_OK && g->pg_index >= 0) {
		const struct cfg_path_group *pg = &ld->cfg->path_groups[g->pg_index];
		const config_setting_t *ps = config_setting_get_member(s, "path");

		for (int i = 0; i < pg->nb_paths && pp->path_index < 0; i++)
			if (strcmp(pg->paths[i].name, pp->path) == 0)
				pp->path_index = i;
		if (pp->path_index < 0)
			cfg_err(ld, ps, "path group '%s' has no path '%s'", pg->name, pp->path);
		for (int j = 0; j < k && pp->path_index >= 0; j++)
			if (g->paths[j].path_index == pp->path_index) {
				cfg_err(ld, ps, "path '%s' is already listed (line %d)", pp->path,
					g->paths[j].line);
				pp->path_index = -1;
			}
	}
	load_path_bfd(ld, s, g, pp);
	get_rate(ld, s, "capacity", &pp->capacity_bps);
}

static void load_ps_paths(struct cfg_reader *ld, const config_setting_t *s, struct cfg_ps_group *g)
{
	const config_setting_t *ls = cfg_get_typed(ld, s, "paths", CONFIG_TYPE_LIST);
	int n;

	if (ls == NULL)
		return;
	n = config_setting_length(ls);
	if (n > CFG_MAX_PATHS) {
		cfg_err(ld, ls, "%d paths, expected 0..%d", n, CFG_MAX_PATHS);
		n = CFG_MAX_PATHS;
	}
	for (int k = 0; k < n; k++) {
		const config_setting_t *e = config_setting_get_elem(ls, (unsigned)k);
		struct cfg_ps_path *pp = &g->paths[g->nb_paths++];

		pp->path_index = pp->bfd_index = -1;
		if (config_setting_type(e) != CONFIG_TYPE_GROUP) {
			cfg_err(ld, e, "expected a group { path = ...; }, got %s",
				cfg_type_name(e));
			pp->line = cfg_line(e);
			continue;
		}
		load_ps_path(ld, e, g, k);
	}
}

static void load_ps_group(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "path_group",     "interval",   "window", "lost_down",
					    "margin",         "margin_min", "hold",   "policy",
					    "plane_max_loss", "tier",       "spread", "flowlet_gap",
					    "paths",          "dwell",      NULL };
	struct cfg_pathsel *ps = building(ld);
	struct cfg_ps_group *g = &ps->groups[idx];
	const char *v;
	int rc;

	g->line = cfg_line(s);
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "path_group", g->path_group, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "path_group");
	else if (rc == CFG_VAL_OK) {
		const config_setting_t *gs = config_setting_get_member(s, "path_group");

		if ((g->pg_index = config_path_group_index(ld->cfg, g->path_group)) < 0)
			cfg_err(ld, gs, "unknown path group '%s'", g->path_group);
		for (int j = 0; j < idx && g->pg_index >= 0; j++)
			if (ps->groups[j].pg_index == g->pg_index) {
				cfg_err(ld, gs,
					"a second group for path group '%s' (first at line %d)",
					g->path_group, ps->groups[j].line);
				g->pg_index = -1;
			}
	}
	get_ms(ld, s, "interval", &interval_ms, &g->interval_us);
	cfg_get_u32(ld, s, "window", PATHSEL_MIN_WINDOW, PATHSEL_MAX_WINDOW, &g->window);
	cfg_get_u32(ld, s, "lost_down", 1, PATHSEL_MAX_LOST_DOWN, &g->lost_down);
	get_percent(ld, s, "margin", &g->margin_ppm);
	get_ms(ld, s, "margin_min", &any_ms, &g->margin_min_us);
	get_ms(ld, s, "hold", &any_ms, &g->hold_us);
	get_percent(ld, s, "plane_max_loss", &g->plane_max_loss_ppm);
	cfg_get_u32(ld, s, "dwell", 0, 600000, &g->dwell_ms);
	if (cfg_get_name(ld, s, "policy", g->policy_name, NULL) == CFG_VAL_OK &&
	    (g->policy = qos_policy_index(ld->cfg, g->policy_name)) < 0)
		cfg_err(ld, config_setting_get_member(s, "policy"), "unknown qos policy '%s'%s",
			g->policy_name,
			qos_config_get(ld->cfg) == NULL ? " (the file has no qos section)" : "");
	if (cfg_get_string(ld, s, "tier", &v) == CFG_VAL_OK) {
		if (strcmp(v, "gold") == 0)
			g->default_tier = CFG_TIER_GOLD;
		else if (strcmp(v, "silver") == 0)
			g->default_tier = CFG_TIER_SILVER;
		else if (strcmp(v, "bronze") == 0)
			g->default_tier = CFG_TIER_BRONZE;
		else
			cfg_err(ld, config_setting_get_member(s, "tier"),
				"unknown tier '%s' (gold, silver or bronze)", v);
	}
	cfg_get_bool(ld, s, "spread", &g->spread);
	get_ms(ld, s, "flowlet_gap", &flowlet_ms, &g->flowlet_gap_us);
	load_ps_paths(ld, s, g);
}

/* Defaults of group @p idx, before load_ps_group() or for an element that is no group. */
static void group_defaults(struct cfg_ps_group *g)
{
	*g = (struct cfg_ps_group){
		.pg_index = -1,
		.interval_us = PATHSEL_DEFAULT_INTERVAL_US,
		.window = PATHSEL_DEFAULT_WINDOW,
		.lost_down = PATHSEL_DEFAULT_LOST_DOWN,
		.margin_ppm = PATHSEL_DEFAULT_MARGIN_PPM,
		.margin_min_us = PATHSEL_DEFAULT_MARGIN_MIN,
		.hold_us = PATHSEL_DEFAULT_HOLD_US,
		.plane_max_loss_ppm = PATHSEL_DEFAULT_PLANE_MAX_LOSS_PPM,
		.dwell_ms = PATHSEL_DEFAULT_DWELL_MS,
		.policy = -1,
		.default_tier = CFG_TIER_GOLD,
		.flowlet_gap_us = PATHSEL_DEFAULT_FLOWLET_US,
	};
}

static void one_group(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	group_defaults(&building(ld)->groups[idx]);
	load_ps_group(ld, s, idx);
}

static void bad_group(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	struct cfg_ps_group *g = &building(ld)->groups[idx];

	group_defaults(g);
	g->line = cfg_line(s);
}

/* ---- the section ------------------------------------------------------------ */

/* `reflect_from`: the prefixes whose plain (not tunnelled) test packets are answered. */
static void load_reflect_from(struct cfg_reader *ld, const config_setting_t *g,
			      struct cfg_pathsel *ps)
{
	const config_setting_t *l = config_setting_get_member(g, "reflect_from");
	char path[128];
	int n;

	if (l == NULL)
		return;
	if (!cfg_is_sequence(l)) {
		cfg_err(ld, l, "expected an array [ ... ] of prefixes, got %s", cfg_type_name(l));
		return;
	}
	n = config_setting_length(l);
	if (n > PATHSEL_REFLECT_FROM_MAX) {
		cfg_err(ld, l, "%d prefixes, at most %d", n, PATHSEL_REFLECT_FROM_MAX);
		return;
	}
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
		struct cfg_prefix *p = &ps->reflect_from[ps->nb_reflect_from];
		const char *v = "";

		if (cfg_string_value(ld, e, &v) != CFG_VAL_OK)
			continue;
		if (config_parse_prefix(v, p) != 0) {
			cfg_err_at(ld, e, "%s: '%s' is not a prefix (ADDRESS/LENGTH)",
				   cfg_path(e, path, sizeof(path)), v);
			continue;
		}
		ps->nb_reflect_from++;
	}
}

static int pathsel_load(struct cfg_reader *ld, const config_setting_t *root,
			struct vbrd_config *cfg)
{
	static const char *const keys[] = { "reflector", "reflect_from", "reflect_rate",
					    "tiers",     "groups",       NULL };
	static const struct cfg_list_spec groups = {
		"groups",  0,         PATHSEL_MAX_GROUPS, false, sizeof(struct cfg_ps_group),
		one_group, bad_group,
	};
	const config_setting_t *g = cfg_get_typed(ld, root, "pathsel", CONFIG_TYPE_GROUP);
	const config_setting_t *old = config_setting_get_member(root, "path_selection");
	struct cfg_pathsel *ps = calloc(1, sizeof(*ps));
	const char *v;

	if (ps == NULL)
		return -ENOMEM;
	if (old != NULL) /* one name for the feature everywhere: the section is `pathsel` */
		cfg_err(ld, old, "the section is now called 'pathsel'");
	config_section_set(cfg, &pathsel_section,
			   ps); /* freed by pathsel_free() whatever happens */
	/* no section: nothing answers (the reflector is off unless configured) */
	ps->reflector = PATHSEL_REFLECT_OFF;
	ps->reflect_rate = PATHSEL_DEFAULT_REFLECT_RATE;
	pathsel_tier_defaults(ps->tiers);
	if (g == NULL || config_setting_length(g) == 0)
		return 0;
	ps->reflector = PATHSEL_REFLECT_STATEFUL;
	ps->present = true;
	cfg_check_members(ld, g, keys);
	if (cfg_get_string(ld, g, "reflector", &v) == CFG_VAL_OK) {
		if (strcmp(v, "stateful") == 0)
			ps->reflector = PATHSEL_REFLECT_STATEFUL;
		else if (strcmp(v, "stateless") == 0)
			ps->reflector = PATHSEL_REFLECT_STATELESS;
		else if (strcmp(v, "off") == 0)
			ps->reflector = PATHSEL_REFLECT_OFF;
		else
			cfg_err(ld, config_setting_get_member(g, "reflector"),
				"unknown reflector mode '%s' (stateful, stateless or off)", v);
	}
	load_reflect_from(ld, g, ps);
	cfg_get_u32(ld, g, "reflect_rate", 1, 1000000, &ps->reflect_rate);
	load_tiers(ld, g, ps);
	if (cfg_load_list(ld, g, &groups, (void **)&ps->groups, &ps->nb_groups) < 0 || ld->nomem)
		return -ENOMEM;
	return 0;
}

static void pathsel_free(struct vbrd_config *cfg)
{
	struct cfg_pathsel *ps = config_section_get(cfg, &pathsel_section);

	if (ps == NULL)
		return;
	free(ps->groups);
	free(ps);
	config_section_set(cfg, &pathsel_section, NULL);
}

static void pathsel_summary(const struct vbrd_config *cfg, char *buf, size_t len)
{
	const struct cfg_pathsel *ps = pathsel_config_get(cfg);

	if (ps->nb_groups > 0)
		snprintf(buf, len, "%d path selection groups", ps->nb_groups);
}
