/* SPDX-License-Identifier: BSD-3-Clause */
/* One log type per module (vbrd.main, vbrd.ctl, ...); never used on workers. */
#ifndef VBRD_LOG_H
#define VBRD_LOG_H

#include <rte_log.h>

extern int vbrd_logtype_main;

#define LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, vbrd_logtype_main, "vbrd: " fmt "\n", ##__VA_ARGS__)

#endif
