/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `vbrctl show ...` and `vbrctl reload`: the control commands over the
 * forwarding state. Key names are the contract documented in app/README.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "pipeline/control.h"
#include "app/ctl.h"
#include "pipeline/fwd.h"
#include "pipeline/nd.h"
#include "pipeline/neigh.h"
#include "app/vbrd.h"
#include "pipeline/worker.h"

static char *fmt_mac(const struct rte_ether_addr *a, char *buf)
{
	rte_ether_format_addr(buf, RTE_ETHER_ADDR_FMT_SIZE, a);
	return buf;
}

static char *fmt_prefix(const struct cfg_prefix *p, char *buf, size_t len)
{
	char a[64];
	snprintf(buf, len, "%s/%u", config_format_addr(&p->addr, a, sizeof(a)), p->len);
	return buf;
}

/* Sum of every worker's and the control thread's counters. */
static void stats_sum(struct worker_stats *s)
{
	memcpy(s, &control_stats, sizeof(*s));
	for (unsigned w = 0; w < dp.nb_workers; w++) {
		const struct worker_stats *ws = &dp.workers[w].stats;
		s->rx_packets += ws->rx_packets;
		s->tx_packets += ws->tx_packets;
		s->forwarded += ws->forwarded;
		s->local += ws->local;
		s->to_control += ws->to_control;
		s->icmp_errors += ws->icmp_errors;
		s->icmp_rate_limited += ws->icmp_rate_limited;
		s->icmp_suppressed_broadcast += ws->icmp_suppressed_broadcast;
		s->fragments += ws->fragments;
		for (unsigned r = 0; r < drop_reason_count(); r++)
			s->drops[r] += ws->drops[r];
		for (int i = 0; i < VBRD_MAX_IFACE_SLOTS; i++) {
			s->iface[i].rx_packets += ws->iface[i].rx_packets;
			s->iface[i].rx_bytes += ws->iface[i].rx_bytes;
			s->iface[i].tx_packets += ws->iface[i].tx_packets;
			s->iface[i].tx_bytes += ws->iface[i].tx_bytes;
		}
	}
}

static int show_stats(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	static struct worker_stats s;
	uint64_t total = 0;

	(void)argc, (void)argv, (void)err, (void)errlen;
	stats_sum(&s);
	json_t *drops = json_object();
	for (unsigned r = 0; r < drop_reason_count(); r++) {
		json_object_set_new(drops, drop_reason_get(r)->name,
				    json_integer((json_int_t)s.drops[r]));
		total += s.drops[r];
	}
	json_t *workers = json_array();
	for (unsigned i = 0; i < dp.nb_workers; i++) {
		const struct worker *w = &dp.workers[i];
		json_array_append_new(workers,
				      json_pack("{s:i, s:i, s:i, s:I, s:I}", "id", (int)w->id,
						"lcore", (int)w->lcore, "rx_queues", (int)w->nb_rxq,
						"rx_packets", (json_int_t)w->stats.rx_packets,
						"tx_packets", (json_int_t)w->stats.tx_packets));
	}
	*data = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:o}", "rx_packets",
			  (json_int_t)s.rx_packets, "tx_packets", (json_int_t)s.tx_packets,
			  "forwarded", (json_int_t)s.forwarded, "local", (json_int_t)s.local,
			  "to_control", (json_int_t)s.to_control, "icmp_errors",
			  (json_int_t)s.icmp_errors, "icmp_rate_limited",
			  (json_int_t)s.icmp_rate_limited, "fragments", (json_int_t)s.fragments,
			  "drops", drops, "drops_total", (json_int_t)total, "workers", workers);
	json_object_set_new(*data, "icmp_suppressed_broadcast",
			    json_integer((json_int_t)s.icmp_suppressed_broadcast));
	return 0;
}

static int show_drops(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	static struct worker_stats s;
	json_t *arr = json_array();

	(void)argc, (void)argv, (void)err, (void)errlen;
	stats_sum(&s);
	for (unsigned r = 0; r < drop_reason_count(); r++) {
		const struct drop_reason *d = drop_reason_get(r);
		json_array_append_new(arr, json_pack("{s:s, s:I, s:s, s:s}", "reason", d->name,
						     "packets", (json_int_t)s.drops[r], "feature",
						     d->feature, "meaning", d->help));
	}
	*data = json_pack("{s:o}", "drops", arr);
	return 0;
}

