/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vbrd configuration: the libconfig file turned into plain C structs.
 *
 * This module knows nothing about DPDK: it parses and validates, so it is
 * unit-tested without an EAL, and `vbrd --check-config` needs no hugepages.
 * Every error names FILE:LINE and the setting (see config_load()).
 */
#ifndef VBRD_CONFIG_H
#define VBRD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CFG_NAME_MAX       32  /* bytes, including the NUL */
#define CFG_DEVARGS_MAX    256 /* bytes, including the NUL */
#define CFG_PATH_MAX       256 /* bytes, including the NUL */
#define CFG_MAX_PORTS      16
#define CFG_MAX_IFACES     8192 /* interfaces and tunnels (each tunnel is an interface) */
#define CFG_MAX_ECMP       8    /* next hops per route */
#define CFG_MAX_ADDRS      4    /* addresses per interface */
#define CFG_MAX_WORKERS    16
#define CFG_NEIGH_HOLD_MAX 16   /* packets held per unresolved neighbor (neighbor.hold_packets) */
#define CFG_MTU_MIN        576  /* bytes of L3 payload (IPv4 minimum datagram) */
#define CFG_MTU_MAX        9000 /* bytes of L3 payload (jumbo) */

/** An IPv4 or IPv6 address. IPv4 is kept in host byte order (as rte_fib wants). */
struct cfg_addr {
	int family; /* AF_INET or AF_INET6 */
	union {
		uint32_t v4;    /* host byte order */
		uint8_t v6[16]; /* network byte order */
	};
};

/** An address with a prefix length: an interface address or a route prefix. */
struct cfg_prefix {
	struct cfg_addr addr;
	uint8_t len; /* prefix length in bits: 0..32 or 0..128 */
};

/** A DPDK port, declared by devargs (vdev name with args, or a PCI address). */
struct cfg_port {
	char name[CFG_NAME_MAX];
	char devargs[CFG_DEVARGS_MAX]; /* "net_af_packet0,iface=veth0" or "0000:03:00.0" */
	uint16_t rx_queues;            /* 1..CFG_MAX_WORKERS; 0 (the default, when the file
	                          * omits it) means one per worker */
	uint16_t rx_desc;              /* descriptors per RX queue, default 1024 */
	uint16_t tx_desc;              /* descriptors per TX queue, default 1024 */
	uint16_t mtu;     /* bytes of L3 payload, CFG_MTU_MIN..CFG_MTU_MAX, default 1500 */
	bool promiscuous; /* default true */
	int line;         /* config line of the declaration */
};

/** An interface: a port, or an 802.1Q sub-interface of it, with addresses. */
/** A FIB's size (the `fib` section, or a VRF's `fib`): 0 = computed from the config. */
struct cfg_fib_size {
	uint32_t ipv4_routes; /* IPv4 FIB entries */
	uint32_t ipv4_tbl8;   /* DIR24_8 tbl8 groups (1 KiB each) */
	uint32_t ipv6_routes; /* IPv6 FIB entries */
	uint32_t ipv6_tbl8;   /* trie tbl8 groups (1 KiB each) */
};

#define CFG_MAX_VRFS      256 /* VRFs, the default one included */
#define CFG_VRF_DEFAULT   0   /* index of the VRF "default" */
#define CFG_TABLE_DEFAULT 254 /* its table id (Linux RT_TABLE_MAIN) */

/**
 * A VRF: a routing table of its own (an IPv4 and an IPv6 FIB). Index 0 is
 * always "default" (table 254), sized by the top-level `fib` section.
 */
struct cfg_vrf {
	char name[CFG_NAME_MAX];
	uint32_t table;          /* FRR / Linux table id: what FPM routes carry */
	struct cfg_fib_size fib; /* the size its FIB is created with */
	int line;                /* 0 for the implicit default VRF */
};

struct cfg_iface {
	char name[CFG_NAME_MAX];
	int vrf;       /* index into vbrd_config.vrfs; 0 = default */
	int port;      /* index into vbrd_config.ports */
	uint16_t vlan; /* 802.1Q VLAN id 1..4094, 0 = untagged */
	uint16_t mtu;  /* bytes of L3 payload; default: the port's MTU, never above it */
	int nb_addrs;
	struct cfg_prefix addrs[CFG_MAX_ADDRS]; /* IPv4 and/or IPv6 interface addresses
	                                         * (host bits kept: 10.0.1.1/24) */
	int line;
};

