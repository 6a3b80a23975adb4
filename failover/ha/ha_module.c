/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's module (ha.h): runs the role machine (ha_role.h) against
 * Redis (ha_redis.h) on a thread of its own, "vbrd-ha", and applies the
 * role: the gate on the service interface, the ARP/ND claim on the service
 * address, the announcements at takeover, the shared state both ways.
 *
 * The thread has its own event loop (core/evloop.h is per thread) holding
 * the Redis links, and ticks every millisecond; nothing the main loop does
 * (a long show, a reload, a burst of routes) delays a renewal. It takes
 * ha_lock() while it works, and so do the main loop's readers and writers
 * of struct ha_node (show ha, a reload's new timings), for microseconds;
 * the data path and the ARP/ND claim read only atomics (the gate, the
 * active deadline). While it looks at fwd_current it is an RCU reader
 * (DP_RCU_HA), so a reload frees no generation under it.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>
#include <semaphore.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>

#include "core/ctl.h"
#include "core/evloop.h"
#include "core/history.h"
#include "core/log.h"
#include "failover/bfd/bfd.h"
#include "failover/ha/ha.h"
#include "failover/pathsel/pathsel.h"
#include "pipeline/control.h"
#include "pipeline/fwd.h"
#include "pipeline/nd.h"
#include "pipeline/worker.h"

VBRD_LOG_TYPE(ha);

DROP_REASON(drop_ha_standby, "ha", "ha_standby",
	    "transit received on the HA service interface while this node is not active");

struct ha_node ha;

/* The gate of the service interface (fwd_gate), in every generation's
 * interface of that name: open until the lease's local deadline. */
static struct fwd_gate gate = { .closed = &drop_ha_standby };

/* Announcements still to send at takeover, and when the next is due. */
static unsigned announce_left;
static uint64_t announce_next;
static uint64_t publish_next;
static bool publish_now;
static uint64_t published_digest; /* state_digest() when last compared */
static enum ha_role_state last_state = HA_INIT;

/* The HA thread's nice value (ha_thread_start()). */
#define HA_THREAD_NICE (-10)

static pthread_t ha_tid;
static bool ha_thread_running;
static pthread_mutex_t ha_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool ha_thread_stop;
/* Until when (tsc_now_ns) this node acts for the service address: the
 * role's local deadline while active, 0 otherwise; set by apply(). */
static _Atomic uint64_t active_until_ns;

void ha_lock(void)
{
	pthread_mutex_lock(&ha_mutex);
}

int ha_lock_for(unsigned ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return -pthread_mutex_timedlock(&ha_mutex, &ts);
}

void ha_unlock(void)
{
	pthread_mutex_unlock(&ha_mutex);
}

static const char *const tier_names[PATHSEL_TIERS] = {
	[CFG_TIER_GOLD] = "gold", [CFG_TIER_SILVER] = "silver", [CFG_TIER_BRONZE] = "bronze"
};

/* ---- role effects ---------------------------------------------------------- */

bool ha_is_active(void)
{
	return ha.enabled &&
	       tsc_now_ns() < atomic_load_explicit(&active_until_ns, memory_order_acquire);
}

static struct ha_event history_buf[HA_HISTORY];
static struct history history = HISTORY_INIT(history_buf);

int ha_history_get(struct ha_event *out, unsigned cap)
{
	int n;

	if (ha_lock_for(HA_SHOW_WAIT_MS) != 0)
		return -EBUSY;
	n = (int)history_get(&history, out, cap);
	ha_unlock();
	return n;
}

static void role_change_record(uint64_t now, enum ha_role_state from, enum ha_role_state to)
{
	struct ha_event e = {
		.t = now,
		.old_state = (uint8_t)from,
		.new_state = (uint8_t)to,
		.reason = (uint8_t)ha.role.reason,
		.epoch = ha.role.epoch,
	};

	snprintf(e.holder, sizeof(e.holder), "%s", ha.role.holder);
	history_push(&history, &e);
}

/* The service interface in the running state, or NULL. */
static const struct fwd_iface *service_iface(void)
{
	const struct fwd_state *st = atomic_load(&fwd_current);

	for (int i = 0; st != NULL && i < st->nb_ifaces; i++)
		if (strcmp(st->ifaces[i].name, ha.cfg.iface) == 0)
			return &st->ifaces[i];
	return NULL;
}

/* Gratuitous ARP and unsolicited NA for the service address (RFC 5227 §3, RFC 4861 §7.2.6). */
static void announce(void)
{
	const struct fwd_iface *fi = service_iface();

	if (fi == NULL)
		return;
	const struct rte_ether_addr *mac = ha.cfg.has_vmac ? &gate.mac : NULL;
	if (ha.cfg.has_v4)
		arp_announce(fi, ha.cfg.vip4, mac);
	if (ha.cfg.has_v6)
		nd_announce(fi, ha.cfg.vip6, mac);
	ha.announces++;
}

/* The old active's path choices, from the shared state, into our tiers. */
static unsigned adopt_shared(void)
{
	json_error_t jerr;
	json_t *root, *paths, *e;
	unsigned n = 0;
	size_t i;

	/* choices older than the state's expiry are nobody's any more */
	if (ha.shared_json == NULL || ha.cfg.nb_pgroups == 0 ||
	    tsc_now_ns() - ha.shared_t > (uint64_t)ha.cfg.state_ttl_ms * 1000000u)
		return 0;
	root = json_loads(ha.shared_json, 0, &jerr);
	if (root == NULL) {
		ha.adopt_errors++;
		return 0;
	}
	paths = json_object_get(root, "paths");
	json_array_foreach(paths, i, e)
	{
		const char *g = json_string_value(json_object_get(e, "group"));
		const char *t = json_string_value(json_object_get(e, "tier"));
		const char *p = json_string_value(json_object_get(e, "path"));
		bool shared = false;

		if (g == NULL || t == NULL || p == NULL)
			continue;
		for (unsigned k = 0; k < ha.cfg.nb_pgroups; k++)
			shared |= strcmp(ha.cfg.pgroups[k], g) == 0;
		if (!shared)
			continue;
		if (pathsel_adopt(g, t, p) == 0)
			n++;
		else
			ha.adopt_errors++;
	}
	json_decref(root);
	return n;
}

/* Make the data path and the claim follow the role machine. */
static void apply(uint64_t now)
{
	bool active = ha_role_active(&ha.role, now);

	/* The gate's TSC straight from the deadline, not "the TSC now +
	 * (deadline - now)": the caller's now was read some time before (a
	 * tick's start, a reply's arrival), and the control thread may have
	 * been off its CPU since; that time would be added to the gate. */
	atomic_store_explicit(&gate.open_until_tsc,
			      active ? tsc_cycles_at(ha_role_deadline_ns(&ha.role)) : 0,
			      memory_order_relaxed);
	atomic_store_explicit(&active_until_ns, active ? ha_role_deadline_ns(&ha.role) : 0,
			      memory_order_release);
	if (ha.role.state != last_state) {
		LOG(NOTICE, "role %s -> %s (%s), epoch %" PRIu64 ", lease holder %s",
		    ha_role_state_name(last_state), ha_role_state_name(ha.role.state),
		    ha_reason_name(ha.role.reason), ha.role.epoch,
		    ha.role.holder[0] ? ha.role.holder : "none");
		role_change_record(now, last_state, ha.role.state);
		last_state = ha.role.state;
		publish_now = true;
	}
	if (active && !ha.was_active) {
		struct ha_takeover *tk = &ha.takeover;
		tk->valid = true;
		tk->t = now;
		tk->reason = (uint8_t)ha.role.reason;
		tk->lease_rtt_ns = now - ha.role.pending_sent_ns;
		tk->adopted = adopt_shared();
		announce_left = ha.cfg.announce;
		announce_next = now;
		LOG(NOTICE,
		    "takeover: active for the service address, epoch %" PRIu64
		    ", %u path choices adopted from %s",
		    ha.role.epoch, tk->adopted, tk->from[0] ? tk->from : "nobody");
	}
	if (!active && ha.was_active) {
		announce_left = 0;
		LOG(WARNING, "no longer active for the service address (%s)",
		    ha_reason_name(ha.role.reason));
	}
	ha.was_active = active;
	if (active && announce_left > 0 && now >= announce_next && ha_is_active()) {
		announce();
		announce_left--;
		announce_next = now + (uint64_t)ha.cfg.announce_interval_ms * 1000000u;
	}
}

/* ---- Redis ----------------------------------------------------------------- */

static void step(uint64_t now);

/* The operation in flight: its callback's ctx; a reply that comes for an
 * older one (the role machine timed it out and sent the next) is not its. */
static uintptr_t op_seq;

/*
 * Whoever can write Redis can write the lease: a holder that is neither
 * this node nor its partner (another program, a mistake, an attacker), or
 * a reply that is no lease, is counted, shown (show ha: lease) and logged
 * once per new holder or streak. The pair treats a foreign holder like any
 * other: nobody acts for the service address until its lease ends.
 */
static void lease_check(const struct ha_op_result *res)
{
	static bool malformed_logged;

	if (res->status == -EIO) {
		ha.lease_malformed++;
		if (!malformed_logged)
			LOG(WARNING, "the lease in Redis is no lease of ours (a malformed "
				     "reply): is something else writing the pair's keys?");
		malformed_logged = true;
		return;
	}
	if (res->status != 0)
		return;
	malformed_logged = false;
	const char *holder = res->holder;
	bool foreign = holder[0] != '\0' && !res->held && strcmp(holder, ha.cfg.node) != 0 &&
		       ha.partner[0] != '\0' && strcmp(holder, ha.partner) != 0;
	if (!foreign) {
		ha.foreign_holder[0] = '\0';
		return;
	}
	ha.lease_foreign++;
	if (strcmp(ha.foreign_holder, holder) != 0) {
		char shown[64];
		size_t i;
		for (i = 0; holder[i] && i < sizeof(shown) - 1; i++)
			shown[i] = holder[i] >= 0x20 && holder[i] < 0x7f ? holder[i] : '?';
		shown[i] = '\0';
		LOG(WARNING,
		    "the lease is held by '%s', neither this node (%s) nor its partner (%s): "
		    "nobody serves the service address until that lease ends",
		    shown, ha.cfg.node, ha.partner);
		snprintf(ha.foreign_holder, sizeof(ha.foreign_holder), "%s", holder);
	}
}

static void on_lease(void *ctx, const struct ha_op_result *res)
{
	uint64_t now = tsc_now_ns();

	if ((uintptr_t)ctx != op_seq || ha.role.pending == HA_OP_NONE)
		return;

	lease_check(res);
	if (res->status == 0 && !res->held && res->holder[0] != '\0') {
		/* the holder now, and when its lease ends at the earliest */
		snprintf(ha.takeover.from, sizeof(ha.takeover.from), "%s", res->holder);
		if (res->pttl_ms >= 0)
			ha.takeover.free_t = now + (uint64_t)res->pttl_ms * 1000000u;
	}
	if (ha.role.pending == HA_OP_RENEW && res->status == 0) {
		uint64_t rtt = now - ha.role.pending_sent_ns;
		if (rtt > ha.renew_rtt_max_ns)
			ha.renew_rtt_max_ns = rtt;
	}
	ha_role_result(&ha.role, res, now);
	apply(now);
	step(now); /* the next operation may be due at once */
}

/* Send what the role machine asks for; a call that cannot be sent fails at once. */
static void send_op(enum ha_op op, uint64_t now)
{
	int rc = ha_redis_lease(ha.redis, op, ha.cfg.lease_ms, ha.role.epoch, on_lease,
				(void *)++op_seq);

	if (rc < 0) {
		struct ha_op_result res = { .status = rc, .pttl_ms = -2 };
		ha_role_result(&ha.role, &res, now);
	}
}

/*
 * Reads of the partner's state and of the shared state: one of each in
 * flight at a time; an event that comes meanwhile asks for one more read
 * after it (of the partner that spoke last). A flood of events on the
 * pair's channel costs one read at a time, not one per event.
 */
static bool partner_reading, partner_again, shared_reading, shared_again;

static void on_partner_state(void *ctx, int status, const char *json);
static void on_shared(void *ctx, int status, const char *json);

static void read_partner(void)
{
	if (partner_reading) {
		partner_again = true;
		return;
	}
	partner_again = false;
	partner_reading = ha_redis_read(ha.redis, ha.partner, on_partner_state, NULL) == 0;
}

static void read_shared(void)
{
	if (shared_reading) {
		shared_again = true;
		return;
	}
	shared_again = false;
	shared_reading = ha_redis_read(ha.redis, NULL, on_shared, NULL) == 0;
}

static void on_partner_state(void *ctx, int status, const char *json)
{
	(void)ctx;
	partner_reading = false;
	if (status == 0 && json != NULL) {
		free(ha.partner_json);
		ha.partner_json = strdup(json);
		ha.partner_t = tsc_now_ns();
	}
	if (partner_again && status != -ECANCELED)
		read_partner();
}

static void on_shared(void *ctx, int status, const char *json)
{
	(void)ctx;
	shared_reading = false;
	if (shared_again && status != -ECANCELED)
		read_shared();
	if (status != 0)
		return;
	if (json == NULL) {
		/* expired (state_ttl): nobody has published choices since */
		free(ha.shared_json);
		ha.shared_json = NULL;
		return;
	}
	/* our own writes come back too: only another node's matter */
	json_error_t jerr;
	json_t *root = json_loads(json, 0, &jerr);
	const char *node = root ? json_string_value(json_object_get(root, "node")) : NULL;
	if (node != NULL && strcmp(node, ha.cfg.node) != 0) {
		free(ha.shared_json);
		ha.shared_json = strdup(json);
		ha.shared_t = tsc_now_ns();
	}
	json_decref(root);
}

static void on_event(void *ctx, const char *from, const char *what)
{
	uint64_t now = tsc_now_ns();
	(void)ctx;

	if (strcmp(ha.partner, from) != 0)
		snprintf(ha.partner, sizeof(ha.partner), "%s", from);
	if (strcmp(what, "released") == 0) {
		/* the lease is free: take it now rather than at the next retry */
		ha.takeover.free_t = now;
		snprintf(ha.takeover.from, sizeof(ha.takeover.from), "%s", from);
		ha_role_poke(&ha.role, now);
		step(now);
	} else if (strcmp(what, "state") == 0) {
		read_partner();
	} else if (strcmp(what, "shared") == 0) {
		read_shared();
	}
}

/* The link's last error as logged: each new one is logged once (link_error_log()). */
static char logged_error[160];

/*
 * A link that never came up (a wrong password, a refused connect) reports
 * no change, so on_link() says nothing: log each new reason it fails for.
 * Not the subscribe link's, which fails alike right after the command
 * link's (and with other words: "NOAUTH" where the command link says
 * "SCRIPT LOAD: NOAUTH"): one line per reason, not two per retry.
 */
static void link_error_log(void)
{
	const char *e = ha_redis_last_error(ha.redis);

	if (ha.redis_up || e[0] == '\0' || strncmp(e, "subscribe ", 10) == 0 ||
	    strcmp(e, logged_error) == 0)
		return;
	snprintf(logged_error, sizeof(logged_error), "%s", e);
	LOG(WARNING, "Redis not reachable: %s", e);
}

static void on_link(void *ctx, bool up)
{
	(void)ctx;
	ha.redis_up = up;
	if (up) {
		logged_error[0] = '\0';
		LOG(NOTICE, "Redis %s reachable", ha_redis_master(ha.redis));
	} else {
		snprintf(logged_error, sizeof(logged_error), "%s", ha_redis_last_error(ha.redis));
		LOG(WARNING,
		    "Redis unreachable (%s): forwarding goes on, the role only while the lease "
		    "provably holds",
		    ha_redis_last_error(ha.redis));
	}
	if (up) {
		/* resync: what changed while the link was down */
		read_shared();
		if (ha.partner[0] != '\0')
			read_partner();
		publish_now = true;
	}
}

static const struct ha_redis_ops redis_ops = {
	.on_link = on_link,
	.on_event = on_event,
};

/* ---- published state -------------------------------------------------------- */

/* The node's state (@p shared false) or the pair's shared part (true) as JSON. */
static char *state_json(bool shared)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct bfd_gen *fo = st != NULL ? bfd_gen_of(st) : NULL;
	const struct pathsel_state *ps = st != NULL ? pathsel_state_of(st) : NULL;
	json_t *o = json_object(), *bfd = json_array(), *fg = json_array(), *paths = json_array();
	json_t *metrics = json_array();

	json_object_set_new(o, "node", json_string(ha.cfg.node));
	json_object_set_new(o, "role", json_string(ha_role_state_name(ha.role.state)));
	json_object_set_new(o, "epoch", json_integer((json_int_t)ha.role.epoch));
	json_object_set_new(o, "generation",
			    json_integer(st != NULL ? (json_int_t)st->generation : 0));
	json_object_set_new(o, "time_us", json_integer((json_int_t)tsc_wall_us(tsc_now_ns())));
	for (int i = 0; !shared && fo != NULL && i < fo->nb_sess; i++) {
		const struct bfd_session_rt *rt = fo->sess[i].rt;
		json_array_append_new(bfd, json_pack("{s:s, s:s}", "name", rt->key.name, "state",
						     bfd_state_name(rt->s.state)));
	}
	for (int i = 0; fo != NULL && i < fo->nb_groups; i++) {
		const struct fgroup_rt *rt = fo->groups[i].rt;
		bool listed = !shared;
		for (unsigned k = 0; k < ha.cfg.nb_fgroups; k++)
			listed |= strcmp(ha.cfg.fgroups[k], rt->name) == 0;
		if (listed)
			json_array_append_new(fg,
					      json_pack("{s:s, s:s}", "name", rt->name, "selected",
							fgroup_sel_name(atomic_load(&rt->sel))));
	}
	for (int i = 0; ps != NULL && i < ps->nb_groups; i++) {
		const struct pathsel_group *g = &ps->groups[i];
		bool listed = !shared;
		for (unsigned k = 0; k < ha.cfg.nb_pgroups; k++)
			listed |= strcmp(ha.cfg.pgroups[k], g->rt->name) == 0;
		if (!listed)
			continue;
		/* each path's metrics, as show paths computes them */
		for (int k = 0; !shared && k < g->rt->nb_paths; k++) {
			const struct pathsel_path_rt *pr = &g->rt->paths[k];
			struct pathsel_metrics pm[PATHSEL_MAX_PLANES], m;
			for (int j = 0; j < pr->nb_planes; j++)
				pathsel_plane_metrics(&pr->planes[j]->m, &pm[j], false);
			pathsel_path_metrics(pm, pr->nb_planes, pr->healthy_applied, &m);
			json_array_append_new(
				metrics,
				json_pack("{s:s, s:s, s:I, s:I, s:f, s:i}", "group", g->rt->name,
					  "path", pr->name, "rtt_recent_us",
					  (json_int_t)(m.rtt_recent_ns / 1000), "jitter_us",
					  (json_int_t)(m.jitter_ns / 1000), "loss_pct",
					  m.loss_ppm / 10000.0, "healthy_planes",
					  __builtin_popcount(pr->healthy_applied)));
		}
		for (int t = 0; t < PATHSEL_TIERS; t++) {
			const struct fwd_path *p = atomic_load(&g->tier_active[t]);
			if (p != NULL)
				json_array_append_new(
					paths, json_pack("{s:s, s:s, s:s}", "group", g->rt->name,
							 "tier", tier_names[t], "path", p->name));
		}
	}
	if (!shared)
		json_object_set_new(o, "bfd", bfd);
	else
		json_decref(bfd);
	json_object_set_new(o, "fgroups", fg);
	json_object_set_new(o, "paths", paths);
	if (!shared)
		json_object_set_new(o, "path_metrics", metrics);
	else
		json_decref(metrics);
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

/*
 * A digest of what state_json() reports besides the role (BFD states,
 * failover-group selections, path choices per tier, generation): when it
 * changes the state is published at once ("and on every change",
 * ha_config.h), so that a takeover adopts the old active's last choices,
 * not those of up to `publish` ms before. FNV-1a over the values; the
 * paths by their objects' addresses (one per path and generation).
 */
static uint64_t state_digest(void)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct bfd_gen *fo = st != NULL ? bfd_gen_of(st) : NULL;
	const struct pathsel_state *ps = st != NULL ? pathsel_state_of(st) : NULL;
	uint64_t h = 14695981039346656037ull;

#define HA_MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
	HA_MIX(st != NULL ? st->generation : 0);
	for (int i = 0; fo != NULL && i < fo->nb_sess; i++)
		HA_MIX(fo->sess[i].rt->s.state);
	for (int i = 0; fo != NULL && i < fo->nb_groups; i++)
		HA_MIX(atomic_load(&fo->groups[i].rt->sel));
	for (int i = 0; ps != NULL && i < ps->nb_groups; i++)
		for (int t = 0; t < PATHSEL_TIERS; t++)
			HA_MIX((uintptr_t)atomic_load(&ps->groups[i].tier_active[t]));
#undef HA_MIX
	return h;
}

