/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BFD, the protocol (RFC 5880): the control packet (§4.1), its
 * authentication (§4.2-4.4, §6.7: simple password, keyed and meticulous
 * keyed SHA1), the reception checks (§6.8.6), the session state machine
 * (§6.2, §6.8), Poll/Final sequences for timer changes (§6.5, §6.8.3),
 * the transmit interval with its jitter (§6.8.2, §6.8.7) and the
 * detection time (§6.8.4).
 *
 * Plain C: no DPDK, no clock, no I/O. Time is a caller's monotonic clock
 * in nanoseconds (`now`), so the same code runs TSC-timed in a worker and
 * on simulated time in the unit tests. Nothing allocates; a session is
 * one struct the caller owns, and is written by one thread only.
 *
 * What the caller does around it (failover/bfd_worker.c): demultiplexing
 * a received packet to its session (bfd_decode() then the discriminator
 * or the addresses, RFC 5880 §6.3), the IP/UDP checks of RFC 5881/5883
 * (TTL 255, ports), sending what bfd_session_build() writes.
 */
#ifndef VBRD_BFD_PROTO_H
#define VBRD_BFD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BFD_VERSION     1
#define BFD_HDR_LEN     24                 /* mandatory section, bytes */
#define BFD_PKT_MAX     (BFD_HDR_LEN + 28) /* with the longest auth section (SHA1) */
#define BFD_PORT_SINGLE 3784               /* RFC 5881 §4 */
#define BFD_PORT_ECHO   3785
#define BFD_PORT_MULTI  4784  /* RFC 5883 §3 */
#define BFD_SPORT_MIN   49152 /* RFC 5881 §4 source ports */
#define BFD_SPORT_MAX   65535
#define BFD_SLOW_TX_US  1000000u /* §6.8.3: at least 1 s while not Up */
#define BFD_KEY_MAX     20       /* simple password: 1..16; SHA1 key: 1..20 bytes */

/* §4.1 State (Sta) */
enum bfd_state {
	BFD_STATE_ADMIN_DOWN = 0,
	BFD_STATE_DOWN = 1,
	BFD_STATE_INIT = 2,
	BFD_STATE_UP = 3
};

/* §4.1 Diagnostic (Diag) */
enum bfd_diag {
	BFD_DIAG_NONE = 0,
	BFD_DIAG_DETECT_EXPIRED = 1, /* Control Detection Time Expired */
	BFD_DIAG_ECHO_FAILED = 2,
	BFD_DIAG_NEIGHBOR_DOWN = 3, /* Neighbor Signaled Session Down */
	BFD_DIAG_FWD_RESET = 4,
	BFD_DIAG_PATH_DOWN = 5,
	BFD_DIAG_CONCAT_DOWN = 6,
	BFD_DIAG_ADMIN_DOWN = 7,
	BFD_DIAG_REV_CONCAT_DOWN = 8,
};

/* §4.1 flags, as they sit in the second byte: P F C A D M */
#define BFD_FLAG_POLL   0x20
#define BFD_FLAG_FINAL  0x10
#define BFD_FLAG_CPI    0x08 /* Control Plane Independent */
#define BFD_FLAG_AUTH   0x04
#define BFD_FLAG_DEMAND 0x02
#define BFD_FLAG_MULTI  0x01 /* Multipoint: must be zero */

/* §4.1 Auth Type */
enum bfd_auth_type {
	BFD_AUTH_NONE = 0,
	BFD_AUTH_SIMPLE = 1,
	BFD_AUTH_KEYED_MD5 = 2, /* not supported: dropped as auth_unsupported */
	BFD_AUTH_METICULOUS_MD5 = 3,
	BFD_AUTH_KEYED_SHA1 = 4,
	BFD_AUTH_METICULOUS_SHA1 = 5,
};

/*
 * Why a received packet is discarded (§6.8.6 and §6.7), one drop counter
 * each. bfd_err_name() gives the counter name ("bad_version").
 */
