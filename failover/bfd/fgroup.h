/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a failover group does when its members' health changes: the
 * decision alone, in plain C (no DPDK, no clock), so that it is
 * unit-tested on simulated time. The BFD worker calls it in the loop
 * iteration where a member's session changed (or a hold-down ends) and
 * makes the one atomic store that moves the group (bfd_worker.c).
 *
 * - active-standby: the active member going down while the other is up
 *   moves the group; with `revertive`, it returns to member 0 once member
 *   0 has been up for the whole hold-down without a break (a flap, even
 *   one too short to be seen as down, restarts the wait).
 * - load-balance: both members while both are usable; one leaves in one
 *   step; it comes back after the hold-down.
 * - a member whose peer signalled AdminDown (RFC 5882 §3.2) is no failure:
 *   it stays where it is, but is not chosen anew.
 * - a member's first up ever (start-up, a new group) needs no hold-down.
 * - both members down: nothing moves.
 */
#ifndef VBRD_FGROUP_H
#define VBRD_FGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "failover/bfd/bfd_config.h"

#define FGROUP_SEL_0    0u /* every flow to member 0 */
#define FGROUP_SEL_1    1u /* every flow to member 1 */
#define FGROUP_SEL_BOTH 2u /* load-balance: the flow hash picks */

/** A member's health, from its BFD session. */
enum fgroup_health {
	FGROUP_DOWN = 0, /* its session is not Up (or AdminDown locally) */
	FGROUP_ADMIN,    /* Down because the peer signalled AdminDown: no failure */
	FGROUP_UP,       /* its session is Up, or it has none */
};

/** Why a group changed member (history, log). */
enum fgroup_reason {
	FGROUP_REASON_NONE = 0,
	FGROUP_REASON_DOWN,     /* the member's BFD went Down (its diag says why) */
	FGROUP_REASON_FAILBACK, /* member 0 was Up for the hold-down: revertive */
	FGROUP_REASON_RESTORED, /* load-balance: a member is back after the hold-down */
	FGROUP_REASON_STARTUP,  /* a member came Up for the first time: no hold-down */
};

/** The memory a group's decisions keep between calls. */
struct fgroup_memory {
	uint64_t hold_start; /* ns: the member to restore is up since (0: no wait running) */
	uint64_t hold_ups;   /* that member's `ups` when the wait began */
	bool seen_up[2];     /* the member has been up: a return needs the hold-down */
};

/** A group's configuration as the decision needs it. */
struct fgroup_policy {
	enum cfg_fgroup_mode mode;
	bool revertive;        /* active-standby: return to member 0 */
	uint64_t hold_down_ns; /* how long a returning member must stay up, ns */
};

/** The outcome of one decision. */
struct fgroup_decision {
	bool move;      /* sel changes to `to` */
	uint32_t to;    /* FGROUP_SEL_* */
	uint8_t reason; /* enum fgroup_reason */
	int failed;     /* FGROUP_REASON_DOWN: the member that failed (0/1), else -1 */
	uint64_t wake;  /* ns: call again then (a hold-down ends), UINT64_MAX: on a change only */
};

/**
 * Decide group membership now.
 *
 * @param p     the group's mode, revertive and hold-down
 * @param mem   its memory (updated)
 * @param sel   the selection in force (FGROUP_SEL_*)
 * @param h     each member's health
 * @param ups   each member's count of transitions to Up (its session's
 *              counter; a change since a hold-down began is a flap)
 * @param now   ns, monotonic
 * @param d     the outcome
 */
void fgroup_decide(const struct fgroup_policy *p, struct fgroup_memory *mem, uint32_t sel,
		   const enum fgroup_health h[2], const uint64_t ups[2], uint64_t now,
		   struct fgroup_decision *d);

#endif
