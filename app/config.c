/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration loader: a libconfig file (format in conf/README.md) turned
 * into struct vbrd_config.
 *
 * The loader never stops at the first problem: every check runs and every
 * violation is recorded as "FILE:LINE: message", so that one `vbrd
 * --check-config` shows the user everything to fix. Checks that depend on an
 * object which already had an error (an interface MTU against a port whose
 * MTU was invalid, a gateway against an interface whose address was invalid)
 * are skipped, so that one mistake is reported once, not as a cascade.
 *
 * The result is built in a private struct and copied out only when the whole
 * file is valid: a caller never sees a half-loaded configuration.
 */
#include "app/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define CFG_MAX_CPU_ID 1023 /* largest CPU id accepted in workers.cores */
#define CFG_MSG_MAX    512  /* bytes of one message, before FILE:LINE */

/* One collected message, with the line it is sorted by. */
struct msg {
	int line;   /* 0 for messages about the whole file */
	int seq;    /* order of discovery, to keep the sort stable */
	char *text; /* "FILE:LINE: message" */
};

/* State of one config_load() call. */
struct loader {
	const char *file;        /* path as the caller gave it: the FILE of messages */
	struct vbrd_config *cfg; /* being built */
	struct msg *msgs;
	int nb_msgs;
	int cap_msgs;
	bool nomem; /* an allocation failed: config_load() returns -ENOMEM */
	/* Per-object error flags, to skip checks that would only cascade. */
	bool port_bad[CFG_MAX_PORTS];   /* port's MTU unknown */
	bool iface_bad[CFG_MAX_IFACES]; /* some interface address invalid */
	int port_name_line[CFG_MAX_PORTS];
	int iface_name_line[CFG_MAX_IFACES];
};

/* Outcome of reading one optional setting. */
enum { VAL_BAD = -1, VAL_ABSENT = 0, VAL_OK = 1 };

static int path_group_index(const struct vbrd_config *cfg, const char *name);

/* ---- messages ---------------------------------------------------------- */

static void add_msg(struct loader *ld, const char *file, int line, const char *text)
{
	struct msg *m;
	char *s;
	int rc;

	if (ld->nb_msgs == ld->cap_msgs) {
		int cap = ld->cap_msgs ? 2 * ld->cap_msgs : 8;

		m = realloc(ld->msgs, cap * sizeof(*m));
		if (m == NULL) {
			ld->nomem = true;
			return;
		}
		ld->msgs = m;
		ld->cap_msgs = cap;
	}
	if (line > 0)
		rc = asprintf(&s, "%s:%d: %s", file, line, text);
	else
		rc = asprintf(&s, "%s: %s", file, text);
	if (rc < 0) {
		ld->nomem = true;
		return;
	}
	m = &ld->msgs[ld->nb_msgs];
	m->line = line;
	m->seq = ld->nb_msgs;
	m->text = s;
	ld->nb_msgs++;
}

/* File of a setting: the included file it came from, or the loaded one. */
static const char *setting_file(const struct loader *ld, const config_setting_t *s)
{
	const char *f = s ? config_setting_source_file(s) : NULL;

	return f ? f : ld->file;
}

static int setting_line(const config_setting_t *s)
{
	return s ? (int)config_setting_source_line(s) : 0;
}

/*
 * Dotted path of a setting as the user wrote it: "interfaces[1].vlan".
 * Group members are named, list and array elements are indexed.
 */
static char *setting_path(const config_setting_t *s, char *buf, size_t len)
{
	const config_setting_t *chain[16];
	size_t off = 0;
	int n = 0;

	for (; s != NULL && !config_setting_is_root(s) && n < 16; s = config_setting_parent(s))
		chain[n++] = s;
	buf[0] = '\0';
	while (n-- > 0 && off < len) {
		const char *name = config_setting_name(chain[n]);

		if (name != NULL)
			off += snprintf(buf + off, len - off, "%s%s", off ? "." : "", name);
		else
			off += snprintf(buf + off, len - off, "[%d]",
					config_setting_index(chain[n]));
	}
	return buf;
}

/* Record "FILE:LINE: text" at setting @s (NULL: about the whole file). */
__attribute__((format(printf, 3, 4))) static void err_at(struct loader *ld,
							 const config_setting_t *s, const char *fmt,
							 ...)
{
	char text[CFG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	add_msg(ld, setting_file(ld, s), setting_line(s), text);
}

/* Record "FILE:LINE: PATH: text" at setting @s. */
__attribute__((format(printf, 3, 4))) static void err_set(struct loader *ld,
							  const config_setting_t *s,
							  const char *fmt, ...)
{
	char text[CFG_MSG_MAX], path[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	err_at(ld, s, "%s: %s", setting_path(s, path, sizeof(path)), text);
}

/* Record that group @grp lacks the required member @name. */
static void err_missing(struct loader *ld, const config_setting_t *grp, const char *name)
{
	char path[128];

	if (config_setting_is_root(grp))
		err_at(ld, NULL, "missing required setting '%s'", name);
	else
		err_at(ld, grp, "%s: missing required setting '%s'",
		       setting_path(grp, path, sizeof(path)), name);
}

static int msg_cmp(const void *a, const void *b)
{
	const struct msg *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq - y->seq;
}

/* ---- typed access to settings ------------------------------------------ */

static const char *type_name(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	default:
		return "nothing";
	}
}

/* Report every member of group @grp whose name is not in @keys (NULL-ended). */
static void check_members(struct loader *ld, const config_setting_t *grp, const char *const *keys)
{
	char path[128];
	int i, k, n = config_setting_length(grp);

	for (i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(grp, i);
		const char *name = config_setting_name(m);

		for (k = 0; keys[k] != NULL; k++)
			if (strcmp(keys[k], name) == 0)
				break;
		if (keys[k] == NULL)
			err_at(ld, m, "unknown setting '%s'", setting_path(m, path, sizeof(path)));
	}
}

static bool is_int(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

/* Integer value of @s in min..max. */
static int int_value(struct loader *ld, const config_setting_t *s, long long min, long long max,
		     long long *out)
{
	long long v;

	if (!is_int(s)) {
		err_set(ld, s, "expected an integer, got %s", type_name(s));
		return VAL_BAD;
	}
	v = config_setting_get_int64(s);
	if (v < min || v > max) {
		err_set(ld, s, "%lld is out of range %lld..%lld", v, min, max);
		return VAL_BAD;
	}
	*out = v;
	return VAL_OK;
}

static int get_u32(struct loader *ld, const config_setting_t *grp, const char *name, long long min,
		   long long max, uint32_t *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	long long v;
	int rc;

	if (s == NULL)
		return VAL_ABSENT;
	rc = int_value(ld, s, min, max, &v);
	if (rc == VAL_OK)
		*out = (uint32_t)v;
	return rc;
}

static int get_u16(struct loader *ld, const config_setting_t *grp, const char *name, long long min,
		   long long max, uint16_t *out)
{
	uint32_t v;
	int rc = get_u32(ld, grp, name, min, max, &v);

	if (rc == VAL_OK)
		*out = (uint16_t)v;
	return rc;
}

static int get_bool(struct loader *ld, const config_setting_t *grp, const char *name, bool *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);

	if (s == NULL)
		return VAL_ABSENT;
	if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
		err_set(ld, s, "expected a boolean (true/false), got %s", type_name(s));
		return VAL_BAD;
	}
	*out = config_setting_get_bool(s);
	return VAL_OK;
}

static int string_value(struct loader *ld, const config_setting_t *s, const char **out)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		err_set(ld, s, "expected a string, got %s", type_name(s));
		return VAL_BAD;
	}
	*out = config_setting_get_string(s);
	return VAL_OK;
}

static int get_string(struct loader *ld, const config_setting_t *grp, const char *name,
		      const char **out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);

	return s == NULL ? VAL_ABSENT : string_value(ld, s, out);
}

