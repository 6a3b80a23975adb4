/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control socket: vbrctl talks to vbrd over a UNIX stream socket, with the
 * protocol and command registry of core/ctl.h.
 */
#ifndef VBRD_CTL_H
#define VBRD_CTL_H

#include "core/ctl.h"

/**
 * Create the listening socket at @p path (its directory is created, a stale
 * socket file replaced) and add it to the event loop.
 * @return 0 or -errno (-EADDRINUSE when another vbrd answers on it).
 */
int ctl_init(const char *path);

/**
 * Clients served at once. One more connection evicts the client that has
 * been idle longest (see ctl.c), so a full table never locks vbrctl out.
 */
#define CTL_MAX_CLIENTS 64

/** Default idle timeout of a client, ms: see ctl_set_idle_timeout(). */
#define CTL_IDLE_TIMEOUT_MS 5000

/** Longest idle timeout ctl_set_idle_timeout() accepts, ms (one hour). */
#define CTL_IDLE_TIMEOUT_MAX_MS 3600000u

/**
 * Set the idle timeout: a client that sends no complete request for @p ms
 * (and has no reply pending) is closed; one that leaves a pending reply
 * unread for 6 x @p ms is closed too. Checked every @p ms / 10 (10..500 ms),
 * so a client is closed up to that much later. ctl_fini() restores
 * CTL_IDLE_TIMEOUT_MS.
 *
 * @param ms  timeout in milliseconds, 1..CTL_IDLE_TIMEOUT_MAX_MS
 * @return 0, -EINVAL out of range, or -errno from timerfd_settime()
 */
int ctl_set_idle_timeout(unsigned ms);

/** A request whose reply comes later (a reload): see ctl_defer(). */
struct ctl_deferred;

/**
 * From a command handler: take over the reply of the request being
 * answered, then return CTL_DEFERRED. The client gets no reply and none of
 * its further requests is read until ctl_deferred_reply(); it is not closed
 * as idle meanwhile. Main lcore only.
 *
 * @return the ticket, or NULL when the request does not come from a socket
 *         client (telemetry, ctl_dispatch()): then answer at once
 */
struct ctl_deferred *ctl_defer(void);

/**
 * Give a ticket back before returning from the handler that took it: the
 * handler answers at once after all. Main lcore only.
 */
void ctl_defer_cancel(struct ctl_deferred *d);

/**
 * Answer a deferred request and free @p d: {"ok":true,"data":@p data} when
 * @p rc is 0 (ownership of @p data passes), else {"ok":false,"error":@p err}.
 * The reply is dropped when the client has gone. Main lcore only, from the
 * event loop (not from inside the handler that deferred: it returns first).
 */
void ctl_deferred_reply(struct ctl_deferred *d, int rc, json_t *data, const char *err);

/**
 * Close the socket and every client, unlink the path, forget handlers,
 * restore the default idle timeout.
 */
void ctl_fini(void);

#endif
