/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QoS module, control side: builds each generation's lines from the
 * "qos" config section (rates in bits/s turned into bytes/s buckets and
 * rte_meter profiles, classes compiled by classify.c, queues sized), and
 * frees generations once no worker uses them (qos.h, Lifetime).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "core/tsc.h"
#include "core/log.h"
#include "pipeline/fwd.h"
#include "pipeline/worker.h"
#include "qos/qos.h"

VBRD_LOG_TYPE(qos);

DROP_REASON(drop_qos_queue_full, "qos", "queue_full",
	    "a QoS queue held its limit of packets (tail drop)");
DROP_REASON(drop_qos_policer_red, "qos", "policer_red",
	    "red by a class or business policer (over its committed and excess/peak burst)");
DROP_REASON(drop_qos_ring_full, "qos", "ring_full",
	    "the ring to the lcore that schedules the port was full");
DROP_REASON(drop_qos_queue_removed, "qos", "queue_removed",
	    "queued when a reload removed its queue, or over the queue's new limit");

struct rte_ring *qos_rings[RTE_MAX_ETHPORTS];

/* Generations retired while a worker still used them, freed by the timer. */
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
static struct qos_state *retired;

#define BURST_TIME_MS 2 /* default line bucket depth: this much time at the line rate */

const struct qos_state *qos_state_of(const struct fwd_state *st)
{
	return st ? fwd_feature(st, &qos_module) : NULL;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * Depth of a bucket of @p rate bytes/s: @p burst_ns of it, at least two
 * frames. Every bucket of a line is as deep in time as the line's own, so
 * that a worker kept off its CPU for that long (a loaded host) loses no
 * share at any level, not only at the line.
 */
static uint64_t depth_for(uint64_t rate, uint64_t burst_ns, uint32_t max_frame)
{
	return max_u64((uint64_t)((unsigned __int128)rate * burst_ns / 1000000000u),
		       2ull * max_frame);
}

/*
 * Bits/s as the bytes/s rte_meter and the buckets take, rounded up: a rate
 * under 8 bit/s is 1 byte/s, not 0 (which a bucket reads as no limit, and
 * rte_meter refuses). 0 (not set) stays 0.
 */
static uint64_t bytes_per_s(uint64_t bps)
{
	return (bps + 7) / 8;
}

static int meter_init(struct qos_meter *qm, const struct qos_policer_conf *pc, char *err,
		      size_t errlen)
{
	int ret;

	qm->mode = pc->mode;
	qm->yellow_dscp = pc->yellow_dscp;
	/* rte_meter takes bytes/s: the config's bits/s divided by 8 */
	switch (pc->mode) {
	case QOS_METER_SRTCM: {
		struct rte_meter_srtcm_params p = { .cir = bytes_per_s(pc->cir_bps),
						    .cbs = pc->cbs,
						    .ebs = pc->ebs };
		ret = rte_meter_srtcm_profile_config(&qm->prof.sr, &p);
		if (ret == 0)
			ret = rte_meter_srtcm_config(&qm->m.sr, &qm->prof.sr);
		break;
	}
	case QOS_METER_TRTCM: {
		struct rte_meter_trtcm_params p = { .cir = bytes_per_s(pc->cir_bps),
						    .pir = bytes_per_s(pc->eir_bps),
						    .cbs = pc->cbs,
						    .pbs = pc->ebs };
		ret = rte_meter_trtcm_profile_config(&qm->prof.tr, &p);
		if (ret == 0)
			ret = rte_meter_trtcm_config(&qm->m.tr, &qm->prof.tr);
		break;
	}
	default: {
		struct rte_meter_trtcm_rfc4115_params p = { .cir = bytes_per_s(pc->cir_bps),
							    .eir = bytes_per_s(pc->eir_bps),
							    .cbs = pc->cbs,
							    .ebs = pc->ebs };
		ret = rte_meter_trtcm_rfc4115_profile_config(&qm->prof.t4, &p);
		if (ret == 0)
			ret = rte_meter_trtcm_rfc4115_config(&qm->m.t4, &qm->prof.t4);
		break;
	}
	}
	if (ret < 0)
		snprintf(err, errlen, "policer at line %d: rte_meter refused it: %s", pc->line,
			 strerror(-ret));
	return ret;
}

static void line_free(struct qos_line *l)
{
	struct qos_sched *s = &l->sched;

	if (s->b) {
		for (unsigned b = 0; b < s->nb_business; b++) {
			for (unsigned q = 0; q < s->b[b].nb_queues; q++) {
				struct rte_mbuf *m;
				while ((m = qos_sched_take(s, b, q)) != NULL)
					rte_pktmbuf_free(m);
				rte_free(s->b[b].q[q].ring);
			}
		}
		rte_free(s->b);
	}
	if (l->nb_pending > l->pending_at)
		rte_pktmbuf_free_bulk(l->pending + l->pending_at,
				      (unsigned)(l->nb_pending - l->pending_at));
	rte_free(l->meters);
	rte_free(l->cls_cache);
	free(l->classes);
	free(l->class_names);
	free(l->business_names);
	free(l->queue_names);
	free(l->rate_prev);
	free(l->rate_bps_q);
}

static int line_build(struct qos_line *l, const struct fwd_state *st, const struct qos_config *qc,
		      const struct qos_line_conf *lc, const struct qos_classifier *cls,
		      uint64_t now, char *err, size_t errlen)
{
	const struct qos_policy_conf *pol = &qc->policies[lc->policy];
	const struct fwd_iface *fi = &st->ifaces[lc->iface];
	struct qos_sched *s = &l->sched;
	uint64_t hz = tsc_hz();
	int socket = rte_eth_dev_socket_id(fi->port);

	l->port = fi->port;
	l->vlan = fi->vlan;
	l->slot = fi->slot;
	l->iface = (uint16_t)lc->iface;
	snprintf(l->iface_name, sizeof(l->iface_name), "%s", fi->name);
	snprintf(l->policy, sizeof(l->policy), "%s", pol->name);
	l->rate_bps = lc->rate_bps;
	l->overhead = lc->overhead;
	l->cls = cls;
	l->default_business = (uint8_t)pol->default_business;
	l->default_queue = (uint8_t)(pol->businesses[pol->default_business].nb_queues - 1);
	l->pcp_map = lc->has_pcp_map && fi->vlan != 0;
	memcpy(l->dscp_to_pcp, lc->dscp_to_pcp, sizeof(l->dscp_to_pcp));

	uint32_t max_frame = fi->mtu + (fi->vlan ? 18u : 14u) + lc->overhead;
	uint64_t line_rate = bytes_per_s(lc->rate_bps);
	uint64_t line_depth = lc->burst
				      ? lc->burst
				      : depth_for(line_rate, BURST_TIME_MS * 1000000ull, max_frame);
	uint64_t burst_ns = line_rate ? (uint64_t)((unsigned __int128)line_depth * 1000000000u /
						   line_rate)
				      : BURST_TIME_MS * 1000000ull;
	qos_tb_init(&s->line, line_rate, line_depth, hz, now);
	s->overhead = lc->overhead;
	s->hz = hz;
	s->rng = (uint32_t)(now ^ now >> 32) | 1; /* xorshift32 must not start at 0 */
	s->nb_business = (uint16_t)pol->nb_businesses;
	s->b = rte_zmalloc_socket("qos-business", pol->nb_businesses * sizeof(*s->b),
				  RTE_CACHE_LINE_SIZE, socket);
	l->business_names = calloc(pol->nb_businesses, sizeof(*l->business_names));
	l->queue_names = calloc(pol->nb_businesses, sizeof(*l->queue_names));
	l->classes = calloc(pol->nb_classes + 1, sizeof(*l->classes));
	l->class_names = calloc(pol->nb_classes + 1, sizeof(*l->class_names));
	unsigned nq = 0;
	for (int b = 0; b < pol->nb_businesses; b++)
		nq += (unsigned)pol->businesses[b].nb_queues;
	l->rate_prev = calloc(nq, sizeof(uint64_t));
	l->rate_bps_q = calloc(nq, sizeof(uint64_t));
	/* a business meter for each business with a policer, then one per class */
	l->meters = rte_zmalloc_socket(
		"qos-meter", (pol->nb_businesses + pol->nb_classes + 1) * sizeof(*l->meters),
		RTE_CACHE_LINE_SIZE, socket);
	l->cls_cache = rte_zmalloc_socket("qos-cls-cache", sizeof(*l->cls_cache),
					  RTE_CACHE_LINE_SIZE, socket);
	if (!s->b || !l->business_names || !l->queue_names || !l->classes || !l->class_names ||
	    !l->rate_prev || !l->rate_bps_q || !l->meters || !l->cls_cache)
		goto nomem;

	uint64_t min_g = UINT64_MAX;
	for (int b = 0; b < pol->nb_businesses; b++) {
		uint64_t g = qos_rate_bps(&pol->businesses[b].guaranteed, lc->rate_bps);
		if (g && g < min_g)
			min_g = g;
	}
	for (int bi = 0; bi < pol->nb_businesses; bi++) {
		const struct qos_business_conf *bc = &pol->businesses[bi];
		struct qos_business *b = &s->b[bi];
		uint64_t g = bytes_per_s(qos_rate_bps(&bc->guaranteed, lc->rate_bps));
		uint64_t c = bytes_per_s(qos_rate_bps(&bc->ceiling, lc->rate_bps));

		snprintf(l->business_names[bi], CFG_NAME_MAX, "%s", bc->name);
		qos_tb_init(&b->g, g, depth_for(g, burst_ns, max_frame), hz, now);
		/* a ceiling at or above the line is the line's own bucket */
		qos_tb_init(&b->c, c >= line_rate ? 0 : c, depth_for(c, burst_ns, max_frame), hz,
			    now);
		/* borrowing shares in proportion to the guarantees, a frame at least */
		b->quantum = (uint32_t)RTE_MIN(
			(unsigned __int128)max_frame * (g * 8) / (min_g ? min_g : 1), 1u << 30);
		if (b->quantum < max_frame)
			b->quantum = max_frame;
		b->priority = bc->priority;
		s->by_prio[bc->priority] |= 1ull << bi;
		s->levels |= 1u << bc->priority;
		b->nb_queues = (uint8_t)bc->nb_queues;
		b->prio_mask = (1u << bc->nb_prio) - 1;
		uint32_t min_pct = 100;
		for (int q = bc->nb_prio; q < bc->nb_queues; q++)
			min_pct = RTE_MIN(min_pct, RTE_MAX(bc->queues[q].percent, 1u));
		for (int qi = 0; qi < bc->nb_queues; qi++) {
			const struct qos_queue_conf *qcf = &bc->queues[qi];
			struct qos_queue *q = &b->q[qi];
			uint32_t size = rte_align32pow2(qcf->limit);

			snprintf(l->queue_names[bi][qi], CFG_NAME_MAX, "%s", qcf->name);
			q->ring = rte_zmalloc_socket("qos-queue", size * sizeof(*q->ring),
						     RTE_CACHE_LINE_SIZE, socket);
			if (q->ring == NULL)
				goto nomem;
			q->mask = size - 1;
			q->limit = qcf->limit;
			if (qcf->ecn.mode != QOS_ECN_OFF) {
				/* µs of the line's rate in frame bytes, once here: the
				 * enqueue compares bytes (no division per packet) */
				qos_ecn_init(&q->ecn, line_rate * qcf->ecn.min_us / 1000000,
					     line_rate * qcf->ecn.max_us / 1000000,
					     qcf->ecn.max_ppm);
				s->ecn = true;
			}
			if (qcf->type == QOS_QUEUE_PRIORITY) {
				uint64_t cap = bytes_per_s(qos_rate_bps(&qcf->cap, lc->rate_bps));
				qos_tb_init(&q->cap, cap, depth_for(cap, burst_ns, max_frame), hz,
					    now);
			} else {
				q->quantum = max_frame * RTE_MAX(qcf->percent, 1u) / min_pct;
			}
		}
		l->business_meter[bi] = -1;
		if (bc->policer.set) {
			if (meter_init(&l->meters[l->nb_meters], &bc->policer, err, errlen) < 0)
				return -EINVAL;
			l->business_meter[bi] = (int16_t)l->nb_meters++;
		}
	}
	l->nb_classes = (uint16_t)pol->nb_classes;
	for (int ci = 0; ci < pol->nb_classes; ci++) {
		const struct qos_class_conf *cc = &pol->classes[ci];
		struct qos_class_rt *cr = &l->classes[ci];

		snprintf(l->class_names[ci], CFG_NAME_MAX, "%s", cc->name);
		cr->business = (uint8_t)cc->business;
		cr->queue = (uint8_t)cc->queue;
		cr->set_dscp = (int8_t)cc->set_dscp;
		cr->meter = -1;
		if (cc->policer.set) {
			if (meter_init(&l->meters[l->nb_meters], &cc->policer, err, errlen) < 0)
				return -EINVAL;
			cr->meter = (int16_t)l->nb_meters++;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "qos: out of memory for the queues of interface %s", fi->name);
	return -ENOMEM;
}

void qos_state_destroy(struct qos_state *qs)
{
	for (int i = 0; i < qs->nb_lines; i++)
		line_free(&qs->lines[i]);
	free(qs->lines);
	for (int i = 0; i < qs->nb_classifiers; i++)
		qos_classifier_free(qs->classifiers[i]);
	free(qs->classifiers);
	for (unsigned p = 0; p < RTE_MAX_ETHPORTS; p++)
		free(qs->line_by_vlan[p]);
	free(qs);
}

static int qos_state_build(struct fwd_state *st, const struct fwd_state *prev, char *err,
			   size_t errlen)
{
	const struct qos_config *qc = qos_config_get(&st->cfg);
	uint16_t port_ids[CFG_MAX_PORTS] = { 0 };
	struct qos_state *qs;
	int ret = -ENOMEM;

	(void)prev;
	if (qc == NULL || qc->nb_lines == 0)
		return 0;
	qs = calloc(1, sizeof(*qs));
	if (qs == NULL)
		goto nomem;
	for (int i = 0; i < st->cfg.nb_ifaces; i++)
		port_ids[st->cfg.ifaces[i].port] = st->ifaces[i].port;
	qs->classifiers = calloc(qc->nb_policies, sizeof(*qs->classifiers));
	qs->lines = calloc(qc->nb_lines, sizeof(*qs->lines));
	if (qs->classifiers == NULL || qs->lines == NULL)
		goto nomem;
	qs->nb_classifiers = qc->nb_policies;
	for (int p = 0; p < qc->nb_policies; p++) {
		char name[RTE_RING_NAMESIZE];
		snprintf(name, sizeof(name), "qos%" PRIu64 "-%d", st->generation, p);
		qs->classifiers[p] = qos_classifier_build(&st->cfg, &qc->policies[p], port_ids,
							  name, err, errlen);
		if (qs->classifiers[p] == NULL) {
			ret = -EINVAL;
			goto fail;
		}
	}
	uint64_t now = rte_get_tsc_cycles();
	for (int i = 0; i < qc->nb_lines; i++) {
		const struct qos_line_conf *lc = &qc->lines[i];
		struct qos_line *l = &qs->lines[i];
		qs->nb_lines = i + 1;
		ret = line_build(l, st, qc, lc, qs->classifiers[lc->policy], now, err, errlen);
		if (ret < 0)
			goto fail;
		if (qs->line_by_vlan[l->port] == NULL) {
			qs->line_by_vlan[l->port] = malloc(4096);
			if (qs->line_by_vlan[l->port] == NULL)
				goto nomem;
			memset(qs->line_by_vlan[l->port], QOS_NO_LINE, 4096);
		}
		qs->line_by_vlan[l->port][l->vlan] = (uint8_t)i;
		qs->port_mask |= 1u << l->port;
		qs->owner[l->port] = (uint16_t)(l->port % RTE_MAX(dp.nb_workers, 1u));
		if (dp.nb_workers > 1 && qos_rings[l->port] == NULL) {
			char name[RTE_RING_NAMESIZE];
			snprintf(name, sizeof(name), "qos-port%u", l->port);
			qos_rings[l->port] = rte_ring_create(
				name, QOS_RING_SIZE, rte_eth_dev_socket_id(l->port), RING_F_SC_DEQ);
			if (qos_rings[l->port] == NULL) {
				snprintf(err, errlen, "qos: cannot create the ring of port %u: %s",
					 l->port, rte_strerror(rte_errno));
				ret = -ENOMEM;
				goto fail;
			}
		}
	}
	st->feature[qos_module.id] = qs;
	LOG(INFO, "generation %" PRIu64 ": %d lines, %d policies", st->generation, qs->nb_lines,
	    qs->nb_classifiers);
	return 0;
nomem:
	snprintf(err, errlen, "qos: out of memory building the QoS state");
	ret = -ENOMEM;
fail:
	if (qs)
		qos_state_destroy(qs);
	return ret;
}

/* The workers are gone (shutdown): nothing uses any generation. */
static bool workers_stopped(void)
{
	if (!atomic_load(&dp.stop))
		return false;
	for (unsigned i = 0; i < dp.nb_workers; i++)
		if (!atomic_load(&dp.workers[i].returned))
			return false;
	return true;
}

static void sweep_retired(bool all)
{
	pthread_mutex_lock(&retired_lock);
	for (struct qos_state **pp = &retired; *pp;) {
		struct qos_state *qs = *pp;
		if (all || atomic_load(&qs->refs) == 0) {
			*pp = qs->next_retired;
			qos_state_destroy(qs);
		} else {
			pp = &qs->next_retired;
		}
	}
	pthread_mutex_unlock(&retired_lock);
}

static void qos_state_free(struct fwd_state *st)
{
	struct qos_state *qs = st->feature[qos_module.id];

	if (qs == NULL)
		return;
	st->feature[qos_module.id] = NULL;
	bool stopped = workers_stopped();
	if (stopped || atomic_load(&qs->refs) == 0) {
		qos_state_destroy(qs);
	} else {
		/* a sleeping worker still points at it: freed once it moves on */
		pthread_mutex_lock(&retired_lock);
		qs->next_retired = retired;
		retired = qs;
		pthread_mutex_unlock(&retired_lock);
	}
	if (stopped) {
		sweep_retired(true);
		/* what workers left on the rings to the owners */
		for (unsigned p = 0; p < RTE_MAX_ETHPORTS; p++) {
			struct rte_mbuf *m;
			while (qos_rings[p] && rte_ring_sc_dequeue(qos_rings[p], (void **)&m) == 0)
				rte_pktmbuf_free(m);
		}
	}
}

/*
 * After a reload is published: wait, boundedly, until each line's owner
 * has moved to the new generation (the packets and counters of the lines
 * it replaces are in it only then), so that `show qos` right after
 * `vbrctl reload` reads the queues as they are, not a new generation's
 * zeros. An idle owner sleeps up to workers.idle_sleep_us between turns.
 */
static void qos_state_published(const struct fwd_state *st)
{
	const struct qos_state *qs = qos_state_of(st);
	struct timespec t0, t;

	if (qs == NULL)
		return;
	for (unsigned i = 0; i < dp.nb_workers; i++)
		if (!atomic_load(&dp.workers[i].thread_known))
			return; /* start-up: the workers are not running yet */
	uint64_t limit_us = 2ull * st->cfg.workers.idle_sleep_us + 100000;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		bool all = true;
		for (int i = 0; i < qs->nb_lines && all; i++)
			all = atomic_load_explicit(&qs->lines[i].adopted, memory_order_acquire);
		if (all)
			return;
		clock_gettime(CLOCK_MONOTONIC, &t);
		uint64_t us = (uint64_t)(t.tv_sec - t0.tv_sec) * 1000000 +
			      (uint64_t)((t.tv_nsec - t0.tv_nsec) / 1000);
		if (us > limit_us) {
			LOG(WARNING,
			    "generation %" PRIu64 ": an owner worker did not take it in %" PRIu64
			    " ms; show qos may lag until it does",
			    st->generation, us / 1000);
			return;
		}
		usleep(200);
	}
}

static void qos_timer(uint64_t now_ms)
{
	(void)now_ms;
	sweep_retired(false);
	qos_rates_update();
}

struct vbrd_module qos_module = {
	.name = "qos",
	.depends_on = (const char *const[]){ "workers", NULL },
	.state_build = qos_state_build,
	.state_free = qos_state_free,
	.state_published = qos_state_published,
	.start = qos_show_start,
	.timer = qos_timer,
	.timer_ms = 100,
};
VBRD_MODULE(qos_module);
