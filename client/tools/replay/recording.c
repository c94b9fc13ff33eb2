/* The recording file format: writer and validating reader.
 *
 * Layout (version 1, integers little-endian):
 *   "VNCFBREC", u32 version, u32 header length H, then H bytes:
 *     u16 width, u16 height, 16-byte server PIXEL_FORMAT (ServerInit),
 *     16-byte client PIXEL_FORMAT (the recorder's SetPixelFormat),
 *     i8 quality, i8 compress, u16 encodings length E, u32 name length N,
 *     E bytes of encodings, N bytes of desktop name (H = 44 + E + N);
 *   records: u8 type, u8 flags, u16 zero, u32 length L, u64 time (ns),
 *   then L bytes:
 *     1 message: one server message, whole;
 *     2 picture: u16 width, u16 height, the recorder's picture after the
 *       last message, rows packed, in the client format (at most one,
 *       after the last message);
 *     3 end: u64 messages, u64 message bytes, u32 CRC-32 of the file up
 *       to this field (last in the file).
 * The end record is written last, so a recorder that died leaves no valid
 * file, and the reader knows a truncated one by its absence. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/log.h"
#include "tools/replay/recording.h"

#define MAGIC "VNCFBREC"
#define VERSION 1
#define PREFIX_LEN 16	/* magic, version, header length */
#define HEADER_FIXED 44 /* header bytes before encodings and name */
#define RECORD_HEAD 16
#define END_LEN 20
#define PICTURE_HEAD 4
#define MAX_PICTURE ((uint64_t)1 << 30)

enum rec_type { REC_MESSAGE = 1, REC_PICTURE = 2, REC_END = 3 };

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	/* zlib's crc32 takes a uInt length. */
	while (n > 0) {
		uInt k = n > (1u << 30) ? 1u << 30 : (uInt)n;

		crc = (uint32_t)crc32(crc, p, k);
		p += k;
		n -= k;
	}
	return crc;
}

/* --- pixel formats on the wire --- */

static unsigned bits_of(uint16_t max)
{
	unsigned n = 0;

	while (max & 1) {
		max >>= 1;
		n++;
	}
	return max ? 0 : n; /* not of the form 2^n - 1: 0 */
}

void rec_pf_to_wire(const struct pixfmt *f, uint8_t wire[16])
{
	unsigned depth = f->r_bits + f->g_bits + f->b_bits;

	memset(wire, 0, 16);
	wire[0] = f->bpp;
	wire[1] = (uint8_t)(depth > f->bpp ? f->bpp : depth);
	wire[2] = f->big_endian;
	wire[3] = 1;
	/* RFB's u16s are big-endian. */
	wire[4] = 0;
	wire[5] = (uint8_t)((1u << f->r_bits) - 1);
	wire[6] = 0;
	wire[7] = (uint8_t)((1u << f->g_bits) - 1);
	wire[8] = 0;
	wire[9] = (uint8_t)((1u << f->b_bits) - 1);
	wire[10] = f->r_shift;
	wire[11] = f->g_shift;
	wire[12] = f->b_shift;
}

int rec_pf_from_wire(const uint8_t wire[16], struct pixfmt *f)
{
	unsigned r = bits_of((uint16_t)(wire[4] << 8 | wire[5]));
	unsigned g = bits_of((uint16_t)(wire[6] << 8 | wire[7]));
	unsigned b = bits_of((uint16_t)(wire[8] << 8 | wire[9]));

	memset(f, 0, sizeof(*f));
	if (!wire[3] || wire[0] == 24)
		return -EINVAL;
	f->bpp = wire[0];
	f->depth = wire[1];
	f->big_endian = wire[2] != 0 && wire[0] > 8;
	f->r_bits = (uint8_t)r;
	f->g_bits = (uint8_t)g;
	f->b_bits = (uint8_t)b;
	f->r_shift = wire[10];
	f->g_shift = wire[11];
	f->b_shift = wire[12];
	return pixfmt_valid(f) ? 0 : -EINVAL;
}

bool rec_pf_wire_equal(const uint8_t a[16], const uint8_t b[16])
{
	struct pixfmt fa, fb;

	return rec_pf_from_wire(a, &fa) == 0 && rec_pf_from_wire(b, &fb) == 0 &&
	       pixfmt_equal(&fa, &fb);
}

/* --- writer --- */

