/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include <rte_ethdev.h>

#include "pipeline/port.h"

const char *port_eal_option(const char *devargs)
{
	if (strncmp(devargs, "net_", 4) == 0 || strncmp(devargs, "eth_", 4) == 0 ||
	    strncmp(devargs, "virtio_user", 11) == 0)
		return "--vdev";
	return "-a";
}

static bool is_af_packet(const struct cfg_port *cp)
{
	return strncmp(cp->devargs, "net_af_packet", 13) == 0;
}

/* af_packet ring slot: TPACKET_V2 header and sockaddr_ll, then the frame. */
static uint32_t af_packet_framesz(const struct cfg_port *cp)
{
	const char *s = strstr(cp->devargs, "framesz=");
	uint32_t need = cp->mtu + RTE_ETHER_HDR_LEN + 4 + 4 + 96, framesz = 2048;

	if (s != NULL)
		return (uint32_t)strtoul(s + 8, NULL, 0);
	while (framesz < need)
		framesz <<= 1;
	return framesz;
}

uint32_t port_mbuf_room(const struct cfg_port *cp)
{
	uint32_t room = cp->mtu + RTE_ETHER_HDR_LEN + 4 + 8;

	/* the PMD insists that a whole ring slot fits in one mbuf */
	if (is_af_packet(cp))
		room = RTE_MAX(room, af_packet_framesz(cp));
	return room;
}

char *port_eal_devargs(const struct cfg_port *cp, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", cp->devargs);

	if (!is_af_packet(cp) || n < 0 || (size_t)n >= len)
		return buf;
	uint32_t framesz = af_packet_framesz(cp);
	if (strstr(cp->devargs, "framesz=") == NULL)
		n += snprintf(buf + n, len - (size_t)n, ",framesz=%u", framesz);
	if (strstr(cp->devargs, "blocksz=") == NULL && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ",blocksz=%u", RTE_MAX(framesz, 4096u));
	if (strstr(cp->devargs, "framecnt=") == NULL && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ",framecnt=%u", framesz > 2048 ? 1024 : 4096);
	return buf;
}

/*
 * Discard what a just-started port's RX queues already hold. The af_packet
 * PMD opens each queue's socket for ETH_P_ALL on every interface of the
 * network namespace and binds it to its own interface only after mapping its
 * rings, so frames of other interfaces caught in between wait in the ring
 * and would be read as this port's. Bounded: at most RX_DRAIN_MAX (+ one burst) frames
 * per queue, in case the link is busy already.
 */
#define RX_DRAIN_MAX 8192u /* frames per queue */
static void port_drain_rx(uint16_t id, uint16_t nb_rxq)
{
	struct rte_mbuf *pkts[64];

	for (uint16_t q = 0; q < nb_rxq; q++) {
		unsigned total = 0;
		uint16_t n;

		while (total < RX_DRAIN_MAX &&
		       (n = rte_eth_rx_burst(id, q, pkts, RTE_DIM(pkts))) > 0) {
			rte_pktmbuf_free_bulk(pkts, n);
			total += n;
		}
	}
}

/*
 * Why an af_packet device (@p devargs "net_af_packetN,iface=NAME,...") may
 * have failed to probe, for the error message: the interface does not
 * exist here, or (it exists) another process holds its fanout group.
 * Empty for other devices.
 */
static void af_packet_hint(const char *devargs, char *out, size_t len)
{
	const char *v = strstr(devargs, ",iface=");
	char ifname[IF_NAMESIZE + 1];

	out[0] = '\0';
	if (strncmp(devargs, "net_af_packet", 13) != 0 || v == NULL)
		return;
	v += strlen(",iface=");
	size_t n = strcspn(v, ",");
	if (n == 0 || n > IF_NAMESIZE) {
		snprintf(out, len, "; iface= names no interface");
		return;
	}
	memcpy(ifname, v, n);
	ifname[n] = '\0';
	if (if_nametoindex(ifname) == 0)
		snprintf(out, len, "; there is no interface '%s' in this network namespace",
			 ifname);
	else
		snprintf(out, len,
			 "; if af_packet says 'could not set PACKET_FANOUT' above, another "
			 "process in this network namespace holds the fanout group "
			 "(pid XOR ifindex) of '%s': start vbrd again",
			 ifname);
}

