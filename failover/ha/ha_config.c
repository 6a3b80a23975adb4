/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "ha" (ha_config.h): the HA pair, its Redis endpoint, the
 * lease's timers, the service address the active answers for, and what
 * the pair shares.
 *
 * It loads after "interfaces" (service.interface), "bfd" (partner_bfd,
 * through bfd_session_index()), "failover_groups" (share's
 * failover_groups, through fgroup_index()) and "tunnels" (which
 * owns path_groups: share's path_groups). The struct cfg_ha is allocated
 * even when the file has no such section (enabled false, every default),
 * so that a loaded config always has one.
 *
 * pair, node, redis and service are restart settings (cfg_restart()): the
 * Redis client and the service address are set up once, at start-up.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#include "core/config.h"
#include "core/config_read.h"
#include "failover/bfd/bfd_config.h"
#include "failover/ha/ha_config.h"

#define HA_ID_MAX           32 /* pair and node: 1..32 characters */
#define HA_REDIS_PORT       6379
#define HA_SENTINEL_PORT    26379
#define HA_LEASE_MIN_MS     20
#define HA_LEASE_MAX_MS     60000
#define HA_TIMEOUT_MIN_MS   5
#define HA_TIMEOUT_MAX_MS   5000
#define HA_ANNOUNCE_MAX     10
#define HA_ANNOUNCE_IVL_MAX 1000
#define HA_PUBLISH_MIN_MS   10
#define HA_PUBLISH_MAX_MS   10000
#define HA_TTL_MIN_MS       100
#define HA_TTL_MAX_MS       600000

/* The defaults of ha_config.h's top comment (guard: lease / 10, at least 1). */
#define HA_DEFAULT_TIMEOUT_MS  30
#define HA_DEFAULT_LEASE_MS    40
#define HA_DEFAULT_RENEW_MS    8
#define HA_DEFAULT_RETRY_MS    2
#define HA_DEFAULT_ANNOUNCE    3
#define HA_DEFAULT_ANNOUNCE_MS 20
#define HA_DEFAULT_PUBLISH_MS  100
#define HA_DEFAULT_STATE_TTL   10000

#define HA_DEFAULTS                                                                                \
	{                                                                                          \
		.redis = { .timeout_ms = HA_DEFAULT_TIMEOUT_MS }, .lease_ms = HA_DEFAULT_LEASE_MS, \
		.renew_ms = HA_DEFAULT_RENEW_MS, .guard_ms = HA_DEFAULT_LEASE_MS / 10,             \
		.retry_ms = HA_DEFAULT_RETRY_MS, .announce = HA_DEFAULT_ANNOUNCE,                  \
		.announce_interval_ms = HA_DEFAULT_ANNOUNCE_MS,                                    \
		.publish_ms = HA_DEFAULT_PUBLISH_MS, .state_ttl_ms = HA_DEFAULT_STATE_TTL,         \
	}

static int ha_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg);
static void ha_free(struct vbrd_config *cfg);
static void ha_summary(const struct vbrd_config *cfg, char *buf, size_t len);

static struct config_section ha_section = {
	.name = "ha",
	.after = (const char *const[]){ "interfaces", "tunnels", "bfd", "failover_groups", NULL },
	.load = ha_load,
	.free = ha_free,
	.summary = ha_summary,
};
CONFIG_SECTION(ha_section);

const struct cfg_ha *cfg_ha_get(const struct vbrd_config *cfg)
{
	static const struct cfg_ha empty = HA_DEFAULTS;
	const struct cfg_ha *h = config_section_get(cfg, &ha_section);

	return h != NULL ? h : &empty;
}

/* ---- settings ------------------------------------------------------------- */

