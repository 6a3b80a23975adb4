/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path's FIB lookup of a burst whose packets may be of several
 * VRFs: each packet in its ingress interface's VRF (fwd_iface.fib, .fib6).
 * A burst of one VRF (the common one) is one rte_fib_lookup_bulk(). A
 * mixed IPv4 one (a trunk carrying many VPCs interleaved) is looked up a
 * packet at a time in each VRF's DIR24_8 tables, without a call
 * (fib_lookup4_one(): rte_fib has only the bulk lookup, whose call costs
 * more than one packet's lookup). A mixed IPv6 one is one bulk lookup per
 * VRF it holds, its destinations gathered by VRF and the values scattered
 * back when a VRF comes back after another, or one per run.
 */
#ifndef VBRD_VRF_LOOKUP_H
#define VBRD_VRF_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_fib.h>
#include <rte_fib6.h>

#include "pipeline/fwd.h"
#include "pipeline/worker.h"

/* The interface index of packet @p i: a uint16_t every @p stride bytes from @p ifc. */
static inline uint16_t vrf_lookup_iface(const void *ifc, size_t stride, unsigned i)
{
	uint16_t v;

	memcpy(&v, (const char *)ifc + (size_t)i * stride, sizeof(v));
	return v;
}

/*
 * Each packet's VRF into @p vrf; @return the number of runs of one VRF
 * (1: all the same), and in *@p distinct (when not NULL) how many VRFs
 * there are. A packet by the same interface as the one before takes its
 * VRF without looking.
 */
static inline unsigned vrf_lookup_vrfs(const struct fwd_state *st, const void *ifc, size_t stride,
				       unsigned n, uint16_t *vrf, unsigned *distinct)
{
	uint16_t prev = vrf_lookup_iface(ifc, stride, 0), v = st->ifaces[prev].vrf;
	uint64_t seen[CFG_MAX_VRFS / 64] = { 0 };
	unsigned runs = 1;

	vrf[0] = v;
	seen[v / 64] |= 1ull << (v % 64);
	for (unsigned i = 1; i < n; i++) {
		uint16_t c = vrf_lookup_iface(ifc, stride, i);
		if (c != prev) {
			uint16_t w = st->ifaces[c].vrf;
			if (w != v) {
				runs++;
				if (distinct != NULL)
					seen[w / 64] |= 1ull << (w % 64);
			}
			v = w;
			prev = c;
		}
		vrf[i] = v;
	}
	if (distinct != NULL) {
		*distinct = 0;
		for (unsigned k = 0; runs > 1 && k < CFG_MAX_VRFS / 64; k++)
			*distinct += (unsigned)__builtin_popcountll(seen[k]);
	}
	return runs;
}

/*
 * The groups of a mixed burst by VRF: @p gvrf[g] the VRF of group g, in the
 * order first seen, @p first[g] where its packets start in @p pos (a stable
 * counting sort: @p pos lists the packets group by group), first[ng] = n.
 * @return ng. The counts live per lcore, zero between calls.
 */
static inline unsigned vrf_lookup_group(const uint16_t *vrf, unsigned n, uint16_t *pos,
					uint16_t *first, uint16_t *gvrf)
{
	static __thread uint16_t cnt[CFG_MAX_VRFS];
	uint16_t at[WORKER_MAX_BURST];
	unsigned ng = 0;

	for (unsigned i = 0; i < n; i++)
		if (cnt[vrf[i]]++ == 0)
			gvrf[ng++] = vrf[i];
	first[0] = 0;
	for (unsigned g = 0; g < ng; g++) {
		first[g + 1] = (uint16_t)(first[g] + cnt[gvrf[g]]);
		cnt[gvrf[g]] = (uint16_t)g; /* now: the group of the VRF */
		at[g] = first[g];
	}
	for (unsigned i = 0; i < n; i++)
		pos[at[cnt[vrf[i]]]++] = (uint16_t)i;
	for (unsigned g = 0; g < ng; g++)
		cnt[gvrf[g]] = 0;
	return ng;
}

/**
 * Look up @p n IPv4 destinations, each in the FIB of its packet's VRF: one
 * bulk lookup for a burst of one VRF; for a mixed one, each packet in its
 * VRF's DIR24_8 tables without a call (fib_lookup4_one(): a bulk call a
 * packet costs more than its lookup), or a bulk lookup of one for a VRF
 * whose tables were not verified.
 *
 * @param st      the forwarding state
 * @param ifc     the first packet's ingress interface index (uint16_t)
 * @param stride  bytes from one packet's interface index to the next's
 * @param dst     destinations, host order
 * @param nh      FIB values out
 * @param n       1..WORKER_MAX_BURST
 */
static inline void vrf_lookup4(const struct fwd_state *st, const void *ifc, size_t stride,
			       const uint32_t *dst, uint64_t *nh, unsigned n)
{
	uint16_t vrf[WORKER_MAX_BURST];

	if (likely(st->nb_vrfs == 1)) {
		rte_fib_lookup_bulk(st->vrfs[0].fib, (uint32_t *)(uintptr_t)dst, nh, n);
		return;
	}
	unsigned runs = vrf_lookup_vrfs(st, ifc, stride, n, vrf, NULL);
	if (likely(runs == 1)) {
		rte_fib_lookup_bulk(st->vrfs[vrf[0]].fib, (uint32_t *)(uintptr_t)dst, nh, n);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct fwd_vrf *fv = &st->vrfs[vrf[i]];
		if (likely(fv->tbl24 != NULL))
			nh[i] = fib_lookup4_one(fv->tbl24, fv->tbl8, dst[i]);
		else
			rte_fib_lookup_bulk(fv->fib, (uint32_t *)(uintptr_t)dst + i, nh + i, 1);
	}
}

/** As vrf_lookup4(), IPv6: @p dst 16 bytes each, network order. */
static inline void vrf_lookup6(const struct fwd_state *st, const void *ifc, size_t stride,
			       uint8_t (*dst)[16], uint64_t *nh, unsigned n)
{
	uint16_t vrf[WORKER_MAX_BURST];

	if (likely(st->nb_vrfs == 1)) {
		rte_fib6_lookup_bulk(st->vrfs[0].fib6, dst, nh, (int)n);
		return;
	}
	unsigned distinct, runs = vrf_lookup_vrfs(st, ifc, stride, n, vrf, &distinct);
	if (likely(runs == 1)) {
		rte_fib6_lookup_bulk(st->vrfs[vrf[0]].fib6, dst, nh, (int)n);
		return;
	}
	if (distinct == runs) {
		for (unsigned i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && vrf[j] == vrf[i]; j++)
				;
			rte_fib6_lookup_bulk(st->vrfs[vrf[i]].fib6, dst + i, nh + i, (int)(j - i));
		}
		return;
	}
	uint16_t pos[WORKER_MAX_BURST], first[WORKER_MAX_BURST + 1], gvrf[WORKER_MAX_BURST];
	unsigned ng = vrf_lookup_group(vrf, n, pos, first, gvrf);
	uint8_t gdst[WORKER_MAX_BURST][16];
	uint64_t gnh[WORKER_MAX_BURST];
	for (unsigned k = 0; k < n; k++)
		memcpy(gdst[k], dst[pos[k]], 16);
	for (unsigned g = 0; g < ng; g++)
		rte_fib6_lookup_bulk(st->vrfs[gvrf[g]].fib6, gdst + first[g], gnh + first[g],
				     (int)(first[g + 1] - first[g]));
	for (unsigned k = 0; k < n; k++)
		nh[pos[k]] = gnh[k];
}

#endif
