/* Recordings of what a VNC server sent after ServerInit (vncfb bench
 * --record), one record per server message, and their validation for the
 * replay, which treats a file as hostile input: every length is checked
 * against the file and a limit, the whole file against a CRC-32, and a
 * corrupt or truncated file is refused with one line naming the problem.
 *
 * Threads: a writer belongs to one thread. A recording is read-only once
 * opened; any thread may read it until recording_close. */
#ifndef VNCFB_RECORDING_H
#define VNCFB_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"

/* Limits a recording must keep (a file beyond them is refused). */
#define REC_MAX_NAME (1u << 20)	   /* libvncclient's own limit */
#define REC_MAX_ENCODINGS 1024	   /* the encodings string */
#define REC_MAX_DIM 16384	   /* as vnc.c */
#define REC_MAX_MESSAGE (1u << 30) /* one server message */
#define REC_MAX_MESSAGES (1u << 24)

/* Message flags. */
#define REC_UPDATE 1u /* a FramebufferUpdate (answers one request) */
#define REC_FULL 2u   /* its rectangles cover the whole desktop */

struct rec_header {
	uint16_t width, height;	  /* ServerInit */
	uint8_t server_pf[16];	  /* ServerInit's pixel format, as sent */
	struct pixfmt client_fmt; /* what the recorder asked for */
	int quality, compress;	  /* as asked, -1: not asked */
	char encodings[REC_MAX_ENCODINGS + 1]; /* as asked */
	const uint8_t *name; /* ServerInit's name, not terminated */
	uint32_t name_len;
};

struct rec_message {
	const uint8_t *data; /* the message as the server sent it */
	size_t len;
	unsigned flags; /* REC_UPDATE, REC_FULL */
	uint64_t t_ns;	/* arrival, from the end of ServerInit */
};

/* RFB's 16-byte PIXEL_FORMAT for a true-colour f, and back: 0, or -EINVAL
 * for what vncfb cannot use (colour maps, bad shifts, 24 bpp). */
void rec_pf_to_wire(const struct pixfmt *f, uint8_t wire[16]);
int rec_pf_from_wire(const uint8_t wire[16], struct pixfmt *f);
/* Whether two wire formats describe the same pixels (depth and padding
 * aside; byte order only where a pixel has several bytes). */
bool rec_pf_wire_equal(const uint8_t a[16], const uint8_t b[16]);

struct rec_writer;

/* Start writing path (through path.part, renamed by rec_writer_finish, so
 * a failed recording never leaves a file under the name asked for). NULL
 * on failure (logged). */
struct rec_writer *rec_writer_create(const char *path,
				     const struct rec_header *h);
/* Append one server message. 0 or -errno (logged). */
int rec_writer_message(struct rec_writer *w, const uint8_t *data, size_t len,
		       unsigned flags, uint64_t t_ns);
/* The picture after the last message (rows of w*bpp bytes, stride apart,
 * in the header's client format; pix may be NULL for none), the end
 * record, then the rename. Frees w. 0 or -errno (logged; the partial file
 * is removed). */
int rec_writer_finish(struct rec_writer *w, const uint8_t *pix, size_t stride,
		      uint32_t width, uint32_t height);
/* Give up: remove the partial file, free w. NULL is a no-op. */
void rec_writer_abort(struct rec_writer *w);

struct recording;

/* Map and validate path. NULL on failure, with one line naming the file
 * and the problem. */
struct recording *recording_open(const char *path);
/* The same over len bytes at data (not copied: they must outlive the
 * recording); what names the source in messages. For tests and fuzzing. */
struct recording *recording_open_mem(const uint8_t *data, size_t len,
				     const char *what);
void recording_close(struct recording *r);

const struct rec_header *recording_header(const struct recording *r);
size_t recording_messages(const struct recording *r);
void recording_message(const struct recording *r, size_t i,
		       struct rec_message *m);
size_t recording_updates(const struct recording *r);
size_t recording_full_updates(const struct recording *r);
/* Bytes of server messages in all. */
uint64_t recording_bytes(const struct recording *r);
/* The recorder's picture after the last message (rows packed), or NULL
 * when the file has none. */
const uint8_t *recording_final(const struct recording *r, uint32_t *w,
			       uint32_t *h);

#endif
