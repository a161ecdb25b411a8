"""Small SVG charts rendered on the server. Pure: no Django, no JavaScript, no inline styles.

The page's Content-Security-Policy forbids `style=` attributes, so every colour is a class (styled in
penta.css: .chart-line.series-N, .chart-bar, ...) or a presentation attribute. Every text that reaches
the markup is escaped here; the caller may mark the result safe.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

WIDTH = 640
HEIGHT = 260
PAD_LEFT = 46
PAD_RIGHT = 12
PAD_TOP = 14
PAD_BOTTOM = 34


@dataclass(frozen=True)
class Series:
    name: str
    points: Sequence[tuple[float, float]]  # (x, y)
    css: str = "series-0"


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))


def nice_step(span: float, ticks: int = 5) -> float:
    """A round tick step (1, 2, 2.5, 5 x 10^n) giving about `ticks` intervals over `span`."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def _frame(title: str, desc: str, css: str) -> list[str]:
    return [
        f'<svg class="chart {escape(css)}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(desc)}</desc>",
    ]


class _Scale:
    def __init__(self, lo: float, hi: float, a: float, b: float):
        if hi <= lo:
            hi = lo + 1
        self.lo, self.hi, self.a, self.b = lo, hi, a, b

    def __call__(self, v: float) -> float:
        return self.a + (v - self.lo) * (self.b - self.a) / (self.hi - self.lo)


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    desc: str = "",
    x_max: float | None = None,
    x_ticks: Sequence[tuple[float, str]] = (),
    y_label: str = "",
    marker_x: float | None = None,
    y_floor: float | None = None,
    marks: Sequence[tuple[float, float, str, str]] = (),
) -> str:
    """Lines over a shared x axis; y is fitted to the data with round ticks. `marker_x` draws a
    vertical line (the replay's current position); `marks` (x, y, short text, title) draw numbered
    rings on the lines (the review's largest swings of the winning chances)."""
    ys = [y for s in series for _x, y in s.points]
    xs = [x for s in series for x, _y in s.points]
    parts = _frame(title, desc, "line-chart")
    if not ys:
        parts.append(f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT / 2:.0f}" class="chart-empty">–</text></svg>')
        return "".join(parts)
    lo, hi = min(ys), max(ys)
    if y_floor is not None:
        lo = min(lo, y_floor)
    step = nice_step(hi - lo or 10)
    lo = math.floor(lo / step) * step
    hi = math.ceil(hi / step) * step
    if hi == lo:
        hi = lo + step
    x_hi = x_max if x_max is not None else max(xs) or 1
    sx = _Scale(0, x_hi, PAD_LEFT, WIDTH - PAD_RIGHT)
    sy = _Scale(lo, hi, HEIGHT - PAD_BOTTOM, PAD_TOP)
    parts.append('<g class="chart-grid">')
    y = lo
    while y <= hi + step / 1000:
        py = sy(y)
        parts.append(f'<line x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{py:.1f}" y2="{py:.1f}"/>')
        parts.append(f'<text x="{PAD_LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">{_fmt(y)}</text>')
        y += step
    for x, label in x_ticks:
        px = sx(x)
        parts.append(
            f'<text x="{px:.1f}" y="{HEIGHT - PAD_BOTTOM + 16}" text-anchor="middle">{escape(label)}</text>'
        )
    parts.append("</g>")
    if y_label:
        parts.append(
            f'<text class="chart-axis-label" x="12" y="{(HEIGHT - PAD_BOTTOM + PAD_TOP) / 2:.0f}" '
            f'transform="rotate(-90 12 {(HEIGHT - PAD_BOTTOM + PAD_TOP) / 2:.0f})" '
            f'text-anchor="middle">{escape(y_label)}</text>'
        )
    if marker_x is not None:
        px = sx(marker_x)
        parts.append(
            f'<line class="chart-marker" x1="{px:.1f}" x2="{px:.1f}" '
            f'y1="{PAD_TOP}" y2="{HEIGHT - PAD_BOTTOM}"/>'
        )
    for s in series:
        if not s.points:
            continue
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in s.points)
        parts.append(f'<g class="chart-series {escape(s.css)}"><title>{escape(s.name)}</title>')
        parts.append(f'<polyline class="chart-line" fill="none" points="{path}"/>')
        lx, ly = s.points[-1]
        parts.append(f'<circle class="chart-dot" cx="{sx(lx):.1f}" cy="{sy(ly):.1f}" r="3"/>')
        parts.append("</g>")
    for x, y, text, title in marks:
        px, py = sx(x), sy(y)
        parts.append(f'<g class="chart-mark"><title>{escape(title)}</title>')
        parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="9"/>')
        parts.append(f'<text x="{px:.1f}" y="{py + 4:.1f}" text-anchor="middle">{escape(text)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(
    bars: Sequence[tuple[str, float]], *, title: str, desc: str = "", highlight: int | None = None
) -> str:
    """Vertical bars with their labels below and values above (a histogram)."""
    parts = _frame(title, desc, "bar-chart")
    if not bars:
        parts.append(f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT / 2:.0f}" class="chart-empty">–</text></svg>')
        return "".join(parts)
    top = max(v for _l, v in bars) or 1
    sy = _Scale(0, top, HEIGHT - PAD_BOTTOM, PAD_TOP + 12)
    slot = (WIDTH - PAD_LEFT - PAD_RIGHT) / len(bars)
    width = max(2.0, slot * 0.8)
    parts.append('<g class="chart-grid">')
    parts.append(
        f'<line x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" '
        f'y1="{HEIGHT - PAD_BOTTOM}" y2="{HEIGHT - PAD_BOTTOM}"/>'
    )
    parts.append("</g>")
    every = max(1, math.ceil(len(bars) / 12))  # label at most ~12 bars
    for i, (label, value) in enumerate(bars):
        x = PAD_LEFT + i * slot + (slot - width) / 2
        y = sy(value)
        css = "chart-bar highlight" if highlight == i else "chart-bar"
        parts.append(
            f'<rect class="{css}" x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" '
            f'height="{HEIGHT - PAD_BOTTOM - y:.1f}"><title>{escape(label)}: {_fmt(value)}</title></rect>'
        )
        if value:
            parts.append(
                f'<text class="chart-value" x="{x + width / 2:.1f}" y="{y - 3:.1f}" '
                f'text-anchor="middle">{_fmt(value)}</text>'
            )
        if i % every == 0:
            parts.append(
                f'<text class="chart-label" x="{x + width / 2:.1f}" y="{HEIGHT - PAD_BOTTOM + 16}" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def hbar_chart(bars: Sequence[tuple[str, float]], *, title: str, desc: str = "") -> str:
    """Horizontal bars, one row per label (long labels such as box names), the value at each bar's end."""
    row = 22
    label_w = 150
    height = PAD_TOP + row * max(1, len(bars)) + 8
    parts = [
        f'<svg class="chart bar-chart hbar-chart" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(desc)}</desc>",
    ]
    if not bars:
        parts.append(f'<text x="{WIDTH / 2:.0f}" y="{height / 2:.0f}" class="chart-empty">–</text></svg>')
        return "".join(parts)
    top = max(v for _l, v in bars) or 1
    sx = _Scale(0, top, label_w, WIDTH - PAD_RIGHT - 48)
    for i, (label, value) in enumerate(bars):
        y = PAD_TOP + i * row
        w = max(0.0, sx(max(0.0, value)) - label_w)
        parts.append(
            f'<text class="chart-label" x="{label_w - 8}" y="{y + row * 0.65:.1f}" text-anchor="end">'
            f"{escape(label)}</text>"
        )
        parts.append(
            f'<rect class="chart-bar" x="{label_w}" y="{y + 3:.1f}" width="{w:.1f}" height="{row - 6}">'
            f"<title>{escape(label)}: {_fmt(value)}</title></rect>"
        )
        tx, ty = label_w + w + 4, y + row * 0.65
        parts.append(f'<text class="chart-value" x="{tx:.1f}" y="{ty:.1f}">{_fmt(value)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def scatter_chart(
    points: Sequence[tuple[float, float, str, str]],
    *,
    title: str,
    desc: str = "",
    x_label: str = "",
    y_label: str = "",
    y_range: tuple[float, float] | None = None,
) -> str:
    """Dots (x, y, css class, title): fair play's review plots each game's accuracy against its
    decision time. Both axes fitted to the data (y to `y_range` when given) with round ticks."""
    parts = _frame(title, desc, "scatter-chart")
    if not points:
        parts.append(f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT / 2:.0f}" class="chart-empty">–</text></svg>')
        return "".join(parts)
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    x_step = nice_step(max(xs) - min(0.0, min(xs)) or 1)
    x_hi = math.ceil(max(xs) / x_step) * x_step or x_step
    y_lo, y_hi = y_range if y_range else (min(ys), max(ys))
    y_step = nice_step(y_hi - y_lo or 10)
    y_lo, y_hi = math.floor(y_lo / y_step) * y_step, math.ceil(y_hi / y_step) * y_step
    if y_hi == y_lo:
        y_hi = y_lo + y_step
    sx = _Scale(0, x_hi, PAD_LEFT, WIDTH - PAD_RIGHT)
    sy = _Scale(y_lo, y_hi, HEIGHT - PAD_BOTTOM, PAD_TOP)
    parts.append('<g class="chart-grid">')
    y = y_lo
    while y <= y_hi + y_step / 1000:
        py = sy(y)
        parts.append(f'<line x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{py:.1f}" y2="{py:.1f}"/>')
        parts.append(f'<text x="{PAD_LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">{_fmt(y)}</text>')
        y += y_step
    x = 0.0
    while x <= x_hi + x_step / 1000:
        parts.append(
            f'<text x="{sx(x):.1f}" y="{HEIGHT - PAD_BOTTOM + 16}" text-anchor="middle">{_fmt(x)}</text>'
        )
        x += x_step
    parts.append("</g>")
    if x_label:
        parts.append(
            f'<text class="chart-axis-label" x="{(WIDTH + PAD_LEFT) / 2:.0f}" y="{HEIGHT - 4}" '
            f'text-anchor="middle">{escape(x_label)}</text>'
        )
    if y_label:
        mid = (HEIGHT - PAD_BOTTOM + PAD_TOP) / 2
        parts.append(
            f'<text class="chart-axis-label" x="12" y="{mid:.0f}" transform="rotate(-90 12 {mid:.0f})" '
            f'text-anchor="middle">{escape(y_label)}</text>'
        )
    for x, y, css, label in points:
        parts.append(
            f'<circle class="chart-dot {escape(css)}" cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4">'
            f"<title>{escape(label)}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)