static void on_written(void *ctx, int status)
{
	(void)ctx;
	if (status == -ESTALE)
		ha.fenced++;
	else if (status != 0)
		ha.publish_errors++;
}

static void publish(void)
{
	char *s;

	if (!ha.redis_up)
		return;
	s = state_json(false);
	if (s != NULL && ha_redis_write(ha.redis, false, ha.role.epoch, s, ha.cfg.state_ttl_ms,
					on_written, NULL) == 0)
		ha.publishes++;
	free(s);
	if (ha_is_active()) {
		s = state_json(true);
		if (s != NULL && ha_redis_write(ha.redis, true, ha.role.epoch, s,
						ha.cfg.state_ttl_ms, on_written, NULL) == 0)
			ha.publishes++;
		free(s);
	}
}

/* ---- the loop ---------------------------------------------------------------- */

/* The partner's BFD session, when configured: a hint to acquire at the lease's end. */
static void watch_partner_bfd(uint64_t now)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct bfd_gen *fo = st != NULL ? bfd_gen_of(st) : NULL;

	if (ha.cfg.partner_bfd[0] == '\0' || fo == NULL)
		return;
	for (int i = 0; i < fo->nb_sess; i++) {
		const struct bfd_session_rt *rt = fo->sess[i].rt;
		if (strcmp(rt->key.name, ha.cfg.partner_bfd) != 0)
			continue;
		bool down = rt->started && rt->s.state != BFD_STATE_UP;
		if (down != ha.role.partner_down)
			ha_role_partner(&ha.role, down, now);
		return;
	}
}

