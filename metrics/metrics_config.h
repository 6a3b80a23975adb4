/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "metrics": the Prometheus endpoint (metrics/README.md).
 * Off unless the section is there; with it, on loopback unless it says
 * otherwise:
 *
 *     metrics = {
 *       address = "127.0.0.1";  # where /metrics listens: "::" or "0.0.0.0" for every address
 *       port = 9469;
 *     };
 *
 * Both settings are live: a reload that changes them opens the new
 * socket before it is applied, and is refused (the old endpoint stays)
 * when the new one cannot be opened.
 */
#ifndef VBRD_METRICS_CONFIG_H
#define VBRD_METRICS_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"

#define METRICS_DEFAULT_PORT 9469

struct cfg_metrics {
	bool enabled; /* the section is there */
	struct cfg_addr address;
	uint16_t port;
	char where[512]; /* "FILE:LINE: metrics.address" of the setting, for errors at bind time */
};

/** The section of @p cfg (never NULL: enabled false when absent). */
const struct cfg_metrics *cfg_metrics_get(const struct vbrd_config *cfg);

/** Whether @p a and @p b listen at the same address and port (both enabled), or are both off. */
bool cfg_metrics_same(const struct cfg_metrics *a, const struct cfg_metrics *b);

/** "127.0.0.1:9469", "[::1]:9469" into @p buf. @return @p buf */
char *cfg_metrics_format(const struct cfg_metrics *m, char *buf, size_t len);

#endif
