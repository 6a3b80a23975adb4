/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "icmp": the rate limit of ICMP errors (RFC 1812
 * §4.3.2.8). Restart: each worker's token bucket is sized at start-up.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/config.h"
#include "core/config_read.h"

static int icmp_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	static const char *const ikeys[] = { "rate_pps", "burst", NULL };
	const config_setting_t *g;

	cfg->icmp.rate_pps = 100;
	cfg->icmp.burst = 50;
	g = cfg_get_typed(ld, root, "icmp", CONFIG_TYPE_GROUP);
	if (g != NULL) {
		cfg_check_members(ld, g, ikeys);
		cfg_get_u32(ld, g, "rate_pps", 1, 1000000, &cfg->icmp.rate_pps);
		cfg_get_u32(ld, g, "burst", 1, 1000000, &cfg->icmp.burst);
	}
	cfg_restart(ld, g ? config_setting_get_member(g, "rate_pps") : NULL, "icmp.rate_pps", "%u",
		    cfg->icmp.rate_pps);
	cfg_restart(ld, g ? config_setting_get_member(g, "burst") : NULL, "icmp.burst", "%u",
		    cfg->icmp.burst);
	return 0;
}

static struct config_section icmp_section = {
	.name = "icmp",
	.load = icmp_load,
};
CONFIG_SECTION(icmp_section);
