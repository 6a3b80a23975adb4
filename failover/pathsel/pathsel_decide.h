/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path selection (ZooRoute): STAMP (RFC 8762) probe results turned into
 * metrics per path × plane, and the choice, per path group and per tier,
 * of the active path and of each path's healthy planes.
 *
 * Plain C: no DPDK, no clock, no I/O, no allocation. Time is the caller's
 * monotonic clock in ns (`now`), so the same code runs TSC-timed in a
 * worker's poll loop and on simulated time in the unit tests
 * (tests/unit/test_pathsel.c, which also simulates the figures below).
 * Every probe event is O(1) (amortised; see pathsel_plane_*), a decision is
 * O(paths × planes).
 *
 * ## Part 1: a plane's metrics (struct pathsel_plane)
 *
 * The plane keeps a ring of the last `window` probes sent, indexed by
 * sender sequence number modulo window. A probe is PENDING, then ANSWERED
 * or LOST ("judged"); the window metrics count judged probes only.
 *
 * - A probe is LOST when (a) it has been outstanding longer than the
 *   timeout (pathsel_plane_expire(); pathsel_plane_timeout_ns() gives the rule:
 *   max(PATHSEL_TIMEOUT_MIN_NS, 3 × the median of the last 8 RTTs)), or (b) a
 *   reply to a probe sent PATHSEL_REORDER_PROBES or more later arrived (as TCP's
 *   three duplicate ACKs, RFC 5681 §3.2: reordering by 3 probes on one
 *   path is taken as loss), or (c) it leaves the window unanswered.
 * - A late reply (its probe judged lost but still in the window) is
 *   accepted: it turns the loss into an answer in the window's counts and
 *   RTTs (a slow reflector is not a lossy one), and pathsel_plane_rx() returns
 *   true. The runs (consecutive_lost, consecutive_answered), which drive a
 *   plane's hard state, keep the loss: the plane did not answer within the
 *   timeout then. A reply to a probe that left the window, a duplicate,
 *   or an RTT that is negative or above PATHSEL_RTT_MAX_NS is rejected.
 * - RTT = (t4 - t1) - (t3 - t2) (RFC 8762 §4.2). Jitter is RFC 3550
 *   §6.4.1's estimator (J += (|D| - J) / 16), D the change of the forward
 *   transit t2 - t1 between consecutive replies in arrival order (the
 *   clock offset cancels).
 * - "Recent" RTT: the median of the last 8 RTTs (arrival order): one
 *   outlier does not move it, a step does after 5 replies (50 ms at 10 ms).
 * - Forward / reverse loss (stateful reflector, RFC 8762 §4.3.1: its
 *   sequence number counts the probes it received): between two replies
 *   taken in sequence order, (s2 - s1) - (r2 - r1) probes were lost on
 *   the way out, the rest of the gap on the way back. The split is an
 *   estimate: a reordered reply is not re-split.
 * - "Recent" loss: over the last window/4 probes sent (the fast horizon
 *   of the loss tests, see Part 2).
 *
 * ## Part 2: the decision (pathsel_decide)
 *
 * Loss tests use binomial confidence bounds (Wilson score interval):
 * lo(k, n, z) and hi(k, n, z) for k lost of n judged.
 *   violates(path) := lo(window, PATHSEL_Z_VIOLATE) > max_loss
 *                     or lo(recent, PATHSEL_Z_RECENT) > max_loss
 *     ("surely above the bound": the recent horizon detects an onset
 *     fast, 3 lost of 100 against a 1 % bound; the window a small excess);
 *   meets(path)    := hi(window, PATHSEL_Z_MEET) <= max_loss, n >= PATHSEL_MIN_JUDGED,
 *                     and hi(long-term, PATHSEL_Z_MEET) <= max_loss
 *     ("surely within the bound, and not by luck": the long-term loss is
 *     the mean of the first PATHSEL_LONG_WINDOWS × window judged probes of a
 *     plane, then their EWMA with that gain: 16 s at 10 ms × 100; it
 *     stands for min(judged, 16 × window) probes per plane). A lost
 *     probe right after another lost one is an outage (PATHSEL_OUTAGE_RUN),
 *     the hard-failure rule's business: it is not long-term loss, so a
 *     path that healed is a candidate at once.
 * A switch for loss needs the active to violate AND the candidate to
 * meet and be at most half as lossy over the window (2 × loss(c) +
 * max_loss / 2 <= loss(a), point estimates: two paths near the bound with
 * the same loss do not trade places on the active's chance excursions)
 * (or, when both violate, hi(candidate) < lo(active) over the
 * window and the candidate's long-term loss at most half the active's),
 * continuously for hold_us (during the hold the active's violation is
 * tested at PATHSEL_Z_HOLD: hysteresis), and at the end lo(window, PATHSEL_Z_HOLD)
 * of the active above the bound (the recent horizon, re-tested every
 * probe, is not trusted alone; the switch waits for it, holding on).
 * The window re-tests the same probes every 10 ms, so a 2 %-lossy
 * candidate's window does look clean now and then (2 lost of 400: 1.4 %
 * of the time); its long-term loss does not. A clean path and a 5 % one
 * pass the tests once ~3 probes of the 5 % path are lost.
 *
 * 1. Planes. A plane goes hard down after `lost_down` consecutive lost
 *    probes (reason plane_lost), up after `lost_down` consecutive answered
 *    ones (restored). A hard-up plane is degraded (plane_loss) when, over
 *    the window (>= window/2 judged), lo(plane, PATHSEL_Z_VIOLATE) >
 *    plane_max_loss AND the path's other healthy planes, pooled, have at
 *    most half its loss and hi(others, PATHSEL_Z_MEET) < lo(plane): uniform loss
 *    on a path is judged at path level. It is restored when lo(plane) <=
 *    plane_max_loss / 2 or lo(plane) <= the others' loss. The last healthy
 *    plane is never degraded. A plane that comes back from hard down is
 *    checked for degradation at once (its window still holds the loss).
 *    healthy = hard up and not degraded; pathsel_group_mem_healthy() is the
 *    mask the data path spreads a path's flows over.
 * 2. Usable path: not bfd_down and at least one healthy plane. Path
 *    metrics aggregate the healthy planes (pathsel_path_metrics()).
 * 3. Ranking of usable paths per tier (best first): not violating before
 *    violating; among violating paths the lower window loss; then the
 *    objective: latency: recent RTT, then jitter; weighted: latency_weight
 *    × RTT ms + jitter_weight × jitter ms + loss_weight × loss % +
 *    cost_weight × cost (recent RTT, window loss); cost: cost alone (an
 *    equal-cost path never wins on RTT noise); then the lower path index.
 * 4. Switching. The active path not usable: at once to the best usable
 *    (reason bfd_down or hard_failure); none usable: the tier stays (no
 *    event but the paths' path_down: the data path keeps its path, and when
 *    every path looks dead at once the probes or the machine are the
 *    likelier fault); a tier on -1 (only an initial -1) goes to the
 *    best as soon as one is usable (restored). Otherwise a candidate c
 *    beats the active a when (loss) as above; or, neither violating and c
 *    with >= PATHSEL_MIN_JUDGED judged probes: latency: rtt(c) + max(rtt(a) ×
 *    margin, margin_min) < rtt(a); weighted: score(c) + max(score(a) ×
 *    margin, margin_min in score units) < score(a), where the two scores
 *    take their own window loss only when their intervals at PATHSEL_Z_VIOLATE
 *    do not overlap, else both the active's (a luckily clean window does
 *    not beat the active); cost: meets(c) and cost(c) < cost(a). The active must
 *    have been beaten continuously for hold_us (by any candidate; the
 *    switch goes to the best-ranked one beating it then).
 *    Start-up: the caller's initial active (pathsel_group_mem_init) is kept
 *    until every usable path has window / 4 judged probes per healthy
 *    plane (250 ms at 10 ms × 100) (or PATHSEL_STARTUP_MAX_NS after the first call); then the
 *    best is taken at once (startup), hold or not.
 *    Dwell: after a switch for a fault (loss, hard_failure, bfd_down,
 *    no_path) a tier makes no optimisation switch (cost, score; latency
 *    may, as gold's path may degrade)
 *    for `dwell` (default 60 s): one fault is one switch, not a switch and a return
 *    (route flap damping); protection may move it again at any time.
 * 5. Events: PLANE_DOWN / PLANE_UP, PATH_DOWN / PATH_UP (tier -1) and
 *    SWITCH (per tier), with the metrics that decided them.
 *
 * Threads: the worker owns every struct here. pathsel_plane_metrics() may read
 * a plane another thread writes (the show command): counters may be torn
 * (one old, one new), ring indices are taken modulo window, nothing is
 * dereferenced through a pointer the writer changes.
 */
#ifndef VBRD_PATHSEL_DECIDE_H
#define VBRD_PATHSEL_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "failover/pathsel/pathsel_config.h"

#define PATHSEL_TIMEOUT_MIN_NS 15000000ull /* 15 ms: pathsel_plane_timeout_ns()'s floor */
#define PATHSEL_RTT_MAX_NS     4000000000u /* 4 s: a larger RTT is absurd (rejected) */
#define PATHSEL_REORDER_PROBES 3u          /* a reply this many probes later loses a probe */
#define PATHSEL_RECENT_RTTS    8u          /* the recent RTT is their median */
#define PATHSEL_MIN_JUDGED     20u         /* judged probes before a path is compared */
#define PATHSEL_OUTAGE_RUN     1u /* lost in a row beyond this: an outage, not long-term loss */
#define PATHSEL_STARTUP_MAX_NS 1000000000ull /* 1 s: start-up waits no longer */
#define PATHSEL_Z_VIOLATE      2.33          /* one-sided 99 %: "surely above the bound" */
#define PATHSEL_Z_MEET         1.8           /* one-sided 96 %: "surely within the bound" */
#define PATHSEL_Z_RECENT       1.645         /* one-sided 95 %: the recent horizon's violation */
#define PATHSEL_Z_HOLD         1.0 /* one-sided 84 %: the active's violation during a hold */
#define PATHSEL_LONG_WINDOWS   16u /* long-term loss: mean, then EWMA of gain 1 / (16 × window) */
#define PATHSEL_BLOCK          32u /* ring slots per block of the RTT minimum */
#define PATHSEL_EVENTS_MAX     (CFG_MAX_PATHS * (PATHSEL_MAX_PLANES + 1) + PATHSEL_TIERS)

/** A probe record in a plane's ring (the caller allocates `window` of them). */
struct pathsel_probe {
	uint64_t t_tx;    /* ns: sent */
	uint32_t rtt_ns;  /* ANSWERED */
	uint8_t state;    /* enum pathsel_probe_state */
	uint8_t late;     /* answered after it was judged lost */
	uint8_t in_long;  /* LOST: counted in the long-term loss (not deep in an outage) */
	uint16_t fwd_gap; /* stateful: probes before it lost on the way out */
	uint16_t rev_gap; /* ... on the way back */
};

enum pathsel_probe_state {
	PATHSEL_PROBE_EMPTY = 0,
	PATHSEL_PROBE_PENDING,
	PATHSEL_PROBE_ANSWERED,
	PATHSEL_PROBE_LOST
};

/** One path × plane: its probes and running metrics (written by one thread). */
struct pathsel_plane {
	struct pathsel_probe *ring; /* window records, slot = seq % window */
	uint32_t window;            /* probes, 10..PATHSEL_MAX_WINDOW */
	uint32_t recent;            /* the recent horizon, window / 4 probes */
	uint64_t next_seq;          /* probes sent (the next sender sequence number) */
	uint64_t judge_seq;         /* every probe below it is judged */
	uint64_t hi_ans1;           /* highest probe answered in time, + 1 (0: none) */
	uint64_t ahead;             /* probes answered in time at or above judge_seq */
	uint64_t consec_ans;        /* answered in time since the latest loss */
	/* the window (judged probes) */
	uint32_t w_answered, w_lost, w_fwd_lost, w_rev_lost;
	uint64_t w_rtt_sum;                                     /* ns */
	uint32_t r_answered, r_lost;                            /* the recent horizon */
	uint32_t block_min[PATHSEL_MAX_WINDOW / PATHSEL_BLOCK]; /* ns, UINT32_MAX: none */
	/* stateful reflector: the latest reply in sequence order */
	uint64_t ref_last_seq1; /* + 1, 0: none */
	uint32_t ref_last_rseq;
	bool stateful;
	/* arrival order */
	uint32_t recent_rtt[PATHSEL_RECENT_RTTS];
	uint32_t nb_recent;   /* replies ever (the ring holds min(8, this)) */
	int64_t last_transit; /* t2 - t1 of the latest reply, ns (offset included) */
	uint64_t jitter16;    /* RFC 3550 A.8: J × 16, ns */
	uint64_t last_rx;     /* ns: latest reply accepted, 0: none */
	double loss_long;     /* long-term loss, fraction: the mean of the first */
	uint32_t long_n;      /* PATHSEL_LONG_WINDOWS × window judged probes, then their EWMA */
	/* totals since init */
	uint64_t tx_total, rx_total, late_total, lost_total;
};

/** A plane's (or a path's) metrics, a snapshot. */
struct pathsel_metrics {
	uint32_t sent; /* judged probes in the window (answered + lost) */
	uint32_t answered;
	uint32_t lost;
	uint32_t pending;            /* in the window, not judged yet */
	uint32_t loss_ppm;           /* lost / sent, parts per million (0 when sent is 0) */
	bool stateful;               /* the fwd/rev split is known */
	uint32_t fwd_lost, rev_lost; /* stateful: probes */
	uint32_t fwd_loss_ppm, rev_loss_ppm;
	uint32_t recent_sent, recent_lost; /* the recent horizon (window / 4 probes) */
	uint32_t loss_long_ppm;            /* EWMA over PATHSEL_LONG_WINDOWS windows (path: mean) */
	uint32_t long_n;                   /* the probes it stands for (path: sum) */
	uint64_t rtt_min_ns, rtt_mean_ns;  /* over the window's answered probes */
	uint64_t rtt_p99_ns;               /* with_p99 only, else 0 */
	uint64_t rtt_recent_ns;            /* median of the last 8 RTTs (path: mean of planes') */
	uint64_t jitter_ns;                /* RFC 3550 §6.4.1 */
	uint64_t consecutive_lost;         /* lost in a row, in time, up to the latest judged */
	uint64_t consecutive_answered;     /* answered in time since the latest loss */
	uint64_t last_rx;                  /* ns, 0: never */
};

/** Bytes of ring for @p window probes (an array of window struct pathsel_probe). */
size_t pathsel_plane_mem_size(uint32_t window);

/**
 * Start a plane.
 *
 * @param p       the plane
 * @param ring    pathsel_plane_mem_size(window) bytes, owned by the caller
 * @param window  probes kept, 10..PATHSEL_MAX_WINDOW
 * @return        0, or -EINVAL
 */
int pathsel_plane_init(struct pathsel_plane *p, struct pathsel_probe *ring, uint32_t window);

/**
 * A probe is sent now. O(1) amortised (a probe leaving the window
 * unanswered is judged lost here).
 *
 * @return  its sender Sequence Number (RFC 8762 §4.2.1), 0, 1, 2, ...
 */
uint32_t pathsel_plane_tx(struct pathsel_plane *p, uint64_t now);

/**
 * A reply (RFC 8762 §4.3 session-reflector packet) to probe @p seq.
 *
 * @param t1_ns  our transmit timestamp (our clock), ns
 * @param t2_ns  the reflector's receive timestamp (its clock), ns
 * @param t3_ns  the reflector's transmit timestamp (its clock), ns
 * @param t4_ns  our receive timestamp (our clock), ns
 * @param reflector_seq       the reflector's Sequence Number
 * @param reflector_stateful  it counts our probes (RFC 8762 §4.3.1)
 * @param now    ns
 * @return true if accepted; false (the caller counts it): @p seq is not in
 *         the window or not sent, a duplicate, or the RTT negative or
 *         above PATHSEL_RTT_MAX_NS
 */
bool pathsel_plane_rx(struct pathsel_plane *p, uint32_t seq, uint64_t t1_ns, uint64_t t2_ns,
		      uint64_t t3_ns, uint64_t t4_ns, uint32_t reflector_seq,
		      bool reflector_stateful, uint64_t now);

/** Judge lost the probes outstanding for longer than @p timeout_ns at @p now. O(1) amortised. */
void pathsel_plane_expire(struct pathsel_plane *p, uint64_t now, uint64_t timeout_ns);

/** The timeout rule: max(PATHSEL_TIMEOUT_MIN_NS, 3 × the median of the last 8 RTTs), ns. */
uint64_t pathsel_plane_timeout_ns(const struct pathsel_plane *p);

/**
 * The plane's metrics. O(window / PATHSEL_BLOCK) without p99; with it, a copy
 * of the window's RTTs is sorted (the show command). Safe to call from
 * another thread than the writer's (torn counters, no crash).
 */
void pathsel_plane_metrics(const struct pathsel_plane *p, struct pathsel_metrics *m, bool with_p99);

/**
 * A path's metrics from its planes' over the planes set in @p healthy_mask:
 * counts summed (loss from the sums); rtt_min the minimum; rtt_mean the
 * mean over all their answered probes; rtt_recent the mean of the planes'
 * recent RTTs (planes with replies); rtt_p99 and jitter the maximum;
 * consecutive_lost the minimum (a path is lost when every plane is),
 * consecutive_answered the maximum; last_rx the latest. All zero when the
 * mask selects no plane.
 */
void pathsel_path_metrics(const struct pathsel_metrics *planes, int nb_planes,
			  uint16_t healthy_mask, struct pathsel_metrics *out);

/* ---- Part 2: the decision ---- */

enum pathsel_event_kind {
	PATHSEL_EV_SWITCH = 0,
	PATHSEL_EV_PLANE_DOWN,
	PATHSEL_EV_PLANE_UP,
	PATHSEL_EV_PATH_DOWN,
	PATHSEL_EV_PATH_UP
};

enum pathsel_reason {
	PATHSEL_REASON_NONE = 0,
	PATHSEL_REASON_STARTUP,      /* the first choice, no hold */
	PATHSEL_REASON_HARD_FAILURE, /* the active path has no healthy plane */
	PATHSEL_REASON_BFD_DOWN,     /* the active path's BFD session is Down */
	PATHSEL_REASON_NO_PATH,      /* no usable path: active -1 */
	PATHSEL_REASON_LOSS,         /* the active violates the tier's loss bound / is lossier */
	PATHSEL_REASON_LATENCY,      /* the candidate's RTT beats the active's by the margin */
	PATHSEL_REASON_SCORE,        /* weighted score beaten by the margin */
	PATHSEL_REASON_COST,         /* a cheaper path within the loss bound */
	PATHSEL_REASON_RESTORED,     /* plane or path back; a tier leaves -1 */
	PATHSEL_REASON_PLANE_LOSS,   /* plane degraded: far lossier than its path's others */
	PATHSEL_REASON_PLANE_LOST,   /* plane hard down: lost_down probes lost in a row */
	PATHSEL_REASON_HA_ADOPT, /* the HA partner's last choice, taken over (failover/ha/ha.h) */
};

/** What happened, with the metrics that decided it. */
struct pathsel_event {
	uint8_t kind;                    /* enum pathsel_event_kind */
	uint8_t reason;                  /* enum pathsel_reason */
	int8_t tier;                     /* enum cfg_tier, -1 for plane and path events */
	int8_t old_path, new_path;       /* SWITCH: -1 none; plane/path events: the path, both */
	int8_t plane;                    /* plane events, else -1 */
	uint64_t old_rtt_ns, new_rtt_ns; /* recent RTT; plane events: the plane's in new_* */
	uint32_t old_loss_ppm, new_loss_ppm;
	uint64_t old_jitter_ns, new_jitter_ns;
	uint64_t t; /* ns: now */
};

/** A group's settings as the decision needs them (pathsel_group_params_init()). */
struct pathsel_group_params {
	uint32_t lost_down;      /* consecutive lost probes: plane hard down */
	uint32_t margin_ppm;     /* relative margin, parts per million */
	uint64_t margin_min_ns;  /* latency: absolute RTT margin, ns */
	double margin_min_score; /* weighted: absolute score margin */
	uint64_t hold_ns;        /* a candidate must beat the active this long */
	uint64_t dwell_ns;       /* no optimisation switch this long after a switch for a fault */
	uint32_t window;         /* probes per plane */
	uint32_t plane_max_loss_ppm; /* plane degradation bound */
};

/** One path's inputs to a decision. */
struct pathsel_path_in {
	const struct pathsel_metrics *planes; /* nb_planes plane metrics */
	int nb_planes;                        /* 1..PATHSEL_MAX_PLANES */
	uint32_t cost;                        /* lower is cheaper */
	bool bfd_down;                        /* the BFD session tied to the path is Down */
};

/** Path states in struct pathsel_group_mem. */
enum pathsel_path_state { PATHSEL_PATH_UNKNOWN = 0, PATHSEL_PATH_USABLE, PATHSEL_PATH_UNUSABLE };

/** The memory a group's decisions keep between calls (the caller's). */
struct pathsel_group_mem {
	int nb_paths;
	uint16_t healthy[CFG_MAX_PATHS];   /* planes the data path may use */
	uint16_t hard_up[CFG_MAX_PATHS];   /* planes not hard down */
	uint16_t degraded[CFG_MAX_PATHS];  /* hard up, taken out for loss */
	uint8_t path_state[CFG_MAX_PATHS]; /* enum pathsel_path_state */
	int8_t active[PATHSEL_TIERS];      /* path per tier, -1: none */
	int8_t candidate[PATHSEL_TIERS];   /* the best path beating the active, -1: none */
	uint8_t cand_reason[PATHSEL_TIERS];
	uint64_t beaten_since[PATHSEL_TIERS];
	uint64_t fault_at[PATHSEL_TIERS];
	/* ns: the tier's last switch for a fault (0: never) */ /* ns: the active is beaten continuously since */
	bool started;                                           /* the start-up choice was made */
	uint64_t first_call;                                    /* ns, UINT64_MAX: no call yet */
	uint64_t wake; /* ns: call again then at the latest, UINT64_MAX: on a probe event */
	uint64_t events_dropped; /* more events than ev_cap */
};

/**
 * The decision's parameters from a configured group.
 *
 * @param g  the group (interval, window, lost_down, margins, hold,
 *           plane_max_loss_ppm; 0 there: PATHSEL_DEFAULT_PLANE_MAX_LOSS_PPM)
 */
void pathsel_group_params_init(struct pathsel_group_params *gp, const struct cfg_ps_group *g);

/**
 * Start a group's memory: every plane healthy, paths unknown.
 *
 * @param nb_paths        1..CFG_MAX_PATHS
 * @param initial_active  every tier's path until the start-up choice (-1: none)
 */
void pathsel_group_mem_init(struct pathsel_group_mem *mem, int nb_paths, int initial_active);

/** Path @p path's healthy planes (bit n: plane n), 0 for a path out of range. */
uint16_t pathsel_group_mem_healthy(const struct pathsel_group_mem *mem, int path);

/** Tier @p tier's active path, -1: none. */
int pathsel_group_mem_active(const struct pathsel_group_mem *mem, int tier);

/**
 * Decide a group now: planes' health, paths' usability, each tier's
 * active path. Call it after a probe event of the group's planes (a
 * reply, an expiry) and at mem->wake (a hold ends; pathsel_next_wake()).
 *
 * @param gp        the group's settings
 * @param tiers     tiers[PATHSEL_TIERS] (enum cfg_tier order)
 * @param paths     the paths' planes' metrics, cost, BFD
 * @param nb_paths  1..CFG_MAX_PATHS (as given to pathsel_group_mem_init)
 * @param now       ns, monotonic
 * @param mem       the group's memory (updated)
 * @param ev        events out (PATHSEL_EVENTS_MAX is enough); those beyond
 *                  @p ev_cap are counted in mem->events_dropped
 * @return          the number of events written
 */
unsigned pathsel_decide(const struct pathsel_group_params *gp, const struct cfg_ps_tier *tiers,
			const struct pathsel_path_in *paths, int nb_paths, uint64_t now,
			struct pathsel_group_mem *mem, struct pathsel_event *ev, unsigned ev_cap);

/** ns: the latest time to call pathsel_decide() again without a probe event, UINT64_MAX: none. */
uint64_t pathsel_next_wake(const struct pathsel_group_mem *mem);

/**
 * Make @p path tier @p tier's active path because another node chose it
 * (the HA pair's old active, failover/ha/ha.h): the new active starts from the
 * last known good paths instead of probing from scratch. The choice counts
 * as the start-up choice, and as a switch for a fault for the dwell (no
 * cost or score switch within gp->dwell_ns); a fault or a clearly better
 * path still moves the tier, with hold and margins as always. A path the
 * node's own probes hold unusable is not taken.
 *
 * @param tier  enum cfg_tier
 * @param path  0..mem->nb_paths-1
 * @param now   ns, monotonic
 * @param ev    the switch event (reason PATHSEL_REASON_HA_ADOPT, no metrics) when
 *              the tier's path changed
 * @return 1 when the tier changed (@p ev written), 0 when it already had
 *         @p path, -EINVAL (out of range), -EHOSTUNREACH (@p path unusable)
 */
int pathsel_group_mem_adopt(struct pathsel_group_mem *mem, int tier, int path, uint64_t now,
			    struct pathsel_event *ev);

/** Wilson score bounds of a loss k of n at @p z, as a fraction (0 when n is 0; hi 1). */
double pathsel_loss_lo(uint32_t k, uint32_t n, double z);
double pathsel_loss_hi(uint32_t k, uint32_t n, double z);

/** "startup", "hard_failure", ... */
const char *pathsel_reason_name(enum pathsel_reason r);

/** "switch", "plane_down", "plane_up", "path_down", "path_up". */
const char *pathsel_event_kind_name(enum pathsel_event_kind k);

#endif
