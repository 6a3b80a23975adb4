/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The persistent FIB: one rte_fib (IPv4, DIR24_8) and one rte_fib6 (trie)
 * that live across reloads and are changed in place by the difference
 * between two sorted route tables, plus the stable ids their values carry.
 *
 * A FIB value (fwd.h FIB_NH) names a next hop or an ECMP set by an id that
 * depends only on its content: the same gateway on the same interface has
 * the same id in every generation, so a route that a reload keeps keeps
 * its value and is never rewritten. An id is held (refcounted) by every
 * route table entry that uses it; a table is held by its forwarding state,
 * so an id lives as long as some state still lists it, and each new state's
 * nexthops[] / ecmp[] arrays cover every live id (the old FIB entries
 * included) - see pipeline/README.md for the RCU order this relies on.
 *
 * The id tables and route tables are plain C (no EAL): unit-tested alone.
 * Only the control side (the main lcore or the reload thread, one at a
 * time) calls anything here; nothing is thread-safe by itself.
 */
#ifndef VBRD_FIB_H
#define VBRD_FIB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rte_fib;
struct rte_fib6;
struct vbrd_config;

/** One IPv4 FIB entry of a route table. */
struct fib_route4 {
	uint32_t addr;  /* network address, host order, host bits zero */
	uint8_t len;    /* prefix length, bits, 0..32 */
	uint8_t flags;  /* FIB_ROUTE_* */
	uint32_t value; /* FIB value, fwd.h FIB_NH() encoding */
};

/** One IPv6 FIB entry of a route table. */
struct fib_route6 {
	uint8_t addr[16]; /* network address, network order, host bits zero */
	uint8_t len;      /* prefix length, bits, 0..128 */
	uint8_t flags;    /* FIB_ROUTE_* */
	uint32_t value;   /* FIB value, fwd.h FIB_NH() encoding */
};

#define FIB_ROUTE_STATIC 0x1 /* from the `routes` section (not connected/local) */

/**
 * Every entry of both FIBs for one generation, sorted by (address, length)
 * with no duplicate prefix (fib_table_sort()). About 12 bytes an IPv4 route.
 */
struct fib_table {
	uint32_t table; /* the VRF's table id (what an overlay keys its routes by) */
	uint32_t nb4, cap4;
	struct fib_route4 *v4;
	uint32_t nb6, cap6;
	struct fib_route6 *v6;
	bool sorted;
};

/**
 * Append an IPv4 entry (unsorted until fib_table_sort()).
 *
 * @param t      the table
 * @param addr   network address, host order (host bits are cleared here)
 * @param len    prefix length, bits, 0..32
 * @param value  FIB value (FIB_NH()); the table takes over one reference
 *               of a FIB_KIND_NEXTHOP / FIB_KIND_ECMP id (fib_nexthop_get())
 * @param flags  FIB_ROUTE_*
 * @return       0, or -ENOMEM / -EINVAL (len > 32)
 */
int fib_table_add4(struct fib_table *t, uint32_t addr, uint8_t len, uint32_t value, uint8_t flags);

/** As fib_table_add4(), for IPv6: @p addr 16 bytes network order, @p len 0..128. */
int fib_table_add6(struct fib_table *t, const uint8_t *addr, uint8_t len, uint32_t value,
		   uint8_t flags);

/**
 * Sort both families by (address, length) and keep, of entries with the
 * same prefix, the one added last (as rte_fib_add() over an existing prefix
 * would), releasing the id references of the ones dropped. IPv4 uses an
 * LSD radix sort (O(n)), IPv6 qsort.
 *
 * @return 0, or -ENOMEM
 */
int fib_table_sort(struct fib_table *t);

/**
 * Release every id reference the entries hold (fib_value_put()) and the
 * arrays. Safe on a zeroed table.
 */
void fib_table_free(struct fib_table *t);

/** The IPv4 entry for exactly (@p addr, @p len) of a sorted table, or NULL. */
const struct fib_route4 *fib_table_find4(const struct fib_table *t, uint32_t addr, uint8_t len);

/** The IPv6 entry for exactly (@p addr masked to @p len, @p len) of a sorted table, or NULL. */
const struct fib_route6 *fib_table_find6(const struct fib_table *t, const uint8_t *addr,
					 uint8_t len);

