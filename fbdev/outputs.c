/* The Linux outputs and input source, in the order the default output is
 * tried. */
#include "config.h"

#include <stddef.h>

#include "fbdev.h"
#include "input.h"
#include "output.h"
#include "platform.h"

const struct output_impl *const platform_outputs[] = {
    &fbdev_output_impl,
    NULL,
};

const struct input_impl *const platform_input = &evdev_input_impl;
