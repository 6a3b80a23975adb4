/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BFD in the data path: one worker (BFD_WORKER) runs every session in
 * its poll loop, TSC-timed, so neither a busy control thread (a reload of
 * a million routes, a flood of vbrctl requests) nor a blocking call can
 * delay a packet or a detection. Each turn of its loop it
 *
 *   1. takes a new generation's parameters (a Poll sequence, RFC 5880 §6.8.3);
 *   2. takes the BFD packets other workers received (bfd_rx_ring);
 *   3. fires what is due: detection timeouts (§6.8.4), periodic packets
 *      (§6.8.7) - only when the earliest deadline has come, otherwise the
 *      turn costs one comparison;
 *   4. decides every failover group whose member changed, and switches it
 *      with one atomic store: within the loop iteration of the event.
 *
 * Received packets: UDP 3784 (single-hop, RFC 5881: TTL/hop limit 255,
 * source port 49152-65535) and 4784 (multihop, RFC 5883), IPv4 and IPv6,
 * to an own address. They are demultiplexed by Your Discriminator (its
 * low 16 bits are the session's slot), or, when it is zero, by interface
 * and peer (single-hop) or by the address pair (multihop, §6.3).
 *
 * Sent packets bypass the egress scheduler on lines (like ARP): BFD must
 * not queue behind the traffic it protects. Multihop and tunnel sessions
 * are routed like vbrd's own packets.
 */
#include <string.h>
#include <sys/socket.h>

#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "failover/bfd/bfd.h"
#include "pipeline/fwd.h"
#include "pipeline/ip4.h"
#include "pipeline/ip6.h"
#include "pipeline/parse6.h"
#include "pipeline/l2.h"
#include "pipeline/local.h"
#include "pipeline/neigh.h"
#include "pipeline/nh_kind.h"
#include "pipeline/output.h"
#include "pipeline/worker.h"

/* One drop reason per bfd_err (bfd_proto.h), counted like every drop. */
DROP_REASON(drop_bfd_truncated, "bfd", "bfd_truncated",
	    "BFD packet shorter than its header or Length");
DROP_REASON(drop_bfd_bad_version, "bfd", "bfd_bad_version",
	    "BFD version is not 1 (RFC 5880 §6.8.6)");
DROP_REASON(drop_bfd_bad_length, "bfd", "bfd_bad_length",
	    "BFD Length or auth section length wrong");
DROP_REASON(drop_bfd_zero_mult, "bfd", "bfd_zero_detect_mult", "BFD Detect Mult is zero");
DROP_REASON(drop_bfd_multipoint, "bfd", "bfd_multipoint", "BFD Multipoint bit set");
DROP_REASON(drop_bfd_zero_my_disc, "bfd", "bfd_zero_my_disc", "BFD My Discriminator is zero");
DROP_REASON(drop_bfd_no_session, "bfd", "bfd_no_session",
	    "BFD packet for no configured session (discriminator or addresses)");
DROP_REASON(drop_bfd_zero_your_disc, "bfd", "bfd_zero_your_disc",
	    "BFD Your Discriminator zero outside Down/AdminDown");
DROP_REASON(drop_bfd_auth_mismatch, "bfd", "bfd_auth_mismatch",
	    "BFD A bit does not match the session's authentication");
DROP_REASON(drop_bfd_auth_type, "bfd", "bfd_auth_type", "BFD Auth Type is not the session's");
DROP_REASON(drop_bfd_auth_key_id, "bfd", "bfd_auth_key_id", "BFD Auth Key ID is not the session's");
DROP_REASON(drop_bfd_auth_bad, "bfd", "bfd_auth_bad", "BFD password or SHA1 digest wrong");
DROP_REASON(drop_bfd_auth_seq, "bfd", "bfd_auth_seq",
	    "BFD auth sequence number outside the window (RFC 5880 §6.7)");
DROP_REASON(drop_bfd_auth_unsupported, "bfd", "bfd_auth_unsupported",
	    "BFD auth type vbrd does not implement (MD5)");
DROP_REASON(drop_bfd_bad_ttl, "bfd", "bfd_bad_ttl",
	    "single-hop BFD with TTL/hop limit not 255 (RFC 5881 §5)");
DROP_REASON(drop_bfd_low_ttl, "bfd", "bfd_low_ttl",
	    "multihop BFD with a TTL/hop limit below the session's minimum_ttl (RFC 5883 §5)");
DROP_REASON(drop_bfd_wrong_iface, "bfd", "bfd_wrong_iface",
	    "multihop BFD from an interface the session's peer is not routed through");
DROP_REASON(drop_bfd_bad_sport, "bfd", "bfd_bad_sport",
	    "single-hop BFD from a source port below 49152 (RFC 5881 §4)");
DROP_REASON(drop_bfd_ring_full, "bfd", "bfd_ring_full",
	    "BFD packet received on another worker: the BFD worker's ring is full");

static const struct drop_reason *const err_drop[BFD_ERR_MAX] = {
	[BFD_ERR_TRUNCATED] = &drop_bfd_truncated,
	[BFD_ERR_BAD_VERSION] = &drop_bfd_bad_version,
	[BFD_ERR_BAD_LENGTH] = &drop_bfd_bad_length,
	[BFD_ERR_ZERO_MULT] = &drop_bfd_zero_mult,
	[BFD_ERR_MULTIPOINT] = &drop_bfd_multipoint,
	[BFD_ERR_ZERO_MY_DISC] = &drop_bfd_zero_my_disc,
	[BFD_ERR_NO_SESSION] = &drop_bfd_no_session,
	[BFD_ERR_ZERO_YOUR_DISC] = &drop_bfd_zero_your_disc,
	[BFD_ERR_AUTH_MISMATCH] = &drop_bfd_auth_mismatch,
	[BFD_ERR_AUTH_TYPE] = &drop_bfd_auth_type,
	[BFD_ERR_AUTH_KEY_ID] = &drop_bfd_auth_key_id,
	[BFD_ERR_AUTH_BAD] = &drop_bfd_auth_bad,
	[BFD_ERR_AUTH_SEQ] = &drop_bfd_auth_seq,
	[BFD_ERR_AUTH_UNSUPPORTED] = &drop_bfd_auth_unsupported,
	[BFD_ERR_BAD_TTL] = &drop_bfd_bad_ttl,
	[BFD_ERR_BAD_SPORT] = &drop_bfd_bad_sport,
};

/* What the receiving worker learned, kept in the mbuf's headroom for the
 * BFD worker (the packet data starts after it). */
struct bfd_rx_info {
	uint8_t family;
	uint8_t ttl;
	uint16_t iface;
	uint16_t sport, dport;
	uint32_t l4_off, l4_len;
	uint8_t src[16], dst[16]; /* IPv4: uint32_t host order in the first 4 bytes */
};

/* The BFD worker's own state (only it runs this file's loop part). */
static uint64_t seen_gen;    /* generation whose parameters were applied */
static uint64_t next_due;    /* ns: earliest timer or TX of any session */
static bool groups_dirty;    /* a member changed: decide the groups this turn */
static uint64_t last_detect; /* ns of the member change that made groups dirty */
static uint64_t next_hold;   /* ns: earliest hold-down end of a group (UINT64_MAX: none) */
static uint64_t last_turn;   /* ns of the previous turn of the loop */
uint64_t bfd_loop_gap_max_ns;

static void push_event(struct bfd_change *e)
{
	if (rte_ring_enqueue_elem(bfd_changes, e, sizeof(*e)) != 0)
		atomic_fetch_add_explicit(&bfd_changes_lost, 1, memory_order_relaxed);
}

static void session_changed(struct bfd_session_rt *rt, const struct bfd_event *ev, uint64_t now)
{
	struct bfd_change e = {
		.type = BFD_CHANGE_SESSION,
		.old = ev->old_state,
		.new = ev->new_state,
		.diag = ev->diag,
		.remote_state = rt->s.remote_state,
		.t = now,
	};

	memcpy(e.name, rt->key.name, sizeof(e.name));
	if (ev->new_state == BFD_STATE_UP)
		rt->up_since = now;
	else if (ev->old_state == BFD_STATE_UP)
		rt->up_since = 0;
	/* RFC 5882 §3.2: a session the peer took down administratively is no
	 * failure until it comes back Up, through the Down and Init of its
	 * return too; only a detection timeout (or our own AdminDown) ends that */
	if (ev->new_state == BFD_STATE_UP)
		rt->peer_admin = false;
	else if (ev->new_state == BFD_STATE_DOWN && rt->s.remote_state == BFD_STATE_ADMIN_DOWN)
		rt->peer_admin = true;
	else if (ev->diag == BFD_DIAG_DETECT_EXPIRED || ev->new_state == BFD_STATE_ADMIN_DOWN)
		rt->peer_admin = false;
	push_event(&e);
	groups_dirty = true;
	last_detect = now;
}

/* ---- transmit ------------------------------------------------------------ */

/* An IPv4 or IPv6 + UDP + BFD packet from @p s, at the start of a new mbuf. */
static struct rte_mbuf *build_packet(const struct bfd_sess *s, struct bfd_session_rt *rt,
				     uint16_t ip_id, uint64_t now)
{
	uint8_t bfd[BFD_PKT_MAX];
	size_t n = bfd_session_build(&rt->s, bfd, sizeof(bfd), now);
	bool v4 = s->peer.family == AF_INET;
	uint16_t l3 = v4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	uint16_t udp_len = (uint16_t)(sizeof(struct rte_udp_hdr) + n);
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp.pool);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(l3 + udp_len));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(p + l3);
	uh->src_port = rte_cpu_to_be_16(rt->sport);
	uh->dst_port = rte_cpu_to_be_16(s->dport);
	uh->dgram_len = rte_cpu_to_be_16(udp_len);
	uh->dgram_cksum = 0;
	memcpy(uh + 1, bfd, n);
	if (v4) {
		struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)p;
		memset(ih, 0, sizeof(*ih));
		ih->version_ihl = 0x45;
		ih->type_of_service =
			0xc0; /* CS6, network control (RFC 5881 §4 is silent; RFC 4594) */
		ih->total_length = rte_cpu_to_be_16((uint16_t)(l3 + udp_len));
		ih->packet_id = ip_id;
		ih->time_to_live = 255; /* RFC 5881 §5 (multihop: routed, so 254 on the wire) */
		ih->next_proto_id = IPPROTO_UDP;
		ih->src_addr = rte_cpu_to_be_32(s->local.v4);
		ih->dst_addr = rte_cpu_to_be_32(s->peer.v4);
		ih->hdr_checksum = rte_ipv4_cksum(ih);
		uh->dgram_cksum = rte_ipv4_udptcp_cksum(ih, uh);
	} else {
		struct rte_ipv6_hdr *ih = (struct rte_ipv6_hdr *)p;
		ih->vtc_flow = rte_cpu_to_be_32(6u << 28 | 0xc0u << 20);
		ih->payload_len = rte_cpu_to_be_16(udp_len);
		ih->proto = IPPROTO_UDP;
		ih->hop_limits = 255; /* RFC 5881 §5 */
		memcpy(ih->src_addr, s->local.v6, 16);
		memcpy(ih->dst_addr, s->peer.v6, 16);
		uh->dgram_cksum = rte_ipv6_udptcp_cksum(ih, uh);
		if (uh->dgram_cksum == 0)
			uh->dgram_cksum = 0xffff;
	}
	return m;
}

