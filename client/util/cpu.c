/* CPU features for the run-time choice of SIMD kernels (cpu.h). */
#include "config.h"

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
