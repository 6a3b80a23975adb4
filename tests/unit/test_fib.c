/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the persistent FIB (pipeline/fib.c) and of reloads that
 * change it in place (fwd_state_build on a previous state, then
 * fwd_state_swap / fwd_state_commit): route tables (sort, last wins, tbl8
 * counts), stable next-hop and ECMP ids (sharing, refcounts, reuse), the
 * diff (add, delete, next-hop change, ECMP change; untouched entries are
 * not rewritten), and a reload that outgrows the FIB.
 *
 * Needs an EAL (rte_fib lives in EAL memory): no hugepages, two net_null
 * ports, as test_fwd.c. Configurations are written to temporary files and
 * loaded with config_load(), as vbrd does.
 */
#include <errno.h>
#include <limits.h>
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

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_fib.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "core/config.h"
#include "pipeline/fib.h"
#include "pipeline/fwd.h"
#include "pipeline/local.h"
#include "pipeline/neigh.h"

/* The tunnel's data-path service is not linked here; only its binding is. */
const struct local_service tunnel_service = { .name = "tunnel" };

static uint16_t port_ids[2];
static struct rte_rcu_qsbr *qsv; /* no reader registered: a grace period is immediate */

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

#define HEAD                                                                                       \
	"ports = ( { name = \"p0\"; devargs = \"net_null0\"; },\n"                                 \
	"          { name = \"p1\"; devargs = \"net_null1\"; } );\n"                               \
	"interfaces = (\n"                                                                         \
	"  { name = \"lan0\"; port = \"p0\"; address = \"10.0.1.1/24\"; },\n"                      \
	"  { name = \"wan0\"; port = \"p1\"; addresses = [ \"10.0.2.1/24\", \"2001:db8:2::1/64\" " \
	"]; }\n"                                                                                   \
	");\n"

/* ---- helpers ------------------------------------------------------------- */

static int load_text(const char *text, struct vbrd_config *cfg)
{
	char path[64];
	struct config_errors errs = { 0 };
	int fd, rc;

	snprintf(path, sizeof(path), "/tmp/vbrd-unit-fib-%d-XXXXXX", (int)getpid());
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = config_load(path, cfg, &errs);
	unlink(path);
	if (rc != 0)
		config_errors_print(&errs, stderr);
	config_errors_free(&errs);
	return rc;
}

/* Build a state from @p text on top of @p prev (NULL: a fresh FIB). */
static int try_build(const char *text, const struct fwd_state *prev, struct fwd_state **st,
		     char *err, size_t errlen)
{
	struct vbrd_config cfg;

	assert_int_equal(load_text(text, &cfg), 0);
	int rc = fwd_state_build(&cfg, port_ids, prev, st, err, errlen);
	config_free(&cfg);
	return rc;
}

static struct fwd_state *build(const char *text, const struct fwd_state *prev)
{
	struct fwd_state *st = NULL;
	char err[512] = "";

	if (try_build(text, prev, &st, err, sizeof(err)) != 0)
		fail_msg("fwd_state_build: %s", err);
	return st;
}

/* Start-up: build and publish. */
static struct fwd_state *start(const char *text)
{
	struct fwd_state *st = build(text, NULL);

	fwd_state_publish(st, qsv);
	return st;
}

/* Reload: build on the published state, publish, change the FIB in place. */
static struct fwd_state *reload(const char *text, struct fib_apply_stats *stats)
{
	struct fwd_state *cur = atomic_load(&fwd_current);
	struct fwd_state *st = build(text, cur);

	assert_int_equal(fwd_state_commit(st, fwd_state_swap(st, qsv), stats), 0);
	return st;
}

static void stop(void)
{
	fwd_state_free(atomic_exchange(&fwd_current, NULL));
	/* every id went with the last state */
	assert_int_equal(fib_nexthops_live(), 0);
	assert_int_equal(fib_ecmp_live(), 0);
}

static uint64_t lookup(const struct fwd_state *st, uint32_t ip)
{
	uint64_t nh = ~0ull;

	assert_int_equal(rte_fib_lookup_bulk(st->vrfs[0].fib, &ip, &nh, 1), 0);
	return nh;
}

