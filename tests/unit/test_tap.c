/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frr/cplane/tap.c against the real kernel: TAPs in a network namespace of
 * the test's own (vbrd-ut-tap-PID), checked with `ip -j` and sockets made
 * inside the namespace. Runs as root; skipped (with the reason) without
 * root or /dev/net/tun. The namespace is removed at the end, also when a
 * check fails; one left by a killed run is removed by the next.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "frr/cplane/tap.h"

#define NS_PREFIX "vbrd-ut-tap-"

static char ns[64];             /* the test's namespace */
static bool ns_made;            /* ... and it exists */
static const char *skip_reason; /* why the kernel tests cannot run here */
static const uint8_t MAC[6] = { 0x02, 0x5e, 0x10, 0x00, 0x00, 0x01 };

/* ---- helpers ---- */

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* The JSON `ip -n NS -j ARGS` prints, or NULL (the command failed). */
__attribute__((format(printf, 1, 2))) static json_t *ipj(const char *fmt, ...)
{
	char args[256], cmd[384];
	static char out[1 << 16];
	size_t n;
	FILE *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "ip -n %s -j %s 2>/dev/null", ns, args);
	p = popen(cmd, "r");
	if (p == NULL)
		return NULL;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	if (pclose(p) != 0 || n == 0)
		return NULL;
	return json_loads(out, 0, NULL);
}

/* The first object of `ip -j -d -s link show dev NAME`, or NULL (no such device). */
static json_t *link_json(const char *name)
{
	json_t *a = ipj("-d -s link show dev %s", name);
	json_t *l;

	if (a == NULL)
		return NULL;
	l = json_incref(json_array_get(a, 0));
	json_decref(a);
	return l;
}

static bool has_flag(json_t *link, const char *flag)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(link, "flags"), i,
			   f) if (strcmp(json_string_value(f), flag) == 0) return true;
	return false;
}

static uint64_t msec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Link events reach the operstate through linkwatch, up to ~1 s later. */
#define WAIT_MS 5000
#define wait_for(cond)                                   \
	({                                               \
		uint64_t _end = msec() + WAIT_MS;        \
		bool _ok;                                \
		while (!(_ok = (cond)) && msec() < _end) \
			usleep(20000);                   \
		_ok;                                     \
	})

static bool link_state_is(const char *name, const char *state, bool lower_up)
{
	json_t *l = link_json(name);
	bool ok = l != NULL &&
		  strcmp(json_string_value(json_object_get(l, "operstate")), state) == 0 &&
		  has_flag(l, "LOWER_UP") == lower_up;

	json_decref(l);
	return ok;
}

static bool link_gone(const char *name)
{
	json_t *l = link_json(name);

	json_decref(l);
	return l == NULL;
}

/* The device's addresses as "ADDR/LEN" strings, sorted, space-separated. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void addrs_of(const char *name, char *out, size_t len)
{
	json_t *a = ipj("addr show dev %s", name), *ai;
	char *v[32], buf[32][64];
	size_t i, n = 0;

	out[0] = '\0';
	if (a == NULL)
		return;
	json_array_foreach(json_object_get(json_array_get(a, 0), "addr_info"), i, ai)
	{
		if (n == 32)
			break;
		snprintf(buf[n], sizeof(buf[n]), "%s/%lld",
			 json_string_value(json_object_get(ai, "local")),
			 json_integer_value(json_object_get(ai, "prefixlen")));
		v[n] = buf[n];
		n++;
	}
	json_decref(a);
	qsort(v, n, sizeof(v[0]), cmp_str);
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", v[i]);
}

static struct cfg_prefix pfx(const char *s)
{
	struct cfg_prefix p;
	char a[64], *slash;

	memset(&p, 0, sizeof(p));
	snprintf(a, sizeof(a), "%s", s);
	slash = strchr(a, '/');
	assert_non_null(slash);
	*slash = '\0';
	p.len = (uint8_t)atoi(slash + 1);
	if (inet_pton(AF_INET, a, &p.addr.v4) == 1) {
		p.addr.family = AF_INET;
		p.addr.v4 = ntohl(p.addr.v4);
	} else {
		assert_int_equal(inet_pton(AF_INET6, a, p.addr.v6), 1);
		p.addr.family = AF_INET6;
	}
	return p;
}

static const char *ll6_str(const uint8_t mac[6], char *buf)
{
	uint8_t a[16];

	cp_tap_link_local6(mac, a);
	inet_ntop(AF_INET6, a, buf, INET6_ADDRSTRLEN);
	return buf;
}

static ino_t netns_inode(void)
{
	struct stat st;

	assert_int_equal(stat("/proc/thread-self/ns/net", &st), 0);
	return st.st_ino;
}

/* Enter the test's namespace on this thread; returns the fd to come back with. */
static int ns_enter(void)
{
	char path[128];
	int back = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(back >= 0 && fd >= 0);
	assert_int_equal(setns(fd, CLONE_NEWNET), 0);
	close(fd);
	return back;
}

static void ns_leave(int back)
{
	assert_int_equal(setns(back, CLONE_NEWNET), 0);
	close(back);
}

/* A socket of the test's namespace. */
static int ns_socket(int domain, int type, int proto)
{
	int back = ns_enter();
	int s = socket(domain, type | SOCK_CLOEXEC, proto);

	ns_leave(back);
	assert_true(s >= 0);
	return s;
}

static struct cp_tap_cfg cfg_of(const char *name)
{
	struct cp_tap_cfg c;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", name);
	snprintf(c.netns, sizeof(c.netns), "%s", ns);
	memcpy(c.mac, MAC, 6);
	c.mtu = 1400;
	c.carrier = true;
	return c;
}

/* The TAPs a test holds: a test that fails leaves none to the next (teardown). */
static struct cp_tap *held[4];

