/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BFD, the protocol (failover/bfd/bfd_proto.c, RFC 5880) on simulated time:
 * two sessions A and B wired back to back, packets handed over by the
 * test (optionally lost), timers driven by bfd_session_next_event().
 * Expected times and intervals are computed from the RFC's formulas in
 * the tests, not read back from the code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <nettle/sha1.h>

#include "failover/bfd/bfd_proto.h"

#define US 1000ull
#define MS 1000000ull
#define S  1000000000ull

#define DISC_A 0x0a0a0a0au
#define DISC_B 0x0b0b0b0bu

struct change {
	uint64_t t;
	uint8_t from, to, diag;
};

struct node {
	struct bfd_session s;
	struct change log[64];
	unsigned nlog;
	unsigned loss_pct; /* of the packets this node sends */
	bool cut;          /* every packet this node sends is lost */
	bool dead;         /* neither sends nor receives */
	uint64_t tx;       /* packets sent (lost ones too) */
	uint64_t last_rx;  /* ns: last packet from the peer this node accepted */
	enum bfd_err last_err;
	uint8_t pkt[BFD_PKT_MAX]; /* the last packet sent */
	size_t len;
};

struct sim {
	struct node n[2];
	uint64_t now;
	uint32_t rng;
	bool pending[2]; /* send_now asked */
};

static struct bfd_params params(uint32_t tx_us, uint32_t rx_us, uint8_t mult)
{
	struct bfd_params p = { .desired_min_tx_us = tx_us,
				.required_min_rx_us = rx_us,
				.detect_mult = mult };

	return p;
}

static void set_key(struct bfd_params *p, uint8_t type, uint8_t key_id, const char *key)
{
	p->auth.type = type;
	p->auth.key_id = key_id;
	p->auth.key_len = (uint8_t)strlen(key);
	memcpy(p->auth.key, key, p->auth.key_len);
}

static void sim_init(struct sim *sm, const struct bfd_params *pa, const struct bfd_params *pb)
{
	memset(sm, 0, sizeof(*sm));
	sm->rng = 12345;
	bfd_session_init(&sm->n[0].s, pa, DISC_A, 1, 0);
	bfd_session_init(&sm->n[1].s, pb, DISC_B, 2, 0);
}

static void log_ev(struct sim *sm, int i, const struct bfd_event *ev)
{
	struct node *n = &sm->n[i];

	if (ev->changed) {
		assert_true(n->nlog < 64);
		n->log[n->nlog++] = (struct change){ sm->now, ev->old_state, ev->new_state,
						     ev->diag };
	}
	if (ev->send_now)
		sm->pending[i] = true;
}

static bool lost(struct sim *sm, struct node *n)
{
	if (n->cut)
		return true;
	sm->rng = sm->rng * 1103515245u + 12345u;
	return (sm->rng >> 16) % 100 < n->loss_pct;
}

/* Hand @p len bytes to node @p to, as its worker would. */
static enum bfd_err deliver(struct sim *sm, int to, const uint8_t *pkt, size_t len)
{
	struct node *n = &sm->n[to];
	struct bfd_ctrl c;
	struct bfd_event ev;
	enum bfd_err e;

	if (n->dead)
		return BFD_OK;
	e = bfd_decode(pkt, len, &c);
	assert_int_equal(e, BFD_OK);
	e = bfd_session_rx(&n->s, &c, pkt, len, sm->now, &ev);
	n->last_err = e;
	if (e == BFD_OK)
		n->last_rx = sm->now;
	log_ev(sm, to, &ev);
	return e;
}

/* Node @p i builds a packet; it reaches the peer unless lost. */
static void send_one(struct sim *sm, int i)
{
	struct node *n = &sm->n[i];
	struct bfd_ctrl c;

	n->len = bfd_session_build(&n->s, n->pkt, sizeof(n->pkt), sm->now);
	assert_true(n->len >= BFD_HDR_LEN && n->len <= BFD_PKT_MAX);
	/* whatever a session writes, a peer accepts */
	assert_int_equal(bfd_decode(n->pkt, n->len, &c), BFD_OK);
	/* §6.5: never both P and F */
	assert_false((c.flags & BFD_FLAG_POLL) && (c.flags & BFD_FLAG_FINAL));
	n->tx++;
	if (!lost(sm, n))
		deliver(sm, 1 - i, n->pkt, n->len);
}

static void flush(struct sim *sm)
{
	for (int k = 0; sm->pending[0] || sm->pending[1]; k++) {
		assert_true(k < 100); /* no endless ping-pong */
		for (int i = 0; i < 2; i++) {
			if (sm->pending[i]) {
				sm->pending[i] = false;
				if (!sm->n[i].dead)
					send_one(sm, i);
			}
		}
	}
}

static uint64_t next_event(struct sim *sm)
{
	uint64_t t = UINT64_MAX;

	for (int i = 0; i < 2; i++) {
		uint64_t e = bfd_session_next_event(&sm->n[i].s);

		if (!sm->n[i].dead && e < t)
			t = e;
	}
	return t;
}

/* Run both sessions until @p t_end (ns). */
static void run_until(struct sim *sm, uint64_t t_end)
{
	for (unsigned k = 0;; k++) {
		uint64_t t = next_event(sm);
		struct bfd_event ev;

		assert_true(k < 10000000);
		if (t > t_end) {
			sm->now = t_end;
			return;
		}
		if (t > sm->now)
			sm->now = t;
		for (int i = 0; i < 2; i++) {
			if (sm->n[i].dead)
				continue;
			bfd_session_timer(&sm->n[i].s, sm->now, &ev);
			log_ev(sm, i, &ev);
			if (bfd_session_tx_due(&sm->n[i].s, sm->now))
				sm->pending[i] = true;
		}
		flush(sm);
	}
}

/* Run until both are Up (at most @p limit ns from now); the time it took. */
static uint64_t run_until_up(struct sim *sm, uint64_t limit)
{
	uint64_t start = sm->now, end = sm->now + limit;

	while (sm->now < end) {
		if (sm->n[0].s.state == BFD_STATE_UP && sm->n[1].s.state == BFD_STATE_UP)
			return sm->now - start;
		run_until(sm, sm->now + 100 * US);
	}
	fail_msg("not Up after %llu ms", (unsigned long long)(limit / MS));
	return 0;
}

static void assert_change(const struct change *c, uint8_t from, uint8_t to, uint8_t diag)
{
	assert_int_equal(c->from, from);
	assert_int_equal(c->to, to);
	assert_int_equal(c->diag, diag);
}

/* Both Up and the Poll sequences done: the agreed intervals of §6.8.2/§6.8.4. */
static void assert_converged(struct sim *sm, uint32_t tx_us, uint8_t mult)
{
	for (int i = 0; i < 2; i++) {
		const struct bfd_session *s = &sm->n[i].s;

		assert_int_equal(s->state, BFD_STATE_UP);
		assert_false(s->poll);
		assert_int_equal(s->tx_interval_us, tx_us);
		assert_int_equal(s->detect_time_ns, (uint64_t)mult * tx_us * US);
	}
}

/* ---- the session state machine ---- */

/* §6.2: A's Down reaches B (Down -> Init), B's Init reaches A (Down -> Up),
 * A's Up reaches B (Init -> Up). */
static void test_three_way_handshake(void **state)
{
	struct bfd_params p = params(10000, 10000, 3);
	struct sim sm;
	struct bfd_ctrl c;

	(void)state;
	sim_init(&sm, &p, &p);
	/* Before Up, 1 s slow TX (§6.8.3), advertised in the packet */
	assert_int_equal(sm.n[0].s.tx_interval_us, BFD_SLOW_TX_US);
	run_until_up(&sm, 100 * MS);

	assert_int_equal(sm.n[0].nlog, 1);
	assert_change(&sm.n[0].log[0], BFD_STATE_DOWN, BFD_STATE_UP, BFD_DIAG_NONE);
	assert_int_equal(sm.n[1].nlog, 2);
	assert_change(&sm.n[1].log[0], BFD_STATE_DOWN, BFD_STATE_INIT, BFD_DIAG_NONE);
	assert_change(&sm.n[1].log[1], BFD_STATE_INIT, BFD_STATE_UP, BFD_DIAG_NONE);
	assert_int_equal(sm.n[0].s.remote_disc, DISC_B);
	assert_int_equal(sm.n[1].s.remote_disc, DISC_A);
	assert_int_equal(sm.n[0].s.cnt.up, 1);
	assert_int_equal(sm.n[1].s.cnt.up, 1);
	assert_true(sm.n[0].s.cnt.polls >= 1);
	/* the handshake happened at once (state changes are sent now) */
	assert_true(sm.n[1].log[1].t == 0);

	/* Down packets advertised 1 s; once Up the configured 10 ms */
	run_until(&sm, 200 * MS);
	bfd_decode(sm.n[0].pkt, sm.n[0].len, &c);
	assert_int_equal(c.desired_min_tx_us, 10000);
	assert_int_equal(c.required_min_rx_us, 10000);
	assert_int_equal(c.state, BFD_STATE_UP);
	assert_int_equal(c.your_disc, DISC_B);
}

