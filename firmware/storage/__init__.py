"""What survives a power cut: the game journal (SQLite in WAL mode), the lock that keeps one referee
per state folder, and the read side other programs use.

``journal`` writes every accepted action durably before it is acknowledged (docs/journal.md), with
its parts in modules of their own: ``rows`` (the row formats, their checksums, the checked reads),
``migration`` (the table definitions, the schema-1 upgrade), ``wal`` (the WAL walker, which reads
SQLite's log before SQLite does), ``note`` (the pending note: the count of acknowledged actions),
``errors`` (why the journal cannot be used, in one line) and ``headroom`` (free space as cards).
``store`` is the table flow's view of it; ``statelock`` is the state folder's lock; ``live``
follows a journal read-only (phone pages, club bridge); ``records`` writes a stored game out whole;
``padnotes`` reads the pile-pad note on a journal line. May import: the engine, the drivers' errors,
events and files, ``firmware.language``.
"""
