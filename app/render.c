/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vbrctl's generic renderer (rules in render.h). Every command's output is
 * derived from the shape of its JSON alone, so a new command needs no code
 * here. No DPDK: unit-tested with jansson alone.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app/render.h"

/* ---- one value as text ---------------------------------------------------- */

static bool is_scalar(const json_t *v)
{
	return !json_is_object(v) && !json_is_array(v);
}

/* A non-empty array whose elements are all objects: shown as a table. */
static bool is_table(const json_t *v)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(v) || json_array_size(v) == 0)
		return false;
	json_array_foreach(v, i, e) if (!json_is_object(e)) return false;
	return true;
}

/* An object of scalars only: shown as an indented "key  value" block. */
static bool is_scalar_object(const json_t *v)
{
	const char *key;
	const json_t *m;

	if (!json_is_object(v))
		return false;
	json_object_foreach((json_t *)v, key, m) if (!is_scalar(m)) return false;
	return true;
}

/* A next hop as show routes gives it: {"via": "...", "interface": "..."[, "vrf": "..."]}. */
static bool is_next_hop(const json_t *v)
{
	return json_is_object(v) && json_is_string(json_object_get(v, "via")) &&
	       json_is_string(json_object_get(v, "interface"));
}

static void put_compact(FILE *f, const json_t *v)
{
	json_dumpf(v, f, JSON_COMPACT | JSON_ENCODE_ANY);
}

static void put_scalar(FILE *f, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		if (json_string_length(v) == 0)
			fputc('-', f);
		else
			fwrite(json_string_value(v), 1, json_string_length(v), f);
		break;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		fprintf(f, "%g", json_real_value(v));
		break;
	case JSON_TRUE:
		fputs("true", f);
		break;
	case JSON_FALSE:
		fputs("false", f);
		break;
	case JSON_NULL:
		fputc('-', f);
		break;
	default:
		put_compact(f, v);
		break;
	}
}

/* "10.0.1.2@lan0", or "lan0" for a directly connected next hop. */
static void put_next_hop(FILE *f, const json_t *v)
{
	const char *via = json_string_value(json_object_get(v, "via"));
	const char *ifname = json_string_value(json_object_get(v, "interface"));

	const char *vrf = json_string_value(json_object_get(v, "vrf"));

	if (via[0] != '\0')
		fprintf(f, "%s@%s", via, ifname);
	else
		fputs(ifname, f);
	/* of another VRF than the route's (a leak): "10.200.0.2@svc(vrf shared)" */
	if (vrf != NULL)
		fprintf(f, "(vrf %s)", vrf);
}

static void put_value(FILE *f, const json_t *v)
{
	bool scalars = true, hops = true;
	const json_t *e;
	size_t i;

	if (!json_is_array(v)) {
		if (json_is_object(v))
			put_compact(f, v);
		else
			put_scalar(f, v);
		return;
	}
	if (json_array_size(v) == 0) {
		fputc('-', f);
		return;
	}
	json_array_foreach(v, i, e)
	{
		scalars = scalars && is_scalar(e);
		hops = hops && is_next_hop(e);
	}
	if (!scalars && !hops) {
		put_compact(f, v);
		return;
	}
	json_array_foreach(v, i, e)
	{
		if (i > 0)
			fputc(',', f);
		if (hops)
			put_next_hop(f, e);
		else
			put_scalar(f, e);
	}
}

