/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of section "ha" (failover/ha/ha_config.c).
 *
 * Runs from tests/unit (meson workdir). The complete file is
 * configs/ha-good.conf. Every other case is a snippet written after BASE
 * (ports, interfaces lan and wan, a tunnel and its path group, a BFD
 * session through it, a failover group) into a file of its own: the good
 * ones with the values they give (ha_config.h's defaults where they set
 * nothing), the bad ones with their whole message, "FILE:LINE: setting:
 * text", which must be the only one.
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
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/config_fixture.h"

#include "core/config.h"
#include "core/config_read.h" /* config_restart_diff() */
#include "failover/ha/ha_config.h"

/* ---- helpers ------------------------------------------------------------------ */

static const char BASE[] =
	"ports = ( { name = \"p0\"; devargs = \"net_null0\"; }, { name = \"p1\"; devargs = "
	"\"net_null1\"; } );\n"
	"interfaces = (\n"
	"  { name = \"lan\"; port = \"p0\"; addresses = [ \"10.0.0.2/24\", \"2001:db8::2/64\" ]; "
	"},\n"
	"  { name = \"wan\"; port = \"p1\"; address = \"172.16.1.1/29\"; }\n"
	");\n"
	"tunnels = ( { name = \"dr-t\"; type = \"vxlan\"; vni = 7; local = \"172.16.1.1\"; "
	"remote = \"192.0.2.2\";\n"
	"              address = \"10.99.0.1/30\"; } );\n"
	"path_groups = ( { name = \"region\"; paths = ( { name = \"p\"; tunnel = \"dr-t\"; "
	"interface = \"wan\";\n"
	"                                                via = \"172.16.1.2\"; } ); } );\n"
	"bfd = { sessions = ( { name = \"to-b\"; path_group = \"region\"; peer = \"10.99.0.2\"; } "
	"); };\n"
	"failover_groups = ( { name = \"dr\"; members = ( { interface = \"wan\"; via = "
	"\"172.16.1.2\"; },\n"
	"                                                { path_group = \"region\"; bfd = "
	"\"to-b\"; } ); } );\n";
#define BASE_LINES 12

/* ha_config.h's defaults */
#define DEF_TIMEOUT   30
#define DEF_LEASE     40
#define DEF_RENEW     8
#define DEF_RETRY     2
#define DEF_ANNOUNCE  3
#define DEF_INTERVAL  20
#define DEF_PUBLISH   100
#define DEF_STATE_TTL 10000

/* BASE and @p text into the test file, loaded. */
static int load_text(const char *text, struct vbrd_config *cfg, struct config_errors *errs)
{
	return CFX_LOAD(cfg, errs, BASE, text);
}

/* "host:port" of @p a, "[v6]:port" */
static const char *endpoint(const struct ha_redis_addr *a, char *buf, size_t len)
{
	snprintf(buf, len, strchr(a->host, ':') ? "[%s]:%u" : "%s:%u", a->host, a->port);
	return buf;
}

static void base_lines(void **state)
{
	(void)state;
	assert_int_equal(cfx_lines(BASE), BASE_LINES);
}

/* ---- good files ------------------------------------------------------------------ */

static void good_config(void **state)
{
	struct config_errors errs = { 0 };
	const struct cfg_ha *h;
	struct vbrd_config cfg;
	char buf[128], sum[256];
	uint8_t v6[16];

	(void)state;
	assert_int_equal(config_load("configs/ha-good.conf", &cfg, &errs), 0);
	assert_int_equal(errs.count, 0);
	h = cfg_ha_get(&cfg);
	assert_non_null(h);
	assert_true(h->enabled);
	assert_int_equal(h->line, 14);
	assert_string_equal(h->pair, "edge1");
	assert_string_equal(h->node, "a");
	assert_string_equal(h->redis.prefix, "vbrd:edge1:");
	assert_string_equal(h->redis.node, "a");
	assert_string_equal(h->redis.server.host, "");
	assert_string_equal(h->redis.master_name, "vbrd");
	assert_int_equal(h->redis.nb_sentinels, 3);
	assert_string_equal(endpoint(&h->redis.sentinels[0], buf, sizeof(buf)), "127.0.0.1:26379");
	assert_string_equal(endpoint(&h->redis.sentinels[1], buf, sizeof(buf)), "[::1]:26380");
	assert_string_equal(endpoint(&h->redis.sentinels[2], buf, sizeof(buf)),
			    "sentinel-1.example.net:26379");
	assert_string_equal(h->redis.password, "s3cret");
	assert_int_equal(h->redis.timeout_ms, 75);
	assert_int_equal(h->lease_ms, 200);
	assert_int_equal(h->renew_ms, 40);
	assert_int_equal(h->guard_ms, 25);
	assert_int_equal(h->retry_ms, 15);
	assert_string_equal(h->iface, "lan");
	assert_true(h->has_v4);
	assert_int_equal(h->vip4, 0x0a000001);
	assert_true(h->has_v6);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", v6), 1);
	assert_memory_equal(h->vip6, v6, 16);
	assert_int_equal(h->announce, 5);
	assert_int_equal(h->announce_interval_ms, 30);
	assert_string_equal(h->partner_bfd, "to-b");
	assert_int_equal(h->nb_fgroups, 1);
	assert_string_equal(h->fgroups[0], "dr");
	assert_int_equal(h->nb_pgroups, 1);
	assert_string_equal(h->pgroups[0], "region");
	assert_int_equal(h->publish_ms, 250);
	assert_int_equal(h->state_ttl_ms, 20000);
	config_sections_summary(&cfg, sum, sizeof(sum));
	assert_string_equal(
		sum, ", 1 BFD sessions, 1 failover groups, HA pair edge1, node a, lease 200 ms");
	config_free(&cfg);
	config_errors_free(&errs);
}

