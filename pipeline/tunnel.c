/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunnels and path groups, control side: turn the config into tunnel
 * interfaces, paths with prebuilt outer headers, and path groups.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <inttypes.h>
#include <stdatomic.h>

#include <rte_byteorder.h>
#include <rte_hash.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "pipeline/local.h"
#include "pipeline/tunnel.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/*
 * The outer headers of @p path, with the per-packet fields (outer
 * destination MAC, lengths, checksums, TOS, source port, inner ethertype)
 * left zero. Layout: Ethernet [802.1Q] | IPv4 or IPv6 | UDP | VXLAN or
 * GENEVE | inner Ethernet.
 */
static void path_template(struct fwd_path *p, const struct fwd_tunnel *t,
			  const struct fwd_iface *line, uint16_t cfg_mtu)
{
	uint8_t *h = p->hdr;
	uint16_t ethertype = t->remote.family == AF_INET ? RTE_ETHER_TYPE_IPV4
							 : RTE_ETHER_TYPE_IPV6;

	memset(p->hdr, 0, sizeof(p->hdr));
	memcpy(h + 6, line->mac.addr_bytes, 6);
	if (line->vlan) {
		put16(h + 12, RTE_ETHER_TYPE_VLAN);
		put16(h + 14, line->vlan);
		put16(h + 16, ethertype);
		p->l2_len = 18;
	} else {
		put16(h + 12, ethertype);
		p->l2_len = 14;
	}
	h += p->l2_len;

	if (t->remote.family == AF_INET) {
		h[0] = 0x45; /* RFC 791: version 4, IHL 5 */
		h[8] = 64;   /* TTL */
		h[9] = IPPROTO_UDP;
		put32(h + 12, t->local.v4);
		put32(h + 16, t->remote.v4);
		p->l3_len = 20;
		p->ip4_sum = __rte_raw_cksum(h, 20, 0);
	} else {
		put32(h, 6u << 28); /* RFC 8200: version 6 */
		h[6] = IPPROTO_UDP;
		h[7] = 64; /* hop limit */
		memcpy(h + 8, t->local.v6, 16);
		memcpy(h + 24, t->remote.v6, 16);
		p->l3_len = 40;
	}
	h += p->l3_len;

	put16(h + 2, t->udp_port); /* UDP destination port */
	h += 8;

	if (t->type == CFG_TUNNEL_VXLAN) {
		h[0] = 0x08; /* RFC 7348 §5: I flag, VNI valid */
	} else {
		/* RFC 8926 §3.4: version 0, no options, protocol Transparent Ethernet Bridging */
		put16(h + 2, 0x6558);
	}
	put32(h + 4, t->vni << 8);
	h += 8;

	memcpy(h, t->inner_mac, 6);
	memcpy(h + 6, line->mac.addr_bytes, 6);
	h += TUNNEL_INNER_L2;

	p->hdr_len = (uint16_t)(h - p->hdr);
	uint16_t overhead = (uint16_t)(p->hdr_len - p->l2_len);
	p->inner_mtu = (uint16_t)(line->mtu - overhead);
	if (cfg_mtu && cfg_mtu < p->inner_mtu)
		p->inner_mtu = cfg_mtu;
}

uint64_t tunnel_plane_tab(unsigned nb_planes, uint32_t healthy)
{
	unsigned up[16], nb_up = 0;
	uint64_t tab = 0;

	if (nb_planes == 0 || nb_planes > 16)
		return 0;
	for (unsigned k = 0; k < nb_planes; k++)
		if (healthy & (1u << k))
			up[nb_up++] = k;
	for (unsigned b = 0, moved = 0; b < 16; b++) {
		unsigned home = b % nb_planes, plane = home;
		if (nb_up > 0 && !(healthy & (1u << home)))
			plane = up[moved++ % nb_up];
		tab |= (uint64_t)plane << (4 * b);
	}
	return tab;
}

static int tunnel_hash_build(struct fwd_state *st, char *err, size_t errlen);