/*
 * Send @p m (starting at its IP header) out of @p out to the neighbor @p gw
 * (family of the session), whose MAC is @p mac (0: unresolved): straight
 * to the wire, past the egress scheduler, with the TTL it was built with.
 */
static void send_l2(struct worker *w, const struct fwd_iface *out, struct bfd_session_rt *rt,
		    bool v4, const void *gw, uint64_t mac, struct rte_mbuf *m)
{
	struct rte_ether_addr dmac;

	neigh_mac_to_ether(mac, &dmac);
	if (l2_rewrite(m, 0, out, &dmac, v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6) < 0) {
		rt->tx_errors++;
		worker_drop(w, m, &drop_no_headroom);
		return;
	}
	w->stats.iface[out->slot].tx_packets++;
	w->stats.iface[out->slot].tx_bytes += rte_pktmbuf_pkt_len(m);
	if (mac == 0) {
		/* the control thread resolves the neighbor and sends it then */
		rt->tx_unresolved++;
		worker_punt(w, m, v4 ? PUNT_RESOLVE : PUNT_RESOLVE6, out->port, out->vlan, gw);
		return;
	}
	worker_tx_now(w, out->port, &m, 1);
}

/* A single-hop packet: straight to the neighbor's MAC, past the scheduler. */
static void send_line(struct worker *w, const struct fwd_state *st, const struct bfd_sess *s,
		      struct bfd_session_rt *rt, struct rte_mbuf *m)
{
	const struct fwd_iface *out = &st->ifaces[s->iface];
	bool v4 = s->peer.family == AF_INET;
	uint64_t mac = v4 ? neigh_lookup(out->port, out->vlan, s->peer.v4)
			  : neigh_lookup6(out->port, out->vlan, s->peer.v6);

