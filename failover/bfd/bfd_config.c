/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config sections "bfd" and "failover_groups" (bfd_config.h): BFD
 * sessions (RFC 5880) single-hop on an interface (RFC 5881), multihop
 * (RFC 5883) or inside a path group's tunnel; and failover groups of two
 * members, a line (interface + gateways) or a tunnel (a path group), each
 * optionally watched by one of those sessions. Every setting is live.
 *
 * "bfd" keeps the one struct bfd_config (allocated even when the file
 * has no bfd section, so bfd_config_get() never returns NULL after a
 * load); "failover_groups" loads after it into the same struct, and before
 * "routes", which resolve `failover_group = "NAME"` through
 * route_target_register().
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/config.h"
#include "core/config_read.h"
#include "failover/bfd/bfd_config.h"

#define BFD_INTERVAL_MIN_MS     1
#define BFD_INTERVAL_MAX_MS     60000
#define FGROUP_HOLD_DOWN_MAX_MS 600000
#define BFD_SIMPLE_KEY_MAX      16 /* RFC 5880 §4.2: password of 1..16 bytes */
#define BFD_SHA1_KEY_MAX        20 /* RFC 5880 §4.4: key of up to 20 bytes */

static int bfd_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg);
static void bfd_free(struct vbrd_config *cfg);
static void bfd_summary(const struct vbrd_config *cfg, char *buf, size_t len);
static int groups_load(struct cfg_reader *ld, const config_setting_t *root,
		       struct vbrd_config *cfg);
static void groups_summary(const struct vbrd_config *cfg, char *buf, size_t len);

static struct config_section bfd_section = {
	.name = "bfd",
	.after = (const char *const[]){ "ports", "interfaces", "tunnels", NULL },
	.load = bfd_load,
	.free = bfd_free,
	.summary = bfd_summary,
};
CONFIG_SECTION(bfd_section);

/* Its data lives in bfd_section's struct bfd_config (freed there). */
static struct config_section groups_section = {
	.name = "failover_groups",
	.after = (const char *const[]){ "bfd", "interfaces", "tunnels", NULL },
	.before = (const char *const[]){ "routes", NULL },
	.load = groups_load,
	.summary = groups_summary,
};
CONFIG_SECTION(groups_section);

const struct bfd_config *bfd_config_get(const struct vbrd_config *cfg)
{
	static const struct bfd_config empty;
	const struct bfd_config *fo = config_section_get(cfg, &bfd_section);

	return fo != NULL ? fo : &empty;
}

int fgroup_index(const struct vbrd_config *cfg, const char *name)
{
	const struct bfd_config *fo = bfd_config_get(cfg);

	for (int i = 0; name != NULL && name[0] && i < fo->nb_groups; i++)
		if (strcmp(fo->groups[i].name, name) == 0)
			return i;
	return -1;
}

int bfd_session_index(const struct vbrd_config *cfg, const char *name)
{
	const struct bfd_config *fo = bfd_config_get(cfg);

	for (int i = 0; name != NULL && name[0] && i < fo->nb_sessions; i++)
		if (strcmp(fo->sessions[i].name, name) == 0)
			return i;
	return -1;
}

/* The VRF of a member: its line's interface's, or its path group's. */
static int member_vrf(const struct vbrd_config *cfg, const struct cfg_fgroup_member *m)
{
	if (m->kind == CFG_FG_TUNNEL)
		return m->path_group >= 0 ? cfg->path_groups[m->path_group].vrf : -1;
	return m->iface >= 0 ? cfg->ifaces[m->iface].vrf : -1;
}

/* The VRF failover group @p idx routes in (its members'). */
static int fgroup_vrf(const struct vbrd_config *cfg, int idx)
{
	return member_vrf(cfg, &bfd_config_get(cfg)->groups[idx].members[0]);
}

/* `routes = ( { prefix = ...; failover_group = "NAME"; } )` */
__attribute__((constructor)) static void fgroup_route_target(void)
{
	route_target_register("failover_group", fgroup_index, fgroup_vrf);
}

const char *cfg_fgroup_mode_name(enum cfg_fgroup_mode m)
{
	return m == CFG_FG_ACTIVE_STANDBY ? "active-standby"
	       : m == CFG_FG_LOAD_BALANCE ? "load-balance"
					  : "?";
}

const char *cfg_bfd_kind_name(enum cfg_bfd_kind k)
{
	static const char *const names[] = { "single-hop", "multihop", "tunnel" };
	return (unsigned)k < 3 ? names[k] : "?";
}

/* The section being built, for the list callbacks (cfg_load_list()). */
static struct bfd_config *building(struct cfg_reader *ld)
{
	return config_section_get(ld->cfg, &bfd_section);
}

