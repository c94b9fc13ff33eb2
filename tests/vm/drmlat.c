/* How long a finished blit pass takes to reach the display, and whether
 * the display ever shows an update half done: vncfb's own output and
 * blitter (drm or fbdev) on a QEMU bochs VGA, whose scanout this reads
 * from inside the guest (the VBE registers say where it starts in video
 * memory, the memory BAR holds it).
 *
 *   drmlat SPEC UPDATES CAPTURES
 *
 * Updates alternate between two full-screen pictures A and B (every
 * pixel differs). Latency: after each pass, poll a grid of pixels of the
 * scanout until all show the new picture; the time from the pass's end
 * (blit_stats.end_ns) to then. Tearing: for CAPTURES more updates, copy
 * the whole scanout again and again until it is the new picture, and
 * count copies that are neither A nor B (a copy during which a page flip
 * moved the scanout is dropped: that is the copy's fault, not the
 * display's). Prints "LAT <ns> FLIP <ns>" lines (FLIP: the flip event's
 * time after the pass, 0 without one), then "TEAR torn N of M". Root in
 * the VM only: iopl and the PCI BAR. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blit/blit.h"
#include "util/clock.h"
#include "shadow/damage.h"
#include "util/log.h"
#include "output/output.h"
#include "shadow/shadow.h"

#define VRAM "/sys/bus/pci/devices/0000:00:02.0/resource0"
#define GRID 16 /* probe points per side */
#define TIMEOUT_NS 5000000000ull

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static uint64_t last_start, last_end, last_shown;
static size_t vram_size; /* the BAR's */

