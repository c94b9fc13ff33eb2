/* What the wsdisplay output and the wscons input share: switching screens
 * (Ctrl+Alt+Fn) and telling the input when vncfb's screen is shown, so it
 * lets go of the keyboard while another screen has the console. Main
 * thread only. */
#ifndef VNCFB_NETBSD_WSCONS_H
#define VNCFB_NETBSD_WSCONS_H

#include <stdbool.h>

struct output_impl;
struct input_impl;

extern const struct output_impl wsdisplay_output_impl;
extern const struct input_impl wscons_input_impl;

/* Show wscons screen n (0 is ttyE0), through the open wsdisplay output.
 * 0 or -errno (logged). */
int wscons_switch_screen(int n);

/* Called with false when vncfb's screen is switched away, true when it is
 * back. One hook (the input's); NULL removes it. */
void wscons_set_focus_hook(void (*fn)(void *ctx, bool shown), void *ctx);

#endif
