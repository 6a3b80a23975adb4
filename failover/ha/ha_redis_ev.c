/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hiredis's async API on core/evloop.h (ha_redis_ev.h).
 *
 * hiredis asks for read and write readiness through five hooks and calls
 * redisAsyncHandleRead()/redisAsyncHandleWrite() back from us. The epoll
 * set is level-triggered, so the hooks only keep the mask of what hiredis
 * waits for: EPOLLIN while connected, EPOLLOUT while connecting or while
 * output is pending.
 *
 * Lifetime. hiredis frees a context from inside redisAsyncHandleRead()
 * (EOF, a read error, or redisAsyncFree() from a reply callback) and then
 * calls the cleanup hook; our handler struct must survive until we are
 * back from hiredis, so cleanup only marks it when it runs under our own
 * ready callback, which frees it on the way out.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "core/evloop.h"
#include "failover/ha/ha_redis_ev.h"

struct ha_ev {
	struct ev_handler eh;
	redisAsyncContext *ac;
	uint32_t events; /* what hiredis waits for: EPOLLIN, EPOLLOUT */
	bool added;      /* eh.fd is in the epoll set */
	bool in_ready;   /* ha_ev_ready() is on the stack */
	bool dead;       /* hiredis cleaned up: ac is gone */
	int err;         /* last ev_add()/ev_mod() failure, -errno */
};

static struct ha_ev *ha_ev_of(struct ev_handler *eh)
{
	return (struct ha_ev *)((char *)eh - offsetof(struct ha_ev, eh));
}

/* Hand hiredis the readiness it asked for. EPOLLERR and EPOLLHUP come
 * whatever the mask: they go to the side hiredis waits on (the write side
 * while connecting, where hiredis reads SO_ERROR), so it sees the error. */
static void ha_ev_ready(struct ev_handler *eh, uint32_t events)
{
	struct ha_ev *e = ha_ev_of(eh);
	bool fault = (events & (EPOLLERR | EPOLLHUP)) != 0;
	bool want_write = (e->events & EPOLLOUT) != 0;
	bool want_read = (e->events & EPOLLIN) != 0 || !want_write;

	e->in_ready = true;
	if (want_read && ((events & EPOLLIN) || fault))
		redisAsyncHandleRead(e->ac);
	if (!e->dead && want_write && ((events & EPOLLOUT) || fault))
		redisAsyncHandleWrite(e->ac);
	e->in_ready = false;
	if (e->dead)
		free(e);
}

static void ha_ev_set(struct ha_ev *e, uint32_t events)
{
	int rc;

	if (e->dead || (e->added && events == e->events))
		return;
	rc = e->added ? ev_mod(&e->eh, events) : ev_add(&e->eh, events);
	if (rc < 0) {
		e->err = rc;
		return;
	}
	e->added = true;
	e->events = events;
}

static void ha_ev_add_read(void *priv)
{
	struct ha_ev *e = priv;

	ha_ev_set(e, e->events | EPOLLIN);
}

static void ha_ev_del_read(void *priv)
{
	struct ha_ev *e = priv;

	ha_ev_set(e, e->events & ~(uint32_t)EPOLLIN);
}

static void ha_ev_add_write(void *priv)
{
	struct ha_ev *e = priv;

	ha_ev_set(e, e->events | EPOLLOUT);
}

static void ha_ev_del_write(void *priv)
{
	struct ha_ev *e = priv;

	ha_ev_set(e, e->events & ~(uint32_t)EPOLLOUT);
}

/* hiredis is freeing the context; the socket is closed right after. */
static void ha_ev_cleanup(void *priv)
{
	struct ha_ev *e = priv;

	ev_del(&e->eh);
	e->ac->ev.data = NULL;
	e->dead = true;
	if (!e->in_ready)
		free(e);
}

int ha_ev_attach(redisAsyncContext *ac)
{
	struct ha_ev *e;

	if (ac->ev.data != NULL)
		return -EEXIST;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	e->eh.fd = ac->c.fd;
	e->eh.cb = ha_ev_ready;
	e->ac = ac;
	ac->ev.data = e;
	ac->ev.addRead = ha_ev_add_read;
	ac->ev.delRead = ha_ev_del_read;
	ac->ev.addWrite = ha_ev_add_write;
	ac->ev.delWrite = ha_ev_del_write;
	ac->ev.cleanup = ha_ev_cleanup;
	return 0;
}

int ha_ev_error(const redisAsyncContext *ac)
{
	const struct ha_ev *e = ac->ev.data;

	return e != NULL ? e->err : 0;
}
