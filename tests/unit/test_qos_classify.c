/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of QoS classification (qos/classify.c, qos/classify_frame.h):
 * policies built from qos_policy_conf structs filled here (no config
 * parser), frames crafted into mbufs, the class each one gets; and the
 * marking (DSCP with the IPv4 checksum, IPv6 traffic class, 802.1p PCP).
 *
 * rte_acl and the mbuf pool live in EAL memory: the group setup starts an
 * EAL without hugepages, PCI, shared config or telemetry, and no ports
 * (m->port is set by hand; the classifier only compares port ids).
 */
#include <arpa/inet.h>
#include <inttypes.h>
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
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "qos/classify.h"
#include "qos/classify_frame.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static struct rte_mempool *pool;

/* ---- the configuration around a policy ------------------------------------ */

/* DPDK port ids of config ports 0 and 1: not 0 and 1, and not equal when
 * byte-swapped, so that a key in the wrong byte order cannot match */
static const uint16_t port_ids[2] = { 3, 7 };
static struct cfg_port ports[2] = { { .name = "p0" }, { .name = "p1" } };
/* lan0 untagged on p0, line100 and line200 tagged on p1; line200 in VRF 1 */
static struct cfg_iface ifaces[3] = {
	{ .name = "lan0", .port = 0, .vlan = 0 },
	{ .name = "line100", .port = 1, .vlan = 100 },
	{ .name = "line200", .port = 1, .vlan = 200, .vrf = 1 },
};
static const struct vbrd_config cfg = {
	.nb_ports = 2,
	.ports = ports,
	.nb_ifaces = 3,
	.ifaces = ifaces,
};

/* A class that matches everything, priority @p prio. */
static struct qos_class_conf any_class(uint32_t prio)
{
	struct qos_class_conf c = {
		.priority = prio,
		.match = {
			.family = 0,
			.protocol = -1,
			.sport_lo = 0, .sport_hi = 65535,
			.dport_lo = 0, .dport_hi = 65535,
			.dscp_lo = -1, .dscp_hi = -1,
			.ingress = -1,
			.vrf = -1,
			.pcp = -1,
		},
		.set_dscp = -1,
	};

	snprintf(c.name, sizeof(c.name), "c%u", prio);
	return c;
}

static void prefix4(struct cfg_prefix *p, uint32_t host, uint8_t len)
{
	p->addr.family = AF_INET;
	p->addr.v4 = host;
	p->len = len;
}

static void prefix6(struct cfg_prefix *p, const char *s, uint8_t len)
{
	p->addr.family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, s, p->addr.v6), 1);
	p->len = len;
}

/* classifiers built: a new one may reuse a freed one's address */
static unsigned builds;

/* Build a classifier over @p n classes (in the order given), unique name. */
static struct qos_classifier *build(struct qos_class_conf *classes, int n)
{
	static int seq;
	struct qos_policy_conf pol = { .name = "edge", .nb_classes = n, .classes = classes };
	char name[32], err[256] = "";
	struct qos_classifier *c;

	snprintf(name, sizeof(name), "qos-t%d", seq++);
	builds++; /* classify_checked()'s cache starts again */
	c = qos_classifier_build(&cfg, &pol, port_ids, name, err, sizeof(err));
	if (c == NULL)
		fail_msg("qos_classifier_build: %s", err);
	return c;
}

/* ---- frames ----------------------------------------------------------------- */

/* protocol 0 (IPv6 hop-by-hop options) in a struct pkt, where 0 is UDP */
#define PROTO_0 0x100

struct frame {
	uint8_t b[256];
	uint32_t len;
};

/* What to put in a frame; zero fields take the defaults below. */
struct pkt {
	int family; /* 4 (default) or 6; 0x0806 for ARP */
	bool tagged;
	uint16_t tag;        /* egress TCI when tagged */
	uint16_t proto;      /* default UDP; PROTO_0 for protocol 0 */
	uint32_t src4, dst4; /* host order */
	const char *src6, *dst6;
	uint16_t sport, dport;
	uint8_t tos;     /* IPv4 TOS or IPv6 traffic class */
	uint32_t flow;   /* IPv6 flow label */
	uint16_t frag;   /* IPv4 flags and fragment offset, host order */
	uint8_t ihl;     /* IPv4 header words, default 5 */
	uint16_t l4_len; /* bytes after the IP header, default 8 */
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* RFC 1071 over @p len bytes, big-endian words; the value to store. */
static uint16_t ref_checksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static struct frame frame_of(struct pkt k)
{
	struct frame f = { .len = 0 };
	uint8_t *p = f.b, *ip;
	uint32_t l2 = k.tagged ? 18 : 14, hl;

	memcpy(p, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (k.tagged) {
		put16(p + 12, 0x8100);
		put16(p + 14, k.tag);
	}
	if (k.family == 0)
		k.family = 4;
	if (k.proto == 0)
		k.proto = IPPROTO_UDP;
	if (k.l4_len == 0)
		k.l4_len = 8;
	ip = p + l2;
	if (k.family == 0x0806) {
		put16(p + l2 - 2, 0x0806);
		memset(ip, 0x11, 28); /* an ARP body, shaped like nothing else */
		f.len = l2 + 28;
		return f;
	}
	if (k.family == 4) {
		if (k.ihl == 0)
			k.ihl = 5;
		hl = k.ihl * 4u;
		put16(p + l2 - 2, 0x0800);
		ip[0] = (uint8_t)(0x40 | k.ihl);
		ip[1] = k.tos;
		put16(ip + 2, (uint16_t)(hl + k.l4_len));
		put16(ip + 4, 0x1234);
		put16(ip + 6, k.frag);
		ip[8] = 64;
		ip[9] = (uint8_t)k.proto;
		put32(ip + 12, k.src4);
		put32(ip + 16, k.dst4);
		memset(ip + 20, 1, hl - 20); /* NOP options */
		put16(ip + 10, ref_checksum(ip, hl));
	} else {
		hl = 40;
		put16(p + l2 - 2, 0x86dd);
		put32(ip, 6u << 28 | (uint32_t)k.tos << 20 | (k.flow & 0xfffff));
		put16(ip + 4, k.l4_len);
		ip[6] = (uint8_t)k.proto;
		ip[7] = 64;
		assert_int_equal(inet_pton(AF_INET6, k.src6 ? k.src6 : "2001:db8::1", ip + 8), 1);
		assert_int_equal(inet_pton(AF_INET6, k.dst6 ? k.dst6 : "2001:db8::2", ip + 24), 1);
	}
	put16(ip + hl, k.sport);
	put16(ip + hl + 2, k.dport);
	memset(ip + hl + 4, 0x5a, k.l4_len - 4u);
	f.len = l2 + hl + k.l4_len;
	assert_true(f.len <= sizeof(f.b));
	return f;
}

/* An mbuf holding @p f, of which the first @p len bytes are data. */
static struct rte_mbuf *mbuf_of(const struct frame *f, uint32_t len, uint16_t port, uint16_t tci)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), f->b, f->len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->port = port;
	m->vlan_tci = tci;
	return m;
}

/*
 * qos_classify_burst(), checked against the cached path the data path
 * takes (qos_classify_burst_ip() with a line's cache, qos_worker.c): cold,
 * then warm, the same classes; and each IP header where the frame has it.
 * The cache is emptied whenever the classifier changes, as a reload gives
 * each line a new one.
 */
static void classify_checked(const struct qos_classifier *c, struct rte_mbuf **m, unsigned n,
			     uint32_t *cls)
{
	static struct qos_classify_cache cc;
	static const struct qos_classifier *cached;
	static unsigned cached_build;
	uint32_t got[128];
	uint8_t ip[128];

	qos_classify_burst(c, m, n, cls);
	if (c != cached || builds != cached_build) {
		memset(&cc, 0, sizeof(cc));
		cached = c;
		cached_build = builds;
	}
	for (unsigned at = 0; at < n; at += 128) {
		unsigned k = RTE_MIN(n - at, 128u);
		for (int round = 0; round < 2; round++) {
			uint64_t misses = cc.misses;
			qos_classify_burst_ip(c, &cc, m + at, k, got, ip);
			for (unsigned i = 0; i < k; i++) {
				if (got[i] != cls[at + i])
					fail_msg("cached (%s) packet %u: class %u, rte_acl's %u",
						 round ? "warm" : "cold", at + i, got[i],
						 cls[at + i]);
				assert_int_equal(
					ip[i], qos_frame_ip_byte(
						       rte_pktmbuf_mtod(m[at + i], const uint8_t *),
						       m[at + i]->data_len));
			}
			if (round == 1)
				assert_int_equal(cc.misses, misses); /* warm: all hits */
		}
	}
}

/* The class of one frame that came in on DPDK port @p port with TCI @p tci. */
static uint32_t classify(const struct qos_classifier *c, struct pkt k, uint16_t port, uint16_t tci)
{
	struct frame f = frame_of(k);
	struct rte_mbuf *m = mbuf_of(&f, f.len, port, tci);
	uint32_t cls = ~0u;

	classify_checked(c, &m, 1, &cls);
	rte_pktmbuf_free(m);
	return cls;
}

