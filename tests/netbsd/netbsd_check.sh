#!/bin/bash
# Compile every netbsd/*.c and client/**/*.c as NetBSD 10 amd64 code against
# the real NetBSD headers: clang -target x86_64-unknown-netbsd10.0
# --sysroot=SYSROOT -fsyntax-only -Werror, with the flags the meson build
# uses.
#
# The sysroot (NetBSD 10.1's installed headers, no libraries) comes from
# $NETBSD_SYSROOT, else ~/.cache/netbsd-sysroot. Without one the test is
# skipped (77): it is made from a fetched NetBSD or Zig source snapshot,
# which a machine that reaches only Debian's archive cannot download
# (doc/netbsd.md). CI lays one beside the clone and .ci/run points
# NETBSD_SYSROOT at it.
#
# libvncserver, zlib, ISA-L, libjpeg, LZO, SASL and GnuTLS are not part of NetBSD's
# base headers: the rfb/, isa-l/, gnutls/ and lzo/ headers (and the zlib/sasl
# headers they include) are taken from the host, after the NetBSD ones
# (-idirafter), so the files that include them are checked against
# NetBSD's libc with Debian's libvncserver, ISA-L, GnuTLS and LZO headers.
set -u
src=${VNCFB_SOURCE_ROOT:?}
build=${VNCFB_BUILD_ROOT:?}

if [ "$(uname -s)" = NetBSD ]; then
	echo "SKIP: on NetBSD the build itself compiles against the real" \
		"headers" >&2
	exit 77
fi
command -v clang >/dev/null || {
	echo "netbsd_check: clang not installed (it is in .ci/packages)" >&2
	exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vncfb-nbcheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

sysroot=
if [ -n "${NETBSD_SYSROOT:-}" ]; then
	sysroot=$NETBSD_SYSROOT
elif [ -f "${XDG_CACHE_HOME:-$HOME/.cache}/netbsd-sysroot/usr/include/sys/param.h" ]; then
	sysroot=${XDG_CACHE_HOME:-$HOME/.cache}/netbsd-sysroot
else
	echo "SKIP: no NetBSD header sysroot (NETBSD_SYSROOT unset, none in" \
		"${XDG_CACHE_HOME:-$HOME/.cache}/netbsd-sysroot). It is made" \
		"from a fetched NetBSD or Zig source snapshot, which this" \
		"machine cannot download; see doc/netbsd.md." >&2
	exit 77
fi
[ -f "$sysroot/usr/include/sys/param.h" ] || {
	echo "netbsd_check: $sysroot is not a NetBSD sysroot (no usr/include/sys/param.h)" >&2
	exit 1
}
[ -f "$sysroot/usr/include/dev/wscons/wsconsio.h" ] || {
	echo "netbsd_check: $sysroot has no dev/wscons/wsconsio.h" >&2
	exit 1
}

# On NetBSD amd64 usr/include/machine is a link to amd64. A sysroot that
# came through a copy without symlinks (git with core.symlinks off) has a
# file naming the target instead: give clang the link, ahead of it.
links=()
inc=$sysroot/usr/include
if [ -f "$inc/machine" ] && [ ! -d "$inc/machine" ]; then
	target=$(head -c 64 "$inc/machine")
	[ -d "$inc/$target" ] || {
		echo "netbsd_check: $inc/machine is neither a folder nor a link" \
			"to one" >&2
		exit 1
	}
	mkdir -p "$tmp/links"
	ln -s "$inc/$target" "$tmp/links/machine"
	links=(-isystem "$tmp/links")
fi

# The compiler as NetBSD's would see the file. An undeclared function (a
# Linux-only or feature-macro-hidden call) is an error, as in newer clang.
nbcc() {
	clang -target x86_64-unknown-netbsd10.0 --sysroot="$sysroot" \
		-fsyntax-only -Wall -Wextra \
		-Werror=implicit-function-declaration -Werror=implicit-int \
		"${links[@]}" "$@"
}

# config.h as a NetBSD build would write it: the build's, with the
# platform switched.
mkdir -p "$tmp/conf" "$tmp/host"
sed -e 's/VNCFB_PLATFORM_LINUX/VNCFB_PLATFORM_NETBSD/' \
	-e 's/#define VNCFB_SYSTEM .*/#define VNCFB_SYSTEM "netbsd"/' \
	"$build/config.h" > "$tmp/conf/config.h" || exit 1
grep -q VNCFB_PLATFORM_NETBSD "$tmp/conf/config.h" || {
	echo "netbsd_check: could not make a NetBSD config.h from $build/config.h" >&2
	exit 1
}
for h in rfb zlib.h zconf.h sasl jpeglib.h jmorecfg.h jerror.h isa-l \
	turbojpeg.h gnutls lzo nettle; do
	[ -e "/usr/include/$h" ] && ln -s "/usr/include/$h" "$tmp/host/$h"
done
# libjpeg's jconfig.h, GMP's gmp.h (RSA-AES) and FFmpeg's headers (Open
# H.264) live in the multiarch directory on Debian.
for h in jconfig.h gmp.h libavcodec libavutil libswscale; do
	for d in /usr/include /usr/include/*-linux-gnu; do
		[ -e "$d/$h" ] && [ ! -e "$tmp/host/$h" ] &&
			ln -s "$d/$h" "$tmp/host/$h"
	done
done

flags=(-Werror -std=gnu11 -D_GNU_SOURCE -Wmissing-prototypes
	-Wstrict-prototypes -Wshadow -Wno-unused-parameter
	-Wno-missing-field-initializers -Wvla -Wformat=2
	-I"$tmp/conf" -I"$src/client" -I"$src/netbsd" -idirafter "$tmp/host")

# The check must be able to fail: Linux-only code is refused.
cat > "$tmp/linux_only.c" <<'C'
#include <sched.h>
#include <linux/fb.h>
int probe(void);
int probe(void) { return sched_getcpu() + FBIOGET_VSCREENINFO; }
C
if nbcc "${flags[@]}" "$tmp/linux_only.c" >/dev/null 2>&1; then
	echo "netbsd_check: Linux-only code passed the NetBSD check; the" \
		"sysroot at $sysroot is not NetBSD's" >&2
	exit 1
fi

fail=0
n=0
for f in "$src"/netbsd/*.c $(find "$src/client" -name "*.c" | sort); do
	# NEON kernels are AArch64's; this check compiles amd64 code.
	case $f in *_neon.c) continue ;; esac
	n=$((n + 1))
	if out=$(nbcc "${flags[@]}" "$f" 2>&1); then
		echo "pass ${f#$src/}"
	else
		echo "FAIL ${f#$src/}"
		echo "$out"
		fail=$((fail + 1))
	fi
done
echo "$((n - fail)) of $n files compile as NetBSD 10 amd64 code" \
	"(sysroot $sysroot)"
[ "$fail" -eq 0 ]
