"""Pictures for the systolic-array demo: utilisation against matrix size, and
one clock cycle of the array as a grid of processing elements (PEs).

Utilisation is a share in [0, 1] (useful multiply-adds ÷ PE-cycles), drawn in
per cent on a linear axis against M, the rows of X streamed through the array,
on a log axis. One PE grid shows which row of X each PE works on in that
cycle; the data comes from ``atlas.core.kernels.systolic.simulate(..., trace=True)``
(``frames[i]["active"]``), nothing is computed here.

Standard library only (plus ``l10n``), like the rest of ``charts``.
"""

from __future__ import annotations

from atlas.core import l10n
from atlas.core.charts import svg

PLOT_LEFT, PLOT_TOP = 64.0, 16.0
PLOT_RIGHT = svg.WIDTH - 20.0
PLOT_BOTTOM = 300.0

CELL = 30.0  # side of one PE in the grid, user units
GAP = 3.0
EDGE = 16.0  # room for the arrows into and out of the array


def _check_points(series, marker, lang):
    if not series:
        raise svg.ChartError(l10n.t(lang, "charts.error.no_devices"))
    clean = []
    for s in series:
        label = svg.check_text(s.get("label"), lang, "label")
        points = []
        for p in s.get("points") or []:
            size = svg.check_number(p.get("size"), lang, f"{label}: size")
            share = svg.check_number(p.get("utilisation"), lang, f"{label}: utilisation", allow_zero=True)
            points.append((size, min(share, 1.0)))
        if not points:
            raise svg.ChartError(l10n.t(lang, "charts.error.no_parts", what=label))
        clean.append({"label": label, "points": sorted(points)})
    mark = None
    if marker:
        mark = {
            "label": svg.check_text(marker.get("label"), lang, "marker.label"),
            "size": svg.check_number(marker.get("size"), lang, "marker.size"),
            "utilisation": svg.check_number(marker.get("utilisation"), lang, "marker.utilisation", allow_zero=True),
        }
    return clean, mark


def scales(series, marker=None):
    """The (x, y) scales of a utilisation chart: M on a log axis, per cent from 0 to 100."""
    sizes = [x for s in series for x, _ in s["points"]] + ([marker["size"]] if marker else [])
    lo, hi = svg.decade_floor(min(sizes)), svg.decade_ceil(max(sizes) * 1.0001)
    if lo == hi:
        hi = lo * 10
    return svg.LogScale(lo, hi, PLOT_LEFT, PLOT_RIGHT), svg.LinearScale(0.0, 100.0, PLOT_BOTTOM, PLOT_TOP)


