/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control plane's kernel interfaces, control side (cplane.h): a TAP
 * per vbrd interface, made, changed and removed as reloads change the
 * interfaces (state_published, main lcore); the frames workers punt
 * (PUNT_CPLANE) written into them; the frames the kernel sends read from
 * them and routed (control_ip_output()); each TAP's carrier following its
 * line's single-hop BFD sessions; `vbrctl show cplane`.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_meter.h>

#include "core/ctl.h"
#include "core/evloop.h"
#include "core/log.h"
#include "failover/bfd/bfd.h"
#include "frr/cplane/cplane.h"
#include "frr/cplane/tap.h"
#include "pipeline/control.h"
#include "pipeline/fwd.h"
#include "pipeline/local.h"
#include "pipeline/meta.h"
#include "pipeline/output.h"
#include "core/config_read.h"
#include "pipeline/worker.h"

VBRD_LOG_TYPE(cplane);

DROP_REASON(drop_cplane_no_tap, "cplane", "cplane_no_tap",
	    "punted for an interface whose TAP could not be made (see the log)");
DROP_REASON(drop_cplane_tap_full, "cplane", "cplane_tap_full",
	    "the kernel did not take a punted frame (its TAP queue full, or the TAP down)");
DROP_REASON(drop_cplane_tap_oversize, "cplane", "cplane_tap_oversize",
	    "a frame the kernel sent on a TAP is larger than an mbuf holds");

extern const struct local_service cplane_service;
void cplane_worker_counts(uint64_t punted[CPLANE_CLASSES]);

/* One interface's TAP; lives across reloads while the interface does. */
struct cplane_tap {
	struct ev_handler ev; /* first: the callback gets it */
	char iface[CFG_NAME_MAX];
	char netns[CPLANE_NETNS_MAX]; /* where it is: its VRF's netns, or cplane.netns */
	struct cp_tap *tap;
	uint16_t idx; /* the interface's index in the current state */
	uint8_t mac[6];
	uint16_t mtu;
	bool carrier, seen_up;
	bool watched; /* its fd is in the main loop's epoll set */
	bool dead;    /* it failed after it was made: a reload makes a new one */
	int master;   /* ifindex of the VRF device it is enslaved to (cplane.netns); 0: none */
	char master_name[IFNAMSIZ];
	uint64_t to_kernel, from_kernel, carrier_changes;
	char error[160]; /* why it has no TAP, when tap is NULL */
};

/* What became of a VRF's kernel device (show cplane's "state"). */
enum vrfdev_state {
	VRFDEV_NEW,   /* not tried yet */
	VRFDEV_UP,    /* made (or taken over) and up: its TAPs are enslaved */
	VRFDEV_NONE,  /* the kernel has no VRF driver: TAPs unenslaved */
	VRFDEV_ERROR, /* another error (a device of that name that is no VRF, ...) */
};

/*
 * The kernel VRF device of a VRF other than "default" without a netns of
 * its own, in cplane.netns: its interfaces' TAPs are enslaved to it, so
 * that one FRR serves every VRF (`router bgp ASN vrf NAME`). Lives across
 * reloads while the VRF does with the same table.
 */
struct cplane_vrfdev {
	char vrf[CFG_NAME_MAX];
	char device[IFNAMSIZ]; /* cp_vrf_name() */
	uint32_t table;
	struct cp_vrf *dev; /* NULL unless VRFDEV_UP */
	enum vrfdev_state state;
	char error[192]; /* why not, unless VRFDEV_UP */
};

static struct {
	struct cplane_tap *by_iface[CFG_MAX_IFACES]; /* current state's interface index → TAP */
	int nb;
	struct cplane_vrfdev *by_vrf[CFG_MAX_VRFS]; /* current state's VRF index → device */
	int nb_vrfs;
	uint64_t vrf_no_driver;  /* attempts to make a VRF device the kernel refused: no driver */
	uint64_t vrf_errors;     /* attempts that failed otherwise */
	uint64_t enslaved;       /* TAPs enslaved to a VRF device or freed from one */
	uint64_t enslave_errors; /* ... that the kernel refused */
	char netns[CPLANE_NETNS_MAX];
	bool enabled;
	uint64_t gen;
	uint8_t buf[65536]; /* one frame in either direction */
} cp;

