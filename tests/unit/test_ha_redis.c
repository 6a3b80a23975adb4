/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's Redis client (failover/ha/ha_redis.c) against real servers:
 * a redis-server of the test's own on a free loopback port, and for
 * Sentinel a master, a replica and three redis-sentinel processes, all
 * with their files in a temporary directory and killed at the end (a
 * crash of the test takes them along: PR_SET_PDEATHSIG).
 *
 * The clients run on core/evloop.c as in vbrd: every wait drives
 * ev_run_once() and ha_redis_timer() until its condition holds, or fails
 * the test at a generous deadline. The test's own set-up and checks talk
 * to the servers with hiredis's blocking API (never the client's).
 *
 * Timings seen are printed as "# ..." lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <hiredis/hiredis.h>

#include "core/evloop.h"
#include "failover/ha/ha_redis.h"

#define PASSWORD "s3cret"

/* The Sentinel master's name, "vbrdPID": a sentinel of another test run
 * that took a port we thought free never knows it. */
static char master_name[32];

/* ---- clock and loop ---------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double ms_since(uint64_t t)
{
	return (double)(now_ns() - t) / 1e6;
}

struct node {
	struct ha_redis *h;
	char name[16];
	bool up;
	unsigned ups, downs;
	uint64_t up_ns, down_ns; /* of the last change */
	char events[64][64];     /* "FROM WHAT" */
	unsigned nb_events;
};

static struct node nodes[4];

/* One turn of vbrd's main loop: events, then every client's timer. */
static void pump(void)
{
	unsigned i;

	ev_run_once(1);
	for (i = 0; i < 4; i++)
		if (nodes[i].h != NULL)
			ha_redis_timer(nodes[i].h, now_ns());
}

static void pump_for(unsigned ms)
{
	uint64_t end = now_ns() + ms * 1000000ull;

	while (now_ns() < end)
		pump();
}

/* What the clients say went wrong last, for a failed wait's message. */
static void print_errors(void)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		if (nodes[i].h != NULL)
			fprintf(stderr, "node %s: up %d, last error \"%s\"\n", nodes[i].name,
				nodes[i].up, ha_redis_last_error(nodes[i].h));
}

#define WAIT_FOR(cond, ms)                                                               \
	do {                                                                             \
		uint64_t end_ = now_ns() + (uint64_t)(ms)*1000000ull;                    \
		while (!(cond)) {                                                        \
			if (now_ns() > end_) {                                           \
				print_errors();                                          \
				fail_msg("%s: not within %u ms", #cond, (unsigned)(ms)); \
			}                                                                \
			pump();                                                          \
		}                                                                        \
	} while (0)

/* ---- processes ------------------------------------------------------------------ */

static char tmpdir[] = "/tmp/test_ha_redis.XXXXXX";
static pid_t procs[16];

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static pid_t spawn(char *const argv[])
{
	char log[128];
	pid_t pid;
	unsigned i;
	int fd;

	snprintf(log, sizeof(log), "%s/stdout.log", tmpdir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		if (procs[i] == 0) {
			procs[i] = pid;
			return pid;
		}
	fail_msg("too many processes");
	return -1;
}

static void proc_forget(pid_t pid)
{
	unsigned i;

	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		if (procs[i] == pid)
			procs[i] = 0;
}

static void proc_kill(pid_t pid)
{
	unsigned i;

	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		if (procs[i] == pid && pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			procs[i] = 0;
		}
}

static void kill_all(void)
{
	unsigned i;

	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		if (procs[i] > 0)
			proc_kill(procs[i]);
}

/* The test's own blocking client: one command, NULL when the server does not answer. */
static redisReply *admin(int port, const char *pw, const char *fmt, ...)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
	redisReply *r = NULL;
	va_list ap;

	if (c == NULL || c->err) {
		redisFree(c);
		return NULL;
	}
	redisSetTimeout(c, tv);
	if (pw != NULL) {
		r = redisCommand(c, "AUTH %s", pw);
		freeReplyObject(r);
	}
	va_start(ap, fmt);
	r = redisvCommand(c, fmt, ap);
	va_end(ap);
	redisFree(c);
	return r;
}

/* Whether @p port answers a command with a reply containing @p want. */
static bool admin_says(int port, const char *pw, const char *want, const char *fmt, ...)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
	redisReply *r;
	bool ok;
	va_list ap;

	if (c == NULL || c->err) {
		redisFree(c);
		return false;
	}
	redisSetTimeout(c, tv);
	if (pw != NULL)
		freeReplyObject(redisCommand(c, "AUTH %s", pw));
	va_start(ap, fmt);
	r = redisvCommand(c, fmt, ap);
	va_end(ap);
	ok = r != NULL && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS) &&
	     strstr(r->str, want) != NULL;
	freeReplyObject(r);
	redisFree(c);
	return ok;
}

/*
 * Wait until the server on @p port answers as process @p pid: another test
 * run may have taken the port between free_port() and the bind, and would
 * answer our PING. @return true, false when @p pid exited (port taken).
 */
