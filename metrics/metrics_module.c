/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metrics module: the endpoint's socket and lifecycle, rendering pages
 * on the control loop, `vbrctl show metrics` (metrics/README.md).
 *
 * Threads. Everything here runs on the main lcore, as the show commands
 * whose replies a page is made of: no lock, nothing a worker does, no
 * state read by another thread, and a reload's frees cannot race a page
 * (each command reads the state it finds, as it does for vbrctl).
 *
 * Time. A page is rendered in steps of about METRICS_STEP_NS, one per
 * turn of the loop (the poll hook), with the scrapes suspended meanwhile;
 * concurrent scrapes share one page, and a page younger than
 * METRICS_REUSE_MS is served again rather than rendered: a flood of
 * requests costs at most a page per METRICS_REUSE_MS.
 *
 * Reload. The socket of a new address is opened while the new state is
 * built (state_build, on the reload thread): when it cannot be (in use,
 * not an address of this machine), the reload is refused with
 * "FILE:LINE: metrics.address: cannot listen on ...", and the running
 * endpoint stays. Once the state is published the endpoint moves to it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>

#include "core/ctl.h"
#include "core/log.h"
#include "core/module.h"
#include "metrics/metrics_config.h"
#include "metrics/metrics_http.h"
#include "metrics/metrics_render.h"
#include "pipeline/fwd.h"

VBRD_LOG_TYPE(metrics);

#define METRICS_PAGE_MAX  (16u << 20) /* bytes: far beyond the largest config's page */
#define METRICS_STEP_NS   1000000u    /* a page's work per turn of the control loop */
#define METRICS_REUSE_MS  100u        /* a page this young is served again */
#define METRICS_BACKLOG   16
#define METRICS_CMD_WORDS 8

static struct vbrd_module metrics_module;

/* A socket opened for a state's config, in st->feature[]: published, the endpoint takes it. */
struct metrics_sock {
	int fd;
};

static struct {
	bool started;           /* the start hook ran: the event loop exists */
	struct cfg_metrics cur; /* what the endpoint listens on (enabled false: off) */
	char error[256];        /* why it is not serving, when it should */
	struct metrics_page pg; /* being rendered */
	bool rendering;
	uint64_t render_start_ns;
	char *last; /* the last page, served again while young */
	size_t last_len;
	uint64_t last_done_ns;
	uint64_t renders, render_errors;
	uint64_t last_render_ns, last_work_ns, longest_step_ns, work_ns;
	unsigned last_samples;
} mx;

/* ---- the socket ---------------------------------------------------------- */

static int listen_socket(const struct cfg_metrics *m)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	int one = 1, fd;

	if (m->address.family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(m->port);
		memcpy(&s6->sin6_addr, m->address.v6, 16);
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(m->port);
		s4->sin_addr.s_addr = htonl(m->address.v4);
		sl = sizeof(*s4);
	}
	fd = socket(m->address.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* a restarted vbrd binds again while the old connections are in TIME_WAIT */
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, METRICS_BACKLOG) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/*
 * Into every new state: a socket for its config's address, unless the
 * running endpoint is there already (reload thread, or main at start-up).
 */
static int metrics_state_build(struct fwd_state *st, const struct fwd_state *prev, char *err,
			       size_t errlen)
{
	const struct cfg_metrics *m = cfg_metrics_get(&st->cfg);
	const struct cfg_metrics *old = prev ? cfg_metrics_get(&prev->cfg) : NULL;
	struct metrics_sock *ms;
	char a[INET6_ADDRSTRLEN + 8], b[INET6_ADDRSTRLEN + 8];
	int fd;

	if (!m->enabled || (old != NULL && cfg_metrics_same(m, old)))
		return 0;
	fd = listen_socket(m);
	if (fd < 0) {
		char hint[160] = "";

		if (fd == -EADDRINUSE && old != NULL && old->enabled && old->port == m->port)
			snprintf(hint, sizeof(hint),
				 " (the running endpoint holds %s: if the two overlap, move to "
				 "another port, or restart vbrd)",
				 cfg_metrics_format(old, b, sizeof(b)));
		else if (fd == -EADDRINUSE)
			snprintf(hint, sizeof(hint), " (another process listens there)");
		else if (fd == -EADDRNOTAVAIL)
			snprintf(hint, sizeof(hint), " (no interface of this machine has it)");
		snprintf(err, errlen, "%s: cannot listen on %s: %s%s", m->where,
			 cfg_metrics_format(m, a, sizeof(a)), strerror(-fd), hint);
		return fd;
	}
	ms = malloc(sizeof(*ms));
	if (ms == NULL) {
		close(fd);
		snprintf(err, errlen, "metrics: out of memory");
		return -ENOMEM;
	}
	ms->fd = fd;
	st->feature[metrics_module.id] = ms;
	return 0;
}

