/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FPM frames and their netlink messages: see fpm_parse.h for the contract.
 *
 * Order of the checks in a message: its shape (header, every attribute
 * inside the message, none twice), then each attribute read, then the
 * combinations. A feature vbrd does not take is noted on the way (first
 * reason kept) and only decides the kind at the end, so a malformed
 * message is always -EBADMSG, whatever else it carries.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "core/be.h"
#include "frr/fpm/fpm_parse.h"

/* Attribute types collected per message; RTA_MAX and NHA_MAX are below. */
#define ATTR_TB_MAX 63

/* The message being parsed. */
struct parse_ctx {
	const struct nlmsghdr *nlh;
	struct fpm_msg *m;
	unsigned int index; /* 1-based, in the frame */
	/* what an error line names besides the message's type (built only for
	 * an error: formatting every message's prefix cost ~8 % of vbrd's main
	 * thread loading a million routes, bench-bgp) */
	bool named_dst; /* the route's prefix is read */
	bool named_id;  /* the next hop's id is read */
	bool unsupported;
	char *err;
	size_t errlen;
};

/* Attributes of one message or one rtnexthop, by type. */
struct attr_tb {
	const struct nlattr *tb[ATTR_TB_MAX + 1];
	const char *end;  /* end of the area (nlmsg_len, rtnh_len), unaligned */
	const char *next; /* where the walk got to */
	int dup;          /* a type seen twice, -1: none */
	int above;        /* a type above ATTR_TB_MAX, -1: none */
	bool overrun;     /* an attribute goes past end */
};

static const char *const kind_names[FPM_KIND_MAX] = {
	[FPM_ROUTE_ADD] = "route_add", [FPM_ROUTE_DEL] = "route_del",
	[FPM_NH_ADD] = "nh_add",       [FPM_NH_DEL] = "nh_del",
	[FPM_IGNORED] = "ignored",     [FPM_UNSUPPORTED] = "unsupported",
};

const char *fpm_msg_kind_name(enum fpm_msg_kind kind)
{
	if ((unsigned int)kind >= FPM_KIND_MAX)
		return "unknown";
	return kind_names[kind];
}

static const char *const rta_names[] = {
	[RTA_DST] = "RTA_DST",
	[RTA_SRC] = "RTA_SRC",
	[RTA_IIF] = "RTA_IIF",
	[RTA_OIF] = "RTA_OIF",
	[RTA_GATEWAY] = "RTA_GATEWAY",
	[RTA_PRIORITY] = "RTA_PRIORITY",
	[RTA_PREFSRC] = "RTA_PREFSRC",
	[RTA_METRICS] = "RTA_METRICS",
	[RTA_MULTIPATH] = "RTA_MULTIPATH",
	[RTA_PROTOINFO] = "RTA_PROTOINFO",
	[RTA_FLOW] = "RTA_FLOW",
	[RTA_CACHEINFO] = "RTA_CACHEINFO",
	[RTA_SESSION] = "RTA_SESSION",
	[RTA_MP_ALGO] = "RTA_MP_ALGO",
	[RTA_TABLE] = "RTA_TABLE",
	[RTA_MARK] = "RTA_MARK",
	[RTA_MFC_STATS] = "RTA_MFC_STATS",
	[RTA_VIA] = "RTA_VIA",
	[RTA_NEWDST] = "RTA_NEWDST",
	[RTA_PREF] = "RTA_PREF",
	[RTA_ENCAP_TYPE] = "RTA_ENCAP_TYPE",
	[RTA_ENCAP] = "RTA_ENCAP",
	[RTA_EXPIRES] = "RTA_EXPIRES",
	[RTA_PAD] = "RTA_PAD",
	[RTA_UID] = "RTA_UID",
	[RTA_TTL_PROPAGATE] = "RTA_TTL_PROPAGATE",
	[RTA_IP_PROTO] = "RTA_IP_PROTO",
	[RTA_SPORT] = "RTA_SPORT",
	[RTA_DPORT] = "RTA_DPORT",
	[RTA_NH_ID] = "RTA_NH_ID",
};

