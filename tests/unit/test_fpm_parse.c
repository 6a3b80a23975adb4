/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the FPM stream parser and encoder (frr/fpm/fpm_parse.c,
 * fpm_encode.c).
 *
 * Two sources of frames, so that a test never trusts the code it checks:
 *   - frames captured from zebra 8.4.4 (Debian 12's frr, -M dplane_fpm_nl,
 *     static routes through staticd; tests/tools/fpm-capture.sh), as hex;
 *   - frames built here byte by byte (struct fb below, not libmnl) for
 *     every message kind and every malformed case.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "frr/fpm/fpm_parse.h"

/* ---- frames captured from zebra 8.4.4 ------------------------------------- */

/*
 * Each as written on the TCP connection (FPM header included). nlmsg_pid
 * is zebra's netlink port id (3e41cb89); nlmsg_seq is 0.
 */
/* RTM_NEWNEXTHOP id 16: gateway 10.0.0.2, interface 3; family AF_INET,
 * protocol 11 (RTPROT_ZEBRA), NLM_F_REQUEST|NLM_F_REPLACE|NLM_F_CREATE */
#define CAP_NH_GW                                                                                 \
	"010100343000000068000105000000003e41cb8902000b00000000000800010010000000080006000a00000" \
	"20800050003000000"
/* RTM_NEWNEXTHOP id 20: a group of 16 and 21, weights 1 (wire 0), AF_UNSPEC */
#define CAP_NH_GROUP                                                                               \
	"010100383400000068000105000000003e41cb8900000b000000000008000100140000001400020010000000" \
	"000000001500000000000000"
/* RTM_NEWROUTE 198.51.100.0/24 table 254, protocol 196 (static), metric 20,
 * RTA_NH_ID 20 (`fpm use-next-hop-groups`, the default) */
#define CAP_ROUTE_NHID                                                                             \
	"010100383400000018000105000000003e41cb8902180000fec400010000000008000100c633640008000600" \
	"1400000008001e0014000000"
/* A route update in one frame: RTM_DELROUTE 192.0.2.0/24 (rtm_type 0, no
 * next hop, no NLM_F_REPLACE), then RTM_NEWROUTE 192.0.2.0/24 RTA_NH_ID 21 */
#define CAP_UPDATE                                                                                 \
	"010100642c00000019000104000000003e41cb8902180000fec400000000000008000100c000020008000600" \
	"140000003400000018000105000000003e41cb8902180000fec400010000000008000100c000020008000600" \
	"1400000008001e0015000000"
/* RTM_NEWROUTE 2001:db8:100::/48 over 2001:db8::2 (if 3) and 2001:db8:1::2
 * (if 5) in RTA_MULTIPATH (`no fpm use-next-hop-groups`); IPv6: no
 * NLM_F_REPLACE */
#define CAP_ROUTE6_MULTIPATH                                                                       \
	"010100787400000018000104000000003e41cb890a300000fec40001000000001400010020010db801000000" \
	"000000000000000008000600140000003c0009801c000000030000001400050020010db80000000000000000" \
	"000000021c000000050000001400050020010db8000100000000000000000002"
/* RTM_NEWROUTE 2001:db8:dead::/48, RTN_BLACKHOLE, no next hop */
#define CAP_ROUTE6_BLACKHOLE                                                                       \
	"0101003c3800000018000104000000003e41cb890a300000fec40006000000001400010020010db8dead0000" \
	"00000000000000000800060014000000"
/* RTM_NEWROUTE 192.0.2.128/25 in table 1000: rtm_table 0, RTA_TABLE 1000 */
#define CAP_ROUTE_TABLE                                                                            \
	"010100403c00000018000105000000003e41cb890219000000c400010000000008000100c000028008000600" \
	"1400000008000f00e803000008001e0010000000"
/* RTM_DELNEXTHOP id 20: NHA_ID only, family 0, protocol 0 */
#define CAP_NH_DEL "010100242000000069000104000000003e41cb8900000000000000000800010014000000"

/* ---- frame builder --------------------------------------------------------- */

/* A frame being built: netlink fields in host order, as netlink has them. */
struct fb {
	_Alignas(4) uint8_t b[FPM_FRAME_MAX + 64];
	size_t len;
	size_t msg; /* offset of the message being built */
};

static void put8(struct fb *f, uint8_t v)
{
	f->b[f->len++] = v;
}

static void put16(struct fb *f, uint16_t v)
{
	memcpy(f->b + f->len, &v, 2);
	f->len += 2;
}

static void put32(struct fb *f, uint32_t v)
{
	memcpy(f->b + f->len, &v, 4);
	f->len += 4;
}

static void pad4(struct fb *f)
{
	while (f->len % 4)
		put8(f, 0);
}

/* An FPM header whose length fb_end() writes. */
static void fb_start(struct fb *f)
{
	memset(f, 0, sizeof(*f));
	f->b[0] = 1; /* version */
	f->b[1] = 1; /* netlink */
	f->len = 4;
}

static void fb_end(struct fb *f)
{
	f->b[2] = (uint8_t)(f->len >> 8);
	f->b[3] = (uint8_t)f->len;
}

/* struct nlmsghdr: length (nl_end), type, flags, seq 0, pid 0 */
static void nl_start(struct fb *f, uint16_t type, uint16_t flags)
{
	f->msg = f->len;
	put32(f, 0);
	put16(f, type);
	put16(f, flags);
	put32(f, 0);
	put32(f, 0);
}

static void nl_end(struct fb *f)
{
	uint32_t len = (uint32_t)(f->len - f->msg);

	memcpy(f->b + f->msg, &len, 4);
	pad4(f);
}

/* struct rtmsg: family, dst_len, src_len 0, tos 0, table, protocol,
 * scope universe, type, flags */
static void rtmsg_put(struct fb *f, uint8_t family, uint8_t dst_len, uint8_t table,
		      uint8_t protocol, uint8_t type, uint32_t flags)
{
	put8(f, family);
	put8(f, dst_len);
	put8(f, 0);
	put8(f, 0);
	put8(f, table);
	put8(f, protocol);
	put8(f, 0);
	put8(f, type);
	put32(f, flags);
}

/* struct nhmsg: family, scope 0, protocol, reserved 0, flags */
static void nhmsg_put(struct fb *f, uint8_t family, uint8_t protocol, uint32_t flags)
{
	put8(f, family);
	put8(f, 0);
	put8(f, protocol);
	put8(f, 0);
	put32(f, flags);
}

/* struct nlattr and its payload, padded to 4 */
static void attr(struct fb *f, uint16_t type, const void *data, size_t len)
{
	put16(f, (uint16_t)(4 + len));
	put16(f, type);
	if (len)
		memcpy(f->b + f->len, data, len);
	f->len += len;
	pad4(f);
}

static void attr32(struct fb *f, uint16_t type, uint32_t v)
{
	attr(f, type, &v, 4);
}

/* An address attribute from text: 4 bytes for a dotted quad, else 16. */
static void attr_ip(struct fb *f, uint16_t type, const char *s)
{
	uint8_t a[16];

	if (inet_pton(AF_INET, s, a) == 1)
		attr(f, type, a, 4);
	else if (inet_pton(AF_INET6, s, a) == 1)
		attr(f, type, a, 16);
	else
		fail_msg("bad address %s", s);
}

/* A nested attribute's header; nest_end() writes its length. */
static size_t nest_start(struct fb *f, uint16_t type)
{
	size_t at = f->len;

	put16(f, 0);
	put16(f, type);
	return at;
}

