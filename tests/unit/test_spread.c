/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load spreading by flowlets (failover/pathsel/spread.c) on simulated time, ns:
 * two equal paths balanced to within 1.1x by bursty elephants and mice
 * (where a flow hash leaves them far apart), an elephant that never pauses
 * kept on one path, shares 2:1, a path leaving the weights (its flows move
 * at their next packet, nothing more goes to it) and coming back, no path,
 * entries reused after the gap, two flows sharing an entry, flows with equal
 * low hash bits spread over the table, a burst decided as its packets one
 * by one (spread_pick_burst() against spread_pick(), and against a plain
 * reference of the one-packet decision as it was before the burst one).
 *
 * Every simulated packet goes through a reorder check: path 0 delays by
 * 1 ms, path 1 by 1.3 ms, path 2 by 1.1 ms, the gap is 0.5 ms; each flow's
 * packets must arrive in the order they were sent, and a flow must not
 * change path between two packets less than a gap apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "failover/pathsel/spread.h"

#define US  1000ull
#define MS  1000000ull
#define SEC 1000000000ull
#define GAP (500 * US)

#define MAX_FLOWS 64

static const uint64_t path_delay[SPREAD_MAX_PATHS] = { 1000 * US, 1300 * US, 1100 * US };

enum flow_kind {
	BURSTY,   /* elephant: 1500-byte packets at 1 Gbit/s in bursts of 2..20 ms, idle 1..3 ms */
	CONSTANT, /* elephant: 1500-byte packets every 10..40 µs, never idle for a gap */
	MOUSE,    /* 1..10 packets of 64..1500 bytes 20..100 µs apart, idle 1..20 ms */
};

struct flow {
	enum flow_kind kind;
	uint32_t hash;
	uint64_t next;     /* ns: its next packet */
	unsigned left;     /* packets left in the burst */
	bool sent;         /* it has sent a packet */
	uint64_t last;     /* ns: its last packet */
	int last_path;     /* the path of its last packet */
	uint64_t arrival;  /* ns: its last packet's arrival */
	uint64_t bytes;    /* all its packets */
	unsigned paths;    /* bit i: it used path i */
	unsigned switches; /* path changes (new flowlets on another path) */
};

struct sim {
	struct spread_table *t;
	struct spread_weights w;
	struct flow flow[MAX_FLOWS];
	unsigned nb_flows;
	uint64_t rng;
	uint64_t now;
	uint64_t bytes[SPREAD_MAX_PATHS];
	uint64_t ecmp[SPREAD_MAX_PATHS]; /* the same packets by flow hash % nb (ECMP) */
	unsigned moves_in_gap;           /* a path change less than a gap apart, old path healthy */
	unsigned reorders;               /* a packet that arrived before its predecessor */
	unsigned forced;                 /* a path change because the old path left the weights */
	unsigned to_absent;              /* packets to a path not in the weights */
};

/* xorshift64* (Vigna, 2016): reproducible traffic */
static uint64_t rnd(struct sim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dull;
}

static uint64_t rnd_range(struct sim *s, uint64_t lo, uint64_t hi)
{
	return lo + rnd(s) % (hi - lo + 1);
}

/* CRC32-C (Castagnoli, reflected 0x82f63b78) of 4 bytes, bit by bit: the flow hash's step */
static uint32_t crc32c_u32(uint32_t data, uint32_t crc)
{
	crc ^= data;
	for (int i = 0; i < 32; i++)
		crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	return crc;
}

/* The flow hash of a UDP flow 10.0.0.1:sport -> 10.9.0.1:4789 (as flow_hash_ipv4()). */
static uint32_t flow_hash(unsigned sport)
{
	uint32_t h = crc32c_u32(0x0a000001, 0x5bd1e995);

	h = crc32c_u32(0x0a090001, h);
	h = crc32c_u32((uint32_t)sport << 16 | 4789, h);
	h = crc32c_u32(17, h);
	return h ^ (h >> 16);
}

