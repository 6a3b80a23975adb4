/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "core/tsc.h"
#include "pipeline/local.h"
#include "pipeline/icmp.h"
#include "pipeline/l2.h"

#define ICMP_ERROR_MAX_IP 576 /* RFC 1812 §4.3.2.3: the whole error fits in 576 bytes */

/* Token bucket in fixed point: tokens are counted in TSC cycles × rate. */
bool icmp_allow(struct worker *w)
{
	uint64_t now = rte_get_tsc_cycles(), hz = tsc_hz();
	uint64_t cap = w->icmp_depth * hz;

	w->icmp_tokens += (now - w->icmp_last_tsc) * w->icmp_rate;
	w->icmp_last_tsc = now;
	if (w->icmp_tokens > cap)
		w->icmp_tokens = cap;
	if (w->icmp_tokens < hz) {
		w->stats.icmp_rate_limited++;
		return false;
	}
	w->icmp_tokens -= hz;
	return true;
}

static inline bool is_icmp_error(const struct rte_mbuf *m, const struct pkt_l2 *l2,
				 const struct pkt_ipv4 *ip)
{
	if (ip->proto != IPPROTO_ICMP || ip->total_len < ip->hdr_len + 1)
		return false;
	uint8_t type = *rte_pktmbuf_mtod_offset(m, const uint8_t *, l2->l2_len + ip->hdr_len);
	return !(type == ICMP_ECHO_REPLY || type == ICMP_ECHO_REQUEST || type == 13 || type == 14 ||
		 type == 15 || type == 16);
}

static uint8_t *put_l2(struct rte_mbuf *m, const struct fwd_iface *in,
		       const struct rte_ether_addr *dst)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	return p + l2_write(p, in, dst, RTE_ETHER_TYPE_IPV4);
}

void icmp_error(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		const struct fwd_iface *in, const struct pkt_l2 *l2, const struct pkt_ipv4 *ip,
		uint8_t type, uint8_t code, uint16_t mtu)
{
	/* RFC 1812 §4.3.2.7: never about ICMP errors, later fragments,
	 * or packets from/to broadcast or multicast addresses. */
	if (ip->fragment &&
	    (rte_be_to_cpu_16(rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, l2->l2_len)
				      ->fragment_offset) &
	     0x1fff))
		return;
	if (is_icmp_error(m, l2, ip) || in->addr4 == 0)
		return;
	if ((ip->src >> 28) == 0xe || (ip->dst >> 28) == 0xe)
		return;
	/* RFC 1812 §4.3.2.7, §5.3.7: nor to a source that names no single
	 * host: the limited broadcast, or a connected subnet's directed
	 * broadcast or network address (§4.2.2.11, §4.2.3.1), whichever
	 * subnet, not only the one the packet came from. */
	if (unlikely(ip->src == 0xffffffff || fwd_is_subnet_broadcast(st, ip->src))) {
		w->stats.icmp_suppressed_broadcast++;
		return;
	}
	if (!icmp_allow(w))
		return;

	struct rte_mbuf *r = rte_pktmbuf_alloc(dp.pool);
	if (r == NULL) {
		w->stats.drops[drop_no_mbuf.id]++;
		return;
	}
	uint16_t quote = (uint16_t)RTE_MIN((uint32_t)ip->total_len,
					   (uint32_t)(ICMP_ERROR_MAX_IP - 20 - 8));
	bool tunnel = in->port == FWD_NO_PORT;
	uint16_t l2len = tunnel ? 14 : l2_len_for(in);
	uint16_t total = (uint16_t)(20 + 8 + quote);
	if (rte_pktmbuf_append(r, l2len + total) == NULL) {
		rte_pktmbuf_free(r);
		w->stats.drops[drop_no_mbuf.id]++;
		return;
	}
	const struct rte_ether_addr *src_mac = rte_pktmbuf_mtod_offset(m, struct rte_ether_addr *,
								       6);
	struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(r, struct rte_ipv4_hdr *, l2len);
	if (!tunnel)
		put_l2(r, in, src_mac);
	memset(ih, 0, sizeof(*ih));
	ih->version_ihl = RTE_IPV4_VHL_DEF;
	ih->type_of_service = 0xc0; /* Internetwork Control (RFC 1812 §4.3.2.5) */
	ih->total_length = rte_cpu_to_be_16(total);
	ih->time_to_live = 64;
	ih->next_proto_id = IPPROTO_ICMP;
	ih->src_addr = rte_cpu_to_be_32(in->addr4);
	ih->dst_addr = rte_cpu_to_be_32(ip->src);
	ih->hdr_checksum = rte_ipv4_cksum(ih);

	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)(ih + 1);
	ic->icmp_type = type;
	ic->icmp_code = code;
	ic->icmp_cksum = 0;
	ic->icmp_ident = 0;
	/* RFC 1191 §4: the next-hop MTU in the low 16 bits of the unused word */
	ic->icmp_seq_nb = rte_cpu_to_be_16(mtu);
	memcpy(ic + 1, rte_pktmbuf_mtod_offset(m, const void *, l2->l2_len), quote);
	ic->icmp_cksum = inet_checksum(ic, 8u + quote);

	w->stats.icmp_errors++;
	if (tunnel) {
		/* came out of a tunnel: the way back is a route, not a link */
		ip4_output_local(w, st, r, (uint16_t)(in - st->ifaces));
		return;
	}
	w->stats.iface[in->slot].tx_packets++;
	w->stats.iface[in->slot].tx_bytes += rte_pktmbuf_pkt_len(r);
	worker_tx(w, in->port, r);
}