static void nest_end(struct fb *f, size_t at)
{
	uint16_t len = (uint16_t)(f->len - at);

	memcpy(f->b + at, &len, 2);
}

/* struct rtnexthop: len (rtnh_end), flags, hops, ifindex */
static size_t rtnh_start(struct fb *f, uint8_t flags, uint8_t hops, int ifindex)
{
	size_t at = f->len;

	put16(f, 0);
	put8(f, flags);
	put8(f, hops);
	put32(f, (uint32_t)ifindex);
	return at;
}

static void rtnh_end(struct fb *f, size_t at)
{
	nest_end(f, at);
}

/* The common route head: nlmsghdr and rtmsg of table 254, protocol static */
static void route_start(struct fb *f, uint16_t type, uint16_t flags, uint8_t family,
			uint8_t dst_len, uint8_t rtn)
{
	nl_start(f, type, flags);
	rtmsg_put(f, family, dst_len, RT_TABLE_MAIN, 196, rtn, 0);
}

#define F_ADD  (NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE)
#define F_ADD6 (NLM_F_REQUEST | NLM_F_CREATE)
#define F_DEL  (NLM_F_REQUEST | NLM_F_CREATE)

/* A frame of one IPv4 route 10.1.0.0/16 via 10.0.0.2 on 3; tests change it. */
static void one_route4(struct fb *f)
{
	fb_start(f);
	route_start(f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(f, RTA_DST, "10.1.0.0");
	attr32(f, RTA_PRIORITY, 20);
	attr_ip(f, RTA_GATEWAY, "10.0.0.2");
	attr32(f, RTA_OIF, 3);
	nl_end(f);
	fb_end(f);
}

static size_t hex2bin(const char *hex, uint8_t *out)
{
	size_t n = strlen(hex) / 2, i;
	unsigned int x;

	for (i = 0; i < n; i++) {
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &x), 1);
		out[i] = (uint8_t)x;
	}
	return n;
}

static void fb_hex(struct fb *f, const char *hex)
{
	memset(f, 0, sizeof(*f));
	f->len = hex2bin(hex, f->b);
}

/* ---- parsing helpers --------------------------------------------------------- */

static struct fpm_msg msgs[8];
static char err[256];

static int parse(const struct fb *f, unsigned int *nb)
{
	return fpm_frame_parse(f->b, f->len, msgs, 8, nb, err, sizeof(err));
}

/* Parse a frame that must be good; return its message count. */
static unsigned int parse_ok(const struct fb *f)
{
	unsigned int nb = 99;
	int ret = parse(f, &nb);

	if (ret != 0)
		fail_msg("parse: %d: %s", ret, err);
	return nb;
}

/* Parse a frame that must be -EBADMSG with @p needle in a one-line error. */
static void expect_bad(const struct fb *f, const char *needle)
{
	unsigned int nb = 99;
	int ret = parse(f, &nb);

	if (ret != -EBADMSG)
		fail_msg("parse returned %d, not -EBADMSG (looking for \"%s\"): %s", ret, needle,
			 err);
	assert_int_equal(nb, 0);
	if (!strstr(err, needle))
		fail_msg("error \"%s\" lacks \"%s\"", err, needle);
	assert_null(strchr(err, '\n'));
}

/* One message that must be FPM_UNSUPPORTED with @p needle in its reason. */
static void expect_unsupported(const struct fb *f, enum fpm_msg_kind op, const char *needle)
{
	assert_int_equal(parse_ok(f), 1);
	if (msgs[0].kind != FPM_UNSUPPORTED)
		fail_msg("kind %s, not unsupported (looking for \"%s\")",
			 fpm_msg_kind_name(msgs[0].kind), needle);
	assert_int_equal(msgs[0].op, op);
	if (!strstr(msgs[0].why, needle))
		fail_msg("reason \"%s\" lacks \"%s\"", msgs[0].why, needle);
}

static uint32_t ip4(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return ntohl(a.s_addr);
}

static void assert_ip6(const uint8_t *v6, const char *s)
{
	uint8_t a[16];

	assert_int_equal(inet_pton(AF_INET6, s, a), 1);
	assert_memory_equal(v6, a, 16);
}

/* ---- fpm_frame_len ------------------------------------------------------------ */

static void test_frame_len(void **state)
{
	struct fb f;
	uint8_t two[2 * sizeof(f.b)];
	size_t i;

	(void)state;
	one_route4(&f);
	/* a frame arriving byte by byte: "need more" until its last byte */
	for (i = 0; i < f.len; i++)
		assert_int_equal(fpm_frame_len(f.b, i, NULL, 0), 0);
	assert_int_equal(fpm_frame_len(f.b, f.len, NULL, 0), (long)f.len);
	/* the next frame's bytes behind it change nothing */
	memcpy(two, f.b, f.len);
	memcpy(two + f.len, f.b, f.len);
	assert_int_equal(fpm_frame_len(two, 2 * f.len, NULL, 0), (long)f.len);
	assert_int_equal(fpm_frame_len(two + f.len, f.len, NULL, 0), (long)f.len);
	/* a bare header is a frame, of no message */
	fb_start(&f);
	fb_end(&f);
	assert_int_equal(fpm_frame_len(f.b, 4, NULL, 0), 4);
	assert_int_equal(parse_ok(&f), 0);
}

static void test_frame_len_bad(void **state)
{
	static const struct {
		uint8_t hdr[4];
		const char *needle;
	} cases[] = {
		{ { 0, 1, 0, 8 }, "FPM version 0" },
		{ { 2, 1, 0, 8 }, "FPM version 2" },
		{ { 1, 2, 0, 8 }, "message type 2" }, /* protobuf */
		{ { 1, 0, 0, 8 }, "message type 0" },
		{ { 1, 1, 0, 0 }, "length 0" },
		{ { 1, 1, 0, 3 }, "length 3" },
		{ { 1, 1, 0, 10 }, "length 10" }, /* not a multiple of 4 */
		{ { 1, 1, (FPM_FRAME_MAX + 4) >> 8, (FPM_FRAME_MAX + 4) & 0xff }, "length 8200" },
		{ { 1, 1, 0xff, 0xfc }, "length 65532" },
	};
	char e[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e[0] = 0;
		assert_int_equal(fpm_frame_len(cases[i].hdr, 4, e, sizeof(e)), -EBADMSG);
		if (!strstr(e, cases[i].needle))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, e, cases[i].needle);
		/* NULL err is fine */
		assert_int_equal(fpm_frame_len(cases[i].hdr, 4, NULL, 0), -EBADMSG);
	}
	/* the largest frame is accepted */
	{
		uint8_t h[4] = { 1, 1, FPM_FRAME_MAX >> 8, FPM_FRAME_MAX & 0xff };

		assert_int_equal(fpm_frame_len(h, 4, NULL, 0), 0);
	}
}

/* ---- zebra's frames --------------------------------------------------------- */

