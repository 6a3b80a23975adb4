/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path selection on the BFD worker (pathsel.h): every turn of its poll loop it
 * takes the STAMP packets the workers received, sends the probes that are
 * due (one per path × plane per interval, in the path's own encapsulation
 * and plane source port), expires the unanswered ones, and decides every
 * group that a probe event touched, all groups in one pass: a fault that
 * hits many groups moves them in the same turn. A decision reaches the
 * data path as one atomic store per tier (the group's path) or per path
 * (its plane table).
 */
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_fib6.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_udp.h>

#include "failover/bfd/bfd.h"
#include "failover/pathsel/pathsel.h"
#include "pipeline/ip4.h"
#include "pipeline/ip6.h"
#include "pipeline/local.h"
#include "pipeline/meta.h"
#include "pipeline/parse6.h"
#include "pipeline/tunnel.h"
#include "pipeline/worker.h"

DROP_REASON(drop_stamp_ring_full, "pathsel", "stamp_ring_full",
	    "STAMP packet for the BFD worker, whose ring was full");
DROP_REASON(drop_stamp_short, "pathsel", "stamp_short",
	    "STAMP packet shorter than its mode's (RFC 8762 §4.2, §4.3), or a UDP length past "
	    "the datagram");
DROP_REASON(drop_stamp_auth, "pathsel", "stamp_auth",
	    "STAMP packet whose HMAC does not match (RFC 8762 §4.4)");
DROP_REASON(drop_stamp_reflector_off, "pathsel", "stamp_reflector_off",
	    "STAMP test packet while pathsel.reflector is \"off\"");
DROP_REASON(drop_stamp_reflector_denied, "pathsel", "stamp_reflector_denied",
	    "STAMP test packet neither out of a configured tunnel nor from pathsel.reflect_from");
DROP_REASON(drop_stamp_reflector_rate, "pathsel", "stamp_reflector_rate",
	    "STAMP test packet over pathsel.reflect_rate replies per second");
DROP_REASON(drop_stamp_from_reflector_port, "pathsel", "stamp_from_reflector_port",
	    "STAMP test packet from UDP port 862: a reflector's reply (or a forgery) that an "
	    "answer would turn into a loop between two reflectors");
DROP_REASON(drop_stamp_no_session, "pathsel", "stamp_no_session",
	    "STAMP reply to a sender port no probe uses, or from another address than the "
	    "probe's peer");
DROP_REASON(drop_stamp_unexpected, "pathsel", "stamp_unexpected",
	    "STAMP reply whose sequence number no outstanding probe has (late, duplicate, "
	    "forged)");

/* The BFD worker's own state. */
static uint64_t seen_gen;
static uint32_t seen_adopt;     /* pathsel_adopt_gen last seen */
static uint64_t next_due;       /* ns: earliest probe or expiry of any plane */
static uint32_t batch;          /* decision passes so far */
static uint64_t last_turn;      /* ns: the previous turn of this hook */
static uint64_t expire_after;   /* ns: no expiry before (after a stall of this worker) */
uint64_t pathsel_worker_stalls; /* turns that came more than PATHSEL_STALL_NS after the previous */
static struct stamp_refl_table *refl;
static const uint64_t refl_idle_ns = 10ull * 1000000000ull; /* a session idle 10 s ends */
/* The reflector's token bucket: replies it may send now, in millionths. */
static uint64_t refl_tokens_u, refl_tokens_t;
struct pathsel_reflector_stats pathsel_reflector_stats;

/* ---- events -------------------------------------------------------------------- */

static void push_event(const struct pathsel_group *g, const struct pathsel_event *e,
		       uint64_t t_detect, uint64_t t_done, uint32_t b)
{
	struct pathsel_event_rec r = {
		.ev = *e, .t_detect = t_detect, .t_done = t_done, .batch = b
	};

	snprintf(r.group, sizeof(r.group), "%s", g->rt->name);
	if (e->old_path >= 0 && e->old_path < g->rt->nb_paths)
		snprintf(r.old_path, sizeof(r.old_path), "%s", g->rt->paths[e->old_path].name);
	if (e->new_path >= 0 && e->new_path < g->rt->nb_paths)
		snprintf(r.new_path, sizeof(r.new_path), "%s", g->rt->paths[e->new_path].name);
	if (rte_ring_enqueue_elem(pathsel_events, &r, sizeof(r)) != 0)
		atomic_fetch_add(&pathsel_events_lost, 1);
}

/* ---- the data path's view ----------------------------------------------------------- */

/* Write the tiers' paths and the planes' tables of @p g into its generation. */
static void apply(const struct fwd_state *st, const struct pathsel_group *g)
{
	struct pathsel_group_rt *rt = g->rt;
	struct fwd_path_group *fpg = &st->path_groups[g->pg];

	for (int t = 0; t < PATHSEL_TIERS; t++) {
		int k = rt->mem.active[t];
		/* No usable path: the tier keeps the path it had. Probes may be
		 * what fails (the remote's reflector off), and dropping would
		 * make the loss certain; the history says no_path. */
		if (k < 0 || k >= fpg->nb_paths)
			k = rt->applied[t] >= 0 && rt->applied[t] < fpg->nb_paths ? rt->applied[t]
										  : 0;
		struct fwd_path *p = fpg->nb_paths > 0 ? g->path[k] : NULL;
		atomic_store_explicit((struct fwd_path * _Atomic *)&g->tier_active[t], p,
				      memory_order_release);
		if (t == (int)g->default_tier)
			fwd_path_group_switch(fpg, p);
		rt->applied[t] = (int8_t)k;
	}
	if (g->flowlet_gap_tsc != 0) {
		/* the paths a tier's flowlets may take: every usable one */
		for (int t = 0; t < PATHSEL_TIERS; t++) {
			unsigned next = (atomic_load(&rt->spread_cur[t]) + 1) & 1;
			struct spread_weights *sw = &rt->spread_w[t][next];
			sw->nb = 0;
			for (int k = 0; k < rt->nb_paths && k < SPREAD_MAX_PATHS; k++)
				if (rt->mem.path_state[k] == PATHSEL_PATH_USABLE) {
					sw->path[sw->nb] = (uint8_t)k;
					sw->share[sw->nb++] = g->share[k];
				}
			/* none usable (or nothing known yet): the tier's path
			 * alone, the one it keeps (below) */
			if (sw->nb == 0 && fpg->nb_paths > 0) {
				int k = rt->mem.active[t];
				if (k < 0 || k >= fpg->nb_paths)
					k = rt->applied[t] >= 0 && rt->applied[t] < fpg->nb_paths
						    ? rt->applied[t]
						    : 0;
				sw->path[0] = (uint8_t)k;
				sw->share[0] = 1;
				sw->nb = 1;
			}
			atomic_store_explicit(&rt->spread_cur[t], (uint8_t)next,
					      memory_order_release);
		}
	}
	for (int k = 0; k < rt->nb_paths && k < fpg->nb_paths; k++) {
		struct fwd_path *p = g->path[k];
		/* the decision's memory starts with all 16 bits set: keep the
		 * path's own planes (show paths counts them) */
		uint16_t mask = pathsel_group_mem_healthy(&rt->mem, k) &
				(uint16_t)((1u << rt->paths[k].nb_planes) - 1);
		if (p->nb_planes > 1)
			atomic_store_explicit(&p->plane_tab, tunnel_plane_tab(p->nb_planes, mask),
					      memory_order_release);
		rt->paths[k].healthy_applied = mask;
	}
}

static void apply_generation(const struct fwd_state *st, const struct pathsel_state *ps,
			     uint64_t now)
{
	for (int i = 0; i < ps->nb_groups; i++) {
		const struct pathsel_group *g = &ps->groups[i];
		struct pathsel_group_rt *rt = g->rt;

		if (!rt->started) {
			const struct fwd_path_group *fpg = &st->path_groups[g->pg];
			const struct fwd_path *a = atomic_load(&fpg->active);
			int initial = 0;
			for (int k = 0; k < fpg->nb_paths; k++)
				if (g->path[k] == a)
					initial = k;
			pathsel_group_mem_init(&rt->mem, rt->nb_paths, initial);
			/* spread the planes' first probes over one interval */
			unsigned n = 0, total = 0;
			for (int k = 0; k < rt->nb_paths; k++)
				total += rt->paths[k].nb_planes;
			for (int k = 0; k < rt->nb_paths; k++)
				for (int j = 0; j < rt->paths[k].nb_planes; j++)
					rt->paths[k].planes[j]->next_tx =
						now + g->interval_ns * n++ / (total ? total : 1);
			rt->started = true;
		}
		apply(st, g);
		rt->dirty = true;
	}
	seen_gen = st->generation;
	next_due = 0;
}

/* ---- transmit --------------------------------------------------------------------- */

/*
 * Fill @p m (empty, reset) with an IPv4 or IPv6 header (TTL / hop limit
 * 255), a UDP header and @p len bytes of @p payload, checksums done.
 * @p src, @p dst: uint32_t host order (IPv4) or 16 bytes (IPv6).
 * @return false when the mbuf has no room (nothing written that matters)
 */
static bool udp_packet(struct worker *w, struct rte_mbuf *m, bool v4, const void *src,
		       const void *dst, uint16_t sport, uint16_t dport, const uint8_t *payload,
		       size_t len)
{
	uint16_t l3 = v4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	uint16_t udp_len = (uint16_t)(sizeof(struct rte_udp_hdr) + len);
	uint8_t *h = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(l3 + udp_len));

	if (h == NULL)
		return false;
	struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(h + l3);
	memcpy(uh + 1, payload, len);
	uh->src_port = rte_cpu_to_be_16(sport);
	uh->dst_port = rte_cpu_to_be_16(dport);
	uh->dgram_len = rte_cpu_to_be_16(udp_len);
	uh->dgram_cksum = 0;
	if (v4) {
		struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)h;
		uint32_t a, b;
		memcpy(&a, src, 4);
		memcpy(&b, dst, 4);
		memset(ih, 0, sizeof(*ih));
		ih->version_ihl = 0x45;
		ih->total_length = rte_cpu_to_be_16((uint16_t)(l3 + udp_len));
		ih->packet_id = w->ip_id++;
		ih->time_to_live = 255;
		ih->next_proto_id = IPPROTO_UDP;
		ih->src_addr = rte_cpu_to_be_32(a);
		ih->dst_addr = rte_cpu_to_be_32(b);
		ih->hdr_checksum = rte_ipv4_cksum(ih);
		uh->dgram_cksum = rte_ipv4_udptcp_cksum(ih, uh);
	} else {
		struct rte_ipv6_hdr *ih = (struct rte_ipv6_hdr *)h;
		ih->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ih->payload_len = rte_cpu_to_be_16(udp_len);
		ih->proto = IPPROTO_UDP;
		ih->hop_limits = 255;
		memcpy(ih->src_addr, src, 16);
		memcpy(ih->dst_addr, dst, 16);
		uh->dgram_cksum = rte_ipv6_udptcp_cksum(ih, uh);
		if (uh->dgram_cksum == 0) /* RFC 768: 0 means none */
			uh->dgram_cksum = 0xffff;
	}
	return true;
}

