/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STAMP (failover/pathsel/stamp_proto.c, RFC 8762): the packets against byte
 * layouts written out here from the RFC's figures (§4.2.1, §4.2.2, §4.3.1,
 * §4.3.2), the HMAC computed here with nettle (§4.4), NTP timestamps and
 * Error Estimates against values worked out by hand, the reflector's
 * stateless and stateful Sequence Numbers, the session table.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <nettle/hmac.h>

#include "failover/pathsel/stamp_proto.h"

#define NS 1ull
#define US 1000ull
#define MS 1000000ull
#define S  1000000000ull

/* NTP seconds of the Unix epoch, 2208988800 (RFC 5905 Figure 4: 1970 is
 * NTP era 0 second 2,208,988,800) */
#define NTP_EPOCH 0x83aa7e80ull

static const struct stamp_auth key32 = {
	.key = "0123456789abcdef0123456789abcdef",
	.key_len = 32,
};

/* RFC 8762 §4.4 by nettle alone: HMAC-SHA-256 of bytes 0..95, first 16 bytes */
static void ref_hmac(const struct stamp_auth *a, const uint8_t *pkt, uint8_t out[16])
{
	struct hmac_sha256_ctx ctx;

	hmac_sha256_set_key(&ctx, a->key_len, a->key);
	hmac_sha256_update(&ctx, 96, pkt);
	hmac_sha256_digest(&ctx, 16, out);
}

/* ---- the packets, byte by byte ---- */

static void test_sender_layout_unauth(void **state)
{
	/* §4.2.1 Figure 2: Sequence Number, Timestamp (8), Error Estimate,
	 * MBZ (30 octets) */
	static const uint8_t want[44] = {
		0x01, 0x02, 0x03, 0x04,                         /* Sequence Number */
		0x83, 0xaa, 0x7e, 0x81, 0x80, 0x00, 0x00, 0x00, /* Timestamp: epoch + 1.5 s */
		0x81, 0x05, /* Error Estimate: S, Scale 1, Mult 5 */
			    /* MBZ, 30 octets */
	};
	uint8_t buf[64];

	(void)state;
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(stamp_sender_build(buf, sizeof(buf), 0x01020304,
					    (NTP_EPOCH + 1) << 32 | 0x80000000u, 0x8105, NULL),
			 44);
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(buf[44], 0xa5); /* nothing past the packet */
	/* too small: nothing written */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(stamp_sender_build(buf, 43, 1, 2, 3, NULL), 0);
	assert_int_equal(buf[0], 0xa5);
}

static void test_sender_layout_auth(void **state)
{
	/* §4.2.2 Figure 3: Sequence Number, MBZ (12), Timestamp (8), Error
	 * Estimate, MBZ (70), HMAC (16) */
	static const uint8_t want[96] = {
		/* 0: Sequence Number, MBZ (12 octets) */
		0xa1, 0xb2, 0xc3, 0xd4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		/* 16: Timestamp, Error Estimate (Z set: PTPv2), MBZ... */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x42, 0x03, 0, 0, 0, 0, 0, 0,
		/* 32..95: MBZ */
	};
	uint8_t buf[112], mac[16];

	(void)state;
	assert_int_equal(stamp_sender_build(buf, sizeof(buf), 0xa1b2c3d4, 0x0102030405060708ull,
					    0x4203, &key32),
			 112);
	assert_memory_equal(buf, want, sizeof(want));
	ref_hmac(&key32, want, mac);
	assert_memory_equal(buf + 96, mac, 16);
	assert_int_equal(stamp_sender_build(buf, 111, 1, 2, 3, &key32), 0);
}

/* A test packet as the RFC draws it, MBZ bytes not zero: a receiver ignores them. */
static void unauth_test_packet(uint8_t p[44])
{
	static const uint8_t head[14] = { 0x01, 0x02, 0x03, 0x04, 0x83, 0xaa, 0x7e,
					  0x81, 0x80, 0x00, 0x00, 0x00, 0x81, 0x05 };

	memset(p, 0xee, 44);
	memcpy(p, head, sizeof(head));
}

