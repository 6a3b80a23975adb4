/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vbrctl: the command-line client of vbrd's control socket (protocol in
 * ctl.h). It sends the command words as {"argv": [...]}, reads one reply
 * line and prints it through the generic renderer (render.h).
 *
 * Exit status: 0 ok, 1 the daemon answered with an error, 2 usage error or
 * the daemon cannot be reached (or does not answer in time).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "app/render.h"

#define VBRCTL_RUN_DIR        "/run/vbrd"
#define VBRCTL_DEFAULT_SOCKET VBRCTL_RUN_DIR "/vbrd.sock"
#define VBRCTL_TIMEOUT_MS     5000
/* `reload` answers once the new config is applied: seconds for a million routes */
#define VBRCTL_RELOAD_TIMEOUT_MS 120000
#define VBRCTL_MAX_REPLY         (256u << 20) /* bytes; a sane upper bound */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vbrctl [-j] [-s SOCKET | -i INSTANCE] [-t TIMEOUT_MS] COMMAND [WORDS...]\n"
		"\n"
		"  -j, --json     print the reply's data as JSON (for scripts)\n"
		"  -s SOCKET      control socket (default " VBRCTL_DEFAULT_SOCKET ",\n"
		"                 or $VBRD_SOCKET when set)\n"
		"  -i INSTANCE    control socket of instance INSTANCE: " VBRCTL_RUN_DIR
		"/INSTANCE.sock\n"
		"  -t TIMEOUT_MS  give up when vbrd has not answered after this many ms\n"
		"                 (default %d; %d for reload)\n"
		"  -h, --help     this help (also --socket, --instance, --timeout)\n"
		"\n"
		"'vbrctl help' lists the daemon's commands. Exit status: 0 ok, 1 the daemon\n"
		"answered with an error, 2 usage error or vbrd unreachable.\n",
		VBRCTL_TIMEOUT_MS, VBRCTL_RELOAD_TIMEOUT_MS);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @p events on @p fd until @p deadline (ms). @return 0 or -errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		int64_t left = deadline - now_ms();
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* @return a connected non-blocking socket, or -errno. */
static int connect_socket(const char *path, int64_t deadline)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, rc;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A UNIX connect() is immediate unless the backlog is full (EAGAIN). */
	while (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		if (errno != EAGAIN && errno != EINTR) {
			rc = -errno;
			goto err;
		}
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc < 0)
			goto err;
		if (now_ms() < deadline)
			usleep(1000);
	}
	return fd;
err:
	close(fd);
	return rc;
}

static int send_all(int fd, const char *buf, size_t len, int64_t deadline)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		int rc;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -errno;
			rc = wait_fd(fd, POLLOUT, deadline);
			if (rc < 0)
				return rc;
			continue;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

/* Read up to the first newline. @return its length (without it) or -errno. */
static ssize_t recv_line(int fd, char **line, int64_t deadline)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nl;
	ssize_t rc;

	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			char *tmp;

			cap = cap ? cap * 2 : 65536;
			if (cap > VBRCTL_MAX_REPLY) {
				rc = -EMSGSIZE;
				goto err;
			}
			tmp = realloc(buf, cap);
			if (tmp == NULL) {
				rc = -ENOMEM;
				goto err;
			}
			buf = tmp;
		}
		n = recv(fd, buf + len, cap - len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				rc = -errno;
				goto err;
			}
			rc = wait_fd(fd, POLLIN, deadline);
			if (rc < 0)
				goto err;
			continue;
		}
		if (n == 0) {
			rc = -ECONNRESET; /* closed before a whole reply: said as such by main() */
			goto err;
		}
		nl = memchr(buf + len, '\n', n);
		len += n;
		if (nl != NULL) {
			*line = buf;
			return nl - buf;
		}
	}
err:
	free(buf);
	return rc;
}

static char *build_request(int argc, char **argv)
{
	json_t *words = json_array(), *req;
	char *s = NULL;
	int i;

	if (words == NULL)
		return NULL;
	for (i = 0; i < argc; i++) {
		json_t *w = json_string(argv[i]);

		if (w == NULL || json_array_append_new(words, w) < 0) {
			json_decref(words);
			return NULL; /* not UTF-8, or out of memory */
		}
	}
	req = json_pack("{s:o}", "argv", words);
	if (req != NULL)
		s = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	return s;
}

int main(int argc, char **argv)
{
	const char *sock = getenv("VBRD_SOCKET"), *instance = NULL;
	char path[PATH_MAX], *req = NULL, *reply = NULL;
	bool json = false, sock_set = false;
	long timeout_ms = VBRCTL_TIMEOUT_MS;
	bool timeout_set = false;
	int64_t deadline;
	int opt, fd = -1, status = 2;
	ssize_t len;

	if (sock == NULL || sock[0] == '\0')
		sock = VBRCTL_DEFAULT_SOCKET;
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "instance", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	while ((opt = getopt_long(argc, argv, "+hjs:i:t:", longopts, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'j':
			json = true;
			break;
		case 's':
			sock = optarg;
			sock_set = true;
			break;
		case 'i':
			instance = optarg;
			break;
		case 't':
			errno = 0;
			timeout_ms = strtol(optarg, &end, 10);
			timeout_set = true;
			if (errno != 0 || *end != '\0' || end == optarg || timeout_ms <= 0 ||
			    timeout_ms > 3600 * 1000) {
				fprintf(stderr, "vbrctl: -t: expected 1..3600000 ms, got '%s'\n",
					optarg);
				return 2;
			}
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (instance != NULL) {
		if (sock_set) {
			fprintf(stderr, "vbrctl: -s and -i are mutually exclusive\n");
			return 2;
		}
		if (instance[0] == '\0' || strchr(instance, '/') != NULL) {
			fprintf(stderr, "vbrctl: -i: invalid instance name '%s'\n", instance);
			return 2;
		}
		snprintf(path, sizeof(path), VBRCTL_RUN_DIR "/%s.sock", instance);
		sock = path;
	}

	if (!timeout_set && strcmp(argv[optind], "reload") == 0)
		timeout_ms = VBRCTL_RELOAD_TIMEOUT_MS;
	req = build_request(argc - optind, argv + optind);
	if (req == NULL) {
		fprintf(stderr, "vbrctl: cannot encode the command (not UTF-8?)\n");
		return 2;
	}
	deadline = now_ms() + timeout_ms;
	fd = connect_socket(sock, deadline);
	if (fd < 0) {
		fprintf(stderr, "vbrctl: cannot connect to %s: %s (is vbrd running?)\n", sock,
			strerror(-fd));
		goto out;
	}
	len = send_all(fd, req, strlen(req), deadline);
	if (len == 0)
		len = send_all(fd, "\n", 1, deadline);
	if (len == 0)
		len = recv_line(fd, &reply, deadline);
	if (len == -ETIMEDOUT) {
		fprintf(stderr, "vbrctl: no reply from %s within %ld ms\n", sock, timeout_ms);
		goto out;
	}
	if (len == -EPIPE || len == -ECONNRESET) {
		/* EOF, a reset, or EPIPE on send: vbrd dropped us before answering */
		fprintf(stderr,
			"vbrctl: vbrd closed the connection on %s without answering "
			"(stopping, or flooded with control connections?)\n",
			sock);
		goto out;
	}
	if (len < 0) {
		fprintf(stderr, "vbrctl: %s: %s\n", sock, strerror((int)-len));
		goto out;
	}
	status = render_reply(reply, len, json, stdout, stderr);
out:
	if (fd >= 0)
		close(fd);
	free(reply);
	free(req);
	return status;
}
