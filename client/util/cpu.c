/* CPU features for the run-time choice of SIMD kernels, and the classes
 * of big.LITTLE cores (cpu.h). */
#include "config.h"

#include <stddef.h>

#include "util/cpu.h"

bool cpu_has(enum cpu_feature f)
{
#ifdef VNCFB_SIMD_X86
	__builtin_cpu_init();
	/* __builtin_cpu_supports wants a literal: one call a feature. */
	switch (f) {
	case CPU_SSSE3:
		return __builtin_cpu_supports("ssse3");
	case CPU_AVX2:
		return __builtin_cpu_supports("avx2");
	case CPU_AES:
		return __builtin_cpu_supports("aes");
	case CPU_NEON:
		return false;
	}
#endif
#ifdef VNCFB_SIMD_NEON
	/* Advanced SIMD is part of the AArch64 base architecture (every
	 * AArch64 Linux and NetBSD system has it): no run-time question. */
	return f == CPU_NEON;
#endif
	(void)f;
	return false;
}

void cpu_classify(const int *cap, int n, enum cpu_class *cls)
{
	int i, lo = 0, hi = 0;

	for (i = 0; i < n; i++) {
		cls[i] = CPU_CLASS_SAME;
		if (cap[i] <= 0)
			continue;
		if (!lo || cap[i] < lo)
			lo = cap[i];
		if (cap[i] > hi)
			hi = cap[i];
	}
	if (lo == hi)
		return;
	for (i = 0; i < n; i++)
		if (cap[i] > 0)
			cls[i] = cap[i] == hi	? CPU_CLASS_BIG
				 : cap[i] == lo ? CPU_CLASS_LITTLE
						: CPU_CLASS_MID;
}

const char *cpu_class_name(enum cpu_class c)
{
	switch (c) {
	case CPU_CLASS_BIG:
		return "big";
	case CPU_CLASS_MID:
		return "mid";
	case CPU_CLASS_LITTLE:
		return "little";
	case CPU_CLASS_SAME:
		break;
	}
	return NULL;
}
