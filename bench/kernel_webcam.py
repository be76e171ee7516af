"""A webcam through a real kernel, the longer run: part of ``python -m bench``'s ``kernel`` part, or alone:
``sudo .venv/bin/python -m bench.kernel_webcam [--kinds N] [--unplugs N]``.

Boots the kernel tier's VM with its webcam (tools/kernel/webcam.py: a UVC camera on vhci-hcd over
USB/IP, streaming generated scenes as MJPEG 640x480; tests/kernel/test_webcam.py is the short run in
CI), teaches it live with ``bornes enroll --camera`` (the kinds a hand needs, or every kind with
``--kinds 19``; the others from their flat faces, as the image is made), then plays a whole hand of
two players into ``bornes.service`` as installed: Anne reaches 700 with Right of Way and seven 100s
(tests/camera/test_emulator_hand.py's hand), the webcam unplugged every few plays, in turn with the
next card laid while it is away and with a card lying in the zone (not to be read again). Each card
waits for the referee's line; one not read within a minute is taken away and laid again (counted).
Prints the teaching time a kind, the time from a card laid to its play, the plays read at the first
showing, shown again, read as another kind, the stored record against the hand (lost or doubled),
the unplugs survived and the time back, the frames the camera streamed, and the qemu CPU seconds; it
asserts nothing. The load is printed beside them: under TCG the VM shares the host's cores with
whatever else runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.kernel.webcam import WebcamTable

BenchRow = tuple[str, str, str, bool | None]
#: Anne (A) reaches 700: Right of Way, then 100s; Bruno rolls and drives (tests/camera/test_emulator_hand.py).
HAND = ("RIGHTOFWAY", "D100", "ROLL", "D100", "D75", "D100", "D50", "D100", "D25", "D100", "D75", "D100", "D50",
        "D100")
RECORD = ("A play MB-RIGHTOFWAY-01", "A play MB-D100-01", "B play MB-ROLL-01", "A play MB-D100-02",
          "B play MB-D75-01", "A play MB-D100-03", "B play MB-D50-01", "A play MB-D100-04", "B play MB-D25-01",
          "A play MB-D100-05", "B play MB-D75-02", "A play MB-D100-06", "B play MB-D50-02", "A play MB-D100-07")
LOST, BACK = "bornes: reader lost: ", "bornes: reader back on webcam "
SHOWINGS = 3  # a card not read is laid again, up to this many times in all


@dataclass
class Measured:
    kinds: list[str] = field(default_factory=list)
    steps: dict[str, float] = field(default_factory=dict)
    teaching_s: float = 0.0
    taught_line: str = ""
    latencies: list[float] = field(default_factory=list)
    first_showing: int = 0
    shown_again: int = 0
    unread: int = 0
    wrong: int = 0
    stored: list[str] = field(default_factory=list)
    unplugs: int = 0
    survived: int = 0
    back_s: list[float] = field(default_factory=list)
    frames: int = 0
    streaming_s: float = 0.0
    cpu_s: float = 0.0
    seconds: float = 0.0
    load_before: float = 0.0
    load_after: float = 0.0
    accel: str = ""


class CannotMeasure(RuntimeError):
    """The machine cannot boot the tier's VM (not root, no qemu, no cached root and no network)."""


def measure(kinds: int = 6, unplugs: int = 3) -> Measured:
    from tools.camera_cards import KINDS
    from tools.kernel.table import CannotBoot, open_table, reader_config, why_not
    from tools.kernel.vm import TCG_CPU_NO_AVX
    from tools.kernel.webcam import SHARE_TAG, Scenes, WebcamTable, camera_config, share, taught_from_pictures

    problem = why_not()
    if problem:
        raise CannotMeasure(problem)
    needed = list(dict.fromkeys(HAND))
    taught = needed + [kind for kind in KINDS if kind not in needed][:max(0, kinds - len(needed))]
    config = reader_config("05e0:1200", extra="dealer = 1\n" + camera_config())
    found = Measured(kinds=taught, load_before=os.getloadavg()[0])
    started = time.monotonic()
    with share() as folder:
        scenes = Scenes(folder, seed=4141)
        try:
            table = open_table(WebcamTable, shares=((SHARE_TAG, folder),), tcg_cpu=TCG_CPU_NO_AVX,
                               prepare=taught_from_pictures(scenes, config))
        except CannotBoot as error:
            raise CannotMeasure(str(error)) from None
        try:
            found.accel = table.vm.accel
            table.start_webcam(scenes)
            table.plug_webcam()
            table.plug("scanner")
            table.vm.run("sh", "-c", "cat > /etc/bornes/config.toml", input=config)
            begun = time.monotonic()
            lines = table.enrol(taught)
            found.teaching_s = time.monotonic() - begun
            found.taught_line = next((line for line in lines if line.startswith("Taught:")), "")
            _play_hand(table, found, unplugs, config)
        finally:
            found.steps = dict(table.figures)
            found.cpu_s = table.vm.cpu_seconds()
            table.close()
    found.seconds = time.monotonic() - started
    found.load_after = os.getloadavg()[0]
    return found


