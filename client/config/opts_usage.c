/* What vncfb says about itself: --help and --version. */
#include "config.h"

#include <stdio.h>

#include "config/opts.h"
#include "config/opts_priv.h"
#ifdef VNCFB_HAVE_H264
#include "decode/dec_h264.h"
#endif
#include "output/output.h"

/* Grouped as the man page's OPTIONS; tests/ship/docs.py keeps this, the
 * man page and the option tables in step. At most 80 columns. Long
 * because it is the text of --help: one printf a group, read as the
 * output it prints, which splitting would only scatter. */
void opts_usage(void)
{
	char specs[128];

	output_platform_specs(specs, sizeof(specs));
	printf("usage: vncfb [OPTIONS] HOST[:DISPLAY] | HOST::PORT | "
	       "[IPV6]:DISPLAY\n"
	       "       vncfb [OPTIONS] --config FILE   (FILE has a server = "
	       "line)\n"
	       "       vncfb --demo [OPTIONS]\n"
	       "       vncfb probe [-o SPEC] [--cpu auto|N] [--samples N] "
	       "[--json [FILE]]\n"
	       "       vncfb bench [-o SPEC] [--cpu auto|N|each] "
	       "[--workload NAME,...]\n"
	       "                   [--encodings LIST] [--duration SECS] "
	       "[--json FILE]\n"
	       "                   [--csv FILE] [HOST]\n"
	       "       vncfb bench --record FILE [--updates N] "
	       "[--exit-after SECS]\n"
	       "                   [-o mem:WxH:FORMAT] HOST\n"
	       "       vncfb bench --replay FILE [--repeat N] "
	       "[--serve PORT] [-o SPEC]\n"
	       "                   [--push requests|recorded|fast] "
	       "[--link RTT,RATE]\n"
	       "\n"
	       "Output:\n");
	if (*specs)
		printf("  -o, --output SPEC      %s\n"
		       "                         (default: the first that "
		       "opens), auto (the same,\n"
		       "                         else mem), or ",
		       specs);
	else
		printf("  -o, --output SPEC      ");
	printf("mem:WIDTHxHEIGHT[:FORMAT] (xrgb8888, ...)\n"
	       "      --connector NAME[,NAME...]\n"
	       "                         drm: the connector(s) to drive "
	       "(e.g. HDMI-A-1); several\n"
	       "                         show one desktop (-o drm:all: "
	       "every connected one)\n"
	       "      --layout \"NAME:X,Y ...\"\n"
	       "                         where each connector sits in the "
	       "desktop (default:\n"
	       "                         side by side in connector order)\n"
	       "      --mode WxH[@HZ]    drm: the mode to set (default: the "
	       "preferred one)\n"
	       "      --scale MODE       none (1:1, panned), fit (keep "
	       "aspect), fill (stretch),\n"
	       "                         or N, 1-16: zoom by N (pixel "
	       "replication; 1 is none)\n"
	       "      --remote-resize    ask a server that can for the "
	       "screen's size (the\n"
	       "                         default; --scale shows what it "
	       "refuses)\n"
	       "      --no-remote-resize leave the server's desktop its "
	       "size\n"
	       "      --cpu auto|N       core for the blit thread (auto: "
	       "the probe's choice)\n"
	       "      --decode-threads N threads decoding rectangles, 1-16 "
	       "(1: the main thread;\n"
	       "                         default auto: from the cores)\n"
	       "      --screenshot FILE  on exit (and on SIGUSR1) write what "
	       "the output shows\n"
	       "                         to FILE.ppm (binary PPM) or "
	       "FILE.png (PNG)\n"
	       "      --exit-after SECS  leave cleanly after SECS seconds\n"
	       "      --demo             show a built-in animated VNC "
	       "server\n"
	       "Connection:\n"
	       "      --server HOST      the server, as the HOST argument "
	       "(config: server =)\n"
	       "      --encodings LIST   in preference order, e.g. \"tight "
	       "zrle copyrect raw\"\n"
	       "      --quality N        allow lossy JPEG (tight) at quality "
	       "0-9 (without it or\n"
	       "                         --encodings: lossless while the "
	       "link carries it)\n"
	       "      --compress N       zlib level 0-9\n"
	       "      --passwd FILE      VNC password file (vncpasswd "
	       "format); else\n"
	       "                         $VNCFB_PASSWORD, else a prompt on "
	       "the terminal\n"
	       "      --no-reconnect     exit when the server goes away "
	       "(default: keep the\n"
	       "                         picture and retry, backing off to "
	       "30 s)\n"
	       "      --reconnect always retry a first connection that "
	       "fails too (kiosks)\n"
	       "      --timeout SECS     a server silent this long is pinged, "
	       "and dropped\n"
	       "                         when still silent as long again "
	       "(default 10);\n"
	       "                         a message must be complete within "
	       "it\n"
	       "Security:\n"
	       "      --ca FILE          CA certificates (PEM): only a "
	       "VeNCrypt X509 server\n"
	       "                         with a certificate they sign is "
	       "accepted\n"
	       "      --insecure         accept anonymous TLS (the server is "
	       "unverified; warned)\n"
	       "      --user NAME        started as root: become NAME after "
	       "opening the devices\n"
	       "                         (default nobody)\n"
	       "Input:\n"
	       "      --view-only        send no input\n"
	       "      --input DEV,...    input devices (default: all "
	       "keyboards and pointers)\n"
	       "      --keymap L[:V]     keyboard layout (default "
	       "$XKB_DEFAULT_LAYOUT or us)\n"
	       "      --server-cursor    let the server draw the cursor\n"
	       "      --touch-head NAME  tablets and touch screens point on "
	       "this connector's\n"
	       "                         screen (default: the whole "
	       "desktop, every head)\n"
	       "Configuration:\n"
	       "      --config FILE      read FILE instead of the user's "
	       "config file\n"
	       "      --check-config     check the config files and what a "
	       "run needs, list the\n"
	       "                         files read and their settings, "
	       "exit\n"
	       "probe and bench:\n"
	       "      --samples N        probe: timed samples per core "
	       "(1-1000)\n"
	       "      --json [FILE]      probe: the table as JSON, to FILE "
	       "(--json=FILE) or\n"
	       "                         standard output\n"
	       "      --json FILE        bench: write the results as JSON "
	       "(-: standard output)\n"
	       "      --csv FILE         bench: write the results as CSV "
	       "(-: standard output)\n"
	       "      --workload LIST    bench: fullframe,scroll,typing,idle,"
	       "fit (default all)\n"
	       "      --duration SECS    bench: time per configuration "
	       "(default 3)\n"
	       "      --record FILE      bench: save what HOST sends, for "
	       "--replay\n"
	       "      --updates N        --record: stop after N updates\n"
	       "      --replay FILE      bench: measure vncfb and the bare "
	       "loop on a recording\n"
	       "      --repeat N         --replay: plays per configuration "
	       "(default 3)\n"
	       "      --serve PORT       --replay: serve it to another "
	       "viewer on 127.0.0.1:PORT\n"
	       "      --push MODE        --replay: requests (default), "
	       "recorded or fast\n"
	       "      --link RTT,RATE    bench: through an emulated link "
	       "(60ms,50mbit)\n"
	       "\n"
	       "  -v, --verbose;  -q, --quiet;  -h, --help;  -V, --version\n"
	       "  TigerVNC's parameters work too (-ViewOnly, -PasswordFile "
	       "FILE, ...)\n"
	       "Config keys, hotkeys, TigerVNC parameters, environment and "
	       "exit status:\n"
	       "see vncfb(1).\n");
}

void opts_version(void)
{
	printf("vncfb %s (%s)\n", VNCFB_VERSION, VNCFB_SYSTEM);
	printf("built with libvncclient %s, zlib %s, libjpeg-turbo %s, "
	       "inflating with %s\n",
	       VNCFB_LIBVNC_VERSION, VNCFB_ZLIB_VERSION,
	       VNCFB_TURBOJPEG_VERSION, VNCFB_INFLATE);
#ifdef VNCFB_HAVE_H264
	printf("Open H.264 decoded by %s (software)\n", dec_h264_version());
#else
	printf("Open H.264: not built (no libavcodec)\n");
#endif
}
