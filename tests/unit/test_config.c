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
#include "qos/qos_config.h"

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

/* Index of the message starting with "PATH:LINE: " and holding @phrase, or -1.
 * Messages about the whole file (@p line 0) name its line 1. */
static int find_msg(const struct config_errors *errs, const char *path, int line,
		    const char *phrase)
{
	char prefix[256];
	int i;

	snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line > 0 ? line : 1);
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
		"../../conf/examples/qos-four-businesses.conf",
		"../../conf/examples/qos-roce-tcp.conf",
		"../../conf/examples/failover-two-lines.conf",
		"../../conf/examples/pathsel.conf",
		"../../conf/examples/bgp-frr.conf",
		"../../conf/examples/two-vpc.conf",
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

/* ---- QoS (qos/qos_config.c) ------------------------------------------------ */

static void assert_queue(const struct qos_queue_conf *q, const char *name, enum qos_queue_type type,
			 uint32_t percent, uint32_t limit)
{
	assert_string_equal(q->name, name);
	assert_int_equal(q->type, type);
	assert_int_equal(q->percent, percent);
	assert_int_equal(q->limit, limit);
}

static void qos_good_config(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	const struct qos_config *q;
	const struct qos_policy_conf *pol;
	const struct qos_business_conf *b;
	const struct qos_class_conf *c;
	const struct qos_line_conf *l;

	(void)state;
	assert_int_equal(config_load("configs/qos-good.conf", &cfg, &errs), 0);
	assert_int_equal(errs.count, 0);
	q = qos_config_get(&cfg);
	assert_non_null(q);
	assert_int_equal(q->nb_policies, 2);
	assert_int_equal(q->nb_lines, 3);

	pol = &q->policies[0];
	assert_string_equal(pol->name, "edge");
	assert_int_equal(pol->line, 14);
	assert_int_equal(pol->nb_businesses, 2);
	assert_int_equal(pol->default_business, 1);

	/* percents in ppm; priority queues first, then weighted, then the default
	 * vbrd adds with what the weighted ones leave (100 - 60 - 15) */
	b = &pol->businesses[0];
	assert_string_equal(b->name, "inference");
	assert_int_equal(b->line, 17);
	assert_true(b->guaranteed.set);
	assert_int_equal(b->guaranteed.ppm, 300000);
	assert_int_equal(b->guaranteed.bps, 0);
	assert_int_equal(b->ceiling.ppm, 1000000);
	assert_int_equal(b->priority, 0);
	assert_false(b->policer.set);
	assert_int_equal(b->nb_prio, 2);
	assert_int_equal(b->nb_weighted, 2);
	assert_int_equal(b->nb_queues, 5);
	assert_queue(&b->queues[0], "high", QOS_QUEUE_PRIORITY, 0, QOS_DEFAULT_QUEUE_LIMIT);
	assert_true(b->queues[0].cap.set);
	assert_int_equal(b->queues[0].cap.bps, 10000000);
	assert_int_equal(b->queues[0].cap.ppm, 0);
	assert_int_equal(b->queues[0].line, 19);
	assert_queue(&b->queues[1], "low", QOS_QUEUE_PRIORITY, 0, 64);
	assert_int_equal(b->queues[1].cap.ppm, 125000);
	assert_queue(&b->queues[2], "m1", QOS_QUEUE_WEIGHTED, 60, 128);
	assert_false(b->queues[2].cap.set);
	assert_queue(&b->queues[3], "m2", QOS_QUEUE_WEIGHTED, 15, QOS_DEFAULT_QUEUE_LIMIT);
	assert_queue(&b->queues[4], "default", QOS_QUEUE_DEFAULT, 25, QOS_DEFAULT_QUEUE_LIMIT);
	assert_int_equal(b->queues[4].line, 17); /* the business's */

	b = &pol->businesses[1];
	assert_string_equal(b->name, "bulk");
	assert_int_equal(b->guaranteed.bps, 20000000);
	assert_int_equal(b->guaranteed.ppm, 0);
	assert_int_equal(b->ceiling.bps, 1500000000);
	assert_int_equal(b->priority, QOS_DEFAULT_PRIORITY);
	assert_true(b->policer.set);
	assert_int_equal(b->policer.mode, QOS_METER_SRTCM);
	assert_int_equal(b->policer.cir_bps, 50000000);
	assert_int_equal(b->policer.eir_bps, 0);
	assert_int_equal(b->policer.cbs, 9018);
	assert_int_equal(b->policer.ebs, 18036);
	assert_int_equal(b->policer.yellow_dscp, 10);
	assert_int_equal(b->policer.line, 23);
	assert_int_equal(b->nb_prio, 0);
	assert_int_equal(b->nb_weighted, 1);
	assert_int_equal(b->nb_queues, 2);
	assert_queue(&b->queues[0], "w", QOS_QUEUE_WEIGHTED, 60, QOS_DEFAULT_QUEUE_LIMIT);
	assert_queue(&b->queues[1], "rest", QOS_QUEUE_DEFAULT, 40, QOS_DEFAULT_QUEUE_LIMIT);
	assert_int_equal(b->queues[1].line, 24);

	/* classes sorted by priority: ssh (5), v6 (10), roce (20), ef (30) */
	assert_int_equal(pol->nb_classes, 4);
	c = &pol->classes[0];
	assert_string_equal(c->name, "ssh");
	assert_int_equal(c->priority, 5);
	assert_int_equal(c->line, 32);
	assert_int_equal(c->match.family, 0);
	assert_int_equal(c->match.protocol, 6);
	assert_false(c->match.has_src);
	assert_false(c->match.has_dst);
	assert_int_equal(c->match.sport_lo, 1000);
	assert_int_equal(c->match.sport_hi, 2000);
	assert_int_equal(c->match.dport_lo, 0);
	assert_int_equal(c->match.dport_hi, 65535);
	assert_int_equal(c->match.dscp_lo, -1);
	assert_int_equal(c->match.dscp_hi, -1);
	assert_int_equal(c->match.ingress, 0);
	assert_int_equal(c->match.pcp, 3);
	assert_int_equal(c->business, 1);
	assert_int_equal(c->queue, 1); /* bulk's default queue, "rest" */
	assert_int_equal(c->set_dscp, -1);
	assert_int_equal(c->tier, CFG_TIER_GOLD);
	assert_false(c->policer.set);

	c = &pol->classes[1];
	assert_string_equal(c->name, "v6");
	assert_int_equal(c->priority, 10);
	assert_int_equal(c->match.family, AF_INET6);
	assert_int_equal(c->match.protocol, 58);
	assert_false(c->match.has_src);
	assert_true(c->match.has_dst);
	assert_prefix(&c->match.dst, "2001:db8::/32");
	assert_int_equal(c->match.dscp_lo, 46);
	assert_int_equal(c->match.dscp_hi, 46);
	assert_int_equal(c->match.ingress, -1);
	assert_int_equal(c->match.pcp, -1);
	assert_int_equal(c->business, 0);
	assert_int_equal(c->queue, 4); /* inference's default queue */
	assert_int_equal(c->tier, CFG_TIER_BRONZE);
	assert_int_equal(c->policer.mode, QOS_METER_RFC4115);
	assert_int_equal(c->policer.cir_bps, 1000000);
	assert_int_equal(c->policer.cbs, 10000);
	assert_int_equal(c->policer.eir_bps, 2000000);
	assert_int_equal(c->policer.ebs, 20000);
	assert_int_equal(c->policer.yellow_dscp, -1);

	c = &pol->classes[2];
	assert_string_equal(c->name, "roce");
	assert_int_equal(c->priority, 20);
	assert_int_equal(c->line, 28);
	assert_int_equal(c->match.family, AF_INET);
	assert_int_equal(c->match.protocol, 17);
	assert_prefix(&c->match.src, "10.0.0.0/8");
	assert_prefix(&c->match.dst, "10.9.0.0/16");
	assert_int_equal(c->match.sport_lo, 0);
	assert_int_equal(c->match.sport_hi, 65535);
	assert_int_equal(c->match.dport_lo, 4791);
	assert_int_equal(c->match.dport_hi, 4791);
	assert_int_equal(c->match.dscp_lo, 24);
	assert_int_equal(c->match.dscp_hi, 31);
	assert_int_equal(c->business, 0);
	assert_int_equal(c->queue, 0); /* "high" */
	assert_int_equal(c->set_dscp, 26);
	assert_int_equal(c->tier, CFG_TIER_SILVER);
	assert_true(c->policer.set);
	assert_int_equal(c->policer.mode, QOS_METER_TRTCM); /* the default */
	assert_int_equal(c->policer.cir_bps, 20000000);
	assert_int_equal(c->policer.cbs, 16000);
	assert_int_equal(c->policer.eir_bps, 40000000);
	assert_int_equal(c->policer.ebs, 32000);
	assert_int_equal(c->policer.line, 31);

	/* no protocol, no prefix, no port: any protocol (not protocol 0, which
	 * a zeroed class held until vm/load's latency profile found it) */
	c = &pol->classes[3];
	assert_string_equal(c->name, "ef");
	assert_int_equal(c->match.family, 0);
	assert_int_equal(c->match.protocol, -1);
	assert_int_equal(c->match.dscp_lo, 46);
	assert_int_equal(c->match.dscp_hi, 46);
	assert_int_equal(c->match.ingress, -1);
	assert_int_equal(c->match.vrf, -1);
	assert_int_equal(c->match.pcp, -1);

	/* one business: it is the default; no queues: one default queue of 100% */
	pol = &q->policies[1];
	assert_string_equal(pol->name, "simple");
	assert_int_equal(pol->nb_businesses, 1);
	assert_int_equal(pol->default_business, 0);
	assert_int_equal(pol->nb_classes, 0);
	assert_null(pol->classes);
	b = &pol->businesses[0];
	assert_int_equal(b->guaranteed.ppm, 1000000);
	assert_false(b->ceiling.set);
	assert_int_equal(b->priority, QOS_DEFAULT_PRIORITY);
	assert_int_equal(b->nb_queues, 1);
	assert_queue(&b->queues[0], QOS_DEFAULT_QUEUE_NAME, QOS_QUEUE_DEFAULT, 100,
		     QOS_DEFAULT_QUEUE_LIMIT);

	l = &q->lines[0];
	assert_int_equal(l->iface, 1);
	assert_int_equal(l->policy, 0);
	assert_int_equal(l->rate_bps, 2500000000ULL);
	assert_int_equal(l->overhead, 20);
	assert_int_equal(l->burst, 30000);
	assert_int_equal(l->line, 43);
	assert_true(l->has_pcp_map);
	for (int d = 0; d < 64; d++) {
		int want = d == 46 ? 5 : d == 8 || d == 16 ? 1 : d >= 32 && d <= 39 ? 4 : -1;

		assert_int_equal(l->dscp_to_pcp[d], want);
	}
	/* the rates of policy "edge" on this 2.5G line; an unset rate is 0 */
	b = q->policies[0].businesses;
	assert_int_equal(qos_rate_bps(&b[0].guaranteed, l->rate_bps), 750000000);
	assert_int_equal(qos_rate_bps(&b[0].queues[1].cap, l->rate_bps), 312500000);
	assert_int_equal(qos_rate_bps(&b[1].guaranteed, l->rate_bps), 20000000);
	assert_int_equal(qos_rate_bps(&q->policies[1].businesses[0].ceiling, l->rate_bps), 0);

	l = &q->lines[1];
	assert_int_equal(l->iface, 2);
	assert_int_equal(l->policy, 0);
	assert_int_equal(l->rate_bps, 10000000000ULL);
	assert_int_equal(l->overhead, QOS_DEFAULT_OVERHEAD);
	assert_int_equal(l->burst, 0);
	assert_false(l->has_pcp_map);
	for (int d = 0; d < 64; d++)
		assert_int_equal(l->dscp_to_pcp[d], -1);
	l = &q->lines[2];
	assert_int_equal(l->iface, 0);
	assert_int_equal(l->policy, 1);
	assert_int_equal(l->rate_bps, 1000000000);

	config_free(&cfg);
	assert_null(qos_config_get(&cfg));
	config_errors_free(&errs);

	/* no "qos": no section data */
	assert_int_equal(config_load("configs/minimal.conf", &cfg, NULL), 0);
	assert_null(qos_config_get(&cfg));
	config_free(&cfg);
}

