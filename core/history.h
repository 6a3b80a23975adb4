/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A feature's history: the last N events of fixed size, oldest dropped
 * first, for `show ... history`. Control thread only (the events reach it
 * from the workers over a ring of the feature's own).
 *
 *     static struct bfd_event bfd_hist_buf[1024];
 *     static struct history bfd_hist = HISTORY_INIT(bfd_hist_buf);
 *     history_push(&bfd_hist, &ev);
 *     n = history_get(&bfd_hist, out, cap);
 */
#ifndef VBRD_CORE_HISTORY_H
#define VBRD_CORE_HISTORY_H

#include <stddef.h>

struct history {
	void *rec;     /* cap records of `size` bytes */
	size_t size;   /* bytes per record */
	unsigned cap;  /* records the buffer holds */
	unsigned next; /* where the next record goes */
	unsigned len;  /* records held, <= cap */
};

/** A history over the array @p buf (its element type is the record). */
#define HISTORY_INIT(buf)                                                     \
	{                                                                     \
		(buf), sizeof((buf)[0]), sizeof(buf) / sizeof((buf)[0]), 0, 0 \
	}

/** Append a copy of @p rec (h->size bytes); the oldest record goes when full. */
void history_push(struct history *h, const void *rec);

/**
 * The newest min(@p max, held) records, oldest first, into @p out (room
 * for @p max records of h->size bytes).
 * @return the number of records copied
 */
unsigned history_get(const struct history *h, void *out, unsigned max);

#endif