/* A STAMP test packet of plane @p pl on path @p p: inner IP + UDP + STAMP. */
static void send_probe(struct worker *w, const struct fwd_state *st, const struct pathsel_group *g,
		       struct pathsel_plane_rt *pl, const struct fwd_path *p, uint64_t now)
{
	const struct fwd_tunnel *t = &st->tunnels[p->tunnel];
	bool v4 = t->remote.family == AF_INET;
	uint8_t test[STAMP_UNAUTH_LEN];
	struct rte_mbuf *m;

	(void)g;
	/* The line's next hop not resolved yet: plane 0's probe alone goes
	 * (held while ARP/ND resolves it); the other planes wait rather than
	 * fill the neighbor's hold queue. A probe not sent is not lost. */
	if (pl->plane != 0 && atomic_load_explicit(&p->mac, memory_order_acquire) == 0) {
		pl->tx_unresolved++;
		return;
	}
	m = rte_pktmbuf_alloc(dp.pool);
	if (m == NULL) {
		pl->tx_errors++;
		return;
	}
	uint32_t seq = pathsel_plane_tx(&pl->m, now);
	size_t n = stamp_sender_build(test, sizeof(test), seq,
				      stamp_ntp_from_unix_ns(tsc_unix_ns(now)),
				      stamp_error_estimate(false, 1e-3), NULL);
	if (!udp_packet(w, m, v4, v4 ? (const void *)&t->local.v4 : t->local.v6,
			v4 ? (const void *)&t->remote.v4 : t->remote.v6,
			(uint16_t)(PATHSEL_SENDER_PORT_BASE + pl->slot), STAMP_PORT, test, n)) {
		rte_pktmbuf_free(m);
		pl->tx_errors++;
		return;
	}
	uint16_t sport = (uint16_t)(CFG_PLANE_BASE + (p->plane < 0 ? 0 : p->plane) + pl->plane);
	tunnel_send_on_path(w, st, m, p, sport, v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6, 0);
	pl->tx++;
}

