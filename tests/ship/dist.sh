#!/bin/bash
# meson dist makes a tarball that configures and builds on its own.
set -u
src=${VNCFB_SOURCE_ROOT:?}
if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP: source tree is not a git checkout; meson dist needs one" >&2
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson setup "$tmp/b" "$src" >"$tmp/log" 2>&1 &&
	meson dist -C "$tmp/b" --no-tests --allow-dirty --formats gztar \
		>>"$tmp/log" 2>&1 || { tail -20 "$tmp/log" >&2; echo "FAIL: meson dist" >&2; exit 1; }
tarball=$(ls "$tmp"/b/meson-dist/vncfb-*.tar.gz 2>/dev/null | head -1)
[ -n "$tarball" ] || { echo "FAIL: no tarball" >&2; exit 1; }
mkdir "$tmp/x" && tar -xzf "$tarball" -C "$tmp/x" || exit 1
d=$(ls -d "$tmp"/x/vncfb-*)
for f in meson.build README.md client/net/vnc.c doc/vncfb.1; do
	[ -f "$d/$f" ] || { echo "FAIL: $f missing from the tarball" >&2; exit 1; }
done
meson setup "$tmp/b2" "$d" >"$tmp/log2" 2>&1 && ninja -C "$tmp/b2" -j2 vncfb >>"$tmp/log2" 2>&1 ||
	{ tail -20 "$tmp/log2" >&2; echo "FAIL: the tarball does not build" >&2; exit 1; }
"$tmp/b2/vncfb" --version >/dev/null || { echo "FAIL: built vncfb does not run" >&2; exit 1; }
echo "dist: $(basename "$tarball") builds on its own"
