/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fpm_load: a route table into vbrd's FPM server as zebra would send it
 * (dplane_fpm_nl, frr/fpm/fpm_parse.h), without FRR, and how fast vbrd
 * takes it (bench-bgp.sh, part 1).
 *
 *     fpm_load --routes ROUTES.conf --ifindex N --gw4 A --gw6 B --ctl SOCKET
 *              [--addr 127.0.0.1] [--port 2620] [--steps add,del,add,replay]
 *              [--replay-skip 10] [--timeout-s 120] [--sorted] [--pid VBRD_PID]
 *
 * ROUTES.conf is what `pcapgen fib --conf` writes (one `{prefix="P/L";...}`
 * a line; the gateways there are not used). Run it in the control
 * namespace (`ip netns exec`), where vbrd listens for zebra. Next hops are
 * two next-hop objects, as zebra sends them (RTM_NEWNEXTHOP, protocol
 * zebra, NLM_F_REPLACE): id 101 = gateway --gw4 on interface --ifindex
 * (the TAP's kernel ifindex, `vbrctl -j show cplane`), id 102 = --gw6 on
 * it; every route names one by RTA_NH_ID, protocol BGP (186), metric 20,
 * table main, NLM_F_REPLACE on IPv4 adds (zebra 8.4's flags).
 *
 * The routes go in the file's order (pcapgen's: random, as BGP updates
 * from a peer reach zebra), or with --sorted by family, address and
 * length (zebra's own table order, as in a replay after a reconnection).
 *
 * Every step's frames are encoded before its clock starts, then written
 * as fast as TCP takes them (blocking writes of 256 KiB). Steps:
 *
 *   add     next-hop objects, then every route (RTM_NEWROUTE); done when
 *           `show fpm` has routes4 + routes6 = the table's
 *   del     every route (RTM_DELROUTE), then the next-hop objects; done
 *           when `show fpm` has no route
 *   replay  a new connection (the old one closed), as zebra after a
 *           restart of vbrd's side: next-hop objects and every route but
 *           each --replay-skip'th; done once vbrd has applied every frame
 *           (its `frames` counter) and then once the stale sweep has run
 *           (`replaying` false) and removed the routes not sent again
 *
 * One line per step on stdout, key=value: routes, frames, bytes, send_ms
 * (first byte to last byte written), wall_ms (first byte to the `show fpm`
 * that showed the step done, polled every 2 ms over the control socket
 * --ctl), apply_ms (vbrd's own apply_us over the step: wall-clock time in
 * its frame loop, a descheduled main thread included), cpu_ms (with --pid
 * VBRD_PID: the CPU time vbrd's main thread used over the step, from
 * /proc, which a busy machine does not inflate), and for replay
 * also swept and sweep_ms (the sweep's wait past fpm.stale_ms included:
 * from the last frame applied to `replaying` false), and vbrd's counters
 * fib_errors, resets, unknown_route over the step.
 *
 * Exit status 0; 1 when a step did not finish in --timeout-s or vbrd
 * reported FIB errors or a reset.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <linux/rtnetlink.h>

#include "frr/fpm/fpm_parse.h"

#define NH_ID4       101u
#define NH_ID6       102u
#define RTPROT_BGP_N 186 /* zebra's rt_netlink.h RTPROT_BGP */
#define RTPROT_ZEB_N 11  /* RTPROT_ZEBRA: zebra's own next-hop objects */
#define BGP_METRIC   20
#define WRITE_CHUNK  (256u << 10)
#define POLL_US      2000

struct pfx {
	uint8_t family, len;
	uint8_t addr[16]; /* IPv4: host order uint32 in the first 4 bytes */
};

static struct {
	const char *routes, *ctl, *addr, *steps;
	uint32_t ifindex;
	struct cfg_addr gw4, gw6;
	uint16_t port;
	uint32_t replay_skip;
	uint32_t timeout_s;
	bool sorted;
	long pid;
} opt = { .addr = "127.0.0.1",
	  .port = 2620,
	  .steps = "add,del,add,replay",
	  .replay_skip = 10,
	  .timeout_s = 120 };

static struct pfx *pfx;
static uint32_t nb_pfx, nb4, nb6;
static int conn = -1;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char *msg)
{
	fprintf(stderr, "fpm_load: %s\n", msg);
	exit(1);
}

/* ---- the table ------------------------------------------------------------- */

static void load_routes(void)
{
	FILE *f = fopen(opt.routes, "r");
	char line[256], a[64];
	uint32_t cap = 1u << 20;
	unsigned len;

	if (f == NULL)
		die("cannot open the routes file");
	pfx = malloc(cap * sizeof(*pfx));
	while (pfx != NULL && fgets(line, sizeof(line), f) != NULL) {
		const char *p = strstr(line, "prefix=\"");
		struct pfx *e;

		if (p == NULL || sscanf(p + 8, "%63[^/]/%u", a, &len) != 2)
			continue;
		if (nb_pfx == cap) {
			cap *= 2;
			pfx = realloc(pfx, cap * sizeof(*pfx));
			if (pfx == NULL)
				break;
		}
		e = &pfx[nb_pfx];
		memset(e, 0, sizeof(*e));
		e->len = (uint8_t)len;
		if (strchr(a, ':') != NULL) {
			if (inet_pton(AF_INET6, a, e->addr) != 1)
				die("a bad IPv6 prefix in the routes file");
			e->family = AF_INET6;
			nb6++;
		} else {
			struct in_addr in;
			uint32_t h;
			if (inet_pton(AF_INET, a, &in) != 1)
				die("a bad IPv4 prefix in the routes file");
			h = ntohl(in.s_addr);
			memcpy(e->addr, &h, 4);
			e->family = AF_INET;
			nb4++;
		}
		nb_pfx++;
	}
	fclose(f);
	if (pfx == NULL)
		die("out of memory");
	if (nb_pfx == 0)
		die("no route in the routes file");
}

static int pfx_cmp(const void *a, const void *b)
{
	const struct pfx *x = a, *y = b;
	uint32_t u, v;
	int c;

	if (x->family != y->family)
		return x->family == AF_INET ? -1 : 1;
	if (x->family == AF_INET) {
		memcpy(&u, x->addr, 4);
		memcpy(&v, y->addr, 4);
		c = u < v ? -1 : u > v;
	} else {
		c = memcmp(x->addr, y->addr, 16);
	}
	return c != 0 ? c : x->len - y->len;
}

/* ---- frames ------------------------------------------------------------------ */

struct out {
	uint8_t *buf;
	size_t len, cap;
	uint32_t frames;
};

static void put(struct out *o, const struct fpm_msg *m)
{
	long n;

	if (o->cap - o->len < FPM_FRAME_MAX) {
		o->cap = o->cap ? 2 * o->cap : (64u << 20);
		o->buf = realloc(o->buf, o->cap);
		if (o->buf == NULL)
			die("out of memory");
	}
	n = fpm_frame_encode(m, 1, o->buf + o->len, o->cap - o->len);
	if (n < 0)
		die("fpm_frame_encode failed");
	o->len += (size_t)n;
	o->frames++;
}

static void put_nexthops(struct out *o, bool add)
{
	static struct fpm_msg m;

	memset(&m, 0, sizeof(m));
	m.kind = add ? FPM_NH_ADD : FPM_NH_DEL;
	m.nh.protocol = RTPROT_ZEB_N;
	m.nh.replace = add;
	m.nh.ifindex = opt.ifindex;
	m.nh.id = NH_ID4;
	m.nh.family = add ? AF_INET : AF_UNSPEC;
	m.nh.gw = opt.gw4;
	put(o, &m);
	if (nb6 > 0) {
		m.nh.id = NH_ID6;
		m.nh.family = add ? AF_INET6 : AF_UNSPEC;
		m.nh.gw = opt.gw6;
		put(o, &m);
	}
}

/* Every route (@p skip: but each skip'th), as adds or deletes. */
static uint32_t put_routes(struct out *o, bool add, uint32_t skip)
{
	static struct fpm_msg m;
	uint32_t n = 0;

	memset(&m, 0, sizeof(m));
	m.kind = add ? FPM_ROUTE_ADD : FPM_ROUTE_DEL;
	m.route.table = RT_TABLE_MAIN;
	m.route.metric = BGP_METRIC;
	m.route.protocol = RTPROT_BGP_N;
	m.route.type = RTN_UNICAST;
	for (uint32_t i = 0; i < nb_pfx; i++) {
		const struct pfx *e = &pfx[i];
		if (skip != 0 && i % skip == skip - 1)
			continue;
		m.route.dst.addr.family = e->family;
		if (e->family == AF_INET)
			memcpy(&m.route.dst.addr.v4, e->addr, 4);
		else
			memcpy(m.route.dst.addr.v6, e->addr, 16);
		m.route.dst.len = e->len;
		m.route.nh_id = add ? (e->family == AF_INET ? NH_ID4 : NH_ID6) : 0;
		m.route.replace = add && e->family == AF_INET;
		put(o, &m);
		n++;
	}
	return n;
}

/* ---- vbrd ------------------------------------------------------------------------ */

static void fpm_connect(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(opt.port) };
	int one = 1, sndbuf = 4 << 20;

	if (conn >= 0)
		close(conn);
	if (inet_pton(AF_INET, opt.addr, &sa.sin_addr) != 1)
		die("--addr is not an IPv4 address");
	conn = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (conn < 0)
		die("socket failed");
	setsockopt(conn, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(conn, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("fpm_load: connect");
		exit(1);
	}
}

static void send_all(const struct out *o)
{
	size_t off = 0;

	while (off < o->len) {
		size_t n = o->len - off < WRITE_CHUNK ? o->len - off : WRITE_CHUNK;
		ssize_t w = write(conn, o->buf + off, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			perror("fpm_load: write");
			exit(1);
		}
		off += (size_t)w;
	}
}

/* `show fpm` over the control socket (core/ctl.h), one connection a request. */
static json_t *show_fpm(void)
{
	static char buf[1 << 16];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char req[] = "{\"argv\": [\"show\", \"fpm\"]}\n";
	size_t got = 0;
	json_t *r, *data;
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", opt.ctl);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)(sizeof(req) - 1))
		die("cannot reach vbrd's control socket");
	while (got < sizeof(buf) - 1) {
		ssize_t n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (buf[got - 1] == '\n')
			break;
	}
	close(fd);
	buf[got] = '\0';
	r = json_loads(buf, 0, NULL);
	data = r ? json_object_get(r, "data") : NULL;
	if (data == NULL)
		die("show fpm: no answer");
	json_incref(data);
	json_decref(r);
	return data;
}

static long long jint(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/* CPU time of vbrd's main thread (its tid is the pid), ms; 0 without --pid. */
static double main_cpu_ms(void)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;

	if (opt.pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stat", opt.pid, opt.pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* after "(comm)": state is field 3, utime 14, stime 15 */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) * 1e3 / (double)sysconf(_SC_CLK_TCK);
}

struct snap {
	double cpu_ms;
	long long routes, frames, apply_us, fib_errors, resets, unknown_route, swept;
	bool replaying;
};

static struct snap snap(void)
{
	json_t *o = show_fpm();
	struct snap s = {
		.routes = jint(o, "routes4") + jint(o, "routes6"),
		.frames = jint(o, "frames"),
		.apply_us = jint(o, "apply_us"),
		.fib_errors = jint(o, "fib_errors"),
		.resets = jint(o, "resets"),
		.unknown_route = jint(o, "unknown_route"),
		.swept = jint(o, "swept_routes"),
		.replaying = json_is_true(json_object_get(o, "replaying")),
		.cpu_ms = main_cpu_ms(),
	};

	json_decref(o);
	return s;
}

enum until { ROUTES_EQ, FRAMES_GE, NOT_REPLAYING };

/* Poll `show fpm` until the condition holds; its time (ms) and that snapshot. */
static bool wait_for(enum until u, long long v, double t0, struct snap *s, double *t)
{
	for (;;) {
		*s = snap();
		*t = now_ms();
		if ((u == ROUTES_EQ && s->routes == v) || (u == FRAMES_GE && s->frames >= v) ||
		    (u == NOT_REPLAYING && !s->replaying))
			return true;
		if (*t - t0 > opt.timeout_s * 1e3)
			return false;
		usleep(POLL_US);
	}
}

static int bad;

static void report(const char *step, uint32_t routes, const struct out *o, double t0, double t_sent,
		   double t_done, const struct snap *a, const struct snap *b, bool ok)
{
	double wall = t_done - t0, apply = (double)(b->apply_us - a->apply_us) / 1e3;
	double cpu = b->cpu_ms - a->cpu_ms;

	printf("step=%s routes=%u frames=%u bytes=%zu send_ms=%.1f wall_ms=%.1f apply_ms=%.1f "
	       "wall_rate=%.0f apply_rate=%.0f cpu_ms=%.0f cpu_rate=%.0f fib_errors=%lld "
	       "resets=%lld unknown_route=%lld done=%s",
	       step, routes, o->frames, o->len, t_sent - t0, wall, apply,
	       wall > 0 ? routes / wall * 1e3 : 0, apply > 0 ? routes / apply * 1e3 : 0, cpu,
	       cpu > 0 ? routes / cpu * 1e3 : 0, b->fib_errors - a->fib_errors,
	       b->resets - a->resets, b->unknown_route - a->unknown_route, ok ? "yes" : "TIMEOUT");
	if (!ok || b->fib_errors != a->fib_errors || b->resets != a->resets)
		bad = 1;
}

static void step_add(void)
{
	struct out o = { 0 };
	struct snap a, b;
	double t0, t_sent, t_done;
	uint32_t n;

	put_nexthops(&o, true);
	n = put_routes(&o, true, 0);
	if (conn < 0)
		fpm_connect();
	a = snap();
	t0 = now_ms();
	send_all(&o);
	t_sent = now_ms();
	bool ok = wait_for(ROUTES_EQ, nb_pfx, t0, &b, &t_done);
	report("add", n, &o, t0, t_sent, t_done, &a, &b, ok);
	printf("\n");
	fflush(stdout);
	free(o.buf);
}

static void step_del(void)
{
	struct out o = { 0 };
	struct snap a, b;
	double t0, t_sent, t_done;
	uint32_t n;

	n = put_routes(&o, false, 0);
	put_nexthops(&o, false);
	if (conn < 0)
		fpm_connect();
	a = snap();
	t0 = now_ms();
	send_all(&o);
	t_sent = now_ms();
	bool ok = wait_for(ROUTES_EQ, 0, t0, &b, &t_done);
	report("del", n, &o, t0, t_sent, t_done, &a, &b, ok);
	printf("\n");
	fflush(stdout);
	free(o.buf);
}

static void step_replay(void)
{
	struct out o = { 0 };
	struct snap a, b, c = { 0 };
	double t0, t_sent, t_done, t_swept = 0;
	uint32_t n;

	put_nexthops(&o, true);
	n = put_routes(&o, true, opt.replay_skip);
	a = snap();
	fpm_connect(); /* vbrd drops the old connection, starts connection gen+1 */
	t0 = now_ms();
	send_all(&o);
	t_sent = now_ms();
	bool ok = wait_for(FRAMES_GE, a.frames + o.frames, t0, &b, &t_done);
	report("replay", n, &o, t0, t_sent, t_done, &a, &b, ok);
	ok = ok && wait_for(NOT_REPLAYING, 0, t_done, &c, &t_swept);
	printf(" swept=%lld sweep_ms=%.1f held=%lld sweep_done=%s\n", c.swept - a.swept,
	       t_swept - t_done, c.routes, ok ? "yes" : "TIMEOUT");
	if (!ok || c.routes != n)
		bad = 1;
	fflush(stdout);
	free(o.buf);
}

static bool parse_gw(const char *s, int family, struct cfg_addr *a)
{
	struct in_addr in;

	memset(a, 0, sizeof(*a));
	a->family = family;
	if (family == AF_INET6)
		return inet_pton(AF_INET6, s, a->v6) == 1;
	if (inet_pton(AF_INET, s, &in) != 1)
		return false;
	a->v4 = ntohl(in.s_addr);
	return true;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "routes", required_argument, NULL, 'r' },
		{ "ifindex", required_argument, NULL, 'i' },
		{ "gw4", required_argument, NULL, '4' },
		{ "gw6", required_argument, NULL, '6' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "steps", required_argument, NULL, 's' },
		{ "replay-skip", required_argument, NULL, 'k' },
		{ "timeout-s", required_argument, NULL, 't' },
		{ "sorted", no_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	bool have4 = false, have6 = false;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			opt.routes = optarg;
			break;
		case 'i':
			opt.ifindex = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case '4':
			have4 = parse_gw(optarg, AF_INET, &opt.gw4);
			break;
		case '6':
			have6 = parse_gw(optarg, AF_INET6, &opt.gw6);
			break;
		case 'c':
			opt.ctl = optarg;
			break;
		case 'a':
			opt.addr = optarg;
			break;
		case 'p':
			opt.port = (uint16_t)strtoul(optarg, NULL, 10);
			break;
		case 's':
			opt.steps = optarg;
			break;
		case 'k':
			opt.replay_skip = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 't':
			opt.timeout_s = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'o':
			opt.sorted = true;
			break;
		case 'P':
			opt.pid = strtol(optarg, NULL, 10);
			break;
		default:
			return 2;
		}
	}
	if (opt.routes == NULL || opt.ctl == NULL || opt.ifindex == 0 || !have4 || !have6 ||
	    opt.replay_skip == 1) {
		fprintf(stderr, "usage: fpm_load --routes FILE --ifindex N --gw4 A --gw6 B "
				"--ctl SOCKET [--addr A] [--port P] [--steps add,del,add,replay] "
				"[--replay-skip K (>= 2; 0: none)] [--timeout-s S] [--sorted] "
				"[--pid VBRD_PID]\n");
		return 2;
	}
	load_routes();
	if (opt.sorted)
		qsort(pfx, nb_pfx, sizeof(*pfx), pfx_cmp);
	fprintf(stderr, "fpm_load: %u IPv4 and %u IPv6 routes from %s\n", nb4, nb6, opt.routes);
	char *steps = strdup(opt.steps), *save = NULL;
	for (char *s = strtok_r(steps, ",", &save); s != NULL; s = strtok_r(NULL, ",", &save)) {
		if (strcmp(s, "add") == 0)
			step_add();
		else if (strcmp(s, "del") == 0)
			step_del();
		else if (strcmp(s, "replay") == 0)
			step_replay();
		else
			die("unknown step (add, del, replay)");
	}
	free(steps);
	free(pfx);
	if (conn >= 0)
		close(conn);
	return bad;
}
