"""Pure screen renderers: a view (plain data, see :mod:`bornes.firmware.screens.model`) in, a PIL image out."""

from bornes.firmware.screens.render import SMALL, WIDE, default_mode, render, score_sheet_pages

__all__ = ["SMALL", "WIDE", "default_mode", "render", "score_sheet_pages"]
