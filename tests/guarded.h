/* For the C tests of kernels: buffers that end right before a PROT_NONE
 * page, so that a kernel reading or writing past its picture faults at
 * once, and a fixed-seed xorshift for their contents. */
#ifndef VNCFB_TESTS_GUARDED_H
#define VNCFB_TESTS_GUARDED_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static inline uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

struct guarded {
	uint8_t *base;
	size_t len;
	uint8_t *p;	/* n bytes, the last one right before the guard */
};

static inline uint8_t *guarded_alloc(struct guarded *g, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t body = (n + page - 1) / page * page;

	g->len = body + page;
	g->base = mmap(NULL, g->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->base == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	if (mprotect(g->base + body, page, PROT_NONE) < 0) {
		perror("mprotect");
		exit(1);
	}
	g->p = g->base + body - n;
	return g->p;
}

static inline void guarded_free(struct guarded *g)
{
	munmap(g->base, g->len);
}

#endif
