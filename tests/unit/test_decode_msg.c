/* The message reader: every server message and pseudo-encoding vncfb
 * asks for, the update request sent at each update's header, cursor
 * shapes (cut down when large), and the checks on sizes and counts. */
#include "config.h"

#include "../check.h"
#include "decode/decode_priv.h"
#include "decode/decpool.h"
#include "rfbgen.h"

int test_messages(void);

static void test_simple_messages(void)
{
	struct buf s = {0};
	struct fix f;

	fix_open(&f, "xrgb8888", 32, 16);
	u8(&s, RFB_MSG_BELL);
	/* Colour map entries, read whole (3 colours), then text. */
	u8(&s, RFB_MSG_COLOUR_MAP);
	u8(&s, 0);
	u16(&s, 10);
	u16(&s, 3);
	put(&s, "rrggbbRRGGBBrrggbb", 18);
	u8(&s, RFB_MSG_CUT_TEXT);
	put(&s, "\0\0\0", 3);
	u32(&s, 5);
	put(&s, "hello", 5);
	u8(&s, RFB_MSG_BELL);
	fbu(&s, 0);
	CHECK(fix_feed(&f, &s) == 5, "messages: %s", f.why);
	CHECK(!strcmp(f.log, "bell bell request 32x16 done"), "events: %s",
	      f.log);
	s.n = 0;
	u8(&s, 42);
	CHECK(fix_feed(&f, &s) < 0 && f.err == VNC_ERR_PROTOCOL &&
		  !strcmp(f.why, "sent message type 42, which vncfb did "
				 "not ask for"),
	      "unknown message: %s", f.why);
	fix_free(&f);
	free(s.p);
}

static void test_pseudo(void)
{
	struct buf s = {0};
	struct fix f;

	fix_open(&f, "rgb565", 32, 16);
	/* One update: pointer, LEDs, QEMU keys, ExtendedMouseButtons'
	 * confirmation, a name, a new size and a
	 * rectangle in it, LastRect before the count runs out. */
	fbu(&s, 65535);
	rhdr(&s, 7, 9, 0, 0, RFB_ENC_POINTERPOS);
	rhdr(&s, 3, 0, 0, 0, RFB_ENC_LEDSTATE);
	rhdr(&s, 0, 0, 0, 0, RFB_ENC_QEMU_KEYS);
	rhdr(&s, 0, 0, 0, 0, RFB_ENC_EXT_MOUSE);
	rhdr(&s, 0, 0, 0, 0, RFB_ENC_DESKTOPNAME);
	u32(&s, 5);
	put(&s, "a\0b\x1b!", 5);
	rhdr(&s, 0, 0, 40, 20, RFB_ENC_DESKTOPSIZE);
	rhdr(&s, 36, 18, 4, 2, RFB_ENC_RAW);
	put(&s, "0123456789abcdef", 16);
	rhdr(&s, 0, 0, 0, 0, RFB_ENC_LASTRECT);
	/* The same size again changes nothing; a failed request neither. */
	fbu(&s, 3);
	rhdr(&s, 0, 0, 40, 20, RFB_ENC_DESKTOPSIZE);
	rhdr(&s, 1, 5, 50, 30, RFB_ENC_EXTDESKTOPSIZE);
	put(&s, "\1\0\0\0", 4);
	put(&s, "0123456789abcdef", 16);
	/* QEMU's: screen id 0. */
	rhdr(&s, 0, 0, 64, 48, RFB_ENC_EXTDESKTOPSIZE);
	put(&s, "\1\0\0\0", 4);
	u32(&s, 0);
	u16(&s, 0), u16(&s, 0), u16(&s, 64), u16(&s, 48);
	u32(&s, 0);
	CHECK(fix_feed(&f, &s) == 2, "pseudo: %s", f.why);
	CHECK(!strcmp(f.log, "request 32x16 pointer 7,9 qemu-keys ext-mouse "
			     "resize "
			     "40x20 request-full 40x20 damage 36,18,4x2 done "
			     "request 40x20 layout 1/5 50x30 1 resize 64x48 "
			     "request-full 64x48 layout 0/0 64x48 1 done"),
	      "events: %s", f.log);
	CHECK(rfb_reader_width(f.r) == 64 && rfb_reader_height(f.r) == 48);
	CHECK(rfb_reader_name(f.r) &&
		  !strcmp(rfb_reader_name(f.r), "a\\x00b\\x1b!"),
	      "name kept as it is shown, escapes visible: %s",
	      rfb_reader_name(f.r) ? rfb_reader_name(f.r) : "(none)");
	CHECK(!memcmp(pic_at(&f.fb, 0, 0), "\0\0\0\0", 4),
	      "the new desktop starts black");
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 0, 0, RFB_ENC_DESKTOPNAME);
	u32(&s, RFB_MAX_NAME + 1);
	CHECK(fix_feed(&f, &s) < 0 && strstr(f.why, "desktop name of 4097 "
						    "bytes"),
	      "name: %s", f.why);
	fix_free(&f);
	free(s.p);
}

