/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the configuration loader (core/config_read.c and the section loaders).
 *
 * Runs from tests/unit (meson workdir), so fixtures are "configs/NAME.conf".
 * Each error fixture holds one mistake; its test asserts the exact
 * "FILE:LINE: " and a key phrase of the only message reported.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/config.h"
#include "core/config_include.h"

/* ---- helpers ---------------------------------------------------------------- */

static uint32_t v4(const char *s)
{
	struct cfg_addr a;

	assert_int_equal(config_parse_addr(s, &a), 0);
	assert_int_equal(a.family, AF_INET);
	return a.v4;
}

static void assert_prefix(const struct cfg_prefix *p, const char *want)
{
	char buf[INET6_ADDRSTRLEN + 4];

	assert_string_equal(config_format_prefix(p, buf, sizeof(buf)), want);
}

static void assert_addr(const struct cfg_addr *a, const char *want)
{
	char buf[INET6_ADDRSTRLEN];

	assert_string_equal(config_format_addr(a, buf, sizeof(buf)), want);
}

/* True when the bytes of @p are all zero. */
static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

/* Load a file that must fail; the cfg must come back zeroed. */
static int load_bad(const char *path, struct config_errors *errs)
{
	struct vbrd_config cfg;
	int rc;

	memset(&cfg, 0xa5, sizeof(cfg));
	rc = config_load(path, &cfg, errs);
	assert_true(all_zero(&cfg, sizeof(cfg)));
	config_free(&cfg);
	return rc;
}

/* Index of the message starting with "PATH:LINE: " and holding @phrase, or -1. */
static int find_msg(const struct config_errors *errs, const char *path, int line,
		    const char *phrase)
{
	char prefix[256];
	int i;

	if (line > 0)
		snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", path);
	for (i = 0; i < errs->count; i++)
		if (strncmp(errs->msgs[i], prefix, strlen(prefix)) == 0 &&
		    strstr(errs->msgs[i], phrase) != NULL)
			return i;
	print_message("no message '%s...%s' among:\n", prefix, phrase);
	config_errors_print(errs, stderr);
	return -1;
}

/* ---- a good file ---------------------------------------------------------- */

