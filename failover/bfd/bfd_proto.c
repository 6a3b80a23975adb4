/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BFD, the protocol (RFC 5880): decode, authentication, state machine,
 * timers. See bfd_proto.h for the contract; section numbers are RFC 5880's.
 */
#include <string.h>

#include <nettle/memops.h>
#include <nettle/sha1.h>

#include "core/be.h"
#include "failover/bfd/bfd_proto.h"

#define NS_PER_US 1000ull

/* §6.7.4: offsets inside a SHA1 packet */
#define AUTH_OFF        BFD_HDR_LEN    /* Auth Type */
#define SHA1_SEQ_OFF    (AUTH_OFF + 4) /* Sequence Number */
#define SHA1_DIGEST_OFF (AUTH_OFF + 8) /* Auth Key/Digest */
#define SHA1_AUTH_LEN   28
#define SIMPLE_PASS_MAX 16

static const char *const err_names[BFD_ERR_MAX] = {
	[BFD_OK] = "ok",
	[BFD_ERR_TRUNCATED] = "truncated",
	[BFD_ERR_BAD_VERSION] = "bad_version",
	[BFD_ERR_BAD_LENGTH] = "bad_length",
	[BFD_ERR_ZERO_MULT] = "zero_detect_mult",
	[BFD_ERR_MULTIPOINT] = "multipoint",
	[BFD_ERR_ZERO_MY_DISC] = "zero_my_disc",
	[BFD_ERR_NO_SESSION] = "no_session",
	[BFD_ERR_ZERO_YOUR_DISC] = "zero_your_disc",
	[BFD_ERR_AUTH_MISMATCH] = "auth_mismatch",
	[BFD_ERR_AUTH_TYPE] = "auth_type",
	[BFD_ERR_AUTH_KEY_ID] = "auth_key_id",
	[BFD_ERR_AUTH_BAD] = "auth_bad",
	[BFD_ERR_AUTH_SEQ] = "auth_seq",
	[BFD_ERR_AUTH_UNSUPPORTED] = "auth_unsupported",
	[BFD_ERR_BAD_TTL] = "bad_ttl",
	[BFD_ERR_BAD_SPORT] = "bad_sport",
};

const char *bfd_err_name(enum bfd_err e)
{
	if ((unsigned)e >= BFD_ERR_MAX || !err_names[e])
		return "unknown";
	return err_names[e];
}

const char *bfd_state_name(uint8_t state)
{
	static const char *const names[] = { "AdminDown", "Down", "Init", "Up" };

	return state < 4 ? names[state] : "unknown";
}

const char *bfd_diag_name(uint8_t diag)
{
	/* §4.1 Diagnostic, in snake_case */
	static const char *const names[] = {
		"none",
		"control_detect_expired",
		"echo_failed",
		"neighbor_down",
		"forwarding_reset",
		"path_down",
		"concatenated_path_down",
		"admin_down",
		"reverse_concatenated_path_down",
	};

	return diag < sizeof(names) / sizeof(names[0]) ? names[diag] : "unknown";
}

