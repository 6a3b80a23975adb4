/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's Redis client inside: what its two files share.
 * ha_redis.c has the links (command, subscribe, Sentinel), ha_redis_op.c
 * the scripts and the operations. Private to them.
 */
#ifndef VBRD_HA_REDIS_PRIV_H
#define VBRD_HA_REDIS_PRIV_H

#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <hiredis/async.h>

#include "failover/ha/ha_redis.h"

#define NS_PER_MS 1000000ull

/* Operations in flight at once: the role machine has one, publications
 * and reads a few. A power of two: an id's low bits are its slot. */
#define OP_SLOT_BITS 6
#define MAX_OPS      (1u << OP_SLOT_BITS)
#define OP_MAX_ARGS  12

#define KEY_MAX 192 /* prefix (96) + "state:" + node (64) */

/* The server-side scripts (ha_redis_op.c), loaded on every connect. */
enum script { S_ACQUIRE, S_RENEW, S_RELEASE, S_WRITE, S_MAX };
extern const char *const hr_script_text[S_MAX];

enum link_kind { LINK_CMD, LINK_SUB, LINK_QUERY, LINK_SWITCH, LINK_MAX };

enum link_state { LINK_DOWN, LINK_RESOLVING, LINK_CONNECTING, LINK_HANDSHAKE, LINK_UP };

/* A host name being resolved (getaddrinfo_a). */
struct resolve {
	struct gaicb req;
	struct addrinfo hints;
	char host[HA_REDIS_HOST_MAX];
	char port[8];
	struct resolve *next; /* on ha_redis.orphans */
};

struct link {
	struct ha_redis *h;
	enum link_kind kind;
	enum link_state state;
	redisAsyncContext *ac;     /* CONNECTING, HANDSHAKE, UP */
	struct resolve *res;       /* RESOLVING */
	struct ha_redis_addr addr; /* where it connects */
	uint64_t since_ns;         /* when the current step began (before UP) */
	uint64_t retry_ns;         /* DOWN: the next attempt */
	uint32_t backoff_ms;       /* the wait after the next failure */
	unsigned handshake_left;   /* replies the handshake still waits for */
	bool stuck;                /* a handshake command could not be queued */
	unsigned inflight;         /* operations sent, replies not read yet */
	uint64_t progress_ns;      /* last reply, or the send that found inflight 0 */
};

enum op_kind { OP_LEASE, OP_WRITE, OP_READ };

struct op {
	uintptr_t id; /* 0: free; (sequence << OP_SLOT_BITS) | slot */
	enum op_kind kind;
	int script;           /* enum script, -1: a plain command */
	uint64_t start_ns;    /* caller's clock: the timeout counts from here */
	struct timespec sent; /* CLOCK_MONOTONIC: last_rtt_us */
	bool eval;            /* sent again as EVAL after NOSCRIPT */
	union {
		ha_lease_cb lease;
		ha_write_cb write;
		ha_read_cb read;
	} cb;
	void *ctx;
	int argc;
	const char *argv[OP_MAX_ARGS];
	size_t argvlen[OP_MAX_ARGS];
	char *buf; /* the arguments' bytes */
};

struct ha_redis {
	struct ha_redis_cfg cfg;
	struct ha_redis_ops ops;
	void *ctx;
	bool sentinel;
	bool started; /* the first tick started connecting */
	bool stopping;
	uint64_t now_ns;           /* caller's clock at the last tick */
	struct timespec tick_mono; /* CLOCK_MONOTONIC then */
	struct link links[LINK_MAX];
	struct ha_redis_addr master; /* in use or last used; port 0: none yet */
	char master_str[HA_REDIS_HOST_MAX + 8];
	bool master_told;     /* +switch-master named it: connect without asking */
	bool querying;        /* a round of sentinel queries is under way */
	unsigned query_idx;   /* the sentinel asked next (the last that answered) */
	unsigned query_tries; /* sentinels asked in this round */
	unsigned switch_idx;  /* the sentinel of the +switch-master subscription */
	char sha[S_MAX][41];  /* SCRIPT LOAD's answers */
	struct op op[MAX_OPS];
	uintptr_t op_seq;
	struct resolve *orphans; /* timed-out lookups glibc could not cancel */
	struct ha_redis_stats stats;
	char last_error[160];
	char key_lease[KEY_MAX], key_epoch[KEY_MAX], key_state[KEY_MAX], key_shared[KEY_MAX];
	char channel[KEY_MAX];
};

static inline uint64_t hr_mono_since_ns(const struct timespec *t)
{
	struct timespec n;

	clock_gettime(CLOCK_MONOTONIC, &n);
	return (uint64_t)(n.tv_sec - t->tv_sec) * 1000000000ull + (uint64_t)n.tv_nsec -
	       (uint64_t)t->tv_nsec;
}

/*
 * The caller's clock now: the last tick's now_ns plus CLOCK_MONOTONIC's
 * advance since (the caller's clock may be the TSC, tsc_now_ns()), so that
 * something started between ticks counts from when it started.
 */
static inline uint64_t hr_now(const struct ha_redis *h)
{
	return h->now_ns + hr_mono_since_ns(&h->tick_mono);
}

/* Whether @p ms have passed since @p since. Something started during this
 * tick (a callback the timer ran, a connect after a lookup) began after
 * the tick's now: not passed, not a wrapped subtraction. */
static inline bool hr_after(uint64_t now, uint64_t since, uint64_t ms)
{
	return now > since && now - since >= ms * NS_PER_MS;
}

static inline bool hr_reply_is(const redisReply *r, int type)
{
	return r != NULL && r->type == type;
}

/**
 * Close @p l on purpose (@p why NULL: no failure, the caller says what is
 * next) or because it failed (@p why: kept in last_error, and the link's
 * kind decides the retry). Safe from @p l's own reply callbacks.
 */
void hr_link_close(struct link *l, const char *why);

/** Operations older than timeout_ms at @p now: their callbacks get -ETIMEDOUT. */
void hr_ops_expire(struct ha_redis *h, uint64_t now);

/** Every operation in flight: its callback gets -ECANCELED (ha_redis_stop()). */
void hr_ops_cancel(struct ha_redis *h);

#endif
