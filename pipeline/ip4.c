/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 input checks and forwarding (RFC 791, RFC 1812 §5.2-5.3): martian
 * filter, local delivery, ICMP errors, TTL, MTU and fragmentation, then
 * the output layer.
 */
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>

#include "pipeline/icmp.h"
#include "pipeline/ip4.h"
#include "pipeline/local.h"
#include "pipeline/neigh.h"
#include "pipeline/nh_kind.h"

DROP_REASON(drop_ttl_expired, "ip", "ttl_expired",
	    "TTL or hop limit would reach 0 (ICMP time exceeded sent)");
DROP_REASON(drop_no_route, "ip", "no_route", "no FIB entry (ICMP destination unreachable sent)");
DROP_REASON(
	drop_mtu_exceeded, "ip", "mtu_exceeded",
	"larger than the egress MTU with DF set, or IPv6 (ICMP frag needed / packet too big sent)");
DROP_REASON(drop_unsupported_local, "ip", "unsupported_local",
	    "to an own address, but not a service vbrd offers");
DROP_REASON(drop_martian, "ip", "martian", "source or destination that must not be routed");
DROP_REASON(drop_directed_broadcast, "ip", "directed_broadcast",
	    "to a connected subnet's broadcast or network address (RFC 2644)");
DROP_REASON(drop_frag_failed, "ip", "frag_failed", "IPv4 fragmentation failed");
DROP_REASON(drop_ipv6_multicast, "ip", "ipv6_multicast",
	    "IPv6 multicast vbrd does not serve (MLD, router solicitation)");
DROP_REASON(drop_icmp_bad_checksum, "ip", "icmp_bad_checksum",
	    "ICMP or ICMPv6 message to an own address with a wrong checksum");

/* RFC 1812 §5.3.7 / §4.2.2.11: addresses that are never forwarded. */
static inline bool martian(uint32_t src, uint32_t dst)
{
	return (ipv4_martian_octet[src >> 24] | ipv4_martian_octet[dst >> 24]) != 0;
}

/*
 * Fragment a datagram too large for @p out (RFC 791 §3.2, "Fragmentation
 * and Reassembly") with rte_ip_frag: each fragment is a new header mbuf
 * chained to the original payload (indirect mbufs, no copy).
 */
static void ip4_fragment(struct worker *w, struct rte_mbuf *m, uint16_t l2_len,
			 const struct fwd_iface *out, uint64_t mac, uint32_t gw)
{
	struct rte_mbuf *frags[128];
	uint16_t in_port = m->port, in_tci = m->vlan_tci;
	int n;

	rte_pktmbuf_adj(m, l2_len);
	n = rte_ipv4_fragment_packet(m, frags, RTE_DIM(frags), out->mtu, dp.pool, dp.indirect_pool);
	rte_pktmbuf_free(m);
	if (n < 0) {
		w->stats.drops[drop_frag_failed.id]++;
		return;
	}
	for (int i = 0; i < n; i++) {
		struct rte_mbuf *f = frags[i];
		struct rte_ipv4_hdr *fh = rte_pktmbuf_mtod(f, struct rte_ipv4_hdr *);

		fh->hdr_checksum = 0;
		fh->hdr_checksum = rte_ipv4_cksum(fh);
		/* a fresh header mbuf: the ingress port and tag egress QoS classes by */
		f->port = in_port;
		f->vlan_tci = in_tci;
		w->stats.fragments++;
		worker_output(w, f, 0, out, mac, AF_INET, &gw);
	}
}

/* To an own address: hand it to the service of its protocol or port. */
static void ip4_local(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		      const struct pkt_ctx *c)
{
	const struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								c->l2.l2_len);
	struct local_pkt lp = {
		.family = AF_INET,
		.l2 = &c->l2,
		.ip4 = &c->ip,
		.src = &c->ip.src,
		.dst = &c->ip.dst,
		.iface = c->iface,
		.proto = c->ip.proto,
		.ecn = ih->type_of_service & 0x3,
		.fragment = c->ip.fragment,
		.decapped = c->decapped,
		.l4_off = c->l2.l2_len + c->ip.hdr_len,
		.l4_len = (uint32_t)(c->ip.total_len - c->ip.hdr_len),
		.sport = c->ip.sport,
		.dport = c->ip.dport,
	};
	local_input(w, st, m, &lp);
}

