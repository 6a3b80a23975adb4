/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: arbitrary bytes as a vbrd configuration file through
 * config_load() (core/config_read.c and the section loaders, libconfig underneath).
 *
 * The input is written to a file in a private directory (on tmpfs) (an @include in it
 * resolves there, and finds nothing). Besides memory errors and leaks
 * (ASan/LeakSanitizer) it traps when the loader breaks its contract:
 *   - failure: cfg comes back zeroed, and every error but -ENOMEM carries at
 *     least one message, each "FILE:..." of the file or an include;
 *   - success: no messages, and every index the data path will follow is in
 *     range (interface → port, next hop → interface, neighbor → interface),
 *     counts within the CFG_MAX_* limits, VLANs 0..4094, MTUs in range and
 *     prefix lengths fit the family, route prefixes have no host bits;
 *     the qos section's indexes in range (line -> interface and policy,
 *     class -> business and queue), queues in their order, classes sorted;
 *     the failover sections' indexes in range (session -> interface or
 *     path group, member -> interface, path group and session, route ->
 *     failover group), addresses of the right families, auth keys sized;
 *     path selection's indexes in range (group -> path group and qos
 *     policy, path -> path of that group and BFD session), values within
 *     their ranges, and every path's planes within 16 and port 65535;
 *     the ha section's timers within their ranges and each other's bounds,
 *     an endpoint (one server, or a master and 1..8 sentinels), the
 *     service interface and shared groups known, strings terminated.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/config.h"
#include "failover/bfd/bfd_config.h"
#include "failover/ha/ha_config.h"
#include "failover/pathsel/pathsel_config.h"
#include "qos/qos_config.h"

