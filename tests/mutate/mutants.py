"""The mutants of tests/mutate/mutate.py: small plausible bugs, one at a
time, each with the tests that should notice it.

M(name, file, original text, replacement, tests, may_live=None)

* original: exact text, found exactly once in the file (whitespace and
  all; Python's escapes: \\t, \\n). Matched by text, never by line, so
  the list survives code moving around; when the code changes, mutate.py
  says which mutant no longer applies and this list follows.
* tests: meson test names, or "suite:NAME"; the first that fails kills
  the mutant, so the most likely killer goes first. Keep them few: the
  run rebuilds only what they run.
* may_live: a mutant no test is expected to kill, with why (an
  equivalent mutant, a check that only trims work); it is reported as
  allowed, not as a survivor.

Add a mutant with every new check on network data: one that drops each
half of it, one off by one past the limit.
"""


class M:
    def __init__(self, name, file, orig, new, tests, may_live=None):
        assert orig != new, name
        self.name, self.file, self.orig, self.new = name, file, orig, new
        self.tests, self.may_live = tests, may_live


READER = "client/reader/rfbread.c"
CURSOR = "client/reader/rfbcursor.c"
BASIC = "client/decode/dec_basic.c"
TIGHT = "client/decode/dec_tight.c"
ZRLE = "client/decode/dec_zrle.c"
BOUNDS = ["unit-bounds_onesided", "unit-decode"]
RLE = ["unit-bounds_onesided", "unit-decode"]
CODECS = ["unit-bounds_codecs"]

