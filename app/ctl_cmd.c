/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control commands: the registry of handlers, dispatch of a request to the
 * handler with the longest matching command words, and the built-in "help".
 * The socket server (ctl.c) and the telemetry bridge (ctl_telemetry.c) both
 * come through here; so do the unit tests, with no socket at all.
 *
 * No DPDK here: the unit tests link this file with jansson alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/ctl.h"
#include "app/ctl_priv.h"

#define CTL_MAX_WORDS   64  /* words in one request's argv */
#define CTL_ERRLEN      512 /* handler error message buffer, bytes */
#define CTL_UNKNOWN_MAX 200 /* bytes of an unknown command echoed back */

/* One registered command. */
struct ctl_cmd {
	char *cmd; /* words joined by one space: "show routes" */
	char **words;
	int nwords;
	char *help;
	ctl_handler_t fn;
};

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

	(void)argv;
	if (argc > 0) {
		snprintf(err, errlen, "usage: help");
		return -EINVAL;
	}
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
		size_t off = 0;

		/* unknown command 'foo bar' (try 'help') */
		off = snprintf(err, errlen, "unknown command '");
		for (i = 0; i < argc && off < errlen; i++) {
			int room = CTL_UNKNOWN_MAX - (int)off;

			if (room <= 0)
				break;
			off += snprintf(err + off, errlen - off, "%s%.*s", i > 0 ? " " : "", room,
					argv[i]);
		}
		if (off < errlen)
			snprintf(err + off, errlen - off, "' (try 'help')");
		return -ENOENT;
	}
	rc = ctl_cmds[best].fn(argc - best_words, argv + best_words, data, err, errlen);
	if (errlen > 0)
		err[errlen - 1] = '\0';
	if (rc < 0) {
		json_decref(*data);
		*data = NULL;
		if (errlen > 0 && err[0] == '\0')
			snprintf(err, errlen, "%s: %s", ctl_cmds[best].cmd, strerror(-rc));
		return rc;
	}
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

	if (r == NULL) /* msg not valid UTF-8: say so rather than nothing */
		r = json_pack("{s:b, s:s}", "ok", 0, "error", "error message is not valid UTF-8");
	if (r == NULL)
		return NULL;
	s = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	return s;
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

void ctl_registry_clear(void)
{
	int i;

	for (i = 0; i < ctl_ncmds; i++)
		cmd_free(&ctl_cmds[i]);
	free(ctl_cmds);
	ctl_cmds = NULL;
	ctl_ncmds = 0;
}