static void good_full_config(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	const struct cfg_iface *ifc;
	const struct cfg_route *r;
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0x0a };

	(void)state;
	assert_int_equal(config_load("configs/good.conf", &cfg, &errs), 0);
	assert_int_equal(errs.count, 0);

	assert_string_equal(cfg.file, "configs/good.conf");
	assert_string_equal(cfg.instance, "lab-1");
	assert_string_equal(cfg.socket, "/tmp/vbrd-test.sock");

	assert_int_equal(cfg.nb_ports, 2);
	assert_string_equal(cfg.ports[0].name, "p0");
	assert_string_equal(cfg.ports[0].devargs, "net_af_packet0,iface=vbr-p0");
	assert_int_equal(cfg.ports[0].rx_queues, 2);
	assert_int_equal(cfg.ports[0].rx_desc, 512);
	assert_int_equal(cfg.ports[0].tx_desc, 2048);
	assert_int_equal(cfg.ports[0].mtu, 9000);
	assert_false(cfg.ports[0].promiscuous);
	assert_int_equal(cfg.ports[0].line, 6);
	assert_string_equal(cfg.ports[1].devargs, "0000:03:00.0");
	assert_int_equal(cfg.ports[1].rx_queues, 0); /* one per worker */
	assert_int_equal(cfg.ports[1].rx_desc, 1024);
	assert_int_equal(cfg.ports[1].tx_desc, 1024);
	assert_int_equal(cfg.ports[1].mtu, 1500);
	assert_true(cfg.ports[1].promiscuous);
	assert_int_equal(config_port_index(&cfg, "p1"), 1);
	assert_int_equal(config_port_index(&cfg, "p2"), -1);

	assert_int_equal(cfg.nb_ifaces, 3);
	ifc = &cfg.ifaces[0];
	assert_string_equal(ifc->name, "lan0");
	assert_int_equal(ifc->port, 0);
	assert_int_equal(ifc->vlan, 0);
	assert_int_equal(ifc->mtu, 9000); /* the port's */
	assert_int_equal(ifc->nb_addrs, 1);
	assert_int_equal(ifc->addrs[0].addr.family, AF_INET);
	assert_int_equal(ifc->addrs[0].addr.v4, 0x0a000101); /* host order */
	assert_int_equal(ifc->addrs[0].len, 24);
	assert_int_equal(ifc->line, 12);
	ifc = &cfg.ifaces[1];
	assert_string_equal(ifc->name, "line100");
	assert_int_equal(ifc->vlan, 100);
	assert_int_equal(ifc->mtu, 1500);
	assert_int_equal(ifc->nb_addrs, 2);
	assert_prefix(&ifc->addrs[0], "10.100.0.1/30");
	assert_prefix(&ifc->addrs[1], "2001:db8:100::1/64");
	assert_int_equal(ifc->addrs[1].addr.family, AF_INET6);
	ifc = &cfg.ifaces[2];
	assert_int_equal(ifc->port, 1);
	assert_int_equal(ifc->mtu, 1500);
	assert_int_equal(ifc->nb_addrs, 2);
	assert_int_equal(config_iface_index(&cfg, "wan"), 2);
	assert_int_equal(config_iface_index(&cfg, "nope"), -1);

	assert_int_equal(cfg.nb_routes, 5);
	r = &cfg.routes[0];
	assert_prefix(&r->prefix, "10.9.0.0/16");
	assert_int_equal(r->nb_nexthops, 1);
	assert_int_equal(r->nexthops[0].via.v4, v4("10.0.1.2"));
	assert_int_equal(r->nexthops[0].iface, 0);
	assert_int_equal(r->line, 19);
	r = &cfg.routes[1];
	assert_prefix(&r->prefix, "0.0.0.0/0");
	assert_int_equal(r->nb_nexthops, 2);
	assert_addr(&r->nexthops[0].via, "10.100.0.2");
	assert_int_equal(r->nexthops[0].iface, 1);
	assert_addr(&r->nexthops[1].via, "192.0.2.200");
	assert_int_equal(r->nexthops[1].iface, 2);
	r = &cfg.routes[2];
	assert_int_equal(r->nb_nexthops, 1);
	assert_addr(&r->nexthops[0].via, "10.0.1.3");
	assert_int_equal(r->nexthops[0].iface, 0);
	r = &cfg.routes[3];
	assert_prefix(&r->prefix, "2001:db8:9::/48");
	assert_int_equal(r->nexthops[0].iface, 1);
	r = &cfg.routes[4];
	assert_addr(&r->nexthops[0].via, "fe80::1");
	assert_int_equal(r->nexthops[0].iface, 1);

	assert_int_equal(cfg.nb_neighbors, 1);
	assert_int_equal(cfg.neighbors[0].iface, 0);
	assert_int_equal(cfg.neighbors[0].addr.v4, v4("10.0.1.2"));
	assert_memory_equal(cfg.neighbors[0].mac, mac, 6);

	assert_int_equal(cfg.workers.nb_cores, 2);
	assert_int_equal(cfg.workers.cores[0], 1);
	assert_int_equal(cfg.workers.cores[1], 3);
	assert_int_equal(cfg.workers.burst, 64);
	assert_int_equal(cfg.workers.idle_sleep_us, 50);
	assert_int_equal(cfg.mempool.mbufs, 8191);
	assert_int_equal(cfg.mempool.cache, 128);
	assert_int_equal(cfg.neighbor.reachable_s, 60);
	assert_int_equal(cfg.neighbor.retries, 5);
	assert_int_equal(cfg.neighbor.retry_ms, 200);
	assert_int_equal(cfg.neighbor.hold_packets, 8);
	assert_int_equal(cfg.icmp.rate_pps, 10);
	assert_int_equal(cfg.icmp.burst, 5);
	assert_false(cfg.eal.hugepages);
	assert_int_equal(cfg.eal.memory_mb, 256);
	assert_int_equal(cfg.eal.max_simd_bitwidth, 256);

	config_free(&cfg);
	assert_true(all_zero(&cfg, sizeof(cfg)));
	config_free(&cfg); /* safe twice */
	config_errors_free(&errs);
}

static void defaults(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(config_load("configs/minimal.conf", &cfg, &errs), 0);
	assert_string_equal(cfg.instance, "vbrd");
	assert_string_equal(cfg.socket, "/run/vbrd/vbrd.sock");
	assert_int_equal(cfg.ports[0].rx_queues, 0);
	assert_int_equal(cfg.ports[0].rx_desc, 1024);
	assert_int_equal(cfg.ports[0].tx_desc, 1024);
	assert_int_equal(cfg.ports[0].mtu, 1500);
	assert_true(cfg.ports[0].promiscuous);
	assert_int_equal(cfg.ifaces[0].mtu, 1500);
	assert_int_equal(cfg.ifaces[0].vlan, 0);
	assert_int_equal(cfg.nb_routes, 0);
	assert_null(cfg.routes);
	assert_int_equal(cfg.nb_neighbors, 0);
	assert_int_equal(cfg.workers.nb_cores, 1);
	assert_int_equal(cfg.workers.cores[0], 1);
	assert_int_equal(cfg.workers.burst, 32);
	assert_int_equal(cfg.workers.idle_sleep_us, 0);
	assert_int_equal(cfg.mempool.mbufs, 16383);
	assert_int_equal(cfg.mempool.cache, 256);
	assert_int_equal(cfg.neighbor.reachable_s, 300);
	assert_int_equal(cfg.neighbor.retries, 3);
	assert_int_equal(cfg.neighbor.retry_ms, 1000);
	assert_int_equal(cfg.neighbor.hold_packets, 4);
	assert_int_equal(cfg.icmp.rate_pps, 100);
	assert_int_equal(cfg.icmp.burst, 50);
	assert_true(cfg.eal.hugepages);
	assert_int_equal(cfg.eal.memory_mb, 1024);
	assert_int_equal(cfg.eal.max_simd_bitwidth, 512);
	config_free(&cfg);
	config_errors_free(&errs);
}

