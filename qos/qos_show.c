/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `vbrctl show qos [INTERFACE]` and telemetry /vbrd/qos: per line, business,
 * queue and class their counters, drops by reason, depths and the rate each
 * sent at over the last second (sampled by qos_rates_update(), main lcore).
 * Counters are the owner lcore's, read without locks (64-bit loads).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <rte_common.h>
#include <rte_cycles.h>

#include "core/tsc.h"
#include "core/ctl.h"
#include "pipeline/worker.h"
#include "qos/qos.h"

#define RATE_PERIOD_MS 1000

void qos_rates_update(void)
{
	const struct qos_state *qs = qos_state_of(atomic_load(&fwd_current));
	uint64_t now = rte_get_tsc_cycles(), hz = tsc_hz();

	if (qs == NULL)
		return;
	for (int i = 0; i < qs->nb_lines; i++) {
		struct qos_line *l = &qs->lines[i];
		uint64_t dt = now - l->rate_tsc;
		/* until its owner moved the old counters in, a sample would
		 * take 0 as the base and show the whole history as one second */
		if (!atomic_load_explicit(&l->adopted, memory_order_acquire))
			continue;
		if (l->rate_tsc && dt < hz * RATE_PERIOD_MS / 1000)
			continue;
		unsigned k = 0;
		for (unsigned b = 0; b < l->sched.nb_business; b++)
			for (unsigned q = 0; q < l->sched.b[b].nb_queues; q++, k++) {
				uint64_t bytes = l->sched.b[b].q[q].st.tx_bytes;
				/* the first sample of a generation only sets the base */
				if (l->rate_tsc)
					l->rate_bps_q[k] =
						(uint64_t)((unsigned __int128)(bytes -
									       l->rate_prev[k]) *
							   8 * hz / dt);
				l->rate_prev[k] = bytes;
			}
		l->rate_tsc = now;
	}
}

static const char *queue_type(const struct qos_business *b, unsigned q)
{
	if (b->prio_mask & (1u << q))
		return "priority";
	return q + 1u == b->nb_queues ? "default" : "weighted";
}

enum { T_LINES, T_BUSINESSES, T_QUEUES, T_CLASSES, T_ALL };
static const char *const table_names[] = { "lines", "businesses", "queues", "classes" };
static const char *const ecn_mode_name[] = {
	[QOS_ECN_OFF] = "off", [QOS_ECN_STEP] = "step", [QOS_ECN_RAMP] = "ramp"
};

