/* SPDX-License-Identifier: BSD-3-Clause */
/* Config section "cplane" (cplane_config.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config_read.h"
#include "frr/cplane/cplane_config.h"
#include "frr/cplane/tap.h"

#define CPLANE_DEFAULTS                                       \
	{                                                     \
		.tap_prefix = "vb-",                          \
		.police = { [CPLANE_BGP] = { 20000, 4000 },   \
			    [CPLANE_TCP] = { 2000, 400 },     \
			    [CPLANE_ICMP] = { 1000, 200 },    \
			    [CPLANE_OTHER] = { 1000, 200 } }, \
	}

static const char *const class_names[CPLANE_CLASSES] = { "bgp", "tcp", "icmp", "other" };

const char *cplane_class_name(enum cplane_class c)
{
	return c < CPLANE_CLASSES ? class_names[c] : "?";
}

static int cplane_load(struct cfg_reader *ld, const config_setting_t *root,
		       struct vbrd_config *cfg);
static void cplane_free(struct vbrd_config *cfg);
static void cplane_summary(const struct vbrd_config *cfg, char *buf, size_t len);

static struct config_section cplane_section = {
	.name = "cplane",
	.after = (const char *const[]){ "interfaces", "tunnels", "vrfs", NULL },
	.load = cplane_load,
	.free = cplane_free,
	.summary = cplane_summary,
};
CONFIG_SECTION(cplane_section);

const struct cfg_cplane *cfg_cplane_get(const struct vbrd_config *cfg)
{
	static const struct cfg_cplane empty = CPLANE_DEFAULTS;
	const struct cfg_cplane *c = config_section_get(cfg, &cplane_section);

	return c != NULL ? c : &empty;
}

static void load_police(struct cfg_reader *ld, const config_setting_t *grp, struct cfg_cplane *c)
{
	static const char *const keys[] = { "bgp", "tcp", "icmp", "other", NULL };

	cfg_check_members(ld, grp, keys);
	for (int k = 0; k < CPLANE_CLASSES; k++) {
		const config_setting_t *p = cfg_get_typed(ld, grp, class_names[k],
							  CONFIG_TYPE_GROUP);
		static const char *const pkeys[] = { "rate", "burst", NULL };
		if (p == NULL)
			continue;
		cfg_check_members(ld, p, pkeys);
		cfg_get_u32(ld, p, "rate", 1, 10000000, &c->police[k].rate);
		cfg_get_u32(ld, p, "burst", 1, 1000000, &c->police[k].burst);
	}
}

static void load_peers(struct cfg_reader *ld, const config_setting_t *list, struct cfg_cplane *c)
{
	int n = config_setting_length(list);

	if (!cfg_is_sequence(list)) {
		cfg_err(ld, list, "must be a list of addresses");
		return;
	}
	if (n > CPLANE_MAX_PEERS) {
		cfg_err(ld, list, "%d peers: at most %d", n, CPLANE_MAX_PEERS);
		n = CPLANE_MAX_PEERS;
	}
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
		const char *s = config_setting_get_string(e);
		if (s == NULL || config_parse_addr(s, &c->peers[c->nb_peers]) != 0) {
			cfg_err(ld, e, "not an IPv4 or IPv6 address");
			continue;
		}
		c->nb_peers++;
	}
}

/*
 * The kernel names the TAPs (interfaces and tunnels) and the VRF devices
 * will have (tap.h): each possible, none shared, as start-up and reloads
 * check them again (cplane_module.c), so that --check-config says so.
 */
