/* xanim: a full-screen animation for recording VNC streams (vncfb bench
 * --record): every pixel of the X screen changes in every frame, and the
 * content compresses like a photograph or a video does (smooth clouds,
 * hard-edged shapes, film grain), not like a desktop. Frame k is a
 * window onto one fixed texture, panned by (7k, 3k) pixels, put into a
 * pixmap (Xlib splits an XPutImage into 256 KiB requests) and copied to
 * the root window with one XCopyArea, so that Xvnc never sends half a
 * frame. Deterministic: the same frames on every run.
 *
 * Two more scenes, for the pictures the clouds do not cover (--scene):
 *   gradient  a smooth full-screen gradient that moves every frame: every
 *             pixel changes, neighbours differ by a step or two, so every
 *             hextile tile is a raw tile and zlib finds little to squeeze;
 *             drawn and copied whole like the clouds.
 *   desktop   a desktop: a terminal on the left whose text scrolls a line
 *             a frame (an XCopyArea on the screen, a CopyRect for a server
 *             that has it) and three windows with title bars and text
 *             moving over a plain background on the right, each copied to
 *             the screen where it was and where it is (a few small
 *             rectangles per update, not whole frames).
 *   text      small anti-aliased text over a stepped gradient and over a
 *             soft photograph-like picture, every line scrolling a line
 *             a frame and the backgrounds moving: most hextile tiles then
 *             carry many one- and two-pixel coloured subrectangles (the
 *             glyphs' blended edges), as a KVM box's or an older server's
 *             desktop does; drawn and copied whole like the clouds. The
 *             glyphs are the program's own (5x7 cells from its random
 *             generator, drawn at 1.4x with 4x4 supersampling), so no font
 *             is needed and the frames are the same on every machine.
 *
 * usage: xanim [--scene clouds|gradient|desktop|text] [--fps F] [--frames N]
 *              [--seed S] [--bell N]
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

/* A triangle wave of period 510 between 0 and 255. */
static uint8_t tri(long v)
{
	long m = v % 510;

	return (uint8_t)(m < 255 ? m : 510 - m);
}

/* The gradient's frame k into pix (w x h, 0x00RRGGBB): triangle waves
 * across x, y and the diagonal, each moving at its own speed, steep
 * enough that no two pixels of a 16x16 tile are alike. */
static void gradient_frame(uint32_t *pix, int w, int h, long k, uint8_t *tx,
			   uint8_t *ty, uint8_t *td)
{
	int x, y;

	for (x = 0; x < w; x++)
		tx[x] = tri(2L * x + 9 * k);
	for (y = 0; y < h; y++)
		ty[y] = tri(2L * y + 5 * k);
	for (x = 0; x < w + h; x++)
		td[x] = tri((long)x + 13 * k);
	for (y = 0; y < h; y++) {
		uint32_t *row = pix + (size_t)y * w;

		for (x = 0; x < w; x++)
			row[x] = (uint32_t)tx[x] << 16 | (uint32_t)ty[y] << 8 |
				 td[x + y];
	}
}

/* --- the text scene --- */

enum { GLYPHS = 40, GW = 8, GH = 11, LINE_H = 12, PHASES = 4 };

/* Coverage (0-255) of each glyph at each quarter-pixel phase, GW x GH. */
struct font {
	uint8_t cov[GLYPHS][PHASES][GH][GW];
};

/* The share of output pixel x,y (at phase ph quarter pixels) that the
 * 5x7 cell, scaled by 1.4, covers: 4x4 samples, 0-255. */
static uint8_t glyph_cover(const uint8_t cell[7][5], int x, int y, int ph)
{
	int hits = 0, sx, sy;

	for (sy = 0; sy < 4; sy++)
		for (sx = 0; sx < 4; sx++) {
			int cu = (int)((x + ph / 4.0 + (sx + 0.5) / 4) / 1.4);
			int cv = (int)((y + (sy + 0.5) / 4) / 1.4);

			hits += cu < 5 && cv < 7 && cell[cv][cu];
		}
	return (uint8_t)(hits * 255 / 16);
}

/* Glyphs of 5x7 cells from the generator (a vertical stroke in each, so
 * they look like letters to an encoder), scaled by 1.4 and supersampled
 * at each quarter-pixel phase. */
static void text_font(struct font *f, uint64_t seed)
{
	struct rng r = {seed ^ 0x9e3779b97f4a7c15ull};
	int g, ph, x, y;

	for (g = 0; g < GLYPHS; g++) {
		uint8_t cell[7][5];
		int stem = (int)(next(&r) % 5);

		for (y = 0; y < 7; y++)
			for (x = 0; x < 5; x++)
				cell[y][x] = x == stem || next(&r) % 3 == 0;
		for (ph = 0; ph < PHASES; ph++)
			for (y = 0; y < GH; y++)
				for (x = 0; x < GW; x++)
					f->cov[g][ph][y][x] =
					    glyph_cover(cell, x, y, ph);
	}
}

