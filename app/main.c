/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vbrd: start-up, the control loop, reload and shutdown.
 *
 *   vbrd -c FILE [-- EAL args]      run
 *   vbrd --check-config FILE        validate FILE and exit (0 ok, 2 errors)
 *   vbrd --reserve-hugepages FILE   make FILE's eal.memory_mb free as hugepages
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "core/tsc.h"
#include "core/config.h"
#include "core/drop.h"
#include "pipeline/control.h"
#include "app/ctl.h"
#include "app/ctl_telemetry.h"
#include "app/daemon_config.h"
#include "app/hugepages.h"
#include "app/systemd_notify.h"
#include "core/evloop.h"
#include "pipeline/fwd.h"
#include "core/log.h"
#include "core/module.h"
#include "pipeline/mem.h"
#include "app/watchdog.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/port.h"
#include "app/vbrd.h"

/* Longest wait of the idle control loop, ms: how long a packet punted to an
 * idle control thread (ARP, ND, resolution) may wait for it. */
#define CONTROL_IDLE_WAIT_MAX_MS 5u
#include "app/watchdog.h"
#include "pipeline/worker.h"

struct vbrd_app app;
VBRD_LOG_TYPE(main);
static volatile bool quit;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: vbrd [-i NAME] -c FILE [-- EAL options]\n"
		"       vbrd [-i NAME] --check-config FILE\n"
		"       vbrd [-i NAME] --reserve-hugepages FILE\n"
		"       vbrd --drop-reasons\n"
		"\n"
		"  -c, --config FILE        configuration (libconfig), see conf/README.md\n"
		"  -i, --instance NAME      run as instance NAME: a file without `instance`\n"
		"                           takes it, one that names another is refused\n"
		"      --check-config FILE  validate FILE, print FILE:LINE: errors, exit 0 or 2\n"
		"      --reserve-hugepages FILE\n"
		"                           raise the hugepage pool until FILE's eal.memory_mb\n"
		"                           MiB are free (never lower it), exit 0; 1 when the\n"
		"                           kernel gave fewer, 2 for a bad FILE\n"
		"      --drop-reasons       print every drop reason as a Markdown table, exit 0\n"
		"  -h, --help               this text\n"
		"\n"
		"Signals: SIGHUP reloads the config file, SIGTERM/SIGINT stop cleanly.\n"
		"Under systemd (NOTIFY_SOCKET set) vbrd says READY=1 once its ports forward.\n");
}

static int check_config(const char *file)
{
	struct vbrd_config cfg;
	struct config_errors errs = { 0 };
	int ret = config_load(file, &cfg, &errs);
	struct mem_need need;
	char err[1024], more[512];

	if (ret < 0) {
		config_errors_print(&errs, stderr);
		config_errors_free(&errs);
		return 2;
	}
	if (mem_check(&cfg, err, sizeof(err), &need) < 0) {
		fprintf(stderr, "%s\n", err);
		config_free(&cfg);
		return 2;
	}
	for (int i = 0; i < cfg.nb_warnings; i++)
		fprintf(stderr, "%s\n", cfg.warnings[i]);
	/* features add their own counts (config_section.summary) */
	config_sections_summary(&cfg, more, sizeof(more));
	printf("%s: ok (%d ports, %d interfaces, %d routes%s; needs %u of %u MiB without "
	       "hugepages)\n",
	       file, cfg.nb_ports, cfg.nb_ifaces, cfg.nb_routes, more, need.total_mb,
	       cfg.eal.memory_mb);
	config_free(&cfg);
	return 0;
}

/* The drop reasons every linked feature registered (app/README.md holds this table). */
static int print_drop_reasons(void)
{
	const struct drop_reason *v[VBRD_DROP_MAX];
	unsigned n = drop_reasons_sorted(v);

	printf("| reason | feature | meaning |\n|---|---|---|\n");
	for (unsigned i = 0; i < n; i++)
		printf("| `%s` | %s | %s |\n", v[i]->name, v[i]->feature, v[i]->help);
	return 0;
}

