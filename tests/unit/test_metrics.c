/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * metrics/: the exposition format written from command replies
 * (metrics_render.c) — escaping, rows and nested rows, each way of
 * reading a value, families, errors, the step budget, the page limit —
 * the families' table itself, and the config section "metrics".
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>

#include "config_fixture.h"
#include "metrics/metrics_config.h"
#include "metrics/metrics_render.h"

#define L METRIC_LABEL /* short names: the table is read row by row */
#define C METRIC_LABEL_FIXED

/* ---- a fake control socket: one JSON reply per command ---- */

static const struct {
	const char *cmd, *json;
	int rc;
} replies[] = {
	{ "show ports",
	  "{\"ports\": [{\"name\": \"p0\", \"link\": \"up\", \"rx_bytes\": 1500, \"mtu\": 9000},"
	  " {\"name\": \"p\\\"1\\\\\\n\", \"link\": \"down\", \"rx_bytes\": 18446744073709551}]}",
	  0 },
	{ "show groups",
	  "{\"groups\": [{\"name\": \"g\", \"gold\": \"a\", \"silver\": \"\", \"role\": \"active\","
	  " \"paths\": [{\"name\": \"a\", \"rtt_us\": 1500, \"up\": true, \"plane\": 3},"
	  " {\"name\": \"b\", \"rtt_us\": 250, \"up\": false, \"plane\": 4}]}]}",
	  0 },
	{ "show ha", "{\"enabled\": true, \"role\": \"standby\", \"redis\": {\"link\": \"up\"}}",
	  0 },
	{ "show broken", NULL, -EIO },
};
static unsigned calls;

static int fake_call(const char *cmd, json_t **reply)
{
	calls++;
	for (size_t i = 0; i < sizeof(replies) / sizeof(replies[0]); i++)
		if (strcmp(replies[i].cmd, cmd) == 0) {
			json_error_t e;

			if (replies[i].rc < 0)
				return replies[i].rc;
			*reply = json_loads(replies[i].json, 0, &e);
			assert_non_null(*reply);
			return 0;
		}
	return -ENOENT;
}

/* Render @p specs whole; the page's text (free it). */
static char *render(const struct metric_spec *specs, unsigned nb, struct metrics_page *pg)
{
	size_t len;
	char *t;

	metrics_page_init(pg, 1 << 20);
	while (!metrics_page_step(pg, specs, nb, fake_call, UINT64_MAX))
		;
	t = metrics_page_take(pg, &len);
	assert_int_equal(len, t ? strlen(t) : 0);
	return t;
}

static void label_value_escaping(void **state)
{
	struct metrics_page pg;
	size_t len;
	char *t;

	(void)state;
	metrics_page_init(&pg, 1024);
	metrics_put_label_value(&pg, "a\\b\"c\nd");
	metrics_put_label_value(&pg, "|plain|");
	metrics_put_help(&pg, "x\\y\"z\n");
	t = metrics_page_take(&pg, &len);
	/* label values: \ " and LF; HELP: \ and LF, a quote stays */
	assert_string_equal(t, "a\\\\b\\\"c\\nd|plain|x\\\\y\"z\\n");
	free(t);
	metrics_page_free(&pg);
}

static void rows_and_values(void **state)
{
	static const struct metric_spec specs[] = {
		{ .name = "vbrd_port_up",
		  .type = METRIC_GAUGE,
		  .help = "link\\up\nor not",
		  .cmd = "show ports",
		  .rows = "ports",
		  .labels = { L("port", "name") },
		  .value = "link",
		  .how = METRIC_IS,
		  .match = "up|UP" },
		{ .name = "vbrd_port_rx_bytes_total",
		  .type = METRIC_COUNTER,
		  .help = "bytes",
		  .cmd = "show ports",
		  .rows = "ports",
		  .labels = { L("port", "name") },
		  .value = "rx_bytes" },
		/* a row without the member: no sample */
		{ .name = "vbrd_port_mtu_bytes",
		  .type = METRIC_GAUGE,
		  .help = "mtu",
		  .cmd = "show ports",
		  .rows = "ports",
		  .labels = { L("port", "name") },
		  .value = "mtu" },
	};
	struct metrics_page pg;
	char *t;

	(void)state;
	calls = 0;
	t = render(specs, 3, &pg);
	assert_string_equal(t,
			    "# HELP vbrd_port_up link\\\\up\\nor not\n"
			    "# TYPE vbrd_port_up gauge\n"
			    "vbrd_port_up{port=\"p0\"} 1\n"
			    "vbrd_port_up{port=\"p\\\"1\\\\\\n\"} 0\n"
			    "# HELP vbrd_port_rx_bytes_total bytes\n"
			    "# TYPE vbrd_port_rx_bytes_total counter\n"
			    "vbrd_port_rx_bytes_total{port=\"p0\"} 1500\n"
			    "vbrd_port_rx_bytes_total{port=\"p\\\"1\\\\\\n\"} 18446744073709551\n"
			    "# HELP vbrd_port_mtu_bytes mtu\n"
			    "# TYPE vbrd_port_mtu_bytes gauge\n"
			    "vbrd_port_mtu_bytes{port=\"p0\"} 9000\n");
	assert_int_equal(calls, 1); /* one command, read by three specs */
	assert_int_equal(pg.samples, 5);
	free(t);
	metrics_page_free(&pg);
}

