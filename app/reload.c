/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reload: re-read the config file and apply it without stopping traffic
 * (SIGHUP, `vbrctl reload`), and `vbrctl show config`.
 *
 * A reload of a million routes takes seconds of parsing and building, so
 * it runs off the event loop, in two steps on a reload thread:
 *
 *   reload thread: load + validate the file, build the new state (its
 *                  route table and stable next-hop ids; the FIB untouched)
 *   main lcore:    publish it (one atomic store), RCU grace period, the
 *                  modules' state_published hooks
 *   reload thread: change the FIB in place by the difference of the two
 *                  route tables, free the old state
 *   main lcore:    answer the `vbrctl reload` that asked
 *
 * The control socket keeps answering meanwhile. One reload at a time:
 * `vbrctl reload` while one runs is answered with an error (-EBUSY);
 * a SIGHUP is queued (one, however many arrive) and runs when it ends.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <time.h>

#include "app/ctl.h"
#include "app/systemd_notify.h"
#include "app/vbrd.h"
#include "core/config_read.h"
#include "core/evloop.h"
#include "core/log.h"
#include "core/module.h"
#include "pipeline/fwd.h"
#include "pipeline/mem.h"
#include "pipeline/port.h"
#include "pipeline/worker.h"

VBRD_LOG_USE(main);

enum reload_step { RELOAD_IDLE, RELOAD_BUILD, RELOAD_COMMIT };

static struct {
	enum reload_step step;
	pthread_t thread;
	struct ev_handler done;      /* eventfd: the thread finished its step */
	struct ctl_deferred *waiter; /* the `vbrctl reload` to answer, or NULL (SIGHUP) */
	bool sighup_pending;         /* a SIGHUP arrived while one ran */
	uint64_t started_ms, built_ms;
	/* results of the thread's step */
	int ret;
	char err[4096];
	struct fwd_state *st, *old;
	struct fib_apply_stats stats;
	uint64_t last_ms; /* duration of the last successful reload */
} rl = { .done = { .fd = -1 } };

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void join_errors(const struct config_errors *errs, char *err, size_t errlen)
{
	size_t used = 0;

	err[0] = '\0';
	for (int i = 0; i < errs->count && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? "\n" : "",
					 errs->msgs[i]);
}

/*
 * Load, check and build: everything but the publication. Reads the running
 * state (its config's restart settings, its FIB pair and tables), which
 * only a reload replaces, so it cannot change meanwhile.
 */
static int reload_build(struct fwd_state **out, char *err, size_t errlen)
{
	struct fwd_state *cur = atomic_load(&fwd_current);
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;
	int ret;

	uint64_t t0 = now_ms();
	ret = config_load(app.config_file, &cfg, &errs);
	if (ret < 0) {
		join_errors(&errs, err, errlen);
		config_errors_free(&errs);
		return ret;
	}
	uint64_t t_config = now_ms();
	for (int i = 0; i < cfg.nb_warnings; i++)
		LOG(WARNING, "%s", cfg.warnings[i]);
	/* the memory this config needs (one FIB pair), then the settings a
	 * reload cannot apply (ports, cores, memory, socket, FIB size, ...) */
	ret = mem_check(&cfg, err, errlen, NULL);
	if (ret == 0)
		ret = config_restart_diff(&cur->cfg, &cfg, err, errlen);
	uint64_t t_check = now_ms();
	if (ret == 0)
		ret = fwd_state_build(&cfg, port_ids(), cur, out, err, errlen);
	config_free(&cfg);
	/* config: reading the file, libconfig's parse and freeing its tree */
	if (ret == 0)
		LOG(INFO,
		    "reload: config %" PRIu64 " ms, checks %" PRIu64
		    " ms, forwarding state %" PRIu64 " ms",
		    t_config - t0, t_check - t_config, now_ms() - t_check);
	return ret;
}

/*
 * systemd's view of a reload (app/systemd_notify.h): RELOADING=1 when it
 * starts, READY=1 when it ends, applied or rejected (the running config
 * serves either way). MONOTONIC_USEC is what systemd >= 253 wants with
 * RELOADING=1 (sd_notify(3)); older versions ignore it.
 */
static void notify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	(void)systemd_notify("RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=reloading %s",
			     (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u,
			     app.config_file);
}

static void notify_reloaded(int ret, const char *err)
{
	uint64_t gen = atomic_load(&fwd_current)->generation;

	if (ret == 0) {
		(void)systemd_notify("READY=1\nSTATUS=running: generation %" PRIu64 ", reloaded",
				     gen);
		return;
	}
	/* the first line of the errors (one FILE:LINE: message each) */
	int n = (int)strcspn(err != NULL ? err : "", "\n");
	(void)systemd_notify("READY=1\nSTATUS=running: generation %" PRIu64
			     ", reload rejected: %.*s",
			     gen, n > 200 ? 200 : n, err != NULL ? err : "");
}

