/* SPDX-License-Identifier: BSD-3-Clause */
/* Local delivery, control side: the registrations and per-state bindings (see local.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <rte_fib.h>
#include <rte_fib6.h>

#include "pipeline/local.h"
#include "pipeline/nh_kind.h"

const struct local_service *local_protos[2][256]; /* [AF_INET6?][proto] */
static uint16_t fixed_nb;
static struct {
	uint16_t port, port_hi;
	const struct local_service *svc;
} fixed[FWD_LOCAL_UDP_MAX];

void local_proto_register(int family, uint8_t proto, const struct local_service *svc)
{
	const struct local_service **slot = &local_protos[family == AF_INET6][proto];

	if (*slot != NULL || proto == IPPROTO_UDP) {
		fprintf(stderr, "vbrd: local protocol %u registered twice (%s)\n", proto,
			svc->name);
		abort();
	}
	*slot = svc;
}

void local_udp_register_range(uint16_t lo, uint16_t hi, const struct local_service *svc)
{
	if (hi < lo)
		goto clash;
	for (uint16_t i = 0; i < fixed_nb; i++)
		if (lo <= fixed[i].port_hi && fixed[i].port <= hi)
			goto clash;
	if (fixed_nb == FWD_LOCAL_UDP_MAX)
		goto clash;
	fixed[fixed_nb].port = lo;
	fixed[fixed_nb].port_hi = hi;
	fixed[fixed_nb++].svc = svc;
	return;
clash:
	fprintf(stderr, "vbrd: UDP ports %u..%u for %s: taken or table full\n", lo, hi, svc->name);
	abort();
}

void local_udp_register(uint16_t port, const struct local_service *svc)
{
	local_udp_register_range(port, port, svc);
}

void local_state_init(struct fwd_state *st)
{
	st->nb_udp = fixed_nb;
	for (uint16_t i = 0; i < fixed_nb; i++) {
		st->udp[i].port = fixed[i].port;
		st->udp[i].port_hi = fixed[i].port_hi;
		st->udp[i].svc = fixed[i].svc;
	}
}

int local_udp_bind(struct fwd_state *st, uint16_t port, const struct local_service *svc, char *err,
		   size_t errlen)
{
	for (uint16_t i = 0; i < st->nb_udp; i++) {
		if (port < st->udp[i].port || port > st->udp[i].port_hi)
			continue;
		if (st->udp[i].svc == svc)
			return 0; /* several tunnels share a port: one binding */
		snprintf(err, errlen, "UDP port %u is taken by %s", port, st->udp[i].svc->name);
		return -EADDRINUSE;
	}
	if (st->nb_udp == FWD_LOCAL_UDP_MAX) {
		snprintf(err, errlen, "more than %d local UDP ports", FWD_LOCAL_UDP_MAX);
		return -ENOSPC;
	}
	st->udp[st->nb_udp].port = port;
	st->udp[st->nb_udp].port_hi = port;
	st->udp[st->nb_udp++].svc = svc;
	return 0;
}

/* ---- next-hop kinds of features (nh_kind.h) ---------------------------- */

const struct fwd_nh_kind *fwd_nh_kinds[FIB_KIND_MAX];

void fwd_nh_kind_set(unsigned kind, const struct fwd_nh_kind *k)
{
	if (kind != FIB_KIND_PATHGRP || fwd_nh_kinds[kind] != NULL) {
		fprintf(stderr, "vbrd: next-hop kind %u for %s: not the pipeline's or taken\n",
			kind, k->name);
		abort();
	}
	fwd_nh_kinds[kind] = k;
}

unsigned fwd_nh_kind_register(const struct fwd_nh_kind *k)
{
	if (fwd_nh_kind_find(k->name) >= 0) {
		fprintf(stderr, "vbrd: next-hop kind %s registered twice\n", k->name);
		abort();
	}
	for (unsigned kind = FIB_KIND_FEATURE; kind < FIB_KIND_MAX; kind++) {
		if (fwd_nh_kinds[kind] == NULL) {
			fwd_nh_kinds[kind] = k;
			return kind;
		}
	}
	fprintf(stderr, "vbrd: no FIB kind left for %s (FIB_KIND_MAX %u)\n", k->name, FIB_KIND_MAX);
	abort();
}

int fwd_nh_kind_find(const char *name)
{
	for (unsigned kind = 0; kind < FIB_KIND_MAX; kind++)
		if (fwd_nh_kinds[kind] != NULL && (fwd_nh_kinds[kind]->name == name ||
						   strcmp(fwd_nh_kinds[kind]->name, name) == 0))
			return (int)kind;
	return -ENOENT;
}

bool fwd_value_via_iface(const struct fwd_state *st, uint64_t value, uint16_t iface)
{
	uint32_t kind = FIB_NH_KIND(value), idx = FIB_NH_INDEX(value);

	switch (kind) {
	case FIB_KIND_NEXTHOP:
		return idx < (uint32_t)st->nb_nexthops && st->nexthops[idx].iface == iface;
	case FIB_KIND_ECMP:
		if (idx >= (uint32_t)st->nb_ecmp)
			return false;
		for (unsigned k = 0; k < st->ecmp[idx].nb; k++)
			if (st->nexthops[st->ecmp[idx].nh[k]].iface == iface)
				return true;
		return false;
	case FIB_KIND_PATHGRP: {
		if (idx >= (uint32_t)st->nb_path_groups)
			return false;
		const struct fwd_path_group *g = &st->path_groups[idx];
		for (unsigned k = 0; k < g->nb_paths; k++)
			if (st->tunnels[st->paths[g->paths[k]].tunnel].iface == iface)
				return true;
		return false;
	}
	default:
		return fwd_nh_kinds[kind] != NULL && fwd_nh_kinds[kind]->via_iface != NULL &&
		       fwd_nh_kinds[kind]->via_iface(st, idx, iface);
	}
}

bool fwd_route_via_iface(const struct fwd_state *st, int family, const void *addr, uint16_t iface)
{
	uint64_t value;

	if (family == AF_INET) {
		uint32_t a;
		memcpy(&a, addr, 4);
		rte_fib_lookup_bulk(st->ifaces[iface].fib, &a, &value, 1);
	} else {
		uint8_t a[1][16];
		memcpy(a[0], addr, 16);
		rte_fib6_lookup_bulk(st->ifaces[iface].fib6, a, &value, 1);
	}
	return fwd_value_via_iface(st, value, iface);
}