#define UDP4(d, dp) ((struct pkt){ .dst4 = (d), .dport = (dp), .src4 = IP4(10, 0, 0, 1) })
#define ON_LAN      port_ids[0], 0
#define ON_LINE(v)  port_ids[1], (v)

/* ---- classification ------------------------------------------------------- */

/* Two overlapping classes: the lower priority number wins, whatever the order. */
static void priority_order(void **state)
{
	(void)state;
	struct qos_class_conf cl[2];
	struct qos_classifier *c;

	/* sorted: roce (10) before udp (20) */
	cl[0] = any_class(10);
	cl[0].match.protocol = IPPROTO_UDP;
	cl[0].match.dport_lo = cl[0].match.dport_hi = 4791;
	cl[1] = any_class(20);
	cl[1].match.protocol = IPPROTO_UDP;
	c = build(cl, 2);
	assert_int_equal(classify(c, UDP4(IP4(192, 0, 2, 1), 4791), ON_LAN), 1);
	assert_int_equal(classify(c, UDP4(IP4(192, 0, 2, 1), 4790), ON_LAN), 2);
	qos_classifier_free(c);

	/* the same classes listed the other way round: still priority 10 */
	struct qos_class_conf tmp = cl[0];
	cl[0] = cl[1];
	cl[1] = tmp;
	c = build(cl, 2);
	assert_int_equal(classify(c, UDP4(IP4(192, 0, 2, 1), 4791), ON_LAN), 2);
	assert_int_equal(classify(c, UDP4(IP4(192, 0, 2, 1), 4790), ON_LAN), 1);
	qos_classifier_free(c);

	/* overlapping prefixes: the /16 has the lower number and takes its /24 too */
	cl[0] = any_class(1);
	prefix4(&cl[0].match.dst, IP4(172, 16, 0, 0), 16);
	cl[0].match.has_dst = true;
	cl[1] = any_class(2);
	prefix4(&cl[1].match.dst, IP4(172, 16, 5, 0), 24);
	cl[1].match.has_dst = true;
	c = build(cl, 2);
	assert_int_equal(classify(c, UDP4(IP4(172, 16, 5, 9), 1), ON_LAN), 1);
	assert_int_equal(classify(c, UDP4(IP4(172, 16, 6, 9), 1), ON_LAN), 1);
	qos_classifier_free(c);
	cl[0].priority = 3; /* now the /24 wins inside it */
	tmp = cl[0];
	cl[0] = cl[1];
	cl[1] = tmp;
	c = build(cl, 2);
	assert_int_equal(classify(c, UDP4(IP4(172, 16, 5, 9), 1), ON_LAN), 1);
	assert_int_equal(classify(c, UDP4(IP4(172, 16, 6, 9), 1), ON_LAN), 2);
	assert_int_equal(classify(c, UDP4(IP4(172, 17, 5, 9), 1), ON_LAN), 0);
	qos_classifier_free(c);
}

/* Protocol and port ranges; the bounds are inclusive; host vs network order. */
static void protocol_and_ports(void **state)
{
	(void)state;
	struct qos_class_conf cl[3];
	struct qos_classifier *c;

	cl[0] = any_class(1); /* TCP to 1000..2000 */
	cl[0].match.protocol = IPPROTO_TCP;
	cl[0].match.dport_lo = 1000;
	cl[0].match.dport_hi = 2000;
	cl[1] = any_class(2); /* UDP from 4791 (0x12b7; swapped 0xb712) */
	cl[1].match.protocol = IPPROTO_UDP;
	cl[1].match.sport_lo = cl[1].match.sport_hi = 4791;
	cl[2] = any_class(3); /* SCTP, any port */
	cl[2].match.protocol = IPPROTO_SCTP;
	c = build(cl, 3);

	struct pkt tcp = { .proto = IPPROTO_TCP, .dst4 = IP4(192, 0, 2, 1), .sport = 40000 };
	uint16_t in[] = { 1000, 1001, 1500, 1999, 2000 }, out[] = { 0, 999, 2001, 0xe803, 65535 };
	for (size_t i = 0; i < RTE_DIM(in); i++) {
		tcp.dport = in[i];
		assert_int_equal(classify(c, tcp, ON_LAN), 1);
	}
	for (size_t i = 0; i < RTE_DIM(out); i++) {
		tcp.dport = out[i];
		assert_int_equal(classify(c, tcp, ON_LAN), 0);
	}
	tcp.dport = 1500; /* the same over IPv6 (the class has no family) */
	tcp.family = 6;
	assert_int_equal(classify(c, tcp, ON_LAN), 1);
	tcp.proto = IPPROTO_UDP; /* UDP to 1500 is not TCP */
	assert_int_equal(classify(c, tcp, ON_LAN), 0);

	struct pkt udp = { .proto = IPPROTO_UDP, .sport = 4791, .dport = 9 };
	assert_int_equal(classify(c, udp, ON_LAN), 2);
	udp.sport = 0xb712;
	assert_int_equal(classify(c, udp, ON_LAN), 0);
	udp.sport = 4791;
	udp.family = 6;
	assert_int_equal(classify(c, udp, ON_LAN), 2);

	struct pkt sctp = { .proto = IPPROTO_SCTP, .sport = 1, .dport = 2 };
	assert_int_equal(classify(c, sctp, ON_LAN), 3);
	struct pkt icmp = { .proto = IPPROTO_ICMP };
	assert_int_equal(classify(c, icmp, ON_LAN), 0);
	qos_classifier_free(c);
}

/* A port range that includes 0 does not take packets that have no ports. */
static void port_range_needs_ports(void **state)
{
	(void)state;
	struct qos_class_conf cl = any_class(1);
	struct qos_classifier *c;

	cl.match.dport_lo = 0;
	cl.match.dport_hi = 1023;
	c = build(&cl, 1);
	assert_int_equal(classify(c, (struct pkt){ .proto = IPPROTO_UDP, .dport = 0 }, ON_LAN), 1);
	assert_int_equal(classify(c, (struct pkt){ .proto = IPPROTO_TCP, .dport = 80 }, ON_LAN), 1);
	assert_int_equal(classify(c, (struct pkt){ .proto = IPPROTO_ICMP }, ON_LAN), 0);
	assert_int_equal(classify(c, (struct pkt){ .proto = 58, .family = 6 }, ON_LAN), 0);
	/* an IPv6 extension header first (hop-by-hop, 0): no ports read */
	assert_int_equal(classify(c, (struct pkt){ .proto = PROTO_0, .family = 6 }, ON_LAN), 0);
	assert_int_equal(classify(c, (struct pkt){ .proto = 44, .family = 6 }, ON_LAN), 0);
	qos_classifier_free(c);
}

/* IPv4 and IPv6 source and destination prefixes; a prefix's family only. */
static void prefixes(void **state)
{
	(void)state;
	struct qos_class_conf cl[4];
	struct qos_classifier *c;

	cl[0] = any_class(1); /* 10.1.0.0/16 -> 192.0.2.0/24 */
	cl[0].match.family = AF_INET;
	cl[0].match.has_src = cl[0].match.has_dst = true;
	prefix4(&cl[0].match.src, IP4(10, 1, 0, 0), 16);
	prefix4(&cl[0].match.dst, IP4(192, 0, 2, 0), 24);
	cl[1] = any_class(2); /* 2001:db8:1::/48 -> 2001:db8:2:3::/64 */
	cl[1].match.family = AF_INET6;
	cl[1].match.has_src = cl[1].match.has_dst = true;
	prefix6(&cl[1].match.src, "2001:db8:1::", 48);
	prefix6(&cl[1].match.dst, "2001:db8:2:3::", 64);
	cl[2] = any_class(3); /* to 2001:db8:ff::8/127 (a bit in the last word) */
	cl[2].match.family = AF_INET6;
	cl[2].match.has_dst = true;
	prefix6(&cl[2].match.dst, "2001:db8:ff::8", 127);
	cl[3] = any_class(4); /* from 10.9.9.9/32 */
	cl[3].match.family = AF_INET;
	cl[3].match.has_src = true;
	prefix4(&cl[3].match.src, IP4(10, 9, 9, 9), 32);
	c = build(cl, 4);

	struct pkt p = { .src4 = IP4(10, 1, 255, 255), .dst4 = IP4(192, 0, 2, 0) };
	assert_int_equal(classify(c, p, ON_LAN), 1);
	p.dst4 = IP4(192, 0, 2, 255);
	assert_int_equal(classify(c, p, ON_LAN), 1);
	p.dst4 = IP4(192, 0, 3, 0);
	assert_int_equal(classify(c, p, ON_LAN), 0);
	p.dst4 = IP4(192, 0, 2, 7);
	p.src4 = IP4(10, 2, 0, 1);
	assert_int_equal(classify(c, p, ON_LAN), 0);
	p.src4 = IP4(10, 9, 9, 9);
	assert_int_equal(classify(c, p, ON_LAN), 4);
	p.src4 = IP4(10, 9, 9, 8);
	assert_int_equal(classify(c, p, ON_LAN), 0);
	p.src4 = IP4(9, 9, 9, 10); /* 10.9.9.9 byte-swapped */
	assert_int_equal(classify(c, p, ON_LAN), 0);

	struct pkt q = { .family = 6,
			 .src6 = "2001:db8:1:ffff::1",
			 .dst6 = "2001:db8:2:3:ffff::1" };
	assert_int_equal(classify(c, q, ON_LAN), 2);
	q.src6 = "2001:db8:1::";
	q.dst6 = "2001:db8:2:3::";
	assert_int_equal(classify(c, q, ON_LAN), 2);
	q.src6 = "2001:db8:2::1";
	assert_int_equal(classify(c, q, ON_LAN), 0);
	q.src6 = "2001:db8:1::1";
	q.dst6 = "2001:db8:2:4::1";
	assert_int_equal(classify(c, q, ON_LAN), 0);
	q.dst6 = "2001:db8:ff::9";
	assert_int_equal(classify(c, q, ON_LAN), 3);
	q.dst6 = "2001:db8:ff::8";
	assert_int_equal(classify(c, q, ON_LAN), 3);
	q.dst6 = "2001:db8:ff::a";
	assert_int_equal(classify(c, q, ON_LAN), 0);
	q.dst6 = "2001:db8:ff:0:1::8";
	assert_int_equal(classify(c, q, ON_LAN), 0);
	qos_classifier_free(c);
}