/* Up, then converge on @p tx_us x 3 through Poll/Final; the packet rate over
 * 1 s is what §6.8.7's jitter allows: interval at 75..100 %. */
static void converge(uint32_t tx_us)
{
	struct bfd_params p = params(tx_us, tx_us, 3);
	struct sim sm;
	uint64_t tx0, n, lo, hi;

	sim_init(&sm, &p, &p);
	run_until_up(&sm, 100 * MS);
	run_until(&sm, sm.now + 100 * MS);
	assert_converged(&sm, tx_us, 3);
	assert_int_equal(sm.n[0].s.remote_min_rx_us, tx_us);

	tx0 = sm.n[0].tx;
	run_until(&sm, sm.now + S);
	n = sm.n[0].tx - tx0;
	lo = S / (tx_us * US) - 1;
	hi = S / (tx_us * US * 3 / 4) + 1;
	assert_in_range(n, lo, hi);
	assert_int_equal(sm.n[0].s.cnt.down, 0);
	assert_int_equal(sm.n[1].s.cnt.down, 0);
}

static void test_converge_10ms(void **state)
{
	(void)state;
	converge(10000);
}

static void test_converge_3_3ms(void **state)
{
	(void)state;
	converge(3300);
}

/* 20 % loss each way during the handshake: still Up (retransmitted at the
 * slow rate), and converged once the loss stops. */
static void test_handshake_with_loss(void **state)
{
	struct bfd_params p = params(10000, 10000, 3);
	struct sim sm;

	(void)state;
	sim_init(&sm, &p, &p);
	sm.n[0].loss_pct = sm.n[1].loss_pct = 20;
	sm.n[0].cut = true; /* A's first packets are lost */
	run_until(&sm, 2500 * MS);
	assert_int_not_equal(sm.n[1].s.state, BFD_STATE_UP);
	sm.n[0].cut = false;
	run_until_up(&sm, 30 * S);
	sm.n[0].loss_pct = sm.n[1].loss_pct = 0;
	run_until(&sm, sm.now + 5 * S);
	assert_converged(&sm, 10000, 3);
}

/* §6.8.4: B's packets stop; A goes Down with diag 1 once the detection time
 * passed since the last packet it accepted: Detect Mult received (3) times
 * max(A's RequiredMinRx 10 ms, B's DesiredMinTx 10 ms) = 30 ms. B sent every
 * 7.5..10 ms, so from the cut that is 20..30 ms. */
static void test_detection_time(void **state)
{
	struct bfd_params p = params(10000, 10000, 3);
	struct sim sm;
	uint64_t cut, down;

	(void)state;
	sim_init(&sm, &p, &p);
	run_until_up(&sm, 100 * MS);
	run_until(&sm, 500 * MS);
	assert_converged(&sm, 10000, 3);

	sm.n[1].cut = true;
	cut = sm.now;
	run_until(&sm, cut + 29 * MS);
	if (sm.n[0].s.state == BFD_STATE_UP) /* not yet, unless 30 ms since the last */
		assert_true(sm.now - sm.n[0].last_rx < 30 * MS);
	run_until(&sm, cut + 200 * MS);
	assert_int_equal(sm.n[0].nlog, 2);
	assert_change(&sm.n[0].log[1], BFD_STATE_UP, BFD_STATE_DOWN, BFD_DIAG_DETECT_EXPIRED);
	down = sm.n[0].log[1].t;
	assert_int_equal(down - sm.n[0].last_rx, 30 * MS);
	assert_in_range(down - cut, 20 * MS, 30 * MS);
	assert_int_equal(sm.n[0].s.remote_disc, 0); /* §6.8.1 */
	assert_int_equal(sm.n[0].s.cnt.down, 1);
	/* A's Down reached B: B goes Down, Neighbor Signaled Session Down */
	assert_int_equal(sm.n[1].s.state, BFD_STATE_DOWN);
	assert_int_equal(sm.n[1].s.local_diag, BFD_DIAG_NEIGHBOR_DOWN);
	assert_int_equal(sm.n[1].s.remote_diag, BFD_DIAG_DETECT_EXPIRED);
}

/* §6.8.4 with different parameters each side: A's detection time is B's
 * Detect Mult (5) x max(A's RequiredMinRx 10 ms, B's DesiredMinTx 20 ms) =
 * 100 ms; B's is 3 x max(B's RequiredMinRx 15 ms, A's DesiredMinTx 10 ms) =
 * 45 ms. The TX intervals: A max(10, B's RequiredMinRx 15) = 15 ms, B
 * max(20, 10) = 20 ms. */
static void test_detection_time_asymmetric(void **state)
{
	struct bfd_params pa = params(10000, 10000, 3), pb = params(20000, 15000, 5);
	struct sim sm;

	(void)state;
	sim_init(&sm, &pa, &pb);
	run_until_up(&sm, 100 * MS);
	run_until(&sm, 500 * MS);
	assert_int_equal(sm.n[0].s.detect_time_ns, 100 * MS);
	assert_int_equal(sm.n[1].s.detect_time_ns, 45 * MS);
	assert_int_equal(sm.n[0].s.tx_interval_us, 15000);
	assert_int_equal(sm.n[1].s.tx_interval_us, 20000);

	sm.n[1].cut = true;
	run_until(&sm, sm.now + S);
	assert_int_equal(sm.n[0].log[1].diag, BFD_DIAG_DETECT_EXPIRED);
	assert_int_equal(sm.n[0].log[1].t - sm.n[0].last_rx, 100 * MS);
}

/* §6.8.16 / §6.8.6: B AdminDown (diag 7) -> A Down with diag 3 and sees
 * AdminDown; A stays Down (it does not go Init on AdminDown); B back ->
 * Up again. */
static void test_admin_down(void **state)
{
	struct bfd_params p = params(10000, 10000, 3), pd;
	struct bfd_event ev;
	struct sim sm;

	(void)state;
	sim_init(&sm, &p, &p);
	run_until_up(&sm, 100 * MS);
	run_until(&sm, 500 * MS);

	pd = p;
	pd.admin_down = true;
	bfd_session_set_params(&sm.n[1].s, &pd, sm.now, &ev);
	assert_true(ev.changed && ev.send_now);
	assert_int_equal(ev.new_state, BFD_STATE_ADMIN_DOWN);
	assert_int_equal(ev.diag, BFD_DIAG_ADMIN_DOWN);
	log_ev(&sm, 1, &ev);
	flush(&sm);
	assert_int_equal(sm.n[0].s.state, BFD_STATE_DOWN);
	assert_int_equal(sm.n[0].s.local_diag, BFD_DIAG_NEIGHBOR_DOWN);
	assert_int_equal(sm.n[0].s.remote_state, BFD_STATE_ADMIN_DOWN);
	assert_int_equal(sm.n[0].s.cnt.down, 1);
	assert_int_equal(sm.n[1].s.cnt.down, 1);

	run_until(&sm, sm.now + 5 * S);
	assert_int_equal(sm.n[0].s.state, BFD_STATE_DOWN);
	assert_int_equal(sm.n[1].s.state, BFD_STATE_ADMIN_DOWN);
	/* slow TX while not Up (§6.8.3) */
	assert_int_equal(sm.n[0].s.tx_interval_us, BFD_SLOW_TX_US);

	bfd_session_set_params(&sm.n[1].s, &p, sm.now, &ev);
	assert_true(ev.changed);
	assert_int_equal(ev.new_state, BFD_STATE_DOWN);
	log_ev(&sm, 1, &ev);
	flush(&sm);
	run_until_up(&sm, 3 * S);
	assert_int_equal(sm.n[0].s.cnt.up, 2);
	assert_int_equal(sm.n[0].s.local_diag, BFD_DIAG_NONE);
}

/* A session in AdminDown ignores the peer (§6.8.6 "discard the packet")
 * but keeps learning its variables. */