static struct cp_tap *open_ok(const struct cp_tap_cfg *c)
{
	char err[512] = "";
	struct cp_tap *t = NULL;
	int rc = cp_tap_open(c, &t, err, sizeof(err));

	if (rc != 0)
		fail_msg("cp_tap_open: %d %s", rc, err);
	for (unsigned i = 0; i < 4; i++)
		if (held[i] == NULL) {
			held[i] = t;
			return t;
		}
	fail_msg("a test holds more than 4 TAPs");
	return NULL;
}

static void close_tap(struct cp_tap *t)
{
	for (unsigned i = 0; i < 4; i++)
		if (held[i] == t)
			held[i] = NULL;
	cp_tap_close(t);
}

static int close_held(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		cp_tap_close(held[i]);
		held[i] = NULL;
	}
	return 0;
}

static void set_addrs_ok(struct cp_tap *t, const char *const *s, unsigned n)
{
	struct cfg_prefix p[8];
	char err[512] = "";
	int rc;

	assert_true(n <= 8);
	memset(p, 0, sizeof(p));
	for (unsigned i = 0; i < n; i++)
		p[i] = pfx(s[i]);
	rc = cp_tap_set_addrs(t, p, n, err, sizeof(err));
	if (rc != 0)
		fail_msg("cp_tap_set_addrs: %d %s", rc, err);
}

#define need_kernel()                                                \
	do {                                                         \
		if (skip_reason != NULL) {                           \
			print_message("skipped: %s\n", skip_reason); \
			skip();                                      \
		}                                                    \
	} while (0)

/* The next frame from the kernel that @p want accepts, waiting up to 3 s; its length or 0. */
static ssize_t read_frame(struct cp_tap *t, bool (*want)(const uint8_t *, ssize_t, const void *),
			  const void *arg, uint8_t *buf, size_t cap)
{
	uint64_t end = msec() + 3000;

	while (msec() < end) {
		struct pollfd p = { .fd = cp_tap_fd(t), .events = POLLIN };
		ssize_t n;

		poll(&p, 1, 100);
		while ((n = cp_tap_read(t, buf, cap)) > 0)
			if (want(buf, n, arg))
				return n;
		if (n != -EAGAIN)
			fail_msg("cp_tap_read: %zd", n);
	}
	return 0;
}

/* ---- no kernel needed ---- */

static void test_name_rule(void **state)
{
	char n[IFNAMSIZ];

	(void)state;
	assert_int_equal(cp_tap_name(NULL, "line1", n), 0);
	assert_string_equal(n, "vb-line1");
	assert_int_equal(cp_tap_name("", "line1", n), 0);
	assert_string_equal(n, "line1");
	/* 3 + 12 = 15 characters: whole */
	assert_int_equal(cp_tap_name("vb-", "abcdefghijkl", n), 0);
	assert_string_equal(n, "vb-abcdefghijkl");
	/* one more: prefix, 7 characters, '~', 4 hex digits of FNV-1a */
	assert_int_equal(cp_tap_name("vb-", "abcdefghijklm", n), 0);
	assert_int_equal(strlen(n), IFNAMSIZ - 1);
	assert_memory_equal(n, "vb-abcdefg~", 11);
	assert_true(strspn(n + 11, "0123456789abcdef") == 4);
	/* the same name always gives the same TAP name; another, another */
	{
		char m[IFNAMSIZ];

		assert_int_equal(cp_tap_name("vb-", "abcdefghijklm", m), 0);
		assert_string_equal(n, m);
		assert_int_equal(cp_tap_name("vb-", "abcdefghijkln", m), 0);
		assert_string_not_equal(n, m);
	}
	/* a 31-character name and an 8-character prefix still fit */
	assert_int_equal(cp_tap_name("vbrd-abc", "a123456789012345678901234567890", n), 0);
	assert_int_equal(strlen(n), IFNAMSIZ - 1);
	assert_memory_equal(n, "vbrd-abca1~", 11);
	/* bad inputs */
	assert_int_equal(cp_tap_name("vbrd-abcd", "x", n), -EINVAL); /* prefix too long */
	assert_int_equal(cp_tap_name("v/", "x", n), -EINVAL);
	assert_int_equal(cp_tap_name("vb-", "", n), -EINVAL);
	assert_int_equal(cp_tap_name("vb-", "a b", n), -EINVAL);
	assert_int_equal(cp_tap_name("", "..", n), -EINVAL);
	assert_int_equal(cp_tap_name("vb-", "..", n), 0); /* "vb-.." is a valid device name */
}

static void test_name_collision_found(void **state)
{
	static char names[70000][24];
	static int seen[65536];
	char a[IFNAMSIZ], err[256] = "";
	const char *pair[3];
	int i, j = -1;

	(void)state;
	/* Long names with one head differ in the hash alone: find two whose
	 * 16 bits agree (a few hundred names, the birthday bound). */
	memset(seen, -1, sizeof(seen));
	for (i = 0; i < 70000; i++) {
		unsigned h;

		snprintf(names[i], sizeof(names[i]), "transit-line-%d", i);
		assert_int_equal(cp_tap_name(NULL, names[i], a), 0);
		h = (unsigned)strtoul(strchr(a, '~') + 1, NULL, 16);
		if (seen[h] >= 0) {
			j = seen[h];
			break;
		}
		seen[h] = i;
	}
	assert_true(j >= 0);
	pair[0] = "line1";
	pair[1] = names[j];
	pair[2] = names[i];
	assert_int_equal(cp_tap_names_check(NULL, pair, 2, err, sizeof(err)), 0);
	assert_int_equal(cp_tap_names_check(NULL, pair, 3, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, names[i]));
	assert_non_null(strstr(err, names[j]));
	print_message("collision: %s\n", err);
}

