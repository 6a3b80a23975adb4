/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mode "flows": UDP/IPv4 traffic of many distinct 5-tuples, for throughput
 * benchmarks. Frames are written round-robin over the flows, so that any
 * window of the file touches many flows (no flow-cache best case).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "frame.h"
#include "pcapgen.h"

/*
 * Simple IMIX (as used by traffic generators such as TRex): 7 x 64, 4 x 594,
 * 1 x 1518-byte frames, incl. FCS. Interleaved so that every 12 frames carry
 * the exact 7:4:1 mix.
 */
static const uint16_t imix_sizes[12] = {
	64, 594, 64, 64, 594, 64, 1518, 64, 594, 64, 64, 594,
};

uint32_t frame_size_at(const struct pcapgen_opts *opts, uint32_t p)
{
	return opts->size_mode == SIZE_IMIX ? imix_sizes[p % 12] : opts->size;
}

void flow_tuple(const struct pcapgen_opts *opts, uint32_t i, struct frame_flow *f)
{
	memcpy(f->src_mac, opts->src_mac, 6);
	memcpy(f->dst_mac, opts->dst_mac, 6);
	/* Hosts 1..N of each network; the source port alone keeps flows apart. */
	f->src_ip = opts->src_net + 1 + (i % opts->src_hosts);
	f->dst_ip = opts->dst_net + 1 + ((i * 7u) % opts->dst_hosts);
	f->src_port = (uint16_t)(1024 + i % 60000);
	f->dst_port = (uint16_t)(5000 + i % 16);
	f->ttl = 64;
}

int flows_check(const struct pcapgen_opts *opts)
{
	/* flow_tuple() repeats after lcm(60000 source ports, source hosts) */
	uint64_t a = 60000, b = opts->src_hosts, lcm;

	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	lcm = 60000ull * opts->src_hosts / a;
	if (opts->flows == 0 || opts->flows > lcm) {
		fprintf(stderr,
			"pcapgen: --flows must be 1..%llu with this --src-net (distinct "
			"5-tuples)\n",
			(unsigned long long)lcm);
		return -EINVAL;
	}
	return 0;
}

int gen_flows(const struct pcapgen_opts *opts)
{
	uint8_t buf[FRAME_MAX_LEN];
	struct frame_flow f;
	struct pcap_out out;
	uint32_t packets = opts->packets ? opts->packets : opts->flows * 3;
	uint64_t bytes = 0;
	uint32_t p;
	int ret;

	ret = flows_check(opts);
	if (ret < 0)
		return ret;
	ret = pcap_out_open(&out, opts->out);
	if (ret < 0)
		return ret;
	for (p = 0; p < packets; p++) {
		uint32_t size = frame_size_at(opts, p);
		size_t len = size - FRAME_FCS_LEN;

		flow_tuple(opts, p % opts->flows, &f);
		ret = frame_build_udp4(buf, len, &f, (uint16_t)p);
		if (ret < 0)
			goto out;
		pcap_out_write(&out, buf, len);
		bytes += size;
	}
	fprintf(stderr, "pcapgen: %s: %u frames, %u flows, %.1f bytes/frame average incl. FCS\n",
		opts->out, packets, opts->flows, packets ? (double)bytes / packets : 0.0);
out:
	if (pcap_out_close(&out) < 0 && ret == 0)
		ret = -EIO;
	return ret;
}
