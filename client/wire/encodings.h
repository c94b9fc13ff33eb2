/* RFB's encodings by number, by the name --encodings gives them, and by
 * the label messages use: the one table of encoding names (the options,
 * the decoders' messages and the bench server all read it).
 *
 * Threads: any (constant data). */
#ifndef VNCFB_ENCODINGS_H
#define VNCFB_ENCODINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rfb_encoding {
	int32_t enc;		/* RFB number (wire/rfb.h) */
	const char *option;	/* lower case, as --encodings says it */
	const char *label;	/* as messages say it: "Tight" */
	bool offered;		/* --encodings may name it */
};

/* The entry for RFB number enc, NULL when the table has none. */
const struct rfb_encoding *rfb_encoding_by_number(int32_t enc);
/* The entry --encodings may name as the n bytes at s (any case), NULL
 * when none. */
const struct rfb_encoding *rfb_encoding_by_option(const char *s, size_t n);
/* enc's label, or its number in hex (written into buf) when unknown. */
const char *rfb_encoding_label(int32_t enc, char *buf, size_t len);

#endif
