/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path selection inside vbrd (ZooRoute-style): a STAMP session (RFC 8762)
 * per path × plane of every selected path group, run by the BFD worker
 * (bfd.h, BFD_WORKER) in its poll loop; the metrics and decisions
 * of pathsel.h applied there, in the same loop turn as the probe event
 * that caused them; the STAMP session-reflector for the remote's probes.
 *
 * As for BFD, two kinds of objects, so that a reload never restarts a probe:
 *
 * - run-time objects (struct pathsel_group_rt with its paths and planes) live
 *   as long as a forwarding state lists them, found again by key (the
 *   group's name, window and its paths' names and planes). The BFD
 *   worker alone writes them; `show` reads them (torn counters are fine).
 * - per-generation objects (struct pathsel_state in fwd_state.feature[]) say
 *   how that generation's config uses them: parameters, the path group,
 *   its fwd_path objects, the per-tier choice the data path reads.
 *
 * Files: pathsel_module.c (module: build, events, history, the per-packet path
 * chooser), pathsel_worker.c (the worker hook: probes, reflector, decisions),
 * pathsel_show.c (vbrctl, telemetry); pathsel_decide.c (metrics, decision: plain C),
 * stamp_proto.c (the packets: pure C), pathsel_config.c (the section).
 */
#ifndef VBRD_PATHSEL_H
#define VBRD_PATHSEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ring.h>

#include "core/module.h"
#include "failover/pathsel/pathsel_decide.h"
#include "failover/pathsel/pathsel_config.h"
#include "failover/pathsel/spread.h"
#include "failover/pathsel/stamp_proto.h"
#include "pipeline/fwd.h"

/*
 * Sender sessions: one per path × plane, numbered by slot. A session's
 * STAMP packets leave from inner UDP source port PATHSEL_SENDER_PORT_BASE +
 * slot, so a reply (sent to that port, RFC 8762 §4.3) finds its session
 * by port, and a stateful reflector keying sessions by their addresses
 * and ports counts each plane apart. Twice the most a config can have, as
 * a reload holds the running sessions and the new ones at once.
 */
#define PATHSEL_PLANE_SLOTS      8192
#define PATHSEL_SENDER_PORT_BASE 40960    /* .. 49151, below the planes' outer ports */
#define PATHSEL_SPREAD_ENTRIES   4096     /* flowlet entries per worker per spreading group */
#define PATHSEL_STALL_NS         20000000 /* 20 ms between two turns of the BFD worker: a stall */

/** Turns of the BFD worker's path-selection hook that came after a stall (show). */
extern uint64_t pathsel_worker_stalls;

/** What the reflector did (the BFD worker writes, show reads). */
struct pathsel_reflector_stats {
	uint64_t answered; /* replies sent */
	uint64_t sessions; /* stateful sessions begun */
	uint64_t evicted;  /* live sessions that gave their slot to a new one */
};
extern struct pathsel_reflector_stats pathsel_reflector_stats;

struct pathsel_group_rt;

/** One STAMP session-sender: a plane of a path. */
struct pathsel_plane_rt {
	uint16_t slot;
	uint8_t path, plane; /* path index in the group, plane number (0-based, in the path) */
	struct pathsel_group_rt *g; /* its group */
	struct pathsel_plane m;     /* metrics (pathsel.h) */
	void *mem;                  /* m's probe records */
	uint64_t next_tx;           /* ns (tsc_now_ns) */
	bool stateful; /* the reflector counts our probes (seen once its numbers differed) */
	bool answered; /* a reply ever came: until then the metrics restart with the first
	                * reply (the peer may not have been running yet) */
	uint64_t tx, rx, rx_bad, tx_errors;
	uint64_t tx_unresolved; /* probes not sent: the line's next hop not resolved yet */
};

struct pathsel_path_rt {
	char name[CFG_NAME_MAX];
	int32_t plane;      /* first plane (fwd_path.plane); -1: probed on plane 0's port */
	uint16_t nb_planes; /* sessions (at least 1) */
	struct pathsel_plane_rt *planes[PATHSEL_MAX_PLANES];
	uint16_t healthy_applied; /* the healthy mask last written into plane_tab */
};

/** A selected path group, across reloads. */
struct pathsel_group_rt {
	char name[CFG_NAME_MAX];
	char key[1024]; /* what makes it the same group across a reload */
	uint32_t refs;  /* forwarding states that list it (control thread) */
	uint32_t window;
	int nb_paths;
	struct pathsel_path_rt paths[CFG_MAX_PATHS];
	/* the BFD worker's */
	bool started;
	bool dirty;                    /* a probe event since the last decision */
	struct pathsel_group_mem mem;  /* the decision's memory (pathsel.h) */
	int8_t applied[PATHSEL_TIERS]; /* path per tier written into the data path (-1 none) */
	uint64_t next_decide;          /* ns: a hold time ends (UINT64_MAX: none) */
	uint64_t last_event;           /* ns: the probe event the next decision follows */
	uint64_t switches, decisions;
	/* load spreading (spread = true): each worker's flowlet table, and per
	 * tier the paths that may carry flowlets, double-buffered: the BFD
	 * worker fills the buffer not in use, then flips spread_cur */
	unsigned nb_spread;
	struct spread_table **spread;
	struct spread_weights spread_w[PATHSEL_TIERS][2];
	_Atomic uint8_t spread_cur[PATHSEL_TIERS];
	/* control thread → BFD worker: a path (index + 1) each tier is to
	 * adopt (pathsel_adopt()), 0: none; the worker takes it with an exchange */
	_Atomic int8_t adopt[PATHSEL_TIERS];
};

