/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair's configuration: section "ha" turned into plain C structs
 * (ha_config.c; no DPDK, so `vbrd --check-config`, the unit tests and the
 * config fuzzer link it).
 *
 *     ha = {
 *       pair = "edge1";              # the pair's name: Redis keys "vbrd:edge1:*" (1..32 of
 *                                    # [A-Za-z0-9_.-])
 *       node = "a";                  # this node's id, unique in the pair (same characters)
 *       redis = {
 *         server = "127.0.0.1:6379"; # one server: "HOST:PORT", "[V6]:PORT" or "HOST" (6379)
 *         # or Redis Sentinel: the master's name and 1..8 sentinels (port default 26379)
 *         # master = "vbrd"; sentinels = [ "127.0.0.1:26379", "127.0.0.1:26380" ];
 *         password = "";             # AUTH; optional
 *         tls = false;               # true is refused: Debian 12's hiredis (0.14) has no TLS
 *         timeout = 30;              # ms per Redis operation and connect, 5..5000
 *       };
 *       lease = 40;                  # ms the lease lasts, 20..60000
 *       renew = 8;                   # ms between renews, 1..lease/2
 *       guard = 4;                   # ms the active steps down before its lease ends on its
 *                                    # own clock, 1..lease-renew-1 (default lease/10, at least 1):
 *                                    # two actives never overlap unless the two clocks drift
 *                                    # apart by more than this within one lease
 *       retry = 2;                   # ms between a standby's attempts to acquire, 1..lease
 *       service = {                  # the LAN service address the active answers for
 *         interface = "lan";         # an interface of section "interfaces"
 *         ipv4 = "10.0.0.1";         # virtual IPv4 (at least one of ipv4, ipv6)
 *         ipv6 = "2001:db8::1";      # virtual IPv6
 *         mac = "02:00:5e:00:01:01"; # optional virtual MAC (unicast, no port's): the active
 *                                    # answers ARP/ND with it and takes frames to it, so the
 *                                    # hosts' entries never change; a takeover only moves it
 *                                    # in the bridges (its gratuitous ARP's source)
 *         announce = 3;              # gratuitous ARPs / unsolicited NAs at takeover, 1..10
 *         announce_interval = 20;    # ms between them, 1..1000
 *       };
 *       partner_bfd = "to-b";        # optional: a session of section "bfd" to the partner
 *                                    # (through the DR tunnel): its Down makes the standby
 *                                    # acquire right when the lease ends
 *       share = {                    # what the pair shares (all optional)
 *         failover_groups = [ "dr" ];
 *         path_groups = [ "region" ];
 *       };
 *       publish = 100;               # ms between state publications (and on every change),
 *                                    # 10..10000
 *       state_ttl = 10000;           # ms a published state lives in Redis, 100..600000
 *     };
 *
 * Changing pair, node, redis or service on reload is refused (restart):
 * lease, renew, guard, retry, share, publish and state_ttl apply at once.
 */
#ifndef VBRD_HA_CONFIG_H
#define VBRD_HA_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"
#include "failover/ha/ha_redis.h"

#define HA_MAX_SHARED 32

struct cfg_ha {
	bool enabled; /* the section is present */
	char pair[33];
	char node[33];
	struct ha_redis_cfg redis; /* prefix and node filled in ("vbrd:PAIR:") */
	uint32_t lease_ms, renew_ms, guard_ms, retry_ms;
	char iface[CFG_NAME_MAX]; /* service interface name */
	bool has_v4, has_v6;
	uint32_t vip4;    /* host order */
	uint8_t vip6[16]; /* network order */
	bool has_vmac;    /* service.mac given */
	uint8_t vmac[6];  /* the virtual MAC the active answers and receives with */
	uint8_t announce;
	uint32_t announce_interval_ms;
	char partner_bfd[CFG_NAME_MAX]; /* "" = none */
	unsigned nb_fgroups, nb_pgroups;
	char fgroups[HA_MAX_SHARED][CFG_NAME_MAX];
	char pgroups[HA_MAX_SHARED][CFG_NAME_MAX];
	uint32_t publish_ms, state_ttl_ms;
	int line; /* of the section, for messages */
};

/** The section's result in @p cfg (never NULL after a load; enabled says if present). */
const struct cfg_ha *cfg_ha_get(const struct vbrd_config *cfg);

#endif
