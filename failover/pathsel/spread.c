/* SPDX-License-Identifier: BSD-3-Clause */
/* Load spreading by flowlets (spread.h). */
#include <stdbool.h>

#include "failover/pathsel/spread.h"

#define NO_PATH SPREAD_NO_PATH

/* 2^32 / golden ratio, odd: Fibonacci hashing (Knuth, TAOCP vol. 3, §6.4) */
#define FIB32 0x9e3779b1u

struct spread_entry {
	uint64_t until; /* the caller's clock: the flowlet goes on while now < until (its
	                 * last packet + gap); 0: never used */
	uint32_t hash;  /* the flow that sent it */
	uint8_t path;   /* the flowlet's path (index in the group), NO_PATH: never used */
};

struct spread_table {
	unsigned shift;  /* 32 - log2(entries): the index is the product's high bits */
	bool clock_set;  /* last_decay holds a time */
	uint8_t present; /* bit i: path i was in the weights at the last flowlet start */
	uint64_t last_decay;
	uint64_t recent[SPREAD_MAX_PATHS]; /* bytes, halved every decay period */
	uint64_t bytes[SPREAD_MAX_PATHS];
	uint64_t packets[SPREAD_MAX_PATHS];
	uint64_t flowlets, moved, failover, collisions;
	struct spread_entry entry[];
};

static bool valid_entries(unsigned entries)
{
	return entries != 0 && entries <= SPREAD_MAX_ENTRIES && (entries & (entries - 1)) == 0;
}

size_t spread_table_size(unsigned entries)
{
	if (!valid_entries(entries))
		return 0;
	return sizeof(struct spread_table) + (size_t)entries * sizeof(struct spread_entry);
}

void spread_table_init(struct spread_table *t, unsigned entries)
{
	unsigned bits = 0;

	while ((1u << bits) < entries)
		bits++;
	*t = (struct spread_table){ .shift = 32 - bits };
	for (unsigned i = 0; i < entries; i++)
		t->entry[i] = (struct spread_entry){ .path = NO_PATH };
}

/*
 * Halve every recent counter once per period elapsed since the last
 * halving. Costs one compare per packet; the division only when due.
 */
static void decay(struct spread_table *t, uint64_t now, uint64_t gap)
{
	uint64_t period, n;

	if (!t->clock_set) {
		t->last_decay = now;
		t->clock_set = true;
		return;
	}
	if (now < t->last_decay)
		return;
	period = gap == 0 ? SPREAD_DECAY_GAPS
			  : (gap > UINT64_MAX / SPREAD_DECAY_GAPS ? UINT64_MAX
								  : gap * SPREAD_DECAY_GAPS);
	if (now - t->last_decay < period)
		return;
	n = (now - t->last_decay) / period;
	t->last_decay += n * period;
	for (unsigned i = 0; i < SPREAD_MAX_PATHS; i++)
		t->recent[i] = n >= 64 ? 0 : t->recent[i] >> n;
}

/*
 * A path that joined the weights since the last flowlet start (healthy
 * again, or new) starts level with the others: its recent bytes are set to
 * its share of what the paths that stayed sent. Its absence is not paid
 * back: otherwise its low count would draw every new flowlet for the
 * length of the memory, loading it above its capacity share.
 */
static void level_joined(struct spread_table *t, const struct spread_weights *w, unsigned nb,
			 uint8_t joined)
{
	double kept_recent = 0, kept_share = 0;

	for (unsigned i = 0; i < nb; i++)
		if (w->path[i] < SPREAD_MAX_PATHS && !(joined & 1u << w->path[i])) {
			kept_recent += (double)t->recent[w->path[i]];
			kept_share += w->share[i];
		}
	for (unsigned i = 0; i < nb; i++)
		if (w->path[i] < SPREAD_MAX_PATHS && joined & 1u << w->path[i])
			t->recent[w->path[i]] = kept_share > 0
							? (uint64_t)(kept_recent * w->share[i] /
								     kept_share)
							: 0;
}

/* A path that joined the weights since the last flowlet start: level it (level_joined()). */
static void note_present(struct spread_table *t, const struct spread_weights *w, unsigned nb)
{
	uint8_t present = 0;

	for (unsigned i = 0; i < nb; i++)
		if (w->path[i] < SPREAD_MAX_PATHS)
			present |= (uint8_t)(1u << w->path[i]);
	if (present & ~t->present)
		level_joined(t, w, nb, present & ~t->present);
	t->present = present;
}

