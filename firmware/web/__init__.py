"""``bornes web``: the table on every phone, served by the Pi (docs/web.md)."""
