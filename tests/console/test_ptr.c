/* Pointer translation: evdev frames to RFB motion, buttons and wheel
 * clicks, absolute ranges to screen fractions, fbdev bitfields to pixel
 * formats. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fb/fb.h"
#include "evdev/ptr.h"
#include "../check.h"

static char log_buf[1024];

static void add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void add(const char *fmt, ...)
{
	size_t n = strlen(log_buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(log_buf + n, sizeof(log_buf) - n, fmt, ap);
	va_end(ap);
}

static void s_key(void *c, uint32_t sym, uint32_t sc, bool down)
{
	add("key ");
}

static void s_rel(void *c, int dx, int dy)
{
	add("rel %d %d;", dx, dy);
}

static void s_abs(void *c, double fx, double fy)
{
	add("abs %.3f %.3f;", fx, fy);
}

static void s_button(void *c, int b, bool down)
{
	add("b%d%s;", b, down ? "+" : "-");
}

static void s_quit(void *c)
{
	add("quit;");
}

static const struct input_sink sink = {NULL,  s_key,	s_rel,
				       s_abs, s_button, s_quit};

static void feed(struct ptr *p, int type, int code, int value)
{
	struct input_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.code = (uint16_t)code;
	ev.value = value;
	ptr_feed(p, &ev, &sink);
}

#define EXPECT(want)                                                           \
	do {                                                                   \
		CHECK(strcmp(log_buf, want) == 0, "got '%s', want '%s'",       \
		      log_buf, want);                                          \
		log_buf[0] = '\0';                                             \
	} while (0)

static void check_fmt(unsigned bpp, unsigned ro, unsigned rl, unsigned go,
		      unsigned gl, unsigned bo, unsigned bl, const char *name)
{
	struct pixfmt f, want;
	int ret = fbdev_format_from_bitfields(bpp, ro, rl, go, gl, bo, bl, &f);

	if (!name) {
		CHECK(ret == -ENOTSUP, "bpp %u r%u@%u accepted", bpp, rl, ro);
		return;
	}
	CHECK(ret == 0 && pixfmt_from_name(name, &want) == 0 &&
		  pixfmt_equal(&f, &want),
	      "bitfields for %s", name);
}

int main(void)
{
	struct ptr p;

	CHECK(ptr_button(BTN_LEFT) == 1, "left");
	CHECK(ptr_button(BTN_MIDDLE) == 2, "middle");
	CHECK(ptr_button(BTN_RIGHT) == 3, "right");
	CHECK(ptr_button(BTN_TOUCH) == 1, "touch");
	CHECK(ptr_button(KEY_A) == 0, "KEY_A is no button");
	/* Back and forward, under both names mice give them. */
	CHECK(ptr_button(BTN_SIDE) == 8, "side");
	CHECK(ptr_button(BTN_BACK) == 8, "back");
	CHECK(ptr_button(BTN_EXTRA) == 9, "extra");
	CHECK(ptr_button(BTN_FORWARD) == 9, "forward");

	CHECK(ptr_fraction(0, 0, 32767) == 0, "min");
	CHECK(ptr_fraction(32767, 0, 32767) == 1, "max");
	CHECK(fabs(ptr_fraction(50, 0, 100) - 0.5) < 1e-9, "middle");
	CHECK(ptr_fraction(-7, 0, 100) == 0, "below");
	CHECK(ptr_fraction(700, 0, 100) == 1, "above");
	CHECK(fabs(ptr_fraction(0, -100, 100) - 0.5) < 1e-9, "signed");
	CHECK(ptr_fraction(5, 5, 5) == 0, "empty range");
	CHECK(ptr_fraction(-2147483647, -2147483647 - 1, 2147483647) < 1e-9,
	      "full int range");

	/* Relative mouse: one frame = one motion, then buttons. */
	ptr_init_rel(&p);
	feed(&p, EV_REL, REL_X, 5);
	feed(&p, EV_REL, REL_Y, -3);
	feed(&p, EV_REL, REL_X, 2);
	EXPECT("");
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("rel 7 -3;");
	feed(&p, EV_KEY, BTN_LEFT, 1);
	feed(&p, EV_REL, REL_X, 1);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("rel 1 0;b1+;");
	feed(&p, EV_KEY, BTN_LEFT, 0);
	feed(&p, EV_KEY, BTN_RIGHT, 1);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("b1-;b3+;");
	feed(&p, EV_KEY, BTN_RIGHT, 2); /* repeat: not a press */
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("");
	/* Wheel: up = 4, down = 5, right = 7, left = 6; one click each. */
	feed(&p, EV_REL, REL_WHEEL, 1);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("b4+;b4-;");
	feed(&p, EV_REL, REL_WHEEL, -2);
	feed(&p, EV_REL, REL_WHEEL_HI_RES, -240);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("b5+;b5-;b5+;b5-;");
	feed(&p, EV_REL, REL_HWHEEL, 1);
	feed(&p, EV_REL, REL_HWHEEL, -2);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("b6+;b6-;");
	feed(&p, EV_SYN, SYN_DROPPED, 0);
	EXPECT("");
	/* ABS events on a relative device are ignored. */
	feed(&p, EV_ABS, ABS_X, 100);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("");

	/* Absolute: a fraction of the device's own range. */
	ptr_init_abs(&p, ABS_X, 0, 32767, ABS_Y, 0, 32767);
	feed(&p, EV_ABS, ABS_X, 32767);
	feed(&p, EV_ABS, ABS_Y, 0);
	feed(&p, EV_KEY, BTN_LEFT, 1);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("abs 1.000 0.000;b1+;");
	feed(&p, EV_ABS, ABS_Y, 8192); /* X stays */
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("abs 1.000 0.250;");
	ptr_init_abs(&p, ABS_MT_POSITION_X, 100, 300, ABS_MT_POSITION_Y, -50,
		     50);
	feed(&p, EV_ABS, ABS_MT_POSITION_X, 150);
	feed(&p, EV_ABS, ABS_MT_POSITION_Y, 0);
	feed(&p, EV_KEY, BTN_TOUCH, 1);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("abs 0.250 0.500;b1+;");

	/* Touchpad, 10 units/mm: 6 px/mm, so 0.6 px a unit. The landing
	 * point does not move the pointer, whatever the event order. */
	ptr_init_touchpad(&p, 0, 1000, 10, 0, 800, 10);
	feed(&p, EV_ABS, ABS_X, 100);
	feed(&p, EV_ABS, ABS_Y, 100);
	feed(&p, EV_SYN, SYN_REPORT, 0); /* hovering: nothing */
	EXPECT("");
	feed(&p, EV_KEY, BTN_TOUCH, 1);
	feed(&p, EV_ABS, ABS_X, 500);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT(""); /* landed at 500,100: no click, no jump */
	feed(&p, EV_ABS, ABS_X, 510);
	feed(&p, EV_ABS, ABS_Y, 95);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("rel 6 -3;");
	feed(&p, EV_ABS, ABS_X, 511); /* 0.6 px: carried over */
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("");
	feed(&p, EV_ABS, ABS_X, 512);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("rel 1 0;");
	feed(&p, EV_KEY, BTN_LEFT, 1); /* a clickpad's click */
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("b1+;");
	feed(&p, EV_KEY, BTN_LEFT, 0);
	feed(&p, EV_KEY, BTN_TOUCH, 0);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("b1-;");
	feed(&p, EV_ABS, ABS_X, 900); /* lifted: no motion */
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("");
	feed(&p, EV_ABS, ABS_X, 200); /* lands elsewhere, ABS first */
	feed(&p, EV_KEY, BTN_TOUCH, 1);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("");
	feed(&p, EV_ABS, ABS_X, 190);
	feed(&p, EV_SYN, SYN_REPORT, 0);
	EXPECT("rel -6 0;");

	/* Framebuffer bitfields. */
	check_fmt(32, 16, 8, 8, 8, 0, 8, "xrgb8888");
	check_fmt(32, 0, 8, 8, 8, 16, 8, "xbgr8888");
	check_fmt(16, 11, 5, 5, 6, 0, 5, "rgb565");
	check_fmt(16, 10, 5, 5, 5, 0, 5, "xrgb1555");
	check_fmt(24, 16, 8, 8, 8, 0, 8, "rgb888");
	check_fmt(8, 5, 3, 2, 3, 0, 2, "rgb332");
	check_fmt(16, 8, 8, 5, 6, 0, 5, NULL);	   /* overlapping */
	check_fmt(32, 16, 10, 6, 10, 0, 10, NULL); /* 10 bits a channel */
	check_fmt(12, 8, 4, 4, 4, 0, 4, NULL);

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ptr: all passed\n");
	return 0;
}
