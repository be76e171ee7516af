"""Hardware: card readers, the OLED, buttons, buzzer and LEDs. Each has a mock or emulated twin."""