static void sim_init(struct sim *s, unsigned entries, uint64_t seed)
{
	*s = (struct sim){ .rng = seed * 0x9e3779b97f4a7c15ull + 1 };
	s->t = malloc(spread_table_size(entries));
	assert_non_null(s->t);
	spread_table_init(s->t, entries);
}

static void sim_free(struct sim *s)
{
	free(s->t);
}

static void set_weights(struct sim *s, unsigned nb, const uint8_t *path, const uint32_t *share)
{
	s->w.nb = (uint8_t)nb;
	for (unsigned i = 0; i < nb; i++) {
		s->w.path[i] = path[i];
		s->w.share[i] = share[i];
	}
}

static struct flow *add_flow_port(struct sim *s, enum flow_kind kind, unsigned sport)
{
	struct flow *f = &s->flow[s->nb_flows];

	assert_true(s->nb_flows < MAX_FLOWS);
	*f = (struct flow){ .kind = kind, .hash = flow_hash(sport) };
	f->next = s->now + rnd_range(s, 0, 5 * MS);
	s->nb_flows++;
	return f;
}

static struct flow *add_flow(struct sim *s, enum flow_kind kind)
{
	return add_flow_port(s, kind, 10000 + s->nb_flows);
}

/* The flow's next packet time, after one at @p f->next. */
static void schedule(struct sim *s, struct flow *f)
{
	switch (f->kind) {
	case BURSTY:
		if (f->left == 0) {
			f->left = (unsigned)rnd_range(s, 2 * MS / (12 * US), 20 * MS / (12 * US));
			f->next += rnd_range(s, 1 * MS, 3 * MS);
		} else {
			f->left--;
			f->next += 12 * US;
		}
		break;
	case CONSTANT:
		f->next += rnd_range(s, 10 * US, 40 * US);
		break;
	case MOUSE:
		if (f->left == 0) {
			f->left = (unsigned)rnd_range(s, 1, 10);
			f->next += rnd_range(s, 1 * MS, 20 * MS);
		} else {
			f->left--;
			f->next += rnd_range(s, 20 * US, 100 * US);
		}
		break;
	}
}

static uint32_t packet_bytes(struct sim *s, const struct flow *f)
{
	return f->kind == MOUSE ? (uint32_t)rnd_range(s, 64, 1500) : 1500;
}

static bool w_has(const struct spread_weights *w, int path)
{
	for (unsigned i = 0; i < w->nb; i++)
		if (w->path[i] == path)
			return true;
	return false;
}

/* Send flow @p f's packet at f->next: pick, then the reorder and gap checks. */
static void send(struct sim *s, struct flow *f)
{
	uint32_t len = packet_bytes(s, f);
	int path = spread_pick(s->t, &s->w, f->hash, len, f->next, GAP);
	uint64_t arrival;
	bool forced = false;

	assert_true(path >= 0 && path < SPREAD_MAX_PATHS);
	if (!w_has(&s->w, path))
		s->to_absent++;
	if (f->sent && path != f->last_path) {
		f->switches++;
		if (!w_has(&s->w, f->last_path)) {
			forced = true;
			s->forced++;
		} else if (f->next - f->last < GAP) {
			s->moves_in_gap++;
		}
	}
	arrival = f->next + path_delay[path];
	if (f->sent && arrival <= f->arrival && !forced)
		s->reorders++;
	f->sent = true;
	f->last = f->next;
	f->last_path = path;
	f->arrival = arrival;
	f->bytes += len;
	f->paths |= 1u << path;
	s->bytes[path] += len;
	s->ecmp[s->w.path[f->hash % s->w.nb]] += len;
}

