/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local delivery: what happens to a packet addressed to one of vbrd's own
 * addresses, IPv4 and IPv6 alike. Features register the IP protocols
 * (ICMP echo) and UDP ports (VXLAN 4789, GENEVE 6081, BFD 3784/4784,
 * STAMP 862) they serve; nothing here knows them by name.
 *
 * - A protocol with no handler goes to the state's catch-all service
 *   (local_other(): the control plane's TAPs) or is dropped as
 *   unsupported_local.
 * - A UDP datagram to a port no service holds goes to the catch-all too,
 *   or without one gets ICMP port unreachable
 *   (RFC 1122 §3.2.2.1, RFC 1812 §4.3.2, RFC 4443 §3.1 code 4), rate-limited
 *   like every ICMP error, and is counted as udp_port_unreachable.
 *
 * Fixed ports are registered once (local_udp_register, from a
 * constructor); ports that come from the config are bound into each new
 * forwarding state while it is built (local_udp_bind), so a reload moves
 * them with the rest of the state.
 */
#ifndef VBRD_LOCAL_H
#define VBRD_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "pipeline/fwd.h"
#include "pipeline/parse.h"
#include "pipeline/parse6.h"

struct worker;

DROP_REASON_DECLARE(drop_udp_port_unreachable);

/** A packet for an own address, as the IPv4 or IPv6 input parsed it. */
struct local_pkt {
	int family;                 /* AF_INET or AF_INET6 */
	const struct pkt_l2 *l2;    /* its L2 header */
	const struct pkt_ipv4 *ip4; /* AF_INET: the parsed header, else NULL */
	const struct pkt_ipv6 *ip6; /* AF_INET6: the parsed header, else NULL */
	const void *src;            /* source address: uint32_t host order, or 16 bytes */
	const void *dst;            /* destination address, likewise */
	uint16_t iface;             /* ingress interface, index into fwd_state.ifaces */
	uint8_t proto;              /* IP protocol / next header of the L4 payload */
	uint8_t ecn;                /* ECN bits of the IP header (RFC 3168) */
	bool fragment;              /* part of a fragmented datagram */
	bool decapped;              /* came out of a tunnel */
	uint32_t l4_off;            /* bytes from the frame start to the L4 header */
	uint32_t l4_len;            /* bytes of L4 header and payload */
	uint16_t sport, dport;      /* UDP/TCP ports, host order (0 when absent) */
};

/**
 * A local service. The handler owns @p m: it answers, forwards, keeps or
 * drops it (counting the drop under a reason of its own).
 */
typedef void (*local_handler_t)(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
				const struct local_pkt *lp);

struct local_service {
	const char *name; /* "vxlan", "bfd": shown in errors about port clashes */
	local_handler_t input;
	/**
	 * Optional: take UDP datagrams of the IPv4 fast path (worker.c
	 * fast4_ok(): untagged, a 20-byte header, not a fragment, the frame
	 * exactly its total length) to own addresses, without the per-packet
	 * context: as many of the @p n in @p pkts as it can, from the first
	 * (their FIB values, kind local, in @p fibnh). The caller found the
	 * service from the first packet's protocol and UDP port only: the
	 * service tests both on every packet. It returns how many it
	 * took; the one it stopped at is untouched (anything unusual, or
	 * another service's port) and takes input() through the general path,
	 * which checks everything again and names the drop reason. @p iface:
	 * the interface all of them came in by.
	 */
	unsigned (*input_fast)(struct worker *w, const struct fwd_state *st, struct rte_mbuf **pkts,
			       const uint64_t *fibnh, unsigned n, uint16_t iface);
};

/**
 * Serve IP protocol @p proto to own addresses of @p family (a constructor
 * calls it). UDP (17) is local.c's own: register UDP ports instead.
 * Aborts when the protocol is taken (a programming error).
 */
void local_proto_register(int family, uint8_t proto, const struct local_service *svc);

/**
 * Serve UDP port @p port (host order) on every own address, IPv4 and IPv6,
 * in every state (a constructor calls it). Aborts when the port is taken.
 */
void local_udp_register(uint16_t port, const struct local_service *svc);

/**
 * Serve the UDP ports @p lo .. @p hi (host order, inclusive) likewise: one
 * table entry for the range (a prober's per-session source ports). Aborts
 * when a port of it is taken or @p hi < @p lo.
 */
void local_udp_register_range(uint16_t lo, uint16_t hi, const struct local_service *svc);

/**
 * Serve UDP port @p port in @p st only (while it is built: a port that
 * comes from the config).
 * @param err  on failure "UDP port N is taken by NAME"
 * Binding a port twice to the same service is one binding (tunnels that
 * share a port).
 * @return 0, -EADDRINUSE (another service has the port), -ENOSPC
 *         (FWD_LOCAL_UDP_MAX ports bound)
 */
int local_udp_bind(struct fwd_state *st, uint16_t port, const struct local_service *svc, char *err,
		   size_t errlen);

/**
 * What no service takes: to the state's catch-all service (the control
 * plane's kernel interfaces, frr/cplane, set while a state is built) when
 * it has one, else dropped as unsupported_local. ICMP and ICMPv6 messages
 * other than echo requests come here too.
 */
void local_other(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 const struct local_pkt *lp);

/** Copy the fixed registrations into a new state (fwd_state_build calls it first). */
void local_state_init(struct fwd_state *st);

/** Services by protocol, [family == AF_INET6][proto] (local.c fills it). */
extern const struct local_service *local_protos[2][256];

/**
 * Deliver @p m to the service of its protocol or UDP port (see the top of
 * this file for what happens when there is none).
 */
void local_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 const struct local_pkt *lp);

#endif