static void test_admin_down_ignores_peer(void **state)
{
	struct bfd_params p = params(10000, 10000, 3), pd = p;
	struct sim sm;

	(void)state;
	pd.admin_down = true;
	sim_init(&sm, &pd, &p);
	assert_int_equal(sm.n[0].s.state, BFD_STATE_ADMIN_DOWN);
	assert_int_equal(sm.n[0].s.local_diag, BFD_DIAG_ADMIN_DOWN);
	run_until(&sm, 5 * S);
	assert_int_equal(sm.n[0].s.state, BFD_STATE_ADMIN_DOWN);
	assert_int_equal(sm.n[1].s.state, BFD_STATE_DOWN);
	assert_int_equal(sm.n[0].s.remote_disc, DISC_B);
	assert_int_equal(sm.n[0].nlog, 0);
	assert_int_equal(sm.n[1].nlog, 0);
}

/* B restarts with a new discriminator: its Down with Your Discriminator 0
 * brings A Down (diag 3), then both Up with A using the new one. */
static void test_peer_restart(void **state)
{
	struct bfd_params p = params(10000, 10000, 3);
	struct sim sm;

	(void)state;
	sim_init(&sm, &p, &p);
	run_until_up(&sm, 100 * MS);
	run_until(&sm, 500 * MS);

	bfd_session_init(&sm.n[1].s, &p, 0x0b0b0b0cu, 99, sm.now);
	sm.n[1].nlog = 0;
	run_until(&sm, sm.now + 1); /* B's first packet is due at once */
	assert_int_equal(sm.n[0].log[1].from, BFD_STATE_UP);
	assert_int_equal(sm.n[0].log[1].to, BFD_STATE_DOWN);
	assert_int_equal(sm.n[0].log[1].diag, BFD_DIAG_NEIGHBOR_DOWN);
	run_until_up(&sm, 3 * S);
	assert_int_equal(sm.n[0].s.remote_disc, 0x0b0b0b0cu);
	assert_int_equal(sm.n[1].s.remote_disc, DISC_A);
	assert_int_equal(sm.n[0].s.cnt.down, 1);
	assert_int_equal(sm.n[0].s.cnt.up, 2);
	run_until(&sm, sm.now + S);
	assert_converged(&sm, 10000, 3);
}

/* ---- timers: §6.8.3 deferral, jitter, passive, RemoteMinRx 0 ---- */

static void up_and_converged(struct sim *sm, const struct bfd_params *pa,
			     const struct bfd_params *pb)
{
	sim_init(sm, pa, pb);
	run_until_up(sm, 100 * MS);
	run_until(sm, 500 * MS);
	assert_false(sm->n[0].s.poll);
	assert_false(sm->n[1].s.poll);
}

/* Build A's packet and hand it to B by hand; B's reply back to A. */
static void poll_round(struct sim *sm, struct bfd_ctrl *a_pkt, struct bfd_ctrl *b_pkt)
{
	send_one(sm, 0);
	bfd_decode(sm->n[0].pkt, sm->n[0].len, a_pkt);
	/* §6.8.7: a Poll is answered at once, not at the next interval */
	assert_true(!(a_pkt->flags & BFD_FLAG_POLL) || sm->pending[1]);
	sm->pending[1] = false;
	send_one(sm, 1);
	bfd_decode(sm->n[1].pkt, sm->n[1].len, b_pkt);
	sm->pending[0] = false;
}

/* §6.8.3: a larger DesiredMinTx while Up is advertised at once (with P) but
 * used only when the Final comes back; B's detection time grows at once. */
static void test_deferral_tx_increase(void **state)
{
	struct bfd_params p = params(10000, 10000, 3), p2 = params(100000, 10000, 3);
	struct bfd_ctrl ca, cb;
	struct bfd_event ev;
	struct sim sm;
	uint64_t polls;

	(void)state;
	up_and_converged(&sm, &p, &p);
	polls = sm.n[0].s.cnt.polls;
	bfd_session_set_params(&sm.n[0].s, &p2, sm.now, &ev);
	assert_false(ev.changed);
	assert_true(ev.send_now);
	assert_true(sm.n[0].s.poll);
	assert_int_equal(sm.n[0].s.cnt.polls, polls + 1);
	assert_int_equal(sm.n[0].s.tx_interval_us, 10000); /* not yet */

	sm.n[0].cut = true; /* the Poll is lost: still 10 ms, still polling */
	send_one(&sm, 0);
	bfd_decode(sm.n[0].pkt, sm.n[0].len, &ca);
	assert_true(ca.flags & BFD_FLAG_POLL);
	assert_int_equal(ca.desired_min_tx_us, 100000);
	assert_int_equal(sm.n[0].s.tx_interval_us, 10000);
	assert_true(sm.n[0].s.next_tx - sm.now <= 10 * MS);
	sm.n[0].cut = false;

	poll_round(&sm, &ca, &cb);
	assert_true(ca.flags & BFD_FLAG_POLL);
	/* B: detection time 3 x max(10, 100) ms at once, and a Final */
	assert_int_equal(sm.n[1].s.detect_time_ns, 300 * MS);
	assert_true(cb.flags & BFD_FLAG_FINAL);
	assert_false(cb.flags & BFD_FLAG_POLL);
	/* A: Poll over, 100 ms now */
	assert_false(sm.n[0].s.poll);
	assert_int_equal(sm.n[0].s.tx_interval_us, 100000);
	/* the Final is sent once */
	send_one(&sm, 1);
	bfd_decode(sm.n[1].pkt, sm.n[1].len, &cb);
	assert_false(cb.flags & BFD_FLAG_FINAL);
	/* and the next of A carries no P */
	send_one(&sm, 0);
	bfd_decode(sm.n[0].pkt, sm.n[0].len, &ca);
	assert_false(ca.flags & BFD_FLAG_POLL);
	run_until(&sm, sm.now + 2 * S);
	assert_int_equal(sm.n[0].s.state, BFD_STATE_UP);
	assert_int_equal(sm.n[0].s.cnt.down, 0);
}

/* §6.8.3: a smaller RequiredMinRx while Up: A's detection time keeps the
 * old value, 3 x max(50, 10) = 150 ms, until the Final; then 30 ms. */
static void test_deferral_rx_decrease(void **state)
{
	struct bfd_params pa = params(10000, 50000, 3), pb = params(10000, 10000, 3);
	struct bfd_params pa2 = params(10000, 10000, 3);
	struct bfd_ctrl ca, cb;
	struct bfd_event ev;
	struct sim sm;

	(void)state;
	up_and_converged(&sm, &pa, &pb);
	assert_int_equal(sm.n[0].s.detect_time_ns, 150 * MS);
	assert_int_equal(sm.n[1].s.tx_interval_us, 50000);
	bfd_session_set_params(&sm.n[0].s, &pa2, sm.now, &ev);
	assert_true(sm.n[0].s.poll);
	assert_int_equal(sm.n[0].s.detect_time_ns, 150 * MS);

	poll_round(&sm, &ca, &cb);
	assert_int_equal(ca.required_min_rx_us, 10000);
	assert_true(ca.flags & BFD_FLAG_POLL);
	assert_int_equal(sm.n[1].s.tx_interval_us, 10000); /* B may speed up at once */
	assert_true(cb.flags & BFD_FLAG_FINAL);
	assert_false(sm.n[0].s.poll);
	assert_int_equal(sm.n[0].s.detect_time_ns, 30 * MS);
}

/* §6.8.3: a smaller DesiredMinTx and a larger RequiredMinRx apply at once
 * (still with a Poll sequence). */
static void test_no_deferral_tx_decrease_rx_increase(void **state)
{
	struct bfd_params pa = params(100000, 10000, 3), pb = params(10000, 10000, 3);
	struct bfd_params pa2 = params(10000, 50000, 3);
	struct bfd_event ev;
	struct sim sm;

	(void)state;
	up_and_converged(&sm, &pa, &pb);
	assert_int_equal(sm.n[0].s.tx_interval_us, 100000);
	assert_int_equal(sm.n[0].s.detect_time_ns, 30 * MS);
	bfd_session_set_params(&sm.n[0].s, &pa2, sm.now, &ev);
	assert_true(sm.n[0].s.poll);
	assert_true(ev.send_now);
	assert_int_equal(sm.n[0].s.tx_interval_us, 10000);
	assert_int_equal(sm.n[0].s.detect_time_ns, 150 * MS);
	/* no change, no Poll */
	run_until(&sm, sm.now + S);
	assert_false(sm.n[0].s.poll);
	bfd_session_set_params(&sm.n[0].s, &pa2, sm.now, &ev);
	assert_false(sm.n[0].s.poll);
	assert_false(ev.send_now);
}

