/* Big-endian (network order) 16- and 32-bit numbers in byte buffers: RFB's
 * messages, the recordings' RFB parts, PNG's chunk headers. Pure, any
 * thread. */
#ifndef VNCFB_BE_H
#define VNCFB_BE_H

#include <stdint.h>

static inline uint16_t be16_get(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t be32_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The low 16 bits of v. */
static inline void be16_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void be32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif
