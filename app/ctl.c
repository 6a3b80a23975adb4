/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control socket server (protocol in ctl.h): newline-delimited JSON over a
 * UNIX stream socket, served from the main lcore's event loop.
 *
 * Every socket is non-blocking. Each client has an input buffer that holds
 * at most one partial request (CTL_MAX_REQUEST bytes; a longer line gets an
 * error reply and the connection is closed once the reply is written) and an
 * output buffer for replies the peer has not read yet; EPOLLOUT is watched
 * only while that buffer is non-empty. A client that stops reading while
 * still sending requests stops being read once CTL_OUT_HIGH bytes of replies
 * are pending, so one client cannot grow the daemon's memory without bound.
 *
 * The operator must always get in (CTL_MAX_CLIENTS in ctl.h):
 *  - a client idle for the idle timeout (no complete request, no reply being
 *    written) is closed; one whose reply is pending but who reads none of it
 *    for CTL_STALL_FACTOR times the idle timeout is closed too. A timerfd in
 *    the event loop checks every idle timeout / 10 (at most 500 ms).
 *  - when CTL_MAX_CLIENTS are connected, a new client evicts the one whose
 *    last activity (accept, complete request, reply bytes written) is the
 *    oldest, whether or not a reply is pending for it. A fresh client
 *    sends its request at once, so it is the last to be evicted: shutting
 *    the operator out takes CTL_MAX_CLIENTS new connections between its
 *    connect() and its request being read.
 *
 * Commands and their dispatch live in ctl_cmd.c. No DPDK here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "app/ctl.h"
#include "core/ctl_priv.h"
#include "core/evloop.h"

#define CTL_STALL_FACTOR    6          /* idle timeouts a pending reply may go unread */
#define CTL_TICK_MAX_MS     500        /* longest interval between idle checks */
#define CTL_OUT_HIGH        (1u << 20) /* bytes of unread replies before we stop reading */
#define CTL_READS_PER_EVENT 16         /* read() calls per wakeup (fairness) */
#define CTL_DRAIN_MAX       (1u << 20) /* bytes discarded after an oversize request */

#define container_of_client(ptr) \
	((struct ctl_client *)((char *)(ptr)-offsetof(struct ctl_client, h)))

struct ctl_client {
	struct ev_handler h; /* first: container_of_client() */
	LIST_ENTRY(ctl_client) link;
	char *in; /* CTL_MAX_REQUEST + 1 bytes */
	size_t in_len;
	char *out;
	size_t out_len, out_off, out_cap;
	uint32_t events;               /* what epoll watches now */
	bool eof;                      /* peer shut down its sending side */
	bool closing;                  /* write what is pending, then close */
	bool shut;                     /* closing, reply written: draining input */
	size_t drained;                /* bytes discarded while draining */
	bool dead;                     /* close now (I/O error) */
	uint64_t active_ms;            /* CLOCK_MONOTONIC of the last activity */
	uint64_t active_seq;           /* order of the last activity among clients */
	struct ctl_deferred *deferred; /* a reply that comes later (ctl_defer()) */
};

struct ctl_deferred {
	struct ctl_client *c; /* NULL once the client has gone */
};

/* The client whose request is being evaluated (for ctl_defer()). */
static struct ctl_client *ctl_current;

static struct {
	struct ev_handler h;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int reserve_fd; /* spare fd to shed connections on EMFILE */
	int nclients;
	LIST_HEAD(, ctl_client) clients;
	struct ev_handler timer; /* timerfd: idle checks */
	unsigned idle_ms;        /* idle timeout, ms */
	uint64_t seq;            /* last active_seq given */
} ctl_srv = {
	.h = { .fd = -1 }, .reserve_fd = -1, .timer = { .fd = -1 }, .idle_ms = CTL_IDLE_TIMEOUT_MS
};

/* ---- clients ------------------------------------------------------------- */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The client did something that makes it not idle. */
static void client_active(struct ctl_client *c)
{
	c->active_ms = now_ms();
	c->active_seq = ++ctl_srv.seq;
}

static void client_cb(struct ev_handler *h, uint32_t events);

static void client_close(struct ctl_client *c)
{
	if (c->deferred != NULL)
		c->deferred->c = NULL;
	ev_del(&c->h);
	close(c->h.fd);
	LIST_REMOVE(c, link);
	ctl_srv.nclients--;
	free(c->in);
	free(c->out);
	free(c);
}

static int client_queue(struct ctl_client *c, const char *s)
{
	size_t len = strlen(s);

	if (c->out_off > 0 && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len + len + 1 > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		char *tmp;

		while (cap < c->out_len + len + 1)
			cap *= 2;
		tmp = realloc(c->out, cap);
		if (tmp == NULL)
			return -ENOMEM;
		c->out = tmp;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, s, len);
	c->out[c->out_len + len] = '\n';
	c->out_len += len + 1;
	return 0;
}

