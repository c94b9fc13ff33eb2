/* The names of the encodings vncfb does not decode (encodings.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "wire/encodings.h"
#include "wire/rfb.h"

/* The encodings vncfb has no decoder for, and the pseudo-encodings: the
 * ones it decodes have their names in their decoders (decode/decode.h's
 * struct decoder), which decoder_name asks first. */
static const struct rfb_encoding table[] = {
	{ RFB_ENC_ZYWRLE, "zywrle", "ZYWRLE" },
	{ RFB_ENC_ZLIBHEX, "zlibhex", "ZlibHex" },
	{ RFB_ENC_ULTRAZIP, "ultrazip", "UltraZip" },
	{ RFB_ENC_XCURSOR, "xcursor", "XCursor" },
	{ RFB_ENC_RICHCURSOR, "richcursor", "RichCursor" },
	{ RFB_ENC_POINTERPOS, "pointerpos", "PointerPos" },
	{ RFB_ENC_LASTRECT, "lastrect", "LastRect" },
	{ RFB_ENC_DESKTOPSIZE, "desktopsize", "DesktopSize" },
	{ RFB_ENC_EXTDESKTOPSIZE, "extdesktopsize", "ExtendedDesktopSize" },
	{ RFB_ENC_DESKTOPNAME, "desktopname", "DesktopName" },
	{ RFB_ENC_QEMU_KEYS, "qemukeys", "QEMU extended key event" },
	{ RFB_ENC_LEDSTATE, "ledstate", "KeyboardLedState" },
	{ RFB_ENC_CURSOR_ALPHA, "cursoralpha", "CursorWithAlpha" },
	{ RFB_ENC_EXT_MOUSE, "extmouse", "ExtendedMouseButtons" },
};

#define N (sizeof(table) / sizeof(table[0]))

const struct rfb_encoding *rfb_encoding_by_number(int32_t enc)
{
	for (size_t i = 0; i < N; i++)
		if (table[i].enc == enc)
			return &table[i];
	return NULL;
}

const char *rfb_encoding_label(int32_t enc, char *buf, size_t len)
{
	const struct rfb_encoding *e = rfb_encoding_by_number(enc);

	if (e)
		return e->label;
	snprintf(buf, len, "0x%08x", (unsigned)enc);
	return buf;
}
