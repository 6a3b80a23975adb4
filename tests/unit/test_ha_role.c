/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's role machine (failover/ha/ha_role.c) on simulated time.
 *
 * First each transition of ha_role.h alone, with the expected times worked
 * out from its rules (lease 100 ms, renew 20, retry 10, guard 10, timeout
 * 50: the defaults of section "ha"). Then two machines against a simulated
 * Redis lease (the semantics of ha_redis.h's scripts) over a simulated
 * network: never two nodes active at one instant, and a node active only
 * while the server's lease is its own; the standby's takeover times; a
 * paused node, a renew failure, a release, Redis unreachable; and long
 * random runs of all of it with loss and delays.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "failover/ha/ha_role.h"

#define US 1000ull
#define MS 1000000ull

#define LEASE   (100 * MS)
#define RENEW   (20 * MS)
#define RETRY   (10 * MS)
#define GUARD   (10 * MS)
#define TIMEOUT (50 * MS)
#define PROMPT  (RENEW / 4) /* ha_role.c: retries after a failure, at most this often */
#define T0      (1000 * MS) /* a monotonic clock is not 0 at start-up */

static const struct ha_role_cfg CFG = { LEASE, RENEW, RETRY, GUARD, TIMEOUT };

/* ---- one machine ----------------------------------------------------------------- */

static struct ha_op_result held(uint64_t epoch, int64_t pttl_ms, const char *me)
{
	struct ha_op_result r = { .status = 0, .held = true, .epoch = epoch, .pttl_ms = pttl_ms };

	snprintf(r.holder, sizeof(r.holder), "%s", me);
	return r;
}

static struct ha_op_result other(const char *holder, uint64_t epoch, int64_t pttl_ms)
{
	struct ha_op_result r = { .status = 0, .held = false, .epoch = epoch, .pttl_ms = pttl_ms };

	snprintf(r.holder, sizeof(r.holder), "%s", holder);
	return r;
}

static struct ha_op_result failed(int status)
{
	return (struct ha_op_result){ .status = status, .pttl_ms = -2 };
}

/* Tick every ms in [@p from, @p to): nothing is sent. */
static void quiet(struct ha_role *r, uint64_t from, uint64_t to)
{
	for (uint64_t t = from; t < to; t += MS)
		assert_int_equal(ha_role_tick(r, t), HA_OP_NONE);
}

/* Ticks every ms from @p from until an op is asked for; its time. */
static uint64_t until_op(struct ha_role *r, uint64_t from, enum ha_op want)
{
	for (uint64_t t = from; t < from + 10 * LEASE; t += MS) {
		enum ha_op op = ha_role_tick(r, t);
		if (op != HA_OP_NONE) {
			assert_int_equal(op, want);
			return t;
		}
	}
	fail_msg("no operation asked for");
	return 0;
}

/* A machine that acquired at T0 (answer at T0 + 1 ms): deadline T0 + 90 ms. */
static void make_active(struct ha_role *r)
{
	struct ha_op_result res = held(7, 100, "a");

	ha_role_init(r, &CFG, T0);
	assert_int_equal(ha_role_tick(r, T0), HA_OP_ACQUIRE);
	assert_true(ha_role_result(r, &res, T0 + MS));
}

/* A machine that read b's lease at T0 (pttl 80 ms, answer at T0 + 1 ms). */
static void make_standby(struct ha_role *r)
{
	struct ha_op_result res = other("b", 3, 80);

	ha_role_init(r, &CFG, T0);
	assert_int_equal(ha_role_tick(r, T0), HA_OP_ACQUIRE);
	assert_true(ha_role_result(r, &res, T0 + MS));
}

static void init_acquires_first(void **state)
{
	struct ha_role r;

	(void)state;
	ha_role_init(&r, &CFG, T0);
	assert_int_equal(r.state, HA_INIT);
	assert_int_equal(r.reason, HA_R_NONE);
	assert_false(ha_role_active(&r, T0));
	assert_int_equal(ha_role_deadline_ns(&r), 0);
	assert_int_equal(ha_role_tick(&r, T0), HA_OP_ACQUIRE);
	assert_int_equal(r.pending, HA_OP_ACQUIRE);
	assert_int_equal(r.pending_sent_ns, T0);
	assert_int_equal(r.acquires, 1);
	/* one operation at a time */
	quiet(&r, T0 + MS, T0 + 40 * MS);
	assert_int_equal(r.state, HA_INIT);
	assert_false(ha_role_active(&r, T0 + 20 * MS));
}

/* A result with nothing in flight is not ours. */
static void stray_result_ignored(void **state)
{
	struct ha_op_result res = held(1, 100, "a");
	struct ha_role r;

	(void)state;
	ha_role_init(&r, &CFG, T0);
	assert_false(ha_role_result(&r, &res, T0));
	assert_int_equal(r.state, HA_INIT);
	assert_int_equal(r.takeovers, 0);
}

static void acquire_taken(void **state)
{
	struct ha_role r;

	(void)state;
	make_active(&r);
	assert_int_equal(r.state, HA_ACTIVE);
	assert_int_equal(r.reason, HA_R_ACQUIRED);
	assert_int_equal(r.changed_ns, T0 + MS);
	assert_int_equal(r.takeovers, 1);
	assert_int_equal(r.epoch, 7);
	assert_int_equal(r.pending, HA_OP_NONE);
	/* from the send time: T0 + lease - guard */
	assert_int_equal(r.deadline_ns, T0 + 90 * MS);
	assert_int_equal(ha_role_deadline_ns(&r), T0 + 90 * MS);
	assert_true(ha_role_active(&r, T0 + MS));
	assert_true(ha_role_active(&r, T0 + 90 * MS - 1));
	assert_false(ha_role_active(&r, T0 + 90 * MS));
	/* the first renew one renew interval after the acquire was sent */
	quiet(&r, T0 + MS, T0 + 20 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 20 * MS), HA_OP_RENEW);
	assert_int_equal(r.renews, 1);
}

/* An acquire that finds this node's own lease (it did not extend it). */
static void acquire_finds_own_lease(void **state)
{
	struct ha_op_result res = held(7, 40, "a");
	struct ha_role r;

	(void)state;
	ha_role_init(&r, &CFG, T0);
	assert_int_equal(ha_role_tick(&r, T0), HA_OP_ACQUIRE);
	assert_true(ha_role_result(&r, &res, T0 + MS));
	assert_int_equal(r.state, HA_ACTIVE);
	/* sent + pttl - guard, not sent + lease - guard */
	assert_int_equal(r.deadline_ns, T0 + 30 * MS);
	/* renew when lease - guard - renew (70 ms) is left, but not sooner than PROMPT after
	 * the send: T0 + 5 ms */
	quiet(&r, T0 + MS, T0 + PROMPT);
	assert_int_equal(ha_role_tick(&r, T0 + PROMPT), HA_OP_RENEW);
}

static void acquire_held_by_other(void **state)
{
	struct ha_role r;

	(void)state;
	make_standby(&r);
	assert_int_equal(r.state, HA_STANDBY);
	assert_int_equal(r.reason, HA_R_HELD_BY_OTHER);
	assert_string_equal(r.holder, "b");
	assert_int_equal(r.holder_pttl_ms, 80);
	assert_int_equal(r.holder_read_ns, T0); /* the read's send time */
	assert_int_equal(r.epoch, 3);
	assert_false(ha_role_active(&r, T0 + MS));
	/* not before the lease can have ended: T0 + 80 ms, and 1 ms more for
	 * PTTL's rounding down (later than answer + retry) */
	quiet(&r, T0 + MS, T0 + 81 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 81 * MS), HA_OP_ACQUIRE);
}

/* A short pttl: the retry interval after the answer. */
static void standby_retry(void **state)
{
	struct ha_op_result res = other("b", 3, 3);
	struct ha_role r;

	(void)state;
	ha_role_init(&r, &CFG, T0);
	assert_int_equal(ha_role_tick(&r, T0), HA_OP_ACQUIRE);
	assert_true(ha_role_result(&r, &res, T0 + MS));
	quiet(&r, T0 + MS, T0 + 11 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 11 * MS), HA_OP_ACQUIRE);
	/* again held by b: the state does not change */
	res = other("b", 3, 50);
	assert_false(ha_role_result(&r, &res, T0 + 12 * MS));
	assert_int_equal(r.reason, HA_R_HELD_BY_OTHER);
	assert_int_equal(r.changed_ns, T0 + MS);
	/* max(answer + retry, sent + pttl + 1 ms) = T0 + 62 ms */
	quiet(&r, T0 + 12 * MS, T0 + 62 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 62 * MS), HA_OP_ACQUIRE);
	/* now free: taken */
	res = held(4, 100, "a");
	assert_true(ha_role_result(&r, &res, T0 + 63 * MS));
	assert_int_equal(r.state, HA_ACTIVE);
	/* sent at T0 + 62 ms: + lease 100 - guard 10 */
	assert_int_equal(r.deadline_ns, T0 + 152 * MS);
	assert_int_equal(r.takeovers, 1);
	assert_int_equal(r.acquires, 3);
}