/* ---- the control namespace ------------------------------------------------ */

int cplane_in_netns(int (*fn)(void *arg), void *arg)
{
	return cplane_in_named_netns(cp.netns, fn, arg);
}

const char *cplane_netns(void)
{
	return cp.netns;
}

int cplane_in_named_netns(const char *netns, int (*fn)(void *arg), void *arg)
{
	char path[128];
	int self, target, ret;

	if (netns == NULL || netns[0] == '\0')
		return fn(arg);
	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || target < 0) {
		ret = -errno;
		goto out;
	}
	if (setns(target, CLONE_NEWNET) < 0) {
		ret = -errno;
		goto out;
	}
	ret = fn(arg);
	if (setns(self, CLONE_NEWNET) < 0)
		rte_panic("cplane: cannot return to vbrd's network namespace: %s\n",
			  strerror(errno));
out:
	if (self >= 0)
		close(self);
	if (target >= 0)
		close(target);
	return ret;
}

int cplane_iface_by_ifindex(uint32_t ifindex)
{
	return cplane_iface_by_ifindex_in(cp.netns, ifindex);
}

int cplane_iface_by_ifindex_in(const char *netns, uint32_t ifindex)
{
	for (int i = 0; i < cp.nb; i++)
		if (cp.by_iface[i] != NULL && cp.by_iface[i]->tap != NULL &&
		    strcmp(cp.by_iface[i]->netns, netns) == 0 &&
		    (uint32_t)cp_tap_ifindex(cp.by_iface[i]->tap) == ifindex)
			return i;
	return -1;
}

/* The namespace of @p fi's TAP: its VRF's (vrfs[].netns), else cplane.netns. */
static const char *tap_netns(const struct fwd_state *st, const struct fwd_iface *fi)
{
	if (fi->vrf < st->cfg.nb_vrfs && st->cfg.vrfs[fi->vrf].netns[0] != '\0')
		return st->cfg.vrfs[fi->vrf].netns;
	return cp.netns;
}

/* ---- frames both ways ----------------------------------------------------- */

/* PUNT_CPLANE: to the ingress interface's TAP, untagged. */
static void cplane_punt(const struct fwd_state *st, struct rte_mbuf *m)
{
	struct pkt_meta *pm = pkt_meta(m);
	uint32_t iface = pm->nh_ip, l2 = pm->l2_len, len = rte_pktmbuf_pkt_len(m);
	struct cplane_tap *t = iface < (uint32_t)cp.nb ? cp.by_iface[iface] : NULL;

	if (t == NULL || t->tap == NULL || t->dead || iface >= (uint32_t)st->nb_ifaces) {
		control_drop(m, &drop_cplane_no_tap);
		return;
	}
	if (len < l2 || len - l2 + RTE_ETHER_HDR_LEN > sizeof(cp.buf)) {
		control_drop(m, &drop_cplane_tap_oversize);
		return;
	}
	const struct rte_ether_hdr *in = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)cp.buf;
	const uint8_t *ip = rte_pktmbuf_read(m, l2, 1, cp.buf + RTE_ETHER_HDR_LEN);
	eth->dst_addr = st->ifaces[iface].mac;
	eth->src_addr = in->src_addr;
	eth->ether_type = rte_cpu_to_be_16((ip != NULL && (*ip >> 4) == 6) ? RTE_ETHER_TYPE_IPV6
									   : RTE_ETHER_TYPE_IPV4);
	if (rte_pktmbuf_read(m, l2, len - l2, cp.buf + RTE_ETHER_HDR_LEN) !=
	    cp.buf + RTE_ETHER_HDR_LEN)
		memcpy(cp.buf + RTE_ETHER_HDR_LEN, rte_pktmbuf_mtod_offset(m, void *, l2),
		       len - l2);
	ssize_t n = cp_tap_write(t->tap, cp.buf, len - l2 + RTE_ETHER_HDR_LEN);
	if (n < 0) {
		control_drop(m, &drop_cplane_tap_full);
		return;
	}
	t->to_kernel++;
	rte_pktmbuf_free(m);
}

