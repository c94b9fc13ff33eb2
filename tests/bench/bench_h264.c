/* The cost of an Open H.264 frame in vncfb against a bare libavcodec
 * decode loop of the same stream, at 1080p by default (not part of
 * vncfb). One stream is encoded once (libx264 through libavcodec,
 * client/tools/demo/h264enc.h), then played REPEAT times through each of:
 *
 *   bare     avcodec_send_packet + avcodec_receive_frame, nothing else
 *   bare+sws the same and sws_scale into a bgr0 buffer (the least a
 *            viewer must do to show it)
 *   vncfb    each frame as a FramebufferUpdate of one Open H.264
 *            rectangle through vncfb's reader into an xrgb8888 shadow
 *            (memory source, decoding inline on this thread)
 *
 * in turn, frame by frame interleaved, so the three see the same noise.
 * Per frame: median, p99, max (thread CPU time, ns) and the ratios of
 * the medians and the p99s to bare.
 *
 * usage: bench_h264 [--size WxH] [--frames N] [--repeat R] [--crf Q]
 *        [--check]   (--check: a short run whose output is checked for
 *                     shape, as the other bench tests, and whose last
 *                     picture in vncfb's shadow is checked against the
 *                     scene it was encoded from: the mean error of each
 *                     channel, and the red box's colour) */
#include "config.h"

#include <math.h>
#include <time.h>

#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>

#include "../check.h"
#include "tools/demo/h264enc.h"
#include "../unit/rfbgen.h"
#include "util/stats.h"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void scene(uint8_t *rgb, int w, int h, int t)
{
	int bw = w / 8, bx = (t * 11) % (w - bw);

	for (int y = 0; y < h; y++) {
		uint8_t *p = rgb + (size_t)y * w * 3;

		for (int x = 0; x < w; x++, p += 3) {
			p[0] = (uint8_t)(x * 255 / (w - 1));
			p[1] = (uint8_t)(y * 255 / (h - 1));
			p[2] =
			    (uint8_t)(128 + 100 * sin((x + y + t * 5) / 40.0));
			if (x >= bx && x < bx + bw && y >= h / 3 &&
			    y < h / 3 + bw) {
				p[0] = 240;
				p[1] = 32;
				p[2] = 32;
			}
		}
	}
}

struct bare {
	AVCodecContext *av;
	AVPacket *pkt;
	AVFrame *f;
	struct SwsContext *sws;
	uint8_t *out;
};

static void bare_open(struct bare *b, int w, int h, bool sws)
{
	const AVCodec *c = avcodec_find_decoder(AV_CODEC_ID_H264);

	b->av = avcodec_alloc_context3(c);
	b->av->flags |= AV_CODEC_FLAG_LOW_DELAY;
	b->av->thread_count = 1;
	if (avcodec_open2(b->av, c, NULL) < 0)
		abort();
	b->pkt = av_packet_alloc();
	b->f = av_frame_alloc();
	b->out = sws ? malloc((size_t)w * h * 4) : NULL;
	b->sws = NULL;
}

static void bare_frame(struct bare *b, uint8_t *data, size_t len, int w, int h)
{
	b->pkt->data = data;
	b->pkt->size = (int)len;
	if (avcodec_send_packet(b->av, b->pkt) < 0 ||
	    avcodec_receive_frame(b->av, b->f) < 0)
		abort();
	if (b->out) {
		uint8_t *dst[4] = {b->out};
		int stride[4] = {w * 4};

		if (!b->sws)
			b->sws = sws_getContext(w, h, b->f->format, w, h,
						AV_PIX_FMT_BGR0, SWS_POINT,
						NULL, NULL, NULL);
		sws_scale(b->sws, (const uint8_t *const *)b->f->data,
			  b->f->linesize, 0, h, dst, stride);
	}
}

static void bare_close(struct bare *b)
{
	avcodec_free_context(&b->av);
	av_packet_free(&b->pkt);
	av_frame_free(&b->f);
	sws_freeContext(b->sws);
	free(b->out);
}

static void report(const char *name, struct samples *s,
		   const struct summary *ref)
{
	struct summary m;

	stats_summarize(s, &m);
	printf("%-9s frames %zu  median %7.3f ms  p99 %7.3f ms  max %7.3f ms",
	       name, m.n, m.median / 1e6, m.p99 / 1e6, m.max / 1e6);
	if (ref)
		printf("  ratio median %.3f  p99 %.3f",
		       (double)m.median / (double)ref->median,
		       (double)m.p99 / (double)ref->p99);
	printf("\n");
}

/* Whether the shadow f holds something else than frame t of the scene
 * (lossy: each channel's mean error over 6 levels, or the red box's
 * middle more than 32 off its 240,32,32), said on stderr. */