/* Absent yet not taken (not what the script does): stay, ask again soon. */
static void acquire_no_holder(void **state)
{
	struct ha_op_result res = other("", 3, -2);
	struct ha_role r;

	(void)state;
	ha_role_init(&r, &CFG, T0);
	assert_int_equal(ha_role_tick(&r, T0), HA_OP_ACQUIRE);
	assert_false(ha_role_result(&r, &res, T0 + MS));
	assert_int_equal(r.state, HA_INIT);
	assert_false(ha_role_active(&r, T0 + MS));
	quiet(&r, T0 + MS, T0 + MS + PROMPT);
	assert_int_equal(ha_role_tick(&r, T0 + MS + PROMPT), HA_OP_ACQUIRE);
}

static void init_redis_down(void **state)
{
	struct ha_op_result res = failed(-ENOTCONN);
	struct ha_role r;

	(void)state;
	ha_role_init(&r, &CFG, T0);
	assert_int_equal(ha_role_tick(&r, T0), HA_OP_ACQUIRE);
	assert_true(ha_role_result(&r, &res, T0));
	assert_int_equal(r.state, HA_STANDBY);
	assert_int_equal(r.reason, HA_R_REDIS_DOWN);
	assert_false(ha_role_active(&r, T0));
	/* from STANDBY a failure stays STANDBY; every retry */
	quiet(&r, T0 + MS, T0 + 10 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 10 * MS), HA_OP_ACQUIRE);
	assert_false(ha_role_result(&r, &res, T0 + 10 * MS));
	assert_int_equal(r.state, HA_STANDBY);
	assert_int_equal(r.reason, HA_R_REDIS_DOWN);
	quiet(&r, T0 + 11 * MS, T0 + 20 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 20 * MS), HA_OP_ACQUIRE);
	/* a timeout is a failure too */
	quiet(&r, T0 + 21 * MS, T0 + 70 * MS);
	assert_int_equal(r.op_timeouts, 0);
	assert_int_equal(ha_role_tick(&r, T0 + 70 * MS), HA_OP_NONE);
	assert_int_equal(r.op_timeouts, 1);
	assert_int_equal(r.pending, HA_OP_NONE);
	assert_int_equal(r.state, HA_STANDBY);
	/* its answer after the timeout is ignored */
	res = held(5, 100, "a");
	assert_false(ha_role_result(&r, &res, T0 + 71 * MS));
	assert_int_equal(r.state, HA_STANDBY);
	assert_int_equal(until_op(&r, T0 + 71 * MS, HA_OP_ACQUIRE), T0 + 80 * MS);
}

/* The first acquire timing out: INIT -> STANDBY, never active. */
static void init_timeout(void **state)
{
	struct ha_role r;

	(void)state;
	ha_role_init(&r, &CFG, T0);
	assert_int_equal(ha_role_tick(&r, T0), HA_OP_ACQUIRE);
	quiet(&r, T0 + MS, T0 + 50 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 50 * MS), HA_OP_NONE);
	assert_int_equal(r.op_timeouts, 1);
	assert_int_equal(r.state, HA_STANDBY);
	assert_int_equal(r.reason, HA_R_REDIS_DOWN);
	assert_int_equal(until_op(&r, T0 + 51 * MS, HA_OP_ACQUIRE), T0 + 60 * MS);
}

static void standby_poke(void **state)
{
	struct ha_role r;

	(void)state;
	make_standby(&r);
	/* due at T0 + 80 ms; the partner says it released at T0 + 5 ms */
	quiet(&r, T0 + MS, T0 + 5 * MS);
	ha_role_poke(&r, T0 + 5 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 5 * MS), HA_OP_ACQUIRE);
}

/* A poke while an acquire is in flight: that answer may predate the release. */
static void poke_in_flight(void **state)
{
	struct ha_op_result res = other("b", 3, 90);
	struct ha_role r;

	(void)state;
	make_standby(&r);
	assert_int_equal(until_op(&r, T0 + MS, HA_OP_ACQUIRE), T0 + 81 * MS);
	ha_role_poke(&r, T0 + 81 * MS + 500 * US);
	assert_false(ha_role_result(&r, &res, T0 + 82 * MS));
	assert_int_equal(ha_role_tick(&r, T0 + 82 * MS), HA_OP_ACQUIRE);
	/* the poke is used up: the next answer schedules by the rules again:
	 * sent at T0 + 82 ms, pttl 90, + 1 ms */
	assert_false(ha_role_result(&r, &res, T0 + 83 * MS));
	quiet(&r, T0 + 83 * MS, T0 + 173 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 173 * MS), HA_OP_ACQUIRE);
}

/* A poke means nothing to an active or a stopped node. */
static void poke_ignored(void **state)
{
	struct ha_role r;

	(void)state;
	make_active(&r);
	ha_role_poke(&r, T0 + 2 * MS);
	quiet(&r, T0 + 2 * MS, T0 + 20 * MS);
}

static void partner_down_at_lease_end(void **state)
{
	struct ha_op_result res;
	struct ha_role r;

	(void)state;
	make_standby(&r); /* read at T0: b's lease 80 ms */
	ha_role_partner(&r, true, T0 + 3 * MS);
	assert_true(r.partner_down);
	/* exactly 1 ms after the lease can end: T0 + 81 ms (without the hint: T0 + 80 ms) */
	quiet(&r, T0 + 3 * MS, T0 + 81 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 81 * MS), HA_OP_ACQUIRE);
	assert_int_equal(ha_role_tick(&r, T0 + 81 * MS + 1), HA_OP_NONE);
	assert_int_equal(ha_role_tick(&r, T0 + 82 * MS - 1), HA_OP_NONE);
	/* b is alive after all (renewed): 1 ms after the new reading's end */
	res = other("b", 3, 95);
	assert_false(ha_role_result(&r, &res, T0 + 82 * MS));
	quiet(&r, T0 + 82 * MS, T0 + 177 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 177 * MS), HA_OP_ACQUIRE);
	/* a failure: every retry from then on */
	res = failed(-EIO);
	assert_false(ha_role_result(&r, &res, T0 + 178 * MS));
	assert_int_equal(until_op(&r, T0 + 178 * MS, HA_OP_ACQUIRE), T0 + 188 * MS);
	/* a reading whose end + 1 ms is past when it arrives: every retry */
	res = other("b", 3, 0);
	assert_false(ha_role_result(&r, &res, T0 + 190 * MS));
	assert_int_equal(until_op(&r, T0 + 190 * MS, HA_OP_ACQUIRE), T0 + 200 * MS);
	/* the hint while an operation is in flight: its answer schedules with it */
	ha_role_partner(&r, false, T0 + 200 * MS);
	ha_role_partner(&r, true, T0 + 200 * MS);
	res = other("b", 3, 30);
	assert_false(ha_role_result(&r, &res, T0 + 201 * MS));
	assert_int_equal(until_op(&r, T0 + 201 * MS, HA_OP_ACQUIRE), T0 + 231 * MS);
}

/* The hint when the lease read has already ended: acquire at once. */
static void partner_down_after_lease_end(void **state)
{
	struct ha_op_result res = other("b", 3, 2);
	struct ha_role r;

	(void)state;
	ha_role_init(&r, &CFG, T0);
	assert_int_equal(ha_role_tick(&r, T0), HA_OP_ACQUIRE);
	assert_false(r.partner_down);
	assert_true(ha_role_result(&r, &res, T0 + MS)); /* next: T0 + 11 ms */
	quiet(&r, T0 + MS, T0 + 4 * MS);
	ha_role_partner(&r, true, T0 + 4 * MS); /* T0 + 2 + 1 ms passed */
	assert_int_equal(ha_role_tick(&r, T0 + 4 * MS), HA_OP_ACQUIRE);
}

