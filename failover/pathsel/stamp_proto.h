/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STAMP, the Simple Two-way Active Measurement Protocol (RFC 8762): the
 * Session-Sender test packet (§4.2.1, §4.2.2), the Session-Reflector's
 * answer (§4.3.1, §4.3.2) in stateless and stateful mode, authenticated
 * mode's HMAC-SHA-256 (§4.4), the NTP timestamps (§4.2.1, RFC 5905 §6) and
 * the Error Estimate (RFC 4656 §4.1.2), and the stateful reflector's
 * per-session sequence counters (§4.3).
 *
 * Plain C: no DPDK, no clock, no I/O, nothing allocates. Timestamps are
 * the caller's: the worker takes them (NTP format, stamp_ntp_from_unix_ns())
 * and passes them in, so the same code runs in a worker and in the unit
 * tests. A session table is one struct the caller owns, used by one thread.
 *
 * What the caller does around it: the IP/UDP checks (UDP port 862 or the
 * configured one, §4.1), reading the received TTL / hop limit for the
 * Session-Sender TTL field, timestamping on receive (t2) and as late as it
 * can before sending (t3), swapping the addresses and ports of the reply.
 *
 * Byte layouts (offsets in bytes; every field not named here is MBZ, sent
 * as zero and ignored on receipt, §4.2.1):
 *
 *   Session-Sender, unauthenticated (§4.2.1), 44 bytes:
 *     0 Sequence Number (4), 4 Timestamp (8), 12 Error Estimate (2)
 *   Session-Sender, authenticated (§4.2.2), 112 bytes:
 *     0 Sequence Number (4), 16 Timestamp (8), 24 Error Estimate (2), 96 HMAC (16)
 *   Session-Reflector, unauthenticated (§4.3.1), 44 bytes:
 *     0 Sequence Number (4), 4 Timestamp (8), 12 Error Estimate (2),
 *     16 Receive Timestamp (8), 24 Session-Sender Sequence Number (4),
 *     28 Session-Sender Timestamp (8), 36 Session-Sender Error Estimate (2),
 *     40 Ses-Sender TTL (1)
 *   Session-Reflector, authenticated (§4.3.2), 112 bytes:
 *     0 Sequence Number (4), 16 Timestamp (8), 24 Error Estimate (2),
 *     32 Receive Timestamp (8), 48 Session-Sender Sequence Number (4),
 *     64 Session-Sender Timestamp (8), 72 Session-Sender Error Estimate (2),
 *     80 Ses-Sender TTL (1), 96 HMAC (16)
 *
 * All fields are in network byte order; the structs below hold host order.
 */
#ifndef VBRD_STAMP_PROTO_H
#define VBRD_STAMP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STAMP_PORT       862 /* RFC 8762 §4.1 reflector port */
#define STAMP_UNAUTH_LEN 44  /* both packets, unauthenticated mode (§4.2.1, §4.3.1) */
#define STAMP_AUTH_LEN   112 /* both packets, authenticated mode (§4.2.2, §4.3.2) */
#define STAMP_HMAC_OFF   96  /* authenticated mode: the HMAC covers bytes 0..95 (§4.4) */
#define STAMP_HMAC_LEN   16  /* HMAC-SHA-256 truncated to 128 bits (§4.4, RFC 4868) */
#define STAMP_KEY_MAX    64  /* bytes of HMAC key kept (SHA-256's block size) */

/* NTP 64-bit timestamps (RFC 5905 §6): seconds since 1900 in the high 32
 * bits, the fraction of a second in units of 2^-32 s in the low 32. */
#define STAMP_NTP_UNIX_OFFSET 2208988800ull /* s from 1900-01-01 to 1970-01-01 */

/**
 * Unix time to an NTP 64-bit timestamp (RFC 5905 §6), as STAMP's Timestamp
 * fields carry it when the Error Estimate's Z bit is 0 (RFC 8762 §4.2.1).
 * The fraction is rounded to the nearest 2^-32 s (~0.23 ns, finer than a
 * nanosecond, so stamp_unix_ns_from_ntp() gives @p ns back exactly).
 *
 * @param ns  nanoseconds since the Unix epoch (1970-01-01 UTC)
 * @return    NTP timestamp; the seconds wrap modulo 2^32 (era 0 ends on
 *            2036-02-07), which stamp_unix_ns_from_ntp() undoes until 2106
 */
uint64_t stamp_ntp_from_unix_ns(uint64_t ns);

