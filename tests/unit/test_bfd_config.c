/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of sections "bfd" and "failover_groups" (failover/bfd/bfd_config.c)
 * and of routes to a failover group.
 *
 * Runs from tests/unit (meson workdir). The good file is configs/fo-good.conf.
 * Each error case is a snippet written after BASE (ports, interfaces, a
 * tunnel and its path group) into a file of its own; its test asserts the
 * whole message, "FILE:LINE: setting: text", and that it is the only one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/config_fixture.h"

#include "core/config.h"
#include "failover/bfd/bfd_config.h"

/* ---- helpers ---------------------------------------------------------------- */

/* What every error snippet is written after: BASE_LINES lines. */
static const char BASE[] =
	"ports = ( { name = \"p0\"; devargs = \"net_null0\"; }, { name = \"p1\"; devargs = "
	"\"net_null1\"; } );\n"
	"interfaces = ( # lan0: two addresses in one subnet\n"
	"  { name = \"line1\"; port = \"p0\"; addresses = [ \"172.16.1.1/30\", \"fd00:1::1/64\" ]; "
	"},\n"
	"  { name = \"line2\"; port = \"p1\"; addresses = [ \"172.16.2.1/30\", \"fd00:2::1/64\" ]; "
	"},\n"
	"  { name = \"lan0\"; port = \"p0\"; vlan = 10;\n"
	"    addresses = [ \"10.0.0.1/24\", \"10.0.0.2/24\" ]; }\n"
	");\n"
	"tunnels = ( { name = \"dr-t\"; type = \"vxlan\"; vni = 7; local = \"172.16.1.1\";\n"
	"              remote = \"192.0.2.2\"; address = \"10.99.0.1/30\"; },\n"
	"            { name = \"bare\"; type = \"vxlan\"; vni = 8; local = \"172.16.2.1\";\n"
	"              remote = \"192.0.2.3\"; } );\n"
	"path_groups = (\n"
	"  { name = \"dr\"; paths = ( { name = \"p\"; tunnel = \"dr-t\"; interface = \"line1\";\n"
	"                            via = \"172.16.1.2\"; } ); },\n"
	"  { name = \"dr2\"; paths = ( { name = \"p\"; tunnel = \"bare\"; interface = \"line2\";\n"
	"                             via = \"172.16.2.2\"; } ); }\n"
	");\n";
#define BASE_LINES 17

/* Sessions that group snippets name (lines BASE_LINES + 1..7). */
static const char SESSIONS[] =
	"bfd = { sessions = (\n"
	"  { name = \"l1\"; interface = \"line1\"; peer = \"172.16.1.2\"; },\n"
	"  { name = \"l2\"; interface = \"line2\"; peer = \"172.16.2.2\"; },\n"
	"  { name = \"mh\"; multihop = true; local = \"10.0.0.1\"; peer = \"192.0.2.9\"; },\n"
	"  { name = \"dr\"; path_group = \"dr\"; peer = \"10.99.0.2\"; }\n"
	"); };\n";
#define SESSIONS_LINES 6

static int load_text(const char *pre, const char *text, struct vbrd_config *cfg,
		     struct config_errors *errs)
{
	return CFX_LOAD(cfg, errs, BASE, pre != NULL ? pre : "", text);
}

/* Lines of BASE, checked once so that the cases' line numbers hold. */
static void base_lines(void **state)
{
	(void)state;
	assert_int_equal(cfx_lines(BASE), BASE_LINES);
	assert_int_equal(cfx_lines(SESSIONS), SESSIONS_LINES);
}

static void assert_addr(const struct cfg_addr *a, const char *want)
{
	char buf[INET6_ADDRSTRLEN];

	assert_string_equal(config_format_addr(a, buf, sizeof(buf)), want);
}

/* ---- good files -------------------------------------------------------------- */

