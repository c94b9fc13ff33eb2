/* What RSA-AES's framing costs per byte: 64 MiB decrypted in frames of
 * 65535 bytes (the most a frame carries) with AES-128 and AES-256 EAX,
 * through nettle's EAX, through vncfb's AES-NI one (eax_kern.h) a frame
 * at a time and four frames side by side (the reader's bulk path), and
 * a memcpy of the same bytes, in one run: thread CPU time, the median of
 * 5 rounds, and each as a ratio to the memcpy. --check: one short round,
 * the output's shape only (the bench suite's test).
 *
 *   bench_eax [--check] */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../ref_eax.h"
#include "net/eax_kern.h"
#include "util/cpu.h"

#define FRAME 65535
#define ROUNDS 5

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

enum way { COPY, NETTLE, AESNI, AESNI4, WAYS };

static double one(enum way w, unsigned keylen, uint8_t *buf, uint8_t *dst,
		  size_t n)
{
	static const uint8_t key[32] = { 1, 2, 3 };
	uint8_t nonce[16] = { 0 }, hdr[2] = { 0xff, 0xff }, tag[16];
	struct ref_eax ref;
	struct eax_fast fk;
	double t0;
	size_t off;

	ref_eax_init(&ref, key, keylen);
	if (w >= AESNI)
		eax_aesni_init(&fk, key, keylen);
	t0 = cpu_s();
	if (w == AESNI4) {
		/* In place, four whole frames at a time, the rest one. */
		uint8_t nonces[4][16] = { { 0 } }, hdrs[4][2], tags[4][16];
		uint8_t *at[4];
		int i;

		memset(hdrs, 0xff, sizeof(hdrs));
		for (off = 0; off + 4 * FRAME <= n; off += 4 * FRAME) {
			for (i = 0; i < 4; i++) {
				nonces[i][0] = ++nonce[0];
				at[i] = buf + off + (size_t)i * FRAME;
			}
			eax_aesni_open(&fk, 4, (const uint8_t(*)[16])nonces,
				       (const uint8_t(*)[2])hdrs, at, FRAME,
				       tags);
		}
		for (; off < n; off += FRAME) {
			size_t len = n - off < FRAME ? n - off : FRAME;

			eax_aesni_frame(&fk, false, nonce, hdr, buf + off,
					buf + off, len, tag);
		}
		return cpu_s() - t0 + (tags[0][0] & 0) + (buf[n / 2] & 0);
	}
	for (off = 0; off < n; off += FRAME) {
		size_t len = n - off < FRAME ? n - off : FRAME;

		nonce[0]++;
		if (w == COPY) {
			memcpy(dst + off, buf + off, len);
		} else if (w == NETTLE) {
			ref_eax_frame(&ref, false, nonce, hdr, buf + off,
				      dst + off, len, tag);
		} else {
			eax_aesni_frame(&fk, false, nonce, hdr, buf + off,
					dst + off, len, tag);
		}
	}
	return cpu_s() - t0 + (tag[0] & 0) + (dst[n / 2] & 0);
}

int main(int argc, char **argv)
{
	bool check = argc > 1 && strcmp(argv[1], "--check") == 0;
	size_t n = check ? 1u << 20 : 64u << 20;
	int rounds = check ? 1 : ROUNDS;
	static const char *names[] = { "memcpy", "nettle EAX", "AES-NI EAX",
				       "AES-NI x4" };
	uint8_t *buf = malloc(n), *dst = malloc(n);
	bool aesni = cpu_has(CPU_AES) && cpu_has(CPU_SSSE3);
	double t[WAYS][2][ROUNDS], med[WAYS][2];
	unsigned keylen;
	int w, r, ki;

	if (!buf || !dst)
		return 1;
	memset(buf, 0x5a, n);
	memset(dst, 0, n);
	for (r = 0; r < rounds; r++)
		for (ki = 0; ki < 2; ki++)
			for (w = 0; w < WAYS; w++)
				t[w][ki][r] = w >= AESNI && !aesni
						      ? 0
						      : one((enum way)w,
							    ki ? 32 : 16, buf,
							    dst, n);
	printf("%zu MiB in frames of %d bytes, thread CPU, median of %d\n",
	       n >> 20, FRAME, rounds);
	for (ki = 0; ki < 2; ki++) {
		keylen = ki ? 32 : 16;
		for (w = 0; w < WAYS; w++) {
			qsort(t[w][ki], (size_t)rounds, sizeof(double), cmp_d);
			med[w][ki] = t[w][ki][rounds / 2];
		}
		for (w = 0; w < WAYS; w++) {
			if (w >= AESNI && !aesni) {
				printf("AES-%u %-10s: no AES-NI here\n",
				       keylen * 8, names[w]);
				continue;
			}
			printf("AES-%u %-10s: %8.1f MB/s  %6.3f s  %6.1fx "
			       "memcpy\n",
			       keylen * 8, names[w],
			       (double)n / 1e6 / med[w][ki], med[w][ki],
			       med[w][ki] / med[COPY][ki]);
		}
	}
	free(buf);
	free(dst);
	return 0;
}