static void test_link_local6(void **state)
{
	char s[INET6_ADDRSTRLEN];
	static const uint8_t mac[6] = { 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c };

	(void)state;
	/* RFC 4291 App. A: the universal/local bit inverted, ff:fe in the middle */
	assert_string_equal(ll6_str(mac, s), "fe80::21b:21ff:fe0a:b0c");
	assert_string_equal(ll6_str(MAC, s), "fe80::5e:10ff:fe00:1");
}

/* ---- the kernel ---- */

static void test_open_in_netns(void **state)
{
	struct cp_tap_cfg c;
	struct cp_tap *t;
	json_t *l, *info;
	char mac[18], ll[INET6_ADDRSTRLEN], have[512], want[512];
	uint8_t ll_bin[16];
	struct cfg_prefix got[8];
	ino_t before;
	int n;

	(void)state;
	need_kernel();
	c = cfg_of("vb-ut-open");
	before = netns_inode();
	t = open_ok(&c);
	/* the thread is back in its own namespace */
	assert_true(netns_inode() == before);
	assert_string_equal(cp_tap_ifname(t), "vb-ut-open");
	assert_string_equal(cp_tap_netns(t), ns);

	l = link_json("vb-ut-open");
	assert_non_null(l);
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", MAC[0], MAC[1], MAC[2], MAC[3],
		 MAC[4], MAC[5]);
	assert_string_equal(json_string_value(json_object_get(l, "address")), mac);
	assert_int_equal(json_integer_value(json_object_get(l, "mtu")), 1400);
	assert_int_equal(json_integer_value(json_object_get(l, "ifindex")), cp_tap_ifindex(t));
	assert_true(has_flag(l, "NOARP"));
	assert_true(has_flag(l, "UP"));
	info = json_object_get(json_object_get(l, "linkinfo"), "info_data");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(l, "linkinfo"), "info_kind")),
		"tun");
	assert_string_equal(json_string_value(json_object_get(info, "type")), "tap");
	assert_false(json_is_true(json_object_get(info, "persist")));
	assert_false(json_is_true(json_object_get(info, "pi")));
	json_decref(l);

	/* carrier on: LOWER_UP, and operstate UP (not UNKNOWN: the carrier came on) */
	assert_true(wait_for(link_state_is("vb-ut-open", "UP", true)));
	/* the kernel's link-local is the EUI-64 one vbrd answers for */
	ll6_str(MAC, ll);
	assert_true(
		wait_for((addrs_of("vb-ut-open", have, sizeof(have)), strstr(have, ll) != NULL)));
	snprintf(want, sizeof(want), "%s/64", ll);
	assert_string_equal(have, want);
	n = cp_tap_get_addrs(t, got, 8);
	assert_int_equal(n, 1);
	assert_int_equal(got[0].addr.family, AF_INET6);
	assert_int_equal(got[0].len, 64);
	cp_tap_link_local6(MAC, ll_bin);
	assert_memory_equal(got[0].addr.v6, ll_bin, 16);
	print_message("TAP %s in %s: ifindex %d, link-local %s\n", cp_tap_ifname(t), ns,
		      cp_tap_ifindex(t), have);
	close_tap(t);
	assert_true(wait_for(link_gone("vb-ut-open")));
}

static void test_addrs_reconcile(void **state)
{
	struct cp_tap_cfg c = cfg_of("vb-ut-addr");
	struct cp_tap *t;
	char have[512], want[512], ll[INET6_ADDRSTRLEN], err[256];
	struct cfg_prefix bad;
	json_t *a, *ai;
	size_t i;

	(void)state;
	need_kernel();
	t = open_ok(&c);
	ll6_str(MAC, ll);
	assert_true(
		wait_for((addrs_of("vb-ut-addr", have, sizeof(have)), strstr(have, ll) != NULL)));

	{
		const char *set1[] = { "10.9.0.1/24", "10.9.0.2/24", "2001:db8:9::1/64",
				       "10.9.0.1/24" /* a duplicate, ignored */ };
		set_addrs_ok(t, set1, 4);
	}
	addrs_of("vb-ut-addr", have, sizeof(have));
	snprintf(want, sizeof(want), "10.9.0.1/24 10.9.0.2/24 2001:db8:9::1/64 %s/64", ll);
	assert_string_equal(have, want);
	/* IPv6 without DAD; IPv4 with the subnet's broadcast */
	a = ipj("addr show dev vb-ut-addr");
	assert_non_null(a);
	json_array_foreach(json_object_get(json_array_get(a, 0), "addr_info"), i, ai)
	{
		const char *local = json_string_value(json_object_get(ai, "local"));

		if (strcmp(local, "2001:db8:9::1") == 0)
			assert_true(json_is_true(json_object_get(ai, "nodad")));
		if (strcmp(local, "10.9.0.1") == 0)
			assert_string_equal(json_string_value(json_object_get(ai, "broadcast")),
					    "10.9.0.255");
	}
	json_decref(a);
	/* the connected routes zebra will see */
	a = ipj("route show dev vb-ut-addr 10.9.0.0/24");
	assert_int_equal(json_array_size(a), 1);
	json_decref(a);
	a = ipj("-6 route show dev vb-ut-addr 2001:db8:9::/64");
	assert_int_equal(json_array_size(a), 1);
	json_decref(a);
	/* the same set again changes nothing */
	{
		const char *set1[] = { "10.9.0.1/24", "10.9.0.2/24", "2001:db8:9::1/64" };
		set_addrs_ok(t, set1, 3);
	}
	addrs_of("vb-ut-addr", have, sizeof(have));
	assert_string_equal(have, want);

	/* A reload: the primary 10.9.0.1 goes (its secondary 10.9.0.2 stays),
	 * 2001:db8:9::1 changes prefix length, two more come. */
	{
		const char *set2[] = { "10.9.0.2/24", "10.9.1.1/30", "2001:db8:9::1/56",
				       "2001:db8:a::1/64" };
		set_addrs_ok(t, set2, 4);
	}
	addrs_of("vb-ut-addr", have, sizeof(have));
	snprintf(want, sizeof(want),
		 "10.9.0.2/24 10.9.1.1/30 2001:db8:9::1/56 2001:db8:a::1/64 %s/64", ll);
	assert_string_equal(have, want);

	/* someone else's address goes too */
	assert_int_equal(sh("ip -n %s addr add 192.0.2.7/32 dev vb-ut-addr", ns), 0);
	{
		const char *set3[] = { "10.9.1.1/30" };
		set_addrs_ok(t, set3, 1);
	}
	addrs_of("vb-ut-addr", have, sizeof(have));
	snprintf(want, sizeof(want), "10.9.1.1/30 %s/64", ll);
	assert_string_equal(have, want);

	/* none: the link-local alone stays */
	set_addrs_ok(t, NULL, 0);
	addrs_of("vb-ut-addr", have, sizeof(have));
	snprintf(want, sizeof(want), "%s/64", ll);
	assert_string_equal(have, want);

	/* a link-local address is the kernel's */
	bad = pfx("fe80::1/64");
	assert_int_equal(cp_tap_set_addrs(t, &bad, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "link-local"));
	bad = pfx("10.0.0.1/33");
	assert_int_equal(cp_tap_set_addrs(t, &bad, 1, err, sizeof(err)), -EINVAL);
	close_tap(t);
}