/* Partner Up again: a hint only, no effect on an active. */
static void partner_hint_active(void **state)
{
	struct ha_role r;

	(void)state;
	make_active(&r);
	ha_role_partner(&r, true, T0 + 2 * MS);
	assert_true(ha_role_active(&r, T0 + 2 * MS));
	quiet(&r, T0 + 2 * MS, T0 + 20 * MS);
	ha_role_partner(&r, false, T0 + 20 * MS);
	assert_false(r.partner_down);
	assert_int_equal(ha_role_tick(&r, T0 + 20 * MS), HA_OP_RENEW);
}

static void renew_extends(void **state)
{
	struct ha_op_result res = held(7, 100, "a");
	struct ha_role r;

	(void)state;
	make_active(&r);
	assert_int_equal(until_op(&r, T0 + MS, HA_OP_RENEW), T0 + 20 * MS);
	assert_false(ha_role_result(&r, &res, T0 + 23 * MS));
	assert_int_equal(r.state, HA_ACTIVE);
	assert_int_equal(r.deadline_ns, T0 + 110 * MS); /* renew's send + 90 ms */
	assert_int_equal(until_op(&r, T0 + 23 * MS, HA_OP_RENEW), T0 + 40 * MS);
	/* an answer with less left than the last deadline (a reload that
	 * shortened the lease: the renew's PEXPIRE set 50 ms) moves it back:
	 * the server frees the lease 50 ms after it got the renew */
	res = held(7, 50, "a");
	assert_false(ha_role_result(&r, &res, T0 + 41 * MS));
	assert_int_equal(r.deadline_ns, T0 + 80 * MS); /* send + 50 - 10 */
	assert_true(ha_role_active(&r, T0 + 80 * MS - 1));
	assert_false(ha_role_active(&r, T0 + 80 * MS));
	assert_int_equal(r.renews, 2);
	assert_int_equal(r.renew_failures, 0);
}

static void renew_lost(void **state)
{
	struct ha_op_result res = other("b", 8, 95);
	struct ha_role r;

	(void)state;
	make_active(&r);
	assert_int_equal(until_op(&r, T0 + MS, HA_OP_RENEW), T0 + 20 * MS);
	assert_true(ha_role_result(&r, &res, T0 + 22 * MS));
	assert_int_equal(r.state, HA_STANDBY);
	assert_int_equal(r.reason, HA_R_LOST);
	assert_int_equal(r.step_downs, 1);
	/* not active at once, long before the old deadline */
	assert_false(ha_role_active(&r, T0 + 22 * MS));
	assert_int_equal(ha_role_deadline_ns(&r), 0);
	assert_string_equal(r.holder, "b");
	assert_int_equal(r.epoch, 8);
	/* b's lease read at T0 + 20 ms: not before T0 + 115 ms (+ 1 ms: PTTL rounds down) */
	assert_int_equal(until_op(&r, T0 + 22 * MS, HA_OP_ACQUIRE), T0 + 116 * MS);
	/* the lease gone (no holder): lost as well */
	make_active(&r);
	assert_int_equal(until_op(&r, T0 + MS, HA_OP_RENEW), T0 + 20 * MS);
	res = other("", 7, -2);
	assert_true(ha_role_result(&r, &res, T0 + 21 * MS));
	assert_int_equal(r.reason, HA_R_LOST);
	assert_int_equal(until_op(&r, T0 + 21 * MS, HA_OP_ACQUIRE), T0 + 31 * MS);
}

/* Renews fail: active until the deadline, not after; a retry every PROMPT. */
static void renew_failure_until_deadline(void **state)
{
	struct ha_op_result res = failed(-EIO);
	struct ha_role r;
	uint64_t t = T0 + MS, sent;
	unsigned n = 0;

	(void)state;
	make_active(&r);
	sent = until_op(&r, t, HA_OP_RENEW);
	assert_int_equal(sent, T0 + 20 * MS);
	while (sent < T0 + 90 * MS) {
		assert_false(ha_role_result(&r, &res, sent)); /* fails at once */
		n++;
		assert_int_equal(r.state, HA_ACTIVE);
		assert_int_equal(r.renew_failures, n);
		/* the next no sooner than PROMPT after */
		for (t = sent; t < sent + PROMPT && t < T0 + 90 * MS; t += MS) {
			assert_int_equal(ha_role_tick(&r, t), HA_OP_NONE);
			assert_true(ha_role_active(&r, t));
		}
		if (t >= T0 + 90 * MS)
			break;
		assert_int_equal(ha_role_tick(&r, t), HA_OP_RENEW);
		sent = t;
	}
	/* renews at 20, 25, ..., 85 ms */
	assert_int_equal(n, 14);
	assert_true(ha_role_active(&r, T0 + 90 * MS - 1));
	assert_int_equal(ha_role_tick(&r, T0 + 90 * MS), HA_OP_NONE);
	assert_false(ha_role_active(&r, T0 + 90 * MS));
	assert_int_equal(r.state, HA_STANDBY);
	assert_int_equal(r.reason, HA_R_DEADLINE);
	assert_int_equal(r.step_downs, 1);
	/* then a standby's retry */
	assert_int_equal(until_op(&r, T0 + 91 * MS, HA_OP_ACQUIRE), T0 + 100 * MS);
}

/* A renew timing out: a failure, retried in the same tick (it is due). */
static void renew_timeout(void **state)
{
	struct ha_op_result res = held(7, 100, "a");
	struct ha_role r;

	(void)state;
	make_active(&r);
	assert_int_equal(until_op(&r, T0 + MS, HA_OP_RENEW), T0 + 20 * MS);
	quiet(&r, T0 + 21 * MS, T0 + 70 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 70 * MS), HA_OP_RENEW);
	assert_int_equal(r.op_timeouts, 1);
	assert_int_equal(r.renew_failures, 1);
	assert_int_equal(r.pending_sent_ns, T0 + 70 * MS);
	assert_true(ha_role_active(&r, T0 + 70 * MS));
	/* this one succeeds: deadline from its send */
	assert_false(ha_role_result(&r, &res, T0 + 72 * MS));
	assert_int_equal(r.deadline_ns, T0 + 160 * MS);
}

/* A deadline that passes in a gap: paused (INIT) or not, by the gap. */
static void pause_active(void **state)
{
	struct ha_role r;

	(void)state;
	/* frozen from T0 + 10 ms to T0 + 200 ms with nothing in flight */
	make_active(&r);
	quiet(&r, T0 + MS, T0 + 11 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 200 * MS), HA_OP_ACQUIRE);
	assert_int_equal(r.state, HA_INIT);
	assert_int_equal(r.reason, HA_R_PAUSED);
	assert_int_equal(r.step_downs, 1);
	assert_false(ha_role_active(&r, T0 + 200 * MS));
	assert_false(ha_role_active(&r, T0 + 50 * MS)); /* never active in INIT */
	assert_int_equal(r.holder_pttl_ms, -1);

	/* frozen with a renew in flight: it times out, then the pause */
	make_active(&r);
	assert_int_equal(until_op(&r, T0 + MS, HA_OP_RENEW), T0 + 20 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 300 * MS), HA_OP_ACQUIRE);
	assert_int_equal(r.op_timeouts, 1);
	assert_int_equal(r.state, HA_INIT);
	assert_int_equal(r.reason, HA_R_PAUSED);
	/* what it reads now decides: b took the lease meanwhile */
	struct ha_op_result now_b = other("b", 8, 60);
	assert_int_equal(r.pending, HA_OP_ACQUIRE);
	assert_true(ha_role_result(&r, &now_b, T0 + 301 * MS));
	assert_int_equal(r.state, HA_STANDBY);
	assert_int_equal(r.reason, HA_R_HELD_BY_OTHER);
}

/*
 * The boundary: the last tick more than a renew interval before the
 * deadline (deadline T0 + 90 ms) is a pause, within one it is the deadline.
 */
