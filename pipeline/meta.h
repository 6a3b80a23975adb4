/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-packet metadata kept in an mbuf dynamic field, for packets that
 * travel between a worker and the control thread.
 */
#ifndef VBRD_META_H
#define VBRD_META_H

#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

enum punt_kind {
	PUNT_NONE = 0,
	PUNT_ARP,      /* an ARP frame for the neighbor code */
	PUNT_RESOLVE,  /* a routed packet waiting for its IPv4 next hop's MAC */
	PUNT_ND,       /* an ICMPv6 Neighbor Discovery message (RFC 4861) */
	PUNT_RESOLVE6, /* a routed packet waiting for its IPv6 next hop's MAC */
	PUNT_CPLANE,   /* local traffic for the kernel's interface (frr/cplane) */
	PUNT_MAX = 16, /* kinds control_punt_register() takes */
};

struct pkt_meta {
	union {
		uint32_t nh_ip;     /* PUNT_RESOLVE (IPv4): neighbor to resolve, host order */
		uint8_t nh_ip6[16]; /* PUNT_RESOLVE6: neighbor to resolve, network order */
	};
	uint16_t port;              /* PUNT_*: ingress (ARP) or egress (RESOLVE) port id;
	                      * inject: port to transmit on */
	uint16_t vlan;              /* VLAN of that interface, 0 = untagged */
	uint8_t punt : 7;           /* enum punt_kind */
	uint8_t held_forwarded : 1; /* PUNT_RESOLVE*: count it as forwarded once it leaves */
	uint8_t l2_len;             /* PUNT_ARP, PUNT_ND: bytes of L2 header (a priority
	                      * tag, VLAN 0, is 18 bytes too) */
	uint16_t outer_sport;       /* decapsulated packets: the outer UDP source port
	                       * (its plane), host order; what a reflector answers on */
};

extern int pkt_meta_offset;

static inline struct pkt_meta *pkt_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, pkt_meta_offset, struct pkt_meta *);
}

/** Register the dynamic field (once, before any mbuf carries metadata). @return 0 or -errno. */
int pkt_meta_register(void);

#endif