static const char *const nha_names[] = {
	[NHA_ID] = "NHA_ID",
	[NHA_GROUP] = "NHA_GROUP",
	[NHA_GROUP_TYPE] = "NHA_GROUP_TYPE",
	[NHA_BLACKHOLE] = "NHA_BLACKHOLE",
	[NHA_OIF] = "NHA_OIF",
	[NHA_GATEWAY] = "NHA_GATEWAY",
	[NHA_ENCAP_TYPE] = "NHA_ENCAP_TYPE",
	[NHA_ENCAP] = "NHA_ENCAP",
	[NHA_GROUPS] = "NHA_GROUPS",
	[NHA_MASTER] = "NHA_MASTER",
	[NHA_FDB] = "NHA_FDB",
	[NHA_RES_GROUP] = "NHA_RES_GROUP",
	[NHA_RES_BUCKET] = "NHA_RES_BUCKET",
};

#define NAME_OF(names, i) \
	((unsigned int)(i) < sizeof(names) / sizeof(names[0]) && names[i] ? names[i] : NULL)

/* "RTA_GATEWAY", or "attribute 77" written into @p buf. */
static const char *attr_name(bool route, int type, char *buf, size_t len)
{
	const char *n = route ? NAME_OF(rta_names, type) : NAME_OF(nha_names, type);

	if (n)
		return n;
	snprintf(buf, len, "attribute %d", type);
	return buf;
}

/* Name of a netlink message type, or "netlink type N" written into @p buf. */
static const char *nl_type_name(uint16_t type, char *buf, size_t len)
{
	static const char *const names[] = {
		[NLMSG_NOOP] = "NLMSG_NOOP",         [NLMSG_ERROR] = "NLMSG_ERROR",
		[NLMSG_DONE] = "NLMSG_DONE",         [NLMSG_OVERRUN] = "NLMSG_OVERRUN",
		[RTM_NEWLINK] = "RTM_NEWLINK",       [RTM_DELLINK] = "RTM_DELLINK",
		[RTM_NEWADDR] = "RTM_NEWADDR",       [RTM_DELADDR] = "RTM_DELADDR",
		[RTM_NEWROUTE] = "RTM_NEWROUTE",     [RTM_DELROUTE] = "RTM_DELROUTE",
		[RTM_NEWNEIGH] = "RTM_NEWNEIGH",     [RTM_DELNEIGH] = "RTM_DELNEIGH",
		[RTM_NEWRULE] = "RTM_NEWRULE",       [RTM_DELRULE] = "RTM_DELRULE",
		[RTM_NEWNEXTHOP] = "RTM_NEWNEXTHOP", [RTM_DELNEXTHOP] = "RTM_DELNEXTHOP",
	};
	const char *n = NAME_OF(names, type);

	if (n)
		return n;
	snprintf(buf, len, "netlink type %u", type);
	return buf;
}

static void vformat(char *buf, size_t len, const char *fmt, va_list ap)
{
	if (buf && len)
		vsnprintf(buf, len, fmt, ap);
}