static bool picture_wrong(const struct fix *f, uint8_t *rgb, int w, int h,
			  int t)
{
	double err[3] = {0, 0, 0};
	int bw = w / 8, bx = (t * 11) % (w - bw);
	uint8_t box[3];
	bool bad = false;

	scene(rgb, w, h, t);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			const uint8_t *want = rgb + ((size_t)y * w + x) * 3;
			uint8_t got[3];

			pixfmt_unpack(&f->fb.pf,
				      pixfmt_load(&f->fb.pf,
						  pic_at(&f->fb, (uint32_t)x,
							 (uint32_t)y)),
				      &got[0], &got[1], &got[2]);
			for (int c = 0; c < 3; c++)
				err[c] += abs((int)got[c] - (int)want[c]);
		}
	pixfmt_unpack(&f->fb.pf,
		      pixfmt_load(&f->fb.pf,
				  pic_at(&f->fb, (uint32_t)(bx + bw / 2),
					 (uint32_t)(h / 3 + bw / 2))),
		      &box[0], &box[1], &box[2]);
	for (int c = 0; c < 3; c++) {
		err[c] /= (double)w * h;
		bad |= err[c] > 6;
	}
	bad |= abs(box[0] - 240) > 32 || abs(box[1] - 32) > 32 ||
	       abs(box[2] - 32) > 32;
	fprintf(stderr,
		"picture: mean error R %.2f G %.2f B %.2f; the red box "
		"%u,%u,%u%s\n",
		err[0], err[1], err[2], box[0], box[1], box[2],
		bad ? ": wrong" : "");
	return bad;
}

int main(int argc, char **argv)
{
	int w = 1920, h = 1080, n = 120, repeat = 3, crf = 23;
	struct samples s_bare = {0}, s_sws = {0}, s_vnc = {0};
	struct summary ref;
	struct buf *msgs;
	uint8_t **data;
	size_t *len, total = 0;
	uint8_t *rgb;
	struct h264enc *e;
	bool check = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc)
			sscanf(argv[++i], "%dx%d", &w, &h);
		else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--crf") && i + 1 < argc)
			crf = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--check")) {
			w = 320, h = 240, n = 20, repeat = 1;
			check = true;
		} else {
			fprintf(stderr, "usage: bench_h264 [--size WxH] "
					"[--frames N] [--repeat R] [--crf Q] "
					"[--check]\n");
			return 2;
		}
	}
	if (w < 64 || h < 64 || n < 1 || repeat < 1)
		return 2;
	e = h264enc_create(w, h, crf);
	if (!e)
		return 1;
	rgb = malloc((size_t)w * h * 3);
	data = calloc((size_t)n, sizeof(*data));
	len = calloc((size_t)n, sizeof(*len));
	msgs = calloc((size_t)n, sizeof(*msgs));
	for (int t = 0; t < n; t++) {
		const uint8_t *p;

		scene(rgb, w, h, t);
		if (h264enc_frame(e, rgb, (size_t)w * 3, t == 0, &p, &len[t]) <
		    0)
			return 1;
		data[t] = malloc(len[t] + AV_INPUT_BUFFER_PADDING_SIZE);
		memcpy(data[t], p, len[t]);
		memset(data[t] + len[t], 0, AV_INPUT_BUFFER_PADDING_SIZE);
		total += len[t];
		fbu(&msgs[t], 1);
		rhdr(&msgs[t], 0, 0, (unsigned)w, (unsigned)h, RFB_ENC_H264);
		u32(&msgs[t], (uint32_t)len[t]);
		u32(&msgs[t], 0);
		put(&msgs[t], p, len[t]);
	}
	printf("stream: %dx%d, %d frames by %s crf %d, %.1f KiB a frame; "
	       "%d plays; one thread, CPU time\n",
	       w, h, n, h264enc_name(e), crf, total / 1024.0 / n, repeat);
	for (int r = 0; r < repeat; r++) {
		struct bare b, bs;
		struct fix f;

		bare_open(&b, w, h, false);
		bare_open(&bs, w, h, true);
		fix_open(&f, "xrgb8888", (uint32_t)w, (uint32_t)h);
		for (int t = 0; t < n; t++) {
			uint64_t t0 = cpu_ns(), t1, t2, t3;

			bare_frame(&b, data[t], len[t], w, h);
			t1 = cpu_ns();
			bare_frame(&bs, data[t], len[t], w, h);
			t2 = cpu_ns();
			if (fix_feed(&f, &msgs[t]) != 1) {
				fprintf(stderr, "vncfb: %s\n", f.why);
				return 1;
			}
			t3 = cpu_ns();
			/* The first frame of a play opens the decoders. */
			if (t == 0)
				continue;
			stats_add(&s_bare, t1 - t0);
			stats_add(&s_sws, t2 - t1);
			stats_add(&s_vnc, t3 - t2);
		}
		if (check && picture_wrong(&f, rgb, w, h, n - 1))
			return 1;
		bare_close(&b);
		bare_close(&bs);
		fix_free(&f);
	}
	stats_summarize(&s_bare, &ref);
	report("bare", &s_bare, NULL);
	report("bare+sws", &s_sws, &ref);
	report("vncfb", &s_vnc, &ref);
	{
		struct summary v, sw;

		stats_summarize(&s_vnc, &v);
		stats_summarize(&s_sws, &sw);
		printf("vncfb / bare+sws: median %.3f  p99 %.3f; vncfb "
		       "%.0f frames/s of one core's CPU at the median\n",
		       (double)v.median / sw.median, (double)v.p99 / sw.p99,
		       1e9 / v.median);
	}
	return 0;
}
