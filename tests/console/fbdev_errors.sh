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
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cp "$VNCFB" "$tmp/vncfb"
	chmod 755 "$tmp" "$tmp/vncfb"
	: >"$tmp/fb0"
	chmod 600 "$tmp/fb0"
	chgrp video "$tmp/fb0" 2>/dev/null
	expect 1 "^vncfb: $tmp/fb0: permission denied \(add the user to the 'video' group" \
		env HOME="$tmp" XDG_CONFIG_HOME="$tmp/none" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$tmp/vncfb" -o fbdev:"$tmp/fb0" 127.0.0.1::1
else
	echo "note: not root (or no setpriv): permission check left out" >&2
fi

if [ $fail = 0 ]; then
	echo "fbdev errors: all passed"
fi
exit $fail
