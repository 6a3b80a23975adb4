/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapgen: command line and defaults. Usage in tests/perf/README.md.
 *
 *   pcapgen flows OUT.pcap [--flows N] [--size 64..1518|imix] [--packets N]
 *   pcapgen malformed OUT.pcap [--count K]
 *   pcapgen vxlan OUT.pcap --vni N --outer-src A --outer-dst B [--udp-port P]
 *                          [--inner-dst-mac M] [--flows N] [--size 64..1468] [--packets N]
 *   pcapgen fib OUT.pcap --conf ROUTES.conf [--routes N] [--routes6 N] [--via A]
 *                        [--via6 A] [--size 64..1518] [--packets N]
 *   pcapgen qos OUT.pcap [--businesses B] [--queues Q] [--sparse S] [--flows N]
 *                        [--size 64..1518|imix] [--packets N]
 *   common: [--src-mac M] [--dst-mac M] [--src-net A/N] [--dst-net A/N]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "pcapgen.h"

/*
 * Default destinations: 198.18.1.0/24 (RFC 2544 benchmarking space). DPDK
 * l3fwd's built-in LPM table sends 198.18.N.0/24 to port N, and in the
 * bench port 1 is the null sink (see bench.sh), so l3fwd and vbrd forward
 * the same frames to the same place.
 */
#define DEFAULT_DST_NET "198.18.1.0/24"
#define DEFAULT_SRC_NET "10.0.0.0/16"
#define DEFAULT_SRC_MAC "02:00:00:00:00:01"
/* DPDK net_pcap gives its first port the fixed MAC 02:70:63:61:70:00 ("\x02pcap\0"),
 * and the bench replays into that port. */
#define DEFAULT_DST_MAC "02:70:63:61:70:00"
/* vbrd's default inner MAC of a tunnel interface (conf/README.md). */
#define DEFAULT_INNER_DST_MAC "02:00:00:00:00:01"
/* The gateway of the bench's "out" interface (bench.sh). */
#define DEFAULT_VIA "10.1.0.2"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pcapgen flows OUT.pcap [--flows N] [--size 64..1518|imix] [--packets N]\n"
		"       pcapgen malformed OUT.pcap [--count K]\n"
		"       pcapgen vxlan OUT.pcap --vni N --outer-src A --outer-dst B [--udp-port P]\n"
		"                         [--inner-dst-mac M] [--flows N] [--size 64..1468] "
		"[--packets N]\n"
		"       pcapgen fib OUT.pcap --conf ROUTES.conf [--routes N] [--routes6 N] [--via "
		"A]\n"
		"                         [--via6 A] [--size 64..1518] [--packets N]\n"
		"       pcapgen qos OUT.pcap [--businesses B] [--queues Q] [--sparse S] [--flows "
		"N]\n"
		"                         [--size 64..1518|imix] [--packets N] [--ecn "
		"not-ect|ect0|ect1|ce]\n"
		"common options:\n"
		"  --src-mac M    source MAC (default " DEFAULT_SRC_MAC ")\n"
		"  --dst-mac M    destination MAC: the router's input port "
		"(default " DEFAULT_DST_MAC ")\n"
		"  --src-net A/N  source addresses (default " DEFAULT_SRC_NET ")\n"
		"  --dst-net A/N  destination addresses (default " DEFAULT_DST_NET ")\n"
		"flows: --flows distinct UDP 5-tuples (default 1000), --size frame size incl.\n"
		"  FCS in bytes or 'imix' (7:4:1 of 64/594/1518; default 64), --packets\n"
		"  frames in the file (default 3 per flow)\n"
		"malformed: --count frames per drop reason (default 5); prints 'REASON COUNT'\n"
		"  lines for truncated, bad_ihl, bad_version, bad_checksum, bad_length, valid\n"
		"vxlan: the frames of 'flows' (--size is the inner frame size) in VXLAN from\n"
		"  --outer-src to --outer-dst (IPv4), UDP port --udp-port (default 4789), VNI\n"
		"  --vni; --src-mac/--dst-mac are the outer MACs, --src-net/--dst-net the\n"
		"  inner addresses, --inner-dst-mac the inner destination MAC (default\n"
		"  " DEFAULT_INNER_DST_MAC ")\n"
		"fib: writes to --conf a libconfig 'routes' list of --routes IPv4 routes\n"
		"  (default 1000000; BGP-like lengths /8../32, mostly /24, 10 %% longer)\n"
		"  via --via (default " DEFAULT_VIA ") and --routes6 IPv6 routes (default 0;\n"
		"  /16../64, mostly /48) via --via6, and to OUT.pcap --packets frames\n"
		"  (default 8192), one per destination, spread evenly over the IPv4 routes\n"
		"qos: B (default 16) x Q (default 4) classes, class c = business c / Q, queue\n"
		"  c mod Q: DSCP c mod 64, destination port 5000 + c / 64 (vbrd's classes),\n"
		"  IPv4 ID = business, UDP checksum's 2nd byte = queue (qos_sched's pipe and\n"
		"  queue); the classes of the first S businesses (default 0) get one frame\n"
		"  each, the other frames go round-robin over the rest; --packets default\n"
		"  3 per class; --ecn: the ECN field of every frame (default not-ect)\n");
}

