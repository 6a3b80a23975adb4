/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel side of a vbrd L3 interface: one TAP device per interface,
 * for FRR (zebra, bgpd, bfdd) to see and use as if it were the line.
 *
 * The TAP is made on /dev/net/tun (IFF_TAP | IFF_NO_PI, not persistent:
 * closing its fd, or the process dying, removes it) in a network namespace
 * named like `ip netns add` names them (/run/netns/NAME), or in the calling
 * thread's own. Everything else is set over rtnetlink (libmnl), each
 * request acknowledged: the interface's MAC and MTU, IFF_NOARP (vbrd
 * answers ARP and ND itself), IPv6 link-local addresses by EUI-64 (RFC 4291
 * App. A, the address vbrd derives), up, and the interface's addresses
 * with their full prefix (so zebra sees the connected routes). Its carrier
 * follows the line (TUNSETCARRIER).
 *
 * Frames vbrd punts are written into the fd, the frames the kernel sends
 * are read from it; both non-blocking, for the main loop's epoll.
 *
 * No DPDK, no logging: every error is a negative errno and, where an
 * @p err buffer is taken, a message naming the TAP and what failed.
 * Not thread-safe: one thread uses a TAP at a time (the main loop).
 *
 * Names are cp_tap_* ("control-plane TAP"): DPDK's drivers, which vbrd
 * links statically, already export tap_open(), tap_set_mac(), tap_nl_*().
 */
#ifndef VBRD_CPLANE_TAP_H
#define VBRD_CPLANE_TAP_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/config.h"

#define CP_TAP_PREFIX_MAX     8 /* characters of a TAP name prefix */
#define CP_TAP_DEFAULT_PREFIX "vb-"
#define CP_TAP_NETNS_MAX      64 /* bytes of a namespace name, including the NUL */

/** What cp_tap_open() makes. */
struct cp_tap_cfg {
	char name[IFNAMSIZ];          /* the kernel name, from cp_tap_name() */
	char netns[CP_TAP_NETNS_MAX]; /* /run/netns/NAME; "" = the calling thread's namespace */
	uint8_t mac[6];               /* the interface's MAC (unicast) */
	/* bytes of L3 payload, 68..65521; below 1280 the kernel turns IPv6 off on the TAP */
	uint32_t mtu;
	bool carrier; /* the line's state at start: true = up */
};

struct cp_tap;

/**
 * The TAP name of vbrd interface @p ifname: @p prefix followed by the
 * name when that fits in IFNAMSIZ-1 (15) characters ("vb-" + "line1" =
 * "vb-line1"); otherwise the prefix, as many leading characters of the
 * name as fit, '~' and 4 hex digits of the 32-bit FNV-1a hash of the
 * whole name ("vb-" + "dc1-transit-line-a" = "vb-dc1-tra~3518").
 *
 * vbrd names never contain '~' (A-Z a-z 0-9 _ . -), so a shortened name
 * never equals a whole one; two shortened names may collide (same leading
 * characters and same 16 hash bits): cp_tap_names_check() finds that.
 *
 * @param prefix  0..CP_TAP_PREFIX_MAX characters of A-Z a-z 0-9 _ . -
 *                (CP_TAP_DEFAULT_PREFIX when NULL)
 * @param ifname  the vbrd interface name, 1..CFG_NAME_MAX-1 characters
 * @param out     receives the NUL-terminated TAP name
 * @return        0, or -EINVAL (bad prefix or name; "." and ".." with an
 *                empty prefix)
 */
int cp_tap_name(const char *prefix, const char *ifname, char out[IFNAMSIZ]);

/**
 * Check that the TAP names of @p n interfaces are pairwise distinct.
 *
 * @param prefix   as cp_tap_name()
 * @param ifnames  the vbrd interface names (themselves distinct)
 * @param n        how many
 * @param err      message on failure (@p errlen bytes): the two interfaces
 *                 and their common TAP name
 * @return         0, -EINVAL (a bad prefix or name), -EEXIST (a collision:
 *                 rename one of the two)
 */
