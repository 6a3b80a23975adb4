/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 fast path's routing stage (fast4.h): a run of packets that
 * passed fast4_ok(), received or decapsulated, routed with one FIB lookup
 * and rewritten in a tight loop; what needs more goes to ip4_forward(), a
 * feature's next-hop kind or a UDP service's fast input.
 */
#include <rte_byteorder.h>
#include <rte_ip.h>

#include "pipeline/fast4.h"
#include "pipeline/ip4.h"
#include "pipeline/l2.h"
#include "pipeline/local.h"
#include "pipeline/nh_kind.h"
#include "pipeline/output.h"

/*
 * The per-packet context of a packet that passed fast4_ok(), from the
 * fixed offsets fast4_ok() checked (parse_ipv4() would repeat the checks).
 */
static inline void fast4_ctx(const struct rte_mbuf *m, uint16_t iface, bool decapped,
			     struct pkt_ctx *c)
{
	const struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, 14);

	c->l2.ethertype = ETHERTYPE_IPV4;
	c->l2.l2_len = 14;
	c->l2.vlan = 0;
	c->iface = iface;
	c->decapped = decapped;
	c->ip.src = rte_be_to_cpu_32(ih->src_addr);
	c->ip.dst = rte_be_to_cpu_32(ih->dst_addr);
	c->ip.hdr_len = 20;
	c->ip.total_len = rte_be_to_cpu_16(ih->total_length);
	c->ip.proto = ih->next_proto_id;
	c->ip.ttl = ih->time_to_live;
	c->ip.df = (ih->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG)) != 0;
	c->ip.fragment = false;
	c->ip.sport = c->ip.dport = 0;
	if ((c->ip.proto == IPPROTO_UDP || c->ip.proto == IPPROTO_TCP) && c->ip.total_len >= 24) {
		const uint16_t *ports = (const uint16_t *)(ih + 1);
		c->ip.sport = rte_be_to_cpu_16(ports[0]);
		c->ip.dport = rte_be_to_cpu_16(ports[1]);
	}
}

/* A packet that passed fast4_ok() but whose route needs more than the
 * direct next hop: the general ip4_forward() with its context. */
static void fast4_general(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			  uint16_t iface, bool decapped, uint64_t fibnh)
{
	struct pkt_ctx c;

	fast4_ctx(m, iface, decapped, &c);
	ip4_forward(w, st, m, &c, fibnh);
}

/* The UDP service of a fast packet to an own address, when it has input_fast (local.h). */
static inline const struct local_service *fast4_udp_service(const struct fwd_state *st,
							    const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, 14);

	if (ip[9] != IPPROTO_UDP || m->pkt_len < 14 + 20 + 8)
		return NULL;
	uint16_t dport = (uint16_t)(ip[22] << 8 | ip[23]);
	for (uint16_t i = 0; i < st->nb_udp; i++)
		if (dport >= st->udp[i].port && dport <= st->udp[i].port_hi)
			return st->udp[i].svc->input_fast != NULL ? st->udp[i].svc : NULL;
	return NULL;
}

/*
 * The fast packets of one burst from the first, whose route is not a
 * direct next hop, while their FIB kind is the first one's, @p kind: a
 * feature's next-hop kind takes them as a burst (nh_kind.h output4_burst),
 * a UDP service on an own address as runs of its datagrams (local.h
 * input_fast); the rest takes the general path. @p ifaces: each packet's
 * ingress interface when they were decapsulated, else NULL (all came in
 * on @p iface).
 *
 * @return  how many leading packets of @p pkts it handled (1..n)
 */
static unsigned fast4_other(struct worker *w, const struct fwd_state *st, uint32_t kind,
			    struct rte_mbuf **pkts, const uint64_t *v, unsigned n, uint16_t iface,
			    const uint16_t *ifaces)
{
	bool decapped = ifaces != NULL;
	const struct fwd_nh_kind *k = fwd_nh_kinds[kind];
	unsigned a = 0;

	if (k != NULL && k->output4_burst != NULL) {
		/* it stops at another kind, or at a packet for the general path */
		while (a < n) {
			a += k->output4_burst(w, st, pkts + a, v + a, n - a);
			if (a == n || FIB_NH_KIND(v[a]) != kind)
				break;
			fast4_general(w, st, pkts[a], decapped ? ifaces[a] : iface, decapped, v[a]);
			a++;
		}
		return a;
	}
	unsigned e = 1; /* the end of the run of this kind */
	while (e < n && FIB_NH_KIND(v[e]) == kind)
		e++;
	while (a < e) {
		/* own addresses: a UDP service takes the run of its datagrams (a
		 * tunnel's are never decapsulated twice) */
		if (kind == FIB_KIND_LOCAL && !decapped) {
			const struct local_service *svc = fast4_udp_service(st, pkts[a]);
			unsigned t = svc != NULL ? svc->input_fast(w, st, pkts + a, v + a, e - a)
						 : 0;
			if (t != 0) {
				a += t;
				continue;
			}
		}
		fast4_general(w, st, pkts[a], decapped ? ifaces[a] : iface, decapped, v[a]);
		a++;
	}
	return a;
}

/* @p n routed packets leaving by @p out, @p bytes in all: counters and TX buffer */
static inline void fast4_flush(struct worker *w, const struct fwd_iface *out,
			       struct rte_mbuf **pkts, unsigned n, uint64_t bytes)
{
	struct iface_counters *ic = &w->stats.iface[out->slot];

	ic->tx_packets += n;
	ic->tx_bytes += bytes;
	w->stats.forwarded += n;
	worker_tx_bulk(w, out->port, pkts, n);
}

