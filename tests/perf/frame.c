/* SPDX-License-Identifier: BSD-3-Clause */
/* Ethernet/IPv4/UDP frame building for pcapgen; see frame.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

uint16_t frame_cksum(const void *data, size_t len, uint32_t seed)
{
	const uint8_t *p = data;
	uint32_t sum = seed;

	/* RFC 1071 §4.1: sum big-endian 16-bit words, fold the carries. */
	for (; len > 1; len -= 2, p += 2)
		sum += (uint32_t)p[0] << 8 | p[1];
	if (len)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	/* Returned in network byte order, as it is stored in the header. */
	return htons((uint16_t)~sum);
}

void frame_ipv4_fix_cksum(uint8_t *ip, size_t hlen)
{
	uint16_t c;

	ip[10] = ip[11] = 0;
	c = frame_cksum(ip, hlen, 0);
	memcpy(ip + 10, &c, 2);
}

int frame_build_udp4(uint8_t *buf, size_t len, const struct frame_flow *f, uint16_t id)
{
	const size_t hdrs = FRAME_ETH_HLEN + FRAME_IPV4_HLEN + FRAME_UDP_HLEN;
	uint8_t *ip = buf + FRAME_ETH_HLEN;
	uint8_t *udp = ip + FRAME_IPV4_HLEN;
	size_t ip_len, udp_len, i;
	uint32_t pseudo;
	uint16_t c;

	if (len < hdrs || len > FRAME_MAX_LEN)
		return -EINVAL;
	ip_len = len - FRAME_ETH_HLEN;
	udp_len = ip_len - FRAME_IPV4_HLEN;

	memcpy(buf, f->dst_mac, 6);
	memcpy(buf + 6, f->src_mac, 6);
	put16(buf + 12, FRAME_ETHERTYPE_IPV4);

	/* RFC 791 §3.1: version 4, IHL 5 words, no TOS, no fragmentation. */
	ip[0] = 0x45;
	ip[1] = 0;
	put16(ip + 2, (uint16_t)ip_len);
	put16(ip + 4, id);
	put16(ip + 6, 0);
	ip[8] = f->ttl;
	ip[9] = FRAME_PROTO_UDP;
	put32(ip + 12, f->src_ip);
	put32(ip + 16, f->dst_ip);
	frame_ipv4_fix_cksum(ip, FRAME_IPV4_HLEN);

	put16(udp, f->src_port);
	put16(udp + 2, f->dst_port);
	put16(udp + 4, (uint16_t)udp_len);
	put16(udp + 6, 0);
	for (i = FRAME_UDP_HLEN; i < udp_len; i++)
		udp[i] = (uint8_t)i;

	/* RFC 768: the checksum covers a pseudo-header of addresses, protocol
	 * and UDP length; a computed 0 is sent as 0xffff. */
	pseudo = (f->src_ip >> 16) + (f->src_ip & 0xffff) + (f->dst_ip >> 16) +
		 (f->dst_ip & 0xffff) + FRAME_PROTO_UDP + (uint32_t)udp_len;
	c = frame_cksum(udp, udp_len, pseudo);
	if (c == 0)
		c = 0xffff;
	memcpy(udp + 6, &c, 2);
	return 0;
}

int frame_build_vxlan4(uint8_t *buf, size_t inner_len, const struct frame_flow *outer, uint32_t vni,
		       uint16_t id)
{
	uint8_t *ip = buf + FRAME_ETH_HLEN;
	uint8_t *udp = ip + FRAME_IPV4_HLEN;
	uint8_t *vx = udp + FRAME_UDP_HLEN;
	size_t udp_len = FRAME_UDP_HLEN + FRAME_VXLAN_HLEN + inner_len;

	if (inner_len < FRAME_ETH_HLEN || FRAME_VXLAN_OUTER_LEN + inner_len > FRAME_MAX_LEN ||
	    vni > 0xffffff)
		return -EINVAL;

	memcpy(buf, outer->dst_mac, 6);
	memcpy(buf + 6, outer->src_mac, 6);
	put16(buf + 12, FRAME_ETHERTYPE_IPV4);

	/* RFC 791 §3.1, as in frame_build_udp4() */
	ip[0] = 0x45;
	ip[1] = 0;
	put16(ip + 2, (uint16_t)(FRAME_IPV4_HLEN + udp_len));
	put16(ip + 4, id);
	put16(ip + 6, 0);
	ip[8] = outer->ttl;
	ip[9] = FRAME_PROTO_UDP;
	put32(ip + 12, outer->src_ip);
	put32(ip + 16, outer->dst_ip);
	frame_ipv4_fix_cksum(ip, FRAME_IPV4_HLEN);

	put16(udp, outer->src_port);
	put16(udp + 2, outer->dst_port);
	put16(udp + 4, (uint16_t)udp_len);
	put16(udp + 6, 0); /* no checksum (RFC 7348 §5) */

	/* RFC 7348 §5: flags 0x08 (I: VNI valid), 24 reserved bits, VNI, 8 reserved bits. */
	put32(vx, 0x08000000u);
	put32(vx + 4, vni << 8);
	return 0;
}

