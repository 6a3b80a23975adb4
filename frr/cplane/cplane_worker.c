/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Data path of the control plane: what no vbrd service takes (local.h
 * local_other()) is classified (BGP from a peer, other TCP, ICMP, the
 * rest), policed per class and punted to the control thread, which hands
 * it to the interface's TAP. A flood at vbrd's address is cut here, on
 * the worker, before it reaches the control thread's ring: it cannot
 * starve BGP, nor ARP and BFD, which never take this way.
 *
 * Each class has a token bucket per worker (rte_meter srTCM metering
 * packets: a length of 1 each, so CIR is packets per second), whose
 * profile is the configured rate and burst divided by the number of
 * workers.
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_meter.h>

#include "frr/cplane/cplane.h"
#include "pipeline/ip4.h"
#include "pipeline/local.h"
#include "pipeline/meta.h"
#include "pipeline/output.h"
#include "pipeline/worker.h"

DROP_REASON(drop_cplane_police_bgp, "cplane", "police_bgp",
	    "BGP to vbrd over the cplane.police.bgp rate (not punted to the kernel)");
DROP_REASON(drop_cplane_police_tcp, "cplane", "police_tcp",
	    "TCP to vbrd over the cplane.police.tcp rate (not punted to the kernel)");
DROP_REASON(drop_cplane_police_icmp, "cplane", "police_icmp",
	    "ICMP to vbrd over the cplane.police.icmp rate (not punted to the kernel)");
DROP_REASON(drop_cplane_police_other, "cplane", "police_other",
	    "other traffic to vbrd over the cplane.police.other rate (not punted)");

static const struct drop_reason *const police_drop[CPLANE_CLASSES] = { &drop_cplane_police_bgp,
								       &drop_cplane_police_tcp,
								       &drop_cplane_police_icmp,
								       &drop_cplane_police_other };

#define BGP_PORT 179

/* Each worker's meters, and the profile generation they were set for. */
static struct cplane_worker {
	uint64_t gen;
	struct rte_meter_srtcm m[CPLANE_CLASSES];
	uint64_t punted[CPLANE_CLASSES];
} __rte_cache_aligned wk[RTE_MAX_LCORE];

void cplane_worker_counts(uint64_t punted[CPLANE_CLASSES]);

void cplane_worker_counts(uint64_t punted[CPLANE_CLASSES])
{
	memset(punted, 0, CPLANE_CLASSES * sizeof(punted[0]));
	for (unsigned w = 0; w < RTE_MAX_LCORE; w++)
		for (int c = 0; c < CPLANE_CLASSES; c++)
			punted[c] += __atomic_load_n(&wk[w].punted[c], __ATOMIC_RELAXED);
}

/* Whether interface prefix @p p holds @p addr (local_pkt's src encoding). */
static bool prefix_contains(const struct cfg_prefix *p, int family, const void *addr)
{
	if (family == AF_INET)
		return fwd_prefix4_contains(p, *(const uint32_t *)addr);
	if (p->addr.family != AF_INET6 || p->len > 128)
		return false;
	const uint8_t *a = addr;
	unsigned full = p->len / 8, rest = p->len % 8;
	if (memcmp(p->addr.v6, a, full) != 0)
		return false;
	return rest == 0 || ((p->addr.v6[full] ^ a[full]) & (0xff00 >> rest)) == 0;
}

static bool from_peer(const struct cplane_gen *g, const struct fwd_iface *in,
		      const struct local_pkt *lp)
{
	if (g->nb_peers > 0) {
		for (int i = 0; i < g->nb_peers; i++) {
			const struct cfg_addr *a = &g->peers[i];
			if (a->family != lp->family)
				continue;
			if (lp->family == AF_INET ? a->v4 == *(const uint32_t *)lp->src
						  : memcmp(a->v6, lp->src, 16) == 0)
				return true;
		}
		return false;
	}
	/* no list: an eBGP peer is on a connected subnet of the interface */
	if (lp->family == AF_INET6) {
		const uint8_t *s = lp->src;
		if (s[0] == 0xfe && (s[1] & 0xc0) == 0x80)
			return true;
	}
	for (int i = 0; i < in->nb_addrs; i++)
		if (prefix_contains(&in->addrs[i], lp->family, lp->src))
			return true;
	return false;
}

static enum cplane_class classify(const struct cplane_gen *g, const struct fwd_state *st,
				  const struct local_pkt *lp)
{
	switch (lp->proto) {
	case IPPROTO_TCP:
		if (!lp->fragment && (lp->sport == BGP_PORT || lp->dport == BGP_PORT) &&
		    from_peer(g, &st->ifaces[lp->iface], lp))
			return CPLANE_BGP;
		return CPLANE_TCP;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return CPLANE_ICMP;
	default:
		return CPLANE_OTHER;
	}
}

/* local_other(): police, then to the control thread for the TAP. */
static void cplane_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			 const struct local_pkt *lp)
{
	const struct cplane_gen *g = fwd_feature(st, &cplane_module);
	struct cplane_worker *cw = &wk[w->id];

	if (unlikely(g == NULL)) {
		worker_drop(w, m, &drop_unsupported_local);
		return;
	}
	if (unlikely(cw->gen != g->gen)) {
		for (int c = 0; c < CPLANE_CLASSES; c++)
			rte_meter_srtcm_config(&cw->m[c], &g->prof[c]);
		cw->gen = g->gen;
	}
	enum cplane_class c = classify(g, st, lp);
	if (rte_meter_srtcm_color_blind_check(&cw->m[c], &g->prof[c], w->tsc, 1) !=
	    RTE_COLOR_GREEN) {
		worker_drop(w, m, police_drop[c]);
		return;
	}
	struct pkt_meta *pm = pkt_meta(m);
	pm->nh_ip = lp->iface; /* PUNT_CPLANE: the ingress interface's index */
	pm->l2_len = (uint8_t)lp->l2->l2_len;
	__atomic_store_n(&cw->punted[c], cw->punted[c] + 1, __ATOMIC_RELAXED);
	const struct fwd_iface *in = &st->ifaces[lp->iface];
	worker_punt(w, m, PUNT_CPLANE, in->port, in->vlan, NULL);
}

const struct local_service cplane_service = { .name = "cplane", .input = cplane_input };
