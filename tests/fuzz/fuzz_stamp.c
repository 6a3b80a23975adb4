/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: STAMP (failover/pathsel/stamp_proto.c, RFC 8762). Arbitrary
 * bytes become a reflector's inputs and a test packet, which goes through
 * stamp_test_decode, stamp_reflect (stateless and stateful, unauthenticated
 * and authenticated) and stamp_reply_decode; the same bytes also drive the
 * session table, the NTP conversions and the Error Estimate.
 *
 *   byte 0      bit 0: make the packet's HMAC right (authenticated runs),
 *               so the fuzzer gets past the HMAC; bit 1: run the bytes
 *               after the header as a session-table script too
 *   bytes 1-2   the reflector's Error Estimate
 *   byte 3      the received TTL
 *   bytes 4-11  t2 (receive timestamp); t3 = t2 + 4096 units
 *   then        the test packet (a heap buffer of exactly its length)
 *
 * Besides ASan/UBSan errors, it traps on a broken contract:
 *   - decode: STAMP_OK iff the packet is long enough (and, authenticated,
 *     its HMAC right); refusals leave the output zeroed;
 *   - reflect: a reply exactly when the test packet decodes, of its
 *     length, the bytes after the base packet copied back, every MBZ byte
 *     of the base zero; stamp_reply_decode of it gives back the sender's
 *     Sequence Number, Timestamp, Error Estimate, the TTL, t2, t3, and the
 *     Sequence Number (the sender's stateless, the counter's stateful, the
 *     counter then one more); the same reply in place; a buffer one byte
 *     short or a missing counter refused with nothing counted;
 *   - sender: what stamp_sender_build writes decodes to what it was given;
 *   - NTP: ns -> NTP -> ns exact (1970..2106), differences antisymmetric;
 *   - Error Estimate: covers the error, by less than one Multiplier step,
 *     at the smallest Scale;
 *   - session table: the counters agree with a model of sessions that end
 *     after the idle time (no NULL: 256 keys in 4096 slots).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/hmac.h>

#include "failover/pathsel/stamp_proto.h"