/* Copy a non-empty string setting that must fit in @size bytes with its NUL. */
static int get_text(struct loader *ld, const config_setting_t *grp, const char *name, char *buf,
		    size_t size)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	const char *v;
	size_t n;
	int rc;

	if (s == NULL)
		return VAL_ABSENT;
	rc = string_value(ld, s, &v);
	if (rc != VAL_OK)
		return rc;
	n = strlen(v);
	if (n == 0 || n >= size) {
		err_set(ld, s, "length %zu is out of range 1..%zu", n, size - 1);
		return VAL_BAD;
	}
	memcpy(buf, v, n + 1);
	return VAL_OK;
}

/* Names: 1..31 characters of [A-Za-z0-9_.-] (conf/README.md). */
static bool valid_name(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= CFG_NAME_MAX)
		return false;
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		      (*v >= '0' && *v <= '9') || *v == '_' || *v == '.' || *v == '-'))
			return false;
	return true;
}

static int get_name(struct loader *ld, const config_setting_t *grp, const char *name,
		    char buf[CFG_NAME_MAX], int *line)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	const char *v;
	int rc;

	if (s == NULL)
		return VAL_ABSENT;
	rc = string_value(ld, s, &v);
	if (rc != VAL_OK)
		return rc;
	if (!valid_name(v)) {
		err_set(ld, s, "'%s' is not a valid name (1..%d characters of A-Z a-z 0-9 _ . -)",
			v, CFG_NAME_MAX - 1);
		return VAL_BAD;
	}
	strcpy(buf, v);
	if (line != NULL)
		*line = setting_line(s);
	return VAL_OK;
}

/* Member @name of @grp if it is of type @type; NULL (and an error) otherwise. */
static const config_setting_t *get_typed(struct loader *ld, const config_setting_t *grp,
					 const char *name, int type)
{
	const config_setting_t *s = config_setting_get_member(grp, name);

	if (s == NULL || config_setting_type(s) == type)
		return s;
	err_set(ld, s, "expected %s, got %s",
		type == CONFIG_TYPE_GROUP ? "a group { ... }" : "a list ( ... )", type_name(s));
	return NULL;
}

/* A sequence of scalars: an array [ ... ], or a list ( ... ) which we accept too. */
static bool is_sequence(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_ARRAY ||
	       config_setting_type(s) == CONFIG_TYPE_LIST;
}

/* ---- addresses ------------------------------------------------------------ */

int config_parse_addr(const char *s, struct cfg_addr *out)
{
	struct in_addr a4;

	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return -EINVAL;
	if (inet_pton(AF_INET, s, &a4) == 1) {
		out->family = AF_INET;
		out->v4 = ntohl(a4.s_addr);
		return 0;
	}
	if (inet_pton(AF_INET6, s, out->v6) == 1) {
		out->family = AF_INET6;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

int config_parse_prefix(const char *s, struct cfg_prefix *out)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash, *p;
	unsigned len = 0;
	int max;

	memset(out, 0, sizeof(*out));
	if (s == NULL || (slash = strchr(s, '/')) == NULL || (size_t)(slash - s) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, slash - s);
	buf[slash - s] = '\0';
	/* 1..3 decimal digits, nothing else: no sign, space or suffix. */
	for (p = slash + 1; *p; p++) {
		if (*p < '0' || *p > '9' || p - slash > 3)
			return -EINVAL;
		len = len * 10 + (unsigned)(*p - '0');
	}
	if (p == slash + 1 || config_parse_addr(buf, &out->addr) != 0)
		goto invalid;
	max = out->addr.family == AF_INET ? 32 : 128;
	if (len > (unsigned)max)
		goto invalid;
	out->len = (uint8_t)len;
	return 0;
invalid:
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

char *config_format_addr(const struct cfg_addr *a, char *buf, size_t len)
{
	struct in_addr a4;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (a->family == AF_INET) {
		a4.s_addr = htonl(a->v4);
		if (inet_ntop(AF_INET, &a4, buf, len) == NULL)
			buf[0] = '\0';
	} else if (a->family == AF_INET6) {
		if (inet_ntop(AF_INET6, a->v6, buf, len) == NULL)
			buf[0] = '\0';
	}
	return buf;
}

char *config_format_prefix(const struct cfg_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	snprintf(buf, len, "%s/%u", config_format_addr(&p->addr, a, sizeof(a)), p->len);
	return buf;
}

/* @p with every bit past its length cleared: the network it names. */
static struct cfg_addr prefix_network(const struct cfg_prefix *p)
{
	struct cfg_addr n = p->addr;
	int i;

	if (n.family == AF_INET) {
		n.v4 = p->len == 0 ? 0 : n.v4 & (0xffffffffu << (32 - p->len));
		return n;
	}
	for (i = 0; i < 16; i++) {
		int keep = p->len - 8 * i;

		if (keep <= 0)
			n.v6[i] = 0;
		else if (keep < 8)
			n.v6[i] &= (uint8_t)(0xff << (8 - keep));
	}
	return n;
}

static bool addr_equal(const struct cfg_addr *a, const struct cfg_addr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->v4 == b->v4;
	return memcmp(a->v6, b->v6, 16) == 0;
}

bool config_prefix_contains(const struct cfg_prefix *p, const struct cfg_addr *a)
{
	struct cfg_prefix q = { .addr = *a, .len = p->len };
	struct cfg_addr na, np;

	if (a->family != p->addr.family)
		return false;
	na = prefix_network(&q);
	np = prefix_network(p);
	return addr_equal(&na, &np);
}

static const char *family_name(int family)
{
	return family == AF_INET ? "IPv4" : "IPv6";
}

/* fe80::/10 (RFC 4291 §2.5.6): reachable on any link, so it needs an interface. */
static bool is_link_local6(const struct cfg_addr *a)
{
	return a->family == AF_INET6 && a->v6[0] == 0xfe && (a->v6[1] & 0xc0) == 0x80;
}

/* ---- top level: instance, control ---------------------------------------- */

static void load_control(struct loader *ld, const config_setting_t *root)
{
	static const char *const keys[] = { "socket", NULL };
	const config_setting_t *g = get_typed(ld, root, "control", CONFIG_TYPE_GROUP);
	struct vbrd_config *cfg = ld->cfg;

	if (get_name(ld, root, "instance", cfg->instance, NULL) != VAL_OK)
		strcpy(cfg->instance, "vbrd");
	if (g != NULL) {
		check_members(ld, g, keys);
		if (get_text(ld, g, "socket", cfg->socket, sizeof(cfg->socket)) == VAL_OK)
			return;
	}
	snprintf(cfg->socket, sizeof(cfg->socket), "/run/vbrd/%s.sock", cfg->instance);
}

/* ---- lists of groups ------------------------------------------------------- */

typedef void (*elem_fn)(struct loader *ld, const config_setting_t *s, int idx);

/* How one top-level list of groups (ports, interfaces, routes, ...) loads. */
struct list_spec {
	const char *name; /* the setting, and the word in count messages */
	int min, max;     /* element count; max 0: no limit */
	bool required;
	size_t size; /* bytes of one element */
	elem_fn one; /* loads element idx from its group */
	elem_fn bad; /* marks element idx unusable (not a group); may be NULL */
};

/*
 * Load list @spec->name of @root into a new array *@arr of *@nb elements:
 * the count is checked (and clamped to max), every group element goes to
 * spec->one, every other element is reported and handed to spec->bad.
 * Returns 0 or -ENOMEM.
 */
static int load_list(struct loader *ld, const config_setting_t *root, const struct list_spec *spec,
		     void **arr, int *nb)
{
	const config_setting_t *list = get_typed(ld, root, spec->name, CONFIG_TYPE_LIST);
	int n;

	if (list == NULL) {
		if (spec->required && config_setting_get_member(root, spec->name) == NULL)
			err_missing(ld, root, spec->name);
		return 0;
	}
	n = config_setting_length(list);
	if (n < spec->min || (spec->max && n > spec->max)) {
		err_set(ld, list, "%d %s, expected %d..%d", n, spec->name, spec->min, spec->max);
		if (spec->max && n > spec->max)
			n = spec->max;
	}
	if (n <= 0)
		return 0;
	*arr = calloc((size_t)n, spec->size);
	if (*arr == NULL)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);

		(*nb)++;
		if (config_setting_type(e) != CONFIG_TYPE_GROUP) {
			err_set(ld, e, "expected a group { ... }, got %s", type_name(e));
			if (spec->bad)
				spec->bad(ld, e, i);
			continue;
		}
		spec->one(ld, e, i);
	}
	return 0;
}

