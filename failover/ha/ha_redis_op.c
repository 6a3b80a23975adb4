/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's Redis operations (ha_redis.h): the server-side scripts,
 * the table of operations in flight, their timeouts, and their replies
 * mapped to struct ha_op_result and status codes. The links they go over
 * are ha_redis.c's.
 *
 * An operation's reply callback carries its id, not a pointer: an
 * operation that timed out or was cancelled leaves the table at once, so
 * its late reply (or the NULL reply hiredis gives every pending callback
 * when it frees a context) finds no id and is ignored, and hiredis never
 * holds memory we free. The slot is free before the caller's callback
 * runs, so that the callback may start the next operation.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "failover/ha/ha_redis.h"
#include "failover/ha/ha_redis_priv.h"

/* ---- the scripts --------------------------------------------------------- */

/*
 * Each is one atomic step on the server: the check and the change cannot
 * be split by the partner's command, nor by the lease expiring between
 * them (time stands still inside a script). The epoch key never expires,
 * so that the fencing token never goes back on the server. (A Sentinel
 * failover can still lose the last INCR: replication is asynchronous, and
 * a master acknowledges before its replica has the write.) Epochs travel
 * as Lua numbers (doubles): exact up to 2^53 acquisitions.
 *
 * Lease scripts answer {held, holder, pttl_ms, epoch} (struct
 * ha_op_result), release one more: 1 when it deleted and published.
 */

/*
 * KEYS lease, epoch; ARGV node, lease_ms.
 * A lease that holds our own node id already is NOT taken as held: we lost
 * track of it (a restart, or a renew whose answer we never saw) and do not
 * know its epoch; the holder is reported as this node and the role machine
 * waits for it to expire, as for any holder, then acquires a new epoch.
 */
static const char script_acquire[] =
	/* no epoch: a new pair, or Redis lost its data (FLUSHALL, a restart
	 * without persistence): start above any epoch used before, the
	 * server's clock in ms, so that no fencing token is used twice */
	"if redis.call('EXISTS', KEYS[2]) == 0 then\n"
	"  local t = redis.call('TIME')\n"
	"  redis.call('SET', KEYS[2], string.format('%.0f', t[1] * 1000 + math.floor(t[2] / "
	"1000)))\n"
	"end\n"
	"if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then\n"
	"  local epoch = redis.call('INCR', KEYS[2])\n"
	"  return {1, ARGV[1], redis.call('PTTL', KEYS[1]), epoch}\n"
	"end\n"
	"return {0, redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[1]),\n"
	"        tonumber(redis.call('GET', KEYS[2]) or '0')}\n";

/* KEYS lease, epoch; ARGV node, lease_ms, epoch: extend only our own lease of that epoch. */
static const char script_renew[] = "local holder = redis.call('GET', KEYS[1]) or ''\n"
				   "local epoch = tonumber(redis.call('GET', KEYS[2]) or '0')\n"
				   "if holder == ARGV[1] and epoch == tonumber(ARGV[3]) then\n"
				   "  redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
				   "  return {1, holder, redis.call('PTTL', KEYS[1]), epoch}\n"
				   "end\n"
				   "return {0, holder, redis.call('PTTL', KEYS[1]), epoch}\n";

/* KEYS lease, epoch; ARGV node, epoch, channel: give back only our own lease of that epoch. */
static const char script_release[] = "local holder = redis.call('GET', KEYS[1]) or ''\n"
				     "local epoch = tonumber(redis.call('GET', KEYS[2]) or '0')\n"
				     "if holder == ARGV[1] and epoch == tonumber(ARGV[2]) then\n"
				     "  redis.call('DEL', KEYS[1])\n"
				     "  redis.call('PUBLISH', ARGV[3], ARGV[1] .. ' released')\n"
				     "  return {0, '', -2, epoch, 1}\n"
				     "end\n"
				     "return {0, holder, redis.call('PTTL', KEYS[1]), epoch, 0}\n";

/*
 * KEYS key, lease, epoch; ARGV node, epoch, value, ttl_ms, shared ("1"/"0"),
 * channel. A writer with an older epoch than the pair's is fenced off (a
 * node that was active, paused, and wakes up after a takeover); "shared"
 * is written only by the holder of the lease, with the current epoch.
 */
