#!/usr/bin/env python3
"""The layering of client/ (doc/design.md, "Parts"): every include of a
client header goes from a folder to one of its own or a lower layer's,
never up; no two modules (a .c and its .h) include each other, directly or
through others, in client/ and in each platform folder (fbdev/, netbsd/);
the data path never includes client/tools/, which only main.c and the
tools themselves include; fbdev/ and netbsd/ implement the platform
interface and see no higher layer than output/, console/ and the input
interface, and client/ includes none of their headers (only
client/platform/'s) and, in the build (compile_commands.json, its path
the first argument), has neither folder on its include path. Quoted and
angle-bracket includes count alike. doc/design.md's "Parts" table names
every file of each folder. Exit 0 when the tree keeps it, 1 naming each
include (or table row) that breaks it."""
import os
import re
import sys

import json
import shlex
import tempfile

SRC = os.environ.get("VNCFB_SOURCE_ROOT",
                     os.path.join(os.path.dirname(__file__), "..", ".."))

# Lowest first. A folder may include its own headers and those of any
# folder before it in this list, nothing after.
LAYERS = [
    "util",
    "platform",
    "input",
    "wire",
    "shadow",
    "decode",
    "reader",
    "net",
    "view",
    "output",
    "blit",
    "console",
    "placement",
    "config",
    "app",
    "tools",
]
# The platform folders sit beside client/: they implement what
# client/platform/ declares and may use these layers and no others.
PLATFORM_MAY = {"util", "platform", "input", "wire", "shadow", "view",
                "output", "console"}

# A private header (NAME_priv.h) is its folder's: no other folder includes
# it, but for these (the libvncclient wrapper's reference loop, which the
# rfbclient rule lists with the wrapper).
PRIV_OUTSIDE = {("tools/bench/bench_libvnc.c", "net/vnc_priv.h")}

# Quoted and angle-bracket includes alike: "app/session.h" and
# <app/session.h> find the same file (client/ is on the include path).
INC = re.compile(r'^\s*#\s*include\s+(["<])([^">]+)[">]', re.M)


def layer_of(path):
    """The layer a client header or source belongs to ("tools" for every
    tools/ subfolder), or None for main.c and non-client files."""
    parts = path.split("/")
    if len(parts) < 2:
        return None
    return parts[0]


def files(src, top):
    for r, _, fs in os.walk(os.path.join(src, top)):
        for f in sorted(fs):
            if f.endswith((".c", ".h")):
                p = os.path.join(r, f)
                yield os.path.relpath(p, os.path.join(src, top)), p


def includes(path):
    """Every header path path includes, quoted or in angle brackets."""
    with open(path, encoding="utf-8") as f:
        return [h for _, h in INC.findall(f.read())]


def quoted(path):
    """The quoted includes alone (a system header is never quoted)."""
    with open(path, encoding="utf-8") as f:
        return [h for q, h in INC.findall(f.read()) if q == '"']