/* ---- ports ------------------------------------------------------------------ */

static void load_port(struct loader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name",    "devargs", "rx_queues",   "rx_desc",
					    "tx_desc", "mtu",     "promiscuous", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_port *p = &cfg->ports[idx];
	int j;

	p->rx_queues = 0;
	p->rx_desc = 1024;
	p->tx_desc = 1024;
	p->mtu = 1500;
	p->promiscuous = true;
	p->line = setting_line(s);
	check_members(ld, s, keys);

	if (get_name(ld, s, "name", p->name, &ld->port_name_line[idx]) == VAL_ABSENT)
		err_missing(ld, s, "name");
	for (j = 0; p->name[0] && j < idx; j++)
		if (strcmp(cfg->ports[j].name, p->name) == 0) {
			err_at(ld, config_setting_get_member(s, "name"),
			       "duplicate port name '%s' (first at line %d)", p->name,
			       ld->port_name_line[j]);
			p->name[0] = '\0'; /* references resolve to the first one */
			break;
		}
	if (get_text(ld, s, "devargs", p->devargs, sizeof(p->devargs)) == VAL_ABSENT)
		err_missing(ld, s, "devargs");
	get_u16(ld, s, "rx_queues", 1, CFG_MAX_WORKERS, &p->rx_queues);
	get_u16(ld, s, "rx_desc", 32, 16384, &p->rx_desc);
	get_u16(ld, s, "tx_desc", 32, 16384, &p->tx_desc);
	if (get_u16(ld, s, "mtu", CFG_MTU_MIN, CFG_MTU_MAX, &p->mtu) == VAL_BAD)
		ld->port_bad[idx] = true;
	get_bool(ld, s, "promiscuous", &p->promiscuous);
}

static void bad_port(struct loader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->ports[idx].line = setting_line(s);
	ld->port_bad[idx] = true;
}

static int load_ports(struct loader *ld, const config_setting_t *root)
{
	static const struct list_spec spec = {
		"ports", 1, CFG_MAX_PORTS, true, sizeof(struct cfg_port), load_port, bad_port,
	};
	return load_list(ld, root, &spec, (void **)&ld->cfg->ports, &ld->cfg->nb_ports);
}

/* ---- interfaces ------------------------------------------------------------ */

/* Add one interface address from setting @s (a string) to @ifc. */
/*
 * Why @a cannot be an address of this router (RFC 1122 §3.2.1.3, RFC 4291
 * §2.5.2-2.7): unspecified, loopback, multicast or limited broadcast; NULL
 * when it can.
 */
static const char *unusable_addr(const struct cfg_addr *a)
{
	if (a->family == AF_INET) {
		uint8_t top = (uint8_t)(a->v4 >> 24);
		if (top == 0)
			return "in 0.0.0.0/8 (this network)";
		if (top == 127)
			return "a loopback address";
		if (top >= 224 && a->v4 != 0xffffffff)
			return top < 240 ? "a multicast address" : "in the reserved 240.0.0.0/4";
		if (a->v4 == 0xffffffff)
			return "the limited broadcast address";
		return NULL;
	}
	static const uint8_t zero[16], loop[16] = { [15] = 1 };
	if (memcmp(a->v6, zero, 16) == 0)
		return "the unspecified address";
	if (memcmp(a->v6, loop, 16) == 0)
		return "the loopback address";
	if (a->v6[0] == 0xff)
		return "a multicast address";
	return NULL;
}

static void load_iface_addr(struct loader *ld, const config_setting_t *s, int idx)
{
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_iface *ifc = &cfg->ifaces[idx];
	struct cfg_prefix p;
	char a[INET6_ADDRSTRLEN];
	const char *v;
	int i, j;

	if (string_value(ld, s, &v) != VAL_OK)
		goto bad;
	if (config_parse_prefix(v, &p) != 0) {
		err_set(ld, s, "'%s' is not a valid ADDRESS/LENGTH (IPv4 /0..32, IPv6 /0..128)", v);
		goto bad;
	}
	const char *why = unusable_addr(&p.addr);
	if (why != NULL) {
		err_set(ld, s, "%s is %s, not an interface address", v, why);
		goto bad;
	}
	for (i = 0; i <= idx; i++)
		for (j = 0; j < cfg->ifaces[i].nb_addrs; j++)
			if (addr_equal(&cfg->ifaces[i].addrs[j].addr, &p.addr)) {
				err_set(ld, s, "address %s is already on interface '%s' (line %d)",
					config_format_addr(&p.addr, a, sizeof(a)),
					cfg->ifaces[i].name, cfg->ifaces[i].line);
				goto bad;
			}
	ifc->addrs[ifc->nb_addrs++] = p;
	return;
bad:
	ld->iface_bad[idx] = true;
}

static void load_iface_addrs(struct loader *ld, const config_setting_t *s, int idx)
{
	const config_setting_t *one = config_setting_get_member(s, "address");
	const config_setting_t *many = config_setting_get_member(s, "addresses");
	char path[128];
	int i, n;

	if (one != NULL && many != NULL) {
		err_at(ld, many, "%s: 'address' and 'addresses' are mutually exclusive",
		       setting_path(s, path, sizeof(path)));
		ld->iface_bad[idx] = true;
		return;
	}
	if (one != NULL) {
		load_iface_addr(ld, one, idx);
		return;
	}
	if (many == NULL) {
		err_missing(ld, s, "address");
		ld->iface_bad[idx] = true;
		return;
	}
	if (!is_sequence(many)) {
		err_set(ld, many, "expected an array [ ... ] of strings, got %s", type_name(many));
		ld->iface_bad[idx] = true;
		return;
	}
	n = config_setting_length(many);
	if (n < 1 || n > CFG_MAX_ADDRS) {
		err_set(ld, many, "%d addresses, expected 1..%d", n, CFG_MAX_ADDRS);
		ld->iface_bad[idx] = true;
		if (n == 0)
			return;
		n = CFG_MAX_ADDRS;
	}
	for (i = 0; i < n; i++)
		load_iface_addr(ld, config_setting_get_elem(many, i), idx);
}

static void load_iface(struct loader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name",    "port",      "vlan", "mtu",
					    "address", "addresses", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_iface *ifc = &cfg->ifaces[idx];
	const config_setting_t *ps, *ms;
	const char *port = NULL;
	int j, rc, mtu_rc;

	ifc->port = -1;
	ifc->line = setting_line(s);
	check_members(ld, s, keys);

	if (get_name(ld, s, "name", ifc->name, &ld->iface_name_line[idx]) == VAL_ABSENT)
		err_missing(ld, s, "name");
	for (j = 0; ifc->name[0] && j < idx; j++)
		if (strcmp(cfg->ifaces[j].name, ifc->name) == 0) {
			err_at(ld, config_setting_get_member(s, "name"),
			       "duplicate interface name '%s' (first at line %d)", ifc->name,
			       ld->iface_name_line[j]);
			ifc->name[0] = '\0';
			break;
		}

	rc = get_string(ld, s, "port", &port);
	ps = config_setting_get_member(s, "port");
	if (rc == VAL_ABSENT)
		err_missing(ld, s, "port");
	else if (rc == VAL_OK && (ifc->port = config_port_index(cfg, port)) < 0)
		err_set(ld, ps, "unknown port '%s'", port);

	rc = get_u16(ld, s, "vlan", 1, 4094, &ifc->vlan);
	mtu_rc = get_u16(ld, s, "mtu", CFG_MTU_MIN, CFG_MTU_MAX, &ifc->mtu);

	if (ifc->port >= 0 && rc != VAL_BAD) {
		/* The data path finds the interface by (port, VLAN): it must be unique. */
		for (j = 0; j < idx; j++) {
			const struct cfg_iface *o = &cfg->ifaces[j];

			if (o->port != ifc->port || o->vlan != ifc->vlan)
				continue;
			if (ifc->vlan)
				err_at(ld, config_setting_get_member(s, "vlan"),
				       "duplicate interface on port '%s' VLAN %u (first at line "
				       "%d: '%s')",
				       port, ifc->vlan, o->line, o->name);
			else
				err_at(ld, s,
				       "duplicate untagged interface on port '%s' (first at line "
				       "%d: '%s')",
				       port, o->line, o->name);
			break;
		}
	}
	if (ifc->port >= 0 && !ld->port_bad[ifc->port]) {
		const struct cfg_port *p = &cfg->ports[ifc->port];

		ms = config_setting_get_member(s, "mtu");
		if (mtu_rc == VAL_OK && ifc->mtu > p->mtu)
			err_set(ld, ms, "%u exceeds the MTU %u of port '%s'", ifc->mtu, p->mtu,
				p->name);
		else if (mtu_rc != VAL_OK)
			ifc->mtu = p->mtu;
	}
	load_iface_addrs(ld, s, idx);
}

