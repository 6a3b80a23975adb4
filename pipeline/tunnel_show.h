/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a feature adds to `vbrctl show paths` (tunnel_show.c): keys of its
 * own in each path group's object and each path's, registered from a
 * constructor.
 */
#ifndef VBRD_TUNNEL_SHOW_H
#define VBRD_TUNNEL_SHOW_H

#include <jansson.h>

struct fwd_state;

struct tunnel_show_ext {
	/** Add keys to @p obj, path group @p g of @p st (may be NULL). */
	void (*group)(const struct fwd_state *st, int g, json_t *obj);
	/** Add keys to @p obj, path @p k (index in the group) of group @p g (may be NULL). */
	void (*path)(const struct fwd_state *st, int g, int k, json_t *obj);
};

/** Add @p e to `show paths` (from a constructor). Aborts when full (4). */
void tunnel_show_extend(const struct tunnel_show_ext *e);

#endif