	send_l2(w, out, rt, v4, v4 ? (const void *)&s->peer.v4 : s->peer.v6, mac, m);
}

/*
 * A multihop packet whose route is a direct next hop (or ECMP set): sent
 * like a single-hop one to that next hop, so it leaves with TTL 255 (RFC
 * 5883 §5 lets the receiver check a minimum TTL: FRR's default is 254,
 * one router away). @return false when the route is of another kind.
 */
static bool send_nexthop(struct worker *w, const struct fwd_state *st, const struct bfd_sess *s,
			 struct bfd_session_rt *rt, struct rte_mbuf *m)
{
	bool v4 = s->peer.family == AF_INET;
	uint64_t v;

	if (v4)
		rte_fib_lookup_bulk(st->vrfs[0].fib, (uint32_t *)(uintptr_t)&s->peer.v4, &v, 1);
	else
		rte_fib6_lookup_bulk(st->vrfs[0].fib6, (uint8_t(*)[16])(uintptr_t)s->peer.v6, &v,
				     1);
	if (FIB_NH_KIND(v) != FIB_KIND_NEXTHOP && FIB_NH_KIND(v) != FIB_KIND_ECMP)
		return false;
	const struct fwd_nexthop *nh = &st->nexthops[fwd_nexthop_select(st, v, 0)];
	const struct fwd_iface *out = &st->ifaces[nh->iface];
	if (out->port == FWD_NO_PORT)
		return false;
	bool connected = v4 ? nh->gw == 0 : !memcmp(nh->gw6, (const uint8_t[16]){ 0 }, 16);
	const void *gw = connected ? (v4 ? (const void *)&s->peer.v4 : s->peer.v6)
				   : (v4 ? (const void *)&nh->gw : nh->gw6);
	uint64_t mac = !connected ? atomic_load_explicit(&nh->mac, memory_order_acquire)
		       : v4       ? neigh_lookup(out->port, out->vlan, s->peer.v4)
				  : neigh_lookup6(out->port, out->vlan, s->peer.v6);
	send_l2(w, out, rt, v4, gw, mac, m);
	return true;
}