/* Member @p name of @p grp as an integer of ms in [@p min, @p max]; @p why follows the range. */
static int get_ms(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		  long long min, long long max, const char *why, uint32_t *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	long long v;

	if (s == NULL)
		return CFG_VAL_ABSENT;
	if (cfg_int_value(ld, s, LLONG_MIN, LLONG_MAX, &v) != CFG_VAL_OK)
		return CFG_VAL_BAD;
	if (v < min || v > max) {
		cfg_err(ld, s, "%lld ms is out of range %lld..%lld ms%s", v, min, max, why);
		return CFG_VAL_BAD;
	}
	*out = (uint32_t)v;
	return CFG_VAL_OK;
}

/* pair, node: 1..HA_ID_MAX of [A-Za-z0-9_.-] (they go into Redis keys). */
static int get_id(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		  char out[HA_ID_MAX + 1])
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	const char *v;
	size_t n;

	if (s == NULL) {
		cfg_err_missing(ld, grp, name);
		return CFG_VAL_ABSENT;
	}
	if (cfg_string_value(ld, s, &v) != CFG_VAL_OK)
		return CFG_VAL_BAD;
	n = strlen(v);
	bool ok = n >= 1 && n <= HA_ID_MAX;
	for (const char *p = v; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-';
	if (!ok) {
		cfg_err(ld, s, "'%s' is not a valid name (1..%d characters of A-Z a-z 0-9 _ . -)",
			v, HA_ID_MAX);
		return CFG_VAL_BAD;
	}
	memcpy(out, v, n + 1);
	return CFG_VAL_OK;
}

/* ---- Redis endpoints -------------------------------------------------------- */

/* A host name (RFC 1123 §2.1: labels of letters, digits and '-', not at either end). */
static bool host_name_ok(const char *h)
{
	size_t label = 0;
	bool digits_only = true;

	for (const char *p = h;; p++) {
		if (*p == '.' || *p == '\0') {
			if (label == 0 || label > 63 || p[-1] == '-')
				return false;
			if (*p == '\0')
				break;
			label = 0;
			continue;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || (*p == '-' && label > 0)))
			return false;
		if (!(*p >= '0' && *p <= '9'))
			digits_only = false;
		label++;
	}
	return !digits_only; /* "10.0.0.256" is a bad IPv4 address, not a name */
}

/*
 * Parse "HOST:PORT", "[V6]:PORT" or "HOST" (@p def_port) into @p out.
 * @return NULL, or what is wrong, in @p why (for "'VALUE': WHY")
 */
static const char *parse_endpoint(const char *s, uint16_t def_port, struct ha_redis_addr *out,
				  char *why, size_t len)
{
	const char *host = s, *port = NULL, *end;
	struct in6_addr a6;
	struct in_addr a4;
	size_t n;

	if (s[0] == '[') {
		host = s + 1;
		end = strchr(host, ']');
		if (end == NULL)
			return "a '[' without its ']' (an IPv6 address is written [V6]:PORT)";
		if (end[1] == ':')
			port = end + 2;
		else if (end[1] != '\0')
			return "expected ':PORT' after ']'";
	} else {
		const char *colon = strchr(s, ':');

		if (colon != NULL && strchr(colon + 1, ':') != NULL)
			return "an IPv6 address is written in brackets: [V6] or [V6]:PORT";
		end = colon != NULL ? colon : s + strlen(s);
		if (colon != NULL)
			port = colon + 1;
	}
	n = (size_t)(end - host);
	if (n == 0)
		return "no host (expected HOST:PORT, [V6]:PORT or HOST)";
	if (n >= sizeof(out->host)) {
		snprintf(why, len, "a host of %zu bytes, at most %zu", n, sizeof(out->host) - 1);
		return why;
	}
	memcpy(out->host, host, n);
	out->host[n] = '\0';
	if (s[0] == '[') {
		if (inet_pton(AF_INET6, out->host, &a6) != 1) {
			snprintf(why, len, "'%s' in brackets is not an IPv6 address", out->host);
			return why;
		}
	} else if (inet_pton(AF_INET, out->host, &a4) != 1 && !host_name_ok(out->host)) {
		snprintf(why, len, "'%s' is neither an IPv4 address nor a host name", out->host);
		return why;
	}
	out->port = def_port;
	if (port != NULL) {
		unsigned long v = 0;
		const char *p = port;

		for (; *p >= '0' && *p <= '9' && v <= 65535; p++)
			v = v * 10 + (unsigned long)(*p - '0');
		if (p == port || *p != '\0' || v < 1 || v > 65535) {
			snprintf(why, len, "port '%s' is not 1..65535", port);
			return why;
		}
		out->port = (uint16_t)v;
	}
	return NULL;
}

