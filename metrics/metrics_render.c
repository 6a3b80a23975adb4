/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exposition format from command replies (metrics_render.h).
 *
 * Format: Prometheus "Exposition formats", text format 0.0.4: per family
 * a "# HELP name text" and a "# TYPE name counter|gauge" line, then one
 * line per sample, `name{label="value",...} value`. Label values escape
 * \ " and line feed, HELP text \ and line feed; nothing else is escaped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics/metrics_render.h"

#define PAGE_CHUNK 16384 /* the page grows by at least this much */

uint64_t metrics_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void metrics_page_init(struct metrics_page *pg, size_t max)
{
	memset(pg, 0, sizeof(*pg));
	pg->max = max;
}

void metrics_page_free(struct metrics_page *pg)
{
	json_decref(pg->reply);
	free(pg->text);
	memset(pg, 0, sizeof(*pg));
}

char *metrics_page_take(struct metrics_page *pg, size_t *len)
{
	char *t = pg->text;

	*len = pg->len;
	pg->text = NULL;
	pg->len = pg->cap = 0;
	return t;
}

static bool page_stopped(const struct metrics_page *pg)
{
	return pg->too_large || pg->nomem;
}

static void put(struct metrics_page *pg, const char *s, size_t n)
{
	if (page_stopped(pg))
		return;
	if (pg->len + n + 1 > pg->max) {
		pg->too_large = true;
		return;
	}
	if (pg->len + n + 1 > pg->cap) {
		size_t cap = pg->cap * 2 > pg->len + n + PAGE_CHUNK ? pg->cap * 2
								    : pg->len + n + PAGE_CHUNK;
		char *t = realloc(pg->text, cap);

		if (t == NULL) {
			pg->nomem = true;
			return;
		}
		pg->text = t;
		pg->cap = cap;
	}
	memcpy(pg->text + pg->len, s, n);
	pg->len += n;
	pg->text[pg->len] = '\0';
}

static void puts_(struct metrics_page *pg, const char *s)
{
	put(pg, s, strlen(s));
}

/* Append @p s with the characters of @p esc ("\\\"\n") escaped. */
static void put_escaped(struct metrics_page *pg, const char *s, const char *esc)
{
	const char *run = s;

	for (; *s != '\0'; s++) {
		if (strchr(esc, *s) == NULL)
			continue;
		put(pg, run, (size_t)(s - run));
		put(pg, *s == '\n' ? "\\n" : *s == '"' ? "\\\"" : "\\\\", 2);
		run = s + 1;
	}
	put(pg, run, (size_t)(s - run));
}

void metrics_put_label_value(struct metrics_page *pg, const char *s)
{
	put_escaped(pg, s, "\\\"\n");
}

void metrics_put_help(struct metrics_page *pg, const char *s)
{
	put_escaped(pg, s, "\\\n");
}

/* ---- reading a row ------------------------------------------------------- */

/* Member @p path of @p obj, dotted for nested objects ("redis.link"), or NULL. */
static json_t *member(json_t *obj, const char *path)
{
	char seg[64];

	while (obj != NULL && json_is_object(obj)) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(seg))
			return NULL;
		memcpy(seg, path, n);
		seg[n] = '\0';
		obj = json_object_get(obj, seg);
		if (dot == NULL)
			return obj;
		path = dot + 1;
	}
	return NULL;
}

/* A label's value as text into @p buf: a string as is, a number or a boolean written. */
static const char *label_text(const struct metric_label *l, json_t *row, json_t *parent, char *buf,
			      size_t len)
{
	json_t *v;

	if (l->fixed != NULL)
		return l->fixed;
	v = strncmp(l->key, "../", 3) == 0 ? member(parent, l->key + 3) : member(row, l->key);
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	return NULL;
}

/* Whether string @p s is one of @p alts ("a|b|c"). */
static bool is_one_of(const char *s, const char *alts)
{
	size_t n = strlen(s);

	for (const char *a = alts;; a++) {
		const char *bar = strchr(a, '|');
		size_t an = bar ? (size_t)(bar - a) : strlen(a);

		if (an == n && strncmp(a, s, n) == 0)
			return true;
		if (bar == NULL)
			return false;
		a = bar;
	}
}

static void put_double(struct metrics_page *pg, double v)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.15g", v);
	puts_(pg, buf);
}

