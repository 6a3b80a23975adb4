/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the forwarding state (pipeline/fwd.c): fwd_state_build, FIB
 * lookups (connected, local, longest prefix, default, no route), ECMP
 * next-hop choice (fwd_nexthop_select), next-hop sharing and interface slots.
 *
 * Needs an EAL (rte_fib lives in EAL memory, rte_eth_macaddr_get needs the
 * ports; IPv4 and IPv6 FIBs take 64 MiB+ each, states built on a previous
 * one share its FIBs, independent ones have their own):
 * the group setup starts one without hugepages, PCI, shared config
 * or telemetry (nothing left in /var/run/dpdk), with two
 * net_null ports (0 and 1). Configurations are written to temporary files and
 * loaded with config_load(), as vbrd does.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
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
#include <rte_ethdev.h>
#include <rte_fib.h>

#include "core/config.h"
#include "pipeline/fwd.h"
#include "pipeline/neigh.h"
#include "pipeline/local.h"
#include "pipeline/parse.h"
#include "pipeline/tunnel.h"

/* The tunnel's data-path service is not linked here; only its binding is. */
const struct local_service tunnel_service = { .name = "tunnel" };

static uint16_t port_ids[2]; /* DPDK port ids of net_null0, net_null1 */

/* ---- helpers ------------------------------------------------------------- */

/* Host-order IPv4 address from its four bytes. */
#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* Ports, and three interfaces: lan0 untagged on p0, line100/line200 on p1. */
#define PORTS                                                      \
	"ports = ( { name = \"p0\"; devargs = \"net_null0\"; },\n" \
	"          { name = \"p1\"; devargs = \"net_null1\"; } );\n"

#define IFACES_3                                                                              \
	"interfaces = (\n"                                                                    \
	"  { name = \"lan0\"; port = \"p0\"; address = \"10.0.1.1/24\"; },\n"                 \
	"  { name = \"line100\"; port = \"p1\"; vlan = 100;\n"                                \
	"    addresses = [ \"10.100.0.1/24\", \"2001:db8:100::1/64\" ]; },\n"                 \
	"  { name = \"line200\"; port = \"p1\"; vlan = 200; address = \"10.200.0.1/24\"; }\n" \
	");\n"

/* Routes without a default: overlapping /16, /24, /25; ECMP over 2 and 3. */
#define ROUTES_BODY                                                                                \
	"  { prefix = \"172.16.0.0/16\"; via = \"10.100.0.2\"; },\n"                               \
	"  { prefix = \"172.16.5.0/24\"; via = \"10.200.0.2\"; },\n"                               \
	"  { prefix = \"172.16.5.128/25\"; via = \"10.0.1.2\"; },\n"                               \
	"  { prefix = \"198.18.0.0/16\"; via = [ \"10.100.0.2\", \"10.200.0.2\" ]; },\n"           \
	"  { prefix = \"198.19.0.0/16\"; via = [ \"10.100.0.2\", \"10.200.0.2\", \"10.0.1.2\" ]; " \
	"},\n"                                                                                     \
	"  { prefix = \"203.0.113.0/24\"; via = \"10.100.0.2\"; },\n"                              \
	"  { prefix = \"2001:db8:9::/48\"; via = \"2001:db8:100::2\"; }\n"

static const char conf_main[] = PORTS IFACES_3 "routes = (\n" ROUTES_BODY ");\n";

static const char conf_default[] = PORTS IFACES_3
	"routes = (\n" ROUTES_BODY ",\n  { prefix = \"0.0.0.0/0\"; via = \"10.0.1.254\"; }\n);\n";

/* line200 removed, wan9 added (on p0, VLAN 9). */
static const char conf_renamed[] = PORTS
	"interfaces = (\n"
	"  { name = \"lan0\"; port = \"p0\"; address = \"10.0.1.1/24\"; },\n"
	"  { name = \"wan9\"; port = \"p0\"; vlan = 9; address = \"10.9.0.1/24\"; },\n"
	"  { name = \"line100\"; port = \"p1\"; vlan = 100; address = \"10.100.0.1/24\"; }\n"
	");\n";