/* One endpoint setting @p s (a string) into @p out; reported when bad. */
static bool load_endpoint(struct cfg_reader *ld, const config_setting_t *s, uint16_t def_port,
			  struct ha_redis_addr *out)
{
	char why[128];
	const char *v, *bad;

	if (cfg_string_value(ld, s, &v) != CFG_VAL_OK)
		return false;
	bad = parse_endpoint(v, def_port, out, why, sizeof(why));
	if (bad != NULL) {
		cfg_err(ld, s, "'%s': %s", v, bad);
		memset(out, 0, sizeof(*out));
		return false;
	}
	return true;
}

/* "host:port", "[v6]:port": how an endpoint is written back (restart values). */
static int format_endpoint(const struct ha_redis_addr *a, char *buf, size_t len)
{
	return snprintf(buf, len, strchr(a->host, ':') ? "[%s]:%u" : "%s:%u", a->host, a->port);
}

static bool same_endpoint(const struct ha_redis_addr *x, const struct ha_redis_addr *y)
{
	return x->port == y->port && strcmp(x->host, y->host) == 0;
}

/* `sentinels = [ "HOST:PORT", ... ]`: 1..HA_REDIS_MAX_SENTINELS, each once. */
static void load_sentinels(struct cfg_reader *ld, const config_setting_t *ss,
			   struct ha_redis_cfg *rc)
{
	int n;

	if (!cfg_is_sequence(ss)) {
		cfg_err(ld, ss, "expected an array [ ... ] of strings, got %s", cfg_type_name(ss));
		return;
	}
	n = config_setting_length(ss);
	if (n < 1 || n > HA_REDIS_MAX_SENTINELS) {
		cfg_err(ld, ss, "%d sentinels, expected 1..%d", n, HA_REDIS_MAX_SENTINELS);
		if (n == 0)
			return;
		n = HA_REDIS_MAX_SENTINELS;
	}
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(ss, (unsigned)i);
		struct ha_redis_addr *a = &rc->sentinels[rc->nb_sentinels];

		if (!load_endpoint(ld, e, HA_SENTINEL_PORT, a))
			continue;
		for (unsigned j = 0; j < rc->nb_sentinels; j++)
			if (same_endpoint(&rc->sentinels[j], a)) {
				char txt[HA_REDIS_HOST_MAX + 8];

				format_endpoint(a, txt, sizeof(txt));
				cfg_err(ld, e, "%s is listed twice", txt);
				a = NULL;
				break;
			}
		if (a != NULL)
			rc->nb_sentinels++;
	}
}

/*
 * A fingerprint of the password for its restart value: a reload that
 * changes it is refused like any restart setting, but the message (and
 * the log) shows no password. Keyed with a per-process random value, so
 * that the printed fingerprints say nothing outside this process.
 */
