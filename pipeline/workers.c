/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker lcores (module "workers"): their TX buffers and inject rings,
 * the spread of RX queues over them, their launch, and their stop.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "core/config.h"
#include "core/log.h"
#include "core/module.h"
#include "pipeline/mem.h"
#include "pipeline/port.h"
#include "pipeline/worker.h"

VBRD_LOG_TYPE(workers);

static int workers_init(const struct vbrd_config *cfg)
{
	unsigned nbw = (unsigned)cfg->workers.nb_cores, next = 0;

	if (rte_lcore_count() != nbw + 1) {
		LOG(ERR, "EAL has %u lcores, need %u workers + 1 main", rte_lcore_count(), nbw);
		return -EINVAL;
	}
	dp.workers = rte_zmalloc("workers", sizeof(struct worker) * nbw, RTE_CACHE_LINE_SIZE);
	if (dp.workers == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < nbw; i++) {
		struct worker *w = &dp.workers[i];
		char name[RTE_RING_NAMESIZE];

		w->id = i;
		w->lcore = i + 1;
		w->icmp_rate = RTE_MAX(1u, cfg->icmp.rate_pps / nbw);
		w->icmp_depth = RTE_MAX(1u, cfg->icmp.burst / nbw);
		w->tx = rte_zmalloc("txbuf", sizeof(struct tx_buffer) * dp.nb_port_ids,
				    RTE_CACHE_LINE_SIZE);
		snprintf(name, sizeof(name), "inject%u", i);
		/* multi-producer: the main loop and the HA thread (its
		 * announcements at takeover) both send through it */
		w->inject = rte_ring_create(name, MEM_INJECT_RING, SOCKET_ID_ANY, RING_F_SC_DEQ);
		if (w->tx == NULL || w->inject == NULL)
			return -ENOMEM;
	}
	/* Spread RX queues over workers round-robin, port by port. */
	for (int p = 0; p < port_count(); p++) {
		const struct vbrd_port *vp = port_get(p);
		for (uint16_t q = 0; q < vp->nb_rxq; q++) {
			struct worker *w = &dp.workers[next++ % nbw];
			if (w->nb_rxq == WORKER_MAX_RXQ)
				return -ENOSPC;
			w->rxq[w->nb_rxq].port = vp->id;
			w->rxq[w->nb_rxq].queue = q;
			w->nb_rxq++;
		}
	}
	return 0;
}

static bool launched; /* worker_main runs (or ran) on the worker lcores */

static int workers_start(void)
{
	for (unsigned i = 0; i < dp.nb_workers; i++) {
		int ret = rte_eal_remote_launch(worker_main, &dp.workers[i], dp.workers[i].lcore);
		if (ret < 0)
			return ret;
		launched = true;
	}
	return 0;
}

static void workers_fini(void)
{
	/* start-up can fail before the workers are launched: nothing to wait for */
	if (launched) {
		unsigned ms = worker_stop_all();

		if (ms > WORKER_STOP_POKE_MS)
			LOG(NOTICE, "workers returned after %u ms", ms);
		rte_eal_mp_wait_lcore();
	}
	for (unsigned i = 0; dp.workers && i < dp.nb_workers; i++) {
		void *m = NULL;
		while (dp.workers[i].inject && rte_ring_dequeue(dp.workers[i].inject, &m) == 0)
			rte_pktmbuf_free(m);
	}
}

static struct vbrd_module workers_module = {
	.name = "workers",
	.depends_on = (const char *const[]){ "port", NULL },
	.init = workers_init,
	.start = workers_start,
	.fini = workers_fini,
};
VBRD_MODULE(workers_module);