/* Write @text to a temporary file, load it, build a state on top of @prev. */
static struct fwd_state *build(const char *text, const struct fwd_state *prev)
{
	char path[64];
	struct vbrd_config cfg;
	struct config_errors errs = { 0 };
	struct fwd_state *st = NULL;
	char err[256] = "";
	int fd, rc;

	snprintf(path, sizeof(path), "/tmp/vbrd-unit-fwd-%d-XXXXXX", (int)getpid());
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);

	rc = config_load(path, &cfg, &errs);
	unlink(path);
	if (rc != 0)
		config_errors_print(&errs, stderr);
	config_errors_free(&errs);
	assert_int_equal(rc, 0);

	rc = fwd_state_build(&cfg, port_ids, prev, &st, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "fwd_state_build: %s\n", err);
	assert_int_equal(rc, 0);
	assert_non_null(st);
	return st;
}

static uint64_t lookup(const struct fwd_state *st, uint32_t ip)
{
	uint64_t nh = ~0ull;

	assert_int_equal(rte_fib_lookup_bulk(st->vrfs[0].fib, &ip, &nh, 1), 0);
	return nh;
}

static int iface_index(const struct fwd_state *st, const char *name)
{
	for (int i = 0; i < st->nb_ifaces; i++)
		if (strcmp(st->ifaces[i].name, name) == 0)
			return i;
	fail_msg("no interface %s", name);
	return -1;
}

/* The lookup of @ip is a plain next hop via @gw (0: connected) on @ifname. */
static void assert_route(const struct fwd_state *st, uint32_t ip, const char *ifname, uint32_t gw)
{
	uint64_t nh = lookup(st, ip);

	assert_int_equal(FIB_NH_KIND(nh), FIB_KIND_NEXTHOP);
	assert_in_range(FIB_NH_INDEX(nh), 0, (uint64_t)st->nb_nexthops - 1);
	/* a plain next hop ignores the hash */
	assert_int_equal(fwd_nexthop_select(st, nh, 0), FIB_NH_INDEX(nh));
	assert_int_equal(fwd_nexthop_select(st, nh, 0xdeadbeef), FIB_NH_INDEX(nh));
	const struct fwd_nexthop *n = &st->nexthops[FIB_NH_INDEX(nh)];
	assert_int_equal(n->family, AF_INET);
	assert_int_equal(n->iface, iface_index(st, ifname));
	assert_int_equal(n->gw, gw);
}

static int nexthop_of(const struct fwd_state *st, const char *ifname, uint32_t gw)
{
	int want = iface_index(st, ifname);

	for (int i = 0; i < st->nb_nexthops; i++)
		if (st->nexthops[i].family == AF_INET && st->nexthops[i].iface == want &&
		    st->nexthops[i].gw == gw)
			return i;
	fail_msg("no next hop via %08x on %s", gw, ifname);
	return -1;
}

/* ---- EAL ----------------------------------------------------------------- */

static int eal_setup(void **state)
{
	char prefix[64];
	char *argv[] = {
		"test_fwd",       "--no-huge",   "-m",        "1024",
		"--no-pci",       "--no-shconf", prefix,      "--vdev",
		"net_null0",      "--vdev",      "net_null1", "--log-level=*:warning",
		"--no-telemetry", NULL,
	};
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;

	(void)state;
	snprintf(prefix, sizeof(prefix), "--file-prefix=vbrd-unit-fwd-%d", (int)getpid());
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (rte_eth_dev_get_port_by_name("net_null0", &port_ids[0]) != 0 ||
	    rte_eth_dev_get_port_by_name("net_null1", &port_ids[1]) != 0) {
		fprintf(stderr, "net_null ports missing\n");
		return -1;
	}
	/* fwd_state_build fills next-hop MACs from the neighbor table */
	if (neigh_init(NULL) != 0) {
		fprintf(stderr, "neigh_init failed\n");
		return -1;
	}
	return 0;
}

static int eal_teardown(void **state)
{
	char dir[PATH_MAX];

	(void)state;
	/* --no-shconf leaves the runtime directory empty: remove it too */
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(dir);
	return 0;
}

/* ---- tests --------------------------------------------------------------- */

