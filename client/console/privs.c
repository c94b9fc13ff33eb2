/* Dropping root after the devices are open. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/log.h"
#include "platform/platform.h"
#include "console/privs.h"

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
	gid_t gid, groups[2];
	int ngroups;
	uid_t uid;

	if (!privs_are_root())
		return 0;
	errno = 0;
	pw = getpwnam(name);
	if (!pw && !user) {
		/* A minimal system (an initramfs) without a user database:
		 * nobody to become, and its device nodes are root's only,
		 * so a hot-plugged keyboard could not be opened either. */
		log_warn("no user '%s' on this system: staying root (name a "
			 "user with --user)",
			 name);
		return 0;
	}
	if (!pw) {
		log_error("cannot drop root: no user '%s'", name);
		return -ENOENT;
	}
	uid = pw->pw_uid;
	gid = pw->pw_gid;
	/* Supplementary groups: --user's own (a 'vncfb' user in group input
	 * can open hot-plugged keyboards); nobody gets only 'input', for
	 * the same reason, where that group exists. */
	ngroups = 0;
	if (user) {
		if (initgroups(name, gid) < 0) {
			log_error("initgroups %s: %s", name, strerror(errno));
			return -errno;
		}
	} else {
		struct group *gr = getgrnam("input");

		groups[ngroups++] = gid;
		if (gr)
			groups[ngroups++] = gr->gr_gid;
	}
	if (uid == 0) {
		log_error("--user %s is root: nothing would be dropped", name);
		return -EINVAL;
	}
	if (platform_privs_before_drop() < 0)
		return -EPERM;
	if (ngroups && setgroups(ngroups, groups) < 0) {
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
