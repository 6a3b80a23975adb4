/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control commands: the registry of handlers, dispatch of a request to the
 * handler with the longest matching command words, and the built-in "help".
 * The number of arguments is checked here, from the usage a command's help
 * line declares (ctl_register() in ctl.h), and every error message leaves
 * valid UTF-8 (JSON strings must be), even when cut to its buffer.
 * The socket server (ctl.c) and the telemetry bridge (ctl_telemetry.c) both
 * come through here; so do the unit tests, with no socket at all.
 *
 * No DPDK here: the unit tests link this file with jansson alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctl.h"
#include "core/ctl_priv.h"

#define CTL_MAX_WORDS   64  /* words in one request's argv */
#define CTL_ERRLEN      512 /* handler error message buffer, bytes */
#define CTL_UNKNOWN_MAX 200 /* bytes of an unknown command echoed back */
#define CTL_ARG_MAX     64  /* bytes of an unexpected argument echoed back */

/* One registered command. */
struct ctl_cmd {
	char *cmd; /* words joined by one space: "show routes" */
	char **words;
	int nwords;
	char *help;
	char *usage;  /* "path set GROUP PATH": the command and its arguments */
	int min_args; /* arguments after the command words */
	int max_args; /* -1: no limit */
	ctl_handler_t fn;
};

/* ---- UTF-8 (RFC 3629) ------------------------------------------------------ */

/*
 * Length of the well-formed UTF-8 sequence at @p s (RFC 3629 §4: no overlong
 * form, no surrogate, at most U+10FFFF; what jansson accepts), or 0.
 * @p left is the number of bytes available at @p s.
 */
static size_t utf8_seq(const unsigned char *s, size_t left)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) ||  /* overlong */
	    (s[0] == 0xed && s[1] >= 0xa0) || /* U+D800..U+DFFF */
	    (s[0] == 0xf0 && s[1] < 0x90) ||  /* overlong */
	    (s[0] == 0xf4 && s[1] >= 0x90))   /* above U+10FFFF */
		return 0;
	return n;
}

/* True when @p s (@p left bytes, to the end of the string) is a cut sequence. */
static bool utf8_cut_tail(const unsigned char *s, size_t left)
{
	size_t need, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4;
	else
		return false;
	if (left >= need)
		return false;
	for (i = 1; i < left; i++)
		if ((s[i] & 0xc0) != 0x80)
			return false;
	return true;
}

/*
 * Make the NUL-terminated @p s valid UTF-8 in place: a sequence cut at the
 * end (snprintf() into a short buffer) is removed, any other ill-formed byte
 * becomes '?'.
 */
static void utf8_fix(char *s)
{
	unsigned char *u = (unsigned char *)s;
	size_t len = strlen(s), i = 0;

	while (i < len) {
		size_t n = utf8_seq(u + i, len - i);

		if (n > 0) {
			i += n;
		} else if (utf8_cut_tail(u + i, len - i)) {
			u[i] = '\0';
			return;
		} else {
			u[i++] = '?';
		}
	}
}

/*
 * Copy at most @p max bytes of @p s to @p buf (@p cap bytes, NUL included),
 * never cutting a character. @return true when @p s was cut.
 */
static bool copy_cut(char *buf, size_t cap, const char *s, size_t max)
{
	size_t len = strlen(s);

	if (max >= cap)
		max = cap - 1;
	if (len <= max) {
		memcpy(buf, s, len + 1);
		return false;
	}
	memcpy(buf, s, max);
	buf[max] = '\0';
	utf8_fix(buf);
	return true;
}

static struct ctl_cmd *ctl_cmds;
static int ctl_ncmds;

/* ---- command registry ---------------------------------------------------- */

static void cmd_free(struct ctl_cmd *c)
{
	int i;

	for (i = 0; i < c->nwords; i++)
		free(c->words[i]);
	free(c->words);
	free(c->cmd);
	free(c->help);
	free(c->usage);
}