static void test_reflect_layout_unauth(void **state)
{
	/* §4.3.1 Figure 4 */
	static const uint8_t want[44] = {
		0x01, 0x02, 0x03, 0x04, /* Sequence Number (stateless: the sender's) */
		0x83, 0xaa, 0x7e, 0x82, 0x00, 0x00, 0x10, 0x00, /* Timestamp (t3) */
		0x0a, 0x20,                                     /* Error Estimate */
		0x00, 0x00,                                     /* MBZ */
		0x83, 0xaa, 0x7e, 0x82, 0x00, 0x00, 0x00, 0x01, /* Receive Timestamp (t2) */
		0x01, 0x02, 0x03, 0x04,                         /* Session-Sender Sequence Number */
		0x83, 0xaa, 0x7e, 0x81, 0x80, 0x00, 0x00, 0x00, /* Session-Sender Timestamp */
		0x81, 0x05,                                     /* Session-Sender Error Estimate */
		0x00, 0x00,                                     /* MBZ */
		0x3d, 0x00, 0x00, 0x00,                         /* Ses-Sender TTL, MBZ */
	};
	uint8_t pkt[44], out[44];
	enum stamp_err why = STAMP_ERR_MAX;

	(void)state;
	unauth_test_packet(pkt);
	assert_int_equal(stamp_reflect(pkt, sizeof(pkt), out, sizeof(out), false, NULL,
				       (NTP_EPOCH + 2) << 32 | 1, (NTP_EPOCH + 2) << 32 | 0x1000,
				       0x0a20, 61, NULL, &why),
			 44);
	assert_int_equal(why, STAMP_OK);
	assert_memory_equal(out, want, sizeof(want));
}

static void test_reflect_layout_auth(void **state)
{
	/* §4.3.2 Figure 5, one 16-octet row a line */
	static const uint8_t want[96] = {
		/* 0: Sequence Number (stateful: the reflector's 7), MBZ (12) */
		0x00,
		0x00,
		0x00,
		0x07,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		/* 16: Timestamp (t3), Error Estimate, MBZ (6) */
		0x11,
		0x12,
		0x13,
		0x14,
		0x15,
		0x16,
		0x17,
		0x18,
		0x8a,
		0x01,
		0,
		0,
		0,
		0,
		0,
		0,
		/* 32: Receive Timestamp (t2), MBZ (8) */
		0x21,
		0x22,
		0x23,
		0x24,
		0x25,
		0x26,
		0x27,
		0x28,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		/* 48: Session-Sender Sequence Number, MBZ (12) */
		0xa1,
		0xb2,
		0xc3,
		0xd4,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		/* 64: Session-Sender Timestamp, Session-Sender Error Estimate, MBZ (6) */
		0x01,
		0x02,
		0x03,
		0x04,
		0x05,
		0x06,
		0x07,
		0x08,
		0x42,
		0x03,
		0,
		0,
		0,
		0,
		0,
		0,
		/* 80: Ses-Sender TTL, MBZ (15) */
		0xfe,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
	};
	uint8_t pkt[112], out[112], mac[16];
	uint32_t counter = 7;
	enum stamp_err why;

	(void)state;
	stamp_sender_build(pkt, sizeof(pkt), 0xa1b2c3d4, 0x0102030405060708ull, 0x4203, &key32);
	assert_int_equal(stamp_reflect(pkt, sizeof(pkt), out, sizeof(out), true, &counter,
				       0x2122232425262728ull, 0x1112131415161718ull, 0x8a01, 254,
				       &key32, &why),
			 112);
	assert_int_equal(why, STAMP_OK);
	assert_int_equal(counter, 8);
	assert_memory_equal(out, want, sizeof(want));
	ref_hmac(&key32, want, mac);
	assert_memory_equal(out + 96, mac, 16);
}