/* @return @p v as text in a malloc'd string, or NULL when out of memory. */
static char *fmt_value(const json_t *v)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (f == NULL)
		return NULL;
	if (v != NULL)
		put_value(f, v);
	else
		fputc('-', f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- tables, blocks, objects ---------------------------------------------- */

static int render_table(FILE *out, const json_t *rows, int indent)
{
	const json_t *first = json_array_get(rows, 0), *row, *v;
	size_t nrows = json_array_size(rows), ncols, r, c;
	const char **keys = NULL, *key;
	char **cells = NULL;
	size_t *width = NULL;
	bool *numeric = NULL;
	int rc = -ENOMEM;

	ncols = json_object_size(first);
	if (ncols == 0)
		return 0;
	keys = calloc(ncols, sizeof(*keys));
	width = calloc(ncols, sizeof(*width));
	numeric = calloc(ncols, sizeof(*numeric));
	cells = calloc(nrows * ncols, sizeof(*cells));
	if (keys == NULL || width == NULL || numeric == NULL || cells == NULL)
		goto out;
	c = 0;
	json_object_foreach((json_t *)first, key, v)
	{
		keys[c] = key;
		width[c] = strlen(key);
		numeric[c] = true;
		c++;
	}
	json_array_foreach(rows, r, row)
	{
		for (c = 0; c < ncols; c++) {
			v = json_object_get(row, keys[c]);
			if (v != NULL && !json_is_number(v))
				numeric[c] = false;
			cells[r * ncols + c] = fmt_value(v);
			if (cells[r * ncols + c] == NULL)
				goto out;
			if (strlen(cells[r * ncols + c]) > width[c])
				width[c] = strlen(cells[r * ncols + c]);
		}
	}

	/* Header: upper-case keys; numbers right-aligned, last column unpadded. */
	fprintf(out, "%*s", indent, "");
	for (c = 0; c < ncols; c++) {
		int pad = (int)(width[c] - strlen(keys[c]));
		const char *k;

		if (c > 0)
			fputs("  ", out);
		if (numeric[c])
			fprintf(out, "%*s", pad, "");
		for (k = keys[c]; *k != '\0'; k++)
			fputc(toupper((unsigned char)*k), out);
		if (!numeric[c] && c + 1 < ncols)
			fprintf(out, "%*s", pad, "");
	}
	fputc('\n', out);
	for (r = 0; r < nrows; r++) {
		fprintf(out, "%*s", indent, "");
		for (c = 0; c < ncols; c++) {
			const char *cell = cells[r * ncols + c];

			if (c > 0)
				fputs("  ", out);
			if (numeric[c])
				fprintf(out, "%*s", (int)width[c], cell);
			else if (c + 1 < ncols)
				fprintf(out, "%-*s", (int)width[c], cell);
			else
				fputs(cell, out);
		}
		fputc('\n', out);
	}
	rc = 0;
out:
	if (cells != NULL)
		for (r = 0; r < nrows * ncols; r++)
			free(cells[r]);
	free(cells);
	free(numeric);
	free(width);
	free(keys);
	return rc;
}

static bool is_zero(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) == 0;
}

/* An object of scalars: "key  value" lines, zero counters hidden if many. */
static int render_block(FILE *out, const json_t *obj, int indent)
{
	bool hide = json_object_size(obj) > RENDER_HIDE_ZEROS_ABOVE;
	size_t kw = 0, vw = 0, hidden = 0;
	const char *key;
	const json_t *v;

	json_object_foreach((json_t *)obj, key, v)
	{
		char *cell;

		if (hide && is_zero(v)) {
			hidden++;
			continue;
		}
		cell = fmt_value(v);
		if (cell == NULL)
			return -ENOMEM;
		if (strlen(key) > kw)
			kw = strlen(key);
		if (json_is_number(v) && strlen(cell) > vw)
			vw = strlen(cell);
		free(cell);
	}
	json_object_foreach((json_t *)obj, key, v)
	{
		char *cell;

		if (hide && is_zero(v))
			continue;
		cell = fmt_value(v);
		if (cell == NULL)
			return -ENOMEM;
		if (json_is_number(v))
			fprintf(out, "%*s%-*s  %*s\n", indent, "", (int)kw, key, (int)vw, cell);
		else
			fprintf(out, "%*s%-*s  %s\n", indent, "", (int)kw, key, cell);
		free(cell);
	}
	if (hidden > 0)
		fprintf(out, "%*s(%zu zero counter%s hidden, -j shows all)\n", indent, "", hidden,
			hidden == 1 ? "" : "s");
	else if (json_object_size(obj) == 0)
		fprintf(out, "%*s(none)\n", indent, "");
	return 0;
}