/* ---- settings ------------------------------------------------------------- */

/*
 * Member @p name of @p grp as milliseconds, an integer or a number with
 * decimals ("3.3"), BFD_INTERVAL_MIN_MS..BFD_INTERVAL_MAX_MS, into *@p us
 * (rounded to the microsecond).
 */
static int get_interval(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
			uint32_t *us)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	double ms;

	if (s == NULL)
		return CFG_VAL_ABSENT;
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: {
		long long v = config_setting_get_int64(s);
		if (v < BFD_INTERVAL_MIN_MS || v > BFD_INTERVAL_MAX_MS) {
			cfg_err(ld, s, "%lld ms is out of range %d..%d ms", v, BFD_INTERVAL_MIN_MS,
				BFD_INTERVAL_MAX_MS);
			return CFG_VAL_BAD;
		}
		ms = (double)v;
		break;
	}
	case CONFIG_TYPE_FLOAT:
		ms = config_setting_get_float(s);
		/* written so that NaN fails too */
		if (!(ms >= BFD_INTERVAL_MIN_MS && ms <= BFD_INTERVAL_MAX_MS)) {
			cfg_err(ld, s, "%g ms is out of range %d..%d ms", ms, BFD_INTERVAL_MIN_MS,
				BFD_INTERVAL_MAX_MS);
			return CFG_VAL_BAD;
		}
		break;
	default:
		cfg_err(ld, s, "expected milliseconds (an integer or a number like 3.3), got %s",
			cfg_type_name(s));
		return CFG_VAL_BAD;
	}
	*us = (uint32_t)(ms * 1000.0 + 0.5); /* to the nearest µs (ms > 0) */
	return CFG_VAL_OK;
}

/* The intervals and detect multiplier of @p grp over the defaults in @p p. */
static void load_timers(struct cfg_reader *ld, const config_setting_t *grp, struct bfd_params *p)
{
	uint32_t mult;

	get_interval(ld, grp, "transmit_interval", &p->desired_min_tx_us);
	get_interval(ld, grp, "receive_interval", &p->required_min_rx_us);
	if (cfg_get_u32(ld, grp, "detect_multiplier", 1, 255, &mult) == CFG_VAL_OK)
		p->detect_mult = (uint8_t)mult;
}

/* `auth = { type = "meticulous-sha1"; key_id = 1; key = "secret"; }` (RFC 5880 §6.7) */
static void load_auth(struct cfg_reader *ld, const config_setting_t *s, struct bfd_auth *a)
{
	static const char *const keys[] = { "type", "key_id", "key", NULL };
	const config_setting_t *ks;
	const char *v;
	size_t max = BFD_SHA1_KEY_MAX;
	uint32_t id;
	int rc;

	if (config_setting_type(s) != CONFIG_TYPE_GROUP) {
		cfg_err(ld, s, "expected a group { type = ...; key = ...; }, got %s",
			cfg_type_name(s));
		return;
	}
	cfg_check_members(ld, s, keys);
	rc = cfg_get_string(ld, s, "type", &v);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "type");
	else if (rc == CFG_VAL_OK) {
		const config_setting_t *ts = config_setting_get_member(s, "type");
		if (strcmp(v, "simple") == 0) {
			a->type = BFD_AUTH_SIMPLE;
			max = BFD_SIMPLE_KEY_MAX;
		} else if (strcmp(v, "keyed-sha1") == 0)
			a->type = BFD_AUTH_KEYED_SHA1;
		else if (strcmp(v, "meticulous-sha1") == 0)
			a->type = BFD_AUTH_METICULOUS_SHA1;
		else if (strcmp(v, "keyed-md5") == 0 || strcmp(v, "meticulous-md5") == 0)
			cfg_err(ld, ts,
				"'%s' is not supported (MD5 is deprecated, RFC 6151): use "
				"keyed-sha1 or meticulous-sha1",
				v);
		else
			cfg_err(ld, ts,
				"unknown authentication type '%s' (simple, keyed-sha1 or "
				"meticulous-sha1)",
				v);
	}
	if (cfg_get_u32(ld, s, "key_id", 0, 255, &id) == CFG_VAL_OK)
		a->key_id = (uint8_t)id;
	ks = config_setting_get_member(s, "key");
	if (ks == NULL) {
		cfg_err_missing(ld, s, "key");
		a->type = BFD_AUTH_NONE;
		return;
	}
	if (cfg_string_value(ld, ks, &v) != CFG_VAL_OK) {
		a->type = BFD_AUTH_NONE;
		return;
	}
	size_t n = strlen(v);
	if (n == 0 || n > max) {
		cfg_err(ld, ks, "a key of %zu bytes, expected 1..%zu for %s", n, max,
			a->type == BFD_AUTH_SIMPLE ? "simple" : "SHA1");
		a->type = BFD_AUTH_NONE;
		return;
	}
	if (a->type == BFD_AUTH_NONE)
		return; /* the type was reported */
	a->key_len = (uint8_t)n;
	memcpy(a->key, v, n);
}

