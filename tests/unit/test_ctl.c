/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control plane plumbing: command dispatch (ctl_cmd.c) through
 * ctl_dispatch(), the socket server (ctl.c + evloop.c) over a real UNIX
 * socket, and vbrctl's renderer (render.c).
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "app/ctl.h"
#include "core/evloop.h"
#include "app/render.h"

/* ---- dummy handlers -------------------------------------------------------- */

/* Replies {"handler": TAG, "args": [...]} so tests see who ran with what. */
static int reply_args(const char *tag, int argc, const char *const *argv, json_t **data)
{
	json_t *args = json_array();
	int i;

	for (i = 0; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	*data = json_pack("{s:s, s:o}", "handler", tag, "args", args);
	return 0;
}

static int h_show(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return reply_args("show", argc, argv, data);
}

static int h_show_routes(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return reply_args("show routes", argc, argv, data);
}

static int h_fail(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	*data = json_object(); /* must be dropped by the dispatcher */
	snprintf(err, errlen, "vbrd.conf:3: bad thing");
	return -EINVAL;
}

static int h_fail_silent(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	(void)data;
	(void)err;
	(void)errlen;
	return -EBUSY;
}

static int h_nodata(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	(void)data;
	(void)err;
	(void)errlen;
	return 0;
}

static int setup_cmds(void **state)
{
	(void)state;
	assert_int_equal(ctl_register("show", "show [WHAT...]: generic show", h_show), 0);
	assert_int_equal(
		ctl_register("show routes", "show routes [PREFIX]: the FIB", h_show_routes), 0);
	assert_int_equal(ctl_register("reload", "reload the config", h_fail), 0);
	assert_int_equal(ctl_register("busy", "fails without a message", h_fail_silent), 0);
	assert_int_equal(ctl_register("nodata", "returns no data", h_nodata), 0);
	return 0;
}

static int teardown_cmds(void **state)
{
	(void)state;
	ctl_fini();
	return 0;
}

/* Dispatch @p req; check the return code; @return the parsed reply. */
static json_t *dispatch(const char *req, int want_rc)
{
	char *line = NULL;
	json_t *r;

	assert_int_equal(ctl_dispatch(req, &line), want_rc);
	assert_non_null(line);
	assert_null(strchr(line, '\n'));
	r = json_loads(line, 0, NULL);
	assert_non_null(r);
	free(line);
	assert_true(json_is_boolean(json_object_get(r, "ok")));
	return r;
}

static const char *reply_error(const json_t *r)
{
	assert_true(json_is_false(json_object_get(r, "ok")));
	return json_string_value(json_object_get(r, "error"));
}

/* ---- dispatch ---------------------------------------------------------------- */

static void test_longest_prefix(void **state)
{
	json_t *r, *d;

	(void)state;
	r = dispatch("{\"argv\": [\"show\", \"routes\", \"10.0.0.0/8\"]}", 0);
	d = json_object_get(r, "data");
	assert_string_equal(json_string_value(json_object_get(d, "handler")), "show routes");
	assert_int_equal(json_array_size(json_object_get(d, "args")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "args"), 0)),
			    "10.0.0.0/8");
	json_decref(r);

	/* "show ports" is not registered: falls back to "show" with args. */
	r = dispatch("{\"argv\": [\"show\", \"ports\", \"p0\"]}\n", 0);
	d = json_object_get(r, "data");
	assert_string_equal(json_string_value(json_object_get(d, "handler")), "show");
	assert_int_equal(json_array_size(json_object_get(d, "args")), 2);
	json_decref(r);

	/* "show" alone: no args */
	r = dispatch("{\"argv\": [\"show\"]}", 0);
	d = json_object_get(r, "data");
	assert_int_equal(json_array_size(json_object_get(d, "args")), 0);
	json_decref(r);
}

static void test_register_errors(void **state)
{
	(void)state;
	assert_int_equal(ctl_register("show routes", "dup", h_show), -EEXIST);
	assert_int_equal(ctl_register("  show   routes ", "dup", h_show), -EEXIST);
	assert_int_equal(ctl_register("help", "dup", h_show), -EEXIST);
	assert_int_equal(ctl_register("", "empty", h_show), -EINVAL);
	assert_int_equal(ctl_register("x", "no handler", NULL), -EINVAL);
}

