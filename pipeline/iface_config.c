/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "interfaces": a port or an 802.1Q sub-interface of it,
 * with its MTU and addresses (live: a reload applies them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/config.h"
#include "core/config_read.h"

static void load_iface_addrs(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	struct cfg_iface *ifc = &ld->cfg->ifaces[idx];

	cfg_load_addresses(ld, s, ifc->vrf, ifc->addrs, &ifc->nb_addrs, CFG_MAX_ADDRS, true,
			   &ld->iface_bad[idx]);
}

static void load_iface(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name",    "port",      "vlan", "mtu",
					    "address", "addresses", "vrf",  NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_iface *ifc = &cfg->ifaces[idx];
	const config_setting_t *ps, *ms;
	const char *port = NULL;
	int j, rc, mtu_rc;

	ifc->port = -1;
	ifc->line = cfg_line(s);
	cfg_check_members(ld, s, keys);

	if (cfg_get_name(ld, s, "name", ifc->name, &ld->iface_name_line[idx]) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	for (j = 0; ifc->name[0] && j < idx; j++)
		if (strcmp(cfg->ifaces[j].name, ifc->name) == 0) {
			cfg_err_at(ld, config_setting_get_member(s, "name"),
				   "duplicate interface name '%s' (first at line %d)", ifc->name,
				   ld->iface_name_line[j]);
			ifc->name[0] = '\0';
			break;
		}

	rc = cfg_get_string(ld, s, "port", &port);
	ps = config_setting_get_member(s, "port");
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "port");
	else if (rc == CFG_VAL_OK && (ifc->port = config_port_index(cfg, port)) < 0)
		cfg_err(ld, ps, "unknown port '%s'", port);

	rc = cfg_get_u16(ld, s, "vlan", 1, 4094, &ifc->vlan);
	mtu_rc = cfg_get_u16(ld, s, "mtu", CFG_MTU_MIN, CFG_MTU_MAX, &ifc->mtu);

	if (ifc->port >= 0 && rc != CFG_VAL_BAD) {
		/* The data path finds the interface by (port, VLAN): it must be unique. */
		for (j = 0; j < idx; j++) {
			const struct cfg_iface *o = &cfg->ifaces[j];

			if (o->port != ifc->port || o->vlan != ifc->vlan)
				continue;
			if (ifc->vlan)
				cfg_err_at(
					ld, config_setting_get_member(s, "vlan"),
					"duplicate interface on port '%s' VLAN %u (first at line "
					"%d: '%s')",
					port, ifc->vlan, o->line, o->name);
			else
				cfg_err_at(
					ld, s,
					"duplicate untagged interface on port '%s' (first at line "
					"%d: '%s')",
					port, o->line, o->name);
			break;
		}
	}
	if (ifc->port >= 0 && !ld->port_bad[ifc->port]) {
		const struct cfg_port *p = &cfg->ports[ifc->port];

		ms = config_setting_get_member(s, "mtu");
		if (mtu_rc == CFG_VAL_OK && ifc->mtu > p->mtu)
			cfg_err(ld, ms, "%u exceeds the MTU %u of port '%s'", ifc->mtu, p->mtu,
				p->name);
		else if (mtu_rc != CFG_VAL_OK)
			ifc->mtu = p->mtu;
	}
	cfg_get_vrf(ld, s, "vrf", &ifc->vrf);
	load_iface_addrs(ld, s, idx);
}

static void bad_iface(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->ifaces[idx].port = -1;
	ld->cfg->ifaces[idx].line = cfg_line(s);
	ld->iface_bad[idx] = true;
}

static int load_ifaces(struct cfg_reader *ld, const config_setting_t *root)
{
	static const struct cfg_list_spec spec = {
		"interfaces", 0,         CFG_MAX_IFACES, false, sizeof(struct cfg_iface),
		load_iface,   bad_iface,
	};
	return cfg_load_list(ld, root, &spec, (void **)&ld->cfg->ifaces, &ld->cfg->nb_ifaces);
}

static int interfaces_load(struct cfg_reader *ld, const config_setting_t *root,
			   struct vbrd_config *cfg)
{
	(void)cfg;
	return load_ifaces(ld, root);
}

static void interfaces_free(struct vbrd_config *cfg)
{
	free(cfg->ifaces);
}

static struct config_section interfaces_section = {
	.name = "interfaces",
	.after = (const char *const[]){ "ports", "vrfs", NULL },
	.load = interfaces_load,
	.free = interfaces_free,
};
CONFIG_SECTION(interfaces_section);
