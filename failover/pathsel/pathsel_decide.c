/* SPDX-License-Identifier: BSD-3-Clause */
/* Path selection: plane metrics from STAMP replies, and the choice (pathsel.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "failover/pathsel/pathsel_decide.h"

/* ---- Part 1: a plane's metrics ---- */

static inline struct pathsel_probe *slot(const struct pathsel_plane *p, uint64_t seq)
{
	return &p->ring[seq % p->window];
}

/* Probe @p seq is among the last `recent` sent. */
static inline bool in_recent(const struct pathsel_plane *p, uint64_t seq)
{
	return seq + p->recent >= p->next_seq;
}

static unsigned nb_blocks(uint32_t window)
{
	return (window + PATHSEL_BLOCK - 1) / PATHSEL_BLOCK;
}

/*
 * The RTT minimum over the window: a minimum per block of PATHSEL_BLOCK ring
 * slots, recomputed (PATHSEL_BLOCK slots) only when its minimum leaves; the
 * window's is the minimum of at most PATHSEL_MAX_WINDOW / PATHSEL_BLOCK blocks.
 */
static void block_recompute(struct pathsel_plane *p, unsigned b)
{
	uint32_t end = (b + 1) * PATHSEL_BLOCK < p->window ? (b + 1) * PATHSEL_BLOCK : p->window;
	uint32_t min = UINT32_MAX;

	for (uint32_t i = b * PATHSEL_BLOCK; i < end; i++)
		if (p->ring[i].state == PATHSEL_PROBE_ANSWERED && p->ring[i].rtt_ns < min)
			min = p->ring[i].rtt_ns;
	p->block_min[b] = min;
}

static void lose(struct pathsel_plane *p, struct pathsel_probe *r, uint64_t seq)
{
	r->state = PATHSEL_PROBE_LOST;
	p->w_lost++;
	if (in_recent(p, seq))
		p->r_lost++;
	p->lost_total++;
	/* The long-term loss is the path's chronic loss: an outage (a run of
	 * more than PATHSEL_OUTAGE_RUN lost probes) is the hard-failure rule's
	 * business, and counting it would keep the path from being a
	 * candidate for a loss switch for PATHSEL_LONG_WINDOWS windows after it
	 * healed. Its first PATHSEL_OUTAGE_RUN losses count. */
	uint64_t run = seq + 1 > p->hi_ans1 ? seq + 1 - p->hi_ans1 : 1;
	r->in_long = run <= PATHSEL_OUTAGE_RUN;
	if (!r->in_long)
		goto runs;
	if (p->long_n < PATHSEL_LONG_WINDOWS * p->window)
		p->long_n++;
	p->loss_long += (1.0 - p->loss_long) / p->long_n;
runs:
	/* the run of answers restarts after this loss: those answered in time
	 * above it (reordered) are already in it */
	p->consec_ans = p->ahead;
}

/*
 * Move judge_seq over the judged probes, judging lost on the way every
 * pending probe below @p limit, or (when @p timeout) outstanding longer
 * than it at @p now. Each probe is passed once: O(1) amortised.
 */
static void judge(struct pathsel_plane *p, uint64_t limit, uint64_t now, uint64_t timeout)
{
	while (p->judge_seq < p->next_seq) {
		struct pathsel_probe *r = slot(p, p->judge_seq);
		if (r->state == PATHSEL_PROBE_ANSWERED)
			p->ahead--; /* answered in time: late ones are below judge_seq */
		else if (r->state == PATHSEL_PROBE_PENDING &&
			 (p->judge_seq < limit ||
			  (timeout && now > r->t_tx && now - r->t_tx > timeout)))
			lose(p, r, p->judge_seq);
		else
			break;
		p->judge_seq++;
	}
}

size_t pathsel_plane_mem_size(uint32_t window)
{
	return (size_t)window * sizeof(struct pathsel_probe);
}

int pathsel_plane_init(struct pathsel_plane *p, struct pathsel_probe *ring, uint32_t window)
{
	if (ring == NULL || window < 10 || window > PATHSEL_MAX_WINDOW)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	memset(ring, 0, pathsel_plane_mem_size(window));
	p->ring = ring;
	p->window = window;
	p->recent = window / 4;
	for (unsigned b = 0; b < PATHSEL_MAX_WINDOW / PATHSEL_BLOCK; b++)
		p->block_min[b] = UINT32_MAX;
	return 0;
}

uint32_t pathsel_plane_tx(struct pathsel_plane *p, uint64_t now)
{
	uint64_t seq = p->next_seq;
	struct pathsel_probe *r = slot(p, seq);

	if (seq >= p->window) {
		/* probe seq - window leaves the window: judged (lost if still
		 * pending), then its counts go */
		uint64_t old = seq - p->window;
		judge(p, old + 1, now, 0);
		if (r->state == PATHSEL_PROBE_ANSWERED) {
			p->w_answered--;
			p->w_rtt_sum -= r->rtt_ns;
			p->w_fwd_lost -= r->fwd_gap;
			p->w_rev_lost -= r->rev_gap;
			r->state = PATHSEL_PROBE_EMPTY;
			unsigned b = (unsigned)(seq % p->window) / PATHSEL_BLOCK;
			if (r->rtt_ns == p->block_min[b])
				block_recompute(p, b);
		} else if (r->state == PATHSEL_PROBE_LOST) {
			p->w_lost--;
		}
	}
	if (seq >= p->recent) {
		const struct pathsel_probe *o = slot(p, seq - p->recent);
		if (o->state == PATHSEL_PROBE_ANSWERED)
			p->r_answered--;
		else if (o->state == PATHSEL_PROBE_LOST)
			p->r_lost--;
	}
	*r = (struct pathsel_probe){ .t_tx = now, .state = PATHSEL_PROBE_PENDING };
	p->next_seq = seq + 1;
	p->tx_total++;
	return (uint32_t)seq;
}

