/* NetBSD: wscons ioctls are checked when the device is opened, so
 * dropping root needs nothing kept. */
#include "config.h"

#include "platform/platform.h"

int platform_privs_before_drop(void)
{
	return 0;
}

int platform_privs_after_drop(void)
{
	return 0;
}
