/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `vbrctl show ha` and `show ha history` (ha.h), telemetry /vbrd/ha.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <rte_ether.h>

#include "core/ctl.h"
#include "failover/bfd/bfd.h"
#include "failover/ha/ha.h"
#include "pipeline/l2.h"

static double ms_of(uint64_t ns)
{
	return (double)(ns / 1000) / 1000.0;
}

/*
 * A name read from Redis (the lease's holder) as a JSON string: anybody
 * can SET the lease to bytes that are no UTF-8, which json_string()
 * refuses (NULL): show ha lost its holder key and show ha history every
 * row naming it. Such bytes are shown as '?'.
 */
static json_t *name_json(const char *s)
{
	json_t *j = json_string(s);
	char buf[64];
	size_t i;

	if (j != NULL)
		return j;
	for (i = 0; s[i] != '\0' && i < sizeof(buf) - 1; i++)
		buf[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	buf[i] = '\0';
	return json_string(buf);
}

static json_t *redis_json(void)
{
	const struct ha_redis_stats *s = ha.redis ? ha_redis_stats(ha.redis) : NULL;
	json_t *o = json_object();

	json_object_set_new(o, "link", json_string(ha.redis_up ? "up" : "down"));
	json_object_set_new(o, "master", json_string(ha.redis ? ha_redis_master(ha.redis) : ""));
	json_object_set_new(o, "sentinel", json_boolean(ha.cfg.redis.nb_sentinels > 0));
	/* why a link last failed (kept after it came back): a wrong password says so here */
	json_object_set_new(o, "last_error",
			    json_string(ha.redis ? ha_redis_last_error(ha.redis) : ""));
	if (s != NULL) {
		json_object_set_new(o, "connects", json_integer((json_int_t)s->connects));
		json_object_set_new(o, "disconnects", json_integer((json_int_t)s->disconnects));
		json_object_set_new(o, "master_changes",
				    json_integer((json_int_t)s->master_changes));
		json_object_set_new(o, "sentinel_queries",
				    json_integer((json_int_t)s->sentinel_queries));
		json_object_set_new(o, "ops", json_integer((json_int_t)s->ops));
		json_object_set_new(o, "op_errors", json_integer((json_int_t)s->op_errors));
		json_object_set_new(o, "op_timeouts", json_integer((json_int_t)s->op_timeouts));
		json_object_set_new(o, "fenced", json_integer((json_int_t)s->fenced));
		json_object_set_new(o, "published", json_integer((json_int_t)s->published));
		json_object_set_new(o, "events_rx", json_integer((json_int_t)s->events_rx));
		json_object_set_new(o, "last_rtt_us", json_integer((json_int_t)s->last_rtt_us));
	}
	return o;
}

static json_t *partner_json(uint64_t now)
{
	json_error_t jerr;
	json_t *o = ha.partner_json ? json_loads(ha.partner_json, 0, &jerr) : NULL;

	if (o == NULL || !json_is_object(o)) {
		json_decref(o);
		return json_object();
	}
	json_object_set_new(o, "age_ms", json_real(ms_of(now - ha.partner_t)));
	return o;
}

static int show_ha_locked(int argc, const char *const *argv, json_t **data, char *err,
			  size_t errlen)
{
	const struct ha_role *r = &ha.role;
	uint64_t now = tsc_now_ns();
	char a4[INET_ADDRSTRLEN] = "", a6[INET6_ADDRSTRLEN] = "";
	json_t *o = json_object(), *svc, *tk;
	(void)argc;
	(void)argv;
	(void)err;
	(void)errlen;

	json_object_set_new(o, "enabled", json_boolean(ha.enabled));
	if (!ha.enabled) {
		*data = o;
		return 0;
	}
	bool active = ha_role_active(r, now);
	json_object_set_new(o, "pair", json_string(ha.cfg.pair));
	json_object_set_new(o, "node", json_string(ha.cfg.node));
	json_object_set_new(o, "role", json_string(ha_role_state_name(r->state)));
	json_object_set_new(o, "reason", json_string(ha_reason_name(r->reason)));
	json_object_set_new(o, "since_ms", json_real(ms_of(now - r->changed_ns)));
	json_object_set_new(o, "epoch", json_integer((json_int_t)r->epoch));
	json_object_set_new(o, "lease_ms", json_integer(ha.cfg.lease_ms));
	json_object_set_new(o, "renew_ms", json_integer(ha.cfg.renew_ms));
	json_object_set_new(o, "guard_ms", json_integer(ha.cfg.guard_ms));
	json_object_set_new(o, "retry_ms", json_integer(ha.cfg.retry_ms));
	json_object_set_new(o, "lease_remaining_ms",
			    json_real(active ? ms_of(r->deadline_ns - now) : 0.0));
	json_object_set_new(o, "holder", name_json(r->holder));
	json_object_set_new(o, "holder_ttl_ms", json_integer(r->holder_pttl_ms));
	json_object_set_new(
		o, "lease",
		json_pack("{s:o, s:I, s:I}", "foreign_holder",
			  ha.foreign_holder[0] ? name_json(ha.foreign_holder) : json_null(),
			  "foreign", (json_int_t)ha.lease_foreign, "malformed",
			  (json_int_t)ha.lease_malformed));
	json_object_set_new(o, "redis", redis_json());

	if (ha.cfg.has_v4) {
		struct in_addr in = { .s_addr = htonl(ha.cfg.vip4) };
		inet_ntop(AF_INET, &in, a4, sizeof(a4));
	}
	if (ha.cfg.has_v6)
		inet_ntop(AF_INET6, ha.cfg.vip6, a6, sizeof(a6));
	char mac[RTE_ETHER_ADDR_FMT_SIZE] = "";
	if (ha.cfg.has_vmac) {
		struct rte_ether_addr m;
		memcpy(m.addr_bytes, ha.cfg.vmac, 6);
		l2_mac_str(&m, mac);
	}
	svc = json_pack("{s:s, s:s, s:s, s:s, s:b}", "interface", ha.cfg.iface, "ipv4", a4, "ipv6",
			a6, "mac", mac, "answering", active);
	json_object_set_new(o, "service", svc);
	json_object_set_new(o, "partner", partner_json(now));
	json_object_set_new(o, "partner_bfd", json_string(ha.cfg.partner_bfd));
	json_object_set_new(o, "partner_down", json_boolean(r->partner_down));

	tk = json_object();
	if (ha.takeover.valid) {
		const struct ha_takeover *t = &ha.takeover;
		json_object_set_new(tk, "time_us", json_integer((json_int_t)tsc_wall_us(t->t)));
		/* from the lease being free (released, or its end as last
		 * read) to this node active: what the pair itself added */
		json_object_set_new(tk, "gap_ms",
				    t->free_t != 0 && t->free_t <= t->t
					    ? json_real(ms_of(t->t - t->free_t))
					    : json_null());
		json_object_set_new(tk, "acquire_rtt_ms", json_real(ms_of(t->lease_rtt_ns)));
		json_object_set_new(tk, "reason", json_string(ha_reason_name(t->reason)));
		json_object_set_new(tk, "from", name_json(t->from));
		json_object_set_new(tk, "adopted_paths", json_integer(t->adopted));
	}
	json_object_set_new(o, "last_takeover", tk);
	json_object_set_new(o, "takeovers", json_integer((json_int_t)r->takeovers));
	json_object_set_new(o, "step_downs", json_integer((json_int_t)r->step_downs));
	json_object_set_new(o, "acquires", json_integer((json_int_t)r->acquires));
	json_object_set_new(o, "renews", json_integer((json_int_t)r->renews));
	json_object_set_new(o, "renew_failures", json_integer((json_int_t)r->renew_failures));
	json_object_set_new(o, "renew_rtt_max_ms", json_real(ms_of(ha.renew_rtt_max_ns)));
	json_object_set_new(o, "op_timeouts", json_integer((json_int_t)r->op_timeouts));
	json_object_set_new(o, "announces", json_integer((json_int_t)ha.announces));
	json_object_set_new(o, "publishes", json_integer((json_int_t)ha.publishes));
	json_object_set_new(o, "publish_errors", json_integer((json_int_t)ha.publish_errors));
	json_object_set_new(o, "fenced_writes", json_integer((json_int_t)ha.fenced));
	*data = o;
	return 0;
}

/* The HA thread changes struct ha_node under ha_lock(): a consistent view. */
static int show_ha(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	int rc;

	if (ha_lock_for(HA_SHOW_WAIT_MS) != 0) {
		snprintf(err, errlen,
			 "show ha: the HA thread has held its state for %d ms (stuck?): try again",
			 HA_SHOW_WAIT_MS);
		return -EBUSY;
	}
	rc = show_ha_locked(argc, argv, data, err, errlen);
	ha_unlock();
	return rc;
}

static int show_ha_history(int argc, const char *const *argv, json_t **data, char *err,
			   size_t errlen)
{
	static struct ha_event ev[HA_HISTORY];
	int n = ha_history_get(ev, HA_HISTORY);
	json_t *rows = json_array();
	(void)argc;
	(void)argv;
	(void)err;
	(void)errlen;

	if (n < 0) {
		json_decref(rows);
		snprintf(
			err, errlen,
			"show ha history: the HA thread has held its state for %d ms (stuck?): try "
			"again",
			HA_SHOW_WAIT_MS);
		return n;
	}
	for (int i = 0; i < n; i++)
		json_array_append_new(rows, json_pack("{s:I, s:s, s:s, s:s, s:I, s:o}", "time_us",
						      (json_int_t)tsc_wall_us(ev[i].t), "old",
						      ha_role_state_name(ev[i].old_state), "new",
						      ha_role_state_name(ev[i].new_state), "reason",
						      ha_reason_name(ev[i].reason), "epoch",
						      (json_int_t)ev[i].epoch, "holder",
						      name_json(ev[i].holder)));
	*data = json_pack("{s:o}", "rows", rows);
	return 0;
}

int ha_show_start(void)
{
	int ret = ctl_register("show ha",
			       "show ha: the HA pair: role, epoch, lease remaining, partner, "
			       "Redis link, last takeover",
			       show_ha);
	if (ret == 0)
		ret = ctl_export("show ha", "/vbrd/ha", "HA pair (vbrctl show ha)");
	if (ret == 0)
		ret = ctl_register("show ha history",
				   "show ha history: the last 256 role changes, oldest first",
				   show_ha_history);
	return ret;
}