/* A class of one family is only in that family's context; family 0 in both. */
static void families(void **state)
{
	(void)state;
	struct qos_class_conf cl[2];
	struct qos_classifier *c;

	cl[0] = any_class(1);
	cl[0].match.family = AF_INET6;
	cl[0].match.protocol = IPPROTO_TCP;
	cl[1] = any_class(2);
	cl[1].match.protocol = IPPROTO_UDP;
	c = build(cl, 2);
	assert_int_equal(classify(c, (struct pkt){ .family = 6, .proto = IPPROTO_TCP }, ON_LAN), 1);
	assert_int_equal(classify(c, (struct pkt){ .family = 4, .proto = IPPROTO_TCP }, ON_LAN), 0);
	assert_int_equal(classify(c, (struct pkt){ .family = 4 }, ON_LAN), 2);
	assert_int_equal(classify(c, (struct pkt){ .family = 6 }, ON_LAN), 2);
	qos_classifier_free(c);

	/* IPv6 classes only: IPv4 has no context and is class 0 */
	c = build(cl, 1);
	assert_int_equal(classify(c, (struct pkt){ .family = 4, .proto = IPPROTO_TCP }, ON_LAN), 0);
	assert_int_equal(classify(c, (struct pkt){ .family = 6, .proto = IPPROTO_TCP }, ON_LAN), 1);
	qos_classifier_free(c);

	/* no classes at all */
	c = build(cl, 0);
	assert_int_equal(classify(c, (struct pkt){ .family = 4 }, ON_LAN), 0);
	assert_int_equal(classify(c, (struct pkt){ .family = 6 }, ON_LAN), 0);
	qos_classifier_free(c);
}

/* DSCP range 10..20 inclusive, whatever the ECN bits, IPv4 and IPv6. */
static void dscp_range(void **state)
{
	(void)state;
	struct qos_class_conf cl = any_class(1);
	struct qos_classifier *c;

	cl.match.dscp_lo = 10;
	cl.match.dscp_hi = 20;
	c = build(&cl, 1);
	for (int fam = 4; fam <= 6; fam += 2)
		for (int dscp = 0; dscp < 64; dscp++)
			for (int ecn = 0; ecn < 4; ecn++) {
				struct pkt p = { .family = fam, .tos = (uint8_t)(dscp << 2 | ecn) };
				uint32_t want = dscp >= 10 && dscp <= 20;

				if (classify(c, p, ON_LAN) != want)
					fail_msg("IPv%d DSCP %d ECN %d: class %u", fam, dscp, ecn,
						 !want);
			}
	qos_classifier_free(c);
}

/* Classes on DSCP alone, one frame at a time and in bursts of 1 to 64. */
static void dscp_only_classes(void **state)
{
	(void)state;
	static const int dscp[3] = { 46, 34, 18 };
	struct qos_class_conf cl[3];
	struct qos_classifier *c;

	for (int i = 0; i < 3; i++) {
		cl[i] = any_class((uint32_t)(10 * (i + 1)));
		cl[i].match.dscp_lo = cl[i].match.dscp_hi = dscp[i];
	}
	c = build(cl, 3);
	for (int fam = 4; fam <= 6; fam += 2)
		for (int d = 0; d < 64; d++) {
			struct pkt p = { .family = fam, .tos = (uint8_t)(d << 2) };
			uint32_t want = d == 46 ? 1 : d == 34 ? 2 : d == 18 ? 3 : 0;

			if (classify(c, p, ON_LAN) != want)
				fail_msg("IPv%d DSCP %d: class %u, not %u", fam, d,
					 classify(c, p, ON_LAN), want);
		}
	/* and in bursts, where rte_acl's vector paths take 8, 16 or 32 at once */
	for (unsigned n = 1; n <= 64; n *= 2) {
		struct rte_mbuf *m[64];
		struct frame f[64];
		uint32_t cls[64];

		for (unsigned i = 0; i < n; i++) {
			struct pkt p = { .family = i % 3 ? 4 : 6,
					 .tos = (uint8_t)(dscp[i % 3] << 2) };

			f[i] = frame_of(p);
			m[i] = mbuf_of(&f[i], f[i].len, ON_LAN);
		}
		classify_checked(c, m, n, cls);
		for (unsigned i = 0; i < n; i++) {
			if (cls[i] != i % 3 + 1)
				fail_msg("burst of %u, packet %u (DSCP %d): class %u", n, i,
					 dscp[i % 3], cls[i]);
			rte_pktmbuf_free(m[i]);
		}
	}
	qos_classifier_free(c);
}

/* The ingress interface: (m->port, VLAN id of m->vlan_tci). */
static void ingress_interface(void **state)
{
	(void)state;
	struct qos_class_conf cl[2];
	struct qos_classifier *c;

	cl[0] = any_class(1);
	cl[0].match.ingress = 1; /* line100: port 1 (DPDK 7), VLAN 100 */
	cl[1] = any_class(2);
	cl[1].match.ingress = 0; /* lan0: port 0 (DPDK 3), untagged */
	c = build(cl, 2);
	struct pkt p = { .dst4 = IP4(192, 0, 2, 1) };

	assert_int_equal(classify(c, p, ON_LINE(100)), 1);
	assert_int_equal(classify(c, p, ON_LINE(5 << 13 | 100)), 1); /* PCP 5 */
	assert_int_equal(classify(c, p, ON_LINE(0x1000 | 100)), 1);  /* DEI */
	assert_int_equal(classify(c, p, ON_LINE(200)), 0);           /* line200 */
	assert_int_equal(classify(c, p, ON_LINE(0)), 0);             /* p1 untagged */
	assert_int_equal(classify(c, p, port_ids[0], 100), 0);       /* p0 VLAN 100 */
	assert_int_equal(classify(c, p, ON_LAN), 2);
	assert_int_equal(classify(c, p, port_ids[0], 3 << 13), 2); /* priority tag */
	assert_int_equal(classify(c, p, 0x0300, 0), 0);            /* 3 swapped */
	p.family = 6;
	assert_int_equal(classify(c, p, ON_LINE(100)), 1);
	assert_int_equal(classify(c, p, ON_LAN), 2);
	qos_classifier_free(c);
}

/* A VRF: received by any of its interfaces (one rule each), by no other. */
static void ingress_vrf(void **state)
{
	(void)state;
	struct qos_class_conf cl[2];
	struct qos_classifier *c;

	cl[0] = any_class(1);
	cl[0].match.vrf = 1; /* line200 only */
	cl[1] = any_class(2);
	cl[1].match.vrf = 0; /* lan0 and line100 */
	cl[1].match.protocol = 17;
	c = build(cl, 2);
	struct pkt p = { .dst4 = IP4(192, 0, 2, 1) };

	assert_int_equal(classify(c, p, ON_LINE(200)), 1);
	assert_int_equal(classify(c, p, ON_LINE(100)), 2);
	assert_int_equal(classify(c, p, ON_LAN), 2);
	assert_int_equal(classify(c, p, port_ids[0], 200), 0); /* p0 VLAN 200: no interface */
	p.proto = 6;
	assert_int_equal(classify(c, p, ON_LINE(100)), 0); /* VRF 0 but not UDP */
	assert_int_equal(classify(c, p, ON_LINE(200)), 1);
	p.family = 6;
	assert_int_equal(classify(c, p, ON_LINE(200)), 1);
	assert_int_equal(classify(c, p, ON_LAN), 0);
	qos_classifier_free(c);
}

/* The ingress 802.1p priority (m->vlan_tci >> 13); untagged is 0. */
static void ingress_pcp(void **state)
{
	(void)state;
	struct qos_class_conf cl[2];
	struct qos_classifier *c;

	cl[0] = any_class(1);
	cl[0].match.pcp = 5;
	cl[1] = any_class(2);
	cl[1].match.pcp = 0;
	c = build(cl, 2);
	for (uint16_t pcp = 0; pcp < 8; pcp++)
		for (uint16_t dei = 0; dei < 2; dei++) {
			uint16_t tci = (uint16_t)(pcp << 13 | dei << 12 | 100);
			uint32_t want = pcp == 5 ? 1 : pcp == 0 ? 2 : 0;

			assert_int_equal(classify(c, (struct pkt){ 0 }, ON_LINE(tci)), want);
			assert_int_equal(classify(c, (struct pkt){ .family = 6 }, ON_LINE(tci)),
					 want);
		}
	assert_int_equal(classify(c, (struct pkt){ 0 }, ON_LAN), 2);
	qos_classifier_free(c);
}