static void test_zebra_nexthops(void **state)
{
	struct fb f;

	(void)state;
	fb_hex(&f, CAP_NH_GW);
	assert_int_equal(fpm_frame_len(f.b, f.len, NULL, 0), (long)f.len);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_NH_ADD);
	assert_int_equal(msgs[0].nh.id, 16);
	assert_int_equal(msgs[0].nh.family, AF_INET);
	assert_int_equal(msgs[0].nh.protocol, 11);
	assert_true(msgs[0].nh.replace);
	assert_int_equal(msgs[0].nh.gw.family, AF_INET);
	assert_int_equal(msgs[0].nh.gw.v4, ip4("10.0.0.2"));
	assert_int_equal(msgs[0].nh.ifindex, 3);
	assert_int_equal(msgs[0].nh.nb_group, 0);
	assert_false(msgs[0].nh.blackhole);

	fb_hex(&f, CAP_NH_GROUP);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_NH_ADD);
	assert_int_equal(msgs[0].nh.id, 20);
	assert_int_equal(msgs[0].nh.family, AF_UNSPEC);
	assert_int_equal(msgs[0].nh.nb_group, 2);
	assert_int_equal(msgs[0].nh.group[0].id, 16);
	assert_int_equal(msgs[0].nh.group[0].weight, 1);
	assert_int_equal(msgs[0].nh.group[1].id, 21);
	assert_int_equal(msgs[0].nh.group[1].weight, 1);
	assert_int_equal(msgs[0].nh.gw.family, 0);

	fb_hex(&f, CAP_NH_DEL);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_NH_DEL);
	assert_int_equal(msgs[0].nh.id, 20);
	assert_false(msgs[0].nh.replace);
}

static void test_zebra_routes(void **state)
{
	struct fb f;

	(void)state;
	fb_hex(&f, CAP_ROUTE_NHID);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);
	assert_int_equal(msgs[0].op, FPM_ROUTE_ADD);
	assert_int_equal(msgs[0].nl_type, RTM_NEWROUTE);
	assert_string_equal(msgs[0].why, "");
	assert_int_equal(msgs[0].route.dst.addr.family, AF_INET);
	assert_int_equal(msgs[0].route.dst.addr.v4, ip4("198.51.100.0"));
	assert_int_equal(msgs[0].route.dst.len, 24);
	assert_int_equal(msgs[0].route.table, 254);
	assert_int_equal(msgs[0].route.protocol, 196);
	assert_int_equal(msgs[0].route.type, RTN_UNICAST);
	assert_int_equal(msgs[0].route.metric, 20);
	assert_int_equal(msgs[0].route.nh_id, 20);
	assert_int_equal(msgs[0].route.nb_nh, 0);
	assert_true(msgs[0].route.replace);
	assert_false(msgs[0].route.blackhole);

	fb_hex(&f, CAP_UPDATE);
	assert_int_equal(parse_ok(&f), 2);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_DEL);
	assert_int_equal(msgs[0].route.dst.addr.v4, ip4("192.0.2.0"));
	assert_int_equal(msgs[0].route.dst.len, 24);
	assert_int_equal(msgs[0].route.type, RTN_UNSPEC);
	assert_int_equal(msgs[0].route.nb_nh, 0);
	assert_false(msgs[0].route.replace);
	assert_int_equal(msgs[1].kind, FPM_ROUTE_ADD);
	assert_int_equal(msgs[1].route.dst.addr.v4, ip4("192.0.2.0"));
	assert_int_equal(msgs[1].route.nh_id, 21);

	fb_hex(&f, CAP_ROUTE6_MULTIPATH);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);
	assert_int_equal(msgs[0].route.dst.addr.family, AF_INET6);
	assert_ip6(msgs[0].route.dst.addr.v6, "2001:db8:100::");
	assert_int_equal(msgs[0].route.dst.len, 48);
	assert_false(msgs[0].route.replace);
	assert_int_equal(msgs[0].route.nh_id, 0);
	assert_int_equal(msgs[0].route.nb_nh, 2);
	assert_int_equal(msgs[0].route.nh[0].gw.family, AF_INET6);
	assert_ip6(msgs[0].route.nh[0].gw.v6, "2001:db8::2");
	assert_int_equal(msgs[0].route.nh[0].ifindex, 3);
	assert_int_equal(msgs[0].route.nh[0].weight, 1);
	assert_ip6(msgs[0].route.nh[1].gw.v6, "2001:db8:1::2");
	assert_int_equal(msgs[0].route.nh[1].ifindex, 5);

	fb_hex(&f, CAP_ROUTE6_BLACKHOLE);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);
	assert_true(msgs[0].route.blackhole);
	assert_int_equal(msgs[0].route.type, RTN_BLACKHOLE);
	assert_int_equal(msgs[0].route.nb_nh, 0);

	fb_hex(&f, CAP_ROUTE_TABLE);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].route.table, 1000);
	assert_int_equal(msgs[0].route.dst.len, 25);
}

/* The encoder writes zebra's frames again, byte for byte but nlmsg_pid. */
static void test_zebra_reencoded(void **state)
{
	static const char *const caps[] = {
		CAP_NH_GW,  CAP_NH_GROUP,         CAP_ROUTE_NHID,       CAP_UPDATE,
		CAP_NH_DEL, CAP_ROUTE6_MULTIPATH, CAP_ROUTE6_BLACKHOLE, CAP_ROUTE_TABLE,
	};
	_Alignas(4) uint8_t out[FPM_FRAME_MAX];
	struct fb f;
	unsigned int nb;
	size_t i, off;
	long len;

	(void)state;
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		fb_hex(&f, caps[i]);
		nb = parse_ok(&f);
		len = fpm_frame_encode(msgs, nb, out, sizeof(out));
		assert_int_equal(len, (long)f.len);
		/* nlmsg_pid: zebra's netlink port id, 0 from the encoder */
		for (off = 4; off + 16 <= f.len;) {
			uint32_t l;

			memcpy(&l, f.b + off, 4);
			memset(f.b + off + 12, 0, 4);
			off += (l + 3) & ~3u;
		}
		assert_memory_equal(out, f.b, f.len);
	}
}

/* ---- hand-built messages -------------------------------------------------------- */

static void test_route4_single(void **state)
{
	struct fb f;

	(void)state;
	one_route4(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);
	assert_int_equal(msgs[0].nl_flags, F_ADD);
	assert_int_equal(msgs[0].route.dst.addr.family, AF_INET);
	assert_int_equal(msgs[0].route.dst.addr.v4, ip4("10.1.0.0"));
	assert_int_equal(msgs[0].route.dst.len, 16);
	assert_int_equal(msgs[0].route.table, 254);
	assert_int_equal(msgs[0].route.metric, 20);
	assert_true(msgs[0].route.replace);
	assert_int_equal(msgs[0].route.nb_nh, 1);
	assert_int_equal(msgs[0].route.nh[0].gw.family, AF_INET);
	assert_int_equal(msgs[0].route.nh[0].gw.v4, ip4("10.0.0.2"));
	assert_int_equal(msgs[0].route.nh[0].ifindex, 3);
	assert_int_equal(msgs[0].route.nh[0].weight, 1);
	assert_false(msgs[0].route.nh[0].onlink);

	/* connected: an interface and no gateway; RTA_TABLE wins over
	 * rtm_table; no RTA_PRIORITY is metric 0; onlink from rtm_flags */
	fb_start(&f);
	nl_start(&f, RTM_NEWROUTE, F_ADD6);
	rtmsg_put(&f, AF_INET, 24, 10, 2, RTN_UNICAST, RTNH_F_ONLINK);
	attr_ip(&f, RTA_DST, "10.0.0.0");
	attr32(&f, RTA_TABLE, 100000);
	attr32(&f, RTA_OIF, 7);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);
	assert_int_equal(msgs[0].route.table, 100000);
	assert_int_equal(msgs[0].route.protocol, 2);
	assert_int_equal(msgs[0].route.metric, 0);
	assert_false(msgs[0].route.replace);
	assert_int_equal(msgs[0].route.nb_nh, 1);
	assert_int_equal(msgs[0].route.nh[0].gw.family, 0);
	assert_int_equal(msgs[0].route.nh[0].ifindex, 7);
	assert_true(msgs[0].route.nh[0].onlink);

	/* a default route without RTA_DST (the kernel takes it; zebra sends one) */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 0, RTN_UNICAST);
	attr_ip(&f, RTA_GATEWAY, "192.0.2.1");
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);
	assert_int_equal(msgs[0].route.dst.addr.family, AF_INET);
	assert_int_equal(msgs[0].route.dst.addr.v4, 0);
	assert_int_equal(msgs[0].route.dst.len, 0);
	assert_int_equal(msgs[0].route.nh[0].gw.v4, ip4("192.0.2.1"));
	assert_int_equal(msgs[0].route.nh[0].ifindex, 0);
}

