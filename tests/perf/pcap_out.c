/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing Ethernet frames to a pcap file with libpcap; see pcapgen.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pcapgen.h"

#define PCAP_SNAPLEN 65535 /* bytes: never truncate a frame */

int pcap_out_open(struct pcap_out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->pcap = pcap_open_dead(DLT_EN10MB, PCAP_SNAPLEN);
	if (!o->pcap) {
		fprintf(stderr, "pcapgen: pcap_open_dead failed\n");
		return -EIO;
	}
	o->dumper = pcap_dump_open(o->pcap, path);
	if (!o->dumper) {
		fprintf(stderr, "pcapgen: %s: %s\n", path, pcap_geterr(o->pcap));
		pcap_close(o->pcap);
		o->pcap = NULL;
		return -EIO;
	}
	/* A fixed start time keeps output files byte-identical between runs. */
	o->usec = 1700000000ull * 1000000ull;
	return 0;
}

void pcap_out_write(struct pcap_out *o, const uint8_t *frame, size_t len)
{
	struct pcap_pkthdr h = {
		.ts = { .tv_sec = (time_t)(o->usec / 1000000),
			.tv_usec = (suseconds_t)(o->usec % 1000000) },
		.caplen = (bpf_u_int32)len,
		.len = (bpf_u_int32)len,
	};

	pcap_dump((u_char *)o->dumper, &h, frame);
	o->packets++;
	o->usec++;
}

int pcap_out_close(struct pcap_out *o)
{
	int ret = 0;

	if (o->dumper) {
		if (pcap_dump_flush(o->dumper) != 0)
			ret = -EIO;
		pcap_dump_close(o->dumper);
	}
	if (o->pcap)
		pcap_close(o->pcap);
	memset(o, 0, sizeof(*o));
	return ret;
}
