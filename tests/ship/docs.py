#!/usr/bin/env python3
"""The option tables of client/config/opts*.c, vncfb --help, the man page and the
example config say the same: every option in one is in the others, every
config key the code takes is in the man page's Keys and in the example,
and nothing more; the TigerVNC parameters of client/config/opts*.c are the rows
of the man page's TIGERVNC table; the mem formats of client/shadow/pixfmt.c are in
the man page; the page renders without warnings, from the source tree too,
and gets the build's paths when installed."""
import json
import os
import re
import subprocess
import sys
import tempfile

SRC = os.environ.get("VNCFB_SOURCE_ROOT") or sys.exit("VNCFB_SOURCE_ROOT?")
BUILD = os.environ.get("VNCFB_BUILD_ROOT") or sys.exit("VNCFB_BUILD_ROOT?")
VNCFB = os.environ.get("VNCFB") or os.path.join(BUILD, "vncfb")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def agree(code, doc, missing, extra):
    """Fail for each name of code missing from doc and each name of doc
    that code lacks; missing and extra are formats taking the name."""
    for n in sorted(code - doc):
        fail(missing.format(n))
    for n in sorted(doc - code):
        fail(extra.format(n))


def read(*path):
    with open(os.path.join(*path), encoding="utf-8") as f:
        return f.read()


def c_block(text, start):
    """The text of the brace-enclosed initializer that follows start."""
    i = text.index(start)
    j = text.index("};", i)
    return text[i:j]


# --- What the code takes -------------------------------------------------

# The options are split over client/config/opts*.c: each table is read from the
# file that declares it, and messages name that file.
OPTS = {f: read(SRC, "client", "config", f)
        for f in sorted(os.listdir(os.path.join(SRC, "client", "config")))
        if re.fullmatch(r"opts\w*\.c", f)}


def opts_file(start):
    """The client/config/opts*.c that has start, and its text."""
    for f, text in OPTS.items():
        if start in text:
            return "client/config/" + f, text
    fail(f"no client/config/opts*.c has '{start}': the tables moved?")
    return "client/config/opts*.c", start + "};"


# Long options and habit spellings: the names of aliases[], plus the flags
# opts_parse() matches as whole literals before the table ("--demo", "-h").
ALIAS_C, src = opts_file("static const struct alias aliases[]")
table = set(re.findall(r'\{\s*"([a-z][a-z-]*)"\s*,',
                       c_block(src, "static const struct alias aliases[]")))
PARSE_C, src = opts_file("int opts_parse(struct options")
flags = set(re.findall(r'"(--?[A-Za-z][a-z-]*)"', src))
options = table | {f.lstrip("-") for f in flags}
OPTIONS_C = ALIAS_C if ALIAS_C == PARSE_C else ALIAS_C + " and " + PARSE_C
KEYS_C, src = opts_file("keys[K_COUNT]")
keys = set(re.findall(r'\]\s*=\s*\{\s*"([a-z][a-z-]*)"',
                      c_block(src, "keys[K_COUNT]")))
formats = re.findall(r'\{\s*"([a-z0-9]+)"\s*,\s*\{',
                     c_block(read(SRC, "client", "shadow", "pixfmt.c"),
                             "static const struct named formats[]"))
# vncviewer's parameters, as spelled in tiger_params[].
TIGER_C, src = opts_file("static const struct tiger tiger_params[]")
tiger = set(re.findall(r'\{\s*"([A-Za-z][A-Za-z0-9]*)"\s*,\s*(?:true|false)',
                       c_block(src, "static const struct tiger "
                               "tiger_params[]")))
if len(options) < 30 or len(keys) < 15 or len(formats) < 4 or \
        len(tiger) < 20:
    fail(f"opts*.c/pixfmt.c parse found only {len(options)} options, "
         f"{len(keys)} keys, {len(formats)} formats, {len(tiger)} TigerVNC "
         "parameters: the tables moved?")
for k in sorted(keys - options):
    fail(f"config key '{k}' is not also a long option")

