/* Sample lists and order statistics (stats.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/stats.h"

int stats_add(struct samples *s, uint64_t v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

void stats_free(struct samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void stats_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t stats_quantile(const uint64_t *sorted, size_t n, double q)
{
	size_t k;

	if (n == 0)
		return 0;
	k = (size_t)ceil(q * (double)n);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return sorted[k - 1];
}

void stats_summarize(const struct samples *s, struct summary *out)
{
	uint64_t *v;

	memset(out, 0, sizeof(*out));
	if (s->n == 0)
		return;
	v = malloc(s->n * sizeof(*v));
	if (!v)
		return;
	memcpy(v, s->v, s->n * sizeof(*v));
	stats_sort_u64(v, s->n);
	out->n = s->n;
	out->min = v[0];
	out->median = stats_quantile(v, s->n, 0.5);
	out->p95 = stats_quantile(v, s->n, 0.95);
	out->p99 = stats_quantile(v, s->n, 0.99);
	out->max = v[s->n - 1];
	free(v);
}

double stats_median_u64(uint64_t *v, size_t n)
{
	stats_sort_u64(v, n);
	if (n % 2)
		return (double)v[n / 2];
	return ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

double stats_median_double(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}
