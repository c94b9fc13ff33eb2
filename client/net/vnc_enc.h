/* Encoding names: what --encodings may say, what vncfb offers without
 * it, and the RFB numbers a list of names stands for. Plain text and
 * numbers: no rfbClient here (the wrapper, vnc_send.c, writes them).
 *
 * Threads: any; vnc_check_encodings's *bad is static storage, so one
 * thread at a time (option parsing, on the main thread). */
#ifndef VNCFB_VNC_ENC_H
#define VNCFB_VNC_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Encoding name list check for usage errors: 0 or -EINVAL, *bad set to
 * the first unknown name (static storage). */
int vnc_check_encodings(const char *list, const char **bad);
/* What is offered without --encodings, in order of preference: the
 * decoders with a rank, by rank. */
const char *vnc_default_encodings(void);
/* "expected names from: raw copyrect ...": every name --encodings takes,
 * for its usage error. */
const char *vnc_encodings_expected(void);
/* Whether list (NULL: none) names the encoding name ("h264"). */
bool vnc_encodings_name(const char *list, const char *name);
/* The RFB numbers of the names in list (space/comma separated), in its
 * order, at most max: unknown names are skipped, and a decoder's alias
 * is its number (ZYWRLE's is ZRLE: vncfb has no ZYWRLE decoder). Returns how many went into out. */
size_t vnc_enc_numbers(const char *list, int32_t *out, size_t max);
/* A SetEncodings list (n RFB numbers) as words for a message, into buf
 * (len bytes, cut short if need be): its rectangle encodings by name,
 * in order, then "JPEG quality N" for a quality level pseudo-encoding
 * or "no JPEG quality level"; the other pseudo-encodings are left out. */
void vnc_enc_describe(const int32_t *encs, size_t n, char *buf, size_t len);

#endif