static void step(uint64_t now)
{
	enum ha_op op;

	ha_redis_timer(ha.redis, now);
	while ((op = ha_role_tick(&ha.role, now)) != HA_OP_NONE) {
		send_op(op, now);
		if (ha.role.pending != HA_OP_NONE)
			break; /* in flight: its reply drives the next step */
	}
	apply(now);
}

static void take_pending_reload(void);

/* One millisecond's work: the role machine, its effects, the state published. */
static void ha_tick(uint64_t now)
{
	take_pending_reload();
	watch_partner_bfd(now);
	step(now);
	uint64_t digest = state_digest();
	if (digest != published_digest) {
		published_digest = digest;
		publish_now = true;
	}
	link_error_log();
	if (publish_now || now >= publish_next) {
		publish_now = false;
		publish_next = now + (uint64_t)ha.cfg.publish_ms * 1000000u;
		publish();
	}
}

/* Enter and leave the thread's working part: the lock, and RCU reader of fwd_current. */
static void work_begin(void)
{
	ha_lock();
	if (dp.rcu != NULL)
		rte_rcu_qsbr_thread_online(dp.rcu, DP_RCU_HA);
}

static void work_end(void)
{
	if (dp.rcu != NULL)
		rte_rcu_qsbr_thread_offline(dp.rcu, DP_RCU_HA);
	ha_unlock();
}

