/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QoS configuration model: section "qos" of the config file turned into
 * plain C structs (qos_config.c; no DPDK, so `vbrd --check-config`, the unit
 * tests and the fuzzer link it without an EAL).
 *
 *     qos = {
 *       policies = ( {
 *         name = "edge";
 *         default_business = "bulk";           # unclassified traffic: its default queue
 *         businesses = (
 *           { name = "inference"; guaranteed = "30%"; ceiling = "100%"; priority = 0;
 *             queues = ( { name = "high"; type = "priority"; cap = "10M"; },
 *                        { name = "m1"; type = "weighted"; percent = 60; } ); },
 *           { name = "bulk"; guaranteed = "70%"; } );
 *         classes = (
 *           { name = "roce"; priority = 10; protocol = "udp"; dst_port = 4791;
 *             business = "inference"; queue = "high"; set_dscp = 26; tier = "gold";
 *             policer = { mode = "trtcm"; cir = "20M"; cbs = 16000; pir = "40M"; pbs = 32000; }; } );
 *       } );
 *       interfaces = ( { interface = "line1"; policy = "edge"; rate = "100M"; } );
 *     };
 *
 * Rates are bits/s as the user writes them: an integer, or a string with a
 * unit ("100M", "1.5G", "800k": ×1000 steps) or, where said, a percent of
 * the interface's rate ("30%", "12.5%"). Bursts are bytes. The data path
 * converts to bytes/s (rte_meter, the shapers) when it builds its state.
 */
#ifndef VBRD_QOS_CONFIG_H
#define VBRD_QOS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"

#define QOS_MAX_POLICIES       16
#define QOS_MAX_LINES          64 /* interfaces with a policy */
#define QOS_MAX_BUSINESSES     64 /* per policy: one bit each in the scheduler's bitmaps */
#define QOS_MAX_PRIO_QUEUES    8  /* strict-priority queues per business */
#define QOS_MAX_WEIGHT_QUEUES  8  /* weighted queues per business (besides the default) */
#define QOS_MAX_QUEUES         (QOS_MAX_PRIO_QUEUES + QOS_MAX_WEIGHT_QUEUES + 1)
#define QOS_MAX_CLASSES        4096  /* per policy */
#define QOS_PRIORITY_LEVELS    8     /* business priority 0 (served first) .. 7 */
#define QOS_MAX_CLASS_PRIORITY 65535 /* class priority 0..65535 (rte_acl takes < 2^29) */

#define QOS_MAX_RATE      400000000000ULL /* bits/s: 400G, the fastest line shaped */
#define QOS_MIN_LINE_RATE 1000            /* bits/s: 1k, the slowest line shaped */
#define QOS_MAX_BURST     (1u << 30)      /* bytes of a bucket: 1 GiB, 21 ms at 400G */

#define QOS_DEFAULT_OVERHEAD    24  /* bytes per frame: preamble+SFD 8, IFG 12, FCS 4 */
#define QOS_DEFAULT_QUEUE_LIMIT 256 /* packets per queue */
#define QOS_DEFAULT_PRIORITY    4   /* business priority when not given */
#define QOS_DEFAULT_QUEUE_NAME  "default"

/** A rate as written: absolute bits/s, or a share of the interface's rate. */
struct qos_rate {
	uint64_t bps; /* bits/s; used when ppm == 0 */
	uint32_t ppm; /* parts per million of the interface rate ("12.5%" = 125000); 0 = absolute */
	bool set;     /* given in the file */
};

/** Policer modes (rte_meter): RFC 2697 srTCM, RFC 2698 trTCM, RFC 4115 trTCM. */
enum qos_meter_mode { QOS_METER_SRTCM, QOS_METER_TRTCM, QOS_METER_RFC4115 };

/**
 * A quota on a business or a class, colour-blind. Red is dropped; yellow
 * is remarked to yellow_dscp when set, else passes as it is.
 *   srTCM:   cir, cbs, ebs
 *   trTCM:   cir, cbs, pir (>= cir), pbs
 *   RFC4115: cir, cbs, eir, ebs
 */
