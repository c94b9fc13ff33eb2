/* Unit test: encoding names to RFB numbers (what SetEncodings offers for
 * --encodings) and the check behind --encodings' usage errors. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "../check.h"
#include "wire/rfb.h"
#include "net/vnc_enc.h"

static void test_numbers(void)
{
	int32_t out[8];
	size_t n;

	/* In the list's order, any case, spaces and commas. */
	n = vnc_enc_numbers("Tight,raw  COPYRECT", out, 8);
	CHECK_EQ(n, 3);
	CHECK(out[0] == RFB_ENC_TIGHT && out[1] == RFB_ENC_RAW &&
	      out[2] == RFB_ENC_COPYRECT);
	/* Unknown names and empty items are skipped, not offered. */
	n = vnc_enc_numbers(",,bogus hextile ,zrle2 trle,", out, 8);
	CHECK_EQ(n, 2);
	CHECK(out[0] == RFB_ENC_HEXTILE && out[1] == RFB_ENC_TRLE);
	/* No ZYWRLE decoder: its lossless sibling is offered instead. */
	n = vnc_enc_numbers("zywrle ultra", out, 8);
	CHECK_EQ(n, 2);
	CHECK(out[0] == RFB_ENC_ZRLE && out[1] == RFB_ENC_ULTRA);
	/* A prefix of a name is not the name. */
	CHECK_EQ(vnc_enc_numbers("zl tig", out, 8), 0);
	/* At most max, and nothing written beyond. */
	out[2] = 12345;
	n = vnc_enc_numbers("raw rre corre zlib", out, 2);
	CHECK_EQ(n, 2);
	CHECK(out[0] == RFB_ENC_RAW && out[1] == RFB_ENC_RRE &&
	      out[2] == 12345);
	CHECK_EQ(vnc_enc_numbers("", out, 8), 0);
}

static void test_check(void)
{
	const char *bad = NULL;
	int32_t out[16];

	CHECK_EQ(vnc_check_encodings("tight, ZRLE raw", &bad), 0);
	CHECK(vnc_check_encodings("tight jpeg2000 raw", &bad) < 0 &&
	      strcmp(bad, "jpeg2000") == 0);
	/* TigerVNC's JPEG encoding (21) by name. */
	CHECK(vnc_check_encodings("tight jpeg", &bad) == 0 &&
	      vnc_enc_numbers("JPEG", out, 16) == 1 && out[0] == RFB_ENC_JPEG);
	CHECK(vnc_check_encodings(" , ", &bad) < 0 && strcmp(bad, "") == 0);
	/* A long unknown name is cut, not overrun. */
	CHECK(vnc_check_encodings("raw "
				  "abcdefghijklmnopqrstuvwxyz0123456789",
				  &bad) < 0 &&
	      strlen(bad) == 31);
	/* The default list is valid and offered whole. */
	CHECK_EQ(vnc_check_encodings(vnc_default_encodings(), &bad), 0);
#ifdef VNCFB_HAVE_H264
	/* Open H.264 second (offered with --quality: vnc_send.c). */
	CHECK_EQ(vnc_enc_numbers(vnc_default_encodings(), out, 16), 9);
	CHECK_EQ(out[1], RFB_ENC_H264);
	CHECK_EQ(vnc_check_encodings("h264", &bad), 0);
#else
	CHECK_EQ(vnc_enc_numbers(vnc_default_encodings(), out, 16), 8);
	CHECK(vnc_check_encodings("h264", &bad) < 0);
#endif
	CHECK_EQ(out[0], RFB_ENC_COPYRECT);
}

/* What a message says vncfb offered: the rectangle encodings by name,
 * then the JPEG quality level or its absence; other pseudo-encodings
 * left out; cut short in a small buffer, still terminated. */
static void test_describe(void)
{
	const int32_t lossless[] = { RFB_ENC_COPYRECT, RFB_ENC_TIGHT,
				     RFB_ENC_ZRLE, RFB_ENC_RAW,
				     RFB_ENC_COMPRESS0 + 6, RFB_ENC_LASTRECT };
	const int32_t jpeg[] = { RFB_ENC_H264, RFB_ENC_TIGHT, RFB_ENC_JPEG,
				 RFB_ENC_QUALITY0 + 8, RFB_ENC_FENCE };
	char buf[128], small[12];

	vnc_enc_describe(lossless, 6, buf, sizeof(buf));
	CHECK(strcmp(buf, "CopyRect, Tight, ZRLE, raw; no JPEG quality "
			  "level") == 0,
	      "lossless: %s", buf);
	vnc_enc_describe(jpeg, 5, buf, sizeof(buf));
	CHECK(strcmp(buf, "Open H.264, Tight, JPEG, JPEG quality 8") == 0,
	      "jpeg: %s", buf);
	vnc_enc_describe(lossless, 6, small, sizeof(small));
	CHECK(strlen(small) == sizeof(small) - 1, "small: %s", small);
	vnc_enc_describe(jpeg, 0, buf, sizeof(buf));
	CHECK(strcmp(buf, "no JPEG quality level") == 0, "none: %s", buf);
}

int main(void)
{
	test_numbers();
	test_check();
	test_describe();
	return check_done("vnc_enc");
}
