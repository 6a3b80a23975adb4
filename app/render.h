/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vbrctl's output: turns a control-socket reply (protocol in ctl.h) into
 * text, with no knowledge of any particular command.
 *
 * Human mode follows the data conventions of ctl.h:
 *   - top-level scalars            → aligned "key: value" lines
 *   - an object of scalars         → "name:" then indented "key  value" lines
 *                                    (zero counters hidden when > 8 members)
 *   - an array of objects          → a table, one upper-case column per key
 *                                    of the first object
 *   - inside a table cell          → arrays of scalars joined by ",", next
 *                                    hops {via, interface} as "via@interface",
 *                                    anything else as compact JSON
 * JSON mode prints "data" indented by 2, keys in the daemon's order.
 */
#ifndef VBRD_RENDER_H
#define VBRD_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/** Blocks with more members than this hide their zero counters. */
#define RENDER_HIDE_ZEROS_ABOVE 8

/**
 * Print @p data (any JSON value) for a human.
 * @return 0, or -EIO when writing to @p out fails
 */
int render_human(FILE *out, const json_t *data);

/**
 * Print @p data as JSON, indented by 2, one trailing newline.
 * @return 0, or -EIO when writing to @p out fails
 */
int render_json(FILE *out, const json_t *data);

/**
 * Print one reply line of the daemon: its data to @p out (JSON when
 * @p json), or its error to @p err as "vbrctl: MESSAGE".
 *
 * @param reply  the reply, @p len bytes (a trailing newline is allowed)
 * @return exit status for vbrctl: 0 ok, 1 the daemon answered an error,
 *         2 the reply is not a valid reply (message on @p err)
 */
int render_reply(const char *reply, size_t len, bool json, FILE *out, FILE *err);

#endif
