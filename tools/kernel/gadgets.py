"""The USB devices a family plugs into the table, as data: each becomes a configfs gadget in the VM.

A :class:`Gadget` is what ``lsusb -v`` would say of the real device: vendor and product ids, its
three strings, USB version, and its functions (a boot keyboard, or a CDC-ACM serial port). The
guest's ``usb.py`` builds it under ``/sys/kernel/config/usb_gadget/NAME`` and binds it to one
controller of ``dummy_hcd``; the kernel then enumerates it exactly as it would the real device
(``usbhid`` → ``hid-generic`` → evdev, or ``cdc_acm`` → ``/dev/ttyACM*``), and udev gives it its
``/dev/input/by-id`` or ``/dev/serial/by-id`` name from these strings.

Adding a device (a USB keypad for the table's buttons, say) is data, not code:

1. a ``Gadget`` in :data:`CATALOGUE`: its name (the test's handle), the real model's vendor and
   product ids, its three strings, bcdUSB/bcdDevice, its functions, and ``source`` (where the ids
   and strings come from: usb.ids, an ``lsusb -v`` of one); ``listed=False`` when usb.ids does not
   know the ids, else ``model`` is usb.ids' name for them (the first kernel test checks it against
   the VM's udev hwdb for the gadgets it plugs);
2. its functions: ``Hid()`` is a boot keyboard (a keypad is a keyboard to the kernel; give
   ``Hid(report_desc=…)`` for another descriptor), ``Acm()`` a USB serial port;
3. its keys, if it types characters a layout of :data:`LAYOUT_KEYS` lacks: an entry there (HID
   usage ids, from the HID Usage Tables, never from the referee's own maps).

Then, in a test: ``table.plug("keypad")``, ``table.tap("keypad", "…")`` (keys at a scanner's pace,
waiting for the referee's line) or ``table.usb("send", "keypad", REPORT_HEX…)`` for raw reports,
``table.remove("keypad")`` when done. The kernel's f_hid has four HID minors for all gadgets
together (``HIDG_MINORS``): remove the ones a test no longer needs; ``dummy_hcd`` has eight
controllers (``DUMMY_CONTROLLERS`` in vm.py), one a gadget.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

#: The boot keyboard report descriptor of the HID 1.11 specification (appendix B.1 / E.6): input
#: report of 8 bytes (modifiers, reserved, six key usages), output report of 1 byte (five LEDs).
BOOT_KEYBOARD = bytes.fromhex(
    "05 01 09 06 a1 01 05 07 19 e0 29 e7 15 00 25 01 75 01 95 08 81 02 95 01 75 08 81 03"  # 8 modifier bits, 1 byte
    " 95 05 75 01 05 08 19 01 29 05 91 02 95 01 75 03 91 03"  # output: 5 LEDs, 3 bits of padding
    " 95 06 75 08 15 00 25 65 05 07 19 00 29 65 81 00 c0")  # six key usages


@dataclass(frozen=True)
class Hid:
    """A HID function: ``report_desc`` as the device sends it; protocol 1 is a boot keyboard."""

    report_desc: bytes = BOOT_KEYBOARD
    protocol: int = 1
    subclass: int = 1
    report_length: int = 8


@dataclass(frozen=True)
class Acm:
    """A CDC-ACM function: the host sees ``/dev/ttyACM*``, the gadget writes to ``/dev/ttyGS*``."""


@dataclass(frozen=True)
class Gadget:
    """One USB device; ``name`` is the test's handle (and the configfs folder)."""

    name: str
    vendor: int
    product: int
    manufacturer: str
    product_name: str
    serial: str
    functions: tuple[Hid | Acm, ...]
    usb: int = 0x0200  # bcdUSB
    device: int = 0x0100  # bcdDevice
    source: str = ""  # where the ids and strings come from
    listed: bool = True  # the ids are in linux-usb.org's list (udev's hwdb names the model)
    model: str = ""  # what that list calls it

    @property
    def vendor_product(self) -> str:
        return f"{self.vendor:04x}:{self.product:04x}"

    @property
    def usb_serial(self) -> str:
        """udev's ID_SERIAL: manufacturer_product_serial, spaces as ``_``, other odd bytes as ``_``; a
        device with no manufacturer string is named by its vendor id instead (udev's usb_id)."""
        vendor = self.manufacturer or f"{self.vendor:04x}"
        return "_".join(_udev_safe(part) for part in (vendor, self.product_name, self.serial) if part)

    @property
    def input_by_id(self) -> str:
        """The stable name udev gives its keyboard interface (60-persistent-input.rules)."""
        return f"/dev/input/by-id/usb-{self.usb_serial}-event-kbd"

    @property
    def serial_by_id(self) -> str:
        """The stable name udev gives its first serial interface (60-serial.rules)."""
        return f"/dev/serial/by-id/usb-{self.usb_serial}-if00"

    def as_json(self) -> dict[str, object]:
        """What the guest's usb.py reads."""
        data = asdict(self)
        data["functions"] = [{"kind": "hid", **asdict(f), "report_desc": f.report_desc.hex()} if isinstance(f, Hid)
                             else {"kind": "acm"} for f in self.functions]
        return data

    def copy(self, name: str, serial: str | None = None) -> Gadget:
        """The same model again (a second unit of it): another handle, maybe another serial."""
        return replace(self, name=name, serial=self.serial if serial is None else serial)