/* A multihop or tunnel packet over IPv6: routed by the FIB6, or the path group. */
static void send_routed6(struct worker *w, const struct fwd_state *st, const struct bfd_sess *s,
			 struct bfd_session_rt *rt, struct rte_mbuf *m)
{
	struct ip6_ctx c = { .iface = s->iface == FWD_NO_IFACE ? st->default_iface : s->iface,
			     .decapped = true };
	const struct drop_reason *why;
	uint64_t nh;

	c.l2.l2_len = 14;
	c.l2.ethertype = RTE_ETHER_TYPE_IPV6;
	if (!parse_ipv6(rte_pktmbuf_mtod_offset(m, const uint8_t *, 14),
			rte_pktmbuf_data_len(m) - 14, &c.ip, &why)) {
		rt->tx_errors++;
		worker_drop(w, m, why);
		return;
	}
	if (s->kind == CFG_BFD_TUNNEL) {
		fwd_nh_kinds[FIB_KIND_PATHGRP]->output6(w, st, m, &c, s->path_group);
		return;
	}
	rte_fib6_lookup_bulk(st->ifaces[c.iface].fib6, (uint8_t(*)[16])c.ip.dst, &nh, 1);
	ip6_forward(w, st, m, &c, nh);
}

/*
 * A multihop or tunnel packet: routed like vbrd's own (its FIB route, so
 * it leaves with TTL 254), or sent through the path group.
 */
