/* SPDX-License-Identifier: BSD-3-Clause */
/* Failover group decisions (fgroup.h). */
#include "failover/bfd/fgroup.h"

/*
 * The wait for member @p m to return: starts when it is first seen up,
 * restarts when it flapped meanwhile (its Up count moved). @return true
 * when the hold-down has passed (or @p m was never up before: no wait).
 */
static bool hold_done(const struct fgroup_policy *p, struct fgroup_memory *mem, unsigned m,
		      bool first, const uint64_t ups[2], uint64_t now, struct fgroup_decision *d)
{
	if (first)
		return true;
	if (mem->hold_start == 0 || mem->hold_ups != ups[m]) {
		mem->hold_start = now;
		mem->hold_ups = ups[m];
	}
	if (now - mem->hold_start >= p->hold_down_ns)
		return true;
	d->wake = mem->hold_start + p->hold_down_ns;
	return false;
}

static void move(struct fgroup_decision *d, struct fgroup_memory *mem, uint32_t to, uint8_t reason,
		 int failed)
{
	d->move = true;
	d->to = to;
	d->reason = reason;
	d->failed = failed;
	mem->hold_start = 0;
}

void fgroup_decide(const struct fgroup_policy *p, struct fgroup_memory *mem, uint32_t sel,
		   const enum fgroup_health h[2], const uint64_t ups[2], uint64_t now,
		   struct fgroup_decision *d)
{
	bool first[2] = { h[0] == FGROUP_UP && !mem->seen_up[0],
			  h[1] == FGROUP_UP && !mem->seen_up[1] };

	*d = (struct fgroup_decision){ .failed = -1, .wake = UINT64_MAX };
	if (p->mode == CFG_FG_ACTIVE_STANDBY) {
		unsigned cur = sel == FGROUP_SEL_1 ? 1 : 0, oth = cur ^ 1;
		if (h[cur] == FGROUP_DOWN && h[oth] == FGROUP_UP)
			move(d, mem, oth,
			     mem->seen_up[cur] ? FGROUP_REASON_DOWN : FGROUP_REASON_STARTUP,
			     (int)cur);
		else if (cur == 1 && first[0])
			/* member 0's first Up takes the group, revertive or not:
			 * member 1 only had it for coming Up first */
			move(d, mem, FGROUP_SEL_0, FGROUP_REASON_STARTUP, -1);
		else if (cur == 1 && p->revertive && h[0] == FGROUP_UP) {
			if (hold_done(p, mem, 0, false, ups, now, d))
				move(d, mem, FGROUP_SEL_0, FGROUP_REASON_FAILBACK, -1);
		} else if (h[0] != FGROUP_UP)
			mem->hold_start = 0; /* down again: the wait starts over */
	} else {
		bool in[2] = { sel != FGROUP_SEL_1, sel != FGROUP_SEL_0 };
		bool ok[2] = { h[0] == FGROUP_UP || (h[0] == FGROUP_ADMIN && in[0]),
			       h[1] == FGROUP_UP || (h[1] == FGROUP_ADMIN && in[1]) };
		if (in[0] && in[1]) {
			for (unsigned i = 0; i < 2; i++)
				if (!ok[i] && ok[i ^ 1]) {
					move(d, mem, i ^ 1,
					     mem->seen_up[i] ? FGROUP_REASON_DOWN
							     : FGROUP_REASON_STARTUP,
					     (int)i);
					break;
				}
		} else {
			unsigned a = in[0] ? 0 : 1, o = a ^ 1;
			if (!ok[a] && h[o] == FGROUP_UP)
				move(d, mem, o, FGROUP_REASON_DOWN, (int)a);
			else if (h[o] != FGROUP_UP)
				mem->hold_start = 0;
			else if (hold_done(p, mem, o, first[o], ups, now, d))
				move(d, mem, FGROUP_SEL_BOTH,
				     first[o] ? FGROUP_REASON_STARTUP : FGROUP_REASON_RESTORED, -1);
		}
	}
	for (unsigned i = 0; i < 2; i++)
		if (h[i] == FGROUP_UP)
			mem->seen_up[i] = true;
}