void icmp_echo_reply(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		     const struct fwd_iface *in, const struct pkt_l2 *l2, const struct pkt_ipv4 *ip)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, l2->l2_len);
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)((uint8_t *)ih + ip->hdr_len);

	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	rte_ether_addr_copy(&in->mac, &eth->src_addr);

	uint32_t a = ih->src_addr;
	ih->src_addr = ih->dst_addr;
	ih->dst_addr = a;
	ih->time_to_live = 64;
	ih->hdr_checksum = 0;
	ih->hdr_checksum = rte_ipv4_cksum(ih);

	/* Type 8 → 0: incremental update of the ICMP checksum (RFC 1624). */
	ic->icmp_type = ICMP_ECHO_REPLY;
	uint32_t sum = (uint32_t)ic->icmp_cksum + rte_cpu_to_be_16(ICMP_ECHO_REQUEST << 8);
	ic->icmp_cksum = (uint16_t)(sum + (sum >> 16));

	w->stats.local++;
	if (in->port == FWD_NO_PORT) {
		if (l2->l2_len > 14) /* ip4_output_local() wants 14 bytes of L2 */
			rte_pktmbuf_adj(m, (uint16_t)(l2->l2_len - 14));
		ip4_output_local(w, st, m, (uint16_t)(in - st->ifaces));
		return;
	}
	w->stats.iface[in->slot].tx_packets++;
	w->stats.iface[in->slot].tx_bytes += rte_pktmbuf_pkt_len(m);
	worker_tx(w, in->port, m);
}

/* Echo requests to an own address (RFC 792); other ICMP to us goes to local_other(). */
static void icmp_local_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			     const struct local_pkt *lp)
{
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *, lp->l4_off);

	if (lp->fragment || lp->l4_len < 8 || l4[0] != ICMP_ECHO_REQUEST) {
		local_other(w, st, m, lp); /* the control plane's, when it has them */
		return;
	}
	/* RFC 792: a reply built on a bad checksum would carry it on */
	if (unlikely(m->nb_segs == 1 && inet_checksum(l4, lp->l4_len) != 0)) {
		worker_drop(w, m, &drop_icmp_bad_checksum);
		return;
	}
	icmp_echo_reply(w, st, m, &st->ifaces[lp->iface], lp->l2, lp->ip4);
}

static const struct local_service icmp_service = { .name = "icmp", .input = icmp_local_input };

__attribute__((constructor)) static void icmp_register(void)
{
	local_proto_register(AF_INET, IPPROTO_ICMP, &icmp_service);
}