/*
 * Stateful reflector (RFC 8762 §4.3.1): between the previous reply in
 * sequence order (s1, r1) and this one (s2, r2), s2 - s1 - 1 probes went
 * unanswered, r2 - r1 - 1 of them reached the reflector: those were lost
 * on the way back, the others on the way out. Kept in the reply's record
 * so that they leave the window with it.
 */
static void split_loss(struct pathsel_plane *p, struct pathsel_probe *r, uint64_t s, uint32_t rseq)
{
	if (p->ref_last_seq1 != 0 && s + 1 > p->ref_last_seq1) {
		uint64_t ds = s + 1 - p->ref_last_seq1;
		uint32_t dr = rseq - p->ref_last_rseq;
		if (dr >= 1 && dr <= ds && ds <= p->window) {
			r->fwd_gap = (uint16_t)(ds - dr);
			r->rev_gap = (uint16_t)(dr - 1);
			p->w_fwd_lost += r->fwd_gap;
			p->w_rev_lost += r->rev_gap;
		}
	}
	if (s + 1 > p->ref_last_seq1) {
		p->ref_last_seq1 = s + 1;
		p->ref_last_rseq = rseq;
	}
}

bool pathsel_plane_rx(struct pathsel_plane *p, uint32_t seq, uint64_t t1_ns, uint64_t t2_ns,
		      uint64_t t3_ns, uint64_t t4_ns, uint32_t reflector_seq,
		      bool reflector_stateful, uint64_t now)
{
	uint32_t back = (uint32_t)p->next_seq - seq; /* 1: the latest sent */

	if (back == 0 || back > p->window || back > p->next_seq)
		return false;
	uint64_t s = p->next_seq - back;
	struct pathsel_probe *r = slot(p, s);
	if (r->state != PATHSEL_PROBE_PENDING && r->state != PATHSEL_PROBE_LOST)
		return false; /* a duplicate */
	/* RFC 8762 §4.2: RTT = (t4 - t1) - (t3 - t2), each difference within one clock */
	if (t4_ns < t1_ns || t3_ns < t2_ns || t3_ns - t2_ns > t4_ns - t1_ns ||
	    (t4_ns - t1_ns) - (t3_ns - t2_ns) > PATHSEL_RTT_MAX_NS)
		return false;
	uint32_t rtt = (uint32_t)((t4_ns - t1_ns) - (t3_ns - t2_ns));

	bool late = r->state == PATHSEL_PROBE_LOST;
	if (late) {
		p->w_lost--;
		if (in_recent(p, s))
			p->r_lost--;
		p->late_total++;
		r->late = 1;
		if (r->in_long) {
			p->loss_long -= 1.0 / p->long_n; /* undo its loss */
			if (p->loss_long < 0)
				p->loss_long = 0;
		}
	} else {
		if (p->long_n < PATHSEL_LONG_WINDOWS * p->window)
			p->long_n++;
		p->loss_long -= p->loss_long / p->long_n;
		p->ahead++;
		p->consec_ans++;
		if (s + 1 > p->hi_ans1)
			p->hi_ans1 = s + 1;
	}
	r->state = PATHSEL_PROBE_ANSWERED;
	r->rtt_ns = rtt;
	p->w_answered++;
	p->w_rtt_sum += rtt;
	if (in_recent(p, s))
		p->r_answered++;
	unsigned b = (unsigned)(s % p->window) / PATHSEL_BLOCK;
	if (rtt < p->block_min[b])
		p->block_min[b] = rtt;
	p->stateful = reflector_stateful;
	if (reflector_stateful && !late)
		split_loss(p, r, s, reflector_seq);

	/* arrival order: the recent RTTs and RFC 3550 §6.4.1 / A.8 jitter */
	p->recent_rtt[p->nb_recent % PATHSEL_RECENT_RTTS] = rtt;
	int64_t transit = (int64_t)(t2_ns - t1_ns);
	if (p->nb_recent > 0) {
		int64_t d = transit - p->last_transit;
		if (d < 0)
			d = -d;
		p->jitter16 = (uint64_t)((int64_t)p->jitter16 + d -
					 (((int64_t)p->jitter16 + 8) >> 4));
	}
	p->nb_recent++;
	p->last_transit = transit;
	p->last_rx = now;
	p->rx_total++;

	/* a reply PATHSEL_REORDER_PROBES later loses the probes still pending before it */
	judge(p, s >= PATHSEL_REORDER_PROBES ? s - PATHSEL_REORDER_PROBES + 1 : 0, now, 0);
	return true;
}

void pathsel_plane_expire(struct pathsel_plane *p, uint64_t now, uint64_t timeout_ns)
{
	judge(p, 0, now, timeout_ns ? timeout_ns : 1);
}

