/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What classification reads and writes in an egress frame, as pure
 * functions on bytes (no mbuf, no EAL), so that the unit tests and the
 * fuzzer (tests/fuzz/fuzz_qos_classify.c) run them alone:
 *
 *   - qos_key_build(): the rte_acl search key of a frame (classify.c
 *     feeds it to rte_acl_classify());
 *   - qos_frame_get_dscp(), qos_frame_set_dscp(), qos_frame_set_pcp():
 *     the marking a class asks for (classify.c's qos_get_dscp() & co. on
 *     the first segment of an mbuf);
 *   - qos_frame_get_ecn(), qos_frame_set_ce(): the ECN field a congested
 *     queue marks (sched.h, struct qos_ecn).
 *
 * The frame is an egress one: Ethernet II, 14 bytes, or 18 when bytes
 * 12-13 are 0x8100 (one 802.1Q tag, IEEE 802.1Q-2018 §9.6). IPv4 and IPv6
 * count only with their whole fixed header (20 / 40 bytes) in the frame;
 * nothing is ever read or written past the @p len bytes given.
 */
#ifndef VBRD_QOS_CLASSIFY_FRAME_H
#define VBRD_QOS_CLASSIFY_FRAME_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_branch_prediction.h>
#include <rte_ether.h>

/*
 * The rte_acl search key. rte_acl reads its first field as one byte alone,
 * then the rest in groups of 4 consecutive bytes (one "input index" each),
 * all in network byte order (DPDK prog guide, "Packet Classification and
 * Access Control"); the rules are given in host order (classify.c, which
 * also says in which order the tries read the groups).
 *
 *   offset  size  field                                     rte_acl type
 *   0       1     protocol / next header                    bitmask
 *   1       3     zero (rte_acl loads 4 bytes at 0)
 *   4       4     ingress port << 16 | ingress VLAN id      mask (32 or 0 bits)
 *   8       2     DSCP (0..63)                              range
 *   10      2     QOS_KEY_L4 | ingress PCP (0..7)           bitmask
 *   12      ...   source, destination address; then source and destination
 *                 port (ranges): IPv4 at 12, 16, 20, 22 (24 bytes);
 *                 IPv6 at 12, 28, 44, 46 (48 bytes)
 *
 * The ports are 0 when the packet has none (not TCP/UDP/SCTP, a non-first
 * IPv4 fragment, an IPv6 extension header first, too short); QOS_KEY_L4
 * says they were read, so that a class with a port range that includes 0
 * does not take packets without ports.
 */
#define QOS_KEY_L4 0x100 /* in qos_key_head.flags (host order): the ports were read */

struct qos_key_head {
	union {
		struct {
			uint8_t proto;
			uint8_t pad[3]; /* 0; rte_acl loads 4 bytes here, uses 1 */
		};
		uint32_t proto_pad; /* both, stored at once */
	};
	uint32_t iface; /* big-endian */
	union {
		struct {
			uint16_t dscp;  /* big-endian */
			uint16_t flags; /* big-endian: QOS_KEY_L4 | PCP */
		};
		uint32_t dscp_flags; /* both, stored at once */
	};
};

struct qos_key4 {
	struct qos_key_head h;
	uint8_t src[4], dst[4]; /* as in the header */
	uint16_t sport, dport;  /* as in the header (big-endian) */
};

struct qos_key6 {
	struct qos_key_head h;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
};

union qos_key {
	struct qos_key_head h;
	struct qos_key4 v4;
	struct qos_key6 v6;
};

_Static_assert(sizeof(struct qos_key_head) == 12, "rte_acl groups of 4 bytes");
_Static_assert(sizeof(struct qos_key4) == 24, "IPv4 key");
_Static_assert(sizeof(struct qos_key6) == 48, "IPv6 key");

/** What qos_key_build() found. */
enum qos_key_family {
	QOS_KEY_NONE = 0, /* not IPv4/IPv6, or its fixed header is cut: class 0 */
	QOS_KEY_IPV4 = 4, /* key in qos_key.v4 */
	QOS_KEY_IPV6 = 6, /* key in qos_key.v6 */
};

/**
 * The L3 header of an egress frame.
 *
 * @param p    frame, from the destination MAC
 * @param len  bytes in @p p
 * @param et   out: ethertype of the payload (after a tag), big-endian (the
 *             comparisons are with constants: RTE_BE16())
 * @return     the L2 header's length (14 or 18), or 0 when it is cut
 */