const char *bfd_auth_name(uint8_t type)
{
	static const char *const names[] = { "none",           "simple",     "keyed-md5",
					     "meticulous-md5", "keyed-sha1", "meticulous-sha1" };

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

enum bfd_err bfd_decode(const uint8_t *p, size_t len, struct bfd_ctrl *out)
{
	memset(out, 0, sizeof(*out));
	if (len < BFD_HDR_LEN)
		return BFD_ERR_TRUNCATED;
	out->version = p[0] >> 5;
	out->diag = p[0] & 0x1f;
	out->state = p[1] >> 6;
	out->flags = p[1] & 0x3f;
	out->detect_mult = p[2];
	out->length = p[3];
	out->my_disc = be32_get(p + 4);
	out->your_disc = be32_get(p + 8);
	out->desired_min_tx_us = be32_get(p + 12);
	out->required_min_rx_us = be32_get(p + 16);
	out->required_min_echo_rx_us = be32_get(p + 20);

	/* §6.8.6, in the RFC's order */
	if (out->version != BFD_VERSION)
		return BFD_ERR_BAD_VERSION;
	if (out->length < ((out->flags & BFD_FLAG_AUTH) ? BFD_HDR_LEN + 2 : BFD_HDR_LEN))
		return BFD_ERR_BAD_LENGTH;
	if (out->length > len)
		return BFD_ERR_TRUNCATED;
	if (out->detect_mult == 0)
		return BFD_ERR_ZERO_MULT;
	if (out->flags & BFD_FLAG_MULTI)
		return BFD_ERR_MULTIPOINT;
	if (out->my_disc == 0)
		return BFD_ERR_ZERO_MY_DISC;
	if (out->your_disc == 0 && out->state != BFD_STATE_DOWN &&
	    out->state != BFD_STATE_ADMIN_DOWN)
		return BFD_ERR_ZERO_YOUR_DISC;
	if (!(out->flags & BFD_FLAG_AUTH))
		return BFD_OK;

	/* The authentication section's own layout (§4.2-4.4): it must fit in
	 * Length, and each type has its length. */
	out->auth_type = p[AUTH_OFF];
	out->auth_len = p[AUTH_OFF + 1];
	if (out->auth_len < 2 || BFD_HDR_LEN + out->auth_len > out->length)
		return BFD_ERR_BAD_LENGTH;
	switch (out->auth_type) {
	case BFD_AUTH_SIMPLE:
		/* §4.2: Type, Len, Key ID, then a 1..16-byte password */
		if (out->auth_len < 4 || out->auth_len > 3 + SIMPLE_PASS_MAX)
			return BFD_ERR_BAD_LENGTH;
		out->auth_key_id = p[AUTH_OFF + 2];
		out->auth_data = p + AUTH_OFF + 3;
		out->auth_data_len = out->auth_len - 3;
		return BFD_OK;
	case BFD_AUTH_KEYED_SHA1:
	case BFD_AUTH_METICULOUS_SHA1:
		/* §4.4: Type, Len, Key ID, Reserved, Sequence, 20-byte digest */
		if (out->auth_len != SHA1_AUTH_LEN)
			return BFD_ERR_BAD_LENGTH;
		out->auth_key_id = p[AUTH_OFF + 2];
		out->auth_seq = be32_get(p + SHA1_SEQ_OFF);
		out->auth_data = p + SHA1_DIGEST_OFF;
		out->auth_data_len = SHA1_DIGEST_SIZE;
		return BFD_OK;
	default:
		/* MD5 (§4.3: deprecated, not implemented), reserved 0, unknown */
		return BFD_ERR_AUTH_UNSUPPORTED;
	}
}

/* xorshift32 (Marsaglia 2003): the jitter needs no more than that. */
static uint32_t next_rand(struct bfd_session *s)
{
	uint32_t x = s->rand;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	s->rand = x;
	return x;
}

static uint32_t max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* §6.8.3: at least 1 s while not Up */
static uint32_t slow_tx(const struct bfd_session *s)
{
	return max32(s->params.desired_min_tx_us, BFD_SLOW_TX_US);
}

/*
 * The TX interval (§6.8.2, §6.8.7) and the detection time (§6.8.4,
 * asynchronous mode) from the values in effect, after any of them changed.
 */
static void update_timers(struct bfd_session *s, uint64_t now)
{
	uint64_t ns;

	s->tx_interval_us = max32(s->desired_min_tx_us, s->remote_min_rx_us);
	/* "the Detect Mult received from the remote system, multiplied by the
	 * agreed transmit interval of the remote system (the greater of
	 * bfd.RequiredMinRxInterval and the last received Desired Min TX
	 * Interval)". RequiredMinRxInterval 0 wants no packets: no detection. */
	if (s->remote_detect_mult == 0 || s->required_min_rx_us == 0)
		s->detect_time_ns = 0;
	else
		s->detect_time_ns = (uint64_t)s->remote_detect_mult *
				    max32(s->required_min_rx_us, s->remote_desired_tx_us) *
				    NS_PER_US;
	/* A shorter interval applies to the packet already scheduled. */
	ns = (uint64_t)s->tx_interval_us * NS_PER_US;
	if (s->next_tx > now + ns)
		s->next_tx = now + ns;
}

static void start_poll(struct bfd_session *s, struct bfd_event *ev)
{
	if (!s->poll)
		s->cnt.polls++;
	s->poll = true;
	ev->send_now = true;
}

/*
 * §6.8.3: the values a session advertises (pending_*) and the ones it uses
 * (desired_min_tx_us, required_min_rx_us) for @p tx and @p rx. While Up,
 * a larger TX interval and a smaller RX interval wait for the Poll
 * sequence to end; everything else applies at once. A change while Up
 * starts a Poll sequence.
 */
static void set_intervals(struct bfd_session *s, uint32_t tx, uint32_t rx, uint64_t now,
			  struct bfd_event *ev)
{
	if (s->state != BFD_STATE_UP) {
		s->desired_min_tx_us = s->pending_tx_us = max32(tx, BFD_SLOW_TX_US);
		s->required_min_rx_us = s->pending_rx_us = rx;
	} else {
		if (tx != s->pending_tx_us || rx != s->pending_rx_us)
			start_poll(s, ev);
		s->pending_tx_us = tx;
		s->pending_rx_us = rx;
		if (tx <= s->desired_min_tx_us)
			s->desired_min_tx_us = tx;
		if (rx >= s->required_min_rx_us)
			s->required_min_rx_us = rx;
	}
	update_timers(s, now);
}

static void set_state(struct bfd_session *s, uint8_t state, uint8_t diag, uint64_t now,
		      struct bfd_event *ev)
{
	uint8_t old = s->state;

	if (old == state)
		return;
	s->state = state;
	s->local_diag = diag;
	s->last_change = now;
	ev->changed = true;
	ev->new_state = state;
	ev->diag = diag;
	ev->send_now = true;
	if (old == BFD_STATE_UP) {
		/* Back to slow TX (§6.8.3); a running Poll sequence is moot. */
		s->cnt.down++;
		s->poll = false;
		set_intervals(s, s->params.desired_min_tx_us, s->params.required_min_rx_us, now,
			      ev);
	}
	if (state == BFD_STATE_UP) {
		/* The configured TX interval replaces the slow one through a
		 * Poll sequence, as FRR does (§6.8.3). */
		s->cnt.up++;
		set_intervals(s, s->params.desired_min_tx_us, s->params.required_min_rx_us, now,
			      ev);
	}
}

static void event_init(const struct bfd_session *s, struct bfd_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->old_state = ev->new_state = s->state;
	ev->diag = s->local_diag;
}

void bfd_session_init(struct bfd_session *s, const struct bfd_params *p, uint32_t local_disc,
		      uint32_t seed, uint64_t now)
{
	memset(s, 0, sizeof(*s));
	s->params = *p;
	s->local_disc = local_disc;
	s->state = p->admin_down ? BFD_STATE_ADMIN_DOWN : BFD_STATE_DOWN;
	s->local_diag = p->admin_down ? BFD_DIAG_ADMIN_DOWN : BFD_DIAG_NONE;
	s->remote_state = BFD_STATE_DOWN;
	s->remote_min_rx_us = 1; /* §6.8.1 */
	s->desired_min_tx_us = s->pending_tx_us = slow_tx(s);
	s->required_min_rx_us = s->pending_rx_us = p->required_min_rx_us;
	s->rand = seed ? seed : 0x9e3779b9u; /* xorshift's state must not be 0 */
	s->xmit_auth_seq = next_rand(s);
	s->next_tx = now;
	s->last_change = now;
	update_timers(s, now);
}

/* The key bytes in use: the configuration checks 1..16 (simple) and 1..20
 * (SHA1); a longer key_len is cut, never read past the array. */
static uint8_t key_len(const struct bfd_auth *a)
{
	uint8_t max = a->type == BFD_AUTH_SIMPLE ? SIMPLE_PASS_MAX : BFD_KEY_MAX;

	return a->key_len <= max ? a->key_len : max;
}

static bool auth_equal(const struct bfd_auth *a, const struct bfd_auth *b)
{
	return a->type == b->type && a->key_id == b->key_id && a->key_len == b->key_len &&
	       memcmp(a->key, b->key, key_len(a)) == 0;
}

void bfd_session_set_params(struct bfd_session *s, const struct bfd_params *p, uint64_t now,
			    struct bfd_event *ev)
{
	bool auth_changed = !auth_equal(&s->params.auth, &p->auth);

	event_init(s, ev);
	s->params = *p;
	if (auth_changed)
		s->auth_seq_known = false;
	/* §6.8.16 */
	if (p->admin_down && s->state != BFD_STATE_ADMIN_DOWN)
		set_state(s, BFD_STATE_ADMIN_DOWN, BFD_DIAG_ADMIN_DOWN, now, ev);
	else if (!p->admin_down && s->state == BFD_STATE_ADMIN_DOWN)
		set_state(s, BFD_STATE_DOWN, BFD_DIAG_NONE, now, ev);
	set_intervals(s, p->desired_min_tx_us, p->required_min_rx_us, now, ev);
}

/* SHA1 over @p len bytes of @p pkt with the digest field holding @p key
 * zero-padded to 20 bytes (§6.7.4), without copying the packet. */
static void auth_digest(const uint8_t *pkt, size_t len, const struct bfd_auth *a,
			uint8_t out[SHA1_DIGEST_SIZE])
{
	uint8_t key[SHA1_DIGEST_SIZE] = { 0 };
	struct sha1_ctx ctx;

	memcpy(key, a->key, key_len(a));
	sha1_init(&ctx);
	sha1_update(&ctx, SHA1_DIGEST_OFF, pkt);
	sha1_update(&ctx, SHA1_DIGEST_SIZE, key);
	sha1_update(&ctx, len - (SHA1_DIGEST_OFF + SHA1_DIGEST_SIZE),
		    pkt + SHA1_DIGEST_OFF + SHA1_DIGEST_SIZE);
	sha1_digest(&ctx, SHA1_DIGEST_SIZE, out);
}

/* §6.7.2, §6.7.4: the session's checks of the authentication section. */
static enum bfd_err check_auth(struct bfd_session *s, const struct bfd_ctrl *c, const uint8_t *pkt,
			       size_t len)
{
	const struct bfd_auth *a = &s->params.auth;
	bool has_a = (c->flags & BFD_FLAG_AUTH) != 0;

	if (has_a != (a->type != BFD_AUTH_NONE))
		return BFD_ERR_AUTH_MISMATCH;
	if (!has_a)
		return BFD_OK;
	if (c->auth_type != a->type)
		return BFD_ERR_AUTH_TYPE;
	if (c->auth_key_id != a->key_id)
		return BFD_ERR_AUTH_KEY_ID;

	if (a->type == BFD_AUTH_SIMPLE) {
		/* Compared padded to 16 bytes: the time does not depend on
		 * where the passwords differ. */
		uint8_t got[SIMPLE_PASS_MAX] = { 0 }, want[SIMPLE_PASS_MAX] = { 0 };
		size_t n = c->auth_data_len <= SIMPLE_PASS_MAX ? c->auth_data_len : SIMPLE_PASS_MAX;

		memcpy(got, c->auth_data, n);
		memcpy(want, a->key, key_len(a));
		if (!memeql_sec(got, want, sizeof(got)) || c->auth_data_len != key_len(a))
			return BFD_ERR_AUTH_BAD;
		return BFD_OK;
	}

	/* SHA1. Window (§6.7.4), circular 32-bit: keyed accepts
	 * RcvAuthSeq..RcvAuthSeq+3*DetectMult, meticulous from RcvAuthSeq+1.
	 * "Detect Mult" is the packet's: how many packets the peer sends per
	 * detection time, so 3 detection times' worth may be lost. */
	if (s->auth_seq_known) {
		uint32_t lo = s->rcv_auth_seq + (a->type == BFD_AUTH_METICULOUS_SHA1 ? 1 : 0);
		uint32_t hi = s->rcv_auth_seq + 3u * c->detect_mult;

		if ((uint32_t)(c->auth_seq - lo) > (uint32_t)(hi - lo))
			return BFD_ERR_AUTH_SEQ;
	}
	if (c->length < SHA1_DIGEST_OFF + SHA1_DIGEST_SIZE || c->length > len)
		return BFD_ERR_BAD_LENGTH; /* bfd_decode() already made sure */
	{
		uint8_t d[SHA1_DIGEST_SIZE];

		auth_digest(pkt, c->length, a, d);
		if (!memeql_sec(d, pkt + SHA1_DIGEST_OFF, SHA1_DIGEST_SIZE))
			return BFD_ERR_AUTH_BAD;
	}
	s->rcv_auth_seq = c->auth_seq;
	s->auth_seq_known = true;
	return BFD_OK;
}

enum bfd_err bfd_session_rx(struct bfd_session *s, const struct bfd_ctrl *c, const uint8_t *pkt,
			    size_t len, uint64_t now, struct bfd_event *ev)
{
	enum bfd_err e = BFD_OK;

	event_init(s, ev);
	/* The caller's demultiplexing should have made sure (§6.3). */
	if (c->your_disc != 0 && c->your_disc != s->local_disc)
		e = BFD_ERR_NO_SESSION;
	else
		e = check_auth(s, c, pkt, len);
	if (e != BFD_OK) {
		s->cnt.drops[e]++;
		return e;
	}

	s->cnt.rx++;
	s->last_rx = now;
	s->remote_heard = true;
	/* §6.8.6: the remote variables, from every accepted packet */
	s->remote_disc = c->my_disc;
	s->remote_state = c->state;
	s->remote_diag = c->diag;
	s->remote_demand = (c->flags & BFD_FLAG_DEMAND) != 0;
	s->remote_min_rx_us = c->required_min_rx_us;
	s->remote_desired_tx_us = c->desired_min_tx_us;
	s->remote_detect_mult = c->detect_mult;
	if ((c->flags & BFD_FLAG_FINAL) && s->poll) {
		/* The Poll sequence ends: deferred values apply (§6.8.3). */
		s->poll = false;
		s->desired_min_tx_us = s->pending_tx_us;
		s->required_min_rx_us = s->pending_rx_us;
	}
	update_timers(s, now);
	s->detect_deadline = s->detect_time_ns ? now + s->detect_time_ns : 0;

	if (s->state == BFD_STATE_ADMIN_DOWN)
		return BFD_OK; /* "discard the packet" */

	/* §6.8.6, the state machine of §6.2 */
	if (c->state == BFD_STATE_ADMIN_DOWN) {
		if (s->state != BFD_STATE_DOWN)
			set_state(s, BFD_STATE_DOWN, BFD_DIAG_NEIGHBOR_DOWN, now, ev);
	} else if (s->state == BFD_STATE_DOWN) {
		if (c->state == BFD_STATE_DOWN)
			set_state(s, BFD_STATE_INIT, s->local_diag, now, ev);
		else if (c->state == BFD_STATE_INIT)
			set_state(s, BFD_STATE_UP, BFD_DIAG_NONE, now, ev);
	} else if (s->state == BFD_STATE_INIT) {
		if (c->state == BFD_STATE_INIT || c->state == BFD_STATE_UP)
			set_state(s, BFD_STATE_UP, BFD_DIAG_NONE, now, ev);
	} else if (c->state == BFD_STATE_DOWN) { /* Up */
		set_state(s, BFD_STATE_DOWN, BFD_DIAG_NEIGHBOR_DOWN, now, ev);
	}

	/* §6.8.7: a Final "MUST be sent without respect to the transmission
	 * timer" */
	if (c->flags & BFD_FLAG_POLL) {
		s->final_due = true;
		ev->send_now = true;
	}
	return BFD_OK;
}

bool bfd_session_timer(struct bfd_session *s, uint64_t now, struct bfd_event *ev)
{
	event_init(s, ev);
	/* §6.8.1 bfd.AuthSeqKnown: reset after twice the detection time
	 * without a packet */
	if (s->auth_seq_known && s->detect_time_ns && now >= s->last_rx + 2 * s->detect_time_ns)
		s->auth_seq_known = false;
	if (s->detect_deadline && now >= s->detect_deadline) {
		/* §6.8.1 bfd.RemoteDiscr: zero after a detection time without a
		 * packet; §6.8.4: Init or Up go Down. */
		s->detect_deadline = 0;
		s->remote_disc = 0;
		s->remote_heard = false;
		if (s->state == BFD_STATE_INIT || s->state == BFD_STATE_UP)
			set_state(s, BFD_STATE_DOWN, BFD_DIAG_DETECT_EXPIRED, now, ev);
	}
	return ev->changed;
}

/* §6.8.7: no periodic packets while the peer wants none; §6.1: a passive
 * session waits for the peer (RemoteDiscr nonzero). */
static bool tx_allowed(const struct bfd_session *s)
{
	if (s->remote_min_rx_us == 0)
		return false;
	return !s->params.passive || s->remote_disc != 0;
}

bool bfd_session_tx_due(const struct bfd_session *s, uint64_t now)
{
	return tx_allowed(s) && now >= s->next_tx;
}

/* §6.8.7 jitter: 75-100 % of the interval, 75-90 % with DetectMult 1 */
static uint64_t jittered(struct bfd_session *s)
{
	uint64_t ns = (uint64_t)s->tx_interval_us * NS_PER_US;
	uint64_t lo = ns - ns / 4;
	uint64_t hi = s->params.detect_mult == 1 ? ns - ns / 10 : ns;
	uint64_t r = (uint64_t)next_rand(s) << 32 | next_rand(s);

	return lo + r % (hi - lo + 1);
}

size_t bfd_session_build(struct bfd_session *s, uint8_t *buf, size_t cap, uint64_t now)
{
	const struct bfd_auth *a = &s->params.auth;
	size_t len = BFD_HDR_LEN;
	uint8_t flags = 0;

	if (a->type == BFD_AUTH_SIMPLE)
		len += 3 + key_len(a);
	else if (a->type == BFD_AUTH_KEYED_SHA1 || a->type == BFD_AUTH_METICULOUS_SHA1)
		len += SHA1_AUTH_LEN;
	if (cap < len)
		return 0;

	/* §6.5: never P and F together; the Poll goes on in the next one. */
	if (s->final_due)
		flags |= BFD_FLAG_FINAL;
	else if (s->poll)
		flags |= BFD_FLAG_POLL;
	if (a->type != BFD_AUTH_NONE)
		flags |= BFD_FLAG_AUTH;
	buf[0] = (uint8_t)(BFD_VERSION << 5 | (s->local_diag & 0x1f));
	buf[1] = (uint8_t)(s->state << 6 | flags);
	buf[2] = s->params.detect_mult;
	buf[3] = (uint8_t)len;
	be32_put(buf + 4, s->local_disc);
	be32_put(buf + 8, s->remote_disc);
	be32_put(buf + 12, s->pending_tx_us);
	be32_put(buf + 16, s->pending_rx_us);
	be32_put(buf + 20, 0); /* no Echo */

	if (a->type == BFD_AUTH_SIMPLE) {
		buf[AUTH_OFF] = a->type;
		buf[AUTH_OFF + 1] = (uint8_t)(3 + key_len(a));
		buf[AUTH_OFF + 2] = a->key_id;
		memcpy(buf + AUTH_OFF + 3, a->key, key_len(a));
	} else if (flags & BFD_FLAG_AUTH) {
		uint8_t d[SHA1_DIGEST_SIZE];

		buf[AUTH_OFF] = a->type;
		buf[AUTH_OFF + 1] = SHA1_AUTH_LEN;
		buf[AUTH_OFF + 2] = a->key_id;
		buf[AUTH_OFF + 3] = 0;
		/* §6.7.4: meticulous MUST, keyed MAY increment per packet;
		 * both do here. */
		be32_put(buf + SHA1_SEQ_OFF, s->xmit_auth_seq++);
		auth_digest(buf, len, a, d);
		memcpy(buf + SHA1_DIGEST_OFF, d, sizeof(d));
	}

	s->final_due = false;
	s->cnt.tx++;
	s->next_tx = now + jittered(s);
	return len;
}

uint64_t bfd_session_next_event(const struct bfd_session *s)
{
	uint64_t t = UINT64_MAX;

	if (tx_allowed(s))
		t = s->next_tx;
	if (s->detect_deadline && s->detect_deadline < t)
		t = s->detect_deadline;
	if (s->auth_seq_known && s->detect_time_ns && s->last_rx + 2 * s->detect_time_ns < t)
		t = s->last_rx + 2 * s->detect_time_ns;
	return t;
}