/** What a FIB pair holds: entries and tbl8 groups per family. */
struct fib_capacity {
	uint32_t routes4; /* IPv4 entries (rte_fib_conf.max_routes) */
	uint32_t tbl8_4;  /* DIR24_8 tbl8 groups */
	uint32_t routes6; /* IPv6 entries */
	uint32_t tbl8_6;  /* trie tbl8 groups */
};

/**
 * The exact minimum a FIB pair needs to hold sorted table @p t: its entries,
 * and tbl8 groups - DIR24_8: one per distinct /24 that a prefix longer than
 * /24 falls in (lib/fib/dir24_8.c reserves exactly that); trie: one per
 * distinct (k-byte prefix, k >= 3) that some prefix longer than 8k bits
 * extends.
 */
void fib_table_need(const struct fib_table *t, struct fib_capacity *need);

/**
 * The capacity VRF @p vrf's FIB pair is created with for @p cfg: as
 * fib_capacity_for_config() with the entries of that VRF only, and the
 * VRF's own `fib` sizes (the `fib` section's for the VRF "default").
 */
void fib_capacity_for_vrf(const struct vbrd_config *cfg, int vrf, struct fib_capacity *cap);

/**
 * The capacity the default VRF's FIB pair is created with for @p cfg: the `fib` section's
 * sizes where set, else what the config's own routes, connected subnets,
 * broadcast and own addresses need, plus headroom (a quarter more and 1024
 * routes / 256 tbl8 groups), so reloads that grow the table a little change
 * the FIB in place. Computed from the parsed config, before any table.
 */
void fib_capacity_for_config(const struct vbrd_config *cfg, struct fib_capacity *cap);

/** Add to @p a the headroom fib_capacity_for_config() gives (a quarter more, plus constants). */
void fib_capacity_headroom(struct fib_capacity *a);

/* ---- stable ids -------------------------------------------------------- */

/** A next hop's content: what makes two next hops the same one. */
struct fib_nh_key {
	uint32_t family; /* AF_INET or AF_INET6 */
	uint32_t iface;  /* index into fwd_state.ifaces */
	uint32_t gw;     /* IPv4 gateway, host order; 0 = connected */
	uint8_t gw6[16]; /* IPv6 gateway, network order; zero = connected */
};

#define FIB_MAX_NEXTHOPS 65535u     /* fwd_ecmp.nh[] is 16 bits */
#define FIB_MAX_ECMP     (1u << 24) /* well inside FIB_NH_INDEX()'s 28 bits */

/**
 * The id of next hop @p k, created when new; takes one reference.
 * @return id >= 0, or -ENOSPC (FIB_MAX_NEXTHOPS live ids) / -ENOMEM
 */
int fib_nexthop_get(const struct fib_nh_key *k);

/**
 * The id of the ECMP set of @p nb next hop ids @p nh (order matters: the
 * flow hash picks a position), created when new; takes one reference. The
 * set holds one reference on each member for its lifetime; the caller's
 * references on @p nh are consumed either way (kept by a new set, released
 * when the set existed).
 * @param nb  2..CFG_MAX_ECMP
 * @return id >= 0, or -ENOSPC / -ENOMEM / -EINVAL
 */
int fib_ecmp_get(const uint16_t *nh, int nb);

/** Take one more reference on a live FIB value's id (nothing for kinds without an id). */
void fib_value_hold(uint32_t value);

/** Release one reference of a FIB value's id (nothing for kinds without an id). */
void fib_value_put(uint32_t value);

/** Ids ever used + 1: the size of a state's nexthops[] array that covers every live id. */
uint32_t fib_nexthop_ids(void);

/** As fib_nexthop_ids(), for ecmp[]. */
uint32_t fib_ecmp_ids(void);

/** Whether next hop id @p id is live; fills @p k when it is. */
bool fib_nexthop_key(uint32_t id, struct fib_nh_key *k);

/** Whether ECMP id @p id is live; fills @p nb / @p nh (CFG_MAX_ECMP entries) when it is. */
bool fib_ecmp_members(uint32_t id, uint16_t *nb, uint16_t *nh);

/** Live (referenced) next hop ids, and ECMP ids: for tests and `show fib`. */
uint32_t fib_nexthops_live(void);
uint32_t fib_ecmp_live(void);

/** References held on next hop @p id (0 when free). For tests. */
uint32_t fib_nexthop_refs(uint32_t id);

/* ---- the FIB objects ---------------------------------------------------- */