static void reload_failed(int ret, const char *err)
{
	(void)ret;
	app.reload_failures++;
	snprintf(app.last_reload_error, sizeof(app.last_reload_error), "%s", err);
	LOG(ERR, "reload of %s rejected, running config kept:\n%s", app.config_file, err);
}

static void reload_applied(const struct fwd_state *st, const struct fib_apply_stats *s, uint64_t ms)
{
	app.reloads++;
	rl.last_ms = ms;
	LOG(NOTICE,
	    "reloaded %s (generation %" PRIu64 ") in %" PRIu64 " ms: FIB %u added, %u changed, "
	    "%u deleted",
	    app.config_file, st->generation, ms, s->added, s->changed, s->deleted);
	if (s->failed)
		LOG(ERR, "reload: the FIB refused %u changes (first: %s)", s->failed,
		    strerror(-s->first_error));
}

int vbrd_reload(char *err, size_t errlen)
{
	struct fwd_state *st, *old;
	struct fib_apply_stats stats;
	uint64_t t0 = now_ms();
	int ret;

	if (rl.step != RELOAD_IDLE) {
		snprintf(err, errlen, "a reload is already running (for %" PRIu64 " ms)",
			 now_ms() - rl.started_ms);
		return -EBUSY;
	}
	notify_reloading();
	ret = reload_build(&st, err, errlen);
	if (ret < 0) {
		reload_failed(ret, err);
		notify_reloaded(ret, err);
		return ret;
	}
	old = fwd_state_swap(st, dp.rcu);
	modules_state_published(st);
	fwd_state_commit(st, old, &stats);
	reload_applied(st, &stats, now_ms() - t0);
	notify_reloaded(0, NULL);
	return 0;
}

/* ---- the reload thread ------------------------------------------------------ */

static void *reload_thread(void *arg)
{
	uint64_t one = 1;

	(void)arg;
	if (rl.step == RELOAD_BUILD)
		rl.ret = reload_build(&rl.st, rl.err, sizeof(rl.err));
	else
		rl.ret = fwd_state_commit(rl.st, rl.old, &rl.stats);
	if (write(rl.done.fd, &one, sizeof(one)) != sizeof(one))
		LOG(ERR, "reload: cannot signal the main loop: %s", strerror(errno));
	return NULL;
}

/* The step, and whether the FIB is the reload's (fib_reload_running). */
static void set_step(enum reload_step step)
{
	rl.step = step;
	atomic_store(&fib_reload_running, step != RELOAD_IDLE);
}

static int thread_start(enum reload_step step)
{
	set_step(step);
	int ret = pthread_create(&rl.thread, NULL, reload_thread, NULL);
	if (ret != 0) {
		set_step(RELOAD_IDLE);
		return -ret;
	}
	pthread_setname_np(rl.thread, "vbrd-reload");
	return 0;
}

static void reload_finish(int ret, const char *err)
{
	struct ctl_deferred *w = rl.waiter;

	rl.waiter = NULL;
	set_step(RELOAD_IDLE);
	notify_reloaded(ret, err);
	if (w != NULL)
		ctl_deferred_reply(
			w, ret,
			ret == 0 ? json_pack("{s:I}", "generation",
					     (json_int_t)atomic_load(&fwd_current)->generation)
				 : NULL,
			err);
	if (rl.sighup_pending) {
		rl.sighup_pending = false;
		vbrd_reload_start(NULL);
	}
}

/*
 * A `path set` while the state was built switched the running state's
 * group after the build copied it: carry the running choice over (main
 * lcore, the only one that switches paths).
 */
static void paths_carry_over(struct fwd_state *st, const struct fwd_state *cur)
{
	for (int g = 0; g < st->nb_path_groups; g++) {
		struct fwd_path_group *pg = &st->path_groups[g];
		const struct fwd_path_group *old = fwd_path_group_find(cur, pg->name);
		const struct fwd_path *act = old ? atomic_load(&old->active) : NULL;

		if (act == NULL)
			continue;
		pg->switches = old->switches;
		for (int k = 0; k < pg->nb_paths; k++) {
			struct fwd_path *p = &st->paths[pg->paths[k]];
			if (strcmp(p->name, act->name) == 0)
				atomic_store(&pg->active, p);
		}
	}
}

/* The thread finished a step (main lcore). */
static void on_done(struct ev_handler *h, uint32_t events)
{
	uint64_t n;

	(void)events;
	if (read(h->fd, &n, sizeof(n)) != sizeof(n))
		return;
	pthread_join(rl.thread, NULL);
	if (rl.step == RELOAD_BUILD) {
		if (rl.ret < 0) {
			reload_failed(rl.ret, rl.err);
			reload_finish(rl.ret, rl.err);
			return;
		}
		rl.built_ms = now_ms();
		/* neighbors learned and paths switched while it was built */
		fwd_neigh_fill(rl.st);
		paths_carry_over(rl.st, atomic_load(&fwd_current));
		rl.old = fwd_state_swap(rl.st, dp.rcu);
		modules_state_published(rl.st);
		if (thread_start(RELOAD_COMMIT) < 0) {
			/* no thread: do it here, blocking the loop once */
			fwd_state_commit(rl.st, rl.old, &rl.stats);
			set_step(RELOAD_COMMIT);
		} else {
			return;
		}
	}
	LOG(INFO, "reload: built in %" PRIu64 " ms, FIB changed in %" PRIu64 " ms",
	    rl.built_ms - rl.started_ms, now_ms() - rl.built_ms);
	reload_applied(rl.st, &rl.stats, now_ms() - rl.started_ms);
	rl.st = rl.old = NULL;
	reload_finish(0, NULL);
}