/* The tables of `show qos`, or only table @p which; argv[0] may name an interface. */
static int qos_tables(int which, int argc, const char *const *argv, json_t **data, char *err,
		      size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct qos_state *qs = qos_state_of(st);
	const struct qos_config *qc = qos_config_get(&st->cfg);
	json_t *lines = json_array(), *businesses = json_array(), *queues = json_array(),
	       *classes = json_array();
	bool found = false;

	for (int i = 0; qs && i < qs->nb_lines; i++) {
		const struct qos_line *l = &qs->lines[i];
		const struct qos_policy_conf *pol = &qc->policies[qc->lines[i].policy];
		if (argc == 1 && strcmp(argv[0], l->iface_name) != 0)
			continue;
		found = true;
		uint64_t line_rate = 0, line_backlog = 0;
		unsigned k = 0;
		for (unsigned bi = 0; bi < l->sched.nb_business; bi++) {
			const struct qos_business *b = &l->sched.b[bi];
			const struct qos_business_conf *bc = &pol->businesses[bi];
			struct qos_queue_stats sum = { 0 };
			uint64_t brate = 0, depth = 0;
			for (unsigned qi = 0; qi < b->nb_queues; qi++, k++) {
				const struct qos_queue *q = &b->q[qi];
				const struct qos_queue_conf *qcf = &bc->queues[qi];
				struct qos_queue_stats s = q->st;
				uint32_t d = q->tail - q->head;
				char share[48] = "";
				if (qcf->type == QOS_QUEUE_PRIORITY && qcf->cap.set)
					qos_format_rate(&qcf->cap, share, sizeof(share));
				else if (qcf->type != QOS_QUEUE_PRIORITY)
					snprintf(share, sizeof(share), "%u%%", qcf->percent);
				json_t *row = json_pack(
					"{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, "
					"s:I, "
					"s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}",
					"interface", l->iface_name, "business",
					l->business_names[bi], "queue", l->queue_names[bi][qi],
					"type", queue_type(b, qi), "share", share, "limit",
					(json_int_t)q->limit, "depth", (json_int_t)d, "packets",
					(json_int_t)s.tx_packets, "bytes", (json_int_t)s.tx_bytes,
					"rate_bps", (json_int_t)l->rate_bps_q[k], "enqueued",
					(json_int_t)s.enq_packets, "queue_full",
					(json_int_t)s.drop_full, "policer_red",
					(json_int_t)s.drop_red, "yellow", (json_int_t)s.yellow,
					"queue_removed", (json_int_t)s.drop_removed,
					"enqueued_bytes", (json_int_t)s.enq_bytes, "ecn_marked",
					(json_int_t)s.ecn_marked, "queue_full_ect",
					(json_int_t)s.drop_full_ect, "ecn",
					ecn_mode_name[qcf->ecn.mode]);
				if (qcf->ecn.mode != QOS_ECN_OFF) {
					/* the thresholds as bytes of queue on this line */
					json_object_set_new(row, "ecn_min_bytes",
							    json_integer(q->ecn.min));
					json_object_set_new(row, "ecn_max_bytes",
							    json_integer(q->ecn.max));
				}
				json_array_append_new(queues, row);
				sum.tx_packets += s.tx_packets;
				sum.tx_bytes += s.tx_bytes;
				sum.enq_packets += s.enq_packets;
				sum.drop_full += s.drop_full;
				sum.drop_red += s.drop_red;
				sum.drop_removed += s.drop_removed;
				sum.yellow += s.yellow;
				sum.ecn_marked += s.ecn_marked;
				sum.drop_full_ect += s.drop_full_ect;
				brate += l->rate_bps_q[k];
				depth += d;
			}
			line_rate += brate;
			line_backlog += depth;
			json_array_append_new(
				businesses,
				json_pack("{s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
					  "s:I, s:I, s:I, s:I, s:I}",
					  "interface", l->iface_name, "business",
					  l->business_names[bi], "priority", (int)b->priority,
					  "guaranteed_bps",
					  (json_int_t)qos_rate_bps(&bc->guaranteed, l->rate_bps),
					  "ceiling_bps",
					  (json_int_t)(bc->ceiling.set ? qos_rate_bps(&bc->ceiling,
										      l->rate_bps)
								       : l->rate_bps),
					  "rate_bps", (json_int_t)brate, "packets",
					  (json_int_t)sum.tx_packets, "bytes",
					  (json_int_t)sum.tx_bytes, "depth", (json_int_t)depth,
					  "enqueued", (json_int_t)sum.enq_packets, "queue_full",
					  (json_int_t)sum.drop_full, "policer_red",
					  (json_int_t)sum.drop_red, "yellow",
					  (json_int_t)sum.yellow, "queue_removed",
					  (json_int_t)sum.drop_removed, "ecn_marked",
					  (json_int_t)sum.ecn_marked, "queue_full_ect",
					  (json_int_t)sum.drop_full_ect));
		}
		for (unsigned c = 0; c < l->nb_classes; c++) {
			const struct qos_class_conf *cc = &pol->classes[c];
			const struct qos_class_rt *cr = &l->classes[c];
			const struct qos_meter *qm = cr->meter >= 0 ? &l->meters[cr->meter] : NULL;
			json_array_append_new(
				classes,
				json_pack("{s:s, s:s, s:I, s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I, "
					  "s:I}",
					  "interface", l->iface_name, "class", l->class_names[c],
					  "priority", (json_int_t)cc->priority, "business",
					  l->business_names[cr->business], "queue",
					  l->queue_names[cr->business][cr->queue], "tier",
					  config_tier_name(cc->tier), "set_dscp", (int)cr->set_dscp,
					  "packets", (json_int_t)cr->packets, "bytes",
					  (json_int_t)cr->bytes, "policer_green",
					  (json_int_t)(qm ? qm->green : 0), "policer_yellow",
					  (json_int_t)(qm ? qm->yellow : 0), "policer_red",
					  (json_int_t)(qm ? qm->red : 0)));
		}
		json_array_append_new(
			lines,
			json_pack("{s:s, s:s, s:I, s:i, s:i, s:I, s:I, s:I, s:I, s:I}", "interface",
				  l->iface_name, "policy", l->policy, "rate_bps",
				  (json_int_t)l->rate_bps, "overhead", (int)l->overhead, "worker",
				  (int)qs->owner[l->port], "tx_rate_bps", (json_int_t)line_rate,
				  "backlog", (json_int_t)line_backlog, "unclassified",
				  (json_int_t)l->unclassified, "guaranteed_packets",
				  (json_int_t)l->sched.green_packets, "borrowed_packets",
				  (json_int_t)l->sched.borrowed_packets));
	}
	if (argc == 1 && !found) {
		json_decref(lines);
		json_decref(businesses);
		json_decref(queues);
		json_decref(classes);
		bool known = false;
		for (int i = 0; i < st->nb_ifaces && !known; i++)
			known = strcmp(st->ifaces[i].name, argv[0]) == 0;
		if (known)
			snprintf(err, errlen, "interface '%s' has no QoS policy", argv[0]);
		else
			snprintf(err, errlen,
				 "no interface '%s' (show qos [lines|businesses|queues|classes] "
				 "[INTERFACE])",
				 argv[0]);
		return -ENOENT;
	}
	json_t *t[] = { lines, businesses, queues, classes };
	if (which == T_ALL) {
		*data = json_pack("{s:o, s:o, s:o, s:o}", "lines", lines, "businesses", businesses,
				  "queues", queues, "classes", classes);
		return 0;
	}
	*data = json_object();
	for (int i = 0; i < T_ALL; i++) {
		if (i == which)
			json_object_set_new(*data, table_names[i], t[i]);
		else
			json_decref(t[i]);
	}
	return 0;
}

