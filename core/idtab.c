/* SPDX-License-Identifier: BSD-3-Clause */
/* Content → dense id (idtab.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/idtab.h"

static uint32_t hash_bytes(const void *p, size_t n)
{
	/* FNV-1a, then a final mix (keys differ in few bytes) */
	const uint8_t *b = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h;
}

const void *idtab_key(const struct idtab *t, uint32_t id)
{
	return t->keys + (size_t)id * t->key_size;
}

static int rehash(struct idtab *t, uint32_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	for (uint32_t id = 0; id < t->high; id++) {
		if (t->refs[id] == 0)
			continue;
		uint32_t h = hash_bytes(idtab_key(t, id), t->key_size) & (nslots - 1);
		while (s[h])
			h = (h + 1) & (nslots - 1);
		s[h] = id + 1;
	}
	free(t->slots);
	t->slots = s;
	t->mask = nslots - 1;
	return 0;
}

/* The slot holding @p key, or the empty slot where it would go. */
static uint32_t slot_of(const struct idtab *t, const void *key)
{
	uint32_t h = hash_bytes(key, t->key_size) & t->mask;

	while (t->slots[h] && memcmp(idtab_key(t, t->slots[h] - 1), key, t->key_size) != 0)
		h = (h + 1) & t->mask;
	return h;
}

int idtab_get(struct idtab *t, const void *key, bool *created)
{
	*created = false;
	if (t->slots == NULL && rehash(t, 64) < 0)
		return -ENOMEM;
	uint32_t h = slot_of(t, key);
	if (t->slots[h]) {
		uint32_t id = t->slots[h] - 1;
		t->refs[id]++;
		return (int)id;
	}
	if (t->live >= t->max)
		return -ENOSPC;
	/* keep the hash at most half full */
	if (2 * (t->live + 1) > t->mask + 1) {
		if (rehash(t, 2 * (t->mask + 1)) < 0)
			return -ENOMEM;
		h = slot_of(t, key);
	}
	uint32_t id;
	if (t->nb_free > 0) {
		id = t->free_ids[--t->nb_free];
	} else {
		if (t->high == t->cap) {
			uint32_t ncap = t->cap ? 2 * t->cap : 64;
			uint8_t *k = realloc(t->keys, (size_t)ncap * t->key_size);
			if (k == NULL)
				return -ENOMEM;
			t->keys = k;
			uint32_t *r = realloc(t->refs, (size_t)ncap * sizeof(*r));
			if (r == NULL)
				return -ENOMEM;
			t->refs = r;
			uint32_t *f = realloc(t->free_ids, (size_t)ncap * sizeof(*f));
			if (f == NULL)
				return -ENOMEM;
			t->free_ids = f;
			t->cap = ncap;
		}
		id = t->high++;
	}
	memcpy(t->keys + (size_t)id * t->key_size, key, t->key_size);
	t->refs[id] = 1;
	t->live++;
	t->slots[h] = id + 1;
	*created = true;
	return (int)id;
}

/* Drop one reference; @return true when that freed the id. */
bool idtab_put(struct idtab *t, uint32_t id)
{
	if (id >= t->high || t->refs[id] == 0)
		return false; /* a programming error; never corrupt the table for it */
	if (--t->refs[id] > 0)
		return false;
	/* backward-shift deletion (Knuth vol. 3, 6.4 algorithm R) */
	uint32_t i = slot_of(t, idtab_key(t, id));
	uint32_t j = i;
	for (;;) {
		t->slots[i] = 0;
		for (;;) {
			j = (j + 1) & t->mask;
			if (t->slots[j] == 0)
				goto done;
			uint32_t k = hash_bytes(idtab_key(t, t->slots[j] - 1), t->key_size) &
				     t->mask;
			/* move j back to i unless its home k lies cyclically in (i, j] */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		t->slots[i] = t->slots[j];
		i = j;
	}
done:
	t->free_ids[t->nb_free++] = id;
	t->live--;
	return true;
}

int idtab_find(const struct idtab *t, const void *key)
{
	if (t->slots == NULL)
		return -ENOENT;
	uint32_t h = slot_of(t, key);
	return t->slots[h] ? (int)(t->slots[h] - 1) : -ENOENT;
}

int idtab_reserve(struct idtab *t, uint32_t n)
{
	uint32_t nslots = 64;

	while (nslots / 2 < n && nslots < (1u << 31))
		nslots *= 2;
	if ((t->slots == NULL || nslots > t->mask + 1) && rehash(t, nslots) < 0)
		return -ENOMEM;
	if (n > t->cap) {
		uint8_t *k = realloc(t->keys, (size_t)n * t->key_size);
		if (k == NULL)
			return -ENOMEM;
		t->keys = k;
		uint32_t *r = realloc(t->refs, (size_t)n * sizeof(*r));
		if (r == NULL)
			return -ENOMEM;
		t->refs = r;
		uint32_t *f = realloc(t->free_ids, (size_t)n * sizeof(*f));
		if (f == NULL)
			return -ENOMEM;
		t->free_ids = f;
		t->cap = n;
	}
	return 0;
}

void idtab_free(struct idtab *t)
{
	free(t->keys);
	free(t->refs);
	free(t->free_ids);
	free(t->slots);
	t->keys = NULL;
	t->refs = t->free_ids = t->slots = NULL;
	t->high = t->cap = t->nb_free = t->live = t->mask = 0;
}