static void nested_rows_sets_and_units(void **state)
{
	static const struct metric_spec specs[] = {
		{ .name = "vbrd_path_rtt_seconds",
		  .type = METRIC_GAUGE,
		  .help = "rtt",
		  .cmd = "show groups",
		  .rows = "groups/paths",
		  .labels = { L("group", "../name"), L("path", "name"), L("plane", "plane") },
		  .value = "rtt_us",
		  .div = 1e6 },
		{ .name = "vbrd_path_up",
		  .type = METRIC_GAUGE,
		  .help = "up",
		  .cmd = "show groups",
		  .rows = "groups/paths",
		  .labels = { L("group", "../name"), L("path", "name") },
		  .value = "up" },
		/* a family from two specs, with a fixed label; "" names no path: no sample */
		{ .name = "vbrd_tier_path",
		  .type = METRIC_GAUGE,
		  .help = "tier",
		  .cmd = "show groups",
		  .rows = "groups",
		  .labels = { L("group", "name"), C("tier", "gold"), L("path", "gold") },
		  .value = "gold",
		  .how = METRIC_ONE },
		{ .name = "vbrd_tier_path",
		  .type = METRIC_GAUGE,
		  .cmd = "show groups",
		  .rows = "groups",
		  .labels = { L("group", "name"), C("tier", "silver"), L("path", "silver") },
		  .value = "silver",
		  .how = METRIC_ONE },
		{ .name = "vbrd_ha_role",
		  .type = METRIC_GAUGE,
		  .help = "role",
		  .cmd = "show ha",
		  .value = "role",
		  .how = METRIC_STATESET,
		  .match = "standby|active",
		  .state_label = "role" },
		{ .name = "vbrd_ha_redis_up",
		  .type = METRIC_GAUGE,
		  .help = "redis",
		  .cmd = "show ha",
		  .value = "redis.link",
		  .how = METRIC_IS,
		  .match = "up" },
	};
	struct metrics_page pg;
	char *t;

	(void)state;
	t = render(specs, sizeof(specs) / sizeof(specs[0]), &pg);
	assert_string_equal(t, "# HELP vbrd_path_rtt_seconds rtt\n"
			       "# TYPE vbrd_path_rtt_seconds gauge\n"
			       "vbrd_path_rtt_seconds{group=\"g\",path=\"a\",plane=\"3\"} 0.0015\n"
			       "vbrd_path_rtt_seconds{group=\"g\",path=\"b\",plane=\"4\"} 0.00025\n"
			       "# HELP vbrd_path_up up\n"
			       "# TYPE vbrd_path_up gauge\n"
			       "vbrd_path_up{group=\"g\",path=\"a\"} 1\n"
			       "vbrd_path_up{group=\"g\",path=\"b\"} 0\n"
			       "# HELP vbrd_tier_path tier\n"
			       "# TYPE vbrd_tier_path gauge\n"
			       "vbrd_tier_path{group=\"g\",tier=\"gold\",path=\"a\"} 1\n"
			       "# HELP vbrd_ha_role role\n"
			       "# TYPE vbrd_ha_role gauge\n"
			       "vbrd_ha_role{role=\"standby\"} 1\n"
			       "vbrd_ha_role{role=\"active\"} 0\n"
			       "# HELP vbrd_ha_redis_up redis\n"
			       "# TYPE vbrd_ha_redis_up gauge\n"
			       "vbrd_ha_redis_up 1\n");
	free(t);
	metrics_page_free(&pg);
}

