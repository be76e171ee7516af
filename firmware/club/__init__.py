"""Club nights: many tables, one tournament, over MQTT (docs/club.md).

``bridge`` publishes one table's journal to the broker; ``board`` keeps the tournament, and
``web`` serves its pages (routes in ``pages`` and ``organiser``, HTML in ``templates/``, CSS and
JavaScript in ``static/``); ``topics`` is the wire format both sides share; ``pairing`` computes rounds.
The referee itself never touches the network: the bridge only reads its journal and talks to
it through the control socket the referee owns.

May import ``firmware.web`` (its guard and templating) and the rooms below it, except the table
flow and the referee's own modules (as the web). Inside, the bridge and the board share only
``broker``, ``outbox``, ``store``, ``settings``, ``pairing`` and ``topics`` (the contracts in
pyproject.toml check both).
"""
