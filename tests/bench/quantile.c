/* stats_quantile (what vncfb bench reports): nearest-rank quantiles on small known sets. */
#include "config.h"

#include <stdio.h>

#include "util/stats.h"

static int fails;

static void expect(const char *what, uint64_t got, uint64_t want)
{
	if (got != want) {
		fprintf(stderr, "FAIL %s: got %llu, want %llu\n", what,
			(unsigned long long)got, (unsigned long long)want);
		fails++;
	}
}

int main(void)
{
	static const uint64_t one[] = { 7 };
	static const uint64_t ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	uint64_t hundred[100];
	int i;

	for (i = 0; i < 100; i++)
		hundred[i] = (uint64_t)(i + 1) * 10;
	expect("empty", stats_quantile(NULL, 0, 0.5), 0);
	expect("one median", stats_quantile(one, 1, 0.5), 7);
	expect("one p99", stats_quantile(one, 1, 0.99), 7);
	expect("ten median", stats_quantile(ten, 10, 0.5), 5);
	expect("ten p95", stats_quantile(ten, 10, 0.95), 10);
	expect("ten p10", stats_quantile(ten, 10, 0.1), 1);
	expect("ten max", stats_quantile(ten, 10, 1.0), 10);
	expect("hundred median", stats_quantile(hundred, 100, 0.5), 500);
	expect("hundred p95", stats_quantile(hundred, 100, 0.95), 950);
	expect("hundred p99", stats_quantile(hundred, 100, 0.99), 990);
	expect("tiny q", stats_quantile(hundred, 100, 0.0001), 10);
	return fails ? 1 : 0;
}