static void metrics_state_free(struct fwd_state *st)
{
	struct metrics_sock *ms = st->feature[metrics_module.id];

	if (ms == NULL)
		return;
	if (ms->fd >= 0)
		close(ms->fd);
	free(ms);
	st->feature[metrics_module.id] = NULL;
}

/* Move the endpoint to what @p st's config says (main lcore, event loop up). */
static void endpoint_apply(const struct fwd_state *st)
{
	const struct cfg_metrics *m = cfg_metrics_get(&st->cfg);
	struct metrics_sock *ms = st->feature[metrics_module.id];
	char a[INET6_ADDRSTRLEN + 8];

	if (!m->enabled) {
		if (mx.cur.enabled)
			LOG(NOTICE, "endpoint on %s closed: no section metrics",
			    cfg_metrics_format(&mx.cur, a, sizeof(a)));
		metrics_http_close();
		memset(&mx.cur, 0, sizeof(mx.cur));
		mx.error[0] = '\0';
		return;
	}
	if (ms == NULL || ms->fd < 0)
		return; /* the running endpoint is already there */
	metrics_http_close();
	mx.cur = *m;
	int ret = metrics_http_open(ms->fd, mx.error, sizeof(mx.error));
	ms->fd = -1; /* the endpoint's now, even when it failed (closed) */
	if (ret < 0) {
		LOG(ERR, "endpoint on %s: %s", cfg_metrics_format(m, a, sizeof(a)), mx.error);
		return;
	}
	mx.error[0] = '\0';
	LOG(NOTICE, "serving http://%s/metrics", cfg_metrics_format(m, a, sizeof(a)));
}

static void metrics_state_published(const struct fwd_state *st)
{
	if (mx.started) /* at start-up the start hook does it, once the event loop exists */
		endpoint_apply(st);
}

/* ---- rendering ----------------------------------------------------------- */

