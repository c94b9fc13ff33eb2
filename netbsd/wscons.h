/* What the wsdisplay output and the wscons input share: switching screens
 * (Ctrl+Alt+Fn). Whether vncfb's screen is shown reaches the input through
 * the session (the output's suspend/resume events, then the input's own
 * suspend/resume hooks). Main thread only. */
#ifndef VNCFB_NETBSD_WSCONS_H
#define VNCFB_NETBSD_WSCONS_H

struct output_impl;
struct input_impl;

extern const struct output_impl wsdisplay_output_impl;
extern const struct input_impl wscons_input_impl;

/* Show wscons screen n (0 is ttyE0), through the open wsdisplay output.
 * 0 or -errno (logged). */
int wscons_switch_screen(int n);

#endif