static void failed_and_missing_commands(void **state)
{
	static const struct metric_spec specs[] = {
		{ .name = "vbrd_a",
		  .type = METRIC_GAUGE,
		  .help = "a",
		  .cmd = "show nothing",
		  .value = "x" },
		{ .name = "vbrd_b",
		  .type = METRIC_GAUGE,
		  .help = "b",
		  .cmd = "show broken",
		  .value = "x" },
		{ .name = "vbrd_ha_enabled",
		  .type = METRIC_GAUGE,
		  .help = "c",
		  .cmd = "show ha",
		  .value = "enabled" },
	};
	struct metrics_page pg;
	char *t;

	(void)state;
	t = render(specs, 3, &pg);
	/* an unknown command leaves its family out silently, a failed one counts */
	assert_string_equal(t, "# HELP vbrd_ha_enabled c\n# TYPE vbrd_ha_enabled gauge\n"
			       "vbrd_ha_enabled 1\n");
	assert_int_equal(pg.cmd_errors, 1);
	free(t);
	metrics_page_free(&pg);
}

static void one_command_a_step_past_the_deadline(void **state)
{
	static const struct metric_spec specs[] = {
		{ .name = "vbrd_a",
		  .type = METRIC_GAUGE,
		  .help = "a",
		  .cmd = "show ha",
		  .value = "enabled" },
		{ .name = "vbrd_b",
		  .type = METRIC_GAUGE,
		  .help = "b",
		  .cmd = "show ha",
		  .value = "enabled" },
		{ .name = "vbrd_c",
		  .type = METRIC_GAUGE,
		  .help = "c",
		  .cmd = "show ports",
		  .rows = "ports",
		  .labels = { L("port", "name") },
		  .value = "mtu" },
		{ .name = "vbrd_d",
		  .type = METRIC_GAUGE,
		  .help = "d",
		  .cmd = "show groups",
		  .rows = "groups",
		  .labels = { L("group", "name") },
		  .value = "gold" },
	};
	struct metrics_page pg;
	unsigned steps = 0;

	(void)state;
	calls = 0;
	metrics_page_init(&pg, 1 << 20);
	while (!metrics_page_step(&pg, specs, 4, fake_call, 0))
		steps++;
	/* three commands, a deadline always past: one command each step */
	assert_int_equal(steps + 1, 3);
	assert_int_equal(calls, 3);
	assert_int_equal(pg.samples, 3); /* vbrd_d: a string is no number */
	metrics_page_free(&pg);
}

static void page_limit(void **state)
{
	struct metrics_page pg;

	(void)state;
	metrics_page_init(&pg, 100);
	while (!metrics_page_step(&pg, metric_specs, metric_nb_specs, fake_call, UINT64_MAX))
		;
	assert_true(pg.too_large);
	assert_true(pg.len < 100);
	metrics_page_free(&pg);
}

