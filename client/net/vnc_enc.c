/* Encoding names and their RFB numbers (vnc_enc.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "wire/rfb.h"
#include "net/vnc_enc.h"

struct enc_name {
	const char *name;
	int32_t enc;
};

static const struct enc_name enc_names[] = {
	{ "raw", RFB_ENC_RAW },
	{ "copyrect", RFB_ENC_COPYRECT },
	{ "rre", RFB_ENC_RRE },
	{ "corre", RFB_ENC_CORRE },
	{ "hextile", RFB_ENC_HEXTILE },
	{ "zlib", RFB_ENC_ZLIB },
	{ "tight", RFB_ENC_TIGHT },
	{ "trle", RFB_ENC_TRLE },
	{ "zrle", RFB_ENC_ZRLE },
	{ "zywrle", RFB_ENC_ZYWRLE },
	{ "ultra", RFB_ENC_ULTRA },
#ifdef VNCFB_HAVE_H264
	{ "h264", RFB_ENC_H264 },
#endif
};

/* Open H.264 where the build decodes it, first after CopyRect: a server
 * that sends it chooses it for video-like content. It is lossy, so the
 * default list offers it only with --quality (vnc_send.c). */
#ifdef VNCFB_HAVE_H264
#define DEFAULT_ENCODINGS \
	"copyrect h264 tight zrle hextile zlib corre rre raw"
#else
#define DEFAULT_ENCODINGS "copyrect tight zrle hextile zlib corre rre raw"
#endif

static const struct enc_name *find_enc(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(enc_names) / sizeof(enc_names[0]); i++)
		if (strlen(enc_names[i].name) == n &&
		    strncasecmp(enc_names[i].name, s, n) == 0)
			return &enc_names[i];
	return NULL;
}

int vnc_check_encodings(const char *list, const char **bad)
{
	static char badbuf[32];
	const char *p = list;
	int count = 0;

	while (p && *p) {
		size_t n = strcspn(p, " ,");

		if (n > 0) {
			if (!find_enc(p, n)) {
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
	const struct enc_name *want = find_enc(name, strlen(name));
	const char *p = list;

	while (want && p && *p) {
		size_t n = strcspn(p, " ,");

		if (n && find_enc(p, n) == want)
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
		const struct enc_name *e = len ? find_enc(p, len) : NULL;

		/* ZYWRLE (ZRLE after a lossy wavelet) has no decoder in
		 * vncfb: its lossless sibling ZRLE takes its place. */
		if (e && e->enc == RFB_ENC_ZYWRLE)
			e = find_enc("zrle", 4);
		if (e)
			out[n++] = e->enc;
		p += len;
		p += strspn(p, " ,");
	}
	return n;
}