/* Wait up to @p ms for a Redis reply (outside the lock), then dispatch it (inside). */
static void wait_and_dispatch(int ms)
{
	struct pollfd pfd = { .fd = ev_fd(), .events = POLLIN };

	(void)poll(&pfd, 1, ms);
	work_begin();
	ev_run_once(0);
}

/*
 * Shutdown (SIGTERM): stop being active at once (the gate closes, ARP is
 * no longer answered), then give the lease back so that the partner takes
 * over without waiting for it to expire; at most twice the Redis timeout.
 */
static void release_and_stop(void)
{
	uint64_t now, until;

	work_begin();
	now = tsc_now_ns();
	ha_role_stop(&ha.role, now);
	apply(now);
	until = now + 2ull * ha.cfg.redis.timeout_ms * 1000000u;
	while (ha.redis_up && (now = tsc_now_ns()) < until) {
		step(now);
		if (ha.role.pending == HA_OP_NONE && ha.role.reason == HA_R_RELEASED)
			break;
		work_end();
		wait_and_dispatch(1);
	}
	if (ha.role.reason == HA_R_RELEASED)
		LOG(NOTICE, "lease given back (epoch %" PRIu64 ")", ha.role.epoch);
	ha_redis_stop(ha.redis);
	ha.redis = NULL;
	work_end();
}

