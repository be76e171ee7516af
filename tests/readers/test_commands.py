"""The reader commands end to end: labels read back from PNG, scan-test, enroll, tags write."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pypdfium2 as pdfium
import pytest
import zxingcpp

from bornes.drivers.readers.bindings import BindingTable
from bornes.drivers.readers.em4100 import em4100_frame
from bornes.drivers.readers.hid import LAYOUT_TEST_CODE
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


@pytest.mark.parametrize("sheet", ["a4-l7160", "letter-5160", "a4-l7651"])
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
         "--count", "2", "--seconds", "15"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    lines = [proc.stdout.readline(), proc.stdout.readline()]
    assert "reader connected" in lines[-1]
    device.write(em4100_frame("0102030405", checksum=0) + em4100_frame("0102030405") + b"\x02zz\x03")
    time.sleep(1.2)
    device.write(em4100_frame("0A0B0C0D0E"))
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert "unknown card '0102030405' (tag not enrolled)" in out
    assert "checksum: 1 frame(s) with a bad checksum dropped" in out
    assert "2 reads, 1 checksum errors" in out
    device.unplug()


def test_enroll_walks_refuses_resumes_exports_and_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    device = PtyDevice()
    base = ["enroll", "--port", device.path, "--protocol", "em4100", "--card", "MB-D100-07", "--card", "MB-CMD-OK"]

    def tap_later() -> None:
        time.sleep(0.8)
        device.write(em4100_frame("0F00A1B2C3"))
        time.sleep(0.3)
        device.write(em4100_frame("0F00A1B2C3"))  # same tag again: already bound, refused
        time.sleep(1.8)
        device.write(em4100_frame("1122334455"))

    feeder = threading.Thread(target=tap_later)
    feeder.start()
    assert main([*base, "--seconds", "8"]) == 0
    feeder.join()
    out = capsys.readouterr().out
    assert "Tap: 100 miles (#7)" in out and "Tap: control OK" in out
    assert "Bound tag 0F00A1B2C3 to 100 miles (#7)" in out
    assert "Bound tag 1122334455 to control OK" in out
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


def test_enroll_refuses_an_already_bound_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    BindingTable({"0F00A1B2C3": "MB-STOP-01"}, path=state / "bindings.json").save()
    device = PtyDevice()

    def tap_later() -> None:
        time.sleep(0.8)
        device.write(em4100_frame("0F00A1B2C3"))

    feeder = threading.Thread(target=tap_later)
    feeder.start()
    assert main(["enroll", "--port", device.path, "--protocol", "em4100", "--card", "MB-ROLL-01",
                 "--seconds", "1.5"]) == 0  # fmt: skip
    feeder.join()
    out = capsys.readouterr().out
    assert "Refused: tag 0F00A1B2C3 is already bound to Stop (#1)" in out
    assert "0 of 1 bound" in out
    device.unplug()


def test_tags_write_then_the_reader_reads_it_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakePn532()
    blank_one, blank_two = FakeTag(bytes.fromhex("04A1B2C3D4E5F6")), FakeTag(bytes.fromhex("04000000000002"))
    blank_one.pages[12:16] = bytes(4)  # a sticker with an unprogrammed capability container

    def present_tags() -> None:
        time.sleep(0.5)
        fake.put(blank_one)
        time.sleep(0.5)
        fake.put()
        time.sleep(0.3)
        fake.put(blank_two)

    feeder = threading.Thread(target=present_tags)
    feeder.start()
    code = main(["tags", "write", "--port", fake.path, "--card", "MB-D100-07", "--card", "MB-CMD-CF",
                 "--seconds", "6"])  # fmt: skip
    feeder.join()
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Wrote MB-D100-07 (100 miles (#7)) on tag 04A1B2C3D4E5F6" in out
    assert "Wrote MB-CMD-CF" in out and "2 of 2 tags written" in out
    assert decode_text_tlv(bytes(blank_one.pages[16:48])) == "MB-D100-07"
    assert blank_one.pages[12:16] == bytes([0xE1, 0x10, 0x12, 0x00])

    fake.put(blank_one)  # a written tag is refused for another card unless --overwrite
    assert main(["tags", "write", "--port", fake.path, "--card", "MB-STOP-01", "--seconds", "1"]) == 0
    assert "already holds MB-D100-07" in capsys.readouterr().out
    fake.close()


def test_tags_write_names_the_resume_point_when_the_pn532_is_unplugged(capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakePn532()
    tag = FakeTag(bytes.fromhex("04A1B2C3D4E5F6"))

    def write_one_then_unplug() -> None:
        time.sleep(0.5)
        fake.put(tag)
        deadline = time.monotonic() + 5
        while decode_text_tlv(bytes(tag.pages[16:48])) != "MB-D100-07" and time.monotonic() < deadline:
            time.sleep(0.05)
        fake.close()

    feeder = threading.Thread(target=write_one_then_unplug)
    feeder.start()
    code = main(["tags", "write", "--port", fake.path, "--card", "MB-D100-07", "--card", "MB-D100-08",
                 "--card", "MB-D100-09", "--seconds", "8"])  # fmt: skip
    feeder.join()
    captured = capsys.readouterr()
    assert code == 69, captured.out
    assert "Wrote MB-D100-07" in captured.out
    assert captured.err.count("\n") == 1 and "lost the PN532 after 1 of 3 tags" in captured.err
    assert captured.err.rstrip().endswith("resume with --from MB-D100-08")
    assert "Traceback" not in captured.err


def test_tags_write_with_no_pn532_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tags", "write", "--port", str(tmp_path / "nope"), "--card", "MB-D25-01"]) == 69
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open the PN532" in err
