/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config section "qos" (qos_config.h): policies — businesses with their
 * queues and policers, classes — and the interfaces (lines) they shape.
 * Every setting is live: a reload applies it.
 *
 * It loads in three steps, so that each check has what it needs:
 *   1. qos.policies, each on its own: names, rates, queues, classes;
 *   2. qos.interfaces, each against the policy it names: absolute rates
 *      above the line rate, DSCP-to-PCP only on VLAN interfaces;
 *   3. the whole section: policer bursts against the largest frame of the
 *      lines that use the policy, queue limits against the mempool; then
 *      the classes are sorted by priority (until then classes[i] is the
 *      i-th of the file, which step 3 uses to find a policer's settings).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/config.h"
#include "core/config_read.h"
#include "qos/qos_config.h"

static int qos_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg);
static void qos_free(struct vbrd_config *cfg);

static struct config_section qos_section = {
	.name = "qos",
	.after = (const char *const[]){ "ports", "interfaces", "tunnels", "mempool", NULL },
	.load = qos_load,
	.free = qos_free,
};
CONFIG_SECTION(qos_section);

const struct qos_config *qos_config_get(const struct vbrd_config *cfg)
{
	return config_section_get(cfg, &qos_section);
}

int qos_policy_index(const struct vbrd_config *cfg, const char *name)
{
	const struct qos_config *q = qos_config_get(cfg);

	for (int i = 0; q != NULL && name != NULL && name[0] && i < q->nb_policies; i++)
		if (strcmp(q->policies[i].name, name) == 0)
			return i;
	return -1;
}

/* The section being built, for the list callbacks (cfg_load_list()). */
static struct qos_config *building(struct cfg_reader *ld)
{
	return config_section_get(ld->cfg, &qos_section);
}

/* ---- rates --------------------------------------------------------------- */

static const char why_syntax[] = "not a rate (bits/s: an integer, or a number with a unit "
				 "k, M, G or T: \"800k\", \"1.5G\")";
static const char why_syntax_pct[] = "not a rate (bits/s: an integer, or a number with a unit "
				     "k, M, G or T: \"800k\", \"1.5G\"; or a percent of the line "
				     "rate: \"30%\")";
static const char why_zero[] = "a rate must be above 0";
static const char why_big[] = "above 400G, the fastest line vbrd shapes";

/*
 * DIGITS[.DIGITS][UNIT]: UNIT k/K, M, G, T (x1000 steps, SI) or %. The
 * value must be exact: bits/s are whole, percents are counted in ppm.
 */
int qos_parse_rate(const char *s, bool percent_ok, struct qos_rate *out, const char **why)
{
	static const unsigned long long p10[] = {
		1ULL,           10ULL,           100ULL,          1000ULL,      10000ULL,
		100000ULL,      1000000ULL,      10000000ULL,     100000000ULL, 1000000000ULL,
		10000000000ULL, 100000000000ULL, 1000000000000ULL
	};
	unsigned long long ipart = 0, frac = 0, v;
	const char *p = s, *fdig = NULL, *dummy;
	int flen = 0, scale = 0;
	bool percent = false;

	if (why == NULL)
		why = &dummy;
	*why = percent_ok ? why_syntax_pct : why_syntax;
	if (s == NULL || *p < '0' || *p > '9')
		return -EINVAL;
	/* stops growing once above any rate: no overflow, and it stays too big */
	for (; *p >= '0' && *p <= '9'; p++)
		if (ipart <= QOS_MAX_RATE)
			ipart = ipart * 10 + (unsigned)(*p - '0');
	if (*p == '.') {
		fdig = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		flen = (int)(p - fdig);
		if (flen == 0)
			return -EINVAL;
	}
	switch (*p) {
	case 'k':
	case 'K':
		scale = 3;
		break;
	case 'M':
		scale = 6;
		break;
	case 'G':
		scale = 9;
		break;
	case 'T':
		scale = 12;
		break;
	case '%':
		percent = true;
		scale = 4; /* ppm = percent x 10^4 */
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (*p != '\0' && p[1] != '\0')
		return -EINVAL;
	if (percent && !percent_ok) {
		*why = "a percent, which only guaranteed, ceiling and a queue's cap take";
		return -EINVAL;
	}
	while (flen > 0 && fdig[flen - 1] == '0')
		flen--;
	if (flen > scale) {
		*why = percent ? "finer than 0.0001%" : "not a whole number of bits/s";
		return -EINVAL;
	}
	for (int i = 0; i < flen; i++)
		frac = frac * 10 + (unsigned)(fdig[i] - '0');
	frac *= p10[scale - flen];
	if (percent) {
		if (ipart > 100 || (v = ipart * 10000 + frac) > 1000000) {
			*why = "above 100%";
			return -EINVAL;
		}
		if (v == 0) {
			*why = why_zero;
			return -EINVAL;
		}
		*out = (struct qos_rate){ .ppm = (uint32_t)v, .set = true };
		*why = NULL;
		return 0;
	}
	if (ipart > QOS_MAX_RATE / p10[scale] || (v = ipart * p10[scale] + frac) > QOS_MAX_RATE) {
		*why = why_big;
		return -EINVAL;
	}
	if (v == 0) {
		*why = why_zero;
		return -EINVAL;
	}
	*out = (struct qos_rate){ .bps = v, .set = true };
	*why = NULL;
	return 0;
}

/* WHOLE[.FRAC]UNIT, FRAC of @p digits decimals without its trailing zeros. */
static char *format_decimal(char *buf, size_t len, unsigned long long whole,
			    unsigned long long frac, int digits, const char *unit)
{
	char f[24] = "";

	if (frac) {
		int n = snprintf(f, sizeof(f), ".%0*llu", digits, frac);

		while (n > 1 && f[n - 1] == '0')
			f[--n] = '\0';
	}
	snprintf(buf, len, "%llu%s%s", whole, f, unit);
	return buf;
}

char *qos_format_rate(const struct qos_rate *r, char *buf, size_t len)
{
	static const struct {
		unsigned long long div;
		int digits;
		const char *unit;
	} units[] = {
		{ 1000000000000ULL, 12, "T" },
		{ 1000000000ULL, 9, "G" },
		{ 1000000ULL, 6, "M" },
		{ 1000ULL, 3, "k" },
	};

	if (!r->set) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (r->ppm)
		return format_decimal(buf, len, r->ppm / 10000, r->ppm % 10000, 4, "%");
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (r->bps >= units[i].div)
			return format_decimal(buf, len, r->bps / units[i].div,
					      r->bps % units[i].div, units[i].digits,
					      units[i].unit);
	return format_decimal(buf, len, r->bps, 0, 0, "");
}

/* An absolute rate as "100M". */
static char *format_bps(uint64_t bps, char *buf, size_t len)
{
	struct qos_rate r = { .bps = bps, .set = true };

	return qos_format_rate(&r, buf, len);
}

int qos_cfg_get_rate(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		     bool percent_ok, struct qos_rate *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	const char *v, *why;
	long long n;

	if (s == NULL)
		return CFG_VAL_ABSENT;
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		n = config_setting_get_int64(s);
		if (n > 0 && (unsigned long long)n <= QOS_MAX_RATE) {
			*out = (struct qos_rate){ .bps = (uint64_t)n, .set = true };
			return CFG_VAL_OK;
		}
		cfg_err(ld, s, "%lld: %s", n, n <= 0 ? why_zero : why_big);
		return CFG_VAL_BAD;
	case CONFIG_TYPE_STRING:
		v = config_setting_get_string(s);
		if (qos_parse_rate(v, percent_ok, out, &why) == 0)
			return CFG_VAL_OK;
		cfg_err(ld, s, "'%s': %s", v, why);
		return CFG_VAL_BAD;
	default:
		cfg_err(ld, s, "expected a rate (bits/s: 100000000 or \"100M\"%s), got %s",
			percent_ok ? "; or \"30%\"" : "", cfg_type_name(s));
		return CFG_VAL_BAD;
	}
}