/*
 * An object: scalars as aligned "key: value" lines, nested objects and tables
 * under a "key:" heading, each section set off by a blank line. A top-level
 * object holding only one table ({"routes": [...]}) prints just the table.
 */
static int render_object(FILE *out, const json_t *obj, int indent, bool top)
{
	bool sole = top && json_object_size(obj) == 1;
	bool printed = false, after_section = false;
	size_t kw = 0;
	const char *key;
	const json_t *v;
	int rc;

	json_object_foreach((json_t *)obj, key, v) if (!json_is_object(v) && !is_table(v) &&
						       strlen(key) > kw) kw = strlen(key);

	json_object_foreach((json_t *)obj, key, v)
	{
		bool section = json_is_object(v) || is_table(v);
		char *cell;

		if (sole && json_is_array(v) && json_array_size(v) == 0) {
			fprintf(out, "%*s(no %s)\n", indent, "", key);
			return 0;
		}
		if (sole && section && is_table(v))
			return render_table(out, v, indent);
		if (printed && (section || after_section))
			fputc('\n', out);
		printed = true;
		after_section = section;
		if (section) {
			fprintf(out, "%*s%s:\n", indent, "", key);
			if (is_table(v))
				rc = render_table(out, v, indent + 2);
			else if (is_scalar_object(v))
				rc = render_block(out, v, indent + 2);
			else
				rc = render_object(out, v, indent + 2, false);
			if (rc < 0)
				return rc;
			continue;
		}
		cell = fmt_value(v);
		if (cell == NULL)
			return -ENOMEM;
		fprintf(out, "%*s%s:%*s %s\n", indent, "", key, (int)(kw - strlen(key)), "", cell);
		free(cell);
	}
	return 0;
}

/* ---- entry points ------------------------------------------------------- */

int render_human(FILE *out, const json_t *data)
{
	int rc = 0;

	if (json_is_object(data)) {
		rc = render_object(out, data, 0, true);
	} else if (is_table(data)) {
		rc = render_table(out, data, 0);
	} else if (data != NULL) {
		char *cell = fmt_value(data);

		if (cell == NULL)
			return -ENOMEM;
		fprintf(out, "%s\n", cell);
		free(cell);
	}
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		rc = -EIO;
	return rc;
}

int render_json(FILE *out, const json_t *data)
{
	if (json_dumpf(data, out, JSON_INDENT(2) | JSON_ENCODE_ANY) < 0)
		return -EIO;
	fputc('\n', out);
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}

int render_reply(const char *reply, size_t len, bool json, FILE *out, FILE *err)
{
	const json_t *ok, *data, *msg;
	json_error_t jerr;
	json_t *r;
	int status;

	r = json_loadb(reply, len, 0, &jerr);
	ok = json_object_get(r, "ok");
	if (r == NULL || !json_is_boolean(ok)) {
		fprintf(err, "vbrctl: invalid reply from vbrd: %s\n",
			r == NULL ? jerr.text : "no \"ok\" member");
		json_decref(r);
		return 2;
	}
	if (json_is_false(ok)) {
		msg = json_object_get(r, "error");
		fprintf(err, "vbrctl: %s\n",
			json_is_string(msg) ? json_string_value(msg) : "error without a message");
		json_decref(r);
		return 1;
	}
	data = json_object_get(r, "data");
	status = 0;
	if (data != NULL) {
		int rc = json ? render_json(out, data) : render_human(out, data);

		if (rc < 0) {
			fprintf(err, "vbrctl: cannot write the output: %s\n", strerror(-rc));
			status = 2;
		}
	}
	json_decref(r);
	return status;
}
