/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding state: interfaces, FIB and next hops, as workers see them.
 *
 * Built whole by the control thread from a configuration, published with
 * one atomic pointer store, and freed only after an RCU grace period
 * (rte_rcu_qsbr) once every worker has stopped looking at it. Workers never
 * see a half-built state, and never take a lock.
 */
#ifndef VBRD_FWD_H
#define VBRD_FWD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_rcu_qsbr.h>

#include "core/config.h"

struct drop_reason;
#include "core/module.h"
#include "pipeline/counters.h"
#include "pipeline/fib.h"

#define FWD_NO_IFACE 0xffff

/*
 * FIB next-hop values (rte_fib DIR24_8 with 4-byte next hops, so 31 bits):
 * the top bits give the kind, the rest an index into the matching array.
 */
#define FIB_KIND_SHIFT   28
#define FIB_KIND_NEXTHOP 0u /* index into fwd_state.nexthops */
#define FIB_KIND_ECMP    1u /* index into fwd_state.ecmp */
#define FIB_KIND_LOCAL   2u /* an own address; index = interface */
#define FIB_KIND_NONE    3u /* no route (the FIB default) */
#define FIB_KIND_PATHGRP 4u /* index into fwd_state.path_groups */
#define FIB_KIND_BCAST \
	5u /* a connected subnet's network or broadcast
                              * address: never forwarded (RFC 2644) */
/* 6 and 7: features' kinds, handed out by fwd_nh_kind_register() (nh_kind.h) */
#define FIB_KIND_FEATURE  6u
#define FIB_NH(kind, idx) ((uint64_t)(kind) << FIB_KIND_SHIFT | (idx))
#define FIB_NH_KIND(nh)   ((uint32_t)((nh) >> FIB_KIND_SHIFT) & 0x7)
#define FIB_NH_INDEX(nh)  ((uint32_t)(nh) & ((1u << FIB_KIND_SHIFT) - 1))

#define FWD_NO_PORT 0xffff

#define FWD_LOCAL_UDP_MAX 32 /* UDP ports (or port ranges) served on own addresses */
struct local_service;
struct worker;
struct rte_mbuf;

/** An interface as the data path uses it. */
struct fwd_iface {
	char name[CFG_NAME_MAX];
	uint16_t port;   /* DPDK port id; FWD_NO_PORT for a tunnel interface */
	uint16_t tunnel; /* tunnel interfaces: index into fwd_state.tunnels */
	uint16_t vlan;   /* 0 = untagged */
	uint16_t mtu;    /* bytes of L3 payload */
	uint16_t slot;   /* stable counter slot (survives reloads) */
	uint16_t vrf;    /* index into fwd_state.vrfs: where what it receives is routed */
	struct rte_ether_addr mac;
	/* its VRF's FIBs (fwd_state.vrfs[vrf].fib, .fib6): a received packet's
	 * lookup costs one load more than a single FIB's */
	struct rte_fib *fib;
	struct rte_fib6 *fib6;
	/* What follows the destination MAC in an IPv4 frame leaving by this
	 * interface, as the bytes go on the wire (l2_prepare(), pipeline/l2.h):
	 * bytes 6..13 (source MAC, then the ethertype 0x0800, or 0x8100 when
	 * tagged) and, when tagged, bytes 14..17 (TCI, ethertype 0x0800). */
	uint64_t l2_src4;
	uint32_t l2_tag4;
	uint32_t addr4; /* first IPv4 address, host order; 0 if none */
	uint8_t plen4;
	uint8_t ll6[16];   /* link-local fe80::/64 EUI-64 from the MAC (RFC 4291 App. A) */
	uint8_t addr6[16]; /* first global IPv6 address (ICMPv6 error source); zero if none */
	int nb_addrs;
	struct cfg_prefix addrs[4];
	/* set by a feature's state_build (NULL: none): transit received here is
	 * forwarded only while it is open */
	const struct fwd_gate *rx_gate;
};