/**
 * NTP 64-bit timestamp to Unix time, the inverse of stamp_ntp_from_unix_ns().
 * Seconds at or above 2208988800 are era 0 (1968-2036); below, era 1 (the
 * pivot of RFC 5905 §6: 2036-2106), so every instant 1970..2106 round-trips.
 *
 * @param ntp  NTP timestamp (seconds << 32 | fraction)
 * @return     nanoseconds since the Unix epoch, the fraction rounded to the
 *             nearest ns
 */
uint64_t stamp_unix_ns_from_ntp(uint64_t ntp);

/**
 * Difference of two NTP timestamps, @p a - @p b, in nanoseconds. Computed
 * modulo 2^64 units, so correct across an NTP era boundary as long as the
 * two are less than 68 years apart.
 *
 * @return  a - b, ns (negative when @p b is later), rounded to nearest
 */
int64_t stamp_ntp_diff_ns(uint64_t a, uint64_t b);

/* Error Estimate (RFC 4656 §4.1.2; RFC 8762 §4.2.1; Z from RFC 8186 §2.3):
 *
 *    0                   1
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
 *   |S|Z|   Scale   |   Multiplier  |
 *
 * error = Multiplier * 2^(Scale - 32) s; Multiplier MUST NOT be zero. */
#define STAMP_EE_S           0x8000 /* clock synchronized to UTC by an external source */
#define STAMP_EE_Z           0x4000 /* timestamps in PTPv2 truncated format (0: NTP) */
#define STAMP_EE_SCALE_SHIFT 8
#define STAMP_EE_SCALE_MASK  0x3f
#define STAMP_EE_MULT_MASK   0xff

/**
 * Encode an Error Estimate (RFC 4656 §4.1.2) for NTP-format timestamps
 * (Z = 0): the smallest Multiplier * 2^Scale (in units of 2^-32 s) that is
 * at least @p error_s, with the smallest Scale that does it.
 *
 * @param synced   S bit: the clock is synchronized to UTC (e.g. by PTP or NTP)
 * @param error_s  the timestamps' error, seconds; below one unit (2^-32 s),
 *                 zero, negative or NaN give one unit (Multiplier 1, Scale 0:
 *                 Multiplier must not be 0); above 255 * 2^31 s, that maximum
 * @return         the 16-bit field, host order
 */
uint16_t stamp_error_estimate(bool synced, double error_s);

/**
 * The error an Error Estimate field states, seconds (Multiplier *
 * 2^(Scale - 32)); 0 for a Multiplier of 0, which RFC 4656 §4.1.2 forbids.
 */
double stamp_error_estimate_s(uint16_t err_est);

/**
 * Authenticated mode (§4.2.2, §4.4): the session's HMAC-SHA-256 key. Key
 * management is outside RFC 8762; use 32 bytes (SHA-256's output, as RFC 4868). A
 * NULL `const struct stamp_auth *` everywhere below means unauthenticated
 * mode.
 */
struct stamp_auth {
	uint8_t key[STAMP_KEY_MAX];
	size_t key_len; /* bytes of key used: 0..64 (more is cut to 64) */
};

/*
 * Why a packet is not accepted, one drop counter each. stamp_err_name()
 * gives the counter name. MBZ fields are not checked: RFC 8762 §4.2.1 has
 * the receiver ignore them (and RFC 8972 gives some of them meaning).
 */
enum stamp_err {
	STAMP_OK = 0,
	STAMP_ERR_SHORT,   /* shorter than 44 bytes (112 in authenticated mode) */
	STAMP_ERR_AUTH,    /* authenticated mode: HMAC mismatch (§4.4) */
	STAMP_ERR_NO_ROOM, /* reply buffer smaller than the test packet (a caller's bug) */
	STAMP_ERR_TABLE_FULL, /* stateful reflector: no counter for the session (stamp_refl_counter() gave NULL) */
	STAMP_ERR_MAX
};

/**
 * Counter name of a drop reason.
 *
 * @return  "ok", "short", "auth_mismatch", "no_room", "session_table_full";
 *          "unknown" out of range. Static strings.
 */
const char *stamp_err_name(enum stamp_err e);

/**
 * Write a Session-Sender test packet (§4.2.1, or §4.2.2 with @p auth): the
 * fields below, every MBZ byte zero, in authenticated mode the HMAC over
 * bytes 0..95 (§4.4). Nothing else: a sender that wants a longer packet
 * (RFC 8972 TLVs, padding) appends after the returned length.
 *
 * @param buf      where to write
 * @param cap      bytes of @p buf
 * @param seq      Sequence Number: 0 for the first packet of the session,
 *                 then +1 per packet (§4.2.1)
 * @param t1       Timestamp: transmit time, NTP format (stamp_ntp_from_unix_ns())
 * @param err_est  Error Estimate of @p t1 (stamp_error_estimate())
 * @param auth     the key; NULL: unauthenticated mode
 * @return         bytes written, 44 or 112; 0 when @p cap is too small
 *                 (nothing written)
 */
