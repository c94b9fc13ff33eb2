/* Encoding lists: --encodings checked, and turned into RFB numbers
 * (vnc_enc.h); the names are wire/encodings.c's. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "net/vnc_enc.h"
#include "wire/encodings.h"
#include "wire/rfb.h"

/* Open H.264 where the build decodes it, first after CopyRect: a server
 * that sends it chooses it for video-like content. It is lossy, so the
 * default list offers it only with --quality (vnc_send.c). */
#ifdef VNCFB_HAVE_H264
#define DEFAULT_ENCODINGS \
	"copyrect h264 tight zrle hextile zlib corre rre raw"
#else
#define DEFAULT_ENCODINGS "copyrect tight zrle hextile zlib corre rre raw"
#endif

int vnc_check_encodings(const char *list, const char **bad)
{
	static char badbuf[32];
	const char *p = list;
	int count = 0;

	while (p && *p) {
		size_t n = strcspn(p, " ,");

		if (n > 0) {
			if (!rfb_encoding_by_option(p, n)) {
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
	const struct rfb_encoding *want =
	    rfb_encoding_by_option(name, strlen(name));
	const char *p = list;

	while (want && p && *p) {
		size_t n = strcspn(p, " ,");

		if (n && rfb_encoding_by_option(p, n) == want)
			return true;
		p += n;
		p += strspn(p, " ,");
	}
	return false;
}

const char *vnc_default_encodings(void)
{
	return DEFAULT_ENCODINGS;
}

size_t vnc_enc_numbers(const char *list, int32_t *out, size_t max)
{
	const char *p = list;
	size_t n = 0;

	while (*p && n < max) {
		size_t len = strcspn(p, " ,");
		const struct rfb_encoding *e =
		    len ? rfb_encoding_by_option(p, len) : NULL;

		/* ZYWRLE (ZRLE after a lossy wavelet) has no decoder in
		 * vncfb: its lossless sibling ZRLE takes its place. */
		if (e && e->enc == RFB_ENC_ZYWRLE)
			e = rfb_encoding_by_number(RFB_ENC_ZRLE);
		if (e)
			out[n++] = e->enc;
		p += len;
		p += strspn(p, " ,");
	}
	return n;
}

void vnc_enc_describe(const int32_t *encs, size_t n, char *buf, size_t len)
{
	const struct rfb_encoding *e;
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
		e = encs[i] >= 0 ? rfb_encoding_by_number(encs[i]) : NULL;
		if (!e)
			continue;
		k = snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
			     e->label);
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
