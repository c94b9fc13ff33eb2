/* Unit test: encoding names to RFB numbers (what SetEncodings offers for
 * --encodings) and the check behind --encodings' usage errors, both read
 * from the decoders' descriptors; the ops tables' required hooks. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "../check.h"
#include "decode/decode.h"
#include "output/output.h"
#include "platform/input.h"
#include "net/vnc_enc.h"
#include "wire/rfb.h"

/* got is a string equal to want (got may be NULL). */
#define CHECK_STR(got, want)                                                \
	do {                                                                \
		const char *got_ = (got);                                   \
		CHECK(got_ && strcmp(got_, want) == 0, "%s: got \"%s\"", #got, \
		      got_ ? got_ : "(null)");                              \
	} while (0)

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

/* The names and the default list come from the decoders' descriptors:
 * the same words --encodings took when they were lists of their own. */
static void test_descriptors(void)
{
#ifdef VNCFB_HAVE_H264
	CHECK_STR(vnc_default_encodings(),
		  "copyrect h264 tight zrle hextile zlib corre rre raw");
	CHECK_STR(vnc_encodings_expected(),
		  "expected names from: raw copyrect rre corre hextile zlib "
		  "tight trle zrle zywrle ultra jpeg h264");
#else
	CHECK_STR(vnc_default_encodings(),
		  "copyrect tight zrle hextile zlib corre rre raw");
	CHECK_STR(vnc_encodings_expected(),
		  "expected names from: raw copyrect rre corre hextile zlib "
		  "tight trle zrle zywrle ultra jpeg");
#endif
	/* A name or an alias, any case; a label is not a name. */
	CHECK(decoder_by_name("ZRLE", 4) == decoder_find(RFB_ENC_ZRLE));
	CHECK(decoder_by_name("zywrle", 6) == decoder_find(RFB_ENC_ZRLE));
	CHECK(decoder_by_name("CoRRE", 5) == decoder_find(RFB_ENC_CORRE));
	CHECK(decoder_by_name("Open H.264", 10) == NULL);
	/* What the cursor and SetEncodings read of them. */
	CHECK(decoder_find(RFB_ENC_TIGHT)->flags & DEC_QUALITY);
	CHECK(decoder_find(RFB_ENC_JPEG)->flags & DEC_NO_CURSOR);
	CHECK(!(decoder_find(RFB_ENC_HEXTILE)->flags & DEC_LOSSY));
}

static int no_open(struct output *out, const char *arg)
{
	(void)out;
	(void)arg;
	return 0;
}

static void no_close(struct output *out)
{
	(void)out;
}

static int no_read(struct dec_ctx *c, struct dec_job *j)
{
	(void)c;
	(void)j;
	return DEC_OK;
}

/* A table that lacks a hook it must have is refused where it is taken
 * into use; the real ones are whole. */
static void test_required_hooks(void)
{
	const struct output_impl out_no_close = {.name = "x",
						 .open = no_open};
	const struct output_impl out_whole = {.name = "x", .open = no_open,
					      .close = no_close};
	const struct input_impl in_no_dispatch = {.name = "x"};
	const struct decoder dec_no_read = {.enc = 99, .name = "x",
					    .label = "X"};
	const struct decoder dec_no_label = {.enc = 99, .name = "x",
					     .read = no_read};
	const struct decoder dec_whole = {.enc = 99, .name = "x",
					  .label = "X", .read = no_read};

	CHECK_STR(output_impl_missing(&out_no_close), "close");
	CHECK(output_impl_missing(&out_whole) == NULL);
	CHECK_STR(input_impl_missing(&in_no_dispatch), "open");
	CHECK_STR(decoder_missing(&dec_no_read), "read");
	CHECK_STR(decoder_missing(&dec_no_label), "label");
	CHECK(decoder_missing(&dec_whole) == NULL);
	CHECK_EQ(decoders_check(), 0);
	for (size_t i = 0; decoder_at(i); i++)
		CHECK(decoder_missing(decoder_at(i)) == NULL);
	if (platform_input)
		CHECK(input_impl_missing(platform_input) == NULL);
}

int main(void)
{
	test_descriptors();
	test_required_hooks();
	test_numbers();
	test_check();
	test_describe();
	return check_done("vnc_enc");
}
