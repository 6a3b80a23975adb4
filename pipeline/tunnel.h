/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunnels to remote gateways: VXLAN (RFC 7348) and GENEVE (RFC 8926),
 * over IPv4 or IPv6 underlays, carrying routed inner traffic, and the path
 * groups that choose which underlay line carries a tunnel.
 *
 * tunnel.c         control: build tunnels, paths (prebuilt outer headers)
 *                  and path groups into a forwarding state; switch paths
 * tunnel_output.c  data path: encapsulation
 * tunnel_input.c   data path: decapsulation
 */
#ifndef VBRD_TUNNEL_H
#define VBRD_TUNNEL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "pipeline/fwd.h"
#include "pipeline/parse6.h"
#include "pipeline/ip4.h"

DROP_REASON_DECLARE(drop_tunnel_truncated);
DROP_REASON_DECLARE(drop_tunnel_bad_header);
DROP_REASON_DECLARE(drop_tunnel_bad_checksum);
DROP_REASON_DECLARE(drop_tunnel_zero_checksum6);
DROP_REASON_DECLARE(drop_tunnel_critical_option);
DROP_REASON_DECLARE(drop_tunnel_unknown_remote);
DROP_REASON_DECLARE(drop_tunnel_bad_vni);
DROP_REASON_DECLARE(drop_ecn_not_ect);
DROP_REASON_DECLARE(drop_no_path);

#define VXLAN_HDR_LEN   8
#define GENEVE_HDR_LEN  8  /* without options */
#define TUNNEL_INNER_L2 14 /* inner Ethernet header */

/**
 * Add tunnels, their interfaces, paths and path groups of @p cfg to @p st,
 * whose physical interfaces are already built (st->ifaces has room for
 * cfg->nb_ifaces + cfg->nb_tunnels entries). Keeps the active path of
 * groups that exist in @p prev under the same name, if that path still
 * exists; otherwise the first path in config order is active.
 *
 * @return 0, or -ENOMEM with @p err filled
 */
int tunnel_state_build(struct fwd_state *st, const struct vbrd_config *cfg,
		       const struct fwd_state *prev, char *err, size_t errlen);

/** Free what tunnel_state_build() allocated. */
void tunnel_state_free(struct fwd_state *st);

/** A VNI no tunnel has (VNIs are 24 bits): the key of "a tunnel from this remote". */
#define TUNNEL_ANY_VNI UINT32_MAX

/** What identifies a tunnel to the packets that come out of it (RFC 7348 §4.1). */
struct tunnel_key {
	uint32_t vni;       /* or TUNNEL_ANY_VNI */
	uint16_t udp_port;  /* outer destination port */
	uint8_t family;     /* of the remote */
	uint8_t pad;        /* zero */
	uint8_t remote[16]; /* IPv4: uint32_t host order in the first 4 bytes; IPv6: network order */
};

/**
 * The tunnel that packets from @p remote to UDP port @p udp_port with VNI
 * @p vni come out of: one hash lookup whatever the number of tunnels.
 *
 * @param family        AF_INET or AF_INET6
 * @param remote        the outer source: IPv4 a uint32_t in host order,
 *                      IPv6 16 bytes
 * @param known_remote  set to whether some tunnel on that port has that
 *                      remote (a miss is then a wrong VNI, else an unknown
 *                      remote); may be NULL
 * @return the tunnel, or NULL
 */
const struct fwd_tunnel *tunnel_lookup(const struct fwd_state *st, uint16_t udp_port, int family,
				       const void *remote, uint32_t vni, bool *known_remote);

/** The first tunnel (in config order) on outer UDP port @p udp_port, or NULL. */
const struct fwd_tunnel *tunnel_on_port(const struct fwd_state *st, uint16_t udp_port);

/**
 * Data path: encapsulate an IPv4 packet routed to path group @p g and queue
 * it on the active path's line. TTL is decremented here. A packet that does
 * not fit the path's inner MTU gets ICMP fragmentation needed with that MTU
 * (RFC 1191) when DF is set, or is fragmented first (RFC 791).
 *
 * @param m  the packet, starting at its L2 header (c->l2.l2_len bytes); consumed
 */
void tunnel_output(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		   struct pkt_ctx *c, const struct fwd_path_group *g);

/**
 * Data path: encapsulate an IPv6 packet routed to path group @p g. The hop
 * limit (already checked > 1) is decremented here; a packet larger than
 * the path's inner MTU gets Packet Too Big with that MTU (RFC 4443 §3.2).
 *
 * @param m   the packet, starting at its L2 header (l2->l2_len bytes); consumed
 * @param in  ingress interface (source of ICMPv6 errors)
 */
void tunnel_output6(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		    const struct pkt_l2 *l2, const struct pkt_ipv6 *ip, const struct fwd_iface *in,
		    const struct fwd_path_group *g);

