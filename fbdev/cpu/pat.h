/* The x86 PAT memory type list that Linux shows in debugfs
 * (/sys/kernel/debug/x86/pat_memtype_list), read as text. Pure: no Linux
 * headers, so tests/placement runs it on any platform.
 *
 * Threads: any; no state. */
#ifndef VNCFB_PAT_H
#define VNCFB_PAT_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"

/* The memory type of [start, start + len) in the list text (len bytes of
 * it, need not end in NUL): the slowest type of the entries that overlap
 * the range, whether they disagree (mixed) and whether they cover all of
 * it (partial). Both line forms are read: "PAT: [mem 0x...-0x...] TYPE"
 * (Linux 5.6 and later) and "TYPE @ 0x...-0x..." (before); ends are
 * exclusive. 0, -ESRCH when no entry overlaps the range, -EINVAL when the
 * text is not such a list or len is 0. */
int pat_lookup(const char *text, size_t text_len, uint64_t start, uint64_t len,
	       struct memtype *mt);

/* The kind of one of the kernel's type names ("uncached-minus"). */
enum memtype_kind pat_kind(const char *name);

#endif
