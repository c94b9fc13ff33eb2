/* The output spec the commands open, composed from -o, --connector and
 * --mode, and why a spec given is refused, in words. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/opts.h"
#include "config/opts_priv.h"
#include "output/output.h"
#include "shadow/pixfmt.h"

/* Append ",key=value" (or "key=value" right after the colon) to *spec. */
static int add_item(char **spec, const char *key, const char *value)
{
	size_t len = strlen(*spec);
	char *s;

	if (!value)
		return 0;
	if (asprintf(&s, "%s%s%s=%s", *spec, (*spec)[len - 1] == ':' ? "" : ",",
		     key, value) < 0)
		return -ENOMEM;
	free(*spec);
	*spec = s;
	return 0;
}

int opts_compose_output(struct options *o, const char **why)
{
	const char *given = o->output_arg;
	bool console = !given || !strcmp(given, "default") ||
		       !strcmp(given, "auto");
	/* The why of a refused mode, kept for the caller's message. */
	static char msg[16 + 256];
	char *spec = NULL, heads[512], *c;

	/* --connector A,B: the spec's items are comma-separated, its
	 * connectors A+B. */
	if (o->connector) {
		snprintf(heads, sizeof(heads), "%s", o->connector);
		for (c = heads; (c = strchr(c, ','));)
			*c = '+';
	}
	if (!o->connector && !o->drm_mode) {
		if (given || o->mode == MODE_DEMO)
			spec = strdup(given ? given : "auto");
		if ((given || o->mode == MODE_DEMO) && !spec)
			return -ENOMEM;
	} else {
		if (!console && (strncmp(given, "drm", 3) ||
				 (given[3] && given[3] != ':'))) {
			*why = "--connector and --mode are for the drm output "
			       "(-o drm)";
			return -EINVAL;
		}
		/* The spec's items are comma-separated: a comma in --mode
		 * would make the rest another item. */
		if (o->drm_mode && strchr(o->drm_mode, ',')) {
			*why = "--mode's items are separated by blanks "
			       "(\"HDMI-A-1:1920x1080 HDMI-A-2:1280x1024\")";
			return -EINVAL;
		}
		if (asprintf(&spec, "%s%s", console ? "drm" : given,
			     console || !given[3] ? ":" : "") < 0)
			return -ENOMEM;
		if (add_item(&spec, "connector", o->connector ? heads : NULL) <
		    0) {
			free(spec);
			return -ENOMEM;
		}
		if (output_check_spec(spec, msg, sizeof(msg)) < 0) {
			free(spec);
			*why = "the drm output (Linux) takes --connector "
			       "NAME[,NAME...] (e.g. HDMI-A-1, or "
			       "card1:HDMI-A-1 for card1's, each once) and "
			       "--mode [NAME:]WIDTHxHEIGHT[@HZ] ... (e.g. "
			       "1920x1080@60)";
			return -EINVAL;
		}
		if (add_item(&spec, "mode", o->drm_mode) < 0) {
			free(spec);
			return -ENOMEM;
		}
		/* The connectors are fine: what is wrong is the mode's. */
		if (output_check_spec(spec, msg + 16, sizeof(msg) - 16) < 0) {
			free(spec);
			memcpy(msg, "the drm output: ", 16);
			*why = msg;
			return -EINVAL;
		}
	}
	free(o->output);
	o->output = spec;
	return 0;
}

int opts_set_output_part(struct options *o, char **dst, const char *v,
			 const char **why)
{
	char *old = *dst, *s = strdup(v);
	int ret;

	if (!s)
		return -ENOMEM;
	*dst = s;
	ret = opts_compose_output(o, why);
	if (ret < 0) {
		*dst = old;
		free(s);
		return ret;
	}
	free(old);
	return 0;
}

/* The outputs of the platforms vncfb is built for, to tell a user who
 * names another platform's what this one has. */
static const struct {
	const char *name, *platform;
} foreign_outputs[] = {
	{ "drm", "Linux" },
	{ "fbdev", "Linux" },
	{ "wsdisplay", "NetBSD" },
};

const char *opts_output_why(const char *v)
{
	static char msg[384];
	char specs[128], names[128] = "", *end;
	size_t len = strcspn(v, ":"), i, n = 0;
	const char *name;
	unsigned long w, h;

	output_platform_specs(specs, sizeof(specs));
	if (len == 3 && !strncmp(v, "mem", 3)) {
		w = strtoul(v + 4, &end, 10);
		h = *end == 'x' || *end == 'X' ? strtoul(end + 1, NULL, 10) : 0;
		if (w > OUTPUT_MEM_MAX_DIM || h > OUTPUT_MEM_MAX_DIM) {
			snprintf(msg, sizeof(msg),
				 "a mem output is at most %ux%u",
				 OUTPUT_MEM_MAX_DIM, OUTPUT_MEM_MAX_DIM);
			return msg;
		}
		for (i = 0; (name = pixfmt_name_at(i)) && n < sizeof(names);
		     i++)
			n += (size_t)snprintf(names + n, sizeof(names) - n,
					      "%s%s", i ? ", " : "", name);
		snprintf(msg, sizeof(msg),
			 "expected mem:WIDTHxHEIGHT[:FORMAT][,slow-cpu=N]"
			 "[,uncached][,heads=N], sides 1-%u, FORMAT one of %s",
			 OUTPUT_MEM_MAX_DIM, names);
		return msg;
	}
	for (i = 0; i < sizeof(foreign_outputs) / sizeof(foreign_outputs[0]);
	     i++) {
		if (strlen(foreign_outputs[i].name) == len &&
		    !strncmp(foreign_outputs[i].name, v, len)) {
			snprintf(msg, sizeof(msg),
				 "%s is the %s console; this vncfb (%s) has "
				 "%s%smem:WIDTHxHEIGHT[:FORMAT]",
				 foreign_outputs[i].name,
				 foreign_outputs[i].platform, VNCFB_SYSTEM,
				 specs, *specs ? " and " : "");
			return msg;
		}
	}
	snprintf(msg, sizeof(msg),
		 "expected %s%smem:WIDTHxHEIGHT[:FORMAT] (FORMAT: xrgb8888, "
		 "rgb565, ...)",
		 specs, *specs ? " or " : "");
	return msg;
}
