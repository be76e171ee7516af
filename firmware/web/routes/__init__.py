"""The routes of ``bornes web``, one module per kind of page; each module's ``ROUTES`` is its part of the site.

``pages``: what anyone on the table's network reads (the live table, sheets, history, statistics,
the game viewer). ``downloads``: records, JSON, CSV and PDF. ``setup``: pairing a phone and sending
a game to the table. ``files``: the static files and the error pages. Every handler reads the
app's :class:`~bornes.firmware.web.site.Site` from the request: no route keeps state of its own.
"""