static void pause_or_deadline(void **state)
{
	struct ha_role r;

	(void)state;
	make_active(&r);
	assert_int_equal(ha_role_tick(&r, T0 + 70 * MS - 1), HA_OP_RENEW);
	struct ha_op_result f = failed(-EIO);
	ha_role_result(&r, &f, T0 + 70 * MS - 1);
	assert_int_equal(ha_role_tick(&r, T0 + 91 * MS), HA_OP_ACQUIRE);
	assert_int_equal(r.state, HA_INIT);
	assert_int_equal(r.reason, HA_R_PAUSED);

	make_active(&r);
	assert_int_equal(ha_role_tick(&r, T0 + 70 * MS), HA_OP_RENEW);
	ha_role_result(&r, &f, T0 + 70 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 91 * MS), HA_OP_NONE);
	assert_int_equal(r.state, HA_STANDBY);
	assert_int_equal(r.reason, HA_R_DEADLINE);
	assert_int_equal(r.step_downs, 1);
}

/* A standby's reading goes stale over a gap longer than the lease. */
static void pause_standby(void **state)
{
	struct ha_role r;

	(void)state;
	make_standby(&r);
	quiet(&r, T0 + MS, T0 + 2 * MS);
	/* a gap of exactly the lease: still standby */
	assert_int_equal(ha_role_tick(&r, T0 + 101 * MS), HA_OP_ACQUIRE);
	assert_int_equal(r.state, HA_STANDBY);
	struct ha_op_result res = other("b", 3, 80);
	ha_role_result(&r, &res, T0 + 102 * MS);
	/* longer: INIT, and it reads at once */
	assert_int_equal(ha_role_tick(&r, T0 + 202 * MS), HA_OP_ACQUIRE);
	assert_int_equal(r.state, HA_INIT);
	assert_int_equal(r.reason, HA_R_PAUSED);
	assert_int_equal(r.step_downs, 0);
	assert_string_equal(r.holder, "");
}

static void stop_active(void **state)
{
	struct ha_op_result res = other("", 7, -2);
	struct ha_role r;

	(void)state;
	make_active(&r);
	ha_role_stop(&r, T0 + 5 * MS);
	assert_int_equal(r.state, HA_RELEASING);
	assert_true(r.stopping);
	assert_false(ha_role_active(&r, T0 + 5 * MS));
	assert_int_equal(ha_role_deadline_ns(&r), 0);
	assert_int_equal(ha_role_tick(&r, T0 + 5 * MS), HA_OP_RELEASE);
	assert_int_equal(r.releases, 1);
	quiet(&r, T0 + 6 * MS, T0 + 8 * MS);
	assert_true(ha_role_result(&r, &res, T0 + 8 * MS));
	assert_int_equal(r.state, HA_RELEASING);
	assert_int_equal(r.reason, HA_R_RELEASED);
	quiet(&r, T0 + 8 * MS, T0 + 1000 * MS);
	assert_int_equal(r.releases, 1);
	assert_int_equal(r.step_downs, 0);
	/* stop twice, poke, hint: nothing */
	ha_role_stop(&r, T0 + 1000 * MS);
	ha_role_poke(&r, T0 + 1000 * MS);
	ha_role_partner(&r, true, T0 + 1000 * MS);
	quiet(&r, T0 + 1000 * MS, T0 + 1100 * MS);
	assert_int_equal(r.reason, HA_R_RELEASED);
}

/* A release that times out ends the shutdown too (the lease expires by itself). */
static void stop_release_timeout(void **state)
{
	struct ha_role r;

	(void)state;
	make_active(&r);
	ha_role_stop(&r, T0 + 5 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 5 * MS), HA_OP_RELEASE);
	quiet(&r, T0 + 6 * MS, T0 + 55 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 55 * MS), HA_OP_NONE);
	assert_int_equal(r.reason, HA_R_RELEASED);
	quiet(&r, T0 + 56 * MS, T0 + 500 * MS);
}

/* Stopped with a renew in flight: the release after it, unless it showed nothing is ours. */
static void stop_renew_in_flight(void **state)
{
	struct ha_op_result ok = held(7, 100, "a"), gone = other("b", 8, 90);
	struct ha_role r;

	(void)state;
	make_active(&r);
	assert_int_equal(until_op(&r, T0 + MS, HA_OP_RENEW), T0 + 20 * MS);
	ha_role_stop(&r, T0 + 20 * MS + 100 * US);
	assert_false(ha_role_active(&r, T0 + 20 * MS + 100 * US));
	quiet(&r, T0 + 21 * MS, T0 + 22 * MS);
	assert_false(ha_role_result(&r, &ok, T0 + 22 * MS));
	assert_false(ha_role_active(&r, T0 + 22 * MS)); /* a renew does not undo a stop */
	assert_int_equal(ha_role_tick(&r, T0 + 22 * MS), HA_OP_RELEASE);

	make_active(&r);
	assert_int_equal(until_op(&r, T0 + MS, HA_OP_RENEW), T0 + 20 * MS);
	ha_role_stop(&r, T0 + 21 * MS);
	assert_true(ha_role_result(&r, &gone, T0 + 22 * MS));
	assert_int_equal(r.reason, HA_R_RELEASED);
	quiet(&r, T0 + 22 * MS, T0 + 200 * MS);
	assert_int_equal(r.releases, 0);

	/* the renew times out: released anyway (it may have been ours) */
	make_active(&r);
	assert_int_equal(until_op(&r, T0 + MS, HA_OP_RENEW), T0 + 20 * MS);
	ha_role_stop(&r, T0 + 21 * MS);
	quiet(&r, T0 + 22 * MS, T0 + 70 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 70 * MS), HA_OP_RELEASE);
}

static void stop_standby(void **state)
{
	struct ha_role r;

	(void)state;
	make_standby(&r);
	ha_role_stop(&r, T0 + 2 * MS);
	assert_int_equal(r.state, HA_RELEASING);
	assert_int_equal(r.reason, HA_R_RELEASED);
	quiet(&r, T0 + 2 * MS, T0 + 500 * MS);
	assert_int_equal(r.releases, 0);
	assert_int_equal(r.acquires, 1);
}

/* Stopped with the first acquire in flight: give back what it took. */
static void stop_acquire_in_flight(void **state)
{
	struct ha_op_result got = held(9, 100, "a"), other_ = other("b", 3, 50);
	struct ha_role r;

	(void)state;
	ha_role_init(&r, &CFG, T0);
	assert_int_equal(ha_role_tick(&r, T0), HA_OP_ACQUIRE);
	ha_role_stop(&r, T0 + 100 * US);
	assert_int_equal(r.state, HA_RELEASING);
	assert_int_equal(r.reason, HA_R_NONE);
	assert_int_equal(ha_role_tick(&r, T0 + 200 * US), HA_OP_NONE);
	assert_false(ha_role_result(&r, &got, T0 + MS));
	assert_false(ha_role_active(&r, T0 + MS));
	assert_int_equal(r.takeovers, 0);
	assert_int_equal(r.epoch, 9); /* the release's fencing token */
	assert_int_equal(ha_role_tick(&r, T0 + MS), HA_OP_RELEASE);

	ha_role_init(&r, &CFG, T0);
	assert_int_equal(ha_role_tick(&r, T0), HA_OP_ACQUIRE);
	ha_role_stop(&r, T0 + 100 * US);
	assert_true(ha_role_result(&r, &other_, T0 + MS));
	assert_int_equal(r.reason, HA_R_RELEASED);
	quiet(&r, T0 + MS, T0 + 300 * MS);
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(ha_role_state_name(HA_INIT), "init");
	assert_string_equal(ha_role_state_name(HA_STANDBY), "standby");
	assert_string_equal(ha_role_state_name(HA_ACTIVE), "active");
	assert_string_equal(ha_role_state_name(HA_RELEASING), "releasing");
	assert_string_equal(ha_role_state_name((enum ha_role_state)9), "?");
	assert_string_equal(ha_reason_name(HA_R_NONE), "none");
	assert_string_equal(ha_reason_name(HA_R_ACQUIRED), "acquired");
	assert_string_equal(ha_reason_name(HA_R_LOST), "lost");
	assert_string_equal(ha_reason_name(HA_R_DEADLINE), "deadline");
	assert_string_equal(ha_reason_name(HA_R_PAUSED), "paused");
	assert_string_equal(ha_reason_name(HA_R_HELD_BY_OTHER), "held_by_other");
	assert_string_equal(ha_reason_name(HA_R_RELEASED), "released");
	assert_string_equal(ha_reason_name(HA_R_REDIS_DOWN), "redis_down");
	assert_string_equal(ha_reason_name((enum ha_reason)99), "?");
}

/* ---- two machines, a lease server, a network --------------------------------------- */

