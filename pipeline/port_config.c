/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "ports": DPDK ports by devargs (conf/README.md). Every
 * port setting needs a restart: ports are EAL devices.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/config.h"
#include "core/config_read.h"

/* ---- ports ------------------------------------------------------------------ */

static void load_port(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name",    "devargs", "rx_queues",   "rx_desc",
					    "tx_desc", "mtu",     "promiscuous", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_port *p = &cfg->ports[idx];
	int j;

	p->rx_queues = 0;
	p->rx_desc = 1024;
	p->tx_desc = 1024;
	p->mtu = 1500;
	p->promiscuous = true;
	p->line = cfg_line(s);
	cfg_check_members(ld, s, keys);

	if (cfg_get_name(ld, s, "name", p->name, &ld->port_name_line[idx]) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	for (j = 0; p->name[0] && j < idx; j++)
		if (strcmp(cfg->ports[j].name, p->name) == 0) {
			cfg_err_at(ld, config_setting_get_member(s, "name"),
				   "duplicate port name '%s' (first at line %d)", p->name,
				   ld->port_name_line[j]);
			p->name[0] = '\0'; /* references resolve to the first one */
			break;
		}
	if (cfg_get_text(ld, s, "devargs", p->devargs, sizeof(p->devargs)) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "devargs");
	cfg_get_u16(ld, s, "rx_queues", 1, CFG_MAX_WORKERS, &p->rx_queues);
	cfg_get_u16(ld, s, "rx_desc", 32, 16384, &p->rx_desc);
	cfg_get_u16(ld, s, "tx_desc", 32, 16384, &p->tx_desc);
	if (cfg_get_u16(ld, s, "mtu", CFG_MTU_MIN, CFG_MTU_MAX, &p->mtu) == CFG_VAL_BAD)
		ld->port_bad[idx] = true;
	cfg_get_bool(ld, s, "promiscuous", &p->promiscuous);
}

static void bad_port(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->ports[idx].line = cfg_line(s);
	ld->port_bad[idx] = true;
}

static int load_ports(struct cfg_reader *ld, const config_setting_t *root)
{
	static const struct cfg_list_spec spec = {
		"ports", 1, CFG_MAX_PORTS, true, sizeof(struct cfg_port), load_port, bad_port,
	};
	return cfg_load_list(ld, root, &spec, (void **)&ld->cfg->ports, &ld->cfg->nb_ports);
}

static int ports_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	int rc = load_ports(ld, root);

	if (rc < 0)
		return rc;
	for (int i = 0; i < cfg->nb_ports; i++) {
		const struct cfg_port *p = &cfg->ports[i];
		const config_setting_t *s = config_setting_get_elem(
			config_setting_get_member(root, "ports"), (unsigned)i);
		char path[96];

		/* the order is the DPDK port order: each position is a setting */
		snprintf(path, sizeof(path), "ports[%d]", i);
		cfg_restart(ld, s, path, "%s", p->name);
#define RESTART(key, fmt, v)                                                                 \
	do {                                                                                 \
		snprintf(path, sizeof(path), "ports.%s." key, p->name);                      \
		cfg_restart(ld, s ? config_setting_get_member(s, key) : NULL, path, fmt, v); \
	} while (0)
		RESTART("devargs", "%s", p->devargs);
		RESTART("rx_queues", "%u", p->rx_queues);
		RESTART("rx_desc", "%u", p->rx_desc);
		RESTART("tx_desc", "%u", p->tx_desc);
		RESTART("mtu", "%u", p->mtu);
		RESTART("promiscuous", "%s", p->promiscuous ? "true" : "false");
#undef RESTART
	}
	cfg_restart(ld, config_setting_get_member(root, "ports"), "ports", "%d ports",
		    cfg->nb_ports);
	return 0;
}

static void ports_free(struct vbrd_config *cfg)
{
	free(cfg->ports);
}

static struct config_section ports_section = {
	.name = "ports",
	.load = ports_load,
	.free = ports_free,
};
CONFIG_SECTION(ports_section);
