/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scheduler's dequeue (sched.h): line shaper, green businesses by
 * priority and round-robin, borrowers by priority and deficit
 * round-robin, then strict-priority and DRR queues inside the business.
 */
#include <errno.h>

#include <rte_common.h>

#include "qos/sched.h"

#define SCHED_RUN 8 /* packets of one business per pick (its turn), at most */

void qos_tb_init(struct qos_tb *tb, uint64_t rate, uint64_t depth, uint64_t hz, uint64_t now)
{
	tb->rate = rate;
	tb->depth = (int64_t)(depth * hz);
	tb->tokens = tb->depth;
	tb->last = now;
	tb->fill = rate ? (uint64_t)((unsigned __int128)depth * hz / rate) + 1 : 0;
}

void qos_ecn_init(struct qos_ecn *e, uint64_t min, uint64_t max, uint32_t max_ppm)
{
	if (min == 0)
		min = 1;
	if (max < min)
		max = min;
	e->min = (uint32_t)RTE_MIN(min, (uint64_t)UINT32_MAX);
	e->max = (uint32_t)RTE_MIN(max, (uint64_t)UINT32_MAX);
	e->slope = 0;
	if (e->max > e->min) {
		/* P × 2^32 at the top of the ramp, <= 2^32; × 2^16 for the
		 * precision of a wide ramp: (q - min) × slope < 2^48 */
		uint64_t top = ((uint64_t)RTE_MIN(max_ppm, 1000000u) << 32) / 1000000u;
		e->slope = (top << 16) / (e->max - e->min);
	}
}

/* The set bit of @p mask after bit @p cur, wrapping (mask != 0). */
static inline unsigned next_bit64(uint64_t mask, unsigned cur)
{
	uint64_t after = cur >= 63 ? 0 : mask & ~((2ull << cur) - 1);
	return (unsigned)__builtin_ctzll(after ? after : mask);
}

static inline unsigned next_bit32(uint32_t mask, unsigned cur)
{
	uint32_t after = cur >= 31 ? 0 : mask & ~((2u << cur) - 1);
	return (unsigned)__builtin_ctz(after ? after : mask);
}

/* The lowest priority level that has a business in @p mask, and its
 * members; only the levels some business has are looked at. */
static inline uint64_t best_level(const struct qos_sched *s, uint64_t mask, unsigned *level)
{
	*level = 0;
	for (uint32_t lv = s->levels; lv; lv &= lv - 1) {
		unsigned p = (unsigned)__builtin_ctz(lv);
		uint64_t m = mask & s->by_prio[p];
		if (m) {
			*level = p;
			return m;
		}
	}
	return 0; /* not reached: every business has a level */
}

/*
 * Deficit round-robin over the businesses of @p mask (one priority level):
 * the one at the cursor sends while its deficit is positive; one that has
 * spent it gets a quantum and the cursor moves on. Quanta are at least one
 * frame, so this ends within one round.
 */
static inline unsigned drr_business(struct qos_sched *s, uint64_t mask, unsigned level)
{
	unsigned cur = s->borrow_cur[level];

	if (!(mask & (1ull << cur)))
		cur = next_bit64(mask, cur);
	for (;;) {
		struct qos_business *b = &s->b[cur];
		if (b->deficit > 0)
			break;
		b->deficit += b->quantum;
		cur = next_bit64(mask, cur);
	}
	s->borrow_cur[level] = (uint8_t)cur;
	return cur;
}

/*
 * The queue business @p b sends from next: the first strict-priority queue
 * with packets and cap tokens, else the weighted queues by DRR.
 * @return queue index, or -1 when only capped priority queues hold packets
 */