/**
 * A gate on the transit traffic an interface receives: a feature (the HA
 * pair's standby, failover/ha/ha.h) lets what comes in by the interface be
 * forwarded only while the gate is open. What is for vbrd itself (ARP,
 * ND, own addresses: BFD, STAMP, ICMP) passes either way. The workers
 * compare their TSC with @c open_until_tsc, so a gate closes at its
 * deadline even when the control thread that renews it is late.
 */
struct fwd_gate {
	_Atomic uint64_t open_until_tsc;  /* TSC: open while rte_rdtsc() < this; 0 = closed */
	const struct drop_reason *closed; /* what a packet dropped at the closed gate counts as */
	/* a second unicast MAC the interface takes frames for while the gate is
	 * open (the HA pair's virtual MAC), when has_mac */
	bool has_mac;
	struct rte_ether_addr mac;
	/* own addresses (fwd_local_addrs) that are vbrd's only while the gate is
	 * open: what comes in by the interface for them is dropped when closed */
	bool has_local4, has_local6;
	uint32_t local4; /* host order */
	uint8_t local6[16];
};

/** Whether @p g lets transit through at TSC @p tsc (a NULL gate always does). */
static inline bool fwd_gate_open(const struct fwd_gate *g, uint64_t tsc)
{
	return g == NULL || tsc < atomic_load_explicit(&g->open_until_tsc, memory_order_relaxed);
}

/**
 * A feature's own addresses beyond the interfaces' and the tunnels' (the
 * HA pair's service address): every generation's route table gets them as
 * host routes to FIB_KIND_LOCAL of the interface named, so that vbrd
 * answers for them (ICMP echo), as for its own. Register from a
 * constructor; at most 4.
 */
struct fwd_local_addrs {
	const char *name; /* the feature, for messages */
	/**
	 * The addresses @p cfg gives, up to @p max, into @p addr, and the
	 * name of each one's interface into @p iface. Any thread.
	 * @return how many (0..max)
	 */
	int (*get)(const struct vbrd_config *cfg, struct cfg_addr *addr,
		   char (*iface)[CFG_NAME_MAX], int max);
};

/** Add @p la to the registry (aborts when full). */
void fwd_local_addrs_register(const struct fwd_local_addrs *la);

/** A next hop: where to send, and which neighbor's MAC to use. */
struct fwd_nexthop {
	uint16_t iface;  /* index into fwd_state.ifaces */
	uint32_t gw;     /* gateway, host order; 0 = connected: the destination */
	int family;      /* AF_INET or AF_INET6 */
	uint8_t gw6[16]; /* IPv6 gateway, network order; zero = connected */
	/* The gateway's MAC (neigh.h encoding, 0 = unresolved), kept current by
	 * the control thread so routed packets skip the neighbor hash. */
	_Atomic uint64_t mac;
};

/** An ECMP set (RFC 2992 hash-threshold is not needed: modulo over the set). */
struct fwd_ecmp {
	uint16_t nb;
	uint16_t nh[CFG_MAX_ECMP]; /* indexes into fwd_state.nexthops */
};

/** A tunnel endpoint pair (RFC 7348 VXLAN or RFC 8926 GENEVE). */
struct fwd_tunnel {
	char name[CFG_NAME_MAX];
	enum cfg_tunnel_type type;
	uint32_t vni;
	uint16_t udp_port;     /* outer destination port */
	uint16_t iface;        /* its interface in fwd_state.ifaces (its VRF: the inner packets') */
	uint16_t underlay_vrf; /* the outer packets' VRF: only they decapsulate */
	struct cfg_addr local, remote;
	uint8_t inner_mac[6];
	bool udp_zero_checksum6; /* accept a zero outer UDP checksum over IPv6 (RFC 6935 §5) */
};

#define FWD_PATH_HDR_MAX 96

/**
 * A path: a tunnel over one underlay line, with its outer headers prebuilt
 * so encapsulation is one copy plus the length and checksum fields.
 */
