/* Unit test: the recording format (client/tools/replay/recording.c). What the writer
 * writes, the reader gives back; a file cut short anywhere, or with any
 * byte changed, is refused with exactly one line, never read past its
 * end (the fuzz suite builds this under ASan). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "util/log.h"
#include "tools/replay/recording.h"

#define W 5
#define H 3

static const uint8_t upd1[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0};
static const uint8_t bell[] = {2};
static const uint8_t upd2[] = {0, 0, 0, 0};

static char *path_in_tmp(const char *name)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *p = malloc(strlen(dir) + strlen(name) + 32);

	sprintf(p, "%s/%s.%d", dir, name, (int)getpid());
	return p;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Open len bytes (copied into a buffer of exactly that size, so that
 * ASan sees any read past the end); the number of lines logged goes to
 * *lines. */
static struct recording *open_copy(const uint8_t *data, size_t len, int *lines,
				   uint8_t **keep)
{
	uint8_t *copy = malloc(len ? len : 1);
	FILE *err = tmpfile();
	struct recording *r;
	int saved = dup(2), c;

	memcpy(copy, data, len);
	fflush(stderr);
	dup2(fileno(err), 2);
	r = recording_open_mem(copy, len, "test.rec");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	*lines = 0;
	while ((c = fgetc(err)) != EOF)
		*lines += c == '\n';
	fclose(err);
	if (r)
		*keep = copy;
	else
		free(copy);
	return r;
}

static void write_sample(const char *path, struct pixfmt *fmt, uint8_t *pic)
{
	struct rec_header h;
	struct rec_writer *w;
	int i;

	memset(&h, 0, sizeof(h));
	h.width = W;
	h.height = H;
	pixfmt_from_name("rgb565", fmt);
	h.client_fmt = *fmt;
	rec_pf_to_wire(fmt, h.server_pf);
	h.quality = -1;
	h.compress = 6;
	snprintf(h.encodings, sizeof(h.encodings), "zrle hextile");
	h.name = (const uint8_t *)"desk\0top";
	h.name_len = 8;
	for (i = 0; i < W * H * 2; i++)
		pic[i] = (uint8_t)(i * 7 + 1);
	w = rec_writer_create(path, &h);
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK(rec_writer_message(w, upd1, sizeof(upd1), REC_UPDATE | REC_FULL,
				 1000) == 0);
	CHECK(rec_writer_message(w, bell, sizeof(bell), 0, 2000) == 0);
	CHECK(rec_writer_message(w, upd2, sizeof(upd2), REC_UPDATE, 3000) == 0);
	/* Rows W*2 bytes apart, given with a wider stride. */
	{
		uint8_t wide[H][W * 2 + 6];

		for (i = 0; i < H; i++)
			memcpy(wide[i], pic + i * W * 2, W * 2);
		CHECK(rec_writer_finish(w, &wide[0][0], sizeof(wide[0]), W,
					H) == 0);
	}
}

static void test_roundtrip(const char *path, const uint8_t *pic)
{
	struct recording *r = recording_open(path);
	const struct rec_header *h;
	struct rec_message m;
	struct pixfmt f;
	const uint8_t *fin;
	uint32_t fw, fh;
	char *part = malloc(strlen(path) + 8);

	sprintf(part, "%s.part", path);
	CHECK(access(part, F_OK) != 0, "%s left behind", part);
	free(part);
	CHECK(r != NULL);
	if (!r)
		return;
	h = recording_header(r);
	pixfmt_from_name("rgb565", &f);
	CHECK(h->width == W && h->height == H);
	CHECK(pixfmt_equal(&h->client_fmt, &f));
	CHECK(h->quality == -1 && h->compress == 6);
	CHECK(!strcmp(h->encodings, "zrle hextile"), "'%s'", h->encodings);
	CHECK(h->name_len == 8 && !memcmp(h->name, "desk\0top", 8));
	CHECK(recording_messages(r) == 3);
	CHECK(recording_updates(r) == 2 && recording_full_updates(r) == 1);
	CHECK(recording_bytes(r) == sizeof(upd1) + 1 + sizeof(upd2));
	recording_message(r, 0, &m);
	CHECK(m.len == sizeof(upd1) && !memcmp(m.data, upd1, m.len) &&
	      m.flags == (REC_UPDATE | REC_FULL) && m.t_ns == 1000);
	recording_message(r, 1, &m);
	CHECK(m.len == 1 && m.data[0] == 2 && m.flags == 0 && m.t_ns == 2000);
	recording_message(r, 2, &m);
	CHECK(m.len == 4 && m.flags == REC_UPDATE);
	fin = recording_final(r, &fw, &fh);
	CHECK(fin && fw == W && fh == H && !memcmp(fin, pic, W * H * 2));
	recording_close(r);
}

