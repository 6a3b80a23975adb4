/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control commands: the registry every feature adds its `vbrctl` commands
 * to (from its module's start hook), and their dispatch. The socket server
 * (app/ctl.c) and the DPDK telemetry bridge (app/ctl_telemetry.c) both
 * come through here. No DPDK: unit-tested with jansson alone.
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
#ifndef VBRD_CORE_CTL_H
#define VBRD_CORE_CTL_H

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
 * What a handler returns when it answers later: it called ctl_defer()
 * (app/ctl.h) and got a ticket, and will call ctl_deferred_reply() with it.
 * The client gets no reply, and none of its further requests is read,
 * until then; other clients are served meanwhile.
 */
#define CTL_DEFERRED 1

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
 * Also serve command @p cmd (registered with ctl_register(), no arguments)
 * as DPDK telemetry endpoint @p tel_path ("/vbrd/stats"), so that
 * `dpdk-telemetry.py` reads the same JSON. Recorded here; the telemetry
 * bridge exports every recorded endpoint once the modules have started.
 *
 * @return 0, -EINVAL (path not "/..." or too long), -EEXIST, -ENOSPC, -ENOMEM
 */
int ctl_export(const char *cmd, const char *tel_path, const char *help);

/**
 * ctl_export() for a command whose reply is one table ({"rows": [{...}]})
 * keyed by its first @p key_members members, not by the first alone: the
 * telemetry dict then names every row "A_B" (the neighbor table: interface
 * and address), whatever the rows hold, so the keys keep their shape.
 *
 * @param key_members  1..4 (ctl_export() is 1)
 * @return as ctl_export(), -EINVAL for @p key_members out of range
 */
int ctl_export_keyed(const char *cmd, const char *tel_path, const char *help, unsigned key_members);

/** Call @p fn for every endpoint recorded by ctl_export(), in order. @return first error. */
int ctl_export_foreach(int (*fn)(const char *cmd, const char *tel_path, const char *help,
				 unsigned key_members));

/** Longest request line accepted, bytes (newline excluded). */
#define CTL_MAX_REQUEST 65536

/**
 * Run the handler whose command words are the longest prefix of @p argv,
 * in-process (the socket server and the telemetry bridge use this).
 *
 * @param argc,argv  all words of the request, e.g. {"show", "routes"}
 * @param data       on success, a new JSON value (ownership passes); NULL
 *                   on failure
 * @param err        on failure, the message for the user (@p errlen bytes)
 * @return           0, CTL_DEFERRED (the handler answers later, app/ctl.h
 *                   ctl_defer(); only for socket clients), -ENOENT for an
 *                   unknown command, or the handler's negative errno
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

#endif
