/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Big-endian (network order) fields read from and written to byte
 * buffers at any alignment: what every parser and builder of a wire
 * format uses (Ethernet/IP/UDP, VXLAN/GENEVE, BFD, STAMP). Byte by byte,
 * so they never make an unaligned load and compile to one load and a
 * bswap where the CPU allows it.
 */
#ifndef VBRD_CORE_BE_H
#define VBRD_CORE_BE_H

#include <stdint.h>

/** The 16-bit big-endian field at @p p. */
static inline uint16_t be16_get(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/** The 32-bit big-endian field at @p p. */
static inline uint32_t be32_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/** The 64-bit big-endian field at @p p. */
static inline uint64_t be64_get(const uint8_t *p)
{
	return (uint64_t)be32_get(p) << 32 | be32_get(p + 4);
}

/** Write @p v at @p p, big-endian. */
static inline void be16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/** Write @p v at @p p, big-endian. */
static inline void be32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/** Write @p v at @p p, big-endian. */
static inline void be64_put(uint8_t *p, uint64_t v)
{
	be32_put(p, (uint32_t)(v >> 32));
	be32_put(p + 4, (uint32_t)v);
}

#endif
