/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FRR's Forwarding Plane Manager stream, the netlink flavour that zebra
 * writes with `-M dplane_fpm_nl` (FRR 8.4: zebra/dplane_fpm_nl.c,
 * fpm/fpm.h): frames of a 4-byte FPM header and netlink messages
 * (rtnetlink(7): routes, RFC 3549; Linux next-hop objects,
 * linux/nexthop.h). This is the parser, and an encoder that writes frames
 * the way zebra does (tests, fuzzer, benchmark).
 *
 * Plain C on libmnl: no DPDK, no sockets, no FIB. The caller reads the TCP
 * stream, cuts frames with fpm_frame_len(), and hands each whole frame to
 * fpm_frame_parse(). What zebra 8.4.4 actually sends (captured, see
 * frr/fpm/README.md): one message per frame, except a route update, which
 * is RTM_DELROUTE then RTM_NEWROUTE in one frame; that is why a frame is
 * parsed as a whole and its messages are applied together.
 *
 * Addresses are vbrd's struct cfg_addr (core/config.h): IPv4 in host byte
 * order (as rte_fib takes it), IPv6 in network byte order. Interface
 * indexes are zebra's, that is the Linux kernel's of zebra's namespace.
 */
#ifndef VBRD_FPM_PARSE_H
#define VBRD_FPM_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"

#define FPM_VERSION          1 /* fpm.h FPM_PROTO_VERSION */
#define FPM_MSG_TYPE_NETLINK 1 /* fpm.h; 2 is protobuf (zebra's older `fpm` module) */
#define FPM_HDR_LEN          4 /* version, type, 16-bit big-endian length */
/*
 * Largest frame accepted, bytes, header included: zebra's dplane_fpm_nl
 * encodes a frame's messages into a buffer of NL_PKT_BUF_SIZE (8192)
 * bytes. fpm.h's FPM_MAX_MSG_LEN (4096) is not what dplane_fpm_nl
 * honours: a route update with many next hops goes past it.
 */
#define FPM_FRAME_MAX (FPM_HDR_LEN + 8192)
/*
 * Next hops of one route (RTA_MULTIPATH) or members of one next-hop group
 * (NHA_GROUP) the parser reads. Debian builds FRR with
 * --enable-multipath=256, so zebra may send more: such a message is
 * FPM_UNSUPPORTED (well-formed, not read), never an error, as zebra would
 * send it again after every reconnection.
 */
#define FPM_MAX_PATHS 64
#define FPM_WHY_MAX   64 /* bytes of fpm_msg.why, NUL included */

/** One next hop of a route: RTA_GATEWAY/RTA_OIF, or one rtnexthop of RTA_MULTIPATH. */
struct fpm_route_nh {
	struct cfg_addr gw; /* gateway, the route's family; family 0: none (on-link, connected) */
	uint32_t ifindex;   /* outgoing interface (RTA_OIF, rtnh_ifindex); 0: not given */
	uint16_t weight;    /* 1..256: rtnh_hops + 1 (RTA_MULTIPATH); 1 for a single next hop */
	bool onlink;        /* RTNH_F_ONLINK: the gateway is on the link whatever its subnet
	                     * (zebra's IPv4 routes over an IPv6 link-local, RFC 5549, use
	                     * gateway 169.254.0.1 with it) */
};

/** RTM_NEWROUTE / RTM_DELROUTE (struct rtmsg and its attributes). */
struct fpm_route {
	struct cfg_prefix dst; /* RTA_DST/rtm_dst_len, host bits zero; family 0 in an
	                        * FPM_UNSUPPORTED message of another family (MPLS) */
	uint32_t table;        /* RTA_TABLE, else rtm_table (zebra: 254 main, 0 + RTA_TABLE
	                        * from 256 up) */
	uint32_t metric;       /* RTA_PRIORITY; 0 when absent (zebra: always 20) */
	uint32_t nh_id;        /* RTA_NH_ID: a next-hop object (FPM_NH_ADD); 0: none, the next
	                        * hops are in nh[] */
	uint8_t protocol;      /* rtm_protocol, RTPROT_*: 2 kernel and connected, 186 BGP,
	                        * 188 OSPF, 196 static (zebra's own numbers, rt_netlink.h) */
	uint8_t type;          /* rtm_type: RTN_UNICAST, RTN_BLACKHOLE, RTN_UNREACHABLE,
	                        * RTN_PROHIBIT; RTN_UNSPEC in zebra's deletes */
	bool blackhole;        /* type is one of the three that discard */
	bool replace;          /* NLM_F_REPLACE (zebra: IPv4 adds only, IPv6 adds only with
	                        * --v6-rr-semantics; FPM's own rule is replace anyway) */
	uint16_t nb_nh;        /* next hops in nh[]; 0 with nh_id, a blackhole, a delete */
	struct fpm_route_nh nh[FPM_MAX_PATHS];
};

