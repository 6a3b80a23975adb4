/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's Redis client (ha_redis.h), its links: hiredis's async API
 * on the main lcore's event loop (ha_redis_ev.c), so that no call here
 * blocks. The scripts and the operations over the command link are
 * ha_redis_op.c's.
 *
 * Links. Each is one hiredis async context at a time, in a struct link:
 *
 *   command    to the master: AUTH, ROLE (Sentinel: must say "master"),
 *              SCRIPT LOAD of the four scripts, then the operations
 *   subscribe  to the master: AUTH, SUBSCRIBE PREFIXevents
 *   query      Sentinel: to one sentinel at a time while the master is
 *              looked up (SENTINEL get-master-addr-by-name), no AUTH
 *   switch     Sentinel: to one sentinel, SUBSCRIBE +switch-master, so
 *              that a failover moves us at once, not at the next drop
 *
 * A link is DOWN, RESOLVING (a host name, getaddrinfo_a: never the
 * blocking resolver hiredis would call), CONNECTING, HANDSHAKE (the
 * commands above) or UP. Each step before UP has a deadline; a link that
 * misses it is abandoned (hiredis 0.14's async connect has no timeout of
 * its own). A failed attempt waits its backoff (10 ms, doubling, at most
 * 1 s; back to 10 ms once UP). The subscribe link follows the command
 * link: connected with it, dropped with it. The command link also drops
 * when its oldest unanswered command waited max(1 s, 4 x timeout): a
 * half-open TCP connection, or a master cut off, would otherwise time out
 * every operation for ever without the link ever going down.
 *
 * hiredis's callbacks. A context's data points at its link; reply
 * callbacks carry no pointer of ours but a number: an operation's id, or
 * a handshake step. An operation that timed out or was cancelled leaves
 * the table at once, so its late reply (or the NULL reply hiredis gives
 * every pending callback when it frees a context) finds no id and is
 * ignored: hiredis never holds memory we free. A callback of a context
 * its link no longer holds (we dropped it: redisAsyncFree() from inside
 * its own callback is deferred by hiredis) is ignored the same way.
 *
 * Clocks. Deadlines are on the caller's clock (ha_redis_timer()'s now_ns,
 * e.g. the TSC's tsc_now_ns()); between two ticks, "now" is the last tick
 * plus CLOCK_MONOTONIC's advance since, so an operation started between
 * ticks times out timeout_ms after it was started, not up to a tick early.
 * The first tick starts connecting, so that every deadline is on the
 * caller's clock from the start.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "failover/ha/ha_redis.h"
#include "failover/ha/ha_redis_ev.h"
#include "failover/ha/ha_redis_priv.h"

#define BACKOFF_MIN_MS 10
#define BACKOFF_MAX_MS 1000
/* A link with a command unanswered this long is dropped (above). */
#define DEAD_MIN_MS   1000
#define DEAD_TIMEOUTS 4
/* A name lookup may take a resolver's round trips: a connect's timeout_ms
 * (50 ms by default) would fail a slow but working DNS every time. */
#define RESOLVE_MIN_MS 2000

static const char *const link_name[LINK_MAX] = {
	[LINK_CMD] = "command",
	[LINK_SUB] = "subscribe",
	[LINK_QUERY] = "sentinel",
	[LINK_SWITCH] = "sentinel +switch-master",
};

/* Handshake steps: the privdata of their reply callbacks. */
enum step { H_AUTH, H_ROLE, H_QUERY, H_SCRIPT };

static void link_down(struct link *l, bool failed);
static void link_connect(struct link *l, const struct ha_redis_addr *a);
static void master_attempt(struct ha_redis *h);

/* ---- time and small helpers ---------------------------------------------- */