/* A tagged egress frame (18-byte L2 header) is read past its tag. */
static void tagged_egress(void **state)
{
	(void)state;
	struct qos_class_conf cl = any_class(1);
	struct qos_classifier *c;

	cl.match.protocol = IPPROTO_UDP;
	cl.match.dport_lo = cl.match.dport_hi = 53;
	cl.match.dscp_lo = cl.match.dscp_hi = 46;
	c = build(&cl, 1);
	struct pkt p = { .tagged = true, .tag = 7 << 13 | 300, .dport = 53, .tos = 46 << 2 };

	assert_int_equal(classify(c, p, ON_LAN), 1);
	p.family = 6;
	assert_int_equal(classify(c, p, ON_LAN), 1);
	p.dport = 54;
	assert_int_equal(classify(c, p, ON_LAN), 0);
	p.family = 4;
	p.ihl = 7; /* options: the ports are after them */
	p.dport = 53;
	assert_int_equal(classify(c, p, ON_LAN), 1);
	qos_classifier_free(c);
}

/* Fragments: only the first one (offset 0, MF or not) has ports. */
static void fragments(void **state)
{
	(void)state;
	struct qos_class_conf cl[2];
	struct qos_classifier *c;

	cl[0] = any_class(1);
	cl[0].match.protocol = IPPROTO_UDP;
	cl[0].match.dport_lo = cl[0].match.dport_hi = 53;
	cl[1] = any_class(2);
	cl[1].match.protocol = IPPROTO_UDP;
	c = build(cl, 2);
	struct pkt p = { .dport = 53 };

	assert_int_equal(classify(c, p, ON_LAN), 1);
	p.frag = 0x2000; /* MF, offset 0: the first fragment */
	assert_int_equal(classify(c, p, ON_LAN), 1);
	p.frag = 0x4000; /* DF */
	assert_int_equal(classify(c, p, ON_LAN), 1);
	p.frag = 0x2001; /* MF, offset 8 bytes: its "ports" are payload */
	assert_int_equal(classify(c, p, ON_LAN), 2);
	p.frag = 0x00b9; /* the last fragment */
	assert_int_equal(classify(c, p, ON_LAN), 2);
	qos_classifier_free(c);
}

/* Not IP, or nothing matches: class 0. */
static void no_class(void **state)
{
	(void)state;
	struct qos_class_conf cl = any_class(1);
	struct qos_classifier *c;

	c = build(&cl, 1); /* matches every IP packet */
	assert_int_equal(classify(c, (struct pkt){ .family = 0x0806 }, ON_LAN), 0);
	assert_int_equal(classify(c, (struct pkt){ .family = 0x0806, .tagged = true }, ON_LAN), 0);
	assert_int_equal(classify(c, (struct pkt){ 0 }, ON_LAN), 1);
	qos_classifier_free(c);

	cl.match.protocol = IPPROTO_TCP;
	c = build(&cl, 1);
	assert_int_equal(classify(c, (struct pkt){ .proto = IPPROTO_UDP }, ON_LAN), 0);
	assert_int_equal(classify(c, (struct pkt){ .proto = IPPROTO_UDP, .family = 6 }, ON_LAN), 0);
	qos_classifier_free(c);
}

/*
 * A frame cut at every length from 0 to whole: never read past data_len,
 * and the class is what the bytes present say. Two classes: a port rule
 * (1) and one that matches any IP packet (2): a cut before the end of the
 * fixed IP header (20 or 40 bytes) is 0, one before the end of the ports
 * (after the IPv4 options) is 2, the rest 1.
 */
static void truncated(void **state)
{
	(void)state;
	struct qos_class_conf cl[2];
	struct qos_classifier *c;
	const struct pkt pkts[] = {
		{ .dport = 53 },
		{ .dport = 53, .tagged = true, .tag = 100, .ihl = 6 },
		{ .dport = 53, .family = 6 },
		{ .dport = 53, .family = 6, .tagged = true, .tag = 5 << 13 | 7 },
		{ .dport = 53, .proto = IPPROTO_TCP, .ihl = 15, .l4_len = 20 },
	};

	cl[0] = any_class(1);
	cl[0].match.dport_lo = cl[0].match.dport_hi = 53;
	cl[1] = any_class(2);
	c = build(cl, 2);
	for (size_t k = 0; k < RTE_DIM(pkts); k++) {
		struct frame f = frame_of(pkts[k]);
		uint32_t l2 = pkts[k].tagged ? 18 : 14;
		uint32_t fixed = pkts[k].family == 6 ? 40 : 20; /* what makes it IP */
		uint32_t hl = pkts[k].family == 6 ? 40 : (pkts[k].ihl ? pkts[k].ihl : 5) * 4u;

		for (uint32_t len = 0; len <= f.len; len++) {
			uint32_t want = len < l2 + fixed ? 0 : len < l2 + hl + 4 ? 2 : 1;
			struct rte_mbuf *m[3];
			uint32_t cls[3];
			uint8_t *exact = malloc(len ? len : 1);
			union qos_key key;

			/* the pure builder on exactly len bytes: ASan sees a read past them */
			assert_non_null(exact);
			memcpy(exact, f.b, len);
			enum qos_key_family fam = qos_key_build(exact, len, 1, 0, &key);
			assert_int_equal(fam == QOS_KEY_NONE, len < l2 + fixed);
			assert_int_equal(qos_frame_get_dscp(exact, len) < 0, len < l2 + fixed);
			qos_frame_set_dscp(exact, len, 9);
			qos_frame_set_pcp(exact, len, 3);
			free(exact);

			/* in mbufs: the bytes after data_len are the frame's own,
			 * zeros, or ones; the class must not depend on them */
			for (int i = 0; i < 3; i++) {
				m[i] = mbuf_of(&f, len, port_ids[0], 0);
				if (i > 0)
					memset(rte_pktmbuf_mtod(m[i], uint8_t *) + len,
					       i == 1 ? 0x00 : 0xff, f.len - len);
			}
			classify_checked(c, m, 3, cls);
			for (int i = 0; i < 3; i++)
				if (cls[i] != want)
					fail_msg("frame %zu cut at %u (of %u), tail %d: class %u, "
						 "not %u",
						 k, len, f.len, i, cls[i], want);

			/* marking writes nothing past data_len */
			qos_set_dscp(m[2], 9);
			qos_set_pcp(m[2], 3);
			for (uint32_t b = len; b < f.len; b++)
				assert_int_equal(rte_pktmbuf_mtod(m[2], uint8_t *)[b], 0xff);
			assert_int_equal(qos_get_dscp(m[2]) < 0, len < l2 + fixed);
			for (int i = 0; i < 3; i++)
				rte_pktmbuf_free(m[i]);
		}
	}
	qos_classifier_free(c);
}

/* Classify a burst of n frames of mixed families; each gets its own class. */
static void mixed_burst(const struct qos_classifier *c, int n, int nb_classes)
{
	struct rte_mbuf *m[64];
	uint32_t cls[64], want[64];

	assert_true(n <= 64);
	for (int i = 0; i < n; i++) {
		int k = (i * 37) % nb_classes; /* classes out of order */
		struct pkt p = { .dport = (uint16_t)(1000 + k), .family = i % 3 == 1 ? 6 : 4 };

		if (i % 7 == 3)
			p.family = 0x0806;
		struct frame f = frame_of(p);
		m[i] = mbuf_of(&f, f.len, ON_LAN);
		want[i] = p.family == 0x0806 ? 0 : (uint32_t)k + 1;
	}
	memset(cls, 0xee, sizeof(cls));
	classify_checked(c, m, (unsigned)n, cls);
	for (int i = 0; i < n; i++) {
		if (cls[i] != want[i])
			fail_msg("packet %d of %d: class %u, not %u", i, n, cls[i], want[i]);
		rte_pktmbuf_free(m[i]);
	}
}