static void good_config(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	const struct bfd_config *fo;
	const struct cfg_bfd_session *b;
	const struct cfg_fgroup *g;

	(void)state;
	assert_int_equal(config_load("configs/fo-good.conf", &cfg, &errs), 0);
	assert_int_equal(errs.count, 0);
	fo = bfd_config_get(&cfg);
	assert_non_null(fo);

	/* section defaults: 10 ms, 3.3 ms (to the µs), 5 */
	assert_int_equal(fo->defaults.desired_min_tx_us, 10000);
	assert_int_equal(fo->defaults.required_min_rx_us, 3300);
	assert_int_equal(fo->defaults.detect_mult, 5);

	assert_int_equal(fo->nb_sessions, 6);
	b = &fo->sessions[0]; /* single-hop, local defaulted */
	assert_string_equal(b->name, "l1");
	assert_int_equal(b->kind, CFG_BFD_SINGLE_HOP);
	assert_int_equal(b->iface, 0);
	assert_int_equal(b->path_group, -1);
	assert_addr(&b->local, "172.16.1.1");
	assert_addr(&b->peer, "172.16.1.2");
	assert_int_equal(b->params.desired_min_tx_us, 10000);
	assert_int_equal(b->params.required_min_rx_us, 3300);
	assert_int_equal(b->params.detect_mult, 5);
	assert_false(b->params.passive);
	assert_false(b->params.admin_down);
	assert_int_equal(b->params.auth.type, BFD_AUTH_NONE);
	assert_int_equal(b->line, 17);

	b = &fo->sessions[1]; /* overrides; local: line2's address in the peer's subnet */
	assert_int_equal(b->iface, 1);
	assert_addr(&b->local, "172.16.3.1");
	assert_int_equal(b->params.desired_min_tx_us, 50000);
	assert_int_equal(b->params.required_min_rx_us, 60000000);
	assert_int_equal(b->params.detect_mult, 255);
	assert_true(b->params.passive);

	b = &fo->sessions[2]; /* IPv6, local given, simple password of 16 bytes */
	assert_addr(&b->local, "fd00:2::1");
	assert_addr(&b->peer, "fd00:2::2");
	assert_int_equal(b->params.auth.type, BFD_AUTH_SIMPLE);
	assert_int_equal(b->params.auth.key_id, 0);
	assert_int_equal(b->params.auth.key_len, 16);
	assert_memory_equal(b->params.auth.key, "0123456789abcdef", 16);

	b = &fo->sessions[3]; /* multihop */
	assert_int_equal(b->kind, CFG_BFD_MULTIHOP);
	assert_int_equal(b->iface, -1);
	assert_int_equal(b->path_group, -1);
	assert_addr(&b->local, "10.0.0.1");
	assert_addr(&b->peer, "192.0.2.77");
	assert_int_equal(b->min_ttl, 250);
	assert_true(b->params.admin_down);
	assert_int_equal(b->params.auth.type, BFD_AUTH_KEYED_SHA1);
	assert_int_equal(b->params.auth.key_id, 255);
	assert_int_equal(b->params.auth.key_len, 20);

	b = &fo->sessions[4]; /* through the path group: local is the tunnel's inner address */
	assert_int_equal(b->kind, CFG_BFD_TUNNEL);
	assert_int_equal(b->iface, -1);
	assert_int_equal(b->path_group, 0);
	assert_addr(&b->local, "10.99.0.1");
	assert_int_equal(b->params.desired_min_tx_us, 5000);
	assert_int_equal(b->params.auth.type, BFD_AUTH_METICULOUS_SHA1);
	assert_int_equal(b->params.auth.key_id, 1);
	assert_int_equal(b->params.auth.key_len, 6);
	assert_memory_equal(b->params.auth.key, "secret", 6);

	b = &fo->sessions[5]; /* IPv6 inside the tunnel; multihop = false is allowed */
	assert_int_equal(b->kind, CFG_BFD_TUNNEL);
	assert_addr(&b->local, "fd99::1");

	assert_int_equal(fo->nb_groups, 3);
	g = &fo->groups[0];
	assert_string_equal(g->name, "to-idc");
	assert_int_equal(g->mode, CFG_FG_ACTIVE_STANDBY);
	assert_true(g->revertive);
	assert_int_equal(g->hold_down_ms, 1000);
	assert_int_equal(g->members[0].kind, CFG_FG_LINE);
	assert_int_equal(g->members[0].iface, 0);
	assert_addr(&g->members[0].via, "172.16.1.2");
	assert_addr(&g->members[0].via6, "fd00:1::2");
	assert_int_equal(g->members[0].path_group, -1);
	assert_int_equal(g->members[0].bfd, 0);
	assert_int_equal(g->members[1].kind, CFG_FG_TUNNEL);
	assert_int_equal(g->members[1].iface, -1);
	assert_int_equal(g->members[1].path_group, 0);
	assert_int_equal(g->members[1].bfd, 4);
	assert_int_equal(g->members[1].via.family, 0);

	g = &fo->groups[1]; /* interfaces found from the gateways; no BFD */
	assert_int_equal(g->mode, CFG_FG_LOAD_BALANCE);
	assert_false(g->revertive);
	assert_int_equal(g->hold_down_ms, 0);
	assert_int_equal(g->members[0].iface, 0);
	assert_int_equal(g->members[0].bfd, -1);
	assert_int_equal(g->members[0].via6.family, 0);
	assert_int_equal(g->members[1].iface, 1);
	assert_int_equal(g->members[1].via.family, 0);
	assert_addr(&g->members[1].via6, "fd00:2::2");
	assert_int_equal(g->members[1].bfd, 2);

	g = &fo->groups[2]; /* a link-local via6 on the interface of via; a multihop session */
	assert_int_equal(g->hold_down_ms, 600000);
	assert_int_equal(g->members[0].iface, 1);
	assert_int_equal(g->members[1].iface, 1);
	assert_addr(&g->members[1].via6, "fe80::2");
	assert_int_equal(g->members[1].bfd, 3);

	/* routes point at the groups by index, with the failover FIB kind */
	assert_int_equal(fgroup_index(&cfg, "to-idc"), 0);
	assert_int_equal(fgroup_index(&cfg, "lines"), 1);
	assert_int_equal(fgroup_index(&cfg, "v4"), 2);
	assert_int_equal(fgroup_index(&cfg, "nope"), -1);
	assert_int_equal(fgroup_index(&cfg, ""), -1);
	assert_int_equal(cfg.nb_routes, 4);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(cfg.routes[i].target_kind, "failover_group");
		assert_int_equal(cfg.routes[i].nb_nexthops, 0);
		assert_int_equal(cfg.routes[i].path_group, -1);
	}
	assert_int_equal(cfg.routes[0].target, 0);
	assert_int_equal(cfg.routes[1].target, 1);
	assert_int_equal(cfg.routes[2].target, 2);
	assert_null(cfg.routes[3].target_kind);
	assert_int_equal(cfg.routes[3].nb_nexthops, 1);

	char sum[256];
	config_sections_summary(&cfg, sum, sizeof(sum));
	assert_string_equal(sum, ", 6 BFD sessions, 3 failover groups");
	config_free(&cfg);
	config_errors_free(&errs);
}

