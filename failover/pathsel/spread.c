/* SPDX-License-Identifier: BSD-3-Clause */
/* Load spreading by flowlets (spread.h). */
#include <stdbool.h>

#include "failover/pathsel/spread.h"

#define NO_PATH 0xffu

/* 2^32 / golden ratio, odd: Fibonacci hashing (Knuth, TAOCP vol. 3, §6.4) */
#define FIB32 0x9e3779b1u

struct spread_entry {
	uint64_t seen; /* the caller's clock: the entry's last packet */
	uint32_t hash; /* the flow that sent it */
	uint8_t path;  /* the flowlet's path (index in the group), NO_PATH: never used */
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

static struct spread_entry *entry_of(struct spread_table *t, uint32_t hash)
{
	/* 64-bit shift: one entry (shift 32) gives index 0 without undefined behaviour */
	return &t->entry[(uint64_t)(uint32_t)(hash * FIB32) >> t->shift];
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

static bool in_weights(const struct spread_weights *w, unsigned nb, unsigned path)
{
	for (unsigned i = 0; i < nb; i++)
		if (w->path[i] == path)
			return true;
	return false;
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

/*
 * The path of @p w furthest below its share of the recent bytes:
 * max of share[i] × Σrecent - recent[i] × Σshare (the deficit times
 * Σshare, same order). Double: the products need up to 96 bits, and the
 * scan runs once per flowlet. -1 when no index of @p w is valid.
 */
static int deficit_pick(struct spread_table *t, const struct spread_weights *w, unsigned nb)
{
	double sum_recent = 0, sum_share = 0, best_d = 0;
	uint8_t present = 0;
	int best = -1;

	for (unsigned i = 0; i < nb; i++)
		if (w->path[i] < SPREAD_MAX_PATHS)
			present |= (uint8_t)(1u << w->path[i]);
	if (present & ~t->present)
		level_joined(t, w, nb, present & ~t->present);
	t->present = present;
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

int spread_pick(struct spread_table *t, const struct spread_weights *w, uint32_t hash,
		uint32_t bytes, uint64_t now, uint64_t gap)
{
	unsigned nb = w->nb < SPREAD_MAX_PATHS ? w->nb : SPREAD_MAX_PATHS;
	struct spread_entry *e;
	int path;

	if (nb == 0)
		return -1;
	decay(t, now, gap);
	e = entry_of(t, hash);
	if (e->path != NO_PATH && now - e->seen < gap) {
		if (e->hash != hash) {
			/* another flow's live flowlet: shared, so that neither moves while sending */
			t->collisions++;
			e->hash = hash;
		}
		if (in_weights(w, nb, e->path)) {
			path = e->path;
			goto count;
		}
		t->failover++; /* its path left: a new flowlet now, whatever the gap */
	}
	path = deficit_pick(t, w, nb);
	if (path < 0)
		return -1;
	t->flowlets++;
	if (e->path != NO_PATH && e->hash == hash && e->path != path)
		t->moved++;
	e->hash = hash;
	e->path = (uint8_t)path;
count:
	e->seen = now;
	t->recent[path] += bytes;
	t->bytes[path] += bytes;
	t->packets[path]++;
	return path;
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
