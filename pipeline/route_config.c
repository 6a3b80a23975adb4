/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "routes": static routes with one or several (ECMP) next
 * hops, or to a path group (live).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/config.h"
#include "core/config_read.h"

/*
 * One next hop: gateway string @vs (setting @s), optional interface setting
 * @is. @pfx is the route prefix, or NULL when it was invalid.
 */
static void load_nexthop(struct cfg_reader *ld, struct cfg_route *r, const struct cfg_prefix *pfx,
			 const config_setting_t *s, const config_setting_t *is)
{
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_nexthop nh = { .iface = -1 };
	char a[INET6_ADDRSTRLEN];
	const char *v, *ifname = NULL;
	int i, found, own;

	if (cfg_string_value(ld, s, &v) != CFG_VAL_OK)
		return;
	if (is != NULL) {
		if (cfg_string_value(ld, is, &ifname) != CFG_VAL_OK)
			return;
		if ((nh.iface = config_iface_index(cfg, ifname)) < 0) {
			cfg_err(ld, is, "unknown interface '%s'", ifname);
			return;
		}
		if (cfg->ifaces[nh.iface].vrf != r->nh_vrf) {
			cfg_err(ld, is,
				"interface '%s' is in VRF '%s', the next hops in VRF '%s' (a leak "
				"names the other VRF in 'nexthop_vrf')",
				ifname, config_vrf_name(cfg, cfg->ifaces[nh.iface].vrf),
				config_vrf_name(cfg, r->nh_vrf));
			return;
		}
	}
	if (config_parse_addr(v, &nh.via) != 0) {
		cfg_err(ld, s, "'%s' is not a valid IPv4 or IPv6 address", v);
		return;
	}
	if (pfx != NULL && nh.via.family != pfx->addr.family) {
		cfg_err(ld, s, "%s is %s but the prefix is %s", v, cfg_family_name(nh.via.family),
			cfg_family_name(pfx->addr.family));
		return;
	}
	for (i = 0; i < r->nb_nexthops; i++)
		if (cfg_addr_equal(&r->nexthops[i].via, &nh.via) &&
		    (nh.iface < 0 || r->nexthops[i].iface == nh.iface)) {
			cfg_err(ld, s, "duplicate next hop %s", v);
			return;
		}

	found = cfg_find_connected_vrf(cfg, &nh.via, nh.iface, r->nh_vrf, &own);
	if (own >= 0) {
		cfg_err(ld, s, "%s is an address of interface '%s' itself", v,
			cfg->ifaces[own].name);
		return;
	}
	if (cfg_is_link_local6(&nh.via)) {
		/* A link-local gateway lies on every link: only the interface says which. */
		if (nh.iface < 0) {
			cfg_err(ld, s, "link-local gateway %s needs an 'interface' (use next_hops)",
				v);
			return;
		}
		found = nh.iface;
	}
	if (found < 0 && !(ifname ? ld->iface_bad[nh.iface] : cfg_any_iface_bad(ld))) {
		if (ifname)
			cfg_err(ld, s, "%s is not in a connected subnet of interface '%s'",
				config_format_addr(&nh.via, a, sizeof(a)), ifname);
		else
			cfg_err(ld, s, "%s is not in a connected subnet of VRF '%s'",
				config_format_addr(&nh.via, a, sizeof(a)),
				config_vrf_name(cfg, r->nh_vrf));
		return;
	}
	nh.iface = found;
	r->nexthops[r->nb_nexthops++] = nh;
}

/* `via = "A"` or `via = [ "A", "B" ]`. */
static void load_via(struct cfg_reader *ld, struct cfg_route *r, const struct cfg_prefix *pfx,
		     const config_setting_t *via)
{
	int i, n;

	if (config_setting_type(via) == CONFIG_TYPE_STRING) {
		load_nexthop(ld, r, pfx, via, NULL);
		return;
	}
	if (!cfg_is_sequence(via)) {
		cfg_err(ld, via, "expected a string or an array [ ... ] of strings, got %s",
			cfg_type_name(via));
		return;
	}
	n = config_setting_length(via);
	if (n < 1 || n > CFG_MAX_ECMP) {
		cfg_err(ld, via, "%d next hops, expected 1..%d", n, CFG_MAX_ECMP);
		n = n > CFG_MAX_ECMP ? CFG_MAX_ECMP : 0;
	}
	for (i = 0; i < n; i++)
		load_nexthop(ld, r, pfx, config_setting_get_elem(via, i), NULL);
}