/** One next hop of a route: a gateway address, optionally pinned to an interface. */
struct cfg_nexthop {
	struct cfg_addr via; /* gateway address, same family as the route */
	int iface;           /* index into vbrd_config.ifaces; config_load() always
	                          * resolves it: the `interface` the file names, else the
	                          * interface whose connected subnet contains `via`
	                          * (longest prefix wins) */
};

/** A static route: a prefix and 1..CFG_MAX_ECMP next hops (several = ECMP),
 *  or a path group (a tunnel to a remote gateway over one of several paths). */
struct cfg_route {
	struct cfg_prefix prefix; /* network prefix: host bits are zero */
	int vrf;                  /* the VRF whose table holds it (index into vbrd_config.vrfs) */
	int nh_vrf;               /* the VRF its next hops are in: vrf, or another one
	                           * (`nexthop_vrf`: a leak between VRFs) */
	int nb_nexthops;          /* 0 when path_group is set */
	struct cfg_nexthop nexthops[CFG_MAX_ECMP];
	int path_group; /* index into vbrd_config.path_groups, or -1 */
	/* A feature's next hop (route_target_register()): the target's key
	 * ("failover_group", NULL when none) and the object's index */
	const char *target_kind;
	uint32_t target;
	int line;
};

struct vbrd_config;

/**
 * A feature's object that a route can point at instead of a gateway: the
 * route setting @p key ("failover_group") names it, @p resolve finds its
 * index in the configuration being loaded (-1: unknown). The route's FIB
 * value is that index with the FIB kind the feature registered under the
 * same name (pipeline/nh_kind.h fwd_nh_kind_register()). Called from a
 * constructor; the feature's config section must load before "routes"
 * (config_section `before`). Aborts when the table (4 keys) is full.
 */
void route_target_register(const char *key,
			   int (*resolve)(const struct vbrd_config *cfg, const char *name));

#define CFG_MAX_TUNNELS 4096
#define CFG_MAX_PATHS   8     /* paths per path group */
#define CFG_MAX_GROUPS  4096  /* path groups */
#define CFG_PLANE_BASE  49152 /* plane N pins the outer UDP source port 49152 + N */
#define CFG_MAX_PLANES  16    /* planes per path (`planes`) */

enum cfg_tunnel_type {
	CFG_TUNNEL_VXLAN = 1, /* RFC 7348, UDP port 4789 */
	CFG_TUNNEL_GENEVE,    /* RFC 8926, UDP port 6081 */
};

enum cfg_tier { CFG_TIER_GOLD, CFG_TIER_SILVER, CFG_TIER_BRONZE };

/**
 * A tunnel to one remote gateway: the outer (underlay) endpoints, the VNI,
 * and optional inner addresses (the tunnel is an interface of its own).
 */
struct cfg_tunnel {
	char name[CFG_NAME_MAX];
	int vrf;          /* the tunnel interface's VRF: decapsulated packets are routed in it */
	int underlay_vrf; /* the VRF of the outer packets: its paths' lines, its `local` */
	enum cfg_tunnel_type type;
	uint32_t vni;           /* 0..16777215 (24 bits) */
	struct cfg_addr local;  /* outer source: an own address (an interface's, or
	                          * a loopback address that routes point at) */
	struct cfg_addr remote; /* outer destination: the remote gateway */
	uint16_t udp_port;      /* outer UDP destination port; default by type */
	uint16_t mtu;           /* inner MTU, bytes; 0 = underlay MTU minus overhead */
	int nb_addrs;
	struct cfg_prefix addrs[CFG_MAX_ADDRS]; /* inner addresses of the tunnel interface */
	uint8_t inner_mac[6];    /* inner destination MAC (a Linux VXLAN device's MAC);
	                          * default 02:00:00:00:00:01 */
	bool udp_zero_checksum6; /* over IPv6, accept a zero outer UDP checksum
	                          * (RFC 6935 §5, RFC 6936 §5); default false */
	int line;
};

/** One way to reach a path group's remote: tunnel × underlay line × plane. */
struct cfg_path {
	char name[CFG_NAME_MAX];
	int tunnel;          /* index into vbrd_config.tunnels */
	int iface;           /* underlay interface (the line) */
	struct cfg_addr via; /* underlay next hop on that line */
	int plane;           /* -1: outer source port from the flow hash (RFC 7348
	                          * §5); else 0..16383, port CFG_PLANE_BASE + plane:
	                          * the first plane of the path */
	int nb_planes;       /* planes of the path, plane .. plane + nb_planes - 1
	                          * (`planes = N`, 1..CFG_MAX_PLANES; port
	                          * CFG_PLANE_BASE + plane + k for plane k): `planes`
	                          * without `plane` starts at plane 0, `plane` alone
	                          * is 1 plane, neither is 0 (plane -1, the flow hash) */
	enum cfg_tier tier;  /* default gold */
	uint32_t cost;       /* 0..65535, lower is preferred; default 0 */
	int line;
};

