/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet counters: one named counter per drop reason, per worker.
 *
 * Workers write only their own struct (no atomics, no sharing of cache
 * lines); the control thread sums them when asked. A reason's name is what
 * `vbrctl show stats` prints: keep it stable, scripts read it.
 */
#ifndef VBRD_COUNTERS_H
#define VBRD_COUNTERS_H

#include <stdint.h>
#include <rte_common.h>

/* X(enum suffix, name, what it means) */
#define VBRD_DROP_REASONS(X)                                                                     \
	X(TRUNCATED, "truncated", "frame ends inside a header")                                  \
	X(BAD_VERSION, "bad_version", "IP version field does not match the ethertype")           \
	X(BAD_IHL, "bad_ihl", "IPv4 header length below 5 words")                                \
	X(BAD_CHECKSUM, "bad_checksum", "IPv4 header checksum wrong")                            \
	X(BAD_LENGTH, "bad_length", "IP total length larger than the frame or below the header") \
	X(UNKNOWN_ETHERTYPE, "unknown_ethertype", "neither ARP, IPv4 nor 802.1Q")                \
	X(UNKNOWN_VLAN, "unknown_vlan", "no interface for this port and VLAN")                   \
	X(NOT_FOR_US, "not_for_us", "unicast frame to another MAC")                              \
	X(TTL_EXPIRED, "ttl_expired", "TTL would reach 0 (ICMP time exceeded sent)")             \
	X(NO_ROUTE, "no_route", "no FIB entry (ICMP net unreachable sent)")                      \
	X(MTU_EXCEEDED, "mtu_exceeded",                                                          \
	  "larger than the egress MTU with DF set (ICMP frag needed sent)")                      \
	X(ARP_UNRESOLVED, "arp_unresolved", "next hop did not answer ARP")                       \
	X(ARP_HOLD_FULL, "arp_hold_full", "too many packets waiting for one neighbor")           \
	X(TX_FULL, "tx_full", "TX queue full")                                                   \
	X(CONTROL_RING_FULL, "control_ring_full", "control thread ring full")                    \
	X(UNSUPPORTED_LOCAL, "unsupported_local",                                                \
	  "to an own address, but not a service vbrd offers")                                    \
	X(MARTIAN, "martian", "source or destination that must not be routed")                   \
	X(DIRECTED_BROADCAST, "directed_broadcast",                                              \
	  "to a connected subnet's broadcast or network address (RFC 2644)")                     \
	X(NO_MBUF, "no_mbuf", "mempool empty while building a reply")                            \
	X(FRAG_FAILED, "frag_failed", "IPv4 fragmentation failed")                               \
	X(TUNNEL_TRUNCATED, "tunnel_truncated",                                                  \
	  "UDP/VXLAN/GENEVE/inner Ethernet header cut short")                                    \
	X(TUNNEL_BAD_HEADER, "tunnel_bad_header",                                                \
	  "VXLAN I flag clear, GENEVE version or protocol wrong")                                \
	X(TUNNEL_UNKNOWN_REMOTE, "tunnel_unknown_remote",                                        \
	  "tunnel packet from an address no tunnel has as remote")                               \
	X(TUNNEL_BAD_VNI, "tunnel_bad_vni",                                                      \
	  "tunnel packet from a known remote with a VNI it does not use")                        \
	X(ECN_NOT_ECT, "ecn_not_ect", "outer CE over a not-ECT inner packet (RFC 6040 §4.2)")    \
	X(NO_PATH, "no_path", "path group has no usable path")                                   \
	X(NO_HEADROOM, "no_headroom", "no room in front of the packet for the outer headers")    \
	X(BAD_ND, "bad_nd", "Neighbor Discovery message failing RFC 4861 §7.1 checks")           \
	X(ND_UNRESOLVED, "nd_unresolved", "IPv6 next hop did not answer Neighbor Solicitation")  \
	X(ND_HOLD_FULL, "nd_hold_full", "too many packets waiting for one IPv6 neighbor")        \
	X(IPV6_MULTICAST, "ipv6_multicast",                                                      \
	  "IPv6 multicast vbrd does not serve (MLD, router solicitation)")

enum drop_reason {
#define X(e, n, d) DROP_##e,
	VBRD_DROP_REASONS(X)
#undef X
		DROP__MAX
};

/** Name of a drop reason as `vbrctl show stats` prints it. */
const char *drop_reason_name(enum drop_reason r);

#define VBRD_MAX_IFACE_SLOTS 256

/** Per-interface counters (slot = stable interface id, see fwd_state.h). */
struct iface_counters {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes;
};

/** One worker's counters. Written only by that worker. */
struct worker_stats {
	uint64_t rx_packets;
	uint64_t tx_packets;
	uint64_t forwarded;         /* routed to another interface */
	uint64_t local;             /* answered locally (ICMP echo) */
	uint64_t to_control;        /* punted to the control thread */
	uint64_t icmp_errors;       /* ICMP errors generated */
	uint64_t icmp_rate_limited; /* ICMP errors not sent: over icmp.rate_pps */
	uint64_t fragments;         /* IPv4 fragments generated */
	uint64_t drops[DROP__MAX];
	struct iface_counters iface[VBRD_MAX_IFACE_SLOTS];
} __rte_cache_aligned;

#endif
