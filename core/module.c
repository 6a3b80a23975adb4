/* SPDX-License-Identifier: BSD-3-Clause */
/* The module table (see module.h). No DPDK: unit-tested alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/module.h"

static struct vbrd_module *modules[VBRD_MODULE_MAX];
static unsigned nb_modules;

void module_register(struct vbrd_module *m)
{
	if (module_find(m->name) != NULL || nb_modules == VBRD_MODULE_MAX) {
		fprintf(stderr, "vbrd: module %s: %s\n", m->name,
			nb_modules == VBRD_MODULE_MAX ? "table full" : "registered twice");
		abort();
	}
	m->id = (uint16_t)nb_modules;
	modules[nb_modules++] = m;
}

struct vbrd_module *module_find(const char *name)
{
	for (unsigned i = 0; i < nb_modules; i++)
		if (strcmp(modules[i]->name, name) == 0)
			return modules[i];
	return NULL;
}

unsigned module_count(void)
{
	return nb_modules;
}

const struct vbrd_module *module_get(unsigned i)
{
	return i < nb_modules ? modules[i] : NULL;
}

/* Depth-first topological sort; mark: 0 new, 1 on the stack, 2 done. */
static int visit(struct vbrd_module *m, char *mark, struct vbrd_module **out, unsigned *n,
		 char *err, size_t errlen)
{
	if (mark[m->id] == 2)
		return 0;
	if (mark[m->id] == 1) {
		snprintf(err, errlen, "module dependency cycle at %s", m->name);
		return -ELOOP;
	}
	mark[m->id] = 1;
	for (const char *const *d = m->depends_on; d && *d; d++) {
		struct vbrd_module *dep = module_find(*d);
		if (dep == NULL) {
			snprintf(err, errlen, "module %s depends on unknown module %s", m->name,
				 *d);
			return -ENOENT;
		}
		int ret = visit(dep, mark, out, n, err, errlen);
		if (ret < 0)
			return ret;
	}
	mark[m->id] = 2;
	out[(*n)++] = m;
	return 0;
}

int modules_sort(char *err, size_t errlen)
{
	struct vbrd_module *sorted[VBRD_MODULE_MAX];
	char mark[VBRD_MODULE_MAX] = { 0 };
	unsigned n = 0;

	/* visit in name order, so the result does not depend on link order */
	struct vbrd_module *byname[VBRD_MODULE_MAX];
	memcpy(byname, modules, sizeof(*modules) * nb_modules);
	for (unsigned i = 1; i < nb_modules; i++)
		for (unsigned j = i; j > 0 && strcmp(byname[j - 1]->name, byname[j]->name) > 0;
		     j--) {
			struct vbrd_module *t = byname[j];
			byname[j] = byname[j - 1];
			byname[j - 1] = t;
		}
	for (unsigned i = 0; i < nb_modules; i++) {
		int ret = visit(byname[i], mark, sorted, &n, err, errlen);
		if (ret < 0)
			return ret;
	}
	memcpy(modules, sorted, sizeof(*modules) * nb_modules);
	for (unsigned i = 0; i < nb_modules; i++)
		modules[i]->id = (uint16_t)i;
	return 0;
}

int modules_init(const struct vbrd_config *cfg, char *err, size_t errlen)
{
	int ret = modules_sort(err, errlen);

	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < nb_modules; i++) {
		struct vbrd_module *m = modules[i];
		if (m->init && (ret = m->init(cfg)) < 0) {
			snprintf(err, errlen, "module %s: init failed: %s", m->name,
				 strerror(-ret));
			modules_fini();
			return ret;
		}
		m->initialised = 1;
	}
	return 0;
}

int modules_state_build(struct fwd_state *st, const struct fwd_state *prev, char *err,
			size_t errlen)
{
	for (unsigned i = 0; i < nb_modules; i++) {
		struct vbrd_module *m = modules[i];
		int ret;
		if (m->state_build && (ret = m->state_build(st, prev, err, errlen)) < 0)
			return ret;
	}
	return 0;
}

int modules_state_prepare(struct fwd_state *st, const struct vbrd_config *cfg,
			  const struct fwd_state *prev, char *err, size_t errlen)
{
	for (unsigned i = 0; i < nb_modules; i++) {
		struct vbrd_module *m = modules[i];
		int ret;
		if (m->state_prepare && (ret = m->state_prepare(st, cfg, prev, err, errlen)) < 0)
			return ret;
	}
	return 0;
}

void modules_state_free(struct fwd_state *st)
{
	for (unsigned i = nb_modules; i-- > 0;)
		if (modules[i]->state_free)
			modules[i]->state_free(st);
}

void modules_state_published(const struct fwd_state *st)
{
	for (unsigned i = 0; i < nb_modules; i++)
		if (modules[i]->initialised && modules[i]->state_published)
			modules[i]->state_published(st);
}

int modules_start(char *err, size_t errlen)
{
	for (unsigned i = 0; i < nb_modules; i++) {
		struct vbrd_module *m = modules[i];
		int ret;
		if (m->initialised && m->start && (ret = m->start()) < 0) {
			snprintf(err, errlen, "module %s: start failed: %s", m->name,
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}

unsigned modules_poll(uint64_t now_ms)
{
	unsigned work = 0;

	for (unsigned i = 0; i < nb_modules; i++) {
		struct vbrd_module *m = modules[i];
		if (!m->initialised)
			continue;
		if (m->poll)
			work += m->poll();
		if (m->timer && now_ms >= m->next_timer) {
			m->timer(now_ms);
			m->next_timer = now_ms + (m->timer_ms ? m->timer_ms : 1000);
		}
	}
	return work;
}

void modules_fini(void)
{
	for (unsigned i = nb_modules; i-- > 0;) {
		struct vbrd_module *m = modules[i];
		if (m->initialised && m->fini)
			m->fini();
		m->initialised = 0;
	}
}