/* Run every flow's packets until @p until, in time order. */
static void sim_run(struct sim *s, uint64_t until)
{
	for (;;) {
		struct flow *f = NULL;

		for (unsigned i = 0; i < s->nb_flows; i++)
			if (f == NULL || s->flow[i].next < f->next)
				f = &s->flow[i];
		if (f == NULL || f->next >= until)
			break;
		s->now = f->next;
		send(s, f);
		schedule(s, f);
	}
	s->now = until;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static void assert_in_order(const struct sim *s)
{
	assert_int_equal(s->moves_in_gap, 0);
	assert_int_equal(s->reorders, 0);
	assert_int_equal(s->to_absent, 0);
}

static const uint8_t two[] = { 0, 1 };
static const uint32_t equal[] = { 1000, 1000 };

/*
 * Two equal paths, two bursty elephants and 50 mice, 1 s: bytes per path
 * within 1.1x of each other, for several traffic seeds. The same packets by
 * flow hash (ECMP) for comparison, with the elephants on one hash bucket:
 * the case spreading is for.
 */
static void balance_equal_paths(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct sim s;
		struct spread_stats st;
		double r, re;

		sim_init(&s, 4096, seed);
		set_weights(&s, 2, two, equal);
		uint32_t h0 = add_flow(&s, BURSTY)->hash;
		unsigned sport = 20000;

		while (flow_hash(sport) % 2 != h0 % 2)
			sport++;
		add_flow_port(&s, BURSTY, sport);
		for (int i = 0; i < 50; i++)
			add_flow(&s, MOUSE);
		sim_run(&s, 1 * SEC);
		spread_stats(s.t, &st);
		r = s.bytes[0] > s.bytes[1] ? ratio(s.bytes[0], s.bytes[1])
					    : ratio(s.bytes[1], s.bytes[0]);
		re = s.ecmp[0] > s.ecmp[1] ? ratio(s.ecmp[0], s.ecmp[1])
					   : ratio(s.ecmp[1], s.ecmp[0]);
		print_message("seed %d: path0 %.1f MB path1 %.1f MB, max/min %.3f (flow hash, "
			      "elephants in one bucket: "
			      "%.3f); flowlets %llu moved %llu collisions %llu\n",
			      (int)seed, s.bytes[0] / 1e6, s.bytes[1] / 1e6, r, re,
			      (unsigned long long)st.flowlets, (unsigned long long)st.moved,
			      (unsigned long long)st.collisions);
		assert_true(r <= 1.1);
		assert_in_order(&s);
		/* the elephants did move between bursts */
		assert_true(s.flow[0].switches > 0 && s.flow[1].switches > 0);
		sim_free(&s);
	}
}

/* An elephant that never pauses for a gap keeps its path for the whole second. */
static void constant_elephant_stays(void **state)
{
	struct sim s;
	(void)state;
	sim_init(&s, 4096, 7);
	set_weights(&s, 2, two, equal);
	add_flow(&s, CONSTANT);
	add_flow(&s, BURSTY);
	for (int i = 0; i < 50; i++)
		add_flow(&s, MOUSE);
	sim_run(&s, 1 * SEC);
	print_message("constant elephant: %.1f MB on path %d only, switches %u; "
		      "path0 %.1f MB path1 %.1f MB\n",
		      s.flow[0].bytes / 1e6, s.flow[0].last_path, s.flow[0].switches,
		      s.bytes[0] / 1e6, s.bytes[1] / 1e6);
	assert_int_equal(s.flow[0].switches, 0);
	assert_true(s.flow[0].paths == 1u || s.flow[0].paths == 2u);
	assert_in_order(&s);
	sim_free(&s);
}