static inline int pick_queue(struct qos_business *b, uint64_t now)
{
	uint32_t p = b->busy & b->prio_mask;

	while (p) {
		unsigned i = (unsigned)__builtin_ctz(p);
		struct qos_queue *q = &b->q[i];
		if (q->cap.rate == 0 || qos_tb_refill(&q->cap, now) > 0)
			return (int)i;
		p &= p - 1;
	}
	uint32_t w = b->busy & ~b->prio_mask;
	if (!w)
		return -1;
	/* the round moves on from a queue that has spent its deficit (or
	 * emptied), and a queue it comes to gets its quantum then: it
	 * sends in the same pick (quanta are at least one frame, so one
	 * round ends this) */
	unsigned cur = b->w_cur;
	if (!(w & (1u << cur))) {
		cur = next_bit32(w, cur);
		b->q[cur].deficit += (int32_t)b->q[cur].quantum;
	}
	while (b->q[cur].deficit <= 0) {
		cur = next_bit32(w, cur);
		b->q[cur].deficit += (int32_t)b->q[cur].quantum;
	}
	b->w_cur = (uint8_t)cur;
	return (int)cur;
}

static inline __attribute__((always_inline)) struct rte_mbuf *take(struct qos_sched *s, unsigned bi,
								   unsigned qi)
{
	struct qos_business *b = &s->b[bi];
	struct qos_queue *q = &b->q[qi];

	if (q->head == q->tail)
		return NULL;
	struct rte_mbuf *m = q->ring[q->head++ & q->mask];
	if (s->ecn)
		q->bytes -= rte_pktmbuf_pkt_len(m);
	if (q->head == q->tail) {
		b->busy &= ~(1u << qi);
		q->deficit = 0;
	}
	if (--b->backlog == 0) {
		s->active &= ~(1ull << bi);
		b->deficit = 0;
	}
	s->backlog--;
	return m;
}

/* Business @p bi sleeps until TSC @p when (its ceiling's tokens then). */
static inline void sleep_until(struct qos_sched *s, unsigned bi, uint64_t when)
{
	s->wake[bi] = when;
	if (!s->asleep || when < s->next_wake)
		s->next_wake = when;
	s->asleep |= 1ull << bi;
}

struct rte_mbuf *qos_sched_take(struct qos_sched *s, unsigned bi, unsigned qi)
{
	return take(s, bi, qi);
}