static void test_carrier(void **state)
{
	struct cp_tap_cfg c = cfg_of("vb-ut-carr");
	struct cp_tap *t;
	char err[256];
	uint64_t t0;

	(void)state;
	need_kernel();
	c.carrier = false; /* the line is down at start */
	t = open_ok(&c);
	assert_true(wait_for(link_state_is("vb-ut-carr", "DOWN", false)));
	t0 = msec();
	assert_int_equal(cp_tap_set_carrier(t, true, err, sizeof(err)), 0);
	assert_true(wait_for(link_state_is("vb-ut-carr", "UP", true)));
	print_message("carrier on: operstate UP after %llu ms\n",
		      (unsigned long long)(msec() - t0));
	t0 = msec();
	assert_int_equal(cp_tap_set_carrier(t, false, err, sizeof(err)), 0);
	assert_true(wait_for(link_state_is("vb-ut-carr", "DOWN", false)));
	print_message("carrier off: operstate DOWN after %llu ms\n",
		      (unsigned long long)(msec() - t0));
	/* still administratively up: FRR sees the link, not the interface, go */
	{
		json_t *l = link_json("vb-ut-carr");

		assert_true(has_flag(l, "UP"));
		assert_true(has_flag(l, "NO-CARRIER"));
		json_decref(l);
	}
	assert_int_equal(cp_tap_set_carrier(t, true, err, sizeof(err)), 0);
	assert_true(wait_for(link_state_is("vb-ut-carr", "UP", true)));
	close_tap(t);
}

