"""Small inline SVG plots for the HTML report (no plotting library, no scripts).

Every data point is a `<circle class="point">` (or a `<rect class="bar">`) with a `<title>`,
so a reader hovering sees the numbers and a test can count the points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

Series = tuple[str, Sequence[tuple[float, float]]]  # label, (x, y) points

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
_FONT = 'font-family="sans-serif" font-size="11"'


def _fmt(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"


def _tick_format(ticks: Sequence[float]) -> str:
    """A format with just enough decimals to tell neighbouring ticks apart."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    decimals = 0
    while decimals < 6 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-6:
        decimals += 1
    return f"{{:.{decimals}f}}"


def _opening(width: int, height: int, title: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}">',
        f'<text x="{width / 2}" y="16" text-anchor="middle" {_FONT} font-weight="bold">'
        f"{escape(title)}</text>",
    ]


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About `count` round tick values covering [low, high]."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 10))
    return ticks


@dataclass(frozen=True)
class _Frame:
    """Where a plot's area lies in the picture and the data range it shows."""

    left: float
    top: float
    width: float  # of the plot area
    height: float
    x0: float
    x1: float
    y0: float
    y1: float

    def sx(self, x: float) -> float:
        return self.left + (x - self.x0) / (self.x1 - self.x0) * self.width

    def sy(self, y: float) -> float:
        return self.top + self.height - (y - self.y0) / (self.y1 - self.y0) * self.height


def line_plot(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 560,
    height: int = 260,
    step: bool = False,
) -> str:
    """Lines with a marker per point; `step` draws counts that jump at each point."""
    left, right, top, bottom = 56, 16, 28, 44
    points = [p for _, pts in series for p in pts]
    xs = [x for x, _ in points] or [0.0]
    ys = [y for _, y in points] or [0.0]
    x_ticks = nice_ticks(min(0.0, min(xs)), max(xs))
    y_ticks = nice_ticks(min(0.0, min(ys)), max(ys))
    frame = _Frame(left, top, width - left - right, height - top - bottom,
                   x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1])  # fmt: skip
    out = _opening(width, height, title)
    out += _axes(frame, x_ticks, y_ticks, width - right)
    out.append(f'<text x="{left + frame.width / 2}" y="{height - 6}" text-anchor="middle" '
               f"{_FONT}>{escape(x_label)}</text>")  # fmt: skip
    out.append(f'<text transform="translate(13 {top + frame.height / 2}) rotate(-90)" '
               f'text-anchor="middle" {_FONT}>{escape(y_label)}</text>')  # fmt: skip
    for index, (label, pts) in enumerate(series):
        out += _line(frame, index, label, pts, step)
    if not points:
        out.append(f'<text x="{width / 2}" y="{top + frame.height / 2}" text-anchor="middle" '
                   f'{_FONT} fill="#888">no data yet</text>')  # fmt: skip
    out.append("</svg>")
    return "\n".join(out)


def _axes(frame: _Frame, x_ticks: list[float], y_ticks: list[float], right: float) -> list[str]:
    """Grid lines and labels at the ticks, and the plot's border."""
    left, top, bottom = frame.left, frame.top, frame.top + frame.height
    x_fmt, y_fmt = _tick_format(x_ticks), _tick_format(y_ticks)
    out = []
    for tick in y_ticks:
        y = frame.sy(tick)
        out.append(f'<line x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" '
                   'stroke="#ddd"/>')  # fmt: skip
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" {_FONT}>'
                   f"{y_fmt.format(tick)}</text>")  # fmt: skip
    for tick in x_ticks:
        x = frame.sx(tick)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{bottom}" y2="{bottom + 4}" '
                   'stroke="#333"/>')  # fmt: skip
        out.append(f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle" {_FONT}>'
                   f"{x_fmt.format(tick)}</text>")  # fmt: skip
    out.append(f'<rect x="{left}" y="{top}" width="{frame.width}" height="{frame.height}" '
               'fill="none" stroke="#333"/>')  # fmt: skip
    return out


def _line(
    frame: _Frame, index: int, label: str, pts: Sequence[tuple[float, float]], step: bool
) -> list[str]:
    """One series: its line, a marker per point (with its value as a tooltip), its legend."""
    colour = COLOURS[index % len(COLOURS)]
    out = []
    coords: list[tuple[float, float]] = []
    for x, y in pts:
        if step and coords:
            coords.append((frame.sx(x), coords[-1][1]))
        coords.append((frame.sx(x), frame.sy(y)))
    if len(coords) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                   'stroke-width="2"/>')  # fmt: skip
    for x, y in pts:
        out.append(
            f'<circle class="point" cx="{frame.sx(x):.1f}" cy="{frame.sy(y):.1f}" r="3" '
            f'fill="{colour}"><title>{escape(label)}: {_fmt(y)} at {_fmt(x)}</title></circle>'
        )
    legend_y = frame.top + 14 + 14 * index
    out.append(f'<rect x="{frame.left + 8}" y="{legend_y - 8}" width="10" height="10" '
               f'fill="{colour}"/>')  # fmt: skip
    out.append(f'<text x="{frame.left + 22}" y="{legend_y + 1}" {_FONT}>{escape(label)}</text>')
    return out


def bar_chart(
    rows: Sequence[tuple[str, float, float | None]],
    *,
    title: str,
    total_label: str,
    part_label: str,
    width: int = 560,
) -> str:
    """Horizontal bars: a light bar for each row's total, a dark one for its part (or none)."""
    left, right, top, bar_h, gap = 150, 60, 40, 16, 6
    height = top + len(rows) * (bar_h + gap) + 20
    largest = max((total for _, total, _ in rows), default=0.0) or 1.0
    plot_w = width - left - right
    out = [
        *_opening(width, height, title),
        f'<rect x="{left}" y="24" width="10" height="10" fill="#aec7e8"/>'
        f'<text x="{left + 14}" y="33" {_FONT}>{escape(total_label)}</text>',
        f'<rect x="{left + 130}" y="24" width="10" height="10" fill="{COLOURS[0]}"/>'
        f'<text x="{left + 144}" y="33" {_FONT}>{escape(part_label)}</text>',
    ]
    for index, (label, total, part) in enumerate(rows):
        y = top + index * (bar_h + gap)
        w_total = total / largest * plot_w
        out.append(f'<text x="{left - 6}" y="{y + bar_h - 4}" text-anchor="end" {_FONT}>'
                   f"{escape(label)}</text>")  # fmt: skip
        tip = f"{label}: {_fmt(total)} {total_label}"
        if part is not None:
            tip += f", {_fmt(part)} {part_label}"
        out.append(f'<rect class="bar" x="{left}" y="{y}" width="{w_total:.1f}" '
                   f'height="{bar_h}" fill="#aec7e8"><title>{escape(tip)}</title></rect>')  # fmt: skip
        if part is not None:
            w_part = part / largest * plot_w
            out.append(f'<rect x="{left}" y="{y}" width="{w_part:.1f}" height="{bar_h}" '
                       f'fill="{COLOURS[0]}"><title>{escape(tip)}</title></rect>')  # fmt: skip
        share = f"{part / total:.0%}" if part is not None and total else _fmt(total)
        out.append(f'<text x="{left + w_total + 4:.1f}" y="{y + bar_h - 4}" {_FONT}>'
                   f"{share}</text>")  # fmt: skip
    if not rows:
        out.append(f'<text x="{width / 2}" y="{top + 10}" text-anchor="middle" {_FONT} '
                   'fill="#888">no data yet</text>')  # fmt: skip
    out.append("</svg>")
    return "\n".join(out)