static void test_unknown_command(void **state)
{
	json_t *r;

	(void)state;
	r = dispatch("{\"argv\": [\"foo\", \"bar\"]}", -ENOENT);
	assert_string_equal(reply_error(r), "unknown command 'foo bar' (try 'help')");
	json_decref(r);
	/* prefix of a command is not the command */
	r = dispatch("{\"argv\": [\"rel\"]}", -ENOENT);
	json_decref(r);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"nope",
		"{\"argv\": [\"show\"]",
		"[\"show\"]",
		"42",
		"{\"argv\": [\"show\"]} trailing",
		"\xff\xfe",
		"{\"argv\": [\"a\\u0000b\"]}",
		"{\"argv\": [\"show\"], \"argv\": [\"x\"]}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *r = dispatch(bad[i], -EINVAL);

		assert_non_null(strstr(reply_error(r), "malformed request: "));
		json_decref(r);
	}
}

static void test_bad_argv(void **state)
{
	static const char *const bad[] = {
		"{}",
		"{\"args\": [\"show\"]}",
		"{\"argv\": \"show\"}",
		"{\"argv\": [\"show\", 1]}",
		"{\"argv\": [null]}",
		"{\"argv\": [[\"show\"]]}",
		"{\"argv\": {\"0\": \"show\"}}",
	};
	size_t i;
	json_t *r;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = dispatch(bad[i], -EINVAL);
		assert_non_null(strstr(reply_error(r), "argv"));
		json_decref(r);
	}
	r = dispatch("{\"argv\": []}", -EINVAL);
	assert_non_null(strstr(reply_error(r), "empty command"));
	json_decref(r);
}

static void test_too_many_words(void **state)
{
	char req[1024];
	size_t off;
	json_t *r;
	int i;

	(void)state;
	off = snprintf(req, sizeof(req), "{\"argv\": [\"show\"");
	for (i = 0; i < 100; i++)
		off += snprintf(req + off, sizeof(req) - off, ", \"x\"");
	snprintf(req + off, sizeof(req) - off, "]}");
	r = dispatch(req, -E2BIG);
	reply_error(r);
	json_decref(r);
}

static void test_handler_error(void **state)
{
	json_t *r;

	(void)state;
	r = dispatch("{\"argv\": [\"reload\"]}", -EINVAL);
	assert_string_equal(reply_error(r), "vbrd.conf:3: bad thing");
	assert_null(json_object_get(r, "data"));
	json_decref(r);

	/* no message from the handler: the errno's text is used */
	r = dispatch("{\"argv\": [\"busy\"]}", -EBUSY);
	assert_non_null(strstr(reply_error(r), "busy: "));
	json_decref(r);
}

static void test_handler_no_data(void **state)
{
	json_t *r;

	(void)state;
	r = dispatch("{\"argv\": [\"nodata\"]}", 0);
	assert_true(json_is_object(json_object_get(r, "data")));
	json_decref(r);
}

static void test_help(void **state)
{
	const char *want[] = { "busy", "help", "nodata", "reload", "show", "show routes" };
	json_t *r, *cmds, *e;
	size_t i;

	(void)state;
	r = dispatch("{\"argv\": [\"help\"]}", 0);
	cmds = json_object_get(json_object_get(r, "data"), "commands");
	assert_int_equal(json_array_size(cmds), 6);
	json_array_foreach(cmds, i, e)
	{
		assert_string_equal(json_string_value(json_object_get(e, "command")), want[i]);
		assert_true(json_is_string(json_object_get(e, "help")));
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(cmds, 5), "help")),
			    "show routes [PREFIX]: the FIB");
	json_decref(r);
}

static void test_ctl_call(void **state)
{
	const char *argv[] = { "show", "routes" };
	char err[128];
	json_t *data;

	(void)state;
	assert_int_equal(ctl_call(2, argv, &data, err, sizeof(err)), 0);
	assert_string_equal(json_string_value(json_object_get(data, "handler")), "show routes");
	json_decref(data);
}

