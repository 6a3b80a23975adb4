/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failover group decisions (failover/bfd/fgroup.c) on simulated time: the
 * switch on a failure, AdminDown moving nothing (RFC 5882 §3.2), revertive
 * failback after the hold-down and not before, flap damping (a member
 * flapping every 200 ms never brings the group back), non-revertive,
 * load-balance out in one step and back after the hold-down, start-up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "failover/bfd/fgroup.h"

#define MS 1000000ull

struct sim {
	struct fgroup_policy p;
	struct fgroup_memory mem;
	uint32_t sel;
	enum fgroup_health h[2];
	uint64_t ups[2];
	unsigned moves;
	uint8_t last_reason;
	int last_failed;
};

static void sim_init(struct sim *s, enum cfg_fgroup_mode mode, bool revertive, uint64_t hold_ms)
{
	*s = (struct sim){ .p = { mode, revertive, hold_ms * MS } };
	s->sel = mode == CFG_FG_LOAD_BALANCE ? FGROUP_SEL_BOTH : FGROUP_SEL_0;
}

/* Set member @p m's health at @p t and decide, as the worker does on a change. */
static void sim_set(struct sim *s, unsigned m, enum fgroup_health h, uint64_t t)
{
	struct fgroup_decision d;

	if (h == FGROUP_UP && s->h[m] != FGROUP_UP)
		s->ups[m]++;
	s->h[m] = h;
	fgroup_decide(&s->p, &s->mem, s->sel, s->h, s->ups, t, &d);
	if (d.move) {
		s->sel = d.to;
		s->moves++;
		s->last_reason = d.reason;
		s->last_failed = d.failed;
	}
}

/* Decide at every ms from @p from to @p to (the worker's hold-down wake-ups, densely). */
static void sim_run(struct sim *s, uint64_t from, uint64_t to)
{
	for (uint64_t t = from; t <= to; t += MS) {
		struct fgroup_decision d;
		fgroup_decide(&s->p, &s->mem, s->sel, s->h, s->ups, t, &d);
		if (d.move) {
			s->sel = d.to;
			s->moves++;
			s->last_reason = d.reason;
		}
	}
}

/* Both members come Up at start-up, member 1 first: no hold-down for either's first Up. */
static void startup_no_hold(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, true, 1000);
	sim_set(&s, 1, FGROUP_UP, 10 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1);
	assert_int_equal(s.last_reason, FGROUP_REASON_STARTUP);
	sim_set(&s, 0, FGROUP_UP, 11 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_0);
	assert_int_equal(s.last_reason, FGROUP_REASON_STARTUP);
	assert_int_equal(s.moves, 2);
}

static void up_both(struct sim *s)
{
	sim_set(s, 0, FGROUP_UP, 1 * MS);
	sim_set(s, 1, FGROUP_UP, 2 * MS);
	s->moves = 0;
}

/* Non-revertive too: member 0's first Up takes the group from member 1,
 * which only had it for coming Up first (a race of two handshakes). */
static void startup_non_revertive(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, false, 1000);
	sim_set(&s, 1, FGROUP_UP, 10 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1);
	sim_set(&s, 0, FGROUP_UP, 12 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_0);
	assert_int_equal(s.last_reason, FGROUP_REASON_STARTUP);
}

/* The active member fails: the group moves at once, naming it. */
static void failure_moves(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, true, 1000);
	up_both(&s);
	sim_set(&s, 0, FGROUP_DOWN, 100 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1);
	assert_int_equal(s.last_reason, FGROUP_REASON_DOWN);
	assert_int_equal(s.last_failed, 0);
	/* the standby failing moves nothing */
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, true, 1000);
	up_both(&s);
	sim_set(&s, 1, FGROUP_DOWN, 100 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_0);
	assert_int_equal(s.moves, 0);
}

/* RFC 5882 §3.2: the peer's AdminDown moves nothing, and is not a target. */
static void admin_down_moves_nothing(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, true, 1000);
	up_both(&s);
	sim_set(&s, 0, FGROUP_ADMIN, 100 * MS);
	sim_run(&s, 100 * MS, 3000 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_0);
	assert_int_equal(s.moves, 0);
	/* now the other fails: the group stays (member 0 is no failure, and
	 * member 1 is no better) */
	sim_set(&s, 1, FGROUP_DOWN, 3001 * MS);
	assert_int_equal(s.moves, 0);
	/* on the backup, a member 0 in AdminDown is not failed back to */
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, true, 10);
	up_both(&s);
	sim_set(&s, 0, FGROUP_DOWN, 100 * MS);
	sim_set(&s, 0, FGROUP_ADMIN, 200 * MS);
	sim_run(&s, 200 * MS, 2000 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1);
	assert_int_equal(s.moves, 1);
}