/* The real table: Prometheus's rules, and a page from the fake replies. */
static void the_families_table(void **state)
{
	char err[256] = "";
	struct metrics_page pg;
	char *t;

	(void)state;
	if (metrics_specs_check(metric_specs, metric_nb_specs, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	t = render(metric_specs, metric_nb_specs, &pg);
	/* show ports and show ha are the only commands the fake knows */
	assert_non_null(strstr(t, "vbrd_port_rx_bytes_total{port=\"p0\"} 1500\n"));
	assert_non_null(strstr(t, "vbrd_ha_role{role=\"standby\"} 1\n"));
	assert_non_null(strstr(t, "vbrd_ha_redis_up 1\n"));
	free(t);
	metrics_page_free(&pg);
}

static void table_checks(void **state)
{
	static const struct {
		struct metric_spec s[2];
		unsigned nb;
		const char *why;
	} bad[] = {
		{ { { .name = "vbrd_x",
		      .type = METRIC_COUNTER,
		      .help = "h",
		      .cmd = "c",
		      .value = "v" } },
		  1,
		  "a counter's name ends in _total" },
		{ { { .name = "vbrd_x_total",
		      .type = METRIC_GAUGE,
		      .help = "h",
		      .cmd = "c",
		      .value = "v" } },
		  1,
		  "only a counter's name ends in _total" },
		{ { { .name = "other_x",
		      .type = METRIC_GAUGE,
		      .help = "h",
		      .cmd = "c",
		      .value = "v" } },
		  1,
		  "a name of [a-zA-Z0-9_:] that starts with vbrd_" },
		{ { { .name = "vbrd_x",
		      .type = METRIC_GAUGE,
		      .help = "h",
		      .cmd = "c",
		      .value = "v",
		      .labels = { L("__x", "k") } } },
		  1,
		  "label names of [a-zA-Z0-9_], not starting with __" },
		{ { { .name = "vbrd_x",
		      .type = METRIC_GAUGE,
		      .help = "h",
		      .cmd = "c",
		      .value = "v",
		      .labels = { L("a", "k"), C("a", "v") } } },
		  1,
		  "a label name used twice" },
		{ { { .name = "vbrd_x",
		      .type = METRIC_GAUGE,
		      .help = "h",
		      .cmd = "c",
		      .value = "v",
		      .rows = "r",
		      .labels = { L("a", "../k") } } },
		  1,
		  "../ in a label of a table that is not nested" },
		{ { { .name = "vbrd_x", .type = METRIC_GAUGE, .cmd = "c", .value = "v" } },
		  1,
		  "a family's first spec with its HELP text" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(metrics_specs_check(bad[i].s, bad[i].nb, err, sizeof(err)),
				 -EINVAL);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("case %zu: %s", i, err);
	}
}

/* ---- config section "metrics" ---- */

static const char BASE[] =
	"ports = ( { name = \"p0\"; devargs = \"net_null0\"; } );\n"
	"interfaces = ( { name = \"lan\"; port = \"p0\"; address = \"10.0.0.1/24\"; } );\n";
#define BASE_LINES 2

static void config_off_then_loopback(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	char buf[64];

	(void)state;
	assert_int_equal(CFX_LOAD(&cfg, &errs, BASE), 0);
	assert_false(cfg_metrics_get(&cfg)->enabled); /* no listening socket unless asked */
	config_free(&cfg);
	assert_int_equal(CFX_LOAD(&cfg, &errs, BASE, "metrics = { };\n"), 0);
	const struct cfg_metrics *m = cfg_metrics_get(&cfg);
	assert_true(m->enabled);
	assert_string_equal(cfg_metrics_format(m, buf, sizeof(buf)), "127.0.0.1:9469");
	config_free(&cfg);
	assert_int_equal(
		CFX_LOAD(&cfg, &errs, BASE, "metrics = { address = \"::\"; port = 9100; };\n"), 0);
	assert_string_equal(cfg_metrics_format(cfg_metrics_get(&cfg), buf, sizeof(buf)),
			    "[::]:9100");
	assert_non_null(strstr(cfg_metrics_get(&cfg)->where, ":3: metrics.address"));
	config_free(&cfg);
}

struct err_case {
	const char *text;
	int line;
	const char *msg;
};

static const struct err_case errors[] = {
	{ "metrics = { address = \"localhost\"; };\n", 1,
	  "metrics.address: 'localhost' is not a valid IPv4 or IPv6 address" },
	{ "metrics = {\n  port = 0;\n};\n", 2, "metrics.port: 0 is out of range 1..65535" },
	{ "metrics = {\n  listen = \"127.0.0.1:9469\";\n};\n", 2,
	  "unknown setting 'metrics.listen'" },
	{ "metrics = 1;\n", 1,
	  "metrics: must be a group: metrics = { address = \"127.0.0.1\"; port = 9469; }" },
};

static void one_error(void **state)
{
	const struct err_case *c = *state;
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	assert_int_equal(CFX_LOAD(&cfg, &errs, BASE, c->text), -EINVAL);
	cfx_assert_one_error(&errs, BASE_LINES + c->line, c->msg);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(label_value_escaping),
		cmocka_unit_test(rows_and_values),
		cmocka_unit_test(nested_rows_sets_and_units),
		cmocka_unit_test(failed_and_missing_commands),
		cmocka_unit_test(one_command_a_step_past_the_deadline),
		cmocka_unit_test(page_limit),
		cmocka_unit_test(the_families_table),
		cmocka_unit_test(table_checks),
		cmocka_unit_test(config_off_then_loopback),
	};
	static const struct cfx_table tables[] = {
		CFX_TABLE(errors, msg, "error: ", one_error),
	};
	return cfx_run("metrics", fixed, sizeof(fixed) / sizeof(fixed[0]), tables,
		       sizeof(tables) / sizeof(tables[0]));
}
