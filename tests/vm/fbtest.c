/* fbtest: the guest side of the VM test bed's own test (test_vmbed.py).
 *
 * Reports /dev/fb0's geometry and pixel format, draws a pattern the host
 * recomputes (colour bars over the top two thirds, a gradient below) from
 * a thread pinned to --cpu N, then waits for one key press and one pointer
 * event on /dev/input/event*. Every result is a "FBTEST key=value" line
 * for the host to parse; exit 0 only when every check passed.
 *
 * Threads: main opens and maps the device, starts the drawing thread and
 * joins it before it reads input; nothing is shared while both run.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <linux/input.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_INPUTS 32

struct fb {
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;
	uint8_t *mem;
	size_t len;
	int cpu;
	int failed;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The pattern; test_vmbed.py's pattern() is the same function. */
static void pattern(unsigned int x, unsigned int y, unsigned int w,
		    unsigned int h, uint8_t rgb[3])
{
	static const uint8_t bars[8][3] = {
	    {255, 255, 255}, {255, 255, 0}, {0, 255, 255}, {0, 255, 0},
	    {255, 0, 255},   {255, 0, 0},   {0, 0, 255},   {0, 0, 0},
	};

	if (y < h * 2 / 3) {
		memcpy(rgb, bars[x * 8 / w], 3);
		return;
	}
	rgb[0] = x & 255;
	rgb[1] = y & 255;
	rgb[2] = (x ^ y) & 255;
}

/* An 8-bit value in a channel of the device's format: the top bits. */
static uint32_t channel(uint8_t v, const struct fb_bitfield *f)
{
	if (!f->length || f->length > 8)
		return 0;
	return (uint32_t)(v >> (8 - f->length)) << f->offset;
}

static void draw_row(struct fb *fb, unsigned int y, uint8_t *row)
{
	unsigned int bytes = fb->var.bits_per_pixel / 8;
	const struct fb_var_screeninfo *v = &fb->var;

	for (unsigned int x = 0; x < v->xres; x++) {
		uint8_t rgb[3];
		uint32_t px;

		pattern(x, y, v->xres, v->yres, rgb);
		px = channel(rgb[0], &v->red) | channel(rgb[1], &v->green) |
		     channel(rgb[2], &v->blue);
		if (v->transp.length)
			px |= ((1u << v->transp.length) - 1)
			      << v->transp.offset;
		/* Little-endian, as on x86. */
		for (unsigned int i = 0; i < bytes; i++)
			row[x * bytes + i] = px >> (8 * i);
	}
}

/* Draws the whole screen from the core asked for, and says where it ran. */
static void *draw(void *arg)
{
	struct fb *fb = arg;
	size_t rowbytes = (size_t)fb->var.xres * (fb->var.bits_per_pixel / 8);
	size_t base = (size_t)fb->var.yoffset * fb->fix.line_length;
	uint8_t *row;
	cpu_set_t set;
	int before, after, err;
	double t0;

	CPU_ZERO(&set);
	CPU_SET(fb->cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err) {
		printf("FBTEST pin=FAIL pthread_setaffinity_np: %s\n",
		       strerror(err));
		fb->failed = 1;
		return NULL;
	}
	row = malloc(rowbytes);
	if (!row) {
		printf("FBTEST fb=FAIL malloc %zu\n", rowbytes);
		fb->failed = 1;
		return NULL;
	}
	before = sched_getcpu();
	t0 = now();
	for (unsigned int y = 0; y < fb->var.yres; y++) {
		draw_row(fb, y, row);
		memcpy(fb->mem + base + (size_t)y * fb->fix.line_length, row,
		       rowbytes);
	}
	after = sched_getcpu();
	free(row);
	if (before != fb->cpu || after != fb->cpu) {
		printf("FBTEST pin=FAIL ran on %d and %d, not %d\n", before,
		       after, fb->cpu);
		fb->failed = 1;
	} else {
		printf("FBTEST pin=OK cpu=%d draw_ms=%.1f\n", fb->cpu,
		       (now() - t0) * 1e3);
	}
	return NULL;
}

/* Whether the mapping is the device's memory (VM_IO/VM_PFNMAP) or pages
 * that deferred I/O copies out, as /proc/self/smaps says. */
static void report_mapping(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strchr("0123456789abcdef", line[0])) {
			in = strstr(line, "/dev/fb0") != NULL;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			int direct = strstr(line, " io") || strstr(line, " pf");

			printf("FBTEST map=%s\n", direct ? "direct" : "pages");
			break;
		}
	}
	fclose(f);
}

static int open_inputs(int *fds)
{
	char path[64], name[128];
	int n = 0;

	for (int i = 0; i < MAX_INPUTS; i++) {
		snprintf(path, sizeof(path), "/dev/input/event%d", i);
		fds[n] = open(path, O_RDONLY | O_NONBLOCK);
		if (fds[n] < 0)
			continue;
		name[0] = 0;
		ioctl(fds[n], EVIOCGNAME(sizeof(name)), name);
		printf("FBTEST input=event%d name=\"%s\"\n", i, name);
		n++;
	}
	return n;
}