static void set_error(struct ha_redis *h, const struct link *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(struct ha_redis *h, const struct link *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(h->last_error, sizeof(h->last_error), "%s %s:%u: ", link_name[l->kind],
		     l->addr.host, l->addr.port);
	if (n < 0 || (size_t)n >= sizeof(h->last_error))
		return;
	va_start(ap, fmt);
	vsnprintf(h->last_error + n, sizeof(h->last_error) - (size_t)n, fmt, ap);
	va_end(ap);
}

static bool addr_eq(const struct ha_redis_addr *a, const struct ha_redis_addr *b)
{
	return a->port == b->port && strcmp(a->host, b->host) == 0;
}

static bool is_literal(const char *host)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

static void master_set(struct ha_redis *h, const struct ha_redis_addr *a)
{
	if (h->master.port != 0 && !addr_eq(&h->master, a))
		h->stats.master_changes++;
	h->master = *a;
	snprintf(h->master_str, sizeof(h->master_str),
		 strchr(a->host, ':') != NULL ? "[%s]:%u" : "%s:%u", a->host, a->port);
}

/* ---- links ----------------------------------------------------------------- */

static void schedule_retry(struct link *l, uint64_t now)
{
	l->retry_ns = now + l->backoff_ms * NS_PER_MS;
	l->backoff_ms = l->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : l->backoff_ms * 2;
}

static void resolve_free(struct resolve *r)
{
	if (r->req.ar_result != NULL)
		freeaddrinfo(r->req.ar_result);
	free(r);
}

/* A lookup still running in glibc's thread writes into @p r: keep it until done. */
static void resolve_drop(struct ha_redis *h, struct resolve *r)
{
	if (gai_cancel(&r->req) == EAI_NOTCANCELED) {
		r->next = h->orphans;
		h->orphans = r;
		return;
	}
	resolve_free(r);
}

/*
 * Close @p l on purpose (@p why NULL: no failure, the caller says what is
 * next) or because it failed (@p why: recorded in last_error). hiredis
 * calls the pending reply callbacks with NULL from redisAsyncFree(), or
 * right after the current callback when called from one.
 */
void hr_link_close(struct link *l, const char *why)
{
	redisAsyncContext *ac = l->ac;

	if (l->state == LINK_DOWN)
		return;
	l->ac = NULL;
	if (l->res != NULL) {
		resolve_drop(l->h, l->res);
		l->res = NULL;
	}
	if (why != NULL)
		set_error(l->h, l, "%s", why);
	if (ac != NULL)
		redisAsyncFree(ac);
	link_down(l, why != NULL);
}

/* The next sentinel, or the end of this round of queries. */
static void query_next(struct ha_redis *h)
{
	h->query_idx = (h->query_idx + 1) % h->cfg.nb_sentinels;
	if (++h->query_tries < h->cfg.nb_sentinels) {
		h->stats.sentinel_queries++;
		link_connect(&h->links[LINK_QUERY], &h->cfg.sentinels[h->query_idx]);
		return;
	}
	h->querying = false;
	schedule_retry(&h->links[LINK_CMD], hr_now(h));
}

/* @p l has no context any more: what comes next depends on its kind. */
static void link_down(struct link *l, bool failed)
{
	struct ha_redis *h = l->h;
	bool was_up = l->state == LINK_UP;
	uint64_t now = hr_now(h);

	l->state = LINK_DOWN;
	l->inflight = 0;
	l->stuck = false;
	if (h->stopping)
		return;
	switch (l->kind) {
	case LINK_CMD:
		hr_link_close(&h->links[LINK_SUB], NULL);
		if (failed) {
			/* Sentinel: ask again where the master is. */
			h->master_told = false;
			schedule_retry(l, now);
		} else {
			l->retry_ns = now;
		}
		if (was_up) {
			h->stats.disconnects++;
			if (h->ops.on_link != NULL)
				h->ops.on_link(h->ctx, false);
		}
		break;
	case LINK_SUB:
		if (failed && h->links[LINK_CMD].state != LINK_DOWN)
			schedule_retry(l, now);
		break;
	case LINK_QUERY:
		if (failed)
			query_next(h);
		break;
	case LINK_SWITCH:
		h->switch_idx = (h->switch_idx + 1) % h->cfg.nb_sentinels;
		schedule_retry(l, now);
		break;
	case LINK_MAX:
		break;
	}
}

/* hiredis freed (or is freeing) @p ac itself: an error, EOF, a failed connect. */
static void link_lost(struct link *l, const redisAsyncContext *ac)
{
	if (l->ac != ac)
		return;
	l->ac = NULL;
	/* c.errstr: hiredis copies it to ac->errstr only after calling onConnect. */
	set_error(l->h, l, "%s", ac->c.errstr[0] != '\0' ? ac->c.errstr : "closed");
	link_down(l, true);
}

static void link_up(struct link *l)
{
	struct ha_redis *h = l->h;

	l->state = LINK_UP;
	l->backoff_ms = BACKOFF_MIN_MS;
	if (l->kind != LINK_CMD)
		return;
	h->stats.connects++;
	if (h->ops.on_link != NULL)
		h->ops.on_link(h->ctx, true);
}

static void handshake_done(struct link *l)
{
	if (l->state == LINK_HANDSHAKE && --l->handshake_left == 0 && !l->stuck)
		link_up(l);
}

static void on_handshake(redisAsyncContext *ac, void *r, void *priv)
{
	struct link *l = ac->data;
	struct ha_redis *h = l->h;
	redisReply *reply = r;
	uintptr_t step = (uintptr_t)priv;

	if (l->ac != ac || reply == NULL)
		return; /* a context we dropped, or hiredis is freeing it (link_lost follows) */
	if (reply->type == REDIS_REPLY_ERROR) {
		char why[128];

		snprintf(why, sizeof(why), "%s: %s",
			 step == H_AUTH   ? "AUTH"
			 : step == H_ROLE ? "ROLE"
					  : "SCRIPT LOAD",
			 reply->str);
		hr_link_close(l, why);
		return;
	}
	if (step == H_ROLE) {
		/* ROLE: ["master", ...]; a replica answers "slave": the sentinel
		 * we asked has not seen a failover yet, or we were told late. */
		if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 1 ||
		    !hr_reply_is(reply->element[0], REDIS_REPLY_STRING) ||
		    strcmp(reply->element[0]->str, "master") != 0) {
			hr_link_close(l, "ROLE: not the master");
			return;
		}
	} else if (step >= H_SCRIPT) {
		if (reply->type != REDIS_REPLY_STRING || reply->len != 40) {
			hr_link_close(l, "SCRIPT LOAD: not a SHA1");
			return;
		}
		memcpy(h->sha[step - H_SCRIPT], reply->str, 40);
		h->sha[step - H_SCRIPT][40] = '\0';
	}
	handshake_done(l);
}

