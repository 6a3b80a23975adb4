/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: FRR's FPM stream (frr/fpm/fpm_parse.c, fpm_encode.c).
 *
 *   byte 0      mode: even, the rest is a TCP stream of frames as zebra's
 *               connection would carry them; odd, the rest is one frame's
 *               netlink messages, given a right FPM header (so that the
 *               fuzzer spends its time inside the messages)
 *
 * Every frame is a heap buffer of exactly its length (ASan sees an
 * overread). Besides ASan/UBSan errors it traps on a broken contract:
 *   - fpm_frame_len: a length of 4..FPM_FRAME_MAX, a multiple of 4, within
 *     the bytes given; 0 for every shorter prefix of a frame; an error with
 *     a one-line reason;
 *   - fpm_frame_parse: 0, -EBADMSG or -ENOSPC; on error no message and a
 *     one-line reason; on success what fpm_parse.h promises of each kind:
 *     routes IPv4/IPv6, prefix length in range, no host bits, at most
 *     FPM_MAX_PATHS next hops of weight 1..256 and the route's family,
 *     a blackhole or RTA_NH_ID without next hops, an add with a next hop;
 *     next hops with an id, one of group (members not 0, not itself, not
 *     twice), blackhole, or an interface; reasons for ignored and
 *     unsupported messages;
 *   - a frame of routes and next hops only, encoded again
 *     (fpm_frame_encode) and parsed, gives the same messages.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/rtnetlink.h>

#include "frr/fpm/fpm_parse.h"

