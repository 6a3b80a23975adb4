/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The path-selection configuration model: section "pathsel" turned
 * into plain C structs (pathsel_config.c; no DPDK, so `vbrd --check-config`,
 * the unit tests and the fuzzer link it).
 *
 *     pathsel = {
 *       reflector = "stateful";     # STAMP session-reflector on UDP 862 (RFC 8762 §4.3):
 *                                   # "stateful" (default with this section), "stateless"
 *                                   # or "off" (without the section: off)
 *       reflect_from = [ "192.0.2.0/24" ];  # senders answered outside the tunnels: test
 *                                   # packets that come out of a configured tunnel are
 *                                   # answered, others only from these prefixes (default none)
 *       reflect_rate = 20000;       # replies per second at most, 1..1000000 (a burst of a
 *                                   # tenth of a second of them)
 *       tiers = {                   # every tier and key optional; these are the defaults
 *         gold   = { objective = "latency";  max_loss = 1.0; };
 *         silver = { objective = "weighted"; max_loss = 2.0;
 *                    latency_weight = 1.0; jitter_weight = 1.0; loss_weight = 10.0; cost_weight = 0.1; };
 *         bronze = { objective = "cost";     max_loss = 5.0; };
 *       };                          # (every tier has the silver weights by default)
 *       groups = (
 *         { path_group = "region";  # the path group (section path_groups) it selects for
 *           interval = 10;          # ms between probes per path × plane, 1..1000 (a number: 2.5 is fine)
 *           window = 100;           # probes per plane kept for the metrics, 10..1024
 *           lost_down = 3;          # consecutive lost probes: a hard failure of the plane, 1..255
 *           margin = 10.0;          # percent a candidate must beat the active path by, 0..100
 *           margin_min = 2.0;       # ms: and at least this much RTT (score units for "weighted"),
 *                                   # 0..60000
 *           hold = 100;             # ms the candidate must stay better before a switch, 0..60000
 *           dwell = 60000;          # ms after a switch for a fault (loss, hard failure) in which
 *                                   # the tier makes no cost or score switch, 0..600000
 *           plane_max_loss = 1.0;   # percent: a plane above it, far above its path's other
 *                                   # planes, is taken out (its flows rehashed), 0..100
 *           policy = "edge";        # optional: the qos policy whose classes give a packet its tier
 *           tier = "gold";          # the tier of packets no class matches (default gold)
 *           spread = false;         # spread flowlets over the tier's healthy paths by load
 *           flowlet_gap = 0.5;      # ms of idle time that ends a flowlet (spread only), 0.01..1000
 *           paths = ( { path = "p-line1"; bfd = "l1"; capacity = "1G"; } );  # optional per path
 *         } );
 *     };
 *
 * Every ms setting is an integer or a number with decimals, kept to the
 * µs. `paths` lists paths of the path group, each once; `bfd` names a
 * session of section "bfd" (single-hop: on the path's interface; through a
 * path group: this one), `capacity` is bits/s as qos writes rates (an
 * integer, or "100M", "1.5G"). `policy` names a policy of section "qos";
 * its classes' `tier` give a packet its tier, and packets no class matches
 * (or all packets without a policy) get `tier`. The planes a group probes
 * are its paths' (`plane`, `planes` in section path_groups).
 *
 * max_loss is a percent (0..100). Objectives: "latency" (lowest mean RTT,
 * then jitter), "weighted" (lowest latency_weight × RTT ms + jitter_weight
 * × jitter ms + loss_weight × loss % + cost_weight × cost), "cost" (lowest
 * path cost among the paths within the loss bound). Ties go to the path
 * listed first in the path group.
 *
 * Every setting is live: a reload keeps each group's probes, metrics and
 * choices when its path group keeps its name, and each path's when the
 * path keeps its name.
 */
#ifndef VBRD_PATHSEL_CONFIG_H
#define VBRD_PATHSEL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"

#define PATHSEL_TIERS      3 /* enum cfg_tier */
#define PATHSEL_MAX_GROUPS CFG_MAX_GROUPS
#define PATHSEL_MAX_PLANES CFG_MAX_PLANES /* planes per path (pipeline: 4-bit plane table) */
#define PATHSEL_MAX_WINDOW 1024
#define PATHSEL_STAMP_PORT 862 /* RFC 8762 §4.1: the session-reflector's UDP port */

enum pathsel_objective { PATHSEL_OBJ_LATENCY = 0, PATHSEL_OBJ_WEIGHTED, PATHSEL_OBJ_COST };
enum pathsel_reflector_mode {
	PATHSEL_REFLECT_STATEFUL = 0,
	PATHSEL_REFLECT_STATELESS,
	PATHSEL_REFLECT_OFF
};