static void bad_iface(struct loader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->ifaces[idx].port = -1;
	ld->cfg->ifaces[idx].line = setting_line(s);
	ld->iface_bad[idx] = true;
}

static int load_ifaces(struct loader *ld, const config_setting_t *root)
{
	static const struct list_spec spec = {
		"interfaces", 0,         CFG_MAX_IFACES, false, sizeof(struct cfg_iface),
		load_iface,   bad_iface,
	};
	return load_list(ld, root, &spec, (void **)&ld->cfg->ifaces, &ld->cfg->nb_ifaces);
}

/* ---- routes ----------------------------------------------------------------- */

/*
 * Interface whose connected subnet holds @a (longest prefix wins), limited to
 * interface @only when it is >= 0. Returns the index, or -1; *own is set when
 * @a is one of the interface's own addresses.
 */
static int find_connected(const struct vbrd_config *cfg, const struct cfg_addr *a, int only,
			  int *own)
{
	int i, j, best = -1, best_len = -1;

	*own = -1;
	for (i = 0; i < cfg->nb_ifaces; i++) {
		const struct cfg_iface *ifc = &cfg->ifaces[i];

		if (only >= 0 && i != only)
			continue;
		for (j = 0; j < ifc->nb_addrs; j++) {
			if (addr_equal(&ifc->addrs[j].addr, a))
				*own = i;
			if (config_prefix_contains(&ifc->addrs[j], a) &&
			    ifc->addrs[j].len > best_len) {
				best = i;
				best_len = ifc->addrs[j].len;
			}
		}
	}
	return best;
}

static bool any_iface_bad(const struct loader *ld)
{
	int i;

	for (i = 0; i < ld->cfg->nb_ifaces; i++)
		if (ld->iface_bad[i])
			return true;
	return false;
}

/*
 * One next hop: gateway string @vs (setting @s), optional interface setting
 * @is. @pfx is the route prefix, or NULL when it was invalid.
 */
static void load_nexthop(struct loader *ld, struct cfg_route *r, const struct cfg_prefix *pfx,
			 const config_setting_t *s, const config_setting_t *is)
{
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_nexthop nh = { .iface = -1 };
	char a[INET6_ADDRSTRLEN];
	const char *v, *ifname = NULL;
	int i, found, own;

	if (string_value(ld, s, &v) != VAL_OK)
		return;
	if (is != NULL) {
		if (string_value(ld, is, &ifname) != VAL_OK)
			return;
		if ((nh.iface = config_iface_index(cfg, ifname)) < 0) {
			err_set(ld, is, "unknown interface '%s'", ifname);
			return;
		}
	}
	if (config_parse_addr(v, &nh.via) != 0) {
		err_set(ld, s, "'%s' is not a valid IPv4 or IPv6 address", v);
		return;
	}
	if (pfx != NULL && nh.via.family != pfx->addr.family) {
		err_set(ld, s, "%s is %s but the prefix is %s", v, family_name(nh.via.family),
			family_name(pfx->addr.family));
		return;
	}
	for (i = 0; i < r->nb_nexthops; i++)
		if (addr_equal(&r->nexthops[i].via, &nh.via) &&
		    (nh.iface < 0 || r->nexthops[i].iface == nh.iface)) {
			err_set(ld, s, "duplicate next hop %s", v);
			return;
		}

	found = find_connected(cfg, &nh.via, nh.iface, &own);
	if (own >= 0) {
		err_set(ld, s, "%s is an address of interface '%s' itself", v,
			cfg->ifaces[own].name);
		return;
	}
	if (is_link_local6(&nh.via)) {
		/* A link-local gateway lies on every link: only the interface says which. */
		if (nh.iface < 0) {
			err_set(ld, s, "link-local gateway %s needs an 'interface' (use next_hops)",
				v);
			return;
		}
		found = nh.iface;
	}
	if (found < 0 && !(ifname ? ld->iface_bad[nh.iface] : any_iface_bad(ld))) {
		if (ifname)
			err_set(ld, s, "%s is not in a connected subnet of interface '%s'",
				config_format_addr(&nh.via, a, sizeof(a)), ifname);
		else
			err_set(ld, s, "%s is not in a connected subnet",
				config_format_addr(&nh.via, a, sizeof(a)));
		return;
	}
	nh.iface = found;
	r->nexthops[r->nb_nexthops++] = nh;
}

/* `via = "A"` or `via = [ "A", "B" ]`. */
static void load_via(struct loader *ld, struct cfg_route *r, const struct cfg_prefix *pfx,
		     const config_setting_t *via)
{
	int i, n;

	if (config_setting_type(via) == CONFIG_TYPE_STRING) {
		load_nexthop(ld, r, pfx, via, NULL);
		return;
	}
	if (!is_sequence(via)) {
		err_set(ld, via, "expected a string or an array [ ... ] of strings, got %s",
			type_name(via));
		return;
	}
	n = config_setting_length(via);
	if (n < 1 || n > CFG_MAX_ECMP) {
		err_set(ld, via, "%d next hops, expected 1..%d", n, CFG_MAX_ECMP);
		n = n > CFG_MAX_ECMP ? CFG_MAX_ECMP : 0;
	}
	for (i = 0; i < n; i++)
		load_nexthop(ld, r, pfx, config_setting_get_elem(via, i), NULL);
}

/* `next_hops = ( { via = "A"; interface = "lan0"; }, ... )`. */
static void load_next_hops(struct loader *ld, struct cfg_route *r, const struct cfg_prefix *pfx,
			   const config_setting_t *list)
{
	static const char *const keys[] = { "via", "interface", NULL };
	int i, n;

	if (config_setting_type(list) != CONFIG_TYPE_LIST) {
		err_set(ld, list, "expected a list ( { via = ...; }, ... ), got %s",
			type_name(list));
		return;
	}
	n = config_setting_length(list);
	if (n < 1 || n > CFG_MAX_ECMP) {
		err_set(ld, list, "%d next hops, expected 1..%d", n, CFG_MAX_ECMP);
		n = n > CFG_MAX_ECMP ? CFG_MAX_ECMP : 0;
	}
	for (i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(list, i), *via;

		if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
			err_set(ld, g, "expected a group { ... }, got %s", type_name(g));
			continue;
		}
		check_members(ld, g, keys);
		via = config_setting_get_member(g, "via");
		if (via == NULL) {
			err_missing(ld, g, "via");
			continue;
		}
		load_nexthop(ld, r, pfx, via, config_setting_get_member(g, "interface"));
	}
}

