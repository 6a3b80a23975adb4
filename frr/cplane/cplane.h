/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control plane's kernel interfaces (frr/cplane): one TAP per vbrd
 * interface in the configured namespace (its VRF's netns when it names
 * one; else enslaved there to its VRF's kernel VRF device, where the
 * kernel has the driver), what vbrd punts to them (policed
 * per class on the workers), what the kernel sends on them (routed by
 * vbrd, control_ip_output()), their carrier following the line's BFD.
 * What other features ask of it (frr/fpm: next hops by kernel ifindex).
 */
#ifndef VBRD_CPLANE_H
#define VBRD_CPLANE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/module.h"
#include "frr/cplane/cplane_config.h"

struct fwd_state;

extern struct vbrd_module cplane_module;

/** The feature's part of a forwarding state (fwd_feature(st, &cplane_module)). */
struct cplane_gen {
	uint64_t gen; /* the policers' profiles' generation (a worker reconfigures its meters) */
	struct rte_meter_srtcm_profile *prof; /* [CPLANE_CLASSES], per worker's share */
	int nb_peers;
	struct cfg_addr peers[CPLANE_MAX_PEERS];
};

/**
 * The interface (index into the current state's ifaces) whose TAP has
 * kernel ifindex @p ifindex in the control namespace, or -1. Main lcore.
 */
int cplane_iface_by_ifindex(uint32_t ifindex);

/**
 * The interface whose TAP has kernel ifindex @p ifindex in namespace
 * @p netns ("": vbrd's own; a VRF's `netns`, or cplane.netns), or -1.
 * Main lcore.
 */
int cplane_iface_by_ifindex_in(const char *netns, uint32_t ifindex);

/** The control namespace's name (cplane.netns; "": vbrd's own). Main lcore. */
const char *cplane_netns(void);

/**
 * Run @p fn(@p arg) in namespace @p netns (/run/netns/NAME; NULL or "":
 * the calling thread's), as cplane_in_netns() does. Main lcore.
 * @return fn's return, or a negative errno when the namespace cannot be entered
 */
int cplane_in_named_netns(const char *netns, int (*fn)(void *arg), void *arg);

/**
 * Run @p fn(@p arg) in the control namespace (cplane.netns): the calling
 * thread enters it and returns to its own (a listening socket made there
 * stays there: frr/fpm's). Main lcore.
 * @return fn's return, or a negative errno when the namespace cannot be entered
 */
int cplane_in_netns(int (*fn)(void *arg), void *arg);

#endif
