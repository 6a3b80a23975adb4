/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Readiness notification to systemd (a Type=notify unit): the
 * sd_notify(3) datagram protocol, spoken directly.
 *
 * vbrd sends READY=1 once its ports forward and the control socket answers,
 * RELOADING=1 ... READY=1 around a reload, STOPPING=1 when it stops, and a
 * STATUS= line with each (`systemctl status vbrd` shows it). Without
 * NOTIFY_SOCKET in the environment (not started by systemd) every call does
 * nothing.
 *
 * Why not libsystemd's sd_notify(): the protocol is one datagram of
 * "KEY=VALUE\n" lines to the AF_UNIX socket named by NOTIFY_SOCKET, and
 * systemd keeps it stable (its "Interface Portability and Stability
 * Promise"; sd_notify(3) describes it for daemons that do not link the
 * library). A libsystemd made optional at build time would give builds that
 * never say READY=1, whose Type=notify unit then hangs in "activating"
 * until its start timeout; spoken here, every build notifies, and the
 * package depends on one library less.
 */
#ifndef VBRD_APP_SYSTEMD_NOTIFY_H
#define VBRD_APP_SYSTEMD_NOTIFY_H

/**
 * Send a notification to the service manager.
 *
 * @param fmt  printf format of the message: one or more "KEY=VALUE" lines
 *             separated by '\n' (READY=1, RELOADING=1, STOPPING=1, STATUS=...)
 * @return     1 sent, 0 NOTIFY_SOCKET unset (nothing to do), or -errno
 *             (-EINVAL: a malformed NOTIFY_SOCKET, -EMSGSIZE: message too long;
 *             the socket's own errors; -EAGAIN: the receiver's queue stayed
 *             full for 200 ms: a receiver that does not read never blocks
 *             the caller longer). A failure changes nothing else: callers
 *             log it at most.
 */
int systemd_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
