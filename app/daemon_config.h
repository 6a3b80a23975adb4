/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's own config sections (app/daemon_config.c): what the command
 * line adds to them.
 */
#ifndef VBRD_APP_DAEMON_CONFIG_H
#define VBRD_APP_DAEMON_CONFIG_H

/**
 * Run as instance @p name whatever file is loaded (`vbrd --instance NAME`,
 * which the systemd units pass: vbrd@NAME.service). config_load() then
 * takes NAME when the file sets no `instance`, and refuses a file whose
 * `instance` is another name or whose `control.socket` is not
 * /run/vbrd/NAME.sock: the unit's ExecReload (`vbrctl -i NAME reload`)
 * must reach this vbrd and no other. Call before the first config_load();
 * it holds for reloads too.
 *
 * @param name  1..31 characters of [A-Za-z0-9_.-]
 * @return      0, or -EINVAL for another name
 */
int daemon_config_require_instance(const char *name);

#endif