/* ---- small readers ------------------------------------------------------------ */

/* Member @p name of @p grp as a list of @p min..@p max elements (clamped into *@p n). */
static const config_setting_t *get_list(struct cfg_reader *ld, const config_setting_t *grp,
					const char *name, int min, int max, bool required, int *n)
{
	const config_setting_t *l = cfg_get_typed(ld, grp, name, CONFIG_TYPE_LIST);

	*n = 0;
	if (l == NULL) {
		if (required && config_setting_get_member(grp, name) == NULL)
			cfg_err_missing(ld, grp, name);
		return NULL;
	}
	*n = config_setting_length(l);
	if (*n < min || *n > max) {
		cfg_err(ld, l, "%d %s, expected %d..%d", *n, name, min, max);
		if (*n > max)
			*n = max;
	}
	return l;
}

/* Element @p i of @p list when it is a group; else reported, NULL. */
static const config_setting_t *group_elem(struct cfg_reader *ld, const config_setting_t *list,
					  int i)
{
	const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);

	if (config_setting_type(e) == CONFIG_TYPE_GROUP)
		return e;
	cfg_err(ld, e, "expected a group { ... }, got %s", cfg_type_name(e));
	return NULL;
}

/* Member @p name of the @p i-th group of list @p list_name of @p grp, or NULL. */
static const config_setting_t *nth_member(const config_setting_t *grp, const char *list_name, int i,
					  const char *name)
{
	const config_setting_t *l = grp ? config_setting_get_member(grp, list_name) : NULL;
	const config_setting_t *e = l ? config_setting_get_elem(l, (unsigned)i) : NULL;

	return e && config_setting_is_group(e) ? config_setting_get_member(e, name) : NULL;
}

/* "N" or "LO-HI", decimal, LO <= HI <= @p max. */
static bool parse_range(const char *v, long max, int *lo, int *hi)
{
	char *end;
	long a, b;

	if (*v < '0' || *v > '9')
		return false;
	a = strtol(v, &end, 10);
	b = a;
	if (*end == '-' && end[1] >= '0' && end[1] <= '9')
		b = strtol(end + 1, &end, 10);
	if (*end != '\0' || a > max || b > max || a > b)
		return false;
	*lo = (int)a;
	*hi = (int)b;
	return true;
}

/* @p s as a @p what 0..@p max (an integer) or a range "LO-HI" (a string). */
static bool range_value(struct cfg_reader *ld, const config_setting_t *s, long max,
			const char *what, int *lo, int *hi)
{
	long long v;
	const char *str;

	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		str = config_setting_get_string(s);
		if (parse_range(str, max, lo, hi))
			return true;
		cfg_err(ld, s, "'%s' is not a %s 0..%ld or a range \"LO-HI\" with LO <= HI", str,
			what, max);
		return false;
	}
	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64) {
		cfg_err(ld, s, "expected a %s 0..%ld or a range \"LO-HI\", got %s", what, max,
			cfg_type_name(s));
		return false;
	}
	if (cfg_int_value(ld, s, 0, max, &v) != CFG_VAL_OK)
		return false;
	*lo = *hi = (int)v;
	return true;
}

/* Member @p name as a network prefix (host bits zero, as a route's). */
static bool get_prefix(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		       struct cfg_prefix *out)
{
	const config_setting_t *s = config_setting_get_member(grp, name);
	char buf[INET6_ADDRSTRLEN + 4];
	struct cfg_prefix net;
	const char *v;

	if (s == NULL || cfg_string_value(ld, s, &v) != CFG_VAL_OK)
		return false;
	if (config_parse_prefix(v, out) != 0) {
		cfg_err(ld, s,
			"'%s' is not a valid prefix ADDRESS/LENGTH (IPv4 /0..32, IPv6 /0..128)", v);
		return false;
	}
	net = (struct cfg_prefix){ .addr = cfg_prefix_network(out), .len = out->len };
	if (!cfg_addr_equal(&net.addr, &out->addr)) {
		cfg_err(ld, s, "%s has host bits set (did you mean %s?)", v,
			config_format_prefix(&net, buf, sizeof(buf)));
		return false;
	}
	return true;
}

static int business_index(const struct qos_policy_conf *pol, const char *name)
{
	for (int i = 0; i < pol->nb_businesses; i++)
		if (strcmp(pol->businesses[i].name, name) == 0)
			return i;
	return -1;
}

static int queue_index(const struct qos_business_conf *b, const char *name)
{
	for (int i = 0; i < b->nb_queues; i++)
		if (strcmp(b->queues[i].name, name) == 0)
			return i;
	return -1;
}

/* Largest frame an interface sends: its MTU and the Ethernet header (and 802.1Q tag). */
static uint32_t frame_bytes(const struct cfg_iface *ifc)
{
	return ifc->mtu + 14u + (ifc->vlan ? 4u : 0u);
}

/* ---- policers ----------------------------------------------------------------- */

static const struct {
	const char *name;
	const char *takes;     /* for messages */
	const char *keys[5];   /* its rates and bursts */
	const char *excess[2]; /* its second rate and second burst */
} meters[] = {
	[QOS_METER_SRTCM] = { "srtcm",
			      "srtcm (RFC 2697) takes cir, cbs and ebs",
			      { "cir", "cbs", "ebs", NULL },
			      { NULL, "ebs" } },
	[QOS_METER_TRTCM] = { "trtcm",
			      "trtcm (RFC 2698) takes cir, cbs, pir and pbs",
			      { "cir", "cbs", "pir", "pbs", NULL },
			      { "pir", "pbs" } },
	[QOS_METER_RFC4115] = { "rfc4115",
				"rfc4115 takes cir, cbs, eir and ebs",
				{ "cir", "cbs", "eir", "ebs", NULL },
				{ "eir", "ebs" } },
};

static bool meter_takes(enum qos_meter_mode mode, const char *key)
{
	for (int i = 0; meters[mode].keys[i] != NULL; i++)
		if (strcmp(meters[mode].keys[i], key) == 0)
			return true;
	return false;
}

/* Member "policer" of @p grp (a business or a class) into @p pc. */
static void load_policer(struct cfg_reader *ld, const config_setting_t *grp,
			 struct qos_policer_conf *pc)
{
	static const char *const keys[] = { "mode", "cir", "cbs",         "ebs", "pir",
					    "pbs",  "eir", "yellow_dscp", NULL };
	static const char *const by_mode[] = { "ebs", "pir", "pbs", "eir", NULL };
	const config_setting_t *s = cfg_get_typed(ld, grp, "policer", CONFIG_TYPE_GROUP);
	struct qos_rate cir = { 0 }, eir = { 0 };
	const char *v;
	uint32_t yellow;
	bool mode_ok = true;

	pc->yellow_dscp = -1;
	if (s == NULL)
		return;
	pc->set = true;
	pc->mode = QOS_METER_TRTCM;
	pc->line = cfg_line(s);
	cfg_check_members(ld, s, keys);
	if (cfg_get_string(ld, s, "mode", &v) == CFG_VAL_OK) {
		unsigned m;

		for (m = 0; m < sizeof(meters) / sizeof(meters[0]); m++)
			if (strcmp(meters[m].name, v) == 0)
				break;
		if (m < sizeof(meters) / sizeof(meters[0])) {
			pc->mode = (enum qos_meter_mode)m;
		} else {
			cfg_err(ld, config_setting_get_member(s, "mode"),
				"unknown policer mode '%s' (srtcm, trtcm or rfc4115)", v);
			mode_ok = false;
		}
	}
	if (!mode_ok)
		return;
	for (int i = 0; by_mode[i] != NULL; i++)
		if (config_setting_get_member(s, by_mode[i]) != NULL &&
		    !meter_takes(pc->mode, by_mode[i]))
			cfg_err(ld, config_setting_get_member(s, by_mode[i]),
				"not a setting of this policer: %s", meters[pc->mode].takes);

