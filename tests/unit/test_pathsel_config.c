/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of section "pathsel" (failover/pathsel/pathsel_config.c) and of
 * a path's planes (`plane`, `planes` in section path_groups).
 *
 * Runs from tests/unit (meson workdir). The good file is configs/ps-good.conf.
 * Each error case is a snippet written after one of the bases below (ports,
 * interfaces, tunnels, and as the case needs path groups, a qos policy and
 * BFD sessions) into a file of its own; its test asserts the whole message,
 * "FILE:LINE: setting: text", and that it is the only one.
 */
#include <errno.h>
#include <sys/socket.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/config_fixture.h"

#include "core/config.h"
#include "failover/bfd/bfd_config.h"
#include "failover/pathsel/pathsel_config.h"

/* ---- helpers ---------------------------------------------------------------- */

/* Ports, interfaces and tunnels (lines 1..5). */
static const char NET[] =
	"ports = ( { name = \"p0\"; devargs = \"net_null0\"; }, { name = \"p1\"; devargs = "
	"\"net_null1\"; } );\n"
	"interfaces = ( { name = \"line1\"; port = \"p0\"; address = \"172.16.1.1/30\"; },\n"
	"  { name = \"line2\"; port = \"p1\"; address = \"172.16.2.1/30\"; } );\n"
	"tunnels = ( { name = \"t\"; type = \"vxlan\"; vni = 100; local = \"172.16.1.1\"; remote = "
	"\"192.0.2.2\"; },\n"
	"  { name = \"t-dr\"; type = \"vxlan\"; vni = 7; local = \"172.16.2.1\"; remote = "
	"\"192.0.2.3\"; address = \"10.99.0.1/30\"; } );\n";

/* Path groups "region" (paths a, b) and "dr" (path p): lines 6..10. */
static const char PG[] = "path_groups = (\n"
			 "  { name = \"region\"; paths = (\n"
			 "    { name = \"a\"; tunnel = \"t\"; interface = \"line1\"; via = "
			 "\"172.16.1.2\"; planes = 2; "
			 "},\n"
			 "    { name = \"b\"; tunnel = \"t\"; interface = \"line2\"; via = "
			 "\"172.16.2.2\"; plane = 5; } "
			 "); },\n"
			 "  { name = \"dr\"; paths = ( { name = \"p\"; tunnel = \"t-dr\"; "
			 "interface = \"line2\"; via = "
			 "\"172.16.2.2\"; } ); } );\n";

/* A qos policy "edge" (line 11 of BASE_FULL). */
static const char QOS[] = "qos = { policies = ( { name = \"edge\"; businesses = ( { name = "
			  "\"all\"; guaranteed = \"100%\"; } ); } ); };\n";

/* BFD sessions l1 (line1), l2 (line2), dr (through path group dr): lines 12..15 of BASE_FULL. */
static const char BFD[] = "bfd = { sessions = (\n"
			  "  { name = \"l1\"; interface = \"line1\"; peer = \"172.16.1.2\"; },\n"
			  "  { name = \"l2\"; interface = \"line2\"; peer = \"172.16.2.2\"; },\n"
			  "  { name = \"dr\"; path_group = \"dr\"; peer = \"10.99.0.2\"; } ); };\n";

enum base {
	BASE_FULL = 0, /* NET, PG, QOS, BFD */
	BASE_NET,      /* NET only: the snippet has its path groups */
	BASE_NO_QOS,   /* NET, PG, BFD */
};

/* Write base @p b and @p text to the test file and load it; *@p base_lines gets the base's lines. */
static int load_text(enum base b, const char *text, struct vbrd_config *cfg,
		     struct config_errors *errs, int *base_lines)
{
	const char *pg = b == BASE_NET ? "" : PG, *qos = b == BASE_FULL ? QOS : "";
	const char *bfd = b == BASE_NET ? "" : BFD;

	if (base_lines != NULL)
		*base_lines = cfx_lines(NET) + cfx_lines(pg) + cfx_lines(qos) + cfx_lines(bfd);
	return CFX_LOAD(cfg, errs, NET, pg, qos, bfd, text);
}

/* The bases' line numbers, which the messages of the cases below name. */
static void base_lines(void **state)
{
	(void)state;
	assert_int_equal(cfx_lines(NET), 5);
	assert_int_equal(cfx_lines(PG), 5);
	assert_int_equal(cfx_lines(QOS), 1);
	assert_int_equal(cfx_lines(BFD), 4);
}