/* Shares 2:1: bytes 2:1 within 10 %. */
static void shares_two_to_one(void **state)
{
	static const uint32_t shares[] = { 2000, 1000 };
	(void)state;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct sim s;
		double r;

		sim_init(&s, 4096, seed);
		set_weights(&s, 2, two, shares);
		add_flow(&s, BURSTY);
		add_flow(&s, BURSTY);
		for (int i = 0; i < 50; i++)
			add_flow(&s, MOUSE);
		sim_run(&s, 1 * SEC);
		r = ratio(s.bytes[0], s.bytes[1]);
		print_message("seed %d, shares 2:1: path0 %.1f MB path1 %.1f MB, ratio %.3f\n",
			      (int)seed, s.bytes[0] / 1e6, s.bytes[1] / 1e6, r);
		assert_true(r >= 1.8 && r <= 2.2);
		assert_in_order(&s);
		sim_free(&s);
	}
}

/*
 * Three paths; path 1 leaves the weights at 300 ms: every flow on it moves
 * at its next packet (nothing more goes to it, and each changes path once,
 * the only changes allowed less than a gap apart), the other two share the load.
 * It comes back at 600 ms: it takes new flowlets again, and the last 400 ms
 * are balanced over the three.
 */
static void path_leaves_and_returns(void **state)
{
	static const uint8_t three[] = { 0, 1, 2 }, without1[] = { 0, 2 };
	static const uint32_t eq3[] = { 1, 1, 1 };
	struct sim s;
	struct spread_stats st;
	uint64_t at_leave[SPREAD_MAX_PATHS], at_return[SPREAD_MAX_PATHS], d[3];
	bool on1[MAX_FLOWS];
	unsigned nb_on1 = 0, nb_live_on1 = 0;
	(void)state;

	sim_init(&s, 4096, 3);
	set_weights(&s, 3, three, eq3);
	add_flow(&s, CONSTANT);
	add_flow(&s, CONSTANT);
	add_flow(&s, CONSTANT);
	add_flow(&s, BURSTY);
	for (int i = 0; i < 50; i++)
		add_flow(&s, MOUSE);
	sim_run(&s, 300 * MS);
	assert_in_order(&s);
	for (unsigned i = 0; i < s.nb_flows; i++) {
		on1[i] = s.flow[i].sent && s.flow[i].last_path == 1;
		nb_on1 += on1[i];
	}
	assert_true(nb_on1 > 0);
	for (unsigned i = 0; i < SPREAD_MAX_PATHS; i++)
		at_leave[i] = s.bytes[i];

	set_weights(&s, 2, without1, eq3);
	for (unsigned i = 0; i < s.nb_flows; i++)
		nb_live_on1 += on1[i] && s.flow[i].next - s.flow[i].last < GAP;
	sim_run(&s, 600 * MS);
	assert_int_equal(s.bytes[1], at_leave[1]);
	assert_int_equal(s.to_absent, 0);
	assert_int_equal(s.forced, nb_on1);
	assert_int_equal(s.moves_in_gap, 0);
	assert_int_equal(s.reorders, 0);
	spread_stats(s.t, &st);
	assert_true(nb_live_on1 > 0);
	assert_true(st.failover >= nb_live_on1 && st.failover <= nb_on1);
	print_message("path 1 left: its %u flows moved at their next packet (%u mid-flowlet, "
		      "failover %llu); 300..600 ms: path0 %.1f MB path2 %.1f MB\n",
		      nb_on1, nb_live_on1, (unsigned long long)st.failover,
		      (s.bytes[0] - at_leave[0]) / 1e6, (s.bytes[2] - at_leave[2]) / 1e6);

	for (unsigned i = 0; i < SPREAD_MAX_PATHS; i++)
		at_return[i] = s.bytes[i];
	set_weights(&s, 3, three, eq3);
	sim_run(&s, 1 * SEC);
	assert_in_order(&s);
	for (unsigned i = 0; i < 3; i++)
		d[i] = s.bytes[i] - at_return[i];
	print_message("path 1 back: 600..1000 ms: path0 %.1f MB path1 %.1f MB path2 %.1f MB\n",
		      d[0] / 1e6, d[1] / 1e6, d[2] / 1e6);
	/* path 1 gets new flowlets (the constant elephants stay where they
	 * are), starting level: no more than its share of the others' */
	assert_true(d[1] > 0);
	assert_true(d[1] <= 1.1 * (d[0] + d[2]) / 2);
	sim_free(&s);
}

