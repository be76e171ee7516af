"""``bornes enroll``: bind RFID/NFC tags to the cards of a deck, one tap at a time; or teach the camera.

It says which card to tap next, refuses a tag that is already bound, saves after every
tag (so it can stop and resume any time), and exports or imports the table.
A table without a keyboard can use control tags: NEXT skips a card, UNDO takes back the
last binding.

``--camera`` teaches the camera instead (docs/camera.md): it says which kind to show next, takes
three still shots of each, reads every kind back with the shots it held back, and names the kinds
that look alike (``--kind`` shows just those again). ``--pictures DIR`` teaches from photos
(``KIND-N.jpg``); ``--snapshot FILE`` saves what the camera sees, with the play zone drawn.
"""

from __future__ import annotations

import argparse
import queue
from pathlib import Path
from typing import Any

from bornes.drivers.errors import EX_DATAERR, UserError
from bornes.drivers.events import CardScanned, ControlScanned, UnknownKind, UnknownScanned
from bornes.drivers.readers.bindings import BindingError, BindingTable, describe_payload, read_bindings_file
from bornes.firmware.appliance.reader_options import (
    ReaderChoice,
    add_reader_arguments,
    events_until,
    load_bindings,
    reader_choice,
    start_reader,
)
from bornes.firmware.commands.scan_test import format_event
from bornes.firmware.deck.enrollment import Enrollment, deck_payloads, parse_payloads


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_reader_arguments(parser)
    parser.add_argument("--edition", help="edition whose deck to bind (default: game.edition in the config)")
    parser.add_argument("--players", type=int, help="bind the short deck used by this many players, if any")
    parser.add_argument("--no-controls", action="store_true", help="do not ask for the six control tags")
    parser.add_argument("--card", action="append", default=[], metavar="CODE", help="(re)bind only this card")
    parser.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="show the binding table and what is missing")
    what.add_argument("--export", metavar="FILE", help="copy the binding table to FILE")
    what.add_argument("--import", dest="import_file", metavar="FILE", help="add the bindings in FILE")
    what.add_argument("--forget", metavar="CODE_OR_UID", help="remove one binding")
    parser.add_argument("--replace", action="store_true", help="with --import: let FILE win on conflicts")
    camera = parser.add_argument_group("the camera ([camera] in the config; docs/camera.md)")
    camera.add_argument("--camera", action="store_true", help="teach the camera the cards instead of binding tags "
                                                            "(with --list: what it was taught)")
    camera.add_argument("--kind", action="append", default=[], metavar="KIND",
                        help="with --camera: teach only this kind again (D25 … RIGHTOFWAY; repeatable)")
    camera.add_argument("--pictures", metavar="DIR", help="with --camera: teach from photos named KIND.jpg or "
                                                          "KIND-N.jpg (PNG too) instead of the live camera")
    camera.add_argument("--snapshot", metavar="FILE", help="with --camera: save one picture of what the camera "
                                                           "sees, the play zone drawn on it, and stop")


def run(args: argparse.Namespace) -> int:
    if args.camera or args.kind or args.pictures or args.snapshot:
        return _camera(args)
    choice = reader_choice(args)
    if args.list or args.export:  # reading only: fine beside the running referee
        return _run(args, choice)
    from bornes.firmware.storage.statelock import StateLock

    choice.state_dir.mkdir(parents=True, exist_ok=True)
    with StateLock.acquire(choice.state_dir, "enroll"):  # the referee reloads bindings; only one writer
        return _run(args, choice)


def _run(args: argparse.Namespace, choice: ReaderChoice) -> int:
    table = load_bindings(choice)
    if args.export:
        table.save(Path(args.export))
        print(f"exported {len(table)} bindings to {args.export}")
        return 0
    if args.import_file:
        return _import(table, Path(args.import_file), replace=args.replace)
    if args.forget:
        gone = table.unbind(args.forget)
        if not gone:
            raise UserError(f"nothing is bound to {args.forget!r}")
        table.save()
        print(f"forgot {', '.join(gone)}")
        return 0
    payloads = (
        parse_payloads(args.card)
        if args.card
        else deck_payloads(args.edition or choice.config.game.edition, args.players, controls=not args.no_controls)
    )
    if args.list:
        return _list(table, payloads)
    return _walk(choice, Enrollment(table, payloads, rebind=bool(args.card)), args.seconds)


