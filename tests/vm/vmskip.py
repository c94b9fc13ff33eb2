"""What every VM test needs first: ../shared/vm's vm-run.sh and qemu.
Without either the test skips (exit 77) and says which is missing."""
import os
import shutil
import sys


def vm_run_or_skip():
    """The path of vm-run.sh; exits 77 when it or qemu is absent."""
    vmrun = os.path.join(os.environ.get('VNCFB_SHARED', ''), 'vm',
                         'vm-run.sh')
    if not os.access(vmrun, os.X_OK):
        print('SKIP: no VM scripts at %s' % vmrun, file=sys.stderr)
        sys.exit(77)
    if not shutil.which('qemu-system-x86_64'):
        print('SKIP: qemu-system-x86_64 is not installed', file=sys.stderr)
        sys.exit(77)
    return vmrun