static const char script_write[] =
	"local epoch = tonumber(redis.call('GET', KEYS[3]) or '0')\n"
	"local mine = tonumber(ARGV[2])\n"
	"if mine < epoch then\n"
	"  return redis.error_reply('STALE epoch ' .. ARGV[2] .. ' < ' .. epoch)\n"
	"end\n"
	"if ARGV[5] == '1' and (redis.call('GET', KEYS[2]) ~= ARGV[1] or mine ~= epoch) then\n"
	"  return redis.error_reply('STALE not the lease holder with epoch ' .. ARGV[2])\n"
	"end\n"
	"redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])\n"
	"redis.call('PUBLISH', ARGV[6], ARGV[1] .. (ARGV[5] == '1' and ' shared' or ' state'))\n"
	"return 1\n";

const char *const hr_script_text[S_MAX] = {
	[S_ACQUIRE] = script_acquire,
	[S_RENEW] = script_renew,
	[S_RELEASE] = script_release,
	[S_WRITE] = script_write,
};

/* ---- operations ------------------------------------------------------------ */

static struct op *op_find(struct ha_redis *h, uintptr_t id)
{
	struct op *o = &h->op[id & (MAX_OPS - 1)];

	return id != 0 && o->id == id ? o : NULL;
}

/*
 * Slots only a lease operation may take: reads and writes (a flood of
 * events on the pair's channel starts a read each) never leave the role
 * machine's one operation in flight without a slot. Its renews failed
 * with -ENOMEM for as long as such a flood lasted: the active stepped down.
 */
#define OP_LEASE_RESERVED 2

static struct op *op_new(struct ha_redis *h, enum op_kind kind, int script)
{
	unsigned i, nfree = 0, slot = MAX_OPS;

	for (i = 0; i < MAX_OPS; i++)
		if (h->op[i].id == 0 && nfree++ == 0)
			slot = i;
	if (slot == MAX_OPS || (kind != OP_LEASE && nfree <= OP_LEASE_RESERVED))
		return NULL;
	i = slot;
	memset(&h->op[i], 0, sizeof(h->op[i]));
	h->op[i].id = (++h->op_seq << OP_SLOT_BITS) | i;
	h->op[i].kind = kind;
	h->op[i].script = script;
	h->op[i].start_ns = hr_now(h);
	return &h->op[i];
}