def problems(src):
    """Every include of the tree at src that breaks the layering."""
    bad = []
    client_headers = {rel for rel, _ in files(src, "client")
                      if rel.endswith(".h")}
    # The platform folders' own headers ("drm/drm_card.h", "wscons.h"),
    # as included or by their bare names: client/ sees the platform only
    # through client/platform/.
    platform_headers = {n for top in ("fbdev", "netbsd")
                        for rel, _ in files(src, top) if rel.endswith(".h")
                        for n in (rel, os.path.basename(rel))}
    unknown = {layer_of(h) for h in client_headers} - set(LAYERS) - {None}
    if unknown:
        bad.append(f"client/ folders not in LAYERS: {sorted(unknown)}")
    rank = {n: i for i, n in enumerate(LAYERS)}
    # Module graph for the cycle check: client/decode/dec_zlib.c and
    # client/decode/dec_zlib.h are one module "decode/dec_zlib"; a private
    # header (net/vnc_priv.h, shared by the files of one part) and a
    # kernels' header (shadow/pixconv_kern.h) are their part's, "net/vnc".
    def module(path):
        return re.sub(r"_(priv|kern)$", "", path.rsplit(".", 1)[0])

    graph = {}
    for rel, p in files(src, "client"):
        mod = module(rel)
        src_layer = layer_of(rel)
        for h in includes(p):
            if h not in client_headers and h in platform_headers:
                bad.append(f"client/{rel}: includes \"{h}\", a header of "
                           "fbdev/ or netbsd/ (client/ sees only "
                           "platform/)")
                continue
        for h in includes(p):
            if h not in client_headers:
                if h in quoted(p) and "/" in h and not h.startswith(
                        ("rfb/", "sys/")):
                    bad.append(f"client/{rel}: includes \"{h}\", "
                               "which is no client header")
                continue
            dst_layer = layer_of(h)
            if module(h) != mod:
                graph.setdefault(mod, set()).add(module(h))
            if (h.endswith("_priv.h")
                    and os.path.dirname(h) != os.path.dirname(rel)
                    and (rel, h) not in PRIV_OUTSIDE):
                bad.append(f"client/{rel}: includes \"{h}\", private "
                           f"to client/{os.path.dirname(h)}/")
            if src_layer is None:
                continue  # main.c: the top
            if rank[dst_layer] > rank[src_layer]:
                bad.append(f"client/{rel}: includes \"{h}\": {src_layer}/ "
                           f"is below {dst_layer}/")
    for top in ("fbdev", "netbsd"):
        for rel, p in files(src, top):
            mod = top + "/" + module(rel)
            for h in includes(p):
                if h in client_headers and layer_of(h) not in PLATFORM_MAY:
                    bad.append(f"{top}/{rel}: includes \"{h}\": the "
                               "platform folders see only "
                               + ", ".join(sorted(PLATFORM_MAY)))
                # The folder's own headers, named from its top
                # ("drm/drm_card.h") or beside the file: modules of
                # the platform's graph, for the cycle rule.
                for cand in (h, os.path.join(os.path.dirname(rel), h)):
                    if os.path.isfile(os.path.join(src, top, cand)):
                        dst = top + "/" + module(os.path.normpath(cand))
                        if dst != mod:
                            graph.setdefault(mod, set()).add(dst)
                        break
    # Cycles between modules (Tarjan's strongly connected components).
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    for comp in sccs:
        bad.append("include cycle between modules: " + " <-> ".join(comp))
    return bad


def table_problems(src):
    """doc/design.md's "Parts" table against the tree: each folder's row
    names every .c file the folder has and no other, and every header
    with no .c of its own but a private one (NAME_priv.h)."""
    bad = []
    path = os.path.join(src, "doc", "design.md")
    if not os.path.exists(path):
        return ["doc/design.md is missing"]
    with open(path, encoding="utf-8") as f:
        rows = re.findall(r"^\| `([a-z/]+/)` \| ([^|]*) \|([^\n]*)$",
                          f.read(), re.M)
    seen = set()
    for folder, names, job in rows:
        d = os.path.join(src, "client", folder)
        seen.add(folder.rstrip("/"))
        if not os.path.isdir(d):
            bad.append(f"doc/design.md: no folder client/{folder}")
            continue
        have = set(os.listdir(d))
        listed = set(re.findall(r"`([a-z0-9_]+\.c)`", names))
        for c in sorted({f for f in have if f.endswith(".c")} - listed):
            bad.append(f"doc/design.md: client/{folder}{c} is not in "
                       "its folder's row")
        for c in sorted(listed - have):
            bad.append(f"doc/design.md: client/{folder}{c} is listed "
                       "but not there")
        for h in sorted(f for f in have if f.endswith(".h")
                        and f[:-2] + ".c" not in have
                        and not f.endswith("_priv.h")):
            if f"`{h}`" not in names + job:
                bad.append(f"doc/design.md: client/{folder}{h} (no .c "
                           "of its own) is not in its folder's row")
    for rel, _ in files(src, "client"):
        folder = os.path.dirname(rel)
        if folder and folder not in seen and folder != "tools":
            bad.append(f"doc/design.md: client/{folder}/ has no row")
            seen.add(folder)
    return bad


def path_problems(src, cc_path):
    """Every client/ source that the build (compile_commands.json at
    cc_path) compiles with a platform folder (fbdev/, netbsd/, or one of
    their subfolders, in the source tree or the build tree) on its
    include path: client/ reaches the platform through client/platform/
    alone, and the compiler, not only this script, should say so."""
    bad = []
    src = os.path.realpath(src)
    build = os.path.realpath(os.path.dirname(cc_path))
    with open(cc_path, encoding="utf-8") as f:
        entries = json.load(f)
    for e in entries:
        d = e.get("directory", build)
        path = os.path.realpath(os.path.join(d, e["file"]))
        rel = os.path.relpath(path, src)
        if not rel.startswith("client" + os.sep):
            continue
        args = e.get("arguments") or shlex.split(e["command"])
        dirs = []
        for i, a in enumerate(args):
            for flag in ("-I", "-iquote", "-isystem", "-idirafter"):
                if a == flag and i + 1 < len(args):
                    dirs.append(args[i + 1])
                elif a.startswith(flag) and len(a) > len(flag):
                    dirs.append(a[len(flag):])
        for inc in dirs:
            full = os.path.realpath(os.path.join(d, inc))
            for root in (src, build):
                r = os.path.relpath(full, root)
                if r.split(os.sep)[0] in ("fbdev", "netbsd"):
                    bad.append(f"{rel}: compiled with {inc} on its "
                               "include path (a platform folder)")
                    break
    return sorted(set(bad))


