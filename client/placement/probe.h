/* Core placement: time framebuffer writes from every online core and pick
 * the core for the blit thread.
 *
 * Threads: everything here runs on the main thread, before the blit thread
 * starts. probe_run() starts one short-lived probe thread per core (one at
 * a time); while it runs those threads are the only writers of the output
 * mapping. */
#ifndef VNCFB_PROBE_H
#define VNCFB_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/output.h"
#include "platform/platform.h"
#include "util/cpu.h"


/* Samples per core when the caller does not ask for a number; then a time
 * budget per core also applies (PROBE_BUDGET_MS, warm-up included). */
#define PROBE_DEFAULT_SAMPLES 9
#define PROBE_BUDGET_MS 40
/* The unit of the table: a stripe of whole rows of about this many bytes
 * (at most the screen). A sample writes the stripe, or fewer rows on a
 * core so slow that the stripe would take long. */
#define PROBE_STRIPE_BYTES (1u << 20)
/* Cores whose framebuffer time is within this fraction of the fastest are
 * a tie; a tie goes to a core other than the main thread's. Generous on
 * purpose: sharing the decoder's core costs more than this. */
#define PROBE_TIE 0.10
/* A core whose fb/RAM ratio is this many times the chosen core's is
 * reported as slow (a mapping problem, not a busy core). */
#define PROBE_SLOW_FACTOR 4.0
/* A chosen core whose fb/RAM ratio is above this writes a framebuffer
 * that looks uncached as a whole. Write-combining video memory takes
 * 1-3x the time of RAM; measured here: 0.4-1.5x for the mem output (RAM
 * written with streaming stores), 0.85-1.1x for the vesafb VRAM of the
 * qemu VM (tests/vm). Uncached writes go out one store at a time and in
 * order instead of in 64-byte bursts: a gain of 7-9x in x11perf was
 * reported when uvesafb's uncached-minus mapping became write-combining
 * (the driver fix: Linux commit 803a4e14a7dc), and the mem output's
 * emulation (a cache line flush and fence per line) measures 33-176x. 8x
 * sits well above write-combining and at the bottom of uncached. */
#define PROBE_UNCACHED_RATIO 8.0

enum probe_state {
	PROBE_OFFLINE,		/* not online, or not in our affinity mask */
	PROBE_MEASURED,
	PROBE_STOPPED,		/* measured, stopped early: clearly slow */
	PROBE_PIN_FAILED,	/* could not be pinned there (pin_error) */
};

struct probe_core {
	int cpu;		/* core id, -1 for an unpinned measurement */
	enum probe_state state;
	int pin_error;		/* -errno from pinning */
	int ran_on;		/* where the probe thread found itself, -1 */
	int samples;		/* samples taken */
	uint32_t sample_rows;	/* rows per sample (fewer on slow cores) */
	double fb_ms;		/* median, scaled to one stripe: output */
	double ram_ms;		/* median, scaled to one stripe: RAM */
	double ratio;		/* fb_ms / ram_ms */
	double frame_ms;	/* fb_ms scaled to the whole screen */
	double ram_frame_ms;	/* ram_ms scaled the same way */
	double elapsed_ms;	/* time spent on this core, warm-up included */
	bool slow;		/* ratio far above the chosen core's */
	/* big.LITTLE: the kernel's capacity (1..1024, -1 unknown) and the
	 * class it makes among the cores (util/cpu.h). */
	int capacity;
	enum cpu_class cls;
	/* Timed in wall time although the result's cpu_clock says thread
	 * CPU time: that clock did not resolve on this core. */
	bool wall_clock;
};

struct probe_result {
	int ncores;		/* entries in cores[] (configured cores) */
	struct probe_core *cores;
	/* Pinning is not permitted here: cores[] holds one unpinned
	 * measurement (cpu -1) and chosen is -1. */
	bool pin_denied;
	int pin_error;
	uint32_t width, height;	/* of the output probed */
	uint32_t stripe_rows;
	size_t stripe_bytes;	/* visible bytes per stripe */
	int samples;		/* asked per core */
	bool budgeted;		/* the per-core time budget applied */
	bool cpu_clock;		/* samples timed in thread CPU time */
	int main_cpu;		/* where the main thread ran, -1 unknown */
	int chosen;		/* core for the blit thread, -1: unpinned */
	double elapsed_ms;	/* whole probe */
	char reason[160];	/* why chosen, one phrase */
	/* The output's video memory (output.phys_start, phys_len; 0 and 0
	 * when it has none) and the kernel's memory type for it: memtype_err
	 * 0 when known, else -errno and memtype_why says why. */
	uint64_t phys_start, phys_len;
	int memtype_err;
	struct memtype memtype;
	char memtype_why[160];
};

/* Probe every online core writing into out (which must be open and not yet
 * drawn by a blitter). samples <= 0: the default with a time budget. Fills
 * res (free with probe_free) and makes the choice (probe_choose).
 * Returns 0 or -errno (logged); -EINTR, not logged, when a quit signal
 * (signals.h) stops it between two samples. */
int probe_run(struct output *out, int samples, struct probe_result *res);
void probe_free(struct probe_result *res);

/* The choice alone, from res->cores and res->main_cpu: sets res->chosen,
 * res->reason and each core's slow flag. Exposed for tests. */
void probe_choose(struct probe_result *res);

/* Each core's capacity and class (platform_cpu_capacity, cpu_classify):
 * probe_run calls it; exposed for tests. */
void probe_classify(struct probe_result *res);

/* Whether c holds a measurement (measured, or stopped early as slow). */
bool probe_measured(const struct probe_core *c);

/* Whether the whole mapping looks uncached: the chosen core (or the
 * unpinned measurement) takes over PROBE_UNCACHED_RATIO times as long to
 * write the framebuffer as RAM. */
bool probe_uncached(const struct probe_result *res);

/* Room for any warning probe_warning writes. */
#define PROBE_WARNING_LEN 512

/* One plain-words warning: the whole mapping looks uncached (what it
 * costs, what the kernel says, what to check), or some core is far slower
 * at writing the framebuffer than the chosen one. False (buf untouched)
 * when neither. */
bool probe_warning(const struct probe_result *res, char *buf, size_t len);

/* Print the table and bar chart, or JSON. out names the output. */
void probe_print_table(const struct probe_result *res,
		       const struct output *out, int configured_cpu, FILE *f);
void probe_print_json(const struct probe_result *res,
		      const struct output *out, int configured_cpu, FILE *f);

/* --cpu auto: probe out (open, not yet drawn by a blitter) with samples
 * per core (as probe_run) and return the core for the blit thread, or -1
 * to leave it unpinned (pinning not permitted, no usable core, the probe
 * failed). Logs the choice and why (the table at debug level). */
int probe_pick_core(struct output *out, int samples);

/* Room for what probe_pin_reason writes. */
#define PROBE_PIN_REASON_LEN 256

/* Why threads cannot be pinned, for the one wording every message about
 * it uses ("cannot pin ... (REASON): ..."): strerror(-err), and where
 * pinning is not permitted the platform's hint. Returns buf. */
const char *probe_pin_reason(int err, char *buf, size_t len);

/* Online cores vncfb may use (platform_cpu_online: online and inside its
 * affinity) as a list like "0-3,6", for messages. */
void probe_online_list(char *buf, size_t len);
/* How many they are (at least 1). */
int probe_online_count(void);

#endif
