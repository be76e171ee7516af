"""One module per ``bornes`` subcommand.

Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
``firmware.cli`` discovers them, so adding a command never touches the CLI itself.
"""
