#!/bin/bash
# Compile every netbsd/*.c and client/**/*.c as NetBSD 10 amd64 code against
# the real NetBSD headers (../shared/tools/netbsd-check.sh, clang
# -fsyntax-only -Werror), with the flags the meson build uses.
#
# The sysroot comes from, in this order: $NETBSD_SYSROOT; the default place
# netbsd-sysroot.sh writes to (~/.cache/netbsd-sysroot); a fresh one made in
# a temporary directory from $NETBSD_SYSROOT_GITDIR (a git dir holding a
# Zig or NetBSD src snapshot, see netbsd-sysroot.sh). Without any of them
# the test is skipped (77): the snapshot cannot be downloaded from CI,
# which reaches only Debian's package mirror.
#
# libvncserver, zlib, ISA-L, libjpeg, LZO, SASL and GnuTLS are not part of NetBSD's
# base headers: the rfb/, isa-l/, gnutls/ and lzo/ headers (and the zlib/sasl
# headers they include) are taken from the host, after the NetBSD ones
# (-idirafter), so the files that include them are checked against
# NetBSD's libc with Debian's libvncserver, ISA-L, GnuTLS and LZO headers.
set -u
src=${VNCFB_SOURCE_ROOT:?}
build=${VNCFB_BUILD_ROOT:?}
shared=${VNCFB_SHARED:-$src/../shared}
check=$shared/tools/netbsd-check.sh
mk=$shared/tools/netbsd-sysroot.sh

if [ "$(uname -s)" = NetBSD ]; then
	echo "SKIP: on NetBSD the build itself compiles against the real" \
		"headers" >&2
	exit 77
fi
[ -x "$check" ] || [ -f "$check" ] || {
	echo "netbsd_check: $check missing (../shared beside the source tree)" >&2
	exit 1
}
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
elif [ -n "${NETBSD_SYSROOT_GITDIR:-}" ]; then
	bash "$mk" -o "$tmp/sysroot" "$NETBSD_SYSROOT_GITDIR" >&2 || {
		echo "netbsd_check: netbsd-sysroot.sh failed on $NETBSD_SYSROOT_GITDIR" >&2
		exit 1
	}
	sysroot=$tmp/sysroot
else
	echo "SKIP: no NetBSD header sysroot. It is built by" \
		"netbsd-sysroot.sh from a fetched Zig/NetBSD source snapshot," \
		"which this machine cannot download; set NETBSD_SYSROOT (a" \
		"sysroot) or NETBSD_SYSROOT_GITDIR (a snapshot git dir)." >&2
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
export NETBSD_SYSROOT=$sysroot

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
	turbojpeg.h gnutls lzo; do
	[ -e "/usr/include/$h" ] && ln -s "/usr/include/$h" "$tmp/host/$h"
done
# libjpeg's jconfig.h lives in the multiarch directory on Debian.
for d in /usr/include /usr/include/*-linux-gnu; do
	[ -e "$d/jconfig.h" ] && [ ! -e "$tmp/host/jconfig.h" ] &&
		ln -s "$d/jconfig.h" "$tmp/host/jconfig.h"
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
if bash "$check" "${flags[@]}" "$tmp/linux_only.c" >/dev/null 2>&1; then
	echo "netbsd_check: Linux-only code passed the NetBSD check; the" \
		"sysroot at $sysroot is not NetBSD's" >&2
	exit 1
fi

fail=0
n=0
for f in "$src"/netbsd/*.c $(find "$src/client" -name "*.c" | sort); do
	n=$((n + 1))
	if out=$(bash "$check" "${flags[@]}" "$f" 2>&1); then
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
