/* Image files: screenshots (binary PPM or PNG) and test references (PPM).
 * Any thread. */
#ifndef VNCFB_PPM_H
#define VNCFB_PPM_H

#include <stdint.h>

/* Write w x h RGB (3 bytes/pixel) atomically (temp file + rename), as
 * PNG (8-bit RGB, zlib-compressed) for a name ending in .png (any
 * case), else as PPM. 0 or -errno (logged). */
int image_write(const char *path, uint32_t w, uint32_t h, const uint8_t *rgb);
/* Read a P6 file with maxval 255. *rgb is malloc'd. 0 or -errno. */
int ppm_read(const char *path, uint32_t *w, uint32_t *h, uint8_t **rgb);

#endif