/* Without the sections: an empty model, defaults, no summary. */
static void absent_sections(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg, zero = { 0 };
	const struct bfd_config *fo;
	char sum[64];

	(void)state;
	assert_int_equal(config_load("configs/minimal.conf", &cfg, &errs), 0);
	fo = bfd_config_get(&cfg);
	assert_non_null(fo);
	assert_int_equal(fo->nb_sessions, 0);
	assert_int_equal(fo->nb_groups, 0);
	assert_int_equal(fo->defaults.desired_min_tx_us, 300000);
	assert_int_equal(fo->defaults.required_min_rx_us, 300000);
	assert_int_equal(fo->defaults.detect_mult, 3);
	assert_int_equal(fgroup_index(&cfg, "x"), -1);
	config_sections_summary(&cfg, sum, sizeof(sum));
	assert_string_equal(sum, "");
	config_free(&cfg);
	/* a zeroed config (what a failed load leaves) */
	assert_non_null(bfd_config_get(&zero));
	assert_int_equal(bfd_config_get(&zero)->nb_groups, 0);
}

/* Defaults of a session without timers, and of a group without options. */
static void session_defaults(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	const struct bfd_config *fo;

	(void)state;
	assert_int_equal(load_text(SESSIONS,
				   "failover_groups = ( { name = \"g\"; members = ( { via = "
				   "\"172.16.1.2\"; }, { path_group = \"dr2\"; } ); } );\n",
				   &cfg, &errs),
			 0);
	fo = bfd_config_get(&cfg);
	assert_int_equal(fo->nb_sessions, 4);
	assert_int_equal(fo->sessions[0].params.desired_min_tx_us, 300000);
	assert_int_equal(fo->sessions[0].params.required_min_rx_us, 300000);
	assert_int_equal(fo->sessions[0].params.detect_mult, 3);
	/* RFC 5881 §5: 255 on a single hop; RFC 5883 §5: FRR's 254 for the rest */
	assert_int_equal(fo->sessions[0].min_ttl, 255);
	assert_int_equal(fo->sessions[2].min_ttl, BFD_DEFAULT_MIN_TTL);
	assert_int_equal(fo->sessions[2].min_ttl, 254);
	assert_int_equal(fo->sessions[3].min_ttl, 254);
	assert_int_equal(fo->groups[0].mode, CFG_FG_ACTIVE_STANDBY);
	assert_true(fo->groups[0].revertive);
	assert_int_equal(fo->groups[0].hold_down_ms, 1000);
	assert_int_equal(fo->groups[0].members[1].path_group, 1);
	config_free(&cfg);
	config_errors_free(&errs);
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(cfg_fgroup_mode_name(CFG_FG_ACTIVE_STANDBY), "active-standby");
	assert_string_equal(cfg_fgroup_mode_name(CFG_FG_LOAD_BALANCE), "load-balance");
	assert_string_equal(cfg_bfd_kind_name(CFG_BFD_SINGLE_HOP), "single-hop");
	assert_string_equal(cfg_bfd_kind_name(CFG_BFD_MULTIHOP), "multihop");
	assert_string_equal(cfg_bfd_kind_name(CFG_BFD_TUNNEL), "tunnel");
}