static inline uint32_t qos_frame_l3(const uint8_t *p, uint32_t len, rte_be16_t *et)
{
	rte_be16_t t;

	if (unlikely(len < RTE_ETHER_HDR_LEN))
		return 0;
	memcpy(&t, p + 12, 2);
	if (t != RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		*et = t;
		return RTE_ETHER_HDR_LEN;
	}
	if (unlikely(len < RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN))
		return 0;
	memcpy(et, p + 16, 2);
	return RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;
}

/* 1 for TCP, UDP and SCTP: the protocols whose first 4 bytes are the two
 * ports (one load; three compares cost more) */
static const uint8_t qos_proto_has_ports[256] = {
	[IPPROTO_TCP] = 1,
	[IPPROTO_UDP] = 1,
	[IPPROTO_SCTP] = 1,
};

/**
 * Build the rte_acl key of an egress frame.
 *
 * @param p     frame, from the destination MAC
 * @param len   bytes in @p p (an mbuf's data_len: the first segment only)
 * @param port  ingress DPDK port id (m->port)
 * @param tci   ingress 802.1Q TCI (m->vlan_tci; 0 when untagged)
 * @param k     out: the key, valid when IPv4 or IPv6 is returned
 * @param l2out out: the L2 header's length (14 or 18) when IPv4 or IPv6 is
 *              returned, else left as it was
 * @return      which key was built, or QOS_KEY_NONE
 */
static inline enum qos_key_family qos_key_build_l2(const uint8_t *p, uint32_t len, uint16_t port,
						   uint16_t tci, union qos_key *k, uint32_t *l2out)
{
	static const uint8_t no_ports[4];
	const uint8_t *ip;
	uint32_t l2, tc, proto, l4;
	rte_be16_t et, fo;

	l2 = qos_frame_l3(p, len, &et);
	if (unlikely(l2 == 0))
		return QOS_KEY_NONE;
	ip = p + l2;
	len -= l2;
	if (et == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		uint32_t ihl;

		if (unlikely(len < 20))
			return QOS_KEY_NONE;
		ihl = (ip[0] & 0xfu) * 4;
		proto = ip[9];
		tc = ip[1];
		memcpy(&fo, ip + 6, 2);
		/* ports in the first fragment only (offset 0; RFC 791 §3.2),
		 * and only when the 4 bytes are in the frame; the pointer is
		 * chosen, not the load, so the load never passes len */
		l4 = qos_proto_has_ports[proto] & ((fo & RTE_BE16(0x1fff)) == 0) & (ihl >= 20) &
		     (len >= ihl + 4);
		memcpy(k->v4.src, ip + 12, 8);
		memcpy(&k->v4.sport, l4 ? ip + ihl : no_ports, 4);
	} else if (et == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		if (unlikely(len < 40))
			return QOS_KEY_NONE;
		/* the fixed header's next header only (an extension header
		 * is the protocol then, without ports) */
		proto = ip[6];
		tc = (uint32_t)(ip[0] & 0xf) << 4 | ip[1] >> 4;
		l4 = qos_proto_has_ports[proto] & (len >= 44);
		memcpy(k->v6.src, ip + 8, 32);
		memcpy(&k->v6.sport, l4 ? ip + 40 : no_ports, 4);
	} else {
		return QOS_KEY_NONE;
	}
	k->h.proto_pad = rte_cpu_to_le_32(proto); /* the protocol in byte 0 */
	k->h.iface = rte_cpu_to_be_32((uint32_t)port << 16 | (tci & RTE_VLAN_ID_MASK));
	k->h.dscp_flags = rte_cpu_to_be_32(tc >> 2 << 16 | l4 << 8 | tci >> 13);
	*l2out = l2;
	return et == RTE_BE16(RTE_ETHER_TYPE_IPV4) ? QOS_KEY_IPV4 : QOS_KEY_IPV6;
}

/** qos_key_build_l2() without the L2 header's length. */
static inline enum qos_key_family qos_key_build(const uint8_t *p, uint32_t len, uint16_t port,
						uint16_t tci, union qos_key *k)
{
	uint32_t l2 = 0;

	return qos_key_build_l2(p, len, port, tci, k, &l2);
}

/*
 * The IP header of a frame when its fixed header is whole: its offset, and
 * 4 or 6 in *ver; 0 when the frame is not IPv4/IPv6 or is cut.
 */