/* `next_hops = ( { via = "A"; interface = "lan0"; }, ... )`. */
static void load_next_hops(struct cfg_reader *ld, struct cfg_route *r, const struct cfg_prefix *pfx,
			   const config_setting_t *list)
{
	static const char *const keys[] = { "via", "interface", NULL };
	int i, n;

	if (config_setting_type(list) != CONFIG_TYPE_LIST) {
		cfg_err(ld, list, "expected a list ( { via = ...; }, ... ), got %s",
			cfg_type_name(list));
		return;
	}
	n = config_setting_length(list);
	if (n < 1 || n > CFG_MAX_ECMP) {
		cfg_err(ld, list, "%d next hops, expected 1..%d", n, CFG_MAX_ECMP);
		n = n > CFG_MAX_ECMP ? CFG_MAX_ECMP : 0;
	}
	for (i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(list, i), *via;

		if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
			cfg_err(ld, g, "expected a group { ... }, got %s", cfg_type_name(g));
			continue;
		}
		cfg_check_members(ld, g, keys);
		via = config_setting_get_member(g, "via");
		if (via == NULL) {
			cfg_err_missing(ld, g, "via");
			continue;
		}
		load_nexthop(ld, r, pfx, via, config_setting_get_member(g, "interface"));
	}
}

/* Next hops that features own (route_target_register()). */
#define ROUTE_TARGETS_MAX 4
static struct route_target {
	const char *key;
	int (*resolve)(const struct vbrd_config *cfg, const char *name);
	int (*vrf_of)(const struct vbrd_config *cfg, int idx);
} targets[ROUTE_TARGETS_MAX];
static unsigned nb_targets;

void route_target_register(const char *key,
			   int (*resolve)(const struct vbrd_config *cfg, const char *name),
			   int (*vrf_of)(const struct vbrd_config *cfg, int idx))
{
	if (nb_targets == ROUTE_TARGETS_MAX)
		abort();
	targets[nb_targets++] = (struct route_target){ key, resolve, vrf_of };
}

/* A feature's target named in route @p s: resolved into r, or reported. */
static bool load_target(struct cfg_reader *ld, const config_setting_t *s, struct cfg_route *r,
			bool other)
{
	char path[128];
	const char *v;

	for (unsigned i = 0; i < nb_targets; i++) {
		const config_setting_t *t = config_setting_get_member(s, targets[i].key);
		int idx;

		if (t == NULL)
			continue;
		if (other) {
			cfg_err_at(ld, t, "%s: '%s' excludes 'via', 'next_hops' and 'path_group'",
				   cfg_path(s, path, sizeof(path)), targets[i].key);
			return true;
		}
		if (cfg_string_value(ld, t, &v) != CFG_VAL_OK)
			return true;
		idx = targets[i].resolve(ld->cfg, v);
		if (idx < 0) {
			cfg_err(ld, t, "unknown %s '%s'", targets[i].key, v);
			return true;
		}
		int vrf = targets[i].vrf_of != NULL ? targets[i].vrf_of(ld->cfg, idx) : r->nh_vrf;
		if (vrf >= 0 && vrf != r->nh_vrf) {
			cfg_err(ld, t,
				"%s '%s' is in VRF '%s', the next hops in VRF '%s' (a leak names "
				"the other VRF in 'nexthop_vrf')",
				targets[i].key, v, config_vrf_name(ld->cfg, vrf),
				config_vrf_name(ld->cfg, r->nh_vrf));
			return true;
		}
		r->target_kind = targets[i].key;
		r->target = (uint32_t)idx;
		return true;
	}
	return false;
}

