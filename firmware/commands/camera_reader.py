"""``bornes camera-reader``: the camera's own process, which the referee starts (docs/camera.md).

Frames from the source, through the recognizer, out as one JSON object a line: on standard output,
or on the pipe the referee passes (``--report-fd``). The referee keeps numpy and OpenCV out of its
own process this way, and restarts this one like an unplugged reader if it ever dies. Run by hand it
shows what the camera reads, live::

    bornes camera-reader --source v4l2 --device /dev/video0 --templates /var/lib/bornes/camera
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from bornes.drivers.camera.wire import CameraSettings
from bornes.drivers.errors import EX_UNAVAILABLE, EX_USAGE, UserError
from bornes.drivers.parts import CAMERA_SOURCES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", choices=CAMERA_SOURCES, default="v4l2", help="where the frames come from")
    parser.add_argument("--device", default="/dev/video0",
                        help="v4l2: the device; picamera2: the camera's number; folder: pictures or a video")
    parser.add_argument("--size", default="640x480", metavar="WxH", help="the picture size to ask the camera for")
    parser.add_argument("--fps", type=int, default=10, help="frames a second to look at (the recognizer wants 10)")
    parser.add_argument("--zone", metavar="X,Y,W,H", help="the play zone in the picture (default: all of it)")
    parser.add_argument("--templates", required=True, metavar="DIR", help="the taught faces (templates.json)")
    parser.add_argument("--report-fd", type=int, metavar="FD", help="write the messages to this open file "
                                                                    "descriptor (default: standard output)")


def settings_from(args: argparse.Namespace) -> CameraSettings:
    try:
        width, height = (int(n) for n in args.size.lower().split("x"))
        zone = tuple(int(n) for n in args.zone.split(",")) if args.zone else ()
        return CameraSettings(args.source, args.device, width, height, args.fps, zone, args.templates)
    except ValueError as error:
        raise UserError(f"camera-reader: {error}", EX_USAGE) from None


def run(args: argparse.Namespace) -> int:
    # Started by the referee (--report-fd), its log lines go to the referee's log: warnings only.
    level = "WARNING" if args.report_fd is not None else "INFO"
    logging.basicConfig(format="camera: %(message)s", stream=sys.stderr, level=level, force=True)
    settings = settings_from(args)
    try:
        from bornes.drivers.camera.service import serve
    except ImportError as error:
        raise UserError(f"the camera needs numpy and OpenCV ({error.name} is missing): "
                        "pip install 'bornes[camera]' (install.sh --camera)", EX_UNAVAILABLE) from None
    report = os.fdopen(args.report_fd, "wb", buffering=0) if args.report_fd is not None else sys.stdout.buffer
    commands = sys.stdin.fileno() if args.report_fd is not None else None  # by hand: Ctrl-C stops it
    try:
        return serve(settings, report, commands)
    except KeyboardInterrupt:
        return 0