static void load_route(struct loader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "prefix", "via", "next_hops", "path_group", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_route *r = &cfg->routes[idx];
	const config_setting_t *pg = config_setting_get_member(s, "path_group");
	const config_setting_t *ps = config_setting_get_member(s, "prefix");
	const config_setting_t *via = config_setting_get_member(s, "via");
	const config_setting_t *nhs = config_setting_get_member(s, "next_hops");
	const struct cfg_prefix *pfx = NULL;
	char path[128], p1[INET6_ADDRSTRLEN + 4];
	const char *v;

	r->line = setting_line(s);
	r->path_group = -1;
	check_members(ld, s, keys);

	if (ps == NULL) {
		err_missing(ld, s, "prefix");
	} else if (string_value(ld, ps, &v) == VAL_OK) {
		if (config_parse_prefix(v, &r->prefix) != 0) {
			err_set(ld, ps,
				"'%s' is not a valid PREFIX/LENGTH (IPv4 /0..32, IPv6 /0..128)", v);
		} else {
			struct cfg_prefix net = { .addr = prefix_network(&r->prefix),
						  .len = r->prefix.len };

			if (!addr_equal(&net.addr, &r->prefix.addr)) {
				err_set(ld, ps, "%s has host bits set (did you mean %s?)", v,
					config_format_prefix(&net, p1, sizeof(p1)));
				r->prefix = net;
			}
			pfx = &r->prefix;
		}
	}
	if (pg != NULL && (via != NULL || nhs != NULL))
		err_at(ld, pg, "%s: 'path_group' excludes 'via' and 'next_hops'",
		       setting_path(s, path, sizeof(path)));
	else if (pg != NULL) {
		if (string_value(ld, pg, &v) == VAL_OK &&
		    (r->path_group = path_group_index(cfg, v)) < 0)
			err_set(ld, pg, "unknown path group '%s'", v);
	} else if (via != NULL && nhs != NULL)
		err_at(ld, nhs, "%s: 'via' and 'next_hops' are mutually exclusive",
		       setting_path(s, path, sizeof(path)));
	else if (via != NULL)
		load_via(ld, r, pfx, via);
	else if (nhs != NULL)
		load_next_hops(ld, r, pfx, nhs);
	else
		err_at(ld, s, "%s: missing required setting 'via' (or 'next_hops', 'path_group')",
		       setting_path(s, path, sizeof(path)));
}

/* Route order for finding duplicates: by prefix, then by line. */
static int route_cmp(const void *a, const void *b)
{
	const struct cfg_route *x = *(const struct cfg_route *const *)a;
	const struct cfg_route *y = *(const struct cfg_route *const *)b;
	int c;

	if (x->prefix.addr.family != y->prefix.addr.family)
		return x->prefix.addr.family - y->prefix.addr.family;
	if (x->prefix.addr.family == AF_INET)
		c = x->prefix.addr.v4 < y->prefix.addr.v4 ? -1
							  : x->prefix.addr.v4 > y->prefix.addr.v4;
	else
		c = memcmp(x->prefix.addr.v6, y->prefix.addr.v6, 16);
	if (c == 0)
		c = (int)x->prefix.len - (int)y->prefix.len;
	return c != 0 ? c : x->line - y->line;
}

/*
 * Duplicate prefixes, found by sorting (O(n log n): a full table of
 * hundreds of thousands of routes must load in well under a second).
 */
static int check_duplicate_routes(struct loader *ld)
{
	struct vbrd_config *cfg = ld->cfg;
	const struct cfg_route **v;
	char p[INET6_ADDRSTRLEN + 4];
	int n = 0;

	v = malloc(sizeof(*v) * (size_t)(cfg->nb_routes + 1));
	if (v == NULL)
		return -ENOMEM;
	for (int i = 0; i < cfg->nb_routes; i++)
		if (cfg->routes[i].prefix.addr.family) /* skip routes whose prefix was invalid */
			v[n++] = &cfg->routes[i];
	qsort(v, (size_t)n, sizeof(*v), route_cmp);
	for (int i = 1, first = 0; i < n; i++) {
		if (v[i]->prefix.len == v[first]->prefix.len &&
		    addr_equal(&v[i]->prefix.addr, &v[first]->prefix.addr)) {
			char text[256];
			snprintf(text, sizeof(text), "duplicate route %s (first at line %d)",
				 config_format_prefix(&v[i]->prefix, p, sizeof(p)), v[first]->line);
			add_msg(ld, ld->file, v[i]->line, text);
		} else {
			first = i;
		}
	}
	free(v);
	return 0;
}

static void bad_route(struct loader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->routes[idx].line = setting_line(s);
	ld->cfg->routes[idx].path_group = -1;
}

static int load_routes(struct loader *ld, const config_setting_t *root)
{
	static const struct list_spec spec = {
		"routes", 0, 0, false, sizeof(struct cfg_route), load_route, bad_route,
	};
	int rc = load_list(ld, root, &spec, (void **)&ld->cfg->routes, &ld->cfg->nb_routes);

	return rc < 0 ? rc : check_duplicate_routes(ld);
}

static int parse_mac(const char *s, uint8_t mac[6]);

/* ---- tunnels and path groups ------------------------------------------------ */

const char *config_tier_name(enum cfg_tier t)
{
	static const char *const names[] = { "gold", "silver", "bronze" };
	return (unsigned)t < 3 ? names[t] : "?";
}

static int tunnel_index(const struct vbrd_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->nb_tunnels; i++)
		if (strcmp(cfg->tunnels[i].name, name) == 0)
			return i;
	return -1;
}

static int path_group_index(const struct vbrd_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->nb_path_groups; i++)
		if (strcmp(cfg->path_groups[i].name, name) == 0)
			return i;
	return -1;
}

/* Required address setting @name of @grp. */
static int get_addr(struct loader *ld, const config_setting_t *grp, const char *name,
		    struct cfg_addr *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	const char *v;

	if (s == NULL) {
		err_missing(ld, grp, name);
		return VAL_ABSENT;
	}
	if (string_value(ld, s, &v) != VAL_OK)
		return VAL_BAD;
	if (config_parse_addr(v, out) != 0) {
		err_set(ld, s, "'%s' is not a valid IPv4 or IPv6 address", v);
		return VAL_BAD;
	}
	return VAL_OK;
}

