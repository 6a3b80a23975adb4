/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>

#include "core/module.h"
#include "pipeline/control.h"
#include "pipeline/nd.h"
#include "pipeline/l2.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/parse.h"
#include "pipeline/ip4.h"

DROP_REASON(drop_arp_unresolved, "neighbor", "arp_unresolved", "next hop did not answer ARP");
DROP_REASON(drop_arp_hold_full, "neighbor", "arp_hold_full",
	    "too many packets waiting for one neighbor");
DROP_REASON(drop_bad_arp, "neighbor", "bad_arp",
	    "ARP packet that is not Ethernet/IPv4 or is cut short (RFC 826)");
DROP_REASON(drop_nd_unresolved, "neighbor", "nd_unresolved",
	    "IPv6 next hop did not answer Neighbor Solicitation");
DROP_REASON(drop_nd_hold_full, "neighbor", "nd_hold_full",
	    "too many packets waiting for one IPv6 neighbor");
DROP_REASON(drop_bad_nd, "neighbor", "bad_nd",
	    "Neighbor Discovery message failing RFC 4861 §7.1 checks");

static const struct fwd_iface *iface_of(const struct fwd_state *st, uint16_t port, uint16_t vlan)
{
	if (port >= st->nb_port_ids || st->iface_by_vlan[port][vlan] == FWD_NO_IFACE)
		return NULL;
	return &st->ifaces[st->iface_by_vlan[port][vlan]];
}

static bool iface_owns(const struct fwd_iface *fi, uint32_t ip)
{
	for (int a = 0; a < fi->nb_addrs; a++)
		if (fi->addrs[a].addr.family == AF_INET && fi->addrs[a].addr.v4 == ip)
			return true;
	return false;
}

/* Whether @p ip is in one of @p fi's IPv4 subnets (its IPv6 ones are skipped). */
static bool iface_on_subnet(const struct fwd_iface *fi, uint32_t ip)
{
	for (int a = 0; a < fi->nb_addrs; a++)
		if (fwd_prefix4_contains(&fi->addrs[a], ip))
			return true;
	return false;
}

/* Build and send an ARP packet (RFC 826) from @p fi, with @p sha (NULL:
 * fi's MAC) as sender hardware address and frame source. */
static void arp_send_as(const struct fwd_iface *fi, const struct rte_ether_addr *sha, uint16_t op,
			const struct rte_ether_addr *tha, uint32_t tip, uint32_t sip)
{
	static const struct rte_ether_addr bcast = { .addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
								     0xff } };
	static const struct rte_ether_addr zero;
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp.pool);
	uint16_t l2 = l2_len_for(fi);

	if (m == NULL) {
		__atomic_fetch_add(&control_stats.drops[drop_no_mbuf.id], 1, __ATOMIC_RELAXED);
		return;
	}
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, l2 + sizeof(struct rte_arp_hdr));
	const struct rte_ether_addr *dst = (op == RTE_ARP_OP_REQUEST && tha == NULL) ? &bcast : tha;

	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(p +
						       l2_write(p, fi, dst, RTE_ETHER_TYPE_ARP));
	a->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(op);
	if (sha != NULL) /* the frame's source too: bridges learn it there */
		rte_ether_addr_copy(sha, (struct rte_ether_addr *)(p + RTE_ETHER_ADDR_LEN));
	rte_ether_addr_copy(sha != NULL ? sha : &fi->mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = rte_cpu_to_be_32(sip);
	rte_ether_addr_copy(tha ? tha : &zero, &a->arp_data.arp_tha);
	a->arp_data.arp_tip = rte_cpu_to_be_32(tip);

	/* atomic: the HA thread announces (arp_announce) besides the main loop */
	__atomic_fetch_add(op == RTE_ARP_OP_REQUEST ? &arp_stats.requests_tx
						    : &arp_stats.replies_tx,
			   1, __ATOMIC_RELAXED);
	control_tx(m, fi->port);
}

static void arp_send(const struct fwd_iface *fi, uint16_t op, const struct rte_ether_addr *tha,
		     uint32_t tip, uint32_t sip)
{
	arp_send_as(fi, NULL, op, tha, tip, sip);
}

void arp_announce(const struct fwd_iface *fi, uint32_t ip, const struct rte_ether_addr *mac)
{
	arp_send_as(fi, mac, RTE_ARP_OP_REQUEST, NULL, ip, ip);
}

#define ADDR_CLAIMS_MAX 4
static const struct addr_claim *addr_claims[ADDR_CLAIMS_MAX];
static unsigned nb_addr_claims;

void control_addr_claim_register(const struct addr_claim *c)
{
	if (nb_addr_claims == ADDR_CLAIMS_MAX)
		rte_panic("address claims: table full at %s\n", c->name);
	addr_claims[nb_addr_claims++] = c;
}

