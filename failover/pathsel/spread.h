/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load spreading over a path group's healthy paths by flowlets: the
 * decision alone, in plain C (no DPDK, no clock, no atomics), so that it
 * is unit-tested on simulated time. One table per worker per group; the
 * worker calls spread_pick() for every packet of a spread tier.
 *
 * A flowlet is a burst of one flow's packets with no idle time of `gap` or
 * more inside (Kandula et al., "Dynamic load balancing without packet
 * reordering", SIGCOMM CCR 2007; CONGA, SIGCOMM 2014). While a flowlet
 * lasts its packets keep their path; a new flowlet may take another path.
 * With `gap` above the paths' one-way delay difference (the config's
 * flowlet_gap), the first packet of the new flowlet arrives after the last
 * one of the old: nothing is reordered. Moving flowlets rather than whole
 * flows splits an elephant's bursts over the lines, where a flow hash
 * (ECMP) pins it to one.
 *
 * - **Where a flowlet goes.** To the path of the weights furthest below
 *   its share of the bytes recently sent, its *deficit*:
 *   share[i] / Σshare × Σrecent - recent[i], over the paths in the weights.
 *   Bytes are counted per packet, so a flowlet that started on a path
 *   makes it less attractive at once; the scan runs only when a flowlet
 *   starts. Ties go to the path listed first.
 * - **Recently sent.** Each path's byte counter is halved every
 *   SPREAD_DECAY_GAPS × gap (256 ms at the default gap of 0.5 ms): the
 *   deficit follows the load of the last ~0.4 s, not all-time totals. All
 *   counters are halved together, so a halving never changes which path
 *   is chosen; it only makes new bytes weigh more than old ones. The
 *   memory must span many flowlets of the largest flows: with a shorter
 *   one (64 ms) the deficit mostly sees the elephant bursts in progress,
 *   and a second elephant's burst goes wherever the first is not, which
 *   pulls shares 2:1 towards 1:1 (1.79:1 in the unit test). A longer gap
 *   means longer flowlets, hence the period in gaps. With it, the unit
 *   test's 1 s is within 5 % of the shares.
 * - **A path joining the weights** (healthy again, or new) starts level:
 *   at the next flowlet start its recent bytes are set to its share of
 *   what the other paths sent recently. Its absence is not paid back,
 *   which would send it every new flowlet, above its capacity, until its
 *   count caught up. A share that changes is followed by the decay.
 * - **The table.** Entries are indexed by the flow hash multiplied by a
 *   Fibonacci constant, high bits first (Knuth, TAOCP vol. 3, §6.4): every
 *   bit of the hash counts, so flows that agree on their low bits (an RSS
 *   queue's, or ECMP's hash % n before this group) still use the whole
 *   table. An entry keeps the last flow's hash, its path and when its
 *   flowlet ends (its last packet + gap). Two flows on one entry (a collision: among n live flows, about
 *   n² / (2 × entries) pairs) share a flowlet: acceptable, they only move
 *   together, and only once both have been idle for a gap, so neither is
 *   reordered. `collisions` counts them.
 * - **A path leaving the weights** (unhealthy): its flows move at their
 *   next packet, into a new flowlet; that reorders at most once per flow,
 *   on a failure only (and the old path's packets in flight are likely
 *   lost anyway). Nothing is sent to a path that is not in the weights.
 * - **Weights that change** between calls (nb growing or shrinking,
 *   shares changing): live flowlets stay on their path while it is in the
 *   weights; new ones see the new set. Byte counters are kept per path
 *   index of the group, so a change loses no measurement.
 * - **What it cannot do**: a flow that never pauses for a gap stays on
 *   its first path for good (no reordering comes first); the others'
 *   flowlets make up around it.
 * - **Cost per packet**: one table entry (16 bytes) read and written, a
 *   time and a hash compare, a bit test of the flowlet's path in the
 *   weights' mask, three counter adds. The caller gives a burst at once
 *   (spread_pick_burst()): the decay check and the weights' mask are
 *   per burst. A new flowlet's pick scans the weights' nb (<= 8) paths:
 *   in integers when the shares are equal, else in double.
 * - **Threads.** A table belongs to one worker: no atomics. The weights
 *   are written by the path-selection thread; the caller publishes whole
 *   structs (double buffer, or one atomic pointer store) and passes the
 *   current one. A call reads nb once and checks every path index, so even
 *   a torn read stays in bounds (it may then choose from a mix of the old
 *   and new sets).
 */
#ifndef VBRD_SPREAD_H
#define VBRD_SPREAD_H

