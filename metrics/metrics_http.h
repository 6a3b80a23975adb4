/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HTTP side of /metrics: libmicrohttpd on the control loop.
 *
 * MHD runs without a thread of its own (no MHD_USE_INTERNAL_POLLING_THREAD):
 * its epoll set is one more descriptor in the main lcore's event loop
 * (core/evloop.h), and MHD_run() is called when that is readable and on
 * a timer (for its timeouts). Every socket is non-blocking, so MHD never
 * holds the loop waiting for a client.
 *
 * A GET /metrics is suspended (MHD_suspend_connection()) and counted as
 * waiting; the module renders a page over several turns of the loop and
 * hands it to every waiting scrape at once with metrics_http_deliver().
 * Nothing here reads vbrd's state.
 *
 * Limits, so that no client, slow or hostile, can hold more than its
 * connection: METRICS_HTTP_CONNECTIONS connections at most
 * (METRICS_HTTP_PER_IP from one address), METRICS_HTTP_TIMEOUT_S of
 * inactivity, requests of METRICS_HTTP_MEMORY bytes of headers; any other
 * path is 404, any other method 405, and a request body is discarded.
 */
#ifndef VBRD_METRICS_HTTP_H
#define VBRD_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define METRICS_HTTP_CONNECTIONS 16
#define METRICS_HTTP_PER_IP      8
#define METRICS_HTTP_TIMEOUT_S   10
#define METRICS_HTTP_MEMORY      16384 /* bytes of a connection's request (MHD's pool) */

/** Counters of the endpoint, since vbrd started (across reopenings). */
struct metrics_http_stats {
	uint64_t requests;      /* HTTP requests */
	uint64_t scrapes;       /* pages served (200) */
	uint64_t scrape_errors; /* scrapes answered 500 or 503 */
	uint64_t rejected;      /* 404 and 405 */
};

/**
 * Serve HTTP on @p fd, a listening, non-blocking TCP socket: the endpoint
 * owns it from now on (closed by metrics_http_close(), or here on failure).
 * The event loop (ev_init()) must exist.
 * @return 0, or a negative errno with @p err filled
 */
int metrics_http_open(int fd, char *err, size_t errlen);

/** Answer the waiting scrapes 503, close every connection and the socket. */
void metrics_http_close(void);

/** Whether metrics_http_open() succeeded and no close followed. */
bool metrics_http_is_open(void);

/** Scrapes waiting for a page. */
unsigned metrics_http_waiting(void);

/**
 * Answer every waiting scrape: with @p page (@p len bytes, copied) as
 * text/plain version 0.0.4 when @p status is 200, else with @p status and
 * @p page as the error's text.
 */
void metrics_http_deliver(const char *page, size_t len, unsigned status);

/** Let MHD close the connections whose timeout passed (call a few times a second). */
void metrics_http_tick(void);

/** Connections open now. */
unsigned metrics_http_connections(void);

/** The endpoint's counters. */
const struct metrics_http_stats *metrics_http_stats(void);

#endif
