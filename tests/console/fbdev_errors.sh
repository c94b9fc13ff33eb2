#!/bin/sh
# fbdev output errors without a framebuffer: a missing device, a device
# that is not a framebuffer, and permission denied (naming the group), each
# one line and exit status 1; --input with a bad device likewise.
. "$(dirname "$0")/expect.sh"

# Port 1 on loopback: the output fails before any connection is tried.
expect 1 '^vncfb: /nonexistent/fb7: no such device' \
	"$VNCFB" -o fbdev:/nonexistent/fb7 127.0.0.1::1
expect 1 '^vncfb: /dev/null is not a framebuffer device \(ioctl FBIOGET_FSCREENINFO' \
	"$VNCFB" -o fbdev:/dev/null 127.0.0.1::1
FRAMEBUFFER=/nonexistent/fb9 expect 1 '/nonexistent/fb9: no such device' \
	"$VNCFB" -o fbdev 127.0.0.1::1

# Permission denied: a root-only node seen by an unprivileged user.
if root_only fb0; then
	expect 1 "^vncfb: $tmp/fb0: permission denied \(add the user to the 'video' group" \
		as_nobody "$tmp/vncfb" -o fbdev:"$tmp/fb0" 127.0.0.1::1
fi

if [ $fail = 0 ]; then
	echo "fbdev errors: all passed"
fi
exit $fail
