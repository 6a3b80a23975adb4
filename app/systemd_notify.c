/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sd_notify(3) protocol without libsystemd (app/systemd_notify.h says why):
 * one datagram to the AF_UNIX socket in $NOTIFY_SOCKET, a path or, with a
 * leading '@', a name in the abstract namespace.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "app/systemd_notify.h"

#define SD_NOTIFY_MSG_MAX 1024 /* bytes; STATUS= lines are short */
/*
 * The longest a notification may wait for room in the receiver's queue.
 * A blocking sendto() to a socket whose reader does not read (a hung or
 * hostile receiver: its queue holds net.unix.max_dgram_qlen datagrams, 10
 * by default) never returns, and it is sent from the control loop: vbrctl,
 * /metrics and the HA lease would stop, and so would SIGTERM (STOPPING=1 is
 * sent before the stop watchdog is armed). So the socket is connected
 * (poll() then waits for the peer's room) and sends without blocking.
 */
#define SD_NOTIFY_WAIT_MS 200

int systemd_notify(const char *fmt, ...)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[SD_NOTIFY_MSG_MAX];
	size_t len;
	va_list ap;
	int fd, n;

	if (path == NULL || path[0] == '\0')
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract namespace: no trailing NUL in the length */
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -EMSGSIZE;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	size_t msglen = (size_t)n;
	n = (int)send(fd, msg, msglen, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };

		if (poll(&pfd, 1, SD_NOTIFY_WAIT_MS) > 0)
			n = (int)send(fd, msg, msglen, MSG_NOSIGNAL | MSG_DONTWAIT);
		else
			errno = EAGAIN;
	}
	int ret = n < 0 ? -errno : 1;
	close(fd);
	return ret;
}
