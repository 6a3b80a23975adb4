/* SPDX-License-Identifier: BSD-3-Clause */
/* A feature's history of events: see history.h. */
#include <string.h>

#include "core/history.h"

void history_push(struct history *h, const void *rec)
{
	memcpy((char *)h->rec + (size_t)h->next * h->size, rec, h->size);
	h->next = (h->next + 1) % h->cap;
	if (h->len < h->cap)
		h->len++;
}

unsigned history_get(const struct history *h, void *out, unsigned max)
{
	unsigned n = h->len < max ? h->len : max;
	unsigned first = (h->next + h->cap - n) % h->cap; /* the newest n */

	for (unsigned i = 0; i < n; i++)
		memcpy((char *)out + (size_t)i * h->size,
		       (const char *)h->rec + (size_t)((first + i) % h->cap) * h->size, h->size);
	return n;
}
