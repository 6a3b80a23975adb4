/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config sections "neighbors" (static neighbors) and "neighbor" (ARP/ND
 * timers and limits), both live.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/config.h"
#include "core/config_read.h"

static void load_neighbor(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "interface", "address", "mac", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_neighbor *nb = &cfg->neighbors[idx];
	const config_setting_t *as = config_setting_get_member(s, "address");
	const config_setting_t *ms = config_setting_get_member(s, "mac");
	const char *ifname = NULL, *v;
	char a[INET6_ADDRSTRLEN];
	int j, own, rc;

	nb->iface = -1;
	nb->line = cfg_line(s);
	cfg_check_members(ld, s, keys);

	rc = cfg_get_string(ld, s, "interface", &ifname);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "interface");
	else if (rc == CFG_VAL_OK && (nb->iface = config_iface_index(cfg, ifname)) < 0)
		cfg_err(ld, config_setting_get_member(s, "interface"), "unknown interface '%s'",
			ifname);

	if (ms == NULL)
		cfg_err_missing(ld, s, "mac");
	else if (cfg_string_value(ld, ms, &v) == CFG_VAL_OK) {
		if (cfg_parse_mac(v, nb->mac) != 0)
			cfg_err(ld, ms, "'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", v);
		else if (nb->mac[0] & 1)
			cfg_err(ld, ms, "%s is a multicast MAC address", v);
	}

	if (as == NULL) {
		cfg_err_missing(ld, s, "address");
		return;
	}
	if (cfg_string_value(ld, as, &v) != CFG_VAL_OK)
		return;
	if (config_parse_addr(v, &nb->addr) != 0) {
		cfg_err(ld, as, "'%s' is not a valid IPv4 or IPv6 address", v);
		return;
	}
	if (nb->iface < 0)
		return;
	if (cfg_find_connected(cfg, &nb->addr, nb->iface, &own) < 0 &&
	    !cfg_is_link_local6(&nb->addr) && !ld->iface_bad[nb->iface]) {
		cfg_err(ld, as, "%s is not in a connected subnet of interface '%s'",
			config_format_addr(&nb->addr, a, sizeof(a)), ifname);
		return;
	}
	if (own >= 0) {
		cfg_err(ld, as, "%s is an address of interface '%s' itself", v, ifname);
		return;
	}
	for (j = 0; j < idx; j++)
		if (cfg->neighbors[j].iface == nb->iface &&
		    cfg_addr_equal(&cfg->neighbors[j].addr, &nb->addr)) {
			cfg_err_at(ld, as,
				   "duplicate neighbor %s on interface '%s' (first at line %d)",
				   config_format_addr(&nb->addr, a, sizeof(a)), ifname,
				   cfg->neighbors[j].line);
			break;
		}
}

static void bad_neighbor(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->neighbors[idx].iface = -1;
	ld->cfg->neighbors[idx].line = cfg_line(s);
}

static int load_neighbors(struct cfg_reader *ld, const config_setting_t *root)
{
	static const struct cfg_list_spec spec = {
		"neighbors", 0, 0, false, sizeof(struct cfg_neighbor), load_neighbor, bad_neighbor,
	};
	return cfg_load_list(ld, root, &spec, (void **)&ld->cfg->neighbors, &ld->cfg->nb_neighbors);
}

static int neighbors_load(struct cfg_reader *ld, const config_setting_t *root,
			  struct vbrd_config *cfg)
{
	static const char *const nkeys[] = { "reachable_s", "retries", "retry_ms", "hold_packets",
					     NULL };
	const config_setting_t *g;

	cfg->neighbor.reachable_s = 300;
	cfg->neighbor.retries = 3;
	cfg->neighbor.retry_ms = 1000;
	cfg->neighbor.hold_packets = 4;
	g = cfg_get_typed(ld, root, "neighbor", CONFIG_TYPE_GROUP);
	if (g != NULL) {
		cfg_check_members(ld, g, nkeys);
		cfg_get_u32(ld, g, "reachable_s", 1, 86400, &cfg->neighbor.reachable_s);
		cfg_get_u32(ld, g, "retries", 1, 100, &cfg->neighbor.retries);
		cfg_get_u32(ld, g, "retry_ms", 10, 60000, &cfg->neighbor.retry_ms);
		cfg_get_u32(ld, g, "hold_packets", 1, CFG_NEIGH_HOLD_MAX,
			    &cfg->neighbor.hold_packets);
	}
	return load_neighbors(ld, root);
}

static void neighbors_free(struct vbrd_config *cfg)
{
	free(cfg->neighbors);
}

static struct config_section neighbors_section = {
	.name = "neighbors",
	.also = (const char *const[]){ "neighbor", NULL },
	.after = (const char *const[]){ "interfaces", NULL },
	.load = neighbors_load,
	.free = neighbors_free,
};
CONFIG_SECTION(neighbors_section);
