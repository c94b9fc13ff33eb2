/* NetBSD CPUs: online set from hw.ncpuonline and cpuctl(4), pinning with
 * cpuset(3) and pthread_setaffinity_np(3). */
#include "config.h"

#include <sys/types.h>
#include <sys/cpuio.h>
#include <sys/ioctl.h>
#include <sys/lwpctl.h>
#include <sys/sysctl.h>

#include <errno.h>
#include <fcntl.h>
#include <lwp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"

/* cpuset bits are cpuid_t, which on the ports vncfb runs on is the index
 * of the CPU (cpu0, cpu1, ...). */
#define MAX_CPUS 1024

static int sysctl_int(const char *name, int fallback)
{
	int v;
	size_t len = sizeof(v);

	if (sysctlbyname(name, &v, &len, NULL, 0) < 0 || len != sizeof(v))
		return fallback;
	return v;
}

int platform_cpu_count(void)
{
	int n = sysctl_int("hw.ncpu", 1);

	if (n < 1)
		return 1;
	return n > MAX_CPUS ? MAX_CPUS : n;
}

/* cpuctl(4) knows which CPUs are offline; /dev/cpuctl is world-readable
 * on a default install. -1 when it cannot say. */
static int cpuctl_online(int cpu)
{
	cpustate_t cs;
	int fd, ret = -1;

	fd = open("/dev/cpuctl", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	memset(&cs, 0, sizeof(cs));
	cs.cs_id = (u_int)cpu;
	if (ioctl(fd, IOC_CPU_GETSTATE, &cs) == 0)
		ret = cs.cs_online ? 1 : 0;
	close(fd);
	return ret;
}

/* Whether our own affinity (schedctl -A, a processor set) allows cpu: 1,
 * 0, or -1 when there is none to honour. */
static int allowed_by_affinity(int cpu)
{
	cpuset_t *cs = cpuset_create();
	int i, any = 0, ret = -1;

	if (!cs)
		return -1;
	cpuset_zero(cs);
	if (sched_getaffinity_np(getpid(), cpuset_size(cs), cs) == 0) {
		for (i = 0; i < MAX_CPUS && !any; i++)
			any = cpuset_isset((cpuid_t)i, cs) > 0;
		/* An empty set means "not bound": every CPU. */
		if (any)
			ret = cpuset_isset((cpuid_t)cpu, cs) > 0;
	}
	cpuset_destroy(cs);
	return ret;
}

bool platform_cpu_online(int cpu)
{
	int n = platform_cpu_count();
	int online = sysctl_int("hw.ncpuonline", n);
	int st;

	if (cpu < 0 || cpu >= n)
		return false;
	if (allowed_by_affinity(cpu) == 0)
		return false;
	/* All online (the usual case): no need to ask cpuctl. */
	if (online >= n)
		return true;
	st = cpuctl_online(cpu);
	if (st >= 0)
		return st == 1;
	/* Unknown which are offline: cpu0 never goes offline; assume the
	 * first ncpuonline are the online ones. */
	return cpu < online;
}

static int set_affinity(pthread_t t, int first, int last)
{
	cpuset_t *cs = cpuset_create();
	int i, ret;

	if (!cs)
		return -ENOMEM;
	cpuset_zero(cs);
	for (i = first; i <= last; i++) {
		if (cpuset_set((cpuid_t)i, cs) < 0) {
			cpuset_destroy(cs);
			return -EINVAL;
		}
	}
	ret = pthread_setaffinity_np(t, cpuset_size(cs), cs);
	cpuset_destroy(cs);
	return -ret;
}

int platform_pin_thread(pthread_t t, int cpu)
{
	if (cpu < 0 || cpu >= platform_cpu_count())
		return -EINVAL;
	return set_affinity(t, cpu, cpu);
}

int platform_unpin_thread(pthread_t t)
{
	/* The kernel takes an empty set as "not bound" (sys_sched.c); should
	 * it refuse one, every CPU is the same thing. */
	cpuset_t *cs = cpuset_create();
	int ret;

	if (!cs)
		return -ENOMEM;
	cpuset_zero(cs);
	ret = pthread_setaffinity_np(t, cpuset_size(cs), cs);
	cpuset_destroy(cs);
	if (ret == 0)
		return 0;
	return set_affinity(t, 0, platform_cpu_count() - 1);
}

int platform_pin_thread_set(pthread_t t, const int *cpus, int n)
{
	cpuset_t *cs = cpuset_create();
	int i, ret;

	if (!cs)
		return -ENOMEM;
	cpuset_zero(cs);
	for (i = 0; i < n; i++) {
		if (cpus[i] < 0 || cpuset_set((cpuid_t)cpus[i], cs) < 0) {
			cpuset_destroy(cs);
			return -EINVAL;
		}
	}
	ret = n ? pthread_setaffinity_np(t, cpuset_size(cs), cs) : EINVAL;
	cpuset_destroy(cs);
	return -ret;
}

/* NetBSD does not say how fast each core is. */
int platform_cpu_capacity(int cpu)
{
	(void)cpu;
	return -1;
}

void platform_name_thread(const char *name)
{
	/* NetBSD's takes a printf format and one argument. */
	pthread_setname_np(pthread_self(), "%s", (void *)(uintptr_t)name);
}

int platform_current_cpu(void)
{
	/* No sched_getcpu() on NetBSD: the LWP control block the kernel
	 * shares with each thread has the current CPU. */
	static __thread lwpctl_t *lc;

	if (!lc && _lwp_ctl(LWPCTL_FEATURE_CURCPU, &lc) < 0) {
		lc = NULL;
		return -1;
	}
	return lc->lc_curcpu >= 0 ? lc->lc_curcpu : -1;
}

const char *platform_pin_hint(void)
{
	if (geteuid() == 0)
		return NULL;
	return "NetBSD lets only root set CPU affinity; allow users with "
	       "'sysctl -w security.models.extensions.user_set_cpu_affinity=1' "
	       "(add it to /etc/sysctl.conf to keep it), or run vncfb as root";
}
