/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hiredis's async API on the main lcore's event loop (core/evloop.h): the
 * adapter hiredis expects from an event library (the shape of its own
 * adapters/ headers, written for evloop). Private to failover/ha_redis.c.
 */
#ifndef VBRD_HA_REDIS_EV_H
#define VBRD_HA_REDIS_EV_H

#include <hiredis/async.h>

/**
 * Have the event loop watch @p ac's socket: hiredis's hooks addRead,
 * delRead, addWrite, delWrite and cleanup become ev_add()/ev_mod()/ev_del()
 * on a struct ev_handler of @p ac's own, which the cleanup hook frees
 * (hiredis calls it when it frees @p ac). Call right after
 * redisAsyncConnect(), before redisAsyncSetConnectCallback() (which asks
 * for the first write event) and before any command.
 *
 * @return 0, -ENOMEM, -EEXIST (@p ac has an event library already)
 */
int ha_ev_attach(redisAsyncContext *ac);

/**
 * The last ev_add()/ev_mod() failure on @p ac's socket (-errno), 0 when
 * none: after one, the socket may not be watched for what hiredis waits for.
 */
int ha_ev_error(const redisAsyncContext *ac);

#endif
