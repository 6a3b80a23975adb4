/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's share of packet work: ARP (RFC 826), holding
 * packets while their next hop resolves, and sending what it builds through
 * a worker's inject ring. Runs only on the main lcore.
 */
#ifndef VBRD_CONTROL_H
#define VBRD_CONTROL_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "pipeline/counters.h"
#include "pipeline/fwd.h"
#include "pipeline/meta.h"

struct neigh;

DROP_REASON_DECLARE(drop_arp_unresolved);
DROP_REASON_DECLARE(drop_arp_hold_full);
DROP_REASON_DECLARE(drop_bad_arp);
DROP_REASON_DECLARE(drop_nd_unresolved);
DROP_REASON_DECLARE(drop_nd_hold_full);
DROP_REASON_DECLARE(drop_bad_nd);

struct arp_stats {
	uint64_t requests_rx, replies_rx, requests_tx, replies_tx;
	uint64_t ignored;       /* not for us and not refreshing a known entry */
	uint64_t resolved_sent; /* held packets sent after resolution */
};

extern struct arp_stats arp_stats;
/** Drops counted on the control thread (same reasons as the workers'). */
extern struct worker_stats control_stats;

/** A control-thread handler of punted packets of one kind; it owns @p m. */
typedef void (*control_punt_fn)(const struct fwd_state *st, struct rte_mbuf *m);

/**
 * Handle punts of @p kind (pkt_meta.punt) with @p fn (from a constructor):
 * ARP and resolution here, Neighbor Discovery in nd.c. Aborts when taken.
 */
void control_punt_register(enum punt_kind kind, control_punt_fn fn);

/**
 * Send an IPv4 or IPv6 packet the control plane originates (the kernel's,
 * from a TAP: frr/cplane): routed by @p st's FIB as vbrd routes transit,
 * but without touching its TTL or hop limit (it leaves as the kernel built
 * it: eBGP's TTL 1, GTSM's 255), its L2 header written for the egress
 * interface, and held while the next hop resolves. Link-local IPv6
 * destinations leave by interface @p iface (the TAP's). Control thread.
 *
 * @param m      an untagged Ethernet frame (14 bytes of L2, then IPv4/IPv6)
 * @param iface  index into st->ifaces of the interface it was sent on
 * @return NULL when sent or held, else the drop reason (the caller counts
 *         it and frees @p m): not IP, multicast or broadcast, no route, a
 *         route vbrd cannot send control traffic on (a tunnel's path group,
 *         an own address), larger than the egress MTU
 */
const struct drop_reason *control_ip_output(const struct fwd_state *st, struct rte_mbuf *m,
					    uint16_t iface);

/** Process up to a burst of packets punted by workers. @return how many. */
unsigned control_poll(void);

/**
 * Neighbor timers: retry ARP requests every neighbor.retry_ms, give up after
 * neighbor.retries (held packets dropped as arp_unresolved), re-probe
 * entries older than neighbor.reachable_s. Call every few ms.
 * @param now_ms  monotonic time, ms
 */
void control_timers(uint64_t now_ms);

/**
 * Apply a newly published state to the neighbor table: install static
 * neighbors that are new or whose MAC changed (held packets leave at once),
 * remove static entries the configuration dropped and every entry on a
 * (port, VLAN) that no longer has an interface (one RCU grace period per
 * 256 entries). Entries the state keeps — static ones unchanged, learned
 * ones on kept interfaces — are not touched: their MAC, state and age stay,
 * and no packet to them is punted because of the reload.
 *
 * @param st  the state just published with fwd_state_publish()
 */
void control_state_changed(const struct fwd_state *st);

/**
 * Hold @p m (its L2 header written, pkt_meta punt PUNT_RESOLVE or
 * PUNT_RESOLVE6 with the egress port, VLAN and next hop set) until its
 * next hop resolves, soliciting it; dropped when the hold is full.
 */
void control_resolve(const struct fwd_state *st, struct rte_mbuf *m);

/** Count @p m as dropped on the control thread for @p why and free it. */
void control_drop(struct rte_mbuf *m, const struct drop_reason *why);

/**
 * Send the packets held for neighbor @p n now that its MAC is known: each
 * gets the MAC as its L2 destination and goes to the wire (control_tx()).
 */
void neigh_flush_held(struct neigh *n);

/**
 * A feature's claim on an address that is no interface's own: vbrd answers
 * ARP requests (RFC 826) and Neighbor Solicitations (RFC 4861 §7.2.3) for
 * it on an interface while the claim holds, as for its own (the HA pair's
 * service address on its active node, failover/ha/ha.h).
 */
struct addr_claim {
	const char *name; /* the feature, for logs */
	/**
	 * Whether vbrd answers for @p ip on @p fi now. Control thread.
	 * @param family  AF_INET (@p ip a uint32_t, host order) or AF_INET6 (16 bytes)
	 * @param mac     fi's MAC on entry: the MAC the answer gives (and comes
	 *                from); a claim may change it (a virtual MAC)
	 */
	bool (*claims)(const struct fwd_iface *fi, int family, const void *ip,
		       struct rte_ether_addr *mac);
};

/** Add @p c (from a module's init or a constructor); at most 4. Aborts when full. */
void control_addr_claim_register(const struct addr_claim *c);

/**
 * Whether a registered claim answers for @p ip on @p fi now (see struct
 * addr_claim); @p mac (fi's MAC on entry) becomes the MAC to answer with.
 */
bool control_addr_claimed(const struct fwd_iface *fi, int family, const void *ip,
			  struct rte_ether_addr *mac);

/**
 * Announce @p ip (host order) on @p fi: a gratuitous ARP request with the
 * sender and target address @p ip and the MAC @p mac (NULL: fi's), also
 * as the frame's source (RFC 5227 §3 "ARP Announcement"; RFC 5944 §4.6),
 * broadcast, so that every host on the link updates its entry for @p ip
 * and every bridge learns where @p mac is. Control thread.
 */
void arp_announce(const struct fwd_iface *fi, uint32_t ip, const struct rte_ether_addr *mac);

/** Queue a fully built frame for transmission on @p port (via worker 0). */
void control_tx(struct rte_mbuf *m, uint16_t port);

/** Monotonic clock, ms. */
uint64_t control_now_ms(void);

#endif
