/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vbrctl show bfd [SESSION], show bfd counters, show fgroup [GROUP],
 * show fgroup history [GROUP]; telemetry /vbrd/bfd, /vbrd/bfd/counters,
 * /vbrd/fgroup, /vbrd/fgroup/history. Control thread: the sessions'
 * protocol state is the BFD worker's, read without locks (a row is a
 * snapshot within one packet).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <jansson.h>

#include "core/ctl.h"
#include "failover/bfd/bfd.h"
#include "pipeline/fwd.h"

/* "2026-12-01T22:31:07.123456Z" of a tsc_now_ns() time, "" for 0. */
static const char *wall_text(uint64_t t_ns, char *buf, size_t len)
{
	if (t_ns == 0) {
		buf[0] = '\0';
		return buf;
	}
	uint64_t us = tsc_wall_us(t_ns);
	time_t sec = (time_t)(us / 1000000);
	struct tm tm;

	gmtime_r(&sec, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06" PRIu64 "Z", us % 1000000);
	return buf;
}

static const struct bfd_gen *current(void)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	return st ? bfd_gen_of(st) : NULL;
}

static const char *where(const struct fwd_state *st, const struct bfd_sess *s)
{
	if (s->kind == CFG_BFD_SINGLE_HOP)
		return st->ifaces[s->iface].name;
	if (s->kind == CFG_BFD_TUNNEL)
		return st->path_groups[s->path_group].name;
	return "";
}

static int show_bfd(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct bfd_gen *fo = current();
	json_t *rows = json_array();
	uint64_t now = tsc_now_ns();
	bool found = argc < 1;

	for (int i = 0; fo && i < fo->nb_sess; i++) {
		const struct bfd_sess *s = &fo->sess[i];
		const struct bfd_session_rt *rt = s->rt;
		const struct bfd_session *b = &rt->s;
		char l[64], p[64], ch[40];

		if (argc >= 1 && strcmp(argv[0], rt->key.name) != 0)
			continue;
		found = true;
		uint64_t up = rt->up_since && b->state == BFD_STATE_UP ? now - rt->up_since : 0;
		json_t *row = json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}", "name",
			rt->key.name, "kind", cfg_bfd_kind_name(s->kind), "where", where(st, s),
			"local", config_format_addr(&s->local, l, sizeof(l)), "peer",
			config_format_addr(&s->peer, p, sizeof(p)), "state",
			bfd_state_name(b->state), "remote_state", bfd_state_name(b->remote_state),
			"diag", bfd_diag_name(b->local_diag), "remote_diag",
			bfd_diag_name(b->remote_diag), "local_disc", (json_int_t)b->local_disc,
			"remote_disc", (json_int_t)b->remote_disc);
		json_object_update_new(
			row, json_pack("{s:I, s:I, s:I, s:I, s:i, s:i, s:I, s:I, s:I, s:s, s:s}",
				       "tx_interval_us", (json_int_t)b->tx_interval_us,
				       "desired_min_tx_us", (json_int_t)b->desired_min_tx_us,
				       "required_min_rx_us", (json_int_t)b->required_min_rx_us,
				       "remote_min_rx_us", (json_int_t)b->remote_min_rx_us,
				       "detect_mult", b->params.detect_mult, "remote_detect_mult",
				       b->remote_detect_mult, "detect_time_us",
				       (json_int_t)(b->detect_time_ns / 1000), "uptime_us",
				       (json_int_t)(up / 1000), "flaps", (json_int_t)b->cnt.down,
				       "last_change", wall_text(b->last_change, ch, sizeof(ch)),
				       "auth", bfd_auth_name(b->params.auth.type)));
		json_object_set_new(row, "minimum_ttl", json_integer(s->min_ttl));
		uint64_t drops = 0;
		for (int e = 1; e < BFD_ERR_MAX; e++)
			drops += b->cnt.drops[e];
		json_object_update_new(
			row, json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "rx",
				       (json_int_t)b->cnt.rx, "tx", (json_int_t)b->cnt.tx,
				       "rx_dropped", (json_int_t)drops, "ups",
				       (json_int_t)b->cnt.up, "polls", (json_int_t)b->cnt.polls,
				       "tx_unresolved", (json_int_t)rt->tx_unresolved,
				       "rx_gap_max_us", (json_int_t)(rt->rx_late_max_ns / 1000)));
		json_array_append_new(rows, row);
	}
	if (!found) {
		json_decref(rows);
		snprintf(err, errlen, "no BFD session '%s'", argv[0]);
		return -1;
	}
	*data = json_pack("{s:o}", "sessions", rows);
	return 0;
}

static int show_bfd_brief(int argc, const char *const *argv, json_t **data, char *err,
			  size_t errlen)
{
	static const char *const keep[] = { "name",           "where",          "peer",
					    "state",          "remote_state",   "diag",
					    "tx_interval_us", "detect_time_us", "uptime_us",
					    "flaps",          "last_change",    NULL };
	json_t *full = NULL;
	int ret = show_bfd(argc, argv, &full, err, errlen);

	if (ret < 0)
		return ret;
	json_t *rows = json_array(), *row;
	size_t i;
	json_array_foreach(json_object_get(full, "sessions"), i, row)
	{
		json_t *r = json_object();
		for (const char *const *k = keep; *k; k++)
			json_object_set(r, *k, json_object_get(row, *k));
		json_array_append_new(rows, r);
	}
	json_decref(full);
	*data = json_pack("{s:o}", "sessions", rows);
	return 0;
}