/* 64 and 1000 classes, one destination port each; bursts of 1..64. */
static void many_classes(void **state)
{
	(void)state;
	static struct qos_class_conf cl[1000];
	struct qos_classifier *c;
	const int sizes[] = { 64, 1000 };

	for (size_t s = 0; s < RTE_DIM(sizes); s++) {
		int n = sizes[s];

		for (int i = 0; i < n; i++) {
			cl[i] = any_class((uint32_t)i * 10 + 5);
			cl[i].match.protocol = IPPROTO_UDP;
			cl[i].match.dport_lo = cl[i].match.dport_hi = (uint16_t)(1000 + i);
		}
		c = build(cl, n);
		for (int b = 1; b <= 64; b++)
			mixed_burst(c, b, n);
		for (int i = 0; i < n; i++)
			assert_int_equal(
				classify(c, UDP4(IP4(10, 0, 0, 2), (uint16_t)(1000 + i)), ON_LAN),
				i + 1);
		assert_int_equal(classify(c, UDP4(IP4(10, 0, 0, 2), (uint16_t)(1000 + n)), ON_LAN),
				 0);
		qos_classifier_free(c);
	}

	/* 1000 IPv4 /32 destinations with overlapping /24s of higher numbers */
	for (int i = 0; i < 1000; i++) {
		cl[i] = any_class((uint32_t)i);
		cl[i].match.has_dst = true;
		if (i < 500)
			prefix4(&cl[i].match.dst, IP4(10, 1, i >> 8, i & 0xff), 32);
		else /* 10.1.0.0/24, 10.1.1.0/24, ... */
			prefix4(&cl[i].match.dst,
				IP4(10, 1 + ((i - 500) >> 8), (i - 500) & 0xff, 0), 24);
		cl[i].match.family = AF_INET;
	}
	c = build(cl, 1000);
	for (int i = 0; i < 500; i++)
		assert_int_equal(classify(c, UDP4(IP4(10, 1, i >> 8, i & 0xff), 1), ON_LAN), i + 1);
	assert_int_equal(classify(c, UDP4(IP4(10, 1, 1, 250), 1), ON_LAN), 502);
	assert_int_equal(classify(c, UDP4(IP4(10, 1, 1, 5), 1), ON_LAN), 262); /* its /32 */
	assert_int_equal(classify(c, UDP4(IP4(10, 1, 2, 1), 1), ON_LAN), 503);
	assert_int_equal(classify(c, UDP4(IP4(10, 2, 243, 1), 1), ON_LAN), 1000);
	assert_int_equal(classify(c, UDP4(IP4(10, 2, 244, 1), 1), ON_LAN), 0);
	qos_classifier_free(c);

	/* more than the documented 64 in one call: handled by chunks */
	for (int i = 0; i < 64; i++) {
		cl[i] = any_class((uint32_t)i);
		cl[i].match.protocol = IPPROTO_UDP;
		cl[i].match.dport_lo = cl[i].match.dport_hi = (uint16_t)(1000 + i);
	}
	c = build(cl, 64);
	struct rte_mbuf *m[100];
	uint32_t cls[100];
	for (int i = 0; i < 100; i++) {
		struct frame f = frame_of(UDP4(IP4(10, 0, 0, 2), (uint16_t)(1000 + i % 64)));
		m[i] = mbuf_of(&f, f.len, ON_LAN);
	}
	classify_checked(c, m, 100, cls);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(cls[i], i % 64 + 1);
		rte_pktmbuf_free(m[i]);
	}
	classify_checked(c, m, 0, cls);
	qos_classifier_free(c);
}

/* Classes that cannot be rules, and names: errors, not a classifier. */
static void build_errors(void **state)
{
	(void)state;
	struct qos_class_conf cl = any_class(1);
	struct qos_policy_conf pol = { .name = "edge", .nb_classes = 1, .classes = &cl };
	char err[256];
	struct qos_classifier *c, *d;

#define BAD(field_expr, text)                                                                \
	do {                                                                                 \
		cl = any_class(1);                                                           \
		field_expr;                                                                  \
		err[0] = 0;                                                                  \
		c = qos_classifier_build(&cfg, &pol, port_ids, "qos-bad", err, sizeof(err)); \
		assert_null(c);                                                              \
		if (strstr(err, text) == NULL)                                               \
			fail_msg("error \"%s\" does not say \"%s\"", err, text);             \
	} while (0)
	BAD(cl.match.pcp = 8, "PCP");
	BAD((cl.match.dscp_lo = 10, cl.match.dscp_hi = 64), "DSCP");
	BAD((cl.match.dscp_lo = 10, cl.match.dscp_hi = 9), "DSCP");
	BAD((cl.match.dscp_lo = 10, cl.match.dscp_hi = -1), "DSCP");
	BAD(cl.match.protocol = 256, "protocol");
	BAD((cl.match.dport_lo = 10, cl.match.dport_hi = 9), "port range");
	BAD(cl.match.ingress = 3, "ingress");
	BAD((cl.match.family = AF_INET6, cl.match.has_src = true,
	     prefix4(&cl.match.src, IP4(10, 0, 0, 0), 8)),
	    "family");
	BAD((cl.match.has_dst = true, prefix4(&cl.match.dst, IP4(10, 0, 0, 0), 33)), "length");
	BAD(cl.match.family = 99, "family");
#undef BAD

	/* a name in use is refused (rte_acl_create would share the context) */
	cl = any_class(1);
	c = qos_classifier_build(&cfg, &pol, port_ids, "qos-dup", err, sizeof(err));
	assert_non_null(c);
	d = qos_classifier_build(&cfg, &pol, port_ids, "qos-dup", err, sizeof(err));
	assert_null(d);
	assert_non_null(strstr(err, "exists"));
	qos_classifier_free(c);
	c = qos_classifier_build(&cfg, &pol, port_ids, "qos-dup", err, sizeof(err));
	assert_non_null(c); /* free released the names */

	/* long names that differ past rte_acl's 32 characters stay apart */
	d = qos_classifier_build(&cfg, &pol, port_ids, "qos-123456-a-policy-name-of-31-chars-1",
				 err, sizeof(err));
	assert_non_null(d);
	struct qos_classifier *e = qos_classifier_build(
		&cfg, &pol, port_ids, "qos-123456-a-policy-name-of-31-chars-2", err, sizeof(err));
	assert_non_null(e);
	qos_classifier_free(e);
	qos_classifier_free(d);
	qos_classifier_free(c);
	qos_classifier_free(NULL);
}

/* ---- marking ------------------------------------------------------------------ */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/*
 * RFC 1624's incremental update against a full recompute: random headers
 * (options too), every TOS value (64 DSCPs × 4 ECN) remarked to every DSCP.
 */
static void dscp_ipv4_checksum(void **state)
{
	(void)state;
	struct frame f;
	struct rte_mbuf *m;

	for (int h = 0; h < 200; h++) {
		uint8_t ihl = (uint8_t)(h < 100 ? 5 : 5 + rnd() % 11);
		struct pkt p = { .ihl = ihl,
				 .src4 = rnd(),
				 .dst4 = rnd(),
				 .proto = (uint8_t)(rnd() | 1),
				 .frag = (uint16_t)rnd(),
				 .tagged = h & 1 };

		f = frame_of(p);
		uint8_t *ip = f.b + (p.tagged ? 18 : 14);
		for (int i = 2; i < ihl * 4; i++) /* random everything but version/IHL */
			if (i != 10 && i != 11)
				ip[i] = (uint8_t)rnd();
		for (int tos = 0; tos < 256; tos++) {
			ip[1] = (uint8_t)tos;
			put16(ip + 10, 0);
			put16(ip + 10, ref_checksum(ip, ihl * 4u));
			for (uint8_t dscp = 0; dscp < 64; dscp++) {
				uint8_t b[256];
				uint8_t *bip = b + (ip - f.b);

				memcpy(b, f.b, f.len);
				qos_frame_set_dscp(b, f.len, dscp);
				assert_int_equal(bip[1], dscp << 2 | (tos & 3));
				uint16_t got = (uint16_t)(bip[10] << 8 | bip[11]);
				put16(bip + 10, 0);
				uint16_t full = ref_checksum(bip, ihl * 4u);
				if (got != full)
					fail_msg("header %d TOS %#x -> DSCP %u: checksum %#x, full "
						 "recompute %#x",
						 h, tos, dscp, got, full);
				/* nothing else moved */
				bip[1] = ip[1];
				bip[10] = ip[10];
				bip[11] = ip[11];
				assert_memory_equal(b, f.b, f.len);
			}
		}
	}
	/* every identification: some header's checksum becomes 0x0000 (its
	 * sum 0xffff), which random headers seldom meet */
	struct pkt p = { .src4 = 0, .dst4 = 0, .proto = 0 };
	int zero = 0;
	f = frame_of(p);
	uint8_t *ip = f.b + 14;
	for (uint32_t id = 0; id < 65536; id++) {
		put16(ip + 4, (uint16_t)id);
		ip[1] = 0;
		put16(ip + 10, 0);
		put16(ip + 10, ref_checksum(ip, 20));
		uint8_t b[256];
		memcpy(b, f.b, f.len);
		qos_frame_set_dscp(b, f.len, 46);
		uint16_t got = (uint16_t)(b[24] << 8 | b[25]);
		put16(b + 24, 0);
		assert_int_equal(got, ref_checksum(b + 14, 20));
		zero += got == 0;
	}
	assert_true(zero > 0);

	/* through an mbuf */
	f = frame_of((struct pkt){ .tos = 0x03, .dst4 = IP4(192, 0, 2, 1) });
	m = mbuf_of(&f, f.len, ON_LAN);
	assert_int_equal(qos_get_dscp(m), 0);
	qos_set_dscp(m, 26);
	assert_int_equal(qos_get_dscp(m), 26);
	ip = rte_pktmbuf_mtod(m, uint8_t *) + 14;
	assert_int_equal(ip[1], 26 << 2 | 3);
	assert_int_equal(ref_checksum(ip, 20), 0); /* a header with its checksum sums to 0 */
	qos_set_dscp(m, 26 | 0x40);                /* higher bits ignored */
	assert_int_equal(ip[1], 26 << 2 | 3);
	rte_pktmbuf_free(m);
}