static int show_ports(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	json_t *arr = json_array();
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	(void)argc, (void)argv, (void)err, (void)errlen;
	for (int i = 0; i < app.nb_ports; i++) {
		const struct vbrd_port *p = &app.ports[i];
		struct rte_eth_stats es = { 0 };
		struct rte_eth_link link = { 0 };

		rte_eth_stats_get(p->id, &es);
		rte_eth_link_get_nowait(p->id, &link);
		json_array_append_new(
			arr,
			json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:I, s:I, s:I, "
				  "s:I, s:I, s:I, s:I}",
				  "name", p->name, "id", p->id, "driver", p->driver, "devargs",
				  p->devargs, "mac", fmt_mac(&p->mac, mac), "mtu", p->mtu, "link",
				  link.link_status ? "up" : "down", "rx_queues", p->nb_rxq,
				  "tx_queues", p->nb_txq, "rx_packets", (json_int_t)es.ipackets,
				  "rx_bytes", (json_int_t)es.ibytes, "tx_packets",
				  (json_int_t)es.opackets, "tx_bytes", (json_int_t)es.obytes,
				  "rx_missed", (json_int_t)es.imissed, "rx_errors",
				  (json_int_t)es.ierrors, "tx_errors", (json_int_t)es.oerrors));
	}
	*data = json_pack("{s:o}", "ports", arr);
	return 0;
}

static int show_interfaces(int argc, const char *const *argv, json_t **data, char *err,
			   size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	static struct worker_stats s;
	json_t *arr = json_array();
	char mac[RTE_ETHER_ADDR_FMT_SIZE], buf[80];

	(void)argc, (void)argv, (void)err, (void)errlen;
	stats_sum(&s);
	for (int i = 0; i < st->nb_ifaces; i++) {
		const struct fwd_iface *fi = &st->ifaces[i];
		const struct iface_counters *c = &s.iface[fi->slot];
		json_t *addrs = json_array();

		for (int a = 0; a < fi->nb_addrs; a++)
			json_array_append_new(
				addrs, json_string(fmt_prefix(&fi->addrs[a], buf, sizeof(buf))));
		json_array_append_new(
			arr,
			json_pack("{s:s, s:s, s:i, s:s, s:i, s:o, s:I, s:I, s:I, s:I}", "name",
				  fi->name, "port",
				  fi->port == FWD_NO_PORT
					  ? ""
					  : st->cfg.ports[st->cfg.ifaces[i].port].name,
				  "vlan", fi->vlan, "mac", fmt_mac(&fi->mac, mac), "mtu", fi->mtu,
				  "addresses", addrs, "rx_packets", (json_int_t)c->rx_packets,
				  "rx_bytes", (json_int_t)c->rx_bytes, "tx_packets",
				  (json_int_t)c->tx_packets, "tx_bytes", (json_int_t)c->tx_bytes));
	}
	*data = json_pack("{s:o}", "interfaces", arr);
	return 0;
}

static json_t *nexthop_json(const struct fwd_state *st, const struct cfg_nexthop *nh)
{
	char a[64] = "";

	if (nh->via.family)
		config_format_addr(&nh->via, a, sizeof(a));
	return json_pack("{s:s, s:s}", "via", a, "interface", st->cfg.ifaces[nh->iface].name);
}

