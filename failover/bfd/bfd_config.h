/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bfd configuration model: sections "bfd" and "failover_groups"
 * turned into plain C structs (bfd_config.c; no DPDK, so
 * `vbrd --check-config`, the unit tests and the fuzzer link it).
 *
 *     bfd = {
 *       transmit_interval = 10;       # ms (a number: 3.3 is fine), default 300
 *       receive_interval = 10;        # ms, default 300
 *       detect_multiplier = 3;        # 1..255, default 3
 *       sessions = (
 *         # single-hop (RFC 5881, UDP 3784, TTL 255): a neighbor on an interface
 *         { name = "l1"; interface = "line1"; peer = "172.16.1.2"; },
 *         # multihop (RFC 5883, UDP 4784) between two addresses
 *         { name = "mh"; multihop = true; local = "10.0.0.1"; peer = "10.9.9.9"; },
 *         # over a tunnel (the DR tunnel to the HA partner): multihop between
 *         # the tunnel's inner addresses, sent through the path group
 *         { name = "dr"; path_group = "dr"; peer = "10.99.0.2";
 *           transmit_interval = 5; receive_interval = 5;
 *           auth = { type = "meticulous-sha1"; key_id = 1; key = "secret"; }; }
 *       );
 *     };
 *     failover_groups = (
 *       { name = "to-idc";
 *         mode = "active-standby";    # or "load-balance"
 *         revertive = true;           # default true: back to the first member
 *         hold_down = 1000;           # ms the first member must stay Up first
 *         members = (
 *           { interface = "line1"; via = "172.16.1.2"; via6 = "fd00:1::2"; bfd = "l1"; },
 *           { path_group = "dr"; bfd = "dr"; }
 *         ); }
 *     );
 *     routes = ( { prefix = "10.1.0.0/16"; failover_group = "to-idc"; } );
 *
 * Every setting is live: a reload applies it to running sessions (a Poll
 * sequence for new intervals, RFC 5880 §6.8.3) without taking them down.
 * A session is the same session across a reload when its key is: name,
 * kind (single-hop / multihop / tunnel), interface or path group, and the
 * local and peer addresses. Anything else is a new session.
 */
#ifndef VBRD_BFD_CONFIG_H
#define VBRD_BFD_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"
#include "failover/bfd/bfd_proto.h"

#define BFD_MAX_SESSIONS 1024
#define FGROUP_MAX       256

#define BFD_DEFAULT_INTERVAL_US     300000u /* transmit_interval, receive_interval: 300 ms */
#define BFD_DEFAULT_DETECT_MULT     3
#define FGROUP_DEFAULT_HOLD_DOWN_MS 1000u

enum cfg_bfd_kind {
	CFG_BFD_SINGLE_HOP = 0, /* RFC 5881: `interface`, peer on its subnet */
	CFG_BFD_MULTIHOP,       /* RFC 5883: `multihop = true` */
	CFG_BFD_TUNNEL,         /* RFC 5883 inside a path group's tunnel: `path_group` */
};

/** One BFD session. */
struct cfg_bfd_session {
	char name[CFG_NAME_MAX];
	enum cfg_bfd_kind kind;
	int iface;                /* single-hop: index into vbrd_config.ifaces; else -1 */
	int path_group;           /* tunnel: index into vbrd_config.path_groups; else -1 */
	struct cfg_addr local;    /* own address: default the interface's (or the tunnel's
	                           * inner) address whose subnet holds the peer (the first
	                           * such); given, it must be one of them; multihop:
	                           * required, and an address of some interface */
	struct cfg_addr peer;     /* the neighbor */
	struct bfd_params params; /* intervals in µs, detect multiplier, passive,
	                           * admin_down (`shutdown = true`), auth */
	uint8_t min_ttl;          /* multihop and tunnel: received packets with a lower
	                           * TTL/hop limit are dropped (RFC 5883 §5), default
	                           * BFD_DEFAULT_MIN_TTL; single-hop: 255 (RFC 5881 §5) */
	int line;
};

/* FRR's bfdd default (minimum-ttl 254): a multihop peer at most one router
 * away unless configured; vbrd itself sends multihop packets with TTL 255. */
#define BFD_DEFAULT_MIN_TTL 254

enum cfg_fgroup_mode {
	CFG_FG_ACTIVE_STANDBY = 0,
	CFG_FG_LOAD_BALANCE,
};

enum cfg_fgroup_member_kind {
	CFG_FG_LINE = 0, /* a local line: `interface` + `via` (+ `via6`) */
	CFG_FG_TUNNEL,   /* the HA partner through a DR tunnel: `path_group` */
};

/** One member of a failover group. */
struct cfg_fgroup_member {
	enum cfg_fgroup_member_kind kind;
	int iface;            /* line: index into vbrd_config.ifaces (resolved from `via`
	                       * when `interface` is absent, as routes do); else -1 */
	struct cfg_addr via;  /* line: IPv4 gateway (family 0 when only via6) */
	struct cfg_addr via6; /* line: IPv6 gateway (family 0 when none) */
	int path_group;       /* tunnel: index into vbrd_config.path_groups; else -1 */
	int bfd;              /* index into bfd_config.sessions; -1: no BFD (always up) */
	int line;
};

/** A failover group: exactly two members (the Express Connect rule). */
struct cfg_fgroup {
	char name[CFG_NAME_MAX];
	enum cfg_fgroup_mode mode;
	bool revertive;        /* default true */
	uint32_t hold_down_ms; /* default 1000; 0 = fail back at once */
	struct cfg_fgroup_member members[2];
	int line;
};

/** Sections "bfd" and "failover_groups". */
struct bfd_config {
	struct bfd_params defaults; /* bfd.transmit_interval, receive_interval,
	                             * detect_multiplier: what sessions inherit
	                             * (BFD_DEFAULT_* when absent) */
	int nb_sessions;
	struct cfg_bfd_session *sessions;
	int nb_groups;
	struct cfg_fgroup *groups;
};

/**
 * The loaded failover configuration of @p cfg: never NULL (an empty one
 * for a config without the sections, or a zeroed struct vbrd_config).
 */
const struct bfd_config *bfd_config_get(const struct vbrd_config *cfg);

/**
 * Index of failover group @p name in @p cfg, or -1. Also the resolver of
 * routes' `failover_group = "NAME"` (route_target_register(); the FIB
 * kind of that name is the BFD worker's, bfd_worker.c).
 */
int fgroup_index(const struct vbrd_config *cfg, const char *name);

/**
 * Index of BFD session @p name in bfd_config.sessions of @p cfg, or
 * -1. For sections that name a session; they load after "bfd".
 */
int bfd_session_index(const struct vbrd_config *cfg, const char *name);

/** "active-standby" / "load-balance". */
const char *cfg_fgroup_mode_name(enum cfg_fgroup_mode m);

/** "single-hop" / "multihop" / "tunnel". */
const char *cfg_bfd_kind_name(enum cfg_bfd_kind k);

#endif