/* ---- arguments declared by the help line ------------------------------------- */

static int h_args(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return reply_args("args", argc, argv, data);
}

static int setup_arg_cmds(void **state)
{
	setup_cmds(state);
	assert_int_equal(ctl_register("pair", "pair A B: two words", h_args), 0);
	assert_int_equal(ctl_register("opt", "opt [N]: zero or one", h_args), 0);
	assert_int_equal(ctl_register("many", "many WORD...: one or more", h_args), 0);
	assert_int_equal(ctl_register("any", "any [WORD...]: any number", h_args), 0);
	assert_int_equal(ctl_register("odd", "odd thing: lower case is not an argument", h_args),
			 0);
	assert_int_equal(ctl_register("other", "pair A: not this command's usage", h_args), 0);
	return 0;
}

/* Dispatch @p req; it must fail with -EINVAL and exactly @p want. */
static void assert_usage_error(const char *req, const char *want)
{
	json_t *r = dispatch(req, -EINVAL);

	assert_string_equal(reply_error(r), want);
	json_decref(r);
}

/* Dispatch @p req; it must reach h_args with @p nargs arguments. */
static void assert_args_ok(const char *req, size_t nargs)
{
	json_t *r = dispatch(req, 0), *d = json_object_get(r, "data");

	assert_string_equal(json_string_value(json_object_get(d, "handler")), "args");
	assert_int_equal(json_array_size(json_object_get(d, "args")), nargs);
	json_decref(r);
}

static void test_extra_args(void **state)
{
	(void)state;
	/* a command whose help declares no arguments rejects any */
	assert_usage_error("{\"argv\": [\"reload\", \"x\"]}",
			   "reload: unexpected argument 'x' (usage: reload)");
	assert_usage_error("{\"argv\": [\"nodata\", \"x\", \"y\"]}",
			   "nodata: unexpected argument 'x' (usage: nodata)");
	assert_usage_error("{\"argv\": [\"help\", \"me\"]}",
			   "help: unexpected argument 'me' (usage: help)");
	assert_usage_error("{\"argv\": [\"odd\", \"thing\"]}",
			   "odd: unexpected argument 'thing' (usage: odd)");
	assert_usage_error("{\"argv\": [\"other\", \"A\"]}",
			   "other: unexpected argument 'A' (usage: other)");
	/* the rest, exactly as declared */
	assert_args_ok("{\"argv\": [\"pair\", \"a\", \"b\"]}", 2);
	assert_usage_error("{\"argv\": [\"pair\", \"a\"]}",
			   "pair: missing argument (usage: pair A B)");
	assert_usage_error("{\"argv\": [\"pair\", \"a\", \"b\", \"c\"]}",
			   "pair: unexpected argument 'c' (usage: pair A B)");
	assert_args_ok("{\"argv\": [\"opt\"]}", 0);
	assert_args_ok("{\"argv\": [\"opt\", \"1\"]}", 1);
	assert_usage_error("{\"argv\": [\"opt\", \"1\", \"2\"]}",
			   "opt: unexpected argument '2' (usage: opt [N])");
	assert_usage_error("{\"argv\": [\"many\"]}",
			   "many: missing argument (usage: many WORD...)");
	assert_args_ok("{\"argv\": [\"many\", \"a\", \"b\", \"c\"]}", 3);
	assert_args_ok("{\"argv\": [\"any\"]}", 0);
	assert_args_ok("{\"argv\": [\"any\", \"a\", \"b\"]}", 2);
}

/* ---- UTF-8 in error messages ------------------------------------------------- */

/* @p n copies of @p ch in a new string. */
static char *repeat(const char *ch, int n)
{
	size_t len = strlen(ch);
	char *s = malloc(len * n + 1);
	int i;

	assert_non_null(s);
	for (i = 0; i < n; i++)
		memcpy(s + i * len, ch, len);
	s[len * n] = '\0';
	return s;
}

/*
 * An unknown command of many multi-byte characters is echoed cut at a
 * character boundary, not turned into an invalid (hence dropped) message.
 */