struct rec_writer {
	FILE *f;
	char *path, *part;
	uint32_t crc;
	uint64_t bytes, messages, message_bytes;
	unsigned bpp;
	bool failed;
};

static int put(struct rec_writer *w, const void *p, size_t n)
{
	if (w->failed)
		return -EIO;
	if (n && fwrite(p, 1, n, w->f) != n) {
		int err = errno ? errno : EIO;

		log_error("write %s: %s", w->part, strerror(err));
		w->failed = true;
		return -err;
	}
	w->crc = crc_update(w->crc, p, n);
	w->bytes += n;
	return 0;
}

static int put_record(struct rec_writer *w, enum rec_type type, unsigned flags,
		      uint32_t len, uint64_t t_ns)
{
	uint8_t h[RECORD_HEAD];

	h[0] = (uint8_t)type;
	h[1] = (uint8_t)flags;
	put16(h + 2, 0);
	put32(h + 4, len);
	put64(h + 8, t_ns);
	return put(w, h, sizeof(h));
}

struct rec_writer *rec_writer_create(const char *path,
				     const struct rec_header *h)
{
	struct rec_writer *w;
	size_t elen = strlen(h->encodings);
	uint8_t pre[PREFIX_LEN + HEADER_FIXED];
	int fd;

	if (elen > REC_MAX_ENCODINGS || h->name_len > REC_MAX_NAME) {
		log_error("%s: the encodings or the desktop name are too long "
			  "to record",
			  path);
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (w) {
		w->path = strdup(path);
		w->part = malloc(strlen(path) + sizeof(".part"));
	}
	if (!w || !w->path || !w->part) {
		log_error("out of memory");
		goto err_free;
	}
	sprintf(w->part, "%s.part", path);
	fd = open(w->part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		log_error("cannot create %s: %s", w->part, strerror(errno));
		goto err_free;
	}
	w->f = fdopen(fd, "wb");
	if (!w->f) {
		log_error("fdopen %s: %s", w->part, strerror(errno));
		close(fd);
		unlink(w->part);
		goto err_free;
	}
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	w->bpp = pixfmt_bytes(&h->client_fmt);
	memcpy(pre, MAGIC, 8);
	put32(pre + 8, VERSION);
	put32(pre + 12, (uint32_t)(HEADER_FIXED + elen + h->name_len));
	put16(pre + 16, h->width);
	put16(pre + 18, h->height);
	memcpy(pre + 20, h->server_pf, 16);
	rec_pf_to_wire(&h->client_fmt, pre + 36);
	pre[52] = (uint8_t)(int8_t)h->quality;
	pre[53] = (uint8_t)(int8_t)h->compress;
	put16(pre + 54, (uint16_t)elen);
	put32(pre + 56, h->name_len);
	if (put(w, pre, sizeof(pre)) < 0 || put(w, h->encodings, elen) < 0 ||
	    put(w, h->name, h->name_len) < 0) {
		rec_writer_abort(w);
		return NULL;
	}
	return w;

err_free:
	if (w) {
		free(w->path);
		free(w->part);
	}
	free(w);
	return NULL;
}

int rec_writer_message(struct rec_writer *w, const uint8_t *data, size_t len,
		       unsigned flags, uint64_t t_ns)
{
	int err;

	if (len == 0 || len > REC_MAX_MESSAGE ||
	    w->messages >= REC_MAX_MESSAGES) {
		log_error("%s: a server message of %zu bytes (number %llu) is "
			  "beyond what a recording holds",
			  w->path, len, (unsigned long long)w->messages + 1);
		return -EFBIG;
	}
	err = put_record(w, REC_MESSAGE, flags, (uint32_t)len, t_ns);
	if (err == 0)
		err = put(w, data, len);
	if (err == 0) {
		w->messages++;
		w->message_bytes += len;
	}
	return err;
}

static int put_picture(struct rec_writer *w, const uint8_t *pix, size_t stride,
		       uint32_t width, uint32_t height)
{
	uint64_t row = (uint64_t)width * w->bpp, len = row * height;
	uint8_t h[PICTURE_HEAD];
	uint32_t y;
	int err;

	if (width == 0 || height == 0 || width > REC_MAX_DIM ||
	    height > REC_MAX_DIM || len > MAX_PICTURE)
		return 0; /* nothing sensible to check against */
	err = put_record(w, REC_PICTURE, 0, (uint32_t)(PICTURE_HEAD + len), 0);
	put16(h, (uint16_t)width);
	put16(h + 2, (uint16_t)height);
	if (err == 0)
		err = put(w, h, sizeof(h));
	for (y = 0; y < height && err == 0; y++)
		err = put(w, pix + (size_t)y * stride, (size_t)row);
	return err;
}

int rec_writer_finish(struct rec_writer *w, const uint8_t *pix, size_t stride,
		      uint32_t width, uint32_t height)
{
	uint8_t end[END_LEN];
	int err = 0;

	if (pix)
		err = put_picture(w, pix, stride, width, height);
	if (err == 0)
		err = put_record(w, REC_END, 0, END_LEN, 0);
	put64(end, w->messages);
	put64(end + 8, w->message_bytes);
	if (err == 0)
		err = put(w, end, 16);
	put32(end + 16, w->crc);
	if (err == 0)
		err = put(w, end + 16, 4);
	if (err == 0 && (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0)) {
		err = -errno;
		log_error("write %s: %s", w->part, strerror(errno));
	}
	if (fclose(w->f) != 0 && err == 0) {
		err = -errno;
		log_error("write %s: %s", w->part, strerror(errno));
	}
	w->f = NULL;
	if (err == 0 && rename(w->part, w->path) < 0) {
		err = -errno;
		log_error("cannot rename %s to %s: %s", w->part, w->path,
			  strerror(errno));
	}
	if (err < 0)
		unlink(w->part);
	free(w->path);
	free(w->part);
	free(w);
	return err;
}

void rec_writer_abort(struct rec_writer *w)
{
	if (!w)
		return;
	if (w->f)
		fclose(w->f);
	unlink(w->part);
	free(w->path);
	free(w->part);
	free(w);
}

/* --- reader --- */

struct msg_index {
	uint64_t off;
	uint32_t len;
	uint8_t flags;
	uint64_t t_ns;
};

struct recording {
	const uint8_t *data;
	size_t size;
	bool mapped;
	struct rec_header h;
	struct msg_index *msgs;
	size_t n, cap;
	size_t updates, full;
	uint64_t bytes;
	const uint8_t *final;
	uint32_t final_w, final_h;
};

/* One line for what is wrong with the file, at offset off. */
__attribute__((format(printf, 3, 4))) static void
corrupt(const char *what, uint64_t off, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_error("%s: corrupt recording (at byte %llu): %s", what,
		  (unsigned long long)off, why);
}

static int parse_header(struct recording *r, const char *what)
{
	const uint8_t *p = r->data;
	uint32_t hlen, elen, nlen;
	struct rec_header *h = &r->h;

	if (r->size < 8 || memcmp(p, MAGIC, 8) != 0) {
		log_error("%s: not a vncfb recording (no VNCFBREC magic)",
			  what);
		return -EINVAL;
	}
	if (r->size < PREFIX_LEN) {
		log_error("%s: truncated recording (%zu bytes)", what, r->size);
		return -EINVAL;
	}
	if (get32(p + 8) != VERSION) {
		log_error("%s: recording format version %u; this vncfb reads "
			  "version %d",
			  what, get32(p + 8), VERSION);
		return -EINVAL;
	}
	hlen = get32(p + 12);
	if (hlen < HEADER_FIXED ||
	    hlen > HEADER_FIXED + REC_MAX_ENCODINGS + REC_MAX_NAME) {
		corrupt(what, 12, "a header of %u bytes", hlen);
		return -EINVAL;
	}
	if (r->size - PREFIX_LEN < hlen) {
		log_error("%s: truncated recording (in its header)", what);
		return -EINVAL;
	}
	p += PREFIX_LEN;
	h->width = get16(p);
	h->height = get16(p + 2);
	memcpy(h->server_pf, p + 4, 16);
	h->quality = (int8_t)p[36];
	h->compress = (int8_t)p[37];
	elen = get16(p + 38);
	nlen = get32(p + 40);
	if (h->width == 0 || h->height == 0 || h->width > REC_MAX_DIM ||
	    h->height > REC_MAX_DIM) {
		corrupt(what, PREFIX_LEN, "a %ux%u desktop", h->width,
			h->height);
		return -EINVAL;
	}
	if (rec_pf_from_wire(p + 20, &h->client_fmt) < 0) {
		corrupt(what, PREFIX_LEN + 20,
			"a pixel format vncfb cannot use");
		return -EINVAL;
	}
	if (h->quality < -1 || h->quality > 9 || h->compress < -1 ||
	    h->compress > 9) {
		corrupt(what, PREFIX_LEN + 36, "quality %d, compress %d",
			h->quality, h->compress);
		return -EINVAL;
	}
	if (elen > REC_MAX_ENCODINGS || nlen > REC_MAX_NAME ||
	    (uint64_t)HEADER_FIXED + elen + nlen != hlen) {
		corrupt(what, PREFIX_LEN + 38,
			"encodings (%u bytes) and name (%u bytes) do not fill "
			"the %u-byte header",
			elen, nlen, hlen);
		return -EINVAL;
	}
	memcpy(h->encodings, p + HEADER_FIXED, elen);
	h->encodings[elen] = '\0';
	if (strlen(h->encodings) != elen) {
		corrupt(what, PREFIX_LEN + HEADER_FIXED,
			"a NUL in the encodings");
		return -EINVAL;
	}
	h->name = p + HEADER_FIXED + elen;
	h->name_len = nlen;
	return 0;
}

static int add_message(struct recording *r, uint64_t off, uint32_t len,
		       unsigned flags, uint64_t t_ns)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct msg_index *m = realloc(r->msgs, cap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		r->msgs = m;
		r->cap = cap;
	}
	r->msgs[r->n++] = (struct msg_index){
	    .off = off, .len = len, .flags = (uint8_t)flags, .t_ns = t_ns};
	return 0;
}

