/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the EAL memory sizing (pipeline/mem.c): mem_pool_mbufs,
 * mem_mbuf_room, mem_need and mem_check, on configurations loaded with
 * config_load() as vbrd does. No EAL: the sizing runs before rte_eal_init()
 * (vbrd --check-config). The expected figures are worked out here by hand
 * from DPDK 22.11's rules (rte_mempool object header of one cache line,
 * objects padded to an odd number of cache lines, none crossing a 4 KiB
 * page without hugepages; a FIB's tbl24 of 2^24 4-byte entries).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/config.h"
#include "pipeline/mem.h"
#include "pipeline/local.h"
#include "pipeline/tunnel.h"

/* The tunnel's data-path service is not linked here; only its binding is. */
const struct local_service tunnel_service = { .name = "tunnel" };

#define MiB (1ull << 20)

static struct vbrd_config cfg;
static char path[64];

/* Load TEXT as a config file into cfg. */
static void load(const char *text)
{
	struct config_errors errs = { 0 };
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_mem.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	if (config_load(path, &cfg, &errs) < 0) {
		config_errors_print(&errs, stderr);
		fail_msg("config does not load");
	}
	unlink(path);
}

static int teardown(void **state)
{
	(void)state;
	config_free(&cfg);
	return 0;
}

/* Two net_null ports of MTU 1500, one worker, default mempool (16383 mbufs, cache 256). */
static const char conf_null[] =
	"ports = ( { name = \"a\"; devargs = \"net_null0\"; },\n"
	"          { name = \"b\"; devargs = \"net_null1\"; } );\n"
	"interfaces = ( { name = \"a\"; port = \"a\"; address = \"10.0.1.1/24\"; },\n"
	"               { name = \"b\"; port = \"b\"; address = \"10.0.2.1/24\"; } );\n"
	"eal = { hugepages = false;\n"
	"        memory_mb = 256; };\n";

/* Two af_packet ports of MTU 9000 with IPv6 addresses. */
static const char conf_jumbo[] =
	"ports = ( { name = \"a\"; devargs = \"net_af_packet0,iface=x0\"; mtu = 9000; },\n"
	"          { name = \"b\"; devargs = \"net_af_packet1,iface=x1\"; mtu = 9000; } );\n"
	"interfaces = ( { name = \"a\"; port = \"a\"; addresses = [ \"10.0.1.1/24\", "
	"\"2001:db8:1::1/64\" ]; },\n"
	"               { name = \"b\"; port = \"b\"; addresses = [ \"10.0.2.1/24\", "
	"\"2001:db8:2::1/64\" ]; } );\n"
	"eal = { memory_mb = 512; };\n";

static void test_pool_mbufs(void **state)
{
	uint32_t need;

	(void)state;
	/* 1024 + per port (1 rxq x 1024 + 1 worker x (1024 + 64)) + 1 x (256 + 2 x 256) */
	load(conf_null);
	assert_int_equal(mem_pool_mbufs(&cfg, &need), 16383);
	assert_int_equal(need, 1024 + 2 * (1024 + 1088) + 768);
	config_free(&cfg);

	/* 4 ports, 2 workers (2 RX queues each), cache 64: the rings need more than 2047 */
	load("ports = ( { name = \"a\"; devargs = \"net_null0\"; }, { name = \"b\"; devargs = "
	     "\"net_null1\"; },\n"
	     "          { name = \"c\"; devargs = \"net_null2\"; }, { name = \"d\"; devargs = "
	     "\"net_null3\"; } );\n"
	     "workers = { cores = [ 0, 1 ]; };\n"
	     "mempool = { mbufs = 2047; cache = 64; };\n");
	assert_int_equal(mem_pool_mbufs(&cfg, &need), 18688);
	assert_int_equal(need, 1024 + 4 * (2 * 1024 + 2 * (1024 + 64)) + 2 * (256 + 128));
}

static void test_mbuf_size(void **state)
{
	struct mem_need n;

	(void)state;
	/* MTU 1500 fits the default 2048-byte room: 128 mbuf + 2048 + 128 headroom
	 * = 2304, + 64 object header = 2368 (37 lines): one per 4 KiB page */
	load(conf_null);
	assert_int_equal(mem_mbuf_room(&cfg), 2048 + 128);
	mem_need(&cfg, 4096, &n);
	assert_int_equal(n.nb_mbufs, 16383);
	assert_int_equal(n.mbuf_bytes, 4096);
	assert_in_range(n.mbufs, 16383 * 4096ull, 16383 * 4096ull + 2 * MiB);
	/* hugepages: back to back */
	mem_need(&cfg, 0, &n);
	assert_int_equal(n.mbuf_bytes, 2368);
	assert_in_range(n.mbufs, 16383 * 2368ull, 16383 * 2368ull + 2 * MiB);
	config_free(&cfg);

	/* MTU 9000 on af_packet: a 16384-byte ring slot per frame; 128 + 16384
	 * + 128 + 64 = 16704 bytes, in 5 whole pages (20 KiB) each */
	load(conf_jumbo);
	assert_int_equal(mem_mbuf_room(&cfg), 16384 + 128);
	mem_need(&cfg, 4096, &n);
	assert_int_equal(n.mbuf_bytes, 20480);
	assert_in_range(n.mbufs, 16383 * 20480ull, 16383 * 20480ull + 2 * MiB);
}