static void test_unknown_utf8(void **state)
{
	static const char *const chars[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(chars) / sizeof(chars[0]); i++) {
		size_t clen = strlen(chars[i]), elen;
		char *word = repeat(chars[i], 300), req[2048];
		const char *e, *echo, *end;
		json_t *r;

		snprintf(req, sizeof(req), "{\"argv\": [\"%s\"]}", word);
		r = dispatch(req, -ENOENT); /* dispatch() parsed it: valid UTF-8 */
		e = reply_error(r);
		assert_non_null(e);
		assert_int_equal(strncmp(e, "unknown command '", 17), 0);
		end = strstr(e, "...' (try 'help')");
		assert_non_null(end);
		echo = e + 17;
		elen = end - echo;
		assert_true(elen >= 150 && elen <= 200);
		assert_int_equal(elen % clen, 0);
		assert_int_equal(strncmp(echo, word, elen), 0);
		json_decref(r);
		free(word);
	}

	/* many words: cut inside one word, at a character boundary too */
	{
		char *w = repeat("\xc3\xa9", 30), req[4096];
		json_t *r;

		snprintf(req, sizeof(req), "{\"argv\": [\"%s\", \"%s\", \"%s\", \"%s\", \"%s\"]}",
			 w, w, w, w, w);
		r = dispatch(req, -ENOENT);
		assert_non_null(strstr(reply_error(r), "...' (try 'help')"));
		json_decref(r);
		free(w);
	}
}

/* A handler message as long as its buffer, of multi-byte characters. */
static int h_long_err(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	char *s = repeat("\xc3\xbc", 1000); /* 2000 bytes of 'u with diaeresis' */

	(void)argc, (void)argv, (void)data;
	snprintf(err, errlen, "%s", s); /* 511 bytes of a 512-byte buffer: cut inside one */
	free(s);
	return -EINVAL;
}

static int h_bad_bytes(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)data;
	snprintf(err, errlen, "bad \xff byte, cut \xe2\x82 sequence, lone \x80 continuation");
	return -EINVAL;
}

static void test_handler_error_utf8(void **state)
{
	const char *e;
	json_t *r;

	(void)state;
	assert_int_equal(ctl_register("longerr", "a long message", h_long_err), 0);
	assert_int_equal(ctl_register("badbytes", "ill-formed message", h_bad_bytes), 0);
	r = dispatch("{\"argv\": [\"longerr\"]}", -EINVAL);
	e = reply_error(r);
	assert_true(strlen(e) > 400);
	assert_int_equal(strlen(e) % 2, 0); /* whole characters only */
	assert_int_equal(strncmp(e, "\xc3\xbc\xc3\xbc", 4), 0);
	json_decref(r);

	r = dispatch("{\"argv\": [\"badbytes\"]}", -EINVAL);
	assert_string_equal(reply_error(r), "bad ? byte, cut ?? sequence, lone ? continuation");
	json_decref(r);
}

/* ---- socket server ------------------------------------------------------------- */

static char sock_dir[48];
static char sock_path[96];

static int setup_socket(void **state)
{
	setup_cmds(state);
	snprintf(sock_dir, sizeof(sock_dir), "/tmp/vbrd-test-ctl-XXXXXX");
	assert_non_null(mkdtemp(sock_dir));
	snprintf(sock_path, sizeof(sock_path), "%s/run/vbrd.sock", sock_dir);
	assert_int_equal(ev_init(), 0);
	return 0;
}

static int teardown_socket(void **state)
{
	char dir[160];

	(void)state;
	ctl_fini();
	ev_fini();
	snprintf(dir, sizeof(dir), "%s/run", sock_dir);
	rmdir(dir);
	rmdir(sock_dir);
	return 0;
}

static int client_connect(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	return fd;
}

/* Send @p len bytes while running the server's loop (it may need to read). */
static void client_send(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0) {
			assert_int_equal(errno, EAGAIN);
			ev_run_once(10);
			continue;
		}
		buf += n;
		len -= n;
	}
}

