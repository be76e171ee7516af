"""``python -m bench.attack``: the figures of docs/web.md and docs/club.md "Under attack" (issue 20).

Measures, on loopback only, against a real ``bornes web`` (and ``bornes club`` for the body size):

* held connections before a page fails: half-open requests (slowloris) and live-table streams,
  from one client address, then from one address each (all of 127.0.0.0/8 is this machine);
* the PDF burst: 30 downloads at once, the most PDF children seen at once and the peak RSS of the
  web process and its children together;
* the board's RSS before and after a 50 MB request body;
* ``systemd-analyze security`` of every unit.

It prints numbers and asserts nothing (the tests do that).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

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
    subprocess.run([*BORNES, "feed", "-", "--state-dir", str(state)], input=script.encode(), check=True,
                   capture_output=True, cwd=ROOT)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-club", action="store_true", help="no broker here: leave out the board's figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        with web(directory) as (url, process):
            for kind in ("half-open", "stream"):
                for one in (True, False):
                    kept, opened = held_until_failure(url, kind, one)
                    who = "one address" if one else "one address each"
                    fails = "a page failed" if opened < 400 else "pages still served"
                    print(f"web: {kind} connections from {who}: {opened} opened, {kept} kept; {fails}")
                time.sleep(1)
            children, rss, codes = pdf_burst(url, process)
            print(f"web: 30 PDF downloads at once: at most {children} PDF children, peak RSS with children "
                  f"{rss:.0f} MB, answers {dict(sorted(codes.items()))}")
        if not args.skip_club:
            before, after, answer = board_body(directory)
            print(f"club: board RSS {before:.1f} MB before a 50 MB body, {after:.1f} MB after; answer: {answer}")
    for unit, level in exposure().items():
        print(f"systemd-analyze security {unit}: {level}")


if __name__ == "__main__":
    main()