/* No path: -1, and nothing counted. */
static void no_path(void **state)
{
	struct sim s;
	struct spread_stats st;
	(void)state;
	sim_init(&s, 16, 1);
	s.w.nb = 0;
	assert_int_equal(spread_pick(s.t, &s.w, 1234, 100, 0, GAP), -1);
	assert_int_equal(spread_pick(s.t, &s.w, 1234, 100, 1 * MS, GAP), -1);
	spread_stats(s.t, &st);
	assert_int_equal(st.flowlets, 0);
	assert_int_equal(st.packets[0] + st.packets[1], 0);
	sim_free(&s);
}

/*
 * One flow: its entry keeps the path for packets less than a gap apart,
 * even when the other path is far below its share; a packet a gap later
 * starts a new flowlet, which goes to the other path.
 */
static void entry_reused_after_gap(void **state)
{
	struct sim s;
	struct spread_stats st;
	int p, q;
	(void)state;
	sim_init(&s, 4096, 1);
	set_weights(&s, 2, two, equal);
	p = spread_pick(s.t, &s.w, 42, 1500, 0, GAP);
	assert_int_equal(p, 0); /* ties go to the path listed first */
	for (uint64_t t = 100 * US; t <= 10 * MS; t += GAP - 1)
		assert_int_equal(spread_pick(s.t, &s.w, 42, 1500, t, GAP), p);
	spread_stats(s.t, &st);
	assert_int_equal(st.flowlets, 1);
	q = spread_pick(s.t, &s.w, 42, 1500, 10 * MS + GAP, GAP);
	assert_int_equal(q, 1);
	spread_stats(s.t, &st);
	assert_int_equal(st.flowlets, 2);
	assert_int_equal(st.moved, 1);
	assert_int_equal(st.collisions, 0);
	sim_free(&s);
}

/*
 * Two flows on one entry (a table of one) share a flowlet: the second stays
 * on the first's path while the entry is live, however loaded; a gap of
 * silence from both frees it.
 */
static void collision_shares_flowlet(void **state)
{
	struct sim s;
	struct spread_stats st;
	(void)state;
	sim_init(&s, 1, 1);
	set_weights(&s, 2, two, equal);
	assert_int_equal(spread_pick(s.t, &s.w, 1, 100000, 0, GAP), 0);
	assert_int_equal(spread_pick(s.t, &s.w, 2, 1500, 100 * US, GAP), 0);
	assert_int_equal(spread_pick(s.t, &s.w, 1, 1500, 200 * US, GAP), 0);
	spread_stats(s.t, &st);
	assert_int_equal(st.collisions, 2);
	assert_int_equal(st.flowlets, 1);
	assert_int_equal(spread_pick(s.t, &s.w, 2, 1500, 200 * US + GAP, GAP), 1);
	sim_free(&s);
}

/* The recent counters decay: halved once per SPREAD_DECAY_GAPS gaps, all together. */
static void recent_bytes_decay(void **state)
{
	struct sim s;
	struct spread_stats st;
	uint64_t period = SPREAD_DECAY_GAPS * GAP;
	(void)state;
	sim_init(&s, 64, 1);
	set_weights(&s, 2, two, equal);
	spread_pick(s.t, &s.w, 1, 4000, 0, GAP);
	spread_pick(s.t, &s.w, 2, 8000, 1, GAP);
	spread_stats(s.t, &st);
	assert_int_equal(st.recent[0], 4000);
	assert_int_equal(st.recent[1], 8000);
	spread_pick(s.t, &s.w, 1, 0, period, GAP);
	spread_stats(s.t, &st);
	assert_int_equal(st.recent[0], 2000);
	assert_int_equal(st.recent[1], 4000);
	spread_pick(s.t, &s.w, 1, 0, 3 * period + 5, GAP);
	spread_stats(s.t, &st);
	assert_int_equal(st.recent[0], 500);
	assert_int_equal(st.recent[1], 1000);
	assert_int_equal(st.bytes[0], 4000);
	assert_int_equal(st.bytes[1], 8000);
	sim_free(&s);
}