static void test_mtu(void **state)
{
	struct cp_tap_cfg c = cfg_of("vb-ut-mtu");
	const char *set[] = { "10.9.0.1/24", "2001:db8:9::1/64" };
	char have[512], want[512], ll[INET6_ADDRSTRLEN], err[256];
	struct cp_tap *t;
	json_t *l;

	(void)state;
	need_kernel();
	t = open_ok(&c);
	ll6_str(MAC, ll);
	assert_true(
		wait_for((addrs_of("vb-ut-mtu", have, sizeof(have)), strstr(have, ll) != NULL)));
	set_addrs_ok(t, set, 2);
	assert_int_equal(cp_tap_set_mtu(t, 9000, err, sizeof(err)), 0);
	l = link_json("vb-ut-mtu");
	assert_int_equal(json_integer_value(json_object_get(l, "mtu")), 9000);
	json_decref(l);
	/* below IPv6's minimum (RFC 8200 §5) the kernel turns IPv6 off on the link */
	assert_int_equal(cp_tap_set_mtu(t, 1200, err, sizeof(err)), 0);
	addrs_of("vb-ut-mtu", have, sizeof(have));
	assert_string_equal(have, "10.9.0.1/24");
	/* back above: the EUI-64 link-local again, not the namespace's random one */
	assert_int_equal(cp_tap_set_mtu(t, 1500, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "10.9.0.1/24 %s/64", ll);
	assert_true(wait_for((addrs_of("vb-ut-mtu", have, sizeof(have)), strcmp(have, want) == 0)));
	/* the global IPv6 address went with IPv6: the caller sets the list again */
	set_addrs_ok(t, set, 2);
	addrs_of("vb-ut-mtu", have, sizeof(have));
	snprintf(want, sizeof(want), "10.9.0.1/24 2001:db8:9::1/64 %s/64", ll);
	assert_string_equal(have, want);
	assert_int_equal(cp_tap_set_mtu(t, 65522, err, sizeof(err)), -EINVAL);
	close_tap(t);
}

static uint64_t rx_packets(const char *name)
{
	json_t *l = link_json(name);
	uint64_t n;

	assert_non_null(l);
	n = (uint64_t)json_integer_value(
		json_object_get(json_object_get(json_object_get(l, "stats64"), "rx"), "packets"));
	json_decref(l);
	return n;
}

static void test_write_reaches_kernel(void **state)
{
	struct cp_tap_cfg c = cfg_of("vb-ut-wr");
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	uint8_t frame[64], got[256];
	struct cp_tap *t;
	uint64_t rx0;
	int ps;
	ssize_t n;

	(void)state;
	need_kernel();
	t = open_ok(&c);
	ps = ns_socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
	sll.sll_ifindex = cp_tap_ifindex(t);
	assert_int_equal(bind(ps, (struct sockaddr *)&sll, sizeof(sll)), 0);
	rx0 = rx_packets("vb-ut-wr");

	/* to the TAP's MAC, a local experimental ethertype (IEEE 802 0x88b5), a marker */
	memset(frame, 0, sizeof(frame));
	memcpy(frame, MAC, 6);
	memcpy(frame + 6, "\x02\x00\x00\x00\x00\x09", 6);
	frame[12] = 0x88;
	frame[13] = 0xb5;
	memcpy(frame + 14, "vbrd-ut-tap", 11);
	assert_int_equal(cp_tap_write(t, frame, sizeof(frame)), sizeof(frame));
	for (uint64_t end = msec() + 2000;;) {
		struct pollfd p = { .fd = ps, .events = POLLIN };

		assert_true(msec() < end);
		poll(&p, 1, 100);
		n = recv(ps, got, sizeof(got), 0);
		if (n == (ssize_t)sizeof(frame) && memcmp(got, frame, sizeof(frame)) == 0)
			break;
	}
	assert_true(rx_packets("vb-ut-wr") >= rx0 + 1);
	/* not a frame: shorter than an Ethernet header */
	assert_int_equal(cp_tap_write(t, frame, 10), -EINVAL);
	close(ps);
	close_tap(t);
}

struct want_udp {
	int family;
	uint8_t dst[16];
};

static bool is_udp_to(const uint8_t *f, ssize_t n, const void *arg)
{
	const struct want_udp *w = arg;

	if (w->family == AF_INET)
		return n >= 34 && f[12] == 0x08 && f[13] == 0x00 && f[23] == 17 &&
		       memcmp(f + 30, w->dst, 4) == 0;
	return n >= 54 && f[12] == 0x86 && f[13] == 0xdd && f[20] == 17 &&
	       memcmp(f + 38, w->dst, 16) == 0;
}

/* Send one UDP datagram from the namespace to @p dst; the frame read from the TAP. */
static ssize_t kernel_sends(struct cp_tap *t, const char *dst, uint8_t *buf, size_t cap)
{
	struct want_udp w;
	struct sockaddr_storage ss;
	socklen_t sl;
	int s;

	memset(&w, 0, sizeof(w));
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, dst, w.dst) == 1) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		w.family = AF_INET;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(9);
		memcpy(&sin->sin_addr, w.dst, 4);
		sl = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		assert_int_equal(inet_pton(AF_INET6, dst, w.dst), 1);
		w.family = AF_INET6;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(9);
		memcpy(&sin6->sin6_addr, w.dst, 16);
		sl = sizeof(*sin6);
	}
	s = ns_socket(w.family, SOCK_DGRAM, 0);
	assert_int_equal(sendto(s, "vbrd", 4, 0, (struct sockaddr *)&ss, sl), 4);
	close(s);
	return read_frame(t, is_udp_to, &w, buf, cap);
}

static bool is_echo_to(const uint8_t *f, ssize_t n, const void *arg)
{
	return n >= 35 && f[12] == 0x08 && f[13] == 0x00 && f[23] == 1 && f[34] == 8 &&
	       memcmp(f + 30, arg, 4) == 0;
}

/* `ping -c 1 DST` in the namespace (in the background); the echo request read from the TAP. */
static ssize_t ping_frame(struct cp_tap *t, const char *dst, uint8_t *buf, size_t cap)
{
	uint8_t a[4];

	assert_int_equal(inet_pton(AF_INET, dst, a), 1);
	assert_int_equal(sh("ip netns exec %s ping -c 1 -W 1 -q %s >/dev/null 2>&1 &", ns, dst), 0);
	return read_frame(t, is_echo_to, a, buf, cap);
}

static void test_kernel_frames(void **state)
{
	struct cp_tap_cfg c = cfg_of("vb-ut-rd");
	static const uint8_t NEIGH[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x03 };
	const char *set[] = { "10.9.0.1/24", "2001:db8:9::1/64" };
	uint8_t f[2048];
	struct cp_tap *t;

	(void)state;
	need_kernel();
	t = open_ok(&c);
	set_addrs_ok(t, set, 2);
	/* NOARP: no neighbor resolution; a unicast next hop's MAC is the
	 * device's own (the kernel's arp/ndisc constructors for NOARP). */
	assert_true(kernel_sends(t, "10.9.0.2", f, sizeof(f)) > 0);
	assert_memory_equal(f, MAC, 6);
	assert_memory_equal(f + 6, MAC, 6);
	assert_true(kernel_sends(t, "2001:db8:9::2", f, sizeof(f)) > 0);
	assert_memory_equal(f, MAC, 6);
	assert_memory_equal(f + 6, MAC, 6);
	/* a static neighbor's MAC is used when there is one */
	assert_int_equal(sh("ip -n %s neigh add 10.9.0.3 lladdr 02:00:00:00:00:03 dev vb-ut-rd "
			    "nud permanent && ip -n %s neigh add 2001:db8:9::3 lladdr "
			    "02:00:00:00:00:03 dev vb-ut-rd nud permanent",
			    ns, ns),
			 0);
	assert_true(kernel_sends(t, "10.9.0.3", f, sizeof(f)) > 0);
	assert_memory_equal(f, NEIGH, 6);
	assert_true(kernel_sends(t, "2001:db8:9::3", f, sizeof(f)) > 0);
	assert_memory_equal(f, NEIGH, 6);
	/* ping (ICMP echo) the same way */
	assert_true(ping_frame(t, "10.9.0.2", f, sizeof(f)) > 0);
	assert_memory_equal(f, MAC, 6);
	assert_true(ping_frame(t, "10.9.0.3", f, sizeof(f)) > 0);
	assert_memory_equal(f, NEIGH, 6);
	close_tap(t);
}

