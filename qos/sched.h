/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The egress scheduler of one line (sched.c): businesses under a line
 * shaper, queues inside each business. It is owned by one lcore and is
 * not thread-safe.
 *
 * The hierarchy is HTB's (Linux sch_htb, Devera's design) cut to two levels,
 * which is what rte_sched cannot express: rte_sched's subports do not lend
 * to each other, and its grinders walk pipes that have no credit (on IMIX
 * with most pipes starved its worker fell from 7.1 to 1.46 Mpps here).
 *
 *  - The line is a token bucket in bytes at the line rate; each frame
 *    costs its length plus a per-frame overhead (preamble, SFD, IFG, FCS).
 *  - A business has a guaranteed-rate bucket and an optional ceiling
 *    bucket. A business with guaranteed tokens is *green*: green businesses
 *    are served first, lowest priority number first, round-robin within a
 *    priority. When no backlogged business is green, the line's spare
 *    capacity is lent (work-conserving): businesses under their ceiling
 *    borrow by priority, then by deficit round-robin with quanta in
 *    proportion to their guarantees.
 *  - Inside a business, strict-priority queues come first (each optionally
 *    capped by a bucket of its own), then the weighted queues and the
 *    default queue share what is left by deficit round-robin (Shreedhar &
 *    Varghese, 1995) with quanta in proportion to their percents.
 *
 * Which businesses and queues have packets, and which businesses have
 * tokens, are bitmaps: a dequeue never visits an empty queue or a
 * business out of credit, and the buckets of the backlogged businesses are
 * refilled once per dequeue call (a burst), not per packet. Work per packet
 * does not grow with the number of queues.
 *
 * Bucket arithmetic: tokens are bytes × TSC Hz (so a refill is one
 * multiply, elapsed cycles × bytes/s), capped at the depth; refills are
 * capped at the time to fill an empty bucket so that nothing overflows.
 * A frame may take a bucket below zero by at most its own length; the debt
 * is paid before the next frame, so long-run rates are exact.
 */
#ifndef VBRD_QOS_SCHED_H
#define VBRD_QOS_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "qos/qos_config.h"

/** A token bucket. rate 0: unlimited (never refilled, never charged). */
struct qos_tb {
	int64_t tokens; /* bytes × hz; may be negative by one frame */
	uint64_t last;  /* TSC of the last refill */
	uint64_t rate;  /* bytes/s */
	int64_t depth;  /* bytes × hz */
	uint64_t fill;  /* TSC cycles to fill from empty */
};

/**
 * Set @p tb to @p rate bytes/s with a depth of @p depth bytes, full at @p now.
 * @param hz  TSC cycles per second
 */
void qos_tb_init(struct qos_tb *tb, uint64_t rate, uint64_t depth, uint64_t hz, uint64_t now);

/** Add the tokens earned since the last refill. @return the tokens after it (bytes × hz) */
static inline int64_t qos_tb_refill(struct qos_tb *tb, uint64_t now)
{
	uint64_t dt = now - tb->last;

	tb->last = now;
	if (dt > tb->fill)
		dt = tb->fill;
	/* compared with the room left, not added first: at 400G with a 1 GiB
	 * burst depth + fill × rate passes INT64_MAX once the TSC runs above
	 * 4.29 GHz (depth is 2^30 × hz) */
	uint64_t add = dt * tb->rate, room = (uint64_t)(tb->depth - tb->tokens);
	tb->tokens = add >= room ? tb->depth : tb->tokens + (int64_t)add;
	return tb->tokens;
}

/** Counters of one queue: written by the owner lcore only. */
struct qos_queue_stats {
	uint64_t enq_packets, enq_bytes; /* accepted into the queue */
	uint64_t tx_packets, tx_bytes;   /* dequeued for transmission */
	uint64_t drop_full;              /* tail drops: the queue held `limit` packets */
	uint64_t drop_red;               /* red by a class or business policer */
	uint64_t drop_removed;  /* left in a queue a reload removed, or over a lower limit */
	uint64_t yellow;        /* yellow by a policer (remarked when it says so) */
	uint64_t ecn_marked;    /* ECT packets queued with CE set over the ECN threshold (or
	                        * that arrived with CE) */
	uint64_t drop_full_ect; /* of drop_full: ECT or CE packets (marking could not help) */
};

