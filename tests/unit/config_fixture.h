/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the config section tests (test_*_config.c) share: a scratch file
 * that a test writes from pieces of text and loads with config_load(),
 * the check of a one-mistake snippet ("FILE:LINE: message", and nothing
 * else), and a main() that runs fixed tests plus one test per row of
 * case tables, each named by its row.
 */
#ifndef VBRD_TEST_CONFIG_FIXTURE_H
#define VBRD_TEST_CONFIG_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/config.h"

/** The scratch file's path (set by cfx_setup()). */
const char *cfx_path(void);

/** Lines of @p text ('\n's). */
int cfx_lines(const char *text);

/**
 * Write the pieces of @p parts (NULL-terminated; NULL pieces inside are
 * skipped when listed as such: use "" instead) to the scratch file, one
 * after the other, and load it.
 * @return config_load()'s return
 */
int cfx_load(struct vbrd_config *cfg, struct config_errors *errs, const char *const *parts);

/** cfx_load() of the pieces given as arguments. */
#define CFX_LOAD(cfg, errs, ...) cfx_load((cfg), (errs), (const char *const[]){ __VA_ARGS__, NULL })

/**
 * Assert that @p errs holds exactly "SCRATCH:@p line: @p msg" (printing
 * what it holds instead when not), and free it.
 */
void cfx_assert_one_error(struct config_errors *errs, int line, const char *msg);

/** A table of cases, one test each, named by a string member of its rows. */
struct cfx_table {
	const void *rows;
	size_t row_size, count;
	size_t name_off;       /* offset of the row's `const char *` name */
	const char *prefix;    /* before each name ("good: "), or NULL */
	CMUnitTestFunction fn; /* gets the row as *state */
};

/** A cfx_table over the array @p rows, named by member @p name, run by @p fn. */
#define CFX_TABLE(rows, name, prefix, fn)                                     \
	{                                                                     \
		(rows), sizeof((rows)[0]), sizeof(rows) / sizeof((rows)[0]),  \
			offsetof(__typeof__((rows)[0]), name), (prefix), (fn) \
	}

/**
 * Run @p fixed, then every row of every table, as the group @p group, with
 * the scratch file set up around them.
 * @return cmocka's result (the number of failed tests)
 */
int cfx_run(const char *group, const struct CMUnitTest *fixed, size_t nb_fixed,
	    const struct cfx_table *tables, size_t nb_tables);

#endif
