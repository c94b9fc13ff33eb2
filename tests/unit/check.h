/* Tiny assertion helpers for the unit tests: count failures, keep going,
 * exit status 1 if any failed. */
#ifndef VNCFB_TEST_CHECK_H
#define VNCFB_TEST_CHECK_H

#include <stdio.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                            \
	do {                                                                   \
		check_count++;                                                 \
		if (!(cond)) {                                                 \
			check_failures++;                                      \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__,         \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);            \
		check_count++;                                                 \
		if (a_ != b_) {                                                \
			check_failures++;                                      \
			fprintf(stderr,                                        \
				"%s:%d: FAIL: %s == %s (%lld vs "              \
				"%lld)\n",                                     \
				__FILE__, __LINE__, #a, #b, a_, b_);           \
		}                                                              \
	} while (0)

static inline int check_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
