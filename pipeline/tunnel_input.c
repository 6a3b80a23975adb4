/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Decapsulation: accept only from configured remotes with their VNI,
 * apply RFC 6040 ECN rules, then route the inner packet as if it had
 * arrived on the tunnel interface.
 */
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "core/be.h"
#include "pipeline/decap_input.h"
#include "pipeline/fast4.h"
#include "pipeline/parse.h"
#include "pipeline/local.h"
#include "pipeline/meta.h"
#include "pipeline/parse6.h"
#include "pipeline/tunnel.h"

DROP_REASON(drop_tunnel_truncated, "tunnel", "tunnel_truncated",
	    "UDP/VXLAN/GENEVE/inner Ethernet header cut short (by the packet or by "
	    "its UDP length), or a UDP length past the IP payload");
DROP_REASON(drop_tunnel_bad_header, "tunnel", "tunnel_bad_header",
	    "VXLAN I flag clear, GENEVE version or protocol wrong");
DROP_REASON(drop_tunnel_bad_checksum, "tunnel", "tunnel_bad_checksum",
	    "tunnel packet with a wrong non-zero UDP checksum (RFC 768, RFC 8200 §8.1)");
DROP_REASON(drop_tunnel_zero_checksum6, "tunnel", "tunnel_zero_checksum6",
	    "zero UDP checksum over IPv6 on a tunnel without udp_zero_checksum6 "
	    "(RFC 6935 §5, RFC 6936 §5)");
DROP_REASON(drop_tunnel_critical_option, "tunnel", "tunnel_critical_option",
	    "GENEVE C bit set: a critical option vbrd does not understand (RFC 8926 §3.4, §3.5)");
DROP_REASON(drop_tunnel_unknown_remote, "tunnel", "tunnel_unknown_remote",
	    "tunnel packet from an address no tunnel has as remote");
DROP_REASON(drop_tunnel_bad_vni, "tunnel", "tunnel_bad_vni",
	    "tunnel packet from a known remote with a VNI it does not use");
DROP_REASON(drop_ecn_not_ect, "tunnel", "ecn_not_ect",
	    "outer CE over a not-ECT inner packet (RFC 6040 §4.2)");
DROP_REASON(drop_no_path, "tunnel", "no_path", "path group has no usable path");
DROP_REASON(
	drop_tunnel_wrong_vrf, "tunnel", "tunnel_wrong_vrf",
	"the outer packet came in by an interface of another VRF than the tunnel's underlay_vrf");
DROP_REASON(drop_tunnel_inner_vlan, "tunnel", "tunnel_inner_vlan",
	    "decapsulated frame with an 802.1Q tag (RFC 7348 §6.1: discarded)");

#define ECN_MASK    0x03
#define ECN_NOT_ECT 0x00
#define ECN_CE      0x03

/*
 * RFC 6040 §4.2: an outer CE mark survives decapsulation when the inner
 * packet is ECN-capable, and the packet is dropped when it is not.
 * Returns false when the packet must be dropped.
 */
static bool ecn_decap(uint8_t *inner, uint32_t avail, uint16_t ethertype, uint8_t outer_ecn)
{
	if (outer_ecn != ECN_CE)
		return true;
	if (ethertype == ETHERTYPE_IPV4 && avail >= 20) {
		struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)inner;
		uint8_t ecn = ih->type_of_service & ECN_MASK;
		if (ecn == ECN_NOT_ECT)
			return false;
		if (ecn != ECN_CE) {
			/* RFC 1624 §3 (eqn. 3), HC' = ~(~HC + ~m + m'), over the
			 * 16-bit word of version/IHL and TOS: a header whose
			 * checksum was wrong stays wrong, and is dropped as
			 * bad_checksum when the inner packet is checked. */
			uint16_t old_w, new_w;
			memcpy(&old_w, inner, 2);
			ih->type_of_service |= ECN_CE;
			memcpy(&new_w, inner, 2);
			uint32_t sum = (uint16_t)~ih->hdr_checksum + (uint32_t)(uint16_t)~old_w +
				       new_w;
			sum = (sum & 0xffff) + (sum >> 16);
			sum = (sum & 0xffff) + (sum >> 16);
			ih->hdr_checksum = (uint16_t)~sum;
		}
	} else if (ethertype == ETHERTYPE_IPV6 && avail >= 40) {
		/* traffic class straddles bytes 0 and 1: ECN is bits 4..5 of byte 1 */
		uint8_t ecn = (uint8_t)((inner[1] >> 4) & ECN_MASK);
		if (ecn == ECN_NOT_ECT)
			return false;
		inner[1] |= ECN_CE << 4;
	}
	return true;
}

