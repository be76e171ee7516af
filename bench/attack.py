"""``python -m bench.attack``: the figures of docs/web.md and docs/club.md "Under attack" (issues 20 and 32).

On loopback only, against a real ``bornes web`` (with a real referee loop behind its control
socket, so a phone pairs with a PIN) and a real club night (Mosquitto, a bridge, ``bornes club``):

* **the budgets** (``--only budgets``, issue 32): while 50 addresses (127.0.0.2–127.0.0.51) each
  hold 16 half-open requests reconnecting as soon as one is closed, and separately while they each
  hold 4 live streams, a phone loads ``GET /`` every 0.25 s on a new connection (served ≥ 99 %,
  p95 ≤ 250 ms) and a paired phone opens its live stream (every time); the same for the board,
  whose projector is a browser where the organiser is logged in. The attack runs in a process of
  its own; the server's peak memory and tasks are printed beside (they size the units' ceilings);
* **the figures** (``--only figures``, issue 20): held connections before a page fails, from one
  address and from one address each; the PDF burst (30 downloads at once: children, peak RSS,
  tasks); the board's RSS before and after a 50 MB body; ``systemd-analyze security --offline=yes``.

It prints numbers and asserts nothing (the tests do that); with ``--only budgets`` the exit status
is 1 when a budget is not met.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import http.client
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
BORNES = [sys.executable, "-m", "bornes.firmware.cli"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


@contextlib.contextmanager
def web(directory: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    state = directory / "state"
    script = "setup edition=winning-moves names=Ann,Bob dealer=B\n" + "".join(
        f"{line}\n" for line in (ROOT / "tests" / "flow" / "games" / "two-players-classic.feed").read_text()
        .splitlines() if line.startswith(("scan", "press")))
    fed = subprocess.run([*BORNES, "feed", "-", "--state-dir", str(state)], input=script.encode(), check=False,
                         capture_output=True, cwd=ROOT)
    if fed.returncode not in (0, 1):  # 1: the script has inputs the table refuses, as game scripts mean to
        raise RuntimeError(f"bornes feed failed: {fed.stderr.decode(errors='replace')}")
    port = free_port()
    config = directory / "web.toml"
    config.write_text(f'[state]\ndir = "{state}"\n[control]\nsocket = "{directory / "control.sock"}"\n'
                      '[log]\nlevel = "warning"\n')
    process = subprocess.Popen([*BORNES, "web", "--config", str(config), "--host", "127.0.0.1", "--port",
                                str(port)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_up(url + "/api/table", process)
        yield url, process
    finally:
        process.terminate()
        process.wait(10)


def page_ok(url: str, address: str = "127.0.0.1") -> bool:
    transport = httpx.HTTPTransport(local_address=address)
    try:
        with httpx.Client(transport=transport, timeout=5) as client:
            return client.get(url + "/").status_code == 200
    except httpx.HTTPError:
        return False


def half_open(port: int, address: str) -> socket.socket | None:
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
    except OSError:
        return None
    return sock


def stream(port: int, address: str) -> socket.socket | None:
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))
        sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head = sock.recv(64)
    except OSError:
        return None
    if not head.startswith(b"HTTP/1.1 200"):
        sock.close()
        return None
    return sock


def held_until_failure(url: str, kind: str, one_address: bool, most: int = 400) -> tuple[int, int]:
    """(connections the server kept, connections opened) when a page from another address first
    fails, or after ``most`` tries."""
    port = int(url.rsplit(":", 1)[1])
    held: list[socket.socket] = []
    opened = 0
    try:
        for index in range(most):
            address = "127.0.2.1" if one_address else f"127.0.{3 + index // 250}.{1 + index % 250}"
            sock = half_open(port, address) if kind == "half-open" else stream(port, address)
            opened += 1
            if sock is not None:
                held.append(sock)
            if index % 10 == 9 and not page_ok(url, "127.0.9.9"):
                break
        if kind == "stream":
            return len(held), opened  # only the streams answered 200 are held
        kept = 0
        for sock in held:  # the server answers 503 and closes what it does not keep: count the silent ones
            sock.settimeout(0.05)
            try:
                sock.recv(64, socket.MSG_PEEK)
            except TimeoutError:
                kept += 1
            except OSError:
                pass
        return kept, opened
    finally:
        for sock in held:
            sock.close()


def children_rss(pid: int) -> tuple[int, float]:
    """(children, MB of the process and its children's VmRSS)."""
    pids = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            pids += [int(p) for p in (task / "children").read_text().split()]
    total = 0
    for one in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{one}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return len(pids) - 1, total / 1024


def pdf_burst(url: str, process: subprocess.Popen[bytes], downloads: int = 30) -> tuple[int, float, dict[int, int]]:
    most_children, most_rss = 0, 0.0
    stop = threading.Event()
    codes: dict[int, int] = {}

    def watch() -> None:
        nonlocal most_children, most_rss
        while not stop.is_set():
            children, rss = children_rss(process.pid)
            most_children, most_rss = max(most_children, children), max(most_rss, rss)
            time.sleep(0.01)

    def download(index: int) -> None:
        transport = httpx.HTTPTransport(local_address=f"127.0.5.{index + 1}")
        with httpx.Client(transport=transport, timeout=300) as client:
            code = client.get(url + "/games/1/sheet.pdf").status_code
        codes[code] = codes.get(code, 0) + 1

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    workers = [threading.Thread(target=download, args=(i,)) for i in range(downloads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    stop.set()
    watcher.join()
    return most_children, most_rss, codes


def board_body(directory: Path) -> tuple[float, float, str]:
    """The board's RSS before and after one 50 MB organiser request, and its answer."""
    sys.path.insert(0, str(ROOT))
    from bench.club import ORGANISER_PASSWORD, club_night, rss_kib

    with club_night(directory / "club", ["t1"]) as club:
        before = rss_kib(club.board.pid) / 1024
        token = base64.b64encode(f"organiser:{ORGANISER_PASSWORD}".encode()).decode()
        with socket.create_connection(("127.0.0.1", club.web_port), timeout=30) as sock:
            sock.sendall(f"POST /organiser/entrants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic {token}\r\n"
                         "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 50000000\r\n\r\n"
                         .encode())
            answer = b""
            with contextlib.suppress(OSError):
                for _ in range(50):
                    sock.sendall(b"x" * 1_000_000)
            with contextlib.suppress(OSError):
                answer = sock.recv(200)
        time.sleep(0.5)
        after = rss_kib(club.board.pid) / 1024
    return before, after, answer.split(b"\r\n", 1)[0].decode(errors="replace")


def exposure() -> dict[str, str]:
    """``systemd-analyze security --offline=yes`` of each unit file as shipped: the file alone, read by this
    machine's systemd. The figures of a booted system (docs/system.md) read the unit as its running
    manager loaded it, and differ."""
    analyze = shutil.which("systemd-analyze")
    found: dict[str, str] = {}
    if analyze is None:
        return found
    with tempfile.TemporaryDirectory() as scratch:
        for unit in sorted((ROOT / "systemd").glob("*.service")):
            copy = Path(scratch) / unit.name
            copy.write_text(unit.read_text())
            done = subprocess.run([analyze, "security", "--offline=yes", "--no-pager", str(copy)],
                                  capture_output=True, text=True, check=False)
            match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout + done.stderr)
            found[unit.name] = match.group(1) if match else "?"
    return found


# -- the budgets of issue 32: a household's phones and a club's board through a flood ------------------------

#: The attackers' addresses: 127.0.0.2 to 127.0.0.51 (all of 127.0.0.0/8 is this machine).
ATTACKERS = [f"127.0.0.{2 + index}" for index in range(50)]
PHONE = "127.0.0.100"  # a phone of the household (or a player looking at the board), never paired
PAIRED = "127.0.0.101"  # a paired phone (or the board's projector, where the organiser is logged in)
LINE_EVERY = 2.0  # the half-open requests send one more header line every 2 s


class Tally:
    """What the attacking process did, in shared memory: connections opened, held now, closed on it."""

    def __init__(self, context: Any) -> None:
        self.opened = context.Value("q", 0)
        self.held = context.Value("q", 0)
        self.closed = context.Value("q", 0)
        self.refused = context.Value("q", 0)

    def add(self, name: str, amount: int = 1) -> None:
        value = getattr(self, name)
        with value.get_lock():
            value.value += amount


async def _half_open(port: int, address: str, tally: Tally, stop: Any) -> None:
    """One half-open request after another: a request line, then a header line every 2 s, never the end;
    when the server closes it, another at once."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        except OSError:
            tally.add("refused")
            await asyncio.sleep(0.05)
            continue
        tally.add("opened")
        tally.add("held")
        try:
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            while not stop.is_set():
                try:
                    data = await asyncio.wait_for(reader.read(4096), LINE_EVERY)
                except TimeoutError:
                    writer.write(b"X-a: b\r\n")
                    continue
                if not data:
                    break
        except OSError:
            pass
        finally:
            tally.add("held", -1)
            tally.add("closed")
            writer.close()


async def _held_stream(port: int, address: str, path: str, tally: Tally, stop: Any) -> None:
    """A live stream held open; when the server ends it, another at once (after a refusal: a second later)."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        except OSError:
            tally.add("refused")
            await asyncio.sleep(0.05)
            continue
        tally.add("opened")
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            head = await reader.read(64)
            if not head.startswith(b"HTTP/1.1 200"):
                tally.add("refused")
                writer.close()
                await asyncio.sleep(1.0)
                continue
            tally.add("held")
            try:
                while not stop.is_set() and await reader.read(4096):
                    pass
            finally:
                tally.add("held", -1)
                tally.add("closed")
        except OSError:
            pass
        finally:
            writer.close()


def _attack(kind: str, port: int, addresses: list[str], each: int, path: str, tally: Tally, stop: Any) -> None:
    """The attacking process: ``each`` connections from every address, kept up until ``stop``."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    with contextlib.suppress(ValueError, OSError):  # 800 sockets and more: past a default soft limit of 1024
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    async def run() -> None:
        if kind == "half-open":
            tasks = [_half_open(port, address, tally, stop) for address in addresses for _ in range(each)]
        else:
            tasks = [_held_stream(port, address, path, tally, stop) for address in addresses for _ in range(each)]
        workers = [asyncio.ensure_future(task) for task in tasks]
        while not stop.is_set():
            await asyncio.sleep(0.1)
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)

    asyncio.run(run())


@contextlib.contextmanager
def attack(kind: str, port: int, addresses: list[str], each: int, path: str = "/events",
           settle: float = 30.0) -> Iterator[Tally]:
    """An attack in a process of its own (the measuring side keeps its own interpreter), under way
    until the block ends. It starts once the attackers hold what they can (or after ``settle`` s)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    tally = Tally(context)
    stop = context.Event()
    process = context.Process(target=_attack, args=(kind, port, addresses, each, path, tally, stop), daemon=True)
    process.start()
    deadline = time.monotonic() + settle
    wanted = len(addresses) * each
    steady = 0
    last = -1
    while time.monotonic() < deadline:  # the held count stops growing: every attacker has what it can get
        time.sleep(0.25)
        held = tally.held.value
        steady = steady + 1 if held == last and held > 0 else 0
        last = held
        if held >= wanted or steady >= 8:
            break
    try:
        yield tally
    finally:
        stop.set()
        process.join(15)
        if process.is_alive():
            process.kill()
            process.join()


@dataclass
class Tries:
    """A legitimate client's tries during an attack."""

    done: int = 0
    served: int = 0
    seconds: list[float] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=dict)

    def add(self, ok: bool, took: float, why: str = "") -> None:
        self.done += 1
        self.served += ok
        if ok:
            self.seconds.append(took)
        else:
            self.failures[why] = self.failures.get(why, 0) + 1

    def p95(self) -> float:
        if not self.seconds:
            return float("nan")
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]


