/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding state: interfaces, FIB and next hops, as workers see them.
 *
 * Built whole by the control thread from a configuration, published with
 * one atomic pointer store, and freed only after an RCU grace period
 * (rte_rcu_qsbr) once every worker has stopped looking at it. Workers never
 * see a half-built state, and never take a lock.
 */
#ifndef VBRD_FWD_H
#define VBRD_FWD_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_rcu_qsbr.h>

#include "config.h"
#include "counters.h"

#define FWD_NO_IFACE 0xffff

/*
 * FIB next-hop values (rte_fib DIR24_8 with 4-byte next hops, so 31 bits):
 * the top bits give the kind, the rest an index into the matching array.
 */
#define FIB_KIND_SHIFT   28
#define FIB_KIND_NEXTHOP 0u  /* index into fwd_state.nexthops */
#define FIB_KIND_ECMP    1u  /* index into fwd_state.ecmp */
#define FIB_KIND_LOCAL   2u  /* an own address; index = interface */
#define FIB_KIND_NONE    3u  /* no route (the FIB default) */
#define FIB_NH(kind, idx) ((uint64_t)(kind) << FIB_KIND_SHIFT | (idx))
#define FIB_NH_KIND(nh)   ((uint32_t)((nh) >> FIB_KIND_SHIFT) & 0x7)
#define FIB_NH_INDEX(nh)  ((uint32_t)(nh) & ((1u << FIB_KIND_SHIFT) - 1))

/** An interface as the data path uses it. */
struct fwd_iface {
	char name[CFG_NAME_MAX];
	uint16_t port;           /* DPDK port id */
	uint16_t vlan;           /* 0 = untagged */
	uint16_t mtu;            /* bytes of L3 payload */
	uint16_t slot;           /* stable counter slot (survives reloads) */
	struct rte_ether_addr mac;
	uint32_t addr4;          /* first IPv4 address, host order; 0 if none */
	uint8_t plen4;
	uint8_t ll6[16];         /* link-local fe80::/64 EUI-64 from the MAC (RFC 4291 App. A) */
	uint8_t addr6[16];       /* first global IPv6 address (ICMPv6 error source); zero if none */
	int nb_addrs;
	struct cfg_prefix addrs[4];
};

/** A next hop: where to send, and which neighbor's MAC to use. */
struct fwd_nexthop {
	uint16_t iface;          /* index into fwd_state.ifaces */
	uint32_t gw;             /* gateway, host order; 0 = connected: the destination */
	int family;              /* AF_INET or AF_INET6 */
	uint8_t gw6[16];         /* IPv6 gateway, network order; zero = connected */
};

/** An ECMP set (RFC 2992 hash-threshold is not needed: modulo over the set). */
struct fwd_ecmp {
	uint16_t nb;
	uint16_t nh[CFG_MAX_ECMP];  /* indexes into fwd_state.nexthops */
};

/** One generation of forwarding state. Immutable once published. */
struct fwd_state {
	uint64_t generation;
	struct vbrd_config cfg;         /* the configuration it was built from */
	int nb_ifaces;
	struct fwd_iface *ifaces;
	/* (port, VLAN) → interface index, FWD_NO_IFACE when none */
	uint16_t (*iface_by_vlan)[4096];  /* [port id < nb_port_ids][VLAN id] */
	uint16_t nb_port_ids;
	struct rte_fib *fib;
	struct rte_fib6 *fib6;          /* same next-hop encoding as fib (RTE_FIB6_TRIE_4B) */
	int nb_nexthops;
	struct fwd_nexthop *nexthops;
	int nb_ecmp;
	struct fwd_ecmp *ecmp;
	time_t loaded_at;
};

/**
 * Build a forwarding state from a validated configuration.
 *
 * @param cfg      configuration; its contents are moved into the state
 *                 (cfg is zeroed on success)
 * @param port_ids DPDK port id of each cfg->ports[i]
 * @param prev     the running state (for stable interface slots), or NULL
 * @param out      the new state
 * @param err      message on failure, @p errlen bytes
 * @return         0, or -ENOMEM / -ENOSPC (FIB full) / -EINVAL
 */
int fwd_state_build(struct vbrd_config *cfg, const uint16_t *port_ids,
		    const struct fwd_state *prev, struct fwd_state **out,
		    char *err, size_t errlen);

/** Free a state no worker can see any more. */
void fwd_state_free(struct fwd_state *st);

/** The state workers read. Written only by the control thread. */
extern struct fwd_state *_Atomic fwd_current;

/**
 * Publish @p st (one atomic store), wait for an RCU grace period on @p qsv,
 * then free the previous state.
 */
void fwd_state_publish(struct fwd_state *st, struct rte_rcu_qsbr *qsv);

/**
 * The next hop a FIB value selects for a flow (RFC 2992: the flow hash picks
 * one member of an ECMP set, so a flow never reorders across paths).
 *
 * @param st     the forwarding state the value came from
 * @param fibnh  value from rte_fib lookup, kind FIB_KIND_NEXTHOP or FIB_KIND_ECMP
 * @param hash   flow hash (flow_hash_ipv4())
 * @return       index into st->nexthops
 */
static inline uint32_t fwd_nexthop_select(const struct fwd_state *st, uint64_t fibnh,
					  uint32_t hash)
{
	uint32_t idx = FIB_NH_INDEX(fibnh);

	if (FIB_NH_KIND(fibnh) == FIB_KIND_ECMP) {
		const struct fwd_ecmp *e = &st->ecmp[idx];
		/* multiply-shift maps the hash onto [0, nb) without a division */
		idx = e->nh[((uint64_t)hash * e->nb) >> 32];
	}
	return idx;
}

/** Interface index owning address @p ip (host order) as connected subnet, or -1. */
int fwd_iface_for_subnet(const struct fwd_state *st, uint32_t ip);

#endif
