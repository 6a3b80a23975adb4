/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mode "vxlan": the UDP/IPv4 flows of mode "flows", each frame carried in
 * VXLAN (RFC 7348) from one remote tunnel endpoint to the router's tunnel
 * address, for decapsulation benchmarks. The outer UDP source port follows
 * the inner flow (49152 + flow index mod 16384), as RFC 7348 §5 asks of an
 * encapsulator, so the outer packets spread like the inner flows.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "frame.h"
#include "pcapgen.h"

#define VXLAN_SPORT_BASE 49152 /* RFC 7348 §5: dynamic/private port range */

/* Inner source MAC: the remote gateway's (only its presence matters). */
static const uint8_t inner_src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

int gen_vxlan(const struct pcapgen_opts *opts)
{
	uint8_t buf[FRAME_MAX_LEN];
	struct frame_flow inner, outer;
	struct pcap_out out;
	uint32_t packets = opts->packets ? opts->packets : opts->flows * 3;
	size_t inner_len = opts->size - FRAME_FCS_LEN;
	size_t len = FRAME_VXLAN_OUTER_LEN + inner_len;
	uint32_t p;
	int ret;

	if (opts->size_mode != SIZE_FIXED || len > FRAME_MAX_LEN) {
		fprintf(stderr,
			"pcapgen: vxlan: --size must be a fixed inner frame size of "
			"64..%d bytes (the outer frame adds %d)\n",
			FRAME_MAX_LEN + FRAME_FCS_LEN - FRAME_VXLAN_OUTER_LEN,
			FRAME_VXLAN_OUTER_LEN);
		return -EINVAL;
	}
	ret = flows_check(opts);
	if (ret < 0)
		return ret;
	ret = pcap_out_open(&out, opts->out);
	if (ret < 0)
		return ret;
	memcpy(outer.src_mac, opts->src_mac, 6);
	memcpy(outer.dst_mac, opts->dst_mac, 6);
	outer.src_ip = opts->outer_src;
	outer.dst_ip = opts->outer_dst;
	outer.dst_port = opts->udp_port;
	outer.ttl = 64;
	for (p = 0; p < packets; p++) {
		uint32_t i = p % opts->flows;

		flow_tuple(opts, i, &inner);
		memcpy(inner.src_mac, inner_src_mac, 6);
		memcpy(inner.dst_mac, opts->inner_dst_mac, 6);
		ret = frame_build_udp4(buf + FRAME_VXLAN_OUTER_LEN, inner_len, &inner, (uint16_t)p);
		if (ret < 0)
			goto out;
		outer.src_port = (uint16_t)(VXLAN_SPORT_BASE + i % 16384);
		ret = frame_build_vxlan4(buf, inner_len, &outer, opts->vni, (uint16_t)p);
		if (ret < 0)
			goto out;
		pcap_out_write(&out, buf, len);
	}
	fprintf(stderr,
		"pcapgen: %s: %u frames of %zu bytes incl. FCS (inner %u), %u inner flows, "
		"VNI %u\n",
		opts->out, packets, len + FRAME_FCS_LEN, opts->size, opts->flows, opts->vni);
out:
	if (pcap_out_close(&out) < 0 && ret == 0)
		ret = -EIO;
	return ret;
}