/* The HELP and TYPE lines of @p s's family, before its first sample. */
static void family_header(struct metrics_page *pg, const struct metric_spec *s)
{
	if (pg->family != NULL && strcmp(pg->family, s->name) == 0)
		return;
	pg->family = s->name;
	puts_(pg, "# HELP ");
	puts_(pg, s->name);
	puts_(pg, " ");
	metrics_put_help(pg, s->help != NULL ? s->help : "");
	puts_(pg, "\n# TYPE ");
	puts_(pg, s->name);
	puts_(pg, s->type == METRIC_COUNTER ? " counter\n" : " gauge\n");
}

/* `name{a="x",b="y"` (the brace left open when @p extra follows) for one sample. */
static void put_series(struct metrics_page *pg, const struct metric_spec *s,
		       const char *const *values, const char *extra_name, const char *extra)
{
	bool any = false;

	family_header(pg, s);
	puts_(pg, s->name);
	for (int i = 0; i < METRIC_MAX_LABELS && s->labels[i].name != NULL; i++) {
		puts_(pg, any ? "," : "{");
		any = true;
		puts_(pg, s->labels[i].name);
		puts_(pg, "=\"");
		metrics_put_label_value(pg, values[i]);
		puts_(pg, "\"");
	}
	if (extra_name != NULL) {
		puts_(pg, any ? "," : "{");
		any = true;
		puts_(pg, extra_name);
		puts_(pg, "=\"");
		metrics_put_label_value(pg, extra);
		puts_(pg, "\"");
	}
	puts_(pg, any ? "} " : " ");
	pg->samples++;
}

/* The samples of spec @p s from one row (and the row that holds its table). */
static void render_row(struct metrics_page *pg, const struct metric_spec *s, json_t *row,
		       json_t *parent)
{
	char bufs[METRIC_MAX_LABELS][32];
	const char *values[METRIC_MAX_LABELS];
	json_t *v = member(row, s->value);

	for (int i = 0; i < METRIC_MAX_LABELS && s->labels[i].name != NULL; i++) {
		values[i] = label_text(&s->labels[i], row, parent, bufs[i], sizeof(bufs[i]));
		if (values[i] == NULL || (s->how == METRIC_ONE && values[i][0] == '\0'))
			return; /* the row lacks what names the sample */
	}
	switch (s->how) {
	case METRIC_NUMBER:
		if (json_is_integer(v) && s->div == 0) {
			char buf[32];

			snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
			put_series(pg, s, values, NULL, NULL);
			puts_(pg, buf);
		} else if (json_is_number(v)) {
			put_series(pg, s, values, NULL, NULL);
			put_double(pg, json_number_value(v) / (s->div != 0 ? s->div : 1));
		} else if (json_is_boolean(v)) {
			put_series(pg, s, values, NULL, NULL);
			puts_(pg, json_is_true(v) ? "1" : "0");
		} else {
			return;
		}
		break;
	case METRIC_IS:
		if (json_is_string(v)) {
			put_series(pg, s, values, NULL, NULL);
			puts_(pg, is_one_of(json_string_value(v), s->match) ? "1" : "0");
		} else if (json_is_boolean(v)) {
			put_series(pg, s, values, NULL, NULL);
			puts_(pg, json_is_true(v) ? "1" : "0");
		} else {
			return;
		}
		break;
	case METRIC_STATESET:
		if (!json_is_string(v))
			return;
		for (const char *a = s->match;;) {
			const char *bar = strchr(a, '|');
			char alt[64];
			size_t n = bar ? (size_t)(bar - a) : strlen(a);

			if (n >= sizeof(alt))
				n = sizeof(alt) - 1;
			memcpy(alt, a, n);
			alt[n] = '\0';
			put_series(pg, s, values, s->state_label, alt);
			puts_(pg, strcmp(alt, json_string_value(v)) == 0 ? "1\n" : "0\n");
			if (bar == NULL)
				return;
			a = bar + 1;
		}
	case METRIC_ONE:
		put_series(pg, s, values, NULL, NULL);
		puts_(pg, "1");
		break;
	}
	puts_(pg, "\n");
}