static unsigned recent_rtts(const struct pathsel_plane *p, uint32_t *a)
{
	uint64_t nb = p->nb_recent;
	unsigned n = nb < PATHSEL_RECENT_RTTS ? (unsigned)nb : PATHSEL_RECENT_RTTS;

	for (unsigned i = 0; i < n; i++)
		a[i] = p->recent_rtt[i];
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t pathsel_plane_timeout_ns(const struct pathsel_plane *p)
{
	uint32_t a[PATHSEL_RECENT_RTTS];
	unsigned n = recent_rtts(p, a);

	if (n == 0)
		return PATHSEL_TIMEOUT_MIN_NS;
	/* the median, not the largest: one reply that waited out a stall
	 * (hundreds of ms) must not stretch the next detections */
	qsort(a, n, sizeof(a[0]), cmp_u32);
	uint64_t t = 3 * (uint64_t)a[n / 2];
	return t > PATHSEL_TIMEOUT_MIN_NS ? t : PATHSEL_TIMEOUT_MIN_NS;
}

static uint32_t ppm(uint64_t k, uint64_t n)
{
	return n ? (uint32_t)(k * 1000000u / n) : 0;
}

void pathsel_plane_metrics(const struct pathsel_plane *p, struct pathsel_metrics *m, bool with_p99)
{
	uint32_t window = p->window < PATHSEL_MAX_WINDOW ? p->window : PATHSEL_MAX_WINDOW;
	uint64_t judge_seq = p->judge_seq, next_seq = p->next_seq, hi = p->hi_ans1;
	uint64_t ahead = p->ahead;
	uint32_t a[PATHSEL_RECENT_RTTS];

	memset(m, 0, sizeof(*m));
	m->answered = p->w_answered;
	m->lost = p->w_lost;
	m->sent = m->answered + m->lost;
	uint64_t outstanding = next_seq > judge_seq ? next_seq - judge_seq : 0;
	outstanding = outstanding > ahead ? outstanding - ahead : 0;
	m->pending = outstanding < window ? (uint32_t)outstanding : window;
	m->loss_ppm = ppm(m->lost, m->sent);
	m->stateful = p->stateful;
	if (m->stateful) {
		m->fwd_lost = p->w_fwd_lost;
		m->rev_lost = p->w_rev_lost;
		m->fwd_loss_ppm = ppm(m->fwd_lost, m->sent);
		m->rev_loss_ppm = ppm(m->rev_lost, m->sent);
	}
	m->recent_sent = p->r_answered + p->r_lost;
	m->recent_lost = p->r_lost;
	m->loss_long_ppm = (uint32_t)(p->loss_long * 1e6);
	m->long_n = p->long_n;
	m->rtt_mean_ns = m->answered ? p->w_rtt_sum / m->answered : 0;
	uint32_t min = UINT32_MAX;
	for (unsigned b = 0; b < nb_blocks(window); b++)
		if (p->block_min[b] < min)
			min = p->block_min[b];
	m->rtt_min_ns = min == UINT32_MAX ? 0 : min;

	unsigned n = recent_rtts(p, a);
	for (unsigned i = 1; i < n; i++) /* insertion sort of at most 8 */
		for (unsigned j = i; j > 0 && a[j - 1] > a[j]; j--) {
			uint32_t t = a[j];
			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	if (n)
		m->rtt_recent_ns = n % 2 ? a[n / 2] : ((uint64_t)a[n / 2 - 1] + a[n / 2]) / 2;
	m->jitter_ns = p->jitter16 >> 4;
	m->consecutive_lost = judge_seq > hi ? judge_seq - hi : 0;
	m->consecutive_answered = p->consec_ans;
	m->last_rx = p->last_rx;

	if (with_p99) {
		uint32_t buf[PATHSEL_MAX_WINDOW];
		unsigned c = 0;
		for (uint32_t i = 0; i < window; i++) {
			struct pathsel_probe r = p->ring[i];
			if (r.state == PATHSEL_PROBE_ANSWERED)
				buf[c++] = r.rtt_ns;
		}
		if (c) {
			qsort(buf, c, sizeof(buf[0]), cmp_u32);
			/* nearest rank: the smallest RTT with 99 % of them at or below it */
			m->rtt_p99_ns = buf[(c * 99 + 99) / 100 - 1];
		}
	}
}

void pathsel_path_metrics(const struct pathsel_metrics *planes, int nb_planes,
			  uint16_t healthy_mask, struct pathsel_metrics *out)
{
	uint64_t rtt_sum = 0, recent_sum = 0, recent_n = 0, long_sum = 0;
	bool any = false;

	memset(out, 0, sizeof(*out));
	out->stateful = true;
	for (int j = 0; j < nb_planes && j < PATHSEL_MAX_PLANES; j++) {
		const struct pathsel_metrics *m = &planes[j];
		if (!(healthy_mask & (1u << j)))
			continue;
		out->sent += m->sent;
		out->answered += m->answered;
		out->lost += m->lost;
		out->pending += m->pending;
		out->stateful &= m->stateful;
		out->fwd_lost += m->fwd_lost;
		out->rev_lost += m->rev_lost;
		out->recent_sent += m->recent_sent;
		out->recent_lost += m->recent_lost;
		long_sum += (uint64_t)m->loss_long_ppm * m->long_n;
		out->long_n += m->long_n;
		rtt_sum += m->rtt_mean_ns * m->answered;
		if (m->rtt_recent_ns || m->last_rx) {
			recent_sum += m->rtt_recent_ns;
			recent_n++;
		}
		if (m->answered && (out->rtt_min_ns == 0 || m->rtt_min_ns < out->rtt_min_ns))
			out->rtt_min_ns = m->rtt_min_ns;
		if (m->rtt_p99_ns > out->rtt_p99_ns)
			out->rtt_p99_ns = m->rtt_p99_ns;
		if (m->jitter_ns > out->jitter_ns)
			out->jitter_ns = m->jitter_ns;
		if (!any || m->consecutive_lost < out->consecutive_lost)
			out->consecutive_lost = m->consecutive_lost;
		if (m->consecutive_answered > out->consecutive_answered)
			out->consecutive_answered = m->consecutive_answered;
		if (m->last_rx > out->last_rx)
			out->last_rx = m->last_rx;
		any = true;
	}
	if (!any) {
		memset(out, 0, sizeof(*out));
		return;
	}
	out->loss_ppm = ppm(out->lost, out->sent);
	out->loss_long_ppm = out->long_n ? (uint32_t)(long_sum / out->long_n) : 0;
	if (out->stateful) {
		out->fwd_loss_ppm = ppm(out->fwd_lost, out->sent);
		out->rev_loss_ppm = ppm(out->rev_lost, out->sent);
	} else {
		out->fwd_lost = out->rev_lost = 0;
	}
	out->rtt_mean_ns = out->answered ? rtt_sum / out->answered : 0;
	out->rtt_recent_ns = recent_n ? recent_sum / recent_n : 0;
}

/* ---- Part 2: the decision ---- */

/* Wilson score interval (E. B. Wilson, JASA 1927) of k lost of n. */
static void wilson(uint32_t k, uint32_t n, double z, double *lo, double *hi)
{
	double p = (double)k / n, z2 = z * z;
	double c = p + z2 / (2.0 * n);
	double d = z * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n));
	double den = 1 + z2 / n;

	*lo = (c - d) / den > 0 ? (c - d) / den : 0;
	*hi = (c + d) / den < 1 ? (c + d) / den : 1;
}

