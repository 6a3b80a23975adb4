/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's event loop: one epoll set on the main lcore.
 *
 * Modules register file descriptors (control socket, signalfd, TAPs later)
 * and periodic timers; the loop never blocks longer than the nearest timer.
 * Nothing here runs on a worker lcore. The set is the calling thread's: a
 * thread of its own (the HA pair's) calls ev_init() and gets a loop of its
 * own, and every ev_* call acts on the loop of the thread that makes it.
 */
#ifndef VBRD_EVLOOP_H
#define VBRD_EVLOOP_H

#include <stdint.h>
#include <sys/epoll.h> /* EPOLLIN, EPOLLOUT, ... for ev_add() */

struct ev_handler;
/** Called on the main lcore when @p h->fd is ready; @p events are EPOLL* bits. */
typedef void (*ev_cb_t)(struct ev_handler *h, uint32_t events);

/** Embed in the owner's struct; container_of() gets the owner back. */
struct ev_handler {
	int fd;
	ev_cb_t cb;
};

/** Create the calling thread's epoll set. @return 0 or -errno. */
int ev_init(void);

/**
 * The calling thread's epoll descriptor, readable (poll(2)) when an event
 * is ready: to wait outside a lock and dispatch inside it. @return the fd,
 * or -1 before ev_init().
 */
int ev_fd(void);

/**
 * Watch @p h->fd for @p events (EPOLLIN, ...).
 * @return 0, or -errno from epoll_ctl().
 */
int ev_add(struct ev_handler *h, uint32_t events);

/**
 * Change the events watched on @p h->fd (e.g. add EPOLLOUT while output is
 * pending). @return 0, or -errno from epoll_ctl().
 */
int ev_mod(struct ev_handler *h, uint32_t events);

/**
 * Stop watching @p h->fd (call before closing it). Safe to call from any
 * callback: a pending event for @p h in the current batch is dropped.
 */
void ev_del(struct ev_handler *h);

/**
 * Wait up to @p timeout_ms (ms) for events and dispatch them.
 * @return number dispatched, or -errno (EINTR is not an error: returns 0).
 */
int ev_run_once(int timeout_ms);

/** How long the main loop's turns took: its stall meter (show stats' main_loop). */
struct ev_turn_stats {
	uint64_t turns;           /* turns of the loop (idle ones too) */
	uint64_t longest_ns;      /* the longest turn since start (wall clock) */
	uint64_t longest_cpu_ns;  /* the most CPU time one turn took (its own work) */
	uint64_t longest_unix_us; /* when it ended (wall clock, µs since the epoch) */
	uint64_t over_1ms, over_10ms, over_100ms; /* turns longer than each */
};

/**
 * Record a turn of the main loop that took @p ns nanoseconds of work (its
 * wait for events not counted; wall clock, so a thread kept off its CPU
 * counts too), @p cpu_ns of them on the CPU, and ended at @p unix_us (µs
 * since the epoch). Main lcore only.
 */
void ev_turn_record(uint64_t ns, uint64_t cpu_ns, uint64_t unix_us);

/** The main loop's stall meter into @p out. Main lcore only. */
void ev_turn_stats_get(struct ev_turn_stats *out);

/** Release the epoll set. */
void ev_fini(void);

#endif
