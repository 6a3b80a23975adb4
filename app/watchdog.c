/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/watchdog.h"

static struct {
	struct timespec deadline; /* CLOCK_MONOTONIC */
	unsigned bound_ms;
	_Atomic(const char *) phase;
	_Atomic bool disarmed;
	_Atomic bool service_stopped; /* watchdog_service_stopped() was called */
} wd;

static void *watchdog_main(void *arg)
{
	char msg[160];
	int n;

	(void)arg;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wd.deadline, NULL) == EINTR)
		;
	if (atomic_load(&wd.disarmed))
		return NULL;
	bool stopped = atomic_load(&wd.service_stopped);
	/* No stdio, no rte_log: the stuck thread may hold their locks. */
	n = snprintf(msg, sizeof(msg),
		     "vbrd: stop watchdog: still %s after %u ms: exiting without %s\n",
		     atomic_load(&wd.phase), wd.bound_ms,
		     stopped ? "the rest of the cleanup" : "cleanup");
	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0)
		n = 0; /* nothing more to do about it */
	_exit(stopped ? 0 : VBRD_EXIT_STOP_TIMEOUT);
}

int watchdog_arm(unsigned bound_ms)
{
	pthread_attr_t attr;
	pthread_t tid;
	sigset_t all, old;
	int ret;

	atomic_store(&wd.phase, "stopping");
	atomic_store(&wd.disarmed, false);
	atomic_store(&wd.service_stopped, false);
	wd.bound_ms = bound_ms;
	clock_gettime(CLOCK_MONOTONIC, &wd.deadline);
	wd.deadline.tv_sec += bound_ms / 1000;
	wd.deadline.tv_nsec += (long)(bound_ms % 1000) * 1000000L;
	if (wd.deadline.tv_nsec >= 1000000000L) {
		wd.deadline.tv_sec++;
		wd.deadline.tv_nsec -= 1000000000L;
	}
	/* The thread takes no signal (they are for the main and worker threads). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&tid, &attr, watchdog_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

void watchdog_phase(const char *phase)
{
	atomic_store(&wd.phase, phase);
}

void watchdog_service_stopped(const char *phase)
{
	atomic_store(&wd.phase, phase);
	atomic_store(&wd.service_stopped, true);
}

void watchdog_disarm(void)
{
	atomic_store(&wd.disarmed, true);
}