static void test_route6(void **state)
{
	struct fb f;

	(void)state;
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD6, AF_INET6, 128, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "2001:db8::5");
	attr32(&f, RTA_PRIORITY, 1024);
	attr_ip(&f, RTA_GATEWAY, "fe80::1");
	attr32(&f, RTA_OIF, 4);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);
	assert_int_equal(msgs[0].route.dst.addr.family, AF_INET6);
	assert_ip6(msgs[0].route.dst.addr.v6, "2001:db8::5");
	assert_int_equal(msgs[0].route.dst.len, 128);
	assert_int_equal(msgs[0].route.metric, 1024);
	assert_ip6(msgs[0].route.nh[0].gw.v6, "fe80::1");
	assert_int_equal(msgs[0].route.nh[0].ifindex, 4);

	/* a delete as zebra writes it: prefix, metric, nothing else */
	fb_start(&f);
	route_start(&f, RTM_DELROUTE, F_DEL, AF_INET6, 32, RTN_UNSPEC);
	attr_ip(&f, RTA_DST, "2001:db8::");
	attr32(&f, RTA_PRIORITY, 20);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_DEL);
	assert_ip6(msgs[0].route.dst.addr.v6, "2001:db8::");
	assert_int_equal(msgs[0].route.dst.len, 32);
	assert_int_equal(msgs[0].route.nb_nh, 0);
}

/* RTA_MULTIPATH with weights (rtnh_hops + 1), onlink, RTA_FLOW ignored, and
 * the NLA_F_NESTED bit zebra sets on the nest. */
static void test_route_multipath(void **state)
{
	struct fb f;
	size_t nest, nh;

	(void)state;
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 8, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.0.0.0");
	nest = nest_start(&f, RTA_MULTIPATH | NLA_F_NESTED);
	nh = rtnh_start(&f, 0, 0, 3);
	attr_ip(&f, RTA_GATEWAY, "192.0.2.1");
	rtnh_end(&f, nh);
	nh = rtnh_start(&f, RTNH_F_ONLINK, 4, 5);
	attr_ip(&f, RTA_GATEWAY, "169.254.0.1");
	attr32(&f, RTA_FLOW, 7);
	rtnh_end(&f, nh);
	nh = rtnh_start(&f, 0, 255, 6); /* no gateway: on-link */
	rtnh_end(&f, nh);
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);
	assert_int_equal(msgs[0].route.nb_nh, 3);
	assert_int_equal(msgs[0].route.nh[0].gw.v4, ip4("192.0.2.1"));
	assert_int_equal(msgs[0].route.nh[0].ifindex, 3);
	assert_int_equal(msgs[0].route.nh[0].weight, 1);
	assert_false(msgs[0].route.nh[0].onlink);
	assert_int_equal(msgs[0].route.nh[1].gw.v4, ip4("169.254.0.1"));
	assert_int_equal(msgs[0].route.nh[1].ifindex, 5);
	assert_int_equal(msgs[0].route.nh[1].weight, 5);
	assert_true(msgs[0].route.nh[1].onlink);
	assert_int_equal(msgs[0].route.nh[2].gw.family, 0);
	assert_int_equal(msgs[0].route.nh[2].ifindex, 6);
	assert_int_equal(msgs[0].route.nh[2].weight, 256);

	/* an empty RTA_MULTIPATH (zebra's, for a route without an active next
	 * hop) in a delete is fine */
	fb_start(&f);
	route_start(&f, RTM_DELROUTE, F_DEL, AF_INET, 8, RTN_UNSPEC);
	attr_ip(&f, RTA_DST, "10.0.0.0");
	nest = nest_start(&f, RTA_MULTIPATH);
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_DEL);
	assert_int_equal(msgs[0].route.nb_nh, 0);
}

static void test_route_blackholes(void **state)
{
	static const uint8_t types[] = { RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT };
	struct fb f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(types); i++) {
		fb_start(&f);
		route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 10, types[i]);
		attr_ip(&f, RTA_DST, "100.64.0.0");
		attr32(&f, RTA_PRIORITY, 20);
		nl_end(&f);
		fb_end(&f);
		assert_int_equal(parse_ok(&f), 1);
		assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);
		assert_true(msgs[0].route.blackhole);
		assert_int_equal(msgs[0].route.type, types[i]);
		assert_int_equal(msgs[0].route.nb_nh, 0);
	}
}

static void test_nexthops(void **state)
{
	struct fb f;
	struct nexthop_grp g[3] = {
		{ .id = 7, .weight = 0 },
		{ .id = 8, .weight = 9 },
		{ .id = 9, .weight = 255 },
	};
	uint16_t mpath = NEXTHOP_GRP_TYPE_MPATH;

	(void)state;
	/* IPv6 gateway, onlink */
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	nhmsg_put(&f, AF_INET6, 11, RTNH_F_ONLINK);
	attr32(&f, NHA_ID, 40);
	attr_ip(&f, NHA_GATEWAY, "2001:db8::1");
	attr32(&f, NHA_OIF, 2);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_NH_ADD);
	assert_int_equal(msgs[0].nh.id, 40);
	assert_int_equal(msgs[0].nh.family, AF_INET6);
	assert_ip6(msgs[0].nh.gw.v6, "2001:db8::1");
	assert_int_equal(msgs[0].nh.ifindex, 2);
	assert_true(msgs[0].nh.onlink);

	/* interface only */
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	nhmsg_put(&f, AF_INET, 11, 0);
	attr32(&f, NHA_ID, 5);
	attr32(&f, NHA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_NH_ADD);
	assert_int_equal(msgs[0].nh.gw.family, 0);
	assert_int_equal(msgs[0].nh.ifindex, 3);

	/* blackhole */
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	nhmsg_put(&f, AF_INET, 11, 0);
	attr32(&f, NHA_ID, 31);
	attr(&f, NHA_BLACKHOLE, NULL, 0);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_NH_ADD);
	assert_true(msgs[0].nh.blackhole);
	assert_int_equal(msgs[0].nh.ifindex, 0);

	/* a group with weights and an explicit hash-threshold type */
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	nhmsg_put(&f, AF_UNSPEC, 11, 0);
	attr32(&f, NHA_ID, 6);
	attr(&f, NHA_GROUP, g, sizeof(g));
	attr(&f, NHA_GROUP_TYPE, &mpath, 2);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_NH_ADD);
	assert_int_equal(msgs[0].nh.nb_group, 3);
	assert_int_equal(msgs[0].nh.group[0].id, 7);
	assert_int_equal(msgs[0].nh.group[0].weight, 1);
	assert_int_equal(msgs[0].nh.group[1].id, 8);
	assert_int_equal(msgs[0].nh.group[1].weight, 10);
	assert_int_equal(msgs[0].nh.group[2].id, 9);
	assert_int_equal(msgs[0].nh.group[2].weight, 256);

	/* a delete is its id */
	fb_start(&f);
	nl_start(&f, RTM_DELNEXTHOP, F_DEL);
	nhmsg_put(&f, AF_UNSPEC, 0, 0);
	attr32(&f, NHA_ID, 6);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_NH_DEL);
	assert_int_equal(msgs[0].nh.id, 6);
}

