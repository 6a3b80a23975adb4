/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "vrfs": routing tables of their own (live: a reload adds,
 * changes and removes them). The VRF "default" (table 254) always exists
 * as vrfs[0]; interfaces, tunnels and routes name theirs with `vrf`.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/config_read.h"

/* Largest FIB size accepted, as the `fib` section's. */
#define VRF_FIB_MAX (1u << 24)

static void load_vrf_fib(struct cfg_reader *ld, const config_setting_t *s, struct cfg_fib_size *f)
{
	static const char *const keys[] = { "ipv4_routes", "ipv4_tbl8", "ipv6_routes", "ipv6_tbl8",
					    NULL };
	const config_setting_t *g = cfg_get_typed(ld, s, "fib", CONFIG_TYPE_GROUP);

	if (g == NULL)
		return;
	cfg_check_members(ld, g, keys);
	cfg_get_u32(ld, g, "ipv4_routes", 1, VRF_FIB_MAX, &f->ipv4_routes);
	cfg_get_u32(ld, g, "ipv4_tbl8", 1, VRF_FIB_MAX, &f->ipv4_tbl8);
	cfg_get_u32(ld, g, "ipv6_routes", 1, VRF_FIB_MAX, &f->ipv6_routes);
	cfg_get_u32(ld, g, "ipv6_tbl8", 1, VRF_FIB_MAX, &f->ipv6_tbl8);
}

/*
 * `netns`: the namespace of the VRF's control plane (its TAPs, the zebra
 * whose FPM connection is the VRF's). One VRF a namespace: the connection
 * names the VRF.
 */
static void load_vrf_netns(struct cfg_reader *ld, const config_setting_t *s, int i)
{
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_vrf *v = &cfg->vrfs[i + 1];
	const config_setting_t *ns = config_setting_get_member(s, "netns");

	if (cfg_get_text(ld, s, "netns", v->netns, sizeof(v->netns)) != CFG_VAL_OK)
		return;
	if (v->netns[0] == '\0' || !cfg_netns_name_ok(v->netns)) {
		cfg_err(ld, ns, "'%s' is no network namespace name ([A-Za-z0-9_.-])", v->netns);
		v->netns[0] = '\0';
		return;
	}
	for (int j = 1; j <= i; j++)
		if (strcmp(cfg->vrfs[j].netns, v->netns) == 0) {
			cfg_err(ld, ns,
				"namespace '%s' already belongs to VRF '%s' (line %d): one VRF a "
				"namespace",
				v->netns, cfg->vrfs[j].name, cfg->vrfs[j].line);
			v->netns[0] = '\0';
			return;
		}
}

/* Element @p i of the list: vrfs[i + 1] (0 is "default"). */
static void load_vrf(struct cfg_reader *ld, const config_setting_t *s, int i)
{
	static const char *const keys[] = { "name", "table", "fib", "netns", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_vrf *v = &cfg->vrfs[i + 1];
	int name_line = 0;

	v->line = cfg_line(s);
	cfg_check_members(ld, s, keys);
	if (cfg_get_name(ld, s, "name", v->name, &name_line) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	const config_setting_t *ns = config_setting_get_member(s, "name");
	for (int j = 0; v->name[0] && j <= i; j++)
		if (strcmp(cfg->vrfs[j].name, v->name) == 0) {
			if (j == 0)
				cfg_err(ld, ns,
					"'default' is the VRF of everything that names none: "
					"it is not listed");
			else
				cfg_err(ld, ns, "duplicate VRF name '%s' (first at line %d)",
					v->name, cfg->vrfs[j].line);
			v->name[0] = '\0';
			break;
		}
	int rc = cfg_get_u32(ld, s, "table", 1, UINT32_MAX, &v->table);
	const config_setting_t *ts = config_setting_get_member(s, "table");
	if (rc == CFG_VAL_ABSENT) {
		cfg_err_missing(ld, s, "table");
	} else if (rc == CFG_VAL_OK) {
		/* Linux's reserved tables: default 253, main 254 (the VRF
		 * "default"), local 255 */
		if (v->table >= 253 && v->table <= 255)
			cfg_err(ld, ts,
				"table %u is reserved (253 default, 254 main: the VRF 'default', "
				"255 local)",
				v->table);
		for (int j = 1; j <= i; j++)
			if (cfg->vrfs[j].table == v->table) {
				cfg_err(ld, ts, "duplicate table %u (VRF '%s', line %d)", v->table,
					cfg->vrfs[j].name, cfg->vrfs[j].line);
				break;
			}
	}
	load_vrf_fib(ld, s, &v->fib);
	load_vrf_netns(ld, s, i);
}

static int vrfs_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	const config_setting_t *list = cfg_get_typed(ld, root, "vrfs", CONFIG_TYPE_LIST);
	int n = list ? config_setting_length(list) : 0;

	if (n > CFG_MAX_VRFS - 1) {
		cfg_err(ld, list, "%d vrfs, expected 0..%d", n, CFG_MAX_VRFS - 1);
		n = CFG_MAX_VRFS - 1;
	}
	cfg->vrfs = calloc((size_t)n + 1, sizeof(*cfg->vrfs));
	if (cfg->vrfs == NULL)
		return -ENOMEM;
	cfg->nb_vrfs = n + 1;
	snprintf(cfg->vrfs[0].name, sizeof(cfg->vrfs[0].name), "default");
	cfg->vrfs[0].table = CFG_TABLE_DEFAULT;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		if (config_setting_type(e) != CONFIG_TYPE_GROUP) {
			cfg_err(ld, e, "expected a group { ... }, got %s", cfg_type_name(e));
			continue;
		}
		load_vrf(ld, e, i);
	}
	return 0;
}

static void vrfs_free(struct vbrd_config *cfg)
{
	free(cfg->vrfs);
}

static void vrfs_summary(const struct vbrd_config *cfg, char *buf, size_t len)
{
	if (cfg->nb_vrfs > 1)
		snprintf(buf, len, "%d VRFs besides default", cfg->nb_vrfs - 1);
}

static struct config_section vrfs_section = {
	.name = "vrfs",
	.summary = vrfs_summary,
	.before = (const char *const[]){ "interfaces", "tunnels", "routes", "cplane", NULL },
	.load = vrfs_load,
	.free = vrfs_free,
};
CONFIG_SECTION(vrfs_section);
