/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registries a feature plugs into (core/): a feature defined in this
 * file alone — a module, a config section with a live and a restart
 * setting, a drop reason — is loaded, ordered and reloaded with no edit
 * anywhere else. This is the contract a new feature folder relies on.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/config.h"
#include "core/config_read.h"
#include "core/drop.h"
#include "core/module.h"

/* ---- a feature: "example" ------------------------------------------------ */

struct example_cfg {
	uint32_t rate;  /* live */
	uint32_t slots; /* restart */
};

static int example_load(struct cfg_reader *rd, const config_setting_t *root,
			struct vbrd_config *cfg);
static void example_free(struct vbrd_config *cfg);

static struct config_section example_section = {
	.name = "example",
	.after = (const char *const[]){ "interfaces", NULL },
	.load = example_load,
	.free = example_free,
};
CONFIG_SECTION(example_section);

static int example_load(struct cfg_reader *rd, const config_setting_t *root,
			struct vbrd_config *cfg)
{
	static const char *const keys[] = { "rate", "slots", NULL };
	const config_setting_t *g = cfg_get_typed(rd, root, "example", CONFIG_TYPE_GROUP);
	struct example_cfg *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return -ENOMEM;
	e->rate = 10;
	e->slots = 4;
	if (g != NULL) {
		cfg_check_members(rd, g, keys);
		cfg_get_u32(rd, g, "rate", 1, 100, &e->rate);
		cfg_get_u32(rd, g, "slots", 1, 64, &e->slots);
	}
	cfg_restart(rd, g ? config_setting_get_member(g, "slots") : NULL, "example.slots", "%u",
		    e->slots);
	config_section_set(cfg, &example_section, e);
	return 0;
}

static void example_free(struct vbrd_config *cfg)
{
	free(config_section_get(cfg, &example_section));
}

DROP_REASON(drop_example_bad, "example", "example_bad", "an example feature's own drop");

static int order_seen[4], order_n;
static int example_init(const struct vbrd_config *cfg)
{
	(void)cfg;
	order_seen[order_n++] = 2;
	return 0;
}
static int base_init(const struct vbrd_config *cfg)
{
	(void)cfg;
	order_seen[order_n++] = 1;
	return 0;
}

/* Registered as "zz_base" so that name order alone would put it last. */
static struct vbrd_module example_module = {
	.name = "example",
	.depends_on = (const char *const[]){ "zz_base", NULL },
	.init = example_init,
};
VBRD_MODULE(example_module);
static struct vbrd_module base_module = { .name = "zz_base", .init = base_init };
VBRD_MODULE(base_module);

/* ---- the tests -------------------------------------------------------------- */

static const char *base_conf = "ports = ( { name = \"p0\"; devargs = \"net_null0\"; } );\n"
			       "interfaces = ( { name = \"lan0\"; port = \"p0\"; "
			       "address = \"10.0.1.1/24\"; } );\n";

static char *write_conf(const char *extra)
{
	static char path[64];
	strcpy(path, "/tmp/vbrd-test-registry-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "%s%s\n", base_conf, extra);
	fclose(f);
	return path;
}

static void section_loads_and_owns_its_setting(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	char *p = write_conf("example = { rate = 42; };");

	(void)state;
	assert_int_equal(config_load(p, &cfg, &errs), 0);
	const struct example_cfg *e = config_section_get(&cfg, &example_section);
	assert_non_null(e);
	assert_int_equal(e->rate, 42);
	assert_int_equal(e->slots, 4);
	config_free(&cfg);
	unlink(p);

	/* its own checks report FILE:LINE like the core's */
	p = write_conf("example = { rate = 420; colour = 1; };");
	assert_int_equal(config_load(p, &cfg, &errs), -EINVAL);
	assert_int_equal(errs.count, 2);
	bool range = false, unknown = false;
	for (int i = 0; i < errs.count; i++) {
		range |= strstr(errs.msgs[i], ":3: example.rate: 420 is out of range 1..100") !=
			 NULL;
		unknown |= strstr(errs.msgs[i], ":3: unknown setting 'example.colour'") != NULL;
	}
	assert_true(range && unknown);
	config_errors_free(&errs);
	unlink(p);
}

static void restart_setting_is_refused_live_one_is_not(void **state)
{
	struct vbrd_config a, b, c;
	char err[1024];
	char *p;

	(void)state;
	p = write_conf("example = { rate = 1; slots = 8; };");
	assert_int_equal(config_load(p, &a, NULL), 0);
	unlink(p);
	p = write_conf("example = { rate = 99; slots = 8; };");
	assert_int_equal(config_load(p, &b, NULL), 0);
	unlink(p);
	p = write_conf("example = { rate = 1; slots = 9; };");
	assert_int_equal(config_load(p, &c, NULL), 0);
	assert_int_equal(config_restart_diff(&a, &b, err, sizeof(err)), 0);
	assert_int_equal(config_restart_diff(&a, &c, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, ":3: example.slots: changed from '8' to '9': restart vbrd"));
	unlink(p);
	config_free(&a);
	config_free(&b);
	config_free(&c);
}

static void drop_reason_registered_with_its_feature(void **state)
{
	(void)state;
	const struct drop_reason *r = drop_reason_find("example_bad");
	assert_ptr_equal(r, &drop_example_bad);
	assert_string_equal(r->feature, "example");
	assert_ptr_equal(drop_reason_get(r->id), r);
	/* names are unique, ids dense */
	for (unsigned i = 0; i < drop_reason_count(); i++)
		assert_int_equal(drop_reason_get(i)->id, i);
}

static void modules_init_in_dependency_order(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(modules_init(NULL, err, sizeof(err)), 0);
	assert_int_equal(order_n, 2);
	assert_int_equal(order_seen[0], 1); /* zz_base before example */
	assert_int_equal(order_seen[1], 2);
	modules_fini();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(section_loads_and_owns_its_setting),
		cmocka_unit_test(restart_setting_is_refused_live_one_is_not),
		cmocka_unit_test(drop_reason_registered_with_its_feature),
		cmocka_unit_test(modules_init_in_dependency_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
