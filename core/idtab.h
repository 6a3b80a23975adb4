/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Content → dense id: the FIB's stable next-hop and ECMP ids
 * (pipeline/fib.c) and frr/fpm's routes by prefix. Ids are dense (a freed
 * id is reused, last freed first), with a key array by id, a reference
 * count by id, and an open-addressing hash (linear probing, backward-shift
 * deletion, at most half full) of id + 1 keyed by the content's bytes.
 * Plain C on the heap (no EAL memory): a table of a million keys costs
 * its keys, 12 bytes an id and 8 bytes a slot. Not thread-safe.
 */
#ifndef VBRD_CORE_IDTAB_H
#define VBRD_CORE_IDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idtab {
	size_t key_size;    /* set before first use: bytes of a key, compared as bytes */
	uint32_t max;       /* set before first use: most ids at once */
	uint32_t high;      /* ids ever used: keys[0..high) */
	uint32_t cap;       /* keys/refs allocated */
	uint8_t *keys;      /* high x key_size */
	uint32_t *refs;     /* 0 = free */
	uint32_t *free_ids; /* stack of free ids below high */
	uint32_t nb_free;
	uint32_t live;
	uint32_t *slots; /* id + 1, 0 = empty */
	uint32_t mask;   /* slots - 1 */
};

/**
 * The id of @p key, created when new (@p created set); takes one reference.
 * @return id >= 0, -ENOSPC (max ids live), -ENOMEM
 */
int idtab_get(struct idtab *t, const void *key, bool *created);

/** The id of @p key without taking a reference, or -ENOENT. */
int idtab_find(const struct idtab *t, const void *key);

/** Drop one reference on @p id. @return true when that freed it (an unknown id: false). */
bool idtab_put(struct idtab *t, uint32_t id);

/** The key of id @p id (its bytes stay until the id is reused). */
const void *idtab_key(const struct idtab *t, uint32_t id);

/**
 * Make room for @p n keys at once (the hash at most half full, the arrays
 * of ids), so that growing to them never rehashes every key in one call
 * (a million keys: ~0.3 s). Never shrinks. @return 0 or -ENOMEM
 */
int idtab_reserve(struct idtab *t, uint32_t n);

/** Free every array (the table is empty and reusable afterwards). */
void idtab_free(struct idtab *t);

#endif