/* The gateway (host order) a lookup of @p ip resolves to; 0 connected; -1 none. */
static int64_t gateway(const struct fwd_state *st, uint32_t ip)
{
	uint64_t v = lookup(st, ip);

	if (FIB_NH_KIND(v) == FIB_KIND_NONE)
		return -1;
	assert_true(FIB_NH_KIND(v) == FIB_KIND_NEXTHOP);
	assert_true(FIB_NH_INDEX(v) < (uint32_t)st->nb_nexthops);
	return st->nexthops[FIB_NH_INDEX(v)].gw;
}

/* ---- route tables and ids (no FIB) ---------------------------------------- */

static void table_sort_last_wins(void **state)
{
	struct fib_table t = { 0 };
	struct fib_capacity need;

	(void)state;
	assert_int_equal(fib_table_add4(&t, IP4(10, 9, 0, 77), 24, FIB_NH(FIB_KIND_LOCAL, 1), 0),
			 0);
	assert_int_equal(fib_table_add4(&t, IP4(10, 8, 0, 0), 16, FIB_NH(FIB_KIND_LOCAL, 2), 0), 0);
	assert_int_equal(fib_table_add4(&t, IP4(10, 9, 0, 0), 24, FIB_NH(FIB_KIND_LOCAL, 3), 0), 0);
	assert_int_equal(fib_table_add4(&t, IP4(10, 9, 0, 5), 32, FIB_NH(FIB_KIND_LOCAL, 4), 0), 0);
	assert_int_equal(fib_table_add4(&t, IP4(10, 9, 0, 6), 32, FIB_NH(FIB_KIND_LOCAL, 5), 0), 0);
	assert_int_equal(fib_table_add4(&t, IP4(10, 9, 1, 6), 25, FIB_NH(FIB_KIND_LOCAL, 6), 0), 0);
	assert_int_equal(fib_table_sort(&t), 0);
	/* host bits cleared, sorted, 10.9.0.0/24 twice: the later one stays */
	assert_int_equal(t.nb4, 5);
	assert_int_equal(t.v4[0].addr, IP4(10, 8, 0, 0));
	assert_int_equal(t.v4[1].addr, IP4(10, 9, 0, 0));
	assert_int_equal(t.v4[1].value, FIB_NH(FIB_KIND_LOCAL, 3));
	assert_non_null(fib_table_find4(&t, IP4(10, 9, 1, 0), 25));
	assert_null(fib_table_find4(&t, IP4(10, 9, 1, 0), 24));
	/* tbl8 groups: 10.9.0/24 (two /32s) and 10.9.1/24 */
	fib_table_need(&t, &need);
	assert_int_equal(need.routes4, 5);
	assert_int_equal(need.tbl8_4, 2);
	fib_table_free(&t);
}

static void table_need6(void **state)
{
	struct fib_table t = { 0 };
	struct fib_capacity need;
	uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01 };

	(void)state;
	/* a /48 needs the groups of its first 3, 4 and 5 bytes (the tbl24 holds
	 * 3 bytes; each group indexes one more byte) */
	fib_table_add6(&t, a, 48, FIB_NH(FIB_KIND_NONE, 0), 0);
	a[5] = 2;
	fib_table_add6(&t, a, 48, FIB_NH(FIB_KIND_NONE, 0), 0); /* the same three groups */
	a[3] = 0xb9;
	fib_table_add6(&t, a, 48, FIB_NH(FIB_KIND_NONE, 0), 0); /* shares the 3-byte one */
	fib_table_add6(&t, a, 24, FIB_NH(FIB_KIND_NONE, 0), 0); /* none */
	assert_int_equal(fib_table_sort(&t), 0);
	fib_table_need(&t, &need);
	assert_int_equal(need.routes6, 4);
	assert_int_equal(need.tbl8_6, 5);
	fib_table_free(&t);
}

