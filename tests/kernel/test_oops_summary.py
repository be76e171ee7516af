"""The kernel tier's report of a guest that died: the oops's cause and call trace, not only the panic's last
lines (a CI run's only words were "Kernel panic - not syncing: Fatal exception in interrupt"). No VM."""

from __future__ import annotations

import warnings

import pytest

from tools.kernel.vm import VM, EmulatorOopsWarning, GuestOops, oops_summary
from tools.trixie import CannotBoot

# The shape of a 6.12 oops on the serial console (the frames and addresses made up, the format the kernel's).
CONSOLE = """\
[  139.912345] bornes[612]: input MB-GASOLINE-02 Gasoline (#2): accepted
[  140.201234] BUG: kernel NULL pointer dereference, address: 0000000000000008
[  140.201500] #PF: supervisor read access in kernel mode
[  140.202400] Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI
[  140.202500] CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Not tainted 6.12.117+deb13-amd64 #1  Debian 6.12.117-1
[  140.202800] RIP: 0010:f_hidg_req_complete+0x2a/0x90 [usb_f_hid]
[  140.203000] Code: 48 8b 47 08 <48> 8b 40 08
[  140.204000] Call Trace:
[  140.204100]  <IRQ>
[  140.204200]  ? __die+0x23/0x70
[  140.204300]  ? page_fault_oops+0x174/0x4f0
[  140.204400]  dummy_timer+0x3b1/0x1250 [dummy_hcd]
[  140.204600]  call_timer_fn+0x27/0x130
[  140.204700]  </IRQ>
[  140.265994] PKRU: 55555554
[  140.266225] Kernel panic - not syncing: Fatal exception in interrupt
"""


def test_the_summary_names_the_fault_the_function_the_task_and_the_sure_frames() -> None:
    summary = oops_summary(CONSOLE)
    assert summary.startswith("BUG: kernel NULL pointer dereference, address: 0000000000000008; "), summary
    assert "RIP: 0010:f_hidg_req_complete+0x2a/0x90 [usb_f_hid]" in summary
    assert "Comm: swapper/1" in summary and "Kernel panic - not syncing: Fatal exception in interrupt" in summary
    assert summary.endswith("call trace: dummy_timer+0x3b1/0x1250 [dummy_hcd] < call_timer_fn+0x27/0x130"), summary


def test_a_console_without_an_oops_gives_nothing() -> None:
    assert oops_summary(CONSOLE.splitlines()[0] + "\n[  141.0] reboot: Power down\n") == ""


def test_an_oops_is_the_apparatus_s_when_its_innermost_module_is_the_test_s_usb_devices() -> None:
    oops = GuestOops("gone", oops_summary(CONSOLE))  # RIP in usb_f_hid, called from dummy_hcd's timer
    assert (oops.module, oops.apparatus) == ("usb_f_hid", True)
    in_core = CONSOLE.replace("RIP: 0010:f_hidg_req_complete+0x2a/0x90 [usb_f_hid]",
                              "RIP: 0010:_raw_spin_lock+0x5/0x20")
    assert GuestOops("gone", oops_summary(in_core)).module == "dummy_hcd"  # the first module its trace names
    on_the_pis_path = CONSOLE.replace("f_hidg_req_complete+0x2a/0x90 [usb_f_hid]", "hid_irq_in+0x1c/0x2a0 [usbhid]")
    assert (GuestOops("gone", oops_summary(on_the_pis_path)).apparatus) is False  # usbhid: a Pi runs it too
    nowhere = "\n".join(line for line in in_core.splitlines() if "[" + "dummy_hcd]" not in line)
    assert GuestOops("gone", oops_summary(nowhere)).apparatus is False  # no module named: not known to be ours


# The head of a real oops, from a CI run of ff75ea0 (the readers' module): a double fault taken with EFLAGS bits
# 22-31 set, which no x86 CPU sets: qemu's TCG state, corrupted at the cmpxchg16b of SLUB's fast path.
EMULATOR = """\
[  157.875513] traps: PANIC: double fault, error_code: 0x0
[  157.882958] Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI
[  157.884069] CPU: 0 UID: 0 PID: 1 Comm: systemd Not tainted 6.12.117+deb13-amd64 #1  Debian 6.12.117-1
[  157.884471] RIP: 0010:__kmalloc_cache_node_noprof+0x11a/0x320
[  157.886178] RSP: 0018:ff32a7e580013950 EFLAGS: d07b4242
[  157.893266] Call Trace:
[  157.894366]  <TASK>
[  157.898131]  mem_cgroup_css_alloc+0x2ce/0x720
[  157.898322]  cgroup_apply_control_enable+0x11d/0x340
[  157.906355] ---[ end trace 0000000000000000 ]---
"""