struct qos_policer_conf {
	bool set;
	enum qos_meter_mode mode;
	uint64_t cir_bps; /* committed information rate, bits/s (> 0) */
	uint64_t eir_bps; /* trTCM: peak rate (PIR); RFC 4115: excess rate (EIR); bits/s */
	uint32_t cbs;     /* committed burst, bytes, >= the egress MTU + L2 header */
	uint32_t ebs;     /* srTCM/RFC 4115: excess burst; trTCM: peak burst (PBS); bytes */
	int yellow_dscp;  /* 0..63, or -1: yellow keeps its DSCP */
	int line;
};

/** ECN marking of a queue (sched.h, struct qos_ecn). */
enum qos_ecn_mode { QOS_ECN_OFF, QOS_ECN_STEP, QOS_ECN_RAMP };

#define QOS_ECN_MAX_US 1000000 /* thresholds: 1 µs .. 1 s of queue at the line's rate */

/**
 * A queue's `ecn` group: mark ECT packets CE, instead of letting the queue
 * build to a tail drop, when the bytes queued ahead of them take longer
 * than a threshold to send at the line's rate.
 *   step: threshold_us (DCTCP's K)
 *   ramp: min_us < max_us, max_probability (DCQCN's Kmin, Kmax, Pmax)
 */
struct qos_ecn_conf {
	enum qos_ecn_mode mode;
	uint32_t min_us;  /* step: the threshold; ramp: where marking starts */
	uint32_t max_us;  /* ramp: every ECT packet marked from here (step: = min_us) */
	uint32_t max_ppm; /* ramp: probability at max_us, parts per million (1..1000000) */
	int line;
};

enum qos_queue_type { QOS_QUEUE_PRIORITY, QOS_QUEUE_WEIGHTED, QOS_QUEUE_DEFAULT };

/**
 * One queue of a business. Priority queues are served first in the order
 * they are listed, each up to its cap when it has one; weighted queues and
 * the default queue then share what is left by percent (DRR: an idle
 * queue's share goes to the busy ones).
 */
struct qos_queue_conf {
	char name[CFG_NAME_MAX];
	enum qos_queue_type type;
	struct qos_rate cap; /* priority queues: optional rate cap (a percent is of the interface) */
	uint32_t percent;    /* weighted and default: share 1..100 */
	uint32_t limit; /* packets held before tail drop, 1..65536; default QOS_DEFAULT_QUEUE_LIMIT */
	struct qos_ecn_conf ecn; /* mode QOS_ECN_OFF: tail drop only */
	int line;
};

/**
 * A business: a guaranteed rate, an optional ceiling, a priority, queues.
 * queues[] holds the priority queues first (listed order), then the
 * weighted ones, then exactly one default queue (added with the name
 * "default" and the percent left over, at least 1, when the file has none).
 */
struct qos_business_conf {
	char name[CFG_NAME_MAX];
	struct qos_rate guaranteed; /* required */
	struct qos_rate ceiling;    /* optional; unset = the interface rate */
	uint8_t priority;           /* 0..QOS_PRIORITY_LEVELS-1, lower is served first */
	struct qos_policer_conf policer;
	int nb_prio, nb_weighted; /* queues[0..nb_prio) priority, then weighted, then default */
	int nb_queues;            /* nb_prio + nb_weighted + 1 */
	struct qos_queue_conf queues[QOS_MAX_QUEUES];
	int line;
};

/** Match fields of a class; an absent field matches everything. */
struct qos_match {
	int family;   /* 0: both; AF_INET or AF_INET6 when a prefix names one */
	int protocol; /* IP protocol / next header 0..255, -1 any */
	bool has_src, has_dst;
	struct cfg_prefix src, dst;  /* network prefixes (host bits zero) */
	uint16_t sport_lo, sport_hi; /* inclusive; 0..65535 when absent */
	uint16_t dport_lo, dport_hi;
	int dscp_lo, dscp_hi; /* 0..63 inclusive; -1 when absent */
	int ingress;          /* index into vbrd_config.ifaces, -1 any */
	int vrf;              /* index into vbrd_config.vrfs: received by one of its
	                       * interfaces (tunnels excepted); -1 any */
	int pcp;              /* ingress 802.1p priority 0..7, -1 any (untagged is 0) */
};