static unsigned long long password_fingerprint(const char *pw)
{
	static uint64_t key;
	uint64_t h;

	if (key == 0 && getrandom(&key, sizeof(key), 0) != (ssize_t)sizeof(key))
		key = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull;
	key |= 1;
	/* FNV-1a (Fowler, Noll, Vo), seeded with the key */
	h = 0xcbf29ce484222325ull ^ key;
	for (const unsigned char *p = (const unsigned char *)pw; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return (unsigned long long)h;
}

/* A file that holds the Redis password and that others may read: a warning. */
static void password_file_check(struct cfg_reader *ld, const config_setting_t *ps)
{
	const char *f = config_setting_source_file(ps);
	struct stat st;

	if (f == NULL)
		f = ld->file;
	if (stat(f, &st) == 0 && (st.st_mode & S_IROTH))
		cfg_warn(ld, ps,
			 "%s holds ha.redis.password and everybody may read it (mode %03o): "
			 "chmod 600 it",
			 f, (unsigned)(st.st_mode & 0777));
}

static void load_redis(struct cfg_reader *ld, const config_setting_t *g, struct cfg_ha *h)
{
	static const char *const keys[] = { "server",   "master", "sentinels", "user",
					    "password", "tls",    "timeout",   NULL };
	struct ha_redis_cfg *rc = &h->redis;
	const config_setting_t *rs = cfg_get_typed(ld, g, "redis", CONFIG_TYPE_GROUP);
	const config_setting_t *srv, *ms, *ss, *ps;
	char path[128], txt[HA_REDIS_HOST_MAX + 8] = "";
	bool tls = false, server_ok = false;
	const char *v;

	if (rs == NULL) {
		if (config_setting_get_member(g, "redis") == NULL)
			cfg_err_missing(ld, g, "redis");
		return;
	}
	cfg_check_members(ld, rs, keys);
	srv = config_setting_get_member(rs, "server");
	ms = config_setting_get_member(rs, "master");
	ss = config_setting_get_member(rs, "sentinels");
	if (srv != NULL && (ms != NULL || ss != NULL))
		cfg_err_at(ld, ms != NULL ? ms : ss,
			   "%s: 'server' and Redis Sentinel's 'master' and 'sentinels' are "
			   "mutually exclusive",
			   cfg_path(rs, path, sizeof(path)));
	else if (srv != NULL)
		server_ok = load_endpoint(ld, srv, HA_REDIS_PORT, &rc->server);
	else if (ms == NULL && ss == NULL)
		cfg_err_at(ld, rs,
			   "%s: missing required setting 'server' (or 'master' and "
			   "'sentinels')",
			   cfg_path(rs, path, sizeof(path)));
	else {
		if (ms == NULL)
			cfg_err(ld, ss,
				"needs 'master', the name the sentinels know the master by");
		else if (cfg_get_text(ld, rs, "master", rc->master_name, sizeof(rc->master_name)) ==
				 CFG_VAL_OK &&
			 ss == NULL)
			cfg_err(ld, ms, "needs 'sentinels', the addresses of Redis Sentinel");
		if (ss != NULL)
			load_sentinels(ld, ss, rc);
	}
	ps = config_setting_get_member(rs, "password");
	if (ps != NULL && cfg_string_value(ld, ps, &v) == CFG_VAL_OK) {
		if (strlen(v) >= sizeof(rc->password))
			cfg_err(ld, ps, "a password of %zu bytes, at most %zu", strlen(v),
				sizeof(rc->password) - 1);
		else
			strcpy(rc->password, v);
	}
	const config_setting_t *us = config_setting_get_member(rs, "user");
	if (us != NULL && cfg_string_value(ld, us, &v) == CFG_VAL_OK) {
		if (strlen(v) == 0 || strlen(v) >= sizeof(rc->user) || strpbrk(v, " \t\r\n"))
			cfg_err(ld, us, "a Redis ACL user name of 1..%zu characters without blanks",
				sizeof(rc->user) - 1);
		else if (rc->password[0] == '\0')
			cfg_err(ld, us, "needs 'password' (AUTH user password)");
		else
			strcpy(rc->user, v);
	}
	/* Whoever can write the pair's keys decides who is active: say so when
	 * Redis asks nobody who they are, or when others can read the secret. */
	if (rc->password[0] == '\0')
		cfg_warn(ld, rs,
			 "ha.redis: no password: anybody who reaches this Redis can take or drop "
			 "the pair's lease; set 'user' and 'password' of a Redis ACL user limited "
			 "to the pair's keys (conf/README.md, HA pair)");
	else
		password_file_check(ld, ps);
	if (cfg_get_bool(ld, rs, "tls", &tls) == CFG_VAL_OK && tls)
		cfg_err(ld, config_setting_get_member(rs, "tls"),
			"TLS is not supported: Debian 12's hiredis (0.14) has no TLS");
	get_ms(ld, rs, "timeout", HA_TIMEOUT_MIN_MS, HA_TIMEOUT_MAX_MS, "", &rc->timeout_ms);

	if (server_ok)
		format_endpoint(&rc->server, txt, sizeof(txt));
	cfg_restart(ld, srv, "ha.redis.server", "%s", txt);
	cfg_restart(ld, ms, "ha.redis.master", "%s", rc->master_name);
	/* one each: the list as one value could outgrow a restart value */
	cfg_restart(ld, ss, "ha.redis.sentinels", "%u", rc->nb_sentinels);
	for (unsigned i = 0; i < rc->nb_sentinels; i++) {
		char name[32];

		snprintf(name, sizeof(name), "ha.redis.sentinels[%u]", i);
		format_endpoint(&rc->sentinels[i], txt, sizeof(txt));
		cfg_restart(ld, config_setting_get_elem(ss, i), name, "%s", txt);
	}
	if (rc->password[0])
		cfg_restart(ld, ps, "ha.redis.password", "fingerprint %016llx",
			    password_fingerprint(rc->password));
	else
		cfg_restart(ld, ps, "ha.redis.password", "none");
	cfg_restart(ld, us, "ha.redis.user", "%s", rc->user);
	cfg_restart(ld, config_setting_get_member(rs, "timeout"), "ha.redis.timeout", "%u",
		    rc->timeout_ms);
}

/* ---- the lease's timers ------------------------------------------------------ */

/*
 * lease, renew, guard, retry: renew, guard and retry are bounded by the
 * lease (and guard by renew); when the lease (or renew) is itself wrong
 * only the absolute ranges are checked, so that one mistake is one message.
 */
static void load_timers(struct cfg_reader *ld, const config_setting_t *g, struct cfg_ha *h)
{
	const config_setting_t *ls = config_setting_get_member(g, "lease");
	int lease_rc, renew_rc;
	bool guard_given;

	lease_rc = get_ms(ld, g, "lease", HA_LEASE_MIN_MS, HA_LEASE_MAX_MS, "", &h->lease_ms);
	if (lease_rc == CFG_VAL_BAD) {
		get_ms(ld, g, "renew", 1, HA_LEASE_MAX_MS / 2, "", &h->renew_ms);
		get_ms(ld, g, "guard", 1, HA_LEASE_MAX_MS - 2, "", &h->guard_ms);
		get_ms(ld, g, "retry", 1, HA_LEASE_MAX_MS, "", &h->retry_ms);
		return;
	}
	renew_rc = get_ms(ld, g, "renew", 1, h->lease_ms / 2, " (half the lease at most)",
			  &h->renew_ms);
	if (renew_rc == CFG_VAL_ABSENT && h->renew_ms > h->lease_ms / 2) {
		cfg_err(ld, ls,
			"%u ms is too short for the default renew of %u ms (half the lease at "
			"most): set renew",
			h->lease_ms, h->renew_ms);
		renew_rc = CFG_VAL_BAD;
	}
	guard_given = config_setting_get_member(g, "guard") != NULL;
	h->guard_ms = h->lease_ms / 10 > 0 ? h->lease_ms / 10 : 1;
	if (renew_rc == CFG_VAL_BAD)
		get_ms(ld, g, "guard", 1, h->lease_ms - 2, "", &h->guard_ms);
	else if (guard_given)
		get_ms(ld, g, "guard", 1, h->lease_ms - h->renew_ms - 1,
		       " (lease - renew - 1 at most)", &h->guard_ms);
	get_ms(ld, g, "retry", 1, h->lease_ms, " (the lease at most)", &h->retry_ms);
}

/* ---- the service address ------------------------------------------------------- */

/*
 * Virtual address @p s (member ipv4 or ipv6 of @p family) on interface
 * @p iface (-1: unknown): usable, on one of the interface's connected
 * subnets (a LAN host reaches it there; link-local IPv6 is on every link),
 * and not an address of any interface (each node keeps its own).
 */
static bool load_vip(struct cfg_reader *ld, const config_setting_t *s, int family, int iface,
		     struct cfg_addr *out)
{
	const struct vbrd_config *cfg = ld->cfg;
	char owner[CFG_NAME_MAX + 32], a[INET6_ADDRSTRLEN];
	const char *v, *why;
	int own;

	if (cfg_string_value(ld, s, &v) != CFG_VAL_OK)
		return false;
	if (config_parse_addr(v, out) != 0) {
		cfg_err(ld, s, "'%s' is not a valid %s address", v, cfg_family_name(family));
		return false;
	}
	config_format_addr(out, a, sizeof(a));
	if (out->family != family) {
		cfg_err(ld, s, "%s is %s: it goes in '%s'", a, cfg_family_name(out->family),
			out->family == AF_INET ? "ipv4" : "ipv6");
		return false;
	}
	if ((why = cfg_unusable_addr(out)) != NULL) {
		cfg_err(ld, s, "%s is %s", a, why);
		return false;
	}
	if (cfg_address_owner(ld, out, -1, owner, sizeof(owner)) != NULL) {
		cfg_err(ld, s,
			"%s is an address of %s: the service address is the pair's, apart "
			"from each node's own",
			a, owner);
		return false;
	}
	if (iface < 0 || ld->iface_bad[iface] || cfg_is_link_local6(out))
		return true;
	if (cfg_find_connected(cfg, out, iface, &own) < 0) {
		cfg_err(ld, s, "%s is not in a connected subnet of interface '%s'", a,
			cfg->ifaces[iface].name);
		return false;
	}
	return true;
}

static void load_service(struct cfg_reader *ld, const config_setting_t *g, struct cfg_ha *h)
{
	static const char *const keys[] = { "interface",         "ipv4", "ipv6", "mac", "announce",
					    "announce_interval", NULL };
	const config_setting_t *ss = cfg_get_typed(ld, g, "service", CONFIG_TYPE_GROUP);
	const config_setting_t *v4, *v6, *as;
	char path[128], a[INET6_ADDRSTRLEN];
	struct cfg_addr addr;
	uint32_t announce;
	int iface = -1, rc;

	if (ss == NULL) {
		if (config_setting_get_member(g, "service") == NULL)
			cfg_err_missing(ld, g, "service");
		return;
	}
	cfg_check_members(ld, ss, keys);
	rc = cfg_get_name(ld, ss, "interface", h->iface, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, ss, "interface");
	else if (rc == CFG_VAL_OK && (iface = config_iface_index(ld->cfg, h->iface)) < 0)
		cfg_err(ld, config_setting_get_member(ss, "interface"), "unknown interface '%s'",
			h->iface);
	v4 = config_setting_get_member(ss, "ipv4");
	v6 = config_setting_get_member(ss, "ipv6");
	if (v4 == NULL && v6 == NULL)
		cfg_err_at(ld, ss, "%s: missing required setting 'ipv4' (or 'ipv6')",
			   cfg_path(ss, path, sizeof(path)));
	if (v4 != NULL && load_vip(ld, v4, AF_INET, iface, &addr)) {
		h->has_v4 = true;
		h->vip4 = addr.v4;
	}
	if (v6 != NULL && load_vip(ld, v6, AF_INET6, iface, &addr)) {
		h->has_v6 = true;
		memcpy(h->vip6, addr.v6, sizeof(h->vip6));
	}
	const config_setting_t *ms = config_setting_get_member(ss, "mac");
	if (ms != NULL) {
		const char *txt = config_setting_get_string(ms);
		uint8_t mac[6];
		if (txt == NULL)
			cfg_err(ld, ms, "expected a MAC address string, got %s", cfg_type_name(ms));
		else if (cfg_parse_mac(txt, mac) < 0)
			cfg_err(ld, ms, "'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", txt);
		else if ((mac[0] & 1) || (mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]) == 0)
			cfg_err(ld, ms, "%s is not a unicast MAC address", txt);
		else {
			h->has_vmac = true;
			memcpy(h->vmac, mac, 6);
		}
		cfg_restart(ld, ms, "ha.service.mac", "%s", txt != NULL ? txt : "");
	}
	as = config_setting_get_member(ss, "announce");
	if (cfg_get_u32(ld, ss, "announce", 1, HA_ANNOUNCE_MAX, &announce) == CFG_VAL_OK)
		h->announce = (uint8_t)announce;
	get_ms(ld, ss, "announce_interval", 1, HA_ANNOUNCE_IVL_MAX, "", &h->announce_interval_ms);

	cfg_restart(ld, config_setting_get_member(ss, "interface"), "ha.service.interface", "%s",
		    h->iface);
	addr = (struct cfg_addr){ .family = AF_INET, .v4 = h->vip4 };
	cfg_restart(ld, v4, "ha.service.ipv4", "%s",
		    h->has_v4 ? config_format_addr(&addr, a, sizeof(a)) : "");
	addr.family = AF_INET6;
	memcpy(addr.v6, h->vip6, sizeof(addr.v6));
	cfg_restart(ld, v6, "ha.service.ipv6", "%s",
		    h->has_v6 ? config_format_addr(&addr, a, sizeof(a)) : "");
	cfg_restart(ld, as, "ha.service.announce", "%u", h->announce);
	cfg_restart(ld, config_setting_get_member(ss, "announce_interval"),
		    "ha.service.announce_interval", "%u", h->announce_interval_ms);
}

