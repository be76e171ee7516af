"""The table's language: every word a player reads, in English or French.

``i18n`` loads the gettext catalogues (``firmware/language/locale``), ``words`` phrases the engine's
verdicts, events and actions, ``devices`` a device's failure (a reader lost), ``said`` a lower layer's
English line again in the table's language, ``rule_labels`` names editions and rule options, ``names``
edits a player's name letter by letter. May import: the engine, ``bornes.drivers.errors`` and
``bornes.drivers.events``. Nothing else in ``firmware`` (every other room may import this one).
"""
