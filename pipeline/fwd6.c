/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_errno.h>

#include "pipeline/fwd6.h"
#include "pipeline/mem.h"
#include "pipeline/nh_kind.h"
#include "pipeline/parse6.h"

/* RFC 4291 App. A: fe80::/64 + MAC with the universal/local bit flipped and ff:fe inserted. */
static void link_local_eui64(const struct rte_ether_addr *mac, uint8_t *a)
{
	const uint8_t *m = mac->addr_bytes;

	memset(a, 0, 16);
	a[0] = 0xfe;
	a[1] = 0x80;
	a[8] = m[0] ^ 0x02;
	a[9] = m[1];
	a[10] = m[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	a[13] = m[3];
	a[14] = m[4];
	a[15] = m[5];
}

static bool prefix6_contains(const uint8_t *pfx, uint8_t len, const uint8_t *ip)
{
	for (unsigned b = 0; b < len; b += 8) {
		unsigned bits = len - b >= 8 ? 8 : len - b;
		uint8_t mask = (uint8_t)(0xff << (8 - bits));
		if ((pfx[b / 8] ^ ip[b / 8]) & mask)
			return false;
	}
	return true;
}

int fwd6_iface_for_subnet(const struct fwd_state *st, const uint8_t *ip)
{
	for (int i = 0; i < st->nb_ifaces; i++) {
		const struct fwd_iface *fi = &st->ifaces[i];
		for (int a = 0; a < fi->nb_addrs; a++) {
			const struct cfg_prefix *p = &fi->addrs[a];
			if (p->addr.family == AF_INET6 && prefix6_contains(p->addr.v6, p->len, ip))
				return i;
		}
	}
	return -1;
}

bool fwd6_iface_owns(const struct fwd_iface *fi, const uint8_t *ip)
{
	if (memcmp(fi->ll6, ip, 16) == 0)
		return true;
	for (int a = 0; a < fi->nb_addrs; a++)
		if (fi->addrs[a].addr.family == AF_INET6 &&
		    memcmp(fi->addrs[a].addr.v6, ip, 16) == 0)
			return true;
	return false;
}

/* One reference on the IPv6 next hop (@p iface, @p gw6 or connected), as a FIB value. */
static int nexthop6_value(uint16_t iface, const uint8_t *gw6, uint32_t *value)
{
	struct fib_nh_key k = { .family = AF_INET6, .iface = iface };
	int id;

	if (gw6 != NULL)
		memcpy(k.gw6, gw6, 16);
	id = fib_nexthop_get(&k);
	if (id < 0)
		return id;
	*value = FIB_NH(FIB_KIND_NEXTHOP, (uint32_t)id);
	return 0;
}

static void prefix6_network(const struct cfg_prefix *p, uint8_t *net)
{
	memcpy(net, p->addr.v6, 16);
	for (int b = p->len; b < 128; b++)
		net[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
}

void fwd6_fib_conf(const struct vbrd_config *cfg, struct rte_fib6_conf *fc)
{
	struct fib_capacity cap;

	fib_capacity_for_config(cfg, &cap);
	*fc = (struct rte_fib6_conf){
		.type = RTE_FIB6_TRIE,
		.default_nh = FIB_NH(FIB_KIND_NONE, 0),
		.max_routes = (int)cap.routes6,
		.trie = { .nh_sz = RTE_FIB6_TRIE_4B, .num_tbl8 = cap.tbl8_6 },
	};
}

/* struct rte_rib6_node (DPDK 22.11 lib/rib/rte_rib6.c, not public): three
 * pointers, nh, a 16-byte ip, depth, flag */
#define RIB6_NODE_BYTES 56
/* struct rte_fib6, struct rte_trie_tbl, tailq entries: counted generously */
#define FIB6_STRUCTS_BYTES 4096

uint64_t fwd6_fib_memsize(const struct rte_fib6_conf *fc, size_t page_size)
{
	/* lib/fib/trie.c trie_create(): tbl24 2^24 next hops, tbl8 groups of
	 * 256 (one spare), the tbl8 free pool; lib/rib: 2 nodes a route */
	uint64_t nh = 1u << fc->trie.nh_sz;

	return (1ull << 24) * nh + 256 * nh * (fc->trie.num_tbl8 + 1ull) +
	       4ull * fc->trie.num_tbl8 +
	       mem_mempool_size(2 * (uint32_t)fc->max_routes, RIB6_NODE_BYTES, 0, 0, page_size) +
	       FIB6_STRUCTS_BYTES;
}

int fwd6_build(struct fwd_state *st, const struct vbrd_config *cfg, char *err, size_t errlen)
{
	int ret;

	for (int i = 0; i < st->nb_ifaces; i++) {
		struct fwd_iface *fi = &st->ifaces[i];

		link_local_eui64(&fi->mac, fi->ll6);
		memset(fi->addr6, 0, 16);
		for (int a = fi->nb_addrs - 1; a >= 0; a--) {
			const struct cfg_prefix *p = &fi->addrs[a];
			if (p->addr.family == AF_INET6 && !ipv6_is_link_local(p->addr.v6))
				memcpy(fi->addr6, p->addr.v6, 16);
		}
	}

	/* Connected subnets, then own addresses as /128 (RFC 4291 §2.5.4),
	 * in the interface's VRF. */
	for (int i = 0; i < st->nb_ifaces; i++) {
		const struct fwd_iface *fi = &st->ifaces[i];
		struct fib_table *t = &st->vrfs[fi->vrf].routes;
		for (int a = 0; a < fi->nb_addrs; a++) {
			const struct cfg_prefix *p = &fi->addrs[a];
			uint8_t net[16];
			uint32_t value;

			if (p->addr.family != AF_INET6 || ipv6_is_link_local(p->addr.v6))
				continue;
			prefix6_network(p, net);
			ret = 0;
			/* a tunnel's inner addresses are local only (see fwd.c) */
			if (fi->port != FWD_NO_PORT) {
				ret = nexthop6_value((uint16_t)i, NULL, &value);
				if (ret == 0 &&
				    (ret = fib_table_add6(t, net, p->len, value, 0)) < 0)
					fib_value_put(value);
			}
			if (ret == 0)
				ret = fib_table_add6(t, p->addr.v6, 128,
						     FIB_NH(FIB_KIND_LOCAL, (uint32_t)i), 0);
			if (ret < 0)
				goto fail;
		}
	}
	/* IPv6 tunnel endpoints: own addresses that decapsulation answers on. */
	for (int i = 0; i < st->nb_tunnels; i++) {
		struct fwd_tunnel *tu = &st->tunnels[i];
		if (tu->local.family != AF_INET6)
			continue;
		struct fib_table *t = &st->vrfs[tu->underlay_vrf].routes;
		ret = fib_table_add6(t, tu->local.v6, 128, FIB_NH(FIB_KIND_LOCAL, tu->iface), 0);
		if (ret < 0)
			goto fail;
	}
	for (int r = 0; r < cfg->nb_routes; r++) {
		const struct cfg_route *cr = &cfg->routes[r];
		uint32_t value;

		if (cr->prefix.addr.family != AF_INET6)
			continue;
		if (cr->target_kind != NULL) {
			ret = fwd_nh_kind_find(cr->target_kind);
			if (ret < 0) { /* a route target whose data path is not built in */
				snprintf(err, errlen, "no next-hop kind '%s' for a route",
					 cr->target_kind);
				return ret;
			}
			value = FIB_NH((unsigned)ret, cr->target);
		} else if (cr->path_group >= 0) {
			value = FIB_NH(FIB_KIND_PATHGRP, (uint32_t)cr->path_group);
		} else if (cr->nb_nexthops == 1) {
			const struct cfg_nexthop *n = &cr->nexthops[0];
			ret = nexthop6_value((uint16_t)n->iface, n->via.v6, &value);
			if (ret < 0)
				goto fail;
		} else {
			ret = fwd_ecmp_value(cr, &value);
			if (ret < 0)
				goto fail;
		}
		ret = fib_table_add6(&st->vrfs[cr->vrf].routes, cr->prefix.addr.v6, cr->prefix.len,
				     value, FIB_ROUTE_STATIC);
		if (ret < 0) {
			fib_value_put(value);
			goto fail;
		}
		st->vrfs[cr->vrf].nb_routes6++;
	}
	return 0;
fail:
	if (ret == -ENOSPC)
		snprintf(err, errlen, "more than %u distinct next hops or %u ECMP sets",
			 FIB_MAX_NEXTHOPS, FIB_MAX_ECMP);
	else
		snprintf(err, errlen, "out of memory building the IPv6 forwarding state");
	return ret;
}
