#!/usr/bin/env python3
"""Several VM scenarios in one boot: the cases of console_vm.py,
rotate_vm.py and drm_vm.py that need the same guest (the same vmrun.py
options), one after another in the guest, each checked on its own part
of the output and its own screendumps, with a PASS or FAIL line naming
it (console_vm.run_cases). A boot under TCG costs 10-30 s; a scenario
that shares one costs only its own time.

usage: boot_vm.py SCENARIO...   (console-CASE, rotate-CASE, drm-CASE)
Exit 0 when every scenario passes, 77 when qemu or a guest kernel is
absent, 1 otherwise.
"""
import sys

import console_vm
import drm_vm
import rotate_vm

SCENARIOS = {}
for prefix, mod in (('console', console_vm), ('rotate', rotate_vm),
                    ('drm', drm_vm)):
    SCENARIOS.update({'%s-%s' % (prefix, k): v for k, v in mod.CASES.items()})


def main(argv):
    bad = [a for a in argv if a not in SCENARIOS]
    if not argv or bad:
        print('usage: boot_vm.py SCENARIO... (%s)' % ' '.join(
            sorted(SCENARIOS)), file=sys.stderr)
        return 2
    return console_vm.run_cases('+'.join(argv),
                                [(a, SCENARIOS[a]) for a in argv])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