void ip4_forward(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 struct pkt_ctx *c, uint64_t fibnh)
{
	const struct fwd_iface *in = &st->ifaces[c->iface];
	uint32_t kind = FIB_NH_KIND(fibnh), idx = FIB_NH_INDEX(fibnh);

	if (kind == FIB_KIND_LOCAL) {
		/* an address that is ours only while the gate is open (fwd_gate) */
		if (unlikely(in->rx_gate != NULL) && in->rx_gate->has_local4 &&
		    c->ip.dst == in->rx_gate->local4 && !c->decapped &&
		    !fwd_gate_open(in->rx_gate, rte_get_tsc_cycles())) {
			worker_drop(w, m, in->rx_gate->closed);
			return;
		}
		ip4_local(w, st, m, c);
		return;
	}
	/* a closed gate (fwd_gate) stops transit received on its interface;
	 * what vbrd sends itself comes with decapped set and passes */
	if (unlikely(in->rx_gate != NULL) && !c->decapped &&
	    !fwd_gate_open(in->rx_gate, rte_get_tsc_cycles())) {
		worker_drop(w, m, in->rx_gate->closed);
		return;
	}
	if (unlikely(kind == FIB_KIND_BCAST)) {
		worker_drop(w, m, &drop_directed_broadcast);
		return;
	}
	if (kind == FIB_KIND_NONE) {
		icmp_error(w, st, m, in, &c->l2, &c->ip, ICMP_DEST_UNREACH, ICMP_NET_UNREACH, 0);
		worker_drop(w, m, &drop_no_route);
		return;
	}
	if (c->ip.ttl <= 1) {
		icmp_error(w, st, m, in, &c->l2, &c->ip, ICMP_TIME_EXCEEDED, 0, 0);
		worker_drop(w, m, &drop_ttl_expired);
		return;
	}
	if (fwd_nh_kinds[kind] != NULL) {
		fwd_nh_kinds[kind]->output4(w, st, m, c, idx);
		return;
	}
	idx = fwd_nexthop_select(st, fibnh, kind == FIB_KIND_ECMP ? flow_hash_ipv4(&c->ip) : 0);
	const struct fwd_nexthop *nh = &st->nexthops[idx];
	const struct fwd_iface *out = &st->ifaces[nh->iface];

	if (unlikely(c->ip.total_len > out->mtu)) {
		if (c->ip.df) {
			icmp_error(w, st, m, in, &c->l2, &c->ip, ICMP_DEST_UNREACH,
				   ICMP_FRAG_NEEDED, out->mtu);
			worker_drop(w, m, &drop_mtu_exceeded);
			return;
		}
	}

	struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, c->l2.l2_len);
	ip4_ttl_decrement(ih);

	uint32_t gw = nh->gw ? nh->gw : c->ip.dst;
	uint64_t mac = nh->gw ? atomic_load_explicit(&nh->mac, memory_order_acquire)
			      : neigh_lookup(out->port, out->vlan, gw);
	if (unlikely(c->ip.total_len > out->mtu)) {
		ip4_fragment(w, m, c->l2.l2_len, out, mac, gw);
		return;
	}
	worker_output(w, m, c->l2.l2_len, out, mac, AF_INET, &gw);
}

bool ip4_input_check(struct worker *w, struct rte_mbuf *m, struct pkt_ctx *c)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	bool csum_ok = !c->decapped &&
		       (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	const struct drop_reason *why;

	if (unlikely(!parse_ipv4(p + c->l2.l2_len, len - c->l2.l2_len, csum_ok, &c->ip, &why)))
		goto drop;
	if (unlikely(martian(c->ip.src, c->ip.dst))) {
		why = &drop_martian;
		goto drop;
	}
	/* Ethernet pads short frames (IEEE 802.3 §3.2.8): drop the padding. */
	uint32_t frame = c->l2.l2_len + c->ip.total_len;
	if (rte_pktmbuf_pkt_len(m) > frame &&
	    unlikely(rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - frame) < 0)) {
		/* more trailing bytes than the last segment holds: not padding */
		why = &drop_bad_length;
		goto drop;
	}
	return true;
drop:
	worker_drop(w, m, why);
	return false;
}

void ip4_output_local(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		      uint16_t iface)
{
	struct pkt_ctx c = { .iface = iface, .decapped = true };
	const struct drop_reason *why;
	uint64_t nh;

	c.l2.l2_len = 14;
	c.l2.ethertype = ETHERTYPE_IPV4;
	if (unlikely(!parse_ipv4(rte_pktmbuf_mtod_offset(m, const uint8_t *, 14),
				 rte_pktmbuf_data_len(m) - 14, true, &c.ip, &why))) {
		worker_drop(w, m, why);
		return;
	}
	/* Routed like a received packet: it leaves with TTL 63, one hop
	 * spent on the way out of vbrd, which traceroute does not mind. */
	rte_fib_lookup_bulk(st->ifaces[iface].fib, &c.ip.dst, &nh, 1);
	ip4_forward(w, st, m, &c, nh);
}