int port_setup(const struct cfg_port *cp, uint16_t nb_workers, struct rte_mempool *mp,
	       struct vbrd_port *out, char *err, size_t errlen)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	char devname[CFG_DEVARGS_MAX];
	uint16_t id;
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(devname, sizeof(devname), "%s", cp->devargs);
	devname[strcspn(devname, ",")] = '\0';
	if (rte_eth_dev_get_port_by_name(devname, &id) != 0) {
		char why[CFG_DEVARGS_MAX + 160];
		af_packet_hint(cp->devargs, why, sizeof(why));
		snprintf(err, errlen, "port %s: device '%s' was not probed (check devargs '%s'%s)",
			 cp->name, devname, cp->devargs, why);
		return -ENODEV;
	}
	ret = rte_eth_dev_info_get(id, &info);
	if (ret < 0) {
		snprintf(err, errlen, "port %s: cannot get device info: %s", cp->name,
			 strerror(-ret));
		return ret;
	}

	uint16_t nb_rxq = cp->rx_queues ? cp->rx_queues : nb_workers;
	if (nb_rxq > info.max_rx_queues || nb_workers > info.max_tx_queues) {
		snprintf(err, errlen,
			 "port %s: needs %u RX and %u TX queues (one TX queue per worker), "
			 "%s supports %u/%u (af_packet: add qpairs=N to devargs)",
			 cp->name, nb_rxq, nb_workers, info.driver_name, info.max_rx_queues,
			 info.max_tx_queues);
		return -EINVAL;
	}
	bool vdev = strcmp(port_eal_option(cp->devargs), "--vdev") == 0;
	if (cp->mtu > info.max_mtu && !vdev) {
		snprintf(err, errlen, "port %s: MTU %u above the device maximum %u", cp->name,
			 cp->mtu, info.max_mtu);
		return -EINVAL;
	}

	memset(&conf, 0, sizeof(conf));
	/* Some PMDs (af_packet) report a 1518-byte max frame yet accept a larger
	 * MTU through set_mtu once their rings fit it: configure within the
	 * reported limit, then ask for the real MTU below. */
	uint32_t overhead = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + 4;
	conf.rxmode.mtu = info.max_rx_pktlen > overhead
				  ? RTE_MIN((uint32_t)cp->mtu, info.max_rx_pktlen - overhead)
				  : cp->mtu;
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) {
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
		out->rx_ipv4_cksum = true;
	}
	if (nb_rxq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP |
						    RTE_ETH_RSS_TCP) &
						   info.flow_type_rss_offloads;
	}

	ret = rte_eth_dev_configure(id, nb_rxq, nb_workers, &conf);
	if (ret < 0) {
		snprintf(err, errlen, "port %s: configure failed: %s", cp->name, strerror(-ret));
		return ret;
	}
	uint16_t rxd = cp->rx_desc, txd = cp->tx_desc;
	rte_eth_dev_adjust_nb_rx_tx_desc(id, &rxd, &txd);
	int socket = rte_eth_dev_socket_id(id);
	for (uint16_t q = 0; q < nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(id, q, rxd, socket, NULL, mp);
		if (ret < 0) {
			snprintf(err, errlen, "port %s: RX queue %u setup failed: %s", cp->name, q,
				 strerror(-ret));
			return ret;
		}
	}
	for (uint16_t q = 0; q < nb_workers; q++) {
		ret = rte_eth_tx_queue_setup(id, q, txd, socket, NULL);
		if (ret < 0) {
			snprintf(err, errlen, "port %s: TX queue %u setup failed: %s", cp->name, q,
				 strerror(-ret));
			return ret;
		}
	}
	/* The MTU vbrd enforces is the interface's, in software. A NIC that
	 * cannot take the MTU would drop jumbo frames: an error. Virtual devices
	 * (af_packet reports a 1518-byte limit, yet passes whatever fits its ring
	 * slots) are only told, best effort. */
	ret = rte_eth_dev_set_mtu(id, cp->mtu);
	if (ret < 0 && ret != -ENOTSUP && !vdev) {
		snprintf(err, errlen, "port %s: cannot set MTU %u: %s", cp->name, cp->mtu,
			 strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_start(id);
	if (ret < 0) {
		snprintf(err, errlen, "port %s: start failed: %s", cp->name, strerror(-ret));
		return ret;
	}
	if (cp->promiscuous)
		rte_eth_promiscuous_enable(id);
	/* IPv6 Neighbor Discovery arrives on 33:33 multicast MACs (RFC 2464 §7). */
	rte_eth_allmulticast_enable(id);
	if (is_af_packet(cp))
		port_drain_rx(id, nb_rxq);

	snprintf(out->name, sizeof(out->name), "%s", cp->name);
	snprintf(out->devargs, sizeof(out->devargs), "%s", cp->devargs);
	snprintf(out->driver, sizeof(out->driver), "%s", info.driver_name);
	out->id = id;
	out->nb_rxq = nb_rxq;
	out->nb_txq = nb_workers;
	out->mtu = cp->mtu;
	rte_eth_macaddr_get(id, &out->mac);
	return 0;
}

void port_close(struct vbrd_port *p)
{
	rte_eth_dev_stop(p->id);
	rte_eth_dev_close(p->id);
}