static void op_free(struct op *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

/* Copy @p argc NUL-terminated arguments into one buffer of @p o's own. */
static int op_args(struct op *o, int argc, const char *const *argv)
{
	size_t len[OP_MAX_ARGS], total = 0;
	char *p;
	int i;

	for (i = 0; i < argc; i++)
		total += (len[i] = strlen(argv[i])) + 1;
	p = o->buf = malloc(total);
	if (p == NULL)
		return -ENOMEM;
	for (i = 0; i < argc; i++) {
		memcpy(p, argv[i], len[i] + 1);
		o->argv[i] = p;
		o->argvlen[i] = len[i];
		p += len[i] + 1;
	}
	o->argc = argc;
	return 0;
}

static void on_op(redisAsyncContext *ac, void *r, void *priv);

static int op_send(struct ha_redis *h, struct op *o)
{
	struct link *l = &h->links[LINK_CMD];

	if (l->state != LINK_UP || h->stopping)
		return -ENOTCONN;
	if (redisAsyncCommandArgv(l->ac, on_op, (void *)o->id, o->argc, o->argv, o->argvlen) !=
	    REDIS_OK)
		return -ENOTCONN; /* hiredis is closing the context */
	if (l->inflight++ == 0)
		l->progress_ns = hr_now(h);
	clock_gettime(CLOCK_MONOTONIC, &o->sent);
	return 0;
}

/* Start @p o, or free it and say why not. */
static int op_start(struct ha_redis *h, struct op *o, int argc, const char *const *argv)
{
	int rc = op_args(o, argc, argv);

	if (rc == 0)
		rc = op_send(h, o);
	if (rc < 0) {
		op_free(o);
		return rc;
	}
	h->stats.ops++;
	return 0;
}

/* {held, holder, pttl, epoch[, published]} into @p res. */
static int lease_reply(struct ha_redis *h, const redisReply *r, struct ha_op_result *res)
{
	if (r->type != REDIS_REPLY_ARRAY || r->elements < 4 ||
	    !hr_reply_is(r->element[0], REDIS_REPLY_INTEGER) ||
	    !hr_reply_is(r->element[1], REDIS_REPLY_STRING) ||
	    !hr_reply_is(r->element[2], REDIS_REPLY_INTEGER) ||
	    !hr_reply_is(r->element[3], REDIS_REPLY_INTEGER) || r->element[3]->integer < 0)
		return -EIO;
	res->held = r->element[0]->integer == 1;
	snprintf(res->holder, sizeof(res->holder), "%s", r->element[1]->str);
	res->pttl_ms = r->element[2]->integer;
	res->epoch = (uint64_t)r->element[3]->integer;
	if (r->elements > 4 && hr_reply_is(r->element[4], REDIS_REPLY_INTEGER) &&
	    r->element[4]->integer == 1)
		h->stats.published++;
	return 0;
}

/* A script's error reply "STALE ...": fenced off. */
static int error_status(const redisReply *r)
{
	return strncmp(r->str, "STALE", 5) == 0 ? -ESTALE : -EIO;
}

/* The end of @p o: its callback, exactly once; the slot is free before it runs. */
static void op_done(struct ha_redis *h, struct op *o, int status, const redisReply *r)
{
	enum op_kind kind = o->kind;
	typeof(o->cb) cb = o->cb;
	void *ctx = o->ctx;
	struct ha_op_result res = { .status = 0, .pttl_ms = -2 };
	const char *json = NULL;

	if (status == 0 && r->type == REDIS_REPLY_ERROR) {
		status = error_status(r);
	} else if (status == 0) {
		switch (kind) {
		case OP_LEASE:
			status = lease_reply(h, r, &res);
			break;
		case OP_WRITE:
			if (r->type == REDIS_REPLY_INTEGER)
				h->stats.published++;
			else
				status = -EIO;
			break;
		case OP_READ:
			if (r->type == REDIS_REPLY_STRING)
				json = r->str;
			else if (r->type != REDIS_REPLY_NIL)
				status = -EIO;
			break;
		}
	}
	if (status == -ETIMEDOUT)
		h->stats.op_timeouts++;
	else if (status == -ESTALE)
		h->stats.fenced++;
	else if (status < 0 && status != -ECANCELED)
		h->stats.op_errors++;
	op_free(o);
	switch (kind) {
	case OP_LEASE:
		if (status < 0)
			res = (struct ha_op_result){ .status = status, .pttl_ms = -2 };
		cb.lease(ctx, &res);
		break;
	case OP_WRITE:
		if (cb.write != NULL)
			cb.write(ctx, status);
		break;
	case OP_READ:
		cb.read(ctx, status, status == 0 ? json : NULL);
		break;
	}
}

static void on_op(redisAsyncContext *ac, void *r, void *priv)
{
	struct link *l = ac->data;
	struct ha_redis *h = l->h;
	redisReply *reply = r;
	struct op *o;

	if (reply != NULL && l->ac == ac) {
		l->inflight--;
		l->progress_ns = hr_now(h);
	}
	o = op_find(h, (uintptr_t)priv);
	if (o == NULL)
		return; /* timed out or cancelled: the late reply is ignored */
	if (reply == NULL) {
		op_done(h, o, -ENOTCONN, NULL);
		return;
	}
	if (reply->type == REDIS_REPLY_ERROR && o->script >= 0 && !o->eval &&
	    strncmp(reply->str, "NOSCRIPT", 8) == 0) {
		/* The server lost its script cache (SCRIPT FLUSH, a restart
		 * behind a proxy): send the script itself, which caches it. */
		o->eval = true;
		o->argv[0] = "EVAL";
		o->argvlen[0] = 4;
		o->argv[1] = hr_script_text[o->script];
		o->argvlen[1] = strlen(hr_script_text[o->script]);
		if (op_send(h, o) < 0)
			op_done(h, o, -ENOTCONN, NULL);
		return;
	}
	h->stats.last_rtt_us = hr_mono_since_ns(&o->sent) / 1000;
	if (reply->type == REDIS_REPLY_ERROR && h->sentinel && l->ac == ac &&
	    strncmp(reply->str, "READONLY", 8) == 0) {
		/* The master we write to was turned into a replica: ask the sentinels. */
		op_done(h, o, -EIO, reply);
		hr_link_close(l, "READONLY: no longer the master");
		return;
	}
	op_done(h, o, 0, reply);
}

int ha_redis_lease(struct ha_redis *h, enum ha_op op, uint32_t lease_ms, uint64_t epoch,
		   ha_lease_cb cb, void *ctx)
{
	char lease[16], ep[24];
	const char *argv[8] = { "EVALSHA", NULL, "2", h->key_lease, h->key_epoch, h->cfg.node };
	int argc, script;
	struct op *o;

	if (cb == NULL)
		return -EINVAL;
	if (!ha_redis_up(h))
		return -ENOTCONN;
	snprintf(lease, sizeof(lease), "%u", lease_ms);
	snprintf(ep, sizeof(ep), "%" PRIu64, epoch);
	switch (op) {
	case HA_OP_ACQUIRE:
		script = S_ACQUIRE;
		argv[6] = lease;
		argc = 7;
		break;
	case HA_OP_RENEW:
		script = S_RENEW;
		argv[6] = lease;
		argv[7] = ep;
		argc = 8;
		break;
	case HA_OP_RELEASE:
		script = S_RELEASE;
		argv[6] = ep;
		argv[7] = h->channel;
		argc = 8;
		break;
	default:
		return -EINVAL;
	}
	argv[1] = h->sha[script];
	o = op_new(h, OP_LEASE, script);
	if (o == NULL)
		return -ENOMEM;
	o->cb.lease = cb;
	o->ctx = ctx;
	return op_start(h, o, argc, argv);
}

int ha_redis_write(struct ha_redis *h, bool shared, uint64_t epoch, const char *json,
		   uint32_t ttl_ms, ha_write_cb cb, void *ctx)
{
	char ttl[16], ep[24];
	const char *argv[] = {
		"EVALSHA",
		h->sha[S_WRITE],
		"3",
		shared ? h->key_shared : h->key_state,
		h->key_lease,
		h->key_epoch,
		h->cfg.node,
		ep,
		json,
		ttl,
		shared ? "1" : "0",
		h->channel,
	};
	struct op *o;

	if (json == NULL || ttl_ms == 0)
		return -EINVAL;
	if (!ha_redis_up(h))
		return -ENOTCONN;
	snprintf(ttl, sizeof(ttl), "%u", ttl_ms);
	snprintf(ep, sizeof(ep), "%" PRIu64, epoch);
	o = op_new(h, OP_WRITE, S_WRITE);
	if (o == NULL)
		return -ENOMEM;
	o->cb.write = cb;
	o->ctx = ctx;
	return op_start(h, o, (int)(sizeof(argv) / sizeof(argv[0])), argv);
}

int ha_redis_read(struct ha_redis *h, const char *node, ha_read_cb cb, void *ctx)
{
	char key[KEY_MAX];
	const char *argv[] = { "GET", key };
	struct op *o;

	if (cb == NULL)
		return -EINVAL;
	if (!ha_redis_up(h))
		return -ENOTCONN;
	if (node == NULL)
		snprintf(key, sizeof(key), "%s", h->key_shared);
	else if ((size_t)snprintf(key, sizeof(key), "%sstate:%s", h->cfg.prefix, node) >=
		 sizeof(key))
		return -EINVAL;
	o = op_new(h, OP_READ, -1);
	if (o == NULL)
		return -ENOMEM;
	o->cb.read = cb;
	o->ctx = ctx;
	return op_start(h, o, 2, argv);
}

void hr_ops_expire(struct ha_redis *h, uint64_t now)
{
	unsigned i;

	for (i = 0; i < MAX_OPS; i++)
		if (h->op[i].id != 0 && hr_after(now, h->op[i].start_ns, h->cfg.timeout_ms))
			op_done(h, &h->op[i], -ETIMEDOUT, NULL);
}

void hr_ops_cancel(struct ha_redis *h)
{
	unsigned i;

	for (i = 0; i < MAX_OPS; i++)
		if (h->op[i].id != 0)
			op_done(h, &h->op[i], -ECANCELED, NULL);
}