/*
 * The lease as the Lua scripts of ha_redis.h keep it, on the simulation's
 * true time: ACQUIRE sets it when absent (a new epoch) and otherwise reads
 * it (held when it is the caller's own, not extended); RENEW extends it
 * only for its holder with its epoch; RELEASE deletes it likewise and
 * publishes "NODE released". PTTL is whole ms, rounded down, as Redis
 * reports it; a key whose expiry has come is gone.
 */
struct lease_server {
	char holder[64];
	uint64_t epoch;
	uint64_t expiry; /* true ns */
};

enum msg_kind { TO_SERVER, TO_NODE, EVENT };

struct msg {
	uint64_t at; /* true ns of arrival */
	enum msg_kind kind;
	int node; /* sender (TO_SERVER) or receiver */
	enum ha_op op;
	uint64_t epoch, seq;
	struct ha_op_result res;
};

/* One vbrd process and the machine it runs. */
struct node {
	struct ha_role r;
	char id[8];
	int64_t offset;         /* its monotonic clock: offset + true time ... */
	int ppm;                /* ... running this much fast (or slow) */
	bool running;           /* the process is there (a crashed one keeps its frozen state) */
	bool paused;            /* frozen: no ticks, replies wait */
	bool link_down;         /* Redis unreachable from here */
	bool blackhole;         /* while link_down: requests vanish instead of failing at once */
	bool tick_first;        /* on resume: tick before the replies that waited */
	uint64_t tick_every;    /* ns between its evloop's timer ticks */
	uint64_t next_tick;     /* true ns */
	uint64_t seq, inflight; /* the op in flight (0: none, or cancelled) */
	bool hint_down;         /* ha_role_partner(down) given */
	uint64_t other_gone;    /* true ns since the partner stopped ticking, 0: it ticks */
	uint64_t resume_at, restart_at, link_up_at, exit_by; /* chaos timers, 0: none */
};

#define QMAX 256

struct sim {
	struct ha_role_cfg cfg;
	struct lease_server srv;
	struct node n[2];
	struct msg q[QMAX];
	int nq;
	uint64_t t, dt; /* true ns, step */
	uint64_t rng;
	uint64_t dmin, dmax; /* one-way delay */
	uint32_t loss_ppm;   /* per message */
	uint32_t slow_ppm;   /* a message this rarely takes dmax..slow_max */
	uint64_t slow_max;
	bool bfd;            /* the partner hint from a BFD session ... */
	uint64_t bfd_detect; /* ... that sees a silent partner after this */
	unsigned seed;
	uint64_t became_active[2]; /* true ns of the last not-active -> active, per node */
	bool was_active[2];
	uint64_t active_ns[2], takeovers;
};

static uint64_t rnd(struct sim *s)
{
	/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators") */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 2685821657736338717ull;
}

/* Uniform in [lo, hi]. */
static uint64_t between(struct sim *s, uint64_t lo, uint64_t hi)
{
	return hi <= lo ? lo : lo + rnd(s) % (hi - lo + 1);
}

static bool chance(struct sim *s, uint32_t ppm)
{
	return ppm > 0 && rnd(s) % 1000000 < ppm;
}

static uint64_t local(const struct sim *s, int i, uint64_t t)
{
	const struct node *n = &s->n[i];

	return (uint64_t)(n->offset + (int64_t)t + (int64_t)t / 1000000 * n->ppm);
}

static void sim_init(struct sim *s, const struct ha_role_cfg *cfg, unsigned seed)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->seed = seed;
	s->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed * 0x2545f4914f6cdd1dull);
	rnd(s);
	s->dt = 10 * US;
	s->dmin = s->dmax = MS;
	s->t = 5 * MS;
	for (int i = 0; i < 2; i++) {
		struct node *n = &s->n[i];

		snprintf(n->id, sizeof(n->id), "%c", 'a' + i);
		n->offset = (int64_t)between(s, 1000, 100000) * (int64_t)MS;
		n->tick_every = s->dt;
	}
}

static void start(struct sim *s, int i)
{
	struct node *n = &s->n[i];

	ha_role_init(&n->r, &s->cfg, local(s, i, s->t));
	n->running = true;
	n->paused = false;
	n->inflight = 0;
	n->hint_down = false;
	n->next_tick = s->t;
	n->exit_by = 0;
}

static uint64_t delay(struct sim *s)
{
	if (chance(s, s->slow_ppm))
		return between(s, s->dmax, s->slow_max);
	return between(s, s->dmin, s->dmax);
}

static void enqueue(struct sim *s, const struct msg *m)
{
	assert_true(s->nq < QMAX);
	s->q[s->nq++] = *m;
}

/* The caller's side of one operation the machine asked for (ha_redis_lease()). */
static void send_op(struct sim *s, int i, enum ha_op op)
{
	struct node *n = &s->n[i];
	struct msg m = { .kind = TO_SERVER, .node = i, .op = op, .epoch = n->r.epoch };

	m.seq = n->inflight = ++n->seq;
	if (n->link_down) {
		if (!n->blackhole) {
			/* -ENOTCONN from ha_redis_lease(): no callback, the caller reports it */
			struct ha_op_result f = failed(-ENOTCONN);
			n->inflight = 0;
			ha_role_result(&n->r, &f, local(s, i, s->t));
		}
		return;
	}
	if (chance(s, s->loss_ppm))
		return;
	m.at = s->t + delay(s);
	enqueue(s, &m);
}

static void server_apply(struct sim *s, const struct msg *m)
{
	struct lease_server *v = &s->srv;
	const char *id = s->n[m->node].id;
	uint64_t lease_ms = s->cfg.lease_ns / MS;
	struct msg reply = { .kind = TO_NODE, .node = m->node, .seq = m->seq };
	struct ha_op_result *res = &reply.res;
	bool mine, published = false;

	if (v->holder[0] && s->t >= v->expiry)
		v->holder[0] = '\0';
	mine = v->holder[0] && strcmp(v->holder, id) == 0;
	switch (m->op) {
	case HA_OP_ACQUIRE:
		if (!v->holder[0]) {
			snprintf(v->holder, sizeof(v->holder), "%s", id);
			v->epoch++;
			v->expiry = s->t + lease_ms * MS;
			mine = true;
		}
		res->held = mine;
		break;
	case HA_OP_RENEW:
		if (mine && m->epoch == v->epoch) {
			v->expiry = s->t + lease_ms * MS;
			res->held = true;
		}
		break;
	case HA_OP_RELEASE:
		if (mine && m->epoch == v->epoch) {
			v->holder[0] = '\0';
			published = true;
		}
		break;
	case HA_OP_NONE:
		fail();
	}
	res->epoch = v->epoch;
	snprintf(res->holder, sizeof(res->holder), "%s", v->holder);
	res->pttl_ms = v->holder[0] ? (int64_t)((v->expiry - s->t) / MS) : -2;
	if (!chance(s, s->loss_ppm)) {
		reply.at = s->t + delay(s);
		enqueue(s, &reply);
	}
	if (published && !chance(s, s->loss_ppm)) {
		struct msg ev = { .kind = EVENT, .node = m->node ^ 1, .at = s->t + delay(s) };
		enqueue(s, &ev);
	}
}

/* Deliver @p m now; false when it has to wait (its node is frozen). */
static bool deliver(struct sim *s, const struct msg *m)
{
	struct node *n = &s->n[m->node];

	if (m->kind == TO_SERVER) {
		server_apply(s, m);
		return true;
	}
	if (!n->running)
		return true; /* the process is gone */
	if (n->paused)
		return false;
	if (m->kind == EVENT)
		ha_role_poke(&n->r, local(s, m->node, s->t));
	else if (m->seq == n->inflight) {
		n->inflight = 0;
		ha_role_result(&n->r, &m->res, local(s, m->node, s->t));
	} /* else: cancelled after the machine's timeout, or of an earlier process */
	return true;
}

static void deliver_due(struct sim *s)
{
	for (;;) {
		int best = -1;

		for (int k = 0; k < s->nq; k++) {
			const struct msg *m = &s->q[k];
			if (m->at > s->t ||
			    (m->kind != TO_SERVER && s->n[m->node].running && s->n[m->node].paused))
				continue;
			if (best < 0 || m->at < s->q[best].at)
				best = k;
		}
		if (best < 0)
			return;
		struct msg m = s->q[best];
		s->q[best] = s->q[--s->nq];
		deliver(s, &m);
	}
}

