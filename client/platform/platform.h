/* What each platform folder (fbdev/, netbsd/) provides to the portable
 * core: CPUs and pinning, its outputs, its input source, signals. */
#ifndef VNCFB_PLATFORM_H
#define VNCFB_PLATFORM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct output_impl;

/* Number of configured CPUs (ids 0..n-1), >= 1. */
int platform_cpu_count(void);
/* Whether cpu is online (usable for pinning). */
bool platform_cpu_online(int cpu);
/* Pin thread t to cpu. 0 or -errno (-EPERM where not permitted). */
int platform_pin_thread(pthread_t t, int cpu);
/* Remove any pinning of thread t. 0 or -errno. */
int platform_unpin_thread(pthread_t t);
/* Let thread t run on any of the n cores in cpus[]. 0 or -errno. */
int platform_pin_thread_set(pthread_t t, const int *cpus, int n);
/* The cpu the calling thread runs on now, or -1 when unknown. */
int platform_current_cpu(void);
/* The kernel's relative capacity of cpu, 1..1024 (the fastest core of a
 * big.LITTLE system 1024, its little ones less), or -1 when the system
 * does not say. Linux: /sys/devices/system/cpu/cpuN/cpu_capacity (on
 * arm and arm64 with a device tree or ACPI that gives it), whose folder
 * $VNCFB_SYSFS_CPU replaces for tests. */
int platform_cpu_capacity(int cpu);
/* Name the calling thread (at most 15 characters show) for top -H, ps
 * and perf. Best effort. */
void platform_name_thread(const char *name);
/* How to let users pin threads where pinning failed with EPERM (NULL if
 * nothing to say); used in the error message. */
const char *platform_pin_hint(void);

/* Memory types (caching modes) as a kernel names them for a physical
 * range, slowest to write last. */
enum memtype_kind {
	MEMTYPE_UNKNOWN,	/* a word this code does not know */
	MEMTYPE_WRITE_BACK,
	MEMTYPE_WRITE_COMBINING,
	MEMTYPE_WRITE_THROUGH,
	MEMTYPE_WRITE_PROTECTED,
	MEMTYPE_UNCACHED_MINUS,	/* uncached unless an MTRR says otherwise */
	MEMTYPE_UNCACHED,
};

/* What the kernel says about the output's video memory. */
struct memtype {
	enum memtype_kind kind;	/* the slowest type over the range */
	char name[24];		/* the kernel's word: "write-combining" */
	bool mixed;		/* parts of the range have other types */
	bool partial;		/* the kernel lists only part of the range */
};

/* The kernel's memory type for the physical range [start, start + len),
 * for the probe's report. 0 with *mt filled, or -errno with why (one
 * phrase) filled: -ENOSYS where the platform lists no memory types, -EACCES
 * or -ENOENT where the list cannot be read (not root, not mounted), -ESRCH
 * where it does not hold the range. Logs nothing. Main thread. */
int platform_memtype(uint64_t start, uint64_t len, struct memtype *mt,
		     char *why, size_t why_len);
/* What to check when the whole framebuffer mapping looks uncached (the
 * driver, boot options, the kernel's tables), one phrase for the
 * warning. */
const char *platform_uncached_hint(void);

/* Dropping root (privs.c) while keeping what the console needs: called
 * right before and right after the switch of user ids. On Linux the VT
 * ioctls (VT_RELDISP on a switch, KDSETMODE, VT_ACTIVATE) need
 * CAP_SYS_TTY_CONFIG unless the VT is the controlling terminal, so that
 * one capability is kept; elsewhere nothing. 0 or -errno (logged). */
int platform_privs_before_drop(void);
int platform_privs_after_drop(void);
/* NULL-terminated list of the platform's outputs; the first is the default
 * console output. */
extern const struct output_impl *const platform_outputs[];

#endif