/* Several messages in one frame, in order: a next hop, then a route using it,
 * a message of another type between them. */
static void test_two_messages(void **state)
{
	struct fb f;

	(void)state;
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	nhmsg_put(&f, AF_INET, 11, 0);
	attr32(&f, NHA_ID, 77);
	attr_ip(&f, NHA_GATEWAY, "10.0.0.9");
	attr32(&f, NHA_OIF, 3);
	nl_end(&f);
	nl_start(&f, NLMSG_NOOP, 0);
	nl_end(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 32, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "192.0.2.7");
	attr32(&f, RTA_NH_ID, 77);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 3);
	assert_int_equal(msgs[0].kind, FPM_NH_ADD);
	assert_int_equal(msgs[0].nh.id, 77);
	assert_int_equal(msgs[1].kind, FPM_IGNORED);
	assert_string_equal(msgs[1].why, "NLMSG_NOOP");
	assert_int_equal(msgs[2].kind, FPM_ROUTE_ADD);
	assert_int_equal(msgs[2].route.nh_id, 77);
	assert_int_equal(msgs[2].route.dst.addr.v4, ip4("192.0.2.7"));

	/* room for two messages only: -ENOSPC, nothing returned */
	{
		unsigned int nb = 99;

		assert_int_equal(fpm_frame_parse(f.b, f.len, msgs, 2, &nb, err, sizeof(err)),
				 -ENOSPC);
		assert_int_equal(nb, 0);
		assert_non_null(strstr(err, "more than 2 messages"));
	}
}

static void test_ignored(void **state)
{
	static const struct {
		uint16_t type;
		const char *why;
	} cases[] = {
		{ RTM_NEWLINK, "RTM_NEWLINK" },   /* not sent by zebra 8.4 */
		{ RTM_NEWNEIGH, "RTM_NEWNEIGH" }, /* EVPN router MACs */
		{ NLMSG_DONE, "NLMSG_DONE" },
		{ 999, "netlink type 999" },
	};
	struct fb f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fb_start(&f);
		nl_start(&f, cases[i].type, NLM_F_REQUEST);
		put32(&f, 0xdeadbeef); /* a payload nobody reads */
		nl_end(&f);
		fb_end(&f);
		assert_int_equal(parse_ok(&f), 1);
		assert_int_equal(msgs[0].kind, FPM_IGNORED);
		assert_int_equal(msgs[0].op, FPM_IGNORED);
		assert_int_equal(msgs[0].nl_type, cases[i].type);
		assert_string_equal(msgs[0].why, cases[i].why);
	}
}

static void test_unsupported_routes(void **state)
{
	struct fb f;
	uint32_t label = 0x00064100;
	uint16_t encap_type = 1; /* LWTUNNEL_ENCAP_MPLS */
	size_t nest, nh, i;

	(void)state;
	/* an MPLS route (zebra's LSPs): nothing of the prefix is read */
	fb_start(&f);
	nl_start(&f, RTM_NEWROUTE, F_ADD);
	rtmsg_put(&f, AF_MPLS, 20, RT_TABLE_MAIN, 193, RTN_UNICAST, 0);
	attr(&f, RTA_DST, &label, 4);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "MPLS route");
	assert_int_equal(msgs[0].route.dst.addr.family, 0);

	/* labels pushed (RTA_ENCAP_TYPE + RTA_ENCAP): the prefix is reported */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr_ip(&f, RTA_GATEWAY, "10.0.0.2");
	attr32(&f, RTA_OIF, 3);
	attr(&f, RTA_ENCAP_TYPE, &encap_type, 2);
	nest = nest_start(&f, RTA_ENCAP | NLA_F_NESTED);
	attr(&f, 1, &label, 4); /* MPLS_IPTUNNEL_DST */
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "encapsulation");
	assert_int_equal(msgs[0].route.dst.addr.v4, ip4("10.1.0.0"));
	assert_int_equal(msgs[0].route.dst.len, 16);
	assert_int_equal(msgs[0].route.table, 254);

	/* the same inside a multipath next hop */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	nest = nest_start(&f, RTA_MULTIPATH);
	nh = rtnh_start(&f, 0, 0, 3);
	attr_ip(&f, RTA_GATEWAY, "10.0.0.2");
	attr(&f, RTA_NEWDST, &label, 4);
	rtnh_end(&f, nh);
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "next hop 1: MPLS label");

	/* source-specific (IPv6 src-dest routes) */
	fb_start(&f);
	nl_start(&f, RTM_NEWROUTE, F_ADD6);
	rtmsg_put(&f, AF_INET6, 64, RT_TABLE_MAIN, 196, RTN_UNICAST, 0);
	f.b[f.len - 10] = 56; /* rtm_src_len */
	attr_ip(&f, RTA_DST, "2001:db8::");
	attr_ip(&f, RTA_SRC, "2001:db8:ff::");
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "source-specific");

	/* a delete of one is unsupported too: it must not remove the plain route */
	f.b[4 + 4] = RTM_DELROUTE;
	expect_unsupported(&f, FPM_ROUTE_DEL, "source-specific");

	/* TOS */
	one_route4(&f);
	f.b[4 + 16 + 3] = 0x10;
	expect_unsupported(&f, FPM_ROUTE_ADD, "TOS 16");

	/* route types that are not forwarding or discarding */
	one_route4(&f);
	f.b[4 + 16 + 7] = RTN_LOCAL;
	expect_unsupported(&f, FPM_ROUTE_ADD, "route type 2");
	one_route4(&f);
	f.b[4 + 16 + 7] = RTN_UNSPEC; /* an add needs a type */
	expect_unsupported(&f, FPM_ROUTE_ADD, "route type 0");

	/* an attribute nobody knows, another the parser does not read */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_OIF, 3);
	attr32(&f, 200, 1);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "attribute 200");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_OIF, 3);
	attr32(&f, RTA_MARK, 1);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "RTA_MARK");

	/* ignored attributes are no reason: RTA_PREFSRC, RTA_METRICS, RTA_FLOW */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_OIF, 3);
	attr_ip(&f, RTA_PREFSRC, "10.0.0.1");
	nest = nest_start(&f, RTA_METRICS | NLA_F_NESTED);
	attr32(&f, RTAX_MTU, 1400);
	nest_end(&f, nest);
	attr32(&f, RTA_FLOW, 9);
	nl_end(&f);
	fb_end(&f);
	assert_int_equal(parse_ok(&f), 1);
	assert_int_equal(msgs[0].kind, FPM_ROUTE_ADD);

	/* an add with no next hop at all, or an empty RTA_MULTIPATH */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "no next hop");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	nest = nest_start(&f, RTA_MULTIPATH);
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "no next hop");

	/* a next hop of neither gateway nor interface */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_OIF, 0);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "no gateway and no interface");

	/* more next hops than FPM_MAX_PATHS (Debian's zebra allows 256) */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	nest = nest_start(&f, RTA_MULTIPATH);
	for (i = 0; i < FPM_MAX_PATHS + 1; i++) {
		uint32_t gw = htonl(0x0a000002 + (uint32_t)i);

		nh = rtnh_start(&f, 0, 0, 3);
		attr(&f, RTA_GATEWAY, &gw, 4);
		rtnh_end(&f, nh);
	}
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_ROUTE_ADD, "65 next hops, more than 64");
	assert_int_equal(msgs[0].route.nb_nh, FPM_MAX_PATHS);
}

