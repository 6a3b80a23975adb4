/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry bridge: DPDK telemetry commands answered by control handlers.
 *
 * Threads. DPDK calls a telemetry callback on its own telemetry thread (one
 * per connected client), but control handlers read tables that only the
 * main lcore may touch and are not thread-safe. So the callback never runs
 * a handler itself:
 *
 *   telemetry thread                         main lcore (event loop)
 *   ----------------                         -----------------------
 *   queue a tel_req {cmd, params}   ──►      eventfd readable → tel_ev_cb():
 *   write(eventfd, 1)                          take each queued request,
 *   wait on tel.cond (1 s at most)             run ctl_call() on it,
 *                                   ◄──        store the JSON result, done = 1,
 *   convert JSON → rte_tel_data                broadcast tel.cond
 *
 * On timeout the callback returns -ETIMEDOUT: a request still queued is
 * removed and freed by the callback; one already taken by the main lcore is
 * marked abandoned and freed there when the handler returns. tel.lock
 * guards the queue and every request's flags.
 *
 * Conversion (telemetry in DPDK 22.11 has no floats and nests only one
 * level): integers → u64 (int when negative), strings → strings, booleans →
 * 0/1, reals → strings; a nested object → a dict container of its scalars;
 * an array of scalars → an array container; a reply that is one table
 * ({"ports": [{...}, ...]}) → a dict of dict containers, one per row, named
 * by the row's first member, or its first two when the first repeats
 * ("lan0_10_0_1_2": telemetry arrays cannot hold dicts).
 * Inside a container, arrays of scalars become one string joined by ",".
 * Anything else is skipped (vbrctl -j shows it). Names keep only the
 * characters telemetry accepts ([A-Za-z0-9_/]); others become '_'.
 *
 * Pages. A telemetry reply holds 256 dict entries and 16 KiB at most, and
 * DPDK cuts what does not fit without a word. So a table is sent in
 * pages: the rows from the parameter `from=N` (default 0) that fit, with
 * `_rows` (the table's rows), `_from` and, when rows remain, `_next` (the
 * `from=` of the next page): /vbrd/bfd,from=120. Any other reply too large
 * for one says so with `_truncated` = 1. Nothing is left out silently.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_telemetry.h>

#include "app/ctl.h"
#include "app/ctl_telemetry.h"
#include "core/evloop.h"

#define TEL_MAX_EXPORTS 32
#define TEL_TIMEOUT_MS  1000 /* how long a telemetry client waits, ms */
#define TEL_MAX_WORDS   32   /* command words + parameters */
#define TEL_PATH_LEN    64   /* DPDK's MAX_CMD_LEN */
/* A page: DPDK 22.11 sends at most 16 KiB (MAX_OUTPUT_LEN) and 256 dict
 * entries; leave room for the page's own keys and the encoding's overhead. */
#define TEL_PAGE_BYTES 12000
#define TEL_PAGE_ROWS  250

struct tel_export {
	char tel_path[TEL_PATH_LEN];
	char *cmd;
	unsigned key_members; /* leading members of a row that make its key */
};

struct tel_req {
	TAILQ_ENTRY(tel_req) link;
	const struct tel_export *exp;
	char *params;   /* telemetry parameters, may be NULL */
	size_t from;    /* the page's first row (parameter from=N) */
	json_t *result; /* handler's data on success */
	char err[256];
	int rc;
	bool taken; /* the main lcore is running it */
	bool done;
	bool abandoned; /* the waiter timed out: main lcore frees */
};

