/* LD_PRELOAD shim for the tests: thread affinity is not permitted, as on
 * NetBSD for a user without the right to set it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>

int pthread_setaffinity_np(pthread_t thread, size_t size,
			   const cpu_set_t *set)
{
	(void)thread;
	(void)size;
	(void)set;
	return EPERM;
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	(void)pid;
	(void)size;
	(void)set;
	errno = EPERM;
	return -1;
}
