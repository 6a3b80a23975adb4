/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building test frames: Ethernet II + IPv4 + UDP, byte by byte.
 *
 * No DPDK here: pcapgen runs without an EAL. Multi-byte fields are written
 * in network byte order. Frame sizes in this API never include the 4-byte
 * Ethernet FCS, because pcap files do not carry it.
 */
#ifndef VBRD_PERF_FRAME_H
#define VBRD_PERF_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_ETH_HLEN       14   /* bytes: dst MAC, src MAC, EtherType */
#define FRAME_IPV4_HLEN      20   /* bytes: IPv4 header without options */
#define FRAME_UDP_HLEN       8    /* bytes */
#define FRAME_FCS_LEN        4    /* bytes: Ethernet FCS, counted in "frame size" */
#define FRAME_MIN_LEN        60   /* bytes without FCS: a 64-byte Ethernet frame */
#define FRAME_MAX_LEN        1514 /* bytes without FCS: a 1518-byte Ethernet frame */
#define FRAME_ETHERTYPE_IPV4 0x0800
#define FRAME_PROTO_UDP      17
#define FRAME_VXLAN_HLEN     8    /* bytes: flags, reserved, VNI, reserved (RFC 7348 §5) */
#define FRAME_VXLAN_PORT     4789 /* IANA UDP port of VXLAN */
/* bytes of outer headers in front of a VXLAN-encapsulated inner frame */
#define FRAME_VXLAN_OUTER_LEN (FRAME_ETH_HLEN + FRAME_IPV4_HLEN + FRAME_UDP_HLEN + FRAME_VXLAN_HLEN)

/** The addresses and ports of one UDP/IPv4 flow (IPv4 in host byte order). */
struct frame_flow {
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	uint32_t src_ip; /* host byte order */
	uint32_t dst_ip; /* host byte order */
	uint16_t src_port;
	uint16_t dst_port;
	uint8_t ttl; /* hops */
};

/**
 * Internet checksum: one's complement of the one's complement sum of 16-bit
 * words (RFC 1071). An odd trailing byte is padded with zero.
 *
 * @param data  bytes to sum
 * @param len   length of @p data, bytes
 * @param seed  partial sum to start from (0, or a pseudo-header sum)
 * @return      the checksum, in the byte order of @p data (store it as is)
 */
uint16_t frame_cksum(const void *data, size_t len, uint32_t seed);

/**
 * Write a complete Ethernet/IPv4/UDP frame: IPv4 header checksum (RFC 791
 * §3.1) and UDP checksum (RFC 768) correct, DF clear, no IP options. The
 * payload is a repeating byte pattern.
 *
 * @param buf   output, at least @p len bytes
 * @param len   frame length without FCS, bytes, 42..FRAME_MAX_LEN; frames
 *              shorter than FRAME_MIN_LEN are legal in a pcap but are runts
 *              on a wire
 * @param f     addresses and ports
 * @param id    IPv4 identification field
 * @return      0, or -EINVAL when @p len is out of range
 */
int frame_build_udp4(uint8_t *buf, size_t len, const struct frame_flow *f, uint16_t id);

/**
 * Write the outer Ethernet/IPv4/UDP/VXLAN headers (RFC 7348 §5) in front of
 * an inner Ethernet frame that is already at buf + FRAME_VXLAN_OUTER_LEN.
 * Outer IPv4 header checksum correct (RFC 791), DF clear, UDP checksum 0
 * (allowed over IPv4 by RFC 7348 §5 and RFC 768), VXLAN I flag set.
 *
 * @param buf        output: at least FRAME_VXLAN_OUTER_LEN + @p inner_len bytes
 * @param inner_len  inner frame length without FCS, bytes; the outer frame
 *                   (FRAME_VXLAN_OUTER_LEN + inner_len) may not exceed FRAME_MAX_LEN
 * @param outer      outer MACs, addresses, UDP ports (source port: the flow's
 *                   entropy, 49152..65535 by RFC 7348 §5) and TTL
 * @param vni        VXLAN network identifier, 0..2^24-1
 * @param id         outer IPv4 identification field
 * @return           0, or -EINVAL when a length or the VNI is out of range
 */
int frame_build_vxlan4(uint8_t *buf, size_t inner_len, const struct frame_flow *outer, uint32_t vni,
		       uint16_t id);

/**
 * Set the DSCP (RFC 2474 §3) of a frame built by frame_build_udp4(), ECN
 * bits zero, and recompute its IPv4 header checksum. The UDP checksum does
 * not cover the field.
 *
 * @param dscp  0..63
 */
void frame_udp4_set_dscp(uint8_t *buf, uint8_t dscp);

/**
 * Rewrite the first two payload bytes of a UDP/IPv4 frame built by
 * frame_build_udp4() so that its UDP checksum, still correct (RFC 768),
 * has @p low as its second byte (frame offset 41), and 0x5a as its first.
 *
 * @param len   frame length without FCS, bytes; the UDP payload must have
 *              at least 2 bytes (len >= 44)
 * @return      0, or -EINVAL when the payload is shorter
 */
int frame_udp4_steer_cksum(uint8_t *buf, size_t len, uint8_t low);

/** Offset of the IPv4 header in a frame built by frame_build_udp4(), bytes. */
static inline uint8_t *frame_ipv4(uint8_t *buf)
{
	return buf + FRAME_ETH_HLEN;
}

/** Recompute the IPv4 header checksum of @p ip over @p hlen bytes (RFC 791). */
void frame_ipv4_fix_cksum(uint8_t *ip, size_t hlen);

/**
 * Parse "aa:bb:cc:dd:ee:ff".
 * @return 0, or -EINVAL for bad syntax.
 */
int frame_parse_mac(const char *s, uint8_t mac[6]);

/**
 * Parse an IPv4 address "A.B.C.D".
 * @param addr  the address, host byte order
 * @return 0, or -EINVAL
 */
int frame_parse_ip4(const char *s, uint32_t *addr);

/**
 * Parse an IPv4 network "A.B.C.D/N", N in 1..30 (so that it has hosts).
 * @param net   network address, host byte order, host bits cleared
 * @param hosts usable host addresses (2^(32-N) - 2)
 * @return 0, or -EINVAL
 */
int frame_parse_net4(const char *s, uint32_t *net, uint32_t *hosts);

#endif