/* Without the section: not enabled, every default; also for a zeroed config. */
static void absent_section(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg, zero = { 0 };
	const struct cfg_ha *hs[2];
	char sum[128];

	(void)state;
	assert_int_equal(load_text("", &cfg, &errs), 0);
	hs[0] = cfg_ha_get(&cfg);
	hs[1] = cfg_ha_get(&zero);
	for (int i = 0; i < 2; i++) {
		const struct cfg_ha *h = hs[i];

		assert_non_null(h);
		assert_false(h->enabled);
		assert_string_equal(h->pair, "");
		assert_int_equal(h->redis.timeout_ms, DEF_TIMEOUT);
		assert_int_equal(h->lease_ms, DEF_LEASE);
		assert_int_equal(h->renew_ms, DEF_RENEW);
		assert_int_equal(h->guard_ms, DEF_LEASE / 10);
		assert_int_equal(h->retry_ms, DEF_RETRY);
		assert_int_equal(h->announce, DEF_ANNOUNCE);
		assert_int_equal(h->announce_interval_ms, DEF_INTERVAL);
		assert_int_equal(h->publish_ms, DEF_PUBLISH);
		assert_int_equal(h->state_ttl_ms, DEF_STATE_TTL);
		assert_int_equal(h->nb_fgroups + h->nb_pgroups, 0);
	}
	config_sections_summary(&cfg, sum, sizeof(sum));
	assert_string_equal(sum, ", 1 BFD sessions, 1 failover groups");
	/* no restart setting of the section: adding it later needs a restart (below) */
	for (int i = 0; i < cfg.nb_restart; i++)
		assert_false(strncmp(cfg.restart[i].path, "ha.", 3) == 0);
	config_free(&cfg);
	config_errors_free(&errs);
}

/* What a good snippet gives; 0 / NULL: ha_config.h's default (or none). */
struct want {
	const char *pair, *node; /* NULL: "edge1", "a" */
	const char *server;      /* "host:port", NULL with sentinels */
	const char *master;
	const char *sentinels[HA_REDIS_MAX_SENTINELS];
	const char *password;
	uint32_t timeout, lease, renew, guard, retry;
	const char *iface, *vip4, *vip6;
	const char *vmac; /* "xx:..", NULL: none */
	uint32_t announce, interval;
	const char *partner_bfd;
	const char *fgroups[3], *pgroups[3];
	uint32_t publish, state_ttl;
};

struct good_case {
	const char *text;
	struct want w;
};

/* The required settings: pair, node, one server, the service address. */
#define PAIR           "pair = \"edge1\"; "
#define NODE           "node = \"a\"; "
#define REDIS          "redis = { server = \"127.0.0.1\"; }; "
#define SVC            "service = { interface = \"lan\"; ipv4 = \"10.0.0.1\"; }; "
#define HA(t)          "ha = { " PAIR NODE REDIS SVC t " };\n"
#define HA_NO_PAIR(t)  "ha = { " NODE REDIS SVC t " };\n"
#define HA_NO_NODE(t)  "ha = { " PAIR REDIS SVC t " };\n"
#define HA_REDIS(r)    "ha = { " PAIR NODE "redis = { " r " }; " SVC " };\n"
#define HA_SERVICE(v)  "ha = { " PAIR NODE REDIS "service = { " v " }; };\n"
#define HA_NO_REDIS(t) "ha = { " PAIR NODE SVC t " };\n"
#define HA_NO_SVC(t)   "ha = { " PAIR NODE REDIS t " };\n"

#define V4 .iface = "lan", .vip4 = "10.0.0.1"
#define S1 .server = "127.0.0.1:6379"

