/* SPDX-License-Identifier: BSD-3-Clause */
/* `vbrctl show interfaces` and `show routes` (module "fwd_show"). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>

#include <rte_fib.h>
#include <rte_fib6.h>

#include <rte_ether.h>

#include "core/ctl.h"
#include "core/tsc.h"
#include "core/module.h"
#include "pipeline/nh_kind.h"
#include "pipeline/l2.h"
#include "pipeline/fwd.h"
#include "pipeline/worker.h"

static char *fmt_prefix(const struct cfg_prefix *p, char *buf, size_t len)
{
	char a[64];
	snprintf(buf, len, "%s/%u", config_format_addr(&p->addr, a, sizeof(a)), p->len);
	return buf;
}

static int show_interfaces(int argc, const char *const *argv, json_t **data, char *err,
			   size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	static struct worker_stats s;
	json_t *arr = json_array();
	char mac[RTE_ETHER_ADDR_FMT_SIZE], buf[80];

	(void)argc, (void)argv, (void)err, (void)errlen;
	worker_stats_sum(&s);
	for (int i = 0; i < st->nb_ifaces; i++) {
		const struct fwd_iface *fi = &st->ifaces[i];
		const struct iface_counters *c = &s.iface[fi->slot];
		json_t *addrs = json_array();

		for (int a = 0; a < fi->nb_addrs; a++)
			json_array_append_new(
				addrs, json_string(fmt_prefix(&fi->addrs[a], buf, sizeof(buf))));
		json_array_append_new(
			arr,
			json_pack("{s:s, s:s, s:s, s:i, s:s, s:i, s:o, s:I, s:I, s:I, s:I}", "name",
				  fi->name, "vrf", st->vrfs[fi->vrf].name, "port",
				  fi->port == FWD_NO_PORT
					  ? ""
					  : st->cfg.ports[st->cfg.ifaces[i].port].name,
				  "vlan", fi->vlan, "mac", l2_mac_str(&fi->mac, mac), "mtu",
				  fi->mtu, "addresses", addrs, "rx_packets",
				  (json_int_t)c->rx_packets, "rx_bytes", (json_int_t)c->rx_bytes,
				  "tx_packets", (json_int_t)c->tx_packets, "tx_bytes",
				  (json_int_t)c->tx_bytes));
	}
	*data = json_pack("{s:o}", "interfaces", arr);
	return 0;
}

/* A next hop; one of another VRF than @p vrf (a leak, nexthop_vrf) names that VRF too. */
static json_t *nexthop_json(const struct fwd_state *st, const struct cfg_nexthop *nh, int vrf)
{
	char a[64] = "";

	if (nh->via.family)
		config_format_addr(&nh->via, a, sizeof(a));
	json_t *o = json_pack("{s:s, s:s}", "via", a, "interface", st->ifaces[nh->iface].name);
	int v = st->ifaces[nh->iface].vrf;
	if (vrf >= 0 && v != vrf && o != NULL)
		json_object_set_new(o, "vrf", json_string(st->vrfs[v].name));
	return o;
}

/*
 * The next hops of FIB value @p value: a next hop, an ECMP set's members, a
 * path group; those of another VRF than @p vrf (-1: none is) name it.
 */
static json_t *value_json(const struct fwd_state *st, uint32_t value, int vrf)
{
	uint32_t idx = FIB_NH_INDEX(value);
	json_t *nhs = json_array();

	const struct fwd_nh_kind *k = fwd_nh_kinds[FIB_NH_KIND(value)];
	if (k != NULL && k->object_name != NULL) {
		const char *name = k->object_name(st, idx);
		json_array_append_new(
			nhs, json_pack("{s:s, s:s}", "via", "", "interface", name ? name : ""));
		return nhs;
	}
	if (FIB_NH_KIND(value) == FIB_KIND_PATHGRP) {
		json_array_append_new(
			nhs,
			json_pack("{s:s, s:s}", "via", "", "interface",
				  (int)idx < st->nb_path_groups ? st->path_groups[idx].name : ""));
		return nhs;
	}
	uint16_t one = (uint16_t)idx;
	const uint16_t *ids = &one;
	int n = 1;
	if (FIB_NH_KIND(value) == FIB_KIND_ECMP) {
		ids = st->ecmp[idx].nh;
		n = st->ecmp[idx].nb;
	}
	for (int k = 0; k < n; k++) {
		const struct fwd_nexthop *nh = &st->nexthops[ids[k]];
		struct cfg_nexthop c = { .iface = nh->iface };

		static const uint8_t zero[16];

		/* a connected next hop (no gateway) shows "" */
		c.via.family = nh->family == AF_INET            ? (nh->gw ? AF_INET : 0)
			       : memcmp(nh->gw6, zero, 16) != 0 ? AF_INET6
								: 0;
		if (nh->family == AF_INET)
			c.via.v4 = nh->gw;
		else
			memcpy(c.via.v6, nh->gw6, 16);
		json_array_append_new(nhs, nexthop_json(st, &c, vrf));
	}
	return nhs;
}