/* ---- receive ------------------------------------------------------------------------ */

/* Copy the STAMP payload of @p m into @p buf; its length, or -1 (cut short). */
static int stamp_payload(struct rte_mbuf *m, const struct pathsel_rx_info *ri, uint8_t *buf,
			 size_t cap)
{
	struct rte_udp_hdr uh_copy;
	const struct rte_udp_hdr *uh = rte_pktmbuf_read(m, ri->l4_off, sizeof(uh_copy), &uh_copy);
	uint32_t udp_len = uh ? rte_be_to_cpu_16(uh->dgram_len) : 0;

	if (udp_len < sizeof(*uh) || udp_len > ri->l4_len)
		return -1;
	uint32_t len = udp_len - (uint32_t)sizeof(*uh);
	if (len > cap)
		len = (uint32_t)cap;
	const uint8_t *p = rte_pktmbuf_read(m, ri->l4_off + (uint32_t)sizeof(*uh), len, buf);
	if (p == NULL)
		return -1;
	if (p != buf)
		memcpy(buf, p, len);
	return (int)len;
}

/* The path of a group that a probe decapsulated from tunnel interface
 * @p iface arrived on (its line's port and VLAN), to answer on it. */
static const struct fwd_path *path_of_arrival(const struct fwd_state *st,
					      const struct pathsel_rx_info *ri)
{
	const struct fwd_iface *tif = &st->ifaces[ri->iface];

	if (tif->port != FWD_NO_PORT)
		return NULL;
	for (int i = 0; i < st->nb_paths; i++) {
		const struct fwd_path *p = &st->paths[i];
		const struct fwd_iface *line = &st->ifaces[p->iface];
		if (p->tunnel == tif->tunnel && line->port == ri->port && line->vlan == ri->vlan)
			return p;
	}
	return NULL;
}

