/* The evdev input source: every keyboard and pointer under /dev/input,
 * grabbed, and devices plugged in later.
 *
 * Threads: main thread only. */
#ifndef VNCFB_FBDEV_EVDEV_H
#define VNCFB_FBDEV_EVDEV_H

#include "platform/input.h"

extern const struct input_impl evdev_input_impl;

#endif