def test_an_oops_in_a_state_no_cpu_can_be_in_is_the_emulators() -> None:
    oops = GuestOops("gone", oops_summary(EMULATOR))
    assert "EFLAGS: d07b4242" in oops.summary, oops.summary
    assert (oops.module, oops.apparatus, oops.emulator) == (None, False, True)


def test_an_oops_with_flags_a_cpu_sets_is_not_the_emulators() -> None:
    for flags in ("00010246", "00000286", "00000002"):  # RF ZF PF IF; SF PF IF; only the fixed bit
        oops = GuestOops("gone", oops_summary(EMULATOR.replace("d07b4242", flags)))
        assert oops.emulator is False, flags
    assert GuestOops("gone", oops_summary(EMULATOR.replace("d07b4242", "00000244"))).emulator is True  # bit 1 clear
    assert GuestOops("gone", oops_summary(CONSOLE)).emulator is False  # no EFLAGS: not known to be the emulator's


# CI's boot that died (trimmed): sched_clock_cpu's static key flipped at late init, an int3 taken on CPU 0 at its
# site after the site was patched back to its two-byte NOP (66 90), so no handler claimed it.
STALE_INT3 = """\
[    5.796270] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    5.796770] CPU: 0 UID: 0 PID: 18 Comm: rcu_preempt Not tainted 6.12.117+deb13-amd64 #1  Debian 6.12.117-1
[    5.797065] RIP: 0010:sched_clock_cpu+0x9/0x1d0
[    5.800262] Code: 00 e9 b8 fe ff ff 66 66 2e 0f 90 90 90 f3 0f 1e fa 41 54 55 53 66 <90> e8 f1 fe f0 ff
[    5.800487] RSP: 0018:ff39b8abc009be00 EFLAGS: 00000002
[    5.801088] Call Trace:
[    5.802351]  <TASK>
[    5.803105]  update_rq_clock+0x35/0x1a0
[    5.803416]  __schedule+0x11a/0xbe0
[    5.812530]  </TASK>
[    5.813952] Kernel panic - not syncing: Fatal exception in interrupt
"""


def test_an_int3_whose_byte_the_text_no_longer_holds_is_the_emulators() -> None:
    oops = GuestOops("gone", oops_summary(STALE_INT3))
    assert "Code: " in oops.summary and "66 <90>" in oops.summary, oops.summary
    assert (oops.module, oops.apparatus, oops.emulator) == (None, False, True)
    # An int3 still in the text (a breakpoint left in the code, a CPU could trap on it) is not the emulator's,
    # nor is another trap at the same place.
    assert GuestOops("gone", oops_summary(STALE_INT3.replace("66 <90>", "cc <90>"))).emulator is False
    assert GuestOops("gone", oops_summary(STALE_INT3.replace("Oops: int3", "Oops: invalid opcode"))).emulator is False
    assert GuestOops("gone", oops_summary(STALE_INT3.replace(" <90>", " 90"))).emulator is False  # no RIP marked


class _ScriptedBoots(VM):
    """A VM whose boots are scripted: each ``_start`` takes the next console (None: it boots), no qemu."""

    def __init__(self, consoles: list[str | None]) -> None:  # none of VM's own: no image, no qemu
        self.consoles, self.boots, self.accel, self.process, self.agent = consoles, 0, "tcg", None, None
        self._pending, self._kept, self.console_now = b"", None, ""

    def _start(self, timeout: float) -> None:
        self.boots += 1
        self.console_now = self.consoles.pop(0) or ""
        if self.console_now:
            raise CannotBoot("the guest went away before its agent answered")

    def _why(self) -> tuple[str, str]:
        return "console.log: …", oops_summary(self.console_now)


def test_a_boot_the_emulator_killed_is_booted_once_more_and_any_other_is_not() -> None:
    vm = _ScriptedBoots([STALE_INT3, None])
    with pytest.warns(EmulatorOopsWarning, match="booted once more"):
        vm.start()
    assert vm.boots == 2
    for consoles in ([CONSOLE, None], [STALE_INT3, STALE_INT3, None]):  # the kernel's oops; the emulator's twice
        vm = _ScriptedBoots(list(consoles))
        with pytest.raises(CannotBoot), warnings.catch_warnings():
            warnings.simplefilter("ignore", EmulatorOopsWarning)
            vm.start()
        assert vm.boots == len(consoles) - 1