/* --ecn's codepoint names (RFC 3168 §5) into the field's value. */
static int parse_ecn(const char *s, uint8_t *out)
{
	static const char *const names[] = { "not-ect", "ect1", "ect0", "ce" };

	for (uint8_t i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	fprintf(stderr, "pcapgen: --ecn must be not-ect, ect0, ect1 or ce\n");
	return -EINVAL;
}

static int parse_u32(const char *s, const char *what, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max) {
		fprintf(stderr, "pcapgen: %s: '%s' is not a number in %u..%u\n", what, s, min, max);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_size(const char *s, struct pcapgen_opts *o)
{
	if (strcmp(s, "imix") == 0) {
		o->size_mode = SIZE_IMIX;
		return 0;
	}
	o->size_mode = SIZE_FIXED;
	return parse_u32(s, "--size", FRAME_MIN_LEN + FRAME_FCS_LEN, FRAME_MAX_LEN + FRAME_FCS_LEN,
			 &o->size);
}

static int parse_ip4(const char *s, const char *what, uint32_t *out)
{
	if (frame_parse_ip4(s, out) < 0) {
		fprintf(stderr, "pcapgen: %s: '%s' is not an IPv4 address A.B.C.D\n", what, s);
		return -EINVAL;
	}
	return 0;
}

/* Options of the vxlan mode that have no default. */
#define GIVEN_VNI       0x1
#define GIVEN_OUTER_SRC 0x2
#define GIVEN_OUTER_DST 0x4
#define GIVEN_VXLAN_ALL 0x7

static int parse_opts(int argc, char **argv, const char *mode, struct pcapgen_opts *o)
{
	static const struct option longopts[] = {
		{ "flows", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "packets", required_argument, NULL, 'n' },
		{ "count", required_argument, NULL, 'c' },
		{ "src-mac", required_argument, NULL, 'M' },
		{ "dst-mac", required_argument, NULL, 'D' },
		{ "src-net", required_argument, NULL, 'S' },
		{ "dst-net", required_argument, NULL, 'N' },
		{ "vni", required_argument, NULL, 'V' },
		{ "outer-src", required_argument, NULL, 'O' },
		{ "outer-dst", required_argument, NULL, 'T' },
		{ "udp-port", required_argument, NULL, 'P' },
		{ "inner-dst-mac", required_argument, NULL, 'I' },
		{ "routes", required_argument, NULL, 'R' },
		{ "routes6", required_argument, NULL, '6' },
		{ "conf", required_argument, NULL, 'C' },
		{ "via", required_argument, NULL, 'G' },
		{ "via6", required_argument, NULL, 'g' },
		{ "businesses", required_argument, NULL, 'B' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "sparse", required_argument, NULL, 'p' },
		{ "ecn", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *src_mac = DEFAULT_SRC_MAC, *dst_mac = DEFAULT_DST_MAC;
	const char *src_net = DEFAULT_SRC_NET, *dst_net = DEFAULT_DST_NET;
	const char *inner_dst_mac = DEFAULT_INNER_DST_MAC;
	uint32_t port = FRAME_VXLAN_PORT;
	unsigned int given = 0;
	int c, ret = 0;

	o->flows = 1000;
	o->size_mode = SIZE_FIXED;
	o->size = 64;
	o->count = 5;
	o->routes = 1000000;
	o->via = DEFAULT_VIA;
	o->businesses = 16;
	o->queues = 4;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			ret = parse_u32(optarg, "--flows", 1, 10000000, &o->flows);
			break;
		case 's':
			ret = parse_size(optarg, o);
			break;
		case 'n':
			ret = parse_u32(optarg, "--packets", 1, 10000000, &o->packets);
			break;
		case 'c':
			ret = parse_u32(optarg, "--count", 1, 60000, &o->count);
			break;
		case 'M':
			src_mac = optarg;
			break;
		case 'D':
			dst_mac = optarg;
			break;
		case 'S':
			src_net = optarg;
			break;
		case 'N':
			dst_net = optarg;
			break;
		case 'V':
			ret = parse_u32(optarg, "--vni", 0, 0xffffff, &o->vni);
			given |= GIVEN_VNI;
			break;
		case 'O':
			ret = parse_ip4(optarg, "--outer-src", &o->outer_src);
			given |= GIVEN_OUTER_SRC;
			break;
		case 'T':
			ret = parse_ip4(optarg, "--outer-dst", &o->outer_dst);
			given |= GIVEN_OUTER_DST;
			break;
		case 'P':
			ret = parse_u32(optarg, "--udp-port", 1, 65535, &port);
			break;
		case 'I':
			inner_dst_mac = optarg;
			break;
		case 'R':
			ret = parse_u32(optarg, "--routes", 1, 10000000, &o->routes);
			break;
		case '6':
			ret = parse_u32(optarg, "--routes6", 0, 10000000, &o->routes6);
			break;
		case 'C':
			o->routes_conf = optarg;
			break;
		case 'G':
			o->via = optarg;
			break;
		case 'g':
			o->via6 = optarg;
			break;
		case 'B':
			/* qos_sched's pipe: 12 bits of the IPv4 identification */
			ret = parse_u32(optarg, "--businesses", 1, 4096, &o->businesses);
			break;
		case 'Q':
			/* rte_sched: 16 queues per pipe */
			ret = parse_u32(optarg, "--queues", 1, 16, &o->queues);
			break;
		case 'p':
			ret = parse_u32(optarg, "--sparse", 0, 4095, &o->sparse);
			break;
		case 'e':
			ret = parse_ecn(optarg, &o->ecn);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -EINVAL;
		}
		if (ret < 0)
			return ret;
	}
	o->udp_port = (uint16_t)port;
	if (strcmp(mode, "qos") == 0 && o->businesses * o->queues > 4096) {
		/* vbrd's QOS_MAX_CLASSES */
		fprintf(stderr, "pcapgen: qos: --businesses x --queues must be at most 4096\n");
		return -EINVAL;
	}
	if (strcmp(mode, "vxlan") == 0 && given != GIVEN_VXLAN_ALL) {
		fprintf(stderr, "pcapgen: vxlan needs --vni, --outer-src and --outer-dst\n");
		return -EINVAL;
	}
	if (frame_parse_mac(src_mac, o->src_mac) < 0 || frame_parse_mac(dst_mac, o->dst_mac) < 0 ||
	    frame_parse_mac(inner_dst_mac, o->inner_dst_mac) < 0) {
		fprintf(stderr, "pcapgen: a MAC address is not aa:bb:cc:dd:ee:ff\n");
		return -EINVAL;
	}
	if (frame_parse_net4(src_net, &o->src_net, &o->src_hosts) < 0 ||
	    frame_parse_net4(dst_net, &o->dst_net, &o->dst_hosts) < 0) {
		fprintf(stderr, "pcapgen: a network is not A.B.C.D/N with N in 1..30\n");
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pcapgen_opts o = { 0 };
	const char *mode;
	int ret;

	if (argc < 3 || argv[1][0] == '-') {
		usage(stderr);
		return 2;
	}
	mode = argv[1];
	/* getopt_long() sees the words after MODE (and permutes them): OUT is
	 * the one non-option word left. */
	if (parse_opts(argc - 1, argv + 1, mode, &o) < 0 || optind != argc - 2) {
		usage(stderr);
		return 2;
	}
	o.out = argv[1 + optind];
	if (strcmp(mode, "flows") == 0)
		ret = gen_flows(&o);
	else if (strcmp(mode, "malformed") == 0)
		ret = gen_malformed(&o);
	else if (strcmp(mode, "vxlan") == 0)
		ret = gen_vxlan(&o);
	else if (strcmp(mode, "fib") == 0)
		ret = gen_fib(&o);
	else if (strcmp(mode, "qos") == 0)
		ret = gen_qos(&o);
	else {
		fprintf(stderr, "pcapgen: unknown mode '%s'\n", mode);
		usage(stderr);
		return 2;
	}
	return ret < 0 ? 1 : 0;
}
