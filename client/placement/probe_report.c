/* What the core probe's result says: its verdicts and warnings (uncached
 * mapping, slow cores), and the `vncfb probe` table and JSON. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/json.h"
#include "output/output.h"
#include "platform/platform.h"
#include "placement/probe.h"

static bool memtype_known(const struct probe_result *res)
{
	return res->phys_len && !res->memtype_err;
}

static const struct probe_core *chosen_core(const struct probe_result *res)
{
	int i;

	for (i = 0; i < res->ncores; i++)
		if (res->chosen >= 0 && res->cores[i].cpu == res->chosen)
			return &res->cores[i];
	return NULL;
}

/* The measurement the uncached verdict rests on: the chosen core, or the
 * one unpinned measurement when pinning is not permitted. */
static const struct probe_core *reference_core(const struct probe_result *res)
{
	const struct probe_core *ch = chosen_core(res);

	if (ch)
		return ch;
	if (res->pin_denied && res->ncores == 1 &&
	    probe_measured(&res->cores[0]))
		return &res->cores[0];
	return NULL;
}

bool probe_uncached(const struct probe_result *res)
{
	const struct probe_core *ref = reference_core(res);

	return ref && ref->ratio > PROBE_UNCACHED_RATIO;
}

/* "cores 1, 3" for the slow ones; the count, and the worst slowdown
 * against the chosen core in *worst. */
static int slow_cores(const struct probe_result *res, char *list, size_t len,
		      double *worst)
{
	const struct probe_core *ch = chosen_core(res);
	size_t used = 0;
	int i, n = 0;

	list[0] = '\0';
	*worst = 0;
	for (i = 0; ch && i < res->ncores; i++) {
		const struct probe_core *c = &res->cores[i];

		if (!c->slow)
			continue;
		if (used < len)
			used += (size_t)snprintf(list + used, len - used,
						 "%s%d", n ? ", " : "", c->cpu);
		if (c->fb_ms / ch->fb_ms > *worst)
			*worst = c->fb_ms / ch->fb_ms;
		n++;
	}
	return n;
}

static void uncached_warning(const struct probe_result *res, char *buf,
			     size_t len)
{
	const struct probe_core *ref = reference_core(res);
	const struct memtype *mt = &res->memtype;
	char where[32], kernel[64] = "", list[128];
	double worst;
	int n = slow_cores(res, list, sizeof(list), &worst);
	size_t l;

	if (ref->cpu >= 0)
		snprintf(where, sizeof(where), "chosen core %d", ref->cpu);
	else
		snprintf(where, sizeof(where), "unpinned");
	if (memtype_known(res))
		snprintf(kernel, sizeof(kernel), "; the kernel maps it %s%s",
			 mt->name, mt->mixed ? " (in part)" : "");
	if (memtype_known(res) && mt->kind == MEMTYPE_WRITE_COMBINING &&
	    !mt->mixed)
		/* The kernel says the mapping is right: the device is slow. */
		snprintf(buf, len,
			 "writing the framebuffer takes %.0fx as long as RAM "
			 "(%s: %.1f ms a frame; write-combining memory takes "
			 "1-3x), although the kernel maps it write-combining: "
			 "the device or its bus is slow, not the mapping",
			 ref->ratio, where, ref->frame_ms);
	else
		snprintf(buf, len,
			 "the whole framebuffer mapping looks uncached: "
			 "writing it takes %.0fx as long as RAM (%s: %.1f ms a "
			 "frame; write-combining memory takes 1-3x)%s; %s",
			 ref->ratio, where, ref->frame_ms, kernel,
			 platform_uncached_hint());
	l = strlen(buf);
	if (n && l < len)
		snprintf(buf + l, len - l, "; core%s %s slower still (up to "
			 "%.0fx), avoided", n > 1 ? "s" : "", list, worst);
}

bool probe_warning(const struct probe_result *res, char *buf, size_t len)
{
	const struct probe_core *ch = chosen_core(res);
	char list[128];
	double worst;
	int n;

	if (probe_uncached(res)) {
		uncached_warning(res, buf, len);
		return true;
	}
	n = slow_cores(res, list, sizeof(list), &worst);
	if (!n)
		return false;
	snprintf(buf, len,
		 "the framebuffer is much slower to write from core%s %s "
		 "(up to %.0fx slower than from core %d, while RAM is as fast "
		 "there): likely that core maps it with another memory type "
		 "(PAT/MTRR setup); vncfb avoids %s",
		 n > 1 ? "s" : "", list, worst, ch->cpu,
		 n > 1 ? "them" : "it");
	return true;
}