static void send_step(struct link *l, enum step step, redisCallbackFn *fn, int argc,
		      const char **argv)
{
	if (redisAsyncCommandArgv(l->ac, fn, (void *)(uintptr_t)step, argc, argv, NULL) != REDIS_OK)
		l->stuck = true; /* out of memory: the timer drops the link */
	else
		l->handshake_left++;
}

/* Messages on a subscribed link: ["subscribe", channel, n] then ["message", channel, data]. */
static void on_message(redisAsyncContext *ac, void *r, void *priv);
static void on_query(redisAsyncContext *ac, void *r, void *priv);

static void send_auth(struct link *l)
{
	const char *argv[] = { "AUTH", l->h->cfg.password };
	/* Redis 6+ ACL (https://redis.io/docs/management/security/acl/): AUTH user password */
	const char *argv_user[] = { "AUTH", l->h->cfg.user, l->h->cfg.password };

	if (l->h->cfg.password[0] == '\0')
		return;
	if (l->h->cfg.user[0] != '\0')
		send_step(l, H_AUTH, on_handshake, 3, argv_user);
	else
		send_step(l, H_AUTH, on_handshake, 2, argv);
}

/* The TCP connect completed (or failed: hiredis frees @p cac on return). */
static void on_connect(const redisAsyncContext *cac, int status)
{
	/* hiredis hands a const pointer to the context it owns; commands need it writable. */
	redisAsyncContext *ac = (redisAsyncContext *)cac;
	struct link *l = ac->data;
	struct ha_redis *h = l->h;
	const char *argv[3];
	unsigned i;

	if (l->ac != ac)
		return;
	if (status != REDIS_OK) {
		link_lost(l, ac);
		return;
	}
	l->state = LINK_HANDSHAKE;
	l->since_ns = hr_now(h);
	l->handshake_left = 0;
	switch (l->kind) {
	case LINK_CMD:
		send_auth(l);
		if (h->sentinel) {
			argv[0] = "ROLE";
			send_step(l, H_ROLE, on_handshake, 1, argv);
		}
		for (i = 0; i < S_MAX; i++) {
			argv[0] = "SCRIPT";
			argv[1] = "LOAD";
			argv[2] = hr_script_text[i];
			send_step(l, (enum step)(H_SCRIPT + i), on_handshake, 3, argv);
		}
		break;
	case LINK_SUB:
		send_auth(l);
		argv[0] = "SUBSCRIBE";
		argv[1] = h->channel;
		send_step(l, H_QUERY, on_message, 2, argv);
		break;
	case LINK_SWITCH:
		argv[0] = "SUBSCRIBE";
		argv[1] = "+switch-master";
		send_step(l, H_QUERY, on_message, 2, argv);
		break;
	case LINK_QUERY:
		argv[0] = "SENTINEL";
		argv[1] = "get-master-addr-by-name";
		argv[2] = h->cfg.master_name;
		send_step(l, H_QUERY, on_query, 3, argv);
		break;
	case LINK_MAX:
		break;
	}
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
	(void)status;
	link_lost(ac->data, ac);
}