/* The kernel sent frames on a TAP: route each out of a port. */
static void tap_readable(struct ev_handler *h, uint32_t events)
{
	struct cplane_tap *t = (struct cplane_tap *)h;
	const struct fwd_state *st = atomic_load(&fwd_current);

	for (int k = 0; k < 64; k++) {
		ssize_t n = cp_tap_read(t->tap, cp.buf, sizeof(cp.buf));
		if (n == -EAGAIN || n == -EINTR)
			return;
		if (n < 0 || (k == 0 && (events & (EPOLLHUP | EPOLLERR)))) {
			/* the TAP is gone (deleted from outside): stop watching it
			 * (a HUP fires on and on); a reload makes it again */
			snprintf(t->error, sizeof(t->error),
				 "the TAP failed (%s): a reload makes it again",
				 n < 0 ? strerror((int)-n) : "hang-up");
			LOG(ERR, "interface %s: %s", t->iface, t->error);
			if (t->watched)
				ev_del(&t->ev);
			t->watched = false;
			t->dead = true;
			return;
		}
		t->from_kernel++;
		struct rte_mbuf *m = rte_pktmbuf_alloc(dp.pool);
		if (m == NULL) {
			__atomic_fetch_add(&control_stats.drops[drop_no_mbuf.id], 1,
					   __ATOMIC_RELAXED);
			continue;
		}
		char *p = rte_pktmbuf_append(m, (uint16_t)RTE_MIN(n, UINT16_MAX));
		if (p == NULL || n > UINT16_MAX) {
			control_drop(m, &drop_cplane_tap_oversize);
			continue;
		}
		memcpy(p, cp.buf, (size_t)n);
		const struct drop_reason *why = control_ip_output(st, m, t->idx);
		if (why != NULL)
			control_drop(m, why);
	}
}

__attribute__((constructor)) static void cplane_punt_register(void)
{
	control_punt_register(PUNT_CPLANE, cplane_punt);
}

/* ---- TAPs follow the interfaces -------------------------------------------- */

static void tap_free(struct cplane_tap *t)
{
	if (t == NULL)
		return;
	if (t->tap != NULL) {
		if (t->watched)
			ev_del(&t->ev);
		cp_tap_close(t->tap);
	}
	free(t);
}

/* The addresses of @p fi the TAP mirrors: all but IPv6 link-local (the kernel's own). */
static void tap_sync_addrs(struct cplane_tap *t, const struct fwd_iface *fi)
{
	struct cfg_prefix a[4];
	unsigned n = 0;
	char err[256];

	for (int i = 0; i < fi->nb_addrs && n < 4; i++)
		if (!cfg_is_link_local6(&fi->addrs[i].addr))
			a[n++] = fi->addrs[i];
	if (cp_tap_set_addrs(t->tap, a, n, err, sizeof(err)) < 0)
		LOG(ERR, "%s: %s", t->iface, err);
}

/* Into the main loop (once it runs: start-up makes the first TAPs before). */
static void tap_watch(struct cplane_tap *t)
{
	if (t->tap != NULL && !t->watched && ev_fd() >= 0)
		t->watched = ev_add(&t->ev, EPOLLIN) == 0;
}

