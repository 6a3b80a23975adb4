/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config sections "tunnels" and "path_groups": VXLAN/GENEVE tunnels to
 * remote gateways and the paths (tunnel x line x plane) grouped per
 * remote (live).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/config.h"
#include "core/config_read.h"

/* ---- tunnels and path groups ------------------------------------------------ */

const char *config_tier_name(enum cfg_tier t)
{
	static const char *const names[] = { "gold", "silver", "bronze" };
	return (unsigned)t < 3 ? names[t] : "?";
}

static void load_tunnel(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name",
					    "type",
					    "vni",
					    "local",
					    "remote",
					    "udp_port",
					    "mtu",
					    "address",
					    "addresses",
					    "inner_mac",
					    "udp_zero_checksum6",
					    "vrf",
					    "underlay_vrf",
					    NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_tunnel *t = &cfg->tunnels[idx];
	const char *v;
	int rc, line;

	t->line = cfg_line(s);
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "name", t->name, &line);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	if (rc == CFG_VAL_OK) {
		for (int j = 0; j < idx; j++)
			if (strcmp(cfg->tunnels[j].name, t->name) == 0)
				cfg_err_at(ld, config_setting_get_member(s, "name"),
					   "duplicate tunnel name '%s' (first at line %d)", t->name,
					   cfg->tunnels[j].line);
		if (config_iface_index(cfg, t->name) >= 0)
			cfg_err_at(ld, config_setting_get_member(s, "name"),
				   "tunnel name '%s' is already an interface name", t->name);
	}
	cfg_get_vrf(ld, s, "vrf", &t->vrf);
	cfg_get_vrf(ld, s, "underlay_vrf", &t->underlay_vrf);
	rc = cfg_get_string(ld, s, "type", &v);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "type");
	else if (rc == CFG_VAL_OK) {
		if (strcmp(v, "vxlan") == 0)
			t->type = CFG_TUNNEL_VXLAN;
		else if (strcmp(v, "geneve") == 0)
			t->type = CFG_TUNNEL_GENEVE;
		else
			cfg_err(ld, config_setting_get_member(s, "type"),
				"unknown tunnel type '%s' (vxlan or geneve)", v);
	}
	if (cfg_get_u32(ld, s, "vni", 0, 16777215, &t->vni) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "vni");
	t->udp_port = t->type == CFG_TUNNEL_GENEVE ? 6081 : 4789;
	cfg_get_u16(ld, s, "udp_port", 1, 65535, &t->udp_port);
	cfg_get_u16(ld, s, "mtu", CFG_MTU_MIN, CFG_MTU_MAX, &t->mtu);
	cfg_get_bool(ld, s, "udp_zero_checksum6", &t->udp_zero_checksum6);
	static const uint8_t def_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	memcpy(t->inner_mac, def_mac, 6);
	if (cfg_get_string(ld, s, "inner_mac", &v) == CFG_VAL_OK &&
	    cfg_parse_mac(v, t->inner_mac) != 0)
		cfg_err(ld, config_setting_get_member(s, "inner_mac"),
			"'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", v);

	bool l = cfg_get_addr(ld, s, "local", &t->local) == CFG_VAL_OK;
	bool r = cfg_get_addr(ld, s, "remote", &t->remote) == CFG_VAL_OK;
	char a[INET6_ADDRSTRLEN];
	const char *why;
	if (l && (why = cfg_unusable_addr(&t->local)) != NULL) {
		cfg_err(ld, config_setting_get_member(s, "local"), "%s is %s",
			config_format_addr(&t->local, a, sizeof(a)), why);
		l = false;
	}
	if (r && (why = cfg_unusable_addr(&t->remote)) != NULL) {
		cfg_err(ld, config_setting_get_member(s, "remote"), "%s is %s",
			config_format_addr(&t->remote, a, sizeof(a)), why);
		r = false;
	}
	if (l && r && cfg_addr_equal(&t->local, &t->remote)) {
		cfg_err(ld, config_setting_get_member(s, "remote"), "remote is the local address");
		r = false;
	}
	if (l) {
		/* vbrd answers on `local` (a /32 or /128 of its own): inside a
		 * connected subnet that would take a neighbor's address, unless it is
		 * the interface's own address. */
		int own, in = cfg_find_connected_vrf(cfg, &t->local, -1, t->underlay_vrf, &own);
		if (in >= 0 && own < 0)
			cfg_err(ld, config_setting_get_member(s, "local"),
				"%s lies in the subnet of interface '%s' but is not its address: "
				"it would take a neighbor's address",
				config_format_addr(&t->local, a, sizeof(a)), cfg->ifaces[in].name);
	}
	if (l && r && t->local.family != t->remote.family)
		cfg_err(ld, config_setting_get_member(s, "remote"), "remote is %s but local is %s",
			cfg_family_name(t->remote.family), cfg_family_name(t->local.family));
	if (r) {
		for (int j = 0; j < idx; j++)
			if (cfg_addr_equal(&cfg->tunnels[j].remote, &t->remote) &&
			    cfg->tunnels[j].vni == t->vni && cfg->tunnels[j].type == t->type)
				cfg_err_at(ld, config_setting_get_member(s, "remote"),
					   "tunnel to the same remote with the same VNI %u as '%s' "
					   "(line %d): decapsulation could not tell them apart",
					   t->vni, cfg->tunnels[j].name, cfg->tunnels[j].line);
	}

	/* Inner addresses, checked as an interface's: usable, and no other
	 * interface's or tunnel's. */
	bool bad = false;
	cfg_load_addresses(ld, s, t->vrf, t->addrs, &t->nb_addrs, CFG_MAX_ADDRS, false, &bad);
}