/* Run the loop until @p want newlines arrived or the peer closed. */
static char *client_recv(int fd, int want, size_t *len_out)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int lines = 0, spins;

	assert_non_null(buf);
	for (spins = 0; spins < 2000 && lines < want; spins++) {
		ssize_t n;

		ev_run_once(1);
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n == 0)
			break;
		if (n < 0) {
			assert_int_equal(errno, EAGAIN);
			continue;
		}
		for (ssize_t i = 0; i < n; i++)
			lines += buf[len + i] == '\n';
		len += n;
	}
	buf[len] = '\0';
	if (len_out != NULL)
		*len_out = len;
	return buf;
}

static void test_socket_roundtrip(void **state)
{
	const char *req = "{\"argv\":[\"show\",\"routes\"]}\n{\"argv\":[\"foo\"]}\n"
			  "garbage\r\n{\"argv\":[\"help\"]}";
	struct stat st;
	char *out, *line;
	int fd, n = 0;

	(void)state;
	assert_int_equal(ctl_init(sock_path), 0);
	assert_int_equal(stat(sock_path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0660);

	/* Pipelined requests in one write, the last without a newline. */
	fd = client_connect();
	client_send(fd, req, strlen(req));
	shutdown(fd, SHUT_WR);
	out = client_recv(fd, 4, NULL);
	for (line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		json_t *r = json_loads(line, 0, NULL);

		assert_non_null(r);
		assert_int_equal(json_is_true(json_object_get(r, "ok")), n == 0 || n == 3);
		json_decref(r);
		n++;
	}
	assert_int_equal(n, 4);
	free(out);
	close(fd);

	/* Restart on the same path; ctl_fini() removes the socket file. */
	ctl_fini();
	setup_cmds(state);
	assert_int_equal(ctl_init(sock_path), 0);
	fd = client_connect();
	close(fd);
	ctl_fini();
	assert_int_equal(access(sock_path, F_OK), -1);
}

static void test_socket_stale_and_busy(void **state)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	(void)state;
	/* A stale socket file (nobody listening) is replaced. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);
	mkdir(sock_dir, 0755);
	{
		char dir[160];

		snprintf(dir, sizeof(dir), "%s/run", sock_dir);
		mkdir(dir, 0755);
	}
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	close(fd);
	assert_int_equal(ctl_init(sock_path), 0);
	ctl_fini();

	/* A live listener: -EADDRINUSE, and its socket file is left alone. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(fd, 4), 0);
	setup_cmds(state);
	assert_int_equal(ctl_init(sock_path), -EADDRINUSE);
	assert_int_equal(access(sock_path, F_OK), 0);
	close(fd);
	unlink(sock_path);
}

static void test_socket_oversize(void **state)
{
	size_t big = CTL_MAX_REQUEST + 100, len;
	char *req = malloc(big), *out;
	json_t *r;
	int fd;

	(void)state;
	assert_non_null(req);
	memset(req, 'x', big);
	assert_int_equal(ctl_init(sock_path), 0);
	fd = client_connect();
	client_send(fd, req, big);
	out = client_recv(fd, 1, &len);
	r = json_loads(out, JSON_DISABLE_EOF_CHECK, NULL);
	assert_non_null(r);
	assert_non_null(strstr(reply_error(r), "request too long"));
	json_decref(r);
	free(out);
	/* the server closes the connection after the error */
	out = client_recv(fd, 1, &len);
	assert_int_equal(len, 0);
	free(out);
	close(fd);
	free(req);
}

static int h_huge(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	json_t *rows = json_array();
	int i;

	(void)argc;
	(void)argv;
	(void)err;
	(void)errlen;
	for (i = 0; i < 50000; i++)
		json_array_append_new(rows,
				      json_pack("{s:i, s:s}", "id", i, "name", "a-route-name"));
	*data = json_pack("{s:o}", "rows", rows);
	return 0;
}