/* Messages the reader refuses, each on a fresh 32x16 desktop: the error
 * and the whole line it ends with. */
static const struct bad_msg {
	const char *what, *fmt;
	/* An update of one rectangle (header r), its payload in bytes; or,
	 * where r.w is 0 and r.enc is 0, the message bytes alone. */
	struct {
		unsigned x, y, w, h;
		int32_t enc;
	} r;
	const char *bytes;
	size_t n;
	enum vnc_error err;
	const char *why;
} bad_msgs[] = {
    {"colour map",
     "xrgb8888",
     {0, 0, 0, 0, 0},
     "\x01\0\xff\xff\0\x02", /* first 65535, 2 colours */
     6,
     VNC_ERR_PROTOCOL,
     "sent a bad SetColourMapEntries message: colours 65535 to 65536, "
     "past 65535"},
    {"cut text",
     "xrgb8888",
     {0, 0, 0, 0, 0},
     "\x03\0\0\0\x01\0\0\x01", /* RFB_MAX_CUT_TEXT + 1 bytes */
     8,
     VNC_ERR_PROTOCOL,
     "sent a bad ServerCutText message: 16777217 bytes of text, more "
     "than the 16 MiB limit"},
    /* A message cut short is a closed connection, not a bad one. */
    {"short",
     "xrgb8888",
     {0, 0, 2, 2, RFB_ENC_RAW},
     "abc",
     3,
     VNC_ERR_CLOSED,
     ""},
    {"0x20",
     "rgb565",
     {0, 0, 0, 20, RFB_ENC_DESKTOPSIZE},
     "",
     0,
     VNC_ERR_PROTOCOL,
     "announced an empty 0x20 desktop"},
    {"16385",
     "rgb565",
     {0, 0, 16385, 20, RFB_ENC_DESKTOPSIZE},
     "",
     0,
     VNC_ERR_RESOURCE,
     "announced a 16385x20 desktop, larger than vncfb supports "
     "(16384x16384)"},
    {"encoding",
     "rgb565",
     {0, 0, 4, 4, 1234},
     "",
     0,
     VNC_ERR_PROTOCOL,
     "sent a rectangle in encoding 0x000004d2, which vncfb did not ask "
     "for"},
    {"outside",
     "rgb565",
     {30, 0, 3, 1, RFB_ENC_RAW},
     "",
     0,
     VNC_ERR_PROTOCOL,
     "sent a bad raw rectangle 3x1 at 30,0: outside the 32x16 desktop"},
};