static void assert_rate(const char *s, bool percent_ok, uint64_t bps, uint32_t ppm)
{
	struct qos_rate r = { 0 };
	const char *why = "unset";

	if (qos_parse_rate(s, percent_ok, &r, &why) != 0)
		fail_msg("'%s' did not parse: %s", s, why);
	assert_true(r.set);
	assert_int_equal(r.bps, bps);
	assert_int_equal(r.ppm, ppm);
}

/* @p s is refused, and the reason holds @p phrase. */
static void assert_bad_rate(const char *s, bool percent_ok, const char *phrase)
{
	struct qos_rate r = { .bps = 7 };
	const char *why = NULL;

	if (qos_parse_rate(s, percent_ok, &r, &why) != -EINVAL)
		fail_msg("'%s' parsed as a rate", s ? s : "(null)");
	assert_non_null(why);
	if (strstr(why, phrase) == NULL)
		fail_msg("'%s': '%s' does not say '%s'", s, why, phrase);
	assert_int_equal(r.bps, 7); /* untouched */
}

static void assert_format(uint64_t bps, uint32_t ppm, const char *want)
{
	struct qos_rate r = { .bps = bps, .ppm = ppm, .set = true }, back;
	char buf[32];

	assert_string_equal(qos_format_rate(&r, buf, sizeof(buf)), want);
	/* what it writes reads back the same */
	assert_int_equal(qos_parse_rate(buf, true, &back, NULL), 0);
	assert_int_equal(back.bps, bps);
	assert_int_equal(back.ppm, ppm);
}

