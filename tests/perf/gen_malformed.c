/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mode "malformed": frames that a router must drop by the IPv4 input checks
 * of RFC 1812 §5.2.2 (and RFC 791 §3.1), one group per drop reason, plus
 * valid frames that must be forwarded. Reason names are vbrd's drop-reason
 * counter names (app/README.md), so a test can compare `vbrctl -j show
 * stats` with the counts printed here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "frame.h"
#include "pcapgen.h"

#define MALFORMED_LEN 60 /* bytes without FCS: a minimal 64-byte frame */

/** Turns a valid frame of MALFORMED_LEN bytes into one with a defect; returns the length to write. */
typedef size_t (*spoil_fn)(uint8_t *frame);

/* The frame ends 12 bytes into the 20-byte IPv4 header (a 26-byte runt). */
static size_t spoil_truncated(uint8_t *frame)
{
	(void)frame;
	return FRAME_ETH_HLEN + 12;
}

/* IHL 4 (16 bytes) is below the minimum of 5 words (RFC 1812 §5.2.2 check 4). */
static size_t spoil_bad_ihl(uint8_t *frame)
{
	uint8_t *ip = frame_ipv4(frame);

	ip[0] = 0x44;
	frame_ipv4_fix_cksum(ip, FRAME_IPV4_HLEN);
	return MALFORMED_LEN;
}

/* Version 6 under EtherType 0x0800 (RFC 1812 §5.2.2 check 3). */
static size_t spoil_bad_version(uint8_t *frame)
{
	uint8_t *ip = frame_ipv4(frame);

	ip[0] = 0x65;
	frame_ipv4_fix_cksum(ip, FRAME_IPV4_HLEN);
	return MALFORMED_LEN;
}

/* Header checksum off by a changed bit pattern (RFC 1812 §5.2.2 check 2). */
static size_t spoil_bad_checksum(uint8_t *frame)
{
	uint8_t *ip = frame_ipv4(frame);

	ip[10] ^= 0x5a;
	ip[11] ^= 0xa5;
	return MALFORMED_LEN;
}

/* Total length 100 bytes beyond what the frame carries (RFC 1812 §5.2.2 check 5
 * and RFC 791: the datagram cannot be longer than the link delivered). */
static size_t spoil_bad_length(uint8_t *frame)
{
	uint8_t *ip = frame_ipv4(frame);
	uint16_t tl = MALFORMED_LEN - FRAME_ETH_HLEN + 100;

	ip[2] = tl >> 8;
	ip[3] = tl & 0xff;
	frame_ipv4_fix_cksum(ip, FRAME_IPV4_HLEN);
	return MALFORMED_LEN;
}

static size_t spoil_none(uint8_t *frame)
{
	(void)frame;
	return MALFORMED_LEN;
}

static const struct {
	const char *reason; /* vbrd drop-reason name, or "valid" */
	spoil_fn spoil;
} groups[] = {
	{ "truncated", spoil_truncated },     { "bad_ihl", spoil_bad_ihl },
	{ "bad_version", spoil_bad_version }, { "bad_checksum", spoil_bad_checksum },
	{ "bad_length", spoil_bad_length },   { "valid", spoil_none },
};

int gen_malformed(const struct pcapgen_opts *opts)
{
	const size_t n_groups = sizeof(groups) / sizeof(groups[0]);
	uint8_t buf[FRAME_MAX_LEN];
	struct pcap_out out;
	struct frame_flow f = { .ttl = 64, .dst_port = 5000 };
	uint32_t seq = 0, k;
	size_t g;
	int ret;

	memcpy(f.src_mac, opts->src_mac, 6);
	memcpy(f.dst_mac, opts->dst_mac, 6);
	ret = pcap_out_open(&out, opts->out);
	if (ret < 0)
		return ret;
	for (g = 0; g < n_groups; g++) {
		for (k = 0; k < opts->count; k++, seq++) {
			f.src_ip = opts->src_net + 1 + (seq % opts->src_hosts);
			f.dst_ip = opts->dst_net + 1 + (seq % opts->dst_hosts);
			f.src_port = (uint16_t)(1024 + seq);
			ret = frame_build_udp4(buf, MALFORMED_LEN, &f, (uint16_t)seq);
			if (ret < 0)
				goto out;
			pcap_out_write(&out, buf, groups[g].spoil(buf));
		}
		printf("%s %u\n", groups[g].reason, opts->count);
	}
out:
	if (pcap_out_close(&out) < 0 && ret == 0)
		ret = -EIO;
	return ret;
}