/* RFC 768 (over IPv6, RFC 8200 §8.1): the checksum of a datagram whose field is not 0. */
static bool udp_checksum_ok(int family, const void *src, const void *dst, const uint8_t *udp,
			    uint32_t len)
{
	if (family == AF_INET)
		return udp4_checksum_ok(*(const uint32_t *)src, *(const uint32_t *)dst, udp, len);
	return udp6_checksum_ok(src, dst, udp, len);
}

bool tunnel_decap(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m, int family,
		  const void *src, const void *dst, uint32_t l4_off, uint32_t l4_len,
		  uint16_t dport, uint8_t outer_ecn, uint16_t in_vrf)
{
	const struct fwd_tunnel *port_match = tunnel_on_port(st, dport);

	if (port_match == NULL)
		return false;

	uint8_t *udp = rte_pktmbuf_mtod_offset(m, uint8_t *, l4_off);
	uint8_t *th = udp + 8;
	uint32_t hdr_len = 8;

	if (l4_len < 8 + 8 + TUNNEL_INNER_L2 || rte_pktmbuf_data_len(m) < l4_off + l4_len) {
		worker_drop(w, m, &drop_tunnel_truncated);
		return true;
	}
	/* RFC 768: the datagram is as long as its length field says; what
	 * follows it in the IP payload is not part of it (nor of the checksum). */
	uint16_t udp_len = be16_get(udp + 4);
	if (udp_len < 8 + 8 + TUNNEL_INNER_L2 || udp_len > l4_len) {
		worker_drop(w, m, &drop_tunnel_truncated);
		return true;
	}
	l4_len = udp_len;
	/* A checksum that is there is checked before anything it covers is
	 * trusted; a zero one (none) is decided once the tunnel is known. */
	uint16_t csum = be16_get(udp + 6);
	if (csum != 0 && unlikely(!udp_checksum_ok(family, src, dst, udp, l4_len))) {
		worker_drop(w, m, &drop_tunnel_bad_checksum);
		return true;
	}
	if (port_match->type == CFG_TUNNEL_VXLAN) {
		if (!(th[0] & 0x08)) { /* RFC 7348 §5: I flag must be set */
			worker_drop(w, m, &drop_tunnel_bad_header);
			return true;
		}
	} else {
		/* RFC 8926 §3.4: version 0; O (control) packets are not data */
		if ((th[0] >> 6) != 0 || (th[1] & 0x80) || be16_get(th + 2) != 0x6558) {
			worker_drop(w, m, &drop_tunnel_bad_header);
			return true;
		}
		/* RFC 8926 §3.4, §3.5: C set means a critical option is present;
		 * vbrd understands no option, so it must not forward the packet.
		 * With C clear, options may be skipped unread (Opt Len). */
		if (th[1] & 0x40) {
			worker_drop(w, m, &drop_tunnel_critical_option);
			return true;
		}
		hdr_len += (uint32_t)(th[0] & 0x3f) * 4;
		if (l4_len < 8 + hdr_len + TUNNEL_INNER_L2) {
			worker_drop(w, m, &drop_tunnel_truncated);
			return true;
		}
	}
	uint32_t vni = be32_get(th + 4) >> 8;

	bool known_remote = false;
	const struct fwd_tunnel *t = tunnel_lookup(st, dport, family, src, vni, &known_remote);
	if (t == NULL) {
		worker_drop(w, m,
			    known_remote ? &drop_tunnel_bad_vni : &drop_tunnel_unknown_remote);
		return true;
	}
	/* the outer packet came in by another VRF than the tunnel's underlay
	 * (an address both VRFs have): never into the tunnel's VRF */
	if (unlikely(t->underlay_vrf != in_vrf)) {
		worker_drop(w, m, &drop_tunnel_wrong_vrf);
		return true;
	}
	/* RFC 8200 §8.1: over IPv6 a zero UDP checksum is not allowed, but
	 * for tunnels configured to accept it (RFC 6935 §5, RFC 6936 §5). */
	if (csum == 0 && family == AF_INET6 && !t->udp_zero_checksum6) {
		worker_drop(w, m, &drop_tunnel_zero_checksum6);
		return true;
	}

	uint32_t strip = l4_off + 8 + hdr_len;
	uint8_t *inner_eth = udp + 8 + hdr_len;
	/* RFC 7348 §6.1: a decapsulated frame with an inner VLAN tag SHOULD be
	 * discarded; vbrd maps no VLAN inside a tunnel */
	if (be16_get(inner_eth + 12) == ETHERTYPE_VLAN) {
		worker_drop(w, m, &drop_tunnel_inner_vlan);
		return true;
	}
	uint32_t inner_avail = l4_len - 8 - hdr_len - TUNNEL_INNER_L2;
	if (!ecn_decap(inner_eth + TUNNEL_INNER_L2, inner_avail, be16_get(inner_eth + 12),
		       outer_ecn)) {
		worker_drop(w, m, &drop_ecn_not_ect);
		return true;
	}
	/* Drop what follows the UDP datagram (Ethernet padding) with the outer headers. */
	uint32_t end = l4_off + l4_len;
	if (rte_pktmbuf_pkt_len(m) > end && rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - end) < 0) {
		worker_drop(w, m, &drop_bad_length);
		return true;
	}
	pkt_meta(m)->outer_sport = be16_get(udp);
	rte_pktmbuf_adj(m, (uint16_t)strip);
	decap_input(w, st, m, t->iface);
	return true;
}

