/* LD_PRELOAD shim for the mapping trace test (maptrace.py): every heap
 * allocation of at least $VNCFB_BIGALLOC_MIN bytes is announced with a
 * write(2) to fd -1 that fails at once but shows in a syscall trace, in
 * order with the mmap and munmap calls around it:
 *
 *   write(-1, "VNCFB_BIGALLOC malloc 3145728\n", 30) = -1 EBADF
 *
 * glibc serves big blocks from its heap once its mmap threshold has grown,
 * so the trace alone would miss a buffer allocated and freed per update.
 * The real allocator is glibc's own (__libc_malloc and friends), so the
 * shim needs no dlsym (which itself allocates). glibc only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);

/* 0: not read yet; SIZE_MAX: unset (announce nothing). */
static size_t min_size;

static size_t threshold(void)
{
	const char *v;
	size_t t = 0;

	if (min_size)
		return min_size;
	/* getenv allocates nothing; a race only reads the variable twice. */
	v = getenv("VNCFB_BIGALLOC_MIN");
	for (; v && *v >= '0' && *v <= '9'; v++)
		t = t * 10 + (size_t)(*v - '0');
	min_size = t ? t : SIZE_MAX;
	return min_size;
}

/* No stdio here: it may allocate. */
static void announce(const char *fn, size_t size)
{
	char buf[64], num[24];
	size_t n = 0, k = 0;
	int saved = errno;

	if (size < threshold())
		return;
	do
		num[k++] = (char)('0' + size % 10);
	while ((size /= 10) && k < sizeof(num));
	memcpy(buf, "VNCFB_BIGALLOC ", 15);
	n = 15;
	memcpy(buf + n, fn, strlen(fn));
	n += strlen(fn);
	buf[n++] = ' ';
	while (k)
		buf[n++] = num[--k];
	buf[n++] = '\n';
	if (write(-1, buf, n) < 0)
		errno = saved;
}

void *malloc(size_t size)
{
	announce("malloc", size);
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return __libc_calloc(n, size); /* let glibc fail it */
	announce("calloc", n * size);
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	announce("realloc", size);
	return __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	announce("memalign", size);
	return __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	announce("aligned_alloc", size);
	return __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	announce("posix_memalign", size);
	p = __libc_memalign(align, size);
	if (!p && size)
		return ENOMEM;
	*out = p;
	return 0;
}