/* The default tiers of pathsel_config.h. */
static void assert_default_tiers(const struct cfg_ps_tier *t)
{
	assert_int_equal(t[CFG_TIER_GOLD].objective, PATHSEL_OBJ_LATENCY);
	assert_int_equal(t[CFG_TIER_GOLD].max_loss_ppm, 10000);
	assert_int_equal(t[CFG_TIER_SILVER].objective, PATHSEL_OBJ_WEIGHTED);
	assert_int_equal(t[CFG_TIER_SILVER].max_loss_ppm, 20000);
	assert_int_equal(t[CFG_TIER_BRONZE].objective, PATHSEL_OBJ_COST);
	assert_int_equal(t[CFG_TIER_BRONZE].max_loss_ppm, 50000);
	for (int i = 0; i < PATHSEL_TIERS; i++) {
		assert_true(t[i].latency_weight == 1.0);
		assert_true(t[i].jitter_weight == 1.0);
		assert_true(t[i].loss_weight == 10.0);
		assert_true(t[i].cost_weight == 0.1);
	}
}

/* A group with nothing but its path group. */
static void assert_default_group(const struct cfg_ps_group *g)
{
	assert_int_equal(g->interval_us, PATHSEL_DEFAULT_INTERVAL_US);
	assert_int_equal(g->interval_us, 10000);
	assert_int_equal(g->window, 100);
	assert_int_equal(g->lost_down, 3);
	assert_int_equal(g->margin_ppm, 100000);
	assert_int_equal(g->margin_min_us, 2000);
	assert_int_equal(g->hold_us, 100000);
	assert_int_equal(g->dwell_ms, 60000);
	assert_int_equal(g->plane_max_loss_ppm, 10000);
	assert_int_equal(g->policy, -1);
	assert_string_equal(g->policy_name, "");
	assert_int_equal(g->default_tier, CFG_TIER_GOLD);
	assert_false(g->spread);
	assert_int_equal(g->flowlet_gap_us, 500);
	assert_int_equal(g->nb_paths, 0);
}

/* ---- good files -------------------------------------------------------------- */