/* Split @p s on blanks into @p words (malloc'd). @return count or -errno. */
static int split_words(const char *s, char ***words)
{
	char **w = NULL, **tmp;
	int n = 0;

	for (;;) {
		size_t len;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			break;
		len = strcspn(s, " \t");
		if (n == CTL_MAX_WORDS)
			goto err_inval;
		tmp = realloc(w, (n + 1) * sizeof(*w));
		if (tmp == NULL)
			goto err_nomem;
		w = tmp;
		w[n] = strndup(s, len);
		if (w[n] == NULL)
			goto err_nomem;
		n++;
		s += len;
	}
	*words = w;
	return n;

err_inval:
	while (n > 0)
		free(w[--n]);
	free(w);
	return -EINVAL;
err_nomem:
	while (n > 0)
		free(w[--n]);
	free(w);
	return -ENOMEM;
}

static int cmd_find_exact(char **words, int nwords)
{
	int i, j;

	for (i = 0; i < ctl_ncmds; i++) {
		if (ctl_cmds[i].nwords != nwords)
			continue;
		for (j = 0; j < nwords; j++)
			if (strcmp(ctl_cmds[i].words[j], words[j]) != 0)
				break;
		if (j == nwords)
			return i;
	}
	return -1;
}

/*
 * One argument word of a usage: NAME, [NAME] (optional), NAME... (one or
 * more), [NAME...] (any number); NAME is upper case, digits, '_' and '-'.
 * @return true when @p w (@p len bytes) is one; @p min and @p max (-1: no
 * limit) grow by what it takes.
 */
static bool usage_word(const char *w, size_t len, int *min, int *max)
{
	bool opt = false, more = false, upper = false;
	size_t i;

	if (len >= 2 && w[0] == '[' && w[len - 1] == ']') {
		opt = true;
		w++;
		len -= 2;
	}
	if (len > 3 && memcmp(w + len - 3, "...", 3) == 0) {
		more = true;
		len -= 3;
	}
	if (len == 0)
		return false;
	for (i = 0; i < len; i++) {
		if (w[i] >= 'A' && w[i] <= 'Z')
			upper = true;
		else if (!(w[i] >= '0' && w[i] <= '9') && w[i] != '_' && w[i] != '-')
			return false;
	}
	if (!upper)
		return false;
	if (!opt)
		(*min)++;
	if (more)
		*max = -1;
	else if (*max >= 0)
		(*max)++;
	return true;
}

/*
 * The arguments @p c takes, declared by its help line: "path set GROUP PATH:
 * make PATH the active path" takes two, "show routes [PREFIX]: ..." zero or
 * one. A help line that is not the command words, argument words and a ':'
 * declares none: the command takes no arguments.
 * @return 0 or -ENOMEM
 */
static int cmd_parse_usage(struct ctl_cmd *c)
{
	size_t len = strlen(c->cmd);
	const char *p = c->help + len;
	int min = 0, max = 0;

	if (strncmp(c->help, c->cmd, len) != 0 || (*p != ' ' && *p != ':'))
		goto none;
	for (;;) {
		size_t wlen;

		while (*p == ' ')
			p++;
		if (*p == ':')
			break;
		wlen = strcspn(p, " :");
		if (wlen == 0 || !usage_word(p, wlen, &min, &max))
			goto none;
		p += wlen;
	}
	while (p > c->help + len && p[-1] == ' ')
		p--;
	c->usage = strndup(c->help, p - c->help);
	c->min_args = min;
	c->max_args = max;
	return c->usage != NULL ? 0 : -ENOMEM;
none:
	c->usage = strdup(c->cmd);
	c->min_args = c->max_args = 0;
	return c->usage != NULL ? 0 : -ENOMEM;
}

static int cmd_help(int argc, const char *const *argv, json_t **data, char *err, size_t errlen);
static int ctl_builtins(void);

