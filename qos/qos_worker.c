/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QoS data path: the egress scheduler every port with a line sends
 * through (output.h worker_egress_register()), and the worker hook that
 * runs each owner's lines once per poll-loop turn.
 *
 *   worker_tx_send() ─ owner ──────────────→ qos_port_input(): line of the frame,
 *                   └ other worker → ring ─┘   classify, police, mark, enqueue
 *   qos_poll() (owner, every turn): ring → qos_port_input(); each line:
 *                   pending TX first, then qos_sched_dequeue() → rte_eth_tx_burst()
 *
 * Frames of a port's interfaces without a policy (and non-IP control
 * frames on a line's VLAN count as its default queue) pass through.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "pipeline/output.h"
#include "pipeline/worker.h"
#include "qos/classify_frame.h"
#include "qos/qos.h"

/* What each worker uses: the generation it moved to last (qos.h, Lifetime). */
static struct {
	const struct qos_state *cur;
} __rte_cache_aligned wctx[RTE_MAX_LCORE];

/* Drop @p m in @p l: it was counted as sent on the line's interface when it
 * was routed (output.c), so that count is taken back. */
static inline void line_drop(struct worker *w, const struct qos_line *l, struct rte_mbuf *m,
			     const struct drop_reason *why)
{
	w->stats.iface[l->slot].tx_packets--;
	w->stats.iface[l->slot].tx_bytes -= rte_pktmbuf_pkt_len(m);
	worker_drop(w, m, why);
}

/* rte_meter colours: GREEN 0, YELLOW 1, RED 2 */
static inline enum rte_color meter_check(struct qos_meter *qm, uint64_t now, uint32_t len)
{
	enum rte_color c;

	switch (qm->mode) {
	case QOS_METER_SRTCM:
		c = rte_meter_srtcm_color_blind_check(&qm->m.sr, &qm->prof.sr, now, len);
		break;
	case QOS_METER_TRTCM:
		c = rte_meter_trtcm_color_blind_check(&qm->m.tr, &qm->prof.tr, now, len);
		break;
	default:
		c = rte_meter_trtcm_rfc4115_color_blind_check(&qm->m.t4, &qm->prof.t4, now, len);
		break;
	}
	if (c == RTE_COLOR_GREEN)
		qm->green++;
	else if (c == RTE_COLOR_YELLOW)
		qm->yellow++;
	else
		qm->red++;
	return c;
}

