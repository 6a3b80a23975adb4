/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vbrctl: the command-line client of vbrd's control socket (protocol in
 * ctl.h). It sends the command words as {"argv": [...]}, reads one reply
 * line and prints it through the generic renderer (render.h). A reply
 * whose data holds a `cursor` is one page of a large table (show routes):
 * vbrctl asks for the next with the cursor as one more word, on the same
 * connection, until a page has none, and prints the pages as one reply
 * (their arrays joined). A command that names a cursor itself
 * (`show routes 7:2048`) gets that one page, its `cursor` shown.
 *
 * Exit status: 0 ok, 1 the daemon answered with an error, 2 usage error or
 * the daemon cannot be reached (or does not answer in time).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
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
/* the pages of one table together (show routes: ~150 bytes a route) */
#define VBRCTL_MAX_TABLE     (4ull << 30)
#define VBRCTL_MAX_TABLE_TXT "4 GiB"

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

/* Whether @p w is a page's cursor, GENERATION:ROW (decimal digits). */
static bool is_cursor(const char *w)
{
	size_t g = strspn(w, "0123456789");
	size_t r = g > 0 && w[g] == ':' ? strspn(w + g + 1, "0123456789") : 0;

	return r > 0 && w[g + 1 + r] == '\0';
}

/* Send @p req (one line) on @p fd and read the reply line into @p reply. @return its length or -errno. */
static ssize_t ask(int fd, const char *req, char **reply, int64_t deadline)
{
	ssize_t len = send_all(fd, req, strlen(req), deadline);

	if (len == 0)
		len = send_all(fd, "\n", 1, deadline);
	if (len == 0)
		len = recv_line(fd, reply, deadline);
	return len;
}

/*
 * @p *reply is a page with a cursor: read the others (each within
 * @p timeout_ms) and make *reply the whole table, or the first error
 * reply. @return 0, or -errno of the connection.
 */
static ssize_t read_pages(int fd, int argc, char **argv, char **reply, ssize_t *len,
			  long timeout_ms)
{
	json_t *first = json_loadb(*reply, (size_t)*len, 0, NULL);
	json_t *all = json_object_get(first, "data");
	json_t *generation = json_incref(json_object_get(all, "generation"));
	ssize_t rc = 0;
	char *last = NULL;
	char **words = calloc((size_t)argc + 1, sizeof(*words));

	if (words == NULL || !json_is_true(json_object_get(first, "ok")) || !json_is_object(all)) {
		free(words);
		json_decref(generation);
		json_decref(first);
		return 0;
	}
	memcpy(words, argv, (size_t)argc * sizeof(*words));
	uint64_t bytes = (uint64_t)*len;
	while (json_is_string(json_object_get(all, "cursor"))) {
		char *cursor = strdup(json_string_value(json_object_get(all, "cursor")));
		char *req, *page_line = NULL;
		json_t *page, *data, *v;
		const char *k;
		const char *bad = NULL;

		/* a cursor that does not move on, or a table beyond any sane
		 * size, is a daemon gone wrong: stop rather than loop */
		if (cursor != NULL && last != NULL && strcmp(cursor, last) == 0)
			bad = "the same cursor twice";
		else if (bytes > (uint64_t)VBRCTL_MAX_TABLE)
			bad = "a table of more than " VBRCTL_MAX_TABLE_TXT;
		if (cursor == NULL || bad != NULL) {
			fprintf(stderr, "vbrctl: paged reply: %s; stopped\n",
				bad ? bad : "out of memory");
			free(cursor);
			rc = -EPROTO;
			break;
		}
		free(last);
		last = strdup(cursor);

		words[argc] = cursor;
		req = build_request(argc + 1, words);
		free(cursor);
		if (req == NULL)
			break;
		rc = ask(fd, req, &page_line, now_ms() + timeout_ms);
		free(req);
		if (rc < 0) {
			free(page_line);
			break;
		}
		page = json_loadb(page_line, (size_t)rc, 0, NULL);
		data = json_object_get(page, "data");
		if (!json_is_true(json_object_get(page, "ok")) || !json_is_object(data)) {
			/* an error (a stale cursor) or garbage: that is the answer */
			free(*reply);
			*reply = page_line;
			*len = rc;
			json_decref(page);
			json_decref(generation);
			json_decref(first);
			free(last);
			free(words);
			return 0;
		}
		free(page_line);
		bytes += (uint64_t)rc;
		/* every page of one table: the same generation, arrays where
		 * the first page had them */
		v = json_object_get(data, "generation");
		bad = (v != NULL || generation != NULL) && !json_equal(v, generation)
			      ? "a page of another generation"
			      : NULL;
		json_object_foreach(data, k, v)
		{
			if (json_is_array(json_object_get(all, k)) != json_is_array(v))
				bad = "a page unlike the first";
		}
		if (bad != NULL) {
			fprintf(stderr, "vbrctl: paged reply: %s; stopped\n", bad);
			json_decref(page);
			rc = -EPROTO;
			break;
		}
		json_object_del(all, "cursor");
		json_object_foreach(data, k, v)
		{
			json_t *have = json_object_get(all, k);
			if (json_is_array(have))
				json_array_extend(have, v);
			else
				json_object_set(all, k, v);
		}
		json_decref(page);
	}
	free(last);
	free(words);
	json_decref(generation);
	if (rc >= 0) {
		char *whole;
		json_object_del(all, "cursor");
		whole = json_dumps(first, JSON_COMPACT);
		if (whole != NULL) {
			free(*reply);
			*reply = whole;
			*len = (ssize_t)strlen(whole);
		}
		rc = 0;
	}
	json_decref(first);
	return rc;
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
	len = ask(fd, req, &reply, deadline);
	if (len > 0 && strstr(reply, "\"cursor\"") != NULL && !is_cursor(argv[argc - 1])) {
		ssize_t rc = read_pages(fd, argc - optind, argv + optind, &reply, &len, timeout_ms);
		if (rc == -EPROTO)
			goto out; /* said why */
		if (rc < 0)
			len = rc;
	}
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