static void load_route(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	const char *keys[7 + ROUTE_TARGETS_MAX] = { "prefix",     "via", "next_hops",
						    "path_group", "vrf", "nexthop_vrf" };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_route *r = &cfg->routes[idx];
	const config_setting_t *pg = config_setting_get_member(s, "path_group");
	const config_setting_t *ps = config_setting_get_member(s, "prefix");
	const config_setting_t *via = config_setting_get_member(s, "via");
	const config_setting_t *nhs = config_setting_get_member(s, "next_hops");
	const struct cfg_prefix *pfx = NULL;
	char path[128], p1[INET6_ADDRSTRLEN + 4];
	const char *v;

	r->line = cfg_line(s);
	r->path_group = -1;
	for (unsigned i = 0; i < nb_targets; i++)
		keys[6 + i] = targets[i].key;
	cfg_check_members(ld, s, keys);
	bool vrf_bad = cfg_get_vrf(ld, s, "vrf", &r->vrf) == CFG_VAL_BAD;
	int rc = cfg_get_vrf(ld, s, "nexthop_vrf", &r->nh_vrf);
	if (rc != CFG_VAL_OK)
		r->nh_vrf = r->vrf;
	vrf_bad |= rc == CFG_VAL_BAD;

	if (ps == NULL) {
		cfg_err_missing(ld, s, "prefix");
	} else if (cfg_string_value(ld, ps, &v) == CFG_VAL_OK) {
		if (config_parse_prefix(v, &r->prefix) != 0) {
			cfg_err(ld, ps,
				"'%s' is not a valid PREFIX/LENGTH (IPv4 /0..32, IPv6 /0..128)", v);
		} else {
			struct cfg_prefix net = { .addr = cfg_prefix_network(&r->prefix),
						  .len = r->prefix.len };

			if (!cfg_addr_equal(&net.addr, &r->prefix.addr)) {
				cfg_err(ld, ps, "%s has host bits set (did you mean %s?)", v,
					config_format_prefix(&net, p1, sizeof(p1)));
				r->prefix = net;
			}
			pfx = &r->prefix;
		}
	}
	/* next hops resolve in a VRF: with its name wrong, every check would be
	 * about the wrong one */
	if (vrf_bad)
		return;
	if (load_target(ld, s, r, pg != NULL || via != NULL || nhs != NULL))
		return;
	if (pg != NULL && (via != NULL || nhs != NULL))
		cfg_err_at(ld, pg, "%s: 'path_group' excludes 'via' and 'next_hops'",
			   cfg_path(s, path, sizeof(path)));
	else if (pg != NULL) {
		if (cfg_string_value(ld, pg, &v) == CFG_VAL_OK &&
		    (r->path_group = config_path_group_index(cfg, v)) < 0)
			cfg_err(ld, pg, "unknown path group '%s'", v);
		else if (r->path_group >= 0 && cfg->path_groups[r->path_group].vrf != r->nh_vrf)
			cfg_err(ld, pg,
				"path group '%s' is in VRF '%s', the next hops in VRF '%s' (a leak "
				"names the other VRF in 'nexthop_vrf')",
				v, config_vrf_name(cfg, cfg->path_groups[r->path_group].vrf),
				config_vrf_name(cfg, r->nh_vrf));
	} else if (via != NULL && nhs != NULL)
		cfg_err_at(ld, nhs, "%s: 'via' and 'next_hops' are mutually exclusive",
			   cfg_path(s, path, sizeof(path)));
	else if (via != NULL)
		load_via(ld, r, pfx, via);
	else if (nhs != NULL)
		load_next_hops(ld, r, pfx, nhs);
	else {
		char more[128] = "";
		for (unsigned i = 0; i < nb_targets; i++)
			snprintf(more + strlen(more), sizeof(more) - strlen(more), ", '%s'",
				 targets[i].key);
		cfg_err_at(ld, s,
			   "%s: missing required setting 'via' (or 'next_hops', 'path_group'%s)",
			   cfg_path(s, path, sizeof(path)), more);
	}
}

/* IPv6 route order for finding duplicates: by prefix, then by line. */
static int route6_cmp(const void *a, const void *b)
{
	const struct cfg_route *x = *(const struct cfg_route *const *)a;
	const struct cfg_route *y = *(const struct cfg_route *const *)b;
	int c = x->vrf - y->vrf;

	if (c == 0)
		c = memcmp(x->prefix.addr.v6, y->prefix.addr.v6, 16);
	if (c == 0)
		c = (int)x->prefix.len - (int)y->prefix.len;
	return c != 0 ? c : x->line - y->line;
}

/* An IPv4 route's sort key: VRF, prefix and length (46 bits); its index below. */
struct route_key {
	uint64_t key;
	uint32_t idx;
};

/*
 * LSD radix sort of @p n keys on their 46 key bits, five 10-bit digits:
 * O(n), and stable, so routes of one prefix stay in file order (qsort with
 * a comparator was a tenth of loading a million routes).
 */
