/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: BFD, the protocol (failover/bfd/bfd_proto.c). Arbitrary
 * bytes become one session's configuration and then a script of events on
 * simulated time: received packets (through bfd_decode then
 * bfd_session_rx, as the worker calls them), timer runs, built packets,
 * reloads.
 *
 *   byte 0      auth (bits 0-1: none, simple, keyed SHA1, meticulous SHA1),
 *               passive (bit 2), admin_down (bit 3), intervals (bits 4-7)
 *   byte 1      detect multiplier (0 taken as 1)
 *   then        records: op, time step (2 bytes, 100 µs units), and for
 *               the packet ops a length byte and that many bytes
 *
 * Ops: raw packet; packet "fixed up" (Your Discriminator set to ours, the
 * SHA1 digest or the password made right) so the fuzzer reaches the state
 * machine of an authenticated session; timer; build; reload.
 *
 * Besides ASan/UBSan errors (each packet is a heap buffer of exactly its
 * length), it traps on a broken contract:
 *   - bfd_decode: on BFD_OK, Length within 24..len, the auth data inside it;
 *   - the session: state 0..3; TX interval = max(DesiredMinTx in effect,
 *     RemoteMinRxInterval); not Up means TX at least 1 s and no Poll; while
 *     Up a deferred TX is only larger and a deferred RX only smaller
 *     (§6.8.3); flaps never exceed Ups; rx + drops = packets handed in;
 *   - bfd_session_build: what it writes decodes, never has P and F, and a
 *     session with the same auth (and the right discriminator) accepts it;
 *   - bfd_session_next_event is not later than a due TX or timeout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha1.h>

#include "failover/bfd/bfd_proto.h"

