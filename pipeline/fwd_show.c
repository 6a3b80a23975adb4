/* SPDX-License-Identifier: BSD-3-Clause */
/* `vbrctl show interfaces` and `show routes` (module "fwd_show"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>

#include <rte_ether.h>

#include "core/ctl.h"
#include "core/module.h"
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
			json_pack("{s:s, s:s, s:i, s:s, s:i, s:o, s:I, s:I, s:I, s:I}", "name",
				  fi->name, "port",
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

static int fwd_show_start(void)
{
	ctl_register("show interfaces", "interfaces, addresses and counters", show_interfaces);
	ctl_register("show routes", "connected, local and static routes", show_routes);
	ctl_export("show interfaces", "/vbrd/interfaces", "vbrd interfaces");
	return 0;
}

static struct vbrd_module fwd_show_module = {
	.name = "fwd_show",
	.depends_on = (const char *const[]){ "workers", NULL },
	.start = fwd_show_start,
};
VBRD_MODULE(fwd_show_module);
