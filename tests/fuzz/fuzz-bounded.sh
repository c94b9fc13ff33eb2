#!/bin/sh
# CI's bounded fuzz run without -Dfuzz: build the libFuzzer targets in a
# nested clang build of this source tree, then fuzz for SECONDS (the
# first argument, meson's fuzz_seconds, default 20; FUZZ_SECONDS
# overrides) in all: half the session target (harness.c, through vnc.c,
# libvncclient's handshake and vncfb's reader), half the reader target
# (reader.c, vncfb's own reader and decoders from memory); then the
# handshake for FUZZ_HANDSHAKE_SECONDS (default: half of SECONDS). Each
# run first replays every committed seed and regression case (libFuzzer's
# INIT, whatever the budget), then fuzzes for what is left of it.
# A long run by hand (doc/testing.md): FUZZ_SECONDS=1200 meson test -C
# build fuzz-bounded -t 10, or -Dfuzz_seconds=1200.
# Skips (77) only when clang or its libFuzzer runtime is not installed.
set -u
secs=${FUZZ_SECONDS:-${1:-20}}
hs_secs=${FUZZ_HANDSHAKE_SECONDS:-$(( (secs + 1) / 2 ))}
if ! command -v clang >/dev/null 2>&1; then
	echo "SKIP: clang not installed (package clang)" >&2
	exit 77
fi
probe=$(mktemp -d) || exit 1
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)
{ return 0; }' >"$probe/t.c"
if ! clang -fsanitize=fuzzer,address,undefined "$probe/t.c" \
	-o "$probe/t" 2>"$probe/err"; then
	cat "$probe/err" >&2
	echo "SKIP: clang has no libFuzzer runtime (package" \
		"libclang-rt-14-dev)" >&2
	exit 77
fi
nested=$VNCFB_BUILD_ROOT/fuzz-clang
if [ ! -f "$nested/build.ninja" ]; then
	CC=clang meson setup "$nested" "$VNCFB_SOURCE_ROOT" -Dfuzz=true \
		-Dfuzz_seconds="$secs" >"$probe/setup.log" 2>&1 || {
		cat "$probe/setup.log" >&2
		exit 1
	}
fi
ninja -C "$nested" -j2 tests/fuzz/fuzz_server tests/fuzz/fuzz_reader \
	tests/fuzz/fuzz_handshake \
	>"$probe/build.log" 2>&1 || {
	tail -n 40 "$probe/build.log" >&2
	exit 1
}
half=$(( (secs + 1) / 2 ))
sh "$VNCFB_SOURCE_ROOT/tests/fuzz/run-fuzz.sh" \
	"$nested/tests/fuzz/fuzz_server" "$half" "$nested/tests/fuzz" \
	corpus regress || exit 1
sh "$VNCFB_SOURCE_ROOT/tests/fuzz/run-fuzz.sh" \
	"$nested/tests/fuzz/fuzz_reader" "$half" "$nested/tests/fuzz" \
	reader-corpus || exit 1
exec sh "$VNCFB_SOURCE_ROOT/tests/fuzz/run-fuzz.sh" \
	"$nested/tests/fuzz/fuzz_handshake" "$hs_secs" "$nested/tests/fuzz" \
	handshake