/*
 * `plane` and `planes` of path @p p: planes plane .. plane + planes - 1,
 * outer UDP source ports CFG_PLANE_BASE + each. `planes` alone starts at
 * plane 0, `plane` alone is one plane, neither is none (the flow hash).
 */
static void load_planes(struct cfg_reader *ld, const config_setting_t *s, struct cfg_path *p)
{
	const int max = 65535 - CFG_PLANE_BASE;
	uint32_t plane = 0, planes = 1;
	int rc_plane = cfg_get_u32(ld, s, "plane", 0, max, &plane);
	int rc_planes = cfg_get_u32(ld, s, "planes", 1, CFG_MAX_PLANES, &planes);

	p->plane = -1;
	p->nb_planes = 0;
	if (rc_plane == CFG_VAL_BAD || rc_planes == CFG_VAL_BAD)
		return;
	if (rc_plane == CFG_VAL_ABSENT && rc_planes == CFG_VAL_ABSENT)
		return;
	if (plane + planes - 1 > (uint32_t)max) {
		cfg_err(ld, config_setting_get_member(s, "planes"),
			"%u planes from plane %u end at plane %u, above %d (outer UDP source "
			"port 65535)",
			planes, plane, plane + planes - 1, max);
		return;
	}
	p->plane = (int)plane;
	p->nb_planes = (int)planes;
}

