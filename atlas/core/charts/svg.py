"""What every chart shares: scales and ticks, escaping, number formatting for
coordinates and labels, the ``<svg>`` root, legends, and the figure with its
data table.

Standard library only (the module also runs in Pyodide). Coordinates are in
SVG user units of a ``viewBox``; the browser scales the picture to the column
width, so it stays crisp at any zoom. Colours are never fixed in the markup:
text and axes use ``currentColor`` (the page's text colour in Material's light
and dark palettes) and series set ``color`` through a class that
``docs/assets/stylesheets/charts.css`` maps to a CSS variable per palette; the
``color`` attribute written here is only the fallback without that stylesheet.
"""

from __future__ import annotations

import math
from html import escape

from atlas.core import l10n

FONT_SIZE = 12
CHAR_WIDTH = 0.6 * FONT_SIZE  # rough advance of one character, for layout only
WIDTH = 720  # width of every chart's viewBox

# Fallback series colours (Okabe & Ito, colour-blind safe); CSS replaces them per palette.
SERIES_COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#a0522d", "#7f7f7f")


class ChartError(ValueError):
    """Input a chart cannot draw; the message is already in the page's language."""


def esc(text) -> str:
    """Escape text for SVG/HTML content and attribute values (quotes included)."""
    return escape(str(text), quote=True)


def n(x: float) -> str:
    """A coordinate with at most one decimal: 12.0 -> "12", 12.345 -> "12.3" (deterministic)."""
    text = f"{x:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text


