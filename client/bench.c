/* vncfb bench: drive the real pipeline (libvncclient -> shadow -> damage ->
 * pinned blitter -> output) against deterministic workloads and time every
 * update; measure the references (memcpy, bare decode, each core) in the
 * same run and print them as ratios. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "benchsrv.h"
#include "blit.h"
#include "clock.h"
#include "console.h"
#include "damage.h"
#include "log.h"
#include "output.h"
#include "passwd.h"
#include "platform.h"
#include "probe.h"
#include "recorder.h"
#include "replaysrv.h"
#include "shadow.h"
#include "signals.h"
#include "vnc.h"

#define DEFAULT_OUTPUT "mem:1920x1080:xrgb8888"
/* Raw on loopback costs the server least, so the numbers are about vncfb
 * rather than the codec; CopyRect makes scroll what it is on real
 * desktops. --encodings changes it. */
#define DEFAULT_ENCODINGS "copyrect raw"
#define DEFAULT_WORKLOADS "fullframe,scroll,typing,idle,fit"
#define DEFAULT_DURATION 3.0
/* Updates decoded but not yet drawn; the blitter coalesces, so this only
 * fills if it stalls for a long time. */
#define RING_SIZE 65536
#define CONNECT_TIMEOUT_MS 10000
#define DRAIN_TIMEOUT_MS 10000
#define MEMCPY_SLICE_SAMPLES 20
#define MEMCPY_MAX_NS 100000000ull
#define MAX_CONFIGS 65
/* Each configuration is measured in slices of this length, the
 * configurations of a workload taking turns, so that the machine's drift
 * (other tenants, frequency) hits all of them alike. */
#define SEGMENT_S 0.5
#define HIST_ROWS 24
/* The fit workload's desktop against the output, per dimension: 1080p
 * on a 720p screen, the case users ask for most. */
#define FIT_NUM 3
#define FIT_DEN 2
#define FIT_TARGET 2.0
/* The fit server holds three frames and the client two more: refuse
 * desktops whose frame is larger (an 8K output's is 285 MiB), and sides
 * beyond what vnc.c accepts. */
#define FIT_MAX_FRAME (320u << 20)
#define FIT_MAX_DIM 16384
/* Width of the "run" column, at least. */
#define LABEL_MIN 15
#define NS_PER_MS 1e6
/* --replay: the workload's number, and its plays' defaults. */
#define WL_REPLAY (-2)
#define REPLAY_PLAYS 3
#define REPLAY_PLAY_S 60.0

/* Growable list of nanosecond (or byte) samples. */
struct samples {
	uint64_t *v;
	size_t n, cap;
};

struct summary {
	size_t n;
	uint64_t min, median, p95, p99, max;
};

enum run_kind {
	RUN_PIPELINE, /* the real blitter */
	/* Reference: the same stream, but each pass is one memcpy of the
	 * bytes the blitter would write, from the same core, under the
	 * same load (decoder and server running). */
	RUN_MEMCPY,
	RUN_BARE, /* reference: decode only, no blitter */
};

struct run {
	int workload; /* enum bench_workload, -1: remote server */
	enum run_kind kind;
	/* fit workload: served by the 3/2 server and drawn scaled to fit;
	 * false: the output-size server, 1:1. */
	bool scaled;
	enum scale_mode scale; /* what the blitter is set to */
	unsigned zoom;
	uint32_t desk_w, desk_h; /* the remote desktop */
	int cpu;		 /* requested blit core, -1: unpinned */
	int actual_cpu;		 /* where the blit thread last ran */
	char encoding[200];	 /* what the server used */
	uint64_t enc_rects[BENCHSRV_ENCODINGS]; /* rects sent, per encoding */
	uint64_t server_bytes; /* sent by the server, whole connections */
	int segments;	       /* connections measured */
	/* Updates and window (ns) per slice, in round order: slices of one
	 * round ran back to back, so their ratio sees the same machine. A
	 * replay's slices end with the recording, so they differ in length. */
	struct samples slice_updates, slice_ns;
	double window_s;
	uint64_t updates;   /* measured updates, all drawn */
	uint64_t bytes_out; /* into the mapping by measured passes */
	uint64_t passes;
	/* Per update. */
	struct samples total, decode, queue, blit;
	/* Per pass holding measured updates. */
	struct samples pass_ns, pass_bytes;
	/* CPU time of the drawing thread per pass (between two on_pass
	 * calls: waking, the pass, the bookkeeping): what the pass cost
	 * without the time it was preempted. */
	struct samples pass_cpu;
	/* The same two for the passes that drew the whole desktop (its
	 * place on the screen): the blitter coalesces and splits, and a
	 * partial pass is no full-frame blit. */
	struct samples full_ns, full_cpu;
	uint64_t cpu_main_ns, cpu_blit_ns, cpu_proc_ns;
	/* memcpy of the median pass's bytes, same core, same buffers, with
	 * nothing else running (what contention costs: compare with the
	 * RUN_MEMCPY run's passes). */
	uint64_t ref_bytes;
	struct samples memcpy_ns;
	struct summary s_total, s_decode, s_queue, s_blit, s_pass, s_memcpy;
	struct summary s_pass_cpu, s_full, s_full_cpu;
	/* Pipeline runs: the RUN_MEMCPY run of the same workload and core. */
	const struct run *ref;
	/* Scaled fit runs: the 1:1 run on the same core. */
	const struct run *unscaled;
	/* Ratios (NAN when not applicable). */
	double r_memcpy, r_memcpy_cpu, r_bare, r_best;
	double r_fit_cpu, r_fit_wall; /* full-frame medians, scaled/1:1 */
};

struct upd {
	uint64_t rx_ns, dec_ns;
	bool measured;
};

/* State of one connection, shared by the main thread and (for pipeline
 * runs) the blit worker's on_pass hook. */
struct meter {
	struct run *run;
	struct pixfmt sfmt;
	struct output *out;
	struct shadow shadow;
	struct damage damage;
	struct blitter blit;
	struct vnc_client *vnc;
	uint8_t *bare_fb; /* bare runs: libvncclient's buffer */
	pthread_t copier; /* RUN_MEMCPY worker */
	bool copier_running;
	atomic_int copier_err;
	uint64_t duration_ns;
	/* Main thread only. */
	uint64_t t_start, t_end; /* measurement window, 0: not yet */
	uint64_t cpu0_main, cpu0_proc, cpu0_blit;
	bool first_decoded;    /* the connection's first update is in */
	uint64_t conn_updates; /* decoded on this connection */
	bool skip_next;	       /* next update arrived before the window */
	/* Under lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t measured_done;
	/* The update ring: written by the decoder (head), read by the
	 * drawing thread (tail). */
	struct upd *ring;
	atomic_uint_fast64_t head, tail;
	uint64_t measured_pushed; /* main thread */
	uint64_t passes_seen;
	uint64_t worker_cpu; /* drawing thread's CPU at the last pass */
	/* Bytes of a pass that draws the whole desktop (set on resize). */
	atomic_uint_fast64_t full_bytes;
	/* Set by either thread, read by the main loop. */
	atomic_bool overflow, oom;
};

struct bench {
	struct options *opt;
	struct output out;
	struct pixfmt sfmt;
	struct benchsrv *srv;
	/* The fit workload's server, FIT_NUM/FIT_DEN the output's size;
	 * started only when that workload runs. */
	struct benchsrv *srv_fit;
	uint32_t fit_w, fit_h;
	struct replaysrv *replay; /* --replay: the server instead */
	char replay_out[64];
	const char *host;
	int port;
	const char *enc_list;  /* for vnc_connect, NULL: viewer default */
	const char *encodings; /* for the report */
	const char *out_spec;
	double duration;
	int workloads[BENCH_WORKLOADS];
	int n_workloads;
	int cpus[MAX_CONFIGS]; /* -1: unpinned */
	int n_cpus;
	FILE *rep;	      /* the human report: stdout, or stderr when
			       * JSON or CSV goes to stdout */
	FILE *json_f, *csv_f; /* opened before measuring */
	struct run *runs;
	int n_runs;
	int rounds;
	int cpus_online;
	int sigfd;
};

/* --- samples and statistics --- */