int cp_tap_names_check(const char *prefix, const char *const *ifnames, unsigned n, char *err,
		       size_t errlen);

/**
 * The IPv6 link-local address of a MAC: fe80::/64 with the modified EUI-64
 * interface identifier (RFC 4291 §2.5.1 and App. A). The TAP's link-local
 * address is this one (cp_tap_open() sets the link's addr_gen_mode to EUI-64),
 * the same vbrd's data path answers for.
 *
 * @param mac  the MAC
 * @param out  receives the address, network byte order
 */
void cp_tap_link_local6(const uint8_t mac[6], uint8_t out[16]);

/**
 * Create the TAP: in @p cfg->netns when set (the calling thread enters it
 * for the tun fd and the netlink socket, then returns to its own
 * namespace; later calls never change namespace), with the MAC, MTU,
 * IFF_NOARP, EUI-64 link-local generation (whatever the namespace's
 * default addr_gen_mode), the carrier of @p cfg, and up. No addresses:
 * cp_tap_set_addrs(). The kernel adds the link-local once the TAP is up
 * with carrier.
 *
 * A TAP of the same name that someone made persistent (`ip tuntap add`,
 * TUNSETPERSIST) and no process holds is taken over: made non-persistent,
 * set down, then set as a new one would be (its addresses stay until
 * cp_tap_set_addrs()). A TAP another process holds, or a device of that
 * name that is no TAP, is an error.
 *
 * @param cfg  what to make (copied)
 * @param out  receives the TAP
 * @param err  message on failure (@p errlen bytes), naming the TAP
 * @return     0; -ENOENT (no namespace of that name), -EPERM (not root),
 *             -EBUSY (a TAP of that name is in use), -EEXIST (a device of
 *             that name is not a TAP), -EINVAL (bad name, MAC or MTU), or
 *             the negative errno of the failed call
 */
int cp_tap_open(const struct cp_tap_cfg *cfg, struct cp_tap **out, char *err, size_t errlen);

/**
 * Remove the TAP: closing its fd removes the device, its addresses and
 * routes (the kernel's, FRR's) with it. NULL is ignored.
 */
void cp_tap_close(struct cp_tap *t);

/** The fd to poll for EPOLLIN (frames from the kernel); non-blocking, close-on-exec. */
int cp_tap_fd(const struct cp_tap *t);

/**
 * The TAP's ifindex in its namespace: FRR's FPM messages name next hops by
 * it. Unique only within that namespace.
 */
int cp_tap_ifindex(const struct cp_tap *t);

/** The TAP's kernel name. */
const char *cp_tap_ifname(const struct cp_tap *t);

/** The TAP's namespace name, "" for the one vbrd started in. */
const char *cp_tap_netns(const struct cp_tap *t);

/**
 * Set the TAP's addresses to exactly @p addrs: add the missing ones
 * (IPv4 with the broadcast address of its prefix; IPv6 with IFA_F_NODAD),
 * remove the others. IPv6 link-local addresses (fe80::/10) are left alone,
 * neither added nor removed: the kernel makes the TAP's own from its MAC.
 * Addresses the kernel configured by itself (SLAAC from a router
 * advertisement) count as others and are removed.
 *
 * @param addrs  IPv4 and IPv6 addresses with their prefix length (host
 *               bits kept: 10.0.1.1/24), no link-local; duplicates ignored
 * @param n      how many (0 removes all)
 * @param err    message on failure (@p errlen bytes): the address and what
 *               the kernel said
 * @return       0, -EINVAL (a link-local or bad address), or the kernel's
 *               negative errno (the addresses before it are changed)
 */
int cp_tap_set_addrs(struct cp_tap *t, const struct cfg_prefix *addrs, unsigned n, char *err,
		     size_t errlen);