static void test_unsupported_nexthops(void **state)
{
	struct nexthop_grp g[FPM_MAX_PATHS + 1];
	uint16_t u16 = 1;
	struct fb f;
	size_t i;

	(void)state;
	/* labels (NHA_ENCAP_TYPE + NHA_ENCAP) */
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	nhmsg_put(&f, AF_INET, 11, 0);
	attr32(&f, NHA_ID, 9);
	attr_ip(&f, NHA_GATEWAY, "10.0.0.2");
	attr32(&f, NHA_OIF, 3);
	attr(&f, NHA_ENCAP_TYPE, &u16, 2);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_NH_ADD, "encapsulation (NHA_ENCAP_TYPE");
	assert_int_equal(msgs[0].nh.id, 9);

	/* a resilient group */
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	nhmsg_put(&f, AF_UNSPEC, 11, 0);
	attr32(&f, NHA_ID, 10);
	memset(g, 0, sizeof(g));
	g[0].id = 1;
	g[1].id = 2;
	attr(&f, NHA_GROUP, g, 2 * sizeof(g[0]));
	attr(&f, NHA_GROUP_TYPE, &u16, 2);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_NH_ADD, "group type 1");

	/* a group over FPM_MAX_PATHS */
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	nhmsg_put(&f, AF_UNSPEC, 11, 0);
	attr32(&f, NHA_ID, 1000);
	for (i = 0; i < FPM_MAX_PATHS + 1; i++)
		g[i].id = (uint32_t)i + 1;
	attr(&f, NHA_GROUP, g, sizeof(g));
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_NH_ADD, "65 members");
	assert_int_equal(msgs[0].nh.nb_group, FPM_MAX_PATHS);

	/* a bridge FDB next hop: no interface needed, not supported */
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	nhmsg_put(&f, AF_INET, 11, 0);
	attr32(&f, NHA_ID, 11);
	attr_ip(&f, NHA_GATEWAY, "10.0.0.2");
	attr(&f, NHA_FDB, NULL, 0);
	nl_end(&f);
	fb_end(&f);
	expect_unsupported(&f, FPM_NH_ADD, "NHA_FDB");
}

/* ---- malformed -------------------------------------------------------------------- */

static void test_bad_frames(void **state)
{
	struct fb f;
	unsigned int nb;

	(void)state;
	/* 8 bytes after the header: not a netlink header */
	fb_start(&f);
	put32(&f, 8);
	put32(&f, 0);
	fb_end(&f);
	expect_bad(&f, "8 bytes, short of a netlink header");

	/* nlmsg_len past the frame, under a header */
	one_route4(&f);
	f.b[4] += 4;
	expect_bad(&f, "message 1: nlmsg_len");
	one_route4(&f);
	f.b[4] = 12;
	expect_bad(&f, "nlmsg_len 12");
	/* from 2^31 up: libmnl's mnl_nlmsg_ok() takes it as negative (fuzz_fpm) */
	one_route4(&f);
	f.b[4 + 3] = 0xfe;
	expect_bad(&f, "nlmsg_len 4261412924, 60 bytes left");
	fb_start(&f); /* a type nobody reads: nothing else looks at the length */
	nl_start(&f, NLMSG_NOOP, 0);
	nl_end(&f);
	f.b[4 + 3] = 0x80;
	fb_end(&f);
	expect_bad(&f, "nlmsg_len 2147483664, 16 bytes left");

	/* a second message cut short */
	one_route4(&f);
	memcpy(f.b + f.len, f.b + 4, 20);
	f.len += 20;
	fb_end(&f);
	expect_bad(&f, "message 2: nlmsg_len");
	/* or 8 bytes only */
	one_route4(&f);
	put32(&f, 8);
	put32(&f, 0);
	fb_end(&f);
	expect_bad(&f, "8 bytes after message 1, short of a netlink header");

	/* the frame shorter or longer than its header says */
	one_route4(&f);
	expect_bad(&(struct fb){ 0 }, "frame of 0 bytes");
	nb = 99;
	assert_int_equal(fpm_frame_parse(f.b, f.len - 4, msgs, 8, &nb, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "its header says"));
	f.len += 4;
	expect_bad(&f, "its header says");

	/* a bad header */
	one_route4(&f);
	f.b[0] = 3;
	expect_bad(&f, "FPM version 3");

	/* not 4-byte aligned: -EINVAL */
	{
		_Alignas(4) uint8_t shifted[sizeof(f.b) + 4];

		one_route4(&f);
		memcpy(shifted + 2, f.b, f.len);
		nb = 99;
		assert_int_equal(
			fpm_frame_parse(shifted + 2, f.len, msgs, 8, &nb, err, sizeof(err)),
			-EINVAL);
		assert_int_equal(nb, 0);
	}
}