static struct cplane_tap *tap_make(const struct cfg_cplane *c, const struct fwd_iface *fi,
				   const char *netns)
{
	struct cplane_tap *t = calloc(1, sizeof(*t));
	struct cp_tap_cfg tc = { .carrier = true };
	int ret;

	if (t == NULL)
		return NULL;
	snprintf(t->iface, sizeof(t->iface), "%s", fi->name);
	snprintf(t->netns, sizeof(t->netns), "%s", netns);
	memcpy(t->mac, fi->mac.addr_bytes, 6);
	t->mtu = fi->mtu;
	t->carrier = true;
	ret = cp_tap_name(c->tap_prefix, fi->name, tc.name);
	if (ret == 0) {
		snprintf(tc.netns, sizeof(tc.netns), "%s", netns);
		memcpy(tc.mac, fi->mac.addr_bytes, 6);
		tc.mtu = fi->mtu;
		ret = cp_tap_open(&tc, &t->tap, t->error, sizeof(t->error));
	} else {
		snprintf(t->error, sizeof(t->error), "no TAP name for '%s'", fi->name);
	}
	if (ret < 0) {
		LOG(ERR, "interface %s: %s", fi->name, t->error);
		t->tap = NULL;
		return t;
	}
	t->ev.fd = cp_tap_fd(t->tap);
	t->ev.cb = tap_readable;
	tap_watch(t);
	tap_sync_addrs(t, fi);
	LOG(INFO, "interface %s: TAP %s (ifindex %d)%s%s", fi->name, cp_tap_ifname(t->tap),
	    cp_tap_ifindex(t->tap), netns[0] ? " in namespace " : "", netns);
	return t;
}

/* ---- VRF devices: the TAPs of a VRF without netns enslaved to it ------------ */

#define VRFDEV_NO_DRIVER                                                                 \
	"the kernel has no VRF driver: its TAPs are not enslaved; give the VRF a netns " \
	"(conf/README.md FRR per VRF)"

/* VRF @p v of @p st gets a kernel VRF device in cplane.netns. */
static bool vrf_has_device(const struct fwd_state *st, int v)
{
	return v > 0 && v < st->cfg.nb_vrfs && st->cfg.vrfs[v].netns[0] == '\0';
}

/* Make the device; on failure say why, once per VRF and reason (a reload tries again). */
static void vrfdev_try(struct cplane_vrfdev *d)
{
	char err[sizeof(d->error)];
	int rc = cp_vrf_open(d->device, cp.netns, d->table, &d->dev, err, sizeof(err));

	if (rc == 0) {
		d->state = VRFDEV_UP;
		d->error[0] = '\0';
		LOG(INFO, "VRF %s: device %s (table %u, ifindex %d)%s%s", d->vrf, d->device,
		    d->table, cp_vrf_ifindex(d->dev), cp.netns[0] ? " in namespace " : "",
		    cp.netns);
		return;
	}
	d->dev = NULL;
	if (rc == -EOPNOTSUPP) {
		cp.vrf_no_driver++;
		if (d->state != VRFDEV_NONE)
			LOG(WARNING, "VRF %s: " VRFDEV_NO_DRIVER, d->vrf);
		d->state = VRFDEV_NONE;
		snprintf(d->error, sizeof(d->error), "%s", VRFDEV_NO_DRIVER);
		return;
	}
	cp.vrf_errors++;
	if (d->state != VRFDEV_ERROR || strcmp(d->error, err) != 0)
		LOG(ERR, "VRF %s: %s: its TAPs are not enslaved", d->vrf, err);
	d->state = VRFDEV_ERROR;
	snprintf(d->error, sizeof(d->error), "%s", err);
}

/* Delete the device: the kernel frees its TAPs (their IPv6 addresses flushed). */
static void vrfdev_free(struct cplane_vrfdev *d)
{
	if (d == NULL)
		return;
	if (d->dev != NULL) {
		int ifindex = cp_vrf_ifindex(d->dev);
		for (int i = 0; i < cp.nb; i++)
			if (cp.by_iface[i] != NULL && cp.by_iface[i]->master == ifindex) {
				cp.by_iface[i]->master = 0;
				cp.by_iface[i]->master_name[0] = '\0';
			}
		cp_vrf_close(d->dev);
		LOG(INFO, "VRF %s: device %s deleted", d->vrf, d->device);
	}
	free(d);
}