static void test_decode_fields(void **state)
{
	/* a reply as §4.3.1 draws it, MBZ bytes set (ignored) */
	static const uint8_t reply[44] = {
		0x00, 0x00, 0x00, 0x2a, 0x83, 0xaa, 0x7e, 0x90, 0x40, 0x00, 0x00,
		0x00, 0x01, 0x10, 0xff, 0xff, 0x83, 0xaa, 0x7e, 0x90, 0x20, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x83, 0xaa, 0x7e, 0x8f, 0x00,
		0x00, 0x00, 0x01, 0x80, 0x01, 0xff, 0xff, 0x40, 0xff, 0xff, 0xff,
	};
	uint8_t pkt[44];
	struct stamp_test t;
	struct stamp_reply r;

	(void)state;
	unauth_test_packet(pkt);
	assert_int_equal(stamp_test_decode(pkt, sizeof(pkt), NULL, &t), STAMP_OK);
	assert_int_equal(t.seq, 0x01020304);
	assert_true(t.t1 == ((NTP_EPOCH + 1) << 32 | 0x80000000u));
	assert_int_equal(t.err_est, 0x8105);
	assert_int_equal(t.len, 44);

	assert_int_equal(stamp_reply_decode(reply, sizeof(reply), NULL, &r), STAMP_OK);
	assert_int_equal(r.seq, 42);
	assert_true(r.t3 == ((NTP_EPOCH + 16) << 32 | 0x40000000u));
	assert_int_equal(r.err_est, 0x0110);
	assert_true(r.t2 == ((NTP_EPOCH + 16) << 32 | 0x20000000u));
	assert_int_equal(r.sender_seq, 256);
	assert_true(r.t1 == ((NTP_EPOCH + 15) << 32 | 1));
	assert_int_equal(r.sender_err_est, 0x8001);
	assert_int_equal(r.sender_ttl, 64);
	assert_int_equal(r.len, 44);
}

/* ---- NTP timestamps (RFC 5905 §6) ---- */

static void test_ntp_known_values(void **state)
{
	(void)state;
	/* the Unix epoch is NTP second 2208988800, fraction 0 */
	assert_true(stamp_ntp_from_unix_ns(0) == NTP_EPOCH << 32);
	assert_true(stamp_unix_ns_from_ntp(NTP_EPOCH << 32) == 0);
	/* 2000-01-01 00:00:00 UTC: Unix 946684800, NTP 3155673600 */
	assert_true(stamp_ntp_from_unix_ns(946684800ull * S) == 3155673600ull << 32);
	/* half a second is 2^31 units; 1.5 s */
	assert_true(stamp_ntp_from_unix_ns(1500 * MS) == ((NTP_EPOCH + 1) << 32 | 0x80000000u));
	assert_true(stamp_unix_ns_from_ntp(NTP_EPOCH << 32 | 0x80000000u) == 500 * MS);
	/* 1 ns = 4.294967296 units: rounds to 4; 999999999 ns to 2^32 - 4.29 -> 0xfffffffc */
	assert_true(stamp_ntp_from_unix_ns(1) == (NTP_EPOCH << 32 | 4));
	assert_true(stamp_ntp_from_unix_ns(999999999) == (NTP_EPOCH << 32 | 0xfffffffcu));
	/* 3 units = 0.698 ns -> 1 ns; 2 units = 0.466 ns -> 0 */
	assert_true(stamp_unix_ns_from_ntp(NTP_EPOCH << 32 | 3) == 1);
	assert_true(stamp_unix_ns_from_ntp(NTP_EPOCH << 32 | 2) == 0);
	/* 2^32 - 1 units is 0.99999999977 s: rounds up into the next second */
	assert_true(stamp_unix_ns_from_ntp(NTP_EPOCH << 32 | 0xffffffffu) == S);
	/* era 1 (RFC 5905 §6): NTP second 0 again is 2036-02-07 06:28:16 UTC,
	 * Unix 2^32 - 2208988800 = 2085978496 */
	assert_true(stamp_ntp_from_unix_ns(2085978496ull * S) == 0);
	assert_true(stamp_unix_ns_from_ntp(0) == 2085978496ull * S);
	assert_true(stamp_ntp_from_unix_ns(2085978495ull * S) == 0xffffffffull << 32);
	/* every ns round-trips, 1970..2106 */
	for (uint64_t ns = 0; ns < 2000; ns++) {
		uint64_t at[] = { ns, 1700000000ull * S + ns * 499999, 2085978495ull * S + ns * 997,
				  4294967295ull * S + ns };

		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
			assert_true(stamp_unix_ns_from_ntp(stamp_ntp_from_unix_ns(at[i])) == at[i]);
	}
}

