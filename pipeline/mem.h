/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL memory: what vbrd allocates in it, sized from the configuration, so
 * that `eal.memory_mb` (the memory vbrd runs in without hugepages, --no-huge
 * -m N) can be checked before start-up rather than failing at a reload.
 *
 * Sizes follow DPDK 22.11's allocators (rte_mempool, rte_ring, rte_fib);
 * what DPDK allocates for itself (EAL, devices, the neighbor hash) is a
 * measured constant, MEM_EAL_BASE_BYTES and MEM_PORT_BYTES.
 */
#ifndef VBRD_MEM_H
#define VBRD_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "core/config.h"

/* What main.c creates besides the packet mempool. */
#define MEM_INDIRECT_MBUFS  8191 /* data-less mbufs for IPv4 fragments */
#define MEM_INDIRECT_CACHE  256
#define MEM_TO_CONTROL_RING 4096 /* workers → control ring, slots */
#define MEM_INJECT_RING     1024 /* control → worker ring, slots per worker */

/*
 * Measured, DPDK 22.11.11, --no-huge: what the EAL heap holds after start-up
 * beyond the items mem_need() counts (the EAL's own allocations, the
 * neighbor rte_hash, ethdev data and queues) was 2.07 MiB with a net_pcap
 * and a net_null port, 1.98 MiB with two af_packet ports, 2.18 MiB with four
 * net_null ports and two workers (telemetry /eal/heap_info). The smallest
 * memory_mb that started and took 3 reloads was, for those three configs,
 * 330, 586 and 363 MiB: the counted items plus these 2 MiB, within 0.4 MiB.
 * Counted here: a 3 MiB base, 256 KiB per port, and 4 MiB of slack (the
 * pcap replay ring, which depends on the file; other DPDK builds).
 */
#define MEM_EAL_BASE_BYTES (3u << 20)
#define MEM_PORT_BYTES     (256u << 10)
#define MEM_SLACK_BYTES    (4u << 20)

/** EAL memory of one configuration, bytes, item by item. */
struct mem_need {
	uint32_t nb_mbufs;   /* packet mbufs (mem_pool_mbufs) */
	uint32_t mbuf_bytes; /* memory per packet mbuf with its header and page padding */
	uint64_t mbufs;      /* the packet mempool */
	uint64_t indirect;   /* the indirect mempool */
	uint64_t rings;      /* control/inject rings, workers, TX buffers, RCU */
	uint64_t neighbors;  /* neighbor entries (the hash is in eal) */
	uint64_t fib;        /* the persistent FIB and FIB6 (pipeline/fib.h) */
	uint64_t eal;        /* EAL, devices, neighbor hash, heap slack */
	uint64_t total;      /* all of it (one FIB pair) */
	uint32_t total_mb;   /* total in MiB, rounded up */
};

/**
 * Bytes a mempool takes in EAL memory (rte_mempool_create() or
 * rte_pktmbuf_pool_create() with the default ring handler): the header
 * memzone (with RTE_MAX_LCORE caches when @p cache > 0), the ring of
 * 2^k >= n+1 slots, and the objects, laid out so that none crosses a
 * @p page_size page (rte_mempool_op_calc_mem_size_helper()).
 *
 * @param n          objects
 * @param elt_size   bytes of one object (for mbufs: sizeof(struct rte_mbuf)
 *                   + private area + data room)
 * @param cache      per-lcore cache, objects (0: none)
 * @param priv_size  bytes of the pool's private area
 * @param page_size  bytes of an EAL page: 4096 with --no-huge; 0 counts the
 *                   objects back to back (hugepages)
 */
uint64_t mem_mempool_size(uint32_t n, uint32_t elt_size, uint32_t cache, uint32_t priv_size,
			  size_t page_size);

/** Bytes of an rte_ring of @p count slots (rounded up to a power of two) with its memzone. */
uint64_t mem_ring_size(uint32_t count);

/**
 * Mbufs the packet mempool holds: the configured `mempool.mbufs`, or more
 * when every RX and TX ring, worker TX buffer, burst and cache could not be
 * filled at once.
 *
 * @param needed  if not NULL, that fill-every-ring count
 */
uint32_t mem_pool_mbufs(const struct vbrd_config *cfg, uint32_t *needed);

/** Data room of a packet mbuf, bytes: the largest port frame plus RTE_PKTMBUF_HEADROOM. */
uint16_t mem_mbuf_room(const struct vbrd_config *cfg);

/**
 * The EAL memory @p cfg needs to run and to take reloads: ONE FIB and FIB6,
 * sized by fib_capacity_for_config(), since a reload changes them in place
 * (pipeline/fib.h). A reload that outgrows them, or renumbers interfaces,
 * builds a second pair only when memory allows, else it is refused. The
 * packet mempool, rings and neighbor table are not rebuilt by a reload.
 *
 * @param cfg        a loaded configuration
 * @param page_size  EAL page, bytes (4096 with --no-huge; 0 for hugepages)
 * @param need       filled in
 */
void mem_need(const struct vbrd_config *cfg, size_t page_size, struct mem_need *need);

/**
 * Refuse an `eal.memory_mb` smaller than mem_need() with this machine's
 * page size: "FILE:LINE: eal.memory_mb: 256 MiB is too small for this
 * config: it needs at least N MiB (breakdown)".
 *
 * @param cfg     a loaded configuration
 * @param err     the message on failure, @p errlen bytes
 * @param need    if not NULL, filled in (also on success)
 * @return        0, or -ENOMEM when memory_mb is too small
 */
int mem_check(const struct vbrd_config *cfg, char *err, size_t errlen, struct mem_need *need);

#endif