/* Every row of @p s in reply @p r. */
static void render_spec(struct metrics_page *pg, const struct metric_spec *s, json_t *r)
{
	char outer[64];
	const char *inner;
	json_t *rows, *row;
	size_t i, j;

	if (s->rows == NULL) {
		render_row(pg, s, r, NULL);
		return;
	}
	inner = strchr(s->rows, '/');
	snprintf(outer, sizeof(outer), "%.*s", inner ? (int)(inner - s->rows) : 63, s->rows);
	rows = json_object_get(r, outer);
	json_array_foreach(rows, i, row)
	{
		if (inner == NULL) {
			render_row(pg, s, row, NULL);
			continue;
		}
		json_t *sub, *srow = json_object_get(row, inner + 1);
		json_array_foreach(srow, j, sub) render_row(pg, s, sub, row);
	}
}

bool metrics_page_step(struct metrics_page *pg, const struct metric_spec *specs, unsigned nb,
		       metrics_call_t call, uint64_t deadline_ns)
{
	bool ran = false;

	for (; pg->next < nb && !page_stopped(pg); pg->next++) {
		const struct metric_spec *s = &specs[pg->next];

		if (pg->cmd == NULL || strcmp(pg->cmd, s->cmd) != 0) {
			/* a command at a time: the clock is looked at between two */
			if (ran && metrics_now_ns() >= deadline_ns)
				return false;
			json_decref(pg->reply);
			pg->reply = NULL;
			pg->cmd = s->cmd;
			pg->rc = call(s->cmd, &pg->reply);
			ran = true;
			if (pg->rc < 0 && pg->rc != -ENOENT)
				pg->cmd_errors++;
		}
		if (pg->rc == 0 && pg->reply != NULL)
			render_spec(pg, s, pg->reply);
	}
	json_decref(pg->reply);
	pg->reply = NULL;
	pg->cmd = NULL;
	return true;
}

/* ---- the table's own check ----------------------------------------------- */

static bool name_ok(const char *s, bool colon)
{
	if (s == NULL || *s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (colon && *s == ':')))
			return false;
	return true;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);

	return n >= e && strcmp(s + n - e, end) == 0;
}

int metrics_specs_check(const struct metric_spec *specs, unsigned nb, char *err, size_t errlen)
{
	for (unsigned i = 0; i < nb; i++) {
		const struct metric_spec *s = &specs[i];
		const char *why = NULL;

		if (!name_ok(s->name, true) || strncmp(s->name, "vbrd_", 5) != 0)
			why = "a name of [a-zA-Z0-9_:] that starts with vbrd_";
		else if (s->type == METRIC_COUNTER && !ends_with(s->name, "_total"))
			why = "a counter's name ends in _total";
		else if (s->type == METRIC_GAUGE && ends_with(s->name, "_total"))
			why = "only a counter's name ends in _total";
		else if (s->cmd == NULL || s->value == NULL)
			why = "a command and a member to read";
		else if ((s->how == METRIC_IS || s->how == METRIC_STATESET) && s->match == NULL)
			why = "the strings to match";
		else if (s->how == METRIC_STATESET && !name_ok(s->state_label, false))
			why = "the state label's name";
		for (int l = 0; why == NULL && l < METRIC_MAX_LABELS && s->labels[l].name; l++) {
			const struct metric_label *lb = &s->labels[l];

			if (!name_ok(lb->name, false) || strncmp(lb->name, "__", 2) == 0)
				why = "label names of [a-zA-Z0-9_], not starting with __";
			else if ((lb->key == NULL) == (lb->fixed == NULL))
				why = "a label with a member or a fixed value, not both";
			else if (lb->key != NULL && strncmp(lb->key, "../", 3) == 0 &&
				 (s->rows == NULL || strchr(s->rows, '/') == NULL))
				why = "../ in a label of a table that is not nested";
			for (int m = 0; why == NULL && m < l; m++)
				if (strcmp(s->labels[m].name, lb->name) == 0)
					why = "a label name used twice";
		}
		/* (one type a family: the _total rule above sees to it) */
		if (why == NULL && (i == 0 || strcmp(specs[i - 1].name, s->name) != 0)) {
			if (s->help == NULL || s->help[0] == '\0')
				why = "a family's first spec with its HELP text";
			for (unsigned k = 0; why == NULL && k + 1 < i; k++)
				if (strcmp(specs[k].name, s->name) == 0)
					why = "the specs of a family side by side";
		}
		if (why != NULL) {
			snprintf(err, errlen, "metric spec %u (%s): %s", i, s->name ? s->name : "?",
				 why);
			return -EINVAL;
		}
	}
	return 0;
}
