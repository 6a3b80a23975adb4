/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_fib6.h>
#include <rte_ip.h>

#include "pipeline/icmp6.h"
#include "pipeline/ip6.h"
#include "pipeline/l2.h"
#include "pipeline/local.h"
#include "pipeline/nh_kind.h"
#include "pipeline/neigh.h"
#include "pipeline/control.h"

int ip6_l2_write(struct rte_mbuf *m, uint16_t in_l2, const struct fwd_iface *out,
		 const struct rte_ether_addr *dst)
{
	return l2_rewrite(m, in_l2, out, dst, RTE_ETHER_TYPE_IPV6);
}

static inline bool addr6_is_zero(const uint8_t *a)
{
	uint64_t x[2];

	memcpy(x, a, 16);
	return (x[0] | x[1]) == 0;
}

/* To an own address: hand it to the service of its protocol or port. */
static void local_input6(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			 const struct ip6_ctx *c)
{
	const struct pkt_ipv6 *ip = &c->ip;
	const struct rte_ipv6_hdr *h = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
							       c->l2.l2_len);
	struct local_pkt lp = {
		.family = AF_INET6,
		.l2 = &c->l2,
		.ip6 = ip,
		.src = ip->src,
		.dst = ip->dst,
		.iface = c->iface,
		.proto = ip->proto,
		.ecn = (uint8_t)((rte_be_to_cpu_32(h->vtc_flow) >> 20) & 0x3),
		.fragment = ip->fragment,
		.decapped = c->decapped,
		.l4_off = c->l2.l2_len + ip->l4_off,
		.l4_len = IPV6_HDR_LEN + ip->payload_len - ip->l4_off,
		.sport = ip->sport,
		.dport = ip->dport,
	};
	local_input(w, st, m, &lp);
}

void ip6_classify(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		  const struct pkt_l2 *l2, const struct fwd_iface *in, bool to_us,
		  struct ip6_burst *b)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	struct ip6_ctx *c = &b->ctx[b->n];
	const struct drop_reason *why;

	/* RFC 2464 §7: IPv6 multicast goes to 33:33 + the address's last 32 bits. */
	bool l2_mcast = !to_us && p[0] == 0x33 && p[1] == 0x33;
	if (unlikely(!to_us && !l2_mcast)) {
		why = &drop_not_for_us;
		goto drop;
	}
	if (unlikely(!parse_ipv6(p + l2->l2_len, len - l2->l2_len, &c->ip, &why)))
		goto drop;
	const struct pkt_ipv6 *ip = &c->ip;
	c->l2 = *l2;
	c->iface = (uint16_t)(in - st->ifaces);
	c->decapped = false;

	/* Ethernet pads short frames (IEEE 802.3 §3.2.8): drop the padding. */
	uint32_t frame = l2->l2_len + IPV6_HDR_LEN + ip->payload_len;
	if (rte_pktmbuf_pkt_len(m) > frame &&
	    unlikely(rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - frame) < 0)) {
		/* more trailing bytes than the last segment holds: not padding */
		why = &drop_bad_length;
		goto drop;
	}

	/* RFC 4291 §2.5.2, §2.5.3, §2.7: never valid as such. */
	if (unlikely(ipv6_is_multicast(ip->src) || ipv6_is_loopback(ip->src) ||
		     ipv6_is_loopback(ip->dst) || ipv6_is_unspecified(ip->dst))) {
		why = &drop_martian;
		goto drop;
	}

	/* Neighbor Discovery: validated here, answered by the control thread. */
	const uint8_t *l4 = p + l2->l2_len + ip->l4_off;
	uint32_t l4len = IPV6_HDR_LEN + ip->payload_len - ip->l4_off;
	if (ip->proto == IPPROTO_ICMPV6_NUM && l4len >= 1 &&
	    (l4[0] == ICMP6_NEIGH_SOLICIT || l4[0] == ICMP6_NEIGH_ADVERT)) {
		if (!nd_validate(ip, l4, l4len)) {
			why = &drop_bad_nd;
			goto drop;
		}
		if (icmp6_checksum(ip->src, ip->dst, l4, l4len) != 0) {
			why = &drop_icmp_bad_checksum;
			goto drop;
		}
		/* a tunnel interface has no neighbors: inner ND must not
		 * reach the neighbor table of the physical ports */
		if (unlikely(in->port == FWD_NO_PORT)) {
			why = &drop_unsupported_local;
			goto drop;
		}
		pkt_meta(m)->l2_len = (uint8_t)l2->l2_len;
		worker_punt(w, m, PUNT_ND, m->port, l2->vlan, NULL);
		return;
	}
	/* Before the source check: MLD reports may come from :: (RFC 3810 §5.2.13). */
	if (ipv6_is_multicast(ip->dst)) {
		why = &drop_ipv6_multicast;
		goto drop;
	}
	if (unlikely(ipv6_is_unspecified(ip->src))) {
		why = &drop_martian; /* only DAD solicitations come from :: */
		goto drop;
	}
	if (unlikely(l2_mcast)) {
		why = &drop_not_for_us; /* unicast IPv6 in a multicast frame */
		goto drop;
	}
	if (ipv6_is_link_local(ip->dst)) {
		/* RFC 4291 §2.5.6: link-local destinations are never forwarded. */
		if (memcmp(ip->dst, in->ll6, 16) == 0) {
			local_input6(w, st, m, c);
			return;
		}
		why = &drop_martian;
		goto drop;
	}
	memcpy(b->dst[b->n], ip->dst, 16);
	b->pkts[b->n++] = m;
	return;
