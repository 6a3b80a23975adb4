/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Classification at the egress point (classify.c): a policy's classes
 * compiled into rte_acl contexts at config time (one for IPv4, one for
 * IPv6), so that no packet walks the rules, and the DSCP / 802.1p marking
 * a class asks for.
 *
 * Packets are classified where they leave: their L2 header is the egress
 * one (14 bytes, or 18 with an 802.1Q tag). What the header no longer
 * says comes from the mbuf: m->port is the ingress port (set by the PMD),
 * m->vlan_tci the ingress 802.1Q TCI (the worker stores it for tagged
 * frames; 0 for untagged ones, as the PMD leaves it).
 */
#ifndef VBRD_QOS_CLASSIFY_H
#define VBRD_QOS_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "core/config.h"
#include "qos/qos_config.h"

struct qos_classifier;

/**
 * Compile @p pol's classes into a classifier: an rte_acl context for the
 * classes that can match IPv4, one for those that can match IPv6 (a class
 * without a prefix is in both; a family no class matches gets none).
 * Classes rank by their priority number, lowest first, whatever their
 * order in pol->classes. A class with a port range only takes packets
 * whose ports were read (TCP, UDP, SCTP; not a later IPv4 fragment), even
 * when the range includes 0.
 *
 * @param cfg       the configuration @p pol belongs to (interfaces, ports)
 * @param port_ids  DPDK port id of each config port (cfg->ports[i] → port_ids[i]),
 *                  for classes that match an ingress interface
 * @param name      unique name for the rte_acl contexts (e.g. "qos-7-edge": generation and policy);
 *                  they are named @p name + "-4" / "-6", a name longer than 29 characters
 *                  shortened to 20 and a hash of the whole. A name in use is an error
 *                  (rte_acl_create() would hand back the context that has it).
 * @param err       on failure, what failed
 * @return the classifier, or NULL (a class that makes no rule, the name in use, rte_acl
 *         build failed or no memory; @p err says which)
 */
struct qos_classifier *qos_classifier_build(const struct vbrd_config *cfg,
					    const struct qos_policy_conf *pol,
					    const uint16_t *port_ids, const char *name, char *err,
					    size_t errlen);

/** Release @p c (NULL is fine). Not while a worker may still use it (RCU). */
void qos_classifier_free(struct qos_classifier *c);

/**
 * Classify @p n packets framed for egress: one rte_acl search per family
 * for each 64 packets (more are taken 64 at a time). Only the first
 * segment (data_len) is read.
 *
 * @param cls  out: per packet, 1 + the index (into pol->classes) of the
 *             matching class with the lowest priority number, or 0 when
 *             none matches or the packet is not IPv4/IPv6 (ARP, a fixed IP
 *             header cut short)
 */
void qos_classify_burst(const struct qos_classifier *c, struct rte_mbuf **pkts, unsigned n,
			uint32_t *cls);

#define QOS_KEY4_WORDS          3 /* 8-byte words of an IPv4 key (classify_frame.h, struct qos_key4) */
#define QOS_KEY6_WORDS          6  /* and of an IPv6 one */
#define QOS_CLASSIFY_CACHE_BITS 10 /* 1024 sets of 2 entries: 128 KiB a line */
#define QOS_CLASSIFY_CACHE_SETS (1u << QOS_CLASSIFY_CACHE_BITS)

/** One remembered result: a key masked to the fields the classes look at. */
struct qos_classify_entry {
	uint64_t k[QOS_KEY6_WORDS]; /* an IPv4 key uses the first QOS_KEY4_WORDS */
	uint32_t cls;               /* qos_classify_burst()'s result for it */
	uint32_t fam;               /* enum qos_key_family; 0: empty */
};

/**
 * A line's cache of classification results (owner lcore only, zeroed to
 * start; one per generation, so a reload starts it empty). The key is the
 * rte_acl key with every field that no class of the policy constrains
 * cleared: the result cannot depend on those, so packets that differ only
 * there (addresses, when no class has a prefix) share an entry. Two-way
 * set-associative; a miss goes to rte_acl with the burst's other misses.
 */
struct qos_classify_cache {
	struct qos_classify_entry set[QOS_CLASSIFY_CACHE_SETS][2];
	uint64_t lookups, misses; /* packets with an IP key, of them looked up in rte_acl */
	unsigned victim;          /* which way a full set gives up next */
};

/**
 * qos_classify_burst() through the cache @p cc (NULL: none), and where
 * each packet's IP header is, so that the marking does not parse the frame
 * again.
 *
 * @param ip  out: per packet, 0 when it is not IPv4/IPv6 or the first
 *            segment cuts its fixed header, else the L2 header's length
 *            (14 or 18) with QOS_IP_V6 (classify_frame.h) set for IPv6
 */
void qos_classify_burst_ip(const struct qos_classifier *c, struct qos_classify_cache *cc,
			   struct rte_mbuf **pkts, unsigned n, uint32_t *cls, uint8_t *ip);

/**
 * DSCP of the egress frame @p m (IPv4 TOS or IPv6 traffic class, upper 6
 * bits), or -1 when it is not IPv4/IPv6.
 */
int qos_get_dscp(const struct rte_mbuf *m);

/**
 * Remark the egress frame @p m to @p dscp (0..63), keeping the two ECN bits
 * (RFC 2474 §3, RFC 3168 §5). IPv4: the header checksum is updated
 * incrementally (RFC 1624). Not IPv4/IPv6: nothing.
 */
void qos_set_dscp(struct rte_mbuf *m, uint8_t dscp);

/**
 * Mark the egress frame @p m Congestion Experienced when it is ECT
 * (qos_frame_set_ce(): IPv4 checksum updated incrementally, Not-ECT
 * untouched).
 * @return the ECN codepoint it had (enum qos_ecn_codepoint), or -1 when not IPv4/IPv6
 */
int qos_set_ce(struct rte_mbuf *m);

/** ECN codepoint of the egress frame @p m (enum qos_ecn_codepoint), or -1 when not IPv4/IPv6. */
int qos_get_ecn(const struct rte_mbuf *m);

/** Set the 802.1p priority (PCP, 0..7) of a tagged egress frame; untagged: nothing. */
void qos_set_pcp(struct rte_mbuf *m, uint8_t pcp);

#endif