def _udev_safe(text: str) -> str:
    """udev's ``util_replace_whitespace`` then ``util_replace_chars`` on a USB string."""
    out = "_".join(text.strip().split())
    allowed = set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#+-.:=@_")
    return "".join(c if c in allowed else "_" for c in out)


SCANNER = Gadget(
    "scanner", 0x05E0, 0x1200, "Symbol Technologies, Inc, 2008", "Symbol Bar Code Scanner", "S/N:4C4B2C5A0D1E4D4B",
    (Hid(),), usb=0x0200, device=0x0100, model="Bar Code Scanner",
    source="Symbol/Zebra LS2208 in its factory USB keyboard mode: ids in linux-usb.org's usb.ids "
           "(05e0 Symbol Technologies, 1200 Bar Code Scanner); the strings are those the LS2208 reports, "
           "its serial number made up")
RFID = Gadget(
    "rfid", 0xFFFF, 0x0035, "Sycreader RFID Technology Co., Ltd", "SYC ID&IC USB Reader", "08FF20140315",
    (Hid(),), usb=0x0110, device=0x0100, listed=False,
    source="the few-euro 125 kHz 'ID card reader' box: lsusb -v of one in github.com/merbanan/rfid_app/issues/21 "
           "(ffff is no assigned vendor, so usb.ids does not list it; every unit has the same serial)")
SERIAL_SCANNER = Gadget(
    "serial-scanner", 0x0C2E, 0x0B6A, "Honeywell Imaging & Mobility", "3310g", "14150B4A2E",
    (Acm(),), model="Vuquest 3310 Area-Imaging Scanner",
    source="Honeywell Vuquest 3310g in its USB serial (CDC-ACM) mode: ids in usb.ids (0c2e Metro/Honeywell, "
           "0b6a Vuquest 3310 Area-Imaging Scanner), used as CDC-ACM in "
           "github.com/mik3y/usb-serial-for-android/issues/334; its serial number made up")
KEYBOARD = Gadget(
    "keyboard", 0x046D, 0xC31C, "Logitech", "USB Keyboard", "", (Hid(),), usb=0x0110, device=0x6400,
    model="Keyboard K120",
    source="Logitech K120, the common office keyboard: ids in usb.ids (046d Logitech, c31c Keyboard K120); "
           "it has no serial string")