static struct {
	struct ev_handler h; /* eventfd, watched by the event loop */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC */
	TAILQ_HEAD(, tel_req) queue;
	struct tel_export exports[TEL_MAX_EXPORTS];
	int nexports;    /* written before rte_telemetry_register_cmd() */
	bool cond_ready; /* cond initialised (once: it outlives fini) */
	bool running;
} tel = {
	.h = { .fd = -1 },
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static void req_free(struct tel_req *r)
{
	json_decref(r->result);
	free(r->params);
	free(r);
}

/* ---- main lcore ---------------------------------------------------------- */

/* Run the request's command with its parameters appended as words. */
static void req_run(struct tel_req *r)
{
	const char *argv[TEL_MAX_WORDS];
	char *words = NULL, *save, *w;
	int argc = 0;
	size_t len;

	len = strlen(r->exp->cmd) + 1 + (r->params ? strlen(r->params) : 0) + 1;
	words = malloc(len);
	if (words == NULL) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		r->rc = -ENOMEM;
		return;
	}
	snprintf(words, len, "%s %s", r->exp->cmd, r->params ? r->params : "");
	for (w = strtok_r(words, " ,\t", &save); w != NULL; w = strtok_r(NULL, " ,\t", &save)) {
		char *end;
		if (strncmp(w, "from=", 5) == 0) { /* the bridge's, not the command's */
			unsigned long long v = strtoull(w + 5, &end, 10);
			if (*end != '\0' || end == w + 5) {
				snprintf(r->err, sizeof(r->err), "from=N: N is a row number");
				r->rc = -EINVAL;
				goto out;
			}
			r->from = (size_t)v;
			continue;
		}
		if (argc == TEL_MAX_WORDS) {
			snprintf(r->err, sizeof(r->err), "too many parameters");
			r->rc = -E2BIG;
			goto out;
		}
		argv[argc++] = w;
	}
	r->rc = ctl_call(argc, argv, &r->result, r->err, sizeof(r->err));
out:
	free(words);
}

static void tel_ev_cb(struct ev_handler *h, uint32_t events)
{
	uint64_t n;

	(void)events;
	if (read(h->fd, &n, sizeof(n)) < 0) {
		/* EAGAIN: a spurious wakeup; the queue says what to do */
	}
	for (;;) {
		struct tel_req *r;

		pthread_mutex_lock(&tel.lock);
		r = TAILQ_FIRST(&tel.queue);
		if (r != NULL) {
			TAILQ_REMOVE(&tel.queue, r, link);
			r->taken = true;
		}
		pthread_mutex_unlock(&tel.lock);
		if (r == NULL)
			break;

		req_run(r);

		pthread_mutex_lock(&tel.lock);
		r->done = true;
		if (r->abandoned)
			req_free(r);
		else
			pthread_cond_broadcast(&tel.cond);
		pthread_mutex_unlock(&tel.lock);
	}
}

/* ---- JSON → rte_tel_data ------------------------------------------------- */

/* Telemetry accepts names of [A-Za-z0-9_/] only. */
static void tel_name(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i] != '\0'; i++) {
		char c = src[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '/';

		dst[i] = ok ? c : '_';
	}
	dst[i] = '\0';
}

/*
 * DPDK 22.11's telemetry JSON writer escapes bytes above 0x7f as if they
 * were control characters ("§" comes out as "\\v\\-", which no JSON
 * parser reads). Strings go out as ASCII: each UTF-8 sequence becomes "?".
 */
static const char *tel_ascii(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && o + 1 < len; p++) {
		if (*p < 0x80)
			out[o++] = (char)*p;
		else if ((*p & 0xc0) != 0x80) /* the lead byte of a sequence */
			out[o++] = '?';
	}
	out[o] = '\0';
	return out;
}

/* A scalar as text (for string arrays and joined lists). */
static void scalar_text(char *buf, size_t size, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		tel_ascii(json_string_value(v), buf, size);
		break;
	case JSON_INTEGER:
		snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		snprintf(buf, size, "%g", json_real_value(v));
		break;
	case JSON_TRUE:
		snprintf(buf, size, "true");
		break;
	case JSON_FALSE:
		snprintf(buf, size, "false");
		break;
	default:
		buf[0] = '\0';
		break;
	}
}

static bool is_scalar(const json_t *v)
{
	return json_is_string(v) || json_is_number(v) || json_is_boolean(v);
}

/* Add a scalar to dict @p d; null and containers are skipped. */
static void dict_add_scalar(struct rte_tel_data *d, const char *name, const json_t *v)
{
	char text[RTE_TEL_MAX_STRING_LEN];

	if (json_is_integer(v)) {
		json_int_t x = json_integer_value(v);

		if (x >= 0)
			rte_tel_data_add_dict_u64(d, name, (uint64_t)x);
		else if (x >= INT_MIN)
			rte_tel_data_add_dict_int(d, name, (int)x);
	} else if (json_is_boolean(v)) {
		rte_tel_data_add_dict_u64(d, name, json_is_true(v));
	} else if (json_is_string(v)) {
		scalar_text(text, sizeof(text), v);
		rte_tel_data_add_dict_string(d, name, text);
	} else if (json_is_real(v)) {
		scalar_text(text, sizeof(text), v);
		rte_tel_data_add_dict_string(d, name, text);
	}
}

