/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config reader (core/config_read.h) and the driver of config_load():
 * parse the libconfig file, run every registered section's loader in
 * dependency order, collect every message.
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
#include <arpa/inet.h>
#include <errno.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "core/config.h"
#include "core/config_include.h"
#include "core/config_read.h"

#define CFG_MSG_MAX 512 /* bytes of one message, before FILE:LINE */

/* One collected message, with the line it is sorted by. */
struct msg {
	int line;   /* 0 for messages about the whole file */
	int seq;    /* order of discovery, to keep the sort stable */
	char *text; /* "FILE:LINE: message" */
};

/* ---- messages ---------------------------------------------------------- */

/*
 * @p text with control characters written as C escapes (\n, \t, \xNN):
 * a value with a newline in it (instance = "a\nb") must not split its
 * message over two lines, the second without FILE:LINE. Into @p buf of
 * @p len bytes (cut when longer).
 */
static const char *one_line(const char *text, char *buf, size_t len)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p && o + 5 < len; p++) {
		if (*p >= 0x20 && *p != 0x7f)
			buf[o++] = (char)*p;
		else if (*p == '\n')
			o += (size_t)snprintf(buf + o, len - o, "\\n");
		else if (*p == '\t')
			o += (size_t)snprintf(buf + o, len - o, "\\t");
		else if (*p == '\r')
			o += (size_t)snprintf(buf + o, len - o, "\\r");
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", *p);
	}
	buf[o] = '\0';
	return buf;
}

void cfg_msg(struct cfg_reader *ld, const char *file, int line, const char *text)
{
	char f[512], t[1024];
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
	/* every message FILE:LINE: text, on one line; one about the whole
	 * file (a required top-level setting missing) names its first line */
	rc = asprintf(&s, "%s:%d: %s", one_line(file, f, sizeof(f)), line > 0 ? line : 1,
		      one_line(text, t, sizeof(t)));
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

static const char *setting_file(const struct cfg_reader *ld, const config_setting_t *s);

void cfg_warn(struct cfg_reader *ld, const config_setting_t *s, const char *fmt, ...)
{
	char text[CFG_MSG_MAX], f[512], t[1024], *line, **w;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	w = realloc(ld->warnings, (size_t)(ld->nb_warnings + 1) * sizeof(*w));
	if (w == NULL) {
		ld->nomem = true;
		return;
	}
	ld->warnings = w;
	if (asprintf(&line, "%s:%d: warning: %s", one_line(setting_file(ld, s), f, sizeof(f)),
		     s ? cfg_line(s) : 1, one_line(text, t, sizeof(t))) < 0) {
		ld->nomem = true;
		return;
	}
	ld->warnings[ld->nb_warnings++] = line;
}

/* File of a setting: the included file it came from, or the loaded one. */
static const char *setting_file(const struct cfg_reader *ld, const config_setting_t *s)
{
	const char *f = s ? config_setting_source_file(s) : NULL;

	return f ? f : ld->file;
}

int cfg_line(const config_setting_t *s)
{
	return s ? (int)config_setting_source_line(s) : 0;
}

/*
 * Dotted path of a setting as the user wrote it: "interfaces[1].vlan".
 * Group members are named, list and array elements are indexed.
 */
char *cfg_path(const config_setting_t *s, char *buf, size_t len)
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
__attribute__((format(printf, 3, 4))) void cfg_err_at(struct cfg_reader *ld,
						      const config_setting_t *s, const char *fmt,
						      ...)
{
	char text[CFG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	cfg_msg(ld, setting_file(ld, s), cfg_line(s), text);
}

/* Record "FILE:LINE: PATH: text" at setting @s. */
__attribute__((format(printf, 3, 4))) void cfg_err(struct cfg_reader *ld, const config_setting_t *s,
						   const char *fmt, ...)
{
	char text[CFG_MSG_MAX], path[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	cfg_err_at(ld, s, "%s: %s", cfg_path(s, path, sizeof(path)), text);
}

/* Record that group @grp lacks the required member @name. */
void cfg_err_missing(struct cfg_reader *ld, const config_setting_t *grp, const char *name)
{
	char path[128];

	if (config_setting_is_root(grp))
		cfg_err_at(ld, NULL, "missing required setting '%s'", name);
	else
		cfg_err_at(ld, grp, "%s: missing required setting '%s'",
			   cfg_path(grp, path, sizeof(path)), name);
}

static int msg_cmp(const void *a, const void *b)
{
	const struct msg *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq - y->seq;
}

/* ---- typed access to settings ------------------------------------------ */

const char *cfg_type_name(const config_setting_t *s)
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
void cfg_check_members(struct cfg_reader *ld, const config_setting_t *grp, const char *const *keys)
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
			cfg_err_at(ld, m, "unknown setting '%s'", cfg_path(m, path, sizeof(path)));
	}
}

static bool is_int(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

/* Integer value of @s in min..max. */
int cfg_int_value(struct cfg_reader *ld, const config_setting_t *s, long long min, long long max,
		  long long *out)
{
	long long v;

	if (!is_int(s)) {
		cfg_err(ld, s, "expected an integer, got %s", cfg_type_name(s));
		return CFG_VAL_BAD;
	}
	v = config_setting_get_int64(s);
	if (v < min || v > max) {
		cfg_err(ld, s, "%lld is out of range %lld..%lld", v, min, max);
		return CFG_VAL_BAD;
	}
	*out = v;
	return CFG_VAL_OK;
}

int cfg_get_u32(struct cfg_reader *ld, const config_setting_t *grp, const char *name, long long min,
		long long max, uint32_t *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	long long v;
	int rc;

	if (s == NULL)
		return CFG_VAL_ABSENT;
	rc = cfg_int_value(ld, s, min, max, &v);
	if (rc == CFG_VAL_OK)
		*out = (uint32_t)v;
	return rc;
}

int cfg_get_u16(struct cfg_reader *ld, const config_setting_t *grp, const char *name, long long min,
		long long max, uint16_t *out)
{
	uint32_t v;
	int rc = cfg_get_u32(ld, grp, name, min, max, &v);

	if (rc == CFG_VAL_OK)
		*out = (uint16_t)v;
	return rc;
}

int cfg_get_bool(struct cfg_reader *ld, const config_setting_t *grp, const char *name, bool *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);

	if (s == NULL)
		return CFG_VAL_ABSENT;
	if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
		cfg_err(ld, s, "expected a boolean (true/false), got %s", cfg_type_name(s));
		return CFG_VAL_BAD;
	}
	*out = config_setting_get_bool(s);
	return CFG_VAL_OK;
}

