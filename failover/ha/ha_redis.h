/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's Redis client: hiredis's async API on the main lcore's
 * event loop (core/evloop.h), so that no Redis call ever blocks the loop
 * or runs on a worker. No DPDK: unit-tested against a real redis-server.
 *
 * Endpoint: one server, or a Redis Sentinel master name and its sentinels
 * (the master's address is asked of the sentinels in turn with SENTINEL
 * get-master-addr-by-name, and asked again when the link to the master
 * drops, or when a sentinel publishes +switch-master). Two connections to
 * the master: one for commands, one subscribed to the pair's channel.
 * A dropped link is re-established with exponential backoff (10 ms,
 * doubling, at most 1 s); on_link() reports each change.
 *
 * Keys and channel, all under the prefix "vbrd:PAIR:":
 *   lease            the holder's node id, with an expiry (PX lease)
 *   epoch            the fencing token: INCR on every acquisition
 *   state:NODE       a node's published state (JSON), with an expiry
 *   shared           the active node's shared state (JSON), with an expiry
 *   events           pub/sub channel: "NODE state", "NODE shared", "NODE released"
 *
 * Every lease operation and every write is one server-side Lua script
 * (EVALSHA, loaded with SCRIPT LOAD on each connect; EVAL when the server
 * lost them): never a plain SET, so that the check and the change are one
 * atomic step. A write carries the writer's epoch; a write whose epoch is
 * older than the pair's epoch is refused (-ESTALE), and a write of
 * "shared" is refused unless the writer holds the lease with that epoch.
 *
 * Every operation with a callback has a timeout (cfg.timeout_ms): its
 * callback is called exactly once, with status 0 (answered) or a negative
 * errno (-ETIMEDOUT, -ENOTCONN: the link is down, -EIO: an error reply,
 * -ESTALE: fenced off). A reply that comes after the timeout is ignored.
 */
#ifndef VBRD_HA_REDIS_H
#define VBRD_HA_REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "failover/ha/ha_role.h"

#define HA_REDIS_MAX_SENTINELS 8
#define HA_REDIS_HOST_MAX      64

struct ha_redis_addr {
	char host[HA_REDIS_HOST_MAX]; /* IPv4/IPv6 literal or name */
	uint16_t port;
};

struct ha_redis_cfg {
	struct ha_redis_addr server; /* used when nb_sentinels == 0 */
	char master_name[64];        /* Sentinel: the master's name */
	struct ha_redis_addr sentinels[HA_REDIS_MAX_SENTINELS];
	unsigned nb_sentinels;
	char user[64];       /* Redis 6+ ACL user (AUTH user password); "" = the default user */
	char password[128];  /* AUTH (master and replicas); "" = none */
	char prefix[96];     /* "vbrd:PAIR:" */
	char node[64];       /* this node's id */
	uint32_t timeout_ms; /* per operation, and per connect */
};

struct ha_redis;

struct ha_redis_ops {
	/** The command link to the master came up (@p up) or went down. */
	void (*on_link)(void *ctx, bool up);
	/** A message on the pair's channel from another node: @p from, @p what ("state", ...). */
	void (*on_event)(void *ctx, const char *from, const char *what);
};

/**
 * Start connecting (returns at once; on_link() reports the link). The
 * connects begin at the first ha_redis_timer(), whose clock every
 * deadline is on.
 * @param cfg  copied
 * @return 0, -ENOMEM, -EINVAL (no server and no sentinels)
 */
int ha_redis_start(const struct ha_redis_cfg *cfg, const struct ha_redis_ops *ops, void *ctx,
		   struct ha_redis **out);

/**
 * Close both links; pending callbacks are called with -ECANCELED first.
 * Not from one of @p h's own callbacks (it frees @p h).
 */
void ha_redis_stop(struct ha_redis *h);

/** Periodic work: timeouts, reconnects, sentinel queries. Call every few ms. */
void ha_redis_timer(struct ha_redis *h, uint64_t now_ns);

/** Whether the command link to the master is up. */
bool ha_redis_up(const struct ha_redis *h);

/** "host:port" of the master in use ("" while unknown). */
const char *ha_redis_master(const struct ha_redis *h);

/** Counters for show ha. */
struct ha_redis_stats {
	uint64_t connects, disconnects, sentinel_queries, master_changes;
	uint64_t ops, op_errors, op_timeouts, fenced, published, events_rx;
	uint64_t last_rtt_us; /* of the last answered operation */
};
const struct ha_redis_stats *ha_redis_stats(const struct ha_redis *h);

/**
 * The last reason a link failed, for show ha and the log ("command
 * 10.0.0.5:6379: AUTH: WRONGPASS ...", "sentinel 10.0.0.7:26379: connect
 * timed out"); "" when none yet. Kept after the link comes back.
 */
const char *ha_redis_last_error(const struct ha_redis *h);

typedef void (*ha_lease_cb)(void *ctx, const struct ha_op_result *res);

/**
 * One lease operation (ha_role.h): HA_OP_ACQUIRE (SET lease NODE NX PX
 * lease_ms, INCR epoch when set; else read holder, PTTL and epoch),
 * HA_OP_RENEW (PEXPIRE only when lease == NODE and epoch == @p epoch),
 * HA_OP_RELEASE (DEL only when lease == NODE and epoch == @p epoch, then
 * PUBLISH "NODE released").
 * @param lease_ms  the lease time, ms
 * @param epoch     ours (renew, release); ignored by acquire
 * @return 0 (cb will be called), -ENOTCONN (not called), -ENOMEM
 */
int ha_redis_lease(struct ha_redis *h, enum ha_op op, uint32_t lease_ms, uint64_t epoch,
		   ha_lease_cb cb, void *ctx);

typedef void (*ha_write_cb)(void *ctx, int status);

/**
 * Write this node's state (@p shared false: key state:NODE) or the
 * pair's shared state (@p shared true: key shared, active only), fenced
 * by @p epoch, with expiry @p ttl_ms, and publish "NODE state" or
 * "NODE shared". @p json is NUL-terminated.
 * @return 0 (cb, when not NULL, will be called), -ENOTCONN, -ENOMEM
 */
int ha_redis_write(struct ha_redis *h, bool shared, uint64_t epoch, const char *json,
		   uint32_t ttl_ms, ha_write_cb cb, void *ctx);

typedef void (*ha_read_cb)(void *ctx, int status, const char *json);

/**
 * Read key state:@p node, or shared when @p node is NULL. @p json is NULL
 * when the key is absent (status 0) or on failure; it is valid during the
 * callback only.
 * @return 0 (cb will be called), -ENOTCONN, -ENOMEM
 */
int ha_redis_read(struct ha_redis *h, const char *node, ha_read_cb cb, void *ctx);

#endif
