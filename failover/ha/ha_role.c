/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's role machine (ha_role.h): what to ask Redis and when, and
 * whether this node may act for the service address. Plain C on the
 * caller's monotonic ns.
 *
 * Safety rests on one rule: the node is active only before a local
 * deadline that is a lower bound of the lease's end on the server. Every
 * deadline is computed from the time the operation that proved the lease
 * was *sent* (the server acted on it later, so its expiry is later), and
 * from the shorter of the lease time and the remaining time the server
 * reported (an acquire that found our own lease still there did not
 * extend it). Everything else here (retries, hints, pauses) only decides
 * how soon a node asks again.
 *
 * Counters: acquires, renews and releases count the operations sent;
 * renew_failures the renews that failed or timed out; step_downs every
 * ACTIVE -> STANDBY/INIT (lost, deadline, paused; not a shutdown).
 */
#include <errno.h>
#include <string.h>

#include "failover/ha/ha_role.h"

#define HA_MS 1000000ull /* ns */

/*
 * After a failure, operations are retried "promptly": not more often than
 * every quarter of the renew interval. An active whose renews fail then
 * still gets (lease - guard - renew) / (renew / 4) more attempts before its
 * deadline (14 with the defaults 100/10/20 ms), and a Redis that answers
 * every call at once with an error sees at most 4 calls per renew
 * interval, not a loop.
 */