static const struct good_case goods[] = {
	/* the required settings alone: every default */
	{ HA(""), { S1, V4 } },
	/* endpoints */
	{ HA_REDIS("server = \"10.1.2.3:7000\";"), { .server = "10.1.2.3:7000", V4 } },
	{ HA_REDIS("server = \"redis\";"), { .server = "redis:6379", V4 } },
	{ HA_REDIS("server = \"redis-1.dc1.example.net:65535\";"),
	  { .server = "redis-1.dc1.example.net:65535", V4 } },
	{ HA_REDIS("server = \"[::1]:6380\";"), { .server = "[::1]:6380", V4 } },
	{ HA_REDIS("server = \"[2001:db8::7]\";"), { .server = "[2001:db8::7]:6379", V4 } },
	{ HA_REDIS("server = \"10.0.0.9:1\"; password = \"\"; tls = false; timeout = 5;"),
	  { .server = "10.0.0.9:1", .timeout = 5, V4 } },
	{ HA_REDIS("server = \"r\"; timeout = 5000; password = \"pw\";"),
	  { .server = "r:6379", .timeout = 5000, .password = "pw", V4 } },
	{ HA_REDIS("master = \"m\"; sentinels = [ \"s1\" ];"),
	  { .master = "m", .sentinels = { "s1:26379" }, V4 } },
	{ HA_REDIS("sentinels = ( \"10.0.0.5:1\", \"[fd00::5]\", \"10.0.0.5:2\", \"s4\", \"s5\", "
		   "\"s6\", \"s7\", \"s8\" ); master = \"vbrd-master.1\";"),
	  { .master = "vbrd-master.1",
	    .sentinels = { "10.0.0.5:1", "[fd00::5]:26379", "10.0.0.5:2", "s4:26379", "s5:26379",
			   "s6:26379", "s7:26379", "s8:26379" },
	    V4 } },
	/* names */
	{ "ha = { pair = \"A-b_c.9\"; node = \"12345678901234567890123456789012\"; " REDIS SVC
	  "};\n",
	  { .pair = "A-b_c.9", .node = "12345678901234567890123456789012", S1, V4 } },
	/* timers: the ends of their ranges; guard lease / 10 unless given */
	{ HA("lease = 20; renew = 10;"), { S1, V4, .lease = 20, .renew = 10, .guard = 2 } },
	{ HA("lease = 20; renew = 1; guard = 18; retry = 20;"),
	  { S1, V4, .lease = 20, .renew = 1, .guard = 18, .retry = 20 } },
	{ HA("lease = 100;"), { S1, V4, .lease = 100, .guard = 10 } },
	{ HA("renew = 20;"), { S1, V4, .renew = 20 } }, /* lease/2 of the default lease */
	{ HA("lease = 29; renew = 14; retry = 1;"),
	  { S1, V4, .lease = 29, .renew = 14, .guard = 2, .retry = 1 } },
	{ HA("lease = 60000; renew = 30000; guard = 29999; retry = 60000;"),
	  { S1, V4, .lease = 60000, .renew = 30000, .guard = 29999, .retry = 60000 } },
	{ HA("lease = 1000; guard = 1;"), { S1, V4, .lease = 1000, .guard = 1 } },
	{ HA("lease = 100; renew = 50; guard = 49;"),
	  { S1, V4, .lease = 100, .renew = 50, .guard = 49 } },
	/* service */
	{ HA_SERVICE("interface = \"lan\"; ipv6 = \"2001:db8::1\"; announce = 1; "
		     "announce_interval = 1;"),
	  { S1, .iface = "lan", .vip6 = "2001:db8::1", .announce = 1, .interval = 1 } },
	{ HA_SERVICE("ipv6 = \"fe80::1\"; ipv4 = \"10.0.0.254\"; interface = \"lan\"; announce = "
		     "10; announce_interval = 1000;"),
	  { S1, .iface = "lan", .vip4 = "10.0.0.254", .vip6 = "fe80::1", .announce = 10,
	    .interval = 1000 } },
	{ HA_SERVICE("interface = \"wan\"; ipv4 = \"172.16.1.6\";"),
	  { S1, .iface = "wan", .vip4 = "172.16.1.6" } },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; mac = \"02:00:5E:00:01:0a\";"),
	  { S1, V4, .vmac = "02:00:5e:00:01:0a" } },
	/* the rest */
	{ HA("partner_bfd = \"to-b\"; share = { };"), { S1, V4, .partner_bfd = "to-b" } },
	{ HA("share = { failover_groups = [ ]; path_groups = ( \"region\" ); };"),
	  { S1, V4, .pgroups = { "region" } } },
	{ HA("share = { failover_groups = [ \"dr\" ]; };"), { S1, V4, .fgroups = { "dr" } } },
	{ HA("publish = 10; state_ttl = 100;"), { S1, V4, .publish = 10, .state_ttl = 100 } },
	{ HA("publish = 10000; state_ttl = 600000;"),
	  { S1, V4, .publish = 10000, .state_ttl = 600000 } },
	{ HA("publish = 9999;"), { S1, V4, .publish = 9999 } },
	{ HA("state_ttl = 101;"), { S1, V4, .state_ttl = 101 } },
};

static void one_good(void **state)
{
	const struct good_case *c = *state;
	const struct want *w = &c->w;
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	const struct cfg_ha *h;
	char buf[128];
	unsigned n;

	if (load_text(c->text, &cfg, &errs) != 0) {
		config_errors_print(&errs, stderr);
		fail();
	}
	h = cfg_ha_get(&cfg);
	assert_true(h->enabled);
	assert_int_equal(h->line, BASE_LINES + 1);
	assert_string_equal(h->pair, w->pair ? w->pair : "edge1");
	assert_string_equal(h->node, w->node ? w->node : "a");
	snprintf(buf, sizeof(buf), "vbrd:%s:", h->pair);
	assert_string_equal(h->redis.prefix, buf);
	assert_string_equal(h->redis.node, h->node);
	if (w->server != NULL) {
		assert_string_equal(endpoint(&h->redis.server, buf, sizeof(buf)), w->server);
		assert_int_equal(h->redis.nb_sentinels, 0);
	} else
		assert_string_equal(h->redis.server.host, "");
	assert_string_equal(h->redis.master_name, w->master ? w->master : "");
	for (n = 0; n < HA_REDIS_MAX_SENTINELS && w->sentinels[n]; n++)
		assert_string_equal(endpoint(&h->redis.sentinels[n], buf, sizeof(buf)),
				    w->sentinels[n]);
	assert_int_equal(h->redis.nb_sentinels, n);
	assert_string_equal(h->redis.password, w->password ? w->password : "");
	assert_int_equal(h->redis.timeout_ms, w->timeout ? w->timeout : DEF_TIMEOUT);
	assert_int_equal(h->lease_ms, w->lease ? w->lease : DEF_LEASE);
	assert_int_equal(h->renew_ms, w->renew ? w->renew : DEF_RENEW);
	assert_int_equal(h->guard_ms, w->guard ? w->guard : DEF_LEASE / 10);
	assert_int_equal(h->retry_ms, w->retry ? w->retry : DEF_RETRY);
	assert_string_equal(h->iface, w->iface);
	assert_int_equal(h->has_v4, w->vip4 != NULL);
	if (w->vip4 != NULL) {
		struct in_addr a;
		assert_int_equal(inet_pton(AF_INET, w->vip4, &a), 1);
		assert_int_equal(h->vip4, ntohl(a.s_addr));
	}
	assert_int_equal(h->has_v6, w->vip6 != NULL);
	if (w->vip6 != NULL) {
		uint8_t a[16];
		assert_int_equal(inet_pton(AF_INET6, w->vip6, a), 1);
		assert_memory_equal(h->vip6, a, 16);
	}
	assert_int_equal(h->has_vmac, w->vmac != NULL);
	if (w->vmac != NULL) {
		uint8_t m[6];
		assert_int_equal(sscanf(w->vmac, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &m[0], &m[1],
					&m[2], &m[3], &m[4], &m[5]),
				 6);
		assert_memory_equal(h->vmac, m, 6);
	}
	assert_int_equal(h->announce, w->announce ? w->announce : DEF_ANNOUNCE);
	assert_int_equal(h->announce_interval_ms, w->interval ? w->interval : DEF_INTERVAL);
	assert_string_equal(h->partner_bfd, w->partner_bfd ? w->partner_bfd : "");
	for (n = 0; n < 3 && w->fgroups[n]; n++)
		assert_string_equal(h->fgroups[n], w->fgroups[n]);
	assert_int_equal(h->nb_fgroups, n);
	for (n = 0; n < 3 && w->pgroups[n]; n++)
		assert_string_equal(h->pgroups[n], w->pgroups[n]);
	assert_int_equal(h->nb_pgroups, n);
	assert_int_equal(h->publish_ms, w->publish ? w->publish : DEF_PUBLISH);
	assert_int_equal(h->state_ttl_ms, w->state_ttl ? w->state_ttl : DEF_STATE_TTL);
	config_free(&cfg);
	config_errors_free(&errs);
}

