"""The table's flow: what a tap or a button means right now, and what the panel shows after it.

``flow`` turns input events into engine actions and menu steps (setup, names, deck check, game,
choices, undo) and answers with a verdict; ``present`` turns the flow's state into a screen view;
``bots`` are the simulated players of ``bornes demo`` and ``bornes simulate``. May import: the
engine, the drivers' events and errors, ``firmware.language``, ``firmware.storage``,
``firmware.screens`` (views only).
"""
