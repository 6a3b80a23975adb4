/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pre-scan of a configuration file and its @include files, before libconfig
 * reads them.
 *
 * libconfig 1.5 (Debian 12) opens includes itself, with fopen(), and has no
 * hook to refuse one: a directory, an unreadable file or /proc/self/mem make
 * its flex scanner call exit(2) ("input in flex scanner failed"), a FIFO
 * blocks fopen() until someone writes to it, /dev/zero never ends. So every
 * file libconfig would open is opened here first, checked, and read whole
 * under a size bound; only when all of them are sound does config_load()
 * hand the top file to libconfig.
 *
 * No DPDK, no libconfig: unit-tested through config_load().
 */
#ifndef VBRD_CONFIG_INCLUDE_H
#define VBRD_CONFIG_INCLUDE_H

#include <stddef.h>

/** Bytes of the top file and all its includes together (each time read). */
#define CFG_INCLUDE_MAX_BYTES (512u << 20)

/** @include directives read in all, each time one is read (a fan-out of
 *  tiny files would otherwise keep the main lcore busy for seconds). */
#define CFG_INCLUDE_MAX_COUNT 1024

/** Include nesting allowed: the top file's includes are depth 1 (libconfig 1.5's own limit). */
#define CFG_INCLUDE_MAX_DEPTH 10

/**
 * Where a problem goes.
 *
 * @param arg   the caller's context
 * @param file  file the problem is in: the top file as given, or an included
 *              file by the path it was opened at
 * @param line  1-based line of the @include, or 0 for the whole file
 * @param text  the problem, e.g. `@include "x": not a regular file (a FIFO)`
 */
typedef void (*config_include_report_t)(void *arg, const char *file, int line, const char *text);

/**
 * Check @p path and every file it includes, recursively, the way libconfig
 * 1.5 would open them: `@include "NAME"` at the start of a line (blanks
 * before it allowed; not inside a comment or a string) opens
 * INCLUDE_DIR/NAME, INCLUDE_DIR being the part of @p path before its last
 * '/' ("/" for "/x.conf"); when @p path has no '/', NAME as it is (relative
 * to the working directory). This is the include directory config_load()
 * gives libconfig; it is the same for nested includes (libconfig 1.5 has one
 * include directory, not one per file), and it is prefixed to an absolute
 * NAME too.
 *
 * Each file must be a regular file (checked on the opened descriptor; a
 * symbolic link is followed), open without blocking (O_NONBLOCK, so a FIFO
 * swapped in after the check cannot hang us) and readable to its end; all
 * of them together at most CFG_INCLUDE_MAX_BYTES; includes nested at most
 * CFG_INCLUDE_MAX_DEPTH deep and never a file that is already being read
 * (a loop). Every problem is reported through @p report, not just the first.
 *
 * Race: libconfig opens the files again by name after this check; a file
 * replaced in between is not seen. The check is against mistakes, not
 * against someone who can write the configuration directory.
 *
 * @param path    the top configuration file
 * @param report  called once per problem (may be called several times)
 * @param arg     passed to @p report
 * @return  0 when libconfig may read the files; -EINVAL when an include is
 *          bad or the top file is not a regular file (-EISDIR for a
 *          directory); -EFBIG when the top file alone is too large; the
 *          -errno of open() or read() when the top file cannot be read;
 *          -ENOMEM
 */
int config_include_check(const char *path, config_include_report_t report, void *arg);

#endif
