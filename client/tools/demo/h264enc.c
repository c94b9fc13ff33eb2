/* The demo's and the tests' Open H.264 encoder (h264enc.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include "tools/demo/h264enc.h"
#include "util/log.h"

struct h264enc {
	AVCodecContext *av;
	AVFrame *frame;
	AVPacket *pkt;
	struct SwsContext *sws;
	uint8_t *out;
	size_t cap;
	/* The caller's picture copied with room after it: libswscale's
	 * SIMD reads whole groups of pixels, past the last row's end. */
	uint8_t *in;
	size_t in_cap;
	int64_t pts;
};

#define IN_PAD 64

void h264enc_destroy(struct h264enc *e)
{
	if (!e)
		return;
	avcodec_free_context(&e->av);
	av_frame_free(&e->frame);
	av_packet_free(&e->pkt);
	sws_freeContext(e->sws);
	free(e->out);
	free(e->in);
	free(e);
}

const char *h264enc_name(const struct h264enc *e)
{
	return e->av->codec->name;
}

static int open_codec(struct h264enc *e, const AVCodec *codec, int w, int h,
		      int crf)
{
	AVCodecContext *av = avcodec_alloc_context3(codec);
	char q[16];

	if (!av)
		return -1;
	av->width = w;
	av->height = h;
	av->pix_fmt = AV_PIX_FMT_YUV420P;
	av->time_base = (AVRational){1, 60};
	av->framerate = (AVRational){60, 1};
	av->gop_size = 100000; /* IDR frames only when asked */
	av->max_b_frames = 0;
	av->thread_count = 1;
	av->profile = FF_PROFILE_H264_CONSTRAINED_BASELINE;
	av->colorspace = AVCOL_SPC_SMPTE170M;
	av->color_primaries = AVCOL_PRI_SMPTE170M;
	av->color_trc = AVCOL_TRC_SMPTE170M;
	av->color_range = AVCOL_RANGE_MPEG;
	snprintf(q, sizeof(q), "%d", crf);
	if (!strcmp(codec->name, "libx264")) {
		av_opt_set(av->priv_data, "preset", "ultrafast", 0);
		av_opt_set(av->priv_data, "tune", "zerolatency", 0);
		av_opt_set(av->priv_data, "profile", "baseline", 0);
		av_opt_set(av->priv_data, "crf", q, 0);
		av_opt_set(av->priv_data, "forced-idr", "1", 0);
	} else {
		av->bit_rate = (int64_t)w * h * 8;
	}
	if (avcodec_open2(av, codec, NULL) < 0) {
		avcodec_free_context(&av);
		return -1;
	}
	e->av = av;
	return 0;
}

struct h264enc *h264enc_create(int w, int h, int crf)
{
	static const char *const names[] = {"libx264", "libopenh264"};
	struct h264enc *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	av_log_set_level(AV_LOG_ERROR);
	for (size_t i = 0; i < 2 && !e->av; i++) {
		const AVCodec *c = avcodec_find_encoder_by_name(names[i]);

		if (c)
			open_codec(e, c, w, h, crf);
	}
	if (!e->av) {
		log_error("demo: libavcodec has no usable H.264 encoder "
			  "(libx264, libopenh264)");
		goto fail;
	}
	e->frame = av_frame_alloc();
	e->pkt = av_packet_alloc();
	if (!e->frame || !e->pkt)
		goto fail;
	e->frame->format = AV_PIX_FMT_YUV420P;
	e->frame->width = w;
	e->frame->height = h;
	e->frame->colorspace = AVCOL_SPC_SMPTE170M;
	e->frame->color_range = AVCOL_RANGE_MPEG;
	if (av_frame_get_buffer(e->frame, 0) < 0)
		goto fail;
	e->sws =
	    sws_getContext(w, h, AV_PIX_FMT_RGB24, w, h, AV_PIX_FMT_YUV420P,
			   SWS_BILINEAR, NULL, NULL, NULL);
	if (!e->sws)
		goto fail;
	/* R,G,B in full range to BT.601 limited-range Y'CbCr. */
	sws_setColorspaceDetails(e->sws, sws_getCoefficients(SWS_CS_DEFAULT), 1,
				 sws_getCoefficients(SWS_CS_ITU601), 0, 0,
				 1 << 16, 1 << 16);
	return e;
fail:
	h264enc_destroy(e);
	return NULL;
}

static int append(struct h264enc *e, size_t *len, const uint8_t *p, size_t n)
{
	if (*len + n > e->cap) {
		size_t cap = (*len + n) * 2;
		uint8_t *q = realloc(e->out, cap);

		if (!q)
			return -1;
		e->out = q;
		e->cap = cap;
	}
	memcpy(e->out + *len, p, n);
	*len += n;
	return 0;
}

int h264enc_frame(struct h264enc *e, const uint8_t *rgb, size_t stride,
		  bool idr, const uint8_t **out, size_t *len)
{
	const uint8_t *src[4] = {NULL};
	int sstride[4] = {(int)stride, 0, 0, 0};
	size_t n = stride * (size_t)e->av->height;
	int ret;

	if (n + IN_PAD > e->in_cap) {
		uint8_t *q = realloc(e->in, n + IN_PAD);

		if (!q)
			return -1;
		e->in = q;
		e->in_cap = n + IN_PAD;
	}
	memcpy(e->in, rgb, n);
	memset(e->in + n, 0, IN_PAD);
	src[0] = e->in;
	if (av_frame_make_writable(e->frame) < 0)
		return -1;
	sws_scale(e->sws, src, sstride, 0, e->av->height, e->frame->data,
		  e->frame->linesize);
	e->frame->pts = e->pts++;
	e->frame->pict_type = idr ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
	e->frame->key_frame = idr;
	if (avcodec_send_frame(e->av, e->frame) < 0)
		return -1;
	*len = 0;
	for (;;) {
		ret = avcodec_receive_packet(e->av, e->pkt);
		if (ret == AVERROR(EAGAIN))
			break;
		if (ret < 0)
			return -1;
		ret = append(e, len, e->pkt->data, (size_t)e->pkt->size);
		av_packet_unref(e->pkt);
		if (ret < 0)
			return -1;
	}
	*out = e->out;
	return *len ? 0 : -1;
}