/*
 * Flows that agree on their hash's low 7 bits (one RSS queue's, say) still
 * use the whole table: 500 of them live at once in 4096 entries collide
 * about as random ones would (~29 expected), not all on 32 entries.
 */
static void hash_low_bits_equal(void **state)
{
	struct sim s;
	struct spread_stats st;
	unsigned n = 0;
	(void)state;
	sim_init(&s, 4096, 1);
	set_weights(&s, 2, two, equal);
	for (unsigned sport = 1; n < 500; sport++) {
		uint32_t h = flow_hash(sport);
		if ((h & 0x7f) != 0x11)
			continue;
		spread_pick(s.t, &s.w, h, 100, n, GAP);
		n++;
	}
	spread_stats(s.t, &st);
	print_message("500 flows with equal low 7 hash bits: %llu collisions in 4096 entries\n",
		      (unsigned long long)st.collisions);
	assert_true(st.collisions < 60);
	sim_free(&s);
}

/*
 * A burst (spread_pick_burst(), what the data path calls) decides as its
 * packets would one by one at the same time (spread_pick()): the same
 * paths and the same counters, over bursts of 1..64 packets from 40 flows
 * in a table of 16 entries (collisions), times within and beyond the gap,
 * and weights that change between bursts (equal and unequal shares, paths
 * leaving, joining, none).
 */
static void burst_as_one_by_one(void **state)
{
	static const struct spread_weights ws[] = {
		{ .nb = 3, .path = { 0, 1, 2 }, .share = { 1, 1, 1 } },
		{ .nb = 2, .path = { 0, 2 }, .share = { 1, 1 } },
		{ .nb = 3, .path = { 2, 0, 1 }, .share = { 5, 5, 5 } },
		{ .nb = 2, .path = { 1, 2 }, .share = { 2, 1 } },
		{ .nb = 0 },
		{ .nb = 3, .path = { 0, 1, 2 }, .share = { 1000, 3000, 1000 } },
		{ .nb = 1, .path = { 1 }, .share = { 1 } },
	};
	size_t size = spread_table_size(16);
	struct spread_table *a = calloc(1, size), *b = calloc(1, size);
	struct spread_stats sa, sb;
	uint64_t now = 0;
	uint32_t seed = 7;
	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	spread_table_init(a, 16);
	spread_table_init(b, 16);
	for (unsigned round = 0; round < 2000; round++) {
		const struct spread_weights *w = &ws[(round / 7) % (sizeof(ws) / sizeof(ws[0]))];
		uint32_t hash[64], bytes[64];
		uint8_t path[64];
		unsigned n;

		seed = seed * 1103515245u + 12345u;
		n = 1 + (seed >> 16) % 64;
		seed = seed * 1103515245u + 12345u;
		now += (seed >> 16) % 4 == 0 ? 2 * GAP : (seed >> 16) % (GAP / 4);
		for (unsigned j = 0; j < n; j++) {
			seed = seed * 1103515245u + 12345u;
			hash[j] = flow_hash(1 + (seed >> 16) % 40);
			bytes[j] = 64 + (seed >> 8) % 1437;
		}
		spread_pick_burst(a, w, hash, bytes, n, now, GAP, path);
		for (unsigned j = 0; j < n; j++) {
			int p = spread_pick(b, w, hash[j], bytes[j], now, GAP);
			assert_int_equal(p, path[j] == SPREAD_NO_PATH ? -1 : (int)path[j]);
		}
		spread_stats(a, &sa);
		spread_stats(b, &sb);
		assert_memory_equal(&sa, &sb, sizeof(sa));
	}
	assert_true(sa.moved > 0 && sa.failover > 0 && sa.collisions > 0);
	free(a);
	free(b);
}

