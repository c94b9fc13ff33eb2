/* vncfb bench, one measured connection: the pipeline the viewer builds
 * (pipeline.h), driven by a workload, with every update timed from its
 * first byte to its last rectangle in the output, and the memcpy and bare
 * decode references measured the same way. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/bench/bench_priv.h"
#include "tools/bench/benchsrv.h"
#include "blit/blit.h"
#include "tools/bench/bench_libvnc.h"
#include "util/clock.h"
#include "shadow/damage.h"
#include "util/log.h"
#include "output/output.h"
#include "app/pipeline.h"
#include "platform/platform.h"
#include "shadow/shadow.h"
#include "console/signals.h"
#include "util/stats.h"
#include "net/vnc.h"

/* Updates decoded but not yet drawn; the blitter coalesces, so this only
 * fills if it stalls for a long time. */
#define RING_SIZE 65536
#define CONNECT_TIMEOUT_MS 10000
#define DRAIN_TIMEOUT_MS 10000
#define MEMCPY_SLICE_SAMPLES 20
#define MEMCPY_MAX_NS 100000000ull

struct upd {
	uint64_t rx_ns, dec_ns;
	uint64_t sent_ns; /* the replay pump began sending it, 0: unknown */
	bool measured;
};

/* State of one connection, shared by the main thread and (for pipeline
 * runs) the blit worker's on_pass hook. */
struct meter {
	struct run *run;
	struct output *out;
	struct pipeline *pipe;
	pthread_t copier; /* RUN_MEMCPY worker */
	bool copier_running;
	atomic_int copier_err;
	uint64_t duration_ns;
	/* Main thread only. */
	uint64_t t_start, t_end; /* measurement window, 0: not yet */
	/* cpu0_main: the main thread's and the decoding workers'. */
	uint64_t cpu0_main, cpu0_proc, cpu0_blit;
	bool first_decoded; /* the connection's set-up update is in */
	/* A replay's set-up is the recording's first update, whatever it
	 * holds: the replay server, the bare loop and vncviewer count its
	 * plays so. A live server's is its first picture (ev_update_done). */
	bool replay;
	struct replaysrv *pump; /* the replay's, for the updates' ages */
	struct link *link;	/* --link */
	uint64_t link0;		/* its bytes down when the window opened */
	uint64_t payload0, rx0; /* the connection's payload, all, then */
	uint64_t conn_updates;	/* decoded on this connection */
	bool skip_next;		/* next update arrived before the window */
	/* A replay's set-up is drawn and nothing else has come: the window
	 * opens when the next bytes do, so that the round trip the stream
	 * takes to start (a request, EnableContinuousUpdates) is not
	 * counted as a link standing idle. */
	bool armed;
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
	/* Drawing thread only: passes woken in the middle of a long update
	 * (a live output's early wake-ups; no kick yet), held until the
	 * pass that finishes the update says whether it is measured. */
	struct samples early_ns, early_cpu, early_bytes;
	/* Bytes of a pass that draws the whole desktop (set on resize). */
	atomic_uint_fast64_t full_bytes;
	/* Set by either thread, read by the main loop. */
	atomic_bool overflow, oom;
};

static uint64_t blit_cpu_ns(struct meter *m)
{
	clockid_t id;

	if (m->run->kind == RUN_PIPELINE) {
		if (blit_cpu_clock(pipeline_blitter(m->pipe), &id) < 0)
			return 0;
	} else if (m->run->kind == RUN_MEMCPY && m->copier_running) {
		if (pthread_getcpuclockid(m->copier, &id) != 0)
			return 0;
	} else {
		return 0;
	}
	return clock_ns(id);
}

/* --- the update ring between decoder and blitter --- */

/* A pass that drew part of the measured stream (worker thread). */
static void count_pass(struct meter *m, uint64_t ns, uint64_t cpu,
		       uint64_t bytes)
{
	struct run *r = m->run;

	r->passes++;
	r->bytes_out += bytes;
	if (stats_add(&r->pass_ns, ns) < 0 ||
	    stats_add(&r->pass_cpu, cpu) < 0 ||
	    stats_add(&r->pass_bytes, bytes) < 0)
		m->oom = true;
	if (bytes == atomic_load(&m->full_bytes) &&
	    (stats_add(&r->full_ns, ns) < 0 ||
	     stats_add(&r->full_cpu, cpu) < 0))
		m->oom = true;
}

