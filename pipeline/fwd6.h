/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 half of the forwarding state: interface link-local addresses
 * and the rte_fib6 of connected subnets, own addresses and static routes.
 * Called by fwd_state_build(); the data path reads fwd_state.fib6.
 */
#ifndef VBRD_FWD6_H
#define VBRD_FWD6_H

#include <stddef.h>

#include "pipeline/fwd.h"

/**
 * Fill the IPv6 part of a state being built: every interface's link-local
 * address (fe80::/64 with the modified EUI-64 of its MAC, RFC 4291 §2.5.1
 * and App. A) and first global address, then the IPv6 entries of its route
 * table st->routes (values encoded like fwd_state.fib, ids from
 * pipeline/fib.h): connected subnets (FIB_KIND_NEXTHOP, zero gateway), own
 * addresses as /128 (FIB_KIND_LOCAL), static IPv6 routes (FIB_KIND_NEXTHOP,
 * FIB_KIND_ECMP or a path group). The FIB6 itself is filled from the table.
 *
 * @param st      the state: ifaces (with MACs) and tunnels built
 * @param cfg     the configuration it is built from
 * @param err     message on failure, @p errlen bytes
 * @return        0, or -ENOMEM / -ENOSPC (next-hop ids exhausted)
 */
int fwd6_build(struct fwd_state *st, const struct vbrd_config *cfg, char *err, size_t errlen);

/**
 * The FIB6 created for @p cfg at start-up: a trie with 4-byte next hops,
 * sized by fib_capacity_for_config() (the config's IPv6 entries and the
 * tbl8 groups they need, plus headroom, or the `fib` section's sizes).
 */
void fwd6_fib_conf(const struct vbrd_config *cfg, struct rte_fib6_conf *fc);

/**
 * Bytes of EAL memory rte_fib6_create() takes for @p fc (DPDK 22.11
 * lib/fib/trie.c and lib/rib): the 2^24-entry tbl24 (64 MiB with 4-byte
 * next hops), tbl8 groups and their free pool, and the RIB6's node mempool.
 *
 * @param page_size  EAL page size, bytes (4096 with --no-huge; 0 for hugepages)
 */
uint64_t fwd6_fib_memsize(const struct rte_fib6_conf *fc, size_t page_size);

/** Interface index with a connected IPv6 subnet containing @p ip (16 bytes), or -1. */
int fwd6_iface_for_subnet(const struct fwd_state *st, const uint8_t *ip);

/** Whether @p ip (16 bytes) is one of @p fi's IPv6 addresses, its link-local one included. */
bool fwd6_iface_owns(const struct fwd_iface *fi, const uint8_t *ip);

#endif
