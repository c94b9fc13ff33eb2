/* Compare vncfb's screenshot of a scaled desktop with the reference box
 * filter applied to the server's own picture.
 *
 * usage: boxcmp SERVER.ppm SHOT.ppm fit|fill
 * The geometry (fit: largest aspect-keeping size, rounded to nearest,
 * centred) is computed here independently of client/view/scale.c. Inside the
 * desktop every channel must be within 1 of the reference, outside it
 * black. Exit 0 match, 1 mismatch, 2 usage. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ppm.h"
#include "ref_box.h"

int main(int argc, char **argv)
{
	/* PPM is R, G, B in memory: a big-endian 24-bit value. */
	const struct pixfmt rgb = {24, 24, 16, 8, 0, 8, 8, 8, true};
	uint32_t rw, rh, sw, sh, dw, dh, x, y;
	uint8_t *server, *shot;
	double *ref, worst = 0;
	long bad = 0, border_bad = 0;
	int dx, dy, c;

	if (argc != 4 || (strcmp(argv[3], "fit") && strcmp(argv[3], "fill"))) {
		fprintf(stderr, "usage: boxcmp SERVER.ppm SHOT.ppm fit|fill\n");
		return 2;
	}
	if (ppm_read(argv[1], &rw, &rh, &server) < 0 ||
	    ppm_read(argv[2], &sw, &sh, &shot) < 0) {
		fprintf(stderr, "boxcmp: cannot read the pictures\n");
		return 1;
	}
	if (!strcmp(argv[3], "fill")) {
		dw = sw;
		dh = sh;
	} else if ((double)sw / rw <= (double)sh / rh) {
		dw = sw;
		dh = (uint32_t)floor((double)rh * sw / rw + 0.5);
	} else {
		dh = sh;
		dw = (uint32_t)floor((double)rw * sh / rh + 0.5);
	}
	dx = (int)(sw - dw) / 2;
	dy = (int)(sh - dh) / 2;
	ref = malloc((size_t)dw * dh * 3 * sizeof(*ref));
	if (!ref)
		return 1;
	ref_box(&rgb, server, (size_t)rw * 3, rw, rh, dw, dh, ref);
	for (y = 0; y < sh; y++) {
		for (x = 0; x < sw; x++) {
			const uint8_t *p = shot + ((size_t)y * sw + x) * 3;
			int ix = (int)x - dx, iy = (int)y - dy;

			if (ix < 0 || iy < 0 || ix >= (int)dw ||
			    iy >= (int)dh) {
				if (p[0] || p[1] || p[2])
					border_bad++;
				continue;
			}
			for (c = 0; c < 3; c++) {
				double want =
				    ref[((size_t)iy * dw + (size_t)ix) * 3 + c];
				double d = fabs(p[c] - want);

				if (d > worst)
					worst = d;
				if (d > 1.0 + 1e-9) {
					if (bad < 5)
						fprintf(stderr,
							"boxcmp: (%u,%u) c%d: "
							"%u, reference %.3f\n",
							x, y, c, p[c], want);
					bad++;
				}
			}
		}
	}
	printf("boxcmp: server %ux%u -> %ux%u at %d,%d on %ux%u: worst "
	       "channel difference %.3f, %ld over 1, %ld non-black border "
	       "pixels\n",
	       rw, rh, dw, dh, dx, dy, sw, sh, worst, bad, border_bad);
	free(ref);
	free(server);
	free(shot);
	return bad || border_bad ? 1 : 0;
}
