"""The appliance program that runs on the Pi: table flow, persistence, config and the CLI."""