static void good_config(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	const struct cfg_pathsel *ps;
	const struct cfg_ps_group *g;
	const struct cfg_ps_tier *t;
	const struct cfg_path *p;

	(void)state;
	assert_int_equal(config_load("configs/ps-good.conf", &cfg, &errs), 0);
	assert_int_equal(errs.count, 0);

	/* planes of the paths */
	assert_int_equal(cfg.nb_path_groups, 2);
	p = cfg.path_groups[0].paths;
	assert_int_equal(p[0].plane, 0); /* planes = 4 without plane: from 0 */
	assert_int_equal(p[0].nb_planes, 4);
	assert_int_equal(p[1].plane, 10);
	assert_int_equal(p[1].nb_planes, 2);
	assert_int_equal(p[2].plane, 16383); /* plane alone: one plane */
	assert_int_equal(p[2].nb_planes, 1);
	assert_int_equal(p[3].plane, -1); /* neither: the flow hash */
	assert_int_equal(p[3].nb_planes, 0);
	assert_int_equal(cfg.path_groups[1].paths[0].plane, 16368);
	assert_int_equal(cfg.path_groups[1].paths[0].nb_planes, 16);

	ps = pathsel_config_get(&cfg);
	assert_non_null(ps);
	assert_true(ps->present);
	assert_int_equal(ps->reflector, PATHSEL_REFLECT_STATELESS);
	assert_int_equal(ps->nb_reflect_from, 2);
	assert_int_equal(ps->reflect_from[0].len, 24);
	assert_int_equal(ps->reflect_from[1].addr.family, AF_INET6);
	assert_int_equal(ps->reflect_rate, 5000);

	t = &ps->tiers[CFG_TIER_GOLD];
	assert_int_equal(t->objective, PATHSEL_OBJ_WEIGHTED);
	assert_int_equal(t->max_loss_ppm, 5000);
	assert_true(t->latency_weight == 2.0);
	assert_true(t->jitter_weight == 0.5);
	assert_true(t->loss_weight == 20.0);
	assert_true(t->cost_weight == 0.0);
	t = &ps->tiers[CFG_TIER_SILVER]; /* only max_loss given */
	assert_int_equal(t->objective, PATHSEL_OBJ_WEIGHTED);
	assert_int_equal(t->max_loss_ppm, 30000);
	assert_true(t->latency_weight == 1.0);
	assert_true(t->cost_weight == 0.1);
	t = &ps->tiers[CFG_TIER_BRONZE];
	assert_int_equal(t->objective, PATHSEL_OBJ_LATENCY);
	assert_int_equal(t->max_loss_ppm, 1000000);

	assert_int_equal(ps->nb_groups, 2);
	g = &ps->groups[0];
	assert_string_equal(g->path_group, "region");
	assert_int_equal(g->pg_index, 0);
	assert_int_equal(g->interval_us, 2500);
	assert_int_equal(g->window, 1024);
	assert_int_equal(g->lost_down, 255);
	assert_int_equal(g->margin_ppm, 125000);
	assert_int_equal(g->margin_min_us, 250);
	assert_int_equal(g->hold_us, 60000000);
	assert_string_equal(g->policy_name, "edge");
	assert_int_equal(g->policy, 1); /* the second policy of the qos section */
	assert_int_equal(g->default_tier, CFG_TIER_BRONZE);
	assert_true(g->spread);
	assert_int_equal(g->flowlet_gap_us, 10);
	assert_int_equal(g->line, 49);
	assert_int_equal(g->nb_paths, 3);
	assert_string_equal(g->paths[0].path, "p-line2");
	assert_int_equal(g->paths[0].path_index, 1);
	assert_string_equal(g->paths[0].bfd, "l2");
	assert_int_equal(g->paths[0].bfd_index, 1);
	assert_int_equal(g->paths[0].capacity_bps, 1500000000ULL);
	assert_int_equal(g->paths[0].line, 61);
	assert_int_equal(g->paths[1].path_index, 0);
	assert_int_equal(g->paths[1].bfd_index, 0);
	assert_int_equal(g->paths[1].capacity_bps, 400000000ULL);
	assert_int_equal(g->paths[2].path_index, 3);
	assert_string_equal(g->paths[2].bfd, "");
	assert_int_equal(g->paths[2].bfd_index, -1);
	assert_int_equal(g->paths[2].capacity_bps, 0);

	g = &ps->groups[1]; /* the other ends of the ranges */
	assert_int_equal(g->pg_index, 1);
	assert_int_equal(g->interval_us, 1000000);
	assert_int_equal(g->window, 10);
	assert_int_equal(g->lost_down, 1);
	assert_int_equal(g->margin_ppm, 0);
	assert_int_equal(g->margin_min_us, 0);
	assert_int_equal(g->hold_us, 0);
	assert_int_equal(g->policy, -1);
	assert_int_equal(g->default_tier, CFG_TIER_GOLD);
	assert_false(g->spread);
	assert_int_equal(g->flowlet_gap_us, 1000000);
	assert_int_equal(g->nb_paths, 1);
	assert_int_equal(g->paths[0].bfd_index, 2); /* through this group's tunnel */

	/* lookups */
	assert_ptr_equal(pathsel_config_group(&cfg, 0), &ps->groups[0]);
	assert_ptr_equal(pathsel_config_group(&cfg, 1), &ps->groups[1]);
	assert_null(pathsel_config_group(&cfg, 2));
	assert_null(pathsel_config_group(&cfg, -1));
	assert_ptr_equal(pathsel_config_path(&ps->groups[0], 1), &ps->groups[0].paths[0]);
	assert_ptr_equal(pathsel_config_path(&ps->groups[0], 3), &ps->groups[0].paths[2]);
	assert_null(pathsel_config_path(&ps->groups[0], 2)); /* p-one is not listed */
	assert_null(pathsel_config_path(&ps->groups[0], -1));
	assert_null(pathsel_config_path(NULL, 0));
	assert_int_equal(bfd_session_index(&cfg, "dr"), 2);
	assert_int_equal(bfd_session_index(&cfg, "nope"), -1);

	char sum[256];
	config_sections_summary(&cfg, sum, sizeof(sum));
	assert_string_equal(sum, ", 3 BFD sessions, 2 path selection groups");
	config_free(&cfg);
	config_errors_free(&errs);
}