#define CHECK(c)                                                                                  \
	do {                                                                                      \
		if (!(c)) {                                                                       \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

#define LOCAL_DISC 0x01020304u

enum { OP_RAW, OP_FIXED, OP_TIMER, OP_BUILD, OP_RELOAD, OP_MAX };

static const uint32_t intervals[4] = { 3300, 10000, 1000000, 2000000 };

static void make_params(struct bfd_params *p, uint8_t cfg, uint8_t mult)
{
	static const uint8_t types[4] = { BFD_AUTH_NONE, BFD_AUTH_SIMPLE, BFD_AUTH_KEYED_SHA1,
					  BFD_AUTH_METICULOUS_SHA1 };

	memset(p, 0, sizeof(*p));
	p->auth.type = types[cfg & 3];
	p->passive = cfg & 4;
	p->admin_down = cfg & 8;
	p->desired_min_tx_us = intervals[(cfg >> 4) & 3];
	p->required_min_rx_us = (cfg >> 6) == 3 ? 0 : intervals[cfg >> 6];
	p->detect_mult = mult ? mult : 1;
	if (p->auth.type != BFD_AUTH_NONE) {
		p->auth.key_id = 7;
		p->auth.key_len = p->auth.type == BFD_AUTH_SIMPLE ? 8 : 20;
		memcpy(p->auth.key, "0123456789abcdefghij", p->auth.key_len);
	}
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Make a packet pass the session's discriminator and auth checks where its
 * layout allows: the auth section of the session's type and key. */
static void fix_up(uint8_t *b, size_t len, const struct bfd_session *s)
{
	const struct bfd_auth *a = &s->params.auth;

	if (len < BFD_HDR_LEN)
		return;
	if (b[8] | b[9] | b[10] | b[11])
		wr32(b + 8, s->local_disc);
	if (a->type == BFD_AUTH_NONE) {
		b[1] &= (uint8_t)~BFD_FLAG_AUTH;
		return;
	}
	b[1] |= BFD_FLAG_AUTH;
	if (a->type == BFD_AUTH_SIMPLE && len >= (size_t)BFD_HDR_LEN + 3 + a->key_len) {
		b[3] = (uint8_t)(BFD_HDR_LEN + 3 + a->key_len);
		b[24] = a->type;
		b[25] = (uint8_t)(3 + a->key_len);
		b[26] = a->key_id;
		memcpy(b + 27, a->key, a->key_len);
	} else if (a->type != BFD_AUTH_SIMPLE && len >= BFD_PKT_MAX) {
		struct sha1_ctx ctx;

		b[3] = BFD_PKT_MAX;
		b[24] = a->type;
		b[25] = 28;
		b[26] = a->key_id;
		memset(b + 32, 0, 20);
		memcpy(b + 32, a->key, a->key_len);
		sha1_init(&ctx);
		sha1_update(&ctx, BFD_PKT_MAX, b);
		sha1_digest(&ctx, SHA1_DIGEST_SIZE, b + 32);
	}
}

static uint32_t max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

static void check_session(const struct bfd_session *s, uint64_t handed, uint64_t now)
{
	uint64_t drops = 0;

	CHECK(s->state <= BFD_STATE_UP);
	CHECK(s->tx_interval_us == max32(s->desired_min_tx_us, s->remote_min_rx_us));
	if (s->state != BFD_STATE_UP) {
		CHECK(!s->poll);
		CHECK(s->desired_min_tx_us >= BFD_SLOW_TX_US);
		CHECK(s->pending_tx_us == s->desired_min_tx_us);
		CHECK(s->pending_rx_us == s->required_min_rx_us);
	} else {
		CHECK(s->pending_tx_us >= s->desired_min_tx_us);
		CHECK(s->pending_rx_us <= s->required_min_rx_us);
		CHECK(s->poll || (s->pending_tx_us == s->desired_min_tx_us &&
				  s->pending_rx_us == s->required_min_rx_us));
	}
	CHECK(s->cnt.down <= s->cnt.up);
	for (int e = 0; e < BFD_ERR_MAX; e++)
		drops += s->cnt.drops[e];
	CHECK(s->cnt.rx + drops == handed);
	if (bfd_session_tx_due(s, now) || (s->detect_deadline && now >= s->detect_deadline))
		CHECK(bfd_session_next_event(s) <= now);
}

static void check_built(struct bfd_session *s, const uint8_t *b, size_t len, uint64_t now)
{
	struct bfd_session peer;
	struct bfd_params pp = s->params;
	struct bfd_event ev;
	struct bfd_ctrl c;
	enum bfd_err e;

	CHECK(len >= BFD_HDR_LEN && len <= BFD_PKT_MAX);
	e = bfd_decode(b, len, &c);
	CHECK(e == BFD_OK);
	CHECK(c.length == len);
	CHECK(!((c.flags & BFD_FLAG_POLL) && (c.flags & BFD_FLAG_FINAL)));
	CHECK(c.my_disc == s->local_disc);
	CHECK(c.state == s->state);
	if (c.your_disc == 0)
		return;
	pp.admin_down = false;
	bfd_session_init(&peer, &pp, c.your_disc, 1, now);
	e = bfd_session_rx(&peer, &c, b, len, now, &ev);
	CHECK(e == BFD_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bfd_session s;
	struct bfd_params p;
	struct bfd_event ev;
	uint64_t now = 1, handed = 0;
	size_t i = 2;

	if (size < 2)
		return 0;
	make_params(&p, data[0], data[1]);
	bfd_session_init(&s, &p, LOCAL_DISC, data[0] | 1u << 8, now);
	check_session(&s, 0, now);

	while (i + 3 <= size) {
		uint8_t op = data[i] % OP_MAX;
		uint64_t dt = ((uint64_t)data[i + 1] << 8 | data[i + 2]) * 100000;

		i += 3;
		now += dt;
		switch (op) {
		case OP_RAW:
		case OP_FIXED: {
			size_t len = i < size ? data[i++] : 0;
			struct bfd_ctrl c;
			uint8_t *b;

			if (len > size - i)
				len = size - i;
			b = malloc(len ? len : 1);
			CHECK(b != NULL);
			memcpy(b, data + i, len);
			i += len;
			if (op == OP_FIXED)
				fix_up(b, len, &s);
			if (bfd_decode(b, len, &c) == BFD_OK) {
				CHECK(c.length >= BFD_HDR_LEN && c.length <= len);
				if (c.flags & BFD_FLAG_AUTH) {
					CHECK(c.auth_data >= b + BFD_HDR_LEN);
					CHECK(c.auth_data + c.auth_data_len <= b + c.length);
				}
				bfd_session_rx(&s, &c, b, len, now, &ev);
				handed++;
				CHECK(!ev.changed || ev.send_now);
			}
			free(b);
			break;
		}
		case OP_TIMER:
			bfd_session_timer(&s, now, &ev);
			CHECK(!ev.changed || ev.new_state == BFD_STATE_DOWN);
			break;
		case OP_BUILD: {
			uint8_t *b = malloc(BFD_PKT_MAX);
			size_t len;

			CHECK(b != NULL);
			len = bfd_session_build(&s, b, BFD_PKT_MAX, now);
			check_built(&s, b, len, now);
			CHECK(s.next_tx >= now + (uint64_t)s.tx_interval_us * 1000 * 3 / 4);
			CHECK(s.next_tx <= now + (uint64_t)s.tx_interval_us * 1000);
			free(b);
			break;
		}
		case OP_RELOAD:
			if (i < size)
				make_params(&p, data[i++], p.detect_mult);
			else
				p.admin_down = !p.admin_down;
			bfd_session_set_params(&s, &p, now, &ev);
			break;
		}
		check_session(&s, handed, now);
	}
	return 0;
}