/* Classify, police, mark and queue @p n (<= 64) frames of line @p l. */
static void line_input(struct worker *w, struct qos_line *l, struct rte_mbuf **pkts, unsigned n,
		       uint64_t now)
{
	uint32_t cls[64];
	uint8_t ip[64]; /* where the classifier found each IP header: no parsing again */

	qos_classify_burst_ip(l->cls, l->cls_cache, pkts, n, cls, ip);
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t len = rte_pktmbuf_pkt_len(m);
		unsigned b = l->default_business, q = l->default_queue;
		int dscp = -1, yellow_dscp = -1;
		enum rte_color color = RTE_COLOR_GREEN;

		if (cls[i]) {
			struct qos_class_rt *cr = &l->classes[cls[i] - 1];
			cr->packets++;
			cr->bytes += len;
			b = cr->business;
			q = cr->queue;
			dscp = cr->set_dscp;
			if (cr->meter >= 0) {
				struct qos_meter *qm = &l->meters[cr->meter];
				color = meter_check(qm, now, len);
				if (color == RTE_COLOR_YELLOW)
					yellow_dscp = qm->yellow_dscp;
			}
		} else {
			l->unclassified++;
		}
		struct qos_queue_stats *qst = &l->sched.b[b].q[q].st;
		if (color != RTE_COLOR_RED && l->business_meter[b] >= 0) {
			struct qos_meter *qm = &l->meters[l->business_meter[b]];
			enum rte_color bc = meter_check(qm, now, len);
			if (bc > color) {
				color = bc;
				if (bc == RTE_COLOR_YELLOW && yellow_dscp < 0)
					yellow_dscp = qm->yellow_dscp;
			}
		}
		if (unlikely(color == RTE_COLOR_RED)) {
			qst->drop_red++;
			line_drop(w, l, m, &drop_qos_policer_red);
			continue;
		}
		if (color == RTE_COLOR_YELLOW) {
			qst->yellow++;
			if (yellow_dscp >= 0)
				dscp = yellow_dscp;
		}
		/* the IP header, read only where something marks it */
#define IPH rte_pktmbuf_mtod_offset(m, uint8_t *, ip[i] & QOS_IP_OFF)
		bool v6 = ip[i] & QOS_IP_V6;
		if (dscp >= 0 && ip[i])
			qos_ip_set_dscp(IPH, v6, (uint8_t)dscp);
		if (l->pcp_map && ip[i]) {
			int d = qos_ip_get_dscp(IPH, v6);
			if (l->dscp_to_pcp[d] >= 0)
				qos_set_pcp(m, (uint8_t)l->dscp_to_pcp[d]);
		}
		if (unlikely(qos_sched_full(&l->sched, b, q))) {
			qst->drop_full++;
			if (ip[i] && qos_ip_get_ecn(IPH, v6) > QOS_ECN_NOT_ECT)
				qst->drop_full_ect++;
			line_drop(w, l, m, &drop_qos_queue_full);
			continue;
		}
		/* ECN (sched.h, struct qos_ecn): an ECT packet that finds the
		 * queue over its threshold is marked CE and queued; Not-ECT
		 * ones are left to the tail drop, as are all when it is full */
		struct qos_queue *qu = &l->sched.b[b].q[q];
		if (unlikely(l->sched.ecn) &&
		    qos_ecn_congested(&qu->ecn,
				      qu->bytes + (qu->tail - qu->head) * l->sched.overhead,
				      &l->sched.rng) &&
		    ip[i] && qos_ip_set_ce(IPH, v6) > QOS_ECN_NOT_ECT)
			qst->ecn_marked++;
		qos_sched_push(&l->sched, b, q, m);
#undef IPH
	}
}

/* Frames for @p port: each run of frames of one line goes to it, the rest
 * (interfaces without a policy) leaves at once. */
static void port_input(struct worker *w, const struct qos_state *qs, uint16_t port,
		       struct rte_mbuf **pkts, unsigned n)
{
	uint64_t now = rte_get_tsc_cycles();

	for (unsigned i = 0; i < n;) {
		unsigned li = qos_line_of(qs, port, pkts[i]), j = i + 1;
		while (j < n && j - i < 64 && qos_line_of(qs, port, pkts[j]) == li)
			j++;
		if (li == QOS_NO_LINE)
			worker_tx_now(w, port, pkts + i, j - i);
		else
			line_input(w, &qs->lines[li], pkts + i, j - i, now);
		i = j;
	}
}

/* The egress scheduler (worker_tx_send() of a port in w->sched_ports). */
static void qos_egress(struct worker *w, uint16_t port, struct rte_mbuf **pkts, unsigned n)
{
	const struct qos_state *qs = wctx[w->id].cur;

	if (unlikely(qs == NULL || !(qs->port_mask & (1u << port)))) {
		worker_tx_now(w, port, pkts, n);
		return;
	}
	if (qs->owner[port] == w->id) {
		port_input(w, qs, port, pkts, n);
		return;
	}
	unsigned k = rte_ring_mp_enqueue_burst(qos_rings[port], (void **)pkts, n, NULL);
	for (unsigned i = k; i < n; i++) {
		unsigned li = qos_line_of(qs, port, pkts[i]);
		if (li == QOS_NO_LINE)
			worker_drop(w, pkts[i], &drop_qos_ring_full);
		else
			line_drop(w, &qs->lines[li], pkts[i], &drop_qos_ring_full);
	}
}

