/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMPv6 (RFC 4443) as a router answers it: echo replies for own addresses
 * and the error messages, rate-limited with the same per-worker bucket as
 * ICMP (icmp_allow()).
 */
#ifndef VBRD_ICMP6_H
#define VBRD_ICMP6_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "pipeline/fwd.h"
#include "pipeline/parse.h"
#include "pipeline/parse6.h"
#include "pipeline/output.h"

/**
 * Turn an echo request (type 128) to an own address into its reply (type
 * 129, RFC 4443 §4.2) in place: addresses swapped, checksum recomputed over
 * the pseudo-header, sent back out of the interface it came in on. The
 * caller verified the request's checksum.
 *
 * @param w   the worker
 * @param m   the request; consumed (sent or dropped)
 * @param in  interface it arrived on
 * @param l2  its L2 header facts
 * @param ip  its IPv6 header facts
 */
void icmp6_echo_reply(struct worker *w, struct rte_mbuf *m, const struct fwd_iface *in,
		      const struct pkt_l2 *l2, const struct pkt_ipv6 *ip);

/**
 * Send an ICMPv6 error about @p m back to its source, out of @p in
 * (RFC 4443 §2.4): quoting as much of the packet as fits in a 1280-byte
 * reply (IPv6 minimum MTU); never about an ICMPv6 error, nor to an
 * unspecified or multicast source, nor (but Packet Too Big) about a
 * packet to a multicast address; at most icmp.rate_pps per second. The
 * source is @p in's first global address, or its link-local address when
 * it has none or the offender's source is link-local.
 *
 * @param w      the worker
 * @param m      the offending packet, not consumed
 * @param in     interface it arrived on
 * @param l2     its L2 header facts
 * @param ip     its IPv6 header facts
 * @param type   ICMP6_DEST_UNREACH, ICMP6_PACKET_TOO_BIG, ICMP6_TIME_EXCEEDED
 * @param code   ICMPv6 code
 * @param param  the 32-bit field after the checksum: the MTU (bytes) for
 *               Packet Too Big (RFC 4443 §3.2), else 0
 */
void icmp6_error(struct worker *w, struct rte_mbuf *m, const struct fwd_iface *in,
		 const struct pkt_l2 *l2, const struct pkt_ipv6 *ip, uint8_t type, uint8_t code,
		 uint32_t param);

#endif
