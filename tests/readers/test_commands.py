"""The reader commands end to end: labels read back from PNG, scan-test, enroll, tags write."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium
import pytest
import zxingcpp

from bornes.drivers.parts import LAYOUT_TEST_CODE
from bornes.drivers.readers.bindings import BindingTable
from bornes.drivers.readers.em4100 import em4100_frame
from bornes.drivers.readers.lines import LineDecoder
from bornes.drivers.readers.ntag import decode_text_tlv
from bornes.firmware.cli import main
from bornes.firmware.deck.enrollment import deck_payloads
from tests.readers.fakes import FakePn532, FakeTag, PtyDevice

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_system_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{tmp_path / "state"}"\n')
    monkeypatch.setenv("BORNES_CONFIG", str(config))


def decoded_codes(pdf_path: Path) -> list[bytes]:
    """The raw bytes of every code on every page, as a scanner would send them."""
    found: list[bytes] = []
    pdf = pdfium.PdfDocument(str(pdf_path))
    for index in range(len(pdf)):
        image = pdf[index].render(scale=300 / 72, grayscale=True).to_pil()
        found += [bytes(result.bytes) for result in zxingcpp.read_barcodes(image)]
    return found


# Rendering and decoding a whole deck's PDF takes seconds: the fast tier reads back one sheet, the suite all three.
@pytest.mark.parametrize("sheet", ["a4-l7160", pytest.param("letter-5160", marks=pytest.mark.slow),
                                   pytest.param("a4-l7651", marks=pytest.mark.slow)])
def test_labels_pdf_reads_back_every_code(sheet: str, tmp_path: Path) -> None:
    out = tmp_path / "deck.pdf"
    assert main(["labels", "--edition", "winning-moves", "--sheet", sheet, "--out", str(out)]) == 0
    expected = [*deck_payloads("winning-moves"), LAYOUT_TEST_CODE]
    assert len(expected) == 106 + 6 + 1
    # What a scanner in serial mode would send for each code, through the real line decoder.
    decoder = LineDecoder()
    codes = [r.raw for text in decoded_codes(out) for r in decoder.feed(text + b"\r\n")]
    assert sorted(codes) == sorted(expected)


def test_label_sheet_names_match_the_layouts() -> None:
    from bornes.firmware.commands.labels import DEFAULT_SHEET as COMMAND_DEFAULT
    from bornes.firmware.commands.labels import SHEET_NAMES
    from bornes.firmware.deck.labels import DEFAULT_SHEET, SHEETS

    assert set(SHEET_NAMES) == set(SHEETS) and COMMAND_DEFAULT == DEFAULT_SHEET


def test_labels_short_deck_and_skip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "short.pdf"
    assert main(["labels", "--edition", "parker-1988", "--players", "2", "--no-controls", "--skip", "20",
                 "--out", str(out)]) == 0  # fmt: skip
    assert "wrote 101 labels on 6 page(s)" in capsys.readouterr().out
    assert main(["labels", "--edition", "nope", "--out", str(out)]) != 0
    assert "unknown edition" in capsys.readouterr().err


class Transcript(io.StringIO):
    """What a command prints, readable while it runs (capsys can only be read between calls): the
    test's feeder thread taps a card when the command asks for it, not after a guessed sleep."""

    def __init__(self) -> None:
        super().__init__()
        self._changed = threading.Condition()

    @classmethod
    def instead_of_stdout(cls, monkeypatch: pytest.MonkeyPatch) -> Transcript:
        transcript = cls()
        monkeypatch.setattr(sys, "stdout", transcript)
        return transcript

    def write(self, text: str) -> int:
        with self._changed:
            written = super().write(text)
            self._changed.notify_all()
        return written

    def text(self) -> str:
        with self._changed:
            return self.getvalue()

    def wait_for(self, wanted: str, timeout: float = 60.0) -> None:
        """Return once ``wanted`` was printed; the bound is reached only when it never is."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while wanted not in self.getvalue():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{wanted!r} never printed; so far: {self.getvalue()!r}")
                self._changed.wait(left)


def wait_until(done: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def run_bornes(*args: str, feed: object = None, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bornes.firmware.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def test_scan_test_with_no_reader_says_so_in_one_line(tmp_path: Path) -> None:
    result = run_bornes("scan-test", "--port", str(tmp_path / "ttyACM9"), "--seconds", "0.6")
    lost = [line for line in result.stdout.splitlines() if "reader lost" in line]
    assert len(lost) == 1 and "No such file or directory" in lost[0]
    assert "Traceback" not in result.stderr
    assert result.returncode == 69


def test_scan_test_prints_cards_unknowns_and_checksum_errors() -> None:
    device = PtyDevice()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bornes.firmware.cli", "scan-test", "--port", device.path, "--protocol", "em4100",
         "--count", "2", "--seconds", "120"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    lines = [proc.stdout.readline(), proc.stdout.readline()]
    assert "reader connected" in lines[-1]
    device.write(em4100_frame("0102030405", checksum=0) + em4100_frame("0102030405") + b"\x02zz\x03")
    # The second card only once the first and the bad checksum are printed: --count 2 ends the command at it.
    seen = ""
    while "unknown card '0102030405'" not in seen or "checksum:" not in seen:
        line = proc.stdout.readline()
        assert line, f"scan-test ended early: {seen}"
        seen += line
    device.write(em4100_frame("0A0B0C0D0E"))
    out, err = proc.communicate(timeout=120)
    out = seen + out
    assert proc.returncode == 0, err
    assert "unknown card '0102030405' (tag not enrolled)" in out
    assert "checksum: 1 frame(s) with a bad checksum dropped" in out
    assert "2 reads, 1 checksum errors" in out
    device.unplug()


def test_enroll_walks_refuses_resumes_exports_and_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    device = PtyDevice()
    base = ["enroll", "--port", device.path, "--protocol", "em4100", "--card", "MB-D100-07", "--card", "MB-CMD-OK"]
    captured_stdout = sys.stdout
    out = Transcript.instead_of_stdout(monkeypatch)

    def tap_when_asked() -> None:
        out.wait_for("reader connected")  # a tap before the port is open is flushed away, as on a real reader
        device.write(em4100_frame("0F00A1B2C3"))
        out.wait_for("Tap: control OK")
        device.write(em4100_frame("0F00A1B2C3"))  # same tag again: already bound, refused (or a double read)
        device.write(em4100_frame("1122334455"))

    feeder = threading.Thread(target=tap_when_asked, daemon=True)
    feeder.start()
    assert main([*base, "--seconds", "120"]) == 0  # it ends when both cards are bound; 120 s only on a failure
    feeder.join(60)
    monkeypatch.setattr(sys, "stdout", captured_stdout)  # capsys again, for the commands below
    text = out.text()
    assert "Tap: 100 miles (#7)" in text and "Tap: control OK" in text
    assert "Bound tag 0F00A1B2C3 to 100 miles (#7)" in text
    assert "Bound tag 1122334455 to control OK" in text
    table = BindingTable.load(state / "bindings.json")
    assert table.as_dict() == {"0F00A1B2C3": "MB-D100-07", "1122334455": "MB-CMD-OK"}

    # resume: the walk of the full deck starts at the first unbound card
    assert main(["enroll", "--list", "--no-controls"]) == 0
    listing = capsys.readouterr().out
    assert "MB-D100-07           0F00A1B2C3" in listing and "1 of 106 bound; 105 missing" in listing

    exported = tmp_path / "export.json"
    assert main(["enroll", "--export", str(exported)]) == 0
    assert json.loads(exported.read_text())["bindings"]["0F00A1B2C3"] == "MB-D100-07"
    assert main(["enroll", "--forget", "MB-D100-07"]) == 0
    assert main(["enroll", "--import", str(exported)]) == 0
    assert len(BindingTable.load(state / "bindings.json")) == 2
    conflict = tmp_path / "conflict.json"
    conflict.write_text(exported.read_text().replace("MB-D100-07", "MB-D200-01"))
    assert main(["enroll", "--import", str(conflict)]) != 0
    assert "bound to other cards" in capsys.readouterr().err
    device.unplug()


def test_enroll_refuses_an_already_bound_tag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    BindingTable({"0F00A1B2C3": "MB-STOP-01"}, path=state / "bindings.json").save()
    device = PtyDevice()
    out = Transcript.instead_of_stdout(monkeypatch)

    def tap_when_asked() -> None:
        out.wait_for("reader connected")
        device.write(em4100_frame("0F00A1B2C3"))
        out.wait_for("Refused: tag 0F00A1B2C3")
        device.write(em4100_frame("1122334455"))  # a blank tag ends the walk: nothing hangs on a timer

    feeder = threading.Thread(target=tap_when_asked, daemon=True)
    feeder.start()
    assert main(["enroll", "--port", device.path, "--protocol", "em4100", "--card", "MB-ROLL-01",
                 "--seconds", "120"]) == 0  # fmt: skip
    feeder.join(60)
    text = out.text()
    assert "Refused: tag 0F00A1B2C3 is already bound to Stop (#1)" in text
    assert "1 of 1 bound" in text
    # the refused tag kept its card; the walk's card went to the next tag
    assert BindingTable.load(state / "bindings.json").as_dict() == {"0F00A1B2C3": "MB-STOP-01",
                                                                    "1122334455": "MB-ROLL-01"}
    device.unplug()


def lift_tag(fake: FakePn532) -> None:
    """Take the tags off the antenna and wait until the writer has polled the empty field twice."""
    fake.put()
    polled = fake.commands.count(0x4A)
    wait_until(lambda: fake.commands.count(0x4A) >= polled + 2, "the writer to poll the empty field")


def test_tags_write_then_the_reader_reads_it_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakePn532()
    blank_one, blank_two = FakeTag(bytes.fromhex("04A1B2C3D4E5F6")), FakeTag(bytes.fromhex("04000000000002"))
    blank_one.pages[12:16] = bytes(4)  # a sticker with an unprogrammed capability container
    out = Transcript.instead_of_stdout(monkeypatch)

    def present_tags() -> None:
        fake.put(blank_one)
        out.wait_for("Wrote MB-D100-07")
        lift_tag(fake)
        fake.put(blank_two)

    feeder = threading.Thread(target=present_tags, daemon=True)
    feeder.start()
    code = main(["tags", "write", "--port", fake.path, "--card", "MB-D100-07", "--card", "MB-CMD-CF",
                 "--seconds", "120"])  # fmt: skip  # it ends when both are written
    feeder.join(60)
    text = out.text()
    assert code == 0, text
    assert "Wrote MB-D100-07 (100 miles (#7)) on tag 04A1B2C3D4E5F6" in text
    assert "Wrote MB-CMD-CF" in text and "2 of 2 tags written" in text
    assert decode_text_tlv(bytes(blank_one.pages[16:48])) == "MB-D100-07"
    assert blank_one.pages[12:16] == bytes([0xE1, 0x10, 0x12, 0x00])

    blank_three = FakeTag(bytes.fromhex("04000000000003"))
    out = Transcript.instead_of_stdout(monkeypatch)

    def refuse_then_blank() -> None:
        fake.put(blank_one)  # a written tag is refused for another card unless --overwrite
        out.wait_for("already holds MB-D100-07")
        lift_tag(fake)
        fake.put(blank_three)

    feeder = threading.Thread(target=refuse_then_blank, daemon=True)
    feeder.start()
    assert main(["tags", "write", "--port", fake.path, "--card", "MB-STOP-01", "--seconds", "120"]) == 0
    feeder.join(60)
    assert "already holds MB-D100-07" in out.text()
    assert decode_text_tlv(bytes(blank_one.pages[16:48])) == "MB-D100-07"  # left as it was
    assert decode_text_tlv(bytes(blank_three.pages[16:48])) == "MB-STOP-01"
    fake.close()


def test_tags_write_names_the_resume_point_when_the_pn532_is_unplugged(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakePn532()
    tag = FakeTag(bytes.fromhex("04A1B2C3D4E5F6"))

    out = Transcript.instead_of_stdout(monkeypatch)

    def write_one_then_unplug() -> None:
        fake.put(tag)
        out.wait_for("Wrote MB-D100-07")  # written and read back: the tag's pages alone come before the check
        fake.close()

    feeder = threading.Thread(target=write_one_then_unplug, daemon=True)
    feeder.start()
    code = main(["tags", "write", "--port", fake.path, "--card", "MB-D100-07", "--card", "MB-D100-08",
                 "--card", "MB-D100-09", "--seconds", "120"])  # fmt: skip  # it ends at the unplug
    feeder.join(60)
    captured = capsys.readouterr()
    assert code == 69, out.text()
    assert "Wrote MB-D100-07" in out.text()
    assert captured.err.count("\n") == 1 and "lost the PN532 after 1 of 3 tags" in captured.err
    assert captured.err.rstrip().endswith("resume with --from MB-D100-08")
    assert "Traceback" not in captured.err


def test_tags_write_with_no_pn532_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tags", "write", "--port", str(tmp_path / "nope"), "--card", "MB-D25-01"]) == 69
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open the PN532" in err