def _request(url: str, address: str, path: str, headers: dict[str, str] | None) -> http.client.HTTPConnection:
    """A new connection from ``address`` (as a phone opening the page), the request sent."""
    host, port = url.rsplit("/", 1)[1].rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(address, 0))
    connection.request("GET", path, headers={"host": f"{host}:{port}", **(headers or {})})
    return connection


def page_try(url: str, address: str, headers: dict[str, str] | None = None) -> tuple[bool, float, str]:
    """``GET /`` on a new connection: served (200, the whole page)?, seconds, why not.

    The standard library's client: httpx makes an SSL context for every client, tens of ms of this
    side's CPU that the server's figure must not carry.
    """
    started = time.monotonic()
    try:
        connection = _request(url, address, "/", headers)
        try:
            reply = connection.getresponse()
            reply.read()
        finally:
            connection.close()
    except (OSError, http.client.HTTPException) as error:
        return False, time.monotonic() - started, type(error).__name__
    return reply.status == 200, time.monotonic() - started, str(reply.status)


def stream_try(url: str, address: str, headers: dict[str, str]) -> tuple[bool, float, str]:
    """``GET /events`` as a page's EventSource: connected (200 and a first message)?, seconds, why not."""
    started = time.monotonic()
    try:
        connection = _request(url, address, "/events", headers)
        try:
            reply = connection.getresponse()
            if reply.status != 200:
                return False, time.monotonic() - started, str(reply.status)
            while line := reply.readline():
                if line.strip() and not line.startswith(b"retry:"):
                    return True, time.monotonic() - started, ""
        finally:
            connection.close()
    except (OSError, http.client.HTTPException) as error:
        return False, time.monotonic() - started, type(error).__name__
    return False, time.monotonic() - started, "ended"