static bool started(pid_t pid, int port, const char *pw, const char *what)
{
	char want[32];
	uint64_t t = now_ns();

	snprintf(want, sizeof(want), "process_id:%d\r", (int)pid);
	while (!admin_says(port, pw, want, "INFO server")) {
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			proc_forget(pid);
			return false;
		}
		if (ms_since(t) > 5000)
			fail_msg("%s on port %d did not start", what, port);
		usleep(2000); /* polling the new process, not a fixed wait */
	}
	return true;
}

/* Start redis-server on @p port (a replica of @p master_port when not 0);
 * wait until it answers. @return its pid, 0 when the port was taken. */
static pid_t redis_start(int port, const char *pw, int master_port)
{
	char p[8], mp[8], log[128];
	char *argv[32] = { "redis-server",
			   "--port",
			   p,
			   "--bind",
			   "127.0.0.1",
			   "--save",
			   "",
			   "--appendonly",
			   "no",
			   "--dir",
			   tmpdir,
			   "--daemonize",
			   "no",
			   "--repl-diskless-sync-delay",
			   "0",
			   "--logfile",
			   log };
	unsigned n = 17;
	pid_t pid;

	snprintf(p, sizeof(p), "%d", port);
	snprintf(mp, sizeof(mp), "%d", master_port);
	snprintf(log, sizeof(log), "%s/redis-%d.log", tmpdir, port);
	if (pw != NULL) {
		argv[n++] = "--requirepass";
		argv[n++] = (char *)pw;
		argv[n++] = "--masterauth";
		argv[n++] = (char *)pw;
	}
	if (master_port != 0) {
		argv[n++] = "--replicaof";
		argv[n++] = "127.0.0.1";
		argv[n++] = mp;
	}
	pid = spawn(argv);
	return started(pid, port, pw, "redis-server") ? pid : 0;
}

/* redis_start() on a free port, into @p port. */
static pid_t redis_start_free(int *port, const char *pw, int master_port)
{
	pid_t pid = 0;
	unsigned i;

	for (i = 0; i < 10 && pid == 0; i++) {
		*port = free_port();
		pid = redis_start(*port, pw, master_port);
	}
	assert_true(pid > 0);
	return pid;
}

