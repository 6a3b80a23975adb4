/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet counters, per worker: traffic, and one counter per drop reason
 * (registered by the features, see drop.h).
 *
 * Workers write only their own struct (no atomics, no sharing of cache
 * lines); the control thread sums them when asked. A reason's name is what
 * `vbrctl show stats` prints: keep it stable, scripts read it.
 */
#ifndef VBRD_COUNTERS_H
#define VBRD_COUNTERS_H

#include <stdint.h>
#include <rte_common.h>

#include "core/drop.h"

#define VBRD_MAX_IFACE_SLOTS 8192 /* = CFG_MAX_IFACES */

/** Per-interface counters (slot = stable interface id, see fwd_state.h). */
struct iface_counters {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes;
};

/** One worker's counters. Written only by that worker. */
struct worker_stats {
	uint64_t rx_packets;
	uint64_t tx_packets;
	uint64_t forwarded;            /* routed to another interface */
	uint64_t local;                /* answered locally (ICMP echo) */
	uint64_t to_control;           /* punted to the control thread */
	uint64_t icmp_errors;          /* ICMP errors generated */
	uint64_t icmp_rate_limited;    /* ICMP errors not sent: over icmp.rate_pps */
	uint64_t fragments;            /* IPv4 fragments generated */
	uint64_t drops[VBRD_DROP_MAX]; /* by drop_reason.id */
	struct iface_counters iface[VBRD_MAX_IFACE_SLOTS];
	/* by slot: received and dropped for no route in the interface's VRF
	 * (drop no_route), what `show vrfs` sums per VRF; apart from iface[]
	 * so that those stay 32 bytes (half a cache line) */
	uint64_t iface_no_route[VBRD_MAX_IFACE_SLOTS];
	/* ICMP errors not sent: the source was a broadcast address (RFC 1812 §4.3.2.7) */
	uint64_t icmp_suppressed_broadcast;
} __rte_cache_aligned;

#endif
