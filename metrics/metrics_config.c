/* SPDX-License-Identifier: BSD-3-Clause */
/* Config section "metrics" (metrics_config.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/config_read.h"
#include "metrics/metrics_config.h"

static int metrics_load(struct cfg_reader *ld, const config_setting_t *root,
			struct vbrd_config *cfg);
static void metrics_free(struct vbrd_config *cfg);
static void metrics_summary(const struct vbrd_config *cfg, char *buf, size_t len);

static struct config_section metrics_section = {
	.name = "metrics",
	.load = metrics_load,
	.free = metrics_free,
	.summary = metrics_summary,
};
CONFIG_SECTION(metrics_section);

const struct cfg_metrics *cfg_metrics_get(const struct vbrd_config *cfg)
{
	static const struct cfg_metrics off = { .port = METRICS_DEFAULT_PORT };
	const struct cfg_metrics *m = config_section_get(cfg, &metrics_section);

	return m != NULL ? m : &off;
}

bool cfg_metrics_same(const struct cfg_metrics *a, const struct cfg_metrics *b)
{
	if (!a->enabled || !b->enabled)
		return a->enabled == b->enabled;
	return a->port == b->port && cfg_addr_equal(&a->address, &b->address);
}

char *cfg_metrics_format(const struct cfg_metrics *m, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	config_format_addr(&m->address, a, sizeof(a));
	snprintf(buf, len, m->address.family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, m->port);
	return buf;
}

static int metrics_load(struct cfg_reader *ld, const config_setting_t *root,
			struct vbrd_config *cfg)
{
	static const char *const keys[] = { "address", "port", NULL };
	const config_setting_t *grp = config_setting_get_member(root, "metrics"), *at;
	struct cfg_metrics *m;
	char path[64];

	if (grp == NULL)
		return 0;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	m->enabled = true;
	m->port = METRICS_DEFAULT_PORT;
	/* loopback unless told: the page names every line, group and path */
	m->address.family = AF_INET;
	m->address.v4 = 0x7f000001; /* 127.0.0.1 */
	config_section_set(cfg, &metrics_section, m);
	if (config_setting_type(grp) != CONFIG_TYPE_GROUP) {
		cfg_err(ld, grp,
			"must be a group: metrics = { address = \"127.0.0.1\"; port = %u; }",
			METRICS_DEFAULT_PORT);
		return 0;
	}
	cfg_check_members(ld, grp, keys);
	if (config_setting_get_member(grp, "address") != NULL)
		cfg_get_addr(ld, grp, "address", &m->address);
	cfg_get_u16(ld, grp, "port", 1, 65535, &m->port);
	/* where a bind error points: the address, else the port, else the section */
	at = config_setting_get_member(grp, "address");
	if (at == NULL)
		at = config_setting_get_member(grp, "port");
	if (at == NULL)
		at = grp;
	const char *file = config_setting_source_file(at);
	snprintf(m->where, sizeof(m->where), "%s:%d: %s", file ? file : ld->file, cfg_line(at),
		 cfg_path(at, path, sizeof(path)));
	return 0;
}

static void metrics_free(struct vbrd_config *cfg)
{
	free(config_section_get(cfg, &metrics_section));
}

static void metrics_summary(const struct vbrd_config *cfg, char *buf, size_t len)
{
	const struct cfg_metrics *m = cfg_metrics_get(cfg);
	char a[INET6_ADDRSTRLEN + 8];

	if (m->enabled)
		snprintf(buf, len, "metrics on http://%s/metrics",
			 cfg_metrics_format(m, a, sizeof(a)));
}
