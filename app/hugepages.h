/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hugepages for the EAL: whether some are free, and reserving them for a
 * config's eal.memory_mb (`vbrd --reserve-hugepages FILE`, the systemd
 * units' ExecStartPre).
 */
#ifndef VBRD_APP_HUGEPAGES_H
#define VBRD_APP_HUGEPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** True when hugepages of the default size are free and a hugetlbfs is mounted. */
bool hugepages_available(void);

/**
 * Make @p mb MiB of hugepages of the default size (/proc/meminfo's
 * Hugepagesize, 2 MiB on x86) free for one more EAL: raise the pool
 * (/sys/kernel/mm/hugepages/hugepages-<size>kB/nr_hugepages) by what is
 * missing, never lower it. Pages another process or the kernel command
 * line reserved and that are free count; each instance that starts adds
 * its own, and a restart finds its pages free again (vbrd maps them
 * with --huge-unlink). The kernel may give fewer than asked when memory is
 * fragmented.
 *
 * @param mb     MiB wanted free (eal.memory_mb)
 * @param msg    what was done or why not, one line
 * @param len    bytes in @p msg
 * @return       0 @p mb MiB are free, -ENOMEM fewer (the pool was raised as
 *               far as the kernel went), -errno reading or writing the pool
 */
int hugepages_reserve(uint32_t mb, char *msg, size_t len);

#endif
