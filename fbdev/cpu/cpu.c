/* Linux CPUs: online set and capacities from sysfs, pinning with
 * cpu_set_t. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "platform/platform.h"

int platform_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n < 1)
		return 1;
	return n > CPU_SETSIZE ? CPU_SETSIZE : (int)n;
}

bool platform_cpu_online(int cpu)
{
	char path[64];
	FILE *f;
	int c, on = 1;

	if (cpu < 0 || cpu >= platform_cpu_count())
		return false;
	/* cpu0 usually has no "online" file: it cannot go offline. */
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	f = fopen(path, "r");
	if (f) {
		c = fgetc(f);
		on = c == '1';
		fclose(f);
	}
	if (!on)
		return false;
	/* Also honour our own affinity mask (taskset, cgroups). */
	{
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			return CPU_ISSET(cpu, &set);
	}
	return true;
}

int platform_pin_thread(pthread_t t, int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(t, sizeof(set), &set);
}

int platform_pin_thread_set(pthread_t t, const int *cpus, int n)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < n; i++) {
		if (cpus[i] < 0 || cpus[i] >= CPU_SETSIZE)
			return -EINVAL;
		CPU_SET(cpus[i], &set);
	}
	if (!n)
		return -EINVAL;
	return -pthread_setaffinity_np(t, sizeof(set), &set);
}

int platform_unpin_thread(pthread_t t)
{
	cpu_set_t set;
	int i, n = platform_cpu_count();

	CPU_ZERO(&set);
	for (i = 0; i < n; i++)
		CPU_SET(i, &set);
	return -pthread_setaffinity_np(t, sizeof(set), &set);
}

int platform_current_cpu(void)
{
	return sched_getcpu();
}

int platform_cpu_capacity(int cpu)
{
	const char *dir = getenv("VNCFB_SYSFS_CPU");
	char path[256];
	FILE *f;
	int cap;

	if (cpu < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/cpu%d/cpu_capacity",
		 dir && *dir ? dir : "/sys/devices/system/cpu", cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &cap) != 1 || cap < 1 || cap > 1024)
		cap = -1;
	fclose(f);
	return cap;
}

void platform_name_thread(const char *name)
{
	pthread_setname_np(pthread_self(), name);
}

const char *platform_pin_hint(void)
{
	return NULL;
}