static int samples_add(struct samples *s, uint64_t v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

static void samples_free(struct samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t bench_quantile(const uint64_t *sorted, size_t n, double q)
{
	size_t k;

	if (n == 0)
		return 0;
	k = (size_t)ceil(q * (double)n);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return sorted[k - 1];
}

/* Summarise a copy, keeping the samples in arrival order. */
static void summarize(const struct samples *s, struct summary *out)
{
	uint64_t *v;

	memset(out, 0, sizeof(*out));
	if (s->n == 0)
		return;
	v = malloc(s->n * sizeof(*v));
	if (!v)
		return;
	memcpy(v, s->v, s->n * sizeof(*v));
	qsort(v, s->n, sizeof(*v), cmp_u64);
	out->n = s->n;
	out->min = v[0];
	out->median = bench_quantile(v, s->n, 0.5);
	out->p95 = bench_quantile(v, s->n, 0.95);
	out->p99 = bench_quantile(v, s->n, 0.99);
	out->max = v[s->n - 1];
	free(v);
}

static uint64_t thread_cpu_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t blit_cpu_ns(struct meter *m)
{
	clockid_t id;

	if (m->run->kind == RUN_PIPELINE) {
		if (blit_cpu_clock(&m->blit, &id) < 0)
			return 0;
	} else if (m->run->kind == RUN_MEMCPY && m->copier_running) {
		if (pthread_getcpuclockid(m->copier, &id) != 0)
			return 0;
	} else {
		return 0;
	}
	return thread_cpu_ns(id);
}

/* --- the update ring between decoder and blitter --- */

/* Worker thread, after each pass: the pass drew the oldest st->kicks
 * updates still waiting (kicks fold in order). */
static void on_pass(void *ctx, const struct blit_stats *st)
{
	struct meter *m = ctx;
	struct run *r = m->run;
	uint64_t cpu = thread_cpu_ns(CLOCK_THREAD_CPUTIME_ID), cpu_used;
	uint64_t head = atomic_load_explicit(&m->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&m->tail, memory_order_relaxed);
	uint64_t done = 0;
	uint32_t k;

	cpu_used = cpu - m->worker_cpu;
	m->worker_cpu = cpu;
	/* The ring is single-producer (decoder), single-consumer (here):
	 * no lock on the decoder's path, so measuring costs it nothing
	 * beyond two stores. */
	for (k = 0; k < st->kicks && tail < head; k++) {
		const struct upd *u = &m->ring[tail++ % RING_SIZE];
		uint64_t dec = u->dec_ns, start = st->start_ns;

		if (!u->measured)
			continue;
		if (start < dec) /* clock granularity only */
			start = dec;
		done++;
		if (samples_add(&r->total, st->end_ns - u->rx_ns) < 0 ||
		    samples_add(&r->decode, dec - u->rx_ns) < 0 ||
		    samples_add(&r->queue, start - dec) < 0 ||
		    samples_add(&r->blit, st->end_ns - st->start_ns) < 0)
			m->oom = true;
	}
	atomic_store_explicit(&m->tail, tail, memory_order_release);
	/* A pass can find its damage already drawn: the previous pass took
	 * the rectangles of an update that was still being finished. Its
	 * updates count, but it is no blit. */
	if (done && st->bytes) {
		r->passes++;
		r->bytes_out += st->bytes;
		if (samples_add(&r->pass_ns, st->end_ns - st->start_ns) < 0 ||
		    samples_add(&r->pass_cpu, cpu_used) < 0 ||
		    samples_add(&r->pass_bytes, st->bytes) < 0)
			m->oom = true;
		if (st->bytes == atomic_load(&m->full_bytes) &&
		    (samples_add(&r->full_ns, st->end_ns - st->start_ns) < 0 ||
		     samples_add(&r->full_cpu, cpu_used) < 0))
			m->oom = true;
	}
	/* Only the main thread's waits (set-up, drain) need the lock. */
	pthread_mutex_lock(&m->lock);
	m->measured_done += done;
	m->passes_seen++;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

/* Wait (on the condition variable, no polling) until pred holds or the
 * timeout passes. */
static bool meter_wait(struct meter *m, bool (*pred)(struct meter *),
		       int timeout_ms)
{
	struct timespec dl = deadline_in_ms(CLOCK_REALTIME, timeout_ms);
	bool ok;

	pthread_mutex_lock(&m->lock);
	while (!(ok = pred(m)))
		if (pthread_cond_timedwait(&m->cond, &m->lock, &dl) ==
		    ETIMEDOUT) {
			ok = pred(m);
			break;
		}
	pthread_mutex_unlock(&m->lock);
	return ok;
}

static bool first_pass_done(struct meter *m)
{
	return m->passes_seen > 0;
}

static bool all_drawn(struct meter *m)
{
	return m->measured_done == m->measured_pushed;
}

/* --- VNC events (main thread) --- */

static uint8_t *ev_resize(void *ctx, uint32_t w, uint32_t h)
{
	struct meter *m = ctx;
	uint8_t *pix;
	size_t size;

	m->run->desk_w = w;
	m->run->desk_h = h;
	if (m->run->kind != RUN_BARE) {
		struct view v;
		struct rect desk;

		pix = shadow_resize(&m->shadow, w, h);
		if (!pix)
			return NULL;
		blit_reset_view(&m->blit);
		/* A pass over all of the desktop's place on the screen is
		 * a full frame; borders are drawn only on resets. */
		blit_get_view(&m->blit, &v);
		atomic_store(&m->full_bytes,
			     view_desktop(&v, &desk)
				 ? (uint64_t)rect_area(&desk) *
				       pixfmt_bytes(&m->out->fmt)
				 : 0);
		return pix;
	}
	/* Bare loop: a plain buffer, as a viewer without a blitter has. */
	size = (size_t)w * h * pixfmt_bytes(&m->sfmt);
	pix = calloc(1, size + 64);
	if (!pix) {
		log_error("cannot allocate %zu bytes for a %ux%u desktop", size,
			  w, h);
		return NULL;
	}
	free(m->bare_fb);
	m->bare_fb = pix;
	return pix;
}

static void ev_damage(void *ctx, const struct rect *r)
{
	struct meter *m = ctx;

	if (m->run->kind != RUN_BARE)
		damage_add(&m->damage, r);
}

static void start_window(struct meter *m)
{
	m->t_start = monotonic_ns();
	m->t_end = m->t_start + m->duration_ns;
	m->cpu0_main = thread_cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	m->cpu0_proc = thread_cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	m->cpu0_blit = blit_cpu_ns(m);
}

static void ev_update_done(void *ctx)
{
	struct meter *m = ctx;
	struct upd u;

	u.rx_ns = vnc_update_rx_ns(m->vnc);
	u.dec_ns = monotonic_ns();
	/* The connection's first update (the whole desktop, asked for
	 * non-incrementally) is set-up, not part of the stream: the window
	 * opens once it is decoded (and drawn), see pump(). */
	u.measured = m->t_start && !m->skip_next && u.rx_ns >= m->t_start &&
		     u.rx_ns < m->t_end;
	if (m->t_start)
		m->skip_next = false;
	m->conn_updates++;
	if (m->run->kind == RUN_BARE) {
		if (u.measured) {
			if (samples_add(&m->run->decode, u.dec_ns - u.rx_ns) <
				0 ||
			    samples_add(&m->run->total, u.dec_ns - u.rx_ns) < 0)
				m->oom = true;
			m->run->updates++;
		}
	} else {
		uint64_t head =
		    atomic_load_explicit(&m->head, memory_order_relaxed);

		if (head -
			atomic_load_explicit(&m->tail, memory_order_acquire) >=
		    RING_SIZE) {
			m->overflow = true;
		} else {
			m->ring[head % RING_SIZE] = u;
			atomic_store_explicit(&m->head, head + 1,
					      memory_order_release);
			if (u.measured) {
				m->measured_pushed++;
				m->run->updates++;
			}
		}
		damage_kick(&m->damage);
	}
	m->first_decoded = true;
}

static bool all_popped(struct meter *m)
{
	return atomic_load(&m->tail) == atomic_load(&m->head);
}

/* Open the measurement window once the first update is decoded and, with
 * a blitter, drawn: from then on the stream is steady. */
static int open_window(struct meter *m)
{
	struct pollfd pfd = {.fd = vnc_fd(m->vnc), .events = POLLIN};

	if (m->run->kind != RUN_BARE &&
	    !meter_wait(m, all_popped, CONNECT_TIMEOUT_MS)) {
		log_error("bench: the first update was not drawn within %d s",
			  CONNECT_TIMEOUT_MS / 1000);
		return -1;
	}
	start_window(m);
	/* Bytes that came while we waited would get a late arrival time. */
	if (poll(&pfd, 1, 0) > 0)
		m->skip_next = true;
	return 0;
}

/* --- one measured connection --- */

static int pump(struct bench *b, struct meter *m)
{
	enum vnc_error verr;

	for (;;) {
		struct pollfd pfd[2];
		uint64_t now = monotonic_ns(), until;
		int ret, timeout;

		/* A replay's play ends with its last update. */
		if (b->replay && m->t_start &&
		    m->conn_updates >= replaysrv_updates(b->replay)) {
			m->t_end = now;
			return 0;
		}
		if (m->t_start) {
			if (now >= m->t_end)
				return 0;
			until = m->t_end;
		} else {
			until = m->t_end; /* connect deadline, set by caller */
			if (now >= until) {
				log_error(
				    "bench: no first update from the server "
				    "within %d s",
				    CONNECT_TIMEOUT_MS / 1000);
				return -1;
			}
		}
		timeout = (int)((until - now + 999999) / 1000000u);
		pfd[0] = (struct pollfd){.fd = b->sigfd, .events = POLLIN};
		pfd[1] =
		    (struct pollfd){.fd = vnc_fd(m->vnc), .events = POLLIN};
		ret = poll(pfd, 2, timeout);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			log_error("poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[0].revents & POLLIN) {
			unsigned char sig[16];
			ssize_t k = read(b->sigfd, sig, sizeof(sig));

			for (ssize_t i = 0; i < k; i++)
				if (sig[i] != SIGUSR1) {
					log_info(
					    "bench interrupted (signal %d)",
					    sig[i]);
					return -EINTR;
				}
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (vnc_dispatch(m->vnc, &verr) < 0)
				return -1;
		}
		if (m->first_decoded && !m->t_start && open_window(m) < 0)
			return -1;
		if (m->overflow || m->oom) {
			log_error("bench: %s", m->oom ? "out of memory"
						      : "update ring overflow");
			return -1;
		}
	}
}

struct ref_job {
	int cpu;
	uint8_t *dst;
	const uint8_t *src;
	size_t bytes;
	size_t reps;
	struct samples *out;
	int err;
};

/* The reference copy: one memcpy of the same bytes from the shadow into
 * the mapping, on the core the blitter used. */
static void *ref_thread(void *arg)
{
	struct ref_job *j = arg;
	uint64_t begin = monotonic_ns();
	size_t i;

	if (j->cpu >= 0) {
		j->err = platform_pin_thread(pthread_self(), j->cpu);
		if (j->err < 0)
			return NULL;
	}
	for (i = 0; i < j->reps; i++) {
		uint64_t t0 = monotonic_ns(), t1;

		memcpy(j->dst, j->src, j->bytes);
		t1 = monotonic_ns();
		if (samples_add(j->out, t1 - t0) < 0) {
			j->err = -ENOMEM;
			return NULL;
		}
		if (t1 - begin > MEMCPY_MAX_NS && i >= 4)
			break;
	}
	return NULL;
}

static int measure_memcpy(struct meter *m)
{
	struct run *r = m->run;
	struct ref_job job;
	pthread_t t;
	size_t i, best = 0, limit;
	uint64_t *sorted, med;
	int err;

	if (r->pass_ns.n == 0)
		return 0;
	if (r->ref_bytes)
		goto measure;
	/* The bytes of the median-time pass (of the first slice; later
	 * slices copy the same amount). */
	sorted = malloc(r->pass_ns.n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, r->pass_ns.v, r->pass_ns.n * sizeof(*sorted));
	qsort(sorted, r->pass_ns.n, sizeof(*sorted), cmp_u64);
	med = bench_quantile(sorted, r->pass_ns.n, 0.5);
	free(sorted);
	for (i = 0; i < r->pass_ns.n; i++)
		if (r->pass_ns.v[i] == med) {
			best = i;
			break;
		}
	r->ref_bytes = r->pass_bytes.v[best];
	limit = (size_t)m->shadow.stride * m->shadow.height;
	if (limit > m->out->stride * m->out->height)
		limit = m->out->stride * m->out->height;
	if (r->ref_bytes > limit)
		r->ref_bytes = limit;
	if (r->ref_bytes == 0)
		return 0;
measure:
	job = (struct ref_job){
	    .cpu = r->cpu,
	    .dst = m->out->map,
	    .src = m->shadow.pix,
	    .bytes = r->ref_bytes,
	    .reps = MEMCPY_SLICE_SAMPLES,
	    .out = &r->memcpy_ns,
	};
	err = pthread_create(&t, NULL, ref_thread, &job);
	if (err) {
		log_error("pthread_create (memcpy reference): %s",
			  strerror(err));
		return -err;
	}
	pthread_join(t, NULL);
	if (job.err < 0) {
		log_error("memcpy reference on core %d: %s", r->cpu,
			  strerror(-job.err));
		return job.err;
	}
	return 0;
}

static void fill_vcfg(struct bench *b, int port, struct vnc_config *v)
{
	memset(v, 0, sizeof(*v));
	v->host = b->host;
	v->port = port;
	v->encodings = b->enc_list;
	v->quality = b->opt->quality;
	v->compress = b->opt->compress;
	v->view_only = true;
	v->local_cursor = false;
	v->fmt = b->sfmt;
	v->get_password = passwd_get;
	v->password_ctx = b->opt->passwd_file;
}

/* The RUN_MEMCPY worker: takes damage like the blitter, counts the bytes
 * the blitter would write for it (each rectangle mapped to the screen as
 * the blitter maps it) and copies that many bytes with a single memcpy. */
static void *copier_thread(void *arg)
{
	struct meter *m = arg;
	struct output *o = m->out;
	struct damage_set set;
	unsigned bpp = pixfmt_bytes(&o->fmt);
	bool first = true;
	int err, i;

	if (m->run->cpu >= 0) {
		err = platform_pin_thread(pthread_self(), m->run->cpu);
		if (err < 0) {
			atomic_store(&m->copier_err, err);
			return NULL;
		}
	}
	while (damage_take(&m->damage, &set, -1) >= 0) {
		struct blit_stats st;
		uint64_t bytes = 0, limit;

		memset(&st, 0, sizeof(st));
		pthread_mutex_lock(&m->shadow.lock);
		st.start_ns = monotonic_ns();
		limit = (uint64_t)m->shadow.stride * m->shadow.height;
		if (limit > (uint64_t)o->stride * o->height)
			limit = (uint64_t)o->stride * o->height;
		if (first) {
			/* The blitter's first pass draws the whole screen. */
			bytes = (uint64_t)o->width * o->height * bpp;
			first = false;
		}
		for (i = 0; i < set.n; i++) {
			struct rect scr;

			/* Where the blitter would draw it (scaled or not). */
			if (blit_remote_to_screen(&m->blit, &set.rects[i],
						  &scr))
				bytes += rect_area(&scr) * bpp;
		}
		if (bytes > limit)
			bytes = limit;
		memcpy(o->map, m->shadow.pix, bytes);
		st.end_ns = monotonic_ns();
		pthread_mutex_unlock(&m->shadow.lock);
		st.bytes = bytes;
		st.kick_ns = set.kick_ns;
		st.kicks = set.kicks;
		st.rects = set.n;
		on_pass(m, &st);
	}
	return NULL;
}

static const char *kind_name(const struct run *r);

/* Measure one connection of seg_s seconds and add it to r. */
static int run_one(struct bench *b, struct run *r, double seg_s)
{
	struct benchsrv *srv = r->scaled ? b->srv_fit : b->srv;
	struct meter m;
	struct vnc_config vcfg;
	struct vnc_events vev;
	enum vnc_error verr;
	int ret = -1, err;
	bool pipeline = r->kind != RUN_BARE;
	enum log_level lvl;
	uint64_t updates0 = r->updates;

	memset(&m, 0, sizeof(m));
	m.run = r;
	m.sfmt = b->sfmt;
	m.out = &b->out;
	m.duration_ns = (uint64_t)(seg_s * 1e9);
	pthread_mutex_init(&m.lock, NULL);
	pthread_cond_init(&m.cond, NULL);
	if (srv && benchsrv_prepare(srv, r->workload, 5000) < 0)
		goto out_sync;
	if (pipeline) {
		m.ring = calloc(RING_SIZE, sizeof(*m.ring));
		if (!m.ring) {
			log_error("bench: out of memory");
			goto out_sync;
		}
		if (shadow_init(&m.shadow, &b->sfmt) < 0)
			goto out_ring;
		if (damage_init(&m.damage) < 0)
			goto out_shadow;
		if (blit_init(&m.blit, &b->out, &m.shadow, &m.damage, r->cpu) <
		    0)
			goto out_damage;
		blit_set_on_pass(&m.blit, on_pass, &m);
		/* The viewer's --scale (a no-op when the desktop is the
		 * output's size), or what the fit workload compares. */
		blit_set_scale(&m.blit, r->scale, r->zoom);
	}
	if (r->kind == RUN_MEMCPY) {
		err = pthread_create(&m.copier, NULL, copier_thread, &m);
		if (err) {
			log_error("pthread_create (memcpy reference): %s",
				  strerror(err));
			goto out_blit;
		}
		m.copier_running = true;
	}
	if (r->kind == RUN_PIPELINE) {
		err = blit_start(&m.blit);
		if (err < 0) {
			if (blit_pin_error(&m.blit))
				log_error("cannot pin the blit thread to core "
					  "%d: %s%s%s",
					  r->cpu, strerror(-err),
					  platform_pin_hint() ? "; " : "",
					  platform_pin_hint()
					      ? platform_pin_hint()
					      : "");
			goto out_blit;
		}
		/* Pinning kicks the worker once; let that pass go by so
		 * every later kick is an update's. */
		if (r->cpu >= 0 &&
		    !meter_wait(&m, first_pass_done, CONNECT_TIMEOUT_MS)) {
			log_error("bench: the blit thread did not start");
			goto out_blit;
		}
	}
	fill_vcfg(b, srv ? benchsrv_port(srv) : b->port, &vcfg);
	vev = (struct vnc_events){.ctx = &m,
				  .resize = ev_resize,
				  .damage = ev_damage,
				  .update_done = ev_update_done};
	m.t_end = monotonic_ns() + (uint64_t)CONNECT_TIMEOUT_MS * 1000000u;
	/* One "connected" line per slice is noise; -v shows them. */
	lvl = log_get_level();
	if (lvl == LOG_INFO)
		log_set_level(LOG_WARN);
	m.vnc = vnc_connect(&vcfg, &vev, &verr);
	log_set_level(lvl);
	if (!m.vnc)
		goto out_blit;
	err = pump(b, &m);
	if (err < 0) {
		ret = err == -EINTR ? -EINTR : -1;
		goto out_vnc;
	}
	r->window_s += (double)(m.t_end - m.t_start) / 1e9;
	r->cpu_main_ns += thread_cpu_ns(CLOCK_THREAD_CPUTIME_ID) - m.cpu0_main;
	if (pipeline) {
		/* Updates that arrived inside the window are decoded; wait
		 * until the blitter has drawn them too. */
		if (!meter_wait(&m, all_drawn, DRAIN_TIMEOUT_MS)) {
			log_error("bench: the blitter did not draw the last "
				  "updates within %d s (%llu of %llu drawn, "
				  "%llu of %llu taken)",
				  DRAIN_TIMEOUT_MS / 1000,
				  (unsigned long long)m.measured_done,
				  (unsigned long long)m.measured_pushed,
				  (unsigned long long)atomic_load(&m.tail),
				  (unsigned long long)atomic_load(&m.head));
			goto out_vnc;
		}
		r->cpu_blit_ns += blit_cpu_ns(&m) - m.cpu0_blit;
		if (r->kind == RUN_PIPELINE)
			r->actual_cpu = blit_actual_cpu(&m.blit);
		else
			r->actual_cpu = r->cpu;
	}
	if (b->replay &&
	    replaysrv_play_done(b->replay, kind_name(r), m.conn_updates,
				pipeline ? m.shadow.pix : m.bare_fb,
				pipeline ? m.shadow.stride
					 : r->desk_w * pixfmt_bytes(&b->sfmt),
				r->desk_w, r->desk_h) < 0)
		goto out_vnc;
	r->cpu_proc_ns += thread_cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - m.cpu0_proc;
	r->segments++;
	if (samples_add(&r->slice_updates, r->updates - updates0) < 0 ||
	    samples_add(&r->slice_ns, m.t_end - m.t_start) < 0) {
		log_error("bench: out of memory");
		goto out_vnc;
	}
	if (m.oom) {
		log_error("bench: out of memory");
		goto out_vnc;
	}
	if (atomic_load(&m.copier_err) < 0) {
		log_error("cannot pin the memcpy reference to core %d: %s",
			  r->cpu, strerror(-atomic_load(&m.copier_err)));
		goto out_vnc;
	}
	ret = 0;
out_vnc:
	vnc_destroy(m.vnc);
	if (srv && ret == 0)
		benchsrv_take_stats(srv, r->enc_rects, &r->server_bytes);
out_blit:
	if (m.copier_running) {
		damage_stop(&m.damage);
		pthread_join(m.copier, NULL);
	}
	if (pipeline) {
		blit_stop(&m.blit);
		if (ret == 0 && r->kind == RUN_PIPELINE &&
		    measure_memcpy(&m) < 0)
			ret = -1;
		/* The reference wrote over the picture: put it back. */
		if (m.shadow.pix) {
			struct damage_set none;
			struct blit_stats st;

			memset(&none, 0, sizeof(none));
			blit_reset_view(&m.blit);
			blit_pass(&m.blit, &none, &st);
		}
		blit_finish(&m.blit);
	}
out_damage:
	if (pipeline)
		damage_finish(&m.damage);
out_shadow:
	if (pipeline)
		shadow_finish(&m.shadow);
out_ring:
	free(m.ring);
out_sync:
	free(m.bare_fb);
	pthread_cond_destroy(&m.cond);
	pthread_mutex_destroy(&m.lock);
	return ret;
}

/* --- choosing cores --- */

/* --cpu auto: what the viewer would pick, from the same probe. */
static int pick_core(struct bench *b)
{
	struct probe_result res;
	int cpu;

	if (probe_run(&b->out, b->opt->samples, &res) < 0) {
		log_warn("the core probe failed: the blit thread runs "
			 "unpinned");
		return -1;
	}
	cpu = res.chosen;
	if (cpu >= 0)
		log_info("bench: blit thread on core %d (%s)", cpu, res.reason);
	else
		log_info("bench: blit thread unpinned (%s)", res.reason);
	probe_free(&res);
	return cpu;
}

/* --- reporting --- */

static double ms(uint64_t ns)
{
	return (double)ns / NS_PER_MS;
}

static const char *wl_name(const struct run *r)
{
	if (r->workload == WL_REPLAY)
		return "replay";
	return r->workload < 0 ? "remote" : benchsrv_workload_name(r->workload);
}

static const char *kind_name(const struct run *r)
{
	return r->kind == RUN_BARE     ? "bare"
	       : r->kind == RUN_MEMCPY ? "memcpy"
				       : "pipeline";
}

#define LABEL_LEN 64

static void cpu_label(const struct run *r, char *buf, size_t len)
{
	if (r->cpu < 0)
		snprintf(buf, len, "unpinned");
	else
		snprintf(buf, len, "core %d", r->cpu);
}

/* What the "run" column says: the kind and core, and for the fit
 * workload which desktop went onto which screen. */
static void run_label(const struct bench *b, const struct run *r, char *buf,
		      size_t len)
{
	const char *pre = r->kind == RUN_MEMCPY ? "memcpy " : "";
	char where[24], view[48] = "";

	if (r->workload == BENCH_FIT) {
		if (r->kind == RUN_BARE) {
			snprintf(buf, len, "bare decode %ux%u", r->desk_w,
				 r->desk_h);
			return;
		}
		if (r->scaled)
			snprintf(view, sizeof(view), "%ux%u->%ux%u ", r->desk_w,
				 r->desk_h, b->out.width, b->out.height);
		else
			snprintf(view, sizeof(view), "1:1 %ux%u ", b->out.width,
				 b->out.height);
	}
	if (r->kind == RUN_BARE) {
		snprintf(buf, len, "bare decode");
		return;
	}
	cpu_label(r, where, sizeof(where));
	snprintf(buf, len, "%s%s%s", pre, view, where);
}

/* The throughput table also says where a pinned blitter really ran. */
static void run_label_ran(const struct bench *b, const struct run *r, char *buf,
			  size_t len)
{
	size_t k;

	run_label(b, r, buf, len);
	k = strlen(buf);
	if (r->kind == RUN_PIPELINE && r->cpu >= 0 && r->actual_cpu >= 0 &&
	    r->actual_cpu != r->cpu && k < len)
		snprintf(buf + k, len - k, " (ran %d)", r->actual_cpu);
}

static int label_width(const struct bench *b)
{
	char lab[LABEL_LEN];
	int i, w = LABEL_MIN;

	for (i = 0; i < b->n_runs; i++) {
		run_label_ran(b, &b->runs[i], lab, sizeof(lab));
		if ((int)strlen(lab) > w)
			w = (int)strlen(lab);
	}
	return w;
}

static double ups(const struct run *r)
{
	return r->window_s > 0 ? (double)r->updates / r->window_s : 0;
}

static double mbps(const struct run *r)
{
	return r->window_s > 0 ? (double)r->bytes_out / r->window_s / 1e6 : 0;
}

static double cpu_pct(const struct run *r)
{
	return r->window_s > 0 ? (double)(r->cpu_main_ns + r->cpu_blit_ns) /
				     (r->window_s * 1e9) * 100
			       : 0;
}

static double cpu_us_per_update(const struct run *r, uint64_t ns)
{
	return r->updates ? (double)ns / 1e3 / (double)r->updates : NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* updates/s of r against o: the median over rounds of the ratio of their
 * slices' rates (measured back to back), so that a burst of load from
 * elsewhere weighs on one round, not on the result. NAN when no round has
 * updates on both sides. */
static double paired_ratio(const struct run *r, const struct run *o)
{
	size_t k, n = 0, max = r->slice_updates.n;
	double *v, ret = NAN;

	v = malloc((max ? max : 1) * sizeof(*v));
	if (!v)
		return NAN;
	for (k = 0; k < max && k < o->slice_updates.n; k++)
		if (o->slice_updates.v[k] > 0 && r->slice_ns.v[k] > 0)
			v[n++] = (double)r->slice_updates.v[k] /
				 (double)r->slice_ns.v[k] /
				 ((double)o->slice_updates.v[k] /
				  (double)o->slice_ns.v[k]);
	if (n > 0) {
		qsort(v, n, sizeof(v[0]), cmp_double);
		ret = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	free(v);
	return ret;
}

/* A scaled fit run against the 1:1 run on its core: full-frame passes. */
static void fit_ratios(struct run *r, const struct run *o)
{
	r->unscaled = o;
	if (r->s_full_cpu.n && o->s_full_cpu.n && o->s_full_cpu.median)
		r->r_fit_cpu =
		    (double)r->s_full_cpu.median / (double)o->s_full_cpu.median;
	if (r->s_full.n && o->s_full.n && o->s_full.median)
		r->r_fit_wall =
		    (double)r->s_full.median / (double)o->s_full.median;
}

static void compute_ratios(struct bench *b)
{
	int i, j;

	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];

		summarize(&r->total, &r->s_total);
		summarize(&r->decode, &r->s_decode);
		summarize(&r->queue, &r->s_queue);
		summarize(&r->blit, &r->s_blit);
		summarize(&r->pass_ns, &r->s_pass);
		summarize(&r->pass_cpu, &r->s_pass_cpu);
		summarize(&r->full_ns, &r->s_full);
		summarize(&r->full_cpu, &r->s_full_cpu);
		summarize(&r->memcpy_ns, &r->s_memcpy);
	}
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		uint64_t best = 0;

		if (r->kind == RUN_BARE)
			continue;
		for (j = 0; j < b->n_runs; j++) {
			struct run *o = &b->runs[j];

			if (o->workload != r->workload)
				continue;
			if (r->kind == RUN_PIPELINE && r->scaled &&
			    o->kind == RUN_PIPELINE && !o->scaled &&
			    o->cpu == r->cpu)
				fit_ratios(r, o);
			/* The fit workload's two streams have a reference
			 * each; scaled and 1:1 are no rivals for /best. */
			if (o->scaled != r->scaled)
				continue;
			if (o->kind == RUN_BARE)
				r->r_bare = paired_ratio(r, o);
			if (r->kind == RUN_PIPELINE && o->kind == RUN_MEMCPY &&
			    o->cpu == r->cpu) {
				r->ref = o;
				if (r->s_pass.n && o->s_pass.n &&
				    o->s_pass.median)
					r->r_memcpy = (double)r->s_pass.median /
						      (double)o->s_pass.median;
				if (r->s_pass_cpu.n && o->s_pass_cpu.n &&
				    o->s_pass_cpu.median)
					r->r_memcpy_cpu =
					    (double)r->s_pass_cpu.median /
					    (double)o->s_pass_cpu.median;
			}
			if (o->kind == RUN_PIPELINE && o->cpu >= 0 &&
			    o->s_pass.n && (!best || o->s_pass.median < best))
				best = o->s_pass.median;
		}
		if (r->kind == RUN_PIPELINE && best && r->s_pass.n &&
		    b->n_cpus > 1)
			r->r_best = (double)r->s_pass.median / (double)best;
	}
}

static void fmt_ms(char *buf, size_t len, const struct summary *s, uint64_t v)
{
	if (!s->n)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", ms(v));
}

/* Three significant digits: passes range from microseconds to tens of
 * milliseconds. */
static void fmt_ms3(char *buf, size_t len, const struct summary *s, uint64_t v)
{
	if (!s->n)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3g", ms(v));
}

static void fmt_ratio(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", v);
}

/* The fit workload: what a full-frame pass costs scaled and 1:1. */
static void print_fit_table(struct bench *b, int lw)
{
	FILE *rep = b->rep;
	int i;

	for (i = 0; i < b->n_runs; i++)
		if (b->runs[i].workload == BENCH_FIT &&
		    b->runs[i].kind == RUN_PIPELINE)
			break;
	if (i == b->n_runs)
		return;
	fprintf(rep,
		"\nFull-frame blits, %d:%d desktop scaled to fit against "
		"1:1, ms per pass\n",
		FIT_NUM, FIT_DEN);
	fprintf(rep, "%-9s %-*s %7s %8s %8s %8s %8s %8s %8s\n", "workload", lw,
		"run", "full", "cpu", "cpu p99", "wall", "wall p99", "/1:1 cpu",
		"/1:1 wall");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], c[6][24];

		if (r->workload != BENCH_FIT || r->kind != RUN_PIPELINE)
			continue;
		run_label(b, r, lab, sizeof(lab));
		fmt_ms3(c[0], 24, &r->s_full_cpu, r->s_full_cpu.median);
		fmt_ms3(c[1], 24, &r->s_full_cpu, r->s_full_cpu.p99);
		fmt_ms3(c[2], 24, &r->s_full, r->s_full.median);
		fmt_ms3(c[3], 24, &r->s_full, r->s_full.p99);
		fmt_ratio(c[4], 24, r->r_fit_cpu);
		fmt_ratio(c[5], 24, r->r_fit_wall);
		fprintf(rep, "%-9s %-*s %7zu %8s %8s %8s %8s %8s %8s\n",
			wl_name(r), lw, lab, r->s_full.n, c[0], c[1], c[2],
			c[3], r->scaled ? c[4] : "-", r->scaled ? c[5] : "-");
	}
	fprintf(rep,
		"(full: passes that drew the desktop's whole place on the "
		"screen (coalesced or split passes\n"
		" are left out); cpu: the drawing thread's CPU time per such "
		"pass, wall: start to end;\n"
		" /1:1 cpu, /1:1 wall: the scaled run's medians over the 1:1 "
		"run's on the same core, the\n"
		" same frames from a desktop of the output's size, measured in "
		"the same rounds)\n");
}

