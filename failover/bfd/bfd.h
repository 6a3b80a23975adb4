/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bfd feature: BFD sessions run by one worker (the BFD worker) in
 * its poll loop, and failover groups that the same loop switches the
 * moment a member's session goes Down.
 *
 * Two kinds of objects, so that a reload never restarts a session:
 *
 * - run-time objects (struct bfd_session_rt, struct fgroup_rt) live as
 *   long as some forwarding state lists them, found again by key on a
 *   reload. The BFD worker alone writes their protocol state; the
 *   control thread reads it for `show` (torn reads of counters are fine)
 *   and learns of changes through the event ring.
 * - per-generation objects (struct bfd_gen in fwd_state.feature[]) say
 *   how the configuration of that generation uses them: addresses,
 *   parameters, which FIB values a group's members forward to.
 *
 * Files: bfd_module.c (module: build, events, log), bfd_worker.c (the
 * worker hook: RX, timers, TX, group decisions), fgroup.c (a group's
 * decision, plain C), fgroup_fib.c (the FIB kind: forwarding to a group),
 * bfd_config.c (sections bfd and failover_groups), bfd_show.c (vbrctl,
 * telemetry).
 */
#ifndef VBRD_BFD_H
#define VBRD_BFD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_ring.h>

#include "core/config.h"
#include "core/tsc.h"
#include "core/module.h"
#include "failover/bfd/bfd_proto.h"
#include "failover/bfd/bfd_config.h"
#include "failover/bfd/fgroup.h"
#include "pipeline/fwd.h"

struct fwd_state;
struct worker;

/* ---- run-time objects ------------------------------------------------- */

/*
 * Run-time session slots: twice the sessions a config may have, since a
 * reload holds the running sessions and the new ones at once (a config of
 * BFD_MAX_SESSIONS that renames one needs one more slot).
 */
#define BFD_SLOTS (2 * BFD_MAX_SESSIONS)

/** What makes two configured sessions the same session across a reload. */
struct bfd_session_key {
	char name[CFG_NAME_MAX];
	enum cfg_bfd_kind kind;
	char where[CFG_NAME_MAX]; /* interface or path group name ("" multihop) */
	struct cfg_addr local, peer;
};

/** A BFD session that lives across reloads. */
struct bfd_session_rt {
	struct bfd_session_key key;
	uint16_t slot;  /* index into bfd_sessions[]: the low bits of the discriminator */
	uint16_t sport; /* our UDP source port (RFC 5881 §4: 49152..65535) */
	uint32_t refs;  /* forwarding states that list it (control thread) */
	bool started;   /* the BFD worker ran bfd_session_init() */
	uint32_t seed;
	/* written by the BFD worker only */
	struct bfd_session s;
	uint64_t up_since;      /* ns (tsc_now_ns) of the last transition to Up, 0 while not Up */
	bool peer_admin;        /* Down since the peer signalled AdminDown, not Up again yet */
	uint64_t applied_gen;   /* generation whose parameters s.params holds */
	uint64_t tx_unresolved; /* packets sent to the control thread while the peer's MAC resolves */
	uint64_t tx_errors;     /* no mbuf, no route */
	uint64_t rx_late_max_ns; /* longest gap between two accepted packets while Up */
};

/** A failover group that lives across reloads. */
struct fgroup_rt {
	char name[CFG_NAME_MAX];
	char members[2][160];      /* member descriptions: a change makes a new group */
	enum cfg_fgroup_mode mode; /* so does a change of mode (its selection means another thing) */
	uint32_t refs;             /* forwarding states that list it (control thread) */
	/* read by the data path; written by the BFD worker (or the control
	 * thread before the group is published) */
	_Atomic uint32_t sel; /* FGROUP_SEL_* */
	/* the BFD worker's */
	struct fgroup_memory mem; /* what its decisions remember (fgroup.h) */
	uint64_t switches;
	uint64_t last_switch; /* ns */
};

/* ---- one generation ---------------------------------------------------- */