/* The shipped files must load: vbrd.conf is what `make run` uses. */
static void shipped_configs(void **state)
{
	static const char *const files[] = {
		"../../conf/examples/vlan-ecmp.conf",
		"../../conf/examples/pcap-null.conf",
	};
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	size_t i;

	(void)state;
	assert_int_equal(config_load("../../conf/vbrd.conf", &cfg, &errs), 0);
	assert_string_equal(cfg.instance, "vbrd");
	assert_int_equal(cfg.nb_ports, 2);
	assert_string_equal(cfg.ports[0].devargs, "net_af_packet0,iface=vbr-h1");
	assert_string_equal(cfg.ports[1].devargs, "net_af_packet1,iface=vbr-h2");
	assert_prefix(&cfg.ifaces[0].addrs[0], "10.0.1.1/24");
	assert_prefix(&cfg.ifaces[1].addrs[0], "10.0.2.1/24");
	assert_int_equal(cfg.routes[0].nexthops[0].iface, 1);
	assert_int_equal(cfg.workers.idle_sleep_us, 100);
	config_free(&cfg);

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int rc = config_load(files[i], &cfg, &errs);

		config_errors_print(&errs, stderr);
		assert_int_equal(rc, 0);
		config_free(&cfg);
		config_errors_free(&errs);
	}
}

/* RFC 6935 §5 / RFC 6936 §5: a zero UDP checksum over IPv6 is opt-in, per tunnel. */
static void tunnel_udp_zero_checksum6(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(config_load("configs/tunnel-zero-csum6.conf", &cfg, &errs), 0);
	assert_int_equal(errs.count, 0);
	assert_int_equal(cfg.nb_tunnels, 3);
	assert_false(cfg.tunnels[0].udp_zero_checksum6); /* the default */
	assert_true(cfg.tunnels[1].udp_zero_checksum6);
	assert_false(cfg.tunnels[2].udp_zero_checksum6);
	config_free(&cfg);
}

/* ---- one mistake per file ------------------------------------------------- */

struct err_case {
	const char *file;   /* under configs/ */
	int line;           /* expected line, 0 = message about the whole file */
	const char *phrase; /* part of the message */
};

static void one_error(void **state)
{
	const struct err_case *c = *state;
	struct config_errors errs = { 0 };
	char path[128];

	snprintf(path, sizeof(path), "configs/%s", c->file);
	assert_int_equal(load_bad(path, &errs), -EINVAL);
	if (errs.count != 1)
		config_errors_print(&errs, stderr);
	assert_int_equal(errs.count, 1);
	assert_int_equal(find_msg(&errs, path, c->line, c->phrase), 0);
	config_errors_free(&errs);
	assert_int_equal(errs.count, 0);
	assert_null(errs.msgs);
}

