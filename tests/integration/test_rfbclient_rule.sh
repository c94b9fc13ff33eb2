#!/bin/sh
# The design rule: only client/vnc.c includes rfb/rfbclient.h (one thread,
# one file owns libvncclient).
src=${VNCFB_SOURCE_ROOT:?}
bad=$(grep -rlE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]rfb/rfbclient\.h[>"]' \
	"$src/client" "$src/fbdev" "$src/netbsd" 2>/dev/null |
	sed "s|^$src/||" | grep -vx 'client/vnc.c')
if [ -n "$bad" ]; then
	echo "rfb/rfbclient.h is included outside client/vnc.c:" $bad
	exit 1
fi
grep -q 'rfb/rfbclient.h' "$src/client/vnc.c" || {
	echo "client/vnc.c no longer includes rfb/rfbclient.h: update this test"
	exit 1
}
echo "ok: only client/vnc.c includes rfb/rfbclient.h"