/* The VRF devices follow the VRFs (added, removed, table changed: remade). */
static void vrfdevs_follow(const struct fwd_state *st, bool enabled)
{
	struct cplane_vrfdev *next[CFG_MAX_VRFS] = { 0 };

	for (int v = 0; enabled && v < st->cfg.nb_vrfs; v++) {
		const struct cfg_vrf *cv = &st->cfg.vrfs[v];
		if (!vrf_has_device(st, v))
			continue;
		for (int k = 0; k < cp.nb_vrfs; k++)
			if (cp.by_vrf[k] != NULL && strcmp(cp.by_vrf[k]->vrf, cv->name) == 0) {
				next[v] = cp.by_vrf[k];
				cp.by_vrf[k] = NULL;
				break;
			}
		if (next[v] != NULL && next[v]->table != cv->table) {
			vrfdev_free(next[v]);
			next[v] = NULL;
		}
	}
	/* removed first: a new VRF may take a removed one's device name */
	for (int k = 0; k < cp.nb_vrfs; k++)
		vrfdev_free(cp.by_vrf[k]);
	for (int v = 0; enabled && v < st->cfg.nb_vrfs; v++) {
		const struct cfg_vrf *cv = &st->cfg.vrfs[v];
		struct cplane_vrfdev *d = next[v];
		if (!vrf_has_device(st, v))
			continue;
		if (d == NULL) {
			d = calloc(1, sizeof(*d));
			if (d == NULL) {
				LOG(ERR, "VRF %s: out of memory for its device", cv->name);
				continue;
			}
			snprintf(d->vrf, sizeof(d->vrf), "%s", cv->name);
			d->table = cv->table;
			if (cp_vrf_name(cv->name, d->device) < 0) {
				d->state = VRFDEV_ERROR;
				snprintf(d->error, sizeof(d->error), "no kernel device name");
			}
			next[v] = d;
		}
		if (d->dev == NULL && d->device[0] != '\0')
			vrfdev_try(d);
	}
	memcpy(cp.by_vrf, next, sizeof(next));
	cp.nb_vrfs = enabled ? st->cfg.nb_vrfs : 0;
}

/* Enslave @p t to its VRF's device, or free it: then its addresses again. */
static void tap_follow_vrf(struct cplane_tap *t, const struct fwd_iface *fi)
{
	const struct cplane_vrfdev *d = fi->vrf < cp.nb_vrfs ? cp.by_vrf[fi->vrf] : NULL;
	int want = 0;
	char err[256];

	if (t->tap == NULL || t->dead)
		return;
	if (d != NULL && d->dev != NULL && strcmp(t->netns, cp.netns) == 0)
		want = cp_vrf_ifindex(d->dev);
	if (t->master == want)
		return;
	if (cp_tap_set_master(t->tap, want, err, sizeof(err)) < 0) {
		cp.enslave_errors++;
		LOG(ERR, "interface %s: %s", t->iface, err);
		return;
	}
	cp.enslaved++;
	t->master = want;
	snprintf(t->master_name, sizeof(t->master_name), "%s", want ? d->device : "");
	LOG(INFO, "interface %s: TAP %s %s%s", t->iface, cp_tap_ifname(t->tap),
	    want ? "enslaved to VRF device " : "freed from its VRF device", t->master_name);
	/* the kernel cycled it down and up: IPv6 addresses flushed */
	tap_sync_addrs(t, fi);
}