#include <stddef.h>
#include <stdint.h>

#define SPREAD_MAX_PATHS   8
#define SPREAD_MAX_ENTRIES (1u << 24)
#define SPREAD_DECAY_GAPS  512u  /* recent bytes are halved every this many gaps */
#define SPREAD_NO_PATH     0xffu /* spread_pick_burst(): no path for the packet */

/** The paths that may carry a tier's traffic now, written by the path-selection thread. */
struct spread_weights {
	uint8_t nb;                       /* paths that may carry traffic now (healthy ones) */
	uint8_t path[SPREAD_MAX_PATHS];   /* their indexes in the group, < SPREAD_MAX_PATHS */
	uint32_t share[SPREAD_MAX_PATHS]; /* relative shares (capacity, any unit), > 0 */
};

/** A worker's flowlet entries and per-path byte counters for one group (opaque). */
struct spread_table;

/** Counters for show (since spread_table_init()). */
struct spread_stats {
	uint64_t flowlets;   /* new flowlets started (a flow's first packet included) */
	uint64_t moved;      /* of them: a flow's new flowlet on another path than its last */
	uint64_t failover;   /* of those: a live flowlet moved because its path left the weights */
	uint64_t collisions; /* packets that found their entry live with another flow's hash */
	uint64_t packets[SPREAD_MAX_PATHS]; /* per path index of the group */
	uint64_t bytes[SPREAD_MAX_PATHS];   /* per path index, all-time */
	uint64_t recent[SPREAD_MAX_PATHS];  /* per path index, decayed: what the deficit compares */
};

/**
 * Memory a table of @p entries flowlet entries needs (16 bytes each plus
 * the counters; 4096 entries: ~64 KiB).
 *
 * @param entries  a power of two, 1..SPREAD_MAX_ENTRIES (4096 suits a few
 *                 thousand concurrent flows per worker)
 * @return         bytes, or 0 when @p entries is not a valid count
 */
size_t spread_table_size(unsigned entries);

/**
 * Initialise a table in memory of spread_table_size(@p entries) bytes (any
 * alignment of uint64_t): every entry empty, every counter zero.
 *
 * @param t        the memory
 * @param entries  as for spread_table_size(), which must not have returned 0
 */
void spread_table_init(struct spread_table *t, unsigned entries);

/**
 * The path for one packet.
 *
 * The flow's flowlet goes on when its entry was used less than @p gap ago
 * and the entry's path is still in @p w: that path. Otherwise a new
 * flowlet starts, on the path of @p w with the largest deficit (this
 * file's head), and the entry remembers it. The packet's bytes are counted
 * on the path returned.
 *
 * @param t      the worker's table for the group
 * @param w      the paths allowed now, with their shares
 * @param hash   the flow's 32-bit hash (the inner 5-tuple's, flow_hash_ipv4())
 * @param bytes  the packet's length, bytes (any consistent measure: frame or IP length)
 * @param now    the time, in the caller's clock (ns, TSC cycles); not decreasing
 * @param gap    idle time that ends a flowlet, same unit as @p now, above
 *               the delay difference of the paths (0: every packet is a
 *               new flowlet, which reorders)
 * @return       the path's index in the group (one of w->path[]), or -1
 *               when @p w has no path (w->nb == 0)
 */
int spread_pick(struct spread_table *t, const struct spread_weights *w, uint32_t hash,
		uint32_t bytes, uint64_t now, uint64_t gap);

/**
 * The paths for a burst of packets at one time: for each in turn what
 * spread_pick() does, with what the burst shares done once (the decay
 * check, which paths the weights hold, whether their shares are equal,
 * who joined them). With equal shares a new flowlet takes the path of
 * least recent bytes (the deficit's order, in integers).
 *
 * @param t      the worker's table for the group
 * @param w      the paths allowed now, with their shares (read for the whole burst)
 * @param hash   each packet's flow hash, @p n of them
 * @param bytes  each packet's length, bytes
 * @param n      packets
 * @param now    the burst's time (as for spread_pick())
 * @param gap    as for spread_pick()
 * @param path   out: each packet's path index in the group, or
 *               SPREAD_NO_PATH when @p w has no path
 */
void spread_pick_burst(struct spread_table *t, const struct spread_weights *w, const uint32_t *hash,
		       const uint32_t *bytes, unsigned n, uint64_t now, uint64_t gap,
		       uint8_t *path);

/**
 * The table's counters.
 *
 * @param t    the table
 * @param out  filled in
 */
void spread_stats(const struct spread_table *t, struct spread_stats *out);

#endif
