/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * impair: a userspace link impairment between two Linux interfaces, for the
 * integration tests (the test kernel has no netem and loads no modules).
 *
 *   ns-A ==veth== [ impair: A <-> B ] ==veth== ns-B
 *
 * Frames are read from one interface with an AF_PACKET raw socket, given a
 * fate (lost, or a release time from shaping, delay and jitter), held in a
 * per-direction queue and written to the other interface when their time
 * comes. One thread: ppoll() sleeps until a frame arrives, a control
 * request arrives or the earliest queued frame is due (CLOCK_MONOTONIC).
 *
 * Model, per direction, applied to each frame in arrival order:
 *   1. loss:  dropped with probability LOSS/100          (dropped_loss)
 *   2. limit: dropped if LIMIT frames are already queued (dropped_queue);
 *             like netem, frames being delayed count too
 *   3. rate:  a link of RATE Mbit/s serialises the frame after the previous
 *             one (a token bucket one frame deep; Ethernet header included)
 *   4. delay: DELAY ms plus a uniform jitter in [-JITTER, +JITTER] ms
 *   5. order: unless reorder is on, a frame is never released before the
 *             one that arrived ahead of it (release times are non-decreasing)
 *
 * Usage: see usage() below and tests/tools/README.md.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define FRAME_MAX    (65536 + 4) /* bytes: largest frame, plus a re-inserted VLAN tag */
#define VNET_LEN     ((uint32_t)sizeof(struct virtio_net_hdr))
#define RX_BURST     256       /* frames read from one socket per wakeup */
#define LIMIT_MAX    1000000u  /* frames: upper bound of --limit */
#define CTL_CLIENTS  8         /* simultaneous control connections */
#define CTL_LINE_MAX 512       /* bytes: longest control request */
#define SOCK_BUF     (4 << 20) /* bytes: SO_RCVBUF / SO_SNDBUF asked for */

enum { A2B, B2A, NDIR };
static const char *const dir_name[NDIR] = { "a2b", "b2a" };

/** Settings of one direction. */
struct dir_cfg {
	double delay_ms;  /* fixed one-way delay, ms */
	double jitter_ms; /* uniform +/- around the delay, ms */
	double loss_pct;  /* random loss, percent */
	double rate_mbit; /* shaping rate, Mbit/s; 0 = unlimited */
	uint32_t limit;   /* frames queued at most */
};

/** A held frame: virtio-net header then the Ethernet frame. */
struct frame {
	uint32_t len; /* bytes of data[], header included */
	uint8_t data[];
};

/** Heap entry, ordered by (release time, arrival sequence). */
struct slot {
	uint64_t t_ns;
	uint64_t seq;
	struct frame *f;
};

struct dir_stats {
	uint64_t rx, rx_bytes, tx, tx_bytes;
	uint64_t dropped_loss, dropped_queue, tx_errors;
};

struct direction {
	struct dir_cfg cfg;
	int out;           /* port the direction transmits on */
	struct slot *heap; /* min-heap of queued frames */
	uint32_t n, cap;
	uint64_t seq;             /* arrivals so far */
	uint64_t link_free_ns;    /* when the shaper finishes its last frame */
	uint64_t last_release_ns; /* release time of the last frame queued */
	struct dir_stats st;
};

struct port {
	const char *name;
	int fd;
	uint64_t kernel_drops; /* frames the socket's buffer dropped */
};

struct ctl_client {
	int fd;
	size_t len;
	char buf[CTL_LINE_MAX];
};