/* ---- one mistake per snippet --------------------------------------------------------- */

struct err_case {
	const char *text;
	int line;        /* of the message, 1 = the snippet's first line */
	const char *msg; /* the whole message after "FILE:LINE: " */
};

#define NAME_CHARS "(1..32 characters of A-Z a-z 0-9 _ . -)"
#define EXCL       "'server' and Redis Sentinel's 'master' and 'sentinels' are mutually exclusive"
#define VIP_OWN    "the service address is the pair's, apart from each node's own"
#define LONG64     "a234567890123456789012345678901234567890123456789012345678901234"
#define PW128                                                                                      \
	"p234567890123456789012345678901234567890123456789012345678901234567890123456789012345678" \
	"9012345678901234567890123456789012345678"

static const struct err_case cases[] = {
	/* the section */
	{ "ha = ( );\n", 1, "ha: expected a group { ... }, got a list" },
	{ HA("vip = \"10.0.0.1\";"), 1, "unknown setting 'ha.vip'" },
	{ HA_REDIS("server = \"127.0.0.1\"; user = \"vbrd\";"), 1,
	  "ha.redis.user: needs 'password' (AUTH user password)" },
	{ HA_REDIS("server = \"127.0.0.1\"; user = \"a b\"; password = \"x\";"), 1,
	  "ha.redis.user: a Redis ACL user name of 1..63 characters without blanks" },
	{ HA_NO_PAIR(""), 1, "ha: missing required setting 'pair'" },
	{ HA_NO_PAIR("pair = \"edge 1\";"), 1,
	  "ha.pair: 'edge 1' is not a valid name " NAME_CHARS },
	{ HA_NO_PAIR("pair = \"\";"), 1, "ha.pair: '' is not a valid name " NAME_CHARS },
	{ HA_NO_PAIR("pair = \"123456789012345678901234567890123\";"), 1,
	  "ha.pair: '123456789012345678901234567890123' is not a valid name " NAME_CHARS },
	{ HA_NO_PAIR("pair = 1;"), 1, "ha.pair: expected a string, got an integer" },
	{ HA_NO_NODE(""), 1, "ha: missing required setting 'node'" },
	{ HA_NO_NODE("node = \"a:b\";"), 1, "ha.node: 'a:b' is not a valid name " NAME_CHARS },
	/* redis */
	{ HA_NO_REDIS(""), 1, "ha: missing required setting 'redis'" },
	{ HA_NO_REDIS("redis = \"127.0.0.1\";"), 1,
	  "ha.redis: expected a group { ... }, got a string" },
	{ HA_REDIS(""), 1,
	  "ha.redis: missing required setting 'server' (or 'master' and 'sentinels')" },
	{ HA_REDIS("server = \"r\"; port = 6379;"), 1, "unknown setting 'ha.redis.port'" },
	{ HA_REDIS("server = 6379;"), 1, "ha.redis.server: expected a string, got an integer" },
	{ HA_REDIS("server = \"127.0.0.1:0\";"), 1,
	  "ha.redis.server: '127.0.0.1:0': port '0' is not 1..65535" },
	{ HA_REDIS("server = \"127.0.0.1:65536\";"), 1,
	  "ha.redis.server: '127.0.0.1:65536': port '65536' is not 1..65535" },
	{ HA_REDIS("server = \"127.0.0.1:\";"), 1,
	  "ha.redis.server: '127.0.0.1:': port '' is not 1..65535" },
	{ HA_REDIS("server = \"r:63x\";"), 1,
	  "ha.redis.server: 'r:63x': port '63x' is not 1..65535" },
	{ HA_REDIS("server = \"r:+1\";"), 1, "ha.redis.server: 'r:+1': port '+1' is not 1..65535" },
	{ HA_REDIS("server = \"::1\";"), 1,
	  "ha.redis.server: '::1': an IPv6 address is written in brackets: [V6] or [V6]:PORT" },
	{ HA_REDIS("server = \"2001:db8::1:6379\";"), 1,
	  "ha.redis.server: '2001:db8::1:6379': an IPv6 address is written in brackets: [V6] or "
	  "[V6]:PORT" },
	{ HA_REDIS("server = \"[::1\";"), 1,
	  "ha.redis.server: '[::1': a '[' without its ']' (an IPv6 address is written "
	  "[V6]:PORT)" },
	{ HA_REDIS("server = \"[::1]6379\";"), 1,
	  "ha.redis.server: '[::1]6379': expected ':PORT' after ']'" },
	{ HA_REDIS("server = \"[10.0.0.1]:6379\";"), 1,
	  "ha.redis.server: '[10.0.0.1]:6379': '10.0.0.1' in brackets is not an IPv6 address" },
	{ HA_REDIS("server = \"[]:6379\";"), 1,
	  "ha.redis.server: '[]:6379': no host (expected HOST:PORT, [V6]:PORT or HOST)" },
	{ HA_REDIS("server = \":6379\";"), 1,
	  "ha.redis.server: ':6379': no host (expected HOST:PORT, [V6]:PORT or HOST)" },
	{ HA_REDIS("server = \"\";"), 1,
	  "ha.redis.server: '': no host (expected HOST:PORT, [V6]:PORT or HOST)" },
	{ HA_REDIS("server = \"10.0.0.256\";"), 1,
	  "ha.redis.server: '10.0.0.256': '10.0.0.256' is neither an IPv4 address nor a host "
	  "name" },
	{ HA_REDIS("server = \"redis_1:6379\";"), 1,
	  "ha.redis.server: 'redis_1:6379': 'redis_1' is neither an IPv4 address nor a host "
	  "name" },
	{ HA_REDIS("server = \"-r.example\";"), 1,
	  "ha.redis.server: '-r.example': '-r.example' is neither an IPv4 address nor a host "
	  "name" },
	{ HA_REDIS("server = \"r-.example\";"), 1,
	  "ha.redis.server: 'r-.example': 'r-.example' is neither an IPv4 address nor a host "
	  "name" },
	{ HA_REDIS("server = \"r..example\";"), 1,
	  "ha.redis.server: 'r..example': 'r..example' is neither an IPv4 address nor a host "
	  "name" },
	{ HA_REDIS("server = \"" LONG64 "\";"), 1,
	  "ha.redis.server: '" LONG64 "': a host of 64 bytes, at most 63" },
	{ HA_REDIS("server = \"r\"; master = \"m\";"), 1, "ha.redis: " EXCL },
	{ HA_REDIS("server = \"r\"; sentinels = [ \"s\" ];"), 1, "ha.redis: " EXCL },
	{ HA_REDIS("sentinels = [ \"10.0.0.5\" ];"), 1,
	  "ha.redis.sentinels: needs 'master', the name the sentinels know the master by" },
	{ HA_REDIS("master = \"vbrd\";"), 1,
	  "ha.redis.master: needs 'sentinels', the addresses of Redis Sentinel" },
	{ HA_REDIS("master = \"\"; sentinels = [ \"s\" ];"), 1,
	  "ha.redis.master: length 0 is out of range 1..63" },
	{ HA_REDIS("master = \"" LONG64 "\"; sentinels = [ \"s\" ];"), 1,
	  "ha.redis.master: length 64 is out of range 1..63" },
	{ HA_REDIS("master = 1; sentinels = [ \"s\" ];"), 1,
	  "ha.redis.master: expected a string, got an integer" },
	{ HA_REDIS("master = \"m\"; sentinels = \"s\";"), 1,
	  "ha.redis.sentinels: expected an array [ ... ] of strings, got a string" },
	{ HA_REDIS("master = \"m\"; sentinels = [ ];"), 1,
	  "ha.redis.sentinels: 0 sentinels, expected 1..8" },
	{ HA_REDIS("master = \"m\"; sentinels = [ \"a\", \"b\", \"c\", \"d\", \"e\", \"f\", "
		   "\"g\", \"h\", \"i\" ];"),
	  1, "ha.redis.sentinels: 9 sentinels, expected 1..8" },
	{ HA_REDIS("master = \"m\"; sentinels = [ \"s:1\", \"s:1\" ];"), 1,
	  "ha.redis.sentinels[1]: s:1 is listed twice" },
	{ HA_REDIS("master = \"m\"; sentinels = [ \"s\", \"t\", \"s:26379\" ];"), 1,
	  "ha.redis.sentinels[2]: s:26379 is listed twice" },
	{ HA_REDIS("master = \"m\"; sentinels = [ \"[::1]:0\" ];"), 1,
	  "ha.redis.sentinels[0]: '[::1]:0': port '0' is not 1..65535" },
	{ HA_REDIS("master = \"m\"; sentinels = ( \"s\", 26379 );"), 1,
	  "ha.redis.sentinels[1]: expected a string, got an integer" },
	{ HA_REDIS("server = \"r\"; password = 1;"), 1,
	  "ha.redis.password: expected a string, got an integer" },
	{ HA_REDIS("server = \"r\"; password = \"" PW128 "\";"), 1,
	  "ha.redis.password: a password of 128 bytes, at most 127" },
	{ HA_REDIS("server = \"r\"; tls = true;"), 1,
	  "ha.redis.tls: TLS is not supported: Debian 12's hiredis (0.14) has no TLS" },
	{ HA_REDIS("server = \"r\"; tls = \"no\";"), 1,
	  "ha.redis.tls: expected a boolean (true/false), got a string" },
	{ HA_REDIS("server = \"r\"; timeout = 4;"), 1,
	  "ha.redis.timeout: 4 ms is out of range 5..5000 ms" },
	{ HA_REDIS("server = \"r\"; timeout = 5001;"), 1,
	  "ha.redis.timeout: 5001 ms is out of range 5..5000 ms" },
	{ HA_REDIS("server = \"r\"; timeout = 50.0;"), 1,
	  "ha.redis.timeout: expected an integer, got a float" },
	/* timers */
	{ HA("lease = 19;"), 1, "ha.lease: 19 ms is out of range 20..60000 ms" },
	{ HA("lease = 60001;"), 1, "ha.lease: 60001 ms is out of range 20..60000 ms" },
	{ HA("lease = \"100ms\";"), 1, "ha.lease: expected an integer, got a string" },
	{ HA("lease = 19; renew = 40; guard = 50; retry = 200;"), 1,
	  "ha.lease: 19 ms is out of range 20..60000 ms" },
	{ HA("renew = 0;"), 1, "ha.renew: 0 ms is out of range 1..20 ms (half the lease at most)" },
	{ HA("renew = 21;"), 1,
	  "ha.renew: 21 ms is out of range 1..20 ms (half the lease at most)" },
	{ HA("lease = 31; renew = 16;"), 1,
	  "ha.renew: 16 ms is out of range 1..15 ms (half the lease at most)" },
	{ HA("renew = 30; guard = 38;"), 1,
	  "ha.renew: 30 ms is out of range 1..20 ms (half the lease at most)" },
	{ HA("guard = 0;"), 1,
	  "ha.guard: 0 ms is out of range 1..31 ms (lease - renew - 1 at most)" },
	{ HA("guard = 32;"), 1,
	  "ha.guard: 32 ms is out of range 1..31 ms (lease - renew - 1 at most)" },
	{ HA("lease = 20; renew = 10; guard = 10;"), 1,
	  "ha.guard: 10 ms is out of range 1..9 ms (lease - renew - 1 at most)" },
	{ HA("retry = 0;"), 1, "ha.retry: 0 ms is out of range 1..40 ms (the lease at most)" },
	{ HA("retry = 41;"), 1, "ha.retry: 41 ms is out of range 1..40 ms (the lease at most)" },
	{ HA("lease = 50; renew = 10; retry = 51;"), 1,
	  "ha.retry: 51 ms is out of range 1..50 ms (the lease at most)" },
	/* service */
	{ HA_NO_SVC(""), 1, "ha: missing required setting 'service'" },
	{ HA_NO_SVC("service = [ ];"), 1, "ha.service: expected a group { ... }, got an array" },
	{ HA_SERVICE("ipv4 = \"10.0.0.1\";"), 1,
	  "ha.service: missing required setting 'interface'" },
	{ HA_SERVICE("interface = \"nope\"; ipv4 = \"10.0.0.1\";"), 1,
	  "ha.service.interface: unknown interface 'nope'" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; vip = 1;"), 1,
	  "unknown setting 'ha.service.vip'" },
	{ HA_SERVICE("interface = \"lan\";"), 1,
	  "ha.service: missing required setting 'ipv4' (or 'ipv6')" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1/24\";"), 1,
	  "ha.service.ipv4: '10.0.0.1/24' is not a valid IPv4 address" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = 167772161;"), 1,
	  "ha.service.ipv4: expected a string, got an integer" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"2001:db8::1\";"), 1,
	  "ha.service.ipv4: 2001:db8::1 is IPv6: it goes in 'ipv6'" },
	{ HA_SERVICE("interface = \"lan\"; ipv6 = \"10.0.0.1\";"), 1,
	  "ha.service.ipv6: 10.0.0.1 is IPv4: it goes in 'ipv4'" },
	{ HA_SERVICE("interface = \"lan\"; ipv6 = \"2001:db8::zz\";"), 1,
	  "ha.service.ipv6: '2001:db8::zz' is not a valid IPv6 address" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.2\";"), 1,
	  "ha.service.ipv4: 10.0.0.2 is an address of interface 'lan' (line 3): " VIP_OWN },
	{ HA_SERVICE("interface = \"lan\"; ipv6 = \"2001:db8::2\";"), 1,
	  "ha.service.ipv6: 2001:db8::2 is an address of interface 'lan' (line 3): " VIP_OWN },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.99.0.1\";"), 1,
	  "ha.service.ipv4: 10.99.0.1 is an address of tunnel 'dr-t' (line 6): " VIP_OWN },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.1.1\";"), 1,
	  "ha.service.ipv4: 10.0.1.1 is not in a connected subnet of interface 'lan'" },
	{ HA_SERVICE("interface = \"wan\"; ipv4 = \"10.0.0.1\";"), 1,
	  "ha.service.ipv4: 10.0.0.1 is not in a connected subnet of interface 'wan'" },
	{ HA_SERVICE("interface = \"wan\"; ipv6 = \"2001:db8::1\";"), 1,
	  "ha.service.ipv6: 2001:db8::1 is not in a connected subnet of interface 'wan'" },
	{ HA_SERVICE("interface = \"lan\"; ipv6 = \"2001:db9::1\";"), 1,
	  "ha.service.ipv6: 2001:db9::1 is not in a connected subnet of interface 'lan'" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"127.0.0.1\";"), 1,
	  "ha.service.ipv4: 127.0.0.1 is a loopback address" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"224.0.0.18\";"), 1,
	  "ha.service.ipv4: 224.0.0.18 is a multicast address" },
	{ HA_SERVICE("interface = \"lan\"; ipv6 = \"ff02::12\";"), 1,
	  "ha.service.ipv6: ff02::12 is a multicast address" },
	{ HA_SERVICE("interface = \"lan\"; ipv6 = \"::\";"), 1,
	  "ha.service.ipv6: :: is the unspecified address" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; mac = \"01:00:5e:00:00:12\";"), 1,
	  "ha.service.mac: 01:00:5e:00:00:12 is not a unicast MAC address" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; mac = \"00:00:00:00:00:00\";"), 1,
	  "ha.service.mac: 00:00:00:00:00:00 is not a unicast MAC address" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; mac = \"02:00:5e\";"), 1,
	  "ha.service.mac: '02:00:5e' is not a MAC address (xx:xx:xx:xx:xx:xx)" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; mac = 5;"), 1,
	  "ha.service.mac: expected a MAC address string, got an integer" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; announce = 0;"), 1,
	  "ha.service.announce: 0 is out of range 1..10" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; announce = 11;"), 1,
	  "ha.service.announce: 11 is out of range 1..10" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; announce_interval = 0;"), 1,
	  "ha.service.announce_interval: 0 ms is out of range 1..1000 ms" },
	{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; announce_interval = 1001;"), 1,
	  "ha.service.announce_interval: 1001 ms is out of range 1..1000 ms" },
	/* partner_bfd, share */
	{ HA("partner_bfd = \"nope\";"), 1, "ha.partner_bfd: unknown BFD session 'nope'" },
	{ HA("partner_bfd = \"to b\";"), 1,
	  "ha.partner_bfd: 'to b' is not a valid name (1..31 characters of A-Z a-z 0-9 _ . -)" },
	{ HA("share = [ ];"), 1, "ha.share: expected a group { ... }, got an array" },
	{ HA("share = { fgroups = [ ]; };"), 1, "unknown setting 'ha.share.fgroups'" },
	{ HA("share = { failover_groups = \"dr\"; };"), 1,
	  "ha.share.failover_groups: expected an array [ ... ] of names, got a string" },
	{ HA("share = { failover_groups = [ \"nope\" ]; };"), 1,
	  "ha.share.failover_groups[0]: unknown failover group 'nope'" },
	{ HA("share = { failover_groups = [ \"region\" ]; };"), 1,
	  "ha.share.failover_groups[0]: unknown failover group 'region'" },
	{ HA("share = { failover_groups = [ \"dr\", \"dr\" ]; };"), 1,
	  "ha.share.failover_groups[1]: failover group 'dr' is listed twice" },
	{ HA("share = { path_groups = [ \"dr\" ]; };"), 1,
	  "ha.share.path_groups[0]: unknown path group 'dr'" },
	{ HA("share = { path_groups = ( \"region\", 1 ); };"), 1,
	  "ha.share.path_groups[1]: expected a string, got an integer" },
	/* publish, state_ttl */
	{ HA("publish = 9;"), 1, "ha.publish: 9 ms is out of range 10..10000 ms" },
	{ HA("publish = 10001;"), 1, "ha.publish: 10001 ms is out of range 10..10000 ms" },
	{ HA("state_ttl = 99;"), 1, "ha.state_ttl: 99 ms is out of range 100..600000 ms" },
	{ HA("state_ttl = 600001;"), 1, "ha.state_ttl: 600001 ms is out of range 100..600000 ms" },
	{ HA("publish = 1000; state_ttl = 1000;"), 1,
	  "ha.state_ttl: 1000 ms is not longer than publish (1000 ms): a node's state would "
	  "expire between its publications" },
	{ HA("publish = 10000;"), 1,
	  "ha.publish: 10000 ms is not shorter than state_ttl (10000 ms, the default): a node's "
	  "state would expire between its publications" },
	{ HA("state_ttl = 100;"), 1,
	  "ha.state_ttl: 100 ms is not longer than publish (100 ms): a node's state would expire "
	  "between its publications" },
	{ HA("publish = 5; state_ttl = 100;"), 1, "ha.publish: 5 ms is out of range 10..10000 ms" },
	/* the line of the setting, not of the section */
	{ "ha = {\n  pair = \"edge1\"; node = \"a\";\n  redis = { master = \"m\";\n"
	  "    sentinels = [ \"s1\",\n      \"s1\" ]; };\n" SVC "};\n",
	  5, "ha.redis.sentinels[1]: s1:26379 is listed twice" },
	{ "ha = {\n" PAIR NODE REDIS SVC "\n\n  lease = 10;\n};\n", 4,
	  "ha.lease: 10 ms is out of range 20..60000 ms" },
	{ "ha = {\n" PAIR NODE REDIS "\n  service = {\n    interface = \"lan\";\n  };\n};\n", 3,
	  "ha.service: missing required setting 'ipv4' (or 'ipv6')" },
};