	if (qos_cfg_get_rate(ld, s, "cir", false, &cir) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "cir");
	pc->cir_bps = cir.bps;
	if (cfg_get_u32(ld, s, "cbs", 1, QOS_MAX_BURST, &pc->cbs) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "cbs");
	const char *er = meters[pc->mode].excess[0], *eb = meters[pc->mode].excess[1];
	if (er != NULL) {
		if (qos_cfg_get_rate(ld, s, er, false, &eir) == CFG_VAL_ABSENT)
			cfg_err_missing(ld, s, er);
		pc->eir_bps = eir.bps;
	}
	if (cfg_get_u32(ld, s, eb, 1, QOS_MAX_BURST, &pc->ebs) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, eb);
	/* RFC 2698 §2: "The PIR must be equal to or greater than the CIR." */
	if (pc->mode == QOS_METER_TRTCM && cir.set && eir.set && eir.bps < cir.bps) {
		char a[24], b[24];

		cfg_err(ld, config_setting_get_member(s, "pir"),
			"%s is below the cir %s (RFC 2698: the PIR must be at least the CIR)",
			format_bps(eir.bps, a, sizeof(a)), format_bps(cir.bps, b, sizeof(b)));
	}
	if (cfg_get_u32(ld, s, "yellow_dscp", 0, 63, &yellow) == CFG_VAL_OK)
		pc->yellow_dscp = (int)yellow;
}

/*
 * A bucket smaller than a frame never holds enough tokens for it (RFC 2697
 * §3, RFC 2698 §3: a packet is green only if it fits the committed bucket,
 * yellow only if it fits the excess/peak one; a trTCM packet larger than
 * the peak bucket is red). Both RFCs (§2) recommend bursts of at least the
 * largest packet; vbrd requires it of every burst.
 */
static void check_policer_bursts(struct cfg_reader *ld, const config_setting_t *s,
				 const struct qos_policer_conf *pc, const struct cfg_iface *ifc)
{
	uint32_t frame = frame_bytes(ifc);
	const char *eb = meters[pc->mode].excess[1];

	if (s == NULL || !pc->set)
		return;
	if (pc->cbs && pc->cbs < frame)
		cfg_err(ld, config_setting_get_member(s, "cbs"),
			"%u bytes is below the %u-byte frames interface '%s' sends: no such frame "
			"could ever be green",
			pc->cbs, frame, ifc->name);
	if (pc->ebs && pc->ebs < frame)
		cfg_err(ld, config_setting_get_member(s, eb),
			"%u bytes is below the %u-byte frames interface '%s' sends: %s", pc->ebs,
			frame, ifc->name,
			pc->mode == QOS_METER_TRTCM ? "every such frame would be red"
						    : "no such frame could ever be yellow (red "
						      "once the cbs is used up)");
}

/* ---- businesses and their queues ------------------------------------------------ */

/*
 * Member "ecn" of queue @p q:
 *   ecn = { mode = "step"; threshold_us = 100; };
 *   ecn = { mode = "ramp"; min_us = 20; max_us = 80; max_probability = "10%"; };
 */
static void load_ecn(struct cfg_reader *ld, const config_setting_t *q, struct qos_ecn_conf *e)
{
	static const char *const keys[] = { "mode",   "threshold_us",    "min_us",
					    "max_us", "max_probability", NULL };
	static const char *const step_only[] = { "threshold_us", NULL };
	static const char *const ramp_only[] = { "min_us", "max_us", "max_probability", NULL };
	const config_setting_t *s = cfg_get_typed(ld, q, "ecn", CONFIG_TYPE_GROUP), *ms;
	const char *v;

	if (s == NULL)
		return;
	e->line = cfg_line(s);
	cfg_check_members(ld, s, keys);
	if (cfg_get_string(ld, s, "mode", &v) != CFG_VAL_OK) {
		if (config_setting_get_member(s, "mode") == NULL)
			cfg_err_missing(ld, s, "mode");
		return;
	}
	if (strcmp(v, "step") == 0) {
		e->mode = QOS_ECN_STEP;
	} else if (strcmp(v, "ramp") == 0) {
		e->mode = QOS_ECN_RAMP;
	} else {
		cfg_err(ld, config_setting_get_member(s, "mode"),
			"unknown ECN mode '%s' (step or ramp)", v);
		return;
	}
	for (const char *const *k = e->mode == QOS_ECN_STEP ? ramp_only : step_only; *k; k++)
		if ((ms = config_setting_get_member(s, *k)) != NULL)
			cfg_err(ld, ms, "only ECN mode \"%s\" takes %s",
				e->mode == QOS_ECN_STEP ? "ramp" : "step", *k);
	if (e->mode == QOS_ECN_STEP) {
		if (cfg_get_u32(ld, s, "threshold_us", 1, QOS_ECN_MAX_US, &e->min_us) ==
		    CFG_VAL_ABSENT)
			cfg_err_missing(ld, s, "threshold_us");
		e->max_us = e->min_us;
		e->max_ppm = 1000000;
		return;
	}
	if (cfg_get_u32(ld, s, "min_us", 1, QOS_ECN_MAX_US, &e->min_us) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "min_us");
	if (cfg_get_u32(ld, s, "max_us", 1, QOS_ECN_MAX_US, &e->max_us) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "max_us");
	if (e->min_us && e->max_us && e->max_us <= e->min_us)
		cfg_err(ld, config_setting_get_member(s, "max_us"),
			"%u µs is not above min_us (%u µs): a ramp needs max_us > min_us (for one "
			"threshold, use mode \"step\")",
			e->max_us, e->min_us);
	ms = config_setting_get_member(s, "max_probability");
	if (ms == NULL) {
		cfg_err_missing(ld, s, "max_probability");
	} else {
		struct qos_rate r;
		const char *why = NULL;
		const char *str = config_setting_type(ms) == CONFIG_TYPE_STRING
					  ? config_setting_get_string(ms)
					  : NULL;
		if (str == NULL || qos_parse_rate(str, true, &r, &why) < 0 || r.ppm == 0)
			cfg_err(ld, ms, "want a percent, \"0.0001%%\" to \"100%%\"%s%s",
				why ? ": " : "", why ? why : "");
		else
			e->max_ppm = r.ppm;
	}
}

/* Member "queues" of business @p bs: priority queues, then weighted, then the default. */
static void load_queues(struct cfg_reader *ld, const config_setting_t *bs,
			struct qos_business_conf *b)
{
	static const char *const keys[] = { "name", "type", "cap", "percent", "limit", "ecn", NULL };
	static const char *const types[] = { "priority", "weighted", "default" };
	struct qos_queue_conf prio[QOS_MAX_PRIO_QUEUES], wq[QOS_MAX_WEIGHT_QUEUES], def = { 0 };
	const config_setting_t *list, *def_pct = NULL, *named_default = NULL;
	int n, np = 0, nw = 0, def_line = 0;
	uint32_t wsum = 0;
	bool has_def = false;

