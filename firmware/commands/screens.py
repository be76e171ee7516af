"""``bornes screens --out DIR``: every screen for a sample game, as PNGs a person can look over at once."""

from __future__ import annotations

import argparse
from pathlib import Path

from firmware.errors import EX_IOERR, UserError

NAME = "screens"
HELP = "render every screen of a sample game (2, 3 and 4 sides, 128x64 and 256x64) into PNG files"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the PNG files (created if needed)")
    parser.add_argument("--scale", type=int, default=1, metavar="N",
                        help="also enlarge each pixel N times, for a desktop screen (default 1: panel pixels)")
    parser.add_argument("--size", choices=("128x64", "256x64", "both"), default="both", help="panel size(s)")


def run(args: argparse.Namespace) -> int:
    from PIL import Image

    from firmware.screens import SMALL, WIDE, render
    from firmware.screens.samples import sample_screens

    if not 1 <= args.scale <= 16:
        raise UserError("--scale must be between 1 and 16")
    sizes = {"128x64": [SMALL], "256x64": [WIDE], "both": [SMALL, WIDE]}[args.size]
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create {out}: {error.strerror}", EX_IOERR) from None
    count = 0
    for name, view in sample_screens().items():
        for size in sizes:
            image = render(view, size)
            if args.scale > 1:
                image = image.resize((size[0] * args.scale, size[1] * args.scale), Image.Resampling.NEAREST)
            path = out / f"{name}-{size[0]}x{size[1]}.png"
            try:
                image.save(path)
            except OSError as error:
                raise UserError(f"cannot write {path}: {error.strerror}", EX_IOERR) from None
            count += 1
    print(f"wrote {count} screens to {out}")
    return 0