double pathsel_loss_lo(uint32_t k, uint32_t n, double z)
{
	double lo, hi;
	if (n == 0)
		return 0;
	wilson(k, n, z, &lo, &hi);
	return lo;
}

double pathsel_loss_hi(uint32_t k, uint32_t n, double z)
{
	double lo, hi;
	if (n == 0)
		return 1;
	wilson(k, n, z, &lo, &hi);
	return hi;
}

/* A usable path as the tiers compare it. */
struct path_view {
	bool usable;
	uint32_t cost;
	struct pathsel_metrics m; /* over its healthy planes */
	struct pathsel_metrics
		all;       /* over all its planes: what a path without healthy ones last showed */
	double loss;       /* window, point estimate */
	double lo_violate; /* max(lo(window) at PATHSEL_Z_VIOLATE, lo(recent) at PATHSEL_Z_RECENT) */
	double lo_window;  /* lo(window) at PATHSEL_Z_VIOLATE */
	double lo_hold;    /* as lo_violate, both at PATHSEL_Z_HOLD */
	double lo_hold_window; /* lo(window) at PATHSEL_Z_HOLD */
	double lo_meet;        /* lo(window) at PATHSEL_Z_MEET */
	double hi_meet;        /* hi(window) at PATHSEL_Z_MEET */
};

static bool violates(const struct path_view *v, double max_loss)
{
	return v->lo_violate > max_loss;
}

static bool meets(const struct path_view *v, double max_loss)
{
	uint32_t k_long = (uint32_t)((uint64_t)v->m.loss_long_ppm * v->m.long_n / 1000000u);
	return v->m.sent >= PATHSEL_MIN_JUDGED && v->hi_meet <= max_loss &&
	       pathsel_loss_hi(k_long, v->m.long_n, PATHSEL_Z_MEET) <= max_loss;
}

static double score(const struct cfg_ps_tier *t, const struct path_view *v, double loss)
{
	return t->latency_weight * (double)v->m.rtt_recent_ns / 1e6 +
	       t->jitter_weight * (double)v->m.jitter_ns / 1e6 + t->loss_weight * loss * 100.0 +
	       t->cost_weight * (double)v->cost;
}

/* Path @p a ranks before path @p b for tier @p t (pathsel.h rule 3). */
static bool ranks_before(const struct cfg_ps_tier *t, const struct path_view *v, int a, int b)
{
	double max_loss = t->max_loss_ppm / 1e6;
	bool va = violates(&v[a], max_loss), vb = violates(&v[b], max_loss);

	if (va != vb)
		return !va;
	if (va && v[a].m.loss_ppm != v[b].m.loss_ppm)
		return v[a].m.loss_ppm < v[b].m.loss_ppm;
	switch (t->objective) {
	case PATHSEL_OBJ_WEIGHTED: {
		double sa = score(t, &v[a], v[a].loss), sb = score(t, &v[b], v[b].loss);
		if (sa != sb)
			return sa < sb;
		break;
	}
	case PATHSEL_OBJ_COST:
		/* equal cost: the path listed first (bronze does not chase
		 * latency, so noise in the RTT never moves it) */
		if (v[a].cost != v[b].cost)
			return v[a].cost < v[b].cost;
		break;
	case PATHSEL_OBJ_LATENCY:
		if (v[a].m.rtt_recent_ns != v[b].m.rtt_recent_ns)
			return v[a].m.rtt_recent_ns < v[b].m.rtt_recent_ns;
		if (v[a].m.jitter_ns != v[b].m.jitter_ns)
			return v[a].m.jitter_ns < v[b].m.jitter_ns;
		break;
	}
	return a < b;
}

static int best_path(const struct cfg_ps_tier *t, const struct path_view *v, int nb_paths)
{
	int best = -1;
	for (int i = 0; i < nb_paths; i++)
		if (v[i].usable && (best < 0 || ranks_before(t, v, i, best)))
			best = i;
	return best;
}