static inline uint32_t qos_frame_ip(const uint8_t *p, uint32_t len, int *ver)
{
	rte_be16_t et;
	uint32_t l2 = qos_frame_l3(p, len, &et);

	if (l2 == 0)
		return 0;
	if (et == RTE_BE16(RTE_ETHER_TYPE_IPV4) && len >= l2 + 20) {
		*ver = 4;
		return l2;
	}
	if (et == RTE_BE16(RTE_ETHER_TYPE_IPV6) && len >= l2 + 40) {
		*ver = 6;
		return l2;
	}
	return 0;
}

/*
 * The IP header of a frame as qos_classify_burst_ip() hands it on
 * (classify.h): 0 when the frame is not IPv4/IPv6 or its fixed header is
 * cut in the first segment, else the L2 header's length (14 or 18), with
 * QOS_IP_V6 set for IPv6. The marking below then touches the header
 * without parsing the frame again.
 */
#define QOS_IP_V6  0x80
#define QOS_IP_OFF 0x7f

/** The qos_frame_ip() result of @p p as one byte (see QOS_IP_V6). */
static inline uint8_t qos_frame_ip_byte(const uint8_t *p, uint32_t len)
{
	int ver = 0;
	uint32_t l3 = qos_frame_ip(p, len, &ver);

	return (uint8_t)(l3 | (ver == 6 ? QOS_IP_V6 : 0));
}

/** DSCP of the IP header @p ip (IPv6 when @p v6). */
static inline int qos_ip_get_dscp(const uint8_t *ip, bool v6)
{
	return v6 ? (ip[0] & 0xf) << 2 | ip[1] >> 6 : ip[1] >> 2;
}

/** ECN codepoint of the IP header @p ip (IPv6 when @p v6); see qos_frame_get_ecn(). */
static inline int qos_ip_get_ecn(const uint8_t *ip, bool v6)
{
	/* IPv6: the traffic class's low 4 bits are the high nibble of byte 1 */
	return v6 ? ip[1] >> 4 & 0x3 : ip[1] & 0x3;
}

/* One's complement update of an IPv4 header checksum for one changed
 * 16-bit word @p m -> @p m2, as loaded: HC' = ~(~HC + ~m + m') (RFC 1624
 * §3, eqn. 3; byte order does not matter, RFC 1071 §2 (B)). */
static inline void qos_ip4_csum_update(uint8_t *ip, uint16_t m, uint16_t m2)
{
	uint16_t hc;
	uint32_t sum;

	memcpy(&hc, ip + 10, 2);
	sum = (uint32_t)(uint16_t)~hc + (uint16_t)~m + m2;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	hc = (uint16_t)~sum;
	memcpy(ip + 10, &hc, 2);
}

/** Remark the IP header @p ip (IPv6 when @p v6) to @p dscp; see qos_frame_set_dscp(). */
static inline void qos_ip_set_dscp(uint8_t *ip, bool v6, uint8_t dscp)
{
	dscp &= 0x3f;
	if (!v6) {
		uint16_t m, m2;

		memcpy(&m, ip, 2); /* version/IHL and TOS */
		ip[1] = (uint8_t)(dscp << 2 | (ip[1] & 0x3));
		memcpy(&m2, ip, 2);
		qos_ip4_csum_update(ip, m, m2);
	} else {
		/* version (4 bits), traffic class (8), flow label (20):
		 * DSCP is bits 2..7 of the first two bytes, LSB first */
		ip[0] = (uint8_t)((ip[0] & 0xf0) | dscp >> 2);
		ip[1] = (uint8_t)((ip[1] & 0x3f) | (dscp & 0x3) << 6);
	}
}

/** ECN codepoints (RFC 3168 §5): the two low bits of the IPv4 TOS / IPv6 traffic class. */
enum qos_ecn_codepoint {
	QOS_ECN_NOT_ECT = 0,
	QOS_ECN_ECT1 = 1,
	QOS_ECN_ECT0 = 2,
	QOS_ECN_CE = 3,
};

/**
 * Mark the IP header @p ip (IPv6 when @p v6) CE when ECT; see
 * qos_frame_set_ce(). IPv4: setting the two ECN bits only adds
 * d = 3 - ECN (1 or 2) to the TOS octet, the low octet of the first
 * 16-bit word, so the checksum is HC' = ~(~HC + d) in host order: RFC
 * 1624's eqn. 3 with m' - m = d (~m + m' is m' - m modulo 0xffff);
 * ~HC + d < 0x10002, one fold.
 * @return the codepoint it had
 */