def _import(table: BindingTable, path: Path, *, replace: bool) -> int:
    try:
        entries = read_bindings_file(path)
    except BindingError as error:
        raise UserError(str(error), EX_DATAERR) from None
    conflicts = [uid for uid, payload in entries.items() if table.lookup(uid) not in (None, payload)]
    if conflicts and not replace:
        raise UserError(
            f"{len(conflicts)} tag(s) in {path} are bound to other cards here (first: {conflicts[0]}); "
            "use --replace to let the file win",
            EX_DATAERR,
        )
    for uid, payload in entries.items():
        table.bind(uid, payload, replace=True)
    table.save()
    print(f"imported {len(entries)} bindings from {path}; the table now has {len(table)}")
    return 0


def _list(table: BindingTable, payloads: list[str]) -> int:
    by_payload = {payload: uid for uid, payload in table.as_dict().items()}
    for payload in payloads:
        uid = by_payload.get(payload, "-")
        print(f"{payload:<20} {uid:<20} {describe_payload(payload)}")
    missing = sum(1 for p in payloads if p not in by_payload)
    print(f"{len(payloads) - missing} of {len(payloads)} bound; {missing} missing; table: {table.path}")
    return 0


def _walk(choice: ReaderChoice, walk: Enrollment, seconds: float | None) -> int:
    table, payloads = walk.table, walk.payloads
    if walk.current is None:
        print(f"All {len(payloads)} cards are already bound (table: {table.path}).")
        return 0
    print(f"Enrolling with {choice.describe()}; progress is saved in {table.path}.")
    print("Ctrl-C stops; run the same command again to resume.")
    print("Control tags: NEXT skips a card, UNDO takes back the last binding.", flush=True)
    events: queue.Queue[Any] = queue.Queue()
    reader = start_reader(choice, events, None)  # no bindings: every tag arrives as its raw UID
    print(walk.prompt(), flush=True)
    try:
        for event in events_until(events, seconds, lambda: walk.current is not None):
            if isinstance(event, UnknownScanned) and event.kind is UnknownKind.NOT_ENROLLED:
                outcome = walk.offer_uid(event.raw)
            elif isinstance(event, ControlScanned) and event.name in ("NEXT", "UNDO"):
                outcome = walk.skip() if event.name == "NEXT" else walk.undo()
            elif isinstance(event, CardScanned):
                print(f"That tag already carries its own code {event.card.code()}: it needs no binding.", flush=True)
                continue
            else:
                line = format_event(event)
                if line:
                    print(line, flush=True)
                continue
            print(outcome.message, flush=True)
            if walk.current is not None:
                print(walk.prompt(), flush=True)
    except KeyboardInterrupt:
        print()
    finally:
        reader.close()
    done = walk.done_count
    print(f"{done} of {len(payloads)} bound; table: {table.path}", flush=True)
    return 0


def _camera(args: argparse.Namespace) -> int:
    """``--camera``: teach the camera of ``[camera]`` (live, or from ``--pictures``), list, or snapshot."""
    from bornes.drivers.errors import EX_CONFIG
    from bornes.firmware.appliance.config import load_config, table_language
    from bornes.firmware.deck import camera
    from bornes.firmware.language import i18n
    from bornes.firmware.storage.statelock import StateLock

    config = load_config(args.config)
    i18n.use(table_language(config))
    if config.camera is None:
        raise UserError(i18n._("No [camera] section in the config {file}: add one (docs/camera.md)").format(
            file=config.source or "(defaults)"), EX_CONFIG)
    state_dir = Path(args.state_dir or config.state.dir)
    settings = config.camera.settings(state_dir)
    edition = args.edition or config.game.edition
    kinds = camera.check_kinds(args.kind) if args.kind else list(camera.KIND_CODES)
    if args.list:
        for line in camera.describe(settings, edition):
            print(line)
        return 0
    state_dir.mkdir(parents=True, exist_ok=True)
    with StateLock.acquire(state_dir, "enroll"):  # the referee runs the camera and writes its templates
        if args.snapshot:
            print(camera.snapshot(settings, args.snapshot))
            return 0
        if args.pictures:
            return camera.teach_pictures(settings, args.pictures, kinds if args.kind else [], edition,
                                         lambda line: print(line, flush=True))
        print(i18n._("Teaching the camera ({camera}); Ctrl-C stops and keeps what it was taught before.").format(
            camera=settings.describe()), flush=True)
        return camera.teach_live(settings, kinds, edition, lambda line: print(line, flush=True), args.seconds)