/* Not Up: new intervals apply at once, no Poll, and TX stays >= 1 s. */
static void test_params_while_down(void **state)
{
	struct bfd_params p = params(10000, 10000, 3), p2 = params(20000, 5000, 3);
	struct bfd_session s;
	struct bfd_event ev;
	uint8_t buf[BFD_PKT_MAX];
	struct bfd_ctrl c;

	(void)state;
	bfd_session_init(&s, &p, DISC_A, 1, 0);
	bfd_session_set_params(&s, &p2, 0, &ev);
	assert_false(s.poll);
	assert_false(ev.changed);
	assert_int_equal(s.tx_interval_us, BFD_SLOW_TX_US);
	assert_int_equal(s.required_min_rx_us, 5000);
	bfd_decode(buf, bfd_session_build(&s, buf, sizeof(buf), 0), &c);
	assert_int_equal(c.desired_min_tx_us, BFD_SLOW_TX_US);
	assert_int_equal(c.required_min_rx_us, 5000);
	assert_false(c.flags & (BFD_FLAG_POLL | BFD_FLAG_FINAL));
	assert_int_equal(c.state, BFD_STATE_DOWN);
	assert_int_equal(c.your_disc, 0);
	/* a DesiredMinTx above 1 s is used as it is */
	p2.desired_min_tx_us = 3000000;
	bfd_session_set_params(&s, &p2, 0, &ev);
	assert_int_equal(s.tx_interval_us, 3000000);
}

/* A packet from a peer (B) built by hand into @p s. */
static struct bfd_event peer_packet(struct bfd_session *s, uint8_t state, uint8_t flags,
				    uint32_t tx_us, uint32_t rx_us, uint64_t now)
{
	uint8_t b[BFD_HDR_LEN] = { 0x20, (uint8_t)(state << 6 | flags), 3, 24 };
	struct bfd_event ev;
	struct bfd_ctrl c;

	b[4] = 0x0b, b[5] = 0x0b, b[6] = 0x0b, b[7] = 0x0b;
	if (state != BFD_STATE_DOWN && state != BFD_STATE_ADMIN_DOWN)
		b[8] = (uint8_t)(s->local_disc >> 24), b[9] = (uint8_t)(s->local_disc >> 16),
		b[10] = (uint8_t)(s->local_disc >> 8), b[11] = (uint8_t)s->local_disc;
	b[12] = (uint8_t)(tx_us >> 24), b[13] = (uint8_t)(tx_us >> 16),
	b[14] = (uint8_t)(tx_us >> 8), b[15] = (uint8_t)tx_us;
	b[16] = (uint8_t)(rx_us >> 24), b[17] = (uint8_t)(rx_us >> 16),
	b[18] = (uint8_t)(rx_us >> 8), b[19] = (uint8_t)rx_us;
	assert_int_equal(bfd_decode(b, sizeof(b), &c), BFD_OK);
	assert_int_equal(bfd_session_rx(s, &c, b, sizeof(b), now, &ev), BFD_OK);
	return ev;
}

/* §6.8.7: each interval 75..100 % of the TX interval, 75..90 % with Detect
 * Mult 1; and it is spread over that range. Interval here: max(DesiredMinTx
 * 1 s (not Up), the peer's RequiredMinRx 2 s) = 2 s. */
static void jitter(uint8_t mult, uint64_t lo_pct, uint64_t hi_pct)
{
	struct bfd_params p = params(10000, 10000, mult);
	uint64_t now = 0, min = UINT64_MAX, max = 0, ivl = 2 * S;
	uint8_t buf[BFD_PKT_MAX];
	struct bfd_session s;

	bfd_session_init(&s, &p, DISC_A, 7, 0);
	peer_packet(&s, BFD_STATE_ADMIN_DOWN, 0, 1000000, 2000000, 0);
	assert_int_equal(s.tx_interval_us, 2000000);
	for (int i = 0; i < 20000; i++) {
		uint64_t gap;

		assert_true(bfd_session_tx_due(&s, now));
		bfd_session_build(&s, buf, sizeof(buf), now);
		assert_false(bfd_session_tx_due(&s, now));
		gap = s.next_tx - now;
		min = gap < min ? gap : min;
		max = gap > max ? gap : max;
		now = s.next_tx;
	}
	assert_true(min >= ivl * lo_pct / 100);
	assert_true(max <= ivl * hi_pct / 100);
	/* spread: within 1 % of each end */
	assert_true(min < ivl * (lo_pct + 1) / 100);
	assert_true(max > ivl * (hi_pct - 1) / 100);
}

static void test_jitter(void **state)
{
	(void)state;
	jitter(3, 75, 100);
}

static void test_jitter_mult1(void **state)
{
	(void)state;
	jitter(1, 75, 90);
}

/* §6.1: a passive session sends nothing until it heard the peer. */
static void test_passive(void **state)
{
	struct bfd_params pp = params(10000, 10000, 3), p = pp;
	struct sim sm;

	(void)state;
	pp.passive = true;
	sim_init(&sm, &pp, &pp);
	assert_false(bfd_session_tx_due(&sm.n[0].s, 0));
	assert_int_equal(bfd_session_next_event(&sm.n[0].s), UINT64_MAX);
	run_until(&sm, 10 * S);
	assert_int_equal(sm.n[0].tx + sm.n[1].tx, 0);

	/* B active: A answers, both Up */
	sim_init(&sm, &pp, &p);
	sm.n[1].dead = true;
	run_until(&sm, 10 * S);
	assert_int_equal(sm.n[0].tx, 0);
	sm.n[1].dead = false;
	bfd_session_init(&sm.n[1].s, &p, DISC_B, 2, sm.now);
	run_until_up(&sm, 3 * S);
	run_until(&sm, sm.now + S);
	assert_converged(&sm, 10000, 3);
	assert_true(sm.n[0].tx > 50);
}

/* §6.8.7: no periodic TX while the peer's RequiredMinRx is 0; a Poll is
 * still answered at once. */
static void test_remote_min_rx_zero(void **state)
{
	struct bfd_params p = params(10000, 10000, 3);
	struct bfd_session s;
	struct bfd_event ev;
	uint8_t buf[BFD_PKT_MAX];
	struct bfd_ctrl c;

	(void)state;
	bfd_session_init(&s, &p, DISC_A, 1, 0);
	assert_true(bfd_session_tx_due(&s, 0));
	peer_packet(&s, BFD_STATE_DOWN, 0, 1000000, 0, 0);
	assert_int_equal(s.remote_min_rx_us, 0);
	for (uint64_t t = 0; t < 10 * S; t += 10 * MS)
		assert_false(bfd_session_tx_due(&s, t));
	/* only the detection timer is left */
	assert_int_equal(bfd_session_next_event(&s), s.detect_deadline);
	ev = peer_packet(&s, BFD_STATE_INIT, BFD_FLAG_POLL, 1000000, 0, MS);
	assert_true(ev.send_now);
	assert_true(ev.changed); /* Init -> Up */
	bfd_decode(buf, bfd_session_build(&s, buf, sizeof(buf), MS), &c);
	assert_true(c.flags & BFD_FLAG_FINAL);
	assert_false(bfd_session_tx_due(&s, 100 * S));
}

/* RequiredMinRx 0: we want no packets, so no detection timeout (§6.8.4). */
static void test_local_min_rx_zero(void **state)
{
	struct bfd_params p = params(10000, 0, 3);
	struct bfd_session s;
	struct bfd_event ev;

	(void)state;
	bfd_session_init(&s, &p, DISC_A, 1, 0);
	peer_packet(&s, BFD_STATE_INIT, 0, 10000, 10000, 0);
	assert_int_equal(s.state, BFD_STATE_UP);
	assert_int_equal(s.detect_time_ns, 0);
	assert_false(bfd_session_timer(&s, 100 * S, &ev));
	assert_int_equal(s.state, BFD_STATE_UP);
}

/* The detection timer in Down resets RemoteDiscr (§6.8.1) without a state
 * change; Init times out to Down with diag 1. */
static void test_timer_in_down_and_init(void **state)
{
	struct bfd_params p = params(10000, 10000, 3);
	struct bfd_session s;
	struct bfd_event ev;

	(void)state;
	bfd_session_init(&s, &p, DISC_A, 1, 0);
	peer_packet(&s, BFD_STATE_ADMIN_DOWN, 0, 1000000, 10000, 0);
	assert_int_equal(s.remote_disc, DISC_B);
	/* 3 x max(10 ms, 1 s) */
	assert_int_equal(s.detect_time_ns, 3 * S);
	assert_false(bfd_session_timer(&s, 3 * S - 1, &ev));
	assert_int_equal(s.remote_disc, DISC_B);
	assert_false(bfd_session_timer(&s, 3 * S, &ev));
	assert_int_equal(s.remote_disc, 0);
	assert_int_equal(s.state, BFD_STATE_DOWN);

	peer_packet(&s, BFD_STATE_DOWN, 0, 1000000, 10000, 4 * S);
	assert_int_equal(s.state, BFD_STATE_INIT);
	assert_false(bfd_session_timer(&s, 7 * S - 1, &ev));
	assert_true(bfd_session_timer(&s, 7 * S, &ev));
	assert_int_equal(ev.old_state, BFD_STATE_INIT);
	assert_int_equal(ev.new_state, BFD_STATE_DOWN);
	assert_int_equal(ev.diag, BFD_DIAG_DETECT_EXPIRED);
	assert_int_equal(s.cnt.down, 0); /* not a flap: it never was Up */
}