static const struct err_case cases[] = {
	{ "syntax.conf", 5, "syntax error: " },
	{ "unknown-top.conf", 3, "unknown setting 'prots'" },
	{ "unknown-nested.conf", 4, "unknown setting 'interfaces[0].vlna'" },
	{ "wrong-type.conf", 4, "interfaces[0].vlan: expected an integer, got a string" },
	{ "range-vlan.conf", 5, "interfaces[1].vlan: 5000 is out of range 1..4094" },
	{ "range-mtu.conf", 2, "ports[0].mtu: 9001 is out of range 576..9000" },
	{ "range-burst.conf", 4, "workers.burst: 0 is out of range 1..256" },
	{ "simd-bitwidth.conf", 4, "eal.max_simd_bitwidth: 384 is not 128, 256 or 512" },
	{ "range-cores.conf", 3, "workers.cores: 17 cores, expected 1..16" },
	{ "dup-core.conf", 3, "workers.cores[2]: duplicate core 1" },
	{ "dup-port.conf", 4, "duplicate port name 'p0' (first at line 2)" },
	{ "dup-iface.conf", 5, "duplicate interface name 'lan0' (first at line 3)" },
	{ "dup-vlan.conf", 5,
	  "duplicate interface on port 'p0' VLAN 100 (first at line 3: 'line100')" },
	{ "dangling-port.conf", 3, "interfaces[0].port: unknown port 'p9'" },
	{ "gw-unreachable.conf", 6, "routes[1].via: 10.5.0.1 is not in a connected subnet" },
	{ "gw-wrong-iface.conf", 7,
	  "routes[0].next_hops[0].via: 10.0.1.2 is not in a connected subnet of interface 'lan1'" },
	{ "host-bits.conf", 4,
	  "routes[0].prefix: 10.9.1.0/16 has host bits set (did you mean 10.9.0.0/16?)" },
	{ "dup-route.conf", 6, "duplicate route 10.9.0.0/16 (first at line 4)" },
	{ "iface-loopback.conf", 3,
	  "interfaces[0].address: 127.0.0.1/8 is a loopback address, not an interface address" },
	{ "tunnel-local-neighbor.conf", 4,
	  "tunnels[0].local: 10.0.1.2 lies in the subnet of interface 'lan0' but is not its "
	  "address" },
	{ "tunnel-addr-taken.conf", 4,
	  "tunnels[0].address: address 10.0.1.1 is already on interface 'lan0' (line 2)" },
	{ "tunnel-addr-twice.conf", 5,
	  "tunnels[0].addresses[1]: address 172.16.0.1 is already on tunnel 't2' (line 4)" },
	{ "tunnel-port-types.conf", 5,
	  "tunnels[1]: UDP port 4789 is already tunnel 'v' (line 4) of another type" },
	{ "tunnel-type.conf", 4, "tunnels[0].type: unknown tunnel type 'gre' (vxlan or geneve)" },
	{ "path-group-unknown.conf", 5, "routes[0].path_group: unknown path group 'nope'" },
	{ "path-via-subnet.conf",
	  5, "path_groups[0].paths[0].via: 10.0.9.2 is not in a connected subnet of interface 'lan0'" },
	{ "via-and-nexthops.conf", 5, "routes[0]: 'via' and 'next_hops' are mutually exclusive" },
	{ "iface-mtu.conf", 4, "interfaces[0].mtu: 9000 exceeds the MTU 1500 of port 'p0'" },
	{ "missing.conf", 3, "ports[1]: missing required setting 'devargs'" },
	{ "missing-top.conf", 0, "missing required setting 'ports'" },
	{ "bad-neighbor.conf", 5, "neighbors[0].mac: '02:00:00:00:00' is not a MAC address" },
	{ "gw-own-address.conf", 4,
	  "routes[0].via: 10.0.1.1 is an address of interface 'lan0' itself" },
	{ "gw-family.conf", 5, "routes[0].via[1]: 2001:db8::2 is IPv6 but the prefix is IPv4" },
	{ "gw-link-local.conf", 4,
	  "routes[0].via: link-local gateway fe80::1 needs an 'interface'" },
	{ "dup-address.conf", 5,
	  "interfaces[1].addresses[1]: address 10.0.1.1 is already on interface 'lan0' (line 3)" },
	{ "tunnel-zero-csum6-type.conf", 5,
	  "tunnels[0].udp_zero_checksum6: expected a boolean (true/false), got an integer" },
};