/* The UDP service of every tunnel port (bound by tunnel_state_build()). */
static void tunnel_local_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			       const struct local_pkt *lp)
{
	/* never decapsulated twice: a tunnel inside a tunnel is not served */
	if (lp->decapped ||
	    !tunnel_decap(w, st, m, lp->family, lp->src, lp->dst, lp->l4_off, lp->l4_len, lp->dport,
			  lp->ecn, st->ifaces[lp->iface].vrf))
		worker_drop(w, m, &drop_unsupported_local);
}

/* Add what tunnel_input_fast() queued of @p t to its interface's RX counters. */
static inline void tunnel_rx_count(struct worker *w, const struct fwd_state *st,
				   const struct fwd_tunnel *t, uint64_t *pkts, uint64_t *bytes)
{
	struct iface_counters *ic = &w->stats.iface[st->ifaces[t->iface].slot];

	ic->rx_packets += *pkts;
	ic->rx_bytes += *bytes;
	*pkts = *bytes = 0;
}

/*
 * The common VXLAN packets over IPv4, from the fast path, as many of
 * @p pkts as qualify from the first: UDP length equal to the IP payload,
 * no UDP checksum (RFC 7348 §5 sends zero), I flag set, a configured
 * remote and VNI, no CE mark, an untagged inner frame. Consecutive packets
 * of one tunnel (the common case) match it without the search. The first
 * that does not qualify ends the prefix and gets tunnel_decap()'s full
 * checks.
 */
static unsigned tunnel_input_fast(struct worker *w, const struct fwd_state *st,
				  struct rte_mbuf **pkts, const uint64_t *fibnh, unsigned n,
				  uint16_t iface)
{
	uint16_t vrf = st->ifaces[iface].vrf;
	const struct fwd_tunnel *t = NULL;
	uint64_t rx_pkts = 0, rx_bytes = 0; /* queued of tunnel t, not yet counted */
	uint32_t t_src = 0, t_vni = 0;
	uint16_t t_port = 0;
	unsigned i;

	(void)fibnh;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, 14);
		const uint8_t *udp = ip + 20, *th = udp + 8;
		uint32_t l4_len = m->pkt_len - 34;

		/* each packet is UDP: the caller tested only the first of the run */
		if (ip[9] != IPPROTO_UDP || l4_len < 8 + 8 + TUNNEL_INNER_L2 ||
		    be16_get(udp + 4) != l4_len || be16_get(udp + 6) != 0 || !(th[0] & 0x08) ||
		    (ip[1] & ECN_MASK) == ECN_CE || be16_get(th + 8 + 12) == ETHERTYPE_VLAN)
			break;

		uint16_t dport = be16_get(udp + 2);
		uint32_t src = be32_get(ip + 12), vni = be32_get(th + 4) >> 8;
		if (t == NULL || src != t_src || vni != t_vni || dport != t_port) {
			if (t != NULL)
				tunnel_rx_count(w, st, t, &rx_pkts, &rx_bytes);
			t = tunnel_lookup(st, dport, AF_INET, &src, vni, NULL);
			/* another VRF's tunnel: the general path drops it */
			if (t == NULL || t->type != CFG_TUNNEL_VXLAN || t->underlay_vrf != vrf)
				break;
			t_src = src;
			t_vni = vni;
			t_port = dport;
		}
		pkt_meta(m)->outer_sport = be16_get(udp);
		rte_pktmbuf_adj(m, 34 + 8 + 8);
		uint32_t rx_len = m->pkt_len; /* the inner frame as received */
		if (fast4_decap_queue(w, m, t->iface)) {
			rx_pkts++;
			rx_bytes += rx_len;
		} else {
			decap_input(w, st, m, t->iface); /* counts it */
		}
	}
	if (t != NULL)
		tunnel_rx_count(w, st, t, &rx_pkts, &rx_bytes);
	return i;
}

const struct local_service tunnel_service = {
	.name = "tunnel",
	.input = tunnel_local_input,
	.input_fast = tunnel_input_fast,
};
