/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STAMP (RFC 8762): packets, the reflector, NTP timestamps, the Error
 * Estimate, the stateful reflector's session table. See stamp_proto.h for
 * the contract and the byte layouts; section numbers are RFC 8762's.
 */
#include <string.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>

#include "core/be.h"
#include "failover/pathsel/stamp_proto.h"

#define NS_PER_S 1000000000ull

/* Field offsets (§4.2.1, §4.2.2, §4.3.1, §4.3.2) */
#define U_SEQ        0
#define U_TS         4
#define U_EE         12
#define U_RX_TS      16
#define U_SENDER_SEQ 24
#define U_SENDER_TS  28
#define U_SENDER_EE  36
#define U_SENDER_TTL 40
#define A_SEQ        0
#define A_TS         16
#define A_EE         24
#define A_RX_TS      32
#define A_SENDER_SEQ 48
#define A_SENDER_TS  64
#define A_SENDER_EE  72
#define A_SENDER_TTL 80

static const char *const err_names[STAMP_ERR_MAX] = {
	[STAMP_OK] = "ok",
	[STAMP_ERR_SHORT] = "short",
	[STAMP_ERR_AUTH] = "auth_mismatch",
	[STAMP_ERR_NO_ROOM] = "no_room",
	[STAMP_ERR_TABLE_FULL] = "session_table_full",
};

const char *stamp_err_name(enum stamp_err e)
{
	if ((unsigned)e >= STAMP_ERR_MAX || !err_names[e])
		return "unknown";
	return err_names[e];
}

/* ---- timestamps (RFC 5905 §6) ---- */

uint64_t stamp_ntp_from_unix_ns(uint64_t ns)
{
	uint64_t s = ns / NS_PER_S, f = ns % NS_PER_S;
	/* f < 10^9 < 2^30: f << 32 fits; rounded to nearest, the largest f
	 * gives 4294967292, so the fraction never carries into the seconds. */
	uint64_t frac = ((f << 32) + NS_PER_S / 2) / NS_PER_S;
	uint32_t sec = (uint32_t)(s + STAMP_NTP_UNIX_OFFSET); /* mod 2^32: the era */

	return (uint64_t)sec << 32 | frac;
}

uint64_t stamp_unix_ns_from_ntp(uint64_t ntp)
{
	uint64_t sec = ntp >> 32, frac = ntp & 0xffffffffu;

	/* RFC 5905 §6: the era is not on the wire; seconds below the Unix
	 * epoch's are taken as era 1 (from 2036-02-07 06:28:16 UTC). */
	if (sec < STAMP_NTP_UNIX_OFFSET)
		sec += 1ull << 32;
	sec -= STAMP_NTP_UNIX_OFFSET;
	/* frac * 10^9 < 2^62; a fraction within half a ns of 1 s carries */
	return sec * NS_PER_S + ((frac * NS_PER_S + (1ull << 31)) >> 32);
}

/* |d| in 2^-32 s units to ns, rounded; d <= 2^63 so the result fits int64 */
static uint64_t units_to_ns(uint64_t d)
{
	return (d >> 32) * NS_PER_S + (((d & 0xffffffffu) * NS_PER_S + (1ull << 31)) >> 32);
}

int64_t stamp_ntp_diff_ns(uint64_t a, uint64_t b)
{
	uint64_t d = a - b; /* modulo 2^64: across an era boundary too */

	if (d >> 63)
		return -(int64_t)units_to_ns(b - a);
	return (int64_t)units_to_ns(d);
}

int64_t stamp_rtt_ns(const struct stamp_reply *r, uint64_t t4)
{
	/* (t4 - t1) - (t3 - t2), in timestamp units first: one rounding */
	return stamp_ntp_diff_ns(t4 - r->t1 + r->t2, r->t3);
}

/* ---- Error Estimate (RFC 4656 §4.1.2) ---- */

uint16_t stamp_error_estimate(bool synced, double error_s)
{
	uint16_t ee = synced ? STAMP_EE_S : 0;
	double u, x;
	unsigned scale = 0;
	uint64_t m;

	/* NaN, zero and negative: one unit (Multiplier MUST NOT be zero) */
	if (!(error_s > 0))
		return (uint16_t)(ee | 1);
	u = error_s * 4294967296.0;             /* units of 2^-32 s, exact (a power of 2) */
	if (u >= 255.0 * 9223372036854775808.0) /* 255 * 2^63 units */
		return (uint16_t)(ee | STAMP_EE_SCALE_MASK << STAMP_EE_SCALE_SHIFT |
				  STAMP_EE_MULT_MASK);
	/* The smallest Scale with ceil(u / 2^Scale) <= 255. A larger Scale
	 * never covers it with less: ceil(x / 2) * 2 >= ceil(x). Dividing by a
	 * power of two is exact. */
	x = u;
	while (x > 255.0) {
		scale++;
		x = u / (double)(1ull << scale);
	}
	m = (uint64_t)x; /* x <= 255 */
	if ((double)m < x)
		m++;
	if (m == 0)
		m = 1;
	return (uint16_t)(ee | scale << STAMP_EE_SCALE_SHIFT | m);
}