static void load_path(struct cfg_reader *ld, const config_setting_t *s, struct cfg_path_group *g,
		      int k)
{
	static const char *const keys[] = { "name",   "tunnel", "interface", "via", "plane",
					    "planes", "tier",   "cost",      NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_path *p = &g->paths[k];
	const char *v;
	char a[INET6_ADDRSTRLEN];
	int rc, own;

	p->line = cfg_line(s);
	p->tunnel = p->iface = -1;
	p->plane = -1;
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "name", p->name, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	else if (rc == CFG_VAL_OK)
		for (int j = 0; j < k; j++)
			if (strcmp(g->paths[j].name, p->name) == 0)
				cfg_err_at(
					ld, config_setting_get_member(s, "name"),
					"duplicate path name '%s' in group '%s' (first at line %d)",
					p->name, g->name, g->paths[j].line);
	rc = cfg_get_string(ld, s, "tunnel", &v);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "tunnel");
	else if (rc == CFG_VAL_OK && (p->tunnel = config_tunnel_index(cfg, v)) < 0)
		cfg_err(ld, config_setting_get_member(s, "tunnel"), "unknown tunnel '%s'", v);
	rc = cfg_get_string(ld, s, "interface", &v);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "interface");
	else if (rc == CFG_VAL_OK && (p->iface = config_iface_index(cfg, v)) < 0)
		cfg_err(ld, config_setting_get_member(s, "interface"), "unknown interface '%s'", v);
	if (p->tunnel >= 0 && p->iface >= 0 &&
	    cfg->ifaces[p->iface].vrf != cfg->tunnels[p->tunnel].underlay_vrf)
		cfg_err(ld, config_setting_get_member(s, "interface"),
			"interface '%s' is in VRF '%s' but tunnel '%s' runs over VRF '%s' (its "
			"underlay_vrf)",
			cfg->ifaces[p->iface].name, config_vrf_name(cfg, cfg->ifaces[p->iface].vrf),
			cfg->tunnels[p->tunnel].name,
			config_vrf_name(cfg, cfg->tunnels[p->tunnel].underlay_vrf));
	if (p->tunnel >= 0) {
		int tv = cfg->tunnels[p->tunnel].vrf;
		if (k == 0)
			g->vrf = tv;
		else if (g->vrf != tv)
			cfg_err(ld, config_setting_get_member(s, "tunnel"),
				"tunnel '%s' is in VRF '%s' but group '%s' is in VRF '%s' (its "
				"first "
				"path's tunnel): a path group routes in one VRF",
				cfg->tunnels[p->tunnel].name, config_vrf_name(cfg, tv), g->name,
				config_vrf_name(cfg, g->vrf));
	}
	load_planes(ld, s, p);
	cfg_get_u32(ld, s, "cost", 0, 65535, &p->cost);
	if (cfg_get_string(ld, s, "tier", &v) == CFG_VAL_OK) {
		if (strcmp(v, "gold") == 0)
			p->tier = CFG_TIER_GOLD;
		else if (strcmp(v, "silver") == 0)
			p->tier = CFG_TIER_SILVER;
		else if (strcmp(v, "bronze") == 0)
			p->tier = CFG_TIER_BRONZE;
		else
			cfg_err(ld, config_setting_get_member(s, "tier"),
				"unknown tier '%s' (gold, silver or bronze)", v);
	}
	if (cfg_get_addr(ld, s, "via", &p->via) != CFG_VAL_OK || p->iface < 0)
		return;
	const config_setting_t *vs = config_setting_get_member(s, "via");
	if (p->tunnel >= 0 && cfg->tunnels[p->tunnel].remote.family &&
	    cfg->tunnels[p->tunnel].remote.family != p->via.family) {
		cfg_err(ld, vs, "%s is %s but tunnel '%s' runs over %s",
			config_format_addr(&p->via, a, sizeof(a)), cfg_family_name(p->via.family),
			cfg->tunnels[p->tunnel].name,
			cfg_family_name(cfg->tunnels[p->tunnel].remote.family));
		return;
	}
	if (cfg_find_connected(cfg, &p->via, p->iface, &own) < 0 && !ld->iface_bad[p->iface])
		cfg_err(ld, vs, "%s is not in a connected subnet of interface '%s'",
			config_format_addr(&p->via, a, sizeof(a)), cfg->ifaces[p->iface].name);
}