static sem_t thread_started;
static int thread_start_rc;

/* The thread "vbrd-ha": its own event loop with the Redis links, a tick every ms. */
static void *ha_thread_main(void *arg)
{
	uint64_t next = 0;
	int rc;
	(void)arg;

	rc = ev_init();
	if (rc == 0)
		rc = ha_redis_start(&ha.cfg.redis, &redis_ops, NULL, &ha.redis);
	if (rc == 0 && dp.rcu != NULL) {
		rc = rte_rcu_qsbr_thread_register(dp.rcu, DP_RCU_HA) == 0 ? 0 : -EINVAL;
		if (rc < 0) {
			ha_redis_stop(ha.redis);
			ha.redis = NULL;
		}
	}
	if (rc == 0) {
		/* the role machine starts with the thread: the time since
		 * ha_init() (the other modules' start) is no pause of ours */
		struct ha_role_cfg rc_cfg = ha.role.cfg;
		ha_lock();
		ha_role_init(&ha.role, &rc_cfg, tsc_now_ns());
		ha_unlock();
	}
	thread_start_rc = rc;
	sem_post(&thread_started);
	if (rc < 0) {
		ev_fini();
		return NULL;
	}
	/* ahead of the main loop in CFS's share, never ahead of it outright
	 * (ha_thread_start()); not allowed (no CAP_SYS_NICE): the default */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), HA_THREAD_NICE) < 0)
		LOG(INFO, "the HA thread runs at nice 0 (nice %d: %s)", HA_THREAD_NICE,
		    strerror(errno));
	while (!atomic_load_explicit(&ha_thread_stop, memory_order_acquire)) {
		uint64_t now = tsc_now_ns();
		wait_and_dispatch(now >= next ? 0 : 1);
		now = tsc_now_ns();
		if (now >= next) {
			ha_tick(now);
			next = now + 1000000u;
		}
		work_end();
	}
	release_and_stop();
	if (dp.rcu != NULL)
		rte_rcu_qsbr_thread_unregister(dp.rcu, DP_RCU_HA);
	ev_fini();
	return NULL;
}