/*
 * `show routes [CURSOR]`: the table in pages, each built in at most
 * ROUTES_PAGE_NS of the main loop (or ROUTES_PAGE_MAX rows), so that a
 * million routes never hold the loop (and the commands of others, the
 * ARP answers) for seconds. A page that is not the last carries `cursor`,
 * "GENERATION:ROW", which the next request gives back; vbrctl reads every
 * page and prints them as one table. A reload between two pages makes the
 * cursor stale: refused, read again.
 */
#define ROUTES_PAGE_NS  1000000u /* 1 ms: as long again to serialise it */
#define ROUTES_PAGE_MAX 8192u

/* The connected and local routes of every address of VRF @p vrf's interfaces: rows 0..2n-1. */
static json_t *iface_route_json(const struct fwd_state *st, int vrf, uint32_t row)
{
	char buf[80];

	for (int i = 0; i < st->cfg.nb_ifaces; i++) {
		const struct cfg_iface *ci = &st->cfg.ifaces[i];
		if (ci->vrf != vrf)
			continue;
		if (row >= 2u * (uint32_t)ci->nb_addrs) {
			row -= 2u * (uint32_t)ci->nb_addrs;
			continue;
		}
		struct cfg_prefix p = ci->addrs[row / 2];
		bool local = row % 2 == 1;
		if (local)
			p.len = p.addr.family == AF_INET ? 32 : 128;
		else if (p.addr.family == AF_INET)
			p.addr.v4 &= p.len ? ~0u << (32 - p.len) : 0;
		else
			for (int b = p.len; b < 128; b++)
				p.addr.v6[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
		struct cfg_nexthop nh = { .iface = i };
		return json_pack("{s:s, s:s, s:s, s:[o]}", "prefix",
				 fmt_prefix(&p, buf, sizeof(buf)), "type",
				 local ? "local" : "connected", "source", "interface", "next_hops",
				 nexthop_json(st, &nh, -1));
	}
	return NULL;
}

/* Static route @p r of VRF @p vrf's route table (sorted, IPv4 first), or NULL if not static. */
static json_t *static_route_json(const struct fwd_state *st, int vrf, uint32_t r)
{
	const struct fib_table *t = &st->vrfs[vrf].routes;
	bool v4 = r < t->nb4;
	const struct fib_route4 *r4 = v4 ? &t->v4[r] : NULL;
	const struct fib_route6 *r6 = v4 ? NULL : &t->v6[r - t->nb4];
	uint8_t flags = v4 ? r4->flags : r6->flags;
	uint32_t value = v4 ? r4->value : r6->value;
	struct cfg_prefix p = { .len = v4 ? r4->len : r6->len };
	char buf[80];

	if (!(flags & FIB_ROUTE_STATIC))
		return NULL;
	p.addr.family = v4 ? AF_INET : AF_INET6;
	if (v4)
		p.addr.v4 = r4->addr;
	else
		memcpy(p.addr.v6, r6->addr, 16);
	return json_pack("{s:s, s:s, s:s, s:o}", "prefix", fmt_prefix(&p, buf, sizeof(buf)), "type",
			 fwd_nh_kinds[FIB_NH_KIND(value)] ? fwd_nh_kinds[FIB_NH_KIND(value)]->name
							  : "static",
			 "source", "config", "next_hops", value_json(st, value, vrf));
}

/* The routing protocol of an overlay route (rtnetlink's RTPROT_* numbers, as zebra sets them). */
static const char *protocol_name(uint8_t p, char *buf, size_t len)
{
	switch (p) {
	case 186:
		return "bgp";
	case 188:
		return "ospf";
	case 189:
		return "isis";
	case 196:
		return "static";
	case 11:
		return "zebra";
	case 2:
		return "kernel";
	default:
		snprintf(buf, len, "protocol %u", p);
		return buf;
	}
}

/* Row @p row of the overlay (routes from FRR) if of VRF @p vrf, or NULL. */
static json_t *overlay_route_json(const struct fwd_state *st, int vrf, const struct fib_overlay *ov,
				  uint32_t row)
{
	struct fib_overlay_route r;
	struct cfg_prefix p = { 0 };
	char buf[80], pb[24], src[48];

	if (!ov->row(row, &r) || r.table != st->vrfs[vrf].table)
		return NULL;
	p.len = r.len;
	p.addr.family = r.family;
	if (r.family == AF_INET)
		memcpy(&p.addr.v4, r.addr, 4);
	else
		memcpy(p.addr.v6, r.addr, 16);
	snprintf(src, sizeof(src), "%s%s", protocol_name(r.protocol, pb, sizeof(pb)),
		 r.pending  ? " (no usable next hop)"
		 : r.full   ? " (not in the FIB: full)"
		 : r.active ? ""
			    : " (config wins)");
	uint32_t kind = FIB_NH_KIND(r.value);
	return json_pack("{s:s, s:s, s:s, s:o}", "prefix", fmt_prefix(&p, buf, sizeof(buf)), "type",
			 r.pending               ? "pending"
			 : fwd_nh_kinds[kind]    ? fwd_nh_kinds[kind]->name
			 : kind == FIB_KIND_NONE ? "blackhole"
						 : "route",
			 "source", src, "next_hops",
			 kind == FIB_KIND_NONE ? json_array() : value_json(st, r.value, vrf));
}

/* Decimal digits into @p v (no sign, no space, no overflow). @return chars read, or -1. */
static int parse_u64(const char *s, uint64_t *v)
{
	int i;

	*v = 0;
	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (*v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return i > 0 ? i : -1;
}

/* A cursor "GENERATION:ROW", strictly. @return 0 or -EINVAL. */
static int parse_cursor(const char *s, uint64_t *gen, uint64_t *row)
{
	int n = parse_u64(s, gen), m;

	if (n < 0 || s[n] != ':')
		return -EINVAL;
	m = parse_u64(s + n + 1, row);
	return m < 0 || s[n + 1 + m] != '\0' ? -EINVAL : 0;
}

/* The VRF named @p name of @p st, or -1 with a message in @p err. */
static int vrf_arg(const struct fwd_state *st, const char *name, char *err, size_t errlen)
{
	int v = fwd_vrf_find(st, name);

	if (v < 0)
		snprintf(err, errlen, "no VRF '%.40s' (show vrfs lists them)", name);
	return v;
}

/* One page of VRF @p vrf's routes; @p argc 0 or 1 (the cursor). */
static int routes_page(const struct fwd_state *st, int vrf, int argc, const char *const *argv,
		       json_t **data, char *err, size_t errlen)
{
	uint64_t gen = st->generation, t0 = tsc_now_ns();
	uint32_t row = 0, nif = 0, total, n = 0;
	const struct fib_table *t = &st->vrfs[vrf].routes;

	if (argc == 1) {
		uint64_t g, r;
		if (parse_cursor(argv[0], &g, &r) < 0 || r > UINT32_MAX) {
			snprintf(err, errlen, "show routes: cursor '%.40s' is not GENERATION:ROW",
				 argv[0]);
			return -EINVAL;
		}
		if (g != gen) {
			snprintf(err, errlen,
				 "show routes: the routes changed (reload to generation %" PRIu64
				 ") since the first page: read them again",
				 gen);
			return -ESTALE;
		}
		row = (uint32_t)r;
	}
	for (int i = 0; i < st->cfg.nb_ifaces; i++)
		if (st->cfg.ifaces[i].vrf == vrf)
			nif += 2u * (uint32_t)st->cfg.ifaces[i].nb_addrs;
	total = nif + t->nb4 + t->nb6;
	const struct fib_overlay *ov = fib_overlay_get();
	uint32_t cfg_rows = total;
	if (ov != NULL)
		total += ov->rows();

	json_t *arr = json_array();
	/* the time is looked at every 64 rows walked, not shown: a VRF's few
	 * routes among FRR's million of other VRFs take pages too */
	for (uint32_t walked = 0; row < total; row++, walked++) {
		if (n == ROUTES_PAGE_MAX ||
		    (walked % 64 == 63 && tsc_now_ns() - t0 > ROUTES_PAGE_NS))
			break;
		json_t *o = row < nif        ? iface_route_json(st, vrf, row)
			    : row < cfg_rows ? static_route_json(st, vrf, row - nif)
					     : overlay_route_json(st, vrf, ov, row - cfg_rows);
		if (o != NULL) {
			json_object_set_new(o, "vrf", json_string(st->vrfs[vrf].name));
			json_array_append_new(arr, o);
			n++;
		}
	}
	*data = json_pack("{s:o, s:I}", "routes", arr, "generation", (json_int_t)gen);
	if (row < total) {
		char cursor[48];
		snprintf(cursor, sizeof(cursor), "%" PRIu64 ":%" PRIu32, gen, row);
		json_object_set_new(*data, "cursor", json_string(cursor));
	}
	return 0;
}

static int show_routes(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	return routes_page(atomic_load(&fwd_current), CFG_VRF_DEFAULT, argc, argv, data, err,
			   errlen);
}

static int show_routes_vrf(int argc, const char *const *argv, json_t **data, char *err,
			   size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	int v = vrf_arg(st, argv[0], err, errlen);

	return v < 0 ? -ENOENT : routes_page(st, v, argc - 1, argv + 1, data, err, errlen);
}

/* The FIB lookup of ADDRESS (@p addr) in VRF @p vrf, and the route it comes from. */
static int fib_lookup_show(const struct fwd_state *st, int vrf, const char *addr, json_t **data,
			   char *err, size_t errlen)
{
	const struct fwd_vrf *fv = &st->vrfs[vrf];
	struct cfg_addr a;
	struct cfg_prefix p = { 0 };
	uint64_t value = FIB_NH(FIB_KIND_NONE, 0);
	bool found = false;
	const struct fib_overlay *ov = fib_overlay_get();
	const char *source = "";
	struct fib_overlay_route ovr;
	char buf[80] = "", pb[24];

	if (config_parse_addr(addr, &a) != 0) {
		snprintf(err, errlen, "'%s' is not an IPv4 or IPv6 address", addr);
		return -EINVAL;
	}
	p.addr = a;
	if (a.family == AF_INET) {
		rte_fib_lookup_bulk(fv->fib, &a.v4, &value, 1);
		for (int len = 32; len >= 0 && !found; len--) {
			uint32_t net = len ? a.v4 & ~0u << (32 - len) : 0;
			const struct fib_route4 *r = fib_table_find4(&fv->routes, net,
								     (uint8_t)len);
			if (r != NULL || (ov != NULL &&
					  ov->route(fv->table, AF_INET, &net, (uint8_t)len, &ovr) &&
					  ovr.active)) {
				p.addr.v4 = net;
				p.len = (uint8_t)len;
				found = true;
				source = r == NULL ? protocol_name(ovr.protocol, pb, sizeof(pb))
					 : r->flags & FIB_ROUTE_STATIC ? "config"
								       : "interface";
			}
		}
	} else {
		uint8_t ip[16];
		memcpy(ip, a.v6, 16);
		rte_fib6_lookup_bulk(fv->fib6, &ip, &value, 1);
		for (int len = 128; len >= 0 && !found; len--) {
			const struct fib_route6 *r = fib_table_find6(&fv->routes, a.v6,
								     (uint8_t)len);
			uint8_t net[16];
			memcpy(net, a.v6, 16);
			for (int b = len; b < 128; b++)
				net[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
			if (r != NULL || (ov != NULL &&
					  ov->route(fv->table, AF_INET6, net, (uint8_t)len, &ovr) &&
					  ovr.active)) {
				memcpy(p.addr.v6, net, 16);
				p.len = (uint8_t)len;
				found = true;
				source = r == NULL ? protocol_name(ovr.protocol, pb, sizeof(pb))
					 : r->flags & FIB_ROUTE_STATIC ? "config"
								       : "interface";
			}
		}
	}
	static const char *const kinds[] = { "next_hop",   "ecmp",      "local", "none",
					     "path_group", "broadcast", "kind6", "kind7" };
	uint32_t kind = FIB_NH_KIND(value);
	json_t *nhs = kind == FIB_KIND_NEXTHOP || kind == FIB_KIND_ECMP || fwd_nh_kinds[kind]
			      ? value_json(st, (uint32_t)value, vrf)
			      : json_array();
	*data = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o}", "address", addr, "vrf", fv->name,
			  "prefix", found ? fmt_prefix(&p, buf, sizeof(buf)) : "", "source", source,
			  "type", fwd_nh_kinds[kind] ? fwd_nh_kinds[kind]->name : kinds[kind & 7],
			  "value", (json_int_t)value, "next_hops", nhs);
	return 0;
}

static int show_fib(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc;
	return fib_lookup_show(atomic_load(&fwd_current), CFG_VRF_DEFAULT, argv[0], data, err,
			       errlen);
}

static int show_fib_vrf(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	int v = vrf_arg(st, argv[0], err, errlen);

	(void)argc;
	return v < 0 ? -ENOENT : fib_lookup_show(st, v, argv[1], data, err, errlen);
}

/* `show vrfs`: each VRF's table id, interfaces, routes, FIB size and memory, traffic. */
static int show_vrfs(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct fib_overlay *ov = fib_overlay_get();
	static struct worker_stats s;
	json_t *arr = json_array();

	(void)argc, (void)argv, (void)err, (void)errlen;
	worker_stats_sum(&s);
	for (int v = 0; v < st->nb_vrfs; v++) {
		const struct fwd_vrf *fv = &st->vrfs[v];
		const struct fib_capacity *cap = &fv->fibs->cap;
		uint32_t o4 = 0, o6 = 0;
		uint64_t rx = 0, tx = 0, no_route = 0;
		if (ov != NULL)
			ov->count(fv->table, &o4, &o6);
		for (int i = 0; i < st->nb_ifaces; i++)
			if (st->ifaces[i].vrf == v) {
				rx += s.iface[st->ifaces[i].slot].rx_packets;
				tx += s.iface[st->ifaces[i].slot].tx_packets;
				no_route += s.iface_no_route[st->ifaces[i].slot];
			}
		json_array_append_new(
			arr,
			json_pack("{s:s, s:I, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
				  "s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
				  "name", fv->name, "table", (json_int_t)fv->table, "interfaces",
				  (int)fv->nb_ifaces, "routes4", (json_int_t)fv->routes.nb4,
				  "routes6", (json_int_t)fv->routes.nb6, "static4",
				  (json_int_t)fv->nb_routes4, "static6", (json_int_t)fv->nb_routes6,
				  "frr4", (json_int_t)o4, "frr6", (json_int_t)o6, "fib_bytes",
				  (json_int_t)fib_pair_memsize(cap, 0), "fib_routes4",
				  (json_int_t)cap->routes4, "fib_tbl8_4", (json_int_t)cap->tbl8_4,
				  "fib_routes6", (json_int_t)cap->routes6, "fib_tbl8_6",
				  (json_int_t)cap->tbl8_6, "rx_packets", (json_int_t)rx,
				  "tx_packets", (json_int_t)tx, "no_route", (json_int_t)no_route));
	}
	*data = json_pack("{s:o}", "vrfs", arr);
	return 0;
}

static int fwd_show_start(void)
{
	ctl_register("show interfaces", "interfaces, addresses and counters", show_interfaces);
	ctl_register("show routes",
		     "show routes [CURSOR]: connected, local and static routes, and FRR's "
		     "(source), in pages: "
		     "a page's `cursor` is the CURSOR of the next (vbrctl reads them all)",
		     show_routes);
	ctl_register("show routes vrf", "show routes vrf NAME [CURSOR]: show routes, of VRF NAME",
		     show_routes_vrf);
	ctl_register("show fib",
		     "show fib ADDRESS: the FIB lookup of ADDRESS in the VRF default, as the data "
		     "path does it",
		     show_fib);
	ctl_register("show fib vrf",
		     "show fib vrf NAME ADDRESS: the FIB lookup of ADDRESS in VRF NAME",
		     show_fib_vrf);
	ctl_register("show vrfs",
		     "VRFs: table id, interfaces, routes (interface and config, FRR's), FIB "
		     "capacity and memory, packets",
		     show_vrfs);
	ctl_export("show interfaces", "/vbrd/interfaces", "vbrd interfaces");
	ctl_export("show vrfs", "/vbrd/vrfs", "vbrd VRFs");
	return 0;
}

static struct vbrd_module fwd_show_module = {
	.name = "fwd_show",
	.depends_on = (const char *const[]){ "workers", NULL },
	.start = fwd_show_start,
};
VBRD_MODULE(fwd_show_module);