/* Answer one request of @p len bytes; a lone trailing '\r' is ignored. */
static void client_request(struct ctl_client *c, const char *line, size_t len)
{
	char *reply;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	client_active(c);
	ctl_current = c;
	int rc = ctl_eval(line, len, &reply);
	ctl_current = NULL;
	if (rc == CTL_DEFERRED)
		return; /* ctl_deferred_reply() queues it */
	if (reply == NULL || client_queue(c, reply) < 0)
		c->dead = true; /* out of memory: drop the client, keep the daemon */
	free(reply);
}

static size_t client_pending(const struct ctl_client *c)
{
	return c->out_len - c->out_off;
}

/* Answer every complete line in the input buffer (while output has room). */
static void client_process(struct ctl_client *c)
{
	while (!c->dead && !c->closing && c->deferred == NULL && client_pending(c) < CTL_OUT_HIGH) {
		char *nl = memchr(c->in, '\n', c->in_len);
		size_t used;

		if (nl == NULL) {
			if (c->in_len > CTL_MAX_REQUEST) {
				char msg[96];
				char *reply;

				snprintf(msg, sizeof(msg), "request too long (more than %d bytes)",
					 CTL_MAX_REQUEST);
				reply = ctl_reply_error(msg);
				if (reply == NULL || client_queue(c, reply) < 0)
					c->dead = true;
				free(reply);
				c->closing = true;
				c->in_len = 0;
			} else if (c->eof && c->in_len > 0) {
				/* Last request without a newline: answer it too. */
				client_request(c, c->in, c->in_len);
				c->in_len = 0;
			}
			return;
		}
		client_request(c, c->in, nl - c->in);
		used = nl - c->in + 1;
		memmove(c->in, nl + 1, c->in_len - used);
		c->in_len -= used;
	}
}

static void client_flush(struct ctl_client *c)
{
	while (client_pending(c) > 0) {
		ssize_t n = send(c->h.fd, c->out + c->out_off, client_pending(c),
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				c->dead = true;
			return;
		}
		if (n > 0)
			client_active(c);
		c->out_off += n;
	}
	c->out_off = c->out_len = 0;
}

/*
 * After the error reply to an oversize request: our side is shut down for
 * writing; read and discard what the peer still sends until its EOF, so that
 * closing with unread input cannot reset the connection before the peer has
 * read the reply.
 */
static void client_drain(struct ctl_client *c)
{
	char scratch[4096];
	int i;

	for (i = 0; i < CTL_READS_PER_EVENT; i++) {
		ssize_t n = read(c->h.fd, scratch, sizeof(scratch));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				c->dead = true;
			return;
		}
		c->drained += n;
		if (n == 0 || c->drained > CTL_DRAIN_MAX) {
			c->dead = true;
			return;
		}
	}
}

static void client_read(struct ctl_client *c)
{
	int i;

	if (c->shut) {
		client_drain(c);
		return;
	}
	for (i = 0; i < CTL_READS_PER_EVENT; i++) {
		size_t room = CTL_MAX_REQUEST + 1 - c->in_len;
		ssize_t n;

		if (c->dead || c->closing || c->eof || room == 0 ||
		    client_pending(c) >= CTL_OUT_HIGH)
			return;
		n = read(c->h.fd, c->in + c->in_len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				c->dead = true;
			return;
		}
		if (n == 0)
			c->eof = true;
		c->in_len += n;
		client_process(c);
		client_flush(c);
	}
}

/* Watch what the client's state needs; close it when nothing is left. */
static void client_update(struct ctl_client *c)
{
	uint32_t want = 0;

	if (!c->dead && c->closing && !c->shut && client_pending(c) == 0) {
		if (shutdown(c->h.fd, SHUT_WR) < 0 || c->eof)
			c->dead = true;
		c->shut = true;
	}
	if (!c->dead && c->shut)
		want |= EPOLLIN;
	if (!c->dead && client_pending(c) > 0)
		want |= EPOLLOUT;
	if (!c->dead && !c->closing && !c->eof && client_pending(c) < CTL_OUT_HIGH &&
	    c->in_len <= CTL_MAX_REQUEST)
		want |= EPOLLIN;
	if (want == 0 && c->deferred != NULL && !c->dead) {
		/* waiting for its reply: only notice the peer shutting down
		 * (EPOLLHUP, its close, is always reported and kills it) */
		want = c->eof ? 0 : EPOLLRDHUP;
		if (want != c->events && ev_mod(&c->h, want) == 0)
			c->events = want;
		return;
	}
	if (want == 0) {
		/* dead, or finished: peer closed / oversize and all written */
		client_close(c);
		return;
	}
	if (want != c->events) {
		if (ev_mod(&c->h, want) < 0) {
			client_close(c);
			return;
		}
		c->events = want;
	}
}

