"""The physical deck: printable labels, NFC tags and the binding of RFID tags to cards.

``labels`` lays out the sticker sheets (reportlab), ``tags`` writes NTAG213 stickers through a
PN532, ``enrollment`` keeps which tag UID is which card. May import: the engine, the drivers,
``firmware.language``, ``firmware.storage``.
"""