static const char *verdict(const struct probe_result *res,
			   const struct probe_core *c, char *buf, size_t len)
{
	const struct probe_core *ch = chosen_core(res);

	switch (c->state) {
	case PROBE_OFFLINE:
		return "offline or not allowed";
	case PROBE_PIN_FAILED:
		snprintf(buf, len, "cannot pin: %s", strerror(-c->pin_error));
		return buf;
	default:
		break;
	}
	if (c->cpu < 0)
		return "unpinned (pinning not permitted)";
	if (c->cpu == res->chosen)
		snprintf(buf, len, "chosen");
	else if (c->slow && ch)
		snprintf(buf, len, "SLOW: %.0fx the chosen core's time, "
			 "avoided", c->fb_ms / ch->fb_ms);
	else
		snprintf(buf, len, "ok");
	if (c->state == PROBE_STOPPED) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " (stopped after %d samples)",
			 c->samples);
	}
	if (c->ran_on < 0) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " (placement unverified)");
	}
	if (c->wall_clock) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " (wall time: thread clock stuck)");
	}
	return buf;
}

/* The whole mapping: the kernel's memory type and the verdict on it. */
static void print_mapping(const struct probe_result *res, FILE *f)
{
	const struct probe_core *ref = reference_core(res);
	const struct memtype *mt = &res->memtype;
	bool uc = memtype_known(res) && (mt->kind == MEMTYPE_UNCACHED ||
					 mt->kind == MEMTYPE_UNCACHED_MINUS);
	char where[32];

	if (res->phys_len) {
		fprintf(f, "video memory: 0x%" PRIx64 "-0x%" PRIx64
			   " (%" PRIu64 " KiB)",
			res->phys_start, res->phys_start + res->phys_len - 1,
			res->phys_len >> 10);
		if (memtype_known(res))
			fprintf(f, "; the kernel maps it %s%s%s", mt->name,
				mt->mixed ? " (in part: other types too)" : "",
				mt->partial ? " (listed in part)" : "");
		fputc('\n', f);
	}
	if (!ref)
		return;
	if (ref->cpu >= 0)
		snprintf(where, sizeof(where), "on core %d", ref->cpu);
	else
		snprintf(where, sizeof(where), "unpinned");
	if (probe_uncached(res))
		fprintf(f, "mapping: looks uncached: %.0fx RAM %s, above %.0fx "
			   "(write-combining video memory takes 1-3x)\n",
			ref->ratio, where, PROBE_UNCACHED_RATIO);
	else if (uc)
		fprintf(f, "mapping: %.1fx RAM %s although %s: the writes are "
			   "combined all the same (a write-combining MTRR, or "
			   "an emulated device)\n",
			ref->ratio, where, mt->name);
}

