/* Client messages built as bytes, apart from libvncclient, so that the
 * bytes vncfb sends are tested (tests/unit/test_vnc_enc.c): the
 * PointerEvent, plain or in ExtendedMouseButtons' 7-byte form. The
 * wrapper (vnc_send.c) writes them.
 *
 * Threads: any (pure functions). */
#ifndef VNCFB_VNC_MSG_H
#define VNCFB_VNC_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bits of the session's button mask (bit N-1 for button N) beyond the
 * plain PointerEvent's seven: back (button 8) and forward (button 9). */
#define VNC_BUTTON_BACK (1u << 7)
#define VNC_BUTTON_FORWARD (1u << 8)

/* A PointerEvent for buttons (bit N-1: button N, 1..9) at x,y (clamped
 * to 0..65535) into m; returns its length, 6 or 7. With extended (the
 * server confirmed ExtendedMouseButtons) and back or forward held, the
 * 7-byte form: the marker bit 7 set, back and forward in the extra byte.
 * Otherwise the plain form, which never sets bit 7: once vncfb offers
 * ExtendedMouseButtons a server that has it reads bit 7 as the marker
 * (even before it confirms), so back and forward are dropped. */
size_t vnc_pointer_msg(uint8_t m[7], int x, int y, uint32_t buttons,
		       bool extended);

#endif