/**
 * When a queue marks ECN Congestion Experienced (RFC 3168 §5) instead of
 * letting it build to a tail drop: on the bytes queued ahead of an ECT
 * packet, q. Below @p min nothing is marked, at or above @p max every
 * packet is, between the two a packet is marked with probability
 * max_p × (q - min) / (max - min): RED's ramp (Floyd & Jacobson, 1993) on
 * the instantaneous queue, as DCQCN's switches configure it (Kmin, Kmax,
 * Pmax; Zhu et al., SIGCOMM 2015). A step threshold (DCTCP, RFC 8257 §3.1:
 * mark when the queue is over K) is the ramp with min == max.
 *
 * The thresholds are bytes worked out from µs at the line's rate when the
 * state is built, and the ramp's slope is prescaled, so the decision is a
 * compare, and on the ramp a multiply, a shift and a xorshift draw.
 */
struct qos_ecn {
	uint32_t min;   /* bytes queued ahead at which marking starts (>= 1); 0: ECN off */
	uint32_t max;   /* bytes at which every ECT packet is marked (>= min) */
	uint64_t slope; /* ramp: max_p × 2^32 × 2^16 / (max - min); P(mark) × 2^32 =
	                 * (q - min) × slope >> 16 */
};

struct qos_queue {
	struct rte_mbuf **ring; /* mask + 1 slots */
	uint32_t head, tail;    /* free-running; tail - head packets */
	uint32_t mask, limit;   /* limit <= mask + 1 */
	int32_t deficit;        /* DRR, bytes (weighted and default queues) */
	uint32_t quantum;       /* DRR, bytes per round */
	struct qos_tb cap;      /* priority queues: the cap (rate 0 = none) */
	uint32_t bytes;         /* bytes of the frames queued (their length; with the line's
	                 * overhead: qos_queue_wire_bytes()); counted only when some
	                 * queue of the line has ECN (qos_sched.ecn), else 0 */
	struct qos_ecn ecn;
	struct qos_queue_stats st;
};

struct qos_business {
	struct qos_tb g; /* guaranteed rate */
	struct qos_tb c; /* ceiling; rate 0 = none (the line limits it) */
	int64_t deficit; /* DRR among borrowers, bytes */
	uint32_t quantum;
	uint32_t busy;      /* bit i: queue i holds packets */
	uint32_t prio_mask; /* bits of the strict-priority queues */
	uint32_t backlog;   /* packets in all its queues */
	uint8_t nb_queues;
	uint8_t priority;
	uint8_t w_cur; /* DRR position among the weighted queues */
	struct qos_queue q[QOS_MAX_QUEUES];
};

struct qos_sched {
	struct qos_tb line;
	uint32_t overhead; /* bytes per frame */
	uint64_t hz;
	uint64_t active;                       /* bit b: business b holds packets */
	uint64_t by_prio[QOS_PRIORITY_LEVELS]; /* businesses of each priority */
	uint32_t levels;                       /* bit p: by_prio[p] is not empty */
	uint64_t wake[QOS_MAX_BUSINESSES]; /* TSC before which business b's ceiling has no tokens */
	uint64_t asleep;       /* bit b: business b waits for wake[b] (the dequeue skips it) */
	uint64_t next_wake;    /* the earliest wake[] of the asleep ones */
	uint64_t g_pos, c_pos; /* bit b: b's guarantee / ceiling holds tokens, as of its last
	                        * refill or charge (0: not known; the dequeue refills it) */
	uint8_t green_cur[QOS_PRIORITY_LEVELS];
	uint8_t borrow_cur[QOS_PRIORITY_LEVELS];
	uint16_t nb_business;
	uint32_t backlog; /* packets queued in the whole line */
	struct qos_business *b;
	uint32_t rng; /* xorshift32 state of the ECN ramps (never 0) */
	bool ecn;     /* some queue marks ECN: only then are the queues' bytes counted */
	/* totals of what the dequeue decided, for tests of the picks */
	uint64_t green_packets, borrowed_packets;
};