/* IPv6: version, ECN and flow label kept, for every traffic class and DSCP. */
static void dscp_ipv6(void **state)
{
	(void)state;

	for (int tc = 0; tc < 256; tc++) {
		struct pkt p = { .family = 6, .tos = (uint8_t)tc, .flow = rnd(), .tagged = tc & 1 };
		struct frame f = frame_of(p);
		uint32_t l2 = p.tagged ? 18 : 14;

		assert_int_equal(qos_frame_get_dscp(f.b, f.len), tc >> 2);
		for (uint8_t dscp = 0; dscp < 64; dscp++) {
			uint8_t b[256];
			uint32_t w;

			memcpy(b, f.b, f.len);
			qos_frame_set_dscp(b, f.len, dscp);
			w = (uint32_t)b[l2] << 24 | b[l2 + 1] << 16 | b[l2 + 2] << 8 | b[l2 + 3];
			assert_int_equal(w >> 28, 6);
			assert_int_equal(w >> 20 & 0xff, dscp << 2 | (tc & 3));
			assert_int_equal(w & 0xfffff, p.flow & 0xfffff);
			assert_int_equal(qos_frame_get_dscp(b, f.len), dscp);
			assert_memory_equal(b + l2 + 4, f.b + l2 + 4, f.len - l2 - 4);
			assert_memory_equal(b, f.b, l2);
		}
	}

	struct frame f = frame_of((struct pkt){ .family = 6, .tos = 0xb9, .flow = 0xabcde });
	struct rte_mbuf *m = mbuf_of(&f, f.len, ON_LAN);
	assert_int_equal(qos_get_dscp(m), 0xb9 >> 2);
	qos_set_dscp(m, 10);
	assert_int_equal(qos_get_dscp(m), 10);
	uint8_t *ip = rte_pktmbuf_mtod(m, uint8_t *) + 14;
	assert_memory_equal(ip, "\x62\x9a\xbc\xde", 4); /* 6, TC 0x29 (10 << 2 | 1), flow */
	rte_pktmbuf_free(m);
}

/* Not IPv4/IPv6: no DSCP, nothing written. */
static void dscp_not_ip(void **state)
{
	(void)state;
	struct frame f = frame_of((struct pkt){ .family = 0x0806 });
	uint8_t b[256];

	memcpy(b, f.b, f.len);
	assert_int_equal(qos_frame_get_dscp(b, f.len), -1);
	qos_frame_set_dscp(b, f.len, 46);
	qos_frame_set_pcp(b, f.len, 5); /* untagged */
	assert_memory_equal(b, f.b, f.len);

	struct rte_mbuf *m = mbuf_of(&f, f.len, ON_LAN);
	assert_int_equal(qos_get_dscp(m), -1);
	qos_set_dscp(m, 46);
	qos_set_pcp(m, 5);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), f.b, f.len);
	rte_pktmbuf_free(m);

	/* an untagged IPv4 frame: PCP changes nothing */
	f = frame_of((struct pkt){ 0 });
	memcpy(b, f.b, f.len);
	qos_frame_set_pcp(b, f.len, 5);
	assert_memory_equal(b, f.b, f.len);
}

/*
 * ECN CE (RFC 3168 §5): ECT(0) and ECT(1) become CE with the IPv4 checksum
 * updated incrementally (checked against a full recompute over random
 * headers and every DSCP), CE stays CE, Not-ECT is not touched; IPv6's
 * traffic class likewise, version, DSCP and flow label kept.
 */
static void ecn_set_ce(void **state)
{
	(void)state;

	for (int h = 0; h < 400; h++) {
		uint8_t ihl = (uint8_t)(h < 200 ? 5 : 5 + rnd() % 11);
		struct pkt p = { .ihl = ihl, .src4 = rnd(), .dst4 = rnd(), .tagged = h & 1 };
		struct frame f = frame_of(p);
		uint8_t *ip = f.b + (p.tagged ? 18 : 14);

		for (int i = 2; i < ihl * 4; i++)
			if (i != 10 && i != 11)
				ip[i] = (uint8_t)rnd();
		for (int tos = 0; tos < 256; tos++) {
			uint8_t b[256], *bip = b + (ip - f.b);
			int ecn = tos & 3;

			ip[1] = (uint8_t)tos;
			put16(ip + 10, 0);
			put16(ip + 10, ref_checksum(ip, ihl * 4u));
			memcpy(b, f.b, f.len);
			assert_int_equal(qos_frame_get_ecn(b, f.len), ecn);
			assert_int_equal(qos_frame_set_ce(b, f.len), ecn);
			if (ecn == QOS_ECN_NOT_ECT || ecn == QOS_ECN_CE) {
				assert_memory_equal(b, f.b, f.len); /* untouched */
				continue;
			}
			assert_int_equal(bip[1], tos | 3);
			assert_int_equal(qos_frame_get_ecn(b, f.len), QOS_ECN_CE);
			assert_int_equal(ref_checksum(bip, ihl * 4u), 0);
			bip[1] = ip[1];
			bip[10] = ip[10];
			bip[11] = ip[11];
			assert_memory_equal(b, f.b, f.len);
		}
	}

	for (int tc = 0; tc < 256; tc++) {
		struct pkt p = { .family = 6, .tos = (uint8_t)tc, .flow = rnd(), .tagged = tc & 1 };
		struct frame f = frame_of(p);
		uint32_t l2 = p.tagged ? 18 : 14, w;
		uint8_t b[256];
		int ecn = tc & 3;

		memcpy(b, f.b, f.len);
		assert_int_equal(qos_frame_get_ecn(b, f.len), ecn);
		assert_int_equal(qos_frame_set_ce(b, f.len), ecn);
		w = (uint32_t)b[l2] << 24 | b[l2 + 1] << 16 | b[l2 + 2] << 8 | b[l2 + 3];
		assert_int_equal(w >> 28, 6);
		assert_int_equal(w >> 20 & 0xff, ecn == QOS_ECN_NOT_ECT ? tc : tc | 3);
		assert_int_equal(w & 0xfffff, p.flow & 0xfffff);
		assert_memory_equal(b + l2 + 4, f.b + l2 + 4, f.len - l2 - 4);
		assert_memory_equal(b, f.b, l2);
	}

	/* not IP, or a cut header: -1, nothing written */
	struct frame f = frame_of((struct pkt){ .family = 0x0806 });
	uint8_t b[256];
	memcpy(b, f.b, f.len);
	assert_int_equal(qos_frame_get_ecn(b, f.len), -1);
	assert_int_equal(qos_frame_set_ce(b, f.len), -1);
	assert_memory_equal(b, f.b, f.len);
	f = frame_of((struct pkt){ .tos = 2 });
	memcpy(b, f.b, f.len);
	assert_int_equal(qos_frame_set_ce(b, 14 + 19), -1);
	assert_memory_equal(b, f.b, f.len);

	/* through an mbuf */
	f = frame_of((struct pkt){ .tos = 26 << 2 | QOS_ECN_ECT1, .dst4 = IP4(192, 0, 2, 1) });
	struct rte_mbuf *m = mbuf_of(&f, f.len, ON_LAN);
	assert_int_equal(qos_get_ecn(m), QOS_ECN_ECT1);
	assert_int_equal(qos_set_ce(m), QOS_ECN_ECT1);
	assert_int_equal(qos_get_ecn(m), QOS_ECN_CE);
	assert_int_equal(qos_get_dscp(m), 26);
	assert_int_equal(ref_checksum(rte_pktmbuf_mtod(m, uint8_t *) + 14, 20), 0);
	assert_int_equal(qos_set_ce(m), QOS_ECN_CE);
	rte_pktmbuf_free(m);
}

/*
 * The checksum CE marking leaves is the very value a full recomputation
 * stores (RFC 1071: never 0xffff, 0x0000 when the other words sum to
 * 0xffff), not merely one the receiver's verification takes: headers whose
 * identification is chosen so that the checksum is 0x0000 after the mark,
 * or before it, plus random ones, with and without options and a tag.
 */
static void ecn_ce_checksum_exact(void **state)
{
	(void)state;

	for (int h = 0; h < 3000; h++) {
		uint8_t ihl = (uint8_t)(h % 3 ? 5 : 5 + rnd() % 11);
		struct pkt p = { .ihl = ihl, .src4 = rnd(), .dst4 = rnd(), .tagged = h & 1 };
		struct frame f = frame_of(p);
		uint8_t *ip = f.b + (p.tagged ? 18 : 14), want[60];
		int tos = (int)(rnd() & 0xfc) | (h & 1 ? QOS_ECN_ECT0 : QOS_ECN_ECT1);
		int aim = h % 3; /* 0: 0x0000 after the mark, 1: 0x0000 before, 2: random */

		for (int i = 2; i < ihl * 4; i++)
			if (i != 10 && i != 11)
				ip[i] = (uint8_t)rnd();
		ip[1] = (uint8_t)(aim == 0 ? tos | QOS_ECN_CE : tos);
		if (aim < 2) {
			/* the identification that makes the others sum to 0xffff */
			put16(ip + 4, 0);
			put16(ip + 10, 0);
			put16(ip + 4, ref_checksum(ip, ihl * 4u));
		}
		ip[1] = (uint8_t)tos;
		put16(ip + 10, 0);
		put16(ip + 10, ref_checksum(ip, ihl * 4u));
		if (aim == 1)
			assert_int_equal(ip[10] << 8 | ip[11], 0);
		memcpy(want, ip, ihl * 4u);
		want[1] = (uint8_t)(tos | QOS_ECN_CE);
		put16(want + 10, 0);
		put16(want + 10, ref_checksum(want, ihl * 4u));
		if (aim == 0)
			assert_int_equal(want[10] << 8 | want[11], 0);
		assert_int_equal(qos_frame_set_ce(f.b, f.len), tos & 3);
		if (memcmp(ip, want, ihl * 4u) != 0)
			fail_msg("header %d (aim %d): checksum %02x%02x after the mark, a full "
				 "recomputation gives %02x%02x",
				 h, aim, ip[10], ip[11], want[10], want[11]);
	}
}