size_t stamp_sender_build(uint8_t *buf, size_t cap, uint32_t seq, uint64_t t1, uint16_t err_est,
			  const struct stamp_auth *auth);

/** What a reflector reads from a Session-Sender test packet (§4.2), host order. */
struct stamp_test {
	uint32_t seq;     /* Sequence Number */
	uint64_t t1;      /* Timestamp, NTP format (or PTPv2 when err_est has Z) */
	uint16_t err_est; /* Error Estimate */
	size_t len;       /* bytes of the packet: 44/112, or more (padding, RFC 8972 TLVs) */
};

/** A Session-Reflector test packet (§4.3), as the Session-Sender reads it, host order. */
struct stamp_reply {
	uint32_t seq; /* Sequence Number: the reflector's (a copy of sender_seq when stateless) */
	uint64_t t3;  /* Timestamp: the reflector's transmit time */
	uint16_t err_est;    /* Error Estimate of t3 and t2 */
	uint64_t t2;         /* Receive Timestamp: when the reflector received the test packet */
	uint32_t sender_seq; /* Session-Sender Sequence Number */
	uint64_t t1;         /* Session-Sender Timestamp */
	uint16_t sender_err_est; /* Session-Sender Error Estimate */
	uint8_t sender_ttl;      /* Ses-Sender TTL: the test packet's TTL / hop limit on arrival */
	size_t len;              /* bytes of the packet */
};

/**
 * Read and check a Session-Sender test packet (§4.2.1 / §4.2.2).
 *
 * @param pkt   the UDP payload
 * @param len   its length, bytes; bytes after the base packet (padding,
 *              RFC 8972 TLVs) are not read
 * @param auth  the session's key; NULL: unauthenticated mode
 * @param out   the fields (zeroed, then filled when STAMP_OK)
 * @return      STAMP_OK; STAMP_ERR_SHORT (len < 44, or < 112 with @p auth);
 *              STAMP_ERR_AUTH (HMAC over bytes 0..95 differs, compared in
 *              constant time)
 */
enum stamp_err stamp_test_decode(const uint8_t *pkt, size_t len, const struct stamp_auth *auth,
				 struct stamp_test *out);

/**
 * The Session-Reflector (§4.3): check a test packet and write the reply,
 * the same length as the test packet. RFC 8762 has the sender pad its packet
 * to the reflector's size (§4.2.1: both 44 or 112 bytes); bytes after the
 * base packet (padding, RFC 8972 TLVs) are copied back unread, as a base
 * RFC 8762 reflector does. MBZ bytes of the base packet are zero.
 *
 * Sequence Number (§4.3.1): stateless, "the Session-Reflector copies the
 * value from the received STAMP test packet's Sequence Number field";
 * stateful, the reflector's own count of the packets it answered in that
 * session, from 0 (*@p counter, then incremented).
 *
 * @param pkt       the test packet (UDP payload)
 * @param len       its length, bytes
 * @param out       where the reply goes; may be @p pkt itself (reply in place)
 * @param cap       bytes of @p out (>= @p len)
 * @param stateful  stateful mode: Sequence Number from *@p counter
 * @param counter   stateful: the session's counter (stamp_refl_counter()),
 *                  read then incremented, only when a reply is written;
 *                  NULL fails with STAMP_ERR_TABLE_FULL. Stateless: unused.
 * @param t2        Receive Timestamp: when the test packet arrived, NTP format
 * @param t3        Timestamp: the reply's transmit time, NTP format
 * @param err_est   Error Estimate of @p t2 and @p t3 (stamp_error_estimate())
 * @param ttl       Ses-Sender TTL: the received IPv4 TTL or IPv6 hop limit
 * @param auth      the session's key; NULL: unauthenticated mode. The test
 *                  packet's HMAC is checked, the reply's written (§4.4).
 * @param why       set to the reason when 0 is returned, STAMP_OK otherwise
 *                  (may be NULL)
 * @return          bytes of the reply (= @p len), or 0: SHORT, AUTH, NO_ROOM,
 *                  TABLE_FULL (nothing written, counter unchanged)
 */
size_t stamp_reflect(const uint8_t *pkt, size_t len, uint8_t *out, size_t cap, bool stateful,
		     uint32_t *counter, uint64_t t2, uint64_t t3, uint16_t err_est, uint8_t ttl,
		     const struct stamp_auth *auth, enum stamp_err *why);