/* Without the section, or with an empty one: not present, every default. */
static void absent_section(void **state)
{
	static const char *const texts[] = { "", "pathsel = { };\n" };
	struct vbrd_config cfg, zero = { 0 };
	struct cfg_ps_tier t[PATHSEL_TIERS];
	const struct cfg_pathsel *ps;
	char sum[128];

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct config_errors errs = { 0 };

		assert_int_equal(load_text(BASE_FULL, texts[i], &cfg, &errs, NULL), 0);
		ps = pathsel_config_get(&cfg);
		assert_non_null(ps);
		assert_false(ps->present);
		/* no section, or an empty one: the reflector answers nobody */
		assert_int_equal(ps->reflector, PATHSEL_REFLECT_OFF);
		assert_int_equal(ps->nb_reflect_from, 0);
		assert_int_equal(ps->reflect_rate, PATHSEL_DEFAULT_REFLECT_RATE);
		assert_int_equal(ps->nb_groups, 0);
		assert_null(ps->groups);
		assert_default_tiers(ps->tiers);
		assert_null(pathsel_config_group(&cfg, 0));
		config_sections_summary(&cfg, sum, sizeof(sum));
		assert_string_equal(sum, ", 3 BFD sessions");
		/* the planes of BASE's paths */
		assert_int_equal(cfg.path_groups[0].paths[0].plane, 0);
		assert_int_equal(cfg.path_groups[0].paths[0].nb_planes, 2);
		assert_int_equal(cfg.path_groups[0].paths[1].plane, 5);
		assert_int_equal(cfg.path_groups[0].paths[1].nb_planes, 1);
		assert_int_equal(cfg.path_groups[1].paths[0].plane, -1);
		assert_int_equal(cfg.path_groups[1].paths[0].nb_planes, 0);
		config_free(&cfg);
		config_errors_free(&errs);
	}
	/* a zeroed config (what a failed load leaves) */
	ps = pathsel_config_get(&zero);
	assert_non_null(ps);
	assert_false(ps->present);
	assert_int_equal(ps->nb_groups, 0);
	assert_default_tiers(ps->tiers);
	assert_null(pathsel_config_group(&zero, 0));
	pathsel_tier_defaults(t);
	assert_default_tiers(t);
}

/* A group with only its path group, a partial tiers group, only a reflector. */
static void group_defaults(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	const struct cfg_pathsel *ps;
	struct cfg_ps_tier def[PATHSEL_TIERS];

	(void)state;
	assert_int_equal(
		load_text(BASE_FULL,
			  "pathsel = { tiers = { gold = { }; bronze = { max_loss = "
			  "7.25; }; };\n"
			  "  groups = ( { path_group = \"dr\"; },\n"
			  "             { path_group = \"region\"; paths = ( { path = \"b\"; "
			  "} ); } ); };\n",
			  &cfg, &errs, NULL),
		0);
	ps = pathsel_config_get(&cfg);
	assert_true(ps->present);
	assert_int_equal(ps->reflector, PATHSEL_REFLECT_STATEFUL);
	pathsel_tier_defaults(def);
	assert_memory_equal(&ps->tiers[CFG_TIER_GOLD], &def[CFG_TIER_GOLD], sizeof(def[0]));
	assert_memory_equal(&ps->tiers[CFG_TIER_SILVER], &def[CFG_TIER_SILVER], sizeof(def[0]));
	assert_int_equal(ps->tiers[CFG_TIER_BRONZE].objective, PATHSEL_OBJ_COST);
	assert_int_equal(ps->tiers[CFG_TIER_BRONZE].max_loss_ppm, 72500);
	assert_int_equal(ps->nb_groups, 2);
	assert_int_equal(ps->groups[0].pg_index, 1);
	assert_default_group(&ps->groups[0]);
	assert_int_equal(ps->groups[1].pg_index, 0);
	assert_int_equal(ps->groups[1].nb_paths, 1);
	assert_int_equal(ps->groups[1].paths[0].path_index, 1);
	assert_int_equal(ps->groups[1].paths[0].bfd_index, -1);
	assert_int_equal(ps->groups[1].paths[0].capacity_bps, 0);
	assert_ptr_equal(pathsel_config_group(&cfg, 1), &ps->groups[0]);
	config_free(&cfg);
	config_errors_free(&errs);

	assert_int_equal(
		load_text(BASE_FULL, "pathsel = { reflector = \"off\"; };\n", &cfg, &errs, NULL),
		0);
	ps = pathsel_config_get(&cfg);
	assert_true(ps->present);
	assert_int_equal(ps->reflector, PATHSEL_REFLECT_OFF);
	assert_int_equal(ps->nb_groups, 0);
	assert_default_tiers(ps->tiers);
	config_free(&cfg);
	config_errors_free(&errs);
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(pathsel_objective_name(PATHSEL_OBJ_LATENCY), "latency");
	assert_string_equal(pathsel_objective_name(PATHSEL_OBJ_WEIGHTED), "weighted");
	assert_string_equal(pathsel_objective_name(PATHSEL_OBJ_COST), "cost");
	assert_string_equal(pathsel_objective_name((enum pathsel_objective)7), "?");
	assert_string_equal(pathsel_reflector_name(PATHSEL_REFLECT_STATEFUL), "stateful");
	assert_string_equal(pathsel_reflector_name(PATHSEL_REFLECT_STATELESS), "stateless");
	assert_string_equal(pathsel_reflector_name(PATHSEL_REFLECT_OFF), "off");
	assert_string_equal(pathsel_reflector_name((enum pathsel_reflector_mode)3), "?");
}