static void cplane_state_published(const struct fwd_state *st)
{
	const struct cfg_cplane *c = cfg_cplane_get(&st->cfg);
	struct cplane_tap *next[CFG_MAX_IFACES] = { 0 };
	char err[256];

	if (c->enabled && strcmp(c->netns, cp.netns) != 0 && cp.nb == 0)
		snprintf(cp.netns, sizeof(cp.netns), "%s", c->netns);
	cp.enabled = c->enabled;
	vrfdevs_follow(st, c->enabled);
	for (int i = 0; c->enabled && i < st->nb_ifaces; i++) {
		const struct fwd_iface *fi = &st->ifaces[i];
		struct cplane_tap *t = NULL;
		for (int k = 0; k < cp.nb; k++)
			if (cp.by_iface[k] != NULL &&
			    strcmp(cp.by_iface[k]->iface, fi->name) == 0) {
				t = cp.by_iface[k];
				cp.by_iface[k] = NULL;
				break;
			}
		const char *ns = tap_netns(st, fi);
		if (t != NULL && (memcmp(t->mac, fi->mac.addr_bytes, 6) != 0 || t->tap == NULL ||
				  t->dead || strcmp(t->netns, ns) != 0)) {
			/* a new MAC (the kernel's link-local follows), a TAP that
			 * could not be made or failed since, or one in another
			 * namespace (its VRF's changed): a new one */
			tap_free(t);
			t = NULL;
		}
		if (t == NULL) {
			t = tap_make(c, fi, ns);
		} else if (t->tap != NULL) {
			if (t->mtu != fi->mtu &&
			    cp_tap_set_mtu(t->tap, fi->mtu, err, sizeof(err)) < 0)
				LOG(ERR, "%s: %s", fi->name, err);
			t->mtu = fi->mtu;
			tap_sync_addrs(t, fi);
		}
		if (t != NULL) {
			t->idx = (uint16_t)i;
			tap_follow_vrf(t, fi);
		}
		next[i] = t;
	}
	for (int k = 0; k < cp.nb; k++)
		tap_free(cp.by_iface[k]); /* interfaces the state no longer has */
	memcpy(cp.by_iface, next, sizeof(next));
	cp.nb = c->enabled ? st->nb_ifaces : 0;
}

/* ---- carrier: the line's BFD ------------------------------------------------ */

/*
 * A TAP's carrier is down while a single-hop BFD session on its interface
 * that has been Up is not Up: the line failed, and bgpd (fast external
 * failover) drops its sessions over it at once. A line whose session
 * never came up keeps its carrier (BGP may still come up without BFD).
 */
static void cplane_timer(uint64_t now_ms)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct bfd_gen *b = st != NULL ? bfd_gen_of(st) : NULL;
	/* per interface: has a single-hop session (1), has one not Up (2):
	 * one pass over the sessions, one over the TAPs */
	static uint8_t line[CFG_MAX_IFACES];
	char err[256];

	(void)now_ms;
	if (b == NULL || cp.nb == 0)
		return;
	memset(line, 0, (size_t)cp.nb);
	for (int s = 0; s < b->nb_sess; s++) {
		const struct bfd_sess *bs = &b->sess[s];
		if (bs->kind != CFG_BFD_SINGLE_HOP || bs->iface >= cp.nb)
			continue;
		line[bs->iface] |= 1;
		if (__atomic_load_n(&bs->rt->s.state, __ATOMIC_RELAXED) != BFD_STATE_UP)
			line[bs->iface] |= 2;
	}
	for (int i = 0; i < cp.nb; i++) {
		struct cplane_tap *t = cp.by_iface[i];
		bool any = line[i] & 1, all_up = !(line[i] & 2);
		if (t == NULL || t->tap == NULL || t->dead)
			continue;
		if (any && all_up)
			t->seen_up = true;
		bool carrier = !(t->seen_up && any && !all_up);
		if (carrier == t->carrier)
			continue;
		if (cp_tap_set_carrier(t->tap, carrier, err, sizeof(err)) < 0) {
			LOG(ERR, "%s: %s", t->iface, err);
			continue;
		}
		t->carrier = carrier;
		t->carrier_changes++;
		LOG(NOTICE, "interface %s: TAP carrier %s (BFD)", t->iface,
		    carrier ? "up" : "down");
	}
}

/* ---- the state's part -------------------------------------------------------- */

