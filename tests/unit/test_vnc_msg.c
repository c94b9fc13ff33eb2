/* Unit test: the PointerEvent's bytes (net/vnc_msg.h), plain and in
 * ExtendedMouseButtons' form, for every button with and without the
 * server's confirmation. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "../check.h"
#include "net/vnc_msg.h"

/* The message for buttons at 300,2 must be want (n bytes). */
static void expect(uint32_t buttons, bool ext, const uint8_t *want, size_t n,
		   const char *what)
{
	uint8_t m[7];
	size_t len;

	memset(m, 0xee, sizeof(m));
	len = vnc_pointer_msg(m, 300, 2, buttons, ext);
	CHECK(len == n && memcmp(m, want, n) == 0,
	      "%s: %zu bytes %02x %02x %02x %02x %02x %02x %02x", what, len,
	      m[0], m[1], m[2], m[3], m[4], m[5], m[6]);
}

int main(void)
{
	uint8_t m[7];

	/* Buttons 1-7 are the plain mask's bits 0-6, either way. */
	for (unsigned b = 1; b <= 7; b++) {
		const uint8_t want[] = {5, (uint8_t)(1u << (b - 1)), 1, 44, 0,
					2};

		expect(1u << (b - 1), false, want, 6, "plain button");
		expect(1u << (b - 1), true, want, 6, "confirmed, button 1-7");
	}
	/* Confirmed: back and forward in the extra byte, the marker set. */
	expect(VNC_BUTTON_BACK, true, (const uint8_t[]){5, 0x80, 1, 44, 0, 2, 1},
	       7, "back");
	expect(VNC_BUTTON_FORWARD, true,
	       (const uint8_t[]){5, 0x80, 1, 44, 0, 2, 2}, 7, "forward");
	expect(VNC_BUTTON_BACK | VNC_BUTTON_FORWARD | 1, true,
	       (const uint8_t[]){5, 0x81, 1, 44, 0, 2, 3}, 7,
	       "back, forward and left");
	/* Not confirmed: dropped, and bit 7 is never set (a server that
	 * has the extension reads it as the marker). */
	expect(VNC_BUTTON_BACK, false, (const uint8_t[]){5, 0, 1, 44, 0, 2}, 6,
	       "back, unconfirmed");
	expect(VNC_BUTTON_FORWARD | 4, false,
	       (const uint8_t[]){5, 4, 1, 44, 0, 2}, 6,
	       "forward and right, unconfirmed");
	/* Released: the plain form says the extended buttons are up. */
	expect(0, true, (const uint8_t[]){5, 0, 1, 44, 0, 2}, 6, "released");
	/* Bits past forward are not buttons. */
	expect(1u << 9 | 1u << 31, true, (const uint8_t[]){5, 0, 1, 44, 0, 2},
	       6, "no button 10");
	/* Coordinates clamped into U16. */
	CHECK_EQ(vnc_pointer_msg(m, -5, 70000, 0, false), 6);
	CHECK(m[2] == 0 && m[3] == 0 && m[4] == 0xff && m[5] == 0xff,
	      "clamped: %02x%02x %02x%02x", m[2], m[3], m[4], m[5]);
	return check_done("vnc_msg");
}
