"""The appliance program that runs on the Pi, in rooms (docs/architecture.md).

``language`` (every word), ``storage`` (the journal), ``deck`` (labels and tags), ``screens``
(renderers), ``table`` (the table's flow), ``appliance`` (config, the referee loop, the control
socket), ``web`` (the phone pages), ``club`` (club nights) and ``commands`` (one module per
subcommand); ``cli`` is the entry point, the one module outside a room. Each room's docstring says
what it may import; ``[tool.importlinter]`` in pyproject.toml checks it.
"""
