/* Statistics for measurements: growable lists of samples (nanoseconds or
 * bytes) and their order statistics (nearest-rank quantiles, medians), as
 * vncfb bench and the core probe report them.
 *
 * Threads: a list belongs to one thread at a time; the functions on plain
 * arrays may be called from any thread. */
#ifndef VNCFB_STATS_H
#define VNCFB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Samples in arrival order. Zero-initialised is empty. */
struct samples {
	uint64_t *v;
	size_t n, cap;
};

/* The distribution of a list. All zero when it is empty (n == 0). */
struct summary {
	size_t n;
	uint64_t min, median, p95, p99, max;
};

/* Append v. 0 or -ENOMEM (the list is unchanged). */
int stats_add(struct samples *s, uint64_t v);
/* Free the values; the list is empty again. */
void stats_free(struct samples *s);
/* Summarise a sorted copy, so the list keeps its arrival order. Leaves
 * out zeroed when the copy cannot be allocated. */
void stats_summarize(const struct samples *s, struct summary *out);

/* Nearest-rank quantile (0 < q <= 1) of n sorted values; 0 when n == 0. */
uint64_t stats_quantile(const uint64_t *sorted, size_t n, double q);
/* Sort in ascending order. */
void stats_sort_u64(uint64_t *v, size_t n);
/* The median (the mean of the middle two for an even n) of n > 0 values;
 * sorts v. */
double stats_median_u64(uint64_t *v, size_t n);
double stats_median_double(double *v, size_t n);

#endif