/**
 * Queue @p m on queue @p q of business @p b, which the caller saw has room
 * (fewer than `limit` packets).
 */
static inline void qos_sched_push(struct qos_sched *s, unsigned b, unsigned q, struct rte_mbuf *m)
{
	struct qos_business *bu = &s->b[b];
	struct qos_queue *qu = &bu->q[q];

	qu->ring[qu->tail++ & qu->mask] = m;
	qu->st.enq_packets++;
	qu->st.enq_bytes += rte_pktmbuf_pkt_len(m);
	if (s->ecn)
		qu->bytes += rte_pktmbuf_pkt_len(m);
	bu->busy |= 1u << q;
	if (bu->backlog++ == 0)
		s->active |= 1ull << b;
	s->backlog++;
}

/**
 * The bytes queue @p qu holds as the line's rate counts them (each frame
 * with the line's overhead): what ECN's thresholds are in. Counted only on
 * a line with ECN (qos_sched.ecn), else 0.
 */
static inline uint32_t qos_queue_wire_bytes(const struct qos_sched *s, const struct qos_queue *qu)
{
	return s->ecn ? qu->bytes + (qu->tail - qu->head) * s->overhead : 0;
}

/** Whether queue @p q of business @p b holds its limit. */
static inline bool qos_sched_full(const struct qos_sched *s, unsigned b, unsigned q)
{
	const struct qos_queue *qu = &s->b[b].q[q];

	return qu->tail - qu->head >= qu->limit;
}

/**
 * Queue @p m on queue @p q of business @p b.
 * @return 0, or -ENOBUFS when the queue holds its limit (the caller drops @p m)
 */
static inline int qos_sched_enqueue(struct qos_sched *s, unsigned b, unsigned q, struct rte_mbuf *m)
{
	if (unlikely(qos_sched_full(s, b, q)))
		return -ENOBUFS;
	qos_sched_push(s, b, q, m);
	return 0;
}

/**
 * Set @p e from thresholds in bytes and a maximum probability in parts per
 * million (step: @p min == @p max, @p max_ppm ignored). @p min is raised to
 * 1 byte: an empty queue never marks.
 */
void qos_ecn_init(struct qos_ecn *e, uint64_t min, uint64_t max, uint32_t max_ppm);

/** Marsaglia's xorshift32 (J. Stat. Softw. 8(14), 2003): the next draw of @p x (never 0). */
static inline uint32_t qos_xorshift32(uint32_t *x)
{
	uint32_t v = *x;

	v ^= v << 13;
	v ^= v >> 17;
	v ^= v << 5;
	*x = v;
	return v;
}

/**
 * Whether an ECT packet that finds @p queued bytes ahead of it in a queue
 * with ECN @p e is marked CE (see struct qos_ecn); @p rng: the line's
 * xorshift32 state, drawn from on the ramp only. ECN off: false.
 */
static inline bool qos_ecn_congested(const struct qos_ecn *e, uint32_t queued, uint32_t *rng)
{
	/* queued < min, or min == 0 (off): min - 1 wraps to UINT32_MAX */
	if (queued <= e->min - 1u)
		return false;
	if (queued >= e->max)
		return true;
	uint32_t p = (uint32_t)(((uint64_t)(queued - e->min) * e->slope) >> 16);
	return qos_xorshift32(rng) < p;
}

/**
 * Dequeue up to @p max packets that the line, business and queue buckets
 * allow at TSC time @p now, in the order they should leave.
 * @return the number of packets written to @p out
 */
unsigned qos_sched_dequeue(struct qos_sched *s, uint64_t now, struct rte_mbuf **out, unsigned max);

/** Remove and return the oldest packet of queue @p q of business @p b (NULL: empty); for reloads. */
struct rte_mbuf *qos_sched_take(struct qos_sched *s, unsigned b, unsigned q);

#endif
