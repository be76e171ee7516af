"""``bornes run --emulate``: the keyboard and the terminal of a laptop standing in for the table.

A newcomer sees what to type (:func:`input_words`) at start and again on ``help``. Typed lines
become input events; log lines are printed *above* the prompt, which is then redrawn with
whatever was half typed, so the referee talking never garbles the line being typed. When the
panel is drawn in the same terminal (``bornes.drivers.display.terminal``), the lines below it become a
scrolling region of their own, so the log scrolls and the panel stays put.
"""

from __future__ import annotations

import logging
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from typing import TextIO

from bornes.drivers.display.terminal import TERMINAL_LOCK
from bornes.engine import CardKind
from bornes.firmware.language.i18n import _

PROMPT = "bornes> "
HELP_WORDS = ("help", "?")


def input_words() -> str:
    """Every word the emulator understands, in a few lines for a person who has never seen the project."""
    kinds = textwrap.wrap(" ".join(kind.value for kind in CardKind), 96)
    return "\n".join([
        _("Type a card or a button, then Enter (help shows this again; Ctrl-D stops, the game is kept):"),
        _("  cards    MB-<kind>-<copy>, as on the label: MB-ROLL-01, MB-D100-07, MB-STOP-02"),
        _("  kinds    {kinds}").format(kinds=kinds[0]),
        *(f"           {line}" for line in kinds[1:]),
        _("  buttons  ok  next  back  cf (coup fourré)  discard  undo"),
        _("  held     long ok       what the icons mean (naming a seat: keep the whole name)"),
        _("           long back     end a hand nobody can finish (menus: the previous one; PIN shown: unpair "
          "every phone)"),
        _("           long discard  swap cards (fast-play rule)"),
        _("  seats    seat1 … seat8: who called a coup fourré, whom a hazard is for"),
        _("  pads     @B MB-STOP-01: laid on seat B's pad (also @table, @discard)"),
    ])


class SpokenActions(logging.Filter):
    """On the emulator's terminal, an accepted action by players' names ("Chloé: Roll (MB-ROLL-01)")
    instead of the record's notation that journald keeps ("B play MB-ROLL-01")."""

    def filter(self, record: logging.LogRecord) -> bool:
        said = getattr(record, "said", None)
        if said:
            record.msg, record.args = "accepted %s", (said,)
        return True


class Console:
    """Prints above the prompt and reads typed lines; plain lines when standard input is not a terminal."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 panel_rows: int = 0) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.interactive = self.stdin.isatty() and self.stdout.isatty()
        self.panel_rows = panel_rows  # terminal lines the panel takes at the top (0: no panel here)
        self._region = False
        self._prompting = False  # input() shows the prompt right now

    # -- the screen -----------------------------------------------------------------------------

    def start(self) -> None:
        """Below a terminal panel, make the rest of the screen a scrolling region for log and prompt."""
        if not (self.interactive and self.panel_rows):
            return
        lines = _lines(self.stdout)
        with TERMINAL_LOCK:
            # Rows are 1-based: the panel, one blank row, then the region down to the bottom.
            self.stdout.write(f"\033[{self.panel_rows + 2};{lines}r\033[{lines};1H")
            self.stdout.flush()
            self._region = True

    def close(self) -> None:
        """Give the whole screen back; later lines (the shutdown log) are plain lines."""
        self.interactive = False
        if self._region:
            with TERMINAL_LOCK:
                self.stdout.write(f"\033[r\033[{_lines(self.stdout)};1H\n")
                self.stdout.flush()
            self._region = False

    def say(self, text: str) -> None:
        """A line above the prompt; the prompt and the half-typed line are drawn again below it."""
        with TERMINAL_LOCK:
            if not self.interactive:
                self.stdout.write(text + "\n")
                self.stdout.flush()
                return
            redraw = f"{PROMPT}{_typed_so_far()}" if self._prompting else ""
            self.stdout.write(f"\r\033[K{text}\n{redraw}")
            self.stdout.flush()

    def handler(self) -> logging.Handler:
        """A logging handler that writes through :meth:`say`."""
        console = self

        class _Above(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                try:
                    text = self.format(record)
                except Exception:  # a broken log call must not stop the table
                    self.handleError(record)
                    return
                for line in text.splitlines() or [""]:
                    console.say(line)

        handler = _Above()
        handler.setFormatter(logging.Formatter("bornes: %(message)s"))
        return handler

    # -- the keyboard ---------------------------------------------------------------------------

    def lines(self) -> Iterator[str]:
        """Typed lines until end of input (Ctrl-D). ``help`` is answered here and not passed on."""
        read: Callable[[], str]
        if self.interactive:
            try:
                import readline  # line editing and history for input()
            except ImportError:
                readline = None  # type: ignore[assignment]
            held = threading.local()

            def shown() -> None:
                """readline's pre-input hook: the prompt is on the screen now, so say() may redraw it."""
                self._prompting = True
                if getattr(held, "lock", False):
                    held.lock = False
                    TERMINAL_LOCK.release()

            if readline is not None:
                readline.set_pre_input_hook(shown)

            def read() -> str:
                # Until readline has drawn the prompt, a log line waits: redrawn by say() *and* drawn by
                # input(), the prompt showed twice ("bornes> ornes>" after a refusal).
                if readline is not None:
                    TERMINAL_LOCK.acquire()
                    held.lock = True
                else:
                    self._prompting = True
                try:
                    return input(PROMPT)
                finally:
                    if getattr(held, "lock", False):
                        held.lock = False
                        TERMINAL_LOCK.release()
                    with TERMINAL_LOCK:
                        self._prompting = False
        else:
            def read() -> str:
                line = self.stdin.readline()
                if not line:
                    raise EOFError
                return line.rstrip("\n")
        while True:
            try:
                line = read()
            except (EOFError, KeyboardInterrupt):
                return
            if line.strip().lower() in HELP_WORDS:
                self.say(input_words())
                continue
            yield line


def _typed_so_far() -> str:
    """What readline holds of the line being typed (empty without readline)."""
    try:
        import readline
    except ImportError:
        return ""
    return readline.get_line_buffer()


def _lines(stream: TextIO) -> int:
    import os

    try:
        return os.get_terminal_size(stream.fileno()).lines
    except (OSError, ValueError):
        return 24
