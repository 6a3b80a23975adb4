/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config sections of the daemon itself: "instance" and "control" (the
 * control socket), "workers", "mempool" and "eal". All need a restart but
 * workers.burst and workers.idle_sleep_us, which workers read from the
 * published state.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "app/daemon_config.h"
#include "core/config.h"
#include "core/config_read.h"

#define CFG_MAX_CPU_ID 1023 /* largest CPU id accepted in workers.cores */

/* ---- top level: instance, control ---------------------------------------- */

#define CONTROL_RUN_DIR "/run/vbrd" /* the default socket's directory (vbrctl -i) */

/* --instance NAME, or "" (app/daemon_config.h) */
static char required_instance[CFG_NAME_MAX];

int daemon_config_require_instance(const char *name)
{
	size_t n = strlen(name);

	/* not "." or "..", nor hidden: the name is DPDK's --file-prefix, whose
	 * runtime directory /var/run/dpdk/NAME would be /var/run/dpdk or /var/run */
	if (n == 0 || n >= sizeof(required_instance) || name[0] == '.' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
		return -EINVAL;
	memcpy(required_instance, name, n + 1);
	return 0;
}

static void load_control(struct cfg_reader *ld, const config_setting_t *root)
{
	static const char *const keys[] = { "socket", NULL };
	const config_setting_t *g = cfg_get_typed(ld, root, "control", CONFIG_TYPE_GROUP);
	struct vbrd_config *cfg = ld->cfg;
	const char *req = required_instance;
	char want[CFG_PATH_MAX];

	int got = cfg_get_name(ld, root, "instance", cfg->instance, NULL);
	if (got == CFG_VAL_OK && cfg->instance[0] == '.') {
		cfg_err(ld, config_setting_get_member(root, "instance"),
			"\"%s\" begins with '.': the instance names DPDK's runtime directory "
			"/var/run/dpdk/NAME and its hugepage files",
			cfg->instance);
		got = CFG_VAL_BAD;
	}
	if (got != CFG_VAL_OK)
		strcpy(cfg->instance, req[0] ? req : "vbrd");
	else if (req[0] && strcmp(cfg->instance, req) != 0)
		cfg_err(ld, config_setting_get_member(root, "instance"),
			"\"%s\", but vbrd runs as instance \"%s\" (--instance; the unit "
			"vbrd@%s): set \"%s\" or remove the setting",
			cfg->instance, req, req, req);
	snprintf(want, sizeof(want), CONTROL_RUN_DIR "/%s.sock", cfg->instance);
	if (g != NULL) {
		cfg_check_members(ld, g, keys);
		if (cfg_get_text(ld, g, "socket", cfg->socket, sizeof(cfg->socket)) == CFG_VAL_OK) {
			if (req[0] && strcmp(cfg->socket, want) != 0)
				cfg_err(ld, config_setting_get_member(g, "socket"),
					"\"%s\", but instance \"%s\" (--instance) answers on %s, "
					"where `vbrctl -i %s` looks: remove the setting",
					cfg->socket, req, want, req);
			return;
		}
	}
	snprintf(cfg->socket, sizeof(cfg->socket), "%s", want);
}

/* ---- workers, mempool, neighbor, icmp, eal --------------------------------- */

static void load_cores(struct cfg_reader *ld, const config_setting_t *s)
{
	struct vbrd_config *cfg = ld->cfg;
	int i, j, n, nb = 0;
	long long v;

	if (!cfg_is_sequence(s)) {
		cfg_err(ld, s, "expected an array [ ... ] of CPU ids, got %s", cfg_type_name(s));
		return;
	}
	n = config_setting_length(s);
	if (n < 1 || n > CFG_MAX_WORKERS) {
		cfg_err(ld, s, "%d cores, expected 1..%d", n, CFG_MAX_WORKERS);
		return;
	}
	for (i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, i);

		if (cfg_int_value(ld, e, 0, CFG_MAX_CPU_ID, &v) != CFG_VAL_OK)
			continue;
		for (j = 0; j < nb; j++)
			if (cfg->workers.cores[j] == (unsigned)v)
				break;
		if (j < nb) {
			cfg_err(ld, e, "duplicate core %lld", v);
			continue;
		}
		cfg->workers.cores[nb++] = (unsigned)v;
	}
	cfg->workers.nb_cores = nb;
}

static void load_workers(struct cfg_reader *ld, const config_setting_t *root)
{
	static const char *const keys[] = { "cores", "burst", "idle_sleep_us", NULL };
	const config_setting_t *g = cfg_get_typed(ld, root, "workers", CONFIG_TYPE_GROUP);
	struct vbrd_config *cfg = ld->cfg;
	const config_setting_t *cores;

	cfg->workers.nb_cores = 1;
	cfg->workers.cores[0] = 1;
	cfg->workers.idle_sleep_us = 0;
	cfg->workers.burst = 32;
	if (g == NULL)
		return;
	cfg_check_members(ld, g, keys);
	cores = config_setting_get_member(g, "cores");
	if (cores != NULL)
		load_cores(ld, cores);
	cfg_get_u32(ld, g, "burst", 1, 256, &cfg->workers.burst);
	cfg_get_u32(ld, g, "idle_sleep_us", 0, 1000000, &cfg->workers.idle_sleep_us);
}

