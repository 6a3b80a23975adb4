/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mode "qos": the QoS bench's traffic. Frames of `--businesses` B x
 * `--queues` Q classes; class c = b * Q + q is business b's queue q.
 * Each frame carries its class twice over, so that vbrd and DPDK's
 * qos_sched put it in the same business/pipe and queue:
 *
 *   - for vbrd's classes: DSCP c mod 64 and UDP destination port
 *     5000 + c / 64 (64 classes per port);
 *   - for qos_sched, which reads fixed offsets of the frame meant for
 *     QinQ-tagged ones (app_thread.c, get_pkt_sched): on an untagged
 *     IPv4/UDP frame its "inner VLAN ID" (bytes 18-19, & 0xfff, & pipes - 1)
 *     is the IPv4 identification, set to b: the pipe; its "destination
 *     IP's last byte" (byte 41) is the second byte of the UDP checksum, set
 *     to q by the first two payload bytes, the checksum staying correct:
 *     index q of the queues its profile enables (active_queues[byte 41 mod
 *     their number]). Its "outer VLAN ID" (bytes 14-15: 0x45 and the TOS,
 *     & 0xfff) is the subport: 0 with one subport. Its colour (byte 38 & 3,
 *     the UDP length's first byte) matters only with RED or PIE, which the
 *     bench's profiles do not enable.
 *
 * The classes of the first `--sparse` S businesses get one frame each in
 * the file, spread evenly over it; every other frame goes round-robin over
 * the classes of the other businesses. A scenario that gives those S
 * businesses a tiny rate then has most of its queues backlogged and out of
 * credit while most of the traffic still leaves; the same file with every
 * business unlimited is its unstarved peer.
 *
 * `--ecn` sets every frame's ECN field (default Not-ECT): ECT(0) for the
 * QoS bench's ECN variant. qos_sched reads the TOS as part of its subport
 * (above), masked to 0 with its one subport, so it is unaffected.
 *
 * Sources, source ports and destinations follow flow_tuple() over
 * `--flows` flows (frame p is flow p mod flows), the destination port
 * excepted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "frame.h"
#include "pcapgen.h"

#define QOS_DST_PORT_BASE 5000
#define DSCP_VALUES       64

int gen_qos(const struct pcapgen_opts *opts)
{
	uint8_t buf[FRAME_MAX_LEN];
	struct frame_flow f;
	struct pcap_out out;
	uint32_t classes = opts->businesses * opts->queues;
	uint32_t sparse = opts->sparse * opts->queues; /* classes with one frame */
	uint32_t dense = classes - sparse;
	uint32_t packets = opts->packets ? opts->packets : 3 * classes;
	uint32_t p, nd = 0;
	uint64_t bytes = 0, dense_bytes = 0;
	int ret;

	if (opts->sparse >= opts->businesses) {
		fprintf(stderr, "pcapgen: qos: --sparse must be below --businesses\n");
		return -EINVAL;
	}
	if (packets < sparse + dense) {
		fprintf(stderr, "pcapgen: qos: --packets must be at least %u (a frame per class)\n",
			sparse + dense);
		return -EINVAL;
	}
	ret = flows_check(opts);
	if (ret < 0)
		return ret;
	ret = pcap_out_open(&out, opts->out);
	if (ret < 0)
		return ret;
	for (p = 0; p < packets; p++) {
		uint32_t size = frame_size_at(opts, p);
		size_t len = size - FRAME_FCS_LEN;
		uint32_t c;

		/* Frame p is the j-th sparse one when floor(p * sparse /
		 * packets) steps up after it: sparse frames, evenly spaced. */
		if ((uint64_t)(p + 1) * sparse / packets > (uint64_t)p * sparse / packets) {
			c = (uint32_t)((uint64_t)p * sparse / packets);
		} else {
			c = sparse + nd++ % dense;
			dense_bytes += size;
		}
		flow_tuple(opts, p % opts->flows, &f);
		f.dst_port = (uint16_t)(QOS_DST_PORT_BASE + c / DSCP_VALUES);
		ret = frame_build_udp4(buf, len, &f, (uint16_t)(c / opts->queues));
		if (ret < 0)
			goto out;
		frame_udp4_set_dscp(buf, (uint8_t)(c % DSCP_VALUES));
		if (opts->ecn) {
			/* the TOS's two low bits (RFC 3168 §5) */
			buf[FRAME_ETH_HLEN + 1] |= opts->ecn;
			frame_ipv4_fix_cksum(buf + FRAME_ETH_HLEN, FRAME_IPV4_HLEN);
		}
		ret = frame_udp4_steer_cksum(buf, len, (uint8_t)(c % opts->queues));
		if (ret < 0)
			goto out;
		pcap_out_write(&out, buf, len);
		bytes += size;
	}
	fprintf(stderr,
		"pcapgen: %s: %u frames, %.1f bytes/frame average incl. FCS; %u x %u = %u classes",
		opts->out, packets, (double)bytes / packets, opts->businesses, opts->queues,
		classes);
	if (sparse)
		fprintf(stderr,
			", %u of them (businesses 0..%u) with one frame each, the other %u frames "
			"(%.1f%%, %.1f bytes average) over %u classes",
			sparse, opts->sparse - 1, packets - sparse,
			100.0 * (packets - sparse) / packets,
			(double)dense_bytes / (packets - sparse), dense);
	fputc('\n', stderr);
out:
	if (pcap_out_close(&out) < 0 && ret == 0)
		ret = -EIO;
	return ret;
}