static int radix_sort(struct route_key *v, uint32_t n)
{
	enum { BITS = 10, BUCKETS = 1 << BITS };
	struct route_key *tmp = malloc(sizeof(*tmp) * (size_t)(n + 1)), *src = v, *dst = tmp;
	uint32_t count[BUCKETS];

	if (tmp == NULL)
		return -ENOMEM;
	for (int shift = 0; shift < 50; shift += BITS) {
		memset(count, 0, sizeof(count));
		for (uint32_t i = 0; i < n; i++)
			count[(src[i].key >> shift) & (BUCKETS - 1)]++;
		for (uint32_t b = 0, sum = 0; b < BUCKETS; b++) {
			uint32_t c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & (BUCKETS - 1)]++] = src[i];
		struct route_key *x = src;
		src = dst;
		dst = x;
	}
	/* an odd number of passes: the result is in tmp */
	memcpy(v, src, sizeof(*v) * n);
	free(tmp);
	return 0;
}

static void report_duplicate(struct cfg_reader *ld, const struct cfg_route *r,
			     const struct cfg_route *first)
{
	char p[INET6_ADDRSTRLEN + 4], text[256];

	if (r->vrf == CFG_VRF_DEFAULT)
		snprintf(text, sizeof(text), "duplicate route %s (first at line %d)",
			 config_format_prefix(&r->prefix, p, sizeof(p)), first->line);
	else
		snprintf(text, sizeof(text), "duplicate route %s in VRF '%s' (first at line %d)",
			 config_format_prefix(&r->prefix, p, sizeof(p)),
			 config_vrf_name(ld->cfg, r->vrf), first->line);
	cfg_msg(ld, ld->file, r->line, text);
}

/*
 * Duplicate prefixes, found by sorting: IPv4 by a radix sort (O(n)), IPv6
 * with qsort (O(n log n)): a full table of a million routes must load in
 * well under a second of this.
 */
static int check_duplicate_routes(struct cfg_reader *ld)
{
	struct vbrd_config *cfg = ld->cfg;
	struct route_key *k4;
	const struct cfg_route **v6;
	uint32_t n4 = 0, n6 = 0;

	k4 = malloc(sizeof(*k4) * (size_t)(cfg->nb_routes + 1));
	v6 = malloc(sizeof(*v6) * (size_t)(cfg->nb_routes + 1));
	if (k4 == NULL || v6 == NULL) {
		free(k4);
		free(v6);
		return -ENOMEM;
	}
	/* routes whose prefix was invalid (family 0) are skipped */
	for (int i = 0; i < cfg->nb_routes; i++) {
		const struct cfg_route *r = &cfg->routes[i];
		if (r->prefix.addr.family == AF_INET)
			k4[n4++] = (struct route_key){ (uint64_t)r->vrf << 38 |
							       (uint64_t)r->prefix.addr.v4 << 6 |
							       r->prefix.len,
						       (uint32_t)i };
		else if (r->prefix.addr.family == AF_INET6)
			v6[n6++] = r;
	}
	if (radix_sort(k4, n4) < 0) {
		free(k4);
		free(v6);
		return -ENOMEM;
	}
	for (uint32_t i = 1, first = 0; i < n4; i++) {
		if (k4[i].key == k4[first].key)
			report_duplicate(ld, &cfg->routes[k4[i].idx], &cfg->routes[k4[first].idx]);
		else
			first = i;
	}
	qsort(v6, n6, sizeof(*v6), route6_cmp);
	for (uint32_t i = 1, first = 0; i < n6; i++) {
		if (v6[i]->vrf == v6[first]->vrf && v6[i]->prefix.len == v6[first]->prefix.len &&
		    memcmp(v6[i]->prefix.addr.v6, v6[first]->prefix.addr.v6, 16) == 0)
			report_duplicate(ld, v6[i], v6[first]);
		else
			first = i;
	}
	free(k4);
	free(v6);
	return 0;
}

static void bad_route(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->routes[idx].line = cfg_line(s);
	ld->cfg->routes[idx].path_group = -1;
}

static int load_routes(struct cfg_reader *ld, const config_setting_t *root)
{
	static const struct cfg_list_spec spec = {
		"routes", 0, 0, false, sizeof(struct cfg_route), load_route, bad_route,
	};
	int rc = cfg_load_list(ld, root, &spec, (void **)&ld->cfg->routes, &ld->cfg->nb_routes);

	return rc < 0 ? rc : check_duplicate_routes(ld);
}

static int routes_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	(void)cfg;
	return load_routes(ld, root);
}

static void routes_free(struct vbrd_config *cfg)
{
	free(cfg->routes);
}

static struct config_section routes_section = {
	.name = "routes",
	.after = (const char *const[]){ "interfaces", "tunnels", "vrfs", NULL },
	.load = routes_load,
	.free = routes_free,
};
CONFIG_SECTION(routes_section);