static void print_tables(struct bench *b)
{
	FILE *rep = b->rep;
	int lw = label_width(b);
	char fb[64];
	int i;

	fprintf(rep, "\nvncfb bench: output %s %ux%u %s (stride %zu), ",
		b->out.impl->name, b->out.width, b->out.height,
		pixfmt_name(&b->out.fmt, fb, sizeof(fb)), b->out.stride);
	if (b->srv)
		fprintf(rep, "embedded server %ux%u, ", b->out.width,
			b->out.height);
	if (b->srv_fit)
		fprintf(rep, "and %ux%u for fit, ", b->fit_w, b->fit_h);
	else if (b->replay)
		fprintf(rep, "replay %s, ", b->opt->replay_file);
	else
		fprintf(rep, "server %s:%d, ", b->host, b->port);
	if (b->replay)
		fprintf(
		    rep,
		    "encodings \"%s\",\n%d interleaved plays per "
		    "configuration (at most %.1f s each), %d cores online\n",
		    b->encodings, b->rounds, b->duration / b->rounds,
		    b->cpus_online);
	else
		fprintf(rep,
			"encodings \"%s\",\n%.1f s per configuration (in %d "
			"interleaved slices), %d cores online\n",
			b->encodings, b->duration, b->rounds, b->cpus_online);
	if (b->replay)
		replaysrv_describe(b->replay, b->opt->replay_file, rep);
	if (b->out.slow_cpu >= 0)
		fprintf(rep,
			"mem output slow-cpu=%d: writes from that core are "
			"flushed line by line, like uncached memory\n",
			b->out.slow_cpu);

	fprintf(rep, "\nLatency per update, ms: first byte received -> last "
		     "rectangle in the output\n");
	fprintf(rep, "%-9s %-*s %7s %8s %8s %8s %8s %8s | %7s %7s %7s\n",
		"workload", lw, "run", "updates", "min", "median", "p95", "p99",
		"max", "rx+dec", "queue", "blit");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], c[8][24];
		bool bare = r->kind == RUN_BARE;

		run_label(b, r, lab, sizeof(lab));
		fmt_ms(c[0], 24, &r->s_total, r->s_total.min);
		fmt_ms(c[1], 24, &r->s_total, r->s_total.median);
		fmt_ms(c[2], 24, &r->s_total, r->s_total.p95);
		fmt_ms(c[3], 24, &r->s_total, r->s_total.p99);
		fmt_ms(c[4], 24, &r->s_total, r->s_total.max);
		fmt_ms(c[5], 24, &r->s_decode, r->s_decode.median);
		fmt_ms(c[6], 24, &r->s_queue, r->s_queue.median);
		fmt_ms(c[7], 24, &r->s_blit, r->s_blit.median);
		fprintf(rep,
			"%-9s %-*s %7llu %8s %8s %8s %8s %8s | %7s %7s %7s\n",
			wl_name(r), lw, lab, (unsigned long long)r->updates,
			c[0], c[1], c[2], c[3], c[4], c[5], bare ? "-" : c[6],
			bare ? "-" : c[7]);
	}
	fprintf(rep, "(rx+dec, queue, blit: medians of the three parts. bare "
		     "decode: no blitter, latency ends when decoded.\n"
		     " memcpy: the blitter replaced by one memcpy of the same "
		     "bytes per pass, same core, same stream)\n");

	fprintf(rep, "\nThroughput and CPU\n");
	fprintf(rep, "%-9s %-*s %8s %8s %10s %10s %7s %7s\n", "workload", lw,
		"run", "upd/s", "MB/s", "cpu us/up", "blit us/up", "cpu %",
		"/bare");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], c[2][24];

		run_label_ran(b, r, lab, sizeof(lab));
		fmt_ratio(c[0], 24, r->r_bare);
		if (r->updates)
			snprintf(c[1], 24, "%.1f",
				 cpu_us_per_update(r, r->cpu_main_ns +
							  r->cpu_blit_ns));
		else
			snprintf(c[1], 24, "-");
		fprintf(rep, "%-9s %-*s %8.1f %8.1f %10s %10.1f %7.2f %7s\n",
			wl_name(r), lw, lab, ups(r), mbps(r), c[1],
			r->updates ? cpu_us_per_update(r, r->cpu_blit_ns) : 0.0,
			cpu_pct(r), c[0]);
	}
	fprintf(rep,
		"(upd/s: updates whose first byte came in the window; MB/s: "
		"into the output; cpu us/up: decoder +\n"
		" drawing threads per update; blit us/up: the drawing thread "
		"alone; cpu %%: both, as %% of one core;\n"
		" /bare: updates/s against the bare decode loop on the same "
		"stream, median over the rounds of\n"
		" slices measured back to back)\n");

	for (i = 0; i < b->n_runs; i++)
		if (b->runs[i].kind != RUN_BARE && b->runs[i].s_pass.n)
			break;
	if (i == b->n_runs)
		goto encodings; /* nothing was drawn (idle) */
	fprintf(rep, "\nBlit against its references, medians per pass, ms\n");
	fprintf(rep, "%-9s %-*s %7s %8s %8s %8s %8s %8s %7s %7s %6s\n",
		"workload", lw, "run", "passes", "wall", "cpu", "memcpy",
		"mc cpu", "quiet", "/memcpy", "/mc cpu", "/best");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		const struct run *f = r->ref;
		char lab[LABEL_LEN], c[8][24];

		if (r->kind == RUN_BARE || !r->s_pass.n)
			continue;
		run_label(b, r, lab, sizeof(lab));
		fmt_ms3(c[0], 24, &r->s_pass, r->s_pass.median);
		fmt_ms3(c[1], 24, &r->s_pass_cpu, r->s_pass_cpu.median);
		snprintf(c[2], 24, "-");
		snprintf(c[3], 24, "-");
		if (f) {
			fmt_ms3(c[2], 24, &f->s_pass, f->s_pass.median);
			fmt_ms3(c[3], 24, &f->s_pass_cpu, f->s_pass_cpu.median);
		}
		fmt_ms3(c[4], 24, &r->s_memcpy, r->s_memcpy.median);
		fmt_ratio(c[5], 24, r->r_memcpy);
		fmt_ratio(c[6], 24, r->r_memcpy_cpu);
		fmt_ratio(c[7], 24, r->r_best);
		fprintf(rep,
			"%-9s %-*s %7llu %8s %8s %8s %8s %8s %7s %7s %6s\n",
			wl_name(r), lw, lab, (unsigned long long)r->passes,
			c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
	}
	fprintf(rep,
		"(wall: pass start to end; cpu: the drawing thread's CPU time "
		"for the pass (no preemption);\n"
		" memcpy, mc cpu: the same for the memcpy run on the same core "
		"and stream; quiet: one memcpy of the\n"
		" median pass's bytes with nothing else running; /memcpy, /mc "
		"cpu: blit over memcpy; /best: wall\n"
		" against the fastest pinned core)\n");
	print_fit_table(b, lw);
