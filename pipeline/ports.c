/* SPDX-License-Identifier: BSD-3-Clause */
/* The port module: every configured port, set up at start-up, closed at stop. */
#include <errno.h>

#include "core/log.h"
#include "core/module.h"
#include "pipeline/port.h"
#include "pipeline/worker.h"

VBRD_LOG_TYPE(port);

static struct vbrd_port ports[CFG_MAX_PORTS];
static uint16_t ids[CFG_MAX_PORTS];
static int nb_ports;

int port_count(void)
{
	return nb_ports;
}

const struct vbrd_port *port_get(int i)
{
	return i >= 0 && i < nb_ports ? &ports[i] : NULL;
}

const uint16_t *port_ids(void)
{
	return ids;
}

static int port_module_init(const struct vbrd_config *cfg)
{
	char err[512];

	for (int i = 0; i < cfg->nb_ports; i++) {
		int ret = port_setup(&cfg->ports[i], (uint16_t)cfg->workers.nb_cores, dp.pool,
				     &ports[i], err, sizeof(err));
		if (ret < 0) {
			LOG(ERR, "%s:%d: %s", cfg->file, cfg->ports[i].line, err);
			return ret;
		}
		nb_ports++;
		ids[i] = ports[i].id;
		dp.nb_port_ids = RTE_MAX(dp.nb_port_ids, (uint16_t)(ports[i].id + 1));
		dp.rx_ipv4_cksum[ports[i].id] = ports[i].rx_ipv4_cksum;
	}
	return 0;
}

static void port_module_fini(void)
{
	for (int i = 0; i < nb_ports; i++)
		port_close(&ports[i]);
	nb_ports = 0;
}

static struct vbrd_module port_module = {
	.name = "port",
	.depends_on = (const char *const[]){ "dataplane", NULL },
	.init = port_module_init,
	.fini = port_module_fini,
};
VBRD_MODULE(port_module);
