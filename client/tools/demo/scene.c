/* The demo's animated scene (scene.h): the same picture whichever server
 * sends it. */
#include "config.h"

#include <stddef.h>

#include "tools/demo/scene.h"

#define BOX 96

static uint32_t rgb(unsigned r, unsigned g, unsigned b)
{
	return (r & 0xff) | (g & 0xff) << 8 | (b & 0xff) << 16;
}

/* The framebuffer is in libvncserver's default 32-bit format: R in the low
 * byte. */
static void box_pos(uint64_t n, int w, int h, int *x, int *y)
{
	int rx = w - BOX, ry = h / 2 - BOX;
	uint64_t tx = (n * 7) % (uint64_t)(2 * rx);
	uint64_t ty = (n * 5) % (uint64_t)(2 * ry);

	*x = (int)(tx < (uint64_t)rx ? tx : 2 * (uint64_t)rx - tx);
	*y = (int)(ty < (uint64_t)ry ? ty : 2 * (uint64_t)ry - ty);
}

void demo_draw(uint32_t *px, int w, int h, int stride_px, uint64_t n)
{
	static const uint32_t bars[8] = {
		0xffffff, 0x00ffff, 0xffff00, 0x00ff00,
		0xff00ff, 0x0000ff, 0xff0000, 0x000000,
	};
	int x, y, bx, by;

	for (y = 0; y < h; y++) {
		uint32_t *row = px + (size_t)y * stride_px;

		for (x = 0; x < w; x++) {
			if (y < h / 2) {
				uint32_t c = bars[x * 8 / w];

				/* bars[] is 0xRRGGBB; swap into R-low. */
				row[x] = rgb(c >> 16, c >> 8, c);
			} else {
				unsigned t = (unsigned)(n * 3);

				row[x] = rgb((unsigned)(x * 255 / w) + t,
					     (unsigned)(y * 255 / h),
					     255 - (unsigned)(x * 255 / w) + t);
			}
		}
	}
	box_pos(n, w, h, &bx, &by);
	for (y = by; y < by + BOX; y++)
		for (x = bx; x < bx + BOX; x++)
			px[(size_t)y * stride_px + x] =
				((x - bx) / 12 + (y - by) / 12) % 2
					? rgb(255, 255, 255)
					: rgb(255, 64, 0);
}