/**
 * Read and check a Session-Reflector test packet (§4.3.1 / §4.3.2), on the
 * Session-Sender's side.
 *
 * @param pkt   the UDP payload
 * @param len   its length, bytes (bytes after the base packet not read)
 * @param auth  the session's key; NULL: unauthenticated mode
 * @param out   the fields (zeroed, then filled when STAMP_OK)
 * @return      STAMP_OK, STAMP_ERR_SHORT or STAMP_ERR_AUTH as stamp_test_decode()
 */
enum stamp_err stamp_reply_decode(const uint8_t *pkt, size_t len, const struct stamp_auth *auth,
				  struct stamp_reply *out);

/**
 * Round-trip time of a reply (RFC 8762 §4: the reflector's residence time
 * taken out): (t4 - t1) - (t3 - t2).
 *
 * @param r   the decoded reply
 * @param t4  when the Session-Sender received it, NTP format
 * @return    nanoseconds (negative only with clocks that disagree with
 *            themselves)
 */
int64_t stamp_rtt_ns(const struct stamp_reply *r, uint64_t t4);

/*
 * The stateful reflector's sessions (§4.3.1: "the Session-Reflector
 * maintains the test state", per STAMP session; §4: a session is identified
 * by the 4-tuple of addresses and UDP ports). RFC 8762 has no message that
 * starts or ends a session: one begins with the first test packet of a
 * tuple and ends when none arrived for longer than the caller's idle time,
 * after which the next packet of that tuple begins a new one (counter 0)
 * and the slot may go to another session.
 *
 * Open addressing, linear probing within a window of STAMP_REFL_PROBE slots
 * (so a lookup touches at most that many entries, whatever the load; the
 * first window without a free or idle slot comes at ~80 % load, 3348 of
 * 4096 live sessions in tests/unit/test_stamp.c, and the rest fills after;
 * a full window gives its least recently seen slot to the new session),
 * keyed by a hash seeded per table (not a keyed MAC: it only makes aiming
 * many tuples at one window harder for a peer that does not know the seed).
 */
#define STAMP_REFL_ENTRIES 4096 /* sessions; a power of two */
#define STAMP_REFL_PROBE   64   /* slots a session may occupy from its hash */

/**
 * A test session's identity, as the caller sees it. Zero the whole struct
 * before filling it: every byte of src/dst is compared and hashed (an IPv4
 * address in the first 4 bytes, zeros after).
 */
struct stamp_session_key {
	uint8_t family;           /* the caller's (e.g. AF_INET / AF_INET6) */
	uint8_t src[16], dst[16]; /* the test packet's source and destination addresses */
	uint16_t sport, dport;    /* its UDP ports, any byte order (the caller's, consistently) */
	uint32_t extra; /* the caller's: e.g. the ingress line or port, an RFC 8972 SSID */
};

struct stamp_refl_entry {
	struct stamp_session_key key;
	uint64_t last_ns; /* caller's ns of the session's last packet */
	uint32_t counter; /* the reflector's next Sequence Number in this session */
	bool used;        /* ever held a session (never cleared: the probe chains stay whole) */
};

/** The table; the caller owns it (~256 KiB), one thread uses it. */
struct stamp_refl_table {
	uint64_t seed;
	uint64_t created; /* sessions started since init */
	uint64_t evicted; /* live sessions that gave their slot to a new one */
	struct stamp_refl_entry e[STAMP_REFL_ENTRIES];
};

/**
 * Empty the table.
 *
 * @param t     the table
 * @param seed  hash seed: random per table (e.g. from the TSC or getrandom)
 */
void stamp_refl_table_init(struct stamp_refl_table *t, uint64_t seed);

/**
 * The Sequence Number counter of the session @p k belongs to, for
 * stamp_reflect() in stateful mode. A session not seen for longer than
 * @p idle_ns (or never) starts anew at 0, in its old slot or in the first
 * slot of its probe window that is free or idle. Marks the session seen at
 * @p now_ns.
 *
 * @param t        the table
 * @param k        the session's identity
 * @param now_ns   the caller's monotonic clock, ns
 * @param idle_ns  how long without a packet ends a session, ns (e.g. a few
 *                 times the longest expected test interval)
 * @return         the counter (valid until the next call), never NULL: when
 *                 all STAMP_REFL_PROBE slots of its window hold live
 *                 sessions, the one seen longest ago is evicted (counted in
 *                 t->evicted) and its slot starts this session at 0. A flood
 *                 of new sessions thus restarts the count of live ones, but
 *                 never stops their answers.
 *
 * In authenticated mode check the packet first (stamp_test_decode()), then
 * look its session up: a forged packet must not take a slot.
 */
uint32_t *stamp_refl_counter(struct stamp_refl_table *t, const struct stamp_session_key *k,
			     uint64_t now_ns, uint64_t idle_ns);

#endif