/* §6.8.6's state machine, every local state against every received one. */
static void test_state_table(void **state)
{
	static const struct {
		uint8_t local, remote, want, diag;
	} t[] = {
		{ BFD_STATE_ADMIN_DOWN, BFD_STATE_ADMIN_DOWN, BFD_STATE_ADMIN_DOWN,
		  BFD_DIAG_ADMIN_DOWN },
		{ BFD_STATE_ADMIN_DOWN, BFD_STATE_DOWN, BFD_STATE_ADMIN_DOWN, BFD_DIAG_ADMIN_DOWN },
		{ BFD_STATE_ADMIN_DOWN, BFD_STATE_INIT, BFD_STATE_ADMIN_DOWN, BFD_DIAG_ADMIN_DOWN },
		{ BFD_STATE_ADMIN_DOWN, BFD_STATE_UP, BFD_STATE_ADMIN_DOWN, BFD_DIAG_ADMIN_DOWN },
		{ BFD_STATE_DOWN, BFD_STATE_ADMIN_DOWN, BFD_STATE_DOWN, BFD_DIAG_NONE },
		{ BFD_STATE_DOWN, BFD_STATE_DOWN, BFD_STATE_INIT, BFD_DIAG_NONE },
		{ BFD_STATE_DOWN, BFD_STATE_INIT, BFD_STATE_UP, BFD_DIAG_NONE },
		{ BFD_STATE_DOWN, BFD_STATE_UP, BFD_STATE_DOWN, BFD_DIAG_NONE },
		{ BFD_STATE_INIT, BFD_STATE_ADMIN_DOWN, BFD_STATE_DOWN, BFD_DIAG_NEIGHBOR_DOWN },
		{ BFD_STATE_INIT, BFD_STATE_DOWN, BFD_STATE_INIT, BFD_DIAG_NONE },
		{ BFD_STATE_INIT, BFD_STATE_INIT, BFD_STATE_UP, BFD_DIAG_NONE },
		{ BFD_STATE_INIT, BFD_STATE_UP, BFD_STATE_UP, BFD_DIAG_NONE },
		{ BFD_STATE_UP, BFD_STATE_ADMIN_DOWN, BFD_STATE_DOWN, BFD_DIAG_NEIGHBOR_DOWN },
		{ BFD_STATE_UP, BFD_STATE_DOWN, BFD_STATE_DOWN, BFD_DIAG_NEIGHBOR_DOWN },
		{ BFD_STATE_UP, BFD_STATE_INIT, BFD_STATE_UP, BFD_DIAG_NONE },
		{ BFD_STATE_UP, BFD_STATE_UP, BFD_STATE_UP, BFD_DIAG_NONE },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct bfd_params p = params(10000, 10000, 3);
		struct bfd_session s;
		struct bfd_event ev;

		p.admin_down = t[i].local == BFD_STATE_ADMIN_DOWN;
		bfd_session_init(&s, &p, DISC_A, 1, 0);
		if (t[i].local == BFD_STATE_INIT)
			peer_packet(&s, BFD_STATE_DOWN, 0, 1000000, 10000, 0);
		if (t[i].local == BFD_STATE_UP)
			peer_packet(&s, BFD_STATE_INIT, 0, 1000000, 10000, 0);
		assert_int_equal(s.state, t[i].local);
		ev = peer_packet(&s, t[i].remote, 0, 1000000, 10000, MS);
		assert_int_equal(s.state, t[i].want);
		assert_int_equal(s.local_diag, t[i].diag);
		assert_int_equal(s.remote_state, t[i].remote);
		assert_int_equal(ev.changed, t[i].want != t[i].local);
		assert_int_equal(ev.send_now, ev.changed); /* no Poll received */
		assert_int_equal(s.cnt.down,
				 t[i].local == BFD_STATE_UP && t[i].want != BFD_STATE_UP);
	}
}

/* ---- bfd_decode: each check of §6.8.6 and the auth section layout ---- */

/* A valid Up packet, 24 bytes: Diag 0, P F C A D M clear. */
static void base_pkt(uint8_t *b)
{
	static const uint8_t pkt[BFD_HDR_LEN] = {
		0x20, 0xc0, 0x03, 0x18, /* Vers 1 Diag 0 | Sta Up | Mult 3 | Length 24 */
		0x00, 0x00, 0x00, 0x01, /* My Discriminator 1 */
		0x00, 0x00, 0x00, 0x02, /* Your Discriminator 2 */
		0x00, 0x00, 0x27, 0x10, /* Desired Min TX 10000 µs */
		0x00, 0x00, 0x27, 0x10, /* Required Min RX 10000 µs */
		0x00, 0x00, 0x00, 0x00
	}; /* Required Min Echo RX 0 */

	memset(b, 0, 64);
	memcpy(b, pkt, sizeof(pkt));
}

/* base_pkt with an auth section of @p type and length @p alen (A set) */
static void auth_pkt(uint8_t *b, uint8_t type, uint8_t alen)
{
	base_pkt(b);
	b[1] |= BFD_FLAG_AUTH;
	b[3] = (uint8_t)(BFD_HDR_LEN + alen);
	b[24] = type;
	b[25] = alen;
	b[26] = 1;
}

static void test_decode_rejects(void **state)
{
	struct bfd_ctrl c;
	uint8_t b[64];

	(void)state;
	base_pkt(b);
	assert_int_equal(bfd_decode(b, 24, &c), BFD_OK);
	assert_int_equal(bfd_decode(b, 23, &c), BFD_ERR_TRUNCATED);
	assert_int_equal(bfd_decode(b, 0, &c), BFD_ERR_TRUNCATED);
	/* trailing bytes after Length are ignored */
	assert_int_equal(bfd_decode(b, 40, &c), BFD_OK);

	base_pkt(b), b[0] = 0x00; /* version 0 */
	assert_int_equal(bfd_decode(b, 24, &c), BFD_ERR_BAD_VERSION);
	base_pkt(b), b[0] = 0x40; /* version 2 */
	assert_int_equal(bfd_decode(b, 24, &c), BFD_ERR_BAD_VERSION);
	base_pkt(b), b[3] = 23;
	assert_int_equal(bfd_decode(b, 24, &c), BFD_ERR_BAD_LENGTH);
	base_pkt(b), b[3] = 25; /* Length beyond the datagram */
	assert_int_equal(bfd_decode(b, 24, &c), BFD_ERR_TRUNCATED);
	base_pkt(b), b[1] |= BFD_FLAG_AUTH, b[3] = 25; /* 26 with A */
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_BAD_LENGTH);
	base_pkt(b), b[2] = 0;
	assert_int_equal(bfd_decode(b, 24, &c), BFD_ERR_ZERO_MULT);
	base_pkt(b), b[1] |= BFD_FLAG_MULTI;
	assert_int_equal(bfd_decode(b, 24, &c), BFD_ERR_MULTIPOINT);
	base_pkt(b), b[7] = 0;
	assert_int_equal(bfd_decode(b, 24, &c), BFD_ERR_ZERO_MY_DISC);

	/* Your Discriminator 0: only in Down and AdminDown */
	base_pkt(b), b[11] = 0;
	assert_int_equal(bfd_decode(b, 24, &c), BFD_ERR_ZERO_YOUR_DISC);
	b[1] = BFD_STATE_INIT << 6;
	assert_int_equal(bfd_decode(b, 24, &c), BFD_ERR_ZERO_YOUR_DISC);
	b[1] = BFD_STATE_DOWN << 6;
	assert_int_equal(bfd_decode(b, 24, &c), BFD_OK);
	b[1] = BFD_STATE_ADMIN_DOWN << 6;
	assert_int_equal(bfd_decode(b, 24, &c), BFD_OK);

	/* simple password: Auth Len 4..19 (1..16-byte password) */
	auth_pkt(b, BFD_AUTH_SIMPLE, 4);
	assert_int_equal(bfd_decode(b, 64, &c), BFD_OK);
	assert_int_equal(c.auth_data_len, 1);
	assert_ptr_equal(c.auth_data, b + 27);
	auth_pkt(b, BFD_AUTH_SIMPLE, 19);
	assert_int_equal(bfd_decode(b, 64, &c), BFD_OK);
	assert_int_equal(c.auth_data_len, 16);
	auth_pkt(b, BFD_AUTH_SIMPLE, 3);
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_BAD_LENGTH);
	auth_pkt(b, BFD_AUTH_SIMPLE, 20);
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_BAD_LENGTH);
	/* Auth Len beyond Length */
	auth_pkt(b, BFD_AUTH_SIMPLE, 8), b[3] = 30;
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_BAD_LENGTH);
	auth_pkt(b, BFD_AUTH_SIMPLE, 1), b[3] = 26;
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_BAD_LENGTH);
	/* the whole section must be in the datagram */
	auth_pkt(b, BFD_AUTH_SIMPLE, 8);
	assert_int_equal(bfd_decode(b, 31, &c), BFD_ERR_TRUNCATED);

	/* SHA1: Auth Len exactly 28 */
	auth_pkt(b, BFD_AUTH_KEYED_SHA1, 28);
	assert_int_equal(bfd_decode(b, 52, &c), BFD_OK);
	auth_pkt(b, BFD_AUTH_METICULOUS_SHA1, 28);
	assert_int_equal(bfd_decode(b, 52, &c), BFD_OK);
	auth_pkt(b, BFD_AUTH_KEYED_SHA1, 27);
	assert_int_equal(bfd_decode(b, 52, &c), BFD_ERR_BAD_LENGTH);
	auth_pkt(b, BFD_AUTH_METICULOUS_SHA1, 29);
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_BAD_LENGTH);
	auth_pkt(b, BFD_AUTH_KEYED_SHA1, 28);
	assert_int_equal(bfd_decode(b, 51, &c), BFD_ERR_TRUNCATED);

	/* MD5 (both), reserved 0 and unknown types */
	auth_pkt(b, BFD_AUTH_KEYED_MD5, 24);
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_AUTH_UNSUPPORTED);
	auth_pkt(b, BFD_AUTH_METICULOUS_MD5, 24);
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_AUTH_UNSUPPORTED);
	auth_pkt(b, 0, 4);
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_AUTH_UNSUPPORTED);
	auth_pkt(b, 6, 28);
	assert_int_equal(bfd_decode(b, 64, &c), BFD_ERR_AUTH_UNSUPPORTED);
}