int vbrd_reload_start(struct ctl_deferred *waiter)
{
	if (rl.step != RELOAD_IDLE) {
		if (waiter == NULL) {
			rl.sighup_pending = true;
			LOG(NOTICE, "SIGHUP: a reload is running, another follows it");
		}
		return -EBUSY;
	}
	rl.waiter = waiter;
	rl.started_ms = now_ms();
	rl.err[0] = '\0';
	notify_reloading();
	int ret = thread_start(RELOAD_BUILD);
	if (ret < 0) {
		rl.waiter = NULL;
		LOG(ERR, "reload: cannot start the reload thread: %s", strerror(-ret));
		notify_reloaded(0, NULL); /* nothing changed: back to READY */
	}
	return ret;
}

bool vbrd_reload_running(void)
{
	return rl.step != RELOAD_IDLE;
}

static int do_reload(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc, (void)argv;
	if (rl.step != RELOAD_IDLE) {
		snprintf(err, errlen,
			 "a reload is already running (for %" PRIu64
			 " ms); try again when it has finished",
			 now_ms() - rl.started_ms);
		return -EBUSY;
	}
	struct ctl_deferred *w = rl.done.fd >= 0 ? ctl_defer() : NULL;
	if (w != NULL) {
		if (vbrd_reload_start(w) == 0)
			return CTL_DEFERRED;
		ctl_defer_cancel(w); /* no thread: reload here, blocking the loop once */
	}
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
	/* the VRF default's FIB; `show vrfs` gives every VRF's */
	struct fib_capacity used;
	const struct fib_capacity *cap = &st->vrfs[0].fibs->cap;
	fib_table_need(&st->vrfs[0].routes, &used);
	uint32_t statics = 0;
	for (int v = 0; v < st->nb_vrfs; v++)
		statics += st->vrfs[v].nb_routes4 + st->vrfs[v].nb_routes6;
	json_t *fib = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "ipv4_routes",
				(json_int_t)cap->routes4, "ipv4_tbl8", (json_int_t)cap->tbl8_4,
				"ipv6_routes", (json_int_t)cap->routes6, "ipv6_tbl8",
				(json_int_t)cap->tbl8_6, "ipv4_entries", (json_int_t)used.routes4,
				"ipv4_tbl8_used", (json_int_t)used.tbl8_4, "ipv6_entries",
				(json_int_t)used.routes6, "ipv6_tbl8_used", (json_int_t)used.tbl8_6,
				"bytes", (json_int_t)fib_pair_memsize(cap, 0));
	*data = json_pack("{s:s, s:I, s:s, s:I, s:I, s:s, s:b, s:I, s:I, s:I, s:o}", "file",
			  app.config_file, "generation", (json_int_t)st->generation, "loaded_at",
			  when, "reloads", (json_int_t)app.reloads, "reload_failures",
			  (json_int_t)app.reload_failures, "last_reload_error",
			  app.last_reload_error, "reload_running", rl.step != RELOAD_IDLE,
			  "last_reload_ms", (json_int_t)rl.last_ms, "routes", (json_int_t)statics,
			  "fib_entries", (json_int_t)fwd_fib_entries(st), "fib", fib);
	return 0;
}

static int reload_start(void)
{
	rl.done.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	rl.done.cb = on_done;
	if (rl.done.fd < 0 || ev_add(&rl.done, EPOLLIN) < 0) {
		LOG(WARNING, "reload: no eventfd (%s): reloads block the control loop",
		    strerror(errno));
		if (rl.done.fd >= 0)
			close(rl.done.fd);
		rl.done.fd = -1;
	}
	ctl_register("reload", "re-read the config file; a bad file changes nothing", do_reload);
	ctl_register("show config", "running configuration file and generation", show_config);
	return 0;
}

static void reload_fini(void)
{
	/* a reload still running: let its step end (a state it built is
	 * freed with it, or is already published) */
	if (rl.step != RELOAD_IDLE) {
		pthread_join(rl.thread, NULL);
		if (rl.step == RELOAD_BUILD && rl.ret == 0)
			fwd_state_free(rl.st);
		set_step(RELOAD_IDLE);
	}
	if (rl.done.fd >= 0) {
		ev_del(&rl.done);
		close(rl.done.fd);
		rl.done.fd = -1;
	}
}

static struct vbrd_module reload_module = {
	.name = "reload",
	.start = reload_start,
	.fini = reload_fini,
};
VBRD_MODULE(reload_module);