double stamp_error_estimate_s(uint16_t err_est)
{
	unsigned scale = err_est >> STAMP_EE_SCALE_SHIFT & STAMP_EE_SCALE_MASK;
	unsigned m = err_est & STAMP_EE_MULT_MASK;

	return (double)m * (double)(1ull << scale) / 4294967296.0;
}

/* ---- authenticated mode (§4.4) ---- */

/* HMAC-SHA-256 over the first 96 bytes, truncated to 16 (§4.4: as RFC 4868) */
static void hmac16(const struct stamp_auth *a, const uint8_t *pkt, uint8_t out[STAMP_HMAC_LEN])
{
	struct hmac_sha256_ctx ctx;
	size_t klen = a->key_len <= STAMP_KEY_MAX ? a->key_len : STAMP_KEY_MAX;

	hmac_sha256_set_key(&ctx, klen, a->key);
	hmac_sha256_update(&ctx, STAMP_HMAC_OFF, pkt);
	hmac_sha256_digest(&ctx, STAMP_HMAC_LEN, out);
}

/* The packet's length check and, authenticated, its HMAC. */
static enum stamp_err check(const uint8_t *pkt, size_t len, const struct stamp_auth *auth)
{
	uint8_t d[STAMP_HMAC_LEN];

	if (len < (auth ? STAMP_AUTH_LEN : STAMP_UNAUTH_LEN))
		return STAMP_ERR_SHORT;
	if (!auth)
		return STAMP_OK;
	hmac16(auth, pkt, d);
	return memeql_sec(d, pkt + STAMP_HMAC_OFF, STAMP_HMAC_LEN) ? STAMP_OK : STAMP_ERR_AUTH;
}

/* ---- Session-Sender (§4.2) ---- */

size_t stamp_sender_build(uint8_t *buf, size_t cap, uint32_t seq, uint64_t t1, uint16_t err_est,
			  const struct stamp_auth *auth)
{
	size_t len = auth ? STAMP_AUTH_LEN : STAMP_UNAUTH_LEN;

	if (cap < len)
		return 0;
	memset(buf, 0, len); /* MBZ */
	if (!auth) {
		be32_put(buf + U_SEQ, seq);
		be64_put(buf + U_TS, t1);
		be16_put(buf + U_EE, err_est);
		return len;
	}
	be32_put(buf + A_SEQ, seq);
	be64_put(buf + A_TS, t1);
	be16_put(buf + A_EE, err_est);
	hmac16(auth, buf, buf + STAMP_HMAC_OFF);
	return len;
}

enum stamp_err stamp_test_decode(const uint8_t *pkt, size_t len, const struct stamp_auth *auth,
				 struct stamp_test *out)
{
	enum stamp_err e = check(pkt, len, auth);

	memset(out, 0, sizeof(*out));
	if (e != STAMP_OK)
		return e;
	out->len = len;
	if (!auth) {
		out->seq = be32_get(pkt + U_SEQ);
		out->t1 = be64_get(pkt + U_TS);
		out->err_est = be16_get(pkt + U_EE);
	} else {
		out->seq = be32_get(pkt + A_SEQ);
		out->t1 = be64_get(pkt + A_TS);
		out->err_est = be16_get(pkt + A_EE);
	}
	return STAMP_OK;
}

/* ---- Session-Reflector (§4.3) ---- */

size_t stamp_reflect(const uint8_t *pkt, size_t len, uint8_t *out, size_t cap, bool stateful,
		     uint32_t *counter, uint64_t t2, uint64_t t3, uint16_t err_est, uint8_t ttl,
		     const struct stamp_auth *auth, enum stamp_err *why)
{
	size_t base = auth ? STAMP_AUTH_LEN : STAMP_UNAUTH_LEN;
	struct stamp_test t;
	enum stamp_err e;
	uint32_t seq;

	e = stamp_test_decode(pkt, len, auth, &t);
	if (e == STAMP_OK && cap < len)
		e = STAMP_ERR_NO_ROOM;
	if (e == STAMP_OK && stateful && !counter)
		e = STAMP_ERR_TABLE_FULL;
	if (why)
		*why = e;
	if (e != STAMP_OK)
		return 0;

	/* §4.3.1: stateless copies the sender's Sequence Number, stateful
	 * counts the session's replies. */
	seq = stateful ? (*counter)++ : t.seq;

	/* What follows the base packet goes back as it came; everything the
	 * reply needs from the base packet is in t, so it may be overwritten
	 * (out == pkt). */
	if (out != pkt)
		memmove(out + base, pkt + base, len - base);
	memset(out, 0, base); /* MBZ */
	if (!auth) {
		be32_put(out + U_SEQ, seq);
		be64_put(out + U_TS, t3);
		be16_put(out + U_EE, err_est);
		be64_put(out + U_RX_TS, t2);
		be32_put(out + U_SENDER_SEQ, t.seq);
		be64_put(out + U_SENDER_TS, t.t1);
		be16_put(out + U_SENDER_EE, t.err_est);
		out[U_SENDER_TTL] = ttl;
	} else {
		be32_put(out + A_SEQ, seq);
		be64_put(out + A_TS, t3);
		be16_put(out + A_EE, err_est);
		be64_put(out + A_RX_TS, t2);
		be32_put(out + A_SENDER_SEQ, t.seq);
		be64_put(out + A_SENDER_TS, t.t1);
		be16_put(out + A_SENDER_EE, t.err_est);
		out[A_SENDER_TTL] = ttl;
		hmac16(auth, out, out + STAMP_HMAC_OFF);
	}
	return len;
}

