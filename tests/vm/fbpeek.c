/* What a framebuffer without a screen (vfb) shows, for the VM tests that
 * QEMU's screendump cannot see: its pixels through its colour map.
 *
 *   fbpeek DEVICE setcmap     program a grey ramp (a map to find again)
 *   fbpeek DEVICE cmap        "CMAP len N hash H cube332 yes|no"
 *   fbpeek DEVICE cmp REF.ppm "CMP model M worst R G B mean E of N"
 *
 * cmp, for 8 bpp pseudo-colour: each pixel's colour is its map entry's
 * top byte. M counts pixels that differ from the model of the whole
 * path: the server's rounding of REF's 8-bit channels to 3-3-2
 * (round(v * max / 255)), shown through the 3-3-2 cube vncfb programs
 * (round(q * 65535 / max), top byte); worst and mean are the distances
 * from REF per channel. Exit 0, or 1 on a failed call (message on
 * stderr). */
#include <fcntl.h>
#include <linux/fb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static uint16_t cr[256], cg[256], cb[256];

static int get_cmap(int fd, uint32_t len)
{
	struct fb_cmap cm = {0, len, cr, cg, cb, NULL};

	if (ioctl(fd, FBIOGETCMAP, &cm) < 0) {
		perror("FBIOGETCMAP");
		return -1;
	}
	return 0;
}

static unsigned model(unsigned v, unsigned max)
{
	unsigned q = (v * max + 127) / 255;

	return ((q * 65535 + max / 2) / max) >> 8;
}

static unsigned absdiff(unsigned a, unsigned b)
{
	return a > b ? a - b : b - a;
}

static int cmp(int fd, const struct fb_var_screeninfo *v,
	       const struct fb_fix_screeninfo *f, const char *ref_path)
{
	FILE *ref = fopen(ref_path, "rb");
	unsigned w, h, maxval, x, y, worst[3] = {0, 0, 0};
	unsigned long long sum = 0, n = 0, off_model = 0;
	uint8_t *mem;

	if (!ref || fscanf(ref, "P6 %u %u %u", &w, &h, &maxval) != 3 ||
	    fgetc(ref) == EOF || maxval != 255) {
		fprintf(stderr, "%s: not a binary PPM\n", ref_path);
		return 1;
	}
	if (v->bits_per_pixel != 8 || f->visual != FB_VISUAL_PSEUDOCOLOR) {
		fprintf(stderr, "fbpeek: cmp handles 8 bpp pseudo-colour only\n");
		return 1;
	}
	if (w > v->xres || h > v->yres || get_cmap(fd, 256) < 0)
		return 1;
	mem = mmap(NULL, f->smem_len, PROT_READ, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			uint8_t p = mem[(size_t)y * f->line_length + x];
			unsigned shown[3] = {cr[p] >> 8, cg[p] >> 8,
					     cb[p] >> 8};
			unsigned want[3], c;
			int rgb[3] = {fgetc(ref), fgetc(ref), fgetc(ref)};
			static const unsigned max[3] = {7, 7, 3};

			if (rgb[2] == EOF) {
				fprintf(stderr, "%s: short\n", ref_path);
				return 1;
			}
			for (c = 0; c < 3; c++) {
				unsigned d = absdiff(shown[c], (unsigned)rgb[c]);

				want[c] = model((unsigned)rgb[c], max[c]);
				if (d > worst[c])
					worst[c] = d;
				sum += d;
			}
			off_model += memcmp(shown, want, sizeof(want)) != 0;
			n++;
		}
	printf("CMP model %llu worst %u %u %u mean %.2f of %llu\n", off_model,
	       worst[0], worst[1], worst[2], (double)sum / (3.0 * n), n);
	return 0;
}

int main(int argc, char **argv)
{
	struct fb_var_screeninfo v;
	struct fb_fix_screeninfo f;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: fbpeek DEVICE setcmap|cmap|cmp REF\n");
		return 1;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || ioctl(fd, FBIOGET_VSCREENINFO, &v) < 0 ||
	    ioctl(fd, FBIOGET_FSCREENINFO, &f) < 0) {
		perror(argv[1]);
		return 1;
	}
	if (!strcmp(argv[2], "setcmap")) {
		struct fb_cmap cm = {0, 256, cr, cg, cb, NULL};
		unsigned i;

		for (i = 0; i < 256; i++)
			cr[i] = cg[i] = cb[i] = (uint16_t)(i * 257);
		cb[1] = 0x1234; /* not a ramp that could come about by chance */
		if (ioctl(fd, FBIOPUTCMAP, &cm) < 0) {
			perror("FBIOPUTCMAP");
			return 1;
		}
		return 0;
	}
	if (!strcmp(argv[2], "cmap")) {
		uint32_t hash = 2166136261u;
		unsigned i, cube = 1;

		if (get_cmap(fd, 256) < 0)
			return 1;
		for (i = 0; i < 256; i++) {
			uint16_t e[3] = {cr[i], cg[i], cb[i]};
			const uint8_t *b = (const uint8_t *)e;
			unsigned k;

			for (k = 0; k < sizeof(e); k++)
				hash = (hash ^ b[k]) * 16777619u;
			cube &= cr[i] == (((i >> 5) & 7) * 65535 + 3) / 7 &&
				cg[i] == (((i >> 2) & 7) * 65535 + 3) / 7 &&
				cb[i] == ((i & 3) * 65535 + 1) / 3;
		}
		printf("CMAP bpp %u visual %u hash %08x cube332 %s\n",
		       v.bits_per_pixel, f.visual, hash, cube ? "yes" : "no");
		return 0;
	}
	if (!strcmp(argv[2], "cmp") && argc == 4)
		return cmp(fd, &v, &f, argv[3]);
	fprintf(stderr, "fbpeek: unknown command %s\n", argv[2]);
	return 1;
}
