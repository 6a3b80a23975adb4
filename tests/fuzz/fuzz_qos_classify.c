/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: arbitrary bytes as an egress frame through QoS
 * classification's frame code (qos/classify_frame.h), as classify.c calls
 * it: qos_key_build, then the marking (qos_frame_get_dscp,
 * qos_frame_set_dscp, qos_frame_set_pcp). The first 5 input bytes are the
 * ingress port (2), the ingress TCI (2) and the DSCP / PCP to mark (1);
 * the rest is the frame, copied to a buffer of exactly its length, so a
 * read or write past it is an ASan heap overflow.
 *
 * Besides memory errors and undefined behaviour, it traps when:
 *   - the key differs from one built byte by byte by a second, plain
 *     reading of the same rules (ref_key below);
 *   - qos_frame_get_dscp disagrees with the key (IP or not, the DSCP);
 *   - remarking changes anything but the DSCP bits and, for IPv4, the
 *     header checksum; a header checksum that verified before does not
 *     verify after (RFC 1624); the DSCP read back is not the one set;
 *   - setting the PCP changes anything but the tag's 3 priority bits, or
 *     changes an untagged frame;
 *   - marking CE (qos_frame_set_ce) returns other than the ECN field
 *     qos_frame_get_ecn read, changes a Not-ECT, CE or non-IP frame, or
 *     changes an ECT one beyond the ECN bits (to CE) and the IPv4
 *     checksum, which still verifies when it did.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos/classify_frame.h"

