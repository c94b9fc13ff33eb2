/* Linux: the kernel's memory type for a physical range, from the x86 PAT
 * list in debugfs (parsed by pat.c), and what to check when the
 * framebuffer looks uncached. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pat.h"
#include "platform/platform.h"

#define DEBUGFS "/sys/kernel/debug"
#define PAT_LIST DEBUGFS "/x86/pat_memtype_list"
/* The list has an entry per mapping of device memory: a few hundred on a
 * desktop, thousands at most. */
#define PAT_LIST_MAX (16u << 20)

/* Why the list is absent, as one phrase. */
static void explain_enoent(char *why, size_t len)
{
	struct stat dbg, sys;

	if (stat(DEBUGFS, &dbg) == 0 && stat("/sys/kernel", &sys) == 0 &&
	    dbg.st_dev == sys.st_dev)
		snprintf(why, len,
			 "debugfs is not mounted (mount -t debugfs "
			 "none " DEBUGFS ")");
	else if (access(DEBUGFS "/x86", F_OK) < 0)
		snprintf(why, len,
			 "the kernel keeps no x86 PAT list (not "
			 "x86, or no debugfs)");
	else
		snprintf(why, len,
			 "the kernel keeps no PAT list (PAT is off: "
			 "nopat, or a CPU without PAT)");
}

/* The whole list as a string (seq files have no size): NULL on failure,
 * with -errno in *err. */
static char *read_list(size_t *len, int *err)
{
	size_t cap = 1u << 16, n = 0;
	char *buf = NULL, *nb;
	ssize_t k;
	int fd;

	fd = open(PAT_LIST, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = -errno;
		return NULL;
	}
	for (;;) {
		if (n == cap || !buf) {
			if (buf)
				cap *= 2;
			if (cap > PAT_LIST_MAX) {
				*err = -EFBIG;
				goto fail;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				*err = -ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			*err = -errno;
			goto fail;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	*len = n;
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}

int platform_memtype(uint64_t start, uint64_t len, struct memtype *mt,
		     char *why, size_t why_len)
{
	size_t n = 0;
	char *text;
	int err = 0;

	memset(mt, 0, sizeof(*mt));
	text = read_list(&n, &err);
	if (!text) {
		if (err == -ENOENT)
			explain_enoent(why, why_len);
		else if (err == -EACCES || err == -EPERM)
			snprintf(why, why_len, PAT_LIST ": %s (root only)",
				 strerror(-err));
		else
			snprintf(why, why_len, PAT_LIST ": %s", strerror(-err));
		return err;
	}
	err = pat_lookup(text, n, start, len, mt);
	free(text);
	if (err == -ESRCH)
		snprintf(why, why_len,
			 "the PAT list has no entry for 0x%" PRIx64
			 "-0x%" PRIx64 " (system RAM is not listed)",
			 start, start + len - 1);
	else if (err < 0)
		snprintf(why, why_len, PAT_LIST " is not a PAT memtype list");
	return err;
}

const char *platform_uncached_hint(void)
{
	return "check the driver (it should map video memory "
	       "write-combining), video= and nopat on the kernel command "
	       "line, and the kernel's memory types (" PAT_LIST ", /proc/mtrr)";
}