/* ---- one mistake per snippet ----------------------------------------------------- */

struct err_case {
	enum base base;
	const char *text;
	int line;        /* of the message, 1 = the snippet's first line */
	const char *msg; /* the whole message after "FILE:LINE: " */
};

#define PS(t)    "pathsel = { " t " };\n"
#define TIER(t)  PS("tiers = { " t " };")
#define GROUP(t) PS("groups = ( { path_group = \"region\"; " t " } );")
#define PATHS(t) GROUP("paths = ( " t " );")
#define PATH_GROUP(t)                                                                            \
	"path_groups = ( { name = \"g\"; paths = ( { name = \"a\"; tunnel = \"t\"; interface = " \
	"\"line1\"; via = \"172.16.1.2\"; " t " } ); } );\n"

/* "FILE:LINE: " of BFD's sessions in BASE_FULL: l1 13, l2 14, dr 15; BASE_FULL is 15 lines. */
static const struct err_case cases[] = {
	/* the section and its own settings */
	{ BASE_FULL, "pathsel = ( );\n", 1, "pathsel: expected a group { ... }, got a list" },
	{ BASE_FULL, PS("probe = 1;"), 1, "unknown setting 'pathsel.probe'" },
	/* the section's old name gets a hint, not "unknown setting" */
	{ BASE_FULL, "path_selection = { reflector = \"off\"; };\n", 1,
	  "path_selection: the section is now called 'pathsel'" },
	{ BASE_FULL, PS("reflector = \"passive\";"), 1,
	  "pathsel.reflector: unknown reflector mode 'passive' (stateful, stateless or "
	  "off)" },
	{ BASE_FULL, PS("reflector = true;"), 1,
	  "pathsel.reflector: expected a string, got a boolean" },
	{ BASE_FULL, PS("reflect_from = [ \"10.0.0.0/33\" ];"), 1,
	  "pathsel.reflect_from[0]: '10.0.0.0/33' is not a prefix (ADDRESS/LENGTH)" },
	{ BASE_FULL, PS("reflect_from = \"10.0.0.0/8\";"), 1,
	  "pathsel.reflect_from: expected an array [ ... ] of prefixes, got a string" },
	{ BASE_FULL, PS("reflect_rate = 0;"), 1,
	  "pathsel.reflect_rate: 0 is out of range 1..1000000" },
	/* tiers */
	{ BASE_FULL, PS("tiers = ( );"), 1, "pathsel.tiers: expected a group { ... }, got a list" },
	{ BASE_FULL, TIER("platinum = { };"), 1, "unknown setting 'pathsel.tiers.platinum'" },
	{ BASE_FULL, TIER("gold = \"latency\";"), 1,
	  "pathsel.tiers.gold: expected a group { objective = ...; }, got a string" },
	{ BASE_FULL, TIER("gold = { speed = 1; };"), 1,
	  "unknown setting 'pathsel.tiers.gold.speed'" },
	{ BASE_FULL, TIER("gold = { objective = \"fastest\"; };"), 1,
	  "pathsel.tiers.gold.objective: unknown objective 'fastest' (latency, weighted or "
	  "cost)" },
	{ BASE_FULL, TIER("silver = { max_loss = 100.5; };"), 1,
	  "pathsel.tiers.silver.max_loss: 100.5% is out of range 0..100%" },
	{ BASE_FULL, TIER("silver = { max_loss = -1; };"), 1,
	  "pathsel.tiers.silver.max_loss: -1% is out of range 0..100%" },
	{ BASE_FULL, TIER("silver = { max_loss = \"1%\"; };"), 1,
	  "pathsel.tiers.silver.max_loss: expected a percent (an integer or a number like "
	  "2.5), got a string" },
	{ BASE_FULL, TIER("silver = { latency_weight = -0.5; };"), 1,
	  "pathsel.tiers.silver.latency_weight: -0.5: expected a finite number >= 0" },
	{ BASE_FULL, TIER("bronze = { jitter_weight = -1; };"), 1,
	  "pathsel.tiers.bronze.jitter_weight: -1: expected a finite number >= 0" },
	{ BASE_FULL, TIER("bronze = { loss_weight = 1e999; };"), 1,
	  "pathsel.tiers.bronze.loss_weight: inf: expected a finite number >= 0" },
	{ BASE_FULL, TIER("gold = { cost_weight = \"x\"; };"), 1,
	  "pathsel.tiers.gold.cost_weight: expected a number (an integer or a number like "
	  "2.5), got a string" },
	/* groups */
	{ BASE_FULL, PS("groups = { };"), 1,
	  "pathsel.groups: expected a list ( ... ), got a group" },
	{ BASE_FULL, PS("groups = ( \"region\" );"), 1,
	  "pathsel.groups[0]: expected a group { ... }, got a string" },
	{ BASE_FULL, PS("groups = ( { interval = 5; } );"), 1,
	  "pathsel.groups[0]: missing required setting 'path_group'" },
	{ BASE_FULL, PS("groups = ( { path_group = \"nope\"; } );"), 1,
	  "pathsel.groups[0].path_group: unknown path group 'nope'" },
	{ BASE_FULL,
	  "pathsel = { groups = (\n"
	  "  { path_group = \"region\"; },\n"
	  "  { path_group = \"region\"; interval = 5; } ); };\n",
	  3,
	  "pathsel.groups[1].path_group: a second group for path group 'region' (first at "
	  "line 17)" },
	{ BASE_FULL, GROUP("probes = 3;"), 1, "unknown setting 'pathsel.groups[0].probes'" },
	{ BASE_FULL, GROUP("interval = 0;"), 1,
	  "pathsel.groups[0].interval: 0 ms is out of range 1..1000 ms" },
	{ BASE_FULL, GROUP("interval = 0.5;"), 1,
	  "pathsel.groups[0].interval: 0.5 ms is out of range 1..1000 ms" },
	{ BASE_FULL, GROUP("interval = 1000.5;"), 1,
	  "pathsel.groups[0].interval: 1000.5 ms is out of range 1..1000 ms" },
	{ BASE_FULL, GROUP("interval = 1001;"), 1,
	  "pathsel.groups[0].interval: 1001 ms is out of range 1..1000 ms" },
	{ BASE_FULL, GROUP("interval = \"10ms\";"), 1,
	  "pathsel.groups[0].interval: expected milliseconds (an integer or a number like "
	  "2.5), got a string" },
	{ BASE_FULL, GROUP("window = 9;"), 1,
	  "pathsel.groups[0].window: 9 is out of range 10..1024" },
	{ BASE_FULL, GROUP("window = 1025;"), 1,
	  "pathsel.groups[0].window: 1025 is out of range 10..1024" },
	{ BASE_FULL, GROUP("window = 100.0;"), 1,
	  "pathsel.groups[0].window: expected an integer, got a float" },
	{ BASE_FULL, GROUP("lost_down = 0;"), 1,
	  "pathsel.groups[0].lost_down: 0 is out of range 1..255" },
	{ BASE_FULL, GROUP("lost_down = 256;"), 1,
	  "pathsel.groups[0].lost_down: 256 is out of range 1..255" },
	{ BASE_FULL, GROUP("margin = 100.01;"), 1,
	  "pathsel.groups[0].margin: 100.01% is out of range 0..100%" },
	{ BASE_FULL, GROUP("margin = -0.1;"), 1,
	  "pathsel.groups[0].margin: -0.1% is out of range 0..100%" },
	{ BASE_FULL, GROUP("margin_min = -1;"), 1,
	  "pathsel.groups[0].margin_min: -1 ms is out of range 0..60000 ms" },
	{ BASE_FULL, GROUP("margin_min = 60001;"), 1,
	  "pathsel.groups[0].margin_min: 60001 ms is out of range 0..60000 ms" },
	{ BASE_FULL, GROUP("hold = 60000.5;"), 1,
	  "pathsel.groups[0].hold: 60000.5 ms is out of range 0..60000 ms" },
	{ BASE_FULL, GROUP("hold = -1;"), 1,
	  "pathsel.groups[0].hold: -1 ms is out of range 0..60000 ms" },
	{ BASE_FULL, GROUP("dwell = 600001;"), 1,
	  "pathsel.groups[0].dwell: 600001 is out of range 0..600000" },
	{ BASE_FULL, GROUP("plane_max_loss = 101;"), 1,
	  "pathsel.groups[0].plane_max_loss: 101% is out of range 0..100%" },
	{ BASE_FULL, GROUP("policy = \"nope\";"), 1,
	  "pathsel.groups[0].policy: unknown qos policy 'nope'" },
	{ BASE_NO_QOS, GROUP("policy = \"edge\";"), 1,
	  "pathsel.groups[0].policy: unknown qos policy 'edge' (the file has no qos "
	  "section)" },
	{ BASE_FULL, GROUP("tier = \"platinum\";"), 1,
	  "pathsel.groups[0].tier: unknown tier 'platinum' (gold, silver or bronze)" },
	{ BASE_FULL, GROUP("spread = 1;"), 1,
	  "pathsel.groups[0].spread: expected a boolean (true/false), got an integer" },
	{ BASE_FULL, GROUP("spread = true; flowlet_gap = 0.005;"), 1,
	  "pathsel.groups[0].flowlet_gap: 0.005 ms is out of range 0.01..1000 ms" },
	{ BASE_FULL, GROUP("spread = true; flowlet_gap = 0;"), 1,
	  "pathsel.groups[0].flowlet_gap: 0 ms is out of range 0.01..1000 ms" },
	{ BASE_FULL, GROUP("spread = true; flowlet_gap = 1000.1;"), 1,
	  "pathsel.groups[0].flowlet_gap: 1000.1 ms is out of range 0.01..1000 ms" },
	/* a group's paths */
	{ BASE_FULL, GROUP("paths = \"a\";"), 1,
	  "pathsel.groups[0].paths: expected a list ( ... ), got a string" },
	{ BASE_FULL, PATHS("\"a\""), 1,
	  "pathsel.groups[0].paths[0]: expected a group { path = ...; }, got a string" },
	{ BASE_FULL, PATHS("{ bfd = \"l1\"; }"), 1,
	  "pathsel.groups[0].paths[0]: missing required setting 'path'" },
	{ BASE_FULL, PATHS("{ path = \"a\"; weight = 2; }"), 1,
	  "unknown setting 'pathsel.groups[0].paths[0].weight'" },
	{ BASE_FULL, PATHS("{ path = \"p\"; }"), 1,
	  "pathsel.groups[0].paths[0].path: path group 'region' has no path 'p'" },
	{ BASE_FULL,
	  "pathsel = { groups = ( { path_group = \"region\"; paths = (\n"
	  "  { path = \"a\"; },\n"
	  "  { path = \"b\"; }, { path = \"a\"; bfd = \"l1\"; } ); } ); };\n",
	  3, "pathsel.groups[0].paths[2].path: path 'a' is already listed (line 17)" },
	{ BASE_FULL, PATHS("{ path = \"a\"; bfd = \"nope\"; }"), 1,
	  "pathsel.groups[0].paths[0].bfd: unknown BFD session 'nope'" },
	{ BASE_FULL, PATHS("{ path = \"a\"; bfd = \"l2\"; }"), 1,
	  "pathsel.groups[0].paths[0].bfd: BFD session 'l2' (line 14) is single-hop on "
	  "interface 'line2'; path 'a' runs over 'line1'" },
	{ BASE_FULL, PATHS("{ path = \"b\"; bfd = \"dr\"; }"), 1,
	  "pathsel.groups[0].paths[0].bfd: BFD session 'dr' (line 15) runs through path "
	  "group 'dr', not this group's 'region'" },
	{ BASE_FULL, PATHS("{ path = \"a\"; capacity = \"1X\"; }"), 1,
	  "pathsel.groups[0].paths[0].capacity: '1X': not a rate (bits/s: an integer, or a "
	  "number with a unit k, M, G or T: \"800k\", \"1.5G\")" },
	{ BASE_FULL, PATHS("{ path = \"a\"; capacity = \"500G\"; }"), 1,
	  "pathsel.groups[0].paths[0].capacity: '500G': above 400G, the fastest line vbrd "
	  "shapes" },
	{ BASE_FULL, PATHS("{ path = \"a\"; capacity = \"50%\"; }"), 1,
	  "pathsel.groups[0].paths[0].capacity: '50%': a percent; a path's capacity is "
	  "bits/s (\"1G\")" },
	{ BASE_FULL, PATHS("{ path = \"a\"; capacity = 0; }"), 1,
	  "pathsel.groups[0].paths[0].capacity: 0: a rate must be above 0" },
	{ BASE_FULL, PATHS("{ path = \"a\"; capacity = true; }"), 1,
	  "pathsel.groups[0].paths[0].capacity: expected a rate (bits/s: 100000000 or "
	  "\"100M\"), got a boolean" },
	/* a path's planes */
	{ BASE_NET, PATH_GROUP("planes = 0;"), 1,
	  "path_groups[0].paths[0].planes: 0 is out of range 1..16" },
	{ BASE_NET, PATH_GROUP("planes = 17;"), 1,
	  "path_groups[0].paths[0].planes: 17 is out of range 1..16" },
	{ BASE_NET, PATH_GROUP("planes = \"2\";"), 1,
	  "path_groups[0].paths[0].planes: expected an integer, got a string" },
	{ BASE_NET, PATH_GROUP("plane = 16382; planes = 4;"), 1,
	  "path_groups[0].paths[0].planes: 4 planes from plane 16382 end at plane 16385, above "
	  "16383 (outer UDP source port 65535)" },
	{ BASE_NET, PATH_GROUP("plane = 16384; planes = 1;"), 1,
	  "path_groups[0].paths[0].plane: 16384 is out of range 0..16383" },
	{ BASE_NET, PATH_GROUP("nb_planes = 2;"), 1,
	  "unknown setting 'path_groups[0].paths[0].nb_planes'" },
};