static void test_errors(void **state)
{
	struct cp_tap_cfg c = cfg_of("vb-ut-err");
	struct cp_tap *t, *t2;
	char err[512];

	(void)state;
	need_kernel();
	/* no namespace of that name */
	snprintf(c.netns, sizeof(c.netns), "vbrd-ut-no-such-ns");
	assert_int_equal(cp_tap_open(&c, &t, err, sizeof(err)), -ENOENT);
	assert_null(t);
	assert_non_null(strstr(err, "no network namespace 'vbrd-ut-no-such-ns'"));
	print_message("%s\n", err);

	/* the name in use by another TAP we hold */
	c = cfg_of("vb-ut-err");
	t = open_ok(&c);
	assert_int_equal(cp_tap_open(&c, &t2, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "in use"));
	print_message("%s\n", err);
	close_tap(t);
	assert_true(wait_for(link_gone("vb-ut-err")));

	/* a device of that name that is no TAP */
	assert_int_equal(sh("ip -n %s link add vb-ut-err type bridge", ns), 0);
	assert_int_equal(cp_tap_open(&c, &t, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "kind 'bridge'"));
	print_message("%s\n", err);
	assert_int_equal(sh("ip -n %s link del vb-ut-err", ns), 0);

	/* bad settings */
	c.mtu = 40;
	assert_int_equal(cp_tap_open(&c, &t, err, sizeof(err)), -EINVAL);
	c.mtu = 1500;
	c.mac[0] = 0x01; /* multicast */
	assert_int_equal(cp_tap_open(&c, &t, err, sizeof(err)), -EINVAL);
	assert_true(link_gone("vb-ut-err"));
}

static void test_takeover_persistent(void **state)
{
	struct cp_tap_cfg c = cfg_of("vb-ut-old");
	char have[512], want[512], ll[INET6_ADDRSTRLEN];
	struct cp_tap *t;
	json_t *l;

	(void)state;
	need_kernel();
	/* left by someone: persistent, up, another MAC, an address */
	assert_int_equal(sh("ip -n %s tuntap add dev vb-ut-old mode tap && "
			    "ip -n %s link set vb-ut-old address 02:99:00:00:00:01 up && "
			    "ip -n %s addr add 10.99.0.1/24 dev vb-ut-old",
			    ns, ns, ns),
			 0);
	t = open_ok(&c);
	l = link_json("vb-ut-old");
	assert_false(json_is_true(json_object_get(
		json_object_get(json_object_get(l, "linkinfo"), "info_data"), "persist")));
	assert_true(has_flag(l, "NOARP"));
	json_decref(l);
	/* the link-local of the new MAC, the old one gone */
	ll6_str(MAC, ll);
	assert_true(
		wait_for((addrs_of("vb-ut-old", have, sizeof(have)), strstr(have, ll) != NULL)));
	assert_null(strstr(have, "fe80::99:ff:fe00:1"));
	/* its old address stays until the first reconcile */
	assert_non_null(strstr(have, "10.99.0.1/24"));
	set_addrs_ok(t, NULL, 0);
	addrs_of("vb-ut-old", have, sizeof(have));
	snprintf(want, sizeof(want), "%s/64", ll);
	assert_string_equal(have, want);
	/* ours now: gone with our fd */
	close_tap(t);
	assert_true(wait_for(link_gone("vb-ut-old")));
}

static void test_own_namespace(void **state)
{
	struct cp_tap_cfg c = cfg_of("vb-ut-own");
	struct cp_tap *t;
	int back;

	(void)state;
	need_kernel();
	/* netns "": the calling thread's, here the test's namespace entered */
	c.netns[0] = '\0';
	back = ns_enter();
	t = open_ok(&c);
	ns_leave(back);
	assert_string_equal(cp_tap_netns(t), "");
	assert_false(link_gone("vb-ut-own"));
	close_tap(t);
	assert_true(wait_for(link_gone("vb-ut-own")));
}

static void test_crash_leaves_nothing(void **state)
{
	struct cp_tap_cfg c = cfg_of("vb-ut-crash");
	int p[2], status;
	pid_t pid;
	char b;

	(void)state;
	need_kernel();
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct cp_tap *t;
		char err[256];

		close(p[0]);
		if (cp_tap_open(&c, &t, err, sizeof(err)) != 0)
			_exit(1);
		(void)!write(p[1], "y", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &b, 1), 1);
	close(p[0]);
	assert_false(link_gone("vb-ut-crash"));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(wait_for(link_gone("vb-ut-crash")));
}

/* ---- the namespace ---- */

/* Process @p pid is gone, or a zombie its parent has not reaped yet. */
static bool process_dead(long pid)
{
	char path[64], stat[256], *p;
	FILE *f;
	size_t n;

	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return true;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	p = strrchr(stat, ')'); /* "PID (COMM) STATE ..." */
	return p != NULL && p[1] == ' ' && p[2] == 'Z';
}

/* Namespaces of runs that were killed before their teardown. */
static void remove_stale_namespaces(void)
{
	DIR *d = opendir("/run/netns");
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;

		if (strncmp(e->d_name, NS_PREFIX, strlen(NS_PREFIX)) != 0)
			continue;
		pid = strtol(e->d_name + strlen(NS_PREFIX), NULL, 10);
		if (pid > 0 && process_dead(pid))
			sh("ip netns del %s 2>/dev/null", e->d_name);
	}
	closedir(d);
}

