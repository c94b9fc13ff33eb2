/* Guarded buffers (guardmem.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/guardmem.h"

#ifdef VNCFB_GUARD_PAGES
#include <sys/mman.h>
#include <unistd.h>

/* Before each buffer, in its mapping: where the mapping starts, how long
 * it is, and the buffer's size (copied with memcpy: the buffer's start
 * has no alignment to spare). */
struct guard_hdr {
	void *base;
	size_t map, n;
};

bool guard_pages(void)
{
	return true;
}

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

void *guard_calloc(size_t n)
{
	const size_t page = page_size();
	struct guard_hdr h;
	uint8_t *base, *p;
	size_t data;

	if (n == 0)
		n = 1;
	if (n > SIZE_MAX - sizeof(h) - 2 * page)
		return NULL;
	data = (n + sizeof(h) + page - 1) / page * page;
	base = mmap(NULL, data + page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	if (mprotect(base + data, page, PROT_NONE) < 0) {
		munmap(base, data + page);
		return NULL;
	}
	p = base + data - n;
	h = (struct guard_hdr){base, data + page, n};
	memcpy(p - sizeof(h), &h, sizeof(h));
	return p;
}

static struct guard_hdr hdr_of(const void *p)
{
	struct guard_hdr h;

	memcpy(&h, (const uint8_t *)p - sizeof(h), sizeof(h));
	return h;
}

void *guard_realloc(void *p, size_t n)
{
	void *q = guard_calloc(n);
	size_t old;

	if (!q || !p)
		return q;
	old = hdr_of(p).n;
	memcpy(q, p, old < n ? old : n);
	guard_free(p);
	return q;
}

void guard_free(void *p)
{
	struct guard_hdr h;

	if (!p)
		return;
	h = hdr_of(p);
	munmap(h.base, h.map);
}

#else

bool guard_pages(void)
{
	return false;
}

void *guard_calloc(size_t n)
{
	return calloc(1, n ? n : 1);
}

void *guard_realloc(void *p, size_t n)
{
	return realloc(p, n ? n : 1);
}

void guard_free(void *p)
{
	free(p);
}

#endif
