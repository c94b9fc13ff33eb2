/* A 32-bit integer mixer for deterministic noise: glyphs, positions and
 * colours of the synthetic scenes (the bench server, the test server).
 * Not for anything that must resist an adversary. Pure, any thread. */
#ifndef VNCFB_HASH_H
#define VNCFB_HASH_H

#include <stdint.h>

/* Every input bit reaches every output bit; hash32(0) is 0. */
static inline uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

#endif