/* ---- sessions --------------------------------------------------------------- */

/*
 * The address of @p pfx (nb of them) whose subnet holds @p peer, else the
 * first of @p peer's family; -1 when none is of that family.
 */
static int pick_local(const struct cfg_prefix *pfx, int nb, const struct cfg_addr *peer)
{
	int first = -1;

	for (int i = 0; i < nb; i++) {
		if (pfx[i].addr.family != peer->family)
			continue;
		if (config_prefix_contains(&pfx[i], peer))
			return i;
		if (first < 0)
			first = i;
	}
	return first;
}

/* Index of @p a among @p pfx (nb), or -1. */
static int addr_in(const struct cfg_prefix *pfx, int nb, const struct cfg_addr *a)
{
	for (int i = 0; i < nb; i++)
		if (cfg_addr_equal(&pfx[i].addr, a))
			return i;
	return -1;
}

/* Single-hop (RFC 5881): @p peer on the connected subnet of the session's interface. */
static void single_hop(struct cfg_reader *ld, const config_setting_t *s, struct cfg_bfd_session *b,
		       bool has_local)
{
	const struct cfg_iface *ifc = &ld->cfg->ifaces[b->iface];
	const config_setting_t *ps = config_setting_get_member(s, "peer");
	char a[INET6_ADDRSTRLEN];
	int own;

	if (ld->iface_bad[b->iface])
		return; /* its address was reported */
	if (cfg_find_connected(ld->cfg, &b->peer, b->iface, &own) < 0) {
		cfg_err(ld, ps, "%s is not in a connected subnet of interface '%s'",
			config_format_addr(&b->peer, a, sizeof(a)), ifc->name);
		return;
	}
	if (has_local) {
		if (addr_in(ifc->addrs, ifc->nb_addrs, &b->local) < 0)
			cfg_err(ld, config_setting_get_member(s, "local"),
				"%s is not an address of interface '%s'",
				config_format_addr(&b->local, a, sizeof(a)), ifc->name);
		return;
	}
	b->local = ifc->addrs[pick_local(ifc->addrs, ifc->nb_addrs, &b->peer)].addr;
}

/* Multihop (RFC 5883): @p local an address of some interface of the VRF
 * default (multihop sessions are routed there), @p peer anywhere. */
static void multihop(struct cfg_reader *ld, const config_setting_t *s, struct cfg_bfd_session *b,
		     bool has_local)
{
	char a[INET6_ADDRSTRLEN];
	int own;

	if (!has_local) {
		if (config_setting_get_member(s, "local") == NULL)
			cfg_err_missing(ld, s, "local");
		return;
	}
	cfg_find_connected_vrf(ld->cfg, &b->local, -1, CFG_VRF_DEFAULT, &own);
	if (own < 0 && !cfg_any_iface_bad(ld))
		cfg_err(ld, config_setting_get_member(s, "local"),
			"%s is not an address of any interface of the VRF default (multihop "
			"sessions are routed there)",
			config_format_addr(&b->local, a, sizeof(a)));
}

/*
 * Through a path group (the DR tunnel to the HA partner): between the inner
 * addresses of the tunnel of the group's first path.
 */
static void tunnel_hop(struct cfg_reader *ld, const config_setting_t *s, struct cfg_bfd_session *b,
		       bool has_local)
{
	const struct vbrd_config *cfg = ld->cfg;
	const struct cfg_path_group *g = &cfg->path_groups[b->path_group];
	const config_setting_t *ps = config_setting_get_member(s, "peer");
	char a[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN + 4];
	const struct cfg_tunnel *t;
	int in = -1;

	if (g->nb_paths == 0 || g->paths[0].tunnel < 0)
		return; /* reported with the path group */
	t = &cfg->tunnels[g->paths[0].tunnel];
	if (pick_local(t->addrs, t->nb_addrs, &b->peer) < 0) {
		cfg_err(ld, config_setting_get_member(s, "path_group"),
			"tunnel '%s' of path group '%s' has no inner %s address (its 'address'): "
			"a session through it runs between inner addresses",
			t->name, g->name, cfg_family_name(b->peer.family));
		return;
	}
	for (int i = 0; i < t->nb_addrs && in < 0; i++)
		if (config_prefix_contains(&t->addrs[i], &b->peer))
			in = i;
	if (in < 0) {
		cfg_err(ld, ps, "%s is not in the inner subnet of tunnel '%s' (%s)",
			config_format_addr(&b->peer, a, sizeof(a)), t->name,
			config_format_prefix(&t->addrs[pick_local(t->addrs, t->nb_addrs, &b->peer)],
					     p, sizeof(p)));
		return;
	}
	if (has_local) {
		if (addr_in(t->addrs, t->nb_addrs, &b->local) < 0)
			cfg_err(ld, config_setting_get_member(s, "local"),
				"%s is not an inner address of tunnel '%s'",
				config_format_addr(&b->local, a, sizeof(a)), t->name);
		return;
	}
	b->local = t->addrs[in].addr;
}

/* Which of `interface`, `multihop = true`, `path_group` the session has. */
static bool load_kind(struct cfg_reader *ld, const config_setting_t *s, struct cfg_bfd_session *b)
{
	const config_setting_t *is = config_setting_get_member(s, "interface");
	const config_setting_t *ms = config_setting_get_member(s, "multihop");
	const config_setting_t *gs = config_setting_get_member(s, "path_group");
	char path[128];
	bool mh = false;
	const char *v;

	if (cfg_get_bool(ld, s, "multihop", &mh) == CFG_VAL_BAD)
		return false;
	if (!mh)
		ms = NULL;
	if ((is != NULL) + (ms != NULL) + (gs != NULL) > 1) {
		cfg_err_at(ld, gs ? gs : ms,
			   "%s: 'interface', 'multihop = true' and 'path_group' are mutually "
			   "exclusive",
			   cfg_path(s, path, sizeof(path)));
		return false;
	}
	if (ms != NULL) {
		b->kind = CFG_BFD_MULTIHOP;
		return true;
	}
	if (is != NULL) {
		b->kind = CFG_BFD_SINGLE_HOP;
		if (cfg_string_value(ld, is, &v) != CFG_VAL_OK)
			return false;
		if ((b->iface = config_iface_index(ld->cfg, v)) < 0) {
			cfg_err(ld, is, "unknown interface '%s'", v);
			return false;
		}
		return true;
	}
	if (gs != NULL) {
		b->kind = CFG_BFD_TUNNEL;
		if (cfg_string_value(ld, gs, &v) != CFG_VAL_OK)
			return false;
		if ((b->path_group = config_path_group_index(ld->cfg, v)) < 0) {
			cfg_err(ld, gs, "unknown path group '%s'", v);
			return false;
		}
		return true;
	}
	cfg_err_at(ld, s,
		   "%s: missing required setting 'interface' (or 'multihop = true', 'path_group')",
		   cfg_path(s, path, sizeof(path)));
	return false;
}

/* Sessions of one key (RFC 5880 §6.3: what demultiplexes a packet with Your Discriminator 0). */
static bool same_key(const struct cfg_bfd_session *x, const struct cfg_bfd_session *y)
{
	return x->kind == y->kind && x->iface == y->iface && x->path_group == y->path_group &&
	       cfg_addr_equal(&x->local, &y->local) && cfg_addr_equal(&x->peer, &y->peer);
}

static void check_session_unique(struct cfg_reader *ld, const config_setting_t *s,
				 const struct bfd_config *fo, int idx)
{
	const struct cfg_bfd_session *b = &fo->sessions[idx];
	char a[INET6_ADDRSTRLEN];

	for (int j = 0; j < idx; j++) {
		const struct cfg_bfd_session *o = &fo->sessions[j];

		if (o->peer.family == 0 || o->local.family == 0)
			continue;
		if (same_key(b, o)) {
			char where[CFG_NAME_MAX + 32] = "", l[INET6_ADDRSTRLEN];
			if (b->kind == CFG_BFD_SINGLE_HOP)
				snprintf(where, sizeof(where), "interface '%s', ",
					 ld->cfg->ifaces[b->iface].name);
			else if (b->kind == CFG_BFD_TUNNEL)
				snprintf(where, sizeof(where), "path group '%s', ",
					 ld->cfg->path_groups[b->path_group].name);
			cfg_err(ld, s, "the same %s session as '%s' (line %d): %slocal %s, peer %s",
				cfg_bfd_kind_name(b->kind), o->name, o->line, where,
				config_format_addr(&b->local, l, sizeof(l)),
				config_format_addr(&b->peer, a, sizeof(a)));
			return;
		}
		if (b->kind == CFG_BFD_SINGLE_HOP && o->kind == CFG_BFD_SINGLE_HOP &&
		    b->iface == o->iface && cfg_addr_equal(&b->peer, &o->peer)) {
			cfg_err(ld, config_setting_get_member(s, "peer"),
				"%s on interface '%s' is already the peer of session '%s' (line "
				"%d)",
				config_format_addr(&b->peer, a, sizeof(a)),
				ld->cfg->ifaces[b->iface].name, o->name, o->line);
			return;
		}
	}
}