/* Transmit what line @p l may send now. @return packets sent */
static unsigned line_output(struct worker *w, struct qos_line *l, uint64_t now)
{
	unsigned sent = 0;

	if (l->nb_pending) {
		/* the TX queue was full: these go first, in order */
		unsigned left = (unsigned)(l->nb_pending - l->pending_at);
		uint16_t k = rte_eth_tx_burst(l->port, (uint16_t)w->id, l->pending + l->pending_at,
					      (uint16_t)left);
		w->stats.tx_packets += k;
		sent += k;
		if (k < left) {
			l->pending_at = (uint16_t)(l->pending_at + k);
			return sent;
		}
		l->nb_pending = l->pending_at = 0;
	}
	struct rte_mbuf *out[QOS_TX_BURST];
	unsigned n = qos_sched_dequeue(&l->sched, now, out, QOS_TX_BURST);
	if (n == 0)
		return sent;
	uint16_t k = rte_eth_tx_burst(l->port, (uint16_t)w->id, out, (uint16_t)n);
	w->stats.tx_packets += k;
	if (k < n) {
		memcpy(l->pending, out + k, (n - k) * sizeof(*out));
		l->nb_pending = (uint16_t)(n - k);
		l->pending_at = 0;
	}
	return sent + k;
}

/* The queue of @p to named as queue @p qi of business @p bi of @p from. */
static int find_queue(const struct qos_line *from, unsigned bi, unsigned qi,
		      const struct qos_line *to, unsigned *tb, unsigned *tq)
{
	for (unsigned b = 0; b < to->sched.nb_business; b++) {
		if (strcmp(to->business_names[b], from->business_names[bi]) != 0)
			continue;
		for (unsigned q = 0; q < to->sched.b[b].nb_queues; q++) {
			if (strcmp(to->queue_names[b][q], from->queue_names[bi][qi]) == 0) {
				*tb = b;
				*tq = q;
				return 0;
			}
		}
		return -1;
	}
	return -1;
}

/*
 * Move line @p o's packets and counters (the old generation's) into
 * @p l, queue by queue where the names match. What finds no queue, or is
 * over the new limit, is dropped as queue_removed.
 */
static void line_migrate(struct worker *w, struct qos_line *o, struct qos_line *l)
{
	struct qos_sched *os = &o->sched;

	for (unsigned b = 0; b < os->nb_business; b++) {
		for (unsigned q = 0; q < os->b[b].nb_queues; q++) {
			unsigned tb = 0, tq = 0;
			struct rte_mbuf *m;
			bool found = find_queue(o, b, q, l, &tb, &tq) == 0;
			uint64_t removed = 0;
			while ((m = qos_sched_take(os, b, q)) != NULL) {
				if (!found || qos_sched_enqueue(&l->sched, tb, tq, m) < 0) {
					removed++;
					line_drop(w, o, m, &drop_qos_queue_removed);
				}
			}
			/* the counters continue: a moved packet is not enqueued twice */
			if (found) {
				l->sched.b[tb].q[tq].st = os->b[b].q[q].st;
				l->sched.b[tb].q[tq].st.drop_removed += removed;
			}
		}
	}
	for (unsigned c = 0; c < l->nb_classes; c++)
		for (unsigned k = 0; k < o->nb_classes; k++)
			if (strcmp(l->class_names[c], o->class_names[k]) == 0) {
				l->classes[c].packets = o->classes[k].packets;
				l->classes[c].bytes = o->classes[k].bytes;
			}
	l->unclassified = o->unclassified;
	l->sched.green_packets = o->sched.green_packets;
	l->sched.borrowed_packets = o->sched.borrowed_packets;
	if (o->nb_pending > o->pending_at) {
		unsigned left = (unsigned)(o->nb_pending - o->pending_at);
		memcpy(l->pending, o->pending + o->pending_at, left * sizeof(*l->pending));
		l->nb_pending = (uint16_t)left;
		l->pending_at = 0;
		o->nb_pending = o->pending_at = 0;
	}
}