enum bfd_err {
	BFD_OK = 0,
	BFD_ERR_TRUNCATED,    /* shorter than 24 bytes or than its Length field */
	BFD_ERR_BAD_VERSION,  /* Version is not 1 */
	BFD_ERR_BAD_LENGTH,   /* Length < 24 (26 with A), or auth length wrong or beyond Length */
	BFD_ERR_ZERO_MULT,    /* Detect Mult is zero */
	BFD_ERR_MULTIPOINT,   /* M bit set */
	BFD_ERR_ZERO_MY_DISC, /* My Discriminator is zero */
	BFD_ERR_NO_SESSION, /* Your Discriminator (or, when zero, the addresses) match no session */
	BFD_ERR_ZERO_YOUR_DISC, /* Your Discriminator zero while the State is not Down or AdminDown */
	BFD_ERR_AUTH_MISMATCH, /* A bit set and the session has no auth, or the other way round */
	BFD_ERR_AUTH_TYPE,     /* Auth Type is not the session's */
	BFD_ERR_AUTH_KEY_ID,   /* Auth Key ID is not the session's */
	BFD_ERR_AUTH_BAD,      /* wrong password or digest */
	BFD_ERR_AUTH_SEQ,      /* sequence number out of the window of §6.7.3/§6.7.4 */
	BFD_ERR_AUTH_UNSUPPORTED, /* MD5 and unknown types */
	BFD_ERR_BAD_TTL,   /* single-hop: TTL / hop limit not 255 (RFC 5881 §5); caller's check */
	BFD_ERR_BAD_SPORT, /* source port outside 49152..65535 (RFC 5881 §4); caller's check */
	BFD_ERR_MAX
};

/**
 * Counter name of a drop reason.
 *
 * @param e  the reason
 * @return   "truncated", "bad_version", ... (snake_case); "ok" for BFD_OK;
 *           "unknown" out of range. Static strings.
 */
const char *bfd_err_name(enum bfd_err e);

/** A control packet's fields (§4.1), host order, as bfd_decode() read them. */
struct bfd_ctrl {
	uint8_t version;
	uint8_t diag;
	uint8_t state; /* enum bfd_state */
	uint8_t flags; /* BFD_FLAG_* */
	uint8_t detect_mult;
	uint8_t length; /* bytes, as the Length field says */
	uint32_t my_disc;
	uint32_t your_disc;
	uint32_t desired_min_tx_us;
	uint32_t required_min_rx_us;
	uint32_t required_min_echo_rx_us;
	/* authentication section, when flags has BFD_FLAG_AUTH */
	uint8_t auth_type;
	uint8_t auth_len;
	uint8_t auth_key_id;
	uint32_t auth_seq;        /* SHA1/MD5 types */
	const uint8_t *auth_data; /* simple: the password; SHA1: the 20-byte digest */
	uint8_t auth_data_len;
};

/**
 * Decode and check a control packet (§4.1), the checks of §6.8.6 that need
 * no session, in the RFC's order: version, length (against @p len and, with
 * the A bit, the auth section's own length: simple 4..19, SHA1 28, within
 * Length), detect multiplier, multipoint, My Discriminator, Your
 * Discriminator zero only in Down or AdminDown.
 *
 * @param p    the UDP payload
 * @param len  its length, bytes (trailing bytes after Length are ignored)
 * @param out  the fields (filled as far as read, also on error); auth_data
 *             points into @p p
 * @return     BFD_OK, or the reason to discard: TRUNCATED (len < 24 or <
 *             Length), BAD_VERSION, BAD_LENGTH, ZERO_MULT, MULTIPOINT,
 *             ZERO_MY_DISC, ZERO_YOUR_DISC, AUTH_UNSUPPORTED (MD5, reserved
 *             or unknown Auth Type)
 */
enum bfd_err bfd_decode(const uint8_t *p, size_t len, struct bfd_ctrl *out);

/** Authentication of one session (§6.7). */
struct bfd_auth {
	uint8_t type;    /* enum bfd_auth_type: NONE, SIMPLE, KEYED_SHA1, METICULOUS_SHA1 */
	uint8_t key_id;  /* Auth Key ID sent and required */
	uint8_t key_len; /* bytes of key: simple 1..16, SHA1 1..20 */
	uint8_t key[BFD_KEY_MAX];
};

/** What the configuration asks of a session. */
struct bfd_params {
	uint32_t desired_min_tx_us;  /* bfd.DesiredMinTxInterval once Up, µs (>= 1) */
	uint32_t required_min_rx_us; /* bfd.RequiredMinRxInterval, µs (0: wants no packets) */
	uint8_t detect_mult;         /* bfd.DetectMult, 1..255 */
	bool passive;                /* §6.1: send nothing until the peer is heard */
	bool admin_down;             /* §6.8.16: hold the session in AdminDown */
	struct bfd_auth auth;
};

/** Session counters; written by the session's thread, read by anyone (torn reads are fine). */
struct bfd_counters {
	uint64_t rx;                 /* packets accepted */
	uint64_t tx;                 /* packets built */
	uint64_t up;                 /* transitions to Up */
	uint64_t down;               /* transitions from Up to Down or AdminDown (flaps) */
	uint64_t polls;              /* Poll sequences started */
	uint64_t drops[BFD_ERR_MAX]; /* packets for this session discarded, by reason */
};

