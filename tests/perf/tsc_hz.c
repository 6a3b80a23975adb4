/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tsc-hz: print the time-stamp counter frequency in Hz, for
 * cycles/packet = TSC Hz x busy cores / packets per second.
 *
 * The kernel's own figure (/sys/.../tsc_freq_khz) is used when it exists;
 * otherwise the figure vbrd itself uses: core/tsc.c's measurement against
 * CLOCK_MONOTONIC_RAW (200 ms here, 50 ms in vbrd), not DPDK's, which is
 * rounded to 10 MHz. Needs an invariant TSC (the constant_tsc flag), which
 * every x86 server of the last decade has.
 */
#include <stdio.h>

#include "core/tsc.h"

int main(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/tsc_freq_khz", "r");
	unsigned long long khz;

	if (f) {
		int ok = fscanf(f, "%llu", &khz) == 1;

		fclose(f);
		if (ok && khz > 0) {
			printf("%llu\n", khz * 1000ull);
			return 0;
		}
	}
	/* no EAL: tsc_calibrate() returns 0 when its measurement fails */
	uint64_t hz = tsc_calibrate(200);
	if (!tsc_measured() || hz == 0) {
		fprintf(stderr, "tsc-hz: cannot measure the TSC; set TSC_HZ for bench.sh\n");
		return 1;
	}
	/* Round to kHz: the measurement's error is far below that. */
	printf("%llu\n", (unsigned long long)(hz / 1000u) * 1000ull);
	return 0;
}