/**
 * An rte_fib and an rte_fib6 with the capacity they were created with,
 * shared (refcounted) by every forwarding state that reads them.
 */
struct fib_pair {
	struct rte_fib *fib;
	struct rte_fib6 *fib6;
	struct fib_capacity cap;
	uint32_t refs;
	uint64_t id; /* creation counter: names of the DPDK objects */
	/* The IPv4 FIB's DIR24_8 tables, read by fib_lookup4_one(): set by
	 * fib_pair_verify() once its lookups agree with rte_fib's; NULL
	 * until then, or when they did not (rte_fib_lookup_bulk() only). */
	const uint32_t *tbl24, *tbl8;
};

/**
 * One IPv4 lookup without a call, for bursts whose packets are of several
 * VRFs (pipeline/vrf_lookup.h): rte_fib has only a bulk lookup, whose call
 * costs more than the lookup itself for one packet. Reads DPDK 22.11's
 * DIR24_8 with 4-byte entries (lib/fib/dir24_8.h: entry = value << 1 |
 * extended, an extended tbl24 entry names a tbl8 group of 256); only on
 * a pair fib_pair_verify() accepted (p->tbl24 set).
 *
 * @param ip  IPv4 address, host order
 * @return    the FIB value, as rte_fib_lookup_bulk() gives it
 */
static inline uint32_t fib_lookup4_one(const uint32_t *tbl24, const uint32_t *tbl8, uint32_t ip)
{
	uint32_t e = tbl24[ip >> 8];

	if (__builtin_expect(e & 1, 0))
		e = tbl8[(e >> 1) * 256 + (ip & 0xff)];
	return e >> 1;
}

/**
 * Check that fib_lookup4_one() reads @p p's IPv4 FIB as rte_fib does: the
 * DIR24_8 layout it expects (4-byte entries, the default value, the
 * tables where 22.11 keeps them), then the lookups of every entry of
 * @p t (its first and last address; all of a large table's first 4096
 * entries and a spread of the rest) compared with rte_fib_lookup_bulk().
 * Sets p->tbl24 and p->tbl8 when all agree; leaves them NULL otherwise
 * (the data path then calls rte_fib_lookup_bulk() for each run).
 *
 * @param p  a pair holding exactly @p t's IPv4 entries (and an overlay's)
 * @return   true when accepted
 */
bool fib_pair_verify(struct fib_pair *p, const struct fib_table *t);

/**
 * Create an empty FIB pair (default value FIB_KIND_NONE) of capacity @p cap.
 *
 * @param cap    entries and tbl8 groups per family (each at least 1)
 * @param err    message on failure, @p errlen bytes (names the limit that
 *               could not be allocated)
 * @return       the pair with one reference, or NULL (rte_errno set)
 */
struct fib_pair *fib_pair_create(const struct fib_capacity *cap, char *err, size_t errlen);

/** Take one reference. */
void fib_pair_get(struct fib_pair *p);

/** Drop one reference; the last frees both FIBs. Only once no worker can read them. */
void fib_pair_put(struct fib_pair *p);

/**
 * Bytes of EAL memory fib_pair_create() takes for @p cap (fwd_fib_memsize()
 * plus fwd6_fib_memsize()).
 * @param page_size  EAL page size, bytes (4096 with --no-huge; 0 for hugepages)
 */
uint64_t fib_pair_memsize(const struct fib_capacity *cap, size_t page_size);

/**
 * Add or change one IPv4 route in place: readers see the old or the new
 * value, never a gap (rte_fib_add() over an existing prefix rewrites it).
 *
 * @param p      the pair
 * @param addr   network address, host order
 * @param len    prefix length, bits, 0..32
 * @param value  FIB value (FIB_NH()); its id must be covered by the
 *               published state's arrays before this is called
 * @return 0, or -ENOSPC (RIB nodes or tbl8 groups exhausted) / -EINVAL
 */
int fib_route_add4(struct fib_pair *p, uint32_t addr, uint8_t len, uint32_t value);

/**
 * Delete one IPv4 route: its addresses fall back to the covering route's
 * value (or FIB_KIND_NONE).
 * @return 0, -ENOENT (no such prefix), -EINVAL
 */
int fib_route_del4(struct fib_pair *p, uint32_t addr, uint8_t len);

/** As fib_route_add4(), IPv6: @p addr 16 bytes network order, @p len 0..128. */
int fib_route_add6(struct fib_pair *p, const uint8_t *addr, uint8_t len, uint32_t value);