/* The caller demultiplexed a packet whose Your Discriminator is not ours. */
static void test_rx_wrong_your_disc(void **state)
{
	struct bfd_params p = params(10000, 10000, 3);
	struct bfd_session s;
	struct bfd_event ev;
	struct bfd_ctrl c;
	uint8_t b[64];

	(void)state;
	bfd_session_init(&s, &p, 7, 1, 0);
	base_pkt(b); /* Your Discriminator 2 */
	assert_int_equal(bfd_decode(b, 24, &c), BFD_OK);
	assert_int_equal(bfd_session_rx(&s, &c, b, 24, 0, &ev), BFD_ERR_NO_SESSION);
	assert_int_equal(s.cnt.drops[BFD_ERR_NO_SESSION], 1);
	assert_int_equal(s.cnt.rx, 0);
	assert_int_equal(s.remote_disc, 0);
}

/* ---- packet bytes against hand-computed vectors ---- */

/*
 * Keyed SHA1 (§4.4, §6.7.4), key "secret" (zero-padded to 20 bytes in the
 * digest field while hashing), Key ID 1, Sequence 0x01020304. The digest
 * was computed with Python:
 *
 *   import hashlib, struct
 *   hdr = bytes([0x20, 0xC4, 3, 52]) + struct.pack('>IIIII', 0x11111111,
 *         0x22222222, 10000, 10000, 0)
 *   auth = bytes([4, 28, 1, 0]) + struct.pack('>I', 0x01020304)
 *   hashlib.sha1(hdr + auth + b'secret' + bytes(14)).hexdigest()
 *   -> '25a3d63ea2ed20ee6949e0c60516ca7a48266254'
 */
static const uint8_t sha1_vector[52] = {
	0x20, 0xc4, 0x03, 0x34, /* Vers 1 Diag 0 | Sta Up, A | Mult 3 | Length 52 */
	0x11, 0x11, 0x11, 0x11, /* My Discriminator */
	0x22, 0x22, 0x22, 0x22, /* Your Discriminator */
	0x00, 0x00, 0x27, 0x10, /* Desired Min TX 10 ms */
	0x00, 0x00, 0x27, 0x10, /* Required Min RX 10 ms */
	0x00, 0x00, 0x00, 0x00, /* Required Min Echo RX */
	0x04, 0x1c, 0x01, 0x00, /* Auth Type 4 (keyed SHA1) | Auth Len 28 | Key ID 1 | Reserved */
	0x01, 0x02, 0x03, 0x04, /* Sequence Number */
	0x25, 0xa3, 0xd6, 0x3e, 0xa2, 0xed, 0x20, 0xee, 0x69, 0x49, /* digest */
	0xe0, 0xc6, 0x05, 0x16, 0xca, 0x7a, 0x48, 0x26, 0x62, 0x54,
};

static void test_vector_decode(void **state)
{
	/* RFC 5880 §4.1 by hand: Diag 3, Sta Init, P and D, Mult 5 */
	static const uint8_t pkt[24] = { 0x23, 0xa2, 0x05, 0x18, 0xde, 0xad, 0xbe, 0xef,
					 0x00, 0x00, 0x00, 0x07, 0x00, 0x0f, 0x42, 0x40,
					 0x00, 0x00, 0x0c, 0xe4, 0x00, 0x00, 0x00, 0x32 };
	struct bfd_ctrl c;

	(void)state;
	assert_int_equal(bfd_decode(pkt, sizeof(pkt), &c), BFD_OK);
	assert_int_equal(c.version, 1);
	assert_int_equal(c.diag, BFD_DIAG_NEIGHBOR_DOWN);
	assert_int_equal(c.state, BFD_STATE_INIT);
	assert_int_equal(c.flags, BFD_FLAG_POLL | BFD_FLAG_DEMAND);
	assert_int_equal(c.detect_mult, 5);
	assert_int_equal(c.length, 24);
	assert_int_equal(c.my_disc, 0xdeadbeef);
	assert_int_equal(c.your_disc, 7);
	assert_int_equal(c.desired_min_tx_us, 1000000);
	assert_int_equal(c.required_min_rx_us, 3300);
	assert_int_equal(c.required_min_echo_rx_us, 50);

	assert_int_equal(bfd_decode(sha1_vector, sizeof(sha1_vector), &c), BFD_OK);
	assert_int_equal(c.state, BFD_STATE_UP);
	assert_int_equal(c.flags, BFD_FLAG_AUTH);
	assert_int_equal(c.auth_type, BFD_AUTH_KEYED_SHA1);
	assert_int_equal(c.auth_len, 28);
	assert_int_equal(c.auth_key_id, 1);
	assert_int_equal(c.auth_seq, 0x01020304);
	assert_int_equal(c.auth_data_len, 20);
	assert_ptr_equal(c.auth_data, sha1_vector + 32);
}

static void test_vector_sha1(void **state)
{
	struct bfd_params p = params(10000, 10000, 3);
	uint8_t copy[52], d[SHA1_DIGEST_SIZE], buf[BFD_PKT_MAX];
	struct bfd_session s;
	struct bfd_event ev;
	struct sha1_ctx ctx;
	struct bfd_ctrl c;

	(void)state;
	/* nettle, independently of bfd_proto.c: the key in the digest field */
	memcpy(copy, sha1_vector, sizeof(copy));
	memset(copy + 32, 0, 20);
	memcpy(copy + 32, "secret", 6);
	sha1_init(&ctx);
	sha1_update(&ctx, sizeof(copy), copy);
	sha1_digest(&ctx, sizeof(d), d);
	assert_memory_equal(d, sha1_vector + 32, 20);

	/* bfd_session_build writes exactly these bytes */
	set_key(&p, BFD_AUTH_KEYED_SHA1, 1, "secret");
	bfd_session_init(&s, &p, 0x11111111, 1, 0);
	s.state = BFD_STATE_UP;
	s.remote_disc = 0x22222222;
	s.pending_tx_us = s.desired_min_tx_us = 10000;
	s.xmit_auth_seq = 0x01020304;
	assert_int_equal(bfd_session_build(&s, buf, sizeof(buf), 0), 52);
	assert_memory_equal(buf, sha1_vector, 52);
	assert_int_equal(s.xmit_auth_seq, 0x01020305);

	/* and a session with that key accepts the vector */
	bfd_session_init(&s, &p, 0x22222222, 1, 0);
	assert_int_equal(bfd_decode(sha1_vector, 52, &c), BFD_OK);
	assert_int_equal(bfd_session_rx(&s, &c, sha1_vector, 52, 0, &ev), BFD_OK);
	assert_true(s.auth_seq_known);
	assert_int_equal(s.rcv_auth_seq, 0x01020304);
	assert_int_equal(s.state, BFD_STATE_DOWN); /* Down ignores a remote Up (§6.2) */
}