encodings:
	fprintf(rep,
		"\nServer encodings (rectangles sent, all slices including "
		"each connection's first full update):\n");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN];

		run_label(b, r, lab, sizeof(lab));
		fprintf(rep, "  %-9s %-*s %s\n", wl_name(r), lw, lab,
			r->encoding);
	}
}

static void print_histogram(const struct bench *b, FILE *rep,
			    const struct run *r)
{
	/* Log-spaced buckets from the fastest sample to the slowest, at
	 * least a quarter-octave wide. */
	uint64_t counts[HIST_ROWS], maxc = 0;
	double lo, step;
	int i, first = HIST_ROWS, last = -1, shown;
	char lab[LABEL_LEN];
	size_t k;

	if (!r->s_total.n)
		return;
	lo = (double)r->s_total.min;
	if (lo < 1000)
		lo = 1000;
	step = pow((double)r->s_total.max / lo, 1.0 / HIST_ROWS) * 1.0001;
	if (step < pow(2.0, 0.25))
		step = pow(2.0, 0.25);
	memset(counts, 0, sizeof(counts));
	for (k = 0; k < r->total.n; k++) {
		double v = (double)r->total.v[k];
		int bkt = v <= lo ? 0 : (int)floor(log(v / lo) / log(step));

		if (bkt >= HIST_ROWS)
			bkt = HIST_ROWS - 1;
		counts[bkt]++;
	}
	for (i = 0; i < HIST_ROWS; i++) {
		if (counts[i] > maxc)
			maxc = counts[i];
		if (counts[i] && i < first)
			first = i;
		if (counts[i])
			last = i;
	}
	run_label(b, r, lab, sizeof(lab));
	fprintf(rep, "\n%s, %s: latency histogram (%zu updates)\n", wl_name(r),
		lab, r->s_total.n);
	for (i = first, shown = 0; i <= last; i++, shown++) {
		double a = lo * pow(step, i), z = lo * pow(step, i + 1);
		int bar = (int)((counts[i] * 50 + maxc - 1) / maxc);

		if (i == HIST_ROWS - 1)
			fprintf(rep, "  %8.3f -    more ms |", ms((uint64_t)a));
		else
			fprintf(rep, "  %8.3f - %8.3f ms |", ms((uint64_t)a),
				ms((uint64_t)z));
		fprintf(rep, "%.*s%*s %llu\n", bar,
			"##################################################",
			50 - bar, "", (unsigned long long)counts[i]);
	}
}

