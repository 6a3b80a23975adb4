/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QoS state of one forwarding-state generation (qos.c builds it on the
 * control side, qos_worker.c runs it): a line per egress interface with a
 * policy, each with its classifier, policers and scheduler.
 *
 * Lifetime. Queued packets live in a line's scheduler, which its owner
 * worker alone touches. When a reload publishes a new generation, each
 * worker moves to it at the end of its next loop turn (qos_worker.c), the
 * owner moving the packets and counters of every queue that stays (same
 * interface, business and queue names) into the new lines. A worker that
 * sleeps while idle is offline for RCU and may still point at an old
 * generation when the forwarding state that held it is retired, so a
 * qos_state is counted by the workers that use it (refs) and freed only
 * once none does (qos_state_release(), the control timer).
 */
#ifndef VBRD_QOS_QOS_H
#define VBRD_QOS_QOS_H

#include <stdatomic.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_meter.h>
#include <rte_ring.h>

#include "core/drop.h"
#include "core/module.h"
#include "qos/classify.h"
#include "qos/qos_config.h"
#include "qos/sched.h"

#define QOS_TX_BURST  32   /* packets a line dequeues per loop turn and call */
#define QOS_RING_SIZE 4096 /* per port, workers → the owner (multi-producer) */
#define QOS_NO_LINE   0xff

DROP_REASON_DECLARE(drop_qos_queue_full);
DROP_REASON_DECLARE(drop_qos_policer_red);
DROP_REASON_DECLARE(drop_qos_ring_full);
DROP_REASON_DECLARE(drop_qos_queue_removed);

extern struct vbrd_module qos_module;

/** A policer (rte_meter), colour-blind. */
struct qos_meter {
	enum qos_meter_mode mode;
	int yellow_dscp; /* -1: yellow keeps its DSCP */
	union {
		struct rte_meter_srtcm_profile sr;
		struct rte_meter_trtcm_profile tr;
		struct rte_meter_trtcm_rfc4115_profile t4;
	} prof;
	union {
		struct rte_meter_srtcm sr;
		struct rte_meter_trtcm tr;
		struct rte_meter_trtcm_rfc4115 t4;
	} m;
	uint64_t green, yellow, red; /* packets */
};

/** What a class decides, looked up by the classifier's result. */
struct qos_class_rt {
	uint8_t business, queue;
	int8_t set_dscp;         /* -1 keep */
	int16_t meter;           /* index into qos_line.meters, -1 none */
	uint64_t packets, bytes; /* matched (owner lcore) */
};

struct qos_line {
	/* set by the control side, read-only after publication */
	uint16_t port, vlan; /* egress port id and VLAN (0 untagged) */
	uint16_t slot;       /* the interface's counter slot */
	uint16_t iface;      /* index into fwd_state.ifaces */
	char iface_name[CFG_NAME_MAX];
	char policy[CFG_NAME_MAX];
	uint64_t rate_bps;
	uint32_t overhead;
	const struct qos_classifier *cls;
	uint16_t nb_classes;
	struct qos_class_rt *classes; /* by class index */
	char (*class_names)[CFG_NAME_MAX];
	uint16_t nb_meters;
	struct qos_meter *meters;
	int16_t business_meter[QOS_MAX_BUSINESSES]; /* -1 none */
	char (*business_names)[CFG_NAME_MAX];       /* nb_business */
	char (*queue_names)[QOS_MAX_QUEUES][CFG_NAME_MAX];
	uint8_t default_business, default_queue;
	bool pcp_map;
	int8_t dscp_to_pcp[64];

	/* the owner's */
	struct qos_classify_cache *cls_cache; /* results by masked key (classify.h) */
	struct qos_sched sched;
	uint16_t nb_pending, pending_at; /* dequeued, the TX queue did not take them yet */
	struct rte_mbuf *pending[QOS_TX_BURST];
	uint64_t unclassified; /* packets no class matched (default queue) */

	_Atomic bool adopted; /* the owner moved the old line's counters in (qos_worker.c) */

	/* the control side's: rates over the last second (qos_show.c) */
	uint64_t rate_tsc;
	uint64_t *rate_prev;  /* tx bytes per queue at rate_tsc */
	uint64_t *rate_bps_q; /* bits/s per queue */
};

struct qos_state {
	int nb_lines;
	struct qos_line *lines;
	int nb_classifiers;
	struct qos_classifier **classifiers;     /* one per policy */
	uint32_t port_mask;                      /* ports with a line */
	uint16_t owner[RTE_MAX_ETHPORTS];        /* worker id that schedules each port */
	uint8_t *line_by_vlan[RTE_MAX_ETHPORTS]; /* [4096] → line index, QOS_NO_LINE */
	_Atomic int refs;                        /* workers using it (qos_worker.c) */
	struct qos_state *next_retired;
};

/** Multi-producer rings from the workers to each port's owner (NULL: one worker). */
extern struct rte_ring *qos_rings[RTE_MAX_ETHPORTS];

/** The line index of egress frame @p m on @p port, or QOS_NO_LINE. */
static inline unsigned qos_line_of(const struct qos_state *qs, uint16_t port,
				   const struct rte_mbuf *m)
{
	const uint8_t *map = qs->line_by_vlan[port];
	if (map == NULL)
		return QOS_NO_LINE;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t vlan = 0;
	if (rte_pktmbuf_data_len(m) >= 18 && p[12] == 0x81 && p[13] == 0x00)
		vlan = (uint16_t)((p[14] & 0x0f) << 8 | p[15]);
	return map[vlan];
}

/** Free @p qs now (no worker uses it): its queued packets too. */
void qos_state_destroy(struct qos_state *qs);

/** Register `show qos` and its views, and their telemetry (qos_show.c; the module's start hook). @return 0 or a negative errno */
int qos_show_start(void);

/**
 * Sample every line's per-queue TX bytes of the current generation and
 * update its rates (bits/s over the last RATE_PERIOD_MS, 1 s); main lcore,
 * from the module's timer. A line is sampled once its owner adopted it.
 */
void qos_rates_update(void);

/** The qos_state of @p st (NULL when it has no line). */
const struct qos_state *qos_state_of(const struct fwd_state *st);

#endif