/** A selected path group in one generation. */
struct pathsel_group {
	struct pathsel_group_rt *rt;
	const struct cfg_ps_group *cfg;     /* in the state's cfg */
	uint16_t pg;                        /* index into fwd_state.path_groups */
	struct pathsel_group_params params; /* pathsel.h */
	uint64_t interval_ns;
	int bfd[CFG_MAX_PATHS];          /* index into the failover state's sessions, -1 none */
	enum cfg_tier default_tier;      /* of packets no class matches */
	const void *classifier;          /* qos classifier of cfg->policy, or NULL */
	const enum cfg_tier *class_tier; /* tier of class i (classifier's 1 + i) */
	struct fwd_path *path[CFG_MAX_PATHS];
	uint64_t flowlet_gap_tsc;      /* spread: idle TSC cycles that end a flowlet */
	uint32_t share[CFG_MAX_PATHS]; /* spread: each path's share (capacity), > 0 */
	/* read by the data path (pathsel_choose), written by the BFD worker */
	struct fwd_path *_Atomic tier_active[PATHSEL_TIERS];
};

/** The feature's part of a forwarding state. */
struct pathsel_state {
	const struct cfg_pathsel *cfg; /* the section, in the state's cfg */
	enum pathsel_reflector_mode reflector;
	struct cfg_ps_tier tiers[PATHSEL_TIERS];
	int nb_groups;
	struct pathsel_group *groups;
};

extern struct vbrd_module pathsel_module;

static inline const struct pathsel_state *pathsel_state_of(const struct fwd_state *st)
{
	return fwd_feature(st, &pathsel_module);
}

/** Sender sessions by slot (control thread writes before publishing). */
extern struct pathsel_plane_rt *pathsel_planes[PATHSEL_PLANE_SLOTS];

/* ---- events: BFD worker → control thread ---------------------------------- */

/** A decision's event as the history keeps it. */
struct pathsel_event_rec {
	char group[CFG_NAME_MAX];
	char old_path[CFG_NAME_MAX], new_path[CFG_NAME_MAX];
	struct pathsel_event ev; /* pathsel.h: kind, tier, plane, reason, metrics, t */
	uint64_t t_detect;       /* ns: the probe event the decision followed */
	uint64_t t_done;         /* ns: once the data path had it (the atomic store done) */
	uint32_t batch;          /* decision pass it came from: one fault's switches share it */
};

#define PATHSEL_HISTORY 1024

extern struct rte_ring *pathsel_events;  /* SP/SC */
extern struct rte_ring *pathsel_rx_ring; /* other workers → the BFD worker (MP/SC) */
extern _Atomic uint64_t pathsel_events_lost;

/** The last PATHSEL_HISTORY events, oldest first, into @p out. */
unsigned pathsel_history_get(struct pathsel_event_rec *out, unsigned cap);

/** What a receiving worker records for the BFD worker in the mbuf's headroom. */
struct pathsel_rx_info {
	uint64_t t_rx; /* tsc_now_ns() at reception: T2 (reflector) or T4 (sender) */
	uint8_t family, ttl;
	bool decapped;
	uint16_t iface;       /* ingress interface (the tunnel's when decapped) */
	uint16_t port, vlan;  /* ingress DPDK port and VLAN (the line, when decapped) */
	uint16_t outer_sport; /* decapped: the outer UDP source port */
	uint16_t sport, dport;
	uint32_t l4_off, l4_len;
	uint8_t src[16], dst[16];
};

/** The worker side's local service for UDP 862 and the sender ports (pathsel_worker.c). */
extern const struct local_service pathsel_stamp_service;

/** Bumped by pathsel_adopt(): the BFD worker then looks at every group's adopt[]. */
extern _Atomic uint32_t pathsel_adopt_gen;

/**
 * Make tier @p tier of the selected path group @p group use path @p path,
 * as another node chose it (the HA pair's takeover, failover/ha/ha.h): the
 * BFD worker applies it in its next turn (pathsel_group_mem_adopt(): not when
 * its own probes hold the path unusable) and writes a switch event with
 * reason ha_adopt. Control thread.
 *
 * @param tier  "gold", "silver" or "bronze"
 * @return 0, -ENOENT (no such selected group or path in the running
 *         state), -EINVAL (no such tier)
 */
int pathsel_adopt(const char *group, const char *tier, const char *path);

/** Show commands (pathsel_show.c). */
int pathsel_show_start(void);

/** Choose the path of a packet of group @p g (fwd_path_group.choose). */
const struct fwd_path *pathsel_choose(struct worker *w, const struct fwd_state *st,
				      const struct fwd_path_group *g, struct rte_mbuf *m,
				      uint32_t hash);

/** The paths of a burst of packets of group @p g (fwd_path_group.choose_burst). */
void pathsel_choose_burst(struct worker *w, const struct fwd_state *st,
			  const struct fwd_path_group *g, struct rte_mbuf **pkts,
			  const uint32_t *hash, const uint32_t *len, unsigned n, uint8_t *path);

#endif
