/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "cplane": the control plane's kernel interfaces (one TAP
 * per vbrd interface, in a network namespace) and the policers of what is
 * punted to them. Absent: no TAP, and what no vbrd service takes is
 * dropped as today (nothing answers the world unless configured).
 *
 *     cplane = {
 *       netns = "vbrd-cp";     # where the TAPs and FRR live; default: vbrd's own (restart)
 *       tap_prefix = "vb-";    # TAP name: prefix + interface name (restart)
 *       bgp_peers = [ "10.0.1.2", "2001:db8:1::2" ];  # default: any on a connected subnet
 *       police = {             # packets/s and packets, for all workers together
 *         bgp   = { rate = 20000; burst = 4000; };
 *         tcp   = { rate = 2000;  burst = 400; };
 *         icmp  = { rate = 1000;  burst = 200; };
 *         other = { rate = 1000;  burst = 200; };
 *       };
 *     };
 */
#ifndef VBRD_CPLANE_CONFIG_H
#define VBRD_CPLANE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"

#define CPLANE_MAX_PEERS  64
#define CPLANE_NETNS_MAX  64
#define CPLANE_PREFIX_MAX 8

/** Punt classes, in the order their policers are listed. */
enum cplane_class {
	CPLANE_BGP,   /* TCP port 179 from a BGP peer */
	CPLANE_TCP,   /* other TCP */
	CPLANE_ICMP,  /* ICMP and ICMPv6 other than echo (vbrd answers echo itself) */
	CPLANE_OTHER, /* the rest: UDP to ports vbrd does not serve, other protocols */
	CPLANE_CLASSES
};

/** A class's policer: a token bucket of packets (rte_meter srTCM, CBS only). */
struct cfg_cplane_police {
	uint32_t rate;  /* packets per second, 1..10 000 000 */
	uint32_t burst; /* packets, 1..1 000 000 */
};

struct cfg_cplane {
	bool enabled;                 /* the section is present */
	char netns[CPLANE_NETNS_MAX]; /* "" = vbrd's own namespace */
	char tap_prefix[CPLANE_PREFIX_MAX];
	int nb_peers; /* 0: BGP from any address on a connected subnet */
	struct cfg_addr peers[CPLANE_MAX_PEERS];
	struct cfg_cplane_police police[CPLANE_CLASSES];
};

/** The section of @p cfg (never NULL: defaults with enabled false when absent). */
const struct cfg_cplane *cfg_cplane_get(const struct vbrd_config *cfg);

/** "bgp", "tcp", "icmp", "other". */
const char *cplane_class_name(enum cplane_class c);

#endif