static int show_qos(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	return qos_tables(T_ALL, argc, argv, data, err, errlen);
}

static int show_qos_lines(int argc, const char *const *argv, json_t **data, char *err,
			  size_t errlen)
{
	return qos_tables(T_LINES, argc, argv, data, err, errlen);
}

static int show_qos_businesses(int argc, const char *const *argv, json_t **data, char *err,
			       size_t errlen)
{
	return qos_tables(T_BUSINESSES, argc, argv, data, err, errlen);
}

static int show_qos_queues(int argc, const char *const *argv, json_t **data, char *err,
			   size_t errlen)
{
	return qos_tables(T_QUEUES, argc, argv, data, err, errlen);
}

static int show_qos_classes(int argc, const char *const *argv, json_t **data, char *err,
			    size_t errlen)
{
	return qos_tables(T_CLASSES, argc, argv, data, err, errlen);
}

int qos_show_start(void)
{
	/* Telemetry cannot nest a table in a table: each table is an endpoint
	 * of its own, keyed by the members that name its rows. */
	static const struct {
		const char *cmd, *help, *tel, *tel_help;
		ctl_handler_t fn;
		unsigned keys;
	} cmds[] = {
		{ "show qos",
		  "show qos [INTERFACE]: egress QoS per line, business, queue and class: packets, "
		  "bytes, drops by reason, depth, rate over the last second (one table: show qos "
		  "lines|businesses|queues|classes [INTERFACE])",
		  NULL, NULL, show_qos, 0 },
		{ "show qos lines", "show qos lines [INTERFACE]: the lines of show qos",
		  "/vbrd/qos", "QoS lines (vbrctl show qos lines)", show_qos_lines, 1 },
		{ "show qos businesses",
		  "show qos businesses [INTERFACE]: the businesses of show qos",
		  "/vbrd/qos/businesses", "QoS businesses, keyed INTERFACE_BUSINESS",
		  show_qos_businesses, 2 },
		{ "show qos queues", "show qos queues [INTERFACE]: the queues of show qos",
		  "/vbrd/qos/queues", "QoS queues, keyed INTERFACE_BUSINESS_QUEUE", show_qos_queues,
		  3 },
		{ "show qos classes", "show qos classes [INTERFACE]: the classes of show qos",
		  "/vbrd/qos/classes", "QoS classes, keyed INTERFACE_CLASS", show_qos_classes, 2 },
	};
	for (unsigned i = 0; i < RTE_DIM(cmds); i++) {
		int ret = ctl_register(cmds[i].cmd, cmds[i].help, cmds[i].fn);
		if (ret == 0 && cmds[i].tel)
			ret = ctl_export_keyed(cmds[i].cmd, cmds[i].tel, cmds[i].tel_help,
					       cmds[i].keys);
		if (ret < 0)
			return ret;
	}
	return 0;
}