/* Start redis-sentinel on a free port, into @p port, watching @p master_port. */
static pid_t sentinel_start(int *port, int master_port)
{
	char conf[128], p[8];
	char *argv[] = { "redis-sentinel", conf, "--port", p, NULL };
	unsigned tries = 0;
	FILE *f;
	pid_t pid;

again:
	*port = free_port();

	snprintf(conf, sizeof(conf), "%s/sentinel-%d.conf", tmpdir, *port);
	snprintf(p, sizeof(p), "%d", *port);
	f = fopen(conf, "w");
	assert_non_null(f);
	/* Small times so that the whole test stays short: a master is down
	 * after 500 ms without an answer. failover-timeout bounds the wait for
	 * the promoted replica's INFO (1 s apart during a failover): at 1 s
	 * Sentinel aborted a failover now and then. */
	fprintf(f,
		"bind 127.0.0.1\n"
		"daemonize no\n"
		"dir %s\n"
		"logfile %s/sentinel-%d.log\n"
		"sentinel monitor %s 127.0.0.1 %d 2\n"
		"sentinel down-after-milliseconds %s 500\n"
		"sentinel failover-timeout %s 3000\n"
		"sentinel parallel-syncs %s 1\n"
		"sentinel auth-pass %s " PASSWORD "\n",
		tmpdir, tmpdir, *port, master_name, master_port, master_name, master_name,
		master_name, master_name);
	fclose(f);
	pid = spawn(argv);
	if (!started(pid, *port, NULL, "redis-sentinel")) {
		assert_true(++tries < 10);
		goto again;
	}
	return pid;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* ---- clients ---------------------------------------------------------------------- */

static void on_link(void *ctx, bool up)
{
	struct node *n = ctx;

	n->up = up;
	if (up) {
		n->ups++;
		n->up_ns = now_ns();
	} else {
		n->downs++;
		n->down_ns = now_ns();
	}
}

static void on_event(void *ctx, const char *from, const char *what)
{
	struct node *n = ctx;

	if (n->nb_events < 64)
		snprintf(n->events[n->nb_events++], sizeof(n->events[0]), "%s %s", from, what);
}

static bool saw(const struct node *n, const char *ev)
{
	unsigned i;

	for (i = 0; i < n->nb_events; i++)
		if (strcmp(n->events[i], ev) == 0)
			return true;
	return false;
}

static const struct ha_redis_ops node_ops = { .on_link = on_link, .on_event = on_event };

static struct ha_redis_cfg cfg_server(const char *host, int port, const char *pair,
				      uint32_t timeout_ms)
{
	struct ha_redis_cfg c = { .server.port = (uint16_t)port, .timeout_ms = timeout_ms };

	snprintf(c.server.host, sizeof(c.server.host), "%s", host);
	snprintf(c.prefix, sizeof(c.prefix), "vbrd:%s:", pair);
	return c;
}

static struct node *node_start(unsigned idx, const char *name, struct ha_redis_cfg c)
{
	struct node *n = &nodes[idx];

	assert_null(n->h);
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(c.node, sizeof(c.node), "%s", name);
	assert_int_equal(ha_redis_start(&c, &node_ops, n, &n->h), 0);
	return n;
}

static void node_stop(struct node *n)
{
	struct ha_redis *h = n->h;

	n->h = NULL; /* out of pump() first */
	ha_redis_stop(h);
}

/* Operation results: a static pool, so that a callback that comes after a
 * failed test (ha_redis_stop's -ECANCELED) never writes into a dead frame. */
struct wait {
	unsigned calls;
	int status;
	struct ha_op_result res;
	bool has_json;
	char json[256];
	uint64_t start_ns, done_ns;
};

static struct wait waits[256];
static unsigned nb_waits;

static struct wait *wait_new(void)
{
	struct wait *w = &waits[nb_waits++ % 256];

	memset(w, 0, sizeof(*w));
	w->start_ns = now_ns();
	return w;
}

static void lease_cb(void *ctx, const struct ha_op_result *res)
{
	struct wait *w = ctx;

	w->calls++;
	w->res = *res;
	w->status = res->status;
	w->done_ns = now_ns();
}

static void write_cb(void *ctx, int status)
{
	struct wait *w = ctx;

	w->calls++;
	w->status = status;
	w->done_ns = now_ns();
}

static void read_cb(void *ctx, int status, const char *json)
{
	struct wait *w = ctx;

	w->calls++;
	w->status = status;
	w->has_json = json != NULL;
	if (json != NULL)
		snprintf(w->json, sizeof(w->json), "%s", json);
	w->done_ns = now_ns();
}

static struct wait *lease_start(struct node *n, enum ha_op op, uint32_t ms, uint64_t epoch)
{
	struct wait *w = wait_new();

	assert_int_equal(ha_redis_lease(n->h, op, ms, epoch, lease_cb, w), 0);
	return w;
}

static struct ha_op_result lease(struct node *n, enum ha_op op, uint32_t ms, uint64_t epoch)
{
	struct wait *w = lease_start(n, op, ms, epoch);

	WAIT_FOR(w->calls > 0, 2000);
	assert_int_equal(w->calls, 1);
	return w->res;
}

static int write_state(struct node *n, bool shared, uint64_t epoch, const char *json,
		       uint32_t ttl_ms)
{
	struct wait *w = wait_new();

	assert_int_equal(ha_redis_write(n->h, shared, epoch, json, ttl_ms, write_cb, w), 0);
	WAIT_FOR(w->calls > 0, 2000);
	assert_int_equal(w->calls, 1);
	return w->status;
}

static struct wait *read_state(struct node *n, const char *node)
{
	struct wait *w = wait_new();

	assert_int_equal(ha_redis_read(n->h, node, read_cb, w), 0);
	WAIT_FOR(w->calls > 0, 2000);
	assert_int_equal(w->calls, 1);
	return w;
}

/* @p to sees @p from's publications: @p from publishes its state until it
 * does (the subscribe link comes up on its own, a little after on_link). */
static void wait_subscribed(struct node *from, struct node *to, uint64_t epoch)
{
	char ev[64];
	uint64_t end = now_ns() + 3000000000ull;

	snprintf(ev, sizeof(ev), "%s state", from->name);
	while (!saw(to, ev)) {
		if (now_ns() > end)
			fail_msg("%s never saw \"%s\"", to->name, ev);
		assert_int_equal(write_state(from, false, epoch, "{}", 10000), 0);
		pump_for(10);
	}
}

/* ---- set-up ---------------------------------------------------------------------- */

static int redis_port; /* the test's standalone server */
static pid_t redis_pid;

static int group_setup(void **state)
{
	(void)state;
	snprintf(master_name, sizeof(master_name), "vbrd%d", (int)getpid());
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	if (ev_init() < 0)
		return -1;
	redis_pid = redis_start_free(&redis_port, NULL, 0);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	kill_all();
	if (getenv("HA_REDIS_TEST_KEEP") != NULL) /* the servers' logs, to read */
		fprintf(stderr, "kept %s\n", tmpdir);
	else
		nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	ev_fini();
	return 0;
}

/* Whatever a test left: its clients stopped, the standalone server running again. */
static int teardown(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < 4; i++)
		if (nodes[i].h != NULL)
			node_stop(&nodes[i]);
	if (redis_pid > 0)
		kill(redis_pid, SIGCONT);
	return 0;
}

/* ---- tests ------------------------------------------------------------------------- */

