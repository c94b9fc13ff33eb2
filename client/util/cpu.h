/* What the CPU can do, for the code that picks SIMD kernels at run time:
 * the one place that asks (the scaler's kernel sets, view/scale.c; the
 * pixel converters, shadow/pixconv.c; RSA-AES's frames, net/rsaaes.c). Each kernel file is built with its
 * own instruction set (the client_simd list of the folders' meson.build
 * files) and called only where these say the CPU has it.
 *
 * Threads: any. */
#ifndef VNCFB_CPU_H
#define VNCFB_CPU_H

#include <stdbool.h>

enum cpu_feature {
	CPU_SSSE3,
	CPU_AVX2,
	CPU_AES,	/* AES-NI */
};

/* Whether this CPU has f; false for every feature on a build without
 * x86-64 kernels (VNCFB_SIMD_X86 unset). */
bool cpu_has(enum cpu_feature f);

#endif
