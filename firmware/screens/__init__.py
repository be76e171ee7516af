"""Pure screen renderers: a view (plain data, see :mod:`firmware.screens.model`) in, a PIL image out."""

from firmware.screens.render import SMALL, WIDE, default_mode, render, score_sheet_pages

__all__ = ["SMALL", "WIDE", "default_mode", "render", "score_sheet_pages"]
