/* The CHECK macro of the C unit tests: count a failure, say where, go on
 * (so one run reports every broken case). main() returns failures != 0. */
#ifndef VNCFB_TESTS_CHECK_H
#define VNCFB_TESTS_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			failures++;                                            \
		}                                                              \
	} while (0)

#endif