static void one_error(void **state)
{
	const struct err_case *c = *state;
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	assert_int_equal(load_text(c->text, &cfg, &errs), -EINVAL);
	cfx_assert_one_error(&errs, BASE_LINES + c->line, c->msg);
	/* a failed load leaves a zeroed config: the section reads as absent */
	assert_false(cfg_ha_get(&cfg)->enabled);
}

/* Every problem of the section is reported, not only the first. */
static void several_errors(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	char text[2048];
	size_t used;

	(void)state;
	assert_int_equal(load_text("ha = { };\n", &cfg, &errs), -EINVAL);
	assert_int_equal(errs.count, 4);
	assert_non_null(strstr(errs.msgs[0], ":13: ha: missing required setting 'pair'"));
	assert_non_null(strstr(errs.msgs[1], ":13: ha: missing required setting 'node'"));
	assert_non_null(strstr(errs.msgs[2], ":13: ha: missing required setting 'redis'"));
	assert_non_null(strstr(errs.msgs[3], ":13: ha: missing required setting 'service'"));
	config_errors_free(&errs);

	assert_int_equal(load_text("ha = { pair = \"x y\"; node = \"a\";\n"
				   "  redis = { server = \"r:0\"; tls = true; };\n"
				   "  lease = 5; publish = 1;\n"
				   "  service = { interface = \"lan\"; ipv4 = \"10.0.9.1\"; };\n"
				   "  partner_bfd = \"x\"; };\n",
				   &cfg, &errs),
			 -EINVAL);
	assert_int_equal(errs.count, 7);
	assert_non_null(strstr(errs.msgs[0], ":13: ha.pair: 'x y' is not a valid name"));
	assert_non_null(strstr(errs.msgs[1], ":14: ha.redis.server: 'r:0': port '0'"));
	assert_non_null(strstr(errs.msgs[2], ":14: ha.redis.tls: TLS is not supported"));
	assert_non_null(strstr(errs.msgs[3], ":15: ha.lease: 5 ms is out of range"));
	assert_non_null(strstr(errs.msgs[4], ":15: ha.publish: 1 ms is out of range"));
	assert_non_null(strstr(errs.msgs[5], ":16: ha.service.ipv4: 10.0.9.1 is not in a"));
	assert_non_null(strstr(errs.msgs[6], ":17: ha.partner_bfd: unknown BFD session 'x'"));
	config_errors_free(&errs);

	/* 33 shared groups: the count, and the 32 loaded (the same one) twice each but once */
	used = (size_t)snprintf(text, sizeof(text),
				"ha = { " PAIR NODE REDIS SVC "share = { failover_groups = [ ");
	for (int i = 0; i < 33; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s\"dr\"",
					 i ? ", " : "");
	snprintf(text + used, sizeof(text) - used, " ]; }; };\n");
	assert_int_equal(load_text(text, &cfg, &errs), -EINVAL);
	assert_int_equal(errs.count, 32);
	assert_non_null(strstr(errs.msgs[0],
			       ": ha.share.failover_groups: 33 failover groups, expected 0..32"));
	assert_non_null(strstr(errs.msgs[31],
			       ": ha.share.failover_groups[31]: failover group 'dr' is listed "
			       "twice"));
	config_errors_free(&errs);
}

