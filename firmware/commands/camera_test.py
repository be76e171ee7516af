"""``bornes camera-test``: read a folder of frames with templates taught from a folder of pictures.

An outside test set drives it: ``--enrol DIR`` holds ``KIND.png`` or ``KIND-N.png`` (PNG or JPEG) for
each of the 19 kinds; ``--frames DIR`` is one sequence, read in file-name order at 10 frames a second.
Every read prints ``{"frame": NAME, "kind": KIND}`` and every refusal ``{"frame": NAME, "refused":
REASON}`` with ``--json`` (one JSON object a line), or a line for a person without it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bornes.drivers.errors import EX_DATAERR, EX_UNAVAILABLE, UserError

PICTURES = (".png", ".jpg", ".jpeg")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--enrol", required=True, metavar="DIR", help="KIND.png / KIND-N.png pictures of each kind")
    parser.add_argument("--frames", required=True, metavar="DIR", help="the frames of one sequence, in name order")
    parser.add_argument("--json", action="store_true", help="one JSON object a line (reads and refusals only)")


def run(args: argparse.Namespace) -> int:
    try:
        import cv2

        from bornes.drivers.camera.templates import TemplateError, from_folder
        from bornes.drivers.camera.vision import as_image
        from bornes.drivers.camera.watch import Dropped, PlayWatcher, Read, Refusal
    except ImportError as error:
        raise UserError(f"the camera needs numpy and OpenCV ({error.name} is missing): "
                        "pip install 'bornes[camera]'", EX_UNAVAILABLE) from None
    cv2.setNumThreads(1)
    frames = Path(args.frames)
    if not frames.is_dir():
        raise UserError(f"{frames} is not a folder of frames", EX_DATAERR)
    try:
        taught, problems = from_folder(args.enrol)
    except TemplateError as error:
        raise UserError(str(error), EX_DATAERR) from None
    note = sys.stderr if args.json else sys.stdout
    for problem in problems:
        print(f"enrol: {problem}", file=note)
    print(f"enrol: {taught.describe_check()}", file=note)
    watcher = PlayWatcher(taught.deck())
    reads = refusals = 0
    for path in sorted(p for p in frames.iterdir() if p.suffix.lower() in PICTURES):
        read = cv2.imread(str(path), cv2.IMREAD_COLOR)
        for outcome in watcher.feed(None if read is None else as_image(read), path.name):
            if isinstance(outcome, Read):
                reads += 1
                print(json.dumps({"frame": outcome.frame, "kind": outcome.kind}) if args.json
                      else f"{outcome.frame}  {outcome.kind}", flush=True)
            elif isinstance(outcome, Refusal):
                refusals += 1
                print(json.dumps({"frame": outcome.frame, "refused": outcome.reason}) if args.json
                      else f"{outcome.frame}  refused: {outcome.reason} (show it again)", flush=True)
            elif isinstance(outcome, Dropped):
                print(f"{outcome.frame}: dropped, {outcome.detail}", file=note)
    print(f"{watcher.frames} frames, {reads} reads, {refusals} refusals", file=note)
    return 0