static void on_pass(void *ctx, const struct blit_stats *st)
{
	if (!st->bytes)
		return;
	pthread_mutex_lock(&lock);
	last_start = st->start_ns;
	last_end = st->end_ns;
	last_shown = st->shown_ns;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static uint16_t dispi(int i)
{
	outw((uint16_t)i, 0x1ce);
	return inw(0x1cf);
}

/* Where the scanout starts in video memory (bytes), from the VBE
 * registers; read until two reads agree (the driver's MMIO writes move
 * the index the ports share). */
static size_t scanout(void)
{
	size_t a, b;

	do {
		a = (size_t)dispi(9) * dispi(6) * 4 + (size_t)dispi(8) * 4;
		b = (size_t)dispi(9) * dispi(6) * 4 + (size_t)dispi(8) * 4;
	} while (a != b);
	return a;
}

static uint32_t picture(int which, uint32_t x, uint32_t y)
{
	uint32_t v = ((x * 7 + y * 3) & 0xff) << 16 | ((x ^ y) & 0xff) << 8 |
		     ((y * 5) & 0xff);

	return which ? ~v & 0xffffff : v;
}

static void draw(struct shadow *sh, int which)
{
	uint32_t x, y;

	shadow_lock(sh);
	for (y = 0; y < sh->height; y++)
		for (x = 0; x < sh->width; x++)
			*(uint32_t *)(sh->pix + y * sh->stride + x * 4) =
			    picture(which, x, y);
	shadow_unlock(sh);
}

/* Whether the grid of probe points at the scanout shows picture which. */
static bool grid_shows(const uint8_t *vram, const struct output *o, int which)
{
	size_t base = scanout();
	int i, k;

	if (base + o->stride * o->height > vram_size)
		return false;
	for (i = 0; i < GRID; i++)
		for (k = 0; k < GRID; k++) {
			uint32_t x = (uint32_t)k * (o->width - 1) / (GRID - 1);
			uint32_t y = (uint32_t)i * (o->height - 1) / (GRID - 1);
			uint32_t v =
			    *(const volatile uint32_t *)(vram + base +
							 y * o->stride + x * 4);

			if ((v & 0xffffff) != picture(which, x, y))
				return false;
		}
	return true;
}

/* Copy the scanout and classify it: 0 picture A, 1 picture B, 2 torn,
 * -1 when the scanout moved during the copy. */
static int capture(const uint8_t *vram, const struct output *o, uint8_t *buf)
{
	size_t base = scanout(), row = (size_t)o->width * 4;
	int rows[2] = {0, 0};
	uint32_t y, x;

	if (base + o->stride * o->height > vram_size)
		return -1;
	for (y = 0; y < o->height; y++)
		memcpy(buf + y * row, vram + base + y * o->stride, row);
	if (scanout() != base)
		return -1;
	for (y = 0; y < o->height; y++) {
		const uint32_t *p = (const uint32_t *)(buf + y * row);
		int w;

		for (w = 0; w < 2; w++) {
			for (x = 0; x < o->width; x++)
				if ((p[x] & 0xffffff) != picture(w, x, y))
					break;
			if (x == o->width) {
				rows[w]++;
				break;
			}
		}
	}
	if (rows[0] == (int)o->height)
		return 0;
	if (rows[1] == (int)o->height)
		return 1;
	return 2;
}

/* Kick update k (picture k & 1). Returns when. */
static uint64_t kick(struct shadow *sh, struct damage *d, int k)
{
	struct rect all = {0, 0, (int32_t)sh->width, (int32_t)sh->height};
	uint64_t t0 = monotonic_ns();

	draw(sh, k & 1);
	damage_add_kick(d, &all);
	return t0;
}

/* Wait for the pass that started after t0 (the one that drew the
 * update). 0 or -ETIMEDOUT. */
static int pass_after(uint64_t t0, uint64_t *end, uint64_t *shown)
{
	int ret = 0;

	pthread_mutex_lock(&lock);
	while (last_start < t0 && ret == 0) {
		struct timespec ts = deadline_in_ms(CLOCK_REALTIME, 10000);

		ret = pthread_cond_timedwait(&cond, &lock, &ts);
	}
	*end = last_end;
	*shown = last_shown;
	pthread_mutex_unlock(&lock);
	return ret ? -ETIMEDOUT : 0;
}

int main(int argc, char **argv)
{
	struct output out;
	struct shadow sh;
	struct damage dmg;
	struct blitter *b;
	struct stat st;
	uint8_t *vram, *buf;
	int fd, n, ncap, k, torn = 0, copies = 0, moved = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: drmlat SPEC UPDATES CAPTURES\n");
		return 2;
	}
	n = atoi(argv[2]);
	ncap = atoi(argv[3]);
	if (iopl(3) < 0) {
		perror("iopl");
		return 1;
	}
	fd = open(VRAM, O_RDWR);
	if (fd >= 0 && fstat(fd, &st) == 0)
		vram_size = (size_t)st.st_size;
	vram = fd < 0 ? MAP_FAILED
		      : mmap(NULL, vram_size, PROT_READ, MAP_SHARED, fd, 0);
	if (vram == MAP_FAILED) {
		perror(VRAM);
		return 1;
	}
	if (output_open(&out, argv[1]) < 0)
		return 1;
	buf = malloc((size_t)out.width * out.height * 4);
	shadow_init(&sh, &out.fmt);
	shadow_resize(&sh, out.width, out.height);
	damage_init(&dmg);
	b = blit_create(&out, &sh, &dmg, 1);
	blit_reset_view(b);
	blit_set_on_pass(b, on_pass, NULL);
	if (blit_start(b) < 0)
		return 1;
	for (k = 0; k < n + ncap; k++) {
		uint64_t t0, end, shown, seen = 0, t;

		/* The display is watched from the kick on, while the pass
		 * draws and presents, the same way for both outputs. */
		t0 = kick(&sh, &dmg, k);
		for (t = monotonic_ns(); monotonic_ns() - t < TIMEOUT_NS;) {
			if (k >= n) {
				int c = capture(vram, &out, buf);

				if (c < 0) {
					moved++;
					continue;
				}
				copies++;
				torn += c == 2;
				if (c == (k & 1))
					break;
			} else if (grid_shows(vram, &out, k & 1)) {
				seen = monotonic_ns();
				break;
			} else {
				usleep(100);
			}
		}
		if (pass_after(t0, &end, &shown) < 0) {
			fprintf(stderr, "drmlat: update %d was not drawn\n", k);
			break;
		}
		if (k < n)
			printf("LAT %lld FLIP %lld\n",
			       seen ? (long long)(seen - end) : -1LL,
			       shown ? (long long)(shown - end) : 0LL);
		/* Out of phase with anything periodic. */
		usleep(20000 + (unsigned)(k * 7919) % 30000);
	}
	printf("TEAR torn %d of %d copies (%d dropped: the scanout moved)\n",
	       torn, copies, moved);
	blit_stop(b);
	blit_destroy(b);
	damage_finish(&dmg);
	shadow_finish(&sh);
	output_close(&out);
	free(buf);
	return 0;
}
