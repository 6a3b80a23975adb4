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
DROP_REASON_DECLARE(drop_ttl_expired);
DROP_REASON_DECLARE(drop_no_route);
DROP_REASON_DECLARE(drop_mtu_exceeded);
DROP_REASON_DECLARE(drop_unsupported_local);
DROP_REASON_DECLARE(drop_martian);
DROP_REASON_DECLARE(drop_directed_broadcast);
DROP_REASON_DECLARE(drop_frag_failed);
DROP_REASON_DECLARE(drop_ipv6_multicast);
DROP_REASON_DECLARE(drop_icmp_bad_checksum);
DROP_REASON_DECLARE(drop_tx_full);
DROP_REASON_DECLARE(drop_control_ring_full);
DROP_REASON_DECLARE(drop_no_mbuf);
DROP_REASON_DECLARE(drop_no_headroom);

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
	uint32_t burst;          /* packets per rx_burst */
	uint32_t idle_sleep_us;  /* µs, 0 = busy-poll */
	/* ICMP error rate limit: token bucket (RFC 1812 §4.3.2.8) */
	uint64_t icmp_tokens; /* tokens × tsc_hz (fixed point) */
	uint64_t icmp_last_tsc;
	uint64_t icmp_rate;   /* tokens per second */
	uint16_t ip_id;       /* IPv4 identification of outer headers */
	uint64_t icmp_depth;  /* bucket depth, tokens */
	struct tx_buffer *tx; /* indexed by port id, nb_port_ids entries */
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
	struct rte_rcu_qsbr *rcu;
	_Atomic bool stop;
};

extern struct dataplane dp;

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

/** Buffer @p m for transmission on @p port by @p w (flushed at the end of the burst). */
void worker_tx(struct worker *w, uint16_t port, struct rte_mbuf *m);

/**
 * Route an IPv4 packet whose FIB lookup gave @p fibnh: deliver locally,
 * answer with an ICMP error, or rewrite and queue it (RFC 1812 §5.2).
 */
void ip4_forward(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 struct pkt_ctx *c, uint64_t fibnh);

/**
 * Send an IPv4 packet vbrd originates (an echo reply or ICMP error about
 * traffic that came out of a tunnel) by route, as if received on @p iface:
 * @p m starts with 14 spare bytes for the L2 header, then the IPv4 header.
 */
void ip4_output_local(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		      uint16_t iface);

/**
 * Input of a frame that came out of tunnel interface @p iface: starts at
 * the inner Ethernet header, is validated and routed like a received one.
 */
void worker_input_decapped(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			   uint16_t iface);

/** TTL decrement with the incremental checksum update of RFC 1624 §3. */
static inline void ip4_ttl_decrement(struct rte_ipv4_hdr *ih)
{
	uint32_t sum = (uint32_t)ih->hdr_checksum + rte_cpu_to_be_16(0x0100);

	ih->time_to_live--;
	ih->hdr_checksum = (uint16_t)(sum + (sum >> 16));
}

/**
 * Hand @p m to the control thread (a ring: never blocks; a full ring drops
 * it as control_ring_full). @p nh is the next hop to resolve: a uint32_t in
 * host order for PUNT_RESOLVE, 16 bytes for PUNT_RESOLVE6, else NULL.
 */
void worker_punt(struct worker *w, struct rte_mbuf *m, enum punt_kind kind, uint16_t port,
		 uint16_t vlan, const void *nh);

/**
 * Send a routed packet out of @p out: its @p in_l2 leading bytes (0, 14 or
 * 18) become @p out's L2 header, it is counted as forwarded and on @p out,
 * then queued, or punted while next hop @p gw resolves (@p mac 0).
 *
 * @param mac     next hop MAC, neigh.h encoding; 0 = unresolved
 * @param family  AF_INET (@p gw a uint32_t, host order) or AF_INET6 (16 bytes)
 */
void worker_output(struct worker *w, struct rte_mbuf *m, uint16_t in_l2,
		   const struct fwd_iface *out, uint64_t mac, int family, const void *gw);

/** Count and free a packet dropped for @p why. */
static inline void worker_drop(struct worker *w, struct rte_mbuf *m, const struct drop_reason *why)
{
	w->stats.drops[why->id]++;
	rte_pktmbuf_free(m);
}

#endif