/* Worker thread, after each pass: the pass drew the oldest st->kicks
 * updates still waiting (kicks fold in order). A pass with no kick drew
 * part of the update being decoded: it counts once the pass that
 * finishes that update finds it measured. */
static void on_pass(void *ctx, const struct blit_stats *st)
{
	struct meter *m = ctx;
	struct run *r = m->run;
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID), cpu_used;
	uint64_t head = atomic_load_explicit(&m->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&m->tail, memory_order_relaxed);
	uint64_t done = 0;
	uint32_t k;

	cpu_used = cpu - m->worker_cpu;
	m->worker_cpu = cpu;
	if (st->kicks == 0) {
		if (st->bytes &&
		    (stats_add(&m->early_ns, st->end_ns - st->start_ns) < 0 ||
		     stats_add(&m->early_cpu, cpu_used) < 0 ||
		     stats_add(&m->early_bytes, st->bytes) < 0))
			m->oom = true;
		goto seen;
	}
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
		if (u->sent_ns && u->sent_ns < st->end_ns &&
		    stats_add(&r->age, st->end_ns - u->sent_ns) < 0)
			m->oom = true;
		if (stats_add(&r->total, st->end_ns - u->rx_ns) < 0 ||
		    stats_add(&r->decode, dec - u->rx_ns) < 0 ||
		    stats_add(&r->queue, start - dec) < 0 ||
		    stats_add(&r->blit, st->end_ns - st->start_ns) < 0)
			m->oom = true;
	}
	atomic_store_explicit(&m->tail, tail, memory_order_release);
	for (size_t i = 0; done && i < m->early_ns.n; i++)
		count_pass(m, m->early_ns.v[i], m->early_cpu.v[i],
			   m->early_bytes.v[i]);
	m->early_ns.n = m->early_cpu.n = m->early_bytes.n = 0;
	/* A pass can find its damage already drawn: an earlier pass took
	 * the rectangles of an update that was still being finished. Its
	 * updates count, but it is no blit. */
	if (done && st->bytes) {
		count_pass(m, st->end_ns - st->start_ns, cpu_used, st->bytes);
		if (st->shown_ns >= st->end_ns &&
		    (r->flips++, stats_add(&r->flip_ns,
					   st->shown_ns - st->end_ns) < 0))
			m->oom = true;
	}
seen:
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

static void ev_resized(void *ctx, uint32_t w, uint32_t h)
{
	struct meter *m = ctx;
	struct blitter *bl = pipeline_blitter(m->pipe);
	struct view v;
	struct rect desk;

	m->run->desk_w = w;
	m->run->desk_h = h;
	if (!bl)
		return; /* bare: no screen */
	/* A pass over all of the desktop's place on the screen is a full
	 * frame; borders are drawn only on resets. */
	blit_get_view(bl, &v);
	atomic_store(&m->full_bytes, view_desktop(&v, &desk)
					 ? (uint64_t)rect_area(&desk) *
					       pixfmt_bytes(&m->out->fmt)
					 : 0);
}

/* The decoder's CPU time: the main thread's, and the decoding workers'
 * when the connection has them. */
static uint64_t decoder_cpu_ns(struct meter *m)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID) +
	       vnc_decode_cpu_ns(pipeline_vnc(m->pipe));
}

static void start_window(struct meter *m)
{
	m->t_start = monotonic_ns();
	m->t_end = m->t_start + m->duration_ns;
	m->cpu0_main = decoder_cpu_ns(m);
	m->cpu0_proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	m->cpu0_blit = blit_cpu_ns(m);
	m->payload0 = vnc_payload_bytes(pipeline_vnc(m->pipe));
	m->rx0 = vnc_rx_bytes(pipeline_vnc(m->pipe));
	if (m->link) {
		struct link_counts n;

		link_counts(m->link, &n);
		m->link0 = n.down;
	}
}