struct fwd_path {
	char name[CFG_NAME_MAX];
	uint16_t tunnel;     /* index into fwd_state.tunnels */
	uint16_t iface;      /* underlay interface (the line) */
	struct cfg_addr via; /* underlay next hop */
	int32_t plane;       /* first plane; -1 = source port from the flow hash */
	uint16_t nb_planes;  /* 0 (flow hash) or 1..16: planes plane .. plane + nb_planes - 1 */
	/* Which plane each of 16 flow-hash buckets takes, 4 bits per bucket
	 * (bucket b: bits 4b..4b+3), relative to `plane`: every bucket on a
	 * healthy plane. Built spread evenly; path selection rewrites it with
	 * one store when a plane goes down or up (tunnel_plane_tab()). */
	_Atomic uint64_t plane_tab;
	enum cfg_tier tier;
	uint32_t cost;
	uint16_t inner_mtu;   /* largest inner IP packet that fits, bytes */
	uint16_t l2_len;      /* outer Ethernet (+802.1Q) bytes in hdr */
	uint16_t l3_len;      /* outer IP header bytes (20 or 40) */
	uint16_t hdr_len;     /* whole template: L2, IP, UDP, tunnel header, inner Ethernet */
	uint32_t ip4_sum;     /* IPv4 outer: RFC 1071 sum of the template's IP header
	                       * (per-packet fields zero), for the incremental checksum */
	_Atomic uint64_t mac; /* the underlay next hop's MAC, as fwd_nexthop.mac */
	uint8_t hdr[FWD_PATH_HDR_MAX];
};

/**
 * The paths to one remote gateway. Switching every flow of the group to
 * another path is one atomic store of `active` (no per-flow state).
 */
struct fwd_path_group {
	char name[CFG_NAME_MAX];
	uint16_t nb_paths;
	uint16_t paths[CFG_MAX_PATHS];   /* indexes into fwd_state.paths */
	struct fwd_path *_Atomic active; /* NULL: no usable path */
	uint64_t switches;               /* control thread: how often active changed */
	/*
	 * Optional, set by a feature while the state is built: a packet's path
	 * chosen per packet (per-tier choice, load spreading) instead of
	 * `active`. Called on the general path only (the IPv4 fast path
	 * leaves a group with choose but without choose_burst, or with an
	 * IPv6 underlay, to it: each packet chosen for once); @p hash is the
	 * inner flow's hash.
	 * Returns NULL for "no usable path" (dropped as no_path).
	 */
	const struct fwd_path *(*choose)(struct worker *w, const struct fwd_state *st,
					 const struct fwd_path_group *g, struct rte_mbuf *m,
					 uint32_t hash);
	void *choose_ctx; /* the feature's, for choose() */
	/*
	 * Optional beside choose: the paths of @p n (<= FWD_CHOOSE_BURST)
	 * packets of the IPv4 fast path at once, so that what they share
	 * (classification, the tier's weights, the time) is done once per
	 * burst. @p hash holds their inner flows' hashes (fast4_flow_hash(),
	 * also the outer source port's entropy), @p len their lengths
	 * (pkt_len, bytes, as they came in); @p path gets each one's
	 * index in paths[], or FWD_NO_PATH (dropped as no_path). The packets
	 * are not changed. Each packet is chosen for exactly once.
	 */
	void (*choose_burst)(struct worker *w, const struct fwd_state *st,
			     const struct fwd_path_group *g, struct rte_mbuf **pkts,
			     const uint32_t *hash, const uint32_t *len, unsigned n, uint8_t *path);
	/* built with the paths, for choose_burst's packets: every path has an
	 * IPv4 underlay (the fast path's); the least inner MTU (bytes) and the
	 * most headroom a template needs (hdr_len - 14) over them */
	bool fast4;
	uint16_t fast4_mtu, fast4_grow;
};

#define FWD_CHOOSE_BURST 64   /* packets per fwd_path_group.choose_burst() call, at most */
#define FWD_NO_PATH      0xff /* choose_burst(): no usable path */

/**
 * A VRF: one routing table (an IPv4 and an IPv6 FIB) of its own. Its FIB
 * pair lives across reloads as the single FIB did (pipeline/fib.h): a
 * reload that keeps the VRF (by name) changes it in place, one that adds
 * one creates its pair, one that removes one frees it with the old state.
 */