def self_test():
    """The check must be able to fail: a tree with an upward include, a
    cycle and a platform file reaching too high is refused on each."""
    tree = {
        "client/util/a.h": '#include "decode/d.h"\n',
        "client/decode/d.h": "",
        "client/decode/x.h": '#include "decode/y.h"\n',
        "client/decode/y.h": '#include "decode/x.h"\n',
        "client/app/s.h": '#include "decode/d_priv.h"\n',
        "client/decode/d_priv.h": "",
        "fbdev/f.c": '#include "app/s.h"\n',
        "fbdev/fpriv.h": "",
        "client/util/b.h": "#include <app/s.h>\n",
        "client/decode/e.c": '#include "fpriv.h"\n',
        "client/decode/g.c": '#include "drm/drm_card.h"\n',
        "fbdev/drm/drm.c": '#include "drm/drm_card.h"\n',
        "fbdev/drm/drm.h": "",
        "fbdev/drm/drm_card.c": '#include "drm/drm_card.h"\n',
        "fbdev/drm/drm_card.h": '#include "drm/drm.h"\n',
        "netbsd/ws.h": '#include "wsb.h"\n',
        "netbsd/wsb.h": '#include "ws.h"\n',
    }
    with tempfile.TemporaryDirectory() as d:
        for path, text in tree.items():
            os.makedirs(os.path.dirname(os.path.join(d, path)),
                        exist_ok=True)
            with open(os.path.join(d, path), "w") as f:
                f.write(text)
        os.makedirs(os.path.join(d, "doc"))
        with open(os.path.join(d, "doc", "design.md"), "w") as f:
            f.write("| `decode/` | `gone.c` | the decoders |\n")
        os.makedirs(os.path.join(d, "build"))
        cc = os.path.join(d, "build", "compile_commands.json")
        with open(cc, "w") as f:
            json.dump([{"directory": os.path.join(d, "build"),
                        "command": "cc -I../client -I../fbdev -c "
                                   "../client/decode/e.c",
                        "file": "../client/decode/e.c"},
                       {"directory": os.path.join(d, "build"),
                        "command": "cc -Ifbdev/drm -c ../fbdev/drm/drm.c",
                        "file": "../fbdev/drm/drm.c"}], f)
        got = "\n".join(problems(d) + table_problems(d)
                        + path_problems(d, cc))
    want = ["util/ is below decode/", "decode/x <-> decode/y",
            "fbdev/f.c: includes \"app/s.h\"",
            "private to client/decode/",
            "client/util/b.h: includes \"app/s.h\": util/ is below app/",
            "client/decode/e.c: includes \"fpriv.h\", a header of fbdev/",
            "client/decode/e.c is not in its folder's row",
            "client/decode/gone.c is listed but not there",
            "client/decode/x.h (no .c of its own) is not in",
            "client/app/ has no row",
            "client/decode/g.c: includes \"drm/drm_card.h\", a header of",
            "fbdev/drm/drm <-> fbdev/drm/drm_card",
            "netbsd/ws <-> netbsd/wsb",
            "client/decode/e.c: compiled with ../fbdev on its include"]
    missed = [w for w in want if w not in got]
    if missed:
        print("layering: the check missed", missed, "in its own bad tree:")
        print(got)
        return False
    return True


def main():
    if not self_test():
        return 1
    bad = problems(SRC) + table_problems(SRC)
    if len(sys.argv) > 1:
        bad += path_problems(SRC, sys.argv[1])
    for b in bad:
        print(b)
    if bad:
        print(f"layering: {len(bad)} problem(s)")
        return 1
    n = sum(1 for _ in files(SRC, "client"))
    print(f"ok: {n} files of client/ keep the layers "
          + " < ".join(LAYERS) + ", no module cycles; doc/design.md's "
          "table names every file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