static int cmd_add(const char *cmd, const char *help, ctl_handler_t fn)
{
	struct ctl_cmd c = { .fn = fn }, *tmp;
	size_t len = 0;
	int i, rc;

	if (cmd == NULL || fn == NULL)
		return -EINVAL;
	rc = split_words(cmd, &c.words);
	if (rc < 0)
		return rc;
	c.nwords = rc;
	if (c.nwords == 0) {
		rc = -EINVAL;
		goto err;
	}
	if (cmd_find_exact(c.words, c.nwords) >= 0) {
		rc = -EEXIST;
		goto err;
	}
	for (i = 0; i < c.nwords; i++)
		len += strlen(c.words[i]) + 1;
	c.cmd = malloc(len);
	c.help = strdup(help != NULL ? help : "");
	if (c.cmd == NULL || c.help == NULL) {
		rc = -ENOMEM;
		goto err;
	}
	c.cmd[0] = '\0';
	for (i = 0; i < c.nwords; i++) {
		if (i > 0)
			strcat(c.cmd, " ");
		strcat(c.cmd, c.words[i]);
	}
	rc = cmd_parse_usage(&c);
	if (rc < 0)
		goto err;
	tmp = realloc(ctl_cmds, (ctl_ncmds + 1) * sizeof(*tmp));
	if (tmp == NULL) {
		rc = -ENOMEM;
		goto err;
	}
	ctl_cmds = tmp;
	ctl_cmds[ctl_ncmds++] = c;
	return 0;

err:
	cmd_free(&c);
	return rc;
}

/* Register the built-in commands once (and again after ctl_fini()). */
static int ctl_builtins(void)
{
	char *help_word = (char *)"help";

	if (cmd_find_exact(&help_word, 1) >= 0)
		return 0;
	return cmd_add("help", "list the commands", cmd_help);
}

int ctl_register(const char *cmd, const char *help, ctl_handler_t fn)
{
	int rc = ctl_builtins();

	if (rc < 0)
		return rc;
	return cmd_add(cmd, help, fn);
}

static int cmd_cmp(const void *a, const void *b)
{
	const struct ctl_cmd *const *x = a, *const *y = b;

	return strcmp((*x)->cmd, (*y)->cmd);
}