def _play_hand(table: WebcamTable, found: Measured, unplugs: int, config: str) -> None:
    from tools.kernel.webcam import WebcamGame

    table.configure(config)
    table.wait_count(BACK, 0, timeout=300)
    table.hold(20)
    game = WebcamGame(table, HAND)
    game.start()
    streamed, frames = time.monotonic(), table.frames_sent()
    every = max(1, len(HAND) // (unplugs + 1)) if unplugs else len(HAND) + 1
    for number in range(len(HAND)):
        unplug = unplugs and number % every == every - 1 and found.unplugs < unplugs
        laid_away = bool(unplug) and found.unplugs % 2 == 0  # then, the next time, with the card lying there
        for showing in range(SHOWINGS):
            if laid_away and showing == 0:
                _replugged(table, found, game.plays[game.done].lying)
            try:
                said = game.lay(while_away=laid_away and showing == 0, timeout=60)
            except AssertionError:  # not read in a minute: taken away, laid again
                found.unread += 1
                table.show(game.plays[game.done].taken)
                table.hold(20)
                continue
            found.first_showing += showing == 0
            found.shown_again += showing > 0
            found.wrong += said != RECORD[number]
            break
        if unplug and not laid_away:
            _replugged(table, found, None)
            table.show(game.plays[game.done - 1].lying)  # the card still lying there (its scene counted afresh)
            table.hold(20)  # looked at for 20 frames: not to be read again
        game.take()
    found.latencies = game.latencies
    found.streaming_s = time.monotonic() - streamed
    found.frames = table.frames_sent() - frames
    found.stored = table.stored()


def _replugged(table: WebcamTable, found: Measured, scene: str | None) -> None:
    """The webcam unplugged (``scene`` shown meanwhile: the next card laid) and plugged back: the time until the
    referee has it again."""
    lost, back = table.count(LOST), table.count(BACK)
    found.unplugs += 1
    table.unplug_webcam()
    table.wait_count(LOST, lost, timeout=60)
    if scene is not None:
        table.show(scene)
    replugged = time.monotonic()
    table.plug_webcam()
    table.wait_count(BACK, back, timeout=180)
    found.back_s.append(time.monotonic() - replugged)
    found.survived += 1


def rows(kinds: int = 6, unplugs: int = 3, *, smoke: bool = False) -> list[BenchRow]:
    """The bench table's rows. A smoke run leaves it out (a second boot; tests/kernel/test_webcam.py runs the
    same machinery in CI)."""
    if smoke:
        return [("kernel tier: a webcam through the kernel", "not run in a smoke run (tests/kernel/test_webcam.py "
                 "runs it in CI)", "—", None)]
    try:
        found = measure(kinds, unplugs)
    except CannotMeasure as error:
        if os.environ.get("CI") == "true":
            raise
        return [("kernel tier: a webcam through the kernel", f"not measured: {error}", "—", None)]
    plays = len(HAND)
    lost_or_doubled = found.stored != list(RECORD)
    mean = sum(found.latencies) / len(found.latencies) if found.latencies else 0.0
    return [
        (f"kernel tier: a UVC webcam over USB/IP, Debian's kernel in qemu ({found.accel}), load "
         f"{found.load_before:.1f} before, {found.load_after:.1f} after",
         f"boot {found.steps.get('boot to running', 0.0):.0f} s; whole {found.seconds:.0f} s; qemu "
         f"{found.cpu_s:.0f} CPU s", "—", None),
        (f"  bornes enroll --camera, {len(found.kinds)} kinds live ({found.taught_line or 'no Taught line'})",
         f"{found.teaching_s:.0f} s ({found.teaching_s / max(1, len(found.kinds)):.0f} s a kind)", "—", None),
        (f"  a hand of {plays} plays: read at the first showing / shown again / never read / another kind",
         f"{found.first_showing} / {found.shown_again} / {found.unread} / {found.wrong}", "0 another kind",
         found.wrong == 0),
        ("  the game journal against the hand: a play lost or doubled", "yes" if lost_or_doubled else "none",
         "none", not lost_or_doubled),
        (f"  a card laid to its play, mean / max (s), at {found.frames / max(1.0, found.streaming_s):.1f} frames/s "
         "streamed", f"{mean:.1f} / {max(found.latencies, default=0.0):.1f}", "—", None),
        ("  unplugged mid-hand (a card laid meanwhile, or lying there): survived, back after (mean s)",
         f"{found.survived} of {found.unplugs}, {sum(found.back_s) / max(1, len(found.back_s)):.1f}",
         f"{found.unplugs} of {found.unplugs}", found.survived == found.unplugs),
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.kernel_webcam", description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", type=int, default=6, help="kinds taught live (default 6, the hand's; 19: all)")
    parser.add_argument("--unplugs", type=int, default=3, help="times the webcam is unplugged mid-hand (default 3)")
    args = parser.parse_args(argv)
    for name, measured, budget, met in rows(args.kinds, args.unplugs):
        print(f"{name:<100} {measured:<30} {budget:<16} {'' if met is None else 'yes' if met else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