static void load_session(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name",
					    "interface",
					    "multihop",
					    "path_group",
					    "local",
					    "peer",
					    "transmit_interval",
					    "receive_interval",
					    "detect_multiplier",
					    "passive",
					    "shutdown",
					    "auth",
					    "minimum_ttl",
					    NULL };
	struct bfd_config *fo = building(ld);
	struct cfg_bfd_session *b = &fo->sessions[idx];
	const config_setting_t *ls = config_setting_get_member(s, "local");
	const config_setting_t *as = config_setting_get_member(s, "auth");
	char a[INET6_ADDRSTRLEN], owner[CFG_NAME_MAX + 32];
	bool kind_ok, peer_ok, local_ok = false;
	const char *why;
	int rc;

	b->line = cfg_line(s);
	b->iface = b->path_group = -1;
	b->params = fo->defaults;
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "name", b->name, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	else if (rc == CFG_VAL_OK)
		for (int j = 0; j < idx; j++)
			if (strcmp(fo->sessions[j].name, b->name) == 0) {
				cfg_err_at(ld, config_setting_get_member(s, "name"),
					   "duplicate BFD session name '%s' (first at line %d)",
					   b->name, fo->sessions[j].line);
				break;
			}
	kind_ok = load_kind(ld, s, b);
	b->min_ttl = kind_ok && b->kind == CFG_BFD_SINGLE_HOP ? 255 : BFD_DEFAULT_MIN_TTL;
	if (kind_ok && config_setting_get_member(s, "minimum_ttl") != NULL) {
		uint32_t ttl = b->min_ttl;
		if (b->kind == CFG_BFD_SINGLE_HOP)
			cfg_err(ld, config_setting_get_member(s, "minimum_ttl"),
				"only for multihop and tunnel sessions (single-hop requires 255, "
				"RFC 5881 §5)");
		else if (cfg_get_u32(ld, s, "minimum_ttl", 1, 255, &ttl) == CFG_VAL_OK)
			b->min_ttl = (uint8_t)ttl;
	}
	load_timers(ld, s, &b->params);
	cfg_get_bool(ld, s, "passive", &b->params.passive);
	cfg_get_bool(ld, s, "shutdown", &b->params.admin_down);
	if (as != NULL)
		load_auth(ld, as, &b->params.auth);

	peer_ok = cfg_get_addr(ld, s, "peer", &b->peer) == CFG_VAL_OK;
	if (peer_ok && (why = cfg_unusable_addr(&b->peer)) != NULL) {
		cfg_err(ld, config_setting_get_member(s, "peer"), "%s is %s",
			config_format_addr(&b->peer, a, sizeof(a)), why);
		peer_ok = false;
	}
	if (peer_ok && cfg_address_owner(ld, &b->peer, -1, owner, sizeof(owner)) != NULL) {
		cfg_err(ld, config_setting_get_member(s, "peer"), "%s is an address of %s itself",
			config_format_addr(&b->peer, a, sizeof(a)), owner);
		peer_ok = false;
	}
	if (ls != NULL) {
		const char *v = "";
		if (cfg_string_value(ld, ls, &v) == CFG_VAL_OK) {
			if (config_parse_addr(v, &b->local) != 0)
				cfg_err(ld, ls, "'%s' is not a valid IPv4 or IPv6 address", v);
			else
				local_ok = true;
		}
		if (local_ok && peer_ok && b->local.family != b->peer.family) {
			cfg_err(ld, ls, "%s is %s but the peer is %s", v,
				cfg_family_name(b->local.family), cfg_family_name(b->peer.family));
			local_ok = false;
		}
		if (!local_ok)
			memset(&b->local, 0, sizeof(b->local));
	}
	if (!kind_ok || !peer_ok || (ls != NULL && !local_ok)) {
		memset(&b->local, 0, sizeof(b->local));
		return;
	}
	switch (b->kind) {
	case CFG_BFD_SINGLE_HOP:
		single_hop(ld, s, b, local_ok);
		break;
	case CFG_BFD_MULTIHOP:
		multihop(ld, s, b, local_ok);
		break;
	case CFG_BFD_TUNNEL:
		tunnel_hop(ld, s, b, local_ok);
		break;
	}
	if (b->local.family != 0)
		check_session_unique(ld, s, fo, idx);
}

static void bad_session(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	struct cfg_bfd_session *b = &building(ld)->sessions[idx];

	b->line = cfg_line(s);
	b->iface = b->path_group = -1;
}

