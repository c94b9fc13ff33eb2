/* Buffers that a hostile server's data is decoded into (the shadow, the
 * wire's mirror, the decoders' scratch, the cursor's buffers). Built with
 * -Dguard_pages=true (VNCFB_GUARD_PAGES, for tests and fuzzing), each is
 * mapped on pages of its own, its last byte right before a PROT_NONE
 * page, so that a write past its end by code no sanitizer instruments
 * (libswscale, libjpeg-turbo, zlib, ISA-L, LZO) faults at once, where it
 * happens. Otherwise these are calloc, realloc and free.
 *
 * A guarded buffer starts where its size puts it (its alignment is its
 * size's: a multiple of 4 bytes is 4-aligned), and costs two pages or
 * more: for tests, not for production.
 *
 * Threads: any; a buffer is its owner's. */
#ifndef VNCFB_GUARDMEM_H
#define VNCFB_GUARDMEM_H

#include <stdbool.h>
#include <stddef.h>

/* n zeroed bytes (n 0: one), or NULL. */
void *guard_calloc(size_t n);
/* p (NULL: none) resized to n bytes, the first min(old, n) kept, the
 * rest undefined; NULL (p untouched) when out of memory. */
void *guard_realloc(void *p, size_t n);
void guard_free(void *p);
/* Whether this build puts guard pages after the buffers. */
bool guard_pages(void);

#endif