static bool latency_beats(const struct pathsel_group_params *gp, const struct path_view *c,
			  const struct path_view *a)
{
	uint64_t margin = a->m.rtt_recent_ns * gp->margin_ppm / 1000000u;
	if (margin < gp->margin_min_ns)
		margin = gp->margin_min_ns;
	return c->m.rtt_recent_ns + margin < a->m.rtt_recent_ns;
}

/*
 * The loss the weighted scores of @p c and @p a use: their own when their
 * intervals at PATHSEL_Z_VIOLATE do not overlap (the difference is significant),
 * else the active's for both (equal, as far as the probes tell).
 */
static void score_losses(const struct path_view *c, const struct path_view *a, double *lc,
			 double *la)
{
	double lo_c = pathsel_loss_lo(c->m.lost, c->m.sent, PATHSEL_Z_VIOLATE);
	double hi_c = pathsel_loss_hi(c->m.lost, c->m.sent, PATHSEL_Z_VIOLATE);
	double lo_a = pathsel_loss_lo(a->m.lost, a->m.sent, PATHSEL_Z_VIOLATE);
	double hi_a = pathsel_loss_hi(a->m.lost, a->m.sent, PATHSEL_Z_VIOLATE);

	if (hi_c < lo_a || lo_c > hi_a) {
		*lc = c->loss;
		*la = a->loss;
	} else {
		*lc = *la = a->loss;
	}
}

/*
 * Why candidate @p c beats active @p a for tier @p t (pathsel.h rule 4),
 * PATHSEL_REASON_NONE: it does not. @p holding: the active was beaten at the
 * previous decision; its violation is then judged at PATHSEL_Z_HOLD
 * (hysteresis: the loss that started a hold keeps it while it lasts).
 */
static enum pathsel_reason beats(const struct pathsel_group_params *gp, const struct cfg_ps_tier *t,
				 const struct path_view *c, const struct path_view *a, bool holding)
{
	double max_loss = t->max_loss_ppm / 1e6;
	bool vc = violates(c, max_loss);
	bool va = (holding ? a->lo_hold : a->lo_violate) > max_loss;

	if (va) {
		/* Within the bound, and at most half as lossy as the active over
		 * the window (point estimates, with half the bound as slack): a
		 * candidate about as lossy as the active (two paths near the
		 * bound, 2 % each way against bronze's 5 %) does not take its
		 * place on one of the active's chance excursions. */
		if (!vc && meets(c, max_loss) && 2 * c->loss + max_loss / 2 <= a->loss)
			return PATHSEL_REASON_LOSS;
		if (vc && c->m.sent >= PATHSEL_MIN_JUDGED && c->hi_meet < a->lo_window &&
		    2 * c->m.loss_long_ppm <= a->m.loss_long_ppm)
			return PATHSEL_REASON_LOSS;
		return PATHSEL_REASON_NONE;
	}
	if (vc || c->m.sent < PATHSEL_MIN_JUDGED)
		return PATHSEL_REASON_NONE;
	switch (t->objective) {
	case PATHSEL_OBJ_LATENCY:
		return latency_beats(gp, c, a) ? PATHSEL_REASON_LATENCY : PATHSEL_REASON_NONE;
	case PATHSEL_OBJ_WEIGHTED: {
		double lc, la;
		score_losses(c, a, &lc, &la);
		double sc = score(t, c, lc), sa = score(t, a, la);
		double margin = sa * gp->margin_ppm / 1e6;
		if (margin < gp->margin_min_score)
			margin = gp->margin_min_score;
		return sc + margin < sa ? PATHSEL_REASON_SCORE : PATHSEL_REASON_NONE;
	}
	case PATHSEL_OBJ_COST:
		if (!meets(c, max_loss))
			return PATHSEL_REASON_NONE;
		if (c->cost < a->cost)
			return PATHSEL_REASON_COST;
		return PATHSEL_REASON_NONE;
	}
	return PATHSEL_REASON_NONE;
}

struct ev_out {
	struct pathsel_event *ev;
	unsigned cap, n;
	struct pathsel_group_mem *mem;
	uint64_t now;
};

static struct pathsel_event *ev_push(struct ev_out *o, enum pathsel_event_kind kind,
				     enum pathsel_reason reason, int tier, int old_path,
				     int new_path, int plane)
{
	if (o->n >= o->cap) {
		o->mem->events_dropped++;
		return NULL;
	}
	struct pathsel_event *e = &o->ev[o->n++];
	*e = (struct pathsel_event){ .kind = (uint8_t)kind,
				     .reason = (uint8_t)reason,
				     .tier = (int8_t)tier,
				     .old_path = (int8_t)old_path,
				     .new_path = (int8_t)new_path,
				     .plane = (int8_t)plane,
				     .t = o->now };
	return e;
}

static void ev_metrics(struct pathsel_event *e, const struct pathsel_metrics *old,
		       const struct pathsel_metrics *new)
{
	if (e == NULL)
		return;
	if (old) {
		e->old_rtt_ns = old->rtt_recent_ns;
		e->old_loss_ppm = old->loss_ppm;
		e->old_jitter_ns = old->jitter_ns;
	}
	if (new) {
		e->new_rtt_ns = new->rtt_recent_ns;
		e->new_loss_ppm = new->loss_ppm;
		e->new_jitter_ns = new->jitter_ns;
	}
}