void probe_print_table(const struct probe_result *res,
		       const struct output *out, int configured_cpu, FILE *f)
{
	char fbuf[64], vbuf[96], why[PROBE_PIN_REASON_LEN];
	double maxf = 0;
	bool classes = false;
	int i;

	fprintf(f, "output %s %ux%u %s; stripe of %u rows (%.2f MiB); ",
		out->impl->name, res->width, res->height,
		pixfmt_name(&out->fmt, fbuf, sizeof(fbuf)), res->stripe_rows,
		(double)res->stripe_bytes / (1 << 20));
	if (res->budgeted)
		fprintf(f, "up to %d samples per core within %d ms\n\n",
			res->samples, PROBE_BUDGET_MS);
	else
		fprintf(f, "%d sample%s per core\n\n", res->samples,
			res->samples == 1 ? "" : "s");
	/* big.LITTLE: a class column (class and the kernel's capacity),
	 * only where the cores differ. */
	for (i = 0; i < res->ncores; i++)
		if (cpu_class_name(res->cores[i].cls))
			classes = true;
	fprintf(f, "%4s", "core");
	if (classes)
		fprintf(f, " %-11s", "class");
	fprintf(f, " %10s %10s %8s %12s %12s  %s\n", "fb ms", "RAM ms",
		"fb/RAM", "fb ms/frame", "RAM ms/frame", "verdict");
	for (i = 0; i < res->ncores; i++) {
		const struct probe_core *c = &res->cores[i];
		char core[16], cls[16];

		if (c->cpu < 0)
			snprintf(core, sizeof(core), "any");
		else
			snprintf(core, sizeof(core), "%d", c->cpu);
		fprintf(f, "%4s", core);
		if (classes) {
			if (cpu_class_name(c->cls))
				snprintf(cls, sizeof(cls), "%s %d",
					 cpu_class_name(c->cls), c->capacity);
			else
				snprintf(cls, sizeof(cls), "-");
			fprintf(f, " %-11s", cls);
		}
		if (!probe_measured(c)) {
			fprintf(f, " %10s %10s %8s %12s %12s  %s\n", "-", "-",
				"-", "-", "-",
				verdict(res, c, vbuf, sizeof(vbuf)));
			continue;
		}
		fprintf(f, " %10.3f %10.3f %7.1fx %12.2f %12.2f  %s\n",
			c->fb_ms, c->ram_ms, c->ratio, c->frame_ms,
			c->ram_frame_ms, verdict(res, c, vbuf, sizeof(vbuf)));
		if (c->frame_ms > maxf)
			maxf = c->frame_ms;
	}
	if (maxf > 0) {
		fprintf(f, "\nfull-frame framebuffer write, ms (shorter is "
			   "better):\n");
		for (i = 0; i < res->ncores; i++) {
			const struct probe_core *c = &res->cores[i];
			int k, bar;

			if (!probe_measured(c))
				continue;
			bar = (int)(c->frame_ms / maxf * 40 + 0.5);
			if (bar < 1)
				bar = 1;
			if (c->cpu < 0)
				fprintf(f, "%4s |", "any");
			else
				fprintf(f, "%4d |", c->cpu);
			for (k = 0; k < bar; k++)
				fputc('#', f);
			fprintf(f, " %.2f\n", c->frame_ms);
		}
	}
	fputc('\n', f);
	if (res->chosen >= 0)
		fprintf(f, "choice: core %d (%s)", res->chosen, res->reason);
	else if (res->pin_denied)
		fprintf(f, "choice: none, the blit thread runs unpinned "
			   "(pinning: %s)",
			probe_pin_reason(res->pin_error, why, sizeof(why)));
	else
		fprintf(f, "choice: none (%s)", res->reason);
	if (res->main_cpu >= 0)
		fprintf(f, "; main thread on core %d", res->main_cpu);
	fprintf(f, "; probe took %.0f ms\n", res->elapsed_ms);
	print_mapping(res, f);
	if (configured_cpu >= 0) {
		if (platform_cpu_online(configured_cpu)) {
			fprintf(f, "configured: core %d (--cpu or config) "
				   "overrides the choice\n",
				configured_cpu);
		} else {
			char on[128];

			probe_online_list(on, sizeof(on));
			fprintf(f, "configured: core %d, which is offline or "
				   "not allowed (online cores: %s); a session "
				   "would refuse it\n",
				configured_cpu, on);
		}
	}
}

static const char *state_name(enum probe_state s)
{
	switch (s) {
	case PROBE_OFFLINE:
		return "offline";
	case PROBE_MEASURED:
		return "measured";
	case PROBE_STOPPED:
		return "stopped-early";
	case PROBE_PIN_FAILED:
		return "pin-failed";
	}
	return "?";
}

static void print_json_memtype(const struct probe_result *res, FILE *f)
{
	const struct memtype *mt = &res->memtype;

	if (res->phys_len)
		fprintf(f, "  \"video_memory\": {\"start\": %" PRIu64
			   ", \"length\": %" PRIu64 "},\n",
			res->phys_start, res->phys_len);
	else
		fprintf(f, "  \"video_memory\": null,\n");
	fprintf(f, "  \"memtype\": ");
	if (memtype_known(res)) {
		fprintf(f, "{\"name\": ");
		json_write_string(f, mt->name);
		fprintf(f, ", \"mixed\": %s, \"partial\": %s}",
			mt->mixed ? "true" : "false",
			mt->partial ? "true" : "false");
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\n  \"memtype_note\": ");
	if (!memtype_known(res))
		json_write_string(f, res->memtype_why);
	else
		fprintf(f, "null");
}