/*
 * The reference for burst_as_reference: spread_pick() one packet at a
 * time as it was before spread_pick_burst() (an entry keeping its last
 * packet's time, every decision per packet), written plainly.
 */
struct ref_entry {
	uint64_t seen;
	uint32_t hash;
	uint8_t path; /* 0xff: never used */
};

struct ref_table {
	unsigned shift;
	bool clock_set;
	uint8_t present;
	uint64_t last_decay;
	struct spread_stats s;
	struct ref_entry entry[16];
};

static int ref_pick(struct ref_table *t, const struct spread_weights *w, uint32_t hash,
		    uint32_t bytes, uint64_t now, uint64_t gap)
{
	unsigned nb = w->nb < SPREAD_MAX_PATHS ? w->nb : SPREAD_MAX_PATHS;
	struct ref_entry *e = &t->entry[(uint32_t)(hash * 0x9e3779b1u) >> t->shift];
	uint64_t period = gap * SPREAD_DECAY_GAPS;
	uint8_t present = 0;
	bool in = false;
	int path = -1;

	if (nb == 0)
		return -1;
	if (!t->clock_set) {
		t->last_decay = now;
		t->clock_set = true;
	} else if (now >= t->last_decay && now - t->last_decay >= period) {
		uint64_t n = (now - t->last_decay) / period;
		t->last_decay += n * period;
		for (unsigned i = 0; i < SPREAD_MAX_PATHS; i++)
			t->s.recent[i] = n >= 64 ? 0 : t->s.recent[i] >> n;
	}
	for (unsigned i = 0; i < nb; i++)
		in = in || w->path[i] == e->path;
	if (e->path != 0xff && now - e->seen < gap) {
		if (e->hash != hash) {
			t->s.collisions++;
			e->hash = hash;
		}
		if (in) {
			path = e->path;
			goto count;
		}
		t->s.failover++;
	}
	/* the deficit: share[i] x sum(recent) - recent[i] x sum(share), a joined path levelled */
	double sr = 0, ss = 0, kr = 0, ks = 0, best = 0;
	for (unsigned i = 0; i < nb; i++)
		present |= (uint8_t)(1u << w->path[i]);
	for (unsigned i = 0; i < nb; i++)
		if (t->present >> w->path[i] & 1) {
			kr += (double)t->s.recent[w->path[i]];
			ks += w->share[i];
		}
	for (unsigned i = 0; i < nb; i++)
		if (!(t->present >> w->path[i] & 1))
			t->s.recent[w->path[i]] = ks > 0 ? (uint64_t)(kr * w->share[i] / ks) : 0;
	t->present = present;
	for (unsigned i = 0; i < nb; i++) {
		sr += (double)t->s.recent[w->path[i]];
		ss += w->share[i];
	}
	for (unsigned i = 0; i < nb; i++) {
		double d = w->share[i] * sr - (double)t->s.recent[w->path[i]] * ss;
		if (path < 0 || d > best) {
			path = w->path[i];
			best = d;
		}
	}
	t->s.flowlets++;
	if (e->path != 0xff && e->hash == hash && e->path != path)
		t->s.moved++;
	e->hash = hash;
	e->path = (uint8_t)path;
count:
	e->seen = now;
	t->s.recent[path] += bytes;
	t->s.bytes[path] += bytes;
	t->s.packets[path]++;
	return path;
}

/*
 * spread_pick_burst() against the reference, packet by packet: the same
 * paths and counters over random bursts of 1..300 packets (beyond the
 * fast path's 64) from 40 flows in 16 entries, the clock from 0, bursts
 * exactly a gap after the last (a new flowlet), a gap less one (the same),
 * and weights of equal and unequal shares changing between bursts.
 */
