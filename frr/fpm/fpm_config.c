/* SPDX-License-Identifier: BSD-3-Clause */
/* Config section "fpm" (fpm_config.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/config_read.h"
#include "frr/cplane/cplane_config.h"
#include "frr/fpm/fpm_config.h"

#define FPM_DEFAULT_PORT     2620 /* fpm/fpm.h FPM_DEFAULT_PORT */
#define FPM_DEFAULT_STALE_MS 3000
#define FPM_MAIN_TABLE       254 /* RT_TABLE_MAIN */

static int fpm_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg);
static void fpm_free(struct vbrd_config *cfg);
static void fpm_summary(const struct vbrd_config *cfg, char *buf, size_t len);

static struct config_section fpm_section = {
	.name = "fpm",
	.after = (const char *const[]){ "cplane", NULL },
	.load = fpm_load,
	.free = fpm_free,
	.summary = fpm_summary,
};
CONFIG_SECTION(fpm_section);

const struct cfg_fpm *cfg_fpm_get(const struct vbrd_config *cfg)
{
	static const struct cfg_fpm empty = { .port = FPM_DEFAULT_PORT,
					      .stale_ms = FPM_DEFAULT_STALE_MS,
					      .table = FPM_MAIN_TABLE };
	const struct cfg_fpm *f = config_section_get(cfg, &fpm_section);

	return f != NULL ? f : &empty;
}

static int fpm_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	static const char *const keys[] = { "address", "port", "stale_ms", "table", NULL };
	const config_setting_t *grp = config_setting_get_member(root, "fpm");
	struct cfg_fpm *f;
	char a[64];

	if (grp == NULL)
		return 0; /* adding the section names its restart settings as new */
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->enabled = true;
	f->port = FPM_DEFAULT_PORT;
	f->stale_ms = FPM_DEFAULT_STALE_MS;
	f->table = FPM_MAIN_TABLE;
	f->address.family = AF_INET;
	f->address.v4 = 0x7f000001; /* 127.0.0.1 */
	config_section_set(cfg, &fpm_section, f);
	if (config_setting_type(grp) != CONFIG_TYPE_GROUP) {
		cfg_err(ld, grp, "must be a group: fpm = { ... }");
		return 0;
	}
	cfg_check_members(ld, grp, keys);
	if (!cfg_cplane_get(cfg)->enabled)
		cfg_err(ld, grp,
			"needs the cplane section: zebra names next hops by vbrd's TAPs, which "
			"cplane makes");
	if (config_setting_get_member(grp, "address") != NULL)
		cfg_get_addr(ld, grp, "address", &f->address);
	cfg_get_u16(ld, grp, "port", 1, 65535, &f->port);
	cfg_get_u32(ld, grp, "stale_ms", 100, 600000, &f->stale_ms);
	cfg_get_u32(ld, grp, "table", 1, 0xfffffffe, &f->table);
	cfg_restart(ld, config_setting_get_member(grp, "address"), "fpm.address", "%s",
		    config_format_addr(&f->address, a, sizeof(a)));
	cfg_restart(ld, config_setting_get_member(grp, "port"), "fpm.port", "%u", f->port);
	/* zebra does not send again what it sent for the old table */
	cfg_restart(ld, config_setting_get_member(grp, "table"), "fpm.table", "%u", f->table);
	return 0;
}

static void fpm_free(struct vbrd_config *cfg)
{
	free(config_section_get(cfg, &fpm_section));
}

static void fpm_summary(const struct vbrd_config *cfg, char *buf, size_t len)
{
	const struct cfg_fpm *f = cfg_fpm_get(cfg);
	char a[64];

	if (f->enabled)
		snprintf(buf, len, "FPM server on %s port %u",
			 config_format_addr(&f->address, a, sizeof(a)), f->port);
}