/*
 * Start the thread. It runs at nice HA_THREAD_NICE: when it wakes (a tick,
 * a reply) the scheduler puts it before a busy main loop on the same core.
 * Not SCHED_FIFO, which would be stronger but unsafe: the thread shares
 * multi-producer rings with the main loop (worker 0's inject ring, the
 * mbuf pool's), whose producers wait for one another; a real-time thread
 * that preempted the main loop halfway through an enqueue would spin on a
 * tail only the main loop can move, while keeping it off the CPU.
 */
static int ha_thread_start(void)
{
	int rc;

	sem_init(&thread_started, 0, 0);
	rc = rte_ctrl_thread_create(&ha_tid, "vbrd-ha", NULL, ha_thread_main, NULL);
	if (rc != 0) {
		LOG(ERR, "cannot start the HA thread: %s", strerror(rc));
		return -rc;
	}
	while (sem_wait(&thread_started) < 0 && errno == EINTR)
		;
	if (thread_start_rc < 0) {
		pthread_join(ha_tid, NULL);
		return thread_start_rc;
	}
	ha_thread_running = true;
	return 0;
}

/* ---- module hooks ------------------------------------------------------------- */

static bool ha_claims(const struct fwd_iface *fi, int family, const void *ip,
		      struct rte_ether_addr *mac)
{
	bool mine;