static void test_ntp_diff(void **state)
{
	uint64_t a = stamp_ntp_from_unix_ns(1700000000ull * S);

	(void)state;
	assert_int_equal(stamp_ntp_diff_ns(a + (3ull << 31), a), 1500 * MS);
	assert_int_equal(stamp_ntp_diff_ns(a, a + (3ull << 31)), -(int64_t)(1500 * MS));
	assert_int_equal(stamp_ntp_diff_ns(a, a), 0);
	/* across the era boundary: 1 s before it to 1 s after */
	assert_int_equal(stamp_ntp_diff_ns(stamp_ntp_from_unix_ns(2085978497ull * S),
					   stamp_ntp_from_unix_ns(2085978495ull * S)),
			 2 * S);
}

/* ---- Error Estimate (RFC 4656 §4.1.2) ---- */

static void test_error_estimate(void **state)
{
	(void)state;
	/* Multiplier MUST NOT be zero: nothing, or less than a unit, is one unit */
	assert_int_equal(stamp_error_estimate(false, 0), 0x0001);
	assert_int_equal(stamp_error_estimate(true, 0), 0x8001);
	assert_int_equal(stamp_error_estimate(false, -1), 0x0001);
	assert_int_equal(stamp_error_estimate(false, NAN), 0x0001);
	assert_int_equal(stamp_error_estimate(false, 1e-12), 0x0001);
	assert_int_equal(stamp_error_estimate(false, ldexp(1, -32)), 0x0001);
	/* 1 ns = 4.29 units: Scale 0, Multiplier 5 */
	assert_int_equal(stamp_error_estimate(false, 1e-9), 0x0005);
	/* 255 units still Scale 0; 256 units: Scale 1, Multiplier 128 */
	assert_int_equal(stamp_error_estimate(false, ldexp(255, -32)), 0x00ff);
	assert_int_equal(stamp_error_estimate(false, ldexp(256, -32)), 0x0180);
	/* 1 µs = 4294.97 units: /2^4 = 268.4 too big, /2^5 = 134.2 -> 135
	 * (135 * 32 = 4320 >= 4294.97 > 134 * 32) */
	assert_int_equal(stamp_error_estimate(true, 1e-6), 0x8000 | 5 << 8 | 135);
	/* 1 ms = 4294967.3 units: Scale 15, Multiplier 132 (131 * 2^15 = 4292608 < it) */
	assert_int_equal(stamp_error_estimate(false, 1e-3), 15 << 8 | 132);
	/* 1 s = 2^32 units: Scale 25, Multiplier 128 */
	assert_int_equal(stamp_error_estimate(false, 1.0), 25 << 8 | 128);
	/* beyond 255 * 2^31 s: the largest */
	assert_int_equal(stamp_error_estimate(false, 1e30), 0x3fff);
	assert_int_equal(stamp_error_estimate(false, INFINITY), 0x3fff);

	/* decoded back: covers what was asked, by less than one step */
	for (double e = 1e-10; e < 1e6; e *= 1.37) {
		uint16_t ee = stamp_error_estimate(false, e);
		unsigned scale = ee >> 8 & 0x3f, mult = ee & 0xff;

		assert_true(stamp_error_estimate_s(ee) >= e);
		assert_true(mult >= 1);
		assert_true(ldexp(mult - 1, (int)scale - 32) < e);
		/* the smallest Scale: one less would need more than 255 */
		if (scale > 0)
			assert_true(e * ldexp(1, 32) > ldexp(255, (int)scale - 1));
	}
	assert_true(stamp_error_estimate_s(25 << 8 | 128) == 1.0);
	assert_true(stamp_error_estimate_s(0x8001) == ldexp(1, -32)); /* S ignored */
}

/* ---- the reflector ---- */

static void test_reflect_stateless_copies_seq(void **state)
{
	uint8_t pkt[44], out[44];
	struct stamp_reply r;
	uint32_t counter = 99;

	(void)state;
	for (uint32_t seq = 0; seq < 5; seq++) {
		stamp_sender_build(pkt, sizeof(pkt), seq * 1000 + 7, 1, 1, NULL);
		/* a counter passed in stateless mode is neither read nor changed */
		assert_int_equal(stamp_reflect(pkt, sizeof(pkt), out, sizeof(out), false, &counter,
					       2, 3, 1, 64, NULL, NULL),
				 44);
		assert_int_equal(stamp_reply_decode(out, sizeof(out), NULL, &r), STAMP_OK);
		assert_int_equal(r.seq, seq * 1000 + 7);
		assert_int_equal(r.sender_seq, seq * 1000 + 7);
	}
	assert_int_equal(counter, 99);
}