int frame_parse_ip4(const char *s, uint32_t *addr)
{
	struct in_addr in;

	if (inet_pton(AF_INET, s, &in) != 1)
		return -EINVAL;
	*addr = ntohl(in.s_addr);
	return 0;
}

int frame_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -EINVAL;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

int frame_parse_net4(const char *s, uint32_t *net, uint32_t *hosts)
{
	char addr[INET_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	struct in_addr in;
	char *end;
	long len;
	uint32_t mask;

	if (!slash || (size_t)(slash - s) >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, s, slash - s);
	addr[slash - s] = '\0';
	if (inet_pton(AF_INET, addr, &in) != 1)
		return -EINVAL;
	len = strtol(slash + 1, &end, 10);
	if (*end || end == slash + 1 || len < 1 || len > 30)
		return -EINVAL;
	mask = ~0u << (32 - len);
	*net = ntohl(in.s_addr) & mask;
	*hosts = (~mask) - 1;
	return 0;
}

void frame_udp4_set_dscp(uint8_t *buf, uint8_t dscp)
{
	uint8_t *ip = buf + FRAME_ETH_HLEN;

	ip[1] = (uint8_t)(dscp << 2);
	frame_ipv4_fix_cksum(ip, FRAME_IPV4_HLEN);
}

/* One's complement sum of big-endian 16-bit words, folded (RFC 1071 §4.1). */
static uint16_t ones_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;

	return (uint16_t)((s & 0xffff) + (s >> 16));
}

int frame_udp4_steer_cksum(uint8_t *buf, size_t len, uint8_t low)
{
	const size_t hdrs = FRAME_ETH_HLEN + FRAME_IPV4_HLEN + FRAME_UDP_HLEN;
	uint8_t *ip = buf + FRAME_ETH_HLEN;
	uint8_t *udp = ip + FRAME_IPV4_HLEN;
	uint16_t udp_len, want, sum, word, c;
	uint32_t src, dst, pseudo;

	if (len < hdrs + 2 || len > FRAME_MAX_LEN)
		return -EINVAL;
	udp_len = (uint16_t)(len - FRAME_ETH_HLEN - FRAME_IPV4_HLEN);
	src = (uint32_t)ip[12] << 24 | ip[13] << 16 | ip[14] << 8 | ip[15];
	dst = (uint32_t)ip[16] << 24 | ip[17] << 16 | ip[18] << 8 | ip[19];
	pseudo = (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff) + FRAME_PROTO_UDP +
		 udp_len;
	/* The sum without the checksum and the payload word, then the word
	 * that makes the sum ~want: the checksum is the complement of the
	 * sum (RFC 768), and one's complement subtraction adds the complement.
	 * 0x5a00 | low is neither 0 nor 0xffff, the two forms of zero. */
	want = (uint16_t)(0x5a00 | low);
	udp[6] = udp[7] = udp[8] = udp[9] = 0;
	sum = (uint16_t)~ntohs(frame_cksum(udp, udp_len, pseudo));
	word = ones_add((uint16_t)~want, (uint16_t)~sum);
	put16(udp + 8, word);
	c = frame_cksum(udp, udp_len, pseudo);
	if (ntohs(c) != want)
		return -EINVAL; /* cannot happen: the arithmetic above is exact */
	memcpy(udp + 6, &c, 2);
	return 0;
}