static int cplane_state_build(struct fwd_state *st, const struct fwd_state *prev, char *err,
			      size_t errlen)
{
	const struct cfg_cplane *c = cfg_cplane_get(&st->cfg);
	unsigned nbw = dp.nb_workers ? dp.nb_workers : 1;

	(void)prev;
	if (!c->enabled)
		return 0;
	/* two interfaces whose TAP names collide (shortened names, tap.h) */
	const char *names[CFG_MAX_IFACES];
	for (int i = 0; i < st->nb_ifaces; i++)
		names[i] = st->ifaces[i].name;
	int rc = cp_tap_names_check(c->tap_prefix, names, (unsigned)st->nb_ifaces, err, errlen);
	if (rc < 0)
		return rc;
	/* VRF devices: distinct, and none named like a TAP beside them in cplane.netns */
	const char *vrfs[CFG_MAX_VRFS];
	unsigned nv = 0, ni = 0;
	for (int v = 0; v < st->cfg.nb_vrfs; v++)
		if (vrf_has_device(st, v))
			vrfs[nv++] = st->cfg.vrfs[v].name;
	for (int i = 0; nv > 0 && i < st->nb_ifaces; i++)
		if (st->ifaces[i].vrf >= st->cfg.nb_vrfs ||
		    st->cfg.vrfs[st->ifaces[i].vrf].netns[0] == '\0')
			names[ni++] = st->ifaces[i].name;
	rc = cp_vrf_names_check(c->tap_prefix, names, ni, vrfs, nv, err, errlen);
	if (rc < 0)
		return rc;
	struct cplane_gen *g = calloc(1, sizeof(*g));
	if (g != NULL)
		g->prof = calloc(CPLANE_CLASSES, sizeof(*g->prof));
	if (g == NULL || g->prof == NULL) {
		if (g != NULL)
			free(g);
		snprintf(err, errlen, "cplane: out of memory");
		return -ENOMEM;
	}
	for (int k = 0; k < CPLANE_CLASSES; k++) {
		struct rte_meter_srtcm_params p = {
			.cir = RTE_MAX(c->police[k].rate / nbw, 1u),
			.cbs = RTE_MAX(c->police[k].burst / nbw, 1u),
			.ebs = 0,
		};
		int ret = rte_meter_srtcm_profile_config(&g->prof[k], &p);
		if (ret < 0) {
			snprintf(err, errlen, "cplane.police.%s: %s", cplane_class_name(k),
				 strerror(-ret));
			free(g->prof);
			free(g);
			return ret;
		}
	}
	g->gen = __atomic_add_fetch(&cp.gen, 1, __ATOMIC_RELAXED);
	g->nb_peers = c->nb_peers;
	memcpy(g->peers, c->peers, sizeof(g->peers));
	st->feature[cplane_module.id] = g;
	st->local_other = &cplane_service;
	return 0;
}

static void cplane_state_free(struct fwd_state *st)
{
	struct cplane_gen *g = st->feature[cplane_module.id];

	if (g != NULL) {
		free(g->prof);
		free(g);
		st->feature[cplane_module.id] = NULL;
	}
}

/* ---- show cplane ----------------------------------------------------------- */

