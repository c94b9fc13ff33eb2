/* Reading Linux's PAT memory type list: which caching mode the kernel has
 * given a physical range (see pat.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pat.h"

/* Entries overlapping one range kept at a time for the coverage check
 * (merged when full); a framebuffer has a handful: the driver's mapping,
 * each process's. */
#define MAX_PIECES 256
/* Longer lines are not entries. */
#define MAX_LINE 160

struct piece {
	uint64_t start, end;
};

static const struct {
	const char *name;
	enum memtype_kind kind;
} kinds[] = {
    {"write-back", MEMTYPE_WRITE_BACK},
    {"write-combining", MEMTYPE_WRITE_COMBINING},
    {"write-through", MEMTYPE_WRITE_THROUGH},
    {"write-protected", MEMTYPE_WRITE_PROTECTED},
    {"uncached-minus", MEMTYPE_UNCACHED_MINUS},
    {"uncached", MEMTYPE_UNCACHED},
};

enum memtype_kind pat_kind(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(name, kinds[i].name) == 0)
			return kinds[i].kind;
	return MEMTYPE_UNKNOWN;
}

/* How bad a type is for a write-only framebuffer; a word we do not know
 * ("broken") counts as the worst, so it is the one shown. */
static int badness(enum memtype_kind k)
{
	return k == MEMTYPE_UNKNOWN ? MEMTYPE_UNCACHED + 1 : (int)k;
}

/* One entry line into s, e and type (24 bytes); false for anything else
 * (the header, blank lines). */
static bool parse_entry(const char *line, uint64_t *s, uint64_t *e, char *type)
{
	if (sscanf(line, "PAT: [mem %" SCNx64 "-%" SCNx64 "] %23s", s, e,
		   type) != 3 &&
	    sscanf(line, "%23s @ %" SCNx64 "-%" SCNx64, type, s, e) != 3)
		return false;
	return *e > *s;
}

static const char *next_line(const char *p, const char *stop)
{
	const char *nl = memchr(p, '\n', (size_t)(stop - p));

	return nl ? nl + 1 : stop;
}

/* The line at p without its newline, as a string; false when it does not
 * fit (no entry is that long). */
static bool copy_line(const char *p, const char *stop, char *buf, size_t size)
{
	size_t l = (size_t)(next_line(p, stop) - p);

	if (l && p[l - 1] == '\n')
		l--;
	if (l >= size)
		return false;
	memcpy(buf, p, l);
	buf[l] = '\0';
	return true;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort the pieces and merge those that touch or overlap: n shrinks. */
static void merge(struct piece *p, int *n)
{
	int i, k = 0;

	qsort(p, (size_t)*n, sizeof(*p), cmp_piece);
	for (i = 1; i < *n; i++) {
		if (p[i].start <= p[k].end) {
			if (p[i].end > p[k].end)
				p[k].end = p[i].end;
		} else {
			p[++k] = p[i];
		}
	}
	if (*n)
		*n = k + 1;
}

/* Whether the pieces (clipped to [start, end)) cover all of it. */
static bool covered(struct piece *p, int n, uint64_t start, uint64_t end)
{
	merge(p, &n);
	return n == 1 && p[0].start <= start && p[0].end >= end;
}

int pat_lookup(const char *text, size_t text_len, uint64_t start, uint64_t len,
	       struct memtype *mt)
{
	static const char header[] = "PAT memtype list:";
	struct piece pieces[MAX_PIECES];
	const char *p = text, *stop = text + text_len;
	uint64_t end = start + len;
	int n = 0, entries = 0, worst = -1;
	bool listed = false, header_seen = false;

	memset(mt, 0, sizeof(*mt));
	if (len == 0 || end < start)
		return -EINVAL;
	for (; p < stop; p = next_line(p, stop)) {
		char line[MAX_LINE], type[24];
		uint64_t s, e;
		enum memtype_kind k;

		if (!copy_line(p, stop, line, sizeof(line)))
			continue;
		if (strncmp(line, header, sizeof(header) - 1) == 0) {
			header_seen = true;
			continue;
		}
		if (!parse_entry(line, &s, &e, type))
			continue;
		entries++;
		if (s >= end || e <= start)
			continue;
		k = pat_kind(type);
		if (listed && k != mt->kind)
			mt->mixed = true;
		if (badness(k) > worst) {
			worst = badness(k);
			mt->kind = k;
			snprintf(mt->name, sizeof(mt->name), "%s", type);
		}
		listed = true;
		if (n == MAX_PIECES)
			merge(pieces, &n);
		/* Still full: that many disjoint pieces leave holes, so
		 * the range is listed in part whatever follows. */
		if (n < MAX_PIECES) {
			pieces[n].start = s > start ? s : start;
			pieces[n].end = e < end ? e : end;
			n++;
		}
	}
	if (!header_seen && !entries)
		return -EINVAL;
	if (!listed)
		return -ESRCH;
	mt->partial = !covered(pieces, n, start, end);
	return 0;
}
