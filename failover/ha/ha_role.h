/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's role, decided by a lease in Redis with a fencing token:
 * plain C, no DPDK, no Redis and no clock (the caller passes monotonic ns),
 * so that it is unit-tested on simulated time.
 *
 * The lease is a Redis key with an expiry, set only while absent, renewed
 * only by its holder (server-side scripts, ha_redis.h); every acquisition
 * increments the pair's epoch, the fencing token that goes with the
 * holder's writes. This machine decides what to ask Redis and when, and
 * what the node may do meanwhile:
 *
 *   HA_INIT      start-up, or back from a pause longer than the lease: the
 *                lease has not been read since. Never active; it reads
 *                (tries to acquire) before anything else.
 *   HA_STANDBY   another node holds the lease, or nobody does and Redis
 *                cannot be reached. Not active.
 *   HA_ACTIVE    this node holds the lease, and its local deadline has not
 *                passed: it answers for the service address and forwards.
 *   HA_RELEASING shutting down: the lease is being given back (not active).
 *
 * Local deadline. A renew (or acquire) sent at local time t_send that
 * succeeds makes the lease valid on the server until at least
 * t_send + lease (the server set the expiry after it received the
 * command, which was after t_send). The node stays active only until
 * t_send + lease - guard on its own monotonic clock: the guard covers the
 * rate difference of the two clocks and the time between the deadline
 * and the data path seeing it. Hence an old active stops before the
 * server lets anybody else acquire, and the overlap of two actives is at
 * most max(0, clock drift over one lease - guard): none when the guard
 * exceeds the drift. ha_role_deadline_ns() is what the data path compares
 * its own TSC clock with (it fences itself even when the control thread
 * is late).
 *
 * One operation is in flight at a time: ha_role_tick() returns the next
 * one to send (and records when), the caller sends it and reports its
 * outcome with ha_role_result(). An operation with no answer after
 * cfg.timeout ns counts as failed (the caller cancels it, ha_redis.h).
 */
#ifndef VBRD_HA_ROLE_H
#define VBRD_HA_ROLE_H

#include <stdbool.h>
#include <stdint.h>

enum ha_role_state { HA_INIT, HA_STANDBY, HA_ACTIVE, HA_RELEASING };

/** The Redis operation the machine asks for (ha_redis.h has one call for each). */
enum ha_op {
	HA_OP_NONE,
	HA_OP_ACQUIRE, /* take the lease if absent (new epoch), else read holder, epoch, pttl */
	HA_OP_RENEW,   /* extend our lease: only if we still hold it with our epoch */
	HA_OP_RELEASE, /* delete our lease (shutdown): only if we still hold it */
};

/** Why the role last changed (show ha, history). */
enum ha_reason {
	HA_R_NONE,
	HA_R_ACQUIRED,      /* the lease was absent and this node took it */
	HA_R_LOST,          /* a renew found the lease gone or held by another node */
	HA_R_DEADLINE,      /* no renew succeeded before the local deadline: stepped down */
	HA_R_PAUSED,        /* the node was paused (frozen) past its deadline: back to INIT */
	HA_R_HELD_BY_OTHER, /* a read found another node's lease */
	HA_R_RELEASED,      /* shutdown: gave the lease back */
	HA_R_REDIS_DOWN,    /* INIT with Redis unreachable: standby until it can read */
};

struct ha_role_cfg {
	uint64_t lease_ns;   /* lease time (PX of the key) */
	uint64_t renew_ns;   /* active: interval between renews */
	uint64_t retry_ns;   /* standby: interval between acquire attempts */
	uint64_t guard_ns;   /* deadline = t_send + lease - guard (see above); < lease - renew */
	uint64_t timeout_ns; /* an operation with no answer by then failed */
};

/** Outcome of one operation (ha_redis.h fills it from the script's reply). */
struct ha_op_result {
	int status;      /* 0: Redis answered; negative errno: timeout, link down, error reply */
	bool held;       /* after the operation, this node holds the lease */
	uint64_t epoch;  /* the pair's epoch (ours when held) */
	char holder[64]; /* node id holding the lease, "" when nobody */
	int64_t pttl_ms; /* the lease's remaining time on the server, ms; -2 when absent */
};