static void tick(struct sim *s, int i)
{
	struct node *n = &s->n[i];
	uint64_t timeouts = n->r.op_timeouts;
	enum ha_op op = ha_role_tick(&n->r, local(s, i, s->t));

	if (n->r.op_timeouts != timeouts)
		n->inflight = 0; /* the caller cancels its side */
	if (op != HA_OP_NONE)
		send_op(s, i, op);
	n->next_tick = s->t + n->tick_every;
}

/* The partner hint: BFD sees the partner silent after bfd_detect. */
static void bfd_hint(struct sim *s, int i)
{
	struct node *n = &s->n[i], *o = &s->n[i ^ 1];
	bool alive = o->running && !o->paused;

	if (!s->bfd || !n->running || n->paused)
		return;
	if (alive) {
		n->other_gone = 0;
		if (n->hint_down) {
			n->hint_down = false;
			ha_role_partner(&n->r, false, local(s, i, s->t));
		}
		return;
	}
	if (n->other_gone == 0)
		n->other_gone = s->t;
	if (!n->hint_down && s->t - n->other_gone >= s->bfd_detect) {
		n->hint_down = true;
		ha_role_partner(&n->r, true, local(s, i, s->t));
	}
}

static bool server_lease_is(const struct sim *s, int i)
{
	return s->srv.holder[0] && strcmp(s->srv.holder, s->n[i].id) == 0 && s->t < s->srv.expiry;
}

static void dump(const struct sim *s)
{
	print_message("seed %u t %.3f ms: server holder '%s' epoch %llu expiry %.3f ms\n", s->seed,
		      s->t / 1e6, s->srv.holder, (unsigned long long)s->srv.epoch,
		      s->srv.expiry / 1e6);
	for (int i = 0; i < 2; i++) {
		const struct node *n = &s->n[i];
		print_message(
			"  %s: %s (%s) deadline %.3f ms (true), running %d paused %d link %d\n",
			n->id, ha_role_state_name(n->r.state), ha_reason_name(n->r.reason),
			n->r.deadline_ns ? (double)((int64_t)n->r.deadline_ns - n->offset) / 1e6
					 : 0.0,
			n->running, n->paused, !n->link_down);
	}
}

/*
 * The safety property at this instant: at most one node active, and an
 * active node's lease is on the server (what makes the first hold for any
 * number of nodes). A crashed or frozen node is asked too: its data path
 * compares the same deadline.
 */
static void check(struct sim *s)
{
	bool a[2];

	for (int i = 0; i < 2; i++) {
		a[i] = ha_role_active(&s->n[i].r, local(s, i, s->t));
		if (a[i] && !server_lease_is(s, i)) {
			dump(s);
			fail_msg("%s active without the lease", s->n[i].id);
		}
		if (a[i] && !s->was_active[i]) {
			s->became_active[i] = s->t;
			s->takeovers++;
		}
		if (a[i])
			s->active_ns[i] += s->dt;
		s->was_active[i] = a[i];
	}
	if (a[0] && a[1]) {
		dump(s);
		fail_msg("two active nodes");
	}
}

/* One step of dt: messages due, ticks, the hint, then the check. */
static void step(struct sim *s)
{
	s->t += s->dt;
	for (int i = 0; i < 2; i++) {
		struct node *n = &s->n[i];
		if (n->running && !n->paused && n->tick_first && s->t >= n->next_tick) {
			n->tick_first = false;
			tick(s, i);
		}
	}
	deliver_due(s);
	for (int i = 0; i < 2; i++) {
		struct node *n = &s->n[i];
		if (n->running && !n->paused && s->t >= n->next_tick)
			tick(s, i);
		bfd_hint(s, i);
	}
	check(s);
}

static void run_until(struct sim *s, uint64_t until)
{
	while (s->t < until)
		step(s);
}

/* Run until node @p i is active (at most @p max); the true time it became so. */
static uint64_t run_until_active(struct sim *s, int i, uint64_t max)
{
	uint64_t end = s->t + max;

	while (s->t < end) {
		step(s);
		if (s->was_active[i])
			return s->t;
	}
	dump(s);
	fail_msg("%s did not become active", s->n[i].id);
	return 0;
}

/* a starts, then b: a active, b standby; at true time 500 ms. */
static void sim_pair(struct sim *s, const struct ha_role_cfg *cfg, unsigned seed)
{
	sim_init(s, cfg, seed);
	start(s, 0);
	run_until(s, s->t + 5 * MS);
	start(s, 1);
	run_until(s, 500 * MS);
	assert_int_equal(s->n[0].r.state, HA_ACTIVE);
	assert_int_equal(s->n[1].r.state, HA_STANDBY);
	assert_string_equal(s->n[1].r.holder, "a");
}

/*
 * The active stops ticking (crash) at t_stop. Its last renew was sent at
 * or before t_stop and applied one delay d later, so the lease expires at
 * E <= t_stop + d + lease. The standby's last attempt that lands before
 * E answers at <= E + d and reads pttl with read + pttl <= E - d; its
 * next attempt is due max(answer + retry, read + pttl) <= E + d + retry,
 * sent within a tick dt, lands after E (it takes it) and answers d later:
 * active by t_stop + lease + retry + 4 d + dt.
 */
static void takeover_after_crash(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 40; k++) {
		struct sim s;
		uint64_t t_stop, t_b;

		sim_pair(&s, &CFG, k);
		run_until(&s, 500 * MS + k * 700 * US); /* every phase of the renew cycle */
		t_stop = s.t;
		s.n[0].running = false;
		t_b = run_until_active(&s, 1, 2 * LEASE);
		assert_true(t_b <= t_stop + LEASE + RETRY + 4 * s.dmax + s.dt);
		/* and not before the lease expired: no active from t_stop to E (check()) */
		assert_true(t_b > t_stop + LEASE - RENEW);
		assert_int_equal(s.n[1].r.reason, HA_R_ACQUIRED);
	}
}

/*
 * With the partner's BFD Down before the lease ends: the standby's
 * reading (sent at x, read at x + d) gives read + pttl in (E - d - 1 ms,
 * E - d], so its attempt at read + pttl + 1 ms (within a tick) lands in
 * (E, E + 1 ms + dt] and answers d later: active by E + 1 ms + RTT + dt.
 */
static void takeover_partner_down(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 40; k++) {
		struct sim s;
		uint64_t expiry, t_b;

		sim_pair(&s, &CFG, 100 + k);
		s.bfd = true;
		s.bfd_detect = 15 * MS;
		run_until(&s, 500 * MS + k * 700 * US);
		s.n[0].running = false;
		run_until(&s, s.t + 2 * s.dmax); /* its last renew has landed */
		expiry = s.srv.expiry;
		t_b = run_until_active(&s, 1, 2 * LEASE);
		assert_true(s.n[1].r.partner_down);
		assert_true(t_b > expiry);
		assert_true(t_b <= expiry + MS + 2 * s.dmax + s.dt);
	}
}

/*
 * A frozen active (longer than the lease) comes back: never active while
 * b holds the lease; it goes through INIT (paused) to standby. Both
 * orders of its first tick and the replies that waited for it.
 */
static void paused_active_resumes(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 20; k++) {
		struct sim s;
		struct node *a;

		sim_pair(&s, &CFG, 200 + k);
		a = &s.n[0];
		run_until(&s, 500 * MS + k * 1100 * US);
		a->paused = true;
		run_until_active(&s, 1, 2 * LEASE);
		run_until(&s, s.t + LEASE + k * MS);
		a->paused = false;
		a->tick_first = k % 2;
		step(&s);
		assert_true(a->r.state == HA_INIT || a->r.state == HA_STANDBY);
		assert_true(a->r.reason == HA_R_PAUSED || a->r.reason == HA_R_HELD_BY_OTHER);
		run_until(&s, s.t + 10 * LEASE);
		assert_int_equal(a->r.state, HA_STANDBY);
		assert_int_equal(a->r.reason, HA_R_HELD_BY_OTHER);
		assert_string_equal(a->r.holder, "b");
		assert_int_equal(a->r.step_downs, 1);
		assert_int_equal(s.n[1].r.state, HA_ACTIVE);
		assert_true(s.was_active[1]);
	}
}

/*
 * a's Redis link fails (renews fail at once): a stays active until its
 * deadline D (the last successful renew's send + lease - guard) and not
 * after; b cannot have the lease before it expires (D + guard + d), and
 * takes over as after a crash.
 */