/* Waits up to timeout s for a key press (want_pointer 0) or pointer
 * events (1: the sums of a second's relative motion, the last absolute
 * position, the first button). */
static int wait_input(int *fds, int n, int timeout, int want_pointer)
{
	double deadline = now() + timeout, first = 0;
	int got = 0, dx = 0, dy = 0, ax = -1, ay = -1, btn = -1;
	struct pollfd p[MAX_INPUTS];

	printf("FBTEST ready-for-%s\n", want_pointer ? "pointer" : "key");
	fflush(stdout);
	while (now() < deadline && !(got && now() - first > 1.0)) {
		for (int i = 0; i < n; i++)
			p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
		if (poll(p, n, 100) <= 0)
			continue;
		for (int i = 0; i < n; i++) {
			struct input_event ev;

			while (read(fds[i], &ev, sizeof(ev)) == sizeof(ev)) {
				if (!want_pointer && ev.type == EV_KEY &&
				    ev.value == 1 && ev.code < BTN_MISC) {
					printf("FBTEST key=%u\n", ev.code);
					return 0;
				}
				if (!want_pointer)
					continue;
				if (ev.type == EV_REL && ev.code == REL_X)
					dx += ev.value;
				else if (ev.type == EV_REL && ev.code == REL_Y)
					dy += ev.value;
				else if (ev.type == EV_ABS && ev.code == ABS_X)
					ax = ev.value;
				else if (ev.type == EV_ABS && ev.code == ABS_Y)
					ay = ev.value;
				else if (ev.type == EV_KEY && ev.value == 1 &&
					 ev.code >= BTN_MOUSE &&
					 ev.code < BTN_JOYSTICK && btn < 0)
					btn = ev.code;
				else
					continue;
				if (!got)
					first = now();
				got = 1;
			}
		}
	}
	if (!got) {
		printf("FBTEST %s=FAIL nothing in %d s\n",
		       want_pointer ? "pointer" : "key", timeout);
		return -1;
	}
	printf("FBTEST pointer rel=%d,%d abs=%d,%d button=%d\n", dx, dy, ax, ay,
	       btn);
	return 0;
}

int main(int argc, char **argv)
{
	struct fb fb = {.cpu = 1};
	int input_timeout = 60, fds[MAX_INPUTS], n, fd;
	pthread_t t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			fb.cpu = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--input-timeout") &&
			   i + 1 < argc) {
			input_timeout = atoi(argv[++i]);
		} else {
			fprintf(
			    stderr,
			    "usage: fbtest [--cpu N] [--input-timeout S]\n");
			return 2;
		}
	}
	fd = open("/dev/fb0", O_RDWR);
	if (fd < 0) {
		printf("FBTEST fb=FAIL open /dev/fb0: %s\n", strerror(errno));
		return 1;
	}
	if (ioctl(fd, FBIOGET_VSCREENINFO, &fb.var) ||
	    ioctl(fd, FBIOGET_FSCREENINFO, &fb.fix)) {
		printf("FBTEST fb=FAIL ioctl FBIOGET_*SCREENINFO: %s\n",
		       strerror(errno));
		return 1;
	}
	printf("FBTEST id=\"%.16s\" xres=%u yres=%u bpp=%u stride=%u "
	       "visual=%u\n",
	       fb.fix.id, fb.var.xres, fb.var.yres, fb.var.bits_per_pixel,
	       fb.fix.line_length, fb.fix.visual);
	printf("FBTEST red=%u/%u green=%u/%u blue=%u/%u\n", fb.var.red.offset,
	       fb.var.red.length, fb.var.green.offset, fb.var.green.length,
	       fb.var.blue.offset, fb.var.blue.length);
	if (fb.fix.visual != FB_VISUAL_TRUECOLOR || fb.var.bits_per_pixel % 8 ||
	    fb.var.bits_per_pixel < 16) {
		printf("FBTEST fb=FAIL not true colour at 16..32 bpp\n");
		return 1;
	}
	fb.len = fb.fix.smem_len;
	if ((size_t)fb.fix.line_length * (fb.var.yoffset + fb.var.yres) >
	    fb.len) {
		printf("FBTEST fb=FAIL smem_len %zu below the screen\n",
		       fb.len);
		return 1;
	}
	fb.mem = mmap(NULL, fb.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fb.mem == MAP_FAILED) {
		printf("FBTEST fb=FAIL mmap %zu: %s\n", fb.len,
		       strerror(errno));
		return 1;
	}
	report_mapping();
	if (pthread_create(&t, NULL, draw, &fb)) {
		printf("FBTEST fb=FAIL pthread_create\n");
		return 1;
	}
	pthread_join(t, NULL);
	/* Deferred I/O copies out what was written, once it is told. */
	msync(fb.mem, fb.len, MS_SYNC);
	printf("FBTEST drawn\n");
	n = open_inputs(fds);
	if (!n) {
		printf("FBTEST input=FAIL no /dev/input/event*\n");
		return 1;
	}
	if (wait_input(fds, n, input_timeout, 0) ||
	    wait_input(fds, n, input_timeout, 1))
		fb.failed = 1;
	printf("FBTEST result=%s\n", fb.failed ? "FAIL" : "PASS");
	return fb.failed;
}