static int bfd_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	static const char *const keys[] = { "transmit_interval", "receive_interval",
					    "detect_multiplier", "sessions", NULL };
	static const struct cfg_list_spec sessions = {
		"sessions",   0,           BFD_MAX_SESSIONS, false, sizeof(struct cfg_bfd_session),
		load_session, bad_session,
	};
	const config_setting_t *g = cfg_get_typed(ld, root, "bfd", CONFIG_TYPE_GROUP);
	struct bfd_config *fo = calloc(1, sizeof(*fo));

	if (fo == NULL)
		return -ENOMEM;
	config_section_set(cfg, &bfd_section, fo); /* freed by bfd_free() whatever happens */
	fo->defaults = (struct bfd_params){
		.desired_min_tx_us = BFD_DEFAULT_INTERVAL_US,
		.required_min_rx_us = BFD_DEFAULT_INTERVAL_US,
		.detect_mult = BFD_DEFAULT_DETECT_MULT,
	};
	if (g == NULL)
		return 0;
	cfg_check_members(ld, g, keys);
	load_timers(ld, g, &fo->defaults);
	if (cfg_load_list(ld, g, &sessions, (void **)&fo->sessions, &fo->nb_sessions) < 0 ||
	    ld->nomem)
		return -ENOMEM;
	return 0;
}

static void bfd_free(struct vbrd_config *cfg)
{
	struct bfd_config *fo = config_section_get(cfg, &bfd_section);

	if (fo == NULL)
		return;
	free(fo->sessions);
	free(fo->groups);
	free(fo);
	config_section_set(cfg, &bfd_section, NULL);
}

static void bfd_summary(const struct vbrd_config *cfg, char *buf, size_t len)
{
	const struct bfd_config *fo = bfd_config_get(cfg);

	if (fo->nb_sessions > 0)
		snprintf(buf, len, "%d BFD sessions", fo->nb_sessions);
}

/* ---- failover groups --------------------------------------------------------- */

/* Index of BFD session @p name, or -1. */
static int session_index(const struct bfd_config *fo, const char *name)
{
	for (int i = 0; i < fo->nb_sessions; i++)
		if (strcmp(fo->sessions[i].name, name) == 0)
			return i;
	return -1;
}

/* How a line member's interface is known when a gateway is checked. */
enum iface_from { IFACE_NONE, IFACE_NAMED, IFACE_OF_VIA };

/*
 * One gateway of a line member: `via` (IPv4) or `via6` (IPv6) at @p s, on
 * interface m->iface when known (@p from), else found from the connected
 * subnets as a route's gateway is; m->iface is set then.
 */
static bool load_gateway(struct cfg_reader *ld, const config_setting_t *s, int family,
			 struct cfg_fgroup_member *m, struct cfg_addr *out, enum iface_from from)
{
	const struct vbrd_config *cfg = ld->cfg;
	const char *v;
	int found, own;

	if (cfg_string_value(ld, s, &v) != CFG_VAL_OK)
		return false;
	if (config_parse_addr(v, out) != 0) {
		cfg_err(ld, s, "'%s' is not a valid %s address", v, cfg_family_name(family));
		return false;
	}
	if (out->family != family) {
		cfg_err(ld, s, "%s is %s: '%s' is the %s gateway (%s goes in '%s')", v,
			cfg_family_name(out->family), config_setting_name(s),
			cfg_family_name(family), cfg_family_name(out->family),
			family == AF_INET ? "via6" : "via");
		goto bad;
	}
	found = cfg_find_connected(cfg, out, m->iface, &own);
	if (own >= 0) {
		cfg_err(ld, s, "%s is an address of interface '%s' itself", v,
			cfg->ifaces[own].name);
		goto bad;
	}
	if (cfg_is_link_local6(out)) {
		/* a link-local gateway lies on every link: only the interface says which */
		if (from == IFACE_NONE) {
			cfg_err(ld, s, "link-local gateway %s needs an 'interface'", v);
			goto bad;
		}
		found = m->iface;
	}
	if (found < 0) {
		if (from == IFACE_NAMED && !ld->iface_bad[m->iface])
			cfg_err(ld, s, "%s is not in a connected subnet of interface '%s'", v,
				cfg->ifaces[m->iface].name);
		else if (from == IFACE_OF_VIA && !ld->iface_bad[m->iface])
			cfg_err(ld, s,
				"%s is not in a connected subnet of interface '%s', where 'via' is",
				v, cfg->ifaces[m->iface].name);
		else if (from == IFACE_NONE && !cfg_any_iface_bad(ld))
			cfg_err(ld, s, "%s is not in a connected subnet", v);
		goto bad;
	}
	m->iface = found;
	return true;
bad:
	memset(out, 0, sizeof(*out));
	return false;
}

