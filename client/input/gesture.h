/* Touch gestures to pointer events (--touch gestures): the contacts of a
 * multi-touch screen, frame by frame, become the clicks, drags and wheel
 * events of TigerVNC's viewer (vncviewer/GestureHandler.cxx, which
 * recognises, and BaseTouchHandler.cxx, which maps):
 *
 *   one-finger tap      left click (button 1)
 *   two-finger tap      right click (button 3)
 *   three-finger tap    middle click (button 2)
 *   one-finger drag     left-button drag, from where the finger landed
 *   long press (1 s)    right button down where the finger landed, a
 *                       right-button drag as it moves, up when it lifts
 *   two-finger drag     the wheel (4/5 up/down, 6/7 left/right), a
 *                       notch per GESTURE_SCROLL_MM, the content moving
 *                       with the fingers
 *   pinch               Ctrl + wheel up (spread) or down (close), a
 *                       notch per GESTURE_ZOOM_MM the fingers' distance
 *                       changes
 *
 * Distances are millimetres on the device (from its resolution), not
 * pixels: a finger must travel GESTURE_MOVE_MM before it drags, so one
 * that rests and trembles stays a tap or a long press. Where this
 * differs from TigerVNC is said in the man page (dist/vncfb.1, TOUCH).
 *
 * Pure: no devices and no clock. The caller passes each frame's time and
 * calls gesture_tick when gesture_deadline comes (the long press and the
 * choice between pinch and scroll wait for time, not for events).
 * Positions reach the sink as motion_abs fractions of the device, as a
 * single-touch screen's do, so the session turns and maps them alike.
 *
 * Threads: main thread; one recogniser per touch screen. */
#ifndef VNCFB_GESTURE_H
#define VNCFB_GESTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/input.h"

/* A finger must move this far from where it landed before it drags,
 * scrolls or pinches. */
#define GESTURE_MOVE_MM 5.0
/* A wheel notch per this much of a two-finger drag (TigerVNC: 50 px,
 * 13 mm at 96 dpi). */
#define GESTURE_SCROLL_MM 13.0
/* A Ctrl+wheel notch per this much change of a pinch's span (TigerVNC:
 * 30 px, 8 mm at 96 dpi). */
#define GESTURE_ZOOM_MM 8.0
/* Taps of one kind within GESTURE_SNAP_MS and this far apart click the
 * first one's place, so that a double tap is a double click. */
#define GESTURE_SNAP_MM 13.0
#define GESTURE_SNAP_MS 1000
/* Fingers of one gesture land, and lift, within this of each other. */
#define GESTURE_MULTITOUCH_MS 250
/* A tap is shorter than this. */
#define GESTURE_TAP_MS 1000
/* A finger held still this long is a long press. */
#define GESTURE_LONGPRESS_MS 1000
/* Two fingers, one moved and the other not (yet): how long to wait
 * before telling a pinch from a scroll by what they did meanwhile. */
#define GESTURE_TWOTOUCH_MS 50
/* Without a resolution the device is taken to be this wide (its units
 * square). */
#define GESTURE_GUESS_WIDTH_MM 300.0
/* Contacts tracked at once; more fingers are no gesture. */
#define GESTURE_MAX_TOUCHES 16

/* A touch screen's axes: ranges and resolutions (units per millimetre,
 * 0 when the device does not say: EVIOCGABS's resolution). */
struct gesture_geom {
	int min_x, max_x, min_y, max_y;
	int res_x, res_y;
};

/* One contact in a frame: id tells it from the others for as long as it
 * touches (evdev's tracking id); position in device units. */
struct gesture_touch {
	int id;
	int x, y;
};

struct gesture;

/* NULL on failure (out of memory). */
struct gesture *gesture_create(const struct gesture_geom *geom);
void gesture_destroy(struct gesture *g);
/* Whether the resolution was guessed (GESTURE_GUESS_WIDTH_MM). */
bool gesture_guessed(const struct gesture *g);

/* The contacts down at now (ns; the clock gesture_tick is given), all of
 * them: a contact missing that was down has lifted. At most
 * GESTURE_MAX_TOUCHES are looked at. What they do goes to sink; a NULL
 * sink (the console is away) sends nothing, and every contact that lands
 * meanwhile is no gesture until it lifts. */
void gesture_frame(struct gesture *g, const struct gesture_touch *t, unsigned n,
		   uint64_t now, const struct input_sink *sink);
/* When gesture_tick is due (ns), 0 when nothing waits for time. */
uint64_t gesture_deadline(const struct gesture *g);
/* Whatever is due at now. */
void gesture_tick(struct gesture *g, uint64_t now,
		  const struct input_sink *sink);
/* Let go (the device went away, the console was switched): a button a
 * gesture holds goes up through sink (unless NULL), and the contacts down
 * are no gesture until they lift. */
void gesture_reset(struct gesture *g, const struct input_sink *sink);

#endif