static inline int qos_ip_set_ce(uint8_t *ip, bool v6)
{
	unsigned ecn = v6 ? ip[1] >> 4 & 0x3 : ip[1] & 0x3;

	/* (ecn + 1) & 2: ECT(1) and ECT(0); not Not-ECT (0) nor CE (3) */
	if (((ecn + 1) & 2) == 0)
		return (int)ecn;
	if (!v6) {
		uint16_t hc;
		uint32_t sum;

		ip[1] |= QOS_ECN_CE;
		memcpy(&hc, ip + 10, 2);
		sum = (uint32_t)(uint16_t)~rte_be_to_cpu_16(hc) + (QOS_ECN_CE - ecn);
		sum = (sum & 0xffff) + (sum >> 16);
		hc = rte_cpu_to_be_16((uint16_t)~sum);
		memcpy(ip + 10, &hc, 2);
	} else {
		ip[1] |= QOS_ECN_CE << 4;
	}
	return (int)ecn;
}

/**
 * DSCP of a frame (RFC 2474 §3: the upper 6 bits of the IPv4 TOS octet or
 * the IPv6 traffic class), or -1 when it is not IPv4/IPv6 or is cut.
 */
static inline int qos_frame_get_dscp(const uint8_t *p, uint32_t len)
{
	int ver;
	uint32_t l3 = qos_frame_ip(p, len, &ver);

	if (l3 == 0)
		return -1;
	return qos_ip_get_dscp(p + l3, ver == 6);
}

/**
 * Remark a frame to @p dscp (0..63; higher bits ignored), keeping the two
 * ECN bits (RFC 3168 §5). IPv4: the header checksum is updated from the
 * changed 16-bit word, HC' = ~(~HC + ~m + m') (RFC 1624 §3, eqn. 3); one's
 * complement sums do not depend on byte order (RFC 1071 §2 (B)), so the
 * words are summed as loaded. IPv6: only the 6 DSCP bits of the
 * version / traffic class / flow label word change. Else nothing.
 */
static inline void qos_frame_set_dscp(uint8_t *p, uint32_t len, uint8_t dscp)
{
	int ver;
	uint32_t l3 = qos_frame_ip(p, len, &ver);

	if (l3 == 0)
		return;
	qos_ip_set_dscp(p + l3, ver == 6, dscp);
}

/**
 * The ECN field of a frame (enum qos_ecn_codepoint), or -1 when it is not
 * IPv4/IPv6 or is cut.
 */
static inline int qos_frame_get_ecn(const uint8_t *p, uint32_t len)
{
	int ver;
	uint32_t l3 = qos_frame_ip(p, len, &ver);

	if (l3 == 0)
		return -1;
	return qos_ip_get_ecn(p + l3, ver == 6);
}

/**
 * Mark a frame Congestion Experienced (RFC 3168 §5, §6.1.1.1: a router
 * sets CE in an ECT packet where it would drop it for congestion). ECT(0)
 * and ECT(1) become CE, the IPv4 header checksum updated incrementally
 * (RFC 1624); CE stays CE; Not-ECT, non-IP or cut frames are not touched.
 *
 * @return the codepoint the frame had (QOS_ECN_CE: marked now or before),
 *         or -1 when it is not IPv4/IPv6
 */
static inline int qos_frame_set_ce(uint8_t *p, uint32_t len)
{
	int ver;
	uint32_t l3 = qos_frame_ip(p, len, &ver);

	if (l3 == 0)
		return -1;
	return qos_ip_set_ce(p + l3, ver == 6);
}

/**
 * Set the priority (PCP, 0..7; higher bits ignored) of a tagged frame's
 * 802.1Q tag, keeping the DEI and the VLAN id (IEEE 802.1Q-2018 §9.6).
 * Untagged or cut: nothing.
 */
static inline void qos_frame_set_pcp(uint8_t *p, uint32_t len, uint8_t pcp)
{
	if (len < RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN || p[12] != 0x81 || p[13] != 0x00)
		return;
	p[14] = (uint8_t)((pcp & 0x7) << 5 | (p[14] & 0x1f));
}

#endif