	list = get_list(ld, bs, "queues", 0, QOS_MAX_QUEUES, false, &n);
	for (int k = 0; k < n; k++) {
		const config_setting_t *e = group_elem(ld, list, k), *ms;
		struct qos_queue_conf q = { .limit = QOS_DEFAULT_QUEUE_LIMIT };
		const char *v;
		int rc, type = -1;

		if (e == NULL)
			continue;
		q.line = cfg_line(e);
		cfg_check_members(ld, e, keys);
		rc = cfg_get_name(ld, e, "name", q.name, NULL);
		if (rc == CFG_VAL_ABSENT)
			cfg_err_missing(ld, e, "name");
		rc = cfg_get_string(ld, e, "type", &v);
		if (rc == CFG_VAL_ABSENT)
			cfg_err_missing(ld, e, "type");
		for (int t = 0; rc == CFG_VAL_OK && t < 3; t++)
			if (strcmp(types[t], v) == 0)
				type = t;
		if (rc == CFG_VAL_OK && type < 0)
			cfg_err(ld, config_setting_get_member(e, "type"),
				"unknown queue type '%s' (priority, weighted or default)", v);
		q.type = (enum qos_queue_type)type;

		ms = config_setting_get_member(e, "cap");
		if (ms != NULL && type >= 0 && type != QOS_QUEUE_PRIORITY)
			cfg_err(ld, ms,
				"only a priority queue has a cap (a %s queue's share is its "
				"percent)",
				types[type]);
		else
			qos_cfg_get_rate(ld, e, "cap", true, &q.cap);
		ms = config_setting_get_member(e, "percent");
		if (ms != NULL && type == QOS_QUEUE_PRIORITY)
			cfg_err(ld, ms,
				"only weighted and default queues have a percent (a "
				"priority queue is served first, up to its cap)");
		else if (cfg_get_u32(ld, e, "percent", 1, 100, &q.percent) == CFG_VAL_ABSENT &&
			 type == QOS_QUEUE_WEIGHTED)
			cfg_err_missing(ld, e, "percent");
		cfg_get_u32(ld, e, "limit", 1, 65536, &q.limit);
		load_ecn(ld, e, &q.ecn);
		if (type < 0)
			continue;

		const struct qos_queue_conf *first = NULL;
		for (int j = 0; q.name[0] && j < np && !first; j++)
			first = strcmp(prio[j].name, q.name) == 0 ? &prio[j] : NULL;
		for (int j = 0; q.name[0] && j < nw && !first; j++)
			first = strcmp(wq[j].name, q.name) == 0 ? &wq[j] : NULL;
		if (q.name[0] && !first && has_def && strcmp(def.name, q.name) == 0)
			first = &def;
		if (first != NULL) {
			cfg_err_at(ld, config_setting_get_member(e, "name"),
				   "duplicate queue name '%s' in business '%s' (first at line %d)",
				   q.name, b->name, first->line);
			q.name[0] = '\0';
		}
		if (type != QOS_QUEUE_DEFAULT && strcmp(q.name, QOS_DEFAULT_QUEUE_NAME) == 0)
			named_default = config_setting_get_member(e, "name");

		if (type == QOS_QUEUE_PRIORITY) {
			if (np == QOS_MAX_PRIO_QUEUES)
				cfg_err(ld, e, "more than %d priority queues in business '%s'",
					QOS_MAX_PRIO_QUEUES, b->name);
			else
				prio[np++] = q;
		} else if (type == QOS_QUEUE_WEIGHTED) {
			if (nw == QOS_MAX_WEIGHT_QUEUES)
				cfg_err(ld, e, "more than %d weighted queues in business '%s'",
					QOS_MAX_WEIGHT_QUEUES, b->name);
			else {
				wq[nw++] = q;
				wsum += q.percent;
			}
		} else if (has_def) {
			cfg_err(ld, e, "business '%s' has one default queue (first at line %d)",
				b->name, def_line);
		} else {
			def = q;
			has_def = true;
			def_line = q.line;
			def_pct = config_setting_get_member(e, "percent");
		}
	}

	if (wsum > 100)
		cfg_err(ld, list,
			"the weighted queues of business '%s' take %u%% together, more "
			"than 100%%",
			b->name, wsum);
	if (!has_def) {
		/* the default queue vbrd adds takes what the weighted ones leave */
		def = (struct qos_queue_conf){ .name = QOS_DEFAULT_QUEUE_NAME,
					       .type = QOS_QUEUE_DEFAULT,
					       .limit = QOS_DEFAULT_QUEUE_LIMIT,
					       .line = b->line };
		if (named_default != NULL)
			cfg_err(ld, named_default,
				"'%s' is the name of the default queue added when none is listed: "
				"rename this queue, or give it type = \"default\"",
				QOS_DEFAULT_QUEUE_NAME);
	}
	if (!has_def || def_pct == NULL)
		def.percent = wsum >= 100 ? 1 : 100 - wsum;
	else if (wsum <= 100 && wsum + def.percent > 100)
		cfg_err(ld, def_pct,
			"the weighted queues of business '%s' take %u%%, so %u%% makes %u%% (at "
			"most 100%%)",
			b->name, wsum, def.percent, wsum + def.percent);

	memcpy(b->queues, prio, sizeof(prio[0]) * (size_t)np);
	memcpy(b->queues + np, wq, sizeof(wq[0]) * (size_t)nw);
	b->queues[np + nw] = def;
	b->nb_prio = np;
	b->nb_weighted = nw;
	b->nb_queues = np + nw + 1;
}

/* Both percents or both absolute: comparable without a line. */
static bool rates_comparable(const struct qos_rate *a, const struct qos_rate *b)
{
	return a->set && b->set && (a->ppm == 0) == (b->ppm == 0);
}

static bool rate_below(const struct qos_rate *a, const struct qos_rate *b)
{
	return a->ppm ? a->ppm < b->ppm : a->bps < b->bps;
}

static void load_business(struct cfg_reader *ld, const config_setting_t *s,
			  struct qos_policy_conf *pol, int k)
{
	static const char *const keys[] = { "name",    "guaranteed", "ceiling", "priority",
					    "policer", "queues",     NULL };
	struct qos_business_conf *b = &pol->businesses[k];
	uint32_t prio = QOS_DEFAULT_PRIORITY;
	char r1[24], r2[24];
	int rc;

	b->line = cfg_line(s);
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "name", b->name, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	for (int j = 0; b->name[0] && j < k; j++)
		if (strcmp(pol->businesses[j].name, b->name) == 0) {
			cfg_err_at(ld, config_setting_get_member(s, "name"),
				   "duplicate business name '%s' in policy '%s' (first at line %d)",
				   b->name, pol->name, pol->businesses[j].line);
			b->name[0] = '\0'; /* references resolve to the first one */
			break;
		}
	if (qos_cfg_get_rate(ld, s, "guaranteed", true, &b->guaranteed) == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "guaranteed");
	qos_cfg_get_rate(ld, s, "ceiling", true, &b->ceiling);
	if (rates_comparable(&b->ceiling, &b->guaranteed) &&
	    rate_below(&b->ceiling, &b->guaranteed))
		cfg_err(ld, config_setting_get_member(s, "ceiling"),
			"%s is below the guaranteed %s",
			qos_format_rate(&b->ceiling, r1, sizeof(r1)),
			qos_format_rate(&b->guaranteed, r2, sizeof(r2)));
	cfg_get_u32(ld, s, "priority", 0, QOS_PRIORITY_LEVELS - 1, &prio);
	b->priority = (uint8_t)prio;
	load_policer(ld, s, &b->policer);
	load_queues(ld, s, b);
}

/* ---- classes -------------------------------------------------------------------- */