static uint64_t prompt_ns(const struct ha_role *r)
{
	uint64_t p = r->cfg.renew_ns / 4;

	return p > 0 ? p : 1;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void set_state(struct ha_role *r, enum ha_role_state s, enum ha_reason why, uint64_t now)
{
	r->state = s;
	r->reason = why;
	r->changed_ns = now;
	if (s != HA_ACTIVE)
		r->deadline_ns = 0;
}

/* Keep the holder a read reported; holder_read_ns is the read's send time. */
static void remember_read(struct ha_role *r, const struct ha_op_result *res, uint64_t sent)
{
	size_t n = strnlen(res->holder, sizeof(res->holder) - 1);

	memcpy(r->holder, res->holder, n);
	r->holder[n] = '\0';
	r->holder_pttl_ms = res->pttl_ms;
	/*
	 * The server read the lease after we sent the command, so the lease
	 * ends no sooner than sent + pttl: the earliest time it may be free,
	 * which is what the standby's schedule wants (ha_role.h, STANDBY).
	 */
	r->holder_read_ns = sent;
	r->epoch = res->epoch;
}

/* No reading worth anything (back from a pause, or we held the lease). */
static void forget_read(struct ha_role *r)
{
	r->holder[0] = '\0';
	r->holder_pttl_ms = -1;
	r->holder_read_ns = 0;
}

/*
 * The standby's next acquire, after an answer (or a failure) at @p now:
 * a poke makes it now; a holder read with pttl >= 0 holds it back until
 * the lease can have ended (read + pttl); with the partner's BFD Down the
 * attempt is exactly 1 ms after that (PTTL is whole ms), and at the retry
 * interval once that moment has passed.
 */
static void standby_next(struct ha_role *r, uint64_t now)
{
	uint64_t end;

	if (r->poked) {
		r->poked = false;
		r->next_ns = now;
		return;
	}
	if (r->holder_pttl_ms < 0) {
		r->next_ns = now + r->cfg.retry_ns;
		return;
	}
	/* PTTL is in whole ms, rounded down: the key lives up to 1 ms past
	 * read + pttl, and a try at that instant finds it still there (a
	 * retry later: 10 ms lost in a quarter of the takeovers measured) */
	end = r->holder_read_ns + (uint64_t)r->holder_pttl_ms * HA_MS + HA_MS;
	if (r->partner_down)
		r->next_ns = end > now ? end : now + r->cfg.retry_ns;
	else
		r->next_ns = max_u64(now + r->cfg.retry_ns, end);
}

/*
 * The end of the lease an acquire or renew sent at @p sent proved, on our
 * clock, less the guard: the server set (or found) an expiry of at least
 * sent + lease (set) or sent + pttl (found), whichever the answer says is
 * shorter.
 */
static uint64_t proved_deadline(const struct ha_role *r, const struct ha_op_result *res,
				uint64_t sent)
{
	uint64_t valid = r->cfg.lease_ns;

	if (res->pttl_ms >= 0 && (uint64_t)res->pttl_ms * HA_MS < valid)
		valid = (uint64_t)res->pttl_ms * HA_MS;
	return valid > r->cfg.guard_ns ? sent + valid - r->cfg.guard_ns : sent;
}

/*
 * The active's next renew: when the time left before the deadline falls to
 * lease - guard - renew, i.e. sent + renew after a full lease, sooner after
 * an acquire that found our own lease with less left; never sooner than
 * the prompt interval after the last send.
 */
static void active_next(struct ha_role *r, uint64_t sent)
{
	uint64_t slack = r->cfg.lease_ns > r->cfg.guard_ns + r->cfg.renew_ns
				 ? r->cfg.lease_ns - r->cfg.guard_ns - r->cfg.renew_ns
				 : 0;
	uint64_t due = r->deadline_ns > slack ? r->deadline_ns - slack : 0;

	r->next_ns = max_u64(due, sent + prompt_ns(r));
}

static bool acquire_result(struct ha_role *r, const struct ha_op_result *res, uint64_t sent,
			   uint64_t now)
{
	if (r->state == HA_RELEASING) {
		/* stopped meanwhile: give back what this acquire may have taken */
		if (res->status == 0 && res->held) {
			r->epoch = res->epoch;
			return false; /* the next tick releases */
		}
		r->reason = HA_R_RELEASED;
		return true;
	}
	if (r->state != HA_INIT && r->state != HA_STANDBY)
		return false; /* an active never acquires */
	if (res->status < 0) {
		r->poked = false; /* Redis did not answer: the retry interval */
		r->next_ns = now + r->cfg.retry_ns;
		if (r->state == HA_INIT) {
			set_state(r, HA_STANDBY, HA_R_REDIS_DOWN, now);
			return true;
		}
		return false;
	}
	if (res->held) {
		/* a lease another node held by our last read, not over yet by
		 * it, and no release heard: Redis lost it (ha_role_active()) */
		bool lost_early = !r->released && r->holder[0] != '\0' && r->holder_pttl_ms >= 0 &&
				  sent < r->holder_read_ns + (uint64_t)r->holder_pttl_ms * HA_MS;
		r->active_from_ns = lost_early ? sent + r->cfg.lease_ns : 0;
		if (lost_early)
			r->holdoffs++;
		r->released = false;
		remember_read(r, res, sent);
		r->poked = false;
		set_state(r, HA_ACTIVE, HA_R_ACQUIRED, now);
		r->takeovers++;
		r->deadline_ns = proved_deadline(r, res, sent);
		active_next(r, sent);
		return true;
	}
	if (res->holder[0] == '\0') {
		/* absent yet not taken: not what the script does; ask again soon */
		remember_read(r, res, sent);
		r->holder_pttl_ms = -2;
		r->next_ns = now + prompt_ns(r);
		return false;
	}
	remember_read(r, res, sent);
	standby_next(r, now);
	if (r->state == HA_INIT) {
		set_state(r, HA_STANDBY, HA_R_HELD_BY_OTHER, now);
		return true;
	}
	if (r->reason == HA_R_REDIS_DOWN) {
		/* standby since Redis could not be read: now it is known why */
		r->reason = HA_R_HELD_BY_OTHER;
		return true;
	}
	return false;
}

static bool renew_result(struct ha_role *r, const struct ha_op_result *res, uint64_t sent,
			 uint64_t now)
{
	switch (r->state) {
	case HA_ACTIVE:
		if (res->status < 0) {
			/* keep the role until the deadline; ask again promptly */
			r->renew_failures++;
			r->next_ns = max_u64(now, sent + prompt_ns(r));
			return false;
		}
		if (res->held) {
			/*
			 * This renew's PEXPIRE replaced the lease's expiry on the
			 * server: the deadline is what it proved, even when that is
			 * sooner than the last one (a reload that shortened the
			 * lease, or someone's PEXPIRE): keeping the later one would
			 * outlast the lease on the server.
			 */
			r->deadline_ns = proved_deadline(r, res, sent);
			active_next(r, sent);
			return false;
		}
		/* the lease is gone or another node's: stop acting at once */
		remember_read(r, res, sent);
		set_state(r, HA_STANDBY, HA_R_LOST, now);
		r->step_downs++;
		standby_next(r, now);
		return true;
	case HA_RELEASING:
		if (res->status == 0 && !res->held) {
			r->reason = HA_R_RELEASED; /* nothing of ours to give back */
			return true;
		}
		return false; /* ours, or unknown: the next tick releases */
	case HA_STANDBY:
		/* stepped down at the deadline while this renew was out */
		if (res->status < 0)
			r->renew_failures++;
		else if (res->held)
			r->next_ns = now; /* still ours: the acquire will find it so */
		else {
			remember_read(r, res, sent);
			standby_next(r, now);
		}
		return false;
	case HA_INIT:
		/* back from a pause: the acquire due now reads the lease */
		if (res->status < 0)
			r->renew_failures++;
		return false;
	}
	return false;
}

/* The outcome of operation @p op sent at @p sent; nothing is pending any more. */
static bool handle_result(struct ha_role *r, enum ha_op op, uint64_t sent,
			  const struct ha_op_result *res, uint64_t now)
{
	switch (op) {
	case HA_OP_ACQUIRE:
		return acquire_result(r, res, sent, now);
	case HA_OP_RENEW:
		return renew_result(r, res, sent, now);
	case HA_OP_RELEASE:
		/* given back, or not (the lease then ends by itself): done either way */
		r->reason = HA_R_RELEASED;
		return true;
	case HA_OP_NONE:
		break;
	}
	return false;
}

void ha_role_init(struct ha_role *r, const struct ha_role_cfg *cfg, uint64_t now_ns)
{
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	set_state(r, HA_INIT, HA_R_NONE, now_ns);
	forget_read(r);
	r->pending = HA_OP_NONE;
	r->next_ns = now_ns;
	r->last_tick_ns = now_ns;
}

/*
 * A gap between ticks long enough that the node's reading of the lease
 * is stale. An active is "paused" when its deadline passed during the gap
 * although at the last tick it was more than one renew interval away: a
 * node that kept ticking would have renewed (or seen the deadline come)
 * in between. A standby is, when the gap exceeds the lease: whatever it
 * read about the holder may have ended and begun again since.
 */
static void see_gap(struct ha_role *r, uint64_t prev, uint64_t now)
{
	uint64_t gap = now - prev;

	if (r->state == HA_ACTIVE && now >= r->deadline_ns) {
		bool paused = prev + r->cfg.renew_ns < r->deadline_ns;

		r->step_downs++;
		forget_read(r);
		if (paused) {
			set_state(r, HA_INIT, HA_R_PAUSED, now);
			r->next_ns = now;
		} else {
			set_state(r, HA_STANDBY, HA_R_DEADLINE, now);
			r->next_ns = now + r->cfg.retry_ns;
		}
	} else if (r->state == HA_STANDBY && gap > r->cfg.lease_ns) {
		forget_read(r);
		set_state(r, HA_INIT, HA_R_PAUSED, now);
		r->next_ns = now;
	}
}

enum ha_op ha_role_tick(struct ha_role *r, uint64_t now_ns)
{
	uint64_t prev = r->last_tick_ns;
	enum ha_op op = HA_OP_NONE;

	if (now_ns < prev)
		now_ns = prev; /* a clock that went back: time stands still */
	r->last_tick_ns = now_ns;

	if (r->pending != HA_OP_NONE && now_ns - r->pending_sent_ns >= r->cfg.timeout_ns) {
		struct ha_op_result fail = { .status = -ETIMEDOUT, .pttl_ms = -2 };
		enum ha_op timed_out = r->pending;

		r->op_timeouts++;
		r->pending = HA_OP_NONE;
		handle_result(r, timed_out, r->pending_sent_ns, &fail, now_ns);
	}
	see_gap(r, prev, now_ns);

	if (r->pending != HA_OP_NONE)
		return HA_OP_NONE;
	switch (r->state) {
	case HA_INIT:
	case HA_STANDBY:
		if (now_ns >= r->next_ns) {
			op = HA_OP_ACQUIRE;
			r->acquires++;
		}
		break;
	case HA_ACTIVE:
		if (now_ns >= r->next_ns) {
			op = HA_OP_RENEW;
			r->renews++;
		}
		break;
	case HA_RELEASING:
		if (r->reason != HA_R_RELEASED) {
			op = HA_OP_RELEASE;
			r->releases++;
		}
		break;
	}
	if (op != HA_OP_NONE) {
		r->pending = op;
		r->pending_sent_ns = now_ns;
	}
	return op;
}

bool ha_role_result(struct ha_role *r, const struct ha_op_result *res, uint64_t now_ns)
{
	enum ha_op op = r->pending;

	if (op == HA_OP_NONE)
		return false; /* timed out already, or never asked: not ours */
	r->pending = HA_OP_NONE;
	return handle_result(r, op, r->pending_sent_ns, res, now_ns);
}

void ha_role_partner(struct ha_role *r, bool down, uint64_t now_ns)
{
	r->partner_down = down;
	/*
	 * A standby waiting for a lease it read tries exactly 1 ms after the
	 * lease can end (PTTL is whole ms), where without the hint it would
	 * try at the end (likely a little early, then a retry later) or a
	 * retry after its last answer; at once when that moment has passed.
	 * The hint only moves the attempt; the acquire decides. An attempt
	 * due already (a poke) stays due; with an operation in flight, its
	 * answer schedules with the hint (standby_next()).
	 */
	if (down && r->state == HA_STANDBY && r->pending == HA_OP_NONE && r->holder_pttl_ms >= 0 &&
	    r->next_ns > now_ns) {
		uint64_t at = r->holder_read_ns + (uint64_t)r->holder_pttl_ms * HA_MS + HA_MS;

		r->next_ns = at > now_ns ? at : now_ns;
	}
}

void ha_role_poke(struct ha_role *r, uint64_t now_ns)
{
	if (r->state != HA_INIT && r->state != HA_STANDBY)
		return;
	r->released = true;
	if (r->pending != HA_OP_NONE)
		r->poked = true; /* that read may predate the release: ask again after it */
	else
		r->next_ns = now_ns;
}

void ha_role_stop(struct ha_role *r, uint64_t now_ns)
{
	bool owe;

	if (r->stopping)
		return;
	r->stopping = true;
	/*
	 * An active gives the lease back; so does a node whose operation in
	 * flight may have taken or kept it (decided when it ends); any other
	 * has nothing to give.
	 */
	owe = r->state == HA_ACTIVE || r->pending != HA_OP_NONE;
	set_state(r, HA_RELEASING, owe ? HA_R_NONE : HA_R_RELEASED, now_ns);
}

bool ha_role_active(const struct ha_role *r, uint64_t now_ns)
{
	return r->state == HA_ACTIVE && now_ns < r->deadline_ns && now_ns >= r->active_from_ns;
}

const char *ha_role_state_name(enum ha_role_state s)
{
	static const char *const names[] = { "init", "standby", "active", "releasing" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *ha_reason_name(enum ha_reason r)
{
	static const char *const names[] = { "none",   "acquired",      "lost",     "deadline",
					     "paused", "held_by_other", "released", "redis_down" };

	return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}