int cfg_string_value(struct cfg_reader *ld, const config_setting_t *s, const char **out)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		cfg_err(ld, s, "expected a string, got %s", cfg_type_name(s));
		return CFG_VAL_BAD;
	}
	*out = config_setting_get_string(s);
	return CFG_VAL_OK;
}

int cfg_get_string(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		   const char **out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);

	return s == NULL ? CFG_VAL_ABSENT : cfg_string_value(ld, s, out);
}

/* Copy a non-empty string setting that must fit in @size bytes with its NUL. */
int cfg_get_text(struct cfg_reader *ld, const config_setting_t *grp, const char *name, char *buf,
		 size_t size)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	const char *v;
	size_t n;
	int rc;

	if (s == NULL)
		return CFG_VAL_ABSENT;
	rc = cfg_string_value(ld, s, &v);
	if (rc != CFG_VAL_OK)
		return rc;
	n = strlen(v);
	if (n == 0 || n >= size) {
		cfg_err(ld, s, "length %zu is out of range 1..%zu", n, size - 1);
		return CFG_VAL_BAD;
	}
	memcpy(buf, v, n + 1);
	return CFG_VAL_OK;
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

int cfg_get_name(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		 char buf[CFG_NAME_MAX], int *line)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	const char *v;
	int rc;

	if (s == NULL)
		return CFG_VAL_ABSENT;
	rc = cfg_string_value(ld, s, &v);
	if (rc != CFG_VAL_OK)
		return rc;
	if (!valid_name(v)) {
		cfg_err(ld, s, "'%s' is not a valid name (1..%d characters of A-Z a-z 0-9 _ . -)",
			v, CFG_NAME_MAX - 1);
		return CFG_VAL_BAD;
	}
	strcpy(buf, v);
	if (line != NULL)
		*line = cfg_line(s);
	return CFG_VAL_OK;
}