enum stamp_err stamp_reply_decode(const uint8_t *pkt, size_t len, const struct stamp_auth *auth,
				  struct stamp_reply *out)
{
	enum stamp_err e = check(pkt, len, auth);

	memset(out, 0, sizeof(*out));
	if (e != STAMP_OK)
		return e;
	out->len = len;
	if (!auth) {
		out->seq = be32_get(pkt + U_SEQ);
		out->t3 = be64_get(pkt + U_TS);
		out->err_est = be16_get(pkt + U_EE);
		out->t2 = be64_get(pkt + U_RX_TS);
		out->sender_seq = be32_get(pkt + U_SENDER_SEQ);
		out->t1 = be64_get(pkt + U_SENDER_TS);
		out->sender_err_est = be16_get(pkt + U_SENDER_EE);
		out->sender_ttl = pkt[U_SENDER_TTL];
	} else {
		out->seq = be32_get(pkt + A_SEQ);
		out->t3 = be64_get(pkt + A_TS);
		out->err_est = be16_get(pkt + A_EE);
		out->t2 = be64_get(pkt + A_RX_TS);
		out->sender_seq = be32_get(pkt + A_SENDER_SEQ);
		out->t1 = be64_get(pkt + A_SENDER_TS);
		out->sender_err_est = be16_get(pkt + A_SENDER_EE);
		out->sender_ttl = pkt[A_SENDER_TTL];
	}
	return STAMP_OK;
}

/* ---- the stateful reflector's sessions (§4.3.1) ---- */

/* A 64-bit finalizer (xor-shift-multiply, the constants of SplitMix64,
 * Steele, Lea and Flood 2014): every input bit reaches every output bit. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Field by field: the struct's padding bytes are never read. */
static uint64_t key_hash(uint64_t seed, const struct stamp_session_key *k)
{
	uint64_t h = seed;

	h = mix64(h ^ ld64(k->src));
	h = mix64(h ^ ld64(k->src + 8));
	h = mix64(h ^ ld64(k->dst));
	h = mix64(h ^ ld64(k->dst + 8));
	h = mix64(h ^ ((uint64_t)k->extra << 32 | (uint64_t)k->sport << 16 | k->dport));
	return mix64(h ^ k->family);
}

static bool key_equal(const struct stamp_session_key *a, const struct stamp_session_key *b)
{
	return a->family == b->family && a->sport == b->sport && a->dport == b->dport &&
	       a->extra == b->extra && memcmp(a->src, b->src, sizeof(a->src)) == 0 &&
	       memcmp(a->dst, b->dst, sizeof(a->dst)) == 0;
}

static bool idle(const struct stamp_refl_entry *e, uint64_t now_ns, uint64_t idle_ns)
{
	return now_ns > e->last_ns && now_ns - e->last_ns > idle_ns;
}

void stamp_refl_table_init(struct stamp_refl_table *t, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->seed = seed;
}

uint32_t *stamp_refl_counter(struct stamp_refl_table *t, const struct stamp_session_key *k,
			     uint64_t now_ns, uint64_t idle_ns)
{
	const uint32_t mask = STAMP_REFL_ENTRIES - 1;
	uint32_t first = (uint32_t)key_hash(t->seed, k) & mask;
	struct stamp_refl_entry *slot = NULL, *oldest = NULL;

	/* A session lives within the window from its hash. Slots are never
	 * emptied, so the session cannot be past a never-used slot; an idle
	 * slot is taken only once the window shows the session is not there. */
	for (uint32_t i = 0; i < STAMP_REFL_PROBE; i++) {
		struct stamp_refl_entry *e = &t->e[(first + i) & mask];

		if (!e->used) {
			if (!slot)
				slot = e;
			break;
		}
		if (key_equal(&e->key, k)) {
			if (idle(e, now_ns, idle_ns)) {
				/* the old session ended; this packet begins a new one */
				e->counter = 0;
				t->created++;
			}
			e->last_ns = now_ns;
			return &e->counter;
		}
		if (!slot && idle(e, now_ns, idle_ns))
			slot = e;
		if (!oldest || e->last_ns < oldest->last_ns)
			oldest = e;
	}
	if (!slot) {
		/* every slot of the window is live: the session seen longest ago
		 * gives its slot up, so that a flood of new tuples (spoofed
		 * sources) costs live sessions a restart of their count, never
		 * their answers */
		slot = oldest;
		t->evicted++;
	}
	slot->key = *k;
	slot->used = true;
	slot->counter = 0;
	slot->last_ns = now_ns;
	t->created++;
	return &slot->counter;
}
