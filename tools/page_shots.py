"""Screenshots of every page of ``bornes web`` and the club board, in English and French, at a phone's
width (390) and a laptop's (1280), whole pages, in the headless Chromium the browser tests use.

    python -m tools.page_shots OUT             # take them (from the checkout's root)
    python -m tools.page_shots --compare A B   # compare two folders pixel for pixel (PIL ImageChops)

For a change that must not change how pages look: take them before, take them after, compare.
The games and the club's database are made once in FIXTURE and reused, so both runs show the same
dates. Needs chromium, chromium-driver and the dev extra (selenium); the screenshots stay out of git.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FIXTURE = Path(tempfile.gettempdir()) / "bornes-page-shots"
WIDTHS = (390, 1280)


def _helpers() -> Any:
    """The web tests' helpers (a real ``bornes web``, a referee on a control socket, ``bornes feed``)."""
    return importlib.import_module("tests.web.server")


def compare(a: Path, b: Path) -> int:
    from PIL import Image, ImageChops

    names = sorted({p.name for p in a.glob("*.png")} | {p.name for p in b.glob("*.png")})
    same = differ = 0
    for name in names:
        if not (a / name).exists() or not (b / name).exists():
            print("MISSING", name, (a / name).exists(), (b / name).exists())
            differ += 1
            continue
        x, y = Image.open(a / name).convert("RGB"), Image.open(b / name).convert("RGB")
        if x.size != y.size:
            print("SIZE", name, x.size, y.size)
            differ += 1
            continue
        box = ImageChops.difference(x, y).getbbox()
        if box:
            print("DIFF", name, box)
            differ += 1
        else:
            same += 1
    print(f"{len(names)} screenshots: {same} identical, {differ} different")
    return 1 if differ else 0


def make_fixture() -> None:
    helpers = _helpers()
    GAMES, feed = helpers.GAMES, helpers.feed

    if (FIXTURE / "done").exists():
        return
    FIXTURE.mkdir(parents=True, exist_ok=True)
    state = FIXTURE / "state"
    for name in ("hasbro-2016.feed", "mille-bornes-fr.feed", "four-players-partnership.feed"):
        feed((GAMES / name).read_text(), state)
    feed("setup edition=winning-moves names=Léa,Bob dealer=B\nscan MB-ROLL-01\nscan MB-STOP-01\npress CF\n"
         "scan MB-RIGHTOFWAY-01\n", state)
    fr_state = FIXTURE / "state-fr"
    feed("setup edition=dujardin names=Zoé,Élie dealer=B\nscan MB-ROLL-01\nscan MB-STOP-01\nscan MB-D50-01\n",
         fr_state)
    from bornes.firmware.storage.live import JournalFollower

    snaps = {}
    for language, where in (("en", state), ("fr", fr_state)):
        with JournalFollower(where, language=language) as follower:
            snaps[language] = follower.snapshot()
    (FIXTURE / "snaps.json").write_text(json.dumps(snaps, ensure_ascii=False))
    from bornes.firmware.club.store import ClubStore

    created = "2026-11-24T20:00:00+00:00"
    store = ClubStore(FIXTURE / "club.sqlite3")
    for name in ("Anne", "Bruno", "Chloé", "David", "<b>Zoé</b>"):
        store.add_entrant(name)
    store.add_entrant("Eve")
    number = store.new_round("round-robin", ["t1", "t2", "t3"])
    assignments = store.publish_round(number)
    a = assignments[0]
    names = a["names"]
    store.add_result(a["table"], {"game": 1, "created": created, "edition": "winning-moves", "teams": False,
                                  "tie": False, "winner": 0, "record": "r", "finished": created,
                                  "sides": [{"name": n, "players": [n], "total": t}
                                            for n, t in zip(names, (700, 350), strict=False)]})
    store.add_result("t9", {"game": 4, "created": created, "edition": "dujardin", "teams": False, "tie": True,
                            "winner": None, "record": "r",
                            "sides": [{"name": n, "players": [n], "total": 400} for n in ("X", "Y")]})
    store.reject("bornes/lyon/t3/live", "not JSON")
    store.close()
    ClubStore(FIXTURE / "empty.sqlite3").close()
    (FIXTURE / "done").write_text("")


def driver(headers: dict[str, str] | None = None) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--hide-scrollbars", f"--user-data-dir={tempfile.mkdtemp(prefix='bornes-shots-')}"):
        options.add_argument(argument)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    if headers:
        d.execute_cdp_cmd("Network.enable", {})
        d.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": headers})
    return d