static void link_connect_ip(struct link *l, const char *ip)
{
	redisAsyncContext *ac = redisAsyncConnect(ip, l->addr.port);

	if (ac == NULL || ac->err) {
		set_error(l->h, l, "%s", ac != NULL ? ac->c.errstr : "out of memory");
		if (ac != NULL)
			redisAsyncFree(ac);
		link_down(l, true);
		return;
	}
	if (ha_ev_attach(ac) < 0) {
		set_error(l->h, l, "out of memory");
		redisAsyncFree(ac);
		link_down(l, true);
		return;
	}
	ac->data = l;
	l->ac = ac;
	l->state = LINK_CONNECTING;
	l->since_ns = hr_now(l->h);
	redisAsyncSetDisconnectCallback(ac, on_disconnect);
	/* Last: it asks for the first write event, the sign of a completed connect. */
	redisAsyncSetConnectCallback(ac, on_connect);
}

/* A name: look it up without blocking; the timer polls it (resolve_poll). */
static void resolve_start(struct link *l)
{
	struct resolve *r = calloc(1, sizeof(*r));
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct gaicb *list[1];
	int rc;

	if (r == NULL) {
		set_error(l->h, l, "out of memory");
		link_down(l, true);
		return;
	}
	snprintf(r->host, sizeof(r->host), "%s", l->addr.host);
	snprintf(r->port, sizeof(r->port), "%u", l->addr.port);
	r->hints.ai_family = AF_UNSPEC;
	r->hints.ai_socktype = SOCK_STREAM;
	r->req.ar_name = r->host;
	r->req.ar_service = r->port;
	r->req.ar_request = &r->hints;
	list[0] = &r->req;
	rc = getaddrinfo_a(GAI_NOWAIT, list, 1, &sev);
	if (rc != 0) {
		set_error(l->h, l, "getaddrinfo_a: %s", gai_strerror(rc));
		free(r);
		link_down(l, true);
		return;
	}
	l->res = r;
	l->state = LINK_RESOLVING;
	l->since_ns = hr_now(l->h);
}

/* The first IPv4 address, else the first IPv6 one: hiredis's own order for names. */
static void resolve_poll(struct link *l)
{
	struct resolve *r = l->res;
	const struct addrinfo *ai, *pick = NULL;
	char ip[INET6_ADDRSTRLEN];
	int rc = gai_error(&r->req);

	if (rc == EAI_INPROGRESS)
		return;
	l->res = NULL;
	for (ai = rc == 0 ? r->req.ar_result : NULL; ai != NULL; ai = ai->ai_next)
		if (pick == NULL || (ai->ai_family == AF_INET && pick->ai_family != AF_INET))
			pick = ai;
	if (pick == NULL || getnameinfo(pick->ai_addr, pick->ai_addrlen, ip, sizeof(ip), NULL, 0,
					NI_NUMERICHOST) != 0) {
		set_error(l->h, l, "%s", rc != 0 ? gai_strerror(rc) : "no address");
		resolve_free(r);
		link_down(l, true);
		return;
	}
	resolve_free(r);
	link_connect_ip(l, ip);
}