static struct stamp_session_key session(uint32_t i)
{
	struct stamp_session_key k;

	memset(&k, 0, sizeof(k));
	k.family = 2;
	k.src[0] = 10;
	k.src[1] = (uint8_t)(i >> 16);
	k.src[2] = (uint8_t)(i >> 8);
	k.src[3] = (uint8_t)i;
	k.dst[0] = 192;
	k.dst[1] = 0;
	k.dst[2] = 2;
	k.dst[3] = 1;
	k.sport = (uint16_t)(40000 + i);
	k.dport = STAMP_PORT;
	return k;
}

static struct stamp_refl_table *table_new(void)
{
	struct stamp_refl_table *t = malloc(sizeof(*t));

	assert_non_null(t);
	stamp_refl_table_init(t, 0x1234567887654321ull);
	return t;
}

/* One stateful exchange: the session's counter, reflect, the reply's Sequence Number. */
static uint32_t stateful_seq(struct stamp_refl_table *t, const struct stamp_session_key *k,
			     uint32_t sender_seq, uint64_t now, uint64_t idle)
{
	uint8_t pkt[44], out[44];
	struct stamp_reply r;
	uint32_t *c = stamp_refl_counter(t, k, now, idle);

	assert_non_null(c);
	stamp_sender_build(pkt, sizeof(pkt), sender_seq, 1, 1, NULL);
	assert_int_equal(
		stamp_reflect(pkt, sizeof(pkt), out, sizeof(out), true, c, 2, 3, 1, 64, NULL, NULL),
		44);
	assert_int_equal(stamp_reply_decode(out, sizeof(out), NULL, &r), STAMP_OK);
	assert_int_equal(r.sender_seq, sender_seq);
	return r.seq;
}

static void test_reflect_stateful_counter(void **state)
{
	struct stamp_refl_table *t = table_new();
	struct stamp_session_key a = session(1), b = session(2), a_port = session(1);
	uint64_t now = 5 * S;

	(void)state;
	a_port.sport++; /* same addresses, another source port: another session */
	/* §4.3.1: the reflector's own count, from 0, whatever the sender's
	 * numbers (here the sender lost some: 100, 103, 104) */
	assert_int_equal(stateful_seq(t, &a, 100, now, S), 0);
	assert_int_equal(stateful_seq(t, &a, 103, now + 10 * MS, S), 1);
	assert_int_equal(stateful_seq(t, &b, 0, now + 11 * MS, S), 0);
	assert_int_equal(stateful_seq(t, &a, 104, now + 20 * MS, S), 2);
	assert_int_equal(stateful_seq(t, &b, 1, now + 21 * MS, S), 1);
	assert_int_equal(stateful_seq(t, &a_port, 0, now + 22 * MS, S), 0);
	assert_int_equal(stateful_seq(t, &a, 105, now + 30 * MS, S), 3);
	/* extra (e.g. the ingress line) separates sessions too */
	b.extra = 7;
	assert_int_equal(stateful_seq(t, &b, 2, now + 31 * MS, S), 0);
	assert_int_equal(t->created, 4);
	free(t);
}

static void test_table_idle_reuse(void **state)
{
	struct stamp_refl_table *t = table_new();
	struct stamp_session_key a = session(1);
	uint32_t *c, *c2;

	(void)state;
	c = stamp_refl_counter(t, &a, 1 * S, 10 * S);
	assert_non_null(c);
	*c = 41;
	/* within the idle time: the same session */
	c2 = stamp_refl_counter(t, &a, 11 * S, 10 * S);
	assert_ptr_equal(c2, c);
	assert_int_equal(*c2, 41);
	/* 10 s since the last packet is not more than 10 s: still the same */
	assert_int_equal(*stamp_refl_counter(t, &a, 21 * S, 10 * S), 41);
	/* longer: the session ended, this packet starts a new one at 0 */
	c2 = stamp_refl_counter(t, &a, 31 * S + 1, 10 * S);
	assert_ptr_equal(c2, c);
	assert_int_equal(*c2, 0);
	assert_int_equal(t->created, 2);
	free(t);
}

/* Sessions until a window fills, then a flood of new tuples: each one
 * evicts the least recently seen session of its window, never refused; a
 * live session that keeps sending (seen last) is the last to go. */
