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
	case CPU_AES:
		return __builtin_cpu_supports("aes");
	}
#endif
	(void)f;
	return false;
}