MUTANTS = [
    # --- the reader: rectangles inside the desktop, its limits ---
    M("reader-rect-no-y", READER,
      "(uint64_t)h->x + h->w > r->width ||\n"
      "\t    (uint64_t)h->y + h->h > r->height)",
      "(uint64_t)h->x + h->w > r->width)", BOUNDS),
    M("reader-rect-no-x", READER,
      "(uint64_t)h->x + h->w > r->width ||\n"
      "\t    (uint64_t)h->y + h->h > r->height)",
      "(uint64_t)h->y + h->h > r->height)", BOUNDS),
    M("reader-rect-x-one-past", READER,
      "(uint64_t)h->x + h->w > r->width ||",
      "(uint64_t)h->x + h->w > r->width + 1 ||", BOUNDS),
    M("reader-rect-y-one-past", READER,
      "(uint64_t)h->y + h->h > r->height)",
      "(uint64_t)h->y + h->h > r->height + 1)", BOUNDS),
    M("reader-rect-y-at-limit", READER,
      "(uint64_t)h->y + h->h > r->height)",
      "(uint64_t)h->y + h->h >= r->height)", BOUNDS),
    M("reader-rect-x-no-w", READER,
      "(uint64_t)h->x + h->w > r->width ||",
      "(uint64_t)h->x > r->width ||", BOUNDS),
    M("reader-name-one-past", READER,
      "if (len > RFB_MAX_NAME)", "if (len > RFB_MAX_NAME + 1)", BOUNDS),
    M("reader-name-at-limit", READER,
      "if (len > RFB_MAX_NAME)", "if (len >= RFB_MAX_NAME)", BOUNDS),
    M("reader-cut-text-one-past", READER,
      "if (len > RFB_MAX_CUT_TEXT)", "if (len > RFB_MAX_CUT_TEXT + 1)",
      BOUNDS),
    M("reader-cut-text-at-limit", READER,
      "if (len > RFB_MAX_CUT_TEXT)", "if (len >= RFB_MAX_CUT_TEXT)", BOUNDS),
    M("reader-colour-map-one-past", READER,
      "if (first + n > 65536)", "if (first + n > 65537)", BOUNDS),
    M("reader-fence-payload-one-past", READER,
      "if (len > RFB_FENCE_MAX_PAYLOAD)\n\t\treturn fail(r,",
      "if (len > RFB_FENCE_MAX_PAYLOAD + 1)\n\t\treturn fail(r,", BOUNDS),
    M("reader-cursor-no-h", CURSOR,
      "if (w > RFB_MAX_CURSOR_READ || hh > RFB_MAX_CURSOR_READ)\n"
      "\t\treturn bad_rect(r, h, \"a cursor larger than %dx%d\",\n"
      "\t\t\t\tRFB_MAX_CURSOR_READ, RFB_MAX_CURSOR_READ);\n\tbody",
      "if (w > RFB_MAX_CURSOR_READ)\n"
      "\t\treturn bad_rect(r, h, \"a cursor larger than %dx%d\",\n"
      "\t\t\t\tRFB_MAX_CURSOR_READ, RFB_MAX_CURSOR_READ);\n\tbody",
      BOUNDS),
    M("reader-cursor-no-w", CURSOR,
      "if (w > RFB_MAX_CURSOR_READ || hh > RFB_MAX_CURSOR_READ)\n"
      "\t\treturn bad_rect(r, h, \"a cursor larger than %dx%d\",\n"
      "\t\t\t\tRFB_MAX_CURSOR_READ, RFB_MAX_CURSOR_READ);\n\tbody",
      "if (hh > RFB_MAX_CURSOR_READ)\n"
      "\t\treturn bad_rect(r, h, \"a cursor larger than %dx%d\",\n"
      "\t\t\t\tRFB_MAX_CURSOR_READ, RFB_MAX_CURSOR_READ);\n\tbody",
      BOUNDS),
    M("reader-cursor-alpha-no-h", CURSOR,
      "if (w > RFB_MAX_CURSOR_READ || hh > RFB_MAX_CURSOR_READ)\n"
      "\t\treturn bad_rect(r, h, \"a cursor larger than %dx%d\",\n"
      "\t\t\t\tRFB_MAX_CURSOR_READ, RFB_MAX_CURSOR_READ);\n"
      "\tif (rd(r, encb, 4) < 0)",
      "if (w > RFB_MAX_CURSOR_READ)\n"
      "\t\treturn bad_rect(r, h, \"a cursor larger than %dx%d\",\n"
      "\t\t\t\tRFB_MAX_CURSOR_READ, RFB_MAX_CURSOR_READ);\n"
      "\tif (rd(r, encb, 4) < 0)", BOUNDS),
    M("reader-hot-spot-no-y", CURSOR,
      "if (xhot >= w || yhot >= hh) {", "if (xhot >= w) {", BOUNDS),
    M("reader-hot-spot-x-one-past", CURSOR,
      "if (xhot >= w || yhot >= hh) {", "if (xhot > w || yhot >= hh) {",
      BOUNDS),
    M("reader-desktop-no-h", READER,
      "if (w > RFB_MAX_DIM || h > RFB_MAX_DIM) {",
      "if (w > RFB_MAX_DIM) {", BOUNDS),
    M("reader-desktop-one-past", READER,
      "if (w > RFB_MAX_DIM || h > RFB_MAX_DIM) {",
      "if (w > RFB_MAX_DIM + 1 || h > RFB_MAX_DIM + 1) {", BOUNDS),
    M("reader-desktop-empty-h", READER,
      "if (w == 0 || h == 0) {", "if (w == 0) {", BOUNDS),
    M("reader-desktop-bytes-at-limit", READER,
      "if (bytes > RFB_MAX_FB_BYTES) {", "if (bytes >= RFB_MAX_FB_BYTES) {",
      BOUNDS),

    # --- the decoders ---
    M("copyrect-src-no-y", BASIC,
      "if (sx + (uint32_t)j->r.w > c->fb.width ||\n"
      "\t    sy + (uint32_t)j->r.h > c->fb.height)",
      "if (sx + (uint32_t)j->r.w > c->fb.width)", BOUNDS),
    M("copyrect-src-no-x", BASIC,
      "if (sx + (uint32_t)j->r.w > c->fb.width ||\n"
      "\t    sy + (uint32_t)j->r.h > c->fb.height)",
      "if (sy + (uint32_t)j->r.h > c->fb.height)", BOUNDS),
    M("copyrect-src-x-one-past", BASIC,
      "sx + (uint32_t)j->r.w > c->fb.width ||",
      "sx + (uint32_t)j->r.w > c->fb.width + 1 ||", BOUNDS),
    M("copyrect-src-y-at-limit", BASIC,
      "sy + (uint32_t)j->r.h > c->fb.height)",
      "sy + (uint32_t)j->r.h >= c->fb.height)", BOUNDS),
    M("rre-sub-no-y", BASIC,
      "if (x + w > (uint32_t)j->r.w || y + h > (uint32_t)j->r.h)",
      "if (x + w > (uint32_t)j->r.w)", BOUNDS),
    M("rre-sub-no-x", BASIC,
      "if (x + w > (uint32_t)j->r.w || y + h > (uint32_t)j->r.h)",
      "if (y + h > (uint32_t)j->r.h)", BOUNDS),
    M("rre-sub-x-one-past", BASIC,
      "if (x + w > (uint32_t)j->r.w ||",
      "if (x + w > (uint32_t)j->r.w + 1 ||", BOUNDS),
    M("rre-sub-y-at-limit", BASIC,
      "y + h > (uint32_t)j->r.h)", "y + h >= (uint32_t)j->r.h)", BOUNDS),
    M("rre-sub-h-alone", BASIC,
      "y + h > (uint32_t)j->r.h)", "y > (uint32_t)j->r.h)", BOUNDS),
    M("rre-count-one-past", BASIC,
      "if (n > pixels)", "if (n > pixels + 1)", BOUNDS),
    M("hextile-sub-no-y", BASIC,
      "if (sx + sw > tw || sy + sh > th)", "if (sx + sw > tw)", BOUNDS),
    M("hextile-sub-no-x", BASIC,
      "if (sx + sw > tw || sy + sh > th)", "if (sy + sh > th)", BOUNDS),
    M("hextile-sub-full-tile-h", BASIC,
      "if (sx + sw > tw || sy + sh > th)",
      "if (sx + sw > tw || sy + sh > 16)", BOUNDS),
    M("hextile-sub-x-at-limit", BASIC,
      "if (sx + sw > tw || sy + sh > th)",
      "if (sx + sw >= tw || sy + sh > th)", BOUNDS),
    M("hextile-partial-row", BASIC,
      "uint32_t th = h - ty < 16 ? h - ty : 16;", "uint32_t th = 16;",
      BOUNDS),
    M("tight-palette-1bit-one-past", TIGHT,
      "if (v >= npal)", "if (v > npal)", BOUNDS),
    M("tight-palette-8bit-one-past", TIGHT,
      "if (max >= npal)", "if (max > npal)", BOUNDS),
    M("tight-nozlib-length", TIGHT,
      "if (nozlib && clen != h->datasize)", "if (nozlib && clen > h->datasize)",
      ["unit-decode"]),
    M("zrle-run-one-past", ZRLE,
      "if (n > left)", "if (n > left + 1)", RLE),
    M("zrle-reuse-packed", ZRLE,
      "if (sub == 127 && s->npal > 16)", "if (sub == 127 && s->npal > 17)",
      RLE),
    M("ultra-lzo-bound", "client/decode/dec_ultra.c",
      "if (len > lzo_bound(raw))", "if (len > lzo_bound(raw) + 1024)",
      BOUNDS),
    M("ultra-lzo-bound-at-limit", "client/decode/dec_ultra.c",
      "if (len > lzo_bound(raw))", "if (len >= lzo_bound(raw))", BOUNDS),

    # zlib: exactly the rectangle's bytes come out of the stream.
    M("zlib-room-one-more", "client/decode/dec_zlib.c",
      "ret = step(c, s, out + *got, n - *got, &k);",
      "ret = step(c, s, out + *got, n - *got + 1, &k);", BOUNDS),
    M("zlib-finish-lets-a-byte-more", "client/decode/dec_zlib.c",
      "\t\tif (got > 0)\n\t\t\treturn dec_bad(c, \"zlib data holds more",
      "\t\tif (got > 1)\n\t\t\treturn dec_bad(c, \"zlib data holds more",
      BOUNDS),
    M("zlib-rows-a-byte-short", "client/decode/dec_zlib.c",
      "if (got < row * h)", "if (got + 1 < row * h)", BOUNDS),

    # The sizes of images a library decodes into the shadow.
    M("jpeg-size-no-width", "client/decode/dec_jpeg.c",
      "if (ci->image_width != (JDIMENSION)r->w ||\n"
      "\t    ci->image_height != (JDIMENSION)r->h) {",
      "if (ci->image_height != (JDIMENSION)r->h) {", CODECS),
    M("jpeg-size-no-height", "client/decode/dec_jpeg.c",
      "if (ci->image_width != (JDIMENSION)r->w ||\n"
      "\t    ci->image_height != (JDIMENSION)r->h) {",
      "if (ci->image_width != (JDIMENSION)r->w) {", CODECS),
    M("h264-frame-no-height", "client/decode/dec_h264.c",
      "if (f->width < r->w || f->height < r->h)",
      "if (f->width < r->w)", CODECS),
    M("h264-frame-no-width", "client/decode/dec_h264.c",
      "if (f->width < r->w || f->height < r->h)",
      "if (f->height < r->h)", CODECS),
    M("h264-empty-no-rows", "client/decode/dec_h264.c",
      "if (len && (j->r.w == 0 || j->r.h == 0))",
      "if (len && j->r.w == 0)", CODECS),
    # Red and blue swapped in Open H.264's pictures on xrgb8888: what
    # bench_h264 --check now compares with the scene it encoded (it
    # checked no picture).
    M("h264-xrgb-red-blue", "client/decode/dec_h264.c",
      "{AV_PIX_FMT_BGR0, 32, 16, 8, 0, 8, 8, 8, false},",
      "{AV_PIX_FMT_RGB0, 32, 16, 8, 0, 8, 8, 8, false},", ["bench-h264"]),

    # --- what vncfb writes: the Fence's flags, big-endian ---
    M("send-fence-byte-order", "client/net/vnc_send.c",
      "m[4 + i] = (uint8_t)(flags >> (24 - 8 * i));",
      "m[4 + i] = (uint8_t)(flags >> (8 * i));", ["unit-vnc_send"]),

    # --- pacing and auto-select ---
    M("pace-stale-one-rtt", "client/net/pace.c",
      "a = p->sent[p->first] + 2 * p->rtt_ns + STALE_NS;",
      "a = p->sent[p->first] + p->rtt_ns + STALE_NS;", ["unit-link"]),
    M("pace-cap-lan-two", "client/net/pace.c",
      "if (p->rtt_ns < PACE_LAN_RTT_NS && c < 2)\n\t\treturn 2;",
      "if (p->rtt_ns < PACE_LAN_RTT_NS && c < 2)\n\t\treturn 1;",
      ["unit-link"]),
    M("pace-busy-share", "client/net/pace.c",
      "if (busy >= BUSY_SHARE && r > 0", "if (busy >= 1.0 && r > 0",
      ["unit-link"]),
    M("pace-q8-hysteresis", "client/net/pace.c",
      "else if (q == 8 && r < PACE_Q8_BPS / HYST)",
      "else if (q == 8 && r < PACE_Q8_BPS)", ["unit-link"]),
    M("pace-q8-up-hysteresis", "client/net/pace.c",
      "if (q < 8 && r > PACE_Q8_BPS * HYST)", "if (q < 8 && r > PACE_Q8_BPS)",
      ["unit-link"]),
    M("pace-slow-up-hysteresis", "client/net/pace.c",
      "else if (q == 2 && r > PACE_SLOW_BPS * HYST)",
      "else if (q == 2 && r > PACE_SLOW_BPS)", ["unit-link"]),
    M("pace-lossless-back", "client/net/pace.c",
      "} else if (r >= 2 * PACE_LOSSLESS_MIN_BPS) {",
      "} else if (r >= PACE_LOSSLESS_MIN_BPS) {", ["unit-link"]),
    M("pace-full-colour-back", "client/net/pace.c",
      "if (r > PACE_FULL_BPS) {", "if (r > PACE_SLOW_BPS) {", ["unit-link"]),

    # --- damage ---
    M("damage-no-rescan", "client/shadow/damage.c",
      "\t\t\tremove_at(s, i);\n\t\t\ti = 0;\n\t\t\tcontinue;",
      "\t\t\tremove_at(s, i);\n\t\t\tcontinue;", ["unit-damage"]),
    M("damage-merge-cost", "client/shadow/damage.c",
      "(rect_area(a) + rect_area(b)) * 5 / 4 + 4096;",
      "(rect_area(a) + rect_area(b)) * 4 + 4096;", ["unit-damage"]),

    # --- the view and the scaler ---
    M("view-fit-height-truncated", "client/view/view.c",
      "v->dh = (uint32_t)(((uint64_t)rh * sw + rw / 2) / rw);",
      "v->dh = (uint32_t)(((uint64_t)rh * sw) / rw);", ["scale-pixels"]),
    M("view-fit-width-truncated", "client/view/view.c",
      "v->dw = (uint32_t)(((uint64_t)rw * sh + rh / 2) / rh);",
      "v->dw = (uint32_t)(((uint64_t)rw * sh) / rh);", ["scale-pixels"]),
    M("scale-channel-truncated", "client/view/scale.c",
      "return ((v & 0xff) * max + 127) / 255;",
      "return ((v & 0xff) * max) / 255;", ["scale-pixels"]),

    # --- pixel formats: the converters' reference itself ---
    M("pixfmt-unpack-no-replicate", "client/shadow/pixfmt.c",
      "\twhile (pos > 0) {", "\twhile (pos > 8 - (int)bits) {",
      ["unit-pixconv", "unit-pixfmt"]),

    # --- config ---
    M("opts-off-not-false", "client/config/opts.c",
      "!strcasecmp(v, \"false\") || !strcasecmp(v, \"off\")",
      "!strcasecmp(v, \"false\")", ["unit-opts"]),
    M("opts-on-not-true", "client/config/opts.c",
      "!strcasecmp(v, \"true\") || !strcasecmp(v, \"on\")",
      "!strcasecmp(v, \"true\")", ["unit-opts"]),

    M("opts-int-above-range", "client/config/opts.c",
      "n < lo || n > hi)", "n < lo || n > hi + 1)", ["unit-opts"]),
    M("opts-int-below-range", "client/config/opts.c",
      "n < lo || n > hi)", "n < lo - 1 || n > hi)", ["unit-opts"]),
    M("opts-timeout-range", "client/config/opts.c",
      "F(timeout), 1, 3600,", "F(timeout), 1, 36000,", ["unit-opts"]),
    M("opts-samples-range", "client/config/opts.c",
      "F(samples), 1, 1000,", "F(samples), 0, 1000,", ["unit-opts"]),
    M("opts-cpu-range", "client/config/opts.c",
      "opts_parse_int(v, 0, 4095, &n)", "opts_parse_int(v, 0, 4096, &n)",
      ["unit-opts"]),

    # --- passwords ---
    M("passwd-not-regular", "client/net/passwd.c",
      "if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {",
      "if (fstat(fd, st) < 0) {", ["unit-passwd"]),
    M("passwd-group-readable", "client/net/passwd.c",
      "if (st->st_mode & 077) {", "if (st->st_mode & 007) {", ["unit-passwd"]),

    # --- logging: no control character reaches the terminal ---
    M("log-lets-del-through", "client/util/log.c",
      "if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f) {",
      "if ((unsigned char)buf[i] < 0x20) {", ["unit-log-C"]),
    M("log-lets-us-through", "client/util/log.c",
      "if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f) {",
      "if ((unsigned char)buf[i] < 0x1f || buf[i] == 0x7f) {",
      ["unit-log-C"]),

    # --- remote resize ---
    M("remote-resize-id-of-another-head", "client/app/remote_resize.c",
      "if (!id_taken(sv->screens, sv->n, id) &&\n"
      "\t\t\t    !id_taken(out, i, id)) {",
      "if (!id_taken(sv->screens, sv->n, id)) {", ["unit-remote_resize"]),
    M("remote-resize-id-of-the-server", "client/app/remote_resize.c",
      "if (!id_taken(sv->screens, sv->n, id) &&\n"
      "\t\t\t    !id_taken(out, i, id)) {",
      "if (!id_taken(out, i, id)) {", ["unit-remote_resize"]),
    M("remote-resize-count-of-screens", "client/app/remote_resize.c",
      "\tif (sv->n != rr->nheads)\n\t\treturn false;\n", "",
      ["unit-remote_resize"]),

    # --- security ---
    M("security-anonymous-tls", "client/net/sectype.c",
      "if ((got & SEC_ANON) && !insecure && !anon_named)",
      "if ((got & SEC_ANON) && insecure && !anon_named)",
      ["unit-trust", "tls"]),
    M("tls-verified-whatever-the-status", "client/net/tlsguard.c",
      "if (ret == 0 && status == 0) {", "if (ret == 0) {", ["tls"]),
    M("tls-verification-skipped-always", "client/net/tlsguard.c",
      "if (g && g->skip_verify)\n\t\tfunc = accept_unverified;",
      "if (g)\n\t\tfunc = accept_unverified;", ["tls"]),
    M("security-ca-needs-x509", "client/net/sectype.c",
      "if (ca && !(got & SEC_X509) && !((got & SEC_ANON) && insecure))",
      "if (ca && !(got & SEC_X509) && !((got & SEC_ANON) && insecure) && "
      "false)", ["unit-trust", "login"]),

    # --- RSA-AES and the known-hosts store (issue 41's new checks) ---
    M("rsaaes-key-no-max", "client/net/rsaaes.c",
      "if (s->srv_bits < KEY_MIN_BITS || s->srv_bits > KEY_MAX_BITS) {",
      "if (s->srv_bits < KEY_MIN_BITS) {", ["rsaaes-hostile"]),
    M("rsaaes-key-no-min", "client/net/rsaaes.c",
      "if (s->srv_bits < KEY_MIN_BITS || s->srv_bits > KEY_MAX_BITS) {",
      "if (s->srv_bits > KEY_MAX_BITS) {", ["rsaaes-hostile"]),
    M("rsaaes-mac-unchecked", "client/net/rsaaes.c",
      "if (memeql_sec(mac, want, RSAAES_MAC))",
      "if (memeql_sec(mac, want, 0))", ["unit-rsaaes", "rsaaes-hostile"]),
    M("eax-batch-chains-crossed", "client/net/eax_aesni.c",
      "f[i].x = s[nf + i];", "f[i].x = s[i];", ["unit-rsaaes", "rsaaes"]),
    M("rsaaes-keys-hash-unchecked", "client/net/rsaaes.c",
      "if (!memeql_sec(theirs, want, hlen)) {",
      "if (!memeql_sec(theirs, want, 0)) {", ["rsaaes-hostile"]),
    M("trust-changed-accepted", "client/net/trust.c",
      "if (memcmp(known, fp, TRUST_FP_LEN) == 0) {\n\t\t\tlog_debug",
      "if (memcmp(known, fp, 1) == 0) {\n\t\t\tlog_debug", ["unit-trust"]),
    M("trust-pin-unchecked", "client/net/trust.c",
      "if (trust_parse(o->pin, known) == 0 &&\n\t\t    memcmp(known, fp, TRUST_FP_LEN) == 0) {",
      "if (trust_parse(o->pin, known) == 0) {", ["unit-trust", "login"]),
]