static void test_table_evicts(void **state)
{
	struct stamp_refl_table *t = table_new();
	struct stamp_session_key k;
	uint32_t n = 0, *c;
	uint64_t idle = 10 * S;

	(void)state;
	/* live sessions until the first eviction */
	while (t->evicted == 0) {
		k = session(n);
		c = stamp_refl_counter(t, &k, S + n, idle);
		assert_non_null(c);
		assert_int_equal(*c, 0);
		*c = n + 1000;
		n++;
		assert_true(n <= STAMP_REFL_ENTRIES + 1);
	}
	print_message("stamp table: %u of %u sessions before the first eviction\n", n - 1,
		      STAMP_REFL_ENTRIES);
	/* with linear probing in 64-slot windows, a good hash fills it far */
	assert_true(n - 1 >= STAMP_REFL_ENTRIES * 3 / 4);
	assert_int_equal(t->created, n);

	/* a legitimate session, seen every round of the flood below */
	struct stamp_session_key live = session(7);
	uint64_t now = 2 * S;
	c = stamp_refl_counter(t, &live, now, idle);
	assert_int_equal(*c, 1007); /* still there, its count kept */
	(*c)++;
	/* 6000 spoofed tuples (more than the table), one each, with the live
	 * session's packet between every 50 of them: it is answered each time */
	uint32_t restarts = 0;
	for (uint32_t i = 0; i < 6000; i++) {
		k = session(300000 + i);
		assert_non_null(stamp_refl_counter(t, &k, now + i, idle));
		if (i % 50 == 49) {
			c = stamp_refl_counter(t, &live, now + i, idle);
			assert_non_null(c);
			restarts += *c == 0;
			(*c)++;
		}
	}
	assert_true(t->evicted > 1000);
	/* seen every 50 new tuples, it is never the oldest of its 64-slot window */
	assert_int_equal(restarts, 0);
	free(t);
}

static void test_reflect_longer_packet(void **state)
{
	uint8_t pkt[60], out[60], copy[60];
	struct stamp_reply r;
	uint32_t counter = 0;

	(void)state;
	/* 44 bytes and 16 more (an RFC 8972 TLV, or padding) */
	stamp_sender_build(pkt, sizeof(pkt), 9, 0x1111, 0x0001, NULL);
	for (int i = 44; i < 60; i++)
		pkt[i] = (uint8_t)(0xc0 + i);
	memcpy(copy, pkt, sizeof(pkt));
	assert_int_equal(stamp_reflect(pkt, sizeof(pkt), out, sizeof(out), true, &counter, 2, 3, 1,
				       64, NULL, NULL),
			 60);
	assert_memory_equal(out + 44, copy + 44, 16);
	assert_int_equal(stamp_reply_decode(out, sizeof(out), NULL, &r), STAMP_OK);
	assert_int_equal(r.len, 60);
	assert_int_equal(r.sender_seq, 9);
	/* in place: the same reply */
	counter = 0;
	assert_int_equal(stamp_reflect(pkt, sizeof(pkt), pkt, sizeof(pkt), true, &counter, 2, 3, 1,
				       64, NULL, NULL),
			 60);
	assert_memory_equal(pkt, out, sizeof(out));

	/* authenticated, 112 + 8: the HMAC still over bytes 0..95, the tail back as sent */
	{
		uint8_t a[120], ao[120], mac[16];

		stamp_sender_build(a, sizeof(a), 1, 2, 3, &key32);
		memset(a + 112, 0x5a, 8);
		assert_int_equal(stamp_reflect(a, sizeof(a), ao, sizeof(ao), false, NULL, 2, 3, 1,
					       64, &key32, NULL),
				 120);
		ref_hmac(&key32, ao, mac);
		assert_memory_equal(ao + 96, mac, 16);
		assert_memory_equal(ao + 112, a + 112, 8);
	}
}

