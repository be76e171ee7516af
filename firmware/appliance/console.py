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
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TextIO

from bornes.drivers.display.terminal import TERMINAL_LOCK
from bornes.engine import CardKind, Category
from bornes.firmware.language.i18n import _, pgettext

if TYPE_CHECKING:
    from bornes.drivers.keypad import KeyMap

PROMPT = "bornes> "
HELP_WORDS = ("help", "?")


def input_words(edition: str | None = None, keymap: KeyMap | None = None) -> str:
    """Every word the emulator understands, in a few lines for a person who has never seen the project:
    each card kind's label code beside its name as ``edition`` printed it, in the table's language; on
    a keypad table (``keymap``: the keys of its buttons), the keys a laptop types for them."""
    rows: list[tuple[str, str]] = [
        (pgettext("help", "cards"), _("MB-<kind>-<copy>, as on the label: MB-ROLL-01, MB-D100-07, MB-STOP-02")),
        *((pgettext("help", "kinds") if index == 0 else "", line)
          for index, line in enumerate(_kind_lines(edition))),
        (pgettext("help", "buttons"), _("ok  next  back  cf (coup fourré)  discard  undo")),
        *((pgettext("help", "keypad") if index == 0 else "", line) for index, line in enumerate(_key_lines(keymap))),
        *((pgettext("help", "held") if index == 0 else "", line) for index, line in enumerate(_held_lines())),
        (pgettext("help", "seats"), _("seat1 … seat8: who called a coup fourré, whom a hazard is for")),
        (pgettext("help", "pads"), _("@B MB-STOP-01: laid on seat B's pad (also @table, @discard)")),
    ]
    width = max(len(label) for label, _text in rows) + 2
    return "\n".join([
        _("Type a card or a button, then Enter (help shows this again; Ctrl-D stops, the game is kept):"),
        *(f"  {label:<{width}}{text}" for label, text in rows),
    ])


def _kind_lines(edition: str | None) -> list[str]:
    """The card kinds, one category a line: the code on the label, then the card's name where it says
    more ("OUTOFGAS (Panne d'Essence)"; not "STOP (Stop)")."""
    from bornes.firmware.language.words import card_name

    lines = []
    for category in Category:
        entries = []
        for kind in CardKind:
            if kind.category is not category:
                continue
            name = card_name(kind, edition)
            same = category is Category.DISTANCE or name.replace(" ", "").replace("-", "").casefold() == \
                kind.value.casefold()  # "D25" says 25 as well as "25 km" does
            entries.append(kind.value if same else f"{kind.value} ({name})")
        line = ""
        for entry in entries:  # an entry is never split: "OUTOFGAS (Panne d'Essence)" stays whole
            if line and len(line) + 2 + len(entry) > 92:
                lines.append(line)
                line = ""
            line = f"{line}  {entry}" if line else entry
        lines.append(line)
    return lines


def _key_lines(keymap: KeyMap | None) -> list[str]:
    """A keypad table's keys as a laptop types them: each key and its button (in the table's language),
    then how to type one: as printed or by its kernel name, held with ``long``."""
    if keymap is None:
        return []
    from bornes.drivers.keys import key_label, key_name
    from bornes.firmware.language.buttons import key_word, legend_words

    pairs = "  ".join(f"{key}={button}" for key, button in legend_words(keymap.legend()))
    moves = [code for code in (keymap.key_of(button) for button in ("OK", "NEXT", "BACK")) if code is not None]
    printed = ", ".join(key_word(key_label(code)).lower() for code in moves)
    named = ", ".join(key_name(code).lower() for code in moves)
    ok = keymap.key_of("OK")
    held = _("long {key}: held").format(key=key_word(key_label(ok)).lower()) if ok is not None else ""
    return [pairs, _("type a key as printed ({printed}) or by its name ({named}); {held}").format(
        printed=printed, named=named, held=held).rstrip("; ")]


def _held_lines() -> list[str]:
    """What a held button does, the buttons' words in one column."""
    held = [
        ("long ok", _("what the icons mean (naming a seat: keep the whole name)")),
        ("long back", _("end a hand nobody can finish (menus: the previous one; PIN shown: unpair every phone)")),
        ("long discard", _("swap cards (fast-play rule)")),
    ]
    width = max(len(key) for key, _meaning in held) + 2
    return [f"{key:<{width}}{meaning}" for key, meaning in held]


class SpokenLines(logging.Filter):
    """On the emulator's terminal, a log line as the players say it: in the table's language, an
    accepted action by players' names ("accepté : Chloé : Feu Vert (MB-ROLL-01)") instead of the
    English line and the record's notation journald keeps ("accepted B play MB-ROLL-01"). The
    line's words ride on the record as ``said`` (``firmware.language.i18n.Phrase``), worded here only."""

    def filter(self, record: logging.LogRecord) -> bool:
        said = getattr(record, "said", None)
        if said is not None:
            record.msg, record.args = "%s", (said,)
        return True


class Console:
    """Prints above the prompt and reads typed lines; plain lines when standard input is not a terminal."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 panel_rows: int = 0, help_text: Callable[[], str] = input_words) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.interactive = self.stdin.isatty() and self.stdout.isatty()
        self.panel_rows = panel_rows  # terminal lines the panel takes at the top (0: no panel here)
        self.help_text = help_text  # what ``help`` prints: the words of the edition being played
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
                self.say(self.help_text())
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