def wait(condition: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = condition()
        except Exception:
            value = None
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def shoot(d: Any, out: Path, name: str, ready: Any = None) -> None:
    for width in WIDTHS:
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": False})
        if ready:
            wait(lambda: ready(d))
        time.sleep(0.3)
        height = d.execute_script("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": width, "height": min(height, 8000), "deviceScaleFactor": 1, "mobile": False})
        time.sleep(0.3)
        d.save_screenshot(str(out / f"{name}-{width}.png"))
    d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def web_pages(out: Path, language: str) -> None:
    referee_table, web_server = _helpers().referee_table, _helpers().web_server

    base = Path(tempfile.mkdtemp(prefix="shots-web-"))
    d = driver()
    try:
        with referee_table(base / "control.sock") as table, \
                web_server(FIXTURE / "state", base / "control.sock", language=language) as web:
            pages = [("table", "/", lambda d: d.execute_script("return document.body.dataset.updates") == "1"),
                     ("sheet-latest", "/sheet", None), ("sheet-1", "/games/1/sheet", None),
                     ("sheet-3", "/games/3/sheet", None),
                     ("history", "/history", None), ("history-ann", "/history?player=Ann", None),
                     ("stats", "/stats", None), ("stats-ann", "/stats?player=Ann", None),
                     ("viewer-0", "/games/2/view?step=0", None), ("viewer-4", "/games/2/view?step=4", None),
                     ("viewer-end", "/games/4/view", None),
                     ("setup-unpaired", "/setup", None), ("error-404", "/games/99/sheet", None),
                     ("error-nope", "/nope", None), ("error-step", "/games/1/view?step=x", None)]
            for name, path, ready in pages:
                d.get(web.url + path)
                shoot(d, out, f"web-{language}-{name}", ready)
            d.get(web.url + "/setup")
            d.find_element("css selector", "form.inline button").click()
            wait(lambda: d.find_elements("css selector", "p.notice"))
            shoot(d, out, f"web-{language}-pair-started")
            d.find_element("name", "pin").send_keys("000000")
            d.find_element("css selector", "form.pin button").click()
            wait(lambda: d.find_elements("css selector", "p.notice.error"))
            shoot(d, out, f"web-{language}-pair-wrong")
            d.get(web.url + "/setup")
            d.find_element("css selector", "form.inline button").click()
            wait(lambda: d.find_elements("css selector", "p.notice"))
            pin = wait(lambda: table.referee.pairing.pin)
            d.find_element("name", "pin").send_keys(pin)
            d.find_element("css selector", "form.pin button").click()
            wait(lambda: d.find_elements("css selector", "form.setup"))
            shoot(d, out, f"web-{language}-setup-paired")
            d.get(web.url + "/setup?edition=dujardin")
            shoot(d, out, f"web-{language}-setup-dujardin")
            d.find_element("css selector", "details").click()
            shoot(d, out, f"web-{language}-setup-options")
            d.get(web.url + "/")
            shoot(d, out, f"web-{language}-table-paired",
                  lambda d: d.execute_script("return document.body.dataset.updates") == "1")
            d.get(web.url + "/setup")
            d.find_element("css selector", "form.setup button").click()
            wait(lambda: d.find_elements("css selector", "p.notice"))
            shoot(d, out, f"web-{language}-setup-sent")
            d.get(web.url + "/setup")
            d.find_element("css selector", "form[action='/unpair'] button").click()
            wait(lambda: d.find_elements("css selector", "p.notice.ok"))
            shoot(d, out, f"web-{language}-unpaired")
    finally:
        d.quit()


def club_pages(out: Path, language: str) -> None:
    import uvicorn

    from bornes.firmware.club.board import Board
    from bornes.firmware.club.settings import load_board
    from bornes.firmware.club.store import ClubStore
    from bornes.firmware.club.web import create_app
    free_port = _helpers().free_port

    snaps = json.loads((FIXTURE / "snaps.json").read_text())
    for variant, db in (("full", "club.sqlite3"), ("empty", "empty.sqlite3")):
        work = Path(tempfile.mkdtemp(prefix="shots-club-"))
        shutil.copy(FIXTURE / db, work / "club.sqlite3")
        settings = load_board(None, club="lyon", database=str(work / "club.sqlite3"), title="Club de Lyon")
        store = ClubStore(settings.database)
        if variant == "full":
            store.set_live("t1", json.dumps(snaps["en"]), 0.0)
            store.set_live("t2", json.dumps(snaps["fr"]), 0.0)
            store.set_status("t2", json.dumps({"online": True, "web": "http://t2.local:8080/"}))
            store.set_status("t3", json.dumps({"online": False}))
            store.set_live("t4", json.dumps({"sides": [{"name": 5}], "language": "xx"}), 0.0)
        board = Board(settings, store)
        port = free_port()
        app = create_app(board, store, "organiser-pw", language=language)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        wait(lambda server=server: server.started)
        import base64

        auth = "Basic " + base64.b64encode(b"o:organiser-pw").decode()
        d = driver({"Authorization": auth})
        url = f"http://127.0.0.1:{port}"
        try:
            for name, path in (("tables", "/"), ("standings", "/standings"), ("rounds", "/rounds"),
                               ("organiser", "/organiser")):
                d.get(url + path)
                ready = (lambda d: d.execute_script("return document.body.dataset.live") == "yes") \
                    if path == "/" else None
                shoot(d, out, f"club-{language}-{variant}-{name}", ready)
            if variant == "full":
                # the organiser's error page: a form the store refuses
                d.get(url + "/organiser")
                d.execute_script("const f=document.querySelector(\"form[action='/organiser/entrants']\");"
                                 "f.querySelector('[name=name]').value='Anne';f.submit();")
                wait(lambda d=d: d.find_elements("css selector", "p.bad"))
                shoot(d, out, f"club-{language}-organiser-error")
        finally:
            d.quit()
            server.should_exit = True
            thread.join(10)
            store.close()


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    if sys.argv[1] == "--compare":
        return compare(Path(sys.argv[2]), Path(sys.argv[3]))
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    make_fixture()
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    for language in ("en", "fr"):
        if only in ("", "web"):
            web_pages(out, language)
        if only in ("", "club"):
            club_pages(out, language)
    print(len(list(out.glob("*.png"))), "screenshots in", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