def utilisation_svg(series, lang: str, marker=None, title: str | None = None) -> str:
    """Utilisation (per cent) against M as an ``<svg data-chart="utilisation">`` string.

    ``series``: ``[{"label", "points": [{"size": M, "utilisation": 0..1}]}]``,
    one line each; ``marker``: optional ``{"label", "size", "utilisation"}``,
    the reader's own product, drawn as a ringed point. Raises ``ChartError``
    (message in ``lang``) for unusable input.
    """
    series, marker = _check_points(series, marker, lang)
    xs, ys = scales(series, marker)
    out = [svg.axes_frame(PLOT_LEFT, PLOT_TOP, PLOT_RIGHT, PLOT_BOTTOM)]
    out.append(svg.x_ticks(xs, xs.ticks(), PLOT_TOP, PLOT_BOTTOM, lang))
    out.append(svg.y_ticks(ys, ys.ticks(5), PLOT_LEFT, PLOT_RIGHT, lang))
    out.append(svg.text((PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_BOTTOM + 36, l10n.t(lang, "charts.systolic.x_axis"),
                        anchor="middle", cls="atlas-axis-label"))
    out.append(svg.text(18, (PLOT_TOP + PLOT_BOTTOM) / 2, l10n.t(lang, "charts.systolic.y_axis"), anchor="middle",
                        cls="atlas-axis-label", rotate=True))
    for i, s in enumerate(series):
        path = " ".join(f"{svg.n(xs(x))},{svg.n(ys(100 * y))}" for x, y in s["points"])
        dots = "".join(
            f'<circle cx="{svg.n(xs(x))}" cy="{svg.n(ys(100 * y))}" r="2.5" fill="currentColor">'
            f"<title>{svg.esc(_tip(x, y, lang))}</title></circle>"
            for x, y in s["points"]
        )
        out.append(f'<g {svg.series_attrs(i, "atlas-series")}><polyline points="{path}" fill="none" '
                   f'stroke="currentColor" stroke-width="2"/>{dots}</g>')
    items = list(enumerate(s["label"] for s in series))
    if marker:
        x, y = xs(marker["size"]), ys(100 * marker["utilisation"])
        out.append(f'<g class="atlas-marker atlas-reader-point"><circle cx="{svg.n(x)}" cy="{svg.n(y)}" r="7" '
                   f'fill="none" stroke="currentColor" stroke-width="2.5"/><circle cx="{svg.n(x)}" cy="{svg.n(y)}" '
                   f'r="3" fill="currentColor"/>{svg.line_tag(1, x + 8, y - 9)}<title>{svg.esc(marker["label"])}</title></g>')
    legend, legend_height = svg.legend(items, PLOT_LEFT, PLOT_BOTTOM + 48, PLOT_RIGHT - PLOT_LEFT)
    out.append(legend)
    notes, notes_height = svg.notes([marker["label"]] if marker else [], PLOT_LEFT, PLOT_BOTTOM + 52 + legend_height)
    out.append(notes)
    best = max((y, x) for s in series for x, y in s["points"])
    desc = l10n.t(lang, "charts.systolic.desc", series="; ".join(s["label"] for s in series),
                  best=_percent(best[0], lang), size=l10n.format_number(best[1], lang, 0))
    title = title or l10n.t(lang, "charts.systolic.title")
    height = PLOT_BOTTOM + 48 + legend_height + notes_height + 4
    return svg.svg_root("utilisation", height, title, desc, "".join(out), lang)


def _percent(share: float, lang: str) -> str:
    return l10n.t(lang, "kernels.percent", value=svg.fmt(100 * share, lang))


def _tip(size: float, share: float, lang: str) -> str:
    return f"M = {l10n.format_number(size, lang, 0)}: {_percent(share, lang)}"


def utilisation_tables(series, lang: str, marker=None) -> list[str]:
    """The numbers behind the chart: one row per M, one column per series."""
    series, marker = _check_points(series, marker, lang)
    sizes = sorted({x for s in series for x, _ in s["points"]})
    lookup = [dict(s["points"]) for s in series]
    headers = [l10n.t(lang, "charts.systolic.x_axis")] + [s["label"] for s in series]
    rows = []
    for size in sizes:
        cells = [l10n.format_number(size, lang, 0)]
        cells += [_percent(points[size], lang) if size in points else "—" for points in lookup]
        rows.append((None, cells))
    return [svg.table(headers, rows)]


def utilisation_figure(series, lang: str, marker=None, caption: str | None = None) -> str:
    """The utilisation chart for a page: SVG plus its numbers in a collapsible table."""
    picture = utilisation_svg(series, lang, marker)
    return svg.figure(picture, utilisation_tables(series, lang, marker), lang, caption)


def pe_grid_svg(active, lang: str, rows_used: int | None = None, cols_used: int | None = None,
                title: str = "") -> str:
    """One cycle of a ``size`` x ``size`` array as an ``<svg data-chart="pe-grid">`` string.

    ``active``: the ``size`` x ``size`` grid of ``simulate``'s trace frame: the
    row of X each PE works on, or None where it is idle. ``rows_used`` and
    ``cols_used``: how many rows and columns of PEs hold a real weight in this
    tile (the rest hold the zero padding of a matrix that is not a multiple of
    the array); their work is drawn as wasted. A PE at the left edge that
    works this cycle has just taken in an activation (an arrow in); a bottom
    PE that works has just finished a sum (an arrow out). Colours follow the
    row of X, so one row's wave can be followed from frame to frame.
    """
    size = len(active)
    if not size or any(len(row) != size for row in active):
        raise svg.ChartError(l10n.t(lang, "charts.error.no_parts", what="active"))
    rows_used = size if rows_used is None else rows_used
    cols_used = size if cols_used is None else cols_used
    step = CELL + GAP
    side = size * step - GAP
    width, height = EDGE + side + 4, side + EDGE + 4
    # Every cell's outline: each row's top and bottom edges and each column's sides as dashed
    # lines (dash = one cell, gap = the space between cells); busy cells are filled on top.
    grid = []
    for i in range(size):
        at = i * step
        grid.append(f"M{svg.n(EDGE)} {svg.n(at)}h{svg.n(side)}M{svg.n(EDGE)} {svg.n(at + CELL)}h{svg.n(side)}")
        grid.append(f"M{svg.n(EDGE + at)} 0v{svg.n(side)}M{svg.n(EDGE + at + CELL)} 0v{svg.n(side)}")
    out = [f'<path class="atlas-pe-grid-lines" d="{"".join(grid)}" fill="none" stroke="currentColor" '
           f'stroke-dasharray="{svg.n(CELL)} {svg.n(GAP)}"/>']
    busy, labels = {}, []
    for r, row in enumerate(active):
        for c, m in enumerate(row):
            if m is None:
                continue
            x, y = EDGE + c * step, r * step
            busy.setdefault((m, r >= rows_used or c >= cols_used), []).append(
                f"M{svg.n(x)} {svg.n(y)}h{svg.n(CELL)}v{svg.n(CELL)}h-{svg.n(CELL)}z")
            labels.append(f'<text x="{svg.n(x + CELL / 2)}" y="{svg.n(y + CELL / 2 + 4)}">{m}</text>')
    for (m, wasted), cells in sorted(busy.items()):
        cls = "atlas-pe-pad" if wasted else "atlas-pe-busy"
        out.append(f'<path {svg.series_attrs(m % len(svg.SERIES_COLOURS), cls)} data-row="{m}" d="{"".join(cells)}" '
                   'fill="currentColor" stroke="currentColor"/>')
    if labels:
        out.append(f'<g class="atlas-pe-label" text-anchor="middle" fill="currentColor">{"".join(labels)}</g>')
    arrows = []
    for r, row in enumerate(active):
        if row[0] is not None:  # an activation enters this row from the left
            y = r * step + CELL / 2
            arrows.append(f"M1 {svg.n(y - 5)}L{svg.n(EDGE - 3)} {svg.n(y)}L1 {svg.n(y + 5)}z")
    for c, m in enumerate(active[-1]):
        if m is not None and c < cols_used:  # a finished sum leaves this column at the bottom
            x = EDGE + c * step + CELL / 2
            arrows.append(f"M{svg.n(x - 5)} {svg.n(side + 3)}L{svg.n(x)} {svg.n(side + EDGE - 1)}"
                          f"L{svg.n(x + 5)} {svg.n(side + 3)}z")
    if arrows:
        out.append(f'<path class="atlas-pe-flow" d="{"".join(arrows)}" fill="currentColor"/>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="atlas-chart atlas-pe-grid" data-chart="pe-grid" role="img" '
        f'lang="{svg.esc(lang)}" viewBox="0 0 {svg.n(width)} {svg.n(height)}" font-size="{svg.FONT_SIZE}">'
        f"<title>{svg.esc(title)}</title>{''.join(out)}</svg>"
    )