/* Start connecting @p l to @p a. A failure on the spot goes through link_down() too. */
static void link_connect(struct link *l, const struct ha_redis_addr *a)
{
	l->addr = *a;
	l->handshake_left = 0;
	if (is_literal(a->host))
		link_connect_ip(l, a->host);
	else
		resolve_start(l);
}

/* ---- master, sentinels ----------------------------------------------------- */

static void master_connect(struct ha_redis *h)
{
	link_connect(&h->links[LINK_CMD], &h->master);
	if (h->links[LINK_CMD].state != LINK_DOWN) {
		h->links[LINK_SUB].backoff_ms = BACKOFF_MIN_MS;
		link_connect(&h->links[LINK_SUB], &h->master);
	}
}

/* The command link's next attempt: straight to the server, or through the sentinels. */
static void master_attempt(struct ha_redis *h)
{
	if (!h->sentinel) {
		master_set(h, &h->cfg.server);
		master_connect(h);
	} else if (h->master_told) {
		master_connect(h);
	} else {
		h->querying = true;
		h->query_tries = 0;
		h->stats.sentinel_queries++;
		link_connect(&h->links[LINK_QUERY], &h->cfg.sentinels[h->query_idx]);
	}
}

/* SENTINEL get-master-addr-by-name: [ip, port], or nil for a name it does not monitor. */
static void on_query(redisAsyncContext *ac, void *r, void *priv)
{
	struct link *l = ac->data;
	struct ha_redis *h = l->h;
	redisReply *reply = r;
	struct ha_redis_addr a = { .port = 0 };
	unsigned long port;
	char *end;

	(void)priv;
	if (l->ac != ac || reply == NULL)
		return;
	if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 2 &&
	    hr_reply_is(reply->element[0], REDIS_REPLY_STRING) &&
	    hr_reply_is(reply->element[1], REDIS_REPLY_STRING) &&
	    reply->element[0]->len < sizeof(a.host)) {
		port = strtoul(reply->element[1]->str, &end, 10);
		if (*end == '\0' && port > 0 && port <= 65535) {
			memcpy(a.host, reply->element[0]->str, reply->element[0]->len + 1);
			a.port = (uint16_t)port;
		}
	}
	if (a.port == 0) {
		hr_link_close(l, reply->type == REDIS_REPLY_ERROR ? reply->str
								  : "does not know the master");
		return;
	}
	hr_link_close(l, NULL);
	h->querying = false;
	master_set(h, &a);
	master_connect(h);
}

/* "+switch-master NAME OLD-IP OLD-PORT NEW-IP NEW-PORT": move at once. */
static void switch_master(struct ha_redis *h, const char *msg)
{
	char name[64], old_ip[HA_REDIS_HOST_MAX], new_ip[HA_REDIS_HOST_MAX];
	unsigned old_port, new_port;
	struct ha_redis_addr a;
	struct link *cmd = &h->links[LINK_CMD];

	if (sscanf(msg, "%63s %63s %u %63s %u", name, old_ip, &old_port, new_ip, &new_port) != 5 ||
	    strcmp(name, h->cfg.master_name) != 0 || new_port == 0 || new_port > 65535)
		return;
	snprintf(a.host, sizeof(a.host), "%s", new_ip);
	a.port = (uint16_t)new_port;
	if (addr_eq(&a, &h->master) && cmd->state != LINK_DOWN)
		return;
	master_set(h, &a);
	h->master_told = true;
	cmd->backoff_ms = BACKOFF_MIN_MS;
	if (h->querying) {
		h->querying = false;
		hr_link_close(&h->links[LINK_QUERY], NULL);
	}
	hr_link_close(cmd, NULL);
	master_attempt(h);
}