/* Plane @p j of @p in (its window) is far lossier than the pooled healthy planes in @p others. */
static bool plane_degraded(const struct pathsel_group_params *gp, const struct pathsel_path_in *in,
			   int j, uint16_t others, bool was)
{
	const struct pathsel_metrics *m = &in->planes[j];
	struct pathsel_metrics o;
	double bound = gp->plane_max_loss_ppm / 1e6;

	pathsel_path_metrics(in->planes, in->nb_planes, others, &o);
	if (o.sent == 0 || m->sent == 0)
		return false;
	double lo = pathsel_loss_lo(m->lost, m->sent, PATHSEL_Z_VIOLATE);
	double p_o = (double)o.lost / o.sent;
	if (was) /* restored when no longer clearly above the bound or the others */
		return !(lo <= bound / 2 || lo <= p_o);
	return m->sent >= gp->window / 2 && lo > bound && p_o <= (double)m->lost / m->sent / 2 &&
	       pathsel_loss_hi(o.lost, o.sent, PATHSEL_Z_MEET) < lo;
}

/* Rule 1: the planes of path @p i. */
static void decide_planes(const struct pathsel_group_params *gp, const struct pathsel_path_in *in,
			  int i, struct pathsel_group_mem *mem, struct ev_out *o)
{
	int nb = in->nb_planes < PATHSEL_MAX_PLANES ? in->nb_planes : PATHSEL_MAX_PLANES;
	uint16_t all = (uint16_t)((1u << nb) - 1);
	uint16_t old = mem->healthy[i] & all;
	uint16_t up = mem->hard_up[i] & all, deg = mem->degraded[i] & all;

	for (int j = 0; j < nb; j++) {
		uint16_t bit = (uint16_t)(1u << j);
		const struct pathsel_metrics *m = &in->planes[j];
		if ((up & bit) && m->consecutive_lost >= gp->lost_down) {
			up &= (uint16_t)~bit;
			deg &= (uint16_t)~bit;
		} else if (!(up & bit) && m->consecutive_answered >= gp->lost_down) {
			up |= bit;
		}
	}
	for (int j = 0; j < nb; j++) {
		uint16_t bit = (uint16_t)(1u << j);
		if (!(up & bit))
			continue;
		uint16_t others = (uint16_t)(up & ~deg & ~bit);
		bool was = deg & bit;
		if (!was && others == 0)
			continue; /* never the last healthy plane */
		if (plane_degraded(gp, in, j, was ? (uint16_t)(up & ~deg) : others, was))
			deg |= bit;
		else
			deg &= (uint16_t)~bit;
	}
	if ((up & ~deg) == 0)
		deg = 0; /* the last hard-up planes serve, lossy or not */
	uint16_t healthy = (uint16_t)(up & ~deg);
	mem->hard_up[i] = up;
	mem->degraded[i] = deg;
	mem->healthy[i] = healthy;
	for (int j = 0; j < nb; j++) {
		uint16_t bit = (uint16_t)(1u << j);
		if ((old & bit) == (healthy & bit))
			continue;
		struct pathsel_event *e;
		if (healthy & bit)
			e = ev_push(o, PATHSEL_EV_PLANE_UP, PATHSEL_REASON_RESTORED, -1, i, i, j);
		else
			e = ev_push(o, PATHSEL_EV_PLANE_DOWN,
				    up & bit ? PATHSEL_REASON_PLANE_LOSS
					     : PATHSEL_REASON_PLANE_LOST,
				    -1, i, i, j);
		ev_metrics(e, NULL, &in->planes[j]);
	}
}

static void view_path(const struct pathsel_path_in *in, uint16_t healthy, struct path_view *v)
{
	pathsel_path_metrics(in->planes, in->nb_planes, healthy, &v->m);
	pathsel_path_metrics(in->planes, in->nb_planes, 0xffff, &v->all);
	v->cost = in->cost;
	v->loss = v->m.sent ? (double)v->m.lost / v->m.sent : 0;
	v->lo_window = pathsel_loss_lo(v->m.lost, v->m.sent, PATHSEL_Z_VIOLATE);
	double lo_r = pathsel_loss_lo(v->m.recent_lost, v->m.recent_sent, PATHSEL_Z_RECENT);
	v->lo_violate = v->lo_window > lo_r ? v->lo_window : lo_r;
	double hw = pathsel_loss_lo(v->m.lost, v->m.sent, PATHSEL_Z_HOLD);
	double hr = pathsel_loss_lo(v->m.recent_lost, v->m.recent_sent, PATHSEL_Z_HOLD);
	v->lo_hold = hw > hr ? hw : hr;
	v->lo_hold_window = hw;
	v->lo_meet = pathsel_loss_lo(v->m.lost, v->m.sent, PATHSEL_Z_MEET);
	v->hi_meet = pathsel_loss_hi(v->m.lost, v->m.sent, PATHSEL_Z_MEET);
}

static void switch_tier(struct ev_out *o, struct pathsel_group_mem *mem, const struct path_view *v,
			int tier, int to, enum pathsel_reason reason)
{
	int from = mem->active[tier];
	struct pathsel_event *e = ev_push(o, PATHSEL_EV_SWITCH, reason, tier, from, to, -1);

	if (reason == PATHSEL_REASON_LOSS || reason == PATHSEL_REASON_HARD_FAILURE ||
	    reason == PATHSEL_REASON_BFD_DOWN || reason == PATHSEL_REASON_NO_PATH)
		mem->fault_at[tier] = o->now;

	/* a path that lost every plane: its metrics over all of them (the
	 * last RTTs it answered with, the loss that took it down) */
	ev_metrics(e, from >= 0 ? (v[from].m.sent ? &v[from].m : &v[from].all) : NULL,
		   to >= 0 ? &v[to].m : NULL);
	mem->active[tier] = (int8_t)to;
	mem->candidate[tier] = -1;
	mem->beaten_since[tier] = 0;
}