/* A line member: `interface` (optional), `via` and/or `via6`. */
static bool load_line_member(struct cfg_reader *ld, const config_setting_t *s,
			     struct cfg_fgroup_member *m)
{
	const config_setting_t *is = config_setting_get_member(s, "interface");
	const config_setting_t *vs = config_setting_get_member(s, "via");
	const config_setting_t *v6 = config_setting_get_member(s, "via6");
	enum iface_from from = IFACE_NONE;
	char path[128];
	const char *v;
	bool ok = true;

	m->kind = CFG_FG_LINE;
	if (is != NULL) {
		if (cfg_string_value(ld, is, &v) != CFG_VAL_OK)
			return false;
		if ((m->iface = config_iface_index(ld->cfg, v)) < 0) {
			cfg_err(ld, is, "unknown interface '%s'", v);
			return false;
		}
		from = IFACE_NAMED;
	}
	if (vs == NULL && v6 == NULL) {
		cfg_err_at(ld, s, "%s: missing required setting 'via' (or 'via6', 'path_group')",
			   cfg_path(s, path, sizeof(path)));
		return false;
	}
	if (vs != NULL) {
		ok = load_gateway(ld, vs, AF_INET, m, &m->via, from);
		if (ok && from == IFACE_NONE)
			from = IFACE_OF_VIA;
	}
	/* without the interface a bad `via` would only make `via6` look wrong */
	if (v6 != NULL && (ok || from == IFACE_NAMED))
		ok = load_gateway(ld, v6, AF_INET6, m, &m->via6, from) && ok;
	return ok && m->iface >= 0;
}

/* Whether two members are the same way out. */
static bool same_member(const struct cfg_fgroup_member *x, const struct cfg_fgroup_member *y)
{
	if (x->kind != y->kind)
		return false;
	if (x->kind == CFG_FG_TUNNEL)
		return x->path_group == y->path_group;
	return x->iface == y->iface && cfg_addr_equal(&x->via, &y->via) &&
	       cfg_addr_equal(&x->via6, &y->via6);
}

static bool load_member(struct cfg_reader *ld, const config_setting_t *s,
			struct cfg_fgroup_member *m)
{
	static const char *const keys[] = { "interface", "via", "via6", "path_group", "bfd", NULL };
	const struct bfd_config *fo = building(ld);
	const config_setting_t *gs = config_setting_get_member(s, "path_group");
	const config_setting_t *bs = config_setting_get_member(s, "bfd");
	char path[128];
	const char *v;
	bool ok;

	m->line = cfg_line(s);
	cfg_check_members(ld, s, keys);
	if (gs != NULL) {
		m->kind = CFG_FG_TUNNEL;
		if (config_setting_get_member(s, "interface") != NULL ||
		    config_setting_get_member(s, "via") != NULL ||
		    config_setting_get_member(s, "via6") != NULL) {
			cfg_err_at(ld, gs,
				   "%s: 'path_group' excludes 'interface', 'via' and 'via6'",
				   cfg_path(s, path, sizeof(path)));
			ok = false;
		} else if (cfg_string_value(ld, gs, &v) != CFG_VAL_OK)
			ok = false;
		else if ((m->path_group = config_path_group_index(ld->cfg, v)) < 0) {
			cfg_err(ld, gs, "unknown path group '%s'", v);
			ok = false;
		} else
			ok = true;
	} else
		ok = load_line_member(ld, s, m);

	if (bs == NULL || cfg_string_value(ld, bs, &v) != CFG_VAL_OK)
		return ok && bs == NULL;
	if ((m->bfd = session_index(fo, v)) < 0) {
		cfg_err(ld, bs, "unknown BFD session '%s'", v);
		return false;
	}
	const struct cfg_bfd_session *b = &fo->sessions[m->bfd];
	if (ok && m->kind == CFG_FG_LINE && b->kind == CFG_BFD_SINGLE_HOP && b->iface >= 0 &&
	    b->iface != m->iface) {
		cfg_err(ld, bs,
			"BFD session '%s' (line %d) is single-hop on interface '%s', not "
			"on this member's '%s'",
			b->name, b->line, ld->cfg->ifaces[b->iface].name,
			ld->cfg->ifaces[m->iface].name);
		return false;
	}
	if (ok && m->kind == CFG_FG_TUNNEL && b->kind == CFG_BFD_TUNNEL && b->path_group >= 0 &&
	    b->path_group != m->path_group) {
		cfg_err(ld, bs,
			"BFD session '%s' (line %d) runs through path group '%s', not "
			"this member's '%s'",
			b->name, b->line, ld->cfg->path_groups[b->path_group].name,
			ld->cfg->path_groups[m->path_group].name);
		return false;
	}
	return ok;
}