static void test_bad_msgs(void)
{
	struct buf s = {0};
	struct fix f;

	for (size_t i = 0; i < sizeof(bad_msgs) / sizeof(bad_msgs[0]); i++) {
		const struct bad_msg *c = &bad_msgs[i];

		fix_open(&f, c->fmt, 32, 16);
		s.n = 0;
		if (c->r.w || c->r.enc) {
			fbu(&s, 1);
			rhdr(&s, c->r.x, c->r.y, c->r.w, c->r.h, c->r.enc);
		}
		put(&s, c->bytes, c->n);
		CHECK(fix_feed(&f, &s) < 0 && f.err == c->err &&
			  !strcmp(f.why, c->why),
		      "%s: got \"%s\" (error %d), want \"%s\" (error %d)",
		      c->what, f.why, f.err, c->why, c->err);
		fix_free(&f);
	}
	free(s.p);
}

static bool mask_bit(const uint8_t *m, uint32_t w, uint32_t x, uint32_t y)
{
	return m[y * ((w + 7) / 8) + x / 8] >> (7 - x % 8) & 1;
}

static void test_cursors(void)
{
	struct buf s = {0};
	struct fix f;
	uint8_t src[5 * 3 * 4], mask[3], bits[2 * 2];
	bool ok = true;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7);
	mask[0] = 0xa8, mask[1] = 0x50, mask[2] = 0xf8;
	fix_open(&f, "xrgb8888", 32, 16);
	fbu(&s, 2);
	rhdr(&s, 2, 1, 5, 3, RFB_ENC_RICHCURSOR);
	put(&s, src, sizeof(src));
	put(&s, mask, 3);
	/* XCursor: foreground red, background blue; bitmap, mask. */
	rhdr(&s, 8, 0, 9, 2, RFB_ENC_XCURSOR);
	put(&s, "\xff\0\0\0\0\xff", 6);
	bits[0] = 0x80, bits[1] = 0x80, bits[2] = 0x00, bits[3] = 0x00;
	put(&s, bits, 4);
	put(&s, "\xff\x80\xff\x80", 4);
	CHECK(fix_feed(&f, &s) == 1, "cursors: %s", f.why);
	CHECK(f.cursors == 2 && f.cw == 9 && f.ch == 2 && f.cx == 8 &&
	      f.cy == 0);
	CHECK(pixfmt_load(&f.fb.pf, f.cpix) == 0xff0000 &&
		  pixfmt_load(&f.fb.pf, f.cpix + 4) == 0xff &&
		  pixfmt_load(&f.fb.pf, f.cpix + 8 * 4) == 0xff0000,
	      "XCursor colours");
	CHECK(f.cmask[0] && f.cmask[8] && f.cmask[9] && f.cmask[17],
	      "XCursor mask");
	fix_free(&f);

	fix_open(&f, "xrgb8888", 32, 16);
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 2, 1, 5, 3, RFB_ENC_RICHCURSOR);
	put(&s, src, sizeof(src));
	put(&s, mask, 3);
	CHECK(fix_feed(&f, &s) == 1 && f.cursors == 1 && f.cw == 5 &&
	      f.ch == 3 && f.cx == 2 && f.cy == 1);
	for (uint32_t y = 0; y < 3; y++)
		for (uint32_t x = 0; x < 5; x++)
			ok &= !!f.cmask[y * 5 + x] == mask_bit(mask, 5, x, y);
	CHECK(ok && !memcmp(f.cpix, src, sizeof(src)), "RichCursor");
	fix_free(&f);

	/* 300x260, hot spot 290,5: cut to 256x256 around it. */
	fix_open(&f, "rgb565", 32, 16);
	s.n = 0;
	fbu(&s, 3);
	rhdr(&s, 290, 5, 300, 260, RFB_ENC_RICHCURSOR);
	for (uint32_t y = 0; y < 260; y++)
		for (uint32_t x = 0; x < 300; x++) {
			uint16_t v = (uint16_t)(x * 3 + y);

			put(&s, &v, 2);
		}
	for (uint32_t i = 0; i < 38 * 260; i++)
		u8(&s, 0xff);
	/* Hot spot outside the shape, and no shape at all: ignored. */
	rhdr(&s, 4, 0, 4, 4, RFB_ENC_RICHCURSOR);
	put(&s, src, 4 * 4 * 2);
	put(&s, "\0\0\0\0", 4);
	rhdr(&s, 0, 0, 0, 0, RFB_ENC_XCURSOR);
	CHECK(fix_feed(&f, &s) == 1, "large cursor: %s", f.why);
	CHECK(f.cursors == 1 && f.cw == 256 && f.ch == 256 &&
		  f.cx == 290 - 44 && f.cy == 5,
	      "cut to %dx%d hot %d,%d", f.cw, f.ch, f.cx, f.cy);
	/* Pixel (0,0) of the cut is the source's (44,0), the last one its
	 * (299,255). */
	{
		uint16_t v0, v1;

		memcpy(&v0, f.cpix, 2);
		memcpy(&v1, f.cpix + (255 * 256 + 255) * 2, 2);
		CHECK(v0 == 44 * 3 && v1 == 299 * 3 + 255, "cut %u %u", v0, v1);
	}
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 1025, 2, RFB_ENC_XCURSOR);
	CHECK(fix_feed(&f, &s) < 0 &&
		  !strcmp(f.why, "sent a bad XCursor rectangle 1025x2 at "
				 "0,0: a cursor larger than 1024x1024"),
	      "huge cursor: %s", f.why);
	fix_free(&f);
	free(s.p);
}