static struct {
	struct port port[2]; /* 0 = A, 1 = B */
	struct direction dir[NDIR];
	bool reorder;
	uint64_t seed;
	uint64_t rng;
	int ctl_fd;
	const char *ctl_path;
	struct ctl_client client[CTL_CLIENTS];
	int sig_fd;
} g = { .ctl_fd = -1, .sig_fd = -1 };

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("impair: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: small, seedable, good enough for loss and jitter draws. */
static uint64_t rng_next(void)
{
	uint64_t z = (g.rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double rng_unit(void)
{
	return (double)(rng_next() >> 11) * 0x1.0p-53;
}

/* --- settings ---------------------------------------------------------- */

/**
 * Apply one setting, from the command line or the control socket.
 *
 * @param key    delay, jitter, loss, rate or limit, optionally with the
 *               suffix -a2b or -b2a (default: both directions); or reorder
 * @param value  delay/jitter in ms, loss in percent, rate in Mbit/s
 *               (0 = unlimited), limit in frames; reorder takes on/off/1/0
 * @param err    receives a message on failure
 * @return       0, or -EINVAL (unknown key or value out of range)
 */
static int apply_setting(const char *key, const char *value, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		double min, max;
	} keys[] = {
		{ "delay", 0, 600000 }, { "jitter", 0, 600000 },   { "loss", 0, 100 },
		{ "rate", 0, 1000000 }, { "limit", 1, LIMIT_MAX },
	};
	char base[32];
	const char *dash;
	int first = 0, last = NDIR - 1;
	char *end;
	double v;
	size_t k;

	if (strcmp(key, "reorder") == 0) {
		if (!strcmp(value, "on") || !strcmp(value, "1"))
			g.reorder = true;
		else if (!strcmp(value, "off") || !strcmp(value, "0"))
			g.reorder = false;
		else
			goto bad_value;
		return 0;
	}
	dash = strchr(key, '-');
	if (dash) {
		if (!strcmp(dash + 1, "a2b"))
			first = last = A2B;
		else if (!strcmp(dash + 1, "b2a"))
			first = last = B2A;
		else
			goto bad_key;
	}
	k = dash ? (size_t)(dash - key) : strlen(key);
	if (k >= sizeof(base))
		goto bad_key;
	memcpy(base, key, k);
	base[k] = '\0';
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (!strcmp(base, keys[k].name))
			break;
	if (k == sizeof(keys) / sizeof(keys[0]))
		goto bad_key;
	errno = 0;
	v = strtod(value, &end);
	if (errno || end == value || *end != '\0' || !(v >= keys[k].min && v <= keys[k].max)) {
		snprintf(err, errlen, "%s: '%s' is not a number in [%g, %g]", key, value,
			 keys[k].min, keys[k].max);
		return -EINVAL;
	}
	for (int d = first; d <= last; d++) {
		struct dir_cfg *c = &g.dir[d].cfg;

		switch (k) {
		case 0:
			c->delay_ms = v;
			break;
		case 1:
			c->jitter_ms = v;
			break;
		case 2:
			c->loss_pct = v;
			break;
		case 3:
			c->rate_mbit = v;
			break;
		case 4:
			c->limit = (uint32_t)v;
			break;
		}
	}
	return 0;
bad_key:
	snprintf(err, errlen, "unknown setting '%s'", key);
	return -EINVAL;
bad_value:
	snprintf(err, errlen, "%s: want on or off, got '%s'", key, value);
	return -EINVAL;
}

static void transmit(struct direction *d, struct frame *f);

/* --- queue (min-heap keyed by release time, then arrival) -------------- */

static bool slot_before(const struct slot *x, const struct slot *y)
{
	return x->t_ns < y->t_ns || (x->t_ns == y->t_ns && x->seq < y->seq);
}

static int heap_push(struct direction *d, struct slot s)
{
	uint32_t i;

	if (d->n == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 64;
		struct slot *h;

		if (cap > LIMIT_MAX)
			cap = LIMIT_MAX;
		if (cap <= d->n)
			return -ENOSPC;
		h = realloc(d->heap, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		d->heap = h;
		d->cap = cap;
	}
	i = d->n++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!slot_before(&s, &d->heap[p]))
			break;
		d->heap[i] = d->heap[p];
		i = p;
	}
	d->heap[i] = s;
	return 0;
}

static struct slot heap_pop(struct direction *d)
{
	struct slot top = d->heap[0], last = d->heap[--d->n];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= d->n)
			break;
		if (c + 1 < d->n && slot_before(&d->heap[c + 1], &d->heap[c]))
			c++;
		if (!slot_before(&d->heap[c], &last))
			break;
		d->heap[i] = d->heap[c];
		i = c;
	}
	if (d->n > 0)
		d->heap[i] = last;
	return top;
}

