"""The appliance's process: the config file, the parts it opens and the one loop that referees.

``config`` reads and checks ``bornes.toml`` with ``tomlcheck`` (the one way a settings file is
checked, which the club's settings use too); ``assembly`` opens the readers, buttons, display and
journal the config names (or their twins) and closes them; ``referee`` is the one loop that applies
queued events to the table flow and makes each accepted action durable before it is acknowledged;
``control`` is the referee's local control socket (pairing, setups from phones and the club), and
``control_client`` its one client (the web, the bridge, any command); ``console`` is the emulator's
typed input; ``notify`` speaks to systemd; ``heap`` hands freed memory back; ``reader_options``
turns reader settings into driver arguments; ``progress`` is the terminal's progress bar. May import
every room below it: ``table``, ``screens``, ``deck``, ``storage``, ``language``, the drivers, the
engine.
"""