/* A file with several mistakes reports every one, sorted by line. */
static void several_errors(void **state)
{
	static const struct err_case want[] = {
		{ NULL, 2, "unknown setting 'prots'" },
		{ NULL, 4, "ports[0].mtu: 100 is out of range 576..9000" },
		{ NULL, 7, "interfaces[0].vlan: 5000 is out of range 1..4094" },
		{ NULL, 8, "interfaces[1].port: unknown port 'p7'" },
		{ NULL, 11, "routes[0].prefix: 10.9.0.1/16 has host bits set" },
		{ NULL, 12, "routes[1].via: 172.16.0.1 is not in a connected subnet" },
		{ NULL, 14, "workers.burst: expected an integer, got a string" },
	};
	const char *path = "configs/several.conf";
	struct config_errors errs = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(load_bad(path, &errs), -EINVAL);
	if (errs.count != (int)(sizeof(want) / sizeof(want[0])))
		config_errors_print(&errs, stderr);
	assert_int_equal(errs.count, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(find_msg(&errs, path, want[i].line, want[i].phrase), (int)i);
	config_errors_free(&errs);

	/* errs may be NULL: same result, nothing leaks. */
	assert_int_equal(load_bad(path, NULL), -EINVAL);
}

static void missing_file(void **state)
{
	struct config_errors errs = { 0 };

	(void)state;
	assert_int_equal(load_bad("configs/no-such-file.conf", &errs), -ENOENT);
	assert_int_equal(errs.count, 1);
	assert_int_equal(find_msg(&errs, "configs/no-such-file.conf", 0,
				  "cannot open: No such file or directory"),
			 0);
	config_errors_free(&errs);

	assert_int_equal(load_bad("configs", &errs), -EISDIR);
	assert_int_equal(errs.count, 1);
	config_errors_free(&errs);
}

/* ---- @include pre-scan (app/config_include.c) -------------------------------- */

/*
 * libconfig 1.5 calls exit(2) on a directory or unreadable include and blocks
 * on a FIFO: config_load() runs in a child here, so that such a regression
 * fails one test with a reason instead of ending or hanging the whole binary.
 */
#define LOAD_TIMEOUT_S 5

static char inc_dir[64]; /* a fresh directory per test */

static int setup_inc_dir(void **state)
{
	(void)state;
	snprintf(inc_dir, sizeof(inc_dir), "/tmp/vbrd-test-inc-XXXXXX");
	assert_non_null(mkdtemp(inc_dir));
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int teardown_inc_dir(void **state)
{
	(void)state;
	nftw(inc_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* inc_dir/NAME, in a static buffer (one of 4 in turn). */
static const char *inc_path(const char *name)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", inc_dir, name);
	return b;
}

static void inc_write(const char *name, const char *text)
{
	FILE *f = fopen(inc_path(name), "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const char minimal_text[] =
	"ports = ( { name = \"p0\"; devargs = \"net_null0\"; } );\n"
	"interfaces = ( { name = \"lan0\"; port = \"p0\"; address = \"10.0.0.1/8\"; } );\n";

/*
 * config_load(@p path) in a child process that must return within
 * LOAD_TIMEOUT_S; its messages come back in @p errs.
 * @return config_load()'s return value
 */
static int load_guarded(const char *path, struct config_errors *errs)
{
	char *buf = NULL, *p;
	size_t len = 0, cap = 0;
	int fds[2], status, rc, i;
	bool stuck = false;
	pid_t pid;
	time_t t0 = time(NULL);

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct vbrd_config cfg;
		struct config_errors e = { 0 };
		FILE *out = fdopen(fds[1], "w");

		close(fds[0]);
		alarm(LOAD_TIMEOUT_S);
		rc = config_load(path, &cfg, &e);
		fprintf(out, "%d", rc);
		for (i = 0; i < e.count; i++)
			fprintf(out, "%c%s", '\0', e.msgs[i]);
		fclose(out);
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 1000) == 0 && time(NULL) - t0 > LOAD_TIMEOUT_S + 2) {
			stuck = true; /* the alarm should have ended the child long ago */
			break;
		}
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = read(fds[0], buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	close(fds[0]);
	if (stuck)
		kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		fail_msg("config_load(%s) did not return within %d s (blocked on a FIFO?)", path,
			 LOAD_TIMEOUT_S);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("config_load(%s) ended the process (status 0x%x; libconfig's scanner "
			 "calls exit(2) on a read error)",
			 path, status);
	assert_non_null(buf);
	buf[len] = '\0';
	rc = atoi(buf);
	*errs = (struct config_errors){ 0 };
	for (p = buf + strlen(buf); p < buf + len; p += strlen(p)) {
		errs->msgs = realloc(errs->msgs, (errs->count + 1) * sizeof(char *));
		assert_non_null(errs->msgs);
		errs->msgs[errs->count++] = strdup(++p);
	}
	free(buf);
	return rc;
}

/* Load inc_dir/top.conf holding @p text: one error at @p line with @p phrase. */
static void assert_include_error(const char *text, int line, const char *phrase)
{
	struct config_errors errs = { 0 };
	const char *top = inc_path("top.conf");

	inc_write("top.conf", text);
	assert_int_equal(load_guarded(top, &errs), -EINVAL);
	if (errs.count != 1)
		config_errors_print(&errs, stderr);
	assert_int_equal(errs.count, 1);
	assert_int_equal(find_msg(&errs, top, line, phrase), 0);
	config_errors_free(&errs);
}

static void include_directory(void **state)
{
	(void)state;
	assert_int_equal(mkdir(inc_path("conf.d"), 0755), 0);
	assert_include_error("instance = \"x\";\n@include \"conf.d\"\n", 2,
			     "@include \"conf.d\" (");
	assert_include_error("instance = \"x\";\n@include \"conf.d\"\n", 2,
			     "conf.d): a directory, not a regular file");
	/* an empty name is the include directory itself */
	assert_include_error("@include \"\"\n", 1, "a directory, not a regular file");
}

static void include_fifo(void **state)
{
	time_t t0 = time(NULL);

	(void)state;
	assert_int_equal(mkfifo(inc_path("pipe"), 0644), 0);
	assert_include_error("# nobody writes to it\n  @include \"pipe\"\n", 2,
			     "a FIFO, not a regular file");
	assert_true(time(NULL) - t0 <= 2);
}

/* Unreadable for root too: /proc/self/mem fails read() with EIO. */
static void include_unreadable(void **state)
{
	(void)state;
	assert_int_equal(symlink("/proc/self/mem", inc_path("mem.conf")), 0);
	assert_include_error("@include \"mem.conf\"\n", 1, "cannot read: Input/output error");
	/* the same file by a relative path out of the include directory */
	assert_include_error("\n@include \"../../proc/self/mem\"\n", 2,
			     "cannot read: Input/output error");
	assert_int_equal(symlink("/dev/zero", inc_path("zero.conf")), 0);
	assert_include_error("@include \"zero.conf\"\n", 1,
			     "a character device, not a regular file");
	assert_include_error("@include \"no-such.conf\"\n", 1,
			     "cannot open: No such file or directory");
}

/* The top file itself: refused the same way, with no line. */
static void top_file_not_regular(void **state)
{
	struct config_errors errs = { 0 };

	(void)state;
	assert_int_equal(mkfifo(inc_path("top.fifo"), 0644), 0);
	assert_int_equal(load_guarded(inc_path("top.fifo"), &errs), -EINVAL);
	assert_int_equal(errs.count, 1);
	assert_int_equal(find_msg(&errs, inc_path("top.fifo"), 0, "a FIFO, not a regular file"), 0);
	config_errors_free(&errs);

	assert_int_equal(load_guarded("/proc/self/mem", &errs), -EIO);
	assert_int_equal(errs.count, 1);
	assert_int_equal(find_msg(&errs, "/proc/self/mem", 0, "cannot read: Input/output error"),
			 0);
	config_errors_free(&errs);

	assert_int_equal(load_guarded(inc_dir, &errs), -EISDIR);
	assert_int_equal(find_msg(&errs, inc_dir, 0, "a directory, not a regular file"), 0);
	config_errors_free(&errs);
}

/* Includes of includes; a bad one deep down names its own file and line. */
static void include_nested(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	/* Every NAME is relative to the top file's directory (libconfig 1.5). */
	assert_int_equal(mkdir(inc_path("sub"), 0755), 0);
	inc_write("sub/ports.conf", "@include \"sub/leaf.conf\"\n");
	inc_write("sub/leaf.conf", minimal_text);
	inc_write("top.conf", "instance = \"nested\";\n@include \"sub/ports.conf\"\n");
	assert_int_equal(load_guarded(inc_path("top.conf"), &errs), 0);
	assert_int_equal(errs.count, 0);
	assert_int_equal(config_load(inc_path("top.conf"), &cfg, NULL), 0);
	assert_string_equal(cfg.instance, "nested");
	assert_int_equal(cfg.nb_ports, 1);
	config_free(&cfg);

	assert_int_equal(mkfifo(inc_path("sub/fifo"), 0644), 0);
	inc_write("sub/leaf.conf", "# a leaf\n\n@include \"sub/fifo\"\n");
	assert_int_equal(load_guarded(inc_path("top.conf"), &errs), -EINVAL);
	assert_int_equal(errs.count, 1);
	assert_int_equal(find_msg(&errs, inc_path("sub/leaf.conf"), 3, "a FIFO"), 0);
	config_errors_free(&errs);
}

/*
 * @include in a comment or a string is not one, for libconfig as here: the
 * FIFO is never opened (libconfig would block on it) and the only message is
 * the checker's about the odd instance name that holds the string.
 */
static void include_not_followed(void **state)
{
	struct config_errors errs = { 0 };
	const char *top = inc_path("top.conf");

	(void)state;
	assert_int_equal(mkfifo(inc_path("fifo"), 0644), 0);
	inc_write("body.conf", minimal_text);
	inc_write("top.conf", "/*\n@include \"fifo\"\n*/\n"
			      "# @include \"fifo\"\n"
			      "// @include \"fifo\"\n"
			      "instance = \"a\n@include \\\"fifo\\\"\n\";\n"
			      "\t @include \"body.conf\" # the real one\n");
	assert_int_equal(load_guarded(top, &errs), -EINVAL);
	if (errs.count != 1)
		config_errors_print(&errs, stderr);
	assert_int_equal(errs.count, 1);
	assert_int_equal(
		find_msg(&errs, top, 6, "instance: 'a\n@include \"fifo\"\n' is not a valid"), 0);
	config_errors_free(&errs);
}

static void include_loop_and_depth(void **state)
{
	struct config_errors errs = { 0 };
	char name[32], text[64];
	int i;

	(void)state;
	assert_include_error("@include \"top.conf\"\n", 1, "include loop");
	inc_write("b.conf", "\n@include \"top.conf\"\n");
	inc_write("top.conf", "@include \"b.conf\"\n");
	assert_int_equal(load_guarded(inc_path("top.conf"), &errs), -EINVAL);
	assert_int_equal(errs.count, 1);
	assert_int_equal(find_msg(&errs, inc_path("b.conf"), 2, "include loop"), 0);
	config_errors_free(&errs);

	/* CFG_INCLUDE_MAX_DEPTH nested includes load (libconfig allows as many)... */
	for (i = 1; i <= CFG_INCLUDE_MAX_DEPTH; i++) {
		snprintf(name, sizeof(name), "d%d.conf", i);
		snprintf(text, sizeof(text), "@include \"d%d.conf\"\n", i + 1);
		inc_write(name, text);
	}
	snprintf(name, sizeof(name), "d%d.conf", CFG_INCLUDE_MAX_DEPTH);
	inc_write(name, minimal_text);
	assert_int_equal(load_guarded(inc_path("d1.conf"), &errs), 0);
	config_errors_print(&errs, stderr);
	assert_int_equal(errs.count, 0);
	/* ...one more is refused, at the include that goes too deep */
	snprintf(text, sizeof(text), "@include \"d%d.conf\"\n", CFG_INCLUDE_MAX_DEPTH + 1);
	inc_write(name, text);
	snprintf(name, sizeof(name), "d%d.conf", CFG_INCLUDE_MAX_DEPTH + 1);
	inc_write(name, minimal_text);
	inc_write("top.conf", "@include \"d1.conf\"\n");
	assert_int_equal(load_guarded(inc_path("top.conf"), &errs), -EINVAL);
	assert_int_equal(errs.count, 1);
	snprintf(name, sizeof(name), "d%d.conf", CFG_INCLUDE_MAX_DEPTH);
	assert_int_equal(find_msg(&errs, inc_path(name), 1, "nested deeper than"), 0);
	config_errors_free(&errs);
}

/* Sparse files: the size bound counts every file together. */
static void include_size_bound(void **state)
{
	const char *big = inc_path("big.conf");
	int fd;

	(void)state;
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, CFG_INCLUDE_MAX_BYTES + 1), 0);
	close(fd);
	assert_include_error("@include \"big.conf\"\n", 1, "larger than 512 MiB");

	fd = open(big, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, CFG_INCLUDE_MAX_BYTES / 2 + 1), 0);
	close(fd);
	assert_include_error("@include \"big.conf\"\n@include \"big.conf\"\n", 2,
			     "the configuration and its includes are larger than 512 MiB");
}

/* ---- address and prefix parsing ----------------------------------------------- */

static void parse_prefixes(void **state)
{
	static const char *const bad[] = {
		"10.0.0.0/33",
		"256.1.1.1/8",
		"10.0.0.0",
		"10.0.0.0/",
		"10.0.0.0/-1",
		"10.0.0.0/ 8",
		"10.0.0.0/8 ",
		"10.0.0.0/0008",
		"1.2.3/8",
		"/8",
		"",
		"2001:db8::/129",
		"2001:db8:::1/64",
		"10.0.0.0/8/8",
		"fe80::1%eth0/64",
	};
	struct cfg_prefix p;
	size_t i;

	(void)state;
	assert_int_equal(config_parse_prefix("0.0.0.0/0", &p), 0);
	assert_int_equal(p.addr.family, AF_INET);
	assert_int_equal(p.len, 0);
	assert_int_equal(config_parse_prefix("10.1.2.3/32", &p), 0);
	assert_int_equal(p.addr.v4, 0x0a010203);
	assert_int_equal(p.len, 32);
	assert_int_equal(config_parse_prefix("2001:db8::1/128", &p), 0);
	assert_int_equal(p.addr.family, AF_INET6);
	assert_int_equal(p.len, 128);
	assert_int_equal(p.addr.v6[0], 0x20);
	assert_int_equal(p.addr.v6[15], 0x01);
	assert_int_equal(config_parse_prefix("::/0", &p), 0);
	assert_int_equal(p.len, 0);
	assert_prefix(&p, "::/0");

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&p, 0xa5, sizeof(p));
		if (config_parse_prefix(bad[i], &p) != -EINVAL)
			fail_msg("'%s' parsed as a prefix", bad[i]);
		assert_true(all_zero(&p, sizeof(p)));
	}
	assert_int_equal(config_parse_prefix(NULL, &p), -EINVAL);
}

