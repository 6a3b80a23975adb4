/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hugepages: what is free (/proc/meminfo) and raising the pool (sysfs).
 *
 * Why not a sysctl.d snippet: vm.nr_hugepages there is an absolute value,
 * applied at every boot after the kernel command line's hugepages=, so a
 * package's snippet would shrink a reservation the operator made there;
 * and the amount belongs to the config (eal.memory_mb), not to the package.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "app/hugepages.h"

struct hp_info {
	long total, free_pages;
	long size_kb;  /* default page size, KiB */
	long avail_kb; /* MemAvailable */
};

static int hp_read(struct hp_info *hp)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];

	*hp = (struct hp_info){ 0 };
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Total: %ld", &hp->total);
		sscanf(line, "HugePages_Free: %ld", &hp->free_pages);
		sscanf(line, "Hugepagesize: %ld kB", &hp->size_kb);
		sscanf(line, "MemAvailable: %ld kB", &hp->avail_kb);
	}
	fclose(f);
	return hp->size_kb > 0 ? 0 : -ENOENT;
}

bool hugepages_available(void)
{
	struct hp_info hp;
	char line[128];
	bool mounted = false;
	FILE *f;

	if (hp_read(&hp) < 0 || hp.free_pages <= 0)
		return false;
	f = fopen("/proc/mounts", "r");
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " hugetlbfs "))
			mounted = true;
	fclose(f);
	return mounted;
}

int hugepages_reserve(uint32_t mb, char *msg, size_t len)
{
	struct hp_info hp;
	char path[128];
	FILE *f;
	int ret = hp_read(&hp);

	if (ret < 0) {
		snprintf(msg, len, "/proc/meminfo: no hugepage size: %s", strerror(-ret));
		return ret;
	}
	long want = (long)(((uint64_t)mb * 1024 + (uint64_t)hp.size_kb - 1) / (uint64_t)hp.size_kb);
	if (hp.free_pages >= want) {
		snprintf(msg, len, "%ld of %ld hugepages of %ld kB free, %ld wanted: nothing to do",
			 hp.free_pages, hp.total, hp.size_kb, want);
		return 0;
	}
	/* The kernel turns whatever it can into hugepages and keeps them (a
	 * pool is never lowered here): a memory_mb beyond the machine's memory
	 * would leave it none. Refused when the pages wanted exceed 7/8 of
	 * MemAvailable. */
	long more_kb = (want - hp.free_pages) * hp.size_kb;
	if (hp.avail_kb > 0 && more_kb > hp.avail_kb - hp.avail_kb / 8) {
		snprintf(msg, len,
			 "%ld more hugepages of %ld kB wanted (%ld MiB) but %ld MiB of memory "
			 "available: the pool is not raised",
			 want - hp.free_pages, hp.size_kb, more_kb / 1024, hp.avail_kb / 1024);
		return -ENOMEM;
	}
	long target = hp.total + (want - hp.free_pages);
	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%ldkB/nr_hugepages",
		 hp.size_kb);
	errno = 0;
	f = fopen(path, "w");
	if (f != NULL) {
		int w = fprintf(f, "%ld\n", target); /* the kernel takes it at the flush */
		ret = fclose(f) != 0 || w < 0 ? -(errno ? errno : EIO) : 0;
	} else {
		ret = -errno;
	}
	if (ret < 0) {
		snprintf(msg, len, "%s: cannot raise to %ld: %s", path, target, strerror(-ret));
		return ret;
	}
	long before = hp.total;
	if (hp_read(&hp) < 0)
		hp.free_pages = 0;
	snprintf(msg, len, "hugepages of %ld kB: pool %ld -> %ld (asked %ld), %ld free, %ld wanted",
		 hp.size_kb, before, hp.total, target, hp.free_pages, want);
	return hp.free_pages >= want ? 0 : -ENOMEM;
}