static void ev_update_done(void *ctx)
{
	struct meter *m = ctx;
	struct upd u;

	/* A replay's next update decoded before the window opened: the
	 * reader took it in the same go as the set-up one (a recording of
	 * small updates, all in the socket at once). The window opens now
	 * (this one, which came before it, is not measured): opened after
	 * the dispatch, it would wait for bytes of a play already over, and
	 * the bench gave up after 10 s (h264-replay, 1 run in 10). */
	if (m->replay && m->first_decoded && !m->t_start) {
		m->armed = false;
		start_window(m);
	}
	u.rx_ns = vnc_update_rx_ns(pipeline_vnc(m->pipe));
	u.dec_ns = monotonic_ns();
	/* The k-th update decoded is the k-th the pump sent (what it sends
	 * unasked is no update), and it stamped it before sending. */
	u.sent_ns = m->pump ? replaysrv_sent_ns(m->pump, m->conn_updates) : 0;
	/* The connection's first picture (the whole desktop, asked for
	 * non-incrementally) is set-up, not part of the stream: the window
	 * opens once it is decoded (and drawn), see pump(). It is the first
	 * update with pixels: libvncserver answers the request with the
	 * desktop's size alone when the client takes ExtendedDesktopSize,
	 * and sends the picture as a second update, which must not fall
	 * into the window. */
	u.measured = m->t_start && !m->skip_next && u.rx_ns >= m->t_start &&
		     u.rx_ns < m->t_end;
	if (m->t_start)
		m->skip_next = false;
	if (u.measured && m->pump &&
	    replaysrv_update_full(m->pump, m->conn_updates))
		m->run->full_updates++;
	m->conn_updates++;
	if (m->run->kind == RUN_BARE) {
		if (u.measured) {
			if (stats_add(&m->run->decode, u.dec_ns - u.rx_ns) <
				0 ||
			    stats_add(&m->run->total, u.dec_ns - u.rx_ns) < 0)
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
		/* The pipeline kicks the blitter next. */
	}
	if (m->replay || pipeline_update_pixels(m->pipe))
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
	struct pollfd pfd = {.fd = vnc_fd(pipeline_vnc(m->pipe)),
			     .events = POLLIN};

	if (m->run->kind != RUN_BARE &&
	    !meter_wait(m, all_popped, CONNECT_TIMEOUT_MS)) {
		log_error("bench: the first update was not drawn within %d s",
			  CONNECT_TIMEOUT_MS / 1000);
		return -1;
	}
	if (vnc_pending(pipeline_vnc(m->pipe)) || poll(&pfd, 1, 0) > 0) {
		/* Bytes that came while we waited would get a late arrival
		 * time. */
		start_window(m);
		m->skip_next = true;
	} else if (m->replay) {
		m->armed = true;
	} else {
		/* A live server may have nothing to send for a while. */
		start_window(m);
	}
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
		int sig;

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
		pfd[1] = (struct pollfd){.fd = vnc_fd(pipeline_vnc(m->pipe)),
					 .events = POLLIN};
		ret = poll(pfd, 2,
			   vnc_poll_timeout(pipeline_vnc(m->pipe), timeout));
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			log_error("poll: %s", strerror(errno));
			return -1;
		}
		if ((pfd[0].revents & POLLIN) &&
		    (sig = signals_take(b->sigfd, NULL))) {
			log_info("bench interrupted (signal %d)", sig);
			return -EINTR;
		}
		if (vnc_poll_ready(pipeline_vnc(m->pipe), pfd[1].revents)) {
			if (m->armed) {
				m->armed = false;
				start_window(m);
			}
			if (vnc_dispatch(pipeline_vnc(m->pipe), &verr) < 0)
				return -1;
		}
		/* The requests the pacer keeps in flight beyond the one an
		 * update's arrival replaces go out from its timers, as in a
		 * session's loop. */
		if (vnc_tick(pipeline_vnc(m->pipe), &verr) < 0)
			return -1;
		if (m->first_decoded && !m->t_start && !m->armed &&
		    open_window(m) < 0)
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
		if (stats_add(j->out, t1 - t0) < 0) {
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
	struct shadow *sh = pipeline_shadow(m->pipe);
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
	stats_sort_u64(sorted, r->pass_ns.n);
	med = stats_quantile(sorted, r->pass_ns.n, 0.5);
	free(sorted);
	for (i = 0; i < r->pass_ns.n; i++)
		if (r->pass_ns.v[i] == med) {
			best = i;
			break;
		}
	r->ref_bytes = r->pass_bytes.v[best];
	limit = (size_t)sh->stride * sh->height;
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
	    .src = sh->pix,
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

/* The RUN_MEMCPY worker: takes damage like the blitter, counts the bytes
 * the blitter would write for it (each rectangle mapped to the screen as
 * the blitter maps it) and copies that many bytes with a single memcpy. */
static void *copier_thread(void *arg)
{
	struct meter *m = arg;
	struct output *o = m->out;
	struct shadow *sh = pipeline_shadow(m->pipe);
	struct blitter *bl = pipeline_blitter(m->pipe);
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
	while (damage_take(pipeline_damage(m->pipe), &set, -1) >= 0) {
		struct blit_stats st;
		uint64_t bytes = 0, limit;

		memset(&st, 0, sizeof(st));
		shadow_lock(sh);
		st.start_ns = monotonic_ns();
		limit = (uint64_t)sh->stride * sh->height;
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
			if (blit_remote_to_screen(bl, &set.rects[i], &scr))
				bytes += rect_area(&scr) * bpp;
		}
		if (bytes > limit)
			bytes = limit;
		memcpy(o->map, sh->pix, bytes);
		st.end_ns = monotonic_ns();
		shadow_unlock(sh);
		st.bytes = bytes;
		st.kick_ns = set.kick_ns;
		st.kicks = set.kicks;
		st.rects = set.n;
		on_pass(m, &st);
	}
	return NULL;
}

static enum pipeline_draw draw_of(const struct run *r)
{
	return r->kind == RUN_PIPELINE ? PIPELINE_BLIT
	       : r->kind == RUN_MEMCPY ? PIPELINE_CALLER
				       : PIPELINE_DECODE;
}

/* The reference wrote over the picture: put it back. */
static void redraw(struct pipeline *p)
{
	struct blitter *bl = pipeline_blitter(p);
	struct damage_set none;
	struct blit_stats st;

	if (!pipeline_shadow(p)->pix)
		return;
	memset(&none, 0, sizeof(none));
	blit_reset_view(bl);
	blit_pass(bl, &none, &st);
}

/* A replay's play is over: the pump checks the picture it left in the
 * shadow (the bare loop decodes into one too) against the recorder's. */
static int play_done(struct bench *b, struct meter *m)
{
	const struct shadow *sh = pipeline_shadow(m->pipe);

	/* The main thread is the shadow's writer: no lock to read it. */
	return replaysrv_play_done(b->replay, bench_kind_name(m->run),
				   m->conn_updates, sh->pix, sh->stride,
				   sh->width, sh->height);
}

/* Connect m's pipeline as the viewer would, to the bench's server (or
 * the one being measured), watching only; the bare run with
 * libvncclient's own decoders. 0 or -1 (logged). */
static int connect_meter(struct bench *b, struct meter *m, struct run *r,
			 struct benchsrv *srv)
{
	struct vnc_config vcfg;
	enum vnc_error verr;
	enum log_level lvl;
	int err;

	/* What the viewer would ask for, from the bench's server, watching
	 * only. */
	pipeline_vnc_config(m->pipe, b->opt, &vcfg);
	vcfg.host = b->host;
	vcfg.port = srv ? benchsrv_port(srv) : b->port;
	if (b->link) { /* the server behind it */
		vcfg.host = "127.0.0.1";
		vcfg.port = link_port(b->link);
	}
	vcfg.encodings = b->enc_list;
	vcfg.view_only = true;
	/* The reference: libvncclient's own decoders, into the same shadow,
	 * drawing nothing. */
	vcfg.reference = r->kind == RUN_BARE ? &bench_libvnc_reference : NULL;
	m->t_end = monotonic_ns() + (uint64_t)CONNECT_TIMEOUT_MS * 1000000u;
	/* One "connected" line per slice is noise; -v shows them. */
	lvl = log_get_level();
	if (lvl == LOG_INFO)
		log_set_level(LOG_WARN);
	err = pipeline_connect(m->pipe, &vcfg, &verr);
	log_set_level(lvl);
	return err < 0 ? -1 : 0;
}

/* After a slice's pump: what it measured, into r (the window, CPU
 * time, the slice's counts) once the blitter has drawn every update that
 * came in the window. 0 or -1 (logged). */
static int account_slice(struct bench *b, struct meter *m, struct run *r,
			 bool pipeline, uint64_t updates0)
{
	r->window_s += (double)(m->t_end - m->t_start) / 1e9;
	r->payload_bytes +=
	    vnc_payload_bytes(pipeline_vnc(m->pipe)) - m->payload0;
	r->rx_bytes += vnc_rx_bytes(pipeline_vnc(m->pipe)) - m->rx0;
	if (m->link) {
		struct link_counts n;

		link_counts(m->link, &n);
		r->link_bytes += n.down - m->link0;
	}
	r->cpu_main_ns += decoder_cpu_ns(m) - m->cpu0_main;
	if (pipeline) {
		/* Updates that arrived inside the window are decoded; wait
		 * until the blitter has drawn them too. */
		if (!meter_wait(m, all_drawn, DRAIN_TIMEOUT_MS)) {
			log_error("bench: the blitter did not draw the last "
				  "updates within %d s (%llu of %llu drawn, "
				  "%llu of %llu taken)",
				  DRAIN_TIMEOUT_MS / 1000,
				  (unsigned long long)m->measured_done,
				  (unsigned long long)m->measured_pushed,
				  (unsigned long long)atomic_load(&m->tail),
				  (unsigned long long)atomic_load(&m->head));
			return -1;
		}
		r->cpu_blit_ns += blit_cpu_ns(m) - m->cpu0_blit;
		if (r->kind == RUN_PIPELINE)
			r->actual_cpu =
			    blit_actual_cpu(pipeline_blitter(m->pipe));
		else
			r->actual_cpu = r->cpu;
	}
	if (b->replay && play_done(b, m) < 0)
		return -1;
	r->cpu_proc_ns += clock_ns(CLOCK_PROCESS_CPUTIME_ID) - m->cpu0_proc;
	r->segments++;
	if (stats_add(&r->slice_updates, r->updates - updates0) < 0 ||
	    stats_add(&r->slice_ns, m->t_end - m->t_start) < 0) {
		log_error("bench: out of memory");
		return -1;
	}
	if (m->oom) {
		log_error("bench: out of memory");
		return -1;
	}
	if (atomic_load(&m->copier_err) < 0) {
		log_error("cannot pin the memcpy reference to core %d: %s",
			  r->cpu, strerror(-atomic_load(&m->copier_err)));
		return -1;
	}
	return 0;
}

int bench_measure(struct bench *b, struct run *r, double seg_s)
{
	struct benchsrv *srv = r->scaled ? b->srv_fit : b->srv;
	struct pipeline_config pcfg;
	struct meter m;
	int ret = -1, err;
	bool pipeline = r->kind != RUN_BARE;
	uint64_t updates0 = r->updates;

	memset(&m, 0, sizeof(m));
	m.run = r;
	m.out = &b->out;
	m.duration_ns = (uint64_t)(seg_s * 1e9);
	m.replay = b->replay != NULL;
	m.pump = b->replay;
	m.link = b->link;
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
	}
	/* The viewer's --scale (a no-op when the desktop is the output's
	 * size), or what the fit workload compares. */
	pcfg = (struct pipeline_config){
	    .out = &b->out,
	    .draw = draw_of(r),
	    .cpu = r->cpu,
	    .scale = r->scale,
	    .zoom = r->zoom,
	    .on_pass = on_pass,
	    .on_pass_ctx = &m,
	    .ev = {.ctx = &m,
		   .resized = ev_resized,
		   .update_done = ev_update_done},
	};
	m.pipe = pipeline_create(&pcfg);
	if (!m.pipe)
		goto out_ring;
	if (r->kind == RUN_MEMCPY) {
		err = pthread_create(&m.copier, NULL, copier_thread, &m);
		if (err) {
			log_error("pthread_create (memcpy reference): %s",
				  strerror(err));
			goto out_pipe;
		}
		m.copier_running = true;
	}
	/* Pinning kicks the worker once; let that pass go by so every later
	 * kick is an update's. */
	if (r->kind == RUN_PIPELINE && r->cpu >= 0 &&
	    !meter_wait(&m, first_pass_done, CONNECT_TIMEOUT_MS)) {
		log_error("bench: the blit thread did not start");
		goto out_pipe;
	}
	if (connect_meter(b, &m, r, srv) < 0)
		goto out_pipe;
	err = pump(b, &m);
	if (err < 0) {
		ret = err == -EINTR ? -EINTR : -1;
		goto out_pipe;
	}
	if (account_slice(b, &m, r, pipeline, updates0) < 0)
		goto out_pipe;
	ret = 0;
out_pipe:
	pipeline_disconnect(m.pipe);
	if (srv && ret == 0)
		benchsrv_take_stats(srv, r->enc_rects, &r->server_bytes);
	if (m.copier_running) {
		damage_stop(pipeline_damage(m.pipe));
		pthread_join(m.copier, NULL);
	}
	if (pipeline) {
		pipeline_stop(m.pipe);
		if (ret == 0 && r->kind == RUN_PIPELINE &&
		    measure_memcpy(&m) < 0)
			ret = -1;
		redraw(m.pipe);
	}
	pipeline_destroy(m.pipe);
out_ring:
	free(m.ring);
	stats_free(&m.early_ns);
	stats_free(&m.early_cpu);
	stats_free(&m.early_bytes);
out_sync:
	pthread_cond_destroy(&m.cond);
	pthread_mutex_destroy(&m.lock);
	return ret;
}