/** A class: a rule that puts packets into a business and queue. */
struct qos_class_conf {
	char name[CFG_NAME_MAX];
	uint32_t priority; /* unique within the policy; the lowest matching one wins */
	struct qos_match match;
	int business;       /* index into the policy's businesses */
	int queue;          /* index into that business's queues (default: its default queue) */
	int set_dscp;       /* remark to 0..63 (ECN kept), -1 = keep */
	enum cfg_tier tier; /* for path selection; default gold */
	struct qos_policer_conf policer;
	int line;
};

struct qos_policy_conf {
	char name[CFG_NAME_MAX];
	int nb_businesses;
	struct qos_business_conf *businesses;
	int default_business; /* index: unclassified traffic goes to its default queue */
	int nb_classes;
	struct qos_class_conf *classes; /* sorted by priority, lowest first */
	int line;
};

/** An egress interface with a policy: the line it shapes. */
struct qos_line_conf {
	int iface;              /* index into vbrd_config.ifaces */
	int policy;             /* index into qos_config.policies */
	uint64_t rate_bps;      /* line rate, bits/s, counting overhead per frame */
	uint32_t overhead;      /* bytes added to each frame's length; default QOS_DEFAULT_OVERHEAD
	                       * (the frame already holds its 802.1Q tag) */
	uint32_t burst;         /* line bucket depth, bytes; 0 = default (2 ms at rate, at least
	                       * two MTU frames) */
	int8_t dscp_to_pcp[64]; /* VLAN interfaces: 802.1p priority for each DSCP, -1 = not
	                         * mapped (PCP 0) */
	bool has_pcp_map;
	int line;
};

struct qos_config {
	int nb_policies;
	struct qos_policy_conf *policies;
	int nb_lines;
	struct qos_line_conf *lines;
};

/** The "qos" section of @p cfg, or NULL when the file has none. */
const struct qos_config *qos_config_get(const struct vbrd_config *cfg);

/**
 * Index of policy @p name in qos_config.policies of @p cfg, or -1 (also
 * when the file has no qos section). For sections that name a policy; they
 * load after "qos" (config_section `after`).
 */
int qos_policy_index(const struct vbrd_config *cfg, const char *name);

/**
 * A rate in bits/s on a line of @p line_bps: @p r's absolute value or its
 * share; 0 when @p r is not set.
 */
static inline uint64_t qos_rate_bps(const struct qos_rate *r, uint64_t line_bps)
{
	if (!r->set)
		return 0;
	return r->ppm ? (uint64_t)((unsigned __int128)line_bps * r->ppm / 1000000) : r->bps;
}

/**
 * Parse a rate: an integer string of bits/s, with an optional unit k, M, G
 * or T (×1000 steps, decimals allowed: "1.5G"), or, when @p percent_ok,
 * "N%" / "N.N%" (0 < N <= 100).
 * @return 0, or -EINVAL with @p why set to a message fragment
 */
int qos_parse_rate(const char *s, bool percent_ok, struct qos_rate *out, const char **why);

struct cfg_reader;
typedef struct config_setting_t config_setting_t; /* libconfig's */

/**
 * Member @p name of libconfig group @p grp as a
 * rate: an integer of bits/s (1..QOS_MAX_RATE), or a string
 * qos_parse_rate() reads (a percent only when @p percent_ok). A bad value
 * is reported at its FILE:LINE through @p ld.
 *
 * @return CFG_VAL_OK (@p out filled), CFG_VAL_ABSENT or CFG_VAL_BAD
 */
int qos_cfg_get_rate(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		     bool percent_ok, struct qos_rate *out);

/** "100M", "1.5G", "12.5%": @p r as the user would write it, into @p buf. */
char *qos_format_rate(const struct qos_rate *r, char *buf, size_t len);

#endif
