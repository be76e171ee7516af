"""A scripted game played through the kernel tier's gadgets, and the table that keeps it between tests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from bench.driver import SETUP_TAPS, Script, script_games
from tools.kernel.table import INPUT, Checkpoint, KernelTable

#: The table's buttons on a numeric keypad, as docs/keypad.md prints its "numpad" key map: the key a
#: person presses for the control tag a script taps.
NUMPAD = {"MB-CMD-OK": "Enter", "MB-CMD-NEXT": "+", "MB-CMD-BACK": "-", "MB-CMD-CF": "0", "MB-CMD-DISCARD": ".",
          "MB-CMD-UNDO": "*"}


@dataclass
class GameTable(KernelTable):
    """The kernel tier's table with the game the referee is in: each test goes on with it."""

    game: Game | None = None
    recoverable: ClassVar[bool] = True  # its state: the gadgets, the config and the game's seed (Checkpoint)

    def checkpoint(self) -> Checkpoint:
        return replace(super().checkpoint(), seed=self.game.seed if self.game is not None else None)

    def recover(self, checkpoint: Checkpoint) -> None:
        """The base's new boot, and the game that was being played, from its start: the new referee's is."""
        super().recover(checkpoint)
        self.game = Game(self, checkpoint.seed) if checkpoint.seed is not None else None

    def configure_game(self, config: str, seed: int, bindings: dict[str, str] | None = None) -> Game:
        """A new config (a fresh game journal, the referee restarted) and a new scripted game from its start."""
        self.configure(config, bindings)
        self.game = Game(self, seed)
        return self.game

    def current(self) -> Game:
        assert self.game is not None, "no game configured"
        return self.game


class Game:
    """A scripted 2-player game (bench/driver.py's bots), tapped through the gadgets one input at a
    time: each tap waits for the referee's line for it, and a code the referee refuses as garbled
    is scanned again, as the panel asks a player to (counted in the figures: a reader read late
    loses keys, docs/system.md). The game's first step starts with the setup menus' OKs: they are
    tapped until the referee says the game is on (a table whose config names the players needs fewer)."""

    def __init__(self, table: KernelTable, seed: int) -> None:
        self.table = table
        self.seed = seed
        self.script: Script = script_games(players=2, seed=seed, games=1)
        self.done = 0  # steps accepted

    def next_taps(self) -> tuple[str, ...]:
        """The taps of the next step, the setup's OKs left out."""
        taps = self.script.steps[self.done].taps
        return taps[len(SETUP_TAPS):] if self.done == 0 else taps

    def play(self, gadget: str, steps: int = 1, *, layout: str = "us", serial: bool = False,
             after_half_code: bool = False, keypad: str | None = None, keys: dict[str, str] = NUMPAD) -> None:
        """Play the next ``steps`` steps on ``gadget``; with ``after_half_code``, the first tap's keys
        also end a half-typed code (its refusal comes first: two lines); with ``keypad``, every
        button (a control tag in the script) is pressed on that keypad gadget instead of scanned, the
        key ``keys`` names for it (a keypad's: :data:`NUMPAD`; another device's own names)."""
        for _ in range(steps):
            step = self.script.steps[self.done]
            lines = 2 if after_half_code else 1
            after_half_code = False
            if self.done == 0:
                for _ok in SETUP_TAPS:
                    said = self._tap(gadget, SETUP_TAPS[0], layout, serial, lines, keypad, keys)
                    lines = 1
                    if said.endswith(": accepted"):
                        break
                    assert said.endswith(": prompt"), said
                else:
                    raise AssertionError(f"the setup's OKs did not start the game: {self.table.journal()[-6:]}")
            taps = self.next_taps()
            for number, payload in enumerate(taps):
                said = self._tap(gadget, payload, layout, serial, lines, keypad, keys)
                lines = 1
                last = number == len(taps) - 1
                assert said.endswith(": accepted" if last else ": prompt"), (payload, said, self.table.journal()[-6:])
            assert self.table.accepted()[-1] == step.notation, self.table.journal()[-6:]
            self.done += 1

    def _tap(self, gadget: str, payload: str, layout: str, serial: bool, lines: int, keypad: str | None = None,
             keys: dict[str, str] = NUMPAD) -> str:
        """One input, scanned again while the referee refuses it as garbled (three times at most), or as typed by
        hand: the harness types at a scanner's speed, so that refusal means the guest was starved and stamped the
        keys late (CI: "keys came 82 ms apart" for 3 ms), and a player would scan again; a button pressed on
        ``keypad``."""
        if keypad is not None and payload in keys:
            said = self.table.press(keypad, keys[payload], lines=lines)
            assert len(said) == lines and said[-1].startswith(f"{INPUT}button "), said  # a button, once
            return said[-1]
        for _ in range(3):
            said = self.table.tap(gadget, payload, layout=layout, serial=serial, lines=lines)
            # one line for each input: never two readings of one scan (the journal's tail says what came before)
            assert len(said) == lines, (said, self.table.journal()[-30:])
            if not said[-1].startswith((f"{INPUT}garbled", f"{INPUT}typing")):
                return said[-1]
            lines = 1
            self.table.figures["scanned again"] = self.table.figures.get("scanned again", 0.0) + 1
        raise AssertionError(f"{payload} refused three times: {self.table.journal()[-6:]}")

    def check_stored(self) -> None:
        """The referee's game journal holds exactly the steps played, in order: none lost, none doubled."""
        assert self.table.stored() == self.script.notations()[:self.done]