/*
 * Whether the reflector answers a sender: one whose test packet came out of
 * a configured tunnel (a remote gateway of ours: the reply goes back
 * through that tunnel) or, sent plainly, one in pathsel.reflect_from.
 * Anybody else would make vbrd a reflector of anyone's traffic (issue 21).
 */
static bool reflect_allowed(const struct pathsel_state *ps, const struct pathsel_rx_info *ri)
{
	struct cfg_addr a = { .family = ri->family };

	if (ri->decapped)
		return true;
	if (ri->family == AF_INET)
		memcpy(&a.v4, ri->src, 4); /* host order, as local_pkt gives it */
	else
		memcpy(a.v6, ri->src, 16);
	for (int i = 0; i < ps->cfg->nb_reflect_from; i++)
		if (config_prefix_contains(&ps->cfg->reflect_from[i], &a))
			return true;
	return false;
}

/* One reply within reflect_rate per second (a burst of a tenth of a second)? */
static bool reflect_token(uint32_t rate, uint64_t now)
{
	uint64_t burst_u = (rate / 10 > 16 ? rate / 10 : 16) * 1000000ull;

	if (refl_tokens_t == 0 || now < refl_tokens_t) {
		refl_tokens_u = burst_u;
	} else {
		/* ns x replies/s = millionths of a reply per ms: / 1000 per ns */
		uint64_t add = (now - refl_tokens_t) / 1000 * rate;
		refl_tokens_u = refl_tokens_u + add > burst_u ? burst_u : refl_tokens_u + add;
	}
	refl_tokens_t = now;
	if (refl_tokens_u < 1000000)
		return false;
	refl_tokens_u -= 1000000;
	return true;
}

/* The session-reflector (RFC 8762 §4.3): answer test packet @p m. */
static void reflect(struct worker *w, const struct fwd_state *st, const struct pathsel_state *ps,
		    struct rte_mbuf *m, const struct pathsel_rx_info *ri, uint64_t now)
{
	uint8_t in[STAMP_AUTH_LEN + 256], out[sizeof(in)];
	int len = stamp_payload(m, ri, in, sizeof(in));
	uint32_t stateless_ctr = 0, *ctr = &stateless_ctr;
	enum stamp_err why = STAMP_OK;
	bool stateful = ps->reflector == PATHSEL_REFLECT_STATEFUL;