/* ---- one mistake per snippet ----------------------------------------------------- */

struct err_case {
	bool sessions; /* SESSIONS goes before the snippet */
	const char *text;
	int line;        /* of the message, 1 = the snippet's first line */
	const char *msg; /* the whole message after "FILE:LINE: " */
};

#define S(t) "bfd = { sessions = ( " t " ); };\n"
#define G(m) "failover_groups = ( { name = \"g\"; members = ( " m " ); } );\n"

static const struct err_case cases[] = {
	/* the section's own settings */
	{ false, "bfd = { transmit_interval = 0; };\n", 1,
	  "bfd.transmit_interval: 0 ms is out of range 1..60000 ms" },
	{ false, "bfd = { receive_interval = 60000.5; };\n", 1,
	  "bfd.receive_interval: 60000.5 ms is out of range 1..60000 ms" },
	{ false, "bfd = { transmit_interval = \"10ms\"; };\n", 1,
	  "bfd.transmit_interval: expected milliseconds (an integer or a number like 3.3), got a "
	  "string" },
	{ false, "bfd = { detect_multiplier = 256; };\n", 1,
	  "bfd.detect_multiplier: 256 is out of range 1..255" },
	{ false, "bfd = { timers = 1; };\n", 1, "unknown setting 'bfd.timers'" },
	{ false, "bfd = ( );\n", 1, "bfd: expected a group { ... }, got a list" },
	/* sessions */
	{ false, S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; tx = 1; }"), 1,
	  "unknown setting 'bfd.sessions[0].tx'" },
	{ false, S("{ interface = \"line1\"; peer = \"172.16.1.2\"; }"), 1,
	  "bfd.sessions[0]: missing required setting 'name'" },
	{ false, S("{ name = \"a\"; interface = \"line1\"; }"), 1,
	  "bfd.sessions[0]: missing required setting 'peer'" },
	{ false, S("{ name = \"a\"; peer = \"172.16.1.2\"; }"), 1,
	  "bfd.sessions[0]: missing required setting 'interface' (or 'multihop = true', "
	  "'path_group')" },
	{ false, S("{ name = \"a\"; multihop = false; peer = \"172.16.1.2\"; }"), 1,
	  "bfd.sessions[0]: missing required setting 'interface' (or 'multihop = true', "
	  "'path_group')" },
	{ false,
	  "bfd = { sessions = (\n"
	  "  { name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; },\n"
	  "  { name = \"a\"; interface = \"line2\"; peer = \"172.16.2.2\"; } ); };\n",
	  3, "duplicate BFD session name 'a' (first at line 19)" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; path_group = \"dr\"; peer = \"10.99.0.2\"; }"),
	  1,
	  "bfd.sessions[0]: 'interface', 'multihop = true' and 'path_group' are mutually "
	  "exclusive" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; multihop = true; local = \"172.16.1.1\"; "
	    "peer = \"172.16.1.2\"; }"),
	  1,
	  "bfd.sessions[0]: 'interface', 'multihop = true' and 'path_group' are mutually "
	  "exclusive" },
	{ false, S("{ name = \"a\"; interface = \"line9\"; peer = \"172.16.1.2\"; }"), 1,
	  "bfd.sessions[0].interface: unknown interface 'line9'" },
	{ false, S("{ name = \"a\"; path_group = \"nope\"; peer = \"10.99.0.2\"; }"), 1,
	  "bfd.sessions[0].path_group: unknown path group 'nope'" },
	{ false, S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.300\"; }"), 1,
	  "bfd.sessions[0].peer: '172.16.1.300' is not a valid IPv4 or IPv6 address" },
	{ false,
	  S("{ name = \"a\"; multihop = true; local = \"10.0.0.1\"; peer = \"224.0.0.5\"; }"), 1,
	  "bfd.sessions[0].peer: 224.0.0.5 is a multicast address" },
	{ false, S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.2.2\"; }"), 1,
	  "bfd.sessions[0].peer: 172.16.2.2 is not in a connected subnet of interface 'line1'" },
	{ false, S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.1\"; }"), 1,
	  "bfd.sessions[0].peer: 172.16.1.1 is an address of interface 'line1' (line 3) itself" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; local = \"172.16.2.1\"; peer = \"172.16.1.2\"; "
	    "}"),
	  1, "bfd.sessions[0].local: 172.16.2.1 is not an address of interface 'line1'" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; local = \"fd00:1::1\"; peer = \"172.16.1.2\"; "
	    "}"),
	  1, "bfd.sessions[0].local: fd00:1::1 is IPv6 but the peer is IPv4" },
	{ false, S("{ name = \"a\"; multihop = true; peer = \"192.0.2.9\"; }"), 1,
	  "bfd.sessions[0]: missing required setting 'local'" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; minimum_ttl = 200; }"),
	  1,
	  "bfd.sessions[0].minimum_ttl: only for multihop and tunnel sessions (single-hop requires "
	  "255, RFC 5881 §5)" },
	{ false,
	  S("{ name = \"a\"; multihop = true; local = \"10.0.0.1\"; peer = \"192.0.2.9\"; "
	    "minimum_ttl = 0; }"),
	  1, "bfd.sessions[0].minimum_ttl: 0 is out of range 1..255" },
	{ false,
	  S("{ name = \"a\"; multihop = true; local = \"10.0.0.9\"; peer = \"192.0.2.9\"; }"), 1,
	  "bfd.sessions[0].local: 10.0.0.9 is not an address of any interface of the VRF default "
	  "(multihop sessions are routed there)" },
	{ false, S("{ name = \"a\"; path_group = \"dr\"; peer = \"10.98.0.2\"; }"), 1,
	  "bfd.sessions[0].peer: 10.98.0.2 is not in the inner subnet of tunnel 'dr-t' "
	  "(10.99.0.1/30)" },
	{ false,
	  S("{ name = \"a\"; path_group = \"dr\"; local = \"10.99.0.3\"; peer = \"10.99.0.2\"; }"),
	  1, "bfd.sessions[0].local: 10.99.0.3 is not an inner address of tunnel 'dr-t'" },
	{ false, S("{ name = \"a\"; path_group = \"dr2\"; peer = \"10.98.0.2\"; }"), 1,
	  "bfd.sessions[0].path_group: tunnel 'bare' of path group 'dr2' has no inner IPv4 "
	  "address (its 'address'): a session through it runs between inner addresses" },
	{ false, S("{ name = \"a\"; path_group = \"dr\"; peer = \"10.99.0.1\"; }"), 1,
	  "bfd.sessions[0].peer: 10.99.0.1 is an address of tunnel 'dr-t' (line 8) itself" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; detect_multiplier = 0; "
	    "}"),
	  1, "bfd.sessions[0].detect_multiplier: 0 is out of range 1..255" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; transmit_interval = "
	    "0.9; }"),
	  1, "bfd.sessions[0].transmit_interval: 0.9 ms is out of range 1..60000 ms" },
	{ false, S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; passive = 1; }"),
	  1, "bfd.sessions[0].passive: expected a boolean (true/false), got an integer" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; shutdown = \"yes\"; }"),
	  1, "bfd.sessions[0].shutdown: expected a boolean (true/false), got a string" },
	/* the same session twice; the same peer twice on one interface */
	{ false,
	  "bfd = { sessions = (\n"
	  "  { name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; },\n"
	  "  { name = \"b\"; interface = \"line1\"; local = \"172.16.1.1\"; peer = \"172.16.1.2\"; "
	  "} ); };\n",
	  3,
	  "bfd.sessions[1]: the same single-hop session as 'a' (line 19): interface 'line1', "
	  "local 172.16.1.1, peer 172.16.1.2" },
	{ false,
	  "bfd = { sessions = (\n"
	  "  { name = \"a\"; interface = \"lan0\"; peer = \"10.0.0.9\"; },\n"
	  "  { name = \"b\"; interface = \"lan0\"; local = \"10.0.0.2\"; peer = \"10.0.0.9\"; } "
	  "); };\n",
	  3,
	  "bfd.sessions[1].peer: 10.0.0.9 on interface 'lan0' is already the peer of session "
	  "'a' (line 19)" },
	{ false,
	  "bfd = { sessions = (\n"
	  "  { name = \"a\"; multihop = true; local = \"10.0.0.1\"; peer = \"192.0.2.9\"; },\n"
	  "  { name = \"b\"; multihop = true; local = \"10.0.0.1\"; peer = \"192.0.2.9\"; "
	  "transmit_interval = 50; } ); };\n",
	  3,
	  "bfd.sessions[1]: the same multihop session as 'a' (line 19): local 10.0.0.1, peer "
	  "192.0.2.9" },
	{ false,
	  "bfd = { sessions = (\n"
	  "  { name = \"a\"; path_group = \"dr\"; peer = \"10.99.0.2\"; },\n"
	  "  { name = \"b\"; path_group = \"dr\"; peer = \"10.99.0.2\"; } ); };\n",
	  3,
	  "bfd.sessions[1]: the same tunnel session as 'a' (line 19): path group 'dr', local "
	  "10.99.0.1, peer 10.99.0.2" },
	/* authentication */
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = { type = "
	    "\"keyed-md5\"; key = \"k\"; }; }"),
	  1,
	  "bfd.sessions[0].auth.type: 'keyed-md5' is not supported (MD5 is deprecated, RFC 6151): "
	  "use keyed-sha1 or meticulous-sha1" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = { type = "
	    "\"meticulous-md5\"; key = \"k\"; }; }"),
	  1,
	  "bfd.sessions[0].auth.type: 'meticulous-md5' is not supported (MD5 is deprecated, RFC "
	  "6151): use keyed-sha1 or meticulous-sha1" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = { type = "
	    "\"sha256\"; key = \"k\"; }; }"),
	  1,
	  "bfd.sessions[0].auth.type: unknown authentication type 'sha256' (simple, keyed-sha1 "
	  "or meticulous-sha1)" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = { type = "
	    "\"simple\"; key = \"12345678901234567\"; }; }"),
	  1, "bfd.sessions[0].auth.key: a key of 17 bytes, expected 1..16 for simple" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = { type = "
	    "\"keyed-sha1\"; key = \"123456789012345678901\"; }; }"),
	  1, "bfd.sessions[0].auth.key: a key of 21 bytes, expected 1..20 for SHA1" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = { type = "
	    "\"keyed-sha1\"; key = \"\"; }; }"),
	  1, "bfd.sessions[0].auth.key: a key of 0 bytes, expected 1..20 for SHA1" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = { type = "
	    "\"simple\"; }; }"),
	  1, "bfd.sessions[0].auth: missing required setting 'key'" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = { key = \"k\"; "
	    "}; }"),
	  1, "bfd.sessions[0].auth: missing required setting 'type'" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = { type = "
	    "\"simple\"; key = \"k\"; key_id = 256; }; }"),
	  1, "bfd.sessions[0].auth.key_id: 256 is out of range 0..255" },
	{ false,
	  S("{ name = \"a\"; interface = \"line1\"; peer = \"172.16.1.2\"; auth = \"simple\"; }"),
	  1, "bfd.sessions[0].auth: expected a group { type = ...; key = ...; }, got a string" },
	/* failover groups */
	{ true, G("{ via = \"172.16.1.2\"; }"), 1,
	  "failover_groups[0].members: 1 members, expected 2" },
	{ true, "failover_groups = ( { name = \"g\"; } );\n", 1,
	  "failover_groups[0]: missing required setting 'members'" },
	{ true,
	  "failover_groups = ( { members = ( { via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; } "
	  "); } );\n",
	  1, "failover_groups[0]: missing required setting 'name'" },
	{ true,
	  "failover_groups = (\n"
	  "  { name = \"g\"; members = ( { via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; } ); "
	  "},\n"
	  "  { name = \"g\"; members = ( { via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; } ); } "
	  ");\n",
	  3, "duplicate failover group name 'g' (first at line 25)" },
	{ true,
	  "failover_groups = ( { name = \"g\"; mode = \"hot-standby\";\n"
	  "  members = ( { via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; } ); } );\n",
	  1,
	  "failover_groups[0].mode: unknown mode 'hot-standby' (active-standby or load-balance)" },
	{ true,
	  "failover_groups = ( { name = \"g\"; hold_down = 600001;\n"
	  "  members = ( { via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; } ); } );\n",
	  1, "failover_groups[0].hold_down: 600001 is out of range 0..600000" },
	{ true,
	  "failover_groups = ( { name = \"g\"; revertive = \"no\";\n"
	  "  members = ( { via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; } ); } );\n",
	  1, "failover_groups[0].revertive: expected a boolean (true/false), got a string" },
	{ true, G("{ via = \"172.16.1.2\"; gateway = \"x\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "unknown setting 'failover_groups[0].members[0].gateway'" },
	{ true, G("{ interface = \"line1\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0]: missing required setting 'via' (or 'via6', "
	  "'path_group')" },
	{ true, G("{ interface = \"line9\"; via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].interface: unknown interface 'line9'" },
	{ true, G("{ via = \"fd00:1::2\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].via: fd00:1::2 is IPv6: 'via' is the IPv4 gateway (IPv6 "
	  "goes in 'via6')" },
	{ true, G("{ via6 = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].via6: 172.16.1.2 is IPv4: 'via6' is the IPv6 gateway "
	  "(IPv4 goes in 'via')" },
	{ true, G("{ via = \"172.16.1\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].via: '172.16.1' is not a valid IPv4 address" },
	{ true, G("{ via = \"172.16.9.2\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].via: 172.16.9.2 is not in a connected subnet" },
	{ true, G("{ interface = \"line1\"; via = \"172.16.2.2\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].via: 172.16.2.2 is not in a connected subnet of "
	  "interface 'line1'" },
	{ true, G("{ via = \"172.16.1.2\"; via6 = \"fd00:2::2\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].via6: fd00:2::2 is not in a connected subnet of "
	  "interface 'line1', where 'via' is" },
	{ true, G("{ via = \"172.16.1.1\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].via: 172.16.1.1 is an address of interface 'line1' "
	  "itself" },
	{ true, G("{ via6 = \"fe80::2\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].via6: link-local gateway fe80::2 needs an 'interface'" },
	{ true, G("{ path_group = \"dr\"; via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0]: 'path_group' excludes 'interface', 'via' and 'via6'" },
	{ true, G("{ path_group = \"nope\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].path_group: unknown path group 'nope'" },
	{ true, G("{ via = \"172.16.1.2\"; bfd = \"nope\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].bfd: unknown BFD session 'nope'" },
	{ true, G("{ via = \"172.16.1.2\"; bfd = \"l2\"; }, { via = \"172.16.2.2\"; }"), 1,
	  "failover_groups[0].members[0].bfd: BFD session 'l2' (line 20) is single-hop on "
	  "interface 'line2', not on this member's 'line1'" },
	{ true, G("{ via = \"172.16.1.2\"; }, { path_group = \"dr2\"; bfd = \"dr\"; }"), 1,
	  "failover_groups[0].members[1].bfd: BFD session 'dr' (line 22) runs through path group "
	  "'dr', not this member's 'dr2'" },
	{ true,
	  G("{ via = \"172.16.1.2\"; bfd = \"l1\"; }, { interface = \"line1\"; via = "
	    "\"172.16.1.2\"; }"),
	  1,
	  "failover_groups[0].members[1]: the same interface and gateways as members[0] (line "
	  "24)" },
	{ true, G("{ path_group = \"dr\"; }, { path_group = \"dr\"; bfd = \"dr\"; }"), 1,
	  "failover_groups[0].members[1]: the same path group as members[0] (line 24)" },
	{ true, G("{ via = \"172.16.1.2\"; }, \"line2\""), 1,
	  "failover_groups[0].members[1]: expected a group { ... }, got a string" },
	/* routes to a group */
	{ true,
	  G("{ via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; }") "routes = ( { prefix = "
								    "\"10.1.0.0/16\"; "
								    "failover_group = \"nope\"; } "
								    ");\n",
	  2, "routes[0].failover_group: unknown failover_group 'nope'" },
	{ true,
	  G("{ via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; }") "routes = ( { prefix = "
								    "\"10.1.0.0/16\"; "
								    "failover_group = \"g\"; via = "
								    "\"172.16.1.2\"; } );\n",
	  2, "routes[0]: 'failover_group' excludes 'via', 'next_hops' and 'path_group'" },
	{ true,
	  G("{ via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; }") "routes = ( { prefix = "
								    "\"10.1.0.0/16\"; "
								    "failover_group = \"g\"; "
								    "path_group = "
								    "\"dr\"; } );\n",
	  2, "routes[0]: 'failover_group' excludes 'via', 'next_hops' and 'path_group'" },
	{ true,
	  G("{ via = \"172.16.1.2\"; }, { via = \"172.16.2.2\"; }") "routes = ( { prefix = "
								    "\"10.1.0.0/16\"; "
								    "failover_group = 1; } );\n",
	  2, "routes[0].failover_group: expected a string, got an integer" },
};

static void one_error(void **state)
{
	const struct err_case *c = *state;
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	int line = BASE_LINES + (c->sessions ? SESSIONS_LINES : 0) + c->line;

	assert_int_equal(load_text(c->sessions ? SESSIONS : NULL, c->text, &cfg, &errs), -EINVAL);
	cfx_assert_one_error(&errs, line, c->msg);
}

/* Every problem of a file is reported, not only the first. */
static void several_errors(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(
		load_text(NULL,
			  "bfd = { detect_multiplier = 0; sessions = (\n"
			  "  { name = \"a\"; interface = \"line1\"; peer = \"172.16.2.2\"; },\n"
			  "  { name = \"b\"; multihop = true; peer = \"192.0.2.1\"; } ); };\n"
			  "failover_groups = ( { name = \"g\"; members = (\n"
			  "  { via = \"172.16.1.2\"; bfd = \"c\"; },\n"
			  "  { path_group = \"x\"; } ); } );\n",
			  &cfg, &errs),
		-EINVAL);
	assert_int_equal(errs.count, 5);
	assert_non_null(strstr(errs.msgs[0], ":18: bfd.detect_multiplier: 0 is out of range"));
	assert_non_null(strstr(errs.msgs[1], ":19: bfd.sessions[0].peer: 172.16.2.2 is not"));
	assert_non_null(strstr(errs.msgs[2], ":20: bfd.sessions[1]: missing required setting "
					     "'local'"));
	assert_non_null(strstr(errs.msgs[3], ":22: failover_groups[0].members[0].bfd: unknown BFD "
					     "session 'c'"));
	assert_non_null(strstr(errs.msgs[4], ":23: failover_groups[0].members[1].path_group: "
					     "unknown path group 'x'"));
	config_errors_free(&errs);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(base_lines),      cmocka_unit_test(good_config),
		cmocka_unit_test(absent_sections), cmocka_unit_test(session_defaults),
		cmocka_unit_test(names),           cmocka_unit_test(several_errors),
	};
	const struct cfx_table tables[] = { CFX_TABLE(cases, msg, NULL, one_error) };

	return cfx_run("bfd_config", fixed, sizeof(fixed) / sizeof(fixed[0]), tables, 1);
}
