/* Why a device node would not open, in the words the console outputs
 * share (devnode.h). */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "devnode.h"

void devnode_open_error(const char *path, int err, const char *what,
			const char *absent_hint, char *buf, size_t len)
{
	struct stat st;
	struct group *gr;
	char group[64] = "video";

	switch (err) {
	case ENOENT:
		snprintf(buf, len, "%s: no such device (%s)", path,
			 absent_hint);
		break;
	case EACCES:
	case EPERM:
		/* Name the group that actually owns the node, when known. */
		if (stat(path, &st) == 0) {
			gr = getgrgid(st.st_gid);
			if (gr && gr->gr_name && st.st_gid != 0)
				snprintf(group, sizeof(group), "%s",
					 gr->gr_name);
		}
		snprintf(buf, len,
			 "%s: permission denied (add the user to the '%s' "
			 "group, then log in again)",
			 path, group);
		break;
	case ENXIO:
	case ENODEV:
		snprintf(buf, len, "%s: no %s behind this device node (%s)",
			 path, what, strerror(err));
		break;
	default:
		snprintf(buf, len, "open %s: %s", path, strerror(err));
		break;
	}
}