/** What one tier of traffic asks of a path. */
struct cfg_ps_tier {
	enum pathsel_objective objective;
	uint32_t max_loss_ppm; /* parts per million (max_loss 1.0 % = 10000) */
	double latency_weight, jitter_weight, loss_weight, cost_weight; /* "weighted" */
};

/** Per-path settings of a group (all optional). */
struct cfg_ps_path {
	char path[CFG_NAME_MAX]; /* a path of the group's path group */
	int path_index;          /* index into the path group's paths */
	char bfd[CFG_NAME_MAX]; /* a BFD session whose Down is a hard failure of the path ("" none) */
	int bfd_index;          /* index into bfd_config.sessions, -1: none */
	uint64_t capacity_bps; /* spread: the path's share; 0 = equal shares */
	int line;
};

struct cfg_ps_group {
	char path_group[CFG_NAME_MAX];
	int pg_index;           /* index into vbrd_config.path_groups */
	uint32_t interval_us;   /* 1000..1000000 */
	uint32_t window;        /* probes per plane, 10..PATHSEL_MAX_WINDOW */
	uint32_t lost_down;     /* 1..255 */
	uint32_t margin_ppm;    /* margin as parts per million (10 % = 100000) */
	uint32_t margin_min_us; /* 0..60000000 */
	uint32_t hold_us;       /* 0..60000000 */
	uint32_t dwell_ms;      /* 0..600000: after a switch for a fault, no optimisation switch */
	uint32_t plane_max_loss_ppm; /* plane_max_loss: a plane lossier than this (and than its
	                              * path's other planes) is taken out; default 1 % */
	int policy;                  /* index into the qos policies, -1: none */
	char policy_name[CFG_NAME_MAX];
	enum cfg_tier default_tier;
	bool spread;
	uint32_t flowlet_gap_us; /* 10..1000000 */
	int nb_paths;            /* the paths listed in `paths` (not every path of the group) */
	struct cfg_ps_path paths[CFG_MAX_PATHS];
	int line;
};

#define PATHSEL_REFLECT_FROM_MAX     16
#define PATHSEL_DEFAULT_REFLECT_RATE 20000u

/** The section, in struct vbrd_config's feature storage (pathsel_config_get()). */
struct cfg_pathsel {
	bool present; /* the file has a non-empty pathsel group; when false
	               * every other field holds its default (no groups) */
	enum pathsel_reflector_mode reflector;
	int nb_reflect_from;
	struct cfg_prefix reflect_from[PATHSEL_REFLECT_FROM_MAX]; /* plain senders answered */
	uint32_t reflect_rate;                                    /* replies per second at most */
	struct cfg_ps_tier tiers[PATHSEL_TIERS];
	int nb_groups;
	struct cfg_ps_group *groups;
};

#define PATHSEL_DEFAULT_INTERVAL_US        10000u
#define PATHSEL_DEFAULT_WINDOW             100u
#define PATHSEL_DEFAULT_LOST_DOWN          3u
#define PATHSEL_DEFAULT_MARGIN_PPM         100000u
#define PATHSEL_DEFAULT_MARGIN_MIN         2000u /* µs */
#define PATHSEL_DEFAULT_HOLD_US            100000u
#define PATHSEL_DEFAULT_DWELL_MS           60000u
#define PATHSEL_DEFAULT_PLANE_MAX_LOSS_PPM 10000u /* 1 % */
#define PATHSEL_DEFAULT_FLOWLET_US         500u

/** The section of @p cfg (never NULL; `present` false when the file has none). */
const struct cfg_pathsel *pathsel_config_get(const struct vbrd_config *cfg);

/** The group of @p cfg that selects for path group @p pg_index, or NULL. */
const struct cfg_ps_group *pathsel_config_group(const struct vbrd_config *cfg, int pg_index);

/**
 * The settings of path @p path_index (into the path group's paths) in group
 * @p g, or NULL when `paths` does not list it (no BFD, equal share).
 */
const struct cfg_ps_path *pathsel_config_path(const struct cfg_ps_group *g, int path_index);

/** The default tier settings (the table at the top of this file) into @p t[PATHSEL_TIERS]. */
void pathsel_tier_defaults(struct cfg_ps_tier *t);

/** "latency", "weighted", "cost". */
const char *pathsel_objective_name(enum pathsel_objective o);

/** "stateful", "stateless", "off". */
const char *pathsel_reflector_name(enum pathsel_reflector_mode m);

#endif