/* ---- what the pair shares --------------------------------------------------------- */

/*
 * One list of names under `share` (@p key): each a name that @p index
 * finds (an object of another section, @p what), each once, at most
 * HA_MAX_SHARED.
 */
static void load_shared(struct cfg_reader *ld, const config_setting_t *sh, const char *key,
			const char *what, int (*index)(const struct vbrd_config *, const char *),
			char names[HA_MAX_SHARED][CFG_NAME_MAX], unsigned *nb)
{
	const config_setting_t *ls = config_setting_get_member(sh, key);
	int n;

	if (ls == NULL)
		return;
	if (!cfg_is_sequence(ls)) {
		cfg_err(ld, ls, "expected an array [ ... ] of names, got %s", cfg_type_name(ls));
		return;
	}
	n = config_setting_length(ls);
	if (n > HA_MAX_SHARED) {
		cfg_err(ld, ls, "%d %ss, expected 0..%d", n, what, HA_MAX_SHARED);
		n = HA_MAX_SHARED;
	}
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(ls, (unsigned)i);
		bool dup = false;
		const char *v;

		if (cfg_string_value(ld, e, &v) != CFG_VAL_OK)
			continue;
		if (index(ld->cfg, v) < 0) {
			cfg_err(ld, e, "unknown %s '%s'", what, v);
			continue;
		}
		for (unsigned j = 0; j < *nb && !dup; j++)
			dup = strcmp(names[j], v) == 0;
		if (dup) {
			cfg_err(ld, e, "%s '%s' is listed twice", what, v);
			continue;
		}
		snprintf(names[(*nb)++], CFG_NAME_MAX, "%s", v); /* a known name: it fits */
	}
}

