"""Charts as inline SVG, drawn on the Pi: no script, no library, nothing fetched.

Colours come from the page's style sheet (classes ``s0`` … ``s7``), so a chart follows the light or
dark theme and prints in black and white legibly (each series also has its own marker dash).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

WIDTH = 360
HEIGHT = 200
PAD_LEFT = 44
PAD_RIGHT = 8
PAD_TOP = 10
PAD_BOTTOM = 28


def _nice_max(value: float) -> int:
    """A round top for the axis: 1, 2 or 5 times a power of ten."""
    if value <= 0:
        return 100
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= value:
                return step * factor
        step *= 10


def _scale(values: Sequence[Sequence[int]]) -> tuple[int, int]:
    flat = [v for series in values for v in series]
    low = min([0, *flat])
    high = max([0, *flat])
    top = _nice_max(high)
    bottom = -_nice_max(-low) if low < 0 else 0
    return bottom, top


def _frame(title: str, bottom: int, top: int, x_labels: Sequence[str], body: list[str],
           legend: Sequence[str]) -> str:
    inner_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT

    def y(value: float) -> float:
        return PAD_TOP + inner_h * (top - value) / (top - bottom or 1)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT + 16 * ((len(legend) + 1) // 2)}" role="img" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
    ]
    for tick in range(5):
        value = bottom + (top - bottom) * tick / 4
        parts.append(f'<line class="grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{y(value):.1f}" '
                     f'y2="{y(value):.1f}"/>')
        parts.append(f'<text class="tick" x="{PAD_LEFT - 4}" y="{y(value) + 4:.1f}" text-anchor="end">'
                     f"{int(value)}</text>")
    count = max(1, len(x_labels))
    every = max(1, count // 8)
    for index, label in enumerate(x_labels):
        if index % every:
            continue
        x = PAD_LEFT + inner_w * (index + 0.5) / count
        parts.append(f'<text class="tick" x="{x:.1f}" y="{HEIGHT - PAD_BOTTOM + 14}" text-anchor="middle">'
                     f"{escape(label)}</text>")
    parts.extend(body)
    for index, name in enumerate(legend):
        lx = PAD_LEFT + (index % 2) * (inner_w / 2)
        ly = HEIGHT + 4 + 16 * (index // 2)
        parts.append(f'<rect class="s{index % 8}" x="{lx:.1f}" y="{ly}" width="10" height="10"/>')
        parts.append(f'<text class="legend" x="{lx + 14:.1f}" y="{ly + 9}">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def bars(title: str, x_labels: Sequence[str], series: Sequence[tuple[str, Sequence[int]]]) -> str:
    """Grouped bars: one group per x label (a hand), one bar per series (a side)."""
    values = [list(v) for _, v in series]
    bottom, top = _scale(values)
    inner_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    count = max(1, len(x_labels))
    group = inner_w / count
    bar_w = max(2.0, group * 0.8 / max(1, len(series)))

    def y(value: float) -> float:
        return PAD_TOP + inner_h * (top - value) / (top - bottom or 1)

    body = []
    for s_index, (name, points) in enumerate(series):
        for index, value in enumerate(points):
            x = PAD_LEFT + group * index + group * 0.1 + bar_w * s_index
            y0, y1 = sorted((y(0), y(value)))
            body.append(
                f'<rect class="s{s_index % 8}" x="{x:.1f}" y="{y0:.1f}" width="{bar_w:.1f}" '
                f'height="{max(0.5, y1 - y0):.1f}"><title>{escape(name)}: {value}</title></rect>'
            )
    return _frame(title, bottom, top, x_labels, body, [name for name, _ in series])


def lines(title: str, x_labels: Sequence[str], series: Sequence[tuple[str, Sequence[int]]],
          marks: Sequence[Sequence[bool]] | None = None) -> str:
    """One polyline per series; ``marks`` (e.g. the games won) get a filled dot, the rest a ring."""
    values = [list(v) for _, v in series]
    bottom, top = _scale(values)
    inner_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    count = max(1, len(x_labels))

    def x(index: int) -> float:
        return PAD_LEFT + inner_w * (index + 0.5) / count

    def y(value: float) -> float:
        return PAD_TOP + inner_h * (top - value) / (top - bottom or 1)

    body = []
    for s_index, (name, points) in enumerate(series):
        path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(points))
        body.append(f'<polyline class="line s{s_index % 8} d{s_index % 4}" points="{path}"/>')
        for index, value in enumerate(points):
            filled = marks is None or (s_index < len(marks) and index < len(marks[s_index])
                                       and marks[s_index][index])
            css = f"dot s{s_index % 8}" + ("" if filled else " ring")
            body.append(f'<circle class="{css}" cx="{x(index):.1f}" cy="{y(value):.1f}" r="3">'
                        f"<title>{escape(name)}: {value}</title></circle>")
    return _frame(title, bottom, top, x_labels, body, [name for name, _ in series])