/* A soft picture (two octaves of noise, no grain), w x h, to pan. */
static uint32_t *text_photo(int w, int h, uint64_t seed)
{
	uint32_t *t = malloc((size_t)w * h * 4);
	float grid[2][16 * 16];
	struct rng r = {seed + 7};
	int x, y, i;

	if (!t)
		return NULL;
	for (i = 0; i < 16 * 16; i++) {
		grid[0][i] = (float)unit(&r);
		grid[1][i] = (float)unit(&r);
	}
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			double u = (double)x * 8 / w, v = (double)y * 8 / h;
			double a = noise(grid[0], 16, u, v) +
				   0.5 * noise(grid[0], 16, 2 * u, 2 * v);
			double b = noise(grid[1], 16, u, v);

			t[(size_t)y * w + x] =
			    (uint32_t)clamp8(255 * (0.5 + 0.5 * sin(5 * a)))
				<< 16 |
			    (uint32_t)clamp8(255 *
					     (0.4 + 0.4 * sin(4 * a + 3 * b)))
				<< 8 |
			    clamp8(255 * (0.5 + 0.5 * sin(3 * b - 2 * a)));
		}
	return t;
}

static uint32_t blend(uint32_t bg, uint32_t fg, unsigned a)
{
	uint32_t o = 0;
	int s;

	for (s = 0; s < 24; s += 8) {
		unsigned b = bg >> s & 255, c = fg >> s & 255;

		o |= (uint32_t)((b * (255 - a) + c * a + 127) / 255) << s;
	}
	return o;
}

/* Frame k: the left half a gradient in 4x4 steps, the right half the
 * photo panned; lines of text over both, each line the text of line
 * (i + k), words of 2-9 glyphs, in one of four colours. */
static void text_frame(uint32_t *pix, int w, int h, long k,
		       const struct font *f, const uint32_t *photo)
{
	static const uint32_t ink[4] = {0x101010, 0xf0f0f0, 0x1840a0, 0xa02010};
	int x, y;

	for (y = 0; y < h; y++) {
		uint32_t *row = pix + (size_t)y * w;
		int py = (int)((y + 2 * k) % h);

		for (x = 0; x < w / 2; x++) {
			int qx = (x + 3 * (int)k) / 4, qy = y / 4;

			row[x] = (uint32_t)tri(6L * qx) << 16 |
				 (uint32_t)tri(5L * qy + qx) << 8 |
				 tri(4L * (qx + qy) + 7);
		}
		for (; x < w; x++)
			row[x] = photo[(size_t)py * w + (x + 5 * k) % w];
	}
	for (y = 2; y + GH <= h; y += LINE_H) {
		long line = y / LINE_H + k;
		struct rng r = {(uint64_t)line * 0x2545f4914f6cdd1dull + 1};
		uint32_t c = ink[line & 3];
		int q = 4 * 4; /* in quarter pixels: 1 px margin */

		while (q / 4 + GW < w) {
			int word = 2 + (int)(next(&r) % 8), i, gy, gx;

			for (i = 0; i < word && q / 4 + GW < w; i++) {
				const uint8_t(*g)[GW] =
				    f->cov[next(&r) % GLYPHS][q & 3];

				for (gy = 0; gy < GH; gy++) {
					uint32_t *o =
					    pix + (size_t)(y + gy) * w + q / 4;

					for (gx = 0; gx < GW; gx++)
						if (g[gy][gx])
							o[gx] =
							    blend(o[gx], c,
								  g[gy][gx]);
				}
				q += 27; /* 6.75 px a glyph */
			}
			q += 4 * 5;
		}
	}
}

/* --- the desktop scene --- */

#define DESK_WINDOWS 3
#define DESK_LINE 16

struct desk_win {
	int x, y, w, h, dx, dy;
	unsigned long colour;
};

static const char *const desk_words[] = {
    "make[2]:",
    "Entering",
    "directory",
    "CC",
    "client/decode/dec_basic.o",
    "warning:",
    "unused",
    "variable",
    "LD",
    "vncfb",
    "[ 42%]",
    "Building",
    "tests",
    "passed",
    "0x7ffd",
    "open(\"/dev/dri/card0\")",
    "= 3",
    "ok",
    "ninja:",
    "no work to do.",
    "git",
    "log",
    "--oneline",
    "HEAD",
};