struct target {
	char what[160];
	double value, limit;
	bool at_most;
	bool met;
};

static void add_target(struct target *t, int *n, int max, double value,
		       double limit, bool at_most, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static void add_target(struct target *t, int *n, int max, double value,
		       double limit, bool at_most, const char *fmt, ...)
{
	struct target *x;
	va_list ap;

	if (*n >= max || isnan(value))
		return;
	x = &t[(*n)++];
	x->value = value;
	x->limit = limit;
	x->at_most = at_most;
	x->met = at_most ? value <= limit : value >= limit;
	va_start(ap, fmt);
	vsnprintf(x->what, sizeof(x->what), fmt, ap);
	va_end(ap);
}

static int collect_targets(struct bench *b, struct target *t, int max)
{
	int n = 0, i, j;
	bool is1080 = b->out.impl == &output_mem_impl && b->out.width == 1920 &&
		      b->out.height == 1080 && b->out.fmt.bpp == 32;

	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], where[24];

		if (r->kind != RUN_PIPELINE)
			continue;
		run_label(b, r, lab, sizeof(lab));
		cpu_label(r, where, sizeof(where));
		/* Unpinned may land on the slow core: no target then. */
		if (b->out.slow_cpu >= 0 && r->cpu < 0)
			continue;
		if (r->workload == BENCH_FULLFRAME &&
		    r->cpu != b->out.slow_cpu) {
			add_target(t, &n, max, r->r_memcpy, 1.05, true,
				   "fullframe blit/memcpy wall, %s%s", lab,
				   is1080 ? " (1080p mem)" : "");
			add_target(t, &n, max, r->r_memcpy_cpu, 1.05, true,
				   "fullframe blit/memcpy cpu, %s%s", lab,
				   is1080 ? " (1080p mem)" : "");
		}
		if (r->workload != BENCH_IDLE && r->cpu >= 0 &&
		    r->cpu != b->out.slow_cpu)
			add_target(t, &n, max, r->r_bare, 0.95, false,
				   "%s updates/s pinned/bare, %s", wl_name(r),
				   lab);
		if (r->workload == BENCH_IDLE)
			add_target(t, &n, max, cpu_pct(r), 0.5, true,
				   "idle CPU %% of a core, %s", lab);
		/* Issue 8: scaling 1080p to 720p costs at most twice a
		 * 720p blit, both measured here in the same rounds. Not on
		 * the slow-cpu core, where the writes hide the scaler. */
		if (r->workload == BENCH_FIT && r->scaled &&
		    r->cpu != b->out.slow_cpu)
			add_target(t, &n, max, r->r_fit_cpu, FIT_TARGET, true,
				   "fit %d:%d full-frame blit cpu "
				   "scaled/unscaled, %s",
				   FIT_NUM, FIT_DEN, where);
	}
	/* The slow core against the fastest other pinned core. */
	for (i = 0; b->out.slow_cpu >= 0 && i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		const struct run *best = NULL;

		if (r->kind != RUN_PIPELINE || r->cpu != b->out.slow_cpu ||
		    !r->s_pass.n)
			continue;
		for (j = 0; j < b->n_runs; j++) {
			struct run *o = &b->runs[j];

			if (o->kind == RUN_PIPELINE &&
			    o->workload == r->workload &&
			    o->scaled == r->scaled && o->cpu >= 0 &&
			    o->cpu != r->cpu && o->s_pass.n &&
			    (!best || o->s_pass.median < best->s_pass.median))
				best = o;
		}
		if (best)
			add_target(t, &n, max,
				   (double)r->s_pass.median /
				       (double)best->s_pass.median,
				   5, false,
				   "%s %sblit core %d (slow-cpu) / core %d",
				   wl_name(r),
				   r->workload != BENCH_FIT ? ""
				   : r->scaled		    ? "scaled "
							    : "1:1 ",
				   r->cpu, best->cpu);
	}
	return n;
}