unsigned qos_sched_dequeue(struct qos_sched *s, uint64_t now, struct rte_mbuf **out, unsigned max)
{
	if (!s->active || qos_tb_refill(&s->line, now) <= 0)
		return 0;

	/* Refill the buckets of the businesses with packets, once per call.
	 * One whose ceiling is out of tokens sleeps until the TSC at which it
	 * has some again (s->wake; s->asleep): a line with most businesses
	 * starved does not touch them on every call, nor look at them until
	 * the first of them is due (s->next_wake). */
	if (s->asleep && now >= s->next_wake) {
		uint64_t first = UINT64_MAX;
		for (uint64_t a = s->asleep; a; a &= a - 1) {
			unsigned i = (unsigned)__builtin_ctzll(a);
			if (now >= s->wake[i])
				s->asleep &= ~(1ull << i);
			else
				first = RTE_MIN(first, s->wake[i]);
		}
		s->next_wake = first;
	}
	/* Only the buckets not known to hold tokens are refilled here: one
	 * that does keeps them until charged (refills only add, and capped
	 * additions compose), and a business is refilled when it is picked,
	 * before it is charged. s->g_pos / s->c_pos: known positive (0 at
	 * first: everything is looked at once). */
	uint64_t awake = s->active & ~s->asleep;
	for (uint64_t a = awake & ~(s->g_pos & s->c_pos); a; a &= a - 1) {
		unsigned i = (unsigned)__builtin_ctzll(a);
		uint64_t bit = 1ull << i;
		struct qos_business *b = &s->b[i];
		if (!(s->c_pos & bit)) {
			if (b->c.rate) {
				int64_t t = qos_tb_refill(&b->c, now);
				if (t <= 0) {
					sleep_until(s, i, now + (uint64_t)-t / b->c.rate + 1);
					continue;
				}
			}
			s->c_pos |= bit;
		}
		if (!(s->g_pos & bit) && qos_tb_refill(&b->g, now) > 0)
			s->g_pos |= bit;
	}
	uint64_t c_ok = awake & ~s->asleep & s->c_pos, g_ok = c_ok & s->g_pos;

	uint64_t hz = s->hz, blocked = 0;
	unsigned n = 0;
	while (n < max) {
		uint64_t elig = s->active & c_ok & ~blocked;
		if (!elig)
			break;
		uint64_t green = elig & g_ok;
		unsigned level = 0, bi;
		if (green) {
			uint64_t m = best_level(s, green, &level);
			bi = next_bit64(m, s->green_cur[level]);
			s->green_cur[level] = (uint8_t)bi;
		} else {
			bi = drr_business(s, best_level(s, elig, &level), level);
		}
		struct qos_business *b = &s->b[bi];
		int qi = pick_queue(b, now);
		if (qi < 0) {
			blocked |= 1ull << bi;
			continue;
		}
		/* The business's turn: up to SCHED_RUN packets, from one queue
		 * and then the next that pick_queue() gives, while it stays
		 * as eligible as it was picked (one business pick for them). */
		uint64_t bit = 1ull << bi;
		bool is_green = green != 0;
		unsigned turn = 0;
		/* the tokens earned since its last refill, before the charges */
		if (b->c.rate)
			qos_tb_refill(&b->c, now);
		qos_tb_refill(&b->g, now);
		for (;;) {
			/* A run of this queue while every bucket it draws on
			 * still has tokens: one queue pick for the run. */
			struct qos_queue *q = &b->q[qi];
			bool prio = (1u << qi) & b->prio_mask;
			uint32_t left = q->tail - q->head, run = 0;
			uint64_t bytes = 0;
			for (;;) {
				struct rte_mbuf *m = q->ring[q->head++ & q->mask];
				uint32_t len = rte_pktmbuf_pkt_len(m);
				uint32_t wire = len + s->overhead;
				int64_t cost = (int64_t)((uint64_t)wire * hz);

				out[n++] = m;
				run++;
				bytes += len;
				s->line.tokens -= cost;
				if (b->c.rate)
					b->c.tokens -= cost;
				if (is_green)
					b->g.tokens -= cost;
				else
					b->deficit -= wire;
				if (prio) {
					if (q->cap.rate)
						q->cap.tokens -= cost;
				} else {
					q->deficit -= (int32_t)wire;
				}
				if (run == left || turn + run == SCHED_RUN || n == max ||
				    s->line.tokens <= 0 || (b->c.rate && b->c.tokens <= 0) ||
				    (is_green ? b->g.tokens <= 0 : b->deficit <= 0) ||
				    (prio ? q->cap.rate && q->cap.tokens <= 0 : q->deficit <= 0))
					break;
			}
			q->st.tx_packets += run;
			q->st.tx_bytes += bytes;
			if (s->ecn)
				q->bytes -= (uint32_t)bytes;
			if (is_green)
				s->green_packets += run;
			else
				s->borrowed_packets += run;
			if (b->c.rate && b->c.tokens <= 0) {
				c_ok &= ~bit;
				s->c_pos &= ~bit;
				sleep_until(s, bi, now + (uint64_t)-b->c.tokens / b->c.rate + 1);
			}
			if (b->g.tokens <= 0) {
				g_ok &= ~bit;
				s->g_pos &= ~bit;
			}
			if (q->head == q->tail) {
				b->busy &= ~(1u << qi);
				q->deficit = 0;
			}
			s->backlog -= run;
			b->backlog -= run;
			if (b->backlog == 0) {
				s->active &= ~bit;
				b->deficit = 0;
				break;
			}
			turn += run;
			if (turn >= SCHED_RUN || n == max || s->line.tokens <= 0 || !(c_ok & bit) ||
			    (is_green ? !(g_ok & bit) : b->deficit <= 0))
				break;
			qi = pick_queue(b, now);
			if (qi < 0)
				break;
		}
		if (s->line.tokens <= 0)
			break;
	}
	return n;
}
