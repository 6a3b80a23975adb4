/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_errno.h>

#include "pipeline/fwd6.h"
#include "pipeline/mem.h"
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

static int nexthop6_index(struct fwd_state *st, uint16_t iface, const uint8_t *gw6)
{
	static const uint8_t zero[16];
	const uint8_t *gw = gw6 ? gw6 : zero;

	for (int i = 0; i < st->nb_nexthops; i++) {
		const struct fwd_nexthop *nh = &st->nexthops[i];
		if (nh->family == AF_INET6 && nh->iface == iface && memcmp(nh->gw6, gw, 16) == 0)
			return i;
	}
	struct fwd_nexthop *nh = &st->nexthops[st->nb_nexthops];
	memset(nh, 0, sizeof(*nh));
	nh->family = AF_INET6;
	nh->iface = iface;
	memcpy(nh->gw6, gw, 16);
	return st->nb_nexthops++;
}

static void prefix6_network(const struct cfg_prefix *p, uint8_t *net)
{
	memcpy(net, p->addr.v6, 16);
	for (int b = p->len; b < 128; b++)
		net[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
}

static int count_v6(const struct cfg_prefix *p, int n)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += p[i].addr.family == AF_INET6;
	return c;
}

void fwd6_fib_conf(const struct vbrd_config *cfg, struct rte_fib6_conf *fc)
{
	int nb_addrs = 0, nb_routes = 0;

	/* IPv6 addresses of the interfaces and of the tunnels' inner interfaces */
	for (int i = 0; i < cfg->nb_ifaces; i++)
		nb_addrs += count_v6(cfg->ifaces[i].addrs, cfg->ifaces[i].nb_addrs);
	for (int t = 0; t < cfg->nb_tunnels; t++)
		nb_addrs += count_v6(cfg->tunnels[t].addrs, cfg->tunnels[t].nb_addrs);
	for (int r = 0; r < cfg->nb_routes; r++)
		nb_routes += cfg->routes[r].prefix.addr.family == AF_INET6;

	/* The DPDK trie spends up to one tbl8 group per byte of prefix beyond
	 * its 24-bit first level: 13 for a /128, 5 for a /64. */
	*fc = (struct rte_fib6_conf){
		.type = RTE_FIB6_TRIE,
		.default_nh = FIB_NH(FIB_KIND_NONE, 0),
		.max_routes = nb_routes + 2 * nb_addrs + cfg->nb_tunnels + 16,
		.trie = {
			.nh_sz = RTE_FIB6_TRIE_4B,
			.num_tbl8 = (uint32_t)((nb_routes + 2 * nb_addrs + cfg->nb_tunnels) * 14 + 64),
		},
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

	struct rte_fib6_conf fc;
	fwd6_fib_conf(cfg, &fc);
	char name[32];
	snprintf(name, sizeof(name), "fib6_%" PRIu64, st->generation);
	st->fib6 = rte_fib6_create(name, SOCKET_ID_ANY, &fc);
	if (st->fib6 == NULL) {
		snprintf(err, errlen, "cannot create FIB6: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}

	/* Connected subnets, then own addresses as /128 (RFC 4291 §2.5.4). */
	for (int i = 0; i < st->nb_ifaces; i++) {
		const struct fwd_iface *fi = &st->ifaces[i];
		for (int a = 0; a < fi->nb_addrs; a++) {
			const struct cfg_prefix *p = &fi->addrs[a];
			uint8_t net[16];

			if (p->addr.family != AF_INET6 || ipv6_is_link_local(p->addr.v6))
				continue;
			prefix6_network(p, net);
			ret = 0;
			/* a tunnel's inner addresses are local only (see fwd.c) */
			if (fi->port != FWD_NO_PORT) {
				int nh = nexthop6_index(st, (uint16_t)i, NULL);
				ret = rte_fib6_add(st->fib6, net, p->len,
						   FIB_NH(FIB_KIND_NEXTHOP, nh));
			}
			if (ret == 0)
				ret = rte_fib6_add(st->fib6, p->addr.v6, 128,
						   FIB_NH(FIB_KIND_LOCAL, (uint32_t)i));
			if (ret < 0) {
				snprintf(err, errlen, "interface %s: FIB6 add failed: %s", fi->name,
					 strerror(-ret));
				return ret;
			}
		}
	}
	/* IPv6 tunnel endpoints: own addresses that decapsulation answers on. */
	for (int t = 0; t < st->nb_tunnels; t++) {
		struct fwd_tunnel *tu = &st->tunnels[t];
		if (tu->local.family != AF_INET6)
			continue;
		ret = rte_fib6_add(st->fib6, tu->local.v6, 128, FIB_NH(FIB_KIND_LOCAL, tu->iface));
		if (ret < 0) {
			snprintf(err, errlen, "tunnel %s: FIB6 add failed: %s", tu->name,
				 strerror(-ret));
			return ret;
		}
	}
	for (int r = 0; r < cfg->nb_routes; r++) {
		const struct cfg_route *cr = &cfg->routes[r];
		uint64_t value;

		if (cr->prefix.addr.family != AF_INET6)
			continue;
		if (cr->path_group >= 0) {
			value = FIB_NH(FIB_KIND_PATHGRP, (uint32_t)cr->path_group);
		} else if (cr->nb_nexthops == 1) {
			const struct cfg_nexthop *n = &cr->nexthops[0];
			value = FIB_NH(FIB_KIND_NEXTHOP,
				       nexthop6_index(st, (uint16_t)n->iface, n->via.v6));
		} else {
			struct fwd_ecmp *e = &st->ecmp[st->nb_ecmp];
			for (int k = 0; k < cr->nb_nexthops; k++) {
				const struct cfg_nexthop *n = &cr->nexthops[k];
				e->nh[e->nb++] = (uint16_t)nexthop6_index(st, (uint16_t)n->iface,
									  n->via.v6);
			}
			value = FIB_NH(FIB_KIND_ECMP, st->nb_ecmp++);
		}
		uint8_t pfx[16];
		memcpy(pfx, cr->prefix.addr.v6, 16);
		ret = rte_fib6_add(st->fib6, pfx, cr->prefix.len, value);
		if (ret < 0) {
			snprintf(err, errlen, "%s:%d: route FIB6 add failed: %s", cfg->file,
				 cr->line, strerror(-ret));
			return ret;
		}
	}
	return 0;
}