static void remove_namespace(void)
{
	if (ns_made)
		sh("ip netns del %s 2>/dev/null", ns);
	ns_made = false;
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(ns, sizeof(ns), NS_PREFIX "%d", (int)getpid());
	if (geteuid() != 0) {
		skip_reason = "not root (TAP devices and namespaces need CAP_NET_ADMIN)";
		return 0;
	}
	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		skip_reason = "no /dev/net/tun (modprobe tun)";
		return 0;
	}
	if (system("ip -V >/dev/null 2>&1") != 0) {
		skip_reason = "no ip command (iproute2)";
		return 0;
	}
	remove_stale_namespaces();
	if (sh("ip netns add %s", ns) != 0) {
		skip_reason = "ip netns add failed";
		return 0;
	}
	ns_made = true;
	atexit(remove_namespace); /* also when a check aborts the program */
	/* Random interface identifiers by default (IN6_ADDR_GEN_MODE_RANDOM):
	 * every TAP's link-local must still be the EUI-64 one vbrd derives. */
	if (sh("ip netns exec %s sysctl -qw net.ipv6.conf.default.addr_gen_mode=3", ns) != 0) {
		skip_reason = "sysctl net.ipv6.conf.default.addr_gen_mode failed";
		return 0;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	remove_namespace();
	return 0;
}

/* ---- VRF devices ---- */

struct vrf_msg {
	const char *ifname, *kind;
	int64_t table;  /* -1: absent */
	int64_t master; /* -1: absent */
	int unknown;    /* attributes of no expected type */
};

static int vrf_data_attr(const struct nlattr *a, void *data)
{
	struct vrf_msg *m = data;

	if (mnl_attr_get_type(a) == IFLA_VRF_TABLE && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		m->table = mnl_attr_get_u32(a);
	else
		m->unknown++;
	return MNL_CB_OK;
}

static int vrf_info_attr(const struct nlattr *a, void *data)
{
	struct vrf_msg *m = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		m->kind = mnl_attr_get_str(a);
	else if (mnl_attr_get_type(a) == IFLA_INFO_DATA &&
		 mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
		mnl_attr_parse_nested(a, vrf_data_attr, m);
	else
		m->unknown++;
	return MNL_CB_OK;
}

static int vrf_link_attr(const struct nlattr *a, void *data)
{
	struct vrf_msg *m = data;

	switch (mnl_attr_get_type(a)) {
	case IFLA_IFNAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			m->ifname = mnl_attr_get_str(a);
		break;
	case IFLA_LINKINFO:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
			mnl_attr_parse_nested(a, vrf_info_attr, m);
		break;
	case IFLA_MASTER:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			m->master = mnl_attr_get_u32(a);
		break;
	default:
		m->unknown++;
	}
	return MNL_CB_OK;
}

static void parse_link_msg(const struct nlmsghdr *nlh, struct vrf_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->table = m->master = -1;
	assert_true(mnl_nlmsg_ok(nlh, (int)nlh->nlmsg_len));
	assert_int_equal(mnl_attr_parse(nlh, sizeof(struct ifinfomsg), vrf_link_attr, m),
			 MNL_CB_OK);
}

static void test_vrf_msg(void **state)
{
	static uint64_t buf[64]; /* 512 bytes, aligned */
	const struct nlmsghdr *nlh;
	const struct ifinfomsg *ifi;
	struct vrf_msg m;

	(void)state;
	/* `ip link add vpc-a up type vrf table 100` */
	nlh = cp_vrf_msg_new(buf, "vpc-a", 100);
	assert_ptr_equal(nlh, buf);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWLINK);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL);
	ifi = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(ifi->ifi_family, AF_UNSPEC);
	assert_int_equal(ifi->ifi_index, 0);
	assert_int_equal(ifi->ifi_flags, IFF_UP);
	assert_int_equal(ifi->ifi_change, IFF_UP);
	parse_link_msg(nlh, &m);
	assert_non_null(m.ifname);
	assert_string_equal(m.ifname, "vpc-a");
	assert_non_null(m.kind);
	assert_string_equal(m.kind, "vrf");
	assert_int_equal(m.table, 100);
	assert_int_equal(m.master, -1);
	assert_int_equal(m.unknown, 0);
	/* the largest table id */
	parse_link_msg(cp_vrf_msg_new(buf, "a23456789012345", 4294967295u), &m);
	assert_string_equal(m.ifname, "a23456789012345");
	assert_int_equal(m.table, 4294967295u);

	/* `ip link set dev (ifindex 7) master (ifindex 12)`, and nomaster */
	nlh = cp_tap_msg_master(buf, 7, 12);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWLINK);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	ifi = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(ifi->ifi_index, 7);
	assert_int_equal(ifi->ifi_change, 0);
	parse_link_msg(nlh, &m);
	assert_int_equal(m.master, 12);
	assert_null(m.ifname);
	assert_null(m.kind);
	assert_int_equal(m.unknown, 0);
	parse_link_msg(cp_tap_msg_master(buf, 7, 0), &m);
	assert_int_equal(m.master, 0);
}

static void test_vrf_names(void **state)
{
	const char *ifs[] = { "line1", "lan-a" };
	const char *vrfs[] = { "vpc-a", "vpc-b" };
	const char *clash_tap[] = { "vpc-a", "vb-line1" };
	const char *long_vrfs[] = { "tenant-blue-east", "tenant-blue-west" };
	char n[IFNAMSIZ], err[256] = "";

	(void)state;
	/* the VRF's own name, whole up to 15 characters (FRR's VRF name) */
	assert_int_equal(cp_vrf_name("vpc-a", n), 0);
	assert_string_equal(n, "vpc-a");
	assert_int_equal(cp_vrf_name("tenant-blue-east", n), 0);
	assert_int_equal(strlen(n), IFNAMSIZ - 1);
	assert_memory_equal(n, "tenant-blu~", 11);
	assert_int_equal(cp_vrf_name("..", n), -EINVAL);
	assert_int_equal(cp_vrf_names_check(NULL, ifs, 2, vrfs, 2, err, sizeof(err)), 0);
	assert_int_equal(cp_vrf_names_check(NULL, ifs, 2, long_vrfs, 2, err, sizeof(err)), 0);
	/* a VRF named like a TAP ("vb-" + "line1") */
	assert_int_equal(cp_vrf_names_check(NULL, ifs, 2, clash_tap, 2, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "vb-line1"));
	assert_non_null(strstr(err, "'line1'"));
	/* with an empty prefix, a VRF and an interface of one name */
	assert_int_equal(
		cp_vrf_names_check("", (const char *[]){ "vpc-b" }, 1, vrfs, 2, err, sizeof(err)),
		-EEXIST);
	assert_non_null(strstr(err, "VRF 'vpc-b'"));
	/* two VRFs of one name: impossible in a config, found all the same */
	assert_int_equal(
		cp_vrf_names_check(NULL, ifs, 0, (const char *[]){ "x", "x" }, 2, err, sizeof(err)),
		-EEXIST);
	print_message("collision: %s\n", err);
}