struct fwd_vrf {
	/* what the data path reads first: its FIBs, and the IPv4 one's
	 * DIR24_8 tables for one lookup without a call (fib_lookup4_one(),
	 * NULL when fib_pair_verify() did not accept them) */
	struct rte_fib *fib;
	struct rte_fib6 *fib6; /* same next-hop encoding as fib (RTE_FIB6_TRIE_4B) */
	const uint32_t *tbl24, *tbl8;
	char name[CFG_NAME_MAX];
	uint32_t table;          /* FRR / Linux table id (254: the VRF "default") */
	struct fib_pair *fibs;   /* owner of fib and fib6 (one reference) */
	struct fib_table routes; /* every entry of fib and fib6 for this generation, sorted */
	uint32_t nb_routes4, nb_routes6; /* of which static (`routes`) */
	uint32_t nb_ifaces;              /* interfaces in it (tunnels included) */
	/* fibs still hold the previous generation's table: fwd_state_commit() */
	bool fib_pending;
};

/** One generation of forwarding state. Immutable once published. */
struct fwd_state {
	uint64_t generation;
	/* the configuration it was built from; its routes array is freed once
	 * the state is built (cfg.nb_routes = 0): the routes are in `routes` */
	struct vbrd_config cfg;
	int nb_ifaces;
	struct fwd_iface *ifaces;
	/* (port, VLAN) → interface index, FWD_NO_IFACE when none */
	uint16_t (*iface_by_vlan)[4096]; /* [port id < nb_port_ids][VLAN id] */
	uint16_t nb_port_ids;
	/* The VRFs, vrfs[0] the VRF "default": each with its persistent FIBs,
	 * shared with the states before and after it. Values name next hops and
	 * ECMP sets by stable id (pipeline/fib.h), one id space for all VRFs,
	 * so nexthops[] / ecmp[] cover every live id, including ids only the
	 * previous generation's routes still use. A next hop's interface may be
	 * of another VRF than the route (a leak, `nexthop_vrf`). */
	int nb_vrfs;
	struct fwd_vrf *vrfs;
	/* the first interface of the VRF "default" (0 when it has none): what
	 * vbrd's own packets with no interface of their own (multihop BFD) are
	 * routed as received by */
	uint16_t default_iface;
	int nb_nexthops;              /* slots, the free ones for fwd_dyn_nexthop() included */
	int nexthops_used;            /* ids below it may be in use (control side's loops) */
	struct fwd_nexthop *nexthops; /* by next-hop id; a free id is all zero */
	int nb_ecmp;
	struct fwd_ecmp *ecmp; /* by ECMP id; a free id has nb = 0 */
	int nb_tunnels;
	struct fwd_tunnel *tunnels;
	/* tunnels by (UDP port, remote, VNI), and remotes by (port, remote):
	 * the decapsulation's lookup (tunnel_lookup(), tunnel.h) */
	struct rte_hash *tunnel_hash;
	int nb_paths;
	struct fwd_path *paths;
	int nb_path_groups;
	struct fwd_path_group *path_groups;
	/* Every connected subnet's directed broadcast { prefix, -1 } and its
	 * obsolete form, the network address { prefix, 0 } (RFC 1812
	 * §4.2.3.1, §5.3.5), for every IPv4 prefix of length <= 30 of every
	 * interface (tunnel interfaces too): host order, sorted, no
	 * duplicates. Read by fwd_is_subnet_broadcast(). */
	int nb_bcast4;
	uint32_t *bcast4;
	time_t loaded_at;
	/* UDP ports served on own addresses (pipeline/local.h), few: scanned */
	uint16_t nb_udp;
	struct {
		uint16_t port;    /* host order: the first port */
		uint16_t port_hi; /* the last port of the range (port itself for one port) */
		const struct local_service *svc;
	} udp[FWD_LOCAL_UDP_MAX];
	/* What no local service takes (local_other(), pipeline/local.h): set
	 * by a feature's state_build (the control plane's TAPs); NULL: dropped */
	const struct local_service *local_other;
	/* What each module's state_build added, by vbrd_module.id (core/module.h);
	 * fwd_feature() reads it */
	void *feature[VBRD_MODULE_MAX];
};

