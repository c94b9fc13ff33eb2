/* What the CPU can do, for the code that picks SIMD kernels at run time:
 * the one place that asks (the scaler's kernel sets, view/scale.c; the
 * pixel converters, shadow/pixconv.c; RSA-AES's frames, net/rsaaes.c). Each kernel file is built with its
 * own instruction set (the client_simd list of the folders' meson.build
 * files) and called only where these say the CPU has it: SSSE3 and AVX2
 * on x86-64 (VNCFB_SIMD_X86), NEON (Advanced SIMD) on AArch64
 * (VNCFB_SIMD_NEON).
 *
 * Threads: any. */
#ifndef VNCFB_CPU_H
#define VNCFB_CPU_H

#include <stdbool.h>

enum cpu_feature {
	CPU_SSSE3,
	CPU_AVX2,
	CPU_AES,	/* AES-NI */
	CPU_NEON,
};

/* Whether this CPU has f; false for every feature the build has no
 * kernels for (x86-64's without VNCFB_SIMD_X86, NEON without
 * VNCFB_SIMD_NEON). */
bool cpu_has(enum cpu_feature f);

/* big.LITTLE: a core's class among the system's, from the kernel's
 * capacities (platform_cpu_capacity). */
enum cpu_class {
	CPU_CLASS_SAME,	  /* all cores alike, or the system does not say */
	CPU_CLASS_LITTLE, /* the lowest capacity */
	CPU_CLASS_MID,	  /* between (three or more kinds of core) */
	CPU_CLASS_BIG,	  /* the highest */
};

/* cls[i] for the n capacities cap[i] (-1: unknown, which stays SAME):
 * SAME for all when fewer than two capacities differ. */
void cpu_classify(const int *cap, int n, enum cpu_class *cls);
/* "big", "mid", "little", or NULL for CPU_CLASS_SAME. */
const char *cpu_class_name(enum cpu_class c);

#endif
