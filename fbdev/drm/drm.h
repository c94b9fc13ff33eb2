/* The DRM/KMS output: page flips on one or more heads, hot-plug and VT
 * switches (drm.c), on the cards drm_card.c sets up.
 *
 * Threads: the output's hooks as output/output.h says. */
#ifndef VNCFB_FBDEV_DRM_H
#define VNCFB_FBDEV_DRM_H

#include "output/output.h"

extern const struct output_impl drm_output_impl;

/* DRM's rotation bit for a clockwise turn of the picture by quarter
 * turns (0-3): DRM_MODE_ROTATE_N turns the plane N degrees counter-
 * clockwise (drm_blend.c's "rotate-<degrees>"), so a clockwise quarter
 * is ROTATE_270. */
uint64_t drm_rotation_bit(unsigned turn);
/* The quarter turns (0-3) the plane gives for a wanted clockwise turn:
 * all of it when the plane has a rotation property (has) offering
 * that bit (offered: DRM_MODE_ROTATE_* bits), else 0 (the blitter turns
 * the picture). */
unsigned drm_choose_turn(bool has, uint64_t offered, unsigned want);

#endif