static void test_config_and_down(void **state)
{
	struct ha_redis_cfg c = cfg_server("127.0.0.1", redis_port, "t0", 100);
	struct ha_redis *h;
	struct node *a;

	(void)state;
	snprintf(c.node, sizeof(c.node), "a");
	c.server.host[0] = '\0';
	assert_int_equal(ha_redis_start(&c, &node_ops, NULL, &h), -EINVAL);
	c.nb_sentinels = 1; /* a sentinel but no master name */
	assert_int_equal(ha_redis_start(&c, &node_ops, NULL, &h), -EINVAL);

	/* Before the link is up: -ENOTCONN at once, no callback. */
	a = node_start(0, "a", cfg_server("127.0.0.1", redis_port, "t0", 100));
	assert_false(ha_redis_up(a->h));
	assert_int_equal(ha_redis_lease(a->h, HA_OP_ACQUIRE, 100, 0, lease_cb, wait_new()),
			 -ENOTCONN);
	assert_int_equal(ha_redis_write(a->h, false, 1, "{}", 100, NULL, NULL), -ENOTCONN);
	assert_int_equal(ha_redis_read(a->h, NULL, read_cb, wait_new()), -ENOTCONN);
	WAIT_FOR(a->up, 2000);
	assert_int_equal(a->ups, 1);
	assert_int_equal(ha_redis_lease(a->h, (enum ha_op)99, 100, 0, lease_cb, wait_new()),
			 -EINVAL);
}

static void test_lease(void **state)
{
	struct node *a, *b;
	struct ha_op_result r;
	uint64_t e1, t;
	unsigned i;

	(void)state;
	a = node_start(0, "a", cfg_server("127.0.0.1", redis_port, "t1", 200));
	/* b by name: looked up without blocking (getaddrinfo_a) */
	b = node_start(1, "b", cfg_server("localhost", redis_port, "t1", 200));
	t = now_ns();
	WAIT_FOR(a->up && b->up, 3000);
	printf("# connect to up (TCP, SCRIPT LOAD x4): %.1f ms\n", ms_since(t));

	r = lease(a, HA_OP_ACQUIRE, 300, 0);
	assert_int_equal(r.status, 0);
	assert_true(r.held);
	assert_string_equal(r.holder, "a");
	assert_true(r.epoch >= 1);
	assert_true(r.pttl_ms > 0 && r.pttl_ms <= 300);
	e1 = r.epoch;

	/* The second node finds it held. */
	r = lease(b, HA_OP_ACQUIRE, 300, 0);
	assert_int_equal(r.status, 0);
	assert_false(r.held);
	assert_string_equal(r.holder, "a");
	assert_int_equal(r.epoch, e1);
	assert_true(r.pttl_ms > 0 && r.pttl_ms <= 300);

	/* Renew: only the holder, only with its epoch. */
	r = lease(b, HA_OP_RENEW, 300, e1);
	assert_false(r.held);
	assert_string_equal(r.holder, "a");
	r = lease(a, HA_OP_RENEW, 300, e1 + 1);
	assert_false(r.held);
	assert_string_equal(r.holder, "a");
	r = lease(a, HA_OP_RENEW, 300, e1);
	assert_true(r.held);
	assert_int_equal(r.epoch, e1);
	assert_true(r.pttl_ms > 250 && r.pttl_ms <= 300);

	/* Acquire by the holder itself (it restarted): not held, wait for expiry. */
	r = lease(a, HA_OP_ACQUIRE, 300, 0);
	assert_false(r.held);
	assert_string_equal(r.holder, "a");
	assert_int_equal(r.epoch, e1);

	/* Round trips of a script on loopback. */
	{
		uint64_t sum = 0, max = 0;

		for (i = 0; i < 100; i++) {
			lease(b, HA_OP_ACQUIRE, 300, 0);
			sum += ha_redis_stats(b->h)->last_rtt_us;
			if (ha_redis_stats(b->h)->last_rtt_us > max)
				max = ha_redis_stats(b->h)->last_rtt_us;
		}
		printf("# op RTT (EVALSHA acquire, loopback): mean %.0f us, max %" PRIu64 " us\n",
		       (double)sum / 100, max);
	}

	/* After PX expiry the second node acquires, with the next epoch. */
	t = now_ns();
	for (;;) {
		r = lease(b, HA_OP_ACQUIRE, 300, 0);
		if (r.held)
			break;
		assert_string_equal(r.holder, "a");
		if (ms_since(t) > 1000)
			fail_msg("b never acquired");
		pump_for(10);
	}
	assert_int_equal(r.epoch, e1 + 1);
	assert_string_equal(r.holder, "b");
	assert_true(ms_since(t) < 400); /* a's lease had 300 ms at most */

	/* a's renew now finds b's lease. */
	r = lease(a, HA_OP_RENEW, 300, e1);
	assert_false(r.held);
	assert_string_equal(r.holder, "b");
	assert_int_equal(r.epoch, e1 + 1);
	assert_int_equal(ha_redis_stats(a->h)->op_errors, 0);
}