/* A route message with one thing wrong, and the reason it must give. */
static void test_bad_routes(void **state)
{
	struct fb f;
	size_t nest, nh;

	(void)state;
	/* shorter than struct rtmsg */
	fb_start(&f);
	nl_start(&f, RTM_NEWROUTE, F_ADD);
	put32(&f, 0);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "message 1 (RTM_NEWROUTE): 20 bytes, short of a struct rtmsg");

	/* one_route4's attributes sit at bytes 28 (RTA_DST), 36 (RTA_PRIORITY),
	 * 44 (RTA_GATEWAY) and 52 (RTA_OIF) of its message, frame byte 4 + that.
	 * An attribute longer than its type says, one overrunning its message,
	 * one under 4 bytes, bytes left over after the last attribute: */
	one_route4(&f);
	f.b[4 + 28] = 12; /* RTA_DST of 8 bytes; the walk goes on inside RTA_PRIORITY */
	expect_bad(&f, "RTA_DST of 8 bytes, not 4");
	one_route4(&f);
	f.b[4 + 52] = 12; /* RTA_OIF, the last, says 12 */
	expect_bad(&f, "attribute at byte 52 overruns its message");
	one_route4(&f);
	f.b[4 + 28] = 2;
	expect_bad(&f, "attribute at byte 28 overruns");
	one_route4(&f);
	f.b[4] -= 2; /* nlmsg_len 2 short: RTA_OIF no longer fits */
	expect_bad(&f, "overruns");
	one_route4(&f);
	put16(&f, 0);
	put16(&f, 0);
	{
		uint32_t l = (uint32_t)(f.len - 4);

		memcpy(f.b + 4, &l, 4); /* 4 bytes of zeroes after the attributes */
	}
	fb_end(&f);
	expect_bad(&f, "attribute at byte 60 overruns");

	/* an attribute twice */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr_ip(&f, RTA_DST, "10.2.0.0");
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_DST twice");

	/* family */
	one_route4(&f);
	f.b[4 + 16] = AF_BRIDGE;
	expect_bad(&f, "route family 7");

	/* prefix length, RTA_DST's size, host bits */
	one_route4(&f);
	f.b[4 + 17] = 33;
	expect_bad(&f, "prefix length 33");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD6, AF_INET6, 129, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "2001:db8::");
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "prefix length 129");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 8, RTN_UNICAST);
	attr(&f, RTA_DST, "\x0a\x00\x00", 3);
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_DST of 3 bytes, not 4");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD6, AF_INET6, 8, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.0.0.0");
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_DST of 4 bytes, not 16");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 24, RTN_UNICAST);
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "prefix length 24 and no RTA_DST");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 24, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.0.0.1");
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "(RTM_NEWROUTE 10.0.0.1/24): host bits set in the prefix");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD6, AF_INET6, 63, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "2001:db8:0:1::");
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "2001:db8:0:1::/63): host bits");

	/* a gateway of the wrong size, a u32 that is not 4 bytes */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr_ip(&f, RTA_GATEWAY, "2001:db8::1");
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "(RTM_NEWROUTE 10.1.0.0/16): RTA_GATEWAY of 16 bytes, not 4");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr(&f, RTA_OIF, "\x03\x00", 2);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_OIF of 2 bytes, not 4");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_OIF, 3);
	attr(&f, RTA_TABLE, "\x01\x02", 2);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_TABLE of 2 bytes");

	/* next hops that do not go together */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_NH_ID, 0);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_NH_ID 0");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_NH_ID, 5);
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_NH_ID with");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr_ip(&f, RTA_GATEWAY, "10.0.0.2");
	nest = nest_start(&f, RTA_MULTIPATH);
	nh = rtnh_start(&f, 0, 0, 3);
	rtnh_end(&f, nh);
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_MULTIPATH with RTA_GATEWAY");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_BLACKHOLE);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_OIF, 3);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "a next hop in a route of type 6 (blackhole)");
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_PROHIBIT);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_NH_ID, 4);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "a next hop in a route of type 8");

	/* malformed RTA_MULTIPATH: an rtnexthop past the nest, one under its
	 * header size, bytes after the last, a bad gateway or attribute inside */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	nest = nest_start(&f, RTA_MULTIPATH);
	nh = rtnh_start(&f, 0, 0, 3);
	attr_ip(&f, RTA_GATEWAY, "10.0.0.2");
	rtnh_end(&f, nh);
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	f.b[nh] = 20; /* rtnh_len 20 of 16 */
	expect_bad(&f, "RTA_MULTIPATH next hop 1 of 20 bytes, 16 left");
	f.b[nh] = 6;
	expect_bad(&f, "RTA_MULTIPATH next hop 1 of 6 bytes");
	f.b[nh] = 16;
	f.b[nh + 8] = 12; /* its RTA_GATEWAY says 12 bytes: past the rtnexthop */
	expect_bad(&f, "next hop 1: attribute at byte");
	f.b[nh + 8] = 8;
	f.b[nh] = 12; /* the gateway no longer fits in the rtnexthop */
	expect_bad(&f, "next hop 1: attribute at byte");

	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	nest = nest_start(&f, RTA_MULTIPATH);
	nh = rtnh_start(&f, 0, 0, 3);
	rtnh_end(&f, nh);
	put32(&f, 0); /* 4 bytes: not an rtnexthop */
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_MULTIPATH ends with 4 bytes");

	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	nest = nest_start(&f, RTA_MULTIPATH);
	nh = rtnh_start(&f, 0, 0, 3);
	attr_ip(&f, RTA_GATEWAY, "10.0.0.2");
	rtnh_end(&f, nh);
	nh = rtnh_start(&f, 0, 0, 3);
	attr_ip(&f, RTA_GATEWAY, "2001:db8::2");
	rtnh_end(&f, nh);
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "next hop 2: RTA_GATEWAY of 16 bytes, not 4");

	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	nest = nest_start(&f, RTA_MULTIPATH);
	nh = rtnh_start(&f, 0, 0, 3);
	attr_ip(&f, RTA_GATEWAY, "10.0.0.2");
	attr_ip(&f, RTA_GATEWAY, "10.0.0.3");
	rtnh_end(&f, nh);
	nest_end(&f, nest);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "next hop 1: RTA_GATEWAY twice");

	/* malformed beats unsupported: an MPLS label and a bad gateway */
	fb_start(&f);
	route_start(&f, RTM_NEWROUTE, F_ADD, AF_INET, 16, RTN_UNICAST);
	attr_ip(&f, RTA_DST, "10.1.0.0");
	attr32(&f, RTA_NEWDST, 100);
	attr(&f, RTA_GATEWAY, "\x0a\x00", 2);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "RTA_GATEWAY of 2 bytes");

	/* the second message of a frame: the error names it */
	one_route4(&f);
	route_start(&f, RTM_DELROUTE, F_DEL, AF_INET, 40, RTN_UNSPEC);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "message 2 (RTM_DELROUTE): prefix length 40");
}

static void test_bad_nexthops(void **state)
{
	struct nexthop_grp g[2] = { { .id = 1 }, { .id = 2 } };
	struct fb f;
	size_t at;

	(void)state;
	fb_start(&f);
	nl_start(&f, RTM_NEWNEXTHOP, F_ADD);
	put32(&f, 0);
	nl_end(&f);
	fb_end(&f);
	expect_bad(&f, "short of a struct nhmsg");

#define NH_START(family)                             \
	do {                                         \
		fb_start(&f);                        \
		nl_start(&f, RTM_NEWNEXTHOP, F_ADD); \
		nhmsg_put(&f, family, 11, 0);        \
	} while (0)
#define NH_END()            \
	do {                \
		nl_end(&f); \
		fb_end(&f); \
	} while (0)

	NH_START(AF_INET);
	attr32(&f, NHA_OIF, 3);
	NH_END();
	expect_bad(&f, "no NHA_ID");
	NH_START(AF_INET);
	attr32(&f, NHA_ID, 0);
	attr32(&f, NHA_OIF, 3);
	NH_END();
	expect_bad(&f, "NHA_ID 0");
	NH_START(AF_INET);
	attr(&f, NHA_ID, "\x01\x00", 2);
	NH_END();
	expect_bad(&f, "NHA_ID of 2 bytes");
	fb_start(&f);
	nl_start(&f, RTM_DELNEXTHOP, F_DEL);
	nhmsg_put(&f, 0, 0, 0);
	NH_END();
	expect_bad(&f, "(RTM_DELNEXTHOP): no NHA_ID");

	/* groups */
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, sizeof(g));
	attr32(&f, NHA_OIF, 3);
	NH_END();
	expect_bad(&f, "(RTM_NEWNEXTHOP id 9): NHA_GROUP with");
	NH_START(AF_INET);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, sizeof(g));
	NH_END();
	expect_bad(&f, "a group of family 2");
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, 12);
	NH_END();
	expect_bad(&f, "NHA_GROUP of 12 bytes");
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, 0);
	NH_END();
	expect_bad(&f, "NHA_GROUP of 0 bytes");
	g[1].id = 0;
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, sizeof(g));
	NH_END();
	expect_bad(&f, "group member 2: id 0");
	g[1].id = 9;
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, sizeof(g));
	NH_END();
	expect_bad(&f, "group member 2: the group itself");
	g[1].id = 1;
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, sizeof(g));
	NH_END();
	expect_bad(&f, "group member 1 twice");
	g[1].id = 2;
	g[1].resvd2 = 1;
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, sizeof(g));
	NH_END();
	expect_bad(&f, "group member 2: reserved bits set");
	g[1].resvd2 = 0;
	/* the byte after weight: resvd1, or weight_high in newer headers */
	((uint8_t *)&g[1])[offsetof(struct nexthop_grp, weight) + 1] = 1;
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, sizeof(g));
	NH_END();
	expect_bad(&f, "group member 2: reserved bits set");
	((uint8_t *)&g[1])[offsetof(struct nexthop_grp, weight) + 1] = 0;
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_GROUP, g, sizeof(g));
	attr(&f, NHA_GROUP_TYPE, "\x00", 1);
	NH_END();
	expect_bad(&f, "NHA_GROUP_TYPE of 1 bytes, not 2");

	/* blackholes */
	NH_START(AF_INET);
	attr32(&f, NHA_ID, 9);
	attr(&f, NHA_BLACKHOLE, NULL, 0);
	attr32(&f, NHA_OIF, 3);
	NH_END();
	expect_bad(&f, "NHA_BLACKHOLE with");
	NH_START(AF_INET);
	attr32(&f, NHA_ID, 9);
	attr32(&f, NHA_BLACKHOLE, 1);
	NH_END();
	expect_bad(&f, "NHA_BLACKHOLE of 4 bytes, not 0");

	/* one next hop */
	NH_START(AF_INET);
	attr32(&f, NHA_ID, 9);
	attr_ip(&f, NHA_GATEWAY, "10.0.0.2");
	NH_END();
	expect_bad(&f, "no NHA_OIF");
	NH_START(AF_INET);
	attr32(&f, NHA_ID, 9);
	attr32(&f, NHA_OIF, 0);
	NH_END();
	expect_bad(&f, "NHA_OIF 0");
	NH_START(AF_UNSPEC);
	attr32(&f, NHA_ID, 9);
	attr_ip(&f, NHA_GATEWAY, "10.0.0.2");
	attr32(&f, NHA_OIF, 3);
	NH_END();
	expect_bad(&f, "NHA_GATEWAY in a next hop of family 0");
	NH_START(AF_INET6);
	attr32(&f, NHA_ID, 9);
	attr_ip(&f, NHA_GATEWAY, "10.0.0.2");
	attr32(&f, NHA_OIF, 3);
	NH_END();
	expect_bad(&f, "NHA_GATEWAY of 4 bytes, not 16");
	NH_START(AF_INET);
	attr32(&f, NHA_ID, 9);
	at = f.len;
	attr32(&f, NHA_OIF, 3);
	NH_END();
	f.b[at] = 9; /* NHA_OIF of 9 bytes: past the message */
	expect_bad(&f, "overruns its message");