/**
 * The TAP's addresses as the kernel has them now, link-local included.
 *
 * @param out  receives up to @p cap addresses
 * @param cap  room in @p out
 * @return     the number of addresses on the TAP (may exceed @p cap), or a
 *             negative errno
 */
int cp_tap_get_addrs(struct cp_tap *t, struct cfg_prefix *out, unsigned cap);

/**
 * Set the TAP's MTU (a reload that changes the interface's).
 *
 * Below 1280 bytes the kernel turns IPv6 off on the TAP and forgets its
 * IPv6 addresses; raised to 1280 or more, the TAP gets its EUI-64
 * link-local again (set down and up if the kernel made another) and the
 * caller sets the addresses again (cp_tap_set_addrs()).
 *
 * @param mtu  bytes of L3 payload, 68..65521
 * @return     0, -EINVAL (out of range), or a negative errno; a message in @p err
 */
int cp_tap_set_mtu(struct cp_tap *t, uint32_t mtu, char *err, size_t errlen);

/**
 * Set the TAP's carrier: down when the line is (its BFD session Down), so
 * that the kernel reports the link down (IFF_LOWER_UP off, operstate DOWN)
 * and FRR acts on it (bgpd's fast external failover); the TAP stays up
 * administratively and keeps its addresses. Frames the kernel sends while
 * the carrier is off are dropped (its tx_dropped), not queued.
 *
 * The kernel applies the carrier at once, but announces it (RTM_NEWLINK,
 * operstate) through linkwatch: carrier on at once; carrier off at once,
 * or, within a second of the previous link event linkwatch announced
 * (any device of the host), up to that second later, and several changes
 * in that second as their last state only.
 *
 * @param up  true: carrier on
 * @return    0, or a negative errno with a message in @p err
 */
int cp_tap_set_carrier(struct cp_tap *t, bool up, char *err, size_t errlen);

/**
 * Hand one Ethernet frame to the kernel, as if received on the line
 * (non-blocking). The tun driver runs the kernel's receive path inside
 * the write() itself: the frame is taken or dropped there (a frame for
 * no protocol counts in the TAP's rx_dropped) and the call does not wait
 * for a queue; -EAGAIN is passed on should a kernel ever return it.
 *
 * @param frame  the frame from its destination MAC on, no FCS
 * @param len    bytes, 14..mtu + 18
 * @return       @p len, -EAGAIN (not taken now: count a drop), -EINVAL
 *               (shorter than an Ethernet header), -EIO (the TAP is set
 *               down), or another negative errno
 */
ssize_t cp_tap_write(struct cp_tap *t, const void *frame, size_t len);

/**
 * Take one frame the kernel sent on the TAP (non-blocking). The kernel
 * queues up to txqueuelen (1000) frames for the fd and drops the rest
 * (its tx_dropped) while vbrd does not read.
 *
 * @param buf  receives the frame from its destination MAC on, no FCS
 * @param cap  bytes in @p buf: at least mtu + 18 (a VLAN tag); a longer
 *             frame is cut to @p cap bytes, its end lost, without a sign
 * @return     the frame's length in @p buf, -EAGAIN (none queued), or
 *             another negative errno
 */
ssize_t cp_tap_read(struct cp_tap *t, void *buf, size_t cap);

/* ---- VRF devices: a kernel VRF per vbrd VRF, its TAPs enslaved ---- */

struct cp_vrf;
struct nlmsghdr;

/**
 * The kernel device name of vbrd VRF @p vrf: the rule of cp_tap_name()
 * with no prefix, so that FRR's VRF name (`router bgp ASN vrf NAME`) is
 * the vbrd VRF's own when it has up to 15 characters ("vpc-a" = "vpc-a";
 * longer: 10 characters, '~', 4 hex digits of its FNV-1a hash).
 *
 * @return  0, or -EINVAL (not a vbrd name, or "." / "..")
 */
int cp_vrf_name(const char *vrf, char out[IFNAMSIZ]);