/* What a job says before it is decoded: the streams it advances, the
 * pixels it reads (for a scheduler, decode.h). */
static void test_jobs(void)
{
	struct pixfmt pf;
	struct dec_fmt df;
	struct vnc_mem_source m;
	struct dec_ctx c;
	struct dec_job j = {0};
	struct buf s = {0};
	static uint8_t fb[64 * 64 * 4];

	pixfmt_from_name("xrgb8888", &pf);
	dec_fmt_init(&df, &pf);
	/* Tight: basic on stream 2, resetting streams 1 and 2; 2x1 is 6
	 * bytes, sent bare. */
	u8(&s, (2 << 4) | 0x06);
	put(&s, "abcdef", 6);
	vnc_mem_source_init(&m, s.p, s.n);
	dec_ctx_init(&c, &m.base, &df);
	c.fb = (struct dec_fb){fb, 64 * 4, 64, 64, &df};
	j.r = (struct rect){0, 0, 2, 1};
	CHECK(dec_rect(&c, &dec_tight, &j) == DEC_OK && j.streams == 0x6,
	      "tight streams %#x", j.streams);
	s.n = 0;
	u8(&s, (1 << 4) | 0x08);
	clen(&s, 2);
	put(&s, "\x78\x9c", 2);
	vnc_mem_source_init(&m, s.p, s.n);
	j.r = (struct rect){0, 0, 4, 1};
	/* read() alone: the data is not worth decoding. */
	j.data.len = 0;
	j.streams = 0;
	CHECK(dec_tight.read(&c, &j) == DEC_OK &&
		  j.streams == ((1u << 1) | 0x8),
	      "tight zlib streams %#x", j.streams);
	s.n = 0;
	u16(&s, 5);
	u16(&s, 6);
	vnc_mem_source_init(&m, s.p, s.n);
	j.r = (struct rect){10, 10, 7, 8};
	CHECK(dec_rect(&c, &dec_copyrect, &j) == DEC_OK && j.src.x == 5 &&
	      j.src.y == 6 && j.src.w == 7 && j.src.h == 8 && !j.streams);
	s.n = 0;
	u32(&s, 0);
	vnc_mem_source_init(&m, s.p, s.n);
	j.r = (struct rect){0, 0, 0, 0};
	CHECK(dec_rect(&c, &dec_zrle, &j) == DEC_OK &&
	      j.streams == DEC_STREAM_ZRLE);
	vnc_mem_source_init(&m, s.p, s.n);
	CHECK(dec_rect(&c, &dec_zlib, &j) == DEC_OK &&
	      j.streams == DEC_STREAM_ZLIB);
	dec_ctx_finish(&c);
	dec_buf_free(&j.data);
	free(s.p);
}