static void interfaces_built(void **state)
{
	(void)state;
	struct fwd_state *st = build(conf_main, NULL);

	assert_int_equal(st->nb_ifaces, 3);
	int lan = iface_index(st, "lan0"), l100 = iface_index(st, "line100"),
	    l200 = iface_index(st, "line200");
	assert_int_equal(st->ifaces[lan].port, port_ids[0]);
	assert_int_equal(st->ifaces[lan].vlan, 0);
	assert_int_equal(st->ifaces[l100].port, port_ids[1]);
	assert_int_equal(st->ifaces[l100].vlan, 100);
	assert_int_equal(st->ifaces[l200].vlan, 200);
	assert_int_equal(st->ifaces[lan].addr4, IP4(10, 0, 1, 1));
	assert_int_equal(st->ifaces[lan].plen4, 24);
	assert_int_equal(st->ifaces[l100].addr4, IP4(10, 100, 0, 1));

	/* the port's MAC */
	struct rte_ether_addr mac;
	assert_int_equal(rte_eth_macaddr_get(port_ids[1], &mac), 0);
	assert_memory_equal(&st->ifaces[l200].mac, &mac, sizeof(mac));

	/* (port, VLAN) → interface */
	assert_true(st->nb_port_ids > port_ids[1]);
	assert_int_equal(st->iface_by_vlan[port_ids[0]][0], lan);
	assert_int_equal(st->iface_by_vlan[port_ids[1]][100], l100);
	assert_int_equal(st->iface_by_vlan[port_ids[1]][200], l200);
	assert_int_equal(st->iface_by_vlan[port_ids[1]][0], FWD_NO_IFACE);
	assert_int_equal(st->iface_by_vlan[port_ids[0]][100], FWD_NO_IFACE);

	/* distinct slots */
	assert_int_not_equal(st->ifaces[lan].slot, st->ifaces[l100].slot);
	assert_int_not_equal(st->ifaces[lan].slot, st->ifaces[l200].slot);
	assert_int_not_equal(st->ifaces[l100].slot, st->ifaces[l200].slot);
	fwd_state_free(st);
}

static void connected_subnets(void **state)
{
	(void)state;
	struct fwd_state *st = build(conf_main, NULL);

	assert_route(st, IP4(10, 0, 1, 77), "lan0", 0);
	/* RFC 2644: the subnet's broadcast and network addresses are never forwarded */
	assert_int_equal(FIB_NH_KIND(lookup(st, IP4(10, 0, 1, 0))), FIB_KIND_BCAST);
	assert_int_equal(FIB_NH_KIND(lookup(st, IP4(10, 0, 1, 255))), FIB_KIND_BCAST);
	assert_route(st, IP4(10, 0, 1, 254), "lan0", 0);
	assert_route(st, IP4(10, 0, 1, 1) + 1, "lan0", 0);
	assert_route(st, IP4(10, 100, 0, 9), "line100", 0);
	assert_route(st, IP4(10, 200, 0, 254), "line200", 0);
	assert_int_equal(fwd_iface_for_subnet(st, -1, IP4(10, 200, 0, 254)),
			 iface_index(st, "line200"));
	assert_int_equal(fwd_iface_for_subnet(st, -1, IP4(10, 0, 2, 1)), -1);
	fwd_state_free(st);
}

/*
 * RFC 1812 §4.3.2.7: no ICMP error to a source that names no single host.
 * The state holds every connected subnet's broadcast and network address
 * (all interfaces, tunnels included; none for /31 and /32), sorted.
 */
