/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmicrohttpd in external-epoll mode on the control loop (metrics_http.h).
 *
 * A request's life: MHD calls on_request() once the headers are read
 * (*con_cls NULL): a wrong path or method is answered at once; a GET or
 * HEAD of /metrics gets a struct scrape. At the next call (the headers
 * done, no body) the scrape is suspended and waits in the list; the
 * module delivers a page, which resumes it, and MHD calls on_request()
 * a last time: the response is queued. MHD answers HEAD without the body.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "core/evloop.h"
#include "core/log.h"
#include "metrics/metrics_http.h"

VBRD_LOG_USE(metrics);

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct scrape {
	TAILQ_ENTRY(scrape) link;
	struct MHD_Connection *conn;
	struct MHD_Response *resp; /* delivered, to queue */
	unsigned status;
	bool waiting; /* suspended, in the list */
};

static struct {
	struct MHD_Daemon *d;
	struct ev_handler h; /* MHD's epoll set */
	TAILQ_HEAD(, scrape) waiting;
	unsigned nb_waiting;
	struct metrics_http_stats st;
	/* MHD's own messages, at most LOG_BURST a minute (a client can cause them) */
	uint64_t log_window;
	unsigned log_count;
} http = {
	.h = { .fd = -1 },
	.waiting = TAILQ_HEAD_INITIALIZER(http.waiting),
};

#define LOG_BURST 5

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	uint64_t minute = (uint64_t)time(NULL) / 60;
	char msg[256];
	size_t n;

	(void)cls;
	if (minute != http.log_window) {
		http.log_window = minute;
		http.log_count = 0;
	}
	if (http.log_count++ >= LOG_BURST)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	LOG(NOTICE, "http: %s%s", msg,
	    http.log_count == LOG_BURST ? " (more this minute not logged)" : "");
}

/* A short text answer (errors). */
static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct scrape *s = *con_cls;

	(void)cls, (void)version, (void)upload_data;
	if (s == NULL) {
		http.st.requests++;
		if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
		    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
			http.st.rejected++;
			return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
					   "vbrd: only GET and HEAD of /metrics\n");
		}
		if (strcmp(url, "/metrics") != 0) {
			http.st.rejected++;
			return answer_text(c, MHD_HTTP_NOT_FOUND,
					   "vbrd: the metrics are at /metrics\n");
		}
		s = calloc(1, sizeof(*s));
		if (s == NULL)
			return MHD_NO;
		s->conn = c;
		*con_cls = s;
		return MHD_YES;
	}
	if (*upload_data_size != 0) { /* a GET with a body: not read */
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (s->resp != NULL) { /* resumed: the page is here */
		enum MHD_Result ret = MHD_queue_response(c, s->status, s->resp);

		MHD_destroy_response(s->resp);
		s->resp = NULL;
		return ret;
	}
	if (s->status != 0) /* delivered, but no response could be made */
		return MHD_NO;
	s->waiting = true;
	TAILQ_INSERT_TAIL(&http.waiting, s, link);
	http.nb_waiting++;
	MHD_suspend_connection(c);
	return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct scrape *s = *con_cls;

	(void)cls, (void)c, (void)toe;
	if (s == NULL)
		return;
	if (s->waiting) { /* not expected: suspended connections are not completed */
		TAILQ_REMOVE(&http.waiting, s, link);
		http.nb_waiting--;
	}
	if (s->resp != NULL)
		MHD_destroy_response(s->resp);
	free(s);
	*con_cls = NULL;
}

static void run(void)
{
	if (http.d != NULL && MHD_run(http.d) != MHD_YES)
		LOG(DEBUG, "MHD_run failed");
}

static void on_ready(struct ev_handler *h, uint32_t events)
{
	(void)h, (void)events;
	run();
}

void metrics_http_deliver(const char *page, size_t len, unsigned status)
{
	struct scrape *s;

	while ((s = TAILQ_FIRST(&http.waiting)) != NULL) {
		TAILQ_REMOVE(&http.waiting, s, link);
		http.nb_waiting--;
		s->waiting = false;
		s->status = status;
		s->resp = MHD_create_response_from_buffer(len, (void *)page, MHD_RESPMEM_MUST_COPY);
		if (s->resp != NULL)
			MHD_add_response_header(
				s->resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK ? CONTENT_TYPE : "text/plain; charset=utf-8");
		if (status == MHD_HTTP_OK && s->resp != NULL)
			http.st.scrapes++;
		else
			http.st.scrape_errors++;
		MHD_resume_connection(s->conn);
	}
	run(); /* queue the responses now rather than at the next event */
}

int metrics_http_open(int fd, char *err, size_t errlen)
{
	const union MHD_DaemonInfo *info;

	if (http.d != NULL)
		metrics_http_close();
	/* the logger first: MHD logs through its own until it sees it */
	http.d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0,
				  NULL, NULL, on_request, NULL, MHD_OPTION_EXTERNAL_LOGGER,
				  on_mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_HTTP_CONNECTIONS,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_HTTP_PER_IP,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_HTTP_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_HTTP_MEMORY,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
	if (http.d == NULL) {
		close(fd);
		snprintf(err, errlen, "libmicrohttpd did not start (see the log)");
		return -EIO;
	}
	info = MHD_get_daemon_info(http.d, MHD_DAEMON_INFO_EPOLL_FD);
	http.h.fd = info != NULL ? info->epoll_fd : -1;
	http.h.cb = on_ready;
	int ret = http.h.fd >= 0 ? ev_add(&http.h, EPOLLIN) : -EBADF;
	if (ret < 0) {
		snprintf(err, errlen, "cannot watch libmicrohttpd's epoll set: %s", strerror(-ret));
		MHD_stop_daemon(http.d); /* closes fd */
		http.d = NULL;
		http.h.fd = -1;
		return ret;
	}
	return 0;
}

void metrics_http_close(void)
{
	static const char stopping[] = "vbrd: the metrics endpoint is closing\n";

	if (http.d == NULL)
		return;
	/* MHD cannot stop with suspended connections: resume them first */
	metrics_http_deliver(stopping, sizeof(stopping) - 1, MHD_HTTP_SERVICE_UNAVAILABLE);
	ev_del(&http.h);
	MHD_stop_daemon(http.d); /* closes the connections, the socket and the epoll set */
	http.d = NULL;
	http.h.fd = -1;
}

bool metrics_http_is_open(void)
{
	return http.d != NULL;
}

unsigned metrics_http_waiting(void)
{
	return http.nb_waiting;
}

void metrics_http_tick(void)
{
	run();
}

unsigned metrics_http_connections(void)
{
	const union MHD_DaemonInfo *info =
		http.d ? MHD_get_daemon_info(http.d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS) : NULL;

	return info != NULL ? info->num_connections : 0;
}

const struct metrics_http_stats *metrics_http_stats(void)
{
	return &http.st;
}