/* --- what may be decoded side by side (decpool.h's rule on the jobs the
 * decoders' read() describes, as the reader hands them to the pool) --- */

struct dep {
	struct vnc_mem_source m;
	struct dec_fmt df;
	struct dec_ctx c;
	uint8_t fb[64 * 64 * 4];
};

/* Read one rectangle of enc at r from s (read() only, as the reader does
 * before it submits) into the pool's view of it; the bytes s has past
 * the rectangle must be left in the source. */
static struct decpool_job dep_read(struct dep *d, const struct decoder *dc,
				   struct rect r, const struct buf *s,
				   size_t after)
{
	struct dec_job j = {.enc = dc->enc, .r = r};
	struct decpool_job pj;
	char nb[16];
	const char *name = decoder_name(dc->enc, nb, sizeof(nb));

	vnc_mem_source_init(&d->m, s->p, s->n);
	d->m.window = fix_window();
	CHECK(dec_read_job(&d->c, dc, &j) == DEC_OK, "%s read: %s", name,
	      d->c.why);
	CHECK(d->m.left == after, "%s read left %zu bytes, want %zu", name,
	      d->m.left, after);
	pj = (struct decpool_job){.r = j.r, .src = j.src, .streams = j.streams};
	dec_buf_free(&j.data);
	return pj;
}

/* A hextile rectangle of solid tiles but one raw tile, then "END". */
static void dep_hextile(struct buf *s, struct rect r)
{
	s->n = 0;
	for (int ty = 0; ty < r.h; ty += 16)
		for (int tx = 0; tx < r.w; tx += 16) {
			if (tx == 16 && ty == 0) {
				int tw = r.w - tx < 16 ? r.w - tx : 16;
				int th = r.h - ty < 16 ? r.h - ty : 16;

				u8(s, 1);
				for (int i = 0; i < tw * th * 4; i++)
					u8(s, (unsigned)i);
				continue;
			}
			u8(s, 2);
			u32(s, 0x00112233);
		}
	put(s, "END", 3);
}

