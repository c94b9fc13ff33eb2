/* The NetBSD outputs and input source, in the order the default output is
 * tried. */
#include "config.h"

#include <stddef.h>

#include "platform/input.h"
#include "output/output.h"
#include "platform/platform.h"
#include "wscons.h"

const struct output_impl *const platform_outputs[] = {
    &wsdisplay_output_impl,
    NULL,
};

const struct input_impl *const platform_input = &wscons_input_impl;