static void burst_as_reference(void **state)
{
	static const struct spread_weights ws[] = {
		{ .nb = 3, .path = { 0, 1, 2 }, .share = { 1, 1, 1 } },
		{ .nb = 2, .path = { 0, 2 }, .share = { 1, 1 } },
		{ .nb = 3, .path = { 2, 0, 1 }, .share = { 5, 5, 5 } },
		{ .nb = 2, .path = { 1, 2 }, .share = { 2, 1 } },
		{ .nb = 0 },
		{ .nb = 3, .path = { 0, 1, 2 }, .share = { 1000, 3000, 1000 } },
		{ .nb = 1, .path = { 1 }, .share = { 1 } },
		{ .nb = 4, .path = { 3, 1, 0, 2 }, .share = { 7, 7, 7, 7 } },
	};
	size_t size = spread_table_size(16);
	struct spread_table *a = calloc(1, size);
	struct ref_table r = { .shift = 28 };
	struct spread_stats sa;
	uint64_t now = 0;
	uint32_t seed = 11;
	static uint32_t hash[300], bytes[300];
	static uint8_t path[300];
	(void)state;
	assert_non_null(a);
	spread_table_init(a, 16);
	for (unsigned i = 0; i < 16; i++)
		r.entry[i].path = 0xff;
	for (unsigned round = 0; round < 3000; round++) {
		const struct spread_weights *w = &ws[(round / 5) % (sizeof(ws) / sizeof(ws[0]))];
		unsigned n, kind;

		seed = seed * 1103515245u + 12345u;
		n = 1 + (seed >> 16) % (round % 3 == 0 ? 300 : 8);
		seed = seed * 1103515245u + 12345u;
		kind = (seed >> 16) % 8;
		if (round > 0)
			now += kind == 0   ? GAP
			       : kind == 1 ? GAP - 1
			       : kind == 2 ? 3 * GAP
					   : (seed >> 16) % (GAP / 4);
		for (unsigned j = 0; j < n; j++) {
			seed = seed * 1103515245u + 12345u;
			hash[j] = flow_hash(1 + (seed >> 16) % 40);
			bytes[j] = 64 + (seed >> 8) % 1437;
		}
		spread_pick_burst(a, w, hash, bytes, n, now, GAP, path);
		for (unsigned j = 0; j < n; j++) {
			int p = ref_pick(&r, w, hash[j], bytes[j], now, GAP);
			assert_int_equal(p, path[j] == SPREAD_NO_PATH ? -1 : (int)path[j]);
		}
		spread_stats(a, &sa);
		assert_memory_equal(&sa, &r.s, sizeof(sa));
	}
	assert_true(sa.moved > 0 && sa.failover > 0 && sa.collisions > 0);
	free(a);
}

static void table_size(void **state)
{
	(void)state;
	assert_int_equal(spread_table_size(0), 0);
	assert_int_equal(spread_table_size(3), 0);
	assert_int_equal(spread_table_size(SPREAD_MAX_ENTRIES * 2), 0);
	assert_true(spread_table_size(4096) >= 4096 * 16);
	assert_true(spread_table_size(4096) < 4096 * 16 + 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(balance_equal_paths),
		cmocka_unit_test(constant_elephant_stays),
		cmocka_unit_test(shares_two_to_one),
		cmocka_unit_test(path_leaves_and_returns),
		cmocka_unit_test(no_path),
		cmocka_unit_test(entry_reused_after_gap),
		cmocka_unit_test(collision_shares_flowlet),
		cmocka_unit_test(recent_bytes_decay),
		cmocka_unit_test(hash_low_bits_equal),
		cmocka_unit_test(burst_as_one_by_one),
		cmocka_unit_test(burst_as_reference),
		cmocka_unit_test(table_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