static void test_release_event(void **state)
{
	struct node *a, *b;
	struct ha_op_result r;
	redisReply *rep;
	uint64_t e, t;
	unsigned i;

	(void)state;
	a = node_start(0, "a", cfg_server("127.0.0.1", redis_port, "t2", 200));
	b = node_start(1, "b", cfg_server("127.0.0.1", redis_port, "t2", 200));
	WAIT_FOR(a->up && b->up, 3000);
	r = lease(a, HA_OP_ACQUIRE, 5000, 0);
	assert_true(r.held);
	e = r.epoch;
	wait_subscribed(a, b, e);
	wait_subscribed(b, a, e);
	for (i = 0; i < a->nb_events; i++)
		assert_true(strncmp(a->events[i], "a ", 2) != 0); /* never our own */

	/* The subscribe link alone drops: it comes back by itself, and the
	 * command link (on_link) never noticed. */
	rep = admin(redis_port, NULL, "CLIENT KILL TYPE pubsub");
	assert_true(rep != NULL && rep->type == REDIS_REPLY_INTEGER && rep->integer >= 2);
	freeReplyObject(rep);
	b->nb_events = 0;
	wait_subscribed(a, b, e);
	assert_int_equal(a->downs + b->downs, 0);

	/* A release with another epoch does nothing. */
	r = lease(a, HA_OP_RELEASE, 0, e + 1);
	assert_false(r.held);
	assert_string_equal(r.holder, "a");

	t = now_ns();
	r = lease(a, HA_OP_RELEASE, 0, e);
	assert_int_equal(r.status, 0);
	assert_false(r.held);
	assert_string_equal(r.holder, "");
	assert_int_equal(r.pttl_ms, -2);
	WAIT_FOR(saw(b, "a released"), 1000);
	printf("# release to the other node's event: %.2f ms\n", ms_since(t));
	assert_false(saw(a, "a released"));

	r = lease(b, HA_OP_ACQUIRE, 5000, 0);
	assert_true(r.held);
	assert_int_equal(r.epoch, e + 1);
	assert_true(ha_redis_stats(b->h)->events_rx >= 2);
}

static void test_fenced_writes(void **state)
{
	struct node *a, *b;
	struct ha_op_result r;
	struct wait *w;
	redisReply *rep;
	uint64_t e;

	(void)state;
	a = node_start(0, "a", cfg_server("127.0.0.1", redis_port, "t3", 200));
	b = node_start(1, "b", cfg_server("127.0.0.1", redis_port, "t3", 200));
	WAIT_FOR(a->up && b->up, 3000);
	r = lease(a, HA_OP_ACQUIRE, 5000, 0);
	assert_true(r.held);
	e = r.epoch;
	assert_true(e >= 1);

	assert_int_equal(write_state(a, false, e, "{\"role\":\"active\"}", 10000), 0);
	assert_int_equal(write_state(a, true, e, "{\"groups\":[1]}", 10000), 0);
	w = read_state(b, "a");
	assert_int_equal(w->status, 0);
	assert_true(w->has_json);
	assert_string_equal(w->json, "{\"role\":\"active\"}");
	w = read_state(b, NULL);
	assert_true(w->has_json);
	assert_string_equal(w->json, "{\"groups\":[1]}");
	w = read_state(b, "nobody");
	assert_int_equal(w->status, 0);
	assert_false(w->has_json);

	/* Fenced: shared by a non-holder, and anything with an old epoch. */
	assert_int_equal(write_state(b, true, e, "{\"groups\":[2]}", 10000), -ESTALE);
	assert_int_equal(write_state(a, true, e - 1, "{\"groups\":[3]}", 10000), -ESTALE);
	assert_int_equal(write_state(b, false, e - 1, "{}", 10000), -ESTALE);
	assert_int_equal(write_state(b, false, e, "{\"role\":\"standby\"}", 10000), 0);
	w = read_state(a, NULL);
	assert_string_equal(w->json, "{\"groups\":[1]}");
	assert_int_equal(ha_redis_stats(b->h)->fenced, 2);
	assert_int_equal(ha_redis_stats(a->h)->fenced, 1);

	/* A state's expiry. */
	assert_int_equal(write_state(b, false, e, "{}", 30), 0);
	WAIT_FOR(!read_state(a, "b")->has_json, 1000);

	/* The server lost the scripts: EVALSHA's NOSCRIPT falls back to EVAL. */
	rep = admin(redis_port, NULL, "SCRIPT FLUSH");
	assert_non_null(rep);
	freeReplyObject(rep);
	r = lease(a, HA_OP_RENEW, 5000, e);
	assert_int_equal(r.status, 0);
	assert_true(r.held);
	assert_int_equal(write_state(a, true, e, "{\"groups\":[4]}", 10000), 0);
	assert_int_equal(ha_redis_stats(a->h)->op_errors, 0);
}

