/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FPM frames written as zebra 8.4's dplane_fpm_nl writes them (see
 * fpm_parse.h): for the unit tests, the fuzzer's round trip and the
 * benchmark's route feeds. Messages, flags and attribute order follow
 * netlink_route_multipath_msg_encode() and netlink_nexthop_msg_encode()
 * (zebra/rt_netlink.c), as frames captured from zebra show them.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "core/be.h"
#include "frr/fpm/fpm_parse.h"

/* RTA_GATEWAY's or NHA_GATEWAY's bytes, in network order. */
static size_t addr_bytes(const struct cfg_addr *a, uint8_t out[16])
{
	if (a->family == AF_INET) {
		be32_put(out, a->v4);
		return 4;
	}
	memcpy(out, a->v6, 16);
	return 16;
}

static bool weight_ok(uint16_t w)
{
	return w >= 1 && w <= 256;
}

static struct nlmsghdr *msg_start(uint8_t *p, size_t room, uint16_t type, uint16_t flags,
				  size_t hdr)
{
	struct nlmsghdr *nlh;

	if (room < mnl_nlmsg_size(hdr))
		return NULL;
	nlh = mnl_nlmsg_put_header(p);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	mnl_nlmsg_put_extra_header(nlh, hdr);
	return nlh;
}