static int show_cplane(int argc, const char *const *argv, json_t **data, char *err, size_t errlen)
{
	const struct fwd_state *st = atomic_load(&fwd_current);
	const struct cfg_cplane *c = cfg_cplane_get(&st->cfg);
	static struct worker_stats ws;
	uint64_t punted[CPLANE_CLASSES];
	json_t *taps = json_array(), *classes = json_array(), *vrfs = json_array();
	static const char *const vstate[] = { "none", "up", "none", "error" };

	(void)argc, (void)argv, (void)err, (void)errlen;
	worker_stats_sum(&ws);
	cplane_worker_counts(punted);
	for (int i = 0; i < cp.nb; i++) {
		const struct cplane_tap *t = cp.by_iface[i];
		if (t == NULL)
			continue;
		json_array_append_new(taps,
				      json_pack("{s:s, s:s, s:s, s:i, s:s, s:I, s:I, s:I, s:s}",
						"interface", t->iface, "netns", t->netns, "tap",
						t->tap ? cp_tap_ifname(t->tap) : "", "ifindex",
						t->tap ? cp_tap_ifindex(t->tap) : 0, "carrier",
						t->tap == NULL || t->dead ? "none"
						: t->carrier              ? "up"
									  : "down",
						"to_kernel", (json_int_t)t->to_kernel,
						"from_kernel", (json_int_t)t->from_kernel,
						"carrier_changes", (json_int_t)t->carrier_changes,
						"error", t->tap && !t->dead ? "" : t->error));
		json_object_set_new(json_array_get(taps, json_array_size(taps) - 1), "master",
				    json_string(t->master_name));
	}
	for (int v = 0; v < cp.nb_vrfs; v++) {
		const struct cplane_vrfdev *d = cp.by_vrf[v];
		if (d == NULL)
			continue;
		json_array_append_new(vrfs,
				      json_pack("{s:s, s:s, s:I, s:i, s:s, s:s}", "vrf", d->vrf,
						"device", d->device, "table", (json_int_t)d->table,
						"ifindex", d->dev ? cp_vrf_ifindex(d->dev) : 0,
						"state", vstate[d->state], "error", d->error));
	}
	for (int k = 0; k < CPLANE_CLASSES; k++) {
		char name[48];
		snprintf(name, sizeof(name), "police_%s", cplane_class_name(k));
		const struct drop_reason *d = drop_reason_find(name);
		json_array_append_new(classes, json_pack("{s:s, s:I, s:I, s:I, s:I}", "class",
							 cplane_class_name(k), "rate_pps",
							 (json_int_t)c->police[k].rate, "burst",
							 (json_int_t)c->police[k].burst, "punted",
							 (json_int_t)punted[k], "policed",
							 (json_int_t)(d ? ws.drops[d->id] : 0)));
	}
	*data = json_pack("{s:b, s:s, s:o, s:o, s:o, s:I, s:I, s:I, s:I}", "enabled", c->enabled,
			  "netns", c->netns[0] ? c->netns : "", "taps", taps, "vrfs", vrfs,
			  "classes", classes, "vrf_no_driver", (json_int_t)cp.vrf_no_driver,
			  "vrf_errors", (json_int_t)cp.vrf_errors, "enslaved",
			  (json_int_t)cp.enslaved, "enslave_errors", (json_int_t)cp.enslave_errors);
	return 0;
}

static int cplane_start(void)
{
	for (int i = 0; i < cp.nb; i++)
		if (cp.by_iface[i] != NULL)
			tap_watch(cp.by_iface[i]);
	int ret = ctl_register("show cplane",
			       "show cplane: the control plane's TAPs and punt policers",
			       show_cplane);
	if (ret == 0)
		ret = ctl_export("show cplane", "/vbrd/cplane", "control-plane TAPs and policers");
	return ret;
}

static void cplane_fini(void)
{
	for (int i = 0; i < cp.nb; i++)
		tap_free(cp.by_iface[i]);
	memset(cp.by_iface, 0, sizeof(cp.by_iface));
	cp.nb = 0;
	/* VRF devices outlive vbrd unless deleted (TAPs do not) */
	for (int v = 0; v < cp.nb_vrfs; v++)
		vrfdev_free(cp.by_vrf[v]);
	memset(cp.by_vrf, 0, sizeof(cp.by_vrf));
	cp.nb_vrfs = 0;
}

struct vbrd_module cplane_module = {
	.name = "cplane",
	.depends_on = (const char *const[]){ "bfd", NULL },
	.state_build = cplane_state_build,
	.state_free = cplane_state_free,
	.state_published = cplane_state_published,
	.start = cplane_start,
	.timer = cplane_timer,
	.timer_ms = 1,
	.fini = cplane_fini,
};
VBRD_MODULE(cplane_module);