/* One line of made-up terminal output (deterministic in n). */
static int desk_text(char *buf, size_t len, long n)
{
	struct rng r = {(uint64_t)n * 7919 + 17};
	size_t at = 0;
	int words = 3 + (int)(next(&r) % 9);

	at += (size_t)snprintf(buf, len, "%6ld ", n);
	while (words-- > 0 && at + 40 < len)
		at += (size_t)snprintf(
		    buf + at, len - at, "%s ",
		    desk_words[next(&r) %
			       (sizeof(desk_words) / sizeof(desk_words[0]))]);
	return (int)at;
}

/* Text, or where the X server has no font, glyph-sized boxes. */
static void desk_string(Display *d, Drawable dr, GC gc, XFontStruct *font,
			int x, int y, const char *s, int n)
{
	int i;

	if (font) {
		XDrawString(d, dr, gc, x, y, s, n);
		return;
	}
	for (i = 0; i < n; i++)
		if (s[i] != ' ')
			XFillRectangle(d, dr, gc, x + 6 * i, y - 9, 5,
				       (unsigned)(6 + s[i] % 4));
}

static void desk_window(Display *d, Drawable dr, GC gc, XFontStruct *font,
			const struct desk_win *wi, int idx)
{
	char line[96];
	int i, n;

	XSetForeground(d, gc, 0x202020);
	XFillRectangle(d, dr, gc, wi->x, wi->y, (unsigned)wi->w,
		       (unsigned)wi->h);
	XSetForeground(d, gc, wi->colour);
	XFillRectangle(d, dr, gc, wi->x + 1, wi->y + 1, (unsigned)wi->w - 2,
		       22);
	XSetForeground(d, gc, 0xf4f4f0);
	XFillRectangle(d, dr, gc, wi->x + 1, wi->y + 24, (unsigned)wi->w - 2,
		       (unsigned)wi->h - 25);
	XSetForeground(d, gc, 0xffffff);
	n = snprintf(line, sizeof(line), "window %d - notes.txt", idx + 1);
	desk_string(d, dr, gc, font, wi->x + 8, wi->y + 16, line, n);
	XSetForeground(d, gc, 0x101010);
	for (i = 0; 40 + (i + 1) * DESK_LINE < wi->h; i++) {
		n = desk_text(line, sizeof(line), 1000L * idx + i);
		if (n > (wi->w - 16) / 6)
			n = (wi->w - 16) / 6;
		desk_string(d, dr, gc, font, wi->x + 8,
			    wi->y + 40 + i * DESK_LINE, line, n);
	}
}

/* Frame k of the desktop, drawn into pm and copied to the screen where
 * it changed. */
static void desktop_frame(Display *d, Window root, Pixmap pm, GC gc,
			  XFontStruct *font, int w, int h, long k,
			  struct desk_win *win)
{
	const unsigned long bg = 0x3a6ea5;
	const int tw = w * 2 / 5, th = h - 80, tx = 20, ty = 40;
	const int lines = (th - 8) / DESK_LINE;
	char line[160];
	int i, n;

	if (k == 0) {
		XSetForeground(d, gc, bg);
		XFillRectangle(d, pm, gc, 0, 0, (unsigned)w, (unsigned)h);
		XSetForeground(d, gc, 0x000000);
		XFillRectangle(d, pm, gc, tx, ty, (unsigned)tw, (unsigned)th);
		XSetForeground(d, gc, 0xc0c0c0);
		for (i = 0; i < lines; i++) {
			n = desk_text(line, sizeof(line), i);
			desk_string(d, pm, gc, font, tx + 4,
				    ty + 4 + (i + 1) * DESK_LINE - 4, line, n);
		}
		for (i = 0; i < DESK_WINDOWS; i++)
			desk_window(d, pm, gc, font, &win[i], i);
		XCopyArea(d, pm, root, gc, 0, 0, (unsigned)w, (unsigned)h, 0,
			  0);
		return;
	}
	/* The terminal: everything up a line, on the screen too, and the
	 * new line at the bottom. */
	XCopyArea(d, pm, pm, gc, tx, ty + 4 + DESK_LINE, (unsigned)tw,
		  (unsigned)((lines - 1) * DESK_LINE), tx, ty + 4);
	XCopyArea(d, root, root, gc, tx, ty + 4 + DESK_LINE, (unsigned)tw,
		  (unsigned)((lines - 1) * DESK_LINE), tx, ty + 4);
	XSetForeground(d, gc, 0x000000);
	XFillRectangle(d, pm, gc, tx, ty + 4 + (lines - 1) * DESK_LINE,
		       (unsigned)tw, DESK_LINE);
	XSetForeground(d, gc, 0xc0c0c0);
	n = desk_text(line, sizeof(line), lines + k - 1);
	desk_string(d, pm, gc, font, tx + 4, ty + 4 + lines * DESK_LINE - 4,
		    line, n);
	XCopyArea(d, pm, root, gc, tx, ty + 4 + (lines - 1) * DESK_LINE,
		  (unsigned)tw, DESK_LINE, tx,
		  ty + 4 + (lines - 1) * DESK_LINE);
	/* The windows move, bouncing inside the right part of the screen;
	 * that part is redrawn, and copied where each window was and is. */
	{
		const int left = tx + tw + 20;
		struct desk_win old[DESK_WINDOWS];

		memcpy(old, win, sizeof(old));
		for (i = 0; i < DESK_WINDOWS; i++) {
			struct desk_win *wi = &win[i];

			if (wi->x + wi->dx < left || wi->x + wi->w + wi->dx > w)
				wi->dx = -wi->dx;
			if (wi->y + wi->dy < 0 || wi->y + wi->h + wi->dy > h)
				wi->dy = -wi->dy;
			wi->x += wi->dx;
			wi->y += wi->dy;
		}
		XSetForeground(d, gc, bg);
		XFillRectangle(d, pm, gc, left, 0, (unsigned)(w - left),
			       (unsigned)h);
		for (i = 0; i < DESK_WINDOWS; i++)
			desk_window(d, pm, gc, font, &win[i], i);
		for (i = 0; i < DESK_WINDOWS; i++) {
			int x0 = old[i].x < win[i].x ? old[i].x : win[i].x;
			int y0 = old[i].y < win[i].y ? old[i].y : win[i].y;
			int x1 = old[i].x > win[i].x ? old[i].x : win[i].x;
			int y1 = old[i].y > win[i].y ? old[i].y : win[i].y;

			XCopyArea(d, pm, root, gc, x0, y0,
				  (unsigned)(x1 - x0 + win[i].w),
				  (unsigned)(y1 - y0 + win[i].h), x0, y0);
		}
	}
}