static void send_routed(struct worker *w, const struct fwd_state *st, const struct bfd_sess *s,
			struct bfd_session_rt *rt, struct rte_mbuf *m)
{
	struct pkt_ctx c = { .iface = s->iface == FWD_NO_IFACE ? st->default_iface : s->iface,
			     .decapped = true };
	const struct drop_reason *why;

	/* both paths take a frame with a 14-byte L2 header in front */
	if (rte_pktmbuf_prepend(m, 14) == NULL) {
		rt->tx_errors++;
		rte_pktmbuf_free(m);
		return;
	}
	if (s->peer.family == AF_INET6) {
		send_routed6(w, st, s, rt, m);
		return;
	}
	if (s->kind == CFG_BFD_MULTIHOP) {
		ip4_output_local(w, st, m, c.iface);
		return;
	}
	c.l2.l2_len = 14;
	c.l2.ethertype = RTE_ETHER_TYPE_IPV4;
	if (!parse_ipv4(rte_pktmbuf_mtod_offset(m, const uint8_t *, 14),
			rte_pktmbuf_data_len(m) - 14, true, &c.ip, &why)) {
		rt->tx_errors++;
		worker_drop(w, m, why);
		return;
	}
	fwd_nh_kinds[FIB_KIND_PATHGRP]->output4(w, st, m, &c, s->path_group);
}

static void session_send(struct worker *w, const struct fwd_state *st, const struct bfd_sess *s,
			 uint64_t now)
{
	struct bfd_session_rt *rt = s->rt;
	struct rte_mbuf *m = build_packet(s, rt, w->ip_id++, now);

	if (m == NULL) {
		rt->tx_errors++;
		return;
	}
	if (s->kind == CFG_BFD_SINGLE_HOP)
		send_line(w, st, s, rt, m);
	else if (s->kind != CFG_BFD_MULTIHOP || !send_nexthop(w, st, s, rt, m))
		send_routed(w, st, s, rt, m);
}

/* ---- receive ------------------------------------------------------------- */

static bool addr_is(const struct cfg_addr *a, uint8_t family, const uint8_t *raw)
{
	if (family == AF_INET)
		return a->family == AF_INET && a->v4 == *(const uint32_t *)raw;
	return a->family == AF_INET6 && memcmp(a->v6, raw, 16) == 0;
}

/* The session a packet belongs to (RFC 5880 §6.3, RFC 5881 §3, RFC 5883 §4). */
static int demux(const struct bfd_gen *fo, const struct bfd_rx_info *ri, const struct bfd_ctrl *c)
{
	bool multi = ri->dport == BFD_PORT_MULTI;

	/* a session is bound to its peer and to its interface (single-hop,
	 * RFC 5881 §3) or its local address (multihop, RFC 5883 §4): a packet
	 * with the right discriminator from elsewhere is not its */
#define BFD_SESSION_IS(s)                                                                          \
	(((s)->kind != CFG_BFD_SINGLE_HOP) == multi && addr_is(&(s)->peer, ri->family, ri->src) && \
	 (multi ? addr_is(&(s)->local, ri->family, ri->dst) : (s)->iface == ri->iface))
	if (c->your_disc != 0) {
		uint32_t slot = (c->your_disc & 0xffff) - 1;
		if (slot >= BFD_SLOTS || fo->sess_by_slot[slot] == UINT16_MAX)
			return -1;
		const struct bfd_sess *s = &fo->sess[fo->sess_by_slot[slot]];
		if (s->rt->s.local_disc != c->your_disc || !BFD_SESSION_IS(s))
			return -1;
		return fo->sess_by_slot[slot];
	}
	for (int i = 0; i < fo->nb_sess; i++)
		if (BFD_SESSION_IS(&fo->sess[i]))
			return i;
	return -1;
#undef BFD_SESSION_IS
}