static void print_targets(FILE *rep, const struct target *t, int n)
{
	int i;

	if (!n)
		return;
	fprintf(rep, "\nTargets\n");
	for (i = 0; i < n; i++)
		fprintf(rep, "  %-58s %8.3f %s %-5g %s\n", t[i].what,
			t[i].value, t[i].at_most ? "<=" : ">=", t[i].limit,
			t[i].met ? "met" : "NOT MET");
}

static void json_summary(FILE *f, const char *name, const struct summary *s,
			 bool comma)
{
	if (!s->n)
		fprintf(f, "\"%s\": {\"n\": 0}", name);
	else
		fprintf(f,
			"\"%s\": {\"n\": %zu, \"min\": %.6f, \"median\": "
			"%.6f, \"p95\": %.6f, \"p99\": %.6f, \"max\": %.6f}",
			name, s->n, ms(s->min), ms(s->median), ms(s->p95),
			ms(s->p99), ms(s->max));
	if (comma)
		fputs(", ", f);
}

static void json_num(FILE *f, const char *name, double v, bool comma)
{
	if (isnan(v) || isinf(v))
		fprintf(f, "\"%s\": null", name);
	else
		fprintf(f, "\"%s\": %.6f", name, v);
	if (comma)
		fputs(", ", f);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_json(struct bench *b, FILE *f, const struct target *t, int nt)
{
	char fb[64];
	int i;

	fprintf(f, "{\n  \"vncfb_bench\": 1,\n  \"version\": ");
	json_str(f, VNCFB_VERSION);
	fprintf(f, ",\n  \"output\": {\"spec\": ");
	json_str(f, b->out_spec);
	fprintf(f, ", \"name\": ");
	json_str(f, b->out.impl->name);
	fprintf(f,
		", \"width\": %u, \"height\": %u, \"format\": \"%s\", "
		"\"stride\": %zu, \"slow_cpu\": %d},\n",
		b->out.width, b->out.height,
		pixfmt_name(&b->out.fmt, fb, sizeof(fb)), b->out.stride,
		b->out.slow_cpu);
	fprintf(f, "  \"server\": ");
	if (b->srv) {
		fprintf(f, "\"embedded\"");
	} else {
		char hp[300];

		snprintf(hp, sizeof(hp), "%s:%d", b->host, b->port);
		json_str(f, hp);
	}
	fprintf(f, ",\n  \"fit_desktop\": ");
	if (b->srv_fit)
		fprintf(f, "{\"width\": %u, \"height\": %u}", b->fit_w,
			b->fit_h);
	else
		fprintf(f, "null");
	fprintf(f, ",\n  \"encodings\": ");
	json_str(f, b->encodings);
	fprintf(f,
		",\n  \"duration_s\": %.3f,\n  \"slices\": %d,\n  "
		"\"cpus_online\": %d,\n",
		b->duration, b->rounds, b->cpus_online);
	fprintf(f, "  \"runs\": [\n");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN + 16], sc[16];

		fprintf(f, "    {\"workload\": \"%s\", \"kind\": \"%s\", ",
			wl_name(r), kind_name(r));
		snprintf(lab, sizeof(lab), "%s ", wl_name(r));
		run_label(b, r, lab + strlen(lab), sizeof(lab) - strlen(lab));
		fprintf(f, "\"label\": ");
		json_str(f, lab);
		fprintf(f,
			", \"desktop\": {\"width\": %u, \"height\": %u}, "
			"\"scale\": ",
			r->desk_w, r->desk_h);
		if (r->kind == RUN_BARE)
			fprintf(f, "null, ");
		else
			fprintf(f, "\"%s\", ",
				scale_name(r->scale, r->zoom, sc, sizeof(sc)));
		if (r->kind == RUN_BARE || r->cpu < 0)
			fprintf(f, "\"cpu\": null, ");
		else
			fprintf(f, "\"cpu\": %d, ", r->cpu);
		fprintf(f, "\"actual_cpu\": %d, \"encoding\": ", r->actual_cpu);
		json_str(f, r->encoding);
		fprintf(f,
			", \"server_bytes\": %llu, \"window_s\": %.6f, "
			"\"updates\": %llu, \"passes\": %llu, \"bytes_out\": "
			"%llu, ",
			(unsigned long long)r->server_bytes, r->window_s,
			(unsigned long long)r->updates,
			(unsigned long long)r->passes,
			(unsigned long long)r->bytes_out);
		json_num(f, "updates_per_s", ups(r), true);
		fprintf(f, "\"slice_updates\": [");
		for (size_t k = 0; k < r->slice_updates.n; k++)
			fprintf(f, "%s%llu", k ? ", " : "",
				(unsigned long long)r->slice_updates.v[k]);
		fprintf(f, "], \"slice_s\": [");
		for (size_t k = 0; k < r->slice_ns.n; k++)
			fprintf(f, "%s%.6f", k ? ", " : "",
				(double)r->slice_ns.v[k] / 1e9);
		fprintf(f, "], ");
		json_num(f, "mb_per_s", mbps(r), true);
		fprintf(f, "\n     \"latency_ms\": {");
		json_summary(f, "total", &r->s_total, true);
		json_summary(f, "recv_decode", &r->s_decode, true);
		json_summary(f, "queue", &r->s_queue, true);
		json_summary(f, "blit", &r->s_blit, false);
		fprintf(f, "},\n     ");
		json_summary(f, "pass_ms", &r->s_pass, true);
		json_summary(f, "pass_cpu_ms", &r->s_pass_cpu, true);
		fprintf(f, "\n     ");
		json_summary(f, "full_pass_ms", &r->s_full, true);
		json_summary(f, "full_pass_cpu_ms", &r->s_full_cpu, true);
		fprintf(f, "\n     \"memcpy_quiet\": {\"bytes\": %llu, ",
			(unsigned long long)r->ref_bytes);
		json_summary(f, "ms", &r->s_memcpy, false);
		fprintf(f, "},\n     \"cpu_time\": {");
		json_num(f, "main_ms", ms(r->cpu_main_ns), true);
		json_num(f, "blit_ms", ms(r->cpu_blit_ns), true);
		json_num(f, "process_ms", ms(r->cpu_proc_ns), true);
		json_num(f, "us_per_update",
			 cpu_us_per_update(r, r->cpu_main_ns + r->cpu_blit_ns),
			 true);
		json_num(f, "pct_of_core", cpu_pct(r), false);
		fprintf(f, "},\n     \"ratios\": {");
		json_num(f, "blit_vs_memcpy", r->r_memcpy, true);
		json_num(f, "blit_vs_memcpy_cpu", r->r_memcpy_cpu, true);
		json_num(f, "updates_vs_bare", r->r_bare, true);
		json_num(f, "blit_vs_best_core", r->r_best, true);
		json_num(f, "full_cpu_vs_unscaled", r->r_fit_cpu, true);
		json_num(f, "full_wall_vs_unscaled", r->r_fit_wall, false);
		fprintf(f, "}}%s\n", i + 1 < b->n_runs ? "," : "");
	}
	fprintf(f, "  ],\n  \"targets\": [\n");
	for (i = 0; i < nt; i++) {
		fprintf(f, "    {\"what\": ");
		json_str(f, t[i].what);
		fprintf(f, ", ");
		json_num(f, "value", t[i].value, true);
		fprintf(f, "\"limit\": %g, \"op\": \"%s\", \"met\": %s}%s\n",
			t[i].limit,
			t[i].at_most ? "<=" : ">=", t[i].met ? "true" : "false",
			i + 1 < nt ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
}

static void csv_ms(FILE *f, const struct summary *s, uint64_t v)
{
	if (s->n)
		fprintf(f, ",%.6f", ms(v));
	else
		fputs(",", f);
}

static void csv_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs(",", f);
	else
		fprintf(f, ",%.6f", v);
}

