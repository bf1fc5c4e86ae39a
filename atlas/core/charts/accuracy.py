"""Predicted against measured tokens per second, log–log, one point per published measurement.

Each point is a cross-validated prediction: the fit that predicted it never
saw its source. The diagonal is a perfect prediction; the dashed lines mark
×1.5 too fast and ×1.5 too slow (the band the accuracy targets use).
Points are coloured and grouped in the legend by ``group`` (an engine or a
device class, as the caller decides). Below the chart, nothing depending on
hover: per group, how many points and where they lie, and (``cases_file``) a
link to every point's numbers as a file. The points themselves (about 3,700)
are not listed in the page: that table made the page 1.8 MB and 34,000
elements, heavy for a phone, and a reader does more with them in a spreadsheet.

Input: ``[{"id", "label", "group", "measured", "predicted"}]`` in tokens per second.
"""

from __future__ import annotations

import statistics

from atlas.core import l10n
from atlas.core.charts import svg

PLOT_LEFT, PLOT_TOP = 90.0, 16.0
PLOT_RIGHT = svg.WIDTH - 20.0
PLOT_BOTTOM = 420.0
BAND = 1.5


def _check(points, lang):
    if not isinstance(points, list) or not points:
        raise ValueError(l10n.t(lang, "charts.error.empty"))
    clean = []
    for p in points:
        clean.append({
            "id": svg.check_text(p.get("id"), lang, "id"),
            "label": svg.check_text(p.get("label"), lang, "label"),
            "group": svg.check_text(p.get("group"), lang, "group"),
            "measured": svg.check_number(p.get("measured"), lang, "measured"),
            "predicted": svg.check_number(p.get("predicted"), lang, "predicted"),
        })
    return clean


def scale(points):
    values = [p["measured"] for p in points] + [p["predicted"] for p in points]
    lo, hi = svg.decade_floor(min(values) / 1.2), svg.decade_ceil(max(values) * 1.2)
    return (svg.LogScale(lo, hi, PLOT_LEFT, PLOT_RIGHT), svg.LogScale(lo, hi, PLOT_BOTTOM, PLOT_TOP))


def accuracy_svg(points, lang: str, title: str | None = None) -> str:
    """The scatter as ``<svg data-chart="accuracy">``."""
    points = _check(points, lang)
    xs, ys = scale(points)
    groups = sorted({p["group"] for p in points})
    out = [svg.axes_frame(PLOT_LEFT, PLOT_TOP, PLOT_RIGHT, PLOT_BOTTOM)]
    out.append(svg.x_ticks(xs, xs.ticks(), PLOT_TOP, PLOT_BOTTOM, lang))
    out.append(svg.y_ticks(ys, ys.ticks(), PLOT_LEFT, PLOT_RIGHT, lang))
    out.append(svg.text((PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_BOTTOM + 36, l10n.t(lang, "charts.accuracy.x_axis"),
                        anchor="middle", cls="atlas-axis-label"))
    out.append(svg.text(18, (PLOT_TOP + PLOT_BOTTOM) / 2, l10n.t(lang, "charts.accuracy.y_axis"), anchor="middle",
                        cls="atlas-axis-label", rotate=True))
    lo, hi = xs.lo, xs.hi
    out.append(svg.line(xs(lo), ys(lo), xs(hi), ys(hi), "atlas-threshold-line"))
    for factor in (BAND, 1 / BAND):
        a = max(lo, lo / factor)
        b = min(hi, hi / factor)
        out.append(svg.line(xs(a), ys(a * factor), xs(b), ys(b * factor), "atlas-threshold-line",
                            'stroke-dasharray="5 3"'))
    for p in points:
        x, y = xs(p["measured"]), ys(p["predicted"])
        index = groups.index(p["group"])
        tip = l10n.t(lang, "charts.accuracy.tip", case=p["label"], group=p["group"],
                     measured=svg.fmt(p["measured"], lang), predicted=svg.fmt(p["predicted"], lang))
        out.append(f'<g {svg.series_attrs(index, "atlas-point")} data-case="{svg.esc(p["id"])}" '
                   f'data-x="{svg.n(x)}" data-y="{svg.n(y)}"><circle cx="{svg.n(x)}" cy="{svg.n(y)}" r="3.5" '
                   f'fill="currentColor" fill-opacity="0.75"/><title>{svg.esc(tip)}</title></g>')
    legend, height = svg.legend(list(enumerate(groups)), PLOT_LEFT, PLOT_BOTTOM + 48, PLOT_RIGHT - PLOT_LEFT, "box")
    out.append(legend)
    desc = l10n.t(lang, "charts.accuracy.desc", count=len(points), groups=", ".join(groups))
    return svg.svg_root("accuracy", PLOT_BOTTOM + 52 + height, title or l10n.t(lang, "charts.accuracy.title"), desc,
                        "".join(out), lang)


def accuracy_table(points, lang: str) -> str:
    """Per group of the legend: its points, the range of measured and of predicted tokens/s, and the median of
    predicted ÷ measured."""
    t = lambda key, **kw: l10n.t(lang, key, **kw)  # noqa: E731
    points = _check(points, lang)
    rows = []
    for group in sorted({p["group"] for p in points}):
        members = [p for p in points if p["group"] == group]
        measured = [p["measured"] for p in members]
        predicted = [p["predicted"] for p in members]
        rows.append((None, [group, l10n.format_number(len(members), lang, 0),
                            f"{svg.fmt(min(measured), lang)}–{svg.fmt(max(measured), lang)}",
                            f"{svg.fmt(min(predicted), lang)}–{svg.fmt(max(predicted), lang)}",
                            svg.fmt(statistics.median(p["predicted"] / p["measured"] for p in members), lang)]))
    return svg.table([t("charts.accuracy.col.group"), t("charts.accuracy.col.cases"), t("charts.accuracy.col.measured"),
                      t("charts.accuracy.col.predicted"), t("charts.accuracy.col.median_ratio")], rows)


def cases_link(href: str, count: int, size: str, lang: str) -> str:
    """'Every case with its numbers: CSV file, 3,702 rows, 555.1 kB' as a paragraph linking ``href`` (``size``:
    the file's size as the page shows it)."""
    text = l10n.t(lang, "charts.accuracy.cases_file", rows=l10n.format_number(count, lang, 0), size=size)
    return f'<p class="atlas-chart-file"><a href="{svg.esc(href)}" download>{svg.esc(text)}</a></p>'


def accuracy_figure(points, lang: str, caption: str | None = None, cases_file: tuple[str, str] | None = None) -> str:
    """The chart, its per-group table and, with ``cases_file`` = (link, size as shown), the link to every case."""
    parts = [accuracy_table(points, lang)]
    if cases_file:
        parts.insert(0, cases_link(cases_file[0], len(points), cases_file[1], lang))
    return svg.figure(accuracy_svg(points, lang), parts, lang, caption)
