/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pre-scan of @include files (contract in config_include.h).
 *
 * The scanner below finds `@include "NAME"` exactly where libconfig 1.5's
 * flex scanner (lib/scanner.l) acts on it: the rule
 *     include_open  ^[ \t]*@include[ \t]+\"
 * matches only at the beginning of a line in the INITIAL state, that is
 * outside a string ("..."), a block comment and a line comment (# or //).
 * Inside NAME, \\ is a backslash and \" a quote; any other backslash is
 * dropped (flex's default rule). Tracking the same states means that an
 * @include in a comment is not followed here either, and that one libconfig
 * follows is never missed.
 */
#include "core/config_include.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INC_MSG_MAX 512 /* bytes of one message */

/* State of one config_include_check() call. */
struct scan {
	char dir[PATH_MAX]; /* include directory ("" for none) */
	bool has_dir;
	size_t total;   /* bytes read so far, every file together */
	unsigned count; /* @include directives followed so far */
	struct {
		dev_t dev;
		ino_t ino;
	} open[CFG_INCLUDE_MAX_DEPTH + 1]; /* files being read, top first */
	int depth;                         /* entries in open[] */
	config_include_report_t report;
	void *arg;
	bool too_big; /* CFG_INCLUDE_MAX_BYTES reached: stop scanning */
	bool nomem;
	int problems;
};

/* Where the file being read was named: the top file, or an @include line. */
struct origin {
	const char *file; /* including file; NULL for the top file */
	int line;
	const char *name;     /* NAME as written in the @include */
	const char *resolved; /* the path opened */
};

__attribute__((format(printf, 3, 4))) static void problem(struct scan *s, const struct origin *o,
							  const char *fmt, ...)
{
	char text[INC_MSG_MAX], msg[INC_MSG_MAX + PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	s->problems++;
	if (o->file == NULL) {
		s->report(s->arg, o->resolved, 0, text);
		return;
	}
	if (strcmp(o->name, o->resolved) == 0)
		snprintf(msg, sizeof(msg), "@include \"%s\": %s", o->name, text);
	else
		snprintf(msg, sizeof(msg), "@include \"%s\" (%s): %s", o->name, o->resolved, text);
	s->report(s->arg, o->file, o->line, msg);
}

static const char *file_type(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown type";
}

/*
 * Open @p o->resolved and read it whole into @p buf (NUL-terminated, @p len
 * bytes without the NUL). A file that is not regular is refused before it is
 * opened when stat() tells, and after (fstat()) in any case.
 * @return 0, or -errno with the problem reported.
 */
static int read_whole(struct scan *s, const struct origin *o, struct stat *st, char **buf,
		      size_t *len)
{
	size_t limit = CFG_INCLUDE_MAX_BYTES - s->total, cap, n = 0;
	char *b = NULL, *tmp;
	int fd, rc;

	*buf = NULL;
	if (stat(o->resolved, st) == 0 && !S_ISREG(st->st_mode)) {
		problem(s, o, "%s, not a regular file", file_type(st->st_mode));
		return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	}
	fd = open(o->resolved, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		problem(s, o, "cannot open: %s", strerror(errno));
		return rc;
	}
	if (fstat(fd, st) < 0) {
		rc = -errno;
		problem(s, o, "cannot read: %s", strerror(errno));
		goto err;
	}
	if (!S_ISREG(st->st_mode)) {
		problem(s, o, "%s, not a regular file", file_type(st->st_mode));
		rc = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
		goto err;
	}
	/* st_size is 0 for /proc files: only a hint, the reads decide. */
	if (st->st_size > 0 && (unsigned long long)st->st_size > limit)
		goto err_big;
	cap = st->st_size > 0 ? (size_t)st->st_size + 1 : 4096;
	if (cap > limit + 1)
		cap = limit + 1;
	b = malloc(cap + 1);
	if (b == NULL)
		goto err_nomem;
	for (;;) {
		ssize_t r;

		if (n == cap) { /* n <= limit here: grow up to limit + 1 */
			cap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
			tmp = realloc(b, cap + 1);
			if (tmp == NULL)
				goto err_nomem;
			b = tmp;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			/* EIO: /proc/self/mem; EAGAIN: a file that would block. */
			rc = -errno;
			problem(s, o, "cannot read: %s", strerror(errno));
			goto err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > limit)
			goto err_big;
	}
	close(fd);
	b[n] = '\0';
	s->total += n;
	*buf = b;
	*len = n;
	return 0;

err_big:
	s->too_big = true;
	if (o->file == NULL)
		problem(s, o, "larger than %u MiB", CFG_INCLUDE_MAX_BYTES >> 20);
	else
		problem(s, o, "the configuration and its includes are larger than %u MiB",
			CFG_INCLUDE_MAX_BYTES >> 20);
	rc = -EFBIG;
	goto err;
err_nomem:
	s->nomem = true;
	rc = -ENOMEM;
err:
	free(b);
	close(fd);
	return rc;
}

static int scan_file(struct scan *s, const struct origin *o);

/* Check the file named by `@include "NAME"` at @p line of @p file. */
static void scan_include(struct scan *s, const char *file, int line, const char *name)
{
	char resolved[PATH_MAX];
	struct origin o = { .file = file, .line = line, .name = name, .resolved = resolved };
	int n;

	if (s->has_dir)
		n = snprintf(resolved, sizeof(resolved), "%s/%s", s->dir, name);
	else
		n = snprintf(resolved, sizeof(resolved), "%s", name);
	if (n < 0 || (size_t)n >= sizeof(resolved)) {
		o.resolved = name;
		problem(s, &o, "path longer than %d bytes", PATH_MAX - 1);
		return;
	}
	if (s->depth > CFG_INCLUDE_MAX_DEPTH) {
		problem(s, &o, "includes nested deeper than %d levels", CFG_INCLUDE_MAX_DEPTH);
		return;
	}
	if (++s->count > CFG_INCLUDE_MAX_COUNT) {
		if (s->count == CFG_INCLUDE_MAX_COUNT + 1)
			problem(s, &o, "more than %d @include directives in all",
				CFG_INCLUDE_MAX_COUNT);
		s->too_big = true; /* stop scanning */
		return;
	}
	scan_file(s, &o);
}

/* Outcome of parse_name(). */
enum { NAME_OK, NAME_TOO_LONG, NAME_UNTERMINATED };

/*
 * Parse the NAME of an @include whose opening quote is just before @p i into
 * @p name, as libconfig builds it (a NUL ends the run of plain characters it
 * is in). @p end is set to the index after the closing quote.
 * @return NAME_OK, NAME_TOO_LONG (@p name holds the start), or
 *         NAME_UNTERMINATED (libconfig then just reaches the end of file)
 */
static int parse_name(const char *buf, size_t len, size_t i, char *name, size_t cap, size_t *end)
{
	bool run_cut = false; /* a NUL ended the current run */
	size_t n = 0;

	while (i < len) {
		char c = buf[i++];

		if (c == '"') {
			*end = i;
			name[n < cap ? n : cap - 1] = '\0';
			return n < cap ? NAME_OK : NAME_TOO_LONG;
		}
		if (c == '\\') {
			run_cut = false;
			if (i < len && (buf[i] == '\\' || buf[i] == '"'))
				c = buf[i++];
			else
				continue; /* flex's default rule eats a lone backslash */
		} else if (c == '\0' || run_cut) {
			run_cut = true;
			continue;
		}
		if (n < cap)
			name[n] = c;
		n++;
	}
	*end = len;
	return NAME_UNTERMINATED;
}

/* Follow every @include of @p buf (@p len bytes, the contents of @p file). */
static void scan_includes(struct scan *s, const char *file, const char *buf, size_t len)
{
	static const char kw[] = "@include";
	char name[PATH_MAX];
	bool bol = true; /* at the beginning of a line */
	int line = 1;
	size_t i = 0;

	while (i < len && !s->too_big && !s->nomem) {
		char c = buf[i];

		if (bol) {
			size_t j = i;

			bol = false;
			while (j < len && (buf[j] == ' ' || buf[j] == '\t'))
				j++;
			if (len - j > sizeof(kw) && memcmp(buf + j, kw, sizeof(kw) - 1) == 0 &&
			    (buf[j + sizeof(kw) - 1] == ' ' || buf[j + sizeof(kw) - 1] == '\t')) {
				size_t k = j + sizeof(kw) - 1;
				int at = line;

				while (k < len && (buf[k] == ' ' || buf[k] == '\t'))
					k++;
				if (k < len && buf[k] == '"') {
					size_t end;
					int st = parse_name(buf, len, k + 1, name, sizeof(name),
							    &end);

					for (; i < end; i++)
						line += buf[i] == '\n';
					if (st == NAME_UNTERMINATED)
						return;
					if (st == NAME_TOO_LONG) {
						struct origin o = { file, at, name, name };

						problem(s, &o, "path longer than %d bytes",
							PATH_MAX - 1);
						continue;
					}
					scan_include(s, file, at, name);
					continue;
				}
			}
		}
		if (c == '\n') {
			line++;
			bol = true;
			i++;
		} else if (c == '"') {
			/* a string: \" and \\ do not end it */
			for (i++; i < len && buf[i] != '"'; i++) {
				if (buf[i] == '\\' && i + 1 < len &&
				    (buf[i + 1] == '"' || buf[i + 1] == '\\'))
					i++;
				else
					line += buf[i] == '\n';
			}
			i++;
		} else if (c == '#' || (c == '/' && i + 1 < len && buf[i + 1] == '/')) {
			while (i < len && buf[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < len && buf[i + 1] == '*') {
			/* a block comment: to the first star-slash, or the end */
			for (i += 2; i + 1 < len && !(buf[i] == '*' && buf[i + 1] == '/'); i++)
				line += buf[i] == '\n';
			i += 2;
		} else {
			i++;
		}
	}
}

/* Check, read and scan one file; @return 0 or the -errno of its problem. */
static int scan_file(struct scan *s, const struct origin *o)
{
	struct stat st;
	size_t len = 0;
	char *buf;
	int i, rc;

	rc = read_whole(s, o, &st, &buf, &len);
	if (rc < 0)
		return rc;
	for (i = 0; i < s->depth; i++) {
		if (s->open[i].dev == st.st_dev && s->open[i].ino == st.st_ino) {
			problem(s, o, "include loop: the file is already being read");
			free(buf);
			return -ELOOP;
		}
	}
	s->open[s->depth].dev = st.st_dev;
	s->open[s->depth].ino = st.st_ino;
	s->depth++;
	scan_includes(s, o->resolved, buf, len);
	s->depth--;
	free(buf);
	return 0;
}

int config_include_check(const char *path, config_include_report_t report, void *arg)
{
	struct scan *s;
	struct origin top = { .resolved = path };
	const char *slash;
	int rc;

	if (path == NULL || report == NULL)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->report = report;
	s->arg = arg;
	/* The directory config_load() gives config_set_include_dir(). */
	slash = strrchr(path, '/');
	if (slash != NULL) {
		s->has_dir = true;
		snprintf(s->dir, sizeof(s->dir), "%.*s", (int)(slash - path), path);
		if (s->dir[0] == '\0')
			strcpy(s->dir, "/");
	}
	rc = scan_file(s, &top);
	if (rc == 0 && s->problems > 0)
		rc = -EINVAL;
	if (s->nomem)
		rc = -ENOMEM;
	free(s);
	return rc;
}
