/* Write the reader fuzz target's Open H.264 seeds (tests/fuzz/reader.c's
 * layout: format byte, width, height, the server's messages) into DIR,
 * encoded by libavcodec (client/tools/demo/h264enc.h). Run by hand (usage:
 * mkh264seeds DIR); the output is committed in tests/fuzz/reader-corpus,
 * so that fuzz-replay-reader plays them under ASan and UBSan. */
#include "config.h"


#include "../check.h"
#include "../h264scene.h"
#include "tools/demo/h264enc.h"
#include "../unit/rfbgen.h"

static void scene(uint8_t *rgb, int w, int h, int t)
{
	h264scene_wave(rgb, w, h, t * 3, 7.0);
}

/* Frame t of e (w x h) as one rectangle at x,y of rw x rh. */
static void rect(struct buf *s, struct h264enc *e, int w, int h, int t,
		 bool idr, unsigned x, unsigned y, unsigned rw, unsigned rh,
		 uint32_t flags, size_t cut)
{
	uint8_t *rgb = malloc((size_t)w * h * 3);
	const uint8_t *d;
	size_t n;

	scene(rgb, w, h, t);
	if (h264enc_frame(e, rgb, (size_t)w * 3, idr, &d, &n) < 0)
		abort();
	rhdr(s, x, y, rw, rh, RFB_ENC_H264);
	u32(s, (uint32_t)n);
	u32(s, flags);
	put(s, d, cut && cut < n ? cut : n);
	free(rgb);
}

/* A new encoder of w x h in place of old (NULL: none yet); exits where
 * libavcodec has none, as a tool run by hand may. */
static struct h264enc *encoder(struct h264enc *old, int w, int h)
{
	struct h264enc *e;

	h264enc_destroy(old);
	e = h264enc_create(w, h, 23);
	if (!e)
		exit(1);
	return e;
}

/* The seed NAME: fmt, w, h, then msgs, which are emptied for the next
 * one unless keep. */
static void seed(const char *dir, const char *name, unsigned fmt, unsigned w,
		 unsigned h, struct buf *msgs, bool keep)
{
	reader_seed(dir, name, fmt, w, h, msgs, NULL);
	if (!keep) {
		free(msgs->p);
		*msgs = (struct buf){0};
	}
}

int main(int argc, char **argv)
{
	struct h264enc *e, *t[65];
	struct buf s = {0};

	if (argc != 2) {
		fprintf(stderr, "usage: mkh264seeds DIR\n");
		return 2;
	}
	/* Six frames, one update each (rgb565, and xrgb8888 parsed from a
	 * 64-byte window). */
	e = encoder(NULL, 64, 48);
	for (int i = 0; i < 6; i++) {
		fbu(&s, 1);
		rect(&s, e, 64, 48, i, i == 0, 0, 0, 64, 48, 0, 0);
	}
	seed(argv[1], "h264-anim", 1, 64, 48, &s, true);
	seed(argv[1], "h264-anim-window", 0x60, 64, 48, &s, true);
	/* Then ResetContext with a new stream, ResetAllContexts alone and
	 * a P frame with no references left. */
	e = encoder(e, 64, 48);
	fbu(&s, 1);
	rect(&s, e, 64, 48, 9, true, 0, 0, 64, 48, 1, 0);
	fbu(&s, 1);
	rhdr(&s, 0, 0, 64, 48, RFB_ENC_H264);
	u32(&s, 0);
	u32(&s, 2);
	fbu(&s, 1);
	rect(&s, e, 64, 48, 10, false, 0, 0, 64, 48, 0, 0);
	seed(argv[1], "h264-reset", 0, 64, 48, &s, false);
	/* Three frames in one rectangle; a frame larger than its rectangle;
	 * one smaller. */
	fbu(&s, 1);
	{
		struct buf all = {0}, one = {0};

		e = encoder(e, 64, 48);
		for (int i = 0; i < 3; i++) {
			one.n = 0;
			rect(&one, e, 64, 48, i, i == 0, 0, 0, 64, 48, 0, 0);
			put(&all, one.p + 20, one.n - 20);
		}
		rhdr(&s, 0, 0, 64, 48, RFB_ENC_H264);
		u32(&s, (uint32_t)all.n);
		u32(&s, 1);
		put(&s, all.p, all.n);
		free(all.p);
		free(one.p);
	}
	fbu(&s, 1);
	rect(&s, e, 64, 48, 4, false, 3, 5, 41, 37, 0, 0);
	fbu(&s, 1);
	rect(&s, e, 64, 48, 5, false, 0, 0, 70, 48, 0, 0);
	seed(argv[1], "h264-sizes", 2, 80, 60, &s, false);
	/* 65 contexts of 16x16, then the evicted first one's P frame. */
	fbu(&s, 66);
	for (int i = 0; i < 65; i++) {
		t[i] = encoder(NULL, 16, 16);
		rect(&s, t[i], 16, 16, i, true, (unsigned)(i % 13) * 16,
		     (unsigned)(i / 13) * 16, 16, 16, 0, 0);
	}
	rect(&s, t[0], 16, 16, 70, false, 0, 0, 16, 16, 0, 0);
	seed(argv[1], "h264-contexts-65", 0, 208, 80, &s, false);
	for (int i = 0; i < 65; i++)
		h264enc_destroy(t[i]);
	/* Cut short inside the data. */
	e = encoder(e, 64, 48);
	fbu(&s, 1);
	rect(&s, e, 64, 48, 0, true, 0, 0, 64, 48, 0, 300);
	seed(argv[1], "h264-cut", 0, 64, 48, &s, false);
	h264enc_destroy(e);
	return 0;
}