/*
 * Decide the fate of a frame that arrived at NOW: drop it (loss, full
 * queue) or queue it with its release time. Takes ownership of F.
 */
static void enqueue(struct direction *d, struct frame *f, uint64_t now)
{
	const struct dir_cfg *c = &d->cfg;
	uint32_t wire = f->len - VNET_LEN; /* bytes on the wire, Ethernet header included */
	uint64_t t = now;
	double ns;

	d->st.rx++;
	d->st.rx_bytes += wire;
	if (c->loss_pct > 0 && rng_unit() * 100.0 < c->loss_pct) {
		d->st.dropped_loss++;
		goto drop;
	}
	if (d->n >= c->limit) {
		d->st.dropped_queue++;
		goto drop;
	}
	if (c->rate_mbit > 0) {
		/* bits / (Mbit/s) = µs; x 1000 = ns */
		uint64_t start = d->link_free_ns > now ? d->link_free_ns : now;

		d->link_free_ns = start + (uint64_t)((double)wire * 8.0 * 1000.0 / c->rate_mbit);
		t = d->link_free_ns;
	}
	ns = c->delay_ms * 1e6;
	if (c->jitter_ms > 0)
		ns += (rng_unit() * 2.0 - 1.0) * c->jitter_ms * 1e6;
	if (ns > 0)
		t += (uint64_t)ns;
	if (!g.reorder && t < d->last_release_ns)
		t = d->last_release_ns;
	d->last_release_ns = t;
	if (t <= now && d->n == 0) {
		/* Due now and nothing ahead of it: no need to queue. */
		d->seq++;
		transmit(d, f);
		return;
	}
	if (heap_push(d, (struct slot){ .t_ns = t, .seq = d->seq++, .f = f }) < 0) {
		d->st.dropped_queue++;
		goto drop;
	}
	return;
drop:
	free(f);
}

/* --- frames in and out -------------------------------------------------- */

static int port_open(struct port *p)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC };
	int one = 1, buf = SOCK_BUF;
	unsigned int idx = if_nametoindex(p->name);
	int fd;

	if (idx == 0)
		die("interface '%s': %s", p->name, strerror(errno));
	/* Protocol 0: receive nothing until bound to the interface below. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket(AF_PACKET): %s (needs root or CAP_NET_RAW)", strerror(errno));
	/* Own transmissions on this interface are not input. */
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0)
		die("%s: PACKET_IGNORE_OUTGOING: %s", p->name, strerror(errno));
	/* VLAN tags the kernel took out of the frame come back as auxdata. */
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) < 0)
		die("%s: PACKET_AUXDATA: %s", p->name, strerror(errno));
	/*
	 * A virtio-net header carries checksum-offload state (and GSO, should
	 * it be on) from the receiving socket to the sending one, so a frame
	 * whose checksum was left to offload still leaves with a good one.
	 */
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0)
		die("%s: PACKET_VNET_HDR: %s", p->name, strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf));
	sll.sll_ifindex = (int)idx;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		die("%s: bind: %s", p->name, strerror(errno));
	mr.mr_ifindex = (int)idx;
	if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0)
		die("%s: promiscuous mode: %s", p->name, strerror(errno));
	p->fd = fd;
	return 0;
}