def check_number(value, lang: str, what: str, *, positive: bool = True, allow_zero: bool = False) -> float:
    """``value`` as a float, or ``ChartError`` (localized) if it is not a finite (positive) number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ChartError(l10n.t(lang, "charts.error.not_a_number", what=what, value=str(value)))
    if positive and (value < 0 or (value == 0 and not allow_zero)):
        key = "charts.error.negative" if allow_zero else "charts.error.not_positive"
        raise ChartError(l10n.t(lang, key, what=what, value=l10n.format_significant(value, lang)))
    return float(value)


def check_text(value, lang: str, what: str) -> str:
    """A non-empty label (any text; it is escaped when written)."""
    if not isinstance(value, str) or not value.strip():
        raise ChartError(l10n.t(lang, "charts.error.no_label", what=what))
    return value


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (for labels in the picture only)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def text_width(text: str, size: float = FONT_SIZE) -> float:
    """Estimated width of ``text`` in user units (layout only; the font is the page's)."""
    return len(text) * 0.6 * size


def fmt(value: float, lang: str, digits: int = 3) -> str:
    """A number for labels and tables: about ``digits`` significant digits, localized."""
    return l10n.format_significant(value, lang, digits)


def exact(value: float, lang: str) -> str:
    """A figure from the data set as stated (up to three decimals), localized: 989.4 -> "989.4"."""
    return l10n.format_number(value, lang, 3)


# --- scales ---------------------------------------------------------------------------

NICE = (1, 2, 5)


def nice_floor(value: float) -> float:
    """Largest 1, 2 or 5 × 10^k not above ``value`` (> 0)."""
    exp = math.floor(math.log10(value))
    for m in reversed(NICE):
        candidate = m * 10.0**exp
        if candidate <= value * (1 + 1e-12):
            return candidate
    return 10.0 ** (exp - 1) * 5


def nice_ceil(value: float) -> float:
    """Smallest 1, 2 or 5 × 10^k not below ``value`` (> 0)."""
    exp = math.floor(math.log10(value))
    for m in (*NICE, 10):
        candidate = m * 10.0**exp
        if candidate >= value * (1 - 1e-12):
            return candidate
    return 10.0 ** (exp + 1)


def decade_floor(value: float) -> float:
    return 10.0 ** math.floor(math.log10(value) + 1e-12)


def decade_ceil(value: float) -> float:
    return 10.0 ** math.ceil(math.log10(value) - 1e-12)


class LogScale:
    """Maps values in [lo, hi] (> 0) to pixels in [start, end] on a log10 axis."""

    def __init__(self, lo: float, hi: float, start: float, end: float):
        if not (0 < lo < hi):
            raise ValueError(f"log scale needs 0 < lo < hi, got {lo}, {hi}")
        self.lo, self.hi, self.start, self.end = lo, hi, start, end
        self._a = math.log10(lo)
        self._span = math.log10(hi) - self._a

    def __call__(self, value: float) -> float:
        return self.start + (math.log10(value) - self._a) / self._span * (self.end - self.start)

    def ticks(self) -> list[float]:
        """Powers of ten inside the domain; 1-2-5 steps as well when it spans under two decades."""
        lo_exp, hi_exp = math.floor(math.log10(self.lo)), math.ceil(math.log10(self.hi))
        steps = NICE if self._span < 2 else (1,)
        out = []
        for exp in range(lo_exp, hi_exp + 1):
            for m in steps:
                value = m * 10.0**exp
                if self.lo * (1 - 1e-9) <= value <= self.hi * (1 + 1e-9):
                    out.append(value)
        return out


class LinearScale:
    """Maps values in [lo, hi] to pixels in [start, end]."""

    def __init__(self, lo: float, hi: float, start: float, end: float):
        if not lo < hi:
            raise ValueError(f"linear scale needs lo < hi, got {lo}, {hi}")
        self.lo, self.hi, self.start, self.end = lo, hi, start, end

    def __call__(self, value: float) -> float:
        return self.start + (value - self.lo) / (self.hi - self.lo) * (self.end - self.start)

    def ticks(self, count: int = 5) -> list[float]:
        """About ``count`` ticks at a 1, 2 or 5 × 10^k step."""
        step = nice_ceil((self.hi - self.lo) / count)
        first = math.ceil(self.lo / step - 1e-9)
        out = []
        i = first
        while i * step <= self.hi * (1 + 1e-9) + 1e-12:
            out.append(round(i * step, 12))
            i += 1
        return out


def linear_top(value: float, count: int = 5) -> float:
    """A round upper bound for a linear axis from 0 that holds ``value``."""
    if value <= 0:
        return 1.0
    step = nice_ceil(value / count)
    return math.ceil(value / step - 1e-9) * step


# --- markup ----------------------------------------------------------------------------


def text(x: float, y: float, content: str, *, anchor: str = "start", cls: str = "", size: float | None = None,
         rotate: bool = False, baseline: str | None = None) -> str:
    """A ``<text>`` in the page's text colour; ``content`` is escaped here."""
    attrs = [f'x="{n(x)}"', f'y="{n(y)}"']
    if anchor != "start":
        attrs.append(f'text-anchor="{anchor}"')
    if baseline:
        attrs.append(f'dominant-baseline="{baseline}"')
    if size:
        attrs.append(f'font-size="{n(size)}"')
    if cls:
        attrs.append(f'class="{cls}"')
    if rotate:
        attrs.append(f'transform="rotate(-90 {n(x)} {n(y)})"')
    return f'<text {" ".join(attrs)} fill="currentColor">{esc(content)}</text>'


def line(x1: float, y1: float, x2: float, y2: float, cls: str, extra: str = "") -> str:
    extra = f" {extra}" if extra else ""
    return f'<line class="{cls}" x1="{n(x1)}" y1="{n(y1)}" x2="{n(x2)}" y2="{n(y2)}" stroke="currentColor"{extra}/>'


DASHES = ("", "7 4", "2 3", "10 3 2 3")  # after every colour is used once, the next round is dashed


def series_attrs(index: int, cls: str) -> str:
    """``class``, fallback ``color`` and (from the ninth series on) dash pattern of series ``index``.

    Children draw in ``currentColor``; the dash pattern is inherited by lines.
    """
    colour = index % len(SERIES_COLOURS)
    dash = DASHES[(index // len(SERIES_COLOURS)) % len(DASHES)]
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    return f'class="{cls} atlas-s{colour}" color="{SERIES_COLOURS[colour]}"{dash_attr}'


def svg_root(name: str, height: float, title: str, desc: str, body: str, lang: str) -> str:
    """The ``<svg>`` element every chart returns: ``data-chart``, ``role="img"``, title and description."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="atlas-chart" data-chart="{esc(name)}" role="img" '
        f'lang="{esc(lang)}" viewBox="0 0 {WIDTH} {n(height)}" font-size="{FONT_SIZE}">'
        f"<title>{esc(title)}</title><desc>{esc(desc)}</desc>{body}</svg>"
    )


def axes_frame(x0: float, y0: float, x1: float, y1: float) -> str:
    """The plot area's left and bottom axis lines (x0, y0 top-left; x1, y1 bottom-right)."""
    return line(x0, y1, x1, y1, "atlas-axis") + line(x0, y0, x0, y1, "atlas-axis")


def x_ticks(scale, ticks, y_top: float, y_bottom: float, lang: str, labels=None) -> str:
    """Grid lines and labels of a horizontal axis at the given tick values."""
    out = []
    for i, value in enumerate(ticks):
        x = scale(value)
        out.append(line(x, y_top, x, y_bottom, "atlas-grid"))
        label = labels[i] if labels else fmt(value, lang)
        out.append(text(x, y_bottom + 18, label, anchor="middle", cls="atlas-tick"))
    return "".join(out)


def y_ticks(scale, ticks, x_left: float, x_right: float, lang: str) -> str:
    """Grid lines and labels of a vertical axis at the given tick values."""
    out = []
    for value in ticks:
        y = scale(value)
        out.append(line(x_left, y, x_right, y, "atlas-grid"))
        out.append(text(x_left - 6, y + 4, fmt(value, lang), anchor="end", cls="atlas-tick"))
    return "".join(out)


def legend(items, x0: float, y0: float, width: float, swatch: str = "line") -> tuple[str, float]:
    """A legend laid out in columns below the plot.

    ``items`` is ``[(key, label)]`` where key is a series index or a
    ``(css class, fallback colour)`` pair. Returns the markup
    and the height it takes. ``swatch`` is "line" or "box".
    """
    if not items:
        return "", 0.0
    longest = max(text_width(shorten(label, 32)) for _, label in items) + 30
    columns = max(1, min(len(items), int(width // max(longest, 120))))
    col_width = width / columns
    rows = math.ceil(len(items) / columns)
    out = ['<g class="atlas-legend">']
    for i, (key, label) in enumerate(items):
        col, row = i % columns, i // columns
        x, y = x0 + col * col_width, y0 + row * 20 + 10
        if isinstance(key, int):
            attrs = series_attrs(key, "atlas-legend-item")
        else:
            cls, colour = key
            attrs = f'class="atlas-legend-item {cls}" color="{colour}"'
        if swatch == "box":
            mark = f'<rect x="{n(x)}" y="{n(y - 6)}" width="14" height="12" fill="currentColor"/>'
        else:
            mark = f'<line x1="{n(x)}" y1="{n(y)}" x2="{n(x + 18)}" y2="{n(y)}" stroke="currentColor" stroke-width="3"/>'
        out.append(f"<g {attrs}>{mark}</g>" + text(x + 24, y + 4, shorten(label, 32), cls="atlas-label"))
    out.append("</g>")
    return "".join(out), rows * 20 + 4


def line_tag(number: int, x: float, y: float) -> str:
    """The small number drawn at the top of a reference line; ``notes`` explains it below the plot."""
    return text(x + 3, y, str(number), cls="atlas-line-tag", size=11)


def tag_rows(positions, labels, size: float = 11, gap: float = 3) -> list[int]:
    """Rows for the tags of neighbouring reference lines: each tag (drawn from ``x + 3``) takes the first row
    in which it overlaps no tag already placed, so two close lines never write their numbers over each other.
    ``positions`` are the lines' x, ``labels`` the tags' texts; returns one row index (0 = top) per tag."""
    placed: list[tuple[float, float, int]] = []
    rows = []
    for x, label in zip(positions, labels, strict=True):
        left, right = x + 3, x + 3 + text_width(str(label), size)
        row = 0
        while any(r == row and not (right + gap <= pl or left >= pr + gap) for pl, pr, r in placed):
            row += 1
        placed.append((left, right, row))
        rows.append(row)
    return rows


def notes(labels, x0: float, y0: float) -> tuple[str, float]:
    """Numbered explanations of reference lines ("1  Llama 3.1 8B decode, batch 1"), one per row.

    Returns the markup and the height it takes; empty for no labels.
    """
    if not labels:
        return "", 0.0
    out = ['<g class="atlas-notes">']
    for i, label in enumerate(labels):
        y = y0 + i * 18 + 10
        out.append(line(x0, y - 8, x0, y + 4, "atlas-note-swatch", 'stroke-dasharray="4 3"'))
        out.append(text(x0 + 6, y, str(i + 1), cls="atlas-line-tag", size=11))
        out.append(text(x0 + 22, y, shorten(label, 90), cls="atlas-label"))
    out.append("</g>")
    return "".join(out), len(labels) * 18 + 4


# --- the figure around the picture -------------------------------------------------------


def table(headers, rows, caption: str | None = None) -> str:
    """A plain data table. ``rows`` is ``[(device_id or None, [cells])]``; the first cell is the row header.

    Device rows carry ``data-chart-device`` (not the ``data-device`` of the
    comparison tables, so a page's device tables count only their own rows).

    Cells are text (escaped here); numeric cells should arrive formatted.
    """
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in headers)
    body = []
    for row_id, cells in rows:
        attr = f' data-chart-device="{esc(row_id)}"' if row_id else ""
        first, rest = cells[0], cells[1:]
        tds = "".join(f"<td>{esc(c)}</td>" for c in rest)
        body.append(f'<tr{attr}><th scope="row">{esc(first)}</th>{tds}</tr>')
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f'<table class="atlas-chart-table">{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def figure(svg: str, tables: list[str], lang: str, caption: str | None = None, note: str | None = None) -> str:
    """The chart as a page shows it: the SVG, an optional caption and caveat, and
    its numbers as tables in a collapsible block (one line of HTML, no blank line)."""
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    caveat = f'<p class="atlas-chart-note">{esc(note)}</p>' if note else ""
    summary = esc(l10n.t(lang, "charts.data_summary"))
    # The box scrolls sideways on a narrow screen, where the picture keeps its full width (charts.css), so
    # its text stays legible instead of shrinking with the column. The picture's text (a label per point) and
    # the numbers stay out of the site's search index (data-search-exclude; the caption stays in): every page
    # fetches that index and builds it in a worker, and the accuracy chart (every measured case, twice) was
    # two thirds of it, 1.6 of 2.4 million characters.
    return (
        f'<figure class="atlas-figure"><div class="atlas-chart-box" data-search-exclude>{svg}</div>{cap}{caveat}'
        f'<details class="atlas-chart-data" data-search-exclude><summary>{summary}</summary>{"".join(tables)}'
        f'</details></figure>'
    )