KEYPAD = Gadget(
    "keypad", 0x05A4, 0x9840, "", "USB Compliant Keypad", "", (Hid(),), usb=0x0110, device=0x0110, listed=False,
    source="Targus AKP10US numeric keypad (an Ortek OEM): lsusb -v of one in "
           "unix.stackexchange.com/questions/123527 (05a4 Ortek Technology; 9840 is not in usb.ids; no "
           "manufacturer and no serial string, so udev names it by the vendor id). The id docs/keypad.md names")
#: Four pads: four of the same RFID reader (a family buys them in a pack), each on its own controller.
PADS = tuple(RFID.copy(f"pad-{seat}") for seat in "ABCD")
#: A second unit of the scanner (its own serial number, so its own by-id name): the figures' scans
#: go through it into ``bornes scan-test`` while the referee keeps its reader.
SECOND_SCANNER = SCANNER.copy("scanner-2", serial="S/N:4C4B2C5A0D1E4D4C")

CATALOGUE: dict[str, Gadget] = {g.name: g for g in (SCANNER, RFID, SERIAL_SCANNER, KEYBOARD, KEYPAD, *PADS,
                                                 SECOND_SCANNER)}

#: Keys as a scanner sends them, in HID usage ids (USB HID Usage Tables, keyboard page 0x07), for the
#: characters of card codes and tag numbers, per keyboard layout the scanner is set to: (usage, shift).
#: Written from the layouts' key caps, independently of the referee's own (evdev) tables.
_LETTERS = {chr(ord("a") + i): 0x04 + i for i in range(26)}
_DIGITS = {**{str(d): 0x1E + d - 1 for d in range(1, 10)}, "0": 0x27}
LAYOUT_KEYS: dict[str, dict[str, tuple[int, bool]]] = {
    "us": {**{c.upper(): (u, True) for c, u in _LETTERS.items()}, **{d: (u, False) for d, u in _DIGITS.items()},
           "-": (0x2D, False)},
    # AZERTY: A/Q and Z/W swapped, M where US has ';', digits shifted, '-' on the 6 key.
    "fr": {**{c.upper(): (u, True) for c, u in _LETTERS.items()},
           "A": (0x14, True), "Q": (0x04, True), "Z": (0x1A, True), "W": (0x1D, True), "M": (0x33, True),
           **{d: (u, True) for d, u in _DIGITS.items()}, "-": (0x23, False)},
    # QWERTZ: Y/Z swapped, '-' where US has '/'.
    "de": {**{c.upper(): (u, True) for c, u in _LETTERS.items()}, "Y": (0x1D, True), "Z": (0x1C, True),
           **{d: (u, False) for d, u in _DIGITS.items()}, "-": (0x38, False)},
}
ENTER, TAB, CAPS_LOCK, NUM_LOCK = 0x28, 0x2B, 0x39, 0x53
#: A numeric keypad's keys by what is printed on them (HID usage ids, keyboard page 0x07: "Keypad Enter",
#: "Keypad +" …), from the HID Usage Tables, never from the referee's key maps.
KEYPAD_KEYS = {"Enter": 0x58, "+": 0x57, "-": 0x56, "*": 0x55, "/": 0x54, "0": 0x62, ".": 0x63,
               **{str(n): 0x59 + n - 1 for n in range(1, 10)}}
LEFT_CTRL, LEFT_SHIFT = 0x01, 0x02  # modifier bits of the report's first byte


def reports(text: str, layout: str = "us", *, enter: bool = True, ctrl: bool = False) -> list[bytes]:
    """The 8-byte input reports a keyboard-mode scanner set to ``layout`` sends for ``text``:
    each key pressed (with Shift where the layout needs it) and released, then Enter."""
    keys = [LAYOUT_KEYS[layout][char] for char in text.upper()]
    if enter:
        keys.append((ENTER, False))
    out = []
    for usage, shift in keys:
        modifiers = (LEFT_SHIFT if shift else 0) | (LEFT_CTRL if ctrl else 0)
        out.append(bytes([modifiers, 0, usage, 0, 0, 0, 0, 0]))
        out.append(bytes([LEFT_CTRL if ctrl else 0, 0, 0, 0, 0, 0, 0, 0]))
    return out


