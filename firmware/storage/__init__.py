"""What survives a power cut: the game journal (SQLite in WAL mode, with its CRC side file), the
lock that keeps one referee per state folder, and the read side other programs use.

``journal`` writes every accepted action durably before it is acknowledged; ``store`` is the
table flow's view of it; ``statelock`` is the state folder's lock; ``live`` follows a journal
read-only (phone pages, club bridge); ``records`` writes a stored game out whole; ``padnotes``
reads the pile-pad note on a journal line. May import: the engine, the drivers' errors and files,
``firmware.language``.
"""