/* An array of scalars joined by "," (truncated to a telemetry string). */
static void dict_add_joined(struct rte_tel_data *d, const char *name, const json_t *arr)
{
	char buf[RTE_TEL_MAX_STRING_LEN], item[RTE_TEL_MAX_STRING_LEN];
	const json_t *e;
	size_t i, off = 0;

	buf[0] = '\0';
	json_array_foreach(arr, i, e)
	{
		if (!is_scalar(e))
			return;
		scalar_text(item, sizeof(item), e);
		off += snprintf(buf + off, off < sizeof(buf) ? sizeof(buf) - off : 0, "%s%s",
				i > 0 ? "," : "", item);
		if (off >= sizeof(buf))
			break;
	}
	rte_tel_data_add_dict_string(d, name, buf);
}

/* A dict container of @p obj's scalars (and joined scalar arrays). */
static struct rte_tel_data *dict_container(const json_t *obj)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	char name[RTE_TEL_MAX_STRING_LEN];
	const char *key;
	const json_t *v;

	if (c == NULL)
		return NULL;
	rte_tel_data_start_dict(c);
	json_object_foreach((json_t *)obj, key, v)
	{
		tel_name(name, sizeof(name), key);
		if (json_is_array(v))
			dict_add_joined(c, name, v);
		else
			dict_add_scalar(c, name, v);
	}
	return c;
}

/* An array container of scalars (u64 when all are counters), or NULL. */
static struct rte_tel_data *array_container(const json_t *arr)
{
	char text[RTE_TEL_MAX_STRING_LEN];
	bool counters = true;
	struct rte_tel_data *c;
	const json_t *e;
	size_t i;

	json_array_foreach(arr, i, e)
	{
		if (!is_scalar(e))
			return NULL;
		if (!json_is_integer(e) || json_integer_value(e) < 0)
			counters = false;
	}
	c = rte_tel_data_alloc();
	if (c == NULL)
		return NULL;
	rte_tel_data_start_array(c, counters ? RTE_TEL_U64_VAL : RTE_TEL_STRING_VAL);
	json_array_foreach(arr, i, e)
	{
		if (counters) {
			rte_tel_data_add_array_u64(c, (uint64_t)json_integer_value(e));
		} else {
			scalar_text(text, sizeof(text), e);
			rte_tel_data_add_array_string(c, text);
		}
	}
	return c;
}

static bool is_table(const json_t *v)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, e) if (!json_is_object(e)) return false;
	return true;
}

/* The key of row @p i: its first @p members members, scalars, joined by
 * "_" ("p0", "lan1_10_0_1_2"); when even those repeat (two rows that the
 * command lists with the same key), the row number is appended. */
