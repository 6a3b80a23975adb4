/* SPDX-License-Identifier: BSD-3-Clause */
/* `vbrctl show neighbors`, `show arp`, `show nd` (module "neighbor_show"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>

#include <rte_ether.h>

#include "core/ctl.h"
#include "core/module.h"
#include "pipeline/l2.h"
#include "pipeline/control.h"
#include "pipeline/nd.h"
#include "pipeline/neigh.h"

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
			l2_mac_str(&e, mac);
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

static int neigh_show_start(void)
{
	ctl_register("show neighbors", "neighbor table (ARP and IPv6 ND)", show_neighbors);
	ctl_register("show arp", "ARP counters", show_arp);
	ctl_register("show nd", "IPv6 Neighbor Discovery counters", show_nd);
	/* keyed "INTERFACE_ADDRESS" always, one neighbor per interface or many */
	ctl_export_keyed("show neighbors", "/vbrd/neighbors", "vbrd neighbor table", 2);
	return 0;
}

static struct vbrd_module neigh_show_module = {
	.name = "neighbor_show",
	.depends_on = (const char *const[]){ "neighbor", NULL },
	.start = neigh_show_start,
};
VBRD_MODULE(neigh_show_module);