static void load_path_group(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name", "paths", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_path_group *g = &cfg->path_groups[idx];
	const config_setting_t *ps;
	int rc, n;

	g->line = cfg_line(s);
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "name", g->name, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	else if (rc == CFG_VAL_OK)
		for (int j = 0; j < idx; j++)
			if (strcmp(cfg->path_groups[j].name, g->name) == 0)
				cfg_err_at(ld, config_setting_get_member(s, "name"),
					   "duplicate path group name '%s' (first at line %d)",
					   g->name, cfg->path_groups[j].line);
	ps = cfg_get_typed(ld, s, "paths", CONFIG_TYPE_LIST);
	if (config_setting_get_member(s, "paths") == NULL) {
		cfg_err_missing(ld, s, "paths");
		return;
	}
	if (ps == NULL)
		return;
	n = config_setting_length(ps);
	if (n < 1 || n > CFG_MAX_PATHS) {
		cfg_err(ld, ps, "%d paths, expected 1..%d", n, CFG_MAX_PATHS);
		return;
	}
	for (int k = 0; k < n; k++) {
		const config_setting_t *e = config_setting_get_elem(ps, k);
		g->nb_paths++;
		if (config_setting_type(e) != CONFIG_TYPE_GROUP) {
			cfg_err(ld, e, "expected a group { ... }, got %s", cfg_type_name(e));
			g->paths[k].tunnel = g->paths[k].iface = -1;
			continue;
		}
		load_path(ld, e, g, k);
	}
}

static void bad_path_group(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->path_groups[idx].line = cfg_line(s);
}

static void bad_tunnel(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->tunnels[idx].line = cfg_line(s);
}

static int load_tunnels(struct cfg_reader *ld, const config_setting_t *root)
{
	static const struct cfg_list_spec tunnels = {
		"tunnels",   0,          CFG_MAX_TUNNELS, false, sizeof(struct cfg_tunnel),
		load_tunnel, bad_tunnel,
	};
	static const struct cfg_list_spec groups = {
		"path_groups",
		0,
		CFG_MAX_GROUPS,
		false,
		sizeof(struct cfg_path_group),
		load_path_group,
		bad_path_group,
	};
	struct vbrd_config *cfg = ld->cfg;
	int rc = cfg_load_list(ld, root, &tunnels, (void **)&cfg->tunnels, &cfg->nb_tunnels);

	return rc < 0 ? rc
		      : cfg_load_list(ld, root, &groups, (void **)&cfg->path_groups,
				      &cfg->nb_path_groups);
}

/* Checks across tunnels and interfaces, once all are loaded. */
static void check_tunnels(struct cfg_reader *ld, const config_setting_t *root,
			  const struct vbrd_config *cfg)
{
	const config_setting_t *list = config_setting_get_member(root, "tunnels");

	/* each tunnel is an interface too, with a counter slot of its own */
	if (cfg->nb_ifaces + cfg->nb_tunnels > CFG_MAX_IFACES)
		cfg_err(ld, list, "%d interfaces and %d tunnels: at most %d together",
			cfg->nb_ifaces, cfg->nb_tunnels, CFG_MAX_IFACES);
	/* decapsulation reads the header format from the UDP port */
	for (int i = 0; i < cfg->nb_tunnels; i++)
		for (int j = 0; j < i; j++) {
			const struct cfg_tunnel *a = &cfg->tunnels[j], *b = &cfg->tunnels[i];
			if (a->udp_port == b->udp_port && a->type != b->type && a->type &&
			    b->type) {
				cfg_err(ld, config_setting_get_elem(list, (unsigned)i),
					"UDP port %u is already tunnel '%s' (line %d) of another "
					"type: "
					"VXLAN and GENEVE tunnels need ports of their own",
					b->udp_port, a->name, a->line);
				break;
			}
		}
}

static int tunnels_load(struct cfg_reader *ld, const config_setting_t *root,
			struct vbrd_config *cfg)
{
	int rc = load_tunnels(ld, root);

	if (rc == 0)
		check_tunnels(ld, root, cfg);
	return rc;
}

static void tunnels_free(struct vbrd_config *cfg)
{
	free(cfg->tunnels);
	free(cfg->path_groups);
}

static struct config_section tunnels_section = {
	.name = "tunnels",
	.also = (const char *const[]){ "path_groups", NULL },
	.after = (const char *const[]){ "interfaces", NULL },
	.load = tunnels_load,
	.free = tunnels_free,
};
CONFIG_SECTION(tunnels_section);