static void ids_shared_refcounted_reused(void **state)
{
	struct fib_nh_key a = { .family = AF_INET, .iface = 0, .gw = IP4(10, 0, 1, 2) };
	struct fib_nh_key b = { .family = AF_INET, .iface = 0, .gw = IP4(10, 0, 1, 3) };
	uint16_t set[2];

	(void)state;
	int ia = fib_nexthop_get(&a), ia2 = fib_nexthop_get(&a), ib = fib_nexthop_get(&b);
	assert_true(ia >= 0 && ib >= 0);
	assert_int_equal(ia, ia2); /* same content, same id */
	assert_int_not_equal(ia, ib);
	assert_int_equal(fib_nexthop_refs((uint32_t)ia), 2);

	/* an ECMP set holds its members; a second get of it gives them back */
	set[0] = (uint16_t)fib_nexthop_get(&a);
	set[1] = (uint16_t)fib_nexthop_get(&b);
	int e = fib_ecmp_get(set, 2);
	set[0] = (uint16_t)fib_nexthop_get(&a);
	set[1] = (uint16_t)fib_nexthop_get(&b);
	assert_int_equal(fib_ecmp_get(set, 2), e);
	assert_int_equal(fib_nexthop_refs((uint32_t)ia), 3);
	/* order matters (the hash picks a position) */
	set[0] = (uint16_t)fib_nexthop_get(&b);
	set[1] = (uint16_t)fib_nexthop_get(&a);
	int e2 = fib_ecmp_get(set, 2);
	assert_int_not_equal(e2, e);

	fib_value_put(FIB_NH(FIB_KIND_ECMP, (uint32_t)e2));
	fib_value_put(FIB_NH(FIB_KIND_ECMP, (uint32_t)e));
	fib_value_put(
		FIB_NH(FIB_KIND_ECMP, (uint32_t)e)); /* the set goes, with its members' refs */
	assert_int_equal(fib_ecmp_live(), 0);
	assert_int_equal(fib_nexthop_refs((uint32_t)ia), 2);
	fib_value_put(FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)ia));
	fib_value_put(FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)ia));
	fib_value_put(FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)ib));
	assert_int_equal(fib_nexthops_live(), 0);
	/* a freed id is given to the next new content; b's key lookup still works */
	struct fib_nh_key c = { .family = AF_INET6, .iface = 1, .gw6 = { 0xfe, 0x80, [15] = 1 } };
	int ic = fib_nexthop_get(&c);
	assert_true(ic == ia || ic == ib);
	struct fib_nh_key got;
	assert_true(fib_nexthop_key((uint32_t)ic, &got));
	assert_memory_equal(&got, &c, sizeof(c));
	fib_value_put(FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)ic));
	assert_int_equal(fib_nexthops_live(), 0);
}

/* Many ids: the hash grows and deletes keep every other key findable. */
static void ids_many(void **state)
{
	enum { N = 5000 };
	static int id[N];

	(void)state;
	for (int i = 0; i < N; i++) {
		struct fib_nh_key k = { .family = AF_INET, .iface = 1, .gw = (uint32_t)i + 1 };
		id[i] = fib_nexthop_get(&k);
		assert_true(id[i] >= 0);
	}
	for (int i = 0; i < N; i += 2)
		fib_value_put(FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)id[i]));
	for (int i = 1; i < N; i += 2) {
		struct fib_nh_key k = { .family = AF_INET, .iface = 1, .gw = (uint32_t)i + 1 };
		assert_int_equal(fib_nexthop_get(&k), id[i]);
		fib_value_put(FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)id[i]));
		fib_value_put(FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)id[i]));
	}
	assert_int_equal(fib_nexthops_live(), 0);
}

/* ---- reloads in place ----------------------------------------------------- */

static const char conf_a[] = HEAD
	"routes = (\n"
	"  { prefix = \"172.16.0.0/16\"; via = \"10.0.1.2\"; },\n"
	"  { prefix = \"172.17.0.0/16\"; via = \"10.0.1.2\"; },\n"
	"  { prefix = \"172.18.0.0/16\"; via = \"10.0.2.2\"; },\n"
	"  { prefix = \"172.19.0.128/25\"; via = \"10.0.2.2\"; },\n"
	"  { prefix = \"198.18.0.0/16\"; via = [ \"10.0.1.2\", \"10.0.2.2\" ]; },\n"
	"  { prefix = \"2001:db8:9::/48\"; via = \"2001:db8:2::2\"; }\n"
	");\n";