/*
 * The path of @p w furthest below its share of the recent bytes:
 * max of share[i] × Σrecent - recent[i] × Σshare (the deficit times
 * Σshare, same order). Double: the products need up to 96 bits, and the
 * scan runs once per flowlet. -1 when no index of @p w is valid.
 */
static int deficit_pick(struct spread_table *t, const struct spread_weights *w, unsigned nb)
{
	double sum_recent = 0, sum_share = 0, best_d = 0;
	int best = -1;

	note_present(t, w, nb);
	for (unsigned i = 0; i < nb; i++)
		if (w->path[i] < SPREAD_MAX_PATHS) {
			sum_recent += (double)t->recent[w->path[i]];
			sum_share += w->share[i];
		}
	for (unsigned i = 0; i < nb; i++) {
		unsigned p = w->path[i];
		double d;

		if (p >= SPREAD_MAX_PATHS)
			continue;
		d = w->share[i] * sum_recent - (double)t->recent[p] * sum_share;
		if (best < 0 || d > best_d) {
			best = (int)p;
			best_d = d;
		}
	}
	return best;
}

/* When a flowlet whose last packet is at @p now ends: now + gap, saturated. */
static inline uint64_t flowlet_until(uint64_t now, uint64_t gap)
{
	return gap > UINT64_MAX - now ? UINT64_MAX : now + gap;
}

/* Whether every path of @p w has the same share: the deficit's argmax is then the least recent. */
static bool equal_shares(const struct spread_weights *w, unsigned nb)
{
	for (unsigned i = 1; i < nb; i++)
		if (w->share[i] != w->share[0])
			return false;
	return true;
}

/*
 * deficit_pick() when every share is equal: share × Σrecent - recent[i] ×
 * nb × share is largest where recent[i] is least (ties: the path listed
 * first, as there). Integer compares instead of three double products
 * per path.
 */
static int least_recent_pick(struct spread_table *t, const struct spread_weights *w, unsigned nb)
{
	uint64_t best_r = 0;
	int best = -1;

	for (unsigned i = 0; i < nb; i++) {
		unsigned p = w->path[i];

		if (p >= SPREAD_MAX_PATHS)
			continue;
		if (best < 0 || t->recent[p] < best_r) {
			best = (int)p;
			best_r = t->recent[p];
		}
	}
	return best;
}

/*
 * The flowlet entry of flow @p h, and whether it continues a live flowlet on
 * a path still in the weights (@p allowed): a live entry of another flow is
 * shared (a collision), one whose path left counts a failover and starts a
 * new flowlet whatever the gap.
 */
static inline struct spread_entry *flowlet_entry(struct spread_table *t, unsigned shift, uint32_t h)
{
	/* 64-bit shift: one entry (shift 32) gives index 0 without undefined behaviour */
	return &t->entry[(uint64_t)(uint32_t)(h * FIB32) >> shift];
}

static inline bool flowlet_continues(struct spread_table *t, struct spread_entry *e, uint32_t h,
				     uint64_t now, uint8_t allowed)
{
	if (now >= e->until)
		return false;
	/* a live flowlet (so its path is a path) */
	if (e->hash != h) {
		/* another flow's live flowlet: shared, so that neither moves while sending */
		t->collisions++;
		e->hash = h;
	}
	if (allowed >> e->path & 1)
		return true;
	t->failover++; /* its path left: a new flowlet now, whatever the gap */
	return false;
}

/* A new flowlet of flow @p h on path @p np in entry @p e (whose path was @p p). */
static inline void flowlet_start(struct spread_table *t, struct spread_entry *e, uint32_t h,
				 unsigned p, unsigned np)
{
	if (p != NO_PATH && e->hash == h && p != np)
		t->moved++;
	e->hash = h;
	e->path = (uint8_t)np;
}

/*
 * spread_pick_burst() in the usual case: equal shares, no path joined the
 * weights since the last flowlet start. The weights come as the list of
 * their valid paths @p lp (@p lnb >= 1) and their mask; the recent bytes
 * of those paths are kept in locals for the burst (the entries' stores
 * could alias the table's counters). A new flowlet takes the listed path
 * of least recent bytes (ties: the first listed).
 */