int tunnel_state_build(struct fwd_state *st, const struct vbrd_config *cfg,
		       const struct fwd_state *prev, char *err, size_t errlen)
{
	int nb_paths = 0;

	st->nb_tunnels = cfg->nb_tunnels;
	st->tunnels = calloc(cfg->nb_tunnels + 1, sizeof(*st->tunnels));
	for (int g = 0; g < cfg->nb_path_groups; g++)
		nb_paths += cfg->path_groups[g].nb_paths;
	st->paths = calloc(nb_paths + 1, sizeof(*st->paths));
	st->path_groups = calloc(cfg->nb_path_groups + 1, sizeof(*st->path_groups));
	if (st->tunnels == NULL || st->paths == NULL || st->path_groups == NULL) {
		snprintf(err, errlen, "out of memory building tunnels");
		return -ENOMEM;
	}

	for (int i = 0; i < cfg->nb_tunnels; i++) {
		const struct cfg_tunnel *ct = &cfg->tunnels[i];
		struct fwd_tunnel *t = &st->tunnels[i];
		struct fwd_iface *fi = &st->ifaces[cfg->nb_ifaces + i];

		snprintf(t->name, sizeof(t->name), "%s", ct->name);
		t->type = ct->type;
		t->vni = ct->vni;
		t->udp_port = ct->udp_port;
		t->local = ct->local;
		t->remote = ct->remote;
		memcpy(t->inner_mac, ct->inner_mac, 6);
		t->udp_zero_checksum6 = ct->udp_zero_checksum6;
		t->iface = (uint16_t)(cfg->nb_ifaces + i);
		t->underlay_vrf = (uint16_t)ct->underlay_vrf;
		int ret = local_udp_bind(st, t->udp_port, &tunnel_service, err, errlen);
		if (ret < 0)
			return ret;

		snprintf(fi->name, sizeof(fi->name), "%s", ct->name);
		fi->vrf = (uint16_t)ct->vrf;
		fi->port = FWD_NO_PORT;
		fi->tunnel = (uint16_t)i;
		fi->mtu = ct->mtu ? ct->mtu : CFG_MTU_MAX; /* lowered below to its paths' */
		fi->nb_addrs = ct->nb_addrs;
		memcpy(fi->addrs, ct->addrs, sizeof(fi->addrs));
		memcpy(fi->mac.addr_bytes, ct->inner_mac, 6);
		for (int a = 0; a < ct->nb_addrs; a++)
			if (ct->addrs[a].addr.family == AF_INET && fi->addr4 == 0) {
				fi->addr4 = ct->addrs[a].addr.v4;
				fi->plen4 = ct->addrs[a].len;
			}
		/* ICMP errors about tunnel traffic need a source: the outer one will do. */
		if (fi->addr4 == 0 && ct->local.family == AF_INET)
			fi->addr4 = ct->local.v4;
	}
	st->nb_ifaces = cfg->nb_ifaces + cfg->nb_tunnels;
	st->nb_path_groups = cfg->nb_path_groups;
	if (cfg->nb_tunnels > 0) {
		int ret = tunnel_hash_build(st, err, errlen);
		if (ret < 0)
			return ret;
	}

	for (int g = 0; g < cfg->nb_path_groups; g++) {
		const struct cfg_path_group *cg = &cfg->path_groups[g];
		struct fwd_path_group *pg = &st->path_groups[g];
		const struct fwd_path_group *old = prev ? fwd_path_group_find(prev, cg->name)
							: NULL;
		const struct fwd_path *old_active = old ? atomic_load(&old->active) : NULL;

		snprintf(pg->name, sizeof(pg->name), "%s", cg->name);
		if (old)
			pg->switches = old->switches;
		for (int k = 0; k < cg->nb_paths; k++) {
			const struct cfg_path *cp = &cg->paths[k];
			struct fwd_path *p = &st->paths[st->nb_paths];
			const struct fwd_tunnel *t = &st->tunnels[cp->tunnel];
			struct fwd_iface *tif = &st->ifaces[t->iface];

			snprintf(p->name, sizeof(p->name), "%s", cp->name);
			p->tunnel = (uint16_t)cp->tunnel;
			p->iface = (uint16_t)cp->iface;
			p->via = cp->via;
			p->plane = cp->plane;
			p->nb_planes = (uint16_t)(cp->plane < 0       ? 0
						  : cp->nb_planes > 0 ? cp->nb_planes
								      : 1);
			uint64_t tab = tunnel_plane_tab(p->nb_planes, (1u << p->nb_planes) - 1);
			/* a plane path selection took out stays out across the reload */
			if (old)
				for (int j = 0; j < old->nb_paths; j++) {
					const struct fwd_path *op = &prev->paths[old->paths[j]];
					if (strcmp(op->name, cp->name) == 0 &&
					    op->nb_planes == p->nb_planes && op->plane == p->plane)
						tab = atomic_load(&op->plane_tab);
				}
			atomic_store(&p->plane_tab, tab);
			p->tier = cp->tier;
			p->cost = cp->cost;
			path_template(p, t, &st->ifaces[cp->iface], cfg->tunnels[cp->tunnel].mtu);
			if (p->inner_mtu < tif->mtu)
				tif->mtu = p->inner_mtu;
			pg->paths[pg->nb_paths++] = (uint16_t)st->nb_paths++;
			if (old_active && strcmp(old_active->name, p->name) == 0)
				atomic_store(&pg->active, p);
		}
		/* This rule: the first path in config order (ZooRoute
		 * replaces it with measured choice). */
		if (atomic_load(&pg->active) == NULL && pg->nb_paths > 0)
			atomic_store(&pg->active, &st->paths[pg->paths[0]]);
		pg->fast4 = pg->nb_paths > 0;
		pg->fast4_mtu = UINT16_MAX;
		for (int k = 0; k < pg->nb_paths; k++) {
			const struct fwd_path *p = &st->paths[pg->paths[k]];
			pg->fast4 = pg->fast4 && p->l3_len == 20;
			if (p->inner_mtu < pg->fast4_mtu)
				pg->fast4_mtu = p->inner_mtu;
			if (p->hdr_len - 14 > pg->fast4_grow)
				pg->fast4_grow = (uint16_t)(p->hdr_len - 14);
		}
	}
	return 0;
}

