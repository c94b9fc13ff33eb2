/* Reading the kernel's PAT memory type list (fbdev/cpu/pat.c) from samples in
 * both of its formats: the one of the Linux 6.1 guest in tests/vm and the
 * one from before Linux 5.6 (as quoted in Linux commit 803a4e14a7dc). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pat.h"
#include "../check.h"

/* The qemu VM's list (vesafb at 0xfd000000, 6 MiB). */
static const char vm_list[] =
    "PAT memtype list:\n"
    "PAT: [mem 0x000000001ffe0000-0x000000001ffe2000] write-back\n"
    "PAT: [mem 0x000000001ffe1000-0x000000001ffe2000] write-back\n"
    "PAT: [mem 0x00000000fd000000-0x00000000fd600000] uncached-minus\n"
    "PAT: [mem 0x00000000fed00000-0x00000000fed01000] uncached-minus\n"
    "PAT: [mem 0x00000000fed00000-0x00000000fed01000] uncached-minus\n";

/* The old format: uvesafb's 0xd0000000 mapping uncached-minus, inside
 * the X server's larger one. */
static const char old_list[] = "PAT memtype list:\n"
			       "write-back @ 0x0-0x1000\n"
			       "uncached-minus @ 0x6fedd000-0x6fee3000\n"
			       "uncached-minus @ 0xd0000000-0xe0000000\n"
			       "uncached-minus @ 0xd0000000-0xd1194000\n"
			       "uncached-minus @ 0xf4000000-0xf4009000\n";

/* After that fix: the driver's mapping write-combining, as is the
 * process's mmap of it (two entries, one range). */
static const char wc_list[] =
    "PAT memtype list:\n"
    "PAT: [mem 0x00000000c0000000-0x00000000c0300000] write-combining\n"
    "PAT: [mem 0x00000000c0000000-0x00000000c0300000] write-combining\n"
    "PAT: [mem 0x00000000fed00000-0x00000000fed01000] uncached-minus\n";

static int look(const char *text, uint64_t start, uint64_t len,
		struct memtype *mt)
{
	return pat_lookup(text, strlen(text), start, len, mt);
}

