"""The table's flow: what a tap or a button means right now, and what the panel shows after it.

``flow`` routes each input event to the handler of the table's mode; ``modes`` holds one small
handler per mode (setup, names, deck check, legend, game, play, choice, confirm, swap), each
answering its own inputs with an ``Outcome`` and a typed ``Verdict``; ``core`` is what they share
(the verdicts, the transient state, and the verbs: say, refuse, commit, start a game). ``present``
turns the flow's state into a screen view; ``bots`` are the simulated players of ``bornes demo``
and ``bornes simulate``. Inside the room the arrows go flow -> modes -> core, never back. May
import: the engine, the drivers' events and errors, ``firmware.language``, ``firmware.storage``,
``firmware.screens`` (views only).
"""
