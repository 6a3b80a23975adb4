/* SPDX-License-Identifier: BSD-3-Clause */
/* `vbrctl show tunnels`, `show paths`, `path set` (module "tunnel"); path
 * selection's view of the groups is `show pathsel` (failover/pathsel/). */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>

#include "core/ctl.h"
#include "core/module.h"
#include "pipeline/tunnel.h"
#include "pipeline/worker.h"

static int show_paths(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	static struct worker_stats s;
	json_t *groups = json_array();
	char a[64];

	(void)argc, (void)argv, (void)err, (void)errlen;
	worker_stats_sum(&s);
	for (int g = 0; g < st->nb_path_groups; g++) {
		const struct fwd_path_group *pg = &st->path_groups[g];
		const struct fwd_path *active = atomic_load(&pg->active);
		json_t *paths = json_array();

		for (int k = 0; k < pg->nb_paths; k++) {
			const struct fwd_path *p = &st->paths[pg->paths[k]];
			const struct fwd_tunnel *t = &st->tunnels[p->tunnel];
			const struct fwd_iface *line = &st->ifaces[p->iface];
			json_t *po = json_pack(
				"{s:s, s:b, s:s, s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:I}", "name",
				p->name, "active", p == active, "tunnel", t->name, "type",
				t->type == CFG_TUNNEL_VXLAN ? "vxlan" : "geneve", "interface",
				line->name, "via", config_format_addr(&p->via, a, sizeof(a)),
				"plane", p->plane, "tier", config_tier_name(p->tier), "cost",
				(int)p->cost, "inner_mtu", p->inner_mtu, "line_tx_packets",
				(json_int_t)s.iface[line->slot].tx_packets);
			json_object_set_new(po, "planes", json_integer(p->nb_planes));
			json_array_append_new(paths, po);
		}
		json_t *go = json_pack("{s:s, s:s, s:I}", "name", pg->name, "active",
				       active ? active->name : "", "switches",
				       (json_int_t)pg->switches);
		json_object_set_new(go, "paths", paths);
		json_array_append_new(groups, go);
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
	worker_stats_sum(&s);
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

	(void)argc; /* exactly 2: the registry checks the declared GROUP PATH */
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

static int tunnel_start(void)
{
	ctl_register("show paths", "path groups, their paths and the active one", show_paths);
	ctl_register("show tunnels", "VXLAN/GENEVE tunnels and their counters", show_tunnels);
	ctl_register("path set", "path set GROUP PATH: make PATH the group's active path",
		     path_set);
	return 0;
}

static struct vbrd_module tunnel_module = {
	.name = "tunnel",
	.depends_on = (const char *const[]){ "workers", NULL },
	.start = tunnel_start,
};
VBRD_MODULE(tunnel_module);
