/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging: one DPDK log type per module ("vbrd.tunnel", "vbrd.ctl", ...),
 * so `--log-level=vbrd.tunnel:debug` turns one feature up. Never used on
 * a worker's packet path.
 *
 * In one .c file of the module:   VBRD_LOG_TYPE(tunnel);
 * then in any of its files:       LOG(NOTICE, "path %s up", name);
 * (a file of another module includes core/log.h after defining
 * VBRD_LOG_MODULE, or uses vbrd_log() with the type).
 */
#ifndef VBRD_CORE_LOG_H
#define VBRD_CORE_LOG_H

#include <rte_log.h>

/** Define the log type vbrd.NAME for this file (a constructor registers it, level INFO). */
#define VBRD_LOG_TYPE(name)                                         \
	RTE_LOG_REGISTER(vbrd_logtype_##name, vbrd.name, INFO);     \
	static int *const vbrd_logtype_here = &vbrd_logtype_##name; \
	static const char vbrd_log_prefix[] = #name

/** Use the log type a sibling file of the same module defined with VBRD_LOG_TYPE(). */
#define VBRD_LOG_USE(name)                                          \
	extern int vbrd_logtype_##name;                             \
	static int *const vbrd_logtype_here = &vbrd_logtype_##name; \
	static const char vbrd_log_prefix[] = #name

/** Log at RTE_LOG_<level> under this file's module log type. */
#define LOG(level, fmt, ...)                                                                \
	rte_log(RTE_LOG_##level, *vbrd_logtype_here, "vbrd.%s: " fmt "\n", vbrd_log_prefix, \
		##__VA_ARGS__)

#endif
