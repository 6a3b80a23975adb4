/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the control plane originates (the kernel's packets on the TAPs of
 * frr/cplane: BGP, ICMP errors, ...): routed by the FIB on the control
 * thread and sent through a worker's inject ring, the TTL left as the
 * kernel set it (control.h control_ip_output()).
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_ip.h>

#include "pipeline/control.h"
#include "pipeline/l2.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/nh_kind.h"
#include "pipeline/output.h"

DROP_REASON(drop_cplane_not_ip, "cplane", "cplane_not_ip",
	    "a frame the kernel sent on a TAP that is no IPv4/IPv6 unicast vbrd routes");
DROP_REASON(drop_cplane_no_route, "cplane", "cplane_no_route",
	    "a packet the kernel sent has no route vbrd sends control traffic on "
	    "(none, an own address, a tunnel's path group)");
DROP_REASON(drop_cplane_too_big, "cplane", "cplane_too_big",
	    "a packet the kernel sent is larger than the egress interface's MTU");

/* A FIB value down to a direct next hop's index, through a feature's
 * kind that picks one (a failover group's selected member). */
static bool nexthop_of(const struct fwd_state *st, uint64_t v, uint32_t *idx)
{
	unsigned kind = FIB_NH_KIND(v);

	if (kind >= FIB_KIND_FEATURE && fwd_nh_kinds[kind] != NULL &&
	    fwd_nh_kinds[kind]->resolve4 != NULL)
		v = fwd_nh_kinds[kind]->resolve4(st, FIB_NH_INDEX(v), 0);
	kind = FIB_NH_KIND(v);
	if (kind == FIB_KIND_NEXTHOP && FIB_NH_INDEX(v) < (uint32_t)st->nb_nexthops) {
		*idx = FIB_NH_INDEX(v);
		return true;
	}
	if (kind == FIB_KIND_ECMP && FIB_NH_INDEX(v) < (uint32_t)st->nb_ecmp &&
	    st->ecmp[FIB_NH_INDEX(v)].nb > 0) {
		*idx = fwd_nexthop_select(st, v, 0);
		return true;
	}
	return false;
}

/* Write the L2 header for @p out and send, or hold while @p gw resolves. */
static const struct drop_reason *send_via(const struct fwd_state *st, struct rte_mbuf *m,
					  const struct fwd_iface *out, int family, const void *gw,
					  uint32_t l3_len)
{
	struct rte_ether_addr dmac;
	uint64_t mac;

	if (out->port == FWD_NO_PORT)
		return &drop_cplane_no_route;
	if (l3_len > out->mtu)
		return &drop_cplane_too_big;
	mac = fwd_neigh_mac(st, out->port, out->vlan, family, gw);
	neigh_mac_to_ether(mac, &dmac);
	if (l2_rewrite(m, RTE_ETHER_HDR_LEN, out, &dmac,
		       family == AF_INET ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6) < 0)
		return &drop_no_headroom;
	if (mac == 0) {
		struct pkt_meta *pm = pkt_meta(m);
		pm->punt = family == AF_INET ? PUNT_RESOLVE : PUNT_RESOLVE6;
		pm->port = out->port;
		pm->vlan = out->vlan;
		pm->held_forwarded = 0;
		if (family == AF_INET)
			pm->nh_ip = *(const uint32_t *)gw;
		else
			memcpy(pm->nh_ip6, gw, 16);
		control_resolve(st, m);
		return NULL;
	}
	control_tx(m, out->port);
	return NULL;
}

static const struct drop_reason *output4(const struct fwd_state *st, struct rte_mbuf *m,
					 uint16_t iface)
{
	const struct rte_ipv4_hdr *ip;
	uint32_t dst, idx;
	uint64_t v;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip))
		return &drop_cplane_not_ip;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	dst = rte_be_to_cpu_32(ip->dst_addr);
	if ((dst >> 28) == 0xe || dst == 0xffffffff)
		return &drop_cplane_not_ip;
	rte_fib_lookup_bulk(st->ifaces[iface].fib, &dst, &v, 1);
	if (!nexthop_of(st, v, &idx))
		return &drop_cplane_no_route;
	const struct fwd_nexthop *nh = &st->nexthops[idx];
	uint32_t gw = nh->gw != 0 ? nh->gw : dst;
	return send_via(st, m, &st->ifaces[nh->iface], AF_INET, &gw,
			rte_be_to_cpu_16(ip->total_length));
}

static const struct drop_reason *output6(const struct fwd_state *st, struct rte_mbuf *m,
					 uint16_t iface)
{
	const struct rte_ipv6_hdr *ip;
	uint8_t dst[16];
	uint32_t idx;
	uint64_t v;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip))
		return &drop_cplane_not_ip;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	memcpy(dst, ip->dst_addr, 16);
	uint32_t len = (uint32_t)sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
	if (dst[0] == 0xff)
		return &drop_cplane_not_ip;
	if (dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80) /* fe80::/10: the TAP's link */
		return send_via(st, m, &st->ifaces[iface], AF_INET6, dst, len);
	rte_fib6_lookup_bulk(st->ifaces[iface].fib6, (uint8_t(*)[16])dst, &v, 1);
	if (!nexthop_of(st, v, &idx))
		return &drop_cplane_no_route;
	const struct fwd_nexthop *nh = &st->nexthops[idx];
	static const uint8_t zero[16];
	const uint8_t *gw = memcmp(nh->gw6, zero, 16) != 0 ? nh->gw6 : dst;
	return send_via(st, m, &st->ifaces[nh->iface], AF_INET6, gw, len);
}

const struct drop_reason *control_ip_output(const struct fwd_state *st, struct rte_mbuf *m,
					    uint16_t iface)
{
	const struct rte_ether_hdr *eth;

	if (iface >= st->nb_ifaces || rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)
		return &drop_cplane_not_ip;
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	switch (rte_be_to_cpu_16(eth->ether_type)) {
	case RTE_ETHER_TYPE_IPV4:
		return output4(st, m, iface);
	case RTE_ETHER_TYPE_IPV6:
		return output6(st, m, iface);
	default:
		return &drop_cplane_not_ip;
	}
}