/* Everything line @p o still holds leaves now, unshaped (its policy is gone). */
static void line_flush(struct worker *w, struct qos_line *o)
{
	struct rte_mbuf *out[QOS_TX_BURST];
	unsigned n = 0;

	if (o->nb_pending > o->pending_at)
		worker_tx_now(w, o->port, o->pending + o->pending_at,
			      (unsigned)(o->nb_pending - o->pending_at));
	o->nb_pending = o->pending_at = 0;
	for (unsigned b = 0; b < o->sched.nb_business; b++)
		for (unsigned q = 0; q < o->sched.b[b].nb_queues; q++) {
			struct rte_mbuf *m;
			while ((m = qos_sched_take(&o->sched, b, q)) != NULL) {
				out[n++] = m;
				if (n == QOS_TX_BURST) {
					worker_tx_now(w, o->port, out, n);
					n = 0;
				}
			}
		}
	if (n)
		worker_tx_now(w, o->port, out, n);
}

/* Move worker @p w from generation @p old to @p qs (either may be NULL). */
static void adopt(struct worker *w, const struct qos_state *old, const struct qos_state *qs)
{
	if (qs)
		atomic_fetch_add((_Atomic int *)&qs->refs, 1);
	if (old) {
		/* old's lines that this worker owns: into their successors */
		for (int i = 0; i < old->nb_lines; i++) {
			struct qos_line *o = &old->lines[i];
			if (old->owner[o->port] != w->id)
				continue;
			struct qos_line *l = NULL;
			for (int j = 0; qs && j < qs->nb_lines; j++)
				if (qs->lines[j].slot == o->slot && qs->lines[j].port == o->port)
					l = &qs->lines[j];
			if (l && qs->owner[l->port] == w->id)
				line_migrate(w, o, l);
			else
				line_flush(w, o);
		}
		atomic_fetch_sub((_Atomic int *)&old->refs, 1);
	}
	for (int j = 0; qs && j < qs->nb_lines; j++)
		if (qs->owner[qs->lines[j].port] == w->id)
			atomic_store_explicit(&qs->lines[j].adopted, true, memory_order_release);
	wctx[w->id].cur = qs;
	w->sched_ports = qs ? qs->port_mask : 0;
}

static unsigned qos_poll(struct worker *w, const struct fwd_state *st)
{
	const struct qos_state *qs = qos_state_of(st);
	unsigned work = 0;

	if (unlikely(qs != wctx[w->id].cur))
		adopt(w, wctx[w->id].cur, qs);
	/* Rings of the ports this worker owns that have no line (any more):
	 * another worker still on an older generation may have queued packets
	 * there; they leave unshaped, as the port's other traffic does. */
	for (uint16_t port = 0; port < RTE_MAX_ETHPORTS && dp.nb_workers > 1; port++) {
		if (qos_rings[port] == NULL || port % dp.nb_workers != w->id ||
		    (qs && (qs->port_mask & (1u << port))))
			continue;
		struct rte_mbuf *pkts[64];
		unsigned n = rte_ring_sc_dequeue_burst(qos_rings[port], (void **)pkts, 64, NULL);
		if (n)
			worker_tx_now(w, port, pkts, n);
		work += n;
	}
	if (qs == NULL)
		return work;
	uint64_t now = rte_get_tsc_cycles();
	uint32_t ports = qs->port_mask;
	while (ports) {
		uint16_t port = (uint16_t)__builtin_ctz(ports);
		ports &= ports - 1;
		if (qs->owner[port] != w->id || qos_rings[port] == NULL)
			continue;
		struct rte_mbuf *pkts[64];
		unsigned n = rte_ring_sc_dequeue_burst(qos_rings[port], (void **)pkts, 64, NULL);
		if (n)
			port_input(w, qs, port, pkts, n);
		work += n;
	}
	for (int i = 0; i < qs->nb_lines; i++) {
		struct qos_line *l = &qs->lines[i];
		if (qs->owner[l->port] != w->id)
			continue;
		work += line_output(w, l, now);
		/* a backlog waiting for tokens is work: a worker that slept
		 * idle_sleep_us now would hold the line far below its rate */
		if (l->sched.backlog || l->nb_pending)
			work++;
	}
	return work;
}

static const struct worker_hook qos_hook = {
	.name = "qos",
	.poll = qos_poll,
};

__attribute__((constructor)) static void qos_worker_register(void)
{
	worker_hook_register(&qos_hook);
	worker_egress_register(qos_egress);
}