/* RTA_MULTIPATH: one struct rtnexthop and its RTA_GATEWAY per next hop. */
static int put_multipath(struct nlmsghdr *nlh, size_t room, const struct fpm_route *r)
{
	struct nlattr *nest = mnl_attr_nest_start_check(nlh, room, RTA_MULTIPATH);
	unsigned int i;

	if (!nest)
		return -ENOSPC;
	for (i = 0; i < r->nb_nh; i++) {
		const struct fpm_route_nh *nh = &r->nh[i];
		struct rtnexthop *rtnh = mnl_nlmsg_get_payload_tail(nlh);
		uint8_t gw[16];

		if (nlh->nlmsg_len + RTNH_ALIGN(sizeof(*rtnh)) > room)
			return -ENOSPC;
		memset(rtnh, 0, sizeof(*rtnh));
		nlh->nlmsg_len += RTNH_ALIGN(sizeof(*rtnh));
		if (nh->gw.family &&
		    !mnl_attr_put_check(nlh, room, RTA_GATEWAY, addr_bytes(&nh->gw, gw), gw))
			return -ENOSPC;
		rtnh->rtnh_len = (unsigned short)((uint8_t *)mnl_nlmsg_get_payload_tail(nlh) -
						  (uint8_t *)rtnh);
		rtnh->rtnh_flags = nh->onlink ? RTNH_F_ONLINK : 0;
		rtnh->rtnh_hops = (unsigned char)(nh->weight - 1);
		rtnh->rtnh_ifindex = (int)nh->ifindex;
	}
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

static long put_route(const struct fpm_msg *m, uint8_t *p, size_t room)
{
	const struct fpm_route *r = &m->route;
	int family = r->dst.addr.family;
	uint16_t flags = NLM_F_REQUEST | NLM_F_CREATE | (r->replace ? NLM_F_REPLACE : 0);
	bool single = r->nb_nh == 1 && r->nh[0].weight == 1;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	uint8_t dst[16];
	unsigned int i;
	int ret;

	if ((family != AF_INET && family != AF_INET6) ||
	    r->dst.len > (family == AF_INET ? 32 : 128) || r->nb_nh > FPM_MAX_PATHS)
		return -EINVAL;
	for (i = 0; i < r->nb_nh; i++)
		if (!weight_ok(r->nh[i].weight) ||
		    (r->nh[i].gw.family && r->nh[i].gw.family != family))
			return -EINVAL;

	nlh = msg_start(p, room, m->kind == FPM_ROUTE_ADD ? RTM_NEWROUTE : RTM_DELROUTE, flags,
			sizeof(*rtm));
	if (!nlh)
		return -ENOSPC;
	rtm = mnl_nlmsg_get_payload(nlh);
	rtm->rtm_family = (unsigned char)family;
	rtm->rtm_dst_len = r->dst.len;
	rtm->rtm_table = r->table < 256 ? (unsigned char)r->table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = r->protocol;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = r->type;
	if (single && r->nh[0].onlink)
		rtm->rtm_flags = RTNH_F_ONLINK;

	if (!mnl_attr_put_check(nlh, room, RTA_DST, addr_bytes(&r->dst.addr, dst), dst) ||
	    !mnl_attr_put_u32_check(nlh, room, RTA_PRIORITY, r->metric) ||
	    (r->table >= 256 && !mnl_attr_put_u32_check(nlh, room, RTA_TABLE, r->table)))
		return -ENOSPC;
	if (r->nh_id) {
		if (!mnl_attr_put_u32_check(nlh, room, RTA_NH_ID, r->nh_id))
			return -ENOSPC;
	} else if (single) {
		uint8_t gw[16];

		if (r->nh[0].gw.family &&
		    !mnl_attr_put_check(nlh, room, RTA_GATEWAY, addr_bytes(&r->nh[0].gw, gw), gw))
			return -ENOSPC;
		if (r->nh[0].ifindex &&
		    !mnl_attr_put_u32_check(nlh, room, RTA_OIF, r->nh[0].ifindex))
			return -ENOSPC;
	} else if (r->nb_nh) {
		ret = put_multipath(nlh, room, r);
		if (ret)
			return ret;
	}
	return (long)MNL_ALIGN(nlh->nlmsg_len);
}

static long put_nexthop(const struct fpm_msg *m, uint8_t *p, size_t room)
{
	const struct fpm_nexthop *nh = &m->nh;
	uint16_t flags = NLM_F_REQUEST | NLM_F_CREATE | (nh->replace ? NLM_F_REPLACE : 0);
	struct nlmsghdr *nlh;
	struct nhmsg *nhm;
	unsigned int i;

	if (nh->nb_group > FPM_MAX_PATHS)
		return -EINVAL;
	for (i = 0; i < nh->nb_group; i++)
		if (!weight_ok(nh->group[i].weight))
			return -EINVAL;
	if (nh->gw.family && nh->gw.family != AF_INET && nh->gw.family != AF_INET6)
		return -EINVAL;

	nlh = msg_start(p, room, m->kind == FPM_NH_ADD ? RTM_NEWNEXTHOP : RTM_DELNEXTHOP, flags,
			sizeof(*nhm));
	if (!nlh)
		return -ENOSPC;
	nhm = mnl_nlmsg_get_payload(nlh);
	nhm->nh_family = (unsigned char)nh->family;
	nhm->nh_protocol = nh->protocol;
	nhm->nh_flags = nh->onlink ? RTNH_F_ONLINK : 0;
	if (!mnl_attr_put_u32_check(nlh, room, NHA_ID, nh->id))
		return -ENOSPC;
	if (m->kind == FPM_NH_DEL)
		return (long)MNL_ALIGN(nlh->nlmsg_len);

	if (nh->nb_group) {
		struct nexthop_grp g[FPM_MAX_PATHS];

		memset(g, 0, sizeof(g));
		for (i = 0; i < nh->nb_group; i++) {
			g[i].id = nh->group[i].id;
			g[i].weight = (uint8_t)(nh->group[i].weight - 1);
		}
		if (!mnl_attr_put_check(nlh, room, NHA_GROUP, nh->nb_group * sizeof(g[0]), g))
			return -ENOSPC;
	} else if (nh->blackhole) {
		/* a flag: no payload (a non-NULL pointer for memcpy's sake) */
		if (!mnl_attr_put_check(nlh, room, NHA_BLACKHOLE, 0, ""))
			return -ENOSPC;
	} else {
		uint8_t gw[16];

		if (nh->gw.family &&
		    !mnl_attr_put_check(nlh, room, NHA_GATEWAY, addr_bytes(&nh->gw, gw), gw))
			return -ENOSPC;
		if (!mnl_attr_put_u32_check(nlh, room, NHA_OIF, nh->ifindex))
			return -ENOSPC;
	}
	return (long)MNL_ALIGN(nlh->nlmsg_len);
}

long fpm_frame_encode(const struct fpm_msg *msgs, unsigned int nb, uint8_t *buf, size_t size)
{
	size_t off = FPM_HDR_LEN;
	unsigned int i;
	long len;

	if ((uintptr_t)buf % 4)
		return -EINVAL;
	if (size > FPM_FRAME_MAX)
		size = FPM_FRAME_MAX;
	if (size < FPM_HDR_LEN)
		return -ENOSPC;
	for (i = 0; i < nb; i++) {
		switch (msgs[i].kind) {
		case FPM_ROUTE_ADD:
		case FPM_ROUTE_DEL:
			len = put_route(&msgs[i], buf + off, size - off);
			break;
		case FPM_NH_ADD:
		case FPM_NH_DEL:
			len = put_nexthop(&msgs[i], buf + off, size - off);
			break;
		default:
			return -EINVAL;
		}
		if (len < 0)
			return len;
		off += (size_t)len;
	}
	buf[0] = FPM_VERSION;
	buf[1] = FPM_MSG_TYPE_NETLINK;
	be16_put(buf + 2, (uint16_t)off);
	return (long)off;
}