static void subnet_broadcasts(void **state)
{
	(void)state;
	struct fwd_state *st = build(
		PORTS "interfaces = (\n"
		      "  { name = \"lan0\"; port = \"p0\";\n"
		      "    addresses = [ \"2001:db8:1::1/64\", \"10.0.1.1/24\",\n"
		      "                  \"192.0.2.1/31\", \"192.0.2.9/32\" ]; },\n"
		      "  { name = \"line100\"; port = \"p1\"; vlan = 100;\n"
		      "    addresses = [ \"10.100.0.1/16\", \"10.100.7.1/24\" ]; },\n"
		      "  { name = \"line200\"; port = \"p1\"; vlan = 200;\n"
		      "    address = \"198.51.100.5/30\"; }\n"
		      ");\n"
		      "tunnels = ( { name = \"t0\"; type = \"vxlan\"; vni = 7;\n"
		      "  local = \"10.100.0.1\"; remote = \"10.100.0.2\";\n"
		      "  address = \"10.99.0.1/30\"; } );\n",
		NULL);
	static const uint32_t yes[] = {
		IP4(10, 0, 1, 0),       IP4(10, 0, 1, 255),   IP4(10, 100, 0, 0),
		IP4(10, 100, 255, 255), IP4(10, 100, 7, 0),   IP4(10, 100, 7, 255),
		IP4(198, 51, 100, 4),   IP4(198, 51, 100, 7), IP4(10, 99, 0, 0),
		IP4(10, 99, 0, 3),
	};
	static const uint32_t no[] = {
		IP4(10, 0, 1, 1),
		IP4(10, 0, 1, 2),
		IP4(10, 0, 1, 254),
		IP4(10, 0, 0, 255),
		IP4(10, 0, 2, 0),
		IP4(192, 0, 2, 0),
		IP4(192, 0, 2, 1),
		IP4(192, 0, 2, 9),
		IP4(192, 0, 2, 8),
		IP4(192, 0, 2, 255),
		IP4(10, 100, 7, 1),
		IP4(198, 51, 100, 5),
		IP4(198, 51, 100, 6),
		IP4(198, 51, 100, 8),
		IP4(10, 99, 0, 1),
		IP4(255, 255, 255, 255),
		0,
	};

	/* two per /30 or shorter prefix; 10.100.0.0/16 and /24 share none */
	assert_int_equal(st->nb_bcast4, 10);
	for (int i = 1; i < st->nb_bcast4; i++)
		assert_true(st->bcast4[i - 1] < st->bcast4[i]);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!fwd_is_subnet_broadcast(st, yes[i]))
			fail_msg("%08x is a subnet broadcast or network address", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (fwd_is_subnet_broadcast(st, no[i]))
			fail_msg("%08x is not a subnet broadcast or network address", no[i]);
	fwd_state_free(st);

	/* IPv6 only: an empty set answers no */
	st = build(PORTS "interfaces = ( { name = \"lan0\"; port = \"p0\";\n"
			 "  address = \"2001:db8:1::1/64\"; } );\n",
		   NULL);
	assert_int_equal(st->nb_bcast4, 0);
	assert_false(fwd_is_subnet_broadcast(st, 0));
	assert_false(fwd_is_subnet_broadcast(st, IP4(10, 0, 1, 255)));
	fwd_state_free(st);
}

/*
 * ARP input asks whether a sender is on one of the interface's subnets,
 * whose addresses may be IPv6: an IPv6 prefix holds no IPv4 address, and
 * its length (up to 128) must never reach the 32-bit mask's shift (a
 * negative shift is undefined; this file is built with UBSan's shift
 * check, fatal).
 */
static void prefix4_contains(void **state)
{
	struct cfg_prefix p;

	(void)state;
	assert_int_equal(config_parse_prefix("2001:db8:1::1/64", &p), 0);
	assert_false(fwd_prefix4_contains(&p, IP4(10, 0, 1, 2)));
	assert_false(fwd_prefix4_contains(&p, 0));
	assert_int_equal(config_parse_prefix("::/0", &p), 0);
	assert_false(fwd_prefix4_contains(&p, IP4(10, 0, 1, 2)));
	assert_int_equal(config_parse_prefix("2001:db8::1/128", &p), 0);
	assert_false(fwd_prefix4_contains(&p, IP4(32, 1, 13, 184)));

	assert_int_equal(config_parse_prefix("10.0.1.1/24", &p), 0);
	assert_true(fwd_prefix4_contains(&p, IP4(10, 0, 1, 2)));
	assert_true(fwd_prefix4_contains(&p, IP4(10, 0, 1, 255)));
	assert_false(fwd_prefix4_contains(&p, IP4(10, 0, 2, 1)));
	assert_int_equal(config_parse_prefix("10.0.1.1/32", &p), 0);
	assert_true(fwd_prefix4_contains(&p, IP4(10, 0, 1, 1)));
	assert_false(fwd_prefix4_contains(&p, IP4(10, 0, 1, 2)));
	assert_int_equal(config_parse_prefix("0.0.0.0/0", &p), 0);
	assert_true(fwd_prefix4_contains(&p, IP4(192, 0, 2, 1)));
}

