/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reload: re-read the config file and apply it without stopping traffic
 * (SIGHUP, `vbrctl reload`), and `vbrctl show config`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>
#include <time.h>

#include "core/ctl.h"
#include "app/vbrd.h"
#include "core/config_read.h"
#include "core/log.h"
#include "core/module.h"
#include "pipeline/fwd.h"
#include "pipeline/mem.h"
#include "pipeline/port.h"
#include "pipeline/worker.h"

VBRD_LOG_USE(main);

static void join_errors(const struct config_errors *errs, char *err, size_t errlen)
{
	size_t used = 0;

	err[0] = '\0';
	for (int i = 0; i < errs->count && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? "\n" : "",
					 errs->msgs[i]);
}

int vbrd_reload(char *err, size_t errlen)
{
	struct fwd_state *cur = atomic_load(&fwd_current), *st;
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	int ret;

	ret = config_load(app.config_file, &cfg, &errs);
	if (ret < 0) {
		join_errors(&errs, err, errlen);
		config_errors_free(&errs);
		goto fail;
	}
	/* the memory the running state plus this one need, then the settings a
	 * reload cannot apply (ports, cores, memory, socket, ...) */
	ret = mem_check(&cfg, err, errlen, NULL);
	if (ret == 0)
		ret = config_restart_diff(&cur->cfg, &cfg, err, errlen);
	if (ret == 0)
		ret = fwd_state_build(&cfg, port_ids(), cur, &st, err, errlen);
	if (ret < 0) {
		config_free(&cfg);
		goto fail;
	}
	fwd_state_publish(st, dp.rcu);
	modules_state_published(st);
	app.reloads++;
	LOG(NOTICE, "reloaded %s (generation %" PRIu64 ")", app.config_file, st->generation);
	return 0;
fail:
	app.reload_failures++;
	snprintf(app.last_reload_error, sizeof(app.last_reload_error), "%s", err);
	LOG(ERR, "reload of %s rejected, running config kept:\n%s", app.config_file, err);
	return ret;
}

static int do_reload(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc, (void)argv;
	int ret = vbrd_reload(err, errlen);
	if (ret < 0)
		return ret;
	*data = json_pack("{s:I}", "generation", (json_int_t)atomic_load(&fwd_current)->generation);
	return 0;
}

static int show_config(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	char when[64];

	(void)argc, (void)argv, (void)err, (void)errlen;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&st->loaded_at));
	*data = json_pack("{s:s, s:I, s:s, s:I, s:I, s:s}", "file", app.config_file, "generation",
			  (json_int_t)st->generation, "loaded_at", when, "reloads",
			  (json_int_t)app.reloads, "reload_failures",
			  (json_int_t)app.reload_failures, "last_reload_error",
			  app.last_reload_error);
	return 0;
}

static int reload_start(void)
{
	ctl_register("reload", "re-read the config file; a bad file changes nothing", do_reload);
	ctl_register("show config", "running configuration file and generation", show_config);
	return 0;
}

static struct vbrd_module reload_module = {
	.name = "reload",
	.start = reload_start,
};
VBRD_MODULE(reload_module);
