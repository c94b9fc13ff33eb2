#!/bin/bash
# meson install --destdir puts the binary, man page, example config and
# service files in place; the man page renders without warnings with the
# build's paths (docs.py checks what it says); the example config is
# accepted by vncfb itself; the rc.d script parses.
set -u
build=${VNCFB_BUILD_ROOT:?}
src=${VNCFB_SOURCE_ROOT:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

DESTDIR="$tmp/root" meson install -C "$build" --no-rebuild --quiet \
	>"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; bad "meson install"; exit 1; }
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
root="$tmp/root$prefix"
for f in bin/vncfb share/man/man1/vncfb.1 share/doc/vncfb/vncfb.conf.example \
	lib/systemd/system/vncfb@.service; do
	[ -s "$root/$f" ] || bad "not installed: $prefix/$f"
done
[ -x "$root/bin/vncfb" ] || bad "vncfb is not executable"
"$root/bin/vncfb" --version | grep -q 'libvncclient' || bad "--version lacks library versions"

man="$root/share/man/man1/vncfb.1"
grep -q '@[A-Z]*@' "$man" && bad "man page has unsubstituted @VARS@"
warn=$(groff -ww -z -mandoc "$man" 2>&1)
[ -z "$warn" ] || bad "groff warnings: $warn"
if command -v man >/dev/null; then
	warn=$(MANWIDTH=80 man --warnings -l "$man" 2>&1 >/dev/null)
	[ -z "$warn" ] || bad "man -l warnings: $warn"
fi
# What the page says (every option, key, section, the build's paths)
# docs.py checks.

# The example config, every key uncommented, is valid for vncfb itself.
ex="$root/share/doc/vncfb/vncfb.conf.example"
sed -n 's/^#\([a-z][a-z-]* = .*\)$/\1/p' "$ex" > "$tmp/all.conf"
keys=$(wc -l < "$tmp/all.conf")
[ "$keys" -ge 10 ] || bad "example config has only $keys keys"
# The drm output's own keys are checked with it, apart: no complaint about
# them (lines 1 and 2), whether or not this machine has a card (line 3).
grep -E '^(connector|mode) = ' "$tmp/all.conf" > "$tmp/drm.conf"
echo 'output = drm' >> "$tmp/drm.conf"
out=$(XDG_CONFIG_HOME="$tmp/xdg" "$root/bin/vncfb" --config "$tmp/drm.conf" --check-config 2>&1)
rc=$?
case "$out" in *drm.conf:[12]:*) rc=2 ;; *) rc=0 ;; esac
[ $rc -eq 0 ] && [ "$(grep -c . "$tmp/drm.conf")" -eq 3 ] ||
	bad "vncfb --check-config rejects the example's drm keys (exit $rc): $out"
sed -i -E '/^(connector|mode) = /d' "$tmp/all.conf"
# Keep the check off real devices and files: mem output, stand-ins for the
# files (--check-config looks into them: an 8-byte password file, a PEM
# certificate) and for the input devices (it opens them).
sed -i -e 's/^output = .*/output = mem:640x480/' \
	-e "s#^passwd = .*#passwd = $tmp/pw#" \
	-e "s#^password-file = .*#password-file = $tmp/pwtext#" \
	-e "s#^known-hosts = .*#known-hosts = $tmp/known_hosts#" \
	-e "s#^screenshot = .*#screenshot = $tmp/shot.ppm#" \
	-e "s#^input = .*#input = /dev/null#" \
	-e "s#^ca = .*#ca = $tmp/ca.pem#" "$tmp/all.conf"
printf '\001\002\003\004\005\006\007\010' > "$tmp/pw"; chmod 600 "$tmp/pw"
echo 'a password' > "$tmp/pwtext"; chmod 600 "$tmp/pwtext"
printf -- '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n' > "$tmp/ca.pem"
out=$(XDG_CONFIG_HOME="$tmp/xdg" "$root/bin/vncfb" --config "$tmp/all.conf" --check-config 2>&1)
rc=$?
[ $rc -eq 0 ] || bad "vncfb --check-config rejects the example (exit $rc): $out"
# ...and the check is real: a bad key is refused naming file and line.
printf 'cpu = auto\nno-such-key = 1\n' > "$tmp/bad.conf"
out=$(XDG_CONFIG_HOME="$tmp/xdg" "$root/bin/vncfb" --config "$tmp/bad.conf" --check-config 2>&1)
rc=$?
[ $rc -eq 2 ] || bad "bad config accepted (exit $rc)"
case "$out" in *bad.conf*2*no-such-key*|*bad.conf:2*) ;; *) bad "bad-config message does not name file, line, key: $out";; esac

sh -n "$build/dist/vncfb" || bad "rc.d script does not parse"
grep -q '^rcvar=' "$build/dist/vncfb" || bad "rc.d script lacks rcvar"

[ $fail -eq 0 ] && echo "install: all checks passed"
exit $fail