/* pair, node, redis and service need a restart; the rest applies on reload. */
/* Redis without a password, or a password in a file everybody may read:
 * the config loads, with a warning that names the setting. */
static void password_warnings(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(load_text(HA(""), &cfg, &errs), 0);
	assert_int_equal(cfg.nb_warnings, 1);
	assert_non_null(strstr(cfg.warnings[0], ": warning: ha.redis: no password: anybody"));
	assert_int_equal(strncmp(cfg.warnings[0], cfx_path(), strlen(cfx_path())), 0);
	config_free(&cfg);

	const char *text = HA_REDIS("server = \"127.0.0.1\"; user = \"vbrd-edge1\"; "
				    "password = \"s3cret\";");
	assert_int_equal(load_text(text, &cfg, &errs), 0);
	assert_string_equal(cfg_ha_get(&cfg)->redis.user, "vbrd-edge1");
	config_free(&cfg);
	/* the same file, readable by everybody, then not */
	assert_int_equal(chmod(cfx_path(), 0644), 0);
	assert_int_equal(config_load(cfx_path(), &cfg, &errs), 0);
	assert_int_equal(cfg.nb_warnings, 1);
	assert_non_null(strstr(cfg.warnings[0], "everybody may read it (mode 644): chmod 600"));
	assert_null(strstr(cfg.warnings[0], "s3cret")); /* never the password itself */
	config_free(&cfg);
	assert_int_equal(chmod(cfx_path(), 0600), 0);
	assert_int_equal(config_load(cfx_path(), &cfg, &errs), 0);
	assert_int_equal(cfg.nb_warnings, 0);
	config_free(&cfg);
	config_errors_free(&errs);
}