/* Slots every state has beyond the ids live when it was built, for what a
 * routing protocol adds before the next reload (fwd_dyn_nexthop()). */
#define FWD_DYN_NEXTHOPS 4096
#define FWD_DYN_ECMP     4096

/**
 * A next hop for a route a routing protocol installs between reloads
 * (frr/fpm): takes one reference on its stable id (fib_nexthop_get()) and,
 * when the id's slot in the published state @p st is free, fills it (the
 * gateway's MAC from the neighbor table; unresolved, the data path
 * resolves it as for any route), so that a FIB entry may carry the value
 * at once. Main lcore, never while a reload runs.
 *
 * @param k      family, interface index of @p st, gateway (0 / zero: connected)
 * @param value  the FIB value (FIB_KIND_NEXTHOP)
 * @return 0, -EINVAL (no such interface), -ENOSPC (no free id or slot: a
 *         reload makes room), -ENOMEM
 */
int fwd_dyn_nexthop(struct fwd_state *st, const struct fib_nh_key *k, uint32_t *value);

/**
 * An ECMP set of next hops for such a route: as fwd_dyn_nexthop(). Takes
 * its own references on @p values (the caller keeps its own).
 *
 * @param values  @p nb FIB values of kind FIB_KIND_NEXTHOP, in order
 * @param nb      2..CFG_MAX_ECMP
 * @return 0, -EINVAL, -ENOSPC, -ENOMEM
 */
int fwd_dyn_ecmp(struct fwd_state *st, const uint32_t *values, int nb, uint32_t *value);

/** The data module @p m's state_build hook kept in @p st (NULL when none). */
static inline void *fwd_feature(const struct fwd_state *st, const struct vbrd_module *m)
{
	return st->feature[m->id];
}

/**
 * Build a forwarding state from a validated configuration, without
 * touching the FIB that workers read: safe off the main lcore (the reload
 * thread), as long as one build or commit runs at a time.
 *
 * The new state's route table (st->routes) holds every FIB entry of the
 * generation. When @p prev's FIB pair can take it (the capacity of its
 * creation holds both tables, and @p prev's interfaces and path groups are
 * a prefix of the new ones, so the indexes that FIB values carry keep
 * their meaning), the state shares that pair and st->fib_pending is set:
 * the FIB is changed in place by fwd_state_commit() once the state is
 * published. Otherwise (start-up, a reload that outgrows the FIB or renumbers
 * interfaces) a fresh pair is created and filled here; it needs a second
 * FIB's worth of EAL memory until the old one is freed.
 *
 * @param cfg      configuration; its contents are moved into the state
 *                 (cfg is zeroed on success; the routes array is freed)
 * @param port_ids DPDK port id of each cfg->ports[i]
 * @param prev     the running state (stable interface slots, the FIB to
 *                 change in place), or NULL
 * @param out      the new state
 * @param err      message on failure, @p errlen bytes
 * @return         0, or -ENOMEM / -ENOSPC (more next hops than ids, FIB
 *                 full and no memory for a larger one) / -EINVAL
 */
int fwd_state_build(struct vbrd_config *cfg, const uint16_t *port_ids, const struct fwd_state *prev,
		    struct fwd_state **out, char *err, size_t errlen);

/**
 * The IPv4 FIB fwd_state_build() creates for @p cfg at start-up: DIR24_8
 * with 4-byte next hops, sized by fib_capacity_for_config() (the config's
 * entries and tbl8 groups plus headroom, or the `fib` section's sizes).
 */
void fwd_fib_conf(const struct vbrd_config *cfg, struct rte_fib_conf *fc);