static int check_message(struct recording *r, const char *what, uint64_t at,
			 const uint8_t *body, uint32_t len, unsigned flags)
{
	bool update;

	if (len == 0 || len > REC_MAX_MESSAGE) {
		corrupt(what, at, "a server message of %u bytes", len);
		return -EINVAL;
	}
	update = body[0] == 0;
	if (flags & ~(REC_UPDATE | REC_FULL) ||
	    update != ((flags & REC_UPDATE) != 0) ||
	    ((flags & REC_FULL) && !update)) {
		corrupt(what, at, "message flags %#x for message type %u",
			flags, body[0]);
		return -EINVAL;
	}
	/* A FramebufferUpdate's header: type, padding, rectangle count. */
	if (update && len < 4) {
		corrupt(what, at, "a FramebufferUpdate of %u bytes", len);
		return -EINVAL;
	}
	if (r->n >= REC_MAX_MESSAGES) {
		corrupt(what, at, "more than %u messages", REC_MAX_MESSAGES);
		return -EINVAL;
	}
	return 0;
}

static int check_picture(struct recording *r, const char *what, uint64_t at,
			 const uint8_t *body, uint32_t len)
{
	uint32_t w, h;
	uint64_t want;

	if (r->final || len < PICTURE_HEAD) {
		corrupt(what, at, "%s",
			r->final ? "a second picture"
				 : "a short picture record");
		return -EINVAL;
	}
	w = get16(body);
	h = get16(body + 2);
	want = (uint64_t)w * h * pixfmt_bytes(&r->h.client_fmt);
	if (w == 0 || h == 0 || w > REC_MAX_DIM || h > REC_MAX_DIM ||
	    want > MAX_PICTURE || want + PICTURE_HEAD != len) {
		corrupt(what, at, "a %ux%u picture in %u bytes", w, h, len);
		return -EINVAL;
	}
	r->final = body + PICTURE_HEAD;
	r->final_w = w;
	r->final_h = h;
	return 0;
}