/** The paths to one remote gateway; one is active at a time. */
struct cfg_path_group {
	char name[CFG_NAME_MAX];
	int vrf; /* its tunnels' `vrf` (one for all paths): where it routes */
	int nb_paths;
	struct cfg_path paths[CFG_MAX_PATHS];
	int line;
};

/** Name of a tier ("gold", "silver", "bronze"). */
const char *config_tier_name(enum cfg_tier t);

/** A static neighbor: an address on an interface with a fixed MAC (no ARP/ND). */
struct cfg_neighbor {
	int iface; /* index into vbrd_config.ifaces */
	struct cfg_addr addr;
	uint8_t mac[6];
	int line;
};

#define CFG_MAX_SECTIONS 32 /* config sections the registry holds (core/config_read.h) */

/** A setting a reload cannot apply, with its value when loaded (cfg_restart()). */
struct cfg_restart_setting {
	char path[96]; /* "workers.cores", "ports.p1.devargs" */
	char value[CFG_DEVARGS_MAX];
	char file[CFG_PATH_MAX]; /* where it was set (the loaded file when defaulted) */
	int line;                /* 0 when defaulted */
};

/** The whole configuration. Arrays are heap-allocated; free with config_free(). */
struct vbrd_config {
	char file[CFG_PATH_MAX];     /* path it was loaded from */
	char instance[CFG_NAME_MAX]; /* instance name: EAL file prefix and default
	                               * socket /run/vbrd/<instance>.sock; default "vbrd" */
	char socket[CFG_PATH_MAX];   /* control socket path */

	int nb_ports;
	struct cfg_port *ports;
	int nb_vrfs; /* at least 1 once loaded: vrfs[0] is "default" */
	struct cfg_vrf *vrfs;
	int nb_ifaces;
	struct cfg_iface *ifaces;
	int nb_routes;
	struct cfg_route *routes;
	int nb_neighbors;
	struct cfg_neighbor *neighbors;
	int nb_tunnels;
	struct cfg_tunnel *tunnels;
	int nb_path_groups;
	struct cfg_path_group *path_groups; /* `neighbors = ( { interface; address; mac; } )` */

	struct {
		int nb_cores;
		unsigned cores[CFG_MAX_WORKERS]; /* CPU ids of worker lcores; default [1] */
		uint32_t idle_sleep_us;          /* max sleep of an idle worker, µs; 0 = busy-poll;
		                                  * default 0 */
		uint32_t burst;                  /* RX burst size, packets, 1..256, default 32 */
	} workers;

	struct {
		uint32_t mbufs; /* mbufs in the packet pool, default 16383 */
		uint32_t cache; /* per-lcore mempool cache, default 256 */
	} mempool;

	struct {
		uint32_t reachable_s; /* a resolved neighbor is refreshed after this, s; default 300 */
		uint32_t retries;     /* ARP requests before unresolved, default 3 */
		uint32_t retry_ms;    /* between ARP requests, ms; default 1000 */
		uint32_t hold_packets; /* packets held per unresolved neighbor, default 4 */
	} neighbor;

	struct {
		uint32_t rate_pps; /* ICMP errors generated per second, default 100 */
		uint32_t burst;    /* token bucket depth, packets, default 50 */
	} icmp;

	struct {
		bool hugepages;     /* use hugepages when the system has them; default true */
		uint32_t memory_mb; /* EAL memory with --no-huge, MiB; default 1024 */
		/* widest SIMD DPDK may use (--force-max-simd-bitwidth): 128, 256
		 * or 512 bits; default 512, so the FIB lookup takes AVX-512
		 * where the CPU has it (DPDK's own default is 256) */
		uint32_t max_simd_bitwidth;
		int line; /* of `memory_mb` (else of `eal`), 0 when absent */
	} eal;

	/* the default VRF's FIB capacity at start-up (restart settings); 0 =
	 * what the start-up config needs plus headroom (pipeline/fib.h) */
	struct cfg_fib_size fib;

	/* what is allowed but unwise ("FILE:LINE: warning: text", heap): vbrd
	 * --check-config prints them, start-up and reloads log them */
	int nb_warnings;
	char **warnings;