static void client_cb(struct ev_handler *h, uint32_t events)
{
	struct ctl_client *c = container_of_client(h);

	if (events & EPOLLERR)
		c->dead = true;
	if (c->deferred != NULL && (events & EPOLLHUP))
		c->dead = true; /* gone while its reply was being worked on */
	if (events & EPOLLRDHUP)
		c->eof = true;
	if (events & EPOLLOUT) {
		client_flush(c);
		/* Room again: answer requests held back by CTL_OUT_HIGH. */
		client_process(c);
		client_flush(c);
	}
	if (events & (EPOLLIN | EPOLLHUP))
		client_read(c);
	if ((events & EPOLLHUP) && !(events & EPOLLIN))
		c->eof = true;
	client_update(c);
}

/* ---- deferred replies ---------------------------------------------------- */

struct ctl_deferred *ctl_defer(void)
{
	struct ctl_deferred *d;

	if (ctl_current == NULL || ctl_current->deferred != NULL)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return NULL;
	d->c = ctl_current;
	ctl_current->deferred = d;
	return d;
}

void ctl_defer_cancel(struct ctl_deferred *d)
{
	if (d->c != NULL)
		d->c->deferred = NULL;
	free(d);
}

void ctl_deferred_reply(struct ctl_deferred *d, int rc, json_t *data, const char *err)
{
	struct ctl_client *c = d->c;
	char *line = ctl_reply_line(rc, data, err);

	free(d);
	if (c == NULL) {
		free(line);
		return;
	}
	c->deferred = NULL;
	client_active(c);
	if (line == NULL || client_queue(c, line) < 0)
		c->dead = true;
	free(line);
	/* requests that arrived meanwhile, then the reply */
	client_process(c);
	client_flush(c);
	client_update(c);
}

/* ---- idle clients ---------------------------------------------------------- */

/* Idle past its timeout: nothing asked, or a pending reply left unread. */
static bool client_expired(const struct ctl_client *c, uint64_t now)
{
	uint64_t limit = ctl_srv.idle_ms;

	if (c->deferred != NULL)
		return false; /* its reply is being worked on */
	if (client_pending(c) > 0)
		limit *= CTL_STALL_FACTOR;
	return now - c->active_ms >= limit;
}

static void timer_cb(struct ev_handler *h, uint32_t events)
{
	struct ctl_client *c, *next;
	uint64_t ticks, now = now_ms();

	(void)events;
	while (read(h->fd, &ticks, sizeof(ticks)) == sizeof(ticks))
		;
	for (c = LIST_FIRST(&ctl_srv.clients); c != NULL; c = next) {
		next = LIST_NEXT(c, link);
		if (client_expired(c, now))
			client_close(c);
	}
}

/* Check every idle timeout / 10, between 10 and CTL_TICK_MAX_MS ms. */
static int timer_arm(void)
{
	unsigned tick = ctl_srv.idle_ms / 10;
	struct itimerspec its;

	if (tick < 10)
		tick = 10;
	if (tick > CTL_TICK_MAX_MS)
		tick = CTL_TICK_MAX_MS;
	its.it_interval.tv_sec = tick / 1000;
	its.it_interval.tv_nsec = (long)(tick % 1000) * 1000000;
	its.it_value = its.it_interval;
	return timerfd_settime(ctl_srv.timer.fd, 0, &its, NULL) < 0 ? -errno : 0;
}

int ctl_set_idle_timeout(unsigned ms)
{
	if (ms == 0 || ms > CTL_IDLE_TIMEOUT_MAX_MS)
		return -EINVAL;
	ctl_srv.idle_ms = ms;
	return ctl_srv.timer.fd >= 0 ? timer_arm() : 0;
}

/*
 * The client to close for a new one when the table is full: the oldest last
 * activity, busy or not. A client that leaves its reply unread makes no
 * progress and ages like an idle one; preferring idle clients instead would
 * let 64 unread replies make every fresh connection (vbrctl's) the victim.
 */
static struct ctl_client *longest_idle(void)
{
	struct ctl_client *c, *best = NULL;

	LIST_FOREACH(c, &ctl_srv.clients, link)
	if (best == NULL || c->active_seq < best->active_seq)
		best = c;
	return best;
}

/* ---- listening socket ---------------------------------------------------- */

