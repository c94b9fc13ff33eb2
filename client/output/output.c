/* Output selection by spec (the default console output among them), and
 * the in-memory output used by tests, benchmarks and the demo on a machine
 * without a console. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/stream.h"
#include "output/output.h"
#include "platform/platform.h"

#define MEM_MAX_DIM OUTPUT_MEM_MAX_DIM

struct mem_priv {
	uint8_t *buf;
	size_t size;
	/* Writes from every core made uncached (the "uncached" option). */
	bool uncached;
	/* heads=N: the heads after the first, each a buffer of its own,
	 * closed with the first. */
	bool extra;
	unsigned nmore;
	struct output *more[OUTPUT_MAX_HEADS];
};

int output_mem_parse(const char *arg, uint32_t *w, uint32_t *h,
		     struct pixfmt *fmt, int *slow_cpu, bool *uncached)
{
	char fmtname[32] = "xrgb8888";
	const char *p = arg, *opts;
	char *end;
	unsigned long v;

	*slow_cpu = -1;
	*uncached = false;
	if (!arg || !*arg) {
		*w = 1024;
		*h = 768;
		return pixfmt_from_name(fmtname, fmt);
	}
	v = strtoul(p, &end, 10);
	if (end == p || (*end != 'x' && *end != 'X') || v == 0 ||
	    v > MEM_MAX_DIM)
		return -EINVAL;
	*w = (uint32_t)v;
	p = end + 1;
	v = strtoul(p, &end, 10);
	if (end == p || v == 0 || v > MEM_MAX_DIM)
		return -EINVAL;
	*h = (uint32_t)v;
	p = end;
	opts = strchr(p, ',');
	if (*p == ':') {
		size_t n = opts ? (size_t)(opts - p - 1) : strlen(p + 1);

		if (n == 0 || n >= sizeof(fmtname))
			return -EINVAL;
		memcpy(fmtname, p + 1, n);
		fmtname[n] = '\0';
	} else if (*p != '\0' && *p != ',') {
		return -EINVAL;
	}
	if (pixfmt_from_name(fmtname, fmt) < 0)
		return -EINVAL;
	while (opts) {
		const char *o = opts + 1;

		opts = strchr(o, ',');
		if (strncmp(o, "slow-cpu=", 9) == 0) {
			v = strtoul(o + 9, &end, 10);
			if (end == o + 9 || (*end != '\0' && *end != ',') ||
			    v > 4095)
				return -EINVAL;
			*slow_cpu = (int)v;
		} else if (strncmp(o, "uncached", 8) == 0 &&
			   (o[8] == '\0' || o[8] == ',')) {
			*uncached = true;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

/* One mem head: a w x h buffer in fmt. 0 or -ENOMEM (logged). */
static int mem_head(struct output *out, struct mem_priv *mp, uint32_t w,
		    uint32_t h, const struct pixfmt *fmt)
{
	out->width = w;
	out->height = h;
	out->fmt = *fmt;
	/* Rows 64-byte aligned, as a real framebuffer's often are. */
	out->stride = ((size_t)w * pixfmt_bytes(fmt) + 63) & ~(size_t)63;
	mp->size = out->stride * h;
	if (posix_memalign((void **)&mp->buf, 64, mp->size)) {
		log_error("cannot allocate a %" PRIu32 "x%" PRIu32
			  " mem output",
			  w, h);
		return -ENOMEM;
	}
	memset(mp->buf, 0, mp->size);
	out->map = mp->buf;
	out->readable = true;
	out->priv = mp;
	return 0;
}

static void mem_close(struct output *out);

/* ",heads=N" taken out of arg (a copy in buf): how many heads, 1 without
 * it, 0 when N is not 1..OUTPUT_MAX_HEADS. */
static unsigned mem_heads(const char *arg, char *buf, size_t len)
{
	const char *at = arg ? strstr(arg, ",heads=") : NULL;
	unsigned long n = 1;
	char *end;

	snprintf(buf, len, "%s", arg ? arg : "");
	if (!at)
		return 1;
	n = strtoul(at + 7, &end, 10);
	if (end == at + 7 || n < 1 || n > OUTPUT_MAX_HEADS)
		return 0;
	snprintf(buf + (at - arg), len - (size_t)(at - arg), "%s", end);
	return (unsigned)n;
}

static int mem_open(struct output *out, const char *arg)
{
	struct mem_priv *mp;
	uint32_t w, h;
	struct pixfmt fmt;
	bool uncached;
	char rest[256];
	unsigned i, heads = mem_heads(arg, rest, sizeof(rest));
	int slow;

	if (!heads ||
	    output_mem_parse(rest, &w, &h, &fmt, &slow, &uncached) < 0) {
		log_error("bad mem output '%s' (expected "
			  "mem:WIDTHxHEIGHT[:FORMAT][,slow-cpu=N][,uncached]"
			  "[,heads=N], FORMAT one of xrgb8888 bgrx8888 rgb565 "
			  "rgb888, N 1-%d)",
			  arg ? arg : "", OUTPUT_MAX_HEADS);
		return -EINVAL;
	}
	mp = calloc(1, sizeof(*mp));
	if (!mp)
		return -ENOMEM;
	if (mem_head(out, mp, w, h, &fmt) < 0) {
		free(mp);
		return -ENOMEM;
	}
	out->slow_cpu = slow;
	mp->uncached = uncached;
	/* heads=N: N heads of one desktop, as drm:all makes them. */
	for (i = 1; i < heads; i++) {
		struct output *o = calloc(1, sizeof(*o));
		struct mem_priv *hp = calloc(1, sizeof(*hp));

		if (!o || !hp || mem_head(o, hp, w, h, &fmt) < 0) {
			free(o);
			free(hp);
			mem_close(out);
			return -ENOMEM;
		}
		o->impl = out->impl;
		o->fd = -1;
		o->slow_cpu = slow;
		hp->uncached = uncached;
		hp->extra = true;
		snprintf(o->name, sizeof(o->name), "mem-%u", i + 1);
		mp->more[mp->nmore++] = o;
		out->heads[i] = o;
	}
	if (heads > 1) {
		snprintf(out->name, sizeof(out->name), "mem-1");
		out->heads[0] = out;
		out->nheads = heads;
	}
	return 0;
}

static void mem_close(struct output *out)
{
	struct mem_priv *mp = out->priv;

	if (!mp || mp->extra)
		return;
	while (mp->nmore > 0) {
		struct output *o = mp->more[--mp->nmore];
		struct mem_priv *hp = o->priv;

		free(hp->buf);
		free(hp);
		free(o);
	}
	memset(out->heads, 0, sizeof(out->heads));
	out->nheads = 0;
	free(mp->buf);
	free(mp);
	out->priv = NULL;
	out->map = NULL;
}

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
static void flush_lines(uint8_t *p, size_t len)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63;
	uintptr_t end = (uintptr_t)p + len;

	/* What uncached memory costs: every line goes to RAM before the next
	 * store is allowed to proceed. */
	for (; a < end; a += 64) {
		_mm_clflush((void *)a);
		_mm_mfence();
	}
}
#else
static void flush_lines(uint8_t *p, size_t len)
{
	volatile uint8_t *v = p;
	size_t i;

	/* No portable cache flush: store byte by byte through volatile with
	 * a fence per line, which is the same order of cost. */
	for (i = 0; i < len; i++) {
		v[i] = p[i];
		if ((i & 63) == 63)
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
}
#endif

/* Rows shorter than this go through memcpy: the alignment head and tail
 * of a streaming copy cost more than they save. */
#define STREAM_MIN_ROW 256

#if STREAM_LINES
void output_copy_stream(uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t head;

	if (len < STREAM_MIN_ROW) {
		memcpy(dst, src, len);
		return;
	}
	head = (16 - ((uintptr_t)dst & 15)) & 15;
	memcpy(dst, src, head);
	dst += head;
	src += head;
	len -= head;
	/* Non-temporal stores: whole lines go to memory without being read
	 * first (no read-for-ownership) and without evicting the shadow
	 * from the cache; nobody reads the mapping back. */
	for (; len >= 64; dst += 64, src += 64, len -= 64)
		stream_line(dst, src);
	memcpy(dst, src, len);
}

void output_copy_stream_end(void)
{
	stream_fence();
}
#else
void output_copy_stream(uint8_t *dst, const uint8_t *src, size_t len)
{
	memcpy(dst, src, len);
}

void output_copy_stream_end(void)
{
}
#endif

/* Whether writes from the calling thread's core are made uncached. */
static bool mem_slow_here(struct output *out)
{
	const struct mem_priv *mp = out->priv;

	return mp->uncached || (out->slow_cpu >= 0 &&
				platform_current_cpu() == out->slow_cpu);
}

static void mem_write_row(struct output *out, uint8_t *dst,
			  const uint8_t *src, size_t len)
{
	if (mem_slow_here(out)) {
		memcpy(dst, src, len);
		flush_lines(dst, len);
		return;
	}
	output_copy_stream(dst, src, len);
}

/* Slow writes must go through mem_write_row to be slow. */
static bool mem_direct(struct output *out)
{
	return !mem_slow_here(out);
}

/* Streaming stores are weakly ordered: fence once per pass, so the pass
 * is in memory when the blitter says it is done. */
static void mem_present(struct output *out, const struct rect *rects, int n)
{
	output_copy_stream_end();
}

const struct output_impl output_mem_impl = {
	.name = "mem",
	.open = mem_open,
	.close = mem_close,
	.write_row = mem_write_row,
	.direct = mem_direct,
	.present = mem_present,
};

static const struct output_impl *find_impl(const char *name, size_t len)
{
	size_t i;

	if (len == 3 && strncmp(name, "mem", 3) == 0)
		return &output_mem_impl;
	for (i = 0; platform_outputs[i]; i++) {
		const char *n = platform_outputs[i]->name;

		if (strlen(n) == len && strncmp(n, name, len) == 0)
			return platform_outputs[i];
	}
	return NULL;
}

/* "default" and "auto" name the console output, whichever it is. */
static bool is_console_spec(const char *spec)
{
	return !spec || strcmp(spec, "default") == 0 ||
	       strcmp(spec, "auto") == 0;
}

/* The backend a "name[:arg]" spec names, and its arg (NULL: none). */
static const struct output_impl *spec_impl(const char *spec, const char **arg)
{
	const char *colon = strchr(spec, ':');

	*arg = colon ? colon + 1 : NULL;
	return find_impl(spec, colon ? (size_t)(colon - spec) : strlen(spec));
}

int output_check_spec(const char *spec, char *why, size_t len)
{
	const struct output_impl *impl;
	const char *arg;
	uint32_t w, h;
	struct pixfmt f;
	bool uncached;
	int slow;

	if (len)
		why[0] = '\0';
	if (is_console_spec(spec))
		return 0;
	impl = spec_impl(spec, &arg);
	if (!impl)
		return -ENOENT;
	if (impl == &output_mem_impl) {
		char rest[256];

		if (!mem_heads(arg, rest, sizeof(rest)))
			return -EINVAL;
		return output_mem_parse(rest, &w, &h, &f, &slow, &uncached);
	}
	if (impl->check_arg)
		return impl->check_arg(arg, why, len);
	return 0;
}

int output_check_device(const char *spec)
{
	const struct output_impl *impl;
	const char *arg;

	if (is_console_spec(spec))
		return 0;
	impl = spec_impl(spec, &arg);
	if (!impl)
		return -EINVAL;
	return impl->check ? impl->check(arg) : 0;
}

char *output_platform_specs(char *buf, size_t size)
{
	size_t i, n = 0;
	int w;

	buf[0] = '\0';
	for (i = 0; platform_outputs[i] && n < size; i++) {
		w = snprintf(buf + n, size - n, "%s%s[:DEVICE]", i ? ", " : "",
			     platform_outputs[i]->name);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}

/* What open or reconfigure reported cannot be drawn into (said). */
static bool head_unusable(const struct output *out, const struct output *h)
{
	if (pixfmt_valid(&h->fmt) && h->width && h->height && h->map &&
	    h->stride >= (size_t)h->width * pixfmt_bytes(&h->fmt) &&
	    pixfmt_equal(&h->fmt, &out->fmt))
		return false;
	log_error("%s output reports an unusable mode (%s%s%" PRIu32 "x%" PRIu32
		  ", %u bpp, stride %zu)",
		  out->impl->name, h->name, h->name[0] ? ": " : "", h->width,
		  h->height, h->fmt.bpp, h->stride);
	return true;
}

/* Every head: one shadow format serves them all. */
static bool unusable(struct output *out)
{
	unsigned i;

	if (out->nheads > OUTPUT_MAX_HEADS) {
		log_error("%s output reports %u heads", out->impl->name,
			  out->nheads);
		return true;
	}
	for (i = 0; i < output_nheads(out); i++)
		if (!output_head(out, i) ||
		    head_unusable(out, output_head(out, i)))
			return true;
	return false;
}

struct output *output_head(struct output *out, unsigned i)
{
	return i == 0 ? out : out->heads[i];
}

unsigned output_nheads(const struct output *out)
{
	return out->nheads > 1 ? out->nheads : 1;
}

int output_reconfigure(struct output *out)
{
	int ret;

	if (!out->impl || !out->impl->reconfigure)
		return -ENOTSUP;
	ret = out->impl->reconfigure(out);
	if (ret == 0 && unusable(out))
		return -EINVAL;
	return ret;
}

static int open_impl(struct output *out, const struct output_impl *impl,
		     const char *arg, bool trial, unsigned flags)
{
	int ret;

	/* Every backend is taken into use here: its required hooks are
	 * checked once, so that nothing else need test them. */
	if (!impl->open || !impl->close) {
		log_error("output %s has no %s hook", impl->name,
			  impl->open ? "close" : "open");
		return -ENOSYS;
	}
	memset(out, 0, sizeof(*out));
	out->impl = impl;
	out->fd = -1;
	out->slow_cpu = -1;
	out->trial = trial;
	out->may_wait = !trial && (flags & OUTPUT_OPEN_WAIT);
	ret = impl->open(out, arg);
	out->trial = false;
	out->may_wait = false;
	if (ret < 0) {
		out->impl = NULL;
		return ret;
	}
	if (unusable(out)) {
		impl->close(out);
		out->impl = NULL;
		return -EINVAL;
	}
	return 0;
}

/* A console output that failed this way is not there at all (no device,
 * no display on it), rather than there and unusable. */
static bool absent(int err)
{
	return err == -ENOENT || err == -ENODEV || err == -ENXIO;
}

static void append_why(char *buf, size_t len, const char *why)
{
	size_t used = strlen(buf);

	if (used + 3 < len)
		snprintf(buf + used, len - used, "%s%s", used ? "; " : "", why);
}

/* The platform's console output: each of platform_outputs in turn, those
 * before the last only tried (they fail quietly, the next one is the
 * fallback). What was not used, and why, goes to -v. */
static int open_console(struct output *out, bool mem_if_none, unsigned flags)
{
	char none[512] = "", failed[sizeof(out->why)] = "";
	const struct output_impl *waits = NULL;
	int i, ret = -ENOENT, failed_ret = 0;

	for (i = 0; platform_outputs[i]; i++) {
		const struct output_impl *impl = platform_outputs[i];
		bool last = !platform_outputs[i + 1];
		char why[sizeof(out->why)];

		if (impl->detect && impl->detect(why, sizeof(why)) < 0) {
			log_debug("default output: no %s (%s)", impl->name,
				  why);
			append_why(none, sizeof(none), why);
			ret = -ENOENT;
			continue;
		}
		ret = open_impl(out, impl, NULL, !last, 0);
		if (ret == 0) {
			log_debug("default output: %s", impl->name);
			return 0;
		}
		if (last) {
			/* It said why itself; only a demo on a machine
			 * without a console goes on. */
			if (!(mem_if_none && absent(ret) && !failed[0]))
				return ret;
			append_why(none, sizeof(none), impl->name);
			break;
		}
		log_debug("default output: %s not used: %s", impl->name,
			  out->why);
		/* There, but no display on it yet (-ENXIO). */
		if (ret == -ENXIO && !waits)
			waits = impl;
		if (absent(ret)) {
			append_why(none, sizeof(none), out->why);
		} else if (!failed[0]) {
			snprintf(failed, sizeof(failed), "%s", out->why);
			failed_ret = ret;
		}
	}
	if (failed[0]) {
		log_error("%s", failed);
		return failed_ret;
	}
	/* Nothing else to show on: a session waits for a display there
	 * (the demo draws into memory instead). */
	if (waits && (flags & OUTPUT_OPEN_WAIT) && !mem_if_none) {
		log_debug("default output: %s, waiting for a display (no other "
			  "console output: %s)",
			  waits->name, none);
		return open_impl(out, waits, NULL, false, flags);
	}
	if (mem_if_none) {
		log_info("no console output (%s): the demo draws into memory "
			 "(mem:1024x768)",
			 none[0] ? none : "none on this platform");
		return open_impl(out, &output_mem_impl, NULL, false, 0);
	}
	log_error("no console output (%s); -o mem:WIDTHxHEIGHT draws into "
		  "memory",
		  none[0] ? none : "none on this platform");
	return absent(ret) ? -ENODEV : ret;
}

int output_open(struct output *out, const char *spec)
{
	return output_open_flags(out, spec, 0);
}

int output_open_flags(struct output *out, const char *spec, unsigned flags)
{
	const struct output_impl *impl;
	const char *colon;

	if (is_console_spec(spec))
		return open_console(out, spec && strcmp(spec, "auto") == 0,
				    flags);
	colon = strchr(spec, ':');
	impl = find_impl(spec, colon ? (size_t)(colon - spec) : strlen(spec));
	if (!impl) {
		char specs[128];

		log_error("unknown output '%s' (expected %s%smem:WxH[:FORMAT])",
			  spec, output_platform_specs(specs, sizeof(specs)),
			  platform_outputs[0] ? " or " : "");
		return -EINVAL;
	}
	return open_impl(out, impl, colon ? colon + 1 : NULL, false, flags);
}

void output_close(struct output *out)
{
	if (!out->impl)
		return;
	out->impl->close(out);
	out->impl = NULL;
}

/* Main thread: set before open, read by it. */
static const char *wanted_rotation;

void output_want_rotation(const char *spec)
{
	wanted_rotation = spec;
}

const char *output_wanted_rotation(void)
{
	return wanted_rotation;
}

bool output_direct(struct output *out)
{
	if (out->impl->direct)
		return out->impl->direct(out);
	return !out->impl->write_row;
}

bool output_live(const struct output *out)
{
	return !out->impl->begin;
}

void output_write_row(struct output *out, uint8_t *dst, const uint8_t *src,
		      size_t len)
{
	if (out->impl->write_row)
		out->impl->write_row(out, dst, src, len);
	else
		memcpy(dst, src, len);
}

enum output_buffer output_begin(struct output *out)
{
	if (out->impl->begin)
		return out->impl->begin(out);
	return OUTPUT_BUF_CURRENT;
}

void output_present(struct output *out, const struct rect *rects, int n)
{
	if (out->impl->present && n > 0)
		out->impl->present(out, rects, n);
}

uint64_t output_finish(struct output *out)
{
	if (out->impl->finish)
		return out->impl->finish(out);
	return 0;
}