/* Read every frame waiting on port IN (up to RX_BURST) into direction D. */
static void port_rx(int in, struct direction *d)
{
	static uint8_t buf[VNET_LEN + FRAME_MAX];

	for (int i = 0; i < RX_BURST; i++) {
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
		} cm;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) - 4 };
		struct msghdr msg = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = &cm,
			.msg_controllen = sizeof(cm),
		};
		struct virtio_net_hdr *vh = (struct virtio_net_hdr *)buf;
		struct cmsghdr *c;
		struct frame *f;
		ssize_t n = recvmsg(g.port[in].fd, &msg, MSG_TRUNC);

		if (n < 0)
			return; /* EAGAIN: drained */
		if ((size_t)n > iov.iov_len || n < (ssize_t)(VNET_LEN + ETH_HLEN))
			continue; /* truncated or runt */
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			struct tpacket_auxdata aux;
			uint16_t tag[2];

			if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA)
				continue;
			memcpy(&aux, CMSG_DATA(c), sizeof(aux));
			if (!(aux.tp_status & TP_STATUS_VLAN_VALID))
				continue;
			/* Put the 802.1Q tag back after the MAC addresses. */
			tag[0] = htons((aux.tp_status & TP_STATUS_VLAN_TPID_VALID)
					       ? aux.tp_vlan_tpid
					       : ETH_P_8021Q);
			tag[1] = htons(aux.tp_vlan_tci);
			memmove(buf + VNET_LEN + 2 * ETH_ALEN + 4, buf + VNET_LEN + 2 * ETH_ALEN,
				(size_t)n - VNET_LEN - 2 * ETH_ALEN);
			memcpy(buf + VNET_LEN + 2 * ETH_ALEN, tag, 4);
			n += 4;
			if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
				vh->csum_start += 4;
			if (vh->hdr_len)
				vh->hdr_len += 4;
		}
		/* Only the checksum request travels; DATA_VALID is receive-only. */
		vh->flags &= VIRTIO_NET_HDR_F_NEEDS_CSUM;
		f = malloc(sizeof(*f) + (size_t)n);
		if (!f) {
			d->st.rx++;
			d->st.dropped_queue++;
			continue;
		}
		f->len = (uint32_t)n;
		memcpy(f->data, buf, (size_t)n);
		enqueue(d, f, now_ns());
	}
}

/* Send every frame of D that is due at NOW. */
static void release_due(struct direction *d, uint64_t now)
{
	while (d->n > 0 && d->heap[0].t_ns <= now)
		transmit(d, heap_pop(d).f);
}

static void transmit(struct direction *d, struct frame *f)
{
	if (send(g.port[d->out].fd, f->data, f->len, MSG_DONTWAIT) < 0) {
		d->st.tx_errors++;
	} else {
		d->st.tx++;
		d->st.tx_bytes += f->len - VNET_LEN;
	}
	free(f);
}

static void update_kernel_drops(void)
{
	for (int i = 0; i < 2; i++) {
		struct tpacket_stats ts;
		socklen_t l = sizeof(ts);

		/* Reading the statistics resets them: accumulate. */
		if (getsockopt(g.port[i].fd, SOL_PACKET, PACKET_STATISTICS, &ts, &l) == 0)
			g.port[i].kernel_drops += ts.tp_drops;
	}
}

/* --- reports ------------------------------------------------------------ */

static int stats_json(char *out, size_t len)
{
	int n;

	update_kernel_drops();
	n = snprintf(out, len, "{");
	for (int i = 0; i < NDIR; i++) {
		const struct direction *d = &g.dir[i];

		n += snprintf(out + n, len - (size_t)n,
			      "\"%s\":{\"rx\":%" PRIu64 ",\"tx\":%" PRIu64
			      ",\"dropped_loss\":%" PRIu64 ",\"dropped_queue\":%" PRIu64
			      ",\"tx_errors\":%" PRIu64 ",\"rx_bytes\":%" PRIu64
			      ",\"tx_bytes\":%" PRIu64 ",\"queued\":%u"
			      ",\"rx_kernel_drops\":%" PRIu64 "},",
			      dir_name[i], d->st.rx, d->st.tx, d->st.dropped_loss,
			      d->st.dropped_queue, d->st.tx_errors, d->st.rx_bytes, d->st.tx_bytes,
			      d->n, g.port[i].kernel_drops);
	}
	out[n - 1] = '}';
	return n;
}

