/* NetBSD: no list of memory types to read. The x86 pmap keeps a mapping's
 * caching mode in its page table entries only (a driver's mmap asks for
 * write-combining with BUS_SPACE_MAP_PREFETCHABLE), and wsdisplay does not
 * say where the framebuffer is physically, so the MTRRs
 * (x86_64_get_mtrr(2)) cannot be matched to it either. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform/platform.h"

int platform_memtype(uint64_t start, uint64_t len, struct memtype *mt,
		     char *why, size_t why_len)
{
	memset(mt, 0, sizeof(*mt));
	snprintf(why, why_len, "NetBSD does not list memory types");
	return -ENOSYS;
}

const char *platform_uncached_hint(void)
{
	/* genfb_pci's mmap of the framebuffer is BUS_SPACE_MAP_LINEAR only:
	 * no PAT type, so the MTRR of the range decides. */
	return "check the driver (genfb maps video memory without the "
	       "prefetchable flag, so the MTRRs decide, usually uncached; "
	       "the DRM drivers map it write-combining) and the MTRRs "
	       "(x86_64_get_mtrr(2)) at the framebuffer address in dmesg";
}