static void rx_packet(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		      const struct bfd_rx_info *ri, uint64_t now)
{
	const struct bfd_gen *fo = bfd_gen_of(st);
	uint8_t buf[BFD_PKT_MAX + 64];
	const uint8_t *p;
	struct bfd_ctrl c;
	struct bfd_event ev = { 0 };
	enum bfd_err err;
	uint32_t len;
	int si;

	if (ri->l4_len < sizeof(struct rte_udp_hdr)) {
		err = BFD_ERR_TRUNCATED;
		goto drop;
	}
	/* the UDP Length says how much is BFD (RFC 768): never more than the IP payload */
	struct rte_udp_hdr uh_copy;
	const struct rte_udp_hdr *uh = rte_pktmbuf_read(m, ri->l4_off, sizeof(uh_copy), &uh_copy);
	uint32_t udp_len = uh ? rte_be_to_cpu_16(uh->dgram_len) : 0;
	if (udp_len < sizeof(struct rte_udp_hdr) || udp_len > ri->l4_len) {
		err = BFD_ERR_TRUNCATED;
		goto drop;
	}
	len = udp_len - (uint32_t)sizeof(struct rte_udp_hdr);
	if (len > sizeof(buf))
		len = sizeof(buf); /* what follows the longest packet is ignored */
	p = rte_pktmbuf_read(m, ri->l4_off + (uint32_t)sizeof(struct rte_udp_hdr), len, buf);
	if (p == NULL) {
		err = BFD_ERR_TRUNCATED;
		goto drop;
	}
	if (ri->dport == BFD_PORT_SINGLE) {
		if (ri->ttl != 255) {
			err = BFD_ERR_BAD_TTL;
			goto drop;
		}
		if (ri->sport < BFD_SPORT_MIN) {
			err = BFD_ERR_BAD_SPORT;
			goto drop;
		}
	}
	err = bfd_decode(p, len, &c);
	if (err != BFD_OK)
		goto drop;
	si = fo ? demux(fo, ri, &c) : -1;
	if (si < 0) {
		err = BFD_ERR_NO_SESSION;
		goto drop;
	}
	const struct bfd_sess *s = &fo->sess[si];
	/* RFC 5883 §5: without authentication, a multihop session checks the
	 * TTL against a minimum (a LAN host's forgery arrives with its own
	 * TTL, at most 255 minus the hops) and where the packet came in: by
	 * the interface its peer is routed through (the tunnel's own for a
	 * session inside a tunnel). */
	if (s->kind != CFG_BFD_SINGLE_HOP) {
		if (ri->ttl < s->min_ttl) {
			worker_drop(w, m, &drop_bfd_low_ttl);
			return;
		}
		if (s->kind == CFG_BFD_TUNNEL
			    ? ri->iface != s->iface
			    : !fwd_route_via_iface(st, ri->family, ri->src, ri->iface)) {
			worker_drop(w, m, &drop_bfd_wrong_iface);
			return;
		}
	}
	uint64_t prev_rx = s->rt->s.last_rx;
	err = bfd_session_rx(&s->rt->s, &c, p, len, now, &ev);
	if (err != BFD_OK)
		goto drop;
	if (s->rt->s.state == BFD_STATE_UP && prev_rx && now - prev_rx > s->rt->rx_late_max_ns)
		s->rt->rx_late_max_ns = now - prev_rx;
	if (ev.changed)
		session_changed(s->rt, &ev, now);
	if (ev.send_now)
		session_send(w, st, s, now);
	next_due = 0; /* the deadlines moved: recompute */
	rte_pktmbuf_free(m);
	return;
drop:
	worker_drop(w, m, err_drop[err] ? err_drop[err] : &drop_bfd_truncated);
}