static void own_addresses_local(void **state)
{
	(void)state;
	struct fwd_state *st = build(conf_main, NULL);
	uint64_t nh;

	nh = lookup(st, IP4(10, 0, 1, 1));
	assert_int_equal(FIB_NH_KIND(nh), FIB_KIND_LOCAL);
	assert_int_equal(FIB_NH_INDEX(nh), iface_index(st, "lan0"));
	nh = lookup(st, IP4(10, 100, 0, 1));
	assert_int_equal(FIB_NH_KIND(nh), FIB_KIND_LOCAL);
	assert_int_equal(FIB_NH_INDEX(nh), iface_index(st, "line100"));
	nh = lookup(st, IP4(10, 200, 0, 1));
	assert_int_equal(FIB_NH_KIND(nh), FIB_KIND_LOCAL);
	assert_int_equal(FIB_NH_INDEX(nh), iface_index(st, "line200"));
	/* the neighbours of an own address are not local */
	assert_route(st, IP4(10, 0, 1, 2), "lan0", 0);
	assert_int_equal(FIB_NH_KIND(lookup(st, IP4(10, 0, 1, 0))), FIB_KIND_BCAST);
	fwd_state_free(st);
}

static void unknown_destination(void **state)
{
	(void)state;
	struct fwd_state *st = build(conf_main, NULL);
	static const uint32_t none[] = {
		IP4(8, 8, 8, 8),  IP4(0, 0, 0, 0),    IP4(255, 255, 255, 255),
		IP4(10, 0, 2, 1), IP4(172, 17, 0, 1), IP4(198, 20, 0, 1),
	};

	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		uint64_t nh = lookup(st, none[i]);
		assert_int_equal(FIB_NH_KIND(nh), FIB_KIND_NONE);
	}
	fwd_state_free(st);
}

static void longest_prefix_wins(void **state)
{
	(void)state;
	struct fwd_state *st = build(conf_main, NULL);

	assert_route(st, IP4(172, 16, 0, 1), "line100", IP4(10, 100, 0, 2));     /* /16 */
	assert_route(st, IP4(172, 16, 255, 255), "line100", IP4(10, 100, 0, 2)); /* /16 */
	assert_route(st, IP4(172, 16, 4, 255), "line100", IP4(10, 100, 0, 2));   /* /16 */
	assert_route(st, IP4(172, 16, 5, 0), "line200", IP4(10, 200, 0, 2));     /* /24 */
	assert_route(st, IP4(172, 16, 5, 127), "line200", IP4(10, 200, 0, 2));   /* /24 */
	assert_route(st, IP4(172, 16, 5, 128), "lan0", IP4(10, 0, 1, 2));        /* /25 */
	assert_route(st, IP4(172, 16, 5, 255), "lan0", IP4(10, 0, 1, 2));        /* /25 */
	assert_route(st, IP4(172, 16, 6, 0), "line100", IP4(10, 100, 0, 2));     /* /16 */
	fwd_state_free(st);
}

static void default_route(void **state)
{
	(void)state;
	struct fwd_state *st = build(conf_default, NULL);

	assert_route(st, IP4(8, 8, 8, 8), "lan0", IP4(10, 0, 1, 254));
	assert_route(st, IP4(0, 0, 0, 0), "lan0", IP4(10, 0, 1, 254));
	assert_route(st, IP4(255, 255, 255, 255), "lan0", IP4(10, 0, 1, 254));
	assert_route(st, IP4(172, 17, 0, 1), "lan0", IP4(10, 0, 1, 254));
	/* more specific routes still win over the default */
	assert_route(st, IP4(172, 16, 5, 1), "line200", IP4(10, 200, 0, 2));
	assert_route(st, IP4(10, 100, 0, 77), "line100", 0);
	assert_int_equal(FIB_NH_KIND(lookup(st, IP4(10, 0, 1, 1))), FIB_KIND_LOCAL);
	fwd_state_free(st);
}

/*
 * 3000 distinct flows through the ECMP route to @dst: every member is used
 * within ±15% of an even share, and a flow hash always picks the same one.
 */