/* A broken invariant: say which, then abort so libFuzzer keeps the input. */
#define CHECK(c)                                                                                  \
	do {                                                                                      \
		if (!(c)) {                                                                       \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

static char dir[64];
static char path[96];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

static void check_prefix(const struct cfg_prefix *p)
{
	CHECK(p->addr.family == AF_INET || p->addr.family == AF_INET6);
	CHECK(p->len <= (p->addr.family == AF_INET ? 32 : 128));
}

static void check_rate(const struct qos_rate *r)
{
	if (r->set)
		CHECK(r->ppm ? r->ppm <= 1000000 && r->bps == 0
			     : r->bps >= 1 && r->bps <= QOS_MAX_RATE);
}

static void check_qos(const struct vbrd_config *c)
{
	const struct qos_config *q = qos_config_get(c);

	if (q == NULL)
		return;
	CHECK(q->nb_policies >= 0 && q->nb_policies <= QOS_MAX_POLICIES);
	CHECK(q->nb_lines >= 0 && q->nb_lines <= QOS_MAX_LINES);
	for (int p = 0; p < q->nb_policies; p++) {
		const struct qos_policy_conf *pol = &q->policies[p];

		CHECK(pol->nb_businesses >= 1 && pol->nb_businesses <= QOS_MAX_BUSINESSES);
		CHECK(pol->default_business >= 0 && pol->default_business < pol->nb_businesses);
		for (int i = 0; i < pol->nb_businesses; i++) {
			const struct qos_business_conf *b = &pol->businesses[i];

			CHECK(b->guaranteed.set);
			check_rate(&b->guaranteed);
			check_rate(&b->ceiling);
			CHECK(b->priority < QOS_PRIORITY_LEVELS);
			CHECK(b->nb_prio >= 0 && b->nb_prio <= QOS_MAX_PRIO_QUEUES);
			CHECK(b->nb_weighted >= 0 && b->nb_weighted <= QOS_MAX_WEIGHT_QUEUES);
			CHECK(b->nb_queues == b->nb_prio + b->nb_weighted + 1);
			for (int k = 0; k < b->nb_queues; k++) {
				const struct qos_queue_conf *qu = &b->queues[k];

				CHECK(qu->type == (k < b->nb_prio ? QOS_QUEUE_PRIORITY
						   : k < b->nb_prio + b->nb_weighted
							   ? QOS_QUEUE_WEIGHTED
							   : QOS_QUEUE_DEFAULT));
				CHECK(qu->type == QOS_QUEUE_PRIORITY
					      ? qu->percent == 0
					      : qu->percent >= 1 && qu->percent <= 100);
				CHECK(qu->limit >= 1 && qu->limit <= 65536);
				check_rate(&qu->cap);
				if (qu->ecn.mode != QOS_ECN_OFF) {
					CHECK(qu->ecn.mode == QOS_ECN_STEP ||
					      qu->ecn.mode == QOS_ECN_RAMP);
					CHECK(qu->ecn.min_us >= 1 &&
					      qu->ecn.max_us <= QOS_ECN_MAX_US);
					CHECK(qu->ecn.mode == QOS_ECN_STEP
						      ? qu->ecn.max_us == qu->ecn.min_us
						      : qu->ecn.max_us > qu->ecn.min_us);
					CHECK(qu->ecn.max_ppm >= 1 && qu->ecn.max_ppm <= 1000000);
				}
			}
		}
		for (int i = 0; i < pol->nb_classes; i++) {
			const struct qos_class_conf *cl = &pol->classes[i];

			if (i > 0)
				CHECK(cl->priority > pol->classes[i - 1].priority);
			CHECK(cl->business >= 0 && cl->business < pol->nb_businesses);
			CHECK(cl->queue >= 0 &&
			      cl->queue < pol->businesses[cl->business].nb_queues);
			CHECK(cl->match.ingress >= -1 && cl->match.ingress < c->nb_ifaces);
			CHECK(cl->match.sport_lo <= cl->match.sport_hi);
			CHECK(cl->match.dport_lo <= cl->match.dport_hi);
			CHECK(cl->match.dscp_lo <= cl->match.dscp_hi && cl->match.dscp_hi <= 63);
			if (cl->match.has_src)
				check_prefix(&cl->match.src);
			if (cl->match.has_dst)
				check_prefix(&cl->match.dst);
			if (cl->match.has_src && cl->match.has_dst)
				CHECK(cl->match.src.addr.family == cl->match.dst.addr.family);
		}
	}
	for (int i = 0; i < q->nb_lines; i++) {
		const struct qos_line_conf *l = &q->lines[i];

		CHECK(l->iface >= 0 && l->iface < c->nb_ifaces);
		CHECK(l->policy >= 0 && l->policy < q->nb_policies);
		CHECK(l->rate_bps >= QOS_MIN_LINE_RATE && l->rate_bps <= QOS_MAX_RATE);
		CHECK(l->overhead <= 64);
		for (int j = 0; j < i; j++)
			CHECK(q->lines[j].iface != l->iface);
		if (l->has_pcp_map)
			CHECK(c->ifaces[l->iface].vlan != 0);
		for (int d = 0; d < 64; d++)
			CHECK(l->dscp_to_pcp[d] >= -1 && l->dscp_to_pcp[d] <= 7);
	}
}

static void check_failover(const struct vbrd_config *c)
{
	const struct bfd_config *fo = bfd_config_get(c);

	CHECK(fo != NULL);
	CHECK(fo->nb_sessions >= 0 && fo->nb_sessions <= BFD_MAX_SESSIONS);
	CHECK(fo->nb_groups >= 0 && fo->nb_groups <= FGROUP_MAX);
	for (int i = 0; i < fo->nb_sessions; i++) {
		const struct cfg_bfd_session *b = &fo->sessions[i];

		CHECK(b->name[0] && memchr(b->name, 0, sizeof(b->name)));
		CHECK(b->kind == CFG_BFD_SINGLE_HOP
			      ? b->iface >= 0 && b->iface < c->nb_ifaces && b->path_group == -1
		      : b->kind == CFG_BFD_TUNNEL
			      ? b->path_group >= 0 && b->path_group < c->nb_path_groups &&
					b->iface == -1
			      : b->kind == CFG_BFD_MULTIHOP && b->iface == -1 &&
					b->path_group == -1);
		CHECK(b->peer.family == AF_INET || b->peer.family == AF_INET6);
		CHECK(b->local.family == b->peer.family);
		CHECK(b->params.desired_min_tx_us >= 1000 &&
		      b->params.desired_min_tx_us <= 60000000);
		CHECK(b->params.required_min_rx_us >= 1000 &&
		      b->params.required_min_rx_us <= 60000000);
		CHECK(b->params.detect_mult >= 1);
		const struct bfd_auth *a = &b->params.auth;
		CHECK(a->type == BFD_AUTH_NONE     ? a->key_len == 0
		      : a->type == BFD_AUTH_SIMPLE ? a->key_len >= 1 && a->key_len <= 16
						   : (a->type == BFD_AUTH_KEYED_SHA1 ||
						      a->type == BFD_AUTH_METICULOUS_SHA1) &&
							     a->key_len >= 1 && a->key_len <= 20);
	}
	for (int i = 0; i < fo->nb_groups; i++) {
		const struct cfg_fgroup *g = &fo->groups[i];

		CHECK(g->name[0] && memchr(g->name, 0, sizeof(g->name)));
		CHECK(g->hold_down_ms <= 600000);
		for (int k = 0; k < 2; k++) {
			const struct cfg_fgroup_member *m = &g->members[k];

			CHECK(m->bfd >= -1 && m->bfd < fo->nb_sessions);
			if (m->kind == CFG_FG_TUNNEL) {
				CHECK(m->path_group >= 0 && m->path_group < c->nb_path_groups);
				CHECK(m->iface == -1);
				continue;
			}
			CHECK(m->kind == CFG_FG_LINE && m->path_group == -1);
			CHECK(m->iface >= 0 && m->iface < c->nb_ifaces);
			CHECK(m->via.family == AF_INET || m->via6.family == AF_INET6);
			CHECK(m->via.family == 0 || m->via.family == AF_INET);
			CHECK(m->via6.family == 0 || m->via6.family == AF_INET6);
		}
	}
}

static void check_pathsel(const struct vbrd_config *c)
{
	const struct cfg_pathsel *ps = pathsel_config_get(c);
	const struct qos_config *q = qos_config_get(c);

	CHECK(ps != NULL);
	CHECK(ps->reflector <= PATHSEL_REFLECT_OFF);
	CHECK(ps->nb_groups >= 0 && ps->nb_groups <= PATHSEL_MAX_GROUPS);
	CHECK(ps->present || ps->nb_groups == 0);
	for (int t = 0; t < PATHSEL_TIERS; t++) {
		CHECK(ps->tiers[t].objective <= PATHSEL_OBJ_COST);
		CHECK(ps->tiers[t].max_loss_ppm <= 1000000);
		CHECK(ps->tiers[t].latency_weight >= 0 && ps->tiers[t].jitter_weight >= 0 &&
		      ps->tiers[t].loss_weight >= 0 && ps->tiers[t].cost_weight >= 0);
	}
	for (int i = 0; i < ps->nb_groups; i++) {
		const struct cfg_ps_group *g = &ps->groups[i];

		CHECK(g->pg_index >= 0 && g->pg_index < c->nb_path_groups);
		CHECK(pathsel_config_group(c, g->pg_index) == g);
		CHECK(g->interval_us >= 1000 && g->interval_us <= 1000000);
		CHECK(g->window >= 10 && g->window <= PATHSEL_MAX_WINDOW);
		CHECK(g->lost_down >= 1 && g->lost_down <= 255);
		CHECK(g->margin_ppm <= 1000000);
		CHECK(g->margin_min_us <= 60000000 && g->hold_us <= 60000000);
		CHECK(g->flowlet_gap_us >= 10 && g->flowlet_gap_us <= 1000000);
		CHECK(g->policy == -1 ||
		      (q != NULL && g->policy >= 0 && g->policy < q->nb_policies));
		CHECK(g->default_tier <= CFG_TIER_BRONZE);
		CHECK(g->nb_paths >= 0 && g->nb_paths <= c->path_groups[g->pg_index].nb_paths);
		for (int k = 0; k < g->nb_paths; k++) {
			const struct cfg_ps_path *pp = &g->paths[k];

			CHECK(pp->path_index >= 0 &&
			      pp->path_index < c->path_groups[g->pg_index].nb_paths);
			CHECK(pathsel_config_path(g, pp->path_index) == pp);
			CHECK(pp->bfd_index >= -1 &&
			      pp->bfd_index < bfd_config_get(c)->nb_sessions);
		}
	}
	for (int i = 0; i < c->nb_path_groups; i++)
		for (int k = 0; k < c->path_groups[i].nb_paths; k++) {
			const struct cfg_path *p = &c->path_groups[i].paths[k];

			CHECK(p->plane == -1
				      ? p->nb_planes == 0
				      : p->nb_planes >= 1 && p->nb_planes <= CFG_MAX_PLANES &&
						CFG_PLANE_BASE + p->plane + p->nb_planes - 1 <=
							65535);
		}
}

static void check_ha(const struct vbrd_config *c)
{
	const struct cfg_ha *h = cfg_ha_get(c);
	const struct ha_redis_cfg *r = &h->redis;

	CHECK(h != NULL);
	if (!h->enabled)
		return;
	CHECK(h->pair[0] && memchr(h->pair, 0, sizeof(h->pair)));
	CHECK(h->node[0] && memchr(h->node, 0, sizeof(h->node)));
	CHECK(strncmp(r->prefix, "vbrd:", 5) == 0 && strcmp(r->node, h->node) == 0);
	CHECK((r->nb_sentinels == 0) == (r->master_name[0] == 0));
	CHECK(r->nb_sentinels <= HA_REDIS_MAX_SENTINELS);
	CHECK((r->server.host[0] != 0) == (r->nb_sentinels == 0));
	CHECK(r->nb_sentinels > 0 || r->server.port > 0);
	for (unsigned i = 0; i < r->nb_sentinels; i++)
		CHECK(r->sentinels[i].host[0] && r->sentinels[i].port > 0);
	CHECK(memchr(r->password, 0, sizeof(r->password)));
	CHECK(r->timeout_ms >= 5 && r->timeout_ms <= 5000);
	CHECK(h->lease_ms >= 20 && h->lease_ms <= 60000);
	CHECK(h->renew_ms >= 1 && h->renew_ms <= h->lease_ms / 2);
	CHECK(h->guard_ms >= 1 && h->guard_ms + h->renew_ms < h->lease_ms);
	CHECK(h->retry_ms >= 1 && h->retry_ms <= h->lease_ms);
	CHECK(config_iface_index(c, h->iface) >= 0);
	CHECK(h->has_v4 || h->has_v6);
	CHECK(h->announce >= 1 && h->announce <= 10);
	CHECK(h->announce_interval_ms >= 1 && h->announce_interval_ms <= 1000);
	CHECK(!h->partner_bfd[0] || bfd_session_index(c, h->partner_bfd) >= 0);
	CHECK(h->nb_fgroups <= HA_MAX_SHARED && h->nb_pgroups <= HA_MAX_SHARED);
	for (unsigned i = 0; i < h->nb_fgroups; i++)
		CHECK(fgroup_index(c, h->fgroups[i]) >= 0);
	for (unsigned i = 0; i < h->nb_pgroups; i++)
		CHECK(config_path_group_index(c, h->pgroups[i]) >= 0);
	CHECK(h->publish_ms >= 10 && h->publish_ms < h->state_ttl_ms && h->state_ttl_ms <= 600000);
}

static void check_config(const struct vbrd_config *c)
{
	CHECK(c->nb_ports >= 0 && c->nb_ports <= CFG_MAX_PORTS);
	CHECK(c->nb_ifaces >= 0 && c->nb_ifaces <= CFG_MAX_IFACES); /* "interfaces" is optional */
	CHECK(c->nb_routes >= 0 && c->nb_neighbors >= 0);
	CHECK(c->workers.nb_cores >= 1 && c->workers.nb_cores <= CFG_MAX_WORKERS);
	CHECK(c->workers.burst >= 1 && c->workers.burst <= 256);
	CHECK(memchr(c->instance, 0, sizeof(c->instance)) != NULL && c->instance[0]);
	for (int i = 0; i < c->nb_ports; i++) {
		const struct cfg_port *p = &c->ports[i];
		CHECK(p->name[0] && memchr(p->name, 0, sizeof(p->name)));
		CHECK(memchr(p->devargs, 0, sizeof(p->devargs)));
		CHECK(p->mtu >= CFG_MTU_MIN && p->mtu <= CFG_MTU_MAX);
		CHECK(p->rx_queues <= CFG_MAX_WORKERS);
	}
	/* the VRF default first; names and tables unique */
	CHECK(c->nb_vrfs >= 1 && c->nb_vrfs <= CFG_MAX_VRFS);
	CHECK(strcmp(c->vrfs[0].name, "default") == 0 && c->vrfs[0].table == CFG_TABLE_DEFAULT);
	for (int v = 1; v < c->nb_vrfs; v++) {
		CHECK(c->vrfs[v].name[0] && memchr(c->vrfs[v].name, 0, sizeof(c->vrfs[v].name)));
		CHECK(c->vrfs[v].table != 0 && (c->vrfs[v].table < 253 || c->vrfs[v].table > 255));
		for (int u = 0; u < v; u++)
			CHECK(strcmp(c->vrfs[u].name, c->vrfs[v].name) != 0 &&
			      c->vrfs[u].table != c->vrfs[v].table);
	}
	for (int t = 0; t < c->nb_tunnels; t++)
		CHECK(c->tunnels[t].vrf >= 0 && c->tunnels[t].vrf < c->nb_vrfs &&
		      c->tunnels[t].underlay_vrf >= 0 && c->tunnels[t].underlay_vrf < c->nb_vrfs);
	for (int i = 0; i < c->nb_ifaces; i++) {
		const struct cfg_iface *f = &c->ifaces[i];
		CHECK(f->vrf >= 0 && f->vrf < c->nb_vrfs);
		CHECK(f->name[0] && memchr(f->name, 0, sizeof(f->name)));
		CHECK(f->port >= 0 && f->port < c->nb_ports);
		CHECK(f->vlan <= 4094);
		CHECK(f->mtu >= CFG_MTU_MIN && f->mtu <= c->ports[f->port].mtu);
		CHECK(f->nb_addrs >= 0 && f->nb_addrs <= CFG_MAX_ADDRS);
		for (int a = 0; a < f->nb_addrs; a++)
			check_prefix(&f->addrs[a]);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(c->ifaces[j].name, f->name) != 0 &&
			      (c->ifaces[j].port != f->port || c->ifaces[j].vlan != f->vlan));
	}
	for (int r = 0; r < c->nb_routes; r++) {
		const struct cfg_route *rt = &c->routes[r];
		check_prefix(&rt->prefix);
		CHECK(rt->vrf >= 0 && rt->vrf < c->nb_vrfs && rt->nh_vrf >= 0 &&
		      rt->nh_vrf < c->nb_vrfs);
		if (rt->prefix.addr.family == AF_INET && rt->prefix.len < 32)
			CHECK((rt->prefix.addr.v4 & (0xffffffffu >> rt->prefix.len)) == 0);
		if (rt->target_kind != NULL) { /* a feature's next hop: a failover group */
			CHECK(strcmp(rt->target_kind, "failover_group") == 0 &&
			      rt->nb_nexthops == 0);
			CHECK(rt->target < (uint32_t)bfd_config_get(c)->nb_groups);
		} else if (rt->path_group >= 0)
			CHECK(rt->nb_nexthops == 0 && rt->path_group < c->nb_path_groups);
		else
			CHECK(rt->nb_nexthops >= 1 && rt->nb_nexthops <= CFG_MAX_ECMP);
		for (int k = 0; k < rt->nb_nexthops; k++) {
			CHECK(rt->nexthops[k].iface >= 0 && rt->nexthops[k].iface < c->nb_ifaces);
			/* next hops are of the route's nexthop_vrf, never another */
			CHECK(c->ifaces[rt->nexthops[k].iface].vrf == rt->nh_vrf);
			CHECK(rt->nexthops[k].via.family == rt->prefix.addr.family);
		}
	}
	for (int n = 0; n < c->nb_neighbors; n++)
		CHECK(c->neighbors[n].iface >= 0 && c->neighbors[n].iface < c->nb_ifaces);
	check_qos(c);
	check_failover(c);
	check_pathsel(c);
	check_ha(c);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* tmpfs: rewriting a file on ext4 forces a block flush each time
	 * (auto_da_alloc), which costs ten times the parse */
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(dir, sizeof(dir), "%s/vbrd-fuzz-config-%d", base, (int)getpid());
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		abort();
	snprintf(path, sizeof(path), "%s/fuzz.conf", dir);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vbrd_config cfg;
	struct config_errors errs = { 0 };
	FILE *f;
	int rc;

	if (size > 64 * 1024)
		return -1;
	f = fopen(path, "w");
	if (f == NULL)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);

	memset(&cfg, 0xa5, sizeof(cfg));
	rc = config_load(path, &cfg, &errs);
	if (rc == 0) {
		CHECK(errs.count == 0);
		check_config(&cfg);
	} else {
		CHECK(rc < 0);
		CHECK(all_zero(&cfg, sizeof(cfg)));
		if (rc != -ENOMEM)
			CHECK(errs.count > 0);
		for (int i = 0; i < errs.count; i++)
			CHECK(errs.msgs[i] != NULL && errs.msgs[i][0] == '/');
	}
	config_errors_free(&errs);
	config_free(&cfg);
	return 0;
}