/* PCP: every priority over every DEI and a spread of VLAN ids; the rest kept. */
static void pcp_set(void **state)
{
	(void)state;

	for (uint32_t vid = 0; vid < 4096; vid += 117)
		for (uint16_t dei = 0; dei < 2; dei++)
			for (uint16_t old = 0; old < 8; old++) {
				uint16_t tci = (uint16_t)(old << 13 | dei << 12 | vid);
				struct frame f = frame_of(
					(struct pkt){ .tagged = true, .tag = tci });

				for (uint8_t pcp = 0; pcp < 8; pcp++) {
					uint8_t b[256];

					memcpy(b, f.b, f.len);
					qos_frame_set_pcp(b, f.len, pcp);
					uint16_t got = (uint16_t)(b[14] << 8 | b[15]);
					assert_int_equal(got, pcp << 13 | dei << 12 | vid);
					b[14] = f.b[14];
					assert_memory_equal(b, f.b, f.len);
				}
			}

	struct frame f = frame_of(
		(struct pkt){ .tagged = true, .tag = 0x1000 | 4094, .family = 6 });
	struct rte_mbuf *m = mbuf_of(&f, f.len, ON_LINE(100));
	qos_set_pcp(m, 6 | 8); /* higher bits ignored */
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	assert_int_equal(p[14] << 8 | p[15], 6 << 13 | 0x1000 | 4094);
	assert_int_equal(m->vlan_tci, 100); /* the ingress TCI is not the egress tag */
	rte_pktmbuf_free(m);
}

/* The key in bytes: network order, as rte_acl reads it (classify_frame.h). */
static void key_layout(void **state)
{
	(void)state;
	struct frame f = frame_of((struct pkt){ .proto = IPPROTO_UDP,
						.src4 = IP4(10, 1, 2, 3),
						.dst4 = IP4(192, 0, 2, 9),
						.sport = 0x1234,
						.dport = 0xabcd,
						.tos = 46 << 2 | 1 });
	union qos_key k;

	assert_int_equal(qos_key_build(f.b, f.len, 0x0102, 5 << 13 | 0x1000 | 0x345, &k),
			 QOS_KEY_IPV4);
	const uint8_t *b = (const uint8_t *)&k;
	assert_memory_equal(b, "\x11\x00\x00\x00", 4);     /* UDP; the pad zero */
	assert_memory_equal(b + 4, "\x01\x02\x03\x45", 4); /* port 0x0102, VLAN 0x345 */
	assert_memory_equal(b + 8, "\x00\x2e\x01\x05", 4); /* DSCP 46; L4, PCP 5 */
	assert_memory_equal(b + 12, "\x0a\x01\x02\x03\xc0\x00\x02\x09", 8);
	assert_memory_equal(b + 20, "\x12\x34\xab\xcd", 4);

	f = frame_of((struct pkt){ .family = 6,
				   .proto = IPPROTO_ICMPV6,
				   .src6 = "2001:db8::a",
				   .dst6 = "ff02::1",
				   .tos = 0xff,
				   .sport = 7,
				   .dport = 9 });
	assert_int_equal(qos_key_build(f.b, f.len, 9, 0, &k), QOS_KEY_IPV6);
	assert_int_equal(b[0], IPPROTO_ICMPV6);
	assert_memory_equal(b + 4, "\x00\x09\x00\x00", 4);
	assert_memory_equal(b + 8, "\x00\x3f\x00\x00", 4); /* no ports: no L4 flag */
	assert_memory_equal(b + 12, "\x20\x01\x0d\xb8", 4);
	assert_int_equal(b[27], 0x0a);
	assert_memory_equal(b + 28, "\xff\x02", 2);
	assert_int_equal(b[43], 0x01);
	assert_memory_equal(b + 44, "\x00\x00\x00\x00", 4);
}

/* ---- the cache against rte_acl alone over random policies ------------------ */

/*
 * More distinct masked keys than the cache holds (2048): classes on the
 * whole 5-tuple, 16384 different flows, then the first ones again: they
 * were evicted (misses again) and every result is still rte_acl's.
 */
static void cache_eviction(void **state)
{
	(void)state;
	static struct qos_classify_cache cc;
	struct qos_class_conf cl[3];
	struct rte_mbuf *m[64];
	uint32_t want[64], got[64];
	uint8_t ip[64];

	cl[0] = any_class(1);
	cl[0].match.protocol = IPPROTO_UDP;
	cl[0].match.sport_lo = 1000;
	cl[0].match.sport_hi = 1999;
	cl[1] = any_class(2);
	cl[1].match.has_dst = true;
	prefix4(&cl[1].match.dst, IP4(10, 0, 0, 0), 9);
	cl[1].match.family = AF_INET;
	cl[2] = any_class(3);
	cl[2].match.has_src = true;
	prefix4(&cl[2].match.src, IP4(10, 128, 0, 0), 9);
	cl[2].match.family = AF_INET;
	struct qos_classifier *c = build(cl, 3);
	memset(&cc, 0, sizeof(cc));
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t f = 0; f < (pass ? 64u : 16384u); f += 64) {
			for (unsigned i = 0; i < 64; i++) {
				uint32_t x = f + i;
				struct pkt k = { .src4 = IP4(10, x >> 7 & 0xff, 0, 1),
						 .dst4 = IP4(10, (x & 0x7f) << 1, x >> 15, 2),
						 .sport = (uint16_t)(900 + x % 300),
						 .dport = 53 };
				struct frame fr = frame_of(k);
				m[i] = mbuf_of(&fr, fr.len, ON_LAN);
			}
			uint64_t misses = cc.misses;
			qos_classify_burst(c, m, 64, want);
			qos_classify_burst_ip(c, &cc, m, 64, got, ip);
			for (unsigned i = 0; i < 64; i++) {
				if (got[i] != want[i])
					fail_msg("pass %d flow %u: cached class %u, rte_acl's %u",
						 pass, f + i, got[i], want[i]);
				rte_pktmbuf_free(m[i]);
			}
			if (pass == 1)
				assert_true(cc.misses > misses); /* evicted by the 16384 */
		}
	}
	qos_classifier_free(c);
}

/* A random prefix length biased to the interesting ones (0, off byte
 * boundaries, whole), at most @p max. */
static uint8_t rnd_len(unsigned max)
{
	static const uint8_t l4[] = { 0, 1, 7, 8, 9, 13, 16, 20, 23, 24, 25, 31, 32 };
	static const uint8_t l6[] = { 0, 1, 31, 32, 33, 48, 63, 64, 65, 96, 100, 127, 128 };

	return max == 32 ? l4[rnd() % RTE_DIM(l4)] : l6[rnd() % RTE_DIM(l6)];
}

/* Addresses the random classes and packets are drawn around. */
static uint32_t base4[4];
static uint8_t base6[4][16];

/* Flip a random bit of @p a (@p bytes long) at or after bit @p from, sometimes. */
static void rnd_near(uint8_t *a, unsigned bytes, unsigned from)
{
	if (rnd() % 2 && from < bytes * 8) {
		unsigned b = from + rnd() % (bytes * 8 - from);
		a[b / 8] ^= (uint8_t)(0x80 >> (b % 8));
	}
	if (rnd() % 4 == 0 && from > 0) { /* just inside the prefix */
		unsigned b = from - 1 - rnd() % RTE_MIN(from, 3u);
		a[b / 8] ^= (uint8_t)(0x80 >> (b % 8));
	}
}

static void rnd_range(uint16_t *lo, uint16_t *hi)
{
	static const uint16_t ends[] = { 0, 1, 53, 80, 443, 1023, 1024, 4791, 65534, 65535 };
	uint16_t a = ends[rnd() % RTE_DIM(ends)], b = ends[rnd() % RTE_DIM(ends)];

	*lo = RTE_MIN(a, b);
	*hi = RTE_MAX(a, b);
}