/*
 * Route and send the fast packets: one FIB lookup for all, then, for a
 * direct next hop through a gateway whose MAC is known and within the MTU,
 * the L2 header from the interface's precomputed bytes, RFC 1624 TTL
 * update, and the TX buffer. TX counters are summed per run of packets to
 * the same interface. The rest goes to ip4_forward() (local, ECMP, path
 * groups, ICMP errors, fragmentation, neighbor resolution).
 */
void fast4_route(struct worker *w, const struct fwd_state *st, struct rte_mbuf **pkts,
		 const uint32_t *dst, unsigned n, uint16_t iface, const uint16_t *ifaces)
{
	bool decapped = ifaces != NULL;
	uint64_t nh[WORKER_MAX_BURST];
	/* the run: pkts[run .. i) leave by run_out, run_bytes in all, sent
	 * straight from pkts when it ends */
	const struct fwd_iface *run_out = NULL;
	uint64_t run_bytes = 0;
	unsigned run = 0;
	uint64_t last_v = UINT64_MAX, mac = 0;
	const struct fwd_iface *out = NULL;

#define RUN_END(next)                                                            \
	do {                                                                     \
		if (i > run)                                                     \
			fast4_flush(w, run_out, pkts + run, i - run, run_bytes); \
		run = (next);                                                    \
		run_bytes = 0;                                                   \
	} while (0)

	if (likely(!decapped)) {
		/* every packet came in by @p iface: its VRF's FIB */
		rte_fib_lookup_bulk(st->ifaces[iface].fib, (uint32_t *)(uintptr_t)dst, nh, n);
	} else {
		/* each by its tunnel: one lookup per run of one VRF */
		for (unsigned i = 0, j; i < n; i = j) {
			struct rte_fib *fib = st->ifaces[ifaces[i]].fib;
			for (j = i + 1; j < n && st->ifaces[ifaces[j]].fib == fib; j++)
				;
			rte_fib_lookup_bulk(fib, (uint32_t *)(uintptr_t)dst + i, nh + i, j - i);
		}
	}
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint64_t v = nh[i];

		if (unlikely(FIB_NH_KIND(v) != FIB_KIND_NEXTHOP)) {
			const struct fwd_nh_kind *k = fwd_nh_kinds[FIB_NH_KIND(v)];
			if (k != NULL && k->resolve4 != NULL) {
				/* a kind that picks another value (a failover group's member) */
				uint64_t r = k->resolve4(st, FIB_NH_INDEX(v), fast4_flow_hash(m));
				if (FIB_NH_KIND(r) == FIB_KIND_NEXTHOP ||
				    FIB_NH_KIND(r) == FIB_KIND_ECMP)
					v = r;
			}
		}
		if (unlikely(FIB_NH_KIND(v) != FIB_KIND_NEXTHOP)) {
			if (FIB_NH_KIND(v) != FIB_KIND_ECMP) {
				/* a run of another kind (a path group, an own
				 * address) goes in its place, after what came before */
				RUN_END(i);
				unsigned k = fast4_other(w, st, FIB_NH_KIND(v), pkts + i, nh + i,
							 n - i, iface,
							 decapped ? ifaces + i : NULL);
				i += k - 1;
				run = i + 1;
				continue;
			}
			/* ECMP: the member the flow hash picks, as ip4_forward() does;
			 * from here on (the general path too) that member is the route */
			v = FIB_NH(FIB_KIND_NEXTHOP, fwd_nexthop_select(st, v, fast4_flow_hash(m)));
		}
		/* consecutive packets of one route (the common case) reuse its
		 * next hop's interface and MAC */
		if (v != last_v) {
			const struct fwd_nexthop *h = &st->nexthops[FIB_NH_INDEX(v)];
			last_v = v;
			out = &st->ifaces[h->iface];
			/* 0 for a connected destination: the neighbor is the
			 * destination itself, found by the general path */
			mac = h->gw ? atomic_load_explicit(&h->mac, memory_order_acquire) : 0;
		}
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

		if (unlikely(mac == 0 || m->pkt_len - 14 > out->mtu)) {
			/* what its flow sent before it goes first */
			RUN_END(i + 1);
			fast4_general(w, st, m, decapped ? ifaces[i] : iface, decapped, v);
			continue;
		}
		if (unlikely(out->vlan != 0)) {
			p = (uint8_t *)rte_pktmbuf_prepend(m, 4);
			if (unlikely(p == NULL)) {
				RUN_END(i + 1);
				worker_drop(w, m, &drop_no_headroom);
				continue;
			}
		}
		/* a run of packets to one interface: counted and queued at once */
		if (out != run_out) {
			RUN_END(i);
			run_out = out;
		}
		if (likely(out->vlan == 0)) {
			/* untagged: this packet and those after it on the same
			 * route that fit the MTU (an ECMP route's raw FIB value
			 * never equals v, a next hop's: they take the loop above) */
			const uint32_t max_len = out->mtu + 14u;
			uint64_t src = out->l2_src4;
			for (;;) {
				ip4_ttl_decrement((struct rte_ipv4_hdr *)(p + 14));
				l2_write4_untagged(p, mac, src);
				run_bytes += m->pkt_len;
				if (i + 1 >= n || nh[i + 1] != v || pkts[i + 1]->pkt_len > max_len)
					break;
				m = pkts[++i];
				p = rte_pktmbuf_mtod(m, uint8_t *);
			}
			continue;
		}
		ip4_ttl_decrement((struct rte_ipv4_hdr *)(p + 18));
		l2_write4_fast(p, out, mac);
		run_bytes += m->pkt_len;
	}
	unsigned i = n;
	RUN_END(n);
#undef RUN_END
}