static void parse_addrs(void **state)
{
	static const char *const bad[] = {
		"256.1.1.1",  "1.2.3",       "1.2.3.4.5", "01.2.3.4", " 1.2.3.4",
		"1.2.3.4/32", "2001:db8::g", "::1::",     "",         "localhost",
	};
	struct cfg_addr a;
	char buf[INET6_ADDRSTRLEN];
	size_t i;

	(void)state;
	assert_int_equal(config_parse_addr("192.0.2.1", &a), 0);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(a.v4, 0xc0000201); /* host byte order */
	assert_addr(&a, "192.0.2.1");
	assert_int_equal(config_parse_addr("255.255.255.255", &a), 0);
	assert_int_equal(a.v4, 0xffffffff);
	assert_int_equal(config_parse_addr("2001:DB8:0:0::1", &a), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_addr(&a, "2001:db8::1"); /* RFC 5952 form */
	assert_int_equal(config_parse_addr("::ffff:1.2.3.4", &a), 0);
	assert_int_equal(a.family, AF_INET6);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (config_parse_addr(bad[i], &a) != -EINVAL)
			fail_msg("'%s' parsed as an address", bad[i]);

	memset(&a, 0, sizeof(a)); /* no family: empty string */
	assert_string_equal(config_format_addr(&a, buf, sizeof(buf)), "");
}

static void prefix_contains(void **state)
{
	struct cfg_prefix p;
	struct cfg_addr a;

	(void)state;
	assert_int_equal(config_parse_prefix("10.0.1.1/24", &p), 0);
	assert_int_equal(config_parse_addr("10.0.1.254", &a), 0);
	assert_true(config_prefix_contains(&p, &a));
	assert_int_equal(config_parse_addr("10.0.2.1", &a), 0);
	assert_false(config_prefix_contains(&p, &a));
	assert_int_equal(config_parse_prefix("0.0.0.0/0", &p), 0);
	assert_true(config_prefix_contains(&p, &a));
	assert_int_equal(config_parse_prefix("2001:db8:100::1/57", &p), 0);
	assert_int_equal(config_parse_addr("2001:db8:100:7f::9", &a), 0);
	assert_true(config_prefix_contains(&p, &a));
	assert_int_equal(config_parse_addr("2001:db8:100:80::9", &a), 0);
	assert_false(config_prefix_contains(&p, &a));
	assert_int_equal(config_parse_addr("10.0.1.1", &a), 0);
	assert_false(config_prefix_contains(&p, &a)); /* other family */
}

#define ERROR_TEST(i)                                                   \
	{                                                               \
		cases[i].file, one_error, NULL, NULL, (void *)&cases[i] \
	}

int main(void)
{
	struct CMUnitTest tests[] = {
		cmocka_unit_test(good_full_config),
		cmocka_unit_test(defaults),
		cmocka_unit_test(tunnel_udp_zero_checksum6),
		cmocka_unit_test(shipped_configs),
		cmocka_unit_test(several_errors),
		cmocka_unit_test(missing_file),
		cmocka_unit_test_setup_teardown(include_directory, setup_inc_dir, teardown_inc_dir),
		cmocka_unit_test_setup_teardown(include_fifo, setup_inc_dir, teardown_inc_dir),
		cmocka_unit_test_setup_teardown(include_unreadable, setup_inc_dir,
						teardown_inc_dir),
		cmocka_unit_test_setup_teardown(top_file_not_regular, setup_inc_dir,
						teardown_inc_dir),
		cmocka_unit_test_setup_teardown(include_nested, setup_inc_dir, teardown_inc_dir),
		cmocka_unit_test_setup_teardown(include_not_followed, setup_inc_dir,
						teardown_inc_dir),
		cmocka_unit_test_setup_teardown(include_loop_and_depth, setup_inc_dir,
						teardown_inc_dir),
		cmocka_unit_test_setup_teardown(include_size_bound, setup_inc_dir,
						teardown_inc_dir),
		cmocka_unit_test(parse_prefixes),
		cmocka_unit_test(parse_addrs),
		cmocka_unit_test(prefix_contains),
		ERROR_TEST(0),
		ERROR_TEST(1),
		ERROR_TEST(2),
		ERROR_TEST(3),
		ERROR_TEST(4),
		ERROR_TEST(5),
		ERROR_TEST(6),
		ERROR_TEST(7),
		ERROR_TEST(8),
		ERROR_TEST(9),
		ERROR_TEST(10),
		ERROR_TEST(11),
		ERROR_TEST(12),
		ERROR_TEST(13),
		ERROR_TEST(14),
		ERROR_TEST(15),
		ERROR_TEST(16),
		ERROR_TEST(17),
		ERROR_TEST(18),
		ERROR_TEST(19),
		ERROR_TEST(20),
		ERROR_TEST(21),
		ERROR_TEST(22),
		ERROR_TEST(23),
		ERROR_TEST(24),
		ERROR_TEST(25),
		ERROR_TEST(26),
		ERROR_TEST(27),
		ERROR_TEST(28),
		ERROR_TEST(29),
		ERROR_TEST(30),
		ERROR_TEST(31),
		ERROR_TEST(32),
		ERROR_TEST(33),
		ERROR_TEST(34),
		ERROR_TEST(35),
	};

	_Static_assert(sizeof(cases) / sizeof(cases[0]) == 36, "register every case in main()");
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