static void load_share(struct cfg_reader *ld, const config_setting_t *g, struct cfg_ha *h)
{
	static const char *const keys[] = { "failover_groups", "path_groups", NULL };
	const config_setting_t *sh = cfg_get_typed(ld, g, "share", CONFIG_TYPE_GROUP);

	if (sh == NULL)
		return;
	cfg_check_members(ld, sh, keys);
	load_shared(ld, sh, "failover_groups", "failover group", fgroup_index, h->fgroups,
		    &h->nb_fgroups);
	load_shared(ld, sh, "path_groups", "path group", config_path_group_index, h->pgroups,
		    &h->nb_pgroups);
}

/* ---- the section -------------------------------------------------------------------- */

static void load_ha(struct cfg_reader *ld, const config_setting_t *g, struct cfg_ha *h)
{
	static const char *const keys[] = { "pair",        "node",  "redis",   "lease",
					    "renew",       "guard", "retry",   "service",
					    "partner_bfd", "share", "publish", "state_ttl",
					    NULL };
	const config_setting_t *ts;
	int publish_rc, ttl_rc;

	h->enabled = true;
	h->line = cfg_line(g);
	cfg_check_members(ld, g, keys);
	get_id(ld, g, "pair", h->pair);
	get_id(ld, g, "node", h->node);
	snprintf(h->redis.prefix, sizeof(h->redis.prefix), "vbrd:%s:", h->pair);
	snprintf(h->redis.node, sizeof(h->redis.node), "%s", h->node);
	load_redis(ld, g, h);
	load_timers(ld, g, h);
	load_service(ld, g, h);
	if (cfg_get_name(ld, g, "partner_bfd", h->partner_bfd, NULL) == CFG_VAL_OK &&
	    bfd_session_index(ld->cfg, h->partner_bfd) < 0) {
		cfg_err(ld, config_setting_get_member(g, "partner_bfd"), "unknown BFD session '%s'",
			h->partner_bfd);
		h->partner_bfd[0] = '\0';
	}
	load_share(ld, g, h);
	publish_rc = get_ms(ld, g, "publish", HA_PUBLISH_MIN_MS, HA_PUBLISH_MAX_MS, "",
			    &h->publish_ms);
	ts = config_setting_get_member(g, "state_ttl");
	ttl_rc = get_ms(ld, g, "state_ttl", HA_TTL_MIN_MS, HA_TTL_MAX_MS, "", &h->state_ttl_ms);
	/* a state that expires before its next publication flickers in Redis */
	if (ttl_rc != CFG_VAL_BAD && publish_rc != CFG_VAL_BAD &&
	    h->state_ttl_ms <= h->publish_ms) {
		if (ts != NULL)
			cfg_err(ld, ts,
				"%u ms is not longer than publish (%u ms): a node's state would "
				"expire between its publications",
				h->state_ttl_ms, h->publish_ms);
		else
			cfg_err(ld, config_setting_get_member(g, "publish"),
				"%u ms is not shorter than state_ttl (%u ms, the default): "
				"a node's state would expire between its publications",
				h->publish_ms, h->state_ttl_ms);
	}

	cfg_restart(ld, config_setting_get_member(g, "pair"), "ha.pair", "%s", h->pair);
	cfg_restart(ld, config_setting_get_member(g, "node"), "ha.node", "%s", h->node);
}

static int ha_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	const config_setting_t *g = cfg_get_typed(ld, root, "ha", CONFIG_TYPE_GROUP);
	struct cfg_ha *h = malloc(sizeof(*h));

	if (h == NULL)
		return -ENOMEM;
	*h = (struct cfg_ha)HA_DEFAULTS;
	config_section_set(cfg, &ha_section, h); /* freed by ha_free() whatever happens */
	if (g != NULL)
		load_ha(ld, g, h);
	return ld->nomem ? -ENOMEM : 0;
}

static void ha_free(struct vbrd_config *cfg)
{
	free(config_section_get(cfg, &ha_section));
	config_section_set(cfg, &ha_section, NULL);
}

static void ha_summary(const struct vbrd_config *cfg, char *buf, size_t len)
{
	const struct cfg_ha *h = cfg_ha_get(cfg);

	if (h->enabled)
		snprintf(buf, len, "HA pair %s, node %s, lease %u ms", h->pair, h->node,
			 h->lease_ms);
}