static void format(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void format(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(buf, len, fmt, ap);
	va_end(ap);
}

/* -EBADMSG, with "message N (WHAT): REASON" in the caller's err. */
static int bad(const struct parse_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void addr_str(const struct cfg_addr *a, char *buf, size_t len);

static int bad(const struct parse_ctx *c, const char *fmt, ...)
{
	char reason[160], what[96], tbuf[24], abuf[64];
	va_list ap;

	if (c->err == NULL || c->errlen == 0)
		return -EBADMSG;
	va_start(ap, fmt);
	vformat(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	/* "RTM_NEWROUTE 10.0.0.0/24", "RTM_NEWNEXTHOP id 7" */
	const char *type = nl_type_name(c->m->nl_type, tbuf, sizeof(tbuf));
	if (c->named_dst) {
		addr_str(&c->m->route.dst.addr, abuf, sizeof(abuf));
		snprintf(what, sizeof(what), "%s %s/%u", type, abuf, c->m->route.dst.len);
	} else if (c->named_id) {
		snprintf(what, sizeof(what), "%s id %u", type, c->m->nh.id);
	} else {
		snprintf(what, sizeof(what), "%s", type);
	}
	format(c->err, c->errlen, "message %u (%s): %s", c->index, what, reason);
	return -EBADMSG;
}

/* Note a feature vbrd does not take; the first reason is the message's. */
static void unsupported(struct parse_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void unsupported(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->unsupported)
		return;
	c->unsupported = true;
	va_start(ap, fmt);
	vformat(c->m->why, sizeof(c->m->why), fmt, ap);
	va_end(ap);
}

static int attr_cb(const struct nlattr *a, void *data)
{
	struct attr_tb *t = data;
	int type = mnl_attr_get_type(a);

	if ((const char *)a + a->nla_len > t->end) {
		t->overrun = true;
		return MNL_CB_ERROR;
	}
	t->next = (const char *)mnl_attr_next(a);
	if (type > ATTR_TB_MAX) {
		if (t->above < 0)
			t->above = type;
	} else if (t->tb[type]) {
		if (t->dup < 0)
			t->dup = type;
	} else {
		t->tb[type] = a;
	}
	return MNL_CB_OK;
}

static void attr_tb_init(struct attr_tb *t, const void *start, const void *end)
{
	memset(t, 0, sizeof(*t));
	t->dup = t->above = -1;
	t->next = start;
	t->end = end;
}

/*
 * mnl_attr_parse() stops quietly at an attribute that does not fit (its
 * length under 4 or past the end): the walk must also have reached the
 * end, else bytes were left unread.
 */
static int attrs_check(const struct parse_ctx *c, const struct attr_tb *t, bool route,
		       const char *where)
{
	char buf[24];

	if (t->overrun || t->next < t->end)
		return bad(c, "%sattribute at byte %td overruns its %s", where,
			   t->next - (const char *)c->nlh, *where ? "next hop" : "message");
	if (t->dup >= 0)
		return bad(c, "%s%s twice", where, attr_name(route, t->dup, buf, sizeof(buf)));
	return 0;
}

/* Walk a message's attributes after its family header of @p hdr bytes. */
static int attrs_msg(const struct parse_ctx *c, size_t hdr, bool route, struct attr_tb *t)
{
	attr_tb_init(t, mnl_nlmsg_get_payload_offset(c->nlh, hdr),
		     (const char *)c->nlh + c->nlh->nlmsg_len);
	mnl_attr_parse(c->nlh, (unsigned int)hdr, attr_cb, t);
	return attrs_check(c, t, route, "");
}

/* An attribute of exactly @p len bytes, else -EBADMSG naming it. */
static int attr_len(const struct parse_ctx *c, const struct nlattr *a, size_t len, bool route)
{
	char buf[24];

	if (mnl_attr_validate2(a, MNL_TYPE_BINARY, len) == 0)
		return 0;
	return bad(c, "%s of %u bytes, not %zu",
		   attr_name(route, mnl_attr_get_type(a), buf, sizeof(buf)),
		   mnl_attr_get_payload_len(a), len);
}

static size_t family_addr_len(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

static void addr_read(struct cfg_addr *a, int family, const struct nlattr *attr)
{
	const uint8_t *p = mnl_attr_get_payload(attr);

	a->family = family;
	if (family == AF_INET)
		a->v4 = be32_get(p);
	else
		memcpy(a->v6, p, sizeof(a->v6));
}

static void addr_str(const struct cfg_addr *a, char *buf, size_t len)
{
	uint8_t v4[4];

	if (a->family == AF_INET) {
		be32_put(v4, a->v4);
		inet_ntop(AF_INET, v4, buf, (socklen_t)len);
	} else {
		inet_ntop(AF_INET6, a->v6, buf, (socklen_t)len);
	}
}

static bool host_bits_set(const struct cfg_prefix *p)
{
	unsigned int i;

	if (p->addr.family == AF_INET)
		return p->len < 32 && (p->addr.v4 & (UINT32_MAX >> p->len)) != 0;
	for (i = 0; i < 16; i++) {
		unsigned int bits = p->len > i * 8 ? p->len - i * 8 : 0;

		if (bits < 8 && (p->addr.v6[i] & (0xffu >> bits)) != 0)
			return true;
	}
	return false;
}

/* Attributes a route may carry that change nothing vbrd forwards by. */
static bool rta_ignored(int type)
{
	return type == RTA_PREFSRC || type == RTA_METRICS || type == RTA_FLOW ||
	       type == RTA_CACHEINFO || type == RTA_PREF || type == RTA_EXPIRES;
}

/* An attribute of a route or rtnexthop that vbrd does not read. */
static void rta_unsupported(struct parse_ctx *c, int type, const char *where)
{
	char buf[24];

	switch (type) {
	case RTA_ENCAP:
	case RTA_ENCAP_TYPE:
		unsupported(c, "%sencapsulation (%s: MPLS, VXLAN, SRv6)", where,
			    attr_name(true, type, buf, sizeof(buf)));
		break;
	case RTA_NEWDST:
		unsupported(c, "%sMPLS label (RTA_NEWDST)", where);
		break;
	case RTA_VIA:
		unsupported(c, "%sgateway of another family (RTA_VIA)", where);
		break;
	case RTA_SRC:
		unsupported(c, "source-specific route (RTA_SRC)");
		break;
	default:
		unsupported(c, "%s%s", where, attr_name(true, type, buf, sizeof(buf)));
	}
}

/*
 * RTA_MULTIPATH: struct rtnexthop entries (rtnetlink(7)), each followed by
 * its own attributes (RTA_GATEWAY; zebra adds RTA_FLOW, RTA_ENCAP*), at
 * RTNH_ALIGN'ed offsets. Counts every entry in *count, keeps the first
 * FPM_MAX_PATHS.
 */
static int parse_multipath(struct parse_ctx *c, const struct nlattr *mp, unsigned int *count)
{
	struct fpm_route *r = &c->m->route;
	const char *p = mnl_attr_get_payload(mp);
	size_t rest = mnl_attr_get_payload_len(mp);
	size_t alen = family_addr_len(r->dst.addr.family);
	unsigned int i;
	int ret;

	for (i = 0; rest > 0; i++) {
		const struct rtnexthop *rtnh = (const void *)p;
		const struct nlattr *gw;
		struct fpm_route_nh nh = { .weight = 1 };
		char where[32];
		struct attr_tb t;
		size_t step;
		int type;

		if (rest < sizeof(*rtnh))
			return bad(c, "RTA_MULTIPATH ends with %zu bytes, not a next hop", rest);
		if (rtnh->rtnh_len < sizeof(*rtnh) || rtnh->rtnh_len > rest)
			return bad(c, "RTA_MULTIPATH next hop %u of %u bytes, %zu left", i + 1,
				   rtnh->rtnh_len, rest);
		snprintf(where, sizeof(where), "next hop %u: ", i + 1);
		attr_tb_init(&t, p + sizeof(*rtnh), p + rtnh->rtnh_len);
		mnl_attr_parse_payload(p + sizeof(*rtnh), rtnh->rtnh_len - sizeof(*rtnh), attr_cb,
				       &t);
		ret = attrs_check(c, &t, true, where);
		if (ret)
			return ret;
		gw = t.tb[RTA_GATEWAY];
		if (gw) {
			if (mnl_attr_validate2(gw, MNL_TYPE_BINARY, alen) < 0)
				return bad(c, "%sRTA_GATEWAY of %u bytes, not %zu", where,
					   mnl_attr_get_payload_len(gw), alen);
			addr_read(&nh.gw, r->dst.addr.family, gw);
		}
		for (type = 0; type <= ATTR_TB_MAX; type++)
			if (t.tb[type] && type != RTA_GATEWAY && type != RTA_FLOW)
				rta_unsupported(c, type, where);
		if (t.above >= 0)
			rta_unsupported(c, t.above, where);
		nh.ifindex = (uint32_t)rtnh->rtnh_ifindex;
		nh.weight = (uint16_t)(rtnh->rtnh_hops + 1);
		nh.onlink = rtnh->rtnh_flags & RTNH_F_ONLINK;
		if (!gw && !nh.ifindex)
			unsupported(c, "next hop %u has no gateway and no interface", i + 1);
		if (i < FPM_MAX_PATHS)
			r->nh[i] = nh;

		step = RTNH_ALIGN(rtnh->rtnh_len);
		if (step >= rest)
			break;
		p += step;
		rest -= step;
	}
	*count = rest > 0 ? i + 1 : i;
	return 0;
}

/* A u32 attribute (exactly 4 bytes) into *v, else -EBADMSG. */
static int attr_u32(const struct parse_ctx *c, const struct nlattr *a, bool route, uint32_t *v)
{
	int ret = attr_len(c, a, 4, route);

	if (ret == 0)
		*v = mnl_attr_get_u32(a);
	return ret;
}

/* The prefix: rtm_dst_len and RTA_DST, host bits zero. */
static int route_dst(struct parse_ctx *c, const struct rtmsg *rtm, const struct attr_tb *t)
{
	struct cfg_prefix *dst = &c->m->route.dst;
	size_t alen = family_addr_len(rtm->rtm_family);
	int ret;

	if (rtm->rtm_dst_len > alen * 8)
		return bad(c, "prefix length %u", rtm->rtm_dst_len);
	dst->addr.family = rtm->rtm_family;
	dst->len = rtm->rtm_dst_len;
	if (t->tb[RTA_DST]) {
		ret = attr_len(c, t->tb[RTA_DST], alen, true);
		if (ret)
			return ret;
		addr_read(&dst->addr, rtm->rtm_family, t->tb[RTA_DST]);
	} else if (dst->len > 0) {
		return bad(c, "prefix length %u and no RTA_DST", dst->len);
	}
	c->named_dst = true; /* from here on, errors name the prefix */
	if (host_bits_set(dst))
		return bad(c, "host bits set in the prefix");
	return 0;
}

/*
 * The next hops: a next-hop object (RTA_NH_ID), one next hop (RTA_GATEWAY,
 * RTA_OIF) or several (RTA_MULTIPATH); the kernel takes no mix of them
 * either. *count: next hops given, even past FPM_MAX_PATHS.
 */
static int route_nexthops(struct parse_ctx *c, const struct rtmsg *rtm, const struct attr_tb *t,
			  unsigned int *count)
{
	struct fpm_route *r = &c->m->route;
	const struct nlattr *gw = t->tb[RTA_GATEWAY], *oif = t->tb[RTA_OIF];
	const struct nlattr *mp = t->tb[RTA_MULTIPATH];
	int ret;

	*count = 0;
	if (t->tb[RTA_NH_ID]) {
		ret = attr_u32(c, t->tb[RTA_NH_ID], true, &r->nh_id);
		if (ret)
			return ret;
		if (!r->nh_id)
			return bad(c, "RTA_NH_ID 0");
		if (gw || oif || mp)
			return bad(c, "RTA_NH_ID with RTA_GATEWAY, RTA_OIF or RTA_MULTIPATH");
		return 0;
	}
	if (mp) {
		if (gw || oif)
			return bad(c, "RTA_MULTIPATH with RTA_GATEWAY or RTA_OIF");
		return parse_multipath(c, mp, count);
	}
	if (!gw && !oif)
		return 0;
	if (gw) {
		ret = attr_len(c, gw, family_addr_len(rtm->rtm_family), true);
		if (ret)
			return ret;
		addr_read(&r->nh[0].gw, rtm->rtm_family, gw);
	}
	if (oif) {
		ret = attr_u32(c, oif, true, &r->nh[0].ifindex);
		if (ret)
			return ret;
	}
	r->nh[0].weight = 1;
	r->nh[0].onlink = rtm->rtm_flags & RTNH_F_ONLINK;
	if (!gw && !r->nh[0].ifindex)
		unsupported(c, "next hop 1 has no gateway and no interface");
	*count = 1;
	return 0;
}

/* rtm_type, against the next hops. */
static int route_type(struct parse_ctx *c, bool add, unsigned int count)
{
	struct fpm_route *r = &c->m->route;

	switch (r->type) {
	case RTN_UNICAST:
		if (add && !r->nh_id && count == 0)
			unsupported(c, "no next hop");
		return 0;
	case RTN_BLACKHOLE:
	case RTN_UNREACHABLE:
	case RTN_PROHIBIT:
		if (r->nh_id || count)
			return bad(c, "a next hop in a route of type %u (blackhole)", r->type);
		r->blackhole = true;
		return 0;
	case RTN_UNSPEC:
		/* zebra's deletes carry no type; an add must */
		if (add)
			unsupported(c, "route type 0");
		return 0;
	default:
		unsupported(c, "route type %u", r->type);
		return 0;
	}
}

/* What else changes forwarding and vbrd does not do. */
static void route_features(struct parse_ctx *c, const struct rtmsg *rtm, const struct attr_tb *t)
{
	int type;

	if (rtm->rtm_src_len)
		unsupported(c, "source-specific route (rtm_src_len %u)", rtm->rtm_src_len);
	if (rtm->rtm_tos)
		unsupported(c, "TOS %u", rtm->rtm_tos);
	for (type = 0; type <= ATTR_TB_MAX; type++) {
		if (!t->tb[type] || rta_ignored(type))
			continue;
		if (type != RTA_DST && type != RTA_TABLE && type != RTA_PRIORITY &&
		    type != RTA_NH_ID && type != RTA_GATEWAY && type != RTA_OIF &&
		    type != RTA_MULTIPATH)
			rta_unsupported(c, type, "");
	}
	if (t->above >= 0)
		rta_unsupported(c, t->above, "");
}

/* RTM_NEWROUTE, RTM_DELROUTE: struct rtmsg, then RTA_* attributes. */
static int parse_route(struct parse_ctx *c)
{
	const struct nlmsghdr *nlh = c->nlh;
	struct fpm_msg *m = c->m;
	struct fpm_route *r = &m->route;
	bool add = nlh->nlmsg_type == RTM_NEWROUTE;
	const struct rtmsg *rtm;
	unsigned int count;
	struct attr_tb t;
	int ret;

	m->kind = m->op = add ? FPM_ROUTE_ADD : FPM_ROUTE_DEL;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
		return bad(c, "%u bytes, short of a struct rtmsg", nlh->nlmsg_len);
	rtm = mnl_nlmsg_get_payload(nlh);
	ret = attrs_msg(c, sizeof(*rtm), true, &t);
	if (ret)
		return ret;
	if (rtm->rtm_family == AF_MPLS) {
		unsupported(c, "MPLS route (AF_MPLS)");
		return 0;
	}
	if (!family_addr_len(rtm->rtm_family))
		return bad(c, "route family %u", rtm->rtm_family);
	r->table = rtm->rtm_table;
	r->protocol = rtm->rtm_protocol;
	r->type = rtm->rtm_type;
	r->replace = nlh->nlmsg_flags & NLM_F_REPLACE;

	ret = route_dst(c, rtm, &t);
	if (ret)
		return ret;
	if (t.tb[RTA_TABLE]) {
		ret = attr_u32(c, t.tb[RTA_TABLE], true, &r->table);
		if (ret)
			return ret;
	}
	if (t.tb[RTA_PRIORITY]) {
		ret = attr_u32(c, t.tb[RTA_PRIORITY], true, &r->metric);
		if (ret)
			return ret;
	}
	ret = route_nexthops(c, rtm, &t, &count);
	if (ret)
		return ret;
	if (count > FPM_MAX_PATHS)
		unsupported(c, "%u next hops, more than %u", count, FPM_MAX_PATHS);
	r->nb_nh = (uint16_t)(count < FPM_MAX_PATHS ? count : FPM_MAX_PATHS);
	ret = route_type(c, add, count);
	if (ret)
		return ret;
	route_features(c, rtm, &t);
	return 0;
}

/* NHA_GROUP: struct nexthop_grp entries (linux/nexthop.h). */
static int parse_group(struct parse_ctx *c, const struct nlattr *a)
{
	struct fpm_nexthop *nh = &c->m->nh;
	const struct nexthop_grp *g = mnl_attr_get_payload(a);
	size_t len = mnl_attr_get_payload_len(a);
	size_t n = len / sizeof(*g), i, j;

	if (len == 0 || len % sizeof(*g))
		return bad(c, "NHA_GROUP of %zu bytes, not a multiple of %zu", len, sizeof(*g));
	if (nh->family != AF_UNSPEC)
		return bad(c, "a group of family %d, not AF_UNSPEC", nh->family);
	for (i = 0; i < n; i++) {
		if (g[i].id == 0)
			return bad(c, "group member %zu: id 0", i + 1);
		if (g[i].id == nh->id)
			return bad(c, "group member %zu: the group itself", i + 1);
		/* The byte after weight is resvd1 in linux/nexthop.h up to
		 * Linux 6.11 and weight_high (a 16-bit weight's high bits) from
		 * 6.12 on, and in Debian 12's linux-libc-dev 6.1.192: read it
		 * by offset, so that the code builds with either header. FRR
		 * 8.4 never sets it. */
		const uint8_t *raw = (const uint8_t *)&g[i];
		if (raw[offsetof(struct nexthop_grp, weight) + 1] || g[i].resvd2)
			return bad(c, "group member %zu: reserved bits set", i + 1);
		/* the kernel refuses duplicates too; n <= 1023 in a frame */
		for (j = 0; j < i; j++)
			if (g[j].id == g[i].id)
				return bad(c, "group member %u twice", g[i].id);
		if (i < FPM_MAX_PATHS) {
			nh->group[i].id = g[i].id;
			nh->group[i].weight = (uint16_t)(g[i].weight + 1);
		}
	}
	if (n > FPM_MAX_PATHS)
		unsupported(c, "a group of %zu members, more than %u", n, FPM_MAX_PATHS);
	nh->nb_group = (uint16_t)(n < FPM_MAX_PATHS ? n : FPM_MAX_PATHS);
	return 0;
}

/* RTM_NEWNEXTHOP, RTM_DELNEXTHOP: struct nhmsg, then NHA_* attributes. */
static int parse_nexthop(struct parse_ctx *c)
{
	const struct nlmsghdr *nlh = c->nlh;
	struct fpm_msg *m = c->m;
	struct fpm_nexthop *nh = &m->nh;
	bool add = nlh->nlmsg_type == RTM_NEWNEXTHOP;
	const struct nlattr *gw, *oif, *group, *bh, *gtype;
	const struct nhmsg *nhm;
	struct attr_tb t;
	char buf[24];
	int ret, type;

	m->kind = m->op = add ? FPM_NH_ADD : FPM_NH_DEL;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*nhm)))
		return bad(c, "%u bytes, short of a struct nhmsg", nlh->nlmsg_len);
	nhm = mnl_nlmsg_get_payload(nlh);
	ret = attrs_msg(c, sizeof(*nhm), false, &t);
	if (ret)
		return ret;
	nh->family = nhm->nh_family;
	nh->protocol = nhm->nh_protocol;
	nh->replace = nlh->nlmsg_flags & NLM_F_REPLACE;
	nh->onlink = nhm->nh_flags & RTNH_F_ONLINK;

	if (!t.tb[NHA_ID])
		return bad(c, "no NHA_ID");
	ret = attr_u32(c, t.tb[NHA_ID], false, &nh->id);
	if (ret)
		return ret;
	if (!nh->id)
		return bad(c, "NHA_ID 0");
	c->named_id = true;
	if (!add)
		return 0; /* the id is all a delete needs (zebra sends nothing else) */

	gw = t.tb[NHA_GATEWAY];
	oif = t.tb[NHA_OIF];
	group = t.tb[NHA_GROUP];
	bh = t.tb[NHA_BLACKHOLE];
	gtype = t.tb[NHA_GROUP_TYPE];
	if (bh && mnl_attr_validate(bh, MNL_TYPE_FLAG) < 0)
		return bad(c, "NHA_BLACKHOLE of %u bytes, not 0", mnl_attr_get_payload_len(bh));
	if (oif) {
		ret = attr_u32(c, oif, false, &nh->ifindex);
		if (ret)
			return ret;
	}
	if (gtype) {
		ret = attr_len(c, gtype, 2, false);
		if (ret)
			return ret;
	}

	if (group) {
		/* linux/nexthop.h: "if NHA_GROUP attribute is added, no other
		 * attributes can be set" */
		if (gw || oif || bh)
			return bad(c, "NHA_GROUP with NHA_GATEWAY, NHA_OIF or NHA_BLACKHOLE");
		ret = parse_group(c, group);
		if (ret)
			return ret;
		if (gtype && mnl_attr_get_u16(gtype) != NEXTHOP_GRP_TYPE_MPATH)
			unsupported(c, "group type %u (resilient)", mnl_attr_get_u16(gtype));
	} else if (bh) {
		/* "if NHA_BLACKHOLE is added, OIF, GATEWAY, ENCAP can not be set" */
		if (gw || oif)
			return bad(c, "NHA_BLACKHOLE with NHA_GATEWAY or NHA_OIF");
		nh->blackhole = true;
	} else {
		if (gw) {
			size_t alen = family_addr_len(nh->family);

			if (!alen)
				return bad(c, "NHA_GATEWAY in a next hop of family %d", nh->family);
			ret = attr_len(c, gw, alen, false);
			if (ret)
				return ret;
			addr_read(&nh->gw, nh->family, gw);
		}
		if (t.tb[NHA_FDB])
			unsupported(c, "bridge FDB next hop (NHA_FDB)");
		else if (!nh->ifindex)
			return bad(c, oif ? "NHA_OIF 0" : "no NHA_OIF, NHA_GROUP or NHA_BLACKHOLE");
	}

	for (type = 0; type <= ATTR_TB_MAX; type++) {
		if (!t.tb[type] || type == NHA_ID || type == NHA_GATEWAY || type == NHA_OIF ||
		    type == NHA_GROUP || type == NHA_GROUP_TYPE || type == NHA_BLACKHOLE)
			continue;
		if (type == NHA_ENCAP || type == NHA_ENCAP_TYPE)
			unsupported(c, "encapsulation (%s: MPLS, SRv6)",
				    attr_name(false, type, buf, sizeof(buf)));
		else
			unsupported(c, "%s", attr_name(false, type, buf, sizeof(buf)));
	}
	if (t.above >= 0)
		unsupported(c, "%s", attr_name(false, t.above, buf, sizeof(buf)));
	return 0;
}

static int parse_msg(struct parse_ctx *c)
{
	struct fpm_msg *m = c->m;
	char buf[24];
	int ret = 0;

	memset(m, 0, sizeof(*m));
	m->nl_type = c->nlh->nlmsg_type;
	m->nl_flags = c->nlh->nlmsg_flags;
	c->named_dst = c->named_id = false;
	switch (m->nl_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		ret = parse_route(c);
		break;
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		ret = parse_nexthop(c);
		break;
	default:
		m->kind = m->op = FPM_IGNORED;
		snprintf(m->why, sizeof(m->why), "%s", nl_type_name(m->nl_type, buf, sizeof(buf)));
		return 0;
	}
	if (ret)
		return ret;
	if (c->unsupported)
		m->kind = FPM_UNSUPPORTED;
	return 0;
}

long fpm_frame_len(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	uint16_t flen;

	if (len < FPM_HDR_LEN)
		return 0;
	flen = be16_get(buf + 2);
	if (buf[0] != FPM_VERSION) {
		format(err, errlen, "FPM version %u, not %u", buf[0], FPM_VERSION);
		return -EBADMSG;
	}
	if (buf[1] != FPM_MSG_TYPE_NETLINK) {
		/* 2: zebra's older `fpm` module with protobuf (-M fpm:protobuf) */
		format(err, errlen,
		       "FPM message type %u, not netlink (%u): zebra must load dplane_fpm_nl",
		       buf[1], FPM_MSG_TYPE_NETLINK);
		return -EBADMSG;
	}
	if (flen < FPM_HDR_LEN || flen > FPM_FRAME_MAX || flen % 4) {
		format(err, errlen, "FPM frame length %u, not a multiple of 4 in %u..%u", flen,
		       FPM_HDR_LEN, FPM_FRAME_MAX);
		return -EBADMSG;
	}
	return len < flen ? 0 : flen;
}

int fpm_frame_parse(const uint8_t *frame, size_t len, struct fpm_msg *msgs, unsigned int max,
		    unsigned int *nb, char *err, size_t errlen)
{
	const struct nlmsghdr *nlh;
	struct parse_ctx c = { .err = err, .errlen = errlen };
	unsigned int n = 0;
	long flen;
	int rest, ret;

	*nb = 0;
	format(err, errlen, "%s", "");
	if ((uintptr_t)frame % 4) {
		format(err, errlen, "frame not 4-byte aligned");
		return -EINVAL;
	}
	flen = fpm_frame_len(frame, len, err, errlen);
	if (flen < 0)
		return (int)flen;
	if ((size_t)flen != len || len < FPM_HDR_LEN) {
		format(err, errlen, "frame of %zu bytes, its header says %u", len,
		       len < FPM_HDR_LEN ? 0 : be16_get(frame + 2));
		return -EBADMSG;
	}

	/* The length is a multiple of 4, so every NLMSG_ALIGN'ed step stays in
	 * the frame and rest never goes below 0. */
	nlh = (const void *)(frame + FPM_HDR_LEN);
	rest = (int)(len - FPM_HDR_LEN);
	while (rest > 0) {
		/* mnl_nlmsg_ok() compares (int)nlmsg_len: from 2^31 up the length
		 * turns negative and passes (libmnl 1.0.4); compare unsigned too */
		if (!mnl_nlmsg_ok(nlh, rest) || nlh->nlmsg_len > (uint32_t)rest) {
			if (rest < (int)sizeof(*nlh) && n == 0)
				format(err, errlen, "%d bytes, short of a netlink header", rest);
			else if (rest < (int)sizeof(*nlh))
				format(err, errlen,
				       "%d bytes after message %u, short of a netlink header", rest,
				       n);
			else
				format(err, errlen, "message %u: nlmsg_len %u, %d bytes left",
				       n + 1, nlh->nlmsg_len, rest);
			return -EBADMSG;
		}
		if (n == max) {
			format(err, errlen, "more than %u messages in a frame", max);
			return -ENOSPC;
		}
		c.nlh = nlh;
		c.m = &msgs[n];
		c.index = n + 1;
		c.unsupported = false;
		ret = parse_msg(&c);
		if (ret)
			return ret;
		n++;
		nlh = mnl_nlmsg_next(nlh, &rest);
	}
	*nb = n;
	return 0;
}