	if (ps->reflector == PATHSEL_REFLECT_OFF) {
		worker_drop(w, m, &drop_stamp_reflector_off);
		return;
	}
	/* A session-sender never sends from the reflector's port: a packet
	 * from 862 to 862 is another reflector's reply, and answering it
	 * would start two reflectors answering each other for ever. */
	if (ri->sport == STAMP_PORT) {
		worker_drop(w, m, &drop_stamp_from_reflector_port);
		return;
	}
	if (len < 0) {
		worker_drop(w, m, &drop_stamp_short);
		return;
	}
	if (!reflect_allowed(ps, ri)) {
		worker_drop(w, m, &drop_stamp_reflector_denied);
		return;
	}
	if (!reflect_token(ps->cfg->reflect_rate, now)) {
		worker_drop(w, m, &drop_stamp_reflector_rate);
		return;
	}
	if (stateful) {
		struct stamp_session_key k;
		memset(&k, 0, sizeof(k)); /* padding too: the table compares keys whole */
		k.family = ri->family;
		k.sport = ri->sport;
		k.dport = ri->dport;
		memcpy(k.src, ri->src, 16);
		memcpy(k.dst, ri->dst, 16);
		/* planes share addresses and ports only when the sender reuses its
		 * port: keep them apart by line and outer port all the same */
		k.extra = ri->decapped ? (uint32_t)ri->port << 16 | ri->outer_sport : 0;
		/* here, not in the poll loop: a vbrd with no group of its own
		 * (a remote gateway, a pure reflector) answers too */
		if (refl == NULL && (refl = rte_zmalloc("pathsel_refl", sizeof(*refl), 64)) != NULL)
			stamp_refl_table_init(refl, rte_rand());
		if (refl != NULL) {
			ctr = stamp_refl_counter(refl, &k, now, refl_idle_ns);
			pathsel_reflector_stats.sessions = refl->created;
			pathsel_reflector_stats.evicted = refl->evicted;
		} else {
			stateful = false; /* no memory for the table: answer statelessly */
		}
	}
	uint64_t t2 = stamp_ntp_from_unix_ns(tsc_unix_ns(ri->t_rx));
	uint64_t t3 = stamp_ntp_from_unix_ns(tsc_unix_ns(tsc_now_ns()));
	size_t n = stamp_reflect(in, (size_t)len, out, sizeof(out), stateful, ctr, t2, t3,
				 stamp_error_estimate(false, 1e-3), ri->ttl, NULL, &why);
	if (n == 0) {
		worker_drop(w, m, why == STAMP_ERR_AUTH ? &drop_stamp_auth : &drop_stamp_short);
		return;
	}

	/* The reply: the test packet turned around, in the same mbuf. */
	bool v4 = ri->family == AF_INET;
	if (m->nb_segs > 1) {
		/* a reset would lose the chained segments: a new mbuf instead */
		rte_pktmbuf_free(m);
		if ((m = rte_pktmbuf_alloc(dp.pool)) == NULL)
			return;
	} else {
		rte_pktmbuf_reset(m);
	}
	if (!udp_packet(w, m, v4, ri->dst, ri->src, ri->dport, ri->sport, out, n)) {
		worker_drop(w, m, &drop_stamp_short);
		return;
	}
	pathsel_reflector_stats.answered++;

	/* Back the way it came: the line it arrived on, the plane (outer
	 * source port) it came by, so the reply takes the same underlay route.
	 * A test packet that came by no path of ours is routed. */
	const struct fwd_path *p = ri->decapped ? path_of_arrival(st, ri) : NULL;
	if (p != NULL) {
		tunnel_send_on_path(w, st, m, p, ri->outer_sport,
				    v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6, 0);
		return;
	}
	if (rte_pktmbuf_prepend(m, 14) == NULL) {
		worker_drop(w, m, &drop_stamp_short);
		return;
	}
	if (v4) {
		ip4_output_local(w, st, m, ri->iface);
		return;
	}
	struct ip6_ctx c = { .iface = ri->iface, .decapped = true };
	const struct drop_reason *dr;
	uint64_t nh;
	c.l2.l2_len = 14;
	c.l2.ethertype = RTE_ETHER_TYPE_IPV6;
	if (!parse_ipv6(rte_pktmbuf_mtod_offset(m, const uint8_t *, 14),
			rte_pktmbuf_data_len(m) - 14, &c.ip, &dr)) {
		worker_drop(w, m, dr);
		return;
	}
	rte_fib6_lookup_bulk(st->ifaces[c.iface].fib6, (uint8_t(*)[16])c.ip.dst, &nh, 1);
	ip6_forward(w, st, m, &c, nh);
}

/* @p ri came from the address plane @p pl probes (its tunnel's remote):
 * a session is its addresses and ports (RFC 8762 §4), and a reply from
 * anyone else is no measure of the path. */