static int check_end(struct recording *r, const char *what, uint64_t at,
		     const uint8_t *body, uint32_t len)
{
	uint64_t end = at + RECORD_HEAD + len;
	uint32_t crc;

	if (len != END_LEN) {
		corrupt(what, at, "an end record of %u bytes", len);
		return -EINVAL;
	}
	if (end != r->size) {
		corrupt(what, end, "%llu bytes after the end record",
			(unsigned long long)(r->size - end));
		return -EINVAL;
	}
	if (get64(body) != r->n || get64(body + 8) != r->bytes) {
		corrupt(what, at,
			"the end record counts %llu messages, the "
			"file holds %zu",
			(unsigned long long)get64(body), r->n);
		return -EINVAL;
	}
	crc = crc_update(0, r->data, (size_t)(at + RECORD_HEAD + 16));
	if (crc != get32(body + 16)) {
		log_error("%s: corrupt recording: its checksum does not match "
			  "(CRC-32 %08x, recorded %08x)",
			  what, crc, get32(body + 16));
		return -EINVAL;
	}
	return 0;
}

static int parse_records(struct recording *r, const char *what)
{
	uint64_t off = PREFIX_LEN + (uint64_t)get32(r->data + 12);

	for (;;) {
		const uint8_t *p = r->data + off, *body;
		uint32_t len;
		unsigned type, flags;
		int err;

		if (r->size - off < RECORD_HEAD) {
			log_error("%s: truncated recording (%s after %zu "
				  "messages; was the recorder stopped?)",
				  what,
				  r->size == off ? "no end record"
						 : "a partial record",
				  r->n);
			return -EINVAL;
		}
		type = p[0];
		flags = p[1];
		len = get32(p + 4);
		body = p + RECORD_HEAD;
		if (get16(p + 2) != 0 || type < REC_MESSAGE || type > REC_END) {
			corrupt(what, off, "a record of type %u", type);
			return -EINVAL;
		}
		if (r->size - off - RECORD_HEAD < len) {
			log_error("%s: truncated recording (a record of %u "
				  "bytes at byte %llu runs past the end of "
				  "the file)",
				  what, len, (unsigned long long)off);
			return -EINVAL;
		}
		if (type != REC_MESSAGE && flags != 0) {
			corrupt(what, off, "flags %#x on a record of type %u",
				flags, type);
			return -EINVAL;
		}
		if (type == REC_END)
			return check_end(r, what, off, body, len);
		if (type == REC_PICTURE) {
			err = check_picture(r, what, off, body, len);
		} else if (r->final) {
			corrupt(what, off, "a message after the picture");
			err = -EINVAL;
		} else {
			err = check_message(r, what, off, body, len, flags);
			if (err == 0 && add_message(r, off + RECORD_HEAD, len,
						    flags, get64(p + 8)) < 0) {
				log_error("%s: out of memory", what);
				err = -ENOMEM;
			}
			if (err == 0) {
				r->bytes += len;
				r->updates += (flags & REC_UPDATE) != 0;
				r->full += (flags & REC_FULL) != 0;
			}
		}
		if (err < 0)
			return err;
		off += RECORD_HEAD + (uint64_t)len;
	}
}