/* Revertive: back to member 0 exactly when it has been Up for the hold-down. */
static void failback_after_hold_down(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, true, 1000);
	up_both(&s);
	sim_set(&s, 0, FGROUP_DOWN, 100 * MS);
	sim_set(&s, 0, FGROUP_UP, 500 * MS);
	sim_run(&s, 500 * MS, 1499 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1); /* 999 ms Up: not yet */
	sim_run(&s, 1500 * MS, 1500 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_0);
	assert_int_equal(s.last_reason, FGROUP_REASON_FAILBACK);
	assert_int_equal(s.moves, 2);
}

/* A member flapping every 200 ms never brings the group back; once it stays Up, one failback. */
static void flap_damping(void **state)
{
	struct sim s;
	uint64_t t = 100 * MS;
	(void)state;
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, true, 1000);
	up_both(&s);
	sim_set(&s, 0, FGROUP_DOWN, t);
	assert_int_equal(s.moves, 1);
	for (int i = 0; i < 25; i++) { /* 10 s of flapping: 100 ms up, 100 ms down */
		sim_set(&s, 0, FGROUP_UP, t += 100 * MS);
		sim_run(&s, t, t + 99 * MS);
		sim_set(&s, 0, FGROUP_DOWN, t += 100 * MS);
	}
	assert_int_equal(s.moves, 1);
	assert_int_equal(s.sel, FGROUP_SEL_1);
	sim_set(&s, 0, FGROUP_UP, t += 100 * MS);
	sim_run(&s, t, t + 999 * MS - 1);
	assert_int_equal(s.moves, 1);
	sim_run(&s, t + 1000 * MS, t + 1000 * MS);
	assert_int_equal(s.moves, 2);
	assert_int_equal(s.sel, FGROUP_SEL_0);
}

/* A flap too short to be seen as Down (Down and Up again between two
 * decisions) still restarts the hold-down: the Up count moved. */
static void unseen_flap_restarts_hold(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, true, 1000);
	up_both(&s);
	sim_set(&s, 0, FGROUP_DOWN, 100 * MS);
	sim_set(&s, 0, FGROUP_UP, 200 * MS); /* the wait starts at 200 ms */
	s.ups[0]++;                          /* down and up again, unseen, at 900 ms */
	sim_run(&s, 900 * MS, 1899 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1);
	sim_run(&s, 1900 * MS, 1900 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_0);
}

static void non_revertive_stays(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, false, 1000);
	up_both(&s);
	sim_set(&s, 0, FGROUP_DOWN, 100 * MS);
	sim_set(&s, 0, FGROUP_UP, 200 * MS);
	sim_run(&s, 200 * MS, 10000 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1);
	/* until member 1 fails */
	sim_set(&s, 1, FGROUP_DOWN, 10001 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_0);
	assert_int_equal(s.moves, 2);
}

/* Both down: nothing moves; the first to return takes the traffic. */
static void both_down(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, CFG_FG_ACTIVE_STANDBY, true, 1000);
	up_both(&s);
	sim_set(&s, 0, FGROUP_DOWN, 100 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1);
	sim_set(&s, 1, FGROUP_DOWN, 101 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1);
	sim_set(&s, 0, FGROUP_UP, 200 * MS); /* member 1 down: member 0 at once, no hold-down */
	assert_int_equal(s.sel, FGROUP_SEL_0);
}

/* Load-balance: one step out, back after the hold-down, AdminDown stays in. */
static void load_balance(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, CFG_FG_LOAD_BALANCE, true, 1000);
	up_both(&s);
	assert_int_equal(s.sel, FGROUP_SEL_BOTH);
	sim_set(&s, 1, FGROUP_DOWN, 100 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_0);
	assert_int_equal(s.last_failed, 1);
	sim_set(&s, 1, FGROUP_UP, 200 * MS);
	sim_run(&s, 200 * MS, 1199 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_0);
	sim_run(&s, 1200 * MS, 1200 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_BOTH);
	assert_int_equal(s.last_reason, FGROUP_REASON_RESTORED);
	sim_set(&s, 0, FGROUP_ADMIN, 2000 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_BOTH);
	sim_set(&s, 0, FGROUP_DOWN, 2100 * MS);
	assert_int_equal(s.sel, FGROUP_SEL_1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(startup_no_hold),
		cmocka_unit_test(startup_non_revertive),
		cmocka_unit_test(failure_moves),
		cmocka_unit_test(admin_down_moves_nothing),
		cmocka_unit_test(failback_after_hold_down),
		cmocka_unit_test(flap_damping),
		cmocka_unit_test(unseen_flap_restarts_hold),
		cmocka_unit_test(non_revertive_stays),
		cmocka_unit_test(both_down),
		cmocka_unit_test(load_balance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