/**
 * Bytes of EAL memory rte_fib_create() takes for @p fc (DPDK 22.11
 * lib/fib/dir24_8.c and lib/rib): the 2^24-entry tbl24 (64 MiB with 4-byte
 * next hops), tbl8 groups, and the RIB's node mempool.
 *
 * @param page_size  EAL page size, bytes (4096 with --no-huge; 0 for hugepages)
 */
uint64_t fwd_fib_memsize(const struct rte_fib_conf *fc, size_t page_size);

/**
 * The FIB value of an ECMP route (RFC 2992): one reference on the stable id
 * of its next-hop set (pipeline/fib.h), which holds one on each member's.
 * Either family: the members' gateways are @p cr's family.
 *
 * @param cr     a route of 2..CFG_MAX_ECMP next hops
 * @param value  FIB_NH(FIB_KIND_ECMP, id) on success
 * @return       0, or the error of fib_nexthop_get() / fib_ecmp_get()
 *               (no id left, no memory); nothing is held then
 */
int fwd_ecmp_value(const struct cfg_route *cr, uint32_t *value);

/**
 * Free a state no worker can see any more: its route table's id
 * references, its share of the FIB pair (the last share frees the FIBs).
 */
void fwd_state_free(struct fwd_state *st);

/** The state workers read. Written only by the control thread. */
extern struct fwd_state *_Atomic fwd_current;

/**
 * Publish @p st (one atomic store) and wait for an RCU grace period on
 * @p qsv: when this returns no worker reads the previous state, so the FIB
 * may now hold any value of @p st's table. Main lcore only.
 *
 * @return the previous state, still allocated, for fwd_state_commit()
 *         (NULL at start-up)
 */
struct fwd_state *fwd_state_swap(struct fwd_state *st, struct rte_rcu_qsbr *qsv);

/**
 * Bring the FIB from @p old's table to @p st's (fib_apply(): deletions,
 * then additions and changes; untouched entries keep forwarding), then
 * free @p old, which releases the ids only it used. Runs off the main
 * lcore too (the reload thread), after fwd_state_swap().
 *
 * @param st     the published state
 * @param old    what fwd_state_swap() returned (may be NULL)
 * @param stats  what was applied (may be NULL)
 * @return 0, or the first negative errno rte_fib refused (the rest was applied)
 */
int fwd_state_commit(struct fwd_state *st, struct fwd_state *old, struct fib_apply_stats *stats);

/**
 * fwd_state_swap() then fwd_state_commit(): publish @p st, wait for an RCU
 * grace period, change the FIB in place, free the previous state.
 */
void fwd_state_publish(struct fwd_state *st, struct rte_rcu_qsbr *qsv);

/**
 * The next hop a FIB value selects for a flow (RFC 2992: the flow hash picks
 * one member of an ECMP set, so a flow never reorders across paths).
 *
 * @param st     the forwarding state the value came from
 * @param fibnh  value from rte_fib lookup, kind FIB_KIND_NEXTHOP or FIB_KIND_ECMP
 * @param hash   flow hash (flow_hash_ipv4())
 * @return       index into st->nexthops
 */
static inline uint32_t fwd_nexthop_select(const struct fwd_state *st, uint64_t fibnh, uint32_t hash)
{
	uint32_t idx = FIB_NH_INDEX(fibnh);

	if (FIB_NH_KIND(fibnh) == FIB_KIND_ECMP) {
		const struct fwd_ecmp *e = &st->ecmp[idx];
		/* multiply-shift maps the hash onto [0, nb) without a division */
		idx = e->nh[((uint64_t)hash * e->nb) >> 32];
	}
	return idx;
}

/**
 * Make @p path the active path of group @p g (one atomic store: every flow
 * of the group moves at once). Control thread only.
 */
void fwd_path_group_switch(struct fwd_path_group *g, struct fwd_path *path);

/** Entries of every VRF's route table (interface, config and own addresses; not FRR's). */
uint32_t fwd_fib_entries(const struct fwd_state *st);

/** Index of the VRF named @p name in @p st, or -1. */
int fwd_vrf_find(const struct fwd_state *st, const char *name);

/** Index of the VRF of table id @p table in @p st, or -1. */
int fwd_vrf_by_table(const struct fwd_state *st, uint32_t table);

