/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "fpm": vbrd serves FRR's Forwarding Plane Manager (zebra
 * `-M dplane_fpm_nl`, `fpm address A port P`) and installs what zebra
 * sends in its FIB, beside the configuration's routes. It needs "cplane":
 * zebra names next hops by the kernel ifindex of vbrd's TAPs, and listens
 * in the control namespace, where zebra runs, and in each VRF's own
 * namespace (vrfs[].netns: one zebra per VRF), at the same address and port.
 *
 *     fpm = {
 *       address = "127.0.0.1";  # where zebra connects (restart)
 *       port = 2620;            # zebra's default (restart)
 *       stale_ms = 3000;        # after zebra reconnects: routes it has not sent
 *                               # again once it has been quiet this long go
 *       table = 254;            # the kernel table zebra's routes are in (main)
 *     };
 */
#ifndef VBRD_FPM_CONFIG_H
#define VBRD_FPM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"

struct cfg_fpm {
	bool enabled;
	struct cfg_addr address;
	uint16_t port;
	uint32_t stale_ms;
	uint32_t table;
};

/** The section of @p cfg (never NULL: enabled false when absent). */
const struct cfg_fpm *cfg_fpm_get(const struct vbrd_config *cfg);

#endif