/** One member of a next-hop group (struct nexthop_grp). */
struct fpm_nh_member {
	uint32_t id;     /* a next-hop object's id, never 0 */
	uint16_t weight; /* 1..256: the wire's weight + 1, as the kernel reads it */
};

/** RTM_NEWNEXTHOP / RTM_DELNEXTHOP (struct nhmsg and its NHA_* attributes). */
struct fpm_nexthop {
	uint32_t id;        /* NHA_ID, never 0; all a delete carries */
	int family;         /* nh_family: AF_INET/AF_INET6 for one next hop, AF_UNSPEC
	                     * for a group (and zebra's deletes) */
	uint8_t protocol;   /* nh_protocol (zebra: 11, RTPROT_ZEBRA, for its own groups) */
	bool replace;       /* NLM_F_REPLACE (zebra: every add) */
	bool blackhole;     /* NHA_BLACKHOLE: no gateway, interface or group */
	bool onlink;        /* RTNH_F_ONLINK in nh_flags */
	struct cfg_addr gw; /* NHA_GATEWAY; family 0: none (interface only) */
	uint32_t ifindex;   /* NHA_OIF; never 0 for one next hop that is not a blackhole */
	uint16_t nb_group;  /* members in group[]; 0: not a group */
	struct fpm_nh_member group[FPM_MAX_PATHS];
};

enum fpm_msg_kind {
	FPM_ROUTE_ADD,   /* RTM_NEWROUTE: route */
	FPM_ROUTE_DEL,   /* RTM_DELROUTE: route (dst, table, protocol; next hops if any) */
	FPM_NH_ADD,      /* RTM_NEWNEXTHOP: nh */
	FPM_NH_DEL,      /* RTM_DELNEXTHOP: nh.id (and family, protocol) */
	FPM_IGNORED,     /* another netlink type (RTM_NEWNEIGH, NLMSG_NOOP, ...): why */
	FPM_UNSUPPORTED, /* a route or next hop vbrd does not take: op, why, what was read */
	FPM_KIND_MAX
};

/** One netlink message of a frame, as fpm_frame_parse() read it. */
struct fpm_msg {
	enum fpm_msg_kind kind;
	/* FPM_UNSUPPORTED: what the message was (FPM_ROUTE_ADD..FPM_NH_DEL), with
	 * route.dst and route.table (IPv4/IPv6 routes) or nh.id filled, so that a
	 * caller can withdraw what it holds for them. Otherwise equal to kind. */
	enum fpm_msg_kind op;
	uint16_t nl_type;      /* nlmsg_type (RTM_NEWROUTE, ...) */
	uint16_t nl_flags;     /* nlmsg_flags (NLM_F_*) */
	char why[FPM_WHY_MAX]; /* FPM_IGNORED, FPM_UNSUPPORTED: one line; else "" */
	union {
		struct fpm_route route; /* FPM_ROUTE_ADD, FPM_ROUTE_DEL */
		struct fpm_nexthop nh;  /* FPM_NH_ADD, FPM_NH_DEL */
	};
};

/**
 * The first frame of a TCP stream's bytes: its header checked (fpm.h
 * fpm_msg_hdr_ok()).
 *
 * @param buf     the stream's bytes not consumed yet, starting at a frame
 * @param len     bytes in @p buf
 * @param err     a one-line reason on error; may be NULL
 * @param errlen  bytes of @p err
 * @return        the frame's length in bytes (FPM_HDR_LEN..FPM_FRAME_MAX,
 *                a multiple of 4) when @p buf holds all of it; 0 when more
 *                bytes are needed (fewer than a header, or than the frame);
 *                -EBADMSG for a bad header: version not 1, type not netlink
 *                (1), length under 4, over FPM_FRAME_MAX or not a multiple
 *                of 4 (netlink alignment, fpm.h). The stream cannot be
 *                resynchronised after that: close the connection.
 */
long fpm_frame_len(const uint8_t *buf, size_t len, char *err, size_t errlen);

