"""Pure screen renderers: a view (plain data, see :mod:`bornes.firmware.screens.model`) in, a PIL image out.

``model`` holds the views, ``render`` and ``table`` draw them on a ``canvas`` with the ``fonts``
and ``icons`` of ``assets/``; ``legend`` is what each mark means, ``pairing`` the PIN screen,
``samples`` the fixed views behind the golden images. The same drawing runs on luma's dummy, the
emulator and the real panel. May import: the engine (card and option names only), the drivers'
errors, ``firmware.language``; never the table flow that chooses the view.
"""

from bornes.firmware.screens.render import SMALL, WIDE, default_mode, render, score_sheet_pages

__all__ = ["SMALL", "WIDE", "default_mode", "render", "score_sheet_pages"]