/* 172.17/16 to another gateway, 172.18/16 deleted, 172.20/16 added, the
 * ECMP set gains a member, IPv6 route moved to another gateway. */
static const char conf_b[] = HEAD
	"routes = (\n"
	"  { prefix = \"172.16.0.0/16\"; via = \"10.0.1.2\"; },\n"
	"  { prefix = \"172.17.0.0/16\"; via = \"10.0.2.3\"; },\n"
	"  { prefix = \"172.19.0.128/25\"; via = \"10.0.2.2\"; },\n"
	"  { prefix = \"172.20.0.0/16\"; via = \"10.0.1.2\"; },\n"
	"  { prefix = \"198.18.0.0/16\"; via = [ \"10.0.1.2\", \"10.0.2.2\", "
	"\"10.0.2.3\" ]; },\n"
	"  { prefix = \"2001:db8:9::/48\"; via = \"2001:db8:2::3\"; }\n"
	");\n";

static void reload_applies_the_difference(void **state)
{
	struct fib_apply_stats s;

	(void)state;
	struct fwd_state *a = start(conf_a);
	struct rte_fib *fib = a->vrfs[0].fib;
	uint64_t kept = lookup(a, IP4(172, 16, 1, 1));
	uint32_t ecmp_a = FIB_NH_INDEX(lookup(a, IP4(198, 18, 0, 1)));
	assert_int_equal(gateway(a, IP4(172, 18, 0, 1)), IP4(10, 0, 2, 2));

	struct fwd_state *b = reload(conf_b, &s);
	/* the same FIB, changed: 172.17 changed, 172.18 deleted, 172.20 added,
	 * the ECMP route and the IPv6 route changed */
	assert_ptr_equal(b->vrfs[0].fib, fib);
	assert_int_equal(s.added, 1);
	assert_int_equal(s.deleted, 1);
	assert_int_equal(s.changed, 3);
	assert_int_equal(s.failed, 0);
	/* a route both configs have keeps its value (same next-hop id) */
	assert_int_equal(lookup(b, IP4(172, 16, 1, 1)), kept);
	assert_int_equal(gateway(b, IP4(172, 17, 0, 1)), IP4(10, 0, 2, 3));
	assert_int_equal(gateway(b, IP4(172, 18, 0, 1)), -1);
	assert_int_equal(gateway(b, IP4(172, 20, 9, 9)), IP4(10, 0, 1, 2));
	assert_int_equal(gateway(b, IP4(172, 19, 0, 200)), IP4(10, 0, 2, 2));
	uint64_t e = lookup(b, IP4(198, 18, 0, 1));
	assert_int_equal(FIB_NH_KIND(e), FIB_KIND_ECMP);
	assert_int_not_equal(FIB_NH_INDEX(e), ecmp_a);
	assert_int_equal(b->ecmp[FIB_NH_INDEX(e)].nb, 3);
	/* the old set is free once the old state went */
	assert_int_equal(fib_ecmp_live(), 1);

	/* and back: the same ids for the same content */
	struct fwd_state *c = reload(conf_a, &s);
	assert_int_equal(lookup(c, IP4(172, 16, 1, 1)), kept);
	assert_int_equal(gateway(c, IP4(172, 18, 0, 1)), IP4(10, 0, 2, 2));
	assert_int_equal(s.added, 1);
	assert_int_equal(s.deleted, 1);
	stop();
}

/* While the new state is published and the FIB still holds the old
 * table, every value in the FIB is meaningful in the new state. */