#undef NH_START
#undef NH_END
}

/* ---- encoder ----------------------------------------------------------------------- */

/* parse(encode(m)) == m, field by field */
static void roundtrip(const struct fpm_msg *in, unsigned int nb)
{
	_Alignas(4) uint8_t buf[FPM_FRAME_MAX];
	struct fb f;
	long len;
	unsigned int i;

	len = fpm_frame_encode(in, nb, buf, sizeof(buf));
	assert_true(len > 0);
	memset(&f, 0, sizeof(f));
	memcpy(f.b, buf, (size_t)len);
	f.len = (size_t)len;
	assert_int_equal(fpm_frame_len(f.b, f.len, NULL, 0), len);
	assert_int_equal(parse_ok(&f), nb);
	for (i = 0; i < nb; i++) {
		assert_int_equal(msgs[i].kind, in[i].kind);
		if (in[i].kind == FPM_ROUTE_ADD || in[i].kind == FPM_ROUTE_DEL)
			assert_memory_equal(&msgs[i].route, &in[i].route, sizeof(in[i].route));
		else
			assert_memory_equal(&msgs[i].nh, &in[i].nh, sizeof(in[i].nh));
	}
}

static void test_encode(void **state)
{
	static struct fpm_msg m[3];
	_Alignas(4) uint8_t small[64];
	unsigned int i;

	(void)state;
	memset(m, 0, sizeof(m));
	/* an IPv4 route over three next hops, one of weight 256 */
	m[0].kind = FPM_ROUTE_ADD;
	m[0].route.dst.addr.family = AF_INET;
	m[0].route.dst.addr.v4 = ip4("10.20.0.0");
	m[0].route.dst.len = 14;
	m[0].route.table = 300;
	m[0].route.metric = 20;
	m[0].route.protocol = 186;
	m[0].route.type = RTN_UNICAST;
	m[0].route.replace = true;
	m[0].route.nb_nh = 3;
	for (i = 0; i < 3; i++) {
		m[0].route.nh[i].gw.family = AF_INET;
		m[0].route.nh[i].gw.v4 = ip4("192.0.2.1") + i;
		m[0].route.nh[i].ifindex = 10 + i;
		m[0].route.nh[i].weight = (uint16_t)(i == 2 ? 256 : 1);
	}
	m[0].route.nh[1].onlink = true;
	/* its delete first, as zebra's update */
	m[1] = m[0];
	m[1].kind = FPM_ROUTE_DEL;
	memset(&m[1].route.nh, 0, sizeof(m[1].route.nh));
	m[1].route.nb_nh = 0;
	m[1].route.type = RTN_UNSPEC;
	m[1].route.replace = false;
	m[2] = m[0];
	roundtrip(&m[1], 2);

	/* an IPv6 group and a gateway next hop */
	memset(m, 0, sizeof(m));
	m[0].kind = FPM_NH_ADD;
	m[0].nh.id = 3;
	m[0].nh.family = AF_INET6;
	m[0].nh.protocol = 11;
	m[0].nh.replace = true;
	m[0].nh.gw.family = AF_INET6;
	m[0].nh.gw.v6[0] = 0xfe;
	m[0].nh.gw.v6[1] = 0x80;
	m[0].nh.gw.v6[15] = 1;
	m[0].nh.ifindex = 4;
	m[1].kind = FPM_NH_ADD;
	m[1].nh.id = 4;
	m[1].nh.replace = true;
	m[1].nh.nb_group = 2;
	m[1].nh.group[0].id = 3;
	m[1].nh.group[0].weight = 1;
	m[1].nh.group[1].id = 5;
	m[1].nh.group[1].weight = 200;
	m[2].kind = FPM_NH_DEL;
	m[2].nh.id = 5;
	roundtrip(m, 3);

	/* what it refuses */
	assert_int_equal(fpm_frame_encode(m, 3, small, sizeof(small)), -ENOSPC);
	assert_int_equal(fpm_frame_encode(m, 1, small + 2, sizeof(small) - 2), -EINVAL);
	m[0].kind = FPM_IGNORED;
	assert_int_equal(fpm_frame_encode(m, 1, small, sizeof(small)), -EINVAL);
	m[1].nh.group[0].weight = 0;
	assert_int_equal(fpm_frame_encode(&m[1], 1, small, sizeof(small)), -EINVAL);
	memset(m, 0, sizeof(m));
	m[0].kind = FPM_ROUTE_ADD; /* family 0 */
	assert_int_equal(fpm_frame_encode(m, 1, small, sizeof(small)), -EINVAL);
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(fpm_msg_kind_name(FPM_ROUTE_ADD), "route_add");
	assert_string_equal(fpm_msg_kind_name(FPM_NH_DEL), "nh_del");
	assert_string_equal(fpm_msg_kind_name(FPM_UNSUPPORTED), "unsupported");
	assert_string_equal(fpm_msg_kind_name(FPM_KIND_MAX), "unknown");
	assert_string_equal(fpm_msg_kind_name((enum fpm_msg_kind) - 1), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_len),
		cmocka_unit_test(test_frame_len_bad),
		cmocka_unit_test(test_zebra_nexthops),
		cmocka_unit_test(test_zebra_routes),
		cmocka_unit_test(test_zebra_reencoded),
		cmocka_unit_test(test_route4_single),
		cmocka_unit_test(test_route6),
		cmocka_unit_test(test_route_multipath),
		cmocka_unit_test(test_route_blackholes),
		cmocka_unit_test(test_nexthops),
		cmocka_unit_test(test_two_messages),
		cmocka_unit_test(test_ignored),
		cmocka_unit_test(test_unsupported_routes),
		cmocka_unit_test(test_unsupported_nexthops),
		cmocka_unit_test(test_bad_frames),
		cmocka_unit_test(test_bad_routes),
		cmocka_unit_test(test_bad_nexthops),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_kind_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