/** The local UDP service that decapsulates; bound to each tunnel's port. */
extern const struct local_service tunnel_service;

/**
 * Data path, any outer family: decapsulate the UDP datagram at @p l4_off.
 *
 * Checks, in order (each failure drops the packet under the reason named):
 * the UDP, tunnel and inner Ethernet headers present and the UDP length
 * field within 30..@p l4_len bytes (tunnel_truncated; bytes past the UDP
 * length are padding); a non-zero UDP checksum right (tunnel_bad_checksum,
 * RFC 768, RFC 8200 §8.1); VXLAN I flag, GENEVE version 0, O clear,
 * protocol 0x6558 (tunnel_bad_header); GENEVE C bit clear
 * (tunnel_critical_option, RFC 8926 §3.4, §3.5: vbrd knows no option);
 * a tunnel with this remote (tunnel_unknown_remote) and VNI
 * (tunnel_bad_vni); the tunnel's underlay_vrf the ingress VRF
 * (tunnel_wrong_vrf); over IPv6, a zero checksum only on a tunnel with
 * udp_zero_checksum6 (tunnel_zero_checksum6, RFC 6935 §5, RFC 6936 §5);
 * RFC 6040 §4.2 ECN (ecn_not_ect).
 *
 * @param family     AF_INET or AF_INET6 (outer)
 * @param src        outer source: uint32_t host order, or 16 bytes network order
 * @param dst        outer destination, the same way (the checksum's pseudo-header)
 * @param l4_off     bytes from the frame start to the UDP header
 * @param l4_len     bytes of UDP datagram (header included) the IP header
 *                   leaves for it
 * @param dport      UDP destination port, host order
 * @param outer_ecn  ECN bits of the outer header (RFC 3168)
 * @param in_vrf     the VRF the outer packet came in by (its ingress interface's)
 * @return           true when consumed; false when no tunnel uses @p dport
 */
bool tunnel_decap(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m, int family,
		  const void *src, const void *dst, uint32_t l4_off, uint32_t l4_len,
		  uint16_t dport, uint8_t outer_ecn, uint16_t in_vrf);

/**
 * Outer UDP source port (RFC 7348 §5: 49152..65535) of a flow on a path
 * whose first plane is @p plane with @p nb_planes planes and plane table
 * @p tab (struct fwd_path): from the inner flow's hash when the path has
 * no plane (@p plane < 0); CFG_PLANE_BASE + plane when it has one; else
 * CFG_PLANE_BASE + plane + the plane of the flow's bucket (the hash's low
 * 4 bits) in @p tab. @p flow_hash is evaluated only when needed.
 */
#define tunnel_plane_port(plane, nb_planes, tab, flow_hash)                                        \
	((uint16_t)(CFG_PLANE_BASE +                                                               \
		    ((plane) < 0 ? (uint32_t)(flow_hash)&0x3fff                                    \
				 : (uint32_t)(plane) +                                             \
					   ((nb_planes) > 1 ? (uint32_t)((tab) >>                  \
									 (((flow_hash)&15) * 4)) & \
								      15u                          \
							    : 0u))))

/** Outer UDP source port for a flow of path @p p (tunnel_plane_port()). */
static inline uint16_t tunnel_source_port(const struct fwd_path *p, uint32_t flow_hash)
{
	uint64_t tab = atomic_load_explicit(&p->plane_tab, memory_order_relaxed);
	return tunnel_plane_port(p->plane, p->nb_planes, tab, flow_hash);
}

/**
 * The plane table (struct fwd_path.plane_tab) of a path with @p nb_planes
 * planes (1..16) of which those in @p healthy (bit k: plane k) carry
 * traffic: bucket b's home plane is b mod nb_planes; a bucket whose home is
 * healthy stays there, the buckets of the others are dealt in turn over
 * the healthy planes. So taking a plane out moves only its own flows, and
 * bringing it back moves them home. With no healthy plane every bucket
 * keeps its home (the path is unusable then: path selection's business).
 */
uint64_t tunnel_plane_tab(unsigned nb_planes, uint32_t healthy);

/**
 * Encapsulate @p m, an inner IPv4 or IPv6 packet starting at its IP header
 * (nothing in front), on path @p p with outer UDP source port @p sport and
 * queue it on the path's line: what a prober sends down one plane. It is
 * counted in the tunnel's and the line's TX counters, not as forwarded.
 *
 * @param ethertype  RTE_ETHER_TYPE_IPV4 or RTE_ETHER_TYPE_IPV6 (the inner packet's)
 * @param tos        outer TOS / traffic class (DSCP and ECN bits)
 */
void tunnel_send_on_path(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			 const struct fwd_path *p, uint16_t sport, uint16_t ethertype, uint8_t tos);

#endif