/* A random class: each field constrained with probability 1/3. */
static struct qos_class_conf rnd_class(uint32_t prio)
{
	struct qos_class_conf c = any_class(prio);
	struct qos_match *mt = &c.match;
	static const int protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP, IPPROTO_ICMP, 0 };
	int fam = rnd() % 3 == 0 ? (rnd() % 2 ? AF_INET : AF_INET6) : 0;

	if (rnd() % 3 == 0)
		mt->protocol = protos[rnd() % RTE_DIM(protos)];
	for (int side = 0; side < 2 && fam != 0; side++) {
		struct cfg_prefix *p = side ? &mt->dst : &mt->src;
		if (rnd() % 2)
			continue;
		p->addr.family = fam;
		if (fam == AF_INET) {
			p->len = rnd_len(32);
			p->addr.v4 = base4[rnd() % 4] & (p->len ? ~0u << (32 - p->len) : 0);
		} else {
			p->len = rnd_len(128);
			memcpy(p->addr.v6, base6[rnd() % 4], 16);
			for (unsigned b = p->len; b < 128; b++)
				p->addr.v6[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
		}
		*(side ? &mt->has_dst : &mt->has_src) = true;
	}
	mt->family = fam;
	if (rnd() % 3 == 0)
		rnd_range(&mt->sport_lo, &mt->sport_hi);
	if (rnd() % 3 == 0)
		rnd_range(&mt->dport_lo, &mt->dport_hi);
	if (rnd() % 3 == 0) {
		int a = (int)(rnd() % 64), b = (int)(rnd() % 64);
		mt->dscp_lo = RTE_MIN(a, b);
		mt->dscp_hi = RTE_MAX(a, b);
	}
	if (rnd() % 4 == 0)
		mt->pcp = (int)(rnd() % 8);
	if (rnd() % 4 == 0)
		mt->ingress = (int)(rnd() % 3);
	else if (rnd() % 6 == 0)
		mt->vrf = (int)(rnd() % 2);
	return c;
}

/* A frame to draw: its fields, IPv6 addresses, ingress port and TCI. */
struct rnd_pkt {
	struct pkt k;
	uint8_t a6[2][16];
	uint16_t port, tci;
};

/* Change the field @p what of @p r (0..8) to a random value around the bases. */
static void rnd_field(struct rnd_pkt *r, unsigned what)
{
	static const uint16_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP, IPPROTO_ICMP,
					   PROTO_0 };
	static const uint16_t tcis[] = { 0, 100, 200, 5 << 13 | 100, 0x1000 | 200, 3 << 13 };
	static const uint16_t ports_[] = { 0, 1, 52, 53, 54, 80, 443, 1023, 1024, 4791, 65535 };
	struct pkt *k = &r->k;
	uint8_t a[4];
	int s = (int)(rnd() % 2);

	switch (what) {
	case 0:
		k->proto = protos[rnd() % RTE_DIM(protos)];
		break;
	case 1:
		k->sport = rnd() % 2 ? ports_[rnd() % RTE_DIM(ports_)] : (uint16_t)rnd();
		break;
	case 2:
		k->dport = rnd() % 2 ? ports_[rnd() % RTE_DIM(ports_)] : (uint16_t)rnd();
		break;
	case 3:
		k->tos = (uint8_t)rnd(); /* DSCP and the ECN bits */
		break;
	case 4:
		k->tagged = rnd() % 4 == 0;
		k->tag = (uint16_t)rnd();
		break;
	case 5:
		k->frag = (uint16_t)(rnd() % 4 ? 0 : rnd() % 2 ? 0x2000 : 0x0010);
		break;
	case 6: { /* an address near a base */
		uint32_t v = base4[rnd() % 4];
		memcpy(a, &v, 4);
		rnd_near(a, 4, rnd_len(32));
		memcpy(&v, a, 4);
		*(s ? &k->dst4 : &k->src4) = v;
		memcpy(r->a6[s], base6[rnd() % 4], 16);
		rnd_near(r->a6[s], 16, rnd_len(128));
		break;
	}
	case 7:
		r->port = rnd() % 8 ? port_ids[rnd() % 2] : (uint16_t)(rnd() % 16);
		break;
	default:
		r->tci = tcis[rnd() % RTE_DIM(tcis)];
		break;
	}
}

static struct rnd_pkt rnd_pkt(void)
{
	struct rnd_pkt r = { .k = { .family = rnd() % 2 ? 4 : 6 } };

	for (unsigned w = 0; w < 9; w++)
		rnd_field(&r, w);
	rnd_field(&r, 6); /* the other address */
	return r;
}

static struct rte_mbuf *rnd_mbuf(const struct rnd_pkt *r)
{
	struct pkt k = r->k;

	if (k.family == 6)
		k.frag = 0;
	struct frame f = frame_of(k);
	if (k.family == 6) {
		uint8_t *ip = f.b + (k.tagged ? 18 : 14);
		memcpy(ip + 8, r->a6[0], 16);
		memcpy(ip + 24, r->a6[1], 16);
	}
	return mbuf_of(&f, f.len, r->port, r->tci);
}

/*
 * Random policies (1 to 40 classes, each field constrained one time in
 * three: prefixes of lengths off byte boundaries, port ranges, DSCP ranges,
 * PCP, ingress interface or VRF) and random frames around their values:
 * one line's cache, kept across bursts, gives rte_acl's class every time.
 */
static void cache_random(void **state)
{
	(void)state;
	static struct qos_class_conf cl[40];
	uint64_t hits = 0, total = 0;

	for (int i = 0; i < 4; i++) {
		base4[i] = rnd();
		for (int j = 0; j < 16; j++)
			base6[i][j] = (uint8_t)rnd();
	}
	for (int pol = 0; pol < 60; pol++) {
		int n = 1 + (int)(rnd() % 40);
		static struct qos_classify_cache cc;
		for (int i = 0; i < n; i++)
			cl[i] = rnd_class((uint32_t)(rnd() % 1000) * 64 + (uint32_t)i);
		struct qos_classifier *c = build(cl, n);
		struct rnd_pkt pool_[48];
		memset(&cc, 0, sizeof(cc));
		for (size_t i = 0; i < RTE_DIM(pool_); i++)
			pool_[i] = rnd_pkt();
		for (int burst = 0; burst < 60; burst++) {
			struct rte_mbuf *m[64];
			uint32_t want[64], got[64];
			uint8_t ip[64];
			unsigned nb = 1 + rnd() % 64;
			for (unsigned i = 0; i < nb; i++) {
				/* a frame of the pool, one field changed or none:
				 * many share a masked key, differing elsewhere */
				struct rnd_pkt r = pool_[rnd() % RTE_DIM(pool_)];
				if (rnd() % 2)
					rnd_field(&r, rnd() % 9);
				m[i] = rnd_mbuf(&r);
			}
			qos_classify_burst(c, m, nb, want);
			uint64_t misses = cc.misses;
			qos_classify_burst_ip(c, &cc, m, nb, got, ip);
			hits += nb - (cc.misses - misses);
			total += nb;
			for (unsigned i = 0; i < nb; i++) {
				if (got[i] != want[i])
					fail_msg("policy %d burst %d packet %u: cached class %u, "
						 "rte_acl's %u",
						 pol, burst, i, got[i], want[i]);
				rte_pktmbuf_free(m[i]);
			}
		}
		qos_classifier_free(c);
	}
	print_message("cache_random: %" PRIu64 " of %" PRIu64 " packets from the cache\n", hits,
		      total);
	assert_true(hits > 0);
}

/* ---- EAL ----------------------------------------------------------------- */

static int eal_setup(void **state)
{
	char prefix[64];
	/* vbrd's default eal.max_simd_bitwidth (512): rte_acl's classify
	 * method here is the one vbrd uses on the same CPU */
	char *argv[] = {
		"test_qos_classify",
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		prefix,
		"--log-level=*:warning",
		"--no-telemetry",
		"--force-max-simd-bitwidth=512",
		NULL,
	};
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;

	(void)state;
	snprintf(prefix, sizeof(prefix), "--file-prefix=vbrd-unit-qos-cls-%d", (int)getpid());
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	pool = rte_pktmbuf_pool_create("qos-cls", 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static int eal_teardown(void **state)
{
	char dir[PATH_MAX];

	(void)state;
	rte_mempool_free(pool);
	/* --no-shconf leaves the runtime directory empty: remove it too */
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_layout),
		cmocka_unit_test(priority_order),
		cmocka_unit_test(protocol_and_ports),
		cmocka_unit_test(port_range_needs_ports),
		cmocka_unit_test(prefixes),
		cmocka_unit_test(families),
		cmocka_unit_test(dscp_range),
		cmocka_unit_test(dscp_only_classes),
		cmocka_unit_test(ingress_interface),
		cmocka_unit_test(ingress_vrf),
		cmocka_unit_test(ingress_pcp),
		cmocka_unit_test(tagged_egress),
		cmocka_unit_test(fragments),
		cmocka_unit_test(no_class),
		cmocka_unit_test(truncated),
		cmocka_unit_test(many_classes),
		cmocka_unit_test(cache_random),
		cmocka_unit_test(cache_eviction),
		cmocka_unit_test(build_errors),
		cmocka_unit_test(dscp_ipv4_checksum),
		cmocka_unit_test(dscp_ipv6),
		cmocka_unit_test(dscp_not_ip),
		cmocka_unit_test(pcp_set),
		cmocka_unit_test(ecn_set_ce),
		cmocka_unit_test(ecn_ce_checksum_exact),
	};

	return cmocka_run_group_tests_name("qos_classify", tests, eal_setup, eal_teardown);
}