def legitimate(url: str, trusted: dict[str, str], pages: int, streams: int) -> tuple[Tries, Tries]:
    """``pages`` page loads from :data:`PHONE`, one every 0.25 s, and meanwhile ``streams`` live streams
    from :data:`PAIRED` (with ``trusted``: the pairing cookie, or the organiser's password)."""
    page, live = Tries(), Tries()

    def streams_loop() -> None:
        for _ in range(streams):
            live.add(*stream_try(url, PAIRED, trusted))
            time.sleep(0.5)

    other = threading.Thread(target=streams_loop)
    other.start()
    for _ in range(pages):
        started = time.monotonic()
        page.add(*page_try(url, PHONE))
        time.sleep(max(0.0, 0.25 - (time.monotonic() - started)))
    other.join()
    return page, live


@contextlib.contextmanager
def referee_behind(control_socket: Path) -> Iterator[Any]:
    """A real referee loop in this process behind the control socket, so a phone can pair (a PIN)."""
    import queue as queues

    from bornes.firmware.appliance.control import ControlListener
    from bornes.firmware.appliance.referee import STOP, Referee
    from bornes.firmware.table.flow import TableFlow

    events: queues.Queue[Any] = queues.Queue()
    referee = Referee(TableFlow(), events, watchdog=False)
    defaults = {"edition": "winning-moves", "players": 2, "names": ["Ann", "Bob", "C", "D", "E", "F", "G", "H"],
                "dealer": 0, "options": {}}
    listener = ControlListener(control_socket, events, defaults)
    stop = threading.Event()
    loop = threading.Thread(target=referee.run, args=(stop,), daemon=True)
    loop.start()
    try:
        yield referee
    finally:
        events.put(STOP)
        loop.join(5)
        listener.close()


