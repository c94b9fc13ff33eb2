/* Dropping root after the devices are open. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "log.h"
#include "platform.h"
#include "privs.h"

int privs_no_core_dumps(void)
{
	struct rlimit rl = { 0, 0 };

	if (setrlimit(RLIMIT_CORE, &rl) < 0) {
		log_error("setrlimit RLIMIT_CORE: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

bool privs_are_root(void)
{
	return geteuid() == 0 || getuid() == 0;
}

int privs_drop(const char *user)
{
	const char *name = user ? user : PRIVS_DEFAULT_USER;
	struct passwd *pw;
	gid_t gid;
	uid_t uid;

	if (!privs_are_root())
		return 0;
	errno = 0;
	pw = getpwnam(name);
	if (pw) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	} else if (!user) {
		/* A minimal system (an initramfs, a container) may have no
		 * user database: the conventional nobody ids still own
		 * nothing. */
		uid = PRIVS_FALLBACK_ID;
		gid = PRIVS_FALLBACK_ID;
		log_warn("no user '%s': dropping root to uid and gid %u", name,
			 (unsigned)uid);
	} else {
		log_error("cannot drop root: no user '%s'", name);
		return -ENOENT;
	}
	if (uid == 0) {
		log_error("--user %s is root: nothing would be dropped", name);
		return -EINVAL;
	}
	if (platform_privs_before_drop() < 0)
		return -EPERM;
	if (setgroups(1, &gid) < 0) {
		log_error("setgroups: %s", strerror(errno));
		return -errno;
	}
	if (setgid(gid) < 0) {
		log_error("setgid %u: %s", (unsigned)gid, strerror(errno));
		return -errno;
	}
	if (setuid(uid) < 0) {
		log_error("setuid %u: %s", (unsigned)uid, strerror(errno));
		return -errno;
	}
	/* The kernel must refuse this now; if it does not, stop. */
	if (setuid(0) == 0 || geteuid() == 0) {
		log_error("still able to become root after dropping to %s",
			  name);
		return -EPERM;
	}
	if (platform_privs_after_drop() < 0)
		return -EPERM;
	log_info("running as %s (uid %u) from here on", name, (unsigned)uid);
	return 0;
}