#define CHECK(c)                                                                                  \
	do {                                                                                      \
		if (!(c)) {                                                                       \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

#define HDR 12

static const struct stamp_auth key = {
	.key = "fuzz-stamp-key-0123456789abcdef!",
	.key_len = 32,
};

/* Bytes of the reply's base packet that are fields (RFC 8762 §4.3.1,
 * §4.3.2), written out here; every other byte of the base is MBZ. */
struct span {
	uint8_t off, len;
};
static const struct span unauth_fields[] = { { 0, 4 },  { 4, 8 },  { 12, 2 }, { 16, 8 },
					     { 24, 4 }, { 28, 8 }, { 36, 2 }, { 40, 1 } };
static const struct span auth_fields[] = { { 0, 4 },  { 16, 8 }, { 24, 2 }, { 32, 8 }, { 48, 4 },
					   { 64, 8 }, { 72, 2 }, { 80, 1 }, { 96, 16 } };

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void check_mbz(const uint8_t *out, bool auth)
{
	const struct span *f = auth ? auth_fields : unauth_fields;
	size_t n = auth ? sizeof(auth_fields) / sizeof(auth_fields[0])
			: sizeof(unauth_fields) / sizeof(unauth_fields[0]);
	size_t base = auth ? STAMP_AUTH_LEN : STAMP_UNAUTH_LEN;
	uint8_t field[STAMP_AUTH_LEN] = { 0 };

	for (size_t i = 0; i < n; i++)
		memset(field + f[i].off, 1, f[i].len);
	for (size_t i = 0; i < base; i++)
		CHECK(field[i] || out[i] == 0);
}

static bool zeroed(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

struct refl_in {
	uint16_t err_est;
	uint8_t ttl;
	uint64_t t2, t3;
};

/* One reflector run over @p pkt (@p len bytes, a heap buffer of exactly that). */
static void reflect_one(const uint8_t *pkt, size_t len, const struct stamp_auth *auth,
			bool stateful, const struct refl_in *in)
{
	size_t base = auth ? STAMP_AUTH_LEN : STAMP_UNAUTH_LEN;
	uint32_t counter = (uint32_t)len * 2654435761u, before = counter;
	struct stamp_test t;
	struct stamp_reply r;
	enum stamp_err e, why = STAMP_ERR_MAX;
	uint8_t *out = malloc(len ? len : 1), *inplace = malloc(len ? len : 1);
	size_t n;

	CHECK(out && inplace);
	e = stamp_test_decode(pkt, len, auth, &t);
	if (len < base)
		CHECK(e == STAMP_ERR_SHORT);
	else
		CHECK(e == STAMP_OK || (auth && e == STAMP_ERR_AUTH));
	if (e != STAMP_OK)
		CHECK(zeroed(&t, sizeof(t)));
	else
		CHECK(t.len == len);

	n = stamp_reflect(pkt, len, out, len, stateful, &counter, in->t2, in->t3, in->err_est,
			  in->ttl, auth, &why);
	CHECK(why == e);
	if (e != STAMP_OK) {
		CHECK(n == 0);
		CHECK(counter == before);
		goto done;
	}
	CHECK(n == len);
	CHECK(counter == (stateful ? before + 1 : before));
	CHECK(memcmp(out + base, pkt + base, len - base) == 0);
	check_mbz(out, auth != NULL);
	CHECK(stamp_reply_decode(out, len, auth, &r) == STAMP_OK);
	CHECK(r.len == len);
	CHECK(r.seq == (stateful ? before : t.seq));
	CHECK(r.sender_seq == t.seq);
	CHECK(r.t1 == t.t1);
	CHECK(r.sender_err_est == t.err_est);
	CHECK(r.sender_ttl == in->ttl);
	CHECK(r.t2 == in->t2);
	CHECK(r.t3 == in->t3);
	CHECK(r.err_est == in->err_est);

	/* in place: the same bytes */
	memcpy(inplace, pkt, len);
	counter = before;
	CHECK(stamp_reflect(inplace, len, inplace, len, stateful, &counter, in->t2, in->t3,
			    in->err_est, in->ttl, auth, NULL) == len);
	CHECK(memcmp(inplace, out, len) == 0);

	/* one byte short; stateful without a counter: refused, nothing counted */
	counter = before;
	CHECK(stamp_reflect(pkt, len, out, len - 1, stateful, &counter, in->t2, in->t3, in->err_est,
			    in->ttl, auth, &why) == 0);
	CHECK(why == STAMP_ERR_NO_ROOM && counter == before);
	if (stateful) {
		CHECK(stamp_reflect(pkt, len, out, len, true, NULL, in->t2, in->t3, in->err_est,
				    in->ttl, auth, &why) == 0);
		CHECK(why == STAMP_ERR_TABLE_FULL);
	}
done:
	/* the packet read as a reply: no crash, the length rule */
	e = stamp_reply_decode(pkt, len, auth, &r);
	CHECK(len >= base ? (e == STAMP_OK || (auth && e == STAMP_ERR_AUTH))
			  : e == STAMP_ERR_SHORT);
	free(out);
	free(inplace);
}

static void sender_one(const uint8_t *b, size_t len, const struct stamp_auth *auth)
{
	uint8_t buf[STAMP_AUTH_LEN];
	uint32_t seq;
	uint64_t t1;
	uint16_t ee;
	struct stamp_test t;
	size_t n;

	if (len < 14)
		return;
	seq = (uint32_t)rd64(b) ^ (uint32_t)(rd64(b) >> 32);
	t1 = rd64(b + 4);
	ee = (uint16_t)(b[12] << 8 | b[13]);
	n = stamp_sender_build(buf, sizeof(buf), seq, t1, ee, auth);
	CHECK(n == (auth ? STAMP_AUTH_LEN : STAMP_UNAUTH_LEN));
	CHECK(stamp_test_decode(buf, n, auth, &t) == STAMP_OK);
	CHECK(t.seq == seq && t.t1 == t1 && t.err_est == ee && t.len == n);
	CHECK(stamp_sender_build(buf, n - 1, seq, t1, ee, auth) == 0);
}

static void ntp_one(const uint8_t *b, size_t len)
{
	const uint64_t span = 4294967296ull * 1000000000ull; /* 1970..2106, ns */
	uint64_t ns, a, c;
	double e;
	uint16_t ee;

	if (len < 16)
		return;
	ns = rd64(b) % span;
	CHECK(stamp_unix_ns_from_ntp(stamp_ntp_from_unix_ns(ns)) == ns);
	a = rd64(b);
	c = rd64(b + 8);
	if (a - c != 1ull << 63)
		CHECK(stamp_ntp_diff_ns(a, c) == -stamp_ntp_diff_ns(c, a));

	memcpy(&e, b + 8, sizeof(e));
	ee = stamp_error_estimate(b[0] & 1, e);
	CHECK((ee & STAMP_EE_MULT_MASK) != 0);
	CHECK(!(ee & STAMP_EE_Z));
	CHECK(!!(ee & STAMP_EE_S) == (b[0] & 1));
	if (isfinite(e) && e > ldexp(1, -32) && e < ldexp(255, 31)) {
		unsigned scale = ee >> STAMP_EE_SCALE_SHIFT & STAMP_EE_SCALE_MASK;
		unsigned mult = ee & STAMP_EE_MULT_MASK;

		CHECK(stamp_error_estimate_s(ee) >= e);
		CHECK(ldexp(mult - 1, (int)scale - 32) < e);
		if (scale > 0)
			CHECK(ldexp(e, 32) > ldexp(255, (int)scale - 1));
	}
}

/* Session table against a model: 256 sessions, 3-byte records (which
 * session, ms to advance, how many replies to count). */
static void table_script(const uint8_t *b, size_t len)
{
	static struct stamp_refl_table t;
	static struct {
		bool seen;
		uint64_t last;
		uint32_t counter;
	} model[256];
	const uint64_t idle = 50000000; /* 50 ms */
	uint64_t now = 1;
	uint32_t *first[256];

	stamp_refl_table_init(&t, 0x5eed);
	memset(model, 0, sizeof(model));
	memset(first, 0, sizeof(first));
	for (size_t i = 0; i + 3 <= len; i += 3) {
		struct stamp_session_key k;
		unsigned id = b[i];
		uint32_t *c;

		now += (uint64_t)b[i + 1] * 1000000;
		memset(&k, 0, sizeof(k));
		k.family = 10;
		k.src[15] = (uint8_t)id;
		k.dst[0] = 0x20;
		k.sport = (uint16_t)(id * 7);
		k.dport = STAMP_PORT;
		c = stamp_refl_counter(&t, &k, now, idle);
		CHECK(c != NULL);
		CHECK(c >= &t.e[0].counter && c <= &t.e[STAMP_REFL_ENTRIES - 1].counter);
		/* a session keeps its slot: nothing else ever takes a live one,
		 * and it is found before any idle slot is reused */
		if (first[id] && model[id].seen && now - model[id].last <= idle)
			CHECK(c == first[id]);
		if (!model[id].seen || now - model[id].last > idle)
			model[id].counter = 0;
		CHECK(*c == model[id].counter);
		for (unsigned n = b[i + 2] & 3; n; n--) {
			(*c)++;
			model[id].counter++;
		}
		model[id].seen = true;
		model[id].last = now;
		first[id] = c;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct refl_in in;
	struct stamp_test t;
	uint8_t *pkt;
	size_t len;

	if (size < HDR)
		return 0;
	in.err_est = (uint16_t)(data[1] << 8 | data[2]);
	in.ttl = data[3];
	in.t2 = rd64(data + 4);
	in.t3 = in.t2 + 4096;
	len = size - HDR;

	pkt = malloc(len ? len : 1);
	CHECK(pkt != NULL);
	memcpy(pkt, data + HDR, len);
	reflect_one(pkt, len, NULL, false, &in);
	reflect_one(pkt, len, NULL, true, &in);
	if ((data[0] & 1) && len >= STAMP_AUTH_LEN) {
		/* the HMAC made right, so the authenticated runs get past it */
		struct hmac_sha256_ctx ctx;

		hmac_sha256_set_key(&ctx, key.key_len, key.key);
		hmac_sha256_update(&ctx, STAMP_HMAC_OFF, pkt);
		hmac_sha256_digest(&ctx, STAMP_HMAC_LEN, pkt + STAMP_HMAC_OFF);
		CHECK(stamp_test_decode(pkt, len, &key, &t) == STAMP_OK);
	}
	reflect_one(pkt, len, &key, false, &in);
	reflect_one(pkt, len, &key, true, &in);
	free(pkt);

	sender_one(data + HDR, len, NULL);
	sender_one(data + HDR, len, &key);
	ntp_one(data + HDR, len);
	if (data[0] & 2)
		table_script(data + HDR, len);
	return 0;
}