static void check_ecmp(const struct fwd_state *st, uint32_t dst, int nb, const uint32_t *gws,
		       const char *const *ifnames)
{
	enum { FLOWS = 3000 };
	uint64_t nh = lookup(st, dst);
	unsigned count[CFG_MAX_ECMP] = { 0 };

	assert_int_equal(FIB_NH_KIND(nh), FIB_KIND_ECMP);
	assert_in_range(FIB_NH_INDEX(nh), 0, (uint64_t)st->nb_ecmp - 1);
	const struct fwd_ecmp *e = &st->ecmp[FIB_NH_INDEX(nh)];
	assert_int_equal(e->nb, nb);

	int member_nh[CFG_MAX_ECMP];
	for (int k = 0; k < nb; k++)
		member_nh[k] = nexthop_of(st, ifnames[k], gws[k]);

	for (uint32_t f = 0; f < FLOWS; f++) {
		struct pkt_ipv4 ip = {
			.src = IP4(10, 0, 1, 0) | (f % 250 + 2),
			.dst = dst,
			.sport = (uint16_t)(20000 + f),
			.dport = 4791,
			.proto = IPPROTO_UDP,
		};
		uint32_t h = flow_hash_ipv4(&ip);
		uint32_t idx = fwd_nexthop_select(st, nh, h);
		int k;

		for (k = 0; k < nb; k++)
			if ((int)idx == member_nh[k])
				break;
		assert_true(k < nb); /* always one of the route's gateways */
		count[k]++;
		/* the same flow, the same next hop: no reordering across paths */
		assert_int_equal(fwd_nexthop_select(st, nh, h), idx);
		assert_int_equal(fwd_nexthop_select(st, nh, flow_hash_ipv4(&ip)), idx);
	}
	for (int k = 0; k < nb; k++) {
		print_message("ECMP %d-way: member %d (%s) got %u of %d flows\n", nb, k, ifnames[k],
			      count[k], FLOWS);
		assert_in_range(count[k], FLOWS * 85 / 100 / nb, FLOWS * 115 / 100 / nb);
	}

	/* the extremes of the hash range stay inside the set */
	assert_int_equal(fwd_nexthop_select(st, nh, 0), member_nh[0]);
	assert_int_equal(fwd_nexthop_select(st, nh, 0xffffffff), member_nh[nb - 1]);
}

static void ecmp_two_and_three(void **state)
{
	(void)state;
	struct fwd_state *st = build(conf_main, NULL);
	static const uint32_t gw2[] = { IP4(10, 100, 0, 2), IP4(10, 200, 0, 2) };
	static const char *const if2[] = { "line100", "line200" };
	static const uint32_t gw3[] = { IP4(10, 100, 0, 2), IP4(10, 200, 0, 2), IP4(10, 0, 1, 2) };
	static const char *const if3[] = { "line100", "line200", "lan0" };

	check_ecmp(st, IP4(198, 18, 3, 4), 2, gw2, if2);
	check_ecmp(st, IP4(198, 19, 200, 1), 3, gw3, if3);
	/* two ECMP sets, one per multi-next-hop route (st->ecmp[] has free
	 * slots beyond them for routes FRR adds: FWD_DYN_ECMP) */
	assert_int_equal(fib_ecmp_live(), 2);
	assert_int_equal(st->nb_ecmp, 2 + FWD_DYN_ECMP);
	fwd_state_free(st);
}