/* Rule 4 for one tier. */
static void decide_tier(const struct pathsel_group_params *gp, const struct cfg_ps_tier *t,
			int tier, const struct path_view *v, const struct pathsel_path_in *paths,
			int nb_paths, struct pathsel_group_mem *mem, struct ev_out *o)
{
	int a = mem->active[tier];
	int best = best_path(t, v, nb_paths);

	if (a < 0 || a >= nb_paths || !v[a].usable) {
		/* No usable path at all: the tier stays where it is (the data
		 * path keeps its path: when every path looks dead at once, the
		 * probes, or this machine, are the likelier fault); the paths'
		 * path_down events say why. When one comes back the tier is
		 * either on it already or moves to the best (restored). */
		if (best < 0 || best == a)
			return;
		enum pathsel_reason r = PATHSEL_REASON_RESTORED;
		if (a >= 0 && a < nb_paths)
			r = paths[a].bfd_down ? PATHSEL_REASON_BFD_DOWN
					      : PATHSEL_REASON_HARD_FAILURE;
		switch_tier(o, mem, v, tier, best, r);
		return;
	}
	if (!mem->started)
		return;
	int cand = -1;
	enum pathsel_reason why = PATHSEL_REASON_NONE;
	for (int i = 0; i < nb_paths; i++) {
		if (i == a || !v[i].usable)
			continue;
		enum pathsel_reason r = beats(gp, t, &v[i], &v[a], mem->candidate[tier] >= 0);
		/* After a switch for a fault the tier dwells: protection may
		 * move it again (loss), and so may latency (gold's own degradation:
		 * a jump of its path's RTT, with its margin and hold), but a
		 * cheaper path or a better score only `dwell` later, so one fault
		 * is one switch, not a switch and a return. */
		if ((r == PATHSEL_REASON_COST || r == PATHSEL_REASON_SCORE) &&
		    mem->fault_at[tier] != 0 && o->now - mem->fault_at[tier] < gp->dwell_ns)
			r = PATHSEL_REASON_NONE;
		if (r != PATHSEL_REASON_NONE && (cand < 0 || ranks_before(t, v, i, cand))) {
			cand = i;
			why = r;
		}
	}
	if (cand < 0) {
		mem->candidate[tier] = -1;
		mem->beaten_since[tier] = 0;
		return;
	}
	if (mem->candidate[tier] < 0)
		mem->beaten_since[tier] = o->now;
	mem->candidate[tier] = (int8_t)cand;
	mem->cand_reason[tier] = (uint8_t)why;
	/* a loss switch also needs the window to confirm it at the end of the
	 * hold: the recent horizon alone is tested too often to be trusted */
	bool confirmed = why != PATHSEL_REASON_LOSS || v[a].lo_hold_window > t->max_loss_ppm / 1e6;
	if (o->now - mem->beaten_since[tier] >= gp->hold_ns && confirmed)
		switch_tier(o, mem, v, tier, cand, why);
	else if (mem->beaten_since[tier] + gp->hold_ns < mem->wake)
		mem->wake = mem->beaten_since[tier] + gp->hold_ns;
}

unsigned pathsel_decide(const struct pathsel_group_params *gp, const struct cfg_ps_tier *tiers,
			const struct pathsel_path_in *paths, int nb_paths, uint64_t now,
			struct pathsel_group_mem *mem, struct pathsel_event *ev, unsigned ev_cap)
{
	struct ev_out o = { .ev = ev, .cap = ev_cap, .mem = mem, .now = now };
	struct path_view v[CFG_MAX_PATHS];

	if (nb_paths > CFG_MAX_PATHS)
		nb_paths = CFG_MAX_PATHS;
	if (mem->first_call == UINT64_MAX)
		mem->first_call = now;
	mem->wake = UINT64_MAX;

	/* rules 1 and 2: planes, then paths */
	bool ready = true, any = false;
	for (int i = 0; i < nb_paths; i++) {
		decide_planes(gp, &paths[i], i, mem, &o);
		memset(&v[i], 0, sizeof(v[i]));
		view_path(&paths[i], mem->healthy[i], &v[i]);
		v[i].usable = !paths[i].bfd_down && mem->healthy[i] != 0;
		uint8_t st = v[i].usable ? PATHSEL_PATH_USABLE : PATHSEL_PATH_UNUSABLE;
		if (st != mem->path_state[i] &&
		    (mem->path_state[i] != PATHSEL_PATH_UNKNOWN || st == PATHSEL_PATH_UNUSABLE)) {
			struct pathsel_metrics all;
			pathsel_path_metrics(paths[i].planes, paths[i].nb_planes, 0xffff, &all);
			struct pathsel_event *e =
				st == PATHSEL_PATH_USABLE
					? ev_push(&o, PATHSEL_EV_PATH_UP, PATHSEL_REASON_RESTORED,
						  -1, i, i, -1)
					: ev_push(&o, PATHSEL_EV_PATH_DOWN,
						  paths[i].bfd_down ? PATHSEL_REASON_BFD_DOWN
								    : PATHSEL_REASON_PLANE_LOST,
						  -1, i, i, -1);
			ev_metrics(e, NULL, &all);
		}
		mem->path_state[i] = st;
		if (v[i].usable) {
			any = true;
			unsigned planes = (unsigned)__builtin_popcount(mem->healthy[i]);
			if (v[i].m.sent < PATHSEL_MIN_JUDGED ||
			    v[i].m.sent < planes * gp->window / 4)
				ready = false;
		}
	}