/* "help": {"commands": [{"command", "help"}]}, sorted by command. */
static int cmd_help(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct ctl_cmd **sorted;
	json_t *obj, *arr;
	int i;

	(void)argc, (void)argv; /* none: checked by ctl_call() */
	sorted = calloc(ctl_ncmds, sizeof(*sorted));
	obj = json_object();
	arr = json_array();
	if (sorted == NULL || obj == NULL || arr == NULL ||
	    json_object_set(obj, "commands", arr) < 0)
		goto err_nomem;
	for (i = 0; i < ctl_ncmds; i++)
		sorted[i] = &ctl_cmds[i];
	qsort(sorted, ctl_ncmds, sizeof(*sorted), cmd_cmp);
	for (i = 0; i < ctl_ncmds; i++) {
		json_t *e = json_pack("{s:s, s:s}", "command", sorted[i]->cmd, "help",
				      sorted[i]->help);

		if (e == NULL || json_array_append_new(arr, e) < 0)
			goto err_nomem;
	}
	json_decref(arr);
	free(sorted);
	*data = obj;
	return 0;

err_nomem:
	json_decref(arr);
	json_decref(obj);
	free(sorted);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* ---- dispatch ------------------------------------------------------------ */

/* -EINVAL with a usage message when @p nargs arguments do not fit @p c. */
static int check_args(const struct ctl_cmd *c, int nargs, const char *const *args, char *err,
		      size_t errlen)
{
	char arg[CTL_ARG_MAX + 1];
	bool cut;

	if (nargs < c->min_args) {
		snprintf(err, errlen, "%s: missing argument (usage: %s)", c->cmd, c->usage);
	} else if (c->max_args >= 0 && nargs > c->max_args) {
		cut = copy_cut(arg, sizeof(arg), args[c->max_args], CTL_ARG_MAX);
		snprintf(err, errlen, "%s: unexpected argument '%s%s' (usage: %s)", c->cmd, arg,
			 cut ? "..." : "", c->usage);
	} else {
		return 0;
	}
	if (errlen > 0)
		utf8_fix(err);
	return -EINVAL;
}

int ctl_call(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	int best = -1, best_words = 0, i, j, rc;

	*data = NULL;
	if (errlen > 0)
		err[0] = '\0';
	rc = ctl_builtins();
	if (rc < 0) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	for (i = 0; i < ctl_ncmds; i++) {
		const struct ctl_cmd *c = &ctl_cmds[i];

		if (c->nwords > argc || c->nwords <= best_words)
			continue;
		for (j = 0; j < c->nwords; j++)
			if (strcmp(c->words[j], argv[j]) != 0)
				break;
		if (j == c->nwords) {
			best = i;
			best_words = c->nwords;
		}
	}
	if (best < 0) {
		char words[CTL_UNKNOWN_MAX + 1];
		size_t off = 0;
		bool cut = false;

		/* unknown command 'foo bar' (try 'help'), cut at CTL_UNKNOWN_MAX bytes */
		words[0] = '\0';
		for (i = 0; i < argc && !cut; i++) {
			if (i > 0 && off == CTL_UNKNOWN_MAX) {
				cut = true;
				break;
			}
			if (i > 0)
				words[off++] = ' ';
			cut = copy_cut(words + off, sizeof(words) - off, argv[i],
				       CTL_UNKNOWN_MAX - off);
			off += strlen(words + off);
		}
		snprintf(err, errlen, "unknown command '%s%s' (try 'help')", words,
			 cut ? "..." : "");
		if (errlen > 0)
			utf8_fix(err);
		return -ENOENT;
	}
	rc = check_args(&ctl_cmds[best], argc - best_words, argv + best_words, err, errlen);
	if (rc < 0)
		return rc;
	rc = ctl_cmds[best].fn(argc - best_words, argv + best_words, data, err, errlen);
	if (errlen > 0) {
		err[errlen - 1] = '\0';
		utf8_fix(err); /* the handler's message may be cut inside a character */
	}
	if (rc < 0) {
		json_decref(*data);
		*data = NULL;
		if (errlen > 0 && err[0] == '\0')
			snprintf(err, errlen, "%s: %s", ctl_cmds[best].cmd, strerror(-rc));
		return rc;
	}
	if (rc == CTL_DEFERRED)
		return rc; /* answered later: no data now */
	if (*data == NULL) {
		*data = json_object();
		if (*data == NULL) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

char *ctl_reply_error(const char *msg)
{
	json_t *r = json_pack("{s:b, s:s}", "ok", 0, "error", msg);
	char *s;

	if (r == NULL && (s = strdup(msg)) != NULL) {
		/* not valid UTF-8: send what is, with '?' for the bad bytes */
		utf8_fix(s);
		r = json_pack("{s:b, s:s}", "ok", 0, "error", s);
		free(s);
	}
	if (r == NULL)
		return NULL;
	s = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	return s;
}

char *ctl_reply_line(int rc, json_t *data, const char *err)
{
	json_t *reply;
	char *line;

	if (rc < 0) {
		json_decref(data);
		return ctl_reply_error(err);
	}
	if (data == NULL)
		data = json_object();
	reply = json_pack("{s:b, s:o}", "ok", 1, "data", data);
	if (reply == NULL)
		return ctl_reply_error("out of memory");
	line = json_dumps(reply, JSON_COMPACT);
	json_decref(reply);
	return line != NULL ? line : ctl_reply_error("cannot encode the reply");
}

int ctl_eval(const char *buf, size_t len, char **reply_line)
{
	const char *argv[CTL_MAX_WORDS];
	char err[CTL_ERRLEN];
	json_error_t jerr;
	json_t *req, *jargv, *data = NULL, *reply;
	size_t i, argc;
	int rc;

	*reply_line = NULL;
	req = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (req == NULL) {
		snprintf(err, sizeof(err), "malformed request: %s (column %d)", jerr.text,
			 jerr.column);
		rc = -EINVAL;
		goto out_err;
	}
	if (!json_is_object(req)) {
		snprintf(err, sizeof(err),
			 "malformed request: expected an object {\"argv\": [...]}");
		rc = -EINVAL;
		goto out_err;
	}
	jargv = json_object_get(req, "argv");
	if (jargv == NULL) {
		snprintf(err, sizeof(err), "malformed request: missing \"argv\"");
		rc = -EINVAL;
		goto out_err;
	}
	if (!json_is_array(jargv)) {
		snprintf(err, sizeof(err),
			 "malformed request: \"argv\" must be an array of strings");
		rc = -EINVAL;
		goto out_err;
	}
	argc = json_array_size(jargv);
	if (argc == 0) {
		snprintf(err, sizeof(err), "empty command (try 'help')");
		rc = -EINVAL;
		goto out_err;
	}
	if (argc > CTL_MAX_WORDS) {
		snprintf(err, sizeof(err), "malformed request: more than %d words in \"argv\"",
			 CTL_MAX_WORDS);
		rc = -E2BIG;
		goto out_err;
	}
	for (i = 0; i < argc; i++) {
		argv[i] = json_string_value(json_array_get(jargv, i));
		if (argv[i] == NULL) {
			snprintf(err, sizeof(err),
				 "malformed request: \"argv\" must be an array of strings");
			rc = -EINVAL;
			goto out_err;
		}
	}
	rc = ctl_call((int)argc, argv, &data, err, sizeof(err));
	if (rc == CTL_DEFERRED) {
		/* the handler answers later (ctl_deferred_reply()) */
		json_decref(req);
		return CTL_DEFERRED;
	}
	if (rc < 0)
		goto out_err;
	reply = json_pack("{s:b, s:o}", "ok", 1, "data", data);
	if (reply == NULL) {
		snprintf(err, sizeof(err), "out of memory");
		rc = -ENOMEM;
		goto out_err;
	}
	*reply_line = json_dumps(reply, JSON_COMPACT);
	json_decref(reply);
	json_decref(req);
	if (*reply_line == NULL) {
		*reply_line = ctl_reply_error("cannot encode the reply");
		return -ENOMEM;
	}
	return 0;

out_err:
	json_decref(req);
	*reply_line = ctl_reply_error(err);
	return rc;
}

int ctl_dispatch(const char *request_line, char **reply_line)
{
	size_t len;

	if (reply_line == NULL)
		return -EINVAL;
	*reply_line = NULL;
	if (request_line == NULL)
		return -EINVAL;
	len = strlen(request_line);
	if (len > 0 && request_line[len - 1] == '\n')
		len--;
	return ctl_eval(request_line, len, reply_line);
}

/* ---- telemetry endpoints ------------------------------------------------- */

#define CTL_MAX_EXPORTS 64

static struct {
	char *cmd, *path, *help;
	unsigned key_members;
} exports[CTL_MAX_EXPORTS];
static int nb_exports;

int ctl_export(const char *cmd, const char *tel_path, const char *help)
{
	return ctl_export_keyed(cmd, tel_path, help, 1);
}

int ctl_export_keyed(const char *cmd, const char *tel_path, const char *help, unsigned key_members)
{
	if (cmd == NULL || tel_path == NULL || tel_path[0] != '/' || strlen(tel_path) >= 64 ||
	    key_members < 1 || key_members > 4)
		return -EINVAL;
	for (int i = 0; i < nb_exports; i++)
		if (strcmp(exports[i].path, tel_path) == 0)
			return -EEXIST;
	if (nb_exports == CTL_MAX_EXPORTS)
		return -ENOSPC;
	exports[nb_exports].cmd = strdup(cmd);
	exports[nb_exports].path = strdup(tel_path);
	exports[nb_exports].help = strdup(help ? help : "");
	exports[nb_exports].key_members = key_members;
	if (!exports[nb_exports].cmd || !exports[nb_exports].path || !exports[nb_exports].help) {
		free(exports[nb_exports].cmd);
		free(exports[nb_exports].path);
		free(exports[nb_exports].help);
		return -ENOMEM;
	}
	nb_exports++;
	return 0;
}

int ctl_export_foreach(int (*fn)(const char *cmd, const char *tel_path, const char *help,
				 unsigned key_members))
{
	for (int i = 0; i < nb_exports; i++) {
		int rc = fn(exports[i].cmd, exports[i].path, exports[i].help,
			    exports[i].key_members);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void ctl_registry_clear(void)
{
	int i;

	for (i = 0; i < ctl_ncmds; i++)
		cmd_free(&ctl_cmds[i]);
	free(ctl_cmds);
	ctl_cmds = NULL;
	ctl_ncmds = 0;
	for (i = 0; i < nb_exports; i++) {
		free(exports[i].cmd);
		free(exports[i].path);
		free(exports[i].help);
	}
	nb_exports = 0;
}
