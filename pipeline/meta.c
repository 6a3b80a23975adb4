/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include <rte_errno.h>

#include "pipeline/meta.h"

int pkt_meta_offset = -1;

int pkt_meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "vbrd_pkt_meta",
		.size = sizeof(struct pkt_meta),
		.align = __alignof__(struct pkt_meta),
	};

	pkt_meta_offset = rte_mbuf_dynfield_register(&desc);
	return pkt_meta_offset < 0 ? -rte_errno : 0;
}
