/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Input of decapsulated frames (decap_input.c): the stage tunnel_input.c
 * hands a tunnel's inner frame to, and the worker's burst end drains.
 */
#ifndef VBRD_DECAP_INPUT_H
#define VBRD_DECAP_INPUT_H

#include <stdint.h>

struct worker;
struct fwd_state;
struct rte_mbuf;

/**
 * Input of a frame that came out of tunnel interface @p iface: starts at
 * the inner Ethernet header, is validated and routed like a received one
 * (RFC 7348 §4.1, RFC 8926 §4: the inner frame is forwarded as if it
 * arrived on the tunnel's interface), and never decapsulated again.
 * Counted on @p iface's RX. Takes @p m.
 */
void decap_input(struct worker *w, const struct fwd_state *st, struct rte_mbuf *m, uint16_t iface);

/**
 * Route the decapsulated frames queued in @p w (worker.decap) by
 * decap_input() during this burst. The worker calls it at the burst's
 * end; decap_input() itself before a frame of the general path, so that
 * packets of a tunnel leave in order.
 */
void decap_flush(struct worker *w, const struct fwd_state *st);

#endif