static void test_deps(void)
{
	static struct dep d;
	struct pixfmt pf;
	struct buf s = {0};
	struct decpool_job a, b, c, e, f, g, z1, z2, t1, t1b, t2, fill, tr;

	pixfmt_from_name("xrgb8888", &pf);
	dec_fmt_init(&d.df, &pf);
	dec_ctx_init(&d.c, &d.m.base, &d.df);
	d.c.fb = (struct dec_fb){d.fb, 64 * 4, 64, 64, &d.df};

	/* Hextile: what it overlaps, nothing else; its bytes end where
	 * its tiles do, however far the source read ahead. */
	dep_hextile(&s, (struct rect){0, 0, 32, 32});
	a = dep_read(&d, &dec_hextile, (struct rect){0, 0, 32, 32}, &s, 3);
	dep_hextile(&s, (struct rect){16, 16, 40, 20});
	b = dep_read(&d, &dec_hextile, (struct rect){16, 16, 40, 20}, &s, 3);
	dep_hextile(&s, (struct rect){32, 0, 32, 16});
	c = dep_read(&d, &dec_hextile, (struct rect){32, 0, 32, 16}, &s, 3);
	CHECK(decpool_conflict(&a, &b), "overlapping hextile side by side");
	CHECK(!decpool_conflict(&a, &c) && !a.streams && !c.streams,
	      "disjoint hextile rectangles wait for each other");
	/* CopyRect: after what writes its source or its destination, and
	 * before nothing it does not touch. */
	s.n = 0;
	u16(&s, 4);
	u16(&s, 4);
	put(&s, "END", 3);
	e = dep_read(&d, &dec_copyrect, (struct rect){40, 40, 8, 8}, &s, 3);
	CHECK(decpool_conflict(&a, &e), "CopyRect from a hextile rectangle's "
					"pixels before they are drawn");
	CHECK(!decpool_conflict(&c, &e), "CopyRect waits for a rectangle it "
					 "does not touch");
	s.n = 0;
	u16(&s, 50);
	u16(&s, 50);
	f = dep_read(&d, &dec_copyrect, (struct rect){8, 8, 8, 8}, &s, 0);
	CHECK(decpool_conflict(&a, &f), "CopyRect over a hextile rectangle");
	CHECK(decpool_conflict(&f, &c) == false, "disjoint after CopyRect");
	/* ...and what overwrites a CopyRect's source waits for it. */
	s.n = 0;
	u32(&s, 0);
	put(&s, "\x00\x00\x00\x00", 4);
	g = dep_read(&d, &dec_rre, (struct rect){50, 50, 4, 4}, &s, 0);
	CHECK(decpool_conflict(&f, &g), "RRE over a CopyRect's source");
	CHECK(!decpool_conflict(&c, &g), "disjoint RRE waits");
	/* ZRLE: one stream, in order, even when disjoint. */
	s.n = 0;
	u32(&s, 0);
	z1 = dep_read(&d, &dec_zrle, (struct rect){0, 0, 0, 0}, &s, 0);
	z2 = dep_read(&d, &dec_zrle, (struct rect){0, 0, 0, 0}, &s, 0);
	CHECK(decpool_conflict(&z1, &z2), "ZRLE rectangles side by side");
	CHECK(!decpool_conflict(&c, &z1), "ZRLE waits for hextile elsewhere");
	/* Tight: the same stream in order, other streams and fills side by
	 * side. */
	for (int n = 1; n <= 2; n++) {
		s.n = 0;
		u8(&s, (unsigned)n << 4);
		clen(&s, 2);
		put(&s, "\x78\x9c", 2);
		if (n == 1) {
			t1 = dep_read(&d, &dec_tight,
				      (struct rect){0, 40, 4, 1}, &s, 0);
			d.c.why[0] = '\0';
		} else {
			t2 = dep_read(&d, &dec_tight,
				      (struct rect){0, 50, 4, 1}, &s, 0);
		}
	}
	s.n = 0;
	u8(&s, 1 << 4);
	clen(&s, 2);
	put(&s, "\x78\x9c", 2);
	t1b = dep_read(&d, &dec_tight, (struct rect){10, 60, 4, 1}, &s, 0);
	s.n = 0;
	u8(&s, 0x80);
	put(&s, "abc", 3);
	fill = dep_read(&d, &dec_tight, (struct rect){0, 40, 4, 1}, &s, 0);
	CHECK(decpool_conflict(&t1, &t1b), "Tight stream 1 out of order");
	CHECK(!decpool_conflict(&t1, &t2), "Tight streams 1 and 2 in order");
	CHECK(!fill.streams && decpool_conflict(&t1, &fill) &&
		  !decpool_conflict(&t2, &fill),
	      "Tight fill: streams %#x", fill.streams);
	/* TRLE: tiles walked to their end, then as hextile. */
	s.n = 0;
	u8(&s, 1);
	put(&s, "\x01\x02\x03", 3);
	put(&s, "END", 3);
	tr = dep_read(&d, &dec_trle, (struct rect){48, 0, 16, 16}, &s, 3);
	CHECK(decpool_conflict(&c, &tr) && !decpool_conflict(&a, &tr) &&
		  !tr.streams,
	      "TRLE: overlap rule");
	dec_ctx_finish(&d.c);
	free(s.p);
}

/* Through the reader (and the pool, with threads): a rectangle drawn over
 * a slow one ends on top, and a CopyRect copies what an earlier
 * rectangle drew, however many workers run. */