static const struct {
	const char *name;
	int proto;
} protocols[] = {
	{ "tcp", IPPROTO_TCP },       { "udp", IPPROTO_UDP },   { "icmp", IPPROTO_ICMP },
	{ "icmpv6", IPPROTO_ICMPV6 }, { "sctp", IPPROTO_SCTP }, { "gre", IPPROTO_GRE },
};

/* Name of IP protocol @p proto for messages, "" when it has none here. */
static const char *protocol_name(int proto)
{
	for (size_t i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++)
		if (protocols[i].proto == proto)
			return protocols[i].name;
	return "";
}

/* Member "protocol" of class @p s (-1, any, when absent); false when it was reported. */
static bool load_protocol(struct cfg_reader *ld, const config_setting_t *s, struct qos_match *m)
{
	const config_setting_t *ps = config_setting_get_member(s, "protocol");
	long long v;

	m->protocol = -1;
	if (ps == NULL)
		return true;
	if (config_setting_type(ps) == CONFIG_TYPE_STRING) {
		const char *name = config_setting_get_string(ps);

		for (size_t i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++)
			if (strcmp(protocols[i].name, name) == 0) {
				m->protocol = protocols[i].proto;
				return true;
			}
		cfg_err(ld, ps,
			"unknown protocol '%s' (tcp, udp, icmp, icmpv6, sctp, gre or a number "
			"0..255)",
			name);
		return false;
	}
	if (cfg_int_value(ld, ps, 0, 255, &v) != CFG_VAL_OK)
		return false;
	m->protocol = (int)v;
	return true;
}

/* The match fields of class @p s. */
static void load_match(struct cfg_reader *ld, const config_setting_t *s, struct qos_match *m)
{
	const config_setting_t *ps;
	char a[INET6_ADDRSTRLEN + 4], b[INET6_ADDRSTRLEN + 4];
	bool proto_ok = load_protocol(ld, s, m);
	const char *v;
	uint32_t pcp;
	int lo, hi;

	m->has_src = get_prefix(ld, s, "source", &m->src);
	m->has_dst = get_prefix(ld, s, "destination", &m->dst);
	if (m->has_src && m->has_dst && m->src.addr.family != m->dst.addr.family) {
		cfg_err(ld, config_setting_get_member(s, "destination"),
			"%s is %s but the source %s is %s",
			config_format_prefix(&m->dst, a, sizeof(a)),
			cfg_family_name(m->dst.addr.family),
			config_format_prefix(&m->src, b, sizeof(b)),
			cfg_family_name(m->src.addr.family));
		m->has_dst = false;
	}
	m->family = m->has_src ? m->src.addr.family : m->has_dst ? m->dst.addr.family : 0;
	/* ICMP is IPv4's protocol 1, ICMPv6 IPv6's 58 (RFC 4443 §1); not checked
	 * when a prefix was reported (the family is not known) */
	bool family_known = m->has_src == (config_setting_get_member(s, "source") != NULL) &&
			    m->has_dst == (config_setting_get_member(s, "destination") != NULL);
	ps = config_setting_get_member(s, "protocol");
	if (family_known && m->protocol == IPPROTO_ICMP && m->family == AF_INET6)
		cfg_err(ld, ps, "icmp (1) is IPv4's and the prefixes are IPv6: use icmpv6 (58)");
	else if (family_known && m->protocol == IPPROTO_ICMPV6 && m->family == AF_INET)
		cfg_err(ld, ps, "icmpv6 (58) is IPv6's and the prefixes are IPv4: use icmp (1)");

	m->sport_lo = m->dport_lo = 0;
	m->sport_hi = m->dport_hi = 65535;
	static const char *const ports[] = { "src_port", "dst_port" };
	for (int i = 0; i < 2; i++) {
		ps = config_setting_get_member(s, ports[i]);
		if (ps == NULL || !range_value(ld, ps, 65535, "port", &lo, &hi))
			continue;
		if (i == 0) {
			m->sport_lo = (uint16_t)lo;
			m->sport_hi = (uint16_t)hi;
		} else {
			m->dport_lo = (uint16_t)lo;
			m->dport_hi = (uint16_t)hi;
		}
		if (proto_ok && m->protocol != IPPROTO_TCP && m->protocol != IPPROTO_UDP &&
		    m->protocol != IPPROTO_SCTP) {
			if (m->protocol < 0)
				cfg_err(ld, ps,
					"a port needs protocol tcp, udp or sctp (none given)");
			else
				cfg_err(ld, ps,
					"a port needs protocol tcp, udp or sctp, not %d%s%s%s",
					m->protocol, *protocol_name(m->protocol) ? " (" : "",
					protocol_name(m->protocol),
					*protocol_name(m->protocol) ? ")" : "");
		}
	}

	m->dscp_lo = m->dscp_hi = -1;
	ps = config_setting_get_member(s, "dscp");
	if (ps != NULL && range_value(ld, ps, 63, "DSCP", &lo, &hi)) {
		m->dscp_lo = lo;
		m->dscp_hi = hi;
	}
	m->ingress = -1;
	if (cfg_get_string(ld, s, "ingress", &v) == CFG_VAL_OK &&
	    (m->ingress = config_iface_index(ld->cfg, v)) < 0)
		cfg_err(ld, config_setting_get_member(s, "ingress"), "unknown interface '%s'", v);
	m->vrf = -1;
	if (config_setting_get_member(s, "vrf") != NULL &&
	    cfg_get_vrf(ld, s, "vrf", &m->vrf) != CFG_VAL_OK)
		m->vrf = -1;
	else if (m->vrf >= 0 && m->ingress >= 0 && ld->cfg->ifaces[m->ingress].vrf != m->vrf)
		cfg_err(ld, config_setting_get_member(s, "vrf"),
			"interface '%s' (ingress) is not in VRF '%s'", v,
			config_vrf_name(ld->cfg, m->vrf));
	m->pcp = -1;
	if (cfg_get_u32(ld, s, "pcp", 0, 7, &pcp) == CFG_VAL_OK)
		m->pcp = (int)pcp;
}

/* Members "business" and "queue" of class @p s. */
static void load_class_target(struct cfg_reader *ld, const config_setting_t *s,
			      const struct qos_policy_conf *pol, struct qos_class_conf *c)
{
	const struct qos_business_conf *b;
	const char *v;
	int rc = cfg_get_string(ld, s, "business", &v);

	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "business");
	if (rc != CFG_VAL_OK)
		return;
	if ((c->business = business_index(pol, v)) < 0) {
		cfg_err(ld, config_setting_get_member(s, "business"),
			"unknown business '%s' in policy '%s'", v, pol->name);
		return;
	}
	b = &pol->businesses[c->business];
	c->queue = b->nb_queues - 1; /* its default queue */
	if (cfg_get_string(ld, s, "queue", &v) != CFG_VAL_OK)
		return;
	if ((c->queue = queue_index(b, v)) >= 0)
		return;
	for (int i = 0; i < pol->nb_businesses; i++)
		if (queue_index(&pol->businesses[i], v) >= 0) {
			cfg_err(ld, config_setting_get_member(s, "queue"),
				"queue '%s' is in business '%s', not in '%s'", v,
				pol->businesses[i].name, b->name);
			return;
		}
	cfg_err(ld, config_setting_get_member(s, "queue"), "business '%s' has no queue '%s'",
		b->name, v);
}

/* Class @p k of @p pol from group @p s. @return whether its priority is valid */
static bool load_class(struct cfg_reader *ld, const config_setting_t *s,
		       struct qos_policy_conf *pol, int k)
{
	static const char *const keys[] = { "name",        "priority", "protocol", "source",
					    "destination", "src_port", "dst_port", "dscp",
					    "ingress",     "pcp",      "business", "queue",
					    "set_dscp",    "tier",     "policer",  "vrf",
					    NULL };
	struct qos_class_conf *c = &pol->classes[k];
	uint32_t set_dscp;
	const char *v;
	int rc;

