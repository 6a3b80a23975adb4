/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The module table: every feature of the daemon (ports, forwarding,
 * neighbors, tunnels, the control socket, ...) declares its lifecycle here
 * and main() walks the table in dependency order (grout's struct module
 * with depends_on). Adding a feature means a module in its own folder,
 * not an edit to main():
 *
 *     static struct vbrd_module tunnel_module = {
 *         .name = "tunnel",
 *         .depends_on = (const char *const[]){ "fwd", NULL },
 *         .init = tunnel_init,
 *         .timer = tunnel_timer, .timer_ms = 100,
 *     };
 *     VBRD_MODULE(tunnel_module);
 *
 * Every hook runs on the main (control) lcore and may be NULL.
 */
#ifndef VBRD_CORE_MODULE_H
#define VBRD_CORE_MODULE_H

#include <stddef.h>
#include <stdint.h>

#define VBRD_MODULE_MAX 64

struct vbrd_config;
struct fwd_state;

struct vbrd_module {
	const char *name;              /* "tunnel": unique, names it in depends_on and logs */
	const char *const *depends_on; /* NULL-terminated names initialised before this one */

	/**
	 * Start-up, after the EAL, the mempools and the ports, before the
	 * first state is built. @return 0 or a negative errno (start-up fails).
	 */
	int (*init)(const struct vbrd_config *cfg);
	/**
	 * Into every new forwarding state, while its route table is built and
	 * before its next hops are filled: take (fib_nexthop_get()) the ids of
	 * the next hops the feature's objects use, so st->nexthops covers them
	 * and the neighbor table keeps their MACs current. What it keeps goes
	 * in st->feature[id]; state_free releases it (also after a failed build).
	 * @p cfg is the configuration the state is built from (st->cfg is not set yet).
	 * @return 0 or a negative errno with @p err filled
	 */
	int (*state_prepare)(struct fwd_state *st, const struct vbrd_config *cfg,
			     const struct fwd_state *prev, char *err, size_t errlen);
	/**
	 * Into every new forwarding state, after the core tables are built and
	 * before it is published (start-up and each reload). @p prev is the
	 * running state (NULL at start-up) to carry run-time data over from.
	 * @return 0 or a negative errno with @p err filled (the state is not used)
	 */
	int (*state_build)(struct fwd_state *st, const struct fwd_state *prev, char *err,
			   size_t errlen);
	/** Release what state_build added to @p st (it is never published, or is retired). */
	void (*state_free)(struct fwd_state *st);
	/** After @p st was published (workers see it): control-side follow-up. */
	void (*state_published)(const struct fwd_state *st);
	/** Once the first state is published: start workers, sockets, show commands. */
	int (*start)(void);
	/**
	 * Control-lcore work for each turn of the main loop (rings, sockets).
	 * @return units of work done (0 = idle: the loop may sleep)
	 */
	unsigned (*poll)(void);
	/** Periodic work, every @c timer_ms milliseconds of CLOCK_MONOTONIC. */
	void (*timer)(uint64_t now_ms);
	uint32_t timer_ms;
	/**
	 * Shutdown, in reverse dependency order. The workers module's fini
	 * stops the workers, so a module that depends on it finalises while
	 * workers may still run: free nothing they read.
	 */
	void (*fini)(void);

	/* set by the registry */
	uint16_t id;         /* registration index */
	uint64_t next_timer; /* ms */
	int initialised;     /* init ran and succeeded */
};

/** Add @p m to the table (VBRD_MODULE's constructor). Aborts on a duplicate or a full table. */
void module_register(struct vbrd_module *m);

#define VBRD_MODULE(m)                                              \
	__attribute__((constructor)) static void m##_register(void) \
	{                                                           \
		module_register(&m);                                \
	}

/**
 * Order the table so that every module follows what it depends on.
 * @param err     on failure, "module X depends on unknown Y" or "dependency cycle at X"
 * @return 0, -ENOENT (unknown dependency) or -ELOOP (cycle)
 */
int modules_sort(char *err, size_t errlen);

/**
 * Run every module's init in dependency order (modules_sort() first).
 * On a failure, the modules already initialised are finalised in reverse.
 * @return 0, or the failing init's negative errno (@p err names the module)
 */
int modules_init(const struct vbrd_config *cfg, char *err, size_t errlen);

/**
 * Run every state_build hook on @p st in order.
 * @return 0 or the first negative errno (@p err says what failed)
 */
int modules_state_build(struct fwd_state *st, const struct fwd_state *prev, char *err,
			size_t errlen);

/**
 * Run every state_prepare hook on @p st in order.
 * @return 0 or the first negative errno (@p err says what failed)
 */
int modules_state_prepare(struct fwd_state *st, const struct vbrd_config *cfg,
			  const struct fwd_state *prev, char *err, size_t errlen);

/** Run every state_free hook on @p st, in reverse order. */
void modules_state_free(struct fwd_state *st);

/** Run every state_published hook. */
void modules_state_published(const struct fwd_state *st);

/** Run every start hook in order. @return 0 or the first negative errno (@p err names it). */
int modules_start(char *err, size_t errlen);

/** One turn of poll hooks and due timers. @param now_ms CLOCK_MONOTONIC ms. @return work done. */
unsigned modules_poll(uint64_t now_ms);

/** Finalise every initialised module, in reverse dependency order. */
void modules_fini(void);

/** Number of registered modules, and module @p i in dependency order (after modules_sort()). */
unsigned module_count(void);
const struct vbrd_module *module_get(unsigned i);

/** Module named @p name, or NULL. */
struct vbrd_module *module_find(const char *name);

#endif