static void load_tunnel(struct loader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name",      "type",      "vni", "local",
					    "remote",    "udp_port",  "mtu", "address",
					    "addresses", "inner_mac", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_tunnel *t = &cfg->tunnels[idx];
	const char *v;
	int rc, line;

	t->line = setting_line(s);
	check_members(ld, s, keys);
	rc = get_name(ld, s, "name", t->name, &line);
	if (rc == VAL_ABSENT)
		err_missing(ld, s, "name");
	if (rc == VAL_OK) {
		for (int j = 0; j < idx; j++)
			if (strcmp(cfg->tunnels[j].name, t->name) == 0)
				err_at(ld, config_setting_get_member(s, "name"),
				       "duplicate tunnel name '%s' (first at line %d)", t->name,
				       cfg->tunnels[j].line);
		if (config_iface_index(cfg, t->name) >= 0)
			err_at(ld, config_setting_get_member(s, "name"),
			       "tunnel name '%s' is already an interface name", t->name);
	}
	rc = get_string(ld, s, "type", &v);
	if (rc == VAL_ABSENT)
		err_missing(ld, s, "type");
	else if (rc == VAL_OK) {
		if (strcmp(v, "vxlan") == 0)
			t->type = CFG_TUNNEL_VXLAN;
		else if (strcmp(v, "geneve") == 0)
			t->type = CFG_TUNNEL_GENEVE;
		else
			err_set(ld, config_setting_get_member(s, "type"),
				"unknown tunnel type '%s' (vxlan or geneve)", v);
	}
	if (get_u32(ld, s, "vni", 0, 16777215, &t->vni) == VAL_ABSENT)
		err_missing(ld, s, "vni");
	t->udp_port = t->type == CFG_TUNNEL_GENEVE ? 6081 : 4789;
	get_u16(ld, s, "udp_port", 1, 65535, &t->udp_port);
	get_u16(ld, s, "mtu", CFG_MTU_MIN, CFG_MTU_MAX, &t->mtu);
	static const uint8_t def_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	memcpy(t->inner_mac, def_mac, 6);
	if (get_string(ld, s, "inner_mac", &v) == VAL_OK && parse_mac(v, t->inner_mac) != 0)
		err_set(ld, config_setting_get_member(s, "inner_mac"),
			"'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", v);

	bool l = get_addr(ld, s, "local", &t->local) == VAL_OK;
	bool r = get_addr(ld, s, "remote", &t->remote) == VAL_OK;
	char a[INET6_ADDRSTRLEN];
	const char *why;
	if (l && (why = unusable_addr(&t->local)) != NULL) {
		err_set(ld, config_setting_get_member(s, "local"), "%s is %s",
			config_format_addr(&t->local, a, sizeof(a)), why);
		l = false;
	}
	if (r && (why = unusable_addr(&t->remote)) != NULL) {
		err_set(ld, config_setting_get_member(s, "remote"), "%s is %s",
			config_format_addr(&t->remote, a, sizeof(a)), why);
		r = false;
	}
	if (l && r && addr_equal(&t->local, &t->remote)) {
		err_set(ld, config_setting_get_member(s, "remote"), "remote is the local address");
		r = false;
	}
	if (l) {
		/* vbrd answers on `local` (a /32 or /128 of its own): inside a
		 * connected subnet that would take a neighbor's address, unless it is
		 * the interface's own address. */
		int own, in = find_connected(cfg, &t->local, -1, &own);
		if (in >= 0 && own < 0)
			err_set(ld, config_setting_get_member(s, "local"),
				"%s lies in the subnet of interface '%s' but is not its address: "
				"it would take a neighbor's address",
				config_format_addr(&t->local, a, sizeof(a)), cfg->ifaces[in].name);
	}
	if (l && r && t->local.family != t->remote.family)
		err_set(ld, config_setting_get_member(s, "remote"), "remote is %s but local is %s",
			family_name(t->remote.family), family_name(t->local.family));
	if (r) {
		for (int j = 0; j < idx; j++)
			if (addr_equal(&cfg->tunnels[j].remote, &t->remote) &&
			    cfg->tunnels[j].vni == t->vni && cfg->tunnels[j].type == t->type)
				err_at(ld, config_setting_get_member(s, "remote"),
				       "tunnel to the same remote with the same VNI %u as '%s' "
				       "(line %d): decapsulation could not tell them apart",
				       t->vni, cfg->tunnels[j].name, cfg->tunnels[j].line);
	}

	/* Inner addresses, as for an interface. */
	const config_setting_t *as = config_setting_get_member(s, "address");
	const config_setting_t *al = config_setting_get_member(s, "addresses");
	if (as && al) {
		err_at(ld, al, "tunnels[%d]: 'address' and 'addresses' are mutually exclusive",
		       idx);
		return;
	}
	if (as) {
		if (string_value(ld, as, &v) == VAL_OK) {
			if (config_parse_prefix(v, &t->addrs[0]) != 0)
				err_set(ld, as,
					"'%s' is not a valid ADDRESS/LENGTH (IPv4 /0..32, "
					"IPv6 /0..128)",
					v);
			else
				t->nb_addrs = 1;
		}
	} else if (al) {
		int n = config_setting_length(al);
		if (!is_sequence(al) || n < 1 || n > CFG_MAX_ADDRS) {
			err_set(ld, al, "expected an array [ ... ] of 1..%d addresses",
				CFG_MAX_ADDRS);
			return;
		}
		for (int k = 0; k < n; k++) {
			const config_setting_t *e = config_setting_get_elem(al, k);
			if (string_value(ld, e, &v) != VAL_OK)
				continue;
			if (config_parse_prefix(v, &t->addrs[t->nb_addrs]) != 0)
				err_set(ld, e, "'%s' is not a valid ADDRESS/LENGTH", v);
			else
				t->nb_addrs++;
		}
	}
}