static bool from_peer(const struct fwd_state *st, const struct pathsel_state *ps,
		      const struct pathsel_plane_rt *pl, const struct pathsel_rx_info *ri)
{
	for (int i = 0; i < ps->nb_groups; i++) {
		const struct pathsel_group *g = &ps->groups[i];
		if (g->rt != pl->g)
			continue;
		const struct fwd_tunnel *t = &st->tunnels[g->path[pl->path]->tunnel];
		if (t->remote.family != ri->family)
			return false;
		if (ri->family == AF_INET) {
			uint32_t src;
			memcpy(&src, ri->src, 4); /* host order, as local_pkt gives them */
			return src == t->remote.v4;
		}
		return memcmp(ri->src, t->remote.v6, 16) == 0;
	}
	return false; /* a group of another generation only */
}

/* A reply to one of our probes (RFC 8762 §4.3 packet at a sender port). */
static void sender_rx(struct worker *w, const struct fwd_state *st, const struct pathsel_state *ps,
		      struct rte_mbuf *m, const struct pathsel_rx_info *ri)
{
	uint8_t buf[STAMP_AUTH_LEN + 256];
	unsigned slot = (unsigned)(ri->dport - PATHSEL_SENDER_PORT_BASE);
	/* read once: the control thread clears a slot, then waits for a grace
	 * period (rte_rcu_qsbr) before it frees the plane (pathsel_module.c) */
	struct pathsel_plane_rt *pl = slot < PATHSEL_PLANE_SLOTS
					      ? __atomic_load_n(&pathsel_planes[slot],
								__ATOMIC_ACQUIRE)
					      : NULL;
	struct stamp_reply r;
	int len;

	if (pl == NULL || !pl->g->started || !from_peer(st, ps, pl, ri)) {
		worker_drop(w, m, &drop_stamp_no_session);
		return;
	}
	len = stamp_payload(m, ri, buf, sizeof(buf));
	enum stamp_err e = len < 0 ? STAMP_ERR_SHORT
				   : stamp_reply_decode(buf, (size_t)len, NULL, &r);
	if (e != STAMP_OK) {
		pl->rx_bad++;
		worker_drop(w, m, e == STAMP_ERR_AUTH ? &drop_stamp_auth : &drop_stamp_short);
		return;
	}
	uint64_t t1 = stamp_unix_ns_from_ntp(r.t1), t2 = stamp_unix_ns_from_ntp(r.t2);
	uint64_t t3 = stamp_unix_ns_from_ntp(r.t3), t4 = tsc_unix_ns(ri->t_rx);
	/* The first reply ever: what was lost before it is the time the
	 * reflector was not there yet (the remote starting, or its reflector
	 * off until a reload), no measure of the path. The metrics start now;
	 * the plane comes up after lost_down answers like any plane. */
	if (!pl->answered) {
		/* The numbering goes on (RFC 8762 §4.2.1: +1 per test packet of
		 * the session): the probes in flight keep theirs, and a stateful
		 * reflector's count stays comparable. Restarting at 0 would match
		 * their replies to the new probes of the same numbers. */
		uint64_t next = pl->m.next_seq;
		pl->answered = true;
		pathsel_plane_init(&pl->m, pl->mem, pl->g->window);
		pl->m.next_seq = pl->m.judge_seq = pl->m.hi_ans1 = next;
		pl->rx++;
		rte_pktmbuf_free(m);
		return;
	}
	/* a reply to a probe sent before the metrics started (in flight at
	 * the first reply): an answer, no measure */
	uint32_t back = (uint32_t)pl->m.next_seq - r.sender_seq;
	if (back != 0 && back <= pl->m.window && back <= pl->m.next_seq &&
	    pl->m.next_seq - back < pl->m.next_seq - pl->m.tx_total) {
		pl->rx++;
		rte_pktmbuf_free(m);
		return;
	}
	/* a stateless reflector copies our sequence number (RFC 8762 §4.3.1);
	 * a stateful one counts what it received, the same until one is lost */
	if (r.seq != r.sender_seq)
		pl->stateful = true;
	if (!pathsel_plane_rx(&pl->m, r.sender_seq, t1, t2, t3, t4, r.seq, pl->stateful,
			      ri->t_rx)) {
		pl->rx_bad++;
		worker_drop(w, m, &drop_stamp_unexpected);
		return;
	}
	pl->rx++;
	pl->g->dirty = true;
	pl->g->last_event = ri->t_rx;
	rte_pktmbuf_free(m);
}

static void rx_packet(struct worker *w, const struct fwd_state *st, const struct pathsel_state *ps,
		      struct rte_mbuf *m, const struct pathsel_rx_info *ri, uint64_t now)
{
	if (ri->dport == STAMP_PORT)
		reflect(w, st, ps, m, ri, now);
	else
		sender_rx(w, st, ps, m, ri);
}