bool control_addr_claimed(const struct fwd_iface *fi, int family, const void *ip,
			  struct rte_ether_addr *mac)
{
	for (unsigned i = 0; i < nb_addr_claims; i++)
		if (addr_claims[i]->claims(fi, family, ip, mac))
			return true;
	return false;
}

/* Source address for an ARP request: ours in the target's subnet. */
static uint32_t arp_source_for(const struct fwd_iface *fi, uint32_t target)
{
	for (int a = 0; a < fi->nb_addrs; a++)
		if (fwd_prefix4_contains(&fi->addrs[a], target))
			return fi->addrs[a].addr.v4;
	return fi->addr4;
}

static void neigh_probe(const struct fwd_state *st, struct neigh *n, uint64_t now_ms, bool unicast)
{
	const struct fwd_iface *fi = iface_of(st, n->key.port, n->key.vlan);
	struct rte_ether_addr mac;

	if (fi == NULL)
		return;
	if (n->key.family == AF_INET6) {
		neigh_mac_to_ether(atomic_load(&n->mac), &mac);
		nd_solicit(fi, n->key.ip.v6, unicast ? &mac : NULL);
	} else if (unicast) {
		neigh_mac_to_ether(atomic_load(&n->mac), &mac);
		arp_send(fi, RTE_ARP_OP_REQUEST, &mac, n->key.ip.v4,
			 arp_source_for(fi, n->key.ip.v4));
	} else {
		arp_send(fi, RTE_ARP_OP_REQUEST, NULL, n->key.ip.v4,
			 arp_source_for(fi, n->key.ip.v4));
	}
	n->probes++;
	n->next_probe_ms = now_ms + st->cfg.neighbor.retry_ms;
}

static void arp_input(const struct fwd_state *st, struct rte_mbuf *m)
{
	struct pkt_meta *pm = pkt_meta(m);
	const struct fwd_iface *fi = iface_of(st, pm->port, pm->vlan);
	uint16_t l2 = pm->l2_len;

	if (fi == NULL) {
		control_drop(m, &drop_unknown_vlan);
		return;
	}
	if (rte_pktmbuf_data_len(m) < l2 + sizeof(struct rte_arp_hdr)) {
		control_drop(m, &drop_bad_arp);
		return;
	}
	const struct rte_arp_hdr *a = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *, l2);
	if (a->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) || a->arp_hlen != 6 ||
	    a->arp_plen != 4) {
		control_drop(m, &drop_bad_arp);
		return;
	}
	uint16_t op = rte_be_to_cpu_16(a->arp_opcode);
	uint32_t sip = rte_be_to_cpu_32(a->arp_data.arp_sip);
	uint32_t tip = rte_be_to_cpu_32(a->arp_data.arp_tip);
	struct rte_ether_addr sha = a->arp_data.arp_sha;
	struct rte_ether_addr own = fi->mac; /* what we answer with */
	bool for_us = iface_owns(fi, tip) || control_addr_claimed(fi, AF_INET, &tip, &own);

	if (op == RTE_ARP_OP_REQUEST)
		arp_stats.requests_rx++;
	else if (op == RTE_ARP_OP_REPLY)
		arp_stats.replies_rx++;

	/* RFC 826 "merge": refresh a known sender; learn it when we are the target. */
	struct neigh *n = NULL;
	/* Only neighbors on the link's subnets are learned (RFC 1122 §2.3.2.1
	 * leaves it to the implementation; off-subnet senders are spoofing or
	 * misconfigured, and must not fill the table). */
	if (sip != 0 && !rte_is_multicast_ether_addr(&sha) && !iface_owns(fi, sip) &&
	    iface_on_subnet(fi, sip)) {
		n = neigh_find(pm->port, pm->vlan, sip);
		if (n == NULL && for_us)
			n = neigh_get(pm->port, pm->vlan, sip);
	}
	if (n != NULL && n->state != NEIGH_STATIC) {
		if (op == RTE_ARP_OP_REPLY) {
			neigh_set_mac(n, &sha, NEIGH_REACHABLE);
			n->updated_ms = control_now_ms();
		} else {
			neigh_learn(n, &sha, control_now_ms());
		}
		neigh_flush_held(n);
	}
	if (for_us && op == RTE_ARP_OP_REQUEST && !rte_is_multicast_ether_addr(&sha))
		arp_send_as(fi, &own, RTE_ARP_OP_REPLY, &sha, sip, tip);
	else if (n == NULL)
		arp_stats.ignored++;
	rte_pktmbuf_free(m);
}

