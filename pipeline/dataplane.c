/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared data-plane resources (module "dataplane"): the mbuf
 * dynamic field, the packet and indirect mempools, the RCU variable the
 * workers report to, and the worker → control ring. Everything else that
 * runs packets depends on it.
 */
#include <errno.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "core/config.h"
#include "core/log.h"
#include "core/module.h"
#include "pipeline/mem.h"
#include "pipeline/meta.h"
#include "pipeline/port.h"
#include "pipeline/worker.h"

VBRD_LOG_TYPE(dataplane);

struct dataplane dp;

/* Sized by pipeline/mem.c, which also counts it against eal.memory_mb:
 * one segment holds a whole frame, enough mbufs fill every ring at once. */
static struct rte_mempool *create_pool(const struct vbrd_config *cfg)
{
	uint32_t need, n = mem_pool_mbufs(cfg, &need);

	if (n > cfg->mempool.mbufs)
		LOG(NOTICE, "mempool: %u mbufs configured, %u needed to fill every ring: using %u",
		    cfg->mempool.mbufs, need, n);
	return rte_pktmbuf_pool_create("mbufs", n, cfg->mempool.cache, 0, mem_mbuf_room(cfg),
				       rte_socket_id());
}

static int dataplane_init(const struct vbrd_config *cfg)
{
	unsigned nbw = (unsigned)cfg->workers.nb_cores;
	int ret = pkt_meta_register();

	if (ret < 0) {
		LOG(ERR, "cannot register the mbuf dynamic field: %s", strerror(-ret));
		return ret;
	}
	dp.pool = create_pool(cfg);
	if (dp.pool == NULL) {
		LOG(ERR, "cannot create the mempool: %s (raise eal.memory_mb?)",
		    rte_strerror(rte_errno));
		return -ENOMEM;
	}
	dp.indirect_pool = rte_pktmbuf_pool_create("indirect", MEM_INDIRECT_MBUFS,
						   MEM_INDIRECT_CACHE, 0, 0, rte_socket_id());
	if (dp.indirect_pool == NULL) {
		LOG(ERR, "cannot create the indirect mempool: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	dp.rcu = rte_zmalloc("rcu", rte_rcu_qsbr_get_memsize(nbw + DP_RCU_CONTROL_READERS),
			     RTE_CACHE_LINE_SIZE);
	dp.to_control = rte_ring_create("to_control", MEM_TO_CONTROL_RING, SOCKET_ID_ANY,
					RING_F_SC_DEQ);
	if (dp.rcu == NULL || dp.to_control == NULL ||
	    rte_rcu_qsbr_init(dp.rcu, nbw + DP_RCU_CONTROL_READERS) != 0) {
		LOG(ERR, "out of memory for the RCU variable or the control ring");
		return -ENOMEM;
	}
	dp.nb_workers = nbw;
	return 0;
}

static struct vbrd_module dataplane_module = {
	.name = "dataplane",
	.init = dataplane_init,
};
VBRD_MODULE(dataplane_module);