static int show_routes(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	json_t *arr = json_array();
	char buf[80];

	(void)argc, (void)argv, (void)err, (void)errlen;
	for (int i = 0; i < st->cfg.nb_ifaces; i++) {
		const struct cfg_iface *ci = &st->cfg.ifaces[i];
		for (int a = 0; a < ci->nb_addrs; a++) {
			struct cfg_prefix net = ci->addrs[a], host = ci->addrs[a];
			if (net.addr.family == AF_INET)
				net.addr.v4 &= net.len ? ~0u << (32 - net.len) : 0;
			else
				for (int b = net.len; b < 128; b++)
					net.addr.v6[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
			host.len = net.addr.family == AF_INET ? 32 : 128;
			struct cfg_nexthop nh = { .iface = i };
			json_array_append_new(arr, json_pack("{s:s, s:s, s:[o]}", "prefix",
							     fmt_prefix(&net, buf, sizeof(buf)),
							     "type", "connected", "next_hops",
							     nexthop_json(st, &nh)));
			json_array_append_new(arr, json_pack("{s:s, s:s, s:[o]}", "prefix",
							     fmt_prefix(&host, buf, sizeof(buf)),
							     "type", "local", "next_hops",
							     nexthop_json(st, &nh)));
		}
	}
	for (int r = 0; r < st->cfg.nb_routes; r++) {
		const struct cfg_route *cr = &st->cfg.routes[r];
		json_t *nhs = json_array();
		for (int k = 0; k < cr->nb_nexthops; k++)
			json_array_append_new(nhs, nexthop_json(st, &cr->nexthops[k]));
		if (cr->path_group >= 0)
			json_array_append_new(nhs,
					      json_pack("{s:s, s:s}", "via", "", "interface",
							st->cfg.path_groups[cr->path_group].name));
		json_array_append_new(arr,
				      json_pack("{s:s, s:s, s:o}", "prefix",
						fmt_prefix(&cr->prefix, buf, sizeof(buf)), "type",
						cr->path_group >= 0 ? "path_group" : "static",
						"next_hops", nhs));
	}
	*data = json_pack("{s:o}", "routes", arr);
	return 0;
}

static int show_neighbors(int argc, const char *const *argv, json_t **data, char *err,
			  size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	uint64_t now = control_now_ms();
	json_t *arr = json_array();

	(void)argc, (void)argv, (void)err, (void)errlen;
	for (unsigned i = 0; i < neigh_tbl.high; i++) {
		const struct neigh *n = &neigh_tbl.entries[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE] = "", ip[64];
		const char *ifname = "?";
		uint64_t v;

		if (!n->in_use)
			continue;
		if (n->key.port < st->nb_port_ids &&
		    st->iface_by_vlan[n->key.port][n->key.vlan] != FWD_NO_IFACE)
			ifname = st->ifaces[st->iface_by_vlan[n->key.port][n->key.vlan]].name;
		v = atomic_load(&n->mac);
		if (v) {
			struct rte_ether_addr e;
			neigh_mac_to_ether(v, &e);
			fmt_mac(&e, mac);
		}
		struct cfg_addr a = { .family = (int)n->key.family };
		if (n->key.family == AF_INET)
			a.v4 = n->key.ip.v4;
		else
			memcpy(a.v6, n->key.ip.v6, 16);
		json_array_append_new(
			arr,
			json_pack("{s:s, s:s, s:s, s:s, s:I, s:i}", "interface", ifname, "address",
				  config_format_addr(&a, ip, sizeof(ip)), "mac", mac, "state",
				  neigh_state_name(n->state), "age_s",
				  (json_int_t)(n->updated_ms ? (now - n->updated_ms) / 1000 : 0),
				  "held_packets", n->nb_held));
	}
	*data = json_pack("{s:o}", "neighbors", arr);
	return 0;
}

static int show_mempool(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	*data = json_pack("{s:s, s:i, s:i, s:i}", "name", dp.pool->name, "size", dp.pool->size,
			  "in_use", rte_mempool_in_use_count(dp.pool), "available",
			  rte_mempool_avail_count(dp.pool));
	return 0;
}

static int show_config(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	char when[64];

	(void)argc, (void)argv, (void)err, (void)errlen;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&st->loaded_at));
	*data = json_pack("{s:s, s:I, s:s, s:I, s:I, s:s}", "file", app.config_file, "generation",
			  (json_int_t)st->generation, "loaded_at", when, "reloads",
			  (json_int_t)app.reloads, "reload_failures",
			  (json_int_t)app.reload_failures, "last_reload_error",
			  app.last_reload_error);
	return 0;
}

static int show_arp(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	*data = json_pack(
		"{s:I, s:I, s:I, s:I, s:I, s:I}", "requests_rx", (json_int_t)arp_stats.requests_rx,
		"replies_rx", (json_int_t)arp_stats.replies_rx, "requests_tx",
		(json_int_t)arp_stats.requests_tx, "replies_tx", (json_int_t)arp_stats.replies_tx,
		"ignored", (json_int_t)arp_stats.ignored, "resolved_sent",
		(json_int_t)arp_stats.resolved_sent);
	return 0;
}

static int show_nd(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	*data = json_pack("{s:I, s:I, s:I, s:I, s:I}", "solicits_rx",
			  (json_int_t)nd_stats.solicits_rx, "adverts_rx",
			  (json_int_t)nd_stats.adverts_rx, "solicits_tx",
			  (json_int_t)nd_stats.solicits_tx, "adverts_tx",
			  (json_int_t)nd_stats.adverts_tx, "ignored", (json_int_t)nd_stats.ignored);
	return 0;
}

static int do_reload(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc, (void)argv;
	int ret = vbrd_reload(err, errlen);
	if (ret < 0)
		return ret;
	*data = json_pack("{s:I}", "generation", (json_int_t)atomic_load(&fwd_current)->generation);
	return 0;
}