/* "NODE WHAT" on the pair's channel. */
static void pair_event(struct ha_redis *h, const char *msg, size_t len)
{
	char buf[160];
	char *what;

	if (len >= sizeof(buf))
		return;
	memcpy(buf, msg, len + 1);
	what = strchr(buf, ' ');
	if (what == NULL)
		return;
	*what++ = '\0';
	if (strcmp(buf, h->cfg.node) == 0)
		return; /* our own publication */
	h->stats.events_rx++;
	if (h->ops.on_event != NULL)
		h->ops.on_event(h->ctx, buf, what);
}

static void on_message(redisAsyncContext *ac, void *r, void *priv)
{
	struct link *l = ac->data;
	redisReply *reply = r;
	const redisReply *type, *data;

	(void)priv;
	if (l->ac != ac || reply == NULL || reply->type != REDIS_REPLY_ARRAY || reply->elements < 3)
		return;
	type = reply->element[0];
	data = reply->element[2];
	if (!hr_reply_is(type, REDIS_REPLY_STRING))
		return;
	if (strcasecmp(type->str, "subscribe") == 0) {
		handshake_done(l);
		return;
	}
	if (strcasecmp(type->str, "message") != 0 || !hr_reply_is(data, REDIS_REPLY_STRING))
		return;
	if (l->kind == LINK_SUB)
		pair_event(l->h, data->str, data->len);
	else
		switch_master(l->h, data->str);
}

/* ---- life cycle -------------------------------------------------------------- */

int ha_redis_start(const struct ha_redis_cfg *cfg, const struct ha_redis_ops *ops, void *ctx,
		   struct ha_redis **out)
{
	struct ha_redis *h;
	unsigned i;

	if (cfg->nb_sentinels > HA_REDIS_MAX_SENTINELS || cfg->node[0] == '\0' ||
	    cfg->timeout_ms == 0)
		return -EINVAL;
	if (cfg->nb_sentinels == 0 && (cfg->server.host[0] == '\0' || cfg->server.port == 0))
		return -EINVAL;
	if (cfg->nb_sentinels > 0 && cfg->master_name[0] == '\0')
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	h->cfg = *cfg;
	/* The fixed-size fields must be strings whatever the caller left in them. */
	h->cfg.server.host[sizeof(h->cfg.server.host) - 1] = '\0';
	h->cfg.master_name[sizeof(h->cfg.master_name) - 1] = '\0';
	h->cfg.password[sizeof(h->cfg.password) - 1] = '\0';
	h->cfg.user[sizeof(h->cfg.user) - 1] = '\0';
	h->cfg.prefix[sizeof(h->cfg.prefix) - 1] = '\0';
	h->cfg.node[sizeof(h->cfg.node) - 1] = '\0';
	for (i = 0; i < cfg->nb_sentinels; i++)
		h->cfg.sentinels[i].host[sizeof(h->cfg.sentinels[i].host) - 1] = '\0';
	if (ops != NULL)
		h->ops = *ops;
	h->ctx = ctx;
	h->sentinel = cfg->nb_sentinels > 0;
	for (i = 0; i < LINK_MAX; i++) {
		h->links[i].h = h;
		h->links[i].kind = (enum link_kind)i;
		h->links[i].backoff_ms = BACKOFF_MIN_MS;
	}
	snprintf(h->key_lease, KEY_MAX, "%slease", h->cfg.prefix);
	snprintf(h->key_epoch, KEY_MAX, "%sepoch", h->cfg.prefix);
	snprintf(h->key_state, KEY_MAX, "%sstate:%s", h->cfg.prefix, h->cfg.node);
	snprintf(h->key_shared, KEY_MAX, "%sshared", h->cfg.prefix);
	snprintf(h->channel, KEY_MAX, "%sevents", h->cfg.prefix);
	*out = h;
	return 0;
}