static void write_csv(struct bench *b, FILE *f)
{
	char fb[64];
	int i;

	pixfmt_name(&b->out.fmt, fb, sizeof(fb));
	fprintf(f, "workload,kind,cpu,actual_cpu,output,width,height,format,"
		   "encoding,window_s,updates,updates_per_s,mb_per_s,"
		   "lat_min_ms,lat_median_ms,lat_p95_ms,lat_p99_ms,lat_max_ms,"
		   "recv_decode_median_ms,queue_median_ms,blit_median_ms,"
		   "pass_median_ms,pass_cpu_median_ms,memcpy_quiet_bytes,"
		   "memcpy_quiet_median_ms,"
		   "cpu_us_per_update,cpu_pct_of_core,blit_vs_memcpy,"
		   "blit_vs_memcpy_cpu,"
		   "updates_vs_bare,blit_vs_best_core,"
		   "label,desktop_width,desktop_height,scale,full_passes,"
		   "full_pass_median_ms,full_pass_p99_ms,"
		   "full_pass_cpu_median_ms,full_pass_cpu_p99_ms,"
		   "full_cpu_vs_unscaled,full_wall_vs_unscaled\n");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char enc[sizeof(r->encoding)], lab[LABEL_LEN], sc[16];
		size_t k;

		/* No commas inside a field. */
		snprintf(enc, sizeof(enc), "%s", r->encoding);
		for (k = 0; enc[k]; k++)
			if (enc[k] == ',' || enc[k] == '"')
				enc[k] = ' ';
		fprintf(f, "%s,%s,", wl_name(r), kind_name(r));
		if (r->kind != RUN_BARE && r->cpu >= 0)
			fprintf(f, "%d", r->cpu);
		fprintf(f, ",%d,%s,%u,%u,%s,%s,%.6f,%llu", r->actual_cpu,
			b->out.impl->name, b->out.width, b->out.height, fb, enc,
			r->window_s, (unsigned long long)r->updates);
		csv_num(f, ups(r));
		csv_num(f, mbps(r));
		csv_ms(f, &r->s_total, r->s_total.min);
		csv_ms(f, &r->s_total, r->s_total.median);
		csv_ms(f, &r->s_total, r->s_total.p95);
		csv_ms(f, &r->s_total, r->s_total.p99);
		csv_ms(f, &r->s_total, r->s_total.max);
		csv_ms(f, &r->s_decode, r->s_decode.median);
		csv_ms(f, &r->s_queue, r->s_queue.median);
		csv_ms(f, &r->s_blit, r->s_blit.median);
		csv_ms(f, &r->s_pass, r->s_pass.median);
		csv_ms(f, &r->s_pass_cpu, r->s_pass_cpu.median);
		fprintf(f, ",%llu", (unsigned long long)r->ref_bytes);
		csv_ms(f, &r->s_memcpy, r->s_memcpy.median);
		csv_num(f,
			cpu_us_per_update(r, r->cpu_main_ns + r->cpu_blit_ns));
		csv_num(f, cpu_pct(r));
		csv_num(f, r->r_memcpy);
		csv_num(f, r->r_memcpy_cpu);
		csv_num(f, r->r_bare);
		csv_num(f, r->r_best);
		run_label(b, r, lab, sizeof(lab));
		fprintf(f, ",%s %s,%u,%u,%s,%zu", wl_name(r), lab, r->desk_w,
			r->desk_h,
			r->kind == RUN_BARE
			    ? ""
			    : scale_name(r->scale, r->zoom, sc, sizeof(sc)),
			r->s_full.n);
		csv_ms(f, &r->s_full, r->s_full.median);
		csv_ms(f, &r->s_full, r->s_full.p99);
		csv_ms(f, &r->s_full_cpu, r->s_full_cpu.median);
		csv_ms(f, &r->s_full_cpu, r->s_full_cpu.p99);
		csv_num(f, r->r_fit_cpu);
		csv_num(f, r->r_fit_wall);
		fputc('\n', f);
	}
}

static void format_encodings(struct bench *b, struct run *r)
{
	size_t used = 0;
	int i, k;

	if (!b->srv) {
		snprintf(r->encoding, sizeof(r->encoding), "asked: %s",
			 b->encodings);
		return;
	}
	for (i = 0; i < BENCHSRV_ENCODINGS; i++) {
		if (!r->enc_rects[i])
			continue;
		k = snprintf(r->encoding + used, sizeof(r->encoding) - used,
			     "%s%s %llu", used ? " + " : "",
			     benchsrv_encoding_name(i),
			     (unsigned long long)r->enc_rects[i]);
		if (k < 0 || (size_t)k >= sizeof(r->encoding) - used)
			break;
		used += (size_t)k;
	}
	if (!used)
		snprintf(r->encoding, sizeof(r->encoding), "none");
}

/* --json/--csv FILE ("-": standard output), opened before measuring so
 * that a bad path fails at once. */