void probe_print_json(const struct probe_result *res,
		      const struct output *out, int configured_cpu, FILE *f)
{
	char fbuf[64], warn[PROBE_WARNING_LEN];
	int i;

	fprintf(f, "{\n  \"output\": ");
	json_write_string(f, out->impl->name);
	fprintf(f, ",\n  \"width\": %u,\n  \"height\": %u,\n  \"format\": ",
		res->width, res->height);
	json_write_string(f, pixfmt_name(&out->fmt, fbuf, sizeof(fbuf)));
	fprintf(f,
		",\n  \"stripe_rows\": %u,\n  \"stripe_bytes\": %zu,\n"
		"  \"samples\": %d,\n  \"budgeted\": %s,\n"
		"  \"main_cpu\": %d,\n  \"pin_denied\": %s,\n"
		"  \"clock\": \"%s\",\n",
		res->stripe_rows, res->stripe_bytes, res->samples,
		res->budgeted ? "true" : "false", res->main_cpu,
		res->pin_denied ? "true" : "false",
		res->cpu_clock ? "thread-cpu" : "monotonic");
	if (res->chosen >= 0)
		fprintf(f, "  \"chosen\": %d,\n", res->chosen);
	else
		fprintf(f, "  \"chosen\": null,\n");
	fprintf(f, "  \"reason\": ");
	json_write_string(f, res->reason);
	fprintf(f, ",\n  \"configured_cpu\": ");
	if (configured_cpu >= 0)
		fprintf(f, "%d", configured_cpu);
	else
		fprintf(f, "null");
	fprintf(f, ",\n  \"warning\": ");
	if (probe_warning(res, warn, sizeof(warn)))
		json_write_string(f, warn);
	else
		fprintf(f, "null");
	fprintf(f, ",\n  \"uncached\": %s,\n  \"uncached_ratio\": %.1f,\n",
		probe_uncached(res) ? "true" : "false", PROBE_UNCACHED_RATIO);
	print_json_memtype(res, f);
	fprintf(f, ",\n  \"elapsed_ms\": %.3f,\n  \"cores\": [",
		res->elapsed_ms);
	for (i = 0; i < res->ncores; i++) {
		const struct probe_core *c = &res->cores[i];

		fprintf(f, "%s\n    {\"cpu\": %d, \"state\": \"%s\"",
			i ? "," : "", c->cpu, state_name(c->state));
		if (c->capacity > 0)
			fprintf(f, ", \"capacity\": %d", c->capacity);
		else
			fprintf(f, ", \"capacity\": null");
		if (cpu_class_name(c->cls))
			fprintf(f, ", \"class\": \"%s\"", cpu_class_name(c->cls));
		else
			fprintf(f, ", \"class\": null");
		if (c->state == PROBE_PIN_FAILED) {
			fprintf(f, ", \"error\": ");
			json_write_string(f, strerror(-c->pin_error));
		}
		if (probe_measured(c))
			fprintf(f,
				", \"ran_on\": %d, \"samples\": %d, "
				"\"fb_ms\": %.4f, \"ram_ms\": %.4f, "
				"\"ratio\": %.2f, \"frame_ms\": %.3f, "
				"\"sample_rows\": %u, "
				"\"ram_frame_ms\": %.3f, \"elapsed_ms\": %.2f, "
				"\"slow\": %s",
				c->ran_on, c->samples, c->fb_ms, c->ram_ms,
				c->ratio, c->frame_ms, c->sample_rows,
				c->ram_frame_ms,
				c->elapsed_ms, c->slow ? "true" : "false");
		if (probe_measured(c) && c->wall_clock)
			fprintf(f, ", \"clock\": \"monotonic\"");
		fputc('}', f);
	}
	fprintf(f, "\n  ]\n}\n");
}

const char *probe_pin_reason(int err, char *buf, size_t len)
{
	const char *hint = err == -EPERM || err == -EACCES ?
				   platform_pin_hint() : NULL;

	snprintf(buf, len, "%s%s%s", strerror(-err), hint ? "; " : "",
		 hint ? hint : "");
	return buf;
}