drop:
	worker_drop(w, m, why);
}

void ip6_forward(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 const struct ip6_ctx *c, uint64_t fibnh)
{
	const struct fwd_iface *in = &st->ifaces[c->iface];
	const struct pkt_ipv6 *ip = &c->ip;
	uint32_t kind = FIB_NH_KIND(fibnh);

	if (kind == FIB_KIND_LOCAL) {
		/* an address that is ours only while the gate is open (fwd_gate) */
		if (unlikely(in->rx_gate != NULL) && in->rx_gate->has_local6 &&
		    memcmp(ip->dst, in->rx_gate->local6, 16) == 0 && !c->decapped &&
		    !fwd_gate_open(in->rx_gate, rte_get_tsc_cycles())) {
			worker_drop(w, m, in->rx_gate->closed);
			return;
		}
		local_input6(w, st, m, c);
		return;
	}
	/* a closed gate (fwd_gate) stops transit received on its interface;
	 * what vbrd sends itself comes with decapped set and passes */
	if (unlikely(in->rx_gate != NULL) && !c->decapped &&
	    !fwd_gate_open(in->rx_gate, rte_get_tsc_cycles())) {
		worker_drop(w, m, in->rx_gate->closed);
		return;
	}
	if (kind != FIB_KIND_NEXTHOP && kind != FIB_KIND_ECMP && fwd_nh_kinds[kind] == NULL) {
		icmp6_error(w, m, in, &c->l2, ip, ICMP6_DEST_UNREACH, ICMP6_NO_ROUTE, 0);
		worker_drop(w, m, &drop_no_route);
		return;
	}
	/* RFC 4291 §2.5.6: a link-local source never leaves its link (RFC 4443 §3.1 code 2). */
	if (unlikely(ipv6_is_link_local(ip->src))) {
		icmp6_error(w, m, in, &c->l2, ip, ICMP6_DEST_UNREACH, ICMP6_BEYOND_SCOPE, 0);
		worker_drop(w, m, &drop_martian);
		return;
	}
	/* RFC 8200 §3: a router decrements the hop limit, discards it at zero. */
	if (ip->hop_limit <= 1) {
		icmp6_error(w, m, in, &c->l2, ip, ICMP6_TIME_EXCEEDED, 0, 0);
		worker_drop(w, m, &drop_ttl_expired);
		return;
	}
	if (fwd_nh_kinds[kind] != NULL) {
		fwd_nh_kinds[kind]->output6(w, st, m, c, FIB_NH_INDEX(fibnh));
		return;
	}
	uint32_t idx = fwd_nexthop_select(st, fibnh,
					  kind == FIB_KIND_ECMP ? flow_hash_ipv6(ip) : 0);
	const struct fwd_nexthop *nh = &st->nexthops[idx];
	const struct fwd_iface *out = &st->ifaces[nh->iface];

	/* An interface without a port (a tunnel) does not carry IPv6 yet. */
	if (unlikely(out->port >= dp.nb_port_ids)) {
		icmp6_error(w, m, in, &c->l2, ip, ICMP6_DEST_UNREACH, ICMP6_NO_ROUTE, 0);
		worker_drop(w, m, &drop_no_route);
		return;
	}
	/* RFC 8200 §5: no fragmentation on the way; Packet Too Big (RFC 4443 §3.2). */
	if (unlikely((uint32_t)IPV6_HDR_LEN + ip->payload_len > out->mtu)) {
		icmp6_error(w, m, in, &c->l2, ip, ICMP6_PACKET_TOO_BIG, 0, out->mtu);
		worker_drop(w, m, &drop_mtu_exceeded);
		return;
	}
	struct rte_ipv6_hdr *h = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, c->l2.l2_len);
	h->hop_limits--;

	bool connected = addr6_is_zero(nh->gw6);
	const uint8_t *gw = connected ? ip->dst : nh->gw6;
	uint64_t mac = connected ? neigh_lookup6(out->port, out->vlan, gw)
				 : atomic_load_explicit(&nh->mac, memory_order_acquire);
	worker_output(w, m, c->l2.l2_len, out, mac, AF_INET6, gw);
}

void ip6_route_burst(struct worker *w, const struct fwd_state *st, struct ip6_burst *b)
{
	if (b->n == 0)
		return;
	/* one lookup per run of packets of one VRF (the ingress interface's FIB) */
	for (unsigned i = 0, j; i < b->n; i = j) {
		struct rte_fib6 *fib6 = st->ifaces[b->ctx[i].iface].fib6;
		for (j = i + 1; j < b->n && st->ifaces[b->ctx[j].iface].fib6 == fib6; j++)
			;
		rte_fib6_lookup_bulk(fib6, b->dst + i, b->nh + i, (int)(j - i));
	}
	for (unsigned i = 0; i < b->n; i++)
		ip6_forward(w, st, b->pkts[i], &b->ctx[i], b->nh[i]);
	b->n = 0;
}