/* --reserve-hugepages FILE: the systemd units' ExecStartPre (app/hugepages.h). */
static int reserve_hugepages(const char *file)
{
	struct vbrd_config cfg;
	struct config_errors errs = { 0 };
	char msg[512];
	int ret;

	if (config_load(file, &cfg, &errs) < 0) {
		config_errors_print(&errs, stderr);
		config_errors_free(&errs);
		return 2;
	}
	if (!cfg.eal.hugepages) {
		printf("vbrd: %s: eal.hugepages is false: no hugepages reserved\n", file);
		config_free(&cfg);
		return 0;
	}
	ret = hugepages_reserve(cfg.eal.memory_mb, msg, sizeof(msg));
	printf("vbrd: %s: eal.memory_mb %u: %s\n", file, cfg.eal.memory_mb, msg);
	config_free(&cfg);
	return ret < 0 ? 1 : 0;
}

#define EAL_ARGS_MAX 128

/* The EAL's argv: our own from the config, then the user's after "--". */
static int build_eal_args(const struct vbrd_config *cfg, int uargc, char **uargv, char **argv,
			  char *bufs, size_t buflen)
{
	int argc = 0;
	size_t used = 0;
	bool pci = false;

#define ARG(...)                                                            \
	do {                                                                \
		int n_ = snprintf(bufs + used, buflen - used, __VA_ARGS__); \
		argv[argc++] = bufs + used;                                 \
		used += (size_t)n_ + 1;                                     \
	} while (0)

	ARG("vbrd");
	ARG("--file-prefix=%s", cfg->instance);
	/* lcore 0 (main, control) on the first CPU no worker uses; workers 1..N */
	unsigned main_cpu = 0;
	for (bool clash = true; clash;) {
		clash = false;
		for (int i = 0; i < cfg->workers.nb_cores; i++)
			if (cfg->workers.cores[i] == main_cpu)
				clash = true;
		if (clash && main_cpu + 1 < (unsigned)sysconf(_SC_NPROCESSORS_ONLN))
			main_cpu++;
		else
			break;
	}
	{
		char lc[256];
		int n = snprintf(lc, sizeof(lc), "0@%u", main_cpu);
		for (int i = 0; i < cfg->workers.nb_cores; i++)
			n += snprintf(lc + n, sizeof(lc) - (size_t)n, ",%d@%u", i + 1,
				      cfg->workers.cores[i]);
		ARG("--lcores=%s", lc);
	}
	ARG("--main-lcore=0");
	/* the vector paths the CPU has, up to this width (rte_fib's AVX-512
	 * lookup needs 512; DPDK defaults to 256) */
	bool user_simd = false; /* an EAL option of the user's wins (EAL takes one) */
	for (int i = 0; i < uargc; i++)
		if (strncmp(uargv[i], "--force-max-simd-bitwidth", 25) == 0)
			user_simd = true;
	if (!user_simd)
		ARG("--force-max-simd-bitwidth=%u", cfg->eal.max_simd_bitwidth);
	if (!cfg->eal.hugepages || !hugepages_available()) {
		ARG("--no-huge");
		ARG("-m");
		ARG("%u", cfg->eal.memory_mb);
	} else {
		/* Each hugepage file is unlinked once mapped: its pages go back
		 * to the pool when vbrd exits, however it exits (EAL leaves the
		 * files in hugetlbfs otherwise, 2 MiB each, until removed by
		 * hand). vbrd has no secondary processes that would need them. */
		ARG("--huge-unlink");
	}
	for (int i = 0; i < cfg->nb_ports; i++) {
		const char *opt = port_eal_option(cfg->ports[i].devargs);
		char devargs[CFG_DEVARGS_MAX + 64];
		ARG("%s", opt);
		ARG("%s", port_eal_devargs(&cfg->ports[i], devargs, sizeof(devargs)));
		if (strcmp(opt, "-a") == 0)
			pci = true;
	}
	if (!pci)
		ARG("--no-pci");
	for (int i = 0; i < uargc && argc < EAL_ARGS_MAX - 1; i++)
		argv[argc++] = uargv[i];
	argv[argc] = NULL;
#undef ARG
	return argc;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct ev_handler sig_handler;

static void on_signal(struct ev_handler *h, uint32_t events)
{
	struct signalfd_siginfo si;

	(void)events;
	while (read(h->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			vbrd_reload_start(NULL); /* queued when one runs */
		else
			quit = true;
	}
}

/* CPU time of the calling thread, ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", required_argument, NULL, 'C' },
		{ "reserve-hugepages", required_argument, NULL, 'R' },
		{ "instance", required_argument, NULL, 'i' },
		{ "drop-reasons", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL, *check = NULL, *reserve = NULL;
	struct vbrd_config cfg;
	struct config_errors errs = { 0 };
	char err[4096];
	int c, ret;

	while ((c = getopt_long(argc, argv, "c:i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			file = optarg;
			break;
		case 'C':
			check = optarg;
			break;
		case 'R':
			reserve = optarg;
			break;
		case 'i':
			if (daemon_config_require_instance(optarg) < 0) {
				fprintf(stderr,
					"vbrd: --instance '%s': 1..%d characters of "
					"[A-Za-z0-9_.-], not beginning with '.'\n",
					optarg, CFG_NAME_MAX - 1);
				return 2;
			}
			break;
		case 'D':
			return print_drop_reasons();
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* after every option: --instance holds for these too */
	if (check != NULL)
		return check_config(check);
	if (reserve != NULL)
		return reserve_hugepages(reserve);
	if (file == NULL) {
		usage(stderr);
		return 2;
	}
	/* Grow malloc's heaps 64 MiB at a time: the reload thread's fresh
	 * arena otherwise grows by mprotect() in 128 KiB steps, which made the
	 * first reload of 1M routes parse ~2x slower than later ones.
	 * (One arena for all threads did it too, but the main lcore then waited
	 * for the reload's frees: `show stats` answered in ~30 ms, not ~5.) */
	mallopt(M_TOP_PAD, 64 << 20);
	uint64_t t_start = mono_ms();
	if (config_load(file, &cfg, &errs) < 0) {
		config_errors_print(&errs, stderr);
		config_errors_free(&errs);
		return 2;
	}
	if (mem_check(&cfg, err, sizeof(err), NULL) < 0) {
		fprintf(stderr, "%s\n", err);
		config_free(&cfg);
		return 2;
	}
	for (int i = 0; i < cfg.nb_warnings; i++) /* before the EAL: its log is not up yet */
		fprintf(stderr, "vbrd: %s\n", cfg.warnings[i]);
	uint64_t t_config = mono_ms();
	snprintf(app.config_file, sizeof(app.config_file), "%s", file);
	snprintf(app.socket, sizeof(app.socket), "%s", cfg.socket);
	snprintf(app.instance, sizeof(app.instance), "%s", cfg.instance);

	/* Signals go to a signalfd; block them before the EAL starts threads. */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* Under systemd stderr is the journal (JOURNAL_STREAM, systemd.exec(5)).
	 * DPDK 22.11's default log writes each line to stderr and to syslog(),
	 * which the journal takes too: every line twice. stderr alone, then. */
	if (getenv("JOURNAL_STREAM") != NULL)
		rte_openlog_stream(stderr);

	char *eal_argv[EAL_ARGS_MAX];
	static char eal_buf[8192];
	int eal_argc = build_eal_args(&cfg, argc - optind, argv + optind, eal_argv, eal_buf,
				      sizeof(eal_buf));
	ret = rte_eal_init(eal_argc, eal_argv);
	if (ret < 0) {
		fprintf(stderr, "vbrd: EAL init failed: %s\n", rte_strerror(rte_errno));
		config_free(&cfg);
		return 1;
	}
	/* Before anything turns TSC values into time (core/tsc.h). */
	uint64_t hz = tsc_calibrate(50);
	LOG(INFO, "TSC %.6f MHz (%s; DPDK says %.6f MHz)", (double)hz / 1e6,
	    tsc_measured() ? "measured" : "DPDK's: the measurement failed",
	    (double)rte_get_tsc_hz() / 1e6);
	uint64_t t_eal = mono_ms();
	/* Every feature's init, in dependency order (core/module.h). */
	if (modules_init(&cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "vbrd: %s\n", err);
		goto fail_eal;
	}
	struct fwd_state *st;
	uint64_t t_init = mono_ms();
	ret = fwd_state_build(&cfg, port_ids(), NULL, &st, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "vbrd: %s\n", err);
		goto fail_modules;
	}
	fwd_state_publish(st, dp.rcu);
	modules_state_published(st);
	LOG(NOTICE,
	    "start-up: config %" PRIu64 " ms, EAL %" PRIu64 " ms, modules %" PRIu64
	    " ms, forwarding state and FIBs (%u entries, %d VRFs) %" PRIu64 " ms",
	    t_config - t_start, t_eal - t_config, t_init - t_eal, fwd_fib_entries(st), st->nb_vrfs,
	    mono_ms() - t_init);

	if (ev_init() < 0) {
		fprintf(stderr, "vbrd: cannot create the event loop\n");
		goto fail_modules;
	}
	sig_handler.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	sig_handler.cb = on_signal;
	if (sig_handler.fd < 0 || ev_add(&sig_handler, EPOLLIN) < 0) {
		fprintf(stderr, "vbrd: signalfd: %s\n", strerror(errno));
		goto fail_modules;
	}
	/* Workers run, commands and telemetry are registered; then the socket
	 * opens, so the first client finds every command. */
	if (modules_start(err, sizeof(err)) < 0) {
		fprintf(stderr, "vbrd: %s\n", err);
		goto fail_modules;
	}
	ret = ctl_export_foreach(ctl_telemetry_export);
	if (ret < 0)
		fprintf(stderr, "vbrd: telemetry endpoints not exported: %s\n", strerror(-ret));
	ret = ctl_init(app.socket);
	if (ret < 0) {
		fprintf(stderr, "vbrd: control socket %s: %s\n", app.socket,
			ret == -EADDRINUSE ? "another vbrd answers there" : strerror(-ret));
		goto fail_modules;
	}

	printf("vbrd: running: %d ports, %d interfaces, %u workers, control socket %s\n",
	       port_count(), st->nb_ifaces, dp.nb_workers, app.socket);
	fflush(stdout);
	/* Ports started, workers polling, the socket answering: ready. */
	ret = systemd_notify("READY=1\nSTATUS=running: %d ports, %d interfaces, %u workers, "
			     "generation %" PRIu64,
			     port_count(), st->nb_ifaces, dp.nb_workers, st->generation);
	if (ret < 0)
		LOG(WARNING, "cannot notify systemd ($NOTIFY_SOCKET): %s", strerror(-ret));

	/* The control thread polls what the workers punt (no fd can wake it).
	 * Busy, it does not wait; idle, its wait grows from 1 ms to
	 * CONTROL_IDLE_WAIT_MAX_MS, so that an idle appliance does not pay
	 * 1000 wake-ups a second (~4% of a core here, mostly the kernel's
	 * context switch), and a punted packet waits at most that long.
	 * Each turn's work (not its wait) goes to the stall meter, show stats'
	 * main_loop: nothing that runs here may take more than milliseconds. */
	unsigned busy = 0, idle = 0;
	while (!quit) {
		int wait_ms = busy ? 0 : 1 + (int)RTE_MIN(idle / 16, CONTROL_IDLE_WAIT_MAX_MS - 1u);
		struct pollfd pfd = { .fd = ev_fd(), .events = POLLIN };
		(void)poll(&pfd, 1, wait_ms);
		uint64_t t0 = tsc_now_ns(), c0 = thread_cpu_ns();
		int n = ev_run_once(0);
		idle = n > 0 || busy ? 0 : idle + 1;
		busy = modules_poll(control_now_ms());
		uint64_t t1 = tsc_now_ns();
		ev_turn_record(t1 - t0, thread_cpu_ns() - c0, tsc_wall_us(t1));
	}

	LOG(NOTICE, "stopping");
	(void)systemd_notify("STOPPING=1\nSTATUS=stopping");
	/* Bounded whatever the workers and PMDs do (app/watchdog.h). */
	if (watchdog_arm(VBRD_STOP_BOUND_MS) < 0)
		LOG(WARNING, "cannot start the stop watchdog: stopping is not bounded");
	watchdog_phase("closing the control socket");
	ctl_telemetry_fini();
	ctl_fini();
	watchdog_phase("stopping the modules (workers first, then ports)");
	modules_fini();
	fwd_state_free(atomic_exchange(&fwd_current, NULL));
	ev_fini();
	watchdog_service_stopped("in rte_eal_cleanup()");
	rte_eal_cleanup();
	watchdog_disarm();
	return 0;

fail_modules:
	modules_fini();
fail_eal:
	config_free(&cfg);
	rte_eal_cleanup();
	return 1;
}