	c->line = cfg_line(s);
	c->business = c->queue = -1;
	c->set_dscp = -1;
	c->tier = CFG_TIER_GOLD;
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "name", c->name, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	for (int j = 0; c->name[0] && j < k; j++)
		if (strcmp(pol->classes[j].name, c->name) == 0) {
			cfg_err_at(ld, config_setting_get_member(s, "name"),
				   "duplicate class name '%s' in policy '%s' (first at line %d)",
				   c->name, pol->name, pol->classes[j].line);
			break;
		}
	rc = cfg_get_u32(ld, s, "priority", 0, QOS_MAX_CLASS_PRIORITY, &c->priority);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "priority");
	load_match(ld, s, &c->match);
	load_class_target(ld, s, pol, c);
	if (cfg_get_u32(ld, s, "set_dscp", 0, 63, &set_dscp) == CFG_VAL_OK)
		c->set_dscp = (int)set_dscp;
	if (cfg_get_string(ld, s, "tier", &v) == CFG_VAL_OK) {
		int t;

		for (t = CFG_TIER_GOLD; t <= CFG_TIER_BRONZE; t++)
			if (strcmp(config_tier_name((enum cfg_tier)t), v) == 0)
				break;
		if (t <= CFG_TIER_BRONZE)
			c->tier = (enum cfg_tier)t;
		else
			cfg_err(ld, config_setting_get_member(s, "tier"),
				"unknown tier '%s' (gold, silver or bronze)", v);
	}
	load_policer(ld, s, &c->policer);
	return rc == CFG_VAL_OK;
}

struct prio_ref {
	uint32_t priority;
	int idx; /* in the file */
};

static int prio_ref_cmp(const void *a, const void *b)
{
	const struct prio_ref *x = a, *y = b;

	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x->idx - y->idx;
}

/* Priorities are unique within a policy: the lowest matching class wins. */
static void check_class_priorities(struct cfg_reader *ld, const config_setting_t *list,
				   const struct qos_policy_conf *pol, const bool *valid)
{
	struct prio_ref *v = malloc(sizeof(*v) * (size_t)(pol->nb_classes + 1));
	int n = 0;

	if (v == NULL) {
		ld->nomem = true;
		return;
	}
	for (int i = 0; i < pol->nb_classes; i++)
		if (valid[i])
			v[n++] = (struct prio_ref){ pol->classes[i].priority, i };
	qsort(v, (size_t)n, sizeof(*v), prio_ref_cmp);
	for (int i = 1, first = 0; i < n; i++) {
		if (v[i].priority != v[first].priority) {
			first = i;
			continue;
		}
		const struct qos_class_conf *f = &pol->classes[v[first].idx];
		const config_setting_t *e = config_setting_get_elem(list, (unsigned)v[i].idx);

		cfg_err(ld, config_setting_get_member(e, "priority"),
			"duplicate class priority %u in policy '%s' (first at line %d: class "
			"'%s')",
			v[i].priority, pol->name, f->line, f->name);
	}
	free(v);
}

static int class_cmp(const void *a, const void *b)
{
	const struct qos_class_conf *x = a, *y = b;

	return x->priority < y->priority ? -1 : x->priority > y->priority;
}

/* ---- policies -------------------------------------------------------------------- */

static void load_classes(struct cfg_reader *ld, const config_setting_t *s,
			 struct qos_policy_conf *pol)
{
	int n;
	const config_setting_t *list = get_list(ld, s, "classes", 0, QOS_MAX_CLASSES, false, &n);
	bool *valid;

	if (n <= 0)
		return;
	pol->classes = calloc((size_t)n, sizeof(*pol->classes));
	valid = calloc((size_t)n, sizeof(*valid));
	if (pol->classes == NULL || valid == NULL) {
		free(valid);
		ld->nomem = true;
		return;
	}
	for (int k = 0; k < n; k++) {
		const config_setting_t *e = group_elem(ld, list, k);

		pol->nb_classes++;
		if (e != NULL)
			valid[k] = load_class(ld, e, pol, k);
		else
			pol->classes[k] = (struct qos_class_conf){
				.business = -1,
				.queue = -1,
				.line = cfg_line(config_setting_get_elem(list, (unsigned)k))
			};
	}
	check_class_priorities(ld, list, pol, valid);
	free(valid);
}

static void load_policy(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "name", "default_business", "businesses", "classes",
					    NULL };
	struct qos_config *q = building(ld);
	struct qos_policy_conf *pol = &q->policies[idx];
	const config_setting_t *list;
	uint64_t pct = 0;
	const char *v;
	int n, rc;

	pol->line = cfg_line(s);
	pol->default_business = -1;
	cfg_check_members(ld, s, keys);
	rc = cfg_get_name(ld, s, "name", pol->name, NULL);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "name");
	for (int j = 0; pol->name[0] && j < idx; j++)
		if (strcmp(q->policies[j].name, pol->name) == 0) {
			cfg_err_at(ld, config_setting_get_member(s, "name"),
				   "duplicate policy name '%s' (first at line %d)", pol->name,
				   q->policies[j].line);
			pol->name[0] = '\0';
			break;
		}

	list = get_list(ld, s, "businesses", 1, QOS_MAX_BUSINESSES, true, &n);
	if (n > 0) {
		pol->businesses = calloc((size_t)n, sizeof(*pol->businesses));
		if (pol->businesses == NULL) {
			ld->nomem = true;
			return;
		}
	}
	for (int k = 0; k < n; k++) {
		const config_setting_t *e = group_elem(ld, list, k);

		pol->nb_businesses++;
		if (e != NULL)
			load_business(ld, e, pol, k);
		else
			pol->businesses[k].line = cfg_line(
				config_setting_get_elem(list, (unsigned)k));
		pct += pol->businesses[k].guaranteed.ppm;
	}
	if (pct > 1000000) {
		struct qos_rate sum = { .ppm = (uint32_t)pct, .set = true };
		char r[24];

		cfg_err(ld, list, "the guarantees of policy '%s' add up to %s, more than 100%%",
			pol->name, qos_format_rate(&sum, r, sizeof(r)));
	}

	rc = cfg_get_string(ld, s, "default_business", &v);
	if (rc == CFG_VAL_OK && (pol->default_business = business_index(pol, v)) < 0)
		cfg_err(ld, config_setting_get_member(s, "default_business"),
			"unknown business '%s' in policy '%s'", v, pol->name);
	else if (rc == CFG_VAL_ABSENT && pol->nb_businesses == 1)
		pol->default_business = 0;
	else if (rc == CFG_VAL_ABSENT && pol->nb_businesses > 1)
		cfg_err_missing(ld, s, "default_business");

	load_classes(ld, s, pol);
}

static void bad_policy(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	struct qos_policy_conf *pol = &building(ld)->policies[idx];

	pol->line = cfg_line(s);
	pol->default_business = -1;
}

/* ---- lines: qos.interfaces --------------------------------------------------------- */