static void load_path(struct loader *ld, const config_setting_t *s, struct cfg_path_group *g, int k)
{
	static const char *const keys[] = { "name",  "tunnel", "interface", "via",
					    "plane", "tier",   "cost",      NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_path *p = &g->paths[k];
	const char *v;
	char a[INET6_ADDRSTRLEN];
	int rc, own;

	p->line = setting_line(s);
	p->tunnel = p->iface = -1;
	p->plane = -1;
	check_members(ld, s, keys);
	rc = get_name(ld, s, "name", p->name, NULL);
	if (rc == VAL_ABSENT)
		err_missing(ld, s, "name");
	else if (rc == VAL_OK)
		for (int j = 0; j < k; j++)
			if (strcmp(g->paths[j].name, p->name) == 0)
				err_at(ld, config_setting_get_member(s, "name"),
				       "duplicate path name '%s' in group '%s' (first at line %d)",
				       p->name, g->name, g->paths[j].line);
	rc = get_string(ld, s, "tunnel", &v);
	if (rc == VAL_ABSENT)
		err_missing(ld, s, "tunnel");
	else if (rc == VAL_OK && (p->tunnel = tunnel_index(cfg, v)) < 0)
		err_set(ld, config_setting_get_member(s, "tunnel"), "unknown tunnel '%s'", v);
	rc = get_string(ld, s, "interface", &v);
	if (rc == VAL_ABSENT)
		err_missing(ld, s, "interface");
	else if (rc == VAL_OK && (p->iface = config_iface_index(cfg, v)) < 0)
		err_set(ld, config_setting_get_member(s, "interface"), "unknown interface '%s'", v);
	uint32_t plane;
	if (get_u32(ld, s, "plane", 0, 65535 - CFG_PLANE_BASE, &plane) == VAL_OK)
		p->plane = (int)plane;
	get_u32(ld, s, "cost", 0, 65535, &p->cost);
	if (get_string(ld, s, "tier", &v) == VAL_OK) {
		if (strcmp(v, "gold") == 0)
			p->tier = CFG_TIER_GOLD;
		else if (strcmp(v, "silver") == 0)
			p->tier = CFG_TIER_SILVER;
		else if (strcmp(v, "bronze") == 0)
			p->tier = CFG_TIER_BRONZE;
		else
			err_set(ld, config_setting_get_member(s, "tier"),
				"unknown tier '%s' (gold, silver or bronze)", v);
	}
	if (get_addr(ld, s, "via", &p->via) != VAL_OK || p->iface < 0)
		return;
	const config_setting_t *vs = config_setting_get_member(s, "via");
	if (p->tunnel >= 0 && cfg->tunnels[p->tunnel].remote.family &&
	    cfg->tunnels[p->tunnel].remote.family != p->via.family) {
		err_set(ld, vs, "%s is %s but tunnel '%s' runs over %s",
			config_format_addr(&p->via, a, sizeof(a)), family_name(p->via.family),
			cfg->tunnels[p->tunnel].name,
			family_name(cfg->tunnels[p->tunnel].remote.family));
		return;
	}
	if (find_connected(cfg, &p->via, p->iface, &own) < 0 && !ld->iface_bad[p->iface])
		err_set(ld, vs, "%s is not in a connected subnet of interface '%s'",
			config_format_addr(&p->via, a, sizeof(a)), cfg->ifaces[p->iface].name);
}

static void load_path_group(struct loader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name", "paths", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_path_group *g = &cfg->path_groups[idx];
	const config_setting_t *ps;
	int rc, n;

	g->line = setting_line(s);
	check_members(ld, s, keys);
	rc = get_name(ld, s, "name", g->name, NULL);
	if (rc == VAL_ABSENT)
		err_missing(ld, s, "name");
	else if (rc == VAL_OK)
		for (int j = 0; j < idx; j++)
			if (strcmp(cfg->path_groups[j].name, g->name) == 0)
				err_at(ld, config_setting_get_member(s, "name"),
				       "duplicate path group name '%s' (first at line %d)", g->name,
				       cfg->path_groups[j].line);
	ps = get_typed(ld, s, "paths", CONFIG_TYPE_LIST);
	if (config_setting_get_member(s, "paths") == NULL) {
		err_missing(ld, s, "paths");
		return;
	}
	if (ps == NULL)
		return;
	n = config_setting_length(ps);
	if (n < 1 || n > CFG_MAX_PATHS) {
		err_set(ld, ps, "%d paths, expected 1..%d", n, CFG_MAX_PATHS);
		return;
	}
	for (int k = 0; k < n; k++) {
		const config_setting_t *e = config_setting_get_elem(ps, k);
		g->nb_paths++;
		if (config_setting_type(e) != CONFIG_TYPE_GROUP) {
			err_set(ld, e, "expected a group { ... }, got %s", type_name(e));
			g->paths[k].tunnel = g->paths[k].iface = -1;
			continue;
		}
		load_path(ld, e, g, k);
	}
}

static void bad_path_group(struct loader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->path_groups[idx].line = setting_line(s);
}

static void bad_tunnel(struct loader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->tunnels[idx].line = setting_line(s);
}

static int load_tunnels(struct loader *ld, const config_setting_t *root)
{
	static const struct list_spec tunnels = {
		"tunnels",   0,          CFG_MAX_TUNNELS, false, sizeof(struct cfg_tunnel),
		load_tunnel, bad_tunnel,
	};
	static const struct list_spec groups = {
		"path_groups",
		0,
		CFG_MAX_GROUPS,
		false,
		sizeof(struct cfg_path_group),
		load_path_group,
		bad_path_group,
	};
	struct vbrd_config *cfg = ld->cfg;
	int rc = load_list(ld, root, &tunnels, (void **)&cfg->tunnels, &cfg->nb_tunnels);

	return rc < 0 ? rc
		      : load_list(ld, root, &groups, (void **)&cfg->path_groups,
				  &cfg->nb_path_groups);
}

/* ---- static neighbors ------------------------------------------------------ */

/* "02:00:00:00:00:01": six pairs of hex digits separated by ':'. */
static int parse_mac(const char *s, uint8_t mac[6])
{
	int i, k;

	for (i = 0; i < 6; i++) {
		unsigned v = 0;

		for (k = 0; k < 2; k++, s++) {
			if (*s >= '0' && *s <= '9')
				v = v * 16 + (unsigned)(*s - '0');
			else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
				v = v * 16 + (unsigned)((*s | 0x20) - 'a' + 10);
			else
				return -EINVAL;
		}
		mac[i] = (uint8_t)v;
		if (*s != (i < 5 ? ':' : '\0'))
			return -EINVAL;
		s++;
	}
	return 0;
}

static void load_neighbor(struct loader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "interface", "address", "mac", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct cfg_neighbor *nb = &cfg->neighbors[idx];
	const config_setting_t *as = config_setting_get_member(s, "address");
	const config_setting_t *ms = config_setting_get_member(s, "mac");
	const char *ifname = NULL, *v;
	char a[INET6_ADDRSTRLEN];
	int j, own, rc;

	nb->iface = -1;
	nb->line = setting_line(s);
	check_members(ld, s, keys);

	rc = get_string(ld, s, "interface", &ifname);
	if (rc == VAL_ABSENT)
		err_missing(ld, s, "interface");
	else if (rc == VAL_OK && (nb->iface = config_iface_index(cfg, ifname)) < 0)
		err_set(ld, config_setting_get_member(s, "interface"), "unknown interface '%s'",
			ifname);

	if (ms == NULL)
		err_missing(ld, s, "mac");
	else if (string_value(ld, ms, &v) == VAL_OK) {
		if (parse_mac(v, nb->mac) != 0)
			err_set(ld, ms, "'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", v);
		else if (nb->mac[0] & 1)
			err_set(ld, ms, "%s is a multicast MAC address", v);
	}

	if (as == NULL) {
		err_missing(ld, s, "address");
		return;
	}
	if (string_value(ld, as, &v) != VAL_OK)
		return;
	if (config_parse_addr(v, &nb->addr) != 0) {
		err_set(ld, as, "'%s' is not a valid IPv4 or IPv6 address", v);
		return;
	}
	if (nb->iface < 0)
		return;
	if (find_connected(cfg, &nb->addr, nb->iface, &own) < 0 && !is_link_local6(&nb->addr) &&
	    !ld->iface_bad[nb->iface]) {
		err_set(ld, as, "%s is not in a connected subnet of interface '%s'",
			config_format_addr(&nb->addr, a, sizeof(a)), ifname);
		return;
	}
	if (own >= 0) {
		err_set(ld, as, "%s is an address of interface '%s' itself", v, ifname);
		return;
	}
	for (j = 0; j < idx; j++)
		if (cfg->neighbors[j].iface == nb->iface &&
		    addr_equal(&cfg->neighbors[j].addr, &nb->addr)) {
			err_at(ld, as, "duplicate neighbor %s on interface '%s' (first at line %d)",
			       config_format_addr(&nb->addr, a, sizeof(a)), ifname,
			       cfg->neighbors[j].line);
			break;
		}
}

static void bad_neighbor(struct loader *ld, const config_setting_t *s, int idx)
{
	ld->cfg->neighbors[idx].iface = -1;
	ld->cfg->neighbors[idx].line = setting_line(s);
}

static int load_neighbors(struct loader *ld, const config_setting_t *root)
{
	static const struct list_spec spec = {
		"neighbors", 0, 0, false, sizeof(struct cfg_neighbor), load_neighbor, bad_neighbor,
	};
	return load_list(ld, root, &spec, (void **)&ld->cfg->neighbors, &ld->cfg->nb_neighbors);
}

/* ---- workers, mempool, neighbor, icmp, eal --------------------------------- */

static void load_cores(struct loader *ld, const config_setting_t *s)
{
	struct vbrd_config *cfg = ld->cfg;
	int i, j, n, nb = 0;
	long long v;

	if (!is_sequence(s)) {
		err_set(ld, s, "expected an array [ ... ] of CPU ids, got %s", type_name(s));
		return;
	}
	n = config_setting_length(s);
	if (n < 1 || n > CFG_MAX_WORKERS) {
		err_set(ld, s, "%d cores, expected 1..%d", n, CFG_MAX_WORKERS);
		return;
	}
	for (i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, i);

		if (int_value(ld, e, 0, CFG_MAX_CPU_ID, &v) != VAL_OK)
			continue;
		for (j = 0; j < nb; j++)
			if (cfg->workers.cores[j] == (unsigned)v)
				break;
		if (j < nb) {
			err_set(ld, e, "duplicate core %lld", v);
			continue;
		}
		cfg->workers.cores[nb++] = (unsigned)v;
	}
	cfg->workers.nb_cores = nb;
}

static void load_workers(struct loader *ld, const config_setting_t *root)
{
	static const char *const keys[] = { "cores", "burst", "idle_sleep_us", NULL };
	const config_setting_t *g = get_typed(ld, root, "workers", CONFIG_TYPE_GROUP);
	struct vbrd_config *cfg = ld->cfg;
	const config_setting_t *cores;

	cfg->workers.nb_cores = 1;
	cfg->workers.cores[0] = 1;
	cfg->workers.idle_sleep_us = 0;
	cfg->workers.burst = 32;
	if (g == NULL)
		return;
	check_members(ld, g, keys);
	cores = config_setting_get_member(g, "cores");
	if (cores != NULL)
		load_cores(ld, cores);
	get_u32(ld, g, "burst", 1, 256, &cfg->workers.burst);
	get_u32(ld, g, "idle_sleep_us", 0, 1000000, &cfg->workers.idle_sleep_us);
}

