/* SPDX-License-Identifier: BSD-3-Clause */
/* The config section tests' scratch file and case tables: see config_fixture.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/config_fixture.h"

static char tmpdir[64];
static char path[128];

const char *cfx_path(void)
{
	return path;
}

static int cfx_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/vbrd-cfg-test-XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/t.conf", tmpdir);
	return 0;
}

static int cfx_teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(tmpdir);
	return 0;
}

int cfx_lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

int cfx_load(struct vbrd_config *cfg, struct config_errors *errs, const char *const *parts)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (; *parts != NULL; parts++)
		fputs(*parts, f);
	assert_int_equal(fclose(f), 0);
	return config_load(path, cfg, errs);
}

void cfx_assert_one_error(struct config_errors *errs, int line, const char *msg)
{
	char want[1024];

	snprintf(want, sizeof(want), "%s:%d: %s", path, line, msg);
	if (errs->count != 1 || strcmp(errs->msgs[0], want) != 0) {
		print_message("want: %s\ngot:\n", want);
		config_errors_print(errs, stderr);
	}
	assert_int_equal(errs->count, 1);
	assert_string_equal(errs->msgs[0], want);
	config_errors_free(errs);
}

int cfx_run(const char *group, const struct CMUnitTest *fixed, size_t nb_fixed,
	    const struct cfx_table *tables, size_t nb_tables)
{
	size_t n = nb_fixed, k = 0;
	struct CMUnitTest *tests;
	char **names;
	int rc;

	for (size_t t = 0; t < nb_tables; t++)
		n += tables[t].count;
	tests = calloc(n, sizeof(*tests));
	names = calloc(n, sizeof(*names));
	if (tests == NULL || names == NULL)
		abort();
	for (size_t i = 0; i < nb_fixed; i++)
		tests[k++] = fixed[i];
	for (size_t t = 0; t < nb_tables; t++) {
		const struct cfx_table *tb = &tables[t];
		for (size_t i = 0; i < tb->count; i++) {
			const char *row = (const char *)tb->rows + i * tb->row_size;
			const char *name = *(const char *const *)(row + tb->name_off);
			if (asprintf(&names[k], "%s%s", tb->prefix ? tb->prefix : "", name) < 0)
				abort();
			tests[k] = (struct CMUnitTest){ names[k], tb->fn, NULL, NULL, (void *)row };
			k++;
		}
	}
	rc = _cmocka_run_group_tests(group, tests, n, cfx_setup, cfx_teardown);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(tests);
	return rc;
}