/* Whether this kernel makes VRF devices: `ip link add` in the test's namespace. */
static bool kernel_has_vrf(void)
{
	bool ok = sh("ip -n %s link add vb-ut-probe type vrf table 4242 2>/dev/null", ns) == 0;

	if (ok)
		sh("ip -n %s link del vb-ut-probe", ns);
	return ok;
}

static void test_vrf_kernel(void **state)
{
	struct cp_tap_cfg c;
	struct cp_vrf *v = NULL;
	struct cp_tap *t;
	char err[512] = "";
	json_t *l;
	int rc;

	(void)state;
	need_kernel();
	c = cfg_of("vb-ut-vrfs");
	t = open_ok(&c);
	rc = cp_vrf_open("ut-vrf", ns, 4243, &v, err, sizeof(err));
	if (!kernel_has_vrf()) {
		/* the path a Debian kernel never takes: told apart, and nothing left */
		print_message("no VRF driver: %s\n", err);
		assert_int_equal(rc, -EOPNOTSUPP);
		assert_null(v);
		assert_non_null(strstr(err, "no VRF driver"));
		assert_non_null(strstr(err, "vrf ut-vrf"));
		assert_null(link_json("ut-vrf"));
		/* the TAP has no master and cannot get one that is not there */
		assert_int_equal(cp_tap_master(t), 0);
		assert_int_equal(cp_tap_set_master(t, 99999, err, sizeof(err)), -EINVAL);
		assert_int_equal(cp_tap_set_master(t, 0, err, sizeof(err)), 0);
		/* a device of that name that is no VRF: found before any creation */
		assert_int_equal(cp_vrf_open("vb-ut-vrfs", ns, 4243, &v, err, sizeof(err)),
				 -EEXIST);
		assert_non_null(strstr(err, "kind 'tun'"));
		return;
	}
	if (rc != 0)
		fail_msg("cp_vrf_open: %d %s", rc, err);
	l = link_json("ut-vrf");
	assert_non_null(l);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(l, "linkinfo"), "info_kind")),
		"vrf");
	assert_int_equal(
		json_integer_value(json_object_get(
			json_object_get(json_object_get(l, "linkinfo"), "info_data"), "table")),
		4243);
	assert_true(has_flag(l, "UP"));
	json_decref(l);
	assert_int_equal(cp_tap_set_master(t, cp_vrf_ifindex(v), err, sizeof(err)), 0);
	assert_int_equal(cp_tap_master(t), cp_vrf_ifindex(v));
	l = link_json("vb-ut-vrfs");
	assert_string_equal(json_string_value(json_object_get(l, "master")), "ut-vrf");
	json_decref(l);
	/* freed, enslaved again; deleting the VRF frees it too */
	assert_int_equal(cp_tap_set_master(t, 0, err, sizeof(err)), 0);
	assert_int_equal(cp_tap_master(t), 0);
	assert_int_equal(cp_tap_set_master(t, cp_vrf_ifindex(v), err, sizeof(err)), 0);
	cp_vrf_close(v);
	assert_true(wait_for(link_gone("ut-vrf")));
	assert_int_equal(cp_tap_master(t), 0);
	/* one left behind with another table is made anew with ours */
	assert_int_equal(sh("ip -n %s link add ut-vrf type vrf table 7", ns), 0);
	assert_int_equal(cp_vrf_open("ut-vrf", ns, 4243, &v, err, sizeof(err)), 0);
	l = link_json("ut-vrf");
	assert_int_equal(
		json_integer_value(json_object_get(
			json_object_get(json_object_get(l, "linkinfo"), "info_data"), "table")),
		4243);
	json_decref(l);
	cp_vrf_close(v);
	/* a device of that name that is no VRF */
	assert_int_equal(cp_vrf_open("vb-ut-vrfs", ns, 4243, &v, err, sizeof(err)), -EEXIST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_name_rule, close_held),
		cmocka_unit_test_teardown(test_name_collision_found, close_held),
		cmocka_unit_test_teardown(test_link_local6, close_held),
		cmocka_unit_test_teardown(test_vrf_msg, close_held),
		cmocka_unit_test_teardown(test_vrf_names, close_held),
		cmocka_unit_test_teardown(test_open_in_netns, close_held),
		cmocka_unit_test_teardown(test_addrs_reconcile, close_held),
		cmocka_unit_test_teardown(test_carrier, close_held),
		cmocka_unit_test_teardown(test_mtu, close_held),
		cmocka_unit_test_teardown(test_write_reaches_kernel, close_held),
		cmocka_unit_test_teardown(test_kernel_frames, close_held),
		cmocka_unit_test_teardown(test_errors, close_held),
		cmocka_unit_test_teardown(test_takeover_persistent, close_held),
		cmocka_unit_test_teardown(test_own_namespace, close_held),
		cmocka_unit_test_teardown(test_crash_leaves_nothing, close_held),
		cmocka_unit_test_teardown(test_vrf_kernel, close_held),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
