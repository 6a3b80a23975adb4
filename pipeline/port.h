/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: DPDK ethdevs declared by devargs, one RX queue set spread over
 * the workers and one TX queue per worker (so no TX locking, ever).
 */
#ifndef VBRD_PORT_H
#define VBRD_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>

#include "core/config.h"

struct vbrd_port {
	char name[CFG_NAME_MAX];
	char devargs[CFG_DEVARGS_MAX];
	char driver[32];
	uint16_t id; /* DPDK port id */
	uint16_t nb_rxq;
	uint16_t nb_txq;    /* == number of workers */
	uint16_t mtu;       /* bytes of L3 payload */
	bool rx_ipv4_cksum; /* the port verifies IPv4 header checksums */
	struct rte_ether_addr mac;
};

/**
 * The EAL argument that creates the device: "--vdev" for virtual devices
 * (names starting "net_" or "eth_"), "-a" for everything else (PCI).
 */
const char *port_eal_option(const char *devargs);

/**
 * The devargs handed to the EAL for @p cp: the configured ones, plus, for
 * net_af_packet ports that do not set them, ring sizes that fit the port's
 * MTU (the PMD's 2048-byte frames truncate anything larger, including the
 * datagrams the kernel reassembles for packet sockets) and a deeper ring
 * (framecnt) than the PMD's 512, which overflows at TCP line rate.
 *
 * @param cp   the port
 * @param buf  receives the devargs string
 * @param len  bytes in @p buf
 * @return     @p buf
 */
char *port_eal_devargs(const struct cfg_port *cp, char *buf, size_t len);

/** Data room an mbuf needs for this port's largest frame, bytes (no headroom). */
uint32_t port_mbuf_room(const struct cfg_port *cp);

/**
 * Configure and start a probed port.
 *
 * @param cp          its configuration
 * @param nb_workers  TX queues to create (one per worker)
 * @param mp          mempool the RX queues fill from
 * @param out         filled on success
 * @param err         message on failure (@p errlen bytes), naming the port
 * @return            0, -ENODEV (not probed: bad devargs?), -EINVAL (queues or
 *                    MTU the device cannot do), or a negative errno from ethdev
 */
int port_setup(const struct cfg_port *cp, uint16_t nb_workers, struct rte_mempool *mp,
	       struct vbrd_port *out, char *err, size_t errlen);

/** Stop and close a port. */
void port_close(struct vbrd_port *p);

/** Number of ports the port module set up (config order). */
int port_count(void);

/** Port @p i in config order (0..port_count()-1), or NULL. */
const struct vbrd_port *port_get(int i);

/** DPDK port id of config port i, for i < port_count(). */
const uint16_t *port_ids(void);

#endif