/* A reply far larger than the socket buffer: partial writes, EPOLLOUT. */
static void test_socket_large_reply(void **state)
{
	const char *req = "{\"argv\":[\"huge\"]}\n{\"argv\":[\"help\"]}\n";
	char *out, *nl;
	size_t len;
	json_t *r;
	int fd;

	(void)state;
	assert_int_equal(ctl_register("huge", "a big table", h_huge), 0);
	assert_int_equal(ctl_init(sock_path), 0);
	fd = client_connect();
	client_send(fd, req, strlen(req));
	out = client_recv(fd, 2, &len);
	assert_true(len > 1000000);
	nl = strchr(out, '\n');
	assert_non_null(nl);
	r = json_loadb(out, nl - out, 0, NULL);
	assert_non_null(r);
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "data"), "rows")),
			 50000);
	json_decref(r);
	r = json_loads(nl + 1, 0, NULL);
	assert_non_null(r);
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	free(out);
	close(fd);
}

static uint64_t test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* True when the server closed @p fd (EOF or reset, nothing left to read). */
static bool peer_closed(int fd)
{
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* Read and drop whatever is pending on @p fd. */
static void drain(int fd)
{
	char buf[4096];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/*
 * An idle client, and one that sent half a request, are closed after the idle
 * timeout; a client that keeps asking is not.
 */
static void test_socket_idle_timeout(void **state)
{
	const char *req = "{\"argv\":[\"help\"]}\n";
	uint64_t t0, idle_closed = 0, partial_closed = 0, last_req = 0;
	int idle, partial, busy;

	(void)state;
	assert_int_equal(ctl_set_idle_timeout(0), -EINVAL);
	assert_int_equal(ctl_set_idle_timeout(300), 0);
	assert_int_equal(ctl_init(sock_path), 0);
	t0 = test_now_ms();
	idle = client_connect();
	partial = client_connect();
	busy = client_connect();
	client_send(partial, "{\"argv\":", 8);
	while (test_now_ms() - t0 < 5000 &&
	       (idle_closed == 0 || partial_closed == 0 || test_now_ms() - t0 < 900)) {
		uint64_t now = test_now_ms();

		ev_run_once(5);
		if (now - last_req >= 30) {
			client_send(busy, req, strlen(req));
			last_req = now;
		}
		drain(busy);
		if (idle_closed == 0 && peer_closed(idle))
			idle_closed = test_now_ms();
		if (partial_closed == 0 && peer_closed(partial))
			partial_closed = test_now_ms();
	}
	assert_true(idle_closed != 0);
	assert_true(partial_closed != 0);
	assert_true(idle_closed - t0 >= 300);
	assert_true(partial_closed - t0 >= 300);
	assert_false(peer_closed(busy)); /* 900 ms and more, but never idle */
	close(idle);
	close(partial);
	close(busy);
}

/*
 * A client whose reply is still being written is not idle: it may take
 * longer than the idle timeout to read it. One that reads none of it for
 * CTL_STALL_FACTOR (6) idle timeouts is closed.
 */
static void test_socket_reply_not_idle(void **state)
{
	const char *req = "{\"argv\":[\"huge\"]}\n";
	uint64_t t0;
	char *out, *nl;
	size_t len;
	json_t *r;
	int slow, stalled;

	(void)state;
	assert_int_equal(ctl_register("huge", "a big table", h_huge), 0);
	assert_int_equal(ctl_set_idle_timeout(200), 0);
	assert_int_equal(ctl_init(sock_path), 0);
	slow = client_connect();
	stalled = client_connect();
	client_send(slow, req, strlen(req));
	client_send(stalled, req, strlen(req));
	/* 2.5 idle timeouts without reading: the reply is pending, not idle */
	for (t0 = test_now_ms(); test_now_ms() - t0 < 500;)
		ev_run_once(5);
	out = client_recv(slow, 1, &len);
	nl = strchr(out, '\n');
	assert_non_null(nl);
	r = json_loadb(out, nl - out, 0, NULL);
	assert_non_null(r);
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "data"), "rows")),
			 50000);
	json_decref(r);
	free(out);
	/* the other never reads: closed after 6 x 200 ms of no progress */
	for (t0 = test_now_ms(); test_now_ms() - t0 < 3000;)
		ev_run_once(5);
	out = client_recv(stalled, 1, &len);
	assert_null(strchr(out, '\n')); /* only part of the reply, then EOF */
	assert_true(peer_closed(stalled));
	free(out);
	close(slow);
	close(stalled);
}

