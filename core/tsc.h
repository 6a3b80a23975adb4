/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TSC's frequency, measured by vbrd itself.
 *
 * DPDK's rte_get_tsc_hz() takes the frequency from the CPU when the CPU
 * says it (CPUID leaf 0x15 on Intel), else measures it for 100 ms and
 * rounds the result to the nearest 10 MHz. On a VM that rounding is the
 * whole error: this machine's TSC runs at 2445.405 MHz and DPDK says
 * 2450 MHz, 0.19 % too fast, so a clock made from it (BFD and probe
 * timers, the HA lease's local deadline, every event's time_us) loses
 * 1.9 ms a second against the system's, and a benchmark that compares an
 * event's time with its own clock sees the events move back by that much.
 * tsc_calibrate() measures without rounding; every TSC-to-time conversion
 * in vbrd goes through tsc_hz().
 *
 * Libraries keep DPDK's figure: rte_meter (the policers' token rates) and
 * rte_sched read rte_get_tsc_hz() themselves, so their rates are off by
 * the same 0.19 % at most.
 */
#ifndef VBRD_CORE_TSC_H
#define VBRD_CORE_TSC_H

#include <stdint.h>

#include <rte_cycles.h>

/**
 * Measure the TSC's frequency against CLOCK_MONOTONIC_RAW over @p ms
 * milliseconds (the calling thread sleeps that long), keep it for
 * tsc_hz() and set the clock below (tsc_now_ns(), tsc_unix_ns()). Each end of the interval is the TSC read between two clock
 * reads, the closest of five such brackets: a preemption in one bracket
 * does not enter the figure (error ~2 ppm at 50 ms on this VM).
 *
 * @param ms  the interval, in milliseconds (10..1000; other values are
 *            clamped)
 * @return the frequency in Hz. When the measurement fails (a clock error,
 *         a TSC that did not advance) or is more than 5 % from
 *         rte_get_tsc_hz() (a TSC that is not invariant), DPDK's figure is
 *         kept and returned, and tsc_measured() stays false. Needs the
 *         EAL initialised (rte_eal_init) for that comparison.
 */
uint64_t tsc_calibrate(unsigned ms);

/** The TSC frequency in Hz: tsc_calibrate()'s, else rte_get_tsc_hz(). */
uint64_t tsc_hz(void);

/** Whether tsc_hz() is vbrd's own measurement (tsc_calibrate succeeded). */
int tsc_measured(void);

/* ---- the clock of every timer and event ------------------------------------
 *
 * BFD and probe timers, the HA lease's local deadline, every event's time:
 * nanoseconds of the TSC, read without a syscall wherever the code runs
 * (a worker's poll loop, the control thread, the HA thread). Wall-clock
 * times (an event's time_us, STAMP's timestamps) are that clock plus the
 * offset to CLOCK_REALTIME taken when the clock was set. */

/** TSC → ns multiplier, 32.32 fixed point; set by tsc_calibrate() (0 before). */
extern uint64_t tsc_ns_mult;

/**
 * Nanoseconds of the TSC since it started counting: monotonic, no syscall.
 * 0 until tsc_calibrate() ran.
 */
static inline uint64_t tsc_now_ns(void)
{
	return (uint64_t)(((unsigned __int128)rte_get_tsc_cycles() * tsc_ns_mult) >> 32);
}

/**
 * The TSC value at which tsc_now_ns() reaches @p t_ns, rounded down: a
 * deadline for code that compares rte_rdtsc() with it (the data path).
 * @param t_ns  a time of tsc_now_ns(), ns
 */
uint64_t tsc_cycles_at(uint64_t t_ns);

/**
 * Unix time of a tsc_now_ns() time, in ns (CLOCK_REALTIME at calibration
 * plus the TSC's time since: later steps of the system clock do not enter).
 * @param t_ns  a time of tsc_now_ns(), ns
 */
uint64_t tsc_unix_ns(uint64_t t_ns);

/** Unix time of a tsc_now_ns() time, in µs: the `time_us` of every event shown. */
static inline uint64_t tsc_wall_us(uint64_t t_ns)
{
	return tsc_unix_ns(t_ns) / 1000;
}

#endif