	/* rule 4, start-up: the best at once when every usable path has been judged */
	if (!mem->started) {
		if (any && (ready || now - mem->first_call >= PATHSEL_STARTUP_MAX_NS)) {
			mem->started = true;
			for (int t = 0; t < PATHSEL_TIERS; t++) {
				int best = best_path(&tiers[t], v, nb_paths);
				if (best != mem->active[t])
					switch_tier(&o, mem, v, t, best, PATHSEL_REASON_STARTUP);
			}
		} else if (now - mem->first_call < PATHSEL_STARTUP_MAX_NS) {
			/* the start-up's deadline; once it is past, only a probe
			 * event (a path becoming usable) can end the start-up */
			mem->wake = mem->first_call + PATHSEL_STARTUP_MAX_NS;
		}
	}
	for (int t = 0; t < PATHSEL_TIERS; t++)
		decide_tier(gp, &tiers[t], t, v, paths, nb_paths, mem, &o);
	return o.n;
}

uint64_t pathsel_next_wake(const struct pathsel_group_mem *mem)
{
	return mem->wake;
}

void pathsel_group_params_init(struct pathsel_group_params *gp, const struct cfg_ps_group *g)
{
	*gp = (struct pathsel_group_params){
		.lost_down = g->lost_down ? g->lost_down : PATHSEL_DEFAULT_LOST_DOWN,
		.margin_ppm = g->margin_ppm,
		.margin_min_ns = (uint64_t)g->margin_min_us * 1000u,
		.margin_min_score = g->margin_min_us / 1000.0,
		.hold_ns = (uint64_t)g->hold_us * 1000u,
		.dwell_ns = (uint64_t)g->dwell_ms * 1000000u,
		.window = g->window ? g->window : PATHSEL_DEFAULT_WINDOW,
		.plane_max_loss_ppm = g->plane_max_loss_ppm ? g->plane_max_loss_ppm
							    : PATHSEL_DEFAULT_PLANE_MAX_LOSS_PPM,
	};
}

void pathsel_group_mem_init(struct pathsel_group_mem *mem, int nb_paths, int initial_active)
{
	memset(mem, 0, sizeof(*mem));
	mem->nb_paths = nb_paths;
	for (int i = 0; i < CFG_MAX_PATHS; i++)
		mem->healthy[i] = mem->hard_up[i] = 0xffff;
	for (int t = 0; t < PATHSEL_TIERS; t++) {
		mem->active[t] = (int8_t)(initial_active < nb_paths ? initial_active : -1);
		mem->candidate[t] = -1;
	}
	mem->first_call = UINT64_MAX;
	mem->wake = UINT64_MAX;
}

uint16_t pathsel_group_mem_healthy(const struct pathsel_group_mem *mem, int path)
{
	return path >= 0 && path < mem->nb_paths ? mem->healthy[path] : 0;
}

int pathsel_group_mem_active(const struct pathsel_group_mem *mem, int tier)
{
	return tier >= 0 && tier < PATHSEL_TIERS ? mem->active[tier] : -1;
}

int pathsel_group_mem_adopt(struct pathsel_group_mem *mem, int tier, int path, uint64_t now,
			    struct pathsel_event *ev)
{
	if (tier < 0 || tier >= PATHSEL_TIERS || path < 0 || path >= mem->nb_paths)
		return -EINVAL;
	if (mem->path_state[path] == PATHSEL_PATH_UNUSABLE)
		return -EHOSTUNREACH;
	mem->started = true;
	mem->fault_at[tier] = now;
	if (mem->active[tier] == path)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->kind = PATHSEL_EV_SWITCH;
	ev->reason = PATHSEL_REASON_HA_ADOPT;
	ev->tier = (int8_t)tier;
	ev->old_path = mem->active[tier];
	ev->new_path = (int8_t)path;
	ev->plane = -1;
	ev->t = now;
	mem->active[tier] = (int8_t)path;
	mem->candidate[tier] = -1;
	mem->beaten_since[tier] = 0;
	return 1;
}

const char *pathsel_reason_name(enum pathsel_reason r)
{
	static const char *const names[] = {
		[PATHSEL_REASON_NONE] = "none",
		[PATHSEL_REASON_STARTUP] = "startup",
		[PATHSEL_REASON_HARD_FAILURE] = "hard_failure",
		[PATHSEL_REASON_BFD_DOWN] = "bfd_down",
		[PATHSEL_REASON_NO_PATH] = "no_path",
		[PATHSEL_REASON_LOSS] = "loss",
		[PATHSEL_REASON_LATENCY] = "latency",
		[PATHSEL_REASON_SCORE] = "score",
		[PATHSEL_REASON_COST] = "cost",
		[PATHSEL_REASON_RESTORED] = "restored",
		[PATHSEL_REASON_PLANE_LOSS] = "plane_loss",
		[PATHSEL_REASON_PLANE_LOST] = "plane_lost",
		[PATHSEL_REASON_HA_ADOPT] = "ha_adopt",
	};
	return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

const char *pathsel_event_kind_name(enum pathsel_event_kind k)
{
	static const char *const names[] = {
		[PATHSEL_EV_SWITCH] = "switch",     [PATHSEL_EV_PLANE_DOWN] = "plane_down",
		[PATHSEL_EV_PLANE_UP] = "plane_up", [PATHSEL_EV_PATH_DOWN] = "path_down",
		[PATHSEL_EV_PATH_UP] = "path_up",
	};
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}
