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
#include "pipeline/meta.h"
#include "pipeline/port.h"
#include "pipeline/worker.h"

VBRD_LOG_TYPE(dataplane);

struct dataplane dp;

/* One segment holds a whole frame: no scattered RX to handle. Enough mbufs
 * to fill every RX ring, every TX ring and the TX buffers at once. */
static struct rte_mempool *create_pool(const struct vbrd_config *cfg, unsigned nb_workers)
{
	uint32_t max_room = RTE_MBUF_DEFAULT_DATAROOM, need = 1024;

	for (int i = 0; i < cfg->nb_ports; i++) {
		const struct cfg_port *p = &cfg->ports[i];
		uint32_t rxq = p->rx_queues ? p->rx_queues : nb_workers;
		max_room = RTE_MAX(max_room, port_mbuf_room(p));
		need += rxq * p->rx_desc + nb_workers * (p->tx_desc + WORKER_TXB);
	}
	need += nb_workers * (WORKER_MAX_BURST + 2 * cfg->mempool.cache);
	uint32_t n = RTE_MAX(cfg->mempool.mbufs, need);
	if (n > cfg->mempool.mbufs)
		LOG(NOTICE, "mempool: %u mbufs configured, %u needed to fill every ring: using %u",
		    cfg->mempool.mbufs, need, n);
	uint32_t room = max_room + RTE_PKTMBUF_HEADROOM;
	return rte_pktmbuf_pool_create("mbufs", n, cfg->mempool.cache, 0, (uint16_t)room,
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
	dp.pool = create_pool(cfg, nbw);
	if (dp.pool == NULL) {
		LOG(ERR, "cannot create the mempool: %s (raise eal.memory_mb?)",
		    rte_strerror(rte_errno));
		return -ENOMEM;
	}
	dp.indirect_pool = rte_pktmbuf_pool_create("indirect", 8191, 256, 0, 0, rte_socket_id());
	if (dp.indirect_pool == NULL) {
		LOG(ERR, "cannot create the indirect mempool: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	dp.rcu = rte_zmalloc("rcu", rte_rcu_qsbr_get_memsize(nbw), RTE_CACHE_LINE_SIZE);
	dp.to_control = rte_ring_create("to_control", 4096, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (dp.rcu == NULL || dp.to_control == NULL || rte_rcu_qsbr_init(dp.rcu, nbw) != 0) {
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