static void row_key(const json_t *row, size_t i, unsigned members, bool unique, char *text,
		    size_t len)
{
	void *it = json_object_iter((json_t *)row);
	size_t at = 0;

	text[0] = '\0';
	for (unsigned k = 0; k < members && it != NULL; k++) {
		const json_t *v = json_object_iter_value(it);
		char a[RTE_TEL_MAX_STRING_LEN];

		if (!is_scalar(v))
			break;
		scalar_text(a, sizeof(a), v);
		int w = snprintf(text + at, len - at, "%s%.60s", k ? "_" : "", a);
		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
		it = json_object_iter_next((json_t *)row, it);
	}
	if (at == 0)
		snprintf(text, len, "%zu", i);
	else if (!unique)
		snprintf(text + at, len - at, "_%zu", i);
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* True when no two rows of table @p v share their keys of row_key(): the
 * keys sorted, neighbours compared (a 4096-row table in milliseconds). */
static bool table_keys_unique(const json_t *v, unsigned members)
{
	size_t n = json_array_size(v);
	char **keys = calloc(n ? n : 1, sizeof(*keys));
	bool unique = true;

	if (keys == NULL)
		return false; /* the row number goes into every key: still unique */
	for (size_t i = 0; i < n; i++) {
		char a[RTE_TEL_MAX_STRING_LEN];
		row_key(json_array_get(v, i), i, members, true, a, sizeof(a));
		keys[i] = strdup(a);
		if (keys[i] == NULL)
			unique = false;
	}
	if (unique) {
		qsort(keys, n, sizeof(*keys), key_cmp);
		for (size_t i = 1; i < n && unique; i++)
			unique = strcmp(keys[i - 1], keys[i]) != 0;
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	return unique;
}

/* What @p v takes as JSON text, bytes: an estimate of its telemetry encoding. */
static size_t json_bytes(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	size_t n = s ? strlen(s) : 0;

	free(s);
	return n;
}

static void json_to_tel(const json_t *data, unsigned key_members, size_t from,
			struct rte_tel_data *d)
{
	char name[RTE_TEL_MAX_STRING_LEN];
	const char *key;
	const json_t *v;

	/*
	 * {"ports": [{...}, ...]}: telemetry arrays cannot hold dicts, so the
	 * rows go into a dict keyed by each row's first member ("p0").
	 */
	if (json_object_size(data) == 1) {
		v = json_object_iter_value(json_object_iter((json_t *)data));
		if (is_table(v)) {
			const json_t *row;
			size_t i;

			size_t rows = json_array_size(v), bytes = 0, n = 0;

			rte_tel_data_start_dict(d);
			bool unique = table_keys_unique(v, key_members);
			for (i = from; i < rows; i++) {
				row = json_array_get(v, i);
				size_t b = json_bytes(row) + 2 * RTE_TEL_MAX_STRING_LEN / 4;
				if (n > 0 && (n == TEL_PAGE_ROWS || bytes + b > TEL_PAGE_BYTES))
					break;
				struct rte_tel_data *c = dict_container(row);
				char text[RTE_TEL_MAX_STRING_LEN];

				row_key(row, i, key_members, unique, text, sizeof(text));
				tel_name(name, sizeof(name), text);
				if (c != NULL && rte_tel_data_add_dict_container(d, name, c, 0) < 0)
					rte_tel_data_free(c);
				bytes += b;
				n++;
			}
			rte_tel_data_add_dict_u64(d, "_rows", rows);
			rte_tel_data_add_dict_u64(d, "_from", from);
			if (i < rows)
				rte_tel_data_add_dict_u64(d, "_next", i);
			return;
		}
	}
	rte_tel_data_start_dict(d);
	if (json_bytes(data) > TEL_PAGE_BYTES)
		rte_tel_data_add_dict_u64(d, "_truncated", 1); /* DPDK cuts what does not fit */
	json_object_foreach((json_t *)data, key, v)
	{
		struct rte_tel_data *c = NULL;

		tel_name(name, sizeof(name), key);
		if (json_is_object(v))
			c = dict_container(v);
		else if (json_is_array(v))
			c = array_container(v);
		else
			dict_add_scalar(d, name, v);
		if (c != NULL && rte_tel_data_add_dict_container(d, name, c, 0) < 0)
			rte_tel_data_free(c);
	}
}

/* ---- telemetry thread ---------------------------------------------------- */

static const struct tel_export *find_export(const char *tel_path)
{
	int i, n;

	n = __atomic_load_n(&tel.nexports, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++)
		if (strcmp(tel.exports[i].tel_path, tel_path) == 0)
			return &tel.exports[i];
	return NULL;
}

static int tel_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tel_export *exp = find_export(cmd);
	struct timespec deadline;
	struct tel_req *r;
	uint64_t one = 1;
	int rc = 0;

	if (exp == NULL)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	r->exp = exp;
	if (params != NULL && params[0] != '\0') {
		r->params = strdup(params);
		if (r->params == NULL) {
			free(r);
			return -ENOMEM;
		}
	}

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += TEL_TIMEOUT_MS / 1000;
	deadline.tv_nsec += (long)(TEL_TIMEOUT_MS % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}

	pthread_mutex_lock(&tel.lock);
	if (!tel.running) {
		pthread_mutex_unlock(&tel.lock);
		req_free(r);
		return -ESHUTDOWN;
	}
	TAILQ_INSERT_TAIL(&tel.queue, r, link);
	if (write(tel.h.fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is saturated, the loop is awake anyway */
	}
	while (!r->done && rc == 0)
		rc = pthread_cond_timedwait(&tel.cond, &tel.lock, &deadline);
	if (!r->done) {
		if (r->taken) {
			r->abandoned = true; /* the main lcore frees it */
		} else {
			TAILQ_REMOVE(&tel.queue, r, link);
			req_free(r);
		}
		pthread_mutex_unlock(&tel.lock);
		return -ETIMEDOUT;
	}
	pthread_mutex_unlock(&tel.lock);

	if (r->rc < 0) {
		rte_tel_data_start_dict(d);
		char text[RTE_TEL_MAX_STRING_LEN];
		rte_tel_data_add_dict_string(d, "error", tel_ascii(r->err, text, sizeof(text)));
	} else {
		json_to_tel(r->result, r->exp->key_members, r->from, d);
	}
	req_free(r);
	return 0;
}

/* ---- set-up -------------------------------------------------------------- */

static int tel_start(void)
{
	pthread_condattr_t attr;
	int rc;

	if (tel.h.fd >= 0)
		return 0;
	if (!tel.cond_ready) {
		TAILQ_INIT(&tel.queue);
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		rc = -pthread_cond_init(&tel.cond, &attr);
		pthread_condattr_destroy(&attr);
		if (rc < 0)
			return rc;
		tel.cond_ready = true;
	}
	tel.h.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (tel.h.fd < 0)
		return -errno;
	tel.h.cb = tel_ev_cb;
	rc = ev_add(&tel.h, EPOLLIN);
	if (rc < 0) {
		close(tel.h.fd);
		tel.h.fd = -1;
		return rc;
	}
	pthread_mutex_lock(&tel.lock);
	tel.running = true;
	pthread_mutex_unlock(&tel.lock);
	return 0;
}

int ctl_telemetry_export(const char *cmd, const char *tel_path, const char *help,
			 unsigned key_members)
{
	struct tel_export *e;
	int rc;

	if (cmd == NULL || tel_path == NULL || tel_path[0] != '/' ||
	    strlen(tel_path) >= TEL_PATH_LEN)
		return -EINVAL;
	if (find_export(tel_path) != NULL)
		return -EEXIST;
	if (tel.nexports == TEL_MAX_EXPORTS)
		return -ENOSPC;
	rc = tel_start();
	if (rc < 0)
		return rc;
	e = &tel.exports[tel.nexports];
	snprintf(e->tel_path, sizeof(e->tel_path), "%s", tel_path);
	e->cmd = strdup(cmd);
	if (e->cmd == NULL)
		return -ENOMEM;
	e->key_members = key_members;
	/* Publish the entry before telemetry can call us with its path. */
	__atomic_store_n(&tel.nexports, tel.nexports + 1, __ATOMIC_RELEASE);
	rc = rte_telemetry_register_cmd(tel_path, tel_cb, help ? help : "");
	if (rc < 0) {
		__atomic_store_n(&tel.nexports, tel.nexports - 1, __ATOMIC_RELEASE);
		free(e->cmd);
		e->cmd = NULL;
		return rc;
	}
	return 0;
}

void ctl_telemetry_fini(void)
{
	struct tel_req *r;

	if (tel.h.fd < 0)
		return;
	pthread_mutex_lock(&tel.lock);
	tel.running = false;
	while ((r = TAILQ_FIRST(&tel.queue)) != NULL) {
		TAILQ_REMOVE(&tel.queue, r, link);
		snprintf(r->err, sizeof(r->err), "vbrd is shutting down");
		r->rc = -ESHUTDOWN;
		r->taken = true;
		r->done = true;
	}
	pthread_cond_broadcast(&tel.cond);
	pthread_mutex_unlock(&tel.lock);
	ev_del(&tel.h);
	close(tel.h.fd);
	tel.h.fd = -1;
	/*
	 * The exports, the lock and the condition variable stay: DPDK keeps
	 * the callbacks registered, and a telemetry thread may still wake up.
	 */
}