static void old_values_covered_by_new_state(void **state)
{
	(void)state;
	struct fwd_state *a = start(conf_a);
	uint64_t old = lookup(a, IP4(172, 18, 0, 1));  /* deleted by conf_b */
	uint64_t olde = lookup(a, IP4(198, 18, 0, 1)); /* replaced by conf_b */

	struct fwd_state *b = build(conf_b, a);
	assert_true(b->vrfs[0].fib_pending);
	assert_true(FIB_NH_INDEX(old) < (uint32_t)b->nb_nexthops);
	assert_int_equal(b->nexthops[FIB_NH_INDEX(old)].gw, IP4(10, 0, 2, 2));
	assert_true(FIB_NH_INDEX(olde) < (uint32_t)b->nb_ecmp);
	assert_int_equal(b->ecmp[FIB_NH_INDEX(olde)].nb, 2);
	struct fwd_state *prev = fwd_state_swap(b, qsv);
	assert_ptr_equal(prev, a);
	assert_int_equal(lookup(b, IP4(172, 18, 0, 1)), old); /* not yet applied */
	assert_int_equal(fwd_state_commit(b, prev, NULL), 0);
	assert_int_equal(gateway(b, IP4(172, 18, 0, 1)), -1);
	stop();
}

/* A build that fails keeps the running FIB as it was and frees its ids. */
static void failed_build_changes_nothing(void **state)
{
	(void)state;
	struct fwd_state *a = start(conf_a);
	uint32_t live = fib_nexthops_live();
	struct fwd_state *st = NULL;
	char err[512];
	/* 10.0.9.0/24 as a new interface in front: indexes move and a fresh
	 * FIB is needed; with fib sizes no EAL can hold, creating it fails */
	static const char renumbered[] =
		"ports = ( { name = \"p0\"; devargs = \"net_null0\"; },\n"
		"          { name = \"p1\"; devargs = \"net_null1\"; } );\n"
		"interfaces = (\n"
		"  { name = \"new0\"; port = \"p0\"; vlan = 9; address = \"10.0.9.1/24\"; },\n"
		"  { name = \"lan0\"; port = \"p0\"; address = \"10.0.1.1/24\"; },\n"
		"  { name = \"wan0\"; port = \"p1\"; address = \"10.0.2.1/24\"; }\n"
		");\n"
		"fib = { ipv4_tbl8 = 16000000; };\n"
		"routes = ( { prefix = \"172.16.0.0/16\"; via = \"10.0.1.9\"; } );\n";

	assert_int_equal(try_build(renumbered, a, &st, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "cannot be allocated"));
	assert_int_equal(fib_nexthops_live(), live);
	assert_int_equal(gateway(a, IP4(172, 18, 0, 1)), IP4(10, 0, 2, 2));
	assert_int_equal(gateway(a, IP4(172, 16, 0, 1)), IP4(10, 0, 1, 2));
	stop();
}

/* A reload past the capacity the FIB was created with gets a larger FIB
 * (memory allows here), filled before it is published. */
static void capacity_exceeded_grows(void **state)
{
	static char big[1 << 20];
	size_t len;

	(void)state;
	struct fwd_state *a = start(conf_a);
	struct fib_capacity cap = a->vrfs[0].fibs->cap;
	/* more /32s in distinct /24s than the tbl8 headroom */
	len = (size_t)snprintf(big, sizeof(big), HEAD "routes = (\n");
	for (uint32_t i = 0; i < cap.tbl8_4 + 10; i++)
		len += (size_t)snprintf(big + len, sizeof(big) - len,
					"%s  { prefix = \"100.%u.%u.1/32\"; via = \"10.0.1.2\"; }",
					i ? ",\n" : "", i / 256, i % 256);
	snprintf(big + len, sizeof(big) - len, "\n);\n");

	struct fwd_state *b = build(big, a);
	assert_false(b->vrfs[0].fib_pending);
	assert_ptr_not_equal(b->vrfs[0].fib, a->vrfs[0].fib);
	assert_true(b->vrfs[0].fibs->cap.tbl8_4 > cap.tbl8_4);
	assert_int_equal(gateway(b, IP4(100, 0, 5, 1)), IP4(10, 0, 1, 2));
	assert_int_equal(fwd_state_commit(b, fwd_state_swap(b, qsv), NULL), 0);
	assert_int_equal(gateway(b, IP4(100, 0, 7, 1)), IP4(10, 0, 1, 2));
	stop();
}

/* ---- EAL ----------------------------------------------------------------- */

/*
 * fib_lookup4_one() reads the DIR24_8 tables as rte_fib_lookup_bulk() does:
 * a pair with prefixes of every length (many longer than /24: tbl8 groups)
 * is accepted by fib_pair_verify(), and 200 000 random addresses and every
 * route's edges give the same value both ways; a route added after the
 * check (as FRR's are) too.
 */