/*
 * CTL_MAX_CLIENTS idle connections do not lock the operator out: a new
 * client evicts the one idle longest and gets its answer.
 */
static void test_socket_full_evicts_idle(void **state)
{
	const char *req = "{\"argv\":[\"show\",\"routes\"]}\n";
	int fds[CTL_MAX_CLIENTS], op, late, i, n;
	char *out;
	json_t *r;

	(void)state;
	assert_int_equal(ctl_init(sock_path), 0);
	for (i = 0; i < CTL_MAX_CLIENTS; i++) {
		fds[i] = client_connect();
		ev_run_once(0); /* accept it: the listen backlog is short */
	}
	for (i = 0; i < 10; i++)
		ev_run_once(1);
	/* client 1 asks something: now client 2 is the second idlest */
	client_send(fds[1], req, strlen(req));
	free(client_recv(fds[1], 1, NULL));

	op = client_connect();
	client_send(op, req, strlen(req));
	out = client_recv(op, 1, NULL);
	r = json_loads(out, JSON_DISABLE_EOF_CHECK, NULL);
	assert_non_null(r);
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	free(out);
	assert_true(peer_closed(fds[0])); /* the longest idle made room */
	for (i = 1, n = 0; i < CTL_MAX_CLIENTS; i++)
		n += peer_closed(fds[i]);
	assert_int_equal(n, 0);

	/* one more: client 2 goes, client 1 (active since) stays */
	late = client_connect();
	for (i = 0; i < 10; i++)
		ev_run_once(1);
	assert_true(peer_closed(fds[2]));
	assert_false(peer_closed(fds[1]));
	assert_false(peer_closed(late));
	for (i = 0; i < CTL_MAX_CLIENTS; i++)
		close(fds[i]);
	close(op);
	close(late);
}

/* ---- renderer ---------------------------------------------------------------- */

/* Render reply @p reply; @return what went to out (or err) as a new string. */
static char *render(const char *reply, bool json, int want_status, bool want_err)
{
	char *obuf = NULL, *ebuf = NULL;
	size_t olen = 0, elen = 0;
	FILE *out = open_memstream(&obuf, &olen);
	FILE *err = open_memstream(&ebuf, &elen);

	assert_int_equal(render_reply(reply, strlen(reply), json, out, err), want_status);
	fclose(out);
	fclose(err);
	if (want_err) {
		assert_int_equal(olen, 0);
		free(obuf);
		return ebuf;
	}
	assert_int_equal(elen, 0);
	free(ebuf);
	return obuf;
}

static void test_render_table(void **state)
{
	const char *reply =
		"{\"ok\":true,\"data\":{\"routes\":["
		"{\"prefix\":\"10.0.2.0/24\",\"type\":\"static\",\"metric\":10,"
		"\"next_hops\":[{\"via\":\"10.0.1.2\",\"interface\":\"lan0\"},"
		"{\"via\":\"10.0.2.2\",\"interface\":\"lan1\"}],\"tags\":[\"a\",\"b\"]},"
		"{\"prefix\":\"10.0.1.0/24\",\"type\":\"connected\",\"metric\":0,"
		"\"next_hops\":[{\"via\":\"\",\"interface\":\"lan0\"}],\"tags\":[]},"
		"{\"prefix\":\"10.9.0.0/24\",\"type\":\"static\",\"metric\":0,"
		"\"next_hops\":[{\"via\":\"10.9.0.2\",\"interface\":\"svc\",\"vrf\":\"shared\"}],"
		"\"tags\":[]}"
		"]}}\n";
	const char *want = "PREFIX       TYPE       METRIC  NEXT_HOPS                    TAGS\n"
			   "10.0.2.0/24  static         10  10.0.1.2@lan0,10.0.2.2@lan1  a,b\n"
			   "10.0.1.0/24  connected       0  lan0                         -\n"
			   "10.9.0.0/24  static          0  10.9.0.2@svc(vrf shared)     -\n";
	char *s;

	(void)state;
	s = render(reply, false, 0, false);
	assert_string_equal(s, want);
	free(s);

	s = render("{\"ok\":true,\"data\":{\"neighbors\":[]}}", false, 0, false);
	assert_string_equal(s, "(no neighbors)\n");
	free(s);

	/* other cells: nested objects as compact JSON */
	s = render("{\"ok\":true,\"data\":{\"x\":[{\"a\":{\"b\":1},\"c\":null}]}}", false, 0,
		   false);
	assert_string_equal(s, "A        C\n{\"b\":1}  -\n");
	free(s);
}