static void test_deps_reader(void)
{
	struct fix f;
	struct buf s = {0};
	static const uint8_t want[4] = {0x00, 0xa0, 0xb0, 0xc0};

	for (int round = 0; round < 8; round++) {
		fix_open(&f, "xrgb8888", 256, 256);
		s.n = 0;
		fbu(&s, 3);
		/* Slow: 256 raw tiles. */
		rhdr(&s, 0, 0, 256, 256, RFB_ENC_HEXTILE);
		for (int t = 0; t < 256; t++) {
			u8(&s, 1);
			for (int i = 0; i < 256; i++)
				u32(&s, 0x00101010u);
		}
		/* Quick, on top of its lower right corner. */
		rhdr(&s, 128, 128, 128, 128, RFB_ENC_RRE);
		u32(&s, 0);
		u32(&s, 0x00a0b0c0u);
		/* A copy of that corner's pixels onto the top left. */
		rhdr(&s, 0, 0, 16, 16, RFB_ENC_COPYRECT);
		u16(&s, 200);
		u16(&s, 200);
		CHECK(fix_feed(&f, &s) == 1, "deps: %s", f.why);
		/* The pixels as sent (u32: big-endian bytes). */
		CHECK(!memcmp(pic_at(&f.fb, 255, 255), want, 4) &&
			  pic_at(&f.fb, 127, 255)[1] == 0x10,
		      "round %d: the RRE rectangle is not on top", round);
		CHECK(!memcmp(pic_at(&f.fb, 3, 3), want, 4) &&
			  pic_at(&f.fb, 100, 100)[1] == 0x10,
		      "round %d: CopyRect copied before its source was drawn",
		      round);
		fix_free(&f);
	}
	free(s.p);
}

/* Decoding from memory stops soon after the connection is given up
 * (decode.h: dec_check), however large the rectangle: zlib between
 * pieces of its output, ZRLE between rows of tiles. */
static void test_abandon(void)
{
	enum { W = 1024, H = 512 };
	struct pixfmt pf;
	struct dec_fmt df;
	struct quit_source q;
	struct dec_ctx c;
	struct dec_job j = {0};
	struct buf s = {0}, zd = {0};
	uint8_t *fb = calloc((size_t)W * H, 4),
		*pix = malloc((size_t)W * H * 4);
	z_stream z;
	unsigned left;
	size_t half = (size_t)W * H * 2;

	pixfmt_from_name("xrgb8888", &pf);
	dec_fmt_init(&df, &pf);
	for (size_t i = 0; i < (size_t)W * H * 4; i++)
		pix[i] = (uint8_t)(i * 7 + 1);
	zinit(&z);
	zsync(&z, pix, (size_t)W * H * 4, &zd);
	u32(&s, (uint32_t)zd.n);
	put(&s, zd.p, zd.n);
	/* Given up after the first piece (1 MiB of the 2 MiB). */
	left = 1;
	quit_source_init(&q, s.p, s.n, &left);
	dec_ctx_init(&c, &q.m.base, &df);
	c.fb = (struct dec_fb){fb, (size_t)W * 4, W, H, &df};
	j.r = (struct rect){0, 0, W, H};
	CHECK(dec_rect(&c, &dec_zlib, &j) == DEC_EOF, "zlib given up");
	CHECK(fb[half + 5] == 0 && fb[(size_t)W * H * 4 - 1] == 0,
	      "zlib stopped after its first piece");
	dec_ctx_finish(&c);
	/* Not given up: the whole picture. */
	left = 1000;
	quit_source_init(&q, s.p, s.n, &left);
	dec_ctx_init(&c, &q.m.base, &df);
	c.fb = (struct dec_fb){fb, (size_t)W * 4, W, H, &df};
	CHECK(dec_rect(&c, &dec_zlib, &j) == DEC_OK &&
		  !memcmp(fb, pix, (size_t)W * H * 4),
	      "zlib not given up: %s", c.why);
	dec_ctx_finish(&c);
	deflateEnd(&z);
	/* ZRLE: 8x8 solid tiles; given up at once. */
	s.n = zd.n = 0;
	{
		struct buf t = {0};

		for (int i = 0; i < (W / 64) * (H / 64); i++) {
			u8(&t, 1);
			put(&t, "\1\2\3", 3);
		}
		zinit(&z);
		zsync(&z, t.p, t.n, &zd);
		u32(&s, (uint32_t)zd.n);
		put(&s, zd.p, zd.n);
		deflateEnd(&z);
		free(t.p);
	}
	memset(fb, 0, (size_t)W * H * 4);
	left = 0;
	quit_source_init(&q, s.p, s.n, &left);
	dec_ctx_init(&c, &q.m.base, &df);
	c.fb = (struct dec_fb){fb, (size_t)W * 4, W, H, &df};
	CHECK(dec_rect(&c, &dec_zrle, &j) == DEC_EOF &&
		  fb[(size_t)W * H * 4 - 4] == 0,
	      "zrle given up");
	dec_ctx_finish(&c);
	left = 1000000;
	quit_source_init(&q, s.p, s.n, &left);
	dec_ctx_init(&c, &q.m.base, &df);
	c.fb = (struct dec_fb){fb, (size_t)W * 4, W, H, &df};
	CHECK(dec_rect(&c, &dec_zrle, &j) == DEC_OK &&
		  fb[(size_t)W * H * 4 - 4] == 1,
	      "zrle not given up: %s", c.why);
	dec_ctx_finish(&c);
	dec_buf_free(&j.data);
	free(s.p);
	free(zd.p);
	free(fb);
	free(pix);
}

