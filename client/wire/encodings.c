/* The table of encoding names (encodings.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "wire/encodings.h"
#include "wire/rfb.h"

/* The rectangle encodings first, in RFB's numbering; then the pseudo
 * ones vncfb reads, and those the bench server's tables count. */
static const struct rfb_encoding table[] = {
	{ RFB_ENC_RAW, "raw", "raw", true },
	{ RFB_ENC_COPYRECT, "copyrect", "CopyRect", true },
	{ RFB_ENC_RRE, "rre", "RRE", true },
	{ RFB_ENC_CORRE, "corre", "CoRRE", true },
	{ RFB_ENC_HEXTILE, "hextile", "hextile", true },
	{ RFB_ENC_ZLIB, "zlib", "zlib", true },
	{ RFB_ENC_TIGHT, "tight", "Tight", true },
	{ RFB_ENC_ULTRA, "ultra", "Ultra", true },
	{ RFB_ENC_TRLE, "trle", "TRLE", true },
	{ RFB_ENC_ZRLE, "zrle", "ZRLE", true },
	{ RFB_ENC_ZYWRLE, "zywrle", "ZYWRLE", true },
	{ RFB_ENC_JPEG, "jpeg", "JPEG", true },
#ifdef VNCFB_HAVE_H264
	{ RFB_ENC_H264, "h264", "Open H.264", true },
#else
	{ RFB_ENC_H264, "h264", "Open H.264", false },
#endif
	{ RFB_ENC_ZLIBHEX, "zlibhex", "ZlibHex", false },
	{ RFB_ENC_ULTRAZIP, "ultrazip", "UltraZip", false },
	{ RFB_ENC_XCURSOR, "xcursor", "XCursor", false },
	{ RFB_ENC_RICHCURSOR, "richcursor", "RichCursor", false },
	{ RFB_ENC_POINTERPOS, "pointerpos", "PointerPos", false },
	{ RFB_ENC_LASTRECT, "lastrect", "LastRect", false },
	{ RFB_ENC_DESKTOPSIZE, "desktopsize", "DesktopSize", false },
	{ RFB_ENC_EXTDESKTOPSIZE, "extdesktopsize", "ExtendedDesktopSize",
	  false },
	{ RFB_ENC_DESKTOPNAME, "desktopname", "DesktopName", false },
	{ RFB_ENC_QEMU_KEYS, "qemukeys", "QEMU extended key event", false },
	{ RFB_ENC_LEDSTATE, "ledstate", "KeyboardLedState", false },
	{ RFB_ENC_CURSOR_ALPHA, "cursoralpha", "CursorWithAlpha", false },
	{ RFB_ENC_EXT_MOUSE, "extmouse", "ExtendedMouseButtons", false },
};

#define N (sizeof(table) / sizeof(table[0]))

const struct rfb_encoding *rfb_encoding_by_number(int32_t enc)
{
	for (size_t i = 0; i < N; i++)
		if (table[i].enc == enc)
			return &table[i];
	return NULL;
}

const struct rfb_encoding *rfb_encoding_by_option(const char *s, size_t n)
{
	for (size_t i = 0; i < N; i++)
		if (table[i].offered && strlen(table[i].option) == n &&
		    strncasecmp(table[i].option, s, n) == 0)
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