/* A damaged file must be refused, in one line: count what is not. */
static void refuse(const uint8_t *data, size_t len, int *accepted,
		   int *bad_lines)
{
	uint8_t *keep = NULL;
	struct recording *r;
	int lines;

	r = open_copy(data, len, &lines, &keep);
	if (r) {
		(*accepted)++;
		recording_close(r);
		free(keep);
	}
	if (lines != 1)
		(*bad_lines)++;
}

static void test_hostile(const uint8_t *data, size_t len)
{
	struct recording *r;
	uint8_t *keep = NULL, *mod;
	size_t n, i;
	int lines, bad_lines = 0, accepted = 0;

	r = open_copy(data, len, &lines, &keep);
	CHECK(r && lines == 0, "the intact file: %s, %d lines",
	      r ? "open" : "refused", lines);
	recording_close(r);
	free(keep);
	/* Every prefix is a truncated file. */
	for (n = 0; n < len; n++)
		refuse(data, n, &accepted, &bad_lines);
	CHECK(accepted == 0, "%d truncations accepted", accepted);
	CHECK(bad_lines == 0, "%d truncations not refused in one line",
	      bad_lines);
	/* Every byte changed, three ways. */
	mod = malloc(len);
	accepted = bad_lines = 0;
	for (i = 0; i < len; i++) {
		static const uint8_t xors[] = {0x01, 0x80, 0xff};

		for (n = 0; n < sizeof(xors); n++) {
			memcpy(mod, data, len);
			mod[i] ^= xors[n];
			refuse(mod, len, &accepted, &bad_lines);
		}
	}
	free(mod);
	CHECK(accepted == 0, "%d changed bytes accepted", accepted);
	CHECK(bad_lines == 0, "%d changes not refused in one line", bad_lines);
	/* Growth: a byte appended, or a whole second end record. */
	mod = malloc(len + 36);
	memcpy(mod, data, len);
	mod[len] = 0;
	r = open_copy(mod, len + 1, &lines, &keep);
	CHECK(!r && lines == 1);
	memcpy(mod + len, data + len - 36, 36);
	r = open_copy(mod, len + 36, &lines, &keep);
	CHECK(!r && lines == 1);
	free(mod);
}

static void test_wire_formats(void)
{
	static const char *names[] = {"xrgb8888", "bgrx8888", "rgb565",
				      "xrgb1555", "rgb332"};
	uint8_t wire[16], other[16];
	struct pixfmt f, g;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		pixfmt_from_name(names[i], &f);
		rec_pf_to_wire(&f, wire);
		CHECK(rec_pf_from_wire(wire, &g) == 0 && pixfmt_equal(&f, &g),
		      "%s does not come back", names[i]);
		CHECK(rec_pf_wire_equal(wire, wire));
	}
	pixfmt_from_name("xrgb8888", &f);
	rec_pf_to_wire(&f, wire);
	memcpy(other, wire, 16);
	other[1] = 32; /* depth alone does not change the pixels */
	CHECK(rec_pf_wire_equal(wire, other));
	other[10] = 0; /* red moved */
	CHECK(!rec_pf_wire_equal(wire, other));
	memcpy(other, wire, 16);
	other[3] = 0; /* colour map */
	CHECK(rec_pf_from_wire(other, &g) < 0 &&
	      !rec_pf_wire_equal(wire, other));
	memcpy(other, wire, 16);
	other[5] = 0xfe; /* max not 2^n - 1 */
	CHECK(rec_pf_from_wire(other, &g) < 0);
	memcpy(other, wire, 16);
	other[0] = 24;
	CHECK(rec_pf_from_wire(other, &g) < 0);
}

static void test_writer_errors(void)
{
	struct rec_header h;
	struct pixfmt f;

	memset(&h, 0, sizeof(h));
	pixfmt_from_name("xrgb8888", &f);
	h.width = h.height = 1;
	h.client_fmt = f;
	log_set_level(LOG_SILENT);
	CHECK(rec_writer_create("/nonexistent-dir/x.rec", &h) == NULL);
	CHECK(recording_open("/nonexistent-dir/x.rec") == NULL);
	log_set_level(LOG_INFO);
}

int main(void)
{
	char *path = path_in_tmp("vncfb-test-recording");
	uint8_t pic[W * H * 2], *data;
	struct pixfmt fmt;
	size_t len = 0;

	test_wire_formats();
	write_sample(path, &fmt, pic);
	test_roundtrip(path, pic);
	data = slurp(path, &len);
	CHECK(data != NULL && len > 100);
	if (data)
		test_hostile(data, len);
	test_writer_errors();
	free(data);
	unlink(path);
	free(path);
	return failures != 0;
}
