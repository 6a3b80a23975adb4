/* SPDX-License-Identifier: BSD-3-Clause */
/* Local delivery, data path: dispatch by protocol and UDP port (see local.h). */
#include <netinet/in.h>
#include <sys/socket.h>

#include "pipeline/icmp.h"
#include "pipeline/icmp6.h"
#include "pipeline/local.h"
#include "pipeline/ip4.h"

DROP_REASON(drop_udp_port_unreachable, "local", "udp_port_unreachable",
	    "UDP to an own address on a port no service listens on (ICMP port unreachable sent)");

#define ICMP_PORT_UNREACH  3 /* code of ICMP_DEST_UNREACH (RFC 792) */
#define ICMP6_PORT_UNREACH 4 /* code of ICMP6_DEST_UNREACH (RFC 4443 §3.1) */

static void port_unreachable(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
			     const struct local_pkt *lp)
{
	const struct fwd_iface *in = &st->ifaces[lp->iface];

	if (lp->family == AF_INET)
		icmp_error(w, st, m, in, lp->l2, lp->ip4, ICMP_DEST_UNREACH, ICMP_PORT_UNREACH, 0);
	else
		icmp6_error(w, m, in, lp->l2, lp->ip6, ICMP6_DEST_UNREACH, ICMP6_PORT_UNREACH, 0);
	worker_drop(w, m, &drop_udp_port_unreachable);
}

void local_other(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 const struct local_pkt *lp)
{
	if (st->local_other != NULL)
		st->local_other->input(w, st, m, lp);
	else
		worker_drop(w, m, &drop_unsupported_local);
}

void local_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m,
		 const struct local_pkt *lp)
{
	if (lp->proto == IPPROTO_UDP) {
		/* Fragments are not reassembled: no service takes them. A UDP
		 * header cut short is no datagram to answer either. */
		if (lp->fragment || lp->l4_len < 8)
			goto unsupported;
		for (uint16_t i = 0; i < st->nb_udp; i++)
			if (lp->dport >= st->udp[i].port && lp->dport <= st->udp[i].port_hi) {
				st->udp[i].svc->input(w, st, m, lp);
				return;
			}
		if (st->local_other != NULL) /* the kernel answers, or a socket there */
			st->local_other->input(w, st, m, lp);
		else
			port_unreachable(w, st, m, lp);
		return;
	}
	const struct local_service *svc = local_protos[lp->family == AF_INET6][lp->proto];
	if (svc != NULL) {
		svc->input(w, st, m, lp);
		return;
	}
unsupported:
	local_other(w, st, m, lp);
}
