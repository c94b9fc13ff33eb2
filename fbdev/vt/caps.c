/* Linux: keep CAP_SYS_TTY_CONFIG (and nothing else) across dropping root,
 * so the unprivileged worker can still answer VT switches. */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/log.h"
#include "platform/platform.h"

int platform_privs_before_drop(void)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0) {
		log_error("prctl PR_SET_KEEPCAPS: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int platform_privs_after_drop(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int ret = 0;

	memset(data, 0, sizeof(data));
	data[CAP_SYS_TTY_CONFIG / 32].permitted =
		1u << (CAP_SYS_TTY_CONFIG % 32);
	data[CAP_SYS_TTY_CONFIG / 32].effective =
		1u << (CAP_SYS_TTY_CONFIG % 32);
	if (syscall(SYS_capset, &hdr, data) < 0) {
		ret = -errno;
		log_error("capset CAP_SYS_TTY_CONFIG: %s", strerror(errno));
	}
	/* Nothing more may be kept by a later setuid. */
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	/* No core dumps and no ptrace by other processes of the user. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return ret;
}