static void test_short_rejected(void **state)
{
	uint8_t pkt[112] = { 0 }, out[112];
	struct stamp_test t;
	struct stamp_reply r;
	enum stamp_err why = STAMP_OK;
	uint32_t counter = 5;

	(void)state;
	for (size_t len = 0; len < 44; len++) {
		assert_int_equal(stamp_test_decode(pkt, len, NULL, &t), STAMP_ERR_SHORT);
		assert_int_equal(stamp_reply_decode(pkt, len, NULL, &r), STAMP_ERR_SHORT);
		assert_int_equal(stamp_reflect(pkt, len, out, sizeof(out), false, NULL, 1, 2, 1, 64,
					       NULL, &why),
				 0);
		assert_int_equal(why, STAMP_ERR_SHORT);
	}
	/* 44 bytes are enough only unauthenticated */
	assert_int_equal(stamp_test_decode(pkt, 44, NULL, &t), STAMP_OK);
	for (size_t len = 44; len < 112; len++) {
		assert_int_equal(stamp_test_decode(pkt, len, &key32, &t), STAMP_ERR_SHORT);
		assert_int_equal(stamp_reply_decode(pkt, len, &key32, &r), STAMP_ERR_SHORT);
	}
	/* the reply does not fit: no_room */
	assert_int_equal(stamp_reflect(pkt, 50, out, 49, true, &counter, 1, 2, 1, 64, NULL, &why),
			 0);
	assert_int_equal(why, STAMP_ERR_NO_ROOM);
	/* stateful without a counter (the table was full) */
	assert_int_equal(
		stamp_reflect(pkt, 44, out, sizeof(out), true, NULL, 1, 2, 1, 64, NULL, &why), 0);
	assert_int_equal(why, STAMP_ERR_TABLE_FULL);
	/* a refused packet does not count */
	assert_int_equal(counter, 5);
	/* MBZ is not checked (§4.2.1: ignored on receipt) */
	memset(pkt, 0xff, sizeof(pkt));
	assert_int_equal(stamp_test_decode(pkt, 44, NULL, &t), STAMP_OK);
}

static void test_auth_round_trip_and_tamper(void **state)
{
	struct stamp_auth other = key32;
	uint8_t pkt[112], out[112], bad[112];
	struct stamp_test t;
	struct stamp_reply r;
	enum stamp_err why;
	uint32_t counter = 0;

	(void)state;
	other.key[31] ^= 1;
	assert_int_equal(stamp_sender_build(pkt, sizeof(pkt), 77, 0xabcdef, 0x8001, &key32), 112);
	assert_int_equal(stamp_test_decode(pkt, sizeof(pkt), &key32, &t), STAMP_OK);
	assert_int_equal(t.seq, 77);
	assert_int_equal(t.t1, 0xabcdef);
	assert_int_equal(stamp_reflect(pkt, sizeof(pkt), out, sizeof(out), true, &counter, 5, 6,
				       0x8001, 250, &key32, &why),
			 112);
	assert_int_equal(stamp_reply_decode(out, sizeof(out), &key32, &r), STAMP_OK);
	assert_int_equal(r.sender_seq, 77);
	assert_int_equal(r.t1, 0xabcdef);
	assert_int_equal(r.t2, 5);
	assert_int_equal(r.t3, 6);
	assert_int_equal(r.seq, 0);
	assert_int_equal(r.sender_ttl, 250);

	/* another key */
	assert_int_equal(stamp_test_decode(pkt, sizeof(pkt), &other, &t), STAMP_ERR_AUTH);
	assert_int_equal(stamp_reply_decode(out, sizeof(out), &other, &r), STAMP_ERR_AUTH);
	/* any bit of the 112 bytes changed, MBZ included (the HMAC covers
	 * bytes 0..95, and is itself 96..111) */
	for (size_t i = 0; i < 112; i++) {
		memcpy(bad, pkt, sizeof(bad));
		bad[i] ^= (uint8_t)(1u << (i % 8));
		assert_int_equal(stamp_test_decode(bad, sizeof(bad), &key32, &t), STAMP_ERR_AUTH);
		assert_int_equal(stamp_reflect(bad, sizeof(bad), out, sizeof(out), true, &counter,
					       5, 6, 1, 64, &key32, &why),
				 0);
		assert_int_equal(why, STAMP_ERR_AUTH);
	}
	assert_int_equal(counter, 1); /* only the good one counted */
	/* a reply tampered with */
	stamp_reflect(pkt, sizeof(pkt), out, sizeof(out), false, NULL, 5, 6, 1, 64, &key32, NULL);
	out[80] ^= 0x01; /* the TTL */
	assert_int_equal(stamp_reply_decode(out, sizeof(out), &key32, &r), STAMP_ERR_AUTH);
	/* an authenticated packet read in unauthenticated mode: other offsets, no check */
	assert_int_equal(stamp_test_decode(pkt, sizeof(pkt), NULL, &t), STAMP_OK);
	assert_int_equal(t.t1, 0);
}

