#!/bin/sh
# Make (once) a Debian 12 sysroot for a cross build of vncfb: arm64 or armhf.
#
# Usage: mksysroot.sh ARCH   (ARCH: arm64 or armhf)
# Prints the sysroot's path on stdout, and writes PATH.ini beside it: the
# constant sysroot for the cross files (cross/ARCH.ini). Everything else
# goes to stderr.
#
# The sysroot is the target's own package set, never the build machine's:
# Debian 12's multiarch cannot hold the -dev packages of both (installing
# libisal-dev:arm64 removes libisal2:amd64). mmdebstrap lays bookworm's
# -dev packages that vncfb's build links against, with everything they
# depend on, for ARCH into $XDG_CACHE_HOME/vncfb-ARCH/sysroot (~/.cache by
# default). They are extracted, not configured (mmdebstrap's extract
# variant): a sysroot needs the files, and configuring would run every
# maintainer script of the base system under emulation (measured: over 20
# minutes on this 2-core machine, against about 2 for extracting). The
# mirror is the one apt is configured with here (read at run time from
# /etc/apt/sources.list*), so the sysroot comes from where the build
# machine's packages come from. binfmt_misc and qemu-user-static, which
# run the tests' ARCH programs (tests/cross/), are set up here too.
#
# Idempotent: a sysroot that was finished (its stamp names the same package
# list) is reused at once; a half-made one is removed and made again. A lock
# keeps two builds from making it at the same time.
#
# Exit: 0 with the path printed; 77 when it cannot be made here (no
# mmdebstrap, no binfmt_misc for ARCH, no mirror), with the reason on
# stderr; 1 when making it failed.
set -u

arch=${1:-}
case $arch in
arm64) qarch=aarch64 ;;
armhf) qarch=arm ;;
*) echo "usage: $0 arm64|armhf" >&2; exit 2 ;;
esac

# The -dev packages vncfb's meson.build asks pkg-config for, plus libc's.
pkgs="libc6-dev libvncserver-dev libgnutls28-dev libturbojpeg0-dev"
pkgs="$pkgs libjpeg62-turbo-dev zlib1g-dev libisal-dev libevdev-dev"
pkgs="$pkgs libxkbcommon-dev liblzo2-dev libdrm-dev libavcodec-dev"
pkgs="$pkgs libswscale-dev libavutil-dev nettle-dev libgmp-dev"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/vncfb-$arch
root=$cache/sysroot
stamp=$cache/sysroot.done
want="bookworm $arch extract $pkgs"

# The cross file's second half (cross/ARCH.ini): where the sysroot is.
write_ini() {
	printf "[constants]\nsysroot = '%s'\n" "$root" > "$root.ini.new" &&
		mv "$root.ini.new" "$root.ini"
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
	[ -d "$root/usr/include" ]; then
	write_ini || exit 1
	echo "$root"
	exit 0
fi

skip() {
	echo "mksysroot: cannot make the $arch sysroot: $*" >&2
	exit 77
}

command -v mmdebstrap > /dev/null ||
	skip "no mmdebstrap (Debian package mmdebstrap)"

# binfmt_misc runs the target's programs (the tests') through
# qemu-user-static. Root may mount and enable it; otherwise it must
# be there already.
bf=/proc/sys/fs/binfmt_misc
if [ ! -e "$bf/status" ] && [ "$(id -u)" -eq 0 ]; then
	mount -t binfmt_misc binfmt_misc "$bf" 2> /dev/null
fi
if [ ! -e "$bf/qemu-$qarch" ] && [ "$(id -u)" -eq 0 ] &&
	command -v update-binfmts > /dev/null; then
	update-binfmts --enable "qemu-$qarch" > /dev/null 2>&1
fi
[ -e "$bf/qemu-$qarch" ] && grep -q '^enabled' "$bf/qemu-$qarch" ||
	skip "binfmt_misc has no enabled qemu-$qarch (packages qemu-user-static, binfmt-support; as root: mount -t binfmt_misc binfmt_misc $bf; update-binfmts --enable qemu-$qarch)"

# The mirror apt uses here: the first "URIs:" (deb822) or "deb URL" line
# whose archive holds bookworm's main (not the security archive).
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
	/etc/apt/sources.list.d/*.list 2> /dev/null | awk '
	/^[ \t]*#/ { next }
	/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) {
		print $i; exit } }
	/^deb[ \t]/ { for (i = 2; i <= NF; i++) if ($i ~ /:\/\// &&
		$i !~ /security/) { print $i; exit } }')
[ -n "$mirror" ] || skip "no Debian mirror in /etc/apt/sources.list*"

mkdir -p "$cache" || exit 1
exec 9> "$cache/lock"
flock 9 || exit 1
# Another run may have finished it while this one waited for the lock.
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
	[ -d "$root/usr/include" ]; then
	write_ini || exit 1
	echo "$root"
	exit 0
fi
# A half-made one goes, unless something is still mounted inside it.
if grep -q " $root/" /proc/mounts 2> /dev/null; then
	echo "mksysroot: $root has mounts inside: not removing it" >&2
	exit 1
fi
rm -rf "$root" "$stamp"

echo "mksysroot: making the $arch sysroot in $root (once; minutes)" >&2
inc=$(echo "$pkgs" | tr ' ' ',')
if ! mmdebstrap --arch="$arch" --variant=extract --include="$inc" \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	bookworm "$root" "deb $mirror bookworm main" >&2 \
	2> "$cache/mmdebstrap.log"; then
	tail -n 20 "$cache/mmdebstrap.log" >&2
	echo "mksysroot: mmdebstrap failed; log in $cache/mmdebstrap.log" >&2
	rm -rf "$root"
	exit 1
fi
# The linker follows a library's symbolic links inside the sysroot: an
# absolute one (/lib/...) would lead to the build machine's files, so each
# becomes relative to where it sits.
find "$root/usr" "$root/etc/alternatives" -type l -lname '/*' 2> /dev/null |
	while read -r link; do
		target=$(readlink "$link")
		dir=$(dirname "$link")
		rel=$(realpath -m --relative-to="$dir" "$root$target") &&
			ln -sfn "$rel" "$link"
	done
write_ini || exit 1
echo "$want" > "$stamp"
echo "$root"
