/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters for `vbrctl show stats` and `show drops`: the sum of every
 * worker's and the control thread's (module "stats").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>

#include <rte_mempool.h>

#include "core/evloop.h"
#include "core/ctl.h"
#include "core/module.h"
#include "pipeline/control.h"
#include "pipeline/worker.h"

/* Sum of every worker's and the control thread's counters. */
void worker_stats_sum(struct worker_stats *s)
{
	memcpy(s, &control_stats, sizeof(*s));
	for (unsigned w = 0; w < dp.nb_workers; w++) {
		const struct worker_stats *ws = &dp.workers[w].stats;
		s->rx_packets += ws->rx_packets;
		s->tx_packets += ws->tx_packets;
		s->forwarded += ws->forwarded;
		s->local += ws->local;
		s->to_control += ws->to_control;
		s->icmp_errors += ws->icmp_errors;
		s->icmp_rate_limited += ws->icmp_rate_limited;
		s->icmp_suppressed_broadcast += ws->icmp_suppressed_broadcast;
		s->fragments += ws->fragments;
		for (unsigned r = 0; r < drop_reason_count(); r++)
			s->drops[r] += ws->drops[r];
		for (int i = 0; i < VBRD_MAX_IFACE_SLOTS; i++) {
			s->iface[i].rx_packets += ws->iface[i].rx_packets;
			s->iface[i].rx_bytes += ws->iface[i].rx_bytes;
			s->iface[i].tx_packets += ws->iface[i].tx_packets;
			s->iface[i].tx_bytes += ws->iface[i].tx_bytes;
			s->iface_no_route[i] += ws->iface_no_route[i];
		}
	}
}

static int show_stats(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	static struct worker_stats s;
	uint64_t total = 0;

	(void)argc, (void)argv, (void)err, (void)errlen;
	worker_stats_sum(&s);
	json_t *drops = json_object();
	for (unsigned r = 0; r < drop_reason_count(); r++) {
		json_object_set_new(drops, drop_reason_get(r)->name,
				    json_integer((json_int_t)s.drops[r]));
		total += s.drops[r];
	}
	json_t *workers = json_array();
	for (unsigned i = 0; i < dp.nb_workers; i++) {
		const struct worker *w = &dp.workers[i];
		json_array_append_new(workers,
				      json_pack("{s:i, s:i, s:i, s:I, s:I}", "id", (int)w->id,
						"lcore", (int)w->lcore, "rx_queues", (int)w->nb_rxq,
						"rx_packets", (json_int_t)w->stats.rx_packets,
						"tx_packets", (json_int_t)w->stats.tx_packets));
	}
	*data = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:o}", "rx_packets",
			  (json_int_t)s.rx_packets, "tx_packets", (json_int_t)s.tx_packets,
			  "forwarded", (json_int_t)s.forwarded, "local", (json_int_t)s.local,
			  "to_control", (json_int_t)s.to_control, "icmp_errors",
			  (json_int_t)s.icmp_errors, "icmp_rate_limited",
			  (json_int_t)s.icmp_rate_limited, "fragments", (json_int_t)s.fragments,
			  "drops", drops, "drops_total", (json_int_t)total, "workers", workers);
	json_object_set_new(*data, "icmp_suppressed_broadcast",
			    json_integer((json_int_t)s.icmp_suppressed_broadcast));
	struct ev_turn_stats ts;
	ev_turn_stats_get(&ts);
	json_object_set_new(*data, "main_loop",
			    json_pack("{s:I, s:f, s:f, s:I, s:I, s:I, s:I}", "turns",
				      (json_int_t)ts.turns, "longest_turn_ms", ts.longest_ns / 1e6,
				      "longest_turn_cpu_ms", ts.longest_cpu_ns / 1e6,
				      "longest_turn_at_us", (json_int_t)ts.longest_unix_us,
				      "turns_over_1ms", (json_int_t)ts.over_1ms, "turns_over_10ms",
				      (json_int_t)ts.over_10ms, "turns_over_100ms",
				      (json_int_t)ts.over_100ms));
	return 0;
}

static int show_drops(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	static struct worker_stats s;
	json_t *arr = json_array();

	(void)argc, (void)argv, (void)err, (void)errlen;
	worker_stats_sum(&s);
	const struct drop_reason *v[VBRD_DROP_MAX];
	unsigned n = drop_reasons_sorted(v);
	for (unsigned r = 0; r < n; r++) {
		const struct drop_reason *d = v[r];
		json_array_append_new(arr, json_pack("{s:s, s:I, s:s, s:s}", "reason", d->name,
						     "packets", (json_int_t)s.drops[d->id],
						     "feature", d->feature, "meaning", d->help));
	}
	*data = json_pack("{s:o}", "drops", arr);
	return 0;
}

static int show_mempool(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	*data = json_pack("{s:s, s:i, s:i, s:i}", "name", dp.pool->name, "size", dp.pool->size,
			  "in_use", rte_mempool_in_use_count(dp.pool), "available",
			  rte_mempool_avail_count(dp.pool));
	return 0;
}

static int stats_start(void)
{
	ctl_register("show stats", "packet, drop-reason and ICMP counters", show_stats);
	ctl_register("show drops", "every drop reason: its count, feature and meaning", show_drops);
	ctl_register("show mempool", "packet buffer use", show_mempool);
	ctl_export("show stats", "/vbrd/stats", "vbrd packet and drop counters");
	ctl_export("show drops", "/vbrd/drops", "vbrd drop reasons and their counts");
	ctl_export("show mempool", "/vbrd/mempool", "vbrd packet mempool use");
	return 0;
}

static struct vbrd_module stats_module = {
	.name = "stats",
	.depends_on = (const char *const[]){ "workers", NULL },
	.start = stats_start,
};
VBRD_MODULE(stats_module);
