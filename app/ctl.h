/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control socket: vbrctl talks to vbrd over a UNIX stream socket.
 *
 * Protocol (one request per connection or several, newline-delimited JSON):
 *   request:  {"argv": ["show", "routes"]}\n
 *   reply:    {"ok": true, "data": {...}}\n
 *          or {"ok": false, "error": "human readable message"}\n
 * A request is dispatched to the handler whose registered command words are
 * the longest prefix of argv; the remaining words are the handler's args.
 * Malformed JSON, an unknown command or a handler error each get an error
 * reply; the connection stays usable.
 *
 * Data conventions (vbrctl renders any reply from these alone): an object
 * whose member is an array of objects is shown as a table, one column per
 * key; scalars as "key: value" lines. Counters are JSON integers.
 */
#ifndef VBRD_CTL_H
#define VBRD_CTL_H

#include <jansson.h>

/**
 * A command handler, run on the main lcore.
 *
 * @param argc,argv  words after the registered command words
 * @param data       on success, set to a new JSON object (ownership passes)
 * @param err        on failure, a message buffer of @p errlen bytes
 * @return           0, or a negative errno with @p err filled
 */
typedef int (*ctl_handler_t)(int argc, const char *const *argv, json_t **data, char *err,
			     size_t errlen);

/**
 * Register @p fn for the command words @p cmd ("show routes", "reload").
 *
 * The help line declares the arguments the command takes: when it starts
 * with the command words, then argument words, then ':', as in
 * "path set GROUP PATH: make PATH the group's active path", the command takes
 * exactly those (NAME required, [NAME] optional, NAME... one or more,
 * [NAME...] any number; NAME in upper case). Any other help line ("show
 * routes", "ARP counters") declares none. A request with fewer or more
 * arguments than declared is answered with -EINVAL and "CMD: unexpected
 * argument 'x' (usage: USAGE)" or "CMD: missing argument (usage: USAGE)"
 * before @p fn is called, so a handler sees only counts it declared.
 *
 * @param cmd   command words, separated by blanks
 * @param help  one line shown by "vbrctl help", optionally with the usage
 * @param fn    the handler
 * @return 0, -EEXIST if already registered, -EINVAL (no words, no handler),
 *         -ENOMEM
 */
int ctl_register(const char *cmd, const char *help, ctl_handler_t fn);

/**
 * Create the listening socket at @p path (its directory is created, a stale
 * socket file replaced) and add it to the event loop.
 * @return 0 or -errno (-EADDRINUSE when another vbrd answers on it).
 */
int ctl_init(const char *path);

/** Longest request line accepted, bytes (newline excluded). */
#define CTL_MAX_REQUEST 65536

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

/**
 * Run the handler whose command words are the longest prefix of @p argv,
 * in-process (the socket server and the telemetry bridge use this).
 *
 * @param argc,argv  all words of the request, e.g. {"show", "routes"}
 * @param data       on success, a new JSON value (ownership passes); NULL
 *                   on failure
 * @param err        on failure, the message for the user (@p errlen bytes)
 * @return           0, -ENOENT for an unknown command, or the handler's
 *                   negative errno
 */
int ctl_call(int argc, const char *const *argv, json_t **data, char *err, size_t errlen);

/**
 * Evaluate one request line exactly as the socket server does, in-process
 * (for unit tests).
 *
 * @param request_line  JSON request, one trailing newline allowed
 * @param reply_line    set to the reply, a malloc'd string without newline
 *                      (free() it); NULL only when out of memory
 * @return  0 when the reply is {"ok":true,...}; otherwise the reply is an
 *          error and the return is -EINVAL (malformed request), -ENOENT
 *          (unknown command), -ENOMEM, or the handler's negative errno
 */
int ctl_dispatch(const char *request_line, char **reply_line);

/**
 * Close the socket and every client, unlink the path, forget handlers,
 * restore the default idle timeout.
 */
void ctl_fini(void);

#endif