static __attribute__((noinline)) void burst_equal(struct spread_table *t, const uint8_t *lp,
						  unsigned lnb, uint8_t allowed,
						  const uint32_t *hash, const uint32_t *bytes,
						  unsigned n, uint64_t now, uint64_t gap,
						  uint8_t *path)
{
	const unsigned shift = t->shift;
	const uint64_t until = flowlet_until(now, gap);
	uint64_t rec[SPREAD_MAX_PATHS], rec0[SPREAD_MAX_PATHS];
	uint64_t flowlets = 0;

	for (unsigned i = 0; i < SPREAD_MAX_PATHS; i++)
		rec[i] = rec0[i] = t->recent[i];
	for (unsigned j = 0; j < n; j++) {
		const uint32_t h = hash[j];
		struct spread_entry *e = flowlet_entry(t, shift, h);
		unsigned p = e->path;

		if (flowlet_continues(t, e, h, now, allowed))
			goto count;
		unsigned np = lp[0];
		uint64_t best = rec[np];
		for (unsigned i = 1; i < lnb; i++)
			if (rec[lp[i]] < best) {
				np = lp[i];
				best = rec[np];
			}
		flowlets++;
		flowlet_start(t, e, h, p, np);
		p = np;
	count:
		e->until = until;
		rec[p] += bytes[j];
		t->packets[p]++;
		path[j] = (uint8_t)p;
	}
	/* the all-time bytes grew as the recent ones did */
	for (unsigned i = 0; i < SPREAD_MAX_PATHS; i++) {
		t->bytes[i] += rec[i] - rec0[i];
		t->recent[i] = rec[i];
	}
	t->flowlets += flowlets;
	if (flowlets != 0)
		t->present = allowed; /* as deficit_pick() at a flowlet start */
}

void spread_pick_burst(struct spread_table *t, const struct spread_weights *w, const uint32_t *hash,
		       const uint32_t *bytes, unsigned n, uint64_t now, uint64_t gap, uint8_t *path)
{
	unsigned nb = w->nb < SPREAD_MAX_PATHS ? w->nb : SPREAD_MAX_PATHS;
	const unsigned shift = t->shift;
	const uint64_t until = flowlet_until(now, gap);
	uint8_t allowed = 0; /* bit i: path i is in the weights */
	bool equal, leveled = false;

	if (nb == 0) {
		for (unsigned j = 0; j < n; j++)
			path[j] = SPREAD_NO_PATH;
		return;
	}
	/* what the burst shares, once: the time, the weights */
	decay(t, now, gap);
	uint8_t lp[SPREAD_MAX_PATHS];
	unsigned lnb = 0;
	for (unsigned i = 0; i < nb; i++)
		if (w->path[i] < SPREAD_MAX_PATHS) {
			allowed |= (uint8_t)(1u << w->path[i]);
			lp[lnb++] = w->path[i];
		}
	equal = equal_shares(w, nb);
	if (equal && lnb > 0 && !(allowed & ~t->present)) {
		burst_equal(t, lp, lnb, allowed, hash, bytes, n, now, gap, path);
		return;
	}

	for (unsigned j = 0; j < n; j++) {
		const uint32_t h = hash[j];
		struct spread_entry *e = flowlet_entry(t, shift, h);
		unsigned p = e->path;
		int np;

		if (flowlet_continues(t, e, h, now, allowed))
			goto count;
		if (equal) {
			/* the weights do not change within the burst: one look at who joined */
			if (!leveled)
				note_present(t, w, nb);
			leveled = true;
			np = least_recent_pick(t, w, nb);
		} else {
			np = deficit_pick(t, w, nb);
		}
		if (np < 0) {
			path[j] = SPREAD_NO_PATH;
			continue;
		}
		t->flowlets++;
		flowlet_start(t, e, h, p, (unsigned)np);
		p = (unsigned)np;
	count:
		e->until = until;
		t->recent[p] += bytes[j];
		t->bytes[p] += bytes[j];
		t->packets[p]++;
		path[j] = (uint8_t)p;
	}
}

int spread_pick(struct spread_table *t, const struct spread_weights *w, uint32_t hash,
		uint32_t bytes, uint64_t now, uint64_t gap)
{
	uint8_t path;

	spread_pick_burst(t, w, &hash, &bytes, 1, now, gap, &path);
	return path == SPREAD_NO_PATH ? -1 : path;
}

void spread_stats(const struct spread_table *t, struct spread_stats *out)
{
	*out = (struct spread_stats){ .flowlets = t->flowlets,
				      .moved = t->moved,
				      .failover = t->failover,
				      .collisions = t->collisions };
	for (unsigned i = 0; i < SPREAD_MAX_PATHS; i++) {
		out->packets[i] = t->packets[i];
		out->bytes[i] = t->bytes[i];
		out->recent[i] = t->recent[i];
	}
}