/* ---- authentication (§6.7) ---- */

/* Node @p to's verdict on node @p from's next packet. */
static enum bfd_err verdict(struct sim *sm, int from)
{
	send_one(sm, from);
	sm->pending[0] = sm->pending[1] = false;
	return sm->n[1 - from].last_err;
}

static void test_auth_simple(void **state)
{
	struct bfd_params pa = params(10000, 10000, 3), pb;
	struct bfd_event ev;
	struct sim sm;
	uint8_t buf[BFD_PKT_MAX];
	struct bfd_ctrl c;

	(void)state;
	set_key(&pa, BFD_AUTH_SIMPLE, 5, "pass123");
	up_and_converged(&sm, &pa, &pa);
	bfd_decode(sm.n[0].pkt, sm.n[0].len, &c);
	assert_int_equal(c.length, 24 + 3 + 7);
	assert_memory_equal(c.auth_data, "pass123", 7);

	pb = pa;
	set_key(&pb, BFD_AUTH_SIMPLE, 5, "pass124");
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(verdict(&sm, 1), BFD_ERR_AUTH_BAD);
	set_key(&pb, BFD_AUTH_SIMPLE, 5, "pass12");
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(verdict(&sm, 1), BFD_ERR_AUTH_BAD);
	set_key(&pb, BFD_AUTH_SIMPLE, 5, "pass1234");
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(verdict(&sm, 1), BFD_ERR_AUTH_BAD);
	set_key(&pb, BFD_AUTH_SIMPLE, 6, "pass123");
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(verdict(&sm, 1), BFD_ERR_AUTH_KEY_ID);
	set_key(&pb, BFD_AUTH_KEYED_SHA1, 5, "pass123");
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(verdict(&sm, 1), BFD_ERR_AUTH_TYPE);
	pb.auth.type = BFD_AUTH_NONE;
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(verdict(&sm, 1), BFD_ERR_AUTH_MISMATCH);
	/* and the other way: A without auth gets an A bit */
	bfd_session_set_params(&sm.n[1].s, &pa, sm.now, &ev);
	bfd_session_set_params(&sm.n[0].s, &pb, sm.now, &ev);
	assert_int_equal(verdict(&sm, 1), BFD_ERR_AUTH_MISMATCH);
	assert_int_equal(sm.n[0].s.cnt.drops[BFD_ERR_AUTH_MISMATCH], 2);
	assert_int_equal(sm.n[0].s.cnt.drops[BFD_ERR_AUTH_BAD], 3);
	assert_int_equal(sm.n[0].s.cnt.drops[BFD_ERR_AUTH_KEY_ID], 1);
	assert_int_equal(sm.n[0].s.cnt.drops[BFD_ERR_AUTH_TYPE], 1);
	assert_int_equal(sm.n[0].s.cnt.rx, sm.n[1].s.cnt.tx - 7);

	/* a dropped packet changes nothing, even a Down one */
	{
		struct bfd_session before;

		set_key(&pb, BFD_AUTH_SIMPLE, 5, "wrong");
		bfd_session_set_params(&sm.n[0].s, &pa, sm.now, &ev);
		before = sm.n[0].s;
		bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
		bfd_decode(buf, bfd_session_build(&sm.n[1].s, buf, sizeof(buf), sm.now), &c);
		c.state = BFD_STATE_DOWN;
		assert_int_equal(bfd_session_rx(&sm.n[0].s, &c, buf, c.length, sm.now + MS, &ev),
				 BFD_ERR_AUTH_BAD);
		assert_false(ev.changed || ev.send_now);
		assert_int_equal(sm.n[0].s.state, before.state);
		assert_int_equal(sm.n[0].s.last_rx, before.last_rx);
		assert_int_equal(sm.n[0].s.detect_deadline, before.detect_deadline);
	}
}

static void sha1_session_up(struct sim *sm, uint8_t type)
{
	struct bfd_params p = params(10000, 10000, 3);

	set_key(&p, type, 9, "0123456789abcdefghij"); /* 20 bytes */
	up_and_converged(sm, &p, &p);
	assert_true(sm->n[0].s.auth_seq_known);
	assert_int_equal(sm->n[0].s.cnt.drops[BFD_ERR_AUTH_BAD], 0);
	assert_int_equal(sm->n[0].s.cnt.drops[BFD_ERR_AUTH_SEQ], 0);
}

/* B's next packet with Sequence Number @p seq, A's verdict */
static enum bfd_err with_seq(struct sim *sm, uint32_t seq)
{
	sm->n[1].s.xmit_auth_seq = seq;
	return verdict(sm, 1);
}

static void sha1_common(uint8_t type)
{
	struct bfd_params pb;
	struct bfd_event ev;
	struct bfd_ctrl c;
	struct sim sm;
	uint8_t buf[BFD_PKT_MAX];
	uint32_t rcv;

	sha1_session_up(&sm, type);
	bfd_decode(sm.n[1].pkt, sm.n[1].len, &c);
	assert_int_equal(c.auth_type, type);
	assert_int_equal(c.auth_key_id, 9);
	/* every packet increments the sequence (both types here) */
	rcv = sm.n[0].s.rcv_auth_seq;
	assert_int_equal(with_seq(&sm, sm.n[1].s.xmit_auth_seq), BFD_OK);
	assert_int_equal(sm.n[0].s.rcv_auth_seq, rcv + 1);

	/* a tampered packet */
	sm.n[1].s.xmit_auth_seq = sm.n[0].s.rcv_auth_seq + 1;
	bfd_session_build(&sm.n[1].s, buf, sizeof(buf), sm.now);
	buf[15] ^= 1; /* Desired Min TX */
	assert_int_equal(deliver(&sm, 0, buf, 52), BFD_ERR_AUTH_BAD);

	/* wrong key, same length; a shorter key; wrong key id */
	pb = sm.n[1].s.params;
	pb.auth.key[19] ^= 1;
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(with_seq(&sm, sm.n[0].s.rcv_auth_seq + 1), BFD_ERR_AUTH_BAD);
	pb.auth.key[19] ^= 1;
	pb.auth.key_len = 19;
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(with_seq(&sm, sm.n[0].s.rcv_auth_seq + 1), BFD_ERR_AUTH_BAD);
	pb.auth.key_len = 20;
	pb.auth.key_id = 10;
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(with_seq(&sm, sm.n[0].s.rcv_auth_seq + 1), BFD_ERR_AUTH_KEY_ID);
	pb.auth.key_id = 9;
	bfd_session_set_params(&sm.n[1].s, &pb, sm.now, &ev);
	assert_int_equal(with_seq(&sm, sm.n[0].s.rcv_auth_seq + 1), BFD_OK);
	assert_int_equal(sm.n[0].s.state, BFD_STATE_UP);
}

/* §6.7.4 keyed: the window is RcvAuthSeq .. RcvAuthSeq + 3 x Detect Mult
 * (3 x 3 = 9), inclusive, modulo 2^32: the same number again is accepted. */
static void test_auth_keyed_sha1(void **state)
{
	struct sim sm;
	uint32_t r;

	(void)state;
	sha1_common(BFD_AUTH_KEYED_SHA1);
	sha1_session_up(&sm, BFD_AUTH_KEYED_SHA1);
	r = sm.n[0].s.rcv_auth_seq;
	assert_int_equal(with_seq(&sm, r), BFD_OK); /* replay of the same number */
	assert_int_equal(with_seq(&sm, r - 1), BFD_ERR_AUTH_SEQ);
	assert_int_equal(with_seq(&sm, r + 10), BFD_ERR_AUTH_SEQ);
	assert_int_equal(with_seq(&sm, r + 9), BFD_OK);
	r += 9;
	assert_int_equal(with_seq(&sm, r + 0x80000000u), BFD_ERR_AUTH_SEQ);
	/* across the wrap */
	sm.n[0].s.rcv_auth_seq = 0xfffffffeu;
	assert_int_equal(with_seq(&sm, 0xfffffffdu), BFD_ERR_AUTH_SEQ);
	assert_int_equal(with_seq(&sm, 7), BFD_OK); /* 0xfffffffe + 9 */
	assert_int_equal(sm.n[0].s.rcv_auth_seq, 7);
}