static void qos_rates(void **state)
{
	struct qos_rate unset = { 0 };
	char buf[32];

	(void)state;
	assert_rate("1.5G", false, 1500000000, 0);
	assert_rate("12.5%", true, 0, 125000);
	assert_rate("100%", true, 0, 1000000);
	assert_rate("0.0001%", true, 0, 1);
	assert_rate("100M", false, 100000000, 0);
	assert_rate("800k", false, 800000, 0);
	assert_rate("800K", false, 800000, 0);
	assert_rate("400G", false, QOS_MAX_RATE, 0);
	assert_rate("0.4T", false, QOS_MAX_RATE, 0);
	assert_rate("1.000001M", false, 1000001, 0);
	assert_rate("2.50000000G", false, 2500000000ULL, 0); /* trailing zeros are exact */
	assert_rate("1", false, 1, 0);
	assert_rate("0.5k", false, 500, 0);
	assert_rate("100000000", true, 100000000, 0); /* digits alone are bits/s */

	assert_bad_rate("0", false, "above 0");
	assert_bad_rate("0%", true, "above 0");
	assert_bad_rate("0.0G", false, "above 0");
	assert_bad_rate("-1M", false, "not a rate");
	assert_bad_rate("10X", false, "not a rate");
	assert_bad_rate("101%", true, "above 100%");
	assert_bad_rate("100.01%", true, "above 100%");
	assert_bad_rate("", true, "not a rate");
	assert_bad_rate(NULL, true, "not a rate");
	assert_bad_rate("1e9", false, "not a rate");
	assert_bad_rate("12.5%", false, "a percent");
	assert_bad_rate("2T", false, "above 400G");
	assert_bad_rate("400000000001", false, "above 400G");
	assert_bad_rate("99999999999999999999999G", false, "above 400G");
	assert_bad_rate("1.5", false, "whole number of bits/s");
	assert_bad_rate("1.0000005M", false, "whole number of bits/s");
	assert_bad_rate("0.00001%", true, "finer than 0.0001%");
	assert_bad_rate("1.G", false, "not a rate");
	assert_bad_rate(".5G", false, "not a rate");
	assert_bad_rate("5m", false, "not a rate"); /* milli: no */
	assert_bad_rate("5g", false, "not a rate");
	assert_bad_rate(" 1M", false, "not a rate");
	assert_bad_rate("1M ", false, "not a rate");
	assert_bad_rate("1MM", false, "not a rate");
	assert_bad_rate("1 M", false, "not a rate");
	assert_bad_rate("+1M", false, "not a rate");
	assert_bad_rate("1%%", true, "not a rate");

	assert_format(1500000000, 0, "1.5G");
	assert_format(0, 125000, "12.5%");
	assert_format(0, 1000000, "100%");
	assert_format(0, 1, "0.0001%");
	assert_format(800000, 0, "800k");
	assert_format(999, 0, "999");
	assert_format(1000001, 0, "1.000001M");
	assert_format(QOS_MAX_RATE, 0, "400G");
	assert_format(1000000000000ULL / 4, 0, "250G");
	assert_string_equal(qos_format_rate(&unset, buf, sizeof(buf)), "-");
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
	{ "syntax.conf", 5, "syntax error" },
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
	{ "qos-dup-priority.conf", 9,
	  "qos.policies[0].classes[2].priority: duplicate class priority 10 in policy 'edge' "
	  "(first at line 7: class 'web')" },
	{ "qos-unknown-business.conf", 8,
	  "qos.policies[0].classes[0].business: unknown business 'b' in policy 'edge'" },
	{ "qos-queue-other-business.conf", 11,
	  "qos.policies[0].classes[0].queue: queue 'high' is in business 'a', not in 'b'" },
	{ "qos-small-cbs.conf", 7,
	  "qos.policies[0].businesses[0].policer.cbs: 1000 bytes is below the 1518-byte frames "
	  "interface 'line1' sends" },
	{ "qos-pcp-untagged.conf", 6,
	  "qos.interfaces[0].dscp_to_pcp: interface 'lan0' is untagged: only a VLAN interface" },
	{ "qos-guarantees.conf", 5,
	  "qos.policies[0].businesses: the guarantees of policy 'edge' add up to 110%, more than "
	  "100%" },
	{ "qos-ports-proto.conf", 8,
	  "qos.policies[0].classes[0].dst_port: a port needs protocol tcp, udp or sctp, not 47 "
	  "(gre)" },
	{ "qos-family.conf", 8,
	  "qos.policies[0].classes[0].destination: 2001:db8::/32 is IPv6 but the source "
	  "10.0.0.0/8 is IPv4" },
	{ "qos-unknown-member.conf", 7,
	  "unknown setting 'qos.policies[0].businesses[0].queues[0].weight'" },
	{ "qos-rate-above-line.conf", 7,
	  "qos.interfaces[0].rate: 100M is below the guaranteed 200M of business 'a' (line 5) in "
	  "policy 'edge'" },
	{ "qos-mbufs.conf", 7,
	  "qos.interfaces: the queues of these 2 lines hold up to 512 packets, more than half of "
	  "mempool.mbufs (1023): raise mempool.mbufs or lower queue limits" },
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

/* A qos section with several mistakes: every one is reported, sorted by line. */
static void qos_several_errors(void **state)
{
	static const struct err_case want[] = {
		{ NULL, 4, "qos.policies[0]: missing required setting 'default_business'" },
		{ NULL, 6, "businesses[0].guaranteed: '10X': not a rate" },
		{ NULL, 7, "businesses[1]: missing required setting 'guaranteed'" },
		{ NULL, 8, "queues[0].cap: only a priority queue has a cap" },
		{ NULL, 10, "classes[0].dscp: '20-10' is not a DSCP 0..63 or a range" },
		{ NULL, 10, "classes[0].tier: unknown tier 'platinum'" },
		{ NULL, 12, "qos.interfaces[0].interface: unknown interface 'nope'" },
		{ NULL, 12, "qos.interfaces[0].rate: 500 is below 1k" },
		{ NULL, 12, "qos.interfaces[0].overhead: 65 is out of range 0..64" },
	};
	const char *path = "configs/qos-several.conf";
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
}

/* Queues' ecn groups: a step, a ramp, and each mistake at its line. */
static void qos_ecn_config(void **state)
{
	static const struct err_case want[] = {
		{ NULL, 7, "ecn.mode: unknown ECN mode 'red' (step or ramp)" },
		{ NULL, 8, "ecn.min_us: only ECN mode \"ramp\" takes min_us" },
		{ NULL, 8, "missing required setting 'threshold_us'" },
		{ NULL, 9, "ecn.max_us: 20 µs is not above min_us (80 µs)" },
		{ NULL, 10, "ecn.max_probability: want a percent" },
		{ NULL, 11, "ecn.threshold_us: 0 is out of range 1..1000000" },
		{ NULL, 12, "missing required setting 'mode'" },
		{ NULL, 13, "ecn.max_probability: want a percent" },
		/* priority queues (q9, q10) come first; 4625 bytes: below what 4
		 * packets hold (6152), above 3 (the most a packet finds ahead) */
		{ NULL, 18,
		  "qos.interfaces[0].rate: on this 1G line the ECN threshold of 37 µs of "
		  "queue 'q9' (line 15) of business 'a' in policy 'edge' is 4625 bytes, more "
		  "than the 4614 that its 4 packets of 1538 bytes (overhead counted) can have "
		  "ahead of one: it would never mark" },
		{ NULL, 18,
		  "qos.interfaces[0].rate: on this 1G line the ECN max_us of 40 µs of "
		  "queue 'q10' (line 16) of business 'a' in policy 'edge' is 5000 bytes, more "
		  "than the 4614 that its 4 packets of 1538 bytes (overhead counted) can have "
		  "ahead of one: it would never reach max_probability" },
		{ NULL, 18,
		  "qos.interfaces[0].rate: on this 1G line the ECN threshold of 50 µs of "
		  "queue 'q8' (line 14) of business 'a' in policy 'edge' is 6250 bytes, more "
		  "than the 4614 that its 4 packets of 1538 bytes (overhead counted) can have "
		  "ahead of one: it would never mark" },
	};
	const char *path = "configs/qos-ecn-bad.conf";
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(config_load("configs/qos-ecn.conf", &cfg, &errs), 0);
	const struct qos_business_conf *b = &qos_config_get(&cfg)->policies[0].businesses[0];
	const struct qos_queue_conf *roce = &b->queues[0], *dctcp = &b->queues[1];
	assert_string_equal(roce->name, "roce");
	assert_int_equal(roce->ecn.mode, QOS_ECN_RAMP);
	assert_int_equal(roce->ecn.min_us, 20);
	assert_int_equal(roce->ecn.max_us, 80);
	assert_int_equal(roce->ecn.max_ppm, 125000);
	assert_int_equal(roce->ecn.line, 10);
	assert_string_equal(dctcp->name, "dctcp");
	assert_int_equal(dctcp->ecn.mode, QOS_ECN_STEP);
	assert_int_equal(dctcp->ecn.min_us, 100);
	assert_int_equal(dctcp->ecn.max_us, 100);
	assert_int_equal(b->queues[2].ecn.mode, QOS_ECN_OFF); /* the default queue added */
	config_free(&cfg);

	assert_int_equal(load_bad(path, &errs), -EINVAL);
	if (errs.count != (int)(sizeof(want) / sizeof(want[0])))
		config_errors_print(&errs, stderr);
	assert_int_equal(errs.count, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(find_msg(&errs, path, want[i].line, want[i].phrase), (int)i);
	config_errors_free(&errs);
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
/* a hang guard: include_size_bound reads 256 MiB, more than 5 s on a loaded host */
#define LOAD_TIMEOUT_S 20

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
		find_msg(&errs, top, 6, "instance: 'a\\n@include \"fifo\"\\n' is not a valid"), 0);
	/* the value's newlines escaped: one message, one line */
	assert_null(strchr(errs.msgs[0], '\n'));
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
		cmocka_unit_test(qos_good_config),
		cmocka_unit_test(qos_rates),
		cmocka_unit_test(qos_several_errors),
		cmocka_unit_test(qos_ecn_config),
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
		ERROR_TEST(36),
		ERROR_TEST(37),
		ERROR_TEST(38),
		ERROR_TEST(39),
		ERROR_TEST(40),
		ERROR_TEST(41),
		ERROR_TEST(42),
		ERROR_TEST(43),
		ERROR_TEST(44),
		ERROR_TEST(45),
		ERROR_TEST(46),
	};

	_Static_assert(sizeof(cases) / sizeof(cases[0]) == 47, "register every case in main()");
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