static int settings_json(char *out, size_t len)
{
	int n = snprintf(out, len, "{");

	for (int i = 0; i < NDIR; i++) {
		const struct dir_cfg *c = &g.dir[i].cfg;

		n += snprintf(out + n, len - (size_t)n,
			      "\"%s\":{\"delay_ms\":%g,\"jitter_ms\":%g,\"loss_pct\":%g,"
			      "\"rate_mbit\":%g,\"limit\":%u},",
			      dir_name[i], c->delay_ms, c->jitter_ms, c->loss_pct, c->rate_mbit,
			      c->limit);
	}
	n += snprintf(out + n, len - (size_t)n, "\"reorder\":%s,\"seed\":%" PRIu64 "}",
		      g.reorder ? "true" : "false", g.seed);
	return n;
}

/* --- control socket ----------------------------------------------------- */

/* Answer one request line into REPLY (no newline). */
static void ctl_handle(char *line, char *reply, size_t len)
{
	char *argv[4], *save = NULL, err[160];
	int argc = 0;

	for (char *t = strtok_r(line, " \t\r", &save); t && argc < 4;
	     t = strtok_r(NULL, " \t\r", &save))
		argv[argc++] = t;
	if (argc == 0) {
		snprintf(reply, len, "error: empty request");
	} else if (!strcmp(argv[0], "stats") && argc == 1) {
		stats_json(reply, len);
	} else if (!strcmp(argv[0], "show") && argc == 1) {
		settings_json(reply, len);
	} else if (!strcmp(argv[0], "clear") && argc == 1) {
		update_kernel_drops();
		for (int i = 0; i < NDIR; i++) {
			memset(&g.dir[i].st, 0, sizeof(g.dir[i].st));
			g.port[i].kernel_drops = 0;
		}
		snprintf(reply, len, "ok");
	} else if (!strcmp(argv[0], "set") && argc == 3) {
		if (apply_setting(argv[1], argv[2], err, sizeof(err)) < 0)
			snprintf(reply, len, "error: %s", err);
		else
			snprintf(reply, len, "ok");
	} else {
		snprintf(reply, len, "error: want 'set KEY VALUE', 'show', 'stats' or 'clear'");
	}
}

static void ctl_open(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path))
		die("--ctl %s: path too long", path);
	strcpy(sa.sun_path, path);
	g.ctl_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (g.ctl_fd < 0)
		die("socket(AF_UNIX): %s", strerror(errno));
	unlink(path);
	if (bind(g.ctl_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(g.ctl_fd, 8) < 0)
		die("--ctl %s: %s", path, strerror(errno));
	g.ctl_path = path;
	for (int i = 0; i < CTL_CLIENTS; i++)
		g.client[i].fd = -1;
}

static void ctl_accept(void)
{
	int fd;

	while ((fd = accept4(g.ctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		int i;

		for (i = 0; i < CTL_CLIENTS && g.client[i].fd >= 0; i++)
			;
		if (i == CTL_CLIENTS) {
			close(fd); /* too many: the client sees EOF */
			continue;
		}
		g.client[i].fd = fd;
		g.client[i].len = 0;
	}
}

static void ctl_client_close(struct ctl_client *c)
{
	close(c->fd);
	c->fd = -1;
}

/* Read what client C sent; answer each complete line. */
static void ctl_read(struct ctl_client *c)
{
	char reply[2048];
	ssize_t n = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	char *nl;

	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			ctl_client_close(c);
		return;
	}
	c->len += (size_t)n;
	while ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
		size_t used = (size_t)(nl - c->buf) + 1;
		size_t rl;

		*nl = '\0';
		ctl_handle(c->buf, reply, sizeof(reply) - 1);
		rl = strlen(reply);
		reply[rl++] = '\n';
		/* Replies are short; a client that cannot take one is dropped. */
		if (write(c->fd, reply, rl) != (ssize_t)rl) {
			ctl_client_close(c);
			return;
		}
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
	}
	if (c->len == sizeof(c->buf) - 1) {
		static const char msg[] = "error: request too long\n";

		if (write(c->fd, msg, sizeof(msg) - 1) < 0) {
			/* closing anyway */
		}
		ctl_client_close(c);
	}
}