	if (!ha.enabled || strcmp(fi->name, ha.cfg.iface) != 0 || !ha_is_active())
		return false;
	if (family == AF_INET)
		mine = ha.cfg.has_v4 && *(const uint32_t *)ip == ha.cfg.vip4;
	else
		mine = ha.cfg.has_v6 && memcmp(ip, ha.cfg.vip6, 16) == 0;
	if (mine && ha.cfg.has_vmac)
		*mac = gate.mac;
	return mine;
}

static const struct addr_claim ha_claim = { .name = "ha", .claims = ha_claims };

static void role_cfg(const struct cfg_ha *c, struct ha_role_cfg *rc)
{
	rc->lease_ns = (uint64_t)c->lease_ms * 1000000u;
	rc->renew_ns = (uint64_t)c->renew_ms * 1000000u;
	rc->retry_ns = (uint64_t)c->retry_ms * 1000000u;
	rc->guard_ns = (uint64_t)c->guard_ms * 1000000u;
	rc->timeout_ns = (uint64_t)c->redis.timeout_ms * 1000000u;
}

static int ha_init(const struct vbrd_config *cfg)
{
	const struct cfg_ha *c = cfg_ha_get(cfg);
	struct ha_role_cfg rc;

	if (!c->enabled)
		return 0;
	ha.enabled = true;
	ha.cfg = *c;
	if (c->has_vmac) {
		gate.has_mac = true;
		memcpy(gate.mac.addr_bytes, c->vmac, 6);
	}
	gate.has_local4 = c->has_v4;
	gate.local4 = c->vip4;
	gate.has_local6 = c->has_v6;
	memcpy(gate.local6, c->vip6, 16);
	role_cfg(c, &rc);
	ha_role_init(&ha.role, &rc, tsc_now_ns());
	control_addr_claim_register(&ha_claim);
	return 0;
}

static int ha_state_build(struct fwd_state *st, const struct fwd_state *prev, char *err,
			  size_t errlen)
{
	(void)prev;
	if (!ha.enabled)
		return 0;
	for (int i = 0; i < st->nb_ifaces; i++)
		if (strcmp(st->ifaces[i].name, ha.cfg.iface) == 0) {
			st->ifaces[i].rx_gate = &gate;
			return 0;
		}
	snprintf(err, errlen, "ha: service interface %s does not exist", ha.cfg.iface);
	return -ENOENT;
}

