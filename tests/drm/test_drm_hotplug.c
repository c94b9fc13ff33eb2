/* The DRM output's hot-plug filter without a device (fbdev/drm/drm_hotplug.h):
 * which kernel uevents mean the card's connectors changed. */
#include "config.h"

#include <string.h>

#include "drm/drm_hotplug.h"
#include "../check.h"

/* A uevent as the kernel sends it: "ACTION@DEVPATH" and KEY=VALUE lines,
 * each ended by a NUL. */
static size_t uevent(char *buf, size_t size, const char *const *kv)
{
	size_t n = 0;

	for (; *kv; kv++) {
		size_t l = strlen(*kv) + 1;

		if (n + l > size)
			break;
		memcpy(buf + n, *kv, l);
		n += l;
	}
	return n;
}

int main(void)
{
	static const char *const card0[] = {
	    "change@/devices/pci0000:00/0000:00:02.0/drm/card0",
	    "ACTION=change",
	    "DEVPATH=/devices/pci0000:00/0000:00:02.0/drm/card0",
	    "SUBSYSTEM=drm",
	    "HOTPLUG=1",
	    "DEVNAME=dri/card0",
	    "DEVTYPE=drm_minor",
	    "SEQNUM=2001",
	    "MAJOR=226",
	    "MINOR=0",
	    NULL};
	/* A newer kernel names the connector too. */
	static const char *const conn[] = {"change@/devices/x/drm/card1",
					   "ACTION=change",
					   "SUBSYSTEM=drm",
					   "HOTPLUG=1",
					   "CONNECTOR=37",
					   "MAJOR=226",
					   "MINOR=1",
					   NULL};
	static const char *const lease[] = {"change@/devices/x/drm/card0",
					    "ACTION=change",
					    "SUBSYSTEM=drm",
					    "LEASE=1",
					    "MAJOR=226",
					    "MINOR=0",
					    NULL};
	static const char *const other[] = {"change@/devices/x/power_supply/AC",
					    "ACTION=change",
					    "SUBSYSTEM=power_supply",
					    "HOTPLUG=1",
					    "MAJOR=226",
					    "MINOR=0",
					    NULL};
	/* MINOR=10 must not pass for card 1. */
	static const char *const card10[] = {"change@/devices/x/drm/card10",
					     "ACTION=change",
					     "SUBSYSTEM=drm",
					     "HOTPLUG=1",
					     "MAJOR=226",
					     "MINOR=10",
					     NULL};
	char buf[1024];
	size_t n;

	n = uevent(buf, sizeof(buf), card0);
	CHECK(drm_uevent_hotplug(buf, n, 226, 0));
	CHECK(!drm_uevent_hotplug(buf, n, 226, 1), "another card's event");
	CHECK(!drm_uevent_hotplug(buf, n, 227, 0), "another major");
	/* Cut before MINOR: not whole, not taken. */
	CHECK(!drm_uevent_hotplug(buf, n - strlen("MINOR=0") - 1, 226, 0));
	n = uevent(buf, sizeof(buf), conn);
	CHECK(drm_uevent_hotplug(buf, n, 226, 1));
	n = uevent(buf, sizeof(buf), lease);
	CHECK(!drm_uevent_hotplug(buf, n, 226, 0), "a lease event");
	n = uevent(buf, sizeof(buf), other);
	CHECK(!drm_uevent_hotplug(buf, n, 226, 0), "not drm");
	n = uevent(buf, sizeof(buf), card10);
	CHECK(!drm_uevent_hotplug(buf, n, 226, 1), "MINOR=10 for card 1");
	CHECK(drm_uevent_hotplug(buf, n, 226, 10));
	/* No NUL at the end of the datagram: read within len only. */
	n = uevent(buf, sizeof(buf), card0);
	CHECK(!drm_uevent_hotplug(buf, n - 2, 226, 0));
	CHECK(!drm_uevent_hotplug(buf, 0, 226, 0));
	return check_done("drm_hotplug");
}