static void duplicate_gateways_shared(void **state)
{
	(void)state;
	struct fwd_state *st = build(conf_main, NULL);

	/* 10.100.0.2 is the gateway of 172.16/16, 203.0.113/24 and both ECMP sets */
	uint64_t a = lookup(st, IP4(172, 16, 0, 1));
	uint64_t b = lookup(st, IP4(203, 0, 113, 9));
	assert_int_equal(FIB_NH_KIND(a), FIB_KIND_NEXTHOP);
	assert_int_equal(FIB_NH_KIND(b), FIB_KIND_NEXTHOP);
	assert_int_equal(FIB_NH_INDEX(a), FIB_NH_INDEX(b));

	const struct fwd_ecmp *e2 = &st->ecmp[FIB_NH_INDEX(lookup(st, IP4(198, 18, 0, 1)))];
	const struct fwd_ecmp *e3 = &st->ecmp[FIB_NH_INDEX(lookup(st, IP4(198, 19, 0, 1)))];
	assert_int_equal(e2->nh[0], FIB_NH_INDEX(a));
	assert_int_equal(e3->nh[0], FIB_NH_INDEX(a));
	assert_int_equal(e2->nh[1], e3->nh[1]); /* 10.200.0.2 */
	assert_int_equal(e3->nh[2], FIB_NH_INDEX(lookup(st, IP4(172, 16, 5, 200)))); /* 10.0.1.2 */

	/* no two entries alike; IPv4: 3 connected (one per interface with an
	 * IPv4 address) + 3 gateways (10.100.0.2, 10.200.0.2, 10.0.1.2) */
	int nb_v4 = 0;
	for (int i = 0; i < st->nb_nexthops; i++) {
		const struct fwd_nexthop *a = &st->nexthops[i];
		nb_v4 += a->family == AF_INET;
		if (a->family == 0)
			continue; /* a free slot */
		for (int j = i + 1; j < st->nb_nexthops; j++) {
			const struct fwd_nexthop *b = &st->nexthops[j];
			assert_false(a->family == b->family && a->iface == b->iface &&
				     (a->family == AF_INET ? a->gw == b->gw
							   : memcmp(a->gw6, b->gw6, 16) == 0));
		}
	}
	assert_int_equal(nb_v4, 6);
	fwd_state_free(st);
}

static void slots_survive_rebuild(void **state)
{
	(void)state;
	struct fwd_state *a = build(conf_main, NULL);
	struct fwd_state *b = build(conf_main, a);

	assert_int_equal(b->nb_ifaces, a->nb_ifaces);
	for (int i = 0; i < a->nb_ifaces; i++) {
		int j = iface_index(b, a->ifaces[i].name);
		assert_int_equal(b->ifaces[j].slot, a->ifaces[i].slot);
	}
	/* a new generation that changes the same FIB in place */
	assert_true(b->generation > a->generation);
	assert_ptr_equal(b->vrfs[0].fib, a->vrfs[0].fib);
	assert_true(b->vrfs[0].fib_pending);
	fwd_state_free(a);
	fwd_state_free(b);
}

/*
 * Interfaces keep their slots across a reload that removes one and adds
 * another; the new one gets a slot no interface of the previous state held,
 * so it does not inherit the removed interface's counters.
 */
static void new_interface_fresh_slot(void **state)
{
	(void)state;
	struct fwd_state *a = build(conf_main, NULL);
	struct fwd_state *b = build(conf_renamed, a);

	assert_int_equal(b->ifaces[iface_index(b, "lan0")].slot,
			 a->ifaces[iface_index(a, "lan0")].slot);
	assert_int_equal(b->ifaces[iface_index(b, "line100")].slot,
			 a->ifaces[iface_index(a, "line100")].slot);
	uint16_t fresh = b->ifaces[iface_index(b, "wan9")].slot;
	assert_true(fresh < VBRD_MAX_IFACE_SLOTS);
	for (int i = 0; i < a->nb_ifaces; i++) {
		if (a->ifaces[i].slot == fresh)
			fail_msg("new interface wan9 got slot %u, held by '%s' in the previous "
				 "state",
				 fresh, a->ifaces[i].name);
	}
	fwd_state_free(a);
	fwd_state_free(b);
}

/* conf_main with static neighbors: 10.0.1.2 (IPv4) and 2001:db8:100::2 (IPv6). */
static const char conf_static[] = PORTS IFACES_3
	"routes = (\n" ROUTES_BODY ");\n"
	"neighbors = (\n"
	"  { interface = \"lan0\"; address = \"10.0.1.2\"; mac = \"02:00:00:00:00:0c\"; },\n"
	"  { interface = \"line100\"; address = \"2001:db8:100::2\"; mac = \"02:00:00:00:00:0d\"; "
	"}\n"
	");\n";

static uint64_t mac_of(uint8_t last)
{
	struct rte_ether_addr e = { .addr_bytes = { 0x02, 0, 0, 0, 0, last } };

	return neigh_ether_to_mac(&e);
}

