/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 fast path: the test of a received IPv4 frame and the queue of
 * decapsulated ones (inlined by worker.c, decap_input.c and
 * tunnel_input.c's decapsulation fast path), and the routing of a run of
 * such packets (fast4.c).
 */
#ifndef VBRD_FAST4_H
#define VBRD_FAST4_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "pipeline/parse.h"
#include "pipeline/worker.h"

/**
 * The fast test of the common IPv4 packet: an untagged IPv4 frame to the
 * port's untagged interface's MAC, a 20-byte header without options, in
 * one segment that holds the whole datagram, a right checksum (or one the
 * port verified), not a fragment, TTL above 1, and neither source nor
 * destination martian (RFC 1812 §5.2.2, §5.3.7). Such a packet needs none
 * of the per-packet context the general path builds: it is routed from its
 * destination alone. Anything else takes the general path (worker.c
 * classify()), which makes every check again and names the drop reason.
 *
 * @param p         the frame (rte_pktmbuf_mtod(@p m))
 * @param m         its mbuf; when the test passes, Ethernet padding after
 *                  the datagram is trimmed (IEEE 802.3 §3.2.8)
 * @param in_mac    the interface's MAC, first byte in the lowest byte
 * @param mac_mask  0xffffffffffff to check the destination MAC, 0 not to
 *                  (a decapsulated frame)
 * @param csum_ok   the port verified the header checksum
 * @return          true when the packet may take the fast path
 */
static inline bool fast4_ok(const uint8_t *p, struct rte_mbuf *m, uint64_t in_mac,
			    uint64_t mac_mask, bool csum_ok)
{
	uint64_t dmac, w12, w20;

	/* nothing is read past the frame: Ethernet and IPv4 headers first */
	if (unlikely(m->data_len < 14 + 20))
		return false;
	memcpy(&dmac, p, 8);
	memcpy(&w12, p + 12, 8); /* EtherType, version/IHL, TOS, total length, ID */
	memcpy(&w20, p + 20, 8); /* flags/fragment offset, TTL, protocol, checksum, source */
	/* EtherType 0x0800 and version/IHL 0x45: the first three bytes of w12 */
	if ((((dmac ^ in_mac) & mac_mask) << 16 | ((w12 ^ 0x450008) & 0xffffff)) != 0)
		return false;
	uint16_t total = rte_be_to_cpu_16((uint16_t)(w12 >> 32));
	if (m->data_len != m->pkt_len || m->pkt_len < 14u + total || total < 20)
		return false;
	/* no MF flag, no offset (the 0x3fff of the big-endian field), TTL above 1 */
	if ((w20 & 0xff3f) != 0 || (uint8_t)(w20 >> 16) <= 1)
		return false;
	/* first octets of source and destination (RFC 1812 §5.3.7) */
	if ((ipv4_martian_octet[p[26]] | ipv4_martian_octet[p[30]]) != 0)
		return false;
	if (!csum_ok && ipv4_hdr_sum20(p + 14) != 0)
		return false;
	/* Ethernet pads short frames (IEEE 802.3 §3.2.8): drop the padding */
	m->data_len = m->pkt_len = 14u + total;
	return true;
}

/**
 * The flow hash (flow_hash_ipv4(), RFC 2992) of a packet that passed
 * fast4_ok(), from its fixed offsets: the value the general path computes
 * from its context, so a flow picks the same ECMP member or plane on
 * either path.
 */
static inline uint32_t fast4_flow_hash(const struct rte_mbuf *m)
{
	const uint8_t *ih = rte_pktmbuf_mtod_offset(m, const uint8_t *, 14);
	uint32_t a;
	struct pkt_ipv4 ip = { .proto = ih[9] };

	memcpy(&a, ih + 12, 4);
	ip.src = rte_be_to_cpu_32(a);
	memcpy(&a, ih + 16, 4);
	ip.dst = rte_be_to_cpu_32(a);
	if ((ip.proto == IPPROTO_UDP || ip.proto == IPPROTO_TCP) && m->pkt_len >= 14 + 20 + 4) {
		memcpy(&a, ih + 20, 4); /* both ports: one load, one swap */
		a = rte_be_to_cpu_32(a);
		ip.sport = (uint16_t)(a >> 16);
		ip.dport = (uint16_t)a;
	}
	return flow_hash_ipv4(&ip);
}

/**
 * Queue a decapsulated frame that passes fast4_ok() (its inner destination
 * MAC is the tunnel's own, not checked) for routing at the end of the
 * burst, with the others (worker.decap). Counting it on @p iface's RX
 * is the caller's (what it received: pkt_len before the call, padding
 * included).
 *
 * @param iface  the tunnel interface it came out of
 * @return       false, with @p m untouched, when it is not such a frame or
 *               the queue is full: decap_input() takes it
 */
static inline bool fast4_decap_queue(struct worker *w, struct rte_mbuf *m, uint16_t iface)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned n = w->decap.n;

	if (unlikely(n >= WORKER_MAX_BURST) || !fast4_ok(p, m, 0, 0, false))
		return false;
	uint32_t d;
	memcpy(&d, p + 30, 4);
	w->decap.dst[n] = rte_be_to_cpu_32(d);
	w->decap.iface[n] = iface;
	w->decap.pkts[n] = m;
	w->decap.n = (uint16_t)(n + 1);
	return true;
}

struct fwd_state;

/**
 * Route and send fast packets (each passed fast4_ok()): one FIB lookup
 * for all, then, for a direct next hop through a gateway whose MAC is
 * known and within the MTU, the L2 header from the interface's
 * precomputed bytes, the RFC 1624 TTL update, and the TX buffer; TX
 * counters are summed per run of packets to the same interface. The rest
 * goes, in its place in the order, to ip4_forward() (local delivery, ICMP
 * errors, fragmentation, neighbor resolution) or to a feature's next-hop
 * kind (nh_kind.h output4_burst) or UDP service (local.h input_fast).
 *
 * @param pkts    the packets, @p n of them (<= WORKER_MAX_BURST); all taken
 * @param dst     each one's IPv4 destination, host order
 * @param iface   the interface they came in on (when @p ifaces is NULL)
 * @param ifaces  each packet's tunnel interface when they were
 *                decapsulated, else NULL
 */
void fast4_route(struct worker *w, const struct fwd_state *st, struct rte_mbuf **pkts,
		 const uint32_t *dst, unsigned n, uint16_t iface, const uint16_t *ifaces);

#endif
