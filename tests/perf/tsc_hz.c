/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tsc-hz: print the time-stamp counter frequency in Hz, for
 * cycles/packet = TSC Hz x busy cores / packets per second.
 *
 * The kernel's own figure (/sys/.../tsc_freq_khz) is used when it exists;
 * otherwise the TSC is counted against CLOCK_MONOTONIC_RAW for 200 ms, as
 * DPDK's rte_get_tsc_hz() does when CPUID does not tell. Needs an invariant
 * TSC (the constant_tsc flag), which every x86 server of the last decade has.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

#define CALIBRATE_NS 200000000ull /* ns */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/tsc_freq_khz", "r");
	unsigned long long khz;
	uint64_t t0, t1, c0, c1;
	struct timespec nap = { .tv_sec = 0, .tv_nsec = (long)CALIBRATE_NS };

	if (f) {
		int ok = fscanf(f, "%llu", &khz) == 1;

		fclose(f);
		if (ok && khz > 0) {
			printf("%llu\n", khz * 1000ull);
			return 0;
		}
	}
	t0 = now_ns();
	c0 = __rdtsc();
	nanosleep(&nap, NULL);
	t1 = now_ns();
	c1 = __rdtsc();
	/* Round to kHz: the sleep's jitter is far below that. */
	printf("%llu\n", (unsigned long long)((c1 - c0) * 1000000ull / (t1 - t0)) * 1000ull);
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "tsc-hz: x86 only; set TSC_HZ for bench.sh\n");
	return 1;
}
#endif