/** Path group by name, or NULL. */
struct fwd_path_group *fwd_path_group_find(const struct fwd_state *st, const char *name);

/**
 * Refresh the cached gateway MACs of @p st's next hops and paths whose
 * neighbor is (port, VLAN, family, address) — called by the neighbor table
 * whenever an entry's MAC changes, and once for a state before it is
 * published. @p mac in neigh.h encoding, 0 = unresolved.
 */
void fwd_neigh_changed(struct fwd_state *st, uint16_t port, uint16_t vlan, int family,
		       const void *addr, uint64_t mac);

/**
 * The static neighbor (`neighbors = ...` of @p st's configuration) that is
 * (port, VLAN, family, address), or NULL. Parameters as fwd_neigh_mac().
 */
const struct cfg_neighbor *fwd_static_neigh(const struct fwd_state *st, uint16_t port,
					    uint16_t vlan, int family, const void *addr);

/**
 * The MAC a new state's next hops to neighbor (port, VLAN, family, address)
 * start with: the static neighbor of @p st's own configuration when it has
 * one, else the MAC the neighbor table holds for a neighbor it learned (ARP,
 * ND) — never that of a static entry @p st's configuration dropped (it is
 * removed once @p st is published, control_state_changed()).
 *
 * @param st      a state being built (its cfg set), or a published one
 * @param port    DPDK port id of the neighbor's interface
 * @param vlan    its VLAN id, 0 = untagged
 * @param family  AF_INET or AF_INET6
 * @param addr    IPv4 address (uint32_t, host order) or IPv6 (16 bytes, network order)
 * @return        MAC in neigh.h encoding, 0 when unresolved
 */
uint64_t fwd_neigh_mac(const struct fwd_state *st, uint16_t port, uint16_t vlan, int family,
		       const void *addr);

/**
 * Fill every cached gateway MAC of @p st (fwd_neigh_mac()) before it is
 * published, so that a reload which keeps a neighbor keeps forwarding to it
 * from the first packet: no next hop of the new state starts unresolved
 * for a neighbor that is static in its configuration or already learned.
 * Called by fwd_state_build() once st->cfg is set.
 */
void fwd_neigh_fill(struct fwd_state *st);

/**
 * Interface index of VRF @p vrf (-1: any VRF) owning address @p ip (host
 * order) as connected subnet, or -1.
 */
int fwd_iface_for_subnet(const struct fwd_state *st, int vrf, uint32_t ip);

/**
 * Whether IPv4 address @p ip lies in prefix @p p, which may be of either
 * family (an IPv6 prefix contains no IPv4 address). The family is checked
 * before the mask is built: a 32-bit shift by 32 minus an IPv6 length
 * (up to 128) would be by a negative amount, undefined (C11 §6.5.7).
 *
 * @param p   an interface address and its prefix length, bits
 * @param ip  IPv4 address, host order
 * @return    true when @p p is IPv4 and @p ip has its first p->len bits
 */
static inline bool fwd_prefix4_contains(const struct cfg_prefix *p, uint32_t ip)
{
	if (p->addr.family != AF_INET || p->len > 32)
		return false;
	uint32_t mask = p->len ? ~0u << (32 - p->len) : 0;
	return ((p->addr.v4 ^ ip) & mask) == 0;
}

/**
 * Whether @p ip is a connected subnet's directed broadcast or network
 * address (st->bcast4, built with the state): an address that names no
 * single host, so never the destination of an ICMP error (RFC 1812
 * §4.3.2.7, §5.3.7). /31 (RFC 3021) and /32 prefixes have none. Binary
 * search, for the data path.
 *
 * @param st  the forwarding state
 * @param ip  IPv4 address, host order
 * @return    true when @p ip is in st->bcast4
 */
static inline bool fwd_is_subnet_broadcast(const struct fwd_state *st, uint32_t ip)
{
	int lo = 0, hi = st->nb_bcast4;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (st->bcast4[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->nb_bcast4 && st->bcast4[lo] == ip;
}

#endif