/** One BFD session: the state variables of §6.8.1 plus timers. */
struct bfd_session {
	struct bfd_params params;      /* as configured (bfd_session_set_params()) */
	uint8_t state;                 /* bfd.SessionState */
	uint8_t remote_state;          /* bfd.RemoteSessionState */
	uint8_t local_diag;            /* bfd.LocalDiag */
	uint8_t remote_diag;           /* the last packet's Diag */
	uint32_t local_disc;           /* bfd.LocalDiscr (nonzero, the caller's) */
	uint32_t remote_disc;          /* bfd.RemoteDiscr */
	uint32_t desired_min_tx_us;    /* in effect: BFD_SLOW_TX_US while not Up (§6.8.3) */
	uint32_t required_min_rx_us;   /* in effect */
	uint32_t remote_min_rx_us;     /* bfd.RemoteMinRxInterval */
	uint32_t remote_desired_tx_us; /* the last packet's Desired Min TX */
	uint8_t remote_detect_mult;
	bool remote_demand; /* bfd.RemoteDemandMode (only recorded: no Demand mode) */
	bool poll;          /* a Poll sequence is running: P on every packet */
	bool final_due;     /* a Poll was received: the next packet carries F, now */
	bool remote_heard;  /* a packet arrived since the session began (passive role) */
	/* bfd.DesiredMinTxInterval / bfd.RequiredMinRxInterval as advertised in
	 * packets, µs. They differ from desired_min_tx_us / required_min_rx_us
	 * (in effect) only while §6.8.3 defers a change (a larger TX or a
	 * smaller RX interval while Up) until the Poll sequence ends. */
	uint32_t pending_tx_us, pending_rx_us;
	uint32_t tx_interval_us;  /* the agreed TX interval now (before jitter) */
	uint64_t detect_time_ns;  /* the agreed detection time now (0 while none) */
	uint64_t next_tx;         /* ns: when the next periodic packet is due */
	uint64_t detect_deadline; /* ns: detection timeout (0: not armed) */
	uint64_t last_rx;         /* ns of the last packet accepted (0: never) */
	uint64_t last_change;     /* ns of the last state change */
	/* §6.7: sequence numbers */
	uint32_t xmit_auth_seq; /* bfd.XmitAuthSeq */
	uint32_t rcv_auth_seq;  /* bfd.RcvAuthSeq */
	bool auth_seq_known;    /* bfd.AuthSeqKnown */
	uint32_t rand;          /* xorshift state for the jitter */
	struct bfd_counters cnt;
};

/** What one call changed, for the caller to act on and log. */
struct bfd_event {
	bool changed; /* state changed */
	uint8_t old_state, new_state;
	uint8_t diag;  /* bfd.LocalDiag after the change */
	bool send_now; /* a packet must go out now (Final, or the state changed) */
};

/**
 * Start a session in Down (or AdminDown, diag 7, when @p p says so),
 * §6.8.1: RemoteDiscr 0, RemoteMinRxInterval 1 µs, slow TX (at least 1 s,
 * §6.8.3), a random XmitAuthSeq; the first packet is due at @p now unless
 * passive (§6.1). Also the way to restart a session (a new discriminator).
 *
 * @param s           the session (zeroed here)
 * @param p           its parameters (copied; the caller validated them)
 * @param local_disc  bfd.LocalDiscr, nonzero and unique on this system
 * @param seed        seed for the jitter and the first sequence number
 *                    (0 is replaced by a constant)
 * @param now         monotonic time, ns
 */
void bfd_session_init(struct bfd_session *s, const struct bfd_params *p, uint32_t local_disc,
		      uint32_t seed, uint64_t now);

/**
 * Apply new parameters to a running session (a reload). Interval changes
 * start a Poll sequence when the session is Up (send_now); an increase of
 * the TX interval and a decrease of the RX interval are advertised at once
 * but take effect only once it completes (§6.8.3). While not Up new
 * intervals apply at once, TX at least 1 s. admin_down moves to AdminDown
 * with diag 7 (§6.8.16); leaving it moves to Down with diag 0. New auth
 * settings take effect at once and reset AuthSeqKnown.
 *
 * @param s    the session
 * @param p    the new parameters (copied)
 * @param now  monotonic time, ns
 * @param ev   filled (changed / send_now)
 */
