/* xanim: a full-screen animation for recording VNC streams (vncfb bench
 * --record): every pixel of the X screen changes in every frame, and the
 * content compresses like a photograph or a video does (smooth clouds,
 * hard-edged shapes, film grain), not like a desktop. Frame k is a
 * window onto one fixed texture, panned by (7k, 3k) pixels, put into a
 * pixmap (Xlib splits an XPutImage into 256 KiB requests) and copied to
 * the root window with one XCopyArea, so that Xvnc never sends half a
 * frame. Deterministic: the same frames on every run.
 *
 * usage: xanim [--fps F] [--frames N] [--seed S] [--bell N]
 *   --fps F     frames per second (default 10); 0: as fast as X takes them
 *   --frames N  stop after N frames and keep the last one on the screen
 *               until killed (default: run forever)
 *   --bell N    ring the bell N times after each frame (for tests: a VNC
 *               server sends the Bell messages back to back)
 * Prints "started" on stdout once the first frame is on the X screen, and
 * "done N" once the last one is. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <X11/Xlib.h>
#include <X11/Xutil.h>

struct rng {
	uint64_t s;
};

static uint32_t next(struct rng *r)
{
	/* xorshift64* */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (uint32_t)((r->s * 2685821657736338717ull) >> 32);
}

static double unit(struct rng *r)
{
	return next(r) / 4294967296.0;
}

/* Value noise on a wrapping grid of g x g cells. */
static double noise(const float *grid, int g, double x, double y)
{
	int x0 = (int)floor(x), y0 = (int)floor(y);
	double fx = x - x0, fy = y - y0;
	int xa = ((x0 % g) + g) % g, ya = ((y0 % g) + g) % g;
	int xb = (xa + 1) % g, yb = (ya + 1) % g;
	double sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
	double a = grid[ya * g + xa], b = grid[ya * g + xb];
	double c = grid[yb * g + xa], d = grid[yb * g + xb];

	return (a + (b - a) * sx) * (1 - sy) + (c + (d - c) * sx) * sy;
}

static uint8_t clamp8(double v)
{
	return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)(v + 0.5);
}

