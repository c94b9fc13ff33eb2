/* Client messages as bytes (vnc_msg.h). */
#include "config.h"

#include "net/vnc_msg.h"
#include "wire/rfb.h"

static uint16_t clamp16(int v)
{
	return v < 0 ? 0 : v > 65535 ? 65535 : (uint16_t)v;
}

size_t vnc_pointer_msg(uint8_t m[7], int x, int y, uint32_t buttons,
		       bool extended)
{
	uint16_t px = clamp16(x), py = clamp16(y);
	uint8_t ext = (buttons & VNC_BUTTON_BACK ? 1 : 0) |
		      (buttons & VNC_BUTTON_FORWARD ? 2 : 0);

	m[0] = RFB_MSG_POINTER;
	m[1] = (uint8_t)(buttons & 0x7f);
	m[2] = (uint8_t)(px >> 8);
	m[3] = (uint8_t)px;
	m[4] = (uint8_t)(py >> 8);
	m[5] = (uint8_t)py;
	/* A plain event after an extended one says the extended buttons
	 * are up, so the extended form is needed only while one is held
	 * (TigerVNC's viewer sends it so, too). */
	if (!extended || !ext)
		return 6;
	m[1] |= 0x80;
	m[6] = ext;
	return 7;
}