static void tunnel_key_of(struct tunnel_key *k, uint16_t udp_port, int family, const void *remote,
			  uint32_t vni)
{
	memset(k, 0, sizeof(*k));
	k->vni = vni;
	k->udp_port = udp_port;
	k->family = (uint8_t)family;
	memcpy(k->remote, remote, family == AF_INET6 ? 16 : 4);
}

const struct fwd_tunnel *tunnel_on_port(const struct fwd_state *st, uint16_t udp_port)
{
	static const uint8_t none[16];
	struct tunnel_key k;
	void *data;

	if (st->tunnel_hash == NULL)
		return NULL;
	tunnel_key_of(&k, udp_port, 0, none, TUNNEL_ANY_VNI);
	return rte_hash_lookup_data(st->tunnel_hash, &k, &data) >= 0 ? &st->tunnels[(uintptr_t)data]
								     : NULL;
}

const struct fwd_tunnel *tunnel_lookup(const struct fwd_state *st, uint16_t udp_port, int family,
				       const void *remote, uint32_t vni, bool *known_remote)
{
	struct tunnel_key k;
	void *data;

	if (st->tunnel_hash == NULL)
		return NULL;
	tunnel_key_of(&k, udp_port, family, remote, vni);
	if (rte_hash_lookup_data(st->tunnel_hash, &k, &data) >= 0) {
		if (known_remote != NULL)
			*known_remote = true;
		return &st->tunnels[(uintptr_t)data];
	}
	if (known_remote != NULL) {
		k.vni = TUNNEL_ANY_VNI;
		*known_remote = rte_hash_lookup(st->tunnel_hash, &k) >= 0;
	}
	return NULL;
}

/* Every tunnel by its key, and each (port, remote) once with TUNNEL_ANY_VNI. */
static int tunnel_hash_build(struct fwd_state *st, char *err, size_t errlen)
{
	static _Atomic uint64_t seq; /* rte_hash names are global: one per state */
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = (uint32_t)(3 * st->nb_tunnels < 64 ? 64 : 3 * st->nb_tunnels),
		.key_len = sizeof(struct tunnel_key),
		.socket_id = SOCKET_ID_ANY,
	};

	snprintf(name, sizeof(name), "vbrd_tun_%" PRIu64, atomic_fetch_add(&seq, 1));
	st->tunnel_hash = rte_hash_create(&hp);
	if (st->tunnel_hash == NULL) {
		snprintf(err, errlen, "no memory for the tunnel table (%d tunnels)",
			 st->nb_tunnels);
		return -ENOMEM;
	}
	for (int i = 0; i < st->nb_tunnels; i++) {
		const struct fwd_tunnel *t = &st->tunnels[i];
		const void *r = t->remote.family == AF_INET ? (const void *)&t->remote.v4
							    : (const void *)t->remote.v6;
		struct tunnel_key k;

		tunnel_key_of(&k, t->udp_port, t->remote.family, r, t->vni);
		if (rte_hash_add_key_data(st->tunnel_hash, &k, (void *)(uintptr_t)i) < 0)
			goto full;
		k.vni = TUNNEL_ANY_VNI;
		if (rte_hash_add_key_data(st->tunnel_hash, &k, (void *)(uintptr_t)i) < 0)
			goto full;
		/* the port alone (family 0): its first tunnel, for the header's type */
		tunnel_key_of(&k, t->udp_port, 0, r, TUNNEL_ANY_VNI);
		memset(k.remote, 0, sizeof(k.remote));
		if (rte_hash_lookup(st->tunnel_hash, &k) < 0 &&
		    rte_hash_add_key_data(st->tunnel_hash, &k, (void *)(uintptr_t)i) < 0)
			goto full;
	}
	return 0;
full:
	snprintf(err, errlen, "the tunnel table is full (%d tunnels)", st->nb_tunnels);
	return -ENOSPC;
}

void tunnel_state_free(struct fwd_state *st)
{
	rte_hash_free(st->tunnel_hash); /* NULL is fine */
	st->tunnel_hash = NULL;
	free(st->tunnels);
	free(st->paths);
	free(st->path_groups);
}

struct fwd_path_group *fwd_path_group_find(const struct fwd_state *st, const char *name)
{
	for (int i = 0; i < st->nb_path_groups; i++)
		if (strcmp(st->path_groups[i].name, name) == 0)
			return &st->path_groups[i];
	return NULL;
}

void fwd_path_group_switch(struct fwd_path_group *g, struct fwd_path *path)
{
	if (atomic_load(&g->active) == path)
		return;
	/* Readers load `active` once per packet: every flow moves with this store. */
	atomic_store_explicit(&g->active, path, memory_order_release);
	g->switches++;
}
