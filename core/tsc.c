/* SPDX-License-Identifier: BSD-3-Clause */
/* The TSC's frequency, measured by vbrd itself: see tsc.h. */
#include <errno.h>
#include <time.h>

#include <rte_cycles.h>

#include "core/tsc.h"

static uint64_t measured_hz;
uint64_t tsc_ns_mult;
static int64_t unix_offset_ns; /* Unix ns minus tsc_now_ns() */

/* The clock from the frequency in force, and its offset to CLOCK_REALTIME. */
static void clock_set(uint64_t hz)
{
	struct timespec ts;

	if (hz == 0)
		return;
	tsc_ns_mult = (uint64_t)(((unsigned __int128)1000000000ull << 32) / hz);
	clock_gettime(CLOCK_REALTIME, &ts);
	unix_offset_ns = (int64_t)((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) -
			 (int64_t)tsc_now_ns();
}

uint64_t tsc_cycles_at(uint64_t t_ns)
{
	return tsc_ns_mult != 0 ? (uint64_t)(((unsigned __int128)t_ns << 32) / tsc_ns_mult) : 0;
}

uint64_t tsc_unix_ns(uint64_t t_ns)
{
	return (uint64_t)((int64_t)t_ns + unix_offset_ns);
}

/* One end of the interval: the TSC and the clock (ns) at the same moment,
 * from the tightest of a few clock/TSC/clock brackets. Returns -1 on a
 * clock error. */
static int sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		struct timespec a, b;
		uint64_t t, na, nb;

		if (clock_gettime(CLOCK_MONOTONIC_RAW, &a) != 0)
			return -1;
		t = rte_rdtsc_precise();
		if (clock_gettime(CLOCK_MONOTONIC_RAW, &b) != 0)
			return -1;
		na = (uint64_t)a.tv_sec * 1000000000ull + (uint64_t)a.tv_nsec;
		nb = (uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec;
		if (nb - na < best) {
			best = nb - na;
			*tsc = t;
			*ns = na + (nb - na) / 2;
		}
	}
	return 0;
}

static uint64_t measure(unsigned ms)
{
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0, hz, dpdk = rte_get_tsc_hz();
	struct timespec d;

	ms = ms < 10 ? 10 : ms > 1000 ? 1000 : ms;
	d.tv_sec = ms / 1000;
	d.tv_nsec = (long)(ms % 1000) * 1000000L;
	measured_hz = 0;
	if (sample(&t0, &n0) < 0)
		return dpdk;
	while (nanosleep(&d, &d) != 0 && errno == EINTR)
		;
	if (sample(&t1, &n1) < 0 || t1 <= t0 || n1 <= n0)
		return dpdk;
	hz = (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000ull / (n1 - n0));
	if (dpdk != 0 && (hz < dpdk - dpdk / 20 || hz > dpdk + dpdk / 20))
		return dpdk;
	measured_hz = hz;
	return hz;
}

uint64_t tsc_calibrate(unsigned ms)
{
	uint64_t hz = measure(ms);

	clock_set(hz);
	return hz;
}

uint64_t tsc_hz(void)
{
	return measured_hz != 0 ? measured_hz : rte_get_tsc_hz();
}

int tsc_measured(void)
{
	return measured_hz != 0;
}