static void test_rtt(void **state)
{
	/* Sender clock at 1000 s, the reflector's at 5000 s (offset does not
	 * matter to the RTT). Fractions in 1/256 s are exact in ns and in NTP:
	 * t1 = 1000, t2 = 5000 + 1/256, t3 = 5000 + 3/256, t4 = 1000 + 10/256
	 * RTT = (t4 - t1) - (t3 - t2) = 10/256 - 2/256 = 8/256 s = 31.25 ms */
	const uint64_t step = S / 256; /* 3906250 ns */
	uint64_t t1 = stamp_ntp_from_unix_ns(1000 * S);
	uint64_t t2 = stamp_ntp_from_unix_ns(5000 * S + 1 * step);
	uint64_t t3 = stamp_ntp_from_unix_ns(5000 * S + 3 * step);
	uint64_t t4 = stamp_ntp_from_unix_ns(1000 * S + 10 * step);
	uint8_t pkt[44], out[44];
	struct stamp_reply r;

	(void)state;
	stamp_sender_build(pkt, sizeof(pkt), 1, t1, stamp_error_estimate(true, 1e-6), NULL);
	stamp_reflect(pkt, sizeof(pkt), out, sizeof(out), false, NULL, t2, t3,
		      stamp_error_estimate(true, 1e-6), 64, NULL, NULL);
	assert_int_equal(stamp_reply_decode(out, sizeof(out), NULL, &r), STAMP_OK);
	assert_int_equal(stamp_rtt_ns(&r, t4), 31250 * US);
	/* with arbitrary ns: within the 2^-32 s rounding of the timestamps */
	t1 = stamp_ntp_from_unix_ns(1700000000ull * S + 123456789);
	t2 = stamp_ntp_from_unix_ns(1700000000ull * S + 123456789 + 2 * MS + 7);
	t3 = stamp_ntp_from_unix_ns(1700000000ull * S + 123456789 + 2 * MS + 7 + 333 * US + 1);
	t4 = stamp_ntp_from_unix_ns(1700000000ull * S + 123456789 + 4 * MS + 333 * US + 1 + 3);
	r.t1 = t1;
	r.t2 = t2;
	r.t3 = t3;
	/* (4 ms + 333 µs + 4 ns) - (333 µs + 1 ns) = 4 ms + 3 ns */
	assert_true(llabs(stamp_rtt_ns(&r, t4) - (int64_t)(4 * MS + 3 * NS)) <= 1);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(stamp_err_name(STAMP_OK), "ok");
	assert_string_equal(stamp_err_name(STAMP_ERR_SHORT), "short");
	assert_string_equal(stamp_err_name(STAMP_ERR_AUTH), "auth_mismatch");
	assert_string_equal(stamp_err_name(STAMP_ERR_NO_ROOM), "no_room");
	assert_string_equal(stamp_err_name(STAMP_ERR_TABLE_FULL), "session_table_full");
	assert_string_equal(stamp_err_name(STAMP_ERR_MAX), "unknown");
	assert_string_equal(stamp_err_name((enum stamp_err) - 1), "unknown");
	for (int e = 0; e < STAMP_ERR_MAX; e++)
		assert_string_not_equal(stamp_err_name((enum stamp_err)e), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sender_layout_unauth),
		cmocka_unit_test(test_sender_layout_auth),
		cmocka_unit_test(test_reflect_layout_unauth),
		cmocka_unit_test(test_reflect_layout_auth),
		cmocka_unit_test(test_decode_fields),
		cmocka_unit_test(test_ntp_known_values),
		cmocka_unit_test(test_ntp_diff),
		cmocka_unit_test(test_error_estimate),
		cmocka_unit_test(test_reflect_stateless_copies_seq),
		cmocka_unit_test(test_reflect_stateful_counter),
		cmocka_unit_test(test_table_idle_reuse),
		cmocka_unit_test(test_table_evicts),
		cmocka_unit_test(test_reflect_longer_packet),
		cmocka_unit_test(test_short_rejected),
		cmocka_unit_test(test_auth_round_trip_and_tamper),
		cmocka_unit_test(test_rtt),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
