/* SPDX-License-Identifier: BSD-3-Clause */
/* `vbrctl show ports`: DPDK ports and their counters (module "port_show"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>

#include <rte_ethdev.h>

#include "core/ctl.h"
#include "core/module.h"
#include "pipeline/l2.h"
#include "pipeline/port.h"

static int show_ports(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	json_t *arr = json_array();
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	(void)argc, (void)argv, (void)err, (void)errlen;
	for (int i = 0; i < port_count(); i++) {
		const struct vbrd_port *p = port_get(i);
		struct rte_eth_stats es = { 0 };
		struct rte_eth_link link = { 0 };

		rte_eth_stats_get(p->id, &es);
		rte_eth_link_get_nowait(p->id, &link);
		json_array_append_new(
			arr,
			json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:I, s:I, s:I, "
				  "s:I, s:I, s:I, s:I}",
				  "name", p->name, "id", p->id, "driver", p->driver, "devargs",
				  p->devargs, "mac", l2_mac_str(&p->mac, mac), "mtu", p->mtu,
				  "link", link.link_status ? "up" : "down", "rx_queues", p->nb_rxq,
				  "tx_queues", p->nb_txq, "rx_packets", (json_int_t)es.ipackets,
				  "rx_bytes", (json_int_t)es.ibytes, "tx_packets",
				  (json_int_t)es.opackets, "tx_bytes", (json_int_t)es.obytes,
				  "rx_missed", (json_int_t)es.imissed, "rx_errors",
				  (json_int_t)es.ierrors, "tx_errors", (json_int_t)es.oerrors));
	}
	*data = json_pack("{s:o}", "ports", arr);
	return 0;
}

static int port_show_start(void)
{
	ctl_register("show ports", "DPDK ports and their counters", show_ports);
	ctl_export("show ports", "/vbrd/ports", "vbrd ports and their counters");
	return 0;
}

static struct vbrd_module port_show_module = {
	.name = "port_show",
	.depends_on = (const char *const[]){ "port", NULL },
	.start = port_show_start,
};
VBRD_MODULE(port_show_module);