static void one_error(void **state)
{
	const struct err_case *c = *state;
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	int base;

	assert_int_equal(load_text(c->base, c->text, &cfg, &errs, &base), -EINVAL);
	cfx_assert_one_error(&errs, base + c->line, c->msg);
	/* a failed load leaves a zeroed config: the section reads as absent */
	assert_false(pathsel_config_get(&cfg)->present);
}

/* Every problem of the section is reported, not only the first. */
static void several_errors(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(
		load_text(BASE_FULL,
			  "pathsel = { reflector = \"x\";\n"
			  "  tiers = { gold = { max_loss = 101; }; };\n"
			  "  groups = ( { path_group = \"region\"; interval = 0; window = 5;\n"
			  "    paths = ( { path = \"c\"; bfd = \"none\"; } ); },\n"
			  "    { path_group = \"x\"; } ); };\n",
			  &cfg, &errs, NULL),
		-EINVAL);
	assert_int_equal(errs.count, 7);
	assert_non_null(strstr(errs.msgs[0], ":16: pathsel.reflector: unknown reflector"));
	assert_non_null(strstr(errs.msgs[1], ":17: pathsel.tiers.gold.max_loss: 101%"));
	assert_non_null(strstr(errs.msgs[2], ":18: pathsel.groups[0].interval: 0 ms"));
	assert_non_null(strstr(errs.msgs[3], ":18: pathsel.groups[0].window: 5 is out"));
	assert_non_null(strstr(errs.msgs[4], ":19: pathsel.groups[0].paths[0].path: path "
					     "group 'region' has no path 'c'"));
	assert_non_null(strstr(errs.msgs[5], ":19: pathsel.groups[0].paths[0].bfd: unknown "
					     "BFD session 'none'"));
	assert_non_null(strstr(errs.msgs[6], ":20: pathsel.groups[1].path_group: unknown "
					     "path group 'x'"));
	config_errors_free(&errs);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(base_lines),     cmocka_unit_test(good_config),
		cmocka_unit_test(absent_section), cmocka_unit_test(group_defaults),
		cmocka_unit_test(names),          cmocka_unit_test(several_errors),
	};
	const struct cfx_table tables[] = { CFX_TABLE(cases, msg, NULL, one_error) };

	return cfx_run("pathsel_config", fixed, sizeof(fixed) / sizeof(fixed[0]), tables, 1);
}
