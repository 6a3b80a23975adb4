/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workers: each polls its RX queues and runs every packet to completion.
 * No locks, no syscalls (but an optional sleep when idle), no logging.
 */
#ifndef VBRD_WORKER_H
#define VBRD_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "pipeline/counters.h"
#include "pipeline/fwd.h"
#include "pipeline/meta.h"
#include "pipeline/parse.h"

#define WORKER_MAX_RXQ   64
#define WORKER_TXB       64 /* packets buffered per port before tx_burst */
#define WORKER_MAX_BURST 256

DROP_REASON_DECLARE(drop_unknown_ethertype);
DROP_REASON_DECLARE(drop_unknown_vlan);
DROP_REASON_DECLARE(drop_not_for_us);

struct tx_buffer {
	uint16_t n;
	struct rte_mbuf *pkts[WORKER_TXB];
};

struct worker {
	unsigned id; /* 0..nb_workers-1: also its TX queue on every port */
	unsigned lcore;
	uint16_t nb_rxq;
	struct {
		uint16_t port, queue;
	} rxq[WORKER_MAX_RXQ];
	struct rte_ring *inject; /* control → wire, via this worker (SP/SC) */
	/* ICMP error rate limit: token bucket (RFC 1812 §4.3.2.8) */
	uint64_t icmp_tokens; /* tokens × tsc_hz (fixed point) */
	uint64_t icmp_last_tsc;
	uint64_t icmp_rate; /* tokens per second */
	/* IPv4 identification of outer headers: a counter stored as it is (no
	 * byte swap), so each value in turn (RFC 6864 §4.1 asks uniqueness,
	 * not order) */
	uint16_t ip_id;
	/* TSC when the burst being processed was received (one read a burst:
	 * what per-packet timing such as flowlets uses instead of rdtsc) */
	uint64_t tsc;
	uint64_t icmp_depth;  /* bucket depth, tokens */
	struct tx_buffer *tx; /* indexed by port id, nb_port_ids entries */
	uint32_t tx_dirty;    /* bit p: tx[p] may hold packets (RTE_MAX_ETHPORTS <= 32) */
	/* bit p: port p's egress goes through the egress scheduler (output.h
	 * worker_egress_register()); set by the scheduler's worker hook */
	uint32_t sched_ports;
	/* Decapsulated IPv4 packets of the current burst that passed the fast
	 * test, routed together once the burst is done (one FIB lookup). */
	struct {
		uint16_t n;
		uint16_t iface[WORKER_MAX_BURST]; /* their tunnel interface */
		uint32_t dst[WORKER_MAX_BURST];   /* host order */
		struct rte_mbuf *pkts[WORKER_MAX_BURST];
	} decap;
	struct worker_stats stats;
	/* for worker_stop_all(): the lcore's thread, known once worker_main runs */
	pthread_t thread;
	_Atomic bool thread_known;
	_Atomic bool returned; /* worker_main has returned */
};

/** What pass 1 learned about a packet, for pass 2. */
struct pkt_ctx {
	struct pkt_l2 l2;
	struct pkt_ipv4 ip;
	uint16_t iface; /* ingress interface (index into fwd_state.ifaces) */
	bool decapped;  /* came out of a tunnel: never decapsulated again */
};

/** Shared by workers and control; set up once by main before launch. */
struct dataplane {
	unsigned nb_workers;
	struct worker *workers;
	uint16_t nb_port_ids;
	bool rx_ipv4_cksum[RTE_MAX_ETHPORTS]; /* the port verifies IPv4 header checksums */
	struct rte_ring *to_control;          /* workers → control (MP/SC) */
	struct rte_mempool *pool;
	struct rte_mempool *indirect_pool; /* data-less mbufs for IPv4 fragments */
	/* The readers of fwd_current that a grace period waits for: thread ids
	 * 0..nb_workers-1 are the workers, DP_RCU_CONTROL_READERS more after
	 * them are control threads that read it outside the main loop (the HA
	 * pair's: rte_rcu_qsbr_thread_online only while it looks). */
	struct rte_rcu_qsbr *rcu;
	_Atomic bool stop;
};

extern struct dataplane dp;

/** RCU reader slots beyond the workers' (struct dataplane's rcu). */
#define DP_RCU_CONTROL_READERS 1
/** The HA thread's RCU thread id. */
#define DP_RCU_HA (dp.nb_workers)

/**
 * Sum of every worker's and the control thread's counters into @p s
 * (control side; each worker's own struct is read without locks, so a sum
 * taken while traffic flows is a snapshot within one burst).
 */
void worker_stats_sum(struct worker_stats *s);

/**
 * Work a feature does in every worker's poll loop (the egress scheduler,
 * later TSC-timed protocol work), registered from a constructor.
 */
struct worker_hook {
	const char *name;
	/**
	 * Once per turn of the loop, after the turn's bursts and TX flush and
	 * before the worker reports its quiescent state: @p st is the state
	 * the turn used. Never blocks.
	 * @return units of work done; nonzero keeps an idle worker from sleeping
	 */
	unsigned (*poll)(struct worker *w, const struct fwd_state *st);
};

#define WORKER_MAX_HOOKS 8

/** Add @p h to every worker's loop (from a constructor). Aborts when full. */
void worker_hook_register(const struct worker_hook *h);

/** lcore entry point; @p arg is the struct worker. Returns 0 when dp.stop is set. */
int worker_main(void *arg);

/**
 * Stop every worker and wait until each has returned from worker_main().
 *
 * Sets dp.stop, then every WORKER_STOP_POKE_MS sends SIGUSR1 (a handler that
 * does nothing, installed here, without SA_RESTART) to each worker thread
 * still running: a worker blocked in a system call inside a PMD (net_af_packet
 * waits in poll() without a timeout while its TX ring is full, net_pcap's
 * send() on a full socket) or in its idle nanosleep() gets EINTR, returns to
 * its loop and sees dp.stop. Called by the main lcore only.
 *
 * @return  milliseconds it took, about (0 when the workers returned at once)
 */
unsigned worker_stop_all(void);

#define WORKER_STOP_POKE_MS 10 /* ms between SIGUSR1s to workers not yet returned */

#endif