/**
 * Check that the VRF devices of @p m VRFs have distinct names, none the
 * TAP name of one of @p n interfaces (those whose TAPs share the VRF
 * devices' namespace).
 *
 * @param tap_prefix  the TAPs' prefix, as cp_tap_name()
 * @param err         message on failure (@p errlen bytes): the two names
 *                    and their common device name
 * @return            0, -EINVAL (a VRF name with no device name), -EEXIST
 *                    (a collision)
 */
int cp_vrf_names_check(const char *tap_prefix, const char *const *ifnames, unsigned n,
		       const char *const *vrfs, unsigned m, char *err, size_t errlen);

/**
 * Build into @p buf the rtnetlink request that makes VRF device @p name
 * with table @p table, up: RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL,
 * IFF_UP, IFLA_IFNAME, IFLA_LINKINFO { IFLA_INFO_KIND "vrf",
 * IFLA_INFO_DATA { IFLA_VRF_TABLE (u32) } } (Linux's
 * Documentation/networking/vrf.rst; `ip link add NAME up type vrf table N`).
 *
 * @param buf  at least 256 bytes, aligned for a struct nlmsghdr
 * @return     the message (at @p buf), its nlmsg_seq 0 and no NLM_F_ACK
 */
struct nlmsghdr *cp_vrf_msg_new(void *buf, const char *name, uint32_t table);

/**
 * Build into @p buf the request that enslaves device @p ifindex to
 * @p master: RTM_NEWLINK with IFLA_MASTER (u32); master 0 frees it
 * (`ip link set dev X nomaster`).
 *
 * @param buf  at least 64 bytes, aligned for a struct nlmsghdr
 * @return     the message (at @p buf)
 */
struct nlmsghdr *cp_tap_msg_master(void *buf, int ifindex, int master);

/**
 * Make the VRF device @p name with table @p table in namespace @p netns
 * (NULL or "": the calling thread's; entered as cp_tap_open() does), up.
 * A VRF device of that name already there (left by a killed vbrd: unlike
 * a TAP, it outlives its maker) is taken over when its table is @p table,
 * else deleted and made anew.
 *
 * @param out  receives the device
 * @param err  message on failure (@p errlen bytes), naming the device and
 *             the kernel's extended ACK text
 * @return     0; -EOPNOTSUPP (the kernel has no VRF driver: it answered
 *             EOPNOTSUPP "Unknown device type", or ENODEV); -EEXIST (a
 *             device of that name is not a VRF); -EINVAL (bad name, table
 *             0); -ENOENT (no such namespace); or the kernel's negative
 *             errno
 */
int cp_vrf_open(const char *name, const char *netns, uint32_t table, struct cp_vrf **out, char *err,
		size_t errlen);

/**
 * Delete the VRF device (RTM_DELLINK): the kernel frees its slaves, cycling
 * each down and up (a TAP loses its IPv6 addresses: set them again). NULL
 * is ignored.
 */
void cp_vrf_close(struct cp_vrf *v);

/** The VRF device's ifindex in its namespace. */
int cp_vrf_ifindex(const struct cp_vrf *v);

/** The VRF device's kernel name. */
const char *cp_vrf_ifname(const struct cp_vrf *v);

/** The VRF device's table id. */
uint32_t cp_vrf_table(const struct cp_vrf *v);

/**
 * Enslave the TAP to device @p master (a VRF device's ifindex in the same
 * namespace), or free it from its master (0). The kernel cycles the TAP
 * down and up (vrf.c moves its routes to the VRF's table), which flushes
 * its IPv6 addresses (keep_addr_on_down = 0): cp_tap_set_addrs() after.
 *
 * @return  0, -EINVAL (@p master negative, or no device of that ifindex),
 *          or the kernel's negative errno, with a message in @p err
 */
int cp_tap_set_master(struct cp_tap *t, int master, char *err, size_t errlen);

/** The ifindex of the TAP's master as the kernel has it (0: none), or a negative errno. */
int cp_tap_master(struct cp_tap *t);

#endif
