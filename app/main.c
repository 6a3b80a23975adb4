/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vbrd: start-up, the control loop, reload and shutdown.
 *
 *   vbrd -c FILE [-- EAL args]      run
 *   vbrd --check-config FILE        validate FILE and exit (0 ok, 2 errors)
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "app/config.h"
#include "pipeline/control.h"
#include "app/ctl.h"
#include "app/ctl_telemetry.h"
#include "app/evloop.h"
#include "pipeline/fwd.h"
#include "app/log.h"
#include "pipeline/mem.h"
#include "pipeline/meta.h"
#include "pipeline/neigh.h"
#include "pipeline/port.h"
#include "app/vbrd.h"
#include "app/watchdog.h"
#include "pipeline/worker.h"

struct vbrd_app app;
int vbrd_logtype_main;
static volatile bool quit;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: vbrd -c FILE [-- EAL options]\n"
		"       vbrd --check-config FILE\n"
		"\n"
		"  -c, --config FILE        configuration (libconfig), see conf/README.md\n"
		"      --check-config FILE  validate FILE, print FILE:LINE: errors, exit 0 or 2\n"
		"  -h, --help               this text\n"
		"\n"
		"Signals: SIGHUP reloads the config file, SIGTERM/SIGINT stop cleanly.\n");
}

static int check_config(const char *file)
{
	struct vbrd_config cfg;
	struct config_errors errs = { 0 };
	int ret = config_load(file, &cfg, &errs);
	struct mem_need need;
	char err[1024];

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
	printf("%s: ok (%d ports, %d interfaces, %d routes; needs %u of %u MiB without "
	       "hugepages)\n",
	       file, cfg.nb_ports, cfg.nb_ifaces, cfg.nb_routes, need.total_mb, cfg.eal.memory_mb);
	config_free(&cfg);
	return 0;
}