/*
 * Client mode: `impair ctl PATH WORDS...` sends WORDS as one request line,
 * prints the reply; exit status 1 if the reply is an error.
 */
static int ctl_client_main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char req[CTL_LINE_MAX], reply[4096];
	size_t rl = 0, got = 0;
	ssize_t n;
	int fd;

	if (argc < 4)
		die("usage: impair ctl PATH REQUEST...");
	if (strlen(argv[2]) >= sizeof(sa.sun_path))
		die("%s: path too long", argv[2]);
	strcpy(sa.sun_path, argv[2]);
	for (int i = 3; i < argc; i++) {
		int w = snprintf(req + rl, sizeof(req) - rl, "%s%s", i > 3 ? " " : "", argv[i]);

		if (w < 0 || (size_t)w >= sizeof(req) - rl - 1)
			die("request too long");
		rl += (size_t)w;
	}
	req[rl++] = '\n';
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("%s: %s", argv[2], strerror(errno));
	if (write(fd, req, rl) != (ssize_t)rl)
		die("%s: write: %s", argv[2], strerror(errno));
	/* One request, one reply line. */
	while (got < sizeof(reply) - 1 &&
	       (n = read(fd, reply + got, sizeof(reply) - 1 - got)) > 0) {
		got += (size_t)n;
		if (memchr(reply, '\n', got))
			break;
	}
	close(fd);
	reply[got] = '\0';
	fputs(reply, stdout);
	return (got == 0 || strncmp(reply, "error", 5) == 0) ? 1 : 0;
}

/* --- main --------------------------------------------------------------- */

static void usage(FILE *out)
{
	fputs("usage: impair --a IF --b IF [SETTINGS] [--seed N] [--ctl PATH] [--reorder]\n"
	      "       impair ctl PATH REQUEST...\n"
	      "\n"
	      "Forwards frames between interfaces A and B, impaired. Settings apply to\n"
	      "both directions, or to one with the suffix -a2b or -b2a (--delay-a2b 30):\n"
	      "  --delay MS      one-way delay, ms (float)\n"
	      "  --jitter MS     uniform +/- MS around the delay; no reordering unless --reorder\n"
	      "  --loss PCT      random loss, percent (float)\n"
	      "  --rate MBIT     shape to MBIT Mbit/s (Ethernet frames); 0 = unlimited\n"
	      "  --limit N       frames queued at most per direction (default 1000)\n"
	      "  --seed N        seed of the loss/jitter draws (default: from the clock)\n"
	      "  --ctl PATH      UNIX stream socket; requests, one per line:\n"
	      "                  set KEY VALUE | show | stats | clear\n"
	      "SIGUSR1 prints the counters (JSON) to stderr; SIGTERM/SIGINT print them and exit "
	      "0.\n",
	      out);
}

static void print_stats(const char *tag)
{
	char s[2048];

	stats_json(s, sizeof(s));
	fprintf(stderr, "impair: %s %s\n", tag, s);
}

static void parse_args(int argc, char **argv)
{
	char err[160];

	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i], *val;
		char key[64];
		const char *eq;

		if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (strncmp(opt, "--", 2) != 0)
			die("unexpected argument '%s' (try --help)", opt);
		opt += 2;
		if (!strcmp(opt, "reorder")) {
			g.reorder = true;
			continue;
		}
		eq = strchr(opt, '=');
		if (eq) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - opt), opt);
			val = eq + 1;
		} else {
			if (i + 1 >= argc)
				die("--%s needs a value", opt);
			snprintf(key, sizeof(key), "%s", opt);
			val = argv[++i];
		}
		if (!strcmp(key, "a")) {
			g.port[0].name = val;
		} else if (!strcmp(key, "b")) {
			g.port[1].name = val;
		} else if (!strcmp(key, "ctl")) {
			g.ctl_path = val;
		} else if (!strcmp(key, "seed")) {
			char *end;

			errno = 0;
			g.seed = strtoull(val, &end, 0);
			if (errno || *end || end == val)
				die("--seed: '%s' is not a number", val);
		} else if (apply_setting(key, val, err, sizeof(err)) < 0) {
			die("--%s", err);
		}
	}
	if (!g.port[0].name || !g.port[1].name)
		die("--a IF and --b IF are required (try --help)");
}

