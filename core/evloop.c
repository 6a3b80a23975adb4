/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event loop: a thin wrapper around one epoll set per thread (the
 * main lcore's, and the HA thread's: failover/ha/ha_module.c).
 *
 * Each registered struct ev_handler is stored in epoll_event.data.ptr, so a
 * ready event leads straight to its callback with no lookup table. Timers are
 * the caller's business (main.c bounds the wait with ev_run_once()'s
 * timeout).
 */
#include <errno.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/evloop.h"

/* Events handled per epoll_wait(); more simply wait for the next call. */
#define EV_MAX_EVENTS 32

static __thread int ev_epfd = -1;

/*
 * The batch being dispatched. A callback may ev_del() (and free) another
 * handler whose event is still pending in this batch; ev_del() clears those
 * entries so that they are skipped instead of used after free.
 */
static __thread struct epoll_event *ev_batch;
static __thread int ev_batch_len;

int ev_init(void)
{
	if (ev_epfd >= 0)
		return 0;
	ev_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ev_epfd < 0)
		return -errno;
	return 0;
}

int ev_fd(void)
{
	return ev_epfd;
}

int ev_add(struct ev_handler *h, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = h };

	if (ev_epfd < 0)
		return -EBADF;
	if (h == NULL || h->fd < 0 || h->cb == NULL)
		return -EINVAL;
	if (epoll_ctl(ev_epfd, EPOLL_CTL_ADD, h->fd, &ev) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	/* Already watched: treat as a change of the event mask. */
	if (epoll_ctl(ev_epfd, EPOLL_CTL_MOD, h->fd, &ev) < 0)
		return -errno;
	return 0;
}

int ev_mod(struct ev_handler *h, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = h };

	if (ev_epfd < 0)
		return -EBADF;
	if (epoll_ctl(ev_epfd, EPOLL_CTL_MOD, h->fd, &ev) < 0)
		return -errno;
	return 0;
}

void ev_del(struct ev_handler *h)
{
	int i;

	if (ev_epfd < 0 || h == NULL)
		return;
	for (i = 0; i < ev_batch_len; i++)
		if (ev_batch[i].data.ptr == h)
			ev_batch[i].data.ptr = NULL;
	if (h->fd < 0)
		return;
	/* ENOENT/EBADF are fine: the fd was never added or already closed. */
	(void)epoll_ctl(ev_epfd, EPOLL_CTL_DEL, h->fd, NULL);
}

int ev_run_once(int timeout_ms)
{
	struct epoll_event evs[EV_MAX_EVENTS];
	int n, i;

	if (ev_epfd < 0)
		return -EBADF;
	n = epoll_wait(ev_epfd, evs, EV_MAX_EVENTS, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	ev_batch = evs;
	ev_batch_len = n;
	for (i = 0; i < n; i++) {
		struct ev_handler *h = evs[i].data.ptr;

		if (h != NULL)
			h->cb(h, evs[i].events);
	}
	ev_batch = NULL;
	ev_batch_len = 0;
	return n;
}

static struct ev_turn_stats turn_stats;

void ev_turn_record(uint64_t ns, uint64_t cpu_ns, uint64_t unix_us)
{
	turn_stats.turns++;
	if (cpu_ns > turn_stats.longest_cpu_ns)
		turn_stats.longest_cpu_ns = cpu_ns;
	if (ns > turn_stats.longest_ns) {
		turn_stats.longest_ns = ns;
		turn_stats.longest_unix_us = unix_us;
	}
	turn_stats.over_1ms += ns > 1000000u;
	turn_stats.over_10ms += ns > 10000000u;
	turn_stats.over_100ms += ns > 100000000u;
}

void ev_turn_stats_get(struct ev_turn_stats *out)
{
	*out = turn_stats;
}

void ev_fini(void)
{
	if (ev_epfd >= 0)
		close(ev_epfd);
	ev_epfd = -1;
}