static void test_timeout(void **state)
{
	struct node *a;
	struct wait *w, *w2;
	struct ha_op_result r;
	uint64_t t;
	double dt;

	(void)state;
	a = node_start(0, "a", cfg_server("127.0.0.1", redis_port, "t4", 100));
	WAIT_FOR(a->up, 3000);

	/* A server that does not answer: -ETIMEDOUT once, after timeout_ms. */
	assert_int_equal(kill(redis_pid, SIGSTOP), 0);
	w = lease_start(a, HA_OP_ACQUIRE, 1000, 0);
	WAIT_FOR(w->calls > 0, 1000);
	dt = (double)(w->done_ns - w->start_ns) / 1e6;
	printf("# -ETIMEDOUT after %.1f ms (timeout 100 ms)\n", dt);
	assert_int_equal(w->status, -ETIMEDOUT);
	assert_true(dt >= 100 && dt < 150);
	assert_true(a->up); /* one timeout is not a dead link */

	/* The late reply is ignored: the next answer comes after it on the link. */
	assert_int_equal(kill(redis_pid, SIGCONT), 0);
	r = lease(a, HA_OP_ACQUIRE, 1000, 0);
	assert_int_equal(r.status, 0);
	assert_int_equal(w->calls, 1);
	assert_int_equal(ha_redis_stats(a->h)->op_timeouts, 1);

	/* A link whose command stays unanswered is dropped (after max(1 s, 4 x
	 * timeout)), and made again once the server answers. */
	assert_int_equal(kill(redis_pid, SIGSTOP), 0);
	t = now_ns();
	w = lease_start(a, HA_OP_ACQUIRE, 1000, 0);
	WAIT_FOR(!a->up, 2000);
	printf("# unanswered link dropped after %.0f ms\n", ms_since(t));
	assert_true(ms_since(t) >= 1000);
	assert_int_equal(w->calls, 1);
	assert_int_equal(w->status, -ETIMEDOUT);
	assert_int_equal(kill(redis_pid, SIGCONT), 0);
	t = now_ns();
	WAIT_FOR(a->up, 3000);
	printf("# link back %.0f ms after SIGCONT\n", ms_since(t));
	printf("# last error: %s\n", ha_redis_last_error(a->h));
	assert_non_null(strstr(ha_redis_last_error(a->h), "command 127.0.0.1:"));

	/* Stop with operations in flight: -ECANCELED, once each. */
	assert_int_equal(kill(redis_pid, SIGSTOP), 0);
	w = lease_start(a, HA_OP_ACQUIRE, 1000, 0);
	w2 = wait_new();
	assert_int_equal(ha_redis_write(a->h, false, 1, "{}", 1000, write_cb, w2), 0);
	pump_for(20);
	node_stop(a);
	assert_int_equal(w->calls, 1);
	assert_int_equal(w->status, -ECANCELED);
	assert_int_equal(w2->calls, 1);
	assert_int_equal(w2->status, -ECANCELED);
	assert_int_equal(kill(redis_pid, SIGCONT), 0);
}

static void test_link_down_up(void **state)
{
	struct node *a;
	struct wait *w;
	uint64_t t, t_ready;

	(void)state;
	a = node_start(0, "a", cfg_server("127.0.0.1", redis_port, "t5", 200));
	WAIT_FOR(a->up, 3000);

	/* The server dies with an operation in flight: -ENOTCONN, link down. */
	assert_int_equal(kill(redis_pid, SIGSTOP), 0);
	w = lease_start(a, HA_OP_ACQUIRE, 1000, 0);
	proc_kill(redis_pid);
	redis_pid = 0;
	t = now_ns();
	WAIT_FOR(!a->up, 1000);
	printf("# link down seen %.2f ms after the kill\n", ms_since(t));
	assert_int_equal(w->calls, 1);
	assert_int_equal(w->status, -ENOTCONN);
	assert_int_equal(a->downs, 1);
	assert_int_equal(ha_redis_lease(a->h, HA_OP_ACQUIRE, 1000, 0, lease_cb, wait_new()),
			 -ENOTCONN);

	/* Attempts at +10, +30, +70, +150, +310 ms, the next at +630 ms. */
	pump_for(400);
	assert_false(a->up);
	redis_pid = redis_start(redis_port, NULL, 0);
	assert_true(redis_pid > 0);
	t_ready = now_ns();
	WAIT_FOR(a->up, 2000);
	printf("# reconnect after restart (backoff at 320 ms): %.0f ms after the server "
	       "answered, %.0f ms after the kill\n",
	       ms_since(t_ready) - ms_since(a->up_ns), (double)(a->up_ns - t) / 1e6);
	assert_true(a->up_ns - t >= 600000000ull); /* waited its backoff */
	assert_int_equal(lease(a, HA_OP_ACQUIRE, 1000, 0).status, 0);

	/* Up again: the backoff is back at 10 ms. */
	proc_kill(redis_pid);
	t = now_ns();
	redis_pid = redis_start(redis_port, NULL, 0);
	assert_true(redis_pid > 0);
	t_ready = now_ns();
	WAIT_FOR(a->ups == 3, 2000);
	printf("# second reconnect: %.0f ms after the kill (server start %.0f ms)\n",
	       (double)(a->up_ns - t) / 1e6, (double)(t_ready - t) / 1e6);
	assert_int_equal(a->downs, 2);
	assert_int_equal(ha_redis_stats(a->h)->connects, 3);
	assert_int_equal(ha_redis_stats(a->h)->disconnects, 2);
	assert_int_equal(lease(a, HA_OP_ACQUIRE, 1000, 0).status, 0);
}

/* ---- Sentinel ---------------------------------------------------------------------- */

static int s_master, s_replica, s_sentinel[3];

