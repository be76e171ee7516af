"""``bornes web``: the table on every phone, served by the Pi (docs/web.md).

A process of its own: it reads the journal read-only (``firmware.storage``) and talks to the
referee only through its control socket (``firmware.appliance.control``). ``guard`` is the
site-wide defence (Host allow-list, cross-site posts, connection caps) that the club board uses
too. May import every room below it: ``appliance``, ``table``, ``screens``, ``storage``,
``language``, the drivers, the engine.
"""