static void direct_lookup_agrees(void **state)
{
	(void)state;
	struct fib_capacity cap;
	struct fib_table t = { 0 }, empty = { 0 };
	char err[256];
	uint32_t seed = 12345;

	for (int i = 0; i < 20000; i++) {
		seed = seed * 1103515245u + 12345u;
		uint32_t a = seed ^ (seed << 13);
		uint8_t len = (uint8_t)(8 + (seed >> 16) % 25); /* 8..32 */
		assert_int_equal(fib_table_add4(&t, a, len, FIB_NH(FIB_KIND_LOCAL, i % 4096), 0),
				 0);
	}
	assert_int_equal(fib_table_sort(&t), 0);
	fib_table_need(&t, &cap);
	fib_capacity_headroom(&cap);
	struct fib_pair *p = fib_pair_create(&cap, err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(fib_apply(p, &empty, &t, NULL), 0);
	assert_true(fib_pair_verify(p, &t));
	assert_non_null(p->tbl24);
	assert_int_equal(fib_route_add4(p, IP4(198, 51, 100, 128), 26, FIB_NH(FIB_KIND_LOCAL, 7)),
			 0);
	uint32_t ips[256];
	uint64_t want[256];
	unsigned tbl8_hits = 0;
	for (int round = 0; round < 800; round++) {
		for (int k = 0; k < 256; k++) {
			seed = seed * 1103515245u + 12345u;
			ips[k] = round % 2 ? seed : t.v4[seed % t.nb4].addr | (seed & 0xff);
		}
		ips[0] = IP4(198, 51, 100, 130);
		rte_fib_lookup_bulk(p->fib, ips, want, 256);
		for (int k = 0; k < 256; k++) {
			assert_int_equal(fib_lookup4_one(p->tbl24, p->tbl8, ips[k]),
					 (uint32_t)want[k]);
			tbl8_hits += p->tbl24[ips[k] >> 8] & 1;
		}
	}
	assert_true(tbl8_hits > 1000); /* the tbl8 half was exercised */
	fib_table_free(&t);
	fib_pair_put(p);
}

static int eal_setup(void **state)
{
	char prefix[64];
	char *argv[] = {
		"test_fib",       "--no-huge",   "-m",        "1024",
		"--no-pci",       "--no-shconf", prefix,      "--vdev",
		"net_null0",      "--vdev",      "net_null1", "--log-level=*:warning",
		"--no-telemetry", NULL,
	};
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;

	(void)state;
	snprintf(prefix, sizeof(prefix), "--file-prefix=vbrd-unit-fib-%d", (int)getpid());
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (rte_eth_dev_get_port_by_name("net_null0", &port_ids[0]) != 0 ||
	    rte_eth_dev_get_port_by_name("net_null1", &port_ids[1]) != 0)
		return -1;
	if (neigh_init(NULL) != 0)
		return -1;
	qsv = rte_zmalloc("test_fib_rcu", rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	if (qsv == NULL || rte_rcu_qsbr_init(qsv, 1) != 0)
		return -1;
	return 0;
}

static int eal_teardown(void **state)
{
	char dir[PATH_MAX];

	(void)state;
	rte_free(qsv);
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(dir);
	return 0;
}

/* ---- routes from a routing protocol (frr/fpm) ------------------------------ */

static uint32_t ov_value;
static bool ov_has;

static bool ov_find4(uint32_t table, uint32_t addr, uint8_t len, uint32_t *value)
{
	(void)table;
	if (!ov_has || addr != IP4(172, 18, 0, 0) || len != 16)
		return false;
	*value = ov_value;
	return true;
}

static bool ov_find6(uint32_t table, const uint8_t *addr, uint8_t len, uint32_t *value)
{
	(void)table, (void)addr, (void)len, (void)value;
	return false;
}

static void ov_count(uint32_t table, uint32_t *n4, uint32_t *n6)
{
	(void)table;
	*n4 = ov_has;
	*n6 = 0;
}

static const struct fib_overlay test_overlay = {
	.name = "test",
	.find4 = ov_find4,
	.find6 = ov_find6,
	.count = ov_count,
};

/*
 * Between reloads a next hop and an ECMP set are added to the published
 * state's free slots and a route through them is added to the FIB in
 * place; a reload that drops a config prefix the overlay has falls back to
 * the overlay's value instead of deleting it, and the new state covers the
 * ids added between reloads.
 */
static void dynamic_nexthops_and_overlay(void **state)
{
	struct fib_apply_stats s;
	uint32_t v1, v2, e;

	(void)state;
	struct fwd_state *a = start(conf_a);
	uint32_t before = fib_nexthops_live();
	struct fib_nh_key k1 = { .family = AF_INET, .iface = 0, .gw = IP4(10, 0, 1, 9) };
	struct fib_nh_key k2 = { .family = AF_INET, .iface = 1, .gw = IP4(10, 0, 2, 9) };

	assert_int_equal(fwd_dyn_nexthop(a, &k1, &v1), 0);
	assert_int_equal(fwd_dyn_nexthop(a, &k2, &v2), 0);
	assert_int_equal(fib_nexthops_live(), before + 2);
	/* its slot is filled in the published state: a route can use it now */
	assert_int_equal(a->nexthops[FIB_NH_INDEX(v1)].gw, IP4(10, 0, 1, 9));
	assert_int_equal(fib_route_add4(a->vrfs[0].fibs, IP4(192, 0, 2, 0), 24, v1), 0);
	assert_int_equal(gateway(a, IP4(192, 0, 2, 77)), IP4(10, 0, 1, 9));
	/* an ECMP set of both, in a free ECMP slot */
	uint32_t m[2] = { v1, v2 };
	assert_int_equal(fwd_dyn_ecmp(a, m, 2, &e), 0);
	assert_int_equal(a->ecmp[FIB_NH_INDEX(e)].nb, 2);
	assert_int_equal(a->ecmp[FIB_NH_INDEX(e)].nh[1], FIB_NH_INDEX(v2));
	/* an interface that does not exist is refused */
	struct fib_nh_key bad = { .family = AF_INET, .iface = 9, .gw = 1 };
	uint32_t vb;
	assert_int_equal(fwd_dyn_nexthop(a, &bad, &vb), -EINVAL);

	/* the overlay holds 172.18.0.0/16, which conf_b drops */
	ov_value = v2;
	ov_has = true;
	fib_overlay_set(&test_overlay);
	struct fwd_state *b = reload(conf_b, &s);
	assert_int_equal(s.deleted, 0);
	assert_int_equal(s.changed, 4); /* conf_b's three, and 172.18 to the overlay's */
	assert_int_equal(gateway(b, IP4(172, 18, 0, 1)), IP4(10, 0, 2, 9));
	/* the new state covers the ids added between reloads */
	assert_int_equal(b->nexthops[FIB_NH_INDEX(v1)].gw, IP4(10, 0, 1, 9));
	assert_int_equal(b->ecmp[FIB_NH_INDEX(e)].nb, 2);
	assert_int_equal(gateway(b, IP4(192, 0, 2, 1)), IP4(10, 0, 1, 9));

	/* what a dynamic route held is released by its owner */
	fib_overlay_set(NULL);
	ov_has = false;
	assert_int_equal(fib_route_del4(b->vrfs[0].fibs, IP4(192, 0, 2, 0), 24), 0);
	fib_value_put(e);
	fib_value_put(v1);
	fib_value_put(v2);
	stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_sort_last_wins),
		cmocka_unit_test(table_need6),
		cmocka_unit_test(ids_shared_refcounted_reused),
		cmocka_unit_test(ids_many),
		cmocka_unit_test(reload_applies_the_difference),
		cmocka_unit_test(old_values_covered_by_new_state),
		cmocka_unit_test(failed_build_changes_nothing),
		cmocka_unit_test(capacity_exceeded_grows),
		cmocka_unit_test(dynamic_nexthops_and_overlay),
		cmocka_unit_test(direct_lookup_agrees),
	};

	return cmocka_run_group_tests_name("fib", tests, eal_setup, eal_teardown);
}
