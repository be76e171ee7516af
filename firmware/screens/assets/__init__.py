"""Font files shipped with the screens (X11 misc-fixed, public domain; see LICENSE-fonts.txt)."""