static int show_bfd_counters(int argc, const char *const *argv, json_t **data, char *err,
			     size_t errlen)
{
	const struct bfd_gen *fo = current();
	json_t *rows = json_array();

	(void)argc, (void)argv, (void)err, (void)errlen;
	for (int i = 0; fo && i < fo->nb_sess; i++) {
		const struct bfd_session_rt *rt = fo->sess[i].rt;
		for (int e = 1; e < BFD_ERR_MAX; e++)
			if (rt->s.cnt.drops[e])
				json_array_append_new(
					rows, json_pack("{s:s, s:s, s:I}", "session", rt->key.name,
							"reason", bfd_err_name((enum bfd_err)e),
							"packets", (json_int_t)rt->s.cnt.drops[e]));
	}
	*data = json_pack("{s:o, s:{s:I, s:I}}", "drops", rows, "worker", "loop_gap_max_us",
			  (json_int_t)(bfd_loop_gap_max_ns / 1000), "events_lost",
			  (json_int_t)atomic_load(&bfd_changes_lost));
	return 0;
}

static const char *health(const struct bfd_gen *fo, const struct fgroup_member *m)
{
	if (m->sess < 0)
		return "up (no bfd)";
	const struct bfd_session *s = &fo->sess[m->sess].rt->s;
	if (s->state != BFD_STATE_UP && fo->sess[m->sess].rt->peer_admin)
		return "peer AdminDown";
	return bfd_state_name(s->state);
}

static int show_fgroup(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct bfd_gen *fo = current();
	json_t *rows = json_array();
	bool found = argc < 1;
	char ch[40];

	for (int i = 0; fo && i < fo->nb_groups; i++) {
		const struct fgroup *g = &fo->groups[i];
		const struct fgroup_rt *rt = g->rt;
		uint32_t sel = atomic_load(&rt->sel);

		if (argc >= 1 && strcmp(argv[0], rt->name) != 0)
			continue;
		found = true;
		json_array_append_new(
			rows,
			json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:I, s:I, s:s}", "name",
				  rt->name, "mode", cfg_fgroup_mode_name(g->mode), "active",
				  fgroup_sel_name(sel), "member0", rt->members[0], "member0_state",
				  health(fo, &g->m[0]), "member1", rt->members[1], "member1_state",
				  health(fo, &g->m[1]), "revertive", g->revertive, "hold_down_ms",
				  (json_int_t)(g->hold_down_ns / 1000000), "switches",
				  (json_int_t)rt->switches, "last_switch",
				  wall_text(rt->last_switch, ch, sizeof(ch))));
	}
	if (!found) {
		json_decref(rows);
		snprintf(err, errlen, "no failover group '%s'", argv[0]);
		return -1;
	}
	*data = json_pack("{s:o}", "groups", rows);
	return 0;
}

static int show_fgroup_history(int argc, const char *const *argv, json_t **data, char *err,
			       size_t errlen)
{
	static struct bfd_change ev[BFD_HISTORY];
	unsigned n = bfd_history_get(ev, BFD_HISTORY);
	json_t *rows = json_array();
	char t[40];

	(void)err, (void)errlen;
	for (unsigned i = 0; i < n; i++) {
		const struct bfd_change *e = &ev[i];
		if (argc >= 1 && strcmp(argv[0], e->name) != 0)
			continue;
		if (e->type == BFD_CHANGE_GROUP)
			json_array_append_new(
				rows,
				json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I}", "time",
					  wall_text(e->t, t, sizeof(t)), "object", "fgroup", "name",
					  e->name, "from", fgroup_sel_name(e->old), "to",
					  fgroup_sel_name(e->new), "reason",
					  e->reason == FGROUP_REASON_DOWN
						  ? bfd_diag_name(e->diag)
						  : fgroup_reason_name(e->reason),
					  "detect_to_switch_ns",
					  (json_int_t)(e->t >= e->t_detect ? e->t - e->t_detect
									   : 0)));
		else
			json_array_append_new(
				rows,
				json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I}", "time",
					  wall_text(e->t, t, sizeof(t)), "object", "bfd", "name",
					  e->name, "from", bfd_state_name(e->old), "to",
					  bfd_state_name(e->new), "reason", bfd_diag_name(e->diag),
					  "detect_to_switch_ns", (json_int_t)0));
	}
	*data = json_pack("{s:o}", "history", rows);
	return 0;
}

int bfd_show_start(void)
{
	static const struct {
		const char *cmd, *help, *tel, *tel_help;
		ctl_handler_t fn;
	} cmds[] = {
		{ "show bfd",
		  "show bfd [SESSION]: BFD sessions (RFC 5880): state, diag, discriminators, "
		  "negotiated intervals, detection time, uptime, flaps, last change",
		  "/vbrd/bfd", "BFD sessions (vbrctl show bfd)", show_bfd },
		{ "show bfd brief",
		  "show bfd brief [SESSION]: one short line per session (show bfd has every field)",
		  NULL, NULL, show_bfd_brief },
		{ "show bfd counters",
		  "show bfd counters: BFD packets dropped, per session and reason", NULL, NULL,
		  show_bfd_counters },
		{ "show fgroup",
		  "show fgroup [GROUP]: failover groups: mode, active member, member health, "
		  "switches (history: show fgroup history [GROUP])",
		  "/vbrd/fgroup", "failover groups (vbrctl show fgroup)", show_fgroup },
		{ "show fgroup history",
		  "show fgroup history [NAME]: the last 1024 BFD state changes and member "
		  "switches, "
		  "oldest first, with the time from detection to switch",
		  NULL, NULL, show_fgroup_history },
	};
	for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int ret = ctl_register(cmds[i].cmd, cmds[i].help, cmds[i].fn);
		if (ret == 0 && cmds[i].tel)
			ret = ctl_export(cmds[i].cmd, cmds[i].tel, cmds[i].tel_help);
		if (ret < 0)
			return ret;
	}
	return 0;
}