# An option as written: -o, --output, -passwd. Not inside words
# (write-combining, slow-cpu=N) and not a bare dash.
TOKEN = re.compile(r"(?<![\w\-$])(--?[A-Za-z][A-Za-z0-9-]*)")


def names(text):
    return {t.lstrip("-") for t in TOKEN.findall(text)}


# --- --help ---------------------------------------------------------------

help_text = subprocess.run([VNCFB, "--help"], capture_output=True,
                           text=True, check=True).stdout
for n, line in enumerate(help_text.splitlines(), 1):
    if len(line) > 80:
        fail(f"--help line {n} is {len(line)} columns: {line}")
agree(options, names(help_text) - (tiger - options),
      "option '{0}' of " + OPTIONS_C + " is not in --help",
      "--help names '-{0}' (or --{0}), which " + OPTIONS_C + " does not "
      "take")

# --- The man page ---------------------------------------------------------

man_src = read(SRC, "doc", "vncfb.1")


def plain(roff):
    """A roff line as text, near enough to find options and keys in."""
    roff = re.sub(r"\\f[BIRP]|\\f\(..|\\f\[[A-Z]*\]|\\&|\\%", "", roff)
    roff = roff.replace("\\-", "-").replace("\\(dq", '"')
    return re.sub(r"^\.[A-Z]{1,2}\b", "", roff).replace('"', " ")


sections = {}
name = None
for line in man_src.splitlines():
    m = re.match(r'^\.SH\s+"?([^"]*)"?\s*$', line)
    if m:
        name = m.group(1)
        sections[name] = []
    elif name:
        sections[name].append(line)
for sec in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS",
            "CONFIGURATION", "HOTKEYS", "ENVIRONMENT", "SIGNALS",
            "EXIT STATUS", "FILES", "PERMISSIONS", "EXAMPLES",
            "TIGERVNC COMPATIBILITY"]:
    if sec not in sections:
        fail(f"the man page has no {sec} section")


def tags(lines, after=None):
    """The tag lines of the .TP items (from the subsection after, if
    given)."""
    out, on = [], after is None
    for i, line in enumerate(lines):
        if after and line.startswith(".SS"):
            on = after in line
        if on and line.startswith(".TP") and i + 1 < len(lines):
            out.append(lines[i + 1])
    return out


opt_tags = tags(sections.get("OPTIONS", []))
in_man = set()
for t in opt_tags:
    in_man |= names(plain(t))
agree(options, in_man,
      "option '{0}' of " + OPTIONS_C + " has no item in the man page's "
      "OPTIONS",
      "the man page's OPTIONS documents '-{0}' (or --{0}), which " +
      OPTIONS_C + " does not take")
# Everywhere else an option is named, it must exist (examples: only
# vncfb's own command lines).
for sec, lines in sections.items():
    for line in lines:
        if line.startswith(".\\\""):
            continue
        if sec == "EXAMPLES" and not line.startswith(".B vncfb"):
            continue
        for o in sorted(names(plain(line)) - options - tiger):
            fail(f"the man page's {sec} names '-{o}', which is no option: "
                 f"{line}")

# The TigerVNC table: one parameter per row, first cell.
rows, on = set(), False
for line in sections.get("TIGERVNC COMPATIBILITY", []):
    if line.startswith(".TS"):
        on = True
    elif line.startswith(".TE"):
        on = False
    elif on and "|" in line:
        m = re.match(r"\s*(?:\\-)+([A-Za-z][A-Za-z0-9]*)\b",
                     line.split("|")[0])
        if m:
            rows.add(m.group(1))
agree(tiger, rows,
      "TigerVNC parameter '{0}' of " + TIGER_C + " has no row in the man "
      "page's TIGERVNC table",
      "the man page's TIGERVNC table has '{0}', which " + TIGER_C +
      " does not take")

