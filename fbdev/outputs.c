/* The Linux outputs and input source, in the order the default output
 * tries them: DRM/KMS where a card drives a display and vncfb can be its
 * master, else the framebuffer device. */
#include "config.h"

#include <stddef.h>

#include "fb/fb.h"
#include "drm/drm.h"
#include "evdev/evdev.h"
#include "platform/input.h"
#include "output/output.h"
#include "platform/platform.h"

const struct output_impl *const platform_outputs[] = {
    &drm_output_impl,
    &fbdev_output_impl,
    NULL,
};

const struct input_impl *const platform_input = &evdev_input_impl;
