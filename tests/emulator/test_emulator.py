"""``bornes run --emulate`` as a newcomer meets it: in a real terminal (tmux), with a pty as a USB scanner.

The terminal tests drive the real command inside tmux and read the screen back with
``tmux capture-pane``; the panel drawn in half blocks is decoded back into pixels and compared
with what the same inputs render in-process. Without tmux they skip, except under CI=true
where a missing tmux fails (``.ci/run`` installs it).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import struct
import subprocess
import sys
import termios
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bornes.drivers.events import KeyTyped
from bornes.firmware.appliance.console import input_words
from bornes.firmware.language.i18n import speaking
from bornes.firmware.screens.render import render
from bornes.firmware.table.flow import TableFlow
from bornes.firmware.table.present import screen
from tests.flow.helpers import drive

BORNES = [sys.executable, "-m", "bornes.firmware.cli"]
REPO = Path(__file__).resolve().parents[2]


def desktop_config(tmp_path: Path) -> Path:
    config = tmp_path / "desk.toml"
    config.write_text(
        '[display]\npanel = "ssd1306"\n[pins]\nfactory = "mock"\n'
        f'[state]\ndir = "{tmp_path / "state"}"\n'
        '[game]\nedition = "winning-moves"\nplayers = 2\nnames = ["Ann", "Chloé"]\n'
    )
    return config


def quiet_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER",
                                                             "PYGAME_HIDE_SUPPORT_PROMPT")}
    env.update(extra)
    return env


# -- plain standard input (a pipe): the words, help, no banners ---------------------------------


def test_the_input_words_are_printed_at_start_and_again_on_help(tmp_path: Path) -> None:
    done = subprocess.run([*BORNES, "run", "--emulate", "--config", str(desktop_config(tmp_path))],
                          input="help\nok\nMB-ROLL-02\nfly\n", capture_output=True, text=True, timeout=60,
                          cwd=REPO, env=quiet_env())
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("Type a card or a button, then Enter") == 2  # at start, and for `help`
    assert "ok  next  back  cf (coup fourré)  discard  undo" in out
    assert "Not a card or button: help" not in out
    assert "accepted Chloé: Roll (MB-ROLL-02)" in out  # the configured table started with one OK; names, not seats
    assert "accepted B " not in out
    assert "Not a card or button: fly" in out and "type help" in out
    assert "pygame" not in out + done.stderr  # no third-party banner


def test_a_french_table_speaks_french_on_the_console_too(tmp_path: Path) -> None:
    """``--lang FR`` as people write it: every line the console prints is French (issue 29: "accepted",
    "refused [unknown-card]", "referee up", the card kinds by their label codes alone), and the
    layout test label typed by hand is understood, not "Carte inconnue"."""
    done = subprocess.run([*BORNES, "run", "--emulate", "--lang", "FR", "--config", str(desktop_config(tmp_path))],
                          input="ok\nMB-ROLL-02\nMB-ROLL-09\nfly\nMB-LAYOUT-AZQWYM\nhelp\n", capture_output=True,
                          text=True, timeout=60, cwd=REPO, env=quiet_env())
    assert done.returncode == 0, done.stderr
    out = done.stdout
    logged = [line.removeprefix("bornes: ") for line in out.splitlines() if line.startswith("bornes: ")]
    assert "accepté\u00a0: Chloé\u00a0: Feu Vert (MB-ROLL-02)" in logged
    assert any(line.startswith("refusé\u00a0: ") for line in logged)
    assert "l'arbitre est prêt" in logged and logged[-1] == "arrêté"
    for english in ("accepted", "refused", "referee", "starting with", "control socket", "stopped"):
        assert not any(english in line for line in logged), (english, logged)
    assert "[bad-input]" not in out and "[unknown-card]" not in out
    assert "Carte inconnue" not in out and "Étiquette de test du clavier" in out
    assert "ROLL (Feu Vert)" in out and "OUTOFGAS (Panne d'Essence)" in out and "sortes" in out


def test_the_help_lines_up_its_columns_in_every_language() -> None:
    for language in ("en", "fr"):
        with speaking(language):
            lines = input_words("dujardin").splitlines()[1:]
        starts = {len(line) - len(line.lstrip()) for line in lines if line.startswith("   ")}
        label_ends = {len(line) - len(line[2:].split("  ", 1)[1].lstrip()) for line in lines if line[2] != " "}
        assert len(starts) == 1 and starts == label_ends, (language, lines)


def test_every_button_word_in_the_help_is_understood() -> None:
    words = input_words()
    for word in ("ok", "next", "back", "cf", "discard", "undo", "long ok", "seat1", "MB-ROLL-01"):
        assert word in words
    for held, meaning in (("long ok", "what the icons mean"), ("long back", "end a hand nobody can finish"),
                          ("long discard", "swap cards")):  # each held button says what it does
        assert any(held in line and meaning in line for line in words.splitlines()), (held, words)
    flow = TableFlow(players=2, names=("Ann", "Bob"), configured=True)
    for typed in ("ok", "next", "back", "cf", "discard", "undo", "long ok", "long back", "seat1"):
        out = flow.handle(_typed(typed))
        assert out.reason != "bad-input", typed


def _typed(text: str) -> KeyTyped:
    return KeyTyped(text)


def test_pygame_without_a_display_is_one_line_and_a_failure(tmp_path: Path) -> None:
    done = subprocess.run([*BORNES, "run", "--emulate", "--display", "pygame", "--config",
                           str(desktop_config(tmp_path))], input="", capture_output=True, text=True, timeout=60,
                          cwd=REPO, env=quiet_env())
    assert done.returncode == 78
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert errors == ["bornes: --display pygame needs a desktop session (DISPLAY and WAYLAND_DISPLAY are not set): "
                      "use --display terminal"]
    assert "Hello from the pygame community" not in done.stdout


def _in_a_pty(argv: list[str], columns: int, lines: int) -> tuple[int, str]:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=REPO, env=quiet_env())
    os.close(slave)
    received = bytearray()
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        received.extend(chunk)
    os.close(master)
    return child.wait(timeout=60), received.decode(errors="replace")


def test_a_terminal_too_small_for_the_panel_says_how_big_it_must_be(tmp_path: Path) -> None:
    status, out = _in_a_pty([*BORNES, "run", "--emulate", "--display", "terminal", "--config",
                             str(desktop_config(tmp_path))], 80, 24)
    assert status == 78
    assert ("the terminal is 80x24, too small for the 128x64 panel: enlarge the terminal to at least 128x41 "
            "or use --display pygame") in out


# -- a real terminal: tmux ------------------------------------------------------------------------


@pytest.fixture
def tmux() -> Iterator[Callable[..., str]]:
    if shutil.which("tmux") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("tmux is missing under CI (.ci/run installs it)")
        pytest.skip("tmux is not installed (apt-get install tmux)")
    # A server of its own per test: a server still shutting down from the test before took the
    # next test's session with it (an empty screen for 90 s, then a failure).
    socket = f"bornes-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def run(*args: str) -> str:
        done = subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", *args], capture_output=True, text=True,
                              timeout=30)
        if args[0] == "capture-pane" and done.returncode != 0:
            raise AssertionError(f"the tmux pane is gone: {done.stderr.strip()}")
        return done.stdout

    yield run
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=30)


def _wait_for(read: Callable[[], str], wanted: str, timeout: float = 90.0) -> str:
    """The screen once ``wanted`` is on it; the long default is for a loaded machine starting Python."""
    deadline = time.monotonic() + timeout
    text = read()
    while wanted not in text:
        if time.monotonic() > deadline:
            raise AssertionError(f"{wanted!r} never appeared; the screen:\n{text}")
        time.sleep(0.1)
        text = read()
    return text


_SGR = re.compile(r"\x1b\[([0-9;]*)m")


def panel_from_screen(captured: str, size: tuple[int, int]) -> Image.Image:
    """Decode half blocks back into pixels: background = upper pixel, foreground = lower."""
    width, height = size
    image = Image.new("1", size, 0)
    fg = bg = 16  # tmux carries colours over from one line to the next
    for row, line in enumerate(captured.splitlines()[: height // 2]):
        x = 0
        for token in re.split(r"(\x1b\[[0-9;]*m)", line):
            if not token:
                continue
            match = _SGR.fullmatch(token)
            if match:
                codes = [int(c) for c in match.group(1).split(";") if c] or [0]
                i = 0
                while i < len(codes):
                    code = codes[i]
                    if code in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                        if code == 38:
                            fg = codes[i + 2]
                        else:
                            bg = codes[i + 2]
                        i += 3
                        continue
                    if code == 0:
                        fg = bg = 16
                    elif code == 39:
                        fg = 16
                    elif code == 49:
                        bg = 16
                    i += 1
                continue
            if token.startswith("\x1b"):
                continue
            for char in token:
                if char == "▄" and x < width:
                    image.putpixel((x, 2 * row), 255 if bg in (15, 231, 255) else 0)
                    image.putpixel((x, 2 * row + 1), 255 if fg in (15, 231, 255) else 0)
                x += 1
    return image


def test_in_a_real_terminal_the_log_never_eats_the_typed_line_and_a_scanner_feeds_the_table(
    tmp_path: Path, tmux: Callable[..., str]
) -> None:
    scanner, scanner_end = os.openpty()  # the "USB scanner": the test writes what it scans
    port = os.ttyname(scanner_end)
    config = desktop_config(tmp_path)
    command = " ".join([*BORNES, "run", "--emulate", "--display", "terminal", "--config", str(config),
                        "--port", port])
    env = " ".join(f"{k}={v}" for k, v in (("PYTHONPATH", str(REPO)),))
    tmux("new-session", "-d", "-s", "t", "-x", "140", "-y", "50", f"cd {REPO} && env {env} {command}; sleep 600")

    def screen_text() -> str:
        return tmux("capture-pane", "-t", "t", "-p")

    try:
        text = _wait_for(screen_text, "bornes>")  # capture-pane drops trailing blanks
        assert "Type a card or a button, then Enter" in text
        assert f"A scanner on {port} feeds the table too." in text
        _wait_for(screen_text, "reader")  # the reader opened the scanner's port
        tmux("send-keys", "-t", "t", "ok", "Enter")  # the configured table: one OK starts it
        _wait_for(screen_text, "bornes> ok")
        tmux("send-keys", "-t", "t", "MB-D1")  # half typed when the scanner speaks
        _wait_for(screen_text, "bornes> MB-D1")
        os.write(scanner, b"MB-ROLL-01\r\n")
        text = _wait_for(screen_text, "accepted Chloé: Roll (MB-ROLL-01)")
        lines = [line for line in text.splitlines() if line.strip()]
        assert lines[-1] == "bornes> MB-D1", text  # the log went above; the typed line is whole
        assert "accepted Chloé: Roll (MB-ROLL-01)" in lines[-2]
        tmux("send-keys", "-t", "t", "00-07", "Enter")  # finish the line: MB-D100-07
        text = _wait_for(screen_text, "refused")
        assert "bornes> MB-D100-07" in text
        # The panel at the top is the screen the same inputs render, pixel for pixel.
        flow = TableFlow(edition="winning-moves", players=2, names=("Ann", "Chloé"), configured=True)
        drive(flow, "press OK", "scan MB-ROLL-01", "scan MB-D100-07")
        expected = render(screen(flow), (128, 64), "RGB").convert("1")
        deadline = time.monotonic() + 60  # the panel is redrawn after the log line; this only bounds a failure
        while True:
            shown = panel_from_screen(tmux("capture-pane", "-t", "t", "-p", "-e"), (128, 64))
            if ImageChops.difference(shown, expected).getbbox() is None or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if ImageChops.difference(shown, expected).getbbox() is not None:
            shown.save(tmp_path / "shown.png")
            expected.save(tmp_path / "expected.png")
        assert ImageChops.difference(shown, expected).getbbox() is None, f"see {tmp_path}"
    finally:
        os.close(scanner)
        os.close(scanner_end)


@pytest.mark.slow
def test_after_refusals_the_prompt_shows_once(tmp_path: Path, tmux: Callable[..., str]) -> None:
    """A refusal logged while input() was about to draw its prompt drew it twice ("bornes> ornes>")."""
    config = desktop_config(tmp_path)
    command = " ".join([*BORNES, "run", "--emulate", "--config", str(config)])
    tmux("new-session", "-d", "-s", "t", "-x", "140", "-y", "120",
         f"cd {REPO} && env PYTHONPATH={REPO} {command}; sleep 600")

    def screen_text() -> str:
        return tmux("capture-pane", "-t", "t", "-p", "-S", "-400")

    _wait_for(screen_text, "bornes>", timeout=90)  # a loaded machine starts Python slowly
    tmux("send-keys", "-t", "t", "ok", "Enter")
    _wait_for(screen_text, "bornes> ok", timeout=60)
    for _ in range(30):  # Ann has no Roll: each is refused, each refusal logged as the next prompt comes up
        tmux("send-keys", "-t", "t", "MB-D100-07", "Enter")
        time.sleep(0.1)
    text = screen_text()
    deadline = time.monotonic() + 90
    while text.count("refused [") < 30 and time.monotonic() < deadline:
        time.sleep(0.2)
        text = screen_text()
    assert text.count("refused [") == 30, text
    prompts = [line for line in text.splitlines() if "ornes>" in line]
    assert all(line.count("ornes>") == 1 and line.startswith("bornes>") for line in prompts), text