static int open_out(const char *path, FILE **f)
{
	*f = NULL;
	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		*f = stdout;
		return 0;
	}
	*f = fopen(path, "w");
	if (!*f) {
		log_error("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int close_out(FILE *f, const char *path)
{
	int bad;

	if (!f)
		return 0;
	bad = ferror(f);
	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad) {
		log_error("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* --- set-up --- */

static int parse_workloads(struct bench *b, const char *list)
{
	const char *p = list;

	b->n_workloads = 0;
	while (*p) {
		size_t n = strcspn(p, ", ");
		int w, i;

		if (n > 0) {
			w = benchsrv_workload_from_name(p, n);
			if (w < 0) {
				fprintf(stderr,
					"vncfb: unknown workload '%.*s' "
					"(expected fullframe, scroll, typing, "
					"idle or fit)\n",
					(int)n, p);
				return -EINVAL;
			}
			for (i = 0; i < b->n_workloads; i++)
				if (b->workloads[i] == w)
					break;
			if (i == b->n_workloads)
				b->workloads[b->n_workloads++] = w;
		}
		p += n;
		p += strspn(p, ", ");
	}
	if (!b->n_workloads) {
		fprintf(stderr, "vncfb: --workload needs at least one name\n");
		return -EINVAL;
	}
	return 0;
}

static void *pin_thread(void *arg)
{
	int *cpu_err = arg;

	*cpu_err = platform_pin_thread(pthread_self(), *cpu_err);
	return NULL;
}

/* Whether a thread may be pinned to cpu: 0 or -errno. */
static int try_pin(int cpu)
{
	pthread_t t;
	int v = cpu, err;

	err = pthread_create(&t, NULL, pin_thread, &v);
	if (err)
		return -err;
	pthread_join(t, NULL);
	return v;
}

static int plan_cpus(struct bench *b)
{
	int c, n = platform_cpu_count(), cpu = b->opt->cpu;

	b->n_cpus = 0;
	for (c = 0; c < n; c++)
		b->cpus_online += platform_cpu_online(c);
	if (cpu == CPU_EACH) {
		int err = 0;

		for (c = 0; c < n && b->n_cpus < MAX_CONFIGS - 1; c++) {
			if (!platform_cpu_online(c))
				continue;
			err = try_pin(c);
			if (err == -EPERM || err == -EACCES)
				break;
			b->cpus[b->n_cpus++] = c;
		}
		if (err == -EPERM || err == -EACCES) {
			/* NetBSD lets only root set affinity by default. */
			log_warn(
			    "cannot pin threads to cores (%s)%s%s: --cpu "
			    "each measures unpinned only",
			    strerror(-err), platform_pin_hint() ? "; " : "",
			    platform_pin_hint() ? platform_pin_hint() : "");
			b->n_cpus = 0;
		}
		b->cpus[b->n_cpus++] = -1;
		return 0;
	}
	if (cpu == CPU_AUTO) {
		b->cpus[b->n_cpus++] = pick_core(b);
		return 0;
	}
	if (!platform_cpu_online(cpu)) {
		fprintf(
		    stderr,
		    "vncfb: --cpu %d: no such online core (%d configured)\n",
		    cpu, n);
		return -EINVAL;
	}
	b->cpus[b->n_cpus++] = cpu;
	return 0;
}

static bool wants_fit(const struct bench *b)
{
	int i;

	for (i = 0; i < b->n_workloads; i++)
		if (b->workloads[i] == BENCH_FIT)
			break;
	return i < b->n_workloads;
}

/* The fit workload's desktop: FIT_NUM/FIT_DEN the output in each
 * dimension, so fit fills the screen exactly (no borders) when the
 * output's sides are even. Too large for the bench: asked for, a usage
 * error (-EINVAL); in the default list, left out with a warning. */
static int plan_fit(struct bench *b, bool asked)
{
	uint64_t w = (uint64_t)b->out.width * FIT_NUM / FIT_DEN;
	uint64_t h = (uint64_t)b->out.height * FIT_NUM / FIT_DEN;
	uint64_t frame = w * h * pixfmt_bytes(&b->sfmt);
	int i, k;

	if (w <= FIT_MAX_DIM && h <= FIT_MAX_DIM && frame <= FIT_MAX_FRAME) {
		b->fit_w = (uint32_t)w;
		b->fit_h = (uint32_t)h;
		return 0;
	}
	if (asked) {
		fprintf(stderr,
			"vncfb: --workload fit: a %llux%llu desktop (%d/%d of "
			"the output) is too large for the bench (%llu MiB a "
			"frame, at most %u; %d a side); use a smaller -o\n",
			(unsigned long long)w, (unsigned long long)h, FIT_NUM,
			FIT_DEN, (unsigned long long)(frame >> 20),
			FIT_MAX_FRAME >> 20, FIT_MAX_DIM);
		return -EINVAL;
	}
	log_warn("bench: leaving out the fit workload: its %llux%llu "
		 "desktop is too large",
		 (unsigned long long)w, (unsigned long long)h);
	for (i = k = 0; i < b->n_workloads; i++)
		if (b->workloads[i] != BENCH_FIT)
			b->workloads[k++] = b->workloads[i];
	b->n_workloads = k;
	return 0;
}

static int start_fit_server(struct bench *b)
{
	b->srv_fit = benchsrv_start(b->fit_w, b->fit_h, &b->sfmt);
	return b->srv_fit ? 0 : -1;
}

/* Which desktop a run sees and how the blitter draws it: the viewer's
 * --scale, except in the fit workload, which forces its two views. */
static void plan_view(const struct bench *b, struct run *r)
{
	if (r->workload == BENCH_FIT) {
		r->scale = r->scaled ? SCALE_FIT : SCALE_NONE;
		r->zoom = 1;
	} else {
		r->scale = (enum scale_mode)b->opt->scale_mode;
		r->zoom = b->opt->scale_zoom;
	}
	/* A remote server's size is known once connected (ev_resize). */
	if (b->srv) {
		r->desk_w = r->scaled ? b->fit_w : b->out.width;
		r->desk_h = r->scaled ? b->fit_h : b->out.height;
	}
}

static void free_runs(struct bench *b)
{
	int i;

	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];

		samples_free(&r->total);
		samples_free(&r->decode);
		samples_free(&r->queue);
		samples_free(&r->blit);
		samples_free(&r->pass_ns);
		samples_free(&r->pass_cpu);
		samples_free(&r->full_ns);
		samples_free(&r->full_cpu);
		samples_free(&r->slice_updates);
		samples_free(&r->slice_ns);
		samples_free(&r->pass_bytes);
		samples_free(&r->memcpy_ns);
	}
	free(b->runs);
}

int bench_run(struct options *o)
{
	struct bench b;
	struct target *targets = NULL;
	int i, j, k, nt, ret = 1, err, n_wl, max_targets, rounds, nconf;

	if (o->record_file)
		return recorder_run(o);
	if (o->replay_file && o->serve_port >= 0)
		return replaysrv_serve(o);
	memset(&b, 0, sizeof(b));
	b.opt = o;
	b.duration = o->duration > 0 ? o->duration : DEFAULT_DURATION;
	if (o->replay_file) {
		b.replay =
		    replaysrv_for_bench(o, b.replay_out, sizeof(b.replay_out));
		if (!b.replay)
			return 1;
		b.duration = (o->duration > 0 ? o->duration : REPLAY_PLAY_S) *
			     (o->repeat ? o->repeat : REPLAY_PLAYS);
	}
	/* A real server is measured with what the viewer would ask for. */
	b.enc_list = o->encodings	   ? o->encodings
		     : o->host || b.replay ? NULL
					   : DEFAULT_ENCODINGS;
	b.encodings = b.enc_list ? b.enc_list : "viewer default";
	b.out_spec = o->output	? o->output
		     : b.replay ? b.replay_out
				: DEFAULT_OUTPUT;
	if (o->host && o->workloads) {
		fprintf(stderr, "vncfb: --workload needs the embedded server "
				"(drop HOST)\n");
		return 2;
	}
	if (!o->host && !b.replay &&
	    parse_workloads(&b, o->workloads ? o->workloads
					     : DEFAULT_WORKLOADS) < 0)
		return 2;
	if (o->passwd_file && passwd_check_file(o->passwd_file) < 0)
		goto out_files;
	/* The report goes where the machine-readable output does not. */
	b.rep = (o->json_file && !strcmp(o->json_file, "-")) ||
			(o->csv_file && !strcmp(o->csv_file, "-"))
		    ? stderr
		    : stdout;
	if (open_out(o->json_file, &b.json_f) < 0 ||
	    open_out(o->csv_file, &b.csv_f) < 0)
		goto out_files;
	b.sigfd = signals_setup();
	if (b.sigfd < 0)
		goto out_files;
	if (console_open(&b.out, b.out_spec) < 0)
		goto out_files;
	pixfmt_shadow_for(&b.out.fmt, &b.sfmt);
	if (b.replay && replaysrv_check_bench(b.replay, &b.sfmt) < 0) {
		ret = 2;
		goto out_output;
	}
	if (!o->host && !b.replay && wants_fit(&b) &&
	    plan_fit(&b, o->workloads != NULL) < 0) {
		ret = 2;
		goto out_output;
	}
	err = plan_cpus(&b);
	if (err < 0) {
		ret = 2;
		goto out_output;
	}
	if (o->host) {
		b.host = o->host;
		b.port = o->port;
		n_wl = 1;
	} else if (b.replay) {
		if (replaysrv_start(b.replay, 0, true) < 0)
			goto out_output;
		b.host = "127.0.0.1";
		b.port = replaysrv_port(b.replay);
		n_wl = 1;
	} else {
		b.srv = benchsrv_start(b.out.width, b.out.height, &b.sfmt);
		if (!b.srv)
			goto out_output;
		b.host = "127.0.0.1";
		b.port = benchsrv_port(b.srv);
		n_wl = b.n_workloads;
		if (wants_fit(&b) && start_fit_server(&b) < 0)
			goto out_server;
	}
	b.runs =
	    calloc((size_t)n_wl * (size_t)(2 * b.n_cpus + 1), sizeof(*b.runs));
	if (!b.runs) {
		log_error("bench: out of memory");
		goto out_server;
	}
	rounds = (int)ceil(b.duration / SEGMENT_S - 1e-9);
	if (b.replay) /* a play per slice */
		rounds = o->repeat ? o->repeat : REPLAY_PLAYS;
	if (rounds < 1)
		rounds = 1;
	b.rounds = rounds;
	for (i = 0; i < n_wl; i++) {
		int wl = o->host ? -1 : b.replay ? WL_REPLAY : b.workloads[i];
		struct run *rs = &b.runs[b.n_runs];

		/* Per core: the blitter, then (except when nothing is drawn)
		 * the memcpy reference; then the bare decode loop. fit: per
		 * core the scaled blitter and the 1:1 one it is priced
		 * against; then the bare decode of the scaled stream. */
		nconf = 0;
		for (j = 0; j < b.n_cpus; j++) {
			if (wl == BENCH_FIT) {
				rs[nconf].kind = RUN_PIPELINE;
				rs[nconf].scaled = true;
				rs[nconf++].cpu = b.cpus[j];
				rs[nconf].kind = RUN_PIPELINE;
				rs[nconf++].cpu = b.cpus[j];
				continue;
			}
			rs[nconf].kind = RUN_PIPELINE;
			rs[nconf++].cpu = b.cpus[j];
			if (wl == BENCH_IDLE)
				continue;
			rs[nconf].kind = RUN_MEMCPY;
			rs[nconf++].cpu = b.cpus[j];
		}
		rs[nconf].kind = RUN_BARE;
		rs[nconf].scaled = wl == BENCH_FIT;
		rs[nconf++].cpu = -1;
		for (j = 0; j < nconf; j++) {
			rs[j].workload = wl;
			rs[j].actual_cpu = -1;
			rs[j].r_memcpy = rs[j].r_memcpy_cpu = NAN;
			rs[j].r_bare = rs[j].r_best = NAN;
			rs[j].r_fit_cpu = rs[j].r_fit_wall = NAN;
			plan_view(&b, &rs[j]);
		}
		log_info("bench: %s: %d configurations, %d slice%s of %.2f s "
			 "each",
			 wl_name(rs), nconf, rounds, rounds > 1 ? "s" : "",
			 b.duration / rounds);
		for (k = 0; k < rounds; k++)
			for (j = 0; j < nconf; j++) {
				/* Rotate who goes first each round. */
				err = run_one(&b, &rs[(j + k) % nconf],
					      b.duration / rounds);
				if (err < 0)
					goto out_runs;
			}
		b.n_runs += nconf;
	}
	for (i = 0; i < b.n_runs; i++)
		format_encodings(&b, &b.runs[i]);
	compute_ratios(&b);
	print_tables(&b);
	for (i = 0; i < b.n_runs; i++)
		if (b.runs[i].kind == RUN_PIPELINE)
			print_histogram(&b, b.rep, &b.runs[i]);
	max_targets = 4 * b.n_runs + 1;
	targets = calloc((size_t)max_targets, sizeof(*targets));
	nt = targets ? collect_targets(&b, targets, max_targets) : 0;
	if (b.replay)
		replaysrv_report(b.replay, b.rep);
	print_targets(b.rep, targets, nt);
	fflush(b.rep);
	ret = 0;
	if (b.json_f)
		write_json(&b, b.json_f, targets, nt);
	if (b.csv_f)
		write_csv(&b, b.csv_f);
out_runs:
	free(targets);
	free_runs(&b);
out_server:
	benchsrv_stop(b.srv_fit);
	benchsrv_stop(b.srv);
out_output:
	console_close(&b.out);
out_files:
	if (close_out(b.json_f, o->json_file) < 0 ||
	    close_out(b.csv_f, o->csv_file) < 0)
		ret = ret ? ret : 1;
	replaysrv_close(b.replay);
	return ret;
}
