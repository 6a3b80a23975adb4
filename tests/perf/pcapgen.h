/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapgen: writes the pcap files that the benchmarks and the drop-reason
 * tests replay. One generator per mode (gen_flows.c, gen_malformed.c); this
 * header holds what they share: the options and the pcap writer.
 */
#ifndef VBRD_PERF_PCAPGEN_H
#define VBRD_PERF_PCAPGEN_H

#include <stddef.h>
#include <stdint.h>

#include <pcap/pcap.h>

struct frame_flow; /* frame.h */

/** Frame-size mix of the flows mode. */
enum pcapgen_size_mode {
	SIZE_FIXED, /* every frame opts.size bytes (incl. FCS) */
	SIZE_IMIX,  /* simple IMIX: 7:4:1 of 64/594/1518-byte frames (incl. FCS) */
};

/** Command-line options, shared by every mode. */
struct pcapgen_opts {
	const char *out;  /* output pcap file */
	uint32_t flows;   /* distinct UDP 5-tuples */
	uint32_t packets; /* frames to write; 0 = 3 per flow */
	enum pcapgen_size_mode size_mode;
	uint32_t size;  /* frame size incl. FCS, bytes, 64..1518 (SIZE_FIXED) */
	uint32_t count; /* malformed: frames per reason */
	uint8_t src_mac[6];
	uint8_t dst_mac[6];          /* the router's MAC on the input port */
	uint32_t src_net, src_hosts; /* host byte order; usable hosts in it */
	uint32_t dst_net, dst_hosts;
	/* vxlan mode */
	uint32_t vni;             /* VXLAN network identifier, 0..2^24-1 */
	uint32_t outer_src;       /* host byte order: the remote tunnel endpoint */
	uint32_t outer_dst;       /* host byte order: the router's tunnel local address */
	uint16_t udp_port;        /* outer UDP destination port */
	uint8_t inner_dst_mac[6]; /* inner destination MAC */
	/* fib mode */
	uint32_t routes;         /* IPv4 routes */
	uint32_t routes6;        /* IPv6 routes */
	const char *routes_conf; /* output: libconfig file with the routes list */
	const char *via;         /* IPv4 gateway of every IPv4 route */
	const char *via6;        /* IPv6 gateway of every IPv6 route */
	/* qos mode */
	uint32_t businesses; /* businesses (qos_sched: pipes) */
	uint32_t queues;     /* queues per business */
	uint32_t sparse;     /* the first this many businesses get one frame per class */
	uint8_t ecn;         /* ECN field of every frame (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE) */
};

/** An open pcap output (Ethernet link type, microsecond timestamps). */
struct pcap_out {
	pcap_t *pcap;
	pcap_dumper_t *dumper;
	uint64_t packets; /* frames written */
	uint64_t usec;    /* timestamp of the next frame, µs */
};

/**
 * Create @p path as a pcap file of Ethernet frames (DLT_EN10MB).
 * @return 0, or -EIO with a message on stderr.
 */
int pcap_out_open(struct pcap_out *o, const char *path);

/**
 * Append one frame. Timestamps advance 1 µs per frame (only the order
 * matters: net_pcap replays at full speed).
 * @param len  bytes of @p frame, without FCS
 */
void pcap_out_write(struct pcap_out *o, const uint8_t *frame, size_t len);

/** Flush and close. @return 0, or -EIO when the flush failed. */
int pcap_out_close(struct pcap_out *o);

/**
 * Size of frame @p p of the file, bytes incl. FCS: opts->size, or the
 * p-th of the IMIX sequence (every 12 frames carry the exact 7:4:1 mix).
 */
uint32_t frame_size_at(const struct pcapgen_opts *opts, uint32_t p);

/**
 * The addresses and ports of flow @p i of the flows mode (also the inner
 * flows of the vxlan mode): source host 1 + i mod the source network's
 * hosts, source port 1024 + i mod 60000, destination host 1 + 7i mod the
 * destination network's hosts, destination port 5000 + i mod 16, TTL 64.
 * Distinct 5-tuples for every i below lcm(60000, source hosts), at least
 * 60000 (gen_flows() refuses more flows than that).
 */
void flow_tuple(const struct pcapgen_opts *opts, uint32_t i, struct frame_flow *f);

/** Whether --flows is 1..lcm(60000, source hosts): flow_tuple() gives that
 * many distinct 5-tuples. @return 0, or -EINVAL with a message on stderr. */
int flows_check(const struct pcapgen_opts *opts);

/** Mode "flows": many UDP flows, fixed size or IMIX. @return 0 or -errno. */
int gen_flows(const struct pcapgen_opts *opts);

/** Mode "fib": a routes file and a pcap of destinations over it. @return 0 or -errno. */
int gen_fib(const struct pcapgen_opts *opts);

/** Mode "malformed": one set of frames per drop reason, plus valid ones. @return 0 or -errno. */
int gen_malformed(const struct pcapgen_opts *opts);

/**
 * Mode "qos": UDP/IPv4 frames over businesses x queues classes, each class
 * told apart by DSCP and destination port (vbrd's classes) and by the
 * fields DPDK's qos_sched reads (IPv4 identification: pipe; second byte of
 * the UDP checksum: queue). @return 0 or -errno.
 */
int gen_qos(const struct pcapgen_opts *opts);

/**
 * Mode "vxlan": the frames of mode "flows" (fixed size), each VXLAN-
 * encapsulated (RFC 7348) in outer Ethernet/IPv4/UDP from opts->outer_src
 * to opts->outer_dst. @return 0 or -errno.
 */
int gen_vxlan(const struct pcapgen_opts *opts);

#endif
