/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * core/tsc.c: the TSC frequency vbrd measures turns TSC intervals into
 * CLOCK_MONOTONIC_RAW's to within 50 ppm over a second. DPDK's figure,
 * rounded to 10 MHz, fails this wherever the TSC is not a multiple of
 * 10 MHz (2445.405 MHz on the 2-core VM: 1879 ppm), which is why vbrd
 * measures it itself. No EAL: rte_get_tsc_hz() is 0 here, so the 5 %
 * plausibility check against it is skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <cmocka.h>
#include <rte_cycles.h>

#include "core/tsc.h"

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_measured_rate_matches_the_clock(void **state)
{
	(void)state;
	uint64_t hz = tsc_calibrate(50);
	assert_true(tsc_measured());
	assert_int_equal(tsc_hz(), hz);
	assert_true(hz > 100000000ull); /* more than 100 MHz: a real TSC */

	/* one second later, by both clocks; the reads bracket each other,
	 * so the difference is at most one clock read, ~100 ns */
	uint64_t n0 = raw_ns(), t0 = rte_rdtsc_precise();
	struct timespec d = { 1, 0 };
	while (nanosleep(&d, &d) != 0)
		;
	uint64_t t1 = rte_rdtsc_precise(), n1 = raw_ns();
	double by_tsc = (double)(t1 - t0) * 1e9 / (double)hz;
	double by_clock = (double)(n1 - n0);
	double ppm = (by_tsc - by_clock) / by_clock * 1e6;
	uint64_t rounded = (hz + 5000000) / 10000000 * 10000000;

	printf("# TSC %.6f MHz measured; over %.3f s the TSC says %+.1f ppm; "
	       "rounded to 10 MHz as DPDK does (%.0f MHz) it would say %+.1f ppm\n",
	       (double)hz / 1e6, by_clock / 1e9, ppm, (double)rounded / 1e6,
	       ((double)(t1 - t0) * 1e9 / (double)rounded - by_clock) / by_clock * 1e6);
	assert_true(ppm > -50.0 && ppm < 50.0);
}

static void test_interval_is_clamped(void **state)
{
	(void)state;
	/* 0 ms would divide by a zero interval: clamped to 10 ms */
	assert_true(tsc_calibrate(0) > 100000000ull);
	assert_true(tsc_measured());
}

/* The clock made from the measurement: tsc_now_ns() advances like
 * CLOCK_MONOTONIC_RAW, tsc_unix_ns() is CLOCK_REALTIME, and a deadline
 * turned into a TSC value (the HA gate) is never later than the deadline. */
static void test_clock_follows_the_system_clocks(void **state)
{
	(void)state;
	tsc_calibrate(50);

	uint64_t n0 = raw_ns(), c0 = tsc_now_ns();
	struct timespec d = { 0, 200000000 };
	while (nanosleep(&d, &d) != 0)
		;
	uint64_t c1 = tsc_now_ns(), n1 = raw_ns();
	int64_t diff = (int64_t)(c1 - c0) - (int64_t)(n1 - n0);
	assert_true(diff > -100000 && diff < 100000); /* 100 µs of 200 ms: 500 ppm */

	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	uint64_t unix_now = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
	int64_t off = (int64_t)tsc_unix_ns(tsc_now_ns()) - (int64_t)unix_now;
	assert_true(off > -5000000 && off < 5000000); /* within 5 ms */
	assert_int_equal(tsc_wall_us(c1), tsc_unix_ns(c1) / 1000);

	uint64_t deadline = tsc_now_ns() + 1000000;
	uint64_t cyc = tsc_cycles_at(deadline);
	assert_true((uint64_t)(((unsigned __int128)cyc * tsc_ns_mult) >> 32) <= deadline);
	assert_true((uint64_t)(((unsigned __int128)(cyc + 2) * tsc_ns_mult) >> 32) >= deadline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measured_rate_matches_the_clock),
		cmocka_unit_test(test_interval_is_clamped),
		cmocka_unit_test(test_clock_follows_the_system_clocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