/* Give-up drop reason of a neighbor: ARP for IPv4, ND for IPv6. */
static const struct drop_reason *unresolved_reason(const struct neigh_key *k)
{
	return k->family == AF_INET6 ? &drop_nd_unresolved : &drop_arp_unresolved;
}

/* PUNT_RESOLVE and PUNT_RESOLVE6: hold the packet, solicit its next hop. */
void control_resolve(const struct fwd_state *st, struct rte_mbuf *m)
{
	struct pkt_meta *pm = pkt_meta(m);
	struct neigh_key k = pm->punt == PUNT_RESOLVE6 ? neigh_key6(pm->port, pm->vlan, pm->nh_ip6)
						       : neigh_key4(pm->port, pm->vlan, pm->nh_ip);
	struct neigh *n = neigh_get_key(&k);
	uint64_t now = control_now_ms();

	if (n == NULL) {
		control_drop(m, unresolved_reason(&k));
		return;
	}
	if (atomic_load(&n->mac) != 0) {
		/* Resolved between the worker's lookup and now. */
		n->held[n->nb_held++] = m;
		neigh_tbl.held_total++;
		neigh_flush_held(n);
		return;
	}
	if (n->nb_held >= RTE_MIN(st->cfg.neighbor.hold_packets, (uint32_t)NEIGH_HOLD_MAX) ||
	    neigh_tbl.held_total >= NEIGH_HELD_TOTAL) {
		control_drop(m, k.family == AF_INET6 ? &drop_nd_hold_full : &drop_arp_hold_full);
		return;
	}
	n->held[n->nb_held++] = m;
	neigh_tbl.held_total++;
	if (n->state == NEIGH_FAILED) {
		n->state = NEIGH_INCOMPLETE;
		n->probes = 0;
	}
	if (n->probes == 0 && now >= n->next_probe_ms)
		neigh_probe(st, n, now, false);
}

static control_punt_fn punt_handlers[PUNT_MAX];

void control_punt_register(enum punt_kind kind, control_punt_fn fn)
{
	if (kind >= PUNT_MAX || punt_handlers[kind] != NULL) {
		fprintf(stderr, "vbrd: punt kind %d registered twice\n", kind);
		abort();
	}
	punt_handlers[kind] = fn;
}

__attribute__((constructor)) static void control_punts(void)
{
	control_punt_register(PUNT_ARP, arp_input);
	control_punt_register(PUNT_RESOLVE, control_resolve);
	control_punt_register(PUNT_RESOLVE6, control_resolve);
}

unsigned control_poll(void)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	struct rte_mbuf *pkts[64];
	unsigned n = rte_ring_dequeue_burst(dp.to_control, (void **)pkts, RTE_DIM(pkts), NULL);

	for (unsigned i = 0; i < n; i++) {
		uint8_t kind = pkt_meta(pkts[i])->punt;
		if (kind < PUNT_MAX && punt_handlers[kind] != NULL)
			punt_handlers[kind](st, pkts[i]);
		else
			control_drop(pkts[i], &drop_unsupported_local);
	}
	return n;
}

void control_timers(uint64_t now_ms)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const uint64_t reachable_ms = (uint64_t)st->cfg.neighbor.reachable_s * 1000;
	static uint64_t last_gc;

	/* A failed entry is kept as long as it takes to fail once more, so a
	 * dead next hop is not probed in a tight loop; then it goes. */
	if (now_ms - last_gc >= 1000) {
		neigh_gc(now_ms, RTE_MAX(1000ull, (uint64_t)st->cfg.neighbor.retry_ms *
							  st->cfg.neighbor.retries));
		last_gc = now_ms;
	}

	/* Re-confirming known neighbors can wait; resolving for waiting
	 * traffic cannot: only the former is spread over ticks (a flood of
	 * learned entries must not fill the inject ring with probes). */
	unsigned reprobe_budget = 64;

	for (unsigned i = 0; i < neigh_tbl.high; i++) {
		struct neigh *n = &neigh_tbl.entries[i];

		if (!n->in_use || n->state == NEIGH_STATIC)
			continue;
		if ((n->state == NEIGH_REACHABLE || n->state == NEIGH_STALE) && reprobe_budget == 0)
			continue;
		switch (n->state) {
		case NEIGH_INCOMPLETE:
			if (now_ms < n->next_probe_ms)
				break;
			if (n->probes >= st->cfg.neighbor.retries) {
				/* RFC 1122 §2.3.2.2: give up, drop what waited. */
				for (uint16_t k = 0; k < n->nb_held; k++)
					control_drop(n->held[k], unresolved_reason(&n->key));
				neigh_tbl.held_total -= n->nb_held;
				n->nb_held = 0;
				n->state = NEIGH_FAILED;
				n->failed_ms = now_ms;
				n->next_probe_ms = now_ms + st->cfg.neighbor.retry_ms;
			} else {
				neigh_probe(st, n, now_ms, false);
			}
			break;
		case NEIGH_REACHABLE:
			if (now_ms - n->updated_ms >= reachable_ms) {
				n->state = NEIGH_STALE;
				n->probes = 0;
				neigh_probe(st, n, now_ms, true);
				reprobe_budget--;
			}
			break;
		case NEIGH_STALE:
			/* Still used by the data path while we re-confirm it. */
			if (now_ms < n->next_probe_ms)
				break;
			if (n->probes >= st->cfg.neighbor.retries) {
				neigh_invalidate(n, NEIGH_FAILED);
				n->failed_ms = now_ms;
			} else {
				neigh_probe(st, n, now_ms, n->probes < 1);
				reprobe_budget--;
			}
			break;
		default:
			break;
		}
	}
}