struct bfd_sess {
	struct bfd_session_rt *rt;
	struct bfd_params params;
	enum cfg_bfd_kind kind;
	uint16_t iface;      /* single-hop: egress interface; tunnel: the tunnel's interface */
	uint16_t path_group; /* tunnel kind */
	uint16_t dport;      /* 3784 or 4784 */
	uint8_t min_ttl;     /* received TTL/hop limit at least (255 single-hop) */
	struct cfg_addr local, peer;
};

#define FGROUP_NO_VALUE UINT32_MAX

struct fgroup_member {
	uint32_t value4, value6; /* FIB value it forwards to (FGROUP_NO_VALUE: none) */
	int sess;                /* index into bfd_gen.sess, -1: no BFD (always up) */
};

struct fgroup {
	struct fgroup_rt *rt;
	enum cfg_fgroup_mode mode;
	bool revertive;
	uint64_t hold_down_ns;
	struct fgroup_member m[2];
};

/** The feature's part of a forwarding state (fwd_feature(st, &bfd_module)). */
struct bfd_gen {
	int nb_sess;
	struct bfd_sess *sess;
	int nb_groups;
	struct fgroup *groups;
	uint16_t sess_by_slot[BFD_SLOTS]; /* slot → index into sess, UINT16_MAX: none */
	int nb_held;
	uint32_t *held; /* FIB values whose id references it holds */
};

extern struct vbrd_module bfd_module;

/** The feature's data in @p st (never NULL once built). */
static inline const struct bfd_gen *bfd_gen_of(const struct fwd_state *st)
{
	return fwd_feature(st, &bfd_module);
}

/** Run-time sessions by slot (control thread writes, before publishing). */
extern struct bfd_session_rt *bfd_sessions[BFD_SLOTS];

/** The worker (struct worker.id) that runs every BFD session and group decision. */
#define BFD_WORKER 0

/* ---- events: BFD worker → control thread ------------------------------ */

enum bfd_change_type { BFD_CHANGE_SESSION = 1, BFD_CHANGE_GROUP };

struct bfd_change {
	char name[CFG_NAME_MAX]; /* the session's or the group's */
	uint8_t type;            /* enum bfd_change_type */
	uint8_t old, new;        /* session: enum bfd_state; group: FGROUP_SEL_* */
	uint8_t diag;            /* session: bfd.LocalDiag; group: the failed member's diag */
	uint8_t reason;          /* group: enum fgroup_reason */
	uint8_t remote_state;    /* session: the peer's state then */
	uint64_t t;              /* ns (tsc_now_ns): when it happened */
	uint64_t t_detect;       /* group: when the member's change was detected (ns) */
};

/** The longest time between two turns of the BFD worker's loop, ns (it writes, show reads). */
extern uint64_t bfd_loop_gap_max_ns;

/** Events the BFD worker produced (SP/SC; full: counted in bfd_changes_lost). */
extern struct rte_ring *bfd_changes;
extern _Atomic uint64_t bfd_changes_lost;

/* ---- worker side (bfd_worker.c) ---------------------------------------- */

/**
 * A BFD control packet for an own address (local service of UDP 3784 and
 * 4784): checked and given to its session, on the BFD worker (other
 * workers pass it through bfd_rx_ring).
 */
struct local_pkt;
extern struct rte_ring *bfd_rx_ring; /* other workers → BFD worker (MP/SC) */

/* ---- history (bfd_module.c, control thread) ------------------------------ */

#define BFD_HISTORY 1024

/** The last BFD_HISTORY events (sessions and groups), oldest first, into @p out. */
unsigned bfd_history_get(struct bfd_change *out, unsigned cap);

/** "none", "bfd_down", "failback", "restored", "startup" (enum fgroup_reason, fgroup.h). */
const char *fgroup_reason_name(uint8_t reason);

/** "member0", "member1", "both". */
const char *fgroup_sel_name(uint32_t sel);

/** Show commands (bfd_show.c). */
int bfd_show_start(void);

#endif
