/* Streaming (non-temporal) stores of whole 64-byte cache lines: the line
 * goes to memory without being read first (no read-for-ownership) and
 * without taking the place of what the cache holds. For memory written
 * whole and read by someone else later: the mapping (output.c), the
 * shadow's hextile tiles (dec_basic.c). stream_fence orders them before
 * anything the caller then tells another thread. x86 (SSE2, baseline on
 * x86-64) only; elsewhere STREAM_LINES is 0 and the caller copies.
 *
 * Threads: plain functions, any thread. */
#ifndef VNCFB_STREAM_H
#define VNCFB_STREAM_H

#include <stdint.h>

#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
#include <emmintrin.h>

#define STREAM_LINES 1

/* One line from src (any alignment) to dst (16-byte aligned). */
static inline void stream_line(uint8_t *dst, const uint8_t *src)
{
	__m128i a = _mm_loadu_si128((const __m128i *)src);
	__m128i b = _mm_loadu_si128((const __m128i *)(src + 16));
	__m128i c = _mm_loadu_si128((const __m128i *)(src + 32));
	__m128i d = _mm_loadu_si128((const __m128i *)(src + 48));

	_mm_stream_si128((__m128i *)dst, a);
	_mm_stream_si128((__m128i *)(dst + 16), b);
	_mm_stream_si128((__m128i *)(dst + 32), c);
	_mm_stream_si128((__m128i *)(dst + 48), d);
}

static inline void stream_fence(void)
{
	_mm_sfence();
}
#else
#include <string.h>

#define STREAM_LINES 0

static inline void stream_line(uint8_t *dst, const uint8_t *src)
{
	memcpy(dst, src, 64);
}

static inline void stream_fence(void)
{
}
#endif

#endif
