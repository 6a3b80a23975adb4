/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbor table (ARP, RFC 826): IPv4 address on a (port, VLAN) → MAC.
 *
 * The control thread is the only writer; workers look entries up without
 * locks (rte_hash with lock-free read/write concurrency) and read the MAC
 * with one atomic 64-bit load. Keyed by the physical (port, VLAN), not by
 * interface name, so entries survive config reloads.
 */
#ifndef VBRD_NEIGH_H
#define VBRD_NEIGH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_ether.h>

#include "core/config.h"
#include <rte_hash.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>

#define NEIGH_MAX      16384
#define NEIGH_HOLD_MAX CFG_NEIGH_HOLD_MAX /* packets held per neighbor */
#define NEIGH_HELD_TOTAL \
	1024 /* packets held over all neighbors: a scan of a
                                * connected /16 must not empty the mempool */
#define NEIGH_MAC_VALID (1ull << 48)

enum neigh_state {
	NEIGH_INCOMPLETE, /* ARP request sent, no answer yet */
	NEIGH_REACHABLE,  /* answered within reachable_s */
	NEIGH_STALE,      /* older than reachable_s: used, refreshed on demand */
	NEIGH_FAILED,     /* no answer after the retries */
	NEIGH_STATIC,     /* from the config */
};

/* Hashed as bytes: always build with neigh_key4()/neigh_key6() so padding is zero. */
struct neigh_key {
	uint16_t port;
	uint16_t vlan;
	uint32_t family; /* AF_INET or AF_INET6 */
	union {
		uint32_t v4;    /* host order */
		uint8_t v6[16]; /* network order */
	} ip;
};

static inline struct neigh_key neigh_key4(uint16_t port, uint16_t vlan, uint32_t ip)
{
	struct neigh_key k;

	memset(&k, 0, sizeof(k));
	k.port = port;
	k.vlan = vlan;
	k.family = AF_INET;
	k.ip.v4 = ip;
	return k;
}

static inline struct neigh_key neigh_key6(uint16_t port, uint16_t vlan, const uint8_t *ip)
{
	struct neigh_key k;

	memset(&k, 0, sizeof(k));
	k.port = port;
	k.vlan = vlan;
	k.family = AF_INET6;
	memcpy(k.ip.v6, ip, 16);
	return k;
}

struct neigh {
	/* read by workers */
	_Atomic uint64_t mac; /* MAC in the low 48 bits | NEIGH_MAC_VALID */
	/* control thread only */
	struct neigh_key key;
	enum neigh_state state;
	uint64_t updated_ms;    /* last confirmation, monotonic ms */
	uint64_t next_probe_ms; /* next ARP request due */
	uint32_t probes;        /* requests sent since the last answer */
	uint64_t failed_ms;     /* when it became NEIGH_FAILED, monotonic ms */
	uint16_t nb_held;
	struct rte_mbuf *held[NEIGH_HOLD_MAX];
	bool in_use;
};

struct neigh_table {
	struct rte_hash *hash; /* key → index into entries */
	struct neigh *entries; /* NEIGH_MAX */
	unsigned high;         /* entries[high..] were never used */
	unsigned held_total;   /* packets held over all entries */
	unsigned nb_free;
	uint32_t *free_slots;     /* stack of unused entry indexes */
	struct rte_rcu_qsbr *rcu; /* workers' quiescent states, for removal */
};

extern struct neigh_table neigh_tbl;

/**
 * Create the table.
 * @param rcu  the workers' QSBR variable: removal waits for a grace period
 * @return 0 or -ENOMEM.
 */
int neigh_init(struct rte_rcu_qsbr *rcu);

/**
 * Called on the control thread whenever a neighbor's MAC changes (learnt,
 * changed, invalidated: @p mac 0), so that caches of it (next hops, paths)
 * follow. @p addr is a uint32_t in host order (AF_INET) or 16 bytes.
 */
typedef void (*neigh_change_fn)(uint16_t port, uint16_t vlan, int family, const void *addr,
				uint64_t mac);

/** Set the one listener of MAC changes (the forwarding state's caches). */
void neigh_on_change(neigh_change_fn fn);

/** Data path: MAC of a resolved neighbor, or 0 (unresolved or unknown). */
static inline uint64_t neigh_lookup_key(const struct neigh_key *k)
{
	void *data;

	if (rte_hash_lookup_data(neigh_tbl.hash, k, &data) < 0)
		return 0;
	return atomic_load_explicit(&neigh_tbl.entries[(uintptr_t)data].mac, memory_order_acquire);
}

/** Data path: MAC of IPv4 neighbor @p ip (host order) on (port, VLAN), or 0. */
static inline uint64_t neigh_lookup(uint16_t port, uint16_t vlan, uint32_t ip)
{
	struct neigh_key k = neigh_key4(port, vlan, ip);
	return neigh_lookup_key(&k);
}

/** Data path: MAC of IPv6 neighbor @p ip (16 bytes, network order), or 0. */
static inline uint64_t neigh_lookup6(uint16_t port, uint16_t vlan, const uint8_t *ip)
{
	struct neigh_key k = neigh_key6(port, vlan, ip);
	return neigh_lookup_key(&k);
}

static inline void neigh_mac_to_ether(uint64_t mac, struct rte_ether_addr *e)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	/* byte i of the MAC is bits 8i..8i+7: the first six bytes in memory */
	memcpy(e->addr_bytes, &mac, 6);
#else
	for (int i = 0; i < 6; i++)
		e->addr_bytes[i] = (uint8_t)(mac >> (8 * i));
#endif
}

static inline uint64_t neigh_ether_to_mac(const struct rte_ether_addr *e)
{
	uint64_t v = 0;
	for (int i = 0; i < 6; i++)
		v |= (uint64_t)e->addr_bytes[i] << (8 * i);
	return v | NEIGH_MAC_VALID;
}

/** Control: find an entry, or NULL. */
struct neigh *neigh_find_key(const struct neigh_key *k);

/**
 * Control: find or create an entry (state NEIGH_INCOMPLETE when new).
 * @return the entry, or NULL when the table is full.
 */
struct neigh *neigh_get_key(const struct neigh_key *k);

/** Control: IPv4 shorthands (@p ip in host order). */
static inline struct neigh *neigh_find(uint16_t port, uint16_t vlan, uint32_t ip)
{
	struct neigh_key k = neigh_key4(port, vlan, ip);
	return neigh_find_key(&k);
}

static inline struct neigh *neigh_get(uint16_t port, uint16_t vlan, uint32_t ip)
{
	struct neigh_key k = neigh_key4(port, vlan, ip);
	return neigh_get_key(&k);
}

/** Control: publish a MAC (atomic store) and set the state. */
void neigh_set_mac(struct neigh *n, const struct rte_ether_addr *mac, enum neigh_state st);

/**
 * Control: what a neighbor's own packet tells (ARP sender, NS source
 * link-layer option). An entry we were resolving, or one confirmed before
 * with the same MAC, is (still) reachable; a neighbor heard of for the
 * first time is STALE, used but probed after NEIGH_DELAY_MS (RFC 4861
 * §7.2.3, §7.3.3 DELAY_FIRST_PROBE_TIME): a spoofed sender then fails and
 * is aged out instead of pinning a table slot.
 *
 * @param now_ms  monotonic time, ms
 */
void neigh_learn(struct neigh *n, const struct rte_ether_addr *mac, uint64_t now_ms);

#define NEIGH_DELAY_MS 5000

/** Control: mark unresolved (workers see MAC 0 again). */
void neigh_invalidate(struct neigh *n, enum neigh_state st);

/**
 * Control: drop an entry (its interface is gone, or a static entry is
 * replaced); frees held mbufs. Waits for an RCU grace period before the
 * slot can be reused, so a worker never reads another neighbor's MAC.
 */
void neigh_remove(struct neigh *n);

/**
 * Control: drop @p nb entries at once (one RCU grace period for all),
 * freeing their held packets. Used to age out failed entries and to make
 * room when the table is full.
 */
void neigh_remove_batch(struct neigh **victims, unsigned nb);

/**
 * Control: remove every NEIGH_FAILED entry holding no packets that failed
 * at least @p min_age_ms ago (0: all of them).
 * @param now_ms  monotonic time, ms
 * @return        entries removed
 */
unsigned neigh_gc(uint64_t now_ms, uint64_t min_age_ms);

const char *neigh_state_name(enum neigh_state st);

#endif