static void test_render_scalars_and_block(void **state)
{
	const char *reply = "{\"ok\":true,\"data\":{\"rx_packets\":1200,\"forwarded\":7,"
			    "\"drops\":{\"truncated\":0,\"bad_version\":0,\"bad_ihl\":0,"
			    "\"bad_checksum\":2,\"bad_length\":0,\"unknown_ethertype\":0,"
			    "\"no_route\":15,\"ttl_expired\":0,\"martian\":0},"
			    "\"drops_total\":17}}";
	const char *want = "rx_packets:  1200\n"
			   "forwarded:   7\n"
			   "\n"
			   "drops:\n"
			   "  bad_checksum   2\n"
			   "  no_route      15\n"
			   "  (7 zero counters hidden, -j shows all)\n"
			   "\n"
			   "drops_total: 17\n";
	char *s;

	(void)state;
	s = render(reply, false, 0, false);
	assert_string_equal(s, want);
	free(s);

	/* small blocks show every member */
	s = render("{\"ok\":true,\"data\":{\"mempool\":{\"size\":8,\"in_use\":0}}}", false, 0,
		   false);
	assert_string_equal(s, "mempool:\n  size    8\n  in_use  0\n");
	free(s);
}

static void test_render_json(void **state)
{
	char *s;

	(void)state;
	s = render("{\"ok\":true,\"data\":{\"z\":1,\"a\":{\"y\":[1,2]}}}", true, 0, false);
	assert_string_equal(s, "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": [\n"
			       "      1,\n      2\n    ]\n  }\n}\n");
	free(s);
}

static void test_render_error(void **state)
{
	char *s;

	(void)state;
	s = render("{\"ok\":false,\"error\":\"unknown command 'x' (try 'help')\"}\n", false, 1,
		   true);
	assert_string_equal(s, "vbrctl: unknown command 'x' (try 'help')\n");
	free(s);
	s = render("{\"ok\":false,\"error\":\"bad\"}", true, 1, true);
	assert_string_equal(s, "vbrctl: bad\n");
	free(s);
	s = render("not json", false, 2, true);
	assert_non_null(strstr(s, "invalid reply"));
	free(s);
	s = render("{\"data\":{}}", false, 2, true);
	assert_non_null(strstr(s, "invalid reply"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_longest_prefix, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_register_errors, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_unknown_command, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_malformed, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_bad_argv, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_too_many_words, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_handler_error, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_handler_no_data, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_help, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_ctl_call, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_extra_args, setup_arg_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_unknown_utf8, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_handler_error_utf8, setup_cmds, teardown_cmds),
		cmocka_unit_test_setup_teardown(test_socket_roundtrip, setup_socket,
						teardown_socket),
		cmocka_unit_test_setup_teardown(test_socket_stale_and_busy, setup_socket,
						teardown_socket),
		cmocka_unit_test_setup_teardown(test_socket_oversize, setup_socket,
						teardown_socket),
		cmocka_unit_test_setup_teardown(test_socket_large_reply, setup_socket,
						teardown_socket),
		cmocka_unit_test_setup_teardown(test_socket_idle_timeout, setup_socket,
						teardown_socket),
		cmocka_unit_test_setup_teardown(test_socket_reply_not_idle, setup_socket,
						teardown_socket),
		cmocka_unit_test_setup_teardown(test_socket_full_evicts_idle, setup_socket,
						teardown_socket),
		cmocka_unit_test(test_render_table),
		cmocka_unit_test(test_render_scalars_and_block),
		cmocka_unit_test(test_render_json),
		cmocka_unit_test(test_render_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
