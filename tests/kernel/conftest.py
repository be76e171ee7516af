"""The kernel tier's one allowance: a guest whose kernel oopsed in the test's own USB devices is booted again.

The tier plays a scanner, a keyboard and a keypad with ``dummy_hcd`` and the kernel's gadget functions
(``usb_f_hid``, ``usb_f_acm``): code a Pi at a table never runs, as it is the USB host of a real reader. A
CI run lost the readers' whole module to one oops there ("Fatal exception in interrupt", under load; four
runs of the module on their own did not show it again). So, for a table that can set itself up again
(``KernelTable.recoverable``), an oops whose innermost module is one of those (``GuestOops.apparatus``)
boots the VM again, sets the table up as the test found it, and runs the test once more, with a warning
that names the oops and where its console log was kept. So does an oops no CPU could give (``GuestOops.emulator``:
its saved EFLAGS has bits no x86 CPU sets, or it trapped on an int3 the kernel had already patched away; CI once
lost the readers' module to a double fault in PID 1's kmalloc with EFLAGS d07b4242, qemu's TCG at fault, not the
kernel; a boot that dies so is booted again by ``VM.start`` itself). An oops anywhere
else (usbhid, hid, evdev, the input core, cdc_acm: the referee's own path on a Pi), a second oops, or any other
failure fails as before.
"""

from __future__ import annotations

import warnings
from collections.abc import Generator

import pytest

from tools.kernel.table import KernelTable
from tools.kernel.vm import GuestOops


class GuestOopsWarning(UserWarning):
    """A test ran again on a new boot after an oops in the test's own USB devices."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    table = getattr(item, "funcargs", {}).get("table")
    if not isinstance(table, KernelTable) or not table.recoverable:
        return (yield)
    checkpoint = table.checkpoint()
    try:
        return (yield)
    except GuestOops as oops:
        if not (oops.apparatus or oops.emulator):
            raise
        where = (f"in {oops.module} (the test's USB devices)" if oops.apparatus else
                 "in a way no CPU could (the emulator's fault)")
        warnings.warn(GuestOopsWarning(f"{item.nodeid}: the guest's kernel oopsed {where}, so it was booted again "
                                       f"and the test run once more: {oops}"), stacklevel=1)
        table.recover(checkpoint)
        item.runtest()
        return None