def pair(url: str, referee: Any) -> dict[str, str]:
    """Pair :data:`PAIRED` as a person would (ask, read the PIN on the panel, type it): its cookie header."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=PAIRED), timeout=10) as phone:
        asked = phone.post(url + "/pair/start", headers={"content-type": "application/x-www-form-urlencoded"})
        if asked.status_code != 200:
            raise RuntimeError(f"no PIN: {asked.status_code}")
        reply = phone.post(url + "/pair", data={"pin": referee.pairing.pin})
        cookie = phone.cookies.get("bornes_pair")
        if reply.status_code != 303 or not cookie:
            raise RuntimeError(f"not paired: {reply.status_code}")
    return {"cookie": f"bornes_pair={cookie}"}


@dataclass
class Budget:
    """One attack against one app: the legitimate clients' tries, what the attacker held, and the
    server's peak memory (VmRSS, with its children) and tasks (threads and children: what TasksMax counts)."""

    app: str
    attack: str
    page: Tries
    live: Tries
    held: int
    opened: int
    peak_mb: float = 0.0
    peak_tasks: int = 0

    def met(self) -> bool:
        return (self.page.served >= 0.99 * self.page.done and self.p95_ms() <= 250
                and self.live.served == self.live.done)

    def p95_ms(self) -> float:
        return self.page.p95() * 1000


def tasks(pid: int) -> int:
    """Threads of the process and of its children: what a unit's TasksMax counts."""
    count = 0
    with contextlib.suppress(OSError):
        count = len(list(Path(f"/proc/{pid}/task").iterdir()))
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                with contextlib.suppress(OSError):
                    count += len(list(Path(f"/proc/{child}/task").iterdir()))
    return count