int main(int argc, char **argv)
{
	const char *scene = "clouds";
	uint8_t *tx = NULL, *ty = NULL, *td = NULL;
	XFontStruct *font = NULL;
	struct font *glyphs = NULL;
	struct desk_win win[DESK_WINDOWS];
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
		if (!strcmp(argv[i], "--scene") && i + 1 < argc)
			scene = argv[++i];
		else if (!strcmp(argv[i], "--fps") && i + 1 < argc)
			fps = atof(argv[++i]);
		else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = atol(argv[++i]);
		else if (!strcmp(argv[i], "--bell") && i + 1 < argc)
			bells = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: xanim [--scene clouds|gradient|"
					"desktop|text] [--fps F] [--frames N] "
					"[--seed S] [--bell N]\n");
			return 2;
		}
	}
	if (strcmp(scene, "clouds") && strcmp(scene, "gradient") &&
	    strcmp(scene, "desktop") && strcmp(scene, "text")) {
		fprintf(stderr, "xanim: unknown scene %s\n", scene);
		return 2;
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
	if (!strcmp(scene, "clouds")) {
		tex = make_texture(tw, th, seed);
	} else if (!strcmp(scene, "text")) {
		tex = text_photo(w, h, seed);
		glyphs = malloc(sizeof(*glyphs));
		if (glyphs)
			text_font(glyphs, seed);
		else
			tex = NULL;
	} else {
		tex = malloc(4);
		tx = malloc((size_t)w + h);
		ty = malloc((size_t)h);
		td = malloc((size_t)w + h);
		if (!tx || !ty || !td)
			tex = NULL;
	}
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
	if (!strcmp(scene, "desktop")) {
		font = XLoadQueryFont(d, "fixed");
		if (font)
			XSetFont(d, gc, font->fid);
		for (i = 0; i < DESK_WINDOWS; i++)
			win[i] = (struct desk_win){
			    .x = w / 2 + 60 * i,
			    .y = 80 + 150 * i,
			    .w = w / 5 + 40 * i,
			    .h = h / 4 + 30 * i,
			    .dx = 5 + 2 * i,
			    .dy = 3 + i,
			    .colour = 0x1e3c78ul + 0x301000ul * (unsigned)i};
	}
	t0 = now_s();
	for (k = 0; frames == 0 || k < frames; k++) {
		int dx = (int)((7 * k) % tw), dy = (int)((3 * k) % th);

		if (!strcmp(scene, "desktop")) {
			desktop_frame(d, root, pm, gc, font, w, h, k, win);
			goto drawn;
		}
		if (!strcmp(scene, "gradient")) {
			gradient_frame(pix, w, h, k, tx, ty, td);
			goto put;
		}
		if (!strcmp(scene, "text")) {
			text_frame(pix, w, h, k, glyphs, tex);
			goto put;
		}
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
	put:
		XPutImage(d, pm, gc, img, 0, 0, 0, 0, (unsigned)w, (unsigned)h);
		XCopyArea(d, pm, root, gc, 0, 0, (unsigned)w, (unsigned)h, 0,
			  0);
	drawn:
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
