/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Prometheus text exposition format (0.0.4), written from the JSON
 * replies of vbrd's control commands.
 *
 * A metric is not computed here: it is read from what a `vbrctl show ...`
 * command already answers (core/ctl.h; its keys are stable, app/README.md),
 * as a table of specs says (metrics_families.c):
 *
 *     { "vbrd_port_rx_bytes_total", METRIC_COUNTER, "bytes the port received",
 *       "show ports", "ports", { L("port", "name") }, "rx_bytes" }
 *
 * reads every row of the reply's "ports" array and writes
 *
 *     vbrd_port_rx_bytes_total{port="p1"} 12345
 *
 * A page is rendered in steps (metrics_page_step()), one command at a
 * time between two looks at the clock, so that the control loop that
 * runs it is held for about a millisecond a turn, not for the whole page.
 *
 * No DPDK, no HTTP: the unit test (tests/unit/test_metrics.c) links this
 * file and jansson alone.
 */
#ifndef VBRD_METRICS_RENDER_H
#define VBRD_METRICS_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define METRIC_MAX_LABELS 4

enum metric_type {
	METRIC_COUNTER, /* only goes up (until vbrd restarts); name ends in _total */
	METRIC_GAUGE,
};

/** How a sample's value is read from its row. */
enum metric_how {
	/** The member as a number (integer, real, boolean 0/1), divided by @c div when set. */
	METRIC_NUMBER,
	/** 1 when the member (a string) is one of @c match ("up", "Up|up (no bfd)"), else 0. */
	METRIC_IS,
	/**
	 * One sample per alternative of @c match, with label @c state_label
	 * set to it: 1 for the member's value, 0 for the others (a state set,
	 * as the HA role: role="active" 1, role="standby" 0, ...).
	 */
	METRIC_STATESET,
	/** The value 1: the labels say it all (the path a tier takes). No sample when a label is "". */
	METRIC_ONE,
};

/**
 * A label of every sample: its value read from member @c key of the row
 * ("name"; "../name" for the member of the enclosing row of a nested
 * table), or @c fixed.
 */
struct metric_label {
	const char *name;
	const char *key;
	const char *fixed;
};

/** A label read from the row's member @p k; a label of fixed value @p v. */
#define METRIC_LABEL(n, k)          \
	{                           \
		.name = n, .key = k \
	}
#define METRIC_LABEL_FIXED(n, v)      \
	{                             \
		.name = n, .fixed = v \
	}

/**
 * One source of samples of a family. A family may have several specs
 * (one per member it reads: family="ipv4" from routes4, "ipv6" from
 * routes6); they stand next to each other in the table, and the first
 * one's @c help and @c type are the family's.
 */
struct metric_spec {
	const char *name; /* vbrd_..., Prometheus's naming rules */
	enum metric_type type;
	const char *help;
	const char *cmd; /* the control command, its words separated by blanks */
	/**
	 * Where the rows are in the reply: "ports" (an array of objects),
	 * "path_groups/paths" (the array "paths" of each object of the array
	 * "path_groups"), or NULL: the reply itself is the one row.
	 */
	const char *rows;
	struct metric_label labels[METRIC_MAX_LABELS];
	const char *value; /* the member; dotted for a nested object: "redis.link" */
	enum metric_how how;
	const char *match;       /* METRIC_IS, METRIC_STATESET: alternatives separated by '|' */
	const char *state_label; /* METRIC_STATESET */
	double div;              /* METRIC_NUMBER: divide by (1000000: µs to seconds); 0: as is */
};

/** The families vbrd exports (metrics_families.c), in the order of the page. */
extern const struct metric_spec metric_specs[];
extern const unsigned metric_nb_specs;

/**
 * Run control command @p cmd and hand back its reply (ownership passes).
 * @return 0, -ENOENT when no such command is registered (the family is
 *         left out), or another negative errno (counted as an error)
 */
typedef int (*metrics_call_t)(const char *cmd, json_t **reply);

/** A page being rendered. */
struct metrics_page {
	char *text; /* the page so far (malloc'd; NUL-terminated) */
	size_t len, cap;
	size_t max;          /* the page's limit, bytes */
	bool too_large;      /* the page passed @c max: rendering stopped */
	bool nomem;          /* an allocation failed: rendering stopped */
	unsigned next;       /* the next spec to render */
	unsigned cmd_errors; /* commands that failed (their families left out) */
	unsigned samples;
	/* the reply of the last command run, for the specs that follow with the same command */
	const char *cmd;
	json_t *reply;
	int rc;
	const char *family; /* whose HELP and TYPE are written */
};

/** Start page @p pg, of at most @p max bytes. */
void metrics_page_init(struct metrics_page *pg, size_t max);

/**
 * Render specs until @p deadline_ns (CLOCK_MONOTONIC, ns) has passed
 * when a command is to run next, at least one command per call.
 *
 * @return true when the page is complete (or stopped: too_large, nomem)
 */
bool metrics_page_step(struct metrics_page *pg, const struct metric_spec *specs, unsigned nb,
		       metrics_call_t call, uint64_t deadline_ns);

/** Take the page's text (the caller frees it) and its length; @p pg is left empty. */
char *metrics_page_take(struct metrics_page *pg, size_t *len);

/** Release what @p pg holds. */
void metrics_page_free(struct metrics_page *pg);

/**
 * Append @p s to @p pg as a label value: backslash, double quote and
 * line feed escaped as \\, \" and \n (exposition format 0.0.4).
 */
void metrics_put_label_value(struct metrics_page *pg, const char *s);

/** Append @p s to @p pg as HELP text: backslash and line feed escaped as \\ and \n. */
void metrics_put_help(struct metrics_page *pg, const char *s);

/**
 * Check the table: names of [a-zA-Z_:][a-zA-Z0-9_:]* starting "vbrd_",
 * counters ending "_total" and gauges not, label names valid and not
 * reserved ("__"), a family's specs side by side (and so of one type).
 * @return 0, or -EINVAL with @p err naming the first bad spec
 */
int metrics_specs_check(const struct metric_spec *specs, unsigned nb, char *err, size_t errlen);

/** CLOCK_MONOTONIC, ns. */
uint64_t metrics_now_ns(void);

#endif
