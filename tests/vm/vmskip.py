"""What every VM test checks first: qemu and busybox-static installed and
a guest kernel at hand (cached, or fetched now from Debian's archive).
Without one of them the test skips (exit 77) and says which; then
vmrun.py's own first steps cannot fail for want of them."""
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vmkernel  # noqa: E402

VMRUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'vmrun.py')


def skip(why):
    print('SKIP: %s' % why, file=sys.stderr)
    sys.exit(77)


def vm_run_or_skip():
    """The path of vmrun.py; exits 77 when qemu, busybox or a kernel is
    not to be had."""
    if not shutil.which('qemu-system-x86_64'):
        skip('qemu-system-x86_64 is not installed (package qemu-system-x86)')
    busybox = os.environ.get('VNCFB_VM_BUSYBOX') or shutil.which('busybox')
    if not busybox:
        skip('busybox is not installed (package busybox-static)')
    try:
        # Fetched here, once, under the cache's lock: the test's own
        # boots then start at once.
        vmkernel.ensure(busybox, lambda msg: print('vmskip: ' + msg,
                                                   file=sys.stderr))
    except vmkernel.Unavailable as e:
        skip(str(e))
    return VMRUN
