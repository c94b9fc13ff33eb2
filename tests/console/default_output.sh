#!/bin/sh
# The default output and the drm output's errors without a device: no
# console at all is an error (exit 1, one line naming what is missing and
# the fix), never a silent fall-back to memory, except for --demo; a
# console that exists but cannot be opened is its error, for --demo too;
# the drm spec, --connector and --mode are checked as usage (exit 2), from
# the command line and from a config file.
. "$(dirname "$0")/expect.sh"

# expect_not REGEX: the last command's stderr does not match.
expect_not() {
	if grep -Eq "$1" "$tmp/err"; then
		echo "FAIL: stderr matches /$1/:"
		sed 's/^/  /' "$tmp/err"
		fail=1
	fi
}

# Port 1 on loopback: the output fails before any connection is tried.
if ls /dev/dri/card* >/dev/null 2>&1 || [ -e /dev/fb0 ]; then
	echo "note: this machine has a console output: the no-console" \
		"checks are left out" >&2
else
	nocons='^vncfb: no console output \(no /dev/dri/card\*; no /dev/fb0\); -o mem:WIDTHxHEIGHT draws into memory$'
	expect 1 "$nocons" "$VNCFB" 127.0.0.1::1
	expect_not 'drawing into memory|connect'
	expect 1 "$nocons" "$VNCFB" -o default 127.0.0.1::1
	expect 1 "$nocons" "$VNCFB" probe
	expect_not '^core|chosen'
	# The demo: memory, said once, and the picture is there.
	expect 0 'no console output \(no /dev/dri/card\*; no /dev/fb0\): the demo draws into memory' \
		"$VNCFB" --demo --exit-after 2 --screenshot "$tmp/demo.ppm"
	head -c 2 "$tmp/demo.ppm" 2>/dev/null | grep -q P6 ||
		{ echo "FAIL: the demo wrote no screenshot"; fail=1; }
	expect 1 '^vncfb: no DRM card \(/dev/dri/card\*\): is a KMS driver loaded\? -o fbdev uses a framebuffer device$' \
		"$VNCFB" -o drm 127.0.0.1::1
	# --mode asks for the drm output.
	expect 1 '^vncfb: no DRM card' "$VNCFB" --mode 800x600 127.0.0.1::1
fi

# A console that is there but does not open is its error, demo or not.
FRAMEBUFFER=/dev/null expect 1 '^vncfb: /dev/null is not a framebuffer device' \
	"$VNCFB" 127.0.0.1::1
FRAMEBUFFER=/dev/null expect 1 '^vncfb: /dev/null is not a framebuffer device' \
	"$VNCFB" --demo --exit-after 1
expect_not 'draws into memory'

# The drm output's own errors, each one line, exit 1.
expect 1 '^vncfb: /nonexistent/card7: no such device \(is a KMS driver loaded\? -o drm:DEVICE picks another card\)$' \
	"$VNCFB" -o drm:/nonexistent/card7 127.0.0.1::1
expect 1 '^vncfb: /dev/null: not a KMS display device' \
	"$VNCFB" -o drm:/dev/null 127.0.0.1::1
if root_only card0; then
	expect 1 "^vncfb: $tmp/card0: permission denied \(add the user to the 'video' group, then log in again\)$" \
		as_nobody "$tmp/vncfb" -o drm:"$tmp/card0" 127.0.0.1::1
	# The default's fbdev: the same for a user outside the group.
	FRAMEBUFFER="$tmp/card0" expect 1 "^vncfb: $tmp/card0: permission denied" \
		as_nobody "$tmp/vncfb" --demo --exit-after 1
fi

# Usage errors: exit 2, naming the value.
expect 2 "bad value 'drm:mode=800x600x' for -o" \
	"$VNCFB" -o drm:mode=800x600x 127.0.0.1::1
expect 2 "bad value 'drm:vsync=1' for -o" "$VNCFB" -o drm:vsync=1 127.0.0.1::1
expect 2 "bad value '800y600' for --mode: the drm output" \
	"$VNCFB" --mode 800y600 127.0.0.1::1
expect 2 "bad value '800x600' for --mode: --connector and --mode are for the drm output" \
	"$VNCFB" -o fbdev --mode 800x600 127.0.0.1::1
expect 2 "bad value 'HDMI-A-1' for --connector: --connector and --mode are for the drm output" \
	"$VNCFB" -o mem:640x480 --connector HDMI-A-1 127.0.0.1::1
printf 'output = fbdev\nmode = 1024x768\n' >"$tmp/bad.conf"
expect 2 "^vncfb: $tmp/bad.conf:2: mode = 1024x768: --connector and --mode are for the drm output" \
	"$VNCFB" --config "$tmp/bad.conf" --check-config
# A mode per connector: what is wrong with it named, from the command line
# and from a file.
expect 2 "bad value 'A:800x600 a:640x480' for --mode: the drm output: a mode for A given twice" \
	"$VNCFB" --mode 'A:800x600 a:640x480' 127.0.0.1::1
expect 2 "bad value '800x600 640x480' for --mode: the drm output: two modes for every head" \
	"$VNCFB" --mode '800x600 640x480' 127.0.0.1::1
expect 2 "bad value 'A:800y600' for --mode: the drm output: bad mode 'A:800y600'" \
	"$VNCFB" --mode 'A:800y600' 127.0.0.1::1
expect 2 "bad value 'A:800x600,B:640x480' for --mode: --mode's items are separated by blanks" \
	"$VNCFB" --mode 'A:800x600,B:640x480' 127.0.0.1::1
expect 2 "bad value 'C:800x600' for --mode: the drm output: a mode for C, which is not a connector named \(A, B\)" \
	"$VNCFB" --connector A,B --mode 'C:800x600' 127.0.0.1::1
expect 2 "bad value 'drm:all,mode=A:1x1 a:2x2' for -o: a mode for A given twice" \
	"$VNCFB" -o 'drm:all,mode=A:1x1 a:2x2' 127.0.0.1::1
printf 'connector = Virtual-1,Virtual-2\nmode = Virtual-3:800x600\n' >"$tmp/bad.conf"
expect 2 "^vncfb: $tmp/bad.conf:2: mode = Virtual-3:800x600: the drm output: a mode for Virtual-3, which is not a connector named \(Virtual-1, Virtual-2\)$" \
	"$VNCFB" --config "$tmp/bad.conf" --check-config
# Good keys: only the device is missing, named with the line that asked
# for it.
printf 'connector = Virtual-1\nmode = 1024x768@60\noutput = drm:/nonexistent/card1\n' >"$tmp/good.conf"
expect 2 "^vncfb: $tmp/good.conf:3: /nonexistent/card1: no such device" \
	"$VNCFB" --config "$tmp/good.conf" --check-config
printf 'connector = Virtual-1,Virtual-2\nmode = virtual-2:800x600 Virtual-1:1024x768@60\noutput = drm:/nonexistent/card1\n' >"$tmp/good.conf"
expect 2 "^vncfb: $tmp/good.conf:3: /nonexistent/card1: no such device" \
	"$VNCFB" --config "$tmp/good.conf" --check-config

if [ $fail = 0 ]; then
	echo "default output and drm errors: all passed"
fi
exit $fail
