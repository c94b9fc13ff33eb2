#!/usr/bin/env python3
"""The drm output against the fbdev emulation of the same driver (QEMU's
bochs VGA, bochs-drm) in one VM boot: the time from the end of a blit
pass to the picture in the display device, median and p99, and torn
updates (tests/vm/drmlat.c measures; doc/drm.md has the method and the
results).

usage: drm_latency.py [UPDATES [CAPTURES]]   (default 200, 100)
A benchmark (meson test --benchmark drm-latency): it prints numbers and
exits 0 when it measured, 77 without a VM, 1 when the guest failed.
"""
import os
import re
import subprocess
import sys

from vmskip import vm_run_or_skip


def quantile(v, q):
    """The q-quantile of sorted v, nearest rank."""
    return v[min(len(v) - 1, max(0, int(round(q * (len(v) - 1)))))]


def summary(name, lats, flips):
    ms = sorted(x / 1e6 for x in lats if x >= 0)
    lost = sum(1 for x in lats if x < 0)
    line = '%-6s updates %d, never seen %d: median %.2f ms, p99 %.2f ms, ' \
        'max %.2f ms' % (name, len(lats), lost, quantile(ms, 0.5),
                         quantile(ms, 0.99), ms[-1])
    fl = sorted(x / 1e6 for x in flips if x > 0)
    if fl:
        line += '; flip event after the pass: median %.2f ms, p99 %.2f ms' \
            % (quantile(fl, 0.5), quantile(fl, 0.99))
    print(line)
    return quantile(ms, 0.5)


def main():
    updates = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    captures = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    vmrun = vm_run_or_skip()
    build = os.environ['VNCFB_BUILD_ROOT']
    lat = os.path.join(build, 'tests', 'vm', 'drmlat')
    guest = '''
for o in drm fbdev; do
	echo "RUN $o"
	drmlat $o %d %d 2>&1
done
''' % (updates, captures)
    r = subprocess.run([vmrun, '-q', '--smp', '2', '--fb', 'bochs',
                        '--res', '1024x768', '--bin', lat, '--timeout', '900',
                        # The driver's BAR, read from user space.
                        '--append', 'iomem=relaxed',
                        '--cmd', guest], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, errors='replace')
    runs = {}
    cur = None
    for line in r.stdout.splitlines():
        m = re.match(r'RUN (\w+)', line)
        if m:
            cur = runs.setdefault(m.group(1), {'lat': [], 'flip': [],
                                               'tear': None})
            continue
        m = re.match(r'LAT (-?\d+) FLIP (-?\d+)', line)
        if m and cur is not None:
            cur['lat'].append(int(m.group(1)))
            cur['flip'].append(int(m.group(2)))
        elif line.startswith('TEAR') and cur is not None:
            cur['tear'] = line
    if set(runs) != {'drm', 'fbdev'} or not all(
            len(v['lat']) == updates for v in runs.values()):
        print(r.stdout)
        print(r.stderr, file=sys.stderr)
        print('FAIL: the guest did not measure both outputs')
        return 1
    med = {}
    for name in ('drm', 'fbdev'):
        med[name] = summary(name, runs[name]['lat'], runs[name]['flip'])
        print('%-6s %s' % (name, runs[name]['tear']))
    print('drm median / fbdev median: %.3f' % (med['drm'] / med['fbdev']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