static void bfd_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		      const struct local_pkt *lp)
{
	struct bfd_rx_info ri = {
		.family = (uint8_t)lp->family,
		.iface = lp->iface,
		.sport = lp->sport,
		.dport = lp->dport,
		.l4_off = lp->l4_off,
		.l4_len = lp->l4_len,
	};

	if (lp->family == AF_INET) {
		ri.ttl = lp->ip4->ttl;
		memcpy(ri.src, lp->src, 4);
		memcpy(ri.dst, lp->dst, 4);
	} else {
		ri.ttl = lp->ip6->hop_limit;
		memcpy(ri.src, lp->src, 16);
		memcpy(ri.dst, lp->dst, 16);
	}
	if (w->id == BFD_WORKER) {
		rx_packet(w, st, m, &ri, tsc_now_ns());
		return;
	}
	/* another worker: the BFD worker owns the sessions */
	if (rte_pktmbuf_headroom(m) < sizeof(ri) ||
	    (memcpy(m->buf_addr, &ri, sizeof(ri)), rte_ring_enqueue(bfd_rx_ring, m) != 0)) {
		worker_drop(w, m, &drop_bfd_ring_full);
		return;
	}
}

static const struct local_service bfd_single_service = { .name = "bfd", .input = bfd_input };
static const struct local_service bfd_multi_service = { .name = "bfd-multihop",
							.input = bfd_input };

/* ---- failover groups ---------------------------------------------------- */

static enum fgroup_health member_health(const struct bfd_gen *fo, const struct fgroup_member *fm)
{
	if (fm->sess < 0)
		return FGROUP_UP;
	const struct bfd_session *s = &fo->sess[fm->sess].rt->s;
	if (s->state == BFD_STATE_UP)
		return FGROUP_UP;
	/* RFC 5882 §3.2: the peer's AdminDown is no failure: nothing moves */
	if (fo->sess[fm->sess].rt->peer_admin)
		return FGROUP_ADMIN;
	return FGROUP_DOWN;
}

static void group_switch(const struct fgroup *g, uint32_t to, uint8_t reason, uint8_t diag,
			 uint64_t detect)
{
	struct fgroup_rt *rt = g->rt;
	uint32_t from = atomic_load_explicit(&rt->sel, memory_order_relaxed);
	struct bfd_change e = { .type = BFD_CHANGE_GROUP,
				.old = (uint8_t)from,
				.new = (uint8_t)to,
				.reason = reason,
				.diag = diag };

	/* the one store that moves every route and flow of the group */
	atomic_store_explicit(&rt->sel, to, memory_order_release);
	e.t = tsc_now_ns();
	e.t_detect = detect ? detect : e.t;
	rt->switches++;
	rt->last_switch = e.t;
	memcpy(e.name, rt->name, sizeof(e.name));
	push_event(&e);
}

/* Decide group @p g now (fgroup.h); returns when to decide again (ns, UINT64_MAX: on a change). */
static uint64_t group_decide(const struct bfd_gen *fo, const struct fgroup *g, uint64_t now)
{
	const struct fgroup_policy p = { g->mode, g->revertive, g->hold_down_ns };
	enum fgroup_health h[2];
	uint64_t ups[2];
	struct fgroup_decision d;

	for (unsigned i = 0; i < 2; i++) {
		h[i] = member_health(fo, &g->m[i]);
		ups[i] = g->m[i].sess < 0 ? 0 : fo->sess[g->m[i].sess].rt->s.cnt.up;
	}
	fgroup_decide(&p, &g->rt->mem, atomic_load_explicit(&g->rt->sel, memory_order_relaxed), h,
		      ups, now, &d);
	if (d.move) {
		uint8_t diag = 0;
		if (d.failed >= 0 && g->m[d.failed].sess >= 0)
			diag = fo->sess[g->m[d.failed].sess].rt->s.local_diag;
		group_switch(g, d.to, d.reason, diag, d.failed >= 0 ? last_detect : 0);
	}
	return d.wake;
}