/* Member "dscp_to_pcp" of line @p s: ( { dscp = 46 | [46, 40] | "40-47"; pcp = 5; } ). */
static void load_pcp_map(struct cfg_reader *ld, const config_setting_t *s, struct qos_line_conf *l)
{
	static const char *const keys[] = { "dscp", "pcp", NULL };
	const config_setting_t *list = cfg_get_typed(ld, s, "dscp_to_pcp", CONFIG_TYPE_LIST);
	bool mapped[64] = { false };
	int first[64]; /* line each mapped DSCP was mapped at */
	int n;

	if (list == NULL)
		return;
	l->has_pcp_map = true;
	n = config_setting_length(list);
	for (int k = 0; k < n; k++) {
		const config_setting_t *e = group_elem(ld, list, k), *ds;
		uint32_t pcp;
		int pcp_rc;

		if (e == NULL)
			continue;
		cfg_check_members(ld, e, keys);
		pcp_rc = cfg_get_u32(ld, e, "pcp", 0, 7, &pcp);
		if (pcp_rc == CFG_VAL_ABSENT)
			cfg_err_missing(ld, e, "pcp");
		ds = config_setting_get_member(e, "dscp");
		if (ds == NULL) {
			cfg_err_missing(ld, e, "dscp");
			continue;
		}
		bool many = cfg_is_sequence(ds);
		int m = many ? config_setting_length(ds) : 1;
		if (many && m == 0)
			cfg_err(ld, ds, "no DSCP given");
		for (int i = 0; i < m; i++) {
			const config_setting_t *vs = many ? config_setting_get_elem(ds, (unsigned)i)
							  : ds;
			int lo, hi;

			if (!range_value(ld, vs, 63, "DSCP", &lo, &hi))
				continue;
			for (int d = lo; d <= hi; d++) {
				if (mapped[d]) {
					cfg_err(ld, vs, "DSCP %d is already mapped (line %d)", d,
						first[d]);
					break;
				}
				mapped[d] = true;
				first[d] = cfg_line(vs);
				if (pcp_rc == CFG_VAL_OK)
					l->dscp_to_pcp[d] = (int8_t)pcp;
			}
		}
	}
}

/* Policy @p pol on line @p l: absolute rates fit its rate, and so do its guarantees together. */
static void check_line_rates(struct cfg_reader *ld, const config_setting_t *rs,
			     const struct qos_line_conf *l, const struct qos_policy_conf *pol)
{
	uint64_t rate = l->rate_bps, sum = 0;
	char r0[24], r1[24], r2[24];
	bool over = false;
	uint64_t pct = 0;

	qos_format_rate(&(struct qos_rate){ .bps = rate, .set = true }, r0, sizeof(r0));
	for (int i = 0; i < pol->nb_businesses; i++) {
		const struct qos_business_conf *b = &pol->businesses[i];
		const struct qos_rate *g = &b->guaranteed, *c = &b->ceiling;

		if (g->set && !g->ppm && g->bps > rate) {
			cfg_err(ld, rs,
				"%s is below the guaranteed %s of business '%s' (line %d) "
				"in policy '%s'",
				r0, qos_format_rate(g, r1, sizeof(r1)), b->name, b->line,
				pol->name);
			over = true;
		}
		if (c->set && !c->ppm && c->bps > rate)
			cfg_err(ld, rs,
				"%s is below the ceiling %s of business '%s' (line %d) in "
				"policy '%s'",
				r0, qos_format_rate(c, r1, sizeof(r1)), b->name, b->line,
				pol->name);
		for (int k = 0; k < b->nb_prio; k++) {
			const struct qos_queue_conf *q = &b->queues[k];

			if (q->cap.set && !q->cap.ppm && q->cap.bps > rate)
				cfg_err(ld, rs,
					"%s is below the cap %s of queue '%s' (line %d) of "
					"business '%s' in policy '%s'",
					r0, qos_format_rate(&q->cap, r1, sizeof(r1)), q->name,
					q->line, b->name, pol->name);
		}
		/* one percent, one absolute: comparable on this line only */
		if (g->set && c->set && !rates_comparable(g, c) &&
		    qos_rate_bps(c, rate) < qos_rate_bps(g, rate) && !over)
			cfg_err(ld, rs,
				"on this %s line business '%s' (line %d) of policy '%s' "
				"has a ceiling of %s, below its guarantee %s",
				r0, b->name, b->line, pol->name,
				format_bps(qos_rate_bps(c, rate), r1, sizeof(r1)),
				format_bps(qos_rate_bps(g, rate), r2, sizeof(r2)));
		sum += qos_rate_bps(g, rate);
		pct += g->ppm;
	}
	/* percents over 100% were reported on the policy */
	if (!over && pct <= 1000000 && sum > rate)
		cfg_err(ld, rs,
			"%s is below the %s the businesses of policy '%s' are guaranteed "
			"together",
			r0, format_bps(sum, r1, sizeof(r1)), pol->name);
}

/*
 * Policy @p pol on line @p l: each ECN threshold of a queue (a ramp's
 * max_us too) is within what a packet can find queued ahead of it (the
 * limit less itself, of @p frame-byte frames, each with the line's
 * overhead as a queue's bytes count it), else it would never mark (never
 * reach max_probability). Bytes as qos.c works them out: the line's
 * bytes/s rounded up, at least 1.
 */
static void check_line_ecn(struct cfg_reader *ld, const config_setting_t *rs,
			   const struct qos_line_conf *l, const struct qos_policy_conf *pol,
			   uint32_t frame)
{
	char r0[24];

	qos_format_rate(&(struct qos_rate){ .bps = l->rate_bps, .set = true }, r0, sizeof(r0));
	for (int i = 0; i < pol->nb_businesses; i++) {
		const struct qos_business_conf *b = &pol->businesses[i];

		for (int k = 0; k < b->nb_queues; k++) {
			const struct qos_queue_conf *q = &b->queues[k];
			uint64_t ahead = (uint64_t)(q->limit - 1) * (frame + l->overhead);

			for (int top = 0; q->ecn.mode != QOS_ECN_OFF && top < 2; top++) {
				uint32_t us = top ? q->ecn.max_us : q->ecn.min_us;
				uint64_t at = (l->rate_bps + 7) / 8 * us / 1000000;

				if (at == 0)
					at = 1;
				if (at <= ahead || (top && q->ecn.mode != QOS_ECN_RAMP))
					continue;
				cfg_err(ld, rs,
					"on this %s line the ECN %s of %u µs of queue '%s' (line "
					"%d) "
					"of business '%s' in policy '%s' is %llu bytes, more than "
					"the %llu that its %u packets of %u bytes (overhead "
					"counted) "
					"can have ahead of one: it would never %s",
					r0, top ? "max_us" : "threshold", us, q->name, q->ecn.line,
					b->name, pol->name, (unsigned long long)at,
					(unsigned long long)ahead, q->limit, frame + l->overhead,
					top ? "reach max_probability" : "mark");
				break; /* min_us over it: max_us is too */
			}
		}
	}
}