key_tags = tags(sections.get("CONFIGURATION", []), after="Keys")
in_keys = set()
for t in key_tags:
    m = re.match(r"\s*([a-z][a-z-]*)", plain(t))
    if m:
        in_keys.add(m.group(1))
agree(keys, in_keys,
      "config key '{0}' of " + KEYS_C + " is not in the man page's "
      "CONFIGURATION Keys",
      "the man page's CONFIGURATION Keys has '{0}', which the config files "
      "do not take")

output_item = ""
for i, line in enumerate(sections.get("OPTIONS", [])):
    if line.startswith(".TP") and "output" in plain(
            sections["OPTIONS"][i + 1]):
        output_item = "\n".join(sections["OPTIONS"][i + 1:i + 40])
        break
for f in formats:
    if not re.search(rf"\b{f}\b", output_item):
        fail(f"mem format '{f}' of client/shadow/pixfmt.c is not in the man "
             "page's --output")

# --- The example config ---------------------------------------------------

example = set(re.findall(r"^#([a-z][a-z-]*) = ",
                         read(SRC, "doc", "vncfb.conf.example"), re.M))
agree(keys, example,
      "config key '{0}' is not in doc/vncfb.conf.example",
      "doc/vncfb.conf.example has '{0}', which is no config key")

# --- Rendering, from the source tree and installed ------------------------


def render(path):
    # -t: the TigerVNC table (the page says so on its first line for man).
    r = subprocess.run(["groff", "-t", "-ww", "-mandoc", "-Tutf8", "-P-cbou",
                        path],
                       capture_output=True, text=True)
    if r.returncode or r.stderr.strip():
        fail(f"groff on {path}: {r.stderr.strip()} (exit {r.returncode})")
    return r.stdout


text = render(os.path.join(SRC, "doc", "vncfb.1"))
if re.search(r"@[A-Z_]+@", man_src):
    fail("the source man page has @PLACEHOLDERS@; man -l shows them")
if "/usr/local/etc/vncfb.conf" not in text:
    fail("the source man page does not show a default build's "
         "/usr/local/etc/vncfb.conf")

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "vncfb.1")
    subprocess.run([sys.executable, os.path.join(SRC, "doc", "manpaths.py"),
                    os.path.join(SRC, "doc", "vncfb.1"), out,
                    "sysconfdir=/x/etc", "docdir=/x/doc", "version=9.9"],
                   check=True)
    text = render(out)
    for want in ["/x/etc/vncfb.conf", "/x/doc/vncfb.conf.example",
                 "vncfb 9.9"]:
        if want not in text:
            fail(f"doc/manpaths.py: the page does not show {want}")
    # The page names a default build's path once on purpose (where such
    # a build looks); every path of this build comes from a .ds string.
    with open(out, encoding="utf-8") as f:
        left = re.findall(r"^\.ds \w+ .*/usr/local.*$", f.read(), re.M)
    if left:
        fail(f"doc/manpaths.py left /usr/local in the page: {left}")
    if text.count("/usr/local") != 1:
        fail("the installed page names /usr/local %d times; once (a default "
             "build's system file) is meant" % text.count("/usr/local"))

try:
    intro = subprocess.run(["meson", "introspect", BUILD, "--buildoptions"],
                           capture_output=True, text=True, check=True)
    opt = {o["name"]: o["value"] for o in json.loads(intro.stdout)}
    sysconf = os.path.join(opt["prefix"], opt["sysconfdir"])
    built = read(BUILD, "doc", "vncfb.1")
    if f".ds sysconfdir {sysconf}\n" not in built:
        fail(f"build/doc/vncfb.1 does not have this build's sysconfdir "
             f"{sysconf}")
except (OSError, subprocess.CalledProcessError) as e:
    fail(f"meson introspect: {e}")

if failures:
    print(f"{len(failures)} problem(s)", file=sys.stderr)
    sys.exit(1)
print(f"docs: {len(options)} options, {len(keys)} config keys and "
      f"{len(formats)} mem formats agree in opts*.c, --help, vncfb.1 and "
      "the example config")
