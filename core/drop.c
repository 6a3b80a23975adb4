/* SPDX-License-Identifier: BSD-3-Clause */
/* The drop reason registry (see drop.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/drop.h"

static struct drop_reason *reasons[VBRD_DROP_MAX];
static unsigned nb_reasons;

void drop_reason_register(struct drop_reason *r)
{
	if (drop_reason_find(r->name) != NULL || nb_reasons == VBRD_DROP_MAX) {
		fprintf(stderr, "vbrd: drop reason %s: %s\n", r->name,
			nb_reasons == VBRD_DROP_MAX ? "registry full (raise VBRD_DROP_MAX)"
						    : "registered twice");
		abort();
	}
	r->id = (uint16_t)nb_reasons;
	reasons[nb_reasons++] = r;
}

unsigned drop_reason_count(void)
{
	return nb_reasons;
}

const struct drop_reason *drop_reason_get(unsigned id)
{
	return id < nb_reasons ? reasons[id] : NULL;
}

const struct drop_reason *drop_reason_find(const char *name)
{
	for (unsigned i = 0; i < nb_reasons; i++)
		if (strcmp(reasons[i]->name, name) == 0)
			return reasons[i];
	return NULL;
}

unsigned drop_reasons_sorted(const struct drop_reason **out)
{
	for (unsigned i = 0; i < nb_reasons; i++) {
		unsigned j = i;
		out[i] = reasons[i];
		for (; j > 0; j--) {
			int c = strcmp(out[j - 1]->feature, out[j]->feature);
			if (c < 0 || (c == 0 && strcmp(out[j - 1]->name, out[j]->name) < 0))
				break;
			const struct drop_reason *t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	}
	return nb_reasons;
}