static void load_group(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name",      "mode",    "revertive",
					    "hold_down", "members", NULL };
	struct bfd_config *fo = building(ld);
	struct cfg_fgroup *g = &fo->groups[idx];
	const config_setting_t *ms;
	bool ok[2] = { false, false };
	const char *v;
	int rc, n;

	g->line = cfg_line(s);
	g->revertive = true;
	g->hold_down_ms = FGROUP_DEFAULT_HOLD_DOWN_MS;
	for (int k = 0; k < 2; k++)
		g->members[k] = (struct cfg_fgroup_member){ .iface = -1,
							    .path_group = -1,
							    .bfd = -1 };
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "name", g->name, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	else if (rc == CFG_VAL_OK)
		for (int j = 0; j < idx; j++)
			if (strcmp(fo->groups[j].name, g->name) == 0) {
				cfg_err_at(ld, config_setting_get_member(s, "name"),
					   "duplicate failover group name '%s' (first at line %d)",
					   g->name, fo->groups[j].line);
				break;
			}
	if (cfg_get_string(ld, s, "mode", &v) == CFG_VAL_OK) {
		if (strcmp(v, "active-standby") == 0)
			g->mode = CFG_FG_ACTIVE_STANDBY;
		else if (strcmp(v, "load-balance") == 0)
			g->mode = CFG_FG_LOAD_BALANCE;
		else
			cfg_err(ld, config_setting_get_member(s, "mode"),
				"unknown mode '%s' (active-standby or load-balance)", v);
	}
	cfg_get_bool(ld, s, "revertive", &g->revertive);
	cfg_get_u32(ld, s, "hold_down", 0, FGROUP_HOLD_DOWN_MAX_MS, &g->hold_down_ms);

	ms = cfg_get_typed(ld, s, "members", CONFIG_TYPE_LIST);
	if (config_setting_get_member(s, "members") == NULL) {
		cfg_err_missing(ld, s, "members");
		return;
	}
	if (ms == NULL)
		return;
	n = config_setting_length(ms);
	if (n != 2) {
		cfg_err(ld, ms, "%d members, expected 2", n);
		return;
	}
	for (int k = 0; k < 2; k++) {
		const config_setting_t *e = config_setting_get_elem(ms, (unsigned)k);

		if (config_setting_type(e) != CONFIG_TYPE_GROUP) {
			cfg_err(ld, e, "expected a group { ... }, got %s", cfg_type_name(e));
			continue;
		}
		ok[k] = load_member(ld, e, &g->members[k]);
	}
	if (ok[0] && ok[1] && same_member(&g->members[0], &g->members[1]))
		cfg_err(ld, config_setting_get_elem(ms, 1), "the same %s as members[0] (line %d)",
			g->members[1].kind == CFG_FG_TUNNEL ? "path group"
							    : "interface and gateways",
			g->members[0].line);
	else if (ok[0] && ok[1] &&
		 member_vrf(ld->cfg, &g->members[0]) != member_vrf(ld->cfg, &g->members[1]))
		cfg_err(ld, config_setting_get_elem(ms, 1),
			"this member is in VRF '%s', members[0] in VRF '%s': a failover group "
			"routes in one VRF",
			config_vrf_name(ld->cfg, member_vrf(ld->cfg, &g->members[1])),
			config_vrf_name(ld->cfg, member_vrf(ld->cfg, &g->members[0])));
}

static void bad_group(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	struct cfg_fgroup *g = &building(ld)->groups[idx];

	g->line = cfg_line(s);
	for (int k = 0; k < 2; k++)
		g->members[k] = (struct cfg_fgroup_member){ .iface = -1,
							    .path_group = -1,
							    .bfd = -1 };
}

static int groups_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	static const struct cfg_list_spec groups = {
		"failover_groups",         0,          FGROUP_MAX, false,
		sizeof(struct cfg_fgroup), load_group, bad_group,
	};
	struct bfd_config *fo = config_section_get(cfg, &bfd_section);

	if (fo == NULL) /* "bfd" loads first and always allocates */
		return -ENOMEM;
	if (cfg_load_list(ld, root, &groups, (void **)&fo->groups, &fo->nb_groups) < 0 || ld->nomem)
		return -ENOMEM;
	return 0;
}

static void groups_summary(const struct vbrd_config *cfg, char *buf, size_t len)
{
	const struct bfd_config *fo = bfd_config_get(cfg);

	if (fo->nb_groups > 0)
		snprintf(buf, len, "%d failover groups", fo->nb_groups);
}