static void groups_decide(const struct bfd_gen *fo, uint64_t now)
{
	next_hold = UINT64_MAX;
	for (int i = 0; i < fo->nb_groups; i++) {
		uint64_t t = group_decide(fo, &fo->groups[i], now);
		if (t < next_hold)
			next_hold = t;
	}
	groups_dirty = false;
}

/* ---- the poll loop ---------------------------------------------------------- */

static void apply_generation(const struct fwd_state *st, const struct bfd_gen *fo, uint64_t now)
{
	for (int i = 0; i < fo->nb_sess; i++) {
		struct bfd_session_rt *rt = fo->sess[i].rt;
		struct bfd_event ev = { 0 };

		if (memcmp(&rt->s.params, &fo->sess[i].params, sizeof(rt->s.params)) != 0) {
			bfd_session_set_params(&rt->s, &fo->sess[i].params, now, &ev);
			if (ev.changed)
				session_changed(rt, &ev, now);
		}
		rt->applied_gen = st->generation;
	}
	seen_gen = st->generation;
	groups_dirty = true;
	next_due = 0;
}

static unsigned bfd_worker_poll(struct worker *w, const struct fwd_state *st)
{
	const struct bfd_gen *fo;
	unsigned work = 0;
	uint64_t now;

	if (w->id != BFD_WORKER || (fo = bfd_gen_of(st)) == NULL)
		return 0;
	if (fo->nb_sess == 0 && fo->nb_groups == 0 && rte_ring_empty(bfd_rx_ring))
		return 0;
	now = tsc_now_ns();
	/* how long the loop can be away: what a detection time must cover */
	if (last_turn && now - last_turn > bfd_loop_gap_max_ns)
		bfd_loop_gap_max_ns = now - last_turn;
	last_turn = now;
	if (st->generation != seen_gen)
		apply_generation(st, fo, now);

	struct rte_mbuf *rx[32];
	unsigned n = rte_ring_dequeue_burst(bfd_rx_ring, (void **)rx, RTE_DIM(rx), NULL);
	for (unsigned i = 0; i < n; i++) {
		struct bfd_rx_info ri;
		memcpy(&ri, rx[i]->buf_addr, sizeof(ri));
		rx_packet(w, st, rx[i], &ri, now);
	}
	work += n;

	if (now >= next_due) {
		uint64_t due = UINT64_MAX;
		for (int i = 0; i < fo->nb_sess; i++) {
			const struct bfd_sess *s = &fo->sess[i];
			struct bfd_event ev = { 0 };

			if (bfd_session_timer(&s->rt->s, now, &ev))
				session_changed(s->rt, &ev, now);
			/* a peer that signalled AdminDown and then fell silent is
			 * gone, not administratively down: while not Up it sends at
			 * least once a second (RFC 5880 §6.8.3), so three of its
			 * intervals (at least 3 s) without a packet say so */
			if (s->rt->peer_admin &&
			    now - s->rt->s.last_rx >
				    3 * 1000ull *
					    (s->rt->s.remote_desired_tx_us > BFD_SLOW_TX_US
						     ? s->rt->s.remote_desired_tx_us
						     : BFD_SLOW_TX_US)) {
				s->rt->peer_admin = false;
				groups_dirty = true;
				last_detect = now;
			}
			if (bfd_session_tx_due(&s->rt->s, now) || ev.send_now) {
				session_send(w, st, s, now);
				work++;
			}
			uint64_t t = bfd_session_next_event(&s->rt->s);
			if (t < due)
				due = t;
		}
		next_due = due;
	}
	if (groups_dirty || now >= next_hold)
		groups_decide(fo, now);
	return work;
}

static const struct worker_hook bfd_hook = { .name = "bfd", .poll = bfd_worker_poll };

__attribute__((constructor)) static void bfd_worker_register(void)
{
	worker_hook_register(&bfd_hook);
	local_udp_register(BFD_PORT_SINGLE, &bfd_single_service);
	local_udp_register(BFD_PORT_MULTI, &bfd_multi_service);
}