/* Member @name of @grp if it is of type @type; NULL (and an error) otherwise. */
const config_setting_t *cfg_get_typed(struct cfg_reader *ld, const config_setting_t *grp,
				      const char *name, int type)
{
	const config_setting_t *s = config_setting_get_member(grp, name);

	if (s == NULL || config_setting_type(s) == type)
		return s;
	cfg_err(ld, s, "expected %s, got %s",
		type == CONFIG_TYPE_GROUP   ? "a group { ... }"
		: type == CONFIG_TYPE_ARRAY ? "an array [ ... ]"
					    : "a list ( ... )",
		cfg_type_name(s));
	return NULL;
}

/* A sequence of scalars: an array [ ... ], or a list ( ... ) which we accept too. */
bool cfg_is_sequence(const config_setting_t *s)
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
struct cfg_addr cfg_prefix_network(const struct cfg_prefix *p)
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

bool cfg_addr_equal(const struct cfg_addr *a, const struct cfg_addr *b)
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
	na = cfg_prefix_network(&q);
	np = cfg_prefix_network(p);
	return cfg_addr_equal(&na, &np);
}

const char *cfg_family_name(int family)
{
	return family == AF_INET ? "IPv4" : "IPv6";
}

/* fe80::/10 (RFC 4291 §2.5.6): reachable on any link, so it needs an interface. */
bool cfg_is_link_local6(const struct cfg_addr *a)
{
	return a->family == AF_INET6 && a->v6[0] == 0xfe && (a->v6[1] & 0xc0) == 0x80;
}

/*
 * Load list @spec->name of @root into a new array *@arr of *@nb elements:
 * the count is checked (and clamped to max), every group element goes to
 * spec->one, every other element is reported and handed to spec->bad.
 * Returns 0 or -ENOMEM.
 */
int cfg_load_list(struct cfg_reader *ld, const config_setting_t *root,
		  const struct cfg_list_spec *spec, void **arr, int *nb)
{
	const config_setting_t *list = cfg_get_typed(ld, root, spec->name, CONFIG_TYPE_LIST);
	int n;

	if (list == NULL) {
		if (spec->required && config_setting_get_member(root, spec->name) == NULL)
			cfg_err_missing(ld, root, spec->name);
		return 0;
	}
	n = config_setting_length(list);
	if (n < spec->min || (spec->max && n > spec->max)) {
		cfg_err(ld, list, "%d %s, expected %d..%d", n, spec->name, spec->min, spec->max);
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
			cfg_err(ld, e, "expected a group { ... }, got %s", cfg_type_name(e));
			if (spec->bad)
				spec->bad(ld, e, i);
			continue;
		}
		spec->one(ld, e, i);
	}
	return 0;
}

/* ---- interfaces ------------------------------------------------------------ */

/* Add one interface address from setting @s (a string) to @ifc. */
/*
 * Why @a cannot be an address of this router (RFC 1122 §3.2.1.3, RFC 4291
 * §2.5.2-2.7): unspecified, loopback, multicast or limited broadcast; NULL
 * when it can.
 */
const char *cfg_unusable_addr(const struct cfg_addr *a)
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

/* ---- routes ----------------------------------------------------------------- */

/*
 * Interface whose connected subnet holds @a (longest prefix wins), limited to
 * interface @only when it is >= 0. Returns the index, or -1; *own is set when
 * @a is one of the interface's own addresses.
 */
