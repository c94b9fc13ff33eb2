/* The names of RFB's pseudo-encodings and of the encodings vncfb has no
 * decoder for, by number: for messages and the bench server's counts.
 * The encodings vncfb decodes are named by their decoders
 * (decode/decode.h's struct decoder: --encodings, the default list,
 * labels), which decoder_name asks first.
 *
 * Threads: any (constant data). */
#ifndef VNCFB_ENCODINGS_H
#define VNCFB_ENCODINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rfb_encoding {
	int32_t enc;		/* RFB number (wire/rfb.h) */
	const char *option;	/* lower case: "zywrle" */
	const char *label;	/* as messages say it: "ZYWRLE" */
};

/* The entry for RFB number enc, NULL when the table has none. */
const struct rfb_encoding *rfb_encoding_by_number(int32_t enc);
/* enc's label, or its number in hex (written into buf) when unknown. */
const char *rfb_encoding_label(int32_t enc, char *buf, size_t len);

#endif