/** As fib_route_del4(), IPv6. */
int fib_route_del6(struct fib_pair *p, const uint8_t *addr, uint8_t len);

/** What fib_apply() did. */
struct fib_apply_stats {
	uint32_t added, changed, deleted; /* entries, both families */
	uint32_t failed;                  /* adds or deletes refused by DPDK */
	int first_error;                  /* negative errno of the first failure, or 0 */
};

/**
 * Turn the FIB pair's contents from sorted table @p old into sorted table
 * @p new: deletions first (so tbl8 groups and RIB nodes never exceed what
 * the larger of the two tables needs), then additions and value changes,
 * one merge walk per pass (O(n), entries equal in both are not touched).
 * A failure does not stop the walk: the rest is applied and counted.
 *
 * @param p      pair holding exactly @p old's entries (an empty table for a
 *               fresh pair)
 * @param old    the table @p p holds now
 * @param new    the table it must hold
 * @param stats  filled (may be NULL)
 * @return 0, or the first failure's negative errno
 */
int fib_apply(struct fib_pair *p, const struct fib_table *old, const struct fib_table *new,
	      struct fib_apply_stats *stats);

/* ---- routes from a routing protocol ------------------------------------ */

/**
 * Routes a routing protocol installs between reloads (FRR over FPM,
 * frr/fpm/) live in the FIB beside the route tables': for each prefix the
 * FIB holds the table's entry when there is one (the configuration's
 * routes, connected subnets and own addresses win) and else the
 * overlay's. The overlay's owner changes the FIB itself, never during a
 * reload; fib_apply() asks it what a prefix the new table drops falls
 * back to, so no prefix the overlay has is ever missing from the FIB.
 */
/** One route of an overlay, for `show routes`. */
struct fib_overlay_route {
	uint32_t table;   /* the VRF's table id */
	uint8_t family;   /* AF_INET or AF_INET6 */
	uint8_t len;      /* prefix length, bits */
	uint8_t addr[16]; /* IPv4: a uint32_t in host order in the first 4 bytes; IPv6 */
	uint32_t value;   /* FIB value */
	uint8_t protocol; /* the routing protocol's number (rtm_protocol: 186 BGP) */
	bool active;      /* in the FIB (false: a route table entry has the prefix, or pending) */
	bool pending;     /* waits for a usable next hop (not in the FIB) */
	bool full;        /* the FIB refused it (full: size it with the fib section) */
};

struct fib_overlay {
	const char *name; /* "fpm" */
	/**
	 * The overlay's FIB value for exactly (@p addr host order, @p len) in
	 * the VRF of table id @p table, if it has the prefix.
	 */
	bool (*find4)(uint32_t table, uint32_t addr, uint8_t len, uint32_t *value);
	/** The same for IPv6 (@p addr 16 bytes, network order). */
	bool (*find6)(uint32_t table, const uint8_t *addr, uint8_t len, uint32_t *value);
	/** Prefixes it holds for table @p table, per family (what a FIB pair must find room for). */
	void (*count)(uint32_t table, uint32_t *routes4, uint32_t *routes6);
	/** Rows to walk for `show routes` (some empty): row() for 0 .. rows()-1. */
	uint32_t (*rows)(void);
	/** Route at row @p row into @p r, or false for an empty row. */
	bool (*row)(uint32_t row, struct fib_overlay_route *r);
	/**
	 * The route for exactly (@p family, @p addr, @p len) of table @p table
	 * into @p r (`show fib`), or false. @p addr: a uint32_t in host order,
	 * or 16 bytes.
	 */
	bool (*route)(uint32_t table, int family, const void *addr, uint8_t len,
		      struct fib_overlay_route *r);
};

/**
 * True from the start of a reload's build to the end of its FIB change
 * (app/reload.c sets it, main lcore): the FIB, its ids and the route
 * tables are the reload's then, and an overlay's owner leaves them alone.
 */
extern _Atomic bool fib_reload_running;

/** Set (or with NULL clear) the overlay; at most one. Main lcore, outside a reload. */
void fib_overlay_set(const struct fib_overlay *o);

/** The overlay set, or NULL. */
const struct fib_overlay *fib_overlay_get(void);

/** Whether every route @p need asks for fits in @p have. */
bool fib_capacity_fits(const struct fib_capacity *need, const struct fib_capacity *have);

#endif