int cfg_find_connected_vrf(const struct vbrd_config *cfg, const struct cfg_addr *a, int only,
			   int vrf, int *own)
{
	int i, j, best = -1, best_len = -1;

	*own = -1;
	for (i = 0; i < cfg->nb_ifaces; i++) {
		const struct cfg_iface *ifc = &cfg->ifaces[i];

		if ((only >= 0 && i != only) || (vrf >= 0 && ifc->vrf != vrf))
			continue;
		for (j = 0; j < ifc->nb_addrs; j++) {
			if (cfg_addr_equal(&ifc->addrs[j].addr, a))
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

int cfg_find_connected(const struct vbrd_config *cfg, const struct cfg_addr *a, int only, int *own)
{
	return cfg_find_connected_vrf(cfg, a, only, -1, own);
}

bool cfg_any_iface_bad(const struct cfg_reader *ld)
{
	int i;

	for (i = 0; i < ld->cfg->nb_ifaces; i++)
		if (ld->iface_bad[i])
			return true;
	return false;
}

/* Required address setting @name of @grp. */
int cfg_get_addr(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		 struct cfg_addr *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	const char *v;

	if (s == NULL) {
		cfg_err_missing(ld, grp, name);
		return CFG_VAL_ABSENT;
	}
	if (cfg_string_value(ld, s, &v) != CFG_VAL_OK)
		return CFG_VAL_BAD;
	if (config_parse_addr(v, out) != 0) {
		cfg_err(ld, s, "'%s' is not a valid IPv4 or IPv6 address", v);
		return CFG_VAL_BAD;
	}
	return CFG_VAL_OK;
}

/* ---- static neighbors ------------------------------------------------------ */

/* "02:00:00:00:00:01": six pairs of hex digits separated by ':'. */
int cfg_parse_mac(const char *s, uint8_t mac[6])
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

/* ---- address lists: interfaces and tunnels alike ----------------------------- */

const char *cfg_address_owner(const struct cfg_reader *ld, const struct cfg_addr *a, int vrf,
			      char *buf, size_t len)
{
	const struct vbrd_config *cfg = ld->cfg;

	for (int i = 0; i < cfg->nb_ifaces; i++)
		for (int j = 0;
		     (vrf < 0 || cfg->ifaces[i].vrf == vrf) && j < cfg->ifaces[i].nb_addrs; j++)
			if (cfg_addr_equal(&cfg->ifaces[i].addrs[j].addr, a)) {
				snprintf(buf, len, "interface '%s' (line %d)", cfg->ifaces[i].name,
					 cfg->ifaces[i].line);
				return buf;
			}
	for (int i = 0; i < cfg->nb_tunnels; i++)
		for (int j = 0;
		     (vrf < 0 || cfg->tunnels[i].vrf == vrf) && j < cfg->tunnels[i].nb_addrs; j++)
			if (cfg_addr_equal(&cfg->tunnels[i].addrs[j].addr, a)) {
				snprintf(buf, len, "tunnel '%s' (line %d)", cfg->tunnels[i].name,
					 cfg->tunnels[i].line);
				return buf;
			}
	return NULL;
}

/* One ADDRESS/LENGTH string of an address list. */
static void load_address(struct cfg_reader *ld, const config_setting_t *s, int vrf,
			 struct cfg_prefix *out, int *nb, bool *bad)
{
	char owner[CFG_NAME_MAX + 32];
	struct cfg_prefix p;
	const char *v, *why;

	if (cfg_string_value(ld, s, &v) != CFG_VAL_OK)
		goto bad;
	if (config_parse_prefix(v, &p) != 0) {
		cfg_err(ld, s, "'%s' is not a valid ADDRESS/LENGTH (IPv4 /0..32, IPv6 /0..128)", v);
		goto bad;
	}
	if ((why = cfg_unusable_addr(&p.addr)) != NULL) {
		cfg_err(ld, s, "%s is %s, not an interface address", v, why);
		goto bad;
	}
	if (cfg_address_owner(ld, &p.addr, vrf, owner, sizeof(owner)) != NULL) {
		char a[INET6_ADDRSTRLEN];
		cfg_err(ld, s, "address %s is already on %s",
			config_format_addr(&p.addr, a, sizeof(a)), owner);
		goto bad;
	}
	out[(*nb)++] = p;
	return;
bad:
	*bad = true;
}

int cfg_load_addresses(struct cfg_reader *ld, const config_setting_t *s, int vrf,
		       struct cfg_prefix *out, int *nb, int max, bool required, bool *bad)
{
	const config_setting_t *one = config_setting_get_member(s, "address");
	const config_setting_t *many = config_setting_get_member(s, "addresses");
	char path[128];
	int n;

	if (one != NULL && many != NULL) {
		cfg_err_at(ld, many, "%s: 'address' and 'addresses' are mutually exclusive",
			   cfg_path(s, path, sizeof(path)));
		*bad = true;
		return 0;
	}
	if (one != NULL) {
		load_address(ld, one, vrf, out, nb, bad);
		return 0;
	}
	if (many == NULL) {
		if (required) {
			cfg_err_missing(ld, s, "address");
			*bad = true;
		}
		return 0;
	}
	if (!cfg_is_sequence(many)) {
		cfg_err(ld, many, "expected an array [ ... ] of strings, got %s",
			cfg_type_name(many));
		*bad = true;
		return 0;
	}
	n = config_setting_length(many);
	if (n < 1 || n > max) {
		cfg_err(ld, many, "%d addresses, expected 1..%d", n, max);
		*bad = true;
		if (n == 0)
			return 0;
		n = max;
	}
	for (int i = 0; i < n; i++)
		load_address(ld, config_setting_get_elem(many, i), vrf, out, nb, bad);
	return 0;
}

/* ---- sections ------------------------------------------------------------ */

static struct config_section *sections[CFG_MAX_SECTIONS];
static unsigned nb_sections;
static bool sections_sorted;

static struct config_section *section_find(const char *name)
{
	for (unsigned i = 0; i < nb_sections; i++)
		if (strcmp(sections[i]->name, name) == 0)
			return sections[i];
	return NULL;
}

void config_section_register(struct config_section *s)
{
	if (section_find(s->name) != NULL || nb_sections == CFG_MAX_SECTIONS) {
		fprintf(stderr, "vbrd: config section %s: %s\n", s->name,
			nb_sections == CFG_MAX_SECTIONS ? "registry full" : "registered twice");
		abort();
	}
	s->id = (uint16_t)nb_sections;
	sections[nb_sections++] = s;
	sections_sorted = false;
}

void *config_section_get(const struct vbrd_config *cfg, const struct config_section *s)
{
	return cfg->sections[s->id];
}

void config_section_set(struct vbrd_config *cfg, const struct config_section *s, void *data)
{
	cfg->sections[s->id] = data;
}

/* Load order: every section after the ones it names in `after` (names in
 * alphabetical order otherwise, so the order never depends on link order).
 * A cycle or an unknown name is a programming error found by the unit tests. */
static void sections_sort(void)
{
	struct config_section *out[CFG_MAX_SECTIONS];
	bool done[CFG_MAX_SECTIONS] = { false };
	unsigned n = 0;

	if (sections_sorted)
		return;
	while (n < nb_sections) {
		int pick = -1;
		for (unsigned i = 0; i < nb_sections; i++) {
			bool ready = !done[i];
			for (const char *const *a = sections[i]->after; ready && a && *a; a++) {
				const struct config_section *dep = section_find(*a);
				ready = dep == NULL || done[dep->id];
			}
			/* a section that names it in `before` goes first */
			for (unsigned j = 0; ready && j < nb_sections; j++)
				for (const char *const *b = sections[j]->before; ready && b && *b;
				     b++)
					if (!done[j] && j != i &&
					    strcmp(*b, sections[i]->name) == 0)
						ready = false;
			if (ready &&
			    (pick < 0 || strcmp(sections[i]->name, sections[pick]->name) < 0))
				pick = (int)i;
		}
		if (pick < 0) {
			fprintf(stderr, "vbrd: config sections: dependency cycle\n");
			abort();
		}
		done[pick] = true;
		out[n++] = sections[pick];
	}
	/* ids stay: cfg->sections[] is indexed by registration */
	memcpy(sections, out, sizeof(*out) * nb_sections);
	sections_sorted = true;
}

void config_sections_summary(const struct vbrd_config *cfg, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	sections_sort();
	for (unsigned i = 0; i < nb_sections && used + 1 < len; i++) {
		char one[128] = "";

		if (sections[i]->summary == NULL)
			continue;
		sections[i]->summary(cfg, one, sizeof(one));
		if (one[0])
			used += (size_t)snprintf(buf + used, len - used, ", %s", one);
	}
}

/* Every top-level name a section owns is known; anything else is reported. */
static void check_top_level(struct cfg_reader *ld, const config_setting_t *root)
{
	const char *keys[3 * CFG_MAX_SECTIONS + 1];
	unsigned n = 0;

	for (unsigned i = 0; i < nb_sections; i++) {
		keys[n++] = sections[i]->name;
		for (const char *const *a = sections[i]->also; a && *a && n < 3 * CFG_MAX_SECTIONS;
		     a++)
			keys[n++] = *a;
	}
	keys[n] = NULL;
	cfg_check_members(ld, root, keys);
}

static int load_sections(struct cfg_reader *ld, const config_setting_t *root)
{
	sections_sort();
	check_top_level(ld, root);
	for (unsigned i = 0; i < nb_sections; i++) {
		int rc = sections[i]->load(ld, root, ld->cfg);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- restart settings ------------------------------------------------------ */

void cfg_restart(struct cfg_reader *rd, const config_setting_t *s, const char *path,
		 const char *fmt, ...)
{
	struct vbrd_config *cfg = rd->cfg;
	struct cfg_restart_setting *r;
	va_list ap;

	r = realloc(cfg->restart, sizeof(*r) * (size_t)(cfg->nb_restart + 1));
	if (r == NULL) {
		rd->nomem = true;
		return;
	}
	cfg->restart = r;
	r = &cfg->restart[cfg->nb_restart++];
	snprintf(r->path, sizeof(r->path), "%s", path);
	va_start(ap, fmt);
	vsnprintf(r->value, sizeof(r->value), fmt, ap);
	va_end(ap);
	snprintf(r->file, sizeof(r->file), "%s", setting_file(rd, s));
	r->line = cfg_line(s);
}

static const struct cfg_restart_setting *restart_find(const struct vbrd_config *cfg,
						      const char *path)
{
	for (int i = 0; i < cfg->nb_restart; i++)
		if (strcmp(cfg->restart[i].path, path) == 0)
			return &cfg->restart[i];
	return NULL;
}

int config_restart_diff(const struct vbrd_config *cur, const struct vbrd_config *next, char *err,
			size_t errlen)
{
	size_t used = 0;
	int changed = 0;

	err[0] = '\0';
	/* settings of the new file that differ from, or were not in, the running one */
	for (int i = 0; i < next->nb_restart; i++) {
		const struct cfg_restart_setting *n = &next->restart[i];
		const struct cfg_restart_setting *c = restart_find(cur, n->path);
		if (c != NULL && strcmp(c->value, n->value) == 0)
			continue;
		changed++;
		if (used < errlen)
			used += (size_t)snprintf(err + used, errlen - used,
						 "%s%s:%d: %s: changed from %s%s%s to '%s': "
						 "restart vbrd to apply it",
						 used ? "\n" : "", n->file, n->line, n->path,
						 c ? "'" : "", c ? c->value : "(none)",
						 c ? "'" : "", n->value);
	}
	/* settings of the running file that the new one no longer has (a port removed) */
	for (int i = 0; i < cur->nb_restart; i++) {
		const struct cfg_restart_setting *c = &cur->restart[i];
		if (restart_find(next, c->path) != NULL)
			continue;
		changed++;
		if (used < errlen)
			used += (size_t)snprintf(
				err + used, errlen - used,
				"%s%s:1: %s: removed (was '%s'): restart vbrd to apply it",
				used ? "\n" : "", next->file, c->path, c->value);
	}
	return changed ? -EPERM : 0;
}

/* Hand the sorted messages to @errs (or free them). Returns -ENOMEM if any was lost. */
static int give_msgs(struct cfg_reader *ld, struct config_errors *errs)
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

static void include_problem(void *ld, const char *file, int line, const char *text)
{
	cfg_msg(ld, file, line, text);
}

int config_load(const char *path, struct vbrd_config *cfg, struct config_errors *errs)
{
	struct vbrd_config tmp = { 0 };
	struct cfg_reader ld = { .file = path, .cfg = &tmp };
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
	/* Refuse what would make libconfig exit or block (config_include.h). */
	rc = config_include_check(path, include_problem, &ld);
	if (rc < 0)
		goto out;
	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		cfg_err_at(&ld, NULL, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		cfg_err_at(&ld, NULL, "cannot read: %s", strerror(EISDIR));
		goto out_close;
	}
	if (strlen(path) >= sizeof(tmp.file)) {
		rc = -ENAMETOOLONG;
		cfg_err_at(&ld, NULL, "path longer than %zu characters", sizeof(tmp.file) - 1);
		goto out_close;
	}
	strcpy(tmp.file, path);
	/* @include "x.conf" is relative to the top file's directory, not to the
	 * cwd (config_include_check() resolves it the same way). */
	if ((slash = strrchr(path, '/')) != NULL) {
		char dir[CFG_PATH_MAX];

		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		config_set_include_dir(&lc, dir[0] ? dir : "/");
	}

	if (config_read(&lc, f) != CONFIG_TRUE) {
		const char *ef = config_error_file(&lc);

		if (config_error_type(&lc) == CONFIG_ERR_FILE_IO)
			cfg_msg(&ld, ef ? ef : path, 0, "cannot read (an @include is missing?)");
		else {
			char text[CFG_MSG_MAX];
			const char *et = config_error_text(&lc);

			/* libconfig's most common text is "syntax error" itself */
			if (strncmp(et, "syntax error", 12) == 0)
				snprintf(text, sizeof(text), "%s", et);
			else
				snprintf(text, sizeof(text), "syntax error: %s", et);
			cfg_msg(&ld, ef ? ef : path, config_error_line(&lc), text);
		}
		rc = -EINVAL;
		goto out_close;
	}
	rc = load_sections(&ld, config_root_setting(&lc));
	if (rc == 0 && ld.nb_msgs > 0)
		rc = -EINVAL;

out_close:
	fclose(f);
out:
	config_destroy(&lc);
	if (give_msgs(&ld, errs) != 0 && rc == 0)
		rc = -ENOMEM;
	if (rc == 0) {
		tmp.nb_warnings = ld.nb_warnings;
		tmp.warnings = ld.warnings;
		*cfg = tmp;
	} else {
		for (int i = 0; i < ld.nb_warnings; i++)
			free(ld.warnings[i]);
		free(ld.warnings);
		config_free(&tmp);
	}
	return rc;
}

void config_free(struct vbrd_config *cfg)
{
	if (cfg == NULL)
		return;
	for (unsigned i = 0; i < nb_sections; i++)
		if (sections[i]->free != NULL)
			sections[i]->free(cfg);
	for (int i = 0; i < cfg->nb_warnings; i++)
		free(cfg->warnings[i]);
	free(cfg->warnings);
	free(cfg->restart);
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

_Static_assert(offsetof(struct cfg_port, name) == 0 && offsetof(struct cfg_iface, name) == 0 &&
		       offsetof(struct cfg_tunnel, name) == 0 &&
		       offsetof(struct cfg_path_group, name) == 0,
	       "index_by_name() reads the name at the start of each element");

/* Index of the element of @p arr (@p nb of @p size bytes, a name first) named @p name. */
static int index_by_name(const void *arr, int nb, size_t size, const char *name)
{
	for (int i = 0; name != NULL && name[0] && i < nb; i++)
		if (strcmp((const char *)arr + (size_t)i * size, name) == 0)
			return i;
	return -1;
}

int config_port_index(const struct vbrd_config *cfg, const char *name)
{
	return index_by_name(cfg->ports, cfg->nb_ports, sizeof(*cfg->ports), name);
}

int config_iface_index(const struct vbrd_config *cfg, const char *name)
{
	return index_by_name(cfg->ifaces, cfg->nb_ifaces, sizeof(*cfg->ifaces), name);
}

bool cfg_netns_name_ok(const char *s)
{
	if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

int cfg_get_vrf(struct cfg_reader *ld, const config_setting_t *grp, const char *name, int *out)
{
	const char *v;
	int rc = cfg_get_string(ld, grp, name, &v);

	*out = CFG_VRF_DEFAULT;
	if (rc != CFG_VAL_OK)
		return rc;
	int i = config_vrf_index(ld->cfg, v);
	if (i < 0) {
		cfg_err(ld, config_setting_get_member(grp, name), "unknown VRF '%s'", v);
		return CFG_VAL_BAD;
	}
	*out = i;
	return CFG_VAL_OK;
}

int config_vrf_index(const struct vbrd_config *cfg, const char *name)
{
	if (cfg->nb_vrfs == 0)
		return strcmp(name, "default") == 0 ? 0 : -1;
	return index_by_name(cfg->vrfs, cfg->nb_vrfs, sizeof(*cfg->vrfs), name);
}

const char *config_vrf_name(const struct vbrd_config *cfg, int vrf)
{
	return vrf >= 0 && vrf < cfg->nb_vrfs ? cfg->vrfs[vrf].name : "default";
}

int config_tunnel_index(const struct vbrd_config *cfg, const char *name)
{
	return index_by_name(cfg->tunnels, cfg->nb_tunnels, sizeof(*cfg->tunnels), name);
}

int config_path_group_index(const struct vbrd_config *cfg, const char *name)
{
	return index_by_name(cfg->path_groups, cfg->nb_path_groups, sizeof(*cfg->path_groups),
			     name);
}