struct ha_role {
	struct ha_role_cfg cfg;
	enum ha_role_state state;
	enum ha_reason reason;   /* of the last change of state */
	uint64_t changed_ns;     /* when state last changed */
	uint64_t epoch;          /* ours while active; the last epoch seen otherwise */
	uint64_t deadline_ns;    /* active: the local deadline; 0 otherwise */
	char holder[64];         /* last known holder ("" = none or unknown) */
	int64_t holder_pttl_ms;  /* as last read; -1: no reading (start-up, after a pause) */
	uint64_t holder_read_ns; /* when it was read: the read's send time (the lease
	                          * ends no sooner than holder_read_ns + holder_pttl_ms) */
	enum ha_op pending;      /* in flight, or HA_OP_NONE */
	uint64_t pending_sent_ns;
	uint64_t next_ns;        /* next operation due */
	uint64_t last_tick_ns;   /* to see a pause (a gap longer than the deadline allows) */
	bool stopping;           /* ha_role_stop() was called */
	bool partner_down;       /* the partner's BFD session is Down: acquire at the lease's end */
	bool released;           /* ha_role_poke() since the last acquire: a release said the
	                          * lease is free (not a lease Redis lost) */
	uint64_t active_from_ns; /* active: not before this (a lease Redis lost, see
	                          * ha_role_active()); 0: at once */
	uint64_t holdoffs;       /* acquisitions of a lease Redis had lost early */
	bool poked;              /* ha_role_poke() with an acquire in flight: whatever that
	                          * reads, the next acquire is due at once */
	/* counters */
	uint64_t acquires, renews, renew_failures, releases, step_downs, op_timeouts;
	uint64_t takeovers; /* STANDBY/INIT -> ACTIVE */
};

/**
 * Start in HA_INIT with nothing in flight; the first tick asks for an
 * acquire. @p cfg is copied; times in ns.
 */
void ha_role_init(struct ha_role *r, const struct ha_role_cfg *cfg, uint64_t now_ns);

/**
 * Advance to @p now_ns (monotonic ns): step down at the deadline, see a
 * pause (a gap since the last tick that let the deadline pass: state
 * becomes HA_INIT, reason HA_R_PAUSED, and the lease is read before
 * anything else), fail an operation older than cfg.timeout_ns.
 *
 * @return the operation to send now (the caller sends it and later calls
 *         ha_role_result()), or HA_OP_NONE. The returned op is recorded as
 *         in flight at @p now_ns.
 */
enum ha_op ha_role_tick(struct ha_role *r, uint64_t now_ns);

/**
 * The outcome of the operation in flight, @p res, at @p now_ns. For a
 * successful acquire or renew the deadline is computed from the time the
 * operation was sent (pending_sent_ns), not from now, and from the
 * shorter of the lease time and res->pttl_ms (an acquire that finds this
 * node's own lease does not extend it). With nothing in flight (it timed
 * out in ha_role_tick()) the result is ignored.
 * @return true when the state changed, or when a shutdown's release ended
 *         (reason HA_R_RELEASED); r->reason says why
 */
bool ha_role_result(struct ha_role *r, const struct ha_op_result *res, uint64_t now_ns);

/** The partner's BFD session went Down (@p down) or Up: a hint, never a licence. */
void ha_role_partner(struct ha_role *r, bool down, uint64_t now_ns);

/**
 * Something says the lease may be free now (the partner published that it
 * released it): a standby's next tick acquires at once.
 */
void ha_role_poke(struct ha_role *r, uint64_t now_ns);

/**
 * Shutdown: an active node stops being active at once (state
 * HA_RELEASING) and its next tick asks for HA_OP_RELEASE.
 */
void ha_role_stop(struct ha_role *r, uint64_t now_ns);

/**
 * True while this node may act for the service address at @p now_ns:
 * active, before its deadline, and past active_from_ns. The last is set
 * when an acquire took a lease that the last read said was another
 * node's and not over yet, with no release heard: Redis lost the key
 * (FLUSHALL, a restart without persistence, a failover to a replica that
 * missed it), and its holder may act on it until its own deadline, which
 * is at most a lease after its last renew, itself before our acquire. So
 * the node holds (and renews) the lease for one lease before it acts.
 */
bool ha_role_active(const struct ha_role *r, uint64_t now_ns);

/** The local deadline (ns) the data path checks, 0 when not active. */
static inline uint64_t ha_role_deadline_ns(const struct ha_role *r)
{
	return r->state == HA_ACTIVE ? r->deadline_ns : 0;
}

/** "init", "standby", "active", "releasing". */
const char *ha_role_state_name(enum ha_role_state s);
/** "acquired", "lost", ... */
const char *ha_reason_name(enum ha_reason r);

#endif