@contextlib.contextmanager
def peaks(pid: int | None) -> Iterator[list[float]]:
    """[peak MB (VmRSS with children), peak tasks] of ``pid`` while the block runs, sampled every 50 ms."""
    found = [0.0, 0.0]
    stop = threading.Event()

    def watch() -> None:
        while pid is not None and not stop.is_set():
            found[0] = max(found[0], children_rss(pid)[1])
            found[1] = max(found[1], tasks(pid))
            stop.wait(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield found
    finally:
        stop.set()
        watcher.join(5)


def under_attack(app: str, url: str, trusted: dict[str, str], *, addresses: list[str] = ATTACKERS,
                 half_open_each: int = 16, streams_each: int = 4, pages: int = 60,
                 streams: int = 15, pid: int | None = None) -> list[Budget]:
    """The two attacks of issue 32 against one app, one after the other, each with its legitimate tries."""
    port = int(url.rsplit(":", 1)[1])
    found = []
    for kind, each in (("half-open", half_open_each), ("streams", streams_each)):
        with peaks(pid) as peak, attack(kind, port, addresses, each) as tally:
            held_before = tally.held.value
            page, live = legitimate(url, trusted, pages, streams)
            found.append(Budget(app, f"{len(addresses)} addresses x {each} {kind}", page, live,
                                min(held_before, tally.held.value), tally.opened.value))
        found[-1].peak_mb, found[-1].peak_tasks = peak[0], int(peak[1])
        time.sleep(1.0)  # the server closes what the attack left
    return found


def budget_rows(budgets: list[Budget]) -> list[str]:
    lines = ["| app | attack (held by the attacker) | phone's GET / served (>= 99 %) | p95 (<= 250 ms) "
             "| trusted /events connected (every time) | met? | server's peak RSS, tasks |",
             "|---|---|---|---|---|---|---|"]
    for b in budgets:
        why = ", ".join(f"{count} x {reason}" for reason, count in sorted(b.page.failures.items()))
        p95 = f"{b.p95_ms():.0f} ms" if b.page.seconds else "none served"
        lines.append(f"| {b.app} | {b.attack} ({b.held} held, {b.opened} opened) | {b.page.served} of "
                     f"{b.page.done}{f' ({why})' if why else ''} | {p95} | {b.live.served} of "
                     f"{b.live.done} | {'yes' if b.met() else 'NO'} | {b.peak_mb:.1f} MB, {b.peak_tasks} |")
    return lines


def budgets(directory: Path, *, skip_club: bool = False, pages: int = 60, streams: int = 15) -> list[Budget]:
    found = []
    with web(directory) as (url, process), referee_behind(directory / "control.sock") as referee:
        found += under_attack("web", url, pair(url, referee), pages=pages, streams=streams, pid=process.pid)
    if not skip_club:
        from bench.club import club_night, organiser_headers

        with club_night(directory / "club-budgets", ["t1"]) as club:
            token = {"authorization": organiser_headers()["Authorization"]}
            found += under_attack("board", f"http://127.0.0.1:{club.web_port}", token, pages=pages, streams=streams,
                                  pid=club.board.pid)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-club", action="store_true", help="no broker here: leave out the board's figure")
    parser.add_argument("--only", choices=("budgets", "figures"),
                        help="budgets: issue 32's floods only; figures: issue 20's figures only")
    parser.add_argument("--pages", type=int, default=60, help="the phone's page loads per attack (default 60)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        if args.only != "figures":
            found = budgets(directory, skip_club=args.skip_club, pages=args.pages)
            print("\n".join(budget_rows(found)))
            if args.only == "budgets":
                sys.exit(0 if all(b.met() for b in found) else 1)
        with web(directory) as (url, process):
            for kind in ("half-open", "stream"):
                for one in (True, False):
                    kept, opened = held_until_failure(url, kind, one)
                    who = "one address" if one else "one address each"
                    fails = "a page failed" if opened < 400 else "pages still served"
                    print(f"web: {kind} connections from {who}: {opened} opened, {kept} kept; {fails}")
                time.sleep(1)
            with peaks(process.pid) as peak:
                children, rss, codes = pdf_burst(url, process)
            print(f"web: 30 PDF downloads at once: at most {children} PDF children, peak RSS with children "
                  f"{rss:.0f} MB, at most {peak[1]:.0f} tasks, answers {dict(sorted(codes.items()))}")
        if not args.skip_club:
            before, after, answer = board_body(directory)
            print(f"club: board RSS {before:.1f} MB before a 50 MB body, {after:.1f} MB after; answer: {answer}")
    version = subprocess.run(["systemd-analyze", "--version"], capture_output=True, text=True, check=False) \
        if shutil.which("systemd-analyze") else None
    for unit, level in exposure().items():
        print(f"systemd-analyze security --offline=yes {unit}: {level} "
              f"({version.stdout.split(chr(10))[0] if version else '?'}, the unit file alone)")


if __name__ == "__main__":
    main()