#define CHECK(c)                                                                                  \
	do {                                                                                      \
		if (!(c)) {                                                                       \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

#define MSGS_MAX 8

static struct fpm_msg msgs[MSGS_MAX], again[MSGS_MAX];

static void check_line(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	CHECK(n > 0 && n < size);
	CHECK(!strchr(s, '\n'));
}

static bool host_bits(const struct cfg_prefix *p)
{
	unsigned int i;

	if (p->addr.family == AF_INET)
		return p->len < 32 && (p->addr.v4 << p->len) != 0;
	for (i = p->len; i < 128; i++)
		if (p->addr.v6[i / 8] & (0x80 >> (i % 8)))
			return true;
	return false;
}

static void check_route(const struct fpm_msg *m)
{
	const struct fpm_route *r = &m->route;
	int family = r->dst.addr.family;
	unsigned int i;

	CHECK(family == AF_INET || family == AF_INET6);
	CHECK(r->dst.len <= (family == AF_INET ? 32 : 128));
	CHECK(!host_bits(&r->dst));
	CHECK(r->nb_nh <= FPM_MAX_PATHS);
	CHECK(r->blackhole ==
	      (r->type == RTN_BLACKHOLE || r->type == RTN_UNREACHABLE || r->type == RTN_PROHIBIT));
	if (r->blackhole || r->nh_id)
		CHECK(r->nb_nh == 0);
	if (r->blackhole)
		CHECK(r->nh_id == 0);
	if (m->kind == FPM_ROUTE_ADD)
		CHECK(r->blackhole || r->type == RTN_UNICAST);
	else
		CHECK(r->blackhole || r->type == RTN_UNICAST || r->type == RTN_UNSPEC);
	if (m->kind == FPM_ROUTE_ADD && !r->blackhole)
		CHECK(r->nh_id || r->nb_nh);
	for (i = 0; i < r->nb_nh; i++) {
		const struct fpm_route_nh *nh = &r->nh[i];

		CHECK(nh->weight >= 1 && nh->weight <= 256);
		CHECK(nh->gw.family == 0 || nh->gw.family == family);
		CHECK(nh->gw.family || nh->ifindex);
	}
}

static void check_nexthop(const struct fpm_msg *m)
{
	const struct fpm_nexthop *nh = &m->nh;
	unsigned int i, j;

	CHECK(nh->id != 0);
	if (m->kind == FPM_NH_DEL)
		return;
	CHECK(nh->nb_group <= FPM_MAX_PATHS);
	if (nh->nb_group) {
		CHECK(!nh->blackhole && !nh->ifindex && !nh->gw.family);
		CHECK(nh->family == AF_UNSPEC);
		for (i = 0; i < nh->nb_group; i++) {
			CHECK(nh->group[i].id != 0 && nh->group[i].id != nh->id);
			CHECK(nh->group[i].weight >= 1 && nh->group[i].weight <= 256);
			for (j = 0; j < i; j++)
				CHECK(nh->group[j].id != nh->group[i].id);
		}
	} else if (nh->blackhole) {
		CHECK(!nh->ifindex && !nh->gw.family);
	} else {
		CHECK(nh->ifindex != 0);
		CHECK(nh->gw.family == 0 || nh->gw.family == nh->family);
	}
}

/* Encode what was parsed and parse it again: the same messages. */
static void check_roundtrip(size_t len, unsigned int nb)
{
	uint8_t *buf = malloc(FPM_FRAME_MAX);
	unsigned int i, nb2 = 0;
	char err[160];
	long elen;

	CHECK(buf != NULL);
	elen = fpm_frame_encode(msgs, nb, buf, FPM_FRAME_MAX);
	/* zebra's layout adds RTA_DST and RTA_PRIORITY where the input had
	 * none (28 bytes a message at most), and drops ignored attributes */
	if (elen == -ENOSPC) {
		CHECK(len + 28 * nb > FPM_FRAME_MAX);
		free(buf);
		return;
	}
	CHECK(elen >= FPM_HDR_LEN && elen <= FPM_FRAME_MAX);
	CHECK(fpm_frame_len(buf, (size_t)elen, NULL, 0) == elen);
	CHECK(fpm_frame_parse(buf, (size_t)elen, again, MSGS_MAX, &nb2, err, sizeof(err)) == 0);
	CHECK(nb2 == nb);
	for (i = 0; i < nb; i++) {
		CHECK(again[i].kind == msgs[i].kind);
		if (msgs[i].kind == FPM_ROUTE_ADD || msgs[i].kind == FPM_ROUTE_DEL)
			CHECK(!memcmp(&again[i].route, &msgs[i].route, sizeof(msgs[i].route)));
		else
			CHECK(!memcmp(&again[i].nh, &msgs[i].nh, sizeof(msgs[i].nh)));
	}
	free(buf);
}

static void parse_frame(const uint8_t *data, size_t len)
{
	uint8_t *frame = malloc(len ? len : 1);
	unsigned int i, nb = 99;
	bool encodable = true;
	char err[160] = "";
	int ret;

	CHECK(frame != NULL);
	memcpy(frame, data, len);
	ret = fpm_frame_parse(frame, len, msgs, MSGS_MAX, &nb, err, sizeof(err));
	CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOSPC);
	if (ret) {
		CHECK(nb == 0);
		check_line(err, sizeof(err));
		free(frame);
		return;
	}
	CHECK(nb <= MSGS_MAX);
	for (i = 0; i < nb; i++) {
		const struct fpm_msg *m = &msgs[i];

		switch (m->kind) {
		case FPM_ROUTE_ADD:
		case FPM_ROUTE_DEL:
			CHECK(m->op == m->kind && !m->why[0]);
			check_route(m);
			break;
		case FPM_NH_ADD:
		case FPM_NH_DEL:
			CHECK(m->op == m->kind && !m->why[0]);
			check_nexthop(m);
			break;
		case FPM_IGNORED:
			CHECK(m->op == FPM_IGNORED);
			check_line(m->why, sizeof(m->why));
			encodable = false;
			break;
		case FPM_UNSUPPORTED:
			CHECK(m->op <= FPM_NH_DEL);
			check_line(m->why, sizeof(m->why));
			encodable = false;
			break;
		default:
			CHECK(0);
		}
	}
	if (encodable)
		check_roundtrip(len, nb);
	free(frame);
}

/* Mode even: cut frames out of a stream as the server will. */
static void stream(const uint8_t *data, size_t size)
{
	char err[160];
	long len;

	while (size > 0) {
		err[0] = 0;
		len = fpm_frame_len(data, size, err, sizeof(err));
		if (len < 0) {
			CHECK(len == -EBADMSG);
			check_line(err, sizeof(err));
			return;
		}
		if (len == 0) {
			CHECK(size < FPM_HDR_LEN || size < (size_t)(data[2] << 8 | data[3]));
			return;
		}
		CHECK(len >= FPM_HDR_LEN && len <= FPM_FRAME_MAX && len % 4 == 0);
		CHECK((size_t)len <= size);
		/* the same frame arriving in pieces: "need more" until whole */
		CHECK(fpm_frame_len(data, (size_t)len - 1, NULL, 0) == 0);
		CHECK(fpm_frame_len(data, 3, NULL, 0) == 0);
		parse_frame(data, (size_t)len);
		data += len;
		size -= (size_t)len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *frame;
	size_t len;

	if (size < 1)
		return 0;
	if (!(data[0] & 1)) {
		stream(data + 1, size - 1);
		return 0;
	}
	/* Mode odd: one frame around the rest, zero-padded to a multiple of 4 */
	len = size - 1;
	if (len > FPM_FRAME_MAX - FPM_HDR_LEN)
		len = FPM_FRAME_MAX - FPM_HDR_LEN;
	len = FPM_HDR_LEN + ((len + 3) & ~(size_t)3);
	frame = calloc(1, len);
	CHECK(frame != NULL);
	frame[0] = FPM_VERSION;
	frame[1] = FPM_MSG_TYPE_NETLINK;
	frame[2] = (uint8_t)(len >> 8);
	frame[3] = (uint8_t)len;
	memcpy(frame + FPM_HDR_LEN, data + 1, size - 1 < len - 4 ? size - 1 : len - 4);
	CHECK(fpm_frame_len(frame, len, NULL, 0) == (long)len);
	parse_frame(frame, len);
	free(frame);
	return 0;
}