/* Whether entry @p n has no place in @p st: its (port, VLAN) has no
 * interface any more, or it is static and st's configuration dropped it. */
static bool neigh_gone(const struct fwd_state *st, const struct neigh *n)
{
	if (iface_of(st, n->key.port, n->key.vlan) == NULL)
		return true;
	return n->state == NEIGH_STATIC && fwd_static_neigh(st, n->key.port, n->key.vlan,
							    (int)n->key.family, &n->key.ip) == NULL;
}

void control_state_changed(const struct fwd_state *st)
{
	struct neigh *victims[256];
	unsigned nb = 0;

	/* Entries the new state keeps are left alone: their MAC stays valid
	 * throughout, and fwd_state_build() already gave st's next hops the
	 * MACs of its static and learned neighbors. Removing and re-adding
	 * them would make workers see MAC 0 and punt the traffic of a kept
	 * neighbor to this thread for the length of an RCU grace period. */
	for (unsigned i = 0; i < neigh_tbl.high; i++) {
		struct neigh *n = &neigh_tbl.entries[i];

		if (!n->in_use || !neigh_gone(st, n))
			continue;
		victims[nb++] = n;
		if (nb == RTE_DIM(victims)) {
			neigh_remove_batch(victims, nb);
			nb = 0;
		}
	}
	neigh_remove_batch(victims, nb);

	for (int i = 0; i < st->cfg.nb_neighbors; i++) {
		const struct cfg_neighbor *cn = &st->cfg.neighbors[i];
		const struct fwd_iface *fi = &st->ifaces[cn->iface];
		struct rte_ether_addr mac;
		struct neigh *n;

		struct neigh_key k = cn->addr.family == AF_INET6
					     ? neigh_key6(fi->port, fi->vlan, cn->addr.v6)
					     : neigh_key4(fi->port, fi->vlan, cn->addr.v4);
		n = neigh_get_key(&k);
		if (n == NULL)
			continue;
		memcpy(mac.addr_bytes, cn->mac, 6);
		if (n->state == NEIGH_STATIC && atomic_load(&n->mac) == neigh_ether_to_mac(&mac))
			continue; /* unchanged */
		/* new, its MAC changed, or a learned entry the config now fixes */
		neigh_set_mac(n, &mac, NEIGH_STATIC);
		n->updated_ms = 0;
		neigh_flush_held(n);
	}
}

static void control_fini(void)
{
	void *m = NULL;

	for (unsigned i = 0; i < neigh_tbl.high; i++) {
		struct neigh *n = &neigh_tbl.entries[i];
		for (uint16_t k = 0; k < n->nb_held; k++)
			rte_pktmbuf_free(n->held[k]);
		neigh_tbl.held_total -= n->nb_held;
		n->nb_held = 0;
	}
	while (rte_ring_dequeue(dp.to_control, &m) == 0)
		rte_pktmbuf_free(m);
}

/* The running state's cached next-hop and path MACs follow the table. */
static void neigh_changed(uint16_t port, uint16_t vlan, int family, const void *addr, uint64_t mac)
{
	fwd_neigh_changed(atomic_load(&fwd_current), port, vlan, family, addr, mac);
}

static int control_init(const struct vbrd_config *cfg)
{
	(void)cfg;
	neigh_on_change(neigh_changed);
	return neigh_init(dp.rcu);
}

static void control_timer(uint64_t now_ms)
{
	control_timers(now_ms);
}

static struct vbrd_module control_module = {
	.name = "neighbor",
	.depends_on = (const char *const[]){ "dataplane", NULL },
	.init = control_init,
	.poll = control_poll,
	.timer = control_timer,
	.timer_ms = 10,
	.state_published = control_state_changed,
	.fini = control_fini,
};
VBRD_MODULE(control_module);
