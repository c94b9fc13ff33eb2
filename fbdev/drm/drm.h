/* The DRM/KMS output: page flips on one or more heads, hot-plug and VT
 * switches (drm.c), on the cards drm_card.c sets up.
 *
 * Threads: the output's hooks as output/output.h says. */
#ifndef VNCFB_FBDEV_DRM_H
#define VNCFB_FBDEV_DRM_H

#include "output/output.h"

extern const struct output_impl drm_output_impl;

#endif