static void check_names(struct cfg_reader *ld, const config_setting_t *grp,
			const struct vbrd_config *cfg, const struct cfg_cplane *c)
{
	static const char *names[CFG_MAX_IFACES];
	const char *vrfs[CFG_MAX_VRFS];
	unsigned n = 0, ni = 0, nv = 0;
	char err[256];

	for (int i = 0; i < cfg->nb_ifaces; i++)
		names[n++] = cfg->ifaces[i].name;
	for (int t = 0; t < cfg->nb_tunnels && n < CFG_MAX_IFACES; t++)
		names[n++] = cfg->tunnels[t].name;
	if (cp_tap_names_check(c->tap_prefix, names, n, err, sizeof(err)) < 0) {
		cfg_err(ld, grp, "%s", err);
		return;
	}
	/* VRF devices live in cplane.netns beside the TAPs of the VRFs without a netns */
	for (int v = 1; v < cfg->nb_vrfs; v++)
		if (cfg->vrfs[v].netns[0] == '\0' && cfg->vrfs[v].name[0])
			vrfs[nv++] = cfg->vrfs[v].name;
	for (int i = 0; nv > 0 && i < cfg->nb_ifaces; i++)
		if (cfg->vrfs == NULL || cfg->vrfs[cfg->ifaces[i].vrf].netns[0] == '\0')
			names[ni++] = cfg->ifaces[i].name;
	for (int t = 0; nv > 0 && t < cfg->nb_tunnels; t++)
		if (cfg->vrfs == NULL || cfg->vrfs[cfg->tunnels[t].vrf].netns[0] == '\0')
			names[ni++] = cfg->tunnels[t].name;
	if (cp_vrf_names_check(c->tap_prefix, names, ni, vrfs, nv, err, sizeof(err)) < 0)
		cfg_err(ld, grp, "%s", err);
}

static int cplane_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	static const char *const keys[] = { "netns", "tap_prefix", "bgp_peers", "police", NULL };
	static const struct cfg_cplane defaults = CPLANE_DEFAULTS;
	const config_setting_t *grp = config_setting_get_member(root, "cplane");
	struct cfg_cplane *c;

	if (grp == NULL) {
		/* a VRF's netns serves its TAPs and zebra: nothing without cplane */
		for (int v = 1; v < cfg->nb_vrfs; v++)
			if (cfg->vrfs[v].netns[0])
				cfg_warn(ld, NULL,
					 "VRF '%s' (line %d) names netns '%s', but there is no "
					 "cplane section: no TAP or FPM listener is made there",
					 cfg->vrfs[v].name, cfg->vrfs[v].line, cfg->vrfs[v].netns);
		return 0; /* adding the section names its restart settings as new */
	}
	c = malloc(sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	*c = defaults;
	c->enabled = true;
	config_section_set(cfg, &cplane_section, c);
	if (config_setting_type(grp) != CONFIG_TYPE_GROUP) {
		cfg_err(ld, grp, "must be a group: cplane = { ... }");
		return 0;
	}
	cfg_check_members(ld, grp, keys);
	const config_setting_t *s = config_setting_get_member(grp, "netns");
	if (cfg_get_text(ld, grp, "netns", c->netns, sizeof(c->netns)) == CFG_VAL_OK &&
	    !cfg_netns_name_ok(c->netns))
		cfg_err(ld, s, "'%s' is no network namespace name ([A-Za-z0-9_.-])", c->netns);
	cfg_restart(ld, s, "cplane.netns", "%s", c->netns);
	for (int v = 1; c->netns[0] && v < cfg->nb_vrfs; v++)
		if (strcmp(cfg->vrfs[v].netns, c->netns) == 0)
			cfg_err(ld, s,
				"namespace '%s' belongs to VRF '%s' (line %d): the control "
				"namespace serves the VRFs without one",
				c->netns, cfg->vrfs[v].name, cfg->vrfs[v].line);
	s = config_setting_get_member(grp, "tap_prefix");
	if (cfg_get_text(ld, grp, "tap_prefix", c->tap_prefix, sizeof(c->tap_prefix)) ==
		    CFG_VAL_OK &&
	    !cfg_netns_name_ok(c->tap_prefix))
		cfg_err(ld, s, "'%s': a TAP name prefix is [A-Za-z0-9_.-], 1..%d characters",
			c->tap_prefix, CPLANE_PREFIX_MAX - 1);
	cfg_restart(ld, s, "cplane.tap_prefix", "%s", c->tap_prefix);
	s = config_setting_get_member(grp, "bgp_peers");
	if (s != NULL)
		load_peers(ld, s, c);
	s = cfg_get_typed(ld, grp, "police", CONFIG_TYPE_GROUP);
	if (s != NULL)
		load_police(ld, s, c);
	check_names(ld, grp, cfg, c);
	return 0;
}

static void cplane_free(struct vbrd_config *cfg)
{
	free(config_section_get(cfg, &cplane_section));
}

static void cplane_summary(const struct vbrd_config *cfg, char *buf, size_t len)
{
	const struct cfg_cplane *c = cfg_cplane_get(cfg);

	if (c->enabled)
		snprintf(buf, len, "control plane: %d TAPs in %s", cfg->nb_ifaces,
			 c->netns[0] ? c->netns : "vbrd's namespace");
}