static void stamp_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			const struct local_pkt *lp)
{
	struct pathsel_rx_info ri = {
		.t_rx = tsc_now_ns(),
		.family = (uint8_t)lp->family,
		.decapped = lp->decapped,
		.iface = lp->iface,
		.port = m->port,
		.vlan = (uint16_t)(m->vlan_tci & 0xfff),
		.outer_sport = lp->decapped ? pkt_meta(m)->outer_sport : 0,
		.sport = lp->sport,
		.dport = lp->dport,
		.l4_off = lp->l4_off,
		.l4_len = lp->l4_len,
	};
	const struct pathsel_state *ps = pathsel_state_of(st);

	if (lp->family == AF_INET) {
		ri.ttl = lp->ip4->ttl;
		memcpy(ri.src, lp->src, 4);
		memcpy(ri.dst, lp->dst, 4);
	} else {
		ri.ttl = lp->ip6->hop_limit;
		memcpy(ri.src, lp->src, 16);
		memcpy(ri.dst, lp->dst, 16);
	}
	if (ps == NULL) {
		worker_drop(w, m, &drop_stamp_no_session);
		return;
	}
	if (w->id == BFD_WORKER) {
		rx_packet(w, st, ps, m, &ri, ri.t_rx);
		return;
	}
	if (rte_pktmbuf_headroom(m) < sizeof(ri) ||
	    (memcpy(m->buf_addr, &ri, sizeof(ri)), rte_ring_enqueue(pathsel_rx_ring, m) != 0))
		worker_drop(w, m, &drop_stamp_ring_full);
}

const struct local_service pathsel_stamp_service = { .name = "stamp", .input = stamp_input };

/* ---- the poll loop ------------------------------------------------------------------- */

static void decide(const struct fwd_state *st, const struct pathsel_state *ps,
		   const struct pathsel_group *g, uint64_t now, uint32_t b)
{
	struct pathsel_group_rt *rt = g->rt;
	struct pathsel_path_in in[CFG_MAX_PATHS];
	struct pathsel_metrics pm[CFG_MAX_PATHS][PATHSEL_MAX_PLANES];
	struct pathsel_event ev[PATHSEL_EVENTS_MAX];
	const struct bfd_gen *fo = bfd_gen_of(st);

	memset(in, 0, sizeof(in));
	for (int k = 0; k < rt->nb_paths; k++) {
		const struct fwd_path *p = g->path[k];
		in[k].cost = p->cost;
		in[k].nb_planes = rt->paths[k].nb_planes;
		for (int j = 0; j < rt->paths[k].nb_planes; j++)
			pathsel_plane_metrics(&rt->paths[k].planes[j]->m, &pm[k][j], false);
		in[k].planes = pm[k];
		int s = g->bfd[k];
		if (s >= 0 && fo != NULL && s < fo->nb_sess)
			in[k].bfd_down = fo->sess[s].rt->s.state != BFD_STATE_UP;
	}
	unsigned n = pathsel_decide(&g->params, ps->tiers, in, rt->nb_paths, now, &rt->mem, ev,
				    RTE_DIM(ev));
	rt->decisions++;
	rt->next_decide = pathsel_next_wake(&rt->mem);
	/* never again in the same turn: a wake in the past waits 1 ms */
	if (rt->next_decide <= now)
		rt->next_decide = now + 1000000;
	if (n == 0)
		return;
	apply(st, g);
	uint64_t done = tsc_now_ns();
	for (unsigned i = 0; i < n; i++) {
		if (ev[i].kind == PATHSEL_EV_SWITCH)
			rt->switches++;
		push_event(g, &ev[i], rt->last_event ? rt->last_event : now, done, b);
	}
}

/* What the control thread asked the tiers to adopt (pathsel_adopt()). */
static void adopt(const struct fwd_state *st, const struct pathsel_state *ps, uint64_t now)
{
	seen_adopt = atomic_load_explicit(&pathsel_adopt_gen, memory_order_acquire);
	for (int i = 0; i < ps->nb_groups; i++) {
		const struct pathsel_group *g = &ps->groups[i];
		struct pathsel_group_rt *rt = g->rt;
		struct pathsel_event ev[PATHSEL_TIERS];
		unsigned n = 0;

		for (int t = 0; t < PATHSEL_TIERS; t++) {
			int8_t k = atomic_exchange_explicit(&rt->adopt[t], 0, memory_order_acq_rel);
			if (k > 0 && pathsel_group_mem_adopt(&rt->mem, t, k - 1, now, &ev[n]) == 1)
				n++;
		}
		if (n == 0)
			continue;
		apply(st, g);
		uint64_t done = tsc_now_ns();
		for (unsigned j = 0; j < n; j++) {
			rt->switches++;
			push_event(g, &ev[j], now, done, 0);
		}
	}
}