static int nexthop6_of(const struct fwd_state *st, const char *ifname, const uint8_t *gw6)
{
	int want = iface_index(st, ifname);

	for (int i = 0; i < st->nb_nexthops; i++)
		if (st->nexthops[i].family == AF_INET6 && st->nexthops[i].iface == want &&
		    memcmp(st->nexthops[i].gw6, gw6, 16) == 0)
			return i;
	fail_msg("no IPv6 next hop on %s", ifname);
	return -1;
}

/*
 * A state is published with its next hops' MACs in place (reloads must not
 * punt traffic to kept neighbors): static neighbors of its own config, and
 * neighbors the table learned; not a static entry its config dropped.
 */
static void nexthop_macs_at_build(void **state)
{
	(void)state;
	static const uint8_t gw6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, [15] = 2 };
	struct rte_ether_addr e;
	struct neigh *learned, *dropped;

	/* 10.100.0.2 learned by ARP; 10.200.0.2 static in an older config */
	learned = neigh_get(port_ids[1], 100, IP4(10, 100, 0, 2));
	dropped = neigh_get(port_ids[1], 200, IP4(10, 200, 0, 2));
	assert_non_null(learned);
	assert_non_null(dropped);
	neigh_mac_to_ether(mac_of(0x0a), &e);
	neigh_learn(learned, &e, 1000);
	neigh_mac_to_ether(mac_of(0x0b), &e);
	neigh_set_mac(dropped, &e, NEIGH_STATIC);

	struct fwd_state *st = build(conf_static, NULL);
	assert_int_equal(st->nexthops[nexthop_of(st, "lan0", IP4(10, 0, 1, 2))].mac, mac_of(0x0c));
	assert_int_equal(st->nexthops[nexthop_of(st, "line100", IP4(10, 100, 0, 2))].mac,
			 mac_of(0x0a));
	assert_int_equal(st->nexthops[nexthop_of(st, "line200", IP4(10, 200, 0, 2))].mac, 0);
	assert_int_equal(st->nexthops[nexthop6_of(st, "line100", gw6)].mac, mac_of(0x0d));
	/* connected next hops look the destination up per packet */
	assert_int_equal(st->nexthops[nexthop_of(st, "lan0", 0)].mac, 0);
	assert_non_null(
		fwd_static_neigh(st, port_ids[0], 0, AF_INET, &(uint32_t){ IP4(10, 0, 1, 2) }));
	assert_null(
		fwd_static_neigh(st, port_ids[1], 200, AF_INET, &(uint32_t){ IP4(10, 200, 0, 2) }));
	fwd_state_free(st);

	/* without the static entries, only the learned MAC remains */
	st = build(conf_main, NULL);
	assert_int_equal(st->nexthops[nexthop_of(st, "lan0", IP4(10, 0, 1, 2))].mac, 0);
	assert_int_equal(st->nexthops[nexthop_of(st, "line100", IP4(10, 100, 0, 2))].mac,
			 mac_of(0x0a));
	fwd_state_free(st);

	neigh_invalidate(learned, NEIGH_FAILED);
	neigh_invalidate(dropped, NEIGH_FAILED);
}

/*
 * test_fwd [--only PATTERN | --skip PATTERN]: run only, or all but, the
 * tests whose names match (cmocka test filter). meson.build uses this to
 * keep a known bug's test apart as an expected failure.
 */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interfaces_built),
		cmocka_unit_test(connected_subnets),
		cmocka_unit_test(subnet_broadcasts),
		cmocka_unit_test(prefix4_contains),
		cmocka_unit_test(own_addresses_local),
		cmocka_unit_test(unknown_destination),
		cmocka_unit_test(longest_prefix_wins),
		cmocka_unit_test(default_route),
		cmocka_unit_test(ecmp_two_and_three),
		cmocka_unit_test(duplicate_gateways_shared),
		cmocka_unit_test(slots_survive_rebuild),
		cmocka_unit_test(new_interface_fresh_slot),
		cmocka_unit_test(nexthop_macs_at_build),
	};

	if (argc == 3 && strcmp(argv[1], "--only") == 0) {
		cmocka_set_test_filter(argv[2]);
	} else if (argc == 3 && strcmp(argv[1], "--skip") == 0) {
		cmocka_set_skip_filter(argv[2]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--only PATTERN | --skip PATTERN]\n", argv[0]);
		return 2;
	}
	return cmocka_run_group_tests_name("fwd", tests, eal_setup, eal_teardown);
}