int main(int argc, char **argv)
{
	struct pollfd pfd[4 + CTL_CLIENTS];
	sigset_t sigs;
	char s[1024];

	if (argc > 1 && !strcmp(argv[1], "ctl"))
		return ctl_client_main(argc, argv);

	for (int i = 0; i < NDIR; i++)
		g.dir[i].cfg.limit = 1000;
	g.dir[A2B].out = 1;
	g.dir[B2A].out = 0;
	g.seed = now_ns() ^ ((uint64_t)getpid() << 32);
	parse_args(argc, argv);
	g.rng = g.seed;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) < 0)
		die("sigprocmask: %s", strerror(errno));
	g.sig_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (g.sig_fd < 0)
		die("signalfd: %s", strerror(errno));

	port_open(&g.port[0]);
	port_open(&g.port[1]);
	if (g.ctl_path)
		ctl_open(g.ctl_path);
	settings_json(s, sizeof(s));
	fprintf(stderr, "impair: ready a=%s b=%s ctl=%s %s\n", g.port[0].name, g.port[1].name,
		g.ctl_path ? g.ctl_path : "-", s);

	for (;;) {
		uint64_t now = now_ns(), next = UINT64_MAX;
		struct timespec ts, *tmo = NULL;
		int nfds = 0, cbase;

		release_due(&g.dir[A2B], now);
		release_due(&g.dir[B2A], now);
		for (int i = 0; i < NDIR; i++)
			if (g.dir[i].n > 0 && g.dir[i].heap[0].t_ns < next)
				next = g.dir[i].heap[0].t_ns;
		if (next != UINT64_MAX) {
			uint64_t wait = next > now ? next - now : 0;

			ts.tv_sec = (time_t)(wait / 1000000000u);
			ts.tv_nsec = (long)(wait % 1000000000u);
			tmo = &ts;
		}

		pfd[nfds++] = (struct pollfd){ .fd = g.port[0].fd, .events = POLLIN };
		pfd[nfds++] = (struct pollfd){ .fd = g.port[1].fd, .events = POLLIN };
		pfd[nfds++] = (struct pollfd){ .fd = g.sig_fd, .events = POLLIN };
		pfd[nfds++] = (struct pollfd){ .fd = g.ctl_fd, .events = POLLIN };
		cbase = nfds;
		for (int i = 0; i < CTL_CLIENTS; i++)
			pfd[nfds++] = (struct pollfd){ .fd = g.ctl_fd >= 0 ? g.client[i].fd : -1,
						       .events = POLLIN };

		if (ppoll(pfd, (nfds_t)nfds, tmo, NULL) < 0) {
			if (errno == EINTR)
				continue;
			die("ppoll: %s", strerror(errno));
		}
		if (pfd[0].revents & POLLIN)
			port_rx(0, &g.dir[A2B]);
		if (pfd[1].revents & POLLIN)
			port_rx(1, &g.dir[B2A]);
		if (pfd[0].revents & (POLLERR | POLLNVAL) || pfd[1].revents & (POLLERR | POLLNVAL))
			die("an interface went away");
		if (pfd[2].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(g.sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGUSR1) {
					print_stats("stats");
				} else if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
					print_stats("exit");
					if (g.ctl_path)
						unlink(g.ctl_path);
					return 0;
				}
			}
		}
		if (pfd[3].revents & POLLIN)
			ctl_accept();
		for (int i = 0; i < CTL_CLIENTS; i++)
			if (pfd[cbase + i].fd >= 0 && pfd[cbase + i].revents)
				ctl_read(&g.client[i]);
	}
}