static unsigned pathsel_worker_poll(struct worker *w, const struct fwd_state *st)
{
	const struct pathsel_state *ps;
	unsigned work = 0;
	uint64_t now;

	if (w->id != BFD_WORKER || (ps = pathsel_state_of(st)) == NULL)
		return 0;
	if (ps->nb_groups == 0 && rte_ring_empty(pathsel_rx_ring))
		return 0;
	now = tsc_now_ns();
	/* Back from a stall of this worker (descheduled): the replies that
	 * came meanwhile wait in the ports' RX rings, a burst a turn. Judging
	 * probes lost before they are read would take down every path at
	 * once; expiries wait as long as the stall lasted, at most
	 * PATHSEL_STALL_NS (a worker that naps when idle comes back later than
	 * that only when the machine took its CPU: a longer hold, or a lower
	 * threshold, would hold expiries back for good on a loaded machine). */
	if (last_turn != 0 && now - last_turn > PATHSEL_STALL_NS) {
		uint64_t gap = now - last_turn;
		expire_after = now + (gap < PATHSEL_STALL_NS ? gap : PATHSEL_STALL_NS);
		pathsel_worker_stalls++;
	}
	last_turn = now;
	if (st->generation != seen_gen)
		apply_generation(st, ps, now);
	if (atomic_load_explicit(&pathsel_adopt_gen, memory_order_acquire) != seen_adopt)
		adopt(st, ps, now);

	struct rte_mbuf *rx[32];
	unsigned n = rte_ring_dequeue_burst(pathsel_rx_ring, (void **)rx, RTE_DIM(rx), NULL);
	for (unsigned i = 0; i < n; i++) {
		struct pathsel_rx_info ri;
		memcpy(&ri, rx[i]->buf_addr, sizeof(ri));
		rx_packet(w, st, ps, rx[i], &ri, now);
	}
	work += n;

	if (now >= next_due) {
		uint64_t due = UINT64_MAX;
		for (int i = 0; i < ps->nb_groups; i++) {
			const struct pathsel_group *g = &ps->groups[i];
			struct pathsel_group_rt *rt = g->rt;
			for (int k = 0; k < rt->nb_paths; k++) {
				const struct fwd_path *p = g->path[k];
				for (int j = 0; j < rt->paths[k].nb_planes; j++) {
					struct pathsel_plane_rt *pl = rt->paths[k].planes[j];
					uint64_t lost = pl->m.lost_total;
					if (now >= expire_after)
						pathsel_plane_expire(
							&pl->m, now,
							pathsel_plane_timeout_ns(&pl->m));
					if (pl->next_tx <= now) {
						send_probe(w, st, g, pl, p, now);
						pl->next_tx += g->interval_ns;
						if (pl->next_tx <= now) /* fell behind: no burst */
							pl->next_tx = now + g->interval_ns;
						work++;
					}
					/* a probe sent judges the one leaving the window
					 * (lost if unanswered: with a timeout longer
					 * than the window, the only way a loss is seen) */
					if (pl->m.lost_total != lost) {
						rt->dirty = true;
						rt->last_event = now;
					}
					if (pl->next_tx < due)
						due = pl->next_tx;
				}
			}
		}
		/* expiries are checked at least once a ms */
		next_due = due < now + 1000000 ? due : now + 1000000;
	}

	/* every group a probe event touched, in one pass */
	bool any = false;
	for (int i = 0; i < ps->nb_groups; i++) {
		const struct pathsel_group *g = &ps->groups[i];
		if (g->rt->dirty || now >= g->rt->next_decide) {
			if (!any)
				batch++;
			any = true;
			decide(st, ps, g, now, batch);
			g->rt->dirty = false;
			g->rt->last_event = 0;
		}
	}
	return work;
}

static const struct worker_hook pathsel_hook = { .name = "pathsel", .poll = pathsel_worker_poll };

__attribute__((constructor)) static void pathsel_worker_register(void)
{
	worker_hook_register(&pathsel_hook);
	local_udp_register(STAMP_PORT, &pathsel_stamp_service);
	local_udp_register_range(PATHSEL_SENDER_PORT_BASE,
				 PATHSEL_SENDER_PORT_BASE + PATHSEL_PLANE_SLOTS - 1,
				 &pathsel_stamp_service);
}
