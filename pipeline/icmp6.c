/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "pipeline/local.h"
#include "pipeline/icmp.h"
#include "pipeline/icmp6.h"
#include "pipeline/ip6.h"

/* RFC 4443 §2.4 (c): the error must not exceed the minimum IPv6 MTU. */
#define ICMP6_ERROR_MAX (IPV6_MIN_MTU - IPV6_HDR_LEN - 8)

static inline bool is_icmp6_error(const struct rte_mbuf *m, const struct pkt_l2 *l2,
				  const struct pkt_ipv6 *ip)
{
	if (ip->proto != IPPROTO_ICMPV6_NUM || ip->l4_off >= IPV6_HDR_LEN + ip->payload_len)
		return false;
	/* RFC 4443 §2.1: types 0..127 are errors */
	return *rte_pktmbuf_mtod_offset(m, const uint8_t *, l2->l2_len + ip->l4_off) < 128;
}

void icmp6_error(struct worker *w, struct rte_mbuf *m, const struct fwd_iface *in,
		 const struct pkt_l2 *l2, const struct pkt_ipv6 *ip, uint8_t type, uint8_t code,
		 uint32_t param)
{
	/* Errors leave by the ingress interface: one without a port (a tunnel) gets none. */
	if (in->port >= dp.nb_port_ids)
		return;
	/* RFC 4443 §2.4 (e) */
	if (is_icmp6_error(m, l2, ip))
		return;
	if (ipv6_is_unspecified(ip->src) || ipv6_is_multicast(ip->src))
		return;
	if (ipv6_is_multicast(ip->dst) && type != ICMP6_PACKET_TOO_BIG)
		return;
	if (!icmp_allow(w))
		return;

	struct rte_mbuf *r = rte_pktmbuf_alloc(dp.pool);
	if (r == NULL) {
		w->stats.drops[drop_no_mbuf.id]++;
		return;
	}
	uint32_t quote = RTE_MIN((uint32_t)IPV6_HDR_LEN + ip->payload_len,
				 (uint32_t)ICMP6_ERROR_MAX);
	uint16_t total = (uint16_t)(IPV6_HDR_LEN + 8 + quote);
	struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)rte_pktmbuf_append(r, total);
	const struct rte_ether_addr *src_mac = rte_pktmbuf_mtod_offset(m, struct rte_ether_addr *,
								       6);
	if (h == NULL) {
		rte_pktmbuf_free(r);
		w->stats.drops[drop_no_mbuf.id]++;
		return;
	}
	bool use_ll = ipv6_is_link_local(ip->src) || ipv6_is_unspecified(in->addr6);
	h->vtc_flow = rte_cpu_to_be_32(6u << 28);
	h->payload_len = rte_cpu_to_be_16((uint16_t)(8 + quote));
	h->proto = IPPROTO_ICMPV6_NUM;
	h->hop_limits = 64;
	memcpy(h->src_addr, use_ll ? in->ll6 : in->addr6, 16);
	memcpy(h->dst_addr, ip->src, 16);

	uint8_t *ic = (uint8_t *)(h + 1);
	ic[0] = type;
	ic[1] = code;
	ic[2] = ic[3] = 0;
	*(uint32_t *)(ic + 4) = rte_cpu_to_be_32(param);
	memcpy(ic + 8, rte_pktmbuf_mtod_offset(m, const void *, l2->l2_len), quote);
	uint16_t ck = icmp6_checksum(h->src_addr, h->dst_addr, ic, 8 + quote);
	memcpy(ic + 2, &ck, 2);

	if (ip6_l2_write(r, 0, in, src_mac) < 0) {
		rte_pktmbuf_free(r);
		w->stats.drops[drop_no_mbuf.id]++;
		return;
	}
	w->stats.icmp_errors++;
	w->stats.iface[in->slot].tx_packets++;
	w->stats.iface[in->slot].tx_bytes += rte_pktmbuf_pkt_len(r);
	worker_tx(w, in->port, r);
}

void icmp6_echo_reply(struct worker *w, struct rte_mbuf *m, const struct fwd_iface *in,
		      const struct pkt_l2 *l2, const struct pkt_ipv6 *ip)
{
	struct rte_ether_addr back = rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr;
	struct rte_ipv6_hdr *h = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, l2->l2_len);
	uint8_t *ic = (uint8_t *)h + ip->l4_off;
	uint32_t len = IPV6_HDR_LEN + ip->payload_len - ip->l4_off;

	if (in->port >= dp.nb_port_ids) {
		worker_drop(w, m, &drop_unsupported_local);
		return;
	}
	memcpy(h->src_addr, ip->dst, 16);
	memcpy(h->dst_addr, ip->src, 16);
	h->hop_limits = 64;
	ic[0] = ICMP6_ECHO_REPLY;
	ic[2] = ic[3] = 0;
	uint16_t ck = icmp6_checksum(h->src_addr, h->dst_addr, ic, len);
	memcpy(ic + 2, &ck, 2);
	/* Same interface, same L2 length: only the MACs change. */
	if (ip6_l2_write(m, l2->l2_len, in, &back) < 0) {
		worker_drop(w, m, &drop_no_headroom);
		return;
	}
	w->stats.local++;
	w->stats.iface[in->slot].tx_packets++;
	w->stats.iface[in->slot].tx_bytes += rte_pktmbuf_pkt_len(m);
	worker_tx(w, in->port, m);
}

/* Echo requests to an own address (RFC 4443 §4.1); the rest goes to local_other(). */
static void icmp6_local_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			      const struct local_pkt *lp)
{
	const struct pkt_ipv6 *ip = lp->ip6;
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *, lp->l4_off);

	if (ip->l4_off != IPV6_HDR_LEN || lp->l4_len < 8 || l4[0] != ICMP6_ECHO_REQUEST ||
	    l4[1] != 0) {
		local_other(w, st, m, lp); /* the control plane's, when it has them */
		return;
	}
	if (unlikely(icmp6_checksum(ip->src, ip->dst, l4, lp->l4_len) != 0)) {
		worker_drop(w, m, &drop_icmp_bad_checksum);
		return;
	}
	icmp6_echo_reply(w, m, &st->ifaces[lp->iface], lp->l2, ip);
}

static const struct local_service icmp6_service = { .name = "icmpv6", .input = icmp6_local_input };

__attribute__((constructor)) static void icmp6_register(void)
{
	local_proto_register(AF_INET6, IPPROTO_ICMPV6_NUM, &icmp6_service);
}