/* The texture, tw x th, tileable, 0x00RRGGBB per pixel. */
static uint32_t *make_texture(int tw, int th, uint64_t seed)
{
	enum { OCT = 5, G0 = 4 };
	uint32_t *t = malloc((size_t)tw * th * 4);
	float *grids[OCT][2];
	struct rng r = {seed ? seed : 1};
	int o, k, x, y, i;

	if (!t)
		return NULL;
	for (o = 0; o < OCT; o++)
		for (k = 0; k < 2; k++) {
			int g = G0 << o;

			grids[o][k] = malloc(sizeof(float) * g * g);
			if (!grids[o][k])
				return NULL;
			for (i = 0; i < g * g; i++)
				grids[o][k][i] = (float)unit(&r);
		}
	for (y = 0; y < th; y++)
		for (x = 0; x < tw; x++) {
			double v = 0, h = 0, amp = 0.5;
			double grain = (int)(next(&r) % 9) - 4;

			for (o = 0; o < OCT; o++, amp /= 2) {
				int g = G0 << o;
				double u = (double)x * g / tw;
				double w = (double)y * g / th;

				v += amp * noise(grids[o][0], g, u, w);
				h += amp * noise(grids[o][1], g, u, w);
			}
			/* A sky-to-earth palette, its hue drifting with h. */
			t[(size_t)y * tw + x] =
			    (uint32_t)clamp8(
				255 * (0.55 + 0.5 * sin(6.0 * v + 2.0 * h)) +
				grain)
				<< 16 |
			    (uint32_t)clamp8(
				255 * (0.45 +
				       0.45 * sin(5.0 * v + 3.5 * h + 1.0)) +
				grain)
				<< 8 |
			    clamp8(255 * (0.5 +
					  0.5 * sin(4.0 * v - 3.0 * h + 2.5)) +
				   grain);
		}
	/* Objects: discs and boxes with a gradient and a hard edge. */
	for (k = 0; k < 160; k++) {
		int cx = (int)(next(&r) % (unsigned)tw);
		int cy = (int)(next(&r) % (unsigned)th);
		int rad = 8 + (int)(next(&r) % (unsigned)(tw / 12 + 1));
		bool disc = next(&r) & 1;
		uint32_t c0 = next(&r) & 0xffffff;
		double shade = 0.6 + 0.4 * unit(&r);

		for (y = -rad; y <= rad; y++)
			for (x = -rad; x <= rad; x++) {
				int px = ((cx + x) % tw + tw) % tw;
				int py = ((cy + y) % th + th) % th;
				double f = (double)(y + rad) / (2 * rad + 1);
				double m = 1 - shade * f;
				double grain = (int)(next(&r) % 7) - 3;

				if (disc && x * x + y * y > rad * rad)
					continue;
				t[(size_t)py * tw + px] =
				    (uint32_t)clamp8(((c0 >> 16) & 255) * m +
						     grain)
					<< 16 |
				    (uint32_t)clamp8(((c0 >> 8) & 255) * m +
						     grain)
					<< 8 |
				    clamp8((c0 & 255) * m + grain);
			}
	}
	for (o = 0; o < OCT; o++)
		for (k = 0; k < 2; k++)
			free(grids[o][k]);
	return t;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void hide_cursor(Display *d, Window root)
{
	static char empty[1];
	Pixmap p = XCreateBitmapFromData(d, root, empty, 1, 1);
	XColor black = {0};
	Cursor c = XCreatePixmapCursor(d, p, p, &black, &black, 0, 0);

	XDefineCursor(d, root, c);
	XFreePixmap(d, p);
}

int main(int argc, char **argv)
{
	double fps = 10, t0;
	long frames = 0, k;
	int bells = 0, b;
	uint64_t seed = 20240601;
	Display *d;
	Window root;
	XImage *img;
	Visual *vis;
	GC gc;
	Pixmap pm;
	int w, h, tw, th, i, y;
	uint32_t *tex, *pix;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fps") && i + 1 < argc)
			fps = atof(argv[++i]);
		else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = atol(argv[++i]);
		else if (!strcmp(argv[i], "--bell") && i + 1 < argc)
			bells = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: xanim [--fps F] [--frames N] "
					"[--seed S] [--bell N]\n");
			return 2;
		}
	}
	d = XOpenDisplay(NULL);
	if (!d) {
		fprintf(stderr, "xanim: cannot open display %s\n",
			getenv("DISPLAY") ? getenv("DISPLAY") : "(unset)");
		return 1;
	}
	root = DefaultRootWindow(d);
	w = DisplayWidth(d, DefaultScreen(d));
	h = DisplayHeight(d, DefaultScreen(d));
	vis = DefaultVisual(d, DefaultScreen(d));
	if (DefaultDepth(d, DefaultScreen(d)) != 24 ||
	    vis->red_mask != 0xff0000 || vis->green_mask != 0xff00 ||
	    vis->blue_mask != 0xff) {
		fprintf(stderr, "xanim: needs a 24-bit 0xRRGGBB TrueColor "
				"screen\n");
		return 1;
	}
	tw = 2 * w;
	th = 2 * h;
	tex = make_texture(tw, th, seed);
	pix = malloc((size_t)w * h * 4);
	if (!tex || !pix) {
		fprintf(stderr, "xanim: out of memory\n");
		return 1;
	}
	img = XCreateImage(d, vis, 24, ZPixmap, 0, (char *)pix, (unsigned)w,
			   (unsigned)h, 32, w * 4);
	if (!img || img->bits_per_pixel != 32) {
		fprintf(stderr, "xanim: no 32 bpp images on this screen\n");
		return 1;
	}
	img->byte_order = LSBFirst;
	gc = XCreateGC(d, root, 0, NULL);
	pm = XCreatePixmap(d, root, (unsigned)w, (unsigned)h, 24);
	hide_cursor(d, root);
	t0 = now_s();
	for (k = 0; frames == 0 || k < frames; k++) {
		int dx = (int)((7 * k) % tw), dy = (int)((3 * k) % th);

		for (y = 0; y < h; y++) {
			const uint32_t *row =
			    tex + (size_t)((y + dy) % th) * tw;
			uint32_t *out = pix + (size_t)y * w;
			int first = tw - dx < w ? tw - dx : w;

			memcpy(out, row + dx, (size_t)first * 4);
			if (first < w)
				memcpy(out + first, row,
				       (size_t)(w - first) * 4);
		}
		XPutImage(d, pm, gc, img, 0, 0, 0, 0, (unsigned)w, (unsigned)h);
		XCopyArea(d, pm, root, gc, 0, 0, (unsigned)w, (unsigned)h, 0,
			  0);
		XSync(d, False);
		if (k == 0) {
			printf("started\n");
			fflush(stdout);
		}
		for (b = 0; b < bells; b++)
			XBell(d, 0);
		if (bells)
			XSync(d, False);
		if (fps > 0) {
			double wait = t0 + (k + 1) / fps - now_s();

			if (wait > 0)
				usleep((useconds_t)(wait * 1e6));
		}
	}
	printf("done %ld\n", k);
	fflush(stdout);
	for (;;)
		pause();
}