/* EMFILE: accept with the spare fd freed, close at once, take it back. */
static void srv_shed_one(void)
{
	int fd;

	if (ctl_srv.reserve_fd < 0)
		return;
	close(ctl_srv.reserve_fd);
	fd = accept(ctl_srv.h.fd, NULL, NULL);
	if (fd >= 0)
		close(fd);
	ctl_srv.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void srv_cb(struct ev_handler *h, uint32_t events)
{
	int i;

	(void)events;
	for (i = 0; i < CTL_MAX_CLIENTS; i++) {
		struct ctl_client *c;
		int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				srv_shed_one();
			return; /* EAGAIN, or an error for that one peer */
		}
		if (ctl_srv.nclients >= CTL_MAX_CLIENTS)
			client_close(longest_idle()); /* the operator always gets in */
		c = calloc(1, sizeof(*c));
		if (c != NULL)
			c->in = malloc(CTL_MAX_REQUEST + 1);
		if (c == NULL || c->in == NULL) {
			if (c != NULL)
				free(c);
			close(fd);
			continue;
		}
		c->h.fd = fd;
		c->h.cb = client_cb;
		c->events = EPOLLIN;
		client_active(c);
		if (ev_add(&c->h, c->events) < 0) {
			free(c->in);
			free(c);
			close(fd);
			continue;
		}
		LIST_INSERT_HEAD(&ctl_srv.clients, c, link);
		ctl_srv.nclients++;
	}
}

/* mkdir -p the directory part of @p path, mode 0755. */
static int make_parent_dir(const char *path)
{
	char dir[sizeof(ctl_srv.path)];
	char *p;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (p == NULL || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(dir, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

/*
 * A socket file already at @p addr: in use if someone accepts (or has a full
 * backlog), stale if the connection is refused. Anything that is not a socket
 * is left alone (-EEXIST): the path may be a typo for a real file.
 */
static int check_existing(const struct sockaddr_un *addr)
{
	struct stat st;
	int fd, rc;

	if (lstat(addr->sun_path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)addr, sizeof(*addr));
	if (rc == 0 || errno == EAGAIN || errno == EINPROGRESS)
		rc = -EADDRINUSE;
	else if (errno == ECONNREFUSED || errno == ENOENT)
		rc = unlink(addr->sun_path) < 0 && errno != ENOENT ? -errno : 0;
	else
		rc = -errno;
	close(fd);
	return rc;
}

int ctl_init(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = -1, rc;

	if (path == NULL || path[0] == '\0')
		return -EINVAL;
	if (ctl_srv.h.fd >= 0)
		return -EALREADY;
	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	rc = make_parent_dir(path);
	if (rc < 0)
		return rc;
	rc = check_existing(&addr);
	if (rc < 0)
		return rc;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		rc = -errno;
		goto err_close;
	}
	if (chmod(path, 0660) < 0 || listen(fd, 16) < 0) {
		rc = -errno;
		goto err_unlink;
	}
	ctl_srv.h.fd = fd;
	ctl_srv.h.cb = srv_cb;
	rc = ev_add(&ctl_srv.h, EPOLLIN);
	if (rc < 0) {
		ctl_srv.h.fd = -1;
		goto err_unlink;
	}
	snprintf(ctl_srv.path, sizeof(ctl_srv.path), "%s", path);
	LIST_INIT(&ctl_srv.clients);
	ctl_srv.nclients = 0;
	ctl_srv.timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ctl_srv.timer.cb = timer_cb;
	if (ctl_srv.timer.fd < 0)
		rc = -errno;
	else if ((rc = timer_arm()) == 0)
		rc = ev_add(&ctl_srv.timer, EPOLLIN);
	if (rc < 0)
		goto err_timer;
	ctl_srv.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return 0;

err_timer:
	if (ctl_srv.timer.fd >= 0)
		close(ctl_srv.timer.fd);
	ctl_srv.timer.fd = -1;
	ev_del(&ctl_srv.h);
	ctl_srv.h.fd = -1;
err_unlink:
	unlink(path);
err_close:
	close(fd);
	return rc;
}

void ctl_fini(void)
{
	if (ctl_srv.h.fd >= 0) {
		while (!LIST_EMPTY(&ctl_srv.clients))
			client_close(LIST_FIRST(&ctl_srv.clients));
		ev_del(&ctl_srv.h);
		close(ctl_srv.h.fd);
		ctl_srv.h.fd = -1;
		unlink(ctl_srv.path);
		ctl_srv.path[0] = '\0';
	}
	if (ctl_srv.timer.fd >= 0) {
		ev_del(&ctl_srv.timer);
		close(ctl_srv.timer.fd);
		ctl_srv.timer.fd = -1;
	}
	ctl_srv.idle_ms = CTL_IDLE_TIMEOUT_MS;
	if (ctl_srv.reserve_fd >= 0)
		close(ctl_srv.reserve_fd);
	ctl_srv.reserve_fd = -1;
	ctl_registry_clear();
}