void ha_redis_stop(struct ha_redis *h)
{
	struct resolve *r;
	unsigned i;

	if (h == NULL)
		return;
	h->stopping = true;
	hr_ops_cancel(h);
	for (i = 0; i < LINK_MAX; i++)
		hr_link_close(&h->links[i], NULL);
	/* Lookups glibc is still running write into their struct: wait for
	 * them (only a name that did not resolve by its deadline gets here). */
	while ((r = h->orphans) != NULL) {
		const struct gaicb *list[1] = { &r->req };

		while (gai_error(&r->req) == EAI_INPROGRESS)
			gai_suspend(list, 1, NULL);
		h->orphans = r->next;
		resolve_free(r);
	}
	free(h);
}

static uint64_t dead_ms(const struct ha_redis *h)
{
	uint64_t ms = (uint64_t)h->cfg.timeout_ms * DEAD_TIMEOUTS;

	return ms > DEAD_MIN_MS ? ms : DEAD_MIN_MS;
}

/* Deadlines of links before UP, and the command link's liveness. */
static void links_check(struct ha_redis *h, uint64_t now)
{
	struct link *cmd = &h->links[LINK_CMD];
	char why[64];
	unsigned i;

	for (i = 0; i < LINK_MAX; i++) {
		struct link *l = &h->links[i];
		uint64_t limit = h->cfg.timeout_ms;

		if (l->state == LINK_RESOLVING) {
			resolve_poll(l);
			limit = limit > RESOLVE_MIN_MS ? limit : RESOLVE_MIN_MS;
		}
		if (l->state == LINK_DOWN || l->state == LINK_UP)
			continue;
		if (hr_after(now, l->since_ns, limit)) {
			snprintf(why, sizeof(why), "%s timed out",
				 l->state == LINK_RESOLVING    ? "resolve"
				 : l->state == LINK_CONNECTING ? "connect"
							       : "handshake");
			hr_link_close(l, why);
		} else if (l->stuck) {
			hr_link_close(l, "out of memory");
		}
	}
	for (i = 0; i < LINK_MAX; i++) {
		struct link *l = &h->links[i];

		if (l->ac != NULL && ha_ev_error(l->ac) < 0) {
			snprintf(why, sizeof(why), "event loop: %s", strerror(-ha_ev_error(l->ac)));
			hr_link_close(l, why);
		}
	}
	if (cmd->state == LINK_UP && cmd->inflight > 0 &&
	    hr_after(now, cmd->progress_ns, dead_ms(h)))
		hr_link_close(cmd, "no reply: link dead");
}

void ha_redis_timer(struct ha_redis *h, uint64_t now_ns)
{
	struct link *cmd = &h->links[LINK_CMD], *sub = &h->links[LINK_SUB];
	struct link *sw = &h->links[LINK_SWITCH];
	struct resolve **pr;

	h->now_ns = now_ns;
	clock_gettime(CLOCK_MONOTONIC, &h->tick_mono);
	if (!h->started) {
		h->started = true;
		cmd->retry_ns = sw->retry_ns = now_ns;
	}
	hr_ops_expire(h, now_ns);
	links_check(h, now_ns);
	if (cmd->state == LINK_DOWN && !h->querying && now_ns >= cmd->retry_ns)
		master_attempt(h);
	if (sub->state == LINK_DOWN && cmd->state != LINK_DOWN && now_ns >= sub->retry_ns)
		link_connect(sub, &h->master);
	if (h->sentinel && sw->state == LINK_DOWN && now_ns >= sw->retry_ns)
		link_connect(sw, &h->cfg.sentinels[h->switch_idx]);
	for (pr = &h->orphans; *pr != NULL;) {
		struct resolve *r = *pr;

		if (gai_error(&r->req) == EAI_INPROGRESS) {
			pr = &r->next;
			continue;
		}
		*pr = r->next;
		resolve_free(r);
	}
}

bool ha_redis_up(const struct ha_redis *h)
{
	return !h->stopping && h->links[LINK_CMD].state == LINK_UP;
}

const char *ha_redis_master(const struct ha_redis *h)
{
	return h->master_str;
}

const struct ha_redis_stats *ha_redis_stats(const struct ha_redis *h)
{
	return &h->stats;
}

const char *ha_redis_last_error(const struct ha_redis *h)
{
	return h->last_error;
}
