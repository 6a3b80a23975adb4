/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "pipeline/fwd.h"
#include "pipeline/fwd6.h"
#include "pipeline/mem.h"
#include "pipeline/neigh.h"
#include "pipeline/port.h"
#include "pipeline/worker.h"

/* rte_malloc's element header (MALLOC_ELEM_HEADER_LEN) and alignment, per allocation */
#define ELEM_BYTES 128

uint64_t mem_ring_size(uint32_t count)
{
	return (uint64_t)rte_ring_get_memsize(rte_align32pow2(count)) + ELEM_BYTES;
}

uint64_t mem_mempool_size(uint32_t n, uint32_t elt_size, uint32_t cache, uint32_t priv_size,
			  size_t page_size)
{
	/* rte_mempool_create_empty(): header, caches and private area in one memzone */
	uint64_t hdr = sizeof(struct rte_mempool) +
		       (cache ? (uint64_t)RTE_MAX_LCORE * sizeof(struct rte_mempool_cache) : 0) +
		       RTE_ALIGN_CEIL(priv_size, RTE_MEMPOOL_ALIGN);
	/* object header, element, trailer padded to spread over channels */
	uint64_t obj = rte_mempool_calc_obj_size(elt_size, 0, NULL);
	uint64_t objs;

	if (page_size == 0) {
		objs = obj * n;
	} else if (obj > page_size) {
		/* each object rounded up to whole pages */
		objs = RTE_ALIGN_CEIL(obj, page_size) * n;
	} else {
		uint64_t per_page = page_size / obj;
		uint64_t last = (n - 1) % per_page + 1;
		objs = last * obj + (n - last) / per_page * page_size + obj - 1;
	}
	return RTE_ALIGN_CEIL(hdr, RTE_MEMPOOL_ALIGN) + mem_ring_size(n + 1) + objs +
	       2 * ELEM_BYTES;
}

uint32_t mem_pool_mbufs(const struct vbrd_config *cfg, uint32_t *needed)
{
	uint32_t nb_workers = (uint32_t)cfg->workers.nb_cores, need = 1024;

	for (int i = 0; i < cfg->nb_ports; i++) {
		const struct cfg_port *p = &cfg->ports[i];
		uint32_t rxq = p->rx_queues ? p->rx_queues : nb_workers;
		need += rxq * p->rx_desc + nb_workers * (p->tx_desc + WORKER_TXB);
	}
	need += nb_workers * (WORKER_MAX_BURST + 2 * cfg->mempool.cache);
	if (needed != NULL)
		*needed = need;
	return RTE_MAX(cfg->mempool.mbufs, need);
}

uint16_t mem_mbuf_room(const struct vbrd_config *cfg)
{
	/* One segment holds a whole frame: no scattered RX to handle. */
	uint32_t max_room = RTE_MBUF_DEFAULT_DATAROOM;

	for (int i = 0; i < cfg->nb_ports; i++)
		max_room = RTE_MAX(max_room, port_mbuf_room(&cfg->ports[i]));
	return (uint16_t)(max_room + RTE_PKTMBUF_HEADROOM);
}

void mem_need(const struct vbrd_config *cfg, size_t page_size, struct mem_need *need)
{
	uint32_t nbw = (uint32_t)cfg->workers.nb_cores;
	uint32_t elt = sizeof(struct rte_mbuf) + mem_mbuf_room(cfg);
	struct fib_capacity cap;

	need->nb_mbufs = mem_pool_mbufs(cfg, NULL);
	need->mbufs = mem_mempool_size(need->nb_mbufs, elt, cfg->mempool.cache,
				       sizeof(struct rte_pktmbuf_pool_private), page_size);
	/* one mbuf with its object header, padded to the pages it takes */
	uint64_t obj = rte_mempool_calc_obj_size(elt, 0, NULL);
	need->mbuf_bytes = (uint32_t)(page_size == 0    ? obj
				      : obj > page_size ? RTE_ALIGN_CEIL(obj, page_size)
							: page_size / (page_size / obj));
	need->indirect = mem_mempool_size(MEM_INDIRECT_MBUFS, sizeof(struct rte_mbuf),
					  MEM_INDIRECT_CACHE,
					  sizeof(struct rte_pktmbuf_pool_private), page_size);
	need->rings = mem_ring_size(MEM_TO_CONTROL_RING) + nbw * mem_ring_size(MEM_INJECT_RING) +
		      nbw * (sizeof(struct worker) +
			     (uint64_t)cfg->nb_ports * sizeof(struct tx_buffer) + 2 * ELEM_BYTES) +
		      rte_rcu_qsbr_get_memsize(nbw + DP_RCU_CONTROL_READERS) + ELEM_BYTES;
	need->neighbors = (uint64_t)NEIGH_MAX * (sizeof(struct neigh) + sizeof(uint32_t)) +
			  2 * ELEM_BYTES;
	/* one FIB pair per VRF: a reload changes them in place (pipeline/fib.h) */
	need->fib = 0;
	for (int v = 0; v < (cfg->nb_vrfs > 0 ? cfg->nb_vrfs : 1); v++) {
		fib_capacity_for_vrf(cfg, v, &cap);
		need->fib += fib_pair_memsize(&cap, page_size);
	}
	need->eal = MEM_EAL_BASE_BYTES + (uint64_t)cfg->nb_ports * MEM_PORT_BYTES + MEM_SLACK_BYTES;
	/* the tunnels' decapsulation table (rte_hash, 3 keys a tunnel), the
	 * running state's and a reload's: ~128 bytes a key with its buckets */
	need->eal += 2 * ((uint64_t)3 * (uint64_t)cfg->nb_tunnels * 128 + 65536);
	need->total = need->mbufs + need->indirect + need->rings + need->neighbors + need->fib +
		      need->eal;
	need->total_mb = (uint32_t)((need->total + (1u << 20) - 1) >> 20);
}

static unsigned mib(uint64_t bytes)
{
	return (unsigned)((bytes + (1u << 20) - 1) >> 20);
}

int mem_check(const struct vbrd_config *cfg, char *err, size_t errlen, struct mem_need *need)
{
	struct mem_need n;
	char where[CFG_PATH_MAX + 16];

	mem_need(cfg, (size_t)sysconf(_SC_PAGESIZE), &n);
	if (need != NULL)
		*need = n;
	if (cfg->eal.memory_mb >= n.total_mb)
		return 0;
	if (cfg->eal.line > 0)
		snprintf(where, sizeof(where), "%s:%d", cfg->file, cfg->eal.line);
	else
		snprintf(where, sizeof(where), "%s", cfg->file);
	snprintf(err, errlen,
		 "%s: eal.memory_mb: %u MiB%s is too small for this config: it needs at least "
		 "%u MiB (packet mbufs %u x %u KiB = %u, indirect mbufs %u, FIB and FIB6 %u "
		 "(changed in place by a reload), neighbors %u, rings and workers %u, EAL and "
		 "devices %u)",
		 where, cfg->eal.memory_mb, cfg->eal.line > 0 ? "" : " (the default)", n.total_mb,
		 n.nb_mbufs, (n.mbuf_bytes + 1023) / 1024, mib(n.mbufs), mib(n.indirect),
		 mib(n.fib), mib(n.neighbors), mib(n.rings), mib(n.eal));
	return -ENOMEM;
}