/* Every sentinel monitors @p master, knows @p others other sentinels and
 * (when @p replica is not 0) has seen @p replica in sync, fit to promote. */
static bool sentinels_ready(int master, int replica, unsigned others)
{
	char want[32];
	unsigned i;

	snprintf(want, sizeof(want), "%d", replica);
	for (i = 0; i < 3; i++) {
		redisReply *r = admin(s_sentinel[i], NULL, "SENTINEL REPLICAS %s", master_name);
		bool ok = r != NULL && r->type == REDIS_REPLY_ARRAY && r->elements == 1;
		size_t j;

		for (j = 0; ok && replica != 0 && j + 1 < r->element[0]->elements; j += 2) {
			const char *k = r->element[0]->element[j]->str;
			const char *v = r->element[0]->element[j + 1]->str;

			if (strcmp(k, "port") == 0 && strcmp(v, want) != 0)
				ok = false;
			if (strcmp(k, "flags") == 0 && strcmp(v, "slave") != 0)
				ok = false;
			if (strcmp(k, "master-link-status") == 0 && strcmp(v, "ok") != 0)
				ok = false;
		}
		freeReplyObject(r);
		if (!ok)
			return false;
		r = admin(s_sentinel[i], NULL, "SENTINEL MASTER %s", master_name);
		ok = r != NULL && r->type == REDIS_REPLY_ARRAY;
		for (j = 0; ok && j + 1 < r->elements; j += 2) {
			if (strcmp(r->element[j]->str, "port") == 0 &&
			    atoi(r->element[j + 1]->str) != master)
				ok = false;
			if (strcmp(r->element[j]->str, "num-other-sentinels") == 0 &&
			    (unsigned)atoi(r->element[j + 1]->str) < others)
				ok = false;
		}
		freeReplyObject(r);
		if (!ok)
			return false;
	}
	return true;
}

/* A reply's field-value pairs on one line. */
static void print_fields(const char *what, const redisReply *r)
{
	size_t j;

	fprintf(stderr, "%s:", what);
	for (j = 0; r != NULL && r->type == REDIS_REPLY_ARRAY && j + 1 < r->elements; j += 2)
		if (r->element[j]->type == REDIS_REPLY_STRING &&
		    r->element[j + 1]->type == REDIS_REPLY_STRING)
			fprintf(stderr, " %s=%s", r->element[j]->str, r->element[j + 1]->str);
	fprintf(stderr, "\n");
}

/* What the sentinels think, for a failed wait's message. */
static void sentinels_print(void)
{
	unsigned i;
	size_t j;

	for (i = 0; i < 3; i++) {
		redisReply *r = admin(s_sentinel[i], NULL, "SENTINEL MASTER %s", master_name);

		print_fields("master", r);
		freeReplyObject(r);
		r = admin(s_sentinel[i], NULL, "SENTINEL REPLICAS %s", master_name);
		for (j = 0; r != NULL && r->type == REDIS_REPLY_ARRAY && j < r->elements; j++)
			print_fields("  replica", r->element[j]);
		freeReplyObject(r);
	}
}

static void wait_sentinels(int master, int replica, unsigned others, unsigned ms)
{
	uint64_t t = now_ns();

	while (!sentinels_ready(master, replica, others)) {
		if (ms_since(t) > ms) {
			sentinels_print();
			fail_msg("sentinels not ready within %u ms", ms);
		}
		pump_for(20);
	}
}

static bool master_is(const struct node *n, int port)
{
	char want[32];

	snprintf(want, sizeof(want), "127.0.0.1:%d", port);
	return n->up && strcmp(ha_redis_master(n->h), want) == 0;
}