	int nb_restart; /* settings a reload cannot apply (core/config_read.h cfg_restart()) */
	struct cfg_restart_setting *restart;
	void *sections[CFG_MAX_SECTIONS]; /* data of feature sections, by section id */
};

/**
 * Collects errors while loading. Each message is "FILE:LINE: text".
 */
struct config_errors {
	int count;
	char **msgs; /* count messages, heap-allocated */
};

/**
 * Load and validate a vbrd configuration file.
 *
 * Every problem found is recorded, not just the first: syntax errors (as
 * libconfig reports them), unknown settings, wrong types, out-of-range
 * values, duplicate names, dangling references (an interface naming an
 * unknown port, a route via an address no interface reaches).
 *
 * Messages are sorted by line. Problems about the whole file (cannot open,
 * missing top-level setting) have no line: "FILE: message".
 *
 * Before libconfig reads anything, the file and each of its @include files
 * must be a readable regular file, all of them together at most
 * CFG_INCLUDE_MAX_BYTES, nested at most CFG_INCLUDE_MAX_DEPTH deep
 * (config_include.h): a bad include is "FILE:LINE: @include ...: problem".
 *
 * @param path  file to read
 * @param cfg   filled on success; zeroed and left empty on failure
 * @param errs  receives "FILE:LINE: message" for each error, sorted by line;
 *              it is overwritten (not freed first), so pass a zeroed or
 *              freed one; free with config_errors_free(). May be NULL.
 * @return      0, or -EINVAL when the file has errors (a bad include, or a
 *              top file that is not a regular file, among them),
 *              -ENOENT/-EACCES/-EISDIR/-EIO when it cannot be read, -EFBIG
 *              when it is larger than CFG_INCLUDE_MAX_BYTES, -ENOMEM (errs
 *              has a message in every case but -ENOMEM)
 */
int config_load(const char *path, struct vbrd_config *cfg, struct config_errors *errs);

/** Release the arrays of a configuration loaded by config_load(). Safe on a zeroed struct. */
void config_free(struct vbrd_config *cfg);

/** Release the messages of a config_errors. */
void config_errors_free(struct config_errors *errs);

/** Print every message of @p errs, one per line, to @p out. */
void config_errors_print(const struct config_errors *errs, FILE *out);

/**
 * What the feature sections loaded, for `vbrd --check-config`: the summary
 * of every section that has one (config_section.summary in
 * core/config_read.h), in load order, each led by ", " (", 2 BFD
 * sessions, 1 failover groups"), into @p buf of @p len bytes; "" when none
 * has anything to say.
 */
void config_sections_summary(const struct vbrd_config *cfg, char *buf, size_t len);

/**
 * Parse "A.B.C.D/N" or "X:Y::Z/N" into a prefix.
 * @return 0, or -EINVAL for bad syntax or a prefix length out of range.
 */
int config_parse_prefix(const char *s, struct cfg_prefix *out);

/** Parse an IPv4 or IPv6 address. @return 0 or -EINVAL. */
int config_parse_addr(const char *s, struct cfg_addr *out);

/** Format an address into @p buf (INET6_ADDRSTRLEN bytes suffice). Returns @p buf. */
char *config_format_addr(const struct cfg_addr *a, char *buf, size_t len);

/** Format "ADDR/LEN" into @p buf (INET6_ADDRSTRLEN + 4 bytes suffice). Returns @p buf. */
char *config_format_prefix(const struct cfg_prefix *p, char *buf, size_t len);

/** True when @p a is of @p p's family and its first p->len bits equal p's. */
bool config_prefix_contains(const struct cfg_prefix *p, const struct cfg_addr *a);

/** Index of the port named @p name, or -1. */
int config_port_index(const struct vbrd_config *cfg, const char *name);

/** Index of the interface named @p name, or -1. */
int config_iface_index(const struct vbrd_config *cfg, const char *name);

/**
 * Index of the VRF named @p name in @p cfg ("default" is 0, also in a
 * config without a `vrfs` section), or -1.
 */
int config_vrf_index(const struct vbrd_config *cfg, const char *name);

/** Name of VRF @p vrf of @p cfg ("default" for 0 when the config lists none). */
const char *config_vrf_name(const struct vbrd_config *cfg, int vrf);

/** Index of the tunnel named @p name, or -1. */
int config_tunnel_index(const struct vbrd_config *cfg, const char *name);

/** Index of the path group named @p name, or -1. */
int config_path_group_index(const struct vbrd_config *cfg, const char *name);

#endif