static int call_command(const char *cmd, json_t **reply)
{
	char words[128], err[256], *save = NULL;
	const char *argv[METRICS_CMD_WORDS];
	int argc = 0, ret;

	snprintf(words, sizeof(words), "%s", cmd);
	for (char *w = strtok_r(words, " ", &save); w != NULL && argc < METRICS_CMD_WORDS;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	ret = ctl_call(argc, argv, reply, err, sizeof(err));
	if (ret > 0) { /* deferred: no command a page reads answers later */
		json_decref(*reply);
		*reply = NULL;
		ret = -EINVAL;
	}
	if (ret < 0 && ret != -ENOENT)
		LOG(DEBUG, "%s: %s", cmd, err);
	return ret;
}

static void render_done(uint64_t now)
{
	struct metrics_page *pg = &mx.pg;
	char msg[160];

	mx.renders++;
	mx.render_errors += pg->cmd_errors;
	mx.last_render_ns = now - mx.render_start_ns;
	mx.last_work_ns = mx.work_ns;
	mx.rendering = false;
	if (pg->too_large || pg->nomem) {
		snprintf(msg, sizeof(msg), "vbrd: the metrics page %s\n",
			 pg->nomem ? "could not be made: out of memory"
				   : "passed its limit of 16 MiB");
		LOG(WARNING, "%s", msg);
		metrics_http_deliver(msg, strlen(msg), MHD_HTTP_INTERNAL_SERVER_ERROR);
		metrics_page_free(pg);
		return;
	}
	free(mx.last);
	mx.last = metrics_page_take(pg, &mx.last_len);
	mx.last_done_ns = now;
	mx.last_samples = pg->samples;
	metrics_page_free(pg);
	metrics_http_deliver(mx.last ? mx.last : "", mx.last_len, MHD_HTTP_OK);
}

/* A turn of the control loop: serve the waiting scrapes, a step of a page at a time. */
static unsigned metrics_poll(void)
{
	uint64_t now = metrics_now_ns();

	if (!mx.rendering) {
		if (metrics_http_waiting() == 0)
			return 0;
		if (mx.last != NULL && now - mx.last_done_ns < METRICS_REUSE_MS * 1000000ull) {
			metrics_http_deliver(mx.last, mx.last_len, MHD_HTTP_OK);
			return 1;
		}
		metrics_page_init(&mx.pg, METRICS_PAGE_MAX);
		mx.rendering = true;
		mx.render_start_ns = now;
		mx.work_ns = 0;
	}
	bool done = metrics_page_step(&mx.pg, metric_specs, metric_nb_specs, call_command,
				      now + METRICS_STEP_NS);
	uint64_t end = metrics_now_ns();
	mx.work_ns += end - now;
	if (end - now > mx.longest_step_ns)
		mx.longest_step_ns = end - now;
	if (done)
		render_done(end);
	return 1;
}

static void metrics_timer(uint64_t now_ms)
{
	(void)now_ms;
	metrics_http_tick();
}

/* ---- show metrics -------------------------------------------------------- */

static int show_metrics(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct metrics_http_stats *hs = metrics_http_stats();
	char a[INET6_ADDRSTRLEN + 8] = "";
	const char *state = !mx.cur.enabled ? "off" : metrics_http_is_open() ? "serving" : "error";

	(void)argc, (void)argv, (void)err, (void)errlen;
	if (mx.cur.enabled)
		cfg_metrics_format(&mx.cur, a, sizeof(a));
	*data = json_pack(
		"{s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I}", "state", state, "listen", a,
		"error", mx.error, "connections", (int)metrics_http_connections(), "requests",
		(json_int_t)hs->requests, "scrapes", (json_int_t)hs->scrapes, "scrape_errors",
		(json_int_t)hs->scrape_errors, "rejected", (json_int_t)hs->rejected, "renders",
		(json_int_t)mx.renders, "render_errors", (json_int_t)mx.render_errors);
	json_object_set_new(*data, "last_render_ms", json_real((double)mx.last_render_ns / 1e6));
	json_object_set_new(*data, "last_render_work_ms", json_real((double)mx.last_work_ns / 1e6));
	json_object_set_new(*data, "longest_step_ms", json_real((double)mx.longest_step_ns / 1e6));
	json_object_set_new(*data, "last_render_bytes", json_integer((json_int_t)mx.last_len));
	json_object_set_new(*data, "last_render_samples", json_integer(mx.last_samples));
	return 0;
}

/* ---- lifecycle ----------------------------------------------------------- */

static int metrics_init(const struct vbrd_config *cfg)
{
	char err[256];

	(void)cfg;
	/* a broken table is a programming error: caught at start-up and by the unit test */
	if (metrics_specs_check(metric_specs, metric_nb_specs, err, sizeof(err)) < 0) {
		LOG(ERR, "%s", err);
		return -EINVAL;
	}
	return 0;
}

static int metrics_start(void)
{
	int ret = ctl_register("show metrics",
			       "the Prometheus endpoint: where it listens, scrapes, errors, the "
			       "last page's time and size",
			       show_metrics);

	if (ret < 0)
		return ret;
	mx.started = true;
	endpoint_apply(atomic_load(&fwd_current));
	return 0;
}

static void metrics_fini(void)
{
	metrics_http_close();
	metrics_page_free(&mx.pg);
	free(mx.last);
	mx.last = NULL;
	mx.started = false;
}

static struct vbrd_module metrics_module = {
	.name = "metrics",
	.init = metrics_init,
	.state_build = metrics_state_build,
	.state_free = metrics_state_free,
	.state_published = metrics_state_published,
	.start = metrics_start,
	.poll = metrics_poll,
	.timer = metrics_timer,
	.timer_ms = 250,
	.fini = metrics_fini,
};
VBRD_MODULE(metrics_module);