static int show_paths(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	static struct worker_stats s;
	json_t *groups = json_array();
	char a[64];

	(void)argc, (void)argv, (void)err, (void)errlen;
	stats_sum(&s);
	for (int g = 0; g < st->nb_path_groups; g++) {
		const struct fwd_path_group *pg = &st->path_groups[g];
		const struct fwd_path *active = atomic_load(&pg->active);
		json_t *paths = json_array();

		for (int k = 0; k < pg->nb_paths; k++) {
			const struct fwd_path *p = &st->paths[pg->paths[k]];
			const struct fwd_tunnel *t = &st->tunnels[p->tunnel];
			const struct fwd_iface *line = &st->ifaces[p->iface];
			json_array_append_new(
				paths,
				json_pack("{s:s, s:b, s:s, s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:I}",
					  "name", p->name, "active", p == active, "tunnel", t->name,
					  "type", t->type == CFG_TUNNEL_VXLAN ? "vxlan" : "geneve",
					  "interface", line->name, "via",
					  config_format_addr(&p->via, a, sizeof(a)), "plane",
					  p->plane, "tier", config_tier_name(p->tier), "cost",
					  (int)p->cost, "inner_mtu", p->inner_mtu,
					  "line_tx_packets",
					  (json_int_t)s.iface[line->slot].tx_packets));
		}
		json_array_append_new(groups,
				      json_pack("{s:s, s:s, s:I, s:o}", "name", pg->name, "active",
						active ? active->name : "", "switches",
						(json_int_t)pg->switches, "paths", paths));
	}
	*data = json_pack("{s:o}", "path_groups", groups);
	return 0;
}

static int show_tunnels(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	static struct worker_stats s;
	json_t *arr = json_array();
	char l[64], r[64];

	(void)argc, (void)argv, (void)err, (void)errlen;
	stats_sum(&s);
	for (int i = 0; i < st->nb_tunnels; i++) {
		const struct fwd_tunnel *t = &st->tunnels[i];
		const struct fwd_iface *fi = &st->ifaces[t->iface];
		json_array_append_new(
			arr,
			json_pack("{s:s, s:s, s:i, s:s, s:s, s:i, s:i, s:I, s:I, s:I, s:I}", "name",
				  t->name, "type", t->type == CFG_TUNNEL_VXLAN ? "vxlan" : "geneve",
				  "vni", (int)t->vni, "local",
				  config_format_addr(&t->local, l, sizeof(l)), "remote",
				  config_format_addr(&t->remote, r, sizeof(r)), "udp_port",
				  t->udp_port, "mtu", fi->mtu, "rx_packets",
				  (json_int_t)s.iface[fi->slot].rx_packets, "rx_bytes",
				  (json_int_t)s.iface[fi->slot].rx_bytes, "tx_packets",
				  (json_int_t)s.iface[fi->slot].tx_packets, "tx_bytes",
				  (json_int_t)s.iface[fi->slot].tx_bytes));
	}
	*data = json_pack("{s:o}", "tunnels", arr);
	return 0;
}

static int path_set(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	struct fwd_path_group *g;

	if (argc != 2) {
		snprintf(err, errlen, "usage: path set GROUP PATH");
		return -EINVAL;
	}
	g = fwd_path_group_find(st, argv[0]);
	if (g == NULL) {
		snprintf(err, errlen, "unknown path group '%s'", argv[0]);
		return -ENOENT;
	}
	for (int k = 0; k < g->nb_paths; k++) {
		struct fwd_path *p = &st->paths[g->paths[k]];
		if (strcmp(p->name, argv[1]) == 0) {
			const struct fwd_path *before = atomic_load(&g->active);
			fwd_path_group_switch(g, p);
			*data = json_pack("{s:s, s:s, s:s}", "group", g->name, "previous",
					  before ? before->name : "", "active", p->name);
			return 0;
		}
	}
	snprintf(err, errlen, "path group '%s' has no path '%s'", argv[0], argv[1]);
	return -ENOENT;
}

void show_register(void)
{
	ctl_register("show paths", "path groups, their paths and the active one", show_paths);
	ctl_register("show tunnels", "VXLAN/GENEVE tunnels and their counters", show_tunnels);
	ctl_register("path set", "path set GROUP PATH: make PATH the group's active path",
		     path_set);
	ctl_register("show stats", "packet, drop-reason and ICMP counters", show_stats);
	ctl_register("show drops", "every drop reason: its count, feature and meaning", show_drops);
	ctl_register("show ports", "DPDK ports and their counters", show_ports);
	ctl_register("show interfaces", "interfaces, addresses and counters", show_interfaces);
	ctl_register("show routes", "connected, local and static routes", show_routes);
	ctl_register("show neighbors", "neighbor table (ARP and IPv6 ND)", show_neighbors);
	ctl_register("show mempool", "packet buffer use", show_mempool);
	ctl_register("show config", "running configuration file and generation", show_config);
	ctl_register("show arp", "ARP counters", show_arp);
	ctl_register("show nd", "IPv6 Neighbor Discovery counters", show_nd);
	ctl_register("reload", "re-read the config file; a bad file changes nothing", do_reload);
}
