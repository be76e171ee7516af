"""``bornes web``: the table on every phone, served by the Pi (docs/web.md).

A process of its own: it reads the journal read-only (``firmware.storage``) and talks to the
referee only through its control socket's client (``firmware.appliance.control_client``).
``guard`` (Host allow-list, cross-site posts, CSV cells), ``connections`` (uvicorn's protocol with a
connection ceiling, deadlines and the head size) and ``streams`` (live-stream seats) are the
defences the club board uses too. May import ``appliance.control_client``, ``screens``, ``storage``,
``language``, the drivers and the engine; never the table flow, the referee, the assembly or the
control listener (the web process has a 40 MB budget; a contract in pyproject.toml checks it).

Inside: ``app`` builds the app; ``routes/`` holds one module per kind of page; ``site`` is the
per-app state every route reads (settings, games, pairings, limits, the live feed); ``views``
turns data into a template's context, ``templates/`` (Jinja2, autoescaped) into HTML; ``static/``
holds the CSS and JavaScript; ``live`` follows the journal for the live table.
"""