/* What a reload may change (ha_config.h): the timings, what is shared. HA thread's lock held. */
static void apply_reload(const struct cfg_ha *c)
{
	ha.cfg.lease_ms = c->lease_ms;
	ha.cfg.renew_ms = c->renew_ms;
	ha.cfg.guard_ms = c->guard_ms;
	ha.cfg.retry_ms = c->retry_ms;
	ha.cfg.publish_ms = c->publish_ms;
	ha.cfg.state_ttl_ms = c->state_ttl_ms;
	ha.cfg.nb_fgroups = c->nb_fgroups;
	memcpy(ha.cfg.fgroups, c->fgroups, sizeof(ha.cfg.fgroups));
	ha.cfg.nb_pgroups = c->nb_pgroups;
	memcpy(ha.cfg.pgroups, c->pgroups, sizeof(ha.cfg.pgroups));
	snprintf(ha.cfg.partner_bfd, sizeof(ha.cfg.partner_bfd), "%s", c->partner_bfd);
	role_cfg(&ha.cfg, &ha.role.cfg);
	publish_now = true;
}

/* A reload's settings the HA thread could not take at once: it takes them at its next tick. */
static pthread_mutex_t reload_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct cfg_ha reload_cfg;
static _Atomic bool reload_pending;

static void take_pending_reload(void)
{
	if (!atomic_exchange(&reload_pending, false))
		return;
	pthread_mutex_lock(&reload_mutex);
	apply_reload(&reload_cfg);
	pthread_mutex_unlock(&reload_mutex);
}

/*
 * A reload on the main loop: applied now when the HA thread lets go of its
 * lock within 50 ms, else handed over (a stuck HA thread never holds the
 * main loop longer than that).
 */
static void ha_state_published(const struct fwd_state *st)
{
	const struct cfg_ha *c = cfg_ha_get(&st->cfg);

	if (!ha.enabled || !c->enabled)
		return;
	if (ha_lock_for(50) == 0) {
		atomic_store(&reload_pending, false);
		apply_reload(c);
		ha_unlock();
		return;
	}
	pthread_mutex_lock(&reload_mutex);
	reload_cfg = *c;
	pthread_mutex_unlock(&reload_mutex);
	atomic_store(&reload_pending, true);
	LOG(WARNING, "reload: the HA thread held its lock for 50 ms; it takes the new timings at "
		     "its next tick");
}

static int ha_start(void)
{
	int ret;

	ret = ha_show_start(); /* also without the section: show ha says enabled false */
	if (ret < 0 || !ha.enabled)
		return ret;
	if (ha.cfg.has_vmac) {
		/* a NIC filters by MAC: let the virtual one in (af_packet and the
		 * other software ports take every frame and cannot filter) */
		const struct fwd_iface *fi = service_iface();
		int rc = fi != NULL ? rte_eth_dev_mac_addr_add(fi->port, &gate.mac, 0) : -ENODEV;
		if (rc < 0 && rc != -ENOTSUP)
			LOG(WARNING, "port of %s: the virtual MAC not added to its filter: %s",
			    ha.cfg.iface, strerror(-rc));
	}
	return ha_thread_start();
}

/* Shutdown: the thread gives the lease back (release_and_stop) and ends. */
static void ha_fini(void)
{
	if (!ha.enabled)
		return;
	if (ha_thread_running) {
		atomic_store_explicit(&ha_thread_stop, true, memory_order_release);
		pthread_join(ha_tid, NULL);
		ha_thread_running = false;
	}
	free(ha.partner_json);
	free(ha.shared_json);
	ha.partner_json = ha.shared_json = NULL;
}

/* The service address is vbrd's own (it answers ping) on the active:
 * fwd_gate's local4/local6 drop what reaches it on the standby. */
static int ha_local_addrs(const struct vbrd_config *cfg, struct cfg_addr *addr,
			  char (*iface)[CFG_NAME_MAX], int max)
{
	const struct cfg_ha *c = cfg_ha_get(cfg);
	int n = 0;

	if (!c->enabled)
		return 0;
	if (c->has_v4 && n < max) {
		addr[n] = (struct cfg_addr){ .family = AF_INET, .v4 = c->vip4 };
		snprintf(iface[n++], CFG_NAME_MAX, "%s", c->iface);
	}
	if (c->has_v6 && n < max) {
		addr[n] = (struct cfg_addr){ .family = AF_INET6 };
		memcpy(addr[n].v6, c->vip6, 16);
		snprintf(iface[n++], CFG_NAME_MAX, "%s", c->iface);
	}
	return n;
}

static const struct fwd_local_addrs ha_local = { .name = "ha", .get = ha_local_addrs };

__attribute__((constructor)) static void ha_local_register(void)
{
	fwd_local_addrs_register(&ha_local);
}

static struct vbrd_module ha_module = {
	.name = "ha",
	.depends_on = (const char *const[]){ "bfd", "pathsel", NULL },
	.init = ha_init,
	.state_build = ha_state_build,
	.state_published = ha_state_published,
	.start = ha_start,
	.fini = ha_fini,
};
VBRD_MODULE(ha_module);
