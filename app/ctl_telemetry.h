/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry endpoints backed by control commands, so that
 * `dpdk-telemetry.py` (and any client of the telemetry socket) sees the
 * same data as `vbrctl -j`.
 */
#ifndef VBRD_CTL_TELEMETRY_H
#define VBRD_CTL_TELEMETRY_H

/**
 * Export the control command @p cmd ("show stats") as the telemetry
 * command @p tel_path ("/vbrd/stats"). Telemetry parameters (the text after
 * the comma: "/vbrd/stats,p0") are appended to the command's words, split
 * on commas and blanks.
 *
 * Call on the main lcore after rte_eal_init() and ev_init(); the handler of
 * @p cmd is always run on the main lcore (see ctl_telemetry.c).
 *
 * @param cmd       control command words, as given to ctl_register()
 * @param tel_path  telemetry command, "/" then [A-Za-z0-9_/], < 64 bytes
 * @param help      one line for the telemetry "/help" command
 * @param key_members  leading members of a table row that make its key
 *                  (ctl_export_keyed())
 * @return 0, -EINVAL (bad argument), -ENOSPC (too many exports), -ENOMEM,
 *         or -errno from eventfd()/ev_add()
 */
int ctl_telemetry_export(const char *cmd, const char *tel_path, const char *help,
			 unsigned key_members);

/**
 * Stop serving exported commands: pending telemetry requests fail with
 * -ESHUTDOWN and later ones at once (DPDK cannot unregister a command).
 * Call on the main lcore before ev_fini().
 */
void ctl_telemetry_fini(void);

#endif
