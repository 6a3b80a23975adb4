/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared between ctl_cmd.c (commands) and ctl.c (socket server); not for
 * other modules, which use ctl.h.
 */
#ifndef VBRD_CTL_PRIV_H
#define VBRD_CTL_PRIV_H

#include <stddef.h>

#include <jansson.h>

/**
 * Evaluate one request of @p len bytes (no newline; need not be
 * NUL-terminated). Same contract as ctl_dispatch().
 */
int ctl_eval(const char *buf, size_t len, char **reply_line);

/**
 * Build the reply {"ok":false,"error":@p msg}, compact, no newline.
 * @return malloc'd string, or NULL when out of memory
 */
char *ctl_reply_error(const char *msg);

/**
 * The reply line for a handler's result: {"ok":true,"data":@p data} when
 * @p rc is 0 (ownership of @p data passes), else {"ok":false,"error":@p err}.
 * @return malloc'd string without newline, or NULL when out of memory
 */
char *ctl_reply_line(int rc, json_t *data, const char *err);

/** Forget every registered command (the built-ins come back on next use). */
void ctl_registry_clear(void);

#endif