/**
 * Parse one frame: its netlink messages (struct nlmsghdr, NLMSG_ALIGN'ed)
 * into @p msgs, in order. A frame is taken whole or not at all.
 *
 * -EBADMSG (anything malformed; FPM_UNSUPPORTED is not an error):
 *   - the header as fpm_frame_len(), or its length not @p len;
 *   - a netlink header or an attribute outside its message, bytes left
 *     after the last message or attribute, a message shorter than its
 *     family header (rtmsg, nhmsg);
 *   - an attribute of the wrong size (u32 not 4 bytes, a gateway not the
 *     family's 4 or 16, RTA_DST not the family's), one used twice;
 *   - a route: family not IPv4/IPv6/MPLS, rtm_dst_len over 32/128, no
 *     RTA_DST with rtm_dst_len > 0, host bits set in the prefix (zebra
 *     masks every prefix; vbrd's configuration refuses them too),
 *     RTA_NH_ID 0, RTA_NH_ID with RTA_GATEWAY/RTA_OIF/RTA_MULTIPATH,
 *     RTA_MULTIPATH with RTA_GATEWAY/RTA_OIF, a blackhole route with a next
 *     hop, an rtnexthop shorter than its header or overrunning RTA_MULTIPATH;
 *   - a next hop: NHA_ID missing or 0; an add with NHA_GROUP and another
 *     kind (gateway, interface, blackhole), a group not of family
 *     AF_UNSPEC, empty, not a whole number of struct nexthop_grp, with a
 *     member 0, itself, twice or with reserved bits set; a blackhole with a
 *     gateway or interface; one next hop without NHA_OIF (or 0), a gateway
 *     but no IPv4/IPv6 family. Of a delete only NHA_ID is read (its other
 *     attributes only have to lie inside the message).
 *
 * FPM_UNSUPPORTED, with @c why: MPLS (AF_MPLS routes, RTA_NEWDST, RTA_VIA),
 * encapsulation (RTA_ENCAP*, NHA_ENCAP*: labels, VXLAN, SRv6),
 * source-specific routes (rtm_src_len, RTA_SRC), rtm_tos, route types
 * other than unicast and the three blackholes, an add with no next hop at
 * all, a next hop with neither gateway nor interface, over FPM_MAX_PATHS
 * next hops or members, resilient groups, NHA_FDB, any other attribute
 * but the ones read and RTA_PREFSRC, RTA_METRICS, RTA_FLOW, RTA_CACHEINFO,
 * RTA_PREF, RTA_EXPIRES (ignored).
 *
 * @param frame   a whole frame, header included, 4-byte aligned (netlink
 *                headers are read in place)
 * @param len     its length in bytes, as fpm_frame_len() returned
 * @param msgs    room for @p max messages
 * @param max     messages @p msgs holds (zebra 8.4 sends 1 or 2 a frame)
 * @param nb      messages written on success (0 for a bare header)
 * @param err     a one-line reason on error, naming the message
 *                ("message 2 (RTM_NEWROUTE 10.0.0.0/24): ..."); may be NULL
 * @param errlen  bytes of @p err
 * @return        0; -EBADMSG as above; -ENOSPC when the frame holds more
 *                than @p max messages; -EINVAL when @p frame is not 4-byte
 *                aligned. On error *nb is 0.
 */
int fpm_frame_parse(const uint8_t *frame, size_t len, struct fpm_msg *msgs, unsigned int max,
		    unsigned int *nb, char *err, size_t errlen);

/**
 * Write one frame of @p nb messages as zebra 8.4's dplane_fpm_nl does:
 * same flags (NLM_F_REQUEST | NLM_F_CREATE, NLM_F_REPLACE from
 * route.replace / nh.replace), same attributes in the same order
 * (RTA_DST, RTA_PRIORITY, RTA_TABLE from table 256 up, then RTA_NH_ID, or
 * RTA_GATEWAY and RTA_OIF for one next hop of weight 1, or RTA_MULTIPATH;
 * NHA_ID then NHA_GATEWAY, NHA_OIF, NHA_BLACKHOLE or NHA_GROUP), nlmsg_seq
 * and nlmsg_pid 0. fpm_frame_parse() of the frame gives @p msgs back
 * (messages as it gives them: zebra's frames come out byte for byte, the
 * pid aside).
 *
 * @param msgs  FPM_ROUTE_ADD, FPM_ROUTE_DEL, FPM_NH_ADD or FPM_NH_DEL messages
 * @param nb    how many (zebra: 1, or a route's delete and add)
 * @param buf   where the frame goes, 4-byte aligned
 * @param size  bytes of @p buf
 * @return      the frame's length in bytes; -ENOSPC when it does not fit in
 *              @p size or FPM_FRAME_MAX; -EINVAL for another kind, a family
 *              that is not IPv4/IPv6, over FPM_MAX_PATHS next hops or
 *              members, a weight outside 1..256, an unaligned @p buf
 */
long fpm_frame_encode(const struct fpm_msg *msgs, unsigned int nb, uint8_t *buf, size_t size);

/**
 * Name of a message kind, for counters and logs.
 *
 * @return  "route_add", "route_del", "nh_add", "nh_del", "ignored",
 *          "unsupported"; "unknown" out of range. Static strings.
 */
const char *fpm_msg_kind_name(enum fpm_msg_kind kind);

#endif
