/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "fib": the capacity the persistent FIB is created with
 * (restart settings). Unset, each is what the start-up config needs plus
 * headroom (fib_capacity_for_config()); set, at least that much.
 */
#include <stddef.h>
#include <stdio.h>

#include "core/config.h"
#include "core/config_read.h"

/* Largest value accepted: 2^24 tbl8 groups is 16 GiB of FIB. */
#define FIB_CFG_MAX (1u << 24)

static int fib_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	static const char *const keys[] = { "ipv4_routes", "ipv4_tbl8", "ipv6_routes", "ipv6_tbl8",
					    NULL };
	static const struct {
		const char *name;
		size_t off;
	} f[] = {
		{ "ipv4_routes", offsetof(struct vbrd_config, fib.ipv4_routes) },
		{ "ipv4_tbl8", offsetof(struct vbrd_config, fib.ipv4_tbl8) },
		{ "ipv6_routes", offsetof(struct vbrd_config, fib.ipv6_routes) },
		{ "ipv6_tbl8", offsetof(struct vbrd_config, fib.ipv6_tbl8) },
	};
	const config_setting_t *g = cfg_get_typed(ld, root, "fib", CONFIG_TYPE_GROUP);

	if (g != NULL)
		cfg_check_members(ld, g, keys);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		uint32_t *v = (uint32_t *)((char *)cfg + f[i].off);
		char path[32];

		*v = 0;
		if (g != NULL)
			cfg_get_u32(ld, g, f[i].name, 1, FIB_CFG_MAX, v);
		snprintf(path, sizeof(path), "fib.%s", f[i].name);
		cfg_restart(ld, g ? config_setting_get_member(g, f[i].name) : NULL, path, "%u", *v);
	}
	return 0;
}

static struct config_section fib_section = {
	.name = "fib",
	.load = fib_load,
};
CONFIG_SECTION(fib_section);