struct recording *recording_open_mem(const uint8_t *data, size_t len,
				     const char *what)
{
	struct recording *r = calloc(1, sizeof(*r));

	if (!r) {
		log_error("out of memory");
		return NULL;
	}
	r->data = data;
	r->size = len;
	if (parse_header(r, what) < 0 || parse_records(r, what) < 0) {
		recording_close(r);
		return NULL;
	}
	if (r->n == 0) {
		log_error("%s: the recording holds no server messages", what);
		recording_close(r);
		return NULL;
	}
	return r;
}

struct recording *recording_open(const char *path)
{
	struct recording *r;
	struct stat st;
	void *map;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		log_error("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		log_error("fstat %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < PREFIX_LEN) {
		log_error("%s: not a vncfb recording (%s)", path,
			  S_ISREG(st.st_mode) ? "too short" : "not a file");
		close(fd);
		return NULL;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		log_error("%s: too large for this machine", path);
		close(fd);
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		log_error("mmap %s: %s", path, strerror(errno));
		return NULL;
	}
	r = recording_open_mem(map, (size_t)st.st_size, path);
	if (!r) {
		munmap(map, (size_t)st.st_size);
		return NULL;
	}
	r->mapped = true;
	return r;
}

void recording_close(struct recording *r)
{
	if (!r)
		return;
	if (r->mapped)
		munmap((void *)r->data, r->size);
	free(r->msgs);
	free(r);
}

const struct rec_header *recording_header(const struct recording *r)
{
	return &r->h;
}

size_t recording_messages(const struct recording *r)
{
	return r->n;
}

void recording_message(const struct recording *r, size_t i,
		       struct rec_message *m)
{
	const struct msg_index *x = &r->msgs[i];

	m->data = r->data + x->off;
	m->len = x->len;
	m->flags = x->flags;
	m->t_ns = x->t_ns;
}

size_t recording_updates(const struct recording *r)
{
	return r->updates;
}

size_t recording_full_updates(const struct recording *r)
{
	return r->full;
}

uint64_t recording_bytes(const struct recording *r)
{
	return r->bytes;
}

const uint8_t *recording_final(const struct recording *r, uint32_t *w,
			       uint32_t *h)
{
	*w = r->final_w;
	*h = r->final_h;
	return r->final;
}
