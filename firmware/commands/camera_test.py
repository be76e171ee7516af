"""``bornes camera-test``: read a folder of frames with templates taught from a folder of pictures.

An outside test set drives it: ``--enrol DIR`` holds ``KIND.png`` or ``KIND-N.png`` (PNG or JPEG) for
each of the 19 kinds; ``--frames DIR`` is one sequence, read in file-name order, taken at ``--fps``
frames a second (10 unless told). Every read prints ``{"frame": NAME, "kind": KIND}`` and every
refusal ``{"frame": NAME, "refused": REASON}`` with ``--json`` (one JSON object a line), or a line for a
person without it. The camera's status goes to standard error either way: ``NAME: camera cannot see:
DETAIL`` when it has not seen a steady picture for 2 s (the table's "Camera: the light flickers"), and
``NAME: camera sees again``; so do dropped frames and the enrolment's lines under ``--json``.
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
    parser.add_argument("--fps", type=float, default=10.0,
                        help="the frames a second the sequence was taken at (default 10)")


def run(args: argparse.Namespace) -> int:
    try:
        import cv2

        from bornes.drivers.camera.templates import TemplateError, from_folder
        from bornes.drivers.camera.vision import as_image
        from bornes.drivers.camera.watch import Blind, Dropped, PlayWatcher, Read, Refusal, Seeing
    except ImportError as error:
        raise UserError(f"the camera needs numpy and OpenCV ({error.name} is missing): "
                        "pip install 'bornes[camera]'", EX_UNAVAILABLE) from None
    cv2.setNumThreads(1)
    frames = Path(args.frames)
    if not frames.is_dir():
        raise UserError(f"{frames} is not a folder of frames", EX_DATAERR)
    if not 0.5 <= args.fps <= 120:
        raise UserError(f"--fps {args.fps:g}: a camera gives between 0.5 and 120 frames a second", EX_DATAERR)
    try:
        taught, problems = from_folder(args.enrol)
    except TemplateError as error:
        raise UserError(str(error), EX_DATAERR) from None
    note = sys.stderr if args.json else sys.stdout
    for problem in problems:
        print(f"enrol: {problem}", file=note)
    print(f"enrol: {taught.describe_check()}", file=note)
    watcher = PlayWatcher(taught.deck(), fps=args.fps)
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
            elif isinstance(outcome, Blind):
                print(f"{outcome.frame}: camera cannot see: {outcome.detail}", file=sys.stderr, flush=True)
            elif isinstance(outcome, Seeing):
                print(f"{outcome.frame}: camera sees again", file=sys.stderr, flush=True)
    print(f"{watcher.frames} frames, {reads} reads, {refusals} refusals", file=note)
    return 0