static void load_line(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	static const char *const keys[] = { "interface", "policy",      "rate", "overhead",
					    "burst",     "dscp_to_pcp", NULL };
	struct vbrd_config *cfg = ld->cfg;
	struct qos_config *q = building(ld);
	struct qos_line_conf *l = &q->lines[idx];
	const struct cfg_iface *ifc = NULL;
	const config_setting_t *rs, *ms;
	struct qos_rate rate = { 0 };
	char r[24];
	const char *v;
	int rc;

	l->line = cfg_line(s);
	l->iface = l->policy = -1;
	l->overhead = QOS_DEFAULT_OVERHEAD;
	memset(l->dscp_to_pcp, -1, sizeof(l->dscp_to_pcp));
	cfg_check_members(ld, s, keys);

	rc = cfg_get_string(ld, s, "interface", &v);
	ms = config_setting_get_member(s, "interface");
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "interface");
	else if (rc == CFG_VAL_OK && (l->iface = config_iface_index(cfg, v)) < 0) {
		if (config_tunnel_index(cfg, v) >= 0)
			cfg_err(ld, ms, "'%s' is a tunnel: shape the interface it runs over", v);
		else
			cfg_err(ld, ms, "unknown interface '%s'", v);
	}
	for (int j = 0; l->iface >= 0 && j < idx; j++)
		if (q->lines[j].iface == l->iface) {
			cfg_err(ld, ms, "interface '%s' already has a policy (line %d)", v,
				q->lines[j].line);
			break;
		}
	if (l->iface >= 0) {
		ifc = &cfg->ifaces[l->iface];
		if (ifc->port < 0 || ld->port_bad[ifc->port])
			ifc = NULL; /* its MTU is unknown */
	}

	rc = cfg_get_string(ld, s, "policy", &v);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "policy");
	for (int j = 0; rc == CFG_VAL_OK && j < q->nb_policies && l->policy < 0; j++)
		if (strcmp(q->policies[j].name, v) == 0)
			l->policy = j;
	if (rc == CFG_VAL_OK && l->policy < 0)
		cfg_err(ld, config_setting_get_member(s, "policy"), "unknown policy '%s'", v);

	rs = config_setting_get_member(s, "rate");
	rc = qos_cfg_get_rate(ld, s, "rate", false, &rate);
	if (rc == CFG_VAL_ABSENT)
		cfg_err_missing(ld, s, "rate");
	else if (rc == CFG_VAL_OK && rate.bps < QOS_MIN_LINE_RATE)
		cfg_err(ld, rs, "%s is below 1k, the slowest line vbrd shapes",
			qos_format_rate(&rate, r, sizeof(r)));
	else if (rc == CFG_VAL_OK)
		l->rate_bps = rate.bps;

	cfg_get_u32(ld, s, "overhead", 0, 64, &l->overhead);
	/* a line bucket smaller than a frame would never let one leave */
	if (cfg_get_u32(ld, s, "burst", 0, QOS_MAX_BURST, &l->burst) == CFG_VAL_OK && l->burst &&
	    ifc != NULL && l->burst < frame_bytes(ifc))
		cfg_err(ld, config_setting_get_member(s, "burst"),
			"%u bytes is below the %u-byte frames interface '%s' sends: none would "
			"ever "
			"leave",
			l->burst, frame_bytes(ifc), ifc->name);

	ms = config_setting_get_member(s, "dscp_to_pcp");
	if (ms != NULL && l->iface >= 0 && cfg->ifaces[l->iface].vlan == 0)
		cfg_err(ld, ms,
			"interface '%s' is untagged: only a VLAN interface has an 802.1p priority "
			"to set",
			cfg->ifaces[l->iface].name);
	load_pcp_map(ld, s, l);

	if (l->policy >= 0 && l->rate_bps)
		check_line_rates(ld, rs, l, &q->policies[l->policy]);
	if (l->policy >= 0 && l->rate_bps && l->iface >= 0)
		check_line_ecn(ld, rs, l, &q->policies[l->policy],
			       frame_bytes(&cfg->ifaces[l->iface]));
}

static void bad_line(struct cfg_reader *ld, const config_setting_t *s, int idx)
{
	struct qos_line_conf *l = &building(ld)->lines[idx];

	l->line = cfg_line(s);
	l->iface = l->policy = -1;
}

/* ---- across the section ------------------------------------------------------------ */

/*
 * Policer bursts of each policy against the largest frame of the lines it
 * shapes (the first such line when several send frames of that size).
 */
static void check_bursts(struct cfg_reader *ld, const config_setting_t *g,
			 const struct vbrd_config *cfg, const struct qos_config *q)
{
	const config_setting_t *pl = config_setting_get_member(g, "policies");

	for (int p = 0; p < q->nb_policies; p++) {
		const struct qos_policy_conf *pol = &q->policies[p];
		const config_setting_t *ps = pl ? config_setting_get_elem(pl, (unsigned)p) : NULL;
		const struct cfg_iface *big = NULL;

		for (int i = 0; i < q->nb_lines; i++) {
			const struct qos_line_conf *l = &q->lines[i];
			const struct cfg_iface *ifc = l->iface >= 0 ? &cfg->ifaces[l->iface] : NULL;

			if (l->policy != p || ifc == NULL || ifc->port < 0 ||
			    ld->port_bad[ifc->port])
				continue;
			if (big == NULL || frame_bytes(ifc) > frame_bytes(big))
				big = ifc;
		}
		if (big == NULL || ps == NULL || !config_setting_is_group(ps))
			continue;
		for (int b = 0; b < pol->nb_businesses; b++)
			check_policer_bursts(ld, nth_member(ps, "businesses", b, "policer"),
					     &pol->businesses[b].policer, big);
		for (int c = 0; c < pol->nb_classes; c++) /* still in file order */
			check_policer_bursts(ld, nth_member(ps, "classes", c, "policer"),
					     &pol->classes[c].policer, big);
	}
}

/* Packets the queues of every line can hold take mbufs: at most half of the pool. */
static void check_queue_memory(struct cfg_reader *ld, const config_setting_t *g,
			       const struct vbrd_config *cfg, const struct qos_config *q)
{
	unsigned long long total = 0;

	for (int i = 0; i < q->nb_lines; i++) {
		if (q->lines[i].policy < 0)
			continue;
		const struct qos_policy_conf *pol = &q->policies[q->lines[i].policy];
		for (int b = 0; b < pol->nb_businesses; b++)
			for (int k = 0; k < pol->businesses[b].nb_queues; k++)
				total += pol->businesses[b].queues[k].limit;
	}
	if (2 * total > cfg->mempool.mbufs)
		cfg_err(ld, config_setting_get_member(g, "interfaces"),
			"the queues of these %d lines hold up to %llu packets, more than half of "
			"mempool.mbufs (%u): raise mempool.mbufs or lower queue limits",
			q->nb_lines, total, cfg->mempool.mbufs);
}

static int qos_load(struct cfg_reader *ld, const config_setting_t *root, struct vbrd_config *cfg)
{
	static const char *const keys[] = { "policies", "interfaces", NULL };
	static const struct cfg_list_spec policies = {
		"policies",  0,          QOS_MAX_POLICIES, false, sizeof(struct qos_policy_conf),
		load_policy, bad_policy,
	};
	static const struct cfg_list_spec lines = {
		"interfaces", 0,        QOS_MAX_LINES, false, sizeof(struct qos_line_conf),
		load_line,    bad_line,
	};
	const config_setting_t *g = cfg_get_typed(ld, root, "qos", CONFIG_TYPE_GROUP);
	struct qos_config *q;
	int rc;

	if (g == NULL)
		return 0;
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return -ENOMEM;
	config_section_set(cfg, &qos_section, q); /* freed by qos_free() whatever happens */
	cfg_check_members(ld, g, keys);
	rc = cfg_load_list(ld, g, &policies, (void **)&q->policies, &q->nb_policies);
	if (rc == 0)
		rc = cfg_load_list(ld, g, &lines, (void **)&q->lines, &q->nb_lines);
	if (rc < 0 || ld->nomem)
		return -ENOMEM;
	check_bursts(ld, g, cfg, q);
	check_queue_memory(ld, g, cfg, q);
	for (int p = 0; p < q->nb_policies; p++)
		if (q->policies[p].nb_classes > 1)
			qsort(q->policies[p].classes, (size_t)q->policies[p].nb_classes,
			      sizeof(struct qos_class_conf), class_cmp);
	return 0;
}

static void qos_free(struct vbrd_config *cfg)
{
	struct qos_config *q = config_section_get(cfg, &qos_section);

	if (q == NULL)
		return;
	for (int p = 0; p < q->nb_policies; p++) {
		free(q->policies[p].businesses);
		free(q->policies[p].classes);
	}
	free(q->policies);
	free(q->lines);
	free(q);
	config_section_set(cfg, &qos_section, NULL);
}