int main(void)
{
	struct memtype mt;
	char buf[512];
	int ret;

	/* The VM's vesafb range, exactly one entry. */
	ret = look(vm_list, 0xfd000000, 6u << 20, &mt);
	CHECK(ret == 0, "vm: %d", ret);
	CHECK(mt.kind == MEMTYPE_UNCACHED_MINUS &&
		  strcmp(mt.name, "uncached-minus") == 0,
	      "vm: %d %s", mt.kind, mt.name);
	CHECK(!mt.mixed && !mt.partial, "vm: mixed %d partial %d", mt.mixed,
	      mt.partial);
	/* A part of it, and a range that only touches its end. */
	ret = look(vm_list, 0xfd100000, 4096, &mt);
	CHECK(ret == 0 && !mt.partial, "vm inner page: %d", ret);
	ret = look(vm_list, 0xfd600000, 4096, &mt);
	CHECK(ret == -ESRCH, "vm: the end is exclusive: %d", ret);
	ret = look(vm_list, 0xfcfff000, 4096, &mt);
	CHECK(ret == -ESRCH, "vm: the page before: %d", ret);
	/* Larger than the entry: listed in part. */
	ret = look(vm_list, 0xfd000000, 16u << 20, &mt);
	CHECK(ret == 0 && mt.partial && !mt.mixed, "vm 16 MiB: %d %d", ret,
	      mt.partial);
	/* Two entries of one range, overlapping: whole, one type. */
	ret = look(vm_list, 0x1ffe0000, 0x2000, &mt);
	CHECK(ret == 0 && mt.kind == MEMTYPE_WRITE_BACK && !mt.partial &&
		  !mt.mixed,
	      "vm write-back: %d %s %d", ret, mt.name, mt.partial);

	/* Old format. */
	ret = look(old_list, 0xd0000000, 0x1194000, &mt);
	CHECK(ret == 0 && mt.kind == MEMTYPE_UNCACHED_MINUS && !mt.partial,
	      "old: %d %s %d", ret, mt.name, mt.partial);
	ret = look(old_list, 0x0, 0x1000, &mt);
	CHECK(ret == 0 && mt.kind == MEMTYPE_WRITE_BACK, "old wb: %d %s", ret,
	      mt.name);

	/* Write-combining. */
	ret = look(wc_list, 0xc0000000, 3u << 20, &mt);
	CHECK(ret == 0 && mt.kind == MEMTYPE_WRITE_COMBINING && !mt.mixed &&
		  !mt.partial,
	      "wc: %d %s", ret, mt.name);

	/* Types that disagree over the range: the slowest, and mixed. */
	snprintf(buf, sizeof(buf),
		 "PAT memtype list:\n"
		 "PAT: [mem 0x00000000c0000000-0x00000000c0200000] "
		 "write-combining\n"
		 "PAT: [mem 0x00000000c0200000-0x00000000c0300000] "
		 "uncached\n"
		 "PAT: [mem 0x00000000c0000000-0x00000000c0100000] "
		 "write-combining\n");
	ret = look(buf, 0xc0000000, 3u << 20, &mt);
	CHECK(ret == 0 && mt.kind == MEMTYPE_UNCACHED && mt.mixed &&
		  !mt.partial,
	      "mixed: %d %s %d %d", ret, mt.name, mt.mixed, mt.partial);
	ret = look(buf, 0xc0000000, 1u << 20, &mt);
	CHECK(ret == 0 && mt.kind == MEMTYPE_WRITE_COMBINING && !mt.mixed,
	      "first MiB: %s %d", mt.name, mt.mixed);

	/* A hole between two entries: listed in part. */
	snprintf(buf, sizeof(buf),
		 "PAT memtype list:\n"
		 "write-combining @ 0xc0200000-0xc0300000\n"
		 "write-combining @ 0xc0000000-0xc0100000\n");
	ret = look(buf, 0xc0000000, 3u << 20, &mt);
	CHECK(ret == 0 && mt.partial, "hole: %d %d", ret, mt.partial);

	/* A name this code does not know is shown as it is, as the worst. */
	snprintf(buf, sizeof(buf),
		 "PAT memtype list:\n"
		 "PAT: [mem 0x00000000c0000000-0x00000000c0100000] uncached\n"
		 "PAT: [mem 0x00000000c0000000-0x00000000c0100000] broken\n");
	ret = look(buf, 0xc0000000, 1u << 20, &mt);
	CHECK(ret == 0 && mt.kind == MEMTYPE_UNKNOWN &&
		  strcmp(mt.name, "broken") == 0 && mt.mixed,
	      "unknown word: %d %s", mt.kind, mt.name);

	/* No trailing newline, CRs, overlong and foreign lines are fine. */
	memset(buf, 'x', 300);
	snprintf(buf + 300, sizeof(buf) - 300,
		 "\nPAT memtype list:\n"
		 "something else\n"
		 "PAT: [mem 0x00000000c0000000-0x00000000c0100000] "
		 "write-combining");
	ret = look(buf, 0xc0000000, 1u << 20, &mt);
	CHECK(ret == 0 && mt.kind == MEMTYPE_WRITE_COMBINING, "tail: %d", ret);

	/* The list with no entry for the range, an empty list, not a list. */
	ret = look(vm_list, 0x80000000, 1u << 20, &mt);
	CHECK(ret == -ESRCH, "not listed: %d", ret);
	ret = look("PAT memtype list:\n", 0x80000000, 1u << 20, &mt);
	CHECK(ret == -ESRCH, "empty list: %d", ret);
	ret = look("hello\nworld\n", 0x80000000, 1u << 20, &mt);
	CHECK(ret == -EINVAL, "not a list: %d", ret);
	ret = look("", 0x80000000, 1u << 20, &mt);
	CHECK(ret == -EINVAL, "empty text: %d", ret);
	ret = look(vm_list, 0xfd000000, 0, &mt);
	CHECK(ret == -EINVAL, "empty range: %d", ret);
	ret = look(vm_list, UINT64_MAX - 10, 4096, &mt);
	CHECK(ret == -EINVAL, "wrapping range: %d", ret);
	/* A backwards entry is no entry. */
	ret =
	    look("PAT memtype list:\n"
		 "PAT: [mem 0x00000000c0100000-0x00000000c0000000] uncached\n",
		 0xc0000000, 1u << 20, &mt);
	CHECK(ret == -ESRCH, "backwards entry: %d", ret);
	/* Many entries over one range (one per mapping): whole. */
	{
		static char many[64 * 1024];
		size_t n = 0;
		int i;

		n +=
		    (size_t)snprintf(many, sizeof(many), "PAT memtype list:\n");
		for (i = 0; i < 600; i++)
			n += (size_t)snprintf(
			    many + n, sizeof(many) - n,
			    "PAT: [mem 0x%016llx-0x%016llx] "
			    "write-combining\n",
			    0xc0000000ull + (unsigned long long)i * 4096,
			    0xc0000000ull + (unsigned long long)(i + 1) * 4096);
		ret = look(many, 0xc0000000, 600 * 4096, &mt);
		CHECK(ret == 0 && !mt.partial && !mt.mixed,
		      "600 pages: %d partial %d", ret, mt.partial);
	}

	CHECK(pat_kind("write-through") == MEMTYPE_WRITE_THROUGH);
	CHECK(pat_kind("write-protected") == MEMTYPE_WRITE_PROTECTED);
	CHECK(pat_kind("Write-back") == MEMTYPE_UNKNOWN);

	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