/* §6.7.4 meticulous: RcvAuthSeq + 1 .. RcvAuthSeq + 3 x Detect Mult; a
 * replayed packet is refused. */
static void test_auth_meticulous_sha1(void **state)
{
	struct sim sm;
	uint32_t r;
	uint8_t replay[BFD_PKT_MAX];
	size_t len;

	(void)state;
	sha1_common(BFD_AUTH_METICULOUS_SHA1);
	sha1_session_up(&sm, BFD_AUTH_METICULOUS_SHA1);
	r = sm.n[0].s.rcv_auth_seq;
	assert_int_equal(with_seq(&sm, r), BFD_ERR_AUTH_SEQ);
	assert_int_equal(with_seq(&sm, r + 10), BFD_ERR_AUTH_SEQ);
	assert_int_equal(with_seq(&sm, r + 1), BFD_OK);
	memcpy(replay, sm.n[1].pkt, sm.n[1].len);
	len = sm.n[1].len;
	assert_int_equal(deliver(&sm, 0, replay, len), BFD_ERR_AUTH_SEQ);
	assert_int_equal(with_seq(&sm, r + 1 + 9), BFD_OK);
	sm.n[0].s.rcv_auth_seq = 0xffffffffu;
	assert_int_equal(with_seq(&sm, 0), BFD_OK);
	assert_int_equal(sm.n[0].s.cnt.drops[BFD_ERR_AUTH_SEQ], 3);
}

/* §6.8.1 bfd.AuthSeqKnown: forgotten after twice the detection time
 * (2 x 30 ms) without a packet, so any sequence number is accepted again. */
static void test_auth_seq_known_ages(void **state)
{
	struct bfd_event ev;
	struct sim sm;
	uint64_t last;
	uint32_t far;

	(void)state;
	sha1_session_up(&sm, BFD_AUTH_METICULOUS_SHA1);
	sm.n[1].cut = true;
	run_until(&sm, sm.now + 20 * MS);
	last = sm.n[0].s.last_rx;
	far = sm.n[0].s.rcv_auth_seq + 1000;
	sm.n[1].cut = false;
	sm.n[1].dead = true; /* B stops sending and hearing */
	run_until(&sm, last + 60 * MS - 1);
	assert_true(sm.n[0].s.auth_seq_known);
	assert_int_equal(sm.n[0].s.state, BFD_STATE_DOWN); /* after 30 ms */
	sm.n[1].dead = false;
	assert_int_equal(with_seq(&sm, far), BFD_ERR_AUTH_SEQ);
	sm.now = last + 60 * MS;
	bfd_session_timer(&sm.n[0].s, sm.now, &ev);
	assert_false(sm.n[0].s.auth_seq_known);
	assert_int_equal(with_seq(&sm, far), BFD_OK);
	assert_true(sm.n[0].s.auth_seq_known);
	assert_int_equal(sm.n[0].s.rcv_auth_seq, far);
}

/* New auth settings reset AuthSeqKnown (the header's reload semantics). */
static void test_auth_change_resets_seq(void **state)
{
	struct bfd_params p;
	struct bfd_event ev;
	struct sim sm;

	(void)state;
	sha1_session_up(&sm, BFD_AUTH_KEYED_SHA1);
	p = sm.n[0].s.params;
	bfd_session_set_params(&sm.n[0].s, &p, sm.now, &ev);
	assert_true(sm.n[0].s.auth_seq_known);
	p.auth.key_id = 3;
	bfd_session_set_params(&sm.n[0].s, &p, sm.now, &ev);
	assert_false(sm.n[0].s.auth_seq_known);
	assert_false(ev.changed);
}

/* ---- names and counters ---- */

static void test_names(void **state)
{
	static const char *const errs[BFD_ERR_MAX] = {
		"ok",         "truncated",    "bad_version", "bad_length",     "zero_detect_mult",
		"multipoint", "zero_my_disc", "no_session",  "zero_your_disc", "auth_mismatch",
		"auth_type",  "auth_key_id",  "auth_bad",    "auth_seq",       "auth_unsupported",
		"bad_ttl",    "bad_sport"
	};
	static const char *const diags[] = { "none",
					     "control_detect_expired",
					     "echo_failed",
					     "neighbor_down",
					     "forwarding_reset",
					     "path_down",
					     "concatenated_path_down",
					     "admin_down",
					     "reverse_concatenated_path_down" };

	(void)state;
	for (int e = 0; e < BFD_ERR_MAX; e++)
		assert_string_equal(bfd_err_name((enum bfd_err)e), errs[e]);
	assert_string_equal(bfd_err_name(BFD_ERR_MAX), "unknown");
	for (unsigned d = 0; d < 9; d++)
		assert_string_equal(bfd_diag_name((uint8_t)d), diags[d]);
	assert_string_equal(bfd_diag_name(9), "unknown");
	assert_string_equal(bfd_state_name(BFD_STATE_ADMIN_DOWN), "AdminDown");
	assert_string_equal(bfd_state_name(BFD_STATE_DOWN), "Down");
	assert_string_equal(bfd_state_name(BFD_STATE_INIT), "Init");
	assert_string_equal(bfd_state_name(BFD_STATE_UP), "Up");
	assert_string_equal(bfd_state_name(4), "unknown");
	assert_string_equal(bfd_auth_name(BFD_AUTH_NONE), "none");
	assert_string_equal(bfd_auth_name(BFD_AUTH_SIMPLE), "simple");
	assert_string_equal(bfd_auth_name(BFD_AUTH_KEYED_MD5), "keyed-md5");
	assert_string_equal(bfd_auth_name(BFD_AUTH_METICULOUS_MD5), "meticulous-md5");
	assert_string_equal(bfd_auth_name(BFD_AUTH_KEYED_SHA1), "keyed-sha1");
	assert_string_equal(bfd_auth_name(BFD_AUTH_METICULOUS_SHA1), "meticulous-sha1");
	assert_string_equal(bfd_auth_name(6), "unknown");
}

static void test_counters(void **state)
{
	struct bfd_params p = params(10000, 10000, 3);
	struct sim sm;

	(void)state;
	sim_init(&sm, &p, &p);
	run_until_up(&sm, 100 * MS);
	run_until(&sm, S);
	assert_int_equal(sm.n[0].s.cnt.tx, sm.n[0].tx);
	assert_int_equal(sm.n[1].s.cnt.rx, sm.n[0].tx); /* no loss */
	assert_int_equal(sm.n[0].s.cnt.up, 1);
	assert_int_equal(sm.n[0].s.cnt.down, 0);
	/* one Poll each: the switch from 1 s to 10 ms on reaching Up */
	assert_int_equal(sm.n[0].s.cnt.polls, 1);
	assert_int_equal(sm.n[1].s.cnt.polls, 1);
	for (int e = 0; e < BFD_ERR_MAX; e++)
		assert_int_equal(sm.n[0].s.cnt.drops[e], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_way_handshake),
		cmocka_unit_test(test_converge_10ms),
		cmocka_unit_test(test_converge_3_3ms),
		cmocka_unit_test(test_handshake_with_loss),
		cmocka_unit_test(test_detection_time),
		cmocka_unit_test(test_detection_time_asymmetric),
		cmocka_unit_test(test_admin_down),
		cmocka_unit_test(test_admin_down_ignores_peer),
		cmocka_unit_test(test_peer_restart),
		cmocka_unit_test(test_deferral_tx_increase),
		cmocka_unit_test(test_deferral_rx_decrease),
		cmocka_unit_test(test_no_deferral_tx_decrease_rx_increase),
		cmocka_unit_test(test_params_while_down),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_jitter_mult1),
		cmocka_unit_test(test_passive),
		cmocka_unit_test(test_remote_min_rx_zero),
		cmocka_unit_test(test_local_min_rx_zero),
		cmocka_unit_test(test_timer_in_down_and_init),
		cmocka_unit_test(test_state_table),
		cmocka_unit_test(test_decode_rejects),
		cmocka_unit_test(test_rx_wrong_your_disc),
		cmocka_unit_test(test_vector_decode),
		cmocka_unit_test(test_vector_sha1),
		cmocka_unit_test(test_auth_simple),
		cmocka_unit_test(test_auth_keyed_sha1),
		cmocka_unit_test(test_auth_meticulous_sha1),
		cmocka_unit_test(test_auth_seq_known_ages),
		cmocka_unit_test(test_auth_change_resets_seq),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