static void renew_failure_keeps_role(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 20; k++) {
		struct sim s;
		struct node *a;
		uint64_t d_true, t_fail, t_b;

		sim_pair(&s, &CFG, 300 + k);
		a = &s.n[0];
		run_until(&s, 500 * MS + k * 900 * US);
		a->link_down = true;
		a->blackhole = k % 2; /* failing at once, or timing out */
		t_fail = s.t;
		/* its deadline once the renew in flight (if any) is answered */
		run_until(&s, s.t + 2 * s.dmax + s.dt);
		d_true = (uint64_t)((int64_t)a->r.deadline_ns - a->offset);
		assert_true(d_true > s.t);
		while (s.t + s.dt < d_true) {
			step(&s);
			assert_true(ha_role_active(&a->r, local(&s, 0, s.t)));
			assert_false(s.was_active[1]);
		}
		run_until(&s, d_true + s.dt);
		assert_false(ha_role_active(&a->r, local(&s, 0, s.t)));
		assert_int_equal(a->r.state, HA_STANDBY);
		assert_int_equal(a->r.reason, HA_R_DEADLINE);
		assert_true(a->r.renew_failures >= 1);
		/* at most one renew every PROMPT from the failure to the deadline */
		assert_true(a->r.renew_failures <= (d_true - t_fail) / PROMPT + 2);
		t_b = run_until_active(&s, 1, 2 * LEASE);
		assert_true(t_b > d_true + GUARD);
		assert_true(t_b <= d_true + GUARD + s.dmax + RETRY + 4 * s.dmax + s.dt);
	}
}

/*
 * a stops: not active at once; its release (after a renew in flight,
 * <= 2 d, and a tick) lands d later, the "released" event reaches b d
 * later, b acquires at once (a tick) and answers 2 d later: b active by
 * t_stop + 6 d + 2 dt, long before the lease would have expired.
 */
static void release_hands_over(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 20; k++) {
		struct sim s;
		uint64_t t_stop, t_b;

		sim_pair(&s, &CFG, 400 + k);
		run_until(&s, 500 * MS + k * 900 * US);
		t_stop = s.t;
		ha_role_stop(&s.n[0].r, local(&s, 0, s.t));
		assert_false(ha_role_active(&s.n[0].r, local(&s, 0, s.t)));
		t_b = run_until_active(&s, 1, 2 * LEASE);
		assert_true(t_b <= t_stop + 6 * s.dmax + 2 * s.dt);
		run_until(&s, s.t + 5 * LEASE);
		assert_int_equal(s.n[0].r.state, HA_RELEASING);
		assert_int_equal(s.n[0].r.reason, HA_R_RELEASED);
		assert_int_equal(s.n[0].r.releases, 1);
		assert_int_equal(s.n[0].r.pending, HA_OP_NONE);
		assert_int_equal(s.n[1].r.state, HA_ACTIVE);
	}
}

/*
 * Redis unreachable from both: nobody active after a's deadline, nobody
 * becomes active meanwhile; once back, the lease (expired) is taken
 * within one retry, a timeout (an op that vanished), and 2 d + dt.
 */
static void redis_unreachable(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 10; k++) {
		struct sim s;
		uint64_t t_up, t_won;

		sim_pair(&s, &CFG, 500 + k);
		run_until(&s, 500 * MS + k * 3 * MS);
		for (int i = 0; i < 2; i++) {
			s.n[i].link_down = true;
			s.n[i].blackhole = (k + (unsigned)i) % 2;
		}
		/* a's deadline is at most lease - guard after its last renew's send */
		run_until(&s, s.t + LEASE);
		for (uint64_t end = s.t + 3 * LEASE; s.t < end;) {
			step(&s);
			assert_false(s.was_active[0] || s.was_active[1]);
		}
		assert_int_equal(s.n[0].r.state, HA_STANDBY);
		assert_int_equal(s.n[0].r.reason, HA_R_DEADLINE);
		assert_int_equal(s.n[1].r.state, HA_STANDBY);
		t_up = s.t;
		s.n[0].link_down = s.n[1].link_down = false;
		while (!s.was_active[0] && !s.was_active[1] && s.t < t_up + 4 * LEASE)
			step(&s);
		t_won = s.t;
		assert_true(t_won <= t_up + RETRY + TIMEOUT + 2 * s.dmax + s.dt);
	}
}

/* A node that starts with Redis down: standby (redis_down), never active, then takes it. */
static void start_redis_down(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, &CFG, 600);
	s.n[0].link_down = true;
	start(&s, 0);
	run_until(&s, 300 * MS);
	assert_int_equal(s.n[0].r.state, HA_STANDBY);
	assert_int_equal(s.n[0].r.reason, HA_R_REDIS_DOWN);
	assert_false(s.was_active[0]);
	s.n[0].link_down = false;
	run_until_active(&s, 0, RETRY + 2 * s.dmax + 2 * s.dt);
}

/* ---- random runs ---------------------------------------------------------------------- */

/* A random configuration within section "ha"'s ranges (ha_config.h). */
static void random_cfg(struct sim *s, struct ha_role_cfg *c)
{
	static const uint64_t leases[] = { 20, 30, 50, 100, 250 };
	uint64_t lease = leases[rnd(s) % 5];
	uint64_t renew = between(s, 1, lease / 2);

	c->lease_ns = lease * MS;
	c->renew_ns = renew * MS;
	c->guard_ns = between(s, 1, lease - renew - 1) * MS;
	c->retry_ns = between(s, 1, lease) * MS;
	c->timeout_ns = between(s, 5, 2 * lease) * MS;
}

/* Some trouble for node @p i (or Redis, or the partner hint). */
static void chaos(struct sim *s)
{
	int i = (int)(rnd(s) % 2);
	struct node *n = &s->n[i];
	uint64_t lease = s->cfg.lease_ns;

	if (!n->running || n->paused)
		return;
	switch (rnd(s) % 6) {
	case 0: /* frozen (a VM paused, a stall), often longer than the lease */
		n->paused = true;
		n->resume_at = s->t + between(s, lease / 10, 4 * lease);
		n->tick_first = rnd(s) % 2;
		break;
	case 1: /* killed */
		n->running = false;
		n->restart_at = s->t + between(s, lease / 5, 3 * lease);
		break;
	case 2: /* shut down: releases, then exits */
		if (!n->r.stopping) {
			ha_role_stop(&n->r, local(s, i, s->t));
			n->exit_by = s->t + 2 * s->cfg.timeout_ns + 2 * s->slow_max;
		}
		break;
	case 3: /* Redis unreachable from this node (or from both) */
	case 4:
		for (int j = 0; j < 2; j++) {
			if (j != i && rnd(s) % 3 != 0)
				continue;
			s->n[j].link_down = true;
			s->n[j].blackhole = rnd(s) % 2;
			s->n[j].link_up_at = s->t + between(s, lease / 10, 3 * lease);
		}
		break;
	case 5: /* a false hint: the DR tunnel's BFD goes Down with the partner alive */
		if (!n->hint_down) {
			n->hint_down = true;
			ha_role_partner(&n->r, true, local(s, i, s->t));
		}
		break;
	}
}

static void timers(struct sim *s)
{
	for (int i = 0; i < 2; i++) {
		struct node *n = &s->n[i];

		if (n->resume_at && s->t >= n->resume_at) {
			n->resume_at = 0;
			n->paused = false;
		}
		if (n->restart_at && s->t >= n->restart_at) {
			n->restart_at = 0;
			start(s, i);
		}
		if (n->link_up_at && s->t >= n->link_up_at) {
			n->link_up_at = 0;
			n->link_down = false;
		}
		if (n->exit_by && n->running && !n->paused &&
		    (n->r.reason == HA_R_RELEASED || s->t >= n->exit_by)) {
			n->exit_by = 0;
			n->running = false;
			n->restart_at = s->t + between(s, 0, 2 * s->cfg.lease_ns);
		}
	}
}

/*
 * Calm after the storm: both nodes up, Redis reachable, no loss. Within
 * a timeout (ops in flight end), a slow message's delay, a lease (any
 * lease not renewed expires) and a retry plus a few delays, one node
 * holds the lease and the other reads it: run three times that, then
 * exactly one is active and the other a standby naming it.
 */