static void test_fib_and_total(void **state)
{
	struct mem_need n, big;
	char text[65536];
	size_t len;

	(void)state;
	load(conf_null);
	mem_need(&cfg, 4096, &n);
	/* FIB and FIB6: a 64 MiB tbl24 each, little else for four addresses
	 * (headroom: 1024 routes and 256 tbl8 groups each) */
	assert_in_range(n.fib, 128 * MiB, 130 * MiB);
	/* the total: what runs, with ONE FIB pair (a reload changes it in place) */
	assert_int_equal(n.total, n.mbufs + n.indirect + n.rings + n.neighbors + n.fib + n.eal);
	assert_int_equal(n.total_mb, (n.total + MiB - 1) / MiB);
	assert_in_range(n.total_mb, 64 + 128, 64 + 128 + 32);
	config_free(&cfg);

	/* 1000 more /32 routes in four /24s: four tbl8 groups (1 KiB each, a
	 * quarter more for headroom) and two RIB nodes a route (a quarter more) */
	len = (size_t)snprintf(text, sizeof(text), "%sroutes = (\n", conf_null);
	for (int i = 0; i < 1000; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%s  { prefix = \"10.9.%d.%d/32\"; via = \"10.0.1.2\"; }",
					i ? ",\n" : "", i / 256, i % 256);
	snprintf(text + len, sizeof(text) - len, "\n);\n");
	load(text);
	mem_need(&cfg, 4096, &big);
	assert_in_range(big.fib - n.fib, 2500 * 40, 2500 * 256 + 8 * 1024);
	assert_int_equal(big.mbufs, n.mbufs);
}

static void test_check_message(void **state)
{
	struct mem_need n;
	char err[1024], want[CFG_PATH_MAX + 256];

	(void)state;
	/* the 256 MiB of the report now fit (one FIB pair); 160 MiB is too
	 * small, with the line of memory_mb */
	load(conf_null);
	assert_int_equal(mem_check(&cfg, err, sizeof(err), &n), 0);
	cfg.eal.memory_mb = 160;
	assert_int_equal(mem_check(&cfg, err, sizeof(err), &n), -ENOMEM);
	snprintf(want, sizeof(want),
		 "%s:6: eal.memory_mb: 160 MiB is too small for this config: it needs at least "
		 "%u MiB (packet mbufs 16383 x 4 KiB = ",
		 cfg.file, n.total_mb);
	assert_memory_equal(err, want, strlen(want));
	assert_non_null(strstr(err, "(changed in place by a reload)"));

	/* exactly the need passes, one MiB less does not */
	cfg.eal.memory_mb = n.total_mb;
	assert_int_equal(mem_check(&cfg, err, sizeof(err), NULL), 0);
	cfg.eal.memory_mb = n.total_mb - 1;
	assert_int_equal(mem_check(&cfg, err, sizeof(err), NULL), -ENOMEM);
	config_free(&cfg);

	/* MTU 9000 and IPv6 (the other report): ~320 MiB of mbufs alone; its
	 * 512 MiB fit with one FIB pair, 400 do not */
	load(conf_jumbo);
	assert_int_equal(mem_check(&cfg, err, sizeof(err), &n), 0);
	cfg.eal.memory_mb = 400;
	assert_int_equal(mem_check(&cfg, err, sizeof(err), &n), -ENOMEM);
	assert_in_range(n.total_mb, 320 + 128, 320 + 128 + 32);
	assert_non_null(strstr(err, ":5: eal.memory_mb: 400 MiB is too small"));
	assert_non_null(strstr(err, "packet mbufs 16383 x 20 KiB = "));
	config_free(&cfg);

	/* no eal group: the default 1024 MiB, and no line to point at */
	load("ports = ( { name = \"a\"; devargs = \"net_af_packet0,iface=x0\"; mtu = 9000; } );\n"
	     "mempool = { mbufs = 60000; };\n");
	assert_int_equal(mem_check(&cfg, err, sizeof(err), &n), -ENOMEM);
	snprintf(want, sizeof(want), "%s: eal.memory_mb: 1024 MiB (the default) is too small",
		 cfg.file);
	assert_memory_equal(err, want, strlen(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_pool_mbufs, teardown),
		cmocka_unit_test_teardown(test_mbuf_size, teardown),
		cmocka_unit_test_teardown(test_fib_and_total, teardown),
		cmocka_unit_test_teardown(test_check_message, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