static bool hugepages_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long free_pages = 0;
	bool mounted = false;

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "HugePages_Free: %ld", &free_pages);
	fclose(f);
	f = fopen("/proc/mounts", "r");
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " hugetlbfs "))
			mounted = true;
	fclose(f);
	return free_pages > 0 && mounted;
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
	if (!cfg->eal.hugepages || !hugepages_available()) {
		ARG("--no-huge");
		ARG("-m");
		ARG("%u", cfg->eal.memory_mb);
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

/* Sized by pipeline/mem.c, which also counts it against eal.memory_mb. */
static struct rte_mempool *create_pool(const struct vbrd_config *cfg)
{
	uint32_t need, n = mem_pool_mbufs(cfg, &need);

	if (n > cfg->mempool.mbufs)
		LOG(NOTICE, "mempool: %u mbufs configured, %u needed to fill every ring: using %u",
		    cfg->mempool.mbufs, need, n);
	return rte_pktmbuf_pool_create("mbufs", n, cfg->mempool.cache, 0, mem_mbuf_room(cfg),
				       rte_socket_id());
}

static void join_errors(const struct config_errors *errs, char *err, size_t errlen)
{
	size_t used = 0;

	err[0] = '\0';
	for (int i = 0; i < errs->count && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? "\n" : "",
					 errs->msgs[i]);
}

static int ports_same(const struct vbrd_config *a, const struct vbrd_config *b, char *err,
		      size_t errlen)
{
	bool same = a->nb_ports == b->nb_ports;

	for (int i = 0; same && i < a->nb_ports; i++)
		same = strcmp(a->ports[i].name, b->ports[i].name) == 0 &&
		       strcmp(a->ports[i].devargs, b->ports[i].devargs) == 0 &&
		       a->ports[i].rx_queues == b->ports[i].rx_queues &&
		       a->ports[i].mtu == b->ports[i].mtu;
	if (!same) {
		snprintf(err, errlen,
			 "%s:%d: ports cannot change while vbrd runs "
			 "(they are EAL devices): restart vbrd to apply",
			 b->file, b->nb_ports ? b->ports[0].line : 1);
		return -EPERM;
	}
	if (a->workers.nb_cores != b->workers.nb_cores ||
	    memcmp(a->workers.cores, b->workers.cores, sizeof(a->workers.cores)) != 0) {
		snprintf(err, errlen, "%s: workers cannot change while vbrd runs: restart vbrd",
			 b->file);
		return -EPERM;
	}
	return 0;
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
	ret = mem_check(&cfg, err, errlen, NULL);
	if (ret == 0)
		ret = ports_same(&cur->cfg, &cfg, err, errlen);
	if (ret == 0)
		ret = fwd_state_build(&cfg, app.port_ids, cur, &st, err, errlen);
	if (ret < 0) {
		config_free(&cfg);
		goto fail;
	}
	fwd_state_publish(st, dp.rcu);
	control_state_changed(st);
	app.reloads++;
	LOG(NOTICE, "reloaded %s (generation %" PRIu64 ")", app.config_file, st->generation);
	return 0;
fail:
	app.reload_failures++;
	snprintf(app.last_reload_error, sizeof(app.last_reload_error), "%s", err);
	LOG(ERR, "reload of %s rejected, running config kept:\n%s", app.config_file, err);
	return ret;
}

static struct ev_handler sig_handler;

static void on_signal(struct ev_handler *h, uint32_t events)
{
	struct signalfd_siginfo si;
	char err[4096];

	(void)events;
	while (read(h->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			vbrd_reload(err, sizeof(err));
		else
			quit = true;
	}
}

static int setup_workers(const struct vbrd_config *cfg)
{
	unsigned nbw = (unsigned)cfg->workers.nb_cores, next = 0;

	dp.nb_workers = nbw;
	dp.workers = rte_zmalloc("workers", sizeof(struct worker) * nbw, RTE_CACHE_LINE_SIZE);
	if (dp.workers == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < nbw; i++) {
		struct worker *w = &dp.workers[i];
		char name[RTE_RING_NAMESIZE];

		w->id = i;
		w->lcore = i + 1;
		w->burst = cfg->workers.burst;
		w->idle_sleep_us = cfg->workers.idle_sleep_us;
		w->icmp_rate = RTE_MAX(1u, cfg->icmp.rate_pps / nbw);
		w->icmp_depth = RTE_MAX(1u, cfg->icmp.burst / nbw);
		w->tx = rte_zmalloc("txbuf", sizeof(struct tx_buffer) * dp.nb_port_ids,
				    RTE_CACHE_LINE_SIZE);
		snprintf(name, sizeof(name), "inject%u", i);
		w->inject = rte_ring_create(name, MEM_INJECT_RING, SOCKET_ID_ANY,
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (w->tx == NULL || w->inject == NULL)
			return -ENOMEM;
	}
	/* Spread RX queues over workers round-robin, port by port. */
	for (int p = 0; p < app.nb_ports; p++) {
		for (uint16_t q = 0; q < app.ports[p].nb_rxq; q++) {
			struct worker *w = &dp.workers[next++ % nbw];
			if (w->nb_rxq == WORKER_MAX_RXQ)
				return -ENOSPC;
			w->rxq[w->nb_rxq].port = app.ports[p].id;
			w->rxq[w->nb_rxq].queue = q;
			w->nb_rxq++;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL;
	struct vbrd_config cfg;
	struct config_errors errs = { 0 };
	char err[4096];
	int c, ret;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			file = optarg;
			break;
		case 'C':
			return check_config(optarg);
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (file == NULL) {
		usage(stderr);
		return 2;
	}
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
	vbrd_logtype_main = rte_log_register_type_and_pick_level("vbrd.main", RTE_LOG_INFO);
	if (rte_lcore_count() != (unsigned)cfg.workers.nb_cores + 1) {
		fprintf(stderr, "vbrd: EAL has %u lcores, need %d workers + 1 main\n",
			rte_lcore_count(), cfg.workers.nb_cores);
		goto fail_eal;
	}

	ret = pkt_meta_register();
	if (ret < 0) {
		fprintf(stderr, "vbrd: cannot register mbuf dynfield: %s\n", strerror(-ret));
		goto fail_eal;
	}
	unsigned nbw = (unsigned)cfg.workers.nb_cores;
	dp.pool = create_pool(&cfg);
	if (dp.pool == NULL) {
		fprintf(stderr, "vbrd: cannot create mempool: %s (raise eal.memory_mb?)\n",
			rte_strerror(rte_errno));
		goto fail_eal;
	}
	dp.indirect_pool = rte_pktmbuf_pool_create("indirect", MEM_INDIRECT_MBUFS,
						   MEM_INDIRECT_CACHE, 0, 0, rte_socket_id());
	if (dp.indirect_pool == NULL) {
		fprintf(stderr, "vbrd: cannot create the indirect mempool: %s\n",
			rte_strerror(rte_errno));
		goto fail_eal;
	}
	size_t rcu_sz = rte_rcu_qsbr_get_memsize(nbw);
	dp.rcu = rte_zmalloc("rcu", rcu_sz, RTE_CACHE_LINE_SIZE);
	dp.to_control = rte_ring_create("to_control", MEM_TO_CONTROL_RING, SOCKET_ID_ANY,
					RING_F_SC_DEQ);
	if (dp.rcu == NULL || dp.to_control == NULL || rte_rcu_qsbr_init(dp.rcu, nbw) != 0 ||
	    neigh_init(dp.rcu) != 0) {
		fprintf(stderr, "vbrd: out of memory at start-up\n");
		goto fail_eal;
	}

	for (int i = 0; i < cfg.nb_ports; i++) {
		ret = port_setup(&cfg.ports[i], (uint16_t)nbw, dp.pool, &app.ports[i], err,
				 sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "\nvbrd: %s:%d: %s\n", cfg.file, cfg.ports[i].line, err);
			goto fail_ports;
		}
		app.nb_ports++;
		app.port_ids[i] = app.ports[i].id;
		dp.nb_port_ids = RTE_MAX(dp.nb_port_ids, (uint16_t)(app.ports[i].id + 1));
		dp.rx_ipv4_cksum[app.ports[i].id] = app.ports[i].rx_ipv4_cksum;
	}

	struct fwd_state *st;
	ret = fwd_state_build(&cfg, app.port_ids, NULL, &st, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "vbrd: %s\n", err);
		goto fail_ports;
	}
	fwd_state_publish(st, dp.rcu);
	control_state_changed(st);

	ret = setup_workers(&st->cfg);
	if (ret < 0) {
		fprintf(stderr, "vbrd: cannot set up workers: %s\n", strerror(-ret));
		goto fail_ports;
	}

	if (ev_init() < 0) {
		fprintf(stderr, "vbrd: cannot create the event loop\n");
		goto fail_ports;
	}
	sig_handler.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	sig_handler.cb = on_signal;
	if (sig_handler.fd < 0 || ev_add(&sig_handler, EPOLLIN) < 0) {
		fprintf(stderr, "vbrd: signalfd: %s\n", strerror(errno));
		goto fail_ports;
	}
	show_register();
	ret = ctl_init(app.socket);
	if (ret < 0) {
		fprintf(stderr, "vbrd: control socket %s: %s\n", app.socket,
			ret == -EADDRINUSE ? "another vbrd answers there" : strerror(-ret));
		goto fail_ports;
	}
	ctl_telemetry_export("show stats", "/vbrd/stats", "vbrd packet and drop counters");
	ctl_telemetry_export("show ports", "/vbrd/ports", "vbrd ports and their counters");
	ctl_telemetry_export("show interfaces", "/vbrd/interfaces", "vbrd interfaces");
	ctl_telemetry_export("show neighbors", "/vbrd/neighbors", "vbrd neighbor table");
	ctl_telemetry_export("show mempool", "/vbrd/mempool", "vbrd packet mempool use");

	for (unsigned i = 0; i < nbw; i++)
		rte_eal_remote_launch(worker_main, &dp.workers[i], dp.workers[i].lcore);

	printf("vbrd: running: %d ports, %d interfaces, %u workers, control socket %s\n",
	       app.nb_ports, st->nb_ifaces, nbw, app.socket);
	fflush(stdout);

	uint64_t last_timer = 0;
	unsigned busy = 0;
	while (!quit) {
		ev_run_once(busy ? 0 : 1);
		busy = control_poll() == 64;
		uint64_t now = control_now_ms();
		if (now - last_timer >= 10) {
			control_timers(now);
			last_timer = now;
		}
	}

	LOG(NOTICE, "stopping");
	/* Bounded whatever the workers and PMDs do (app/watchdog.h). */
	if (watchdog_arm(VBRD_STOP_BOUND_MS) < 0)
		LOG(WARNING, "cannot start the stop watchdog: stopping is not bounded");
	watchdog_phase("waiting for the workers");
	unsigned stop_ms = worker_stop_all();
	if (stop_ms > WORKER_STOP_POKE_MS)
		LOG(NOTICE, "workers returned after %u ms", stop_ms);
	rte_eal_mp_wait_lcore();
	watchdog_phase("closing the control socket and ports");
	ctl_telemetry_fini();
	ctl_fini();
	control_fini();
	for (unsigned i = 0; i < nbw; i++) {
		void *m = NULL;
		while (rte_ring_dequeue(dp.workers[i].inject, &m) == 0)
			rte_pktmbuf_free(m);
	}
	for (int i = 0; i < app.nb_ports; i++)
		port_close(&app.ports[i]);
	fwd_state_free(atomic_exchange(&fwd_current, NULL));
	ev_fini();
	watchdog_phase("in rte_eal_cleanup()");
	rte_eal_cleanup();
	watchdog_disarm();
	return 0;

fail_ports:
	for (int i = 0; i < app.nb_ports; i++)
		port_close(&app.ports[i]);
fail_eal:
	config_free(&cfg);
	rte_eal_cleanup();
	return 1;
}
