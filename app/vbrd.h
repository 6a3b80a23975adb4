/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's process-wide state, owned by the main (control) lcore.
 */
#ifndef VBRD_APP_H
#define VBRD_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "pipeline/port.h"

struct vbrd_app {
	char config_file[CFG_PATH_MAX];
	char socket[CFG_PATH_MAX];
	char instance[CFG_NAME_MAX];
	int nb_ports;
	struct vbrd_port ports[CFG_MAX_PORTS];
	uint16_t port_ids[CFG_MAX_PORTS]; /* DPDK id of config port i */
	uint64_t reloads;                 /* successful reloads */
	uint64_t reload_failures;         /* rejected reloads */
	char last_reload_error[4096];
};

extern struct vbrd_app app;

/**
 * Re-read the config file and apply it without stopping traffic: build a
 * new forwarding state, publish it, free the old one after an RCU grace
 * period. Ports cannot change at run time (they are EAL devices): a file
 * whose ports differ is rejected, as is any file with errors; the running
 * configuration then stays.
 *
 * @param err     on failure every "FILE:LINE: message", newline-separated
 * @param errlen  bytes in @p err
 * @return 0, or -EINVAL (bad file) / -EPERM (ports changed) / -ENOMEM
 */
int vbrd_reload(char *err, size_t errlen);

struct ctl_deferred;

/**
 * Start a reload on the reload thread (app/reload.c): the control loop
 * keeps serving while the file is loaded, the state built and the FIB
 * changed in place. The outcome is logged, counted in `show config`, and,
 * for a `vbrctl reload`, sent to @p waiter (ctl_deferred_reply()).
 *
 * @param waiter  the deferred reply of the asking client, or NULL (SIGHUP:
 *                when a reload is running, one more is queued to follow it)
 * @return 0 (started), -EBUSY (one is running), or -errno from pthread_create()
 */
int vbrd_reload_start(struct ctl_deferred *waiter);

/** Whether a reload started by vbrd_reload_start() has not finished yet. */
bool vbrd_reload_running(void);

#endif