static void restart_settings(void **state)
{
	static const struct {
		const char *text;
		const char *changed; /* the first restart setting the diff names, NULL: none */
	} reloads[] = {
		{ HA("lease = 200; renew = 40; guard = 20; retry = 30; publish = 500; "
		     "state_ttl = 5000; partner_bfd = \"to-b\"; share = { path_groups = "
		     "[ \"region\" ]; };"),
		  NULL },
		{ HA_NO_PAIR("pair = \"edge2\";"), "ha.pair: changed from 'edge1' to 'edge2'" },
		{ HA_NO_NODE("node = \"b\";"), "ha.node: changed from 'a' to 'b'" },
		{ HA_REDIS("server = \"127.0.0.1:6380\";"),
		  "ha.redis.server: changed from '127.0.0.1:6379' to '127.0.0.1:6380'" },
		{ HA_REDIS("server = \"127.0.0.1:6379\";"), NULL }, /* the same, written out */
		{ HA_REDIS("server = \"127.0.0.1\"; timeout = 60;"),
		  "ha.redis.timeout: changed from '30' to '60'" },
		{ HA_REDIS("server = \"127.0.0.1\"; password = \"pw\";"),
		  "ha.redis.password: changed from 'none' to 'fingerprint " },
		{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.3\";"),
		  "ha.service.ipv4: changed from '10.0.0.1' to '10.0.0.3'" },
		{ HA_SERVICE("interface = \"lan\"; ipv4 = \"10.0.0.1\"; announce = 4;"),
		  "ha.service.announce: changed from '3' to '4'" },
		{ "", "ha.pair: removed (was 'edge1')" },
	};
	struct config_errors errs = { 0 };
	struct vbrd_config cur, next;
	char err[4096];

	(void)state;
	assert_int_equal(load_text(HA(""), &cur, &errs), 0);
	for (size_t i = 0; i < sizeof(reloads) / sizeof(reloads[0]); i++) {
		assert_int_equal(load_text(reloads[i].text, &next, &errs), 0);
		int rc = config_restart_diff(&cur, &next, err, sizeof(err));
		if (reloads[i].changed == NULL) {
			if (rc != 0)
				print_message("%s\n", err);
			assert_int_equal(rc, 0);
		} else {
			assert_int_equal(rc, -EPERM);
			if (strstr(err, reloads[i].changed) == NULL)
				print_message("want %s in:\n%s\n", reloads[i].changed, err);
			assert_non_null(strstr(err, reloads[i].changed));
		}
		config_free(&next);
	}
	/* a changed password: refused, and neither password shows */
	config_free(&cur);
	assert_int_equal(load_text(HA_REDIS("server = \"127.0.0.1\"; password = \"old-secret\";"),
				   &cur, &errs),
			 0);
	assert_int_equal(load_text(HA_REDIS("server = \"127.0.0.1\"; password = \"new-secret\";"),
				   &next, &errs),
			 0);
	assert_int_equal(config_restart_diff(&cur, &next, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "ha.redis.password: changed from 'fingerprint "));
	assert_null(strstr(err, "secret"));
	config_free(&next);
	assert_int_equal(load_text(HA_REDIS("server = \"127.0.0.1\"; password = \"old-secret\";"),
				   &next, &errs),
			 0);
	assert_int_equal(config_restart_diff(&cur, &next, err, sizeof(err)), 0);
	config_free(&next);
	config_free(&cur);
	/* adding the section to a running config without one */
	assert_int_equal(load_text("", &cur, &errs), 0);
	assert_int_equal(load_text(HA(""), &next, &errs), 0);
	assert_int_equal(config_restart_diff(&cur, &next, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "ha.pair: changed from (none) to 'edge1'"));
	config_free(&next);
	config_free(&cur);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(base_lines),       cmocka_unit_test(good_config),
		cmocka_unit_test(absent_section),   cmocka_unit_test(several_errors),
		cmocka_unit_test(restart_settings), cmocka_unit_test(password_warnings),
	};
	const struct cfx_table tables[] = {
		CFX_TABLE(goods, text, "good: ", one_good),
		CFX_TABLE(cases, msg, NULL, one_error),
	};

	return cfx_run("ha_config", fixed, sizeof(fixed) / sizeof(fixed[0]), tables, 2);
}