static void load_mempool(struct loader *ld, const config_setting_t *root)
{
	static const char *const keys[] = { "mbufs", "cache", NULL };
	const config_setting_t *g = get_typed(ld, root, "mempool", CONFIG_TYPE_GROUP);
	struct vbrd_config *cfg = ld->cfg;

	cfg->mempool.mbufs = 16383;
	cfg->mempool.cache = 256;
	if (g == NULL)
		return;
	check_members(ld, g, keys);
	if (get_u32(ld, g, "mbufs", 1023, 16777215, &cfg->mempool.mbufs) == VAL_BAD)
		return;
	/* rte_mempool_create() refuses a cache whose flush threshold (1.5 x) exceeds the pool. */
	if (get_u32(ld, g, "cache", 0, 512, &cfg->mempool.cache) == VAL_OK &&
	    (uint64_t)cfg->mempool.cache * 3 / 2 > cfg->mempool.mbufs)
		err_set(ld, config_setting_get_member(g, "cache"),
			"%u is too large for %u mbufs (1.5 x cache must not exceed mbufs)",
			cfg->mempool.cache, cfg->mempool.mbufs);
}

static void load_misc(struct loader *ld, const config_setting_t *root)
{
	static const char *const nkeys[] = { "reachable_s", "retries", "retry_ms", "hold_packets",
					     NULL };
	static const char *const ikeys[] = { "rate_pps", "burst", NULL };
	static const char *const ekeys[] = { "hugepages", "memory_mb", NULL };
	struct vbrd_config *cfg = ld->cfg;
	const config_setting_t *g;

	cfg->neighbor.reachable_s = 300;
	cfg->neighbor.retries = 3;
	cfg->neighbor.retry_ms = 1000;
	cfg->neighbor.hold_packets = 4;
	g = get_typed(ld, root, "neighbor", CONFIG_TYPE_GROUP);
	if (g != NULL) {
		check_members(ld, g, nkeys);
		get_u32(ld, g, "reachable_s", 1, 86400, &cfg->neighbor.reachable_s);
		get_u32(ld, g, "retries", 1, 100, &cfg->neighbor.retries);
		get_u32(ld, g, "retry_ms", 10, 60000, &cfg->neighbor.retry_ms);
		get_u32(ld, g, "hold_packets", 1, 256, &cfg->neighbor.hold_packets);
	}

	cfg->icmp.rate_pps = 100;
	cfg->icmp.burst = 50;
	g = get_typed(ld, root, "icmp", CONFIG_TYPE_GROUP);
	if (g != NULL) {
		check_members(ld, g, ikeys);
		get_u32(ld, g, "rate_pps", 1, 1000000, &cfg->icmp.rate_pps);
		get_u32(ld, g, "burst", 1, 1000000, &cfg->icmp.burst);
	}

	cfg->eal.hugepages = true;
	cfg->eal.memory_mb = 1024;
	g = get_typed(ld, root, "eal", CONFIG_TYPE_GROUP);
	if (g != NULL) {
		const config_setting_t *m = config_setting_get_member(g, "memory_mb");

		cfg->eal.line = setting_line(m != NULL ? m : g);
		check_members(ld, g, ekeys);
		get_bool(ld, g, "hugepages", &cfg->eal.hugepages);
		get_u32(ld, g, "memory_mb", 64, 1048576, &cfg->eal.memory_mb);
	}
}

/* ---- entry points ------------------------------------------------------------ */

/* Everything after a successful parse. Returns 0 or -ENOMEM. */
static int load_all(struct loader *ld, const config_setting_t *root)
{
	static const char *const keys[] = { "instance", "control",     "ports",    "interfaces",
					    "tunnels",  "path_groups", "routes",   "neighbors",
					    "workers",  "mempool",     "neighbor", "icmp",
					    "eal",      NULL };
	int rc;

	check_members(ld, root, keys);
	load_control(ld, root);
	rc = load_ports(ld, root);
	if (rc == 0)
		rc = load_ifaces(ld, root);
	if (rc == 0)
		rc = load_tunnels(ld, root);
	if (rc == 0)
		rc = load_routes(ld, root);
	if (rc == 0)
		rc = load_neighbors(ld, root);
	if (rc == 0) {
		load_workers(ld, root);
		load_mempool(ld, root);
		load_misc(ld, root);
	}
	return rc;
}

/* Hand the sorted messages to @errs (or free them). Returns -ENOMEM if any was lost. */
static int give_msgs(struct loader *ld, struct config_errors *errs)
{
	int i;

	if (ld->nb_msgs > 0)
		qsort(ld->msgs, ld->nb_msgs, sizeof(*ld->msgs), msg_cmp);
	if (errs != NULL && ld->nb_msgs > 0) {
		errs->msgs = calloc(ld->nb_msgs, sizeof(char *));
		if (errs->msgs == NULL)
			ld->nomem = true;
	}
	for (i = 0; i < ld->nb_msgs; i++) {
		if (errs != NULL && errs->msgs != NULL)
			errs->msgs[errs->count++] = ld->msgs[i].text;
		else
			free(ld->msgs[i].text);
	}
	free(ld->msgs);
	ld->msgs = NULL;
	return ld->nomem ? -ENOMEM : 0;
}

int config_load(const char *path, struct vbrd_config *cfg, struct config_errors *errs)
{
	struct vbrd_config tmp = { 0 };
	struct loader ld = { .file = path, .cfg = &tmp };
	const char *slash;
	struct stat st;
	config_t lc;
	FILE *f;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (errs != NULL)
		*errs = (struct config_errors){ 0 };
	if (path == NULL)
		return -EINVAL;

	config_init(&lc);
	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		err_at(&ld, NULL, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		err_at(&ld, NULL, "cannot read: %s", strerror(EISDIR));
		goto out_close;
	}
	if (strlen(path) >= sizeof(tmp.file)) {
		rc = -ENAMETOOLONG;
		err_at(&ld, NULL, "path longer than %zu characters", sizeof(tmp.file) - 1);
		goto out_close;
	}
	strcpy(tmp.file, path);
	/* @include "x.conf" is relative to the including file, not to the cwd. */
	if ((slash = strrchr(path, '/')) != NULL) {
		char dir[CFG_PATH_MAX];

		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		config_set_include_dir(&lc, dir[0] ? dir : "/");
	}

	if (config_read(&lc, f) != CONFIG_TRUE) {
		const char *ef = config_error_file(&lc);

		if (config_error_type(&lc) == CONFIG_ERR_FILE_IO)
			add_msg(&ld, ef ? ef : path, 0, "cannot read (an @include is missing?)");
		else {
			char text[CFG_MSG_MAX];

			snprintf(text, sizeof(text), "syntax error: %s", config_error_text(&lc));
			add_msg(&ld, ef ? ef : path, config_error_line(&lc), text);
		}
		rc = -EINVAL;
		goto out_close;
	}
	rc = load_all(&ld, config_root_setting(&lc));
	if (rc == 0 && ld.nb_msgs > 0)
		rc = -EINVAL;

out_close:
	fclose(f);
out:
	config_destroy(&lc);
	if (give_msgs(&ld, errs) != 0 && rc == 0)
		rc = -ENOMEM;
	if (rc == 0)
		*cfg = tmp;
	else
		config_free(&tmp);
	return rc;
}

void config_free(struct vbrd_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->ports);
	free(cfg->ifaces);
	free(cfg->routes);
	free(cfg->neighbors);
	free(cfg->tunnels);
	free(cfg->path_groups);
	memset(cfg, 0, sizeof(*cfg));
}

void config_errors_free(struct config_errors *errs)
{
	int i;

	if (errs == NULL)
		return;
	for (i = 0; i < errs->count; i++)
		free(errs->msgs[i]);
	free(errs->msgs);
	errs->count = 0;
	errs->msgs = NULL;
}

void config_errors_print(const struct config_errors *errs, FILE *out)
{
	int i;

	for (i = 0; errs != NULL && i < errs->count; i++)
		fprintf(out, "%s\n", errs->msgs[i]);
}

int config_port_index(const struct vbrd_config *cfg, const char *name)
{
	int i;

	for (i = 0; name != NULL && name[0] && i < cfg->nb_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}

int config_iface_index(const struct vbrd_config *cfg, const char *name)
{
	int i;

	for (i = 0; name != NULL && name[0] && i < cfg->nb_ifaces; i++)
		if (strcmp(cfg->ifaces[i].name, name) == 0)
			return i;
	return -1;
}