/* One zlib rectangle of p at x,y (w x h) as an update of its own. */
static void zlib_update(struct buf *s, z_stream *z, const struct pic *p,
			uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
	fbu(s, 1);
	zlib_rect(s, z, p, x, y, w, h);
}

/* The data buffers kept for the next rectangles: a burst's (a 5 MiB
 * update of noise) stay while updates of the same size may follow, and
 * go once 64 small ones have, down to the 4 MiB the reader always
 * keeps. */
static void test_kept(void)
{
	struct fix f;
	struct pic p;
	struct buf s = {0};
	z_stream z;
	size_t big;
	int i;

	fix_open(&f, "xrgb8888", 1280, 1024);
	pic_init(&p, "xrgb8888", 1280, 1024);
	pic_random(&p);
	zinit(&z);
	zlib_update(&s, &z, &p, 0, 0, 1280, 1024);
	CHECK(fix_feed(&f, &s) == 1, "big update: %s", f.why);
	big = rfb_reader_kept(f.r);
	CHECK(big >= 1280 * 1024 * 4, "after 5 MiB of zlib: %zu bytes kept",
	      big);
	for (i = 1; i <= 64; i++) {
		s.n = 0;
		zlib_update(&s, &z, &p, (uint32_t)i, 0, 8, 8);
		CHECK(fix_feed(&f, &s) == 1, "small update %d: %s", i, f.why);
		if (i == 63)
			CHECK(rfb_reader_kept(f.r) >= big,
			      "63 small updates after the big one: %zu bytes "
			      "kept, %zu before",
			      rfb_reader_kept(f.r), big);
	}
	CHECK(rfb_reader_kept(f.r) <= 4 << 20,
	      "64 small updates after the big one: %zu bytes kept",
	      rfb_reader_kept(f.r));
	CHECK(f.updates == 65, "%d updates", f.updates);
	deflateEnd(&z);
	fix_free(&f);
	free(p.p);
	free(s.p);
}

int test_messages(void)
{
	test_jobs();
	test_deps();
	test_deps_reader();
	test_kept();
	test_abandon();
	test_simple_messages();
	test_pseudo();
	test_bad_msgs();
	test_cursors();
	return failures;
}