void bfd_session_set_params(struct bfd_session *s, const struct bfd_params *p, uint64_t now,
			    struct bfd_event *ev);

/**
 * Process a received packet that bfd_decode() accepted and the caller
 * demultiplexed to @p s: authentication (§6.7, against @p pkt, the whole
 * BFD payload of @p len bytes, for the digest), then §6.8.6 from "If the
 * A bit is set" on: remote variables, Final ends a Poll sequence, the
 * detection time (re-armed from @p now), the state machine of §6.2, a Poll
 * makes the next packet a Final, sent at once (ev->send_now). A session in
 * AdminDown learns the remote variables and changes nothing else.
 *
 * SHA1 sequence window (§6.7.4): keyed RcvAuthSeq..RcvAuthSeq+3*M,
 * meticulous RcvAuthSeq+1..RcvAuthSeq+3*M, mod 2^32, M the packet's Detect
 * Mult (the RFC's "Detect Mult"; a forged one still fails the digest).
 *
 * @param s    the session
 * @param c    what bfd_decode() read from @p pkt
 * @param pkt  the BFD payload
 * @param len  its length, bytes
 * @param now  monotonic time, ns
 * @param ev   filled (changed, send_now)
 * @return     BFD_OK, or the reason the packet was discarded, counted in
 *             s->cnt.drops: NO_SESSION (Your Discriminator nonzero and not
 *             ours), AUTH_MISMATCH, AUTH_TYPE, AUTH_KEY_ID, AUTH_BAD,
 *             AUTH_SEQ. A discarded packet changes nothing else.
 */
enum bfd_err bfd_session_rx(struct bfd_session *s, const struct bfd_ctrl *c, const uint8_t *pkt,
			    size_t len, uint64_t now, struct bfd_event *ev);

/**
 * Detection timeout (§6.8.4): when @p now reached the deadline (a detection
 * time after the last accepted packet), RemoteDiscr is zeroed (§6.8.1) and
 * a session in Init or Up goes Down with diag 1. Also ages AuthSeqKnown
 * (reset after twice the detection time without packets, §6.8.1). No
 * detection while bfd.RequiredMinRxInterval is 0.
 *
 * @param s    the session
 * @param now  monotonic time, ns
 * @param ev   always filled; send_now when the state changed
 * @return     true when the state changed
 */
bool bfd_session_timer(struct bfd_session *s, uint64_t now, struct bfd_event *ev);

/**
 * Whether a periodic packet is due (§6.8.7): never while the peer's
 * RequiredMinRxInterval is 0, nor passive while RemoteDiscr is 0 (§6.1,
 * §6.8.7). Packets asked by ev->send_now go out regardless.
 *
 * @param s    the session
 * @param now  monotonic time, ns
 */
bool bfd_session_tx_due(const struct bfd_session *s, uint64_t now);

/**
 * Write the next control packet (§6.8.7) into @p buf: P while a Poll runs,
 * F when one was received (once; never both, §6.5: the Poll goes on in the
 * next packet), the auth section with the next sequence number (incremented
 * per packet, keyed and meticulous alike) and digest (§6.7.4). Schedules the
 * next periodic packet at 75-100 % of the TX interval (75-90 % when
 * DetectMult is 1), TX interval = max(DesiredMinTx in effect,
 * RemoteMinRxInterval) (§6.8.2).
 *
 * @param s    the session
 * @param buf  where to write
 * @param cap  bytes of @p buf (BFD_PKT_MAX is always enough)
 * @param now  monotonic time, ns
 * @return     bytes written (24..52); 0 when @p cap is too small (nothing
 *             changed)
 */
size_t bfd_session_build(struct bfd_session *s, uint8_t *buf, size_t cap, uint64_t now);

/**
 * When the session next has work: the periodic TX (when allowed), the
 * detection deadline, the AuthSeqKnown ageing.
 *
 * @return  monotonic time, ns (may be in the past); UINT64_MAX: none
 */
uint64_t bfd_session_next_event(const struct bfd_session *s);

/** §4.1 State: "AdminDown", "Down", "Init", "Up"; "unknown" out of range. */
const char *bfd_state_name(uint8_t state);

/** RFC 5880 §4.1 name of a diagnostic: "none", "control_detect_expired", ... "unknown" above 8. */
const char *bfd_diag_name(uint8_t diag);

/** §4.1 Auth Type: "none", "simple", "keyed-md5", "meticulous-md5", "keyed-sha1", "meticulous-sha1"; "unknown" above 5. */
const char *bfd_auth_name(uint8_t type);

#endif