static void test_sentinel(void **state)
{
	struct ha_redis_cfg c = { .timeout_ms = 100 };
	pid_t master_pid, replica_pid;
	struct ha_op_result r;
	struct node *a;
	redisReply *rep;
	uint64_t t, e;
	unsigned i;

	(void)state;
	master_pid = redis_start_free(&s_master, PASSWORD, 0);
	replica_pid = redis_start_free(&s_replica, PASSWORD, s_master);
	t = now_ns();
	while (!admin_says(s_replica, PASSWORD, "master_link_status:up", "INFO replication")) {
		if (ms_since(t) > 5000)
			fail_msg("the replica did not sync");
		usleep(2000);
	}
	for (i = 0; i < 3; i++)
		sentinel_start(&s_sentinel[i], s_master);
	t = now_ns();
	wait_sentinels(s_master, s_replica, 0, 10000);
	printf("# sentinels ready in %.0f ms\n", ms_since(t));

	/* The first sentinel listed is down: the client asks the next. */
	snprintf(c.master_name, sizeof(c.master_name), "%s", master_name);
	snprintf(c.password, sizeof(c.password), PASSWORD);
	snprintf(c.prefix, sizeof(c.prefix), "vbrd:t6:");
	snprintf(c.sentinels[0].host, sizeof(c.sentinels[0].host), "127.0.0.1");
	c.sentinels[0].port = (uint16_t)free_port();
	for (i = 0; i < 3; i++) {
		snprintf(c.sentinels[i + 1].host, sizeof(c.sentinels[0].host), "127.0.0.1");
		c.sentinels[i + 1].port = (uint16_t)s_sentinel[i];
	}
	c.nb_sentinels = 4;
	a = node_start(0, "a", c);
	t = now_ns();
	WAIT_FOR(a->up, 3000);
	printf("# found the master through the sentinels in %.1f ms\n", ms_since(t));
	assert_true(master_is(a, s_master));
	assert_true(ha_redis_stats(a->h)->sentinel_queries >= 2);
	r = lease(a, HA_OP_ACQUIRE, 10000, 0);
	assert_true(r.held);
	e = r.epoch;
	assert_int_equal(write_state(a, false, e, "{\"n\":1}", 10000), 0);
	/* Replication is asynchronous: a failover loses what the replica has
	 * not received yet (right after its first sync, a master streams to it
	 * only after its first REPLCONF ACK, up to 1 s later). Have it first. */
	t = now_ns();
	while (!admin_says(s_replica, PASSWORD, "{\"n\":1}", "GET vbrd:t6:state:a")) {
		if (ms_since(t) > 5000)
			fail_msg("the replica did not get the writes");
		pump_for(5);
	}
	printf("# replica has the writes after %.0f ms\n", ms_since(t));

	/* A failover: the client moves to the new master (+switch-master, or
	 * its link killed by the sentinel and the question asked again). */
	t = now_ns();
	for (;;) {
		rep = admin(s_sentinel[0], NULL, "SENTINEL FAILOVER %s", master_name);
		if (rep != NULL && rep->type == REDIS_REPLY_STATUS)
			break;
		if (ms_since(t) > 5000)
			fail_msg("SENTINEL FAILOVER: %s", rep != NULL ? rep->str : "no answer");
		freeReplyObject(rep);
		pump_for(50);
	}
	freeReplyObject(rep);
	WAIT_FOR(master_is(a, s_replica), 10000);
	printf("# SENTINEL FAILOVER to the client on the new master: %.0f ms\n", ms_since(t));
	r = lease(a, HA_OP_RENEW, 10000, e);
	printf("# renew there: status %d held %d holder \"%s\" epoch %" PRIu64 " (ours %" PRIu64
	       ") pttl %" PRId64 "\n",
	       r.status, r.held, r.holder, r.epoch, e, r.pttl_ms);
	assert_int_equal(r.status, 0);
	assert_true(r.held); /* the lease came over by replication */
	assert_int_equal(write_state(a, false, e, "{\"n\":2}", 10000), 0);
	printf("# ... and an operation answered there: %.0f ms\n", ms_since(t));
	assert_true(admin_says(s_replica, PASSWORD, "{\"n\":2}", "GET vbrd:t6:state:a"));
	assert_int_equal(ha_redis_stats(a->h)->master_changes, 1);

	/* The new master dies: the sentinels agree it is down (500 ms) and
	 * promote the old one, made its replica first (Sentinel itself would
	 * do that only 8 s after the failover: 4 x its publish period). */
	rep = admin(s_master, PASSWORD, "REPLICAOF 127.0.0.1 %d", s_replica);
	assert_non_null(rep);
	freeReplyObject(rep);
	t = now_ns();
	while (!admin_says(s_master, PASSWORD, "master_link_status:up", "INFO replication")) {
		if (ms_since(t) > 5000)
			fail_msg("the old master did not sync from the new one");
		pump_for(5);
	}
	wait_sentinels(s_replica, 0, 2, 10000);
	t = now_ns();
	while (!admin_says(s_master, PASSWORD, "{\"n\":2}", "GET vbrd:t6:state:a")) {
		if (ms_since(t) > 5000)
			fail_msg("the new replica did not get the writes");
		pump_for(5);
	}
	t = now_ns();
	proc_kill(replica_pid);
	WAIT_FOR(master_is(a, s_master), 15000);
	printf("# master killed to the client on the next one: %.0f ms (down-after 500 ms)\n",
	       ms_since(t));
	r = lease(a, HA_OP_RENEW, 10000, e);
	assert_int_equal(r.status, 0);
	assert_true(r.held);
	assert_int_equal(ha_redis_stats(a->h)->master_changes, 2);
	printf("# stats: connects %" PRIu64 " disconnects %" PRIu64 " sentinel_queries %" PRIu64
	       " last error \"%s\"\n",
	       ha_redis_stats(a->h)->connects, ha_redis_stats(a->h)->disconnects,
	       ha_redis_stats(a->h)->sentinel_queries, ha_redis_last_error(a->h));
	node_stop(a);
	(void)master_pid;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_config_and_down, teardown),
		cmocka_unit_test_teardown(test_lease, teardown),
		cmocka_unit_test_teardown(test_release_event, teardown),
		cmocka_unit_test_teardown(test_fenced_writes, teardown),
		cmocka_unit_test_teardown(test_timeout, teardown),
		cmocka_unit_test_teardown(test_link_down_up, teardown),
		cmocka_unit_test_teardown(test_sentinel, teardown),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	atexit(kill_all);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