static void calm(struct sim *s)
{
	const struct ha_role_cfg *c = &s->cfg;

	for (int i = 0; i < 2; i++) {
		struct node *n = &s->n[i];

		n->resume_at = n->restart_at = n->link_up_at = n->exit_by = 0;
		n->paused = false;
		n->link_down = false;
		if (!n->running || n->r.stopping)
			start(s, i);
	}
	s->loss_ppm = s->slow_ppm = 0;
	run_until(s, s->t + 3 * (c->timeout_ns + s->slow_max + c->lease_ns + c->retry_ns +
				 4 * s->dmax));
	int act = s->was_active[0] ? 0 : 1;
	if (!s->was_active[act] || s->n[act ^ 1].r.state != HA_STANDBY ||
	    strcmp(s->n[act ^ 1].r.holder, s->n[act].id) != 0) {
		dump(s);
		fail_msg("no single active after the calm");
	}
}

static void one_random_run(unsigned seed, uint64_t chaos_ns)
{
	struct ha_role_cfg c;
	struct sim s;
	uint64_t next_chaos, end;

	sim_init(&s, &CFG, seed);
	random_cfg(&s, &c);
	s.cfg = c;
	/*
	 * A renew is due lease - guard - renew before the deadline (the
	 * window): answered later than that, the active steps down at every
	 * renew (safe, but it never settles, which calm() checks). Keep two
	 * delays and two ticks well inside it; slow messages may exceed it.
	 */
	uint64_t window = c.lease_ns - c.guard_ns - c.renew_ns;
	s.dt = 25 * US;
	s.dmin = 50 * US;
	s.dmax = between(&s, 100 * US, window / 4 < 3 * MS ? window / 4 : 3 * MS);
	s.loss_ppm = (uint32_t)between(&s, 0, 50000);
	s.slow_ppm = (uint32_t)between(&s, 0, 20000);
	s.slow_max = s.dmax + between(&s, 0, 3 * c.timeout_ns / 2);
	s.bfd = rnd(&s) % 2;
	s.bfd_detect = between(&s, 3, 30) * MS;
	for (int i = 0; i < 2; i++) {
		uint64_t max_tick = c.renew_ns / 2 < MS ? c.renew_ns / 2 : MS;

		if (max_tick > window / 4)
			max_tick = window / 4;

		s.n[i].ppm = (int)between(&s, 0, 200) - 100;
		s.n[i].tick_every = between(&s, 1, max_tick / s.dt) * s.dt;
	}
	start(&s, 0);
	run_until(&s, s.t + between(&s, 0, c.lease_ns));
	start(&s, 1);
	next_chaos = s.t;
	end = s.t + chaos_ns;
	while (s.t < end) {
		if (s.t >= next_chaos) {
			chaos(&s);
			next_chaos = s.t + between(&s, 0, 4 * c.lease_ns);
		}
		timers(&s);
		step(&s);
	}
	calm(&s);
	/* the storm had takeovers to check */
	assert_true(s.takeovers >= 2);
}

static void random_runs(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 150; seed++)
		one_random_run(seed, 10000 * MS);
}

/* One long run at the defaults with many pauses past the lease. */
static void long_run(void **state)
{
	struct sim s;
	uint64_t next = 0;

	(void)state;
	sim_init(&s, &CFG, 9999);
	s.dt = 20 * US;
	s.dmin = 100 * US;
	s.dmax = 2 * MS;
	s.loss_ppm = 20000;
	s.slow_ppm = 10000;
	s.slow_max = 60 * MS;
	s.bfd = true;
	s.bfd_detect = 15 * MS;
	s.n[0].tick_every = s.n[1].tick_every = MS;
	s.n[0].ppm = 80;
	s.n[1].ppm = -80;
	start(&s, 0);
	start(&s, 1);
	while (s.t < 120000 * MS) {
		if (s.t >= next) {
			int i = (int)(rnd(&s) % 2);
			struct node *n = &s.n[i];
			if (n->running && !n->paused) {
				n->paused = true;
				n->resume_at = s.t + between(&s, LEASE / 2, 5 * LEASE);
				n->tick_first = rnd(&s) % 2;
			}
			next = s.t + between(&s, LEASE, 10 * LEASE);
		}
		timers(&s);
		step(&s);
	}
	calm(&s);
	/*
	 * About 220 pauses (every 5.5 leases on average over 120 s), half of
	 * them of the active, most of those (a pause longer than the ~80 ms
	 * its lease has left) followed by a takeover: some 90.
	 */
	assert_true(s.takeovers >= 40);
}

/*
 * Redis lost the lease (FLUSHALL): the standby's poke-less acquire, before
 * the end its last read gave, takes a lease the old holder may still act
 * on until its own deadline: the new holder renews it but acts only a lease
 * after its acquire was sent. After a release (a poke) it acts at once.
 */
static void lease_lost_by_redis(void **state)
{
	struct ha_op_result res = held(4, 100, "a");
	struct ha_role r;

	(void)state;
	make_standby(&r);         /* b's lease read at T0 with 80 ms left */
	r.next_ns = T0 + 10 * MS; /* as a poke-less early retry would */
	assert_int_equal(ha_role_tick(&r, T0 + 10 * MS), HA_OP_ACQUIRE);
	assert_true(ha_role_result(&r, &res, T0 + 11 * MS));
	assert_int_equal(r.state, HA_ACTIVE);
	assert_int_equal(r.holdoffs, 1);
	/* not active until sent + lease = T0 + 110 ms */
	assert_false(ha_role_active(&r, T0 + 11 * MS));
	assert_false(ha_role_active(&r, T0 + 110 * MS - 1));
	/* it renews meanwhile and acts once the old holder's deadline has passed */
	uint64_t t = T0 + 11 * MS;
	while (t < T0 + 110 * MS) {
		enum ha_op op = ha_role_tick(&r, t);
		if (op == HA_OP_RENEW) {
			struct ha_op_result ok = held(4, 100, "a");
			ha_role_result(&r, &ok, t + 100 * US);
		}
		t += MS;
	}
	assert_true(ha_role_active(&r, T0 + 110 * MS));

	/* a release heard: the lease was given back, act at once */
	make_standby(&r);
	ha_role_poke(&r, T0 + 10 * MS);
	assert_int_equal(ha_role_tick(&r, T0 + 10 * MS), HA_OP_ACQUIRE);
	res = held(4, 100, "a");
	assert_true(ha_role_result(&r, &res, T0 + 11 * MS));
	assert_true(ha_role_active(&r, T0 + 11 * MS));
	assert_int_equal(r.holdoffs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lease_lost_by_redis),
		cmocka_unit_test(init_acquires_first),
		cmocka_unit_test(stray_result_ignored),
		cmocka_unit_test(acquire_taken),
		cmocka_unit_test(acquire_finds_own_lease),
		cmocka_unit_test(acquire_held_by_other),
		cmocka_unit_test(standby_retry),
		cmocka_unit_test(acquire_no_holder),
		cmocka_unit_test(init_redis_down),
		cmocka_unit_test(init_timeout),
		cmocka_unit_test(standby_poke),
		cmocka_unit_test(poke_in_flight),
		cmocka_unit_test(poke_ignored),
		cmocka_unit_test(partner_down_at_lease_end),
		cmocka_unit_test(partner_down_after_lease_end),
		cmocka_unit_test(partner_hint_active),
		cmocka_unit_test(renew_extends),
		cmocka_unit_test(renew_lost),
		cmocka_unit_test(renew_failure_until_deadline),
		cmocka_unit_test(renew_timeout),
		cmocka_unit_test(pause_active),
		cmocka_unit_test(pause_or_deadline),
		cmocka_unit_test(pause_standby),
		cmocka_unit_test(stop_active),
		cmocka_unit_test(stop_release_timeout),
		cmocka_unit_test(stop_renew_in_flight),
		cmocka_unit_test(stop_standby),
		cmocka_unit_test(stop_acquire_in_flight),
		cmocka_unit_test(names),
		cmocka_unit_test(takeover_after_crash),
		cmocka_unit_test(takeover_partner_down),
		cmocka_unit_test(paused_active_resumes),
		cmocka_unit_test(renew_failure_keeps_role),
		cmocka_unit_test(release_hands_over),
		cmocka_unit_test(redis_unreachable),
		cmocka_unit_test(start_redis_down),
		cmocka_unit_test(random_runs),
		cmocka_unit_test(long_run),
	};

	return cmocka_run_group_tests_name("ha_role", tests, NULL, NULL);
}
