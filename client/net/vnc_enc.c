/* Encoding lists: --encodings checked, and turned into RFB numbers
 * (vnc_enc.h); the names, the default list and the labels are the
 * decoders' (decode/decode.h's struct decoder). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "decode/decode.h"
#include "net/vnc_enc.h"
#include "wire/encodings.h"
#include "wire/rfb.h"

/* Whether the n bytes at p name d (its name or its alias, any case). */
static bool named(const char *p, size_t n, const struct decoder *d)
{
	return decoder_by_name(p, n) == d;
}

int vnc_check_encodings(const char *list, const char **bad)
{
	static char badbuf[32];
	const char *p = list;
	int count = 0;

	while (p && *p) {
		size_t n = strcspn(p, " ,");

		if (n > 0) {
			if (!decoder_by_name(p, n)) {
				snprintf(badbuf, sizeof(badbuf), "%.*s",
					 (int)(n < 31 ? n : 31), p);
				*bad = badbuf;
				return -EINVAL;
			}
			count++;
		}
		p += n;
		p += strspn(p, " ,");
	}
	if (count == 0) {
		*bad = "";
		return -EINVAL;
	}
	return 0;
}

bool vnc_encodings_name(const char *list, const char *name)
{
	const struct decoder *want = decoder_by_name(name, strlen(name));
	const char *p = list;

	while (want && p && *p) {
		size_t n = strcspn(p, " ,");

		if (n && named(p, n, want))
			return true;
		p += n;
		p += strspn(p, " ,");
	}
	return false;
}

/* The decoders with a rank, by rank, their names with a space between. */
static char default_list[256];

static int by_rank(const void *a, const void *b)
{
	const struct decoder *x = *(const struct decoder *const *)a;
	const struct decoder *y = *(const struct decoder *const *)b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void make_default(void)
{
	const struct decoder *d, *ranked[64];
	size_t n = 0, at = 0;

	for (size_t i = 0; (d = decoder_at(i)) && n < 64; i++)
		if (d->rank)
			ranked[n++] = d;
	qsort(ranked, n, sizeof(ranked[0]), by_rank);
	for (size_t i = 0; i < n; i++) {
		int k = snprintf(default_list + at, sizeof(default_list) - at,
				 "%s%s", i ? " " : "", ranked[i]->name);

		if (k < 0 || (size_t)k >= sizeof(default_list) - at)
			break;
		at += (size_t)k;
	}
}

const char *vnc_default_encodings(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, make_default);
	return default_list;
}

static char expected[512];

static void make_expected(void)
{
	const struct decoder *d;
	size_t at = 0;
	int k = snprintf(expected, sizeof(expected), "expected names from:");

	at = k > 0 ? (size_t)k : 0;
	for (size_t i = 0; (d = decoder_at(i)) && at < sizeof(expected); i++) {
		k = snprintf(expected + at, sizeof(expected) - at, " %s%s%s",
			     d->name, d->alias ? " " : "",
			     d->alias ? d->alias : "");
		at += k > 0 ? (size_t)k : 0;
	}
}

const char *vnc_encodings_expected(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, make_expected);
	return expected;
}

size_t vnc_enc_numbers(const char *list, int32_t *out, size_t max)
{
	const char *p = list;
	size_t n = 0;

	while (*p && n < max) {
		size_t len = strcspn(p, " ,");
		const struct decoder *d = len ? decoder_by_name(p, len) : NULL;

		if (d)
			out[n++] = d->enc;
		p += len;
		p += strspn(p, " ,");
	}
	return n;
}

void vnc_enc_describe(const int32_t *encs, size_t n, char *buf, size_t len)
{
	const struct decoder *dec;
	size_t at = 0;
	int q = -1, k;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++) {
		int64_t d = (int64_t)encs[i] - RFB_ENC_QUALITY0;

		if (d >= 0 && d <= 9)
			q = (int)d;
		/* Rectangle encodings are numbered from 0 up. */
		dec = encs[i] >= 0 ? decoder_find(encs[i]) : NULL;
		if (!dec)
			continue;
		k = snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
			     dec->label);
		at += k > 0 ? (size_t)k : 0;
	}
	if (at >= len)
		return;
	if (q >= 0)
		snprintf(buf + at, len - at, "%sJPEG quality %d",
			 at ? ", " : "", q);
	else
		snprintf(buf + at, len - at, "%sno JPEG quality level",
			 at ? "; " : "");
}
