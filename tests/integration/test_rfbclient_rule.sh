#!/bin/sh
# The design rule: one thread and one set of files own libvncclient. The
# wrapper is the files below: only they include rfb/rfbclient.h
# (vnc_priv.h does, for all of them but vnc_source.c, whose header
# vnc_priv.h includes) or vnc_priv.h, the header that holds
# struct vnc_client; every other file sees the connection only through
# client/net/vnc.h.
src=${VNCFB_SOURCE_ROOT:?}
wrapper='client/net/vnc_priv.h
client/net/vnc.c
client/net/vnc_failure.c
client/net/vnc_rsaaes.c
client/net/vnc_security.c
client/net/vnc_send.c
client/net/vnc_source.c
client/tools/bench/bench_libvnc.c'
status=0
# Files under the program's directories that include $1 (a header name,
# as a regular expression) but are not in the wrapper.
outside() {
	grep -rlE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]$1[>\"]" \
		"$src/client" "$src/fbdev" "$src/netbsd" 2>/dev/null |
		sed "s|^$src/||" | grep -vxF "$wrapper"
}
bad=$(outside 'rfb/rfbclient\.h')
if [ -n "$bad" ]; then
	echo "rfb/rfbclient.h is included outside the libvncclient wrapper:" $bad
	status=1
fi
bad=$(outside 'net/vnc_priv\.h')
if [ -n "$bad" ]; then
	echo "client/net/vnc_priv.h is included outside the libvncclient wrapper:" $bad
	status=1
fi
# The list stays honest: each listed file exists and is part of the
# wrapper, so a renamed or emptied file is noticed.
grep -qE '^#include <rfb/rfbclient\.h>' "$src/client/net/vnc_priv.h" || {
	echo "client/net/vnc_priv.h no longer includes rfb/rfbclient.h: update this test"
	status=1
}
for f in $wrapper; do
	[ "$f" = client/net/vnc_priv.h ] && continue
	grep -qE '^#include ("net/vnc_priv\.h"|<rfb/rfbclient\.h>)' "$src/$f" 2>/dev/null || {
		echo "$f is listed as the wrapper but includes neither vnc_priv.h nor rfb/rfbclient.h: update this test"
		status=1
	}
done
[ $status -eq 0 ] &&
	echo "ok: only the libvncclient wrapper (" $wrapper ") includes rfb/rfbclient.h and vnc_priv.h"
exit $status
