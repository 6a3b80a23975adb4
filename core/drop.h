/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drop reasons: one named counter per reason, registered by the feature
 * that drops (grout's "one drop reason = one named counter").
 *
 * A feature defines its reasons in one of its own .c files:
 *
 *     DROP_REASON(drop_tunnel_bad_vni, "tunnel", "tunnel_bad_vni",
 *                 "tunnel packet from a known remote with a VNI it does not use");
 *
 * and declares them in its header (DROP_REASON_DECLARE). Registration
 * runs before main() (a constructor) and gives each reason a dense id, the
 * index of its counter in struct worker_stats. Names are what `vbrctl show
 * drops` and `show stats` print: keep them stable, scripts read them.
 *
 * No DPDK here: parsers, unit tests and fuzzers link it alone.
 */
#ifndef VBRD_PIPELINE_DROP_H
#define VBRD_PIPELINE_DROP_H

#include <stdint.h>

#define VBRD_DROP_MAX 128 /* reasons the registry holds */

/** One drop reason. Define with DROP_REASON(), never by hand. */
struct drop_reason {
	const char *feature; /* module that registered it: "ip4", "tunnel" */
	const char *name;    /* counter name, [a-z0-9_]+, unique */
	const char *help;    /* one line: what the packet did wrong */
	uint16_t id;         /* dense index, set by drop_reason_register() */
};

/**
 * Add @p r to the registry and give it its id. Called by DROP_REASON's
 * constructor; aborts on a duplicate name or past VBRD_DROP_MAX (both are
 * programming errors found on the first start).
 */
void drop_reason_register(struct drop_reason *r);

/** Number of registered reasons (ids are 0..count-1). */
unsigned drop_reason_count(void);

/** Reason with id @p id, or NULL past drop_reason_count(). */
const struct drop_reason *drop_reason_get(unsigned id);

/**
 * Every reason, by feature then name (independent of link order), into
 * @p out (VBRD_DROP_MAX entries). @return how many.
 */
unsigned drop_reasons_sorted(const struct drop_reason **out);

/** Reason named @p name, or NULL. */
const struct drop_reason *drop_reason_find(const char *name);

#define DROP_REASON_DECLARE(var) extern struct drop_reason var

#define DROP_REASON(var, feature_, name_, help_)                                        \
	struct drop_reason var = { .feature = feature_, .name = name_, .help = help_ }; \
	__attribute__((constructor)) static void var##_register(void)                   \
	{                                                                               \
		drop_reason_register(&var);                                             \
	}

#endif