static void load_mempool(struct cfg_reader *ld, const config_setting_t *root)
{
	static const char *const keys[] = { "mbufs", "cache", NULL };
	const config_setting_t *g = cfg_get_typed(ld, root, "mempool", CONFIG_TYPE_GROUP);
	struct vbrd_config *cfg = ld->cfg;

	cfg->mempool.mbufs = 16383;
	cfg->mempool.cache = 256;
	if (g == NULL)
		return;
	cfg_check_members(ld, g, keys);
	if (cfg_get_u32(ld, g, "mbufs", 1023, 16777215, &cfg->mempool.mbufs) == CFG_VAL_BAD)
		return;
	/* rte_mempool_create() refuses a cache whose flush threshold (1.5 x) exceeds the pool. */
	if (cfg_get_u32(ld, g, "cache", 0, 512, &cfg->mempool.cache) == CFG_VAL_OK &&
	    (uint64_t)cfg->mempool.cache * 3 / 2 > cfg->mempool.mbufs)
		cfg_err(ld, config_setting_get_member(g, "cache"),
			"%u is too large for %u mbufs (1.5 x cache must not exceed mbufs)",
			cfg->mempool.cache, cfg->mempool.mbufs);
}

static const config_setting_t *member(const config_setting_t *root, const char *group,
				      const char *name)
{
	const config_setting_t *g = config_setting_get_member(root, group);
	return g && config_setting_is_group(g) ? config_setting_get_member(g, name) : NULL;
}

static int control_load(struct cfg_reader *ld, const config_setting_t *root,
			struct vbrd_config *cfg)
{
	load_control(ld, root);
	cfg_restart(ld, config_setting_get_member(root, "instance"), "instance", "%s",
		    cfg->instance);
	cfg_restart(ld, member(root, "control", "socket"), "control.socket", "%s", cfg->socket);
	return 0;
}

static struct config_section control_section = {
	.name = "instance",
	.also = (const char *const[]){ "control", NULL },
	.load = control_load,
};
CONFIG_SECTION(control_section);

static int workers_load(struct cfg_reader *ld, const config_setting_t *root,
			struct vbrd_config *cfg)
{
	char cores[CFG_MAX_WORKERS * 6] = "";
	size_t used = 0;

	load_workers(ld, root);
	for (int i = 0; i < cfg->workers.nb_cores && used < sizeof(cores); i++)
		used += (size_t)snprintf(cores + used, sizeof(cores) - used, "%s%u", i ? "," : "",
					 cfg->workers.cores[i]);
	cfg_restart(ld, member(root, "workers", "cores"), "workers.cores", "%s", cores);
	return 0;
}

static struct config_section workers_section = {
	.name = "workers",
	.load = workers_load,
};
CONFIG_SECTION(workers_section);

static int mempool_load(struct cfg_reader *ld, const config_setting_t *root,
			struct vbrd_config *cfg)
{
	load_mempool(ld, root);
	cfg_restart(ld, member(root, "mempool", "mbufs"), "mempool.mbufs", "%u",
		    cfg->mempool.mbufs);
	cfg_restart(ld, member(root, "mempool", "cache"), "mempool.cache", "%u",
		    cfg->mempool.cache);
	return 0;
}

static struct config_section mempool_section = {
	.name = "mempool",
	.load = mempool_load,
};
CONFIG_SECTION(mempool_section);

static int eal_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	static const char *const ekeys[] = { "hugepages", "memory_mb", "max_simd_bitwidth", NULL };
	const config_setting_t *g;

	cfg->eal.hugepages = true;
	cfg->eal.memory_mb = 1024;
	cfg->eal.max_simd_bitwidth = 512;
	g = cfg_get_typed(ld, root, "eal", CONFIG_TYPE_GROUP);
	if (g != NULL) {
		const config_setting_t *m = config_setting_get_member(g, "memory_mb");

		cfg->eal.line = cfg_line(m != NULL ? m : g);
		cfg_check_members(ld, g, ekeys);
		cfg_get_bool(ld, g, "hugepages", &cfg->eal.hugepages);
		cfg_get_u32(ld, g, "memory_mb", 64, 1048576, &cfg->eal.memory_mb);
		const config_setting_t *b = config_setting_get_member(g, "max_simd_bitwidth");
		uint32_t bw = cfg->eal.max_simd_bitwidth;
		if (cfg_get_u32(ld, g, "max_simd_bitwidth", 128, 512, &bw) == CFG_VAL_OK) {
			if (bw != 128 && bw != 256 && bw != 512)
				cfg_err(ld, b, "%u is not 128, 256 or 512", bw);
			else
				cfg->eal.max_simd_bitwidth = bw;
		}
	}
	cfg_restart(ld, member(root, "eal", "hugepages"), "eal.hugepages", "%s",
		    cfg->eal.hugepages ? "true" : "false");
	cfg_restart(ld, member(root, "eal", "memory_mb"), "eal.memory_mb", "%u",
		    cfg->eal.memory_mb);
	cfg_restart(ld, member(root, "eal", "max_simd_bitwidth"), "eal.max_simd_bitwidth", "%u",
		    cfg->eal.max_simd_bitwidth);
	return 0;
}

static struct config_section eal_section = {
	.name = "eal",
	.load = eal_load,
};
CONFIG_SECTION(eal_section);