#define CHECK(c)                                                                                  \
	do {                                                                                      \
		if (!(c)) {                                                                       \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/*
 * The key as classify_frame.h documents it, one byte at a time: 0, or 4 /
 * 6 with @p k's first 24 / 48 bytes filled (pad bytes 1..3 zero).
 */
static int ref_key(const uint8_t *p, size_t len, uint16_t port, uint16_t tci, uint8_t *k)
{
	size_t l3 = 14, hl, ports_at = 0;
	uint32_t et, proto, tc;
	int fam, l4;

	memset(k, 0, 48);
	if (len < 14)
		return 0;
	et = rd16(p + 12);
	if (et == 0x8100) {
		if (len < 18)
			return 0;
		et = rd16(p + 16);
		l3 = 18;
	}
	if (et == 0x0800) {
		if (len < l3 + 20)
			return 0;
		fam = 4;
		hl = (p[l3] & 0xf) * 4u;
		proto = p[l3 + 9];
		tc = p[l3 + 1];
		l4 = (proto == 6 || proto == 17 || proto == 132) &&
		     (rd16(p + l3 + 6) & 0x1fff) == 0 && hl >= 20 && len >= l3 + hl + 4;
		memcpy(k + 12, p + l3 + 12, 8);
		ports_at = 20;
	} else if (et == 0x86dd) {
		if (len < l3 + 40)
			return 0;
		fam = 6;
		hl = 40;
		proto = p[l3 + 6];
		tc = (p[l3] & 0xf) << 4 | p[l3 + 1] >> 4;
		l4 = (proto == 6 || proto == 17 || proto == 132) && len >= l3 + 44;
		memcpy(k + 12, p + l3 + 8, 32);
		ports_at = 44;
	} else {
		return 0;
	}
	k[0] = (uint8_t)proto;
	k[4] = (uint8_t)(port >> 8);
	k[5] = (uint8_t)port;
	k[6] = (uint8_t)(tci >> 8 & 0x0f);
	k[7] = (uint8_t)tci;
	k[9] = (uint8_t)(tc >> 2);
	k[10] = (uint8_t)l4;
	k[11] = (uint8_t)(tci >> 13);
	if (l4)
		memcpy(k + ports_at, p + l3 + hl, 4);
	return fam;
}

/* RFC 1071 sum of @p len bytes, folded (0xffff when a header verifies). */
static uint32_t sum16(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += rd16(p + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t want[48], got[48];
	union qos_key key;
	uint16_t port, tci;
	uint8_t mark, *f, *orig;
	size_t len, l3 = 14;
	int fam, ref, dscp;

	if (size < 5 || size > 5 + 65535)
		return 0;
	port = (uint16_t)rd16(data);
	tci = (uint16_t)rd16(data + 2);
	mark = data[4];
	len = size - 5;
	f = malloc(len ? len : 1);
	orig = malloc(len ? len : 1);
	CHECK(f != NULL && orig != NULL);
	memcpy(f, data + 5, len);
	memcpy(orig, f, len);

	/* the key */
	fam = qos_key_build(f, (uint32_t)len, port, tci, &key);
	ref = ref_key(f, len, port, tci, want);
	CHECK(fam == ref);
	if (fam != QOS_KEY_NONE) {
		size_t n = fam == QOS_KEY_IPV4 ? sizeof(key.v4) : sizeof(key.v6);

		memcpy(got, &key, n);
		CHECK(memcmp(got, want, n) == 0);
	}
	CHECK(memcmp(f, orig, len) == 0);

	/* reading the DSCP */
	dscp = qos_frame_get_dscp(f, (uint32_t)len);
	CHECK((dscp >= 0) == (fam != QOS_KEY_NONE));
	if (dscp >= 0)
		CHECK(dscp == want[9]);

	/* remarking */
	if (len >= 18 && rd16(f + 12) == 0x8100)
		l3 = 18;
	bool csum_ok = false;
	size_t hl = 0;
	if (fam == QOS_KEY_IPV4) {
		hl = (f[l3] & 0xf) * 4u;
		csum_ok = hl >= 20 && l3 + hl <= len && sum16(f + l3, hl) == 0xffff;
	}
	qos_frame_set_dscp(f, (uint32_t)len, mark);
	for (size_t i = 0; i < len; i++) {
		if (fam == QOS_KEY_IPV4 && (i == l3 + 1 || i == l3 + 10 || i == l3 + 11))
			continue;
		if (fam == QOS_KEY_IPV6 && (i == l3 || i == l3 + 1))
			continue;
		CHECK(f[i] == orig[i]);
	}
	if (fam == QOS_KEY_IPV4) {
		CHECK(f[l3 + 1] == ((mark & 0x3f) << 2 | (orig[l3 + 1] & 3)));
		if (csum_ok)
			CHECK(sum16(f + l3, hl) == 0xffff);
	} else if (fam == QOS_KEY_IPV6) {
		CHECK((f[l3] & 0xf0) == (orig[l3] & 0xf0));         /* version */
		CHECK((f[l3 + 1] & 0x3f) == (orig[l3 + 1] & 0x3f)); /* ECN, flow label */
	}
	if (fam != QOS_KEY_NONE)
		CHECK(qos_frame_get_dscp(f, (uint32_t)len) == (mark & 0x3f));

	/* the PCP */
	memcpy(orig, f, len);
	qos_frame_set_pcp(f, (uint32_t)len, mark >> 5);
	for (size_t i = 0; i < len; i++) {
		if (i == 14 && l3 == 18) {
			CHECK(f[i] == ((mark >> 5) << 5 | (orig[i] & 0x1f)));
			continue;
		}
		CHECK(f[i] == orig[i]);
	}

	/* ECN CE */
	memcpy(orig, f, len);
	int ecn = qos_frame_get_ecn(f, (uint32_t)len);
	CHECK((ecn >= 0) == (fam != QOS_KEY_NONE));
	if (fam == QOS_KEY_IPV4) {
		hl = (f[l3] & 0xf) * 4u;
		csum_ok = hl >= 20 && l3 + hl <= len && sum16(f + l3, hl) == 0xffff;
	}
	CHECK(qos_frame_set_ce(f, (uint32_t)len) == ecn);
	for (size_t i = 0; i < len; i++) {
		if (ecn == QOS_ECN_ECT0 || ecn == QOS_ECN_ECT1) {
			if (i == l3 + 1 || (fam == QOS_KEY_IPV4 && (i == l3 + 10 || i == l3 + 11)))
				continue;
		}
		CHECK(f[i] == orig[i]);
	}
	if (ecn == QOS_ECN_ECT0 || ecn == QOS_ECN_ECT1) {
		CHECK(qos_frame_get_ecn(f, (uint32_t)len) == QOS_ECN_CE);
		if (fam == QOS_KEY_IPV4) {
			CHECK(f[l3 + 1] == (orig[l3 + 1] | 3));
			if (csum_ok)
				CHECK(sum16(f + l3, hl) == 0xffff);
		} else {
			CHECK(f[l3 + 1] == (orig[l3 + 1] | 0x30));
		}
	}

	free(f);
	free(orig);
	return 0;
}
